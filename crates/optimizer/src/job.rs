//! One checked request for every front end: the CLI, the Python module and the C library all
//! build a [`TuneJob`] (or call [`sweep`]) and read the answer as a [`Report`] (or sweep
//! [`Row`]s), so a request is validated once, by one policy, and a result is rendered from one
//! type.
//!
//! A job is built in two stages, as in ripgrep: a [`TuneJobBuilder`] collects raw values,
//! [`TuneJobBuilder::build`] checks them against the machine (thread policy
//! [`check_threads`], metric offered by the machine's family, `top ≥ 1`, the model's own request
//! checks) and returns a [`TuneJob`] that cannot fail for those reasons again;
//! [`TuneJob::run`] tunes it.
//!
//! Every error is a [`JobError`] whose `Display` is the one line the CLI prints after
//! `modelopt: error: ` (flag names included, so that a message reads the same whichever front
//! end produced it); [`one_line`] renders an error with its causes the way the CLI does.
//!
//! ```
//! use modelopt_model::{machine, Collective, Params};
//! use modelopt_optimizer::job::TuneJob;
//! let phi = machine::load("xeon-phi").unwrap();
//! let report = TuneJob::builder(&phi, Collective::Barrier, 60).build().unwrap().run().unwrap();
//! // Seed 000, Table B.2: the dissemination barrier with m = 4, r = 3 at 60 threads.
//! assert_eq!(report.params, Params::Dissemination { degree: 4, rounds: 3 });
//! // top is 5 by default: the best and the next four (other degrees m of the same barrier).
//! assert_eq!(report.alternatives.len(), 4);
//!
//! let err = TuneJob::builder(&phi, Collective::Barrier, 1).build().unwrap_err();
//! assert_eq!(err.to_string(), "threads = 1: a collective needs at least 2 threads");
//! ```

use crate::objective::Objective;
use crate::report::Report;
use crate::search::SearchOptions;
use crate::sweep::{Row, Sweep, SweepError, SweepStats};
use crate::tuner::{tune, TuneError};
use modelopt_model::request::MAX_THREADS;
use modelopt_model::{
    BufferStates, Collective, Machine, Metric, ModelError, Request, SpaceOptions, SpecError,
};

/// The most points (thread counts × sizes) one [`sweep`] call tunes and returns at once, so
/// that a caller's range cannot make the answer unbounded (a longer sweep is several calls, or
/// [`Sweep::rows`], which streams).
pub const MAX_SWEEP_POINTS: u64 = 100_000;

/// Why a job cannot be built or run. `Display` is one line, the CLI's message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum JobError {
    /// The machine could not be loaded.
    #[error(transparent)]
    Machine(#[from] SpecError),
    /// Fewer than 2 threads.
    #[error("threads = {threads}: a collective needs at least 2 threads")]
    TooFewThreads {
        /// The thread count asked for.
        threads: i64,
    },
    /// More threads than the machine runs, without `extrapolate`.
    #[error(
        "threads = {threads}: {machine} runs at most {max_threads} threads; extrapolation models more"
    )]
    BeyondMachine {
        /// The thread count asked for.
        threads: i64,
        /// The machine's name.
        machine: String,
        /// The machine's `max_threads`.
        max_threads: u32,
    },
    /// More threads than any model handles ([`MAX_THREADS`]).
    #[error("threads = {threads}: modelopt models at most {max} threads")]
    BeyondModels {
        /// The thread count asked for.
        threads: i64,
        /// [`MAX_THREADS`].
        max: u32,
    },
    /// A metric the machine's family does not predict.
    #[error("metric = {metric}: the {family} models of {machine} predict {offered} only")]
    MetricNotOffered {
        /// The metric asked for.
        metric: Metric,
        /// The family's name.
        family: String,
        /// The machine's name.
        machine: String,
        /// The metrics the family offers, joined with ` and `.
        offered: String,
    },
    /// `top` is 0.
    #[error("top = 0: at least the best configuration must be kept (top = 1)")]
    NoTop,
    /// A value the model refuses (e.g. a message size above the largest modelled one).
    #[error(transparent)]
    Request(#[from] ModelError),
    /// The tuner found no algorithm, an unknown algorithm name or a bad fixed parameter.
    #[error("{collective} on {machine}: {error}")]
    Tune {
        /// The collective tuned.
        collective: Collective,
        /// The machine's name.
        machine: String,
        /// What the tuner said (kept out of the error chain: the message already says it).
        error: TuneError,
    },
    /// Every algorithm was tried and none produced a configuration.
    #[error("no configuration was found")]
    NoConfiguration,
    /// A sweep that cannot be run.
    #[error(transparent)]
    Sweep(#[from] SweepError),
    /// A sweep larger than [`MAX_SWEEP_POINTS`].
    #[error("the sweep has {points} points; at most {max} per call (split it)")]
    SweepTooLarge {
        /// Thread counts × sizes.
        points: u64,
        /// [`MAX_SWEEP_POINTS`].
        max: u64,
    },
    /// A value that is not what its parameter takes (a front end's own parsing, e.g. a Python
    /// string that names no collective): the parameter and what is wrong.
    #[error("{0}")]
    Invalid(String),
}

/// Render an error and its causes on one line, `outer: cause: cause`, as the CLI prints it.
pub fn one_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text.replace('\n', " ")
}

