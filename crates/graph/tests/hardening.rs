//! Regression tests of issue 12 ("Hardening"), each named after what it caught and each running
//! the real failing input (the big ones are generated here). Before the fixes, the first three
//! aborted the process with a stack overflow (exit 134), the FIFO blocked forever, and the home
//! socket out of range was accepted and changed T_min.

use modelopt_graph::error::InputError;
use modelopt_graph::program::*;
use modelopt_graph::{analyze, default_places, parse::load, parse::parse, GraphError};
use modelopt_model::ccnuma::{tree::RootedTree, Ccnuma};
use modelopt_model::machine;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// `cla x`, one line family, a root block, then `  write a[me] EXPR`: the expression starts at
/// column 15 of line 4 (`  write a[me] ` is 14 characters).
fn with_expression(expr: &str) -> String {
    format!("cla x\nline a[t] memory thread=t\nrole root\n  write a[me] {expr}\n")
}

fn run(text: &str, tree: &str) -> Result<modelopt_graph::Report, GraphError> {
    let m = machine::load("sandy-bridge-e5-2660").unwrap();
    let sandy: &Ccnuma = m.model().unwrap();
    let program = parse("x.cla", text)?;
    let tree = RootedTree::parse(tree).unwrap();
    let places = default_places(sandy, tree.len() as u32);
    let (g, min, max) = analyze(&program, &tree, sandy, &places)?;
    Ok(modelopt_graph::Report::new(
        &g,
        &m.name,
        &tree.nested(),
        &min,
        &max,
    ))
}

/// Run `f` on a thread with a 2 MiB stack and fail if it takes longer than `limit` (so a
/// regression to a hang fails the test instead of blocking it).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .unwrap();
    rx.recv_timeout(limit)
        .unwrap_or_else(|e| panic!("did not finish within {limit:?}: {e}"))
}

#[test]
fn regression_20000_nested_parentheses_is_an_error_not_an_abort() {
    let text = with_expression(&format!("{}1{}", "(".repeat(20_000), ")".repeat(20_000)));
    let e = within(Duration::from_secs(10), move || {
        parse("x.cla", &text).unwrap_err().to_string()
    });
    // The 257th `(` opens level 257: column 15 + 256 = 271.
    assert_eq!(
        e,
        "x.cla:4:271: expression nested more than 256 levels deep (parentheses, unary minus and \
         calls each open a level)"
    );
}

#[test]
fn regression_50000_unary_minus_signs_is_an_error_not_an_abort() {
    let text = with_expression(&format!("{}1", "-".repeat(50_000)));
    let e = within(Duration::from_secs(10), move || {
        parse("x.cla", &text).unwrap_err().to_string()
    });
    // Same count as the parentheses: the 257th `-` at column 15 + 256 = 271.
    assert_eq!(
        e,
        "x.cla:4:271: expression nested more than 256 levels deep (parentheses, unary minus and \
         calls each open a level)"
    );
}

#[test]
fn regression_100000_term_sum_is_a_located_error_not_an_abort() {
    let text = with_expression(&vec!["1"; 100_000].join("+"));
    let e = within(Duration::from_secs(10), move || {
        parse("x.cla", &text).unwrap_err().to_string()
    });
    // Term k sits at column 15 + 2(k-1), the k-th `+` at 16 + 2(k-1). A chain nests one level
    // per operator: after the 256th `+` the tree is 257 levels tall. Column 16 + 2*255 = 526.
    assert_eq!(
        e,
        "x.cla:4:526: expression more than 256 operations deep (a chain `a + b + c ...` nests one \
         level per operator)"
    );
}

#[test]
fn regression_256_term_sum_still_evaluates() {
    // 256 terms: 255 operators, 256 levels, the limit itself: accepted, and 256 ones add to 256.
    let r = run(&with_expression(&vec!["1"; 256].join("+")), "0(1)").unwrap();
    assert_eq!(r.nodes[0].op, "write a[0] 256");
    // 256 nested parentheses and 255 minus signs (+ the literal: 256 levels) are accepted too;
    // an odd count of minus signs negates.
    let r = run(
        &with_expression(&format!("{}7{}", "(".repeat(256), ")".repeat(256))),
        "0(1)",
    )
    .unwrap();
    assert_eq!(r.nodes[0].op, "write a[0] 7");
    let r = run(&with_expression(&format!("{}7", "-".repeat(255))), "0(1)").unwrap();
    assert_eq!(r.nodes[0].op, "write a[0] -7");
}

#[test]
fn regression_deep_expression_built_with_the_api_is_refused() {
    // The builder bypasses the parser; `check` (run by `build` and by `instantiate`) measures
    // the depth without recursion. 300 minus signs over a literal: 301 levels.
    let mut e = Expr::Int(1);
    for _ in 0..300 {
        e = Expr::Neg(Box::new(e));
    }
    assert_eq!(e.depth(), 301);
    let err = Program::builder("deep")
        .line("a", &["t"], Initial::MemoryOfThread(Expr::var("t")))
        .op(Op::write(LineRef::new("a", [Expr::Me]), e))
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "builder:0:0: expression 301 levels deep; at most 256 are allowed"
    );
}

