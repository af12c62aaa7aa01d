//! Searching a [`PricedTreeSpace`]: rooted trees placed on sockets whose cost the algorithm
//! prices only whole ([`Algorithm::cost`] on a [`Params::RootedTree`]), with no per-subtree
//! recursion to build a dynamic program or a bound on.
//!
//! The collectives behind such spaces are the `.cla` programs priced by their CLa graph (the
//! tree barrier and the small reduction on ccNUMA machines): contention on a line couples
//! concurrent subtrees (docs/cla.md §4), so the cost of a tree is not a function of its
//! subtrees' costs. What a search can then promise:
//!
//! 1. **Candidates first.** A documented set of trees over the threads in socket order (the
//!    flat tree; complete k-ary trees, k = 2, 3, 4, 8; the binomial tree; one leader per socket
//!    below the root with the socket's other threads flat or binary below it) is priced before
//!    anything else. It is cheap (a handful of pricings), so every answer is at least the best
//!    of them.
//! 2. **Exhaustive when affordable.** Every rooted tree (canonical level sequences, one per
//!    unlabeled shape) times every labeling of its non-root nodes with groups
//!    ([`PricedTreeSpace::thread_groups`]: sockets, or L3 domains on chiplet machines; the
//!    multinomial of the group counts; with a free split, every split the sockets hold) is
//!    priced, if that many pricings, each weighted by
//!    [`PricedTreeSpace::work_per_configuration`], fit the work budget. A completed pass is
//!    exact: its best is the optimum over every tree and every placement, because threads of
//!    one group are interchangeable in the model (seed 001 footnote 2 for sockets), so a shape
//!    and a group labeling fix the cost.
//! 3. **Otherwise improved, and flagged.** Over budget (or when group labels do not fix the
//!    cost, [`PricedTreeSpace::sockets_fix_cost`]), the best candidate is improved by descent
//!    (`improve`: every re-parenting of a thread and every exchange of two threads of
//!    different groups, priced in parallel chunks, the best of the first improving chunk taken) until a local
//!    optimum, the work budget (each pricing counted) or the deadline. The result is returned
//!    with [`Exactness::Bounded`], the budget as the reason and, under `--objective min`, the
//!    pricing's certified bound on T_min ([`PricedTreeSpace::t_min_lower_bound`]) with the gap
//!    (the search itself knows none for a black-box cost; max and blends get none); a time
//!    limit during the exhaustive pass returns the best so far the same way.
//!
//! `--search` ([`SearchOptions::tree_search`]): `auto` is the search above; `exhaustive` asks
//! for step 2 only, and is refused before anything is priced (with the budget's estimate, or
//! because labels do not fix the cost) rather than answered by step 3; `dp` is refused, since
//! there is no dynamic program over a graph-priced cost.
//!
//! Ties follow the optimizer's total order (score, tie score, then the parameters), so the
//! answer does not depend on the order in which batches finish.

use crate::limits::{BudgetExceeded, Deadline, Exactness, StopReason, WorkEstimate};
use crate::objective::Objective;
use crate::parallel;
use crate::rooted_trees::{tree_count, LevelSequences, TreeSearch, TreeSearchError};
use crate::search::{price_one, Ranked, Scored, SearchOptions, SearchStats, TopK};
use modelopt_model::placed_tree::PricedTreeSpace;
use modelopt_model::tree::RootedTree;
use modelopt_model::{Algorithm, Params, Request};
use std::sync::atomic::{AtomicBool, Ordering};

/// How many configurations the exhaustive pass prices, without the per-configuration weight:
/// rooted trees on n nodes times the socket labelings of the non-root nodes, summed over the
/// splits a free placement may choose; saturating.
pub fn configurations(space: &PricedTreeSpace) -> u64 {
    let trees = tree_count(space.threads as usize);
    let root = space.root_group();
    let Some(splits) = splits(space) else {
        return u64::MAX;
    };
    splits
        .iter()
        .map(|counts| labelings(counts, root))
        .fold(0u64, u64::saturating_add)
        .saturating_mul(trees)
}

