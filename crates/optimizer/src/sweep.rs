//! Sweeps over the design space: machines × collectives × buffer states × sizes × threads, each
//! point tuned with [`tune`](crate::tune), one [`Row`] per algorithm and point.
//!
//! ## Order
//! Rows come in a fixed order, whatever the number of worker threads: machines as given, then
//! collectives, states, sizes and thread counts as given (the outer dimension first), and within
//! one point the algorithms in the family's order ([`Machine::algorithms_for`]).
//!
//! ## Streaming
//! [`Sweep::rows`] is an iterator: it tunes the next chunk of points in parallel
//! ([`crate::parallel`]; each point's search runs on one worker), yields their rows, and only then
//! tunes the next chunk, so memory stays bounded by one chunk's rows whatever the sweep's length.
//! [`Sweep::for_each`] is the same as a callback.
//!
//! ## Limits and progress
//! A sweep knows its size before it starts ([`Sweep::estimate`]: its points; [`Sweep::check`]
//! refuses a sweep with more points than the work budget), and which of its points will search
//! until the work budget is spent ([`Sweep::points_over_budget`]), so that a caller can say so
//! before it starts. The time limit of
//! [`SearchOptions::limits`](crate::SearchOptions) holds for the whole sweep: when it passes, no
//! further chunk is started, the rows so far stand, and [`SweepStats::stopped`] says why. Each
//! point's searches share the sweep's deadline and the work budget. Progress is reported to
//! [`SearchOptions::progress`](crate::SearchOptions) in points, once per chunk.
//!
//! ## Points that do not apply
//! A thread count above a machine's `max_threads` is skipped unless [`Sweep::extrapolate`] is
//! set; a point where no algorithm applies (e.g. a size no model of the collective accepts) is
//! skipped. Both are counted in [`SweepStats`]. A machine with no model at all for a collective
//! is an error when the sweep is built ([`Sweep::new`]).
//!
//! ```
//! use modelopt_model::{machine, Collective};
//! use modelopt_optimizer::sweep::Sweep;
//! let phi = machine::load("xeon-phi").unwrap();
//! let sweep = Sweep::new(vec![&phi], vec![Collective::Barrier], vec![2, 16, 60]).unwrap();
//! let rows: Vec<_> = sweep.rows().collect();
//! assert_eq!(rows.len(), 3); // one barrier algorithm, three thread counts
//! assert!(rows.iter().all(|r| r.winner));
//! assert_eq!(rows[2].params.to_string(), "m=4 r=3"); // seed 000, Table B.2
//! ```

use crate::limits::{Deadline, Exactness, Progress, StopReason, WorkEstimate};
use crate::objective::Objective;
use crate::report::round3;
use crate::search::SearchOptions;
use crate::tuner::{tune_until, TuneError};
use modelopt_model::{BufferStates, Collective, Machine, Metric, Params, Request};
use serde::Serialize;
use std::collections::VecDeque;

/// One algorithm at one point of a sweep, with its best parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Machine name.
    pub machine: String,
    /// Collective.
    pub collective: Collective,
    /// Initial buffer states (cache-coherent machines), as written on the command line.
    #[serde(serialize_with = "display")]
    pub state: BufferStates,
    /// Thread count.
    pub threads: u32,
    /// Message size in bytes (0: one small item).
    pub size_bytes: u64,
    /// Algorithm name.
    pub algorithm: String,
    /// Its best parameters for this point.
    pub params: Params,
    /// Best-case latency of those parameters, ns (rounded to 1e-3).
    pub t_min_ns: f64,
    /// Worst-case latency, ns (rounded to 1e-3).
    pub t_max_ns: f64,
    /// Throughput in bytes/s, where the model gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_bytes_per_s: Option<f64>,
    /// Score under the objective (lower is better; ns, or ns per byte for throughput).
    pub score: f64,
    /// Whether this is the best algorithm at this point (among the algorithms swept).
    pub winner: bool,
    /// Whether this algorithm's best is proven optimal (its search completed).
    pub exact: bool,
    /// When it is not: how far above the optimum it may be at most, in percent of a certified
    /// lower bound on the optimal score (rounded to 1e-3), where the search gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap_percent: Option<f64>,
}

