//! The `.cla` tree collectives on ccNUMA machines: offered once attached, priced by their CLa
//! graph (values derived by hand below), and searched exactly: the optimizer's exhaustive pass
//! over shapes × socket labelings finds the same optimum as brute force over every labeled
//! tree.

use modelopt_graph::collectives::attach;
use modelopt_model::algorithm::{Space, SpaceOptions};
use modelopt_model::machine::{self, Machine};
use modelopt_model::tree::RootedTree;
use modelopt_model::{Algorithm, Collective, Params, Request};
use modelopt_optimizer::search::{rank, SearchOptions};
use modelopt_optimizer::Objective;

fn sandy() -> Machine {
    let mut m = machine::load("sandy-bridge-e5-2660").unwrap();
    attach(&mut m).unwrap();
    m
}

/// The E5-2660's numbers with 3 cores per socket and no hyperthreads, so that 5 and 6 threads
/// span both sockets (3 + 2, 3 + 3).
fn small_two_socket() -> Machine {
    let text = include_str!("../../../machines/sandy-bridge-e5-2660.toml")
        .replace("cores_per_socket = 8", "cores_per_socket = 3")
        .replace("threads_per_core = 2", "threads_per_core = 1")
        .replace("max_threads = 32", "max_threads = 6");
    let mut m = machine::from_text("small-two-socket.toml", &text).unwrap();
    attach(&mut m).unwrap();
    m
}

/// [`small_two_socket`] whose RFO of a shared line invalidates as one transfer (`rule =
/// "single"`), so that a flag write under T_max pays its dearest poller, not each of them.
fn small_two_socket_single_invalidation() -> Machine {
    let text = include_str!("../../../machines/sandy-bridge-e5-2660.toml")
        .replace("cores_per_socket = 8", "cores_per_socket = 3")
        .replace("threads_per_core = 2", "threads_per_core = 1")
        .replace("max_threads = 32", "max_threads = 6")
        .replace("rule = \"per-owner\"", "rule = \"single\"");
    assert!(text.contains("rule = \"single\""));
    let mut m = machine::from_text("small-two-socket-single.toml", &text).unwrap();
    attach(&mut m).unwrap();
    m
}

fn price(m: &Machine, collective: Collective, tree: &str, sockets: &[u32]) -> (f64, f64) {
    let tree = RootedTree::parse(tree).unwrap();
    let request = Request::new(collective, tree.len() as u32).unwrap();
    let params = Params::RootedTree {
        parents: tree.parents().to_vec(),
        sockets: sockets.to_vec(),
        domains: Vec::new(),
    };
    let algorithms = m.algorithms_for(collective);
    let cost = algorithms[0].cost(&request, &params).unwrap();
    (cost.min_ns, cost.max_ns)
}

#[test]
fn barrier_and_reduce_are_offered_on_ccnuma_once_attached() {
    let bare = machine::load("sandy-bridge-e5-2660").unwrap();
    assert_eq!(bare.collectives(), [Collective::Bcast]);
    let mut m = sandy();
    assert_eq!(
        m.collectives(),
        [Collective::Bcast, Collective::Barrier, Collective::Reduce]
    );
    // Attaching again changes nothing: the tree barrier and the dissemination barrier.
    attach(&mut m).unwrap();
    assert_eq!(m.algorithms_for(Collective::Barrier).len(), 2);
    // A machine with L3 domains gets all three collectives from the graph crate alone.
    let mut chiplet = machine::load("chiplet-2s-4x8").unwrap();
    assert!(chiplet.algorithms().is_empty());
    attach(&mut chiplet).unwrap();
    assert_eq!(
        chiplet.collectives(),
        [Collective::Bcast, Collective::Barrier, Collective::Reduce]
    );
    // Another family is left as it is.
    let mut phi = machine::load("xeon-phi").unwrap();
    let before = phi.algorithms().len();
    attach(&mut phi).unwrap();
    assert_eq!(phi.algorithms().len(), before);
}

#[test]
fn a_flat_barrier_on_one_socket_costs_two_flags_and_a_chain_of_adds() {
    // R_L = 2.3, R_R = 35, R_I = 70 ns (seed 001 §2.1). Flat tree of k children on socket 0:
    // the first child's add fetches ack[0,0] from memory (R_I), each next add takes it from
    // the previous adder's cache (R_R); the root's wait reads it (R_R), its release write
    // fetches go[0] from memory (R_I), and under T_min the children read go[0] at once (R_R):
    // T_min = 2·R_I + (k + 1)·R_R.
    let m = sandy();
    for k in 1..=7u32 {
        let tree = format!(
            "0({})",
            (1..=k).map(|c| c.to_string()).collect::<Vec<_>>().join(",")
        );
        let (min, max) = price(&m, Collective::Barrier, &tree, &vec![0; k as usize + 1]);
        let expected = 2.0 * 70.0 + f64::from(k + 1) * 35.0;
        assert!(
            (min - expected).abs() < 1e-9,
            "k = {k}: {min} vs {expected}"
        );
        assert!(max >= min);
    }
}

#[test]
fn a_reduction_of_two_threads_by_hand() {
    // Tree 0(1) on socket 0: the root writes ready[0] (R_I = 70); the child sees it (R_R = 35),
    // copies its value into slot[0,0] (the slot from memory, R_I, plus its own line, R_L =
    // 2.3), adds to ack[0,0] (from memory, R_I); the root's wait reads ack (R_R) and its copy
    // of the one slot takes it from the child's cache (R_R + R_L):
    // 70 + 35 + 72.3 + 70 + 35 + 37.3 = 319.6 ns.
    let (min, _) = price(&sandy(), Collective::Reduce, "0(1)", &[0, 0]);
    assert!((min - 319.6).abs() < 1e-9, "{min}");
}

/// Every parent array rooted at thread 0 that is a tree, with the machine's sockets: the
/// brute-force reference (n^(n−2)·... labeled trees, 1,296 at n = 6).
fn every_labeled_tree(n: usize, sockets: &[u32]) -> Vec<Params> {
    let mut out = Vec::new();
    let mut digits = vec![0u32; n - 1];
    loop {
        let parents: Vec<Option<u32>> = std::iter::once(None)
            .chain(digits.iter().map(|&d| Some(d)))
            .collect();
        if RootedTree::from_parents(&parents).is_ok() {
            out.push(Params::RootedTree {
                parents,
                sockets: sockets.to_vec(),
                domains: Vec::new(),
            });
        }
        let mut i = 0;
        loop {
            if i == digits.len() {
                return out;
            }
            digits[i] += 1;
            if (digits[i] as usize) < n {
                break;
            }
            digits[i] = 0;
            i += 1;
        }
    }
}

