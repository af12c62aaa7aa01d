//! The stable JSON result schema shared by the CLI, the examples and library users.
//!
//! One object per (machine, collective, threads, size) result; documented field by field in
//! `docs/json-schema.md`. Times are rounded to 1e-3 ns so that the text is stable and readable.

use crate::objective::Objective;
use crate::tuner::{Choice, Tuning};
use modelopt_model::{Collective, Metric, Params, Term};
use serde::Serialize;

/// One result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Machine name.
    pub machine: String,
    /// Collective.
    pub collective: Collective,
    /// The winning algorithm.
    pub algorithm: String,
    /// Thread count.
    pub threads: u32,
    /// Message size in bytes (0: one small item).
    pub size_bytes: u64,
    /// latency or throughput.
    pub metric: Metric,
    /// min, max or blend:W.
    pub objective: String,
    /// Initial buffer states (cache-coherent machines).
    pub state: String,
    /// The winning parameters.
    pub params: Params,
    /// Best-case latency, ns.
    pub t_min_ns: f64,
    /// Worst-case latency, ns.
    pub t_max_ns: f64,
    /// Throughput in bytes/s, where the model gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_bytes_per_s: Option<f64>,
    /// The next best configurations, best first.
    pub alternatives: Vec<Alternative>,
    /// Whether the result is proven optimal under the model: every algorithm's search completed
    /// (no time limit or work budget stopped one).
    pub exact: bool,
    /// Why a search stopped early, when one did (`exact` is then false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<crate::limits::StopReason>,
    /// For a result that is not exact: the relative gap between its score and a certified lower
    /// bound on the optimum's, in percent, when the search can certify one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap_percent: Option<f64>,
    /// Present and `true` when the winner comes from a search that did not prove it optimal
    /// (kept for readers of older output; `exact` says the same for the whole ranking).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub heuristic: bool,
    /// The machine parameters marked `estimated` that the winner's cost depends on (filled by the
    /// caller, e.g. with `modelopt_model::perturb::params_used`); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub estimated_params: Vec<String>,
    /// Every algorithm considered, in the family's order: its best configuration, or why it
    /// does not apply. Absent when the result comes from a single algorithm's search.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub algorithms: Vec<AlgorithmLine>,
    /// The winner's cost broken into the model's terms (ns, rounded to 1e-3), where the model
    /// gives them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<Term>,
}

/// One algorithm of a tuning: its best configuration or why it does not apply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlgorithmLine {
    /// Algorithm name.
    pub algorithm: String,
    /// What it is and where its model comes from.
    pub summary: String,
    /// Its best configuration, when it applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best: Option<Alternative>,
    /// Why it does not apply, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Present (and `true`) when it would apply with a message size.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub needs_size: bool,
}

/// A ranked alternative.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alternative {
    /// Algorithm.
    pub algorithm: String,
    /// Parameters.
    pub params: Params,
    /// Best-case latency, ns.
    pub t_min_ns: f64,
    /// Worst-case latency, ns.
    pub t_max_ns: f64,
    /// Throughput in bytes/s, where the model gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_bytes_per_s: Option<f64>,
    /// How much worse than the best under the objective, in percent.
    pub worse_by_percent: f64,
}

/// Round to 1e-3 (ns): stable decimal text in JSON and CSV.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// How much worse `score` is than `best`, in percent (rounded to 1e-3).
pub fn worse_by_percent(score: f64, best: f64) -> f64 {
    if best > 0.0 {
        round3((score - best) / best * 100.0)
    } else {
        0.0
    }
}

impl Report {
    /// The report of a tuning: the best choice and up to `alternatives` more.
    pub fn new(
        machine: &str,
        tuning: &Tuning,
        objective: &Objective,
        alternatives: usize,
    ) -> Option<Report> {
        let best = tuning.best()?;
        let request = &tuning.request;
        let alt = |c: &Choice| Alternative {
            algorithm: c.algorithm.clone(),
            params: c.scored.params.clone(),
            t_min_ns: round3(c.scored.cost.min_ns),
            t_max_ns: round3(c.scored.cost.max_ns),
            throughput_bytes_per_s: c.scored.cost.throughput_bytes_per_s.map(round3),
            worse_by_percent: worse_by_percent(c.scored.score, best.scored.score),
        };
        Some(Report {
            machine: machine.to_string(),
            collective: request.collective(),
            algorithm: best.algorithm.clone(),
            threads: request.threads(),
            size_bytes: request.size_bytes(),
            metric: request.metric(),
            objective: objective.to_string(),
            state: request.state().to_string(),
            params: best.scored.params.clone(),
            t_min_ns: round3(best.scored.cost.min_ns),
            t_max_ns: round3(best.scored.cost.max_ns),
            throughput_bytes_per_s: best.scored.cost.throughput_bytes_per_s.map(round3),
            alternatives: tuning
                .ranking
                .iter()
                .skip(1)
                .take(alternatives)
                .map(alt)
                .collect(),
            exact: tuning.complete(),
            stopped: tuning.algorithms.iter().find_map(|a| match a.exactness {
                crate::limits::Exactness::Bounded { stopped, .. } => Some(stopped),
                crate::limits::Exactness::Exact => None,
            }),
            gap_percent: tuning
                .algorithms
                .iter()
                .filter(|a| a.algorithm == best.algorithm)
                .find_map(|a| match a.exactness {
                    crate::limits::Exactness::Bounded { gap_percent, .. } => {
                        gap_percent.map(round3)
                    }
                    crate::limits::Exactness::Exact => None,
                }),
            heuristic: tuning.heuristic(),
            estimated_params: Vec::new(),
            algorithms: tuning
                .algorithms
                .iter()
                .map(|a| AlgorithmLine {
                    algorithm: a.algorithm.clone(),
                    summary: a.summary.clone(),
                    best: a.best.first().map(|s| {
                        alt(&Choice {
                            algorithm: a.algorithm.clone(),
                            scored: s.clone(),
                        })
                    }),
                    skipped: a.skipped.clone(),
                    needs_size: a.needs_size,
                })
                .collect(),
            why: tuning
                .why
                .iter()
                .map(|t| Term {
                    label: t.label.clone(),
                    min_ns: round3(t.min_ns),
                    max_ns: round3(t.max_ns),
                })
                .collect(),
        })
    }
}
