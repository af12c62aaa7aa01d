//! Optimal rooted trees for the one-line broadcast (seed 001 §4, Eq. 2).
//!
//! ## Generation
//! [`LevelSequences`] enumerates every rooted unlabeled tree on n nodes once, as its canonical
//! level sequence (preorder depths, root 0), with the Beyer–Hedetniemi successor rule in constant
//! amortized time: find p, the last position with level > 1, and q, the last position before p
//! one level up (p's parent); then `L[i] = L[i − (p − q)]` for i ≥ p. It starts at the path
//! `0, 1, …, n−1` and ends at the star `0, 1, …, 1`, in decreasing lexicographic order.
//! Counts follow OEIS A000081.
//!
//! ## Exhaustive search
//! [`exhaustive`] streams the sequences in batches to [`crate::parallel::map_iter`] and
//! prices each tree bottom-up in O(n) with Eq. (2): `T(p) = T_lev(k_p) + max_c T(c)`.
//!
//! ## Dynamic program
//! [`dp`] is exact for Eq. (2) on one socket: both bounds are max-plus over the subtrees and
//! monotone under removing a leaf, so for a root degree k the best trees split the other n − 1
//! nodes as evenly as possible, and the Pareto frontier of (T_min, T_max) over all trees obeys
//! `F(n) = Pareto-min_k { (T_lev(k) + a, T_lev,max(k) + b) : (a, b) ∈ F(⌈(n−1)/k⌉) }`. O(n²·|F|).
//!
//! ## Ties
//! Lower score under the objective (1e-6 ns resolution), then the other bound, then — for the
//! exhaustive search — the lexicographically smallest canonical level sequence (the shallowest,
//! bushiest tree first). The DP returns a tree with the same two costs, preferring a balanced
//! split; it may be another tree of the same cost.
//!
//! ## Several sockets
//! [`optimal`] searches trees and placements together: `dp` (and `auto`) with the exact socket
//! DP of [`crate::socket_dp`] over (root socket, nodes per socket); `exhaustive` with every tree
//! and its best placement ([`crate::placement::dp`] on two sockets, every labeling on more).
//!
//! ## Stopped searches
//! A socket DP over the work budget is refused before it starts and answers the *stopgap*: the
//! best of three simple placed trees (`stopgap_tree`) with a certified bound (`stopgap_bound`:
//! the recurrences [`socket_dp::lower_bound`] and [`socket_dp::lower_bound_by_height`], raised
//! by the least covering value over count vectors of m ≤ n nodes, one covering pass over the
//! largest box half the budget pays for). A DP within the budget builds the same
//! trees first (they are its incumbent) and, when a time limit is set, the bound too, over the
//! share the refusal gets at the default budget — unless the DP itself starts with the covering
//! pass of the whole box (min), whose bound, once complete, is at least the refusal's and is
//! what a stop then reports (`search_covers`, `in_hand`). So a stop by the time limit answers
//! at once, with no work past the deadline, and with a certificate never weaker than the refusal's: a
//! user who grants more budget and time cannot get a weaker answer (the regression: 64 threads
//! on four sockets, 111.4 % refused, 156.8 % and 5–11 s late after a 90 s limit). Without a time
//! limit nothing is spent up front: only the budget can stop the DP, and the bound is computed
//! after it. Every phase checks the one deadline of the call (`Control`) at least once per DP
//! state, per size of the one-socket DP (every 64) or per tree of an exhaustive search; the
//! placement DP, which cannot be interrupted, is skipped once the deadline has passed.

use crate::limits::{
    BudgetExceeded, Deadline, Exactness, Limits, Progress, StopReason, WorkEstimate,
    DEFAULT_WORK_BUDGET,
};
use crate::objective::{score_key, Objective};
use crate::parallel;
use crate::placement::{self, Placement};
use crate::search::{Ranked, Scored, SearchOptions, SearchStats, TopK};
use crate::socket_dp;
use modelopt_model::placed_tree::{LineClasses, RootedTreeSpace};
use modelopt_model::tree::{LevelCost, LevelTable, RootedTree, Scratch};
use modelopt_model::{Algorithm, Cost, ModelError, Params, Request};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

/// Largest n the automatic method searches exhaustively on one socket (A000081(22) ≈ 2.6e8 would
/// take minutes; 20 takes about a second).
pub const AUTO_EXHAUSTIVE_ONE_SOCKET: u32 = 20;
/// Largest n the automatic method searches exhaustively with a placement per tree.
pub const AUTO_EXHAUSTIVE_SOCKETS: u32 = 18;
/// Largest n [`exhaustive`] accepts (levels are stored in bytes; the count would be absurd).
pub const EXHAUSTIVE_LIMIT: u32 = 32;

/// How the optimizer searches the rooted trees (`--search`): a search strategy, so it belongs to
/// the optimizer and travels in [`SearchOptions::tree_search`], not in the model's space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TreeSearch {
    /// Exhaustive when the space is small enough, the dynamic program otherwise (default).
    #[default]
    Auto,
    /// Every rooted tree (Beyer–Hedetniemi level sequences), each with its best placement.
    Exhaustive,
    /// The exact dynamic program over Eq. (2).
    Dp,
}

impl std::str::FromStr for TreeSearch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(TreeSearch::Auto),
            "exhaustive" => Ok(TreeSearch::Exhaustive),
            "dp" => Ok(TreeSearch::Dp),
            _ => Err(format!(
                "unknown tree search `{s}` (expected auto, exhaustive or dp)"
            )),
        }
    }
}

impl std::fmt::Display for TreeSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TreeSearch::Auto => "auto",
            TreeSearch::Exhaustive => "exhaustive",
            TreeSearch::Dp => "dp",
        })
    }
}

/// Why a rooted-tree search returned no tree. A search that is stopped by a time limit, or whose
/// exact method is over the work budget, still returns its best tree marked
/// [`Exactness::Bounded`]; these are the cases where there is nothing to return.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TreeSearchError {
    /// The thread count is outside what the search handles.
    #[error("{threads} threads: {reason}")]
    Threads {
        /// The requested thread count.
        threads: u64,
        /// What the search accepts.
        reason: String,
    },
    /// No placement puts this many threads on each socket with the root on its socket.
    #[error("no placement fits {counts:?} threads per socket with the root on socket {root}")]
    NoPlacement {
        /// Threads per socket (or each socket's capacity).
        counts: Vec<u32>,
        /// The root's socket.
        root: u32,
    },
    /// Even the cheapest answer the search could give is over the work budget.
    #[error(transparent)]
    Budget(#[from] BudgetExceeded),
    /// What the search would keep is over the memory limit.
    #[error(transparent)]
    Memory(#[from] crate::limits::MemoryExceeded),
    /// The objective does not score latency, the only metric of the tree search.
    #[error("the rooted-tree search optimizes latency only")]
    NotLatency,
    /// The socket DP rejected its input.
    #[error(transparent)]
    SocketDp(socket_dp::SocketDpError),
    /// The family's pricing is not of the socket-line form the multi-socket DP is built on.
    #[error("this collective's pricing has no exact search over several sockets (it is not of the socket-line form); use --search exhaustive for small thread counts, or one socket")]
    NoSocketForm,
    /// The `--search` method asked for does not exist for this space (a graph-priced tree
    /// has no dynamic program; exhaustive search cannot prove an optimum where socket labels
    /// do not cover every placement).
    #[error("--search {method} is not available here: {why}")]
    Method {
        /// The method asked for.
        method: TreeSearch,
        /// Why it is not available, and what is.
        why: &'static str,
    },
    /// The model rejected a tree or placement it was asked to price.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The search built a malformed tree: a defect of the search, never of the input.
    #[error("internal error: the tree search built a malformed tree ({0})")]
    Malformed(String),
}

/// A placed tree the search built was priced or given thread ids with the wrong shape: a defect
/// of the search, never of the input.
impl From<modelopt_model::tree::TreeError> for TreeSearchError {
    fn from(e: modelopt_model::tree::TreeError) -> Self {
        malformed(e)
    }
}

impl From<modelopt_model::placed_tree::AssignError> for TreeSearchError {
    fn from(e: modelopt_model::placed_tree::AssignError) -> Self {
        malformed(e)
    }
}

/// The constants of the socket-line form, which the exact multi-socket DP and its bounds are
/// built on; a pricing without them has no exact search over several sockets.
fn line_classes(space: &RootedTreeSpace) -> Result<LineClasses, TreeSearchError> {
    space
        .pricing
        .line_classes()
        .ok_or(TreeSearchError::NoSocketForm)
}

impl From<socket_dp::SocketDpError> for TreeSearchError {
    fn from(e: socket_dp::SocketDpError) -> Self {
        match e {
            socket_dp::SocketDpError::Budget(b) => TreeSearchError::Budget(b),
            socket_dp::SocketDpError::Memory(m) => TreeSearchError::Memory(m),
            other => TreeSearchError::SocketDp(other),
        }
    }
}

fn too_few(n: u32) -> TreeSearchError {
    TreeSearchError::Threads {
        threads: n.into(),
        reason: "a broadcast tree needs at least 2 threads".into(),
    }
}

fn malformed(e: impl std::fmt::Display) -> TreeSearchError {
    TreeSearchError::Malformed(e.to_string())
}

/// The Beyer–Hedetniemi generator of canonical level sequences.
///
/// ```
/// use modelopt_optimizer::rooted_trees::LevelSequences;
/// let mut g = LevelSequences::new(4);
/// let mut all = Vec::new();
/// while let Some(levels) = g.next_tree() {
///     all.push(levels.to_vec());
/// }
/// assert_eq!(all, [[0, 1, 2, 3], [0, 1, 2, 2], [0, 1, 2, 1], [0, 1, 1, 1]]);
/// ```
#[derive(Debug, Clone)]
pub struct LevelSequences {
    levels: Vec<u32>,
    started: bool,
    done: bool,
}

impl LevelSequences {
    /// All rooted trees on `n` nodes (none for n = 0).
    pub fn new(n: usize) -> Self {
        LevelSequences {
            levels: (0..n as u32).collect(),
            started: false,
            done: n == 0,
        }
    }

    /// The next tree's level sequence, or `None` when all were produced. O(1) amortized.
    pub fn next_tree(&mut self) -> Option<&[u32]> {
        if self.done {
            return None;
        }
        if !self.started {
            self.started = true;
            return Some(&self.levels);
        }
        let l = &mut self.levels;
        let Some(p) = l.iter().rposition(|&x| x > 1) else {
            self.done = true;
            return None;
        };
        let target = l[p] - 1;
        let q = l[..p].iter().rposition(|&x| x == target).unwrap_or(0);
        let d = p - q;
        for i in p..l.len() {
            l[i] = l[i - d];
        }
        Some(&self.levels)
    }
}

/// How many rooted trees have `n` nodes (OEIS A000081), by enumeration.
pub fn count_trees(n: usize) -> u64 {
    let mut g = LevelSequences::new(n);
    let mut count = 0;
    while g.next_tree().is_some() {
        count += 1;
    }
    count
}

/// The best tree found, with how it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeOptimum {
    /// Level sequence of the tree (preorder; canonical for the exhaustive search).
    pub levels: Vec<u32>,
    /// Socket of each node in the same preorder (all 0 on one socket).
    pub sockets: Vec<u32>,
    /// Its predicted cost.
    pub cost: Cost,
    /// Trees enumerated (pruned ones included); for the DPs, the frontier points or transitions.
    pub trees: u64,
    /// Whether it is a proven optimum of the model; if not, why the search stopped early and the
    /// certified gap.
    pub exactness: Exactness,
}

impl TreeOptimum {
    /// The tree, nodes numbered in preorder.
    pub fn tree(&self) -> Result<RootedTree, TreeSearchError> {
        RootedTree::from_levels(&self.levels).map_err(malformed)
    }

    /// Whether the result is a proven optimum of the model.
    pub fn exact(&self) -> bool {
        self.exactness.is_exact()
    }
}

/// The ranking key of a cost under an objective: score, then the other bound.
pub fn cost_key(objective: &Objective, min: f64, max: f64) -> (i64, i64) {
    let c = Cost::range(min, max);
    (
        score_key(score(objective, &c)),
        score_key(objective.tie_score(&c)),
    )
}

/// The objective's score of a tree's cost (latency is the only metric of a tree).
fn score(objective: &Objective, c: &Cost) -> f64 {
    objective
        .score(c, modelopt_model::Metric::Latency)
        .unwrap_or(c.min_ns)
}

/// The limits of one search with its deadline fixed when the search started: a search made of
/// several parts (splits, fallbacks) shares one deadline instead of granting each part the whole
/// time limit.
struct Control<'a> {
    limits: &'a Limits,
    deadline: Deadline,
    progress: &'a Progress,
}

/// Limits without a budget and a silent progress sink for the small side searches (the
/// incumbents) a search runs once its own estimate is within budget.
struct SideSearch {
    limits: Limits,
    progress: Progress,
}

impl SideSearch {
    /// No time limit and no work budget of its own; the caller's memory limit.
    fn new(memory_limit: u64) -> Self {
        SideSearch {
            limits: Limits {
                time_limit: None,
                work_budget: u64::MAX,
                memory_limit,
            },
            progress: Progress::none(),
        }
    }

    fn control(&self, deadline: Deadline) -> Control<'_> {
        Control {
            limits: &self.limits,
            deadline,
            progress: &self.progress,
        }
    }
}

impl<'a> Control<'a> {
    fn new(limits: &'a Limits, progress: &'a Progress) -> Self {
        Control {
            limits,
            deadline: limits.deadline(),
            progress,
        }
    }

    /// The limits of a part that starts now: the time left, the same budget and memory limit.
    fn remaining(&self) -> Limits {
        Limits {
            time_limit: self.deadline.remaining(),
            ..*self.limits
        }
    }

    /// A part's stop reason in the command's terms: a part runs under the time left
    /// ([`Control::remaining`]), but the user set the whole command's limit.
    fn command_reason(&self, reason: StopReason) -> StopReason {
        match reason {
            StopReason::TimeLimit { .. } => self.deadline.reason(),
            other => other,
        }
    }

    fn over_budget(&self) -> StopReason {
        StopReason::WorkBudget {
            budget: self.limits.work_budget,
            needed: 0,
            memory: 0,
        }
    }
}

/// How many rooted trees have `n` nodes (OEIS A000081), from the recurrence
/// a(m+1) = (1/m)·Σ_{k=1..m} (Σ_{d|k} d·a(d))·a(m−k+1), a(1) = 1 (Cayley; OEIS A000081's
/// formula), saturating at `u64::MAX`. This is what an exhaustive search would enumerate, known
/// before it starts; [`count_trees`] counts by enumeration.
pub fn tree_count(n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    let mut a: Vec<u128> = vec![0, 1];
    // s[k] = Σ_{d | k} d·a(d).
    let mut s: Vec<u128> = vec![0];
    for m in 1..n {
        let mut sm: u128 = 0;
        for d in (1..=m).filter(|d| m % d == 0) {
            let Some(v) = (d as u128)
                .checked_mul(a[d])
                .and_then(|t| sm.checked_add(t))
            else {
                return u64::MAX;
            };
            sm = v;
        }
        s.push(sm);
        let mut total: u128 = 0;
        for k in 1..=m {
            let Some(v) = s[k]
                .checked_mul(a[m - k + 1])
                .and_then(|t| total.checked_add(t))
            else {
                return u64::MAX;
            };
            total = v;
        }
        let next = total / m as u128;
        if next > u128::from(u64::MAX) {
            return u64::MAX;
        }
        a.push(next);
    }
    a[n] as u64
}

#[derive(Debug, Clone)]
struct Best {
    key: (i64, i64),
    min: f64,
    max: f64,
    levels: Vec<u32>,
}

impl Best {
    fn better(&self, other: &Best) -> bool {
        (self.key, &self.levels) < (other.key, &other.levels)
    }
}

/// Every tree on `n` nodes priced by Eq. (2) on one socket; the best under `objective`
/// (ties: the other bound, then the smallest canonical level sequence). Parallel over batches.
/// Default [`Limits`]; see [`exhaustive_with`].
pub fn exhaustive(
    cost: &dyn LevelCost,
    n: u32,
    objective: &Objective,
) -> Result<TreeOptimum, TreeSearchError> {
    exhaustive_with(cost, n, objective, &Limits::default(), &Progress::none())
}

/// [`exhaustive`] under limits. Its size, A000081(n) trees ([`tree_count`]), is checked against
/// the work budget before it starts; a time limit stops the enumeration between batches and
/// returns the best tree so far (or the flat tree), bounded below by the exact one-socket [`dp`].
pub fn exhaustive_with(
    cost: &dyn LevelCost,
    n: u32,
    objective: &Objective,
    limits: &Limits,
    progress: &Progress,
) -> Result<TreeOptimum, TreeSearchError> {
    exhaustive_in(cost, n, objective, &Control::new(limits, progress))
}

fn exhaustive_in(
    cost: &dyn LevelCost,
    n: u32,
    objective: &Objective,
    ctl: &Control,
) -> Result<TreeOptimum, TreeSearchError> {
    check_exhaustive(n)?;
    let total = tree_count(n as usize);
    ctl.limits.check(&WorkEstimate {
        what: format!("rooted trees of {n} nodes"),
        units: total,
    })?;
    let table = LevelTable::new(cost, n as usize);
    let nn = n as usize;
    let stopped = AtomicBool::new(false);
    let batches = level_batches(nn, 1 << 14, ctl.deadline, &stopped);
    let progress = ctl.progress;
    progress.begin(
        &format!("exhaustive search over {total} rooted trees"),
        Some(total),
    );
    let results = parallel::map_iter(batches, |buf| {
        let mut scratch = Scratch::default();
        let mut levels = vec![0u32; nn];
        let mut best: Option<Best> = None;
        let mut trees = 0u64;
        for chunk in buf.chunks_exact(nn) {
            for (d, &s) in levels.iter_mut().zip(chunk) {
                *d = u32::from(s);
            }
            let (a, b) = table.evaluate(&levels, &mut scratch);
            trees += 1;
            let key = cost_key(objective, a, b);
            let replace = match &best {
                None => true,
                Some(cur) => (key, levels.as_slice()) < (cur.key, cur.levels.as_slice()),
            };
            if replace {
                best = Some(Best {
                    key,
                    min: a,
                    max: b,
                    levels: levels.clone(),
                });
            }
        }
        progress.advance(trees);
        (best, trees)
    });
    progress.finish();
    let mut best: Option<Best> = None;
    let mut trees = 0;
    for (b, t) in results {
        trees += t;
        best = match (best, b) {
            (Some(x), Some(y)) => Some(if y.better(&x) { y } else { x }),
            (x, None) => x,
            (None, y) => y,
        };
    }
    if !stopped.load(AtomicOrdering::Relaxed) {
        let best = best.ok_or_else(|| malformed("the enumeration produced no tree"))?;
        return Ok(TreeOptimum {
            sockets: vec![0; best.levels.len()],
            levels: best.levels,
            cost: Cost::range(best.min, best.max),
            trees,
            exactness: Exactness::Exact,
        });
    }
    // Stopped by the time limit: the best so far, or the flat tree when no batch finished. The
    // one-socket DP is exact and, for the n ≤ 32 an enumeration accepts, takes microseconds: its
    // optimum is the certified bound.
    let flat = flat_levels(n);
    let (a, b) = table.evaluate(&flat, &mut Scratch::default());
    let flat = Best {
        key: cost_key(objective, a, b),
        min: a,
        max: b,
        levels: flat,
    };
    let best = match best {
        Some(x) if !flat.better(&x) => x,
        _ => flat,
    };
    let exact = dp_in(
        cost,
        n,
        objective,
        &Control {
            limits: &Limits {
                time_limit: None,
                work_budget: u64::MAX,
                ..Limits::default()
            },
            deadline: Deadline::never(),
            progress: &Progress::none(),
        },
    )?;
    let found = Cost::range(best.min, best.max);
    Ok(TreeOptimum {
        sockets: vec![0; best.levels.len()],
        levels: best.levels,
        cost: found,
        trees,
        exactness: Exactness::bounded(
            ctl.deadline.reason(),
            score(objective, &found),
            Some(score(objective, &exact.cost)),
        ),
    })
}

/// Every rooted tree on `nn` nodes as batches of `batch` level sequences (one byte a level, so
/// `nn` ≤ [`EXHAUSTIVE_LIMIT`]), for [`parallel::map_iter`]. It ends early, setting `stopped`,
/// when the deadline has passed at the start of a batch.
fn level_batches(
    nn: usize,
    batch: usize,
    deadline: Deadline,
    stopped: &AtomicBool,
) -> impl Iterator<Item = Vec<u8>> + Send + '_ {
    let mut generator = LevelSequences::new(nn);
    std::iter::from_fn(move || {
        if deadline.passed() {
            stopped.store(true, AtomicOrdering::Relaxed);
            return None;
        }
        let mut buf: Vec<u8> = Vec::with_capacity(batch * nn);
        let mut count = 0;
        while count < batch {
            match generator.next_tree() {
                Some(levels) => {
                    buf.extend(levels.iter().map(|&l| l as u8));
                    count += 1;
                }
                None => break,
            }
        }
        (count > 0).then_some(buf)
    })
}

fn check_exhaustive(n: u32) -> Result<(), TreeSearchError> {
    if n < 2 {
        return Err(too_few(n));
    }
    if n > EXHAUSTIVE_LIMIT {
        return Err(TreeSearchError::Threads {
            threads: n.into(),
            reason: format!(
                "the exhaustive tree search stops at {EXHAUSTIVE_LIMIT} threads ({} trees at 32); use the dp search",
                tree_count(EXHAUSTIVE_LIMIT as usize)
            ),
        });
    }
    Ok(())
}

/// The star: the root and n − 1 children.
fn flat_levels(n: u32) -> Vec<u32> {
    (0..n).map(|i| u32::from(i > 0)).collect()
}

/// The complete k-ary tree on n nodes (nodes in breadth-first order, node i's parent (i−1)/k),
/// as a preorder level sequence.
fn kary_levels(n: u32, k: u32) -> Vec<u32> {
    let n = n as usize;
    let k = k.max(1) as usize;
    let mut levels = Vec::with_capacity(n);
    // Preorder by an explicit stack of (node, depth); children of i are k·i + 1 ..= k·i + k.
    let mut stack = vec![(0usize, 0u32)];
    while let Some((v, d)) = stack.pop() {
        levels.push(d);
        for c in (1..=k).rev() {
            let child = k * v + c;
            if child < n {
                stack.push((child, d + 1));
            }
        }
    }
    levels
}

/// One point of a Pareto frontier: costs, root degree, and the point of the largest subtree.
#[derive(Debug, Clone, Copy)]
struct Point {
    min: f64,
    max: f64,
    key: (i64, i64),
    k: u32,
    child: u32,
}

/// The work of the one-socket DP for n nodes: one (size, root degree) pair per m ≤ n and k < m.
pub fn dp_estimate(n: u32) -> WorkEstimate {
    let n = u64::from(n);
    WorkEstimate {
        what: "one-socket tree-DP (size, degree) pairs".into(),
        units: n.saturating_mul(n.saturating_sub(1)) / 2,
    }
}

/// The exact one-socket dynamic program over Eq. (2) (see the module docs), default
/// [`Limits`]; see [`dp_with`]. O(n²·|F|).
pub fn dp(
    cost: &dyn LevelCost,
    n: u32,
    objective: &Objective,
) -> Result<TreeOptimum, TreeSearchError> {
    dp_with(cost, n, objective, &Limits::default(), &Progress::none())
}

/// [`dp`] under limits. The DP runs over sizes m = 2, 3, …; when its size ([`dp_estimate`]) is
/// over the work budget it runs only up to the largest m the budget pays for, and when the time
/// limit passes it stops at the current m. Either way it returns the best of the flat tree and
/// the complete k-ary trees (k ≤ 16), marked not exact, with the optimum over m nodes as the
/// certified lower bound: both bounds of Eq. (2) are monotone under removing a leaf, so no tree
/// on n > m nodes is cheaper than the best on m.
pub fn dp_with(
    cost: &dyn LevelCost,
    n: u32,
    objective: &Objective,
    limits: &Limits,
    progress: &Progress,
) -> Result<TreeOptimum, TreeSearchError> {
    dp_in(cost, n, objective, &Control::new(limits, progress))
}

/// Largest n the one-socket DP accepts (the level table and frontiers are O(n)).
pub const DP_LIMIT: u32 = 1 << 20;

