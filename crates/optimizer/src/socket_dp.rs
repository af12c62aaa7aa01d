//! The exact dynamic program over rooted trees **and** their socket placements (seed 001 §4,
//! Eq. 2 with one many-to-one line per socket; `docs/cla.md` §7 and §10).
//!
//! ## Why a small state suffices
//! The cost T(p) of a subtree (§7) is built from its children only through, for each socket s
//! holding children, the number k_s of children there and the latest arrival among them
//! (`max_c T(c)`, both bounds componentwise); and a child subtree is seen by its parent only
//! through its root's socket and its (T_min, T_max). Threads of one socket are interchangeable
//! (seed 001 footnote 2), so what a subtree "uses up" is the count of nodes it holds on each
//! socket. Hence the optimum over all subtrees with root on σ holding the count vector c is a
//! function of (σ, c) alone, and the optimum over whole trees is read at (root socket, the
//! request's counts). Costs are kept as Pareto sets of (T_min, T_max) so that every objective
//! monotone in both (min, max, any blend, min with ties by max) is exact.
//!
//! ## Recurrences (all sets are Pareto-minimal; ⊕ adds count vectors)
//! - **Group table** `G_s[d]`: forests of k ≥ 1 trees rooted on socket s holding d in total,
//!   kept as (max T_min, max T_max, k). One tree, or one tree plus a smaller forest:
//!   `G_s[d] ⊇ { (a, b, 1) : (a, b) ∈ T(s, d) } ∪ { (max(a, m₁), max(b, m₂), k + 1) :
//!   (a, b) ∈ T(s, e), (m₁, m₂, k) ∈ G_s[d − e] }`: a bottleneck partition of d.
//! - **Node table** `P_σ^{(s)}[r]`: the groups on sockets ≥ s of a node on σ whose children
//!   hold r, processed in descending socket order so that each group's share of the waits in
//!   ascending socket order (the suffix Σ_{s' ≥ s used} x(s', σ)) is known when it is added. A
//!   point keeps (T_min so far, the largest T_max group term, Σ_s 2·k_s·x(s, σ) of A_max, the
//!   number of remote groups by class, whether a local group exists).
//! - **Subtree** `T(σ, c)` = the node table at `r = c − e_σ` finished with A(p); a leaf is (0, 0).
//!
//! **Units below a socket.** The "sockets" here are the units that keep one synchronization
//! line each: sockets, or L3 domains numbered across sockets when [`LineClasses::domains`] says
//! so (docs/cla.md §13). Nothing above changes except that a group's wait has three prices (its
//! own unit R_R, another domain of the node's socket R_D, another socket R_Q), so a node stage
//! carries how many of each kind it used (its `Suffix` state) instead of a remote count.
//!
//! Every formula is the socket-line form of [`LineClasses`], the closed forms a pricing promises
//! when it returns them from `PlacedTreeCost::line_classes`: the tests price each DP tree again
//! with the family's `PlacedTreeCost::evaluate` and compare with brute force over every tree and
//! every placement.
//!
//! ## Two passes under [`Objective::Min`] (`docs/cla.md` §11)
//! T_min alone is a scalar DP (a node's T_min depends on its children only through their least
//! T_min per group, `MinPass`). For a Min request [`optimal`] runs it first: its optimum T* is
//! exact and becomes the incumbent, and a backward pass gives every entry a budget, the largest
//! T_min it may have inside a tree of T_min T*. The Pareto pass then keeps only points within
//! their budgets, so the tie-break by T_max runs over the few points of optimal trees.
//!
//! ## Time limits
//! Both passes check the deadline after every state (a size level of four sockets × 16 takes
//! seconds; one state milliseconds at most), and the backward pass after every state of its
//! level walk. [`least_min_of_total`] is anytime: stopped, it reports the least T_min of the
//! largest size all of whose states were complete, still a lower bound (the least T_min over t
//! nodes never decreases with t). A pass whose deadline has passed before it starts allocates
//! nothing.
//!
//! ## Complexity
//! With N_s threads on socket s, there are Π_s (N_s + 1) count vectors and
//! Π_s (N_s + 1)(N_s + 2)/2 pairs (d ≤ r) per convolution; the DP runs S group convolutions and
//! S·(S − 1) node convolutions (the first node stage needs none), each pair costing the product of
//! two Pareto-set sizes in the Pareto pass and O(K + S) in the scalar pass (K ≤ the most trees a
//! group can have under the incumbent). Each pass walks only pairs whose operands survived
//! pruning. [`estimate`] reports the pair count of one pass before the DP starts: an upper bound
//! on each pass's pairs, not a time prediction.

use crate::limits::{Deadline, Limits, Progress, StopReason, WorkEstimate};
use crate::objective::Objective;
use crate::rooted_trees::cost_key;
use modelopt_model::placed_tree::{LineClasses, UnitRelation};
use modelopt_model::Cost;

/// Largest number of sockets the DP accepts (count vectors are indexed in a mixed radix).
pub const MAX_SOCKETS: usize = 8;

/// Why the DP could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SocketDpError {
    /// The counts describe no tree (no socket, or more sockets than [`MAX_SOCKETS`]).
    #[error("socket counts {counts:?} describe no tree the DP handles (1 to {MAX_SOCKETS} sockets, at least one thread)")]
    Counts {
        /// Threads per socket.
        counts: Vec<u32>,
    },
    /// The root's socket holds no thread.
    #[error("the root socket {root} holds no thread (counts {counts:?})")]
    Root {
        /// Root socket.
        root: u32,
        /// Threads per socket.
        counts: Vec<u32>,
    },
    /// The state space is over the work budget.
    #[error(transparent)]
    Budget(#[from] crate::limits::BudgetExceeded),
}

/// Pareto point combinations the pass may try per unit of the work budget. The up-front
/// estimate counts transition pairs; the points per pair are known only while filling (one
/// per pair for a Min request pruned by its scalar pass, thousands under `--objective max` on
/// four sockets), so the pass also counts them and stops with the budget's reason. Measured:
/// 3.6–4.4 · 10⁷ combinations a second, so the default budget of 10⁸ stops within ~10 s
/// (docs/perf.md).
pub const POINTS_PER_BUDGET_UNIT: u64 = 4;

/// The size of the DP over the states of at most `max_total` nodes inside the box `counts`:
/// Σ over those states d of the sub-vectors e ≤ d (Π (d_s + 1)), times the convolutions per
/// pair as in [`estimate`]; a truncated product of polynomials, O(S · m²), saturating.
pub fn truncated_estimate(counts: &[u32], max_total: u32) -> WorkEstimate {
    let m = max_total as usize;
    let s = counts.len() as u64;
    // poly[t] = Σ over vectors of the sockets so far with total t of Π (d_s + 1).
    let mut poly = vec![0u64; m + 1];
    poly[0] = 1;
    for &c in counts {
        let mut next = vec![0u64; m + 1];
        for (t, &a) in poly.iter().enumerate() {
            if a == 0 {
                continue;
            }
            for v in 0..=(c as usize).min(m - t) {
                next[t + v] = next[t + v].saturating_add(a.saturating_mul(v as u64 + 1));
            }
        }
        poly = next;
    }
    let pairs = poly.iter().fold(0u64, |acc, &x| acc.saturating_add(x));
    let convolutions = s + s * s.saturating_sub(1);
    WorkEstimate {
        what: "socket-DP transitions (subtrees of a bounded size)".into(),
        units: pairs.saturating_mul(convolutions.max(1)),
    }
}

/// Most index entries the tables of one DP may hold over the states of its box (8 bytes each:
/// 2 GiB). The tables are allocated for every count vector of the box, S² + 2·S of them, before
/// any state is filled; a box past this (eight sockets of 10 threads: 11⁸ states × 80 tables)
/// is refused here, whatever the work budget, instead of exhausting memory.
pub const MAX_TABLE_ENTRIES: u64 = 1 << 28;

/// The count vectors of the box `counts`: Π (c_s + 1), saturating.
pub fn box_states(counts: &[u32]) -> u64 {
    counts
        .iter()
        .fold(1u64, |acc, &c| acc.saturating_mul(u64::from(c) + 1))
}

/// The index entries of a DP's tables over the box `counts` (see [`MAX_TABLE_ENTRIES`]).
fn table_entries(counts: &[u32]) -> WorkEstimate {
    let s = counts.len() as u64;
    WorkEstimate {
        what: "socket-DP table entries (every count vector of the box, in each table)".into(),
        units: box_states(counts).saturating_mul(s * s + 2 * s),
    }
}

/// Refuse a box whose tables are over [`MAX_TABLE_ENTRIES`].
fn check_table_entries(counts: &[u32]) -> Result<(), SocketDpError> {
    let entries = table_entries(counts);
    if entries.units > MAX_TABLE_ENTRIES {
        return Err(SocketDpError::Budget(crate::limits::BudgetExceeded {
            what: entries.what,
            estimate: entries.units,
            budget: MAX_TABLE_ENTRIES,
        }));
    }
    Ok(())
}

/// Whether the scalar pass over the box `counts` for trees of at most `total` nodes fits in
/// memory: its index tables ([`MAX_TABLE_ENTRIES`]) and its forest and node tables, at least
/// states × 4·S³ values (the node tables hold 2·S²·W a state, with W ≥ 2·S suffix states; the
/// cap is `MAX_FOREST_ENTRIES`). A caller choosing how large a pass to run (a truncated bound)
/// asks this first, since a pass that does not fit is refused.
pub fn scalar_pass_fits(counts: &[u32]) -> bool {
    let s = counts.len() as u64;
    table_entries(counts).units <= MAX_TABLE_ENTRIES
        && box_states(counts).saturating_mul(4 * s * s * s) <= MAX_FOREST_ENTRIES as u64
}

/// The size of the DP for these counts, in transition pairs (see the module docs), saturating.
pub fn estimate(counts: &[u32]) -> WorkEstimate {
    let s = counts.len() as u64;
    let pairs = counts.iter().fold(1u64, |acc, &n| {
        let n = u64::from(n);
        acc.saturating_mul((n + 1).saturating_mul(n + 2) / 2)
    });
    let convolutions = s + s * s.saturating_sub(1);
    WorkEstimate {
        what: "socket-DP transitions".into(),
        units: pairs.saturating_mul(convolutions.max(1)),
    }
}

