//! The design-space explorer commands: `sweep`, `compare` and `sensitivity`.
//!
//! They are thin, like the other commands: check the flags, build a
//! [`modelopt_optimizer::sweep::Sweep`] or a [`modelopt_optimizer::sensitivity::Analysis`], render
//! the rows as text, JSON or CSV, and write the data (`--out`) and the chart (`--plot`) whole or
//! not at all. A progress bar is shown on stderr only when stderr is a terminal.

mod compare;
mod sensitivity;
mod sweep;

pub use compare::CompareArgs;
pub use sensitivity::SensitivityArgs;
pub use sweep::SweepArgs;

use crate::args::parse_size;
use crate::output::Outputs;
use anyhow::{bail, Context};
use clap::Subcommand;
use modelopt_model::{Collective, Metric};
use modelopt_optimizer::sweep::{Row, Sweep, SweepStats};
use modelopt_plot::{render, Chart, ImageFormat};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The explorer's subcommands, for flattening into the CLI's command list.
#[derive(Debug, Clone, Subcommand)]
pub enum ExploreCommand {
    /// Evaluate every algorithm and its optimal parameters over ranges of threads and sizes.
    Sweep(SweepArgs),
    /// Put machines side by side for one collective: the best algorithm of each.
    Compare(CompareArgs),
    /// How sure is an optimum: parameter ranges that keep it, and Monte Carlo over spreads.
    Sensitivity(SensitivityArgs),
}

/// Run an explorer command and return its output text.
pub fn run(command: &ExploreCommand) -> anyhow::Result<String> {
    match command {
        ExploreCommand::Sweep(a) => sweep::run(a),
        ExploreCommand::Compare(a) => compare::run(a),
        ExploreCommand::Sensitivity(a) => sensitivity::run(a),
    }
}

/// `A..=B`, `A..B` or one size, each side with an optional K/KiB/M/MiB/G/GiB suffix.
pub fn parse_size_range(s: &str) -> Result<(u64, u64), String> {
    let (lo, hi) = if let Some((a, b)) = s.split_once("..=") {
        (parse_size(a)?, parse_size(b)?)
    } else if let Some((a, b)) = s.split_once("..") {
        let b = parse_size(b)?;
        let b = b
            .checked_sub(1)
            .ok_or_else(|| format!("size range `{s}` is empty"))?;
        (parse_size(a)?, b)
    } else {
        let v = parse_size(s)?;
        (v, v)
    };
    if lo > hi {
        return Err(format!("size range `{s}` is empty"));
    }
    Ok((lo, hi))
}

/// What `--out` writes, by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DataFormat {
    Csv,
    Json,
}

pub(crate) fn data_format(path: &Path) -> anyhow::Result<DataFormat> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("csv") => Ok(DataFormat::Csv),
        Some("json") => Ok(DataFormat::Json),
        _ => bail!("--out {}: use a .csv or .json file name", path.display()),
    }
    .and_then(|format| Outputs::check(path).map(|()| format))
}

pub(crate) fn check_plot_path(path: &Option<PathBuf>) -> anyhow::Result<()> {
    if let Some(p) = path {
        ImageFormat::from_path(p).map_err(|e| anyhow::anyhow!("--plot: {e}"))?;
        Outputs::check(p)?;
    }
    Ok(())
}

/// Above this many points, a sweep says before it starts how many it will tune.
const LONG_SWEEP_POINTS: u64 = 10_000;

