//! The one-line broadcast's CLa graph against the closed form of Eq. (2), and the worked
//! examples of docs/cla.md §7.

use modelopt_graph::{analyze, default_places, parse::parse, places_on_sockets, Program};
use modelopt_model::ccnuma::{tree::RootedTree, Ccnuma};
use modelopt_model::machine::{self, Machine};
use modelopt_model::placed_tree::PlacedTreeCost;

fn sandy() -> Machine {
    machine::load("sandy-bridge-e5-2660").unwrap()
}

fn bcast() -> Program {
    parse(
        "models/one-line-bcast.cla",
        include_str!("../../../models/one-line-bcast.cla"),
    )
    .unwrap()
}

/// Every recursive labelled tree on n nodes (parent of i below i): every shape appears.
fn all_trees(n: usize) -> Vec<RootedTree> {
    let mut out = Vec::new();
    let mut parents = vec![0usize; n];
    fn rec(i: usize, n: usize, parents: &mut Vec<usize>, out: &mut Vec<RootedTree>) {
        if i == n {
            let p: Vec<Option<u32>> = (0..n)
                .map(|v| {
                    if v == 0 {
                        None
                    } else {
                        Some(parents[v] as u32)
                    }
                })
                .collect();
            out.push(RootedTree::from_parents(&p).unwrap());
            return;
        }
        for p in 0..i {
            parents[i] = p;
            rec(i + 1, n, parents, out);
        }
    }
    rec(1, n, &mut parents, &mut out);
    out
}

#[test]
fn figure_2_binary_tree_on_one_socket() {
    // Tree 0(1(3),2) of seed 001 Figure 2, all four threads on socket 0 (R_L = 2.3, R_R = 35,
    // R_I = 70 ns). Node costs by the rules (docs/cla.md §4, §7):
    //   t0 S3 copy buf[0] -> note[0]: src in own cache R_L, dst first fetch from memory R_I = 72.3
    //   t0 S4 write note[0]: rule 3 (same line as S3) = 0 (*)                      -> 72.3
    //   t1 S1 wait note[0]: E2 from t0, rule 4 R_R = 35                             -> 107.3
    //   t1 S2 copy note[0] -> buf[1]: src rule 3 *, dst own buffer R_L = 2.3        -> 109.6
    //   t1 S3 copy buf[1] -> note[1]: src *, dst R_I = 70                           -> 179.6
    //   t1 S4 write note[1]: *                                                      -> 179.6
    //   t3 S1 wait note[1]: R_R                                                     -> 214.6
    //   t3 S2 copy: R_L                                                             -> 216.9
    //   t3 S6 add ack[1,0]: first fetch R_I                                         -> 286.9
    //   t1 S5 wait ack[1,0] == 1: R_R                                               -> 321.9
    //   E3 {t1 S6, t2 S6} on ack[0,0]: entered at t1 S6 (starts 321.9, t2's at 109.6), both
    //   visited: R_I (first write, from memory) + R_R (from t1)                     -> 426.9
    //   t0 S5 wait ack[0,0] == 2: R_R                                               -> 461.9
    let m = sandy();
    let sandy: &Ccnuma = m.model().unwrap();
    let tree = RootedTree::parse("0(1(3),2)").unwrap();
    let (graph, min, max) = analyze(&bcast(), &tree, sandy, &default_places(sandy, 4)).unwrap();
    assert!((min.total_ns - 461.9).abs() < 1e-9, "{}", min.total_ns);
    let path: Vec<String> = min
        .path
        .iter()
        .map(|&i| format!("t{} {}", graph.node(i).thread, graph.node(i).text))
        .collect();
    assert_eq!(
        path,
        [
            "t0 copy buf[0] -> note[0]",
            "t0 write note[0] 1",
            "t1 wait note[0] == 1",
            "t1 copy note[0] -> buf[1]",
            "t1 copy buf[1] -> note[1]",
            "t1 write note[1] 1",
            "t3 wait note[1] == 1",
            "t3 copy note[1] -> buf[3]",
            "t3 add ack[1,0] 1",
            "t1 wait ack[1,0] == 1",
            "t1 add ack[0,0] 1",
            "t2 add ack[0,0] 1",
            "t0 wait ack[0,0] == 2",
        ]
    );
    assert_eq!(min.qpi_transfers, 0);
    // The E3 writes priced in visiting order: t1 first (R_I), t2 second (R_R).
    let t1_add = min.path[10];
    let t2_add = min.path[11];
    assert!((min.cost[t1_add] - 70.0).abs() < 1e-9);
    assert!((min.cost[t2_add] - 35.0).abs() < 1e-9);
    // T_max by the stealing rules (docs/cla.md §6) equals the closed form.
    let closed = sandy.tree_costs().evaluate(&tree, &[0; 4]).unwrap();
    assert!((max.total_ns - closed.max_ns).abs() < 1e-9);
    assert!(max.total_ns > min.total_ns);
}

