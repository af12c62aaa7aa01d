//! The search driver: enumerate an algorithm's space, price each configuration, keep the best.
//!
//! ## Ranking and ties
//! Configurations are ranked by, in order:
//! 1. the objective's score ([`Objective::score`]), compared at 1e-6 ns resolution;
//! 2. the other end of the min-max range ([`Objective::tie_score`]: `max` when minimizing `min`);
//! 3. the order of the algorithms as the model family lists them;
//! 4. the parameters' canonical order: for trees, fewer levels first, then the lexicographically
//!    smallest degree vector (so `(4,4,3)` before `(5,3,3)`); for barriers, the smaller degree;
//!    for named parameters, lexicographic by name then value.
//!
//! The order is total, so results are the same bytes on every run, whatever the thread count.
//!
//! ## Pruning
//! Level-degree spaces are searched depth-first with branch and bound: a prefix whose lower bound
//! ([`Algorithm::tree_prefix_bound`]) scores strictly worse than the current K-th best is cut.
//! Only configurations that cannot enter the top K are cut, so the result equals the naive
//! enumeration's ([`rank_naive`]); the tests check both agree.
//!
//! ## Parallelism
//! In one place: the first level of the tree (or the list of candidates) is split over rayon's
//! pool; the incumbent threshold is shared through an atomic.

use crate::objective::{score_key, Objective};
use crate::space::{enumerate, LevelDegrees, TreePrefix};
use modelopt_model::{Algorithm, Cost, ModelError, Params, Request, Space, SpaceOptions};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

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
    /// Parameters pinned to a value (`--fix k=7`).
    pub fixed: Vec<(String, i64)>,
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

    fn keep(&self) -> usize {
        self.top.max(1)
    }

    pub(crate) fn matches_fixed(&self, params: &Params) -> bool {
        self.fixed
            .iter()
            .all(|(name, value)| params.get(name) == Some(*value))
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

impl Scored {
    fn key(&self, objective: &Objective) -> (i64, i64, &Params) {
        (
            score_key(self.score),
            score_key(objective.tie_score(&self.cost)),
            &self.params,
        )
    }
}

/// Counters of one search (informative; with parallel pruning they vary between runs, so they
/// are never part of the deterministic output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SearchStats {
    /// Configurations priced.
    pub evaluated: u64,
    /// Configurations the model rejected (outside the algorithm's domain).
    pub infeasible: u64,
    /// Prefixes cut by the bound.
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
    /// Whether `best` is proven optimal under the model (false for heuristic searches, e.g. the
    /// two-socket rooted-tree search above its exhaustive limit).
    pub exact: bool,
}

struct TopK<'o> {
    keep: usize,
    objective: &'o Objective,
    items: Vec<Scored>,
}

impl<'o> TopK<'o> {
    fn new(keep: usize, objective: &'o Objective) -> Self {
        TopK {
            keep,
            objective,
            items: Vec::with_capacity(keep + 1),
        }
    }

    fn offer(&mut self, s: Scored) {
        let pos = self
            .items
            .partition_point(|x| x.key(self.objective) <= s.key(self.objective));
        if pos < self.keep {
            self.items.insert(pos, s);
            self.items.truncate(self.keep);
        }
    }

    /// The score key a newcomer must not exceed to enter (`i64::MAX` while not full).
    fn threshold(&self) -> i64 {
        if self.items.len() < self.keep {
            i64::MAX
        } else {
            self.items.last().map_or(i64::MAX, |s| score_key(s.score))
        }
    }

    fn merge(mut self, other: TopK<'o>) -> Self {
        for s in other.items {
            self.offer(s);
        }
        self
    }
}

struct Counters {
    evaluated: AtomicU64,
    infeasible: AtomicU64,
    pruned: AtomicU64,
    threshold: AtomicI64,
}

impl Counters {
    fn new() -> Self {
        Counters {
            evaluated: AtomicU64::new(0),
            infeasible: AtomicU64::new(0),
            pruned: AtomicU64::new(0),
            threshold: AtomicI64::new(i64::MAX),
        }
    }

    fn stats(&self) -> SearchStats {
        SearchStats {
            evaluated: self.evaluated.load(Ordering::Relaxed),
            infeasible: self.infeasible.load(Ordering::Relaxed),
            pruned: self.pruned.load(Ordering::Relaxed),
        }
    }
}

fn price(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    params: Params,
    counters: &Counters,
) -> Option<Scored> {
    if !options.matches_fixed(&params) {
        return None;
    }
    counters.evaluated.fetch_add(1, Ordering::Relaxed);
    let scored = algorithm.cost(request, &params).ok().and_then(|cost| {
        options
            .objective
            .score(&cost, request.metric)
            .filter(|s| s.is_finite())
            .map(|score| Scored {
                params,
                cost,
                score,
            })
    });
    if scored.is_none() {
        counters.infeasible.fetch_add(1, Ordering::Relaxed);
    }
    scored
}