/// The exhaustive pass's size in budget units, for the up-front check.
pub fn estimate(space: &PricedTreeSpace) -> WorkEstimate {
    WorkEstimate {
        what: format!(
            "work units ({} rooted trees × placements, each priced by {})",
            match tree_count(space.threads as usize) {
                u64::MAX => "more than 1.8·10¹⁹".to_string(),
                trees => trees.to_string(),
            },
            space.priced_by
        ),
        units: configurations(space).saturating_mul(space.work_per_configuration.max(1)),
    }
}

/// The most odometer steps [`splits`] takes before it declares a free split unaffordable.
const MAX_SPLIT_STEPS: u64 = 1 << 20;

/// The group counts the search places nodes with: the threads' own split, or with a free split
/// ([`PricedTreeSpace::capacity`], where groups are sockets) every vector of counts within the
/// capacities that sums to the threads and gives the root's socket at least the root, in
/// lexicographic order.
/// `None` when listing them would take more than [`MAX_SPLIT_STEPS`] odometer steps (many
/// sockets with large capacities): such a search is far over any budget anyway.
fn splits(space: &PricedTreeSpace) -> Option<Vec<Vec<u32>>> {
    let Some(capacity) = &space.capacity else {
        return Some(vec![space.nodes_per_group()]);
    };
    let n = space.threads;
    let steps = capacity
        .iter()
        .take(capacity.len().saturating_sub(1))
        .try_fold(1u64, |acc, &c| acc.checked_mul(u64::from(c.min(n)) + 1))
        .filter(|&s| s <= MAX_SPLIT_STEPS);
    steps?;
    let root = space.root_group() as usize;
    let mut out = Vec::new();
    let mut counts = vec![0u32; capacity.len()];
    // An odometer over the counts of all sockets but the last, the last taking the rest: at
    // most Π (c_s + 1) steps, checked above.
    loop {
        let used: u32 = counts[..counts.len().saturating_sub(1)].iter().sum();
        if let Some(last) = counts.len().checked_sub(1) {
            if used <= n && n - used <= capacity[last] {
                counts[last] = n - used;
                if counts.get(root).is_some_and(|&c| c > 0) {
                    out.push(counts.clone());
                }
            }
        }
        // Advance the odometer over sockets 0..last.
        let mut i = counts.len().saturating_sub(1);
        loop {
            if i == 0 {
                return Some(out);
            }
            i -= 1;
            if counts[i] < capacity[i].min(n) {
                counts[i] += 1;
                let last = counts.len() - 1;
                for c in &mut counts[i + 1..last] {
                    *c = 0;
                }
                break;
            }
        }
    }
}

/// (n − 1)! / Π c_s! with the root taken from its socket: the distinct socket labelings of a
/// tree's non-root nodes, saturating.
pub(crate) fn labelings(counts: &[u32], root_socket: u32) -> u64 {
    let mut left: Vec<u64> = counts.iter().map(|&c| u64::from(c)).collect();
    if let Some(c) = left.get_mut(root_socket as usize) {
        *c = c.saturating_sub(1);
    }
    let mut total: u128 = 1;
    let mut placed: u64 = 0;
    for c in left {
        for i in 1..=c {
            // total · C(placed + i, i) built incrementally: × (placed + i) / i stays integral.
            total = total.saturating_mul(u128::from(placed + i)) / u128::from(i);
            if total > u128::from(u64::MAX) {
                return u64::MAX;
            }
        }
        placed += c;
    }
    total as u64
}

/// The next distinct permutation of a multiset in lexicographic order; false after the last.
fn next_permutation(v: &mut [u32]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        return false;
    };
    let pivot = i - 1;
    let Some(j) = (i..v.len()).rev().find(|&j| v[j] > v[pivot]) else {
        return false;
    };
    v.swap(pivot, j);
    v[i..].reverse();
    true
}