#[test]
fn an_inter_socket_edge_lands_on_the_critical_path() {
    // Same tree, threads 1 and 3 on socket 1 (threads 0 and 2 on socket 0). The slow subtree
    // now starts with a QPI transfer: t1 S1 reads note[0] from t0 over QPI, R_Q = 94.
    //   t0 S3: R_L + R_I = 72.3; S4 * -> 72.3
    //   t1 S1: R_Q = 94 -> 166.3; S2: R_L -> 168.6; S3: R_I (note[1] homed on socket 1) -> 238.6
    //   t3 S1: R_R (same socket as t1) -> 273.6; S2: R_L -> 275.9; S6 ack[1,1]: R_I -> 345.9
    //   t1 S5: R_R -> 380.9
    //   t1 S6 adds to ack[0,1] (the socket-1 line of t0), alone in its group: R_I -> 450.9
    //   t2 S6 adds to ack[0,0] at 72.3 + 35 + 2.3 = 109.6, + R_I -> 179.6
    //   t0 waits ack[0,0] first (socket 0): max(·, 179.6) + R_R = 214.6,
    //   then ack[0,1]: max(214.6, 450.9) + R_Q = 544.9
    let m = sandy();
    let sandy: &Ccnuma = m.model().unwrap();
    let tree = RootedTree::parse("0(1(3),2)").unwrap();
    let places = places_on_sockets(sandy, &[0, 1, 0, 1]).unwrap();
    let (graph, min, _) = analyze(&bcast(), &tree, sandy, &places).unwrap();
    assert!((min.total_ns - 544.9).abs() < 1e-9, "{}", min.total_ns);
    let threads: Vec<u32> = min.path.iter().map(|&i| graph.node(i).thread).collect();
    // t0 -> t1 (QPI) ... t1 -> t0 (QPI): two inter-socket edges on the path.
    assert_eq!(min.qpi_transfers, 2);
    assert_eq!(threads.first(), Some(&0));
    assert!(threads.contains(&1) && threads.contains(&3));
    let closed = sandy.tree_costs().evaluate(&tree, &[0, 1, 0, 1]).unwrap();
    assert!((closed.min_ns - 544.9).abs() < 1e-9);
}

/// The critical path of the CLa graph on `tree` placed on `sockets` equals the family's closed
/// form, both bounds.
fn graph_equals_closed_form(program: &Program, model: &Ccnuma, tree: &RootedTree, sockets: &[u32]) {
    let places = places_on_sockets(model, sockets).unwrap();
    graph_at_places_equals_closed_form(program, model, tree, &places, sockets);
}

/// The graph of `tree` at `places` against the closed form with node v labelled `labels[v]`.
fn graph_at_places_equals_closed_form(
    program: &Program,
    model: &Ccnuma,
    tree: &RootedTree,
    places: &[modelopt_model::ccnuma::Place],
    labels: &[u32],
) {
    let (_, min, max) = analyze(program, tree, model, places).unwrap();
    let closed = model.tree_costs().evaluate(tree, labels).unwrap();
    assert!(
        (min.total_ns - closed.min_ns).abs() < 1e-6,
        "T_min {tree} {labels:?}: graph {} closed {}",
        min.total_ns,
        closed.min_ns
    );
    assert!(
        (max.total_ns - closed.max_ns).abs() < 1e-6,
        "T_max {tree} {labels:?}: graph {} closed {}",
        max.total_ns,
        closed.max_ns
    );
}

