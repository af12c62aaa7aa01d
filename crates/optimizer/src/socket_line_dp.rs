//! The exact optimum of a cost with one many-to-one line per socket over L3 domains
//! ([`modelopt_model::socket_lines`]) over every rooted tree and domain labeling of a split of
//! nodes over domains, and what it proves when its limits stop it; and, for a priced-tree space
//! that carries such a cost ([`PricedTreeSpace::socket_lines`]), the bound and the
//! configuration the search gets from it ([`refine`]).
//!
//! The one such cost today is the relaxation of the CLa broadcast with one line per socket
//! (`modelopt_graph::socket_line_relaxation`, docs/cla.md §13): its optimum is a certified lower
//! bound on T_min over every tree and placement, and its tree a candidate that proves itself
//! when the graph prices it at the bound. This module reads the cost only through
//! [`SocketLineCost`] (start, edge, group, read, root) and names no family; the proofs below
//! use only the trait's contract, which [`optimum`] checks before it starts.
//!
//! ## The dynamic program
//! The cost sees a subtree only through its root's domain and its own T, and a node's children
//! on one socket only through the latest arrival, how many there are and how many domains (its
//! own or not) they start in: the socket DP's argument (docs/cla.md §11). For every domain d and
//! count vector w (nodes per domain) T(d, w) is the least T of a tree rooted in d holding w. Per
//! parent domain, a socket's group is built one child at a time in ascending domain order over
//! that socket's domains, keeping per count vector the least latest arrival for every
//! (children k, domains used j, whether the parent's domain is one of them): `open` for forests
//! whose last domain is the layer's, and their prefix minimum over the socket's layers; its
//! last layer gives the group's F_s. The groups are then chained socket by socket, descending,
//! keeping per count vector the least W for every *chain state* (how many groups on other
//! sockets are waited for after this one, and whether the parent's socket's group is and at
//! which read): the reads after a group are all a group's W depends on besides its own F, and
//! more of them never help, so a least value per state is exact. Trees of n nodes need chains
//! of n − 1, so the tables fill by total node count; the tree is rebuilt from the tables with
//! an explicit stack.
//!
//! ## Pruning
//! A run has a ceiling C on the cost. Every ancestor only adds to a subtree's T, and a parent
//! adds at least its start, the edge within one domain, a group of one child and the read from
//! its own domain (the contract: nothing nearer or smaller exists); the path from the root to
//! a subtree in another domain changes domain at least once (an edge across domains, or
//! sockets, instead of within one), to one on another socket crosses sockets at least once (an
//! edge and a read across sockets instead of within one domain). So a proper subtree in domain
//! d whose T is above C − root − (start + edge + group + read, the least) − that is in no tree
//! under C, nor is a forest whose node in d would be above it (above C − root for a node in the
//! root's domain, which may be the root) even with the cheapest read: more children never
//! lower a node (the contract: a group's term does not fall with one more child). Such entries
//! are dropped. Where no node's children of t nodes in all are left (no chain over every
//! socket, under any parent), none of more nodes are either: removing a leaf below a node
//! never raises a latest arrival, a group's term (the contract: one child fewer, in a domain
//! still held or not), nor the waits (a group left empty drops its read), so children under
//! the cap with more nodes would leave children of t nodes under it; and the root's children
//! hold n − 1 nodes. The run then ends at once, without a tree: runs under the optimum, which
//! prove its bounds, stop after their smallest trees. (Forests alone do not say it: a node's
//! children on two sockets form two groups, each a forest of fewer nodes.) A run resets only
//! the entries of the vectors it visits, so one that ends early costs what it visited.
//!
//! A forest row keeps only its finite states (most are ∞: a row is a list, not an array of
//! every state), and a row with none is empty. [`optimum`] raises the ceiling from a guess by
//! steps of 5 % ([`CEILING_STEP`]) until a run finds a tree, never above a value some tree
//! attains when the caller knows one; that run kept every tree under its ceiling, the optimum
//! among them, and every run before it that finished proves the optimum above its ceiling.
//! A run's work grows steeply with its ceiling, from both sides of the optimum (at 34 threads
//! on the chiplet machine 26.7 · 10⁶ updates at 7.2 % under it, 52.2 · 10⁶ at 2.6 % under,
//! 97.7 · 10⁶ at 2.3 % over, 272.2 · 10⁶ at 11.3 % over): small steps, since the runs under
//! it end early.
//!
//! ## Domains merged
//! The same cost with the L3 domains of each socket merged into one (`MergedDomains`: within
//! a socket every edge and read at its within-domain price, a group's term the least over the
//! domains its children could span) is term by term at most the cost, which is monotone in its
//! terms, so its optimum over the split per socket bounds the optimum over the split per
//! domain from below. Its box is per socket (33 · 33 count vectors for 64 threads on two
//! sockets, against 9⁸ by domain), so [`refine`] computes it first: its bound holds where the
//! split by domain is over the memory or the budget, and it is that search's first guess.
//!
//! ## Free splits
//! With a free split (`--placement optimal`) every placement is a tree over some split per
//! domain, which the merged optimum of its socket totals bounds; so the least merged optimum
//! over every split per socket bounds them all ([`refine`] on a space with capacities). The
//! tables of a run hold every count vector of up to n nodes within their box, so one run over
//! the box of the sockets' capacities, read at its least entry of n nodes, is that least (a
//! run that keeps every tree under its ceiling keeps every split's); its runs stop once they
//! prove it above the best T_min priced. The optimum by domain at the threads' own split then
//! gives its tree as a candidate, so that the free search starts from what the threads by id
//! would get.
//!
//! ## Groups finer than domains
//! Threads placed by id that share a core are a group of their own (`SocketLines::by_domain`
//! false): two such groups of one domain are not two domains, so the cost over the groups is
//! no bound, and [`refine`] gives the merged optimum alone (within a socket every edge and read
//! at its least), which is one.
//!
//! The work is counted as it runs (each forest entry read, each candidate filtered, each list
//! of the vectors below a vector, each split of a chain and each row written), against a
//! limit, and the run asks between count vectors whether to go on; a request where a run that
//! finds a tree counts more than the limit ([`least_run_work`]) is declined at once; the
//! fixed tables' memory, [`fixed_bytes`], is checked before anything is allocated, the rows'
//! as they are written.

use modelopt_model::placed_tree::PricedTreeSpace;
use modelopt_model::socket_lines::{meets_contract, Distance, SocketLineCost, SocketLines};
use modelopt_model::tree::RootedTree;
use modelopt_model::Params;

/// The cost's optimum and a tree that attains it.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimum {
    /// The least cost over every tree and labeling, with the root's term, ns.
    pub t_min: f64,
    /// The tree on nodes `0..n`, node 0 the root.
    pub tree: RootedTree,
    /// Each node's domain, as an index into the request's counts.
    pub domains: Vec<u32>,
}

/// A request: `counts[d]` nodes in domain d, domain d on socket
/// `sockets[d]` (0, 1, … in domain order, without gaps), the root in domain `root`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Split<'a> {
    /// Nodes per domain.
    pub counts: &'a [u32],
    /// Socket of each domain.
    pub sockets: &'a [u32],
    /// The root's domain.
    pub root: u32,
}

/// The most domains the program handles (its forest states grow with their square).
pub const MAX_DOMAINS: usize = 16;

/// The most sockets (the chain's states grow with them).
pub const MAX_SOCKETS: usize = 8;

/// What a caller knows of the cost's optimum, ns, to start [`optimum`]'s ceiling from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bracket {
    /// Any guess at or below the optimum, e.g. a certified lower bound; 0 for none.
    pub lower: f64,
    /// A value some tree of the request attains (e.g. the T_min of a pricing the cost is a
    /// relaxation of, which is at or above the tree's cost); ∞ for none.
    pub upper: f64,
}

impl Bracket {
    /// Nothing known: runs start without a ceiling.
    pub const NONE: Bracket = Bracket {
        lower: 0.0,
        upper: f64::INFINITY,
    };

    /// Only a guess from below.
    pub fn lower(lower: f64) -> Self {
        Bracket {
            lower,
            upper: f64::INFINITY,
        }
    }
}

/// The mixed-radix box of count vectors 0 ≤ w ≤ counts.
struct CountBox {
    counts: Vec<usize>,
    strides: Vec<usize>,
    len: usize,
}

impl CountBox {
    fn new(counts: &[u32]) -> Option<Self> {
        let counts: Vec<usize> = counts.iter().map(|&c| c as usize).collect();
        let mut strides = Vec::with_capacity(counts.len());
        let mut len = 1usize;
        for &c in &counts {
            strides.push(len);
            len = len.checked_mul(c.checked_add(1)?)?;
        }
        Some(CountBox {
            counts,
            strides,
            len,
        })
    }

    fn component(&self, index: usize, d: usize) -> usize {
        (index / self.strides[d]) % (self.counts[d] + 1)
    }

    /// How many indices w ≤ m (componentwise) there are, the empty vector included:
    /// ∏_d (m_d + 1).
    fn count_below(&self, m: usize) -> usize {
        (0..self.counts.len())
            .map(|d| self.component(m, d) + 1)
            .product()
    }

    /// [`below`](Self::below) into `out` unless `listed` says it is there already; the work
    /// it took (the vectors listed, or 0).
    fn list_once(&self, m: usize, out: &mut Vec<usize>, listed: &mut bool) -> u64 {
        if *listed {
            return 0;
        }
        self.below(m, out);
        *listed = true;
        out.len() as u64
    }

    /// Every index w ≤ m (componentwise) into `out`, 0 (the empty vector) first.
    fn below(&self, m: usize, out: &mut Vec<usize>) {
        out.clear();
        out.push(0);
        for d in 0..self.counts.len() {
            let top = self.component(m, d);
            let n = out.len();
            for step in 1..=top {
                for i in 0..n {
                    out.push(out[i] + step * self.strides[d]);
                }
            }
        }
    }
}

/// The work every run of [`optimum`] that finds a tree counts, whatever its ceiling
/// (saturating): for every count vector but the empty and the whole one, and for every parent
/// domain and socket, the group holding all of it, the first wait (two updates, one per
/// `own`): (∏_d (c_d + 1) − 2) · 2 · D · S with D domains on S sockets. Past the work limit no
/// run can find the optimum, and [`optimum`] declines before it allocates anything (a run
/// under the optimum may end sooner, module docs, "Pruning"; the vectors below a vector are
/// listed only where they are fewer than the kept trees or groups they would replace).
pub fn least_run_work(counts: &[u32], sockets: &[u32]) -> u64 {
    let d = counts.len() as u64;
    let s = sockets.iter().max().map_or(1, |&m| u64::from(m) + 1);
    vectors(counts).saturating_sub(2).saturating_mul(2 * d * s)
}

/// The forest entries [`optimum`] would hold if no row were pruned and every state were finite
/// (saturating; [`ROW_ENTRY_BYTES`] each): per parent domain, layer and count vector an `open`
/// and a `prefix` row of every forest state. Rows hold only their finite states, so the real
/// count is far smaller; it is checked against the memory as rows are written.
pub fn entries(counts: &[u32]) -> u64 {
    let d = counts.len() as u64;
    let n: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let states = n.saturating_sub(1).saturating_mul(d).saturating_mul(2);
    vectors(counts)
        .saturating_mul(d * d * 2)
        .saturating_mul(states)
}

fn vectors(counts: &[u32]) -> u64 {
    counts
        .iter()
        .fold(1u64, |acc, &c| acc.saturating_mul(u64::from(c) + 1))
}

/// The bytes [`optimum`] allocates before its rows (saturating), domain d on socket
/// `sockets[d]`: per count vector its trees (D of 8 bytes), per parent domain, layer and
/// vector the place and length of its two rows (2 · D² of 4 + 4 bytes), its domains held (D
/// bytes) and its components (D of 8), its place in the list by total (8), one list of the
/// vectors below it and one of a group's splits (8 each, at most all of them), its places in
/// the lists of kept trees and of candidates per domain (2 · D of 8); per parent domain,
/// socket and vector its two group values and the chain's 3 · S states (S sockets, 8 bytes
/// each) and its places in the lists of groups and chains (2 of 8); and once a scratch row of
/// every forest state per parent domain (D · (n − 1) · 2 · D of 8 bytes, n nodes: at most D
/// domains a socket).
pub fn fixed_bytes(counts: &[u32], sockets: &[u32]) -> u64 {
    let d = counts.len() as u64;
    let s = sockets.iter().max().map_or(1, |&m| u64::from(m) + 1);
    let n: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let scratch = d
        .saturating_mul(n.saturating_sub(1))
        .saturating_mul(2 * d * 8);
    vectors(counts)
        .saturating_mul(8 * d + 2 * d * d * 8 + 9 * d + 24 + 16 * d + d * s * (2 + 3 * s + 2) * 8)
        .saturating_add(scratch)
}

/// What [`optimum`] found within its limits.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The optimum, when a run found it.
    pub optimum: Option<Optimum>,
    /// A certified bound even without the optimum: the highest ceiling under which a whole run
    /// found no tree, so every tree's cost (with the root's term) is above it, ns; 0
    /// when no run finished without a tree.
    pub above: f64,
    /// The work spent, in counted updates.
    pub updates: u64,
    /// Where it declined because its fixed tables ([`fixed_bytes`]) would pass `max_bytes`:
    /// those bytes; else 0.
    pub memory_needed: u64,
}

impl Outcome {
    fn declined() -> Self {
        Outcome {
            optimum: None,
            above: 0.0,
            updates: 0,
            memory_needed: 0,
        }
    }
}

