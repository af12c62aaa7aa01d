//! Raw command-line flags (clap) and their parsing into checked values.
//!
//! As in ripgrep, the CLI works in two stages: clap reads raw flags into these structs (each
//! group of flags declared once and flattened where it is used: [`MachineFlag`],
//! [`SearchFlags`], [`TreeFlags`], [`OutputFlags`]), then [`crate::job`] checks them once against
//! the machine and builds the request and search options every command runs with.

use clap::{Args, Parser, Subcommand, ValueEnum};
use modelopt_model::{BufferStates, DegreeOrdering, Metric, RoundsRule};
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
    Explore(crate::explore::ExploreCommand),
    /// Build the CLa dependency graph of a `.cla` program on a tree: critical path, T_min, T_max.
    Graph(crate::graph_cmd::GraphArgs),
    /// Tuning files for MPI libraries (Open MPI rules, MPICH JSON, UCC tune) from a model.
    Export(crate::export_cmd::ExportArgs),
    /// Execute a collective on this host with pinned threads: measured latencies beside T_min, T_max.
    Run(crate::run_cmd::RunArgs),
    /// Measure candidates over thread counts on this host and score the model's predictions.
    Validate(crate::validate_cmd::ValidateArgs),
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

/// The machine a command works on.
#[derive(Debug, Clone, Args)]
pub struct MachineFlag {
    /// Machine: a bundled name (`modelopt machines`) or the path of a TOML machine file (a
    /// path contains `/` or ends in `.toml`; bundled names never look at the filesystem).
    #[arg(long, short)]
    pub machine: String,
}

/// How the search runs: what it minimizes, the shape of the spaces, pinned parameters, and its
/// limits. Declared once, flattened into every command that searches.
#[derive(Debug, Clone, Args)]
pub struct SearchFlags {
    /// Objective: min (best case), max (worst case) or blend:W.
    #[arg(long, default_value = "min")]
    pub objective: Objective,
    /// Ordering constraint between tree degrees k_i.
    #[arg(long, default_value = "non-increasing")]
    pub ordering: DegreeOrdering,
    /// Rounds rule of the dissemination barrier: paper (r = ceil(log_m n)) or exact.
    #[arg(long, default_value = "paper")]
    pub rounds: RoundsRule,
    /// Pin a parameter, e.g. --fix k=7 or --fix depth=2 (repeatable).
    #[arg(long = "fix", value_parser = parse_fix, allow_negative_numbers = true)]
    pub fix: Vec<(String, i64)>,
    /// Stop a search after this many seconds and report the best found so far, marked not
    /// exact.
    #[arg(long, value_parser = parse_seconds, allow_negative_numbers = true)]
    pub time_limit: Option<std::time::Duration>,
    /// Largest search (candidates or DP states) started without asking; larger ones are
    /// refused up front with their estimated size. A whole number: 100000000 or 1e8.
    #[arg(long, value_parser = parse_budget, allow_negative_numbers = true)]
    pub budget: Option<u64>,
    /// Most memory a search's tables and kept points may take, e.g. 8G or 512M (binary
    /// units; default 2G; at least 1M, at most the machine's or container's memory). A search
    /// that needs more is answered with its best tree and certified gap, saying what it would
    /// need. Sweeps and sensitivity run one search a thread, so no more at once than this
    /// limit fits in that memory (the same answers, fewer at a time; a note says so).
    #[arg(long, value_parser = parse_memory, allow_negative_numbers = true)]
    pub memory_limit: Option<u64>,
}

/// Rooted-tree spaces (the `cla-tree` algorithms of ccNUMA machines).
#[derive(Debug, Clone, Args)]
pub struct TreeFlags {
    /// Root thread of rooted-tree algorithms (cla-tree).
    #[arg(long, allow_negative_numbers = true)]
    pub root: Option<u32>,
    /// Rooted-tree search (cla-tree): auto, exhaustive or dp. Graph-priced trees (barrier,
    /// reduce on ccNUMA machines) have no dp, and exhaustive refuses what it cannot prove.
    #[arg(long = "search", default_value = "auto")]
    pub tree_search: modelopt_optimizer::rooted_trees::TreeSearch,
    /// Where the threads of a rooted-tree broadcast run: by-thread-id (the machine's order,
    /// socket by socket) or optimal (the search also chooses how many threads each socket runs).
    #[arg(long, default_value = "by-thread-id")]
    pub placement: modelopt_model::ThreadPlacement,
}

