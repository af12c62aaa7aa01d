//! A certified lower bound on T_min over **every** rooted tree of n nodes (on T_max when the
//! costs filled in are the worst case's), from the least cost of each step of a tree program
//! level by level: the relaxation behind the bounds a search reports
//! beside an answer it could not prove optimal (`docs/cla.md` §12, "Lower bounds"). Neutral: a
//! pricing that knows its program fills in a [`LevelBound`] (the graph crate for the `.cla`
//! programs, the optimizer for the socket-line form of Eq. 2), and this module knows no
//! program.
//!
//! ## The relaxation
//! A node p with K children has them write at most S many-to-one lines. A line of k writers
//! costs `first + (k − 1)·per_child + read` after its latest writer starts (at most k − ⌈k/t⌉
//! of the writes follow a writer on the same core, at `sibling`, t = `per_core`), and a child
//! starts writing `edge` after its own subtree is done. With f_h(M) a bound on subtrees of M
//! nodes and height at most h, nondecreasing in M (a suffix minimum keeps it so):
//! - some line holds at least ⌈(M − 1)/S⌉ descendants written by k ≤ K children, one of which
//!   holds ⌈⌈(M − 1)/S⌉ / k⌉ nodes or more;
//! - some line has at least ⌈K/S⌉ writers;
//! - some child holds at least ⌈(M − 1)/K⌉ nodes, and its line costs at least a line of one;
//! - with [`LevelBound::other_socket`]: either one line holds all M − 1 descendants, or the node
//!   has a line across sockets: of its K children j₀ write its own line and the other K − j₀
//!   the S − 1 lines across, one of which then has at least ⌈(K − j₀)/(S − 1)⌉ writers, a line
//!   across of j writers costing at least `other_socket` + (j − 1)·`across_per_child`
//!   (minimized over j₀);
//!
//! and p is done `pre` + the larger of these + `post(K)` after it starts, minimized over K (the
//! root adds `release_per_child` for each child beyond the first; with `leaf_per_sibling` no child
//! of p is ready before `leaf` + (K − 1)·`leaf_per_sibling`).
//! With [`LevelBound::crossing`] a second table g_h(M) bounds subtrees that hold a node
//! elsewhere than their root (a child elsewhere, or a child holding one). A tree of height H
//! costs f_H(n) (or g_H(n)) plus the release after the gather and `offset`; the bound is the
//! least over H, trying heights until H levels alone cost more than the bound so far.
//!
//! **The release, two ways.** A program with a release after the gather (the barrier: each
//! node's go write, then its children's reads) costs at least the gather plus the release down
//! the deepest path, H·`release` plus the root's `release_per_child` for each child beyond the
//! first (the height form above). It also costs at least, for each child c of a node p,
//! gather(c) + p's line + p's release + c's release below it, since p's gather waits for c's
//! and c is released after p: so the DP with each node's release, fan-out included, added to
//! its post(K) and no release after the gather is a bound too (the path form; it sees the
//! fan-out of every node on the way, where the height form sees the root's alone). The bound
//! is the larger of the two. In the path form a child across sockets also pays
//! [`LevelBound::release_across`] (its read of the go flag across) on its way in, and the
//! crossing child the crossing's release beyond `release`.
//!
//! ## Counting the threads
//! With [`LevelBound::capacity`] the relaxation knows how many threads each line's group (a
//! socket, or an L3 domain that keeps a line) holds at most, and the root's group; without it,
//! only how many lines there are. A node in a group of c threads can have at most c − 1
//! children on its own line and at most c_b on the line of each other group b; so
//! - its K children fit only if those add up to K; the busiest line then has at least the least
//!   B with min(c − 1, B) + Σ_b min(c_b, B) ≥ K writers (in place of ⌈K/S⌉);
//! - all K on its own line needs K ≤ c − 1; otherwise some child is across, and of its K
//!   children j₀ ≤ c − 1 write its own line and K − j₀ ≤ Σ_b c_b the lines across, the busiest
//!   of which has at least the least B with Σ_b min(c_b, B) ≥ K − j₀ writers;
//! - with a child across, the descendants split between the own line (d of them, some child
//!   holding ⌈d/j⌉ with j its writers) and the lines across (the rest, some line across
//!   holding ⌈rest/L⌉ of them with L the groups across, some child ⌈·/j⌉ of those with j ≤ c_b
//!   its writers): each side costs at least its biggest child's subtree and its line, so the
//!   node the dearer side, least over d (both sides grow with d, so the least is where they
//!   cross: a bisection).
//!
//! A child's subtree is bounded by the table of its own group: the node's for a child on its
//! own line, the least over the other groups' for a child across, so there is one table f
//! (and g) per group. Groups of the same capacity are alike, so there is one per distinct
//! capacity: one for an even split or a free split over like sockets, two for a split such as
//! 8 + 4. Without capacities every group is taken to hold every node, which gives the
//! relaxation above unchanged. What it does not count: how many threads of another group a
//! subtree already holds (each node may take its children across as if every thread elsewhere
//! were still free), and the lines a node reads one after the other (it takes the dearest).
//!
//! O(n²) work per height tried and per class of group; nothing above [`MAX_NODES`] nodes.
//! Measured (criterion group `lower-bound` in `crates/graph/benches/priced_trees.rs`,
//! docs/perf.md, 2026-11-29, counted on two classes): 1.6–4.0 ms at 128 nodes, 114–339 ms at
//! 1,024; a one-off timing at 4,096 before the counting took 1.0–1.6 s, too much for every
//! request of a sweep.

