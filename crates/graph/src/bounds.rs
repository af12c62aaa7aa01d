//! Certified lower bounds on T_min and T_max of the bundled tree programs, over **every**
//! rooted tree and placement of a request: what lets a graph-priced answer that the search could
//! not prove optimal still say how far from optimal it can be (`docs/cla.md` §12, "Lower
//! bounds").
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
//! - some child holds at least ⌈(M_p − 1)/K⌉ nodes: at least f_{h−1}(⌈(M_p − 1)/K⌉) + edge +
//!   a(1) + r (without it, K children "holding" more descendants than subtrees of height
//!   h − 1 can, e.g. 4 leaves holding 8, were priced);
//!
//! so p is done no earlier than `pre` + the largest of these + `post(K)`, minimized over K.
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
//! holding all M − 1 descendants, and the pigeonhole bounds over S lines with such a line:
//! with j₀ children on its own line and K − j₀ ≥ 1 on the S − 1 lines across, one line across
//! has ⌈(K − j₀)/(S − 1)⌉ writers or more, each after the first at least r more (a writer of
//! the same other socket precedes it; under T_max 2·R_Q), and the node pays the dearer of that
//! line and its own, minimized over j₀.
//! With one line per L3 domain (`topology.sync_line = "domain"`) S counts the domains of the
//! sockets used and across is the cheaper of R_D and R_Q.
//!
//! **Counting the threads** ([`Threads::per_domain`]). A request placed by thread id fixes how
//! many threads each socket (each domain, with a line per domain) holds, and a free split how
//! many it can hold: a node has at most that many children on each line, one fewer on its
//! own, and the relaxation takes it into account (`model::level_bound`, "Counting the
//! threads"). On 8 + 4 threads of the E5-2660 no node has more than four children across, and
//! the root's own line has the rest. A barrier's child across also reads its parent's go flag
//! across (R_Q − r more, twice that under T_max), which the path form adds to its way in.
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
//! **Under T_max** (§6, line stealing) the same argument holds with the worst case's costs,
//! each again at its least for the request:
//! - a many-to-one line of k writers costs m + 2k·r: its poller fetches it (m), every write
//!   steals it from the poller and the poller reads it back (at least 2r each, the last read
//!   being the wait), in any visiting order; with shared cores only the writers on the
//!   poller's own core (t − 1 at most) pay R_L, so with two threads a core the line costs
//!   m + 2·R_L + 2(k − 1)·r_core;
//! - a flag that K threads poll (the barrier's go, the reduction's ready) is fetched for them
//!   (m) and its write invalidates each poller: at least m + r, and m + K·r with per-owner
//!   invalidation (one transfer with `single`); the barrier's release therefore costs
//!   m + 2r per level of the path, and the root pays r more for each child beyond its first
//!   (every node of the path, in the relaxation's path form: `model::level_bound`);
//!   a child of the reduction reads its parent's ready flag no earlier than m + K·r (m + r
//!   with `single`), whatever its own subtree costs;
//! - a line written by a child on another socket (or L3 domain) than its parent costs 2x for
//!   that write (x = R_Q or R_D): its write is stolen from the parent and read back across,
//!   and every further writer of a line across costs 2·R_Q.
//!
//! - the broadcast's S3 and S4 write the line its K children poll: m + 3r before they can read
//!   it, and 2r more for each child beyond the first with per-owner invalidation.
//!
//! Every other step (the reduction's copies, the broadcast's S1 and S2) keeps its T_min cost,
//! which T_max never undercuts. The T_min bound bounds T_max too; the search takes the larger.
//!
//! On one socket of a machine with one L3 domain per socket the barrier bound is attained by
//! the flat tree (2·R_I + (k + 1)·R_R; under T_max 2·R_I + (3k + 1)·R_R at 4 threads), and the
//! broadcast's is Eq. (2) with every class at R_R.
//! The tests compare every bound with the exhaustive optimum on small requests.
//!
//! The work is O(n²) per height tried; above [`MAX_BOUND_THREADS`] threads no bound is given.

use crate::graph::Bound;
use modelopt_model::ccnuma::{Ccnuma, Invalidation};
use modelopt_model::level_bound::{Crossing, LevelBound, LineCapacity};

