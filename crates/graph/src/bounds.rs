//! Certified lower bounds on T_min of the bundled tree programs, over **every** rooted tree and
//! placement of a request: what lets a graph-priced answer that the search could not prove
//! optimal still say how far from optimal it can be (`docs/cla.md` §12, "Lower bounds").
//!
//! ## The argument
//! T_min is the longest path of the CLa graph (§5): every operation finishes no earlier than
//! its E1/E2 predecessors plus its own cost, and a many-to-one (E3) group of k writes reaches
//! its wait no earlier than the latest write's start plus the cost of all k writes. The costs
//! of the rules (§4) are bounded below by three constants of the request:
//! - `r`, the least transfer between two different threads of the placement (R_R, R_D or R_Q
//!   when every thread has a core of its own; R_L too when two share a core);
//! - `m`, the least fetch of a line from memory (R_I or R_QI), which every first access of a
//!   fresh `memory` line pays (rule 1: the ack, flag, ready and slot lines);
//! - R_L, an access to a line the thread holds (rule 2).
//!
//! Take a node p with K children split over the many-to-one lines of p (one per socket, so at
//! most S lines with S the sockets the request may use). A line written by k children costs
//! `a(k) = m + (k − 1)·r` for its writes plus r for p's read; each child arrives no earlier than
//! `edge` after its own subtree is done. With f_h(M) a lower bound on the subtree of M nodes and
//! height at most h, nondecreasing in M:
//! - some line holds at least ⌈(M_p − 1)/S⌉ of p's descendants, written by k ≤ K children, one
//!   of which holds ⌈⌈(M_p − 1)/S⌉ / k⌉ nodes or more: that line costs at least
//!   f_{h−1}(⌈⌈(M_p − 1)/S⌉ / k⌉) + edge + a(k) + r, minimized over k ≤ K;
//! - some line is written by at least ⌈K/S⌉ children: at least f(1) + edge + a(⌈K/S⌉) + r;
//!
//! so p is done no earlier than `pre` + the larger of the two + `post(K)`, minimized over K.
//! Taking the suffix minimum over M keeps each f_h nondecreasing, so the induction holds. A tree
//! of height H then costs at least f_H(n) plus what follows the gather on a path of H levels
//! (the barrier's release: m + r per level), and the bound is the least over H. Heights are
//! tried in increasing order until H levels alone (each at least `pre + edge + a(1) + r` and
//! the release) cost more than the bound so far.
//!
//! | program | pre (per inner node) | edge (child done → its write) | f(1) | post(K) | after the gather |
//! |---|---|---|---|---|---|
//! | `barrier.cla` | 0 | 0 | 0 | 0 | H·(m + r): the go write, then each level's read and write |
//! | `small-reduce.cla` | 0 | r + R_L + m (read the parent's ready flag, copy into a fresh slot) | m (the parent's ready flag is written first) | the slot copy: r + R_L for one line; Eq. (1) at its cheapest class (intra or inter, never from memory) for K ≥ 2 | 0 |
//! | `one-line-bcast.cla` | m (S3 into the fresh payload line) | r + R_L (S1 read, S2 into the own buffer) | 0 | 0 | R_L (the root's S3 reads its buffer) |
//!
//! **Lines across sockets.** Lines are per socket, so a node whose children write two lines or
//! more has children on another socket: that line is read across (R_Q), and its writers read
//! their parent's flag across. A node is bounded by the better of one line of K writers
//! holding all M − 1 descendants, and the pigeonhole bounds over S lines with such a line.
//!
//! **Crossing.** When every placement spans two sockets (or two L3 domains of one socket), the
//! path from the root to a thread elsewhere has an edge whose child is elsewhere than its
//! parent. That child's read of its parent's flag costs at least R_Q (or R_D), and across
//! sockets so does the parent's read of the line the child writes (its writers all share the
//! child's socket). A second table g_h(M) bounds the subtrees that hold a thread elsewhere than
//! their root: a child is elsewhere, or a child on the root's socket holds such a thread
//! (g_{h−1}(2) or more); for the barrier, the release that reaches that thread adds at least
//! m + R_Q (or m + R_D) after the gather.
//!
//! **Shared cores.** When two threads may share a core every read is priced at R_L, but of a
//! line's k writes at most k − ⌈k/t⌉ follow a writer on the same core (t threads a core), and
//! the barrier's release path of H edges joins two cores at least ⌈(H + 1)/t⌉ − 1 times, each
//! read then at R_R or more.
//!
//! On one socket of a machine with one L3 domain per socket the barrier bound is attained by
//! the flat tree (2·R_I + (k + 1)·R_R), and the broadcast's is Eq. (2) with every class at R_R.
//! The tests compare every bound with the exhaustive optimum on small requests.
//!
//! The work is O(n²) per height tried; above [`MAX_BOUND_THREADS`] threads no bound is given.

