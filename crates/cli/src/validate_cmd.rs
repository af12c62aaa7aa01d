//! `modelopt validate`: run the candidates of one collective over a range of thread counts on this
//! host and score the machine file's predictions against the measurements.
//!
//! For every thread count n and candidate (the same candidates as `modelopt run`) it reports
//! whether the measured median lies in [T_min, T_max], the error of T_min relative to the median,
//! whether the predicted best candidate is the measured best, and Kendall's τ_b between the two
//! rankings; then the same over the whole sweep. `--plot` draws measured box plots over the
//! predicted band (seed 001 Fig. 3). `docs/run.md` says what a small machine can and cannot show.

use crate::args::{parse_range, MachineFlag};
use crate::job::{check_threads, load_machine};
use crate::run_cmd::HostFlags;
use crate::run_cmd::{
    initial_states_text, ns, render_columns, RunCollective, RunFormat, RunReport, Setup,
};
use anyhow::{bail, Context};
use clap::Args;
use modelopt_collectives::stats::nearest_rank;
use modelopt_plot::{render_boxes, BoxChart, BoxItem, ImageFormat};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Flags of `modelopt validate`.
#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub machine: MachineFlag,
    /// The collective to execute.
    #[arg(long, value_enum, default_value_t = RunCollective::Bcast)]
    pub collective: RunCollective,
    /// Thread counts, e.g. 2..=8 (default: 2 up to the CPUs this process may use).
    #[arg(long, value_parser = parse_range)]
    pub threads: Option<(u32, u32)>,
    /// Trees (bcast, reduce, and barrier on machines that model it as a tree), as for
    /// `modelopt run` [default: optimal,flat,binary,binomial].
    #[arg(long)]
    pub tree: Option<String>,
    /// Dissemination barrier degrees, as for `modelopt run` [default: optimal,all].
    #[arg(long)]
    pub degree: Option<String>,
    /// Timed, checked iterations per candidate and thread count.
    #[arg(long, default_value_t = 300)]
    pub iterations: u64,
    #[command(flatten)]
    pub host: HostFlags,
    /// Allow more threads than the machine file describes (the model extrapolates).
    #[arg(long)]
    pub extrapolate: bool,
    /// Also draw measured box plots over the predicted band into this .svg or .png file.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RunFormat::Text)]
    pub format: RunFormat,
}

/// The whole sweep and its scores.
#[derive(Debug, Clone, Serialize)]
struct Validation {
    machine: String,
    collective: RunCollective,
    runs: Vec<RunReport>,
    summary: Scores,
}

/// Scores of the predictions over the sweep.
#[derive(Debug, Clone, Serialize)]
struct Scores {
    /// Priced (candidate, thread count) pairs.
    priced: usize,
    /// Of those, how many had their measured median inside [T_min, T_max].
    in_band: usize,
    /// Median over the priced pairs of 100·(T_min − median)/median (negative: T_min below).
    tmin_error_median_pct: Option<f64>,
    /// Median of the absolute values of the same.
    tmin_error_median_abs_pct: Option<f64>,
    /// Thread counts where a best could be named on both sides (two or more distinct priced
    /// candidates).
    best_compared: usize,
    /// Of those, how many had the predicted best measured best too.
    best_agrees: usize,
    /// Mean of Kendall's τ_b over the thread counts where it is defined.
    mean_kendall_tau_b: Option<f64>,
}

