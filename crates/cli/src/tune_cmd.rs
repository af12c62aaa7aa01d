//! The tuning commands (`bcast`, `barrier`, `reduce`, `allreduce`, ...): rank every algorithm the
//! machine models for the collective and print the best configuration, the alternatives and why.

use crate::args::{Format, TuneArgs};
use crate::job::load_machine;
use crate::output::{write_file, Outputs};
use modelopt_model::{Collective, Machine, Metric};
use modelopt_optimizer::report::round3;
use modelopt_optimizer::{Report, TuneJob};
use std::fmt::Write as _;

/// Run a tuning command and return its output text: the library's checked job
/// ([`TuneJob`]) does the checks and the tuning; this renders its report.
pub fn run(collective: Collective, args: &TuneArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine.machine)?;
    let job = TuneJob::builder(&machine, collective, args.threads.into())
        .size(args.size)
        .state(args.state)
        .metric(args.metric)
        .search_options(args.search.options(args.top, Some(&args.trees)))
        .top(args.top)
        .algorithm(args.algorithm.clone())
        .extrapolate(args.extrapolate)
        .build()
        .map_err(crate::job::job_error)?;
    if let Some(path) = &args.output.out {
        Outputs::check(path)?;
    }
    let report = job.run().map_err(crate::job::job_error)?;
    if !report.estimated_params.is_empty() {
        eprintln!(
            "note: this result uses estimated parameters (no measurement or source gives them): {} (see `modelopt machines show {}`)",
            report.estimated_params.join(", "),
            machine.name
        );
    }
    let text = match args.output.format {
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        Format::Csv => csv_text(&report)?,
        Format::Text => render_text(&machine, &report),
    };
    if let Some(path) = &args.output.out {
        if path.as_os_str() != "-" {
            write_file(path, text.as_bytes())?;
        }
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

/// A time unit that keeps the numbers readable: (name, nanoseconds per unit).
fn time_unit(largest_ns: f64) -> (&'static str, f64) {
    if largest_ns < 1e5 {
        ("ns", 1.0)
    } else if largest_ns < 1e8 {
        ("µs", 1e3)
    } else {
        ("ms", 1e6)
    }
}

fn in_unit(x: f64, unit: (&'static str, f64)) -> String {
    let v = round3(x) / unit.1;
    match unit.0 {
        "ns" => format!("{v:.1}"),
        _ => format!("{v:.3}"),
    }
}

struct Row {
    algorithm: String,
    params: String,
    min_ns: f64,
    max_ns: f64,
    throughput: Option<f64>,
    vs_best: String,
}

/// A need of memory as `--memory-limit` takes it, rounded up to whole MiB or GiB (`2090M`).
fn memory_flag(bytes: u64) -> String {
    modelopt_optimizer::limits::format_bytes(bytes)
        .replace(" MiB", "M")
        .replace(" GiB", "G")
}

/// When `bytes` is more than this process may use (the host's memory or its container's
/// limit, which `--memory-limit` may not pass), the need said as such: "29 GiB of memory, more
/// than the 23.5 GiB this machine has" (the need rounded up, the machine down: never "24 of
/// 24"); `None` when it fits or the host's memory cannot be read.
fn beyond_this_machine(bytes: u64) -> Option<String> {
    let usable = modelopt_host::memory::usable_bytes().filter(|&usable| bytes > usable)?;
    Some(format!(
        "{} of memory, more than the {:.1} GiB this machine has",
        modelopt_optimizer::limits::format_bytes(bytes),
        (usable as f64 / f64::from(1u32 << 30) * 10.0).floor() / 10.0
    ))
}

fn render_text(machine: &Machine, report: &Report) -> String {
    let mut out = String::new();
    let r = report;
    let size = if r.size_bytes == 0 {
        "one item".to_string()
    } else {
        format!("{} B", r.size_bytes)
    };
    let states = crate::job::buffers_note(std::iter::once(machine), &r.state);
    let metric = if r.metric == Metric::Throughput {
        ", metric throughput"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "{} on {} ({}), {} threads, {size}{states}, objective {}{metric}",
        r.collective, machine.name, machine.origin, r.threads, r.objective,
    );
    let _ = writeln!(out);
    let params = match report.params {
        modelopt_model::Params::None => "(no free parameters)".to_string(),
        ref p => crate::job::params_text(&p.to_string()),
    };
    let unit = time_unit(
        report.t_max_ns.max(
            report
                .alternatives
                .iter()
                .map(|a| a.t_max_ns)
                .fold(0.0, f64::max),
        ),
    );
    let _ = writeln!(out, "best: {} {params}", report.algorithm);
    if report.t_min_ns == report.t_max_ns {
        let _ = writeln!(
            out,
            "  time        {:>12} {}   (the model gives one value, no min-max range)",
            in_unit(report.t_min_ns, unit),
            unit.0
        );
    } else {
        let _ = writeln!(
            out,
            "  t_min       {:>12} {}   (best case, min model)",
            in_unit(report.t_min_ns, unit),
            unit.0
        );
        let _ = writeln!(
            out,
            "  t_max       {:>12} {}   (worst case, max model)",
            in_unit(report.t_max_ns, unit),
            unit.0
        );
    }
    if let Some(t) = report.throughput_bytes_per_s {
        let _ = writeln!(out, "  throughput  {:>12.2} MB/s", t / 1e6);
    }
    if report.exact && !matches!(report.params, modelopt_model::Params::None) {
        let _ = writeln!(
            out,
            "  search      exact (proven optimal over every configuration of the space)"
        );
    }
    if !report.exact {
        let why = report.stopped.map_or_else(
            || "a search did not complete".to_string(),
            |s| s.to_string(),
        );
        let gap = report.gap_percent.map_or_else(String::new, |g| {
            format!("; at most {g:.1}% above the optimum")
        });
        let hint = match report.stopped {
            Some(modelopt_optimizer::StopReason::NoProof { .. }) => {
                "the best found by a heuristic".to_string()
            }
            Some(modelopt_optimizer::StopReason::MemoryLimit { needed: 0, .. }) => {
                "the best found by a heuristic; raise --memory-limit (and --budget) for an exact answer".to_string()
            }
            Some(modelopt_optimizer::StopReason::MemoryLimit { needed, .. }) => {
                match beyond_this_machine(needed) {
                    Some(more) => format!("the best found by a heuristic; its tables alone need {more}"),
                    None => format!(
                        "the best found by a heuristic; a --memory-limit above {} (its tables; the points and budgets it keeps come on top) and a --budget that admits the search may give an exact answer",
                        memory_flag(needed)
                    ),
                }
            }
            // Refused up front: the size that starts the exact search is known, and the
            // memory its tables take when that is over the limit too.
            Some(modelopt_optimizer::StopReason::WorkBudget {
                needed, memory: 0, ..
            }) if needed > 0 => {
                format!("the best found so far; --budget {needed} or more starts the exact search, which may need more to finish")
            }
            Some(modelopt_optimizer::StopReason::WorkBudget { needed, memory, .. })
                if needed > 0 =>
            {
                match beyond_this_machine(memory) {
                    Some(more) => format!(
                        "the best found so far; the exact search needs --budget {needed} or more and {more}"
                    ),
                    None => format!(
                        "the best found so far; --budget {needed} or more with a --memory-limit above {} starts the exact search, which may need more to finish",
                        memory_flag(memory)
                    ),
                }
            }
            // The budget ran out after a sharper pass was refused by the memory limit.
            Some(modelopt_optimizer::StopReason::WorkBudget { memory, .. }) if memory > 0 => {
                match beyond_this_machine(memory) {
                    Some(more) => format!(
                        "the best found so far; raise --budget for an exact answer (the sharper bound needs {more})"
                    ),
                    None => format!(
                        "the best found so far; raise --budget, or --memory-limit above {}, for an exact answer",
                        memory_flag(memory)
                    ),
                }
            }
            _ => "the best found so far; raise --time-limit or --budget for an exact answer"
                .to_string(),
        };
        // A gap of zero proves the score optimal after all (the bound holds for every
        // configuration); only the tie-break by the other bound is left unproven.
        if report.gap_percent.is_some_and(|g| g <= 1e-9) {
            let _ = writeln!(
                out,
                "  search      score optimal: it equals the certified lower bound, so no configuration scores lower; the search stopped early ({why}), so the tie-break among equal scores is not proven"
            );
        } else {
            let _ = writeln!(out, "  note: NOT proven optimal: {why}{gap} ({hint})");
        }
    }
    let _ = writeln!(out);
    let mut rows = vec![Row {
        algorithm: report.algorithm.clone(),
        params: crate::job::params_text(&report.params.to_string()),
        min_ns: report.t_min_ns,
        max_ns: report.t_max_ns,
        throughput: report.throughput_bytes_per_s,
        vs_best: "best".into(),
    }];
    rows.extend(report.alternatives.iter().map(|a| Row {
        algorithm: a.algorithm.clone(),
        params: crate::job::params_text(&a.params.to_string()),
        min_ns: a.t_min_ns,
        max_ns: a.t_max_ns,
        throughput: a.throughput_bytes_per_s,
        vs_best: format!("+{:.1}%", a.worse_by_percent),
    }));
    let wa = rows
        .iter()
        .map(|r| r.algorithm.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(9, crate::job::MAX_COLUMN);
    let wp = rows
        .iter()
        .map(|r| r.params.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(10, crate::job::MAX_COLUMN);
    let with_throughput = rows.iter().any(|r| r.throughput.is_some());
    let t_min = format!("t_min [{}]", unit.0);
    let t_max = format!("t_max [{}]", unit.0);
    let _ = write!(
        out,
        "{:>4}  {:<wa$}  {:<wp$}  {:>13} {:>13}",
        "rank", "algorithm", "parameters", t_min, t_max
    );
    if with_throughput {
        let _ = write!(out, " {:>12}", "[MB/s]");
    }
    let _ = writeln!(out, " {:>9}", "vs best");
    for (i, row) in rows.iter().enumerate() {
        let _ = write!(
            out,
            "{:>4}  {:<wa$}  {:<wp$}  {:>13} {:>13}",
            i + 1,
            row.algorithm,
            row.params,
            in_unit(row.min_ns, unit),
            in_unit(row.max_ns, unit)
        );
        if with_throughput {
            let tp = row
                .throughput
                .map_or("-".to_string(), |t| format!("{:.2}", t / 1e6));
            let _ = write!(out, " {tp:>12}");
        }
        let _ = writeln!(out, " {:>9}", row.vs_best);
    }
    if with_throughput {
        if let Some(note) = machine.family_entry().throughput_note {
            let _ = writeln!(out, "  [MB/s]: {note}");
        }
    }
    let _ = writeln!(out);
    let width = report
        .algorithms
        .iter()
        .map(|a| a.algorithm.chars().count())
        .max()
        .unwrap_or(0)
        .min(crate::job::MAX_COLUMN);
    let _ = writeln!(out, "algorithms:");
    for a in &report.algorithms {
        match (&a.best, &a.skipped) {
            (Some(s), _) => {
                let value = if r.metric == Metric::Throughput {
                    s.throughput_bytes_per_s
                        .map_or(String::new(), |t| format!("{:.2} MB/s", t / 1e6))
                } else {
                    format!("{} {}", in_unit(s.t_min_ns, unit), unit.0)
                };
                let verdict = if s.worse_by_percent == 0.0 && a.algorithm == report.algorithm {
                    "winner".to_string()
                } else {
                    format!("+{:.1}%", s.worse_by_percent)
                };
                let _ = writeln!(
                    out,
                    "  {:<width$}  {:<16} {:>16} {:>9}",
                    a.algorithm,
                    crate::job::params_text(&s.params.to_string()),
                    value,
                    verdict
                );
                let _ = writeln!(out, "  {:<width$}  {}", "", a.summary);
            }
            (None, Some(why)) => {
                let hint = if a.needs_size { " (--size BYTES)" } else { "" };
                let _ = writeln!(
                    out,
                    "  {:<width$}  not applicable: {why}{hint}",
                    a.algorithm
                );
            }
            (None, None) => {}
        }
    }
    if !report.why.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "why (cost terms of the best, {}):", unit.0);
        for t in &report.why {
            let _ = writeln!(
                out,
                "  {:>12} {:>12}   {}",
                in_unit(t.min_ns, unit),
                in_unit(t.max_ns, unit),
                t.label
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memory_need_is_said_as_the_flag_takes_it_or_as_more_than_the_machine_has() {
        // 2,190,666,842 bytes / 2^20 = 2,089.2 MiB, rounded up; 12 GiB exactly from 10 GiB on.
        assert_eq!(memory_flag(2_190_666_842), "2090M");
        assert_eq!(memory_flag(12 << 30), "12G");
        // A byte fits any machine; a need no machine has is said as such where the host's
        // memory can be read (skipped, with why, where it cannot).
        assert_eq!(beyond_this_machine(1), None);
        match modelopt_host::memory::usable_bytes() {
            Some(usable) => {
                let said = beyond_this_machine(usable + 1).unwrap();
                assert!(said.contains("of memory, more than the"), "{said}");
                assert!(said.ends_with("GiB this machine has"), "{said}");
                assert_eq!(beyond_this_machine(usable), None);
            }
            None => eprintln!("skipped: this host's memory cannot be read"),
        }
    }
}
