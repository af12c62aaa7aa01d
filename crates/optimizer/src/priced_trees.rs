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
//!    optimum, then kicked (a few random re-parentings of the best tree, from a fixed seed)
//!    and descended again until a few kicks in a row find nothing better or the kicks have
//!    spent a few times the first descent's work, the work budget (each pricing counted) or
//!    the deadline. The result is returned
//!    with [`Exactness::Bounded`], the budget as the reason and the pricing's certified bound
//!    on the score with the gap (the search itself knows none for a black-box cost): on T_min
//!    ([`PricedTreeSpace::t_min_lower_bound`], which holds for every objective since
//!    T_max ≥ T_min by the field's contract) and, for the worst-case part of max and blends,
//!    the larger of it and the bound on T_max ([`PricedTreeSpace::t_max_lower_bound`]); a time
//!    limit during the exhaustive pass returns the best so far the same way.
//! 4. **A closer bound, when the pricing has one.** Before step 3 and under `--objective min`,
//!    where a space carries a cost with one line per socket below its T_min
//!    ([`PricedTreeSpace::socket_lines`]: the relaxation of the graph's broadcast cost,
//!    docs/cla.md §13), that cost's exact optimum ([`crate::socket_line_dp`]) is computed
//!    within the work budget, the memory limit and half the time left, told the best T_min
//!    among the candidates (it may prune above it); its configuration joins the candidates and
//!    its bound, the larger of the two, is reported. Where the best answer meets it (gap 0)
//!    the score is proven optimal. A bound proved before the DP's limits stopped it counts as
//!    well, and so does the optimum with the domains of each socket merged, which the DP
//!    computes first (a box per socket: milliseconds); where the split by domain's tables are
//!    over the memory limit, the answer's reason is that limit, with what they need.
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
use modelopt_model::placed_tree::{DomainRenaming, PricedTreeSpace};
use modelopt_model::tree::RootedTree;
use modelopt_model::{Algorithm, Params, Request};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::{AtomicBool, Ordering};

/// How many configurations the exhaustive pass prices, without the per-configuration weight:
/// rooted trees on n nodes times the socket labelings of the non-root nodes, summed over the
/// splits a free placement may choose; saturating.
pub fn configurations(space: &PricedTreeSpace) -> u64 {
    configurations_of(space, splits(space).as_deref())
}

/// [`configurations`] over splits listed already (`None`: too many to list).
fn configurations_of(space: &PricedTreeSpace, splits: Option<&[Vec<u32>]>) -> u64 {
    let trees = tree_count(space.threads as usize);
    let root = space.root_group();
    let Some(splits) = splits else {
        return u64::MAX;
    };
    splits
        .iter()
        .map(|counts| {
            let all = labelings(counts, root);
            if all == u64::MAX {
                return all;
            }
            // Each orbit of the renamings holds Π k! labelings (a renaming that moves a label
            // of a class changes the labeling, since every label of a class is used), and one
            // of each orbit is priced.
            let orbit = interchangeable(space, counts)
                .iter()
                .map(|class| (1..=class.len() as u64).product::<u64>())
                .fold(1u64, u64::saturating_mul);
            all / orbit.max(1)
        })
        .fold(0u64, u64::saturating_add)
        .saturating_mul(trees)
}

/// With a free split over L3 domains that the pricing lets rename freely
/// ([`DomainRenaming::Any`]), the classes of labels that renaming domains
/// exchanges in one split: domains of one socket, other than the root's, holding equally many
/// nodes (at least one), so that renaming them keeps the split and, by the symmetry of
/// [`splits`], the cost of every tree. Each class has two or more groups, ascending.
fn interchangeable(space: &PricedTreeSpace, counts: &[u32]) -> Vec<Vec<u32>> {
    let per_socket = space.groups_per_socket.max(1) as usize;
    if space.capacity.is_none() || per_socket < 2 || space.domain_renaming != DomainRenaming::Any {
        return Vec::new();
    }
    let root = space.root_group() as usize;
    let mut classes = Vec::new();
    for socket in counts.chunks(per_socket).enumerate() {
        let (s, socket_counts) = socket;
        let mut by_count: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for (i, &c) in socket_counts.iter().enumerate() {
            let g = s * per_socket + i;
            if g != root && c > 0 {
                by_count.entry(c).or_default().push(g as u32);
            }
        }
        classes.extend(by_count.into_values().filter(|class| class.len() > 1));
    }
    classes
}

