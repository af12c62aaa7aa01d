//! CLa graphs (seed 001 §3): nodes are operations, edges E1–E4, costs by rules 1–5 and Eq. (1),
//! T_min as the critical path with reorderings of E3-linked writes, T_max with line stealing.
//!
//! Every rule's reading is in `docs/cla.md` §3–§6. In short:
//! - the graph is built by an untimed execution of the instance (threads in id order, each until
//!   it blocks); a satisfied wait gets E2 edges from the writes of its line by other threads since
//!   its thread last touched the line; when those come from several threads they form an E3
//!   group;
//! - an access is priced by where the line is (own cache R_L, same socket R_R, other socket R_Q,
//!   memory R_I/R_QI), 0 when the thread's previous op touched the same line (rule 3);
//! - T_min enters each E3 group at its latest write and visits every write once (cheapest order,
//!   fewest QPI transfers); T_max charges the pollers' stealing.

use crate::error::GraphError;
use crate::instance::{InstKind, Instance, LineId, LineStart};
use modelopt_model::ccnuma::{Ccnuma, Invalidation, LineCosts, MultiLine, Place, Topology};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{EdgeFiltered, EdgeRef};
use petgraph::Direction;
use std::collections::{BTreeMap, BTreeSet};

/// The most elementary steps (node or edge visits, pair comparisons) an analysis of one graph may
/// need, estimated before it starts: a graph whose E4 search or congestion fixed point could
/// need more is refused with [`GraphError::TooLarge`] instead of running for minutes. The bundled
/// programs on the bundled machines need a few thousand.
pub const MAX_ANALYSIS_STEPS: u64 = 100_000_000;

/// The four edge kinds of seed 001 §3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum EdgeKind {
    /// Program order within a thread (dotted, directed).
    E1,
    /// Logical dependency: a wait or read of a line written by another thread (directed).
    E2,
    /// Unordered sequential restriction between writes of one flag polled by one wait
    /// (undirected; stored between consecutive members in thread order).
    E3,
    /// Line stealing between unrelated operations (dotted, undirected).
    E4,
}

/// Which bound an analysis computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// Best case: critical path, cheapest reordering of E3 writes.
    Min,
    /// Worst case: line stealing.
    Max,
}

/// The class of a multi-line copy's source (Eq. 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MultiClass {
    Local,
    Intra,
    Inter,
    Memory { local: bool },
}

#[derive(Debug, Clone)]
struct MultiSrc {
    class: MultiClass,
    lines: u32,
    src: Vec<LineId>,
}

/// One operation of one thread, with its costs.
#[derive(Debug, Clone)]
pub struct Node {
    /// Thread.
    pub thread: u32,
    /// Position in the thread's sequence (0-based).
    pub step: usize,
    /// The operation with concrete line names.
    pub text: String,
    /// Source line of the op in the program.
    pub source_line: usize,
    /// Cost of the reads of the op (copy source, polled line), T_min rules, ns.
    pub read_cost: f64,
    /// Cost of the write part (RFO), T_min rules, ns.
    pub write_cost: f64,
    /// Write part under T_max (stealing, invalidation of pollers), ns.
    pub write_cost_max: f64,
    /// Extra T_max cost from E4 line stealing, ns.
    pub steal_cost_max: f64,
    /// Whether rule 3 made an access free (`*` in Figure 2).
    pub starred: bool,
    /// The line written, if any.
    pub writes: Option<LineId>,
    multi: Option<MultiSrc>,
}

/// Where a line is during the untimed execution.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Loc {
    Memory {
        home: u32,
    },
    Owned(u32),
    Shared {
        writer: Option<u32>,
        home: u32,
        readers: BTreeSet<u32>,
    },
}

#[derive(Debug, Clone)]
struct Group {
    wait: NodeIndex,
    poller: u32,
    members: Vec<NodeIndex>,
    before: Loc,
}

/// How a node's start was decided (for walking the critical path back).
#[derive(Debug, Clone, PartialEq)]
enum Pred {
    None,
    Node(NodeIndex),
    Group(usize),
}

/// The timing of one bound over the whole graph.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Analysis {
    /// Which bound.
    pub bound: Bound,
    /// The critical path's cost, ns.
    pub total_ns: f64,
    /// The critical path, node indices from first to last.
    pub path: Vec<usize>,
    /// Start of every node, ns.
    pub start: Vec<f64>,
    /// Finish of every node, ns.
    pub finish: Vec<f64>,
    /// Cost of every node under this bound (E3 writes priced in the chosen order), ns.
    pub cost: Vec<f64>,
    /// Time reached at each node of the critical path (E3 writes accumulate in visiting order),
    /// ns.
    pub path_finish: Vec<f64>,
    /// Transfers between sockets along the critical path.
    pub qpi_transfers: usize,
    /// For every E3 group: the wait and the order its writes are visited in.
    pub groups: Vec<(usize, Vec<usize>)>,
}