fn display<T: std::fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// Why a sweep cannot be run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// A dimension of the sweep is empty.
    #[error("the sweep has no {0} to evaluate")]
    Empty(&'static str),
    /// A machine has no algorithm for a collective, or none of the requested names.
    #[error(transparent)]
    NoAlgorithm(#[from] TuneError),
    /// A thread count or size no model accepts.
    #[error("{0}")]
    Request(String),
    /// More points than the work budget.
    #[error(transparent)]
    Budget(#[from] crate::limits::BudgetExceeded),
}

/// Counters of a sweep run.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct SweepStats {
    /// Points tuned so far (including the skipped ones).
    pub points: u64,
    /// Rows produced.
    pub rows: u64,
    /// Points skipped because the thread count is above the machine's hardware limit.
    pub beyond_machine: u64,
    /// Points skipped because no algorithm applies to them.
    pub not_applicable: u64,
    /// Points whose search was refused as larger than the work budget.
    pub over_budget: u64,
    /// Points whose best configuration is not proven optimal (a search stopped by a limit).
    pub not_exact: u64,
    /// Why the sweep stopped before its last point, if it did.
    pub stopped: Option<StopReason>,
}

/// A sweep: the dimensions to cross and how to tune each point.
#[derive(Debug, Clone)]
pub struct Sweep<'m> {
    /// Machines, in output order.
    pub machines: Vec<&'m Machine>,
    /// Collectives.
    pub collectives: Vec<Collective>,
    /// Algorithm names to keep (empty: every algorithm). A name applies to the machines and
    /// collectives that have it; every name must exist for at least one of them.
    pub algorithms: Vec<String>,
    /// Buffer states.
    pub states: Vec<BufferStates>,
    /// Message sizes in bytes.
    pub sizes: Vec<u64>,
    /// Thread counts.
    pub threads: Vec<u32>,
    /// Metric of every request.
    pub metric: Metric,
    /// Search options (objective, space shape, fixed parameters); `top` is forced to 1.
    pub search: SearchOptions,
    /// Tune thread counts above a machine's `max_threads` too (the model extrapolates).
    pub extrapolate: bool,
    /// Points tuned in parallel per chunk (at least 1).
    pub chunk: usize,
}

impl<'m> Sweep<'m> {
    /// A latency sweep of `machines` × `collectives` × `threads`, one small item, buffers in E,
    /// objective min, after checking that every machine models every collective.
    pub fn new(
        machines: Vec<&'m Machine>,
        collectives: Vec<Collective>,
        threads: Vec<u32>,
    ) -> Result<Self, SweepError> {
        let sweep = Sweep {
            machines,
            collectives,
            algorithms: Vec::new(),
            states: vec![BufferStates::default()],
            sizes: vec![0],
            threads,
            metric: Metric::Latency,
            search: SearchOptions::new(Objective::Min, 1),
            extrapolate: false,
            chunk: default_chunk(),
        };
        sweep.check()?;
        Ok(sweep)
    }

    /// Check the sweep: no empty dimension, valid thread counts and sizes, every (machine,
    /// collective) pair modelled, every algorithm name known.
    pub fn check(&self) -> Result<(), SweepError> {
        for (name, empty) in [
            ("machine", self.machines.is_empty()),
            ("collective", self.collectives.is_empty()),
            ("buffer state", self.states.is_empty()),
            ("message size", self.sizes.is_empty()),
            ("thread count", self.threads.is_empty()),
        ] {
            if empty {
                return Err(SweepError::Empty(name));
            }
        }
        self.search.limits.check(&self.estimate())?;
        for &t in &self.threads {
            Request::new(Collective::Barrier, t).map_err(|e| SweepError::Request(e.to_string()))?;
        }
        for &s in &self.sizes {
            Request::new(Collective::Barrier, 2)
                .and_then(|r| r.with_size(s))
                .map_err(|e| SweepError::Request(e.to_string()))?;
        }
        let mut known = vec![false; self.algorithms.len()];
        for machine in &self.machines {
            for &collective in &self.collectives {
                let algorithms = machine.algorithms_for(collective);
                if algorithms.is_empty() {
                    let models: Vec<String> = machine
                        .collectives()
                        .iter()
                        .map(|c| c.to_string())
                        .collect();
                    return Err(TuneError::NoAlgorithm(format!(
                        "{} has no model for {collective} (it models: {})",
                        machine.name,
                        models.join(", ")
                    ))
                    .into());
                }
                for (i, name) in self.algorithms.iter().enumerate() {
                    known[i] |= algorithms.iter().any(|a| a.name() == name);
                }
            }
        }
        if let Some(i) = known.iter().position(|k| !k) {
            let mut names: Vec<&str> = Vec::new();
            for machine in &self.machines {
                for &collective in &self.collectives {
                    for a in machine.algorithms_for(collective) {
                        if !names.contains(&a.name()) {
                            names.push(a.name());
                        }
                    }
                }
            }
            return Err(TuneError::NoAlgorithm(format!(
                "no swept machine has an algorithm named `{}` for {} (they have: {})",
                self.algorithms[i],
                self.collectives
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                names.join(", ")
            ))
            .into());
        }
        Ok(())
    }

