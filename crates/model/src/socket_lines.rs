//! One many-to-one line per socket over L3 domains: the neutral contract through which a pricing
//! gives the terms of a tree cost whose children are grouped by socket and placed on domains,
//! the cost of a whole tree under those terms (written once, [`evaluate`]), and what a
//! priced-tree space carries so that the optimizer can search it ([`SocketLines`]).
//!
//! This module belongs to no family. Its one implementation today is the relaxation of the CLa
//! broadcast with one line per socket (`modelopt_graph::socket_line_relaxation`, docs/cla.md
//! §13), whose exact optimum the optimizer finds by a dynamic program
//! (`modelopt_optimizer::socket_line_dp`) that reads the terms through [`SocketLineCost`] and
//! names no family.
//!
//! ## The cost
//! A node p in domain r on socket σ, with children c in domains d_c on sockets s_c and subtree
//! costs T(c), costs
//!
//! ```text
//! a_c  = edge(dist(r, d_c)) + T(c)                          arrival after p's start
//! F_s  = max_{c on s} a_c + group(k_s, j_s)                 k_s children in j_s domains
//! W_s  = max(W_prev, F_s) + read(dist(r, U_s))              groups in ascending socket order
//! T(p) = start + W_last,    T(leaf) = 0,    the tree: root + T(root)
//! ```
//!
//! where dist is the lowest level two places share ([`Distance`]) and the read's distance is
//! [`Distance::SameDomain`] when p's domain holds one of the group's children, else
//! [`Distance::SameSocket`] on p's socket, else [`Distance::OtherSocket`].
//!
//! ## The contract
//! Every term is a finite number of nanoseconds, at least 0; edges and reads do not decrease
//! with distance (same domain ≤ same socket ≤ other socket); a group's term does not decrease
//! with one more child, in a domain it holds or in a new one: group(k + 1, j) ≥ group(k, j) and
//! group(k + 1, j + 1) ≥ group(k, j), for 1 ≤ j ≤ k. Then T(p) is non-decreasing in every
//! T(c), so a subtree matters to its parent only through its root's domain, its node counts
//! and its own T: what makes a dynamic program over count vectors exact, and what lets it drop
//! every subtree whose T plus the least its ancestors add is over a ceiling. [`meets_contract`]
//! checks it up to a size.

use crate::tree::RootedTree;
use std::fmt;
use std::sync::Arc;

/// The lowest level of the machine two places share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Distance {
    /// One L3 domain.
    SameDomain,
    /// Two domains of one socket.
    SameSocket,
    /// Two sockets.
    OtherSocket,
}

impl Distance {
    /// Every distance, nearest first.
    pub const ALL: [Distance; 3] = [
        Distance::SameDomain,
        Distance::SameSocket,
        Distance::OtherSocket,
    ];

    /// The distance between two domains, given whether they are one and whether their sockets
    /// are.
    pub fn between(same_domain: bool, same_socket: bool) -> Self {
        if same_domain {
            Distance::SameDomain
        } else if same_socket {
            Distance::SameSocket
        } else {
            Distance::OtherSocket
        }
    }

    /// The distance of a parent's read of a group's line: across sockets, or on the parent's
    /// socket from its own domain when that domain holds one of the group's children
    /// (`own`), else from another domain of the socket.
    pub fn of_read(same_socket: bool, own: bool) -> Self {
        Distance::between(same_socket && own, same_socket)
    }
}

/// The terms of a cost with one many-to-one line per socket of a node's children (module docs),
/// in ns, under the module's contract.
pub trait SocketLineCost: Send + Sync + fmt::Debug {
    /// Added once, at the root (e.g. its read of its own buffer).
    fn root(&self) -> f64;
    /// What a parent does before any child can start; added at every node with children.
    fn start(&self) -> f64;
    /// A child's arrival offset after its parent's start, before its own subtree's T.
    fn edge(&self, between: Distance) -> f64;
    /// What a group of `children` children whose roots lie in `domains` distinct domains adds
    /// to its latest arrival before the parent reads its line; 1 ≤ domains ≤ children.
    fn group(&self, children: usize, domains: usize) -> f64;
    /// The parent's read of a group's line.
    fn read(&self, between: Distance) -> f64;
    /// What the cost is, for messages ("the relaxation of … (docs/cla.md §13)").
    fn what(&self) -> String;
}

