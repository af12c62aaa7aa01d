//! `modelopt tables`: regenerate seed 000 Appendix B (B.1 small broadcast, B.2 barrier, B.3 small
//! reduction) from the formulas, optionally side by side with the published rows.

use crate::args::{TableFormat, TablesArgs, Which};
use crate::job::{check_threads, load_machine, note_estimates};
use crate::paper::{appendix_b, lookup};
use anyhow::anyhow;
use modelopt_model::{Algorithm, Collective, Machine, Params, Request};
use modelopt_optimizer::objective::score_key;
use modelopt_optimizer::report::{round3, worse_by_percent};
use modelopt_optimizer::{rank_until, Deadline, Objective, Progress, Report, Tuning};
use serde::Serialize;
use std::fmt::Write as _;

/// The three tables: (id, title, collective, algorithm name).
pub const TABLES: [(&str, &str, Collective, &str); 3] = [
    (
        "B.1",
        "Small broadcast (Eq. B.1)",
        Collective::Bcast,
        "small-tree",
    ),
    (
        "B.2",
        "Barrier synchronization (Eq. B.2)",
        Collective::Barrier,
        "dissemination",
    ),
    (
        "B.3",
        "Small reduction (Eq. B.3)",
        Collective::Reduce,
        "small-tree",
    ),
];

/// One row of a regenerated table.
#[derive(Debug, Clone, Serialize)]
pub struct TableRow {
    /// Table id.
    pub table: &'static str,
    /// Our optimum, in the JSON schema.
    #[serde(flatten)]
    pub report: Report,
    /// The published row, priced under our model (with --compare-paper).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper: Option<PaperComparison>,
}

/// A published row priced under our model.
#[derive(Debug, Clone, Serialize)]
pub struct PaperComparison {
    /// The published parameters.
    pub params: Params,
    /// Their best-case cost under our model, ns.
    pub t_min_ns: f64,
    /// Their worst-case cost under our model, ns.
    pub t_max_ns: f64,
    /// agree (same parameters), tie (same cost, other parameters), differs.
    pub verdict: &'static str,
    /// How much worse the published choice is under our model, in percent of ours.
    pub margin_percent: f64,
    /// Transcription note.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// Above this many points, `tables` says before it starts how many it will price.
const LONG_TABLE_POINTS: u64 = 10_000;

/// Say on stderr that the time limit cut the table short.
fn stopped(deadline: Deadline, done: u64, total: u64) {
    eprintln!(
        "note: {}: the table has the {done} of {total} rows finished by then",
        deadline.reason()
    );
}

/// Compute the rows.
pub fn compute(args: &TablesArgs, machine: &Machine) -> anyhow::Result<Vec<TableRow>> {
    let paper = if args.compare_paper {
        Some(appendix_b()?)
    } else {
        None
    };
    // One deadline and one progress bar for the whole command (the points report nothing of
    // their own): a time limit bounds the table, not each row.
    let mut options = args.search.options(1, None);
    let bar = std::mem::replace(&mut options.progress, Progress::none());
    let deadline = options.limits.deadline();
    let selected = |id: &str| match args.table {
        Which::All => true,
        Which::B1 => id == "B.1",
        Which::B2 => id == "B.2",
        Which::B3 => id == "B.3",
    };
    let tables = TABLES.iter().filter(|t| selected(t.0)).count() as u64;
    let total = tables * u64::from(args.threads.1 - args.threads.0 + 1);
    if total > LONG_TABLE_POINTS {
        eprintln!(
            "note: tables prices {total} points (each an exact search){}",
            match options.limits.time_limit {
                Some(t) => format!(
                    "; it stops after {} s with the rows finished by then",
                    t.as_secs_f64()
                ),
                None => "; --time-limit SECONDS bounds it".to_string(),
            }
        );
    }
    bar.begin("tables: points", Some(total));
    let mut rows = Vec::new();
    let mut done = 0u64;
    'tables: for (id, _, collective, name) in TABLES {
        if !selected(id) {
            continue;
        }
        let algorithms = machine.algorithms_for(collective);
        let algorithm = algorithms
            .iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                anyhow!(
                    "{} has no `{name}` {collective} model (table {id})",
                    machine.name
                )
            })?;
        for n in args.threads.0..=args.threads.1 {
            if deadline.passed() {
                stopped(deadline, done, total);
                break 'tables;
            }
            let request = Request::new(collective, n)?.with_state(args.state);
            let ranked = rank_until(algorithm.as_ref(), &request, &options, deadline)
                .map_err(|e| anyhow!("table {id}, {n} threads: {e}"))?;
            if !ranked.exact() {
                // The time limit passed inside this point: only finished rows are printed.
                stopped(deadline, done, total);
                break 'tables;
            }
            let best = ranked
                .best
                .first()
                .ok_or_else(|| anyhow!("table {id}, {n} threads: no feasible configuration"))?
                .clone();
            let tuning = Tuning {
                request: request.clone(),
                ranking: vec![modelopt_optimizer::Choice {
                    algorithm: name.to_string(),
                    scored: best.clone(),
                }],
                algorithms: Vec::new(),
                why: Vec::new(),
            };
            let report = Report::new(&machine.name, &tuning, &args.search.objective, 0)
                .ok_or_else(|| anyhow!("table {id}, {n} threads: empty result"))?;
            let paper = paper
                .as_ref()
                .and_then(|rows| lookup(rows, id, n))
                .map(|row| {
                    compare(
                        algorithm.as_ref(),
                        &request,
                        &args.search.objective,
                        &best,
                        row,
                    )
                })
                .transpose()?;
            rows.push(TableRow {
                table: id,
                report,
                paper,
            });
            done += 1;
            bar.advance(1);
        }
    }
    bar.finish();
    Ok(rows)
}

