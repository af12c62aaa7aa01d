//! The bundled `.cla` tree collectives offered on ccNUMA machines, priced by their CLa graph.
//!
//! | name | collective | program | free parameters |
//! |---|---|---|---|
//! | `cla-tree` | barrier | `models/barrier.cla` (arrival up the tree, release down it) | any rooted tree of the threads, with their sockets |
//! | `cla-tree` | reduce | `models/small-reduce.cla` (seed 000 §4.3 in CLa form) | the same |
//! | `cla-tree` | bcast | `models/one-line-bcast.cla` (seed 001 Fig. 1), only on machines with several L3 domains per socket and one synchronization line per socket | the same |
//!
//! The broadcast has the closed form of Eq. (2), which the ccnuma family prices and the exact
//! socket DP searches; that form knows one line class within a socket, so on a machine whose
//! sockets hold several L3 domains (chiplets) the family offers no broadcast and this module
//! offers the program priced by its graph instead, where every pair of threads is classified by
//! its lowest common level (R_R within a domain, R_D across domains, R_Q across sockets).
//!
//! Why the graph and not a closed form: in both programs a child's step waits on a line its
//! parent writes (the release flag, the `ready` flag) while its siblings contend for the same
//! line, and the reduction's slot copies pay Eq. (1)'s inter-socket congestion, which couples
//! concurrent copies of different subtrees (docs/cla.md §4). The cost of a tree is then not a
//! function of its subtrees' costs, so there is no dynamic program to run; the CLa graph of
//! the program on the placed tree *is* the model (seed 001 §3, cost rules 1–5), and the
//! optimizer searches these spaces as [`Space::PricedTrees`]: exhaustively while the budget
//! allows (exact), over documented candidates otherwise (flagged not exact).
//!
//! The algorithms are contributed to a machine through [`ClaCollectives`], an
//! [`AlgorithmSource`]: front ends call [`attach`] after loading a machine.

use crate::bounds::{lower_bound, Span, Threads, TreeProgram};
use crate::program::Program;
use crate::Bound;
use crate::{analyze, places_in_domains, GraphError};
use modelopt_model::algorithm::{Space, SpaceOptions, ThreadPlacement};
use modelopt_model::ccnuma::Ccnuma;
use modelopt_model::machine::{AlgorithmSource, Machine};
use modelopt_model::placed_tree::{DomainRenaming, PricedTreeSpace};
use modelopt_model::socket_lines::SocketLines;
use modelopt_model::tree::RootedTree;
use modelopt_model::{Algorithm, Collective, Cost, ModelError, Params, Request};
use std::any::Any;
use std::sync::{Arc, OnceLock};

/// The tree barrier, `models/barrier.cla`.
pub const BARRIER_CLA: &str = include_str!("../../../models/barrier.cla");
/// The small reduction, `models/small-reduce.cla`.
pub const REDUCE_CLA: &str = include_str!("../../../models/small-reduce.cla");
/// The one-line broadcast, `models/one-line-bcast.cla`.
pub const BCAST_CLA: &str = include_str!("../../../models/one-line-bcast.cla");

/// Budget units one pricing costs per concrete operation of the instance. Measured: building
/// and analysing the graph of a bundled program takes about 1 µs per operation on the
/// development machine (docs/perf.md, "graph-priced trees"), and one budget unit is about
/// 10 ns of work elsewhere in the optimizer (a closed-form tree evaluation is a few units).
pub const UNITS_PER_OPERATION: u64 = 100;

/// The bundled programs, parsed once.
#[derive(Debug)]
pub struct ClaCollectives {
    barrier: Program,
    reduce: Program,
    bcast: Program,
}

impl ClaCollectives {
    /// Parse the bundled programs (they are part of the build, so this fails only on a defect
    /// of the repository, reported as the parse error).
    pub fn new() -> Result<Self, GraphError> {
        Ok(ClaCollectives {
            barrier: crate::parse::parse("models/barrier.cla", BARRIER_CLA)?,
            reduce: crate::parse::parse("models/small-reduce.cla", REDUCE_CLA)?,
            bcast: crate::parse::parse("models/one-line-bcast.cla", BCAST_CLA)?,
        })
    }

    /// The process-wide instance (parsed on first use).
    pub fn shared() -> Result<Arc<Self>, GraphError> {
        static SHARED: OnceLock<Result<Arc<ClaCollectives>, GraphError>> = OnceLock::new();
        SHARED
            .get_or_init(|| ClaCollectives::new().map(Arc::new))
            .clone()
    }
}

/// Attach the `.cla` tree collectives to a machine (a no-op for families other than ccNUMA and
/// when already attached).
pub fn attach(machine: &mut Machine) -> Result<(), GraphError> {
    if machine.model::<Ccnuma>().is_some() {
        machine.add_algorithms(ClaCollectives::shared()?);
    }
    Ok(())
}

