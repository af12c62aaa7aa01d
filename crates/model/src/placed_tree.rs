//! Rooted trees placed on sockets: the contract through which a family prices them, and the
//! search space a request hands the optimizer.
//!
//! This module belongs to no family. A family says what a node's level, an edge and a group of
//! children on one socket cost ([`PlacedTreeCost`]); the recursion that turns those prices into
//! the cost of a whole tree is written once, here ([`PlacedTreeCost::evaluate`], seed 001 Eq. 2
//! generalized to sockets as §4 prescribes); the optimizer searches trees and placements through
//! the trait and never names a family. The ccNUMA one-line broadcast (`ccnuma::bcast::TreeCosts`)
//! is the implementation today.
//!
//! Why these three terms: in the CLa graph of a tree collective (docs/cla.md §4–§7) a node p on
//! socket σ first does its own work before any child can start (`start`, A(p)), each child c then
//! arrives after an offset that depends only on the two sockets (`edge`) plus its own subtree's
//! time, and p finishes after waiting, socket by socket, for the latest arrival of each group of
//! children that share a synchronization line (`finish`). A subtree therefore matters to its
//! parent only through its root's socket and its (T_min, T_max): that is what makes a dynamic
//! program over subtrees exact (docs/cla.md §8).

use crate::request::{Cost, Params};
use crate::socket_lines::SocketLines;
use crate::tree::{LevelCost, RootedTree, TreeError};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// One many-to-one group of a node: its children on one socket.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Group {
    /// The children's socket.
    pub socket: u32,
    /// How many children.
    pub count: u32,
    /// Latest arrival under T_min, ns from the end of the node's own receive (with A(p) added
    /// once [`PlacedTreeCost::finish`] is called).
    pub arrival_min: f64,
    /// The same under T_max.
    pub arrival_max: f64,
}

/// How a family prices a rooted tree whose nodes run on sockets, each node keeping one
/// many-to-one synchronization line per socket of its children.
///
/// Contract (what the optimizer's searches rely on):
/// - every value is in ns, finite and non-negative;
/// - [`finish`](Self::finish) is non-decreasing in every group's arrivals, and `start` and
///   `finish` are non-decreasing in every group's count, so a slower or larger subtree never
///   makes its parent finish earlier (optimal substructure: the exactness of the dynamic
///   programs rests on this);
/// - the one-socket restriction is the [`LevelCost`] supertrait: `level(k)` must equal
///   `finish(0, [one group of k children on socket 0 arriving at start + edge(0, 0)])`, and
///   `LevelCost::offset` must be `(root_offset, root_offset)`;
/// - [`placement_lower_bound`](Self::placement_lower_bound) is at most the cost of the tree
///   under every placement on the given number of sockets;
/// - [`line_classes`](Self::line_classes) is `Some` only if `start`, `edge` and `finish` equal
///   the closed forms documented on [`LineClasses`] for the constants returned.
pub trait PlacedTreeCost: LevelCost + Send + Sync + fmt::Debug {
    /// What every tree adds once (e.g. the root reading its own buffer), ns.
    fn root_offset(&self) -> f64;
    /// The arrival offset of a child on `child_socket` below a parent on `parent_socket`: the
    /// child's receive before its own subtree starts, ns.
    fn edge(&self, parent_socket: u32, child_socket: u32) -> f64;
    /// A(p), (min, max): the work of a node on `socket` before its children's arrivals count,
    /// given its children as (socket, count) pairs, one per socket.
    fn start(&self, socket: u32, children: &[(u32, u32)]) -> (f64, f64);
    /// The end of the node's last wait, (min, max), given its groups in ascending socket order
    /// with arrivals that already include A(p); (0, 0) for a leaf.
    fn finish(&self, socket: u32, groups: &[Group]) -> (f64, f64);
    /// A lower bound on (T_min, T_max) of the tree with these preorder levels under every
    /// placement of its nodes on `sockets` sockets.
    fn placement_lower_bound(&self, levels: &[u32], sockets: u32) -> (f64, f64);
    /// The constants, when the pricing is exactly the socket-line form of [`LineClasses`]: the
    /// form the optimizer's exact multi-socket dynamic program is built on. `None` restricts
    /// exact search to one socket (and to exhaustive enumeration where it is affordable).
    fn line_classes(&self) -> Option<LineClasses>;

