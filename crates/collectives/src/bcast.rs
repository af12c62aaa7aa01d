//! The one-line broadcast over any rooted tree (seed 001, Fig. 1 and §4).
//!
//! Every node owns:
//! - its **data line**: the flag and a 56-byte payload in one 64-byte line ("notification with
//!   payload", seed 001 §4), written by the node and read by its children;
//! - one **many-to-one (ack) line per socket holding children**: the children on socket s
//!   increment the node's line of socket s when they have copied, and the node polls its lines in
//!   ascending socket order. Seed 001 §4 (2): "to isolate QPI transfers and minimize line
//!   stealing, we use one synchronization line per socket"; `docs/cla.md` §7 and the model's
//!   `TreeCosts::finish` price exactly this (one E3 group per socket, waited for in ascending
//!   socket order). With every thread on one socket ([`OneLineBroadcast::new`]) this is the single
//!   line of Figure 1 ("one line in which children write and the parent polls"). The layout is
//!   the crate's `many_to_one` module, shared with the tree barrier ([`crate::tree_barrier`]).
//!
//! One call, thread `me`, following Figure 1 statement by statement:
//!
//! ```text
//! if me has a parent:
//!   S1  wait until parent.flag ≥ epoch                      (one-to-many)
//!   S2  copy parent.payload into my buffer
//! if me has children:
//!   S3  copy my buffer into my data line
//!   S4  my.flag = epoch                                     (one-to-many)
//!   S5  for each socket s holding children, ascending:
//!         wait until my.ack[s] ≥ epoch · children on s      (many-to-one)
//! if me has a parent:
//!   S6  parent.ack[my socket] += 1                          (many-to-one)
//! ```
//!
//! The flag and counters only grow, so the same object serves any number of calls as long as the
//! e-th call passes `epoch = e` (1, 2, 3, ...): a parent rewrites its line for epoch e+1 only after
//! S5 of epoch e, when all its children have copied epoch e. Payload words are written with relaxed
//! stores before the flag's release store and read after its acquire load, so a child that sees the
//! flag sees the payload.
//!
//! Every line sits in its own 128-byte slot (`CachePadded`), so the adjacent-line prefetcher
//! (which fetches 128-byte pairs on x86) cannot pull one node's line into a cache along with
//! another's, which would spoil the initial states [`OneLineBroadcast::prepare`] forces.

use crate::coherence::{self, InitialState, LineState};
use crate::many_to_one::{PlacedAcks, SocketsMismatch};
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

/// The shared state of the one-line broadcast over one tree and placement.
#[derive(Debug)]
pub struct OneLineBroadcast {
    /// The tree, its placement and its many-to-one lines (one per node and socket holding
    /// children), and the line each child increments in S6.
    placed: PlacedAcks,
    data: Vec<CachePadded<DataLine>>,
}

impl OneLineBroadcast {
    /// The broadcast over `tree` with every thread on one socket: one ack line per node with
    /// children (node i is thread i; the tree's root is the broadcast's root).
    pub fn new(tree: &RootedTree) -> Self {
        Self::build(PlacedAcks::on_one_socket(tree))
    }

    /// The broadcast over `tree` with node (thread) i on socket `sockets[i]`: one ack line per
    /// (node, socket holding some of its children). `sockets` holds any labels (Linux package ids
    /// or the model's socket numbers); only their order matters, for the order of the waits.
    ///
    /// Errors: [`SocketsMismatch`] unless `sockets` has one entry per node.
    pub fn with_sockets(tree: &RootedTree, sockets: &[u32]) -> Result<Self, SocketsMismatch> {
        Ok(Self::build(PlacedAcks::on_sockets(tree, sockets)?))
    }

    fn build(placed: PlacedAcks) -> Self {
        OneLineBroadcast {
            data: (0..placed.parent.len())
                .map(|_| CachePadded::new(DataLine::default()))
                .collect(),
            placed,
        }
    }

    crate::many_to_one::tree_runner_accessors!("broadcast");

    /// The starting state of each kind of line that the model prices (seed 001 §3–§4,
    /// `docs/cla.md` §7), and what [`OneLineBroadcast::prepare`] reaches on this build.
    pub fn initial_states() -> Vec<InitialState> {
        vec![
            InitialState::forced(
                "data line (flag + 56-byte payload) of every node with children",
                "",
                LineState::Invalid,
                "seed 001 §3 rule 1 (flags are initially in memory); S3 priced R_I (docs/cla.md §7, TreeCosts::start)",
            ),
            InitialState::forced(
                "many-to-one line of every (node, socket holding children)",
                "",
                LineState::Invalid,
                "seed 001 §3 rule 1 and §4 (2); each socket group's first S6 priced R_I (docs/cla.md §7, TreeCosts::finish)",
            ),
            InitialState::local(
                "payload buffers (the root's source, every thread's copy)",
                "seed 001 §3 rule 2; the root's read of its buffer and every S2 copy priced R_L",
            ),
        ]
    }

