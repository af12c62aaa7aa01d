//! The tree barrier of `models/barrier.cla`: arrival up any rooted tree, release down it.
//!
//! **What.** A barrier over a rooted tree of the threads (node i is thread i), with the threads
//! placed on sockets. **Why.** On ccNUMA machines modelopt prices the barrier as this program's
//! CLa graph (`crates/graph/src/collectives.rs`, `docs/cla.md` §12) and `modelopt barrier`
//! recommends a tree for it; this is the program that recommendation runs, line for line, so that
//! `modelopt run barrier` measures what the model priced.
//!
//! Every node owns:
//! - one **many-to-one (ack) line per socket holding some of its children** (`ack[t,s]`): the
//!   children on socket s add 1 to it when they and their subtrees have arrived; the node waits
//!   for its lines in ascending socket order. This is the broadcast's layout (seed 001 §4 (2),
//!   "one synchronization line per socket"; the crate's `many_to_one` module, shared with
//!   [`crate::bcast`]);
//! - one **go (release) line** (`go[t]`), which it writes to release its children and which they
//!   poll (the one-to-many of seed 001 Figure 1 without payload).
//!
//! One call, thread `me`, in the order of `models/barrier.cla`:
//!
//! ```text
//! if me has children:                                          role root inner
//!   A1  for each socket s holding children, ascending:
//!         wait until ack[me,s] ≥ epoch · children_on(s)         (many-to-one)
//! if me has a parent:                                          role inner leaf
//!   A2  ack[parent, my socket] += 1                             (many-to-one)
//!   R1  wait until go[parent] ≥ epoch                           (one-to-many)
//! if me has children:                                          role root inner
//!   R2  go[me] = epoch
//! ```
//!
//! | `models/barrier.cla` | here |
//! |---|---|
//! | `line ack[t,s] memory socket=s` | node t's ack line of socket s, a counter alone in a 128-byte slot, flushed before every iteration ([`TreeBarrier::prepare`]) |
//! | `line go[t] memory thread=t` | node t's go line, the same |
//! | `role root inner` / `for s in child_sockets: wait ack[me,s] == children_on(s)` | A1 |
//! | `role inner leaf` / `add ack[parent,socket] 1` | A2 (`fetch_add`, release and acquire) |
//! | `wait go[parent] == 1` | R1 |
//! | `role root inner` / `write go[me] 1` | R2 (a release store) |
//!
//! **Epochs.** The program describes one call, with counters starting at 0 and each go flag
//! going from 0 to 1. Here the counters and flags only grow, so one object serves calls with
//! epochs 1, 2, 3, ...: in epoch e the count `children_on(s)` becomes e · children_on(s), the
//! flag value 1 becomes e, and `==` becomes `≥`. That is the same condition: a child adds for
//! epoch e+1 only after R1 of epoch e, which follows its parent's A1 of epoch e, so a parent in A1
//! of epoch e sees at most e · children_on(s), and a go flag reaches e+1 only after every thread
//! has arrived at e+1.
//! (Resetting the counters instead would add a write the model does not price.)
//!
//! **Why it is a barrier.** A node passes A1 only once every child on every socket has done A2,
//! which each child does only after its own A1: by induction the root passes A1 only after every
//! thread has arrived. Nobody leaves before R1 (or, at the root, before A1), and the go flags are
//! written top down after the root's A1, so nobody leaves before everyone has arrived. The
//! `fetch_add` is a release and the waits are acquires, so whatever a thread wrote before
//! arriving is visible to every thread after it leaves (the runner checks exactly that).

use crate::coherence::{self, InitialState, LineState};
use crate::many_to_one::{PlacedAcks, SocketsMismatch};
use crate::wait::{Stage, WaitError, Waiter};
use crossbeam_utils::CachePadded;
use modelopt_model::ccnuma::tree::RootedTree;
use std::sync::atomic::{AtomicU64, Ordering};

/// The shared state of the tree barrier over one tree and placement.
#[derive(Debug)]
pub struct TreeBarrier {
    /// The tree, its placement and its ack lines.
    placed: PlacedAcks,
    /// `go[t]`: node t's release flag (the epoch it last released).
    go: Vec<CachePadded<AtomicU64>>,
}