/// Largest tree the bound is computed for (module docs: the work is O(n²) per height).
pub const MAX_NODES: u32 = 1024;

/// The least costs of one tree program, level by level (module docs): what a pricing that
/// knows its program fills in.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelBound {
    /// Paid by every inner node before its children can start (the broadcast's S3).
    pub pre: f64,
    /// From a child's subtree done to its write on its parent's line.
    pub edge: f64,
    /// A leaf's own contribution (f(1)).
    pub leaf: f64,
    /// When every child of a node with K children waits for a flag whose write pays each of
    /// them (the reduction's ready flag under T_max): a child starts its edge no earlier than
    /// `leaf` + (K − 1)·`leaf_per_sibling`, whatever its subtree.
    pub leaf_per_sibling: f64,
    /// The first write of a many-to-one line (a fresh line from memory).
    pub first: f64,
    /// Each further write of a many-to-one line, after a writer on another core.
    pub per_child: f64,
    /// The parent's read of a line, and every other read between two threads.
    pub read: f64,
    /// Threads that can share a core (1 when each has its own): of k writers on one line at
    /// most k − ⌈k/t⌉ follow a writer on their own core, and those pay at least R_L.
    pub per_core: usize,
    /// A write after a writer on the same core (R_L).
    pub sibling: f64,
    /// post(K) for K = 0..=n−1 (index 0 unused).
    pub post: Vec<f64>,
    /// Paid per level of height after the gather (the barrier's release).
    pub release: f64,
    /// Added to the release for each edge of the root-to-leaf path that joins two cores, when
    /// threads share cores (R_R − R_L: the per-level read is priced at R_L, and a path of H
    /// edges through cores of t threads joins cores at least ⌈(H + 1)/t⌉ − 1 times).
    pub release_across_cores: f64,
    /// What the release costs a node for each of its children beyond the first (the barrier's
    /// go write under T_max, which invalidates every child polling it: §6's n-readers rule,
    /// one class per poller): paid by the root in the height form, by every node of the path
    /// in the path form (module docs). Zero where the cost does not grow with the fan-out.
    pub release_per_child: f64,
    /// Paid once (the broadcast root's read of its own buffer).
    pub offset: f64,
    /// What an edge across sockets (or L3 domains) costs at least, when the placement has one.
    pub crossing: Option<Crossing>,
    /// When children may sit on another socket than their parent: the least cost of a line
    /// written by such children (one leaf's way in across, the first write, the parent's read
    /// across). A node whose children use two lines or more has one.
    pub other_socket: Option<f64>,
    /// Each further writer of a line across sockets, beyond the one `other_socket` counts: a
    /// write after a writer of the same (other) socket under T_min, a write stolen from the
    /// parent and read back across under T_max.
    pub across_per_child: f64,
    /// What a child across sockets (or L3 domains) pays beyond `release` for its read of its
    /// parent's go flag across, on a line across (`other_socket`): the path form adds it to
    /// every such child's way in (module docs, "The release, two ways"), as it adds the
    /// crossing's `release` beyond `release` to the crossing child's.
    pub release_across: f64,
    /// How many threads each line's group can hold (module docs, "Counting the threads"):
    /// `None` when only the number of lines is known.
    pub capacity: Option<LineCapacity>,
}

