//! What `modelopt graph` shows: the graph, its critical path, T_min and T_max, as text, JSON or
//! Graphviz DOT with the critical path highlighted.

use crate::graph::{Analysis, ClaGraph, EdgeKind};
use crate::instance::ThreadInfo;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Write;

/// One node in the report.
#[derive(Debug, Clone, Serialize)]
pub struct NodeRow {
    /// Node index.
    pub id: usize,
    /// Thread.
    pub thread: u32,
    /// Position in the thread (0-based).
    pub step: usize,
    /// The operation with concrete lines.
    pub op: String,
    /// Line of the op in the `.cla` file.
    pub source_line: usize,
    /// Rule 3 made an access free (`*`).
    pub starred: bool,
    /// Cost under T_min, ns.
    pub cost_min_ns: f64,
    /// Cost under T_max, ns.
    pub cost_max_ns: f64,
    /// Start under T_min, ns.
    pub start_min_ns: f64,
    /// Finish under T_min, ns.
    pub finish_min_ns: f64,
    /// On the T_min critical path.
    pub critical: bool,
    /// A write of an E3 group: `cost_min_ns` is its cost in the group's visiting order on the
    /// critical path, while `finish_min_ns` is its start plus its first-come cost (when its own
    /// thread goes on; docs/cla.md §5), so `finish_min_ns - start_min_ns` may differ from it.
    pub e3_write: bool,
}