/// Largest thread count for which a bound is computed (the relaxation's own limit, which runs
/// whenever a space is built).
pub const MAX_BOUND_THREADS: u32 = modelopt_model::level_bound::MAX_NODES;

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

/// The threads of a request and where they may run, as far as a bound needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Threads {
    /// How many threads take part.
    pub count: u32,
    /// The sockets whose many-to-one lines a tree may use.
    pub sockets: u32,
    /// The level every placement spans.
    pub span: Span,
    /// Whether two threads may share a core.
    pub shared_cores: bool,
    /// The threads each L3 domain of the machine holds at most (socket-major, one entry a
    /// socket on a machine of one domain a socket): the counts of a placement by thread id, the
    /// room of a free split. Empty when unknown: the bound then counts lines only (module docs,
    /// "Counting the threads").
    pub per_domain: Vec<u32>,
    /// The root's domain (an index of `per_domain`), when the placement fixes it.
    pub root_domain: Option<usize>,
}

impl Threads {
    /// `count` threads on at most `sockets` sockets spanning `span`, each with a core of its
    /// own, without counts per domain.
    pub fn on_sockets(count: u32, sockets: u32, span: Span) -> Self {
        Threads {
            count,
            sockets,
            span,
            shared_cores: false,
            per_domain: Vec::new(),
            root_domain: None,
        }
    }
}

