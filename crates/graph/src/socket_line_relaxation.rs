//! The one-line broadcast on one socket split into L3 domains, each node keeping **one**
//! many-to-one line per socket (`topology.sync_line = "socket"`, seed 001 §4 (2)): the exact
//! optimum of a relaxation of its CLa cost, which is a certified lower bound on T_min over every
//! rooted tree and domain labeling of a request, and a candidate tree for the graph-priced search
//! (`docs/cla.md` §13, "One line per socket: a relaxation").
//!
//! ## Why a relaxation
//! With one line per socket the adds of a node's children come from several domains, and the
//! CLa graph's T_min (§5) enters the group at the write whose start is latest and visits the
//! others in the cheapest order from there: its cost depends on *which* domain holds the latest
//! child, and not monotonically (a child made slower elsewhere can become the entry and let the
//! order end in the poller's domain). No dynamic program over subtree costs is exact for that.
//! Drop the one term that breaks monotonicity and what is left has one:
//!
//! for a node p in domain r whose k children (all on p's socket) hold roots in the set U of
//! domains, with arrivals a_c = R_I + x(r, d_c) + R_L + T(c) (R_I: p's S3 into its fresh payload
//! line; x = R_R in one domain, R_D across; R_L: the child's S2),
//!
//! ```text
//! T(p) ≥ max_c a_c + R_I + (k − |U|)·R_R + (|U| − 1)·R_D + (R_R if r ∈ U else R_D),   T(leaf) = 0
//! ```
//!
//! because the group's first write fetches the fresh line from memory (R_I, rule 1: it is homed
//! on the socket), every later write fetches it from the previous writer (R_R, or R_D when the
//! domain changes, which it must do at least |U| − 1 times), and the wait reads it from the last
//! writer (R_R at best when r ∈ U, else R_D). Each term is at most the graph's, and the whole is
//! non-decreasing in every child's T, so by induction the right side, evaluated bottom-up, is at
//! most the graph's T_min of the same tree. It equals it whenever the graph's order can end in
//! the poller's domain or the poller's domain holds no child, i.e. unless the latest child is
//! in the poller's domain and another domain holds a child (then the graph pays R_D − R_R more).
//!
//! ## The dynamic program
//! The relaxed cost sees a subtree only through its root's domain and its own T, and a node's
//! children only through the latest arrival, how many there are and which domains (its own or
//! not) they start in: the socket DP's argument (§11) with one group per node. For every domain
//! d and count vector w (nodes per domain) T(d, w) is the least relaxed T of a tree rooted in d
//! holding w. A node's forest is built one child at a time in ascending domain order, keeping
//! per count vector the least latest arrival for every (children k, domains used j, whether the
//! parent's domain is one of them): `open` for forests whose last domain is the layer's, and
//! their prefix minimum over layers. Trees of n nodes need forests of n − 1, so the tables fill
//! by total node count; the tree is rebuilt from the tables with an explicit stack.
//!
//! ## Pruning
//! A run has a ceiling C on the relaxed T_min. Every ancestor only adds to a subtree's T, and a
//! parent adds at least its S3 (R_I), the edge (R_R + R_L), its group's fresh line (R_I) and
//! the read (R_R); so a proper subtree whose T is above C − R_L − (2·R_I + 2·R_R + R_L) is in no
//! tree under C, nor is a forest whose node would be above that (above C − R_L for a node in
//! the root's domain, which may be the root) even with the cheapest read: more children never
//! lower a node (one more costs R_R or R_D). Such entries are dropped, and a row of a table with
//! no entry left is not written (each row keeps the most children of its forests, which also
//! bounds the loops that read it). [`optimum`] raises the ceiling from a guess until a run finds
//! a tree; that run kept every tree under its ceiling, the optimum among them.
//!
//! The work is counted as it runs (each forest state looked at, each pair of count vectors,
//! each row), against a limit, and the run asks between count vectors whether to go on; the
//! unpruned work is at most [`work`], the memory [`bytes`], checked before anything is
//! allocated.

use modelopt_model::ccnuma::tree::RootedTree;

/// The four line classes the relaxation uses, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relaxation {
    /// R_L: a line in the reader's own cache (the root's read of its buffer, a child's S2).
    pub local: f64,
    /// R_R: a transfer between two cores of one L3 domain.
    pub remote: f64,
    /// R_D: a transfer between two L3 domains of one socket.
    pub remote_domain: f64,
    /// R_I: a fresh line fetched from the socket's memory.
    pub invalid: f64,
}

