//! The collectives of seed 002 as [`Algorithm`]s for the optimizer.
//!
//! | collective | name | free parameters | model |
//! |---|---|---|---|
//! | barrier | `recursive-doubling` | – | Table 1 rows 1–2 |
//! | barrier | `bruck` | – | Table 1 rows 3–4 |
//! | barrier | `gather-broadcast` | – | Table 1 rows 5–6 |
//! | barrier | `one-to-all` | – | Table 1 rows 7–8 (min-max) |
//! | barrier | `cluster-hybrid` | – | §6.1 (cluster machines, whole blades) |
//! | bcast | `one-to-all` | – | Table 2 rows 1–2 (min-max) |
//! | bcast | `binomial-simple` | – | Table 2 rows 3, 5 (min-max) |
//! | bcast | `binomial-opt` | – | Table 2 rows 4, 6 |
//! | bcast | `segmented-binomial` | – | Table 2 rows 7–8 |
//! | bcast | `hybrid-segmented-binomial` | – | Table 2 row 9 (two chips) |
//! | allgather | `recursive-doubling` | – | Table 3 rows 1–2 |
//! | allgather | `hybrid` | x, y | Table 3 row 3 (two chips) |
//! | reduce | `binomial` | – | Table 4 rows 1–2 |
//! | reduce | `reduce-scatter-gather` | – | Table 4 rows 3–4 |
//! | allreduce | `recursive-doubling` | – | Table 5 rows 1–2 |
//! | allreduce | `reduce-scatter-allgather` | – | Table 5 rows 3–4 |
//! | allreduce | `reduce-scatter-gather-bcast` | – | Table 5 rows 5–6 |
//! | allreduce | `hybrid-a` | x, y | Table 5 row 7 (two chips) |
//! | allreduce | `hybrid-b` | x, y | Table 5 row 8 (two chips) |
//!
//! Requests: `threads` is the number of SPEs p (one chip when p ≤ SPEs per chip, two chips
//! above); `size_bytes` is the broadcast message, each SPE's all-gather contribution, or the
//! vector each SPE contributes to a reduction (ignored by barriers, required ≥ 1 by the rest).
//! Hybrid algorithms take x, the round where the switch to recursive doubling occurs
//! (2 ≤ x ≤ log2 p; x = 1 would be plain recursive doubling, which has its own row), and y, the
//! number of data messages crossing the BIF, which x fixes: y = p / 2^(x−1) (§5.3).

use super::{allgather, barrier, broadcast, cluster, reduce, Blade, Cell, Placement, Terms};
use crate::algorithm::{Algorithm, IntRange, Space, SpaceOptions, Term};
use crate::error::ModelError;
use crate::request::{Collective, Cost, Params, Request};

/// The algorithms of seed 002, one per table row group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Barrier, recursive doubling (Table 1).
    BarrierRecursiveDoubling,
    /// Barrier, Bruck (Table 1).
    BarrierBruck,
    /// Barrier, gather then broadcast (Table 1).
    BarrierGatherBroadcast,
    /// Barrier, one-to-all (Table 1).
    BarrierOneToAll,
    /// Barrier over a cluster of blades (§6.1).
    BarrierClusterHybrid,
    /// Broadcast, one-to-all (Table 2).
    BcastOneToAll,
    /// Broadcast, simple binomial tree (Table 2).
    BcastBinomialSimple,
    /// Broadcast, ordered binomial tree (Table 2).
    BcastBinomialOpt,
    /// Broadcast, segmented binomial (Table 2).
    BcastSegmentedBinomial,
    /// Broadcast, hybrid segmented binomial (Table 2).
    BcastHybridSegmentedBinomial,
    /// All-gather, recursive doubling (Table 3).
    AllgatherRecursiveDoubling,
    /// All-gather, hybrid-x-y (Table 3).
    AllgatherHybrid,
    /// Reduce, binomial (Table 4).
    ReduceBinomial,
    /// Reduce, reduce-scatter + gather (Table 4).
    ReduceScatterGather,
    /// All-reduce, recursive doubling (Table 5).
    AllreduceRecursiveDoubling,
    /// All-reduce, reduce-scatter + recursive-doubling all-gather (Table 5).
    AllreduceScatterAllgather,
    /// All-reduce, reduce-scatter + gather + broadcast (Table 5).
    AllreduceScatterGatherBcast,
    /// All-reduce, HybridA-x-y (Table 5).
    AllreduceHybridA,
    /// All-reduce, HybridB-x-y (Table 5).
    AllreduceHybridB,
}