/// Collect a sweep's rows, with a progress bar on a terminal.
pub(crate) fn collect(sweep: &Sweep<'_>, label: &str) -> (Vec<Row>, SweepStats) {
    let total = sweep.points();
    let limit = match sweep.search.limits.time_limit {
        Some(t) => format!(
            "; it stops after {} s with the rows finished by then",
            t.as_secs_f64()
        ),
        None => "; --time-limit SECONDS bounds it".to_string(),
    };
    // Long work says so before it starts, also when stderr is not a terminal (no bar): many
    // points, or points whose exact search is over the work budget, the memory limit or a fixed cap (each then searches until
    // the budget is spent, up to ~10 s on the bundled machines, and is answered with a gap, unless
    // a free placement's search by the bounds of its splits proves it first).
    if total > LONG_SWEEP_POINTS {
        eprintln!("note: {label} tunes {total} points{limit}");
    } else if let Some(over) = sweep.points_over_budget().filter(|o| o.points > 0) {
        let count = if over.looked < total {
            format!(
                "at least {} of its {total} points (of the first {} looked at)",
                over.points, over.looked
            )
        } else {
            format!("{} of its {total} points", over.points)
        };
        eprintln!(
            "note: {label}: {count} may not be proven optimal within the work budget of {} and the memory limit of {} (their exact search is over one of them, or over a fixed cap that neither raises; a free placement then searches its splits by their bounds, which may still prove it); each searches until it is proven or the budget is spent (up to ~10 s a point at the default budget), and one not proven is answered NOT proven optimal{limit}",
            sweep.search.limits.work_budget,
            modelopt_optimizer::limits::format_limit(sweep.search.limits.memory_limit)
        );
    }
    if total > 1 {
        crate::job::note_searches_at_once(label, &sweep.search);
    }
    let progress = crate::job::progress();
    progress.begin(label, Some(total));
    let mut rows_iter = sweep.rows();
    let mut rows = Vec::new();
    let mut done = 0;
    while let Some(row) = rows_iter.next() {
        rows.push(row);
        let now = rows_iter.progress().0;
        progress.advance(now.saturating_sub(done));
        done = now;
    }
    progress.finish();
    (rows, rows_iter.stats())
}

/// Write the chart (`--plot`) and the data (`--out`) of a sweep or comparison together: both or
/// neither (see [`crate::output`]).
pub(crate) fn write_files(
    doc: &SweepDocument<'_>,
    plot: Option<&Path>,
    chart: &Chart,
    out: Option<(&Path, DataFormat)>,
) -> anyhow::Result<()> {
    let mut outputs = Outputs::new();
    if let Some(path) = plot {
        let format = ImageFormat::from_path(path)?;
        let bytes = render(doc.rows, chart, format)
            .with_context(|| format!("--plot {}", path.display()))?;
        outputs.add(path, bytes)?;
    }
    if let Some((path, format)) = out {
        let data = match format {
            DataFormat::Csv => rows_csv(doc.rows)?,
            DataFormat::Json => rows_json(doc)?,
        };
        outputs.add(path, data)?;
    }
    outputs.commit()
}