    /// Number of points (machine, collective, state, size, threads), skipped ones included.
    pub fn points(&self) -> u64 {
        [
            self.machines.len(),
            self.collectives.len(),
            self.states.len(),
            self.sizes.len(),
            self.threads.len(),
        ]
        .iter()
        .map(|&n| n as u64)
        .product()
    }

    /// The size of the sweep: its points (each one tuning every algorithm once).
    pub fn estimate(&self) -> WorkEstimate {
        WorkEstimate {
            what: "sweep points".into(),
            units: self.points(),
        }
    }

    /// The rows, streamed chunk by chunk (see the module docs). The time limit starts now.
    pub fn rows(&self) -> Rows<'_, 'm> {
        let total = self.points();
        self.search.progress.begin("sweep points", Some(total));
        Rows {
            sweep: self,
            next_point: 0,
            total,
            buffer: VecDeque::new(),
            stats: SweepStats::default(),
            deadline: self.search.limits.deadline(),
            finished: false,
        }
    }

    /// Call `on_row` for every row in order; stop early when it returns `Err`.
    pub fn for_each<E>(
        &self,
        mut on_row: impl FnMut(Row) -> Result<(), E>,
    ) -> Result<SweepStats, E> {
        let mut rows = self.rows();
        for row in rows.by_ref() {
            on_row(row)?;
        }
        Ok(rows.stats())
    }

