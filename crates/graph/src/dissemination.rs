//! The dissemination barrier in CLa form, priced by its CLa graph on ccNUMA machines beside the
//! tree barrier of `models/barrier.cla` (docs/cla.md §12, "The dissemination barrier").
//!
//! With degree m and n threads the barrier runs r = ⌈log_{m+1} n⌉ rounds. In round k every
//! thread T adds 1 to the round-k counter line of each of its peers (T + i·(m+1)^k) mod n,
//! i = 1..=m_k, and then waits until its own round-k counter holds m_k, where
//! m_k = min(m, ⌈n / (m+1)^k⌉ − 1): every round but possibly the last has m peers, the last only
//! as many as it takes to cover n. After round k a thread has heard, directly or through its
//! peers, from the (m+1)^(k+1) threads before it (or all n), which is why r rounds are a
//! barrier and why no peer distance of the last round reaches n (so no thread is its own peer,
//! and no peer is notified twice in one round).
//!
//! **Why counters per round, and not seed 000's line.** Seed 000 §4.2 (Figure 4.3) keeps one line
//! per thread holding both its flag and its notification counter: a thread reads its peers'
//! flags and increments their counters, the read and the increment fetching the line once. A
//! CLa line holds one value, and encoding flag and counter in one number does not help: a
//! peer's wait for the flag would also depend (edge E2, docs/cla.md §3) on the increments other
//! peers made to that line before it, which the real program does not wait for. Splitting flag
//! and counter over two lines makes every peer cost two transfers, more than the protocol here,
//! where a peer costs one (the add of its notification) and every line has one kind of writer
//! (its peers) and one reader (its owner): each wait's E2 sources are exactly the adds it waits
//! for, and no line is reused across rounds (no E4 edge). This is the counting form of the
//! dissemination barrier of Hensgen, Finkel and Manber (1988) with m peers per round.
//!
//! The counter lines start in memory at their owner's socket (`memory thread=t`), as the lines of
//! the bundled tree barrier do, so that the two barriers are priced under the same first touch.
//!
//! The threads are in rank order on the ring: thread t runs where the machine places thread t
//! (by id). The free parameter is m (r follows), so ranking every m is exact for that ring.

use crate::program::Program;
use crate::{analyze, default_places, GraphError};
use modelopt_model::algorithm::{RoundsRule, Space, SpaceOptions, ThreadPlacement};
use modelopt_model::ccnuma::Ccnuma;
use modelopt_model::tree::RootedTree;
use modelopt_model::{Algorithm, Collective, Cost, ModelError, Params, Request};
use std::fmt::Write as _;

/// The rounds of a dissemination barrier of degree m on n threads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// Threads n.
    pub threads: u32,
    /// Degree m: peers per round (the last round may have fewer).
    pub degree: u32,
    /// Per round k: the distance unit (m+1)^k and the peers m_k.
    pub rounds: Vec<Round>,
}

/// One round of a [`Schedule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    /// (m+1)^k: thread T notifies T + i·stride for i = 1..=peers.
    pub stride: u64,
    /// m_k = min(m, ⌈n / stride⌉ − 1), at least 1.
    pub peers: u32,
}

impl Schedule {
    /// The schedule for `threads` threads with `degree` peers per round: 2 ≤ n and 1 ≤ m ≤ n − 1.
    pub fn new(threads: u32, degree: u32) -> Result<Self, GraphError> {
        if threads < 2 {
            return Err(GraphError::Threads(format!(
                "a dissemination barrier needs at least 2 threads (got {threads})"
            )));
        }
        if degree == 0 || degree >= threads {
            return Err(GraphError::Threads(format!(
                "degree m = {degree} must be between 1 and n − 1 = {}",
                threads - 1
            )));
        }
        let n = u64::from(threads);
        let base = u64::from(degree) + 1;
        let mut rounds = Vec::new();
        let mut stride: u64 = 1;
        // stride < n at the start of every round, and stride grows at least ×2 per round, so
        // there are at most 32 rounds.
        while stride < n {
            let peers = n.div_ceil(stride) - 1;
            rounds.push(Round {
                stride,
                peers: u32::try_from(peers.min(u64::from(degree))).unwrap_or(degree),
            });
            stride = stride.saturating_mul(base);
        }
        Ok(Schedule {
            threads,
            degree,
            rounds,
        })
    }