impl AlgorithmSource for ClaCollectives {
    fn name(&self) -> &'static str {
        "modelopt-graph: .cla tree collectives"
    }

    fn algorithms<'m>(&'m self, model: &'m dyn Any) -> Vec<Box<dyn Algorithm + 'm>> {
        let Some(machine) = model.downcast_ref::<Ccnuma>() else {
            return Vec::new();
        };
        let mut all: Vec<Box<dyn Algorithm + 'm>> = Vec::new();
        // The family's closed form is the broadcast wherever it holds (docs/cla.md §13): on
        // chiplets only with one synchronization line per L3 domain.
        if machine.topology.domains_per_socket > 1
            && machine.topology.sync_line == modelopt_model::ccnuma::SyncLine::Socket
        {
            all.push(Box::new(ProgramTree {
                machine,
                program: &self.bcast,
                kind: TreeProgram::Bcast,
                collective: Collective::Bcast,
                summary: "one-line broadcast over any rooted tree placed on the sockets (seed 001, Fig. 1; models/one-line-bcast.cla), priced by its CLa graph with one class per level of the hierarchy",
            }));
        }
        all.extend::<[Box<dyn Algorithm + 'm>; 3]>([
            Box::new(ProgramTree {
                machine,
                program: &self.barrier,
                kind: TreeProgram::Barrier,
                collective: Collective::Barrier,
                summary: "tree barrier: arrival up, release down (models/barrier.cla), any rooted tree placed on the sockets, priced by its CLa graph (seed 001 §3)",
            }),
            Box::new(ProgramTree {
                machine,
                program: &self.reduce,
                kind: TreeProgram::Reduce,
                collective: Collective::Reduce,
                summary: "reduction of one item up any rooted tree placed on the sockets (models/small-reduce.cla, seed 000 §4.3), priced by its CLa graph (seed 001 §3)",
            }),
            Box::new(crate::dissemination::DisseminationBarrier { machine }),
        ]);
        all
    }
}

/// A `.cla` tree program as an [`Algorithm`]: its space is every placed rooted tree, its cost
/// the critical paths of its CLa graph.
#[derive(Debug, Clone, Copy)]
pub struct ProgramTree<'m> {
    machine: &'m Ccnuma,
    program: &'m Program,
    /// Which program, for its lower bound.
    kind: TreeProgram,
    collective: Collective,
    summary: &'static str,
}

impl ProgramTree<'_> {
    fn check(&self, request: &Request) -> Result<(), ModelError> {
        let line = u64::from(self.machine.topology.line_bytes);
        if self.collective != Collective::Barrier && request.size_bytes() > line {
            return Err(ModelError::SizeLimit {
                size_bytes: request.size_bytes(),
                limit_bytes: line,
                what: format!("the one cache line per thread of {}", self.program.origin),
            });
        }
        Ok(())
    }

    /// The concrete operations of the program on the flat tree of `threads` (one instance,
    /// priced once): what one pricing of a tree of that size costs, about.
    fn operations(&self, threads: u32) -> Result<u64, GraphError> {
        let parents: Vec<Option<u32>> = (0..threads).map(|t| (t > 0).then_some(0)).collect();
        let tree = RootedTree::from_parents(&parents).map_err(|source| GraphError::Tree {
            tree: format!("flat tree of {threads} nodes"),
            source,
        })?;
        let places = crate::default_places(self.machine, threads);
        let instance = crate::instance::instantiate(self.program, &tree, self.machine, &places)?;
        Ok(instance.ops.iter().map(|t| t.len() as u64).sum())
    }
}

/// A graph failure on a configuration, as the model's error on the parameter it came from.
fn graph_error(params: &Params, e: GraphError) -> ModelError {
    ModelError::Parameter {
        name: "tree".into(),
        value: modelopt_model::error::clip(&params.to_string()),
        reason: e.to_string(),
    }
}