use modelopt_model::ccnuma::Ccnuma;

/// Largest thread count for which a bound is computed. The DP is O(n²) per height tried and
/// runs whenever a space is built: measured on the development machine (release; criterion
/// bench `priced_trees`, group `lower-bound`), 0.40–0.54 ms at 128 threads and 37–54 ms at
/// 1,024, but 1.0–1.6 s at 4,096 (one-off timing), too much to add to every request of a sweep.
pub const MAX_BOUND_THREADS: u32 = 1024;

/// Which bundled program a bound is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeProgram {
    /// `models/barrier.cla`.
    Barrier,
    /// `models/small-reduce.cla`.
    Reduce,
    /// `models/one-line-bcast.cla`.
    Bcast,
}

/// The constants of one program's bound (module docs, the table).
#[derive(Debug, Clone)]
struct Terms {
    pre: f64,
    edge: f64,
    leaf: f64,
    first: f64,
    /// Each further write of a many-to-one line, after a writer on another core.
    per_child: f64,
    /// The parent's read of a line, and every other read between two threads.
    read: f64,
    /// Threads that can share a core (1 when each has its own): of k writers on one line at
    /// most k − ⌈k/t⌉ follow a writer on their own core, and those pay at least R_L.
    per_core: usize,
    /// A write after a writer on the same core (R_L).
    sibling: f64,
    /// post(K) for K = 0..=n−1 (index 0 unused).
    post: Vec<f64>,
    /// Paid per level of height after the gather (the barrier's release).
    release: f64,
    /// Added to the release for each edge of the root-to-leaf path that joins two cores, when
    /// threads share cores (R_R − R_L: the per-level read is priced at R_L, and a path of H
    /// edges through cores of t threads joins cores at least ⌈(H + 1)/t⌉ − 1 times).
    release_across_cores: f64,
    /// Paid once (the broadcast root's read of its own buffer).
    offset: f64,
    /// What an edge across sockets (or L3 domains) costs at least, when the placement has one.
    crossing: Option<Crossing>,
    /// When children may sit on another socket than their parent: the least cost of a line
    /// written by such children (one leaf's way in across, the first write, the parent's read
    /// across). A node whose children use two lines or more has one.
    other_socket: Option<f64>,
}

/// The least costs of the edge a placement over two sockets (or two L3 domains of one socket)
/// forces into every tree: the path from the root to a thread elsewhere has an edge whose child
/// is elsewhere than its parent.
#[derive(Debug, Clone, Copy)]
struct Crossing {
    /// Child done → its write, with the child's read of its parent's flag across.
    edge: f64,
    /// The parent's read of the line that child writes (R_Q across sockets, where the line's
    /// writers are all on the child's socket; r across domains, where they need not be).
    read: f64,
    /// After the gather (the barrier's release reaching that child: its read across).
    release: f64,
}

/// Which level of the hierarchy every placement of a request spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// All threads may run on one L3 domain.
    Nothing,
    /// The threads run on one socket but on two L3 domains or more.
    Domains,
    /// The threads run on two sockets or more.
    Sockets,
}