/// What a priced-tree space carries when its T_min is bounded below by a [`SocketLineCost`]
/// over its groups (L3 domains): the terms and the socket of each group, numbered 0, 1, … in
/// the machine's socket order without gaps (ascending in group order where the groups are
/// domains). Where `by_domain`, the bound holds for every configuration of the
/// space, and a tree attaining it is a configuration of the space; else only the cost with
/// each socket's groups merged into one bounds them.
#[derive(Debug, Clone)]
pub struct SocketLines {
    /// The terms.
    pub cost: Arc<dyn SocketLineCost>,
    /// The socket of each group of the space: of the groups its threads are in, or with a
    /// free split ([`crate::placed_tree::PricedTreeSpace::capacity`]) of each group of the
    /// capacities.
    pub group_sockets: Vec<u32>,
    /// Whether the groups are the domains the terms are written for. Not where they are finer
    /// (a core that two threads placed by id share is a group of its own, and two such groups
    /// of one domain are not two domains): then the cost over the groups is no bound, and
    /// only its optimum with the groups of each socket merged is (every edge and read within a
    /// socket at its least, [`Distance::SameDomain`]).
    pub by_domain: bool,
}

/// The cost of `tree` under `cost` (module docs), node v in domain `domains[v]`, domain d on
/// socket `sockets[d]`, the root's term included; iterative, so any depth is safe. `None` if
/// the labels do not match the tree. Every search over this cost computes a group's arrival as
/// here, `latest + group(k, j)`, so that its values agree bit for bit.
pub fn evaluate(
    cost: &dyn SocketLineCost,
    tree: &RootedTree,
    domains: &[u32],
    sockets: &[u32],
) -> Option<f64> {
    if domains.len() != tree.len() || domains.iter().any(|&d| d as usize >= sockets.len()) {
        return None;
    }
    let socket = |v: u32| sockets[domains[v as usize] as usize];
    let mut t = vec![0.0f64; tree.len()];
    for &p in tree.preorder().iter().rev() {
        let kids = tree.children(p);
        if kids.is_empty() {
            continue;
        }
        let r = domains[p as usize];
        let sigma = socket(p);
        let mut groups: Vec<u32> = kids.iter().map(|&c| socket(c)).collect();
        groups.sort_unstable();
        groups.dedup();
        // The waits in ascending socket order: W = max(W, F_s) + read_s.
        let mut wait = f64::NEG_INFINITY;
        for &s in &groups {
            let members: Vec<u32> = kids.iter().copied().filter(|&c| socket(c) == s).collect();
            let mut used: Vec<u32> = members.iter().map(|&c| domains[c as usize]).collect();
            used.sort_unstable();
            used.dedup();
            let latest = members
                .iter()
                .map(|&c| {
                    let d = domains[c as usize];
                    cost.edge(Distance::between(d == r, s == sigma)) + t[c as usize]
                })
                .fold(f64::NEG_INFINITY, f64::max);
            let f = latest + cost.group(members.len(), used.len());
            let own = used.binary_search(&r).is_ok();
            wait = wait.max(f) + cost.read(Distance::of_read(s == sigma, own));
        }
        t[p as usize] = cost.start() + wait;
    }
    Some(cost.root() + t[tree.root() as usize])
}