#[test]
fn graph_equals_closed_form_on_every_small_tree_and_placement() {
    let m = sandy();
    let sandy: &Ccnuma = m.model().unwrap();
    let costs = sandy.tree_costs();
    let program = bcast();
    for n in 2..=6 {
        for tree in all_trees(n) {
            for mask in 0..(1u32 << (n - 1)) {
                let sockets: Vec<u32> = (0..n)
                    .map(|v| if v == 0 { 0 } else { (mask >> (v - 1)) & 1 })
                    .collect();
                graph_equals_closed_form(&program, sandy, &tree, &sockets);
            }
        }
    }
    // Seven threads, one socket: every shape.
    for tree in all_trees(7) {
        let (_, min, max) = analyze(&program, &tree, sandy, &default_places(sandy, 7)).unwrap();
        let closed = costs.evaluate(&tree, &[0; 7]).unwrap();
        assert!((min.total_ns - closed.min_ns).abs() < 1e-6, "{tree}");
        assert!((max.total_ns - closed.max_ns).abs() < 1e-6, "{tree}");
    }
}

#[test]
fn graph_equals_closed_form_on_four_sockets() {
    // The bundled four-socket machine: with up to four socket groups per node the waits run in
    // ascending socket order (docs/cla.md §7), which two sockets never exercise beyond one
    // remote group. Every recursive tree of up to 5 nodes, every labelling of the non-root
    // nodes over the 4 sockets (4^(n−1)), the root on socket 0 and on socket 3.
    let m = machine::load("xeon-e5-4650-4s").unwrap();
    let four: &Ccnuma = m.model().unwrap();
    let program = bcast();
    let mut checked = 0;
    for n in 2..=5usize {
        for tree in all_trees(n) {
            for root_socket in [0u32, 3] {
                for code in 0..4u32.pow(n as u32 - 1) {
                    let mut x = code;
                    let sockets: Vec<u32> = (0..n)
                        .map(|v| {
                            if v == 0 {
                                root_socket
                            } else {
                                let s = x % 4;
                                x /= 4;
                                s
                            }
                        })
                        .collect();
                    graph_equals_closed_form(&program, four, &tree, &sockets);
                    checked += 1;
                }
            }
        }
    }
    // 2 roots × (1·4 + 2·16 + 6·64 + 24·256) labelled placements.
    assert_eq!(checked, 2 * (4 + 32 + 384 + 6144));
}

#[test]
fn with_two_threads_on_a_core_the_closed_form_is_an_upper_bound_of_the_graph() {
    // Eq. (2) has one class within a socket, so the closed form prices two hardware threads of
    // one core as any two cores of the socket (R_R), where the CLa graph prices them R_L
    // (docs/cla.md §1, §7). Every rule is non-decreasing in the classes, so on placements that
    // share cores the closed form is at least the graph's cost, both bounds; and it can be
    // strictly above. The E5-2660 with 2 cores a socket: threads 4 and 5 are the second
    // hardware threads of cores 0 and 1 of socket 0 (threads 0 and 1 hold their first).
    let text = include_str!("../../../machines/sandy-bridge-e5-2660.toml")
        .replace("cores_per_socket = 8", "cores_per_socket = 2")
        .replace("max_threads = 32", "max_threads = 8");
    let m = machine::from_text("two-cores.toml", &text).unwrap();
    let model: &Ccnuma = m.model().unwrap();
    let program = bcast();
    let mut strictly_above = 0;
    for n in [5u32, 6] {
        let places = default_places(model, n);
        let sockets: Vec<u32> = places.iter().map(|p| p.socket).collect();
        for tree in all_trees(n as usize) {
            let (_, min, max) = analyze(&program, &tree, model, &places).unwrap();
            let closed = model.tree_costs().evaluate(&tree, &sockets).unwrap();
            assert!(closed.min_ns >= min.total_ns - 1e-6, "T_min {tree}");
            assert!(closed.max_ns >= max.total_ns - 1e-6, "T_max {tree}");
            if closed.max_ns > max.total_ns + 1e-6 {
                strictly_above += 1;
            }
        }
    }
    assert!(strictly_above > 0, "a shared core never mattered");
}

/// The chiplet machine's numbers (machines/chiplet-2s-4x8.toml: R_L 1.43, R_R 35, R_D 164.5,
/// R_Q 223.5, R_I 122, R_QI 159 ns) on 2 sockets × 2 L3 domains × 5 cores, one hardware thread a
/// core, each node keeping one synchronization line per L3 domain (`topology.sync_line =
/// "domain"`, docs/cla.md §13). Units: domain d of socket s is 2s + d.
fn chiplet_domain_lines() -> Machine {
    let text = include_str!("../../../machines/chiplet-2s-4x8.toml")
        .replace("cores_per_socket = 32", "cores_per_socket = 10")
        .replace(
            "domains_per_socket = 4",
            "domains_per_socket = 2\nsync_line = \"domain\"",
        )
        .replace("threads_per_core = 2", "threads_per_core = 1")
        .replace("max_threads = 128", "max_threads = 20");
    machine::from_text("chiplet-domain-lines.toml", &text).unwrap()
}