/// The search is exact on `n` threads placed by id, and its optimum under `objective` is the
/// least score over every labeled tree on the same placement (brute force).
fn assert_exact_and_equal_to_brute_force(
    m: &Machine,
    collective: Collective,
    n: u32,
    objective: Objective,
) {
    let request = Request::new(collective, n).unwrap();
    let options = SearchOptions::new(objective, 1);
    let algorithms = m.algorithms_for(collective);
    let algorithm = &*algorithms[0];
    let ranked = rank(algorithm, &request, &options).unwrap();
    assert!(ranked.exact(), "{collective:?} n = {n}");
    let (_, sockets) = bound_of(algorithm, &request);
    let brute = every_labeled_tree(n as usize, &sockets)
        .iter()
        .map(|p| {
            let c = algorithm.cost(&request, p).unwrap();
            objective.score(&c, request.metric()).unwrap()
        })
        .fold(f64::INFINITY, f64::min);
    let best = ranked.best[0].score;
    assert!(
        (best - brute).abs() < 1e-9,
        "{collective:?} n = {n} {objective:?}: search {best}, brute force {brute}"
    );
}

#[test]
fn the_exhaustive_search_equals_brute_force_over_every_labeled_tree() {
    // 3 cores a socket: 4–6 threads are 3 + 1 … 3 + 3.
    let m = small_two_socket();
    for collective in [Collective::Barrier, Collective::Reduce] {
        for n in [4u32, 5, 6] {
            for objective in [Objective::Min, Objective::Max] {
                assert_exact_and_equal_to_brute_force(&m, collective, n, objective);
            }
        }
    }
}

#[test]
fn a_free_split_is_the_best_over_every_socket_vector_the_sockets_hold() {
    // `--placement optimal`: sockets of 3 cores each, 4 threads, root thread 0 on socket 0.
    // Brute force: every labeled tree times every socket vector with thread 0 on socket 0 and
    // at most 3 threads a socket.
    let m = small_two_socket();
    for collective in [Collective::Barrier, Collective::Reduce] {
        let request = Request::new(collective, 4).unwrap();
        let mut options = SearchOptions::new(Objective::Min, 1);
        options.space.placement = modelopt_model::algorithm::ThreadPlacement::Optimal;
        let algorithms = m.algorithms_for(collective);
        let algorithm = &*algorithms[0];
        let ranked = rank(algorithm, &request, &options).unwrap();
        assert!(ranked.exact());
        let (mut brute, mut brute_max) = (f64::INFINITY, f64::INFINITY);
        for mask in 0u32..8 {
            let sockets: Vec<u32> = std::iter::once(0)
                .chain((0..3).map(|i| (mask >> i) & 1))
                .collect();
            if sockets.iter().filter(|&&s| s == 1).count() > 3
                || sockets.iter().filter(|&&s| s == 0).count() > 3
            {
                continue;
            }
            for p in every_labeled_tree(4, &sockets) {
                let c = algorithm.cost(&request, &p).unwrap();
                brute = brute.min(c.min_ns);
                brute_max = brute_max.min(c.max_ns);
            }
        }
        assert!(
            (ranked.best[0].score - brute).abs() < 1e-9,
            "{collective:?}: search {}, brute force {brute}",
            ranked.best[0].score
        );
        // 4 threads do not fit one socket of 3 cores, so every split crosses sockets; the
        // certified bound holds over every split too.
        let Space::PricedTrees(space) = algorithm.space(&request, &options.space).unwrap() else {
            panic!("not a priced-tree space");
        };
        let bound = space.t_min_lower_bound.unwrap();
        assert!(
            bound <= brute + 1e-9,
            "{collective:?}: bound {bound}, optimum {brute}"
        );
        let bound_max = space.t_max_lower_bound.unwrap();
        assert!(
            bound_max <= brute_max + 1e-9,
            "{collective:?}: T_max bound {bound_max}, optimum {brute_max}"
        );
    }
}

#[test]
fn over_budget_the_answer_is_flagged_and_never_worse_than_a_candidate() {
    // 12 threads on the E5-2660 (8 + 4): 4,766 shapes × C(11, 4) = 330 labelings is over the
    // default budget, so the answer comes from the candidates and the local search after them.
    let m = sandy();
    for collective in [Collective::Barrier, Collective::Reduce] {
        for objective in [Objective::Min, Objective::Max] {
            let request = Request::new(collective, 12).unwrap();
            let options = SearchOptions::new(objective, 1);
            let algorithms = m.algorithms_for(collective);
            let algorithm = &*algorithms[0];
            let ranked = rank(algorithm, &request, &options).unwrap();
            assert!(!ranked.exact());
            // The certified bound is on T_min, and T_max ≥ T_min on every tree, so both
            // objectives get a gap (under max a looser one).
            let modelopt_optimizer::Exactness::Bounded { gap_percent, .. } = ranked.exactness
            else {
                panic!("not bounded");
            };
            assert!(gap_percent.is_some(), "{collective:?} {objective:?}");
            let modelopt_model::Space::PricedTrees(space) =
                algorithm.space(&request, &options.space).unwrap()
            else {
                panic!("not a priced-tree space");
            };
            for candidate in modelopt_optimizer::priced_trees::candidates(&space) {
                let c = algorithm.cost(&request, &candidate).unwrap();
                let score = objective.score(&c, request.metric()).unwrap();
                assert!(
                    ranked.best[0].score <= score + 1e-9,
                    "{collective:?} {objective:?}"
                );
            }
        }
    }
}

/// The chiplet machine's numbers on 2 sockets × 2 L3 domains × 2 cores, no hyperthreads:
/// threads 0, 1 share domain 0 of socket 0, threads 2, 3 domain 1; threads 4–7 are socket 1.
fn small_chiplet() -> Machine {
    let text = include_str!("../../../machines/chiplet-2s-4x8.toml")
        .replace("cores_per_socket = 32", "cores_per_socket = 4")
        .replace("domains_per_socket = 4", "domains_per_socket = 2")
        .replace("threads_per_core = 2", "threads_per_core = 1")
        .replace("max_threads = 128", "max_threads = 8");
    let mut m = machine::from_text("small-chiplet.toml", &text).unwrap();
    attach(&mut m).unwrap();
    m
}