impl TreeBarrier {
    /// The barrier over `tree` with every thread on one socket: one ack line per node with
    /// children.
    pub fn new(tree: &RootedTree) -> Self {
        Self::build(PlacedAcks::on_one_socket(tree))
    }

    /// The barrier over `tree` with node (thread) i on socket `sockets[i]`: one ack line per
    /// (node, socket holding some of its children). Only the labels' equality and order matter
    /// (Linux package ids or the model's socket numbers).
    ///
    /// Errors: [`SocketsMismatch`] unless `sockets` has one entry per node.
    pub fn with_sockets(tree: &RootedTree, sockets: &[u32]) -> Result<Self, SocketsMismatch> {
        Ok(Self::build(PlacedAcks::on_sockets(tree, sockets)?))
    }

    fn build(placed: PlacedAcks) -> Self {
        TreeBarrier {
            go: (0..placed.parent.len())
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            placed,
        }
    }

    crate::many_to_one::tree_runner_accessors!("barrier");

    /// The starting state of each kind of line, as `models/barrier.cla` declares it (`memory`:
    /// in no cache) and the CLa graph prices it, and what [`TreeBarrier::prepare`] reaches on
    /// this build.
    pub fn initial_states() -> Vec<InitialState> {
        vec![
            InitialState::forced(
                "many-to-one (ack) line of every (node, socket holding children)",
                "",
                LineState::Invalid,
                "models/barrier.cla `line ack[t,s] memory` (seed 001 §3 rule 1, §4 (2)): each socket group's first add priced R_I",
            ),
            InitialState::forced(
                "go (release) flag of every node with children",
                "",
                LineState::Invalid,
                "models/barrier.cla `line go[t] memory` (seed 001 §3 rule 1): each release write priced R_I",
            ),
        ]
    }

    /// Put the lines thread `me` owns (its go line and its ack lines) in their initial states
    /// ([`TreeBarrier::initial_states`]): evicted from every cache where
    /// [`coherence::can_flush`], otherwise rewritten unchanged (Modified in `me`'s cache).
    pub fn prepare(&self, me: u32) {
        let i = me as usize;
        if self.placed.acks.of(i).is_empty() {
            // A leaf: nobody polls its go line, nobody adds to it.
            return;
        }
        let go = &self.go[i];
        if coherence::can_flush() {
            coherence::evict(&**go);
            self.placed.acks.evict(i);
            coherence::fence();
        } else {
            go.store(go.load(Ordering::Relaxed), Ordering::Relaxed);
            self.placed.acks.rewrite(i);
        }
    }

