//! The small reduction up a tree (seed 000 §4.3, Eqs. 4.13/4.14, Table B.3).
//!
//! "Each thread from level i has k_i buffers where its k_i children copy their own data. Then, the
//! parent performs the operation with the data from these buffers. In each stage of the tree, the
//! parent has to set a flag (R_I) that their children (k_i) read (causing some contention) before
//! writing to the corresponding buffer (R_R + R_L) and notifying that the data is ready (R_R)."
//!
//! Every node owns a **ready** line (its flag) and one **buffer** line per child, holding the
//! child's value and a sequence number (value and notification in one line). One call, thread
//! `me` with value v:
//!
//! ```text
//! if me has children:
//!     ready[me] = epoch                          (buffers free for this epoch)
//!     for each child c: wait until buffer[c].seq ≥ epoch; acc = op(acc, buffer[c].value)
//! if me has a parent p:
//!     wait until ready[p] ≥ epoch
//!     buffer[me].value = acc; buffer[me].seq = epoch
//! ```
//!
//! The tree may be any rooted tree; the seed's is a level-degree tree (`shapes::level_degrees`).
//! As for the broadcast, flags only grow, so calls with epochs 1, 2, 3, ... reuse one object.

use crate::coherence::{self, InitialState, LineState};
use crate::wait::{Stage, WaitError, Waiter};
use crossbeam_utils::CachePadded;
use modelopt_model::ccnuma::tree::RootedTree;
use std::sync::atomic::{AtomicU64, Ordering};

/// A child's value and sequence number in its parent's buffer: one 64-byte line.
#[repr(C, align(64))]
#[derive(Debug, Default)]
struct BufferLine {
    seq: AtomicU64,
    value: AtomicU64,
}

/// The shared state of a small reduction over one tree.
#[derive(Debug)]
pub struct SmallTreeReduce {
    parent: Vec<Option<u32>>,
    children: Vec<Vec<u32>>,
    root: u32,
    ready: Vec<CachePadded<AtomicU64>>,
    /// Indexed by child: the line of the parent's buffer that child writes (each in a 128-byte
    /// slot, so the adjacent-line prefetcher never pulls a neighbour's line along).
    buffer: Vec<CachePadded<BufferLine>>,
}

impl SmallTreeReduce {
    /// The reduction over `tree` (node i is thread i; the result ends at the tree's root).
    pub fn new(tree: &RootedTree) -> Self {
        let n = tree.len();
        SmallTreeReduce {
            parent: tree.parents().to_vec(),
            children: (0..n as u32).map(|v| tree.children(v).to_vec()).collect(),
            root: tree.root(),
            ready: (0..n)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            buffer: (0..n)
                .map(|_| CachePadded::new(BufferLine::default()))
                .collect(),
        }
    }

    /// Threads taking part.
    pub fn threads(&self) -> u32 {
        self.parent.len() as u32
    }

    /// The thread that ends with the result.
    pub fn root(&self) -> u32 {
        self.root
    }

    /// The starting state of the lines the model prices (seed 000 §4.3 and §4.4), and what
    /// [`SmallTreeReduce::prepare`] reaches on this build.
    pub fn initial_states() -> Vec<InitialState> {
        vec![
            InitialState::forced(
                "ready flag of every node with children",
                "",
                LineState::Invalid,
                "seed 000 §4.3, Eq. 4.13: the parent sets its flag at R_I",
            ),
            InitialState::forced(
                "buffer line of every child, in its parent's buffers",
                "the parent",
                LineState::Exclusive,
                "seed 000 §4.4 (exclusive state in the buffer owner's cache); Eq. 4.13 prices the child's write R_R + R_L",
            ),
        ]
    }

    /// Put the lines thread `me` owns (its ready flag and its children's buffer lines) in their
    /// initial states ([`SmallTreeReduce::initial_states`]): the flag evicted from every cache,
    /// the buffers evicted and loaded by `me` (Exclusive in its cache) where
    /// [`coherence::can_flush`]; otherwise all rewritten unchanged (Modified in `me`'s cache).
    pub fn prepare(&self, me: u32) {
        let kids = &self.children[me as usize];
        if kids.is_empty() {
            // A leaf owns no line the reduction uses.
            return;
        }
        let r = &self.ready[me as usize];
        if coherence::can_flush() {
            coherence::evict(&**r);
            for &c in kids {
                coherence::evict(&*self.buffer[c as usize]);
            }
            coherence::fence();
            for &c in kids {
                std::hint::black_box(self.buffer[c as usize].seq.load(Ordering::Relaxed));
            }
        } else {
            r.store(r.load(Ordering::Relaxed), Ordering::Relaxed);
            for &c in kids {
                let b = &self.buffer[c as usize];
                b.seq
                    .store(b.seq.load(Ordering::Relaxed), Ordering::Relaxed);
                b.value
                    .store(b.value.load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
    }

    /// Thread `me`'s part of the `epoch`-th reduction (epochs 1, 2, 3, ... on one object) of
    /// `value` with `op` (which must be associative and commutative: children are combined in
    /// tree order). The root returns `Some(result)`, every other thread `None`.
    pub fn reduce(
        &self,
        me: u32,
        epoch: u64,
        value: u64,
        op: impl Fn(u64, u64) -> u64,
        waiter: &Waiter<'_>,
    ) -> Result<Option<u64>, WaitError> {
        let i = me as usize;
        let mut acc = value;
        if !self.children[i].is_empty() {
            self.ready[i].store(epoch, Ordering::Release);
            for &c in &self.children[i] {
                let b = &self.buffer[c as usize];
                waiter.wait(Stage::ReduceChildValue { child: c }, || {
                    b.seq.load(Ordering::Acquire) >= epoch
                })?;
                acc = op(acc, b.value.load(Ordering::Relaxed));
            }
        }
        match self.parent[i] {
            Some(p) => {
                let ready = &self.ready[p as usize];
                waiter.wait(Stage::ReduceParentReady, || {
                    ready.load(Ordering::Acquire) >= epoch
                })?;
                let b = &self.buffer[i];
                b.value.store(acc, Ordering::Relaxed);
                b.seq.store(epoch, Ordering::Release);
                Ok(None)
            }
            None => Ok(Some(acc)),
        }
    }
}
