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

use crate::limits::{Exactness, Limits, Progress};
use crate::objective::{score_key, Objective};
use crate::parallel;
use crate::placement::{self, Placement};
use crate::search::{Ranked, Scored, SearchOptions, SearchStats};
use crate::socket_dp;
use modelopt_model::ccnuma::bcast::{RootedTreeSpace, TreeCosts, TreeSearch};
use modelopt_model::ccnuma::tree::RootedTree;
use modelopt_model::{Algorithm, Cost, ModelError, Request};
use std::collections::HashMap;
use std::rc::Rc;

/// Largest n the automatic method searches exhaustively on one socket (A000081(22) ≈ 2.6e8 would
/// take minutes; 20 takes about a second).
pub const AUTO_EXHAUSTIVE_ONE_SOCKET: u32 = 20;
/// Largest n the automatic method searches exhaustively with a placement per tree.
pub const AUTO_EXHAUSTIVE_SOCKETS: u32 = 18;
/// Largest n [`exhaustive`] accepts (levels are stored in bytes; the count would be absurd).
pub const EXHAUSTIVE_LIMIT: u32 = 32;

/// The costs Eq. (2) needs: T_lev(k) for both bounds and the constant every tree adds.
pub trait TreeCost: Sync {
    /// (T_lev,min(k), T_lev,max(k)) for a node with k ≥ 1 children.
    fn level(&self, k: u32) -> (f64, f64);
    /// (min, max) added to every tree.
    fn offset(&self) -> (f64, f64);
}

impl TreeCost for TreeCosts {
    fn level(&self, k: u32) -> (f64, f64) {
        TreeCosts::level(self, k)
    }
    fn offset(&self) -> (f64, f64) {
        (TreeCosts::offset(self), TreeCosts::offset(self))
    }
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

/// Precomputed T_lev for 0..n children.
#[derive(Debug, Clone)]
pub struct LevelTable {
    min: Vec<f64>,
    max: Vec<f64>,
    offset: (f64, f64),
}

impl LevelTable {
    /// The table for trees of up to `n` nodes.
    pub fn new(cost: &dyn TreeCost, n: usize) -> Self {
        let mut min = vec![0.0; n.max(1)];
        let mut max = vec![0.0; n.max(1)];
        for k in 1..n {
            let (a, b) = cost.level(k as u32);
            min[k] = a;
            max[k] = b;
        }
        LevelTable {
            min,
            max,
            offset: cost.offset(),
        }
    }

    /// (T_min, T_max) of the tree with these preorder levels, one socket, O(n). `scratch` is
    /// reused between calls (three vectors of n).
    pub fn evaluate(&self, levels: &[u32], scratch: &mut Scratch) -> (f64, f64) {
        let n = levels.len();
        scratch.reset(n);
        // Parent of each node: the last node one level up.
        let last = &mut scratch.last_at_level;
        let parent = &mut scratch.parent;
        for (i, &l) in levels.iter().enumerate() {
            if l > 0 {
                parent[i] = last[l as usize - 1];
            }
            last[l as usize] = i as u32;
        }
        let kids = &mut scratch.kids;
        let mx_min = &mut scratch.mx_min;
        let mx_max = &mut scratch.mx_max;
        for i in (1..n).rev() {
            let k = kids[i] as usize;
            let (a, b) = if k > 0 {
                (self.min[k] + mx_min[i], self.max[k] + mx_max[i])
            } else {
                (0.0, 0.0)
            };
            let p = parent[i] as usize;
            kids[p] += 1;
            if a > mx_min[p] {
                mx_min[p] = a;
            }
            if b > mx_max[p] {
                mx_max[p] = b;
            }
        }
        let k = kids[0] as usize;
        if k == 0 {
            return self.offset;
        }
        (
            self.offset.0 + self.min[k] + mx_min[0],
            self.offset.1 + self.max[k] + mx_max[0],
        )
    }
}

/// Reusable buffers of [`LevelTable::evaluate`].
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    last_at_level: Vec<u32>,
    parent: Vec<u32>,
    kids: Vec<u32>,
    mx_min: Vec<f64>,
    mx_max: Vec<f64>,
}

