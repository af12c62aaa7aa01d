//! The contract between a model family and the optimizer.
//!
//! A model family (cache-coherent, Cell, KSR-1, SCC, ...) exposes its collective algorithms as
//! [`Algorithm`] objects. Each one says which collective it implements, what its free parameters
//! are (a [`Space`] description the optimizer knows how to enumerate), and what a configuration
//! costs. The optimizer never sees a machine's types: it enumerates a [`Space`], asks for
//! [`Algorithm::cost`], and ranks.

use crate::error::ModelError;
use crate::request::{Collective, Cost, Params, Request};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Ordering constraint between the per-level degrees k_1..k_d of a level-uniform tree.
///
/// Seed 000 prints `∀ i < j: k_i ≤ k_j` under Eq. (4.7) and (B.1), but every row of its
/// Tables B.1 and B.3 has k_1 ≥ k_2 ≥ k_3, and the text says "it is expected for the values of k_i
/// to decrease while descending throughout the tree". The default follows the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DegreeOrdering {
    /// k_1 ≥ k_2 ≥ ... ≥ k_d (what the published tables show; default).
    #[default]
    NonIncreasing,
    /// k_1 ≤ k_2 ≤ ... ≤ k_d (Eq. 4.7 as printed).
    NonDecreasing,
    /// No constraint.
    Any,
}

impl FromStr for DegreeOrdering {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "non-increasing" | "decreasing" => Ok(DegreeOrdering::NonIncreasing),
            "non-decreasing" | "increasing" => Ok(DegreeOrdering::NonDecreasing),
            "any" | "none" => Ok(DegreeOrdering::Any),
            _ => Err(format!(
                "unknown degree ordering `{s}` (expected non-increasing, non-decreasing or any)"
            )),
        }
    }
}

impl fmt::Display for DegreeOrdering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DegreeOrdering::NonIncreasing => "non-increasing",
            DegreeOrdering::NonDecreasing => "non-decreasing",
            DegreeOrdering::Any => "any",
        })
    }
}

/// How the number of rounds r of a dissemination barrier follows from its degree m.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoundsRule {
    /// r = ⌈log_m n⌉ for m ≥ 2 and m = 1 only for n = 2 (r = 1): what seed 000 Eq. (4.11) and
    /// Table B.2 use (default).
    #[default]
    Paper,
    /// r = ⌈log_{m+1} n⌉ for 1 ≤ m ≤ n−1: the number of rounds a dissemination barrier with m
    /// peers per round really needs (each round multiplies the informed set by m+1).
    Exact,
}

impl FromStr for RoundsRule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "paper" => Ok(RoundsRule::Paper),
            "exact" => Ok(RoundsRule::Exact),
            _ => Err(format!(
                "unknown rounds rule `{s}` (expected paper or exact)"
            )),
        }
    }
}

impl RoundsRule {
    /// The degrees m this rule allows for n threads, each with its number of rounds.
    pub fn candidates(self, threads: u32) -> Vec<(u32, u32)> {
        match self {
            RoundsRule::Paper if threads == 2 => vec![(1, 1)],
            RoundsRule::Paper => (2..threads)
                .map(|m| (m, ceil_log(m.into(), threads.into())))
                .collect(),
            RoundsRule::Exact => (1..threads)
                .map(|m| (m, ceil_log(u64::from(m) + 1, threads.into())))
                .collect(),
        }
    }
}

/// ⌈log_base n⌉ in exact integer arithmetic: the least r with base^r ≥ n (base ≥ 2, n ≥ 1).
pub fn ceil_log(base: u64, n: u64) -> u32 {
    let mut r = 0;
    let mut reach: u64 = 1;
    while reach < n {
        reach = reach.saturating_mul(base);
        r += 1;
    }
    r
}

/// Where the threads of a rooted-tree broadcast run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThreadPlacement {
    /// The machine's placement by thread id (e.g. fill socket 0's cores first; default).
    #[default]
    ByThreadId,
    /// The search also chooses how many threads run on each socket (each socket holding at most
    /// its cores, or its hardware threads when the request needs them): `--placement optimal`.
    Optimal,
}

impl FromStr for ThreadPlacement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "by-thread-id" | "given" | "default" => Ok(ThreadPlacement::ByThreadId),
            "optimal" => Ok(ThreadPlacement::Optimal),
            _ => Err(format!(
                "unknown thread placement `{s}` (expected optimal or by-thread-id)"
            )),
        }
    }
}

impl fmt::Display for ThreadPlacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ThreadPlacement::ByThreadId => "by-thread-id",
            ThreadPlacement::Optimal => "optimal",
        })
    }
}

/// Options that shape the search spaces an algorithm offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SpaceOptions {
    /// Ordering constraint of tree degrees.
    pub ordering: DegreeOrdering,
    /// Rounds rule of dissemination barriers.
    pub rounds: RoundsRule,
    /// The thread at the root of rooted-tree spaces (default: the algorithm's, thread 0).
    pub root: Option<u32>,
    /// Where the threads of rooted-tree spaces run (`--placement`).
    pub placement: ThreadPlacement,
}

