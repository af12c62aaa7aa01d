//! The many-to-one (ack) lines of a tree collective: one counter line per (node, socket holding
//! some of its children), shared by the one-line broadcast ([`crate::bcast`], S5/S6) and the
//! tree barrier ([`crate::tree_barrier`], the arrival) and the reduction of
//! `models/small-reduce.cla` ([`crate::cla_reduce`], the children's notifications).
//!
//! Seed 001 §4 (2): "to isolate QPI transfers and minimize line stealing, we use one
//! synchronization line per socket". A child on socket s increments its parent's line of socket
//! s once per call; the parent waits for its lines in ascending socket order until each holds
//! epoch × (children on that socket). `docs/cla.md` §7 (`TreeCosts::finish`) and
//! `models/barrier.cla` (`line ack[t,s]`, `for s in child_sockets: wait ack[me,s] ==
//! children_on(s)`) price exactly this layout and this order.
//!
//! The counters only grow, so one object serves calls with epochs 1, 2, 3, ...: a child adds for
//! epoch e+1 only after its parent has finished waiting for epoch e (both collectives release the
//! child after that wait), so a parent waiting in epoch e sees at most e × children on each line,
//! and exactly that once they have all arrived.

use crate::coherence;
use crate::wait::{Stage, WaitError, Waiter};
use crossbeam_utils::CachePadded;
use modelopt_model::ccnuma::tree::RootedTree;
use std::sync::atomic::{AtomicU64, Ordering};

/// One many-to-one line of a node: the children on one socket increment it.
#[derive(Debug)]
pub(crate) struct AckLine {
    /// The children's socket.
    pub socket: u32,
    /// How many children are on it (each adds 1 per epoch).
    pub children: u64,
    /// The counter, alone in a 128-byte slot.
    pub count: CachePadded<AtomicU64>,
}

/// Every node's many-to-one lines, and which line each child increments.
#[derive(Debug)]
pub(crate) struct AckLines {
    /// Node by node, each node's in ascending socket order.
    lines: Vec<AckLine>,
    /// Node v's lines are `lines[first[v]..first[v + 1]]` (n + 1 entries).
    first: Vec<usize>,
    /// The line (index in `lines`) node v increments at its parent.
    notify: Vec<Option<usize>>,
}

impl AckLines {
    /// The lines of `tree` with node i on socket `sockets[i]`; `sockets` must have one entry per
    /// node (the callers check it).
    pub fn new(tree: &RootedTree, sockets: &[u32]) -> Self {
        let n = tree.len();
        let mut lines = Vec::new();
        let mut first = Vec::with_capacity(n + 1);
        let mut notify = vec![None; n];
        let mut groups: Vec<(u32, u64)> = Vec::new();
        for v in 0..n as u32 {
            first.push(lines.len());
            let kids = tree.children(v);
            groups.clear();
            groups.extend(
                kids.iter()
                    .map(|&c| (sockets.get(c as usize).copied().unwrap_or(0), 1)),
            );
            groups.sort_unstable();
            groups.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    kept.1 += later.1;
                }
                same
            });
            let base = lines.len();
            lines.extend(groups.iter().map(|&(socket, children)| AckLine {
                socket,
                children,
                count: CachePadded::new(AtomicU64::new(0)),
            }));
            for &c in kids {
                let s = sockets.get(c as usize).copied().unwrap_or(0);
                // `groups` is sorted and holds every child's socket.
                notify[c as usize] = groups
                    .binary_search_by_key(&s, |g| g.0)
                    .ok()
                    .map(|j| base + j);
            }
        }
        first.push(lines.len());
        AckLines {
            lines,
            first,
            notify,
        }
    }

    /// Node `node`'s lines in the order it waits for them; empty for a leaf or a node outside
    /// the tree.
    pub fn of(&self, node: usize) -> &[AckLine] {
        match (self.first.get(node), self.first.get(node + 1)) {
            (Some(&a), Some(&b)) => &self.lines[a..b],
            _ => &[],
        }
    }

    /// Node `node`'s lines as (socket, children on it).
    pub fn summary(&self, node: usize) -> Vec<(u32, u64)> {
        self.of(node)
            .iter()
            .map(|a| (a.socket, a.children))
            .collect()
    }

    /// Every line of every node.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Every line's count, node by node (tests).
    #[cfg(test)]
    pub fn counts(&self) -> Vec<u64> {
        self.lines
            .iter()
            .map(|a| a.count.load(Ordering::Relaxed))
            .collect()
    }

    /// The index of the line each node increments at its parent (tests).
    #[cfg(test)]
    pub fn notify_indices(&self) -> &[Option<usize>] {
        &self.notify
    }

    /// Evict node `node`'s lines from every cache (no fence: the caller fences once).
    pub fn evict(&self, node: usize) {
        for a in self.of(node) {
            coherence::evict(&*a.count);
        }
    }

    /// Store node `node`'s counts back unchanged (the fallback where nothing can flush).
    pub fn rewrite(&self, node: usize) {
        for a in self.of(node) {
            a.count
                .store(a.count.load(Ordering::Relaxed), Ordering::Relaxed);
        }
    }

    /// Node `node` waits, socket by socket in ascending order, until each of its lines holds
    /// `epoch` × (children on that socket); `stage` names the wait of one socket.
    pub fn wait_for_children(
        &self,
        node: usize,
        epoch: u64,
        waiter: &Waiter<'_>,
        stage: impl Fn(u32) -> Stage,
    ) -> Result<(), WaitError> {
        for a in self.of(node) {
            let target = epoch.saturating_mul(a.children);
            waiter.wait(stage(a.socket), || {
                a.count.load(Ordering::Acquire) >= target
            })?;
        }
        Ok(())
    }

    /// Node `child` adds 1 to its parent's line of its own socket (nothing for the root). The
    /// add is a release (so the parent that sees it sees everything `child` did before) and an
    /// acquire (so the line's earlier adds, and what they published, are visible after it).
    pub fn notify_parent(&self, child: usize) {
        if let Some(&Some(j)) = self.notify.get(child) {
            self.lines[j].count.fetch_add(1, Ordering::AcqRel);
        }
    }
}
/// A placement that does not give one socket per tree node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the placement gives {sockets} sockets but the tree has {nodes} nodes (one socket per node)"
)]
pub struct SocketsMismatch {
    /// Entries of the placement.
    pub sockets: usize,
    /// Nodes of the tree.
    pub nodes: usize,
}