/// The candidate trees of step 1 of the module docs, on thread ids with the threads' sockets.
/// Threads are taken in socket order: the root, then the root socket's other threads, then
/// each other socket's threads, ascending.
pub fn candidates(space: &PricedTreeSpace) -> Vec<Params> {
    let n = space.threads as usize;
    let root = space.root_thread;
    let root_socket = space.root_socket();
    let mut by_socket: Vec<Vec<u32>> = vec![Vec::new(); space.nodes_per_socket().len()];
    for (t, &s) in space.thread_sockets.iter().enumerate() {
        if t as u32 != root {
            by_socket[s as usize].push(t as u32);
        }
    }
    let mut order = vec![root];
    order.extend(&by_socket[root_socket as usize]);
    for (s, threads) in by_socket.iter().enumerate() {
        if s as u32 != root_socket {
            order.extend(threads);
        }
    }
    let mut shapes: Vec<Vec<Option<u32>>> = Vec::new();
    // Complete k-ary trees in socket order (k = n − 1 is the flat tree).
    for k in [n.saturating_sub(1).max(1), 2, 3, 4, 8] {
        let mut parents = vec![None; n];
        for i in 1..n {
            parents[order[i] as usize] = Some(order[(i - 1) / k]);
        }
        shapes.push(parents);
    }
    // The binomial tree: position i's parent is i without its highest set bit.
    let mut parents = vec![None; n];
    for i in 1..n {
        let top = 1usize << (usize::BITS - 1 - i.leading_zeros());
        parents[order[i] as usize] = Some(order[i - top]);
    }
    shapes.push(parents);
    // One leader per other socket below the root; each socket's other threads flat (or
    // binary) below its leader, the root's socket's below the root.
    for binary in [false, true] {
        let mut parents = vec![None; n];
        for (s, threads) in by_socket.iter().enumerate() {
            let (head, rest): (u32, &[u32]) = if s as u32 == root_socket {
                (root, threads)
            } else {
                match threads.split_first() {
                    Some((&leader, rest)) => {
                        parents[leader as usize] = Some(root);
                        (leader, rest)
                    }
                    None => continue,
                }
            };
            let group: Vec<u32> = std::iter::once(head).chain(rest.iter().copied()).collect();
            for i in 1..group.len() {
                let p = if binary { (i - 1) / 2 } else { 0 };
                parents[group[i] as usize] = Some(group[p]);
            }
        }
        shapes.push(parents);
    }
    let mut out: Vec<Params> = Vec::new();
    for parents in shapes {
        let params = Params::RootedTree {
            parents,
            sockets: space.thread_sockets.clone(),
        };
        if !out.contains(&params) {
            out.push(params);
        }
    }
    out
}