    /// (T_min, T_max) of the whole tree with node v on socket `sockets[v]`: the recursion
    /// T(p) = finish(σ_p, groups of (A(p) + edge + T(c))), T(leaf) = 0, plus `root_offset`.
    /// Iterative (no recursion a tree's depth controls).
    fn evaluate(&self, tree: &RootedTree, sockets: &[u32]) -> Result<Cost, TreeError> {
        if sockets.len() != tree.len() {
            return Err(TreeError::Placement {
                nodes: tree.len() as u32,
                got: sockets.len(),
            });
        }
        let order = tree.preorder();
        let mut t_min = vec![0.0; tree.len()];
        let mut t_max = vec![0.0; tree.len()];
        let mut groups: Vec<Group> = Vec::new();
        let mut counts: Vec<(u32, u32)> = Vec::new();
        for &p in order.iter().rev() {
            let kids = tree.children(p);
            if kids.is_empty() {
                continue;
            }
            let sigma = sockets[p as usize];
            groups.clear();
            for &c in kids {
                let s = sockets[c as usize];
                let e = self.edge(sigma, s);
                let (lo, hi) = (e + t_min[c as usize], e + t_max[c as usize]);
                match groups.iter_mut().find(|g| g.socket == s) {
                    Some(g) => {
                        g.count += 1;
                        g.arrival_min = g.arrival_min.max(lo);
                        g.arrival_max = g.arrival_max.max(hi);
                    }
                    None => groups.push(Group {
                        socket: s,
                        count: 1,
                        arrival_min: lo,
                        arrival_max: hi,
                    }),
                }
            }
            groups.sort_by_key(|g| g.socket);
            counts.clear();
            counts.extend(groups.iter().map(|g| (g.socket, g.count)));
            let (a_min, a_max) = self.start(sigma, &counts);
            for g in &mut groups {
                g.arrival_min += a_min;
                g.arrival_max += a_max;
            }
            let (lo, hi) = self.finish(sigma, &groups);
            t_min[p as usize] = lo;
            t_max[p as usize] = hi;
        }
        let root = tree.root() as usize;
        let off = self.root_offset();
        Ok(Cost::range(off + t_min[root], off + t_max[root]))
    }
}

/// The socket-line form: five line-transfer classes and the closed forms of seed 001 §4 built
/// from them (docs/cla.md §7). With x(a, b) = `socket` (R_R) on one socket and `remote` (R_Q)
/// across, mem(h, s) = `memory` (R_I) when the line's home h is the reader's socket s and
/// `remote_memory` (R_QI) otherwise, for a node on σ with children C_s on socket s:
///
/// | term | T_min | T_max |
/// |---|---|---|
/// | start A(p) | R_I | max_s mem(σ, s) + 2·Σ_c x(c, p) + max_s x(p, s) |
/// | edge | x(p, c) + R_L | same |
/// | group s, after its latest arrival | R_I + (\|C_s\| − 1)·R_R | mem(s, σ) + \|C_s\|·x(σ, s) + (\|C_s\| − 1)·x(s, σ) |
/// | wait W_s (ascending s) | max(W_prev, G_s) + x(s, σ) | same |
/// | root offset | R_L | R_L |
///
/// **Units below a socket** ([`Domains`], docs/cla.md §13): when each node keeps one
/// synchronization line per L3 domain of its children instead of per socket, the labels above
/// are *units* (L3 domains numbered across sockets, unit u on socket u / D) and x(a, b) is R_R
/// within one unit, R_D (`Domains::remote_domain`) between two units of one socket and R_Q
/// across sockets; memory stays per socket (mem compares the units' sockets). Every formula
/// above is unchanged.
///
/// The exact multi-socket dynamic program of the optimizer and its lower bounds are algebra on
/// these constants; a pricing that returns them from [`PlacedTreeCost::line_classes`] promises
/// its three terms are these formulas. Needs R_L ≤ R_R ≤ R_D ≤ R_Q and R_I ≤ R_QI.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LineClasses {
    /// R_L: a line in the reader's own cache.
    pub local: f64,
    /// R_R: a line in another core's cache of the same unit (socket, or L3 domain).
    pub socket: f64,
    /// R_Q: a line in a cache of another socket.
    pub remote: f64,
    /// R_I: a line from the reader's own socket's memory.
    pub memory: f64,
    /// R_QI: a line from another socket's memory.
    pub remote_memory: f64,
    /// When the units are L3 domains: how many a socket holds and what a transfer between two
    /// of them costs. `None`: the units are the sockets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domains: Option<Domains>,
}

