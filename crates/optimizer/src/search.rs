//! The search driver: enumerate an algorithm's space, price each configuration, keep the best.
//!
//! ## Ranking and ties
//! Configurations are ranked by, in order:
//! 1. the objective's score ([`Objective::score`]), compared at 1e-6 ns resolution;
//! 2. the other end of the min-max range ([`Objective::tie_score`]: `max` when minimizing `min`);
//! 3. the order of the algorithms as the model family lists them (in [`crate::tuner`]);
//! 4. the parameters' canonical order: for trees, fewer levels first, then the lexicographically
//!    smallest degree vector (so `(4,4,3)` before `(5,3,3)`); for barriers, the smaller degree;
//!    for named parameters, lexicographic by name then value.
//!
//! The order is total and every configuration is priced the same way whichever path finds it,
//! so results are the same bytes on every run, whatever the thread count.
//!
//! ## Level-degree trees: iterative branch and bound
//! Level-degree spaces ([`Space::LevelDegrees`]) are searched depth-first with an explicit stack,
//! one small frame per level (the next degree to try at that level and the last one), so memory
//! is O(depth) and no recursion depth depends on the thread count.
//!
//! 1. **Incumbent first.** Before the search, the near-balanced tree of every depth (each level's
//!    degree the smallest k whose remaining levels, all of degree k, cover what is missing, and
//!    the same plus one) is priced: these are members of the space, so the K-th best of them is a
//!    valid threshold from the start, and the all-ones chain is cut after a few levels instead of
//!    being explored to depth n.
//! 2. **Pruning.** A prefix whose lower bound ([`Algorithm::tree_prefix_bound`]) scores strictly
//!    worse than the current K-th best is cut, together with its later siblings (larger last
//!    degree): the bound of the cost families here is the cost of the prefix's own levels, which
//!    is non-decreasing in each degree, as the cost is (the [`Algorithm`] contract). Only
//!    configurations that cannot enter the top K are cut, so the result equals the naive
//!    enumeration's ([`rank_naive`]); `tests/search_laws.rs` checks both agree, ties included.
//! 3. **Look-ahead.** A prefix's own levels are a weak bound: the levels it still needs to cover
//!    n cost something too. Every completion adds some number m of levels, and under the
//!    ordering the m new degrees are componentwise at least a computable vector (for
//!    non-increasing degrees: for each first degree v, the smallest degrees that still cover when
//!    the levels before them take their largest value, see `least_completion_from`), and every
//!    completion of m or more levels starts with m levels of the ordering's smallest degree. A
//!    prefix is cut when, for every m, these vectors appended to it bound above the K-th best
//!    (`completion_may_enter`), and the children of a non-increasing prefix with so few nodes
//!    that they need too many more levels are cut together (`first_open_child`). This uses two
//!    properties of [`Algorithm::tree_prefix_bound`] the cost families here have (their bound is
//!    R_I or R_R plus one positive term per level, non-decreasing in its degree): the bound is
//!    non-decreasing in each degree and when a level is appended. It cuts only trees that cannot
//!    enter, so results are unchanged; at 100,000 threads about 800 prefixes are cut instead of
//!    118,000 (issue 8, item 5).
//! 4. **Incremental bounds.** The look-ahead bounds a few thousand vectors per search, each the
//!    search's prefix followed by a few levels. When the algorithm gives a [`LevelPricer`]
//!    ([`Algorithm::level_pricer`]: its bound as `base + Σ level(k_i)`, asked for once per
//!    request), `PrefixBounds` keeps the running sums of the last vector and adds only the
//!    levels a new vector does not share with it, with the level terms of small degrees in a
//!    table. The sums are the same left-to-right sums the model's [`prefix_bound`] makes, so
//!    every bound has the same bits as [`Algorithm::tree_prefix_bound`]'s and the search prunes
//!    exactly the same prefixes (same results, same work counted against the budget); without a
//!    pricer it calls `tree_prefix_bound` on whole vectors as before.
//!
//! ## Limits
//! Every search knows its size before it starts ([`estimate`]). Enumerated spaces (dissemination
//! degrees, grids, level-degree spaces without a bound) refuse up front with
//! [`BudgetExceeded`] when the count exceeds [`Limits::work_budget`]. For a level-degree space
//! with a bound the count is only an upper bound on the work (pruning typically leaves a tiny
//! fraction), so the search starts and the budget caps the work actually done: bounds computed
//! plus configurations priced. When the time limit passes or the budget is used up, the search
//! returns the best found so far as [`Exactness::Bounded`] with the [`StopReason`] and a
//! certified lower bound: the smallest of the best score found and the prefix bounds of the
//! open frontier (each level's next untried sibling).
//!
//! ## Parallelism
//! A single search runs on the calling thread. The parallel level is the outermost loop over
//! independent problems (sweep points, Monte Carlo samples, sensitivity parameters), see
//! [`crate::parallel`]: one search is fast (a million threads in milliseconds), and its memory
//! and result then do not depend on scheduling.

use crate::limits::{BudgetExceeded, Deadline, Exactness, Limits, Progress, StopReason};
use crate::objective::{score_key, Objective};
use crate::space::{candidates, count, LevelDegrees};
use crate::WorkEstimate;
#[cfg(doc)]
use modelopt_model::algorithm::prefix_bound;
use modelopt_model::algorithm::LevelPricer;
use modelopt_model::{
    Algorithm, Cost, DegreeOrdering, ModelError, Params, Request, Space, SpaceOptions,
};
use serde::Serialize;
use std::collections::BTreeMap;

/// How to search.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchOptions {
    /// What to minimize.
    pub objective: Objective,
    /// How many configurations to keep per algorithm (the best and `top − 1` alternatives); at
    /// least 1.
    pub top: usize,
    /// Shape of the spaces (tree ordering, rounds rule).
    pub space: SpaceOptions,
    /// How rooted-tree spaces are searched (`--search`).
    pub tree_search: crate::rooted_trees::TreeSearch,
    /// Parameters pinned to a value (`--fix k=7`).
    pub fixed: Vec<(String, i64)>,
    /// Time limit and work budget.
    pub limits: Limits,
    /// Where progress of a long search is reported.
    pub progress: Progress,
    /// The memory every search of one request shares, bytes (the host's, which the front ends
    /// read; `None` where unknown). A loop that runs searches in parallel (a sweep's points,
    /// sensitivity's parameters and samples) runs at most
    /// [`SearchOptions::searches_at_once`] of them at a time, so that, each held to
    /// `limits.memory_limit`, together they stay within it. Results do not depend on it: every
    /// search keeps its own limit, only fewer run at once.
    pub memory_available: Option<u64>,
}

impl SearchOptions {
    /// Minimize `objective`, keeping `top` configurations.
    pub fn new(objective: Objective, top: usize) -> Self {
        SearchOptions {
            objective,
            top: top.max(1),
            ..SearchOptions::default()
        }
    }

