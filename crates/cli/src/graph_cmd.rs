//! `modelopt graph PROGRAM.cla --machine M --tree T`: the CLa graph of a program on a tree, its
//! critical path, T_min and T_max (seed 001 §3), as text or JSON, and optionally Graphviz DOT
//! with the critical path highlighted.

use anyhow::{anyhow, bail};
use modelopt_graph::error::{clip, one_line};
use modelopt_graph::input::{read_text, MAX_INPUT_BYTES};
use modelopt_graph::{analyze, default_places, parse::load, places_on_sockets, Report};
use modelopt_model::ccnuma::tree::{RootedTree, TreeError};
use modelopt_model::ccnuma::Ccnuma;
use std::path::{Path, PathBuf};

/// Output formats of `modelopt graph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    /// Threads, operations with their costs, the critical path.
    Text,
    /// The whole report as one JSON object.
    Json,
}

/// Flags of `modelopt graph`.
#[derive(Debug, Clone, clap::Args)]
pub struct GraphArgs {
    /// The CLa program, a `.cla` file (see models/README.md).
    pub program: PathBuf,
    /// Machine: a bundled ccNUMA machine (e.g. sandy-bridge-e5-2660) or a TOML file.
    #[arg(long, short)]
    pub machine: String,
    /// The tree: nested form such as "0(1(3),2)", a parent array such as "[-1,0,0,1]", or
    /// @FILE to read either form from a regular file of at most 16 MiB (a big tree does not fit
    /// in one argument).
    #[arg(long)]
    pub tree: String,
    /// Number of threads taking part; must equal the tree's node count when given.
    #[arg(long, short = 'n')]
    pub threads: Option<u32>,
    /// Socket of every thread, comma-separated (default: the machine's placement, socket by
    /// socket).
    #[arg(long, value_delimiter = ',')]
    pub sockets: Option<Vec<u32>>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: GraphFormat,
    /// Also write the graph in Graphviz DOT to this file (critical path in bold red).
    #[arg(long)]
    pub dot: Option<PathBuf>,
}

/// The `--tree` argument read: the tree text and how errors name it (the text itself, clipped to
/// a few dozen characters, or the file it came from).
fn tree_text(arg: &str) -> anyhow::Result<(String, String)> {
    match arg.strip_prefix('@') {
        Some(path) => {
            let text = read_text(Path::new(path), MAX_INPUT_BYTES)?;
            Ok((text, format!("tree from {}", one_line(path))))
        }
        None => Ok((arg.to_string(), format!("tree `{}`", clip(arg)))),
    }
}

/// Run the command and return what it prints.
pub fn render(args: &GraphArgs) -> anyhow::Result<String> {
    let program = load(&args.program)?;
    let machine = modelopt_model::machine::load(&args.machine)?;
    let ccnuma: &Ccnuma = machine.model().ok_or_else(|| {
        anyhow!(
            "`{}` is a {} machine; CLa graphs need a ccnuma machine (e.g. sandy-bridge-e5-2660)",
            machine.name,
            machine.family
        )
    })?;
    let (text, named) = tree_text(&args.tree)?;
    let tree = RootedTree::parse(&text).map_err(|e| match (&e, args.tree.strip_prefix('@')) {
        // A syntax error in a tree file: its line and column, not an offset in the file.
        (TreeError::Syntax { column, message }, Some(path)) => {
            let before = &text.as_bytes()[..column.saturating_sub(1).min(text.len())];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            anyhow!(
                "{}:{line}:{}: {message}",
                one_line(path),
                before.len() - start + 1
            )
        }
        _ => anyhow!("{named}: {e}"),
    })?;
    if let Some(n) = args.threads {
        tree.expect_len(n).map_err(|e| anyhow!("{named}: {e}"))?;
    }
    if tree.len() > machine.max_threads as usize {
        bail!(
            "{named} has {} nodes but {} runs at most {} threads",
            tree.len(),
            machine.name,
            machine.max_threads
        );
    }
    let places = match &args.sockets {
        None => default_places(ccnuma, tree.len() as u32),
        Some(sockets) => {
            if sockets.len() != tree.len() {
                bail!(
                    "--sockets gives {} sockets for a tree of {} threads",
                    sockets.len(),
                    tree.len()
                );
            }
            places_on_sockets(ccnuma, sockets)?
        }
    };
    let (graph, min, max) = analyze(&program, &tree, ccnuma, &places)?;
    let report = Report::new(&graph, &machine.name, &tree.nested(), &min, &max);
    if let Some(path) = &args.dot {
        crate::output::write_file(path, report.to_dot())?;
    }
    Ok(match args.format {
        GraphFormat::Text => report.to_text(),
        GraphFormat::Json => {
            let mut s = serde_json::to_string_pretty(&report)?;
            s.push('\n');
            s
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        graph: GraphArgs,
    }

    fn models() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models")
    }

    fn args(extra: &[&str]) -> GraphArgs {
        let bcast = models().join("one-line-bcast.cla");
        let mut argv = vec![
            "modelopt-graph".to_string(),
            bcast.display().to_string(),
            "--machine".into(),
            "sandy-bridge-e5-2660".into(),
        ];
        argv.extend(extra.iter().map(|s| s.to_string()));
        Cli::parse_from(argv).graph
    }

    #[test]
    fn figure_2_as_text_json_and_dot() {
        let text = render(&args(&["--tree", "0(1(3),2)"])).unwrap();
        assert!(text.contains("t_min     461.900 ns"), "{text}");
        let json = render(&args(&["--tree", "0(1(3),2)", "--format", "json"])).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["t_min_ns"], 461.9);
        let dir = tempfile::tempdir().unwrap();
        let dot = dir.path().join("out.dot");
        let a = args(&["--tree", "0(1(3),2)", "--dot", dot.to_str().unwrap()]);
        render(&a).unwrap();
        let written = std::fs::read_to_string(&dot).unwrap();
        assert!(written.contains("penwidth=3"));
    }

    #[test]
    fn clear_errors() {
        let e = |extra: &[&str]| render(&args(extra)).unwrap_err().to_string();
        assert!(e(&["--tree", "0(1(0))"]).contains("appears twice"));
        assert!(e(&["--tree", "0(1,2)", "--threads", "4"]).contains("4 threads"));
        assert!(e(&["--tree", "0(1,2)", "--sockets", "0,1"]).contains("2 sockets for a tree of 3"));
        assert!(e(&["--tree", "0(1,2)", "--sockets", "0,1,5"]).contains("sockets 0..2"));
        let mut wrong = args(&["--tree", "0(1)"]);
        wrong.machine = "xeon-phi".into();
        assert!(render(&wrong)
            .unwrap_err()
            .to_string()
            .contains("ccnuma machine"));
    }
}
