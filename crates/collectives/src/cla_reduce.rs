//! The reduction of `models/small-reduce.cla`: one item up any rooted tree, children notifying on
//! per-socket many-to-one lines.
//!
//! **What.** A reduction (here: any associative, commutative `op`) of one 64-bit value per thread
//! over a rooted tree of the threads (node i is thread i), with the threads placed on sockets;
//! the result ends at the tree's root. **Why.** On ccNUMA machines modelopt prices the reduction
//! as this program's CLa graph (`crates/graph/src/collectives.rs`, `docs/cla.md` §12) and
//! `modelopt reduce` recommends a tree for it (`cla-tree`); this is the program that
//! recommendation runs, line for line, so that `modelopt run reduce` measures what the model
//! priced. (Seed 000's [`crate::reduce::SmallTreeReduce`], one value-and-sequence line per child,
//! is what the `small-tree` model prices; the two protocols differ.)
//!
//! Every node owns:
//! - a **ready** line (`ready[t]`): it writes the epoch there when its buffers are free;
//! - one **slot** line per child (`slot[t,i]`), where child number i copies its value;
//! - one **many-to-one (ack) line per socket holding some of its children** (`ack[t,s]`), shared
//!   machinery with the broadcast and the tree barrier (the crate's `many_to_one` module): the
//!   children on socket s add 1 to it once their value is in their slot;
//! - its **value** line (`val[t]`): its own value, then its partial result.
//!
//! One call, thread `me` (its value already in `val[me]`, [`ClaTreeReduce::set_value`]), in the
//! order of `models/small-reduce.cla`:
//!
//! ```text
//! if me has children:                                          role root inner
//!   P1  ready[me] = epoch
//!   P2  for each socket s holding children, ascending:
//!         wait until ack[me,s] ≥ epoch · children_on(s)         (many-to-one)
//!   P3  val[me] = op(val[me], slot[me,0], slot[me,1], ...)       (one multi-line read)
//! if me has a parent p:                                        role inner leaf
//!   C1  wait until ready[p] ≥ epoch
//!   C2  slot[p, my rank] = val[me]
//!   C3  ack[p, my socket] += 1                                  (many-to-one)
//! ```
//!
//! | `models/small-reduce.cla` | here |
//! |---|---|
//! | `line ready[t] memory thread=t` | node t's ready flag, alone in a 128-byte slot, flushed before every iteration ([`ClaTreeReduce::prepare`]) |
//! | `line slot[t,i] memory thread=t` | the slot line of t's child number i (stored by child, `slots[child]`), the same |
//! | `line ack[t,s] memory socket=s` | node t's ack line of socket s (`many_to_one`), the same |
//! | `line val[t] cache thread=t` | thread t's value line, written by t just before the start instant (in its cache by construction) |
//! | `role root inner` / `write ready[me] 1` | P1 (a release store) |
//! | `for s in child_sockets: wait ack[me,s] == children_on(s)` | P2 |
//! | `copy slot[me,*] -> val[me]` | P3 (slots read in child order, combined into `val[me]`) |
//! | `role inner leaf` / `wait ready[parent] == 1` | C1 |
//! | `copy val[me] -> slot[parent,rank]` | C2 |
//! | `add ack[parent,socket] 1` | C3 (`fetch_add`, release and acquire) |
//!
//! **Epochs.** The program describes one call, counters starting at 0 and each ready flag going
//! from 0 to 1. Here counters and flags only grow, so one object serves calls with epochs 1, 2,
//! 3, ...: in epoch e the count `children_on(s)` becomes e · children_on(s), the flag value 1
//! becomes e, and `==` becomes `≥`. That is the same condition: a child writes its slot and adds
//! for epoch e+1 only after C1 of epoch e+1, that is after its parent's P1 of epoch e+1, which
//! follows the parent's P3 of epoch e; so a parent in P2 of epoch e sees at most e ·
//! children_on(s) on each line, and in P3 reads the values of epoch e, never a later one.
//!
//! **Why the result is right.** A node passes P2 only once every child has done C3, which each
//! child does after C2, which follows its own P3: by induction `val` of every node holds the
//! combination of its subtree's values after its P3, and the root's after its P3 holds all. The
//! add is a release and the waits are acquires, so the slot store of C2 is visible in P3.

use crate::coherence::{self, InitialState, LineState};
use crate::many_to_one::{PlacedAcks, SocketsMismatch};
use crate::wait::{Stage, WaitError, Waiter};
use crossbeam_utils::CachePadded;
use modelopt_model::ccnuma::tree::RootedTree;
use std::sync::atomic::{AtomicU64, Ordering};