#[derive(Debug, Clone, Copy)]
struct TPoint {
    min: f64,
    max: f64,
    /// Point of the node table `P_σ^{(0)}[c − e_σ]` (unused for a leaf).
    node_point: u32,
}

#[derive(Debug, Clone, Copy)]
struct GPoint {
    mmin: f64,
    mmax: f64,
    k: u32,
    /// The first tree: its count vector and its point in `T(s, ·)`.
    tree: u32,
    tree_point: u32,
    /// The rest of the forest at `G_s[d − tree]`, or `NONE`.
    rest_point: u32,
}

#[derive(Debug, Clone, Copy)]
struct PPoint {
    tmin: f64,
    mmax: f64,
    sum: f64,
    /// Used groups on other sockets (R_Q waits), on other units of this node's socket (R_D),
    /// and whether one on its own unit (R_R): the [`Suffix`] state.
    far: u8,
    near: u8,
    local: u8,
    /// The group added at this stage (`NONE` when the stage's socket holds no child), its point
    /// in `G_s`, and the point of the previous stage at `r − group`.
    group: u32,
    group_point: u32,
    prev_point: u32,
}

const NONE: u32 = u32::MAX;

/// Pareto sets stored flat: per entry a range into one arena.
#[derive(Debug, Clone)]
struct Table<P> {
    ranges: Vec<(u32, u32)>,
    points: Vec<P>,
}

impl<P: Copy> Table<P> {
    fn new(entries: usize) -> Self {
        Table {
            ranges: vec![(0, 0); entries],
            points: Vec::new(),
        }
    }
    fn get(&self, idx: usize) -> &[P] {
        let (a, b) = self.ranges[idx];
        &self.points[a as usize..b as usize]
    }
    fn set(&mut self, idx: usize, set: &[P]) {
        let a = self.points.len() as u32;
        self.points.extend_from_slice(set);
        self.ranges[idx] = (a, self.points.len() as u32);
    }
}

fn insert_t(set: &mut Vec<TPoint>, p: TPoint) {
    if set.iter().any(|q| q.min <= p.min && q.max <= p.max) {
        return;
    }
    set.retain(|q| !(p.min <= q.min && p.max <= q.max));
    set.push(p);
}

fn insert_g(set: &mut Vec<GPoint>, p: GPoint) {
    if set
        .iter()
        .any(|q| q.mmin <= p.mmin && q.mmax <= p.mmax && q.k <= p.k)
    {
        return;
    }
    set.retain(|q| !(p.mmin <= q.mmin && p.mmax <= q.mmax && p.k <= q.k));
    set.push(p);
}

fn p_dominates(q: &PPoint, p: &PPoint) -> bool {
    q.tmin <= p.tmin
        && q.mmax <= p.mmax
        && q.sum <= p.sum
        && q.far <= p.far
        && q.near <= p.near
        && q.local <= p.local
}

fn insert_p(set: &mut Vec<PPoint>, p: PPoint) {
    if set.iter().any(|q| p_dominates(q, &p)) {
        return;
    }
    set.retain(|q| !p_dominates(&p, q));
    set.push(p);
}

/// The filled DP for one machine and one box of counts: the optimum for **every** root socket
/// and every count vector inside the box.
#[derive(Debug, Clone)]
pub struct SocketTable {
    costs: LineClasses,
    radix: Vec<usize>,
    stride: Vec<usize>,
    trees: Vec<Table<TPoint>>,
    groups: Vec<Table<GPoint>>,
    /// `nodes[σ][stage]`, stage s in 0..S (stage S is implicit: only the empty node).
    nodes: Vec<Vec<Table<PPoint>>>,
    /// Points whose score bound exceeds this incumbent are dropped (see [`Prune`]).
    prune: Option<Prune>,
    /// The node count of a whole tree when every split of one request is asked for
    /// ([`SocketTable::build_splits`]): states of that total may be roots. `None`: only the
    /// whole box may.
    root_total: Option<u32>,
    /// Transition pairs visited.
    pub transitions: u64,
    /// Pareto point combinations tried (the Pareto pass's real work: pairs × the points of
    /// both operands, which the up-front estimate cannot know).
    pub points: u64,
    /// The Pareto pass stops (work budget) past this many point combinations:
    /// [`POINTS_PER_BUDGET_UNIT`] × the work budget.
    point_cap: u64,
    /// The components of every count vector, `comps[idx · S + s]`.
    comps: Vec<u32>,
    /// Per socket s, the count vectors whose subtree set `T(s, ·)` is not empty, in fill order.
    alive_trees: Vec<Vec<u32>>,
    /// Per socket s, the count vectors whose group set `G_s[·]` is not empty, in fill order.
    alive_groups: Vec<Vec<u32>>,
    /// For a request under [`Objective::Min`], the scalar pass with its budgets: points over
    /// their entry's budget are dropped (dropped again once the table is filled).
    budgets: Option<Box<MinPass>>,
}

/// A sound cut for one request: the score of an incumbent tree. Every point of every table is a
/// lower bound of the costs of the trees that contain it — a root's T_min and T_max are at
/// least each child's plus positive terms, and a partial node's (T_min so far, largest T_max
/// term + Σ 2 k x + R_I + R_R) only grow as groups are added — and every objective is
/// non-decreasing in both bounds, so a point whose score (with the offset R_L) is above the
/// incumbent's by more than 1e-6 ns cannot be part of an optimum or of a tie.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prune {
    /// The objective of the request.
    pub objective: Objective,
    /// The incumbent's score, ns.
    pub incumbent: f64,
}

impl Prune {
    fn hopeless(&self, offset: f64, min: f64, max: f64) -> bool {
        let (lo, hi) = (offset + min, offset + max);
        let score = match self.objective {
            Objective::Min => lo,
            Objective::Max => hi,
            Objective::Blend(w) => (1.0 - w) * lo + w * hi,
        };
        score > self.incumbent + 1e-6
    }
}

/// One placed tree: parent of each node (node 0 is the root) and socket of each node.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedTree {
    /// Parent of each node, `None` for node 0, the root.
    pub parents: Vec<Option<u32>>,
    /// Socket of each node.
    pub sockets: Vec<u32>,
    /// Its cost, the broadcast's offset (R_L) included.
    pub cost: Cost,
}

/// What stopped the DP early, if anything.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Filled {
    /// Every state was computed.
    Complete,
    /// The deadline passed before the states of this many nodes were computed.
    Stopped(StopReason),
}

impl SocketTable {
    /// Fill the DP for every count vector up to `counts` (componentwise). Refuses when the
    /// estimate is over `limits.work_budget`; stops at `limits.time_limit` (then
    /// [`SocketTable::best`] answers only smaller sizes and the caller falls back).
    ///
    /// With `prune`, only the answers whose score can reach the incumbent are kept: use it for
    /// one request, not for a table queried at many counts.
    pub fn build(
        costs: &LineClasses,
        counts: &[u32],
        prune: Option<Prune>,
        limits: &Limits,
        progress: &Progress,
    ) -> Result<(Self, Filled), SocketDpError> {
        Self::build_for(costs, counts, prune, None, None, limits, progress)
    }

    /// [`SocketTable::build`] for one request of `threads` nodes whose split over the sockets is
    /// free within the box `counts` (`--placement optimal`): every state holding `threads` nodes
    /// may be a whole tree, so a [`Prune`] adds a parent's level only to smaller states, and the
    /// table answers [`SocketTable::best`] for every split of `threads` (those that can reach the
    /// incumbent).
    pub fn build_splits(
        costs: &LineClasses,
        counts: &[u32],
        threads: u32,
        prune: Option<Prune>,
        limits: &Limits,
        progress: &Progress,
    ) -> Result<(Self, Filled), SocketDpError> {
        Self::build_for(costs, counts, prune, None, Some(threads), limits, progress)
    }

    /// [`SocketTable::build`]; with `root` (the request's root socket, the table answering only
    /// the whole box) and a [`Prune`] for [`Objective::Min`], the scalar pass of
    /// `MinPass` runs first and its exact optimum becomes the incumbent.
    fn build_for(
        costs: &LineClasses,
        counts: &[u32],
        prune: Option<Prune>,
        root: Option<u32>,
        root_total: Option<u32>,
        limits: &Limits,
        progress: &Progress,
    ) -> Result<(Self, Filled), SocketDpError> {
        if counts.is_empty() || counts.len() > MAX_SOCKETS || counts.iter().all(|&c| c == 0) {
            return Err(SocketDpError::Counts {
                counts: counts.to_vec(),
            });
        }
        let estimate = estimate(counts);
        limits.check(&estimate)?;
        check_table_entries(counts)?;
        let deadline = limits.deadline();
        let mut table = SocketTable::shell(costs, counts, prune);
        if deadline_passed(&deadline) {
            // No time left (e.g. a caller's bound took it): not even the scalar tables.
            return Ok((table, Filled::Stopped(deadline.reason())));
        }
        table.root_total = root_total;
        table.point_cap = limits.work_budget.saturating_mul(POINTS_PER_BUDGET_UNIT);
        let states = table.ranges_len();
        // States in order of their total node count.
        let mut by_size: Vec<usize> = (0..states).collect();
        let sizes: Vec<usize> = (0..states).map(|i| table.decode(i).iter().sum()).collect();
        by_size.sort_by_key(|&i| (sizes[i], i));
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let scalar = match (prune, root) {
            (Some(p), Some(root)) if p.objective == Objective::Min => Some((p, root)),
            _ => None,
        };
        let scalar =
            match scalar.map(|(p, root)| (p, root, MinPass::new(&table, p.incumbent, &deadline))) {
                Some((p, root, Ok(pass))) => Some((p, root, pass)),
                Some((_, _, Err(NotBuilt::Stopped))) => {
                    return Ok((table, Filled::Stopped(deadline.reason())));
                }
                Some((_, _, Err(NotBuilt::TooLarge(_)))) | None => None,
            };
        let passes = if scalar.is_some() { 2 } else { 1 };
        progress.begin(
            "socket DP over count vectors",
            Some((passes * total) as u64),
        );
        if let Some((p, root, mut pass)) = scalar {
            match pass.run(&mut table, &by_size, &sizes, total, &deadline, progress) {
                Ran::Complete => {
                    let v: Vec<usize> = counts.iter().map(|&c| c as usize).collect();
                    let best = table
                        .index(&v)
                        .and_then(|c| pass.tree.get(root as usize).and_then(|t| t.get(c)))
                        .copied()
                        .unwrap_or(f64::INFINITY);
                    if best.is_finite() {
                        let exact = best + costs.offset();
                        table.prune = Some(Prune {
                            objective: p.objective,
                            incumbent: p.incumbent.min(exact),
                        });
                        let whole = table.ranges_len() - 1;
                        if !pass.backward(&table, &by_size, root as usize, whole, &deadline) {
                            progress.finish();
                            return Ok((table, Filled::Stopped(deadline.reason())));
                        }
                        table.budgets = Some(Box::new(pass));
                    }
                }
                Ran::Stopped { .. } => {
                    progress.finish();
                    return Ok((table, Filled::Stopped(deadline.reason())));
                }
            }
        }
        table.fill_pareto(by_size, sizes, total, deadline, progress)
    }