fn compare(
    algorithm: &dyn Algorithm,
    request: &Request,
    objective: &Objective,
    ours: &modelopt_optimizer::Scored,
    row: &crate::paper::PaperRow,
) -> anyhow::Result<PaperComparison> {
    let cost = algorithm
        .cost(request, &row.params)
        .map_err(|e| anyhow!("published row {} n={}: {e}", row.table, row.threads))?;
    let score = objective.score(&cost, request.metric()).unwrap_or(f64::NAN);
    let verdict = if row.params == ours.params {
        "agree"
    } else if score_key(score) == score_key(ours.score) {
        "tie"
    } else {
        "differs"
    };
    Ok(PaperComparison {
        params: row.params.clone(),
        t_min_ns: round3(cost.min_ns),
        t_max_ns: round3(cost.max_ns),
        verdict,
        margin_percent: worse_by_percent(score, ours.score),
        note: row.note.clone(),
    })
}

/// Run `tables` and return its output.
pub fn run(args: &TablesArgs) -> anyhow::Result<String> {
    let machine = load_machine(&args.machine)?;
    if let Some(path) = &args.out {
        crate::output::Outputs::check(path)?;
    }
    check_threads(&machine, args.threads.0, args.extrapolate)?;
    check_threads(&machine, args.threads.1, args.extrapolate)?;
    note_estimates(&machine);
    if args.compare_paper && machine.name != "xeon-phi" {
        eprintln!(
            "note: the published Appendix B tables are for the Xeon Phi; comparing with {} anyway",
            machine.name
        );
    }
    let rows = compute(args, &machine)?;
    let text = match args.format {
        TableFormat::Json => serde_json::to_string_pretty(&rows)? + "\n",
        TableFormat::Csv => csv_text(&rows)?,
        TableFormat::Markdown => markdown(&machine, args, &rows),
    };
    if let Some(path) = &args.out {
        if path.as_os_str() != "-" {
            crate::output::write_file(path, text.as_bytes())?;
        }
    }
    Ok(text)
}

fn degrees_cells(params: &Params) -> [String; 4] {
    match params {
        Params::Tree { depth, degrees } => {
            let k = |i: usize| degrees.get(i).map_or("-".to_string(), u32::to_string);
            [depth.to_string(), k(0), k(1), k(2)]
        }
        Params::Dissemination { degree, rounds } => [
            degree.to_string(),
            rounds.to_string(),
            String::new(),
            String::new(),
        ],
        other => [
            other.to_string(),
            String::new(),
            String::new(),
            String::new(),
        ],
    }
}

