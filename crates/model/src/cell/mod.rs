//! Cell-based systems: one Cell BE processor, a two-chip Cell blade, and a cluster of blades,
//! after seed 002 (Ali, Midkiff & Pai, "Modeling Advanced Collective Communication Algorithms on
//! Cell-based Systems", PPoPP 2010).
//!
//! The model has three layers:
//! 1. the extended PLogP model of §3 ([`plogp`]): L(1), L(m), g(m), g_Ack(1) for one chip (L, g),
//!    for same-chip paths on a blade (L_1, g_1) and across the BIF (L_2, g_2), and the BIF
//!    contention C(m, n);
//! 2. the collective models of Tables 1–5 and §6.1, one function per table row and chip count
//!    ([`barrier`], [`broadcast`], [`allgather`], [`reduce`], [`cluster`]), each returning its
//!    [`Terms`] so that a prediction can say where the time goes (BIF rounds, contention, gaps);
//! 3. [`Algorithm`] objects for the optimizer ([`algorithms`]).
//!
//! SPEs are numbered chip by chip ("the first eight SPEs are on the first Cell processor and the
//! rest are on the second", §5.1): p ≤ 8 SPEs use the one-chip models with L and g, and p > 8 the
//! two-chip models. The root of one-to-all collectives is on the first chip (§5). Readings of
//! formulas the conversion garbled are recorded in `docs/cell.md` and beside each formula.

pub mod algorithms;
pub mod allgather;
pub mod barrier;
pub mod broadcast;
pub mod cluster;
pub mod plogp;
pub mod reduce;
pub mod spec;

use crate::algorithm::{Algorithm, Term};
use crate::error::{ModelError, SpecError};
use crate::machine::{Loaded, ModelFamily};
use crate::request::{Cost, Request};
use crate::spec::{Domain, Param, SpecContext};
use plogp::{Contention, Link};
use spec::{CellSpec, LinkSpec};

/// The two-chip parameters of a blade: L_1, g_1 (same chip), L_2, g_2 (across the BIF) and
/// C(m, n) (seed 002 §3.3, §7.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blade {
    /// L_1, g_1: between SPEs of the same chip while two chips take part.
    pub intra: Link,
    /// L_2, g_2: between SPEs of different chips (through the BIF).
    pub inter: Link,
    /// C(m, n): BIF contention.
    pub contention: Contention,
    /// SPEs per chip (8): the BIF separates SPEs `0..spes_per_chip` from the rest.
    pub spes_per_chip: u32,
}

/// The cluster parameters of seed 002 §6.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cluster {
    /// Number of blades N the machine has.
    pub blades: u32,
    /// L_spe-ppe(1), ns.
    pub spe_ppe_latency: f64,
    /// g_spe-ppe(1), ns.
    pub spe_ppe_gap: f64,
    /// L_ppe-spe(1), ns.
    pub ppe_spe_latency: f64,
    /// L_node(1), ns.
    pub node_latency: f64,
    /// g_node(1), ns.
    pub node_gap: f64,
}

/// Where the SPEs of a request are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// All on one chip: the "One" rows of Tables 1–5 (L, g).
    OneChip,
    /// On the two chips of a blade: the "Two" rows (L_1, g_1, L_2, g_2, C).
    TwoChips,
    /// Whole blades of a cluster (§6.1): the number of blades.
    Blades(u32),
}

/// A checked Cell machine model.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Machine name (for messages).
    pub name: String,
    /// Chips per blade (1 or 2).
    pub chips: u32,
    /// SPEs per chip.
    pub spes_per_chip: u32,
    /// Largest SPE count of a request.
    pub max_threads: u32,
    /// Local-store bytes per SPE: the largest buffer a collective may use.
    pub local_store_bytes: u64,
    /// L, g: one chip involved.
    pub single: Link,
    /// Two-chip parameters, when the machine has two chips.
    pub blade: Option<Blade>,
    /// γ, ns per byte of reduction.
    pub gamma: f64,
    /// Cluster parameters, when the machine is a cluster of blades.
    pub cluster: Option<Cluster>,
}

impl Cell {
    /// SPEs of one blade (chips × SPEs per chip).
    pub fn spes_per_blade(&self) -> u32 {
        self.chips * self.spes_per_chip
    }

    /// Where the `request.threads` SPEs are, or why there cannot be that many.
    pub fn placement(&self, request: &Request) -> Result<Placement, ModelError> {
        let p = request.threads();
        if p < 2 {
            return Err(ModelError::Threads {
                threads: p.into(),
                reason: "a collective needs at least 2 SPEs".into(),
            });
        }
        if p > self.max_threads {
            return Err(ModelError::Threads {
                threads: p.into(),
                reason: format!(
                    "{} has {} SPEs ({})",
                    self.name,
                    self.max_threads,
                    self.hardware_text()
                ),
            });
        }
        if p <= self.spes_per_chip {
            Ok(Placement::OneChip)
        } else if p <= self.spes_per_blade() {
            Ok(Placement::TwoChips)
        } else {
            Ok(Placement::Blades(p.div_ceil(self.spes_per_blade())))
        }
    }