/// What every tree runner (broadcast, barrier, reduction) is built on: the tree, the socket of
/// each node, and the many-to-one lines that placement gives. One constructor, one check.
#[derive(Debug)]
pub(crate) struct PlacedAcks {
    /// Each node's parent (`None` at the root).
    pub parent: Vec<Option<u32>>,
    /// The root node (thread).
    pub root: u32,
    /// The socket label of every node, as given.
    pub sockets: Vec<u32>,
    /// Every node's ack lines and the line each child increments.
    pub acks: AckLines,
}

impl PlacedAcks {
    /// `tree` with every node on one socket: one ack line per node with children.
    pub fn on_one_socket(tree: &RootedTree) -> Self {
        Self::build(tree, &vec![0; tree.len()])
    }

    /// `tree` with node i on socket `sockets[i]`: one ack line per (node, socket holding some
    /// of its children). Only the labels' equality and order matter (Linux package ids or the
    /// model's socket numbers).
    ///
    /// Errors: [`SocketsMismatch`] unless `sockets` has one entry per node.
    pub fn on_sockets(tree: &RootedTree, sockets: &[u32]) -> Result<Self, SocketsMismatch> {
        if sockets.len() != tree.len() {
            return Err(SocketsMismatch {
                sockets: sockets.len(),
                nodes: tree.len(),
            });
        }
        Ok(Self::build(tree, sockets))
    }

    fn build(tree: &RootedTree, sockets: &[u32]) -> Self {
        PlacedAcks {
            parent: tree.parents().to_vec(),
            root: tree.root(),
            sockets: sockets.to_vec(),
            acks: AckLines::new(tree, sockets),
        }
    }
}

/// The accessors every tree runner ([`crate::bcast::OneLineBroadcast`],
/// [`crate::tree_barrier::TreeBarrier`], [`crate::cla_reduce::ClaTreeReduce`]) has, from its
/// fields `parent`, `root`, `sockets` and `acks`: written once here.
macro_rules! tree_runner_accessors {
    ($what:literal) => {
        /// Threads taking part.
        pub fn threads(&self) -> u32 {
            self.placed.parent.len() as u32
        }

        /// The root thread.
        pub fn root(&self) -> u32 {
            self.placed.root
        }

        /// The socket of every node, as given to the constructor.
        pub fn sockets(&self) -> &[u32] {
            &self.placed.sockets
        }

        /// Node `node`'s many-to-one (ack) lines in the order it waits for them: (socket,
        /// children on it). Empty for a leaf or a node outside the tree.
        pub fn ack_lines(&self, node: u32) -> Vec<(u32, u64)> {
            self.placed.acks.summary(node as usize)
        }

        #[doc = concat!("Every ack line of the ", $what, ".")]
        pub fn ack_line_count(&self) -> usize {
            self.placed.acks.len()
        }
    };
}
pub(crate) use tree_runner_accessors;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_parent_and_child_socket_in_ascending_order() {
        // 0(1(3,4),2) with sockets [0, 1, 0, 1, 0]: node 0's children 1 (socket 1) and 2
        // (socket 0) → lines (0,1), (1,1) in that order; node 1's children 3 (socket 1) and 4
        // (socket 0) → (0,1), (1,1); leaves none: 4 lines. Child 2 notifies node 0's line 0,
        // child 1 its line 1, child 4 node 1's first line (index 2), child 3 index 3.
        let tree = RootedTree::parse("0(1(3,4),2)").unwrap();
        let p = PlacedAcks::on_sockets(&tree, &[0, 1, 0, 1, 0]).unwrap();
        assert_eq!(p.acks.summary(0), vec![(0, 1), (1, 1)]);
        assert_eq!(p.acks.summary(1), vec![(0, 1), (1, 1)]);
        assert!(p.acks.summary(2).is_empty() && p.acks.summary(99).is_empty());
        assert_eq!(p.acks.len(), 4);
        assert_eq!(
            p.acks.notify_indices(),
            [None, Some(1), Some(0), Some(3), Some(2)]
        );
        assert_eq!(
            (p.root, p.parent.len(), p.sockets.as_slice()),
            (0, 5, &[0, 1, 0, 1, 0][..])
        );
        // One socket: one line per parent, node 0's counting its 2 children.
        let one = PlacedAcks::on_one_socket(&tree);
        assert_eq!(one.acks.summary(0), vec![(0, 2)]);
        assert_eq!(one.acks.len(), 2);
        // A placement of the wrong length is refused, once for every runner.
        assert_eq!(
            PlacedAcks::on_sockets(&tree, &[0]).unwrap_err(),
            SocketsMismatch {
                sockets: 1,
                nodes: 5
            }
        );
    }
}