    /// Thread `me`'s part of the `epoch`-th barrier (epochs 1, 2, 3, ... on one object): returns
    /// once every thread has entered this epoch's barrier.
    pub fn wait(&self, me: u32, epoch: u64, waiter: &Waiter<'_>) -> Result<(), WaitError> {
        let i = me as usize;
        let inner = !self.placed.acks.of(i).is_empty();
        if inner {
            // A1: my subtree has arrived, socket by socket.
            self.placed
                .acks
                .wait_for_children(i, epoch, waiter, |socket| {
                    Stage::TreeBarrierChildrenArrived { socket }
                })?;
        }
        if let Some(p) = self.placed.parent[i] {
            // A2: arrive at my parent, on the line of my socket.
            self.placed.acks.notify_parent(i);
            // R1: released.
            let go = &self.go[p as usize];
            waiter.wait(Stage::TreeBarrierParentGo, || {
                go.load(Ordering::Acquire) >= epoch
            })?;
        }
        if inner {
            // R2: release my children.
            self.go[i].store(epoch, Ordering::Release);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    fn tree(text: &str) -> RootedTree {
        RootedTree::parse(text).unwrap()
    }

    #[test]
    fn the_barrier_exposes_its_placement() {
        // The layout itself is many_to_one's (tested there); the runner passes it through.
        let b = TreeBarrier::with_sockets(&tree("0(1(3,4),2)"), &[0, 1, 0, 1, 0]).unwrap();
        assert_eq!((b.threads(), b.root(), b.ack_line_count()), (5, 0, 4));
        assert_eq!(b.ack_lines(0), vec![(0, 1), (1, 1)]);
        assert_eq!(TreeBarrier::new(&tree("0(1(3,4),2)")).ack_line_count(), 2);
    }

    #[test]
    fn counters_and_flags_grow_by_one_epoch_per_call() {
        // Flat tree 0(1,2,3) with thread 2 on socket 1, three calls: node 0's socket-0 line
        // receives 2 adds per call (threads 1, 3) → 3·2 = 6, its socket-1 line 1 per call → 3;
        // go[0] holds the last epoch, 3; leaves never write their go lines (0).
        let b = TreeBarrier::with_sockets(&tree("0(1,2,3)"), &[0, 0, 1, 0]).unwrap();
        crate::test_support::barrier_property_holds("0(1,2,3)", 4, 3, |me, epoch, w| {
            b.wait(me, epoch, w)
        });
        assert_eq!(b.placed.acks.counts(), vec![6, 3]);
        let go: Vec<u64> = b.go.iter().map(|g| g.load(Ordering::Relaxed)).collect();
        assert_eq!(go, vec![3, 0, 0, 0]);
        // prepare (flush or rewrite) keeps every value.
        for t in 0..4 {
            b.prepare(t);
        }
        assert_eq!(b.placed.acks.counts(), vec![6, 3]);
        assert_eq!(b.go[0].load(Ordering::Relaxed), 3);
    }

    /// The barrier property over `epochs` staggered calls of the barrier over `text`
    /// ([`crate::test_support::barrier_property_holds`]).
    fn barrier_property_holds(text: &str, sockets: &[u32], epochs: u64) {
        let t = tree(text);
        let b = TreeBarrier::with_sockets(&t, sockets).unwrap();
        crate::test_support::barrier_property_holds(
            text,
            t.len() as u32,
            epochs,
            |me, epoch, w| b.wait(me, epoch, w),
        );
    }

    #[test]
    fn nobody_leaves_before_everybody_has_arrived() {
        // Two nodes, both roots; a chain (every node inner); a flat tree with children on two
        // sockets; a deeper tree whose inner nodes have children on both sockets; a tree rooted
        // elsewhere than thread 0.
        barrier_property_holds("0(1)", &[0, 0], 500);
        barrier_property_holds("1(0)", &[0, 1], 500);
        barrier_property_holds("0(1(2(3)))", &[0, 0, 1, 1], 200);
        barrier_property_holds("0(1,2,3,4)", &[0, 1, 0, 1, 1], 200);
        barrier_property_holds("0(1(3,4),2(5))", &[1, 0, 1, 0, 1, 0], 200);
        barrier_property_holds("2(0,1(3))", &[1, 1, 0, 0], 200);
    }

    #[test]
    fn a_missing_thread_holds_everyone_at_its_stage() {
        // 0(1): the leaf alone arrives (A2) and then waits for go[0] (R1), which the root never
        // writes; the root alone waits at A1 for its child on socket 1.
        let b = TreeBarrier::with_sockets(&tree("0(1)"), &[0, 1]).unwrap();
        let abort = AtomicBool::new(false);
        let leaf = Waiter::new(1, Duration::from_millis(20), &abort);
        assert!(matches!(
            b.wait(1, 1, &leaf).unwrap_err(),
            WaitError::Timeout {
                thread: 1,
                stage: Stage::TreeBarrierParentGo,
                ..
            }
        ));
        // The leaf's add is in: the root would now pass A1 of epoch 1, but not of epoch 2.
        let abort = AtomicBool::new(false);
        let root = Waiter::new(0, Duration::from_millis(20), &abort);
        b.wait(0, 1, &root).unwrap();
        let err = b.wait(0, 2, &root).unwrap_err();
        assert_eq!(
            err,
            WaitError::Timeout {
                thread: 0,
                stage: Stage::TreeBarrierChildrenArrived { socket: 1 },
                timeout: Duration::from_millis(20)
            }
        );
        assert!(err
            .to_string()
            .contains("tree barrier arrival (waiting for the children on socket 1"));
    }
}
