//! How sure is an optimum? Sensitivity of a tuned configuration to the machine's parameters.
//!
//! Two analyses, both generic over model families (they change numbers in the machine's
//! specification with [`modelopt_model::perturb`] and tune again with [`tune`](crate::tune)):
//!
//! - **One at a time** ([`Analysis::ranges`]): for each parameter alone, the interval of values
//!   over which the chosen configuration stays optimal (no other configuration scores strictly
//!   better), as multiplicative factors of the measured value. Each side is scanned on a geometric
//!   grid from 1 to the scan's end (default 0.1× and 10×), and the first grid step where the
//!   choice is lost is refined by bisection to a relative tolerance (default 1e-3). The cost
//!   functions are piecewise linear in each parameter, so the region is in practice one interval;
//!   the grid keeps the nearest edge even where it is not.
//! - **Monte Carlo** ([`Analysis::monte_carlo`]): every parameter with a standard deviation is
//!   drawn from Normal(value, stdev), truncated to positive values when the measured value is
//!   positive (latencies; fitted overheads with negative values are left untruncated); parameters
//!   without a standard deviation stay fixed. For each sample the configuration space is tuned
//!   again; the report gives, per candidate, the probability that it is optimal, its mean score
//!   and its worst score, and names the configuration best in expectation and the one best in
//!   the worst case (minimax over the samples).
//!
//! Results are deterministic for a fixed seed whatever rayon's thread count: sample `i` draws
//! from its own ChaCha8 stream seeded with (seed, i), and per-sample results are combined in
//! sample order. The parallel level is the parameters (ranges) and the samples (Monte Carlo),
//! through [`crate::parallel`]; each tuning inside runs on one worker.
//!
//! ## Limits
//! A Monte Carlo run knows its size before it starts ([`Analysis::monte_carlo_estimate`]: the
//! samples times the work of one tuning, measured on the measured machine) and refuses with
//! [`SensitivityError::Budget`] when that exceeds the work budget of the search options. The
//! time limit holds for the whole analysis, from [`Analysis::new`]: its first tuning, every
//! range scan (a scan it cuts short ends with [`Limit::Stopped`]) and the Monte Carlo run. When
//! it passes, sampling stops after the current chunk, the samples tuned to the end before it are
//! summarized (a sample cut short is left out with every later one), and [`MonteCarlo::stopped`]
//! says why. Progress is
//! reported in samples (twice each: once tuned, once priced).
//!
//! ```
//! use modelopt_model::{machine, Collective, Params, Request};
//! use modelopt_optimizer::sensitivity::{Analysis, RangeOptions};
//! use modelopt_optimizer::{Objective, SearchOptions};
//! let phi = machine::load("xeon-phi").unwrap();
//! let request = Request::new(Collective::Barrier, 60).unwrap();
//! let analysis = Analysis::new(&phi, request, SearchOptions::new(Objective::Min, 1)).unwrap();
//! assert_eq!(analysis.chosen().params, Params::Dissemination { degree: 4, rounds: 3 });
//! let ranges = analysis.ranges(&["line.local"], &RangeOptions::default()).unwrap();
//! // m = 4 stays optimal while R_L < 3 R_R, far beyond 10× R_L (see tests/sensitivity.rs).
//! assert_eq!(ranges[0].upper.as_ref().unwrap().factor, 10.0);
//! ```

use crate::limits::{BudgetExceeded, Deadline, Progress, StopReason, WorkEstimate};
use crate::objective::score_key;
use crate::search::SearchOptions;
use crate::tuner::{tune_until, TuneError};
use modelopt_model::perturb::Perturber;
use modelopt_model::spec::ParamRow;
use modelopt_model::{Cost, Machine, Params, Request};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;

/// Why a sensitivity analysis cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SensitivityError {
    /// The request cannot be tuned on the unperturbed machine.
    #[error(transparent)]
    Tune(#[from] TuneError),
    /// The machine's specification cannot be re-read.
    #[error("{0}")]
    Spec(String),
    /// A parameter key that the machine does not have.
    #[error("{machine} has no parameter `{key}` (see `modelopt machines show {machine}`)")]
    UnknownParam {
        /// Machine name.
        machine: String,
        /// The key asked for.
        key: String,
    },
    /// Options out of their domain.
    #[error("{0}")]
    Options(String),
    /// The run is larger than the work budget.
    #[error(transparent)]
    Budget(#[from] BudgetExceeded),
}

/// The configuration whose robustness is analysed: the tuner's best on the measured machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chosen {
    /// Algorithm name.
    pub algorithm: String,
    /// Its parameters.
    pub params: Params,
    /// Its cost on the measured machine.
    pub cost: Cost,
    /// Its score (lower is better).
    pub score: f64,
}