/// The graph of `tree` with node v in unit `units[v]` against the closed form over units.
fn graph_equals_closed_form_over_units(
    program: &Program,
    model: &Ccnuma,
    tree: &RootedTree,
    units: &[u32],
) {
    let sockets: Vec<u32> = units.iter().map(|u| u / 2).collect();
    let domains: Vec<u32> = units.iter().map(|u| u % 2).collect();
    let places = modelopt_graph::places_in_domains(model, &sockets, &domains).unwrap();
    graph_at_places_equals_closed_form(program, model, tree, &places, units);
}

#[test]
fn with_one_line_per_l3_domain_a_broadcast_by_hand_pays_r_d_once() {
    // Tree 0(1,2), all on socket 0: thread 1 in the root's domain (unit 0), thread 2 in the other
    // (unit 1); each child adds to its own domain's line, homed in socket 0's memory.
    //   root: R_L (its buffer) + R_I (S3) = 123.43; S4 * -> 123.43
    //   t1: S1 R_R -> 158.43; S2 R_L -> 159.86; S6 ack[0,0] from memory, R_I -> 281.86
    //   t2: S1 R_D -> 287.93; S2 R_L -> 289.36; S6 ack[0,1] from memory, R_I -> 411.36
    //   root waits ack[0,0]: 281.86 + R_R = 316.86; then ack[0,1]: max(316.86, 411.36) + R_D
    //   = 575.86 ns.
    let m = chiplet_domain_lines();
    let model: &Ccnuma = m.model().unwrap();
    let tree = RootedTree::parse("0(1,2)").unwrap();
    let places = modelopt_graph::places_in_domains(model, &[0, 0, 0], &[0, 0, 1]).unwrap();
    let (_, min, _) = analyze(&bcast(), &tree, model, &places).unwrap();
    assert!((min.total_ns - 575.86).abs() < 1e-9, "{}", min.total_ns);
    let closed = model.tree_costs().evaluate(&tree, &[0, 0, 1]).unwrap();
    assert!((closed.min_ns - 575.86).abs() < 1e-9, "{}", closed.min_ns);
}

#[test]
fn with_one_line_per_l3_domain_the_graph_equals_the_closed_form_over_domains() {
    // Every recursive tree of up to 5 nodes, every labelling of the non-root nodes over the 4
    // domains (4^(n−1)), the root in domain 0 and in domain 3: the groups of a node are its
    // children's domains, waited for in ascending order, each at its own class (R_R, R_D, R_Q).
    let m = chiplet_domain_lines();
    let model: &Ccnuma = m.model().unwrap();
    let program = bcast();
    let mut checked = 0;
    for n in 2..=5usize {
        for tree in all_trees(n) {
            for root in [0u32, 3] {
                for code in 0..4u32.pow(n as u32 - 1) {
                    let mut x = code;
                    let units: Vec<u32> = (0..n)
                        .map(|v| {
                            if v == 0 {
                                root
                            } else {
                                let u = x % 4;
                                x /= 4;
                                u
                            }
                        })
                        .collect();
                    graph_equals_closed_form_over_units(&program, model, &tree, &units);
                    checked += 1;
                }
            }
        }
    }
    // 2 roots × (1·4 + 2·16 + 6·64 + 24·256) labelled placements.
    assert_eq!(checked, 2 * (4 + 32 + 384 + 6144));
}

/// Every labelling of `n` nodes with `k` labels (node 0's the fastest digit).
fn every_labelling(n: usize, k: u32) -> impl Iterator<Item = Vec<u32>> {
    (0..k.pow(n as u32)).map(move |code| {
        let mut x = code;
        (0..n)
            .map(|_| {
                let d = x % k;
                x /= k;
                d
            })
            .collect()
    })
}

/// The chiplet machine's numbers (R_L 1.43, R_R 35, R_D 164.5, R_I 122 ns) on one socket of 3
/// L3 domains × 5 cores, one hardware thread a core, one synchronization line per socket (the
/// default `sync_line`).
fn chiplet_socket_lines() -> Machine {
    let text = include_str!("../../../machines/chiplet-2s-4x8.toml")
        .replace("sockets = 2", "sockets = 1")
        .replace("cores_per_socket = 32", "cores_per_socket = 15")
        .replace("domains_per_socket = 4", "domains_per_socket = 3")
        .replace("threads_per_core = 2", "threads_per_core = 1")
        .replace("max_threads = 128", "max_threads = 15");
    machine::from_text("chiplet-socket-lines.toml", &text).unwrap()
}