/// [`small_chiplet`] with one synchronization line per L3 domain (docs/cla.md §13).
fn small_chiplet_domain_lines() -> Machine {
    let text = include_str!("../../../machines/chiplet-2s-4x8.toml")
        .replace("cores_per_socket = 32", "cores_per_socket = 4")
        .replace(
            "domains_per_socket = 4",
            "domains_per_socket = 2\nsync_line = \"domain\"",
        )
        .replace("threads_per_core = 2", "threads_per_core = 1")
        .replace("max_threads = 128", "max_threads = 8");
    let mut m = machine::from_text("small-chiplet-domain-lines.toml", &text).unwrap();
    attach(&mut m).unwrap();
    m
}

#[test]
fn with_one_line_per_domain_a_barrier_by_hand_adds_inside_each_domain() {
    // Tree 0(1,2) on socket 0, thread 1 in the root's domain, thread 2 in the other: each child
    // adds to its own domain's line (from memory, R_I = 122), the root reads its domain's line
    // (R_R = 35) and then the other's (R_D = 164.5); its go flag comes from memory (R_I) and
    // thread 2 reads it across domains (R_D), the last release:
    // max(122 + 35, 122) + 164.5 + 122 + 164.5 = 608 ns — the reads in the other order than on
    // one socket line (a_chiplet_barrier_by_hand_pays_the_domain_class_across_chiplets), the
    // same total here because each path pays R_I + R_D + R_R or R_I + R_D once.
    let (min, _) = price(
        &small_chiplet_domain_lines(),
        Collective::Barrier,
        "0(1,2)",
        &[0, 0, 0],
    );
    assert!((min - 608.0).abs() < 1e-9, "{min}");
}

#[test]
fn a_chiplet_barrier_by_hand_pays_the_domain_class_across_chiplets() {
    // Tree 0(1,2) on socket 0: thread 1 shares the root's L3 domain, thread 2 does not.
    // R_R = 35, R_D = 164.5, R_I = 122 ns (machines/chiplet-2s-4x8.toml). Best order of the
    // two adds: thread 2 first (ack from memory, R_I), thread 1 next (from thread 2's cache in
    // the other domain, R_D); the root reads ack from thread 1 (R_R), writes go from memory
    // (R_I), and thread 2 reads it across domains (R_D), the last release:
    // 122 + 164.5 + 35 + 122 + 164.5 = 608 ns.
    let (min, _) = price(&small_chiplet(), Collective::Barrier, "0(1,2)", &[0, 0, 0]);
    assert!((min - 608.0).abs() < 1e-9, "{min}");
}

#[test]
fn on_chiplets_the_exhaustive_search_equals_brute_force_over_every_labeled_tree() {
    // 6 threads: domain 0 = {0, 1}, domain 1 = {2, 3}, socket 1 = {4, 5}. Labelings by domain.
    let m = small_chiplet();
    for collective in [Collective::Bcast, Collective::Barrier, Collective::Reduce] {
        // The graph-priced tree program first; the barrier also has the dissemination barrier
        // (crates/graph/tests/dissemination.rs).
        let names: Vec<&str> = m
            .algorithms_for(collective)
            .iter()
            .map(|a| a.name())
            .collect();
        let expected: &[&str] = if collective == Collective::Barrier {
            &["cla-tree", "cla-dissemination"]
        } else {
            &["cla-tree"]
        };
        assert_eq!(names, expected, "{collective:?}");
        assert_exact_and_equal_to_brute_force(&m, collective, 6, Objective::Min);
    }
}

#[test]
fn with_two_threads_on_a_core_the_search_labels_that_core_and_stays_exact() {
    // One socket of 2 cores × 2 hardware threads: with 3 threads, 0 and 2 share core 0; with
    // 4, 1 and 3 share core 1 too. Each shared core is a group of its own, so shapes × group
    // labels cover every placement and the exhaustive pass equals brute force.
    // The same on two sockets of 2 cores × 2 hardware threads: 5 threads share core 0 of
    // socket 0 (threads 0 and 4); 6 also core 0 of socket 1 (2 and 5).
    let two_sockets = {
        let text = include_str!("../../../machines/sandy-bridge-e5-2660.toml")
            .replace("cores_per_socket = 8", "cores_per_socket = 2")
            .replace("max_threads = 32", "max_threads = 8");
        let mut m = machine::from_text("small-two-socket-smt.toml", &text).unwrap();
        attach(&mut m).unwrap();
        m
    };
    for (m, sizes) in [(small_hyperthreaded(), [3u32, 4]), (two_sockets, [5, 6])] {
        for collective in [Collective::Barrier, Collective::Reduce] {
            for n in sizes {
                assert_exact_and_equal_to_brute_force(&m, collective, n, Objective::Min);
            }
        }
    }
}

#[test]
fn shared_cores_are_over_budget_by_the_budget_and_a_free_split_says_no_proof() {
    // 17 threads on the E5-2660 (16 cores): thread 16 shares core 0 with thread 0. The labels
    // fix the cost, so the answer is flagged for the budget, with the certified bound. With
    // `--placement optimal` the cores are assigned by node order, so labels cannot fix which
    // threads share a core: no search here proves it, and the reason says so.
    let m = sandy();
    let request = Request::new(Collective::Barrier, 17).unwrap();
    let mut options = SearchOptions::new(Objective::Min, 1);
    let algorithms = m.algorithms_for(Collective::Barrier);
    let ranked = rank(&*algorithms[0], &request, &options).unwrap();
    assert!(matches!(
        ranked.exactness,
        modelopt_optimizer::Exactness::Bounded {
            stopped: modelopt_optimizer::StopReason::WorkBudget { .. },
            lower_bound: Some(_),
            ..
        }
    ));
    options.space.placement = modelopt_model::algorithm::ThreadPlacement::Optimal;
    let ranked = rank(&*algorithms[0], &request, &options).unwrap();
    assert!(matches!(
        ranked.exactness,
        modelopt_optimizer::Exactness::Bounded {
            stopped: modelopt_optimizer::StopReason::NoProof { .. },
            lower_bound: Some(_),
            ..
        }
    ));
}

/// The E5-2660's numbers on one socket of 2 cores × 2 hardware threads: 3 and 4 threads share
/// cores (threads 0 and 2 on core 0, 1 and 3 on core 1).
fn small_hyperthreaded() -> Machine {
    let text = include_str!("../../../machines/sandy-bridge-e5-2660.toml")
        .replace("sockets = 2", "sockets = 1")
        .replace("cores_per_socket = 8", "cores_per_socket = 2")
        .replace("max_threads = 32", "max_threads = 4");
    let mut m = machine::from_text("small-hyperthreaded.toml", &text).unwrap();
    attach(&mut m).unwrap();
    m
}