/// Find the best `options.top` configurations of one algorithm for a request.
///
/// Returns the model's error when the algorithm does not apply to the request (e.g. a size it
/// does not model). An empty `best` means no configuration was feasible or matched `fixed`.
pub fn rank(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
) -> Result<Ranked, ModelError> {
    let space = algorithm.space(request, &options.space)?;
    let counters = Counters::new();
    let top = match &space {
        Space::LevelDegrees { threads, ordering } => {
            let tree = LevelDegrees {
                threads: *threads,
                ordering: *ordering,
            };
            let first = tree.expand(&TreePrefix::root());
            let mut roots: Vec<TreePrefix> = first.partial;
            roots.extend(first.complete);
            roots
                .par_iter()
                .map(|prefix| {
                    let mut top = TopK::new(options.keep(), &options.objective);
                    branch_and_bound(
                        algorithm, request, options, &tree, prefix, &counters, &mut top,
                    );
                    top
                })
                .reduce(
                    || TopK::new(options.keep(), &options.objective),
                    TopK::merge,
                )
        }
        Space::RootedTrees(trees) => {
            return crate::rooted_trees::rank_rooted_trees(algorithm, request, options, trees);
        }
        other => {
            let candidates = enumerate(other).ok_or_else(|| {
                ModelError::Unsupported(format!(
                    "the optimizer cannot enumerate the space of `{}`",
                    algorithm.name()
                ))
            })?;
            candidates
                .into_par_iter()
                .fold(
                    || TopK::new(options.keep(), &options.objective),
                    |mut top, params| {
                        if let Some(s) = price(algorithm, request, options, params, &counters) {
                            top.offer(s);
                        }
                        top
                    },
                )
                .reduce(
                    || TopK::new(options.keep(), &options.objective),
                    TopK::merge,
                )
        }
    };
    Ok(Ranked {
        best: top.items,
        stats: counters.stats(),
        exact: true,
    })
}

fn branch_and_bound(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
    tree: &LevelDegrees,
    prefix: &TreePrefix,
    counters: &Counters,
    top: &mut TopK<'_>,
) {
    if prefix.covered >= u64::from(tree.threads) {
        let params = Params::Tree {
            depth: prefix.degrees.len() as u32,
            degrees: prefix.degrees.clone(),
        };
        if let Some(s) = price(algorithm, request, options, params, counters) {
            top.offer(s);
            counters
                .threshold
                .fetch_min(top.threshold(), Ordering::Relaxed);
        }
        return;
    }
    // Every completion adds at least one level to this prefix: its bound holds for all of them.
    if let Some(bound) = algorithm
        .tree_prefix_bound(request, &prefix.degrees)
        .and_then(|c| options.objective.score(&c, request.metric))
    {
        let limit = counters
            .threshold
            .load(Ordering::Relaxed)
            .min(top.threshold());
        if score_key(bound) > limit {
            counters.pruned.fetch_add(1, Ordering::Relaxed);
            return;
        }
    }
    let step = tree.expand(prefix);
    if let Some(done) = &step.complete {
        branch_and_bound(algorithm, request, options, tree, done, counters, top);
    }
    for child in &step.partial {
        branch_and_bound(algorithm, request, options, tree, child, counters, top);
    }
}

/// The same ranking by plain sequential enumeration of the whole space, without pruning or
/// parallelism: the reference the fast search is checked and benchmarked against.
pub fn rank_naive(
    algorithm: &dyn Algorithm,
    request: &Request,
    options: &SearchOptions,
) -> Result<Ranked, ModelError> {
    let space = algorithm.space(request, &options.space)?;
    if let Space::RootedTrees(trees) = &space {
        // The rooted-tree search is exact (exhaustive or dynamic program) by itself.
        return crate::rooted_trees::rank_rooted_trees(algorithm, request, options, trees);
    }
    let candidates = enumerate(&space).ok_or_else(|| {
        ModelError::Unsupported(format!(
            "the optimizer cannot enumerate the space of `{}`",
            algorithm.name()
        ))
    })?;
    let counters = Counters::new();
    let mut top = TopK::new(options.keep(), &options.objective);
    for params in candidates {
        if let Some(s) = price(algorithm, request, options, params, &counters) {
            top.offer(s);
        }
    }
    Ok(Ranked {
        best: top.items,
        stats: counters.stats(),
        exact: true,
    })
}
