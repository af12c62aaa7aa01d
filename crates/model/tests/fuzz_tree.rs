//! Fuzzing of the rooted-tree text forms (`--tree "0(1(3),2)"`, `--tree "[-1,0,0,1]"`) on stable
//! Rust (docs/fuzzing.md): property tests over arbitrary bytes, over strings of the grammar's own
//! characters, and over mutations (byte flips, insertions, deletions, repeats, splices) of valid
//! trees, including deep paths and wide stars.
//!
//! The property, for every input: `RootedTree::parse` never panics, never overflows the stack,
//! ends within [`CASE_LIMIT`], and either returns a tree that prints back to itself (its nested
//! form parses to the same tree) or an error whose message is one line of bounded length.
//!
//! Each case runs on its own thread with a 2 MiB stack and a timeout, so a hang is reported with
//! its input. Cases per property: `MODELOPT_FUZZ_CASES` (default 64).

use modelopt_model::ccnuma::tree::RootedTree;
use proptest::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

/// The longest one case may take (a debug build; cases take well under a millisecond).
const CASE_LIMIT: Duration = Duration::from_secs(10);

/// No error message may be longer than this, whatever the input's length: long user text is
/// clipped (a 20,000-node tree must not be echoed).
const MESSAGE_LIMIT: usize = 400;

fn cases() -> u32 {
    std::env::var("MODELOPT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn seeds() -> Vec<String> {
    let path: Vec<u32> = (0..3000).collect();
    let deep = RootedTree::from_levels(&path).unwrap().nested();
    let star = format!(
        "0({})",
        (1..2000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    vec![
        "0(1(3),2)".into(),
        "[-1,0,0,1]".into(),
        "2(0,1)".into(),
        "[2,2,-1]".into(),
        " 0 ( 1 ( 3 ) , 2 ) ".into(),
        "0(1(2(3(4(5)))))".into(),
        deep,
        star,
    ]
}

fn check(text: String) -> Result<(), String> {
    match RootedTree::parse(&text) {
        Ok(tree) => {
            let again = RootedTree::parse(&tree.nested()).map_err(|e| {
                format!("the nested form of a parsed tree does not parse again: {e}")
            })?;
            if again != tree {
                return Err("the nested form of a parsed tree is another tree".into());
            }
            if tree.preorder().len() != tree.len() {
                return Err("a parsed tree does not reach every node from its root".into());
            }
            Ok(())
        }
        Err(e) => {
            let message = e.to_string();
            if message.contains('\n') || message.contains('\r') {
                return Err(format!("error is not one line: {message:?}"));
            }
            if message.chars().count() > MESSAGE_LIMIT {
                return Err(format!(
                    "error of {} characters: {:?}…",
                    message.chars().count(),
                    message.chars().take(100).collect::<String>()
                ));
            }
            Ok(())
        }
    }
}

fn bounded(text: String) -> Result<(), TestCaseError> {
    let shown: String = text.chars().take(300).collect();
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let _ = tx.send(check(text));
        })
        .map_err(|e| TestCaseError::fail(format!("cannot spawn: {e}")))?;
    match rx.recv_timeout(CASE_LIMIT) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(message)) => Err(TestCaseError::fail(format!("{message}; input {shown:?}"))),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(TestCaseError::fail(format!("panicked on input {shown:?}")))
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(TestCaseError::fail(format!(
            "took longer than {CASE_LIMIT:?} on input {shown:?}"
        ))),
    }
}

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
    Repeat {
        at: usize,
        len: usize,
        times: usize,
    },
    Splice {
        at: usize,
        seed: usize,
        from: usize,
        len: usize,
    },
}

const PIECES: [&str; 14] = [
    "(",
    ")",
    ",",
    "[",
    "]",
    "-1",
    "0",
    "1",
    " ",
    "\n",
    "4294967295",
    "4294967296",
    "99",
    "-",
];

fn mutation(seeds: usize) -> impl Strategy<Value = Mutation> {
    let fragment = prop_oneof![
        proptest::collection::vec(any::<u8>(), 1..6),
        proptest::sample::select(PIECES.to_vec()).prop_map(|t| t.as_bytes().to_vec()),
    ];
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (any::<usize>(), fragment).prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        (any::<usize>(), 1usize..32).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), 1usize..8, 1usize..2000).prop_map(|(at, len, times)| Mutation::Repeat {
            at,
            len,
            times
        }),
        (any::<usize>(), 0..seeds, any::<usize>(), 1usize..100).prop_map(
            |(at, seed, from, len)| Mutation::Splice {
                at,
                seed,
                from,
                len
            }
        ),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation], seeds: &[String]) -> Vec<u8> {
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
                bytes.splice(p..p, slice.repeat(*times));
            }
            Mutation::Splice {
                at,
                seed,
                from,
                len,
            } => {
                let other = seeds[*seed].as_bytes();
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
    fn arbitrary_bytes_never_crash(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
        bounded(String::from_utf8_lossy(&bytes).into_owned())?;
    }

    #[test]
    fn strings_of_tree_characters_never_crash(
        pieces in proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..300),
    ) {
        bounded(pieces.concat())?;
    }

    #[test]
    fn mutated_valid_trees_never_crash(
        seed in 0..8usize,
        mutations in proptest::collection::vec(mutation(8), 1..6),
    ) {
        let seeds = seeds();
        let bytes = apply(seeds[seed].as_bytes().to_vec(), &mutations, &seeds);
        bounded(String::from_utf8_lossy(&bytes).into_owned())?;
    }
}

#[test]
fn the_unmutated_seeds_are_trees() {
    for s in seeds() {
        assert!(RootedTree::parse(&s).is_ok(), "{}", &s[..s.len().min(40)]);
        check(s).unwrap();
    }
}