    /// The Pareto pass over every state in size order.
    fn fill_pareto(
        mut self,
        by_size: Vec<usize>,
        sizes: Vec<usize>,
        total: usize,
        deadline: Deadline,
        progress: &Progress,
    ) -> Result<(Self, Filled), SocketDpError> {
        let mut start = 0;
        let mut filled = Filled::Complete;
        let over_points = |t: &Self| t.points > t.point_cap;
        'sizes: for m in 0..=total {
            let end = start
                + by_size[start..]
                    .iter()
                    .take_while(|&&i| sizes[i] == m)
                    .count();
            let level = &by_size[start..end];
            start = end;
            if deadline_passed(&deadline) {
                filled = Filled::Stopped(deadline.reason());
                break;
            }
            for &c in level {
                self.fill_trees(c);
            }
            for &d in level {
                self.fill_groups(d);
                if over_points(&self) {
                    filled = Filled::Stopped(self.points_exhausted());
                    break 'sizes;
                }
                if deadline_passed(&deadline) {
                    filled = Filled::Stopped(deadline.reason());
                    break 'sizes;
                }
            }
            for &r in level {
                self.fill_nodes(r);
                if over_points(&self) {
                    filled = Filled::Stopped(self.points_exhausted());
                    break 'sizes;
                }
                if deadline_passed(&deadline) {
                    filled = Filled::Stopped(deadline.reason());
                    break 'sizes;
                }
            }
            progress.advance(1);
        }
        progress.finish();
        self.budgets = None;
        Ok((self, filled))
    }

    /// The stop reason once [`SocketTable::points`] passed its cap: the work budget the cap was
    /// derived from.
    fn points_exhausted(&self) -> StopReason {
        StopReason::WorkBudget {
            budget: self.point_cap / POINTS_PER_BUDGET_UNIT,
        }
    }

    /// Whether a subtree point is over its budget.
    fn over_tree(&self, sigma: usize, c: usize, min: f64) -> bool {
        self.budgets
            .as_ref()
            .is_some_and(|b| min > b.out_tree[sigma][c] + SLACK)
    }

    /// Whether a forest point (latest T_min `m`, `k` trees) is over its budget.
    fn over_group(&self, s: usize, d: usize, m: f64, k: u32) -> bool {
        self.budgets.as_ref().is_some_and(|b| {
            m + f64::from(k.saturating_sub(1)) * self.costs.socket > b.out_group[s][d] + SLACK
        })
    }

    /// Whether a partial node point is over its budget.
    fn over_node(&self, sigma: usize, stage: usize, r: usize, p: &PPoint) -> bool {
        self.budgets.as_ref().is_some_and(|b| {
            let shape = self.suffix();
            let st = shape.encode(p.far.into(), p.near.into(), p.local.into());
            p.tmin > b.out_nodes[sigma][stage][r * shape.width() + st] + SLACK
        })
    }

    /// Empty tables for the box `counts` (1 to [`MAX_SOCKETS`] sockets, checked by the caller).
    fn shell(costs: &LineClasses, counts: &[u32], prune: Option<Prune>) -> Self {
        let s_count = counts.len();
        let radix: Vec<usize> = counts.iter().map(|&c| c as usize + 1).collect();
        let mut stride = vec![1usize; s_count];
        for i in 1..s_count {
            stride[i] = stride[i - 1] * radix[i - 1];
        }
        let states = stride.last().copied().unwrap_or(1) * radix.last().copied().unwrap_or(1);
        let mut table = SocketTable {
            costs: *costs,
            radix,
            stride,
            trees: (0..s_count).map(|_| Table::new(states)).collect(),
            groups: (0..s_count).map(|_| Table::new(states)).collect(),
            nodes: (0..s_count)
                .map(|_| (0..s_count).map(|_| Table::new(states)).collect())
                .collect(),
            prune,
            root_total: None,
            transitions: 0,
            points: 0,
            point_cap: u64::MAX,
            comps: Vec::with_capacity(states * s_count),
            alive_trees: vec![Vec::new(); s_count],
            alive_groups: vec![Vec::new(); s_count],
            budgets: None,
        };
        for i in 0..states {
            let v = table.decode(i);
            table.comps.extend(v.iter().map(|&x| x as u32));
        }
        table
    }

    /// Points stored in the subtree, group and node tables, and the largest set of each.
    pub fn sizes(&self) -> [(usize, usize); 3] {
        fn count<P: Copy>(tables: &[&Table<P>]) -> (usize, usize) {
            let total = tables.iter().map(|t| t.points.len()).sum();
            let largest = tables
                .iter()
                .flat_map(|t| t.ranges.iter().map(|(a, b)| (b - a) as usize))
                .max()
                .unwrap_or(0);
            (total, largest)
        }
        [
            count(&self.trees.iter().collect::<Vec<_>>()),
            count(&self.groups.iter().collect::<Vec<_>>()),
            count(&self.nodes.iter().flatten().collect::<Vec<_>>()),
        ]
    }

    fn hopeless(&self, min: f64, max: f64) -> bool {
        self.prune
            .is_some_and(|p| p.hopeless(self.costs.offset(), min, max))
    }

    /// The least a parent's level adds to a proper subtree's (T_min, T_max): with every
    /// transfer ≥ R_R and every fetch ≥ R_I, one child alone on the parent's line costs
    /// A + x + R_L + R_I + x (T_min: A = R_I) and A_max + x + R_L + R_I + x + x
    /// (A_max ≥ R_I + 2 R_R + R_R); §7.
    fn parent_level(&self) -> (f64, f64) {
        let c = &self.costs;
        (
            2.0 * c.memory + 2.0 * c.socket + c.local,
            2.0 * c.memory + 6.0 * c.socket + c.local,
        )
    }

    /// Whether the state `c` (a count vector index) is a proper subtree of the request's tree:
    /// not the whole box, or (every split asked for) holding fewer nodes than a whole tree.
    fn proper(&self, c: usize) -> bool {
        match self.root_total {
            Some(n) => {
                let s = self.radix.len();
                self.comps[c * s..c * s + s].iter().sum::<u32>() != n
            }
            None => c + 1 != self.ranges_len(),
        }
    }

    fn ranges_len(&self) -> usize {
        self.trees.first().map_or(0, |t| t.ranges.len())
    }

    fn decode(&self, idx: usize) -> Vec<usize> {
        self.radix
            .iter()
            .zip(&self.stride)
            .map(|(&r, &s)| (idx / s) % r)
            .collect()
    }

    fn index(&self, v: &[usize]) -> Option<usize> {
        let mut idx = 0;
        for (i, &x) in v.iter().enumerate() {
            if x >= *self.radix.get(i)? {
                return None;
            }
            idx += x * self.stride[i];
        }
        Some(idx)
    }

    fn component(&self, idx: usize, s: usize) -> usize {
        (idx / self.stride[s]) % self.radix[s]
    }

    /// Whether e ≤ d componentwise.
    fn below(&self, e: usize, d: usize) -> bool {
        let s = self.radix.len();
        self.comps[e * s..e * s + s]
            .iter()
            .zip(&self.comps[d * s..d * s + s])
            .all(|(a, b)| a <= b)
    }

    /// The count vectors e ≤ d (d included) that are in `list` (`alive(e)` says the same)
    /// into `out`: the shorter of the list (filtered by ≤ d) and the sub-vectors of d (filtered
    /// by `alive`) is walked, so that pruned states cost nothing. Ascending when `sorted` (the
    /// Pareto pass keeps the first of equal points, so its order is part of the tie rule).
    fn candidates(
        &self,
        list: &[u32],
        alive: impl Fn(usize) -> bool,
        d: usize,
        sorted: bool,
        out: &mut Vec<usize>,
    ) {
        out.clear();
        let s = self.radix.len();
        let dv = &self.comps[d * s..d * s + s];
        let subs: usize = dv.iter().map(|&x| x as usize + 1).product();
        if list.len() < subs {
            out.extend(
                list.iter()
                    .map(|&e| e as usize)
                    .filter(|&e| self.below(e, d)),
            );
            if sorted {
                out.sort_unstable();
            }
            return;
        }
        // Odometer over every e ≤ d, lowest digit fastest: ascending indices.
        let mut cur = [0u32; MAX_SOCKETS];
        let mut idx = 0usize;
        loop {
            if alive(idx) {
                out.push(idx);
            }
            let mut i = 0;
            loop {
                if i == s {
                    return;
                }
                if cur[i] < dv[i] {
                    cur[i] += 1;
                    idx += self.stride[i];
                    break;
                }
                idx -= cur[i] as usize * self.stride[i];
                cur[i] = 0;
                i += 1;
            }
        }
    }

    /// T(σ, c) for every σ holding a node of c.
    fn fill_trees(&mut self, c: usize) {
        let s_count = self.radix.len();
        for sigma in 0..s_count {
            if self.component(c, sigma) == 0 {
                continue;
            }
            let r = c - self.stride[sigma];
            let mut set: Vec<TPoint> = Vec::new();
            if r == 0 {
                set.push(TPoint {
                    min: 0.0,
                    max: 0.0,
                    node_point: NONE,
                });
            } else {
                let c_ = self.costs;
                for (i, p) in self.nodes[sigma][0].get(r).iter().enumerate() {
                    if p.far == 0 && p.near == 0 && p.local == 0 {
                        continue;
                    }
                    // A_max's first fetch and re-read: the farthest group's (R_QI and R_Q
                    // across sockets, else R_I and R_D / R_R; the classes are ordered).
                    let fetch = if p.far > 0 {
                        c_.remote_memory
                    } else {
                        c_.memory
                    };
                    let reread = if p.far > 0 {
                        c_.remote
                    } else if p.near > 0 {
                        c_.class(UnitRelation::SameSocket)
                    } else {
                        c_.socket
                    };
                    let max = p.mmax + p.sum + fetch + reread;
                    let (up_min, up_max) = if self.proper(c) {
                        self.parent_level()
                    } else {
                        (0.0, 0.0)
                    };
                    if self.hopeless(p.tmin + up_min, max + up_max)
                        || self.over_tree(sigma, c, p.tmin)
                    {
                        continue;
                    }
                    insert_t(
                        &mut set,
                        TPoint {
                            min: p.tmin,
                            max,
                            node_point: i as u32,
                        },
                    );
                }
            }
            if !set.is_empty() {
                self.alive_trees[sigma].push(c as u32);
            }
            self.trees[sigma].set(c, &set);
        }
    }

    /// G_s[d] for every s holding a node of d.
    fn fill_groups(&mut self, d: usize) {
        let s_count = self.radix.len();
        let mut subs = Vec::new();
        for s in 0..s_count {
            if self.component(d, s) == 0 {
                continue;
            }
            let mut set: Vec<GPoint> = Vec::new();
            for (i, t) in self.trees[s].get(d).iter().enumerate() {
                if self.over_group(s, d, t.min, 1) {
                    continue;
                }
                insert_g(
                    &mut set,
                    GPoint {
                        mmin: t.min,
                        mmax: t.max,
                        k: 1,
                        tree: d as u32,
                        tree_point: i as u32,
                        rest_point: NONE,
                    },
                );
            }
            let mut pairs = 0u64;
            self.candidates(
                &self.alive_trees[s],
                |e| !self.trees[s].get(e).is_empty(),
                d,
                true,
                &mut subs,
            );
            for &e in &subs {
                if e == d || self.component(e, s) == 0 || self.component(d - e, s) == 0 {
                    continue;
                }
                let rest = self.groups[s].get(d - e);
                if rest.is_empty() {
                    continue;
                }
                pairs += 1;
                self.points = self.points.saturating_add(
                    (self.trees[s].get(e).len() as u64).saturating_mul(rest.len() as u64),
                );
                for (ti, t) in self.trees[s].get(e).iter().enumerate() {
                    for (gi, g) in rest.iter().enumerate() {
                        // The parent of this group adds at least its level with k children
                        // on one line (§7, every transfer ≥ R_R, every fetch ≥ R_I).
                        let k = f64::from(g.k + 1);
                        let (lv_min, lv_max) = self.parent_level();
                        let rr = self.costs.socket;
                        if self.hopeless(
                            t.min.max(g.mmin) + lv_min + (k - 1.0) * rr,
                            t.max.max(g.mmax) + lv_max + (4.0 * k - 4.0) * rr,
                        ) || self.over_group(s, d, t.min.max(g.mmin), g.k + 1)
                        {
                            continue;
                        }
                        insert_g(
                            &mut set,
                            GPoint {
                                mmin: t.min.max(g.mmin),
                                mmax: t.max.max(g.mmax),
                                k: g.k + 1,
                                tree: e as u32,
                                tree_point: ti as u32,
                                rest_point: gi as u32,
                            },
                        );
                    }
                }
            }
            self.transitions += pairs;
            if !set.is_empty() {
                self.alive_groups[s].push(d as u32);
            }
            self.groups[s].set(d, &set);
        }
    }

    /// The terms a group of `g` on socket `s` adds to a node on `sigma` whose groups on higher
    /// sockets are summarized by `prev`.
    fn add_group(&self, sigma: usize, s: usize, g: &GPoint, prev: &PPoint) -> PPoint {
        let c = &self.costs;
        let x = c.transfer(sigma as u32, s as u32);
        let fetch = c.fetch(s as u32, sigma as u32);
        let k = f64::from(g.k);
        // Suffix of waits: this group's and every used group above it (ascending-order waits).
        let suffix = x + Suffix::waits(c, prev.far.into(), prev.near.into(), prev.local.into());
        // T_min: A_min (R_I) + edge + subtree + R_I + (k − 1) R_R, then the waits.
        let g_min = c.memory + x + c.local + g.mmin + c.memory + (k - 1.0) * c.socket + suffix;
        // T_max without A_max: edge + subtree + fetch + k·x + (k − 1)·x, then the waits.
        let g_max = x + c.local + g.mmax + fetch + (2.0 * k - 1.0) * x + suffix;
        let relation = c.relation(sigma as u32, s as u32);
        PPoint {
            tmin: prev.tmin.max(g_min),
            mmax: prev.mmax.max(g_max),
            sum: prev.sum + 2.0 * k * x,
            far: prev.far + u8::from(relation == UnitRelation::OtherSocket),
            near: prev.near + u8::from(relation == UnitRelation::SameSocket),
            local: prev.local + u8::from(relation == UnitRelation::Same),
            group: 0,
            group_point: 0,
            prev_point: 0,
        }
    }

    /// P_σ^{(s)}[r] for every σ and stage s, descending.
    fn fill_nodes(&mut self, r: usize) {
        let s_count = self.radix.len();
        let mut subs = Vec::new();
        let empty = PPoint {
            tmin: f64::NEG_INFINITY,
            mmax: f64::NEG_INFINITY,
            sum: 0.0,
            far: 0,
            near: 0,
            local: 0,
            group: NONE,
            group_point: NONE,
            prev_point: NONE,
        };
        for sigma in 0..s_count {
            for stage in (0..s_count).rev() {
                let mut set: Vec<PPoint> = Vec::new();
                // This stage's socket holds no child: the previous stage as it is.
                if stage + 1 == s_count {
                    if r == 0 {
                        insert_p(&mut set, empty);
                    }
                } else {
                    for (i, p) in self.nodes[sigma][stage + 1].get(r).iter().enumerate() {
                        if self.over_node(sigma, stage, r, p) {
                            continue;
                        }
                        insert_p(
                            &mut set,
                            PPoint {
                                group: NONE,
                                group_point: NONE,
                                prev_point: i as u32,
                                ..*p
                            },
                        );
                    }
                }
                let mut pairs = 0u64;
                let last = stage + 1 == s_count;
                let c = self.costs;
                // A finished node (stage 0) whose subtree is not the whole request has a parent
                // level above it; a partial node (stage > 0) may still become the root.
                let whole = self.component(r, sigma) + 1 < self.radix[sigma]
                    && !self.proper(r + self.stride[sigma]);
                let up = if whole || stage > 0 {
                    (0.0, 0.0)
                } else {
                    self.parent_level()
                };
                let base = [empty];
                self.candidates(
                    &self.alive_groups[stage],
                    |d| !self.groups[stage].get(d).is_empty(),
                    r,
                    true,
                    &mut subs,
                );
                for &d in &subs {
                    if self.component(d, stage) == 0 {
                        continue;
                    }
                    let rest = r - d;
                    let prevs: &[PPoint] = if last {
                        if rest != 0 {
                            continue;
                        }
                        &base
                    } else {
                        self.nodes[sigma][stage + 1].get(rest)
                    };
                    if prevs.is_empty() {
                        continue;
                    }
                    pairs += 1;
                    self.points = self.points.saturating_add(
                        (self.groups[stage].get(d).len() as u64).saturating_mul(prevs.len() as u64),
                    );
                    for (gi, g) in self.groups[stage].get(d).iter().enumerate() {
                        for (pi, p) in prevs.iter().enumerate() {
                            let mut q = self.add_group(sigma, stage, g, p);
                            q.group = d as u32;
                            q.group_point = gi as u32;
                            q.prev_point = if last { NONE } else { pi as u32 };
                            if self.hopeless(
                                q.tmin + up.0,
                                q.mmax + q.sum + c.memory + c.socket + up.1,
                            ) || self.over_node(sigma, stage, r, &q)
                            {
                                continue;
                            }
                            insert_p(&mut set, q);
                        }
                    }
                }
                self.transitions += pairs;
                self.nodes[sigma][stage].set(r, &set);
            }
        }
    }

    /// The best tree with its root on `root` holding `counts` nodes per socket, under
    /// `objective` (ties: the other bound, then the first point found). `None` when the counts
    /// are outside the table, hold no node on the root's socket, or were not computed.
    pub fn best(&self, root: u32, counts: &[u32], objective: &Objective) -> Option<PlacedTree> {
        let v: Vec<usize> = counts.iter().map(|&c| c as usize).collect();
        if v.len() != self.radix.len() {
            return None;
        }
        let c = self.index(&v)?;
        let sigma = root as usize;
        if *v.get(sigma)? == 0 {
            return None;
        }
        let off = self.costs.offset();
        let (pi, p) = self.trees[sigma]
            .get(c)
            .iter()
            .enumerate()
            .min_by_key(|(i, p)| (cost_key(objective, off + p.min, off + p.max), *i))?;
        let mut tree = self.reconstruct(sigma, c, pi as u32)?;
        tree.cost = Cost::range(off + p.min, off + p.max);
        Some(tree)
    }

    /// The tree behind a point of T(σ, c), built with an explicit stack (no recursion).
    fn reconstruct(&self, sigma: usize, c: usize, point: u32) -> Option<PlacedTree> {
        enum Work {
            Node {
                socket: usize,
                counts: usize,
                point: u32,
                id: u32,
            },
            Group {
                socket: usize,
                counts: usize,
                point: u32,
                parent: u32,
            },
        }
        let mut parents: Vec<Option<u32>> = vec![None];
        let mut sockets: Vec<u32> = vec![sigma as u32];
        let mut stack = vec![Work::Node {
            socket: sigma,
            counts: c,
            point,
            id: 0,
        }];
        let s_count = self.radix.len();
        while let Some(w) = stack.pop() {
            match w {
                Work::Node {
                    socket,
                    counts,
                    point,
                    id,
                } => {
                    let t = *self.trees[socket].get(counts).get(point as usize)?;
                    if t.node_point == NONE {
                        continue;
                    }
                    let mut r = counts - self.stride[socket];
                    let mut pp = t.node_point;
                    for stage in 0..s_count {
                        let p = *self.nodes[socket][stage].get(r).get(pp as usize)?;
                        if p.group != NONE {
                            stack.push(Work::Group {
                                socket: stage,
                                counts: p.group as usize,
                                point: p.group_point,
                                parent: id,
                            });
                            r -= p.group as usize;
                        }
                        pp = p.prev_point;
                        if pp == NONE {
                            break;
                        }
                    }
                }
                Work::Group {
                    socket,
                    counts,
                    point,
                    parent,
                } => {
                    let g = *self.groups[socket].get(counts).get(point as usize)?;
                    let id = parents.len() as u32;
                    parents.push(Some(parent));
                    sockets.push(socket as u32);
                    stack.push(Work::Node {
                        socket,
                        counts: g.tree as usize,
                        point: g.tree_point,
                        id,
                    });
                    if g.rest_point != NONE {
                        stack.push(Work::Group {
                            socket,
                            counts: counts - g.tree as usize,
                            point: g.rest_point,
                            parent,
                        });
                    }
                }
            }
        }
        Some(PlacedTree {
            parents,
            sockets,
            cost: Cost::range(0.0, 0.0),
        })
    }

    /// The shape of the node stages' suffix states.
    fn suffix(&self) -> Suffix {
        Suffix::new(self.radix.len(), &self.costs)
    }

    /// The cost constants the table was filled with.
    pub fn costs(&self) -> &LineClasses {
        &self.costs
    }
}