/// Units below a socket: the L3 domains (chiplets) that each keep their own synchronization
/// line, `per_socket` to a socket, unit u on socket u / `per_socket`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Domains {
    /// L3 domains per socket (at least 1).
    pub per_socket: u32,
    /// R_D: a line in another L3 domain of the same socket.
    pub remote_domain: f64,
}

/// How a unit relates to a node's own unit: which class its transfers pay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnitRelation {
    /// The same unit: R_R.
    Same,
    /// Another L3 domain of the same socket: R_D.
    SameSocket,
    /// Another socket: R_Q.
    OtherSocket,
}

impl LineClasses {
    /// The socket of unit `u`.
    pub fn socket_of(&self, u: u32) -> u32 {
        match self.domains {
            Some(d) => u / d.per_socket.max(1),
            None => u,
        }
    }

    /// How units `a` and `b` relate.
    pub fn relation(&self, a: u32, b: u32) -> UnitRelation {
        if a == b {
            UnitRelation::Same
        } else if self.socket_of(a) == self.socket_of(b) {
            UnitRelation::SameSocket
        } else {
            UnitRelation::OtherSocket
        }
    }

    /// The transfer class of a relation.
    pub fn class(&self, relation: UnitRelation) -> f64 {
        match relation {
            UnitRelation::Same => self.socket,
            UnitRelation::SameSocket => self.domains.map_or(self.socket, |d| d.remote_domain),
            UnitRelation::OtherSocket => self.remote,
        }
    }

    /// x(a, b): a line transfer between threads on units `a` and `b`.
    pub fn transfer(&self, a: u32, b: u32) -> f64 {
        self.class(self.relation(a, b))
    }

    /// The least transfer between two different units (R_D with domains, R_Q without).
    pub fn cheapest_across(&self) -> f64 {
        match self.domains {
            Some(d) if d.per_socket > 1 => d.remote_domain.min(self.remote),
            _ => self.remote,
        }
    }

    /// A fetch from memory homed on the socket of unit `home` by a thread on unit `unit`.
    pub fn fetch(&self, home: u32, unit: u32) -> f64 {
        if self.socket_of(home) == self.socket_of(unit) {
            self.memory
        } else {
            self.remote_memory
        }
    }

    /// The root offset, R_L.
    pub fn offset(&self) -> f64 {
        self.local
    }
}

/// The space of rooted trees with socket placements for one request (seed 001 §4): what the
/// optimizer searches, priced by the family through [`PlacedTreeCost`].
#[derive(Debug, Clone, Serialize)]
pub struct RootedTreeSpace {
    /// Threads, i.e. tree nodes.
    pub threads: u32,
    /// Socket of every thread id (the machine's thread placement).
    pub thread_sockets: Vec<u32>,
    /// The thread at the root.
    pub root_thread: u32,
    /// How the family prices a placed tree (serialized as its line classes, when it has them).
    #[serde(serialize_with = "serialize_pricing")]
    pub pricing: Arc<dyn PlacedTreeCost>,
    /// When the search may choose how many threads run on each socket: how many each socket can
    /// hold. `None`: the split of `thread_sockets`.
    pub capacity: Option<Vec<u32>>,
}