/// The optimum of `cost` over every rooted tree of `split`, or a bound below it, with the
/// work spent. No optimum when it needs more than `max_work` updates (counted as it runs:
/// every forest state looked at, every pair of count vectors visited, every candidate tree
/// filtered and every row of states written), or `keep_going()` turns false (asked once per
/// count vector), or it needs more than `max_bytes` of memory ([`fixed_bytes`], checked before
/// it starts, and its rows, as they are written); nothing at all when it has fewer than 2
/// nodes or more than [`MAX_DOMAINS`] domains, or the root's domain holds no node, or
/// [`least_run_work`] is over `max_work`, or `cost` breaks the contract of
/// [`modelopt_model::socket_lines`] (its proofs would not hold).
///
/// It runs with a ceiling on the cost and drops every subtree and forest that cannot be
/// part of a tree under it (module docs, "Pruning"): from `bracket.lower` times
/// [`FIRST_CEILING`], times [`CEILING_STEP`] after each run that finds no tree, but never above
/// `bracket.upper` (a value some tree attains, so that a run there finds a tree), and without
/// a ceiling once past `bracket.lower` times [`LAST_CEILING`] or after a run at the upper end
/// found none. The first run that finds a tree has kept every tree under its ceiling, so what
/// it finds is the optimum; each run before it proves the optimum above its ceiling
/// ([`Outcome::above`]), which is what is left when the limits stop a later run.
pub fn optimum(
    cost: &dyn SocketLineCost,
    split: &Split<'_>,
    max_work: u64,
    max_bytes: u64,
    bracket: Bracket,
    keep_going: &dyn Fn() -> bool,
) -> Outcome {
    let limits = (max_work, max_bytes, keep_going);
    optimum_up_to(cost, split, None, limits, bracket, PastUpper::Unbounded)
}

/// What [`optimum_up_to`] does after a run at `bracket.upper` found no tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PastUpper {
    /// A last run without a ceiling ([`optimum`]: the upper end is a value some tree attains,
    /// so this happens only where the contract is broken).
    Unbounded,
    /// Stop: the optimum is above the upper end, which is all the caller needs (a split of a
    /// free request whose trees all cost more than a tree found elsewhere).
    Stop,
}

/// [`optimum`], with `past` saying what follows a run at the upper end that found no tree,
/// and with `nodes`: `None` for the optimum of `split`'s counts, or `Some(n)` for the least
/// over every count vector of n nodes within them (a *box*, its root's group non-empty), the
/// tree of the first such vector of least value (in the box's index order) rebuilt. One run
/// over the box fills every vector of up to n nodes, so it prices every split of n within it
/// at once: what [`free_split_bound`] needs, at the cost of about one split's run.
fn optimum_up_to(
    cost: &dyn SocketLineCost,
    split: &Split<'_>,
    nodes: Option<u64>,
    (max_work, max_bytes, keep_going): (u64, u64, &dyn Fn() -> bool),
    bracket: Bracket,
    past: PastUpper,
) -> Outcome {
    let (counts, sockets) = (split.counts, split.sockets);
    let root = split.root as usize;
    let whole: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let total = nodes.unwrap_or(whole);
    if counts.len() > MAX_DOMAINS
        || total < 2
        || total > whole
        || counts.get(root).is_none_or(|&c| c == 0)
        || sockets.len() != counts.len()
    {
        return Outcome::declined();
    }
    // The memory first: where both are short, more budget alone would not start it.
    let tables_bytes = fixed_bytes(counts, sockets);
    if tables_bytes > max_bytes {
        return Outcome {
            memory_needed: tables_bytes,
            ..Outcome::declined()
        };
    }
    if least_run_work(counts, sockets) > max_work {
        return Outcome::declined();
    }
    let Some(mut tables) = Tables::new(cost, counts, sockets, total as usize, max_bytes) else {
        return Outcome::declined();
    };
    let layout = Layout::of(&tables.space, total as usize);
    let mut left = max_work;
    let usable = |x: f64| x > 0.0 && x.is_finite();
    let lower = usable(bracket.lower).then_some(bracket.lower);
    let upper = usable(bracket.upper).then_some(bracket.upper);
    let mut factor = FIRST_CEILING;
    let mut above = 0.0f64;
    loop {
        let from_below = lower
            .filter(|_| factor <= LAST_CEILING)
            .map(|lower| lower * factor);
        let outcome = |optimum, left: u64| Outcome {
            optimum,
            above,
            updates: max_work - left,
            memory_needed: 0,
        };
        if upper.is_some_and(|upper| above >= upper) && past == PastUpper::Stop {
            return outcome(None, left);
        }
        let ceiling = match (from_below, upper) {
            // Past the upper end (a run there found no tree: a broken contract), no ceiling.
            (_, Some(upper)) if above >= upper => f64::INFINITY,
            (Some(c), Some(upper)) => c.min(upper),
            (Some(c), None) => c,
            (None, Some(upper)) => upper,
            (None, None) => f64::INFINITY,
        };
        if tables
            .fill(&layout, root, ceiling, &mut left, keep_going)
            .is_none()
        {
            return outcome(None, left);
        }
        // The whole vector (the only one of `total` nodes without `nodes`), or the first of
        // least value of that many.
        let (t_min, full) = layout.by_total[total as usize]
            .iter()
            .map(|&w| (tables.terms.root + tables.tree(root, w), w))
            .fold(
                (f64::INFINITY, 0),
                |best, x| if x.0 < best.0 { x } else { best },
            );
        if t_min.is_finite() {
            let found = tables.rebuild(root, full).map(|(tree, domains)| Optimum {
                t_min,
                tree,
                domains,
            });
            return outcome(found, left);
        }
        if ceiling == f64::INFINITY {
            return outcome(None, left);
        }
        above = above.max(ceiling);
        factor *= CEILING_STEP;
    }
}

/// Updates of [`optimum`] per unit of the search's work budget. Measured on this project's
/// machines (release, one thread, docs/perf.md): an update as counted takes 5.5–7.5 ns (the
/// whole optimum of 34 threads on the chiplet machine, counts [8, 8, 8, 8, 2]: 393,316,885 in
/// 2.2–2.9 s; of 36, [8, 8, 8, 8, 4]: 905,003,043 in 5.3–6.0 s), and a unit of the graph-priced
/// local search about 11.6 ns (`barrier -m chiplet-2s-4x8 -n 32`: 0.93 s for the 8·10⁷ units
/// between budgets of 2·10⁷ and 10⁸), so two updates are about one unit: the default budget of
/// 10⁸ units buys 2·10⁸ updates, about a second. That holds while the fixed tables stay
/// within [`CACHED_BYTES`]; past it, [`work_limit`] buys fewer.
pub const UPDATES_PER_UNIT: u64 = 2;

/// The fixed tables ([`fixed_bytes`]) up to which an update costs what [`UPDATES_PER_UNIT`]
/// assumes: 40 MiB. Past it the reads of the rows at m − w miss the caches more and more:
/// measured (release, one thread, this 2-CPU host, busy: load 1.6; the whole command's time
/// at budgets of 5·10⁷ and 10⁸, less the local search's 0.58 s for the 5·10⁷ units between,
/// over the 10⁸ updates between) 14.7 ns an update at 41 threads on the chiplet machine
/// (198 MiB of tables) and 30 ns at 48 (891 MiB), against 5.6–7.4 ns up to 36 threads (43
/// MiB): about 6.5 ns · √(bytes / 40 MiB).
pub const CACHED_BYTES: u64 = 40 << 20;

/// The updates [`optimum`] may count on `counts` over `sockets` for `budget` units of the
/// search's work budget: [`UPDATES_PER_UNIT`] a unit, divided by √(tables / [`CACHED_BYTES`])
/// where the fixed tables are larger (so that a unit costs about the same time at every
/// size), saturating.
pub fn work_limit(budget: u64, counts: &[u32], sockets: &[u32]) -> u64 {
    let tables = fixed_bytes(counts, sockets) as f64;
    let slower = (tables / CACHED_BYTES as f64).sqrt().max(1.0);
    // `as` saturates: an infinite or huge product is u64::MAX.
    (budget as f64 * UPDATES_PER_UNIT as f64 / slower) as u64
}

/// What [`refine`] found for a priced-tree space.
#[derive(Debug, Clone, PartialEq)]
pub struct Refined {
    /// The bound on T_min of every configuration of the space, ns.
    pub t_min_lower_bound: f64,
    /// Configurations attaining it under the space's socket-line cost, for the search to
    /// price; none where the bound was proved without the optimum it bounds.
    pub configurations: Vec<Params>,
    /// Where the optimum by domain was not tried because its fixed tables would pass the
    /// memory limit: those bytes (a larger `--memory-limit` would let it run); else 0.
    pub memory_needed: u64,
    /// Whether its limits stopped it before it proved what it could: a larger work budget (or
    /// memory, where `memory_needed` says so) would prove more.
    pub stopped: bool,
}

/// The closer bound on T_min of a space that carries a socket-line cost
/// ([`PricedTreeSpace::socket_lines`]): the cost's optimum over the space's split of nodes over
/// its groups, with the configuration of its tree, or, where the limits stopped it, the
/// higher of the optimum with the domains of each socket merged (module docs, "Domains
/// merged") and the highest ceiling a finished run proved ([`Outcome::above`]); within
/// `budget` units of the search's work budget ([`work_limit`] updates, the merged optimum's
/// first), `memory` bytes, while `keep_going()` holds. The ceilings start from the better of
/// the space's own bound and the merged one and stay at or below `attained`, the least T_min
/// the search has priced on a configuration (∞ for none), which the cost's optimum is at
/// most. With a free split ([`PricedTreeSpace::capacity`]) the bound is the least over its
/// splits per socket (`free_split_bound`, module docs "Free splits") and the configuration
/// the tree of the threads' own split, where its optimum is found within what is left. `None` when the space carries
/// no such cost or the limits stopped it before it proved anything.
pub fn refine(
    space: &PricedTreeSpace,
    budget: u64,
    memory: u64,
    attained: f64,
    keep_going: &dyn Fn() -> bool,
) -> Option<Refined> {
    let SocketLines {
        cost,
        group_sockets,
        by_domain,
    } = space.socket_lines.as_ref()?;
    if let Some(capacity) = &space.capacity {
        // The threads' own placement, per group of the capacities.
        let own = space.own_groups();
        let root_group = own.get(space.root_thread as usize).copied()?;
        let free = FreeSplit {
            capacity,
            group_sockets,
            threads: space.threads,
            root_group,
        };
        let lower = space.t_min_lower_bound.unwrap_or(0.0);
        let mut units = budget;
        let limits = (&mut units, memory, keep_going);
        let bracket = Bracket {
            lower,
            upper: attained,
        };
        // The threads' own split, per group and per socket.
        let mut by_id = vec![0u32; capacity.len()];
        for &g in &own {
            if let Some(c) = by_id.get_mut(g as usize) {
                *c += 1;
            }
        }
        let sockets = group_sockets.iter().max().map_or(0, |&s| s as usize + 1);
        let mut own_totals = vec![0u32; sockets];
        for (&c, &s) in by_id.iter().zip(group_sockets) {
            if let Some(t) = own_totals.get_mut(s as usize) {
                *t += c;
            }
        }
        let (mut refined, own_bound) =
            free_split_bound(&**cost, &free, limits, bracket, &own_totals)?;
        // The threads' own split searched too, for its tree only (the bound is the least
        // over every split): the answer with threads by id is then a candidate of the free
        // split, which would otherwise find a worse tree than the fixed placement does. Its
        // runs start from its own merged bound, as the fixed placement's do.
        let split = (by_id.as_slice(), group_sockets.as_slice(), root_group);
        let bracket = Bracket {
            lower: refined.t_min_lower_bound.max(own_bound),
            upper: attained,
        };
        if let Some((tree, groups)) =
            split_tree(&**cost, split, (units, memory, keep_going), bracket)
        {
            refined
                .configurations
                .extend(space.assign_threads(&tree, &groups));
        }
        return Some(refined);
    }
    let counts = space.nodes_per_group();
    let root = space.root_group();
    let mut units = budget;
    let mut lower = space.t_min_lower_bound.unwrap_or(0.0);
    // First the domains of each socket merged: a cheap bound (its box is per socket), where
    // a socket holds more than one domain, and the fine one's first guess. Its updates are
    // counted at its own tables' rate, the fine one's at theirs.
    let merged_bound = merged_domains_bound(
        &**cost,
        &Split {
            counts: &counts,
            sockets: group_sockets,
            root,
        },
        &mut units,
        memory,
        Bracket {
            lower,
            upper: attained,
        },
        keep_going,
    );
    lower = lower.max(merged_bound.value);
    if !by_domain && merged_bound.merged {
        // Groups finer than domains (cores shared by threads placed by id): the cost over the
        // groups is no bound, the merged one is, and no tree of it is a configuration.
        return (merged_bound.value > space.t_min_lower_bound.unwrap_or(0.0)).then(|| Refined {
            t_min_lower_bound: merged_bound.value,
            configurations: Vec::new(),
            memory_needed: 0,
            stopped: merged_bound.stopped,
        });
    }
    let left = work_limit(units, &counts, group_sockets);
    let outcome = optimum(
        &**cost,
        &Split {
            counts: &counts,
            sockets: group_sockets,
            root,
        },
        left,
        memory,
        Bracket {
            lower,
            upper: attained,
        },
        keep_going,
    );
    match outcome.optimum {
        Some(found) => Some(Refined {
            t_min_lower_bound: found.t_min,
            configurations: space
                .assign_threads(&found.tree, &found.domains)
                .into_iter()
                .collect(),
            memory_needed: 0,
            stopped: false,
        }),
        // Stopped by its limits (or declined) without the optimum: the higher of the merged
        // bound and the ceiling of the runs that found no tree.
        None if outcome.above.max(merged_bound.value) > 0.0 => Some(Refined {
            t_min_lower_bound: outcome.above.max(merged_bound.value),
            configurations: Vec::new(),
            memory_needed: outcome.memory_needed,
            stopped: true,
        }),
        None => None,
    }
}

/// A free split of a priced-tree space, as [`free_split_bound`] reads it.
struct FreeSplit<'a> {
    /// The threads each group (L3 domain, or socket) may hold.
    capacity: &'a [u32],
    /// The socket of each group, ascending from 0.
    group_sockets: &'a [u32],
    /// The threads to place.
    threads: u32,
    /// The root's group.
    root_group: u32,
}