impl Kind {
    /// Every algorithm, in the order the family lists them.
    pub const ALL: [Kind; 19] = [
        Kind::BarrierRecursiveDoubling,
        Kind::BarrierBruck,
        Kind::BarrierGatherBroadcast,
        Kind::BarrierOneToAll,
        Kind::BarrierClusterHybrid,
        Kind::BcastOneToAll,
        Kind::BcastBinomialSimple,
        Kind::BcastBinomialOpt,
        Kind::BcastSegmentedBinomial,
        Kind::BcastHybridSegmentedBinomial,
        Kind::AllgatherRecursiveDoubling,
        Kind::AllgatherHybrid,
        Kind::ReduceBinomial,
        Kind::ReduceScatterGather,
        Kind::AllreduceRecursiveDoubling,
        Kind::AllreduceScatterAllgather,
        Kind::AllreduceScatterGatherBcast,
        Kind::AllreduceHybridA,
        Kind::AllreduceHybridB,
    ];

    /// Command-line name (kebab-case, unique within a collective).
    pub fn name(self) -> &'static str {
        match self {
            Kind::BarrierRecursiveDoubling
            | Kind::AllgatherRecursiveDoubling
            | Kind::AllreduceRecursiveDoubling => "recursive-doubling",
            Kind::BarrierBruck => "bruck",
            Kind::BarrierGatherBroadcast => "gather-broadcast",
            Kind::BarrierOneToAll | Kind::BcastOneToAll => "one-to-all",
            Kind::BarrierClusterHybrid => "cluster-hybrid",
            Kind::BcastBinomialSimple => "binomial-simple",
            Kind::BcastBinomialOpt => "binomial-opt",
            Kind::BcastSegmentedBinomial => "segmented-binomial",
            Kind::BcastHybridSegmentedBinomial => "hybrid-segmented-binomial",
            Kind::AllgatherHybrid => "hybrid",
            Kind::ReduceBinomial => "binomial",
            Kind::ReduceScatterGather => "reduce-scatter-gather",
            Kind::AllreduceScatterAllgather => "reduce-scatter-allgather",
            Kind::AllreduceScatterGatherBcast => "reduce-scatter-gather-bcast",
            Kind::AllreduceHybridA => "hybrid-a",
            Kind::AllreduceHybridB => "hybrid-b",
        }
    }

    /// The collective it implements.
    pub fn collective(self) -> Collective {
        match self {
            Kind::BarrierRecursiveDoubling
            | Kind::BarrierBruck
            | Kind::BarrierGatherBroadcast
            | Kind::BarrierOneToAll
            | Kind::BarrierClusterHybrid => Collective::Barrier,
            Kind::BcastOneToAll
            | Kind::BcastBinomialSimple
            | Kind::BcastBinomialOpt
            | Kind::BcastSegmentedBinomial
            | Kind::BcastHybridSegmentedBinomial => Collective::Bcast,
            Kind::AllgatherRecursiveDoubling | Kind::AllgatherHybrid => Collective::Allgather,
            Kind::ReduceBinomial | Kind::ReduceScatterGather => Collective::Reduce,
            Kind::AllreduceRecursiveDoubling
            | Kind::AllreduceScatterAllgather
            | Kind::AllreduceScatterGatherBcast
            | Kind::AllreduceHybridA
            | Kind::AllreduceHybridB => Collective::Allreduce,
        }
    }

    /// One line: what it is and where its model comes from.
    pub fn summary(self) -> &'static str {
        match self {
            Kind::BarrierRecursiveDoubling => "butterfly exchange of ACKs, log2 p rounds (seed 002, Table 1)",
            Kind::BarrierBruck => "Bruck dissemination, ⌈log2 p⌉ rounds, each crossing the BIF on a blade (seed 002, Table 1)",
            Kind::BarrierGatherBroadcast => "binomial gather of ACKs to the root, then binomial broadcast (seed 002, Table 1)",
            Kind::BarrierOneToAll => "the root ACKs every SPE, every SPE ACKs back; min-max over queued ACKs (seed 002, Table 1)",
            Kind::BarrierClusterHybrid => "recursive doubling on each blade, Bruck among the PPEs, binomial release (seed 002, §6.1)",
            Kind::BcastOneToAll => "every SPE gets the message from the root; min-max over queued ACKs (seed 002, Table 2)",
            Kind::BcastBinomialSimple => "binomial tree without ordered DMAs: priority-inversion gaps (seed 002, Table 2)",
            Kind::BcastBinomialOpt => "binomial tree with ordered DMAs, address-data-ACK rounds (seed 002, Table 2)",
            Kind::BcastSegmentedBinomial => "each half of the tree gets half of the message, then halves exchange (seed 002, Table 2)",
            Kind::BcastHybridSegmentedBinomial => "whole message once across the BIF, then segmented binomial on each chip (seed 002, Table 2)",
            Kind::AllgatherRecursiveDoubling => "butterfly with doubling messages; last round all across the BIF (seed 002, Table 3)",
            Kind::AllgatherHybrid => "x−1 gather rounds, recursive doubling with y BIF messages, x−1 broadcast rounds (seed 002, Table 3)",
            Kind::ReduceBinomial => "binomial tree reduction (seed 002, Table 4)",
            Kind::ReduceScatterGather => "Rabenseifner: reduce-scatter then gather to the root (seed 002, Table 4)",
            Kind::AllreduceRecursiveDoubling => "butterfly all-reduce, all SPEs cross the BIF in the last round (seed 002, Table 5)",
            Kind::AllreduceScatterAllgather => "reduce-scatter then recursive-doubling all-gather (seed 002, Table 5)",
            Kind::AllreduceScatterGatherBcast => "reduce-scatter, gather to the root, binomial broadcast (seed 002, Table 5)",
            Kind::AllreduceHybridA => "x−1 binomial reduce rounds, recursive doubling with y BIF messages, x−1 broadcast rounds (seed 002, Table 5)",
            Kind::AllreduceHybridB => "reduce-scatter, then the hybrid-x-y all-gather (seed 002, Table 5)",
        }
    }

    /// Whether the seed models it only on two chips.
    pub fn two_chip_only(self) -> bool {
        matches!(
            self,
            Kind::BcastHybridSegmentedBinomial
                | Kind::AllgatherHybrid
                | Kind::AllreduceHybridA
                | Kind::AllreduceHybridB
        )
    }

    /// Whether it has the free parameters x and y.
    pub fn has_xy(self) -> bool {
        matches!(
            self,
            Kind::AllgatherHybrid | Kind::AllreduceHybridA | Kind::AllreduceHybridB
        )
    }

    fn moves_data(self) -> bool {
        self.collective() != Collective::Barrier
    }
}