fn serialize_pricing<S: serde::Serializer>(
    pricing: &Arc<dyn PlacedTreeCost>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    pricing.line_classes().serialize(serializer)
}

/// Two spaces are equal when they ask for the same trees and price them alike: the same
/// pricing object, or pricings with equal line classes.
impl PartialEq for RootedTreeSpace {
    fn eq(&self, other: &Self) -> bool {
        let same_pricing = Arc::ptr_eq(&self.pricing, &other.pricing)
            || matches!(
                (self.pricing.line_classes(), other.pricing.line_classes()),
                (Some(a), Some(b)) if a == b
            );
        self.threads == other.threads
            && self.thread_sockets == other.thread_sockets
            && self.root_thread == other.root_thread
            && self.capacity == other.capacity
            && same_pricing
    }
}

/// Why a tree found on nodes `0..n` cannot be given thread ids.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssignError {
    /// The tree or its placement does not have one entry per thread.
    #[error("the tree has {nodes} nodes and {sockets} socket entries, but the request has {threads} threads")]
    Size {
        /// Tree nodes.
        nodes: usize,
        /// Placement entries.
        sockets: usize,
        /// Threads of the request.
        threads: u32,
    },
    /// The root is placed elsewhere than the root thread runs.
    #[error("the root must run on socket {expected} (thread {thread}), not on socket {got}")]
    RootSocket {
        /// The root thread's socket.
        expected: u32,
        /// The root thread.
        thread: u32,
        /// The root node's socket in the placement.
        got: u32,
    },
    /// The placement puts more nodes on a socket than it has threads.
    #[error("node {node} is placed on socket {socket}, which has no thread left")]
    Full {
        /// The node.
        node: u32,
        /// Its socket.
        socket: u32,
    },
    /// Relabelling failed.
    #[error(transparent)]
    Tree(#[from] TreeError),
}

impl RootedTreeSpace {
    /// How many threads run on each socket.
    pub fn nodes_per_socket(&self) -> Vec<u32> {
        nodes_per_socket(&self.thread_sockets)
    }

    /// The root's socket.
    pub fn root_socket(&self) -> u32 {
        socket_of(&self.thread_sockets, self.root_thread)
    }

    /// Units (the groups `thread_sockets` and `capacity` count) per socket: the L3 domains of a
    /// socket when each domain keeps its own line (the pricing's `LineClasses::domains`), else 1
    /// (the units are the sockets).
    pub fn units_per_socket(&self) -> u32 {
        self.pricing
            .line_classes()
            .and_then(|c| c.domains)
            .map_or(1, |d| d.per_socket.max(1))
    }

    /// Turn a tree on nodes `0..n` with node sockets into thread ids: see [`assign_threads`].
    pub fn assign_threads(
        &self,
        tree: &RootedTree,
        node_sockets: &[u32],
    ) -> Result<Params, AssignError> {
        // With L3 domains as units (the pricing's `LineClasses::domains`), a label is a domain
        // numbered across sockets: the answer names each thread's socket (and, for a free split,
        // its domain).
        let per_socket = self.units_per_socket();
        let mut params = assign_threads(
            &self.thread_sockets,
            self.root_thread,
            self.capacity.is_some().then_some(per_socket),
            tree,
            node_sockets,
        )?;
        if per_socket > 1 && self.capacity.is_none() {
            if let Params::RootedTree { sockets, .. } = &mut params {
                for s in sockets.iter_mut() {
                    *s /= per_socket;
                }
            }
        }
        Ok(params)
    }
}

