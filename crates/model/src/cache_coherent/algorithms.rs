//! The cache-coherent collectives of seed 000 as [`Algorithm`]s for the optimizer.
//!
//! | name | collective | free parameters | model |
//! |---|---|---|---|
//! | `small-tree` | bcast | d, k_1..k_d | Eq. (4.7) / Table 4.1 "Small Broadcast" |
//! | `pipelined` | bcast | – | Eqs. (4.8)/(4.9) |
//! | `flat-tree` | bcast | – | Eq. (4.10) |
//! | `dissemination` | barrier | m (r follows) | Eqs. (4.11)/(4.12) |
//! | `small-tree` | reduce | d, k_1..k_d | Eqs. (4.13)/(4.14) |
//!
//! Message sizes: 0 means one small item (a flag or a value that fits in the notification line).
//! The small tree broadcast and reduction take messages up to one cache line; the pipelined and
//! flat-tree broadcasts take any size of at least one byte.

use super::{minmax, CacheCoherent};
use crate::algorithm::{prefix_bound, Algorithm, LevelPricer, Space, SpaceOptions, Term};
use crate::error::ModelError;
use crate::request::{Collective, Cost, Params, Request};

/// Every algorithm of the family, borrowing the model.
pub fn all(model: &CacheCoherent) -> Vec<Box<dyn Algorithm + '_>> {
    vec![
        Box::new(SmallTreeBroadcast(model)),
        Box::new(PipelinedBroadcast(model)),
        Box::new(FlatTreeBroadcast(model)),
        Box::new(DisseminationBarrier(model)),
        Box::new(SmallTreeReduce(model)),
    ]
}

fn tree_degrees<'p>(request: &Request, params: &'p Params) -> Result<&'p [u32], ModelError> {
    let Params::Tree { depth, degrees } = params else {
        return Err(ModelError::WrongParams {
            algorithm: "a tree algorithm".into(),
            expected: "tree parameters (depth, degrees)".into(),
            got: params.to_string(),
        });
    };
    if degrees.is_empty() || *depth as usize != degrees.len() {
        return Err(ModelError::Parameter {
            name: "depth".into(),
            value: depth.to_string(),
            reason: format!("must equal the number of degrees ({})", degrees.len()),
        });
    }
    if let Some(i) = degrees.iter().position(|&k| k == 0) {
        return Err(ModelError::Parameter {
            name: format!("k{}", i + 1),
            value: "0".into(),
            reason: "every level needs at least one child per node".into(),
        });
    }
    let covered = tree_coverage(degrees);
    if covered < u64::from(request.threads()) {
        return Err(ModelError::Parameter {
            name: "degrees".into(),
            value: format!("{degrees:?}"),
            reason: format!(
                "the tree has {covered} nodes, fewer than the {} threads (Eq. 4.4)",
                request.threads()
            ),
        });
    }
    Ok(degrees)
}

/// Nodes of a level-uniform tree: 1 + Σ_i Π_{j≤i} k_j (seed 000, Eq. 4.4), saturating.
pub fn tree_coverage(degrees: &[u32]) -> u64 {
    let mut total: u64 = 1;
    let mut level: u64 = 1;
    for &k in degrees {
        level = level.saturating_mul(k.into());
        total = total.saturating_add(level);
    }
    total
}

fn small_item(model: &CacheCoherent, request: &Request, what: &str) -> Result<(), ModelError> {
    let line = u64::from(model.topology.line_bytes);
    if request.size_bytes() > line {
        return Err(ModelError::SizeLimit {
            size_bytes: request.size_bytes(),
            limit_bytes: line,
            what: format!("the one item the {what} model carries in its notification line"),
        });
    }
    Ok(())
}

fn large_message(request: &Request) -> Result<(), ModelError> {
    if request.size_bytes() == 0 {
        return Err(ModelError::SizeRequired {
            models: "the large-broadcast models".into(),
        });
    }
    Ok(())
}