/// An inclusive range of one named integer parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IntRange {
    /// Parameter name as it appears in [`Params::Named`].
    pub name: String,
    /// Smallest value.
    pub lo: i64,
    /// Largest value.
    pub hi: i64,
}

impl IntRange {
    /// A range `lo..=hi` for `name`.
    pub fn new(name: &str, lo: i64, hi: i64) -> Self {
        IntRange {
            name: name.to_string(),
            lo,
            hi,
        }
    }
}

/// An explicit list of the values one named integer parameter may take (e.g. segment sizes that
/// are powers of two, which an [`IntRange`] cannot express).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ValueList {
    /// Parameter name as it appears in [`Params::Named`].
    pub name: String,
    /// The values, in the order they are enumerated.
    pub values: Vec<i64>,
}

impl ValueList {
    /// The list `values` for `name`.
    pub fn new(name: &str, values: Vec<i64>) -> Self {
        ValueList {
            name: name.to_string(),
            values,
        }
    }
}

/// The free parameters of an algorithm for one request, described for the optimizer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub enum Space {
    /// No free parameter: the only configuration is [`Params::None`].
    Fixed,
    /// Level-uniform trees (d, k_1..k_d) whose 1 + Σ_i Π_{j≤i} k_j nodes cover `threads`
    /// (seed 000, Eqs. 4.3/4.4), enumerated as [`Params::Tree`].
    LevelDegrees {
        /// Threads to cover.
        threads: u32,
        /// Ordering constraint between the k_i.
        ordering: DegreeOrdering,
    },
    /// Dissemination degrees m with their rounds r, enumerated as [`Params::Dissemination`].
    Dissemination {
        /// Threads.
        threads: u32,
        /// How r follows from m.
        rule: RoundsRule,
    },
    /// The product of integer ranges, enumerated as [`Params::Named`]. Combinations an
    /// algorithm cannot run are rejected by its [`Algorithm::cost`] and skipped.
    Grid(Vec<IntRange>),
    /// The product of explicit value lists, enumerated as [`Params::Named`] lexicographically in
    /// the given list order. Combinations an algorithm cannot run are rejected by its
    /// [`Algorithm::cost`] and skipped.
    Values(Vec<ValueList>),
    /// Every rooted tree on `threads` nodes with every socket placement of its nodes (seed 001
    /// §4, Eq. 2), enumerated as [`Params::RootedTree`] by the optimizer's `rooted_trees` module
    /// (exhaustively, or by the exact dynamic program for large n).
    RootedTrees(crate::placed_tree::RootedTreeSpace),
    /// Every rooted tree on `threads` nodes with every socket placement, each priced whole by
    /// [`Algorithm::cost`] as a [`Params::RootedTree`]: for costs without a per-subtree
    /// recursion (a `.cla` program's CLa graph). Searched by the optimizer's `priced_trees`
    /// module: exhaustively within the budget, else over documented candidates, flagged.
    PricedTrees(crate::placed_tree::PricedTreeSpace),
}

/// One term of a cost breakdown, for explaining a prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    /// What the term is, with the seed's symbol (e.g. "T_fw,min = (d+1)R_I + 2dR_L").
    pub label: String,
    /// Its best-case value in nanoseconds.
    pub min_ns: f64,
    /// Its worst-case value in nanoseconds.
    pub max_ns: f64,
}

/// The prefix bound of level-degree trees written as `base + Σ_i level(k_i)`, for one request.
///
/// Contract (what makes a search that uses it exact):
/// - terms are nanoseconds, `(min, max)`, finite and non-negative;
/// - `level(k)` is non-decreasing in k (as the tree's cost is in each k_i), so the bound is
///   non-decreasing in each degree and when a level is appended;
/// - [`prefix_bound`] of a prefix (the left fold `base + level(k_1) + level(k_2) + …`, min and
///   max apart) is a lower bound on the cost of every tree whose degrees start with the prefix,
///   and is what the algorithm's [`Algorithm::tree_prefix_bound`] returns for it.
///
/// ```
/// use modelopt_model::{machine, algorithm::prefix_bound, Collective, Request};
/// let phi = machine::load("xeon-phi").unwrap();
/// let request = Request::new(Collective::Bcast, 1000).unwrap();
/// let algorithms = phi.algorithms_for(Collective::Bcast);
/// let tree = algorithms.iter().find(|a| a.name() == "small-tree").unwrap();
/// let pricer = tree.level_pricer(&request).unwrap();
/// // The same numbers as the algorithm's own prefix bound, bit for bit.
/// assert_eq!(
///     Some(prefix_bound(pricer.as_ref(), &[10, 10, 9])),
///     tree.tree_prefix_bound(&request, &[10, 10, 9]),
/// );
/// ```
pub trait LevelPricer {
    /// The part of the bound every tree has whatever its levels, `(min, max)` ns.
    fn base(&self) -> (f64, f64);
    /// What one level of degree `k` ≥ 1 adds to the bound, `(min, max)` ns.
    fn level(&self, k: u32) -> (f64, f64);
}