/// How many of `thread_sockets` run on each socket (sockets `0..=max`).
pub fn nodes_per_socket(thread_sockets: &[u32]) -> Vec<u32> {
    let sockets = thread_sockets.iter().max().map_or(1, |m| m + 1) as usize;
    let mut counts = vec![0; sockets];
    for &s in thread_sockets {
        counts[s as usize] += 1;
    }
    counts
}

/// The socket of `thread` (0 when it has none).
fn socket_of(thread_sockets: &[u32], thread: u32) -> u32 {
    thread_sockets.get(thread as usize).copied().unwrap_or(0)
}

/// Turn a tree on nodes `0..n` with node sockets into thread ids: the root becomes
/// `root_thread`; the other nodes of each socket take that socket's remaining threads in
/// ascending order, in the tree's preorder. Fails when the placement does not use each socket
/// exactly as often as `thread_sockets` does. With a free split (`free_split` = the groups
/// each socket holds, see [`PricedTreeSpace::groups_per_socket`]), the labels are groups, the
/// other nodes take the other thread ids in preorder and each thread runs where its node was
/// placed: group g is L3 domain g mod D of socket g / D (the domains are given only when
/// D > 1).
pub fn assign_threads(
    thread_sockets: &[u32],
    root_thread: u32,
    free_split: Option<u32>,
    tree: &RootedTree,
    node_sockets: &[u32],
) -> Result<Params, AssignError> {
    let n = tree.len();
    if n != thread_sockets.len() || node_sockets.len() != n {
        return Err(AssignError::Size {
            nodes: n,
            sockets: node_sockets.len(),
            threads: thread_sockets.len() as u32,
        });
    }
    if let Some(groups_per_socket) = free_split {
        return assign_free(root_thread, tree, node_sockets, groups_per_socket);
    }
    let sockets = nodes_per_socket(thread_sockets).len();
    let mut free: Vec<std::collections::VecDeque<u32>> = vec![Default::default(); sockets];
    for (t, &s) in thread_sockets.iter().enumerate() {
        if t as u32 != root_thread {
            free[s as usize].push_back(t as u32);
        }
    }
    let mut map = vec![0u32; n];
    let root = tree.root();
    let root_socket = socket_of(thread_sockets, root_thread);
    if node_sockets[root as usize] != root_socket {
        return Err(AssignError::RootSocket {
            expected: root_socket,
            thread: root_thread,
            got: node_sockets[root as usize],
        });
    }
    map[root as usize] = root_thread;
    for v in tree.preorder().into_iter().skip(1) {
        let s = node_sockets[v as usize];
        let t = free
            .get_mut(s as usize)
            .and_then(|q| q.pop_front())
            .ok_or(AssignError::Full { node: v, socket: s })?;
        map[v as usize] = t;
    }
    let relabeled = tree.relabel(&map)?;
    Ok(Params::RootedTree {
        parents: relabeled.parents().to_vec(),
        sockets: thread_sockets.to_vec(),
        domains: Vec::new(),
    })
}

fn assign_free(
    root_thread: u32,
    tree: &RootedTree,
    node_groups: &[u32],
    groups_per_socket: u32,
) -> Result<Params, AssignError> {
    let n = tree.len();
    let mut map = vec![0u32; n];
    let root = tree.root();
    map[root as usize] = root_thread;
    let mut next = 0u32;
    for v in tree.preorder().into_iter().skip(1) {
        if next == root_thread {
            next += 1;
        }
        map[v as usize] = next;
        next += 1;
    }
    let d = groups_per_socket.max(1);
    let mut sockets = vec![0u32; n];
    let mut domains = vec![0u32; if d > 1 { n } else { 0 }];
    for v in 0..n {
        let t = map[v] as usize;
        sockets[t] = node_groups[v] / d;
        if let Some(domain) = domains.get_mut(t) {
            *domain = node_groups[v] % d;
        }
    }
    let relabeled = tree.relabel(&map)?;
    Ok(Params::RootedTree {
        parents: relabeled.parents().to_vec(),
        sockets,
        domains,
    })
}