/// Rank an algorithm over its [`PricedTreeSpace`] as the module docs describe, within
/// `options.limits` (the deadline given).
pub fn rank_priced_trees(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    space: &PricedTreeSpace,
    deadline: Deadline,
) -> Result<Ranked, TreeSearchError> {
    if space.threads < 2 {
        return Err(TreeSearchError::Threads {
            threads: space.threads.into(),
            reason: "a collective needs at least 2 threads".into(),
        });
    }
    // `--search`: `auto` is this module's search; `exhaustive` is its exact pass or a refusal
    // (the budget's, with its estimate); there is no `dp` (docs/cla.md §12).
    let estimate = estimate(space);
    let budget = options.limits.work_budget;
    // A saturated count (too many splits to list, or more configurations than u64 holds) is
    // unaffordable whatever the budget, u64::MAX included.
    let unaffordable = configurations(space) == u64::MAX || estimate.units > budget;
    match options.tree_search {
        TreeSearch::Auto => {}
        TreeSearch::Dp => {
            return Err(TreeSearchError::Method {
                method: TreeSearch::Dp,
                why: "this tree's cost is priced by its CLa graph, which has no recursive structure to build a dynamic program on (docs/cla.md §12); use --search auto (exhaustive within the budget, local search beyond it) or --search exhaustive",
            })
        }
        TreeSearch::Exhaustive if !space.sockets_fix_cost => {
            return Err(TreeSearchError::Method {
                method: TreeSearch::Exhaustive,
                why: "threads of one group are not interchangeable here (with --placement optimal, two threads share a core by node order), so trees with group labels do not cover every placement and no search here proves an optimum; use --search auto (local search, not proven optimal), place the threads by id, or use fewer threads",
            })
        }
        TreeSearch::Exhaustive if unaffordable => {
            return Err(TreeSearchError::Budget(BudgetExceeded {
                what: estimate.what,
                estimate: estimate.units,
                budget,
            }))
        }
        TreeSearch::Exhaustive => {}
    }
    let objective = &options.objective;
    let mut stats = SearchStats::default();
    let mut top = TopK::new(options.keep(), objective);
    let price = |params: Params, stats: &mut SearchStats| -> Option<Scored> {
        price_one(algorithm, request, options, params, stats)
    };
    for params in candidates(space) {
        if let Some(s) = price(params, &mut stats) {
            top.offer(s);
        }
    }
    let progress = &options.progress;
    let stopped = if !space.sockets_fix_cost || unaffordable {
        progress.begin(
            &format!(
                "{}: the exhaustive search is not affordable; improving the best candidate tree by local search, each tree priced by {}",
                algorithm.name(),
                space.priced_by
            ),
            None,
        );
        let descent = Descent {
            thread_groups: &space.thread_groups,
            work_per_tree: space.work_per_configuration,
            budget,
            deadline,
        };
        descent.improve(&price, &mut top, &mut stats, progress);
        progress.finish();
        // Why it is not exact: labels that do not fix the cost, else the budget that refused
        // the exhaustive pass (or the time limit, when it is what ended the descent).
        Some(if !space.sockets_fix_cost {
            StopReason::NoProof {
                why: "threads of one group are not interchangeable (with --placement optimal, two share a core by node order), so trees and group labels do not cover every placement",
            }
        } else if deadline.passed() {
            deadline.reason()
        } else {
            StopReason::WorkBudget { budget }
        })
    } else {
        let total = configurations(space);
        progress.begin(
            &format!(
                "{}: exhaustive search over {total} placed trees, each priced by {}",
                algorithm.name(),
                space.priced_by
            ),
            Some(total),
        );
        let stopped = exhaustive(space, &price, &mut top, &mut stats, deadline, progress);
        progress.finish();
        stopped
    };
    // The pricing's certified bound is on T_min, so it bounds the score under `--objective
    // min` only.
    let lower_bound = match objective {
        Objective::Min => space.t_min_lower_bound,
        Objective::Max | Objective::Blend(_) => None,
    };
    let exactness = match stopped {
        None => Exactness::Exact,
        Some(reason) => Exactness::bounded(
            reason,
            top.best_score().unwrap_or(f64::INFINITY),
            lower_bound,
        ),
    };
    Ok(Ranked {
        best: top.into_vec(),
        stats,
        exactness,
    })
}