    fn point(&self, index: u64) -> Point<'m> {
        let mut i = index;
        let mut take = |n: usize| {
            let n = n as u64;
            let v = (i % n) as usize;
            i /= n;
            v
        };
        let threads = self.threads[take(self.threads.len())];
        let size = self.sizes[take(self.sizes.len())];
        let state = self.states[take(self.states.len())];
        let collective = self.collectives[take(self.collectives.len())];
        let machine = self.machines[take(self.machines.len())];
        Point {
            machine,
            collective,
            state,
            size,
            threads,
        }
    }

    /// The request of a point, `None` when it is beyond the machine (without `extrapolate`) or
    /// not a valid request.
    fn request(&self, p: &Point<'m>) -> Option<Request> {
        if p.threads > p.machine.max_threads && !self.extrapolate {
            return None;
        }
        Request::new(p.collective, p.threads)
            .and_then(|r| r.with_size(p.size))
            .map(|r| r.with_state(p.state).with_metric(self.metric))
            .ok()
    }

    /// The algorithms of a point the sweep reports: the selected ones the machine has.
    fn selected(&self, p: &Point<'m>) -> Vec<&'static str> {
        p.machine
            .algorithms_for(p.collective)
            .iter()
            .map(|a| a.name())
            .filter(|n| self.algorithms.is_empty() || self.algorithms.iter().any(|s| s == n))
            .collect()
    }

    /// How many points will search until the work budget is spent and be answered NOT proven
    /// optimal ([`crate::search::preflight`]: an exact search over the budget), known before
    /// the sweep starts. The look-ahead builds each point's spaces, so it is bounded twice: no
    /// look at all past [`PREFLIGHT_POINTS`] points (`None`), and the points are looked at in
    /// order only until [`PREFLIGHT_WORK`] units are spent ([`crate::search::Preflight::work`]),
    /// which [`OverBudget::looked`] says. A
    /// point tunes every algorithm of its collective when more than one is selected, so all of
    /// them are asked.
    pub fn points_over_budget(&self) -> Option<OverBudget> {
        let total = self.points();
        if total > PREFLIGHT_POINTS {
            return None;
        }
        let mut found = OverBudget {
            points: 0,
            looked: 0,
        };
        let mut work = 0u64;
        for index in 0..total {
            if work > PREFLIGHT_WORK {
                break;
            }
            found.looked += 1;
            let p = self.point(index);
            let Some(request) = self.request(&p) else {
                continue;
            };
            let names = self.selected(&p);
            let mut heavy = false;
            for a in p.machine.algorithms_for(p.collective) {
                if names.len() > 1 || names.contains(&a.name()) {
                    let seen = crate::search::preflight(a.as_ref(), &request, &self.search);
                    heavy |= seen.runs_to_budget;
                    work = work.saturating_add(seen.work);
                }
            }
            found.points += u64::from(heavy);
        }
        Some(found)
    }

    fn evaluate(&self, p: &Point<'m>, deadline: Deadline) -> Outcome {
        if p.threads > p.machine.max_threads && !self.extrapolate {
            return Outcome::BeyondMachine;
        }
        let Some(request) = self.request(p) else {
            return Outcome::NotApplicable;
        };
        // The sweep reports progress in points; the searches inside report nothing.
        let options = SearchOptions {
            top: 1,
            progress: Progress::none(),
            ..self.search.clone()
        };
        let names = self.selected(p);
        if names.is_empty() {
            return Outcome::NotApplicable;
        }
        // With one algorithm, tune only it; otherwise tune all and keep the selected ones, so the
        // winner follows the tuner's total order.
        let only = match names.as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        let tuning = match tune_until(p.machine, &request, &options, only, deadline) {
            Ok(tuning) => tuning,
            Err(TuneError::Budget { .. }) => return Outcome::OverBudget,
            Err(_) => return Outcome::NotApplicable,
        };
        let exact = tuning.complete();
        let winner = tuning
            .ranking
            .iter()
            .find(|c| names.contains(&c.algorithm.as_str()))
            .map(|c| c.algorithm.clone());
        let Some(winner) = winner else {
            return Outcome::NotApplicable;
        };
        let rows = tuning
            .algorithms
            .iter()
            .filter(|a| names.contains(&a.algorithm.as_str()))
            .filter_map(|a| {
                let best = a.best.first()?;
                Some(Row {
                    machine: p.machine.name.clone(),
                    collective: p.collective,
                    state: p.state,
                    threads: p.threads,
                    size_bytes: p.size,
                    algorithm: a.algorithm.clone(),
                    params: best.params.clone(),
                    t_min_ns: round3(best.cost.min_ns),
                    t_max_ns: round3(best.cost.max_ns),
                    throughput_bytes_per_s: best.cost.throughput_bytes_per_s.map(round3),
                    score: best.score,
                    winner: a.algorithm == winner,
                    exact: a.exactness.is_exact(),
                    gap_percent: match a.exactness {
                        Exactness::Bounded { gap_percent, .. } => gap_percent.map(round3),
                        Exactness::Exact => None,
                    },
                })
            })
            .collect();
        Outcome::Rows(rows, exact)
    }
}

/// The most points [`Sweep::points_over_budget`] looks at.
pub const PREFLIGHT_POINTS: u64 = 10_000;

/// The most work units [`Sweep::points_over_budget`] spends building spaces: 5·10⁵, at most a
/// few tenths of a second, spent before the sweep's time limit starts (a graph-priced space of
/// 1,024 threads, 1,048,576 units, takes 0.15–0.7 s to build since its bounds count the
/// threads of each socket, docs/perf.md; 2·10⁶ before, when it took 40–60 ms).
pub const PREFLIGHT_WORK: u64 = 500_000;

/// The points of a sweep over the work budget, as far as [`Sweep::points_over_budget`] looked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    /// Points (among those looked at) whose exact search is over the work budget.
    pub points: u64,
    /// Points looked at, from the first: all of them, or fewer when the look-ahead's work cap
    /// stopped it (then `points` is a lower bound for the sweep).
    pub looked: u64,
}