    /// How many searches may run at once within [`SearchOptions::memory_available`]: ⌊memory
    /// available / memory limit⌋, at least 1 (a single search is held to its own limit only);
    /// unbounded when the memory available is unknown.
    pub fn searches_at_once(&self) -> usize {
        match self.memory_available {
            Some(available) => {
                let at_once = available / self.limits.memory_limit.max(1);
                usize::try_from(at_once).unwrap_or(usize::MAX).max(1)
            }
            None => usize::MAX,
        }
    }

    pub(crate) fn keep(&self) -> usize {
        self.top.max(1)
    }

    pub(crate) fn matches_fixed(&self, params: &Params) -> bool {
        self.fixed
            .iter()
            .all(|(name, value)| params.get(name) == Some(*value))
    }
}

/// Why a search did not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The model cannot describe or price the request.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The search is larger than the work budget.
    #[error(transparent)]
    Budget(#[from] BudgetExceeded),
    /// The rooted-tree search found no tree.
    #[error(transparent)]
    Tree(crate::rooted_trees::TreeSearchError),
    /// The rows to keep could exceed the ranking's memory limit.
    #[error(transparent)]
    Rows(#[from] crate::limits::RowsExceeded),
    /// The algorithm's space is of a kind this search cannot list (a defect of the pairing
    /// of algorithm and search, never of the input).
    #[error("the optimizer cannot enumerate the space of `{algorithm}`")]
    NotEnumerable {
        /// The algorithm.
        algorithm: String,
    },
}

impl From<crate::rooted_trees::TreeSearchError> for SearchError {
    fn from(e: crate::rooted_trees::TreeSearchError) -> Self {
        use crate::rooted_trees::TreeSearchError as T;
        match e {
            T::Budget(b) => SearchError::Budget(b),
            T::Model(m) => SearchError::Model(m),
            other => SearchError::Tree(other),
        }
    }
}

/// One priced configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    /// The configuration.
    pub params: Params,
    /// Its predicted cost.
    pub cost: Cost,
    /// Its score under the objective (lower is better).
    pub score: f64,
}

pub(crate) type Key = (i64, i64, Params);

impl Scored {
    pub(crate) fn key(&self, objective: &Objective) -> Key {
        (
            score_key(self.score),
            score_key(objective.tie_score(&self.cost)),
            self.params.clone(),
        )
    }
}

/// Counters of one search (informative, never part of the deterministic output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SearchStats {
    /// Configurations priced.
    pub evaluated: u64,
    /// Configurations the model rejected (outside the algorithm's domain).
    pub infeasible: u64,
    /// Prefixes cut by the bound (each with its later siblings).
    pub pruned: u64,
}

/// The best configurations of one algorithm, best first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    /// Up to `top` configurations, best first.
    pub best: Vec<Scored>,
    /// Counters.
    #[serde(skip)]
    pub stats: SearchStats,
    /// Whether `best` is proven optimal under the model, or why not.
    pub exactness: Exactness,
}

impl Ranked {
    /// Whether `best` is proven optimal under the model.
    pub fn exact(&self) -> bool {
        self.exactness.is_exact()
    }
}

/// The best `keep` configurations seen, in the total order of the module docs. Identical
/// configurations offered twice (an incumbent found again by the search) are kept once.
pub(crate) struct TopK<'o> {
    keep: usize,
    objective: &'o Objective,
    items: BTreeMap<Key, Scored>,
}

impl<'o> TopK<'o> {
    pub(crate) fn new(keep: usize, objective: &'o Objective) -> Self {
        TopK {
            keep,
            objective,
            items: BTreeMap::new(),
        }
    }

    pub(crate) fn offer(&mut self, s: Scored) {
        let key = s.key(self.objective);
        if self.items.len() >= self.keep {
            match self.items.last_key_value() {
                Some((last, _)) if key < *last => {}
                _ => return,
            }
        }
        self.items.insert(key, s);
        while self.items.len() > self.keep {
            self.items.pop_last();
        }
    }

    /// The score key a newcomer must not exceed to enter (`i64::MAX` while not full).
    fn threshold(&self) -> i64 {
        if self.items.len() < self.keep {
            i64::MAX
        } else {
            self.items.last_key_value().map_or(i64::MAX, |(k, _)| k.0)
        }
    }

    pub(crate) fn keep(&self) -> usize {
        self.keep
    }

    pub(crate) fn objective(&self) -> &'o Objective {
        self.objective
    }

    pub(crate) fn first(&self) -> Option<&Scored> {
        self.items.first_key_value().map(|(_, s)| s)
    }

    pub(crate) fn best_score(&self) -> Option<f64> {
        self.items.first_key_value().map(|(_, s)| s.score)
    }

    pub(crate) fn into_vec(self) -> Vec<Scored> {
        self.items.into_values().collect()
    }
}

/// Work accounting of one running search: counters, deadline, budget, progress.
struct Run<'a> {
    stats: SearchStats,
    /// Prefix bounds computed.
    bounds: u64,
    deadline: Deadline,
    budget: Option<u64>,
    progress: &'a Progress,
    unreported: u64,
    stopped: Option<StopReason>,
}

/// Units of work between two looks at the clock and two progress reports.
const CHECK_EVERY: u64 = 4096;

impl<'a> Run<'a> {
    fn new(deadline: Deadline, budget: Option<u64>, progress: &'a Progress) -> Self {
        Run {
            stats: SearchStats::default(),
            bounds: 0,
            deadline,
            budget,
            progress,
            unreported: 0,
            stopped: None,
        }
    }

    /// Account one unit of work; true when the search must stop.
    fn tick(&mut self) -> bool {
        self.unreported += 1;
        if self.unreported >= CHECK_EVERY {
            self.progress.advance(self.unreported);
            self.unreported = 0;
            if self.deadline.passed() {
                self.stopped = Some(self.deadline.reason());
            }
        }
        if let Some(budget) = self.budget {
            if self.work() >= budget && self.stopped.is_none() {
                self.stopped = Some(StopReason::WorkBudget {
                    budget,
                    needed: 0,
                    memory: 0,
                });
            }
        }
        self.stopped.is_some()
    }

    /// Account one configuration of an enumerated space and look at the clock: its pricing may
    /// be a whole CLa graph (milliseconds, `cla-dissemination`), so the deadline is read after
    /// every configuration rather than every [`CHECK_EVERY`] (a clock read, about 25 ns, only
    /// when a time limit is set). True when the search must stop.
    fn tick_and_look(&mut self) -> bool {
        self.progress.advance(self.unreported + 1);
        self.unreported = 0;
        if self.deadline.passed() {
            self.stopped = Some(self.deadline.reason());
        }
        self.stopped.is_some()
    }

    /// Work units done: configurations priced plus bounds computed.
    fn work(&self) -> u64 {
        self.stats.evaluated.saturating_add(self.bounds)
    }

    fn finish(&mut self) {
        self.progress.advance(self.unreported);
        self.unreported = 0;
    }

    fn price(
        &mut self,
        algorithm: &dyn Algorithm,
        request: &Request,
        options: &SearchOptions,
        params: Params,
    ) -> Option<Scored> {
        price_one(algorithm, request, options, params, &mut self.stats)
    }
}