/// Which renamings of the L3 domains of one socket keep every cost of a
/// [`PricedTreeSpace`] with a free split (the root's domain is never renamed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DomainRenaming {
    /// Any renaming of the domains of one socket other than the root's: a domain matters only
    /// through which threads share it (one synchronization line per socket).
    Any,
    /// Only renamings that keep the order of the domains holding threads, among themselves and
    /// relative to the root's: each domain keeps its own synchronization line and a parent
    /// waits for its children's lines in ascending domain order, so exchanging two domains
    /// changes the order of its waits and the cost (docs/cla.md §12), while moving the threads
    /// of a domain to an empty one of the same socket, with no domain holding threads between
    /// the two, changes nothing.
    InOrder,
}

/// The space of rooted trees with socket placements for a collective whose cost has no
/// per-subtree recursion the optimizer could exploit: every configuration is priced whole, by
/// the algorithm's own [`Algorithm::cost`](crate::Algorithm::cost) on a
/// [`Params::RootedTree`] (e.g. the CLa graph of a `.cla` program, whose critical path couples
/// subtrees through line contention, docs/cla.md §4). The optimizer enumerates it exhaustively
/// where its budget allows and otherwise ranks a documented set of candidate trees, flagged not
/// exact.
#[derive(Debug, Clone, Serialize)]
pub struct PricedTreeSpace {
    /// Threads, i.e. tree nodes.
    pub threads: u32,
    /// Socket of every thread id (the machine's thread placement).
    pub thread_sockets: Vec<u32>,
    /// The interchangeability class of every thread id: exchanging two threads of one group
    /// never changes a cost (the socket on a machine whose socket is one L3 domain; the L3
    /// domain, numbered across sockets, on a chiplet machine; the core, for threads that share
    /// one). Labelings and exchanges are by group; equal to `thread_sockets` when sockets are
    /// the finest level. Numbered 0, 1, ... without gaps.
    pub thread_groups: Vec<u32>,
    /// The thread at the root.
    pub root_thread: u32,
    /// When the search may choose how many threads run on each socket (or, on a machine with
    /// L3 domains, on each domain): how many each group can hold, group g being domain
    /// g mod [`groups_per_socket`](Self::groups_per_socket) of socket g / groups_per_socket.
    /// `None`: the split of `thread_sockets`, labelled by `thread_groups`.
    pub capacity: Option<Vec<u32>>,
    /// With a free split, how many groups of `capacity` each socket holds: 1 when groups are
    /// sockets, the L3 domains per socket on a chiplet machine.
    pub groups_per_socket: u32,
    /// With a free split over L3 domains, which renamings of the domains of one socket keep the
    /// cost of every configuration, so that a search may price one split (and one labeling)
    /// per renaming.
    pub domain_renaming: DomainRenaming,
    /// What pricing one configuration costs, in the work budget's units (an estimate the search
    /// multiplies by the configurations it would price, before it starts).
    pub work_per_configuration: u64,
    /// Whether a tree shape and a group label per node fix the cost, i.e. threads of one group
    /// are interchangeable for the pricing. Only then does enumerating shapes × group
    /// labelings cover every configuration (and prove an optimum); when false (e.g. a free
    /// split whose threads must share cores, where which threads share one follows the node
    /// order) the search never claims exactness.
    pub sockets_fix_cost: bool,
    /// A certified lower bound (ns) on T_min of every configuration of the space, when the
    /// pricing knows one: no tree and placement the space holds has a smaller T_min. The
    /// search reports it, with the gap, beside an answer it could not prove optimal. A pricing
    /// that gives one also guarantees T_max ≥ T_min on every configuration (each worst case at
    /// least its best case), so the bound is one on the latency score of every objective (min,
    /// max, and every blend, a weighted mean of the two).
    pub t_min_lower_bound: Option<f64>,
    /// A certified lower bound (ns) on T_max of every configuration of the space, when the
    /// pricing knows one that accounts for the worst case's own costs (line stealing): no tree
    /// and placement the space holds has a smaller T_max. The search takes the larger of it
    /// and [`Self::t_min_lower_bound`] for the worst-case part of a score.
    pub t_max_lower_bound: Option<f64>,
    /// A closer bound the search can compute when it pays for it: a cost with one line per
    /// socket over the groups (L3 domains) that is at most every configuration's T_min (e.g. a
    /// relaxation of the pricing, docs/cla.md §13), whose optimum the optimizer finds exactly
    /// and whose optimal tree is a configuration of the space.
    #[serde(skip)]
    pub socket_lines: Option<SocketLines>,
    /// What prices a configuration, for messages ("the CLa graph of models/barrier.cla").
    pub priced_by: String,
}