/// The shared state of the reduction of `models/small-reduce.cla` over one tree and placement.
#[derive(Debug)]
pub struct ClaTreeReduce {
    /// The tree, its placement and its ack lines.
    placed: PlacedAcks,
    children: Vec<Vec<u32>>,
    /// `ready[t]`: node t's buffers-free flag (the epoch it last freed them for).
    ready: Vec<CachePadded<AtomicU64>>,
    /// Indexed by child c: `slot[parent(c), rank(c)]`, the line c copies its value into.
    slots: Vec<CachePadded<AtomicU64>>,
    /// `val[t]`: thread t's value, then its partial result.
    val: Vec<CachePadded<AtomicU64>>,
}

impl ClaTreeReduce {
    /// The reduction over `tree` with every thread on one socket.
    pub fn new(tree: &RootedTree) -> Self {
        Self::build(tree, PlacedAcks::on_one_socket(tree))
    }

    /// The reduction over `tree` with node (thread) i on socket `sockets[i]`: one ack line per
    /// (node, socket holding some of its children). Only the labels' equality and order matter.
    ///
    /// Errors: [`SocketsMismatch`] unless `sockets` has one entry per node.
    pub fn with_sockets(tree: &RootedTree, sockets: &[u32]) -> Result<Self, SocketsMismatch> {
        Ok(Self::build(tree, PlacedAcks::on_sockets(tree, sockets)?))
    }

    fn build(tree: &RootedTree, placed: PlacedAcks) -> Self {
        let n = tree.len();
        let line = || CachePadded::new(AtomicU64::new(0));
        ClaTreeReduce {
            children: (0..n as u32).map(|v| tree.children(v).to_vec()).collect(),
            ready: (0..n).map(|_| line()).collect(),
            slots: (0..n).map(|_| line()).collect(),
            val: (0..n).map(|_| line()).collect(),
            placed,
        }
    }

    crate::many_to_one::tree_runner_accessors!("reduction");

    /// The starting state of each kind of line, as `models/small-reduce.cla` declares it
    /// (`memory`: in no cache; `cache thread=t`: in t's cache) and the CLa graph prices it, and
    /// what [`ClaTreeReduce::prepare`] reaches on this build.
    pub fn initial_states() -> Vec<InitialState> {
        vec![
            InitialState::forced(
                "ready flag of every node with children",
                "",
                LineState::Invalid,
                "models/small-reduce.cla `line ready[t] memory` (seed 001 §3 rule 1): the parent's write priced R_I",
            ),
            InitialState::forced(
                "slot line of every child, in its parent's buffers",
                "",
                LineState::Invalid,
                "models/small-reduce.cla `line slot[t,i] memory` (seed 001 §3 rule 1): the child's copy priced R_L + R_I",
            ),
            InitialState::forced(
                "many-to-one (ack) line of every (node, socket holding children)",
                "",
                LineState::Invalid,
                "models/small-reduce.cla `line ack[t,s] memory` (seed 001 §3 rule 1, §4 (2)): each socket group's first add priced R_I",
            ),
            InitialState::local(
                "value line of every thread (own value, then partial result)",
                "models/small-reduce.cla `line val[t] cache thread=t` (seed 001 §3 rule 2): the owner's accesses priced R_L",
            ),
        ]
    }