#[test]
fn with_one_line_per_socket_the_relaxation_is_below_the_graph_and_equal_without_the_entry_penalty()
{
    use modelopt_graph::socket_line_relaxation::Relaxation;
    use modelopt_model::socket_lines::evaluate;
    // docs/cla.md §13: the relaxation drops the one term of the graph that breaks monotonicity
    // (the latest child in the poller's domain while another domain holds a child costs
    // R_D − R_R more). Every recursive tree of up to 5 nodes, every labelling of its nodes over
    // the 3 domains: relaxed ≤ graph always, equal wherever no node pays that term, judged on
    // the relaxed arrivals (which are the graph's below a node that pays none).
    let m = chiplet_socket_lines();
    let model: &Ccnuma = m.model().unwrap();
    let line = &model.line;
    let r = Relaxation::of(model);
    let program = bcast();
    let (mut equal, mut below) = (0, 0);
    for n in 2..=5usize {
        for tree in all_trees(n) {
            for domains in every_labelling(n, 3) {
                let places =
                    modelopt_graph::places_in_domains(model, &vec![0; n], &domains).unwrap();
                let (_, min, _) = analyze(&program, &tree, model, &places).unwrap();
                let relaxed = evaluate(&r, &tree, &domains, &[0, 0, 0]).unwrap();
                assert!(
                    relaxed <= min.total_ns + 1e-9,
                    "{tree} {domains:?}: relaxed {relaxed} above the graph {}",
                    min.total_ns
                );
                // The relaxed T of every node, bottom-up, to find the nodes that pay.
                let mut t = vec![0.0f64; n];
                let mut pays = false;
                for &p in tree.preorder().iter().rev() {
                    let kids = tree.children(p);
                    if kids.is_empty() {
                        continue;
                    }
                    let own = domains[p as usize];
                    let arrival = |c: u32| {
                        let x = if domains[c as usize] == own {
                            line.remote
                        } else {
                            line.remote_domain
                        };
                        x + line.local + t[c as usize]
                    };
                    let latest = kids.iter().map(|&c| arrival(c)).fold(0.0, f64::max);
                    let mixed = kids.iter().any(|&c| domains[c as usize] != own)
                        && kids.iter().any(|&c| domains[c as usize] == own);
                    let entry_elsewhere = kids
                        .iter()
                        .any(|&c| domains[c as usize] != own && arrival(c) == latest);
                    pays |= mixed && !entry_elsewhere;
                    let mut used: Vec<u32> = kids.iter().map(|&c| domains[c as usize]).collect();
                    used.sort_unstable();
                    used.dedup();
                    let read = if used.contains(&own) {
                        line.remote
                    } else {
                        line.remote_domain
                    };
                    t[p as usize] = line.invalid
                        + latest
                        + line.invalid
                        + (kids.len() - used.len()) as f64 * line.remote
                        + (used.len() - 1) as f64 * line.remote_domain
                        + read;
                }
                if pays {
                    assert!(relaxed < min.total_ns, "{tree} {domains:?}");
                    below += 1;
                } else {
                    assert!(
                        (relaxed - min.total_ns).abs() < 1e-9,
                        "{tree} {domains:?}: relaxed {relaxed}, graph {}",
                        min.total_ns
                    );
                    equal += 1;
                }
            }
        }
    }
    // (1·9 + 2·27 + 6·81 + 24·243) labelled placements.
    assert_eq!(equal + below, 9 + 54 + 486 + 5832);
    assert!(below > 0 && equal > below, "equal {equal}, below {below}");
}

