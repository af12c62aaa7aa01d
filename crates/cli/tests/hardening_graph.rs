//! Regression tests of issue 12 ("Hardening") for `modelopt graph`, run as a user runs the
//! binary, each named after what it caught. Every run has a timeout, so a regression to a hang
//! fails instead of blocking the test suite.

use assert_cmd::Command;
use std::time::Duration;

const SANDY: &str = "sandy-bridge-e5-2660";

fn model_file(name: &str) -> String {
    format!("{}/../../models/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn modelopt(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("modelopt")
        .unwrap()
        .args(args)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap()
}

/// A user error: exit code 2 (not 134, an abort; not a timeout), one line on stderr, returned.
fn one_line_error(args: &[&str]) -> String {
    let out = modelopt(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "not one line: {stderr}");
    stderr.trim_end().to_string()
}

fn write_program(dir: &std::path::Path, expr: &str) -> String {
    let path = dir.join("deep.cla");
    std::fs::write(
        &path,
        format!("cla x\nline a[t] memory thread=t\nrole root\n  write a[me] {expr}\n"),
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn regression_20000_nested_parentheses_exit_2_not_134() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_program(
        dir.path(),
        &format!("{}1{}", "(".repeat(20_000), ")".repeat(20_000)),
    );
    let e = one_line_error(&["graph", &file, "-m", SANDY, "--tree", "0(1)"]);
    // `  write a[me] ` is 14 characters; the 257th `(` is at column 15 + 256 = 271.
    assert_eq!(
        e,
        format!(
            "modelopt: error: {file}:4:271: expression nested more than 256 levels deep \
             (parentheses, unary minus and calls each open a level)"
        )
    );
}

#[test]
fn regression_50000_unary_minus_and_100000_term_sum_exit_2_not_134() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_program(dir.path(), &format!("{}1", "-".repeat(50_000)));
    let e = one_line_error(&["graph", &file, "-m", SANDY, "--tree", "0(1)"]);
    assert!(e.ends_with(":4:271: expression nested more than 256 levels deep (parentheses, unary minus and calls each open a level)"), "{e}");
    let file = write_program(dir.path(), &vec!["1"; 100_000].join("+"));
    let e = one_line_error(&["graph", &file, "-m", SANDY, "--tree", "0(1)"]);
    // The 256th `+` is at column 16 + 2 * 255 = 526.
    assert!(e.ends_with(":4:526: expression more than 256 operations deep (a chain `a + b + c ...` nests one level per operator)"), "{e}");
}

fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn regression_fifo_as_cla_program_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("program.cla");
    mkfifo(&fifo);
    let f = fifo.display().to_string();
    // Before the fix the command blocked forever on the read; the timeout catches a regression.
    let e = one_line_error(&["graph", &f, "-m", SANDY, "--tree", "0(1)"]);
    assert_eq!(
        e,
        format!("modelopt: error: {f}: is a FIFO, not a regular file (refused without reading it)")
    );
}

#[test]
fn regression_fifo_as_tree_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("tree.txt");
    mkfifo(&fifo);
    let f = fifo.display().to_string();
    let bcast = model_file("one-line-bcast.cla");
    let e = one_line_error(&["graph", &bcast, "-m", SANDY, "--tree", &format!("@{f}")]);
    assert_eq!(
        e,
        format!("modelopt: error: {f}: is a FIFO, not a regular file (refused without reading it)")
    );
}

#[test]
fn tree_read_from_a_file_gives_figure_2() {
    // docs/cla.md §7: the one-line broadcast on 0(1(3),2), one socket: T_min = 461.9 ns. A tree
    // file may span lines.
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree.txt");
    std::fs::write(&tree, "0(1(3),\n  2)\n").unwrap();
    let out = modelopt(&[
        "graph",
        &model_file("one-line-bcast.cla"),
        "-m",
        SANDY,
        "--tree",
        &format!("@{}", tree.display()),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("t_min     461.900 ns"), "{text}");
    assert!(text.contains("tree 0(1(3),2) (4 threads)"), "{text}");
}

#[test]
fn regression_tree_file_syntax_error_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree.txt");
    // Line 2 is `  2 x)`: after the node id 2 the parser wants `,` or `)` and finds `x` at
    // column 5.
    std::fs::write(&tree, "0(1(3),\n  2 x)\n").unwrap();
    let t = tree.display().to_string();
    let e = one_line_error(&[
        "graph",
        &model_file("one-line-bcast.cla"),
        "-m",
        SANDY,
        "--tree",
        &format!("@{t}"),
    ]);
    assert_eq!(e, format!("modelopt: error: {t}:2:5: expected `,` or `)`"));
}