/// The level-degree space of a one-item tree collective.
fn level_tree_space(
    model: &CacheCoherent,
    request: &Request,
    options: &SpaceOptions,
    what: &str,
) -> Result<Space, ModelError> {
    small_item(model, request, what)?;
    model.costs(request)?;
    Ok(Space::LevelDegrees {
        threads: request.threads(),
        ordering: options.ordering,
    })
}

/// Price a one-item tree collective whose min-max cost is `formula(costs, degrees)`.
fn level_tree_cost(
    model: &CacheCoherent,
    request: &Request,
    params: &Params,
    what: &str,
    formula: fn(&super::Costs, &[u32]) -> (f64, f64),
) -> Result<Cost, ModelError> {
    small_item(model, request, what)?;
    let degrees = tree_degrees(request, params)?;
    let (lo, hi) = formula(&model.costs(request)?, degrees);
    Ok(Cost::range(lo, hi))
}

/// The terms of a cost `base + Σ level(k_i)` whose level costs are positive, for one request's
/// costs (looked up once, when the pricer is made). Its [`prefix_bound`] of a prefix, the
/// prefix's own levels, bounds every tree extending the prefix from below.
struct AdditiveLevels {
    costs: super::Costs,
    base: f64,
    level: fn(&super::Costs, u32) -> (f64, f64),
}

impl LevelPricer for AdditiveLevels {
    fn base(&self) -> (f64, f64) {
        (self.base, self.base)
    }
    fn level(&self, k: u32) -> (f64, f64) {
        (self.level)(&self.costs, k)
    }
}

/// The terms of a cost `base + Σ level(k_i)` for `request`; `None` when the machine lacks the
/// request's costs.
fn additive_levels(
    model: &CacheCoherent,
    request: &Request,
    base: fn(&super::Costs) -> f64,
    level: fn(&super::Costs, u32) -> (f64, f64),
) -> Option<AdditiveLevels> {
    let costs = model.costs(request).ok()?;
    Some(AdditiveLevels {
        base: base(&costs),
        costs,
        level,
    })
}

/// T = R_I (the root's flag) + Σ per-level terms (seed 000, Eq. 4.7).
fn broadcast_levels(model: &CacheCoherent, request: &Request) -> Option<AdditiveLevels> {
    additive_levels(model, request, |c| c.r_i, minmax::small_broadcast_level)
}

/// T = R_R (the final notification) + Σ per-level terms (seed 000, Eqs. 4.13/4.14).
fn reduce_levels(model: &CacheCoherent, request: &Request) -> Option<AdditiveLevels> {
    additive_levels(model, request, |c| c.r_r, minmax::small_reduce_level)
}

/// Small broadcast over a level-uniform tree (seed 000, Eq. 4.7).
#[derive(Debug, Clone, Copy)]
pub struct SmallTreeBroadcast<'a>(pub &'a CacheCoherent);

impl Algorithm for SmallTreeBroadcast<'_> {
    fn name(&self) -> &'static str {
        "small-tree"
    }
    fn collective(&self) -> Collective {
        Collective::Bcast
    }
    fn summary(&self) -> &'static str {
        "one-line broadcast down a tree of depth d with k_i children per node at level i (seed 000, Eq. 4.7)"
    }
    fn space(&self, request: &Request, options: &SpaceOptions) -> Result<Space, ModelError> {
        level_tree_space(self.0, request, options, "small broadcast")
    }
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        level_tree_cost(
            self.0,
            request,
            params,
            "small broadcast",
            minmax::small_broadcast,
        )
    }
    fn tree_prefix_bound(&self, request: &Request, prefix: &[u32]) -> Option<Cost> {
        // The prefix's own levels: every level costs something (Eq. 4.7).
        broadcast_levels(self.0, request).map(|p| prefix_bound(&p, prefix))
    }
    fn level_pricer(&self, request: &Request) -> Option<Box<dyn LevelPricer + '_>> {
        broadcast_levels(self.0, request).map(|p| Box::new(p) as Box<dyn LevelPricer>)
    }
    fn breakdown(&self, request: &Request, params: &Params) -> Result<Vec<Term>, ModelError> {
        let degrees = tree_degrees(request, params)?;
        let c = self.0.costs(request)?;
        let (fw_lo, fw_hi) = minmax::notify_forwards(&c, degrees);
        let data = minmax::tree_transfer(&c, degrees);
        let (nb_lo, nb_hi) = degrees.iter().fold((0.0, 0.0), |(a, b), &k| {
            let (x, y) = minmax::notify_backwards(&c, k + 1);
            (a + x, b + y)
        });
        Ok(vec![
            Term {
                label: "T_fw notification forwards (Eq. 4.6)".into(),
                min_ns: fw_lo,
                max_ns: fw_hi,
            },
            Term {
                label: "Σ T_C(k_i) data copies under contention (Eq. 4.5)".into(),
                min_ns: data,
                max_ns: data,
            },
            Term {
                label: "Σ T_nb(k_i+1) notification backwards (Eqs. 4.1/4.2)".into(),
                min_ns: nb_lo,
                max_ns: nb_hi,
            },
        ])
    }
}