/// The relaxation's optimum: its T_min (the bound) and a tree that attains it.
#[derive(Debug, Clone, PartialEq)]
pub struct RelaxedOptimum {
    /// The least relaxed T_min over every tree and labeling, with the root's R_L, ns.
    pub t_min: f64,
    /// The tree on nodes `0..n`, node 0 the root.
    pub tree: RootedTree,
    /// Each node's domain, as an index into the request's counts.
    pub domains: Vec<u32>,
}

/// The most domains the program handles (its forest states grow with their square).
pub const MAX_DOMAINS: usize = 16;

impl Relaxation {
    /// The edge to a child: x(r, d) + R_L.
    fn edge(&self, parent: usize, child: usize) -> f64 {
        let x = if parent == child {
            self.remote
        } else {
            self.remote_domain
        };
        x + self.local
    }

    /// A node's relaxed T from its forest: latest arrival `latest` (without the node's own
    /// S3), `k` children in `j` domains, `own` when one of them is the node's domain. Written
    /// once, so that the rebuild finds the table's values bit for bit.
    fn node(&self, latest: f64, k: usize, j: usize, own: bool) -> f64 {
        let read = if own { self.remote } else { self.remote_domain };
        self.invalid
            + latest
            + self.invalid
            + (k - j) as f64 * self.remote
            + (j - 1) as f64 * self.remote_domain
            + read
    }

