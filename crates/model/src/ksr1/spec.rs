//! The TOML layout of a KSR-1 machine (`family = "ksr1"`); see `machines/ksr1.toml`.
//!
//! The fitted constants of seed 003 §5 are kept under the seed's own names (`c0`, `c1`, …) with
//! units that say what they multiply: `ms`, `ms/processor`, `ms/stage`, `ms/subpage`.

use crate::spec::Param;
use serde::Deserialize;
use toml::Spanned;

/// A whole KSR-1 machine file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ksr1Spec {
    /// Short name.
    pub name: String,
    /// Always `ksr1`.
    pub family: String,
    /// One-line description.
    pub description: String,
    /// Hardware thread limit (one pthread per processor).
    pub max_threads: Spanned<u32>,
    /// The ring hierarchy and the subpage.
    pub topology: TopologySpec,
    /// The processor clock.
    pub clock: ClockSpec,
    /// Seed 003 Table 1: ALLCACHE latencies in cycles.
    pub allcache: AllcacheSpec,
    /// Seed 003 §5.1.
    pub barrier: BarrierSpec,
    /// Seed 003 §5.2.
    pub bcast: BcastSpec,
    /// Seed 003 §5.4 and Table 3.
    pub shift: ShiftSpec,
    /// Seed 003 §5.5 (concatenate-one).
    pub gather: GatherSpec,
    /// Seed 003 §5.6 (concatenate-all).
    pub allgather: AllgatherSpec,
    /// Seed 003 §5.7.
    pub reduce: ReduceSpec,
}

/// Rings and subpages (seed 003 §2).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Processing cells on one ring:0 (32).
    pub cells_per_ring0: Spanned<u32>,
    /// ring:0s one ring:1 connects (32): the architecture's limit.
    pub ring0_per_ring1: Spanned<u32>,
    /// Unit of transfer and coherence on the rings, in bytes (128).
    pub subpage_bytes: Spanned<u32>,
}

/// The processor clock.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSpec {
    /// One cycle, in `ns`.
    pub cycle: Param,
}

/// Table 1 latencies, in `cycles`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllcacheSpec {
    /// Local sub-cache (first level).
    pub sub_cache: Param,
    /// Local cache (second level).
    pub local_cache: Param,
    /// Another cell's local cache on the same ring:0.
    pub ring0: Param,
    /// A local cache on another ring:0, across ring:1.
    pub ring1: Param,
    /// Disk (page fault).
    pub disk: Param,
}

/// Barrier times, in `ms`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarrierSpec {
    /// All processors on one ring:0.
    pub ring0: Param,
    /// Processors on more than one ring:0.
    pub ring1: Param,
}

/// `T = c0 + c1·N_subpages`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubpageFitSpec {
    /// `C0`, in `ms`.
    pub c0: Param,
    /// `C1`, in `ms/subpage`.
    pub c1: Param,
}

/// The two broadcast fits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BcastSpec {
    /// `N_procs ≤ 32`.
    pub ring0: SubpageFitSpec,
    /// `N_procs > 32`, across ring:1.
    pub ring1: SubpageFitSpec,
}

/// The cyclic shift fit at distance 1 and Table 3.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShiftSpec {
    /// `C1`, in `ms/processor`.
    pub c1: Param,
    /// `C2`, in `ms/subpage`.
    pub c2: Param,
    /// Table 3 measurements with traffic across ring:1 (more processors than one ring:0 holds).
    #[serde(default)]
    pub ring1_contention: Vec<ShiftMeasurementSpec>,
}

/// One cell of Table 3.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShiftMeasurementSpec {
    /// Processors taking part.
    pub processors: Spanned<u32>,
    /// Shift distance k: processor i sends to (i + k) mod n.
    pub distance: Spanned<u32>,
    /// Measured time, in `ms`.
    pub time: Param,
}

/// `T = c0 + c1·x + c2·N_subpages`, x being processors or tree stages.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearFitSpec {
    /// `C0`, in `ms`.
    pub c0: Param,
    /// `C1`, in `ms/processor` or `ms/stage`.
    pub c1: Param,
    /// `C2`, in `ms/subpage`.
    pub c2: Param,
}

/// Concatenate-one.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatherSpec {
    /// Algorithm 1: node 0 reads every other node in turn (`c1` per processor).
    pub sequential: LinearFitSpec,
    /// Algorithm 2: binary tree (`c1` per stage).
    pub tree: LinearFitSpec,
}

/// Concatenate-all algorithm 2: `T = c0 + c5·log2 P + c6·P + c7·N_subpages`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeBcastFitSpec {
    /// `C0`, in `ms`.
    pub c0: Param,
    /// `C5`, in `ms/stage`.
    pub c5: Param,
    /// `C6`, in `ms/processor`.
    pub c6: Param,
    /// `C7`, in `ms/subpage`.
    pub c7: Param,
}

/// Concatenate-all.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllgatherSpec {
    /// Algorithm 1: concatenate-one (algorithm 1) + broadcast.
    pub gather_bcast: LinearFitSpec,
    /// Algorithm 2: concatenate-one (algorithm 2) + broadcast.
    pub tree_gather_bcast: TreeBcastFitSpec,
    /// Algorithm 3: N − 1 cyclic shifts.
    pub cyclic_shifts: LinearFitSpec,
}

/// Reduction = concatenate-one + operation + broadcast.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReduceSpec {
    /// The root's arithmetic per subpage it combines, in `ms/subpage`.
    pub operation: Param,
}