/// A lower bound on T_min (ns) of `program` over every rooted tree of `threads` nodes and
/// every placement of them that uses at most `sockets` sockets of `machine` and spans `span`,
/// the threads sharing cores when `shared_cores`. `None` above [`MAX_BOUND_THREADS`] threads
/// or for fewer than 2.
pub fn t_min_lower_bound(
    program: TreeProgram,
    machine: &Ccnuma,
    threads: u32,
    sockets: u32,
    span: Span,
    shared_cores: bool,
) -> Option<f64> {
    if !(2..=MAX_BOUND_THREADS).contains(&threads) {
        return None;
    }
    let line = &machine.line;
    let topology = &machine.topology;
    // The least transfer between threads on two different cores, and between two different
    // threads at all (R_L when two may share a core).
    let mut r_core = line.remote;
    if topology.sockets > 1 {
        r_core = r_core.min(line.remote_socket);
    }
    if topology.domains_per_socket > 1 {
        r_core = r_core.min(line.remote_domain);
    }
    let (r, per_core) = if shared_cores {
        (
            r_core.min(line.local),
            topology.threads_per_core.max(1) as usize,
        )
    } else {
        (r_core, 1)
    };
    let m = line.invalid.min(line.invalid_remote_socket);
    let local = line.local;
    // The class of the edge across, and of its line's read.
    let across = match span {
        Span::Nothing => None,
        Span::Domains => Some((line.remote_domain, r)),
        Span::Sockets => Some((line.remote_socket, line.remote_socket)),
    };
    let n = threads as usize;
    let s = sockets.max(1) as usize;
    // The many-to-one lines, the same in every program; the rest is each program's.
    let lines = Terms {
        pre: 0.0,
        edge: 0.0,
        leaf: 0.0,
        first: m,
        per_child: r_core,
        read: r,
        per_core,
        sibling: line.local,
        post: vec![0.0; n],
        release: 0.0,
        release_across_cores: 0.0,
        offset: 0.0,
        crossing: None,
        other_socket: None,
    };
    let mut terms = match program {
        TreeProgram::Barrier => Terms {
            release: m + r,
            release_across_cores: r_core - r,
            crossing: across.map(|(x, read)| Crossing {
                edge: 0.0,
                read,
                release: m + x,
            }),
            ..lines
        },
        TreeProgram::Reduce => {
            // The slot copy of K lines into the parent's own value line: one line is a read of
            // a line another thread wrote (≥ r) plus a write to a held line (R_L); K ≥ 2 lines
            // cost Eq. (1) of the farthest line's class (§4; the destination in the copier's
            // cache adds nothing). Every slot line is held by the child that wrote it, never
            // in memory (the copy waits for the children's adds, which follow their writes),
            // so the class is Intra or Inter by its transfer cost, Local only if that cost can
            // be R_L (two threads on a core). Eq. (1) is linear in the concurrent copiers n.
            let intra = machine.intra_socket;
            let inter = machine.inter_socket;
            let local_possible = shared_cores || r_core <= local;
            let post = (0..n)
                .map(|k| match k {
                    0 => 0.0,
                    1 => r + local,
                    _ => {
                        let lines = k as u32;
                        let held = if local_possible {
                            k as f64 * local
                        } else {
                            f64::INFINITY
                        };
                        [
                            held,
                            intra.time(1, lines),
                            inter.time(1, lines),
                            inter.time(threads, lines),
                        ]
                        .into_iter()
                        .fold(f64::INFINITY, f64::min)
                        .max(0.0)
                    }
                })
                .collect();
            Terms {
                edge: r + local + m,
                leaf: m,
                post,
                crossing: across.map(|(x, read)| Crossing {
                    edge: x + local + m,
                    read,
                    release: 0.0,
                }),
                ..lines
            }
        }
        TreeProgram::Bcast => Terms {
            pre: m,
            edge: r + local,
            offset: local,
            crossing: across.map(|(x, read)| Crossing {
                edge: x + local,
                read,
                release: 0.0,
            }),
            ..lines
        },
    };
    // Lines are per socket, so a node whose children write two lines or more has children on
    // another socket than its own: their line is read across (R_Q), and each of them reached
    // it across too (the edge with R_Q for r, as in the crossing terms).
    if s > 1 && topology.sockets > 1 {
        let q = line.remote_socket;
        let edge = match program {
            TreeProgram::Barrier => 0.0,
            TreeProgram::Reduce => q + local + m,
            TreeProgram::Bcast => q + local,
        };
        terms.other_socket = Some(terms.leaf + edge + terms.first + q);
    }
    bound(&terms, n, s)
}

