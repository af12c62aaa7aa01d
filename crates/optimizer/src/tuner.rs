//! Algorithm choice: rank every algorithm a machine has for a collective, with its best
//! parameters, and pick the best overall.
//!
//! The tuner knows machines only through [`Machine::algorithms_for`]: each model family lists its
//! algorithms, and the tuner searches each one's space with [`crate::search::rank`].

use crate::limits::{BudgetExceeded, Deadline, Exactness};
use crate::search::{rank_until, Scored, SearchError, SearchOptions};
use modelopt_model::{Machine, Request, Term};
use serde::Serialize;

/// One algorithm's outcome for a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlgorithmOutcome {
    /// Algorithm name.
    pub algorithm: String,
    /// What it is and where its model comes from.
    pub summary: String,
    /// Its best configurations, best first (empty when it does not apply).
    pub best: Vec<Scored>,
    /// Why it does not apply, when it does not.
    pub skipped: Option<String>,
    /// Whether its best configuration is proven optimal under the model, or why not.
    pub exactness: Exactness,
    /// Whether it would apply with a message size (it models messages, and the request is for
    /// one small item).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub needs_size: bool,
}

impl AlgorithmOutcome {
    /// Whether its best configuration is proven optimal under the model.
    pub fn exact(&self) -> bool {
        self.exactness.is_exact()
    }
}

/// A configuration of some algorithm.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    /// Algorithm name.
    pub algorithm: String,
    /// The configuration and its cost.
    #[serde(flatten)]
    pub scored: Scored,
}

/// The tuner's answer for one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tuning {
    /// What was asked.
    pub request: Request,
    /// Every configuration kept, over all algorithms, best first (at most `top` + the best of
    /// each algorithm).
    pub ranking: Vec<Choice>,
    /// Per algorithm, in the family's order.
    pub algorithms: Vec<AlgorithmOutcome>,
    /// The cost breakdown of the winner, when its model provides one.
    pub why: Vec<Term>,
}

impl Tuning {
    /// The best configuration overall.
    pub fn best(&self) -> Option<&Choice> {
        self.ranking.first()
    }

    /// Whether the best configuration comes from a search that did not prove it optimal (a
    /// heuristic, or a search stopped by a limit).
    pub fn heuristic(&self) -> bool {
        self.best().is_some_and(|best| {
            self.algorithms
                .iter()
                .any(|a| a.algorithm == best.algorithm && !a.exact())
        })
    }

    /// Whether every algorithm's search completed (no time limit or budget stopped one): then
    /// the ranking across algorithms is proven, not only each algorithm's best.
    pub fn complete(&self) -> bool {
        self.algorithms.iter().all(|a| a.exact())
    }
}

/// Why tuning failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TuneError {
    /// The machine has no algorithm (of that name) for the collective.
    #[error("{0}")]
    NoAlgorithm(String),
    /// No algorithm could price the request; the reasons, one per algorithm.
    #[error("no algorithm applies: {}", .reasons.join("; "))]
    NothingApplies {
        /// `algorithm: why`, one per algorithm.
        reasons: Vec<String>,
        /// Whether some algorithm would apply with a message size.
        needs_size: bool,
    },
    /// An algorithm's search is larger than the work budget.
    #[error("{algorithm}: {budget}")]
    Budget {
        /// The algorithm whose search was refused.
        algorithm: String,
        /// The estimate and the budget.
        budget: BudgetExceeded,
    },
    /// An algorithm refuses the search method asked for (`--search`): the request names it, so
    /// it is refused whole, as an over-budget search is, not answered by other algorithms.
    #[error("{algorithm}: {refusal}")]
    Method {
        /// The algorithm that refused.
        algorithm: String,
        /// The method, why it is not available, and what is.
        refusal: Box<crate::rooted_trees::TreeSearchError>,
    },
    /// An algorithm's ranking would keep more rows than fit in memory.
    #[error("{algorithm}: {rows}")]
    Rows {
        /// The algorithm whose ranking was refused.
        algorithm: String,
        /// The rows asked for and how many fit.
        rows: crate::limits::RowsExceeded,
    },
}

