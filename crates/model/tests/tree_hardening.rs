//! Regression tests of issue 12 ("Hardening") for the tree text forms, each named after what it
//! caught and each running the real input (generated here).

use modelopt_model::ccnuma::tree::{RootedTree, TreeError};
use std::sync::mpsc;
use std::time::Duration;

/// Run `f` on a thread with a 2 MiB stack; fail if it takes longer than `limit`.
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
fn regression_20000_deep_nested_tree_parses_without_recursion() {
    // A path 0(1(2(...(19999)))) is 20,000 levels of parentheses.
    let mut text = String::new();
    for i in 0..20_000 {
        text.push_str(&format!("{i}("));
    }
    text.pop();
    text.push_str(&")".repeat(19_999));
    let tree = within(Duration::from_secs(10), move || {
        RootedTree::parse(&text).unwrap()
    });
    assert_eq!(tree.len(), 20_000);
    assert_eq!(tree.depths()[19_999], 19_999);
}

#[test]
fn regression_20000_unclosed_parentheses_is_an_error() {
    let text = format!("0{}", "(".repeat(20_000));
    let e = within(Duration::from_secs(10), move || {
        RootedTree::parse(&text).unwrap_err().to_string()
    });
    // After `0(` the parser wants a node id at column 3 and finds `(`.
    assert_eq!(e, "column 3: expected a node id (a thread number)");
}

#[test]
fn regression_long_cycle_in_parent_array_is_found_in_linear_time() {
    // Node 0 is the root; 1 -> 2 -> ... -> n-1 -> 1 is a cycle of n - 1 nodes. The walk that
    // finds it searched its own path at every step: quadratic, hours at this size.
    let n = 300_000usize;
    let mut parents = vec!["-1".to_string()];
    parents.extend((1..n).map(|i| if i + 1 < n { i + 1 } else { 1 }.to_string()));
    let text = format!("[{}]", parents.join(","));
    let e = within(Duration::from_secs(20), move || {
        RootedTree::parse(&text).unwrap_err()
    });
    match &e {
        TreeError::Cycle(nodes) => assert_eq!(nodes.len(), n - 1),
        other => panic!("{other}"),
    }
    // The message names the first 10 nodes of the cycle and its size, not 299,999 numbers.
    assert_eq!(
        e.to_string(),
        "nodes [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]… [299999 nodes] form a cycle"
    );
}

#[test]
fn regression_huge_node_id_is_not_printed_in_full() {
    let e = RootedTree::parse(&format!("0({})", "9".repeat(309)))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "column 3: node id `{}… [309 characters]` is too large (at most 4294967295)",
            "9".repeat(40)
        )
    );
    let e = RootedTree::parse(&format!("[-1,{}]", "7".repeat(500)))
        .unwrap_err()
        .to_string();
    assert!(e.len() < 200 && e.contains("[500 characters]"), "{e}");
}