/// The bound of `prefix` under `pricer`: `base + level(k_1) + … + level(k_d)`, summed left to
/// right, min and max apart (the order fixes the floating-point result, so every caller that
/// sums in this order gets the same bits).
pub fn prefix_bound(pricer: &dyn LevelPricer, prefix: &[u32]) -> Cost {
    let (lo, hi) = prefix.iter().fold(pricer.base(), |(a, b), &k| {
        let (x, y) = pricer.level(k);
        (a + x, b + y)
    });
    Cost::range(lo, hi)
}

/// A collective algorithm of a model family.
///
/// Contract:
/// - costs are in nanoseconds, finite and non-negative, with `min_ns <= max_ns`;
/// - [`Algorithm::cost`] returns `Err` (never panics) for parameters outside the algorithm's
///   domain; the optimizer skips those configurations;
/// - for [`Space::LevelDegrees`], cost is non-decreasing in each k_i, and
///   [`Algorithm::tree_prefix_bound`], when given, is a lower bound on the cost of every tree whose
///   degrees start with the prefix (this is what makes the optimizer's pruning sound).
///
/// ```
/// use modelopt_model::{machine, Collective, Request, Params};
/// let phi = machine::load("xeon-phi").unwrap();
/// let request = Request::new(Collective::Barrier, 16).unwrap();
/// let algorithms = phi.algorithms_for(Collective::Barrier);
/// let barrier = &algorithms[0];
/// let cost = barrier
///     .cost(&request, &Params::Dissemination { degree: 4, rounds: 2 })
///     .unwrap();
/// // Seed 000 Eq. (4.11): r (R_L + m R_R + R_R) = 2 (8.6 + 4·235.8 + 235.8) ns.
/// assert!((cost.min_ns - 2.0 * (8.6 + 5.0 * 235.8)).abs() < 1e-9);
/// ```
pub trait Algorithm: Send + Sync {
    /// Short name used on the command line and in JSON (`small-tree`, `dissemination`, ...).
    fn name(&self) -> &'static str;
    /// The collective it implements.
    fn collective(&self) -> Collective;
    /// One line: what it is and where its model comes from (seed file, equation).
    fn summary(&self) -> &'static str;
    /// The free parameters for `request`, or why the algorithm does not apply to it.
    fn space(&self, request: &Request, options: &SpaceOptions) -> Result<Space, ModelError>;
    /// The predicted cost of one configuration.
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError>;
    /// A lower bound on the cost of every level-degree tree starting with `prefix`, for pruning.
    fn tree_prefix_bound(&self, _request: &Request, _prefix: &[u32]) -> Option<Cost> {
        None
    }
    /// The additive form of [`Algorithm::tree_prefix_bound`] for one request, when it has one:
    /// a [`LevelPricer`] whose [`prefix_bound`] of every prefix is bit for bit the
    /// `tree_prefix_bound` of that prefix. A search asks for it once per request and then bounds
    /// a prefix extended by a few levels at the cost of those levels alone (no per-call lookup of
    /// the request's costs, no re-summing of the levels it already priced).
    ///
    /// `None` (the default) when the bound is not a sum of per-level terms; the search then
    /// calls [`Algorithm::tree_prefix_bound`] on whole prefixes, as before.
    fn level_pricer(&self, _request: &Request) -> Option<Box<dyn LevelPricer + '_>> {
        None
    }
    /// A lower bound on the cost of one configuration of an enumerated space (dissemination
    /// degrees, grids, value lists), computed without pricing it, for pruning: the enumeration
    /// skips a configuration whose bound scores worse than every configuration it keeps.
    ///
    /// Contract: `min_ns` is at most the configuration's T_min and `max_ns` at most its T_max,
    /// so that under every objective (min, max, a blend of the two) the bound's score is at most
    /// the configuration's. `None` (the default): the configuration is priced.
    fn configuration_bound(&self, _request: &Request, _params: &Params) -> Option<Cost> {
        None
    }
    /// The cost broken into the model's terms, for explanations. Empty when not available.
    fn breakdown(&self, _request: &Request, _params: &Params) -> Result<Vec<Term>, ModelError> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_log_exact() {
        assert_eq!(ceil_log(2, 1), 0);
        assert_eq!(ceil_log(2, 2), 1);
        assert_eq!(ceil_log(2, 3), 2);
        assert_eq!(ceil_log(3, 27), 3);
        assert_eq!(ceil_log(3, 28), 4);
        assert_eq!(ceil_log(4, 64), 3);
    }

    #[test]
    fn paper_rounds_rule_matches_table_b2_examples() {
        // Table B.2: n=2 -> m=1, r=1; n=26 -> m=3, r=3; n=28 -> m=6, r=2.
        assert_eq!(RoundsRule::Paper.candidates(2), vec![(1, 1)]);
        assert!(RoundsRule::Paper.candidates(26).contains(&(3, 3)));
        assert!(RoundsRule::Paper.candidates(28).contains(&(6, 2)));
        // m ranges over 2..=n-1.
        assert_eq!(RoundsRule::Paper.candidates(5).len(), 3);
        // Exact rule: m=1 needs ceil(log2 n) rounds.
        assert_eq!(RoundsRule::Exact.candidates(5)[0], (1, 3));
    }
}