/// The closer bound on T_min of a free split (`--placement optimal`): the least, over every
/// split of the threads per socket within the sockets' capacities (the root's socket holding
/// the root), of the optimum of `cost` with the domains of each socket merged
/// ([`MergedDomains`]), or, where a run stopped, the ceiling it proved. Every placement of
/// the threads is a tree over some split per domain, whose cost the merged optimum of its
/// socket totals bounds (module docs, "Domains merged"), so the least over the splits bounds
/// them all. One DP over the box of the sockets' capacities finds it: its tables hold every
/// count vector of up to n nodes within the box, so its least entry of n nodes is the least
/// over the splits ([`optimum_up_to`] with `nodes`; until the eighteenth session each split
/// had runs of its own, up to 33 on two sockets, and no bound was tried past 4,096 splits).
/// Its runs stop once they prove the least above `bracket.upper` (the least T_min priced).
/// No configuration: a merged tree is not one. With it, what the split `own_totals` (per
/// socket) proved, by a run of its own from the least (its optimum, or a bound below it; the
/// least where it is not a split or its run proved less). `None` where the sockets are more
/// than [`MAX_SOCKETS`] or the bound is no higher than `bracket.lower` (the space's own; e.g.
/// the limits stopped the run before it proved anything).
fn free_split_bound(
    cost: &dyn SocketLineCost,
    free: &FreeSplit<'_>,
    (units, memory, keep_going): (&mut u64, u64, &dyn Fn() -> bool),
    bracket: Bracket,
    own_totals: &[u32],
) -> Option<(Refined, f64)> {
    let sockets = free
        .group_sockets
        .iter()
        .max()
        .map_or(0, |&s| s as usize + 1);
    if sockets == 0 || sockets > MAX_SOCKETS || free.group_sockets.len() != free.capacity.len() {
        return None;
    }
    // Each socket's room (at most the threads) and its number of domains.
    let mut room = vec![0u32; sockets];
    let mut domains = vec![0usize; sockets];
    for (&c, &s) in free.capacity.iter().zip(free.group_sockets) {
        room[s as usize] = room[s as usize].saturating_add(c).min(free.threads);
        domains[s as usize] += 1;
    }
    let root_socket = *free.group_sockets.get(free.root_group as usize)? as usize;
    let merged = MergedDomains {
        inner: cost,
        span: domains.iter().copied().max().unwrap_or(1),
    };
    let run = |counts: &[u32], nodes: Option<u64>, units: &mut u64, bracket: Bracket| {
        let outcome = merged_run(
            &merged,
            (counts, root_socket, nodes),
            units,
            (memory, keep_going),
            bracket,
            PastUpper::Stop,
        );
        match outcome.optimum {
            Some(found) => (found.t_min, false),
            // Stopped short of the upper end: more budget (or time) would prove more.
            None => (outcome.above, outcome.above < bracket.upper),
        }
    };
    // At most half the budget: the own split's runs below need the rest for the tree that
    // keeps a free split no slower than the threads by id (on 4 sockets × 2 domains × 8 cores,
    // 32 threads, the box took all of it and the answer was 7 % above the threads by id's).
    let half = *units / 2;
    let mut share = half;
    let (least, stopped) = run(&room, Some(u64::from(free.threads)), &mut share, bracket);
    *units -= half - share;
    if least <= bracket.lower {
        // No higher than the space's own bound.
        return None;
    }
    // The threads' own split, from the least (as a fixed placement's runs start from its
    // merged bound: from the least alone, its runs by domain ran out of budget at 34 threads).
    let own = if own_totals.len() == sockets
        && own_totals.iter().sum::<u32>() == free.threads
        && own_totals.get(root_socket).is_some_and(|&c| c > 0)
    {
        let bracket = Bracket {
            lower: least,
            upper: bracket.upper,
        };
        run(own_totals, None, units, bracket).0.max(least)
    } else {
        least
    };
    Some((
        Refined {
            t_min_lower_bound: least,
            configurations: Vec::new(),
            memory_needed: 0,
            stopped,
        },
        own,
    ))
}

/// The optimum of `cost` over the split `counts` of the groups of a free split (group g on
/// socket `group_sockets[g]`, the root in group `root_group`) as [`optimum`] finds it within
/// `units` of the work budget, its runs stopped at `bracket.upper` (a tree above it is no
/// better than one priced already): its tree and each node's group; `None` where it found none.
fn split_tree(
    cost: &dyn SocketLineCost,
    (counts, group_sockets, root_group): (&[u32], &[u32], u32),
    (units, memory, keep_going): (u64, u64, &dyn Fn() -> bool),
    bracket: Bracket,
) -> Option<(RootedTree, Vec<u32>)> {
    let used: Vec<usize> = (0..counts.len()).filter(|&g| counts[g] > 0).collect();
    let root = used.iter().position(|&g| g == root_group as usize)? as u32;
    let nodes: Vec<u32> = used.iter().map(|&g| counts[g]).collect();
    // The sockets holding threads, numbered 0, 1, … in order.
    let mut held: Vec<u32> = used
        .iter()
        .filter_map(|&g| group_sockets.get(g).copied())
        .collect();
    if held.len() != used.len() {
        return None;
    }
    let mut distinct = held.clone();
    distinct.dedup();
    for s in &mut held {
        *s = distinct.iter().position(|d| d == s).unwrap_or(0) as u32;
    }
    let max_work = work_limit(units, &nodes, &held);
    let outcome = optimum_up_to(
        cost,
        &Split {
            counts: &nodes,
            sockets: &held,
            root,
        },
        None,
        (max_work, memory, keep_going),
        bracket,
        PastUpper::Stop,
    );
    let found = outcome.optimum?;
    let groups = found
        .domains
        .iter()
        .map(|&d| used.get(d as usize).map(|&g| g as u32))
        .collect::<Option<Vec<u32>>>()?;
    Some((found.tree, groups))
}

/// The optimum of `cost` with the domains of each socket of `split` merged into one
/// ([`MergedDomains`]: a cost term by term at most `cost`'s, so its optimum is a lower bound on
/// `cost`'s over the split), 0 where no socket holds two domains or the limits stopped it
/// before it proved anything; the work it counted is taken from `units` (units of the work
/// budget, [`work_limit`] updates each for its own tables: until the seventeenth session
/// counted at the rate of the split by domain's tables, which at 64 threads on the chiplet
/// machine, 11 GB of them, left it too few to reach its optimum).
fn merged_domains_bound(
    cost: &dyn SocketLineCost,
    split: &Split<'_>,
    units: &mut u64,
    memory: u64,
    bracket: Bracket,
    keep_going: &dyn Fn() -> bool,
) -> MergedBound {
    let sockets = split.sockets;
    let count = sockets.iter().max().map_or(0, |&s| s as usize + 1);
    let span = (0..count)
        .map(|s| sockets.iter().filter(|&&x| x as usize == s).count())
        .max()
        .unwrap_or(0);
    let root_socket = sockets.get(split.root as usize);
    let (Some(&root_socket), true) = (root_socket, span > 1) else {
        return MergedBound {
            value: 0.0,
            merged: false,
            stopped: false,
        };
    };
    let mut per_socket = vec![0u32; count];
    for (&c, &s) in split.counts.iter().zip(sockets) {
        per_socket[s as usize] += c;
    }
    let merged = MergedDomains { inner: cost, span };
    let outcome = merged_run(
        &merged,
        (&per_socket, root_socket as usize, None),
        units,
        (memory, keep_going),
        bracket,
        PastUpper::Unbounded,
    );
    MergedBound {
        value: outcome.optimum.as_ref().map_or(outcome.above, |o| o.t_min),
        merged: true,
        stopped: outcome.optimum.is_none(),
    }
}

/// One run of `merged` (its domains merged, so its units are sockets) over the nodes per socket
/// `per_socket` with the root on socket `root_socket` (sockets without nodes dropped: they have
/// no line to wait for), for the optimum or, with `nodes`, the least over the box
/// ([`optimum_up_to`]); within `units` of the work budget, which it charges at its own tables'
/// rate ([`work_limit`], [`units_spent`]), `memory` bytes, while `keep_going()` holds.
fn merged_run(
    merged: &MergedDomains<'_>,
    (per_socket, root_socket, nodes): (&[u32], usize, Option<u64>),
    units: &mut u64,
    (memory, keep_going): (u64, &dyn Fn() -> bool),
    bracket: Bracket,
    past: PastUpper,
) -> Outcome {
    let held: Vec<u32> = per_socket.iter().copied().filter(|&c| c > 0).collect();
    let ids: Vec<u32> = (0..held.len() as u32).collect();
    let root = per_socket[..root_socket.min(per_socket.len())]
        .iter()
        .filter(|&&c| c > 0)
        .count() as u32;
    let limit = work_limit(*units, &held, &ids);
    let outcome = optimum_up_to(
        merged,
        &Split {
            counts: &held,
            sockets: &ids,
            root,
        },
        nodes,
        (limit, memory, keep_going),
        bracket,
        past,
    );
    *units = units.saturating_sub(units_spent(outcome.updates, *units, limit));
    outcome
}

/// What [`merged_domains_bound`] proved.
#[derive(Debug, Clone, Copy, PartialEq)]
struct MergedBound {
    /// The merged optimum, or the ceiling its runs proved where its limits stopped it (0 for
    /// none), ns.
    value: f64,
    /// Whether a socket holds two groups or more, so that merging them meant something (else
    /// nothing was run).
    merged: bool,
    /// Whether its limits stopped it short of the optimum.
    stopped: bool,
}

/// The budget units `updates` took where `units` bought `limit` updates ([`work_limit`]:
/// its rate for the run's own tables); all of them where the limit was 0.
fn units_spent(updates: u64, units: u64, limit: u64) -> u64 {
    if limit == 0 {
        return units;
    }
    let share = u128::from(updates) * u128::from(units) / u128::from(limit);
    u64::try_from(share).unwrap_or(u64::MAX)
}

/// A cost with the L3 domains of each socket merged into one: within a socket every edge and
/// read is the inner cost's within one domain, and a group of k children adds the least of
/// the inner group terms over the domains they could span, min_{1 ≤ j ≤ min(k, span)}
/// group(k, j). Each term is at most the inner cost's for the same tree with each node on its
/// socket (the contract orders edges and reads by distance), and the cost is monotone in them,
/// so its optimum over a split per socket is at most the inner optimum over every split per
/// domain with those socket totals. It is within the contract: one more child raises every
/// inner term it is the least of (group(k + 1, j) ≥ group(k, j), group(k + 1, j + 1) ≥
/// group(k, j)), so the least as well.
#[derive(Debug)]
struct MergedDomains<'a> {
    inner: &'a dyn SocketLineCost,
    /// The most domains a socket holds.
    span: usize,
}

impl MergedDomains<'_> {
    fn within_socket(between: Distance) -> Distance {
        match between {
            Distance::OtherSocket => Distance::OtherSocket,
            Distance::SameDomain | Distance::SameSocket => Distance::SameDomain,
        }
    }
}

impl SocketLineCost for MergedDomains<'_> {
    fn root(&self) -> f64 {
        self.inner.root()
    }
    fn start(&self) -> f64 {
        self.inner.start()
    }
    fn edge(&self, between: Distance) -> f64 {
        self.inner.edge(Self::within_socket(between))
    }
    fn group(&self, children: usize, _domains: usize) -> f64 {
        (1..=children.min(self.span))
            .map(|j| self.inner.group(children, j))
            .fold(f64::INFINITY, f64::min)
    }
    fn read(&self, between: Distance) -> f64 {
        self.inner.read(Self::within_socket(between))
    }
    fn what(&self) -> String {
        format!(
            "{}, with the L3 domains of each socket merged",
            self.inner.what()
        )
    }
}

/// The first ceiling of [`optimum`], as a multiple of the caller's lower guess.
pub const FIRST_CEILING: f64 = 1.02;

/// How much each ceiling of [`optimum`] rises over the last after a run that found no tree:
/// 5 %. A run under the optimum ends where no node's children are left (module docs,
/// "Pruning"), so it costs less the further under the optimum it is, and a run above the
/// optimum costs more the further above: on the chiplet machine at 34 threads (counts [8, 8,
/// 8, 8, 2], the optimum 1,241.29 ns, from the generic bound 842.3 ns) steps of 5 % counted
/// 191.5 · 10⁶ updates in all, the last run at 1,269.33 (97.7 · 10⁶); of 3 %, 242.8 · 10⁶
/// (more runs just under the optimum); doubling the slack from 2 % (2, 4, 8, 16, 32, 64 %, the
/// rule before), 287.2 · 10⁶, the last run at 1,381.36 (272.2 · 10⁶). At 36 threads ([8, 8,
/// 8, 8, 4]): 325.6, 415.6 and 523.5 · 10⁶.
pub const CEILING_STEP: f64 = 1.05;

/// The highest ceiling of [`optimum`] from the caller's lower guess, as a multiple of it
/// (26 steps of [`CEILING_STEP`] from [`FIRST_CEILING`]); past it a run has no ceiling.
pub const LAST_CEILING: f64 = 3.56;

/// Slack on the pruning tests, ns: the ceiling is compared with sums taken in another order
/// than the table's, so that no tree exactly at the ceiling is lost to rounding.
const ROUNDING: f64 = 1e-6;

/// Bytes of one entry of a forest row: its state (4) and its value (8), as laid out in a tuple.
pub const ROW_ENTRY_BYTES: u64 = std::mem::size_of::<(u32, f64)>() as u64;

/// What every run reads of the box, computed once: its vectors by total, whether each holds a
/// node in each domain (at `w * D + d`, the hot loop's test) and its components (at the same
/// place; the ≤ test of the kept lists).
struct Layout {
    by_total: Vec<Vec<usize>>,
    holds: Vec<bool>,
    comps: Vec<usize>,
}

impl Layout {
    fn of(space: &CountBox, nodes: usize) -> Self {
        let domains = space.counts.len();
        let mut by_total: Vec<Vec<usize>> = vec![Vec::new(); nodes + 1];
        let mut holds = vec![false; space.len * domains];
        let mut comps = vec![0usize; space.len * domains];
        for m in 0..space.len {
            let mut total = 0;
            for d in 0..domains {
                let c = space.component(m, d);
                holds[m * domains + d] = c > 0;
                comps[m * domains + d] = c;
                total += c;
            }
            if let Some(list) = by_total.get_mut(total) {
                list.push(m);
            }
        }
        Layout {
            by_total,
            holds,
            comps,
        }
    }
}

