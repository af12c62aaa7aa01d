//! The one-line broadcast of seed 001 Figure 1 over any rooted tree and socket placement, in the
//! closed form of Eq. (2):
//!
//! `T_bc(tree) = T_lev(k_0) + max_i T_bc(stree_i)`, `T_bc(leaf) = 0`,
//!
//! generalized to several sockets as §4 prescribes (inter-socket edges cost R_Q, one
//! many-to-one line per socket, no QPI congestion between subtrees). The formulas are the
//! critical path of the CLa graph of `models/one-line-bcast.cla` under the rules of
//! `docs/cla.md` §4–§7; the `modelopt-graph` tests check both agree on every small tree and
//! placement.
//!
//! For a node p on socket σ whose children are grouped by socket (ascending), times measured from
//! the end of p's S2 (the copy of its parent's payload):
//!
//! | term | T_min | T_max (line stealing) |
//! |---|---|---|
//! | A(p): S3 + S4 | R_I | max_c mem(σ, s_c) + 2·Σ_c x(c, p) + max_c x(p, c) |
//! | arrival of child c | A + x(p, c) + R_L + T(c) | same with T_max(c) |
//! | group G_s after its latest arrival | R_I + (\|C_s\| − 1)·R_R | mem(s, σ) + \|C_s\|·x(σ, s) + (\|C_s\| − 1)·x(s, σ) |
//! | wait W_s | max(W_prev, G_s) + x(s, σ) | same |
//!
//! where x is R_R within a socket and R_Q across, mem(s, σ) is R_I or R_QI. The whole broadcast
//! adds R_L: the root's read of its own buffer.

use super::LineCosts;
use crate::placed_tree::{Domains, Group, LineClasses, PlacedTreeCost};
use serde::Serialize;

/// The five line classes as the tree formulas use them (socket-level classes only: two threads
/// of one socket are R_R apart).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TreeCosts {
    /// R_L.
    pub local: f64,
    /// R_R.
    pub socket: f64,
    /// R_Q.
    pub remote: f64,
    /// R_I.
    pub memory: f64,
    /// R_QI.
    pub remote_memory: f64,
    /// One synchronization line per L3 domain: the labels are domains (docs/cla.md §13).
    /// `None`: one line per socket, the labels are sockets.
    pub domains: Option<Domains>,
}

impl TreeCosts {
    /// The constants of a ccNUMA machine.
    pub fn from_lines(line: &LineCosts) -> Self {
        TreeCosts {
            local: line.local,
            socket: line.remote,
            remote: line.remote_socket,
            memory: line.invalid,
            remote_memory: line.invalid_remote_socket,
            domains: None,
        }
    }

    /// x(a, b): a line transfer between threads on sockets `a` and `b`.
    pub fn transfer(&self, a: u32, b: u32) -> f64 {
        LineClasses::from(*self).transfer(a, b)
    }

    /// A fetch from memory homed on `home` by a thread on `socket`.
    pub fn fetch(&self, home: u32, socket: u32) -> f64 {
        LineClasses::from(*self).fetch(home, socket)
    }

    /// What every broadcast adds: the root reads its own buffer (R_L).
    pub fn offset(&self) -> f64 {
        LineClasses::from(*self).offset()
    }

    /// T_lev(k) of Eq. (2) on one socket, `(min, max)`:
    /// min = (R_I + R_R) + R_L + (R_I + k·R_R); max = 2·R_I + R_L + 2·R_R + 4k·R_R.
    pub fn level(&self, k: u32) -> (f64, f64) {
        if k == 0 {
            return (0.0, 0.0);
        }
        let (a_min, a_max) = self.start(0, &[(0, k)]);
        let e = self.edge(0, 0);
        self.finish(
            0,
            &[Group {
                socket: 0,
                count: k,
                arrival_min: a_min + e,
                arrival_max: a_max + e,
            }],
        )
    }
}

/// On one socket, Eq. (2) is the max-plus recursion of [`crate::tree::LevelCost`] with
/// T_lev = [`TreeCosts::level`] and the offset R_L.
impl crate::tree::LevelCost for TreeCosts {
    fn level(&self, k: u32) -> (f64, f64) {
        TreeCosts::level(self, k)
    }
    fn offset(&self) -> (f64, f64) {
        (TreeCosts::offset(self), TreeCosts::offset(self))
    }
}