/// How to scan one-at-a-time ranges.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RangeOptions {
    /// Smallest factor scanned (in (0, 1)); default 0.1.
    pub min_factor: f64,
    /// Largest factor scanned (> 1); default 10.
    pub max_factor: f64,
    /// Relative tolerance of an edge's factor; default 1e-3.
    pub tolerance: f64,
    /// Geometric grid steps per side before bisection; default 8.
    pub grid: usize,
}

impl Default for RangeOptions {
    fn default() -> Self {
        RangeOptions {
            min_factor: 0.1,
            max_factor: 10.0,
            tolerance: 1e-3,
            grid: 8,
        }
    }
}

impl RangeOptions {
    fn check(&self) -> Result<(), SensitivityError> {
        let ok = self.min_factor > 0.0
            && self.min_factor < 1.0
            && self.max_factor > 1.0
            && self.max_factor.is_finite()
            && self.tolerance > 0.0
            && self.tolerance < 1.0
            && self.grid >= 1;
        if ok {
            Ok(())
        } else {
            Err(SensitivityError::Options(format!(
                "scan factors must satisfy 0 < min < 1 < max and 0 < tolerance < 1 (got min {}, max {}, tolerance {})",
                self.min_factor, self.max_factor, self.tolerance
            )))
        }
    }
}

/// What ends a range on one side.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Limit {
    /// The chosen configuration is still optimal at the end of the scan.
    ScanEnd,
    /// Beyond the edge this configuration scores better.
    Overtaken {
        /// Algorithm.
        algorithm: String,
        /// Parameters.
        params: Params,
    },
    /// Beyond the edge the machine file or the model refuses the value.
    Invalid {
        /// Why.
        reason: String,
    },
    /// The time limit ended the scan: the choice is known optimal up to the edge, and what
    /// lies beyond was not looked at.
    Stopped {
        /// Why (the time limit).
        reason: String,
    },
}

/// One side of a range.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Edge {
    /// The outermost factor (of the measured value) at which the choice is known optimal.
    pub factor: f64,
    /// The parameter's value there.
    pub value: f64,
    /// What happens beyond.
    pub limit: Limit,
}

/// The one-at-a-time range of one parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamRange {
    /// Dotted key (`line.remote`).
    pub key: String,
    /// Measured value.
    pub value: f64,
    /// Unit.
    pub unit: String,
    /// Whether changing it changes the chosen configuration's cost at all.
    pub affects_chosen: bool,
    /// Towards smaller factors (`None` when the value is 0: a factor cannot move it).
    pub lower: Option<Edge>,
    /// Towards larger factors.
    pub upper: Option<Edge>,
}

/// How to run a Monte Carlo analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MonteCarloOptions {
    /// Number of samples (at least 1).
    pub samples: usize,
    /// Seed of the random streams.
    pub seed: u64,
    /// Configurations per algorithm taken as candidates from the measured machine's ranking,
    /// besides every sample's winner (at least 1).
    pub candidates_per_algorithm: usize,
}

impl Default for MonteCarloOptions {
    fn default() -> Self {
        MonteCarloOptions {
            samples: 1000,
            seed: 1,
            candidates_per_algorithm: 3,
        }
    }
}

/// One candidate configuration across the samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// Algorithm.
    pub algorithm: String,
    /// Parameters.
    pub params: Params,
    /// Its score on the measured machine.
    pub nominal_score: f64,
    /// Samples in which it was the tuner's best.
    pub wins: u64,
    /// wins / samples.
    pub p_optimal: f64,
    /// Mean score over the samples (infinite if it is infeasible in one).
    pub mean_score: f64,
    /// Largest score over the samples.
    pub worst_score: f64,
    /// Largest excess over the sample's best, in percent.
    pub worst_regret_percent: f64,
}

