//! Fuzzing of `.cla` programs on stable Rust (docs/fuzzing.md): property tests over arbitrary
//! bytes, over strings of the format's own tokens, and over mutations (byte flips, insertions,
//! deletions, repeats, splices) of the bundled programs in `models/*.cla`.
//!
//! The property, for every input: decoding, parsing and — when the program parses — building
//! and analysing its CLa graph on a small tree never panics, never overflows the stack, ends
//! within [`CASE_LIMIT`], and either succeeds or returns an error whose message is one line.
//!
//! Each case runs on its own thread with a 2 MiB stack (smaller than the main thread's), so a
//! recursion that a longer input would overflow shows up early, and a hang is reported with its
//! input instead of blocking the test forever.
//!
//! Cases per property: `MODELOPT_FUZZ_CASES` (default 64, a few seconds in a debug build).

use modelopt_graph::{analyze, default_places, input::decode, parse::parse};
use modelopt_model::ccnuma::{tree::RootedTree, Ccnuma};
use modelopt_model::machine;
use proptest::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

/// The longest one case may take (a debug build; typical cases take well under a millisecond).
const CASE_LIMIT: Duration = Duration::from_secs(10);

const SEEDS: [(&str, &str); 3] = [
    (
        "models/one-line-bcast.cla",
        include_str!("../../../models/one-line-bcast.cla"),
    ),
    (
        "models/barrier.cla",
        include_str!("../../../models/barrier.cla"),
    ),
    (
        "models/small-reduce.cla",
        include_str!("../../../models/small-reduce.cla"),
    ),
];

fn cases() -> u32 {
    std::env::var("MODELOPT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

/// Decode, parse and analyse `bytes`; `Err` carries the message of a failure of the property.
fn check(bytes: Vec<u8>) -> Result<(), String> {
    let one_line = |what: &str, message: String| {
        if message.contains('\n') || message.contains('\r') {
            Err(format!("{what} error is not one line: {message:?}"))
        } else {
            Ok(())
        }
    };
    let text = match decode("fuzz.cla", bytes) {
        Ok(text) => text,
        Err(e) => return one_line("decode", e.to_string()),
    };
    let program = match parse("fuzz.cla", &text) {
        Ok(p) => p,
        Err(e) => return one_line("parse", e.to_string()),
    };
    // A parsed program prints (Display recurses over expressions, bounded by the depth limit).
    for block in &program.blocks {
        for op in &block.ops {
            let _ = op.kind.to_string();
        }
    }
    // Two sockets of one L3 domain each, and L3 domains with one line per domain (where
    // `domain` and `group` differ from `socket`).
    for name in ["sandy-bridge-e5-2660", "chiplet-2s-4x8-domain-lines"] {
        let m = machine::load(name).map_err(|e| e.to_string())?;
        let model: &Ccnuma = m.model().ok_or("not a ccnuma machine")?;
        for tree in ["0(1(3),2)", "0(1,2,3,4,5,6,7,8,9)"] {
            let tree = RootedTree::parse(tree).map_err(|e| e.to_string())?;
            let places = default_places(model, tree.len() as u32);
            if let Err(e) = analyze(&program, &tree, model, &places) {
                one_line("analysis", e.to_string())?;
            }
        }
    }
    Ok(())
}

/// Run [`check`] on a thread of its own, bounded by [`CASE_LIMIT`].
fn bounded(bytes: Vec<u8>) -> Result<(), TestCaseError> {
    let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let started = std::time::Instant::now();
            let result = check(bytes);
            let _ = tx.send((result, started.elapsed()));
        })
        .map_err(|e| TestCaseError::fail(format!("cannot spawn: {e}")))?;
    match rx.recv_timeout(CASE_LIMIT) {
        Ok((Ok(()), _)) => Ok(()),
        Ok((Err(message), _)) => Err(TestCaseError::fail(format!("{message}; input {shown:?}"))),
        // The sender is gone without a result: the case panicked (its message is on stderr).
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(TestCaseError::fail(format!("panicked on input {shown:?}")))
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(TestCaseError::fail(format!(
            "took longer than {CASE_LIMIT:?} on input {shown:?}"
        ))),
    }
}