/// The suffix state of a node stage (docs/cla.md §11, point 4): the used groups above the stage,
/// as how many lie on other sockets (`far`, each wait R_Q), how many on other units of the
/// node's socket (`near`, R_D; only when the units are L3 domains) and whether one lies on the
/// node's own unit (`local`, R_R). A lower group's term depends on the groups above it only
/// through the sum of their waits, and the node's A_max only through which counts are non-zero,
/// so this is all a stage carries. Encoded `(far · N + near) · 2 + local` with N the most units
/// of one socket: with sockets as units (N = 1) the 2·S states of seed 001's machine.
#[derive(Debug, Clone, Copy)]
struct Suffix {
    /// N: the most units of one socket (near counts 0..N).
    near_span: usize,
    /// The most units outside one socket, plus one (far counts 0..far_span).
    far_span: usize,
}

impl Suffix {
    /// The states of a table over `units` units: near counts up to the most units one socket
    /// holds (less one), far counts up to the most units outside one socket.
    fn new(units: usize, costs: &LineClasses) -> Self {
        let mut per_socket: Vec<usize> = Vec::new();
        for u in 0..units {
            let s = costs.socket_of(u as u32) as usize;
            if per_socket.len() <= s {
                per_socket.resize(s + 1, 0);
            }
            per_socket[s] += 1;
        }
        let present = per_socket.iter().copied().filter(|&c| c > 0);
        let most = present.clone().max().unwrap_or(1);
        let least = present.min().unwrap_or(1);
        Suffix {
            near_span: most.max(1),
            far_span: units.saturating_sub(least) + 1,
        }
    }