/// The result of a Monte Carlo analysis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MonteCarlo {
    /// Samples used.
    pub samples: u64,
    /// Seed.
    pub seed: u64,
    /// Parameters drawn (those with a standard deviation), with their stdev.
    pub drawn: Vec<(String, f64)>,
    /// Number of parameters held at their value (no standard deviation).
    pub fixed: usize,
    /// Draws redone because the machine file rejected the drawn values.
    pub redraws: u64,
    /// Candidates, in decreasing probability of being optimal, then nominal score.
    pub candidates: Vec<Candidate>,
    /// Index in `candidates` of the configuration with the lowest mean score.
    pub best_in_expectation: usize,
    /// Index in `candidates` of the configuration with the lowest worst score (minimax).
    pub best_worst_case: usize,
    /// Why sampling stopped before the requested number of samples, if it did (the time
    /// limit); the summary then covers the samples drawn so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StopReason>,
}

/// A sensitivity analysis of one request on one machine.
#[derive(Debug)]
pub struct Analysis<'m> {
    machine: &'m Machine,
    request: Request,
    search: SearchOptions,
    perturber: Perturber,
    params: Vec<ParamRow>,
    chosen: Chosen,
    /// The time limit of the whole analysis, from [`Analysis::new`]: its tuning, every range
    /// scan and a Monte Carlo run share it.
    deadline: Deadline,
}

/// A configuration: algorithm name and parameters.
type ConfigId = (String, Params);

/// A sample's winner and its score (`None` when the sample could not be tuned).
type SampleWinner = Option<(ConfigId, f64)>;

enum Status {
    Optimal,
    Overtaken(String, Params),
    Invalid(String),
    /// The time limit passed before (or while) this value was tuned.
    Stopped,
}

impl<'m> Analysis<'m> {
    /// Tune `request` on `machine` and prepare to analyse the chosen configuration.
    pub fn new(
        machine: &'m Machine,
        request: Request,
        search: SearchOptions,
    ) -> Result<Self, SensitivityError> {
        let search = SearchOptions { top: 1, ..search };
        let deadline = search.limits.deadline();
        let tuning = tune_until(machine, &request, &search, None, deadline)?;
        let best = tuning.best().ok_or_else(|| TuneError::NothingApplies {
            reasons: Vec::new(),
            needs_size: false,
        })?;
        let chosen = Chosen {
            algorithm: best.algorithm.clone(),
            params: best.scored.params.clone(),
            cost: best.scored.cost,
            score: best.scored.score,
        };
        let perturber =
            Perturber::new(machine).map_err(|e| SensitivityError::Spec(e.to_string()))?;
        Ok(Analysis {
            machine,
            request,
            search,
            perturber,
            params: machine.params(),
            chosen,
            deadline,
        })
    }

    /// The configuration analysed.
    pub fn chosen(&self) -> &Chosen {
        &self.chosen
    }