/// A CLa graph of an instantiated program on a machine.
#[derive(Debug, Clone)]
pub struct ClaGraph {
    /// The instance it was built from.
    pub instance: Instance,
    graph: DiGraph<Node, EdgeKind>,
    groups: Vec<Group>,
    line: LineCosts,
    intra: MultiLine,
    inter: MultiLine,
    invalidation: Invalidation,
}

struct Pricer<'a> {
    line: &'a LineCosts,
    places: &'a [Place],
    invalidation: Invalidation,
}

impl Pricer<'_> {
    fn x(&self, a: u32, b: u32) -> f64 {
        self.line.transfer(Topology::classify(
            self.places[a as usize],
            self.places[b as usize],
        ))
    }

    fn socket(&self, t: u32) -> u32 {
        self.places[t as usize].socket
    }

    /// Rules 1, 2, 4, 5 for a read of a line in `loc` by `t`.
    fn read(&self, loc: &Loc, t: u32) -> f64 {
        match loc {
            Loc::Memory { home } => self.line.memory(*home, self.socket(t)),
            Loc::Owned(u) if *u == t => self.line.local,
            Loc::Owned(u) => self.x(*u, t),
            Loc::Shared {
                writer,
                home,
                readers,
            } => {
                if readers.contains(&t) || *writer == Some(t) {
                    self.line.local
                } else {
                    match writer {
                        Some(w) => self.x(*w, t),
                        None => self.line.memory(*home, self.socket(t)),
                    }
                }
            }
        }
    }

    fn after_read(loc: &Loc, t: u32) -> Loc {
        match loc {
            Loc::Memory { .. } => Loc::Owned(t),
            Loc::Owned(u) if *u == t => loc.clone(),
            Loc::Owned(u) => Loc::Shared {
                writer: Some(*u),
                home: 0,
                readers: [*u, t].into_iter().collect(),
            },
            Loc::Shared {
                writer,
                home,
                readers,
            } => {
                let mut r = readers.clone();
                r.insert(t);
                Loc::Shared {
                    writer: *writer,
                    home: *home,
                    readers: r,
                }
            }
        }
    }

    /// Rules 1, 2, 4 and §2.3 for an RFO of a line in `loc` by `t`.
    fn write(&self, loc: &Loc, t: u32) -> f64 {
        match loc {
            Loc::Memory { home } => self.line.memory(*home, self.socket(t)),
            Loc::Owned(u) if *u == t => self.line.local,
            Loc::Owned(u) => self.x(*u, t),
            Loc::Shared {
                writer, readers, ..
            } => {
                let mut holders: BTreeSet<u32> = readers.clone();
                if let Some(w) = writer {
                    holders.insert(*w);
                }
                holders.remove(&t);
                if holders.is_empty() {
                    return self.line.local;
                }
                let costs = holders.iter().map(|&h| self.x(h, t));
                match self.invalidation {
                    Invalidation::PerOwner => costs.sum(),
                    Invalidation::Single => costs.fold(0.0, f64::max),
                }
            }
        }
    }
}

fn multi_time(intra: &MultiLine, inter: &MultiLine, line: &LineCosts, m: &MultiSrc, n: u32) -> f64 {
    let lines = f64::from(m.lines);
    match m.class {
        MultiClass::Local => lines * line.local,
        MultiClass::Intra => intra.time(1, m.lines),
        MultiClass::Inter => inter.time(n, m.lines),
        MultiClass::Memory { local: true } => line.invalid + (lines - 1.0) * intra.o,
        MultiClass::Memory { local: false } => line.invalid_remote_socket + (lines - 1.0) * inter.o,
    }
}

