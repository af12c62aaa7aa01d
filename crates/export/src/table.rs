//! The decision table: for each collective, communicator-size ranges, and inside each, message-size
//! ranges with the algorithm and parameters to use.
//!
//! The table is filled by asking the tuner ([`modelopt_optimizer::tune`]) at every point of a
//! grid, then neighbouring cells with the same decision are merged into ranges. The grid is a step
//! function: the decision at grid point `g` holds from `g` up to the next grid point minus one, and
//! the last point's decision holds for everything above it (`None` as the upper bound), which is
//! how the libraries' "largest rule ≤ the size" lookups read a table.

use crate::ExportError;
use modelopt_model::{Collective, Machine, Params, Request};
use modelopt_optimizer::tuner::tune_until;
use modelopt_optimizer::SearchOptions;
use serde::Serialize;
use std::collections::BTreeMap;

/// One decision: an algorithm (by the model family's name) and its parameters.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Decision {
    /// Algorithm name, as the model family spells it (`binomial`, `segmented-ring`, ...).
    pub algorithm: String,
    /// Its parameters (`segment` in bytes, `fanout`, `radix`), in name order.
    pub params: BTreeMap<String, i64>,
}

impl Decision {
    /// A decision from a name and parameter pairs.
    pub fn new<const N: usize>(algorithm: &str, params: [(&str, i64); N]) -> Self {
        Decision {
            algorithm: algorithm.to_string(),
            params: params
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        }
    }

    /// The decision for a tuner's configuration: every named parameter with its value.
    pub fn from_params(algorithm: &str, params: &Params) -> Self {
        let params = params
            .names()
            .into_iter()
            .filter_map(|name| params.get(&name).map(|v| (name, v)))
            .collect();
        Decision {
            algorithm: algorithm.to_string(),
            params,
        }
    }
}

/// A message-size range (bytes, inclusive) and its decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeRule {
    /// Smallest size the rule covers.
    pub size_min: u64,
    /// Largest size it covers; `None` = no upper bound.
    pub size_max: Option<u64>,
    /// What to run.
    pub decision: Decision,
}

/// A communicator-size range (ranks, inclusive) and its message-size rules, ascending.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommRule {
    /// Smallest communicator size the rule covers.
    pub ranks_min: u32,
    /// Largest; `None` = no upper bound.
    pub ranks_max: Option<u32>,
    /// Message-size rules, ascending and contiguous, the first starting at the grid's first size.
    pub sizes: Vec<SizeRule>,
}

/// The rules of one collective.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CollectiveTable {
    /// The collective.
    pub collective: Collective,
    /// Communicator-size rules, ascending and contiguous.
    pub comms: Vec<CommRule>,
}

/// Every collective's rules, and where they came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionTable {
    /// Machine name.
    pub machine: String,
    /// The machine file (a path, or `bundled:NAME`).
    pub machine_file: String,
    /// One table per collective, in the order asked.
    pub collectives: Vec<CollectiveTable>,
    /// What the filling had to say (e.g. cells where the model's best was not expressible).
    pub notes: Vec<String>,
}

/// The points at which the tuner is asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Grid {
    /// Communicator sizes, ascending, distinct, each at least 2.
    pub ranks: Vec<u32>,
    /// Message sizes in bytes, ascending, distinct.
    pub sizes: Vec<u64>,
}

impl Grid {
    /// Communicator sizes: `lo`, every power of two strictly between, and `hi`. Message sizes: 0
    /// and every power of two in `sizes.0..=sizes.1` (0 is always there: Open MPI's classic
    /// reader wants every table to start at message size 0, MPICH's a rule for every size).
    pub fn powers_of_two(ranks: (u32, u32), sizes: (u64, u64)) -> Result<Grid, ExportError> {
        let (rlo, rhi) = ranks;
        if rlo < 2 || rlo > rhi {
            return Err(ExportError::Grid(format!(
                "communicator sizes {rlo}..={rhi}: need 2 <= low <= high"
            )));
        }
        if rhi > modelopt_model::request::MAX_THREADS {
            return Err(ExportError::Grid(format!(
                "communicator size {rhi} is above the largest modelled ({})",
                modelopt_model::request::MAX_THREADS
            )));
        }
        let (slo, shi) = sizes;
        if slo > shi {
            return Err(ExportError::Grid(format!(
                "message sizes {slo}..={shi} are empty"
            )));
        }
        if shi > modelopt_model::request::MAX_SIZE_BYTES {
            return Err(ExportError::Grid(format!(
                "message size {shi} B is above the largest modelled ({} B)",
                modelopt_model::request::MAX_SIZE_BYTES
            )));
        }
        let mut r = vec![rlo];
        r.extend((1..32).map(|k| 1u32 << k).filter(|&p| p > rlo && p < rhi));
        if rhi > rlo {
            r.push(rhi);
        }
        let mut s = vec![0u64];
        s.extend((0..31).map(|k| 1u64 << k).filter(|&p| p >= slo && p <= shi));
        Ok(Grid { ranks: r, sizes: s })
    }
}

