//! Raw command-line flags (clap) and their parsing into checked values.
//!
//! As in ripgrep, the CLI works in two stages: clap reads raw flags into these structs, then each
//! command checks them against the machine (thread limits, sizes) before running the job.

use anyhow::{bail, Context};
use clap::{Args, Parser, Subcommand, ValueEnum};
use modelopt_model::{BufferStates, DegreeOrdering, Machine, Metric, RoundsRule};
use modelopt_optimizer::Objective;
use std::path::PathBuf;

/// Optimal collective-communication parameters from analytical models of many-core machines.
#[derive(Debug, Parser)]
#[command(name = "modelopt", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Best broadcast: the optimal tree for one item, or the best large-message algorithm (--size).
    Bcast(TuneArgs),
    /// Best barrier (e.g. the dissemination degree m and rounds r).
    Barrier(TuneArgs),
    /// Best reduction (e.g. the optimal small-reduction tree).
    Reduce(TuneArgs),
    /// Best all-reduce algorithm and parameters.
    Allreduce(TuneArgs),
    /// Best all-gather (concatenate-all) algorithm and parameters.
    Allgather(TuneArgs),
    /// Best gather (concatenate-one) algorithm and parameters.
    Gather(TuneArgs),
    /// Best cyclic shift algorithm and parameters.
    Shift(TuneArgs),
    /// Regenerate the optimal-parameter tables of seed 000 Appendix B (B.1, B.2, B.3).
    Tables(TablesArgs),
    /// List the bundled machines, or show one with the source of every number.
    Machines(MachinesArgs),
    /// Design-space explorer: `sweep`, `compare`, `sensitivity`.
    #[command(flatten)]
    Explore(crate::explore_cmd::ExploreCommand),
    /// Build the CLa dependency graph of a `.cla` program on a tree: critical path, T_min, T_max.
    Graph(crate::graph_cmd::GraphArgs),
    /// Measure this host (topology, line transfers, ping-pong, multi-line, contention) into a machine file.
    Calibrate(crate::calibrate_cmd::CalibrateArgs),
}

/// Output formats of the tuning commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A readable table with units.
    Text,
    /// One JSON object (docs/json-schema.md).
    Json,
    /// One CSV row per ranked configuration.
    Csv,
}

/// Flags shared by every tuning command.
#[derive(Debug, Clone, Args)]
pub struct TuneArgs {
    /// Machine: a bundled name (`modelopt machines`) or the path of a TOML machine file.
    #[arg(long, short)]
    pub machine: String,
    /// Number of participating threads (at least 2).
    #[arg(long, short = 'n')]
    pub threads: u32,
    /// Message size in bytes (suffixes K, KiB, M, MiB accepted); 0 = one small item.
    #[arg(long, default_value = "0", value_parser = parse_size)]
    pub size: u64,
    /// Initial buffer states: E, I, or a sender-receiver pair such as E-I.
    #[arg(long, default_value = "E")]
    pub state: BufferStates,
    /// Objective: min (best case), max (worst case) or blend:W.
    #[arg(long, default_value = "min")]
    pub objective: Objective,
    /// Metric: latency or throughput.
    #[arg(long, default_value = "latency")]
    pub metric: Metric,
    /// How many alternatives to show after the best.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Only this algorithm (see the text output for the names).
    #[arg(long)]
    pub algorithm: Option<String>,
    /// Pin a parameter, e.g. --fix k=7 or --fix depth=2 (repeatable).
    #[arg(long = "fix", value_parser = parse_fix)]
    pub fix: Vec<(String, i64)>,
    /// Ordering constraint between tree degrees k_i.
    #[arg(long, default_value = "non-increasing")]
    pub ordering: DegreeOrdering,
    /// Rounds rule of the dissemination barrier: paper (r = ceil(log_m n)) or exact.
    #[arg(long, default_value = "paper")]
    pub rounds: RoundsRule,
    /// Root thread of rooted-tree algorithms (cla-tree).
    #[arg(long)]
    pub root: Option<u32>,
    /// Rooted-tree search (cla-tree): auto, exhaustive or dp.
    #[arg(long = "search", default_value = "auto")]
    pub tree_search: modelopt_model::TreeSearch,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Allow more threads than the machine has (the model extrapolates).
    #[arg(long)]
    pub extrapolate: bool,
    /// Also write the output to this file (written whole or not at all).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Output formats of `tables`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// Markdown tables.
    Markdown,
    /// CSV.
    Csv,
    /// A JSON array.
    Json,
}

/// Which Appendix B table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Which {
    /// All three.
    All,
    /// B.1 small broadcast.
    B1,
    /// B.2 barrier.
    B2,
    /// B.3 small reduction.
    B3,
}

/// Flags of `tables`.
#[derive(Debug, Clone, Args)]
pub struct TablesArgs {
    /// Machine (the published tables are for the Xeon Phi).
    #[arg(long, short, default_value = "xeon-phi")]
    pub machine: String,
    /// Thread range, e.g. 2..=60 (default) or 2..=240.
    #[arg(long, default_value = "2..=60", value_parser = parse_range)]
    pub threads: (u32, u32),
    /// Which table.
    #[arg(long, value_enum, default_value_t = Which::All)]
    pub table: Which,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Markdown)]
    pub format: TableFormat,
    /// Compare each row with the published table (seed 000 Appendix B).
    #[arg(long)]
    pub compare_paper: bool,
    /// Initial buffer states.
    #[arg(long, default_value = "E")]
    pub state: BufferStates,
    /// Objective.
    #[arg(long, default_value = "min")]
    pub objective: Objective,
    /// Ordering constraint between tree degrees.
    #[arg(long, default_value = "non-increasing")]
    pub ordering: DegreeOrdering,
    /// Rounds rule of the barrier.
    #[arg(long, default_value = "paper")]
    pub rounds: RoundsRule,
    /// Allow more threads than the machine has.
    #[arg(long)]
    pub extrapolate: bool,
    /// Also write the output to this file (written whole or not at all).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Flags of `machines`.
