//! Limits of a search and why it stopped.
//!
//! Every search in this crate knows how large it is before it starts ([`WorkEstimate`]), obeys the
//! caller's [`Limits`] (a wall-clock time limit, a work budget counted in priced candidates or
//! DP states, and a memory limit on what it keeps), reports progress through a [`ProgressSink`], and says why it ended
//! ([`StopReason`], after egg's `StopReason`). A search stopped early returns the best found so
//! far, marked not exact ([`Exactness::Bounded`]) with a certified lower bound when it has one.
//!
//! The optimizer prints nothing: the CLI turns a [`ProgressSink`] into a progress bar.

use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How much a search may do. The default has no time limit, the default work budget and the
/// default memory limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Wall-clock limit; when it passes, the search stops and returns the best found so far.
    pub time_limit: Option<Duration>,
    /// Largest amount of work (candidates priced, or DP states) a search may start. A search whose
    /// estimate exceeds it refuses up front ([`BudgetExceeded`]) instead of running for hours.
    pub work_budget: u64,
    /// Most bytes a search may keep: the tables of the socket DP and its covering pass (sized
    /// before they are allocated), the Pareto points it stores (counted while it fills), and a
    /// ranking's kept rows ([`check_rows`]). A search that would need more is refused before it
    /// starts, or stops when its points pass it, with [`StopReason::MemoryLimit`]; it is not a
    /// limit on the whole process (the machine file, the output and small buffers are outside).
    pub memory_limit: u64,
}

/// The default work budget: about ten seconds of pricing on one core for the cheapest models;
/// larger searches are refused up front with their size (raise it with `--budget`).
pub const DEFAULT_WORK_BUDGET: u64 = 100_000_000;

/// The default memory limit: 2 GiB (what the socket DP's index alone was allowed before the
/// limit could be set, 2²⁸ entries of 8 bytes). Raise it with `--memory-limit`.
pub const DEFAULT_MEMORY_LIMIT: u64 = 2 << 30;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time_limit: None,
            work_budget: DEFAULT_WORK_BUDGET,
            memory_limit: DEFAULT_MEMORY_LIMIT,
        }
    }
}

/// The least memory limit a caller may set: 1 MiB (below it no table of any search fits).
pub const MIN_MEMORY_LIMIT: u64 = 1 << 20;

/// A memory limit as written on a command line or passed to a binding, checked once for every
/// front end: a whole number of bytes, or a number (fractions allowed) with a binary unit `K`,
/// `M`, `G` or `T` (also `KiB`, `MiB`, `GiB`, `TiB`; 1K = 1,024 bytes), at least
/// [`MIN_MEMORY_LIMIT`] and at most 2⁶⁴ − 1 bytes. The front ends also hold it to the memory
/// the process may use (`modelopt_host::memory::check_limit`): this crate knows searches, not
/// the host.
pub fn memory_limit_bytes(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "t" | "tib" => 40,
        _ => {
            return Err(format!(
                "{text:?}: give bytes, or a number with K, M, G or T (binary: 1K = 1024 bytes), e.g. 4G"
            ))
        }
    };
    let value: f64 = number.parse().map_err(|_| {
        format!("{text:?}: give bytes, or a number with K, M, G or T (binary: 1K = 1024 bytes), e.g. 4G")
    })?;
    let bytes = value * (1u64 << shift) as f64;
    // 2^64 as f64 is exact; every finite value below it converts without saturating.
    if !(bytes.is_finite() && bytes < 18_446_744_073_709_551_616.0) {
        return Err(format!("{text:?}: over 2^64 bytes"));
    }
    let bytes = bytes as u64;
    if bytes < MIN_MEMORY_LIMIT {
        return Err(format!(
            "{text:?}: give at least 1M (1,048,576 bytes); no search's tables fit in less"
        ));
    }
    Ok(bytes)
}

/// `bytes` for people: MiB below 10 GiB, else GiB, rounded up (a need is never understated).
pub fn format_bytes(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    if bytes < 10 * GIB {
        format!("{} MiB", bytes.div_ceil(MIB))
    } else {
        format!("{} GiB", bytes.div_ceil(GIB))
    }
}