/// The cost's terms, read once through [`SocketLineCost`] so that the hot loops make no calls.
#[derive(Debug, Clone)]
struct Terms {
    root: f64,
    start: f64,
    /// By [`Distance`], nearest first.
    edge: [f64; 3],
    /// By [`Distance`], nearest first.
    read: [f64; 3],
    /// group(k, j) at `k * (span + 1) + j` for 1 ≤ j ≤ min(k, span), k < n; ∞ elsewhere.
    group: Vec<f64>,
    span: usize,
}

impl Terms {
    fn of(cost: &dyn SocketLineCost, children: usize, span: usize) -> Self {
        let mut group = vec![f64::INFINITY; (children + 1) * (span + 1)];
        for k in 1..=children {
            for j in 1..=k.min(span) {
                group[k * (span + 1) + j] = cost.group(k, j);
            }
        }
        Terms {
            root: cost.root(),
            start: cost.start(),
            edge: Distance::ALL.map(|d| cost.edge(d)),
            read: Distance::ALL.map(|d| cost.read(d)),
            group,
            span,
        }
    }

    fn edge(&self, same_domain: bool, same_socket: bool) -> f64 {
        self.edge[Distance::between(same_domain, same_socket) as usize]
    }

    fn read(&self, same_socket: bool, own: bool) -> f64 {
        self.read[Distance::of_read(same_socket, own) as usize]
    }

    /// A group's arrival at its wait from its latest child's, `latest + group(k, j)` as
    /// [`modelopt_model::socket_lines::evaluate`] computes it, so that the rebuild finds the
    /// table's values bit for bit.
    fn group(&self, latest: f64, k: usize, j: usize) -> f64 {
        latest + self.group[k * (self.span + 1) + j]
    }
}

/// The DP's tables; see the module docs.
struct Tables {
    terms: Terms,
    space: CountBox,
    domains: usize,
    /// The socket of each domain (0, 1, … in domain order).
    socket: Vec<usize>,
    /// The first domain of each domain's socket.
    first: Vec<usize>,
    /// The last domain of each socket.
    last: Vec<usize>,
    /// The most domains of one socket: a group's children start in at most that many.
    span: usize,
    /// Forest states per count vector: (k − 1, j − 1, own) → ((k − 1)·J + j − 1)·2 + own, J
    /// = `span`.
    states: usize,
    /// T(d, w) at `d * len + w`; ∞ where no tree exists.
    trees: Vec<f64>,
    /// Per parent domain u and layer d: forests of one socket's domains whose largest root
    /// domain is d, a row per count vector m of its finite states only (most are ∞), in
    /// ascending state order, in `arena` from the first of `open_rows[(m * D + d) * D + u]`,
    /// the second entries long (0 where no row was written this run). The parents of one
    /// (m, d) are adjacent, here and in the arena: the hot loop reads them one after another.
    open_rows: Vec<(u32, u32)>,
    /// The same, prefix-minimized over the layers of the socket up to d.
    prefix_rows: Vec<(u32, u32)>,
    /// Every row written this run: (state, least latest arrival).
    arena: Vec<(u32, f64)>,
    /// Most entries `arena` may hold (the memory left after the fixed tables).
    arena_cap: usize,
    /// A group's least arrival at its wait, per parent domain u, socket s, vector m and
    /// whether the parent's domain holds one of its children, at `((u * S + s) * len + m) * 2
    /// + own`.
    groups: Vec<f64>,
    /// The waits of the groups on sockets s and above: per parent domain u, stage s and vector
    /// m, the least max over those groups of arrival + its read + the reads after it, per
    /// chain state (groups on other sockets, the parent's socket's group and its read), at
    /// `((u * S + s) * len + m) * 3·S + state`.
    chain: Vec<f64>,
}

/// A chain state: how many groups on sockets other than the parent's are waited for after
/// this point, and whether the group on the parent's socket is, with its read (0 none, 1 from
/// the parent's own domain, 2 from another domain of its socket).
fn chain_state(far: usize, near: usize) -> usize {
    far * 3 + near
}

impl Tables {
    fn sockets(&self) -> usize {
        self.last.len()
    }

    fn chain_states(&self) -> usize {
        self.sockets() * 3
    }

    fn state(&self, k: usize, j: usize, own: bool) -> usize {
        (((k - 1) * self.span) + (j - 1)) * 2 + usize::from(own)
    }

    fn unstate(&self, s: usize) -> (usize, usize, bool) {
        let own = s % 2 == 1;
        let rest = s / 2;
        (rest / self.span + 1, rest % self.span + 1, own)
    }

    fn kids_at(&self, u: usize, d: usize, m: usize) -> usize {
        (m * self.domains + d) * self.domains + u
    }

    fn group_at(&self, u: usize, s: usize, m: usize, own: bool) -> usize {
        ((u * self.sockets() + s) * self.space.len + m) * 2 + usize::from(own)
    }

    fn chain_at(&self, u: usize, stage: usize, m: usize) -> usize {
        ((u * self.sockets() + stage) * self.space.len + m) * self.chain_states()
    }

    /// The reads a chain state adds after a group: its far groups' across sockets, its near
    /// one's.
    fn suffix(&self, state: usize) -> f64 {
        let r = &self.terms;
        let (far, near) = (state / 3, state % 3);
        far as f64 * r.read(false, false)
            + match near {
                1 => r.read(true, true),
                2 => r.read(true, false),
                _ => 0.0,
            }
    }

    /// The state after adding a group on socket s below one in `state` (parent on `sigma`).
    fn add_group(&self, state: usize, s: usize, sigma: usize, own: bool) -> Option<usize> {
        let (far, near) = (state / 3, state % 3);
        if s == sigma {
            (near == 0).then(|| chain_state(far, if own { 1 } else { 2 }))
        } else {
            (far + 1 < self.sockets()).then(|| chain_state(far + 1, near))
        }
    }

    /// The `open` row of (u, d, m) this run: its finite entries (empty where none was
    /// written).
    fn open_row(&self, u: usize, d: usize, m: usize) -> &[(u32, f64)] {
        let (start, n) = self.open_rows[self.kids_at(u, d, m)];
        &self.arena[start as usize..(start + n) as usize]
    }

    /// The same for `prefix`.
    fn prefix_row(&self, u: usize, d: usize, m: usize) -> &[(u32, f64)] {
        let (start, n) = self.prefix_rows[self.kids_at(u, d, m)];
        &self.arena[start as usize..(start + n) as usize]
    }

    /// An entry of a row: ∞ where it holds none for state s.
    fn entry(row: &[(u32, f64)], s: usize) -> f64 {
        row.binary_search_by_key(&s, |&(state, _)| state as usize)
            .map_or(f64::INFINITY, |i| row[i].1)
    }

    /// Append the finite entries of a dense row; where it starts and how many, `None` past
    /// the memory.
    fn write(&mut self, row: &[f64]) -> Option<(u32, u32)> {
        let at = self.arena.len();
        let finite = row.iter().filter(|x| x.is_finite()).count();
        if at + finite > self.arena_cap {
            return None;
        }
        let entries = row.iter().enumerate().filter(|(_, x)| x.is_finite());
        self.arena
            .extend(entries.map(|(state, &x)| (state as u32, x)));
        Some((u32::try_from(at).ok()?, u32::try_from(finite).ok()?))
    }

    fn tree(&self, d: usize, w: usize) -> f64 {
        self.trees[d * self.space.len + w]
    }

    /// The least T of a tree rooted in `u` over the children holding `rest` (non-empty),
    /// and the chain state that gives it.
    fn best_node(&self, u: usize, rest: usize) -> (f64, usize) {
        let at = self.chain_at(u, 0, rest);
        let mut best = (f64::INFINITY, 0);
        for state in 1..self.chain_states() {
            let t = self.terms.start + self.chain[at + state];
            if t < best.0 {
                best = (t, state);
            }
        }
        best
    }

    /// The tables for `counts` with domain d on socket `sockets[d]` (non-decreasing, from 0,
    /// without gaps), every row unwritten, the rows within `max_bytes` less the fixed tables
    /// ([`fixed_bytes`]).
    fn new(
        cost: &dyn SocketLineCost,
        counts: &[u32],
        sockets: &[u32],
        nodes: usize,
        max_bytes: u64,
    ) -> Option<Self> {
        let space = CountBox::new(counts)?;
        let domains = counts.len();
        // Trees of at most `nodes` nodes (all of the counts', or fewer over a box).
        let n = nodes.min(counts.iter().map(|&c| c as usize).sum());
        let len = space.len;
        let socket: Vec<usize> = sockets.iter().map(|&s| s as usize).collect();
        let count = socket.last()? + 1;
        let span = (0..count)
            .map(|s| socket.iter().filter(|&&x| x == s).count())
            .max()?;
        let states = n.checked_sub(1)? * span * 2;
        if socket.len() != domains
            || socket[0] != 0
            || socket.windows(2).any(|w| w[1] != w[0] && w[1] != w[0] + 1)
            || count > MAX_SOCKETS
        {
            return None;
        }
        // The proofs hold for costs within the contract only (groups of up to n − 1 children
        // over up to `span` domains).
        if !meets_contract(cost, n - 1, span) {
            return None;
        }
        let first: Vec<usize> = (0..domains)
            .map(|d| {
                (0..=d)
                    .rev()
                    .take_while(|&e| socket[e] == socket[d])
                    .last()
                    .unwrap_or(d)
            })
            .collect();
        let last: Vec<usize> = (0..count)
            .map(|s| (0..domains).filter(|&d| socket[d] == s).max().unwrap_or(0))
            .collect();
        let rows = domains * domains * len;
        // Rows are placed by 32-bit offsets.
        let arena_cap = usize::try_from(
            (max_bytes.saturating_sub(fixed_bytes(counts, sockets)) / ROW_ENTRY_BYTES)
                .min(u64::from(u32::MAX)),
        )
        .unwrap_or(usize::MAX);
        Some(Tables {
            terms: Terms::of(cost, n - 1, span),
            space,
            domains,
            socket,
            first,
            last,
            span,
            states,
            trees: vec![f64::INFINITY; domains * len],
            open_rows: vec![(0, 0); rows],
            prefix_rows: vec![(0, 0); rows],
            arena: Vec::new(),
            arena_cap,
            groups: vec![f64::INFINITY; domains * count * len * 2],
            chain: vec![f64::INFINITY; domains * count * len * count * 3],
        })
    }