/// One edit of a seed file; positions are taken modulo the current length.
#[derive(Debug, Clone)]
enum Mutation {
    Flip {
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
    /// Repeat a slice many times in place (long lines, deep nesting, many declarations).
    Repeat {
        at: usize,
        len: usize,
        times: usize,
    },
    /// Copy a slice of another seed to a position.
    Splice {
        at: usize,
        seed: usize,
        from: usize,
        len: usize,
    },
}

/// Fragments that reach deep into the grammar.
const TOKENS: [&str; 50] = [
    "cla ",
    "line ",
    "role ",
    "root",
    "inner",
    "leaf",
    "memory",
    "cache",
    "thread=",
    "socket=",
    "domain=",
    "group=",
    "for ",
    " in ",
    "children",
    "child_sockets",
    "child_domains",
    "child_groups",
    "..",
    ":",
    "copy ",
    "wait ",
    "write ",
    "add ",
    "->",
    "==",
    ">=",
    "[",
    "]",
    "*",
    "(",
    ")",
    ",",
    "+",
    "-",
    "/",
    "%",
    "me",
    "parent",
    "rank",
    "children_on(",
    "socket_of(",
    "children_in(",
    "domain_of(",
    "children_in_group(",
    "group_of(",
    "domain",
    "group",
    "\n",
    "9223372036854775807",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    let fragment = prop_oneof![
        proptest::collection::vec(any::<u8>(), 1..8),
        proptest::sample::select(TOKENS.to_vec()).prop_map(|t| t.as_bytes().to_vec()),
    ];
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (any::<usize>(), fragment).prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), 1usize..16, 1usize..400).prop_map(|(at, len, times)| Mutation::Repeat {
            at,
            len,
            times
        }),
        (any::<usize>(), 0..SEEDS.len(), any::<usize>(), 1usize..200).prop_map(
            |(at, seed, from, len)| Mutation::Splice {
                at,
                seed,
                from,
                len
            }
        ),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let n = bytes.len();
        let pos = |at: usize| if n == 0 { 0 } else { at % (n + 1) };
        match m {
            Mutation::Flip { at, bit } => {
                if n > 0 {
                    bytes[at % n] ^= 1 << bit;
                }
            }
            Mutation::Insert { at, bytes: new } => {
                let p = pos(*at);
                bytes.splice(p..p, new.iter().copied());
            }
            Mutation::Delete { at, len } => {
                let p = pos(*at);
                let end = (p + len).min(n);
                bytes.drain(p..end);
            }
            Mutation::Repeat { at, len, times } => {
                let p = pos(*at);
                let end = (p + len).min(n);
                let slice = bytes[p..end].to_vec();
                let repeated: Vec<u8> = slice.repeat(*times);
                bytes.splice(p..p, repeated);
            }
            Mutation::Splice {
                at,
                seed,
                from,
                len,
            } => {
                let other = SEEDS[*seed].1.as_bytes();
                let from = from % other.len();
                let end = (from + len).min(other.len());
                let p = pos(*at);
                bytes.splice(p..p, other[from..end].iter().copied());
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn arbitrary_bytes_never_crash(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        bounded(bytes)?;
    }

    #[test]
    fn arbitrary_bytes_after_a_valid_header_never_crash(
        bytes in proptest::collection::vec(any::<u8>(), 0..2048),
    ) {
        let mut text = b"cla fuzz\nline a[t] memory thread=t\nrole root inner leaf\n".to_vec();
        text.extend(bytes);
        bounded(text)?;
    }

    #[test]
    fn token_soup_never_crashes(
        tokens in proptest::collection::vec(proptest::sample::select(TOKENS.to_vec()), 0..200),
    ) {
        let mut text = String::from("cla soup\nline a[t] memory thread=t\nrole root inner leaf\n");
        text.extend(tokens);
        bounded(text.into_bytes())?;
    }

    #[test]
    fn mutated_bundled_programs_never_crash(
        seed in 0..SEEDS.len(),
        mutations in proptest::collection::vec(mutation(), 1..6),
    ) {
        bounded(apply(SEEDS[seed].1.as_bytes().to_vec(), &mutations))?;
    }
}

#[test]
fn the_unmutated_seeds_pass_the_property() {
    for (name, text) in SEEDS {
        check(text.as_bytes().to_vec()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(parse(name, text).is_ok(), "{name}");
    }
}