fn dp_in(
    cost: &dyn LevelCost,
    n: u32,
    objective: &Objective,
    ctl: &Control,
) -> Result<TreeOptimum, TreeSearchError> {
    if n < 2 {
        return Err(too_few(n));
    }
    if n > DP_LIMIT {
        return Err(TreeSearchError::Threads {
            threads: n.into(),
            reason: format!("the tree DP is limited to {DP_LIMIT} threads"),
        });
    }
    let nn = n as usize;
    // The largest size the budget pays for: m(m − 1)/2 ≤ budget.
    let affordable = (2..=nn)
        .rev()
        .find(|&m| dp_estimate(m as u32).units <= ctl.limits.work_budget)
        .unwrap_or(1);
    let table = LevelTable::new(cost, nn);
    // Frontiers of (T_min, T_max) without the offset, sorted by min ascending, max descending.
    let mut frontier: Vec<Vec<Point>> = Vec::with_capacity(nn + 1);
    frontier.push(Vec::new());
    frontier.push(vec![Point {
        min: 0.0,
        max: 0.0,
        key: (0, 0),
        k: 0,
        child: 0,
    }]);
    let mut candidates: Vec<Point> = Vec::new();
    let top = affordable.min(nn);
    if top >= 4096 {
        ctl.progress
            .begin("one-socket tree DP over sizes", Some(top as u64));
    }
    let mut stopped: Option<StopReason> = (top < nn).then(|| ctl.over_budget());
    for m in 2..=top {
        if m % 64 == 0 && ctl.deadline.passed() {
            stopped = Some(ctl.deadline.reason());
            break;
        }
        candidates.clear();
        for k in 1..m {
            let big = (m - 1).div_ceil(k);
            for (ci, c) in frontier[big].iter().enumerate() {
                let a = table.min[k] + c.min;
                let b = table.max[k] + c.max;
                candidates.push(Point {
                    min: a,
                    max: b,
                    key: (score_key(a), score_key(b)),
                    k: k as u32,
                    child: ci as u32,
                });
            }
        }
        candidates.sort_by_key(|x| (x.key, x.k));
        let mut front: Vec<Point> = Vec::new();
        for c in &candidates {
            if front.last().is_none_or(|l| c.key.1 < l.key.1) {
                front.push(*c);
            }
        }
        frontier.push(front);
        if top >= 4096 {
            ctl.progress.advance(1);
        }
    }
    if top >= 4096 {
        ctl.progress.finish();
    }
    let (off_min, off_max) = table.offset;
    let built = frontier.len() - 1;
    let points: u64 = frontier.iter().map(|f| f.len() as u64).sum();
    let best_at = |m: usize| {
        frontier[m]
            .iter()
            .enumerate()
            .min_by_key(|(i, p)| (cost_key(objective, off_min + p.min, off_max + p.max), *i))
            .map(|(i, p)| (i, *p))
    };
    if let Some(reason) = stopped.filter(|_| built < nn) {
        // The best simple tree, bounded by the optimum on `built` nodes.
        let bound = best_at(built)
            .map(|(_, p)| score(objective, &Cost::range(off_min + p.min, off_max + p.max)));
        let mut scratch = Scratch::default();
        let mut best: Option<Best> = None;
        for levels in std::iter::once(flat_levels(n)).chain((1..=16).map(|k| kary_levels(n, k))) {
            let (a, b) = table.evaluate(&levels, &mut scratch);
            let cand = Best {
                key: cost_key(objective, a, b),
                min: a,
                max: b,
                levels,
            };
            if best.as_ref().is_none_or(|x| cand.better(x)) {
                best = Some(cand);
            }
        }
        let best = best.ok_or_else(|| malformed("no simple tree"))?;
        let found = Cost::range(best.min, best.max);
        return Ok(TreeOptimum {
            sockets: vec![0; nn],
            levels: best.levels,
            cost: found,
            trees: points,
            exactness: Exactness::bounded(reason, score(objective, &found), bound),
        });
    }
    let (best_i, best_p) = best_at(nn).ok_or_else(|| malformed("empty frontier"))?;
    let levels = build(&frontier, nn, best_i as u32);
    let (a, b) = table.evaluate(&levels, &mut Scratch::default());
    debug_assert!((a - off_min - best_p.min).abs() < 1e-6);
    Ok(TreeOptimum {
        sockets: vec![0; nn],
        levels,
        cost: Cost::range(a, b),
        trees: points,
        exactness: Exactness::Exact,
    })
}

/// The level sequence (root 0) of the tree a frontier point stands for. Iterative (a frontier
/// may chain one subtree per size, so recursion depth would follow n): every (size, point) it
/// needs is built once, smallest first, from its largest subtree's sequence.
fn build(frontier: &[Vec<Point>], m: usize, point: u32) -> Vec<u32> {
    // The chain of (size, point) from the root down to a single node.
    let mut chain = vec![(m, point)];
    while let Some(&(size, pt)) = chain.last() {
        if size <= 1 {
            break;
        }
        let p = frontier[size][pt as usize];
        chain.push(((size - 1).div_ceil(p.k as usize), p.child));
    }
    let mut sub: Vec<u32> = vec![0];
    for &(size, pt) in chain.iter().rev().skip(1) {
        let p = frontier[size][pt as usize];
        let k = p.k as usize;
        let big = (size - 1).div_ceil(k);
        // r subtrees of size big, the others one node smaller (the big one minus its last leaf,
        // never costlier: both bounds are monotone under removing a leaf).
        let small_count = k * big - (size - 1);
        let mut out = Vec::with_capacity(size);
        out.push(0u32);
        for i in 0..k {
            let s = if i == 0 || i < k - small_count {
                big
            } else {
                big - 1
            };
            out.extend(sub[..s].iter().map(|l| l + 1));
        }
        debug_assert_eq!(out.len(), size);
        sub = out;
    }
    sub
}

/// The canonical level sequence of a tree (children ordered by decreasing canonical sequence,
/// Beyer–Hedetniemi's representative).
pub fn canonical_levels(tree: &RootedTree) -> Vec<u32> {
    let order = tree.preorder();
    let mut seq: Vec<Vec<u32>> = vec![Vec::new(); tree.len()];
    for &v in order.iter().rev() {
        let mut kids: Vec<Vec<u32>> = tree
            .children(v)
            .iter()
            .map(|&c| std::mem::take(&mut seq[c as usize]))
            .collect();
        kids.sort_by(|a, b| b.cmp(a));
        let mut s = vec![0u32];
        for k in kids {
            s.extend(k.into_iter().map(|l| l + 1));
        }
        seq[v as usize] = s;
    }
    std::mem::take(&mut seq[tree.root() as usize])
}

/// The best tree and placement for a rooted-tree space, with the default [`Limits`] and no
/// progress sink. See [`optimal_with`].
pub fn optimal(
    space: &RootedTreeSpace,
    method: TreeSearch,
    objective: &Objective,
) -> Result<TreeOptimum, TreeSearchError> {
    optimal_with(
        space,
        method,
        objective,
        &Limits::default(),
        &Progress::none(),
    )
}

/// The best tree and placement for a rooted-tree space.
///
/// - One socket: [`exhaustive`] or the one-socket [`dp`] (both exact).
/// - Several sockets, `dp` (and `auto`): the exact socket DP of [`crate::socket_dp`] over (root
///   socket, count vector).
/// - Several sockets, `exhaustive`: every tree with its best placement (the placement DP on two
///   sockets, every labeling on more), pruned by a sound lower bound.
///
/// Every method knows its size before it starts ([`WorkEstimate`]). An enumeration over the work
/// budget is refused ([`TreeSearchError::Budget`]); a DP over the budget, or any method stopped
/// by `limits.time_limit`, returns the best tree it can afford (the socket-aware leaders tree,
/// the one-socket DP tree and the flat tree, placed), marked [`Exactness::Bounded`] with why it
/// stopped, a certified lower bound and the gap (module docs, "Stopped searches"). One deadline
/// covers the whole call; a socket DP stopped by it answers with a certificate at least as
/// strong as the one the refusal at the default budget gives.
///
/// **More budget never loses an exact answer to a time limit.** Under a time limit, with a
/// work budget raised past [`DEFAULT_WORK_BUDGET`], on a free split or on a fixed split whose
/// exact search the raised budget admits (not [`runs_to_budget`] under the raised limits; any
/// method but `exhaustive`, which finishes or is refused), the request is first searched at the
/// default budget, within the same limit: the raised budget can admit a larger exact search (a
/// free split's one table, or larger clips of its splits) that the limit then stops, where the
/// default budget's own search (the bounds of the splits) proves the optimum, or gets further,
/// in a fraction of it. When that first answer is exact it is the answer; otherwise the raised
/// search runs in what is left of the limit, and the better of the two trees is the answer
/// (ties: the raised search's) with the larger of their certified bounds. The ranking
/// ([`rank_rooted_trees_until`]) applies the same rule to its improved trees.
pub fn optimal_with(
    space: &RootedTreeSpace,
    method: TreeSearch,
    objective: &Objective,
    limits: &Limits,
    progress: &Progress,
) -> Result<TreeOptimum, TreeSearchError> {
    optimal_until(
        space,
        method,
        objective,
        limits,
        limits.deadline(),
        progress,
    )
}

/// [`optimal_with`] against a deadline that started earlier (a sweep's, shared by its points).
pub fn optimal_until(
    space: &RootedTreeSpace,
    method: TreeSearch,
    objective: &Objective,
    limits: &Limits,
    deadline: Deadline,
    progress: &Progress,
) -> Result<TreeOptimum, TreeSearchError> {
    let ctl = Control {
        limits,
        deadline,
        progress,
    };
    if !default_budget_first(space, method, objective, limits) {
        return optimal_in(space, method, objective, &ctl);
    }
    let default_limits = Limits {
        work_budget: DEFAULT_WORK_BUDGET,
        ..*limits
    };
    let at_default = optimal_in(
        space,
        method,
        objective,
        &Control {
            limits: &default_limits,
            deadline,
            progress,
        },
    )?;
    if at_default.exact() {
        return Ok(at_default);
    }
    let searched = optimal_in(space, method, objective, &ctl)?;
    Ok(better_optimum(searched, at_default, objective))
}

/// Whether a search under `limits` is first run at the default budget (see [`optimal_with`]):
/// under a time limit, with a budget raised past the default, by a method that can stop short
/// of its budget (not the exhaustive enumeration, which finishes or is refused), on a free
/// split (`--placement optimal`) or on a fixed split whose exact search the raised budget
/// admits. A fixed split that runs to the raised budget ([`runs_to_budget`]) is left alone: its
/// search builds the default budget's stopgap trees and bound before it starts when a time
/// limit is set, so it only continues that answer. A free split's search by the bounds of its
/// splits does not (with more budget its clips are larger, and a limit can stop it before the
/// splits the default budget would have searched: 40 threads on `chiplet-2s-4x8-domain-lines`
/// under max, 3,622.7 ns at the default budget in 6 s, answered 4,772.8 ns with `--budget
/// 1e10 --time-limit 30` until 2026-11-29).
fn default_budget_first(
    space: &RootedTreeSpace,
    method: TreeSearch,
    objective: &Objective,
    limits: &Limits,
) -> bool {
    limits.time_limit.is_some()
        && limits.work_budget > DEFAULT_WORK_BUDGET
        && method != TreeSearch::Exhaustive
        && (space.capacity.is_some() || !runs_to_budget(space, method, objective, limits))
}

/// The answer of a search stopped past the default budget (`searched`) or the default budget's
/// own (`at_default`), whichever tree ranks first under the objective (ties: `searched`),
/// certified by the larger bound; an exact `searched` as it is.
fn better_optimum(
    searched: TreeOptimum,
    at_default: TreeOptimum,
    objective: &Objective,
) -> TreeOptimum {
    let Some((stopped, bound)) =
        stopped_and_larger_bound(&searched.exactness, &at_default.exactness)
    else {
        return searched;
    };
    let key = |t: &TreeOptimum| cost_key(objective, t.cost.min_ns, t.cost.max_ns);
    let trees = searched.trees.saturating_add(at_default.trees);
    let mut best = if key(&at_default) < key(&searched) {
        at_default
    } else {
        searched
    };
    best.trees = trees;
    best.exactness = Exactness::bounded(stopped, score(objective, &best.cost), bound);
    best
}

fn optimal_in(
    space: &RootedTreeSpace,
    method: TreeSearch,
    objective: &Objective,
    ctl: &Control,
) -> Result<TreeOptimum, TreeSearchError> {
    if let Some(capacity) = &space.capacity {
        return free_split(space, capacity, method, objective, ctl);
    }
    let n = space.threads;
    let counts = space.nodes_per_socket();
    let used = counts.iter().filter(|&&c| c > 0).count();
    let root_socket = space.root_socket();
    if used <= 1 {
        return match method {
            TreeSearch::Exhaustive => exhaustive_in(&*space.pricing, n, objective, ctl),
            TreeSearch::Dp => dp_in(&*space.pricing, n, objective, ctl),
            TreeSearch::Auto if n <= AUTO_EXHAUSTIVE_ONE_SOCKET => {
                exhaustive_in(&*space.pricing, n, objective, ctl)
            }
            TreeSearch::Auto => dp_in(&*space.pricing, n, objective, ctl),
        }
        .map(|mut t| {
            t.sockets = vec![root_socket; t.levels.len()];
            t
        });
    }
    match method {
        TreeSearch::Exhaustive => exhaustive_placed(space, &counts, root_socket, objective, ctl),
        TreeSearch::Dp | TreeSearch::Auto => {
            socket_optimum(space, &counts, root_socket, objective, ctl)
        }
    }
}

/// Whether [`optimal_with`] on this space will run until the work budget is spent and answer
/// with a certificate (its exact search over the budget), rather than finish exactly or refuse:
/// the same up-front estimates, read the same way, without searching. For a free split whose
/// one table is out of reach, *may*: its search by the bounds of its splits (docs/cla.md §13)
/// either proves the optimum or stops at the budget, which only the search tells. For announcing
/// long work (a sweep of such points) before it starts; the test
/// `the_preflight_agrees_with_the_search` keeps it in step with the search.
pub fn runs_to_budget(
    space: &RootedTreeSpace,
    method: TreeSearch,
    objective: &Objective,
    limits: &Limits,
) -> bool {
    if method == TreeSearch::Exhaustive {
        // An exhaustive search finishes or is refused; it never answers past the budget.
        return false;
    }
    let n = space.threads;
    let root_socket = space.root_socket();
    let counts = match &space.capacity {
        Some(capacity) => {
            let box_counts: Vec<u32> = capacity.iter().map(|&c| c.min(n)).collect();
            // Counted, not listed: a look-ahead over many points must stay cheap.
            match count_splits(n, &box_counts, root_socket) {
                0 => return false,
                1 => match splits_of(n, &box_counts, root_socket, 1).listed.pop() {
                    Some(only) => only,
                    None => return false,
                },
                many => {
                    return many > MAX_LISTED_SPLITS as u64
                        || dp_admits(space, &box_counts, objective, limits, None).is_err()
                }
            }
        }
        None => space.nodes_per_socket(),
    };
    if counts.iter().filter(|&&c| c > 0).count() <= 1 {
        // One socket: the exhaustive pass or the one-socket DP, each exact or refused.
        return false;
    }
    dp_admits(space, &counts, objective, limits, None).is_err()
}

/// Whether the socket DP over the box `counts` may start under `limits`, and if not why: its
/// tables would not fit in the memory limit (`MemoryLimit`, with what they would take: asking
/// for more budget would not help), or its up-front estimate is over the work budget
/// (`WorkBudget`). When the covering pass does not fit in memory, the estimate is the Pareto
/// pass's alone, far larger; if that is over the budget while the covering pass itself is
/// within it, the memory is what to raise, and the reason says how much the covering pass
/// needs (when the covering pass is over the budget too, the budget is named first, as it
/// would be with memory to spare). Without an `incumbent` (a tree's score), a group of the
/// covering pass is sized for as many trees as the widest unit holds; with one, for as many
/// as can beat it, as the pass sizes its tables (two sockets of 512 threads: 2.2 GB without,
/// 239 MB under a tree of 1,600 ns; `socket_dp`'s unit test works it out).
fn dp_admits(
    space: &RootedTreeSpace,
    counts: &[u32],
    objective: &Objective,
    limits: &Limits,
    incumbent: Option<f64>,
) -> Result<(), StopReason> {
    let index = socket_dp::table_bytes(counts);
    let widest = counts.iter().copied().max().unwrap_or(0);
    let classes = space.pricing.line_classes();
    let with_covering = classes.map_or(index, |classes| {
        socket_dp::exact_memory_within(&classes, objective, counts, widest, incumbent)
    });
    let over_memory = |needed: u64| {
        if needed >= BEYOND_ANY_MEMORY {
            StopReason::NoProof {
                why: "the exact DP's tables over these thread counts would take more than a petabyte of memory",
            }
        } else {
            StopReason::MemoryLimit {
                limit: limits.memory_limit,
                needed,
            }
        }
    };
    if !socket_dp::tables_fit(counts, limits.memory_limit) {
        return Err(over_memory(with_covering.max(index)));
    }
    let estimate = socket_dp_estimate(space, counts, objective, limits, incumbent);
    if limits.check(&estimate).is_err() {
        // Either form of the covering pass (with envelopes under min: fewer entries).
        let covering_within_budget = classes.is_some_and(|classes| {
            [
                socket_dp::covering_estimate_within,
                socket_dp::envelope_estimate_within,
            ]
            .iter()
            .any(|form| {
                limits
                    .check(&form(&classes, objective, counts, widest, incumbent))
                    .is_ok()
            })
        });
        if with_covering > limits.memory_limit && covering_within_budget {
            return Err(over_memory(with_covering));
        }
        // The least budget that would start it, with the memory it then needs when that is
        // over the limit too; where that memory is past any machine, the budget that starts
        // the search at this limit (the Pareto pass alone's pairs), and none where that
        // saturates (no budget does).
        let (needed, memory) = match classes.map(|classes| {
            socket_dp::least_budget(&classes, counts, objective, limits.memory_limit, incumbent)
        }) {
            Some((needed, memory)) if memory < BEYOND_ANY_MEMORY => (needed, memory),
            _ => (estimate.units, 0),
        };
        return Err(StopReason::WorkBudget {
            budget: limits.work_budget,
            needed: if needed == u64::MAX { 0 } else { needed },
            memory: if needed == u64::MAX { 0 } else { memory },
        });
    }
    Ok(())
}

/// Tables past this many bytes (a pebibyte) are reported as beyond any memory rather than as a
/// limit to raise.
const BEYOND_ANY_MEMORY: u64 = 1 << 50;

/// Whether the exact search is admitted under `limits` by the steps a request takes: without an
/// incumbent, then, past a memory refusal, with the `incumbent`'s score (`socket_optimum`,
/// `free_split`).
fn admitted_with(
    space: &RootedTreeSpace,
    counts: &[u32],
    objective: &Objective,
    limits: &Limits,
    incumbent: Option<f64>,
) -> bool {
    match dp_admits(space, counts, objective, limits, None) {
        Ok(()) => true,
        Err(StopReason::MemoryLimit { .. }) => {
            dp_admits(space, counts, objective, limits, incumbent).is_ok()
        }
        Err(_) => false,
    }
}

/// A refusal as the answer states it: sized with an incumbent, a work-budget refusal's least
/// budget (`needed`) is the with-incumbent size, which the first check, without one, may still
/// refuse; it is kept only when a budget of that size is admitted by the request's own steps
/// (`admits`), else no size is named (0). Without an incumbent it always is (`dp_admits`).
fn confirmed_need(
    reason: StopReason,
    limits: &Limits,
    admits: impl Fn(&Limits) -> bool,
) -> StopReason {
    match reason {
        StopReason::WorkBudget {
            budget,
            needed,
            memory,
        } if needed > 0 => {
            let raised = Limits {
                work_budget: needed,
                memory_limit: limits.memory_limit.max(memory),
                ..*limits
            };
            let confirmed = admits(&raised);
            StopReason::WorkBudget {
                budget,
                needed: if confirmed { needed } else { 0 },
                memory: if confirmed { memory } else { 0 },
            }
        }
        other => other,
    }
}

/// The up-front size of the socket DP for fixed counts under `objective`
/// ([`socket_dp::estimate_for`]; the Pareto pass's pairs when the pricing has no socket-line
/// form, which the search then refuses with its own error).
fn socket_dp_estimate(
    space: &RootedTreeSpace,
    counts: &[u32],
    objective: &Objective,
    limits: &Limits,
    incumbent: Option<f64>,
) -> WorkEstimate {
    match space.pricing.line_classes() {
        Some(classes) => {
            let room = (limits.memory_limit, limits.work_budget);
            socket_dp::estimate_for(&classes, counts, objective, room, incumbent)
        }
        None => socket_dp::estimate(counts),
    }
}

/// `--placement optimal`: the best tree over every split of the threads with at most
/// `capacity[s]` on socket s (the root on the root thread's socket). The DP reads every split
/// from one table; `exhaustive` searches each split in turn. Ties: the lower score, then the
/// other bound, then the split found first (socket 0 holding the most threads first). When a
/// split's search stops early, the result is bounded by the least of the splits' bounds.
fn free_split(
    space: &RootedTreeSpace,
    capacity: &[u32],
    method: TreeSearch,
    objective: &Objective,
    ctl: &Control,
) -> Result<TreeOptimum, TreeSearchError> {
    let n = space.threads;
    let root_socket = space.root_socket();
    let box_counts: Vec<u32> = capacity.iter().map(|&c| c.min(n)).collect();
    let Splits {
        listed: mut splits,
        complete,
    } = splits_of(n, &box_counts, root_socket, MAX_LISTED_SPLITS);
    if splits.is_empty() {
        return Err(TreeSearchError::Threads {
            threads: n.into(),
            reason: format!(
                "a free placement puts at most {capacity:?} threads on the sockets ({} in all)",
                capacity.iter().map(|&c| u64::from(c)).sum::<u64>()
            ),
        });
    }
    if let ([only], true) = (splits.as_slice(), complete) {
        // One split (the threads fill the sockets): the fixed-split search, with its scalar
        // pass and budgets, is the same question asked faster.
        return optimal_in(&fixed_split(space, only), method, objective, ctl);
    }
    if !complete {
        // Too many splits to visit: no search here is exhaustive over them, so an exact
        // method is refused, and `auto` answers with the listed splits and a balanced one,
        // bounded below over the whole box (which covers every split).
        if method == TreeSearch::Exhaustive {
            return Err(TreeSearchError::Budget(BudgetExceeded {
                what: format!(
                    "rooted trees × placements over more than {MAX_LISTED_SPLITS} splits of the threads"
                ),
                estimate: u64::MAX,
                budget: ctl.limits.work_budget,
            }));
        }
        for extra in [
            balanced_split(n, &box_counts, root_socket),
            filled_from_root(n, &box_counts, root_socket),
        ]
        .into_iter()
        .flatten()
        {
            if !splits.contains(&extra) {
                splits.push(extra);
            }
        }
    }
    let mut results: Vec<TreeOptimum> = Vec::new();
    match method {
        TreeSearch::Exhaustive => {
            // Every split is searched: their sizes add up, and the sum is what the budget sees
            // (each split alone may fit while all of them do not).
            let total = splits.iter().fold(0u64, |acc, counts| {
                acc.saturating_add(exhaustive_placed_estimate(counts, root_socket).units)
            });
            ctl.limits.check(&WorkEstimate {
                what: format!(
                    "rooted trees × placements over {} splits of the threads",
                    splits.len()
                ),
                units: total,
            })?;
            for counts in &splits {
                let fixed = fixed_split(space, counts);
                results.push(optimal_in(&fixed, method, objective, ctl)?);
            }
        }
        TreeSearch::Dp | TreeSearch::Auto => {
            // The table answers only for the splits read from it: all of them, or none (too
            // many to list: no budget helps, as when the tables would not fit in memory).
            let admitted = if complete {
                match dp_admits(space, &box_counts, objective, ctl.limits, None) {
                    // As for a fixed split (`socket_optimum`): asked again with the
                    // incumbent's score, which sizes the covering pass as it allocates.
                    Err(StopReason::MemoryLimit { .. }) => {
                        let incumbent = split_incumbent(
                            space,
                            &splits,
                            &box_counts,
                            root_socket,
                            objective,
                            ctl,
                        )?;
                        dp_admits(space, &box_counts, objective, ctl.limits, incumbent).map_err(
                            |reason| {
                                confirmed_need(reason, ctl.limits, |raised| {
                                    admitted_with(space, &box_counts, objective, raised, incumbent)
                                })
                            },
                        )
                    }
                    other => other,
                }
            } else {
                Err(StopReason::NoProof {
                    why: "the splits of the threads over the machine's units (sockets or L3 domains) are too many to list, whatever the work budget",
                })
            };
            let within = admitted.is_ok();
            // Under a time limit, the stopped search's answer is built before the DP, as in
            // `socket_optimum`: after a stop it answers at once, and as well as the refusal.
            // The trees are that answer only, not the table's incumbent (below); the bound is
            // left to the covering pass when the search starts with one (a share of 0 computes
            // none).
            let share = if search_covers(space, &box_counts, objective, ctl.limits) {
                0
            } else {
                stopgap_share(ctl.limits)
            };
            let early = match ctl.limits.time_limit {
                Some(_) if within => Some(split_stopgaps(
                    space,
                    &splits,
                    &box_counts,
                    root_socket,
                    objective,
                    ctl,
                    share,
                )?),
                _ => None,
            };
            let built = if within {
                // An incumbent over every split prunes the table: the optimum of the whole space
                // scores at most the incumbent, and every partial point of its tree at most its
                // score, so it survives; a split whose points all score above the incumbent
                // cannot hold the optimum. Without it a table over the box of four sockets × 8
                // walks every Pareto point and runs for minutes. Not the early trees' score
                // (built under a time limit only): the incumbent decides where a table stopped
                // by the budget stands, and so its bound, and a time limit that does not fire
                // must not change the answer. With them, 44 threads on four sockets under
                // blend:0.5 were within 1.05 % under any time limit and 0.84 % without, and
                // four sockets of 12 at a budget of 10⁷ were exact under one at 28 threads
                // (1.86 % without) and 1.52 % at 36 (1.30 % without); building them without a
                // limit too would cost every admitted free split a stopgap tree a split
                // (docs/perf.md, "A time limit that does not fire"). Test
                // `a_time_limit_that_does_not_fire_changes_no_answer`.
                let incumbent =
                    split_incumbent(space, &splits, &box_counts, root_socket, objective, ctl)?;
                let (table, filled) = socket_dp::SocketTable::build_splits(
                    &line_classes(space)?,
                    &box_counts,
                    n,
                    root_socket,
                    // The covering pass runs even without an incumbent (it is what keeps the
                    // Pareto pass to the trees of least score).
                    Some(socket_dp::Prune {
                        objective: *objective,
                        incumbent: incumbent.unwrap_or(f64::INFINITY),
                    }),
                    &ctl.remaining(),
                    ctl.progress,
                )?;
                match filled {
                    socket_dp::Filled::Complete => Ok((table, None)),
                    socket_dp::Filled::TiesOpen(reason) => {
                        Ok((table, Some(ctl.command_reason(reason))))
                    }
                    socket_dp::Filled::Stopped(reason) => {
                        Err((ctl.command_reason(reason), table.lower_bound()))
                    }
                }
            } else {
                Err((admitted.err().unwrap_or_else(|| ctl.over_budget()), None))
            };
            match built {
                Ok((table, ties_open)) => {
                    for counts in &splits {
                        if let Some(placed) = table.best(root_socket, counts, objective) {
                            let found = placed_optimum(&placed, table.transitions)?;
                            results.push(match ties_open {
                                Some(reason) => {
                                    ties_unsettled(found, objective, reason, table.lower_bound())
                                }
                                None => found,
                            });
                        }
                    }
                }
                Err((reason, covering)) => {
                    let early = match early {
                        Some((trees, b)) => {
                            let bound = in_hand(space, &box_counts, Some(b), covering)?;
                            Some((trees, bound.unwrap_or(b)))
                        }
                        None => None,
                    };
                    let (trees, bound) = match (early, reason) {
                        (Some(early), StopReason::TimeLimit { .. }) => early,
                        (early, _) => {
                            // Over the budget, or out of Pareto points: the refusal's answer,
                            // never below the bound in hand (the search's covering bound, when
                            // its pass completed, is at least the refusal's: not run again).
                            let share = match covering {
                                Some(_) => 0,
                                None => ctl.limits.work_budget / TRUNCATED_SHARE,
                            };
                            let (trees, late) = split_stopgaps(
                                space,
                                &splits,
                                &box_counts,
                                root_socket,
                                objective,
                                ctl,
                                share,
                            )?;
                            let held = match early {
                                Some((_, b)) => Some(b),
                                None => in_hand(space, &box_counts, None, covering)?,
                            };
                            (trees, held.map_or(late, |b| b.max(late)))
                        }
                    };
                    // Every split bounded by one pass over a clip, and the few that can hold
                    // a better tree searched exactly (not after a stop by the time limit).
                    let incumbent = trees.iter().map(|t| t.score(objective)).reduce(f64::min);
                    let by_bounds = match (reason, incumbent) {
                        (StopReason::TimeLimit { .. }, _) | (_, None) => None,
                        (_, Some(incumbent)) => Some(splits_by_bounds(
                            space,
                            &box_counts,
                            root_socket,
                            objective,
                            ctl,
                            incumbent,
                        )?),
                    };
                    match by_bounds {
                        Some(Ok(SplitsByBounds {
                            found: Some((_, optimum)),
                            stopped: None,
                            ..
                        })) => results.push(optimum),
                        Some(Ok(SplitsByBounds {
                            found,
                            shaped,
                            stopped,
                            bound: by_bounds,
                            ..
                        })) => {
                            let mut trees = trees;
                            trees.extend(shaped);
                            let reason = match (stopped, reason) {
                                // Out of budget in the splits' searches, where the one table
                                // named the budget that starts it: that advice still holds and
                                // says more.
                                (
                                    Some(StopReason::WorkBudget { needed: 0, .. }),
                                    named @ StopReason::WorkBudget { needed, .. },
                                ) if needed > 0 => named,
                                (Some(stopped), _) => stopped,
                                (None, reason) => reason,
                            };
                            let bound = bound.max(by_bounds);
                            results.extend(
                                trees
                                    .into_iter()
                                    .map(|t| t.answer(objective, reason, bound)),
                            );
                            if let Some((_, mut optimum)) = found {
                                optimum.exactness = Exactness::bounded(
                                    reason,
                                    score(objective, &optimum.cost),
                                    Some(bound),
                                );
                                results.push(optimum);
                            }
                        }
                        // It could not start: what held it back is the reason where the one
                        // table's was that none can be built (too many splits to list), or
                        // where time ran out; else the one table's says more.
                        Some(Err(held_back)) => {
                            let reason = match (held_back, reason) {
                                (held @ StopReason::TimeLimit { .. }, _)
                                | (held, StopReason::NoProof { .. }) => held,
                                (_, reason) => reason,
                            };
                            results.extend(
                                trees
                                    .into_iter()
                                    .map(|t| t.answer(objective, reason, bound)),
                            );
                        }
                        None => results.extend(
                            trees
                                .into_iter()
                                .map(|t| t.answer(objective, reason, bound)),
                        ),
                    }
                }
            }
        }
    }
    // The best split; its exactness holds for the whole space only if every split was exact.
    let mut best: Option<((i64, i64), usize)> = None;
    for (i, r) in results.iter().enumerate() {
        let key = cost_key(objective, r.cost.min_ns, r.cost.max_ns);
        if best.is_none_or(|(k, _)| key < k) {
            best = Some((key, i));
        }
    }
    let (_, i) = best.ok_or(TreeSearchError::NoPlacement {
        counts: capacity.to_vec(),
        root: root_socket,
    })?;
    let stop = results.iter().find_map(|r| match r.exactness {
        Exactness::Bounded { stopped, .. } => Some(stopped),
        Exactness::Exact => None,
    });
    // Each split's optimum is at least its bound (its own score when exact).
    let bound = results
        .iter()
        .map(|r| match r.exactness {
            Exactness::Exact => Some(score(objective, &r.cost)),
            Exactness::Bounded { lower_bound, .. } => lower_bound,
        })
        .try_fold(f64::INFINITY, |acc, b| b.map(|b| acc.min(b)));
    let trees = results.iter().map(|r| r.trees).sum();
    let mut found = results.swap_remove(i);
    found.trees = trees;
    if let Some(stopped) = stop {
        found.exactness = Exactness::bounded(stopped, score(objective, &found.cost), bound);
    }
    Ok(found)
}