#[test]
fn with_one_line_per_socket_the_relaxation_is_below_the_graph_across_sockets() {
    use modelopt_graph::socket_line_relaxation::Relaxation;
    use modelopt_model::socket_lines::evaluate;
    // The chiplet machine's numbers on 2 sockets × 2 L3 domains × 5 cores, one line per socket
    // (docs/cla.md §13): every recursive tree of up to 5 nodes and every labelling of its nodes
    // over the 4 domains (domain d of socket d / 2): the relaxation, whose groups wait in
    // ascending socket order, is never above the graph, and equal on every tree whose nodes
    // have their children in one domain each (no entry penalty can arise).
    let text = include_str!("../../../machines/chiplet-2s-4x8.toml")
        .replace("cores_per_socket = 32", "cores_per_socket = 10")
        .replace("domains_per_socket = 4", "domains_per_socket = 2")
        .replace("threads_per_core = 2", "threads_per_core = 1")
        .replace("max_threads = 128", "max_threads = 20");
    let m = machine::from_text("chiplet-2x2-socket-lines.toml", &text).unwrap();
    let model: &Ccnuma = m.model().unwrap();
    let r = Relaxation::of(model);
    let program = bcast();
    let (mut checked, mut equal) = (0, 0);
    for n in 2..=5usize {
        for tree in all_trees(n) {
            for units in every_labelling(n, 4) {
                let sockets: Vec<u32> = units.iter().map(|u| u / 2).collect();
                let domains: Vec<u32> = units.iter().map(|u| u % 2).collect();
                let places = modelopt_graph::places_in_domains(model, &sockets, &domains).unwrap();
                let (_, min, _) = analyze(&program, &tree, model, &places).unwrap();
                let relaxed = evaluate(&r, &tree, &units, &[0, 0, 1, 1]).unwrap();
                assert!(
                    relaxed <= min.total_ns + 1e-9,
                    "{tree} {units:?}: relaxed {relaxed} above the graph {}",
                    min.total_ns
                );
                let one_domain_each = (0..n as u32).all(|p| {
                    let mut used: Vec<u32> = tree
                        .children(p)
                        .iter()
                        .map(|&c| units[c as usize])
                        .collect();
                    used.sort_unstable();
                    used.dedup();
                    // Per socket of children, one domain.
                    let mut per_socket: Vec<u32> = used.iter().map(|u| u / 2).collect();
                    per_socket.dedup();
                    per_socket.len() == used.len()
                });
                if one_domain_each {
                    assert!(
                        (relaxed - min.total_ns).abs() < 1e-9,
                        "{tree} {units:?}: relaxed {relaxed}, graph {}",
                        min.total_ns
                    );
                    equal += 1;
                }
                checked += 1;
            }
        }
    }
    // (1·16 + 2·64 + 6·256 + 24·1024) labelled placements.
    assert_eq!(checked, 16 + 128 + 1536 + 24576);
    assert!(equal > 0);
}

/// Every way to put `n` threads on distinct hardware threads of `model` (socket, core within
/// the socket, hardware thread), the first thread's place fixed to `first` when given.
fn every_placement_on_hardware_threads(
    model: &Ccnuma,
    n: usize,
    first: Option<u32>,
) -> Vec<Vec<modelopt_model::ccnuma::Place>> {
    let topo = &model.topology;
    let slots: Vec<_> = (0..topo.sockets)
        .flat_map(|s| {
            (0..topo.cores_per_socket)
                .flat_map(move |c| (0..topo.threads_per_core).map(move |h| (s, c, h)))
        })
        .map(|(s, c, h)| topo.place_of(s, c, h))
        .collect();
    let mut out = Vec::new();
    let mut chosen: Vec<usize> = Vec::new();
    // An odometer over injective choices (no recursion): chosen[i] is the slot of thread i.
    let mut next = vec![0usize; n];
    if let Some(f) = first {
        next[0] = f as usize;
    }
    loop {
        let i = chosen.len();
        if i == n {
            out.push(chosen.iter().map(|&k| slots[k]).collect());
            let Some(last) = chosen.pop() else { break };
            next[n - 1] = last + 1;
            continue;
        }
        let limit = if i == 0 && first.is_some() {
            first.map_or(0, |f| f as usize + 1)
        } else {
            slots.len()
        };
        match (next[i]..limit).find(|k| !chosen.contains(k)) {
            Some(k) => {
                chosen.push(k);
                if i + 1 < n {
                    next[i + 1] = 0;
                }
            }
            None => {
                let Some(last) = chosen.pop() else { break };
                next[i - 1] = last + 1;
            }
        }
    }
    out
}

