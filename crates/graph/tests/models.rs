//! The bundled models build, and malformed programs and trees give clear errors.

use modelopt_graph::{analyze, default_places, parse::parse, GraphError, Report};
use modelopt_model::ccnuma::{tree::RootedTree, Ccnuma};
use modelopt_model::machine;

fn run(file: &str, text: &str, tree: &str) -> Result<Report, GraphError> {
    let m = machine::load("sandy-bridge-e5-2660").unwrap();
    let sandy: &Ccnuma = m.model().unwrap();
    let program = parse(file, text)?;
    let tree = RootedTree::parse(tree).map_err(|source| GraphError::Tree {
        tree: tree.to_string(),
        source,
    })?;
    let places = default_places(sandy, tree.len() as u32);
    let (g, min, max) = analyze(&program, &tree, sandy, &places)?;
    Ok(Report::new(&g, &m.name, &tree.nested(), &min, &max))
}

#[test]
fn barrier_on_figure_2_tree() {
    // Arrival: t3 adds ack[1,0] (R_I = 70), t1 waits (R_R) -> 105; t1 adds ack[0,0] and t2 adds
    // ack[0,0] (E3: R_I + R_R), t0 waits (R_R) -> 105 + 70 + 35 + 35 = 245.
    // Release: t0 writes go[0] (R_I) -> 315; t1 polls (R_R) -> 350; t1 writes go[1] (R_I) -> 420;
    // t3 polls (R_R) -> 455.
    let r = run(
        "models/barrier.cla",
        include_str!("../../../models/barrier.cla"),
        "0(1(3),2)",
    )
    .unwrap();
    assert!((r.t_min_ns - 455.0).abs() < 1e-9, "{}", r.to_text());
    assert!(r.t_max_ns > r.t_min_ns);
    assert_eq!(
        r.edges
            .iter()
            .filter(|e| e.kind == modelopt_graph::EdgeKind::E3)
            .count(),
        1
    );
}

#[test]
fn small_reduce_uses_a_multi_line_copy() {
    let r = run(
        "models/small-reduce.cla",
        include_str!("../../../models/small-reduce.cla"),
        "0(1,2,3)",
    )
    .unwrap();
    // The root reads its three children's slots with one 3-line copy: Eq. (1) intra socket,
    // 63.4 + 3 * 11.1 = 96.7 ns.
    let copy = r
        .nodes
        .iter()
        .find(|n| n.thread == 0 && n.op.starts_with("copy slot[0,*]"))
        .unwrap();
    assert!((copy.cost_min_ns - 96.7).abs() < 1e-9, "{}", r.to_text());
    assert!(r.critical_path.contains(&copy.id));
    let dot = r.to_dot();
    assert!(dot.starts_with("digraph cla {") && dot.contains("penwidth=3"));
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains("\"t_min_ns\""));
}

#[test]
fn malformed_programs_and_trees_are_clear_errors() {
    let bcast = include_str!("../../../models/one-line-bcast.cla");
    let cycle = run("b.cla", bcast, "[-1,2,1]").unwrap_err().to_string();
    assert!(cycle.contains("cycle"), "{cycle}");
    let missing = run("b.cla", bcast, "0(1,3)").unwrap_err().to_string();
    assert!(missing.contains("node 2 is missing"), "{missing}");
    let big: String = format!(
        "0({})",
        (1..40).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    );
    let too_many = run("b.cla", bcast, &big).unwrap_err().to_string();
    assert!(too_many.contains("runs at most 32 threads"), "{too_many}");
    let one = run("b.cla", bcast, "0").unwrap_err().to_string();
    assert!(one.contains("at least 2 threads"), "{one}");
    // A wait nobody satisfies: the deadlock names the thread, the file line and the value.
    let stuck = "cla stuck\nline f[t] memory thread=t\nrole root\n  wait f[me] == 1\nrole leaf\n  wait f[parent] == 2\n";
    let e = run("stuck.cla", stuck, "0(1)").unwrap_err().to_string();
    assert_eq!(
        e,
        "the program deadlocks: thread 0 at stuck.cla:4: `wait f[0] == 1` (value 0); thread 1 at stuck.cla:6: `wait f[0] == 2` (value 0)"
    );
    // `parent` of the root.
    let bad = "cla bad\nline f[t] memory thread=t\nrole root\n  write f[parent] 1\n";
    let e = run("bad.cla", bad, "0(1)").unwrap_err().to_string();
    assert_eq!(
        e,
        "bad.cla:4:3: in thread 0: `parent` is undefined: thread 0 is the root"
    );
    let syntax = run(
        "s.cla",
        "cla s\nline f[t] memory thread=t\nrole root\n  write f[me 1\n",
        "0(1)",
    )
    .unwrap_err()
    .to_string();
    assert_eq!(syntax, "s.cla:4:14: expected `,`, found `1`");
}