/// A limit for people, never rounded: `N GiB` when it is a whole number of GiB from 10 GiB on,
/// else `N MiB` when a whole number of MiB, else its exact bytes. [`format_bytes`] rounds up,
/// right for a need but not for a limit: `10.5M` said as 11 MiB would make a need of 11 MiB
/// (rounded up) beside it look within it.
pub fn format_limit(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    match (bytes % MIB, bytes % GIB) {
        (_, 0) if bytes >= 10 * GIB => format!("{} GiB", bytes / GIB),
        (0, _) => format!("{} MiB", bytes / MIB),
        _ => format!("{bytes} bytes"),
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

impl Limits {
    /// Refuse tables of `bytes` over the memory limit.
    pub fn check_memory(&self, what: &str, bytes: u64) -> Result<(), MemoryExceeded> {
        if bytes > self.memory_limit {
            Err(MemoryExceeded {
                what: what.to_string(),
                bytes,
                limit: self.memory_limit,
            })
        } else {
            Ok(())
        }
    }
}

/// A search refused because what it would keep exceeds the memory limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} would take {}, over the memory limit of {} (raise it with --memory-limit)", format_bytes(*.bytes), format_limit(*.limit))]
pub struct MemoryExceeded {
    /// What would be kept.
    pub what: String,
    /// Its size, bytes (saturating).
    pub bytes: u64,
    /// The limit in force, bytes.
    pub limit: u64,
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

/// Bytes a kept tree row holds per tree level (its degree, stored in the ranking's key and in
/// its value: 2 × 4 bytes).
const BYTES_PER_KEPT_LEVEL: u64 = 8;

/// A ranking refused before it starts because its kept rows could exceed the memory limit
/// ([`Limits::memory_limit`]): a tree of n threads may have up to n − 1 levels (a chain), so
/// keeping many rows of a large tree space is a memory blow-up, not a slow search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("keeping the best {rows} trees of up to {levels} levels each could take {}, over the memory limit of {}; at most {max_rows} rows fit", format_bytes(*.bytes), format_limit(*.limit))]
pub struct RowsExceeded {
    /// Rows asked for.
    pub rows: u64,
    /// Most levels a row can have.
    pub levels: u64,
    /// Worst-case bytes of the kept rows.
    pub bytes: u64,
    /// The memory limit, bytes.
    pub limit: u64,
    /// The most rows that fit the limit.
    pub max_rows: u64,
}

/// Refuse to keep `rows` trees of up to `levels` levels when they could exceed `limit` bytes.
pub fn check_rows(rows: u64, levels: u64, limit: u64) -> Result<(), RowsExceeded> {
    let per_row = levels.max(1).saturating_mul(BYTES_PER_KEPT_LEVEL);
    let bytes = rows.saturating_mul(per_row);
    if bytes > limit {
        Err(RowsExceeded {
            rows,
            levels,
            bytes,
            limit,
            max_rows: limit / per_row,
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

/// Whether a count is zero (a field serde leaves out).
fn is_zero(n: &u64) -> bool {
    *n == 0
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
        /// The size of the exact search the budget refused before it started, in budget units
        /// (its [`WorkEstimate`], known up front); 0 when the budget ran out while a search ran
        /// (the work it does as it goes, e.g. a covering pass's corner pairs, is counted then).
        /// A budget of `needed` starts that search; what it does while running draws on the
        /// same budget.
        needed: u64,
        /// What the tables of that search would take (bytes) when they are over the memory
        /// limit too, so that a budget of `needed` alone does not start it; 0 when they fit
        /// (and then left out of JSON). With `needed` 0 (the budget ran out while a search
        /// ran), the tables of a pass that would have sharpened its bounds and that the memory
        /// limit refused, so that more memory may finish it as well as more budget.
        #[serde(skip_serializing_if = "is_zero")]
        memory: u64,
    },
    /// What the search keeps would pass the memory limit: its tables, sized before they are
    /// allocated (`needed`, bytes), or what it stores as it runs, its Pareto points and the
    /// pages of its sparse budgets, counted while it filled (`needed` 0: unknown, more than
    /// the limit).
    MemoryLimit {
        /// The limit, bytes.
        limit: u64,
        /// What the tables would take, bytes; 0 when the points or budgets passed the limit
        /// while filling.
        needed: u64,
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
            StopReason::WorkBudget {
                budget,
                needed: 0,
                memory: 0,
            } => {
                write!(f, "the work budget of {budget} was used up")
            }
            StopReason::WorkBudget {
                budget,
                needed: 0,
                memory,
            } => {
                write!(
                    f,
                    "the work budget of {budget} was used up, after a sharper bound's tables ({}) were refused by the memory limit",
                    format_bytes(*memory)
                )
            }
            StopReason::WorkBudget {
                budget,
                needed,
                memory: 0,
            } => {
                write!(
                    f,
                    "the exact search's size, {needed}, is over the work budget of {budget}"
                )
            }
            StopReason::WorkBudget {
                budget,
                needed,
                memory,
            } => {
                write!(
                    f,
                    "the exact search's size, {needed}, is over the work budget of {budget}, and its tables would take {}, over the memory limit",
                    format_bytes(*memory)
                )
            }
            StopReason::MemoryLimit { limit, needed: 0 } => write!(
                f,
                "the points and budgets it keeps passed the memory limit of {}",
                format_limit(*limit)
            ),
            StopReason::MemoryLimit { limit, needed } => write!(
                f,
                "its tables would take {}, over the memory limit of {}",
                format_bytes(*needed),
                format_limit(*limit)
            ),
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
            ..Limits::default()
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
        let e = Exactness::bounded(
            StopReason::WorkBudget {
                budget: 5,
                needed: 0,
                memory: 0,
            },
            110.0,
            Some(100.0),
        );
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
        let gib = 1 << 30;
        let e = check_rows(100_000, 99_999, gib).unwrap_err();
        assert_eq!(e.max_rows, 1_342);
        assert!(check_rows(1_342, 99_999, gib).is_ok());
        assert!(check_rows(1_343, 99_999, gib).is_err());
        // The default 2 GiB: 2,147,483,648 / 799,992 = 2,684.4, so 2,684 rows
        // (2,684 × 799,992 = 2,147,178,528 bytes; one more row is 2,147,978,520).
        let default = Limits::default().memory_limit;
        assert!(check_rows(2_684, 99_999, default).is_ok());
        assert_eq!(
            check_rows(2_685, 99_999, default).unwrap_err().max_rows,
            2_684
        );
        // A thousand rows of a 64-thread tree: 1000 × 63 × 8 bytes, far below.
        assert!(check_rows(1_000, 63, gib).is_ok());
    }

    #[test]
    fn memory_limits_read_bytes_and_binary_units() {
        assert_eq!(memory_limit_bytes("4G"), Ok(4 << 30));
        assert_eq!(memory_limit_bytes("4GiB"), Ok(4 << 30));
        assert_eq!(memory_limit_bytes(" 512m "), Ok(512 << 20));
        assert_eq!(memory_limit_bytes("1.5G"), Ok(3 << 29));
        assert_eq!(memory_limit_bytes("1048576"), Ok(1 << 20));
        assert_eq!(memory_limit_bytes("16T"), Ok(16 << 40));
        // Below 1 MiB, not a number, a negative, an unknown unit, past 2^64 (2·10⁷ TiB =
        // 2.2·10¹⁹ bytes): refused by the parser itself, before any front end's host check.
        for bad in [
            "1048575",
            "0",
            "-4G",
            "4X",
            "G",
            "",
            "nan",
            "inf",
            "1e3G",
            "20000000T",
        ] {
            assert!(memory_limit_bytes(bad).is_err(), "{bad}");
        }
        assert_eq!(format_bytes(2 << 30), "2048 MiB");
        assert_eq!(format_bytes(3400 << 20), "3400 MiB");
        assert_eq!(format_bytes((3400 << 20) + 1), "3401 MiB");
        assert_eq!(format_bytes((16 << 30) + 1), "17 GiB");
        // A limit as given: 10.5M = 11,010,048 bytes is not a whole MiB; 12.5G = 12,800 MiB
        // is a whole MiB, not a whole GiB; 16G is a whole GiB past 10.
        assert_eq!(format_limit(2 << 30), "2048 MiB");
        assert_eq!(format_limit(11_010_048), "11010048 bytes");
        assert_eq!(format_limit(12_800 << 20), "12800 MiB");
        assert_eq!(format_limit(16 << 30), "16 GiB");
        assert_eq!(format_limit((16 << 30) + 1), "17179869185 bytes");
    }

    #[test]
    fn zero_time_limit_has_passed_at_once() {
        let d = Limits {
            time_limit: Some(Duration::ZERO),
            work_budget: 1,
            ..Limits::default()
        }
        .deadline();
        assert!(d.passed());
        assert!(!Deadline::never().passed());
    }
}