/// Price one configuration for a search: `None` when it does not match the pinned parameters
/// (not counted), or is infeasible or scores no finite value (counted as evaluated and
/// infeasible).
pub(crate) fn price_one(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    params: Params,
    stats: &mut SearchStats,
) -> Option<Scored> {
    if !options.matches_fixed(&params) {
        return None;
    }
    stats.evaluated += 1;
    let scored = algorithm.cost(request, &params).ok().and_then(|cost| {
        options
            .objective
            .score(&cost, request.metric())
            .filter(|s| s.is_finite())
            .map(|score| Scored {
                params,
                cost,
                score,
            })
    });
    if scored.is_none() {
        stats.infeasible += 1;
    }
    scored
}

/// What a search of one algorithm's space will cost: the number of configurations (for
/// level-degree spaces an upper bound on the prefixes a branch and bound can visit, see
/// [`LevelDegrees::count_upper_bound`]).
pub fn estimate(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
) -> Result<WorkEstimate, SearchError> {
    let space = algorithm.space(request, &options.space)?;
    Ok(space_estimate(&space))
}

/// What [`preflight`] knows about a search before it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preflight {
    /// Whether [`rank`] of this algorithm will search until the work budget is spent and
    /// answer not proven optimal (an exact search over the budget, answered by an anytime one).
    pub runs_to_budget: bool,
    /// What building the space and answering cost, in units of ~50 ns, for a caller looking
    /// ahead at many points to bound its look: n² for a space priced by CLa graphs (building
    /// it computes a certified bound in O(n²), ~60 ms at 1,024 threads) plus the digits its
    /// listing of free splits touched (up to 4·10⁶), n for any other space.
    pub work: u64,
}

/// Whether [`rank`] of this algorithm will search until the work budget is spent and answer
/// not proven optimal, known before it starts: the rooted- and priced-tree searches say so from
/// the same estimates they check; the other spaces finish, or are refused, within the budget. A
/// space the algorithm cannot build is not long work (the search will report its error at
/// once). Not known beforehand, and so not counted: a socket DP within its estimate whose
/// Pareto pass (under `--objective max` or a blend) meets more points than the budget pays for
/// and stops there.
pub fn preflight(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
) -> Preflight {
    let n = u64::from(request.threads());
    let (runs_to_budget, work) = match algorithm.space(request, &options.space) {
        Ok(Space::RootedTrees(trees)) => (
            crate::rooted_trees::runs_to_budget(
                &trees,
                options.tree_search,
                &options.objective,
                &options.limits,
            ),
            n,
        ),
        Ok(Space::PricedTrees(trees)) => {
            let (runs, listing) = crate::priced_trees::runs_to_budget(
                &trees,
                options.tree_search,
                options.limits.work_budget,
            );
            (runs, n.saturating_mul(n).saturating_add(listing))
        }
        _ => (false, n),
    };
    Preflight {
        runs_to_budget,
        work,
    }
}

/// [`preflight`]'s first answer alone.
pub fn runs_to_budget(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
) -> bool {
    preflight(algorithm, request, options).runs_to_budget
}

fn space_estimate(space: &Space) -> WorkEstimate {
    let what = match space {
        Space::LevelDegrees { .. } => "level-degree trees",
        Space::Dissemination { .. } => "dissemination degrees",
        Space::Grid(_) => "grid configurations",
        _ => "configurations",
    };
    WorkEstimate {
        what: what.into(),
        units: count(space).unwrap_or(u64::MAX),
    }
}

/// Find the best `options.top` configurations of one algorithm for a request, within
/// `options.limits` (the time limit counts from now).
///
/// Returns the model's error when the algorithm does not apply to the request (e.g. a size it
/// does not model), and [`SearchError::Budget`] when an enumeration is larger than the budget.
/// An empty `best` means no configuration was feasible or matched `fixed`.
pub fn rank(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
) -> Result<Ranked, SearchError> {
    rank_until(algorithm, request, options, options.limits.deadline())
}

/// [`rank`] against a deadline shared with other searches (the tuner's, a sweep's).
pub fn rank_until(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    deadline: Deadline,
) -> Result<Ranked, SearchError> {
    let space = algorithm.space(request, &options.space)?;
    let estimate = space_estimate(&space);
    let progress = &options.progress;
    match &space {
        Space::LevelDegrees { threads, ordering } => {
            // A tree of n threads has up to n − 1 levels (a chain of degree 1 is in every
            // ordering), and each kept row holds its degrees.
            crate::limits::check_rows(
                options.keep() as u64,
                u64::from(threads.saturating_sub(1)),
                options.limits.memory_limit,
            )?;
            let tree = LevelDegrees {
                threads: *threads,
                ordering: *ordering,
            };
            let bounded = algorithm
                .tree_prefix_bound(request, &[1])
                .and_then(|c| options.objective.score(&c, request.metric()))
                .is_some();
            if !bounded {
                // Nothing to prune with: the search is the enumeration.
                options.limits.check(&estimate)?;
            }
            progress.begin(
                &format!(
                    "{}: branch and bound over {}",
                    algorithm.name(),
                    estimate.what
                ),
                None,
            );
            let mut run = Run::new(deadline, Some(options.limits.work_budget), progress);
            let ranked = level_search(algorithm, request, options, &tree, &mut run);
            progress.finish();
            Ok(ranked)
        }
        Space::RootedTrees(trees) => Ok(crate::rooted_trees::rank_rooted_trees_until(
            algorithm,
            request,
            options,
            trees,
            &options.limits,
            deadline,
            progress,
        )?),
        Space::PricedTrees(trees) => Ok(crate::priced_trees::rank_priced_trees(
            algorithm, request, options, trees, deadline,
        )?),
        other => {
            let list = candidates(other).ok_or_else(|| SearchError::NotEnumerable {
                algorithm: algorithm.name().into(),
            })?;
            options.limits.check(&estimate)?;
            progress.begin(
                &format!("{}: {} {}", algorithm.name(), estimate.units, estimate.what),
                Some(estimate.units),
            );
            let mut run = Run::new(deadline, None, progress);
            let mut top = TopK::new(options.keep(), &options.objective);
            for params in list {
                // A configuration whose bound scores worse than every kept one cannot enter
                // (ties still can: only a strictly larger key is skipped).
                let cut = options.matches_fixed(&params)
                    && algorithm
                        .configuration_bound(request, &params)
                        .and_then(|bound| options.objective.score(&bound, request.metric()))
                        .is_some_and(|bound| score_key(bound) > top.threshold());
                if cut {
                    run.stats.pruned += 1;
                } else if let Some(s) = run.price(algorithm, request, options, params) {
                    top.offer(s);
                }
                if run.tick_and_look() {
                    break;
                }
            }
            run.finish();
            progress.finish();
            let exactness = match run.stopped {
                None => Exactness::Exact,
                Some(stopped) => {
                    Exactness::bounded(stopped, top.best_score().unwrap_or(f64::INFINITY), None)
                }
            };
            Ok(Ranked {
                best: top.into_vec(),
                stats: run.stats,
                exactness,
            })
        }
    }
}

/// Pinned tree parameters, checked on prefixes so that the search only walks trees that can
/// match them.
struct FixedTree {
    depth: Option<u64>,
    degrees: Vec<(usize, u32)>,
    impossible: bool,
}