/// Two spaces are equal when every field but the socket-line bound is (a bound on a space does
/// not change which configurations it holds).
impl PartialEq for PricedTreeSpace {
    fn eq(&self, other: &Self) -> bool {
        self.threads == other.threads
            && self.thread_sockets == other.thread_sockets
            && self.thread_groups == other.thread_groups
            && self.root_thread == other.root_thread
            && self.capacity == other.capacity
            && self.groups_per_socket == other.groups_per_socket
            && self.domain_renaming == other.domain_renaming
            && self.work_per_configuration == other.work_per_configuration
            && self.sockets_fix_cost == other.sockets_fix_cost
            && self.t_min_lower_bound == other.t_min_lower_bound
            && self.t_max_lower_bound == other.t_max_lower_bound
            && self.priced_by == other.priced_by
            && self.socket_lines.is_some() == other.socket_lines.is_some()
    }
}

impl PricedTreeSpace {
    /// How many threads run on each socket.
    pub fn nodes_per_socket(&self) -> Vec<u32> {
        nodes_per_socket(&self.thread_sockets)
    }

    /// The root's socket.
    pub fn root_socket(&self) -> u32 {
        socket_of(&self.thread_sockets, self.root_thread)
    }

    /// How many threads each group holds.
    pub fn nodes_per_group(&self) -> Vec<u32> {
        nodes_per_socket(&self.thread_groups)
    }

    /// The root's group.
    pub fn root_group(&self) -> u32 {
        socket_of(&self.thread_groups, self.root_thread)
    }

    /// Each thread's group where the threads run by id: with a free split, a group of
    /// [`capacity`](Self::capacity), socket · [`groups_per_socket`](Self::groups_per_socket) +
    /// the thread's L3 domain (the labels a search names the threads' own placement with);
    /// otherwise [`thread_groups`](Self::thread_groups).
    pub fn own_groups(&self) -> Vec<u32> {
        if self.capacity.is_none() {
            return self.thread_groups.clone();
        }
        let per_socket = self.groups_per_socket.max(1);
        self.thread_sockets
            .iter()
            .zip(&self.thread_groups)
            .map(|(&s, &g)| s * per_socket + g % per_socket)
            .collect()
    }

    /// Turn a tree on nodes `0..n` with a group per node into thread ids (see
    /// [`assign_threads`], with groups in the place of sockets); the threads keep their sockets.
    /// With a free split, the labels are the groups of `capacity` (sockets, or L3 domains) and
    /// each thread runs where its node was placed.
    pub fn assign_threads(
        &self,
        tree: &RootedTree,
        node_groups: &[u32],
    ) -> Result<Params, AssignError> {
        let free = self.capacity.is_some();
        let params = assign_threads(
            &self.thread_groups,
            self.root_thread,
            free.then_some(self.groups_per_socket),
            tree,
            node_groups,
        )?;
        Ok(match params {
            Params::RootedTree { parents, .. } if !free => Params::RootedTree {
                parents,
                sockets: self.thread_sockets.clone(),
                domains: Vec::new(),
            },
            other => other,
        })
    }
}