/// The relaxation against the graph on every tree of up to `max_n` nodes and every placement
/// on the hardware threads of `model` (the root's fixed to the first when `root_fixed`):
/// (placements checked, those where the relaxation with a core each is above the graph, those
/// where the one for shared cores equals it).
fn shared_cores_relaxation_against_the_graph(
    model: &Ccnuma,
    max_n: usize,
    root_fixed: bool,
) -> (usize, usize, usize) {
    use modelopt_graph::socket_line_relaxation::Relaxation;
    use modelopt_model::socket_lines::evaluate;
    let shared = Relaxation::sharing_cores(model);
    let core_each = Relaxation::of(model);
    let topo = &model.topology;
    let units = topo.sockets * topo.domains_per_socket;
    let unit_sockets: Vec<u32> = (0..units).map(|u| u / topo.domains_per_socket).collect();
    let program = bcast();
    let (mut checked, mut above, mut equal) = (0, 0, 0);
    for n in 2..=max_n {
        let placements = every_placement_on_hardware_threads(model, n, root_fixed.then_some(0));
        for tree in all_trees(n) {
            for places in &placements {
                let (_, min, _) = analyze(&program, &tree, model, places).unwrap();
                let domains: Vec<u32> = places
                    .iter()
                    .map(|p| p.socket * topo.domains_per_socket + p.domain)
                    .collect();
                let relaxed = evaluate(&shared, &tree, &domains, &unit_sockets).unwrap();
                assert!(
                    relaxed <= min.total_ns + 1e-9,
                    "{tree} {places:?}: relaxed {relaxed} above the graph {}",
                    min.total_ns
                );
                if (relaxed - min.total_ns).abs() < 1e-9 {
                    equal += 1;
                }
                if evaluate(&core_each, &tree, &domains, &unit_sockets).unwrap()
                    > min.total_ns + 1e-9
                {
                    above += 1;
                }
                checked += 1;
            }
        }
    }
    (checked, above, equal)
}

#[test]
fn with_shared_cores_the_relaxation_is_below_the_graph_on_every_placement() {
    use modelopt_graph::socket_line_relaxation::Relaxation;
    use modelopt_model::socket_lines::evaluate;
    // docs/cla.md §13, "Shared cores": two hardware threads of one core pass a line at R_L, so
    // the relaxation with a core each (R_R within a domain) is no bound when threads share
    // cores; the one for shared cores is. One socket of 2 L3 domains × 2 cores × 2 hardware
    // threads (the chiplet machine's numbers: R_L 1.43, R_R 35, R_D 164.5, R_I 122 ns): every
    // recursive tree of up to 5 nodes, every placement of its nodes on distinct hardware
    // threads with the root on the first (the machine's symmetries move any root there).
    let text = include_str!("../../../machines/chiplet-2s-4x8.toml")
        .replace("sockets = 2", "sockets = 1")
        .replace("cores_per_socket = 32", "cores_per_socket = 4")
        .replace("domains_per_socket = 4", "domains_per_socket = 2")
        .replace("max_threads = 128", "max_threads = 8");
    let m = machine::from_text("chiplet-1x2x2-smt.toml", &text).unwrap();
    let model: &Ccnuma = m.model().unwrap();
    let (checked, above, equal) = shared_cores_relaxation_against_the_graph(model, 5, true);
    // 1·7 + 2·42 + 6·210 + 24·840 placements (7·6·…: the other nodes on the 7 other slots).
    assert_eq!(checked, 7 + 84 + 1260 + 20160);
    assert!(above > 0, "a shared core never mattered");
    assert!(equal > 0, "the relaxation never met the graph");
    // By hand, 0(1) with node 1 on the root's core: the root's R_L, its S3 (R_I), node 1 reads
    // the flag from its core sibling (R_L) and its S2 (R_L), adds to a fresh line (R_I), the
    // root reads it from its sibling (R_L): 1.43 + 122 + 2.86 + 122 + 1.43 = 249.72 ns, the
    // graph's too.
    let tree = RootedTree::parse("0(1)").unwrap();
    let topo = &model.topology;
    let places = [topo.place_of(0, 0, 0), topo.place_of(0, 0, 1)];
    let (_, min, _) = analyze(&bcast(), &tree, model, &places).unwrap();
    let shared = Relaxation::sharing_cores(model);
    let relaxed = evaluate(&shared, &tree, &[0, 0], &[0, 0]).unwrap();
    assert!((relaxed - 249.72).abs() < 1e-9, "{relaxed}");
    assert!((min.total_ns - 249.72).abs() < 1e-9, "{}", min.total_ns);
    // By hand, the chain of adds: 0(1,2,3), the root on domain 1, its children on domain 0's
    // two cores (core 0's two threads and core 1's first). Each child arrives at R_D + R_L =
    // 165.93 after the root's S3; of the 2 steps of the chain at most 3 − ⌈3/2⌉ = 1 stays on
    // a core (R_L), the other crosses cores (R_R); the root reads from another domain (R_D):
    // 1.43 + 122 + 165.93 + (122 + 1.43 + 35) + 164.5 = 612.29 ns, the graph's too (one R_L
    // more in the chain would be 578.72, no longer the graph's).
    let tree = RootedTree::parse("0(1,2,3)").unwrap();
    let places = [
        topo.place_of(0, 2, 0),
        topo.place_of(0, 0, 0),
        topo.place_of(0, 0, 1),
        topo.place_of(0, 1, 0),
    ];
    let (_, min, _) = analyze(&bcast(), &tree, model, &places).unwrap();
    let relaxed = evaluate(&shared, &tree, &[1, 0, 0, 0], &[0, 0]).unwrap();
    assert!((relaxed - 612.29).abs() < 1e-9, "{relaxed}");
    assert!((min.total_ns - 612.29).abs() < 1e-9, "{}", min.total_ns);
}

