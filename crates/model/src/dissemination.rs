//! The rounds of a dissemination barrier that counts notifications: who notifies whom, round by
//! round. A neutral description shared by the CLa program that prices it
//! (`modelopt_graph::dissemination`) and the implementation `modelopt run` executes
//! (`modelopt_collectives::cla_dissemination`), so that both follow one schedule.
//!
//! With degree m and n threads the barrier runs r = ⌈log_{m+1} n⌉ rounds. In round k thread T
//! notifies its peers (T + i·(m+1)^k) mod n, i = 1..=m_k, and waits for its own m_k
//! notifications, with m_k = min(m, ⌈n / (m+1)^k⌉ − 1): every round but possibly the last has m
//! peers, the last only as many as it takes to cover n. After round k a thread has heard,
//! directly or through its peers, from the (m+1)^(k+1) threads before it (or all n), which is
//! why r rounds are a barrier and why no peer distance of the last round reaches n (no thread is
//! its own peer, and none is notified twice in one round).

/// Why a schedule cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// Fewer than two threads.
    #[error("a dissemination barrier needs at least 2 threads (got {0})")]
    Threads(u32),
    /// m outside 1..=n−1.
    #[error("degree m = {degree} must be between 1 and n − 1 = {max}")]
    Degree {
        /// The degree asked for.
        degree: u32,
        /// n − 1.
        max: u32,
    },
}

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
    pub fn new(threads: u32, degree: u32) -> Result<Self, ScheduleError> {
        if threads < 2 {
            return Err(ScheduleError::Threads(threads));
        }
        if degree == 0 || degree >= threads {
            return Err(ScheduleError::Degree {
                degree,
                max: threads - 1,
            });
        }
        let n = u64::from(threads);
        let base = u64::from(degree) + 1;
        let mut rounds = Vec::new();
        let mut stride: u64 = 1;
        // stride < n at the start of every round and grows at least ×2 a round: at most 32
        // rounds.
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
        assert_eq!(
            Schedule::new(5, 5),
            Err(ScheduleError::Degree { degree: 5, max: 4 })
        );
        assert!(Schedule::new(5, 0).is_err());
        assert_eq!(Schedule::new(1, 1), Err(ScheduleError::Threads(1)));
    }

    #[test]
    fn every_thread_hears_from_every_other_by_the_last_round() {
        // The law that makes the rounds a barrier: the set of threads whose arrival T knows of
        // grows from {T} by the knowledge of every peer that notified it, round by round; and
        // r is the least number of rounds (the last round's stride is below n).
        for n in 2..=40u32 {
            for m in 1..n {
                let s = Schedule::new(n, m).unwrap();
                let mut knows: Vec<Vec<bool>> =
                    (0..n).map(|t| (0..n).map(|u| u == t).collect()).collect();
                for k in 0..s.rounds.len() {
                    let before = knows.clone();
                    for t in 0..n {
                        let peers = s.peers_of(t, k);
                        let mut distinct = peers.clone();
                        distinct.sort_unstable();
                        distinct.dedup();
                        assert_eq!(distinct.len(), peers.len(), "n = {n}, m = {m}");
                        for p in peers {
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
                assert!(s.rounds.last().is_some_and(|r| r.stride < u64::from(n)));
            }
        }
    }
}