impl ClaGraph {
    /// Build the CLa graph of `instance` on `machine` (E1–E4 edges and the T_min costs of every
    /// access).
    pub fn build(instance: Instance, machine: &Ccnuma) -> Result<ClaGraph, GraphError> {
        let places: Vec<Place> = instance.threads.iter().map(|t| t.place).collect();
        let pricer = Pricer {
            line: &machine.line,
            places: &places,
            invalidation: machine.invalidation,
        };
        let n = instance.threads.len();
        let mut graph: DiGraph<Node, EdgeKind> = DiGraph::new();
        let mut value = vec![0i64; instance.lines.len()];
        let mut loc: Vec<Loc> = instance
            .lines
            .iter()
            .map(|l| match l.start {
                LineStart::Memory { home } => Loc::Memory { home },
                LineStart::Cache { thread } => Loc::Owned(thread),
            })
            .collect();
        // Per line: every write (node, thread, state before it), in execution order.
        let mut log: Vec<Vec<(NodeIndex, u32, Loc)>> = vec![Vec::new(); instance.lines.len()];
        let mut seen: BTreeMap<(u32, LineId), usize> = BTreeMap::new();
        let mut pc = vec![0usize; n];
        let mut last: Vec<Option<NodeIndex>> = vec![None; n];
        let mut wait_sources: Vec<(NodeIndex, LineId, Vec<NodeIndex>)> = Vec::new();
        let mut copy_sources: Vec<(NodeIndex, Vec<NodeIndex>)> = Vec::new();
        // Threads with operations left, in id order (finished ones are dropped each round, which
        // changes nothing but the cost of a round). Each round visits them all; rounds are
        // bounded by the operations, and the visits by the analysis budget.
        let mut active: Vec<usize> = (0..n).filter(|&t| !instance.ops[t].is_empty()).collect();
        let mut visits: u64 = 0;
        loop {
            let mut progressed = false;
            visits += active.len() as u64;
            if visits > MAX_ANALYSIS_STEPS {
                return Err(GraphError::TooLarge {
                    what: "the untimed execution (rounds over the threads still running)",
                    needed: visits,
                    limit: MAX_ANALYSIS_STEPS,
                });
            }
            for &t in &active {
                while pc[t] < instance.ops[t].len() {
                    let op = &instance.ops[t][pc[t]];
                    let tid = t as u32;
                    if let InstKind::Wait {
                        line,
                        cmp,
                        value: v,
                    } = &op.kind
                    {
                        let ok = match cmp {
                            crate::program::Cmp::Eq => value[*line] == *v,
                            crate::program::Cmp::Ge => value[*line] >= *v,
                        };
                        if !ok {
                            break;
                        }
                    }
                    let prev_touches =
                        |l: LineId| pc[t] > 0 && instance.ops[t][pc[t] - 1].kind.touches(l);
                    let mut node = Node {
                        thread: tid,
                        step: pc[t],
                        text: op.text.clone(),
                        source_line: op.pos.line,
                        read_cost: 0.0,
                        write_cost: 0.0,
                        write_cost_max: 0.0,
                        steal_cost_max: 0.0,
                        starred: false,
                        writes: op.kind.writes(),
                        multi: None,
                    };
                    let index = graph.add_node(node.clone());
                    let sources_since = |seen: &BTreeMap<(u32, LineId), usize>,
                                         log: &Vec<Vec<(NodeIndex, u32, Loc)>>,
                                         l: LineId| {
                        let from = seen.get(&(tid, l)).copied().unwrap_or(0);
                        log[l][from..]
                            .iter()
                            .filter(|(_, w, _)| *w != tid)
                            .map(|(i, _, _)| *i)
                            .collect::<Vec<_>>()
                    };
                    match &op.kind {
                        InstKind::Wait { line, .. } => {
                            let sources = sources_since(&seen, &log, *line);
                            if prev_touches(*line) && sources.is_empty() {
                                node.starred = true;
                            } else {
                                node.read_cost = pricer.read(&loc[*line], tid);
                            }
                            loc[*line] = Pricer::after_read(&loc[*line], tid);
                            seen.insert((tid, *line), log[*line].len());
                            wait_sources.push((index, *line, sources));
                        }
                        InstKind::Copy { src, dst, lines } => {
                            let mut all_sources = Vec::new();
                            if *lines <= 1 && src.len() == 1 {
                                let l = src[0];
                                let sources = sources_since(&seen, &log, l);
                                if prev_touches(l) && sources.is_empty() {
                                    node.starred = true;
                                } else {
                                    node.read_cost = pricer.read(&loc[l], tid);
                                }
                                all_sources.extend(sources);
                            } else {
                                // Eq. (1): the farthest source line decides the class.
                                let mut class = MultiClass::Local;
                                let mut worst = -1.0;
                                for &l in src {
                                    all_sources.extend(sources_since(&seen, &log, l));
                                    let c = pricer.read(&loc[l], tid);
                                    if c > worst {
                                        worst = c;
                                        class = match &loc[l] {
                                            Loc::Memory { home } => MultiClass::Memory {
                                                local: *home == pricer.socket(tid),
                                            },
                                            _ if c <= machine.line.local => MultiClass::Local,
                                            _ if c <= machine.line.remote => MultiClass::Intra,
                                            _ => MultiClass::Inter,
                                        };
                                    }
                                }
                                let m = MultiSrc {
                                    class,
                                    lines: (*lines).max(src.len() as u32),
                                    src: src.clone(),
                                };
                                node.read_cost = multi_time(
                                    &machine.intra_socket,
                                    &machine.inter_socket,
                                    &machine.line,
                                    &m,
                                    1,
                                );
                                node.multi = Some(m);
                            }
                            for &l in src {
                                loc[l] = Pricer::after_read(&loc[l], tid);
                                seen.insert((tid, l), log[l].len());
                            }
                            let d = *dst;
                            let multi = node.multi.is_some();
                            if prev_touches(d) && !multi {
                                node.starred = true;
                            } else if !(multi && loc[d] == Loc::Owned(tid)) {
                                node.write_cost = pricer.write(&loc[d], tid);
                            }
                            log[d].push((index, tid, loc[d].clone()));
                            loc[d] = Loc::Owned(tid);
                            seen.insert((tid, d), log[d].len());
                            copy_sources.push((index, all_sources));
                        }
                        InstKind::Write { line, value: v } | InstKind::Add { line, value: v } => {
                            if prev_touches(*line) {
                                node.starred = true;
                            } else {
                                node.write_cost = pricer.write(&loc[*line], tid);
                            }
                            if matches!(op.kind, InstKind::Write { .. }) {
                                value[*line] = *v;
                            } else {
                                value[*line] = value[*line].saturating_add(*v);
                            }
                            log[*line].push((index, tid, loc[*line].clone()));
                            loc[*line] = Loc::Owned(tid);
                            seen.insert((tid, *line), log[*line].len());
                        }
                    }
                    node.write_cost_max = node.write_cost;
                    graph[index] = node;
                    if let Some(prev) = last[t] {
                        graph.add_edge(prev, index, EdgeKind::E1);
                    }
                    last[t] = Some(index);
                    pc[t] += 1;
                    progressed = true;
                }
            }
            active.retain(|&t| pc[t] < instance.ops[t].len());
            if active.is_empty() {
                break;
            }
            if !progressed {
                let blocked: Vec<String> = (0..n)
                    .filter(|&t| pc[t] < instance.ops[t].len())
                    .map(|t| {
                        let op = &instance.ops[t][pc[t]];
                        let now = match &op.kind {
                            InstKind::Wait { line, .. } => format!(" (value {})", value[*line]),
                            _ => String::new(),
                        };
                        format!(
                            "thread {t} at {}:{}: `{}`{now}",
                            instance.origin, op.pos.line, op.text
                        )
                    })
                    .collect();
                // At most 8 named in the one-line error; the rest counted.
                let mut shown = blocked
                    .iter()
                    .take(8)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ");
                if blocked.len() > 8 {
                    shown.push_str(&format!("; and {} more blocked threads", blocked.len() - 8));
                }
                return Err(GraphError::Deadlock(shown));
            }
        }
        // E2 edges, E3 groups, and the n-readers stealing of T_max.
        let mut groups = Vec::new();
        let mut pollers: BTreeMap<NodeIndex, BTreeSet<u32>> = BTreeMap::new();
        let mut chain_first: BTreeMap<NodeIndex, Loc> = BTreeMap::new();
        let mut not_last: BTreeSet<NodeIndex> = BTreeSet::new();
        for (wait, line, sources) in &wait_sources {
            for &s in sources {
                graph.add_edge(s, *wait, EdgeKind::E2);
            }
            let poller = graph[*wait].thread;
            let threads: BTreeSet<u32> = sources.iter().map(|&s| graph[s].thread).collect();
            if threads.len() >= 2 {
                // Last source of each thread, in thread order.
                let mut members: Vec<NodeIndex> = threads
                    .iter()
                    .filter_map(|&th| sources.iter().rev().find(|&&s| graph[s].thread == th))
                    .copied()
                    .collect();
                members.sort_by_key(|&m| graph[m].thread);
                for pair in members.windows(2) {
                    graph.add_edge(pair[0], pair[1], EdgeKind::E3);
                }
                let first = sources.iter().min().copied().unwrap_or(members[0]);
                let before = state_before(&log[*line], first);
                groups.push(Group {
                    wait: *wait,
                    poller,
                    members,
                    before,
                });
            } else if let (Some(&first), Some(&lastsrc)) = (sources.first(), sources.last()) {
                for &s in sources {
                    pollers.entry(s).or_default().insert(poller);
                    if s != lastsrc {
                        not_last.insert(s);
                    }
                }
                let before = state_before(&log[*line], first);
                chain_first.insert(first, before);
            }
        }
        for (copy, sources) in &copy_sources {
            for &s in sources {
                graph.add_edge(s, *copy, EdgeKind::E2);
            }
        }
        let grouped: BTreeSet<NodeIndex> = groups.iter().flat_map(|g| g.members.clone()).collect();
        for (&w, readers) in &pollers {
            if grouped.contains(&w) {
                continue;
            }
            let t = graph[w].thread;
            let others: Vec<u32> = readers.iter().copied().filter(|&r| r != t).collect();
            if others.is_empty() {
                continue;
            }
            let mut cost: f64 = match pricer.invalidation {
                Invalidation::PerOwner => others.iter().map(|&r| pricer.x(r, t)).sum(),
                Invalidation::Single => others.iter().map(|&r| pricer.x(r, t)).fold(0.0, f64::max),
            };
            if let Some(before) = chain_first.get(&w) {
                cost += others
                    .iter()
                    .map(|&r| pricer.read(before, r))
                    .fold(0.0, f64::max);
            }
            if not_last.contains(&w) {
                cost += others.iter().map(|&r| pricer.x(t, r)).fold(0.0, f64::max);
            }
            graph[w].write_cost_max = cost;
        }
        // E4: a wait and a write of its line by another thread, unrelated and concurrent.
        let dag = EdgeFiltered::from_fn(&graph, |e| {
            matches!(e.weight(), EdgeKind::E1 | EdgeKind::E2)
        });
        // Each (wait, write) pair that is not one of the wait's E2 sources costs up to two
        // searches of the graph: count them first (a program whose every write to a polled
        // line is a source of its waits, the dissemination barrier, needs none).
        let pairs: usize = wait_sources
            .iter()
            .map(|(wait, line, sources)| {
                let p = graph[*wait].thread;
                log[*line]
                    .iter()
                    .filter(|(w, t, _)| *t != p && sources.binary_search(w).is_err())
                    .count()
            })
            .sum();
        let size = (graph.node_count() + graph.edge_count()) as u64;
        let needed = (pairs as u64).saturating_mul(2).saturating_mul(size);
        if needed > MAX_ANALYSIS_STEPS {
            return Err(GraphError::TooLarge {
                what: "line stealing (E4 edges between waits and writes of one line)",
                needed,
                limit: MAX_ANALYSIS_STEPS,
            });
        }
        let mut space = petgraph::algo::DfsSpace::new(&dag);
        let mut e4 = Vec::new();
        for (wait, line, sources) in &wait_sources {
            let p = graph[*wait].thread;
            for (w, t, _) in &log[*line] {
                // `sources` is in execution order, so ascending.
                if *t == p || sources.binary_search(w).is_ok() {
                    continue;
                }
                let related =
                    petgraph::algo::has_path_connecting(&dag, *w, *wait, Some(&mut space))
                        || petgraph::algo::has_path_connecting(&dag, *wait, *w, Some(&mut space));
                if !related {
                    e4.push((*w, *wait, *t, p));
                }
            }
        }
        for (w, wait, t, p) in e4 {
            graph.add_edge(w, wait, EdgeKind::E4);
            let extra = pricer.x(p, t) + pricer.x(t, p);
            graph[w].steal_cost_max += extra;
        }
        Ok(ClaGraph {
            instance,
            graph,
            groups,
            line: machine.line,
            intra: machine.intra_socket,
            inter: machine.inter_socket,
            invalidation: machine.invalidation,
        })
    }