#[test]
fn with_shared_cores_the_relaxation_is_below_the_graph_across_sockets() {
    // The same on 2 sockets × 2 L3 domains × 1 core × 2 hardware threads (R_Q 223.5, R_QI
    // 159 ns): every tree of up to 4 nodes, every placement on distinct hardware threads.
    let text = include_str!("../../../machines/chiplet-2s-4x8.toml")
        .replace("cores_per_socket = 32", "cores_per_socket = 2")
        .replace("domains_per_socket = 4", "domains_per_socket = 2")
        .replace("max_threads = 128", "max_threads = 8");
    let m = machine::from_text("chiplet-2x2x1-smt.toml", &text).unwrap();
    let model: &Ccnuma = m.model().unwrap();
    let (checked, above, equal) = shared_cores_relaxation_against_the_graph(model, 4, false);
    // 1·8·7 + 2·8·7·6 + 6·8·7·6·5 placements.
    assert_eq!(checked, 56 + 672 + 10080);
    assert!(above > 0 && equal > 0, "above {above}, equal {equal}");
}

/// The chiplet machine on 1 socket × 2 L3 domains × 2 cores × 2 hardware threads with its
/// line classes set to `line` (key, ns) in `[line]`.
fn smt_chiplet_with(line: &[(&str, f64)]) -> Machine {
    let base = include_str!("../../../machines/chiplet-2s-4x8.toml")
        .replace("sockets = 2", "sockets = 1")
        .replace("cores_per_socket = 32", "cores_per_socket = 4")
        .replace("domains_per_socket = 4", "domains_per_socket = 2")
        .replace("max_threads = 128", "max_threads = 8");
    let mut out = String::new();
    for text in base.lines() {
        let key = text.split([' ', '=']).next().unwrap_or("");
        match line.iter().find(|(k, _)| *k == key) {
            Some((_, v)) if text.contains("value = ") => {
                let start = text.find("value = ").unwrap() + "value = ".len();
                let end = start + text[start..].find(',').unwrap();
                out.push_str(&format!("{}{v:?}{}\n", &text[..start], &text[end..]));
            }
            _ => out.push_str(&format!("{text}\n")),
        }
    }
    machine::from_text("random-smt-chiplet.toml", &out).unwrap()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// The relaxation for shared cores on random line classes (R_L ≤ R_R ≤ R_D, R_I): never
    /// above the graph on any tree of up to 4 nodes and any placement on the hardware threads
    /// of 1 socket × 2 L3 domains × 2 cores × 2 threads.
    #[test]
    fn with_shared_cores_the_relaxation_is_below_the_graph_on_random_classes(
        local in 0.5f64..5.0,
        steps in proptest::array::uniform2(0.0f64..150.0),
        invalid in 20.0f64..200.0,
    ) {
        let remote = local + 5.0 + steps[0];
        let m = smt_chiplet_with(&[
            ("local", local),
            ("remote", remote),
            ("remote_domain", remote + steps[1]),
            ("remote_socket", remote + steps[1] + 10.0),
            ("invalid", invalid),
            ("invalid_remote_socket", invalid + 10.0),
        ]);
        let model: &Ccnuma = m.model().unwrap();
        let (checked, _, _) = shared_cores_relaxation_against_the_graph(model, 4, true);
        proptest::prop_assert_eq!(checked, 7 + 84 + 1260);
    }
}
