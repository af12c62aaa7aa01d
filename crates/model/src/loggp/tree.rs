//! The broadcast trees of the MPI libraries and their completion times.
//!
//! Ranks are numbered relative to the root (rank 0). Every tree is given by each rank's parent
//! (always a smaller rank) and its position among its parent's children in send order:
//! - [`Shape::Flat`]: the root sends to 1, 2, ..., p − 1 in turn (Open MPI `basic_linear`);
//! - [`Shape::Chain`]: ranks 1..p split into `fanout` consecutive chains, the root sending to the
//!   chain heads in turn (Open MPI `chain`; fan-out 1 is `pipeline`);
//! - [`Shape::Binary`]: the heap-numbered binary tree, children 2v + 1 then 2v + 2 (Open MPI
//!   `binary`);
//! - [`Shape::Knomial`]: the k-nomial tree: a rank's parent clears its lowest non-zero base-k
//!   digit; a rank sends to its children by decreasing subtree weight k^i, and within one weight by
//!   increasing digit (MPICH and Open MPI `knomial`; radix 2 is the binomial tree, sent largest
//!   subtree first as MPICH's `MPIR_Bcast_intra_binomial` does).
//!
//! Completion: with T the end-to-end time of one message and G the gap between a process's
//! consecutive sends, the j-th child (from 0) of a rank that has the data at time t has it at
//! t + j·G + T. A rank at depth d whose path from the root has positions summing to s has it at
//! d·T + s·G; the tree completes at the maximum over ranks (Pješivac-Grbović et al. 2007 §3
//! evaluate the same trees in the same way; with G = T, Hockney, the binomial tree gives
//! ⌈log2 p⌉(α + mβ) as in Thakur et al. 2005 §4.2).
//!
//! A reduction over the same tree is its broadcast run backwards with each message followed by
//! its combination (Chan et al. 2007 §3, the duality of broadcast and reduce): the same completion
//! formula with T + γm and G + γm.

/// A broadcast (or, reversed, reduction) tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Root sends to every rank.
    Flat,
    /// `fanout` chains (fan-out at least 1).
    Chain {
        /// Number of chains the root feeds.
        fanout: u32,
    },
    /// Heap-numbered binary tree.
    Binary,
    /// k-nomial tree (radix at least 2; 2 is binomial).
    Knomial {
        /// k.
        radix: u32,
    },
}

/// What the completion time of a tree depends on: for each depth that can finish last, the
/// largest sum of send positions on a path of that depth; and the most children of one rank.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// (depth d, largest position sum s at depth d), only the pairs no deeper pair dominates.
    frontier: Vec<(u32, u32)>,
    /// Children of the root.
    pub root_children: u32,
    /// Most children of a non-root rank (0 when every non-root rank is a leaf).
    pub inner_children: u32,
}

impl Profile {
    /// The time the last rank has the data: max over ranks of d·T + s·G, ns.
    pub fn completion(&self, time: f64, gap: f64) -> f64 {
        self.frontier
            .iter()
            .map(|&(d, s)| f64::from(d) * time + f64::from(s) * gap)
            .fold(0.0, f64::max)
    }

    /// Depth of the tree.
    pub fn depth(&self) -> u32 {
        self.frontier.iter().map(|&(d, _)| d).max().unwrap_or(0)
    }
}

impl Shape {
    /// Parent and send position of rank `v` (1 ≤ v < p).
    fn parent_and_position(self, p: u32, v: u32) -> (u32, u32) {
        match self {
            Shape::Flat => (0, v - 1),
            Shape::Chain { fanout } => {
                let chains = fanout.clamp(1, p - 1);
                let len = (p - 1) / chains;
                let longer = (p - 1) % chains;
                let i = v - 1;
                let (chain, offset) = if i < longer * (len + 1) {
                    (i / (len + 1), i % (len + 1))
                } else {
                    let rest = i - longer * (len + 1);
                    (longer + rest / len, rest % len)
                };
                if offset == 0 {
                    (0, chain)
                } else {
                    (v - 1, 0)
                }
            }
            Shape::Binary => ((v - 1) / 2, (v - 1) % 2),
            Shape::Knomial { radix } => {
                let k = u64::from(radix.max(2));
                let v64 = u64::from(v);
                let mut weight: u64 = 1;
                while (v64 / weight).is_multiple_of(k) {
                    weight *= k;
                }
                let digit = (v64 / weight) % k;
                let parent = v64 - digit * weight;
                // The parent's children of larger weight come first: those weights w' with
                // w' below the parent's own lowest weight (any for the root) and parent + w' < p.
                let limit = if parent == 0 {
                    u64::MAX
                } else {
                    let mut w: u64 = 1;
                    while (parent / w).is_multiple_of(k) {
                        w *= k;
                    }
                    w
                };
                let mut position = digit - 1;
                let mut w = weight.saturating_mul(k);
                while w < limit && parent + w < u64::from(p) {
                    position += ((u64::from(p) - 1 - parent) / w).min(k - 1);
                    w = w.saturating_mul(k);
                }
                (parent as u32, position as u32)
            }
        }
    }

    /// Every edge (parent, child) of the tree on `p` ranks, grouped by parent in ascending order
    /// and, within a parent, in send order. Time O(p log p), memory O(p).
    pub fn edges(self, p: u32) -> Vec<(u32, u32)> {
        let mut edges: Vec<(u32, u32, u32)> = (1..p)
            .map(|v| {
                let (parent, position) = self.parent_and_position(p, v);
                (parent, position, v)
            })
            .collect();
        edges.sort_unstable();
        edges
            .into_iter()
            .map(|(parent, _, v)| (parent, v))
            .collect()
    }

