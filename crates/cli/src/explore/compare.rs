//! `modelopt compare`: machines side by side for one collective, the best algorithm of each.

use super::{
    check_plot_path, collect, data_format, ns, rows_csv, rows_json, size_text, skipped_note,
    write_files, SweepDocument,
};
use crate::args::{parse_range, parse_size, Format, SearchFlags};
use crate::job::{check_threads, load_machine, note_estimates};
use anyhow::bail;
use clap::Args;
use modelopt_model::{BufferStates, Collective, Machine, Metric};
use modelopt_optimizer::sweep::{Row, Sweep, SweepStats};
use modelopt_plot::{Chart, Lines};
use std::fmt::Write as _;
use std::path::PathBuf;

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
    #[arg(long, short = 'n', value_parser = parse_range, allow_negative_numbers = true)]
    pub threads: (u32, u32),
    /// Message size in bytes; 0 = one small item.
    #[arg(long, default_value = "0", value_parser = parse_size, allow_negative_numbers = true)]
    pub size: u64,
    /// Initial buffer states.
    #[arg(long, default_value = "E")]
    pub state: BufferStates,
    /// Metric: latency or throughput.
    #[arg(long, default_value = "latency")]
    pub metric: Metric,
    #[command(flatten)]
    pub search: SearchFlags,
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

/// `modelopt compare`.
pub fn run(args: &CompareArgs) -> anyhow::Result<String> {
    let mut machines = Vec::new();
    for name in &args.machines {
        let name = name.trim();
        if name.is_empty() {
            bail!("--machines: empty machine name in the list");
        }
        let machine = load_machine(name)?;
        if let Some(same) = machines.iter().find(|m: &&Machine| m.name == machine.name) {
            if same.origin == machine.origin {
                bail!("--machines: {} is listed twice", machine.name);
            }
            bail!(
                "--machines: two machines are named {} ({} and {}); give one of them another `name`",
                machine.name,
                same.origin,
                machine.origin
            );
        }
        machines.push(machine);
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
    sweep.search = args.search.options(1, None);
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
        objective: args.search.objective.to_string(),
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
        crate::job::buffers_note(machines.iter(), &args.state.to_string()),
        args.search.objective,
        if throughput {
            ", metric throughput [MB/s]"
        } else {
            ", best-case latency [ns]"
        }
    );
    let _ = writeln!(out);
    let width = machines
        .iter()
        .map(|m| m.name.chars().count())
        .max()
        .unwrap_or(8)
        .clamp(12, crate::job::MAX_COLUMN);
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