#[derive(Debug, Clone, Args)]
pub struct MachinesArgs {
    /// `show NAME` prints one machine.
    #[command(subcommand)]
    pub action: Option<MachinesAction>,
}

/// `machines` actions.
#[derive(Debug, Clone, Subcommand)]
pub enum MachinesAction {
    /// Print one machine with the unit and source of every number.
    Show {
        /// Bundled name or path.
        name: String,
        /// Print the TOML file as it is.
        #[arg(long)]
        raw: bool,
    },
}

/// `NAME=VALUE` with an integer value.
pub fn parse_fix(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE (e.g. k=7)"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{s}` has no parameter name"));
    }
    let value: i64 = value
        .trim()
        .parse()
        .map_err(|_| format!("`{value}` is not an integer"))?;
    Ok((name.to_string(), value))
}

/// A byte count with an optional K/KiB/M/MiB/G/GiB suffix (binary multiples).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size in bytes (e.g. 4096, 8KiB)"))?;
    let mult: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "KiB" | "k" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "unknown size unit `{other}` (use B, KiB, MiB or GiB)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("size `{s}` is too large"))
}

/// `A..=B`, `A..B` or a single number, inclusive bounds.
pub fn parse_range(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("`{s}` is not a range such as 2..=60 or a single number");
    let num = |x: &str| x.trim().parse::<u32>().map_err(|_| bad());
    let (lo, hi) = if let Some((a, b)) = s.split_once("..=") {
        (num(a)?, num(b)?)
    } else if let Some((a, b)) = s.split_once("..") {
        let b = num(b)?;
        (num(a)?, b.checked_sub(1).ok_or_else(bad)?)
    } else {
        let v = num(s)?;
        (v, v)
    };
    if lo > hi {
        return Err(format!("range `{s}` is empty"));
    }
    Ok((lo, hi))
}

/// Load a machine, with the file or name in the error.
pub fn load_machine(name: &str) -> anyhow::Result<Machine> {
    Ok(modelopt_model::machine::load(name)?)
}

/// Check a thread count against the machine (and the models' absolute limit).
pub fn check_threads(machine: &Machine, threads: u32, extrapolate: bool) -> anyhow::Result<()> {
    if threads < 2 {
        bail!("--threads {threads}: a collective needs at least 2 threads");
    }
    if threads > machine.max_threads && !extrapolate {
        bail!(
            "--threads {threads}: {} runs at most {} threads (pass --extrapolate to model more)",
            machine.name,
            machine.max_threads
        );
    }
    if threads > modelopt_model::request::MAX_THREADS {
        bail!(
            "--threads {threads}: modelopt models at most {} threads",
            modelopt_model::request::MAX_THREADS
        );
    }
    Ok(())
}

/// Whether a machine's models depend on initial cache-line states (`--state`).
pub fn has_cache_states(machine: &Machine) -> bool {
    matches!(machine.family.as_str(), "cache-coherent" | "ccnuma")
}

/// `, buffers E` for machines whose models use cache states, nothing otherwise (output headers).
pub fn buffers_note<'m>(mut machines: impl Iterator<Item = &'m Machine>, state: &str) -> String {
    if machines.any(has_cache_states) {
        format!(", buffers {state}")
    } else {
        String::new()
    }
}

/// Tell the user (on stderr) when a machine's numbers include estimates.
pub fn note_estimates(machine: &Machine) {
    let estimated = machine.estimated_params();
    if !estimated.is_empty() {
        let keys: Vec<&str> = estimated.iter().map(|p| p.key.as_str()).collect();
        eprintln!(
            "note: {} uses estimated parameters the seeds do not give: {} (see `modelopt machines show {}`)",
            machine.name,
            keys.join(", "),
            machine.name
        );
    }
}

/// Write `bytes` to `path` whole or not at all: a temporary file in the same folder, renamed.
pub fn write_atomically(path: &std::path::Path, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.write_all(bytes.as_ref())
        .and_then(|()| tmp.flush())
        .with_context(|| format!("cannot write {}", path.display()))?;
    // A temporary file is private (0600); the result is an ordinary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644));
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("8192"), Ok(8192));
        assert_eq!(parse_size("8KiB"), Ok(8192));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert!(parse_size("-1").is_err());
        assert!(parse_size("8 parsecs").is_err());
    }

    #[test]
    fn ranges() {
        assert_eq!(parse_range("2..=60"), Ok((2, 60)));
        assert_eq!(parse_range("2..60"), Ok((2, 59)));
        assert_eq!(parse_range("7"), Ok((7, 7)));
        assert!(parse_range("9..=3").is_err());
        assert!(parse_range("a..=3").is_err());
    }

    #[test]
    fn fixes() {
        assert_eq!(parse_fix("k=7"), Ok(("k".into(), 7)));
        assert!(parse_fix("k").is_err());
        assert!(parse_fix("=3").is_err());
        assert!(parse_fix("k=x").is_err());
    }
}