/// Why an algorithm has no feasible configuration: the fixed parameters fall outside its space,
/// or the model rejects the first configuration that matches them (in enumeration order, so the
/// message is deterministic).
fn explain_infeasible(
    algorithm: &dyn modelopt_model::Algorithm,
    request: &Request,
    options: &SearchOptions,
) -> String {
    let fixed: Vec<String> = options
        .fixed
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let Ok(space) = algorithm.space(request, &options.space) else {
        return "no feasible configuration".into();
    };
    // Look at a bounded number of candidates: enough to name a reason, never the whole space.
    const LOOK_AT: usize = 100_000;
    let candidates: Box<dyn Iterator<Item = modelopt_model::Params>> = match &space {
        modelopt_model::Space::LevelDegrees { threads, ordering } => {
            let mut first = Vec::new();
            crate::space::LevelDegrees {
                threads: *threads,
                ordering: *ordering,
            }
            .for_each_while(|d| {
                first.push(modelopt_model::Params::Tree {
                    depth: d.len() as u32,
                    degrees: d.to_vec(),
                });
                first.len() < LOOK_AT
            });
            Box::new(first.into_iter())
        }
        other => match crate::space::candidates(other) {
            Some(list) => list,
            None => return "no feasible configuration".into(),
        },
    };
    let candidates: Vec<modelopt_model::Params> = candidates.take(LOOK_AT).collect();
    // A pinned name no configuration of this algorithm has at all is a wrong name, not an
    // infeasible value: say which names exist.
    let known: std::collections::BTreeSet<String> =
        candidates.iter().flat_map(|p| p.names()).collect();
    let unknown: Vec<&str> = options
        .fixed
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !known.contains(*k) && !candidates.iter().any(|p| p.get(k).is_some()))
        .collect();
    if !unknown.is_empty() {
        let names: Vec<&str> = known.iter().map(String::as_str).collect();
        return if names.is_empty() {
            format!(
                "unknown parameter `{}`: this algorithm has no free parameter",
                unknown.join("`, `")
            )
        } else {
            format!(
                "unknown parameter `{}` (its parameters: {})",
                unknown.join("`, `"),
                names.join(", ")
            )
        };
    }
    let mut matching = candidates
        .into_iter()
        .filter(|p| options.matches_fixed(p))
        .peekable();
    if matching.peek().is_none() && !fixed.is_empty() {
        let ranges = match &space {
            modelopt_model::Space::Grid(ranges) => ranges
                .iter()
                .map(|r| format!("{} in {}..={}", r.name, r.lo, r.hi))
                .collect::<Vec<_>>()
                .join(", "),
            _ => String::new(),
        };
        return if ranges.is_empty() {
            format!("no configuration has {}", fixed.join(" "))
        } else {
            format!("no configuration has {} ({ranges})", fixed.join(" "))
        };
    }
    let reason = matching.find_map(|p| match algorithm.cost(request, &p) {
        Err(e) => Some(format!("{p}: {e}")),
        Ok(cost) if options.objective.score(&cost, request.metric()).is_none() => {
            Some(NO_THROUGHPUT.to_string())
        }
        Ok(_) => None,
    });
    match reason {
        Some(why) if why == NO_THROUGHPUT => why,
        Some(why) if fixed.is_empty() => format!("no feasible configuration (e.g. {why})"),
        Some(why) => format!("no feasible configuration with {} ({why})", fixed.join(" ")),
        None => "no feasible configuration".into(),
    }
}

const NO_THROUGHPUT: &str = "its model gives no throughput (use --metric latency)";

/// Rank the algorithms of `machine` for `request`. `only` restricts to one algorithm by name.
/// The time limit of `options.limits` counts from now and holds for all algorithms together.
pub fn tune(
    machine: &Machine,
    request: &Request,
    options: &SearchOptions,
    only: Option<&str>,
) -> Result<Tuning, TuneError> {
    tune_until(machine, request, options, only, options.limits.deadline())
}