fn csv_text(rows: &[TableRow]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "table",
        "threads",
        "params",
        "t_min_ns",
        "t_max_ns",
        "paper_params",
        "paper_t_min_ns",
        "paper_t_max_ns",
        "verdict",
        "margin_percent",
    ])?;
    for r in rows {
        let p = r.paper.as_ref();
        w.write_record([
            r.table.to_string(),
            r.report.threads.to_string(),
            r.report.params.to_string(),
            r.report.t_min_ns.to_string(),
            r.report.t_max_ns.to_string(),
            p.map(|p| p.params.to_string()).unwrap_or_default(),
            p.map(|p| p.t_min_ns.to_string()).unwrap_or_default(),
            p.map(|p| p.t_max_ns.to_string()).unwrap_or_default(),
            p.map(|p| p.verdict.to_string()).unwrap_or_default(),
            p.map(|p| p.margin_percent.to_string()).unwrap_or_default(),
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

fn markdown(machine: &Machine, args: &TablesArgs, rows: &[TableRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Appendix B regenerated: {}, buffers {}, objective {}, degrees {}, rounds rule {}\n",
        machine.name,
        args.state,
        args.search.objective,
        args.search.ordering,
        match args.search.rounds {
            modelopt_model::RoundsRule::Paper => "paper (r = ceil(log_m n))",
            _ => "exact (r = ceil(log_(m+1) n))",
        }
    );
    for (id, title, _, _) in TABLES {
        let table: Vec<&TableRow> = rows.iter().filter(|r| r.table == id).collect();
        if table.is_empty() {
            continue;
        }
        let _ = writeln!(out, "## Table {id}: {title}\n");
        let barrier = id == "B.2";
        let head = if barrier {
            "| n | m | r | t_min [ns] | t_max [ns] |"
        } else {
            "| n | d | k_1 | k_2 | k_3 | t_min [ns] | t_max [ns] |"
        };
        let sep = if barrier {
            "|---:|---:|---:|---:|---:|"
        } else {
            "|---:|---:|---:|---:|---:|---:|---:|"
        };
        if args.compare_paper {
            let _ = writeln!(
                out,
                "{} paper | paper t_min [ns] | verdict | margin |",
                head
            );
            let _ = writeln!(out, "{}---|---:|---|---:|", sep);
        } else {
            let _ = writeln!(out, "{head}\n{sep}");
        }
        for r in &table {
            let c = degrees_cells(&r.report.params);
            let cells = if barrier {
                format!("{} | {}", c[0], c[1])
            } else {
                c.join(" | ")
            };
            let _ = write!(
                out,
                "| {} | {} | {:.1} | {:.1} |",
                r.report.threads, cells, r.report.t_min_ns, r.report.t_max_ns
            );
            if let Some(p) = &r.paper {
                let note = if p.note.is_empty() {
                    String::new()
                } else {
                    " †".into()
                };
                let margin = if p.verdict == "agree" {
                    String::new()
                } else {
                    format!("+{:.2}%", p.margin_percent)
                };
                let _ = write!(
                    out,
                    " {}{} | {:.1} | {} | {} |",
                    p.params, note, p.t_min_ns, p.verdict, margin
                );
            }
            let _ = writeln!(out);
        }
        if args.compare_paper {
            let count = |v: &str| {
                table
                    .iter()
                    .filter(|r| r.paper.as_ref().is_some_and(|p| p.verdict == v))
                    .count()
            };
            let worst = table
                .iter()
                .filter_map(|r| r.paper.as_ref())
                .map(|p| p.margin_percent)
                .fold(0.0_f64, f64::max);
            let compared = table.iter().filter(|r| r.paper.is_some()).count();
            let _ = writeln!(
                out,
                "\n{id}: {} of {compared} rows agree, {} tie (same cost, other parameters), {} differ; the published choice is at most {worst:.2}% worse under our model.",
                count("agree"),
                count("tie"),
                count("differs"),
            );
            let notes: Vec<String> = table
                .iter()
                .filter_map(|r| {
                    r.paper
                        .as_ref()
                        .filter(|p| !p.note.is_empty())
                        .map(|p| format!("† n = {}: {}", r.report.threads, p.note))
                })
                .collect();
            for n in notes {
                let _ = writeln!(out, "{n}");
            }
        }
        let _ = writeln!(out);
    }
    out
}