    /// One run of the DP under `ceiling` (module docs, "Pruning"), spending `left` work;
    /// `None` when the work or the memory runs out or `keep_going()` turns false. A row of
    /// `open` or `prefix` is this run's only where its `kids` entry is non-zero (reset here,
    /// so that no row from an earlier run is read).
    fn fill(
        &mut self,
        layout: &Layout,
        root: usize,
        ceiling: f64,
        left: &mut u64,
        keep_going: &dyn Fn() -> bool,
    ) -> Option<()> {
        let tables = self;
        let domains = tables.domains;
        let states = tables.states;
        let span = tables.span;
        let kids = states / (span * 2);
        let n = kids + 1;
        let len = tables.space.len;
        let count = tables.sockets();
        let chain_states = tables.chain_states();
        let r = tables.terms.clone();
        // Entries are reset where this run visits their vector (it reads only vectors it
        // visited: of fewer nodes, or the same), so that a run ended early (module docs,
        // "Pruning") costs what it visited; the whole vector's trees, read at the end, now.
        // Rows and chains are written whole at every vector visited, trees and groups reset.
        tables.arena.clear();
        for &w in layout.by_total.get(n).map_or(&[][..], |v| &v[..]) {
            for d in 0..domains {
                tables.trees[d * len + w] = f64::INFINITY;
            }
        }
        // The least a parent adds above a child's T (its start, the edge in one domain, a
        // group of one, the read from its own domain), and the root's term: a proper subtree
        // above `sub_cap`, or a forest, group or chain whose node would be, lies in no tree
        // under the ceiling.
        let whole_cap = ceiling - r.root + ROUNDING;
        let sub_cap =
            whole_cap - (r.start + r.edge(true, true) + r.group(0.0, 1, 1) + r.read(true, true));
        // The path from the root to a subtree in another domain changes domain at least once
        // (an edge across domains instead of in one, or across sockets), to one on another
        // socket crosses sockets at least once (an edge and a read across sockets instead of
        // in one domain): per domain, the cap less that.
        let to_socket = (r.edge(false, false) - r.edge(true, true))
            + (r.read(false, false) - r.read(true, true));
        let to_domain = (r.edge(false, true) - r.edge(true, true)).min(to_socket);
        let sub_caps: Vec<f64> = (0..domains)
            .map(|d| {
                if d == root {
                    sub_cap
                } else if tables.socket[d] == tables.socket[root] {
                    sub_cap - to_domain.max(0.0)
                } else {
                    sub_cap - to_socket.max(0.0)
                }
            })
            .collect();
        let Layout {
            by_total,
            holds,
            comps,
        } = layout;
        // Per domain, the trees rooted there that this run kept, and per parent domain and
        // socket the vectors with a group: where pruning keeps few, a vector's candidates are
        // read from these lists rather than from every vector below it.
        let fits = |w: usize, m: usize| {
            comps[w * domains..(w + 1) * domains]
                .iter()
                .zip(&comps[m * domains..(m + 1) * domains])
                .all(|(a, b)| a <= b)
        };
        let mut kept: Vec<Vec<usize>> = vec![Vec::new(); domains];
        let mut grouped: Vec<Vec<usize>> = vec![Vec::new(); domains * count];
        // Per parent domain and stage the vectors with a finite chain entry.
        let mut chained: Vec<Vec<usize>> = vec![Vec::new(); domains * count];
        let mut candidates: Vec<Vec<usize>> = vec![Vec::new(); domains];
        let mut parts: Vec<usize> = Vec::new();
        let mut below = Vec::new();
        // One scratch row of every forest state per parent, and how far each was written.
        let mut rows = vec![f64::INFINITY; states * domains];
        let mut touched = vec![0usize; domains];
        let mut edges = vec![0.0f64; domains];
        let mut chain_row = vec![f64::INFINITY; chain_states];
        for (t, vectors) in by_total.iter().enumerate().skip(1) {
            // Trees of t nodes, from the chains of t − 1.
            for &w in vectors {
                for d in 0..domains {
                    tables.trees[d * len + w] = f64::INFINITY;
                    if !holds[w * domains + d] {
                        continue;
                    }
                    let value = if t == 1 {
                        0.0
                    } else {
                        tables.best_node(d, w - tables.space.strides[d]).0
                    };
                    let cap = if t == n && d == root {
                        whole_cap
                    } else {
                        sub_caps[d]
                    };
                    if value <= cap {
                        tables.trees[d * len + w] = value;
                        kept[d].push(w);
                    }
                }
            }
            // Forests, groups and chains of t nodes.
            if t > kids {
                continue;
            }
            // Whether any node's children of t nodes in all (the chain over every socket) are
            // left under its cap (module docs, "Pruning": where none are, none of more nodes
            // are either, and the run ends without a tree).
            let mut any_children = false;
            for &m in vectors {
                if !keep_going() {
                    return None;
                }
                for u in 0..domains {
                    for s in 0..count {
                        for own in [false, true] {
                            let at = tables.group_at(u, s, m, own);
                            tables.groups[at] = f64::INFINITY;
                        }
                    }
                }
                // The vectors below m, listed (and counted) only where a list they would
                // replace is longer: at low ceilings the kept trees and groups are few.
                let below_len = tables.space.count_below(m);
                let mut listed = false;
                // The trees a forest over m may add, per layer (the same for every parent),
                // filtered from the vectors below m or from the layer's kept trees.
                let mut spent = 0u64;
                for (d, list) in candidates.iter_mut().enumerate() {
                    list.clear();
                    spent += kept[d].len().min(below_len) as u64;
                    if kept[d].len() < below_len {
                        list.extend(kept[d].iter().copied().filter(|&w| fits(w, m)));
                    } else {
                        spent += tables.space.list_once(m, &mut below, &mut listed);
                        list.extend(below[1..].iter().copied().filter(|&w| {
                            holds[w * domains + d] && tables.trees[d * len + w].is_finite()
                        }));
                    }
                }
                *left = left.checked_sub(spent)?;
                // Forests layer by layer, for every parent at once (their rows of one vector
                // and layer are adjacent).
                for (d, candidates) in candidates.iter().enumerate() {
                    let first_layer = d == tables.first[d];
                    // `rows` is all ∞ here: each layer resets what it wrote, every parent's
                    // states below its `touched`.
                    touched.fill(0);
                    for (u, edge) in edges.iter_mut().enumerate() {
                        *edge = r.edge(d == u, tables.socket[d] == tables.socket[u]);
                    }
                    let mut spent = (candidates.len() * domains) as u64;
                    // One more tree: (k, j, own) → (k + 1, j, own) in this layer, state + 2J;
                    // the layer's first on a forest of the socket's lower layers: (k, j, own)
                    // → (k + 1, j + 1, own or d = u), state + 2J + 2 (+ 1 for own).
                    let (step, step_up) = (2 * span, 2 * span + 2);
                    let last_state = (kids - 1) * span * 2;
                    for &w in candidates {
                        let tree = tables.trees[d * len + w];
                        let rest = m - w;
                        for u in 0..domains {
                            let own_layer = d == u;
                            let a = edges[u] + tree;
                            let row = &mut rows[u * states..(u + 1) * states];
                            let touched = &mut touched[u];
                            if rest == 0 {
                                let s = tables.state(1, 1, own_layer);
                                row[s] = row[s].min(a);
                                *touched = (*touched).max(s + 1);
                                continue;
                            }
                            // Rows not written this run are empty.
                            let same = tables.open_row(u, d, rest);
                            let lower = if first_layer {
                                &[][..]
                            } else {
                                tables.prefix_row(u, d - 1, rest)
                            };
                            spent += (same.len() + lower.len()) as u64;
                            for &(s, v) in same {
                                let s = s as usize;
                                if s < last_state {
                                    let to = s + step;
                                    row[to] = row[to].min(v.max(a));
                                    *touched = (*touched).max(to + 1);
                                }
                            }
                            for &(s, v) in lower {
                                let s = s as usize;
                                // j < J: the lower layers start in fewer domains than this
                                // socket has.
                                if s < last_state && (s / 2) % span + 1 < span {
                                    let to =
                                        (s & !1) + step_up + usize::from(s % 2 == 1 || own_layer);
                                    row[to] = row[to].min(v.max(a));
                                    *touched = (*touched).max(to + 1);
                                }
                            }
                        }
                    }
                    *left = left.checked_sub(spent)?;
                    for u in 0..domains {
                        // A node in the root's domain may be the root.
                        let cap = if u == root { whole_cap } else { sub_caps[u] };
                        let row = &mut rows[u * states..(u + 1) * states];
                        let mut reach = touched[u];
                        // Drop the forests whose node is over the cap whatever joins them
                        // (more children never lower a group or a chain; the read from its own
                        // domain at best).
                        for (s, x) in row.iter_mut().enumerate().take(reach) {
                            if x.is_finite() {
                                let (k, j, _) = tables.unstate(s);
                                if r.start + r.group(*x, k, j) + r.read(true, true) > cap {
                                    *x = f64::INFINITY;
                                }
                            }
                        }
                        let at = tables.kids_at(u, d, m);
                        tables.open_rows[at] = tables.write(&row[..reach])?;
                        if !first_layer {
                            let (start, n) = tables.prefix_rows[tables.kids_at(u, d - 1, m)];
                            for &(s, y) in &tables.arena[start as usize..(start + n) as usize] {
                                let s = s as usize;
                                row[s] = row[s].min(y);
                                reach = reach.max(s + 1);
                            }
                        }
                        tables.prefix_rows[at] = tables.write(&row[..reach])?;
                        // The socket's last layer: its group, by whether the parent's domain
                        // holds a child.
                        if d == tables.last[tables.socket[d]] {
                            let s = tables.socket[d];
                            for (state, &latest) in row.iter().enumerate().take(reach) {
                                if latest.is_finite() {
                                    let (k, j, own) = tables.unstate(state);
                                    let g = r.group(latest, k, j);
                                    let at = tables.group_at(u, s, m, own);
                                    if g < tables.groups[at] {
                                        if tables.groups[at ^ 1] == f64::INFINITY
                                            && tables.groups[at] == f64::INFINITY
                                        {
                                            grouped[u * count + s].push(m);
                                        }
                                        tables.groups[at] = g;
                                    }
                                }
                            }
                        }
                        row[..reach].fill(f64::INFINITY);
                        *left = left.checked_sub(reach as u64)?;
                    }
                }
                for u in 0..domains {
                    // A node in the root's domain may be the root.
                    let cap = if u == root { whole_cap } else { sub_caps[u] };
                    let sigma = tables.socket[u];
                    // The chain of groups, sockets descending: skip socket s, or wait for its
                    // group (on part of m) before those already chained.
                    for s in (0..count).rev() {
                        chain_row.fill(f64::INFINITY);
                        if s + 1 < count {
                            let at = tables.chain_at(u, s + 1, m);
                            chain_row.copy_from_slice(&tables.chain[at..at + chain_states]);
                        }
                        // The group holds all of m: the first wait.
                        let mut spent = 2u64;
                        for own in [false, true] {
                            let g = tables.groups[tables.group_at(u, s, m, own)];
                            if let (true, Some(to)) =
                                (g.is_finite(), tables.add_group(0, s, sigma, own))
                            {
                                chain_row[to] = chain_row[to].min(g + r.read(s == sigma, own));
                            }
                        }
                        // Or part of it, before the chain of the later sockets over the rest:
                        // the splits read from the shorter of the lists of vectors with a
                        // group here and with a chain there (or every vector below m).
                        parts.clear();
                        if s + 1 < count {
                            let groups = &grouped[u * count + s];
                            let chains = &chained[u * count + s + 1];
                            let shortest = groups.len().min(chains.len()).min(below_len);
                            spent += shortest as u64;
                            if chains.len() == shortest {
                                parts.extend(
                                    chains
                                        .iter()
                                        .filter(|&&rest| rest != m && fits(rest, m))
                                        .map(|&rest| m - rest),
                                );
                            } else if groups.len() == shortest {
                                parts.extend(
                                    groups.iter().copied().filter(|&p| p != m && fits(p, m)),
                                );
                            } else {
                                spent += tables.space.list_once(m, &mut below, &mut listed);
                                parts.extend(below[1..].iter().copied().filter(|&p| p != m));
                            }
                        }
                        for &part in &parts {
                            let rest = m - part;
                            let at = tables.chain_at(u, s + 1, rest);
                            for own in [false, true] {
                                let g = tables.groups[tables.group_at(u, s, part, own)];
                                if !g.is_finite() {
                                    continue;
                                }
                                let base = g + r.read(s == sigma, own);
                                spent += chain_states as u64;
                                for before in 1..chain_states {
                                    let v = tables.chain[at + before];
                                    if !v.is_finite() {
                                        continue;
                                    }
                                    if let Some(to) = tables.add_group(before, s, sigma, own) {
                                        let x = v.max(base + tables.suffix(before));
                                        chain_row[to] = chain_row[to].min(x);
                                    }
                                }
                            }
                        }
                        *left = left.checked_sub(spent)?;
                        for x in chain_row.iter_mut() {
                            if r.start + *x > cap {
                                *x = f64::INFINITY;
                            }
                        }
                        let at = tables.chain_at(u, s, m);
                        tables.chain[at..at + chain_states].copy_from_slice(&chain_row);
                        if chain_row.iter().any(|x| x.is_finite()) {
                            chained[u * count + s].push(m);
                            any_children |= s == 0;
                        }
                    }
                }
            }
            if !any_children {
                return Some(());
            }
        }
        Some(())
    }