/// Every algorithm the model has: two-chip-only algorithms only on two-chip machines, the
/// cluster barrier only on clusters.
pub fn all(model: &Cell) -> Vec<Box<dyn Algorithm + '_>> {
    Kind::ALL
        .into_iter()
        .filter(|k| !k.two_chip_only() || model.blade.is_some())
        .filter(|k| *k != Kind::BarrierClusterHybrid || model.cluster.is_some())
        .map(|kind| Box::new(CellAlgorithm { model, kind }) as Box<dyn Algorithm + '_>)
        .collect()
}

/// One algorithm of seed 002 on one Cell machine.
#[derive(Debug, Clone, Copy)]
pub struct CellAlgorithm<'a> {
    /// The machine.
    pub model: &'a Cell,
    /// Which algorithm.
    pub kind: Kind,
}

/// What a request means for the formulas, once checked.
#[derive(Debug, Clone, Copy)]
enum Where<'a> {
    One,
    Two(&'a Blade),
}

fn threads_error(p: u32, reason: String) -> ModelError {
    ModelError::Threads {
        threads: p.into(),
        reason,
    }
}

impl<'a> CellAlgorithm<'a> {
    fn blade(&self, p: u32) -> Result<&'a Blade, ModelError> {
        self.model.blade.as_ref().ok_or_else(|| {
            threads_error(
                p,
                format!(
                    "{} has one chip of {} SPEs",
                    self.model.name, self.model.spes_per_chip
                ),
            )
        })
    }

    /// The placement of a request, refusing the ones this algorithm has no model for.
    fn place(&self, request: &Request) -> Result<Where<'a>, ModelError> {
        let p = request.threads();
        let placement = self.model.placement(request)?;
        match (placement, self.kind) {
            (Placement::Blades(_), Kind::BarrierClusterHybrid) => Ok(Where::One),
            (_, Kind::BarrierClusterHybrid) => Err(threads_error(
                p,
                format!(
                    "the cluster barrier (seed 002 §6.1) synchronizes whole blades: p must be a multiple of {} above {}",
                    self.model.spes_per_blade(),
                    self.model.spes_per_blade()
                ),
            )),
            (Placement::Blades(n), _) => Err(threads_error(
                p,
                format!(
                    "{p} SPEs span {n} blades; seed 002 models only the barrier across blades (§6.1, `cluster-hybrid`)"
                ),
            )),
            (Placement::OneChip, kind) if kind.two_chip_only() => Err(threads_error(
                p,
                format!(
                    "`{}` is a two-chip algorithm (seed 002 models it only on a blade): it needs more than {} SPEs",
                    kind.name(),
                    self.model.spes_per_chip
                ),
            )),
            (Placement::OneChip, _) => Ok(Where::One),
            (Placement::TwoChips, _) => Ok(Where::Two(self.blade(p)?)),
        }
    }

    /// The message size, checked: at least 1 byte, and every buffer within the local store.
    fn size(&self, request: &Request) -> Result<u64, ModelError> {
        let m = request.size_bytes();
        if !self.kind.moves_data() {
            return Ok(m);
        }
        if m == 0 {
            return Err(ModelError::SizeRequired {
                models: format!("the {} models of seed 002", self.kind.collective()),
            });
        }
        let (largest, what) = if self.kind.collective() == Collective::Allgather {
            (
                m.saturating_mul(u64::from(request.threads())),
                "the all-gather's receive buffer p × m",
            )
        } else {
            (m, "the message")
        };
        if largest > self.model.local_store_bytes {
            return Err(ModelError::SizeLimit {
                size_bytes: largest,
                limit_bytes: self.model.local_store_bytes,
                what: format!(
                    "the SPE local store holds for {what} (seed 002's algorithms keep their buffers there, §5)"
                ),
            });
        }
        Ok(m)
    }

    /// log2 p, or why p must be a power of two.
    fn power_of_two(&self, p: u32, table: &str) -> Result<u32, ModelError> {
        if p.is_power_of_two() {
            Ok(p.ilog2())
        } else {
            Err(threads_error(
                p,
                format!(
                    "seed 002 {table} models `{}` only for a power-of-two number of SPEs",
                    self.kind.name()
                ),
            ))
        }
    }

    /// log2 p for the two-chip rows that need one half of a power-of-two p on each chip.
    fn halves(&self, p: u32, b: &Blade, table: &str) -> Result<u32, ModelError> {
        let r = self.power_of_two(p, table)?;
        let full = u64::from(b.spes_per_chip) * 2;
        if u64::from(p) != full {
            return Err(threads_error(
                p,
                format!(
                    "the two-chip model of `{}` (seed 002 {table}) puts one half of the SPEs on each chip: p must be 2 × {} = {full}",
                    self.kind.name(),
                    b.spes_per_chip
                ),
            ));
        }
        Ok(r)
    }

    /// Check that a fixed algorithm got no parameters.
    fn no_params(&self, params: &Params) -> Result<(), ModelError> {
        match params {
            Params::None => Ok(()),
            Params::Named(map) if map.is_empty() => Ok(()),
            other => {
                let name = other
                    .names()
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| "params".into());
                Err(ModelError::Parameter {
                    value: other
                        .get(&name)
                        .map_or_else(|| other.to_string(), |v| v.to_string()),
                    name,
                    reason: format!("`{}` has no free parameter", self.kind.name()),
                })
            }
        }
    }

    /// x and y of a hybrid algorithm, checked against p (log2 p = `rounds`).
    fn xy(&self, params: &Params, p: u32, rounds: u32) -> Result<(u32, u32), ModelError> {
        let Params::Named(map) = params else {
            return Err(ModelError::Parameter {
                name: "x".into(),
                value: "(missing)".into(),
                reason: format!("`{}` needs the named parameters x and y", self.kind.name()),
            });
        };
        if let Some(other) = map.keys().find(|k| *k != "x" && *k != "y") {
            return Err(ModelError::Parameter {
                name: other.clone(),
                value: map.get(other).map_or_else(String::new, i64::to_string),
                reason: format!("`{}` has only the parameters x and y", self.kind.name()),
            });
        }
        let get = |name: &str| {
            map.get(name).copied().ok_or_else(|| ModelError::Parameter {
                name: name.into(),
                value: "(missing)".into(),
                reason: format!("`{}` needs the named parameters x and y", self.kind.name()),
            })
        };
        let (x, y) = (get("x")?, get("y")?);
        if x < 2 || x > i64::from(rounds) {
            return Err(ModelError::Parameter {
                name: "x".into(),
                value: x.to_string(),
                reason: format!(
                    "x is the round where the switch to recursive doubling occurs: 2 ≤ x ≤ log2 p = {rounds} for p = {p} (seed 002 §5.3; x = 1 is plain `recursive-doubling`)"
                ),
            });
        }
        // 2 ≤ x ≤ log2 p, so the shift is below 32 and the result at least 2.
        let expected = p >> (x - 1);
        if y != i64::from(expected) {
            return Err(ModelError::Parameter {
                name: "y".into(),
                value: y.to_string(),
                reason: format!(
                    "y counts the data messages crossing the BIF, which x fixes: y = p / 2^(x−1) = {expected} for x = {x} (seed 002 §5.3, Fig. 6)"
                ),
            });
        }
        Ok((x as u32, expected))
    }

    /// The model's terms for one configuration.
    pub fn terms(&self, request: &Request, params: &Params) -> Result<Terms, ModelError> {
        let place = self.place(request)?;
        let m = self.size(request)?;
        let p = request.threads();
        if !self.kind.has_xy() {
            self.no_params(params)?;
        }
        let model = self.model;
        let single = &model.single;
        let gamma = model.gamma;
        let piece = m.div_ceil(u64::from(p));
        let terms = match (self.kind, place) {
            (Kind::BarrierRecursiveDoubling, Where::One) => {
                barrier::recursive_doubling_one(single, p)
            }
            (Kind::BarrierRecursiveDoubling, Where::Two(b)) => {
                barrier::recursive_doubling_two(b, p)
            }
            (Kind::BarrierBruck, Where::One) => barrier::bruck_one(single, p),
            (Kind::BarrierBruck, Where::Two(b)) => barrier::bruck_two(b, p),
            (Kind::BarrierGatherBroadcast, Where::One) => barrier::gather_broadcast_one(single, p),
            (Kind::BarrierGatherBroadcast, Where::Two(b)) => barrier::gather_broadcast_two(b, p),
            (Kind::BarrierOneToAll, Where::One) => barrier::one_to_all_one(single, p),
            (Kind::BarrierOneToAll, Where::Two(b)) => barrier::one_to_all_two(b, p),
            (Kind::BarrierClusterHybrid, _) => {
                let b = self.blade(p)?;
                let c = model.cluster.as_ref().ok_or_else(|| {
                    threads_error(p, format!("{} is not a cluster of blades", model.name))
                })?;
                let per_blade = model.spes_per_blade();
                if !p.is_multiple_of(per_blade) {
                    return Err(threads_error(
                        p,
                        format!(
                            "the cluster barrier (seed 002 §6.1) synchronizes whole blades: p must be a multiple of {per_blade}"
                        ),
                    ));
                }
                cluster::hybrid_barrier(b, c, p / per_blade, per_blade)
            }
            (Kind::BcastOneToAll, Where::One) => broadcast::one_to_all_one(single, p, m),
            (Kind::BcastOneToAll, Where::Two(b)) => broadcast::one_to_all_two(b, p, m),
            (Kind::BcastBinomialSimple, Where::One) => broadcast::binomial_simple_one(single, p, m),
            (Kind::BcastBinomialSimple, Where::Two(b)) => broadcast::binomial_simple_two(b, p, m),
            (Kind::BcastBinomialOpt, Where::One) => {
                self.power_of_two(p, "Table 2")?;
                broadcast::binomial_opt_one(single, p, m)
            }
            (Kind::BcastBinomialOpt, Where::Two(b)) => broadcast::binomial_opt_two(b, p, m),
            (Kind::BcastSegmentedBinomial, Where::One) => {
                self.power_of_two(p, "Table 2")?;
                broadcast::segmented_one(single, p, m)
            }
            (Kind::BcastSegmentedBinomial, Where::Two(b)) => {
                self.halves(p, b, "Table 2")?;
                broadcast::segmented_two(b, p, m)
            }
            (Kind::BcastHybridSegmentedBinomial, Where::Two(b)) => {
                self.halves(p, b, "Table 2")?;
                broadcast::hybrid_segmented_two(b, p, m)
            }
            (Kind::AllgatherRecursiveDoubling, Where::One) => {
                self.power_of_two(p, "Table 3")?;
                allgather::recursive_doubling_one(single, p, m)
            }
            (Kind::AllgatherRecursiveDoubling, Where::Two(b)) => {
                self.halves(p, b, "Table 3")?;
                allgather::recursive_doubling_two(b, p, m)
            }
            (Kind::AllgatherHybrid, Where::Two(b)) => {
                let rounds = self.halves(p, b, "Table 3")?;
                let (x, y) = self.xy(params, p, rounds)?;
                allgather::hybrid_two(b, p, m, x, y)
            }
            (Kind::ReduceBinomial, Where::One) => reduce::binomial_one(single, p, m, gamma),
            (Kind::ReduceBinomial, Where::Two(b)) => reduce::binomial_two(b, p, m, gamma),
            (Kind::ReduceScatterGather, Where::One) => {
                self.power_of_two(p, "Table 4")?;
                reduce::reduce_scatter_gather_one(single, p, piece, gamma)
            }
            (Kind::ReduceScatterGather, Where::Two(b)) => {
                self.halves(p, b, "Table 4")?;
                reduce::reduce_scatter_gather_two(b, p, piece, gamma)
            }
            (Kind::AllreduceRecursiveDoubling, Where::One) => {
                self.power_of_two(p, "Table 5")?;
                reduce::allreduce_recursive_doubling_one(single, p, m, gamma)
            }
            (Kind::AllreduceRecursiveDoubling, Where::Two(b)) => {
                self.halves(p, b, "Table 5")?;
                reduce::allreduce_recursive_doubling_two(b, p, m, gamma)
            }
            (Kind::AllreduceScatterAllgather, Where::One) => {
                self.power_of_two(p, "Table 5")?;
                reduce::reduce_scatter_allgather_one(single, p, piece, gamma)
            }
            (Kind::AllreduceScatterAllgather, Where::Two(b)) => {
                self.halves(p, b, "Table 5")?;
                reduce::reduce_scatter_allgather_two(b, p, piece, gamma)
            }
            (Kind::AllreduceScatterGatherBcast, Where::One) => {
                self.power_of_two(p, "Table 5")?;
                reduce::reduce_scatter_gather_bcast_one(single, p, piece, m, gamma)
            }
            (Kind::AllreduceScatterGatherBcast, Where::Two(b)) => {
                self.halves(p, b, "Table 5")?;
                reduce::reduce_scatter_gather_bcast_two(b, p, piece, m, gamma)
            }
            (Kind::AllreduceHybridA, Where::Two(b)) => {
                let rounds = self.halves(p, b, "Table 5")?;
                let (x, y) = self.xy(params, p, rounds)?;
                reduce::hybrid_a_two(b, p, m, gamma, x, y)
            }
            (Kind::AllreduceHybridB, Where::Two(b)) => {
                let rounds = self.halves(p, b, "Table 5")?;
                let (x, y) = self.xy(params, p, rounds)?;
                reduce::hybrid_b_two(b, p, piece, gamma, x, y)
            }
            // Two-chip-only algorithms on one chip are refused by `place`.
            (kind, Where::One) => {
                return Err(threads_error(
                    p,
                    format!("`{}` is a two-chip algorithm", kind.name()),
                ))
            }
        };
        Ok(terms)
    }

    /// Check everything but the parameters, and give the free-parameter space.
    fn check_space(&self, request: &Request) -> Result<Space, ModelError> {
        let place = self.place(request)?;
        self.size(request)?;
        let p = request.threads();
        if !self.kind.has_xy() {
            // Price the fixed configuration once so that `space` refuses what `cost` would.
            self.terms(request, &Params::None)?;
            return Ok(Space::Fixed);
        }
        let Where::Two(b) = place else {
            return Err(threads_error(
                p,
                format!("`{}` is a two-chip algorithm", self.kind.name()),
            ));
        };
        let table = if self.kind == Kind::AllgatherHybrid {
            "Table 3"
        } else {
            "Table 5"
        };
        let rounds = self.halves(p, b, table)?;
        if rounds < 2 {
            return Err(threads_error(
                p,
                format!(
                    "`{}` needs at least 4 SPEs to switch algorithms",
                    self.kind.name()
                ),
            ));
        }
        Ok(Space::Grid(vec![
            IntRange::new("x", 2, i64::from(rounds)),
            IntRange::new("y", 2, i64::from(p / 2)),
        ]))
    }
}

impl Algorithm for CellAlgorithm<'_> {
    fn name(&self) -> &'static str {
        self.kind.name()
    }

    fn collective(&self) -> Collective {
        self.kind.collective()
    }

    fn summary(&self) -> &'static str {
        self.kind.summary()
    }

    fn space(&self, request: &Request, _options: &SpaceOptions) -> Result<Space, ModelError> {
        self.check_space(request)
    }

    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        Ok(self.terms(request, params)?.cost())
    }

    fn breakdown(&self, request: &Request, params: &Params) -> Result<Vec<Term>, ModelError> {
        Ok(self.terms(request, params)?.into_vec())
    }
}