#[test]
fn regression_fifo_as_cla_program_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("program.cla");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let path = fifo.clone();
    // Before the fix the read blocked forever (no writer ever opens the FIFO).
    let e = within(Duration::from_secs(10), move || load(&path).unwrap_err());
    assert_eq!(
        e,
        GraphError::Input(InputError::NotRegular {
            path: fifo.display().to_string(),
            kind: "FIFO"
        })
    );
    assert_eq!(
        e.to_string(),
        format!(
            "{}: is a FIFO, not a regular file (refused without reading it)",
            fifo.display()
        )
    );
}

#[test]
fn regression_character_device_as_cla_program_is_refused() {
    // /dev/zero never ends: refused before reading.
    let e = within(Duration::from_secs(10), || {
        load(std::path::Path::new("/dev/zero")).unwrap_err()
    });
    assert_eq!(
        e.to_string(),
        "/dev/zero: is a character device, not a regular file (refused without reading it)"
    );
}

#[test]
fn regression_invalid_utf8_names_line_and_byte_offset() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.cla");
    // Line 1 "cla x\n" is 6 bytes; line 2 "line a[t] " is 10 bytes, then the bad byte 0xE9
    // (Latin-1 é) at byte 11 of line 2, offset 16 of the file.
    std::fs::write(&file, b"cla x\nline a[t] \xE9memory thread=t\n").unwrap();
    let e = load(&file).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}:2:11: invalid UTF-8 at byte offset 16 of the file (the column counts bytes)",
            file.display()
        )
    );
}

#[test]
fn regression_home_socket_out_of_range() {
    let program = |home: &str| {
        format!("cla home\nline flag[s] memory socket={home}\nrole root\n  write flag[0] 1\n")
    };
    // The Sandy Bridge has sockets 0 and 1: socket=s+1 homes flag[0] on socket 1, accepted.
    // Root on socket 0, flag homed on socket 1: the write fetches from remote memory, R_QI =
    // 107 ns.
    let ok = run(&program("s+1"), "0(1)").unwrap();
    assert_eq!(ok.t_min_ns, 107.0);
    // socket=s+1000 was accepted and priced as remote memory; now it is refused at the op that
    // first uses the line (line 4, column 3), naming the family's declaration.
    let e = run(&program("s+1000"), "0(1)").unwrap_err().to_string();
    assert_eq!(
        e,
        "x.cla:4:3: in thread 0: line `flag[0]` (family declared at line 2): socket 1000 does \
         not exist (sandy-bridge-e5-2660 has sockets 0..2)"
    );
    let e = run(&program("s+2"), "0(1)").unwrap_err().to_string();
    assert!(e.contains("socket 2 does not exist"), "{e}");
    let e = run(&program("s-1"), "0(1)").unwrap_err().to_string();
    assert!(e.contains("socket -1 does not exist"), "{e}");
}

#[test]
fn regression_309_digit_number_is_not_printed_in_full() {
    let e = parse("x.cla", &with_expression(&"9".repeat(309)))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "x.cla:4:15: number `{}… [309 characters]` is too large (at most 9223372036854775807)",
            "9".repeat(40)
        )
    );
}

#[test]
fn regression_long_identifier_is_not_printed_in_full() {
    let name = "x".repeat(100_000);
    let e = parse("x.cla", &with_expression(&name))
        .unwrap_err()
        .to_string();
    assert!(e.len() < 300, "{}", &e[..300]);
    assert!(e.contains("[100000 characters]"), "{e}");
}

#[test]
fn regression_program_without_operations_has_an_empty_critical_path() {
    // Found by fuzz_cla (token soup of length 0): the critical-path walk indexed an empty graph.
    let r = run(
        "cla empty\nline a[t] memory thread=t\nrole root inner leaf\n",
        "0(1(3),2)",
    )
    .unwrap();
    assert!(r.nodes.is_empty());
    assert!(r.critical_path.is_empty());
    assert_eq!(r.t_min_ns, 0.0);
}

#[test]
fn regression_a_million_op_loop_is_refused_not_built() {
    let text = "cla big\nline a[t] memory thread=t\nrole root leaf\n  for i in 0..1000000: write a[me] 1\n";
    let e = within(Duration::from_secs(10), move || {
        run(text, "0(1)").unwrap_err().to_string()
    });
    assert_eq!(
        e,
        "x.cla:4:3: in thread 0: loop range 0..1000000 has 1000000 values; with the 0 operations \
         before it the instance would exceed 100000 operations"
    );
}