/// One edge in the report.
#[derive(Debug, Clone, Serialize)]
pub struct EdgeRow {
    /// From node.
    pub from: usize,
    /// To node.
    pub to: usize,
    /// E1..E4.
    pub kind: EdgeKind,
    /// On the T_min critical path.
    pub critical: bool,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Program name.
    pub program: String,
    /// Machine name.
    pub machine: String,
    /// The tree, nested form.
    pub tree: String,
    /// Threads with roles and places.
    pub threads: Vec<ThreadInfo>,
    /// Nodes.
    pub nodes: Vec<NodeRow>,
    /// Edges.
    pub edges: Vec<EdgeRow>,
    /// T_min critical path, node ids in order.
    pub critical_path: Vec<usize>,
    /// Time reached at each node of the critical path, ns.
    pub critical_path_finish_ns: Vec<f64>,
    /// Transfers between sockets on the critical path.
    pub qpi_transfers: usize,
    /// T_min, ns.
    pub t_min_ns: f64,
    /// T_max, ns.
    pub t_max_ns: f64,
    /// T_max's longest path.
    pub max_path: Vec<usize>,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Report {
    /// Build the report of a graph and its two analyses.
    pub fn new(
        graph: &ClaGraph,
        machine: &str,
        tree: &str,
        min: &Analysis,
        max: &Analysis,
    ) -> Report {
        let on_path: BTreeSet<usize> = min.path.iter().copied().collect();
        let e3_writes: BTreeSet<usize> = graph
            .groups()
            .into_iter()
            .flat_map(|(_, members)| members)
            .collect();
        let path_edges: BTreeSet<(usize, usize)> =
            min.path.windows(2).map(|w| (w[0], w[1])).collect();
        let nodes = (0..graph.len())
            .map(|i| {
                let n = graph.node(i);
                NodeRow {
                    id: i,
                    thread: n.thread,
                    step: n.step,
                    op: n.text.clone(),
                    source_line: n.source_line,
                    starred: n.starred,
                    cost_min_ns: round3(min.cost[i]),
                    cost_max_ns: round3(max.cost[i]),
                    start_min_ns: round3(min.start[i]),
                    finish_min_ns: round3(min.finish[i]),
                    critical: on_path.contains(&i),
                    e3_write: e3_writes.contains(&i),
                }
            })
            .collect();
        let edges = graph
            .edges()
            .into_iter()
            .map(|(from, to, kind)| EdgeRow {
                from,
                to,
                kind,
                critical: path_edges.contains(&(from, to))
                    || (kind == EdgeKind::E3 && path_edges.contains(&(to, from))),
            })
            .collect();
        Report {
            program: graph.instance.program.clone(),
            machine: machine.to_string(),
            tree: tree.to_string(),
            threads: graph.instance.threads.clone(),
            nodes,
            edges,
            critical_path: min.path.clone(),
            critical_path_finish_ns: min.path_finish.iter().map(|&t| round3(t)).collect(),
            qpi_transfers: min.qpi_transfers,
            t_min_ns: round3(min.total_ns),
            t_max_ns: round3(max.total_ns),
            max_path: max.path.clone(),
        }
    }

    /// A readable summary: threads and their ops with costs, the critical path, T_min, T_max.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} on {}, tree {} ({} threads)",
            self.program,
            self.machine,
            self.tree,
            self.threads.len()
        );
        let _ = writeln!(
            out,
            "  t_min  {:>10.3} ns   (critical path, best reordering of E3 writes)",
            self.t_min_ns
        );
        let _ = writeln!(out, "  t_max  {:>10.3} ns   (line stealing)", self.t_max_ns);
        let _ = writeln!(
            out,
            "  QPI transfers on the critical path: {}",
            self.qpi_transfers
        );
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "operations, ns: `>` on the T_min critical path, `*` free by rule 3 (same line as the \
             thread's previous op)"
        );
        if self.nodes.iter().any(|n| n.e3_write) {
            let _ = writeln!(
                out,
                "E3 writes: their T_min cost is the cost in the visiting order of the critical \
                 path; their T_min finish is start + first-come cost (when the writer goes on)"
            );
        }
        let _ = writeln!(
            out,
            "    {:<5} {:<34} {:>10}     {:>10} {:>12}",
            "node", "operation", "T_min cost", "T_max cost", "T_min finish"
        );
        for t in &self.threads {
            let _ = writeln!(
                out,
                "thread {} ({}, socket {} core {}{})",
                t.id,
                t.role.name(),
                t.place.socket,
                t.place.core,
                t.parent.map_or(String::new(), |p| format!(", parent {p}"))
            );
            for n in self.nodes.iter().filter(|n| n.thread == t.id) {
                let note = if n.e3_write {
                    format!(
                        "  (E3 write: first-come cost {:.3})",
                        n.finish_min_ns - n.start_min_ns
                    )
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "  {} {:<5} {:<34} {:>10.3}{}{} {:>10.3} {:>12.3}{note}",
                    if n.critical { '>' } else { ' ' },
                    format!("n{}", n.id),
                    n.op,
                    n.cost_min_ns,
                    if n.starred { '*' } else { ' ' },
                    if n.e3_write { " E3" } else { "   " },
                    n.cost_max_ns,
                    n.finish_min_ns
                );
            }
        }
        let _ = writeln!(out);
        let mut counts = [0usize; 4];
        for e in &self.edges {
            counts[e.kind as usize] += 1;
        }
        let _ = writeln!(
            out,
            "edges: {} E1, {} E2, {} E3, {} E4",
            counts[0], counts[1], counts[2], counts[3]
        );
        let _ = writeln!(out, "critical path (T_min):");
        for (k, &i) in self.critical_path.iter().enumerate() {
            let n = &self.nodes[i];
            let at = self
                .critical_path_finish_ns
                .get(k)
                .copied()
                .unwrap_or(n.finish_min_ns);
            let _ = writeln!(
                out,
                "  t{} {:<34} +{:>8.3} = {:>9.3} ns",
                n.thread, n.op, n.cost_min_ns, at
            );
        }
        out
    }

    /// Graphviz DOT: one cluster per thread; E1 dotted, E2 solid, E3 undirected, E4 dotted
    /// undirected; the critical path drawn thick and its nodes with dotted outlines (as in
    /// seed 001 Figure 2).
    pub fn to_dot(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "digraph cla {{");
        let _ = writeln!(
            out,
            "  label=\"{} on {}, tree {}: T_min = {:.3} ns, T_max = {:.3} ns\";",
            escape(&self.program),
            escape(&self.machine),
            escape(&self.tree),
            self.t_min_ns,
            self.t_max_ns
        );
        let _ = writeln!(out, "  node [shape=ellipse, fontname=\"Helvetica\"];");
        for t in &self.threads {
            let _ = writeln!(out, "  subgraph cluster_t{} {{", t.id);
            let _ = writeln!(
                out,
                "    label=\"t{} ({}, socket {})\";",
                t.id,
                t.role.name(),
                t.place.socket
            );
            for n in self.nodes.iter().filter(|n| n.thread == t.id) {
                let cost = if n.starred && n.cost_min_ns == 0.0 {
                    "*".to_string()
                } else {
                    format!("{:.1}", n.cost_min_ns)
                };
                let style = if n.critical {
                    ", style=\"dotted,bold\", penwidth=2"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "    n{} [label=\"{}\\n{}\"{}];",
                    n.id,
                    escape(&n.op),
                    cost,
                    style
                );
            }
            let _ = writeln!(out, "  }}");
        }
        for e in &self.edges {
            let mut attrs: Vec<&str> = match e.kind {
                EdgeKind::E1 => vec!["style=dotted"],
                EdgeKind::E2 => vec!["style=solid"],
                EdgeKind::E3 => vec!["dir=none", "color=blue", "label=\"E3\""],
                EdgeKind::E4 => vec!["dir=none", "style=dotted", "color=gray", "label=\"E4\""],
            };
            if e.critical {
                attrs.push("penwidth=3");
                attrs.push("color=red");
            }
            let _ = writeln!(out, "  n{} -> n{} [{}];", e.from, e.to, attrs.join(", "));
        }
        let _ = writeln!(out, "}}");
        out
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