    /// The relaxed T_min of `tree` with node v in domain `domains[v]`, the root's R_L included;
    /// iterative. `None` if the labels do not match the tree.
    pub fn evaluate(&self, tree: &RootedTree, domains: &[u32]) -> Option<f64> {
        if domains.len() != tree.len() {
            return None;
        }
        let mut t = vec![0.0f64; tree.len()];
        for &p in tree.preorder().iter().rev() {
            let kids = tree.children(p);
            if kids.is_empty() {
                continue;
            }
            let r = domains[p as usize] as usize;
            let mut used: Vec<u32> = kids.iter().map(|&c| domains[c as usize]).collect();
            used.sort_unstable();
            used.dedup();
            let latest = kids
                .iter()
                .map(|&c| self.edge(r, domains[c as usize] as usize) + t[c as usize])
                .fold(f64::NEG_INFINITY, f64::max);
            let own = used.binary_search(&(r as u32)).is_ok();
            t[p as usize] = self.node(latest, kids.len(), used.len(), own);
        }
        Some(self.local + t[tree.root() as usize])
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

/// An upper bound on the work of one unpruned run of [`optimum`] for these counts, in
/// forest-state updates (saturating): the pairs w ≤ m of the box × domains (parents) × domains
/// (layers) × forest states × 2 (the two tables a tree joins). Pruning and empty states make
/// the real count far smaller; [`optimum`] counts that one.
pub fn work(counts: &[u32]) -> u64 {
    let d = counts.len() as u64;
    let n: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let pairs = counts.iter().fold(1u64, |acc, &c| {
        let c = u64::from(c);
        acc.saturating_mul((c + 1) * (c + 2) / 2)
    });
    // Forest states: (children 1..n − 1) × (domains used) × (own domain among them).
    let states = n.saturating_sub(1).saturating_mul(d).saturating_mul(2);
    pairs
        .saturating_mul(d)
        .saturating_mul(d)
        .saturating_mul(states)
        .saturating_mul(2)
}

/// The forest entries (f64) [`optimum`] would hold if no row were pruned (saturating): per
/// parent domain, layer and count vector an `open` and a `prefix` row of every forest state.
/// Rows are written only where a forest is left, each as long as its most trees need, so the
/// real count is far smaller; it is checked against the memory as rows are written.
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

/// The bytes [`optimum`] allocates before its rows (saturating): per count vector its trees (D
/// of 8 bytes), per parent domain, layer and vector the place and length of its two rows (2 ·
/// D² of 8 + 4 bytes), its domains held (D bytes), its place in the list by total (8) and one
/// list of the vectors below it (8 each, at most all of them).
pub fn fixed_bytes(counts: &[u32]) -> u64 {
    let d = counts.len() as u64;
    vectors(counts).saturating_mul(8 * d + 2 * d * d * 12 + d + 16)
}

/// The relaxation's optimum over every rooted tree holding `counts[d]` nodes in domain d, its
/// root in domain `root`, with the work spent. `None` when it needs more than `max_work`
/// updates (counted as it runs: every forest state looked at, every pair of count vectors
/// visited and every row of states written), or `keep_going()` turns false (asked once per
/// count vector), or it needs more than `max_bytes` of memory ([`fixed_bytes`], checked
/// before it starts, and its rows, as they are written), has fewer than 2 nodes or more than [`MAX_DOMAINS`] domains, or the
/// root's domain holds no node.
///
/// It runs with a ceiling on the relaxed T_min and drops every subtree and forest that cannot be
/// part of a tree under it (module docs, "Pruning"), first at `hint` (any guess of the optimum,
/// e.g. a lower bound; 0 for none) plus 2 %, the slack doubled after each run that finds no
/// tree, and without a ceiling once the slack passes 256 %: the first run that finds a tree has
/// kept every tree under its ceiling, so what it finds is the optimum.
pub fn optimum(
    relaxation: &Relaxation,
    counts: &[u32],
    root: u32,
    max_work: u64,
    max_bytes: u64,
    hint: f64,
    keep_going: &dyn Fn() -> bool,
) -> (Option<RelaxedOptimum>, u64) {
    let root = root as usize;
    let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    if counts.len() > MAX_DOMAINS
        || total < 2
        || counts.get(root).is_none_or(|&c| c == 0)
        || fixed_bytes(counts) > max_bytes
    {
        return (None, 0);
    }
    let Some(mut tables) = Tables::new(relaxation, counts, max_bytes) else {
        return (None, 0);
    };
    let mut left = max_work;
    let mut slack = 0.02f64;
    loop {
        let ceiling = if hint > 0.0 && hint.is_finite() && slack <= 2.56 {
            hint * (1.0 + slack)
        } else {
            f64::INFINITY
        };
        if tables.fill(root, ceiling, &mut left, keep_going).is_none() {
            return (None, max_work - left);
        }
        let full = tables.space.len - 1;
        let t_min = relaxation.local + tables.tree(root, full);
        if t_min.is_finite() {
            let found = tables
                .rebuild(root, full)
                .map(|(tree, domains)| RelaxedOptimum {
                    t_min,
                    tree,
                    domains,
                });
            return (found, max_work - left);
        }
        if ceiling == f64::INFINITY {
            return (None, max_work - left);
        }
        slack *= 2.0;
    }
}

/// Slack on the pruning tests, ns: the ceiling is compared with sums taken in another order
/// than the table's, so that no tree exactly at the ceiling is lost to rounding.
const ROUNDING: f64 = 1e-6;

/// The DP's tables; see the module docs.
struct Tables<'a> {
    relaxation: &'a Relaxation,
    space: CountBox,
    domains: usize,
    /// Forest states per count vector: (k − 1, j − 1, own) → ((k − 1)·D + j − 1)·2 + own.
    states: usize,
    /// T(d, w) at `d * len + w`; ∞ where no tree exists.
    trees: Vec<f64>,
    /// Per parent domain u and layer d: forests whose largest root domain is d, a row per
    /// count vector m written into `arena` at `open_rows[(u * D + d) * len + m]`, holding the
    /// states of k ≤ its most trees (`open_kids`, 0 where no row was written this run).
    open_rows: Vec<usize>,
    /// The same, prefix-minimized over layers ≤ d.
    prefix_rows: Vec<usize>,
    /// The most trees of a finite `open` entry per (u, d, m); 0 for none (no row).
    open_kids: Vec<u32>,
    /// The same for `prefix`.
    prefix_kids: Vec<u32>,
    /// Every row written this run.
    arena: Vec<f64>,
    /// Most entries `arena` may hold (the memory left after the fixed tables).
    arena_cap: usize,
}

impl<'a> Tables<'a> {
    fn state(&self, k: usize, j: usize, own: bool) -> usize {
        (((k - 1) * self.domains) + (j - 1)) * 2 + usize::from(own)
    }

    fn unstate(&self, s: usize) -> (usize, usize, bool) {
        let own = s % 2 == 1;
        let rest = s / 2;
        (rest / self.domains + 1, rest % self.domains + 1, own)
    }