/// The ccNUMA one-line broadcast priced through the family-neutral contract: the closed forms of
/// the table above, which are exactly the socket-line form of [`LineClasses`].
impl PlacedTreeCost for TreeCosts {
    fn root_offset(&self) -> f64 {
        self.local
    }

    /// A(p) = S3 + S4 of a node on `socket` with children on the given sockets (one entry per
    /// socket: socket, count); `(min, max)`.
    fn start(&self, socket: u32, children: &[(u32, u32)]) -> (f64, f64) {
        let mut invalidate = 0.0;
        let mut reread: f64 = 0.0;
        let mut fetch: f64 = 0.0;
        for &(s, count) in children {
            if count > 0 {
                invalidate += f64::from(count) * self.transfer(s, socket);
                reread = reread.max(self.transfer(socket, s));
                fetch = fetch.max(self.fetch(socket, s));
            }
        }
        (self.memory, fetch + 2.0 * invalidate + reread)
    }

    /// The arrival offset of a child: its S1 (x(p, c)) and S2 (R_L).
    fn edge(&self, parent_socket: u32, child_socket: u32) -> f64 {
        self.transfer(parent_socket, child_socket) + self.local
    }

    /// The many-to-one of a node on `socket`, given its groups in ascending socket order with
    /// arrivals that already include A(p); `(min, max)` = the end of the node's last wait.
    fn finish(&self, socket: u32, groups: &[Group]) -> (f64, f64) {
        let mut w_min = f64::NEG_INFINITY;
        let mut w_max = f64::NEG_INFINITY;
        for g in groups.iter().filter(|g| g.count > 0) {
            let rest = f64::from(g.count - 1);
            let read = self.transfer(g.socket, socket);
            let g_min = g.arrival_min + self.memory + rest * self.socket;
            let g_max = g.arrival_max
                + self.fetch(g.socket, socket)
                + f64::from(g.count) * self.transfer(socket, g.socket)
                + rest * read;
            w_min = w_min.max(g_min) + read;
            w_max = w_max.max(g_max) + read;
        }
        (w_min.max(0.0), w_max.max(0.0))
    }

    /// A lower bound on (T_min, T_max) of a tree under every placement on `sockets` sockets: every
    /// edge costs at least R_R, every fetch from memory at least R_I, the slowest child's group holds
    /// at least that child, and the largest group holds at least ⌈k/S⌉ of the k children.
    /// Needs R_Q ≥ R_R and R_QI ≥ R_I, which the machine loader checks.
    fn placement_lower_bound(&self, levels: &[u32], sockets: u32) -> (f64, f64) {
        let costs = self;
        let s = sockets.max(1);
        let n = levels.len();
        let mut parent = vec![0usize; n];
        let mut last = vec![0usize; n + 1];
        for (i, &l) in levels.iter().enumerate() {
            if l > 0 {
                parent[i] = last[l as usize - 1];
            }
            last[l as usize] = i;
        }
        let (rr, ri, rl) = (costs.socket, costs.memory, costs.local);
        let mut kids = vec![0u32; n];
        let mut hi = vec![[f64::NEG_INFINITY; 2]; n];
        let mut lo = vec![[f64::INFINITY; 2]; n];
        let mut value = vec![[0.0f64; 2]; n];
        for i in (0..n).rev() {
            let k = kids[i];
            if k > 0 {
                let big = f64::from(k.div_ceil(s));
                let kf = f64::from(k);
                let a = [ri, ri + 2.0 * kf * rr + rr];
                for b in 0..2 {
                    let (slow, fast) = (a[b] + hi[i][b], a[b] + lo[i][b]);
                    let (one, many) = if b == 0 {
                        (ri + rr, ri + big * rr)
                    } else {
                        (ri + 2.0 * rr, ri + 2.0 * big * rr)
                    };
                    value[i][b] = (slow + one).max(fast + many);
                }
            }
            if i > 0 {
                let p = parent[i];
                kids[p] += 1;
                for b in 0..2 {
                    let arr = rr + rl + value[i][b];
                    hi[p][b] = hi[p][b].max(arr);
                    lo[p][b] = lo[p][b].min(arr);
                }
            }
        }
        let off = costs.offset();
        (off + value[0][0], off + value[0][1])
    }

