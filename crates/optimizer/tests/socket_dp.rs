//! The exact socket DP (issue 8, item 1) against brute force: every rooted tree with every socket
//! labeling of its nodes, priced by the model's own closed form (`TreeCosts::evaluate`), for every
//! split of n threads over the sockets and every root socket.
//!
//! Sizes: n ≤ 9 on two sockets and n ≤ 7 on three run by default (debug build, about 20 s on a
//! busy machine);
//! `brute_force_two_sockets_up_to_12`, `brute_force_three_sockets_up_to_10` and
//! `the_scalar_pass_brute_force_two_sockets_up_to_11_three_up_to_8` are `#[ignore]`d
//! (minutes in a debug build): `cargo test -p modelopt-optimizer --release --test socket_dp --
//! --ignored`.

use modelopt_model::ccnuma::bcast::TreeCosts;
use modelopt_model::ccnuma::tree::RootedTree;
use modelopt_model::placed_tree::{LineClasses, PlacedTreeCost, RootedTreeSpace};
use modelopt_model::Cost;
use modelopt_optimizer::limits::{Limits, Progress, StopReason};
use modelopt_optimizer::rooted_trees::TreeSearch;
use modelopt_optimizer::rooted_trees::{self, LevelSequences};
use modelopt_optimizer::socket_dp::{self, Filled, SocketTable};
use modelopt_optimizer::{Exactness, Objective};
use proptest::prelude::*;
use std::collections::HashMap;
use std::time::Duration;

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

/// (score, tie score) of a cost under an objective.
/// Whether a covering value `bound`, whose tables are `f32` rounded down (docs/cla.md §11,
/// "Precision"), stands for the value `exact` worked out in `f64`: never above it (but for sums
/// in another order), and below it by at most the rounding margin the search allows for.
fn rounded_from(bound: f64, exact: f64) -> bool {
    bound <= exact + 1e-6 && bound >= exact - exact.abs() * socket_dp::ROUNDING_MARGIN
}

fn keys(objective: &Objective, c: &Cost) -> (f64, f64) {
    let score = objective
        .score(c, modelopt_model::Metric::Latency)
        .unwrap_or(c.min_ns);
    (score, objective.tie_score(c))
}

fn better(objective: &Objective, a: &Cost, b: &Cost) -> bool {
    let (ka, kb) = (keys(objective, a), keys(objective, b));
    ka.0 < kb.0 - 1e-7 || ((ka.0 - kb.0).abs() <= 1e-7 && ka.1 < kb.1 - 1e-7)
}

const OBJECTIVES: [Objective; 3] = [Objective::Min, Objective::Max, Objective::Blend(0.5)];

/// Brute force: for every tree of n nodes and every labeling of its nodes with `sockets`
/// sockets, the best cost per (root socket, nodes per socket) under each of [`OBJECTIVES`].
fn brute_force(costs: &TreeCosts, n: usize, sockets: u32) -> HashMap<(u32, Vec<u32>), [Cost; 3]> {
    let mut best: HashMap<(u32, Vec<u32>), [Cost; 3]> = HashMap::new();
    let mut g = LevelSequences::new(n);
    let labelings = (sockets as usize).pow(n as u32);
    while let Some(levels) = g.next_tree() {
        let tree = RootedTree::from_levels(levels).unwrap();
        let mut labels = vec![0u32; n];
        for code in 0..labelings {
            let mut x = code;
            for l in labels.iter_mut() {
                *l = (x % sockets as usize) as u32;
                x /= sockets as usize;
            }
            let mut counts = vec![0u32; sockets as usize];
            for &l in &labels {
                counts[l as usize] += 1;
            }
            let cost = costs.evaluate(&tree, &labels).unwrap();
            let key = (labels[tree.root() as usize], counts);
            let entry = best.entry(key).or_insert([cost; 3]);
            for (o, b) in OBJECTIVES.iter().zip(entry.iter_mut()) {
                if better(o, &cost, b) {
                    *b = cost;
                }
            }
        }
    }
    best
}

/// The DP's answer for every key of the brute force, checked three ways: its cost equals the
/// brute force optimum (score and tie score, 1e-6 ns), its tree prices to the same cost by
/// `TreeCosts::evaluate`, and its placement has the requested counts and root socket.
fn check_against_brute_force(costs: &TreeCosts, max_n: usize, sockets: u32) {
    let box_counts = vec![max_n as u32; sockets as usize];
    let (table, filled) = SocketTable::build(
        &LineClasses::from(*costs),
        &box_counts,
        None,
        &Limits::default(),
        &Progress::none(),
    )
    .unwrap();
    assert_eq!(filled, Filled::Complete);
    for n in 2..=max_n {
        for ((root, counts), wants) in brute_force(costs, n, sockets) {
            check_best(costs, &table, root, &counts, &wants);
        }
    }
}

/// The same with one table per split (the box of exactly its counts): for more units, where
/// one box of `max_n` nodes on every unit would hold trees of `units · max_n` nodes.
fn check_each_split_against_brute_force(costs: &TreeCosts, max_n: usize, units: u32) {
    for n in 2..=max_n {
        for ((root, counts), wants) in brute_force(costs, n, units) {
            let (table, filled) = SocketTable::build(
                &LineClasses::from(*costs),
                &counts,
                None,
                &Limits::default(),
                &Progress::none(),
            )
            .unwrap();
            assert_eq!(filled, Filled::Complete);
            check_best(costs, &table, root, &counts, &wants);
        }
    }
}

/// The table's answer for one (root, counts) against the brute-force optima of [`OBJECTIVES`].
fn check_best(
    costs: &TreeCosts,
    table: &SocketTable,
    root: u32,
    counts: &[u32],
    wants: &[Cost; 3],
) {
    let sockets = counts.len();
    for (objective, want) in OBJECTIVES.iter().zip(wants) {
        let objective = *objective;
        let got = table.best(root, counts, &objective).unwrap();
        let (kg, kw) = (keys(&objective, &got.cost), keys(&objective, want));
        assert!(
            (kg.0 - kw.0).abs() < 1e-6 && (kg.1 - kw.1).abs() < 1e-6,
            "{objective} root {root} counts {counts:?}: dp {:?} brute force {want:?}",
            got.cost
        );
        let tree = RootedTree::from_parents(&got.parents).unwrap();
        let again = costs.evaluate(&tree, &got.sockets).unwrap();
        assert!(
            (again.min_ns - got.cost.min_ns).abs() < 1e-6
                && (again.max_ns - got.cost.max_ns).abs() < 1e-6,
            "reconstructed tree {tree} {:?} prices {again:?}, dp said {:?}",
            got.sockets,
            got.cost
        );
        assert_eq!(got.sockets[0], root);
        let mut placed = vec![0u32; sockets];
        for &s in &got.sockets {
            placed[s as usize] += 1;
        }
        assert_eq!(placed, counts);
    }
}

#[test]
fn equals_brute_force_on_two_sockets_up_to_9() {
    check_against_brute_force(&sandy(), 9, 2);
}

#[test]
fn equals_brute_force_on_three_sockets_up_to_7() {
    check_against_brute_force(&sandy(), 7, 3);
}

#[test]
#[ignore = "minutes in a debug build; run with --release -- --ignored"]
fn brute_force_two_sockets_up_to_12() {
    check_against_brute_force(&sandy(), 12, 2);
}

#[test]
#[ignore = "minutes in a debug build; run with --release -- --ignored"]
fn brute_force_three_sockets_up_to_10() {
    check_against_brute_force(&sandy(), 10, 3);
}