#[test]
fn regression_quadratic_line_stealing_is_refused_up_front() {
    // 8 threads each add 3000 times to one line and wait on it 100 times: 800 waits x 21,000
    // writes by other threads = 16.8 million (wait, write) pairs, each a search of a graph of
    // ~25,000 nodes. It ran for minutes; now it is refused before the search. The estimate is
    // 2 searches per pair over nodes + edges: 24,800 nodes (8 x 3,100 ops), 24,792 E1 edges
    // (8 x 3,099) and no E2 edge (each thread's own adds touched the line after the others'
    // writes, so its waits have no new sources): 16,800,000 x 2 x 49,592 = 1,666,291,200,000.
    let text = "cla stress\nline a[t] memory thread=t\nrole root inner leaf\n  for i in 0..3000: add a[0] 1\n  for i in 0..100: wait a[0] >= 0\n";
    let started = Instant::now();
    let e = within(Duration::from_secs(60), move || {
        run(text, "0(1,2,3,4,5,6,7)").unwrap_err()
    });
    assert!(
        matches!(
            e,
            GraphError::TooLarge {
                limit: 100_000_000,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().starts_with(
        "the CLa graph is too large to analyse: line stealing (E4 edges between waits and writes \
         of one line) needs more than the limit of 100000000 steps (1666291200000 estimated"
    ));
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn regression_many_index_variables_are_refused() {
    let vars: Vec<String> = (0..17).map(|i| format!("v{i}")).collect();
    let text = format!("cla x\nline a[{}] memory thread=v0\n", vars.join(","));
    // `line a[` is 7 characters; v0..v9 take 3 characters each with the comma, v10..v15 four:
    // v16 starts at column 8 + 10*3 + 6*4 = 62.
    assert_eq!(
        parse("x.cla", &text).unwrap_err().to_string(),
        "x.cla:2:62: a line family has at most 16 index variables"
    );
}

#[test]
fn regression_deadlock_of_many_threads_names_at_most_8() {
    // Every non-root thread waits for a flag nobody writes: 9 blocked threads on a star of 10.
    let text = "cla stuck\nline a[t] memory thread=t\nrole leaf\n  wait a[parent] == 1\n";
    let e = run(text, "0(1,2,3,4,5,6,7,8,9)").unwrap_err().to_string();
    assert!(e.starts_with("the program deadlocks: thread 1 at x.cla:4: `wait a[0] == 1` (value 0)"));
    assert!(e.ends_with("; and 1 more blocked threads"), "{e}");
}

#[test]
fn regression_overflow_in_a_long_expression_is_not_printed_in_full() {
    // i64::MAX + 0 + ... + 0 + 1: 200 terms, the overflow happens at the last `+`, whose
    // expression is the whole chain. It prints as 199 `(a + b)` wrappings of 5 characters each
    // around the terms (19 + 198 * 1 + 1 = 218 characters): 995 + 218 = 1,213 characters. The
    // error shows the first 40 (all `(`) and the length.
    let mut terms = vec!["0"; 200];
    terms[0] = "9223372036854775807";
    terms[199] = "1";
    let e = run(&with_expression(&terms.join("+")), "0(1)")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "x.cla:4:3: in thread 0: integer overflow in `{}… [1213 characters]`",
            "(".repeat(40)
        )
    );
}

#[test]
fn regression_million_level_expression_built_in_code_prints_and_drops_without_recursion() {
    // The parser never builds a tree taller than 256 levels, but code can. Measuring, printing,
    // refusing and dropping one of a million levels must not overflow a 2 MiB stack.
    let (depth, printed, error) = within(Duration::from_secs(30), || {
        let mut neg = Expr::Int(1);
        for _ in 0..1_000_000 {
            neg = Expr::Neg(Box::new(neg));
        }
        let mut sum = Expr::Int(1);
        for _ in 0..1_000_000 {
            sum = Expr::Bin(BinOp::Add, Box::new(sum), Box::new(Expr::Int(1)));
        }
        let printed = neg.to_string();
        let depth = sum.depth();
        let error = Program::builder("deep")
            .line("a", &["t"], Initial::MemoryOfThread(Expr::var("t")))
            .op(Op::write(LineRef::new("a", [Expr::Me]), sum))
            .build()
            .unwrap_err()
            .to_string();
        (depth, printed, error)
    });
    // A million `+` over a literal: 1,000,001 levels; a million `-` then `1`.
    assert_eq!(depth, 1_000_001);
    assert_eq!(printed.len(), 1_000_001);
    assert!(printed.starts_with("---") && printed.ends_with("-1"));
    assert_eq!(
        error,
        "builder:0:0: expression 1000001 levels deep; at most 256 are allowed"
    );
}

#[test]
fn regression_program_over_1_mib_is_refused_unparsed() {
    // A 1 MiB + 1 byte line of `1+1+...` would hold ~40 bytes of tokens per byte in the parser.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.cla");
    std::fs::write(&file, "1+".repeat(512 * 1024) + "1").unwrap();
    assert_eq!(
        load(&file).unwrap_err().to_string(),
        format!("{}: larger than the limit of 1048576 bytes", file.display())
    );
}

#[test]
fn regression_file_name_with_a_newline_keeps_the_error_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two\nlines.cla");
    std::fs::write(&file, "cla x\nrole boss\n").unwrap();
    let e = load(&file).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}/two\\nlines.cla:2:6: unknown role `boss` (expected root, inner or leaf)",
            dir.path().display()
        )
    );
}