    fn kids_at(&self, u: usize, d: usize, m: usize) -> usize {
        (u * self.domains + d) * self.space.len + m
    }

    /// An `open` entry of this run: ∞ where the row was not written or is shorter.
    fn open_value(&self, u: usize, d: usize, m: usize, s: usize) -> f64 {
        let at = self.kids_at(u, d, m);
        if s >= self.open_kids[at] as usize * self.domains * 2 {
            return f64::INFINITY;
        }
        self.arena[self.open_rows[at] + s]
    }

    /// The same for `prefix`.
    fn prefix_value(&self, u: usize, d: usize, m: usize, s: usize) -> f64 {
        let at = self.kids_at(u, d, m);
        if s >= self.prefix_kids[at] as usize * self.domains * 2 {
            return f64::INFINITY;
        }
        self.arena[self.prefix_rows[at] + s]
    }

    /// Append a row's first `len` states; `None` past the memory.
    fn write(&mut self, row: &[f64]) -> Option<usize> {
        let at = self.arena.len();
        if at + row.len() > self.arena_cap {
            return None;
        }
        self.arena.extend_from_slice(row);
        Some(at)
    }

    fn tree(&self, d: usize, w: usize) -> f64 {
        self.trees[d * self.space.len + w]
    }

    /// The least relaxed T of a tree rooted in `d` over the forest of `rest` (non-empty), and
    /// the forest state that gives it.
    fn best_node(&self, d: usize, rest: usize) -> (f64, usize) {
        let at = self.kids_at(d, self.domains - 1, rest);
        let base = self.prefix_rows[at];
        let mut best = (f64::INFINITY, 0);
        let most = self.prefix_kids[at] as usize;
        for s in 0..most * self.domains * 2 {
            let latest = self.arena[base + s];
            if latest.is_finite() {
                let (k, j, own) = self.unstate(s);
                let t = self.relaxation.node(latest, k, j, own);
                if t < best.0 {
                    best = (t, s);
                }
            }
        }
        best
    }

    /// The tables for `counts`, every row unwritten, the rows within `max_bytes` less the fixed
    /// tables ([`fixed_bytes`]).
    fn new(relaxation: &'a Relaxation, counts: &[u32], max_bytes: u64) -> Option<Self> {
        let space = CountBox::new(counts)?;
        let domains = counts.len();
        let n: usize = counts.iter().map(|&c| c as usize).sum();
        let states = n.checked_sub(1)? * domains * 2;
        let len = space.len;
        let rows = domains * domains * len;
        let arena_cap = usize::try_from(max_bytes.saturating_sub(fixed_bytes(counts)) / 8)
            .unwrap_or(usize::MAX);
        Some(Tables {
            relaxation,
            space,
            domains,
            states,
            trees: vec![f64::INFINITY; domains * len],
            open_rows: vec![0; rows],
            prefix_rows: vec![0; rows],
            open_kids: vec![0; rows],
            prefix_kids: vec![0; rows],
            arena: Vec::new(),
            arena_cap,
        })
    }