#[test]
fn bcast_text_lists_the_critical_path() {
    let r = run(
        "models/one-line-bcast.cla",
        include_str!("../../../models/one-line-bcast.cla"),
        "0(1(3),2)",
    )
    .unwrap();
    let text = r.to_text();
    assert!(text.contains("t_min     461.900 ns"), "{text}");
    assert!(
        text.contains("  t0 wait ack[0,0] == 2                 +  35.000 =   461.900 ns"),
        "{text}"
    );
    assert!(
        text.contains("  t2 add ack[0,0] 1                     +  35.000 =   426.900 ns"),
        "{text}"
    );
}

#[test]
fn simultaneous_inter_socket_copies_congest_the_qpi() {
    // Two threads on socket 1 copy two different 4-line buffers of thread 0 (socket 0) at the
    // same time: Eq. (1) inter socket with n = 2, 180.65 + 7.5·4 + 3·2·4 = 234.65 ns each. Alone,
    // one copy costs 180.65 + 30 + 12 = 222.65 ns.
    let m = machine::load("sandy-bridge-e5-2660").unwrap();
    let sandy: &Ccnuma = m.model().unwrap();
    let text = "cla congest\nline src[i] cache thread=0\nline dst[t] cache thread=t\nline go memory socket=0\nrole root\n  write go 1\nrole leaf\n  wait go == 1\n  copy src[rank] -> dst[me] 4\n";
    let program = parse("congest.cla", text).unwrap();
    let copy_cost = |tree: &str, sockets: &[u32]| {
        let tree = RootedTree::parse(tree).unwrap();
        let places = modelopt_graph::places_on_sockets(sandy, sockets).unwrap();
        let (g, min, _) = analyze(&program, &tree, sandy, &places).unwrap();
        (0..g.len())
            .filter(|&i| g.node(i).text.starts_with("copy"))
            .map(|i| min.cost[i])
            .collect::<Vec<f64>>()
    };
    for c in copy_cost("0(1,2)", &[0, 1, 1]) {
        assert!((c - 234.65).abs() < 1e-9, "{c}");
    }
    let alone = copy_cost("0(1)", &[0, 1]);
    assert!((alone[0] - 222.65).abs() < 1e-9, "{alone:?}");
    // Within a socket there is no congestion (c = 0): 63.4 + 11.1·4 = 107.8 ns.
    for c in copy_cost("0(1,2)", &[0, 0, 0]) {
        assert!((c - 107.8).abs() < 1e-9, "{c}");
    }
}

#[test]
fn unrelated_write_to_a_polled_line_is_e4_stealing() {
    // Thread 1 polls f until the root's write; thread 2 adds to f on its own, unrelated to that
    // wait and concurrent with it: an E4 edge, and in T_max the add pays one round trip with
    // the poller (R_R + R_R = 70 ns on one socket) on top of its T_min cost.
    // `for i in rank..1` runs in the first child only, `for i in 1..rank+1` in the others.
    let text = "cla e4\nline f memory socket=0\nrole root\n  write f 1\nrole leaf\n  for i in rank..1: wait f >= 1\n  for i in 1..rank+1: add f 1\n";
    let r = run("e4.cla", text, "0(1,2)").unwrap();
    let e4: Vec<_> = r
        .edges
        .iter()
        .filter(|e| e.kind == modelopt_graph::EdgeKind::E4)
        .collect();
    assert_eq!(e4.len(), 1, "{:?}", r.edges);
    let add = r
        .nodes
        .iter()
        .find(|n| n.thread == 2 && n.op.starts_with("add"))
        .unwrap();
    assert!(
        add.cost_max_ns >= add.cost_min_ns + 70.0 - 1e-9,
        "{}",
        r.to_text()
    );
}