/// What [`splits_by_bounds`] found.
struct SplitsByBounds {
    /// The best tree of the splits searched exactly, and its split; `None` when no split was
    /// searched (or none holds a tree).
    found: Option<(Vec<u32>, TreeOptimum)>,
    /// A shaped or helper tree of a surviving split that scores below the incumbent, if one
    /// does (an answer when the search stops).
    shaped: Option<Stopgap>,
    /// Why the search ended before every split whose bound reaches the best score was searched
    /// exactly; `None` when it did not: then the best of `found` and the incumbent is optimal.
    stopped: Option<StopReason>,
    /// A certified lower bound on the score of every tree of every split, offset included.
    bound: f64,
    /// How many splits were searched to the end while the clips grew (the least bound of a clip
    /// that left many, [`probe`]), before the search of the survivors: what the tests
    /// read to know that such a search ran (the answer does not depend on it).
    #[cfg_attr(not(test), allow(dead_code))]
    probes: usize,
}

/// `--placement optimal` where one table over the box of capacities is out of reach (too many
/// count vectors, or splits): a branch and bound over the splits (docs/cla.md §13, "Free splits
/// by their bounds"). One covering pass over a clip of the box ([`socket_dp::SplitBounds`])
/// bounds every split by a lookup; only the splits whose bound reaches the best score so far
/// (`incumbent` at first, a tree's score) are searched, each exactly by the fixed-split DP,
/// least bound first, and a split whose bound is above the best score found (by more than a
/// score key's resolution, 10⁻⁶ ns) cannot hold a tree as good, nor tie with it. The clip grows
/// (2, 3, … threads a unit) while more than [`FEW_SURVIVORS`] splits survive and the next pass
/// fits what is left of the work budget and the memory limit; before each larger clip the
/// split of least bound is searched exactly ([`probe`]), and its tree lowers the
/// incumbent the next pass is cut at. `Ok(Err(reason))` when it cannot
/// start, with what held it back (more of which would let it): no pass fits (the budget or
/// the memory), the first walk ([`survivors_of`]: the splits, or the first clip's count
/// vectors where those are fewer; [`SPLITS_PER_BUDGET_UNIT`] a unit) is over the work budget,
/// or the deadline passes before the first walk ends.
///
/// Work: each clip's pass (its corner pairs, as a bound's pass counts them), each walk (the
/// splits or the clip's count vectors before it, the splits of the classes it opened after
/// it) and each split searched (its transitions) is charged against what is left of the
/// budget, so the whole search stays within it (but for the classes one walk opens, at most
/// as many splits as are held); it stops with the reason of the split that stopped (the budget or
/// the time limit), and the bound is then the least of the bounds of the splits not searched
/// (and of the stopped one's own) and the best score.
fn splits_by_bounds(
    space: &RootedTreeSpace,
    box_counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
    incumbent: f64,
) -> Result<Result<SplitsByBounds, StopReason>, TreeSearchError> {
    let held = MAX_SURVIVORS;
    splits_by_bounds_holding(
        space,
        box_counts,
        root_socket,
        objective,
        (ctl, held),
        incumbent,
    )
}