/// Where and how the result is written.
#[derive(Debug, Clone, Args)]
pub struct OutputFlags {
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write the output to this file (`-` for stdout; regular files are written whole or
    /// not at all, keeping their permissions; devices and FIFOs are written straight to).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Flags of every tuning command.
#[derive(Debug, Clone, Args)]
pub struct TuneArgs {
    #[command(flatten)]
    pub machine: MachineFlag,
    /// Number of participating threads (at least 2).
    #[arg(long, short = 'n', allow_negative_numbers = true)]
    pub threads: u32,
    /// Message size in bytes (suffixes K, KiB, M, MiB accepted); 0 = one small item.
    #[arg(long, default_value = "0", value_parser = parse_size, allow_negative_numbers = true)]
    pub size: u64,
    /// Initial buffer states: E, I, or a sender-receiver pair such as E-I.
    #[arg(long, default_value = "E")]
    pub state: BufferStates,
    /// Metric: latency or throughput.
    #[arg(long, default_value = "latency")]
    pub metric: Metric,
    /// How many ranked configurations to show, the best included.
    #[arg(long, default_value_t = 5, allow_negative_numbers = true)]
    pub top: usize,
    /// Only this algorithm (see the text output for the names).
    #[arg(long)]
    pub algorithm: Option<String>,
    #[command(flatten)]
    pub search: SearchFlags,
    #[command(flatten)]
    pub trees: TreeFlags,
    /// Allow more threads than the machine has (the model extrapolates).
    #[arg(long)]
    pub extrapolate: bool,
    #[command(flatten)]
    pub output: OutputFlags,
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
    #[arg(long, default_value = "2..=60", value_parser = parse_range, allow_negative_numbers = true)]
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
    #[command(flatten)]
    pub search: SearchFlags,
    /// Allow more threads than the machine has.
    #[arg(long)]
    pub extrapolate: bool,
    /// Also write the output to this file (`-` for stdout; see `--out` of the tuning commands).
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

/// A memory limit: bytes, or a number with K, M, G or T ([`modelopt_optimizer::limits::memory_limit_bytes`]).
pub fn parse_memory(s: &str) -> Result<u64, String> {
    modelopt_optimizer::limits::memory_limit_bytes(crate::job::clip(s).as_ref())
        .and_then(modelopt_host::memory::check_limit)
}

/// A work budget: a whole number of units, in digits (`100000000`) or in the exponent form the
/// docs write (`1e10`, `2.5e9`), which must name a whole number no larger than 2⁶⁴ − 1. Worked
/// in integers (digits × 10^(exponent − decimals)), never through a float, so `1e19` is exactly
/// 10¹⁹ and `1.5e0` is refused rather than rounded.
pub fn parse_budget(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let shown = crate::job::clip(s);
    let bad =
        || format!("`{shown}` is not a work budget: give a whole number, e.g. 100000000 or 1e8");
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    if digits(t) {
        return t
            .parse::<u64>()
            .map_err(|_| format!("`{shown}` is past the largest work budget, {}", u64::MAX));
    }
    let (mantissa, exponent) = t.split_once(['e', 'E']).ok_or_else(bad)?;
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let exponent = exponent.strip_prefix('+').unwrap_or(exponent);
    if !(digits(whole) && (fraction.is_empty() || digits(fraction)) && digits(exponent)) {
        return Err(bad());
    }
    let fraction = fraction.trim_end_matches('0');
    let significant = format!("{whole}{fraction}");
    let significant = significant.trim_start_matches('0');
    if significant.is_empty() {
        return Ok(0);
    }
    let too_large = || format!("`{shown}` is past the largest work budget, {}", u64::MAX);
    // More than 20 significant digits, or a power past 10¹⁹, is past 2⁶⁴ − 1 (or a fraction).
    let exponent: usize = exponent.parse().map_err(|_| too_large())?;
    let Some(zeros) = exponent.checked_sub(fraction.len()) else {
        return Err(format!("`{shown}` is not a whole number of work units"));
    };
    if significant.len() + zeros > 20 {
        return Err(too_large());
    }
    let value = significant
        .parse::<u128>()
        .ok()
        .and_then(|v| v.checked_mul(10u128.checked_pow(zeros as u32)?))
        .ok_or_else(too_large)?;
    u64::try_from(value).map_err(|_| too_large())
}

/// Seconds as a positive decimal number, at most a week.
pub fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a number of seconds", crate::job::clip(s)))?;
    modelopt_optimizer::limits::time_limit_seconds(v).map_err(|_| {
        format!(
            "{} s: give a time above 0 and at most {} s (a week)",
            crate::job::compact(v),
            modelopt_optimizer::limits::MAX_TIME_LIMIT_SECONDS
        )
    })
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
    fn budgets() {
        // Digits, and the exponent form worked by hand: 2.5 · 10⁹ = 25 · 10⁸.
        assert_eq!(parse_budget("100000000"), Ok(100_000_000));
        assert_eq!(parse_budget("1e10"), Ok(10_000_000_000));
        assert_eq!(parse_budget("1E3"), Ok(1_000));
        assert_eq!(parse_budget("2.5e9"), Ok(2_500_000_000));
        assert_eq!(parse_budget("1.50e1"), Ok(15));
        assert_eq!(parse_budget("1e+2"), Ok(100));
        assert_eq!(parse_budget("0e99"), Ok(0));
        assert_eq!(parse_budget("0"), Ok(0));
        // 2⁶⁴ − 1 = 18,446,744,073,709,551,615 both ways; 10¹⁹ fits, 10²⁰ and 2⁶⁴ do not.
        assert_eq!(parse_budget("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_budget("1.8446744073709551615e19"), Ok(u64::MAX));
        assert_eq!(parse_budget("1e19"), Ok(10_000_000_000_000_000_000));
        for past in [
            "18446744073709551616",
            "1.8446744073709551616e19",
            "1e20",
            "2e19",
            "1e400",
        ] {
            assert!(
                parse_budget(past).unwrap_err().contains("past the largest"),
                "{past}"
            );
        }
        for fraction in ["1.5e0", "1e-3", "1.25e1"] {
            assert!(parse_budget(fraction).is_err(), "{fraction}");
        }
        for bad in [
            "", "-5", "e5", "1e", ".e3", "1.5", "1e3.0", "1x", "inf", "NaN", " 1 e3",
        ] {
            assert!(parse_budget(bad).is_err(), "{bad:?}");
        }
    }

    proptest::proptest! {
        /// Any text is parsed or refused, never a panic; digits and `MeE` mean what they say
        /// (the value worked in u128 here, M · 10^E, and refused past 2⁶⁴ − 1).
        #[test]
        fn budgets_parse_any_text_and_mean_what_they_say(
            text in "\\PC{0,40}",
            v in proptest::prelude::any::<u64>(),
            m in proptest::prelude::any::<u32>(),
            e in 0u32..=30,
        ) {
            let _ = parse_budget(&text);
            proptest::prop_assert_eq!(parse_budget(&v.to_string()), Ok(v));
            let want = u128::from(m).checked_mul(10u128.pow(e)).and_then(|x| u64::try_from(x).ok());
            proptest::prop_assert_eq!(parse_budget(&format!("{m}e{e}")).ok(), want);
        }
    }

    #[test]
    fn fixes() {
        assert_eq!(parse_fix("k=7"), Ok(("k".into(), 7)));
        assert!(parse_fix("k").is_err());
        assert!(parse_fix("=3").is_err());
        assert!(parse_fix("k=x").is_err());
    }
}