    fn line_classes(&self) -> Option<LineClasses> {
        Some(LineClasses::from(*self))
    }
}

impl From<TreeCosts> for LineClasses {
    fn from(c: TreeCosts) -> Self {
        LineClasses {
            local: c.local,
            socket: c.socket,
            remote: c.remote,
            memory: c.memory,
            remote_memory: c.remote_memory,
            domains: c.domains,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::RootedTree;

    #[test]
    fn the_level_recursion_is_eq_2_on_one_socket_for_every_recursive_tree_of_7_nodes() {
        // Every parent array with parent(i) < i on 7 nodes (6! = 720 labelled trees, every
        // rooted shape among them): the one-socket max-plus evaluation of crate::tree equals
        // the general TreeCosts::evaluate with every node on socket 0.
        use crate::tree::{LevelTable, Scratch};
        let c = TreeCosts {
            local: 2.3,
            socket: 35.0,
            remote: 94.0,
            memory: 70.0,
            remote_memory: 107.0,
            domains: None,
        };
        let table = LevelTable::new(&c, 7);
        let mut scratch = Scratch::default();
        let mut choice = [0usize; 7];
        let mut checked = 0;
        loop {
            let parents: Vec<Option<u32>> = (0..7)
                .map(|i| (i > 0).then_some(choice[i] as u32))
                .collect();
            let tree = RootedTree::from_parents(&parents).unwrap();
            let general = c.evaluate(&tree, &[0; 7]).unwrap();
            let depths = tree.depths();
            let levels: Vec<u32> = tree
                .preorder()
                .iter()
                .map(|&v| depths[v as usize])
                .collect();
            let (a, b) = table.evaluate(&levels, &mut scratch);
            assert!((a - general.min_ns).abs() < 1e-9, "{parents:?}");
            assert!((b - general.max_ns).abs() < 1e-9, "{parents:?}");
            checked += 1;
            // Next parent array: an odometer with choice[i] < i.
            let mut i = 1;
            while i < 7 {
                choice[i] += 1;
                if choice[i] < i {
                    break;
                }
                choice[i] = 0;
                i += 1;
            }
            if i == 7 {
                break;
            }
        }
        assert_eq!(checked, 720);
    }

    fn sandy() -> TreeCosts {
        TreeCosts {
            local: 2.3,
            socket: 35.0,
            remote: 94.0,
            memory: 70.0,
            remote_memory: 107.0,
            domains: None,
        }
    }

    #[test]
    fn level_matches_the_rules() {
        let c = sandy();
        let (lo, hi) = c.level(2);
        // (R_I + R_R) + R_L + (R_I + 2 R_R) = 70 + 35 + 2.3 + 70 + 70.
        assert!((lo - 247.3).abs() < 1e-9, "{lo}");
        // 2 R_I + R_L + 2 R_R + 8 R_R = 140 + 2.3 + 350.
        assert!((hi - 492.3).abs() < 1e-9, "{hi}");
    }

    #[test]
    fn figure_2_tree_on_one_socket() {
        // docs/cla.md §7: T_min = 461.9 ns for 0(1(3),2).
        let t = RootedTree::parse("0(1(3),2)").unwrap();
        let cost = sandy().evaluate(&t, &[0, 0, 0, 0]).unwrap();
        assert!((cost.min_ns - 461.9).abs() < 1e-9, "{cost:?}");
        // Eq. (2) by hand: R_L + T_lev(2) + max(T_bc(1), 0) with T_bc(1) = T_lev(1).
        let c = sandy();
        let eq2 = c.offset() + c.level(2).0 + c.level(1).0;
        assert!((cost.min_ns - eq2).abs() < 1e-9);
        let eq2_max = c.offset() + c.level(2).1 + c.level(1).1;
        assert!((cost.max_ns - eq2_max).abs() < 1e-9);
    }

    #[test]
    fn a_remote_child_costs_more() {
        let t = RootedTree::parse("0(1(3),2)").unwrap();
        let local = sandy().evaluate(&t, &[0, 0, 0, 0]).unwrap();
        let split = sandy().evaluate(&t, &[0, 1, 0, 1]).unwrap();
        assert!(split.min_ns > local.min_ns);
        assert!(sandy().evaluate(&t, &[0, 0]).is_err());
    }
}