/// [`splits_by_bounds`] holding at most `held` surviving splits (the tests hold few, to reach
/// what it does when more survive).
fn splits_by_bounds_holding(
    space: &RootedTreeSpace,
    box_counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    (ctl, held): (&Control, usize),
    incumbent: f64,
) -> Result<Result<SplitsByBounds, StopReason>, TreeSearchError> {
    let n = space.threads;
    let classes = line_classes(space)?;
    // Each clip walks the splits (or its classes, [`survivors_of`]): its cost, charged before
    // the walk, and the classes it opens after it.
    let walk_of = |within: &[u32]| WalkOver::choose(n, box_counts, root_socket, within).units();
    let first_clip: Vec<u32> = box_counts.iter().map(|&c| c.min(2)).collect();
    let walk = walk_of(&first_clip);
    if walk > ctl.limits.work_budget {
        // Refused before it starts: a budget of one walk starts it.
        return Ok(Err(StopReason::WorkBudget {
            budget: ctl.limits.work_budget,
            needed: walk,
            memory: 0,
        }));
    }
    // Why a clip's pass could not run (the first that did not, or its walk): the budget, the
    // memory or the time limit, each of which more of would let it.
    let refusal = |e: socket_dp::SocketDpError| match e {
        socket_dp::SocketDpError::Memory(m) => StopReason::MemoryLimit {
            limit: m.limit,
            needed: m.bytes,
        },
        _ => ctl.over_budget(),
    };
    let mut held_back: Option<StopReason> = None;
    // One split of each kind the DP cannot tell apart: the others cost the same, and the one
    // kept wins the tie rule among them.
    let in_order = socket_dp::SplitsInOrder::new(&classes, box_counts, root_socket);
    // The clips, each bounding every split, until few survive; their passes' work is charged
    // against the budget as the splits' searches are.
    let widest = box_counts.iter().copied().max().unwrap_or(0);
    let mut spent = 0u64;
    // The incumbent, lowered by the splits searched while the clips grow (below), and the
    // best tree found so far with its split.
    let mut incumbent = incumbent;
    let mut found: Option<(Vec<u32>, TreeOptimum)> = None;
    let mut probed: Vec<Vec<u32>> = Vec::new();
    let mut kept: Option<Vec<Survivor>> = None;
    // The largest least bound of the clips walked: each holds for every split.
    let mut least: Option<f64> = None;
    for clip in 2..=widest.max(2) {
        let within: Vec<u32> = box_counts.iter().map(|&c| c.min(clip)).collect();
        // A pass whose tables fit what is left of the budget runs on all of it; a larger one
        // (cut at the incumbent it mostly prunes) is tried on a share, all of it counted if the
        // pass is refused, so that the splits keep the rest.
        let left = ctl.limits.work_budget.saturating_sub(spent);
        let size = socket_dp::bound_estimate_within(
            &classes,
            objective,
            &within,
            widest,
            Some(incumbent).filter(|i| i.is_finite()),
        );
        let (admission, allowance) = if size.units <= left {
            (socket_dp::Admission::BySize, left)
        } else if kept
            .as_ref()
            .is_none_or(|kept| survivors_size(&classes, objective, kept, incumbent) > size.units)
        {
            (socket_dp::Admission::ByWork, left / CLIP_ATTEMPT_SHARE)
        } else {
            // Searching the survivors costs less than the pass could (its tables are allocated
            // whatever it prunes: a clip of 4 a domain under max holds 0.9 GiB at 16 threads).
            held_back = Some(ctl.over_budget());
            break;
        };
        let bounds = match socket_dp::SplitBounds::over(
            &classes,
            objective,
            box_counts,
            &within,
            root_socket,
            Some(incumbent),
            &Limits {
                work_budget: allowance,
                ..ctl.remaining()
            },
            &Progress::none(),
            admission,
        ) {
            Ok(Some(bounds)) => bounds,
            Ok(None) => {
                held_back = Some(ctl.deadline.reason());
                break;
            }
            Err(e) => {
                if admission == socket_dp::Admission::ByWork
                    && matches!(e, socket_dp::SocketDpError::Budget(_))
                {
                    spent = spent.saturating_add(allowance);
                }
                held_back = Some(refusal(e));
                break;
            }
        };
        spent = spent.saturating_add(bounds.work());
        let walk = walk_of(&within);
        if spent.saturating_add(walk) > ctl.limits.work_budget {
            held_back = Some(ctl.over_budget());
            break;
        }
        spent += walk;
        let walk_under = |incumbent: f64| {
            survivors_of(
                &bounds,
                &in_order,
                n,
                box_counts,
                root_socket,
                incumbent,
                (ctl, held),
            )
        };
        let Some(Walked {
            mut survivors,
            least: clip_least,
            first,
            opened,
        }) = walk_under(incumbent)
        else {
            held_back = Some(ctl.deadline.reason());
            break;
        };
        spent = spent.saturating_add(opened.div_ceil(SPLITS_PER_BUDGET_UNIT));
        least = Some(least.map_or(clip_least, |l: f64| l.max(clip_least)));
        // Too many survive to hold: the split of least bound, searched exactly, may lower the
        // incumbent enough that a second walk holds them (33 threads under max: the stopgap's
        // 4,009.79 ns leaves more than 2²⁰ of the clip of 2's splits).
        if let (None, Some((_, split))) = (&survivors, &first) {
            let lowered = probe(
                &classes,
                split,
                &mut probed,
                root_socket,
                objective,
                (&mut incumbent, &mut found, &mut spent),
                ctl,
            )?;
            if lowered && spent.saturating_add(walk) <= ctl.limits.work_budget {
                spent += walk;
                match walk_under(incumbent) {
                    Some(again) => {
                        spent = spent.saturating_add(again.opened.div_ceil(SPLITS_PER_BUDGET_UNIT));
                        survivors = again.survivors;
                    }
                    None => {
                        held_back = Some(ctl.deadline.reason());
                        break;
                    }
                }
            }
        }
        if survivors.is_some() {
            kept = survivors;
        }
        let few =
            |kept: &Option<Vec<Survivor>>| kept.as_ref().is_some_and(|s| s.len() <= FEW_SURVIVORS);
        if few(&kept) || within == box_counts {
            break;
        }
        // Before a larger clip: the split of least bound searched exactly. Its optimum is
        // often the answer or close to it (under max, where the stopgap trees are far from the
        // optimum, 24 threads: 2,914.72 ns against the stopgap's 3,306.29), and the next pass,
        // cut at it, prunes more; the split would be searched first anyway.
        if let Some(kept) = kept.as_mut() {
            let least_unsearched = kept
                .iter()
                .filter(|(_, split)| !probed.contains(split))
                .min_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(&a.1)))
                .map(|(_, split)| split.clone());
            if let Some(split) = least_unsearched {
                let lowered = probe(
                    &classes,
                    &split,
                    &mut probed,
                    root_socket,
                    objective,
                    (&mut incumbent, &mut found, &mut spent),
                    ctl,
                )?;
                if lowered {
                    kept.retain(|(bound, _)| *bound <= incumbent + KEY_RESOLUTION_NS);
                }
            }
        }
        if few(&kept) {
            break;
        }
    }
    let mut survivors = match (kept, least) {
        (Some(survivors), _) => survivors,
        // Too many survive every clip that ran: the least bound still holds. A larger clip
        // held back by a limit might leave fewer; past the whole box none would.
        (None, Some(least)) => {
            return Ok(Ok(SplitsByBounds {
                found,
                shaped: None,
                stopped: Some(held_back.unwrap_or(StopReason::NoProof {
                    why: "more splits of the threads reach the best tree's score by their bounds than the search holds",
                })),
                bound: least.min(incumbent),
                probes: probed.len(),
            }))
        }
        (None, None) => {
            return Ok(Err(held_back.unwrap_or_else(|| ctl.over_budget())));
        }
    };
    // Least bound first (good trees early prune the rest); ties: the split first in
    // descending lexicographic order, the order of the answer's tie rule.
    survivors.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
    // The shaped and helper trees of the most promising splits first (a tenth of a
    // millisecond each): a lower incumbent rules out more splits, and lets the DP of each size
    // its passes smaller.
    let mut shaped: Option<Stopgap> = None;
    let mut one = OneSocketTrees::new(space, objective, ctl)?;
    for (_, split) in survivors.iter().take(SHAPED_SURVIVORS) {
        if ctl.deadline.passed() {
            break;
        }
        let fixed = fixed_split(space, split);
        match stopgap_tree_with(&fixed, split, root_socket, objective, ctl, &mut one, true) {
            Ok(t)
                if t.score(objective)
                    < shaped.as_ref().map_or(incumbent, |s| s.score(objective)) =>
            {
                shaped = Some(t)
            }
            Ok(_) | Err(TreeSearchError::NoPlacement { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    let mut best_score = shaped
        .as_ref()
        .map_or(incumbent, |s| s.score(objective).min(incumbent));
    let mut stopped = None;
    let mut rest_bound = f64::INFINITY;
    ctl.progress.begin(
        &format!(
            "exact search of the {} splits whose bounds reach {best_score:.2} ns",
            survivors.len()
        ),
        Some(survivors.len() as u64),
    );
    // One split at a time, each under the best score so far. Batches searched in parallel
    // (four at once, each under the score its batch started with, and a quarter of the budget
    // and memory left) lose the pruning within a batch and were no faster: 32 threads over
    // eight L3 domains took 3.7 / 2.7 s with one / two rayon threads, against 2.8–3.4 /
    // 2.8–3.0 s one at a time (this VM's spread is ±15 %).
    for (i, (bound, split)) in survivors.iter().enumerate() {
        if *bound > best_score + KEY_RESOLUTION_NS {
            // Sorted by bound: so are the rest.
            break;
        }
        if probed.contains(split) {
            // Searched exactly while the clips grew.
            ctl.progress.advance(1);
            continue;
        }
        let left = ctl.limits.work_budget.saturating_sub(spent);
        let reason = if ctl.deadline.passed() {
            Some(ctl.deadline.reason())
        } else if left == 0 {
            Some(ctl.over_budget())
        } else {
            None
        };
        if let Some(reason) = reason {
            stopped = Some(reason);
            rest_bound = *bound;
            break;
        }
        ctl.progress.advance(1);
        let next = survivors.get(i + 1).map_or(f64::INFINITY, |(b, _)| *b);
        match search_split(
            &classes,
            split,
            root_socket,
            objective,
            best_score,
            left,
            ctl,
        )? {
            Err(refused) => {
                stopped = Some(refused);
                rest_bound = *bound;
                break;
            }
            Ok(searched) => {
                spent = spent.saturating_add(searched.charge);
                if let Some(optimum) = searched.optimum {
                    keep_better(&mut found, &mut best_score, split, optimum, objective);
                }
                if let Some((reason, own)) = searched.stopped {
                    stopped = Some(reason);
                    rest_bound = own.map_or(*bound, |b| b.max(*bound)).min(next);
                    break;
                }
            }
        }
    }
    ctl.progress.finish();
    // The budget ran out on splits a sharper clip, refused by the memory limit, might have
    // ruled out: either more budget or more memory may finish the search, and the answer
    // says both.
    let stopped = match (stopped, held_back) {
        (
            Some(StopReason::WorkBudget {
                budget, needed: 0, ..
            }),
            Some(StopReason::MemoryLimit { needed, .. }),
        ) if needed > 0 => Some(StopReason::WorkBudget {
            budget,
            needed: 0,
            memory: needed,
        }),
        (stopped, _) => stopped,
    };
    Ok(Ok(SplitsByBounds {
        found,
        shaped,
        stopped,
        bound: best_score.min(rest_bound),
        probes: probed.len(),
    }))
}

/// Search `split` exactly (a survivor of least bound, [`splits_by_bounds`]) under the
/// incumbent, when it was not searched yet, on a [`CLIP_ATTEMPT_SHARE`] of the budget left
/// (which its tables must fit: under max one such split of 33 threads took 9 · 10⁷
/// transitions, most of the default budget); its work is charged, and a tree it finds is kept and lowers the incumbent. A
/// search that completes is recorded in `probed` (the exact search after the clips skips it);
/// one that stops early is not (its tree, if any, is still kept). Whether the incumbent was
/// lowered.
fn probe(
    classes: &LineClasses,
    split: &[u32],
    probed: &mut Vec<Vec<u32>>,
    root_socket: u32,
    objective: &Objective,
    (incumbent, found, spent): (&mut f64, &mut Option<(Vec<u32>, TreeOptimum)>, &mut u64),
    ctl: &Control,
) -> Result<bool, TreeSearchError> {
    if probed.iter().any(|p| p.as_slice() == split) {
        return Ok(false);
    }
    let left = ctl.limits.work_budget.saturating_sub(*spent);
    let size = socket_dp::bound_estimate_within(
        classes,
        objective,
        split,
        split.iter().copied().max().unwrap_or(0),
        Some(*incumbent).filter(|i| i.is_finite()),
    )
    .units
    .div_ceil(ENTRIES_PER_BUDGET_UNIT);
    if ctl.deadline.passed() || size > left / CLIP_ATTEMPT_SHARE {
        return Ok(false);
    }
    let Ok(searched) = search_split(
        classes,
        split,
        root_socket,
        objective,
        *incumbent,
        left / CLIP_ATTEMPT_SHARE,
        ctl,
    )?
    else {
        // Refused up front: the exact search after the clips meets the same refusal.
        return Ok(false);
    };
    *spent = spent.saturating_add(searched.charge);
    if searched.stopped.is_none() {
        probed.push(split.to_vec());
    }
    let before = *incumbent;
    if let Some(optimum) = searched.optimum {
        keep_better(found, incumbent, split, optimum, objective);
    }
    Ok(*incumbent < before)
}

/// One split's exact search by the fixed-split DP ([`search_split`]).
struct SplitSearched {
    /// What it is charged against the budget: its transitions, and at least its tables'
    /// entries over [`ENTRIES_PER_BUDGET_UNIT`] (a split whose pass ends early still fills them:
    /// a split of 40 threads over five domains, with the root on socket 1, 1.1 · 10⁵
    /// transitions in 0.25 s for 2.6 · 10⁷ table entries).
    charge: u64,
    /// Its best tree, where one scores at most the incumbent it was searched under.
    optimum: Option<TreeOptimum>,
    /// Why it ended before its optimum was proven (the command's reason: its budget is what
    /// is left of the command's), with its own lower bound where it has one; `None` when it
    /// completed.
    stopped: Option<(StopReason, Option<f64>)>,
}

/// The exact search of one split by the fixed-split DP under `incumbent` (offset included: a
/// split that cannot reach it, by its own covering pass, sharper than a clip's, ends without a
/// tree; one that ties keeps it), on `left` units of the budget and what is left of the time
/// and memory. `Ok(Err(reason))` when it is refused before it starts: its tables are over the
/// memory limit, or its size over what is left of the budget.
#[allow(clippy::too_many_arguments)]
fn search_split(
    classes: &LineClasses,
    split: &[u32],
    root_socket: u32,
    objective: &Objective,
    incumbent: f64,
    left: u64,
    ctl: &Control,
) -> Result<Result<SplitSearched, StopReason>, TreeSearchError> {
    let limits = Limits {
        work_budget: left,
        ..ctl.remaining()
    };
    let outcome = match socket_dp::optimal(
        classes,
        split,
        root_socket,
        objective,
        Some(incumbent),
        &limits,
        &Progress::none(),
    ) {
        Ok(outcome) => outcome,
        Err(socket_dp::SocketDpError::Memory(m)) => {
            return Ok(Err(StopReason::MemoryLimit {
                limit: m.limit,
                needed: m.bytes,
            }))
        }
        // Over what is left of the command's budget.
        Err(_) => return Ok(Err(ctl.over_budget())),
    };
    let size = socket_dp::bound_estimate_within(
        classes,
        objective,
        split,
        split.iter().copied().max().unwrap_or(0),
        Some(incumbent),
    )
    .units
    .div_ceil(ENTRIES_PER_BUDGET_UNIT);
    let optimum = match &outcome.best {
        Some(placed) => Some(placed_optimum(placed, outcome.transitions)?),
        None => None,
    };
    let stopped = match outcome.filled {
        socket_dp::Filled::Complete => None,
        socket_dp::Filled::TiesOpen(reason) | socket_dp::Filled::Stopped(reason) => Some((
            match reason {
                StopReason::WorkBudget { .. } => ctl.over_budget(),
                other => ctl.command_reason(other),
            },
            outcome.lower_bound,
        )),
    };
    Ok(Ok(SplitSearched {
        charge: outcome.transitions.max(size),
        optimum,
        stopped,
    }))
}

/// Keep `optimum`, the best tree of `split`, in `found` where it is better by the answer's tie
/// rule (the lower key; on equal keys, the split first in descending lexicographic order), and
/// lower `best_score` to its score.
fn keep_better(
    found: &mut Option<(Vec<u32>, TreeOptimum)>,
    best_score: &mut f64,
    split: &[u32],
    optimum: TreeOptimum,
    objective: &Objective,
) {
    let key = cost_key(objective, optimum.cost.min_ns, optimum.cost.max_ns);
    let better = found.as_ref().is_none_or(|(s, f)| {
        let held = cost_key(objective, f.cost.min_ns, f.cost.max_ns);
        key < held || (key == held && split > s.as_slice())
    });
    if better {
        *best_score = best_score.min(score(objective, &optimum.cost));
        *found = Some((split.to_vec(), optimum));
    }
}

/// A split that may hold a tree as good as the incumbent: its bound and its counts.
type Survivor = (f64, Vec<u32>);

/// What one walk over the splits found ([`survivors_of`]).
struct Walked {
    /// The splits whose bound reaches the incumbent; `None` past [`MAX_SURVIVORS`].
    survivors: Option<Vec<Survivor>>,
    /// The least bound over every split (offset included).
    least: f64,
    /// The split of least finite bound, with it (ties: the split first in descending
    /// lexicographic order); kept when the survivors are not.
    first: Option<Survivor>,
    /// The splits of surviving classes a walk by classes listed (its work beyond the clip's
    /// count vectors; 0 for a walk over the splits).
    opened: u64,
}

/// The splits of `n` threads within the box that `in_order` keeps and whose
/// [`socket_dp::SplitBounds`] bound reaches `incumbent` (within a score key's resolution), with
/// their bounds (at most `held` of them: none past it), in descending lexicographic order, and
/// the least bound over the splits kept (still read past `held`; every other split costs what
/// one kept does); `None` when the deadline passes during the walk. The splits are walked one
/// by one or, where the clip has fewer count vectors than there are splits, by their classes
/// ([`survivors_by_classes`]): the same answer.
fn survivors_of(
    bounds: &socket_dp::SplitBounds,
    in_order: &socket_dp::SplitsInOrder,
    n: u32,
    box_counts: &[u32],
    root_socket: u32,
    incumbent: f64,
    (ctl, held): (&Control, usize),
) -> Option<Walked> {
    let walk = WalkOver::choose(n, box_counts, root_socket, bounds.within());
    let args = (bounds, in_order, n, box_counts, root_socket, incumbent);
    match walk {
        WalkOver::Splits(_) => survivors_by_splits(args, (ctl, held)),
        WalkOver::Classes(_) => survivors_by_classes(args, (ctl, held)),
    }
}

/// What [`survivors_of`] walks, with how many it visits: every split, or the count vectors of
/// the clip (and, beyond those, the splits of the classes that survive, counted as they are
/// opened: [`Walked::opened`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WalkOver {
    Splits(u64),
    Classes(u64),
}

impl WalkOver {
    /// The fewer: the splits of `n` in the box, or the count vectors of the clip `within`
    /// (saturating; the splits on a tie).
    fn choose(n: u32, box_counts: &[u32], root_socket: u32, within: &[u32]) -> Self {
        let splits = count_splits(n, box_counts, root_socket);
        let classes = within
            .iter()
            .try_fold(1u64, |acc, &w| acc.checked_mul(u64::from(w) + 1))
            .unwrap_or(u64::MAX);
        if classes < splits {
            WalkOver::Classes(classes)
        } else {
            WalkOver::Splits(splits)
        }
    }

    /// The walk's work before any class is opened, in units of the work budget.
    fn units(self) -> u64 {
        match self {
            WalkOver::Splits(k) | WalkOver::Classes(k) => k.div_ceil(SPLITS_PER_BUDGET_UNIT),
        }
    }
}

/// The arguments of a walk over the splits ([`survivors_of`]).
type WalkArgs<'a> = (
    &'a socket_dp::SplitBounds,
    &'a socket_dp::SplitsInOrder,
    u32,
    &'a [u32],
    u32,
    f64,
);

/// [`survivors_of`] one split at a time ([`SplitWalk`]).
fn survivors_by_splits(
    (bounds, in_order, n, box_counts, root_socket, incumbent): WalkArgs,
    (ctl, held): (&Control, usize),
) -> Option<Walked> {
    let mut walk = SplitWalk::new(n, box_counts, root_socket);
    let mut survivors = Some(Vec::new());
    let mut least = f64::INFINITY;
    let mut first: Option<Survivor> = None;
    let mut seen = 0u64;
    while let Some(split) = walk.next_split() {
        seen += 1;
        if seen.is_multiple_of(DEADLINE_CHECK_SPLITS) && ctl.deadline.passed() {
            return None;
        }
        if !in_order.keeps(split) {
            continue;
        }
        let bound = bounds.of(split);
        least = least.min(bound);
        let before = |(b, s): &Survivor| bound < *b || (bound == *b && split > s.as_slice());
        if bound.is_finite() && first.as_ref().is_none_or(before) {
            first = Some((bound, split.to_vec()));
        }
        if bound <= incumbent + KEY_RESOLUTION_NS {
            if let Some(list) = &mut survivors {
                if list.len() == held {
                    survivors = None;
                } else {
                    list.push((bound, split.to_vec()));
                }
            }
        }
    }
    Some(Walked {
        survivors,
        least,
        first,
        opened: 0,
    })
}

/// [`survivors_of`] by classes. A split v's bound is read at its counts cut to the clip,
/// min(v, within), so the splits cut to one count vector w of the clip (its *class*: v equals
/// w on the units where w is under the clip, and runs from the clip to the capacity on those
/// where w reaches it) share one bound; and `in_order` keeps all of a class or none, since v is
/// empty exactly where w is (the clip is at least 1 wherever a unit holds threads). So the walk
/// visits the clip's count vectors, a bound each, and opens only the classes whose bound
/// reaches the incumbent, split by split, until more than `held` survive. The split of least
/// bound (ties: first in descending order) is the greatest of its class: the units from the
/// first on filled to their capacity in turn. On eight L3 domains the clip of 2 has 3⁸ = 6,561
/// count vectors where 65 threads have 1.9 · 10⁸ splits.
fn survivors_by_classes(
    (bounds, in_order, n, box_counts, root_socket, incumbent): WalkArgs,
    (ctl, held): (&Control, usize),
) -> Option<Walked> {
    let within = bounds.within();
    let units = within.len();
    let root = root_socket as usize;
    // Room of each unit above the clip.
    let above: Vec<u32> = box_counts
        .iter()
        .zip(within)
        .map(|(&c, &w)| c.saturating_sub(w))
        .collect();
    let mut survivors = Vec::new();
    let mut overflow = false;
    let mut least = f64::INFINITY;
    let mut first: Option<Survivor> = None;
    let mut seen = 0u64;
    let mut opened = 0u64;
    let mut class = vec![0u32; within.len()];
    loop {
        seen += 1;
        if seen.is_multiple_of(DEADLINE_CHECK_SPLITS) && ctl.deadline.passed() {
            return None;
        }
        let sum: u64 = class.iter().map(|&c| u64::from(c)).sum();
        // Room of each unit for the threads beyond the class's counts.
        let room = |i: usize| if class[i] == within[i] { above[i] } else { 0 };
        let free: u64 = (0..units).map(|i| u64::from(room(i))).sum();
        let holds = class.get(root).is_some_and(|&c| c > 0)
            && sum <= u64::from(n)
            && u64::from(n) - sum <= free
            && in_order.keeps(&class);
        if holds {
            // ≤ n: fits u32.
            let rest = (u64::from(n) - sum) as u32;
            let bound = bounds.of(&class);
            least = least.min(bound);
            if bound.is_finite() {
                let mut greatest = class.clone();
                let mut left = rest;
                for (i, g) in greatest.iter_mut().enumerate() {
                    let take = room(i).min(left);
                    *g += take;
                    left -= take;
                }
                let before = |(b, s): &Survivor| bound < *b || (bound == *b && greatest > *s);
                if first.as_ref().is_none_or(before) {
                    first = Some((bound, greatest));
                }
            }
            if bound <= incumbent + KEY_RESOLUTION_NS && !overflow {
                let rooms = (0..units).map(room).collect();
                let mut walk = SplitWalk::over(rest, rooms, class.clone());
                while let Some(split) = walk.next_split() {
                    opened += 1;
                    if opened.is_multiple_of(DEADLINE_CHECK_SPLITS) && ctl.deadline.passed() {
                        return None;
                    }
                    if survivors.len() == held {
                        overflow = true;
                        survivors = Vec::new();
                        break;
                    }
                    survivors.push((bound, split.to_vec()));
                }
            }
        }
        // The next count vector of the clip (the last unit turning fastest).
        let Some(i) = (0..units).rev().find(|&i| class[i] < within[i]) else {
            break;
        };
        class[i] += 1;
        for c in &mut class[i + 1..] {
            *c = 0;
        }
    }
    // The order of the walk over the splits, in which `survivors_size` samples them.
    survivors.sort_by(|a, b| b.1.cmp(&a.1));
    Some(Walked {
        survivors: (!overflow).then_some(survivors),
        least,
        first,
        opened,
    })
}

/// [`splits_by_bounds`] stops growing its clip once at most this many splits survive: each is
/// a fixed-split DP of milliseconds, while the next clip's pass costs about as much as a
/// hundred of them (eight L3 domains: clips of 3 and 4 a unit, 0.01 and 0.1 s).
const FEW_SURVIVORS: usize = 64;

/// The size of the survivors' own searches, in table entries as a clip's pass is sized
/// ([`socket_dp::bound_estimate_within`] of each split): the sum over at most
/// [`SIZE_SAMPLES`] of them evenly spaced, scaled to all of them (saturating).
fn survivors_size(
    classes: &LineClasses,
    objective: &Objective,
    survivors: &[Survivor],
    incumbent: f64,
) -> u64 {
    let step = survivors.len().div_ceil(SIZE_SAMPLES).max(1);
    let (mut sampled, mut total) = (0u64, 0u64);
    for (_, split) in survivors.iter().step_by(step) {
        let widest = split.iter().copied().max().unwrap_or(0);
        let size = socket_dp::bound_estimate_within(
            classes,
            objective,
            split,
            widest,
            Some(incumbent).filter(|i| i.is_finite()),
        );
        total = total.saturating_add(size.units);
        sampled += 1;
    }
    (total / sampled.max(1)).saturating_mul(survivors.len() as u64)
}

/// How many survivors [`survivors_size`] sizes.
const SIZE_SAMPLES: usize = 64;

/// How many splits a walk over them ([`survivors_of`]: a step of the walk, a check and a
/// lookup of the bound) visits for one unit of the work budget: about 25–50 ns a split (the
/// 2,072,694 splits of 33 threads over eight L3 domains in 47–76 ms) against about 100 ns a
/// transition of the fixed-split DP, a unit each (186,034 of them in about 18 ms). A walk by
/// classes is charged the same for each count vector of the clip and each split it opens.
const SPLITS_PER_BUDGET_UNIT: u64 = 4;

/// A split's search is charged at least its tables' entries over this ([`splits_by_bounds`]):
/// filling an entry takes about 10 ns, a DP transition (a unit) about 100.
const ENTRIES_PER_BUDGET_UNIT: u64 = 8;

/// A clip's pass whose tables are over what is left of the budget is tried on this share of it
/// ([`socket_dp::Admission::ByWork`]), all of it counted when the pass is refused: the split
/// searches keep the rest.
const CLIP_ATTEMPT_SHARE: u64 = 4;

/// The surviving splits (least bound first) whose shaped and helper trees
/// [`splits_by_bounds`] builds before its exact search.
const SHAPED_SURVIVORS: usize = 256;

/// Most surviving splits [`splits_by_bounds`] holds (about 60 bytes each on eight units).
const MAX_SURVIVORS: usize = 1 << 20;

/// The split walk checks the deadline once per this many splits (about a millisecond).
const DEADLINE_CHECK_SPLITS: u64 = 1 << 15;

/// The resolution of a score key ([`score_key`]: 10⁻⁶ ns): scores closer than this tie.
const KEY_RESOLUTION_NS: f64 = 1e-6;

/// The answer of a free split whose DP stopped (or was refused): each split's [`stopgap_tree`]
/// (splits without one are skipped; once the deadline has passed, the splits not yet seen),
/// and one bound for all of them, [`stopgap_bound`] over the box of capacities. Bounding each
/// split on its own would cost a truncated pass per split (minutes at 40 threads on four
/// sockets, which have hundreds of splits); the least of those per-split bounds at a given m
/// equals the one box pass at m, since every count vector of m nodes in the box lies below some
/// split of n. (A split alone may afford a larger m than the box, so per-split passes could
/// certify more; on the requests of docs/perf.md the gaps are the same.)
fn split_stopgaps(
    space: &RootedTreeSpace,
    splits: &[Vec<u32>],
    box_counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
    share: u64,
) -> Result<(Vec<Stopgap>, f64), TreeSearchError> {
    let mut trees = Vec::with_capacity(splits.len());
    let mut one = OneSocketTrees::new(space, objective, ctl)?;
    // Up to MAX_LISTED_SPLITS of them, ~0.1 ms each at 100 threads: seconds, so shown.
    ctl.progress.begin(
        &format!("a stopgap tree for each of {} splits", splits.len()),
        Some(splits.len() as u64),
    );
    // The first split listed (the units filled in order, as threads are placed by id), the
    // balanced one and the one filled from the root's unit on also get the shaped and helper
    // trees, so that a free split never starts from a worse tree than the fixed placement of
    // the same threads does, wherever its root is.
    let shaped = representative_splits(space.threads, splits, box_counts, root_socket);
    for counts in splits {
        ctl.progress.advance(1);
        // Hundreds of splits of a few milliseconds each: past the deadline the splits not yet
        // seen get no tree (the best of those seen is still an answer, and the bound below
        // holds for every split).
        if ctl.deadline.passed() && !trees.is_empty() {
            break;
        }
        let fixed = fixed_split(space, counts);
        // Without the shaped trees for the others: five more pricings for each of up to
        // 65,536 splits took 8 × 32 at 100 threads from 3.7 s to 9.8 s (docs/perf.md).
        let shapes = shaped.contains(counts);
        match stopgap_tree_with(
            &fixed,
            counts,
            root_socket,
            objective,
            ctl,
            &mut one,
            shapes,
        ) {
            Ok(t) => trees.push(t),
            Err(TreeSearchError::NoPlacement { .. }) => {}
            Err(e) => {
                ctl.progress.finish();
                return Err(e);
            }
        }
    }
    ctl.progress.finish();
    let least = trees.iter().map(|t| t.score(objective)).reduce(f64::min);
    let bound = stopgap_bound(space, box_counts, root_socket, objective, ctl, share, least)?;
    Ok((trees, bound))
}

/// The best score of simple trees over every split: [`preorder_incumbent`], and the stopgap
/// trees ([`stopgap_tree`], socket-aware) of the [`representative_splits`], as the fallback's
/// split stopgaps have them. Under max the preorder trees alone are far above the optimum
/// (four sockets of 16, 54 threads: 3,561.6 ns, the optimum 2,555.2), and the covering pass
/// of the whole box, cut at the incumbent, then took more than the default budget (1.69 · 10⁹
/// corner pairs) where the stopgaps' 2,973.5 keeps it within (0.62 · 10⁹).
fn split_incumbent(
    space: &RootedTreeSpace,
    splits: &[Vec<u32>],
    box_counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
) -> Result<Option<f64>, TreeSearchError> {
    let side = SideSearch::new(ctl.limits.memory_limit);
    let plain = side.control(ctl.deadline);
    let mut one = OneSocketTrees::new(space, objective, &plain)?;
    let mut incumbent = preorder_incumbent(space, splits, root_socket, objective, &one.whole)?;
    for counts in representative_splits(space.threads, splits, box_counts, root_socket) {
        let fixed = fixed_split(space, &counts);
        let tree = stopgap_tree_with(
            &fixed,
            &counts,
            root_socket,
            objective,
            &plain,
            &mut one,
            true,
        )?;
        let s = tree.score(objective);
        incumbent = Some(incumbent.map_or(s, |i: f64| i.min(s)));
    }
    Ok(incumbent)
}

/// The first split listed (the units filled in order, as threads are placed by id), the
/// balanced one and the one filled from the root's unit on, each once (in that order): the
/// splits whose stopgap trees also get the shaped trees ([`split_stopgaps`]).
fn representative_splits(
    n: u32,
    splits: &[Vec<u32>],
    box_counts: &[u32],
    root_socket: u32,
) -> Vec<Vec<u32>> {
    let mut chosen: Vec<Vec<u32>> = Vec::new();
    let candidates = [
        splits.first().cloned(),
        balanced_split(n, box_counts, root_socket),
        filled_from_root(n, box_counts, root_socket),
    ];
    for counts in candidates.into_iter().flatten() {
        if !chosen.contains(&counts) {
            chosen.push(counts);
        }
    }
    chosen
}

/// The best score of two simple trees over every split: the flat tree and the one-socket
/// optimum `one_socket` (of the request's n threads), each with its nodes placed in preorder
/// (socket 0's threads first). O(splits · n).
fn preorder_incumbent(
    space: &RootedTreeSpace,
    splits: &[Vec<u32>],
    root_socket: u32,
    objective: &Objective,
    one_socket: &TreeOptimum,
) -> Result<Option<f64>, TreeSearchError> {
    let n = space.threads;
    let mut incumbent: Option<f64> = None;
    for levels in [flat_levels(n), one_socket.levels.clone()] {
        let tree = RootedTree::from_levels(&levels).map_err(malformed)?;
        for counts in splits {
            if let Some(labels) = preorder_labels(&tree, counts, root_socket) {
                let c = space.pricing.evaluate(&tree, &labels)?;
                let s = score(objective, &c);
                incumbent = Some(incumbent.map_or(s, |i: f64| i.min(s)));
            }
        }
    }
    Ok(incumbent)
}

/// The most splits a free placement over sockets lists (`splits_of`): 2 MiB of counts at
/// eight sockets, and a stopgap tree each when the DP is over the budget (at most ~0.1 ms each
/// at 100 threads: 3–4 s for all of them on eight sockets, docs/perf.md). Four sockets of 32 hold 23,408 splits of 64 threads; eight sockets of 32
/// hold ~10¹⁰ splits of 100 threads, where no search here can visit every split: the answer is
/// then the best of the splits listed and a balanced one, bounded below over the whole box
/// (`free_split`).
pub const MAX_LISTED_SPLITS: usize = 1 << 16;

/// Splits of the threads over the sockets as listed by `splits_of`.
#[derive(Debug, Clone, PartialEq)]
struct Splits {
    /// In descending lexicographic order (socket 0 holding the most first).
    listed: Vec<Vec<u32>>,
    /// Whether `listed` holds every split (false: the listing stopped at its cap).
    complete: bool,
}

/// Every vector of per-socket counts summing to `n`, each at most `limit[s]`, with at least one
/// thread on `root_socket`; socket 0 holding the most first (descending lexicographic order),
/// at most `max` of them. The walk visits only such vectors (each step lowers one count and
/// refills the sockets after it greedily, which always fits: a suffix takes what it can hold),
/// so it costs O(sockets) per split listed, whatever the box.
fn splits_of(n: u32, limit: &[u32], root_socket: u32, max: usize) -> Splits {
    let mut walk = SplitWalk::new(n, limit, root_socket);
    let mut listed = Vec::new();
    while let Some(split) = walk.next_split() {
        if listed.len() == max {
            return Splits {
                listed,
                complete: false,
            };
        }
        listed.push(split.to_vec());
    }
    Splits {
        listed,
        complete: true,
    }
}

/// The walk of `splits_of` over every split of `n` threads within `limit` with one on the root's
/// socket, descending lexicographic order, one split at a time without listing them: each step
/// lowers one count and refills the sockets after it greedily, which always fits (a suffix takes
/// what it can hold), so it costs O(sockets) per split, whatever the box.
pub(crate) struct SplitWalk {
    /// The counts of the threads walked, over `base` (`None`: no split left).
    cur: Option<Vec<u32>>,
    /// Room of each unit for them.
    room: Vec<u32>,
    /// `suffix[i]`: the room of units i.. (u64: a machine file's capacities may sum past u32).
    suffix: Vec<u64>,
    /// The counts every split holds besides the walked ones (the root's thread).
    base: Vec<u32>,
    /// The split last returned (`cur` with `base`).
    split: Vec<u32>,
    /// Whether `cur` is still to be returned (false once it has been).
    fresh: bool,
}

impl SplitWalk {
    pub(crate) fn new(n: u32, limit: &[u32], root_socket: u32) -> Self {
        let root = root_socket as usize;
        // The root's thread is set aside: the walk lists the other n − 1 with one less room
        // there.
        let mut base = vec![0u32; limit.len()];
        match (n.checked_sub(1), base.get_mut(root), limit.get(root)) {
            (Some(rest), Some(b), Some(&c)) if c > 0 => {
                *b = 1;
                let room = limit.iter().zip(&base).map(|(&c, &b)| c - b).collect();
                SplitWalk::over(rest, room, base)
            }
            _ => SplitWalk::over(0, vec![0; limit.len()], base).done(),
        }
    }

    /// Every vector `base` + e with e ≤ `room` summing to `rest`, in descending lexicographic
    /// order.
    fn over(rest: u32, room: Vec<u32>, base: Vec<u32>) -> Self {
        let s = room.len();
        let mut walk = SplitWalk {
            cur: None,
            suffix: vec![0u64; s + 1],
            split: base.clone(),
            room,
            base,
            fresh: true,
        };
        for i in (0..s).rev() {
            walk.suffix[i] = walk.suffix[i + 1] + u64::from(walk.room[i]);
        }
        if walk.suffix[0] >= u64::from(rest) {
            let mut cur = vec![0u32; s];
            walk.fill(&mut cur, 0, rest);
            walk.cur = Some(cur);
        }
        walk
    }

    /// The walk with nothing left.
    fn done(mut self) -> Self {
        self.cur = None;
        self
    }

    /// The sockets from `from` on take `left` threads, each as many as it holds.
    fn fill(&self, cur: &mut [u32], from: usize, mut left: u32) {
        for (c, &r) in cur[from..].iter_mut().zip(&self.room[from..]) {
            *c = r.min(left);
            left -= *c;
        }
    }

    /// The next split, `None` past the last.
    pub(crate) fn next_split(&mut self) -> Option<&[u32]> {
        if !self.fresh {
            self.step();
        }
        self.fresh = false;
        let cur = self.cur.as_ref()?;
        for ((s, &c), &b) in self.split.iter_mut().zip(cur).zip(&self.base) {
            *s = c + b;
        }
        Some(&self.split)
    }

    /// The next vector down: the rightmost socket i whose count can drop by one while the
    /// sockets after it absorb that thread; then those sockets are refilled greedily.
    fn step(&mut self) {
        let Some(mut cur) = self.cur.take() else {
            return;
        };
        let s = cur.len();
        let mut tail = 0u64;
        let mut next = None;
        for i in (0..s.saturating_sub(1)).rev() {
            tail += u64::from(cur[i + 1]);
            if cur[i] > 0 && tail < self.suffix[i + 1] {
                next = Some((i, tail + 1));
                break;
            }
        }
        if let Some((i, moved)) = next {
            cur[i] -= 1;
            // `moved` ≤ suffix[i + 1] ≤ Σ room, which holds n − 1 < 2³².
            self.fill(&mut cur, i + 1, moved as u32);
            self.cur = Some(cur);
        }
    }
}

/// How many splits `splits_of` would list without a cap (saturating): the bounded
/// compositions of the n − 1 threads besides the root's over the sockets' room, by a truncated
/// product of polynomials, O(sockets · n · room).
fn count_splits(n: u32, limit: &[u32], root_socket: u32) -> u64 {
    let root = root_socket as usize;
    let (Some(rest), Some(&root_room)) = (n.checked_sub(1), limit.get(root)) else {
        return 0;
    };
    if root_room == 0 {
        return 0;
    }
    let rest = rest as usize;
    // ways[t]: vectors over the sockets so far summing to t.
    let mut ways = vec![0u64; rest + 1];
    ways[0] = 1;
    for (s, &c) in limit.iter().enumerate() {
        let room = (if s == root { c - 1 } else { c }) as usize;
        let mut next = vec![0u64; rest + 1];
        for (t, &w) in ways.iter().enumerate() {
            if w == 0 {
                continue;
            }
            for v in 0..=room.min(rest - t) {
                next[t + v] = next[t + v].saturating_add(w);
            }
        }
        ways = next;
    }
    ways[rest]
}

/// The split that fills the units in order from the root's on, wrapping around (the root's,
/// the units after it, then those before it), each to its capacity: the first split listed
/// when the root is on unit 0, and its counterpart for a root elsewhere, where the listing
/// (socket 0 holding the most first) may not reach it (`None` when the units cannot hold `n`).
fn filled_from_root(n: u32, limit: &[u32], root_socket: u32) -> Option<Vec<u32>> {
    let s = limit.len();
    let root = root_socket as usize;
    if root >= s {
        return None;
    }
    let mut counts = vec![0u32; s];
    let mut left = n;
    for u in (root..s).chain(0..root) {
        counts[u] = limit[u].min(left);
        left -= counts[u];
    }
    (left == 0 && counts[root] > 0).then_some(counts)
}

/// The balanced split: threads dealt to the sockets in turn, from the root's socket, skipping
/// full ones (`None` when the sockets cannot hold `n`).
fn balanced_split(n: u32, limit: &[u32], root_socket: u32) -> Option<Vec<u32>> {
    let s = limit.len();
    if root_socket as usize >= s {
        return None;
    }
    let mut counts = vec![0u32; s];
    let mut left = n;
    let mut socket = root_socket as usize;
    let mut idle = 0;
    while left > 0 && idle < s {
        if counts[socket] < limit[socket] {
            counts[socket] += 1;
            left -= 1;
            idle = 0;
        } else {
            idle += 1;
        }
        socket = (socket + 1) % s;
    }
    (left == 0).then_some(counts)
}

/// The space with the threads split as `counts` (threads numbered socket by socket, the root
/// the first thread of its socket).
fn fixed_split(space: &RootedTreeSpace, counts: &[u32]) -> RootedTreeSpace {
    let mut thread_sockets = Vec::new();
    for (s, &c) in counts.iter().enumerate() {
        thread_sockets.extend(std::iter::repeat_n(s as u32, c as usize));
    }
    let root_socket = space.root_socket();
    let root_thread = thread_sockets
        .iter()
        .position(|&s| s == root_socket)
        .unwrap_or(0) as u32;
    RootedTreeSpace {
        threads: space.threads,
        thread_sockets,
        root_thread,
        pricing: space.pricing.clone(),
        capacity: None,
    }
}

/// A DP tree as a [`TreeOptimum`] (preorder levels and sockets).
fn placed_optimum(
    placed: &socket_dp::PlacedTree,
    transitions: u64,
) -> Result<TreeOptimum, TreeSearchError> {
    let tree = RootedTree::from_parents(&placed.parents).map_err(malformed)?;
    let order = tree.preorder();
    let depths = tree.depths();
    Ok(TreeOptimum {
        levels: order.iter().map(|&v| depths[v as usize]).collect(),
        sockets: order.iter().map(|&v| placed.sockets[v as usize]).collect(),
        cost: placed.cost,
        trees: transitions,
        exactness: Exactness::Exact,
    })
}

/// A tree of proven optimal T_max whose tie by T_min was not settled (`socket_dp::Filled::
/// TiesOpen`), bounded by the search's lower bound, the optimum's T_max: its gap is zero.
fn ties_unsettled(
    found: TreeOptimum,
    objective: &Objective,
    reason: StopReason,
    bound: Option<f64>,
) -> TreeOptimum {
    let best = score(objective, &found.cost);
    TreeOptimum {
        exactness: Exactness::bounded(reason, best, bound),
        ..found
    }
}

/// Largest tree the fallback places with the exact two-socket placement DP (its Pareto sets grow
/// quickly with subtree sizes: about 1.5 s at 1,024 nodes, 76 s at 2,048, docs/perf.md); larger
/// trees take the preorder labeling.
const FALLBACK_PLACEMENT_DP_LIMIT: u32 = 512;

/// The best tree a search stopped early (or over its budget) can still afford, for fixed socket
/// counts ([`stopgap_tree`]), marked not exact with `reason` and the certified bound of
/// [`stopgap_bound`] over half the work budget.
fn fallback(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
    reason: StopReason,
) -> Result<TreeOptimum, TreeSearchError> {
    let tree = stopgap_tree(space, counts, root_socket, objective, ctl)?;
    let bound = stopgap_bound(
        space,
        counts,
        root_socket,
        objective,
        ctl,
        ctl.limits.work_budget / TRUNCATED_SHARE,
        Some(tree.score(objective)),
    )?;
    Ok(tree.answer(objective, reason, bound))
}

/// A placed tree of the request that is not proven optimal, before it is marked with why the
/// search stopped and its bound.
#[derive(Debug, Clone)]
struct Stopgap {
    levels: Vec<u32>,
    /// Socket of each node (by preorder position).
    sockets: Vec<u32>,
    cost: Cost,
    /// Work of the one-socket DP that built a candidate.
    trees: u64,
}

impl Stopgap {
    fn score(&self, objective: &Objective) -> f64 {
        score(objective, &self.cost)
    }

    /// The answer of a search that stopped for `reason`, certified by `bound`.
    fn answer(self, objective: &Objective, reason: StopReason, bound: f64) -> TreeOptimum {
        let best = score(objective, &self.cost);
        TreeOptimum {
            levels: self.levels,
            sockets: self.sockets,
            cost: self.cost,
            trees: self.trees,
            exactness: Exactness::bounded(reason, best, Some(bound)),
        }
    }
}

/// The best of a few simple placed trees for fixed socket counts: the socket-aware
/// [`leaders_tree`], the one-socket DP tree (itself bounded by the time and budget left) and
/// the flat tree, the last two placed exactly by the two-socket placement DP when small enough
/// (and time is left: that DP cannot be interrupted), else by [`preorder_labels`], then the
/// [`shaped_trees`]. Ties: that order. Each part is bounded by the deadline, so this costs O(n²) at most after a stop.
fn stopgap_tree(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
) -> Result<Stopgap, TreeSearchError> {
    let mut one = OneSocketTrees::new(space, objective, ctl)?;
    stopgap_tree_with(space, counts, root_socket, objective, ctl, &mut one, true)
}

/// The one-socket DP trees the stopgap trees are made of: the request's n threads (`whole`),
/// and each count a unit holds in [`leaders_tree`], built on first use. A free split asks for
/// the same few counts in each of up to [`MAX_LISTED_SPLITS`] splits, so each is built once:
/// rebuilding them was three quarters of the stopgaps' time (65 threads on eight L3 domains).
struct OneSocketTrees {
    whole: TreeOptimum,
    /// Preorder levels of the one-socket tree of each count asked for so far (at most
    /// [`LEADERS_DP_LIMIT`] nodes each, so at most ~8 MiB in all).
    parts: std::collections::BTreeMap<u32, Vec<u32>>,
}

impl OneSocketTrees {
    fn new(
        space: &RootedTreeSpace,
        objective: &Objective,
        ctl: &Control,
    ) -> Result<Self, TreeSearchError> {
        Ok(Self {
            whole: dp_in(&*space.pricing, space.threads, objective, ctl)?,
            parts: std::collections::BTreeMap::new(),
        })
    }

    /// The one-socket tree of `c` threads as preorder levels: the DP's when it answers, else
    /// a star (a unit's part is only a candidate).
    fn part(
        &mut self,
        pricing: &dyn LevelCost,
        c: u32,
        objective: &Objective,
        ctl: &Control,
    ) -> &[u32] {
        self.parts.entry(c).or_insert_with(|| match c {
            1 => vec![0],
            _ => dp_in(pricing, c, objective, ctl).map_or_else(|_| flat_levels(c), |t| t.levels),
        })
    }
}

/// [`stopgap_tree`] with the one-socket DP trees of `one` (the same for every split of a free
/// split); `shapes`: also try the [`shaped_trees`].
fn stopgap_tree_with(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
    one: &mut OneSocketTrees,
    shapes: bool,
) -> Result<Stopgap, TreeSearchError> {
    let n = space.threads;
    // (ranking key, preorder levels, socket by node id, cost) of the best so far.
    type Placed = ((i64, i64), Vec<u32>, Vec<u32>, Cost);
    let mut best: Option<Placed> = None;
    if let Some((levels, by_node)) = leaders_tree(space, counts, root_socket, objective, ctl, one) {
        let tree = RootedTree::from_levels(&levels).map_err(malformed)?;
        let cost = space.pricing.evaluate(&tree, &by_node)?;
        best = Some((
            cost_key(objective, cost.min_ns, cost.max_ns),
            levels,
            by_node,
            cost,
        ));
    }
    for levels in [one.whole.levels.clone(), flat_levels(n)] {
        let tree = RootedTree::from_levels(&levels).map_err(malformed)?;
        let exact_placement =
            counts.len() <= 2 && n <= FALLBACK_PLACEMENT_DP_LIMIT && !ctl.deadline.passed();
        let placed = if exact_placement {
            placement::dp(&tree, counts, root_socket, &*space.pricing, objective)
                .map(|p| (p.sockets, p.cost))
        } else {
            match preorder_labels(&tree, counts, root_socket) {
                Some(labels) => {
                    let cost = space.pricing.evaluate(&tree, &labels)?;
                    Some((labels, cost))
                }
                None => None,
            }
        };
        let Some((by_node, cost)) = placed else {
            continue;
        };
        let key = cost_key(objective, cost.min_ns, cost.max_ns);
        if best.as_ref().is_none_or(|(k, ..)| key < *k) {
            // Node ids of RootedTree::from_levels are preorder positions.
            best = Some((key, levels, by_node, cost));
        }
    }
    // The shapes the graph-priced search starts from (docs/cla.md §12), with the nodes in
    // socket order: complete 2-, 3-, 4- and 8-ary trees and the binomial tree. On L3 domains as
    // units these beat the three trees above from 48 threads on (docs/cla.md §13).
    let shaped = if shapes {
        let mut trees = shaped_trees(counts, root_socket);
        trees.extend(helpers_trees(space, counts, root_socket, objective, ctl)?);
        trees
    } else {
        Vec::new()
    };
    for (levels, by_node) in shaped {
        if ctl.deadline.passed() {
            break;
        }
        let tree = RootedTree::from_levels(&levels).map_err(malformed)?;
        let cost = space.pricing.evaluate(&tree, &by_node)?;
        let key = cost_key(objective, cost.min_ns, cost.max_ns);
        if best.as_ref().is_none_or(|(k, ..)| key < *k) {
            best = Some((key, levels, by_node, cost));
        }
    }
    let (_, levels, sockets, cost) = best.ok_or(TreeSearchError::NoPlacement {
        counts: counts.to_vec(),
        root: root_socket,
    })?;
    Ok(Stopgap {
        levels,
        sockets,
        cost,
        trees: one.whole.trees,
    })
}

/// The certified lower bound a stopped search reports for fixed counts (or, for a free split,
/// the box of the sockets' capacities: then it holds for every split): the larger of the
/// recurrences [`socket_dp::lower_bound`] and [`socket_dp::lower_bound_by_height`], raised by
/// [`truncated_bound`] over `share` work units (when its pass completes before the deadline).
fn stopgap_bound(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
    share: u64,
    incumbent: Option<f64>,
) -> Result<f64, TreeSearchError> {
    let n = space.threads;
    let bound = recurrence_bound(space, counts)?;
    Ok(
        match truncated_bound(
            space,
            counts,
            n,
            root_socket,
            objective,
            ctl,
            share,
            incumbent,
        ) {
            Some(b) => bound.max(b),
            None => bound,
        },
    )
}

/// The larger of the recurrences [`socket_dp::lower_bound`] and
/// [`socket_dp::lower_bound_by_height`] for `counts` (or a box of capacities): O(n²), no pass
/// over count vectors.
fn recurrence_bound(space: &RootedTreeSpace, counts: &[u32]) -> Result<f64, TreeSearchError> {
    let n = space.threads;
    let classes = line_classes(space)?;
    Ok(socket_dp::lower_bound(&classes, n, counts.len() as u32)
        .max(socket_dp::lower_bound_by_height(&classes, n, counts).unwrap_or(f64::NEG_INFINITY)))
}

/// Whether the exact search of `counts` (or a free split within that box) under `objective`
/// starts with the covering pass (docs/cla.md §11): then the pass's own certified bound, once
/// complete, is at least the refusal's truncated bound (the same pass over the whole box, or
/// over a smaller one), so a time-limited search need not compute that bound beforehand.
/// Under min only. Max and blends start with a covering pass too (over a relaxation), but a
/// stop inside it leaves only the recurrences, which bound T_min: measured at 4 × 16 under max,
/// `--time-limit 1` reported a gap of 448.5 % that way against 29.8 % with the refusal's bound
/// built first (its clips are smaller passes, done within the limit). Nor when the search
/// budgets its partial nodes by envelopes (L3 domains, or suffix states past the memory
/// limit or the work budget where the envelopes are within them; `socket_dp::by_envelopes`):
/// its pass over the whole box is then the long part of
/// the search (1.5 s of 2.2 at 46 domain-line threads), and `--time-limit 0.5` or `1.5` at
/// 46 threads reported 130.1 % from the recurrences where the refusal's clips certify
/// 1.8–8.6 %.
fn search_covers(
    space: &RootedTreeSpace,
    counts: &[u32],
    objective: &Objective,
    limits: &Limits,
) -> bool {
    let room = (limits.memory_limit, limits.work_budget);
    *objective == Objective::Min
        && space.pricing.line_classes().is_some_and(|classes| {
            let widest = counts.iter().copied().max().unwrap_or(0);
            socket_dp::exact_memory_within(&classes, objective, counts, widest, None)
                <= limits.memory_limit
                && !socket_dp::by_envelopes(&classes, objective, counts, room)
        })
}

/// A certified lower bound on every tree and placement of `counts` from the covering pass
/// (docs/cla.md §11) over a smaller box, when the request's own box is over `affordable` work
/// units or the pass's memory cap. Two forms:
///
/// - *A fixed split* (`counts` sums to `n`): a *clip* `within` of `counts` (every unit at most
///   its count and at least 1 where the request has threads). Every tree of the request holds
///   at least `within` on every unit, so the least T_min of the trees that do, T̂(root, within)
///   ([`socket_dp::clipped_covering_bound`]), is a bound; it grows with the clip, and keeps the
///   request's shape (every unit's share), which the second form gives up. The largest clip
///   whose tables fit `affordable` is every unit cut to the largest m that fits, then units
///   raised to m + 1 one at a time (the root's unit first, then ascending) while it still fits;
///   but a pass's work (corner pairs) is not known before it runs, and the largest clip's may
///   be over the share (two sockets of 2,048 threads). So the passes run smallest clip first,
///   from one node per unit, at every fourfold growth of the count vectors, and stop at the
///   first that fails, or when the next is predicted over the share ([`growing_passes`]);
///   the bound is the last completed pass's. Each pass may take the whole share, so at most
///   twice the share is spent.
///   Measured (docs/perf.md): 48 threads on six L3 domains of eight, the bound 575.8 → 1,254.3
///   ns (the clip 5 × 5 × 5 × 5 × 5 × 4), the gap 130.1 → 5.6 %.
/// - *A free split* (`counts` is a box of capacities holding more than the `n` threads), first
///   a clip of every split at once: cut every unit to m (growing passes up to the largest m
///   whose tables fit, as for a fixed split, [`growing_passes`]); every
///   split c of n has a clip min(c, m) of at least t nodes ([`least_clipped_total`]), and every
///   tree of c covers its clip, which lies above some count vector of t nodes (the root's unit
///   non-empty), so the least covering value over those vectors
///   ([`socket_dp::least_score_of_clipped_splits`]) bounds every split. Measured: 48 threads on
///   the L3 domains of `chiplet-2s-4x8-domain-lines`, gap 130.0 → 14.1 %.
///   When no clip's tables fit (for either kind of split), the older form: a box of
///   at most m nodes per unit, read at every count vector of m nodes. Removing a leaf never makes
///   a tree costlier (every term of the socket-line form is non-decreasing in a group's arrivals
///   and count, and a group or a level that disappears only removes terms), so removing leaves
///   down to m nodes (never the root) leaves a tree of some counts D ≤ `counts` with |D| = m,
///   the root on its unit, that costs no more; and the covering value of D is at most the least
///   T_min of the trees of exactly D ([`socket_dp::least_score_of_total`]). Every split of n
///   within the box reduces so, and the bound holds for every split at once.
///
/// Either way the bound is the request's own covering value when its whole box fits. Under
/// min it bounds T_min (so every score); under max and blends the pass prices the relaxation
/// of `objective`'s score (docs/cla.md §11 "Bounds under max and blends"), and every form
/// above holds for it as written (its terms are non-decreasing in the counts and arrivals too). `None` when no box fits (m ≥ 1 for a fixed
/// split, m ≥ 2 for a free one), the pricing has no socket-line form, the deadline passes first
/// or the pass runs out of its corner pairs.
///
/// `incumbent`: the least score under `objective` (offset included) of the request's stopgap
/// trees, real trees of n nodes within `counts`. The value sought is at most it, so it cuts the covering pass without
/// changing the bound (about half the time at 4 × 16).
#[allow(clippy::too_many_arguments)]
fn truncated_bound(
    space: &RootedTreeSpace,
    counts: &[u32],
    n: u32,
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
    affordable: u64,
    incumbent: Option<f64>,
) -> Option<f64> {
    if ctl.deadline.passed() || n < 2 {
        return None;
    }
    let classes = space.pricing.line_classes()?;
    // The share, and the time left when a pass starts: a Limits holds a duration, so one made
    // here would give every later pass the whole of it again.
    let limits = || Limits {
        work_budget: affordable,
        ..ctl.remaining()
    };
    let box_of = |m: u32| -> Vec<u32> { counts.iter().map(|&c| c.min(m)).collect() };
    // The largest m ≥ `least` whose box `box_of(m)` passes `fits`, by bisection (the box, and
    // so its size, grows with m).
    let largest = |least: u32, fits: &dyn Fn(&[u32]) -> bool| -> Option<u32> {
        if !fits(&box_of(least)) {
            return None;
        }
        let (mut lo, mut hi) = (least, n);
        while lo < hi {
            let mid = hi - (hi - lo) / 2;
            if fits(&box_of(mid)) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    };
    let fixed_split = counts.iter().map(|&c| u64::from(c)).sum::<u64>() == u64::from(n);
    // A clip's tables: its count vectors, a group as wide as the request's widest unit (cut
    // at the incumbent), within the share.
    let widest = counts.iter().copied().max().unwrap_or(0);
    let fits_clip = |b: &[u32]| {
        socket_dp::bound_memory_within(&classes, objective, b, widest, incumbent)
            <= ctl.limits.memory_limit
            && socket_dp::bound_estimate_within(&classes, objective, b, widest, incumbent).units
                <= affordable
    };
    let order: Vec<usize> = std::iter::once(root_socket as usize)
        .chain((0..counts.len()).filter(|&u| u != root_socket as usize))
        .collect();
    if let (true, Some(m)) = (fixed_split, largest(1, &fits_clip)) {
        let mut last = box_of(m);
        for &u in &order {
            if counts.get(u).is_some_and(|&c| c > last[u]) {
                last[u] += 1;
                if !fits_clip(&last) {
                    last[u] -= 1;
                }
            }
        }
        // Smallest clips first, from one node per unit towards `last`, raising units in turn
        // (the root's first) and passing a clip at every fourfold growth of its count vectors
        // (measured at 48 domain-line threads: 1, 3, 14, 58 ms, then the last in 293 ms).
        let mut clips = vec![box_of(1)];
        let mut clip = box_of(1);
        while clip != last {
            for &u in &order {
                if clip[u] < last[u] {
                    clip[u] += 1;
                    if count_vectors(&clip) >= 4.0 * clips.last().map_or(0.0, |c| count_vectors(c))
                    {
                        clips.push(clip.clone());
                    }
                }
            }
        }
        // Where the next clip is predicted past the share, the largest clip on the way to it
        // that is predicted within it (units raised in the same turn): a clip four times
        // smaller than the one that does not fit bounds far less (128 domain-line threads:
        // 29.8 % against 26.2 % once memory no longer capped the last clip).
        let between = |from: &[u32], most_states: f64| -> Option<Vec<u32>> {
            let mut clip = from.to_vec();
            let mut grown = false;
            loop {
                let mut raised = false;
                for &u in &order {
                    if clip[u] < last[u] {
                        clip[u] += 1;
                        if count_vectors(&clip) > most_states {
                            clip[u] -= 1;
                            return grown.then_some(clip);
                        }
                        raised = true;
                        grown = true;
                    }
                }
                if !raised {
                    return grown.then_some(clip);
                }
            }
        };
        return growing_passes(
            &pass_plan(clips, last.clone()),
            affordable,
            between,
            |clip| {
                socket_dp::clipped_covering_bound(
                    &classes,
                    objective,
                    counts,
                    clip,
                    root_socket,
                    incumbent,
                    &limits(),
                    ctl.progress,
                )
                .ok()
                .flatten()
            },
        );
    }
    // A free split: a clip of every split at once, every unit cut to m = 1, 2, …, m_max (a
    // cut whose clips may hold a single node bounds nothing).
    if let (false, Some(m_max)) = (fixed_split, largest(1, &fits_clip)) {
        let mut cuts: Vec<Vec<u32>> = Vec::new();
        for m in (1..m_max).filter(|&m| least_clipped_total(counts, n, m) >= 2) {
            let here = box_of(m);
            if count_vectors(&here) >= 4.0 * cuts.last().map_or(0.0, |c| count_vectors(c)) {
                cuts.push(here);
            }
        }
        let no_step_between = |_: &[u32], _: f64| None;
        return growing_passes(
            &pass_plan(cuts, box_of(m_max)),
            affordable,
            no_step_between,
            |within| {
                // The box is every capacity cut to m, so m is its widest unit.
                let m = within.iter().copied().max().unwrap_or(0);
                let total = least_clipped_total(counts, n, m);
                if total < 2 {
                    return Some(socket_dp::ClippedBound {
                        bound: None,
                        pairs: 0,
                    });
                }
                socket_dp::least_score_of_clipped_splits(
                    &classes,
                    objective,
                    counts,
                    within,
                    total,
                    root_socket,
                    incumbent,
                    &limits(),
                    ctl.progress,
                )
                .ok()
                .flatten()
            },
        );
    }
    // No clip fits: a box of m ≥ 2 nodes per unit, read at a smaller total.
    let fits = |b: &[u32]| {
        let widest = b.iter().copied().max().unwrap_or(0);
        socket_dp::bound_memory_within(&classes, objective, b, widest, None)
            <= ctl.limits.memory_limit
            && socket_dp::bound_estimate_within(&classes, objective, b, widest, None).units
                <= affordable
    };
    let m = largest(2, &fits)?;
    socket_dp::least_score_of_total(
        &classes,
        objective,
        &box_of(m),
        m,
        root_socket,
        incumbent,
        &limits(),
        ctl.progress,
    )
    .ok()
    .flatten()
}

/// The count vectors of a box (f64: only compared and divided).
fn count_vectors(b: &[u32]) -> f64 {
    b.iter().map(|&c| f64::from(c) + 1.0).product()
}

/// The boxes [`growing_passes`] runs: `steps` (growing), without those within a fourth of
/// `last`'s count vectors (a pass just below the last costs nearly as much and bounds less),
/// then `last`.
fn pass_plan(mut steps: Vec<Vec<u32>>, last: Vec<u32>) -> Vec<Vec<u32>> {
    let last_states = count_vectors(&last);
    steps.retain(|b| 4.0 * count_vectors(b) <= last_states);
    steps.push(last);
    steps.dedup();
    steps
}

/// Covering passes over `boxes`, smallest first (`run` gives a pass's bound and work, `None`
/// when it did not complete), the best bound of those that completed: each pass's work tells
/// what the next will cost (× its growth in count vectors^[`CLIP_WORK_GROWTH`]), and a pass
/// predicted past `affordable` work units in all is not started; in its place one last pass
/// runs over `between(previous box, most count vectors predicted within the rest)` when that
/// gives a box (a larger one on the way to the plan's last). The passes stop at the first that fails or
/// once their work reaches it. Each pass may itself take `affordable`, so at most twice that is
/// spent.
fn growing_passes(
    boxes: &[Vec<u32>],
    affordable: u64,
    between: impl Fn(&[u32], f64) -> Option<Vec<u32>>,
    mut run: impl FnMut(&[u32]) -> Option<socket_dp::ClippedBound>,
) -> Option<f64> {
    let allowance = affordable.saturating_mul(socket_dp::BOUND_PAIRS_PER_BUDGET_UNIT);
    let (mut spent, mut best) = (0u64, None::<f64>);
    let mut previous: Option<(&[u32], f64, u64)> = None;
    let keep = |best: &mut Option<f64>, bound: Option<f64>| {
        if let Some(b) = bound {
            *best = Some(best.map_or(b, |a: f64| a.max(b)));
        }
    };
    for within in boxes {
        if let Some((last_box, last_states, last_pairs)) = previous {
            let growth = |states: f64| (states / last_states).powf(CLIP_WORK_GROWTH);
            let left = allowance as f64 - spent as f64;
            if last_pairs as f64 * growth(count_vectors(within)) > left {
                // The largest box on the way whose predicted work fits what is left.
                let most = last_states * (left / last_pairs as f64).powf(1.0 / CLIP_WORK_GROWTH);
                if let Some(pass) = between(last_box, most).and_then(|b| run(&b)) {
                    keep(&mut best, pass.bound);
                }
                break;
            }
        }
        let Some(pass) = run(within) else {
            break;
        };
        spent = spent.saturating_add(pass.pairs);
        keep(&mut best, pass.bound);
        if spent >= allowance {
            break;
        }
        previous = Some((within, count_vectors(within), pass.pairs.max(1)));
    }
    best
}

/// A lower bound on Σ_u min(c_u, m) over every split c of `n` threads within `capacity`
/// (Σ c = n, c_u ≤ capacity_u): how many nodes the clip of every split to m per unit holds at
/// least. min(c, m) is concave in c, so on [0, capacity_u] it is at least the chord
/// c · min(capacity_u, m) / capacity_u; the least of Σ of chords is a fractional knapsack,
/// filled greedily from the unit of the smallest slope (ties: the lower unit). Exact when the
/// capacities are equal and n a multiple of one (48 threads on eight domains of 8, m = 2: 12).
fn least_clipped_total(capacity: &[u32], n: u32, m: u32) -> u32 {
    let mut units: Vec<(f64, u32)> = capacity
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| (f64::from(c.min(m)) / f64::from(c), c))
        .collect();
    units.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut left, mut sum) = (n, 0.0f64);
    for (slope, cap) in units {
        let take = left.min(cap);
        sum += f64::from(take) * slope;
        left -= take;
    }
    // Float sums of exact quotients: a hair below an integer is that integer.
    (sum - 1e-9).ceil().max(0.0) as u32
}