impl Scratch {
    fn reset(&mut self, n: usize) {
        self.last_at_level.clear();
        self.last_at_level.resize(n + 1, 0);
        self.parent.clear();
        self.parent.resize(n, 0);
        self.kids.clear();
        self.kids.resize(n, 0);
        self.mx_min.clear();
        self.mx_min.resize(n, 0.0);
        self.mx_max.clear();
        self.mx_max.resize(n, 0.0);
    }
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
    /// Trees enumerated (pruned ones included); for the DP, the frontier points built.
    pub trees: u64,
    /// Whether the result is a proven optimum of the model (false only when a time limit
    /// stopped the socket DP).
    pub exact: bool,
    /// The same with why a search stopped early and its certified gap.
    pub exactness: Exactness,
}

impl TreeOptimum {
    /// The tree, nodes numbered in preorder.
    pub fn tree(&self) -> Result<RootedTree, ModelError> {
        RootedTree::from_levels(&self.levels).map_err(|e| ModelError::Unsupported(e.to_string()))
    }
}

/// The ranking key of a cost under an objective: score, then the other bound.
pub fn cost_key(objective: &Objective, min: f64, max: f64) -> (i64, i64) {
    let c = Cost::range(min, max);
    (
        score_key(
            objective
                .score(&c, modelopt_model::Metric::Latency)
                .unwrap_or(min),
        ),
        score_key(objective.tie_score(&c)),
    )
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
pub fn exhaustive(
    cost: &dyn TreeCost,
    n: u32,
    objective: &Objective,
) -> Result<TreeOptimum, ModelError> {
    check_exhaustive(n)?;
    let table = LevelTable::new(cost, n as usize);
    let nn = n as usize;
    const BATCH: usize = 1 << 14;
    let mut generator = LevelSequences::new(nn);
    let batches = std::iter::from_fn(move || {
        let mut buf: Vec<u8> = Vec::with_capacity(BATCH * nn);
        let mut count = 0;
        while count < BATCH {
            match generator.next_tree() {
                Some(levels) => {
                    buf.extend(levels.iter().map(|&l| l as u8));
                    count += 1;
                }
                None => break,
            }
        }
        (count > 0).then_some(buf)
    });
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
        (best, trees)
    });
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
    let best = best.ok_or_else(|| ModelError::Unsupported("no tree to search".into()))?;
    Ok(TreeOptimum {
        sockets: vec![0; best.levels.len()],
        levels: best.levels,
        cost: Cost::range(best.min, best.max),
        trees,
        exact: true,
        exactness: Exactness::Exact,
    })
}