/// Rows as CSV, one line each, with a header.
pub(crate) fn rows_csv(rows: &[Row]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "machine",
        "collective",
        "state",
        "threads",
        "size_bytes",
        "algorithm",
        "params",
        "t_min_ns",
        "t_max_ns",
        "throughput_bytes_per_s",
        "score",
        "winner",
        "exact",
        "gap_percent",
    ])?;
    for r in rows {
        w.write_record([
            r.machine.clone(),
            r.collective.to_string(),
            r.state.to_string(),
            r.threads.to_string(),
            r.size_bytes.to_string(),
            r.algorithm.clone(),
            r.params.to_string(),
            r.t_min_ns.to_string(),
            r.t_max_ns.to_string(),
            r.throughput_bytes_per_s
                .map(|t| t.to_string())
                .unwrap_or_default(),
            format!("{:.6}", r.score),
            r.winner.to_string(),
            r.exact.to_string(),
            r.gap_percent.map(|g| g.to_string()).unwrap_or_default(),
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The JSON document of a sweep or comparison.
#[derive(Debug, Serialize)]
pub(crate) struct SweepDocument<'a> {
    command: &'static str,
    machines: Vec<&'a str>,
    collectives: Vec<Collective>,
    metric: Metric,
    objective: String,
    stats: SweepStats,
    rows: &'a [Row],
}

pub(crate) fn rows_json(doc: &SweepDocument<'_>) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(doc)? + "\n")
}

pub(crate) fn ns(x: f64) -> String {
    format!("{x:.1}")
}

/// A row's proof for the text tables: `exact`, the certified gap of a best that is not proven
/// optimal (`≤ 5.6 %` above the optimum), or `no bound` where its search gives none.
pub(crate) fn proof_text(r: &Row) -> String {
    match (r.exact, r.gap_percent) {
        (true, _) => "exact".into(),
        (false, Some(g)) => format!("≤ {g:.1} %"),
        (false, None) => "no bound".into(),
    }
}

pub(crate) fn size_text(bytes: u64) -> String {
    if bytes == 0 {
        "one item".into()
    } else {
        format!("{bytes} B")
    }
}

pub(crate) fn skipped_note(stats: &SweepStats, limit: Option<u32>) -> String {
    let mut parts = Vec::new();
    if stats.beyond_machine > 0 {
        parts.push(match limit {
            Some(max) => format!(
                "{} beyond the machine's {max} threads (pass --extrapolate to model them)",
                stats.beyond_machine
            ),
            None => format!(
                "{} beyond a machine's thread limit (pass --extrapolate to model them)",
                stats.beyond_machine
            ),
        });
    }
    if stats.not_applicable > 0 {
        parts.push(format!(
            "{} where no algorithm applies (e.g. a size its models do not take)",
            stats.not_applicable
        ));
    }
    if stats.over_budget > 0 {
        parts.push(format!(
            "{} whose search is larger than the work budget (raise --budget)",
            stats.over_budget
        ));
    }
    let skipped = if parts.is_empty() {
        String::new()
    } else {
        format!("; skipped: {}", parts.join(", "))
    };
    // Rows whose best is the best found, not a proven optimum, are said so too.
    let inexact = if stats.not_exact > 0 {
        format!(
            "; {} point(s) NOT proven optimal (a work budget or time limit stopped the search; the proof column gives each one's certified gap, and tuning one point alone the reason)",
            stats.not_exact
        )
    } else {
        String::new()
    };
    format!("{skipped}{inexact}")
}

#[cfg(test)]
mod tests {
    use super::*;

    use clap::Parser;

    /// Parse an explorer command line as the CLI would (`modelopt sweep ...`).
    #[derive(Debug, Parser)]
    struct TestCli {
        #[command(subcommand)]
        command: ExploreCommand,
    }

    fn run_line(line: &str) -> anyhow::Result<String> {
        let words = std::iter::once("modelopt").chain(line.split_whitespace());
        let cli = TestCli::try_parse_from(words)?;
        run(&cli.command)
    }

    #[test]
    fn sweep_prints_rows_and_writes_data_and_chart() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("rows.csv");
        let svg = dir.path().join("chart.svg");
        let png = dir.path().join("chart.png");
        let text = run_line(&format!(
            "sweep --machine xeon-phi --collective barrier --threads 2..=60 --out {} --plot {}",
            csv.display(),
            svg.display()
        ))
        .unwrap();
        assert!(text.contains("59 rows from 59 points"), "{text}");
        assert!(text.contains("m=4 r=3"));
        let data = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(data.lines().count(), 60);
        assert!(data.starts_with("machine,collective,state,threads"));
        assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
        run_line(&format!(
            "sweep --machine xeon-phi --collective bcast --threads 48 --size 32..=1MiB --plot {}",
            png.display()
        ))
        .unwrap();
        assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    }

    #[test]
    fn sweep_formats() {
        let json = run_line("sweep -m xeon-phi -c barrier -n 2..=4 --format json").unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["rows"].as_array().unwrap().len(), 3);
        assert_eq!(v["rows"][0]["params"]["degree"], 1);
        let csv = run_line("sweep -m xeon-phi -c barrier -n 2..=4 --format csv").unwrap();
        assert_eq!(csv.lines().count(), 4);
    }

    #[test]
    fn compare_puts_machines_side_by_side() {
        let text = run_line(
            "compare --machines xeon-phi,sandy-bridge-e5-2670 --collective barrier --threads 2..=40",
        )
        .unwrap();
        assert!(text.contains("xeon-phi") && text.contains("sandy-bridge-e5-2670"));
        // A machine without the collective is left out, not an error.
        let text = run_line("compare --machines xeon-phi,scc -c barrier -n 2..=8").unwrap();
        assert!(!text.contains("scc"), "{text}");
        assert!(run_line("compare --machines scc -c barrier -n 2..=8").is_err());
        let text = run_line(
            "compare --machines xeon-phi,sandy-bridge-e5-2670 --collective barrier --threads 2..=40",
        )
        .unwrap();
        // Sandy Bridge stops at 32 threads; the phi goes on.
        let last = text
            .lines()
            .find(|l| l.trim_start().starts_with("40 "))
            .unwrap();
        assert!(last.contains('-'), "{last}");
    }

    #[test]
    fn sensitivity_is_reproducible() {
        let line = "sensitivity -m xeon-phi -c barrier -n 60 --samples 50 --seed 3 --format json";
        let a = run_line(line).unwrap();
        let b = run_line(line).unwrap();
        assert_eq!(a, b);
        let v: serde_json::Value = serde_json::from_str(&a).unwrap();
        assert_eq!(v["chosen"]["params"]["degree"], 4);
        assert_eq!(v["monte_carlo"]["samples"], 50);
        let text = run_line("sensitivity -m xeon-phi -c barrier -n 60 --samples 20").unwrap();
        assert!(text.contains("line.remote") && text.contains("best in expectation"));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        for line in [
            "sweep -m xeon-phi -c barrier -n 2..=500",
            "sweep -m xeon-phi -c barrier -n 1..=4",
            "sweep -m xeon-phi -c shift -n 2..=4",
            "sweep -m xeon-phi -c bcast -n 2..=4 --algorithm nope",
            "sweep -m xeon-phi -c bcast -n 2..=4 --out rows.txt",
            "sweep -m xeon-phi -c bcast -n 2..=4 --plot chart.pdf",
            "sweep -m xeon-phi -c bcast -n 2..=4 --size 2GiB",
            "sweep -m xeon-phi -c barrier -n 2..=4 --metric throughput",
            "sweep -m no-such-machine -c bcast -n 2..=4",
            "compare --machines xeon-phi, -c barrier -n 2..=4",
            "compare --machines xeon-phi,sandy-bridge-e5-2670 -c barrier -n 40..=50",
            "sensitivity -m xeon-phi -c barrier -n 60 --min-factor 2",
            "sensitivity -m xeon-phi -c barrier -n 60 --param line.nope --samples 0",
            "sensitivity -m xeon-phi -c barrier -n 1",
        ] {
            let err = run_line(line).unwrap_err().to_string();
            assert!(!err.is_empty(), "{line}");
        }
    }

    #[test]
    fn size_ranges() {
        assert_eq!(parse_size_range("32..=1048576"), Ok((32, 1 << 20)));
        assert_eq!(parse_size_range("1KiB..=1MiB"), Ok((1024, 1 << 20)));
        assert_eq!(parse_size_range("4096"), Ok((4096, 4096)));
        assert_eq!(parse_size_range("0..=64"), Ok((0, 64)));
        assert!(parse_size_range("64..=32").is_err());
        assert!(parse_size_range("0..0").is_err());
        assert!(parse_size_range("x..=3").is_err());
    }

    #[test]
    fn out_formats_by_extension() {
        assert_eq!(data_format(Path::new("r.csv")).unwrap(), DataFormat::Csv);
        assert_eq!(data_format(Path::new("r.JSON")).unwrap(), DataFormat::Json);
        assert!(data_format(Path::new("r.txt")).is_err());
    }
}