/// The one thread-count policy of every front end: at least 2, at most the machine's
/// `max_threads` unless `extrapolate`, never above [`MAX_THREADS`]. Takes any integer (a
/// front end may receive a negative or huge one) and returns it as a checked `u32`.
///
/// ```
/// use modelopt_model::machine;
/// use modelopt_optimizer::job::check_threads;
/// let phi = machine::load("xeon-phi").unwrap(); // max_threads = 240
/// assert_eq!(check_threads(&phi, 240, false).unwrap(), 240);
/// assert!(check_threads(&phi, 241, false).is_err());
/// assert_eq!(check_threads(&phi, 241, true).unwrap(), 241);
/// assert!(check_threads(&phi, 1 << 21, true).is_err()); // above MAX_THREADS = 2^20
/// ```
pub fn check_threads(machine: &Machine, threads: i64, extrapolate: bool) -> Result<u32, JobError> {
    if threads < 2 {
        return Err(JobError::TooFewThreads { threads });
    }
    if threads > i64::from(machine.max_threads) && !extrapolate {
        return Err(JobError::BeyondMachine {
            threads,
            machine: machine.name.clone(),
            max_threads: machine.max_threads,
        });
    }
    match u32::try_from(threads) {
        Ok(t) if t <= MAX_THREADS => Ok(t),
        _ => Err(JobError::BeyondModels {
            threads,
            max: MAX_THREADS,
        }),
    }
}

/// Refuse a metric the machine's family does not predict (the family registry says which).
pub fn check_metric(machine: &Machine, metric: Metric) -> Result<(), JobError> {
    let family = machine.family_entry();
    if family.offers(metric) {
        return Ok(());
    }
    let offered: Vec<String> = family.metrics.iter().map(ToString::to_string).collect();
    Err(JobError::MetricNotOffered {
        metric,
        family: family.name.to_string(),
        machine: machine.name.clone(),
        offered: offered.join(" and "),
    })
}

/// The raw values of a tuning job; [`TuneJobBuilder::build`] checks them.
#[derive(Debug, Clone)]
pub struct TuneJobBuilder<'m> {
    machine: &'m Machine,
    collective: Collective,
    threads: i64,
    size_bytes: u64,
    state: BufferStates,
    metric: Metric,
    top: usize,
    algorithm: Option<String>,
    extrapolate: bool,
    options: SearchOptions,
}

impl<'m> TuneJobBuilder<'m> {
    /// Message size in bytes (default 0: one small item).
    pub fn size(mut self, size_bytes: u64) -> Self {
        self.size_bytes = size_bytes;
        self
    }

    /// Initial buffer states (default `E`).
    pub fn state(mut self, state: BufferStates) -> Self {
        self.state = state;
        self
    }

    /// Metric (default latency).
    pub fn metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    /// Objective (default min).
    pub fn objective(mut self, objective: Objective) -> Self {
        self.options.objective = objective;
        self
    }

    /// How many ranked configurations the report shows, the best included (default 5;
    /// at least 1).
    pub fn top(mut self, top: usize) -> Self {
        self.top = top;
        self
    }

    /// Tune only the algorithm of this name (default: every algorithm of the collective).
    pub fn algorithm(mut self, algorithm: Option<String>) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Pin parameters to values (`k = 7`).
    pub fn fix(mut self, fixed: Vec<(String, i64)>) -> Self {
        self.options.fixed = fixed;
        self
    }

    /// Shape of the search spaces (tree ordering, rounds rule, root, tree search).
    pub fn space(mut self, space: SpaceOptions) -> Self {
        self.options.space = space;
        self
    }

    /// Every search option at once (objective, space, fixed parameters and whatever else the
    /// search takes); `top` is set from [`TuneJobBuilder::top`] when the job is built.
    pub fn search_options(mut self, options: SearchOptions) -> Self {
        self.options = options;
        self
    }