/// Random machines with R_L < R_R < R_Q and R_I ≤ R_QI.
fn machines() -> impl Strategy<Value = TreeCosts> {
    (
        0.5f64..10.0,
        10.0f64..80.0,
        1.0f64..150.0,
        20.0f64..150.0,
        0.0f64..100.0,
    )
        .prop_map(
            |(local, socket, extra_remote, memory, extra_memory)| TreeCosts {
                local,
                socket,
                remote: socket + extra_remote,
                memory,
                remote_memory: memory + extra_memory,
                domains: None,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Random machines with R_L < R_R < R_Q and R_I ≤ R_QI, every tree and placement up to 7
    /// nodes on two sockets and 5 on three.
    #[test]
    fn equals_brute_force_on_random_machines(
        c in machines(),
    ) {
        check_against_brute_force(&c, 7, 2);
        check_against_brute_force(&c, 5, 3);
    }
}

fn space(counts: &[u32], root_socket: u32) -> RootedTreeSpace {
    let mut thread_sockets = Vec::new();
    for (s, &c) in counts.iter().enumerate() {
        thread_sockets.extend(std::iter::repeat_n(s as u32, c as usize));
    }
    let root_thread = thread_sockets
        .iter()
        .position(|&s| s == root_socket)
        .unwrap() as u32;
    RootedTreeSpace {
        threads: thread_sockets.len() as u32,
        thread_sockets,
        root_thread,
        pricing: std::sync::Arc::new(sandy()),
        capacity: None,
    }
}

#[test]
fn sixteen_threads_on_the_e5_2660_is_the_flat_tree() {
    // docs/cla.md §10: 8 + 8 threads, root on socket 0. The flat tree: the root's 7 local and 8
    // remote children notify on two lines. By hand (§7, times from the end of the root's S2):
    // A_min = R_I = 70; local group: arrival 70 + R_R + R_L = 107.3, + R_I + 6 R_R = 387.3;
    // remote group: arrival 70 + R_Q + R_L = 166.3, + R_I + 7 R_R = 481.3. Waits in ascending
    // socket order: W_0 = 387.3 + R_R = 422.3; W_1 = max(422.3, 481.3) + R_Q = 575.3; plus the
    // root's read of its own buffer R_L = 2.3: T_min = 577.6 ns.
    let found = rooted_trees::optimal(&space(&[8, 8], 0), TreeSearch::Dp, &Objective::Min).unwrap();
    assert!((found.cost.min_ns - 577.6).abs() < 1e-9, "{:?}", found.cost);
    assert!(found.exact());
    assert_eq!(found.exactness, Exactness::Exact);
    let mut flat = vec![1u32; 16];
    flat[0] = 0;
    assert_eq!(found.levels, flat);
    let e =
        rooted_trees::optimal(&space(&[8, 8], 0), TreeSearch::Exhaustive, &Objective::Min).unwrap();
    assert!((e.cost.min_ns - found.cost.min_ns).abs() < 1e-6);
    assert!((e.cost.max_ns - found.cost.max_ns).abs() < 1e-6);
}

#[test]
fn dp_equals_exhaustive_search_on_the_e5_2660_split() {
    // The default split: 8 threads on socket 0, the rest on socket 1; every n the exhaustive
    // search finishes quickly in a debug build, both root sockets.
    for n in 2..=12u32 {
        let counts = if n <= 8 { vec![n] } else { vec![8, n - 8] };
        for root in 0..counts.len() as u32 {
            for objective in [Objective::Min, Objective::Max] {
                let d = rooted_trees::optimal(&space(&counts, root), TreeSearch::Dp, &objective)
                    .unwrap();
                let e = rooted_trees::optimal(
                    &space(&counts, root),
                    TreeSearch::Exhaustive,
                    &objective,
                )
                .unwrap();
                let (kd, ke) = (keys(&objective, &d.cost), keys(&objective, &e.cost));
                assert!(
                    (kd.0 - ke.0).abs() < 1e-6 && (kd.1 - ke.1).abs() < 1e-6,
                    "n {n} root {root} {objective}: dp {:?} exhaustive {:?}",
                    d.cost,
                    e.cost
                );
            }
        }
    }
}

#[test]
fn the_pareto_points_are_held_to_the_memory_limit() {
    // 4 + 4 threads: 5² = 25 count vectors, one word of presence bits in each of the
    // S² + 2·S = 8 tables (12 bytes with its rank) and 2 components of 4 bytes a vector:
    // 8 × 12 + 25 × 8 = 96 + 200 = 296 bytes of index.
    let counts = [4u32, 4];
    assert_eq!(socket_dp::table_bytes(&counts), 296);
    let build = |memory_limit: u64| {
        let limits = Limits {
            memory_limit,
            ..Limits::default()
        };
        SocketTable::build(&sandy().into(), &counts, None, &limits, &Progress::none())
    };
    // Under 296 bytes the index itself is refused, before anything is allocated.
    match build(295) {
        Err(socket_dp::SocketDpError::Memory(m)) => assert_eq!((m.bytes, m.limit), (296, 295)),
        other => panic!("{other:?}"),
    }
    // 256 bytes beside the index: the points (24 bytes a subtree point, 32 a group point, 40
    // a node stage's) and their sets' starts (4 bytes each) pass it within a few states, and
    // the pass stops with the reason.
    let (_, filled) = build(296 + 256).unwrap();
    assert_eq!(
        filled,
        Filled::Stopped(StopReason::MemoryLimit {
            limit: 552,
            needed: 0
        })
    );
    // With the default limit the table completes, and its points take far more than 256 bytes
    // (so the stop above was the limit's).
    let (table, filled) = build(Limits::default().memory_limit).unwrap();
    assert_eq!(filled, Filled::Complete);
    let points: usize = table.sizes().iter().map(|&(total, _)| total).sum();
    assert!(points * 24 > 256, "{points}");
}

#[test]
fn over_budget_is_refused_with_the_estimate() {
    let limits = Limits {
        time_limit: None,
        work_budget: 1000,
        ..Limits::default()
    };
    let err = SocketTable::build(&sandy().into(), &[64, 64], None, &limits, &Progress::none())
        .unwrap_err();
    // Π (N+1)(N+2)/2 = 2145² pairs, times S + S(S − 1) = 4 convolutions.
    assert_eq!(
        err,
        socket_dp::SocketDpError::Budget(modelopt_optimizer::limits::BudgetExceeded {
            what: "socket-DP transitions".into(),
            estimate: 2145 * 2145 * 4,
            budget: 1000,
        })
    );
}

#[test]
fn a_time_limit_returns_the_best_found_with_a_certified_gap() {
    let limits = Limits {
        time_limit: Some(Duration::ZERO),
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let found = rooted_trees::optimal_with(
        &space(&[8, 8], 0),
        TreeSearch::Dp,
        &Objective::Min,
        &limits,
        &Progress::none(),
    )
    .unwrap();
    assert!(!found.exact());
    match found.exactness {
        Exactness::Bounded {
            stopped: StopReason::TimeLimit { .. },
            lower_bound: Some(lb),
            gap_percent: Some(gap),
        } => {
            // The optimum is 577.6 ns; the bound must not exceed it.
            assert!(lb <= 577.6 + 1e-9, "{lb}");
            assert!(gap >= 0.0);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_lower_bound_holds_for_every_tree_and_placement() {
    let c = sandy();
    for n in 2..=7usize {
        let best = brute_force(&c, n, 2)
            .values()
            .map(|c| c[0].min_ns)
            .fold(f64::INFINITY, f64::min);
        assert!(
            socket_dp::lower_bound(&c.into(), n as u32, 2) <= best + 1e-9,
            "n = {n}"
        );
    }
}

#[test]
fn a_free_split_is_the_best_of_every_split() {
    // `--placement optimal`: n threads on two sockets of at most 4 each, root on socket 0. The
    // DP reads every split from one table; it must equal the best exhaustive search over the
    // splits taken one by one, and never be worse than the split by thread id (4 + rest).
    for n in 2..=8u32 {
        let mut free = space(&[n.min(4), n.saturating_sub(4)], 0);
        if n <= 4 {
            free = space(&[n], 0);
        }
        free.capacity = Some(vec![4, 4]);
        let d = rooted_trees::optimal(&free, TreeSearch::Dp, &Objective::Min).unwrap();
        let e = rooted_trees::optimal(&free, TreeSearch::Exhaustive, &Objective::Min).unwrap();
        assert!(
            (d.cost.min_ns - e.cost.min_ns).abs() < 1e-6,
            "n {n}: {d:?} {e:?}"
        );
        assert!(
            (d.cost.max_ns - e.cost.max_ns).abs() < 1e-6,
            "n {n}: {d:?} {e:?}"
        );
        let by_id = rooted_trees::optimal(
            &space(&[n.min(4), n.saturating_sub(4)], 0),
            TreeSearch::Dp,
            &Objective::Min,
        )
        .unwrap();
        assert!(d.cost.min_ns <= by_id.cost.min_ns + 1e-9);
        let per_socket = d.sockets.iter().filter(|&&s| s == 0).count();
        assert!(per_socket <= 4 && d.sockets.len() - per_socket <= 4);
    }
}

/// A free split under min (`SocketTable::build_splits` with a `Prune` for `Objective::Min`: the
/// covering pass with a whole tree at every split, budgets from every split whose covering
/// value is the least, widened when no tree is that cheap) equals brute force: for every n, box
/// and root unit, the best over the splits of n within the box (least T_min, ties by T_max) is
/// the least brute-force (T_min, T_max) over those splits; with no incumbent, the optimum as
/// incumbent and a loose one. Every split the table answers is checked against its own brute
/// force, and the best one must be among them.
fn check_free_split_under_min(costs: &TreeCosts, bounds: &[u32], max_n: usize) {
    let units = bounds.len() as u32;
    let classes = LineClasses::from(*costs);
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let min = Objective::Min;
    for n in 2..=max_n {
        let brute = brute_force(costs, n, units);
        for root in 0..units {
            let within = |c: &[u32]| c.iter().zip(bounds).all(|(&x, &b)| x <= b);
            let want = brute
                .iter()
                .filter(|((r, c), _)| *r == root && within(c))
                .map(|(_, w)| w[0])
                .reduce(|a, b| if better(&min, &b, &a) { b } else { a });
            let Some(want) = want else { continue };
            for incumbent in [f64::INFINITY, want.min_ns, want.min_ns + 500.0] {
                let (table, filled) = SocketTable::build_splits(
                    &classes,
                    bounds,
                    n as u32,
                    root,
                    Some(socket_dp::Prune {
                        objective: min,
                        incumbent,
                    }),
                    &unlimited,
                    &Progress::none(),
                )
                .unwrap();
                assert_eq!(filled, Filled::Complete);
                let mut got: Option<Cost> = None;
                for ((r, counts), wants) in &brute {
                    if *r != root || !within(counts) {
                        continue;
                    }
                    if let Some(placed) = table.best(root, counts, &min) {
                        // What a split answers is a real tree of that split, at least its
                        // optimum.
                        assert!(placed.cost.min_ns >= wants[0].min_ns - 1e-6);
                        let tree = RootedTree::from_parents(&placed.parents).unwrap();
                        let again = costs.evaluate(&tree, &placed.sockets).unwrap();
                        assert!((again.min_ns - placed.cost.min_ns).abs() < 1e-6);
                        if got.is_none_or(|g| better(&min, &placed.cost, &g)) {
                            got = Some(placed.cost);
                        }
                    }
                }
                let got = got.unwrap_or_else(|| {
                    panic!("{bounds:?} n {n} root {root} incumbent {incumbent}: no split")
                });
                assert!(
                    (got.min_ns - want.min_ns).abs() < 1e-6
                        && (got.max_ns - want.max_ns).abs() < 1e-6,
                    "{bounds:?} n {n} root {root} incumbent {incumbent}: {got:?} vs {want:?}"
                );
            }
        }
    }
}

#[test]
fn a_free_split_under_min_equals_brute_force() {
    check_free_split_under_min(&sandy(), &[4, 4], 8);
    check_free_split_under_min(&sandy(), &[3, 3, 3], 6);
    // L3 domains as units: covering values below every tree occur here (see
    // `a_covering_bound_below_every_tree_is_widened_to_the_optimum`).
    check_free_split_under_min(&chiplet(2), &[2, 2, 2, 2], 6);
    check_free_split_under_min(&chiplet(3), &[2, 2, 2], 6);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    /// The same on random machines, with and without L3 domains as units.
    #[test]
    fn a_free_split_under_min_equals_brute_force_on_random_machines(
        c in machines(),
        d in chiplet_machines(),
    ) {
        check_free_split_under_min(&c, &[3, 3, 3], 5);
        check_free_split_under_min(&d, &[2, 2, 2, 2], 5);
    }
}

/// The tightest sound incumbent is the optimum itself: with it, the pruned DP must still find
/// a tree of the optimal cost, for every split, root socket and objective.
fn check_pruning_keeps_the_optimum(costs: &TreeCosts, max_n: usize, sockets: u32) {
    for n in 2..=max_n {
        for ((root, counts), wants) in brute_force(costs, n, sockets) {
            for (objective, want) in OBJECTIVES.iter().zip(wants) {
                let prune = socket_dp::Prune {
                    objective: *objective,
                    incumbent: keys(objective, &want).0,
                };
                let (table, _) = SocketTable::build(
                    &LineClasses::from(*costs),
                    &counts,
                    Some(prune),
                    &Limits::default(),
                    &Progress::none(),
                )
                .unwrap();
                let got = table.best(root, &counts, objective).unwrap_or_else(|| {
                    panic!("{objective} root {root} {counts:?}: pruned away {want:?}")
                });
                let (kg, kw) = (keys(objective, &got.cost), keys(objective, &want));
                assert!(
                    (kg.0 - kw.0).abs() < 1e-6 && (kg.1 - kw.1).abs() < 1e-6,
                    "{objective} root {root} {counts:?}: {:?} vs {want:?}",
                    got.cost
                );
            }
        }
    }
}

#[test]
fn pruning_by_the_optimum_keeps_the_optimum() {
    check_pruning_keeps_the_optimum(&sandy(), 8, 2);
    check_pruning_keeps_the_optimum(&sandy(), 6, 3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]
    /// The same on random machines (R_L < R_R < R_Q, R_I ≤ R_QI).
    #[test]
    fn pruning_is_sound_on_random_machines(
        c in machines(),
    ) {
        check_pruning_keeps_the_optimum(&c, 6, 2);
        check_pruning_keeps_the_optimum(&c, 5, 3);
    }
}

/// `socket_dp::optimal` under min with no limits, which must complete and find a tree; with
/// `by_envelopes`, with the partial nodes budgeted by envelopes (the form a request takes when
/// the suffix states' tables do not fit, docs/cla.md §11 "Budgets without suffix states").
fn exact_min(
    classes: &LineClasses,
    counts: &[u32],
    root: u32,
    incumbent: Option<f64>,
    by_envelopes: bool,
) -> socket_dp::PlacedTree {
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let quiet = Progress::none();
    let outcome = if by_envelopes {
        socket_dp::optimal_by_envelopes(classes, counts, root, incumbent, &unlimited, &quiet)
    } else {
        socket_dp::optimal(
            classes,
            counts,
            root,
            &Objective::Min,
            incumbent,
            &unlimited,
            &quiet,
        )
    }
    .unwrap();
    assert_eq!(outcome.filled, Filled::Complete);
    // The covering bound is in the outcome and below the optimum.
    let best = outcome
        .best
        .unwrap_or_else(|| panic!("root {root} {counts:?} incumbent {incumbent:?}: no tree"));
    let bound = outcome.lower_bound.unwrap();
    assert!(bound <= best.cost.min_ns + 1e-9, "{bound} over {best:?}");
    best
}

/// The scalar T_min pass (the covering pass forward, budgets backward) that `socket_dp::optimal`
/// runs under `Objective::Min`: its least T_min alone (`covering_bound`) is never above the
/// brute-force least T_min, and equal to it when `tight` and the root's socket holds at least two
/// nodes (on the E5-2660 adding a node never lowers the least T_min there; with the root alone on
/// its socket a tree holding one more node there, a relay, can be cheaper: [9, 1] rooted on
/// socket 1 costs 612.6 ns, [9, 2] 579.9 ns, and the covering value of [9, 1] is the latter —
/// docs/cla.md §11); and the whole request (covering pass, budgets,
/// Pareto pass, widened when the bound is below every tree) returns the brute-force optimum with
/// its tie score (T_max), with no incumbent, with the optimum itself as incumbent, and with a
/// loose one, for every split and root socket.
fn check_scalar_pass(costs: &TreeCosts, max_n: usize, sockets: u32, tight: bool) {
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let quiet = Progress::none();
    for n in 2..=max_n {
        for ((root, counts), wants) in brute_force(costs, n, sockets) {
            let want = wants[0];
            let least = socket_dp::covering_bound(
                &LineClasses::from(*costs),
                &counts,
                root,
                None,
                &unlimited,
                &quiet,
            )
            .unwrap()
            .unwrap();
            assert!(
                least <= want.min_ns + 1e-6
                    && (!tight || counts[root as usize] < 2 || rounded_from(least, want.min_ns)),
                "root {root} {counts:?}: covering {least} vs brute force {want:?}"
            );
            // Cutting at an incumbent at or above the optimum drops only what cannot be part of
            // a tree that beats it: the bound is the same (a cut that dropped a partial stage of
            // the root as if it were a proper subtree once raised it above the optimum).
            for incumbent in [want.min_ns, want.min_ns + 500.0] {
                let cut = socket_dp::covering_bound(
                    &LineClasses::from(*costs),
                    &counts,
                    root,
                    Some(incumbent),
                    &unlimited,
                    &quiet,
                )
                .unwrap();
                assert!(
                    cut.is_some_and(|c| (c - least).abs() < 1e-9),
                    "root {root} {counts:?} incumbent {incumbent}: {cut:?} vs {least}"
                );
            }
            let incumbents = [None, Some(want.min_ns), Some(want.min_ns + 500.0)];
            for (incumbent, by_envelopes) in
                incumbents.into_iter().flat_map(|i| [(i, false), (i, true)])
            {
                let got = exact_min(
                    &LineClasses::from(*costs),
                    &counts,
                    root,
                    incumbent,
                    by_envelopes,
                );
                assert!(
                    (got.cost.min_ns - want.min_ns).abs() < 1e-6
                        && (got.cost.max_ns - want.max_ns).abs() < 1e-6,
                    "root {root} {counts:?} incumbent {incumbent:?} envelopes {by_envelopes}: \
                     {:?} vs {want:?}",
                    got.cost
                );
                let tree = RootedTree::from_parents(&got.parents).unwrap();
                let again = costs.evaluate(&tree, &got.sockets).unwrap();
                assert!((again.min_ns - got.cost.min_ns).abs() < 1e-6);
                assert!((again.max_ns - got.cost.max_ns).abs() < 1e-6);
            }
        }
    }
}

#[test]
fn the_scalar_pass_and_its_budgets_keep_the_min_optimum() {
    check_scalar_pass(&sandy(), 8, 2, true);
    check_scalar_pass(&sandy(), 6, 3, true);
}

#[test]
#[ignore = "seconds in a release build (2.3 s here), minutes in debug; run with --release -- --ignored"]
fn the_scalar_pass_brute_force_two_sockets_up_to_11_three_up_to_8() {
    check_scalar_pass(&sandy(), 11, 2, true);
    check_scalar_pass(&sandy(), 8, 3, true);
}

#[test]
fn the_scalar_pass_at_16_threads_on_the_e5_2660_is_the_flat_tree_optimum() {
    // 8 + 8 threads, root on socket 0: the flat tree of the issue, t_min 577.6 ns. The root's
    // 7 children on socket 0 and 8 on socket 1 form one group each (§7, a group's term is
    // 2·R_I + R_L + x + (k − 1)·R_R + its wait x + the waits of the groups above it):
    // socket 1, 2·70 + 2.3 + 2·94 + 7·35 = 575.3; socket 0, 2·70 + 2.3 + 2·35 + 6·35 + 94
    // (socket 1's wait) = 516.3. The larger, 575.3, plus the offset R_L = 2.3 is 577.6.
    let t = socket_dp::covering_bound(
        &sandy().into(),
        &[8, 8],
        0,
        None,
        &Limits::default(),
        &Progress::none(),
    )
    .unwrap()
    .unwrap();
    assert!(rounded_from(t, 577.6), "{t}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]
    /// The scalar pass on random machines (R_L < R_R < R_Q, R_I ≤ R_QI).
    #[test]
    fn the_scalar_pass_is_exact_on_random_machines(
        c in machines(),
    ) {
        check_scalar_pass(&c, 6, 2, false);
        check_scalar_pass(&c, 5, 3, false);
    }
}

#[test]
fn the_least_min_of_a_smaller_total_is_the_least_fixed_split_optimum_and_a_bound() {
    // least_score_of_total(box, m, root) is the least covering value over the count vectors
    // D ≤ box with |D| = m and the root's socket non-empty: never above the least exact T_min
    // over those D (a covering value is a relaxation), and on these boxes of the E5-2660 equal
    // to it (a relay that makes a larger vector cheaper, as at [9, 1] → [9, 2] rooted on socket
    // 1, never undercuts the least over all D here): check it against the exact search at
    // every such D, on 2 sockets (box 4 × 4) and 3 (box 3 × 3 × 3). And the
    // law the fallback's bound rests on: removing leaves never makes a tree costlier, so for
    // every request C ≤ box with |C| > m the exact optimum is at least that least value (and a
    // cut at such a tree's T_min leaves it unchanged).
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let quiet = Progress::none();
    let classes: LineClasses = sandy().into();
    for (bounds, root) in [(vec![4u32, 4], 0u32), (vec![4, 4], 1), (vec![3, 3, 3], 2)] {
        // Every count vector inside the box, by odometer.
        let mut all = Vec::new();
        let mut v = vec![0u32; bounds.len()];
        'odometer: loop {
            all.push(v.clone());
            for i in 0..v.len() {
                v[i] += 1;
                if v[i] <= bounds[i] {
                    continue 'odometer;
                }
                v[i] = 0;
            }
            break;
        }
        let exact = |d: &[u32]| exact_min(&classes, d, root, None, false).cost.min_ns;
        let total_max: u32 = bounds.iter().sum();
        let whole = exact(&bounds);
        for m in 2..total_max {
            let least = socket_dp::least_score_of_total(
                &classes,
                &Objective::Min,
                &bounds,
                m,
                root,
                None,
                &unlimited,
                &quiet,
            )
            .unwrap()
            .unwrap();
            // Cut at the T_min of a real tree of more nodes (the whole box's optimum, as a
            // stopgap tree of a larger request would be): the same value, since it is at most
            // that tree's T_min once leaves are removed down to m nodes.
            let cut = socket_dp::least_score_of_total(
                &classes,
                &Objective::Min,
                &bounds,
                m,
                root,
                Some(whole),
                &unlimited,
                &quiet,
            )
            .unwrap();
            assert!(
                cut.is_some_and(|c| (c - least).abs() < 1e-9),
                "{bounds:?} m = {m}: cut at {whole}: {cut:?} vs {least}"
            );
            let by_split = all
                .iter()
                .filter(|d| d.iter().sum::<u32>() == m && d[root as usize] > 0)
                .map(|d| exact(d))
                .fold(f64::INFINITY, f64::min);
            assert!(
                rounded_from(least, by_split),
                "{bounds:?} m = {m}: {least} vs {by_split}"
            );
            for c in all
                .iter()
                .filter(|c| c.iter().sum::<u32>() > m && c[root as usize] > 0)
            {
                assert!(exact(c) >= least - 1e-6, "{c:?} below the bound of m = {m}");
            }
        }
    }
}

#[test]
fn the_pareto_pass_counts_its_point_combinations_against_the_budget() {
    // The up-front estimate counts transition pairs; without an incumbent each pair combines
    // whole Pareto sets, so a table whose estimate just fits can still be far more work. With
    // the budget equal to the estimate of the box 6 × 6 × 6 the pass must stop with the
    // budget's reason after POINTS_PER_BUDGET_UNIT × budget combinations; with a budget large
    // enough it completes, and the combinations it tried are what the first run ran out of.
    let classes: LineClasses = sandy().into();
    let counts = [6u32, 6, 6];
    let budget = socket_dp::estimate(&counts).units;
    let tight = Limits {
        time_limit: None,
        work_budget: budget,
        ..Limits::default()
    };
    let (table, filled) =
        SocketTable::build(&classes, &counts, None, &tight, &Progress::none()).unwrap();
    assert!(
        matches!(filled, Filled::Stopped(StopReason::WorkBudget { budget: b, needed: 0, memory: 0 }) if b == budget),
        "{filled:?}, {} combinations for a budget of {budget}",
        table.points
    );
    assert!(table.points > budget * socket_dp::POINTS_PER_BUDGET_UNIT);
    let loose = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let (whole, filled) =
        SocketTable::build(&classes, &counts, None, &loose, &Progress::none()).unwrap();
    assert!(matches!(filled, Filled::Complete));
    assert!(whole.points > budget * socket_dp::POINTS_PER_BUDGET_UNIT);
}

/// The height-indexed bound of stopped searches (`socket_dp::lower_bound_by_height`) is never
/// above the least T_min over every tree and placement of the split, brute force.
fn check_height_bound(costs: &TreeCosts, max_n: usize, sockets: u32) {
    let classes = LineClasses::from(*costs);
    for n in 2..=max_n {
        for ((root, counts), wants) in brute_force(costs, n, sockets) {
            let least = wants[0].min_ns;
            let bound = socket_dp::lower_bound_by_height(&classes, n as u32, &counts).unwrap();
            assert!(
                bound <= least + 1e-9,
                "{counts:?} root {root}: bound {bound} above the optimum {least}"
            );
        }
    }
}

#[test]
fn the_height_bound_holds_on_the_e5_2660() {
    check_height_bound(&sandy(), 8, 2);
    check_height_bound(&sandy(), 6, 3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// The same on random machines (R_L < R_R < R_Q, R_I ≤ R_QI).
    #[test]
    fn the_height_bound_holds_on_random_machines(
        c in machines(),
    ) {
        check_height_bound(&c, 7, 2);
        check_height_bound(&c, 5, 3);
    }
}

/// A chiplet machine whose nodes keep one synchronization line per L3 domain (docs/cla.md §13):
/// the labels are domains, `per_socket` to a socket, priced with the bundled
/// `chiplet-2s-4x8-domain-lines`'s estimates (R_L 1.43, R_R 35, R_D 164.5, R_Q 223.5, R_I 122,
/// R_QI 159 ns).
fn chiplet(per_socket: u32) -> TreeCosts {
    let m = modelopt_model::machine::load("chiplet-2s-4x8-domain-lines").unwrap();
    let bundled = m
        .model::<modelopt_model::ccnuma::Ccnuma>()
        .unwrap()
        .tree_costs();
    let domains = bundled.domains.unwrap();
    assert_eq!((domains.remote_domain, bundled.remote), (164.5, 223.5));
    TreeCosts {
        domains: Some(modelopt_model::placed_tree::Domains {
            per_socket,
            ..domains
        }),
        ..bundled
    }
}

/// Where adding a node lowers the least T_min, the covering bound is below every tree of the
/// request, and the search must widen its budget to find the optimum. Chiplet with one line per
/// L3 domain, 2 sockets × 2 domains (units 0, 1 | 2, 3); R_L 1.43, R_R 35, R_D 164.5, R_Q 223.5,
/// R_I 122 ns; c₀ = 2 R_I + R_L = 245.43. Root alone in unit 3, two nodes in unit 0, one in
/// unit 2: counts [2, 0, 1, 1].
///
/// Exact: the root's children are two leaves in unit 0 (one group, another socket) and one leaf
/// in unit 2 (another domain of its socket); the waits go in ascending unit order, so unit 0's
/// group pays unit 2's wait after its own: c₀ + R_Q + (2 − 1)·R_R + R_Q + R_D = 245.43 +
/// 223.5 + 35 + 223.5 + 164.5 = 891.93; unit 2's group c₀ + 2·R_D = 574.43; T_min = 891.93 +
/// R_L = 893.36 ns. No other tree of these four nodes is cheaper: the brute force of
/// `pruning_and_the_scalar_pass_keep_the_optimum_with_l3_domains_as_units` covers this request.
///
/// Covering: a tree may hold *more* nodes, e.g. a second node w in unit 3 that relays unit 2's
/// leaf: T(w) = c₀ + 2·R_D = 574.43; the root's groups are unit 0 (c₀ + R_Q + R_R + R_Q + R_R =
/// 762.43, unit 3's wait now R_R) and unit 3 (c₀ + R_R + 574.43 + R_R = 889.86); T_min = 889.86 +
/// R_L = 891.29 ns, below every tree of exactly [2, 0, 1, 1].
#[test]
fn a_covering_bound_below_every_tree_is_widened_to_the_optimum() {
    let classes = LineClasses::from(chiplet(2));
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let quiet = Progress::none();
    let counts = [2u32, 0, 1, 1];
    let bound = socket_dp::covering_bound(&classes, &counts, 3, None, &unlimited, &quiet)
        .unwrap()
        .unwrap();
    assert!(rounded_from(bound, 891.29), "{bound}");
    // Both forms of the budgets widen to it (docs/cla.md §11, "Budgets without suffix states").
    let incumbents = [None, Some(893.36), Some(2000.0)];
    for (incumbent, by_envelopes) in incumbents.into_iter().flat_map(|i| [(i, false), (i, true)]) {
        let got = exact_min(&classes, &counts, 3, incumbent, by_envelopes);
        assert!(
            (got.cost.min_ns - 893.36).abs() < 1e-9,
            "{incumbent:?}: {got:?}"
        );
        assert_eq!(got.sockets, vec![3, 2, 0, 0], "{incumbent:?}: {got:?}");
    }
}

/// With L3 domains as units the three relations of a group to its node (same domain, another
/// domain of the socket, another socket) each have their own wait: the DP carries how many of
/// each are used above a stage. Brute force over every tree and every labeling of its nodes with
/// domains: 2 sockets × 2 domains (4 units) up to 6 nodes, one socket of 3 domains and a socket
/// of 2 domains beside a socket of one (units 0, 1 | 2) up to 6.
#[test]
fn equals_brute_force_with_l3_domains_as_units() {
    check_each_split_against_brute_force(&chiplet(2), 6, 4);
    check_each_split_against_brute_force(&chiplet(3), 6, 3);
    check_each_split_against_brute_force(&chiplet(2), 6, 3);
}

#[test]
fn pruning_and_the_scalar_pass_keep_the_optimum_with_l3_domains_as_units() {
    check_pruning_keeps_the_optimum(&chiplet(2), 5, 4);
    check_pruning_keeps_the_optimum(&chiplet(3), 6, 3);
    // Not tight here: see `a_covering_bound_below_every_tree_is_widened_to_the_optimum`.
    check_scalar_pass(&chiplet(2), 6, 4, false);
    check_scalar_pass(&chiplet(3), 6, 3, false);
    check_scalar_pass(&chiplet(2), 6, 3, false);
}

#[test]
fn the_bounds_hold_with_l3_domains_as_units() {
    check_height_bound(&chiplet(2), 6, 4);
    check_height_bound(&chiplet(3), 6, 3);
    for (per_socket, units) in [(2, 4), (3, 3)] {
        let costs = chiplet(per_socket);
        for n in 2..=6 {
            let least = brute_force(&costs, n, units)
                .values()
                .map(|w| w[0].min_ns)
                .fold(f64::INFINITY, f64::min);
            let bound = socket_dp::lower_bound(&LineClasses::from(costs), n as u32, units);
            assert!(bound <= least + 1e-9, "n {n}: {bound} above {least}");
        }
    }
}

/// Random chiplet machines: R_L < R_R ≤ R_D ≤ R_Q, R_I ≤ R_QI.
fn chiplet_machines() -> impl Strategy<Value = TreeCosts> {
    (machines(), 0.0f64..1.0, 2u32..4).prop_map(|(c, between, per_socket)| TreeCosts {
        domains: Some(modelopt_model::placed_tree::Domains {
            per_socket,
            remote_domain: c.socket + between * (c.remote - c.socket),
        }),
        ..c
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]
    /// The DP (Pareto pass under min, max and a blend; the scalar pass under min) equals brute
    /// force on random chiplet machines, 4 units up to 5 nodes and 3 units up to 6.
    #[test]
    fn equals_brute_force_on_random_chiplet_machines(c in chiplet_machines()) {
        check_each_split_against_brute_force(&c, 5, 4);
        check_each_split_against_brute_force(&c, 6, 3);
        check_scalar_pass(&c, 5, 4, false);
        check_height_bound(&c, 5, 4);
    }

    /// One clip's pass bounds every split of a free request on random chiplet machines (2 or
    /// 3 domains a socket over the four units), under min, max and a blend.
    #[test]
    fn one_pass_over_a_clip_bounds_every_split_on_random_chiplet_machines(
        c in chiplet_machines()
    ) {
        check_split_bounds(&c, 6, false);
    }
}

/// A free split whose covering bound is below every split: the box [9, 1] with 10 threads
/// rooted on socket 1 holds one split, [9, 1], the root alone on its socket, where a relay on
/// socket 1 would be cheaper (the covering value 579.9 ns is that of [9, 2], clipped into the
/// box); the table widens its Pareto pass and answers the split's own optimum (612.6 ns, equal
/// to brute force in `the_scalar_pass_brute_force_two_sockets_up_to_11_three_up_to_8`), with
/// the bound it started from as its lower bound. In the box [9, 2] the split [8, 2] reaches
/// its covering value, so no widening is needed and [9, 1] is not answered (it cannot tie).
#[test]
fn a_free_split_below_its_covering_bound_is_widened() {
    let classes = LineClasses::from(sandy());
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let quiet = Progress::none();
    let fixed = |c: &[u32]| exact_min(&classes, c, 1, None, false).cost;
    let min = Some(socket_dp::Prune {
        objective: Objective::Min,
        incumbent: f64::INFINITY,
    });
    let (table, filled) =
        SocketTable::build_splits(&classes, &[9, 1], 10, 1, min, &unlimited, &quiet).unwrap();
    assert_eq!(filled, Filled::Complete);
    let got = table.best(1, &[9, 1], &Objective::Min).unwrap().cost;
    let want = fixed(&[9, 1]);
    assert!(
        (got.min_ns - want.min_ns).abs() < 1e-9,
        "{got:?} vs {want:?}"
    );
    assert!(
        (got.max_ns - want.max_ns).abs() < 1e-9,
        "{got:?} vs {want:?}"
    );
    assert!((got.min_ns - 612.6).abs() < 1e-9, "{got:?}");
    // The bound: T̂ = 579.9 ns, or the first Pareto pass's budget, a rounding margin above it
    // (of T̂ less the offset R_L = 2.3 ns), which found no tree.
    let bound = table.lower_bound().unwrap();
    let first = 579.9 + (579.9 - 2.3) * socket_dp::ROUNDING_MARGIN;
    assert!(
        rounded_from(bound, 579.9) || (bound - first).abs() < 1e-3,
        "{bound}"
    );

    let (table, _) =
        SocketTable::build_splits(&classes, &[9, 2], 10, 1, min, &unlimited, &quiet).unwrap();
    let got = table.best(1, &[8, 2], &Objective::Min).unwrap().cost;
    let want = fixed(&[8, 2]);
    assert!(
        (got.min_ns - want.min_ns).abs() < 1e-9,
        "{got:?} vs {want:?}"
    );
    assert!(want.min_ns < 612.6);
    assert!(rounded_from(table.lower_bound().unwrap(), want.min_ns));
    assert!(table.best(1, &[9, 1], &Objective::Min).is_none());
}

/// Every count vector of the box `bounds` (odometer order, unit 0 fastest).
fn every_vector_within(bounds: &[u32]) -> Vec<Vec<u32>> {
    let mut all = Vec::new();
    let mut v = vec![0u32; bounds.len()];
    'odometer: loop {
        all.push(v.clone());
        for i in 0..v.len() {
            v[i] += 1;
            if v[i] <= bounds[i] {
                continue 'odometer;
            }
            v[i] = 0;
        }
        return all;
    }
}

/// The bound of the covering pass over the clip `within` of the request `counts` rooted on
/// `root` under `objective`, without limits (`socket_dp::clipped_covering_bound`).
fn clipped_bound(
    classes: &LineClasses,
    objective: &Objective,
    counts: &[u32],
    within: &[u32],
    root: u32,
) -> f64 {
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    socket_dp::clipped_covering_bound(
        classes,
        objective,
        counts,
        within,
        root,
        None,
        &unlimited,
        &Progress::none(),
    )
    .unwrap()
    .unwrap()
    .bound
    .unwrap()
}

/// The bound a stopped fixed-split search reports when the request's own covering pass is too
/// large (`rooted_trees`' truncated bound): the covering value over a clip `w` of the request
/// `c` (w ≤ c, at least 1 where c is). Every tree of c holds at least w on every unit, so the
/// value is at most the exact optimum of c, for every clip; it grows with the clip and is the
/// request's own covering value at w = c. Checked against the exact search on the E5-2660 (every
/// request within 4 × 4 and 3 × 3 × 3, every root, every clip) and with L3 domains as units
/// (2 sockets × 2 domains, requests within [2, 2, 2, 2]).
///
/// By hand, [8, 8] rooted on socket 0 clipped to [1, 1] (R_L 2.3, R_R 35, R_Q 94, R_I 70 ns):
/// the trees holding a node on each socket; the cheapest is the root with one child on socket 1,
/// T_min = R_L + 2 R_I + R_L + R_Q + R_Q = 2.3 + 140 + 2.3 + 94 + 94 = 332.6 ns (a local child
/// first adds R_R + R_R around a subtree that already costs this much).
#[test]
fn a_clipped_box_bounds_every_tree_of_the_request() {
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let quiet = Progress::none();
    let sandy_classes: LineClasses = sandy().into();
    let by_hand = clipped_bound(&sandy_classes, &Objective::Min, &[8, 8], &[1, 1], 0);
    assert!(rounded_from(by_hand, 332.6), "{by_hand}");
    // Not a clip: more than the request, or empty where the request has threads.
    for within in [[9u32, 1], [0, 8], [8, 0]] {
        assert!(socket_dp::clipped_covering_bound(
            &sandy_classes,
            &Objective::Min,
            &[8, 8],
            &within,
            0,
            None,
            &unlimited,
            &quiet,
        )
        .is_err());
    }

    for (classes, bounds) in [
        (sandy_classes, vec![4u32, 4]),
        (sandy_classes, vec![3, 3, 3]),
        (LineClasses::from(chiplet(2)), vec![2, 2, 2, 2]),
    ] {
        let all = every_vector_within(&bounds);
        for counts in all.iter().filter(|c| c.iter().sum::<u32>() >= 2) {
            for root in (0..counts.len() as u32).filter(|&r| counts[r as usize] > 0) {
                let exact = exact_min(&classes, counts, root, None, false).cost.min_ns;
                let clips: Vec<&Vec<u32>> = all
                    .iter()
                    .filter(|w| {
                        w.iter()
                            .zip(counts)
                            .all(|(&w, &c)| w <= c && (w > 0) == (c > 0))
                    })
                    .collect();
                let bound_of =
                    |w: &[u32]| clipped_bound(&classes, &Objective::Min, counts, w, root);
                let bounds_by_clip: Vec<f64> = clips.iter().map(|w| bound_of(w)).collect();
                for (w, &b) in clips.iter().zip(&bounds_by_clip) {
                    assert!(
                        b <= exact + 1e-9,
                        "{counts:?} root {root} clip {w:?}: {b} > {exact}"
                    );
                    for (w2, &b2) in clips.iter().zip(&bounds_by_clip) {
                        if w.iter().zip(w2.iter()).all(|(a, b)| a <= b) {
                            assert!(
                                b <= b2 + 1e-9,
                                "{counts:?} root {root}: {w:?} {b} > {w2:?} {b2}"
                            );
                        }
                    }
                }
                let own =
                    socket_dp::covering_bound(&classes, counts, root, None, &unlimited, &quiet)
                        .unwrap()
                        .unwrap();
                assert!(
                    (bound_of(counts) - own).abs() < 1e-9,
                    "{counts:?} root {root}"
                );
            }
        }
    }
}

/// The bound of a stopped free split (`rooted_trees`' truncated bound): every split c of n
/// threads within the capacities has a clip min(c, m) holding at least t = min over splits of
/// Σ min(c_u, m) nodes, so the least covering value over the count vectors of t nodes (root's
/// unit non-empty) within the box cut to m (`least_score_of_clipped_splits`) is at most the least
/// exact optimum over every split. Checked against the exact search at every split, every m and
/// every root, with t the least clipped total found by enumeration, on the E5-2660 (capacities
/// 4 × 4, n ≤ 8) and with L3 domains as units (2 × 2 domains of 2, n ≤ 8).
///
/// By hand, 8 threads on the E5-2660's 4 + 4 rooted on socket 0, m = 1: the only split is
/// [4, 4], its clip [1, 1] (t = 2); the only vector of 2 nodes is [1, 1], whose covering value
/// is the root with one child on socket 1, 332.6 ns (`a_clipped_box_bounds_every_tree_of_the_request`).
#[test]
fn a_clip_of_every_split_bounds_a_free_split() {
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let quiet = Progress::none();
    let by_hand = socket_dp::least_score_of_clipped_splits(
        &LineClasses::from(sandy()),
        &Objective::Min,
        &[4, 4],
        &[1, 1],
        2,
        0,
        None,
        &unlimited,
        &quiet,
    )
    .unwrap()
    .unwrap()
    .bound
    .unwrap();
    assert!(rounded_from(by_hand, 332.6), "{by_hand}");
    for (classes, capacity) in [
        (LineClasses::from(sandy()), vec![4u32, 4]),
        (LineClasses::from(chiplet(2)), vec![2, 2, 2, 2]),
    ] {
        let all = every_vector_within(&capacity);
        for n in 2..=8u32 {
            for root in 0..capacity.len() as u32 {
                let splits: Vec<&Vec<u32>> = all
                    .iter()
                    .filter(|c| c.iter().sum::<u32>() == n && c[root as usize] > 0)
                    .collect();
                if splits.is_empty() {
                    continue;
                }
                let optimum = splits
                    .iter()
                    .map(|c| exact_min(&classes, c, root, None, false).cost.min_ns)
                    .fold(f64::INFINITY, f64::min);
                for m in 1..=*capacity.iter().max().unwrap() {
                    let within: Vec<u32> = capacity.iter().map(|&c| c.min(m)).collect();
                    let total = splits
                        .iter()
                        .map(|c| c.iter().map(|&x| x.min(m)).sum::<u32>())
                        .min()
                        .unwrap();
                    let got = socket_dp::least_score_of_clipped_splits(
                        &classes,
                        &Objective::Min,
                        &capacity,
                        &within,
                        total,
                        root,
                        None,
                        &unlimited,
                        &quiet,
                    )
                    .unwrap()
                    .unwrap()
                    .bound
                    .unwrap();
                    assert!(
                        got <= optimum + 1e-9,
                        "{capacity:?} n {n} root {root} m {m} (t = {total}): {got} > {optimum}"
                    );
                }
            }
        }
    }
}

/// The exact optimum's score of a request under `objective`, from the unpruned Pareto table
/// (no covering pass: its pruning rests on the relaxation these tests check).
fn exact_score(classes: &LineClasses, counts: &[u32], root: u32, objective: &Objective) -> f64 {
    exact_keys(classes, counts, root, objective).0
}

/// Both keys of the tie rule ([`keys`]) of the exact optimum of `counts` rooted on `root`.
fn exact_keys(
    classes: &LineClasses,
    counts: &[u32],
    root: u32,
    objective: &Objective,
) -> (f64, f64) {
    let (table, filled) =
        SocketTable::build(classes, counts, None, &Limits::default(), &Progress::none()).unwrap();
    assert_eq!(filled, Filled::Complete);
    let best = table.best(root, counts, objective).unwrap();
    keys(objective, &best.cost)
}

/// The covering pass under `--objective max` and blends (docs/cla.md §11, "Bounds under max and
/// blends") prices a relaxation of T_max: each group of a node keeps only its own share of the
/// node's A_max. Its value over a clip of a request is at most the exact optimum's score, for
/// every request within `bounds`, every root and the clips of one node per unit and the whole
/// request; on one socket (no other group to share A with) it is the exact optimum.
fn check_relaxed_bound(classes: &LineClasses, bounds: &[u32], objectives: &[Objective]) {
    for counts in every_vector_within(bounds)
        .iter()
        .filter(|c| c.iter().sum::<u32>() >= 2)
    {
        for root in (0..counts.len() as u32).filter(|&r| counts[r as usize] > 0) {
            for objective in objectives {
                let exact = exact_score(classes, counts, root, objective);
                let ones: Vec<u32> = counts.iter().map(|&c| c.min(1)).collect();
                let mut previous = f64::NEG_INFINITY;
                for clip in [&ones, counts] {
                    let b = clipped_bound(classes, objective, counts, clip, root);
                    assert!(
                        b <= exact + 1e-6,
                        "{objective} {counts:?} root {root} clip {clip:?}: {b} > {exact}"
                    );
                    assert!(b >= previous - 1e-6, "{objective} {counts:?}: not monotone");
                    previous = b;
                }
                if counts.iter().filter(|&&c| c > 0).count() == 1 && *objective == Objective::Max {
                    assert!(
                        rounded_from(previous, exact),
                        "{counts:?}: one unit, {previous} ≠ {exact}"
                    );
                }
            }
        }
    }
}

/// By hand, [8, 8] rooted on socket 0 clipped to [1, 1] on the E5-2660 (R_L 2.3, R_R 35, R_Q 94,
/// R_I 70, R_QI 107 ns): the cheapest tree holding a node on each socket is the root with one
/// child on socket 1, one group, whose relaxation is its T_max: A = R_QI + 2·R_Q + R_Q = 389,
/// the child arrives at A + R_Q + R_L = 485.3, its group adds R_QI + R_Q = 201 (686.3), the
/// wait R_Q (780.3), and the root's offset R_L: 782.6 ns. Its T_min is 332.6 ns (the test
/// above), so the blend at w = 0.5 is (332.6 + 782.6) / 2 = 557.6 ns.
#[test]
fn a_clipped_box_bounds_every_tree_under_max_and_blends() {
    let sandy_classes: LineClasses = sandy().into();
    for (objective, want) in [(Objective::Max, 782.6), (Objective::Blend(0.5), 557.6)] {
        let by_hand = clipped_bound(&sandy_classes, &objective, &[8, 8], &[1, 1], 0);
        assert!(rounded_from(by_hand, want), "{objective}: {by_hand}");
    }
    // Two groups, by hand: [2, 1] rooted on socket 0, whose optimum under max is the root with
    // one child on each socket. Real T_max: A = max(R_I, R_QI) + 2·(R_R + R_Q) + R_Q = 107 +
    // 258 + 94 = 459; the local child's group ends at 459 + R_R + R_L + R_I + R_R = 601.3, its
    // wait 636.3; the remote one's at 459 + R_Q + R_L + R_QI + R_Q = 756.3, its wait
    // max(636.3, 756.3) + R_Q = 850.3; + R_L = 852.6 ns (a chain through either child costs
    // more: its child level alone is 780.3 before the root's 175 or 389 above it). The
    // relaxation takes the remote group first (the higher unit): 0 + R_QI + R_Q + R_QI + R_L
    // + 5·R_Q = 780.3, raising the stage by 2·R_Q; the local group then gets 107 + 94 (the
    // maxima, with a remote group above) + R_I + R_L + 5·R_R + 3·R_Q = 730.3, and the stage
    // max(780.3 + 2·R_R, 730.3) = 850.3, + R_L: the relaxation is exact here. Without the
    // raise (the local group's share 2·R_R of A, which the remote child's arrival pays too)
    // it would be 782.6.
    let two_groups = clipped_bound(&sandy_classes, &Objective::Max, &[2, 1], &[2, 1], 0);
    assert!(rounded_from(two_groups, 852.6), "{two_groups}");
    assert!((exact_score(&sandy_classes, &[2, 1], 0, &Objective::Max) - 852.6).abs() < 1e-9);
    let objectives = [Objective::Max, Objective::Blend(0.5), Objective::Blend(0.1)];
    check_relaxed_bound(&sandy_classes, &[4, 4], &objectives);
    check_relaxed_bound(&sandy_classes, &[3, 3, 3], &objectives);
    check_relaxed_bound(&sandy_classes, &[9], &objectives);
    check_relaxed_bound(&LineClasses::from(chiplet(2)), &[2, 2, 2, 2], &objectives);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]
    /// The same on random machines, with and without L3 domains as units.
    #[test]
    fn the_relaxed_max_bound_holds_on_random_machines(
        c in machines(),
        d in chiplet_machines(),
        w in 0.0f64..1.0,
    ) {
        let objectives = [Objective::Max, Objective::Blend(w)];
        check_relaxed_bound(&c.into(), &[3, 3], &objectives);
        check_relaxed_bound(&c.into(), &[6], &objectives);
        check_relaxed_bound(&d.into(), &[2, 1, 1, 1], &objectives);
    }
}

/// The exact search under max (docs/cla.md §11, "Exact under max"): the covering pass over the
/// relaxation of T_max, its budgets walked backwards, the Pareto pass within them, widened
/// towards the incumbent while it finds no tree. Its answer is the unpruned Pareto table's (the
/// DP the brute-force tests above check), score and tie score, with no incumbent, the optimum
/// itself and a loose one, for every split of `n` within `bounds` and every root, and its tree
/// prices to what it says. Under max the passes compare points by T_max alone and one more pass
/// within the optimum's T_max breaks the tie by T_min, so the tie score checks that pass too.
/// Returns how many requests had a relaxed bound below the optimum (whose first Pareto pass
/// found no tree, so that the widened passes ran), and how many bounds (under min and blends)
/// the passes that found no tree raised above the relaxation.
fn check_max_search(costs: &TreeCosts, bounds: &[u32], min_n: u32) -> usize {
    check_relaxed_search(costs, bounds, min_n, Objective::Max).0
}

/// [`check_max_search`] under any objective (a blend's pass is over the blended relaxation).
fn check_relaxed_search(
    costs: &TreeCosts,
    bounds: &[u32],
    min_n: u32,
    objective: Objective,
) -> (usize, usize) {
    let classes = LineClasses::from(*costs);
    let (mut widened, mut raised) = (0, 0);
    let unlimited = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    for counts in every_vector_within(bounds)
        .iter()
        .filter(|c| c.iter().sum::<u32>() >= min_n)
    {
        let (table, filled) = SocketTable::build(
            &classes,
            counts,
            None,
            &Limits::default(),
            &Progress::none(),
        )
        .unwrap();
        assert_eq!(filled, Filled::Complete);
        for root in (0..counts.len() as u32).filter(|&r| counts[r as usize] > 0) {
            let want = table.best(root, counts, &objective).unwrap().cost;
            let best = keys(&objective, &want).0;
            for incumbent in [None, Some(best), Some(best + 500.0)] {
                let outcome = socket_dp::optimal(
                    &classes,
                    counts,
                    root,
                    &objective,
                    incumbent,
                    &unlimited,
                    &Progress::none(),
                )
                .unwrap();
                let got = outcome.best.unwrap_or_else(|| {
                    panic!("root {root} {counts:?} incumbent {incumbent:?}: no tree")
                });
                let (kg, kw) = (keys(&objective, &got.cost), keys(&objective, &want));
                assert!(
                    (kg.0 - kw.0).abs() < 1e-6 && (kg.1 - kw.1).abs() < 1e-6,
                    "root {root} {counts:?} incumbent {incumbent:?}: \
                     {:?} vs {want:?}",
                    got.cost
                );
                let tree = RootedTree::from_parents(&got.parents).unwrap();
                let again = costs.evaluate(&tree, &got.sockets).unwrap();
                assert!((again.max_ns - got.cost.max_ns).abs() < 1e-6);
                // Its bound: at least the relaxation's covering value (raised past the budget
                // of every pass that found no tree), at most the optimum; under max with an
                // incumbent the optimum itself, which the passes by T_max alone prove before
                // the tie pass (without one, a pass without budgets follows the first).
                assert_eq!(outcome.filled, Filled::Complete);
                let bound = outcome.lower_bound.unwrap();
                let relaxed = clipped_bound(&classes, &objective, counts, counts, root);
                assert!(
                    relaxed - 1e-6 <= bound && bound <= kw.0 + 1e-6,
                    "root {root} {counts:?}: {bound} outside [{relaxed}, {}]",
                    kw.0
                );
                if objective == Objective::Max && incumbent.is_some() {
                    assert!(
                        (bound - kw.0).abs() < 1e-6,
                        "{counts:?}: {bound} vs {}",
                        kw.0
                    );
                }
                if incumbent.is_some_and(|i| i > best) && relaxed < kw.0 - 1e-6 {
                    widened += 1;
                }
                // A bound above the relaxation is the budget of a pass that found no tree: the
                // first's, a rounding margin above the relaxation (of its value less the offset
                // R_L), or the relaxation plus 1/16 or 1/4 of its gap to the incumbent (the pass
                // at the whole gap always finds the incumbent's tree or a better one). E.g.
                // blend:0.5, [3, 1] rooted on socket 0, the optimum 633.1 ns as incumbent:
                // relaxation 608.1, passes at 608.1 + 25/16 and 608.1 + 25/4 find nothing,
                // bound 614.35.
                if objective != Objective::Max && bound > relaxed + 1e-6 {
                    let first = relaxed + (relaxed - classes.offset()) * socket_dp::ROUNDING_MARGIN;
                    let widened = |i: f64| {
                        [1.0 / 16.0, 1.0 / 4.0]
                            .iter()
                            .any(|f| (bound - (relaxed + f * (i - relaxed))).abs() < 1e-6)
                    };
                    assert!(
                        (bound - first).abs() < 1e-6 || incumbent.is_some_and(widened),
                        "{counts:?} root {root}: {bound} is no failed pass's budget"
                    );
                    raised += 1;
                }
            }
        }
    }
    (widened, raised)
}

#[test]
fn the_exact_search_under_max_equals_the_unpruned_dp() {
    // On [4, 4] and [3, 3, 3] the relaxation is below the optimum for many requests (e.g.
    // [8, 8] at 1,720.9 ns against 1,882.9), so the widened passes are walked too.
    assert!(check_max_search(&sandy(), &[4, 4], 2) > 0);
    check_max_search(&sandy(), &[3, 3, 3], 2);
    check_max_search(&sandy(), &[2, 2, 2, 2], 6);
    check_max_search(&chiplet(2), &[2, 2, 2, 2], 5);
}

/// Under max with a work budget the passes by T_max alone fit but the tie pass does not: the
/// answer is a tree of the optimum's T_max, its bound that T_max (a zero gap), and
/// `Filled::TiesOpen` says why the tie by T_min is open. On 12 + 12 threads of the E5-2660
/// (root on socket 0, an incumbent of 1 ms, far above, so that the first pass by T_max alone
/// is a wide one and the tie pass within the optimum's T_max is cheap next to it), the least
/// budget that answers at all is found by bisection; the DP is single-threaded, so where each
/// pass stops is the same on every run. There the open tie is real: the passes by T_max alone
/// keep a tree of T_min 886.2 ns where the optimum's ties reach 873.2 (both at T_max
/// 2,047.2 ns; read from the unpruned table and checked as "more than 1 ns apart", not copied).
#[test]
fn under_max_a_stopped_tie_pass_answers_the_optimum_with_a_zero_gap() {
    let costs = sandy();
    let classes = LineClasses::from(costs);
    let objective = Objective::Max;
    let counts = [12, 12];
    let (table, _) = SocketTable::build(
        &classes,
        &counts,
        None,
        &Limits::default(),
        &Progress::none(),
    )
    .unwrap();
    let want = table.best(0, &counts, &objective).unwrap().cost;
    let run = |budget: u64| {
        let limits = Limits {
            time_limit: None,
            work_budget: budget,
            ..Limits::default()
        };
        socket_dp::optimal(
            &classes,
            &counts,
            0,
            &objective,
            Some(1e6),
            &limits,
            &Progress::none(),
        )
        .ok()
        .filter(|o| o.best.is_some())
    };
    // The least budget with an answer: none at `lo` (refused up front, or stopped before a
    // tree), one at `hi`.
    let (mut lo, mut hi) = (1u64, 1u64 << 40);
    assert!(run(lo).is_none());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if run(mid).is_some() {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let outcome = run(hi).unwrap();
    assert!(matches!(
        outcome.filled,
        Filled::TiesOpen(StopReason::WorkBudget { budget, needed: 0, memory: 0 }) if budget == hi
    ));
    let got = outcome.best.unwrap();
    assert!((got.cost.max_ns - want.max_ns).abs() < 1e-6);
    assert!(
        got.cost.min_ns > want.min_ns + 1.0,
        "{:?} {want:?}",
        got.cost
    );
    let bound = outcome.lower_bound.unwrap();
    assert!((bound - want.max_ns).abs() < 1e-6, "{bound}");
    let tree = RootedTree::from_parents(&got.parents).unwrap();
    let again = costs.evaluate(&tree, &got.sockets).unwrap();
    assert!((again.max_ns - got.cost.max_ns).abs() < 1e-6);
    assert!((again.min_ns - got.cost.min_ns).abs() < 1e-6);
    // With budget enough the tie pass completes: the optimum and its tie.
    let outcome = run(1 << 40).unwrap();
    assert_eq!(outcome.filled, Filled::Complete);
    let got = outcome.best.unwrap().cost;
    assert!((got.max_ns - want.max_ns).abs() < 1e-6);
    assert!((got.min_ns - want.min_ns).abs() < 1e-6);
}

/// The same under blends, whose forests are checked against their budgets by the least blend
/// their two maxima allow, max(T_min, w·T_max) (`SocketTable::forest_score`).
#[test]
fn the_exact_search_under_blends_equals_the_unpruned_dp() {
    for w in [0.5, 0.1, 0.9] {
        let (widened, raised) = check_relaxed_search(&sandy(), &[4, 4], 2, Objective::Blend(w));
        assert!(widened > 0 && raised > 0, "w = {w}: {widened}, {raised}");
        check_relaxed_search(&sandy(), &[3, 3, 3], 2, Objective::Blend(w));
        check_relaxed_search(&chiplet(2), &[2, 2, 2, 2], 5, Objective::Blend(w));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]
    /// The same on random machines, with and without L3 domains as units.
    #[test]
    fn the_exact_search_under_max_is_exact_on_random_machines(
        c in machines(),
        d in chiplet_machines(),
        w in 0.0f64..1.0,
    ) {
        check_max_search(&c, &[3, 3], 2);
        check_max_search(&c, &[2, 2, 2], 4);
        check_max_search(&d, &[2, 1, 2, 1], 4);
        check_relaxed_search(&c, &[3, 3], 2, Objective::Blend(w));
        check_relaxed_search(&d, &[2, 1, 2, 1], 4, Objective::Blend(w));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    /// The envelopes' pages are written as the backward pass reaches them and held to the
    /// memory the tables leave (docs/cla.md §11, "Sparse envelopes"): under a limit from the
    /// least the exact search needs (`exact_memory_within`) to a few pages of 528 bytes more,
    /// the search by envelopes either answers the unlimited search's optimum or stops on the
    /// memory limit with no size to name (never a wrong tree, never a panic), and once it
    /// answers at some limit it answers at every larger one (nothing but the limit differs).
    #[test]
    fn a_memory_limit_on_the_envelopes_pages_stops_or_answers_the_optimum(
        (c, counts, root) in chiplet_machines().prop_flat_map(|c| {
            // Two sockets of `per_socket` L3 domains each: that many units.
            let units = 2 * c.domains.map_or(1, |d| d.per_socket) as usize;
            (Just(c), proptest::collection::vec(0u32..=2, units), 0..units as u32)
        }),
    ) {
        prop_assume!(counts[root as usize] > 0 && counts.iter().sum::<u32>() >= 2);
        let classes = LineClasses::from(c);
        let quiet = Progress::none();
        let want = exact_min(&classes, &counts, root, None, true);
        let widest = counts.iter().copied().max().unwrap_or(0);
        let need =
            socket_dp::exact_memory_within(&classes, &Objective::Min, &counts, widest, None);
        let mut answered = false;
        for pages in 0..12u64 {
            let limit = need + pages * 528;
            let limits = Limits {
                time_limit: None,
                work_budget: u64::MAX,
                memory_limit: limit,
            };
            let got =
                socket_dp::optimal_by_envelopes(&classes, &counts, root, None, &limits, &quiet)
                    .unwrap();
            match got.filled {
                Filled::Complete => {
                    let best = got.best.unwrap();
                    prop_assert!((best.cost.min_ns - want.cost.min_ns).abs() < 1e-6);
                    prop_assert!((best.cost.max_ns - want.cost.max_ns).abs() < 1e-6);
                    answered = true;
                }
                other => {
                    prop_assert!(!answered, "answered below {limit}, not at it: {other:?}");
                    prop_assert_eq!(
                        other,
                        Filled::Stopped(StopReason::MemoryLimit { limit, needed: 0 })
                    );
                    prop_assert!(got.best.is_none());
                }
            }
        }
    }
}

/// One covering pass over a clip bounds every split of a free request (`SplitBounds`, the
/// bound of `--placement optimal` searched by its bounds, docs/cla.md §13): on 2 sockets × 2
/// L3 domains with one line per domain, at most 3 threads a domain, the clip of 2 a domain, the
/// root in domain 0 or 3, for every n from 2 to 7 and every split of n, its bound is at most
/// the split's exact optimum (the unpruned table) under min, max and blend:0.5, and under min
/// it is the exact optimum wherever the split fits the clip and adding nodes never helps (at
/// least one split each n: checked as "some bound is tight").
#[test]
fn one_pass_over_a_clip_bounds_every_split_of_a_free_request() {
    check_split_bounds(&chiplet(2), 7, true);
}

/// The law of [`one_pass_over_a_clip_bounds_every_split_of_a_free_request`] on `costs` (four
/// units of at most 3 threads, a clip of 2, splits of 2 to `max_n` threads); `tight`: also that
/// under min some split's bound is its exact optimum for every n.
fn check_split_bounds(costs: &TreeCosts, max_n: u32, tight_somewhere: bool) {
    let classes = LineClasses::from(*costs);
    let capacity = [3u32; 4];
    let clip = [2u32; 4];
    for root in [0u32, 3] {
        for objective in OBJECTIVES {
            let bounds = socket_dp::SplitBounds::over(
                &classes,
                &objective,
                &capacity,
                &clip,
                root,
                None,
                &Limits::default(),
                &Progress::none(),
                socket_dp::Admission::BySize,
            )
            .unwrap()
            .unwrap();
            for n in 2..=max_n {
                let mut tight = false;
                for split in every_vector_within(&capacity) {
                    if split.iter().sum::<u32>() != n || split[root as usize] == 0 {
                        continue;
                    }
                    let exact = exact_score(&classes, &split, root, &objective);
                    let bound = bounds.of(&split);
                    assert!(
                        bound <= exact + 1e-6,
                        "{objective} root {root} {split:?}: bound {bound} above {exact}"
                    );
                    tight |= (exact - bound).abs() <= exact * socket_dp::ROUNDING_MARGIN;
                }
                assert!(
                    tight || !tight_somewhere || objective != Objective::Min,
                    "root {root} n {n}"
                );
            }
            // A split of another length has no bound.
            assert_eq!(bounds.of(&[1, 1]), f64::INFINITY);
        }
    }
}

/// The law of [`socket_dp::SplitsInOrder`] on `costs` (four units of at most 3 threads, splits
/// of 2 to `max_n` threads, every root): moving all threads of a unit to the empty unit just
/// before it, when both are in one run (the same socket's domains, or, with one unit a socket,
/// sockets; neither the root's unit), keeps the split's optimum under every objective, both
/// keys of the tie rule; and the split kept is exactly the one with no such move left.
fn check_splits_in_order(costs: &TreeCosts, max_n: u32) {
    let classes = LineClasses::from(*costs);
    let capacity = [3u32; 4];
    // The runs by hand: units u − 1 and u, neither the root's, on one socket (or both sockets).
    let socket = |u: usize| match costs.domains {
        Some(d) => u / d.per_socket as usize,
        None => 0,
    };
    for root in 0..4u32 {
        let in_order = socket_dp::SplitsInOrder::new(&classes, &capacity, root);
        let run = |u: usize| {
            u > 0 && u as u32 != root && u as u32 - 1 != root && socket(u) == socket(u - 1)
        };
        for split in every_vector_within(&capacity) {
            let n = split.iter().sum::<u32>();
            if n < 2 || n > max_n || split[root as usize] == 0 {
                continue;
            }
            let moves: Vec<usize> = (1..4)
                .filter(|&u| run(u) && split[u - 1] == 0 && split[u] > 0)
                .collect();
            assert_eq!(
                in_order.keeps(&split),
                moves.is_empty(),
                "root {root} {split:?}"
            );
            for u in moves {
                let mut moved = split.clone();
                moved[u - 1] = moved[u];
                moved[u] = 0;
                for objective in &OBJECTIVES {
                    let best = |counts: &[u32]| exact_keys(&classes, counts, root, objective);
                    let (a, b) = (best(&split), best(&moved));
                    assert!(
                        (a.0 - b.0).abs() <= 1e-9 && (a.1 - b.1).abs() <= 1e-9,
                        "{objective} root {root}: {split:?} {a:?}, {moved:?} {b:?}"
                    );
                }
            }
        }
    }
}

/// [`check_splits_in_order`] on the bundled chiplet with domain lines, 2 domains a socket, and
/// on the E5-2660's four sockets (units are sockets). By hand, the runs of 2 × 2 domains with
/// the root on unit 0: {1} and {2, 3}, so [1, 0, 0, 2] is not kept ([1, 0, 2, 0] is); on four
/// sockets with the root on socket 1: {0} and {2, 3}.
#[test]
fn splits_in_order_keep_one_of_each_kind_at_the_same_cost() {
    let domains = LineClasses::from(chiplet(2));
    let in_order = socket_dp::SplitsInOrder::new(&domains, &[3; 4], 0);
    assert!(!in_order.keeps(&[1, 0, 0, 2]));
    assert!(in_order.keeps(&[1, 0, 2, 0]));
    // Domain 1 of socket 0 is a run of its own: empty before a full socket 1 is kept.
    assert!(in_order.keeps(&[1, 0, 2, 2]));
    let sockets = LineClasses::from(sandy());
    let in_order = socket_dp::SplitsInOrder::new(&sockets, &[3; 4], 1);
    assert!(in_order.keeps(&[0, 1, 2, 0]));
    assert!(!in_order.keeps(&[0, 1, 0, 2]));
    assert!(in_order.keeps(&[2, 1, 0, 0]));
    // Unequal capacities break a run.
    assert!(socket_dp::SplitsInOrder::new(&sockets, &[3, 3, 2, 3], 1).keeps(&[0, 1, 0, 2]));
    check_splits_in_order(&chiplet(2), 6);
    check_splits_in_order(&sandy(), 6);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]
    /// [`check_splits_in_order`] on random chiplet machines (2 or 3 domains a socket) and random
    /// socket machines.
    #[test]
    fn splits_in_order_keep_the_optimum_on_random_machines(
        c in chiplet_machines(),
        s in machines(),
    ) {
        check_splits_in_order(&c, 5);
        check_splits_in_order(&s, 5);
    }
}

/// A clip's pass admitted by its work ([`socket_dp::Admission::ByWork`]) runs where its
/// tables' size is over the budget, and bounds every split as the pass admitted by size does;
/// with too little budget for its work it is refused all the same.
#[test]
fn a_pass_admitted_by_its_work_runs_past_its_size_and_bounds_the_same() {
    let classes = LineClasses::from(chiplet(2));
    let capacity = [3u32; 4];
    let within = [3u32; 4];
    let size = socket_dp::bound_estimate_within(&classes, &Objective::Min, &within, 3, None).units;
    let pass = |budget: u64, admission| {
        socket_dp::SplitBounds::over(
            &classes,
            &Objective::Min,
            &capacity,
            &within,
            0,
            None,
            &Limits {
                work_budget: budget,
                ..Limits::default()
            },
            &Progress::none(),
            admission,
        )
    };
    let full = pass(u64::MAX, socket_dp::Admission::BySize)
        .unwrap()
        .unwrap();
    // Its work is below its size (a pair of corners is a quarter of a unit): a budget between
    // the two.
    assert!(full.work() < size, "work {} size {size}", full.work());
    let short = (full.work() + size) / 2;
    assert!(matches!(
        pass(short, socket_dp::Admission::BySize),
        Err(socket_dp::SocketDpError::Budget(_))
    ));
    let by_work = pass(short, socket_dp::Admission::ByWork).unwrap().unwrap();
    for split in every_vector_within(&capacity) {
        assert_eq!(by_work.of(&split), full.of(&split), "{split:?}");
    }
    assert!(matches!(
        pass(0, socket_dp::Admission::ByWork),
        Err(socket_dp::SocketDpError::Budget(_))
    ));
}

/// An incumbent below every tree of the request (one from another split of a free request)
/// ends the DP at its covering pass, with the incumbent as the certified bound and no tree.
/// Two threads on one socket of the E5-2660 (R_L 2.3, R_R 35, R_I 70): the only tree is 0(1),
/// T_min = R_L + (R_I + R_R) + R_L + (R_I + 1·R_R) = 2.3 + 105 + 2.3 + 105 = 214.6 ns (§7).
#[test]
fn an_incumbent_below_every_tree_ends_the_dp_with_no_tree() {
    let classes = LineClasses::from(sandy());
    let run = |incumbent| {
        socket_dp::optimal(
            &classes,
            &[2, 0],
            0,
            &Objective::Min,
            incumbent,
            &Limits::default(),
            &Progress::none(),
        )
        .unwrap()
    };
    let found = run(None);
    assert!((found.best.unwrap().cost.min_ns - 214.6).abs() < 1e-9);
    let below = run(Some(200.0));
    assert!(below.best.is_none());
    assert_eq!(below.filled, Filled::Complete);
    assert_eq!(below.lower_bound, Some(200.0));
    // An incumbent equal to the optimum keeps it (a tie is not ruled out).
    let tie = run(Some(214.6));
    assert!((tie.best.unwrap().cost.min_ns - 214.6).abs() < 1e-9);
}