/// Cells of the height DP (n² per height) computed before giving up: a bound over fewer
/// heights than the stopping rule needs would not be a bound, so none is returned then.
const MAX_BOUND_WORK: u64 = 200_000_000;

/// The least over heights H of f_H(n) + H·release + offset (module docs); `None` when the
/// heights it must try would take more than [`MAX_BOUND_WORK`].
fn bound(t: &Terms, n: usize, s: usize) -> Option<f64> {
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
    let level = t.pre + t.edge + line_cost(1) + t.release;
    let mut best = f64::INFINITY;
    let per_height = (n as u64).saturating_mul(n as u64);
    let mut work = 0u64;
    for h in 1..n {
        work = work.saturating_add(per_height);
        if work > MAX_BOUND_WORK {
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
            for k in 1..=below {
                // The least over k' ≤ K of the line holding the most descendants: with the
                // children on any lines (at least ⌈M/S⌉ of them), or all on one line (all M).
                let child = prev[widest.div_ceil(k)];
                through_widest = through_widest.min(child + t.edge + line_cost(k));
                through_all = through_all.min(prev[below.div_ceil(k)] + t.edge + line_cost(k));
                let busiest = t.leaf + t.edge + line_cost(k.div_ceil(s));
                let any_lines = through_widest.max(busiest);
                // One line of K writers, or two lines or more, one of them across sockets.
                let one_line = through_all.max(t.leaf + t.edge + line_cost(k));
                let both = match t.other_socket {
                    Some(across) if k > 1 => one_line.min(any_lines.max(across)),
                    Some(_) => one_line,
                    None => any_lines,
                };
                node = node.min(both + t.post[k]);
                if let Some(across) = crossing {
                    node_across = node_across.min(both.max(across) + t.post[k]);
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

    /// The E5-2660's classes on one socket (R_L = 2.3, R_R = 35, R_I = 70), each thread on its
    /// own core, no per-node or per-edge cost, for `n` threads.
    fn one_socket(n: usize) -> Terms {
        Terms {
            pre: 0.0,
            edge: 0.0,
            leaf: 0.0,
            first: 70.0,
            per_child: 35.0,
            read: 35.0,
            per_core: 1,
            sibling: 2.3,
            post: vec![0.0; n],
            release: 0.0,
            release_across_cores: 0.0,
            offset: 0.0,
            crossing: None,
            other_socket: None,
        }
    }

    #[test]
    fn a_flat_barrier_on_one_socket_attains_the_bound() {
        // Barrier on 4 threads, one line (S = 1), R_I = 70, R_R = 35: height 1 costs the
        // line of 3 writers, m + 2·r, plus the root's read r, then the release m + r:
        // 70 + 70 + 35 + 70 + 35 = 280 = 2·R_I + (k + 1)·R_R, the flat tree's cost (docs/cla.md
        // §12). Height 2 would cost at least 2·(70 + 35 + 70 + 35) = 420 > 280.
        let t = Terms {
            release: 105.0,
            ..one_socket(4)
        };
        assert_eq!(
            bound(&t, 4, 1).map(|b| (b * 1e6).round() / 1e6),
            Some(280.0)
        );
    }

    #[test]
    fn the_broadcast_bound_is_eq_2_with_one_class() {
        // Eq. (2) on one socket, R_L = 2.3, R_R = 35, R_I = 70: T_lev(k) = (R_I + R_R) + R_L +
        // (R_I + k·R_R) and the broadcast R_L + T_bc. On 3 threads the flat tree 0(1,2):
        // 2.3 + 105 + 2.3 + 70 + 70 = 249.6; the chain 0(1(2)) pays two levels of k = 1,
        // 2.3 + 2·(105 + 2.3 + 105) = 426.9. The bound is the flat tree's.
        let t = Terms {
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