    /// Model thread counts above the machine's `max_threads` (default false).
    pub fn extrapolate(mut self, extrapolate: bool) -> Self {
        self.extrapolate = extrapolate;
        self
    }

    /// Check every value once: threads ([`check_threads`]), metric ([`check_metric`]),
    /// `top ≥ 1`, and the model's request checks (size).
    pub fn build(self) -> Result<TuneJob<'m>, JobError> {
        let threads = check_threads(self.machine, self.threads, self.extrapolate)?;
        check_metric(self.machine, self.metric)?;
        if self.top == 0 {
            return Err(JobError::NoTop);
        }
        let request = Request::new(self.collective, threads)?
            .with_size(self.size_bytes)?
            .with_state(self.state)
            .with_metric(self.metric);
        let mut options = self.options;
        options.top = self.top;
        Ok(TuneJob {
            machine: self.machine,
            collective: self.collective,
            request,
            top: self.top,
            algorithm: self.algorithm,
            options,
        })
    }
}

/// A checked tuning job: a machine, a valid request and its search options.
#[derive(Debug, Clone)]
pub struct TuneJob<'m> {
    machine: &'m Machine,
    // Kept beside the request so that this module reads no request field (the request's
    // fields are the model's to keep private).
    collective: Collective,
    request: Request,
    top: usize,
    algorithm: Option<String>,
    options: SearchOptions,
}

impl<'m> TuneJob<'m> {
    /// A job for `collective` on `threads` threads of `machine`, with the defaults of the CLI:
    /// one small item, buffers in E, latency, objective min, top 5, every algorithm, no
    /// extrapolation.
    pub fn builder(
        machine: &'m Machine,
        collective: Collective,
        threads: i64,
    ) -> TuneJobBuilder<'m> {
        TuneJobBuilder {
            machine,
            collective,
            threads,
            size_bytes: 0,
            state: BufferStates::default(),
            metric: Metric::Latency,
            top: 5,
            algorithm: None,
            extrapolate: false,
            options: SearchOptions::new(Objective::Min, 5),
        }
    }

    /// The machine.
    pub fn machine(&self) -> &'m Machine {
        self.machine
    }

    /// The checked request.
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The search options the job runs with.
    pub fn options(&self) -> &SearchOptions {
        &self.options
    }

    /// Tune: rank every algorithm (or the one asked for), and report the best with `top − 1`
    /// alternatives, every algorithm's line, the winner's cost terms and the estimated machine
    /// parameters its cost depends on ([`modelopt_model::perturb::params_used`]).
    pub fn run(&self) -> Result<Report, JobError> {
        let tuning = tune(
            self.machine,
            &self.request,
            &self.options,
            self.algorithm.as_deref(),
        )
        .map_err(|error| JobError::Tune {
            collective: self.collective,
            machine: self.machine.name.clone(),
            error,
        })?;
        let mut report = Report::new(
            &self.machine.name,
            &tuning,
            &self.options.objective,
            self.top - 1,
        )
        .ok_or(JobError::NoConfiguration)?;
        report.estimated_params = self.estimates_used(&report);
        Ok(report)
    }

    /// The estimated parameters the winning configuration's cost depends on.
    fn estimates_used(&self, report: &Report) -> Vec<String> {
        let keys: Vec<String> = self
            .machine
            .estimated_params()
            .into_iter()
            .map(|p| p.key)
            .collect();
        if keys.is_empty() {
            return keys;
        }
        modelopt_model::perturb::params_used(
            self.machine,
            &keys,
            &self.request,
            &report.algorithm,
            &report.params,
        )
    }
}

/// Sweep one collective on one machine over thread counts × sizes (buffers E, latency,
/// objective min): one [`Row`] per algorithm and point, in the order of [`Sweep`] (sizes
/// outer, threads inner), thread counts above `max_threads` skipped unless `extrapolate`.
///
/// Thread counts and sizes are checked by the sweep ([`Sweep::check`]); at most
/// [`MAX_SWEEP_POINTS`] points per call.
///
/// ```
/// use modelopt_model::{machine, Collective};
/// use modelopt_optimizer::job::sweep;
/// let phi = machine::load("xeon-phi").unwrap();
/// let rows = sweep(&phi, Collective::Barrier, vec![2, 60], vec![0], false).unwrap();
/// // One barrier algorithm, two thread counts; seed 000 Table B.2 at 60 threads: m = 4, r = 3.
/// assert_eq!(rows.len(), 2);
/// assert_eq!(rows[1].params.to_string(), "m=4 r=3");
/// ```
pub fn sweep(
    machine: &Machine,
    collective: Collective,
    threads: Vec<u32>,
    sizes: Vec<u64>,
    extrapolate: bool,
) -> Result<Vec<Row>, JobError> {
    sweep_with(
        machine,
        collective,
        threads,
        sizes,
        extrapolate,
        None,
        SearchOptions::new(Objective::Min, 1),
    )
    .map(|(rows, _)| rows)
}

