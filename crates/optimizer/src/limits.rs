//! Limits of a search and why it stopped.
//!
//! Every search in this crate knows how large it is before it starts ([`WorkEstimate`]), obeys the
//! caller's [`Limits`] (a wall-clock time limit and a work budget counted in priced candidates or
//! DP states), reports progress through a [`ProgressSink`], and says why it ended
//! ([`StopReason`], after egg's `StopReason`). A search stopped early returns the best found so
//! far, marked not exact ([`Exactness::Bounded`]) with a certified lower bound when it has one.
//!
//! The optimizer prints nothing: the CLI turns a [`ProgressSink`] into a progress bar.

use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How much a search may do. The default has no time limit and the default work budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Wall-clock limit; when it passes, the search stops and returns the best found so far.
    pub time_limit: Option<Duration>,
    /// Largest amount of work (candidates priced, or DP states) a search may start. A search whose
    /// estimate exceeds it refuses up front ([`BudgetExceeded`]) instead of running for hours.
    pub work_budget: u64,
}

/// The default work budget: about ten seconds of pricing on one core for the cheapest models;
/// larger searches are refused up front with their size (raise it with `--budget`).
pub const DEFAULT_WORK_BUDGET: u64 = 100_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time_limit: None,
            work_budget: DEFAULT_WORK_BUDGET,
        }
    }
}

/// The longest time limit a caller may set: a week.
pub const MAX_TIME_LIMIT_SECONDS: f64 = 604_800.0;

/// A time limit given in seconds, checked once for every front end: above 0 and at most
/// [`MAX_TIME_LIMIT_SECONDS`] (NaN and infinities refused).
pub fn time_limit_seconds(seconds: f64) -> Result<Duration, String> {
    if !(seconds > 0.0 && seconds <= MAX_TIME_LIMIT_SECONDS) {
        return Err(format!(
            "{seconds} s: give a time above 0 and at most {MAX_TIME_LIMIT_SECONDS} s (a week)"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

impl Limits {
    /// The point in time at which a search started now must stop.
    pub fn deadline(&self) -> Deadline {
        Deadline {
            at: self.time_limit.and_then(|d| Instant::now().checked_add(d)),
            limit: self.time_limit,
        }
    }

    /// Refuse work whose estimate exceeds the budget.
    pub fn check(&self, estimate: &WorkEstimate) -> Result<(), BudgetExceeded> {
        if estimate.units > self.work_budget {
            Err(BudgetExceeded {
                what: estimate.what.clone(),
                estimate: estimate.units,
                budget: self.work_budget,
            })
        } else {
            Ok(())
        }
    }
}

/// A search's size, known before it starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkEstimate {
    /// What is counted ("rooted trees × placements", "DP states", "level-degree candidates").
    pub what: String,
    /// How many (an upper bound where the exact count is unknown; saturating).
    pub units: u64,
}

/// A search refused because its estimated size exceeds the work budget.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("this search would price {} {what}, over the work budget of {budget}", if *.estimate == u64::MAX { "more than 1.8·10¹⁹".to_string() } else { format!("about {}", .estimate) })]
pub struct BudgetExceeded {
    /// What is counted.
    pub what: String,
    /// The estimate.
    pub estimate: u64,
    /// The budget in force.
    pub budget: u64,
}

/// Memory a ranking may hold for its kept rows: 1 GiB.
pub const RANKING_MEMORY_LIMIT: u64 = 1 << 30;

/// Bytes a kept tree row holds per tree level (its degree, stored in the ranking's key and in
/// its value: 2 × 4 bytes).
const BYTES_PER_KEPT_LEVEL: u64 = 8;

/// A ranking refused before it starts because its kept rows could exceed
/// [`RANKING_MEMORY_LIMIT`]: a tree of n threads may have up to n − 1 levels (a chain), so
/// keeping many rows of a large tree space is a memory blow-up, not a slow search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("keeping the best {rows} trees of up to {levels} levels each could take {} MiB, over the {} MiB limit; at most {max_rows} rows fit", .bytes / (1 << 20), RANKING_MEMORY_LIMIT / (1 << 20))]
pub struct RowsExceeded {
    /// Rows asked for.
    pub rows: u64,
    /// Most levels a row can have.
    pub levels: u64,
    /// Worst-case bytes of the kept rows.
    pub bytes: u64,
    /// The most rows that fit the limit.
    pub max_rows: u64,
}

/// Refuse to keep `rows` trees of up to `levels` levels when they could exceed
/// [`RANKING_MEMORY_LIMIT`].
pub fn check_rows(rows: u64, levels: u64) -> Result<(), RowsExceeded> {
    let per_row = levels.max(1).saturating_mul(BYTES_PER_KEPT_LEVEL);
    let bytes = rows.saturating_mul(per_row);
    if bytes > RANKING_MEMORY_LIMIT {
        Err(RowsExceeded {
            rows,
            levels,
            bytes,
            max_rows: RANKING_MEMORY_LIMIT / per_row,
        })
    } else {
        Ok(())
    }
}

/// When a running search must stop. Cheap to check: call [`Deadline::passed`] every few
/// thousand units of work.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Option<Instant>,
    limit: Option<Duration>,
}

impl Deadline {
    /// No deadline.
    pub fn never() -> Self {
        Deadline {
            at: None,
            limit: None,
        }
    }

    /// Whether the time limit has passed.
    pub fn passed(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// The time left (zero once passed), or `None` without a time limit.
    pub fn remaining(&self) -> Option<Duration> {
        self.at
            .map(|at| at.saturating_duration_since(Instant::now()))
    }

    /// The stop reason to report when [`Deadline::passed`].
    pub fn reason(&self) -> StopReason {
        StopReason::TimeLimit {
            seconds: self.limit.map_or(0.0, |d| d.as_secs_f64()),
        }
    }
}

/// Why a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StopReason {
    /// The whole space was searched (or pruned by a sound bound): the result is optimal.
    Complete,
    /// The time limit passed.
    TimeLimit {
        /// The limit, in seconds.
        seconds: f64,
    },
    /// The work budget was used up.
    WorkBudget {
        /// The budget.
        budget: u64,
    },
    /// The search of this space cannot prove an optimum, whatever its budget or time (the
    /// result is the best a heuristic found).
    NoProof {
        /// Why, in a few words.
        why: &'static str,
    },
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Complete => f.write_str("the search completed"),
            StopReason::TimeLimit { seconds } => {
                write!(f, "the time limit of {seconds} s passed")
            }
            StopReason::WorkBudget { budget } => {
                write!(f, "the work budget of {budget} was used up")
            }
            StopReason::NoProof { why } => write!(f, "this search cannot prove an optimum: {why}"),
        }
    }
}

