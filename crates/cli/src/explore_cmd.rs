//! The design-space explorer commands: `sweep`, `compare` and `sensitivity`.
//!
//! They are thin, like the other commands: check the flags, build a
//! [`modelopt_optimizer::sweep::Sweep`] or a [`modelopt_optimizer::sensitivity::Analysis`], render
//! the rows as text, JSON or CSV, and write the data (`--out`) and the chart (`--plot`) whole or
//! not at all. A progress bar is shown on stderr only when stderr is a terminal.

use crate::args::{
    check_threads, load_machine, note_estimates, parse_fix, parse_range, parse_size,
    write_atomically, Format,
};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use modelopt_model::{
    BufferStates, Collective, DegreeOrdering, Machine, Metric, Request, RoundsRule, SpaceOptions,
};
use modelopt_optimizer::sensitivity::{
    Analysis, Limit, MonteCarlo, MonteCarloOptions, ParamRange, RangeOptions,
};
use modelopt_optimizer::sweep::{log_sizes, Row, Sweep, SweepStats};
use modelopt_optimizer::{Objective, SearchOptions};
use modelopt_plot::{render, Chart, ImageFormat, Lines};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::IsTerminal;
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
        ExploreCommand::Sweep(a) => run_sweep(a),
        ExploreCommand::Compare(a) => run_compare(a),
        ExploreCommand::Sensitivity(a) => run_sensitivity(a),
    }
}

/// Flags of `sweep`.
#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    /// Machine: a bundled name (`modelopt machines`) or the path of a TOML machine file.
    #[arg(long, short)]
    pub machine: String,
    /// Collective(s), comma-separated (bcast, barrier, reduce, ...).
    #[arg(long, short, value_delimiter = ',', required = true)]
    pub collective: Vec<Collective>,
    /// Thread counts, e.g. 2..=240 or 48.
    #[arg(long, short = 'n', value_parser = parse_range)]
    pub threads: (u32, u32),
    /// Message sizes in bytes, swept in powers of two: e.g. 32..=1048576, 1KiB..=1MiB, or one
    /// size; 0 = one small item.
    #[arg(long, default_value = "0", value_parser = parse_size_range)]
    pub size: (u64, u64),
    /// Initial buffer states, comma-separated (E, I, E-I, ...).
    #[arg(long, value_delimiter = ',', default_value = "E")]
    pub state: Vec<BufferStates>,
    /// Only these algorithms, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    pub algorithm: Vec<String>,
    /// Metric: latency or throughput.
    #[arg(long, default_value = "latency")]
    pub metric: Metric,
    /// Objective: min (best case), max (worst case) or blend:W.
    #[arg(long, default_value = "min")]
    pub objective: Objective,
    /// Pin a parameter, e.g. --fix k=7 (repeatable).
    #[arg(long = "fix", value_parser = parse_fix)]
    pub fix: Vec<(String, i64)>,
    /// Ordering constraint between tree degrees k_i.
    #[arg(long, default_value = "non-increasing")]
    pub ordering: DegreeOrdering,
    /// Rounds rule of the dissemination barrier.
    #[arg(long, default_value = "paper")]
    pub rounds: RoundsRule,
    /// Allow more threads than the machine has (the model extrapolates).
    #[arg(long)]
    pub extrapolate: bool,
    /// Draw the sweep into this file (.svg or .png).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Title of the chart (default: built from the sweep).
    #[arg(long)]
    pub title: Option<String>,
    /// Write the rows to this file (.csv or .json), whole or not at all.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Flags of `compare`.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Machines, comma-separated (bundled names or paths).
    #[arg(long, value_delimiter = ',', required = true)]
    pub machines: Vec<String>,
    /// Collective.
    #[arg(long, short)]
    pub collective: Collective,
    /// Thread counts, e.g. 2..=64 (each machine up to its own limit unless --extrapolate).
    #[arg(long, short = 'n', value_parser = parse_range)]
    pub threads: (u32, u32),
    /// Message size in bytes; 0 = one small item.
    #[arg(long, default_value = "0", value_parser = parse_size)]
    pub size: u64,
    /// Initial buffer states.
    #[arg(long, default_value = "E")]
    pub state: BufferStates,
    /// Metric: latency or throughput.
    #[arg(long, default_value = "latency")]
    pub metric: Metric,
    /// Objective: min, max or blend:W.
    #[arg(long, default_value = "min")]
    pub objective: Objective,
    /// Model thread counts above a machine's limit too.
    #[arg(long)]
    pub extrapolate: bool,
    /// Draw the comparison into this file (.svg or .png).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Title of the chart.
    #[arg(long)]
    pub title: Option<String>,
    /// Write the winners' rows to this file (.csv or .json).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Flags of `sensitivity`.