/// [`tune`] against a deadline shared with other work (a sweep's).
pub fn tune_until(
    machine: &Machine,
    request: &Request,
    options: &SearchOptions,
    only: Option<&str>,
    deadline: Deadline,
) -> Result<Tuning, TuneError> {
    let all = machine.algorithms_for(request.collective());
    if all.is_empty() {
        return Err(TuneError::NoAlgorithm(format!(
            "{} has no model for {} (it models: {})",
            machine.name,
            request.collective(),
            machine
                .collectives()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let names: Vec<&str> = all.iter().map(|a| a.name()).collect();
    let chosen: Vec<_> = all
        .iter()
        .enumerate()
        .filter(|(_, a)| only.is_none_or(|n| n == a.name()))
        .collect();
    if chosen.is_empty() {
        return Err(TuneError::NoAlgorithm(format!(
            "{} has no {} algorithm named `{}` (it has: {})",
            machine.name,
            request.collective(),
            only.unwrap_or_default(),
            names.join(", ")
        )));
    }
    let mut outcomes = Vec::new();
    let mut ranking: Vec<(usize, Choice)> = Vec::new();
    let mut reasons = Vec::new();
    for (index, algorithm) in chosen {
        let outcome = match rank_until(algorithm.as_ref(), request, options, deadline) {
            Ok(ranked) if ranked.best.is_empty() => {
                let why = explain_infeasible(algorithm.as_ref(), request, options);
                reasons.push(format!("{}: {why}", algorithm.name()));
                AlgorithmOutcome {
                    algorithm: algorithm.name().into(),
                    summary: algorithm.summary().into(),
                    best: Vec::new(),
                    skipped: Some(why),
                    exactness: ranked.exactness,
                    needs_size: false,
                }
            }
            Ok(ranked) => {
                ranking.extend(ranked.best.iter().map(|s| {
                    (
                        index,
                        Choice {
                            algorithm: algorithm.name().into(),
                            scored: s.clone(),
                        },
                    )
                }));
                AlgorithmOutcome {
                    algorithm: algorithm.name().into(),
                    summary: algorithm.summary().into(),
                    exactness: ranked.exactness,
                    best: ranked.best,
                    skipped: None,
                    needs_size: false,
                }
            }
            Err(SearchError::Budget(budget)) => {
                return Err(TuneError::Budget {
                    algorithm: algorithm.name().into(),
                    budget,
                })
            }
            Err(SearchError::Tree(
                refusal @ crate::rooted_trees::TreeSearchError::Method { .. },
            )) => {
                return Err(TuneError::Method {
                    algorithm: algorithm.name().into(),
                    refusal: Box::new(refusal),
                })
            }
            Err(SearchError::Rows(rows)) => {
                return Err(TuneError::Rows {
                    algorithm: algorithm.name().into(),
                    rows,
                })
            }
            Err(e) => {
                reasons.push(format!("{}: {e}", algorithm.name()));
                AlgorithmOutcome {
                    algorithm: algorithm.name().into(),
                    summary: algorithm.summary().into(),
                    best: Vec::new(),
                    skipped: Some(e.to_string()),
                    exactness: Exactness::Exact,
                    needs_size: matches!(&e, SearchError::Model(m) if m.needs_size()),
                }
            }
        };
        outcomes.push(outcome);
    }
    if ranking.is_empty() {
        return Err(TuneError::NothingApplies {
            reasons,
            needs_size: outcomes.iter().any(|o| o.needs_size),
        });
    }
    let objective = options.objective;
    ranking.sort_by(|(ia, a), (ib, b)| {
        use crate::objective::score_key;
        (
            score_key(a.scored.score),
            score_key(objective.tie_score(&a.scored.cost)),
            ia,
            &a.scored.params,
        )
            .cmp(&(
                score_key(b.scored.score),
                score_key(objective.tie_score(&b.scored.cost)),
                ib,
                &b.scored.params,
            ))
    });
    let ranking: Vec<Choice> = ranking.into_iter().map(|(_, c)| c).collect();
    let why = ranking
        .first()
        .and_then(|best| {
            all.iter()
                .find(|a| a.name() == best.algorithm)
                .and_then(|a| a.breakdown(request, &best.scored.params).ok())
        })
        .unwrap_or_default();
    Ok(Tuning {
        request: request.clone(),
        ranking,
        algorithms: outcomes,
        why,
    })
}