    /// The tree of the table's value at (root domain, m), with each node's domain: every
    /// choice is found again by recomputing the same float expressions.
    fn rebuild(&self, root: usize, m: usize) -> Option<(RootedTree, Vec<u32>)> {
        enum Job {
            /// Node `id` in domain d holding m.
            Tree { id: u32, d: usize, m: usize },
            /// The waits of node `parent` (domain u) from socket `stage` on, over m, in chain
            /// state `state` of value v.
            Chain {
                parent: u32,
                u: usize,
                stage: usize,
                m: usize,
                state: usize,
                v: f64,
            },
            /// The group of `parent` on socket s over m.
            Group {
                parent: u32,
                u: usize,
                s: usize,
                m: usize,
                own: bool,
            },
            /// The forest below node `parent` (domain u): table (layer d, prefix?) at m, state s,
            /// value v.
            Forest {
                parent: u32,
                u: usize,
                d: usize,
                prefix: bool,
                m: usize,
                s: usize,
                v: f64,
            },
        }
        let r = &self.terms;
        let count = self.sockets();
        let mut parents: Vec<Option<u32>> = vec![None];
        let mut domains: Vec<u32> = vec![root as u32];
        let mut jobs = vec![Job::Tree { id: 0, d: root, m }];
        let mut below = Vec::new();
        while let Some(job) = jobs.pop() {
            match job {
                Job::Tree { id, d, m } => {
                    let rest = m - self.space.strides[d];
                    if rest == 0 {
                        continue;
                    }
                    let (value, state) = self.best_node(d, rest);
                    if !value.is_finite() {
                        return None;
                    }
                    let v = self.chain[self.chain_at(d, 0, rest) + state];
                    jobs.push(Job::Chain {
                        parent: id,
                        u: d,
                        stage: 0,
                        m: rest,
                        state,
                        v,
                    });
                }
                Job::Chain {
                    parent,
                    u,
                    stage,
                    m,
                    state,
                    v,
                } => {
                    let s = stage;
                    if s + 1 < count && self.chain[self.chain_at(u, s + 1, m) + state] == v {
                        jobs.push(Job::Chain {
                            parent,
                            u,
                            stage: s + 1,
                            m,
                            state,
                            v,
                        });
                        continue;
                    }
                    let sigma = self.socket[u];
                    self.space.below(m, &mut below);
                    let mut found = None;
                    'parts: for &part in &below[1..] {
                        for own in [false, true] {
                            let g = self.groups[self.group_at(u, s, part, own)];
                            if !g.is_finite() {
                                continue;
                            }
                            let base = g + r.read(s == sigma, own);
                            let rest = m - part;
                            if rest == 0 {
                                if self.add_group(0, s, sigma, own) == Some(state) && base == v {
                                    found = Some((part, own, None));
                                    break 'parts;
                                }
                                continue;
                            }
                            if s + 1 == count {
                                continue;
                            }
                            let at = self.chain_at(u, s + 1, rest);
                            for before in 1..self.chain_states() {
                                let x = self.chain[at + before];
                                if x.is_finite()
                                    && self.add_group(before, s, sigma, own) == Some(state)
                                    && x.max(base + self.suffix(before)) == v
                                {
                                    found = Some((part, own, Some((rest, before, x))));
                                    break 'parts;
                                }
                            }
                        }
                    }
                    let (part, own, rest) = found?;
                    jobs.push(Job::Group {
                        parent,
                        u,
                        s,
                        m: part,
                        own,
                    });
                    if let Some((rest, before, x)) = rest {
                        jobs.push(Job::Chain {
                            parent,
                            u,
                            stage: s + 1,
                            m: rest,
                            state: before,
                            v: x,
                        });
                    }
                }
                Job::Group {
                    parent,
                    u,
                    s,
                    m,
                    own,
                } => {
                    let g = self.groups[self.group_at(u, s, m, own)];
                    let d = self.last[s];
                    let found = self
                        .prefix_row(u, d, m)
                        .iter()
                        .find_map(|&(state, latest)| {
                            let state = state as usize;
                            let (k, j, o) = self.unstate(state);
                            (o == own && r.group(latest, k, j) == g).then_some((state, latest))
                        });
                    let (state, latest) = found?;
                    jobs.push(Job::Forest {
                        parent,
                        u,
                        d,
                        prefix: true,
                        m,
                        s: state,
                        v: latest,
                    });
                }
                Job::Forest {
                    parent,
                    u,
                    d,
                    prefix,
                    m,
                    s,
                    v,
                } => {
                    // A prefix entry is the open one of its layer or a prefix of the layer below
                    // on the same socket.
                    if prefix && Self::entry(self.open_row(u, d, m), s) != v {
                        if d == self.first[d] {
                            return None;
                        }
                        jobs.push(Job::Forest {
                            parent,
                            u,
                            d: d - 1,
                            prefix: true,
                            m,
                            s,
                            v,
                        });
                        continue;
                    }
                    let (k, j, own) = self.unstate(s);
                    let own_layer = d == u;
                    let edge = r.edge(own_layer, self.socket[d] == self.socket[u]);
                    self.space.below(m, &mut below);
                    let mut found = None;
                    'search: for &w in &below[1..] {
                        if self.space.component(w, d) == 0 {
                            continue;
                        }
                        let tree = self.tree(d, w);
                        if !tree.is_finite() {
                            continue;
                        }
                        let a = edge + tree;
                        let rest = m - w;
                        if rest == 0 {
                            if k == 1 && j == 1 && own == own_layer && a == v {
                                found = Some((w, None));
                                break 'search;
                            }
                            continue;
                        }
                        if k < 2 {
                            continue;
                        }
                        let same = self.state(k - 1, j, own);
                        let x = Self::entry(self.open_row(u, d, rest), same);
                        if x.is_finite() && x.max(a) == v {
                            found = Some((w, Some((d, false, rest, same, x))));
                            break 'search;
                        }
                        // The layer's first tree: the forest below had one domain fewer,
                        // and the parent's own domain only if this layer is not it.
                        if d > self.first[d] && j > 1 && (own || !own_layer) {
                            let before = own && !own_layer;
                            let s2 = self.state(k - 1, j - 1, before);
                            let x = Self::entry(self.prefix_row(u, d - 1, rest), s2);
                            if x.is_finite() && x.max(a) == v {
                                found = Some((w, Some((d - 1, true, rest, s2, x))));
                                break 'search;
                            }
                        }
                    }
                    let (w, rest) = found?;
                    let id = u32::try_from(parents.len()).ok()?;
                    parents.push(Some(parent));
                    domains.push(d as u32);
                    jobs.push(Job::Tree { id, d, m: w });
                    if let Some((d2, prefix2, m2, s2, v2)) = rest {
                        jobs.push(Job::Forest {
                            parent,
                            u,
                            d: d2,
                            prefix: prefix2,
                            m: m2,
                            s: s2,
                            v: v2,
                        });
                    }
                }
            }
        }
        let tree = RootedTree::from_parents(&parents).ok()?;
        Some((tree, domains))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelopt_model::placed_tree::DomainRenaming;
    use modelopt_model::socket_lines::evaluate;

    /// The chiplet machine's line classes (machines/chiplet-2s-4x8.toml: R_L 1.43, R_R 35, R_D
    /// 164.5, R_Q 223.5, R_I 122 ns) in the terms of the relaxation of docs/cla.md §13: the
    /// root's R_L; a parent's S3 fetches a fresh line (R_I); an edge is the transfer to the
    /// child's domain plus its S2 (R_L); a group fetches its fresh line (R_I) and its adds move
    /// the line within a domain (R_R) or to a further domain (R_D); the read within the
    /// parent's domain R_R, from another domain of its socket R_D, across sockets R_Q. (The
    /// graph crate's `Relaxation` gives these terms from a machine file; this crate cannot
    /// depend on it.)
    #[derive(Debug)]
    struct Chiplet;

    impl SocketLineCost for Chiplet {
        fn root(&self) -> f64 {
            1.43
        }
        fn start(&self) -> f64 {
            122.0
        }
        fn edge(&self, between: Distance) -> f64 {
            self.read(between) + 1.43
        }
        fn group(&self, children: usize, domains: usize) -> f64 {
            122.0 + (children - domains) as f64 * 35.0 + (domains - 1) as f64 * 164.5
        }
        fn read(&self, between: Distance) -> f64 {
            match between {
                Distance::SameDomain => 35.0,
                Distance::SameSocket => 164.5,
                Distance::OtherSocket => 223.5,
            }
        }
        fn what(&self) -> String {
            "the chiplet machine's relaxation".into()
        }
    }

    const CHIPLET: Chiplet = Chiplet;

    /// The bound with the domains of each socket merged, without limits, and the budget units
    /// left of u64::MAX.
    fn merged_unlimited(cost: &dyn SocketLineCost, split: &Split<'_>) -> (f64, u64) {
        let mut work = u64::MAX;
        let bound = merged_domains_bound(cost, split, &mut work, u64::MAX, Bracket::NONE, &|| true);
        (bound.value, work)
    }

    /// The optimum of a split of the chiplet machine's classes, without limits.
    fn unlimited(counts: &[u32], sockets: &[u32], root: u32) -> Outcome {
        let split = Split {
            counts,
            sockets,
            root,
        };
        optimum(&CHIPLET, &split, u64::MAX, u64::MAX, Bracket::NONE, &|| {
            true
        })
    }

    #[test]
    fn the_box_lists_every_vector_below() {
        let b = CountBox::new(&[2, 1]).unwrap();
        let mut out = Vec::new();
        // m = (1, 1) is index 1 + 1·3 = 4: below it (0,0)=0, (1,0)=1, (0,1)=3, (1,1)=4, the
        // empty vector first, then each unit's steps added to what is listed so far.
        b.below(4, &mut out);
        assert_eq!(out, vec![0, 1, 3, 4]);
    }

    #[test]
    fn the_tables_are_counted_by_hand() {
        // 45 vectors, 2 parents × 2 layers × (open, prefix) rows of 44 states each.
        assert_eq!(entries(&[8, 4]), 45 * 8 * 44);
        // Per vector: 2 trees of 8 bytes, 2 · 2² rows' places (4) and lengths (4), 2 domain
        // flags and 2 components of 8 bytes, 24 bytes of lists, 2 · 2 places of 8 in the kept
        // and candidate lists, and per parent domain (2) on one socket 2 group values, 3
        // chain states and 2 list places of 8 bytes; once 2 scratch rows of 11 · 2 · 2
        // states of 8 bytes.
        assert_eq!(
            fixed_bytes(&[8, 4], &[0, 0]),
            45 * (16 + 8 * 8 + 2 + 16 + 24 + 32 + 2 * 7 * 8) + 2 * 11 * 4 * 8
        );
    }

    /// Every recursive labelled tree on n nodes (parent of i below i).
    fn all_trees(n: usize) -> Vec<RootedTree> {
        let mut out = Vec::new();
        let mut parents = vec![0u32; n];
        loop {
            let p: Vec<Option<u32>> = (0..n).map(|v| (v > 0).then(|| parents[v])).collect();
            out.push(RootedTree::from_parents(&p).unwrap());
            // Odometer: parents[i] < i.
            let mut i = n - 1;
            loop {
                if i == 0 {
                    return out;
                }
                parents[i] += 1;
                if (parents[i] as usize) < i {
                    break;
                }
                parents[i] = 0;
                i -= 1;
            }
        }
    }

    /// The least relaxed T_min over every tree and every labeling with `counts` and the root
    /// (node 0) in `root`.
    fn brute_force(r: &dyn SocketLineCost, counts: &[u32], sockets: &[u32], root: u32) -> f64 {
        let n: usize = counts.iter().map(|&c| c as usize).sum();
        let mut best = f64::INFINITY;
        for tree in all_trees(n) {
            let mut labels = vec![0u32; n];
            let mut code = 0u64;
            let d = counts.len() as u64;
            while code < d.pow(n as u32 - 1) {
                let mut x = code;
                labels[0] = root;
                for l in labels.iter_mut().skip(1) {
                    *l = (x % d) as u32;
                    x /= d;
                }
                code += 1;
                let fits = (0..counts.len()).all(|u| {
                    labels.iter().filter(|&&l| l as usize == u).count() == counts[u] as usize
                });
                if fits {
                    best = best.min(evaluate(r, &tree, &labels, sockets).unwrap());
                }
            }
        }
        best
    }

    #[test]
    fn small_optima_by_hand() {
        // [1, 1], root in domain 0: the one tree 0(1), node 1 across. R_L + R_I (S3) + R_D +
        // R_L (edge) + R_I (the fresh line) + 0·R_R + 0·R_D + R_D (the read: the root's domain
        // holds no child) = 1.43 + 122 + 165.93 + 122 + 164.5 = 575.86 ns.
        let o = unlimited(&[1, 1], &[0, 0], 0).optimum.unwrap();
        assert!((o.t_min - 575.86).abs() < 1e-9, "{}", o.t_min);
        assert_eq!(o.tree.to_string(), "0(1)");
        assert_eq!(o.domains, vec![0, 1]);
        // [3] in one domain: the flat tree 1.43 + 122 + 36.43 + 122 + 35 + 35 = 351.86 beats
        // the chain 0(1(2)) (T(1) = 122 + 36.43 + 122 + 35 = 315.43, then 1.43 + 122 + 36.43
        // + 315.43 + 122 + 35 = 632.29).
        let o = unlimited(&[3], &[0], 0).optimum.unwrap();
        assert!((o.t_min - 351.86).abs() < 1e-9, "{}", o.t_min);
        assert_eq!(o.tree.to_string(), "0(1,2)");
        // [1, 1] on two sockets: the edge and the read across, R_L + R_I + R_Q + R_L + R_I +
        // R_Q = 1.43 + 122 + 224.93 + 122 + 223.5 = 693.86 ns.
        let o = unlimited(&[1, 1], &[0, 1], 0);
        let o = o.optimum.unwrap();
        assert!((o.t_min - 693.86).abs() < 1e-9, "{}", o.t_min);
    }

    #[test]
    fn the_waits_across_sockets_by_hand() {
        // 0(1,2,3) with the root and node 1 in domain 0 (socket 0), nodes 2 and 3 in domain 1
        // (socket 1). Groups in ascending socket order: socket 0's, node 1 at 122 + 36.43 =
        // 158.43, + R_I = 280.43, read R_R: W = 315.43; socket 1's, nodes 2 and 3 at 122 +
        // 224.93 = 346.93, + R_I + R_R = 503.93, W = max(315.43, 503.93) + R_Q = 727.43; with the
        // root's R_L 728.86 ns.
        let tree = RootedTree::parse("0(1,2,3)").unwrap();
        let t = evaluate(&CHIPLET, &tree, &[0, 0, 1, 1], &[0, 1]).unwrap();
        assert!((t - 728.86).abs() < 1e-9, "{t}");
    }

    #[test]
    fn the_optimum_equals_brute_force_and_its_tree_attains_it() {
        // Every split of up to 6 nodes over 2 domains and up to 5 over 3, the domains on one
        // socket or spread over two, every root domain holding a node; the rebuilt tree has the
        // counts and prices to the optimum.
        let mut cases: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
        for a in 0..=6u32 {
            for b in 0..=6 - a {
                for sockets in [vec![0, 0], vec![0, 1]] {
                    cases.push((vec![a, b], sockets));
                }
                for c in 0..=5u32.saturating_sub(a + b) {
                    if a + b + c <= 5 {
                        for sockets in [vec![0, 0, 0], vec![0, 0, 1], vec![0, 1, 1]] {
                            cases.push((vec![a, b, c], sockets));
                        }
                    }
                }
            }
        }
        let mut checked = 0;
        for (counts, sockets) in &cases {
            let n: u32 = counts.iter().sum();
            if n < 2 {
                continue;
            }
            for root in 0..counts.len() as u32 {
                if counts[root as usize] == 0 {
                    continue;
                }
                let want = brute_force(&CHIPLET, counts, sockets, root);
                // Without a ceiling, with ceilings from guesses below, at and above the
                // optimum (pruned runs, raised until one finds a tree), and from a value some
                // tree attains: the optimum itself (the tightest ceiling) and above it.
                let run = |bracket: Bracket| {
                    optimum(
                        &CHIPLET,
                        &Split {
                            counts,
                            sockets,
                            root,
                        },
                        u64::MAX,
                        u64::MAX,
                        bracket,
                        &|| true,
                    )
                    .optimum
                    .unwrap()
                };
                let o = run(Bracket::NONE);
                let lower = [want * 0.5, want * 0.99, want / 1.02, want, want * 1.5];
                let upper = [want, want * 1.3];
                let brackets = lower
                    .map(Bracket::lower)
                    .into_iter()
                    .chain(upper.map(|upper| Bracket {
                        lower: want * 0.5,
                        upper,
                    }));
                for bracket in brackets {
                    let p = run(bracket);
                    assert!(
                        (p.t_min - want).abs() < 1e-9,
                        "{counts:?} {sockets:?} {bracket:?}: {}",
                        p.t_min
                    );
                }
                assert!(
                    (o.t_min - want).abs() < 1e-9,
                    "{counts:?} {sockets:?} root {root}: {} vs {want}",
                    o.t_min
                );
                let again = evaluate(&CHIPLET, &o.tree, &o.domains, sockets).unwrap();
                assert!(
                    (again - o.t_min).abs() < 1e-9,
                    "{counts:?}: {} prices {again}",
                    o.tree
                );
                assert_eq!(o.domains[0], root);
                for (u, &c) in counts.iter().enumerate() {
                    assert_eq!(
                        o.domains.iter().filter(|&&l| l as usize == u).count(),
                        c as usize
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > 300, "{checked}");
    }

    #[test]
    fn a_run_counts_at_least_the_first_wait_of_every_vector() {
        // [8, 4] on one socket: 9 · 5 = 45 vectors, less the empty and the whole one: 43, each
        // with a group holding all of it under 2 parent domains on 1 socket, two updates each
        // (own or not): 43 · 2 · 2 · 1 = 172. Every run counts them, so a limit below declines
        // at once.
        assert_eq!(least_run_work(&[8, 4], &[0, 0]), 172);
        let split = Split {
            counts: &[8, 4],
            sockets: &[0, 0],
            root: 0,
        };
        let run = |work: u64| optimum(&CHIPLET, &split, work, u64::MAX, Bracket::NONE, &|| true);
        let all = run(u64::MAX);
        assert!(all.optimum.is_some() && all.updates >= 172);
        assert_eq!(run(171), Outcome::declined());
        // A ceiling far below the optimum, 1 ns: its caps are below 0 (1 − R_L), so it keeps
        // not even a single node, and no forest of one node is left: the run ends after the
        // two vectors of one node, (1, 0) and (0, 1), each counting its first waits, 2 parent
        // domains × 1 socket × 2, and nothing else (no kept tree to filter, no row written):
        // 8 updates. Then the run without a ceiling, the same as `all`.
        let low = optimum(
            &CHIPLET,
            &split,
            u64::MAX,
            u64::MAX,
            Bracket {
                lower: 1.0,
                upper: 1.0,
            },
            &|| true,
        );
        assert!(low.optimum.is_some() && low.above == 1.0);
        assert_eq!(low.updates - all.updates, 8);
        // 48 threads of the chiplet machine, [8; 6] over 2 sockets (4 + 2 domains):
        // (9⁶ − 2) · 2 · 6 · 2 = 531,439 · 24.
        assert_eq!(least_run_work(&[8; 6], &[0, 0, 0, 0, 1, 1]), 531_439 * 24);
    }

    #[test]
    fn runs_that_find_no_tree_prove_their_ceiling() {
        let split = Split {
            counts: &[8, 4],
            sockets: &[0, 0],
            root: 0,
        };
        let run = |work: u64, bracket: Bracket| {
            optimum(&CHIPLET, &split, work, u64::MAX, bracket, &|| true)
        };
        let want = run(u64::MAX, Bracket::NONE).optimum.unwrap().t_min;
        // From half the optimum the ceilings are want/2 · 1.02 · 1.05^k = 0.51 · 1.05^k · want:
        // k = 0 … 13 find no tree (0.51 · 1.05¹³ = 0.9617), k = 14 finds the optimum
        // (1.0098 · want). Stopped in that last run, what is left is the bound 0.9617 · want.
        let ceiling = |k: u32| {
            let mut factor = FIRST_CEILING;
            for _ in 0..k {
                factor *= CEILING_STEP;
            }
            want / 2.0 * factor
        };
        assert!((ceiling(13) / want - 0.9617).abs() < 1e-4 && ceiling(14) > want);
        let from_half = Bracket::lower(want / 2.0);
        let all = run(u64::MAX, from_half);
        assert!((all.optimum.unwrap().t_min - want).abs() < 1e-9);
        assert_eq!(all.above, ceiling(13));
        let stopped = run(all.updates - 1, from_half);
        assert!(stopped.optimum.is_none());
        assert_eq!(stopped.above, ceiling(13));
        // With less work, a lower ceiling of the same series or none.
        for work in [all.updates / 2, all.updates / 8, all.updates / 64] {
            let partial = run(work, from_half);
            let k = (0..14).find(|&k| partial.above == ceiling(k));
            assert!(partial.above == 0.0 || k.is_some(), "{}", partial.above);
        }
        // An upper end that no tree attains (a broken contract: below the optimum) is one run
        // that finds nothing, then none without a ceiling.
        let broken = run(
            u64::MAX,
            Bracket {
                lower: 0.0,
                upper: 0.9 * want,
            },
        );
        assert!((broken.optimum.unwrap().t_min - want).abs() < 1e-9);
        assert!((broken.above - 0.9 * want).abs() < 1e-9);
        // At the optimum itself, one run finds it, with less work than the series from below.
        let told = run(
            u64::MAX,
            Bracket {
                lower: want / 2.0,
                upper: want,
            },
        );
        assert!((told.optimum.unwrap().t_min - want).abs() < 1e-9);
        assert!(told.above < want && told.updates < all.updates);
    }

    #[test]
    fn over_its_limits_it_declines() {
        let fits = |work: u64, memory: u64| {
            optimum(
                &CHIPLET,
                &Split {
                    counts: &[8, 4],
                    sockets: &[0, 0],
                    root: 0,
                },
                work,
                memory,
                Bracket::NONE,
                &|| true,
            )
        };
        // The fixed tables are checked before, the rows as they are written.
        assert!(fits(u64::MAX, fixed_bytes(&[8, 4], &[0, 0]) - 1)
            .optimum
            .is_none());
        assert!(fits(u64::MAX, fixed_bytes(&[8, 4], &[0, 0]) + 8)
            .optimum
            .is_none());
        assert!(fits(
            u64::MAX,
            fixed_bytes(&[8, 4], &[0, 0]) + ROW_ENTRY_BYTES * entries(&[8, 4])
        )
        .optimum
        .is_some());
        // The work is counted as it runs: found within what it reports, not within one less.
        let all = fits(u64::MAX, u64::MAX);
        let spent = all.updates;
        assert!(all.optimum.is_some() && spent > 0);
        assert!(fits(spent, u64::MAX).optimum.is_some());
        let stopped = fits(spent - 1, u64::MAX);
        assert!(stopped.optimum.is_none() && stopped.updates < spent);
        // Domains of more than 255 nodes (components past a byte): a run starts, and stops at
        // the work limit, no panic.
        let big = Split {
            counts: &[300, 2],
            sockets: &[0, 0],
            root: 0,
        };
        let work = least_run_work(big.counts, big.sockets) + 100_000;
        let stopped = optimum(&CHIPLET, &big, work, u64::MAX, Bracket::NONE, &|| true);
        assert!(stopped.optimum.is_none() && stopped.updates > 0);
        // Asked to stop, it stops.
        assert!(optimum(
            &CHIPLET,
            &Split {
                counts: &[8, 4],
                sockets: &[0, 0],
                root: 0
            },
            u64::MAX,
            u64::MAX,
            Bracket::NONE,
            &|| false
        )
        .optimum
        .is_none());
        assert!(unlimited(&[0, 4], &[0, 0], 0).optimum.is_none());
        assert!(unlimited(&[1], &[0], 0).optimum.is_none());
    }

    /// Terms drawn at random within the contract: edges and reads sorted by distance, a group's
    /// term g0 + a·(k − j) + b·(j − 1) + c·(k − 1)² (one more child adds a + c·(2k − 1) in a
    /// domain already held, b + c·(2k − 1) in a new one: never less, with a, b, c ≥ 0), so not
    /// only the chiplet machine's linear one.
    #[derive(Debug)]
    struct Drawn {
        root: f64,
        start: f64,
        edge: [f64; 3],
        read: [f64; 3],
        group: [f64; 4],
    }

    /// A cost within the contract: edges and reads sorted by distance, the rest at random.
    fn drawn() -> impl proptest::strategy::Strategy<Value = Drawn> {
        use proptest::strategy::Strategy;
        (
            0.0f64..5.0,
            0.0f64..200.0,
            proptest::array::uniform3(0.0f64..300.0),
            proptest::array::uniform3(0.0f64..300.0),
            proptest::array::uniform4(0.0f64..150.0),
        )
            .prop_map(|(root, start, mut edge, mut read, group)| {
                edge.sort_by(f64::total_cmp);
                read.sort_by(f64::total_cmp);
                Drawn {
                    root,
                    start,
                    edge,
                    read,
                    group,
                }
            })
    }

    impl SocketLineCost for Drawn {
        fn root(&self) -> f64 {
            self.root
        }
        fn start(&self) -> f64 {
            self.start
        }
        fn edge(&self, between: Distance) -> f64 {
            self.edge[between as usize]
        }
        fn group(&self, children: usize, domains: usize) -> f64 {
            let [g0, a, b, c] = self.group;
            let (k, j) = (children as f64, domains as f64);
            g0 + a * (k - j) + b * (j - 1.0) + c * (k - 1.0) * (k - 1.0)
        }
        fn read(&self, between: Distance) -> f64 {
            self.read[between as usize]
        }
        fn what(&self) -> String {
            "drawn terms".into()
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

        /// The law of an exact search: on any cost within the contract, the optimum equals the
        /// least cost over every tree and labeling (brute force by the model's evaluation), and
        /// the tree it returns has that cost; for every split of 2–5 nodes over 2 domains of
        /// one socket or of two, and over 3 domains of two sockets.
        #[test]
        fn on_any_cost_within_the_contract_the_optimum_is_the_least(cost in drawn()) {
            let splits: [(&[u32], &[u32]); 6] = [
                (&[2, 1], &[0, 0]),
                (&[1, 3], &[0, 1]),
                (&[3, 2], &[0, 0]),
                (&[2, 3], &[0, 1]),
                (&[2, 1, 2], &[0, 0, 1]),
                (&[1, 2, 1], &[0, 1, 1]),
            ];
            for (counts, sockets) in splits {
                for root in 0..counts.len() as u32 {
                    let want = brute_force(&cost, counts, sockets, root);
                    let split = Split { counts, sockets, root };
                    let found = optimum(&cost, &split, u64::MAX, u64::MAX, Bracket::NONE, &|| true);
                    let o = found.optimum.expect("within no limit");
                    proptest::prop_assert!(
                        (o.t_min - want).abs() < 1e-9,
                        "{counts:?} {sockets:?} root {root}: {} vs {want}", o.t_min
                    );
                    let again = evaluate(&cost, &o.tree, &o.domains, sockets).unwrap();
                    proptest::prop_assert!((again - want).abs() < 1e-9);
                    // Pruned from a guess below: the same optimum.
                    let guessed = Bracket::lower(want * 0.9);
                    let pruned = optimum(&cost, &split, u64::MAX, u64::MAX, guessed, &|| true);
                    let p = pruned.optimum.expect("within no limit");
                    proptest::prop_assert!((p.t_min - want).abs() < 1e-9);
                    // What the runs that found nothing proved is below the optimum (each ended
                    // at the first size where no forest was left).
                    // (0 where none did.)
                    proptest::prop_assert!(
                        pruned.above == 0.0 || pruned.above < want,
                        "{} vs {want}", pruned.above
                    );
                    // The domains of each socket merged: a bound at most the optimum, computed
                    // (a tree's cost, the root's term and a start at least) wherever a socket
                    // holds two domains, else 0.
                    let (merged, _) = merged_unlimited(&cost, &split);
                    proptest::prop_assert!(merged <= want + 1e-9, "merged {merged} above {want}");
                    if sockets.windows(2).any(|w| w[0] == w[1]) {
                        proptest::prop_assert!(merged >= cost.root() + cost.start());
                    } else {
                        proptest::prop_assert_eq!(merged, 0.0);
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// The law of a bound: on any cost within the contract, the free split's bound over
        /// its splits per socket is at most the least cost over every split per domain, every
        /// tree and every labeling (brute force), for 2–5 threads over 2 sockets × 2 domains
        /// of 2, the root in domain 0 or 2.
        #[test]
        fn on_any_cost_within_the_contract_a_free_split_is_bounded_below_every_placement(
            cost in drawn(),
        ) {
            let group_sockets = [0u32, 0, 1, 1];
            for root_group in [0u32, 2] {
                for threads in 2..=5u32 {
                    let free = FreeSplit {
                        capacity: &[2; 4],
                        group_sockets: &group_sockets,
                        threads,
                        root_group,
                    };
                    let mut left = u64::MAX;
                    let limits = (&mut left, u64::MAX, &(|| true) as &dyn Fn() -> bool);
                    let bound = free_split_bound(&cost, &free, limits, Bracket::NONE, &[])
                        .map_or(0.0, |(r, _)| r.t_min_lower_bound);
                    let least = least_over_domain_splits(threads, root_group, |split| {
                        brute_force(&cost, split.counts, split.sockets, split.root)
                    });
                    proptest::prop_assert!(
                        bound <= least + 1e-9,
                        "{threads} threads, root {root_group}: {bound} above {least}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// One run over a box is every split's run: on any cost within the contract, the least
        /// over every count vector of n nodes within the box of 2 sockets × 2 domains of 2
        /// (`optimum_up_to` with `nodes`) equals the least of each such vector's own optimum,
        /// for n = 2 … 8 and the root in domain 0 or 2; and the tree it rebuilds attains it.
        #[test]
        fn the_least_over_a_box_is_the_least_of_its_splits_optima(cost in drawn()) {
            let group_sockets = [0u32, 0, 1, 1];
            for root in [0u32, 2] {
                for n in 2..=8u64 {
                    // The box's least of n nodes, within `bracket`.
                    let over_box = |bracket: Bracket, past: PastUpper| {
                        optimum_up_to(
                            &cost,
                            &Split {
                                counts: &[2; 4],
                                sockets: &group_sockets,
                                root,
                            },
                            Some(n),
                            (u64::MAX, u64::MAX, &|| true),
                            bracket,
                            past,
                        )
                        .optimum
                    };
                    let found = over_box(Bracket::NONE, PastUpper::Unbounded).expect("no limit");
                    let least = least_over_domain_splits(n as u32, root, |split| {
                        optimum(&cost, split, u64::MAX, u64::MAX, Bracket::NONE, &|| true)
                            .optimum
                            .map_or(f64::INFINITY, |o| o.t_min)
                    });
                    proptest::prop_assert!(
                        (found.t_min - least).abs() < 1e-9,
                        "n = {n}, root {root}: box {}, splits {least}",
                        found.t_min
                    );
                    let priced = evaluate(&cost, &found.tree, &found.domains, &group_sockets)
                        .expect("a tree of the box");
                    proptest::prop_assert!((priced - found.t_min).abs() < 1e-9);
                    proptest::prop_assert_eq!(found.tree.len() as u64, n);
                    // The same with ceilings: climbing from half of it (runs under the least
                    // end without a tree), or one run at it, stopping there.
                    for (lower, past) in [
                        (least / 2.0, PastUpper::Unbounded),
                        (least / FIRST_CEILING, PastUpper::Stop),
                    ] {
                        let upper = least + 1e-6;
                        let again = over_box(Bracket { lower, upper }, past)
                            .expect("at or under the upper end");
                        proptest::prop_assert!((again.t_min - least).abs() < 1e-9);
                    }
                }
            }
        }
    }

    /// The chiplet terms with the reads falling with distance: outside the contract.
    #[derive(Debug)]
    struct FallingReads;

    impl SocketLineCost for FallingReads {
        fn root(&self) -> f64 {
            CHIPLET.root()
        }
        fn start(&self) -> f64 {
            CHIPLET.start()
        }
        fn edge(&self, between: Distance) -> f64 {
            CHIPLET.edge(between)
        }
        fn group(&self, children: usize, domains: usize) -> f64 {
            CHIPLET.group(children, domains)
        }
        fn read(&self, between: Distance) -> f64 {
            300.0 - CHIPLET.read(between)
        }
        fn what(&self) -> String {
            "falling reads".into()
        }
    }

    #[test]
    fn a_cost_outside_the_contract_is_declined() {
        // Its pruning and its least value per state would not be sound: nothing is claimed.
        let split = Split {
            counts: &[2, 2],
            sockets: &[0, 1],
            root: 0,
        };
        let o = optimum(
            &FallingReads,
            &split,
            u64::MAX,
            u64::MAX,
            Bracket::NONE,
            &|| true,
        );
        assert_eq!(o, Outcome::declined());
    }

    /// A space of two threads in two L3 domains of one socket, root thread 0, carrying the
    /// chiplet terms.
    fn two_domains(lines: bool) -> PricedTreeSpace {
        PricedTreeSpace {
            threads: 2,
            thread_sockets: vec![0, 0],
            thread_groups: vec![0, 1],
            root_thread: 0,
            capacity: None,
            groups_per_socket: 1,
            domain_renaming: DomainRenaming::Any,
            work_per_configuration: 1,
            sockets_fix_cost: true,
            t_min_lower_bound: Some(300.0),
            t_max_lower_bound: None,
            socket_lines: lines.then(|| SocketLines {
                cost: std::sync::Arc::new(Chiplet),
                group_sockets: vec![0, 0],
                by_domain: true,
            }),
            priced_by: "a test".into(),
        }
    }

    #[test]
    fn a_space_is_refined_to_its_costs_optimum_and_its_configuration() {
        // Counts [1, 1], root in domain 0: 575.86 ns (small_optima_by_hand), the tree 0(1),
        // thread 1 the child, the threads keeping their sockets.
        let space = two_domains(true);
        let want = Params::RootedTree {
            parents: vec![None, Some(0)],
            sockets: vec![0, 0],
            domains: Vec::new(),
        };
        let found = refine(&space, u64::MAX, u64::MAX, f64::INFINITY, &|| true).unwrap();
        assert!((found.t_min_lower_bound - 575.86).abs() < 1e-9);
        assert_eq!(found.configurations, vec![want.clone()]);
        // Told a value below the optimum (against the caller's contract), the run at it finds
        // none and the next runs without a ceiling: the same answer.
        let told = refine(&space, u64::MAX, u64::MAX, 500.0, &|| true).unwrap();
        assert_eq!(told, found);
        // A space without the cost, or a budget below one run's least work: nothing.
        assert_eq!(
            refine(
                &two_domains(false),
                u64::MAX,
                u64::MAX,
                f64::INFINITY,
                &|| true
            ),
            None
        );
        assert_eq!(refine(&space, 0, u64::MAX, f64::INFINITY, &|| true), None);
    }

    #[test]
    fn the_domains_of_a_socket_merged_by_hand() {
        // [1, 1] on one socket, the root in domain 0: merged, the one tree 0(1) has its child
        // in the root's domain: R_L + R_I (S3) + R_R + R_L (edge) + R_I (group of one) + R_R
        // (read) = 1.43 + 122 + 36.43 + 122 + 35 = 316.86 ns, under the 575.86 of the split
        // by domain (small_optima_by_hand).
        let split = Split {
            counts: &[1, 1],
            sockets: &[0, 0],
            root: 0,
        };
        let (merged, work) = merged_unlimited(&CHIPLET, &split);
        assert!((merged - 316.86).abs() < 1e-9, "{merged}");
        assert!(work < u64::MAX);
        // A group of 5 children merged: the least over 1 … 4 domains of R_I + (5 − j)·R_R +
        // (j − 1)·R_D, at j = 1: 122 + 4 · 35 = 262; edges and reads within a socket R_R.
        let m = MergedDomains {
            inner: &CHIPLET,
            span: 4,
        };
        assert_eq!(m.group(5, 3), 262.0);
        assert_eq!(m.edge(Distance::SameSocket), 35.0 + 1.43);
        assert_eq!(m.read(Distance::SameSocket), 35.0);
        assert_eq!(m.read(Distance::OtherSocket), 223.5);
        // One domain a socket: nothing to merge, no bound.
        let apart = Split {
            counts: &[1, 1],
            sockets: &[0, 1],
            root: 0,
        };
        let (none, work) = merged_unlimited(&CHIPLET, &apart);
        assert_eq!((none, work), (0.0, u64::MAX));
    }

    /// `threads` placed freely over 2 sockets × 2 domains of `per_domain` cores (the chiplet
    /// machine's classes), the root thread in group `root_group`, the others by id from
    /// group 0 on.
    fn free_over_four_domains(threads: u32, per_domain: u32, root_group: u32) -> PricedTreeSpace {
        let mut groups: Vec<u32> = (0..threads).map(|t| t / per_domain).collect();
        groups[0] = root_group;
        PricedTreeSpace {
            threads,
            thread_sockets: groups.iter().map(|g| g / 2).collect(),
            thread_groups: groups,
            root_thread: 0,
            capacity: Some(vec![per_domain; 4]),
            groups_per_socket: 2,
            domain_renaming: DomainRenaming::Any,
            work_per_configuration: 1,
            sockets_fix_cost: true,
            t_min_lower_bound: Some(300.0),
            t_max_lower_bound: None,
            socket_lines: Some(SocketLines {
                cost: std::sync::Arc::new(Chiplet),
                group_sockets: vec![0, 0, 1, 1],
                by_domain: true,
            }),
            priced_by: "a test".into(),
        }
    }

    #[test]
    fn a_free_split_is_bounded_by_the_least_of_its_splits_per_socket_by_hand() {
        // Two threads over 2 sockets × 2 domains of one core, the root in domain 0. The splits
        // per socket: both on socket 0, merged 316.86 ns (the_domains_of_a_socket_merged_by_hand);
        // one on each, the tree 0(1) across sockets: R_L + R_I + (R_Q + R_L) + R_I + R_Q = 1.43
        // + 122 + 224.93 + 122 + 223.5 = 693.86 ns. The bound is the least, 316.86 (the graph's
        // least is higher: the two threads are in two domains, 575.86 by domain). The threads'
        // own split (thread 1 in domain 1) gives the tree 0(1) there as a configuration.
        let space = free_over_four_domains(2, 1, 0);
        let found = refine(&space, u64::MAX / 4, u64::MAX, f64::INFINITY, &|| true).unwrap();
        assert!((found.t_min_lower_bound - 316.86).abs() < 1e-9, "{found:?}");
        assert!(!found.stopped);
        match found.configurations.as_slice() {
            [Params::RootedTree {
                parents,
                sockets,
                domains,
            }] => {
                assert_eq!(parents, &vec![None, Some(0)]);
                assert_eq!(sockets, &vec![0, 0]);
                assert_eq!(domains, &vec![0, 1]);
            }
            other => panic!("{other:?}"),
        }
        // No higher than the space's own bound: nothing.
        let mut told = free_over_four_domains(2, 1, 0);
        told.t_min_lower_bound = Some(316.86);
        assert_eq!(
            refine(&told, u64::MAX / 4, u64::MAX, f64::INFINITY, &|| true),
            None
        );
    }

    #[test]
    fn the_box_run_of_a_free_split_takes_at_most_half_the_budget() {
        // 7 threads over 2 sockets × 2 domains of 2 cores (the box 5 × 5 per socket, merged).
        // Unlimited, its run spends more than 1,000 units; given 1,000 it stops within half of
        // them and leaves the rest to the threads' own split (none given here, so nothing else
        // spends them). It took them all before.
        let cost = Chiplet;
        let group_sockets = [0u32, 0, 1, 1];
        let free = FreeSplit {
            capacity: &[2; 4],
            group_sockets: &group_sockets,
            threads: 7,
            root_group: 0,
        };
        let spend = |budget: u64| {
            let mut left = budget;
            let limits = (&mut left, u64::MAX, &(|| true) as &dyn Fn() -> bool);
            let _ = free_split_bound(&cost, &free, limits, Bracket::NONE, &[]);
            budget - left
        };
        assert!(spend(u64::MAX / 4) > 1000);
        assert!(spend(1000) <= 500);
    }

    #[test]
    fn a_free_split_is_bounded_below_the_optimum_of_every_split_per_domain() {
        // 2 sockets × 2 domains of 2 cores, 2 to 7 threads, the root in domain 0 or 2: the
        // bound is at most the cost's optimum over every split of the threads per domain (each
        // exact against brute force, the_optimum_equals_brute_force_and_its_tree_attains_it),
        // and above the space's own bound of 300 ns.
        for root_group in [0u32, 2] {
            for threads in 2..=7u32 {
                let space = free_over_four_domains(threads, 2, root_group);
                let found = refine(&space, u64::MAX / 4, u64::MAX, f64::INFINITY, &|| true);
                let least = least_over_domain_splits(threads, root_group, |split| {
                    unlimited(split.counts, split.sockets, split.root)
                        .optimum
                        .unwrap()
                        .t_min
                });
                let bound = found.map_or(300.0, |f| f.t_min_lower_bound);
                assert!(
                    bound <= least + 1e-9,
                    "{threads} threads, root {root_group}: {bound} > {least}"
                );
                assert!(bound > 300.0, "{threads} threads, root {root_group}");
            }
        }
    }

    /// The least of `optimum` over every split of `threads` over 2 sockets × 2 domains of 2
    /// (the root in `root_group`), each given with its empty domains left out and its sockets
    /// renumbered 0, 1, … as [`Split`] asks.
    fn least_over_domain_splits(
        threads: u32,
        root_group: u32,
        optimum: impl Fn(&Split<'_>) -> f64,
    ) -> f64 {
        let mut least = f64::INFINITY;
        let mut walk = crate::rooted_trees::SplitWalk::new(threads, &[2; 4], root_group);
        while let Some(split) = walk.next_split() {
            let used: Vec<usize> = (0..4).filter(|&g| split[g] > 0).collect();
            let counts: Vec<u32> = used.iter().map(|&g| split[g]).collect();
            let on: Vec<u32> = used.iter().map(|&g| g as u32 / 2).collect();
            let sockets: Vec<u32> = on.iter().map(|&s| u32::from(s != on[0])).collect();
            let root = used.iter().position(|&g| g == root_group as usize).unwrap() as u32;
            least = least.min(optimum(&Split {
                counts: &counts,
                sockets: &sockets,
                root,
            }));
        }
        least
    }

    /// Threads by id with the chiplet machine's classes: each thread's socket and group (L3
    /// domain), each group's socket, the root thread 0, no bound of the space's own.
    fn by_id(
        thread_sockets: Vec<u32>,
        thread_groups: Vec<u32>,
        group_sockets: Vec<u32>,
    ) -> PricedTreeSpace {
        PricedTreeSpace {
            threads: thread_sockets.len() as u32,
            thread_sockets,
            thread_groups,
            root_thread: 0,
            capacity: None,
            groups_per_socket: 1,
            domain_renaming: DomainRenaming::Any,
            work_per_configuration: 1,
            sockets_fix_cost: true,
            t_min_lower_bound: None,
            t_max_lower_bound: None,
            socket_lines: Some(SocketLines {
                cost: std::sync::Arc::new(Chiplet),
                group_sockets,
                by_domain: true,
            }),
            priced_by: "a test".into(),
        }
    }

    #[test]
    fn the_merged_bound_counts_its_work_at_its_own_tables_rate() {
        // 64 threads by id over 2 sockets × 4 domains of 8 under the default budget (10⁸
        // units) and memory (2 GiB): the split by domain's tables (9⁸ count vectors, over the
        // memory) are not built, and the merged one (33 · 33 vectors per socket) is small, so
        // its updates cost the default rate, two a unit. Counted at the split by domain's rate
        // (÷ √(tables / 40 MiB), about 16), it stopped short of its optimum: the bound was
        // what its runs had proved (the CLI's gap at 64 threads 23.1 % against 20.4 %).
        let space = by_id(
            (0..64).map(|t| t / 32).collect(),
            (0..64).map(|t| t / 8).collect(),
            vec![0, 0, 0, 0, 1, 1, 1, 1],
        );
        let counts = [8u32; 8];
        let sockets = [0, 0, 0, 0, 1, 1, 1, 1];
        let memory = 2u64 << 30;
        assert!(fixed_bytes(&counts, &sockets) > memory);
        let split = Split {
            counts: &counts,
            sockets: &sockets,
            root: 0,
        };
        let (merged, _) = merged_unlimited(&CHIPLET, &split);
        let found = refine(&space, 100_000_000, memory, f64::INFINITY, &|| true).unwrap();
        assert_eq!(found.t_min_lower_bound, merged);
        assert!(found.configurations.is_empty());
        assert_eq!(found.memory_needed, fixed_bytes(&counts, &sockets));
    }

    #[test]
    fn where_the_split_by_domain_does_not_fit_the_merged_bound_is_left() {
        // 12 threads in two domains of one socket (8 and 4): merged, one box of 13 vectors,
        // against 45 by domain; with memory for the first's tables and not the second's, the
        // refinement is the merged optimum, with no configuration, below the split's optimum.
        let space = by_id(vec![0; 12], [vec![0; 8], vec![1; 4]].concat(), vec![0, 0]);
        let memory = fixed_bytes(&[8, 4], &[0, 0]) - 1;
        assert!(fixed_bytes(&[12], &[0]) < memory);
        let split = Split {
            counts: &[8, 4],
            sockets: &[0, 0],
            root: 0,
        };
        let (merged, _) = merged_unlimited(&CHIPLET, &split);
        let found = refine(&space, u64::MAX / 4, memory, f64::INFINITY, &|| true).unwrap();
        assert_eq!(found.t_min_lower_bound, merged);
        assert!(found.configurations.is_empty());
        assert_eq!(found.memory_needed, memory + 1);
        let fine = unlimited(&[8, 4], &[0, 0], 0).optimum.unwrap().t_min;
        assert!(merged > 0.0 && merged < fine, "{merged} vs {fine}");
        // With the memory for both, the split's optimum and its tree.
        let both = refine(&space, u64::MAX / 4, u64::MAX, f64::INFINITY, &|| true).unwrap();
        assert_eq!(both.t_min_lower_bound, fine);
        assert_eq!(both.configurations.len(), 1);
        assert_eq!(both.memory_needed, 0);
    }
}
