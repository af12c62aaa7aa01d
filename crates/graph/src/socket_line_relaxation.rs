//! The one-line broadcast on sockets split into L3 domains, each node keeping **one**
//! many-to-one line per socket of its children (`topology.sync_line = "socket"`, seed 001 §4
//! (2)): a relaxation of its CLa cost, as the terms of the neutral contract
//! [`SocketLineCost`] (`modelopt_model::socket_lines`). Its optimum over every rooted tree and
//! domain labeling, which the optimizer finds exactly (`modelopt_optimizer::socket_line_dp`),
//! is a certified lower bound on T_min of every tree of a request, and its tree a candidate for
//! the graph-priced search (`docs/cla.md` §13, "One line per socket: a relaxation"). This
//! module knows the graph's rules the relaxation comes from; the search is the optimizer's.
//!
//! ## Why a relaxation
//! With one line per socket the adds of a node's children come from several domains, and the
//! CLa graph's T_min (§5) enters the group at the write whose start is latest and visits the
//! others in the cheapest order from there: its cost depends on *which* domain holds the latest
//! child, and not monotonically (a child made slower elsewhere can become the entry and let the
//! order end in the poller's domain). No dynamic program over subtree costs is exact for that.
//! Drop the one term that breaks monotonicity and what is left has one
//! ([`modelopt_model::socket_lines::evaluate`] computes it):
//!
//! for a node p in domain r on socket σ whose k_s children on socket s hold roots in the set U_s
//! of domains, with arrivals a_c = x(r, d_c) + R_L + T(c) after p's S3 (x = R_R in one domain,
//! R_D across domains of a socket, R_Q across sockets; R_L: the child's S2), and the groups
//! waited for in ascending socket order (§7),
//!
//! ```text
//! F_s  = max_{c on s} a_c + R_I + (k_s − |U_s|)·R_R + (|U_s| − 1)·R_D
//! W_s  = max(W_prev, F_s) + read_s,   read_s = R_Q if s ≠ σ, else R_R if r ∈ U_s, else R_D
//! T(p) ≥ R_I + W_last,   T(leaf) = 0
//! ```
//!
//! because p's S3 fetches its fresh payload line (R_I), a group's first write fetches its fresh
//! line from the memory of its socket, where it is homed (R_I, rule 1), every later write
//! fetches it from the previous writer (R_R, or R_D when the domain changes, which it must do at
//! least |U_s| − 1 times), and the wait reads it from the last writer (across sockets R_Q; on
//! σ R_R at best when r ∈ U_s, else R_D). Each term is at most the graph's, and the whole is
//! non-decreasing in every child's T, so by induction the right side, evaluated bottom-up, is at
//! most the graph's T_min of the same tree. It equals it whenever the graph's order can end in
//! the poller's domain or the poller's domain holds no child of the group, i.e. unless a
//! group's latest child is in the poller's domain and another domain holds one of its children
//! (then the graph pays R_D − R_R more).
//!
//! ## Shared cores
//! When threads may share a core (t hardware threads a core, a free split past the machine's
//! cores), two threads of one core pass a line at R_L (seed 001 §2.1), not R_R, and the groups
//! are L3 domains whose threads are not interchangeable any more. The relaxation then prices
//! every transfer within a domain as if it could be between two threads of one core, except in
//! a group's chain of adds, where it can count: consecutive writers on one core are at most
//! k − ⌈k/t⌉ of the k − 1 steps (the k writers use at least ⌈k/t⌉ cores, and every run of
//! writers on one core but its first follows a writer on its core), and at most k − j, the
//! steps that stay in a domain when the chain changes domain the least, j − 1 times (a change
//! costs R_D ≥ R_R, so more changes never cost less). So, with L = min(k − j, k − ⌈k/t⌉),
//!
//! ```text
//! x(r, r) = R_L                       (the child may be the parent's core sibling)
//! group   = R_I + L·R_L + (k − j − L)·R_R + (j − 1)·R_D
//! read_s  = R_L if s = σ and r ∈ U_s  (the last writer may be the poller's core sibling)
//! ```
//!
//! each still at most the graph's, and with t = 1 (L = 0) the formulas above. Only the edge and
//! the read are loose by R_R − R_L where no child is the parent's sibling: a parent has at most
//! t − 1 siblings, but which child is one is not a term of the contract.