    /// Put the lines thread `me` owns (its data line and its ack lines) in their initial states
    /// ([`OneLineBroadcast::initial_states`]): evicted from every cache where
    /// [`coherence::can_flush`], otherwise rewritten unchanged (Modified in `me`'s cache).
    pub fn prepare(&self, me: u32) {
        let i = me as usize;
        if self.placed.acks.of(i).is_empty() {
            // A leaf: nobody reads its data line, nobody writes to it.
            return;
        }
        let line = &self.data[i];
        if coherence::can_flush() {
            coherence::evict(&**line);
            self.placed.acks.evict(i);
            coherence::fence();
        } else {
            line.flag
                .store(line.flag.load(Ordering::Relaxed), Ordering::Relaxed);
            for w in &line.words {
                w.store(w.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            self.placed.acks.rewrite(i);
        }
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
        if let Some(p) = self.placed.parent[i] {
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
        if !self.placed.acks.of(i).is_empty() {
            let line = &self.data[i];
            // S3, S4: set the data and the flag.
            for (w, m) in line.words.iter().zip(&mine) {
                w.store(*m, Ordering::Relaxed);
            }
            line.flag.store(epoch, Ordering::Release);
            // S5: wait for the children's copies, socket by socket, ascending.
            self.placed
                .acks
                .wait_for_children(i, epoch, waiter, |socket| Stage::BcastChildrenCopied {
                    socket,
                })?;
        }
        // S6: tell the parent, on the line of my socket.
        self.placed.acks.notify_parent(i);
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
    fn one_ack_line_per_socket_holding_children_in_ascending_order() {
        // 0(1,2,3,4(5)) with sockets [1, 0, 1, 0, 2, 2]: node 0 (socket 1) has children on
        // sockets 0 (threads 1, 3), 1 (thread 2) and 2 (thread 4) → lines (0,2), (1,1), (2,1)
        // in that order; node 4 has one child on socket 2 → (2,1); leaves have none: 3 + 1 = 4
        // lines.
        let tree = RootedTree::parse("0(1,2,3,4(5))").unwrap();
        let b = OneLineBroadcast::with_sockets(&tree, &[1, 0, 1, 0, 2, 2]).unwrap();
        assert_eq!(b.ack_lines(0), vec![(0, 2), (1, 1), (2, 1)]);
        assert_eq!(b.ack_lines(4), vec![(2, 1)]);
        assert!(b.ack_lines(1).is_empty() && b.ack_lines(5).is_empty());
        assert!(b.ack_lines(99).is_empty());
        assert_eq!(b.ack_line_count(), 4);
        // S6 targets: children 1 and 3 → node 0's line of socket 0 (index 0), child 2 → index 1,
        // child 4 → index 2, child 5 → node 4's line (index 3).
        assert_eq!(
            b.placed.acks.notify_indices(),
            [None, Some(0), Some(1), Some(0), Some(2), Some(3)]
        );
        // The old constructor: one socket, one line per parent.
        let one = OneLineBroadcast::new(&tree);
        assert_eq!(one.ack_lines(0), vec![(0, 4)]);
        assert_eq!(one.ack_line_count(), 2);
        // A placement of the wrong length is refused.
        assert_eq!(
            OneLineBroadcast::with_sockets(&tree, &[0, 1]).unwrap_err(),
            SocketsMismatch {
                sockets: 2,
                nodes: 6
            }
        );
    }

    #[test]
    fn children_increment_the_line_of_their_own_socket() {
        // Flat tree 0(1,2,3) with thread 2 on socket 1: one epoch run on 4 threads leaves node
        // 0's socket-0 line at 2 (threads 1 and 3) and its socket-1 line at 1 (thread 2).
        let tree = RootedTree::parse("0(1,2,3)").unwrap();
        let b = OneLineBroadcast::with_sockets(&tree, &[0, 0, 1, 0]).unwrap();
        let abort = AtomicBool::new(false);
        let payload: Payload = [9; 7];
        std::thread::scope(|s| {
            for t in 0..4 {
                let (b, abort) = (&b, &abort);
                s.spawn(move || {
                    let w = Waiter::new(t, Duration::from_secs(10), abort)
                        .with_yield_after(Duration::ZERO);
                    assert_eq!(b.broadcast(t, 1, &payload, &w).unwrap(), payload);
                });
            }
        });
        let counts = b.placed.acks.counts();
        assert_eq!(b.ack_lines(0), vec![(0, 2), (1, 1)]);
        assert_eq!(counts, vec![2, 1]);
        // prepare (flush or rewrite) keeps every value.
        for t in 0..4 {
            b.prepare(t);
        }
        let after = b.placed.acks.counts();
        assert_eq!(after, counts);
        assert_eq!(b.data[0].flag.load(Ordering::Relaxed), 1);
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