/// The space's certified T_min bound, and its thread sockets.
fn bound_of(algorithm: &dyn Algorithm, request: &Request) -> (Option<f64>, Vec<u32>) {
    let (t_min, _, sockets) = bounds_of(algorithm, request);
    (t_min, sockets)
}

/// The space's certified T_min and T_max bounds, and its thread sockets.
fn bounds_of(algorithm: &dyn Algorithm, request: &Request) -> (Option<f64>, Option<f64>, Vec<u32>) {
    match algorithm.space(request, &SpaceOptions::default()).unwrap() {
        Space::PricedTrees(space) => (
            space.t_min_lower_bound,
            space.t_max_lower_bound,
            space.thread_sockets,
        ),
        other => panic!("not a graph-priced space: {other:?}"),
    }
}

#[test]
fn the_certified_lower_bound_is_never_above_the_optimum() {
    // The law of graph::bounds: for every program, machine shape and thread count small enough
    // for brute force, the bound is at most the least T_min over every labeled tree on the
    // request's placement (two sockets, L3 domains, shared cores), and it is a real bound
    // (positive).
    let machines = [
        ("two sockets", small_two_socket()),
        (
            "two sockets, single invalidation",
            small_two_socket_single_invalidation(),
        ),
        ("chiplets", small_chiplet()),
        (
            "chiplets, one line per domain",
            small_chiplet_domain_lines(),
        ),
        ("hyperthreads", small_hyperthreaded()),
    ];
    for (shape, m) in &machines {
        let largest = if *shape == "hyperthreads" { 4 } else { 6 };
        for collective in [Collective::Bcast, Collective::Barrier, Collective::Reduce] {
            for algorithm in m.algorithms_for(collective) {
                if algorithm.name() != "cla-tree"
                    || algorithm
                        .space(
                            &Request::new(collective, 2).unwrap(),
                            &SpaceOptions::default(),
                        )
                        .is_ok_and(|s| !matches!(s, Space::PricedTrees(_)))
                {
                    continue;
                }
                for n in 2..=largest {
                    let request = Request::new(collective, n).unwrap();
                    let (bound, bound_max, sockets) = bounds_of(&*algorithm, &request);
                    let what = format!("{shape} {collective:?} n = {n}");
                    let bound = bound.unwrap_or_else(|| panic!("{what}: no bound"));
                    let bound_max = bound_max.unwrap_or_else(|| panic!("{what}: no T_max bound"));
                    let (mut best, mut best_max) = (f64::INFINITY, f64::INFINITY);
                    for p in every_labeled_tree(n as usize, &sockets) {
                        let c = algorithm.cost(&request, &p).unwrap();
                        best = best.min(c.min_ns);
                        best_max = best_max.min(c.max_ns);
                    }
                    assert!(
                        bound > 0.0 && bound <= best + 1e-9,
                        "{what}: bound {bound} above the optimum {best}"
                    );
                    assert!(
                        bound_max > 0.0 && bound_max <= best_max + 1e-9,
                        "{what}: T_max bound {bound_max} above the optimum {best_max}"
                    );
                }
            }
        }
    }
}

/// The E5-2660's numbers on two sockets of `cores` cores, no hyperthreads.
fn two_sockets_of(cores: u32) -> Machine {
    let text = include_str!("../../../machines/sandy-bridge-e5-2660.toml")
        .replace(
            "cores_per_socket = 8",
            &format!("cores_per_socket = {cores}"),
        )
        .replace("threads_per_core = 2", "threads_per_core = 1")
        .replace("max_threads = 32", &format!("max_threads = {}", 2 * cores));
    let mut m = machine::from_text("two-sockets.toml", &text).unwrap();
    attach(&mut m).unwrap();
    m
}

#[test]
fn counting_the_threads_of_each_socket_keeps_both_bounds_below_the_optimum() {
    // The bounds count how many threads each socket holds (model::level_bound, "Counting the
    // threads"): on sockets of 4 cores, 5–7 threads by id are 4 + 1 … 4 + 3, the splits
    // where that count binds hardest (a node has one to three children across at most). Both
    // bounds of every program stay below the least T_min and T_max over every labeled tree,
    // with the root on the full socket (thread 0) and on the other one (the last thread, whose
    // own line can hold only n − 5 children). Threads of one socket are interchangeable, so
    // the trees rooted at the last thread are those rooted at node 0 with its socket.
    // (The broadcast on this machine is the closed form, searched by the socket DP.)
    let m = two_sockets_of(4);
    for collective in [Collective::Barrier, Collective::Reduce] {
        let algorithms = m.algorithms_for(collective);
        let algorithm = &*algorithms[0];
        for n in [5u32, 6, 7] {
            for root in [0, n - 1] {
                let request = Request::new(collective, n).unwrap();
                let options = SpaceOptions {
                    root: Some(root),
                    ..SpaceOptions::default()
                };
                let Space::PricedTrees(space) = algorithm.space(&request, &options).unwrap() else {
                    panic!("not a graph-priced space");
                };
                let mut sockets = space.thread_sockets.clone();
                assert_eq!(sockets.iter().filter(|&&s| s == 1).count(), n as usize - 4);
                sockets.swap(0, root as usize);
                let (mut best, mut best_max) = (f64::INFINITY, f64::INFINITY);
                for p in every_labeled_tree(n as usize, &sockets) {
                    let c = algorithm.cost(&request, &p).unwrap();
                    best = best.min(c.min_ns);
                    best_max = best_max.min(c.max_ns);
                }
                let what = format!("{collective:?} n = {n}, root {root}");
                let bound = space.t_min_lower_bound.unwrap();
                let bound_max = space.t_max_lower_bound.unwrap();
                assert!(
                    bound <= best + 1e-9,
                    "{what}: bound {bound}, optimum {best}"
                );
                assert!(
                    bound_max <= best_max + 1e-9,
                    "{what}: T_max bound {bound_max}, optimum {best_max}"
                );
            }
        }
    }
}