#[derive(Debug, Clone, Args)]
pub struct SensitivityArgs {
    /// Machine: a bundled name or a path.
    #[arg(long, short)]
    pub machine: String,
    /// Collective.
    #[arg(long, short)]
    pub collective: Collective,
    /// Number of threads.
    #[arg(long, short = 'n')]
    pub threads: u32,
    /// Message size in bytes; 0 = one small item.
    #[arg(long, default_value = "0", value_parser = parse_size)]
    pub size: u64,
    /// Initial buffer states.
    #[arg(long, default_value = "E")]
    pub state: BufferStates,
    /// Metric: latency or throughput.
    #[arg(long, default_value = "latency")]
    pub metric: Metric,
    /// Objective: min, max or blend:W.
    #[arg(long, default_value = "min")]
    pub objective: Objective,
    /// Ordering constraint between tree degrees k_i.
    #[arg(long, default_value = "non-increasing")]
    pub ordering: DegreeOrdering,
    /// Rounds rule of the dissemination barrier.
    #[arg(long, default_value = "paper")]
    pub rounds: RoundsRule,
    /// Monte Carlo samples (0: skip the Monte Carlo analysis).
    #[arg(long, default_value_t = 1000)]
    pub samples: usize,
    /// Seed of the Monte Carlo draws (same seed, same answer).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Smallest factor of each value scanned for the one-at-a-time ranges.
    #[arg(long, default_value_t = 0.1)]
    pub min_factor: f64,
    /// Largest factor scanned.
    #[arg(long, default_value_t = 10.0)]
    pub max_factor: f64,
    /// Only these parameters (keys as in `modelopt machines show`; repeatable). Default: all.
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// List every parameter in the text output, also those the configuration does not use.
    #[arg(long)]
    pub all: bool,
    /// Allow more threads than the machine has.
    #[arg(long)]
    pub extrapolate: bool,
    /// Also write the output to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output format (text or json; csv lists the ranges).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
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
enum DataFormat {
    Csv,
    Json,
}

fn data_format(path: &Path) -> anyhow::Result<DataFormat> {
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
}

fn check_plot_path(path: &Option<PathBuf>) -> anyhow::Result<()> {
    if let Some(p) = path {
        ImageFormat::from_path(p).map_err(|e| anyhow::anyhow!("--plot: {e}"))?;
    }
    Ok(())
}

fn search_options(
    objective: Objective,
    ordering: DegreeOrdering,
    rounds: RoundsRule,
    fix: &[(String, i64)],
) -> SearchOptions {
    SearchOptions {
        objective,
        top: 1,
        space: SpaceOptions {
            ordering,
            rounds,
            ..SpaceOptions::default()
        },
        fixed: fix.to_vec(),
        ..SearchOptions::default()
    }
}

/// Collect a sweep's rows, with a progress bar on a terminal.
fn collect(sweep: &Sweep<'_>, label: &str) -> (Vec<Row>, SweepStats) {
    let total = sweep.points();
    let bar = (std::io::stderr().is_terminal() && total > 1).then(|| {
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg} [{bar:40}] {pos}/{len} points, {elapsed} (eta {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_message(label.to_string());
        bar
    });
    let mut rows_iter = sweep.rows();
    let mut rows = Vec::new();
    while let Some(row) = rows_iter.next() {
        rows.push(row);
        if let Some(bar) = &bar {
            bar.set_position(rows_iter.progress().0);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    (rows, rows_iter.stats())
}

/// Write the chart (`--plot`) and the data (`--out`) of a sweep or comparison, each whole or not
/// at all.
fn write_files(
    doc: &SweepDocument<'_>,
    plot: Option<&Path>,
    chart: &Chart,
    out: Option<(&Path, DataFormat)>,
) -> anyhow::Result<()> {
    if let Some(path) = plot {
        write_plot(path, doc.rows, chart)?;
    }
    if let Some((path, format)) = out {
        let data = match format {
            DataFormat::Csv => rows_csv(doc.rows)?,
            DataFormat::Json => rows_json(doc)?,
        };
        write_atomically(path, data)?;
    }
    Ok(())
}

fn write_plot(path: &Path, rows: &[Row], chart: &Chart) -> anyhow::Result<()> {
    let format = ImageFormat::from_path(path)?;
    let bytes =
        render(rows, chart, format).with_context(|| format!("--plot {}", path.display()))?;
    write_atomically(path, &bytes)
}

/// Rows as CSV, one line each, with a header.
fn rows_csv(rows: &[Row]) -> anyhow::Result<String> {
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
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The JSON document of a sweep or comparison.
#[derive(Debug, Serialize)]
struct SweepDocument<'a> {
    command: &'static str,
    machines: Vec<&'a str>,
    collectives: Vec<Collective>,
    metric: Metric,
    objective: String,
    stats: SweepStats,
    rows: &'a [Row],
}

fn rows_json(doc: &SweepDocument<'_>) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(doc)? + "\n")
}

fn ns(x: f64) -> String {
    format!("{x:.1}")
}

fn size_text(bytes: u64) -> String {
    if bytes == 0 {
        "one item".into()
    } else {
        format!("{bytes} B")
    }
}

fn skipped_note(stats: &SweepStats, limit: Option<u32>) -> String {
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
    if parts.is_empty() {
        String::new()
    } else {
        format!("; skipped: {}", parts.join(", "))
    }
}

/// `modelopt sweep`.
pub fn run_sweep(args: &SweepArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine)?;
    let (t_lo, t_hi) = args.threads;
    check_threads(&machine, t_lo, args.extrapolate)?;
    check_threads(&machine, t_hi, args.extrapolate)?;
    check_plot_path(&args.plot)?;
    let out_format = args.out.as_deref().map(data_format).transpose()?;
    note_estimates(&machine);

    let mut sweep = Sweep::new(
        vec![&machine],
        args.collective.clone(),
        (t_lo..=t_hi).collect(),
    )?;
    sweep.sizes = log_sizes(args.size.0, args.size.1);
    sweep.states = args.state.clone();
    sweep.algorithms = args.algorithm.clone();
    sweep.metric = args.metric;
    sweep.search = search_options(args.objective, args.ordering, args.rounds, &args.fix);
    sweep.extrapolate = args.extrapolate;
    sweep.check()?;

    let (rows, stats) = collect(&sweep, "sweep");
    if rows.is_empty() {
        let hint = if args.metric == Metric::Throughput {
            " (--metric throughput needs a model that predicts throughput; try --metric latency)"
        } else {
            ""
        };
        bail!(
            "no algorithm of {} applies to this sweep{}{hint}",
            machine.name,
            skipped_note(&stats, Some(machine.max_threads))
        );
    }
    let doc = SweepDocument {
        command: "sweep",
        machines: vec![&machine.name],
        collectives: args.collective.clone(),
        metric: args.metric,
        objective: args.objective.to_string(),
        stats,
        rows: &rows,
    };
    let chart = Chart {
        title: args.title.clone(),
        lines: Lines::PerAlgorithm,
        metric: args.metric,
        ..Chart::default()
    };
    write_files(
        &doc,
        args.plot.as_deref(),
        &chart,
        args.out.as_deref().zip(out_format),
    )?;
    Ok(match args.format {
        Format::Json => rows_json(&doc)?,
        Format::Csv => rows_csv(&rows)?,
        Format::Text => sweep_text(&machine, args, &rows, &stats),
    })
}

fn sweep_text(machine: &Machine, args: &SweepArgs, rows: &[Row], stats: &SweepStats) -> String {
    let mut out = String::new();
    let collectives: Vec<String> = args.collective.iter().map(|c| c.to_string()).collect();
    let sizes = if args.size.0 == args.size.1 {
        size_text(args.size.0)
    } else {
        format!("sizes {}..={} B (powers of two)", args.size.0, args.size.1)
    };
    let states: Vec<String> = args.state.iter().map(|s| s.to_string()).collect();
    let _ = writeln!(
        out,
        "sweep: {} on {} ({}), threads {}..={}, {sizes}{}, objective {}, metric {}",
        collectives.join(","),
        machine.name,
        machine.origin,
        args.threads.0,
        args.threads.1,
        crate::args::buffers_note(std::iter::once(machine), &states.join(",")),
        args.objective,
        args.metric
    );
    let _ = writeln!(out);
    let throughput = args.metric == Metric::Throughput;
    let many_collectives = args.collective.len() > 1;
    let many_states = args.state.len() > 1;
    let _ = write!(out, "{:>7} {:>10} ", "threads", "size [B]");
    if many_collectives {
        let _ = write!(out, "{:<10} ", "collective");
    }
    if many_states {
        let _ = write!(out, "{:<6} ", "state");
    }
    let _ = write!(
        out,
        "{:<20} {:<26} {:>12} {:>12}",
        "algorithm", "parameters", "t_min [ns]", "t_max [ns]"
    );
    if throughput {
        let _ = write!(out, " {:>12}", "[MB/s]");
    }
    let _ = writeln!(out, "  best");
    for r in rows {
        let _ = write!(out, "{:>7} {:>10} ", r.threads, r.size_bytes);
        if many_collectives {
            let _ = write!(out, "{:<10} ", r.collective.to_string());
        }
        if many_states {
            let _ = write!(out, "{:<6} ", r.state.to_string());
        }
        let _ = write!(
            out,
            "{:<20} {:<26} {:>12} {:>12}",
            r.algorithm,
            r.params.to_string(),
            ns(r.t_min_ns),
            ns(r.t_max_ns)
        );
        if throughput {
            let tp = r
                .throughput_bytes_per_s
                .map_or("-".to_string(), |t| format!("{:.1}", t / 1e6));
            let _ = write!(out, " {tp:>12}");
        }
        let _ = writeln!(out, "  {}", if r.winner { "*" } else { "" });
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{} rows from {} points (* = best algorithm at that point){}",
        rows.len(),
        stats.points,
        skipped_note(stats, Some(machine.max_threads))
    );
    if let Some(p) = &args.plot {
        let _ = writeln!(out, "chart written to {}", p.display());
    }
    if let Some(p) = &args.out {
        let _ = writeln!(out, "data written to {}", p.display());
    }
    out
}

/// `modelopt compare`.
pub fn run_compare(args: &CompareArgs) -> anyhow::Result<String> {
    let mut machines = Vec::new();
    for name in &args.machines {
        let name = name.trim();
        if name.is_empty() {
            bail!("--machines: empty machine name in the list");
        }
        machines.push(load_machine(name)?);
    }
    // A machine without a model of the collective is left out (with a note), so that a list of
    // machines of different families can be compared on what they have in common.
    let mut left_out = Vec::new();
    machines.retain(|m| {
        let has = m.collectives().contains(&args.collective);
        if !has {
            left_out.push(m.name.clone());
            let models: Vec<String> = m.collectives().iter().map(|c| c.to_string()).collect();
            eprintln!(
                "note: {} has no model for {} (it models: {}); left out",
                m.name,
                args.collective,
                models.join(", ")
            );
        }
        has
    });
    if machines.is_empty() {
        bail!(
            "none of the machines has a model for {} ({})",
            args.collective,
            left_out.join(", ")
        );
    }
    let (t_lo, t_hi) = args.threads;
    for m in &machines {
        check_threads(m, t_lo, args.extrapolate)?;
        if t_hi > m.max_threads && !args.extrapolate {
            eprintln!(
                "note: {} runs at most {} threads; its line stops there (pass --extrapolate to model more)",
                m.name, m.max_threads
            );
        }
    }
    check_threads(&machines[0], t_hi, true)?;
    check_plot_path(&args.plot)?;
    let out_format = args.out.as_deref().map(data_format).transpose()?;
    for m in &machines {
        note_estimates(m);
    }
    let refs: Vec<&Machine> = machines.iter().collect();
    let mut sweep = Sweep::new(refs, vec![args.collective], (t_lo..=t_hi).collect())?;
    sweep.sizes = vec![args.size];
    sweep.states = vec![args.state];
    sweep.metric = args.metric;
    sweep.search = search_options(
        args.objective,
        DegreeOrdering::default(),
        RoundsRule::default(),
        &[],
    );
    sweep.extrapolate = args.extrapolate;
    sweep.check()?;

    let (all, stats) = collect(&sweep, "compare");
    let rows: Vec<Row> = all.into_iter().filter(|r| r.winner).collect();
    if rows.is_empty() {
        bail!(
            "no machine has an algorithm for {} at this size{}",
            args.collective,
            skipped_note(&stats, None)
        );
    }
    let doc = SweepDocument {
        command: "compare",
        machines: machines.iter().map(|m| m.name.as_str()).collect(),
        collectives: vec![args.collective],
        metric: args.metric,
        objective: args.objective.to_string(),
        stats,
        rows: &rows,
    };
    let chart = Chart {
        title: args.title.clone(),
        lines: Lines::Winners,
        metric: args.metric,
        ..Chart::default()
    };
    write_files(
        &doc,
        args.plot.as_deref(),
        &chart,
        args.out.as_deref().zip(out_format),
    )?;
    Ok(match args.format {
        Format::Json => rows_json(&doc)?,
        Format::Csv => rows_csv(&rows)?,
        Format::Text => compare_text(&machines, args, &rows, &stats),
    })
}

fn compare_text(
    machines: &[Machine],
    args: &CompareArgs,
    rows: &[Row],
    stats: &SweepStats,
) -> String {
    let mut out = String::new();
    let throughput = args.metric == Metric::Throughput;
    let _ = writeln!(
        out,
        "compare: {} on {}, threads {}..={}, {}{}, objective {}{}",
        args.collective,
        machines
            .iter()
            .map(|m| m.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        args.threads.0,
        args.threads.1,
        size_text(args.size),
        crate::args::buffers_note(machines.iter(), &args.state.to_string()),
        args.objective,
        if throughput {
            ", metric throughput [MB/s]"
        } else {
            ", best-case latency [ns]"
        }
    );
    let _ = writeln!(out);
    let width = machines
        .iter()
        .map(|m| m.name.len())
        .max()
        .unwrap_or(8)
        .max(12);
    let _ = write!(out, "{:>7}", "threads");
    for m in machines {
        let _ = write!(out, "  {:>width$}", m.name);
    }
    let _ = writeln!(out, "  best");
    for t in args.threads.0..=args.threads.1 {
        let at: Vec<Option<&Row>> = machines
            .iter()
            .map(|m| rows.iter().find(|r| r.threads == t && r.machine == m.name))
            .collect();
        if at.iter().all(Option::is_none) {
            continue;
        }
        let _ = write!(out, "{t:>7}");
        for r in &at {
            let cell = match r {
                Some(r) if throughput => r
                    .throughput_bytes_per_s
                    .map_or("-".to_string(), |v| format!("{:.1}", v / 1e6)),
                Some(r) => ns(r.t_min_ns),
                None => "-".into(),
            };
            let _ = write!(out, "  {cell:>width$}");
        }
        let best = at
            .iter()
            .flatten()
            .min_by(|a, b| a.score.total_cmp(&b.score))
            .map(|r| r.machine.as_str())
            .unwrap_or("-");
        let _ = writeln!(out, "  {best}");
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "best configuration of each machine (where it changes):"
    );
    for m in machines {
        let mut last: Option<(String, String)> = None;
        for r in rows.iter().filter(|r| r.machine == m.name) {
            let now = (r.algorithm.clone(), r.params.to_string());
            if last.as_ref() != Some(&now) {
                let _ = writeln!(
                    out,
                    "  {:<width$} from {:>4} threads: {} {}",
                    m.name, r.threads, now.0, now.1
                );
                last = Some(now);
            }
        }
    }
    let note = skipped_note(stats, None);
    if !note.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", note.trim_start_matches("; "));
    }
    if let Some(p) = &args.plot {
        let _ = writeln!(out, "chart written to {}", p.display());
    }
    if let Some(p) = &args.out {
        let _ = writeln!(out, "data written to {}", p.display());
    }
    out
}

/// The JSON document of `sensitivity`.
#[derive(Debug, Serialize)]
struct SensitivityDocument<'a> {
    machine: &'a str,
    request: &'a Request,
    objective: String,
    chosen: &'a modelopt_optimizer::sensitivity::Chosen,
    scan: RangeOptions,
    ranges: &'a [ParamRange],
    #[serde(skip_serializing_if = "Option::is_none")]
    monte_carlo: Option<&'a MonteCarlo>,
}

/// `modelopt sensitivity`.
pub fn run_sensitivity(args: &SensitivityArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine)?;
    check_threads(&machine, args.threads, args.extrapolate)?;
    if args.samples > 10_000_000 {
        bail!("--samples {}: at most 10000000", args.samples);
    }
    let scan = RangeOptions {
        min_factor: args.min_factor,
        max_factor: args.max_factor,
        ..RangeOptions::default()
    };
    if !(args.min_factor > 0.0 && args.min_factor < 1.0) {
        bail!("--min-factor {}: must be between 0 and 1", args.min_factor);
    }
    if !(args.max_factor > 1.0 && args.max_factor <= 1e6) {
        bail!(
            "--max-factor {}: must be above 1 (at most 1e6)",
            args.max_factor
        );
    }
    note_estimates(&machine);
    let request = Request::new(args.collective, args.threads)?
        .with_size(args.size)?
        .with_state(args.state)
        .with_metric(args.metric);
    let search = search_options(args.objective, args.ordering, args.rounds, &[]);
    let analysis = Analysis::new(&machine, request, search)
        .map_err(|e| anyhow::anyhow!("{} on {}: {e}", args.collective, machine.name))?;
    let keys: Vec<&str> = args.params.iter().map(String::as_str).collect();
    let spinner = std::io::stderr().is_terminal().then(|| {
        let s = indicatif::ProgressBar::new_spinner();
        s.set_message("scanning parameter ranges");
        s.enable_steady_tick(std::time::Duration::from_millis(120));
        s
    });
    let ranges = analysis.ranges(&keys, &scan)?;
    let monte_carlo = if args.samples > 0 {
        if let Some(s) = &spinner {
            s.set_message(format!("Monte Carlo, {} samples", args.samples));
        }
        Some(analysis.monte_carlo(&MonteCarloOptions {
            samples: args.samples,
            seed: args.seed,
            ..MonteCarloOptions::default()
        })?)
    } else {
        None
    };
    if let Some(s) = spinner {
        s.finish_and_clear();
    }
    let doc = SensitivityDocument {
        machine: &machine.name,
        request: analysis.request(),
        objective: args.objective.to_string(),
        chosen: analysis.chosen(),
        scan,
        ranges: &ranges,
        monte_carlo: monte_carlo.as_ref(),
    };
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&doc)? + "\n",
        Format::Csv => ranges_csv(&ranges)?,
        Format::Text => sensitivity_text(&machine, args, &analysis, &ranges, monte_carlo.as_ref()),
    };
    if let Some(path) = &args.out {
        write_atomically(path, &text)?;
    }
    Ok(text)
}

