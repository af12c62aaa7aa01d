//! The TOML layout of a message-passing machine (`family = "loggp"`); see `machines/cluster-example.toml`
//! and `docs/mpi.md`.
//!
//! The file names one point-to-point model with `model = "hockney" | "logp" | "loggp" | "plogp"`
//! and gives that model's table (and only that one):
//! - `[hockney]`: α (`latency`, µs) and β (`per_byte`, µs/B) (Hockney 1994);
//! - `[logp]`: L, o, g (µs) and the packet size w (B) (Culler et al. 1993);
//! - `[loggp]`: L, o, g (µs) and G (`gap_per_byte`, µs/B) (Alexandrov et al. 1995);
//! - `[plogp]`: L (µs) and the tables o_s(m), o_r(m), g(m) as lists of `(size, value)` points,
//!   interpolated linearly (Kielmann, Bal & Verstoep 2000).
//!
//! An optional `[node]` table makes the machine two-level: `ranks_per_node` consecutive ranks share
//! a node, and `[node.<model>]` gives the same model's parameters for messages inside a node.
//!
//! `[compute]` gives γ, the time per byte of a reduction (µs/B), for every model. Every number is
//! a [`Param`] (value, unit, source); every point of a PLogP table is one too (a [`PointSpec`]), so
//! `machines show` lists it and sensitivity analysis can nudge it.

use crate::spec::Param;
use serde::Deserialize;
use toml::Spanned;

/// A whole message-passing machine file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogGpSpec {
    /// Short name.
    pub name: String,
    /// Always `loggp`.
    pub family: String,
    /// One-line description.
    pub description: String,
    /// Largest number of MPI ranks the machine runs.
    pub max_threads: Spanned<u32>,
    /// Which point-to-point model prices messages: `hockney`, `logp`, `loggp` or `plogp`.
    pub model: Spanned<String>,
    /// Hockney α, β.
    #[serde(default)]
    pub hockney: Option<HockneySpec>,
    /// LogP L, o, g, w.
    #[serde(default)]
    pub logp: Option<LogPSpec>,
    /// LogGP L, o, g, G.
    #[serde(default)]
    pub loggp: Option<LogGpParamsSpec>,
    /// PLogP L, o_s(m), o_r(m), g(m).
    #[serde(default)]
    pub plogp: Option<PLogPSpec>,
    /// γ.
    pub compute: ComputeSpec,
    /// Optional second level: ranks sharing a node and the same model's parameters between them.
    #[serde(default)]
    pub node: Option<NodeSpec>,
}

/// The intra-node level of a two-level machine: `ranks_per_node` consecutive ranks share a node
/// and exchange messages under the same point-to-point model with their own parameters
/// (`[node.loggp]` for `model = "loggp"`, and so on).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Ranks per node (at least 2); rank r runs on node ⌊r / ranks_per_node⌋.
    pub ranks_per_node: Spanned<u32>,
    /// Hockney α, β inside a node.
    #[serde(default)]
    pub hockney: Option<HockneySpec>,
    /// LogP inside a node.
    #[serde(default)]
    pub logp: Option<LogPSpec>,
    /// LogGP inside a node.
    #[serde(default)]
    pub loggp: Option<LogGpParamsSpec>,
    /// PLogP inside a node.
    #[serde(default)]
    pub plogp: Option<PLogPSpec>,
}

/// Hockney (1994): a message of m bytes costs α + mβ.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HockneySpec {
    /// α: start-up time of a message, µs.
    pub latency: Param,
    /// β: transfer time per byte, µs/B.
    pub per_byte: Param,
}

/// LogP (Culler et al. 1993).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogPSpec {
    /// L: network latency of a small message, µs.
    pub latency: Param,
    /// o: processor overhead of sending or receiving one small message, µs.
    pub overhead: Param,
    /// g: minimum interval between consecutive sends (or receives) at one processor, µs.
    pub gap: Param,
    /// w: payload of one small message, B; an m-byte message is ⌈m / w⌉ small messages.
    pub packet: Param,
}

/// LogGP (Alexandrov et al. 1995).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogGpParamsSpec {
    /// L, µs.
    pub latency: Param,
    /// o, µs.
    pub overhead: Param,
    /// g, µs.
    pub gap: Param,
    /// G: gap per byte of a long message, µs/B.
    pub gap_per_byte: Param,
}

/// PLogP (Kielmann, Bal & Verstoep 2000): L and three size-dependent tables.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PLogPSpec {
    /// L: end-to-end latency, µs.
    pub latency: Param,
    /// o_s(m): send overhead, µs, at ascending sizes.
    pub send_overhead: Spanned<Vec<PointSpec>>,
    /// o_r(m): receive overhead, µs, at ascending sizes.
    pub recv_overhead: Spanned<Vec<PointSpec>>,
    /// g(m): gap between consecutive m-byte messages, µs, at ascending sizes.
    pub gap: Spanned<Vec<PointSpec>>,
}

/// One point of a PLogP table: a message size and the parameter's value there, with provenance
/// (the fields of a [`Param`] plus `size`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointSpec {
    /// Message size, bytes.
    pub size: Spanned<u64>,
    /// The value at `size`, in `unit`.
    pub value: Spanned<f64>,
    /// Unit of `value` (`us`).
    pub unit: String,
    /// Where the number comes from.
    pub source: String,
    /// Standard deviation, when the source gives one.
    #[serde(default)]
    pub stdev: Option<f64>,
    /// Whether the value is an estimate.
    #[serde(default)]
    pub estimated: bool,
    /// Free-form remark.
    #[serde(default)]
    pub note: Option<String>,
}

impl PointSpec {
    /// The point as a [`Param`], for the common checks.
    pub fn param(&self) -> Param {
        Param {
            value: self.value.clone(),
            unit: self.unit.clone(),
            source: self.source.clone(),
            stdev: self.stdev,
            estimated: self.estimated,
            note: self.note.clone(),
            benchmark: None,
            host: None,
            measured_at: None,
            samples: None,
            mad: None,
            cv: None,
            r2: None,
        }
    }
}

/// Computation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeSpec {
    /// γ: time per byte of a reduction operation, µs/B.
    pub gamma: Param,
}