    /// The tree's profile on `p` ranks (p ≥ 1). Time O(p log p), memory O(p).
    pub fn profile(self, p: u32) -> Profile {
        let n = p.max(1) as usize;
        let mut depth = vec![0u32; n];
        let mut sum = vec![0u32; n];
        let mut children = vec![0u32; n];
        let mut deepest = vec![0u32; n];
        let mut max_depth = 0usize;
        for v in 1..p {
            let (parent, position) = self.parent_and_position(p, v);
            let (vi, pi) = (v as usize, parent as usize);
            depth[vi] = depth[pi] + 1;
            sum[vi] = sum[pi].saturating_add(position);
            children[pi] += 1;
            let d = depth[vi] as usize;
            deepest[d] = deepest[d].max(sum[vi]);
            max_depth = max_depth.max(d);
        }
        let mut frontier = Vec::new();
        let mut best_deeper: Option<u32> = None;
        for d in (1..=max_depth).rev() {
            if best_deeper.is_none_or(|b| deepest[d] > b) {
                frontier.push((d as u32, deepest[d]));
                best_deeper = Some(deepest[d]);
            }
        }
        Profile {
            frontier,
            root_children: children[0],
            inner_children: children.iter().skip(1).copied().max().unwrap_or(0),
        }
    }
}

/// ⌈log2 p⌉ (0 for p ≤ 1).
pub fn ceil_log2(p: u32) -> u32 {
    if p <= 1 {
        0
    } else {
        (p - 1).ilog2() + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_on_eight_ranks_finishes_after_three_rounds() {
        // p = 8, T = 10, G = 10 (Hockney): ⌈log2 8⌉ · 10 = 30; rank 7 = 4 + 2 + 1 has depth 3
        // and positions 0 + 0 + 0 (each the largest subtree first), rank 1 has depth 1 and
        // position 2 (the root sends 4, 2, then 1): 1·10 + 2·10 = 30 too.
        let prof = Shape::Knomial { radix: 2 }.profile(8);
        assert_eq!(prof.completion(10.0, 10.0), 30.0);
        assert_eq!(prof.root_children, 3);
        // With G = 1 < T = 10: rank 7 at 30 is last (rank 1 at 10 + 2 = 12).
        assert_eq!(prof.completion(10.0, 1.0), 30.0);
        assert_eq!(prof.depth(), 3);
    }

    #[test]
    fn flat_and_chain_shapes() {
        // Flat on 5 ranks: the last child is sent at 3G and arrives T later: 3·2 + 10 = 16.
        let flat = Shape::Flat.profile(5);
        assert_eq!(flat.completion(10.0, 2.0), 16.0);
        assert_eq!(flat.root_children, 4);
        assert_eq!(flat.inner_children, 0);
        // Chain with fan-out 2 on 6 ranks: chains {1,2,3} and {4,5}; rank 3 at 3T = 30, rank 5
        // at G + 2T = 22: 30.
        let chain = Shape::Chain { fanout: 2 }.profile(6);
        assert_eq!(chain.completion(10.0, 2.0), 30.0);
        assert_eq!(chain.root_children, 2);
        assert_eq!(chain.inner_children, 1);
        // Pipeline (fan-out 1) on 4 ranks: 3 hops.
        assert_eq!(
            Shape::Chain { fanout: 1 }.profile(4).completion(10.0, 2.0),
            30.0
        );
    }

    #[test]
    fn binary_and_knomial_shapes() {
        // Binary heap on 7 ranks: rank 6 = right child of 2, right child of 0: 2T + 2G.
        let bin = Shape::Binary.profile(7);
        assert_eq!(bin.completion(10.0, 3.0), 26.0);
        assert_eq!(bin.inner_children, 2);
        // 3-nomial on 9 ranks: root sends 3, 6 (weight 3) then 1, 2 (weight 1): positions 0..3.
        // Rank 8 = 6 + 2: parent 6 (position 1), then its second child (position 1): 2T + 2G.
        // Rank 2: depth 1, position 3: T + 3G. With T = 10, G = 4: max(28, 22) = 28.
        let k3 = Shape::Knomial { radix: 3 }.profile(9);
        assert_eq!(k3.root_children, 4);
        assert_eq!(k3.completion(10.0, 4.0), 28.0);
        // Hockney (G = T): (k − 1)⌈log_k p⌉ T = 2 · 2 · 10 = 40.
        assert_eq!(k3.completion(10.0, 10.0), 40.0);
    }

    #[test]
    fn edges_are_grouped_by_parent_in_send_order() {
        // Binomial on 8: the root sends to 4, 2, 1; rank 4 to 6, 5; rank 2 to 3; rank 6 to 7.
        let e = Shape::Knomial { radix: 2 }.edges(8);
        assert_eq!(e, [(0, 4), (0, 2), (0, 1), (2, 3), (4, 6), (4, 5), (6, 7)]);
    }

    #[test]
    fn two_ranks_have_one_message() {
        for shape in [
            Shape::Flat,
            Shape::Chain { fanout: 3 },
            Shape::Binary,
            Shape::Knomial { radix: 4 },
        ] {
            assert_eq!(shape.profile(2).completion(7.0, 1.0), 7.0, "{shape:?}");
        }
    }
}
