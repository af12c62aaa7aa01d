//! Fuzz targets (stable Rust, proptest) for the CLI's flag parsers, through the binary: `--size`
//! (`parse_size`), `--threads` ranges (`parse_range`), `sweep --size` ranges
//! (`parse_size_range`) and `--fix` (`parse_fix`). The parsers live in the binary crate, so each
//! case runs `modelopt` once, with a time limit.
//!
//! The property: never a panic, never a hang (each run must end within [`RUN_LIMIT`]), and
//! either success or exit code 2 with exactly one line on stderr.
//!
//! A short run (50 cases per flag) is part of `cargo test`; the long run is documented in
//! docs/fuzzing.md (`PROPTEST_CASES=5000 cargo test --release -p modelopt-cli --test
//! fuzz_flags`).

use assert_cmd::Command;
use proptest::prelude::*;
use std::time::Duration;

/// How long one run may take before it counts as a hang.
const RUN_LIMIT: Duration = Duration::from_secs(30);

/// Cases per flag unless `PROPTEST_CASES` says otherwise.
const SHORT_RUN: u32 = 50;

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = SHORT_RUN;
    }
    config
}

/// Run `modelopt` and check the property.
fn runs_cleanly(args: &[String]) -> Result<(), TestCaseError> {
    let out = Command::cargo_bin("modelopt")
        .unwrap()
        .args(args)
        .timeout(RUN_LIMIT)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    prop_assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    match out.status.code() {
        Some(0) => Ok(()),
        Some(2) => {
            let lines: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("note:")).collect();
            prop_assert_eq!(lines.len(), 1, "{:?}: not one line: {}", args, stderr);
            Ok(())
        }
        other => Err(TestCaseError::fail(format!(
            "{args:?}: exit {other:?} (killed by the {RUN_LIMIT:?} limit or a signal): {stderr}"
        ))),
    }
}

/// Size-like text: digits (including huge and signed), units real and wrong, junk.
fn size_text() -> BoxedStrategy<String> {
    let number = prop_oneof![
        (0u64..100_000).prop_map(|n| n.to_string()),
        Just("18446744073709551615".to_string()),
        Just("18446744073709551616".to_string()),
        Just("99999999999999999999999".to_string()),
        Just("-1".to_string()),
        Just("-0".to_string()),
        Just("1e3".to_string()),
        Just("0x10".to_string()),
        Just("".to_string()),
    ];
    let unit = prop_oneof![
        Just(""),
        Just("B"),
        Just("K"),
        Just("KiB"),
        Just("k"),
        Just("M"),
        Just("MiB"),
        Just("G"),
        Just("GiB"),
        Just("TiB"),
        Just(" KiB"),
        Just("kib"),
        Just("é"),
    ];
    prop_oneof![
        4 => (number, unit).prop_map(|(n, u)| format!("{n}{u}")),
        1 => "[ -~]{0,12}",
        1 => "\\PC{0,8}",
    ]
    .boxed()
}

/// Range-like text over `inner` values: `A..=B`, `A..B`, `A`, and junk around the dots.
fn range_of(inner: BoxedStrategy<String>) -> impl Strategy<Value = String> {
    let sep = prop_oneof![Just("..="), Just(".."), Just("..=="), Just("...")];
    prop_oneof![
        3 => (inner.clone(), sep, inner.clone()).prop_map(|(a, s, b)| format!("{a}{s}{b}")),
        1 => inner,
        1 => "[0-9.=]{0,10}",
    ]
}

fn thread_text() -> BoxedStrategy<String> {
    prop_oneof![
        (0u64..100).prop_map(|n| n.to_string()),
        Just("4294967295".to_string()),
        Just("4294967296".to_string()),
        Just("-3".to_string()),
        Just(" 7 ".to_string()),
        "[ -~]{0,6}",
    ]
    .boxed()
}

fn fix_text() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        Just("k".to_string()),
        Just("depth".to_string()),
        Just("nope".to_string()),
        Just("".to_string()),
        "[a-z_]{1,6}",
    ];
    let value = prop_oneof![
        (-100i64..100).prop_map(|v| v.to_string()),
        Just("9223372036854775807".to_string()),
        Just("9223372036854775808".to_string()),
        Just("-9223372036854775808".to_string()),
        Just("7.5".to_string()),
        "[ -~]{0,6}",
    ];
    prop_oneof![
        4 => (name, value).prop_map(|(n, v)| format!("{n}={v}")),
        1 => "[ -~]{0,10}",
    ]
}

fn s(x: &str) -> String {
    x.to_string()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn size_flag(size in size_text()) {
        runs_cleanly(&[
            s("bcast"), s("--machine"), s("xeon-phi"), s("--threads"), s("8"),
            format!("--size={size}"),
        ])?;
    }

    #[test]
    fn size_range_flag(sizes in range_of(size_text())) {
        runs_cleanly(&[
            s("sweep"), s("--machine"), s("scc"), s("--collective"), s("bcast"),
            s("--threads"), s("48"), format!("--size={sizes}"),
        ])?;
    }

    #[test]
    fn thread_range_flag(threads in range_of(thread_text())) {
        runs_cleanly(&[
            s("sweep"), s("--machine"), s("scc"), s("--collective"), s("bcast"),
            format!("--threads={threads}"), s("--size=64"),
        ])?;
    }

    #[test]
    fn memory_limit_flag(memory in size_text()) {
        // On a rooted-tree search (four sockets of 12, one per E5-4650 socket), which reads
        // the limit: accepted values answer (exact, or bounded with their need), others exit
        // 2 in one line.
        runs_cleanly(&[
            s("bcast"), s("--machine"), s("xeon-e5-4650-4s"), s("--threads"), s("12"),
            s("--algorithm"), s("cla-tree"), format!("--memory-limit={memory}"),
        ])?;
    }

    #[test]
    fn fix_flag(fix in fix_text()) {
        runs_cleanly(&[
            s("bcast"), s("--machine"), s("scc"), s("--threads"), s("8"), s("--size"), s("64"),
            format!("--fix={fix}"),
        ])?;
    }
}
