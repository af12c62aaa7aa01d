//! # modelopt-graph
//!
//! CLa dependency graphs of cache-line-aware algorithms (seed 001, Ramos & Hoefler, HPDC 2015,
//! §3): a program written per thread role with `cl_copy`, `cl_wait`, `cl_write`, `cl_add` on named
//! cache lines is instantiated for a tree, turned into a graph with the edge kinds E1–E4, priced
//! by cost rules 1–5 and Eq. (1), and analysed for its critical path (T_min, with reorderings of
//! E3-linked writes) and its worst case with line stealing (T_max).
//!
//! - [`program`]: the program representation and a builder API;
//! - [`parse`]: the `.cla` text format (errors with line and column), [`parse::load`] for files;
//! - [`input`]: reading a user's file (regular files only, size-limited, UTF-8 checked);
//! - [`instance`]: a program instantiated for a tree and a thread placement;
//! - [`graph`]: the CLa graph (petgraph), costs and the two analyses;
//! - [`report`]: text, JSON and Graphviz DOT output.
//! - [`collectives`]: the bundled `.cla` tree programs as algorithms of ccNUMA machines;
//! - [`dissemination`]: the dissemination barrier, generated per degree and priced the same way.
//!
//! Every reading of the paper's rules is documented in `docs/cla.md`.
//!
//! ```
//! use modelopt_graph::{analyze, default_places, parse::parse};
//! use modelopt_model::{ccnuma::{tree::RootedTree, Ccnuma}, machine};
//! let text = include_str!("../../../models/one-line-bcast.cla");
//! let program = parse("models/one-line-bcast.cla", text).unwrap();
//! let m = machine::load("sandy-bridge-e5-2660").unwrap();
//! let sandy: &Ccnuma = m.model().unwrap();
//! let tree = RootedTree::parse("0(1(3),2)").unwrap();
//! let places = default_places(sandy, tree.len() as u32);
//! let (graph, min, _max) = analyze(&program, &tree, sandy, &places).unwrap();
//! // Figure 2 of seed 001 on one socket: T_min = R_L + R_I + R_R + R_L + R_I + R_R + R_L + R_I
//! // + R_R + (R_I + R_R) + R_R = 461.9 ns (docs/cla.md §7).
//! assert!((min.total_ns - 461.9).abs() < 1e-9);
//! assert_eq!(graph.groups().len(), 1); // one E3: t1 and t2 add to the root's line
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod bounds;
pub mod collectives;
pub mod dissemination;
pub mod error;
pub mod graph;
pub mod input;
pub mod instance;
pub mod parse;
pub mod program;
pub mod report;
pub mod socket_line_relaxation;

pub use error::{GraphError, InputError, ParseError};
pub use graph::{Analysis, Bound, ClaGraph, EdgeKind};
pub use program::Program;
pub use report::Report;

use modelopt_model::ccnuma::tree::RootedTree;
use modelopt_model::ccnuma::{Ccnuma, Place};

/// The machine's default placement of threads `0..n` (socket by socket, seed 001 §4).
pub fn default_places(machine: &Ccnuma, threads: u32) -> Vec<Place> {
    (0..threads).map(|t| machine.topology.place(t)).collect()
}

/// Places for threads with the given sockets: within a socket, threads take cores in order of
/// their ids, then the next hardware thread of each core.
pub fn places_on_sockets(machine: &Ccnuma, sockets: &[u32]) -> Result<Vec<Place>, GraphError> {
    let topo = machine.topology;
    let mut used = vec![0u32; topo.sockets as usize];
    let capacity = topo.cores_per_socket * topo.threads_per_core;
    let mut out = Vec::with_capacity(sockets.len());
    for (t, &s) in sockets.iter().enumerate() {
        if s >= topo.sockets {
            return Err(GraphError::Threads(format!(
                "thread {t} is placed on socket {s}, but {} has sockets 0..{}",
                machine.name, topo.sockets
            )));
        }
        let k = used[s as usize];
        if k >= capacity {
            return Err(GraphError::Threads(format!(
                "socket {s} of {} runs at most {capacity} threads",
                machine.name
            )));
        }
        used[s as usize] += 1;
        out.push(topo.place_of(s, k % topo.cores_per_socket, k / topo.cores_per_socket));
    }
    Ok(out)
}

/// Places for threads with the given sockets and L3 domains (`domains[i]` within socket
/// `sockets[i]`): within a domain, threads take its cores in order of their ids, then the next
/// hardware thread of each core. An empty `domains` is [`places_on_sockets`].
pub fn places_in_domains(
    machine: &Ccnuma,
    sockets: &[u32],
    domains: &[u32],
) -> Result<Vec<Place>, GraphError> {
    if domains.is_empty() {
        return places_on_sockets(machine, sockets);
    }
    let topo = machine.topology;
    if domains.len() != sockets.len() {
        return Err(GraphError::Threads(format!(
            "{} domain entries for {} threads: give one L3 domain per thread",
            domains.len(),
            sockets.len()
        )));
    }
    let per_socket = topo.domains_per_socket.max(1);
    let cores = topo.cores_per_domain();
    let capacity = cores * topo.threads_per_core.max(1);
    let mut used = vec![0u32; (topo.sockets * per_socket) as usize];
    let mut out = Vec::with_capacity(sockets.len());
    for (t, (&s, &d)) in sockets.iter().zip(domains).enumerate() {
        if s >= topo.sockets || d >= per_socket {
            return Err(GraphError::Threads(format!(
                "thread {t} is placed on socket {s}, L3 domain {d}, but {} has sockets 0..{} of domains 0..{per_socket}",
                machine.name, topo.sockets
            )));
        }
        let slot = &mut used[(s * per_socket + d) as usize];
        if *slot >= capacity {
            return Err(GraphError::Threads(format!(
                "L3 domain {d} of socket {s} of {} runs at most {capacity} threads",
                machine.name
            )));
        }
        let k = *slot;
        *slot += 1;
        out.push(topo.place_of(s, d * cores + k % cores, k / cores));
    }
    Ok(out)
}

/// Instantiate `program` for `tree` with thread i at `places[i]`, build its CLa graph on
/// `machine`, and compute T_min and T_max.
pub fn analyze(
    program: &Program,
    tree: &RootedTree,
    machine: &Ccnuma,
    places: &[Place],
) -> Result<(ClaGraph, Analysis, Analysis), GraphError> {
    if tree.len() < 2 {
        return Err(GraphError::Threads(
            "a collective needs at least 2 threads (the tree has 1 node)".into(),
        ));
    }
    let hardware = machine.topology.hardware_threads() as usize;
    if tree.len() > hardware {
        return Err(GraphError::Threads(format!(
            "the tree has {} nodes but {} runs at most {hardware} threads",
            tree.len(),
            machine.name
        )));
    }
    let instance = instance::instantiate(program, tree, machine, places)?;
    let graph = ClaGraph::build(instance, machine)?;
    let min = graph.t_min()?;
    let max = graph.t_max()?;
    Ok((graph, min, max))
}