/// The threads each many-to-one line's group (a socket, or an L3 domain where each keeps a
/// line) holds at most, for a placement that fixes them (its counts) or a free split (each
/// group's room), and the root's group when the placement fixes it (module docs, "Counting the
/// threads").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineCapacity {
    /// At most this many threads in each group, one entry per group.
    pub threads: Vec<u32>,
    /// The group of the tree's root; `None`: any group that can hold a thread.
    pub root: Option<usize>,
}

/// The least costs of the edge a placement over two sockets (or two L3 domains of one socket)
/// forces into every tree: the path from the root to a thread elsewhere has an edge whose child
/// is elsewhere than its parent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    /// Child done → its write, with the child's read of its parent's flag across.
    pub edge: f64,
    /// The parent's read of the line that child writes (R_Q across sockets, where the line's
    /// writers are all on the child's socket; r across domains, where they need not be).
    pub read: f64,
    /// After the gather (the barrier's release reaching that child: its read across).
    pub release: f64,
}

/// Cells of the height DP (n² per height) computed before giving up: a bound over fewer
/// heights than the stopping rule needs would not be a bound, so none is returned then.
pub const MAX_WORK: u64 = 200_000_000;

impl LevelBound {
    /// Many-to-one lines alone, every thread on a core of its own: a line of k writers costs
    /// `first + (k − 1)·per_child + read` after its latest writer starts, and no other step
    /// costs anything. A program sets its other steps with struct update syntax.
    pub fn lines(first: f64, per_child: f64, read: f64, nodes: u32) -> Self {
        LevelBound {
            pre: 0.0,
            edge: 0.0,
            leaf: 0.0,
            leaf_per_sibling: 0.0,
            first,
            per_child,
            read,
            per_core: 1,
            sibling: per_child,
            post: vec![0.0; nodes.min(MAX_NODES) as usize],
            release: 0.0,
            release_across_cores: 0.0,
            release_per_child: 0.0,
            offset: 0.0,
            crossing: None,
            other_socket: None,
            across_per_child: per_child,
            release_across: 0.0,
            capacity: None,
        }
    }

    /// The least T_min (ns) over every rooted tree of `nodes` nodes whose nodes write at most
    /// `lines` many-to-one lines each (with [`LevelBound::capacity`] and lines across, the
    /// groups' counts say which lines a node may use: module docs, "Counting the threads");
    /// `None` for fewer than 2 nodes, above [`MAX_NODES`], or when the heights the stopping
    /// rule needs would take more than [`MAX_WORK`] cells.
    pub fn lower_bound(&self, nodes: u32, lines: u32) -> Option<f64> {
        if !(2..=MAX_NODES).contains(&nodes) {
            return None;
        }
        if self.post.len() < nodes as usize {
            return None;
        }
        let (n, s) = (nodes as usize, lines.max(1) as usize);
        let height = bound(self, n, s)?;
        if self.release == 0.0 && self.release_per_child == 0.0 {
            return Some(height);
        }
        // The path form: each node's release, with its fan-out, added after its gather.
        let path = LevelBound {
            post: self
                .post
                .iter()
                .enumerate()
                .map(|(k, &p)| match k {
                    0 => p,
                    _ => p + self.release + (k - 1) as f64 * self.release_per_child,
                })
                .collect(),
            release: 0.0,
            release_across_cores: 0.0,
            release_per_child: 0.0,
            // A child across reads its parent's go flag across: on the path through it that
            // read costs more than the `release` its parent's post(K) counts.
            crossing: self.crossing.map(|c| Crossing {
                edge: c.edge + (c.release - self.release).max(0.0),
                release: 0.0,
                ..c
            }),
            other_socket: self.other_socket.map(|x| x + self.release_across),
            release_across: 0.0,
            ..self.clone()
        };
        Some(bound(&path, n, s).map_or(height, |p| p.max(height)))
    }
}

/// What a node in one group may do with its children's lines (module docs, "Counting the
/// threads"): groups that hold the same number of threads at most are alike, so there is one
/// class per such number (one class in all when only the number of lines is known).
struct Class {
    /// Children at most on the node's own line: the other threads of its group.
    own: usize,
    /// Lines the node may keep: its own (when its group has another thread) and one per other
    /// group with a thread.
    lines: usize,
    /// For K children, the fewest writers the busiest of those lines can have (`usize::MAX`:
    /// they cannot hold K).
    busiest: Vec<usize>,
    /// For K children with one on a line across at least: the least over the children j₀ on
    /// the node's own line of the dearer of that line and the busiest line across (module
    /// docs; infinite where no such split fits the groups).
    split: Vec<f64>,
    /// Whether the tree's root may be in a group of this class.
    root: bool,
    /// The classes of the other groups with a thread: those of the node's children across.
    across: Vec<usize>,
    /// Lines across the node may keep, and the most writers one of them can have.
    lines_across: usize,
    most_across: usize,
}