/// Whether a result is proven optimal under the model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Exactness {
    /// Proven optimal: the search was exhaustive or its pruning and decomposition are sound.
    Exact,
    /// Not proven optimal: the best found, why the search stopped, and (when the search can
    /// certify one) a lower bound on the optimum's score with the relative gap.
    Bounded {
        /// Why the search stopped early.
        stopped: StopReason,
        /// A certified lower bound on the optimal score, when known.
        lower_bound: Option<f64>,
        /// (best − lower bound) / lower bound × 100, when the bound is known.
        gap_percent: Option<f64>,
    },
}

impl Exactness {
    /// Whether the result is proven optimal.
    pub fn is_exact(&self) -> bool {
        matches!(self, Exactness::Exact)
    }

    /// A bounded result for `best` with an optional certified `lower_bound`.
    pub fn bounded(stopped: StopReason, best: f64, lower_bound: Option<f64>) -> Self {
        let gap_percent = lower_bound
            .filter(|lb| *lb > 0.0 && best.is_finite())
            .map(|lb| ((best - lb) / lb * 100.0).max(0.0));
        Exactness::Bounded {
            stopped,
            lower_bound,
            gap_percent,
        }
    }
}

/// Receives progress of a long search. Implementations must be cheap and thread-safe; the
/// optimizer calls [`ProgressSink::advance`] from rayon workers.
pub trait ProgressSink: Send + Sync {
    /// A phase starts: what it does and, when known, how many units it will do.
    fn begin(&self, what: &str, total: Option<u64>);
    /// `units` more units are done.
    fn advance(&self, units: u64);
    /// The phase ended.
    fn finish(&self);
}

/// A shareable, optional progress sink (no-op when empty). Compares equal to every other handle,
/// so options that carry one keep their `PartialEq`.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn ProgressSink>>);

impl Progress {
    /// Report to `sink`.
    pub fn to(sink: Arc<dyn ProgressSink>) -> Self {
        Progress(Some(sink))
    }

    /// Report nothing.
    pub fn none() -> Self {
        Progress(None)
    }

    /// See [`ProgressSink::begin`].
    pub fn begin(&self, what: &str, total: Option<u64>) {
        if let Some(s) = &self.0 {
            s.begin(what, total);
        }
    }

    /// See [`ProgressSink::advance`].
    pub fn advance(&self, units: u64) {
        if let Some(s) = &self.0 {
            s.advance(units);
        }
    }

    /// See [`ProgressSink::finish`].
    pub fn finish(&self) {
        if let Some(s) = &self.0 {
            s.finish();
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(sink)"
        } else {
            "Progress(none)"
        })
    }
}

impl PartialEq for Progress {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_refuses_larger_estimates_only() {
        let limits = Limits {
            time_limit: None,
            work_budget: 100,
        };
        let small = WorkEstimate {
            what: "trees".into(),
            units: 100,
        };
        let big = WorkEstimate {
            what: "trees".into(),
            units: 101,
        };
        assert!(limits.check(&small).is_ok());
        let err = limits.check(&big).unwrap_err();
        assert_eq!(
            err.to_string(),
            "this search would price about 101 trees, over the work budget of 100"
        );
    }

    #[test]
    fn gap_is_relative_to_the_bound() {
        // best 110, bound 100: (110 − 100) / 100 = 10 %.
        let e = Exactness::bounded(StopReason::WorkBudget { budget: 5 }, 110.0, Some(100.0));
        match e {
            Exactness::Bounded { gap_percent, .. } => {
                assert!((gap_percent.unwrap() - 10.0).abs() < 1e-12)
            }
            Exactness::Exact => panic!("bounded expected"),
        }
        assert!(!e.is_exact());
    }

    #[test]
    fn kept_rows_are_limited_by_their_worst_case_memory() {
        // 100,000 threads: up to 99,999 levels × 8 bytes = 799,992 bytes a row; 1 GiB holds
        // 1,073,741,824 / 799,992 = 1,342 rows (floor).
        let e = check_rows(100_000, 99_999).unwrap_err();
        assert_eq!(e.max_rows, 1_342);
        assert!(check_rows(1_342, 99_999).is_ok());
        assert!(check_rows(1_343, 99_999).is_err());
        // A thousand rows of a 64-thread tree: 1000 × 63 × 8 bytes, far below.
        assert!(check_rows(1_000, 63).is_ok());
    }

    #[test]
    fn zero_time_limit_has_passed_at_once() {
        let d = Limits {
            time_limit: Some(Duration::ZERO),
            work_budget: 1,
        }
        .deadline();
        assert!(d.passed());
        assert!(!Deadline::never().passed());
    }
}