    /// r = ⌈log_{m+1} n⌉.
    pub fn round_count(&self) -> u32 {
        self.rounds.len() as u32
    }

    /// The peers thread `me` notifies in round `k` (ascending i).
    pub fn peers_of(&self, me: u32, k: usize) -> Vec<u32> {
        let n = u64::from(self.threads);
        self.rounds.get(k).map_or_else(Vec::new, |round| {
            (1..=u64::from(round.peers))
                .map(|i| ((u64::from(me) + i * round.stride) % n) as u32)
                .collect()
        })
    }

    /// The program in the `.cla` text format: one block every thread runs (every role), the
    /// peers written as offsets of `me` modulo `nthreads`. Its size grows with Σ m_k, not with
    /// n·Σ m_k: every thread runs the same text.
    pub fn program_text(&self) -> String {
        let mut text = format!(
            "# Dissemination barrier of degree m = {} on {} threads, {} rounds (generated by\n\
             # modelopt_graph::dissemination; docs/cla.md §12). Round k: add 1 to the round-k\n\
             # counter of each peer me + i*(m+1)^k, then wait for my own m_k notifications.\n\
             cla dissemination-barrier\n\n\
             line arrive[t,k] memory thread=t   # round-k notifications of thread t\n\n\
             role root inner leaf\n",
            self.degree,
            self.threads,
            self.round_count()
        );
        let n = u64::from(self.threads);
        for (k, round) in self.rounds.iter().enumerate() {
            for i in 1..=u64::from(round.peers) {
                let offset = i * round.stride % n;
                let _ = writeln!(text, "  add arrive[(me + {offset}) % nthreads, {k}] 1");
            }
            let _ = writeln!(text, "  wait arrive[me, {k}] == {}", round.peers);
        }
        text
    }

    /// The program, parsed.
    pub fn program(&self) -> Result<Program, GraphError> {
        let origin = format!(
            "dissemination barrier (n = {}, m = {})",
            self.threads, self.degree
        );
        Ok(crate::parse::parse(&origin, &self.program_text())?)
    }

    /// A lower bound (ns) on T_min of the program with thread t at `places[t]`, without
    /// building its graph: the longest of the threads' own chains, each op at its least cost.
    ///
    /// A thread's adds and waits run in program order (E1), so T_min is at least the sum of
    /// their costs (docs/cla.md §5: a node finishes at its start plus its cost, an add of an E3
    /// group at its cost in the order the untimed execution performed it). An add is the
    /// thread's first access to that peer's counter (its previous op touched another line: no
    /// rule 2 or 3), so it pays memory (R_I or R_QI) or the class of the line's previous
    /// holder, another adder of that counter (the owner reads it only once all adds are in); a
    /// wait reads its own counter after the last add, another thread's. Every such cost is at
    /// least the least of R_R, R_D, R_Q, R_I and R_QI, except R_L when that other thread shares
    /// the core. The bound counts R_L only where the schedule allows it: thread T's add i of
    /// round k (to T + i·s, s = (m+1)^k) finds the line at adder T + (i − j)·s, a sibling of T
    /// (same core) only if (i − j)·s ≡ sibling − T (mod n), which fixes i − j = δ and leaves
    /// m_k − |δ| such adds; its wait's last writer T − i·s is a sibling only if i·s ≡ T −
    /// sibling (mod n) for some i ≤ m_k.
    pub fn chain_bound(&self, machine: &Ccnuma, places: &[modelopt_model::ccnuma::Place]) -> f64 {
        let line = &machine.line;
        let far = [
            line.remote,
            line.remote_domain,
            line.remote_socket,
            line.invalid,
            line.invalid_remote_socket,
        ]
        .into_iter()
        .fold(f64::INFINITY, f64::min)
        .max(0.0);
        let near = line.local.max(0.0).min(far);
        let mut by_core = std::collections::BTreeMap::<(u32, u32), Vec<u64>>::new();
        for (t, p) in places.iter().enumerate() {
            by_core
                .entry((p.socket, p.core))
                .or_default()
                .push(t as u64);
        }
        let n = u64::from(self.threads);
        let mut longest: f64 = 0.0;
        for (t, p) in places.iter().enumerate() {
            let t = t as u64;
            let siblings: &[u64] = by_core.get(&(p.socket, p.core)).map_or(&[], Vec::as_slice);
            let mut chain = 0.0;
            for round in &self.rounds {
                let (m, s) = (u64::from(round.peers), round.stride);
                let mut near_adds: u64 = 0;
                let mut near_wait = false;
                for &u in siblings.iter().filter(|&&u| u != t) {
                    // u − t mod n, in 1..n: δ·s is d (δ > 0) or d − n (δ < 0).
                    let d = (u + n - t) % n;
                    for magnitude in [d, n - d] {
                        if magnitude.is_multiple_of(s) && magnitude / s < m {
                            near_adds = near_adds.saturating_add(m - magnitude / s);
                        }
                    }
                    // i·s = t − u mod n = n − d for some 1 ≤ i ≤ m.
                    if (n - d).is_multiple_of(s) && (n - d) / s <= m {
                        near_wait = true;
                    }
                }
                let near_adds = near_adds.min(m);
                chain += (m - near_adds) as f64 * far
                    + near_adds as f64 * near
                    + if near_wait { near } else { far };
            }
            longest = longest.max(chain);
        }
        longest
    }

