//! The one-line broadcast over any rooted tree (seed 001, Fig. 1 and §4).
//!
//! Every node owns two cache lines:
//! - its **data line**: the flag and a 56-byte payload in one 64-byte line ("notification with
//!   payload", seed 001 §4), written by the node and read by its children;
//! - its **copy counter** line, which its children increment when they have copied and the node
//!   polls (many-to-one, "one line in which children write and the parent polls").
//!
//! One call, thread `me`, following Figure 1 statement by statement:
//!
//! ```text
//! if me has a parent:
//!   S1  wait until parent.flag ≥ epoch            (one-to-many)
//!   S2  copy parent.payload into my buffer
//! if me has children:
//!   S3  copy my buffer into my data line
//!   S4  my.flag = epoch                           (one-to-many)
//!   S5  wait until my.copied ≥ epoch · children   (many-to-one)
//! if me has a parent:
//!   S6  parent.copied += 1                        (many-to-one)
//! ```
//!
//! The flag and counters only grow, so the same object serves any number of calls as long as the
//! e-th call passes `epoch = e` (1, 2, 3, ...): a parent rewrites its line for epoch e+1 only after
//! S5 of epoch e, when all its children have copied epoch e. Payload words are written with relaxed
//! stores before the flag's release store and read after its acquire load, so a child that sees the
//! flag sees the payload.

use crate::wait::{Stage, WaitError, Waiter};
use crossbeam_utils::CachePadded;
use modelopt_model::ccnuma::tree::RootedTree;
use std::sync::atomic::{AtomicU64, Ordering};

/// Payload words that fit in the data line next to the flag: (64 − 8) / 8 = 7.
pub const PAYLOAD_WORDS: usize = 7;

/// What the broadcast carries: 56 bytes, one cache line with the flag.
pub type Payload = [u64; PAYLOAD_WORDS];

/// A node's flag and payload: exactly one 64-byte, 64-byte-aligned line.
#[repr(C, align(64))]
#[derive(Debug, Default)]
struct DataLine {
    flag: AtomicU64,
    words: [AtomicU64; PAYLOAD_WORDS],
}

/// The shared state of the one-line broadcast over one tree.
#[derive(Debug)]
pub struct OneLineBroadcast {
    parent: Vec<Option<u32>>,
    children: Vec<u64>,
    root: u32,
    data: Vec<DataLine>,
    copied: Vec<CachePadded<AtomicU64>>,
}

impl OneLineBroadcast {
    /// The broadcast over `tree` (node i is thread i; the tree's root is the broadcast's root).
    pub fn new(tree: &RootedTree) -> Self {
        let n = tree.len();
        OneLineBroadcast {
            parent: tree.parents().to_vec(),
            children: (0..n as u32)
                .map(|v| tree.children(v).len() as u64)
                .collect(),
            root: tree.root(),
            data: (0..n).map(|_| DataLine::default()).collect(),
            copied: (0..n)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
        }
    }

    /// Threads taking part.
    pub fn threads(&self) -> u32 {
        self.parent.len() as u32
    }

    /// The root thread.
    pub fn root(&self) -> u32 {
        self.root
    }

    /// Put the lines thread `me` owns (its data line and copy counter) in its own cache in the
    /// Modified state, invalidating every other copy: the initial state of seed 001 §4 ("the root
    /// writes fresh, receivers' copies invalidated"). Values are rewritten unchanged.
    pub fn prepare(&self, me: u32) {
        let line = &self.data[me as usize];
        line.flag
            .store(line.flag.load(Ordering::Relaxed), Ordering::Relaxed);
        for w in &line.words {
            w.store(w.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        let c = &self.copied[me as usize];
        c.store(c.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Thread `me`'s part of the `epoch`-th broadcast (epochs 1, 2, 3, ... on one object). The
    /// root sends `payload`; every thread returns the payload it holds at the end.
    pub fn broadcast(
        &self,
        me: u32,
        epoch: u64,
        payload: &Payload,
        waiter: &Waiter<'_>,
    ) -> Result<Payload, WaitError> {
        let i = me as usize;
        let mut mine = *payload;
        if let Some(p) = self.parent[i] {
            let parent = &self.data[p as usize];
            // S1: one-to-many notification.
            waiter.wait(Stage::BcastParentFlag, || {
                parent.flag.load(Ordering::Acquire) >= epoch
            })?;
            // S2: copy the parent's line.
            for (m, w) in mine.iter_mut().zip(&parent.words) {
                *m = w.load(Ordering::Relaxed);
            }
        }
        let sons = self.children[i];
        if sons > 0 {
            let line = &self.data[i];
            // S3, S4: set the data and the flag.
            for (w, m) in line.words.iter().zip(&mine) {
                w.store(*m, Ordering::Relaxed);
            }
            line.flag.store(epoch, Ordering::Release);
            // S5: wait for the children's copies.
            let copied = &self.copied[i];
            let target = epoch.saturating_mul(sons);
            waiter.wait(Stage::BcastChildrenCopied, || {
                copied.load(Ordering::Acquire) >= target
            })?;
        }
        if let Some(p) = self.parent[i] {
            // S6: tell the parent.
            self.copied[p as usize].fetch_add(1, Ordering::AcqRel);
        }
        Ok(mine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    #[test]
    fn data_line_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<DataLine>(), 64);
        assert_eq!(std::mem::align_of::<DataLine>(), 64);
    }

    #[test]
    fn three_epochs_on_a_chain_deliver_each_payload() {
        // Chain 0(1(2)), three calls on one object: epoch e carries (1..7)·e and every thread
        // must end each call with exactly that payload.
        let tree = RootedTree::parse("0(1(2))").unwrap();
        let b = OneLineBroadcast::new(&tree);
        let abort = AtomicBool::new(false);
        let payload: Payload = [1, 2, 3, 4, 5, 6, 7];
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..3)
                .map(|t| {
                    let (b, abort) = (&b, &abort);
                    s.spawn(move || {
                        let w = Waiter::new(t, Duration::from_secs(10), abort);
                        let input = if t == 0 { payload } else { [0; 7] };
                        let mut got = Vec::new();
                        for epoch in 1..=3u64 {
                            let sent = input.map(|x| x * epoch);
                            got.push(b.broadcast(t, epoch, &sent, &w).unwrap());
                        }
                        got
                    })
                })
                .collect();
            for h in handles {
                let got = h.join().unwrap();
                for (e, p) in got.iter().enumerate() {
                    assert_eq!(*p, payload.map(|x| x * (e as u64 + 1)));
                }
            }
        });
    }
}
