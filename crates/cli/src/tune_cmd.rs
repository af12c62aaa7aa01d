//! The tuning commands (`bcast`, `barrier`, `reduce`, `allreduce`, ...): rank every algorithm the
//! machine models for the collective and print the best configuration, the alternatives and why.

use crate::args::{check_threads, load_machine, note_estimates, Format, TuneArgs};
use anyhow::{anyhow, Context};
use modelopt_model::{Collective, Machine, Metric, Request, SpaceOptions};
use modelopt_optimizer::report::{round3, worse_by_percent};
use modelopt_optimizer::{tune, Report, SearchOptions, Tuning};
use std::fmt::Write as _;

/// Run a tuning command and return its output text.
pub fn run(collective: Collective, args: &TuneArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine)?;
    check_threads(&machine, args.threads, args.extrapolate)?;
    note_estimates(&machine);
    let request = Request::new(collective, args.threads)?
        .with_size(args.size)?
        .with_state(args.state)
        .with_metric(args.metric);
    let options = SearchOptions {
        objective: args.objective,
        top: args.top + 1,
        space: SpaceOptions {
            ordering: args.ordering,
            rounds: args.rounds,
        },
        fixed: args.fix.clone(),
    };
    let tuning = tune(&machine, &request, &options, args.algorithm.as_deref())
        .map_err(|e| anyhow!("{} on {}: {e}", collective, machine.name))?;
    let report = Report::new(&machine.name, &tuning, &args.objective, args.top)
        .context("no configuration was found")?;
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        Format::Csv => csv_text(&report)?,
        Format::Text => render_text(&machine, &tuning, &report, args),
    };
    if let Some(path) = &args.out {
        crate::args::write_atomically(path, &text)?;
    }
    Ok(text)
}

fn csv_text(report: &Report) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "machine",
        "collective",
        "threads",
        "size_bytes",
        "rank",
        "algorithm",
        "params",
        "t_min_ns",
        "t_max_ns",
        "throughput_bytes_per_s",
        "worse_by_percent",
    ])?;
    let best = std::iter::once((
        report.algorithm.clone(),
        report.params.to_string(),
        report.t_min_ns,
        report.t_max_ns,
        report.throughput_bytes_per_s,
        0.0,
    ));
    let rest = report.alternatives.iter().map(|a| {
        (
            a.algorithm.clone(),
            a.params.to_string(),
            a.t_min_ns,
            a.t_max_ns,
            a.throughput_bytes_per_s,
            a.worse_by_percent,
        )
    });
    for (rank, (alg, params, lo, hi, tp, worse)) in best.chain(rest).enumerate() {
        w.write_record([
            report.machine.clone(),
            report.collective.to_string(),
            report.threads.to_string(),
            report.size_bytes.to_string(),
            (rank + 1).to_string(),
            alg,
            params,
            lo.to_string(),
            hi.to_string(),
            tp.map(|t| t.to_string()).unwrap_or_default(),
            worse.to_string(),
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

fn ns(x: f64) -> String {
    format!("{:.1}", round3(x))
}

fn render_text(machine: &Machine, tuning: &Tuning, report: &Report, args: &TuneArgs) -> String {
    let mut out = String::new();
    let r = &tuning.request;
    let size = if r.size_bytes == 0 {
        "one item".to_string()
    } else {
        format!("{} B", r.size_bytes)
    };
    let _ = writeln!(
        out,
        "{} on {} ({}), {} threads, {size}, buffers {}, objective {}{}",
        r.collective,
        machine.name,
        machine.origin,
        r.threads,
        r.state,
        args.objective,
        if r.metric == Metric::Throughput {
            ", metric throughput"
        } else {
            ""
        },
    );
    let _ = writeln!(out);
    let params = match report.params {
        modelopt_model::Params::None => "(no free parameters)".to_string(),
        ref p => p.to_string(),
    };
    let _ = writeln!(out, "best: {} {params}", report.algorithm);
    let _ = writeln!(
        out,
        "  t_min  {:>12} ns   (best case, min model)",
        ns(report.t_min_ns)
    );
    let _ = writeln!(
        out,
        "  t_max  {:>12} ns   (worst case, max model)",
        ns(report.t_max_ns)
    );
    if let Some(t) = report.throughput_bytes_per_s {
        let _ = writeln!(out, "  throughput {:>10.1} MB/s", t / 1e6);
    }
    let _ = writeln!(out);
    let throughput = r.metric == Metric::Throughput;
    let _ = writeln!(
        out,
        "{:>4}  {:<22} {:<26} {:>12} {:>12} {:>10}",
        "rank", "algorithm", "parameters", "t_min [ns]", "t_max [ns]", "vs best"
    );
    let rows = std::iter::once((
        &report.algorithm,
        report.params.to_string(),
        report.t_min_ns,
        report.t_max_ns,
        None,
    ))
    .chain(report.alternatives.iter().map(|a| {
        (
            &a.algorithm,
            a.params.to_string(),
            a.t_min_ns,
            a.t_max_ns,
            Some(a.worse_by_percent),
        )
    }));
    for (i, (alg, params, lo, hi, worse)) in rows.enumerate() {
        let vs = worse.map_or("best".to_string(), |w| format!("+{w:.1}%"));
        let _ = writeln!(
            out,
            "{:>4}  {:<22} {:<26} {:>12} {:>12} {:>10}",
            i + 1,
            alg,
            params,
            ns(lo),
            ns(hi),
            vs
        );
    }
    let _ = writeln!(out);
    let best_score = tuning.best().map(|b| b.scored.score).unwrap_or(0.0);
    let _ = writeln!(out, "algorithms:");
    for a in &tuning.algorithms {
        match (a.best.first(), &a.skipped) {
            (Some(s), _) => {
                let cmp = if throughput {
                    s.cost
                        .throughput_bytes_per_s
                        .map_or(String::new(), |t| format!("{:.1} MB/s", t / 1e6))
                } else {
                    format!("{} ns", ns(s.cost.min_ns))
                };
                let _ = writeln!(
                    out,
                    "  {:<22} best {:<22} {:>16}  {:>9}   {}",
                    a.algorithm,
                    s.params.to_string(),
                    cmp,
                    if s.score == best_score {
                        "winner".to_string()
                    } else {
                        format!("+{:.1}%", worse_by_percent(s.score, best_score))
                    },
                    a.summary
                );
            }
            (None, Some(why)) => {
                let _ = writeln!(out, "  {:<22} not applicable: {why}", a.algorithm);
            }
            (None, None) => {}
        }
    }
    if !tuning.why.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "why (cost terms of the best, ns):");
        for t in &tuning.why {
            let _ = writeln!(
                out,
                "  {:>12} {:>12}   {}",
                ns(t.min_ns),
                ns(t.max_ns),
                t.label
            );
        }
    }
    out
}