#[test]
fn counted_the_barrier_bound_is_the_flat_tree_over_both_sockets() {
    // Sockets of 3 cores, 6 threads by id (3 + 3), the barrier under T_min: the flat tree is
    // optimal (exhaustive search). By hand (R_R 35, R_Q 94, R_I 70): threads 1 and 2 add to
    // the root's line of socket 0, the first from memory (R_I) and the second from 1 (R_R),
    // the root reads it (R_R): 140; threads 3, 4, 5 add to its line of socket 1, R_I + 2·R_R,
    // and the root reads that line across (R_Q): 234; the root writes its fresh go flag (R_I)
    // and the threads of socket 1 read it across (R_Q): 234 + 70 + 94 = 398 ns. The bound
    // counts the threads: three of the root's five children are across (its socket holds
    // two more), a line across of three writers, R_I + 2·R_R + R_Q = 234, then the release
    // across, R_I + R_Q: 398, the optimum. Counting only lines it let two go across (a line
    // R_I + R_R + R_Q = 199 beside three at home, 175): 199 + 164 = 363.
    let m = small_two_socket();
    let request = Request::new(Collective::Barrier, 6).unwrap();
    let algorithms = m.algorithms_for(Collective::Barrier);
    let algorithm = &*algorithms[0];
    let flat = price(&m, Collective::Barrier, "0(1,2,3,4,5)", &[0, 0, 0, 1, 1, 1]);
    assert_eq!((flat.0 * 1e6).round() / 1e6, 398.0);
    let (bound, _, _) = bounds_of(algorithm, &request);
    assert_eq!(bound.map(|b| (b * 1e6).round() / 1e6), Some(398.0));
    let ranked = rank(algorithm, &request, &SearchOptions::new(Objective::Min, 1)).unwrap();
    assert!(ranked.exact());
    assert_eq!((ranked.best[0].score * 1e6).round() / 1e6, 398.0);
}

#[test]
fn the_bound_of_a_flat_barrier_on_one_socket_is_its_cost() {
    // 4 threads on one socket of the E5-2660: the flat barrier, 2·R_I + (k + 1)·R_R = 2·70 +
    // 4·35 = 280 ns (above), is optimal and the bound attains it: one line of three adds
    // (R_I + 2·R_R), the root's read (R_R), the go write (R_I) and one read (R_R).
    let m = sandy();
    let request = Request::new(Collective::Barrier, 4).unwrap();
    let algorithms = m.algorithms_for(Collective::Barrier);
    let (bound, bound_max, _) = bounds_of(&*algorithms[0], &request);
    assert_eq!(bound.map(|b| (b * 1e6).round() / 1e6), Some(280.0));
    // Under T_max (§6) the same barrier costs 2·R_I + (3k + 1)·R_R = 140 + 10·35 = 490 ns: the
    // root fetches its ack line (R_I), each of the three adds steals it and the root reads it
    // back (2·R_R each), the go write fetches the fresh flag for its pollers (R_I) and
    // invalidates all three (3·R_R, per-owner), and a child reads it (R_R). The flat tree is
    // the optimum under max at 4 threads (docs/cla.md §12's table), and the T_max bound
    // attains it: per level the line m + 2k·r and the release m + 2·r, plus r for each of the
    // root's pollers beyond the first.
    let flat = price(&m, Collective::Barrier, "0(1,2,3)", &[0, 0, 0, 0]);
    assert_eq!((flat.1 * 1e6).round() / 1e6, 490.0);
    assert_eq!(bound_max.map(|b| (b * 1e6).round() / 1e6), Some(490.0));
}

#[test]
fn on_the_e5_2660_both_bounds_stay_below_the_exhaustive_optimum_up_to_nine_threads() {
    // Where the exhaustive search finishes within the default budget (threads by id, 8 on
    // socket 0 and the 9th on socket 1), the bounds of both programs stay below its optimum
    // under min and under max: the law of the brute-force tests above at the sizes where the
    // path form and the split over lines across start to bind (8 threads: the barrier's T_max
    // bound equals its optimum, 875 ns, test below).
    let m = sandy();
    for collective in [Collective::Barrier, Collective::Reduce] {
        let algorithms = m.algorithms_for(collective);
        let algorithm = &*algorithms[0];
        for n in 2..=9u32 {
            let request = Request::new(collective, n).unwrap();
            let (bound_min, bound_max, _) = bounds_of(algorithm, &request);
            for (objective, bound) in [(Objective::Min, bound_min), (Objective::Max, bound_max)] {
                let ranked = rank(algorithm, &request, &SearchOptions::new(objective, 1)).unwrap();
                let what = format!("{collective:?} {objective:?} n = {n}");
                assert!(ranked.exact(), "{what}");
                let bound = bound.unwrap();
                let best = ranked.best[0].score;
                assert!(
                    bound > 0.0 && bound <= best + 1e-9,
                    "{what}: bound {bound}, optimum {best}"
                );
            }
        }
    }
}

#[test]
fn the_t_max_bound_of_a_barrier_sees_the_fan_out_of_every_node_it_releases() {
    // 8 threads on one socket of the E5-2660 under max: the optimum is 0(1(2),3(4),5(6),7)
    // (docs/cla.md §12's table). By hand: 1, 3 and 5 gather one child each, R_I + 2·R_R = 140;
    // the root's line of four adds, entered at 140, R_I + 8·R_R = 350: gathered at 490; the
    // root's go write for four pollers and a read, R_I + 4·R_R + R_R = 245, then 1's go for
    // one poller and a read, R_I + 2·R_R = 140: 875 ns. The bound's height form prices the
    // release as R_I + 2·R_R a level plus the root's fan-out, and reaches 805 ns (the root over
    // two children of 3 and 2 leaves, gathered at 490, released in 315); that tree's release
    // really pays the fan-out of the child it passes (3 pollers): the path form adds each
    // node's release with its fan-out to its gather and reaches 875, the optimum.
    let m = sandy();
    let best = price(&m, Collective::Barrier, "0(1(2),3(4),5(6),7)", &[0; 8]);
    assert_eq!((best.1 * 1e6).round() / 1e6, 875.0);
    let two = price(&m, Collective::Barrier, "0(1(2,3,4),5(6,7))", &[0; 8]);
    assert_eq!((two.1 * 1e6).round() / 1e6, 875.0);
    let request = Request::new(Collective::Barrier, 8).unwrap();
    let algorithms = m.algorithms_for(Collective::Barrier);
    let (_, bound_max, _) = bounds_of(&*algorithms[0], &request);
    assert_eq!(bound_max.map(|b| (b * 1e6).round() / 1e6), Some(875.0));
}