    /// The petgraph graph (nodes: operations; edges: [`EdgeKind`]).
    pub fn graph(&self) -> &DiGraph<Node, EdgeKind> {
        &self.graph
    }

    /// Every edge as (from, to, kind).
    pub fn edges(&self) -> Vec<(usize, usize, EdgeKind)> {
        self.graph
            .edge_references()
            .map(|e| (e.source().index(), e.target().index(), *e.weight()))
            .collect()
    }

    /// The E3 groups: (wait, members).
    pub fn groups(&self) -> Vec<(usize, Vec<usize>)> {
        self.groups
            .iter()
            .map(|g| {
                (
                    g.wait.index(),
                    g.members.iter().map(|m| m.index()).collect(),
                )
            })
            .collect()
    }

    fn places(&self) -> Vec<Place> {
        self.instance.threads.iter().map(|t| t.place).collect()
    }

    /// T_min: the critical path, with QPI congestion iterated to a fixed point.
    pub fn t_min(&self) -> Result<Analysis, GraphError> {
        let congestion = self.congestion()?;
        self.analyze(Bound::Min, &congestion)
    }

    /// T_max: the longest path under line stealing.
    pub fn t_max(&self) -> Result<Analysis, GraphError> {
        let congestion = self.congestion()?;
        self.analyze(Bound::Max, &congestion)
    }