#[test]
fn regression_rejected_20000_node_tree_is_not_echoed_in_full() {
    // A star 0(1,...,19999) is 2 + 88,889 digits + 19,998 commas + 1 = 108,890 characters
    // (digits: 9 one-digit ids, 90 two-digit, 900 three-digit, 9,000 four-digit and 10,000
    // five-digit ones).
    let star = format!(
        "0({})",
        (1..20_000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    assert_eq!(star.len(), 108_890);
    let e = one_line_error(&[
        "graph",
        &model_file("one-line-bcast.cla"),
        "-m",
        SANDY,
        "--tree",
        &star,
    ]);
    assert_eq!(
        e,
        format!(
            "modelopt: error: tree `{}… [108890 characters]` has 20000 nodes but \
             sandy-bridge-e5-2660 runs at most 32 threads",
            &star[..40]
        )
    );
    // From a file, the error names the file.
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("star.txt");
    std::fs::write(&tree, &star).unwrap();
    let t = tree.display().to_string();
    let e = one_line_error(&[
        "graph",
        &model_file("one-line-bcast.cla"),
        "-m",
        SANDY,
        "--tree",
        &format!("@{t}"),
    ]);
    assert_eq!(
        e,
        format!(
            "modelopt: error: tree from {t} has 20000 nodes but sandy-bridge-e5-2660 runs at \
             most 32 threads"
        )
    );
}

#[test]
fn regression_home_socket_out_of_range_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bundled = std::fs::read_to_string(model_file("one-line-bcast.cla")).unwrap();
    let with_home = |home: &str, name: &str| {
        let file = dir.path().join(name);
        let text = bundled.replace("memory group=g ", &format!("memory {home} "));
        assert!(text.contains(home));
        std::fs::write(&file, text).unwrap();
        file.display().to_string()
    };
    // The synchronization group is the socket on the E5-2660. Thread 0 first touches ack[0,0]
    // in `for g in child_groups: wait ack[me,g] == ...`.
    let f = with_home("group=g+1000", "group.cla");
    let e = one_line_error(&["graph", &f, "-m", SANDY, "--tree", "0(1(3),2)"]);
    assert!(
        e.contains("in thread 0: line `ack[0,0]` (family declared at line 13): socket 1000 does not exist (sandy-bridge-e5-2660 has sockets 0..2)"),
        "{e}"
    );
    let f = with_home("socket=g+1000", "socket.cla");
    let e = one_line_error(&["graph", &f, "-m", SANDY, "--tree", "0(1(3),2)"]);
    assert!(e.contains("socket 1000 does not exist"), "{e}");
    // An L3 domain is numbered across sockets: 2 × 4 on the chiplet machine.
    let f = with_home("domain=g+1000", "domain.cla");
    let e = one_line_error(&["graph", &f, "-m", "chiplet-2s-4x8", "--tree", "0(1(3),2)"]);
    assert!(
        e.contains("L3 domain 1000 does not exist (chiplet-2s-4x8 has domains 0..8)"),
        "{e}"
    );
}

#[test]
fn regression_graph_listing_labels_e3_costs_and_finishes() {
    let out = modelopt(&[
        "graph",
        &model_file("one-line-bcast.cla"),
        "-m",
        SANDY,
        "--tree",
        "0(1(3),2)",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "    node  operation                          T_min cost     T_max cost T_min finish"
        ),
        "{text}"
    );
    // docs/cla.md §7: t2's add to ack[0,0] is an E3 write. On the critical path the group is
    // entered at t1's add (the later start) and t2's add follows it, fetching the line from t1:
    // R_R = 35 ns. Its own first-come cost is the RFO of the fresh flag from memory, R_I = 70, so
    // it finishes at its start 109.6 + 70 = 179.6 ns.
    assert!(
        text.contains(
            "  > n8    add ack[0,0] 1                         35.000  E3     35.000      179.600  (E3 write: first-come cost 70.000)"
        ),
        "{text}"
    );
    assert!(text.contains("E3 writes: their T_min cost is the cost in the visiting order"));
}