/// Whether a labeling of the non-root nodes (in node order) is the one of its orbit that the
/// exhaustive pass prices: in every class of [`interchangeable`], the labels first appear in
/// ascending order.
fn canonical(labels: &[u32], classes: &[Vec<u32>]) -> bool {
    classes.iter().all(|class| {
        let first = |g: u32| labels.iter().position(|&l| l == g).unwrap_or(usize::MAX);
        class.windows(2).all(|w| first(w[0]) < first(w[1]))
    })
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

/// Whether [`rank_priced_trees`] will run its local search until the work budget is spent
/// (the exhaustive pass is not affordable, or cannot prove an optimum here) rather than finish
/// exactly or refuse: the same test it makes before it starts. For announcing long work.
/// Also the units of work the answer took (the listing of free splits, up to
/// `MAX_SPLIT_WORK`), for a look-ahead over many points to count.
pub fn runs_to_budget(space: &PricedTreeSpace, method: TreeSearch, budget: u64) -> (bool, u64) {
    let (listed, work) = splits_counted(space);
    let configurations = configurations_of(space, listed.as_deref());
    let unaffordable = configurations == u64::MAX
        || configurations.saturating_mul(space.work_per_configuration.max(1)) > budget;
    (
        method == TreeSearch::Auto && (unaffordable || !space.sockets_fix_cost),
        work,
    )
}

/// The most work [`splits`] does (a unit per digit it looks at, resets or copies) before it
/// declares a free split unaffordable: milliseconds, whatever the machine file's groups.
const MAX_SPLIT_WORK: u64 = 1 << 22;

/// The group counts the search places nodes with: the threads' own split, or with a free split
/// ([`PricedTreeSpace::capacity`]: groups are sockets, or L3 domains) every vector of counts
/// within the capacities that sums to the threads and gives the root's group at least the
/// root, in lexicographic order, up to the symmetry of domains the pricing has
/// ([`PricedTreeSpace::domain_renaming`]). With one synchronization line per socket
/// ([`DomainRenaming::Any`]) the L3 domains of one socket other than the root's are
/// interchangeable in the model (a pair's class depends only on whether two threads share a
/// domain, memory and the many-to-one lines are per socket), so only splits whose counts do not
/// increase along such domains are listed; every other split is one of these with its domains
/// renamed, at the same cost. With one line per domain ([`DomainRenaming::InOrder`]) a parent
/// waits for its domains' lines in ascending order, so only renamings that keep the order of
/// the domains holding threads keep the cost: within each run of a socket's domains before the
/// root's, after it, or on another socket, the domains holding threads come first (a domain is
/// empty only if the rest of its run is); every other split is one of these with its threads
/// moved to earlier empty domains. Sockets are not renamed (a parent waits for its socket lines
/// in ascending order, docs/cla.md §7). Domains of unequal capacity are not renamed.
/// `None` when listing them would take more than [`MAX_SPLIT_WORK`] (many groups with large
/// capacities): such a search is far over any budget anyway.
fn splits(space: &PricedTreeSpace) -> Option<Vec<Vec<u32>>> {
    splits_counted(space).0
}

/// [`splits`] and the units of work its listing took.
fn splits_counted(space: &PricedTreeSpace) -> (Option<Vec<Vec<u32>>>, u64) {
    let Some(capacity) = &space.capacity else {
        return (Some(vec![space.nodes_per_group()]), 1);
    };
    let n = space.threads;
    let root = space.root_group() as usize;
    let per_socket = space.groups_per_socket.max(1) as usize;
    // The group before g whose count bounds g's: the previous interchangeable domain (any
    // renaming), or the one just before it in its run (renamings in order).
    let previous = |g: usize| -> Option<usize> {
        let first = g - g % per_socket;
        let h = match space.domain_renaming {
            DomainRenaming::Any => (first..g).rev().find(|&h| h != root),
            DomainRenaming::InOrder => (g > first).then(|| g - 1).filter(|&h| h != root),
        };
        h.filter(|&h| g != root && capacity[h] == capacity[g])
    };
    // The most g may hold given that group's count: at most it (any renaming), nothing after
    // an empty one (in order).
    let bounded = |top: u32, count: u32| match space.domain_renaming {
        DomainRenaming::Any => top.min(count),
        DomainRenaming::InOrder if count == 0 => 0,
        DomainRenaming::InOrder => top,
    };
    let groups = capacity.len();
    let mut out = Vec::new();
    if groups == 0 {
        return (Some(out), 1);
    }
    // An odometer over the counts, last group fastest, each count bounded by its capacity,
    // the threads left and the previous interchangeable domain's count; a vector is kept when
    // it sums to n. Every digit looked at, reset or copied costs a unit of work, so the whole
    // listing is bounded by MAX_SPLIT_WORK whatever the number of groups.
    let mut counts = vec![0u32; groups];
    let mut total = 0u32;
    let mut work = 0u64;
    loop {
        if total == n && counts.get(root).is_some_and(|&c| c > 0) {
            work += groups as u64;
            out.push(counts.clone());
        }
        // Advance: the last digit that can grow grows, the ones after it reset to 0. `after`
        // is the sum of the digits after g, so the threads before g are known in O(1).
        let mut g = groups;
        let mut after = 0u32;
        loop {
            work += 1;
            if work > MAX_SPLIT_WORK {
                return (None, work);
            }
            if g == 0 {
                return (Some(out), work);
            }
            g -= 1;
            let before = total - after - counts[g];
            let mut top = capacity[g].min(n.saturating_sub(before));
            if let Some(h) = previous(g) {
                top = bounded(top, counts[h]);
            }
            if counts[g] < top {
                counts[g] += 1;
                work += (groups - g - 1) as u64;
                counts[g + 1..].fill(0);
                total = before + counts[g];
                break;
            }
            after += counts[g];
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

/// The candidate trees of step 1 of the module docs, on thread ids with the threads' sockets;
/// with a free split also on the placement that spreads the threads evenly over the sockets
/// (`balanced_placement`), so that the search starts from both ends of the choice of split.
pub fn candidates(space: &PricedTreeSpace) -> Vec<Params> {
    let mut out = own_candidates(space);
    if let Some((sockets, domains)) = balanced_placement(space) {
        for params in candidates_on(space, &sockets, &domains) {
            if !out.contains(&params) {
                out.push(params);
            }
        }
    }
    out
}

/// The candidates of [`candidates`] on the threads' own placement (the first it lists). With
/// a free split over L3 domains they name their domains, like every split the search chooses,
/// so one placement has one form.
fn own_candidates(space: &PricedTreeSpace) -> Vec<Params> {
    let domains: Vec<u32> = match space.capacity {
        Some(_) if space.groups_per_socket > 1 => space
            .own_groups()
            .iter()
            .map(|g| g % space.groups_per_socket)
            .collect(),
        _ => Vec::new(),
    };
    candidates_on(space, &space.thread_sockets, &domains)
}

/// With a free split, the threads spread over the sockets as evenly as their room allows (the
/// root's socket first to take one more), each socket's threads packed into its groups from
/// the root's group on; the root thread keeps its group and the other threads take the other
/// places in id order. `None` without a free split or when it is the machine's own split.
fn balanced_placement(space: &PricedTreeSpace) -> Option<(Vec<u32>, Vec<u32>)> {
    let capacity = space.capacity.as_deref()?;
    let d = space.groups_per_socket.max(1) as usize;
    let sockets = capacity.len() / d;
    let n = space.threads as usize;
    let root_group = space.root_group() as usize;
    let root_socket = root_group / d;
    if sockets < 2 {
        return None;
    }
    // Sockets in the order they take threads: the root's, then the others ascending.
    let order: Vec<usize> = std::iter::once(root_socket)
        .chain((0..sockets).filter(|&s| s != root_socket))
        .collect();
    let room: Vec<usize> = (0..sockets)
        .map(|s| {
            capacity[s * d..(s + 1) * d]
                .iter()
                .map(|&c| c as usize)
                .sum()
        })
        .collect();
    // Deal the threads one at a time to the next socket in order that has room.
    let mut count = vec![0usize; sockets];
    let mut dealt = 0;
    while dealt < n {
        let mut placed = false;
        for &s in &order {
            if dealt < n && count[s] < room[s] {
                count[s] += 1;
                dealt += 1;
                placed = true;
            }
        }
        if !placed {
            return None;
        }
    }
    // Each socket's places, its groups filled in turn (the root's socket from the root's
    // group on); the root's place first.
    let mut places: Vec<Vec<u32>> = vec![Vec::new(); sockets];
    for s in 0..sockets {
        let first = if s == root_socket { root_group % d } else { 0 };
        for i in 0..d {
            let g = s * d + (first + i) % d;
            let take = (capacity[g] as usize).min(count[s] - places[s].len());
            places[s].extend(std::iter::repeat_n(g as u32, take));
        }
    }
    let mut groups = vec![0u32; n];
    let root = space.root_thread as usize;
    groups[root] = places[root_socket].remove(0);
    let mut rest = order.iter().flat_map(|&s| places[s].iter().copied());
    for (t, g) in groups.iter_mut().enumerate() {
        if t != root {
            *g = rest.next()?;
        }
    }
    let socket_of: Vec<u32> = groups.iter().map(|&g| g / d as u32).collect();
    if socket_of == space.thread_sockets {
        return None;
    }
    let domains = if d > 1 {
        groups.iter().map(|&g| g % d as u32).collect()
    } else {
        Vec::new()
    };
    Some((socket_of, domains))
}

/// The candidate shapes of step 1 on one placement (`sockets` and `domains` per thread id).
/// Threads are taken in socket order: the root, then the root socket's other threads, then
/// each other socket's threads, ascending.
fn candidates_on(space: &PricedTreeSpace, sockets: &[u32], domains: &[u32]) -> Vec<Params> {
    let n = space.threads as usize;
    let root = space.root_thread;
    let root_socket = sockets.get(root as usize).copied().unwrap_or(0);
    let socket_count = sockets.iter().max().map_or(1, |m| m + 1) as usize;
    let mut by_socket: Vec<Vec<u32>> = vec![Vec::new(); socket_count];
    for (t, &s) in sockets.iter().enumerate() {
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
            sockets: sockets.to_vec(),
            domains: domains.to_vec(),
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
    if let Some(capacity) = &space.capacity {
        let room: u64 = capacity.iter().map(|&c| u64::from(c)).sum();
        if room < u64::from(space.threads) {
            return Err(TreeSearchError::Threads {
                threads: space.threads.into(),
                reason: format!(
                    "a free placement puts at most {room} threads on the machine's groups ({} of at most {} each)",
                    capacity.len(),
                    capacity.iter().max().copied().unwrap_or(0)
                ),
            });
        }
    }
    // `--search`: `auto` is this module's search; `exhaustive` is its exact pass or a refusal
    // (the budget's, with its estimate); there is no `dp` (docs/cla.md §12).
    let estimate = estimate(space);
    let budget = options.limits.work_budget;
    // A saturated count (too many splits to list, or more configurations than u64 holds) is
    // unaffordable whatever the budget, u64::MAX included.
    // Work past a 64-bit count (saturated) is more than any budget.
    let countless = configurations(space) == u64::MAX || estimate.units == u64::MAX;
    let unaffordable = countless || estimate.units > budget;
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
    let progress = &options.progress;
    // The pricing's closer bound on T_min, when it has one, the search cannot prove an optimum
    // by enumeration and the objective is T_min itself (under max and blends it would be as
    // loose as the space's own): computed after the candidates are priced, told the best T_min
    // among them (its DP prunes above it), within the work budget, the memory limit
    // and half the time left; the configurations attaining it are priced, and the local search
    // starts from the best. The budget bounds it and the local search each (a local search
    // with less answered up to 30 % worse where the bound was out of reach, docs/perf.md), so
    // the two together may take twice what one would.
    let enumerated = space.sockets_fix_cost && !unaffordable;
    let mut refined_bound = None;
    // Whether the refinement proved a bound but its work budget stopped it before its optimum
    // (a larger budget would prove more, whatever the exhaustive pass needs).
    let mut refinement_stopped = false;
    // What its tables would have taken, where the memory limit kept it from running.
    let mut refinement_memory = 0;
    // Whether the time limit (its share of it) stopped the refinement: more time would prove
    // more.
    let mut refinement_timed_out = false;
    let offered = candidates(space);
    // With a free split, the best candidate on the threads' own placement: the local search
    // descends from it too (`Descent::also_from`).
    let own = if space.capacity.is_some() {
        own_candidates(space)
    } else {
        Vec::new()
    };
    let mut own_best: Option<Scored> = None;
    for params in &offered {
        if let Some(s) = price(params.clone(), &mut stats) {
            if own.contains(params)
                && own_best
                    .as_ref()
                    .is_none_or(|b| s.key(objective) < b.key(objective))
            {
                own_best = Some(s.clone());
            }
            top.offer(s);
        }
    }
    if let (Some(lines), modelopt_model::Metric::Latency, Objective::Min, false) =
        (&space.socket_lines, request.metric(), objective, enumerated)
    {
        progress.begin(
            &format!(
                "{}: computing the exact optimum of {}",
                algorithm.name(),
                lines.cost.what()
            ),
            None,
        );
        // At most half the time left, so that a time limit leaves the local search the rest.
        let started = std::time::Instant::now();
        let share = deadline.remaining().map(|left| left / 2);
        let attained = top.best_score().unwrap_or(f64::INFINITY);
        let found = crate::socket_line_dp::refine(
            space,
            budget,
            options.limits.memory_limit,
            attained,
            &|| !deadline.passed() && share.is_none_or(|share| started.elapsed() < share),
        );
        progress.finish();
        let timed_out = deadline.passed() || share.is_some_and(|s| started.elapsed() >= s);
        refinement_timed_out = timed_out;
        if let Some(found) = found {
            refinement_stopped = found.stopped && !timed_out;
            refinement_memory = found.memory_needed;
            refined_bound = Some(found.t_min_lower_bound);
            // Each configuration priced once (the relaxation's tree may be a candidate's).
            for params in found.configurations {
                if offered.contains(&params) {
                    continue;
                }
                if let Some(s) = price(params, &mut stats) {
                    top.offer(s);
                }
            }
        }
    }
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
            free: space.capacity.as_deref().map(|capacity| FreeSplit {
                capacity,
                groups_per_socket: space.groups_per_socket,
            }),
            work_per_tree: space.work_per_configuration,
            budget,
            deadline,
            also_from: own_best,
        };
        descent.improve(&price, &mut top, &mut stats, progress);
        progress.finish();
        // Why it is not exact: labels that do not fix the cost, or the memory limit that kept
        // the refinement from running, or the time limit that stopped it, or a size no budget
        // covers (whatever ended the descent: no budget or time would prove more) unless the
        // refinement's budget stopped it, else the time limit when it ended the descent, else
        // the budget that refused the exhaustive pass or stopped the refinement.
        Some(if !space.sockets_fix_cost {
            StopReason::NoProof {
                why: "threads of one group are not interchangeable (with --placement optimal, two share a core by node order), so trees and group labels do not cover every placement",
            }
        } else if refinement_stopped && refinement_memory > 0 {
            // The relaxation by domain did not fit: more memory (and budget) may prove more.
            StopReason::MemoryLimit {
                limit: options.limits.memory_limit,
                needed: refinement_memory,
            }
        } else if refinement_timed_out {
            deadline.reason()
        } else if countless && !refinement_stopped {
            // No budget admits the exhaustive pass: asking for more would not help.
            StopReason::NoProof {
                why: "the exhaustive search's work is past a 64-bit count, so no work budget covers it",
            }
        } else if deadline.passed() {
            deadline.reason()
        } else {
            StopReason::WorkBudget {
                budget,
                // The refinement ran out of budget (more would prove more), else the
                // exhaustive pass was refused up front: its size starts it. (This said "used
                // up" for both: barrier over 8 threads with a free split ended in 0.01 s
                // "the work budget was used up", the pass refused at 5.3 · 10¹⁰ units.)
                needed: if refinement_stopped {
                    0
                } else {
                    estimate.units
                },
                memory: 0,
            }
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
    // The pricing's certified bound is on T_min, and its contract gives T_max ≥ T_min on every
    // configuration, so it bounds the latency score of every objective (a blend is a weighted
    // mean of T_min and T_max); where the pricing also bounds T_max by the worst case's own
    // costs, the larger of the two bounds T_max, and a blend's score is at least the same
    // blend of its two bounds. A throughput score is not a latency: no bound.
    // A refined bound above the best score breaks the space's contract for its socket-line
    // cost (the score is T_min here), and the gap's clamp at 0 would turn it into a false
    // proof: it is dropped instead (and debug builds stop on it).
    let best_score = top.best_score().unwrap_or(f64::INFINITY);
    debug_assert!(
        refined_bound.is_none_or(|b| b <= best_score + 1e-6),
        "refined bound {refined_bound:?} above the best score {best_score}"
    );
    let refined_bound = refined_bound.filter(|&b| b <= best_score + 1e-6);
    let lower_bound = match request.metric() {
        modelopt_model::Metric::Latency => score_lower_bound(objective, space, refined_bound),
        modelopt_model::Metric::Throughput => None,
    };
    // A bound above a score some configuration attains is no bound (a pricing broke its
    // contract): debug builds, and so every test, stop on it.
    debug_assert!(
        lower_bound.is_none_or(|b| b <= best_score + 1e-6),
        "lower bound {lower_bound:?} above the best score {best_score}"
    );
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

/// A certified lower bound on the latency score of every configuration of `space` under
/// `objective`: the larger of the space's T_min bound and `refined` (a closer T_min bound the
/// search computed) bounds T_min; that or, where larger, the space's T_max bound bounds T_max
/// (T_max ≥ T_min on every configuration, the space's contract); a blend's score is at least
/// the same blend of the two. `None` when a part the objective reads has no bound.
fn score_lower_bound(
    objective: &Objective,
    space: &PricedTreeSpace,
    refined: Option<f64>,
) -> Option<f64> {
    let larger = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let t_min = larger(space.t_min_lower_bound, refined);
    let t_max = larger(t_min, space.t_max_lower_bound);
    match objective {
        Objective::Min => t_min,
        Objective::Max => t_max,
        Objective::Blend(_) => Some(objective.of_range(t_min?, t_max?)),
    }
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
    let below = move |u: usize, v: usize| in_subtree(parents, u, v);
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

/// Whether thread `u` lies in `v`'s subtree: a walk up from u (at most n steps, a loop, not
/// recursion). Parents that do not form a tree count as yes, so no move is made from them.
fn in_subtree(parents: &[Option<u32>], u: usize, v: usize) -> bool {
    let mut x = Some(u as u32);
    for _ in 0..=parents.len() {
        match x {
            Some(y) if y as usize == v => return true,
            Some(y) => x = parents.get(y as usize).copied().flatten(),
            None => return false,
        }
    }
    true
}

/// Step 3 of the module docs (and the improvement of over-budget rooted-tree answers,
/// `rooted_trees`): descent from the best configuration found so far over
/// [`neighbours`], taken in chunks of [`MOVES_PER_CHUNK`] priced in parallel: the first chunk
/// holding a better neighbour moves to that chunk's best (the optimizer's total order), until no
/// neighbour is better; then an iterated local search: the best tree so far is [`kick`]ed and
/// descended from again, until more than [`MAX_FRUITLESS_KICKS`] kicks in a row find nothing
/// better, the kicks have spent [`KICK_WORK_RATIO`] times the first descent's work, the work
/// budget is spent (each pricing counts
/// [`PricedTreeSpace::work_per_configuration`]) or the deadline passes. The kicks draw from a
/// fixed seed and the chunks are merged in order, so the answer does not depend on the
/// threads. A heuristic: the result is reported not exact whatever happens here.
pub(crate) struct Descent<'a> {
    /// Interchangeability class of every thread (exchanges are between classes) when the
    /// placement is fixed.
    pub(crate) thread_groups: &'a [u32],
    /// With a free split, where threads may move: then the neighbours also include every
    /// move of one non-root thread to another group with room, and exchanges are between the
    /// current groups.
    pub(crate) free: Option<FreeSplit<'a>>,
    /// Budget units one pricing costs.
    pub(crate) work_per_tree: u64,
    /// Units the descent may spend, counting the pricings already in `stats`.
    pub(crate) budget: u64,
    /// When to stop.
    pub(crate) deadline: Deadline,
    /// With a free split, the best candidate on the threads' own placement, descended from
    /// first where the best candidate is elsewhere: a descent from the best start may end
    /// above one from it (chiplet-2s-4x8, 40 threads: 1,593.86 ns from the balanced
    /// placement's tree, 1,359.29 from the threads by id, which the fixed placement's search
    /// finds), and the free split should find what the threads by id would.
    pub(crate) also_from: Option<Scored>,
}

/// The groups of a free split a descent may move threads between (see
/// [`PricedTreeSpace::capacity`]): group g is L3 domain g mod `groups_per_socket` of socket
/// g / `groups_per_socket`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FreeSplit<'a> {
    /// How many threads each group holds at most.
    pub(crate) capacity: &'a [u32],
    /// Groups per socket (1: groups are sockets).
    pub(crate) groups_per_socket: u32,
}

impl FreeSplit<'_> {
    /// The group of every thread of a placement, or `None` when the placement does not name
    /// the groups (domains missing where sockets hold several) or leaves the capacities.
    fn groups(&self, sockets: &[u32], domains: &[u32]) -> Option<Vec<u32>> {
        let d = self.groups_per_socket.max(1);
        if d > 1 && domains.len() != sockets.len() {
            return None;
        }
        let groups: Vec<u32> = (0..sockets.len())
            .map(|t| sockets[t] * d + domains.get(t).copied().unwrap_or(0))
            .collect();
        let mut used = vec![0u32; self.capacity.len()];
        for &g in &groups {
            *used.get_mut(g as usize)? += 1;
        }
        used.iter()
            .zip(self.capacity)
            .all(|(u, c)| u <= c)
            .then_some(groups)
    }

    /// A placement with `thread` moved to `group`.
    fn moved(
        &self,
        sockets: &[u32],
        domains: &[u32],
        thread: usize,
        group: u32,
    ) -> (Vec<u32>, Vec<u32>) {
        let d = self.groups_per_socket.max(1);
        let mut sockets = sockets.to_vec();
        let mut domains = domains.to_vec();
        sockets[thread] = group / d;
        if let Some(x) = domains.get_mut(thread) {
            *x = group % d;
        }
        (sockets, domains)
    }
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
    let per = descent.work_per_tree.max(1);
    let mut spent = stats.evaluated.saturating_mul(per);
    let objective = top.objective();
    let Some(mut current) = top.first().cloned() else {
        return;
    };
    let start = spent;
    if let Some(own) = descent
        .also_from
        .as_ref()
        .filter(|own| own.params != current.params)
    {
        if !descend(
            descent,
            price,
            top,
            stats,
            progress,
            own.clone(),
            &mut spent,
        ) {
            return;
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(KICK_SEED);
    let mut fruitless = 0;
    // Where the kicks stop: set after the first descent.
    let mut kicks_until: Option<u64> = None;
    loop {
        let before = top.first().map(|b| b.key(objective));
        if !descend(descent, price, top, stats, progress, current, &mut spent) {
            return;
        }
        let until = *kicks_until.get_or_insert(
            spent.saturating_add(spent.saturating_sub(start).saturating_mul(KICK_WORK_RATIO)),
        );
        if spent >= until {
            return;
        }
        // A local optimum: kick the best tree so far and descend again, until
        // MAX_FRUITLESS_KICKS kicks in a row find nothing better, the kicks have spent
        // KICK_WORK_RATIO times the first descent's work, or the budget or the deadline stops
        // a descent.
        let Some(best) = top.first().cloned() else {
            return;
        };
        if before.is_some_and(|b| best.key(objective) < b) {
            fruitless = 0;
        } else {
            fruitless += 1;
            if fruitless > MAX_FRUITLESS_KICKS {
                return;
            }
        }
        let Some(kicked) = kick(&best.params, &mut rng) else {
            return;
        };
        if spent.saturating_add(per) > descent.budget || descent.deadline.passed() {
            return;
        }
        spent += per;
        let mut local = SearchStats::default();
        let priced = price(kicked, &mut local);
        stats.evaluated += local.evaluated;
        stats.infeasible += local.infeasible;
        current = match priced {
            Some(s) => {
                top.offer(s.clone());
                s
            }
            None => best,
        };
    }
}

/// Kicks in a row after which [`improve`] stops at its best local optimum when they found
/// nothing better; each costs a descent (about 0.1 s at 48 threads).
const MAX_FRUITLESS_KICKS: u32 = 4;

/// The kicks of [`improve`] may spend this many times the work of its first descent, so
/// that they at most multiply the local search's time by 1 + this ratio, and a sweep of
/// many unproven points stays about as fast as before the kicks (docs/perf.md). Measured on
/// 48 L3-domain threads under max (T_min 2,028.2 ns without kicks): ratio 4 gives 1,993.7,
/// 16 gives 1,947.2, and kicks bounded only by [`MAX_FRUITLESS_KICKS`] 1,769.7 ns, in 0.29,
/// 0.42 and 1.03 s.
const KICK_WORK_RATIO: u64 = 4;

/// Random re-parentings in one kick of [`improve`].
const KICK_MOVES: usize = 3;

/// The seed of [`improve`]'s kicks: fixed, so the same request gives the same answer.
const KICK_SEED: u64 = 0x6b69_636b;

/// `params` with [`KICK_MOVES`] random re-parentings (a non-root thread under a random thread
/// outside its subtree), or `None` when `params` is not a tree of at least 3 threads.
fn kick(params: &Params, rng: &mut ChaCha8Rng) -> Option<Params> {
    let Params::RootedTree {
        parents,
        sockets,
        domains,
    } = params
    else {
        return None;
    };
    let n = parents.len();
    if n < 3 {
        return None;
    }
    let mut parents = parents.clone();
    for _ in 0..KICK_MOVES {
        let v = rng.random_range(0..n);
        let Some(old) = parents[v] else {
            continue;
        };
        // A few draws for the new parent; a move that finds none is skipped.
        for _ in 0..16 {
            let u = rng.random_range(0..n);
            if u as u32 != old && !in_subtree(&parents, u, v) {
                parents[v] = Some(u as u32);
                break;
            }
        }
    }
    Some(Params::RootedTree {
        parents,
        sockets: sockets.clone(),
        domains: domains.clone(),
    })
}

/// One descent of [`improve`] from `start` to a local optimum (`true`), or until the budget or
/// the deadline stops it (`false`). Every tree priced is offered to `top`.
fn descend(
    descent: &Descent<'_>,
    price: &(dyn Fn(Params, &mut SearchStats) -> Option<Scored> + Sync),
    top: &mut TopK<'_>,
    stats: &mut SearchStats,
    progress: &crate::limits::Progress,
    start: Scored,
    spent: &mut u64,
) -> bool {
    let (budget, deadline) = (descent.budget, descent.deadline);
    let per = descent.work_per_tree.max(1);
    let objective = top.objective();
    let mut current = start;
    'moves: loop {
        let Params::RootedTree {
            parents,
            sockets,
            domains,
        } = &current.params
        else {
            return true;
        };
        let (parents, sockets, domains) = (parents.clone(), sockets.clone(), domains.clone());
        // With a free split, the groups the threads are in now (and their room); otherwise
        // the fixed classes.
        let free = descent
            .free
            .and_then(|f| f.groups(&sockets, &domains).map(|g| (f, g)));
        let groups = free
            .as_ref()
            .map_or_else(|| descent.thread_groups.to_vec(), |(_, g)| g.clone());
        let root = parents.iter().position(Option::is_none);
        let relocations = free.iter().flat_map(|(f, groups)| {
            let mut used = vec![0u32; f.capacity.len()];
            for &g in groups {
                used[g as usize] += 1;
            }
            (0..groups.len())
                .filter(move |&t| Some(t) != root)
                .flat_map(move |t| {
                    let (from, used) = (groups[t], used.clone());
                    (0..f.capacity.len() as u32)
                        .filter(move |&g| g != from && used[g as usize] < f.capacity[g as usize])
                        .map(move |g| (t, g))
                })
        });
        let mut moves = neighbours(&parents, &groups)
            .map(|next| Params::RootedTree {
                parents: next,
                sockets: sockets.clone(),
                domains: domains.clone(),
            })
            .chain(relocations.map(|(t, g)| {
                let (sockets, domains) = match &free {
                    Some((f, _)) => f.moved(&sockets, &domains, t, g),
                    None => (sockets.clone(), domains.clone()),
                };
                Params::RootedTree {
                    parents: parents.clone(),
                    sockets,
                    domains,
                }
            }));
        // The neighbourhood in chunks, in order: the first chunk with a better neighbour moves
        // to the best of that chunk, so a neighbourhood larger than the budget still improves.
        // A chunk holds whole trees, so it is shorter for large ones (its memory bounded).
        let per_chunk = (CHUNK_NODES / parents.len().max(1)).clamp(1, MOVES_PER_CHUNK);
        loop {
            let chunk: Vec<Params> = moves.by_ref().take(per_chunk).collect();
            if chunk.is_empty() {
                break;
            }
            let cost = (chunk.len() as u64).saturating_mul(per);
            if spent.saturating_add(cost) > budget || deadline.passed() {
                return false;
            }
            *spent += cost;
            // A chunk of 256 graph pricings at 128 threads takes ~0.25 s: past the deadline
            // the rest of the chunk is skipped (the best of those priced still counts).
            let priced = parallel::map_ordered(&chunk, |next| {
                let mut local = SearchStats::default();
                let scored = if deadline.passed() {
                    None
                } else {
                    price(next.clone(), &mut local)
                };
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
        return true;
    }
}

/// Neighbours priced at once by [`improve`] before it decides whether to move.
const MOVES_PER_CHUNK: usize = 256;

/// The most tree nodes one chunk of neighbours holds (each a tree of three `n`-entry vectors:
/// parents, sockets, domains, 16 bytes a node; 2²² nodes: 64 MB): from 16,384 threads a chunk has fewer than
/// [`MOVES_PER_CHUNK`] neighbours, down to one. Before, 256 neighbours of a million-thread tree
/// took 3.1 GB (`bcast -m sandy-bridge-e5-2660 --threads 1000000 --extrapolate`, docs/perf.md).
const CHUNK_NODES: usize = 1 << 22;

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
        let classes = interchangeable(space, &counts);
        let classes = &classes;
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
                    // One labeling of each orbit of the domains' renamings is priced.
                    if canonical(&labels, classes) {
                        let mut node_sockets = labels.clone();
                        node_sockets.insert(root.min(node_sockets.len()), root_socket);
                        if let Ok(params) = space.assign_threads(&tree, &node_sockets) {
                            if let Some(s) = price(params, &mut local_stats) {
                                local.offer(s);
                            }
                        }
                        progress.advance(1);
                    }
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
            groups_per_socket: 1,
            domain_renaming: DomainRenaming::Any,
            work_per_configuration: 1,
            sockets_fix_cost: true,
            t_min_lower_bound: None,
            t_max_lower_bound: None,
            socket_lines: None,
            priced_by: "a test".into(),
        }
    }

    #[test]
    fn the_score_bound_takes_the_t_max_bound_for_the_worst_case_part() {
        // T_min bound 300 ns, T_max bound 500 ns: under min the score is T_min (300); under max
        // T_max, at least 500; blend:0.25 is at least 0.75·300 + 0.25·500 = 350. A refined
        // T_min bound of 320 raises the T_min part (min 320, blend 0.75·320 + 125 = 365).
        let mut s = space(vec![0, 0, 1], 0, None);
        s.t_min_lower_bound = Some(300.0);
        s.t_max_lower_bound = Some(500.0);
        assert_eq!(score_lower_bound(&Objective::Min, &s, None), Some(300.0));
        assert_eq!(score_lower_bound(&Objective::Max, &s, None), Some(500.0));
        assert_eq!(
            score_lower_bound(&Objective::Blend(0.25), &s, None),
            Some(350.0)
        );
        assert_eq!(
            score_lower_bound(&Objective::Min, &s, Some(320.0)),
            Some(320.0)
        );
        assert_eq!(
            score_lower_bound(&Objective::Blend(0.25), &s, Some(320.0)),
            Some(365.0)
        );
        // A T_max bound below the T_min bound: T_max ≥ T_min on every configuration, so the
        // T_min bound serves (max 300). Without a T_max bound, the T_min bound serves too.
        s.t_max_lower_bound = Some(200.0);
        assert_eq!(score_lower_bound(&Objective::Max, &s, None), Some(300.0));
        s.t_max_lower_bound = None;
        assert_eq!(score_lower_bound(&Objective::Max, &s, None), Some(300.0));
        // No T_min bound: the T_max bound bounds max alone.
        s.t_min_lower_bound = None;
        s.t_max_lower_bound = Some(500.0);
        assert_eq!(score_lower_bound(&Objective::Max, &s, None), Some(500.0));
        assert_eq!(score_lower_bound(&Objective::Min, &s, None), None);
        assert_eq!(score_lower_bound(&Objective::Blend(0.5), &s, None), None);
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
        // 8 sockets × 64 L3 domains of one thread each, 100 threads: far too many splits to
        // list, refused within the work cap instead of walking them (this took seconds when
        // every step re-summed the digits).
        let mut domains = space((0..100).map(|t| t / 64).collect(), 0, Some(vec![1; 512]));
        domains.groups_per_socket = 64;
        domains.thread_groups = (0..100).collect();
        assert_eq!(splits(&domains), None);
    }

    #[test]
    fn equal_domains_are_priced_once_per_renaming() {
        // 2 sockets × 2 domains, root in group 0, split [1, 1 | 1, 1]: groups 2 and 3 (socket 1,
        // one node each) are interchangeable; group 1 has no twin on socket 0 (the root's
        // domain is not renamed).
        let mut s = space(vec![0, 0, 1, 1], 0, Some(vec![2; 4]));
        s.groups_per_socket = 2;
        s.thread_groups = vec![0, 0, 1, 1];
        let classes = interchangeable(&s, &[1, 1, 1, 1]);
        assert_eq!(classes, vec![vec![2, 3]]);
        // Non-root labels in node order: 2 must appear before 3.
        assert!(canonical(&[1, 2, 3], &classes));
        assert!(canonical(&[2, 1, 3], &classes));
        assert!(!canonical(&[1, 3, 2], &classes));
        assert!(!canonical(&[3, 2, 1], &classes));
        // Unequal counts, or the machine's placement: nothing to rename.
        assert!(interchangeable(&s, &[1, 0, 2, 1]).is_empty());
        s.capacity = None;
        assert!(interchangeable(&s, &[1, 1, 1, 1]).is_empty());
    }

    #[test]
    fn the_balanced_placement_deals_threads_to_sockets_in_turn() {
        // Sockets holding 3 and 2, 4 threads, root 0: dealt 1, 1, then 2, 2; the root keeps
        // socket 0, threads 1, 2, 3 take the places left in socket order: 0, 1, 1.
        let s = space(vec![0, 0, 0, 1], 0, Some(vec![3, 2]));
        assert_eq!(balanced_placement(&s), Some((vec![0, 0, 1, 1], Vec::new())));
        // Already the machine's split: nothing new.
        let even = space(vec![0, 0, 1, 1], 0, Some(vec![3, 2]));
        assert_eq!(balanced_placement(&even), None);
        // 2 sockets × 2 domains of 2, 5 threads, root thread 2 in domain 1 of socket 0: socket
        // 0 gets 3, socket 1 gets 2. Socket 0 fills from the root's domain: 1, 1, then 0;
        // socket 1: 0, 0. The root takes the first place; threads 0, 1, 3, 4 the rest in
        // order: groups 1, 0 | 2, 2, i.e. groups [1, 0, 1, 2, 2].
        let mut c = space(vec![0, 0, 0, 0, 1], 2, Some(vec![2; 4]));
        c.groups_per_socket = 2;
        c.thread_groups = vec![0, 0, 1, 1, 2];
        assert_eq!(
            balanced_placement(&c),
            Some((vec![0, 0, 0, 1, 1], vec![1, 0, 1, 0, 0]))
        );
        // Every candidate of a free split is a tree of all threads, within the capacities.
        let free = FreeSplit {
            capacity: &[2; 4],
            groups_per_socket: 2,
        };
        for p in candidates(&c) {
            let Params::RootedTree {
                parents,
                sockets,
                domains,
            } = p
            else {
                panic!("{p:?}");
            };
            assert_eq!(RootedTree::from_parents(&parents).unwrap().root(), 2);
            let groups = free.groups(&sockets, &domains).unwrap();
            assert_eq!(groups[2], 1, "the root keeps its group");
        }
    }

    #[test]
    fn a_free_split_names_groups_and_moves_one_thread() {
        let free = FreeSplit {
            capacity: &[2, 2, 2, 2],
            groups_per_socket: 2,
        };
        // Group = socket × 2 + domain.
        assert_eq!(
            free.groups(&[0, 0, 1, 1], &[0, 1, 1, 1]),
            Some(vec![0, 1, 3, 3])
        );
        // Three threads in domain 1 of socket 1 exceed its 2; no domains where sockets hold
        // two: neither names a placement of the split.
        assert_eq!(free.groups(&[1, 1, 1], &[1, 1, 1]), None);
        assert_eq!(free.groups(&[0, 1], &[]), None);
        // Thread 1 to group 2 (domain 0 of socket 1).
        assert_eq!(
            free.moved(&[0, 0, 1, 1], &[0, 1, 1, 1], 1, 2),
            (vec![0, 1, 1, 1], vec![0, 0, 1, 1])
        );
    }

    /// 2 sockets × 2 L3 domains of 2 threads, 4 threads, a free split, the root in group 0
    /// (domain 0 of socket 0), domains renamed as `renaming` says.
    fn two_by_two_domains(renaming: DomainRenaming) -> PricedTreeSpace {
        let mut s = space(vec![0, 0, 1, 1], 0, Some(vec![2; 4]));
        s.groups_per_socket = 2;
        s.thread_groups = vec![0, 0, 1, 1];
        s.domain_renaming = renaming;
        s
    }

    #[test]
    fn free_splits_over_domains_list_each_renaming_once() {
        // 2 sockets × 2 L3 domains of 2 threads, 4 threads, the root in group 0 (domain 0 of
        // socket 0). Groups [r, a | b, c]: r ≥ 1; the domains b, c of socket 1 are
        // interchangeable, so c ≤ b; a, the root's socket's other domain, has no twin. By
        // hand, in lexicographic order: r = 1: a = 0 → (2, 1); a = 1 → (1, 1), (2, 0);
        // a = 2 → (1, 0). r = 2: a = 0 → (1, 1), (2, 0); a = 1 → (1, 0); a = 2 → (0, 0).
        let mut s = two_by_two_domains(DomainRenaming::Any);
        assert_eq!(
            splits(&s),
            Some(vec![
                vec![1, 0, 2, 1],
                vec![1, 1, 1, 1],
                vec![1, 1, 2, 0],
                vec![1, 2, 1, 0],
                vec![2, 0, 1, 1],
                vec![2, 0, 2, 0],
                vec![2, 1, 1, 0],
                vec![2, 2, 0, 0],
            ])
        );
        // The root in domain 1 of socket 0 (group 1): now socket 0's domain 0 is the other one.
        s.root_thread = 2;
        s.thread_groups = vec![0, 0, 1, 1];
        let with_root_in_1 = splits(&s).unwrap();
        assert!(with_root_in_1.iter().all(|c| c[1] >= 1 && c[3] <= c[2]));
        assert_eq!(with_root_in_1.len(), 8);
    }

    #[test]
    fn domains_with_their_own_lines_are_renamed_only_in_order() {
        // The machine of `free_splits_over_domains_list_each_renaming_once` with one line per
        // domain: a parent waits for the domains' lines in ascending order, so exchanging b and
        // c changes costs, and only moving c's threads to an empty b keeps them. By hand,
        // r + a + b + c = 4, r ≥ 1, each at most 2, c = 0 whenever b = 0, in lexicographic
        // order: r = 1 (a + b + c = 3): (0, 1, 2), (0, 2, 1), (1, 1, 1), (1, 2, 0), (2, 1, 0)
        // (not (1, 0, 2), (2, 0, 1)); r = 2 (a + b + c = 2): (0, 1, 1), (0, 2, 0), (1, 1, 0),
        // (2, 0, 0) (not (0, 0, 2), (1, 0, 1)).
        let mut s = two_by_two_domains(DomainRenaming::InOrder);
        assert_eq!(
            splits(&s),
            Some(vec![
                vec![1, 0, 1, 2],
                vec![1, 0, 2, 1],
                vec![1, 1, 1, 1],
                vec![1, 1, 2, 0],
                vec![1, 2, 1, 0],
                vec![2, 0, 1, 1],
                vec![2, 0, 2, 0],
                vec![2, 1, 1, 0],
                vec![2, 2, 0, 0],
            ])
        );
        // The root in domain 1 of socket 0: domain 0 of socket 0 is a run of its own (before
        // the root's), so it may be empty while socket 1's are not: (0, 2 | 1, 1) is listed.
        s.root_thread = 2;
        let with_root_in_1 = splits(&s).unwrap();
        assert!(with_root_in_1.contains(&vec![0, 2, 1, 1]));
        assert!(!with_root_in_1.contains(&vec![0, 2, 0, 2]));
        s.root_thread = 0;
        // Nor are the labelings of equal domains: [1, 1 | 1, 1] prices every labeling.
        assert!(interchangeable(&s, &[1, 1, 1, 1]).is_empty());
    }

    #[test]
    fn a_kick_re_parents_a_few_threads_and_keeps_a_tree_with_its_root() {
        // A chain 0 → 1 → … → 9: whatever the draws, each kicked tree is a tree rooted at 0
        // (a thread goes only under a thread outside its subtree), at most KICK_MOVES threads
        // change parent, the placement is untouched, and the same seed kicks the same way.
        let parents: Vec<Option<u32>> = (0..10).map(|i| (i > 0).then(|| i - 1)).collect();
        let params = Params::RootedTree {
            parents: parents.clone(),
            sockets: vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1],
            domains: Vec::new(),
        };
        let mut rng = ChaCha8Rng::seed_from_u64(KICK_SEED);
        let mut again = ChaCha8Rng::seed_from_u64(KICK_SEED);
        for _ in 0..200 {
            let kicked = kick(&params, &mut rng).unwrap();
            assert_eq!(kick(&params, &mut again).as_ref(), Some(&kicked));
            let Params::RootedTree {
                parents: next,
                sockets,
                ..
            } = kicked
            else {
                panic!("not a tree");
            };
            let tree = RootedTree::from_parents(&next).unwrap();
            assert_eq!(tree.root(), 0);
            let changed = next.iter().zip(&parents).filter(|(a, b)| a != b).count();
            assert!(changed <= KICK_MOVES, "{next:?}");
            assert_eq!(sockets, [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
        }
        // Two threads: no kick.
        let pair = Params::RootedTree {
            parents: vec![None, Some(0)],
            sockets: vec![0, 0],
            domains: Vec::new(),
        };
        assert!(kick(&pair, &mut rng).is_none());
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
            let Params::RootedTree {
                parents,
                sockets,
                domains,
            } = p
            else {
                panic!("{p:?}");
            };
            assert!(domains.is_empty(), "sockets are the groups: no domains");
            let tree = RootedTree::from_parents(parents).unwrap();
            assert_eq!(tree.len(), 7);
            assert_eq!(tree.root(), 4);
            assert_eq!(sockets, &s.thread_sockets);
        }
    }
}
