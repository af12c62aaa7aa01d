//! `modelopt sweep`: every algorithm and its optimal parameters over ranges of threads, sizes and
//! states, as rows (text, CSV, JSON) and a chart.

use super::parse_size_range;
use super::{
    check_plot_path, collect, data_format, ns, rows_csv, rows_json, size_text, skipped_note,
    write_files, SweepDocument,
};
use crate::args::{parse_range, Format, MachineFlag, SearchFlags, TreeFlags};
use crate::job::{check_threads, load_machine, note_estimates};
use anyhow::bail;
use clap::Args;
use modelopt_model::{BufferStates, Collective, Machine, Metric};
use modelopt_optimizer::sweep::{log_sizes, Row, Sweep, SweepStats};
use modelopt_plot::{Chart, Lines};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Flags of `sweep`.
#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub machine: MachineFlag,
    /// Collective(s), comma-separated (bcast, barrier, reduce, ...).
    #[arg(long, short, value_delimiter = ',', required = true)]
    pub collective: Vec<Collective>,
    /// Thread counts, e.g. 2..=240 or 48.
    #[arg(long, short = 'n', value_parser = parse_range, allow_negative_numbers = true)]
    pub threads: (u32, u32),
    /// Message sizes in bytes, swept in powers of two: e.g. 32..=1048576, 1KiB..=1MiB, or one
    /// size; 0 = one small item.
    #[arg(long, default_value = "0", value_parser = parse_size_range, allow_negative_numbers = true)]
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
    #[command(flatten)]
    pub search: SearchFlags,
    #[command(flatten)]
    pub trees: TreeFlags,
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

/// `modelopt sweep`.
pub fn run(args: &SweepArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine.machine)?;
    let (t_lo, t_hi) = args.threads;
    check_threads(&machine, t_lo, args.extrapolate)?;
    check_threads(&machine, t_hi, args.extrapolate)?;
    crate::job::check_metric(&machine, args.metric)?;
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
    sweep.search = args.search.options(1, Some(&args.trees));
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
        objective: args.search.objective.to_string(),
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
        crate::job::buffers_note(std::iter::once(machine), &states.join(",")),
        args.search.objective,
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
    // Only when some best is not proven optimal: how far from the optimum it may be.
    let proofs = rows.iter().any(|r| !r.exact);
    if proofs {
        let _ = write!(out, " {:>10}", "proof");
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
        if proofs {
            let _ = write!(out, " {:>10}", super::proof_text(r));
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