fn ranges_csv(ranges: &[ParamRange]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "key",
        "value",
        "unit",
        "affects_chosen",
        "lower_factor",
        "lower_value",
        "lower_limit",
        "upper_factor",
        "upper_value",
        "upper_limit",
    ])?;
    for r in ranges {
        let side = |e: &Option<modelopt_optimizer::sensitivity::Edge>| match e {
            Some(e) => (
                e.factor.to_string(),
                e.value.to_string(),
                limit_text(&e.limit),
            ),
            None => (String::new(), String::new(), "value is 0".into()),
        };
        let (lf, lv, ll) = side(&r.lower);
        let (uf, uv, ul) = side(&r.upper);
        w.write_record([
            r.key.clone(),
            r.value.to_string(),
            r.unit.clone(),
            r.affects_chosen.to_string(),
            lf,
            lv,
            ll,
            uf,
            uv,
            ul,
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

fn limit_text(limit: &Limit) -> String {
    match limit {
        Limit::ScanEnd => "end of scan".into(),
        Limit::Overtaken { algorithm, params } => format!("then {algorithm} {params}"),
        Limit::Invalid { reason } => {
            // Keep the family's reason, without the file and position prefix or the remark.
            let short = reason.rsplit(": ").next().unwrap_or(reason);
            let short = short.split(" (").next().unwrap_or(short);
            format!("invalid beyond: {short}")
        }
    }
}

fn sensitivity_text(
    machine: &Machine,
    args: &SensitivityArgs,
    analysis: &Analysis<'_>,
    ranges: &[ParamRange],
    mc: Option<&MonteCarlo>,
) -> String {
    let mut out = String::new();
    let chosen = analysis.chosen();
    let _ = writeln!(
        out,
        "sensitivity: {} on {} ({}), {} threads, {}{}, objective {}{}",
        args.collective,
        machine.name,
        machine.origin,
        args.threads,
        size_text(args.size),
        crate::args::buffers_note(std::iter::once(machine), &args.state.to_string()),
        args.objective,
        if args.metric == Metric::Throughput {
            ", metric throughput"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "chosen: {} {}   t_min {} ns, t_max {} ns",
        chosen.algorithm,
        chosen.params,
        ns(chosen.cost.min_ns),
        ns(chosen.cost.max_ns)
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "one at a time: the values of each parameter alone for which the chosen configuration stays optimal"
    );
    let _ = writeln!(
        out,
        "(scanned from {}x to {}x its value, edges to 1e-3 relative)",
        args.min_factor, args.max_factor
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "  {:<22} {:>9} {:<4} {:>22} {:>18}   {:<34} above the range",
        "parameter", "value", "unit", "optimal for values", "(as factors)", "below the range"
    );
    let mut unused = Vec::new();
    for r in ranges {
        let overtaken = [&r.lower, &r.upper]
            .into_iter()
            .flatten()
            .any(|e| matches!(e.limit, Limit::Overtaken { .. }));
        if !args.all && !r.affects_chosen && !overtaken {
            unused.push(r.key.as_str());
            continue;
        }
        let (range, factors, below, above) = match (&r.lower, &r.upper) {
            (Some(lo), Some(hi)) => {
                // A negative value turns the factor range around.
                let (a, b) = if lo.value <= hi.value {
                    (lo, hi)
                } else {
                    (hi, lo)
                };
                let open = |e: &modelopt_optimizer::sensitivity::Edge, sign: &str| {
                    if e.limit == Limit::ScanEnd {
                        sign.to_string()
                    } else {
                        String::new()
                    }
                };
                (
                    format!(
                        "[{}{}, {}{}]",
                        open(a, "≤"),
                        short_number(a.value),
                        open(b, "≥"),
                        short_number(b.value)
                    ),
                    format!(
                        "({}×, {}×)",
                        short_number(lo.factor),
                        short_number(hi.factor)
                    ),
                    limit_text(&a.limit),
                    limit_text(&b.limit),
                )
            }
            _ => (
                "(value 0, not scanned)".to_string(),
                String::new(),
                String::new(),
                String::new(),
            ),
        };
        let _ = writeln!(
            out,
            "  {:<22} {:>9} {:<4} {:>22} {:>18}   {:<34} {}",
            r.key,
            short_number(r.value),
            r.unit,
            range,
            factors,
            below,
            above
        );
    }
    if !unused.is_empty() {
        let _ = writeln!(
            out,
            "  ({} parameters neither enter this configuration's cost nor let another win within the scan: {}; --all lists them)",
            unused.len(),
            compress_keys(&unused)
        );
    }
    if let Some(mc) = mc {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "Monte Carlo: {} samples, seed {}; {} parameters drawn from Normal(value, stdev) (positive values kept positive), {} fixed (no stdev){}",
            mc.samples,
            mc.seed,
            mc.drawn.len(),
            mc.fixed,
            if mc.redraws > 0 {
                format!("; {} draws redone (rejected by the machine file)", mc.redraws)
            } else {
                String::new()
            }
        );
        let unit = if args.metric == Metric::Throughput {
            "ns/B"
        } else {
            "ns"
        };
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "  {:<22} {:<26} {:>10} {:>14} {:>14} {:>12}",
            "algorithm",
            "parameters",
            "P(optimal)",
            format!("mean [{unit}]"),
            format!("worst [{unit}]"),
            "worst regret"
        );
        for c in &mc.candidates {
            let _ = writeln!(
                out,
                "  {:<22} {:<26} {:>9.1}% {:>14} {:>14} {:>11.1}%",
                c.algorithm,
                c.params.to_string(),
                c.p_optimal * 100.0,
                ns(c.mean_score),
                ns(c.worst_score),
                c.worst_regret_percent
            );
        }
        let _ = writeln!(out);
        if let Some(c) = mc.candidates.get(mc.best_in_expectation) {
            let _ = writeln!(
                out,
                "best in expectation:              {} {} (mean {} {unit})",
                c.algorithm,
                c.params,
                ns(c.mean_score)
            );
        }
        if let Some(c) = mc.candidates.get(mc.best_worst_case) {
            let _ = writeln!(
                out,
                "best in the worst case (minimax): {} {} (worst {} {unit})",
                c.algorithm,
                c.params,
                ns(c.worst_score)
            );
        }
    }
    out
}

/// Four significant digits, trailing zeros dropped; scientific notation far from 1.
fn short_number(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e7).contains(&a) {
        return format!("{v:.3e}");
    }
    let decimals = match a {
        a if a >= 1000.0 => 0,
        a if a >= 100.0 => 1,
        a if a >= 10.0 => 2,
        a if a >= 1.0 => 3,
        _ => 4,
    };
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// `reads.same_core.M, reads.same_core.E, ...` → `reads.same_core.{M,E}`-style groups by prefix.
fn compress_keys(keys: &[&str]) -> String {
    let mut groups: Vec<(String, usize)> = Vec::new();
    for k in keys {
        let head = k.split(['.', '[']).next().unwrap_or(k).to_string();
        match groups.iter_mut().find(|(h, _)| *h == head) {
            Some((_, n)) => *n += 1,
            None => groups.push((head, 1)),
        }
    }
    groups
        .iter()
        .map(|(h, n)| {
            if *n == 1 {
                h.clone()
            } else {
                format!("{h}.* ({n})")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
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

    #[test]
    fn keys_compress_by_table() {
        assert_eq!(
            compress_keys(&[
                "reads.a.M",
                "reads.a.E",
                "line.invalid",
                "ping_pong[0].overhead"
            ]),
            "reads.* (2), line, ping_pong"
        );
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(short_number(32.05), "32.05");
        assert_eq!(short_number(5.62), "5.62");
        assert_eq!(short_number(8636.0), "8636");
        assert_eq!(short_number(235.8), "235.8");
        assert_eq!(short_number(0.012157), "0.0122");
        assert_eq!(short_number(-5.5), "-5.5");
        assert_eq!(short_number(0.0), "0");
    }
}