    /// Put the lines thread `me` owns (its ready flag, its children's slots, its ack lines) in
    /// their initial states ([`ClaTreeReduce::initial_states`]): evicted from every cache where
    /// [`coherence::can_flush`], otherwise rewritten unchanged (Modified in `me`'s cache). Its
    /// value line is written by [`ClaTreeReduce::set_value`].
    pub fn prepare(&self, me: u32) {
        let i = me as usize;
        let Some(kids) = self.children.get(i) else {
            return;
        };
        if kids.is_empty() {
            // A leaf: nobody polls its ready line, nobody writes its slots or acks.
            return;
        }
        let ready = &self.ready[i];
        if coherence::can_flush() {
            coherence::evict(&**ready);
            for &c in kids {
                coherence::evict(&*self.slots[c as usize]);
            }
            self.placed.acks.evict(i);
            coherence::fence();
        } else {
            ready.store(ready.load(Ordering::Relaxed), Ordering::Relaxed);
            for &c in kids {
                let s = &self.slots[c as usize];
                s.store(s.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            self.placed.acks.rewrite(i);
        }
    }

    /// Thread `me` puts its own value in `val[me]` (before the call; the runner does it before
    /// the start instant, so the line is in `me`'s cache as the program declares it).
    pub fn set_value(&self, me: u32, value: u64) {
        if let Some(v) = self.val.get(me as usize) {
            v.store(value, Ordering::Relaxed);
        }
    }

    /// Thread `me`'s part of the `epoch`-th reduction (epochs 1, 2, 3, ... on one object) of the
    /// values in `val` with `op` (associative and commutative: children are combined in tree
    /// order). The root returns `Some(result)`, every other thread `None`.
    pub fn reduce(
        &self,
        me: u32,
        epoch: u64,
        op: impl Fn(u64, u64) -> u64,
        waiter: &Waiter<'_>,
    ) -> Result<Option<u64>, WaitError> {
        let i = me as usize;
        let val = &self.val[i];
        let kids = &self.children[i];
        if !kids.is_empty() {
            // P1: my buffers are free.
            self.ready[i].store(epoch, Ordering::Release);
            // P2: every child has written its slot, socket by socket.
            self.placed
                .acks
                .wait_for_children(i, epoch, waiter, |socket| Stage::ReduceChildrenWrote {
                    socket,
                })?;
            // P3: read every slot, combine into val.
            let mut acc = val.load(Ordering::Relaxed);
            for &c in kids {
                acc = op(acc, self.slots[c as usize].load(Ordering::Relaxed));
            }
            val.store(acc, Ordering::Relaxed);
        }
        match self.placed.parent[i] {
            Some(p) => {
                // C1: my parent's buffers are free.
                let ready = &self.ready[p as usize];
                waiter.wait(Stage::ReduceParentReady, || {
                    ready.load(Ordering::Acquire) >= epoch
                })?;
                // C2: my value into my slot; C3: tell my parent (release: the slot goes with it).
                self.slots[i].store(val.load(Ordering::Relaxed), Ordering::Relaxed);
                self.placed.acks.notify_parent(i);
                Ok(None)
            }
            None => Ok(Some(val.load(Ordering::Relaxed))),
        }
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
    fn the_reduction_exposes_its_placement_and_line_states() {
        // The layout itself is many_to_one's (tested there); the runner passes it through.
        let r = ClaTreeReduce::with_sockets(&tree("0(1(3,4),2)"), &[0, 1, 0, 1, 0]).unwrap();
        assert_eq!((r.threads(), r.root(), r.ack_line_count()), (5, 0, 4));
        assert_eq!(r.sockets(), &[0, 1, 0, 1, 0]);
        assert_eq!(ClaTreeReduce::new(&tree("0(1(3,4),2)")).ack_line_count(), 2);
        assert_eq!(ClaTreeReduce::initial_states().len(), 4);
    }

    /// Thread t's value in epoch e: 1000·e + t + 1 (all distinct, so a lost or doubled child
    /// changes the sum).
    fn value(epoch: u64, t: u32) -> u64 {
        1000 * epoch + u64::from(t) + 1
    }

    /// Run `epochs` reductions (sum) over `text` on unpinned threads, staggered by a per-thread,
    /// per-epoch number of yields; the root must get Σ_t value(e, t) = n·1000·e + n(n+1)/2 in
    /// every epoch e, every other thread nothing. Returns the reduction for inspection.
    fn sums_are_right(text: &str, sockets: &[u32], epochs: u64) -> ClaTreeReduce {
        let t = tree(text);
        let n = t.len() as u64;
        let r = ClaTreeReduce::with_sockets(&t, sockets).unwrap();
        let abort = AtomicBool::new(false);
        std::thread::scope(|s| {
            for me in 0..n as u32 {
                let (r, abort) = (&r, &abort);
                s.spawn(move || {
                    let w = Waiter::new(me, Duration::from_secs(20), abort)
                        .with_yield_after(Duration::ZERO);
                    for epoch in 1..=epochs {
                        for _ in 0..(epoch * 7 + u64::from(me) * 3) % 5 {
                            std::thread::yield_now();
                        }
                        r.prepare(me);
                        r.set_value(me, value(epoch, me));
                        let got = r.reduce(me, epoch, u64::wrapping_add, &w).unwrap();
                        let want = n * 1000 * epoch + n * (n + 1) / 2;
                        if me == r.root() {
                            assert_eq!(got, Some(want), "{text}: epoch {epoch}");
                        } else {
                            assert_eq!(got, None, "{text}: thread {me}, epoch {epoch}");
                        }
                    }
                });
            }
        });
        r
    }

    #[test]
    fn the_root_gets_the_sum_every_epoch() {
        // 0(1): sums 2·1000·e + 3. A chain across sockets (every node inner); a flat tree with
        // children on two sockets; a deeper tree whose inner nodes have children on both
        // sockets; trees rooted elsewhere than thread 0.
        sums_are_right("0(1)", &[0, 0], 500);
        sums_are_right("1(0)", &[0, 1], 500);
        sums_are_right("0(1(2(3)))", &[0, 0, 1, 1], 200);
        sums_are_right("0(1,2,3,4)", &[0, 1, 0, 1, 1], 200);
        sums_are_right("0(1(3,4),2(5))", &[1, 0, 1, 0, 1, 0], 200);
        sums_are_right("2(0,1(3))", &[1, 1, 0, 0], 200);
    }

    #[test]
    fn counters_and_flags_grow_by_one_epoch_per_call() {
        // Flat tree 0(1,2,3) with thread 2 on socket 1, three calls: node 0's socket-0 line
        // receives 2 adds per call (threads 1, 3) → 3·2 = 6, its socket-1 line 1 per call → 3;
        // ready[0] holds the last epoch, 3; leaves never write their ready lines (0). Slots
        // hold the last epoch's values: value(3, t) = 3000 + t + 1 for t = 1, 2, 3; val[0] the
        // last sum 4·3000 + 10 = 12010.
        let r = sums_are_right("0(1,2,3)", &[0, 0, 1, 0], 3);
        assert_eq!(r.placed.acks.counts(), vec![6, 3]);
        let load = |v: &[CachePadded<AtomicU64>]| -> Vec<u64> {
            v.iter().map(|x| x.load(Ordering::Relaxed)).collect()
        };
        assert_eq!(load(&r.ready), vec![3, 0, 0, 0]);
        assert_eq!(load(&r.slots)[1..], [3002, 3003, 3004]);
        assert_eq!(r.val[0].load(Ordering::Relaxed), 12010);
        // prepare (flush or rewrite) keeps every value.
        for t in 0..4 {
            r.prepare(t);
        }
        assert_eq!(r.placed.acks.counts(), vec![6, 3]);
        assert_eq!(load(&r.ready), vec![3, 0, 0, 0]);
        assert_eq!(load(&r.slots)[1..], [3002, 3003, 3004]);
    }

    #[test]
    fn a_missing_thread_holds_the_others_at_their_stage() {
        // 0(1) with the child on socket 1. The leaf alone waits for ready[0] (C1), which the
        // root never wrote.
        let r = ClaTreeReduce::with_sockets(&tree("0(1)"), &[0, 1]).unwrap();
        let abort = AtomicBool::new(false);
        let leaf = Waiter::new(1, Duration::from_millis(20), &abort);
        assert!(matches!(
            r.reduce(1, 1, u64::wrapping_add, &leaf).unwrap_err(),
            WaitError::Timeout {
                thread: 1,
                stage: Stage::ReduceParentReady,
                ..
            }
        ));
        // The root alone writes ready[0] = 1 and waits at P2 for its child on socket 1.
        let abort_root = AtomicBool::new(false);
        let root = Waiter::new(0, Duration::from_millis(20), &abort_root);
        let err = r.reduce(0, 1, u64::wrapping_add, &root).unwrap_err();
        assert_eq!(
            err,
            WaitError::Timeout {
                thread: 0,
                stage: Stage::ReduceChildrenWrote { socket: 1 },
                timeout: Duration::from_millis(20)
            }
        );
        assert!(err
            .to_string()
            .contains("reduction (waiting for the values of the children on socket 1"));
        // Now the leaf gets through epoch 1 (value 5 into its slot, one add) and the root, with
        // value 7, sums 7 + 5 = 12; epoch 2 holds the root again. (Fresh waiters: a timeout
        // raises its abort flag.)
        let (abort_leaf, abort_root) = (AtomicBool::new(false), AtomicBool::new(false));
        let leaf = Waiter::new(1, Duration::from_millis(20), &abort_leaf);
        let root = Waiter::new(0, Duration::from_millis(20), &abort_root);
        r.set_value(1, 5);
        assert_eq!(r.reduce(1, 1, u64::wrapping_add, &leaf).unwrap(), None);
        r.set_value(0, 7);
        assert_eq!(r.reduce(0, 1, u64::wrapping_add, &root).unwrap(), Some(12));
        assert!(r.reduce(0, 2, u64::wrapping_add, &root).is_err());
    }
}