/// How a covering pass's work grows with its box, for [`truncated_bound`]'s next clip: pairs
/// × (states ratio)^this. Measured growth is below it (two sockets cut to 200 → 400 nodes each,
/// 4× the states: 2.8× the time; six L3 domains cut to 3 → 4 nodes: 3.8× the states, 3.9× the
/// time; 4 → 5 and 4: 2.1×, 2.8×), so the prediction errs towards not starting a pass.
const CLIP_WORK_GROWTH: f64 = 1.5;

/// [`truncated_bound`] may spend this fraction (1/…) of the work budget.
const TRUNCATED_SHARE: u64 = 2;

/// The largest socket count [`leaders_tree`] builds a one-socket DP for.
const LEADERS_DP_LIMIT: u32 = 2048;

/// A socket-aware candidate for the [`fallback`]: each socket's threads form the one-socket
/// optimum of their count, the root's socket around the root, every other socket's below a
/// leader that is a child of the root (ascending sockets). Preorder levels and the socket of
/// each node (by preorder position); `None` when the threads use one socket. Each socket's
/// part comes from `one` (built there on first use).
fn leaders_tree(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
    one: &mut OneSocketTrees,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let used = counts.iter().filter(|&&c| c > 0).count();
    let root_count = counts.get(root_socket as usize).copied().unwrap_or(0);
    // Each socket's part is a one-socket DP, O(c²): past a few thousand threads per socket it
    // would cost more than the fallback it serves (measured: 100,000 threads, +6 s).
    if used < 2 || root_count == 0 || counts.iter().any(|&c| c > LEADERS_DP_LIMIT) {
        return None;
    }
    let mut levels = Vec::with_capacity(space.threads as usize);
    let mut sockets = Vec::with_capacity(space.threads as usize);
    let order = std::iter::once(root_socket)
        .chain((0..counts.len() as u32).filter(|&s| s != root_socket && counts[s as usize] > 0));
    for s in order {
        let part = one.part(&*space.pricing, counts[s as usize], objective, ctl);
        let shift = u32::from(s != root_socket);
        levels.extend(part.iter().map(|&l| l + shift));
        sockets.extend(std::iter::repeat_n(s, part.len()));
    }
    Some((levels, sockets))
}