/// A lower bound (ns) on T_min (`bound` = [`Bound::Min`]) or T_max ([`Bound::Max`]) of
/// `program` over every rooted tree of `threads.count` nodes and every placement of them on
/// `machine` that `threads` allows. The T_max bound is the same relaxation with §6's line
/// stealing, where every write of a polled line is an invalidation of its pollers (module docs,
/// "Under T_max"): it can be far above the T_min bound, which bounds T_max too (every rule's
/// worst case is at least its best case) but knows nothing of stealing. `None` above
/// [`MAX_BOUND_THREADS`] threads or for fewer than 2.
pub fn lower_bound(
    bound: Bound,
    program: TreeProgram,
    machine: &Ccnuma,
    threads: &Threads,
) -> Option<f64> {
    let spread = threads;
    let (threads, sockets, span, shared_cores) = (
        spread.count,
        spread.sockets,
        spread.span,
        spread.shared_cores,
    );
    let worst = bound == Bound::Max;
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
    // The class of an edge across (sockets, or L3 domains of one socket), and what the line its
    // child writes costs beyond a line of one writer within: under T_min the parent's read of
    // it (R_Q across sockets, where the line's writers are all on the child's socket; only r
    // across domains, where its last writer may be in the parent's domain), under T_max the
    // child's own write, stolen from the parent and read back across (2x in place of 2r).
    let across = match span {
        Span::Nothing => None,
        Span::Domains => Some(line.remote_domain),
        Span::Sockets => Some(line.remote_socket),
    }
    .map(|x| {
        let read = match (worst, span) {
            (true, _) => 2.0 * x - r,
            (false, Span::Sockets) => x,
            (false, _) => r,
        };
        (x, read)
    });
    let n = threads as usize;
    // The many-to-one lines a node may keep: one per socket, or one per L3 domain of those
    // sockets when the machine says `sync_line = "domain"` (docs/cla.md §13).
    let by_domain = topology.sync_line == modelopt_model::ccnuma::SyncLine::Domain;
    let lines_per_socket = if by_domain {
        topology.domains_per_socket.max(1) as usize
    } else {
        1
    };
    let s = (sockets.max(1) as usize).saturating_mul(lines_per_socket);
    // The many-to-one lines, the same in every program; the rest is each program's. Under
    // T_min a line of k writers costs m + (k − 1)·r + r (§5); under T_max m + 2k·r (§6: the
    // poller fetches it, every write steals it and the poller reads it back), so its first
    // write counts m + r and each further one 2r. The steal and the read back are R_L only for
    // a writer on the poller's own core, of which there are at most t − 1 (t threads a core):
    // with two threads a core every writer but one pays 2·r_core.
    let lines = if worst {
        let per_child = if per_core <= 2 { 2.0 * r_core } else { 2.0 * r };
        LevelBound::lines(m + r, per_child, r, threads)
    } else {
        LevelBound {
            per_core,
            sibling: line.local,
            ..LevelBound::lines(m, r_core, r, threads)
        }
    };
    // Under T_max a write of a flag that K threads poll pays each poller's copy back (§6, the
    // n-readers rule: Σ over the pollers with per-owner invalidation, the largest one with a
    // single invalidation) after their fetch of the fresh line (m): at least m + r, and with
    // per-owner invalidation K·r, beside the poller's own read.
    let per_poller = match machine.invalidation {
        Invalidation::PerOwner => r,
        Invalidation::Single => 0.0,
    };
    let flag_write = if worst { m + r } else { m };
    let mut terms = match program {
        TreeProgram::Barrier => LevelBound {
            // The go write and the child's read, per level of the path; under T_max both
            // cross cores on a path that joins two.
            release: flag_write + r,
            release_across_cores: if worst {
                2.0 * (r_core - r)
            } else {
                r_core - r
            },
            release_per_child: if worst { per_poller } else { 0.0 },
            crossing: across.map(|(x, read)| Crossing {
                edge: 0.0,
                read,
                release: if worst { m + 2.0 * x } else { m + x },
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
            // The copy reads no polled line: the same under T_max.
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
            LevelBound {
                edge: r + local + m,
                // A child reads the parent's ready flag once it is written: under T_max with
                // per-owner invalidation that write pays each of the K children polling it.
                leaf: flag_write,
                leaf_per_sibling: if worst { per_poller } else { 0.0 },
                post,
                crossing: across.map(|(x, read)| Crossing {
                    edge: x + local + m,
                    read,
                    release: 0.0,
                }),
                ..lines
            }
        }
        TreeProgram::Bcast => LevelBound {
            // S3 into the fresh payload line. Under T_max its K children poll that line since
            // before S3: S3 fetches it for them (m), invalidates them and has them read it
            // again before S4 (r + r at least), and S4 invalidates them again (r): m + 3r, and
            // 2r for each child beyond the first with per-owner invalidation.
            pre: if worst { m + 3.0 * r } else { m },
            post: if worst {
                (0..n)
                    .map(|k| 2.0 * k.saturating_sub(1) as f64 * per_poller)
                    .collect()
            } else {
                lines.post.clone()
            },
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
    // another socket than its own: their line is read across (R_Q; under T_max each of its
    // writes is stolen and read back across), and each of them reached it across too (the
    // edge with R_Q for r, as in the crossing terms). With one line per L3 domain, across is
    // at least the cheaper of R_D and R_Q.
    if s > 1 && (topology.sockets > 1 || by_domain) {
        let q = if by_domain {
            line.remote_domain.min(line.remote_socket)
        } else {
            line.remote_socket
        };
        let edge = match program {
            TreeProgram::Barrier => 0.0,
            TreeProgram::Reduce => q + local + m,
            TreeProgram::Bcast => q + local,
        };
        let read = if worst { 2.0 * q - r } else { q };
        terms.other_socket = Some(terms.leaf + edge + terms.first + read);
        // A further writer of that line follows one of its own socket (at least r) under
        // T_min; under T_max it is stolen from the parent and read back across.
        terms.across_per_child = if worst { 2.0 * q } else { r };
        // The barrier releases such a child across: its read of the go flag (and under
        // T_max the write's invalidation of its copy) costs q, not r.
        if program == TreeProgram::Barrier {
            terms.release_across = if worst { 2.0 * (q - r) } else { q - r };
        }
    }
    // The threads each line's group holds at most: a domain's with a line per domain, a
    // socket's otherwise.
    if !spread.per_domain.is_empty() {
        let domains = topology.domains_per_socket.max(1) as usize;
        terms.capacity = Some(if by_domain {
            LineCapacity {
                threads: spread.per_domain.clone(),
                root: spread.root_domain,
            }
        } else {
            LineCapacity {
                threads: spread
                    .per_domain
                    .chunks(domains)
                    .map(|c| c.iter().fold(0u32, |a, &b| a.saturating_add(b)))
                    .collect(),
                root: spread.root_domain.map(|d| d / domains),
            }
        });
    }
    terms.lower_bound(threads, s as u32)
}