#[test]
fn the_t_max_bound_of_a_flat_reduction_on_one_socket_is_its_cost() {
    // 4 threads on one socket of the E5-2660 (R_L = 2.3, R_R = 35, R_I = 70; Eq. (1) intra
    // q = 63.4, o = 11.1, c = 0). Under T_max the flat reduction 0(1,2,3) costs: the root's
    // ready write, fetched for its three pollers and invalidating each, R_I + 3·R_R = 175; a
    // child's read of it (R_R), its copy into a fresh slot (R_L + R_I): 107.3; the ack line of
    // three adds, R_I + 2·3·R_R = 280; the root's copy of three slot lines, 63.4 + 3·11.1 =
    // 96.7. Total 659.0 ns, the optimum under max at 4 threads (docs/cla.md §12's table), and
    // the T_max bound attains it: a child is ready no earlier than m + K·r, then the edge, the
    // line m + 2K·r and the copy.
    let m = sandy();
    let flat = price(&m, Collective::Reduce, "0(1,2,3)", &[0, 0, 0, 0]);
    assert_eq!((flat.1 * 1e6).round() / 1e6, 659.0);
    let request = Request::new(Collective::Reduce, 4).unwrap();
    let algorithms = m.algorithms_for(Collective::Reduce);
    let (_, bound_max, _) = bounds_of(&*algorithms[0], &request);
    assert_eq!(bound_max.map(|b| (b * 1e6).round() / 1e6), Some(659.0));
}

/// [`chiplet_with`] on line classes drawn as R_L, then R_R, R_D and R_Q each at least the one
/// before (R_R at least R_L + 5), and R_QI = R_I + `invalid_step`, with `cores`: (cores per
/// socket, hardware threads per core), (4, 1) for the small chiplet machine.
fn random_chiplet_of(
    local: f64,
    steps: [f64; 3],
    invalid: f64,
    invalid_step: f64,
    multi: [[f64; 3]; 2],
    domain_lines: bool,
    cores: (u32, u32),
) -> Machine {
    let remote = local + 5.0 + steps[0];
    let remote_domain = remote + steps[1];
    let remote_socket = remote_domain + steps[2];
    chiplet_with(
        &[
            ("local", local),
            ("remote", remote),
            ("remote_domain", remote_domain),
            ("remote_socket", remote_socket),
            ("invalid", invalid),
            ("invalid_remote_socket", invalid + invalid_step),
        ],
        multi,
        domain_lines,
        cores,
    )
}

/// The small chiplet machine (2 sockets × 2 L3 domains, `cores` = (cores per socket, hardware
/// threads per core)) with its line classes and Eq. (1) constants replaced: `line` maps keys of
/// `[line]`, `multi` the keys of `[multi_line.intra_socket]` and `[multi_line.inter_socket]`
/// (intra first).
fn chiplet_with(
    line: &[(&str, f64)],
    multi: [[f64; 3]; 2],
    domain_lines: bool,
    (cores, per_core): (u32, u32),
) -> Machine {
    let domains = if domain_lines {
        "domains_per_socket = 2\nsync_line = \"domain\""
    } else {
        "domains_per_socket = 2"
    };
    let base = include_str!("../../../machines/chiplet-2s-4x8.toml")
        .replace(
            "cores_per_socket = 32",
            &format!("cores_per_socket = {cores}"),
        )
        .replace("domains_per_socket = 4", domains)
        .replace(
            "threads_per_core = 2",
            &format!("threads_per_core = {per_core}"),
        )
        .replace(
            "max_threads = 128",
            &format!("max_threads = {}", 2 * cores * per_core),
        );
    let mut section = String::new();
    let mut out = String::new();
    for text in base.lines() {
        let trimmed = text.trim_start();
        if trimmed.starts_with('[') {
            section = trimmed.to_string();
        }
        let key = trimmed.split([' ', '=']).next().unwrap_or("");
        let value = match section.as_str() {
            "[line]" => line.iter().find(|(k, _)| *k == key).map(|(_, v)| *v),
            "[multi_line.intra_socket]" | "[multi_line.inter_socket]" => {
                let row = usize::from(section.contains("inter"));
                ["q", "o", "c"]
                    .iter()
                    .position(|k| *k == key)
                    .map(|i| multi[row][i])
            }
            _ => None,
        };
        match value {
            Some(v) if trimmed.contains("value = ") => {
                let start = text.find("value = ").unwrap() + "value = ".len();
                let end = start + text[start..].find(',').unwrap();
                out.push_str(&format!("{}{v:?}{}\n", &text[..start], &text[end..]));
            }
            _ => out.push_str(&format!("{text}\n")),
        }
    }
    let mut m = machine::from_text("random-chiplet.toml", &out).unwrap();
    attach(&mut m).unwrap();
    m
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// The bound's law on random line classes (R_L ≤ R_R ≤ R_D ≤ R_Q, R_I ≤ R_QI) and Eq. (1)
    /// constants: never above the optimum over every labeled tree, for 3–5 threads on the
    /// 2 × 2 × 2 chiplet machine (one domain, two domains, two sockets), with one
    /// synchronization line per socket or per domain; and T_max ≥ T_min on every one of those
    /// trees.
    #[test]
    fn the_bound_holds_on_random_machines(
        local in 0.5f64..5.0,
        steps in proptest::array::uniform3(0.0f64..120.0),
        invalid in 20.0f64..200.0,
        invalid_step in 0.0f64..80.0,
        // Eq. (1)'s constants, within the loader's sane range (≥ 0.001 ns; a random draw below
        // it failed the load before).
        multi in proptest::array::uniform2(proptest::array::uniform3(0.01f64..100.0)),
        domain_lines in proptest::bool::ANY,
    ) {
        let m = random_chiplet_of(local, steps, invalid, invalid_step, multi, domain_lines, (4, 1));
        for collective in [Collective::Bcast, Collective::Barrier, Collective::Reduce] {
            let algorithms = m.algorithms_for(collective);
            let algorithm = &*algorithms[0];
            if domain_lines && collective == Collective::Bcast {
                // The closed form over domains, searched by the socket DP (its bounds are
                // checked in crates/optimizer/tests/socket_dp.rs).
                continue;
            }
            for n in 3..=5u32 {
                let request = Request::new(collective, n).unwrap();
                let (bound, bound_max, sockets) = bounds_of(algorithm, &request);
                let bound = bound.unwrap();
                let bound_max = bound_max.unwrap();
                let (mut best, mut best_max) = (f64::INFINITY, f64::INFINITY);
                for p in every_labeled_tree(n as usize, &sockets) {
                    let c = algorithm.cost(&request, &p).unwrap();
                    // T_max ≥ T_min on every configuration (each rule's worst case is at least
                    // its best, docs/cla.md §6), so the T_min bound bounds every objective.
                    proptest::prop_assert!(
                        c.max_ns >= c.min_ns - 1e-9,
                        "{collective:?} {p}: T_max {} below T_min {}",
                        c.max_ns,
                        c.min_ns
                    );
                    best = best.min(c.min_ns);
                    best_max = best_max.min(c.max_ns);
                }
                proptest::prop_assert!(
                    bound > 0.0 && bound <= best + 1e-9,
                    "{collective:?} n = {n}: bound {bound} above the optimum {best}"
                );
                proptest::prop_assert!(
                    bound_max > 0.0 && bound_max <= best_max + 1e-9,
                    "{collective:?} n = {n}: T_max bound {bound_max} above the optimum {best_max}"
                );
            }
        }
    }
}