    fn hardware_text(&self) -> String {
        let chips = match self.chips {
            1 => format!("one chip of {} SPEs", self.spes_per_chip),
            n => format!("{n} chips × {} SPEs", self.spes_per_chip),
        };
        match &self.cluster {
            Some(c) => format!("{} blades of {chips}", c.blades),
            None => chips,
        }
    }
}

impl ModelFamily for Cell {
    fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>> {
        algorithms::all(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A model's prediction as a list of labelled terms that add up to the cost.
///
/// Every formula of this family returns its terms, so that [`Algorithm::breakdown`] can show
/// which part dominates (e.g. the BIF contention C(m, n) of a recursive-doubling round).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Terms(Vec<Term>);

impl Terms {
    /// No terms (cost 0).
    pub fn new() -> Self {
        Terms(Vec::new())
    }

    /// Add a term with a single value.
    pub fn add(&mut self, label: impl Into<String>, ns: f64) {
        self.add_range(label, ns, ns);
    }

    /// Add a term with a min-max range (the seed's `0 ≤ X ≤ ...`).
    pub fn add_range(&mut self, label: impl Into<String>, min_ns: f64, max_ns: f64) {
        self.0.push(Term {
            label: label.into(),
            min_ns,
            max_ns,
        });
    }

    /// Append all terms of `other`.
    pub fn extend(&mut self, other: Terms) {
        self.0.extend(other.0);
    }

    /// Sum of the best cases.
    pub fn min_ns(&self) -> f64 {
        self.0.iter().map(|t| t.min_ns).sum()
    }

    /// Sum of the worst cases.
    pub fn max_ns(&self) -> f64 {
        self.0.iter().map(|t| t.max_ns).sum()
    }

    /// The cost: the sums of the best and worst cases.
    pub fn cost(&self) -> Cost {
        Cost::range(self.min_ns(), self.max_ns())
    }

    /// The terms.
    pub fn terms(&self) -> &[Term] {
        &self.0
    }

    /// The terms, owned.
    pub fn into_vec(self) -> Vec<Term> {
        self.0
    }
}

/// ⌊log2 p⌋ (0 for p ≤ 1).
pub fn floor_log2(p: u32) -> u32 {
    p.max(1).ilog2()
}

/// ⌈log2 p⌉ (0 for p ≤ 1).
pub fn ceil_log2(p: u32) -> u32 {
    if p <= 1 {
        0
    } else {
        (p - 1).ilog2() + 1
    }
}

fn link(
    ctx: &SpecContext<'_>,
    spec: &LinkSpec,
    table: &str,
    min_bytes: u64,
) -> Result<Link, SpecError> {
    let ns = |p: &Param, key: &str, d: Domain| ctx.check(p, &format!("{table}.{key}"), "ns", d);
    let rate =
        |p: &Param, key: &str| ctx.check(p, &format!("{table}.{key}"), "GB/s", Domain::Positive);
    Ok(Link {
        ack: ns(&spec.ack, "ack", Domain::Positive)?,
        latency: ns(&spec.latency, "latency", Domain::Positive)?,
        bandwidth: rate(&spec.bandwidth, "bandwidth")?,
        gap: ns(&spec.gap, "gap", Domain::NonNegative)?,
        gap_bandwidth: rate(&spec.gap_bandwidth, "gap_bandwidth")?,
        ack_gap: ns(&spec.ack_gap, "ack_gap", Domain::NonNegative)?,
        min_bytes,
    })
}

/// Read and validate a Cell machine file (`family = "cell"`).
pub fn load(ctx: &SpecContext<'_>) -> Result<Loaded, SpecError> {
    let spec: CellSpec = ctx.parse()?;
    let t = &spec.topology;
    let chips = ctx.count(&t.chips, "topology.chips")?;
    if chips > 2 {
        return Err(ctx.error_at(
            t.chips.span(),
            "topology.chips",
            format!(
                "seed 002 models one Cell chip or a two-chip blade: must be 1 or 2 (got {chips})"
            ),
        ));
    }
    let spes_per_chip = ctx.count(&t.spes_per_chip, "topology.spes_per_chip")?;
    let min_dma_bytes = *t.min_dma_bytes.get_ref();
    if min_dma_bytes == 0 {
        return Err(ctx.error_at(
            t.min_dma_bytes.span(),
            "topology.min_dma_bytes",
            "must be at least 1",
        ));
    }
    let local_store_bytes = *t.local_store_bytes.get_ref();
    if local_store_bytes < min_dma_bytes {
        return Err(ctx.error_at(
            t.local_store_bytes.span(),
            "topology.local_store_bytes",
            format!("must hold at least one DMA of {min_dma_bytes} B (got {local_store_bytes})"),
        ));
    }
    let single = link(ctx, &spec.single, "single", min_dma_bytes)?;
    let two_chip_tables = [
        ("intra", spec.intra.is_some()),
        ("inter", spec.inter.is_some()),
        ("contention", spec.contention.is_some()),
    ];
    let blade = match (chips, &spec.intra, &spec.inter, &spec.contention) {
        (2, Some(intra), Some(inter), Some(c)) => {
            let contention = Contention {
                free_messages: ctx.check(
                    &c.free_messages,
                    "contention.free_messages",
                    "messages",
                    Domain::NonNegative,
                )?,
                threshold_bytes: ctx.check(
                    &c.threshold,
                    "contention.threshold",
                    "B",
                    Domain::NonNegative,
                )?,
                bandwidth: ctx.check(
                    &c.bandwidth,
                    "contention.bandwidth",
                    "GB/s",
                    Domain::Positive,
                )?,
            };
            Some(Blade {
                intra: link(ctx, intra, "intra", min_dma_bytes)?,
                inter: link(ctx, inter, "inter", min_dma_bytes)?,
                contention,
                spes_per_chip,
            })
        }
        (2, ..) => {
            let missing = two_chip_tables
                .iter()
                .find(|(_, present)| !present)
                .map_or("intra", |(name, _)| name);
            return Err(ctx.error(
                missing,
                format!("a two-chip machine (topology.chips = 2) needs a [{missing}] table"),
            ));
        }
        _ => {
            if let Some((name, _)) = two_chip_tables.iter().find(|(_, present)| *present) {
                return Err(ctx.error(
                    name,
                    format!("[{name}] is only used by two-chip machines (topology.chips = 2)"),
                ));
            }
            None
        }
    };
    let gamma = ctx.check(
        &spec.compute.gamma,
        "compute.gamma",
        "ns/B",
        Domain::NonNegative,
    )?;
    let cluster = match &spec.cluster {
        None => None,
        Some(c) => {
            if chips != 2 {
                return Err(ctx.error(
                    "cluster",
                    "seed 002 §6.1 models clusters of two-chip blades: [cluster] needs topology.chips = 2",
                ));
            }
            let ns =
                |p: &Param, key: &str, d: Domain| ctx.check(p, &format!("cluster.{key}"), "ns", d);
            Some(Cluster {
                blades: ctx.count(&c.blades, "cluster.blades")?,
                spe_ppe_latency: ns(&c.spe_ppe_latency, "spe_ppe_latency", Domain::Positive)?,
                spe_ppe_gap: ns(&c.spe_ppe_gap, "spe_ppe_gap", Domain::NonNegative)?,
                ppe_spe_latency: ns(&c.ppe_spe_latency, "ppe_spe_latency", Domain::Positive)?,
                node_latency: ns(&c.node_latency, "node_latency", Domain::Positive)?,
                node_gap: ns(&c.node_gap, "node_gap", Domain::NonNegative)?,
            })
        }
    };
    let blades = cluster.map_or(1, |c| c.blades);
    let hardware = u64::from(chips) * u64::from(spes_per_chip) * u64::from(blades);
    let max_threads = *spec.max_threads.get_ref();
    if max_threads < 2 || u64::from(max_threads) > hardware {
        return Err(ctx.error_at(
            spec.max_threads.span(),
            "max_threads",
            format!(
                "must be between 2 and chips × spes_per_chip{} = {hardware} (got {max_threads})",
                if cluster.is_some() {
                    " × cluster.blades"
                } else {
                    ""
                }
            ),
        ));
    }
    let model = Cell {
        name: spec.name.clone(),
        chips,
        spes_per_chip,
        max_threads,
        local_store_bytes,
        single,
        blade,
        gamma,
        cluster,
    };
    Ok(Loaded {
        description: spec.description,
        max_threads,
        model: Box::new(model),
    })
}

/// Round-number parameters for the formula unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::plogp::{Contention, Link};
    use super::Blade;

    /// Round numbers: L(1) = 100, g(16 B) = 10 + 16/16 = 11, g_Ack = 5 on chip;
    /// L_2(1) = 300, g_2(16 B) = 20 + 16/8 = 22, g_2Ack = 7 across the BIF.
    pub fn blade() -> Blade {
        let intra = Link {
            ack: 100.0,
            latency: 200.0,
            bandwidth: 20.0,
            gap: 10.0,
            gap_bandwidth: 16.0,
            ack_gap: 5.0,
            min_bytes: 16,
        };
        let inter = Link {
            ack: 300.0,
            latency: 500.0,
            bandwidth: 10.0,
            gap: 20.0,
            gap_bandwidth: 8.0,
            ack_gap: 7.0,
            min_bytes: 16,
        };
        Blade {
            intra,
            inter,
            contention: Contention {
                free_messages: 2.0,
                threshold_bytes: 256.0,
                bandwidth: 32.0,
            },
            spes_per_chip: 8,
        }
    }
}
