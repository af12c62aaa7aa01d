//! # modelopt-optimizer
//!
//! Search for optimal collective parameters under modelopt's cost models.
//!
//! - [`space`]: enumeration of the search spaces algorithms describe (level-degree trees as
//!   minimal covers, dissemination degrees, integer grids);
//! - [`limits`]: work estimates, budgets, time limits, progress and stop reasons of every search;
//! - [`parallel`]: the one place rayon is used;
//! - [`objective`]: what is minimized (min, max, or a blend of the min-max range; throughput);
//! - [`search`]: the driver — iterative branch and bound over trees from a balanced incumbent,
//!   work estimates and limits, a total order for ties, and a naive reference search;
//! - [`rooted_trees`], [`socket_dp`], [`placement`]: optimal rooted trees and their socket
//!   placement for CLa broadcasts; [`socket_dp`] is the exact DP over trees and placements
//!   together; [`socket_line_dp`] the exact DP of a cost with one line per socket over L3
//!   domains (a relaxation whose optimum bounds a graph-priced space);
//! - [`job`]: one checked request for every front end (CLI, Python, C): build, validate once,
//!   run, get a [`Report`];
//! - [`report`]: the stable JSON result schema;
//! - [`tuner`]: algorithm choice across every algorithm a machine models for a collective;
//! - [`sweep`]: design-space sweeps (machines × collectives × states × sizes × threads), streamed
//!   in a deterministic order;
//! - [`sensitivity`]: how sure an optimum is — one-at-a-time parameter ranges and Monte Carlo over
//!   the measured spreads.
//!
//! The search knows candidates and costs, not machines: a model family describes its spaces and
//! prices configurations through [`modelopt_model::Algorithm`].
//!
//! ```
//! use modelopt_model::{machine, Collective, Params, Request};
//! use modelopt_optimizer::{tune, Objective, SearchOptions};
//! let phi = machine::load("xeon-phi").unwrap();
//! let request = Request::new(Collective::Barrier, 60).unwrap();
//! let tuning = tune(&phi, &request, &SearchOptions::new(Objective::Min, 3), None).unwrap();
//! // Seed 000, Table B.2: m = 4, r = 3 at 60 threads.
//! assert_eq!(tuning.best().unwrap().scored.params, Params::Dissemination { degree: 4, rounds: 3 });
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The README's Rust examples, compiled and run as doctests so the front page cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
mod readme {}

/// docs/api.md's Rust example, compiled and run as a doctest so the API page cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/api.md")]
mod api_page {}

pub mod job;
pub mod limits;
pub mod objective;
pub mod parallel;
pub mod placement;
pub mod priced_trees;
pub mod report;
pub mod rooted_trees;
pub mod search;
pub mod sensitivity;
pub mod socket_dp;
pub mod socket_line_dp;
pub mod space;
pub mod sweep;
pub mod tuner;

pub use job::{JobError, TuneJob, TuneJobBuilder};
pub use limits::{
    BudgetExceeded, Deadline, Exactness, Limits, Progress, ProgressSink, RowsExceeded, StopReason,
    WorkEstimate,
};
pub use objective::Objective;
pub use report::{AlgorithmLine, Alternative, Report};
pub use search::{
    rank, rank_naive, rank_until, Ranked, Scored, SearchError, SearchOptions, SearchStats,
};
pub use sensitivity::{Analysis, MonteCarloOptions, RangeOptions, SensitivityError};
pub use sweep::{Row, Sweep, SweepError, SweepStats};
pub use tuner::{tune, tune_until, AlgorithmOutcome, Choice, TuneError, Tuning};
