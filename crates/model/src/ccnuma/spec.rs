//! The TOML layout of a ccNUMA machine (`family = "ccnuma"`), seed 001 §2.
//!
//! See `machines/sandy-bridge-e5-2660.toml` for a commented example and `docs/cla.md` for what
//! each number is used for. Every number is a [`Param`].

use crate::spec::Param;
use serde::Deserialize;
use toml::Spanned;

/// A whole ccNUMA machine file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CcnumaSpec {
    /// Short name.
    pub name: String,
    /// Always `ccnuma`.
    pub family: String,
    /// One-line description.
    pub description: String,
    /// Hardware thread limit.
    pub max_threads: Spanned<u32>,
    /// Sockets, cores, hardware threads and the cache line size.
    pub topology: TopologySpec,
    /// The five line-transfer classes R_L, R_R, R_Q, R_I, R_QI (seed 001 §2.1).
    pub line: LineSpec,
    /// Multi-line transfers, Eq. (1), within and across sockets (seed 001 Table 1).
    pub multi_line: MultiLineTables,
    /// How an RFO of a shared line is priced (seed 001 §2.3).
    pub invalidation: InvalidationSpec,
}

/// Where threads run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Number of sockets (NUMA regions).
    pub sockets: Spanned<u32>,
    /// Cores per socket.
    pub cores_per_socket: Spanned<u32>,
    /// Hardware threads per core.
    pub threads_per_core: Spanned<u32>,
    /// Cache line size in bytes.
    pub line_bytes: Spanned<u32>,
}

/// The five line-transfer classes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    /// R_L: the line is in the accessing core's cache.
    pub local: Param,
    /// R_R: the line is in another core's cache on the same socket.
    pub remote: Param,
    /// R_Q: the line is in a cache of another socket (over the interconnect).
    pub remote_socket: Param,
    /// R_I: the line is in memory of the local NUMA region.
    pub invalid: Param,
    /// R_QI: the line is in memory of a remote NUMA region.
    pub invalid_remote_socket: Param,
}

/// Eq. (1) parameters within one socket and across sockets.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiLineTables {
    /// Both threads on one socket.
    pub intra_socket: MultiLineSpec,
    /// The threads on different sockets.
    pub inter_socket: MultiLineSpec,
}

/// One row of seed 001 Table 1: T_m(n, N) = q + o·N + c·n·N.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiLineSpec {
    /// q: start-up latency, ns.
    pub q: Param,
    /// o: per-line latency, ns/line.
    pub o: Param,
    /// c: congestion per line and simultaneous thread, ns/(line·thread).
    pub c: Param,
    /// R² of the published fit (informative).
    #[serde(default)]
    pub r2: Option<f64>,
}

/// The invalidation rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InvalidationSpec {
    /// `per-owner`: an RFO of a line shared by n owners costs the sum of one transfer per owner
    /// (n·R_R on one socket); `single`: one transfer, as if the line had one owner.
    pub rule: Spanned<String>,
    /// Where the rule comes from.
    pub source: String,
}