/// Whether `cost` meets the module's contract for groups of up to `children` children over up
/// to `domains` domains: every term finite and at least 0, edges and reads not decreasing with
/// distance, a group's term not decreasing with one more child.
pub fn meets_contract(cost: &dyn SocketLineCost, children: usize, domains: usize) -> bool {
    let sane = |x: f64| x.is_finite() && x >= 0.0;
    let ordered = |f: &dyn Fn(Distance) -> f64| {
        Distance::ALL.iter().all(|&d| sane(f(d)))
            && f(Distance::SameDomain) <= f(Distance::SameSocket)
            && f(Distance::SameSocket) <= f(Distance::OtherSocket)
    };
    if !(sane(cost.root())
        && sane(cost.start())
        && ordered(&|d| cost.edge(d))
        && ordered(&|d| cost.read(d)))
    {
        return false;
    }
    for k in 1..=children {
        for j in 1..=k.min(domains) {
            let g = cost.group(k, j);
            if !sane(g) {
                return false;
            }
            if k < children {
                let more_here = cost.group(k + 1, j);
                let more_elsewhere = if j < domains {
                    cost.group(k + 1, j + 1)
                } else {
                    f64::INFINITY
                };
                if more_here < g || more_elsewhere < g {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round numbers: root 1, start 100, edges 10 / 20 / 40, reads 5 / 15 / 45, a group 1000 +
    /// 2 per child in a domain it already holds + 30 per further domain.
    #[derive(Debug)]
    struct Round;

    impl SocketLineCost for Round {
        fn root(&self) -> f64 {
            1.0
        }
        fn start(&self) -> f64 {
            100.0
        }
        fn edge(&self, between: Distance) -> f64 {
            match between {
                Distance::SameDomain => 10.0,
                Distance::SameSocket => 20.0,
                Distance::OtherSocket => 40.0,
            }
        }
        fn group(&self, children: usize, domains: usize) -> f64 {
            1000.0 + 2.0 * (children - domains) as f64 + 30.0 * (domains - 1) as f64
        }
        fn read(&self, between: Distance) -> f64 {
            match between {
                Distance::SameDomain => 5.0,
                Distance::SameSocket => 15.0,
                Distance::OtherSocket => 45.0,
            }
        }
        fn what(&self) -> String {
            "round numbers".into()
        }
    }

    #[test]
    fn a_two_level_tree_over_two_sockets_by_hand() {
        // Domains 0, 1 on socket 0, domain 2 on socket 1. 0(1(3),2): root 0 in domain 0, node 1
        // in domain 1, node 2 in domain 2, node 3 in domain 1.
        // Node 1: one child in its own domain: a = 10 + 0, F = 10 + 1000 = 1010, read from its
        // own domain 5: W = 1015, T(1) = 100 + 1015 = 1115.
        // Root: socket 0's group is node 1 (domain 1): a = 20 + 1115 = 1135, F = 2135, read
        // from another domain of the socket 15: W = 2150; socket 1's group is node 2: a = 40,
        // F = 1040, W = max(2150, 1040) + 45 = 2195. T(0) = 100 + 2195 = 2295; the tree 2296.
        let tree = RootedTree::parse("0(1(3),2)").unwrap();
        let t = evaluate(&Round, &tree, &[0, 1, 2, 1], &[0, 0, 1]).unwrap();
        assert_eq!(t, 2296.0);
    }

    #[test]
    fn one_group_over_two_domains_by_hand() {
        // 0(1,2,3), all on socket 0, root and node 1 in domain 0, nodes 2 and 3 in domain 1:
        // arrivals 10, 20, 20; F = 20 + 1000 + 2·(3 − 2) + 30·(2 − 1) = 1052; the root's domain
        // holds node 1, so the read is 5: T = 100 + 1057 = 1157, the tree 1158.
        let tree = RootedTree::parse("0(1,2,3)").unwrap();
        let t = evaluate(&Round, &tree, &[0, 0, 1, 1], &[0, 0]).unwrap();
        assert_eq!(t, 1158.0);
        // Labels that name a domain the sockets do not list, or too few labels: none.
        assert_eq!(evaluate(&Round, &tree, &[0, 0, 1, 2], &[0, 0]), None);
        assert_eq!(evaluate(&Round, &tree, &[0, 0, 1], &[0, 0]), None);
    }

    #[test]
    fn the_read_distance_follows_the_parents_domain() {
        assert_eq!(Distance::of_read(true, true), Distance::SameDomain);
        assert_eq!(Distance::of_read(true, false), Distance::SameSocket);
        assert_eq!(Distance::of_read(false, true), Distance::OtherSocket);
        assert_eq!(Distance::of_read(false, false), Distance::OtherSocket);
    }

    #[derive(Debug)]
    struct Cheaper;

    impl SocketLineCost for Cheaper {
        fn root(&self) -> f64 {
            0.0
        }
        fn start(&self) -> f64 {
            0.0
        }
        fn edge(&self, _: Distance) -> f64 {
            1.0
        }
        // A further domain makes a group cheaper: against the contract.
        fn group(&self, children: usize, domains: usize) -> f64 {
            10.0 + children as f64 - 2.0 * domains as f64
        }
        fn read(&self, between: Distance) -> f64 {
            match between {
                Distance::OtherSocket => 0.5,
                _ => 1.0,
            }
        }
        fn what(&self) -> String {
            "against the contract".into()
        }
    }

    #[test]
    fn the_contract_is_checked() {
        assert!(meets_contract(&Round, 40, 8));
        // Cheaper's reads fall with distance, and group(2, 2) = 8 < group(1, 1) = 9.
        assert!(!meets_contract(&Cheaper, 4, 2));
    }
}