    /// How many states.
    fn width(&self) -> usize {
        self.far_span * self.near_span * 2
    }

    fn encode(&self, far: usize, near: usize, local: usize) -> usize {
        (far * self.near_span + near) * 2 + local
    }

    fn decode(&self, state: usize) -> (usize, usize, usize) {
        (
            state / 2 / self.near_span,
            state / 2 % self.near_span,
            state % 2,
        )
    }

    /// The state before a group of `relation` to the node was added, when `state` holds one.
    fn without(&self, state: usize, relation: UnitRelation) -> Option<usize> {
        let (far, near, local) = self.decode(state);
        match relation {
            UnitRelation::Same => (local == 1).then(|| self.encode(far, near, 0)),
            UnitRelation::SameSocket => (near > 0).then(|| self.encode(far, near - 1, local)),
            UnitRelation::OtherSocket => (far > 0).then(|| self.encode(far - 1, near, local)),
        }
    }

    /// For a group of `relation`, every (state, state before it, waits of the groups before it):
    /// the transitions of a node stage, listed once so that the passes' inner loops neither
    /// decode states nor visit impossible ones.
    fn steps(&self, costs: &LineClasses, relation: UnitRelation) -> Vec<(usize, usize, f64)> {
        (0..self.width())
            .filter_map(|state| {
                self.without(state, relation)
                    .map(|prev| (state, prev, self.cost(costs, prev)))
            })
            .collect()
    }

    /// The transitions of [`Suffix::steps`] for each relation, indexed by [`relation_index`].
    fn all_steps(&self, costs: &LineClasses) -> [Vec<(usize, usize, f64)>; 3] {
        [
            UnitRelation::Same,
            UnitRelation::SameSocket,
            UnitRelation::OtherSocket,
        ]
        .map(|r| self.steps(costs, r))
    }

    /// The waits of the groups a state counts.
    fn cost(&self, costs: &LineClasses, state: usize) -> f64 {
        let (far, near, local) = self.decode(state);
        Self::waits(costs, far, near, local)
    }

    /// far·R_Q + near·R_D + local·R_R.
    fn waits(costs: &LineClasses, far: usize, near: usize, local: usize) -> f64 {
        far as f64 * costs.remote
            + near as f64 * costs.class(UnitRelation::SameSocket)
            + local as f64 * costs.socket
    }
}

/// The index of a relation in [`Suffix::all_steps`].
fn relation_index(relation: UnitRelation) -> usize {
    match relation {
        UnitRelation::Same => 0,
        UnitRelation::SameSocket => 1,
        UnitRelation::OtherSocket => 2,
    }
}

/// The scalar first pass for [`Objective::Min`]: the least T_min of every state, no Pareto sets.
///
/// T_min of a node is `max` over its groups of `2 R_I + R_L + x + (M_s + (k_s − 1)·R_R) +
/// suffix_s` (§7, the terms of [`LineClasses::finish`] with A_min = R_I), where M_s is the latest
/// T_min among the k_s children on socket s and suffix_s the waits of the used groups at and
/// above s. It is non-decreasing in every child's T_min, so the least T_min of a state is built
/// from the least T_min of its children's states: per subtree state one scalar `tree[σ][c]`; per
/// forest state the Pareto set of (M, k) (k enters the group term only as (k − 1)·R_R, but also
/// through the next tree added, hence the set), read by the node as the scalar
/// `min (M + (k − 1)·R_R)`; per node stage one scalar per [`Suffix`] state (how many remote groups,
/// whether a local group are used above), the only other thing a lower group's term depends on.
/// The same incumbent cuts apply as in the Pareto pass, so a pruned state here is pruned there.
#[derive(Debug, Clone)]
struct MinPass {
    tree: Vec<Vec<f64>>,
    /// `forests[s][d · K + k − 1]`: the least latest T_min of a forest of exactly k trees on
    /// socket s holding d, for k ≤ K (more trees cannot fit under the incumbent).
    forests: Vec<Vec<f64>>,
    /// K, the most trees a group may have.
    most_trees: usize,
    /// Per forest state, the range `lo..hi` of tree counts (0-based) with a finite entry.
    finite_k: Vec<Vec<(u32, u32)>>,
    /// `min (M + (k − 1)·R_R)` over `groups[s][d]`.
    group_min: Vec<Vec<f64>>,
    /// `nodes[σ][stage][r · W + suffix]`, W = [`Suffix::width`] states (2·S with sockets as
    /// units: remote groups · 2 + local).
    nodes: Vec<Vec<Vec<f64>>>,
    /// The suffix transitions of a node stage per relation ([`Suffix::all_steps`]).
    steps: [Vec<(usize, usize, f64)>; 3],
    alive_trees: Vec<Vec<u32>>,
    alive_groups: Vec<Vec<u32>>,
    incumbent: f64,
    /// Budgets of the backward pass ([`MinPass::backward`]), same layout as the forward
    /// tables; `-∞` where no tree of least T_min passes.
    out_tree: Vec<Vec<f64>>,
    out_group: Vec<Vec<f64>>,
    out_nodes: Vec<Vec<Vec<f64>>>,
}

/// Largest tables of the scalar pass (f64 entries, 256 MiB).
const MAX_FOREST_ENTRIES: usize = 32 << 20;

/// Slack of the budgets (ns): float sums in another order must not prune an optimum.
const SLACK: f64 = 1e-6;

/// Why [`MinPass::new`] built no pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NotBuilt {
    /// Its tables would hold this many entries, over [`MAX_FOREST_ENTRIES`].
    TooLarge(u64),
    /// The deadline passed while they were being filled.
    Stopped,
}

/// How far a pass of [`MinPass`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ran {
    /// Every state up to the requested size was filled.
    Complete,
    /// The deadline passed: the states of fewer than `sizes_done` nodes are complete, larger
    /// ones are partial and must not be read.
    Stopped {
        /// Sizes 0, 1, …, `sizes_done − 1` are complete.
        sizes_done: usize,
    },
}

