//! `modelopt sensitivity`: how sure an optimum is — one-at-a-time parameter ranges that keep it,
//! and Monte Carlo over the machine file's spreads.

use super::{ns, size_text};
use crate::args::{parse_size, Format, MachineFlag, SearchFlags};
use crate::job::{check_threads, load_machine, note_estimates};
use anyhow::bail;
use clap::Args;
use modelopt_model::{BufferStates, Collective, Machine, Metric, Request};
use modelopt_optimizer::sensitivity::{
    Analysis, Limit, MonteCarlo, MonteCarloOptions, ParamRange, RangeOptions,
};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Flags of `sensitivity`.
#[derive(Debug, Clone, Args)]
pub struct SensitivityArgs {
    #[command(flatten)]
    pub machine: MachineFlag,
    /// Collective.
    #[arg(long, short)]
    pub collective: Collective,
    /// Number of threads.
    #[arg(long, short = 'n', allow_negative_numbers = true)]
    pub threads: u32,
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
    /// Monte Carlo samples (0: skip the Monte Carlo analysis).
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true)]
    pub samples: usize,
    /// Seed of the Monte Carlo draws (same seed, same answer).
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,
    /// Smallest factor of each value scanned for the one-at-a-time ranges.
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true)]
    pub min_factor: f64,
    /// Largest factor scanned.
    #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
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
pub fn run(args: &SensitivityArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine.machine)?;
    check_threads(&machine, args.threads, args.extrapolate)?;
    crate::job::check_metric(&machine, args.metric)?;
    if args.samples > 10_000_000 {
        bail!("--samples {}: at most 10000000", args.samples);
    }
    let scan = RangeOptions {
        min_factor: args.min_factor,
        max_factor: args.max_factor,
        ..RangeOptions::default()
    };
    if !(args.min_factor > 0.0 && args.min_factor < 1.0) {
        bail!(
            "--min-factor {}: must be between 0 and 1",
            crate::job::compact(args.min_factor)
        );
    }
    if !(args.max_factor > 1.0 && args.max_factor <= 1e6) {
        bail!(
            "--max-factor {}: must be above 1 (at most 1e6)",
            crate::job::compact(args.max_factor)
        );
    }
    note_estimates(&machine);
    let request = Request::new(args.collective, args.threads)?
        .with_size(args.size)?
        .with_state(args.state)
        .with_metric(args.metric);
    let search = args.search.options(1, None);
    crate::job::note_searches_at_once("sensitivity", &search);
    let analysis = Analysis::new(&machine, request, search)
        .map_err(|e| anyhow::anyhow!("{} on {}: {e}", args.collective, machine.name))?;
    let keys: Vec<&str> = args.params.iter().map(String::as_str).collect();
    if analysis.tunings_run_to_budget() {
        // Long work says so before it starts.
        let tunings = analysis
            .range_tunings(keys.len(), &scan)
            .saturating_add(args.samples as u64);
        eprintln!(
            "note: sensitivity tunes this request up to {tunings} more times, and no tuning can be proven optimal within the work budget of {} (its exact search is over it, or over a fixed cap that no budget raises; it searches until the budget is spent, up to ~10 s at the default budget); {}",
            args.search.limits().work_budget,
            match args.search.time_limit {
                Some(t) => format!("the analysis stops after {} s", t.as_secs_f64()),
                None => "--time-limit SECONDS bounds the whole analysis".into(),
            }
        );
    }
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
        objective: args.search.objective.to_string(),
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
        if path.as_os_str() != "-" {
            crate::output::write_file(path, text.as_bytes())?;
        }
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
        Limit::Stopped { .. } => "time limit (not scanned further)".into(),
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
        crate::job::buffers_note(std::iter::once(machine), &args.state.to_string()),
        args.search.objective,
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
        "  {:<22} {:>9} {:<4} {:>32} {:>18}   {:<34} above the range",
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
                // An end the scan reached without the choice changing is marked "scan end":
                // the true range goes on beyond it.
                let end = |e: &modelopt_optimizer::sensitivity::Edge| {
                    if e.limit == Limit::ScanEnd {
                        format!("{} (scan end)", short_number(e.value))
                    } else {
                        short_number(e.value)
                    }
                };
                (
                    if a.limit == Limit::ScanEnd && b.limit == Limit::ScanEnd {
                        format!(
                            "whole scan, {} to {}",
                            short_number(a.value),
                            short_number(b.value)
                        )
                    } else {
                        format!("{} to {}", end(a), end(b))
                    },
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
            "  {:<22} {:>9} {:<4} {:>32} {:>18}   {:<34} {}",
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
        if let Some(reason) = &mc.stopped {
            let _ = writeln!(
                out,
                "  note: {reason}: sampling stopped after {} of the {} samples asked for (raise --time-limit for more)",
                mc.samples, args.samples
            );
        }
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