/// For x = 0..n: the least B with Σ min(cap, B) ≥ x over `caps` (`usize::MAX` where even the
/// whole capacities fall short), the fewest writers the busiest of lines of those capacities
/// can have when they hold x children.
fn least_busiest(caps: &[usize], n: usize) -> Vec<usize> {
    let mut out = vec![usize::MAX; n];
    let mut b = 0usize;
    let mut held = 0usize;
    for (x, slot) in out.iter_mut().enumerate() {
        while held < x && b < n {
            b += 1;
            held = caps.iter().map(|&c| c.min(b)).sum();
        }
        if held >= x {
            *slot = b;
        }
    }
    out
}

/// The least over x ∈ [lo, hi] of max(rising(x), falling(x)), `rising` nondecreasing and
/// `falling` nonincreasing in x: the smallest x where rising catches up with falling, or the one
/// before it, found by bisection in O(log(hi − lo)) calls. `lo > hi` gives infinity.
pub fn least_dearer(
    lo: usize,
    hi: usize,
    rising: impl Fn(usize) -> f64,
    falling: impl Fn(usize) -> f64,
) -> f64 {
    if lo > hi {
        return f64::INFINITY;
    }
    let dearer = |x: usize| rising(x).max(falling(x));
    let (start, mut lo, mut hi) = (lo, lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if rising(mid) >= falling(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if lo > start {
        dearer(lo).min(dearer(lo - 1))
    } else {
        dearer(lo)
    }
}

/// The least over j ∈ [1, min(most, d)] writers of `table[⌈d/j⌉] + cost(j)`: some writer
/// holds ⌈d/j⌉ of the d descendants. `table` and `cost` are nondecreasing, so within a run of j
/// with the same ⌈d/j⌉ the first is the least, and there are O(√d) runs (the next run starts
/// at ⌈d/(q − 1)⌉ after one of q). Infinite for d = 0.
fn least_over_writers(d: usize, most: usize, table: &[f64], cost: impl Fn(usize) -> f64) -> f64 {
    let mut best = f64::INFINITY;
    let mut j = 1;
    while j <= most.min(d) {
        let q = d.div_ceil(j);
        best = best.min(table[q] + cost(j));
        if q == 1 {
            break;
        }
        j = d.div_ceil(q - 1);
    }
    best
}

/// For each subtree size M = 0..=n: the least over d ∈ [0, M − 2] of the dearer of `first(d)`
/// and `second(M − 1 − d)`, M − 1 descendants split between two sides of which the second
/// holds one at least (infinite below 2 nodes). Both sides are nondecreasing in what they
/// hold, so the least is where they cross ([`least_dearer`]): O(n log n).
fn least_dearer_split(first: &[f64], second: &[f64], n: usize) -> Vec<f64> {
    (0..=n)
        .map(|size| match size.saturating_sub(1) {
            0 => f64::INFINITY,
            below => least_dearer(0, below - 1, |d| first[d], |d| second[below - d]),
        })
        .collect()
}

fn classes(t: &LevelBound, n: usize, s: usize, line_cost: &dyn Fn(usize) -> f64) -> Vec<Class> {
    // (the threads of the node's group at most, those of each other group, may hold the root)
    let groups: Vec<(usize, Vec<usize>, bool)> = match (&t.capacity, t.other_socket) {
        (Some(capacity), Some(_)) => {
            let caps: Vec<usize> = capacity
                .threads
                .iter()
                .map(|&c| (c as usize).min(n))
                .collect();
            let mut values: Vec<usize> = caps.iter().copied().filter(|&c| c > 0).collect();
            values.sort_unstable();
            values.dedup();
            values
                .into_iter()
                .map(|cap| {
                    let mut others = caps.clone();
                    if let Some(i) = others.iter().position(|&c| c == cap) {
                        others.swap_remove(i);
                    }
                    others.retain(|&c| c > 0);
                    let root = match capacity.root {
                        Some(r) => caps.get(r) == Some(&cap),
                        None => true,
                    };
                    (cap, others, root)
                })
                .collect()
        }
        // Only the number of lines: each may hold every child.
        _ => vec![(n, vec![n; s.saturating_sub(1)], true)],
    };
    let mut classes = groups
        .into_iter()
        .map(|(cap, others, root)| {
            let own = cap - 1;
            let lines = usize::from(own > 0) + others.len();
            let mut all = others.clone();
            all.push(own);
            let busiest = least_busiest(&all, n);
            let split = match t.other_socket {
                Some(across) if !others.is_empty() => {
                    let across_total: usize = others.iter().sum();
                    let busiest_across = least_busiest(&others, n);
                    (0..n)
                        .map(|k| {
                            let siblings = k.saturating_sub(1) as f64 * t.leaf_per_sibling;
                            (k.saturating_sub(across_total)..k.min(own + 1))
                                .filter_map(|j| {
                                    let writers = *busiest_across.get(k - j)?;
                                    if writers == usize::MAX {
                                        return None;
                                    }
                                    let far = across
                                        + siblings
                                        + (writers - 1) as f64 * t.across_per_child;
                                    Some(if j == 0 {
                                        far
                                    } else {
                                        far.max(t.leaf + siblings + t.edge + line_cost(j))
                                    })
                                })
                                .fold(f64::INFINITY, f64::min)
                        })
                        .collect()
                }
                _ => vec![f64::INFINITY; n],
            };
            Class {
                own,
                lines: lines.max(1),
                busiest,
                split,
                root,
                lines_across: others.len(),
                most_across: others.iter().copied().max().unwrap_or(0),
                across: others,
            }
        })
        .collect::<Vec<_>>();
    // The other groups by their class: the class of a group is the one of its capacity.
    let caps: Vec<usize> = classes.iter().map(|c| c.own + 1).collect();
    for class in &mut classes {
        let mut across: Vec<usize> = class
            .across
            .iter()
            .filter_map(|cap| caps.iter().position(|c| c == cap))
            .collect();
        across.sort_unstable();
        across.dedup();
        class.across = across;
    }
    classes
}

fn bound(t: &LevelBound, n: usize, s: usize) -> Option<f64> {
    // a(k) plus the parent's read of the line: of the k − 1 writes after the first, at most
    // k − ⌈k/t⌉ follow a writer on the same core (the k writers use at least ⌈k/t⌉ cores, and
    // the visiting order moves between them at least ⌈k/t⌉ − 1 times).
    let line_cost = |k: usize| {
        let same_core = (k - k.div_ceil(t.per_core)).min(k - 1);
        let other_core = k - 1 - same_core;
        t.first + other_core as f64 * t.per_child + same_core as f64 * t.sibling + t.read
    };
    let classes = classes(t, n, s, &line_cost);
    // Height 0: only the single node. `g` bounds the subtrees that hold a thread elsewhere
    // (another socket or domain) than their root: none of one node. One table of each per
    // class of the subtree's root.
    let mut leaf_only = vec![f64::INFINITY; n + 1];
    leaf_only[1] = t.leaf;
    let mut f = vec![leaf_only; classes.len()];
    let mut g = vec![vec![f64::INFINITY; n + 1]; classes.len()];
    // Each level of the deepest path: an inner node with its child's edge and line and the
    // least post(K) of a node with children.
    let least_post = t.post.iter().skip(1).copied().fold(f64::INFINITY, f64::min);
    let least_post = if least_post.is_finite() {
        least_post.max(0.0)
    } else {
        0.0
    };
    let level = t.pre + t.edge + line_cost(1) + least_post + t.release;
    let least_over_classes = |tables: &[Vec<f64>]| -> Vec<f64> {
        (0..=n)
            .map(|m| tables.iter().map(|x| x[m]).fold(f64::INFINITY, f64::min))
            .collect()
    };
    let mut best = f64::INFINITY;
    let per_height = (n as u64)
        .saturating_mul(n as u64)
        .saturating_mul(classes.len() as u64);
    let mut work = 0u64;
    for h in 1..n {
        work = work.saturating_add(per_height);
        if work > MAX_WORK {
            return None;
        }
        // A child on the node's own line is rooted in the node's group, one across in another
        // group: the table of its class, or the least over the classes it may be in.
        let prev_tables = f.clone();
        let prev_g = least_over_classes(&g);
        // A subtree holding a thread elsewhere than its root: a child is elsewhere (its edge
        // and line read across), or a child on the root's socket holds one (at least 2 nodes,
        // and `prev_g` is nondecreasing from 2).
        let crossing = t.crossing.map(|c| {
            (t.leaf + c.edge + t.first + c.read).min(prev_g[2.min(n)] + t.edge + t.first + t.read)
        });
        for (index, (class, (f, g))) in classes
            .iter()
            .zip(f.iter_mut().zip(g.iter_mut()))
            .enumerate()
        {
            let own_line = &prev_tables[index];
            let across: Vec<Vec<f64>> = class
                .across
                .iter()
                .filter_map(|&c| prev_tables.get(c).cloned())
                .collect();
            let across_line = least_over_classes(&across);
            let prev: Vec<f64> = own_line
                .iter()
                .zip(&across_line)
                .map(|(a, b)| a.min(*b))
                .collect();
            // The descendants split between the node's own line (d of them, written by at
            // most `own` children) and the lines across (the rest, one child across at least,
            // some line across holding ⌈rest / lines across⌉): each side costs at least its
            // busiest child's subtree and its line, the node the dearer side (module docs).
            let side_split: Vec<f64> = match t.other_socket {
                Some(across) if class.lines_across > 0 => {
                    let own_side: Vec<f64> = (0..n)
                        .map(|d| match d {
                            0 => 0.0,
                            _ => least_over_writers(d, class.own, own_line, |j| {
                                t.edge + line_cost(j)
                            }),
                        })
                        .collect();
                    let tail = across - t.leaf;
                    let across_side: Vec<f64> = (0..n)
                        .map(|rest| {
                            let line = rest.div_ceil(class.lines_across);
                            least_over_writers(line, class.most_across, &across_line, |j| {
                                tail + (j - 1) as f64 * t.across_per_child
                            })
                        })
                        .collect();
                    least_dearer_split(&own_side, &across_side, n)
                }
                _ => vec![f64::NEG_INFINITY; n + 1],
            };
            f.fill(f64::INFINITY);
            f[1] = t.leaf;
            g.fill(f64::INFINITY);
            for size in 2..=n {
                let below = size - 1;
                let widest = below.div_ceil(class.lines);
                let mut through_widest = f64::INFINITY;
                let mut through_all = f64::INFINITY;
                let mut node = f64::INFINITY;
                let mut node_across = f64::INFINITY;
                // The whole tree (size n, never a child's subtree) pays the root's own term.
                let root = size == n;
                for k in 1..=below {
                    // The least over k' ≤ K of the line holding the most descendants: with the
                    // children on any lines (at least ⌈M/S⌉ of them), or all on one line (all
                    // M).
                    let child = prev[widest.div_ceil(k)];
                    through_widest = through_widest.min(child + t.edge + line_cost(k));
                    through_all =
                        through_all.min(own_line[below.div_ceil(k)] + t.edge + line_cost(k));
                    // The fewest writers of the busiest line; none when the lines cannot
                    // hold K children.
                    let writers = class.busiest[k];
                    if writers == usize::MAX {
                        continue;
                    }
                    // Every child waits for the node's flag when the program has one.
                    let ready = t.leaf + (k - 1) as f64 * t.leaf_per_sibling;
                    let busiest = ready + t.edge + line_cost(writers);
                    // The K children hold the M − 1 descendants: one holds ⌈(M − 1)/K⌉ or more.
                    let biggest = prev[below.div_ceil(k)] + t.edge + line_cost(1);
                    let any_lines = through_widest.max(busiest).max(biggest);
                    // One line of K writers (the node's own, when its group holds them), or
                    // two lines or more, one of them across sockets.
                    let both = match t.other_socket {
                        Some(_) => {
                            let one_line = if k <= class.own {
                                through_all.max(ready + t.edge + line_cost(k))
                            } else {
                                f64::INFINITY
                            };
                            one_line.min(any_lines.max(class.split[k]).max(side_split[size]))
                        }
                        None => any_lines,
                    };
                    let own = t.post[k]
                        + if root {
                            (k - 1) as f64 * t.release_per_child
                        } else {
                            0.0
                        };
                    node = node.min(both + own);
                    if let Some(across) = crossing {
                        node_across = node_across.min(both.max(across) + own);
                    }
                }
                // A subtree lies in its root's group, or holds a thread elsewhere.
                f[size] = t.pre + node;
                g[size] = t.pre + node_across;
            }
            // Suffix minimum: a bound for M nodes holds for every larger subtree too.
            for size in (1..n).rev() {
                f[size] = f[size].min(f[size + 1]);
                g[size] = g[size].min(g[size + 1]);
            }
        }
        // The release down the deepest path of H = h edges.
        let joins = (h + 1).div_ceil(t.per_core) - 1;
        let release = h as f64 * t.release + joins as f64 * t.release_across_cores;
        for (class, (f, g)) in classes.iter().zip(f.iter().zip(&g)) {
            if !class.root {
                continue;
            }
            best = best.min(match t.crossing {
                // The root's tree holds a thread elsewhere; the barrier's release reaches it.
                Some(c) => g[n] + release.max(c.release) + t.offset,
                None => f[n] + release + t.offset,
            });
        }
        if (h + 1) as f64 * level + t.offset >= best {
            break;
        }
    }
    // Every height 1..n − 1 was tried, or the rest cost more than `best`.
    best.is_finite().then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The E5-2660's classes on one socket (R_R = 35, R_I = 70), each thread on its own core,
    /// no per-node or per-edge cost, for `n` threads.
    fn one_socket(n: u32) -> LevelBound {
        LevelBound::lines(70.0, 35.0, 35.0, n)
    }

    #[test]
    fn a_flat_barrier_on_one_socket_attains_the_bound() {
        // Barrier on 4 threads, one line (S = 1), R_I = 70, R_R = 35: height 1 costs the
        // line of 3 writers, m + 2·r, plus the root's read r, then the release m + r:
        // 70 + 70 + 35 + 70 + 35 = 280 = 2·R_I + (k + 1)·R_R, the flat tree's cost (docs/cla.md
        // §12). Height 2 would cost at least 2·(70 + 35 + 70 + 35) = 420 > 280.
        let t = LevelBound {
            release: 105.0,
            ..one_socket(4)
        };
        assert_eq!(
            bound(&t, 4, 1).map(|b| (b * 1e6).round() / 1e6),
            Some(280.0)
        );
    }

    #[test]
    fn children_over_two_lines_pay_the_busier_line_and_hold_every_descendant() {
        // 7 nodes, two lines (S = 2), a line of k writers 2k (first 1, further writers 2 each,
        // read 1), a line across of j writers 4 + 6·(j − 1), a release of 100 a level, so that
        // only height 1 is worth a look (two levels cost at least 2·(2 + 100) = 204). The
        // root's 6 leaves on one line cost 12; on two lines, j₀ on its own and 6 − j₀ across
        // cost max(2·j₀, 4 + 6·(5 − j₀)): j₀ = 3: 16, j₀ = 4: 10, j₀ = 5: 10. Bound:
        // 10 + 100 = 110. (Pricing the lines as if each had ⌈6/2⌉ = 3 writers at 2k, or
        // letting 3 children hold the 6 leaves, would give 6 + 100 = 106; further writers
        // across at 2 each, 8 + 100 = 108.)
        let t = LevelBound {
            release: 100.0,
            other_socket: Some(4.0),
            across_per_child: 6.0,
            ..LevelBound::lines(1.0, 2.0, 1.0, 7)
        };
        assert_eq!(
            bound(&t, 7, 2).map(|b| (b * 1e6).round() / 1e6),
            Some(110.0)
        );
        // The root's own term: under T_max the go write invalidates each of its K pollers,
        // r = 3 a poller beyond the first. One line of 6 leaves (S = 1): 12 + 5·3 + 100 = 127;
        // 5 leaves and a child with one leaf below it would cost two levels (204 or more).
        let root = LevelBound {
            release: 100.0,
            release_per_child: 3.0,
            ..LevelBound::lines(1.0, 2.0, 1.0, 7)
        };
        assert_eq!(
            bound(&root, 7, 1).map(|b| (b * 1e6).round() / 1e6),
            Some(127.0)
        );
    }

    #[test]
    fn counted_groups_keep_children_off_a_group_that_cannot_hold_them() {
        // 5 nodes, a line of k writers 2k (first 1, further 2, read 1), a line across of j
        // writers 2 + 2·(j − 1), a release of 100 a level (two levels cost 2·(2 + 100) = 204
        // or more, so only the root over four leaves counts). Lines alone (S = 2): two leaves
        // on the root's own line and two across cost max(4, 2 + 2) = 4: bound 104.
        let t = LevelBound {
            release: 100.0,
            other_socket: Some(2.0),
            across_per_child: 2.0,
            ..LevelBound::lines(1.0, 2.0, 1.0, 5)
        };
        let rounded = |t: &LevelBound| bound(t, 5, 2).map(|b| (b * 1e6).round() / 1e6);
        assert_eq!(rounded(&t), Some(104.0));
        // Counted, four threads on the root's socket and one on the other: at most one child
        // across and three on the own line, max(2·3, 2) = 6: bound 106.
        let counted = LevelBound {
            capacity: Some(LineCapacity {
                threads: vec![4, 1],
                root: Some(0),
            }),
            ..t
        };
        assert_eq!(rounded(&counted), Some(106.0));
    }

    #[test]
    fn a_child_across_is_released_across_in_the_path_form() {
        // 2 nodes, one on each socket (capacity 1 + 1): the root's only child is across. Its
        // line costs 4 (`other_socket`), the release 10 a level, and a child across reads the
        // go flag 5 dearer (`release_across`). Height form: 4 + 10 = 14; the path form adds
        // the child's dearer read to its way in: 4 + 5 + 10 = 19, the cost of that tree.
        // Counting nothing, the child could be on the root's own line: 2 + 10 = 12.
        let t = LevelBound {
            release: 10.0,
            other_socket: Some(4.0),
            release_across: 5.0,
            ..LevelBound::lines(1.0, 2.0, 1.0, 2)
        };
        let rounded = |b: Option<f64>| b.map(|b| (b * 1e6).round() / 1e6);
        assert_eq!(rounded(t.lower_bound(2, 2)), Some(12.0));
        let counted = LevelBound {
            capacity: Some(LineCapacity {
                threads: vec![1, 1],
                root: Some(0),
            }),
            ..t
        };
        assert_eq!(rounded(bound(&counted, 2, 2)), Some(14.0));
        assert_eq!(rounded(counted.lower_bound(2, 2)), Some(19.0));
    }

    #[test]
    fn the_least_over_writers_visits_one_j_per_run_and_equals_every_j() {
        // Against trying every j, on a table and costs with ties and steps.
        let table: Vec<f64> = (0..40).map(|q| (q * q / 7) as f64).collect();
        for d in 1..40usize {
            for most in 1..45usize {
                let cost = |j: usize| 3.0 * (j / 2) as f64;
                let every = (1..=most.min(d))
                    .map(|j| table[d.div_ceil(j)] + cost(j))
                    .fold(f64::INFINITY, f64::min);
                assert_eq!(
                    least_over_writers(d, most, &table, cost),
                    every,
                    "d {d} most {most}"
                );
            }
        }
        assert_eq!(least_over_writers(0, 5, &table, |_| 0.0), f64::INFINITY);
    }

    #[test]
    fn the_least_dearer_is_where_the_rising_side_catches_up() {
        // x against 10 − x on [0, 10]: they meet at 5. 0 against 10 − x on [0, 3]: the falling
        // side is the dearer throughout, least at 3: 7. An empty range: infinity.
        assert_eq!(least_dearer(0, 10, |x| x as f64, |x| 10.0 - x as f64), 5.0);
        assert_eq!(least_dearer(0, 3, |_| 0.0, |x| 10.0 - x as f64), 7.0);
        // Between two integers the better neighbour: 2x against 9 − x meet at 3 (6 against 6).
        assert_eq!(
            least_dearer(1, 8, |x| 2.0 * x as f64, |x| 9.0 - x as f64),
            6.0
        );
        assert_eq!(least_dearer(4, 3, |_| 0.0, |_| 0.0), f64::INFINITY);
    }

    #[test]
    fn the_busiest_line_fills_every_group_up_to_one_count() {
        // Lines of capacities 1 and 3: 4 children need 3 on the busier one; 2 children 1 each;
        // 5 do not fit.
        assert_eq!(least_busiest(&[1, 3], 5), vec![0, 1, 1, 2, 3]);
        assert_eq!(least_busiest(&[1, 3], 6)[5], usize::MAX);
    }

    #[test]
    fn the_broadcast_bound_is_eq_2_with_one_class() {
        // Eq. (2) on one socket, R_L = 2.3, R_R = 35, R_I = 70: T_lev(k) = (R_I + R_R) + R_L +
        // (R_I + k·R_R) and the broadcast R_L + T_bc. On 3 threads the flat tree 0(1,2):
        // 2.3 + 105 + 2.3 + 70 + 70 = 249.6; the chain 0(1(2)) pays two levels of k = 1,
        // 2.3 + 2·(105 + 2.3 + 105) = 426.9. The bound is the flat tree's.
        let t = LevelBound {
            pre: 70.0,
            edge: 35.0 + 2.3,
            offset: 2.3,
            ..one_socket(3)
        };
        assert_eq!(
            bound(&t, 3, 1).map(|b| (b * 1e6).round() / 1e6),
            Some(249.6)
        );
    }
}