    /// n of Eq. (1) for every node (1 but for simultaneous inter-socket multi-line copies).
    fn congestion(&self) -> Result<Vec<u32>, GraphError> {
        let count = self.graph.node_count();
        let mut n = vec![1u32; count];
        let candidates: Vec<NodeIndex> = self
            .graph
            .node_indices()
            .filter(|&i| matches!(&self.graph[i].multi, Some(m) if m.class == MultiClass::Inter))
            .collect();
        if candidates.len() < 2 {
            return Ok(n);
        }
        // Each round is one timing pass and a comparison of every pair of candidates; at most
        // one round per node. Refuse up front what could exceed the budget.
        let round = (count + self.graph.edge_count()) as u64 + (candidates.len() as u64).pow(2);
        let needed = round.saturating_mul(count as u64);
        if needed > MAX_ANALYSIS_STEPS {
            return Err(GraphError::TooLarge {
                what: "QPI congestion of simultaneous inter-socket multi-line copies (Eq. 1)",
                needed,
                limit: MAX_ANALYSIS_STEPS,
            });
        }
        for _ in 0..count.max(1) {
            let timing = self.analyze(Bound::Min, &n)?;
            let mut next = vec![1u32; count];
            for &a in &candidates {
                let ma = self.graph[a].multi.as_ref();
                let da = ma.map_or(0.0, |m| {
                    multi_time(&self.intra, &self.inter, &self.line, m, 1)
                });
                let mut k = 1;
                for &b in &candidates {
                    if a == b {
                        continue;
                    }
                    let mb = self.graph[b].multi.as_ref();
                    let db = mb.map_or(0.0, |m| {
                        multi_time(&self.intra, &self.inter, &self.line, m, 1)
                    });
                    let different_thread = self.graph[a].thread != self.graph[b].thread;
                    let different_lines = match (ma, mb) {
                        (Some(x), Some(y)) => x.src.iter().all(|l| !y.src.contains(l)),
                        _ => false,
                    };
                    let sa = timing.start[a.index()];
                    let sb = timing.start[b.index()];
                    if different_thread && different_lines && (sa - sb).abs() < da.max(db) {
                        k += 1;
                    }
                }
                next[a.index()] = k;
            }
            if next == n {
                break;
            }
            n = next;
        }
        Ok(n)
    }