/// Pipelined large broadcast (seed 000, Eqs. 4.8/4.9).
#[derive(Debug, Clone, Copy)]
pub struct PipelinedBroadcast<'a>(pub &'a CacheCoherent);

impl Algorithm for PipelinedBroadcast<'_> {
    fn name(&self) -> &'static str {
        "pipelined"
    }
    fn collective(&self) -> Collective {
        Collective::Bcast
    }
    fn summary(&self) -> &'static str {
        "large broadcast in n-1 stages, each thread copying a different slice (seed 000, Eqs. 4.8/4.9)"
    }
    fn space(&self, request: &Request, _: &SpaceOptions) -> Result<Space, ModelError> {
        large_message(request)?;
        self.0.costs(request)?;
        Ok(Space::Fixed)
    }
    fn cost(&self, request: &Request, _: &Params) -> Result<Cost, ModelError> {
        large_message(request)?;
        let c = self.0.costs(request)?;
        let (lo, hi) =
            minmax::pipelined_broadcast(&c, request.threads(), self.0.lines(request.size_bytes()));
        Ok(Cost::range(lo, hi))
    }
    fn breakdown(&self, request: &Request, _: &Params) -> Result<Vec<Term>, ModelError> {
        large_message(request)?;
        let c = self.0.costs(request)?;
        let phases = minmax::pipelined_broadcast_phases(
            &c,
            request.threads(),
            self.0.lines(request.size_bytes()),
        );
        let labels = [
            "T_init initialization",
            "T_1st first stage (contention on the root's flag + first slice)",
            "T_rest remaining n-2 stages",
            "T_fin finalization",
        ];
        Ok(labels
            .iter()
            .zip(phases)
            .map(|(label, (lo, hi))| Term {
                label: (*label).into(),
                min_ns: lo,
                max_ns: hi,
            })
            .collect())
    }
}

/// Flat-tree large broadcast (seed 000, Eq. 4.10).
#[derive(Debug, Clone, Copy)]
pub struct FlatTreeBroadcast<'a>(pub &'a CacheCoherent);

impl Algorithm for FlatTreeBroadcast<'_> {
    fn name(&self) -> &'static str {
        "flat-tree"
    }
    fn collective(&self) -> Collective {
        Collective::Bcast
    }
    fn summary(&self) -> &'static str {
        "large broadcast where every thread copies the whole message from the root (seed 000, Eq. 4.10)"
    }
    fn space(&self, request: &Request, _: &SpaceOptions) -> Result<Space, ModelError> {
        large_message(request)?;
        self.0.costs(request)?;
        Ok(Space::Fixed)
    }
    fn cost(&self, request: &Request, _: &Params) -> Result<Cost, ModelError> {
        large_message(request)?;
        let c = self.0.costs(request)?;
        let (lo, hi) =
            minmax::flat_tree_broadcast(&c, request.threads(), self.0.lines(request.size_bytes()));
        Ok(Cost::range(lo, hi))
    }
    fn breakdown(&self, request: &Request, _: &Params) -> Result<Vec<Term>, ModelError> {
        large_message(request)?;
        let c = self.0.costs(request)?;
        let (copy, (lo, hi)) = minmax::flat_tree_broadcast_parts(
            &c,
            request.threads(),
            self.0.lines(request.size_bytes()),
        );
        Ok(vec![
            Term {
                label: "T_notif notification (Eq. 4.10)".into(),
                min_ns: lo,
                max_ns: hi,
            },
            Term {
                label: "T_copy = b + c(n-2) + o·N contended multi-line copy".into(),
                min_ns: copy,
                max_ns: copy,
            },
        ])
    }
}