/// The exact socket DP, or (over the budget, or stopped by the time limit) the [`fallback`].
///
/// Within the budget, the fallback's tree ([`stopgap_tree`]) is built first: it is the DP's
/// incumbent, and the answer if the DP stops. Under a time limit its certified bound
/// ([`stopgap_bound`]) is computed first too, over the share of the work budget the refusal
/// path gets at the default budget, so that a stop by the time limit answers at once (no work
/// after the deadline) with a certificate never weaker than the refusal's: a user who grants
/// more budget and time never gets a weaker answer than one who does not.
fn socket_optimum(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
) -> Result<TreeOptimum, TreeSearchError> {
    let stopgap = match dp_admits(space, counts, objective, ctl.limits, None) {
        // The DP is within budget here, so n is small and the simple trees take microseconds.
        Ok(()) => stopgap_tree(space, counts, root_socket, objective, ctl)?,
        // Sized without an incumbent, a group of the covering pass holds as many trees as the
        // widest unit; with the stopgap tree's score, only as many as can beat it, which is
        // what the pass allocates. Asked again with it.
        Err(StopReason::MemoryLimit { .. }) => {
            let stopgap = stopgap_tree(space, counts, root_socket, objective, ctl)?;
            let incumbent = Some(stopgap.score(objective));
            if let Err(reason) = dp_admits(space, counts, objective, ctl.limits, incumbent) {
                let reason = confirmed_need(reason, ctl.limits, |raised| {
                    admitted_with(space, counts, objective, raised, incumbent)
                });
                return fallback(space, counts, root_socket, objective, ctl, reason);
            }
            stopgap
        }
        Err(reason) => return fallback(space, counts, root_socket, objective, ctl, reason),
    };
    // Under a time limit the refusal's bound is built first, unless the search's own covering
    // pass gives it (computing it twice cost 0.3 s of 0.9 at 4 × 16).
    let early_bound = match ctl.limits.time_limit {
        Some(_) if !search_covers(space, counts, objective, ctl.limits) => Some(stopgap_bound(
            space,
            counts,
            root_socket,
            objective,
            ctl,
            stopgap_share(ctl.limits),
            Some(stopgap.score(objective)),
        )?),
        _ => None,
    };
    let outcome = socket_dp::optimal(
        &line_classes(space)?,
        counts,
        root_socket,
        objective,
        Some(stopgap.score(objective)),
        &ctl.remaining(),
        ctl.progress,
    )?;
    let transitions = outcome.transitions;
    if let Some(placed) = outcome.best {
        let found = placed_optimum(&placed, transitions)?;
        return Ok(match outcome.filled {
            socket_dp::Filled::TiesOpen(reason) => ties_unsettled(
                found,
                objective,
                ctl.command_reason(reason),
                outcome.lower_bound,
            ),
            _ => found,
        });
    }
    let covered = outcome.lower_bound.is_some();
    let early_bound = in_hand(space, counts, early_bound, outcome.lower_bound)?;
    match outcome.filled {
        socket_dp::Filled::Stopped(reason) => {
            let reason = ctl.command_reason(reason);
            let bound = match (early_bound, reason) {
                (Some(b), StopReason::TimeLimit { .. }) => b,
                // The search's own covering bound is at least the refusal's.
                (Some(b), _) if covered => b,
                // Stopped by the work budget (Pareto points): the refusal's bound, in the time
                // left, and never below the one in hand.
                (early, _) => {
                    let late = stopgap_bound(
                        space,
                        counts,
                        root_socket,
                        objective,
                        ctl,
                        ctl.limits.work_budget / TRUNCATED_SHARE,
                        Some(stopgap.score(objective)),
                    )?;
                    early.map_or(late, |b| b.max(late))
                }
            };
            let mut t = stopgap.answer(objective, reason, bound);
            t.trees += transitions;
            Ok(t)
        }
        socket_dp::Filled::Complete | socket_dp::Filled::TiesOpen(_) => {
            Err(TreeSearchError::NoPlacement {
                counts: counts.to_vec(),
                root: root_socket,
            })
        }
    }
}

/// The work the bound computed before a time-limited exact search may take: what the refusal
/// path takes at the default budget (1/[`TRUNCATED_SHARE`] of it), or at a smaller budget the
/// user set. A larger budget does not buy a costlier bound up front, which would delay every
/// exact answer; it still buys the exact search.
fn stopgap_share(limits: &Limits) -> u64 {
    limits.work_budget.min(DEFAULT_WORK_BUDGET) / TRUNCATED_SHARE
}

/// The bound a stopped exact search has in hand: the one built before it, and the covering
/// bound of its own first pass (raised by the recurrences, as a built bound is), the larger.
fn in_hand(
    space: &RootedTreeSpace,
    counts: &[u32],
    early: Option<f64>,
    covering: Option<f64>,
) -> Result<Option<f64>, TreeSearchError> {
    let covering = match covering {
        Some(b) => Some(b.max(recurrence_bound(space, counts)?)),
        None => None,
    };
    Ok(match (early, covering) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    })
}

/// A placed tree as (preorder levels, unit by preorder node).
type LevelsAndUnits = (Vec<u32>, Vec<u32>);

/// Largest request [`helpers_trees`] builds: for h = 1 ..= H helpers (H = [`MAX_HELPERS`])
/// and two orders it prices h stars of at most n nodes per leaf, H(H + 1) · n stars in all,
/// O(H² · n²); the whole command at 256 threads (a 2 × 16 × 8 domain-line file) takes 0.8 s.
const HELPERS_LIMIT: u32 = 256;

/// Two-level *helper trees*: the root notifies h helpers on its own unit (h = 1 ..= the
/// unit's other threads, at most [`MAX_HELPERS`]), and every other thread is a leaf of one
/// helper. The leaves are dealt one at a time, farthest units first (other sockets, then the
/// other units of the root's socket, then the root's own; descending unit numbers within a
/// class), either unit by unit or round-robin over the units, each to the helper whose star
/// then costs least (the objective's key of the helper with its leaves as a tree of its own,
/// then the lower helper): a min-max deal of the leaves, since the root waits for its slowest
/// helper.
///
/// This is the shape the exact DP proves optimal on L3 domains as units at 33–40 and 48 threads
/// (docs/cla.md §13): helpers in the root's domain, each notifying whole groups of other
/// domains on their own lines, so that the groups' many-to-one chains run in parallel. No
/// complete k-ary tree and no one-socket tree has it; past the DP's reach it took the
/// stopgap at 48 threads from 1,596.3 ns to 1,324.8 (the optimum is 1,300.8, docs/perf.md).
/// Returned as (preorder levels, unit by preorder node); empty past [`HELPERS_LIMIT`]
/// nodes, without the socket-line form, with no other thread on the root's unit, or once the
/// deadline passes.
fn helpers_trees(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
) -> Result<Vec<LevelsAndUnits>, TreeSearchError> {
    let n: u32 = counts.iter().sum();
    let Some(classes) = space.pricing.line_classes() else {
        return Ok(Vec::new());
    };
    let Some(&root_count) = counts.get(root_socket as usize) else {
        return Ok(Vec::new());
    };
    if !(3..=HELPERS_LIMIT).contains(&n) || root_count < 2 {
        return Ok(Vec::new());
    }
    let mut units: Vec<u32> = (0..counts.len() as u32)
        .filter(|&u| counts[u as usize] > 0)
        .collect();
    units.sort_by_key(|&u| (classes.relation(root_socket, u), u));
    let far_first: Vec<u32> = units.iter().rev().copied().collect();
    let mut out = Vec::new();
    // The key of a helper's star with leaves on `leaves` (units), as a tree of its own, priced
    // once per leaf sequence: helpers dealt alike hold the same sequences, and pricing was
    // most of this function's time (16 threads on two L3 domains: 504 stars, 0.4 ms, more
    // than the exact DP it gives an incumbent to).
    let mut priced: std::collections::HashMap<Vec<u32>, (i64, i64)> =
        std::collections::HashMap::new();
    let mut star = |leaves: &[u32]| -> Result<(i64, i64), TreeSearchError> {
        if let Some(&key) = priced.get(leaves) {
            return Ok(key);
        }
        let mut parents = vec![None];
        parents.extend(std::iter::repeat_n(Some(0), leaves.len()));
        let mut labels = vec![root_socket];
        labels.extend_from_slice(leaves);
        let tree = RootedTree::from_parents(&parents).map_err(malformed)?;
        let cost = space.pricing.evaluate(&tree, &labels)?;
        let key = cost_key(objective, cost.min_ns, cost.max_ns);
        priced.insert(leaves.to_vec(), key);
        Ok(key)
    };
    for helpers in 1..root_count.min(MAX_HELPERS + 1) {
        let mut left = counts.to_vec();
        left[root_socket as usize] -= 1 + helpers;
        for order in [by_unit(&far_first, &left), round_robin(&far_first, &left)] {
            let mut loads: Vec<Vec<u32>> = vec![Vec::new(); helpers as usize];
            for &unit in &order {
                if ctl.deadline.passed() {
                    return Ok(out);
                }
                let mut best: Option<((i64, i64), usize)> = None;
                for (h, load) in loads.iter_mut().enumerate() {
                    load.push(unit);
                    let key = star(load)?;
                    load.pop();
                    if best.is_none_or(|(k, _)| key < k) {
                        best = Some((key, h));
                    }
                }
                if let Some((_, h)) = best {
                    loads[h].push(unit);
                }
            }
            // Preorder: the root, then each helper followed by its leaves.
            let mut levels = vec![0];
            let mut labels = vec![root_socket];
            for load in &loads {
                levels.push(1);
                labels.push(root_socket);
                levels.extend(std::iter::repeat_n(2, load.len()));
                labels.extend_from_slice(load);
            }
            out.push((levels, labels));
        }
    }
    Ok(out)
}

/// Most helpers below the root in [`helpers_trees`] (the optima it imitates have 4 at 40
/// threads and 6 at 48).
const MAX_HELPERS: u32 = 16;

/// Every node of `left` unit by unit, in `units` order.
fn by_unit(units: &[u32], left: &[u32]) -> Vec<u32> {
    units
        .iter()
        .flat_map(|&u| std::iter::repeat_n(u, left[u as usize] as usize))
        .collect()
}

/// Every node of `left`, one per unit in turn, in `units` order.
fn round_robin(units: &[u32], left: &[u32]) -> Vec<u32> {
    let total: u32 = units.iter().map(|&u| left[u as usize]).sum();
    let mut remaining = left.to_vec();
    let mut order = Vec::with_capacity(total as usize);
    while order.len() < total as usize {
        for &u in units {
            if remaining[u as usize] > 0 {
                remaining[u as usize] -= 1;
                order.push(u);
            }
        }
    }
    order
}

/// Complete k-ary trees (k = 2, 3, 4, 8) and the binomial tree over the nodes in socket order
/// (the root, the rest of its socket, then each other socket ascending), as (preorder levels,
/// socket by preorder node). Empty when the counts do not hold the root.
fn shaped_trees(counts: &[u32], root_socket: u32) -> Vec<(Vec<u32>, Vec<u32>)> {
    let Some(&root_count) = counts.get(root_socket as usize) else {
        return Vec::new();
    };
    if root_count == 0 {
        return Vec::new();
    }
    let mut order = vec![root_socket; root_count as usize];
    for (s, &c) in counts.iter().enumerate() {
        if s as u32 != root_socket {
            order.extend(std::iter::repeat_n(s as u32, c as usize));
        }
    }
    let n = order.len();
    if n < 2 {
        return Vec::new();
    }
    let mut shapes: Vec<Vec<Option<u32>>> = [2usize, 3, 4, 8]
        .iter()
        .map(|&k| {
            (0..n)
                .map(|i| (i > 0).then(|| ((i - 1) / k) as u32))
                .collect()
        })
        .collect();
    // The binomial tree: position i's parent is i without its highest set bit.
    shapes.push(
        (0..n)
            .map(|i| {
                (i > 0).then(|| (i - (1usize << (usize::BITS - 1 - i.leading_zeros()))) as u32)
            })
            .collect(),
    );
    shapes
        .into_iter()
        .filter_map(|parents| {
            let tree = RootedTree::from_parents(&parents).ok()?;
            let depths = tree.depths();
            let pre = tree.preorder();
            let levels = pre.iter().map(|&v| depths[v as usize]).collect();
            let labels = pre.iter().map(|&v| order[v as usize]).collect();
            Some((levels, labels))
        })
        .collect()
}

/// A labeling of `tree` with `counts[s]` nodes on socket s and the root on `root_socket`: the
/// other nodes take the sockets in ascending order, in preorder. `None` when the counts do not
/// fit.
fn preorder_labels(tree: &RootedTree, counts: &[u32], root_socket: u32) -> Option<Vec<u32>> {
    let mut left = counts.to_vec();
    let slot = left.get_mut(root_socket as usize)?;
    *slot = slot.checked_sub(1)?;
    let mut labels = vec![0u32; tree.len()];
    labels[tree.root() as usize] = root_socket;
    let mut s = 0usize;
    for v in tree.preorder().into_iter().skip(1) {
        while *left.get(s)? == 0 {
            s += 1;
        }
        left[s] -= 1;
        labels[v as usize] = s as u32;
    }
    Some(labels)
}

/// Placements of one tree an exhaustive multi-socket search prices at most: on two sockets the
/// placement DP (counted as n units per tree), on more every labeling of the non-root nodes
/// (the multinomial coefficient), saturating.
fn placements_per_tree(counts: &[u32], root_socket: u32) -> u64 {
    let n: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    if counts.len() <= 2 {
        return n;
    }
    // (n − 1)! / Π c_s! with the root removed from its socket.
    crate::priced_trees::labelings(counts, root_socket)
}

/// The size of [`exhaustive_placed`] for these counts: every rooted tree times the placements
/// of each ([`placements_per_tree`]), saturating.
fn exhaustive_placed_estimate(counts: &[u32], root_socket: u32) -> WorkEstimate {
    let n: usize = counts.iter().map(|&c| c as usize).sum();
    WorkEstimate {
        what: format!("rooted trees × placements on {} sockets", counts.len()),
        units: tree_count(n).saturating_mul(placements_per_tree(counts, root_socket)),
    }
}

/// Every tree with its exact best placement (see [`optimal_with`]). Its size, every tree times
/// every placement ([`placements_per_tree`]), is checked against the budget before it starts;
/// a time limit stops it between batches with the best so far (never worse than the placed flat
/// and one-socket DP trees it starts from), bounded by [`socket_dp::lower_bound`].
fn exhaustive_placed(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    ctl: &Control,
) -> Result<TreeOptimum, TreeSearchError> {
    let n = space.threads;
    check_exhaustive(n)?;
    let trees_total = tree_count(n as usize);
    ctl.limits
        .check(&exhaustive_placed_estimate(counts, root_socket))?;
    let nn = n as usize;
    let place = |tree: &RootedTree| {
        if counts.len() <= 2 {
            placement::dp(tree, counts, root_socket, &*space.pricing, objective)
        } else {
            placement::exhaustive(tree, counts, root_socket, &*space.pricing, objective)
        }
    };
    // Incumbent: the best placements of the one-socket DP tree and of the flat tree. Trees whose
    // lower bound scores strictly worse are skipped; ties are still priced, so the result is
    // the exhaustive one.
    type Found = Option<((i64, i64), Vec<u32>, Placement)>;
    let mut start: Found = None;
    for levels in [dp(&*space.pricing, n, objective)?.levels, flat_levels(n)] {
        let tree = RootedTree::from_levels(&levels).map_err(malformed)?;
        if let Some(p) = place(&tree) {
            let key = cost_key(objective, p.cost.min_ns, p.cost.max_ns);
            if start.as_ref().is_none_or(|(k, ..)| key < *k) {
                start = Some((key, canonical_levels(&tree), p));
            }
        }
    }
    let incumbent = start.as_ref().map_or(i64::MAX, |(k, ..)| k.0);
    let stopped = AtomicBool::new(false);
    let batches = level_batches(nn, 1 << 10, ctl.deadline, &stopped);
    let sockets = counts.len() as u32;
    let progress = ctl.progress;
    progress.begin(
        &format!(
            "exhaustive search over {trees_total} rooted trees, each placed on {sockets} sockets"
        ),
        Some(trees_total),
    );
    let deadline = ctl.deadline;
    let results: Vec<(Found, u64)> = parallel::map_iter(batches, |buf| {
        let mut best: Found = None;
        let mut trees = 0u64;
        for chunk in buf.chunks_exact(nn) {
            // Placing one tree on more than two sockets tries every labeling (up to the
            // budget's share), so a batch of 1,024 trees can take seconds: check the deadline
            // per tree, not only per batch.
            if deadline.passed() {
                stopped.store(true, AtomicOrdering::Relaxed);
                break;
            }
            let levels: Vec<u32> = chunk.iter().map(|&l| u32::from(l)).collect();
            trees += 1;
            let (lb_min, lb_max) = space.pricing.placement_lower_bound(&levels, sockets);
            if cost_key(objective, lb_min, lb_max).0 > incumbent {
                continue;
            }
            let Ok(tree) = RootedTree::from_levels(&levels) else {
                continue;
            };
            let Some(p) = place(&tree) else {
                continue;
            };
            let key = cost_key(objective, p.cost.min_ns, p.cost.max_ns);
            let replace = best
                .as_ref()
                .is_none_or(|(k, l, _)| (key, &levels) < (*k, l));
            if replace {
                best = Some((key, levels, p));
            }
        }
        progress.advance(trees);
        (best, trees)
    });
    progress.finish();
    let stopped = stopped.load(AtomicOrdering::Relaxed);
    let mut best: Found = if stopped { start } else { None };
    let mut trees = 0;
    for (b, t) in results {
        trees += t;
        best = match (best, b) {
            (Some(x), Some(y)) => Some(if (y.0, &y.1) < (x.0, &x.1) { y } else { x }),
            (x, None) => x,
            (None, y) => y,
        };
    }
    let (_, levels, placed) = best.ok_or(TreeSearchError::NoPlacement {
        counts: counts.to_vec(),
        root: root_socket,
    })?;
    let exactness = if stopped {
        Exactness::bounded(
            ctl.deadline.reason(),
            score(objective, &placed.cost),
            space.pricing.line_classes().map(|c| {
                socket_dp::lower_bound(&c, n, sockets).max(
                    socket_dp::lower_bound_by_height(&c, n, counts).unwrap_or(f64::NEG_INFINITY),
                )
            }),
        )
    } else {
        Exactness::Exact
    };
    // Node ids of RootedTree::from_levels are preorder positions.
    Ok(TreeOptimum {
        sockets: placed.sockets.clone(),
        levels,
        cost: placed.cost,
        trees,
        exactness,
    })
}

/// Rank a `cla-tree`-like algorithm over its rooted-tree space: the optimum, turned into thread
/// ids and priced again by the algorithm (so the answer is the model's own number), under the
/// request's [`SearchOptions::limits`] and progress sink.
pub fn rank_rooted_trees(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    space: &RootedTreeSpace,
) -> Result<Ranked, TreeSearchError> {
    rank_rooted_trees_with(
        algorithm,
        request,
        options,
        space,
        &options.limits,
        &options.progress,
    )
}

/// [`rank_rooted_trees`] under explicit limits and a progress sink.
pub fn rank_rooted_trees_with(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    space: &RootedTreeSpace,
    limits: &Limits,
    progress: &Progress,
) -> Result<Ranked, TreeSearchError> {
    // The command's clock starts before the search, so the improvement below shares its limit.
    rank_rooted_trees_until(
        algorithm,
        request,
        options,
        space,
        limits,
        limits.deadline(),
        progress,
    )
}

/// [`rank_rooted_trees_with`] against a deadline that started earlier: a sweep's time limit
/// holds for the whole sweep, so each point's search gets what is left of it, not a fresh
/// limit of its own.
///
/// **More budget never answers a worse tree.** A request the default budget refuses, or whose
/// exact search the default budget stops, is answered by its stopgap tree improved by local
/// search. With a larger `--budget` the exact search runs on, and a time limit that stops it
/// leaves no time for that improvement (4 × 16 under max: 2,973.5 ns against 2,916.5 at the
/// default budget). So under a time limit with a raised budget that admits the exact search,
/// the default budget's answer is built first (within the same limit): when it is exact it is
/// the answer, else a stopped search answers the better of the two trees (ties: the search's
/// own) with the larger of their certified bounds. Until max had its scalar pass (2026-11-27)
/// the default budget refused every such request up front, and only those were built first;
/// 4 × 16 under max is now admitted and stopped by the default budget's point cap. The price:
/// the default run's time (up to ~10 s where its point cap stops it) comes out of the raised
/// search's time limit, so a raised search that would just have finished within the limit
/// may now stop (and answer the better tree with its certificate). Free splits are built first
/// too whenever the budget is raised under a limit, even where the raised budget does not admit
/// the one table (2026-11-29; which requests, and why, in `default_budget_first`).
pub fn rank_rooted_trees_until(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    space: &RootedTreeSpace,
    limits: &Limits,
    deadline: Deadline,
    progress: &Progress,
) -> Result<Ranked, TreeSearchError> {
    let default_limits = Limits {
        work_budget: DEFAULT_WORK_BUDGET,
        ..*limits
    };
    if !default_budget_first(space, options.tree_search, &options.objective, limits) {
        return rank_once(
            algorithm, request, options, space, limits, deadline, progress,
        );
    }
    let refused = rank_once(
        algorithm,
        request,
        options,
        space,
        &default_limits,
        deadline,
        progress,
    )?;
    if refused.exact() {
        return Ok(refused);
    }
    let searched = rank_once(
        algorithm, request, options, space, limits, deadline, progress,
    )?;
    Ok(better_of(searched, refused, &options.objective))
}

/// Why `searched` stopped and the larger of the two certified bounds, when both answers are
/// bounded (either bound certifies the same optimum); `None` when either is exact.
fn stopped_and_larger_bound(
    searched: &Exactness,
    other: &Exactness,
) -> Option<(StopReason, Option<f64>)> {
    let (
        Exactness::Bounded {
            stopped,
            lower_bound: searched_bound,
            ..
        },
        Exactness::Bounded {
            lower_bound: other_bound,
            ..
        },
    ) = (searched, other)
    else {
        return None;
    };
    let bound = match (searched_bound, other_bound) {
        (Some(x), Some(y)) => Some(x.max(*y)),
        (x, y) => x.or(*y),
    };
    Some((*stopped, bound))
}

/// The answer of a search stopped past the default budget (`searched`) or the default budget's
/// own (`refused`), whichever tree ranks first (ties: `searched`), certified by the larger
/// bound; an exact `searched` as it is.
fn better_of(searched: Ranked, refused: Ranked, objective: &Objective) -> Ranked {
    let Some((stopped, bound)) = stopped_and_larger_bound(&searched.exactness, &refused.exactness)
    else {
        return searched;
    };
    let (Some(a), Some(b)) = (searched.best.first(), refused.best.first()) else {
        return searched;
    };
    let best = if b.key(objective) < a.key(objective) {
        b.clone()
    } else {
        a.clone()
    };
    let stats = SearchStats {
        evaluated: searched
            .stats
            .evaluated
            .saturating_add(refused.stats.evaluated),
        infeasible: searched
            .stats
            .infeasible
            .saturating_add(refused.stats.infeasible),
        pruned: searched.stats.pruned.saturating_add(refused.stats.pruned),
    };
    let exactness = Exactness::bounded(stopped, best.score, bound);
    Ranked {
        best: vec![best],
        stats,
        exactness,
    }
}

/// One search and, when it stops short, the local search from its tree.
fn rank_once(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    space: &RootedTreeSpace,
    limits: &Limits,
    deadline: Deadline,
    progress: &Progress,
) -> Result<Ranked, TreeSearchError> {
    // The search itself, without `optimal_until`'s default-budget-first rule: the caller
    // applies it to the improved trees.
    let found = optimal_in(
        space,
        options.tree_search,
        &options.objective,
        &Control {
            limits,
            deadline,
            progress,
        },
    )?;
    let tree = found.tree()?;
    let params = space.assign_threads(&tree, &found.sockets)?;
    let cost = algorithm.cost(request, &params)?;
    let score = options
        .objective
        .score(&cost, request.metric())
        .ok_or(TreeSearchError::NotLatency)?;
    let mut best = Scored {
        params,
        cost,
        score,
    };
    let mut stats = SearchStats {
        evaluated: found.trees,
        infeasible: 0,
        pruned: 0,
    };
    // A bounded result keeps its reason and bound; the tree found is first improved by local
    // search (re-parentings and exchanges across units, priced by the algorithm itself)
    // within a share of the budget and the command's time limit, and its gap is recomputed
    // against the score of what the algorithm prices.
    let exactness = match found.exactness {
        Exactness::Exact => Exactness::Exact,
        Exactness::Bounded {
            stopped,
            lower_bound,
            ..
        } => {
            best = improve_bounded(
                algorithm, request, options, space, best, &mut stats, limits, deadline,
            );
            Exactness::bounded(stopped, best.score, lower_bound)
        }
    };
    Ok(Ranked {
        best: vec![best],
        stats,
        exactness,
    })
}

/// The share of the work budget the local search after an over-budget answer may spend
/// ([`rank_rooted_trees_with`]).
const IMPROVE_SHARE: u64 = 4;

/// Local search from an over-budget answer (see [`crate::priced_trees`]'s descent): each
/// closed-form pricing counts one unit per node; at most `work_budget / IMPROVE_SHARE` units.
///
/// The descent moves between the space's units, not only its sockets: with one line per L3
/// domain (docs/cla.md §13) two threads of different domains of one socket are not
/// interchangeable, so exchanging them is a move, and a free split moves threads between
/// domains (group g is domain g mod D of socket g / D, as [`RootedTreeSpace::capacity`] and the
/// answer's `domains` number them).
#[allow(clippy::too_many_arguments)]
fn improve_bounded(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    space: &RootedTreeSpace,
    start: Scored,
    stats: &mut SearchStats,
    limits: &Limits,
    deadline: Deadline,
) -> Scored {
    if !matches!(start.params, Params::RootedTree { .. }) {
        return start;
    }
    let mut top = TopK::new(1, &options.objective);
    top.offer(start.clone());
    let mut local = SearchStats::default();
    let price = |params: Params, stats: &mut SearchStats| {
        crate::search::price_one(algorithm, request, options, params, stats)
    };
    descent_of(space, limits.work_budget / IMPROVE_SHARE, deadline).improve(
        &price,
        &mut top,
        &mut local,
        &Progress::none(),
    );
    stats.evaluated += local.evaluated;
    stats.infeasible += local.infeasible;
    top.first().cloned().unwrap_or(start)
}