/// Asserts that with `--placement optimal` on a 2 sockets × 2 L3 domains × 2 cores machine the
/// search over `n` threads is exact and equal, under min and max, to brute force: every labeled
/// tree times every domain of every thread (a domain holds 2), so that any symmetry the search
/// uses is checked, not assumed. The root keeps its thread's domain (docs/cla.md §12, "A free
/// split over L3 domains"); with one line per socket it may be in *either* domain of socket 0,
/// which checks that the root's domain matters only through which threads share it
/// (`root_in_either_domain`).
fn assert_free_split_equals_brute_force(
    m: &Machine,
    collective: Collective,
    n: usize,
    root_in_either_domain: bool,
) {
    let root_domains = if root_in_either_domain { 2 } else { 1 };
    let request = Request::new(collective, n as u32).unwrap();
    let algorithms = m.algorithms_for(collective);
    let algorithm = &*algorithms[0];
    // Each configuration priced once, scored under both objectives.
    let objectives = [Objective::Min, Objective::Max];
    let mut brute = [f64::INFINITY; 2];
    // Global domains 0..4 (domain g % 2 of socket g / 2); thread 0 in domain 0 (or 1).
    for code in 0..root_domains * 4usize.pow(n as u32 - 1) {
        let mut groups = vec![(code % root_domains) as u32];
        let mut rest = code / root_domains;
        for _ in 1..n {
            groups.push((rest % 4) as u32);
            rest /= 4;
        }
        if (0..4).any(|g| groups.iter().filter(|&&x| x == g).count() > 2) {
            continue;
        }
        let sockets: Vec<u32> = groups.iter().map(|g| g / 2).collect();
        let domains: Vec<u32> = groups.iter().map(|g| g % 2).collect();
        for p in every_labeled_tree(n, &sockets) {
            let Params::RootedTree { parents, .. } = p else {
                unreachable!()
            };
            let placed = Params::RootedTree {
                parents,
                sockets: sockets.clone(),
                domains: domains.clone(),
            };
            let c = algorithm.cost(&request, &placed).unwrap();
            for (b, objective) in brute.iter_mut().zip(objectives) {
                *b = b.min(objective.score(&c, request.metric()).unwrap());
            }
        }
    }
    for (brute, objective) in brute.into_iter().zip(objectives) {
        let mut options = SearchOptions::new(objective, 1);
        options.space.placement = modelopt_model::algorithm::ThreadPlacement::Optimal;
        let ranked = rank(algorithm, &request, &options).unwrap();
        let what = format!("{} {collective:?} {objective:?} n = {n}", m.name);
        assert!(ranked.exact(), "{what}");
        let best = &ranked.best[0];
        assert!(
            (best.score - brute).abs() < 1e-9,
            "{what}: search {}, brute force {brute}",
            best.score
        );
        // The answer names its domains.
        let Params::RootedTree { domains, .. } = &best.params else {
            panic!("{:?}", best.params);
        };
        assert_eq!(domains.len(), n);
        // The certified bound on the objective's score holds over every split (under max the
        // larger of the T_min and T_max bounds).
        if let Space::PricedTrees(space) = algorithm.space(&request, &options.space).unwrap() {
            let t_min = space.t_min_lower_bound.unwrap();
            let t_max = space.t_max_lower_bound.unwrap().max(t_min);
            let bound = objective.of_range(t_min, t_max);
            assert!(
                bound <= brute + 1e-9,
                "{what}: bound {bound}, optimum {brute}"
            );
        }
    }
}

#[test]
fn on_chiplets_a_free_split_is_the_best_over_every_domain_of_every_thread() {
    // One line per socket: the search lists one split per renaming of the domains of a
    // socket (the broadcast by its DP over every split, the others by the graph).
    let m = small_chiplet();
    for collective in [Collective::Bcast, Collective::Barrier, Collective::Reduce] {
        assert_free_split_equals_brute_force(&m, collective, 4, true);
    }
}