use modelopt_model::socket_lines::{Distance, SocketLineCost};

/// The line classes the relaxation uses, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relaxation {
    /// R_L: a line in the reader's own cache (the root's read of its buffer, a child's S2).
    pub local: f64,
    /// R_R: a transfer between two cores of one L3 domain.
    pub remote: f64,
    /// R_D: a transfer between two L3 domains of one socket.
    pub remote_domain: f64,
    /// R_Q: a transfer between two sockets.
    pub remote_socket: f64,
    /// R_I: a fresh line fetched from the memory of the reader's socket.
    pub invalid: f64,
    /// Hardware threads that may share a core: 1 when every thread has a core of its own;
    /// more, and transfers within a domain may be R_L (module docs, "Shared cores").
    pub per_core: u32,
}

impl Relaxation {
    /// The classes of a ccNUMA machine whose threads have a core each (its loader makes R_D
    /// equal to R_R on a machine whose socket is one domain).
    pub fn of(machine: &modelopt_model::ccnuma::Ccnuma) -> Self {
        let line = &machine.line;
        Relaxation {
            local: line.local,
            remote: line.remote,
            remote_domain: line.remote_domain,
            remote_socket: line.remote_socket,
            invalid: line.invalid,
            per_core: 1,
        }
    }

    /// The classes of a ccNUMA machine whose threads may share its cores, as many a core as
    /// its topology holds (module docs, "Shared cores").
    pub fn sharing_cores(machine: &modelopt_model::ccnuma::Ccnuma) -> Self {
        Relaxation {
            per_core: machine.topology.threads_per_core.max(1),
            ..Self::of(machine)
        }
    }

    /// The least transfer between two places at `between`: R_R (R_L when threads may share
    /// a core), R_D or R_Q.
    fn transfer(&self, between: Distance) -> f64 {
        match between {
            Distance::SameDomain if self.per_core > 1 => self.local.min(self.remote),
            Distance::SameDomain => self.remote,
            Distance::SameSocket => self.remote_domain,
            Distance::OtherSocket => self.remote_socket,
        }
    }
}