/// The descent [`improve_bounded`] runs in `space`, with `budget` work units: each
/// closed-form pricing counts one unit per node. With a fixed placement thread t stays on its
/// unit (`thread_sockets` holds units); with a free split threads may also move between units.
fn descent_of(
    space: &RootedTreeSpace,
    budget: u64,
    deadline: Deadline,
) -> crate::priced_trees::Descent<'_> {
    crate::priced_trees::Descent {
        thread_groups: &space.thread_sockets,
        free: space
            .capacity
            .as_deref()
            .map(|capacity| crate::priced_trees::FreeSplit {
                capacity,
                groups_per_socket: space.units_per_socket(),
            }),
        work_per_tree: u64::from(space.threads),
        budget,
        deadline,
        also_from: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelopt_model::ccnuma::bcast::TreeCosts;
    use modelopt_model::placed_tree::PlacedTreeCost;

    #[test]
    fn a_refusal_names_a_budget_only_when_that_budget_is_admitted() {
        let limits = Limits::default();
        let refused = StopReason::WorkBudget {
            budget: 100,
            needed: 250,
            memory: 0,
        };
        // Admitted at 250 (and the budget it was asked at is 250): the size stays.
        let kept = confirmed_need(refused, &limits, |l| l.work_budget == 250);
        assert_eq!(kept, refused);
        // Not admitted at that size (the first check, without an incumbent, refuses it): no
        // size is named.
        let unsure = confirmed_need(refused, &limits, |_| false);
        let no_size = StopReason::WorkBudget {
            budget: 100,
            needed: 0,
            memory: 0,
        };
        assert_eq!(unsure, no_size);
        // With the memory its tables need over the limit (3 GiB against the default 2 GiB):
        // asked with both raised, kept when admitted so, else neither is named.
        let three = 3 << 30;
        let both = StopReason::WorkBudget {
            budget: 100,
            needed: 250,
            memory: three,
        };
        let asked = |l: &Limits| l.work_budget == 250 && l.memory_limit == three;
        assert_eq!(confirmed_need(both, &limits, asked), both);
        assert_eq!(confirmed_need(both, &limits, |_| false), no_size);
        // Other reasons, and a refusal without a size, pass as they are (never asked).
        let memory = StopReason::MemoryLimit {
            limit: 1,
            needed: 2,
        };
        assert_eq!(confirmed_need(memory, &limits, |_| unreachable!()), memory);
        let run_out = StopReason::WorkBudget {
            budget: 100,
            needed: 0,
            memory: 0,
        };
        assert_eq!(
            confirmed_need(run_out, &limits, |_| unreachable!()),
            run_out
        );
    }

    #[test]
    fn the_least_clipped_total_is_below_every_splits_clip() {
        // 48 threads on eight domains of 8, m = 2: every slope 2/8, 48 · 1/4 = 12, which six
        // full domains reach (6 · 2). [8, 8, 4], 10 threads, m = 2: slopes 1/4, 1/4, 1/2; the
        // chords fill unit 0 (8 · 1/4 = 2) and 2 of unit 1 (1/2): 2.5, so 3; the true least is
        // 4 ([8, 2, 0]: 2 + 2), and 3 ≤ 4. m = 8: every slope 1, 10. [4, 4], 8 threads, m = 1:
        // 8 · 1/4 = 2, the only split [4, 4] clipped to [1, 1].
        assert_eq!(least_clipped_total(&[8; 8], 48, 2), 12);
        assert_eq!(least_clipped_total(&[8, 8, 4], 10, 2), 3);
        assert_eq!(least_clipped_total(&[8, 8, 4], 10, 8), 10);
        assert_eq!(least_clipped_total(&[4, 4], 8, 1), 2);
        assert_eq!(least_clipped_total(&[4, 0, 4], 0, 3), 0);
        // Against every split by enumeration: capacities [3, 5, 2], every n and m.
        let capacity = [3u32, 5, 2];
        for n in 0..=10u32 {
            for m in 1..=5u32 {
                let mut least = u32::MAX;
                for a in 0..=3u32 {
                    for b in 0..=5u32 {
                        let c = n.checked_sub(a + b).filter(|&c| c <= 2);
                        if let Some(c) = c {
                            least = least.min(a.min(m) + b.min(m) + c.min(m));
                        }
                    }
                }
                assert!(least_clipped_total(&capacity, n, m) <= least, "n {n} m {m}");
            }
        }
    }

    fn sandy() -> TreeCosts {
        TreeCosts {
            local: 2.3,
            socket: 35.0,
            remote: 94.0,
            memory: 70.0,
            remote_memory: 107.0,
            domains: None,
        }
    }

    #[test]
    fn counts_follow_a000081() {
        let expected = [1u64, 1, 2, 4, 9, 20, 48, 115, 286, 719, 1842, 4766, 12486];
        for (i, &e) in expected.iter().enumerate() {
            assert_eq!(count_trees(i + 1), e, "n = {}", i + 1);
        }
    }

    #[test]
    fn every_sequence_is_canonical_and_distinct() {
        let mut g = LevelSequences::new(8);
        let mut seen = std::collections::BTreeSet::new();
        while let Some(l) = g.next_tree() {
            let tree = RootedTree::from_levels(l).unwrap();
            assert_eq!(canonical_levels(&tree), l.to_vec());
            assert!(seen.insert(l.to_vec()));
        }
        assert_eq!(seen.len(), 115);
    }

    #[test]
    fn evaluation_matches_the_closed_form() {
        let c = sandy();
        let table = LevelTable::new(&c, 8);
        let mut g = LevelSequences::new(8);
        let mut s = Scratch::default();
        while let Some(l) = g.next_tree() {
            let (a, b) = table.evaluate(l, &mut s);
            let tree = RootedTree::from_levels(l).unwrap();
            let cost = c.evaluate(&tree, &[0; 8]).unwrap();
            assert!((a - cost.min_ns).abs() < 1e-9 && (b - cost.max_ns).abs() < 1e-9);
        }
    }

    #[test]
    fn dp_equals_exhaustive_up_to_16() {
        let c = sandy();
        for n in 2..=16 {
            let e = exhaustive(&c, n, &Objective::Min).unwrap();
            let d = dp(&c, n, &Objective::Min).unwrap();
            assert_eq!(
                score_key(e.cost.min_ns),
                score_key(d.cost.min_ns),
                "n = {n}"
            );
            assert_eq!(
                score_key(e.cost.max_ns),
                score_key(d.cost.max_ns),
                "n = {n}"
            );
            assert_eq!(d.levels.len(), n as usize);
        }
    }

    #[test]
    fn lower_bound_holds_for_every_placement() {
        let c = sandy();
        let mut g = LevelSequences::new(7);
        while let Some(l) = g.next_tree() {
            let (lo, hi) = c.placement_lower_bound(l, 2);
            let tree = RootedTree::from_levels(l).unwrap();
            for mask in 0..64u32 {
                let s: Vec<u32> = (0..7)
                    .map(|v| if v == 0 { 0 } else { (mask >> (v - 1)) & 1 })
                    .collect();
                let cost = c.evaluate(&tree, &s).unwrap();
                assert!(
                    lo <= cost.min_ns + 1e-9 && hi <= cost.max_ns + 1e-9,
                    "{l:?} {s:?}"
                );
            }
        }
    }

    #[test]
    fn figure_2_tree_prices_as_in_the_docs() {
        let table = LevelTable::new(&sandy(), 4);
        let (a, _) = table.evaluate(&[0, 1, 2, 1], &mut Scratch::default());
        assert!((a - 461.9).abs() < 1e-9);
    }

    fn two_sockets(per_socket: u32) -> RootedTreeSpace {
        let n = 2 * per_socket;
        RootedTreeSpace {
            threads: n,
            thread_sockets: (0..n).map(|i| u32::from(i >= per_socket)).collect(),
            root_thread: 0,
            pricing: std::sync::Arc::new(sandy()),
            capacity: None,
        }
    }

    fn limits(time_limit: Option<std::time::Duration>, work_budget: u64) -> Limits {
        Limits {
            time_limit,
            work_budget,
            ..Limits::default()
        }
    }

    #[test]
    fn tree_count_follows_the_recurrence_and_the_enumeration() {
        for n in 0..=14 {
            assert_eq!(tree_count(n), count_trees(n), "n = {n}");
        }
        // OEIS A000081: a(20) = 12,826,228 and a(23) = 268,282,855 (the ~1 min of issue 12).
        assert_eq!(tree_count(20), 12_826_228);
        assert_eq!(tree_count(23), 268_282_855);
        // Far past u64: saturates instead of overflowing.
        assert_eq!(tree_count(200), u64::MAX);
    }

    #[test]
    fn an_exhaustive_search_over_the_budget_is_refused_before_it_starts() {
        // 23 nodes: 268,282,855 trees > the default budget of 10^8.
        let t0 = std::time::Instant::now();
        let err = exhaustive(&sandy(), 23, &Objective::Min).unwrap_err();
        assert!(matches!(err, TreeSearchError::Budget(ref b) if b.estimate == 268_282_855));
        assert!(t0.elapsed().as_secs() < 2);
        // 32 threads on two sockets: every tree times the placement DP's 32 units.
        let space = two_sockets(16);
        let err = optimal(&space, TreeSearch::Exhaustive, &Objective::Min).unwrap_err();
        assert!(matches!(err, TreeSearchError::Budget(_)), "{err}");
    }

    #[test]
    fn a_stopped_exhaustive_search_returns_its_best_with_the_dp_bound() {
        // A zero time limit stops before the first batch: the flat tree is returned, bounded by
        // the exact one-socket optimum.
        let l = limits(Some(std::time::Duration::ZERO), u64::MAX);
        let found = exhaustive_with(&sandy(), 12, &Objective::Min, &l, &Progress::none()).unwrap();
        assert_eq!(found.levels, flat_levels(12));
        let exact = dp(&sandy(), 12, &Objective::Min).unwrap();
        match found.exactness {
            Exactness::Bounded {
                stopped: StopReason::TimeLimit { .. },
                lower_bound: Some(lb),
                gap_percent: Some(gap),
            } => {
                assert!((lb - exact.cost.min_ns).abs() < 1e-9);
                assert!(found.cost.min_ns >= lb && gap >= 0.0);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_one_socket_dp_over_the_budget_bounds_a_simple_tree_by_the_affordable_optimum() {
        // Budget 10^4: the DP affords m(m − 1)/2 ≤ 10^4, i.e. m = 141 (141·140/2 = 9,870;
        // 142·141/2 = 10,011). The bound is the exact optimum on 141 nodes.
        let l = limits(None, 10_000);
        let found = dp_with(&sandy(), 5000, &Objective::Min, &l, &Progress::none()).unwrap();
        let at_141 = dp(&sandy(), 141, &Objective::Min).unwrap();
        match found.exactness {
            Exactness::Bounded {
                stopped:
                    StopReason::WorkBudget {
                        budget: 10_000,
                        needed: 0,
                        memory: 0,
                    },
                lower_bound: Some(lb),
                ..
            } => {
                assert!((lb - at_141.cost.min_ns).abs() < 1e-9);
                assert!(found.cost.min_ns >= lb);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(found.levels.len(), 5000);
        assert!(RootedTree::from_levels(&found.levels).is_ok());
    }

    /// 12 threads on the E5-2660's numbers over three sockets, 5 + 3 + 4, the root thread the
    /// first of socket 1.
    fn five_three_four() -> RootedTreeSpace {
        RootedTreeSpace {
            threads: 12,
            thread_sockets: [0; 5].into_iter().chain([1; 3]).chain([2; 4]).collect(),
            root_thread: 5,
            pricing: std::sync::Arc::new(sandy()),
            capacity: None,
        }
    }

    #[test]
    fn the_leaders_candidate_puts_each_socket_below_one_leader() {
        // Counts (5, 3, 4), root on socket 1: the root's 3 threads form the one-socket optimum
        // of 3 nodes around the root; socket 0's 5 and socket 2's 4 hang below one leader each,
        // a child of the root, in ascending socket order. So: 12 nodes, sockets by preorder
        // position 1,1,1 | 0 ×5 | 2 ×4, the leaders at positions 3 and 8 on level 1, and
        // every node of a leader's block deeper than it.
        let space = five_three_four();
        let limits = limits(None, u64::MAX);
        let progress = Progress::none();
        let ctl = Control::new(&limits, &progress);
        let mut one = OneSocketTrees::new(&space, &Objective::Min, &ctl).unwrap();
        let (levels, sockets) =
            leaders_tree(&space, &[5, 3, 4], 1, &Objective::Min, &ctl, &mut one).unwrap();
        assert_eq!(sockets, [1, 1, 1, 0, 0, 0, 0, 0, 2, 2, 2, 2]);
        assert_eq!((levels[0], levels[3], levels[8]), (0, 1, 1));
        assert!(levels[4..8].iter().all(|&l| l >= 2));
        assert!(levels[9..].iter().all(|&l| l >= 2));
        let tree = RootedTree::from_levels(&levels).unwrap();
        assert!(space.pricing.evaluate(&tree, &sockets).is_ok());
        // One socket: no candidate.
        assert!(leaders_tree(&space, &[0, 12, 0], 1, &Objective::Min, &ctl, &mut one).is_none());
    }

    #[test]
    fn the_leaders_parts_are_built_once_per_count_and_as_a_fresh_build_would() {
        // Splits (5, 3, 4) and (4, 4, 4) of 12 threads ask for the one-socket trees of 3, 4
        // and 5 threads: three DPs, not six, and each part as the DP of its count builds it
        // alone (a leaders tree from the shared parts equals one from fresh parts).
        let space = five_three_four();
        let limits = limits(None, u64::MAX);
        let progress = Progress::none();
        let ctl = Control::new(&limits, &progress);
        let min = Objective::Min;
        let mut shared = OneSocketTrees::new(&space, &min, &ctl).unwrap();
        for counts in [[5, 3, 4], [4, 4, 4]] {
            let mut fresh = OneSocketTrees::new(&space, &min, &ctl).unwrap();
            assert_eq!(
                leaders_tree(&space, &counts, 1, &min, &ctl, &mut shared),
                leaders_tree(&space, &counts, 1, &min, &ctl, &mut fresh)
            );
        }
        assert_eq!(shared.parts.keys().copied().collect::<Vec<_>>(), [3, 4, 5]);
        for (&c, part) in &shared.parts {
            assert_eq!(*part, dp_in(&*space.pricing, c, &min, &ctl).unwrap().levels);
        }
    }

    #[test]
    fn helper_trees_deal_each_leaf_to_the_cheapest_star() {
        // Counts (3, 2) on the E5-2660, root on socket 0: h = 1 or 2 helpers on socket 0.
        // h = 1: the helper takes every leaf, socket 1's two first (farthest first), then
        // socket 0's last one; unit by unit that is 1, 1, 0 and round-robin 1, 0, 1.
        // h = 2: socket 0 has no leaf left; the first socket-1 leaf goes to helper 0 (both
        // stars empty: a tie, the lower helper), the second to helper 1, since a star with one
        // socket-1 leaf costs R_R = 35 ns less than one with two (G_s grows by R_R per child of
        // the group, docs/cla.md §7). Both orders deal the same.
        let space = RootedTreeSpace {
            threads: 5,
            thread_sockets: vec![0, 0, 0, 1, 1],
            root_thread: 0,
            pricing: std::sync::Arc::new(sandy()),
            capacity: None,
        };
        let limits = limits(None, u64::MAX);
        let progress = Progress::none();
        let ctl = Control::new(&limits, &progress);
        let trees = helpers_trees(&space, &[3, 2], 0, &Objective::Min, &ctl).unwrap();
        let one_helper = vec![0, 1, 2, 2, 2];
        let two_helpers = vec![0, 1, 2, 1, 2];
        assert_eq!(
            trees,
            vec![
                (one_helper.clone(), vec![0, 0, 1, 1, 0]),
                (one_helper, vec![0, 0, 1, 0, 1]),
                (two_helpers.clone(), vec![0, 0, 1, 0, 1]),
                (two_helpers, vec![0, 0, 1, 0, 1]),
            ]
        );
        // No other thread on the root's socket: no helper, no tree.
        assert!(helpers_trees(&space, &[4, 1], 1, &Objective::Min, &ctl)
            .unwrap()
            .is_empty());
    }

    /// The chiplet-2s-4x8-domain-lines machine's closed form (machines/ file values): units
    /// are L3 domains, 4 per socket.
    fn domain_lines() -> TreeCosts {
        TreeCosts {
            local: 1.43,
            socket: 35.0,
            remote: 223.5,
            memory: 122.0,
            remote_memory: 159.0,
            domains: Some(modelopt_model::placed_tree::Domains {
                per_socket: 4,
                remote_domain: 164.5,
            }),
        }
    }

    #[test]
    fn a_time_limited_search_builds_the_refusals_bound_first_where_envelopes_run() {
        // Four sockets of 16 (by suffix states) start with their own covering pass, whose bound
        // a stop reports; 46 threads on the L3 domains of chiplet-2s-4x8-domain-lines (five
        // domains of 8 and one of 6: by envelopes) do not, so the refusal's clips are
        // certified first.
        let memory = Limits::default();
        let four = RootedTreeSpace {
            threads: 64,
            thread_sockets: (0..64).map(|t| t / 16).collect(),
            root_thread: 0,
            pricing: std::sync::Arc::new(sandy()),
            capacity: None,
        };
        assert!(search_covers(&four, &[16; 4], &Objective::Min, &memory));
        let domains = RootedTreeSpace {
            threads: 46,
            thread_sockets: (0..46).map(|t| t / 8).collect(),
            root_thread: 0,
            pricing: std::sync::Arc::new(domain_lines()),
            capacity: None,
        };
        let counts = [8, 8, 8, 8, 8, 6, 0, 0];
        assert!(!search_covers(&domains, &counts, &Objective::Min, &memory));
        // Under max neither does (a stop inside a relaxation's pass bounds T_min only).
        assert!(!search_covers(&four, &[16; 4], &Objective::Max, &memory));
    }

    #[test]
    fn on_l3_domains_the_best_helper_tree_is_within_2_percent_of_the_exact_optimum() {
        // 33 threads, 8 per domain from domain 0 (the last one alone on domain 4, on socket
        // 1): the exact DP's optimum is a helper tree (4 to 7 helpers in the root's domain).
        // No candidate beats the optimum (the law), and the best helper tree comes within 2 %.
        let units: Vec<u32> = (0..33).map(|t| t / 8).collect();
        let space = RootedTreeSpace {
            threads: 33,
            thread_sockets: units,
            root_thread: 0,
            pricing: std::sync::Arc::new(domain_lines()),
            capacity: None,
        };
        let exact = optimal(&space, TreeSearch::Dp, &Objective::Min).unwrap();
        assert!(exact.exactness.is_exact());
        let limits = limits(None, u64::MAX);
        let progress = Progress::none();
        let ctl = Control::new(&limits, &progress);
        let counts = [8, 8, 8, 8, 1, 0, 0, 0];
        let best = helpers_trees(&space, &counts, 0, &Objective::Min, &ctl)
            .unwrap()
            .into_iter()
            .map(|(levels, labels)| {
                let tree = RootedTree::from_levels(&levels).unwrap();
                space.pricing.evaluate(&tree, &labels).unwrap().min_ns
            })
            .reduce(f64::min)
            .unwrap();
        assert!(
            best >= exact.cost.min_ns - 1e-9,
            "{best} < {}",
            exact.cost.min_ns
        );
        assert!(
            best <= 1.02 * exact.cost.min_ns,
            "{best} vs {}",
            exact.cost.min_ns
        );
    }

    #[test]
    fn the_local_search_moves_threads_between_units_not_only_sockets() {
        // On L3 domains as units, threads of two domains of one socket are not
        // interchangeable: the descent's classes are the units, and a free split's groups are
        // numbered domain by domain (4 per socket), as its capacity is.
        let mut space = RootedTreeSpace {
            threads: 12,
            thread_sockets: (0..12).map(|t| t / 4).collect(),
            root_thread: 0,
            pricing: std::sync::Arc::new(domain_lines()),
            capacity: None,
        };
        let fixed = descent_of(&space, 1, Deadline::never());
        assert_eq!(fixed.thread_groups, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
        assert!(fixed.free.is_none());
        space.capacity = Some(vec![4; 8]);
        let free = descent_of(&space, 1, Deadline::never());
        assert_eq!(free.free.map(|f| f.groups_per_socket), Some(4));
        // With sockets as units, a group is a socket.
        let sockets = two_sockets(4);
        assert_eq!(sockets.units_per_socket(), 1);
    }

    #[test]
    fn growing_passes_end_with_the_largest_box_predicted_to_fit() {
        // Boxes of one unit, [2], [8], [32]: 3, 9 and 33 count vectors; a pass costs 10 pairs a
        // count vector and bounds its count. Affordable 100 units: 4 pairs a unit, 400 pairs.
        // [2] costs 30; [8] is predicted 30·(9/3)^1.5 = 155.9 ≤ 370 left, runs (90, spent
        // 120); [32] is predicted 90·(33/9)^1.5 = 631.9 > 280 left, so in its place the box on
        // the way of at most 9·(280/90)^(1/1.5) = 9 · 2.1311 = 19.18 count vectors: [18] (19),
        // whose bound 19 is kept.
        let run = |b: &[u32]| {
            let states = count_vectors(b);
            Some(socket_dp::ClippedBound {
                bound: Some(states),
                pairs: 10 * states as u64,
            })
        };
        let boxes = [vec![2], vec![8], vec![32]];
        let asked = std::cell::Cell::new(None);
        let between = |from: &[u32], most: f64| {
            asked.set(Some((from.to_vec(), most)));
            Some(vec![most.floor() as u32 - 1])
        };
        assert_eq!(growing_passes(&boxes, 100, between, run), Some(19.0));
        let (from, most) = asked.take().unwrap();
        assert_eq!(from, vec![8]);
        assert!((most - 19.18).abs() < 0.01, "{most}");
        // Without a box on the way, the best is the last pass that ran.
        assert_eq!(growing_passes(&boxes, 100, |_, _| None, run), Some(9.0));
        // With room for all three, `between` is not asked.
        let never = |_: &[u32], _: f64| -> Option<Vec<u32>> { unreachable!() };
        assert_eq!(growing_passes(&boxes, 1_000, never, run), Some(33.0));
    }

    #[test]
    fn a_socket_dp_over_the_budget_answers_a_placed_tree_with_a_certified_gap() {
        // 2 × 300 threads at a budget of 10^7: the covering pass's tables hold 301² = 90,601
        // count vectors × (S·K + 2·R + 4·S + ⌈S²/4⌉) = (2·300 + 2·12 + 8 + 1) = 57,350,433
        // entries (R = 12 suffix states on two sockets: 8 + 4; with envelopes, 2·300 + 4·2 +
        // 3·4 = 620 a vector, still over), and the Pareto pass alone (301·302/2)² · 6 ≈ 1.2·10^10
        // transitions, both over it. The fallback places the one-socket DP tree (600·599/2 =
        // 179,700 pairs, within budget); its bound is at least the recurrence's (the truncated
        // DP can only raise it). (At the default budget of 10^8 the covering pass starts, since
        // its tables fit the memory limit, and stops at its corner-pair allowance: 8.5 s in a
        // release build, docs/perf.md.)
        let space = two_sockets(300);
        let t0 = std::time::Instant::now();
        let limits = Limits {
            work_budget: 10_000_000,
            ..Limits::default()
        };
        let found = optimal_with(
            &space,
            TreeSearch::Dp,
            &Objective::Min,
            &limits,
            &Progress::none(),
        )
        .unwrap();
        assert!(t0.elapsed().as_secs() < 30);
        assert_eq!(found.levels.len(), 600);
        assert_eq!(found.sockets.iter().filter(|&&s| s == 1).count(), 300);
        let bound = socket_dp::lower_bound(&sandy().into(), 600, 2);
        match found.exactness {
            Exactness::Bounded {
                stopped: StopReason::WorkBudget { .. },
                lower_bound: Some(lb),
                gap_percent: Some(_),
            } => assert!(lb >= bound - 1e-9 && found.cost.min_ns >= lb),
            other => panic!("{other:?}"),
        }
        // The answer is priced by the model itself.
        let tree = found.tree().unwrap();
        let by_node: Vec<u32> = {
            let order = tree.preorder();
            let mut v = vec![0; 600];
            for (i, &node) in order.iter().enumerate() {
                v[node as usize] = found.sockets[i];
            }
            v
        };
        let again = space.pricing.evaluate(&tree, &by_node).unwrap();
        assert!((again.min_ns - found.cost.min_ns).abs() < 1e-6);
    }

    #[test]
    fn a_socket_dp_stopped_by_the_time_limit_says_so() {
        let space = two_sockets(8);
        let l = limits(Some(std::time::Duration::ZERO), u64::MAX);
        let found = optimal_with(
            &space,
            TreeSearch::Dp,
            &Objective::Min,
            &l,
            &Progress::none(),
        )
        .unwrap();
        assert!(matches!(
            found.exactness,
            Exactness::Bounded {
                stopped: StopReason::TimeLimit { .. },
                lower_bound: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn splits_are_listed_in_descending_order_with_the_root_socket_used() {
        let all = |n, limit: &[u32], root| splits_of(n, limit, root, usize::MAX);
        // 3 threads on two sockets of 2, root on socket 0: (2,1) and (1,2).
        let s = all(3, &[2, 2], 0);
        assert_eq!(s.listed, vec![vec![2, 1], vec![1, 2]]);
        assert!(s.complete);
        // 2 threads, root on socket 1: (1,1) and (0,2); (2,0) leaves the root's socket empty.
        assert_eq!(all(2, &[2, 2], 1).listed, vec![vec![1, 1], vec![0, 2]]);
        // More threads than room, or no room on the root's socket, or no thread: nothing.
        assert_eq!(all(5, &[2, 2], 0).listed, Vec::<Vec<u32>>::new());
        assert_eq!(all(2, &[0, 3], 0).listed, Vec::<Vec<u32>>::new());
        assert_eq!(all(0, &[2, 2], 0).listed, Vec::<Vec<u32>>::new());
        // A cap: 4 threads on three sockets of 4 start (4,0,0), (3,1,0), (3,0,1), (2,2,0), …
        let capped = splits_of(4, &[4, 4, 4], 0, 3);
        assert_eq!(
            capped.listed,
            vec![vec![4, 0, 0], vec![3, 1, 0], vec![3, 0, 1]]
        );
        assert!(!capped.complete);
        // Exactly at the cap is complete: (2,1), (1,2).
        assert!(splits_of(3, &[2, 2], 0, 2).complete);
    }

    #[test]
    fn splits_equal_a_filter_of_every_vector_in_the_box() {
        // Every box of up to three sockets with room 0..=3, every n and every root: the walk
        // lists exactly the box's vectors with sum n and a thread on the root's socket, in
        // descending lexicographic order.
        let mut boxes: Vec<Vec<u32>> = Vec::new();
        let mut layer: Vec<Vec<u32>> = vec![vec![]];
        for _ in 0..3 {
            layer = layer
                .iter()
                .flat_map(|b| {
                    (0..=3).map(move |c| {
                        let mut v = b.clone();
                        v.push(c);
                        v
                    })
                })
                .collect();
            boxes.extend(layer.iter().cloned());
        }
        for limit in &boxes {
            // Every vector in the box, descending (last socket fastest).
            let mut every: Vec<Vec<u32>> = vec![vec![]];
            for &c in limit {
                every = every
                    .into_iter()
                    .flat_map(|v| {
                        (0..=c).rev().map(move |x| {
                            let mut w = v.clone();
                            w.push(x);
                            w
                        })
                    })
                    .collect();
            }
            for root in 0..limit.len() as u32 {
                for n in 0..=10 {
                    let want: Vec<Vec<u32>> = every
                        .iter()
                        .filter(|v| v.iter().sum::<u32>() == n && v[root as usize] > 0)
                        .cloned()
                        .collect();
                    let got = splits_of(n, limit, root, usize::MAX);
                    assert_eq!(got.listed, want, "n {n}, box {limit:?}, root {root}");
                    assert!(got.complete);
                    assert_eq!(count_splits(n, limit, root), want.len() as u64);
                }
            }
        }
    }

    #[test]
    fn listing_the_splits_of_a_wide_machine_stops_at_its_cap() {
        // 8 sockets of 32 threads, 100 threads: ~10^10 splits. The listing stops at the cap
        // at once (the old walk over the 33^8 box never ended).
        let t0 = std::time::Instant::now();
        let s = splits_of(100, &[32; 8], 0, MAX_LISTED_SPLITS);
        assert_eq!(s.listed.len(), MAX_LISTED_SPLITS);
        assert!(!s.complete);
        // The first: sockets 0, 1, 2 full (96), then 4 on socket 3.
        assert_eq!(s.listed[0], vec![32, 32, 32, 4, 0, 0, 0, 0]);
        // Counted without listing (the look-ahead's way): 99 threads besides the root over
        // eight sockets of room 31, 32, ..., 32, far above the cap.
        assert!(count_splits(100, &[32; 8], 0) > 1_000_000_000);
        // Four sockets of 16, 32 threads: 3,128 splits (a filter of the 17^4 box, by script).
        assert_eq!(count_splits(32, &[16; 4], 0), 3_128);
        assert!(t0.elapsed() < std::time::Duration::from_secs(1));
    }

    /// The incumbent of a free split is a real tree's score (never below the exact optimum)
    /// and never above the preorder trees' or any representative split's stopgap tree; under
    /// max the stopgaps are what makes it good: on four sockets of 4 (chiplet-2s-4x8's prices
    /// without its L3 domains, the root on socket 0) it is below the preorder trees at some
    /// thread count (with the preorder trees alone, the old incumbent, it never is).
    #[test]
    fn a_free_splits_incumbent_is_a_tree_no_worse_than_its_stopgaps_and_preorder_trees() {
        let pricing = std::sync::Arc::new(TreeCosts {
            domains: None,
            ..domain_lines()
        });
        let limits = Limits::default();
        let quiet = Progress::none();
        let ctl = Control {
            limits: &limits,
            deadline: limits.deadline(),
            progress: &quiet,
        };
        let box_counts = [4u32; 4];
        let mut better_than_preorder = Vec::new();
        for n in 4..=16u32 {
            let space = RootedTreeSpace {
                threads: n,
                thread_sockets: (0..n).map(|t| t / 4).collect(),
                root_thread: 0,
                pricing: pricing.clone(),
                capacity: Some(box_counts.to_vec()),
            };
            let splits = splits_of(n, &box_counts, 0, MAX_LISTED_SPLITS).listed;
            let representatives = representative_splits(n, &splits, &box_counts, 0);
            // The first split listed fills socket 0 first; the balanced one deals round robin.
            assert_eq!(representatives[0], splits[0]);
            assert!(representatives.iter().all(|r| r.iter().sum::<u32>() == n));
            for objective in [Objective::Min, Objective::Max] {
                let incumbent = split_incumbent(&space, &splits, &box_counts, 0, &objective, &ctl)
                    .unwrap()
                    .unwrap();
                let mut one = OneSocketTrees::new(&space, &objective, &ctl).unwrap();
                let preorder = preorder_incumbent(&space, &splits, 0, &objective, &one.whole)
                    .unwrap()
                    .unwrap();
                let exact =
                    optimal_with(&space, TreeSearch::Dp, &objective, &limits, &quiet).unwrap();
                assert!(exact.exact());
                let optimum = score(&objective, &exact.cost);
                assert!(optimum <= incumbent + 1e-9, "{objective} n {n}");
                assert!(incumbent <= preorder, "{objective} n {n}");
                for counts in &representatives {
                    let fixed = fixed_split(&space, counts);
                    let stopgap =
                        stopgap_tree_with(&fixed, counts, 0, &objective, &ctl, &mut one, true)
                            .unwrap();
                    assert!(incumbent <= stopgap.score(&objective), "{objective} n {n}");
                }
                if objective == Objective::Max && incumbent < preorder - 1e-9 {
                    better_than_preorder.push(n);
                }
            }
        }
        assert!(!better_than_preorder.is_empty());
    }

    /// `--placement optimal` searched by its bounds (`splits_by_bounds`) is the one-table
    /// free split's answer, which tests/socket_dp.rs proves against brute force: 2 sockets × 2
    /// L3 domains with one line per domain (chiplet-2s-4x8-domain-lines' prices), at most 3
    /// threads a domain, the root in domain 0 or 3, n from 2 to 8, under min, max and
    /// blend:0.5; with a loose incumbent (twice the optimum) and with the optimum itself
    /// (a tie is kept). With an incumbent below the optimum no split holds a tree: the answer
    /// is none, with that incumbent as the certified bound.
    #[test]
    fn a_free_split_searched_by_its_bounds_is_the_one_table_answer() {
        let pricing = std::sync::Arc::new(TreeCosts {
            domains: Some(modelopt_model::placed_tree::Domains {
                per_socket: 2,
                remote_domain: 164.5,
            }),
            ..domain_lines()
        });
        let limits = Limits::default();
        let quiet = Progress::none();
        for root in [0u32, 3] {
            for n in 2..=8u32 {
                let mut thread_sockets: Vec<u32> = (0..n).map(|t| t / 3).collect();
                thread_sockets[0] = root;
                let space = RootedTreeSpace {
                    threads: n,
                    thread_sockets,
                    root_thread: 0,
                    pricing: pricing.clone(),
                    capacity: Some(vec![3; 4]),
                };
                for objective in [Objective::Min, Objective::Max, Objective::Blend(0.5)] {
                    let table =
                        optimal_with(&space, TreeSearch::Dp, &objective, &limits, &quiet).unwrap();
                    assert!(table.exact(), "{objective} root {root} n {n}");
                    let optimum = score(&objective, &table.cost);
                    let ctl = Control {
                        limits: &limits,
                        deadline: limits.deadline(),
                        progress: &quiet,
                    };
                    let search = |incumbent| match splits_by_bounds(
                        &space, &[3; 4], root, &objective, &ctl, incumbent,
                    ) {
                        Ok(Ok(found)) => found,
                        Ok(Err(held_back)) => panic!("root {root} n {n}: {held_back:?}"),
                        Err(e) => panic!("root {root} n {n}: {e}"),
                    };
                    for incumbent in [2.0 * optimum, optimum] {
                        let by_bounds = search(incumbent);
                        assert_eq!(by_bounds.stopped, None);
                        let (split, found) = by_bounds.found.unwrap();
                        assert_eq!(
                            cost_key(&objective, found.cost.min_ns, found.cost.max_ns),
                            cost_key(&objective, table.cost.min_ns, table.cost.max_ns),
                            "{objective} root {root} n {n}: {split:?}"
                        );
                        assert!((by_bounds.bound - optimum).abs() < 1e-9);
                    }
                    let below = search(optimum - 1.0);
                    assert_eq!(below.stopped, None);
                    assert!(below.found.is_none() && below.shaped.is_none());
                    assert_eq!(below.bound, optimum - 1.0);
                }
            }
        }
    }

    /// `splits_by_bounds` over the box `capacity` with the root on unit 0, under min, from
    /// `incumbent`, within `limits` and without progress.
    fn by_bounds_within(
        space: &RootedTreeSpace,
        capacity: &[u32],
        incumbent: f64,
        limits: &Limits,
    ) -> Result<Result<SplitsByBounds, StopReason>, TreeSearchError> {
        let quiet = Progress::none();
        let ctl = Control {
            limits,
            deadline: limits.deadline(),
            progress: &quiet,
        };
        splits_by_bounds(space, capacity, 0, &Objective::Min, &ctl, incumbent)
    }

    /// `threads` placed freely over 2 sockets × 4 L3 domains of `per_domain` cores with one line
    /// per domain (`domain_lines`), the root thread 0 on unit 0.
    fn free_over_eight_domains(threads: u32, per_domain: u32) -> RootedTreeSpace {
        RootedTreeSpace {
            threads,
            thread_sockets: (0..threads).map(|t| t / per_domain).collect(),
            root_thread: 0,
            pricing: std::sync::Arc::new(domain_lines()),
            capacity: Some(vec![per_domain; 8]),
        }
    }

    /// `found` ended proven (no stop), with a tree of the one table's score keys.
    fn assert_proven_as(
        found: SplitsByBounds,
        table: &TreeOptimum,
        objective: &Objective,
        what: &str,
    ) {
        assert_eq!(found.stopped, None, "{objective} {what}");
        let (_, tree) = found.found.unwrap();
        assert_eq!(
            cost_key(objective, tree.cost.min_ns, tree.cost.max_ns),
            cost_key(objective, table.cost.min_ns, table.cost.max_ns),
            "{objective} {what}"
        );
    }

    #[test]
    fn splits_searched_while_the_clips_grow_keep_the_one_table_answer() {
        // 12 threads over 2 sockets × 4 L3 domains of 3 with one line per domain, the root on
        // unit 0. From 1.25 times the optimum more than 64 splits survive the clip of 2, so the
        // split of least bound is searched before the clip of 3 (from the optimum itself few
        // survive, and none is). The answer is the one table's over the box (tests/socket_dp.rs
        // proves that one against brute force), under min and max, from the loose incumbent and
        // from the optimum itself (kept on a tie).
        let space = free_over_eight_domains(12, 3);
        // The 11 threads besides the root over rooms (2, 3, …, 3): with a on unit 0 (a ≤ 2),
        // the rest over seven units of 3 is the coefficient of x^(11 − a) in
        // ((1 − x⁴)/(1 − x))⁷ = Σ_j (−1)^j C(7, j) C(m − 4j + 6, 6): m = 11: 12,376 − 12,012 +
        // 1,764 = 2,128; m = 10: 8,008 − 6,468 + 588 = 2,128; m = 9: 5,005 − 3,234 + 147 =
        // 1,918; in all 6,174.
        assert_eq!(count_splits(12, &[3; 8], 0), 6_174);
        let limits = Limits::default();
        let quiet = Progress::none();
        let ctl = Control {
            limits: &limits,
            deadline: limits.deadline(),
            progress: &quiet,
        };
        for objective in [Objective::Min, Objective::Max] {
            let table = optimal_with(&space, TreeSearch::Dp, &objective, &limits, &quiet).unwrap();
            assert!(table.exact(), "{objective}");
            let optimum = score(&objective, &table.cost);
            for incumbent in [1.25 * optimum, optimum] {
                let found = match splits_by_bounds(&space, &[3; 8], 0, &objective, &ctl, incumbent)
                {
                    Ok(Ok(found)) => found,
                    other => panic!("{objective}: {:?}", other.map(|r| r.err())),
                };
                if incumbent > optimum {
                    assert!(found.probes >= 1, "{objective} from {incumbent}");
                }
                assert_proven_as(found, &table, &objective, &format!("from {incumbent}"));
            }
            // Holding 32 survivors, under a memory limit just below the clip of 3's pass: more
            // survive the clip of 2 than are held, and no larger clip may run. The walk's split
            // of least bound is searched and the splits walked again under its optimum, which
            // holds those left; the same answer, proven (without the second walk: no survivors,
            // and the answer stops at the memory limit).
            let classes = line_classes(&space).unwrap();
            let clip_3 = socket_dp::bound_memory_within(
                &classes,
                &objective,
                &[3; 8],
                3,
                Some(1.25 * optimum),
            );
            let narrow = Limits {
                memory_limit: clip_3 - 1,
                ..Limits::default()
            };
            let narrow_ctl = Control {
                limits: &narrow,
                deadline: narrow.deadline(),
                progress: &quiet,
            };
            let by_bounds = splits_by_bounds_holding(
                &space,
                &[3; 8],
                0,
                &objective,
                (&narrow_ctl, 32),
                1.25 * optimum,
            )
            .unwrap()
            .unwrap();
            assert!(by_bounds.probes >= 1, "{objective}");
            assert_proven_as(by_bounds, &table, &objective, "holding 32");
            // The walk's split of least bound (searched when too many survive to hold) is the
            // least of the splits with a finite bound (the pass cut at 1.25 times the optimum)
            // by (bound, then the split first in descending order), whatever the incumbent of
            // the walk.
            let in_order = socket_dp::SplitsInOrder::new(&classes, &[3; 8], 0);
            let bounds = socket_dp::SplitBounds::over(
                &classes,
                &objective,
                &[3; 8],
                &[2; 8],
                0,
                Some(1.25 * optimum),
                &limits,
                &quiet,
                socket_dp::Admission::BySize,
            )
            .unwrap()
            .unwrap();
            for incumbent in [1.25 * optimum, optimum, 0.0] {
                let walked =
                    survivors_of(&bounds, &in_order, 12, &[3; 8], 0, incumbent, (&ctl, 1)).unwrap();
                let all = survivors_of(
                    &bounds,
                    &in_order,
                    12,
                    &[3; 8],
                    0,
                    f64::INFINITY,
                    (&ctl, MAX_SURVIVORS),
                )
                .unwrap()
                .survivors
                .unwrap();
                let least = all
                    .iter()
                    .min_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(&a.1)))
                    .cloned();
                assert_eq!(walked.first, least, "{objective} under {incumbent}");
                assert_eq!(walked.first.map(|f| f.0), Some(walked.least));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// The walk by classes finds what the walk over every split finds (the same survivors
        /// in the same order, the same least bound and split of least bound, the same overflow
        /// past the number held), on boxes over 2 sockets × 4 L3 domains with empty units
        /// (which `SplitsInOrder` tells apart; about half of them, so that an uncut pass fits) and
        /// capacities under and over the clip.
        #[test]
        fn the_walk_by_classes_is_the_walk_over_the_splits(
            capacity in proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(0u32), 1u32..=4], 8),
            fill in 0.0f64..=1.0,
            root_pick in 0usize..8,
            clip in 2u32..=3,
            cut in 0.9f64..1.6,
            held in proptest::sample::select(vec![1usize, 7, MAX_SURVIVORS]),
            max in proptest::bool::ANY,
        ) {
            let used: Vec<u32> = (0..8u32).filter(|&u| capacity[u as usize] > 0).collect();
            proptest::prop_assume!(!used.is_empty());
            let root = used[root_pick % used.len()];
            let total: u32 = capacity.iter().sum();
            let n = 1 + ((f64::from(total - 1) * fill).round() as u32).min(total - 1);
            let objective = if max { Objective::Max } else { Objective::Min };
            let space = free_over_eight_domains(n, 4);
            let classes = line_classes(&space).unwrap();
            let within: Vec<u32> = capacity.iter().map(|&c| c.min(clip)).collect();
            let limits = Limits::default();
            let quiet = Progress::none();
            let ctl = Control {
                limits: &limits,
                deadline: limits.deadline(),
                progress: &quiet,
            };
            // An uncut pass over most of the eight units is over the default budget (4 · 10⁸
            // corner pairs for a clip of 2 on all of them): those cases are left out, half the
            // units empty on average keeps them rare. So are passes over 10⁷ (the law is the
            // walks', which take their bounds as given; the largest passes took most of the
            // test's 53 s in a debug build).
            let pass_limits = Limits {
                work_budget: 10_000_000,
                ..Limits::default()
            };
            let bounds = socket_dp::SplitBounds::over(
                &classes,
                &objective,
                &capacity,
                &within,
                root,
                None,
                &pass_limits,
                &quiet,
                socket_dp::Admission::BySize,
            );
            proptest::prop_assume!(bounds.is_ok());
            let bounds = bounds.unwrap().unwrap();
            let in_order = socket_dp::SplitsInOrder::new(&classes, &capacity, root);
            // The incumbent: `cut` times the least bound of any split (a few or many survive).
            let least = survivors_by_splits(
                (&bounds, &in_order, n, &capacity, root, f64::INFINITY),
                (&ctl, held),
            )
            .unwrap()
            .least;
            let incumbent = if least.is_finite() { cut * least } else { 1000.0 };
            let args = (&bounds, &in_order, n, capacity.as_slice(), root, incumbent);
            let by_splits = survivors_by_splits(args, (&ctl, held)).unwrap();
            let by_classes = survivors_by_classes(args, (&ctl, held)).unwrap();
            proptest::prop_assert_eq!(&by_classes.survivors, &by_splits.survivors);
            proptest::prop_assert_eq!(by_classes.least.to_bits(), by_splits.least.to_bits());
            proptest::prop_assert_eq!(&by_classes.first, &by_splits.first);
            proptest::prop_assert_eq!(by_splits.opened, 0);
            // The classes opened list each surviving split once, where not too many survive.
            if let Some(list) = &by_classes.survivors {
                proptest::prop_assert_eq!(by_classes.opened, list.len() as u64);
            }
        }
    }

    #[test]
    fn a_walk_over_more_splits_than_the_budget_buys_is_refused_up_front() {
        // 2 sockets × 2 domains of 3, 8 threads, the root on unit 0: the 7 others over rooms
        // (2, 3, 3, 3). By hand, a + b + c + d = 7, a ≤ 2, the rest ≤ 3: a = 0: 36 − 3·10 = 6;
        // a = 1: 28 − 3·6 = 10; a = 2: 21 − 3·3 = 12; 28 splits, a walk of ⌈28 / 4⌉ = 7 units.
        // (That each clip's walk is then charged is not visible from here: the search reports
        // no work spent, and a pass's work is not known by hand.)
        assert_eq!(count_splits(8, &[3; 4], 0), 28);
        let space = RootedTreeSpace {
            threads: 8,
            thread_sockets: (0..8).map(|t| t / 3).collect(),
            root_thread: 0,
            pricing: std::sync::Arc::new(TreeCosts {
                domains: Some(modelopt_model::placed_tree::Domains {
                    per_socket: 2,
                    remote_domain: 164.5,
                }),
                ..domain_lines()
            }),
            capacity: Some(vec![3; 4]),
        };
        // Six units cannot walk the splits once: held back by the budget before any pass,
        // which names the walk's 7 units as the budget that starts it.
        assert_eq!(refused_walk(&space, &[3; 4], 6), Some(7));
        let found = by_bounds_within(&space, &[3; 4], f64::INFINITY, &Limits::default());
        assert_eq!(found.unwrap().unwrap().stopped, None);
    }

    #[test]
    fn a_box_with_more_splits_than_count_vectors_of_the_clip_is_walked_by_its_classes() {
        // 16 threads over 2 sockets × 4 domains of 4, the root on unit 0: the 15 others over
        // rooms (3, 4, …, 4). With a on unit 0 (a ≤ 3), the rest over seven units of at most 4
        // is Σ_j (−1)^j C(7, j) C(m − 5j + 6, 6) at m = 15 − a: m = 15: 54,264 − 56,056 + 9,702
        // − 35 = 7,875; m = 14: 38,760 − 35,035 + 4,410 = 8,135; m = 13: 27,132 − 21,021 +
        // 1,764 = 7,875; m = 12: 18,564 − 12,012 + 588 = 7,140; in all 31,025 splits. The clip
        // of 2 has 3⁸ = 6,561 count vectors, fewer: the first walk goes by classes, ⌈6,561 / 4⌉
        // = 1,641 units (over the splits it would be ⌈31,025 / 4⌉ = 7,757).
        assert_eq!(count_splits(16, &[4; 8], 0), 31_025);
        assert_eq!(
            WalkOver::choose(16, &[4; 8], 0, &[2; 8]),
            WalkOver::Classes(6_561)
        );
        // 12 threads over domains of 3: 6,174 splits (counted by hand above), fewer than 6,561.
        assert_eq!(
            WalkOver::choose(12, &[3; 8], 0, &[2; 8]),
            WalkOver::Splits(6_174)
        );
        let space = free_over_eight_domains(16, 4);
        assert_eq!(refused_walk(&space, &[4; 8], 1_640), Some(1_641));
    }

    /// The budget [`splits_by_bounds`] names as the one that starts it, where `budget` units
    /// hold it back before any pass (and nothing else does); `None` where it started.
    fn refused_walk(space: &RootedTreeSpace, capacity: &[u32], budget: u64) -> Option<u64> {
        let limits = Limits {
            work_budget: budget,
            ..Limits::default()
        };
        match by_bounds_within(space, capacity, f64::INFINITY, &limits).unwrap() {
            Err(StopReason::WorkBudget {
                budget: b,
                needed,
                memory: 0,
            }) if b == budget => Some(needed),
            _ => None,
        }
    }

    #[test]
    fn a_budget_that_runs_out_after_a_clip_refused_by_memory_names_both() {
        // 16 threads over 2 sockets × 4 L3 domains of 4, with one line per domain, the root on
        // unit 0, under an incumbent of 1,500 ns. The clip of 2 a unit (3⁸ count vectors, about
        // 3 MB) fits 4 MiB; the clip of 3 (4⁸ vectors, 32 bytes each for their components
        // alone: 2 MiB, with its covering tables some 30 MB) does not. Budgets of 1.1 to 1.4 ·
        // 10⁶ units range from one that cannot walk the splits to one that finishes (found by
        // trying). Under 4 MiB, where the splits' searches run out of budget after the clip
        // of 3 was refused (at 1.2 · 10⁶), the answer says so and what the clip needs (more
        // memory may finish the search as well as more budget); where few splits were left
        // before it (at 1.3 · 10⁶ the split searched after the clip of 2 leaves few) and under
        // 64 MiB, where no clip is refused by memory, it names the budget alone.
        let space = free_over_eight_domains(16, 4);
        let classes = line_classes(&space).unwrap();
        let clip = |c: u32| {
            socket_dp::bound_memory_within(&classes, &Objective::Min, &[c; 8], 4, Some(1500.0))
        };
        let small = 4u64 << 20;
        assert!(clip(2) <= small && clip(3) > small);
        assert!(clip(3) > (4u64.pow(8)) * 32);
        let stops = |memory_limit: u64| {
            (11..=14u64)
                .filter_map(|step| {
                    let limits = Limits {
                        work_budget: step * 100_000,
                        memory_limit,
                        ..Limits::default()
                    };
                    match by_bounds_within(&space, &[4; 8], 1500.0, &limits) {
                        Ok(Ok(found)) => found.stopped,
                        _ => None,
                    }
                })
                .collect::<Vec<_>>()
        };
        let refused = stops(small);
        let named = |stop: &StopReason| matches!(stop, StopReason::WorkBudget { needed: 0, memory, .. } if *memory == clip(3));
        assert!(refused.iter().any(named), "{refused:?}");
        for stop in &refused {
            assert!(
                named(stop)
                    || matches!(
                        stop,
                        StopReason::WorkBudget {
                            needed: 0,
                            memory: 0,
                            ..
                        }
                    ),
                "{stop:?}"
            );
            if named(stop) {
                assert!(stop.to_string().contains("refused by the memory limit"));
            }
        }
        for stop in stops(64 << 20) {
            assert!(
                matches!(
                    stop,
                    StopReason::WorkBudget {
                        needed: 0,
                        memory: 0,
                        ..
                    }
                ),
                "{stop:?}"
            );
        }
    }

    #[test]
    fn the_balanced_split_deals_threads_in_turn_from_the_root() {
        // Sockets 1, 2, 0, 1, 2: (1, 2, 2).
        assert_eq!(balanced_split(5, &[2, 4, 4], 1), Some(vec![1, 2, 2]));
        // Socket 0 holds one: 0, 1, then socket 1 takes the rest.
        assert_eq!(balanced_split(5, &[1, 4], 0), Some(vec![1, 4]));
        assert_eq!(balanced_split(6, &[1, 4], 0), None);
        assert_eq!(balanced_split(1, &[], 0), None);
    }

    #[test]
    fn the_split_filled_from_the_root_wraps_around() {
        // Units 1 (4 of 4), then 2 (the last 1).
        assert_eq!(filled_from_root(5, &[2, 4, 4], 1), Some(vec![0, 4, 1]));
        // Unit 2 (2), then 0 (2), then 1 (the last 1).
        assert_eq!(filled_from_root(5, &[2, 2, 2], 2), Some(vec![2, 1, 2]));
        assert_eq!(filled_from_root(7, &[2, 2, 2], 0), None);
        assert_eq!(filled_from_root(1, &[0, 2], 0), None);
        assert_eq!(filled_from_root(1, &[], 0), None);
    }

    #[test]
    fn an_exhaustive_search_over_every_split_is_budgeted_as_a_whole() {
        // 14 threads, capacity 8 per socket, root on socket 0: the splits are (8,6), (7,7),
        // (6,8) (socket 0 needs the root). A000081(14) = 32,973 trees, each placed by the
        // two-socket DP (14 units): 461,622 a split, 1,384,866 for the three. A budget of
        // 10^6 admits any one split but not all three.
        let space = RootedTreeSpace {
            capacity: Some(vec![8, 8]),
            ..two_sockets(7)
        };
        let l = limits(None, 1_000_000);
        let err = optimal_with(
            &space,
            TreeSearch::Exhaustive,
            &Objective::Min,
            &l,
            &Progress::none(),
        )
        .unwrap_err();
        assert!(
            matches!(err, TreeSearchError::Budget(ref b) if b.estimate == 1_384_866),
            "{err}"
        );
    }

    #[test]
    fn multinomial_counts_labelings_without_the_root() {
        // 3 sockets of 2, root on socket 0: the 5 others as 1, 2, 2 → 5!/(1!·2!·2!) = 30.
        assert_eq!(placements_per_tree(&[2, 2, 2], 0), 30);
        // Two sockets: the placement DP, n units.
        assert_eq!(placements_per_tree(&[3, 4], 0), 7);
    }

    #[test]
    fn kary_levels_are_complete_trees_in_preorder() {
        // Binary on 6 nodes: 0 → (1 → (3, 4), 2 → (5)).
        assert_eq!(kary_levels(6, 2), vec![0, 1, 2, 2, 1, 2]);
        assert_eq!(kary_levels(4, 3), vec![0, 1, 1, 1]);
        assert_eq!(kary_levels(3, 1), vec![0, 1, 2]);
    }
}