/// Run `modelopt validate` and return its output.
pub fn run(args: &ValidateArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine.machine)?;
    // Refuse a bad plot name before minutes of measurement.
    let plot_format = args
        .plot
        .as_deref()
        .map(ImageFormat::from_path)
        .transpose()?;
    let mut setup = Setup::new(
        &machine,
        args.collective,
        args.host.cpus.as_deref(),
        args.host.oversubscribe,
        args.iterations,
        args.host.timeout_ms,
        args.host.gap_us,
    )?
    .with_limits(args.host.limits());
    let (lo, hi) = match args.threads {
        Some(range) => range,
        None => (2, u32::try_from(setup.cpus.len()).unwrap_or(u32::MAX)),
    };
    if lo < 2 {
        bail!("--threads {lo}..: a collective needs at least 2 threads");
    }
    if hi < lo {
        bail!(
            "only {} CPU may be used: a collective needs 2 (pass --threads 2 --oversubscribe to share one)",
            setup.cpus.len()
        );
    }
    check_threads(&machine, hi, args.extrapolate)?;
    let specs = setup.candidate_specs(args.tree.as_deref(), args.degree.as_deref())?;
    let heavy = setup.optimal_over_budget(lo, hi, &specs);
    if heavy > 0 {
        // Long work says so before it starts.
        eprintln!(
            "note: validate: at {heavy} of its {} thread counts the optimizer's answer may not be proven optimal within the work budget and the memory limit (its exact search is over one of them, or over a fixed cap that neither raises); each searches until it is proven or the budget is spent (up to ~10 s) before it is measured, and an `optimal` not proven is the best found",
            hi - lo + 1
        );
    }
    let mut runs = Vec::new();
    for n in lo..=hi {
        runs.push(setup.measure(n, &specs)?);
    }
    let validation = Validation {
        machine: machine.name.clone(),
        collective: args.collective,
        summary: score(&runs),
        runs,
    };
    if let (Some(path), Some(format)) = (&args.plot, plot_format) {
        let chart = BoxChart {
            title: format!(
                "{} on this host: measured vs {} model",
                args.collective.name(),
                machine.name
            ),
            ..BoxChart::default()
        };
        let bytes = render_boxes(&box_items(&validation.runs), &chart, format)?;
        crate::output::write_file(path, bytes)
            .with_context(|| format!("--plot {}", path.display()))?;
    }
    let out = match args.format {
        RunFormat::Json => serde_json::to_string_pretty(&validation)? + "\n",
        RunFormat::Text => render_text(&validation),
    };
    // After the sweep, so that a refused sweep stays a one-line error.
    setup.print_warning();
    Ok(out)
}

/// 100·(T_min − median)/median.
fn tmin_error_pct(tmin: f64, median: f64) -> Option<f64> {
    (median > 0.0).then(|| 100.0 * (tmin - median) / median)
}

/// The median by the same nearest-rank rule as the measurements.
fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(nearest_rank(&v, 50.0))
}

fn score(runs: &[RunReport]) -> Scores {
    let mut priced = 0;
    let mut in_band = 0;
    let mut errors = Vec::new();
    let (mut best_compared, mut best_agrees) = (0, 0);
    let mut taus = Vec::new();
    for run in runs {
        for c in &run.candidates {
            if let (Some(tmin), Some(inside)) = (c.predicted_min_ns, c.in_band) {
                priced += 1;
                in_band += usize::from(inside);
                errors.extend(tmin_error_pct(tmin, c.measured.median));
            }
        }
        if let Some(agrees) = best_agrees_at(run) {
            best_compared += 1;
            best_agrees += usize::from(agrees);
        }
        taus.extend(run.kendall_tau_b);
    }
    Scores {
        priced,
        in_band,
        tmin_error_median_pct: median(errors.clone()),
        tmin_error_median_abs_pct: median(errors.iter().map(|e| e.abs()).collect()),
        best_compared,
        best_agrees,
        mean_kendall_tau_b: (!taus.is_empty())
            .then(|| taus.iter().sum::<f64>() / taus.len() as f64),
    }
}

/// Whether the candidate with the least T_min also has the least measured median, among the
/// priced candidates; `None` unless two or more differ in T_min. Ties in T_min: any of the tied
/// candidates being measured best counts as agreement.
fn best_agrees_at(run: &RunReport) -> Option<bool> {
    let priced: Vec<_> = run
        .candidates
        .iter()
        .filter_map(|c| c.predicted_min_ns.map(|p| (p, c.measured.median)))
        .collect();
    if priced.len() < 2 {
        return None;
    }
    let best_pred = priced.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    if priced.iter().all(|p| p.0 == best_pred) {
        return None;
    }
    let best_meas = priced.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    Some(priced.iter().any(|p| p.0 == best_pred && p.1 == best_meas))
}

fn box_items(runs: &[RunReport]) -> Vec<BoxItem> {
    runs.iter()
        .flat_map(|run| {
            run.candidates.iter().map(move |c| BoxItem {
                group: format!("n = {}", run.threads),
                label: c.label.clone(),
                band: c.predicted_min_ns.zip(c.predicted_max_ns),
                min: c.measured.min,
                p5: c.measured.p5,
                p25: c.measured.p25,
                median: c.measured.median,
                p75: c.measured.p75,
                p95: c.measured.p95,
            })
        })
        .collect()
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:+.1} %"))
}

