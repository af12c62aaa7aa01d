//! Fuzz target (stable Rust, proptest) for machine files: arbitrary bytes, and mutations of every
//! bundled machine file (byte flips, insertions, deletions, splices between files, numbers
//! replaced by extreme values such as 1e-300, 1e308, -0, nan).
//!
//! The property: loading never panics, never hangs (each case must finish within
//! [`CASE_LIMIT`]), and gives either a machine or a one-line error naming the file. A machine
//! that loads must also describe its search spaces and list its parameters without panicking.
//!
//! A short run is part of `cargo test`; the long run is documented in docs/fuzzing.md
//! (`PROPTEST_CASES=200000 cargo test --release -p modelopt-model --test fuzz_machine_toml`).

use modelopt_model::machine::{from_text, load};

/// Every bundled machine: (name, text).
fn bundled() -> Vec<(&'static str, &'static str)> {
    modelopt_model::registry::bundled().collect()
}
use modelopt_model::{Collective, Request, SpaceOptions};
use proptest::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

/// How long one case may take before it counts as a hang.
const CASE_LIMIT: Duration = Duration::from_secs(10);

/// Cases per property unless `PROPTEST_CASES` says otherwise.
const SHORT_RUN: u32 = 128;

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = SHORT_RUN;
    }
    config
}

/// Numbers that have broken loaders: tiny, huge, signed zero, non-finite, overflowing integers.
const EXTREME_NUMBERS: &[&str] = &[
    "1e-300",
    "1e308",
    "1.7976931348623157e308",
    "-1e308",
    "1e999",
    "-0",
    "-0.0",
    "0",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "\"NaN\"",
    "-1",
    "4294967296",
    "18446744073709551616",
    "9223372036854775807",
    "0x7fffffff",
    "1_000_000",
    "5e-324",
];

/// One edit of a file's bytes; positions are taken modulo the current length.
#[derive(Debug, Clone)]
enum Mutation {
    FlipBit {
        at: usize,
        bit: u8,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Delete {
        at: usize,
        len: usize,
    },
    Splice {
        at: usize,
        donor: usize,
        from: usize,
        len: usize,
    },
    ReplaceNumber {
        nth: usize,
        with: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::FlipBit { at, bit }),
        (
            any::<usize>(),
            prop::collection::vec(
                prop_oneof![
                    any::<u8>(),
                    Just(b'['),
                    Just(b'{'),
                    Just(b'"'),
                    Just(b'\n'),
                    Just(b'=')
                ],
                1..8
            )
        )
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), any::<usize>(), any::<usize>(), 1usize..400).prop_map(
            |(at, donor, from, len)| Mutation::Splice {
                at,
                donor,
                from,
                len
            }
        ),
        (any::<usize>(), any::<usize>())
            .prop_map(|(nth, with)| Mutation::ReplaceNumber { nth, with }),
    ]
}

/// Byte ranges of the number-like tokens of `text` (digits with signs, dots, exponents).
fn numbers(text: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i].is_ascii_digit() {
            let mut start = i;
            if start > 0 && (text[start - 1] == b'-' || text[start - 1] == b'+') {
                start -= 1;
            }
            while i < text.len()
                && (text[i].is_ascii_alphanumeric() || matches!(text[i], b'.' | b'_' | b'-' | b'+'))
            {
                i += 1;
            }
            spans.push((start, i));
        } else {
            i += 1;
        }
    }
    spans
}

fn apply(mut bytes: Vec<u8>, m: &Mutation) -> Vec<u8> {
    let at = |pos: usize, len: usize| if len == 0 { 0 } else { pos % (len + 1) };
    match m {
        Mutation::FlipBit { at: pos, bit } => {
            if !bytes.is_empty() {
                let i = pos % bytes.len();
                bytes[i] ^= 1 << bit;
            }
        }
        Mutation::Insert {
            at: pos,
            bytes: new,
        } => {
            let i = at(*pos, bytes.len());
            bytes.splice(i..i, new.iter().copied());
        }
        Mutation::Delete { at: pos, len } => {
            let i = at(*pos, bytes.len());
            let end = (i + len).min(bytes.len());
            bytes.drain(i..end);
        }
        Mutation::Splice {
            at: pos,
            donor,
            from,
            len,
        } => {
            let donor = bundled()[donor % bundled().len()].1.as_bytes();
            let start = from % donor.len();
            let end = (start + len).min(donor.len());
            let i = at(*pos, bytes.len());
            bytes.splice(i..i, donor[start..end].iter().copied());
        }
        Mutation::ReplaceNumber { nth, with } => {
            let spans = numbers(&bytes);
            if !spans.is_empty() {
                let (s, e) = spans[nth % spans.len()];
                let new = EXTREME_NUMBERS[with % EXTREME_NUMBERS.len()].as_bytes();
                bytes.splice(s..e, new.iter().copied());
            }
        }
    }
    bytes
}

