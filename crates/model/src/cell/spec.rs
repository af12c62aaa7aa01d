//! The TOML layout of a Cell machine (`family = "cell"`).
//!
//! Every number is a [`Param`]. Seed 002 (Ali, Midkiff & Pai, PPoPP 2010) measured its
//! parameters but printed them only in figures (Figs. 7 and 8) that did not survive conversion,
//! so most values in `machines/cell-*.toml` are documented estimates (`estimated = true`); the
//! derivations are in `docs/cell.md`.
//!
//! Layout:
//! - `[topology]`: chips (1 or 2), SPEs per chip, local-store size, smallest DMA;
//! - `[single]`: L(1), L(m), g(m), g_Ack(1) when one Cell processor is involved (seed 002 §3.3);
//! - `[intra]` and `[inter]` (two chips only): L_1, g_1 and L_2, g_2 (§3.3, §7.1);
//! - `[contention]` (two chips only): the BIF contention C(m, n) (§3.3, §4, §7.1);
//! - `[compute]`: γ, computation time per byte (§3.1);
//! - `[cluster]` (optional, two-chip blades only): SPE↔PPE and node parameters of §6.1.

use crate::spec::Param;
use serde::Deserialize;
use toml::Spanned;

/// A whole Cell machine file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    /// Short name.
    pub name: String,
    /// Always `cell`.
    pub family: String,
    /// One-line description.
    pub description: String,
    /// Largest number of SPEs a collective may use (at most chips × SPEs per chip × blades).
    pub max_threads: Spanned<u32>,
    /// Chips, SPEs, local store.
    pub topology: TopologySpec,
    /// PLogP parameters when a single Cell processor is involved (L, g).
    pub single: LinkSpec,
    /// Intra-chip parameters when two chips are involved (L_1, g_1).
    #[serde(default)]
    pub intra: Option<LinkSpec>,
    /// Inter-chip (BIF) parameters (L_2, g_2).
    #[serde(default)]
    pub inter: Option<LinkSpec>,
    /// BIF contention C(m, n).
    #[serde(default)]
    pub contention: Option<ContentionSpec>,
    /// Computation cost of reductions.
    pub compute: ComputeSpec,
    /// A cluster of blades (seed 002 §6.1).
    #[serde(default)]
    pub cluster: Option<ClusterSpec>,
}

/// Where SPEs are.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Cell processors sharing the collective: 1 (one chip) or 2 (a blade, joined by the BIF).
    pub chips: Spanned<u32>,
    /// SPEs per chip (8 on the Cell BE, seed 002 §2). SPEs are numbered chip by chip: "the first
    /// eight SPEs are on the first Cell processor and the rest are on the second" (§5.1).
    pub spes_per_chip: Spanned<u32>,
    /// Local-store size per SPE in bytes (256 KiB, seed 002 §2). The seed's algorithms keep their
    /// buffers in the local store (§5), so no buffer may exceed it.
    pub local_store_bytes: Spanned<u64>,
    /// Smallest DMA transfer in bytes (16, seed 002 §3.3); smaller messages cost as much.
    pub min_dma_bytes: Spanned<u64>,
}

/// The extended-PLogP parameters of one kind of SPE-to-SPE path.
///
/// L(m) = `latency` + m / `bandwidth` (m at least the smallest DMA), g(m) = `gap` + m /
/// `gap_bandwidth`; bandwidths in GB/s are bytes per nanosecond.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// L(1): half the round trip of the ACK-array micro-benchmark (Fig. 3a), ns.
    pub ack: Param,
    /// Size-independent part of L(m), the ADDR-array micro-benchmark (Fig. 3b), ns.
    pub latency: Param,
    /// Per-byte rate of L(m), GB/s.
    pub bandwidth: Param,
    /// Size-independent part of g(m), the gap micro-benchmark (§3.3), ns.
    pub gap: Param,
    /// Per-byte rate of g(m), GB/s.
    pub gap_bandwidth: Param,
    /// g_Ack(1): gap between consecutive ACKs, ns.
    pub ack_gap: Param,
}

/// BIF contention C(m, n): the excess latency of a BIF-n butterfly over BIF-2 (seed 002 §3.3).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentionSpec {
    /// Messages the BIF carries without contention (2: "BIF-1 equals BIF-2", §3.3).
    pub free_messages: Param,
    /// Message size up to which there is no contention (256 B, §4 and §7.1).
    pub threshold: Param,
    /// Rate at which each message pair beyond the free ones delays the pattern, GB/s.
    pub bandwidth: Param,
}

/// Computation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeSpec {
    /// γ: computation time per byte of a reduction, ns/B (seed 002 §3.1).
    pub gamma: Param,
}

/// A cluster of Cell blades (seed 002 §6.1).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Number of blades N.
    pub blades: Spanned<u32>,
    /// L_spe-ppe(1): latency of an ACK from an SPE to its blade's PPE, ns.
    pub spe_ppe_latency: Param,
    /// g_spe-ppe(1): gap between ACKs arriving at the PPE, ns.
    pub spe_ppe_gap: Param,
    /// L_ppe-spe(1): latency of an ACK from the PPE to an SPE, ns.
    pub ppe_spe_latency: Param,
    /// L_node(1): one-way latency between blades (MPI, PLogP), ns.
    pub node_latency: Param,
    /// g_node(1): gap between blades (MPI, PLogP), ns.
    pub node_gap: Param,
}