fn render_text(v: &Validation) -> String {
    let mut out = String::new();
    let first = v.runs.first();
    let _ = writeln!(
        out,
        "validate {} on this host against {}: threads {}..={}, {} checked iterations per candidate",
        v.collective.name(),
        v.machine,
        first.map_or(0, |r| r.threads),
        v.runs.last().map_or(0, |r| r.threads),
        first.map_or(0, |r| r.iterations),
    );
    if let Some(r) = first {
        let _ = writeln!(out, "placement: {}", r.placement);
        out.push_str(&initial_states_text(
            r.initial_states_forced_with,
            &r.initial_states,
        ));
    }
    out.push('\n');
    let header = [
        "threads",
        "candidate",
        "T_min",
        "T_max",
        "p5",
        "median",
        "p95",
        "in band",
        "T_min err",
    ];
    let mut rows = Vec::new();
    for run in &v.runs {
        for c in &run.candidates {
            rows.push(vec![
                run.threads.to_string(),
                c.label.clone(),
                ns(c.predicted_min_ns),
                ns(c.predicted_max_ns),
                ns(Some(c.measured.p5)),
                ns(Some(c.measured.median)),
                ns(Some(c.measured.p95)),
                c.in_band
                    .map_or("-".into(), |b| if b { "yes" } else { "no" }.into()),
                pct(c
                    .predicted_min_ns
                    .and_then(|t| tmin_error_pct(t, c.measured.median))),
            ]);
        }
    }
    out.push_str(&render_columns(&header, &rows));
    out.push('\n');
    let header = [
        "threads",
        "predicted best",
        "measured best",
        "agree",
        "Kendall tau_b",
    ];
    let rows: Vec<Vec<String>> = v
        .runs
        .iter()
        .map(|run| {
            let label = |order: Vec<usize>| {
                order
                    .first()
                    .map_or("-".to_string(), |&i| run.candidates[i].label.clone())
            };
            vec![
                run.threads.to_string(),
                label(run.predicted_order()),
                label(run.measured_order()),
                best_agrees_at(run).map_or("-".into(), |a| if a { "yes" } else { "no" }.into()),
                run.kendall_tau_b
                    .map_or_else(|| "-".into(), |t| format!("{t:.3}")),
            ]
        })
        .collect();
    out.push_str(&render_columns(&header, &rows));
    out.push('\n');
    let s = &v.summary;
    let _ = writeln!(
        out,
        "median inside [T_min, T_max]: {} of {} priced candidates",
        s.in_band, s.priced
    );
    let _ = writeln!(
        out,
        "T_min error (T_min − median)/median: median {}, median absolute {}",
        pct(s.tmin_error_median_pct),
        s.tmin_error_median_abs_pct
            .map_or_else(|| "-".into(), |x| format!("{x:.1} %"))
    );
    let _ = writeln!(
        out,
        "predicted best measured best: {} of {} thread counts where the model tells candidates apart",
        s.best_agrees, s.best_compared
    );
    let _ = writeln!(
        out,
        "mean Kendall tau_b: {}",
        s.mean_kendall_tau_b.map_or_else(
            || "n/a (no thread count had two priced candidates that differ)".into(),
            |t| format!("{t:.3}")
        )
    );
    let shared: Vec<String> = v
        .runs
        .iter()
        .filter(|r| r.shared_cpus)
        .map(|r| r.threads.to_string())
        .collect();
    if !shared.is_empty() {
        let _ = writeln!(
            out,
            "note: threads share CPUs at {} threads (--oversubscribe): those latencies measure the scheduler, not the caches",
            shared.join(", ")
        );
    }
    let late: u64 = v
        .runs
        .iter()
        .flat_map(|r| &r.candidates)
        .map(|c| c.late_iterations)
        .sum();
    if late > 0 {
        let _ = writeln!(
            out,
            "note: {late} {} started late (a thread saw the start signal after the start instant; raise --gap-us or free the CPUs)",
            if late == 1 { "iteration" } else { "iterations" }
        );
    }
    if s.best_compared == 0 {
        let _ = writeln!(
            out,
            "note: with these thread counts every candidate is the same job or priced alike; ranks need more threads (see docs/run.md)"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmin_error_and_median() {
        // T_min 90 ns against a 100 ns median: (90 − 100)/100 = −10 %.
        assert_eq!(tmin_error_pct(90.0, 100.0), Some(-10.0));
        assert_eq!(tmin_error_pct(90.0, 0.0), None);
        // Nearest-rank median of 4 values: the 2nd, 2.
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.0));
        assert_eq!(median(vec![]), None);
    }
}