/// Load `text` on a worker thread; fail on a panic, a hang, or an error that is not one line.
fn check_loads_or_fails_cleanly(text: String) -> Result<(), TestCaseError> {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let outcome = match from_text("fuzz.toml", &text) {
            Ok(machine) => {
                // A machine that loads can list its parameters and describe its spaces.
                let _ = machine.params();
                let threads = machine.max_threads.clamp(2, 8);
                for collective in Collective::ALL {
                    if let Ok(request) = Request::new(collective, threads) {
                        for algorithm in machine.algorithms_for(collective) {
                            let _ = algorithm.space(&request, &SpaceOptions::default());
                        }
                    }
                }
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        };
        let _ = tx.send(outcome);
    });
    match rx.recv_timeout(CASE_LIMIT) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(message)) => {
            prop_assert!(!message.contains('\n'), "not one line: {message}");
            prop_assert!(message.starts_with("fuzz.toml"), "no file name: {message}");
            prop_assert!(message.len() < 2000, "too long: {} bytes", message.len());
            Ok(())
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(TestCaseError::fail(format!(
            "hang: no answer within {CASE_LIMIT:?}"
        ))),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            let panic = worker.join().err().map(|p| {
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            });
            Err(TestCaseError::fail(format!("panic: {panic:?}")))
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_load_or_fail_cleanly(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        check_loads_or_fails_cleanly(String::from_utf8_lossy(&bytes).into_owned())?;
    }

    #[test]
    fn mutated_bundled_machines_load_or_fail_cleanly(
        file in 0..bundled().len(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let mut bytes = bundled()[file].1.as_bytes().to_vec();
        for m in &mutations {
            bytes = apply(bytes, m);
        }
        check_loads_or_fails_cleanly(String::from_utf8_lossy(&bytes).into_owned())?;
    }

    #[test]
    fn every_number_of_every_bundled_machine_replaced_by_an_extreme_value(
        file in 0..bundled().len(),
        nth in any::<usize>(),
        with in 0..EXTREME_NUMBERS.len(),
    ) {
        let bytes = apply(
            bundled()[file].1.as_bytes().to_vec(),
            &Mutation::ReplaceNumber { nth, with },
        );
        check_loads_or_fails_cleanly(String::from_utf8_lossy(&bytes).into_owned())?;
    }
}

/// Raw bytes through the file loader: invalid UTF-8 is a located one-line error.
#[test]
fn invalid_utf8_file_names_line_and_column() {
    let dir = std::env::temp_dir().join(format!("modelopt-fuzz-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    // Line 2, column 8 is the byte 0xFF after `name = "`.
    std::fs::write(&path, b"# machine\nname = \"\xff\"\n").unwrap();
    let err = load(path.to_str().unwrap()).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(err.contains("bad.toml:2:9:"), "{err}");
    assert!(err.contains("invalid UTF-8 at byte 18"), "{err}");
    assert!(!err.contains('\n'));
}

/// Every number of every bundled file replaced by one extreme value each, rotating through
/// [`EXTREME_NUMBERS`] so that every value is used on every file (about 1,600 cases).
#[test]
fn every_number_replaced_once() {
    for (file, (name, text)) in bundled().into_iter().enumerate() {
        for nth in 0..numbers(text.as_bytes()).len() {
            let with = (nth + file) % EXTREME_NUMBERS.len();
            replace_and_check(name, text, nth, with);
        }
    }
}

/// The full cross product, every number × every extreme value (about 33,000 cases, ten minutes
/// in a debug build): part of the long run, `cargo test ... -- --ignored`.
#[test]
#[ignore = "long run: docs/fuzzing.md"]
fn every_number_replaced_by_every_extreme_value() {
    for (name, text) in bundled() {
        for nth in 0..numbers(text.as_bytes()).len() {
            for with in 0..EXTREME_NUMBERS.len() {
                replace_and_check(name, text, nth, with);
            }
        }
    }
}

fn replace_and_check(name: &str, text: &str, nth: usize, with: usize) {
    let bytes = apply(
        text.as_bytes().to_vec(),
        &Mutation::ReplaceNumber { nth, with },
    );
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if let Err(e) = check_loads_or_fails_cleanly(text) {
        panic!("{name}, number {nth} -> {}: {e}", EXTREME_NUMBERS[with]);
    }
}