fn check_exhaustive(n: u32) -> Result<(), ModelError> {
    if n < 2 {
        return Err(ModelError::Threads {
            threads: n.into(),
            reason: "a broadcast tree needs at least 2 threads".into(),
        });
    }
    if n > EXHAUSTIVE_LIMIT {
        return Err(ModelError::Threads {
            threads: n.into(),
            reason: format!(
                "the exhaustive tree search stops at {EXHAUSTIVE_LIMIT} threads ({} trees at 32); use the dp search",
                "about 1e12"
            ),
        });
    }
    Ok(())
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

/// The exact one-socket dynamic program over Eq. (2) (see the module docs). O(n²·|F|).
pub fn dp(cost: &dyn TreeCost, n: u32, objective: &Objective) -> Result<TreeOptimum, ModelError> {
    if n < 2 {
        return Err(ModelError::Threads {
            threads: n.into(),
            reason: "a broadcast tree needs at least 2 threads".into(),
        });
    }
    if n > 1 << 20 {
        return Err(ModelError::Threads {
            threads: n.into(),
            reason: "the tree DP is limited to 2^20 threads".into(),
        });
    }
    let nn = n as usize;
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
    for m in 2..=nn {
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
    }
    let (off_min, off_max) = table.offset;
    let best = frontier[nn]
        .iter()
        .enumerate()
        .min_by_key(|(i, p)| (cost_key(objective, off_min + p.min, off_max + p.max), *i))
        .map(|(i, p)| (i, *p))
        .ok_or_else(|| ModelError::Unsupported("empty frontier".into()))?;
    let mut memo: HashMap<(usize, u32), Rc<Vec<u32>>> = HashMap::new();
    let levels = build(&frontier, nn, best.0 as u32, &mut memo);
    let (a, b) = table.evaluate(&levels, &mut Scratch::default());
    debug_assert!((a - off_min - best.1.min).abs() < 1e-6);
    Ok(TreeOptimum {
        sockets: vec![0; nn],
        levels: levels.to_vec(),
        cost: Cost::range(a, b),
        trees: frontier.iter().map(|f| f.len() as u64).sum(),
        exact: true,
        exactness: Exactness::Exact,
    })
}

/// The level sequence (root 0) of the tree a frontier point stands for.
fn build(
    frontier: &[Vec<Point>],
    m: usize,
    point: u32,
    memo: &mut HashMap<(usize, u32), Rc<Vec<u32>>>,
) -> Rc<Vec<u32>> {
    if let Some(t) = memo.get(&(m, point)) {
        return t.clone();
    }
    let p = frontier[m][point as usize];
    let mut out = vec![0u32];
    if m > 1 {
        let k = p.k as usize;
        let big = (m - 1).div_ceil(k);
        let sub = build(frontier, big, p.child, memo);
        // r subtrees of size big, the others one node smaller (the big one minus its last leaf,
        // never costlier: both bounds are monotone under removing a leaf).
        let mut sizes = vec![big];
        let small_count = k * big - (m - 1);
        for i in 0..k - 1 {
            sizes.push(if i < k - 1 - small_count {
                big
            } else {
                big - 1
            });
        }
        debug_assert_eq!(sizes.iter().sum::<usize>(), m - 1);
        for s in sizes {
            out.extend(sub[..s].iter().map(|l| l + 1));
        }
    }
    let rc = Rc::new(out);
    memo.insert((m, point), rc.clone());
    rc
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

/// A lower bound on (T_min, T_max) of a tree under every placement on `sockets` sockets: every
/// edge costs at least R_R, every fetch from memory at least R_I, the slowest child's group holds
/// at least that child, and the largest group holds at least ⌈k/S⌉ of the k children.
/// Needs R_Q ≥ R_R and R_QI ≥ R_I, which the machine loader checks.
pub fn placement_lower_bound(levels: &[u32], costs: &TreeCosts, sockets: u32) -> (f64, f64) {
    let s = sockets.max(1);
    let n = levels.len();
    let mut parent = vec![0usize; n];
    let mut last = vec![0usize; n + 1];
    for (i, &l) in levels.iter().enumerate() {
        if l > 0 {
            parent[i] = last[l as usize - 1];
        }
        last[l as usize] = i;
    }
    let (rr, ri, rl) = (costs.socket, costs.memory, costs.local);
    let mut kids = vec![0u32; n];
    let mut hi = vec![[f64::NEG_INFINITY; 2]; n];
    let mut lo = vec![[f64::INFINITY; 2]; n];
    let mut value = vec![[0.0f64; 2]; n];
    for i in (0..n).rev() {
        let k = kids[i];
        if k > 0 {
            let big = f64::from(k.div_ceil(s));
            let kf = f64::from(k);
            let a = [ri, ri + 2.0 * kf * rr + rr];
            for b in 0..2 {
                let (slow, fast) = (a[b] + hi[i][b], a[b] + lo[i][b]);
                let (one, many) = if b == 0 {
                    (ri + rr, ri + big * rr)
                } else {
                    (ri + 2.0 * rr, ri + 2.0 * big * rr)
                };
                value[i][b] = (slow + one).max(fast + many);
            }
        }
        if i > 0 {
            let p = parent[i];
            kids[p] += 1;
            for b in 0..2 {
                let arr = rr + rl + value[i][b];
                hi[p][b] = hi[p][b].max(arr);
                lo[p][b] = lo[p][b].min(arr);
            }
        }
    }
    let off = costs.offset();
    (off + value[0][0], off + value[0][1])
}

/// The best tree and placement for a rooted-tree space, with the default [`Limits`] and no
/// progress sink. See [`optimal_with`].
pub fn optimal(
    space: &RootedTreeSpace,
    method: TreeSearch,
    objective: &Objective,
) -> Result<TreeOptimum, ModelError> {
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
///   socket, count vector). Its size is estimated first and refused over `limits.work_budget`;
///   when `limits.time_limit` passes it returns the one-socket DP tree placed optimally, marked
///   [`Exactness::Bounded`] with the certified [`socket_dp::lower_bound`] and the gap.
/// - Several sockets, `exhaustive`: every tree with its best placement (the placement DP on two
///   sockets, every labeling on more), pruned by a sound lower bound.
pub fn optimal_with(
    space: &RootedTreeSpace,
    method: TreeSearch,
    objective: &Objective,
    limits: &Limits,
    progress: &Progress,
) -> Result<TreeOptimum, ModelError> {
    if let Some(capacity) = &space.capacity {
        return free_split(space, capacity, method, objective, limits, progress);
    }
    let n = space.threads;
    let counts = space.nodes_per_socket();
    let used = counts.iter().filter(|&&c| c > 0).count();
    let root_socket = space.root_socket();
    if used <= 1 {
        return match method {
            TreeSearch::Exhaustive => exhaustive(&space.costs, n, objective),
            TreeSearch::Dp => dp(&space.costs, n, objective),
            TreeSearch::Auto if n <= AUTO_EXHAUSTIVE_ONE_SOCKET => {
                exhaustive(&space.costs, n, objective)
            }
            TreeSearch::Auto => dp(&space.costs, n, objective),
        }
        .map(|mut t| {
            t.sockets = vec![root_socket; t.levels.len()];
            t
        });
    }
    match method {
        TreeSearch::Exhaustive => exhaustive_placed(space, &counts, root_socket, objective),
        TreeSearch::Dp | TreeSearch::Auto => {
            socket_optimum(space, &counts, root_socket, objective, limits, progress)
        }
    }
}

/// `--placement optimal`: the best tree over every split of the threads with at most
/// `capacity[s]` on socket s (the root on the root thread's socket). The DP reads every split
/// from one table; `exhaustive` searches each split in turn. Ties: the lower score, then the
/// other bound, then the split found first (socket 0 holding the most threads first).
fn free_split(
    space: &RootedTreeSpace,
    capacity: &[u32],
    method: TreeSearch,
    objective: &Objective,
    limits: &Limits,
    progress: &Progress,
) -> Result<TreeOptimum, ModelError> {
    let n = space.threads;
    let root_socket = space.root_socket();
    let box_counts: Vec<u32> = capacity.iter().map(|&c| c.min(n)).collect();
    let splits = splits_of(n, &box_counts, root_socket);
    if splits.is_empty() {
        return Err(ModelError::Threads {
            threads: n.into(),
            reason: format!("{n} threads do not fit sockets of {capacity:?} threads"),
        });
    }
    let mut best: Option<((i64, i64), TreeOptimum)> = None;
    let mut keep = |found: TreeOptimum| {
        let key = cost_key(objective, found.cost.min_ns, found.cost.max_ns);
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            best = Some((key, found));
        }
    };
    match method {
        TreeSearch::Exhaustive => {
            for counts in &splits {
                let fixed = fixed_split(space, counts);
                keep(optimal_with(&fixed, method, objective, limits, progress)?);
            }
        }
        TreeSearch::Dp | TreeSearch::Auto => {
            let (table, filled) =
                socket_dp::SocketTable::build(&space.costs, &box_counts, None, limits, progress)
                    .map_err(|e| ModelError::Unsupported(e.to_string()))?;
            if let socket_dp::Filled::Stopped(reason) = filled {
                return Err(ModelError::Unsupported(format!(
                    "the socket DP over every split stopped: {reason}"
                )));
            }
            for counts in &splits {
                if let Some(placed) = table.best(root_socket, counts, objective) {
                    keep(placed_optimum(&placed, table.transitions)?);
                }
            }
        }
    }
    best.map(|(_, t)| t)
        .ok_or_else(|| ModelError::Unsupported("no placement fits the socket counts".into()))
}

/// Every vector of per-socket counts summing to `n`, each at most `limit[s]`, with at least one
/// thread on `root_socket`; socket 0 holding the most first (descending lexicographic order).
fn splits_of(n: u32, limit: &[u32], root_socket: u32) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let s = limit.len();
    if s == 0 {
        return out;
    }
    let mut cur = vec![0u32; s];
    // Odometer over every vector in the box, highest first; keep those summing to n.
    for (i, c) in cur.iter_mut().enumerate() {
        *c = limit[i];
    }
    loop {
        if cur.iter().sum::<u32>() == n && cur.get(root_socket as usize).is_some_and(|&c| c > 0) {
            out.push(cur.clone());
        }
        let mut i = s;
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            if cur[i] > 0 {
                cur[i] -= 1;
                for (j, c) in cur.iter_mut().enumerate().skip(i + 1) {
                    *c = limit[j];
                }
                break;
            }
        }
    }
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
        costs: space.costs,
        search: space.search,
        capacity: None,
    }
}