    /// One run of the DP under `ceiling` (module docs, "Pruning"), spending `left` work;
    /// `None` when the work runs out. A row of `open` or `prefix` is this run's only where its
    /// `kids` entry is non-zero (reset here, so that no row from an earlier run is read).
    fn fill(
        &mut self,
        root: usize,
        ceiling: f64,
        left: &mut u64,
        keep_going: &dyn Fn() -> bool,
    ) -> Option<()> {
        let tables = self;
        let domains = tables.domains;
        let states = tables.states;
        let kids = states / (domains * 2);
        let n = kids + 1;
        let len = tables.space.len;
        let r = *tables.relaxation;
        tables.trees.fill(f64::INFINITY);
        tables.open_kids.fill(0);
        tables.prefix_kids.fill(0);
        tables.arena.clear();
        // The least a parent adds above a child's T (its S3, the edge at R_R, the group's
        // fresh line, the read at R_R), and the root's R_L: a proper subtree above `sub_cap`,
        // or a forest whose node would be, lies in no tree under the ceiling.
        let whole_cap = ceiling - r.local + ROUNDING;
        let sub_cap = whole_cap - (2.0 * r.invalid + 2.0 * r.remote + r.local);
        let mut by_total: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        // Whether each vector holds a node in each domain, at `w * D + d` (the hot loop's test).
        let mut holds = vec![false; len * domains];
        for m in 0..len {
            let mut total = 0;
            for d in 0..domains {
                let c = tables.space.component(m, d);
                holds[m * domains + d] = c > 0;
                total += c;
            }
            by_total[total].push(m);
        }
        let mut below = Vec::new();
        let mut row = vec![f64::INFINITY; states];
        for (t, vectors) in by_total.iter().enumerate().skip(1) {
            // Trees of t nodes, from forests of t − 1.
            for &w in vectors {
                for d in 0..domains {
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
                        sub_cap
                    };
                    if value <= cap {
                        tables.trees[d * len + w] = value;
                    }
                }
            }
            // Forests of t nodes, one more tree on a smaller forest.
            if t > kids {
                continue;
            }
            for &m in vectors {
                if !keep_going() {
                    return None;
                }
                tables.space.below(m, &mut below);
                for u in 0..domains {
                    // A node in the root's domain may be the root.
                    let cap = if u == root { whole_cap } else { sub_cap };
                    for d in 0..domains {
                        row.fill(f64::INFINITY);
                        let mut most = 0usize;
                        let own_layer = d == u;
                        let mut spent = (below.len() + states) as u64;
                        for &w in &below[1..] {
                            if !holds[w * domains + d] {
                                continue;
                            }
                            let tree = tables.trees[d * len + w];
                            if !tree.is_finite() {
                                continue;
                            }
                            let a = r.edge(u, d) + tree;
                            let rest = m - w;
                            if rest == 0 {
                                let s = tables.state(1, 1, own_layer);
                                row[s] = row[s].min(a);
                                most = most.max(1);
                                continue;
                            }
                            // Another tree of this layer: (k, j, own) → (k + 1, j, own); the
                            // layer's first: (k, j, own) → (k + 1, j + 1, own or d = u). Rows
                            // with no forest (kids 0) are not this run's and are not read.
                            let same_at = tables.kids_at(u, d, rest);
                            let same = tables.open_rows[same_at];
                            let same_kids = tables.open_kids[same_at] as usize;
                            let (lower, lower_kids) = if d > 0 {
                                let at = tables.kids_at(u, d - 1, rest);
                                (tables.prefix_rows[at], tables.prefix_kids[at] as usize)
                            } else {
                                (0, 0)
                            };
                            let top = same_kids.max(lower_kids).min(kids - 1);
                            for k in 1..=top {
                                for j in 1..=domains.min(k) {
                                    spent += 2;
                                    for own in [false, true] {
                                        let s = tables.state(k, j, own);
                                        if k <= same_kids {
                                            let v = tables.arena[same + s];
                                            if v.is_finite() {
                                                let to = tables.state(k + 1, j, own);
                                                row[to] = row[to].min(v.max(a));
                                            }
                                        }
                                        if k <= lower_kids && j < domains {
                                            let v = tables.arena[lower + s];
                                            if v.is_finite() {
                                                let to =
                                                    tables.state(k + 1, j + 1, own || own_layer);
                                                row[to] = row[to].min(v.max(a));
                                            }
                                        }
                                    }
                                }
                            }
                            most = most.max(top + 1);
                        }
                        *left = left.checked_sub(spent)?;
                        // Drop the forests whose node is over the cap whatever joins them
                        // (more children never lower the group; the read at R_R at best), and
                        // find the most trees a forest left holds.
                        let mut open_most = 0u32;
                        for (s, x) in row.iter_mut().enumerate().take(most * domains * 2) {
                            if x.is_finite() {
                                let (k, j, _) = tables.unstate(s);
                                if r.node(*x, k, j, true) > cap {
                                    *x = f64::INFINITY;
                                } else {
                                    open_most = k as u32;
                                }
                            }
                        }
                        let kids_at = tables.kids_at(u, d, m);
                        let width = domains * 2;
                        if open_most > 0 {
                            let at = tables.write(&row[..open_most as usize * width])?;
                            tables.open_rows[kids_at] = at;
                        }
                        tables.open_kids[kids_at] = open_most;
                        let mut prefix_most = open_most;
                        if d > 0 {
                            let below_at = tables.kids_at(u, d - 1, m);
                            let lower_kids = tables.prefix_kids[below_at];
                            if lower_kids > 0 {
                                let before = tables.prefix_rows[below_at];
                                let n = lower_kids as usize * width;
                                let lower = &tables.arena[before..before + n];
                                for (x, &y) in row.iter_mut().zip(lower) {
                                    *x = x.min(y);
                                }
                                prefix_most = prefix_most.max(lower_kids);
                            }
                        }
                        if prefix_most > 0 {
                            let at = tables.write(&row[..prefix_most as usize * width])?;
                            tables.prefix_rows[kids_at] = at;
                        }
                        tables.prefix_kids[kids_at] = prefix_most;
                    }
                }
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
        let mut parents: Vec<Option<u32>> = vec![None];
        let mut domains: Vec<u32> = vec![root as u32];
        let mut jobs = vec![Job::Tree { id: 0, d: root, m }];
        while let Some(job) = jobs.pop() {
            match job {
                Job::Tree { id, d, m } => {
                    let rest = m - self.space.strides[d];
                    if rest == 0 {
                        continue;
                    }
                    let (value, s) = self.best_node(d, rest);
                    if !value.is_finite() {
                        return None;
                    }
                    let v = self.prefix_value(d, self.domains - 1, rest, s);
                    jobs.push(Job::Forest {
                        parent: id,
                        u: d,
                        d: self.domains - 1,
                        prefix: true,
                        m: rest,
                        s,
                        v,
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
                    // A prefix entry is the open one of its layer or a prefix of the layer below.
                    if prefix && self.open_value(u, d, m, s) != v {
                        if d == 0 {
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
                    let mut below = Vec::new();
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
                        let a = self.relaxation.edge(u, d) + tree;
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
                        let x = self.open_value(u, d, rest, same);
                        if x.is_finite() && x.max(a) == v {
                            found = Some((w, Some((d, false, rest, same, x))));
                            break 'search;
                        }
                        // The layer's first tree: the forest below had one domain fewer,
                        // and the parent's own domain only if this layer is not it.
                        if d > 0 && j > 1 && (own || !own_layer) {
                            let before = own && !own_layer;
                            let s2 = self.state(k - 1, j - 1, before);
                            let x = self.prefix_value(u, d - 1, rest, s2);
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

    /// machines/chiplet-2s-4x8.toml: R_L 1.43, R_R 35, R_D 164.5, R_I 122 ns.
    const CHIPLET: Relaxation = Relaxation {
        local: 1.43,
        remote: 35.0,
        remote_domain: 164.5,
        invalid: 122.0,
    };

    #[test]
    fn a_flat_tree_over_two_domains_by_hand() {
        // 0(1,2,3): node 1 in the root's domain 0, nodes 2 and 3 in domain 1. Arrivals after
        // the root's S3 (R_I = 122): node 1 at 122 + R_R + R_L = 158.43, nodes 2 and 3 at
        // 122 + R_D + R_L = 287.93. The group: + R_I + (3 − 2)·R_R + (2 − 1)·R_D = 287.93 +
        // 122 + 35 + 164.5 = 609.43; the read from the root's domain R_R: 644.43; with the
        // root's R_L 645.86 ns.
        let tree = RootedTree::parse("0(1,2,3)").unwrap();
        let t = CHIPLET.evaluate(&tree, &[0, 0, 1, 1]).unwrap();
        assert!((t - 645.86).abs() < 1e-9, "{t}");
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
    fn the_work_and_the_tables_are_counted_by_hand() {
        // [8, 4]: pairs 45 · 15 = 675; 2 parents × 2 layers × (11 · 2 · 2 = 44 states) × 2.
        assert_eq!(work(&[8, 4]), 675 * 2 * 2 * 44 * 2);
        // 45 vectors, 2 parents × 2 layers × (open, prefix) rows of 44 states each.
        assert_eq!(entries(&[8, 4]), 45 * 8 * 44);
        // Per vector: 2 trees of 8 bytes, 2 · 2² rows' places (8) and lengths (4), 2 domain
        // flags and 16 bytes of lists.
        assert_eq!(fixed_bytes(&[8, 4]), 45 * (16 + 8 * 12 + 2 + 16));
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
    fn brute_force(r: &Relaxation, counts: &[u32], root: u32) -> f64 {
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
                    best = best.min(r.evaluate(&tree, &labels).unwrap());
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
        let o = optimum(&CHIPLET, &[1, 1], 0, u64::MAX, u64::MAX, 0.0, &|| true)
            .0
            .unwrap();
        assert!((o.t_min - 575.86).abs() < 1e-9, "{}", o.t_min);
        assert_eq!(o.tree.to_string(), "0(1)");
        assert_eq!(o.domains, vec![0, 1]);
        // [3] in one domain: the flat tree 1.43 + 122 + 36.43 + 122 + 35 + 35 = 351.86 beats
        // the chain 0(1(2)) (T(1) = 122 + 36.43 + 122 + 35 = 315.43, then 1.43 + 122 + 36.43
        // + 315.43 + 122 + 35 = 632.29).
        let o = optimum(&CHIPLET, &[3], 0, u64::MAX, u64::MAX, 0.0, &|| true)
            .0
            .unwrap();
        assert!((o.t_min - 351.86).abs() < 1e-9, "{}", o.t_min);
        assert_eq!(o.tree.to_string(), "0(1,2)");
    }

    #[test]
    fn the_optimum_equals_brute_force_and_its_tree_attains_it() {
        // Every split of up to 6 nodes over 2 domains and up to 5 over 3, every root domain
        // holding a node; the rebuilt tree has the counts and prices to the optimum.
        let mut splits: Vec<Vec<u32>> = Vec::new();
        for a in 0..=6u32 {
            for b in 0..=6 - a {
                splits.push(vec![a, b]);
                for c in 0..=5u32.saturating_sub(a + b) {
                    if a + b + c <= 5 {
                        splits.push(vec![a, b, c]);
                    }
                }
            }
        }
        let mut checked = 0;
        for counts in &splits {
            let n: u32 = counts.iter().sum();
            if n < 2 {
                continue;
            }
            for root in 0..counts.len() as u32 {
                if counts[root as usize] == 0 {
                    continue;
                }
                let want = brute_force(&CHIPLET, counts, root);
                // Without a ceiling, and with ceilings from guesses below, at and above the
                // optimum (pruned runs, raised until one finds a tree).
                let o = optimum(&CHIPLET, counts, root, u64::MAX, u64::MAX, 0.0, &|| true)
                    .0
                    .unwrap();
                for hint in [want * 0.5, want * 0.99, want, want * 1.5] {
                    let p = optimum(&CHIPLET, counts, root, u64::MAX, u64::MAX, hint, &|| true)
                        .0
                        .unwrap();
                    assert!(
                        (p.t_min - want).abs() < 1e-9,
                        "{counts:?} hint {hint}: {}",
                        p.t_min
                    );
                }
                assert!(
                    (o.t_min - want).abs() < 1e-9,
                    "{counts:?} root {root}: {} vs {want}",
                    o.t_min
                );
                let again = CHIPLET.evaluate(&o.tree, &o.domains).unwrap();
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
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn over_its_limits_it_declines() {
        let fits =
            |work: u64, memory: u64| optimum(&CHIPLET, &[8, 4], 0, work, memory, 0.0, &|| true);
        // The fixed tables are checked before, the rows as they are written.
        assert!(fits(u64::MAX, fixed_bytes(&[8, 4]) - 1).0.is_none());
        assert!(fits(u64::MAX, fixed_bytes(&[8, 4]) + 8).0.is_none());
        assert!(fits(u64::MAX, fixed_bytes(&[8, 4]) + 8 * entries(&[8, 4]))
            .0
            .is_some());
        // The work is counted as it runs: found within what it reports, not within one less.
        let (found, spent) = fits(u64::MAX, u64::MAX);
        assert!(found.is_some() && spent > 0);
        assert!(fits(spent, u64::MAX).0.is_some());
        let (none, stopped_at) = fits(spent - 1, u64::MAX);
        assert!(none.is_none() && stopped_at < spent);
        // Asked to stop, it stops.
        assert!(
            optimum(&CHIPLET, &[8, 4], 0, u64::MAX, u64::MAX, 0.0, &|| false)
                .0
                .is_none()
        );
        assert!(
            optimum(&CHIPLET, &[0, 4], 0, u64::MAX, u64::MAX, 0.0, &|| true)
                .0
                .is_none()
        );
        assert!(
            optimum(&CHIPLET, &[1], 0, u64::MAX, u64::MAX, 0.0, &|| true)
                .0
                .is_none()
        );
    }
}