/// Merge a grid of decisions into ranges. `cells[i][j]` is the decision at `ranks[i]`,
/// `sizes[j]`. First each row's neighbouring sizes with equal decisions become one size range,
/// then neighbouring rows with equal size rules become one communicator range.
///
/// Returns an error when the shapes disagree or the axes are not strictly ascending.
pub fn merge_grid(
    ranks: &[u32],
    sizes: &[u64],
    cells: &[Vec<Decision>],
) -> Result<Vec<CommRule>, ExportError> {
    if ranks.is_empty() || sizes.is_empty() || cells.len() != ranks.len() {
        return Err(ExportError::Grid(format!(
            "{} rows of decisions for {} communicator sizes and {} message sizes",
            cells.len(),
            ranks.len(),
            sizes.len()
        )));
    }
    if ranks.windows(2).any(|w| w[0] >= w[1]) || sizes.windows(2).any(|w| w[0] >= w[1]) {
        return Err(ExportError::Grid(
            "grid axes must be strictly ascending".into(),
        ));
    }
    let mut comms: Vec<CommRule> = Vec::new();
    for (i, row) in cells.iter().enumerate() {
        if row.len() != sizes.len() {
            return Err(ExportError::Grid(format!(
                "row {i} has {} decisions for {} message sizes",
                row.len(),
                sizes.len()
            )));
        }
        let mut rules: Vec<SizeRule> = Vec::new();
        for (j, decision) in row.iter().enumerate() {
            let size_max = sizes.get(j + 1).map(|next| next - 1);
            match rules.last_mut() {
                Some(last) if last.decision == *decision => last.size_max = size_max,
                _ => rules.push(SizeRule {
                    size_min: sizes[j],
                    size_max,
                    decision: decision.clone(),
                }),
            }
        }
        let ranks_max = ranks.get(i + 1).map(|next| next - 1);
        match comms.last_mut() {
            Some(last) if last.sizes == rules => last.ranks_max = ranks_max,
            _ => comms.push(CommRule {
                ranks_min: ranks[i],
                ranks_max,
                sizes: rules,
            }),
        }
    }
    Ok(comms)
}

/// Fill a decision table by asking the tuner at every grid point, sequentially and in grid
/// order (so the result is deterministic). Barrier has no message size: it is asked at size 0
/// only.
///
/// `accept` says whether a target can express a decision. The decision kept for a cell is the
/// tuner's best configuration that `accept` takes, walking its ranking best first (the ranking
/// holds each algorithm's best at least); when that is not the overall best, a note says so.
/// When no ranked configuration is accepted, the cell is an error.
pub fn fill(
    machine: &Machine,
    grid: &Grid,
    collectives: &[Collective],
    options: &SearchOptions,
    accept: &dyn Fn(Collective, &Decision) -> bool,
) -> Result<DecisionTable, ExportError> {
    let mut tables = Vec::new();
    // (collective, model's best, kept) -> cells
    let mut replaced: BTreeMap<(Collective, String, String), usize> = BTreeMap::new();
    // The time limit holds for the whole table (each cell's search gets what is left of it);
    // cells whose search stopped early (a limit) are counted and named in a note.
    let deadline = options.limits.deadline();
    let mut unproven: BTreeMap<Collective, usize> = BTreeMap::new();
    for &collective in collectives {
        let sizes: &[u64] = if collective == Collective::Barrier {
            &grid.sizes[..1]
        } else {
            &grid.sizes
        };
        let mut cells = Vec::with_capacity(grid.ranks.len());
        for &ranks in &grid.ranks {
            let mut row = Vec::with_capacity(sizes.len());
            for &size in sizes {
                let cell_error = |reason: String| ExportError::Cell {
                    collective,
                    ranks,
                    size,
                    reason,
                };
                let request = Request::new(collective, ranks)
                    .and_then(|r| r.with_size(size))
                    .map_err(|e| cell_error(e.to_string()))?;
                let tuning = tune_until(machine, &request, options, None, deadline)
                    .map_err(|e| cell_error(e.to_string()))?;
                if !tuning.complete() {
                    *unproven.entry(collective).or_default() += 1;
                }
                let mut ranked = tuning
                    .ranking
                    .iter()
                    .map(|c| Decision::from_params(&c.algorithm, &c.scored.params));
                let best = ranked
                    .next()
                    .ok_or_else(|| cell_error("the tuner ranked nothing".into()))?;
                let kept = if accept(collective, &best) {
                    best
                } else {
                    let kept = ranked.find(|d| accept(collective, d)).ok_or_else(|| {
                        cell_error(format!(
                            "no ranked algorithm is expressible in this target (model's best: {})",
                            best.algorithm
                        ))
                    })?;
                    *replaced
                        .entry((collective, best.algorithm.clone(), kept.algorithm.clone()))
                        .or_default() += 1;
                    kept
                };
                row.push(kept);
            }
            cells.push(row);
        }
        let comms = merge_grid(&grid.ranks, sizes, &cells)?;
        tables.push(CollectiveTable { collective, comms });
    }
    let notes = replaced
        .into_iter()
        .map(|((c, best, kept), n)| {
            format!(
                "{c}: in {n} grid cell(s) the model's best, {best}, has no equivalent in this target; the best expressible, {kept}, is used"
            )
        })
        .chain(unproven.into_iter().map(|(c, n)| {
            format!(
                "{c}: in {n} grid cell(s) the search stopped at a limit (the work budget or the time limit), so the decision there is the best found, not proven optimal"
            )
        }))
        .collect();
    Ok(DecisionTable {
        machine: machine.name.clone(),
        machine_file: machine.origin.clone(),
        collectives: tables,
        notes,
    })
}
