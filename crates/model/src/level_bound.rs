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
//! is the larger of the two.
//!
//! O(n²) work per height tried; nothing above [`MAX_NODES`] nodes. Measured (criterion group
//! `lower-bound` in `crates/graph/benches/priced_trees.rs`, docs/perf.md, 2026-11-29): 0.39–0.77 ms
//! at 128 nodes, 42–65 ms at 1,024; a one-off timing at 4,096 took 1.0–1.6 s, too much for every
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
        }
    }

    /// The least T_min (ns) over every rooted tree of `nodes` nodes whose nodes write at most
    /// `lines` many-to-one lines each; `None` for fewer than 2 nodes, above [`MAX_NODES`], or
    /// when the heights the stopping rule needs would take more than [`MAX_WORK`] cells.
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
            crossing: self.crossing.map(|c| Crossing { release: 0.0, ..c }),
            ..self.clone()
        };
        Some(bound(&path, n, s).map_or(height, |p| p.max(height)))
    }
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
    // Height 0: only the single node. `g` bounds the subtrees that hold a thread elsewhere
    // (another socket or domain) than their root: none of one node.
    let mut f = vec![f64::INFINITY; n + 1];
    f[1] = t.leaf;
    let mut g = vec![f64::INFINITY; n + 1];
    // Each level of the deepest path: an inner node with its child's edge and line and the
    // least post(K) of a node with children.
    let least_post = t.post.iter().skip(1).copied().fold(f64::INFINITY, f64::min);
    let least_post = if least_post.is_finite() {
        least_post.max(0.0)
    } else {
        0.0
    };
    let level = t.pre + t.edge + line_cost(1) + least_post + t.release;
    // With lines across: for K children on two lines or more, the least over the number j₀
    // on the node's own line of the dearer of that line and the busiest line across (module
    // docs); it depends on K alone, so it is computed once (O(n²)).
    let split: Vec<f64> = match t.other_socket {
        Some(across) if s > 1 => (0..n)
            .map(|k| {
                let siblings = k.saturating_sub(1) as f64 * t.leaf_per_sibling;
                (0..k)
                    .map(|own| {
                        let writers = (k - own).div_ceil(s - 1);
                        let far = across + siblings + (writers - 1) as f64 * t.across_per_child;
                        if own == 0 {
                            far
                        } else {
                            far.max(t.leaf + siblings + t.edge + line_cost(own))
                        }
                    })
                    .fold(f64::INFINITY, f64::min)
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut best = f64::INFINITY;
    let per_height = (n as u64).saturating_mul(n as u64);
    let mut work = 0u64;
    for h in 1..n {
        work = work.saturating_add(per_height);
        if work > MAX_WORK {
            return None;
        }
        let prev = f;
        let prev_g = g;
        f = vec![f64::INFINITY; n + 1];
        f[1] = t.leaf;
        g = vec![f64::INFINITY; n + 1];
        // A subtree holding a thread elsewhere than its root: a child is elsewhere (its edge
        // and line read across), or a child on the root's socket holds one (at least 2 nodes,
        // and `prev_g` is nondecreasing from 2).
        let crossing = t.crossing.map(|c| {
            (t.leaf + c.edge + t.first + c.read).min(prev_g[2.min(n)] + t.edge + t.first + t.read)
        });
        for size in 2..=n {
            let below = size - 1;
            let widest = below.div_ceil(s);
            let mut through_widest = f64::INFINITY;
            let mut through_all = f64::INFINITY;
            let mut node = f64::INFINITY;
            let mut node_across = f64::INFINITY;
            // The whole tree (size n, never a child's subtree) pays the root's own term.
            let root = size == n;
            for k in 1..=below {
                // The least over k' ≤ K of the line holding the most descendants: with the
                // children on any lines (at least ⌈M/S⌉ of them), or all on one line (all M).
                let child = prev[widest.div_ceil(k)];
                through_widest = through_widest.min(child + t.edge + line_cost(k));
                through_all = through_all.min(prev[below.div_ceil(k)] + t.edge + line_cost(k));
                // Every child waits for the node's flag when the program has one.
                let ready = t.leaf + (k - 1) as f64 * t.leaf_per_sibling;
                let busiest = ready + t.edge + line_cost(k.div_ceil(s));
                // The K children hold the M − 1 descendants: one holds ⌈(M − 1)/K⌉ or more.
                let biggest = prev[below.div_ceil(k)] + t.edge + line_cost(1);
                let any_lines = through_widest.max(busiest).max(biggest);
                // One line of K writers, or two lines or more, one of them across sockets.
                let one_line = through_all.max(ready + t.edge + line_cost(k));
                let both = match t.other_socket {
                    Some(across) if k > 1 => {
                        one_line.min(any_lines.max(split.get(k).copied().unwrap_or(across)))
                    }
                    Some(_) => one_line,
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
            f[size] = t.pre + node;
            g[size] = t.pre + node_across;
        }
        // Suffix minimum: a bound for M nodes holds for every larger subtree too.
        for size in (1..n).rev() {
            f[size] = f[size].min(f[size + 1]);
            g[size] = g[size].min(g[size + 1]);
        }
        // The release down the deepest path of H = h edges.
        let joins = (h + 1).div_ceil(t.per_core) - 1;
        let release = h as f64 * t.release + joins as f64 * t.release_across_cores;
        best = best.min(match t.crossing {
            // The root's tree holds a thread elsewhere; the barrier's release reaches it.
            Some(c) => g[n] + release.max(c.release) + t.offset,
            None => f[n] + release + t.offset,
        });
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