/// The neighbours of a tree on thread ids for [`improve`]: every re-parenting of a non-root
/// thread under a thread outside its subtree, then every exchange of two non-root threads of
/// different groups (sockets stay with threads, so this moves a thread to another place in the
/// tree; threads of one group are interchangeable), in a fixed order.
fn neighbours<'a>(
    parents: &'a [Option<u32>],
    thread_groups: &'a [u32],
) -> impl Iterator<Item = Vec<Option<u32>>> + 'a {
    let n = parents.len();
    // Whether u lies in v's subtree: walk up from u (depth ≤ n, a loop, not recursion).
    let below = move |u: usize, v: usize| {
        let mut x = Some(u as u32);
        let mut steps = 0;
        while let Some(y) = x {
            if y as usize == v {
                return true;
            }
            x = parents[y as usize];
            steps += 1;
            if steps > n {
                return true; // not a tree; treat as forbidden
            }
        }
        false
    };
    // Generated one at a time (n² neighbours of n entries each would be n³ memory).
    let reparentings = (0..n)
        .filter_map(move |v| parents[v].map(|old| (v, old)))
        .flat_map(move |(v, old)| {
            (0..n)
                .filter(move |&u| u as u32 != old && !below(u, v))
                .map(move |u| {
                    let mut next = parents.to_vec();
                    next[v] = Some(u as u32);
                    next
                })
        });
    let exchanges = (0..n)
        .flat_map(move |a| (a + 1..n).map(move |b| (a, b)))
        .filter(move |&(a, b)| {
            parents[a].is_some()
                && parents[b].is_some()
                && thread_groups.get(a) != thread_groups.get(b)
        })
        .map(move |(a, b)| {
            let swap = |x: u32| {
                if x as usize == a {
                    b as u32
                } else if x as usize == b {
                    a as u32
                } else {
                    x
                }
            };
            let mut next = vec![None; n];
            for (v, p) in parents.iter().enumerate() {
                next[swap(v as u32) as usize] = p.map(swap);
            }
            next
        });
    reparentings.chain(exchanges)
}

/// Step 3 of the module docs (and the improvement of over-budget rooted-tree answers,
/// `rooted_trees`): descent from the best configuration found so far over
/// [`neighbours`], taken in chunks of [`MOVES_PER_CHUNK`] priced in parallel: the first chunk
/// holding a better neighbour moves to that chunk's best (the optimizer's total order), until no
/// neighbour is better, the work budget is spent (each pricing counts
/// [`PricedTreeSpace::work_per_configuration`]) or the deadline passes. A heuristic: the result
/// is reported not exact whatever happens here.
pub(crate) struct Descent<'a> {
    /// Interchangeability class of every thread (exchanges are between classes).
    pub(crate) thread_groups: &'a [u32],
    /// Budget units one pricing costs.
    pub(crate) work_per_tree: u64,
    /// Units the descent may spend, counting the pricings already in `stats`.
    pub(crate) budget: u64,
    /// When to stop.
    pub(crate) deadline: Deadline,
}

impl Descent<'_> {
    /// Improve `top`'s best as described on [`Descent`].
    pub(crate) fn improve(
        &self,
        price: &(dyn Fn(Params, &mut SearchStats) -> Option<Scored> + Sync),
        top: &mut TopK<'_>,
        stats: &mut SearchStats,
        progress: &crate::limits::Progress,
    ) {
        improve(self, price, top, stats, progress);
    }
}

fn improve(
    descent: &Descent<'_>,
    price: &(dyn Fn(Params, &mut SearchStats) -> Option<Scored> + Sync),
    top: &mut TopK<'_>,
    stats: &mut SearchStats,
    progress: &crate::limits::Progress,
) {
    let (budget, deadline) = (descent.budget, descent.deadline);
    let per = descent.work_per_tree.max(1);
    let mut spent = stats.evaluated.saturating_mul(per);
    let objective = top.objective();
    let Some(mut current) = top.first().cloned() else {
        return;
    };
    'moves: loop {
        let Params::RootedTree { parents, sockets } = &current.params else {
            return;
        };
        let sockets = sockets.clone();
        let parents = parents.clone();
        let mut moves = neighbours(&parents, descent.thread_groups);
        // The neighbourhood in chunks, in order: the first chunk with a better neighbour moves
        // to the best of that chunk, so a neighbourhood larger than the budget still improves.
        loop {
            let chunk: Vec<Vec<Option<u32>>> = moves.by_ref().take(MOVES_PER_CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            let cost = (chunk.len() as u64).saturating_mul(per);
            if spent.saturating_add(cost) > budget || deadline.passed() {
                return;
            }
            spent += cost;
            let priced = parallel::map_ordered(&chunk, |next| {
                let mut local = SearchStats::default();
                let scored = price(
                    Params::RootedTree {
                        parents: next.clone(),
                        sockets: sockets.clone(),
                    },
                    &mut local,
                );
                (scored, local)
            });
            progress.advance(priced.len() as u64);
            let mut best: Option<Scored> = None;
            for (scored, local) in priced {
                stats.evaluated += local.evaluated;
                stats.infeasible += local.infeasible;
                if let Some(s) = scored {
                    if best
                        .as_ref()
                        .is_none_or(|b| s.key(objective) < b.key(objective))
                    {
                        best = Some(s.clone());
                    }
                    top.offer(s);
                }
            }
            if let Some(b) = best {
                if b.key(objective) < current.key(objective) {
                    current = b;
                    continue 'moves;
                }
            }
        }
        // No neighbour is better: a local optimum.
        return;
    }
}