fn default_chunk() -> usize {
    (crate::parallel::workers() * 16).max(16)
}

#[derive(Debug, Clone, Copy)]
struct Point<'m> {
    machine: &'m Machine,
    collective: Collective,
    state: BufferStates,
    size: u64,
    threads: u32,
}

enum Outcome {
    /// The rows of a point, and whether every search of the point completed.
    Rows(Vec<Row>, bool),
    BeyondMachine,
    NotApplicable,
    OverBudget,
}

/// The rows of a sweep, in order; tuned one chunk of points at a time.
#[derive(Debug)]
pub struct Rows<'s, 'm> {
    sweep: &'s Sweep<'m>,
    next_point: u64,
    total: u64,
    buffer: VecDeque<Row>,
    stats: SweepStats,
    deadline: Deadline,
    finished: bool,
}

impl Rows<'_, '_> {
    /// Points tuned so far and in all, for progress reports.
    pub fn progress(&self) -> (u64, u64) {
        (self.next_point, self.total)
    }

    /// Counters so far (final once the iterator is exhausted).
    pub fn stats(&self) -> SweepStats {
        self.stats
    }

    fn fill(&mut self) {
        while self.buffer.is_empty() && self.next_point < self.total {
            if self.stats.stopped.is_none() && self.deadline.passed() {
                self.stats.stopped = Some(self.deadline.reason());
            }
            if self.stats.stopped.is_some() {
                break;
            }
            let end = (self.next_point + self.sweep.chunk.max(1) as u64).min(self.total);
            let sweep = self.sweep;
            let deadline = self.deadline;
            let indices: Vec<u64> = (self.next_point..end).collect();
            // Each point's searches may take the memory limit: no more points at once than the
            // memory available holds.
            let at_once = sweep.search.searches_at_once();
            let outcomes: Vec<Outcome> =
                crate::parallel::map_owned_at_most(indices, at_once, |i| {
                    sweep.evaluate(&sweep.point(i), deadline)
                });
            self.stats.points += end - self.next_point;
            self.sweep.search.progress.advance(end - self.next_point);
            self.next_point = end;
            for outcome in outcomes {
                match outcome {
                    Outcome::Rows(rows, exact) => {
                        self.stats.rows += rows.len() as u64;
                        self.stats.not_exact += u64::from(!exact);
                        self.buffer.extend(rows);
                    }
                    Outcome::BeyondMachine => self.stats.beyond_machine += 1,
                    Outcome::NotApplicable => self.stats.not_applicable += 1,
                    Outcome::OverBudget => self.stats.over_budget += 1,
                }
            }
        }
        if self.buffer.is_empty() && !self.finished {
            self.finished = true;
            self.sweep.search.progress.finish();
        }
    }
}

impl Iterator for Rows<'_, '_> {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        if self.buffer.is_empty() {
            self.fill();
        }
        self.buffer.pop_front()
    }
}

/// Sizes from `lo` to `hi` bytes in powers of two: `lo`, `2·lo`, `4·lo`, ... and `hi` itself
/// (a log-scale axis). A `lo` of 0 contributes the single point 0 (one small item) and the
/// doubling then starts at 1 byte.
pub fn log_sizes(lo: u64, hi: u64) -> Vec<u64> {
    let mut sizes = Vec::new();
    if lo > hi {
        return sizes;
    }
    let mut s = lo;
    if s == 0 {
        sizes.push(0);
        s = 1;
    }
    while s < hi {
        sizes.push(s);
        s = s.saturating_mul(2);
    }
    if hi > 0 || sizes.is_empty() {
        sizes.push(hi);
    }
    sizes.dedup();
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sizes_cover_both_ends() {
        assert_eq!(log_sizes(32, 256), vec![32, 64, 128, 256]);
        assert_eq!(log_sizes(32, 100), vec![32, 64, 100]);
        assert_eq!(log_sizes(0, 4), vec![0, 1, 2, 4]);
        assert_eq!(log_sizes(0, 0), vec![0]);
        assert_eq!(log_sizes(7, 7), vec![7]);
        assert!(log_sizes(8, 4).is_empty());
        assert_eq!(log_sizes(32, 1 << 20).len(), 16);
    }
}