/// Dissemination barrier (seed 000, Eqs. 4.11/4.12).
#[derive(Debug, Clone, Copy)]
pub struct DisseminationBarrier<'a>(pub &'a CacheCoherent);

impl Algorithm for DisseminationBarrier<'_> {
    fn name(&self) -> &'static str {
        "dissemination"
    }
    fn collective(&self) -> Collective {
        Collective::Barrier
    }
    fn summary(&self) -> &'static str {
        "dissemination barrier with m peers per round and r rounds (seed 000, Eqs. 4.11/4.12)"
    }
    fn space(&self, request: &Request, options: &SpaceOptions) -> Result<Space, ModelError> {
        self.0.costs(request)?;
        Ok(Space::Dissemination {
            threads: request.threads(),
            rule: options.rounds,
        })
    }
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        let Params::Dissemination { degree, rounds } = params else {
            return Err(ModelError::WrongParams {
                algorithm: "the dissemination barrier".into(),
                expected: "degree and rounds".into(),
                got: params.to_string(),
            });
        };
        if *degree == 0 || *degree >= request.threads() {
            return Err(ModelError::Parameter {
                name: "degree".into(),
                value: degree.to_string(),
                reason: format!("must be between 1 and n-1 = {}", request.threads() - 1),
            });
        }
        let reach = u64::from(*degree + 1)
            .checked_pow(*rounds)
            .unwrap_or(u64::MAX);
        if *rounds == 0 || reach < u64::from(request.threads()) {
            return Err(ModelError::Parameter {
                name: "rounds".into(),
                value: rounds.to_string(),
                reason: format!(
                    "{rounds} rounds of degree {degree} cannot synchronize {} threads",
                    request.threads()
                ),
            });
        }
        let (lo, hi) = minmax::barrier(&self.0.costs(request)?, *degree, *rounds);
        Ok(Cost::range(lo, hi))
    }
}

/// Small reduction over a level-uniform tree (seed 000, Eqs. 4.13/4.14).
#[derive(Debug, Clone, Copy)]
pub struct SmallTreeReduce<'a>(pub &'a CacheCoherent);

impl Algorithm for SmallTreeReduce<'_> {
    fn name(&self) -> &'static str {
        "small-tree"
    }
    fn collective(&self) -> Collective {
        Collective::Reduce
    }
    fn summary(&self) -> &'static str {
        "one-item reduction up a tree, k_i buffers per parent at level i (seed 000, Eqs. 4.13/4.14)"
    }
    fn space(&self, request: &Request, options: &SpaceOptions) -> Result<Space, ModelError> {
        level_tree_space(self.0, request, options, "small reduction")
    }
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        level_tree_cost(
            self.0,
            request,
            params,
            "small reduction",
            minmax::small_reduce,
        )
    }
    fn tree_prefix_bound(&self, request: &Request, prefix: &[u32]) -> Option<Cost> {
        // The prefix's own levels: every level costs something (Eqs. 4.13/4.14).
        reduce_levels(self.0, request).map(|p| prefix_bound(&p, prefix))
    }
    fn level_pricer(&self, request: &Request) -> Option<Box<dyn LevelPricer + '_>> {
        reduce_levels(self.0, request).map(|p| Box::new(p) as Box<dyn LevelPricer>)
    }
}