/// [`sweep`] with the search's options (objective, rooted-tree root, placement and method,
/// work budget, and a time limit for the whole sweep) and one algorithm or all (`None`), as
/// `modelopt sweep` takes them; also the sweep's counters, which say how many points are not
/// proven optimal and whether the time limit stopped it.
pub fn sweep_with(
    machine: &Machine,
    collective: Collective,
    threads: Vec<u32>,
    sizes: Vec<u64>,
    extrapolate: bool,
    algorithm: Option<String>,
    options: SearchOptions,
) -> Result<(Vec<Row>, SweepStats), JobError> {
    let points = (threads.len() as u64).saturating_mul(sizes.len() as u64);
    if points > MAX_SWEEP_POINTS {
        return Err(JobError::SweepTooLarge {
            points,
            max: MAX_SWEEP_POINTS,
        });
    }
    let mut plan = Sweep::new(vec![machine], vec![collective], threads)?;
    plan.sizes = sizes;
    plan.extrapolate = extrapolate;
    plan.algorithms = algorithm.into_iter().collect();
    plan.search = SearchOptions { top: 1, ..options };
    plan.check()?;
    let mut rows = plan.rows();
    let collected: Vec<Row> = rows.by_ref().collect();
    Ok((collected, rows.stats()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelopt_model::machine;

    #[test]
    fn thread_policy_messages_are_the_clis() {
        let phi = machine::load("xeon-phi").unwrap();
        // xeon-phi runs 240 threads (60 cores × 4 hardware threads).
        assert_eq!(
            check_threads(&phi, 241, false).unwrap_err().to_string(),
            "threads = 241: xeon-phi runs at most 240 threads; extrapolation models more"
        );
        assert_eq!(
            check_threads(&phi, -3, true).unwrap_err().to_string(),
            "threads = -3: a collective needs at least 2 threads"
        );
        // 2^20 = 1048576 is the models' limit; 2^40 does not fit a u32 at all.
        assert_eq!(
            check_threads(&phi, 1 << 40, true).unwrap_err().to_string(),
            "threads = 1099511627776: modelopt models at most 1048576 threads"
        );
        assert_eq!(check_threads(&phi, 1 << 20, true).unwrap(), 1 << 20);
    }

    #[test]
    fn top_zero_is_refused() {
        let phi = machine::load("xeon-phi").unwrap();
        let err = TuneJob::builder(&phi, Collective::Bcast, 60)
            .top(0)
            .build()
            .unwrap_err();
        assert_eq!(err, JobError::NoTop);
    }

    #[test]
    fn unknown_algorithm_names_the_collective_and_machine() {
        let phi = machine::load("xeon-phi").unwrap();
        let err = TuneJob::builder(&phi, Collective::Barrier, 8)
            .algorithm(Some("nope".into()))
            .build()
            .unwrap()
            .run()
            .unwrap_err();
        assert!(
            err.to_string().starts_with("barrier on xeon-phi: "),
            "{err}"
        );
    }

    #[test]
    fn top_bounds_the_alternatives() {
        let phi = machine::load("xeon-phi").unwrap();
        // top 1: the best only; top 3: at most two alternatives.
        let one = TuneJob::builder(&phi, Collective::Bcast, 60)
            .top(1)
            .build()
            .unwrap()
            .run()
            .unwrap();
        assert!(one.alternatives.is_empty());
        let three = TuneJob::builder(&phi, Collective::Bcast, 60)
            .top(3)
            .build()
            .unwrap()
            .run()
            .unwrap();
        assert_eq!(three.alternatives.len(), 2);
        assert_eq!(three.algorithm, one.algorithm);
        assert_eq!(three.params, one.params);
    }

    #[test]
    fn oversized_sweeps_are_refused_before_any_work() {
        let phi = machine::load("xeon-phi").unwrap();
        // 100,001 thread counts × 1 size is one point over the limit.
        let threads: Vec<u32> = (2..100_003).collect();
        let err = sweep(&phi, Collective::Barrier, threads, vec![0], true).unwrap_err();
        assert!(matches!(
            err,
            JobError::SweepTooLarge {
                points: 100_001,
                ..
            }
        ));
    }
}