impl Algorithm for ProgramTree<'_> {
    fn name(&self) -> &'static str {
        "cla-tree"
    }
    fn collective(&self) -> Collective {
        self.collective
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn space(&self, request: &Request, options: &SpaceOptions) -> Result<Space, ModelError> {
        self.check(request)?;
        let threads = request.threads();
        let root_thread = options.root.unwrap_or(0);
        if root_thread >= threads {
            return Err(ModelError::Parameter {
                name: "root".into(),
                value: root_thread.to_string(),
                reason: format!("must be a thread id below {threads}"),
            });
        }
        let topology = &self.machine.topology;
        let chiplets = topology.domains_per_socket > 1;
        // A free split chooses how many threads run on each socket, or on a machine with L3
        // domains on each domain (the finest level whose threads are interchangeable, with a
        // core each).
        let groups_per_socket = if chiplets {
            topology.domains_per_socket
        } else {
            1
        };
        let capacity = match options.placement {
            ThreadPlacement::ByThreadId => None,
            ThreadPlacement::Optimal => Some(
                modelopt_model::ccnuma::algorithms::free_split_capacity(self.machine, threads),
            ),
        };
        let operations = self
            .operations(threads)
            .map_err(|e| ModelError::Parameter {
                name: "threads".into(),
                value: threads.to_string(),
                reason: e.to_string(),
            })?;
        // Threads are interchangeable, so that a tree shape and a group per node fix the cost,
        // within these groups: the threads of one L3 domain (one socket when the socket is one
        // domain) that have a core of their own, and, when two or more threads of the request
        // share a core, the threads of that core (R_L between them, seed 001 §2.1). The groups
        // are numbered in that order and compacted, so labels and exchanges cover every
        // placement of the threads by id. A free split assigns cores by node order, so with
        // shared cores there its labels do not fix the cost (and the search says so).
        let places: Vec<_> = (0..threads).map(|t| topology.place(t)).collect();
        let mut per_core = std::collections::BTreeMap::<(u32, u32), u32>::new();
        for p in &places {
            *per_core.entry((p.socket, p.core)).or_default() += 1;
        }
        let domains = u64::from(topology.domains_per_socket.max(1));
        let raw: Vec<u64> = places
            .iter()
            .map(|p| {
                let domain = u64::from(p.socket) * domains + u64::from(p.domain);
                let shared = per_core.get(&(p.socket, p.core)).is_some_and(|&k| k > 1);
                if shared && capacity.is_none() {
                    let core = u64::from(p.socket) * u64::from(topology.cores_per_socket)
                        + u64::from(p.core);
                    u64::from(topology.sockets) * domains + core
                } else {
                    domain
                }
            })
            .collect();
        let mut ids = raw.clone();
        ids.sort_unstable();
        ids.dedup();
        let thread_groups: Vec<u32> = raw
            .iter()
            .map(|g| ids.binary_search(g).map_or(0, |i| i as u32))
            .collect();
        let shared_cores = per_core.values().any(|&k| k > 1)
            || (capacity.is_some()
                && threads > topology.sockets.saturating_mul(topology.cores_per_socket));
        let sockets_fix_cost = capacity.is_none() || !shared_cores;
        let thread_sockets = topology.sockets_of(threads);
        let distinct = |labels: &[u32]| {
            let mut used = labels.to_vec();
            used.sort_unstable();
            used.dedup();
            used.len()
        };
        // The sockets whose many-to-one lines a tree may use (those holding threads, or with a
        // free split those with room for some), and the level every placement spans.
        let (sockets_used, span) = match &capacity {
            Some(room) => {
                let per_socket: Vec<u32> = room
                    .chunks(groups_per_socket.max(1) as usize)
                    .map(|c| c.iter().sum())
                    .collect();
                (
                    per_socket.iter().filter(|&&c| c > 0).count(),
                    if per_socket.iter().all(|&c| c < threads) {
                        Span::Sockets
                    } else if room.iter().all(|&c| c < threads) {
                        // Every placement spans two domains (of one socket, or of two).
                        Span::Domains
                    } else {
                        Span::Nothing
                    },
                )
            }
            None => {
                let sockets = distinct(&thread_sockets);
                let span = if sockets > 1 {
                    Span::Sockets
                } else if distinct(&thread_groups) > 1 {
                    Span::Domains
                } else {
                    Span::Nothing
                };
                (sockets, span)
            }
        };
        let sockets_used = u32::try_from(sockets_used).unwrap_or(u32::MAX);
        // The threads each domain holds (by id) or has room for (a free split), and the
        // root's domain, which a free split keeps too: the bounds count the threads a node's
        // lines can hold.
        let per_domain: Vec<u32> = match &capacity {
            // A free split's groups are the domains (the sockets on a machine without).
            Some(room) => room.clone(),
            None => {
                let mut counts =
                    vec![0u32; (topology.sockets as usize).saturating_mul(domains as usize)];
                for p in &places {
                    let d = p.socket as usize * domains as usize + p.domain as usize;
                    if let Some(c) = counts.get_mut(d) {
                        *c += 1;
                    }
                }
                counts
            }
        };
        let root_domain = places
            .get(root_thread as usize)
            .map(|p| p.socket as usize * domains as usize + p.domain as usize);
        let spread = Threads {
            count: threads,
            sockets: sockets_used,
            span,
            shared_cores,
            per_domain,
            root_domain,
        };
        let bound_of = |bound| lower_bound(bound, self.kind, self.machine, &spread);
        let (t_min_lower_bound, t_max_lower_bound) = (bound_of(Bound::Min), bound_of(Bound::Max));
        let mut space = PricedTreeSpace {
            threads,
            thread_sockets,
            thread_groups,
            root_thread,
            capacity,
            groups_per_socket,
            // The bundled programs use a synchronization group only to name its line and to
            // wait for the lines of their children's groups in ascending order: with a line
            // per domain, renaming two domains reorders those waits.
            domain_renaming: match topology.sync_line {
                modelopt_model::ccnuma::SyncLine::Socket => DomainRenaming::Any,
                modelopt_model::ccnuma::SyncLine::Domain => DomainRenaming::InOrder,
            },
            work_per_configuration: operations.saturating_mul(UNITS_PER_OPERATION),
            sockets_fix_cost,
            t_min_lower_bound,
            t_max_lower_bound,
            socket_lines: None,
            priced_by: format!("the CLa graph of {}", self.program.origin),
        };
        // The broadcast with one line per socket, threads with a core each (placed by id, or
        // freely): the relaxation's optimum is a certified bound, often far above the generic
        // one, and (threads by id) its tree a candidate that proves itself when the graph
        // prices it at the bound (docs/cla.md §13, "One line per socket: a relaxation"; a free
        // split gets the least over its splits per socket with the domains merged, "... over
        // every split"). The search computes it, within its budget, memory and time limit.
        // Threads sharing cores get the relaxation for shared cores ("Shared cores"). Placed
        // by id, a shared core is a group of its own, finer than the domains the terms are
        // written for: there only the optimum with each socket's groups merged bounds them
        // (`SocketLines::by_domain`).
        if self.kind == TreeProgram::Bcast
            && topology.sync_line == modelopt_model::ccnuma::SyncLine::Socket
        {
            // Each group's socket (ascending where groups are domains, numbered by (socket,
            // domain); not where shared cores by id are groups, see below).
            let sockets = match &space.capacity {
                // A free split's groups: every domain of the machine, in order.
                Some(capacity) => (0..capacity.len() as u32)
                    .map(|g| g / groups_per_socket.max(1))
                    .collect(),
                None => {
                    let mut sockets = vec![0u32; space.nodes_per_group().len()];
                    for (&g, &s) in space.thread_groups.iter().zip(&space.thread_sockets) {
                        if let Some(x) = sockets.get_mut(g as usize) {
                            *x = s;
                        }
                    }
                    sockets
                }
            };
            // Renumbered 0, 1, … in the machine's socket order, which is the order a parent
            // waits for its lines in: the groups of shared cores by id come after every
            // domain's, so the groups' own order is not the sockets'.
            let mut ids = sockets.clone();
            ids.sort_unstable();
            ids.dedup();
            let sockets: Vec<u32> = sockets
                .iter()
                .map(|s| ids.iter().position(|x| x == s).map_or(0, |i| i as u32))
                .collect();
            let relaxation = if shared_cores {
                crate::socket_line_relaxation::Relaxation::sharing_cores(self.machine)
            } else {
                crate::socket_line_relaxation::Relaxation::of(self.machine)
            };
            space.socket_lines = Some(SocketLines {
                cost: Arc::new(relaxation),
                group_sockets: sockets,
                by_domain: !shared_cores || space.capacity.is_some(),
            });
        }
        Ok(Space::PricedTrees(space))
    }
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        self.check(request)?;
        let Params::RootedTree {
            parents,
            sockets,
            domains,
        } = params
        else {
            return Err(ModelError::WrongParams {
                algorithm: "cla-tree".into(),
                expected: "a rooted tree (parent array and sockets)".into(),
                got: modelopt_model::error::clip(&params.to_string()),
            });
        };
        let tree = RootedTree::from_parents(parents).map_err(|e| ModelError::Parameter {
            name: "parent".into(),
            value: modelopt_model::error::clip(&format!("{parents:?}")),
            reason: e.to_string(),
        })?;
        if tree.len() != request.threads() as usize || sockets.len() != tree.len() {
            return Err(ModelError::Parameter {
                name: "tree".into(),
                value: tree.nested(),
                reason: format!(
                    "needs one node and one socket per thread ({} threads), got {} nodes and {} sockets",
                    request.threads(),
                    tree.len(),
                    sockets.len()
                ),
            });
        }
        let places = places_in_domains(self.machine, sockets, domains)
            .map_err(|e| graph_error(params, e))?;
        let (_, min, max) = analyze(self.program, &tree, self.machine, &places)
            .map_err(|e| graph_error(params, e))?;
        Ok(Cost::range(min.total_ns, max.total_ns))
    }
}