    /// The request analysed.
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The most tunings [`Analysis::ranges`] runs for `keys` parameters (every parameter when
    /// 0): per side, the grid steps and then a bisection of one grid step down to the tolerance
    /// (⌈log₂(ln(step ratio) / ln(1 + tolerance))⌉ steps; 8 + 9 = 17 with the defaults).
    pub fn range_tunings(&self, keys: usize, options: &RangeOptions) -> u64 {
        let keys = if keys == 0 { self.params.len() } else { keys } as u64;
        let grid = options.grid.max(1);
        let side = |end: f64| -> u64 {
            let step = (end.ln() / grid as f64).abs();
            let tolerance = options.tolerance.ln_1p();
            let bisect = if step > tolerance && tolerance > 0.0 {
                (step / tolerance).log2().ceil() as u64
            } else {
                0
            };
            grid as u64 + bisect
        };
        keys.saturating_mul(side(options.min_factor) + side(options.max_factor))
    }

    /// Whether a tuning of this request needs an exact search over the work budget, so that it
    /// runs until the budget is spent ([`crate::search::runs_to_budget`] for each algorithm on
    /// the measured machine): an analysis that tunes it many times will run long.
    pub fn tunings_run_to_budget(&self) -> bool {
        self.machine
            .algorithms_for(self.request.collective())
            .iter()
            .any(|a| crate::search::runs_to_budget(a.as_ref(), &self.request, &self.search))
    }

    /// Every parameter of the machine (the keys [`Analysis::ranges`] accepts).
    pub fn params(&self) -> &[ParamRow] {
        &self.params
    }

    fn row(&self, key: &str) -> Result<&ParamRow, SensitivityError> {
        self.params
            .iter()
            .find(|p| p.key == key)
            .ok_or_else(|| SensitivityError::UnknownParam {
                machine: self.machine.name.clone(),
                key: key.to_string(),
            })
    }

    /// The chosen configuration's cost and score on `machine`, if it can be priced there.
    fn chosen_on(&self, machine: &Machine) -> Result<(Cost, f64), String> {
        let algorithms = machine.algorithms_for(self.request.collective());
        let algorithm = algorithms
            .iter()
            .find(|a| a.name() == self.chosen.algorithm)
            .ok_or_else(|| format!("no algorithm `{}`", self.chosen.algorithm))?;
        let cost = algorithm
            .cost(&self.request, &self.chosen.params)
            .map_err(|e| e.to_string())?;
        let score = self
            .search
            .objective
            .score(&cost, self.request.metric())
            .filter(|s| s.is_finite())
            .ok_or_else(|| "the chosen configuration has no score".to_string())?;
        Ok((cost, score))
    }

    fn status(&self, changes: &[(&str, f64)]) -> Status {
        if self.deadline.passed() {
            return Status::Stopped;
        }
        let machine = match self.perturber.machine(changes) {
            Ok(m) => m,
            Err(e) => return Status::Invalid(e.to_string()),
        };
        let (_, score) = match self.chosen_on(&machine) {
            Ok(c) => c,
            Err(e) => return Status::Invalid(e),
        };
        let tuning = match tune_until(&machine, &self.request, &self.search, None, self.deadline) {
            Ok(t) => t,
            Err(e) => return Status::Invalid(e.to_string()),
        };
        // A tuning cut short by the time limit is not an answer to compare with.
        if !tuning.complete() && self.deadline.passed() {
            return Status::Stopped;
        }
        match tuning.best() {
            Some(best) if score_key(score) > score_key(best.scored.score) => {
                Status::Overtaken(best.algorithm.clone(), best.scored.params.clone())
            }
            _ => Status::Optimal,
        }
    }

    /// One-at-a-time ranges of the parameters named by `keys` (every parameter when empty), in
    /// the order asked, computed in parallel.
    pub fn ranges(
        &self,
        keys: &[&str],
        options: &RangeOptions,
    ) -> Result<Vec<ParamRange>, SensitivityError> {
        options.check()?;
        let rows: Vec<&ParamRow> = if keys.is_empty() {
            self.params.iter().collect()
        } else {
            keys.iter().map(|k| self.row(k)).collect::<Result<_, _>>()?
        };
        // Each range tunes the request again and again: no more at once than the memory
        // available holds (`SearchOptions::searches_at_once`).
        let at_once = self.search.searches_at_once();
        Ok(crate::parallel::map_ordered_at_most(
            &rows,
            at_once,
            |row| self.range(row, options),
        ))
    }

    fn range(&self, row: &ParamRow, options: &RangeOptions) -> ParamRange {
        let key = row.key.as_str();
        // A 1% change either way (whichever the machine file accepts) moves the cost of the
        // chosen configuration if the parameter enters it at all.
        let affects_chosen = [1.01, 0.99].iter().any(|f| {
            self.perturber
                .machine(&[(key, row.value * f)])
                .ok()
                .and_then(|m| self.chosen_on(&m).ok())
                .is_some_and(|(cost, _)| cost != self.chosen.cost)
        });
        let scannable = row.value != 0.0 && row.value.is_finite();
        let side = |end: f64| scannable.then(|| self.edge(key, row.value, end, options));
        ParamRange {
            key: row.key.clone(),
            value: row.value,
            unit: row.unit.clone(),
            affects_chosen,
            lower: side(options.min_factor),
            upper: side(options.max_factor),
        }
    }

    /// Scan factors from 1 towards `end`; the last factor at which the choice holds.
    fn edge(&self, key: &str, value: f64, end: f64, options: &RangeOptions) -> Edge {
        let at = |f: f64| self.status(&[(key, value * f)]);
        let stopped = |good: f64| Edge {
            factor: good,
            value: value * good,
            limit: Limit::Stopped {
                reason: self.deadline.reason().to_string(),
            },
        };
        let steps = options.grid.max(1);
        let mut good = 1.0_f64;
        for j in 1..=steps {
            let f = end.powf(j as f64 / steps as f64);
            let status = at(f);
            match status {
                Status::Optimal => {
                    good = f;
                    continue;
                }
                Status::Stopped => return stopped(good),
                _ => {}
            }
            // Bisect in log space between `good` (optimal) and `bad`.
            let mut bad = f;
            let mut bad_status = status;
            while (bad / good).ln().abs() > options.tolerance.ln_1p() {
                let mid = (good * bad).sqrt();
                match at(mid) {
                    Status::Optimal => good = mid,
                    Status::Stopped => return stopped(good),
                    other => {
                        bad = mid;
                        bad_status = other;
                    }
                }
            }
            let limit = match bad_status {
                Status::Overtaken(algorithm, params) => Limit::Overtaken { algorithm, params },
                Status::Invalid(reason) => Limit::Invalid { reason },
                Status::Stopped => return stopped(good),
                Status::Optimal => Limit::ScanEnd,
            };
            return Edge {
                factor: good,
                value: value * good,
                limit,
            };
        }
        Edge {
            factor: end,
            value: value * end,
            limit: Limit::ScanEnd,
        }
    }

    /// The work of one tuning of the request on the measured machine (configurations priced
    /// by every algorithm's search, at least 1).
    fn tuning_work(&self) -> u64 {
        let options = SearchOptions {
            progress: Progress::none(),
            ..self.search.clone()
        };
        self.machine
            .algorithms_for(self.request.collective())
            .iter()
            .filter_map(|a| {
                crate::search::rank_until(a.as_ref(), &self.request, &options, self.deadline).ok()
            })
            .map(|r| r.stats.evaluated)
            .fold(0u64, u64::saturating_add)
            .max(1)
    }

    /// The size of a Monte Carlo run before it starts: every sample is tuned once and its
    /// candidates priced once, so about `samples × (work of one tuning + candidates)`
    /// configurations priced.
    pub fn monte_carlo_estimate(&self, options: &MonteCarloOptions) -> WorkEstimate {
        let algorithms = self.machine.algorithms_for(self.request.collective()).len() as u64;
        let candidates = algorithms.saturating_mul(options.candidates_per_algorithm.max(1) as u64);
        WorkEstimate {
            what: "configurations priced over the Monte Carlo samples".into(),
            units: (options.samples as u64)
                .saturating_mul(self.tuning_work().saturating_add(candidates)),
        }
    }

    /// Monte Carlo over the measured spreads (see the module docs).
    pub fn monte_carlo(&self, options: &MonteCarloOptions) -> Result<MonteCarlo, SensitivityError> {
        if options.samples == 0 {
            return Err(SensitivityError::Options(
                "Monte Carlo needs at least 1 sample".into(),
            ));
        }
        self.search
            .limits
            .check(&self.monte_carlo_estimate(options))?;
        let deadline = self.deadline;
        let progress = &self.search.progress;
        // Each sample's tuning shares the analysis's deadline and reports no progress of its own.
        let inner = SearchOptions {
            progress: Progress::none(),
            ..self.search.clone()
        };
        let drawn: Vec<&ParamRow> = self
            .params
            .iter()
            .filter(|p| p.stdev.is_some_and(|s| s > 0.0) && p.value.is_finite())
            .collect();
        let fixed = self.params.len() - drawn.len();

        // Candidates known before sampling: the best few of every algorithm.
        let top = SearchOptions {
            top: options.candidates_per_algorithm.max(1),
            ..self.search.clone()
        };
        let nominal = tune_until(self.machine, &self.request, &top, None, deadline)?;
        let mut candidates: BTreeMap<ConfigId, f64> = nominal
            .ranking
            .iter()
            .map(|c| {
                (
                    (c.algorithm.clone(), c.scored.params.clone()),
                    c.scored.score,
                )
            })
            .collect();

        // Pass 1: each sample's winner and best score.
        let requested = options.samples as u64;
        progress.begin("Monte Carlo samples", Some(requested.saturating_mul(2)));
        let mut winners: Vec<SampleWinner> = Vec::new();
        let mut redraws = 0;
        let mut stopped = None;
        for chunk in chunks(requested) {
            if deadline.passed() {
                stopped = Some(deadline.reason());
                break;
            }
            let len = chunk.end - chunk.start;
            // Each sample: its winner, its redraws, and whether the time limit cut its tuning
            // short (then its winner is not an optimum, and it and every later sample are left
            // out, so the summary covers a prefix of the samples whatever the scheduling).
            let part: Vec<(SampleWinner, u64, bool)> = crate::parallel::map_owned_at_most(
                chunk.collect(),
                inner.searches_at_once(),
                |i| {
                    let (machine, redone) = self.sample(&drawn, options.seed, i);
                    let mut cut = false;
                    let winner = machine.and_then(|m| {
                        let t = tune_until(&m, &self.request, &inner, None, deadline).ok()?;
                        cut = !t.complete() && deadline.passed();
                        let b = t.best()?;
                        Some((
                            (b.algorithm.clone(), b.scored.params.clone()),
                            b.scored.score,
                        ))
                    });
                    (winner, redone, cut)
                },
            );
            for (w, r, cut) in part {
                if cut {
                    stopped = Some(deadline.reason());
                    break;
                }
                redraws += r;
                winners.push(w);
            }
            progress.advance(len);
            if stopped.is_some() {
                break;
            }
        }
        let samples = winners.len() as u64;
        for (id, _) in winners.iter().flatten() {
            if !candidates.contains_key(id) {
                let score = self.score_of(self.machine, id).unwrap_or(f64::INFINITY);
                candidates.insert(id.clone(), score);
            }
        }
        let ids: Vec<ConfigId> = candidates.keys().cloned().collect();

        // Pass 2: every candidate's score in every sample, combined in sample order.
        let n = ids.len();
        let mut wins = vec![0u64; n];
        let mut sum = vec![0.0f64; n];
        let mut worst = vec![f64::NEG_INFINITY; n];
        let mut regret = vec![0.0f64; n];
        let mut used = 0u64;
        let mut index = 0usize;
        // Pass 2 prices a fixed list per sample (no search), so it always runs to the samples
        // of pass 1: the summary stays consistent.
        for chunk in chunks(samples) {
            let len = chunk.end - chunk.start;
            let part: Vec<Option<Vec<f64>>> = crate::parallel::map_owned(chunk.collect(), |i| {
                let (machine, _) = self.sample(&drawn, options.seed, i);
                let m = machine?;
                Some(
                    ids.iter()
                        .map(|id| self.score_of(&m, id).unwrap_or(f64::INFINITY))
                        .collect(),
                )
            });
            progress.advance(len);
            for scores in part {
                let winner = &winners[index];
                index += 1;
                let (Some(scores), Some((win_id, best))) = (scores, winner) else {
                    continue;
                };
                used += 1;
                for (c, s) in scores.iter().enumerate() {
                    if &ids[c] == win_id {
                        wins[c] += 1;
                    }
                    sum[c] += s;
                    worst[c] = worst[c].max(*s);
                    let r = if *best > 0.0 {
                        (s - best) / best * 100.0
                    } else {
                        0.0
                    };
                    regret[c] = regret[c].max(r);
                }
            }
        }
        progress.finish();
        if used == 0 && stopped.is_none() {
            return Err(SensitivityError::Options(
                "no sample could be tuned (the drawn machines were all rejected)".into(),
            ));
        }
        // With no sample (the time limit came first), an empty summary that says so.
        let ids = if used == 0 { Vec::new() } else { ids };
        let mut list: Vec<Candidate> = ids
            .into_iter()
            .enumerate()
            .map(|(c, (algorithm, params))| {
                let nominal_score = candidates[&(algorithm.clone(), params.clone())];
                Candidate {
                    algorithm,
                    params,
                    nominal_score,
                    wins: wins[c],
                    p_optimal: wins[c] as f64 / used as f64,
                    mean_score: sum[c] / used as f64,
                    worst_score: worst[c],
                    worst_regret_percent: regret[c],
                }
            })
            .collect();
        list.sort_by(|a, b| {
            (std::cmp::Reverse(a.wins), score_key(a.nominal_score))
                .cmp(&(std::cmp::Reverse(b.wins), score_key(b.nominal_score)))
                .then_with(|| (&a.algorithm, &a.params).cmp(&(&b.algorithm, &b.params)))
        });
        let argmin = |f: &dyn Fn(&Candidate) -> f64| {
            (0..list.len())
                .min_by_key(|&i| (score_key(f(&list[i])), i))
                .unwrap_or(0)
        };
        let best_in_expectation = argmin(&|c| c.mean_score);
        let best_worst_case = argmin(&|c| c.worst_score);
        Ok(MonteCarlo {
            samples: used,
            seed: options.seed,
            drawn: drawn
                .iter()
                .map(|p| (p.key.clone(), p.stdev.unwrap_or(0.0)))
                .collect(),
            fixed,
            redraws,
            candidates: list,
            best_in_expectation,
            best_worst_case,
            stopped,
        })
    }

    fn score_of(&self, machine: &Machine, (name, params): &ConfigId) -> Option<f64> {
        let algorithms = machine.algorithms_for(self.request.collective());
        let algorithm = algorithms.iter().find(|a| a.name() == name)?;
        let cost = algorithm.cost(&self.request, params).ok()?;
        self.search
            .objective
            .score(&cost, self.request.metric())
            .filter(|s| s.is_finite())
    }

    /// Sample `i`: a machine with every drawn parameter replaced, and how many draws were redone.
    fn sample(&self, drawn: &[&ParamRow], seed: u64, i: u64) -> (Option<Machine>, u64) {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        key[8..16].copy_from_slice(&i.to_le_bytes());
        let mut rng = ChaCha8Rng::from_seed(key);
        const ATTEMPTS: u64 = 16;
        for attempt in 0..ATTEMPTS {
            let changes: Vec<(&str, f64)> = drawn
                .iter()
                .map(|p| {
                    let stdev = p.stdev.unwrap_or(0.0);
                    (p.key.as_str(), truncated_normal(&mut rng, p.value, stdev))
                })
                .collect();
            if let Ok(m) = self.perturber.machine(&changes) {
                return (Some(m), attempt);
            }
        }
        (None, ATTEMPTS)
    }
}

/// Sample indices in fixed-size chunks: parallel within a chunk, combined in order, so results
/// do not depend on the number of worker threads and memory does not grow with the samples.
fn chunks(samples: u64) -> impl Iterator<Item = std::ops::Range<u64>> {
    const CHUNK: u64 = 1024;
    (0..samples.div_ceil(CHUNK)).map(move |c| c * CHUNK..((c + 1) * CHUNK).min(samples))
}

/// A draw from Normal(mean, stdev) (Box–Muller), redrawn while it does not keep the sign of a
/// positive mean; after 64 failed draws, the mean itself.
fn truncated_normal(rng: &mut ChaCha8Rng, mean: f64, stdev: f64) -> f64 {
    for _ in 0..64 {
        let u1: f64 = rng.random();
        let u2: f64 = rng.random();
        let z = (-2.0 * (1.0 - u1).ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let x = mean + stdev * z;
        if mean <= 0.0 || x > 0.0 {
            return x;
        }
    }
    mean
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_draws_have_the_right_moments_and_sign() {
        let mut rng = ChaCha8Rng::from_seed([7; 32]);
        let n = 20_000;
        let xs: Vec<f64> = (0..n)
            .map(|_| truncated_normal(&mut rng, 10.0, 2.0))
            .collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - 10.0).abs() < 0.1, "{mean}");
        assert!((var.sqrt() - 2.0).abs() < 0.1, "{var}");
        // A positive mean with a wide spread never goes to zero or below.
        assert!((0..1000).all(|_| truncated_normal(&mut rng, 1.0, 5.0) > 0.0));
        // A negative mean is not truncated.
        assert!((0..1000).any(|_| truncated_normal(&mut rng, -1.0, 5.0) > 0.0));
    }

    #[test]
    fn chunks_cover_every_sample_once() {
        let all: Vec<u64> = chunks(2500).flatten().collect();
        assert_eq!(all, (0..2500).collect::<Vec<_>>());
        assert_eq!(chunks(0).count(), 0);
    }
}