impl FixedTree {
    fn new(fixed: &[(String, i64)]) -> Self {
        let mut out = FixedTree {
            depth: None,
            degrees: Vec::new(),
            impossible: false,
        };
        for (name, value) in fixed {
            match name.as_str() {
                "d" | "depth" => match u64::try_from(*value) {
                    Ok(d) if out.depth.is_none_or(|e| e == d) => out.depth = Some(d),
                    _ => out.impossible = true,
                },
                key => {
                    let level = key
                        .strip_prefix('k')
                        .and_then(|i| i.parse::<usize>().ok())
                        .filter(|i| *i >= 1);
                    match (level, u32::try_from(*value)) {
                        (Some(i), Ok(v)) => out.degrees.push((i, v)),
                        _ => out.impossible = true,
                    }
                }
            }
        }
        out
    }

    /// Restrict the children of a prefix of `len` levels: partial children must be able to
    /// reach a matching tree.
    fn restrict(&self, len: usize, lo: u32, hi: u32) -> (u32, u32) {
        let level = len + 1;
        // A partial child has len + 1 levels and every completion at least one more.
        if self.depth.is_some_and(|d| d < level as u64 + 1) {
            return (1, 0);
        }
        let (mut lo, mut hi) = (lo, hi);
        for &(i, v) in &self.degrees {
            if i == level {
                lo = lo.max(v);
                hi = hi.min(v);
            }
        }
        (lo, hi)
    }
}

/// The score keys of prefix bounds during one level-degree search.
///
/// When the algorithm gives a [`LevelPricer`], a bound is its [`prefix_bound`] summed
/// incrementally: the running sums of the last degree vector bounded are kept, so a vector that
/// shares its first levels with the previous one (the search's own prefix followed by a few
/// look-ahead levels, or one more look-ahead level) only adds its new levels. The sums are the
/// same left-to-right sums [`prefix_bound`] makes, so every key is bit for bit the key of
/// [`Algorithm::tree_prefix_bound`] (the pricer's contract), and the search prunes exactly as it
/// would calling the algorithm on whole prefixes, which it does when there is no pricer.
struct PrefixBounds<'a> {
    algorithm: &'a dyn Algorithm,
    request: &'a Request,
    objective: &'a Objective,
    pricer: Option<Box<dyn LevelPricer + 'a>>,
    /// The pricer's base.
    base: (f64, f64),
    /// The last degree vector bounded with the pricer, each degree with the bound of the
    /// vector up to and including it.
    last: Vec<(u32, (f64, f64))>,
    /// The pricer's level terms of the degrees below [`REMEMBERED_DEGREES`] (`levels[k]` for
    /// k ≥ 1; empty without a pricer).
    levels: Vec<(f64, f64)>,
}

/// Degrees below this have their level term remembered by [`PrefixBounds`] (look-ahead
/// completions are made of small degrees; larger ones are asked of the pricer each time).
const REMEMBERED_DEGREES: usize = 128;

impl<'a> PrefixBounds<'a> {
    fn new(algorithm: &'a dyn Algorithm, request: &'a Request, objective: &'a Objective) -> Self {
        let pricer = algorithm.level_pricer(request);
        let base = pricer.as_ref().map_or((0.0, 0.0), |p| p.base());
        // Index 0 is never a degree; it holds the base so that the table starts at k = 1.
        let levels = pricer.as_ref().map_or_else(Vec::new, |p| {
            let mut levels = vec![base];
            levels.extend((1..REMEMBERED_DEGREES as u32).map(|k| p.level(k)));
            levels
        });
        PrefixBounds {
            algorithm,
            request,
            objective,
            pricer,
            base,
            last: Vec::new(),
            levels,
        }
    }

    /// The score key of the bound of every tree starting with `degrees`, if there is one.
    fn key(&mut self, degrees: &[u32]) -> Option<i64> {
        let cost = match &self.pricer {
            None => self.algorithm.tree_prefix_bound(self.request, degrees)?,
            Some(pricer) => {
                let common = self
                    .last
                    .iter()
                    .zip(degrees)
                    .take_while(|((a, _), b)| a == *b)
                    .count();
                self.last.truncate(common);
                let (mut lo, mut hi) = self.last.last().map_or(self.base, |&(_, s)| s);
                let added = &degrees[common..];
                self.last.reserve(added.len());
                // A plain loop keeps the running sums in registers.
                for &k in added {
                    let (x, y) = match self.levels.get(k as usize) {
                        Some(&known) if k > 0 => known,
                        _ => pricer.level(k),
                    };
                    lo += x;
                    hi += y;
                    self.last.push((k, (lo, hi)));
                }
                Cost::range(lo, hi)
            }
        };
        self.objective
            .score(&cost, self.request.metric())
            .map(score_key)
    }
}

/// One level of the explicit stack: the partial children of a prefix still to try.
#[derive(Debug, Clone, Copy)]
struct Frame {
    next: u32,
    hi: u32,
    covered: u64,
    level_nodes: u64,
}

/// The near-balanced trees of every depth, as members of the space (see the module docs).
fn balanced_seeds(tree: &LevelDegrees) -> Vec<Vec<u32>> {
    let n = u64::from(tree.threads);
    let mut seeds = Vec::new();
    // Depths beyond log2(n) + 2 only hold chains of 1s and 2s; a few more keep the seeds useful
    // when the per-level cost is tiny.
    let max_depth = 64 - n.leading_zeros() as usize + 4;
    for depth in 1..=max_depth {
        for bump in [0u32, 1] {
            let mut degrees: Vec<u32> = Vec::with_capacity(depth);
            let (mut covered, mut level_nodes) = (1u64, 1u64);
            let mut guess = None;
            while covered < n && degrees.len() < depth {
                let c = tree.children(&degrees, covered, level_nodes);
                let rest = (depth - degrees.len()) as u32;
                let missing = n - covered;
                let uniform = smallest_uniform_degree(missing, level_nodes, rest, guess);
                // The next level's is usually the same or one less.
                guess = Some(uniform);
                let k = uniform.saturating_add(bump);
                let k = if c.lo <= c.hi && k <= c.hi {
                    k.max(c.lo)
                } else {
                    match c.complete {
                        Some(k) => k,
                        None => break,
                    }
                };
                degrees.push(k);
                level_nodes = level_nodes.saturating_mul(k.into());
                covered = covered.saturating_add(level_nodes);
            }
            if covered >= n && tree.contains(&degrees) && !seeds.contains(&degrees) {
                seeds.push(degrees);
            }
        }
    }
    seeds
}