/// A DP tree as a [`TreeOptimum`] (preorder levels and sockets).
fn placed_optimum(
    placed: &socket_dp::PlacedTree,
    transitions: u64,
) -> Result<TreeOptimum, ModelError> {
    let tree = RootedTree::from_parents(&placed.parents)
        .map_err(|e| ModelError::Unsupported(e.to_string()))?;
    let order = tree.preorder();
    let depths = tree.depths();
    Ok(TreeOptimum {
        levels: order.iter().map(|&v| depths[v as usize]).collect(),
        sockets: order.iter().map(|&v| placed.sockets[v as usize]).collect(),
        cost: placed.cost,
        trees: transitions,
        exact: true,
        exactness: Exactness::Exact,
    })
}

/// The exact socket DP, or (time limit) the best fallback with a certified gap.
fn socket_optimum(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
    limits: &Limits,
    progress: &Progress,
) -> Result<TreeOptimum, ModelError> {
    let n = space.threads;
    // The incumbent: the best of the flat tree and the one-socket optimum, each placed (exactly
    // on two sockets; on more, threads taken in preorder, each node on its thread's socket).
    let mut incumbent: Option<f64> = None;
    let flat: Vec<u32> = (0..n).map(|i| u32::from(i > 0)).collect();
    for levels in [flat, dp(&space.costs, n, objective)?.levels] {
        let tree =
            RootedTree::from_levels(&levels).map_err(|e| ModelError::Unsupported(e.to_string()))?;
        let cost = if counts.len() <= 2 {
            placement::dp(&tree, counts, root_socket, &space.costs, objective).map(|p| p.cost)
        } else {
            preorder_labels(&tree, counts, root_socket)
                .and_then(|labels| space.costs.evaluate(&tree, &labels).ok())
        };
        if let Some(c) = cost {
            let score = objective
                .score(&c, modelopt_model::Metric::Latency)
                .unwrap_or(c.min_ns);
            incumbent = Some(incumbent.map_or(score, |i: f64| i.min(score)));
        }
    }
    let (found, filled, transitions) = socket_dp::optimal(
        &space.costs,
        counts,
        root_socket,
        objective,
        incumbent,
        limits,
        progress,
    )
    .map_err(|e| ModelError::Unsupported(e.to_string()))?;
    if let Some(placed) = found {
        return placed_optimum(&placed, transitions);
    }
    let stopped = match filled {
        socket_dp::Filled::Stopped(reason) => reason,
        socket_dp::Filled::Complete => {
            return Err(ModelError::Unsupported(
                "no placement fits the socket counts".into(),
            ))
        }
    };
    // Stopped early: the one-socket optimum placed exactly on two sockets (by every labeling's
    // cheapest on more), with the certified lower bound of every tree and placement.
    let one = dp(&space.costs, n, objective)?;
    let tree = one.tree()?;
    let placed = if counts.len() <= 2 {
        placement::dp(&tree, counts, root_socket, &space.costs, objective)
    } else {
        placement::exhaustive(&tree, counts, root_socket, &space.costs, objective)
    }
    .ok_or_else(|| ModelError::Unsupported("no placement fits the socket counts".into()))?;
    let order = tree.preorder();
    let score = objective
        .score(&placed.cost, modelopt_model::Metric::Latency)
        .unwrap_or(placed.cost.min_ns);
    let bound = socket_dp::lower_bound(&space.costs, n, counts.len() as u32);
    Ok(TreeOptimum {
        sockets: order.iter().map(|&v| placed.sockets[v as usize]).collect(),
        levels: one.levels,
        cost: placed.cost,
        trees: transitions,
        exact: false,
        exactness: Exactness::bounded(stopped, score, Some(bound)),
    })
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

/// Every tree with its exact best placement (see [`optimal_with`]).
fn exhaustive_placed(
    space: &RootedTreeSpace,
    counts: &[u32],
    root_socket: u32,
    objective: &Objective,
) -> Result<TreeOptimum, ModelError> {
    let n = space.threads;
    check_exhaustive(n)?;
    let nn = n as usize;
    let place = |tree: &RootedTree| {
        if counts.len() <= 2 {
            placement::dp(tree, counts, root_socket, &space.costs, objective)
        } else {
            placement::exhaustive(tree, counts, root_socket, &space.costs, objective)
        }
    };
    // Incumbent: the best placements of the one-socket DP tree and of the flat tree. Trees whose
    // lower bound scores strictly worse are skipped; ties are still priced, so the result is
    // the exhaustive one.
    let mut incumbent = i64::MAX;
    let flat: Vec<u32> = (0..n).map(|i| u32::from(i > 0)).collect();
    for levels in [dp(&space.costs, n, objective)?.levels, flat] {
        let tree =
            RootedTree::from_levels(&levels).map_err(|e| ModelError::Unsupported(e.to_string()))?;
        if let Some(p) = place(&tree) {
            incumbent = incumbent.min(cost_key(objective, p.cost.min_ns, p.cost.max_ns).0);
        }
    }
    const BATCH: usize = 1 << 10;
    let mut generator = LevelSequences::new(nn);
    let batches = std::iter::from_fn(move || {
        let mut buf: Vec<u8> = Vec::with_capacity(BATCH * nn);
        let mut count = 0;
        while count < BATCH {
            match generator.next_tree() {
                Some(levels) => {
                    buf.extend(levels.iter().map(|&l| l as u8));
                    count += 1;
                }
                None => break,
            }
        }
        (count > 0).then_some(buf)
    });
    let sockets = counts.len() as u32;
    type Found = Option<((i64, i64), Vec<u32>, Placement)>;
    let results: Vec<(Found, u64)> = parallel::map_iter(batches, |buf| {
        let mut best: Found = None;
        let mut trees = 0u64;
        for chunk in buf.chunks_exact(nn) {
            let levels: Vec<u32> = chunk.iter().map(|&l| u32::from(l)).collect();
            trees += 1;
            let (lb_min, lb_max) = placement_lower_bound(&levels, &space.costs, sockets);
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
        (best, trees)
    });
    let mut best: Found = None;
    let mut trees = 0;
    for (b, t) in results {
        trees += t;
        best = match (best, b) {
            (Some(x), Some(y)) => Some(if (y.0, &y.1) < (x.0, &x.1) { y } else { x }),
            (x, None) => x,
            (None, y) => y,
        };
    }
    let (_, levels, placed) =
        best.ok_or_else(|| ModelError::Unsupported("no placement fits the socket counts".into()))?;
    // Node ids of RootedTree::from_levels are preorder positions.
    Ok(TreeOptimum {
        sockets: placed.sockets.clone(),
        levels,
        cost: placed.cost,
        trees,
        exact: true,
        exactness: Exactness::Exact,
    })
}

/// Rank a `cla-tree`-like algorithm over its rooted-tree space: the optimum, turned into thread
/// ids and priced again by the algorithm (so the answer is the model's own number).
///
/// This is what the search driver calls for [`modelopt_model::Space::RootedTrees`], with the
/// default [`Limits`] until [`SearchOptions`] carries them (see [`rank_rooted_trees_with`]).
pub fn rank_rooted_trees(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    space: &RootedTreeSpace,
) -> Result<Ranked, ModelError> {
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
) -> Result<Ranked, ModelError> {
    let found = optimal_with(space, space.search, &options.objective, limits, progress)?;
    let tree = found.tree()?;
    let params = space.assign_threads(&tree, &found.sockets)?;
    let cost = algorithm.cost(request, &params)?;
    let score = options
        .objective
        .score(&cost, request.metric())
        .ok_or_else(|| ModelError::Unsupported("the tree search optimizes latency only".into()))?;
    Ok(Ranked {
        best: vec![Scored {
            params,
            cost,
            score,
        }],
        stats: SearchStats {
            evaluated: found.trees,
            infeasible: 0,
            pruned: 0,
        },
        // A heuristic result: not proven, though its search ran to the end.
        exactness: if found.exact {
            crate::limits::Exactness::Exact
        } else {
            crate::limits::Exactness::bounded(crate::limits::StopReason::Complete, score, None)
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandy() -> TreeCosts {
        TreeCosts {
            local: 2.3,
            socket: 35.0,
            remote: 94.0,
            memory: 70.0,
            remote_memory: 107.0,
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
            let (lo, hi) = placement_lower_bound(l, &c, 2);
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
}