    fn base_cost(&self, v: NodeIndex, bound: Bound, congestion: &[u32]) -> f64 {
        let node = &self.graph[v];
        let read = match &node.multi {
            Some(m) => multi_time(
                &self.intra,
                &self.inter,
                &self.line,
                m,
                congestion[v.index()],
            ),
            None => node.read_cost,
        };
        match bound {
            Bound::Min => read + node.write_cost,
            Bound::Max => read + node.write_cost_max + node.steal_cost_max,
        }
    }

    fn analyze(&self, bound: Bound, congestion: &[u32]) -> Result<Analysis, GraphError> {
        let places = self.places();
        let pricer = Pricer {
            line: &self.line,
            places: &places,
            invalidation: self.invalidation,
        };
        let count = self.graph.node_count();
        let dag = EdgeFiltered::from_fn(&self.graph, |e| {
            matches!(e.weight(), EdgeKind::E1 | EdgeKind::E2)
        });
        let order = petgraph::algo::toposort(&dag, None).map_err(|cycle| {
            GraphError::Deadlock(format!(
                "the dependency graph has a cycle through `{}`",
                self.graph[cycle.node_id()].text
            ))
        })?;
        let group_of: BTreeMap<NodeIndex, usize> = self
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| (g.wait, i))
            .collect();
        let mut start = vec![0.0; count];
        let mut finish = vec![0.0; count];
        let mut cost = vec![0.0; count];
        let mut pred = vec![Pred::None; count];
        let mut orders: Vec<Vec<NodeIndex>> = vec![Vec::new(); self.groups.len()];
        for v in order {
            let i = v.index();
            let mut c = self.base_cost(v, bound, congestion);
            let mut s = 0.0;
            let mut p = Pred::None;
            for e in self.graph.edges_directed(v, Direction::Incoming) {
                let is_group_edge = group_of.contains_key(&v) && *e.weight() == EdgeKind::E2;
                if matches!(e.weight(), EdgeKind::E1 | EdgeKind::E2) && !is_group_edge {
                    let f = finish[e.source().index()];
                    if f > s || (f == s && p == Pred::None) {
                        s = f;
                        p = Pred::Node(e.source());
                    }
                }
            }
            if let Some(&gi) = group_of.get(&v) {
                let g = &self.groups[gi];
                let (arrival, last, ordered, member_costs) =
                    self.group_arrival(g, bound, &start, &pricer);
                if arrival > s || p == Pred::None {
                    s = arrival.max(s);
                    p = Pred::Group(gi);
                }
                c = pricer.x(graph_thread(&self.graph, last), g.poller);
                for (m, mc) in ordered.iter().zip(member_costs) {
                    cost[m.index()] = mc;
                }
                orders[gi] = ordered;
            }
            start[i] = s;
            cost[i] = c;
            finish[i] = s + c;
            pred[i] = p;
        }
        // The end of the critical path: the latest finish (ties: lowest index).
        let mut end = 0;
        for i in 0..count {
            if finish[i] > finish[end] {
                end = i;
            }
        }
        let total = if count == 0 { 0.0 } else { finish[end] };
        let mut path = Vec::new();
        // A program with no operation for this tree has an empty graph and an empty path.
        let mut at = (count > 0).then(|| NodeIndex::new(end));
        let mut guard = 0;
        while let Some(v) = at {
            guard += 1;
            if guard > 4 * count + 4 {
                break;
            }
            path.push(v.index());
            at = match &pred[v.index()] {
                Pred::None => None,
                Pred::Node(u) => Some(*u),
                Pred::Group(gi) => {
                    // Members in visiting order: entry first, then every other write.
                    let ordered = &orders[*gi];
                    for m in ordered.iter().rev() {
                        path.push(m.index());
                    }
                    ordered
                        .first()
                        .and_then(|entry| match &pred[entry.index()] {
                            Pred::Node(u) => Some(*u),
                            _ => None,
                        })
                }
            };
        }
        path.reverse();
        path.dedup();
        // Node -> whether it enters its E3 group (the first group that lists it).
        let mut entry_of: BTreeMap<usize, bool> = BTreeMap::new();
        for o in &orders {
            for (k, m) in o.iter().enumerate() {
                entry_of.entry(m.index()).or_insert(k == 0);
            }
        }
        let mut path_finish = Vec::with_capacity(path.len());
        let mut in_group_segment = false;
        for (k, &v) in path.iter().enumerate() {
            let member_of = entry_of.get(&v).copied();
            let t = match member_of {
                Some(true) => {
                    in_group_segment = true;
                    start[v] + cost[v]
                }
                Some(false) if in_group_segment && k > 0 => path_finish[k - 1] + cost[v],
                _ => {
                    in_group_segment = false;
                    finish[v]
                }
            };
            path_finish.push(t);
        }
        let qpi = path
            .windows(2)
            .filter(|w| {
                let a = self.graph[NodeIndex::new(w[0])].thread;
                let b = self.graph[NodeIndex::new(w[1])].thread;
                places[a as usize].socket != places[b as usize].socket
            })
            .count();
        Ok(Analysis {
            bound,
            total_ns: total,
            path,
            path_finish,
            start,
            finish,
            cost,
            qpi_transfers: qpi,
            groups: self
                .groups
                .iter()
                .zip(&orders)
                .map(|(g, o)| (g.wait.index(), o.iter().map(|m| m.index()).collect()))
                .collect(),
        })
    }

    /// The arrival of an E3 group at its wait: entered at the member that starts last, every
    /// member visited once (docs/cla.md §5, §6). Returns (arrival, last member, order, costs).
    fn group_arrival(
        &self,
        g: &Group,
        bound: Bound,
        start: &[f64],
        pricer: &Pricer<'_>,
    ) -> (f64, NodeIndex, Vec<NodeIndex>, Vec<f64>) {
        let th = |m: NodeIndex| self.graph[m].thread;
        let place = |m: NodeIndex| pricer.places[th(m) as usize];
        let mut entry = g.members[0];
        for &m in &g.members {
            if start[m.index()] > start[entry.index()] {
                entry = m;
            }
        }
        let poller_socket = pricer.socket(g.poller);
        let mut rest: Vec<NodeIndex> = g.members.iter().copied().filter(|&m| m != entry).collect();
        match bound {
            Bound::Min => {
                // Visit the entry's core, its L3 domain, the other domains of its socket, the
                // poller's domain last; then the other sockets, the poller's socket last: the
                // cheapest order under class costs, with the fewest QPI transfers. When several
                // writes share the latest start, any of them may be the entry: the cheapest
                // (arrival plus the poller's read of the last writer) is taken, the first member
                // on ties.
                let latest = start[entry.index()];
                let poller_domain = (poller_socket, pricer.places[g.poller as usize].domain);
                type Choice = (f64, f64, NodeIndex, Vec<NodeIndex>, Vec<f64>);
                let mut best: Option<Choice> = None;
                for &cand in &g.members {
                    if start[cand.index()] != latest {
                        continue;
                    }
                    let e = place(cand);
                    let mut rest: Vec<NodeIndex> =
                        g.members.iter().copied().filter(|&m| m != cand).collect();
                    rest.sort_by_key(|&m| {
                        let p = place(m);
                        let socket_rank = if p.socket == e.socket {
                            0
                        } else if p.socket == poller_socket {
                            2
                        } else {
                            1
                        };
                        let domain_rank = if p.domain == e.domain {
                            0
                        } else if (p.socket, p.domain) == poller_domain {
                            2
                        } else {
                            1
                        };
                        (
                            socket_rank,
                            p.socket,
                            domain_rank,
                            p.domain,
                            u8::from(p.core != e.core),
                            p.core,
                            th(m),
                        )
                    });
                    let mut order = vec![cand];
                    order.extend(rest);
                    let mut costs = Vec::with_capacity(order.len());
                    costs.push(pricer.write(&g.before, th(cand)));
                    for w in order.windows(2) {
                        costs.push(pricer.x(th(w[0]), th(w[1])));
                    }
                    let arrival = latest + costs.iter().sum::<f64>();
                    let last = *order.last().unwrap_or(&cand);
                    let total = arrival + pricer.x(th(last), g.poller);
                    if best.as_ref().is_none_or(|(t, ..)| total < *t) {
                        best = Some((total, arrival, last, order, costs));
                    }
                }
                match best {
                    Some((_, arrival, last, order, costs)) => (arrival, last, order, costs),
                    // Unreachable: the entry itself has the latest start.
                    None => (latest, entry, vec![entry], vec![0.0]),
                }
            }
            Bound::Max => {
                // Every write steals the line from the poller, which re-reads it; the last re-read
                // is the wait itself. Ties: end on another socket than the poller (more QPI).
                rest.sort_by_key(|&m| (u8::from(place(m).socket != poller_socket), th(m)));
                let mut order = vec![entry];
                order.extend(rest);
                let fetch = pricer.read(&g.before, g.poller);
                let k = order.len();
                let costs: Vec<f64> = order
                    .iter()
                    .enumerate()
                    .map(|(i, &m)| {
                        let steal = pricer.x(g.poller, th(m));
                        let reread = if i + 1 < k {
                            pricer.x(th(m), g.poller)
                        } else {
                            0.0
                        };
                        let first = if i == 0 { fetch } else { 0.0 };
                        first + steal + reread + self.graph[m].steal_cost_max
                    })
                    .collect();
                let arrival = start[entry.index()] + costs.iter().sum::<f64>();
                let last = *order.last().unwrap_or(&entry);
                (arrival, last, order, costs)
            }
        }
    }

    /// The node's index as petgraph numbers it.
    pub fn node(&self, index: usize) -> &Node {
        &self.graph[NodeIndex::new(index)]
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.graph.node_count()
    }

    /// Whether the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.graph.node_count() == 0
    }
}

/// The line's state before the write `node`: the log is in execution order, and node indices
/// grow in execution order, so a binary search finds it.
fn state_before(log: &[(NodeIndex, u32, Loc)], node: NodeIndex) -> Loc {
    log.binary_search_by_key(&node, |(i, _, _)| *i)
        .ok()
        .map(|k| log[k].2.clone())
        .unwrap_or(Loc::Memory { home: 0 })
}

fn graph_thread(g: &DiGraph<Node, EdgeKind>, v: NodeIndex) -> u32 {
    g[v].thread
}