    /// T_min and T_max (ns) of the program with thread t at `places[t]`.
    pub fn price(
        &self,
        machine: &Ccnuma,
        places: &[modelopt_model::ccnuma::Place],
    ) -> Result<(f64, f64), GraphError> {
        let program = self.program()?;
        // Every thread runs the same block, so any tree gives the roles; the flat one.
        let parents: Vec<Option<u32>> = (0..self.threads).map(|t| (t > 0).then_some(0)).collect();
        let tree = RootedTree::from_parents(&parents).map_err(|source| GraphError::Tree {
            tree: format!("flat tree of {} nodes", self.threads),
            source,
        })?;
        let (_, min, max) = analyze(&program, &tree, machine, places)?;
        Ok((min.total_ns, max.total_ns))
    }
}

/// The dissemination barrier as an [`Algorithm`] of a ccNUMA machine: its space is the degree m
/// (rounds follow), its cost the critical paths of the CLa graph with threads placed by id.
#[derive(Debug, Clone, Copy)]
pub struct DisseminationBarrier<'m> {
    /// The machine.
    pub machine: &'m Ccnuma,
}

/// The algorithm's name.
pub const NAME: &str = "cla-dissemination";

impl Algorithm for DisseminationBarrier<'_> {
    fn name(&self) -> &'static str {
        NAME
    }
    fn collective(&self) -> Collective {
        Collective::Barrier
    }
    fn summary(&self) -> &'static str {
        "dissemination barrier: in round k every thread adds 1 to the round-k counter of its m peers me + i(m+1)^k (mod n), threads in rank order, priced by its CLa graph (seed 001 §3; compare seed 000 §4.2)"
    }
    fn space(&self, request: &Request, options: &SpaceOptions) -> Result<Space, ModelError> {
        if options.placement == ThreadPlacement::Optimal {
            return Err(ModelError::Parameter {
                name: "placement".into(),
                value: options.placement.to_string(),
                reason: "the dissemination barrier runs its threads in rank order where the machine places them by id; --placement optimal chooses placements for trees".into(),
            });
        }
        let threads = request.threads();
        if threads < 2 {
            return Err(ModelError::Parameter {
                name: "threads".into(),
                value: threads.to_string(),
                reason: "a barrier needs at least 2 threads".into(),
            });
        }
        // The program's rounds are the ones its correctness needs, whatever `--rounds` says
        // (that rule is seed 000's formula's, Eq. 4.11).
        Ok(Space::Dissemination {
            threads,
            rule: RoundsRule::Exact,
        })
    }
    /// A lower bound on T_min (and so on T_max ≥ T_min): [`Schedule::chain_bound`].
    fn configuration_bound(&self, request: &Request, params: &Params) -> Option<Cost> {
        let &Params::Dissemination { degree, rounds } = params else {
            return None;
        };
        let schedule = Schedule::new(request.threads(), degree).ok()?;
        if rounds != schedule.round_count() {
            return None;
        }
        let places = default_places(self.machine, request.threads());
        let bound = schedule.chain_bound(self.machine, &places);
        Some(Cost::range(bound, bound))
    }
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        let &Params::Dissemination { degree, rounds } = params else {
            return Err(ModelError::WrongParams {
                algorithm: NAME.into(),
                expected: "a degree m and its rounds r".into(),
                got: modelopt_model::error::clip(&params.to_string()),
            });
        };
        let failed = |e: GraphError| ModelError::Parameter {
            name: "m".into(),
            value: degree.to_string(),
            reason: e.to_string(),
        };
        let schedule = Schedule::new(request.threads(), degree).map_err(failed)?;
        if rounds != schedule.round_count() {
            return Err(ModelError::Parameter {
                name: "r".into(),
                value: rounds.to_string(),
                reason: format!(
                    "the dissemination barrier of degree {degree} on {} threads runs r = ⌈log_(m+1) n⌉ = {} rounds",
                    request.threads(),
                    schedule.round_count()
                ),
            });
        }
        let places = default_places(self.machine, request.threads());
        let (min, max) = schedule.price(self.machine, &places).map_err(failed)?;
        Ok(Cost::range(min, max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_cover_the_threads_and_the_last_round_only_what_is_left() {
        // n = 8, m = 2: strides 1, 3, 9 ≥ 8 stops; round 0 has 2 peers, round 1
        // ⌈8/3⌉ − 1 = 2 peers (distances 3 and 6 < 8): r = ⌈log_3 8⌉ = 2.
        let s = Schedule::new(8, 2).unwrap();
        assert_eq!(s.round_count(), 2);
        assert_eq!(
            s.rounds,
            vec![
                Round {
                    stride: 1,
                    peers: 2
                },
                Round {
                    stride: 3,
                    peers: 2
                }
            ]
        );
        // n = 10, m = 2: strides 1, 3, 9; round 2 has ⌈10/9⌉ − 1 = 1 peer (distance 9).
        let s = Schedule::new(10, 2).unwrap();
        assert_eq!(s.round_count(), 3);
        assert_eq!(s.rounds[2].peers, 1);
        assert_eq!(s.peers_of(4, 2), vec![3]);
        // n = 5, m = 4: one round of 4 peers.
        let s = Schedule::new(5, 4).unwrap();
        assert_eq!(s.round_count(), 1);
        assert_eq!(s.peers_of(3, 0), vec![4, 0, 1, 2]);
        assert!(Schedule::new(5, 5).is_err() && Schedule::new(5, 0).is_err());
        assert!(Schedule::new(1, 1).is_err());
    }

    #[test]
    fn every_thread_hears_from_every_other_by_the_last_round() {
        // The law that makes the rounds a barrier: the set of threads whose arrival T knows of
        // grows from {T} by the knowledge of every peer that notified it, round by round.
        for n in 2..=40u32 {
            for m in 1..n {
                let s = Schedule::new(n, m).unwrap();
                let mut knows: Vec<Vec<bool>> =
                    (0..n).map(|t| (0..n).map(|u| u == t).collect()).collect();
                for k in 0..s.rounds.len() {
                    let before = knows.clone();
                    for t in 0..n {
                        for p in s.peers_of(t, k) {
                            assert_ne!(p, t, "n = {n}, m = {m}: {t} is its own peer");
                            for u in 0..n as usize {
                                if before[t as usize][u] {
                                    knows[p as usize][u] = true;
                                }
                            }
                        }
                    }
                }
                assert!(
                    knows.iter().all(|k| k.iter().all(|&b| b)),
                    "n = {n}, m = {m}"
                );
                // One round fewer is not a barrier: r is the least.
                if let Some(last) = s.rounds.last() {
                    assert!(last.stride < u64::from(n));
                }
            }
        }
    }
}