/// The terms of the module docs' formulas. Within the contract of
/// [`modelopt_model::socket_lines`] on every machine the loader accepts (R_R ≤ R_D ≤ R_Q, every
/// class positive).
impl SocketLineCost for Relaxation {
    /// The root's read of its buffer, R_L.
    fn root(&self) -> f64 {
        self.local
    }
    /// A parent's S3 fetches its fresh payload line, R_I.
    fn start(&self) -> f64 {
        self.invalid
    }
    /// x(r, d_c) + R_L: the transfer to the child's domain and its S2.
    fn edge(&self, between: Distance) -> f64 {
        self.transfer(between) + self.local
    }
    /// The group's fresh line from memory (R_I), then k − j adds in a domain already visited
    /// (R_R, or R_L for at most k − ⌈k/t⌉ of them after a writer on the same core) and j − 1
    /// into a further domain (R_D).
    fn group(&self, children: usize, domains: usize) -> f64 {
        let within = children.saturating_sub(domains);
        let per_core = (self.per_core.max(1) as usize).min(children.max(1));
        let same_core = within.min(children - children.div_ceil(per_core));
        let sibling = self.local.min(self.remote);
        self.invalid
            + same_core as f64 * sibling
            + (within - same_core) as f64 * self.remote
            + domains.saturating_sub(1) as f64 * self.remote_domain
    }
    /// The wait reads the line from the last writer: across sockets R_Q; on the parent's
    /// socket R_R at best when its domain holds a child of the group, else R_D.
    fn read(&self, between: Distance) -> f64 {
        self.transfer(between)
    }
    fn what(&self) -> String {
        "the broadcast's relaxation with one line per socket (docs/cla.md §13)".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelopt_model::ccnuma::tree::RootedTree;
    use modelopt_model::socket_lines::{evaluate, meets_contract};

    /// machines/chiplet-2s-4x8.toml: R_L 1.43, R_R 35, R_D 164.5, R_Q 223.5, R_I 122 ns.
    const CHIPLET: Relaxation = Relaxation {
        local: 1.43,
        remote: 35.0,
        remote_domain: 164.5,
        remote_socket: 223.5,
        invalid: 122.0,
        per_core: 1,
    };

    /// The same machine with its two hardware threads a core shared.
    const CHIPLET_SMT: Relaxation = Relaxation {
        per_core: 2,
        ..CHIPLET
    };

    #[test]
    fn a_flat_tree_over_two_domains_by_hand() {
        // 0(1,2,3): node 1 in the root's domain 0, nodes 2 and 3 in domain 1. Arrivals after
        // the root's S3 (R_I = 122): node 1 at 122 + R_R + R_L = 158.43, nodes 2 and 3 at
        // 122 + R_D + R_L = 287.93. The group: + R_I + (3 − 2)·R_R + (2 − 1)·R_D = 287.93 +
        // 122 + 35 + 164.5 = 609.43; the read from the root's domain R_R: 644.43; with the
        // root's R_L 645.86 ns.
        let tree = RootedTree::parse("0(1,2,3)").unwrap();
        let t = evaluate(&CHIPLET, &tree, &[0, 0, 1, 1], &[0, 0]).unwrap();
        assert!((t - 645.86).abs() < 1e-9, "{t}");
    }

    #[test]
    fn the_terms_by_hand_and_within_the_contract() {
        // A group of 5 children over 3 domains: R_I + 2·R_R + 2·R_D = 122 + 70 + 329 = 521.
        assert_eq!(CHIPLET.group(5, 3), 521.0);
        // An edge across sockets: R_Q + R_L = 224.93; the read from another domain R_D.
        assert_eq!(CHIPLET.edge(Distance::OtherSocket), 223.5 + 1.43);
        assert_eq!(CHIPLET.read(Distance::SameSocket), 164.5);
        assert!(meets_contract(&CHIPLET, 127, 8));
    }

    #[test]
    fn with_shared_cores_the_terms_by_hand() {
        // Two threads a core. A group of 5 children over 3 domains: 4 steps, 2 of them changes
        // of domain (R_D each), 5 − 3 = 2 within a domain, and the 5 writers use at least
        // ⌈5/2⌉ = 3 cores, so at most 5 − 3 = 2 steps follow a writer on the same core: both
        // R_L. 122 + 2·1.43 + 2·164.5 = 453.86.
        assert!((CHIPLET_SMT.group(5, 3) - 453.86).abs() < 1e-9);
        // 3 children in one domain: 2 steps within it, at most 3 − ⌈3/2⌉ = 1 on one core:
        // 122 + 1.43 + 35 = 158.43. 4 children: 2 of 3 steps, 122 + 2.86 + 35 = 159.86.
        assert!((CHIPLET_SMT.group(3, 1) - 158.43).abs() < 1e-9);
        assert!((CHIPLET_SMT.group(4, 1) - 159.86).abs() < 1e-9);
        // One child: its fresh line alone.
        assert_eq!(CHIPLET_SMT.group(1, 1), 122.0);
        // Within a domain the edge and the read may be a core sibling's: R_L + R_L, and R_L;
        // across domains and sockets as with a core each.
        assert_eq!(CHIPLET_SMT.edge(Distance::SameDomain), 1.43 + 1.43);
        assert_eq!(CHIPLET_SMT.read(Distance::SameDomain), 1.43);
        assert_eq!(CHIPLET_SMT.edge(Distance::SameSocket), 164.5 + 1.43);
        assert_eq!(CHIPLET_SMT.read(Distance::OtherSocket), 223.5);
        assert!(meets_contract(&CHIPLET_SMT, 127, 8));
        // No term above the core-each one.
        for k in 1..=40 {
            for j in 1..=k.min(8) {
                assert!(CHIPLET_SMT.group(k, j) <= CHIPLET.group(k, j));
            }
        }
    }
}