impl MinPass {
    /// The forest and node tables hold states × (S·K + 2·S²·W) values (W suffix states);
    /// `Err(NotBuilt::TooLarge(that count))` when it is over [`MAX_FOREST_ENTRIES`] (the Pareto
    /// pass then runs alone, still exact). Filling up to 256 MiB takes ~0.1 s and cannot be
    /// interrupted, so the deadline is checked after each table: `Err(NotBuilt::Stopped)`.
    fn new(table: &SocketTable, incumbent: f64, deadline: &Deadline) -> Result<Self, NotBuilt> {
        let s_count = table.radix.len();
        let states = table.ranges_len();
        let w = table.suffix().width();
        let total = table.comps[(states - 1) * s_count..]
            .iter()
            .map(|&x| x as usize)
            .sum::<usize>()
            .max(1);
        // A group of k trees costs its parent at least lv_min + (k − 1)·R_R over the offset.
        let (lv_min, _) = table.parent_level();
        let room = (incumbent + SLACK - table.costs.offset() - lv_min) / table.costs.socket;
        let most_trees = if room.is_finite() && room >= 0.0 {
            (room.floor() as usize + 1).min(total)
        } else if room < 0.0 {
            1
        } else {
            total
        };
        // Forest tables, and the node tables with their budgets (2 · S² · W per state).
        let per_state = s_count
            .saturating_mul(most_trees)
            .saturating_add(2 * s_count * s_count * w);
        let entries = states.saturating_mul(per_state);
        if entries > MAX_FOREST_ENTRIES {
            return Err(NotBuilt::TooLarge(entries as u64));
        }
        let mut forests = Vec::with_capacity(s_count);
        let mut nodes = Vec::with_capacity(s_count);
        for _ in 0..s_count {
            if deadline_passed(deadline) {
                return Err(NotBuilt::Stopped);
            }
            forests.push(vec![f64::INFINITY; states * most_trees]);
            let mut stages = Vec::with_capacity(s_count);
            for _ in 0..s_count {
                stages.push(vec![f64::INFINITY; states * w]);
            }
            nodes.push(stages);
        }
        if deadline_passed(deadline) {
            return Err(NotBuilt::Stopped);
        }
        Ok(MinPass {
            tree: vec![vec![f64::INFINITY; states]; s_count],
            forests,
            most_trees,
            finite_k: vec![vec![(0, 0); states]; s_count],
            group_min: vec![vec![f64::INFINITY; states]; s_count],
            nodes,
            steps: table.suffix().all_steps(&table.costs),
            alive_trees: vec![Vec::new(); s_count],
            alive_groups: vec![Vec::new(); s_count],
            incumbent,
            out_tree: Vec::new(),
            out_group: Vec::new(),
            out_nodes: Vec::new(),
        })
    }

    /// The outside pass: from the root's least T_min down, the largest T_min every entry may
    /// have and still be part of a tree whose T_min is the least (an over-estimate is sound:
    /// it only prunes less). Each forward transition is walked backwards from an entry with a
    /// budget O; where the other operand's least value fits O, the operand inherits O (less
    /// the terms the transition adds). By induction from the root, every part of every tree
    /// of least T_min is within its entry's budget: its true value is at most O and the other
    /// operand's least value is at most its true value.
    /// `false` when the deadline passed first (checked after every state; the budgets are then
    /// incomplete and must not be used).
    fn backward(
        &mut self,
        t: &SocketTable,
        by_size: &[usize],
        root: usize,
        whole: usize,
        deadline: &Deadline,
    ) -> bool {
        let s_count = t.radix.len();
        let w = t.suffix().width();
        let states = t.ranges_len();
        let c = t.costs;
        let rr = c.socket;
        self.out_tree = vec![vec![f64::NEG_INFINITY; states]; s_count];
        self.out_group = vec![vec![f64::NEG_INFINITY; states]; s_count];
        self.out_nodes = Vec::with_capacity(s_count);
        for _ in 0..s_count {
            // Up to 128 MiB in all: not to be filled past the deadline.
            if deadline_passed(deadline) {
                return false;
            }
            self.out_nodes
                .push(vec![vec![f64::NEG_INFINITY; states * w]; s_count]);
        }
        self.out_tree[root][whole] = self.tree[root][whole];
        let mut subs = Vec::new();
        let sizes: Vec<usize> = by_size
            .iter()
            .map(|&i| {
                t.comps[i * s_count..i * s_count + s_count]
                    .iter()
                    .sum::<u32>() as usize
            })
            .collect();
        let mut end = by_size.len();
        while end > 0 {
            let m = sizes[end - 1];
            let start = sizes[..end]
                .iter()
                .rposition(|&x| x != m)
                .map_or(0, |p| p + 1);
            let level = &by_size[start..end];
            end = start;
            // Node stages, ascending (a stage feeds the next one and smaller r).
            for &r in level {
                if deadline_passed(deadline) {
                    return false;
                }
                for sigma in 0..s_count {
                    for stage in 0..s_count {
                        let last = stage + 1 == s_count;
                        let base = r * w;
                        if self.out_nodes[sigma][stage][base..base + w]
                            .iter()
                            .all(|&o| o == f64::NEG_INFINITY)
                        {
                            continue;
                        }
                        if !last {
                            for st in 0..w {
                                let o = self.out_nodes[sigma][stage][base + st];
                                if self.nodes[sigma][stage + 1][base + st] <= o + SLACK {
                                    let slot = &mut self.out_nodes[sigma][stage + 1][base + st];
                                    *slot = slot.max(o);
                                }
                            }
                        }
                        let x = c.transfer(sigma as u32, stage as u32);
                        let relation = relation_index(c.relation(sigma as u32, stage as u32));
                        // (A few dozen entries: copied so that the budgets can be written.)
                        let steps = self.steps[relation].clone();
                        let k0 = 2.0 * c.memory + c.local + 2.0 * x;
                        let gm = &self.group_min[stage];
                        t.candidates(
                            &self.alive_groups[stage],
                            |d| gm[d].is_finite(),
                            r,
                            false,
                            &mut subs,
                        );
                        for &d in &subs {
                            let rest = r - d;
                            if last && rest != 0 {
                                continue;
                            }
                            for &(st, prev_state, waits) in &steps {
                                let o = self.out_nodes[sigma][stage][base + st];
                                if o == f64::NEG_INFINITY {
                                    continue;
                                }
                                let prev = if last {
                                    if prev_state == 0 {
                                        f64::NEG_INFINITY
                                    } else {
                                        f64::INFINITY
                                    }
                                } else {
                                    self.nodes[sigma][stage + 1][rest * w + prev_state]
                                };
                                let fixed = k0 + waits;
                                let g = fixed + self.group_min[stage][d];
                                if prev > o + SLACK || g > o + SLACK {
                                    continue;
                                }
                                if !last {
                                    let slot = &mut self.out_nodes[sigma][stage + 1]
                                        [rest * w + prev_state];
                                    *slot = slot.max(o);
                                }
                                let slot = &mut self.out_group[stage][d];
                                *slot = slot.max(o - fixed);
                            }
                        }
                    }
                }
            }
            // Groups: a forest of k trees within budget B has M + (k − 1)·R_R ≤ B.
            for &d in level {
                if deadline_passed(deadline) {
                    return false;
                }
                for s in 0..s_count {
                    let b = self.out_group[s][d];
                    if b == f64::NEG_INFINITY {
                        continue;
                    }
                    if self.tree[s][d] <= b + SLACK {
                        let slot = &mut self.out_tree[s][d];
                        *slot = slot.max(b);
                    }
                    let trees = &self.tree[s];
                    t.candidates(
                        &self.alive_trees[s],
                        |e| trees[e].is_finite(),
                        d,
                        false,
                        &mut subs,
                    );
                    for &e in &subs {
                        if e == d {
                            continue;
                        }
                        let te = self.tree[s][e];
                        // The fewest trees k' of a rest forest that fits with this tree.
                        let kk = self.most_trees;
                        let rest = d - e;
                        let fewest = self.forests[s][rest * kk..rest * kk + kk - 1]
                            .iter()
                            .enumerate()
                            .map(|(i, &m)| (m, (i + 1) as f64))
                            .find(|&(m, k)| m + k * rr <= b + SLACK && te + k * rr <= b + SLACK);
                        if let Some((_, k)) = fewest {
                            let slot = &mut self.out_tree[s][e];
                            *slot = slot.max(b - k * rr);
                            let slot = &mut self.out_group[s][d - e];
                            *slot = slot.max(b - rr);
                        }
                    }
                }
            }
            // Subtrees: the node table of their root.
            for &cv in level {
                for sigma in 0..s_count {
                    let o = self.out_tree[sigma][cv];
                    if o == f64::NEG_INFINITY || t.component(cv, sigma) == 0 {
                        continue;
                    }
                    let r = cv - t.stride[sigma];
                    if r == 0 {
                        continue;
                    }
                    for st in 1..w {
                        if self.nodes[sigma][0][r * w + st] <= o + SLACK {
                            let slot = &mut self.out_nodes[sigma][0][r * w + st];
                            *slot = slot.max(o);
                        }
                    }
                }
            }
        }
        true
    }

    /// T_min bound (offset added) over the incumbent by more than 1e-6 ns.
    fn hopeless(&self, offset: f64, min: f64) -> bool {
        offset + min > self.incumbent + 1e-6
    }

    /// Fill every state in size order, checking the deadline after every state (one state of a
    /// size level can take milliseconds on four sockets, a whole level seconds).
    fn run(
        &mut self,
        table: &mut SocketTable,
        by_size: &[usize],
        sizes: &[usize],
        total: usize,
        deadline: &Deadline,
        progress: &Progress,
    ) -> Ran {
        let mut start = 0;
        let mut subs = Vec::new();
        for m in 0..=total {
            let end = start
                + by_size[start..]
                    .iter()
                    .take_while(|&&i| sizes[i] == m)
                    .count();
            let level = &by_size[start..end];
            start = end;
            let stopped = Ran::Stopped { sizes_done: m };
            if deadline_passed(deadline) {
                return stopped;
            }
            for &c in level {
                self.fill_trees(table, c);
            }
            for &d in level {
                self.fill_groups(table, d, &mut subs);
                if deadline_passed(deadline) {
                    return stopped;
                }
            }
            for &r in level {
                self.fill_nodes(table, r, &mut subs);
                if deadline_passed(deadline) {
                    return stopped;
                }
            }
            progress.advance(1);
        }
        Ran::Complete
    }

    fn fill_trees(&mut self, t: &SocketTable, c: usize) {
        let s_count = t.radix.len();
        let w = t.suffix().width();
        let (lv_min, _) = t.parent_level();
        let off = t.costs.offset();
        for sigma in 0..s_count {
            if t.component(c, sigma) == 0 {
                continue;
            }
            let r = c - t.stride[sigma];
            let best = if r == 0 {
                0.0
            } else {
                // Suffix state 0 (no group) is only reachable at r = 0.
                let node = &self.nodes[sigma][0][r * w + 1..r * w + w];
                node.iter().copied().fold(f64::INFINITY, f64::min)
            };
            let up = if t.proper(c) { lv_min } else { 0.0 };
            if best.is_finite() && !self.hopeless(off, best + up) {
                self.tree[sigma][c] = best;
                self.alive_trees[sigma].push(c as u32);
            }
        }
    }