/// Neighbours priced at once by [`improve`] before it decides whether to move.
const MOVES_PER_CHUNK: usize = 256;

/// Trees per parallel batch of the exhaustive pass.
const TREES_PER_BATCH: usize = 16;

/// Step 2 of the module docs. Batches of trees are priced in parallel, each into its own top
/// list, merged in batch order (the total order makes the merge independent of scheduling). The
/// clock is read after every pricing (each builds a graph, microseconds). `None` when
/// complete, else why it stopped.
fn exhaustive(
    space: &PricedTreeSpace,
    price: &(dyn Fn(Params, &mut SearchStats) -> Option<Scored> + Sync),
    top: &mut TopK<'_>,
    stats: &mut SearchStats,
    deadline: Deadline,
    progress: &crate::limits::Progress,
) -> Option<StopReason> {
    let n = space.threads as usize;
    let root_socket = space.root_group();
    let keep = top.keep();
    let objective = top.objective();
    let stopped = AtomicBool::new(false);
    for counts in splits(space).unwrap_or_default() {
        // The non-root nodes' sockets as a sorted multiset; its distinct permutations are the
        // labelings.
        let mut first: Vec<u32> = Vec::with_capacity(n - 1);
        for (s, &c) in counts.iter().enumerate() {
            let c = if s as u32 == root_socket {
                c.saturating_sub(1)
            } else {
                c
            };
            first.extend(std::iter::repeat_n(s as u32, c as usize));
        }
        let mut trees = LevelSequences::new(n);
        let batches = std::iter::from_fn(|| {
            if stopped.load(Ordering::Relaxed) {
                return None;
            }
            let mut batch = Vec::with_capacity(TREES_PER_BATCH);
            while batch.len() < TREES_PER_BATCH {
                match trees.next_tree() {
                    Some(levels) => batch.push(levels.to_vec()),
                    None => break,
                }
            }
            (!batch.is_empty()).then_some(batch)
        });
        let results = parallel::map_iter(batches, |batch| {
            let mut local = TopK::new(keep, objective);
            let mut local_stats = SearchStats::default();
            'trees: for levels in batch {
                let Ok(tree) = RootedTree::from_levels(&levels) else {
                    continue;
                };
                let root = tree.root() as usize;
                let mut labels = first.clone();
                loop {
                    if stopped.load(Ordering::Relaxed) {
                        break 'trees;
                    }
                    // The root keeps its socket; the other nodes take the labels in id order.
                    let mut node_sockets = labels.clone();
                    node_sockets.insert(root.min(node_sockets.len()), root_socket);
                    if let Ok(params) = space.assign_threads(&tree, &node_sockets) {
                        if let Some(s) = price(params, &mut local_stats) {
                            local.offer(s);
                        }
                    }
                    progress.advance(1);
                    if deadline.passed() {
                        stopped.store(true, Ordering::Relaxed);
                    }
                    if !next_permutation(&mut labels) {
                        break;
                    }
                }
            }
            (local, local_stats)
        });
        for (local, local_stats) in results {
            stats.evaluated += local_stats.evaluated;
            stats.infeasible += local_stats.infeasible;
            for s in local.into_vec() {
                top.offer(s);
            }
        }
        if stopped.load(Ordering::Relaxed) {
            return Some(deadline.reason());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space(
        thread_sockets: Vec<u32>,
        root_thread: u32,
        capacity: Option<Vec<u32>>,
    ) -> PricedTreeSpace {
        PricedTreeSpace {
            threads: thread_sockets.len() as u32,
            thread_groups: thread_sockets.clone(),
            thread_sockets,
            root_thread,
            capacity,
            work_per_configuration: 1,
            sockets_fix_cost: true,
            t_min_lower_bound: None,
            priced_by: "a test".into(),
        }
    }

    #[test]
    fn next_permutation_lists_each_distinct_arrangement_once() {
        // The multiset {0, 0, 1, 1, 2}: 5! / (2!·2!·1!) = 30 distinct arrangements.
        let mut v = vec![0, 0, 1, 1, 2];
        let mut seen = std::collections::BTreeSet::new();
        loop {
            assert!(seen.insert(v.clone()));
            if !next_permutation(&mut v) {
                break;
            }
        }
        assert_eq!(seen.len(), 30);
        assert_eq!(labelings(&[3, 2, 1], 0), 30); // the root takes one of socket 0's three
    }

    #[test]
    fn free_splits_respect_capacity_and_keep_the_root() {
        // 4 threads, sockets holding 3 and 2, root on socket 0: (c0, c1) with c0 + c1 = 4,
        // c0 ≤ 3, c1 ≤ 2, c0 ≥ 1 → (2, 2), (3, 1).
        let s = space(vec![0, 0, 0, 1], 0, Some(vec![3, 2]));
        assert_eq!(splits(&s), Some(vec![vec![2, 2], vec![3, 1]]));
        // Labelings: C(3, 2) + C(3, 1) = 6, times 4 rooted trees on 4 nodes.
        assert_eq!(configurations(&s), 24);
        let fixed = space(vec![0, 0, 0, 1], 0, None);
        assert_eq!(splits(&fixed), Some(vec![vec![3, 1]]));
        // Eight sockets of 128 threads each: 129^7 odometer steps, refused without listing.
        let mut wide = space((0..1024).map(|t| t / 128).collect(), 0, Some(vec![128; 8]));
        wide.threads = 1024;
        assert_eq!(splits(&wide), None);
        assert_eq!(configurations(&wide), u64::MAX);
    }

    #[test]
    fn neighbours_are_every_reparenting_and_every_cross_socket_exchange() {
        // The chain 0 → 1 → 2 with threads 0, 1 on socket 0 and 2 on socket 1. Re-parentings:
        // 1 may go under nothing else (0 is its parent, 2 is below it); 2 may go under 0.
        // Exchanges: only (1, 2) crosses sockets (0 is the root): 0 → 2 → 1.
        let parents = vec![None, Some(0), Some(1)];
        let all: Vec<_> = neighbours(&parents, &[0, 0, 1]).collect();
        assert_eq!(
            all,
            vec![vec![None, Some(0), Some(0)], vec![None, Some(2), Some(0)]]
        );
        // Every neighbour of a bigger tree is a tree with the same root.
        let parents = vec![None, Some(0), Some(0), Some(1), Some(1), Some(2)];
        for next in neighbours(&parents, &[0, 0, 0, 1, 1, 1]) {
            let tree = RootedTree::from_parents(&next).unwrap();
            assert_eq!(tree.root(), 0);
        }
    }

    #[test]
    fn every_candidate_is_a_tree_of_all_threads_rooted_at_the_root() {
        let s = space(vec![0, 0, 0, 1, 1, 1, 1], 4, None);
        let all = candidates(&s);
        // flat, 2-, 3-, 4-, 8-ary (8-ary = flat at 7 threads, kept once), binomial, leaders
        // flat and binary: 7 distinct.
        assert_eq!(all.len(), 7);
        for p in &all {
            let Params::RootedTree { parents, sockets } = p else {
                panic!("{p:?}");
            };
            let tree = RootedTree::from_parents(parents).unwrap();
            assert_eq!(tree.len(), 7);
            assert_eq!(tree.root(), 4);
            assert_eq!(sockets, &s.thread_sockets);
        }
    }
}