#[test]
fn with_one_line_per_domain_a_free_split_renames_domains_only_in_order() {
    // One line per L3 domain: a parent waits for its children's domain lines in ascending
    // order, so exchanging two domains of a socket changes costs (below), and the search may
    // only move a domain's threads to an earlier empty domain of its run (docs/cla.md §12).
    // Brute force over every domain of every thread but the root's checks that this loses
    // nothing.
    let m = small_chiplet_domain_lines();
    for collective in [Collective::Bcast, Collective::Barrier, Collective::Reduce] {
        for n in [4, 5] {
            assert_free_split_equals_brute_force(&m, collective, n, false);
        }
    }
    // The renaming itself: the same tree 0(2(1), 4(3)) with domains 0 and 1 of socket 0
    // exchanged (thread 1 on socket 1) does not cost the same.
    let request = Request::new(Collective::Barrier, 5).unwrap();
    let algorithms = m.algorithms_for(Collective::Barrier);
    let cost = |domains: Vec<u32>| {
        let params = Params::RootedTree {
            parents: vec![None, Some(2), Some(0), Some(4), Some(0)],
            sockets: vec![0, 1, 0, 0, 0],
            domains,
        };
        algorithms[0].cost(&request, &params).unwrap().max_ns
    };
    let root_domain_second = cost(vec![1, 0, 1, 0, 0]);
    let root_domain_first = cost(vec![0, 0, 0, 1, 1]);
    assert!(
        (root_domain_second - root_domain_first).abs() > 1.0,
        "{root_domain_second} {root_domain_first}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// The relaxation of the broadcast with one line per socket (docs/cla.md §13) on random line
    /// classes (R_L ≤ R_R ≤ R_D ≤ R_Q, R_I ≤ R_QI): for 3 and 4 threads on one socket of the
    /// 2 × 2 × 2 chiplet machine (domains 0, 0, 1, 1 by id) and 5 on two, the bound the
    /// optimizer's socket-line DP computes is never above the least T_min over every labeled
    /// tree (brute force by the CLa graph), and the configuration it offers is one of the
    /// request's, priced by the graph at or above the bound.
    #[test]
    fn the_socket_line_relaxation_holds_on_random_machines(
        local in 0.5f64..5.0,
        steps in proptest::array::uniform3(0.0f64..120.0),
        invalid in 20.0f64..200.0,
        invalid_step in 0.0f64..80.0,
        multi in proptest::array::uniform2(proptest::array::uniform3(0.01f64..100.0)),
    ) {
        let m = random_chiplet_of(local, steps, invalid, invalid_step, multi, false, (4, 1));
        let algorithms = m.algorithms_for(Collective::Bcast);
        let algorithm = &*algorithms[0];
        for n in 3..=5u32 {
            let request = Request::new(Collective::Bcast, n).unwrap();
            let Ok(Space::PricedTrees(space)) = algorithm.space(&request, &SpaceOptions::default())
            else {
                panic!("a graph-priced space");
            };
            assert!(space.socket_lines.is_some(), "threads by id, a core each");
            let refine = |attained: f64| {
                modelopt_optimizer::socket_line_dp::refine(&space, u64::MAX, u64::MAX, attained, &|| true)
            };
            let found = refine(f64::INFINITY);
            let found = found.expect("within no limit");
            let bound = found.t_min_lower_bound;
            let best = every_labeled_tree(n as usize, &space.thread_sockets)
                .iter()
                .map(|p| algorithm.cost(&request, p).unwrap().min_ns)
                .fold(f64::INFINITY, f64::min);
            proptest::prop_assert!(bound <= best + 1e-9, "n = {n}: bound {bound} above {best}");
            // Told the optimum some configuration attains, its one run prunes at it and finds
            // the same bound.
            let told = refine(best);
            let told = told.expect("within no limit").t_min_lower_bound;
            proptest::prop_assert!((told - bound).abs() < 1e-9, "n = {n}: {told} vs {bound}");
            for p in &found.configurations {
                let c = algorithm.cost(&request, p).unwrap();
                proptest::prop_assert!(c.min_ns >= bound - 1e-9, "{p}: {} below {bound}", c.min_ns);
            }
            proptest::prop_assert!(!found.configurations.is_empty());
        }
    }
}

#[test]
fn with_shared_cores_free_and_by_id_are_bounded_by_the_relaxation_for_shared_cores_by_hand() {
    // The chiplet machine's classes (machines/chiplet-2s-4x8.toml: R_L 1.43, R_R 35 = 1.43 + 5
    // + 28.57, R_D 164.5, R_Q 223.5, R_I 122, R_QI 159 ns) on 2 sockets × 2 L3 domains × 1
    // core × 2 hardware threads, 6 threads placed freely: a socket holds 4, so at least 2 run
    // on socket 1, and cores are shared. The relaxation for shared cores is offered (docs/cla.md
    // §13, "Shared cores"); its soundness against the CLa graph is
    // `with_shared_cores_the_relaxation_is_below_the_graph_*` (tests/one_line_bcast.rs).
    //
    // By hand. The generic bound: the root's R_L and S3 (R_I), one child across (R_Q + R_L),
    // its fresh line (R_I), the root's read across (R_Q): 1.43 + 122 + 224.93 + 122 + 223.5 =
    // 693.86 ns. The relaxation (domains merged, every split per socket): the root waits for
    // socket 1's group last (ascending sockets), at least R_Q after the group is done. With 2
    // children or more there, the group costs at least R_I + R_L (two writers of one core):
    // 693.86 + 1.43 = 695.29 ns, attained by the root with socket 1's two threads and socket
    // 0's three others as children (socket 0's group is done at 2.86 + 122 + 1.43 + 35 + 1.43
    // = 162.72 after the S3, long before socket 1's at 224.93 + 123.43 = 348.36). With one
    // child c there, the other thread of socket 1 is below c (then c's T adds at least R_I)
    // or below a node of socket 0, whose own wait across puts it at more than 690 ns after
    // the root's S3 before its arrival. So 695.29 ns.
    let m = random_chiplet_of(
        1.43,
        [28.57, 129.5, 59.0],
        122.0,
        37.0,
        [[63.4, 11.1, 0.0], [180.65, 7.5, 3.0]],
        false,
        (2, 2),
    );
    let algorithms = m.algorithms_for(Collective::Bcast);
    let algorithm = &*algorithms[0];
    let request = Request::new(Collective::Bcast, 6).unwrap();
    let options = SpaceOptions {
        placement: modelopt_model::algorithm::ThreadPlacement::Optimal,
        ..SpaceOptions::default()
    };
    let Ok(Space::PricedTrees(space)) = algorithm.space(&request, &options) else {
        panic!("a graph-priced space");
    };
    assert!(space.socket_lines.is_some(), "offered with shared cores");
    let generic = space.t_min_lower_bound.unwrap();
    assert!((generic - 693.86).abs() < 1e-9, "{generic}");
    let unlimited = |space: &modelopt_model::placed_tree::PricedTreeSpace| {
        modelopt_optimizer::socket_line_dp::refine(
            space,
            u64::MAX,
            u64::MAX,
            f64::INFINITY,
            &|| true,
        )
        .expect("above the generic bound")
    };
    let refined = unlimited(&space);
    let bound = refined.t_min_lower_bound;
    assert!((bound - 695.29).abs() < 1e-9, "{bound}");
    // And the search's answer, a placed tree priced by the graph, is at or above it.
    let mut search = SearchOptions::new(Objective::Min, 1);
    search.space.placement = modelopt_model::algorithm::ThreadPlacement::Optimal;
    let ranked = rank(algorithm, &request, &search).unwrap();
    assert!(ranked.best[0].score >= bound, "{}", ranked.best[0].score);

    // The same 6 threads placed by id: threads 0–3 take the 4 cores (socket 0's two, then
    // socket 1's), 4 and 5 the second hardware threads of socket 0's cores. Each of those two
    // cores is a group of its own, finer than a domain, so only the merged optimum bounds
    // the space (`SocketLines::by_domain`), over its one split per socket, 4 + 2: the same
    // 695.29 ns by the argument above, which holds for every split with 2 threads or more on
    // socket 1. No tree of it is offered: a merged tree is no configuration.
    let Ok(Space::PricedTrees(space)) = algorithm.space(&request, &SpaceOptions::default()) else {
        panic!("a graph-priced space");
    };
    let lines = space.socket_lines.as_ref().expect("offered by id too");
    assert!(!lines.by_domain);
    assert_eq!(space.thread_sockets, [0, 0, 1, 1, 0, 0]);
    let refined = unlimited(&space);
    assert!(
        (refined.t_min_lower_bound - 695.29).abs() < 1e-9,
        "{}",
        refined.t_min_lower_bound
    );
    assert!(refined.configurations.is_empty());
}