    fn fill_groups(&mut self, t: &mut SocketTable, d: usize, subs: &mut Vec<usize>) {
        let s_count = t.radix.len();
        let (lv_min, _) = t.parent_level();
        let rr = t.costs.socket;
        let off = t.costs.offset();
        let kk = self.most_trees;
        let mut row = vec![f64::INFINITY; kk];
        for s in 0..s_count {
            if t.component(d, s) == 0 {
                continue;
            }
            row.fill(f64::INFINITY);
            row[0] = self.tree[s][d];
            let trees = &self.tree[s];
            t.candidates(
                &self.alive_trees[s],
                |e| trees[e].is_finite(),
                d,
                false,
                subs,
            );
            let mut pairs = 0u64;
            for &e in subs.iter() {
                if e == d {
                    continue;
                }
                let rest = d - e;
                // Rest forests of k trees (0-based lo..hi) become forests of k + 1.
                let (lo, hi) = self.finite_k[s][rest];
                let (lo, hi) = (lo as usize, (hi as usize).min(kk - 1));
                if lo >= hi {
                    continue;
                }
                pairs += 1;
                let te = self.tree[s][e];
                let from = &self.forests[s][rest * kk + lo..rest * kk + hi];
                for (slot, &m) in row[lo + 1..=hi].iter_mut().zip(from) {
                    if te.max(m) < *slot {
                        *slot = te.max(m);
                    }
                }
            }
            t.transitions += pairs;
            let mut best = f64::INFINITY;
            for (k, slot) in row.iter_mut().enumerate() {
                let v = *slot + k as f64 * rr;
                if self.hopeless(off, v + lv_min) {
                    *slot = f64::INFINITY;
                } else {
                    best = best.min(v);
                }
            }
            if best.is_finite() {
                self.group_min[s][d] = best;
                self.alive_groups[s].push(d as u32);
                let lo = row.iter().position(|v| v.is_finite()).unwrap_or(0);
                let hi = row.iter().rposition(|v| v.is_finite()).map_or(0, |i| i + 1);
                self.finite_k[s][d] = (lo as u32, hi as u32);
            }
            self.forests[s][d * kk..d * kk + kk].copy_from_slice(&row);
        }
    }

    fn fill_nodes(&mut self, t: &mut SocketTable, r: usize, subs: &mut Vec<usize>) {
        let s_count = t.radix.len();
        let w = t.suffix().width();
        let c = t.costs;
        let (lv_min, _) = t.parent_level();
        let off = c.offset();
        let mut out = vec![f64::INFINITY; w];
        for sigma in 0..s_count {
            let whole = r + t.stride[sigma] + 1 == t.ranges_len()
                && t.component(r, sigma) + 2 == t.radix[sigma];
            for stage in (0..s_count).rev() {
                let last = stage + 1 == s_count;
                if last {
                    out.fill(f64::INFINITY);
                    if r == 0 {
                        out[0] = f64::NEG_INFINITY;
                    }
                } else {
                    out.copy_from_slice(&self.nodes[sigma][stage + 1][r * w..r * w + w]);
                }
                let up = if whole || stage > 0 { 0.0 } else { lv_min };
                let x = c.transfer(sigma as u32, stage as u32);
                let steps = &self.steps[relation_index(c.relation(sigma as u32, stage as u32))];
                let gm = &self.group_min[stage];
                t.candidates(
                    &self.alive_groups[stage],
                    |d| gm[d].is_finite(),
                    r,
                    false,
                    subs,
                );
                let mut pairs = 0u64;
                for &d in subs.iter() {
                    let rest = r - d;
                    if last && rest != 0 {
                        continue;
                    }
                    pairs += 1;
                    // 2 R_I + R_L + x + (M + (k − 1) R_R), then the suffix (this group's wait x
                    // and the used groups' above).
                    let g = 2.0 * c.memory + c.local + 2.0 * x + self.group_min[stage][d];
                    for &(state, prev_state, suffix) in steps {
                        let prev = if last {
                            if prev_state == 0 {
                                f64::NEG_INFINITY
                            } else {
                                f64::INFINITY
                            }
                        } else {
                            self.nodes[sigma][stage + 1][rest * w + prev_state]
                        };
                        if prev == f64::INFINITY {
                            continue;
                        }
                        let v = prev.max(g + suffix);
                        if v < out[state] && !self.hopeless(off, v + up) {
                            out[state] = v;
                        }
                    }
                }
                t.transitions += pairs;
                self.nodes[sigma][stage][r * w..r * w + w].copy_from_slice(&out);
            }
        }
    }
}

fn deadline_passed(d: &Deadline) -> bool {
    d.passed()
}

/// A certified lower bound on T_min over every tree of `n` nodes and every placement on
/// `sockets` sockets (offset included). Every transfer costs at least R_R and every fetch at
/// least R_I (the loader checks R_Q ≥ R_R, R_QI ≥ R_I), so a node with k children and slowest
/// child subtree M costs at least c₀ + M with c₀ = 2 R_I + 2 R_R + R_L (the slowest child's group
/// and its wait), and at least c₀ + (⌈k/S⌉ − 1)·R_R (the largest group, of at least ⌈k/S⌉
/// children). The slowest child holds at least ⌈(n−1)/k⌉ nodes, so
/// `lb(n) = min_k c₀ + max(min_{m ∈ [⌈(n−1)/k⌉, n−1]} lb(m), (⌈k/S⌉ − 1)·R_R)`.
///
/// lb is non-decreasing (by induction: each k's term for n + 1 is at least its term for n, since
/// ⌈n/k⌉ ≥ ⌈(n−1)/k⌉), so the inner minimum is lb(⌈(n−1)/k⌉); that term does not increase with k
/// and (⌈k/S⌉ − 1)·R_R does not decrease, so the minimum over k lies where they cross, found by
/// bisection. O(n log n): a million threads take milliseconds.
pub fn lower_bound(costs: &LineClasses, n: u32, sockets: u32) -> f64 {
    let n = n as usize;
    if n < 2 {
        return costs.offset();
    }
    let s = sockets.max(1) as usize;
    let c0 = 2.0 * costs.memory + 2.0 * costs.socket + costs.local;
    let mut lb = vec![0.0f64; n + 1];
    for m in 2..=n {
        let slowest = |k: usize| lb[(m - 1).div_ceil(k)];
        let group = |k: usize| (k.div_ceil(s) - 1) as f64 * costs.socket;
        // The smallest k in [1, m − 1] with group(k) ≥ slowest(k), if any.
        let (mut lo, mut hi) = (1usize, m - 1);
        let best = if group(hi) < slowest(hi) {
            slowest(hi)
        } else {
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if group(mid) >= slowest(mid) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            let at = group(lo);
            if lo > 1 {
                at.min(slowest(lo - 1))
            } else {
                at
            }
        };
        lb[m] = c0 + best;
    }
    costs.offset() + lb[n]
}

/// A second certified lower bound, from the socket-line form's least costs level by level
/// ([`modelopt_model::level_bound`], docs/cla.md §12 "Lower bounds", whose relaxation is the
/// same): a node's S3 (R_I), each child's S1 and S2 (class + R_L), each socket group's first
/// add from memory (R_I), further adds (R_R) and the wait (class), every class at its least
/// (R_R), except that a node with two groups or more has one across sockets (its child's S1 and
/// the wait at R_Q), and that when `counts` (a split, or a box of capacities) cannot hold the
/// `n` nodes on one socket, the path to a node on another socket crosses once. Height-indexed,
/// so unlike [`lower_bound`] it sees that deep trees pay per level; O(n²) per height, `None`
/// above [`modelopt_model::level_bound::MAX_NODES`] nodes.
pub fn lower_bound_by_height(costs: &LineClasses, n: u32, counts: &[u32]) -> Option<f64> {
    use modelopt_model::level_bound::{Crossing, LevelBound};
    let sockets = counts.iter().filter(|&&c| c > 0).count();
    let spans = counts.iter().all(|&c| c < n);
    // Across units: R_Q between sockets, R_D between the L3 domains of one socket.
    let read_across = costs.cheapest_across();
    let terms = LevelBound {
        pre: costs.memory,
        edge: costs.socket + costs.local,
        offset: costs.offset(),
        crossing: spans.then_some(Crossing {
            edge: read_across + costs.local,
            read: read_across,
            release: 0.0,
        }),
        other_socket: (sockets > 1)
            .then_some(read_across + costs.local + costs.memory + read_across),
        ..LevelBound::lines(costs.memory, costs.socket, costs.socket, n)
    };
    terms.lower_bound(n, u32::try_from(sockets).unwrap_or(u32::MAX))
}

/// The best placed tree for one request, with the table's filled state and the transitions
/// visited. `incumbent`, the score of any tree of the request (e.g. the flat tree), makes the DP
/// keep only points that can reach it ([`Prune`]); it never changes the answer.
pub fn optimal(
    costs: &LineClasses,
    counts: &[u32],
    root: u32,
    objective: &Objective,
    incumbent: Option<f64>,
    limits: &Limits,
    progress: &Progress,
) -> Result<(Option<PlacedTree>, Filled, u64), SocketDpError> {
    if counts.get(root as usize).is_none_or(|&c| c == 0) {
        return Err(SocketDpError::Root {
            root,
            counts: counts.to_vec(),
        });
    }
    // Under Min the scalar pass runs even without an incumbent: its optimum becomes one.
    let prune = match (incumbent, objective) {
        (Some(incumbent), _) => Some(Prune {
            objective: *objective,
            incumbent,
        }),
        (None, Objective::Min) => Some(Prune {
            objective: Objective::Min,
            incumbent: f64::INFINITY,
        }),
        (None, _) => None,
    };
    let (table, filled) =
        SocketTable::build_for(costs, counts, prune, Some(root), None, limits, progress)?;
    let best = match filled {
        Filled::Complete => table.best(root, counts, objective),
        Filled::Stopped(_) => None,
    };
    Ok((best, filled, table.transitions))
}

/// What [`scalar_pass`] leaves: the table (for its indexing), the pass, each state's node
/// count, and how far the pass got.
type ScalarRun = (SocketTable, MinPass, Vec<usize>, Ran);