/// The smallest k ≥ 1 with `level_nodes · (k + k² + … + k^rest) ≥ missing`, looked for first
/// next to `guess` (default: the real root (missing / level_nodes)^(1/rest)).
fn smallest_uniform_degree(missing: u64, level_nodes: u64, rest: u32, guess: Option<u32>) -> u32 {
    // Whether k reaches: the partial sums only grow, so stop at the first that does.
    let reaches = |k: u64| {
        let (mut sum, mut power) = (0u64, 1u64);
        for _ in 0..rest {
            power = power.saturating_mul(k);
            sum = sum.saturating_add(power);
            if sum.saturating_mul(level_nodes) >= missing {
                return true;
            }
        }
        false
    };
    let (mut lo, mut hi) = (1u64, missing.max(1));
    // Narrow the range around the guess first: the answer is usually it or its neighbour, and
    // the bisection below (of the same monotone test) then has nothing left to do.
    if rest > 0 {
        let guess = guess.map_or_else(
            || {
                let root = missing as f64 / level_nodes.max(1) as f64;
                // `as` saturates (NaN to 0).
                root.powf(1.0 / f64::from(rest)).floor() as u64
            },
            u64::from,
        );
        let guess = guess.clamp(lo, hi);
        if reaches(guess) {
            hi = guess;
            if guess > lo && !reaches(guess - 1) {
                lo = guess;
            }
        } else {
            lo = guess + 1;
            if lo < hi && reaches(lo) {
                hi = lo;
            }
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if reaches(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    u32::try_from(lo).unwrap_or(u32::MAX)
}

fn level_search(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    tree: &LevelDegrees,
    run: &mut Run<'_>,
) -> Ranked {
    let mut top = TopK::new(options.keep(), &options.objective);
    let fixed = FixedTree::new(&options.fixed);
    if tree.threads < 2 || fixed.impossible {
        return Ranked {
            best: Vec::new(),
            stats: run.stats,
            exactness: Exactness::Exact,
        };
    }
    let mut bounds = PrefixBounds::new(algorithm, request, &options.objective);
    let mut lookahead = Lookahead::default();
    for seed in balanced_seeds(tree) {
        let params = Params::Tree {
            depth: seed.len() as u32,
            degrees: seed,
        };
        if let Some(s) = run.price(algorithm, request, options, params) {
            top.offer(s);
        }
    }
    let mut degrees: Vec<u32> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    // Price the complete child of a new prefix and return the frame of its partial children.
    let open = |degrees: &mut Vec<u32>,
                covered: u64,
                level_nodes: u64,
                run: &mut Run<'_>,
                top: &mut TopK<'_>,
                bounds: &mut PrefixBounds<'_>| {
        let c = tree.children(degrees, covered, level_nodes);
        if let Some(k) = c.complete {
            degrees.push(k);
            let params = Params::Tree {
                depth: degrees.len() as u32,
                degrees: degrees.clone(),
            };
            degrees.pop();
            if let Some(s) = run.price(algorithm, request, options, params) {
                top.offer(s);
            }
        }
        let (lo, hi) = fixed.restrict(degrees.len(), c.lo, c.hi);
        let next = first_open_child(
            tree,
            degrees,
            covered,
            level_nodes,
            (lo, hi),
            top.threshold(),
            &mut |d: &[u32]| bounds.key(d),
            run,
        );
        Frame {
            next,
            hi,
            covered,
            level_nodes,
        }
    };
    let root = open(&mut degrees, 1, 1, run, &mut top, &mut bounds);
    frames.push(root);
    while let Some(frame) = frames.last_mut() {
        if frame.next > frame.hi {
            frames.pop();
            degrees.pop();
            continue;
        }
        if run.tick() {
            break;
        }
        // next ≤ hi < k_final ≤ u32::MAX: no overflow.
        let k = frame.next;
        frame.next = k + 1;
        let level_nodes = frame.level_nodes.saturating_mul(k.into());
        let covered = frame.covered.saturating_add(level_nodes);
        degrees.push(k);
        run.bounds += 1;
        let threshold = top.threshold();
        if let Some(bound) = bounds.key(&degrees) {
            if bound > threshold {
                // The bound is non-decreasing in the last degree: the later siblings go too.
                run.stats.pruned += 1;
                frame.next = 1;
                frame.hi = 0;
                degrees.pop();
                continue;
            }
            // The levels still needed to cover n cost something too: cut this prefix alone
            // (a larger sibling may need fewer levels) when no completion can enter.
            if !completion_may_enter(
                tree,
                &mut degrees,
                covered,
                level_nodes,
                threshold,
                &mut |d: &[u32]| bounds.key(d),
                &mut run.bounds,
                &mut lookahead,
            ) {
                run.stats.pruned += 1;
                degrees.pop();
                continue;
            }
        }
        let child = open(
            &mut degrees,
            covered,
            level_nodes,
            run,
            &mut top,
            &mut bounds,
        );
        frames.push(child);
    }
    run.finish();
    let exactness = match run.stopped {
        None => Exactness::Exact,
        Some(stopped) => {
            // Certified lower bound: the best found, or something in the open frontier (each
            // level's untried siblings, whose bound is at least that of the next one).
            let mut lower = top.best_score();
            let mut certain = true;
            for (len, frame) in frames.iter().enumerate() {
                if frame.next > frame.hi {
                    continue;
                }
                let mut prefix = degrees[..len].to_vec();
                prefix.push(frame.next);
                match algorithm
                    .tree_prefix_bound(request, &prefix)
                    .and_then(|c| options.objective.score(&c, request.metric()))
                {
                    Some(b) => lower = Some(lower.map_or(b, |l: f64| l.min(b))),
                    None => certain = false,
                }
            }
            let best = top.best_score().unwrap_or(f64::INFINITY);
            Exactness::bounded(stopped, best, lower.filter(|_| certain))
        }
    };
    Ranked {
        best: top.into_vec(),
        stats: run.stats,
        exactness,
    }
}

/// The smallest partial child degree of a prefix worth opening, under a non-increasing
/// ordering: the children `lo..=hi` with few nodes need many more levels, so they are cut
/// together (counted as one prune).
///
/// A child P+[k] still needs at least `levels_needed(k)` levels, each of degree at most k, and
/// that count is non-increasing in k. So every tree below a child k' ≤ k starts with P followed
/// by 1 + `levels_needed(k)` levels of degree at least 1, and when the bound of that vector
/// scores above `threshold` every child up to k is cut. The test is monotone in k: a binary
/// search finds the largest such k. Other orderings return `lo`.
#[allow(clippy::too_many_arguments)]
fn first_open_child(
    tree: &LevelDegrees,
    degrees: &mut Vec<u32>,
    covered: u64,
    level_nodes: u64,
    (lo, hi): (u32, u32),
    threshold: i64,
    bound: &mut dyn FnMut(&[u32]) -> Option<i64>,
    run: &mut Run<'_>,
) -> u32 {
    let n = u64::from(tree.threads);
    if tree.ordering != DegreeOrdering::NonIncreasing || threshold == i64::MAX || lo > hi {
        return lo;
    }
    let len = degrees.len();
    // Levels a child of degree k still needs after itself (at least 1, at most the cap).
    let levels_needed = |k: u32| {
        let child_nodes = level_nodes.saturating_mul(k.into());
        let missing = n.saturating_sub(covered.saturating_add(child_nodes));
        let (mut total, mut nodes, mut m) = (0u64, child_nodes, 1usize);
        while m < LOOKAHEAD_LEVELS {
            nodes = nodes.saturating_mul(k.into());
            total = total.saturating_add(nodes);
            if total >= missing {
                break;
            }
            m += 1;
        }
        m
    };
    let mut cut_up_to = |k: u32, run: &mut Run<'_>| {
        degrees.truncate(len);
        degrees.resize(len + 1 + levels_needed(k), 1);
        run.bounds += 1;
        let cut = bound(degrees).is_some_and(|b| b > threshold);
        degrees.truncate(len);
        cut
    };
    if !cut_up_to(lo, run) {
        return lo;
    }
    // cut_up_to(a) holds, and cut_up_to(b + 1) does not or b = hi.
    let (mut a, mut b) = (lo, hi);
    while a < b {
        let mid = a + (b - a).div_ceil(2);
        if cut_up_to(mid, run) {
            a = mid;
        } else {
            b = mid - 1;
        }
    }
    run.stats.pruned += 1;
    // a ≤ hi < u32::MAX (hi is below the complete degree).
    a + 1
}

/// Buffers of [`completion_may_enter`], kept for the whole search so that the look-ahead does
/// not allocate.
#[derive(Debug, Default)]
struct Lookahead {
    /// Ranges of first degrees still to bisect.
    ranges: Vec<(u32, u32)>,
    /// Least completions already computed for this number of levels: (first degree, start,
    /// end) in `arena`.
    tails: Vec<(u32, usize, usize)>,
    /// Their degrees.
    arena: Vec<u32>,
}

/// The longest completion the look-ahead of [`completion_may_enter`] prices; completions with
/// more levels are bounded by their first `LOOKAHEAD_LEVELS` levels.
const LOOKAHEAD_LEVELS: usize = 64;

/// Whether some tree extending the partial prefix `degrees` (holding `covered` nodes,
/// `level_nodes` on its last level) may still score at most `threshold` (a score key).
///
/// The completions of a prefix are sorted by how many levels m they add. All completions with
/// m or more levels start with m levels of degree at least the ordering's floor (1, or the last
/// degree when non-decreasing), and every completion of exactly m levels is componentwise at
/// least [`least_completion`]. The bound is non-decreasing in each degree and when a level is
/// appended (each level costs something), so the prefix bound of those two degree vectors
/// bounds their completions; m grows until the first vector scores above the threshold (no
/// completion left) or the second does not (a completion may enter).
///
/// `bound` returns the score key of a prefix's bound; `work` counts the bounds computed.
#[allow(clippy::too_many_arguments)]
fn completion_may_enter(
    tree: &LevelDegrees,
    degrees: &mut Vec<u32>,
    covered: u64,
    level_nodes: u64,
    threshold: i64,
    bound: &mut dyn FnMut(&[u32]) -> Option<i64>,
    work: &mut u64,
    scratch: &mut Lookahead,
) -> bool {
    let n = u64::from(tree.threads);
    let (Some(&last), true) = (degrees.last(), threshold < i64::MAX && covered < n) else {
        return true;
    };
    let missing = n - covered;
    let len = degrees.len();
    let floor = match tree.ordering {
        DegreeOrdering::NonDecreasing => last,
        _ => 1,
    };
    // Fewer levels than m_min cannot cover n under a non-increasing ordering (every later degree
    // at most `last`): the completions start at m_min levels.
    let first = match tree.ordering {
        DegreeOrdering::NonIncreasing => {
            let (mut total, mut nodes, mut m) = (0u64, level_nodes, 1);
            while m < LOOKAHEAD_LEVELS {
                nodes = nodes.saturating_mul(last.into());
                total = total.saturating_add(nodes);
                if total >= missing {
                    break;
                }
                m += 1;
            }
            m
        }
        _ => 1,
    };
    let mut may_enter = true;
    for m in first..=LOOKAHEAD_LEVELS {
        degrees.truncate(len);
        degrees.resize(len + m, floor);
        *work += 1;
        match bound(degrees) {
            Some(b) if b > threshold => {
                may_enter = false;
                break;
            }
            Some(_) => {}
            None => break,
        }
        degrees.truncate(len);
        if tree.ordering == DegreeOrdering::NonIncreasing {
            // Completions of m levels by their first degree v: v itself, and the later levels
            // at least the least completion given v, which is non-increasing in v. So for v in
            // a..=b every completion is at least [a] followed by the least completion given b:
            // bisect the range of v while that vector is not cut (a small explicit stack).
            // m ≥ the levels `last` needs: `last` repeated m times covers.
            let v = smallest(1, last, |v| reaches(level_nodes, missing, v, 0, v, m));
            let Lookahead {
                ranges,
                tails,
                arena,
            } = &mut *scratch;
            ranges.clear();
            ranges.push((v, last));
            // The least completion given b, computed once per b (a range and its right half
            // share it): `tails` holds (b, start, end) of its degrees in `arena`.
            tails.clear();
            arena.clear();
            let mut enters = false;
            while let Some((a, b)) = ranges.pop() {
                degrees.truncate(len);
                match tails.iter().find(|t| t.0 == b) {
                    Some(&(_, start, end)) => degrees.extend_from_slice(&arena[start..end]),
                    None => {
                        least_completion_from(b, level_nodes, missing, m, degrees);
                        let start = arena.len();
                        arena.extend_from_slice(&degrees[len..]);
                        tails.push((b, start, arena.len()));
                    }
                }
                degrees[len] = a;
                *work += 1;
                if bound(degrees).is_some_and(|x| x > threshold) {
                    continue;
                }
                if a == b {
                    enters = true;
                    break;
                }
                let mid = a + (b - a) / 2;
                ranges.push((mid + 1, b));
                ranges.push((a, mid));
            }
            if enters {
                break;
            }
        } else if least_completion(tree.ordering, last, level_nodes, missing, m, degrees) {
            *work += 1;
            match bound(degrees) {
                Some(b) if b > threshold => {}
                _ => break,
            }
        }
    }
    degrees.truncate(len);
    may_enter
}

/// Push onto `out` the componentwise smallest degrees of m non-increasing levels whose first
/// degree is `first` (so every later one is at most `first`) and that add at least `missing`
/// nodes below `level_nodes`, given that `first` repeated m times covers. Level j ≥ 1 is at
/// least the smallest w that covers when the levels before it take their largest degree,
/// `first`, and it and the levels after it take w; that w is non-increasing in j.
fn least_completion_from(first: u32, level_nodes: u64, missing: u64, m: usize, out: &mut Vec<u32>) {
    out.push(first);
    // The j levels before level j, all of degree `first`: their last level's nodes and total.
    let mut head_nodes = level_nodes.saturating_mul(first.into());
    let mut head_total = head_nodes;
    let mut w = first;
    for j in 1..m {
        let need = missing.saturating_sub(head_total);
        // w_{j−1} covers here too (the level before is now `first` ≥ w_{j−1}); w usually stays
        // or drops by one, so w − 1 is tried before the bisection.
        let covers = |x: u32| reaches(head_nodes, need, x, 0, x, m - j);
        if w > 1 && covers(w - 1) {
            w = smallest(1, w - 1, covers);
        }
        out.push(w);
        head_nodes = head_nodes.saturating_mul(first.into());
        head_total = head_total.saturating_add(head_nodes);
    }
}

/// Whether `level_nodes` nodes followed by `head` levels of degree `k` and `tail` levels of
/// degree `w` add at least `missing` nodes (saturating arithmetic, at most 64 levels).
fn reaches(level_nodes: u64, missing: u64, k: u32, head: usize, w: u32, tail: usize) -> bool {
    if head == 0 && tail > 0 {
        if let Some(reach) = uniform_reach(w, tail) {
            // The loop below adds level_nodes·w^i for i = 1..=tail, each step saturating: every
            // partial sum is min(its exact value, u64::MAX), and the sums only grow, so some
            // partial sum reaches `missing` exactly when the last, level_nodes · G(w, tail),
            // does (saturated the same way).
            return level_nodes.saturating_mul(reach) >= missing;
        }
    }
    let (mut total, mut nodes) = (0u64, level_nodes);
    for (degree, levels) in [(k, head), (w, tail)] {
        for _ in 0..levels {
            nodes = nodes.saturating_mul(degree.into());
            total = total.saturating_add(nodes);
            if total >= missing {
                return true;
            }
        }
    }
    false
}

/// Degrees below this have their uniform reach G(w, t) in [`uniform_reach`]'s table.
const TABLED_DEGREES: usize = 64;

/// G(w, t) = w + w² + … + w^t (saturating at u64::MAX), for 1 ≤ w < [`TABLED_DEGREES`] and
/// 1 ≤ t ≤ [`LOOKAHEAD_LEVELS`], from a table made once per process (33 KiB); `None` outside.
fn uniform_reach(w: u32, t: usize) -> Option<u64> {
    static TABLE: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    let (w, row) = (w as usize, LOOKAHEAD_LEVELS + 1);
    if w == 0 || w >= TABLED_DEGREES || t == 0 || t > LOOKAHEAD_LEVELS {
        return None;
    }
    let table = TABLE.get_or_init(|| {
        let mut table = vec![0u64; TABLED_DEGREES * row];
        for w in 1..TABLED_DEGREES {
            let (mut sum, mut power) = (0u64, 1u64);
            for t in 1..row {
                power = power.saturating_mul(w as u64);
                sum = sum.saturating_add(power);
                table[w * row + t] = sum;
            }
        }
        table
    });
    table.get(w * row + t).copied()
}

/// The smallest w in `lo..=hi` with `ok(w)`, given `ok(hi)` and `ok` monotone.
fn smallest(lo: u32, hi: u32, ok: impl Fn(u32) -> bool) -> u32 {
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

/// Push onto `out` the componentwise smallest degrees of m levels that can follow a prefix
/// ending in degree `last` (with `level_nodes` nodes on its last level) under `ordering` and add
/// at least `missing` nodes; false (and `out` unchanged) when no such m levels exist.
///
/// - Non-increasing (every later degree ≤ `last`): level j (0-based) is at least the smallest w
///   that covers when the levels before it take their largest degree, `last`, and it and the
///   levels after it (at most w each) take w.
/// - Non-decreasing (every later degree ≥ `last`): the first m − 1 levels are at least `last`,
///   and the last level, the largest, is at least the smallest uniform degree that covers.
/// - Any: one level must cover alone, ⌈missing / level_nodes⌉; more levels are at least 1 each.
fn least_completion(
    ordering: DegreeOrdering,
    last: u32,
    level_nodes: u64,
    missing: u64,
    m: usize,
    out: &mut Vec<u32>,
) -> bool {
    let alone = u32::try_from(missing.div_ceil(level_nodes.max(1)).max(1)).unwrap_or(u32::MAX);
    match ordering {
        DegreeOrdering::NonIncreasing => {
            if !reaches(level_nodes, missing, last, 0, last, m) {
                return false;
            }
            // w_j is non-increasing in j (the levels before it are larger): step down from
            // w_{j−1}, usually by at most one.
            let mut w = last;
            for j in 0..m {
                while w > 1 && reaches(level_nodes, missing, last, j, w - 1, m - j) {
                    w -= 1;
                }
                out.push(w);
                if w == 1 {
                    out.resize(out.len() + (m - j - 1), 1);
                    break;
                }
            }
        }
        DegreeOrdering::NonDecreasing => {
            let uniform = smallest(1, alone, |w| reaches(level_nodes, missing, w, 0, w, m));
            out.resize(out.len() + (m - 1), last);
            out.push(uniform.max(last));
        }
        DegreeOrdering::Any => {
            if m == 1 {
                out.push(alone);
            } else {
                out.resize(out.len() + m, 1);
            }
        }
    }
    true
}

/// The same ranking by plain sequential enumeration of the whole space, without pruning,
/// incumbents or limits: the reference the fast search is checked and benchmarked against.
pub fn rank_naive(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
) -> Result<Ranked, SearchError> {
    let space = algorithm.space(request, &options.space)?;
    let progress = Progress::none();
    let mut run = Run::new(Deadline::never(), None, &progress);
    let mut top = TopK::new(options.keep(), &options.objective);
    match &space {
        Space::RootedTrees(trees) => {
            // The rooted-tree search is exact (exhaustive or dynamic program) by itself.
            return Ok(crate::rooted_trees::rank_rooted_trees(
                algorithm, request, options, trees,
            )?);
        }
        Space::PricedTrees(trees) => {
            // Exhaustive by itself within the budget (flagged otherwise).
            return Ok(crate::priced_trees::rank_priced_trees(
                algorithm,
                request,
                options,
                trees,
                Deadline::never(),
            )?);
        }
        Space::LevelDegrees { threads, ordering } => {
            LevelDegrees {
                threads: *threads,
                ordering: *ordering,
            }
            .for_each(|degrees| {
                let params = Params::Tree {
                    depth: degrees.len() as u32,
                    degrees: degrees.to_vec(),
                };
                if let Some(s) = run.price(algorithm, request, options, params) {
                    top.offer(s);
                }
            });
        }
        other => {
            let list = candidates(other).ok_or_else(|| SearchError::NotEnumerable {
                algorithm: algorithm.name().into(),
            })?;
            for params in list {
                if let Some(s) = run.price(algorithm, request, options, params) {
                    top.offer(s);
                }
            }
        }
    }
    Ok(Ranked {
        best: top.into_vec(),
        stats: run.stats,
        exactness: Exactness::Exact,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searches_at_once_fit_the_memory_available() {
        let mut options = SearchOptions::new(Objective::Min, 1);
        // The default limit, 2 GiB, in 24 GiB: 12 at once; in 25,276,502,016 bytes (this
        // VM's MemTotal, 23.54 GiB): ⌊11.77⌋ = 11.
        options.memory_available = Some(24 << 30);
        assert_eq!(options.searches_at_once(), 12);
        options.memory_available = Some(25_276_502_016);
        assert_eq!(options.searches_at_once(), 11);
        // A limit of 12 GiB there: ⌊1.96⌋ = 1; above the memory: still 1 (one search is held
        // to its own limit only); unknown memory: no cap.
        options.limits.memory_limit = 12 << 30;
        assert_eq!(options.searches_at_once(), 1);
        options.memory_available = Some(1 << 30);
        assert_eq!(options.searches_at_once(), 1);
        options.memory_available = None;
        assert_eq!(options.searches_at_once(), usize::MAX);
    }

    #[test]
    fn smallest_uniform_degree_reaches_what_is_missing() {
        // 999 missing below the root, 3 levels: k + k² + k³ ≥ 999 first at k = 10
        // (9 + 81 + 729 = 819 < 999; 10 + 100 + 1000 = 1110).
        assert_eq!(smallest_uniform_degree(999, 1, 3, None), 10);
        // Whatever the guess: the same smallest degree.
        for guess in [1, 2, 9, 10, 11, 500, 999, u32::MAX] {
            assert_eq!(smallest_uniform_degree(999, 1, 3, Some(guess)), 10);
        }
        // One level of 4 nodes, 10 missing: 4k ≥ 10 at k = 3.
        assert_eq!(smallest_uniform_degree(10, 4, 1, None), 3);
        assert_eq!(smallest_uniform_degree(1, 1, 5, None), 1);
    }

    #[test]
    fn least_completions_by_hand() {
        // One node on the last level, 30 missing, 2 more levels, first degree 5: level 1 adds 5,
        // level 2 needs 25 more from 5 nodes, so w ≥ 5: (5, 5). First degree 6: 6 + 6w ≥ 30
        // first at w = 4: (6, 4).
        let mut out = Vec::new();
        least_completion_from(5, 1, 30, 2, &mut out);
        assert_eq!(out, vec![5, 5]);
        out.clear();
        least_completion_from(6, 1, 30, 2, &mut out);
        assert_eq!(out, vec![6, 4]);
        // The table of uniform reaches: G(3, 4) = 3 + 9 + 27 + 81 = 120; G(2, 64) saturates
        // (2^65 − 2 > u64::MAX); G(1, t) = t.
        assert_eq!(uniform_reach(3, 4), Some(120));
        assert_eq!(uniform_reach(2, 64), Some(u64::MAX));
        assert_eq!(uniform_reach(1, 17), Some(17));
        assert_eq!(uniform_reach(64, 1), None);
        // 2 nodes under 3 levels of 3: 2·(3 + 9 + 27) = 78 < 100, 4 levels 240 ≥ 100.
        assert!(!reaches(2, 100, 1, 0, 3, 3));
        assert!(reaches(2, 100, 1, 0, 3, 4));
        // 5 + 25 = 30 reaches 30, not 31.
        assert!(reaches(1, 30, 5, 1, 5, 1));
        assert!(!reaches(1, 31, 5, 1, 5, 1));
        // Non-increasing after a 6, 3 levels, 100 missing below 2 nodes: the first level is at
        // least the smallest w with 2(w + w² + w³) ≥ 100: w = 4 (w = 3 gives 2·39 = 78, w = 4
        // gives 2·84 = 168); the second, with a 6 before it (12 nodes), 12 + 12(w + w²) ≥ 100:
        // w = 3 (w = 2 gives 12 + 72 = 84, w = 3 gives 12 + 144);
        // the third, after 6, 6 (12 + 72 = 84), 84 + 72 w ≥ 100: w = 1.
        out.clear();
        assert!(least_completion(
            DegreeOrdering::NonIncreasing,
            6,
            2,
            100,
            3,
            &mut out
        ));
        assert_eq!(out, vec![4, 3, 1]);
    }

    #[test]
    fn balanced_seeds_are_members_of_the_space() {
        let tree = LevelDegrees {
            threads: 1000,
            ordering: modelopt_model::DegreeOrdering::NonIncreasing,
        };
        let seeds = balanced_seeds(&tree);
        // Depth 1: (999); depth 3: 1 + 10 + 100 = 111 < 1000, k3 = ceil(889/100) = 9: (10,10,9).
        assert!(seeds.contains(&vec![999]));
        assert!(seeds.contains(&vec![10, 10, 9]));
        assert!(seeds.iter().all(|s| tree.contains(s)));
    }

    proptest::proptest! {
        /// The table of uniform reaches answers as the level-by-level loop does, saturation
        /// included.
        #[test]
        fn uniform_reaches_equal_the_loop(level_nodes in 1u64..u64::MAX, missing: u64, w in 1u32..70, t in 0usize..70) {
            // The definition: t more levels of degree w below `level_nodes` nodes, saturating.
            let looped = |level_nodes: u64, missing: u64| {
                let (mut total, mut nodes, mut hit) = (0u64, level_nodes, false);
                for _ in 0..t {
                    nodes = nodes.saturating_mul(w.into());
                    total = total.saturating_add(nodes);
                    hit |= total >= missing;
                }
                hit
            };
            proptest::prop_assert_eq!(reaches(level_nodes, missing, 1, 0, w, t), looped(level_nodes, missing));
            let small = level_nodes % 1000 + 1;
            let few = missing % 100_000;
            proptest::prop_assert_eq!(reaches(small, few, 1, 0, w, t), looped(small, few));
        }

        /// The incremental sums of `PrefixBounds` give, bit for bit, the key of the algorithm's
        /// own prefix bound, whatever the sequence of vectors (each keeps a random part of the
        /// one before and appends random degrees, some past the remembered ones).
        #[test]
        fn incremental_bounds_equal_whole_prefix_bounds(
            steps in proptest::collection::vec((0usize..12, proptest::collection::vec(1u32..300, 0..10)), 1..40),
            reduce: bool,
            obj in 0usize..3,
        ) {
            let phi = modelopt_model::machine::load("xeon-phi").unwrap();
            let collective = if reduce { modelopt_model::Collective::Reduce } else { modelopt_model::Collective::Bcast };
            let algorithms = phi.algorithms_for(collective);
            let algorithm = algorithms.iter().find(|a| a.name() == "small-tree").unwrap();
            let request = Request::new(collective, 5000).unwrap();
            let objective = [Objective::Min, Objective::Max, Objective::Blend(0.3)][obj];
            let mut bounds = PrefixBounds::new(algorithm.as_ref(), &request, &objective);
            proptest::prop_assert!(bounds.pricer.is_some());
            let mut degrees: Vec<u32> = Vec::new();
            for (keep, tail) in steps {
                degrees.truncate(keep);
                degrees.extend(tail);
                let whole = algorithm
                    .tree_prefix_bound(&request, &degrees)
                    .and_then(|c| objective.score(&c, request.metric()))
                    .map(score_key);
                proptest::prop_assert_eq!(bounds.key(&degrees), whole, "{:?}", degrees);
            }
        }
    }

    #[test]
    fn top_k_keeps_one_copy_and_the_total_order() {
        let objective = Objective::Min;
        let mut top = TopK::new(2, &objective);
        let s = |score: f64, k: u32| Scored {
            params: Params::Tree {
                depth: 1,
                degrees: vec![k],
            },
            cost: Cost::range(score, score),
            score,
        };
        top.offer(s(2.0, 5));
        top.offer(s(2.0, 5));
        top.offer(s(1.0, 7));
        top.offer(s(2.0, 4));
        // Ties at 2.0 are broken by the parameters: (4) before (5).
        let v = top.into_vec();
        assert_eq!(v, vec![s(1.0, 7), s(2.0, 4)]);
    }
}