/// The scalar pass (`MinPass`) over the states of at most `total` nodes inside the box
/// `counts`, after the checks both of its callers need. Returns the table (for its indexing),
/// the pass, each state's node count and how far the pass got before the deadline; `None` when
/// the deadline had passed before the tables were allocated (up to 256 MiB: not to be spent
/// when no time is left).
#[allow(clippy::too_many_arguments)] // one call each from the two public entries below
fn scalar_pass(
    costs: &LineClasses,
    counts: &[u32],
    root: u32,
    incumbent: f64,
    work: WorkEstimate,
    total: usize,
    limits: &Limits,
    progress: &Progress,
) -> Result<Option<ScalarRun>, SocketDpError> {
    if counts.get(root as usize).is_none_or(|&c| c == 0) {
        return Err(SocketDpError::Root {
            root,
            counts: counts.to_vec(),
        });
    }
    if counts.len() > MAX_SOCKETS {
        return Err(SocketDpError::Counts {
            counts: counts.to_vec(),
        });
    }
    limits.check(&work)?;
    check_table_entries(counts)?;
    let deadline = limits.deadline();
    if deadline_passed(&deadline) {
        return Ok(None);
    }
    let mut table = SocketTable::shell(costs, counts, None);
    let states = table.ranges_len();
    let mut by_size: Vec<usize> = (0..states).collect();
    let sizes: Vec<usize> = (0..states).map(|i| table.decode(i).iter().sum()).collect();
    by_size.sort_by_key(|&i| (sizes[i], i));
    let mut pass = match MinPass::new(&table, incumbent, &deadline) {
        Ok(pass) => pass,
        Err(NotBuilt::Stopped) => return Ok(None),
        Err(NotBuilt::TooLarge(entries)) => {
            return Err(SocketDpError::Budget(crate::limits::BudgetExceeded {
                what: "scalar socket-DP table entries".into(),
                estimate: entries,
                budget: MAX_FOREST_ENTRIES as u64,
            }))
        }
    };
    let ran = pass.run(&mut table, &by_size, &sizes, total, &deadline, progress);
    Ok(Some((table, pass, sizes, ran)))
}

/// The least T_min (offset included) over every tree of exactly `total` nodes, with at most
/// `counts[s]` on each socket s and the root on `root`: the scalar pass of [`min_optimum`] over
/// the states of at most `total` nodes, no incumbent. Refuses when [`truncated_estimate`] is
/// over the budget.
///
/// Anytime: when the time limit passes first, the least T_min over the trees of the largest
/// size t ≥ 2 whose states were all complete. That is still a lower bound on the answer for
/// `total`: removing a leaf (never the root) from a tree within the box never makes it costlier
/// (the argument of `rooted_trees`' truncated bound), so the least over t nodes is
/// non-decreasing in t. `Ok(None)` when not even the trees of 2 nodes were complete.
pub fn least_min_of_total(
    costs: &LineClasses,
    counts: &[u32],
    total: u32,
    root: u32,
    limits: &Limits,
    progress: &Progress,
) -> Result<Option<f64>, SocketDpError> {
    let work = truncated_estimate(counts, total);
    progress.begin("lower bound from smaller trees", Some(u64::from(total) + 1));
    let passed = scalar_pass(
        costs,
        counts,
        root,
        f64::INFINITY,
        work,
        total as usize,
        limits,
        progress,
    );
    progress.finish();
    let Some((table, pass, sizes, ran)) = passed? else {
        return Ok(None);
    };
    let size = match ran {
        Ran::Complete => total as usize,
        Ran::Stopped { sizes_done } if sizes_done >= 3 => sizes_done - 1,
        Ran::Stopped { .. } => return Ok(None),
    };
    let r = root as usize;
    let least = (0..table.ranges_len())
        .filter(|&c| sizes[c] == size && table.component(c, r) > 0)
        .filter_map(|c| pass.tree.get(r).and_then(|t| t.get(c)).copied())
        .fold(f64::INFINITY, f64::min);
    Ok(least.is_finite().then(|| least + costs.offset()))
}

/// The least T_min (offset included) over every tree and placement of the request, by the
/// scalar pass alone (`MinPass`; no tree, no T_max): `None` when the request has no tree whose
/// T_min is at most `incumbent` (+ 1e-6 ns) or the deadline passed. The Pareto pass of
/// [`optimal`] starts from this value for [`Objective::Min`]; tests compare the two.
pub fn min_optimum(
    costs: &LineClasses,
    counts: &[u32],
    root: u32,
    incumbent: Option<f64>,
    limits: &Limits,
    progress: &Progress,
) -> Result<Option<f64>, SocketDpError> {
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    let Some((table, pass, _, ran)) = scalar_pass(
        costs,
        counts,
        root,
        incumbent.unwrap_or(f64::INFINITY),
        estimate(counts),
        total,
        limits,
        progress,
    )?
    else {
        return Ok(None);
    };
    if ran != Ran::Complete {
        return Ok(None);
    }
    let v: Vec<usize> = counts.iter().map(|&c| c as usize).collect();
    Ok(table
        .index(&v)
        .and_then(|c| pass.tree.get(root as usize).and_then(|t| t.get(c)))
        .copied()
        .filter(|t| t.is_finite())
        .map(|t| t + costs.offset()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The E5-2660's line classes (seed 001 §2.1).
    fn e5_2660() -> LineClasses {
        LineClasses {
            local: 2.3,
            socket: 35.0,
            remote: 94.0,
            memory: 70.0,
            remote_memory: 107.0,
            domains: None,
        }
    }

    #[test]
    fn a_box_whose_tables_exceed_memory_is_refused_before_allocating() {
        // Eight sockets of 10: 11^8 = 214,358,881 count vectors × (64 + 16) tables =
        // 1.7·10^10 index entries (137 GB), over MAX_TABLE_ENTRIES = 2^28, whatever the work
        // budget. The refusal comes before any table exists (the test would run out of memory
        // otherwise).
        let counts = [10u32; 8];
        assert_eq!(box_states(&counts), 214_358_881);
        let unlimited = Limits {
            time_limit: None,
            work_budget: u64::MAX,
        };
        let err = least_min_of_total(&e5_2660(), &counts, 20, 0, &unlimited, &Progress::none())
            .unwrap_err();
        match err {
            SocketDpError::Budget(b) => {
                assert_eq!(b.estimate, 214_358_881 * 80);
                assert_eq!(b.budget, MAX_TABLE_ENTRIES);
            }
            other => panic!("{other:?}"),
        }
        assert!(!scalar_pass_fits(&counts));
        // Four sockets of 16 (83,521 vectors): 83,521 × 24 index entries and 83,521 × 4·4³ =
        // 21,381,376 forest values, under 2^25 = 33,554,432: it fits.
        assert!(scalar_pass_fits(&[16; 4]));
        // Eight sockets of 2 (6,561 vectors × 4·8³ = 13,436,928 values) fit; of 3 (65,536 ×
        // 2,048 = 134,217,728) do not.
        assert!(scalar_pass_fits(&[2; 8]));
        assert!(!scalar_pass_fits(&[3; 8]));
    }

    /// The bound's recurrence evaluated literally, every k and every m in the range: O(n²).
    fn lower_bound_quadratic(costs: &LineClasses, n: u32, sockets: u32) -> f64 {
        let n = n as usize;
        if n < 2 {
            return costs.offset();
        }
        let s = sockets.max(1) as usize;
        let c0 = 2.0 * costs.memory + 2.0 * costs.socket + costs.local;
        let mut lb = vec![0.0f64; n + 1];
        for m in 2..=n {
            let mut best = f64::INFINITY;
            for k in 1..m {
                let need = (m - 1).div_ceil(k);
                let slowest = lb[need..m].iter().copied().fold(f64::INFINITY, f64::min);
                let group = (k.div_ceil(s) - 1) as f64 * costs.socket;
                best = best.min(c0 + slowest.max(group));
            }
            lb[m] = best;
        }
        costs.offset() + lb[n]
    }

    #[test]
    fn bisected_lower_bound_equals_the_literal_recurrence() {
        let costs = e5_2660();
        for sockets in 1..=4 {
            for n in 1..=300 {
                let fast = lower_bound(&costs, n, sockets);
                let slow = lower_bound_quadratic(&costs, n, sockets);
                assert!(
                    (fast - slow).abs() < 1e-9,
                    "n {n}, S {sockets}: {fast} vs {slow}"
                );
            }
        }
        // n = 2: one child, c₀ + max(lb(1), 0) = 2·70 + 2·35 + 2.3 = 212.3, plus R_L: 214.6.
        assert!((lower_bound(&costs, 2, 2) - 214.6).abs() < 1e-9);
    }

    #[test]
    fn the_height_bound_is_never_above_the_exact_optimum() {
        // Every split of up to 9 nodes on 2 sockets and up to 7 on 3, root on socket 0: the
        // bound is at most the socket DP's exact T_min (which equals brute force, tests
        // above), and on one socket of 2 nodes it is the chain's 214.6 ns (R_L + R_I + R_R +
        // R_L + R_I + R_R).
        let costs = e5_2660();
        assert_eq!(
            lower_bound_by_height(&costs, 2, &[2]).map(|b| (b * 1e6).round() / 1e6),
            Some(214.6)
        );
        let mut checked = 0;
        for (sockets, largest) in [(2usize, 9u32), (3, 7)] {
            let mut counts = vec![0u32; sockets];
            loop {
                let n: u32 = counts.iter().sum();
                if n >= 2 && counts[0] > 0 && n <= largest {
                    let (tree, _, _) = optimal(
                        &costs,
                        &counts,
                        0,
                        &Objective::Min,
                        None,
                        &Limits::default(),
                        &Progress::none(),
                    )
                    .unwrap();
                    let exact = tree.unwrap().cost.min_ns;
                    let bound = lower_bound_by_height(&costs, n, &counts).unwrap();
                    assert!(bound <= exact + 1e-9, "{counts:?}: bound {bound} > {exact}");
                    checked += 1;
                }
                // Next vector with entries 0..=largest.
                let mut i = 0;
                while i < sockets {
                    counts[i] += 1;
                    if counts[i] <= largest {
                        break;
                    }
                    counts[i] = 0;
                    i += 1;
                }
                if i == sockets {
                    break;
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
