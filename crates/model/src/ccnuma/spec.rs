//! The TOML layout of a ccNUMA machine (`family = "ccnuma"`), seed 001 §2.
//!
//! See `machines/sandy-bridge-e5-2660.toml` for a commented example and `docs/cla.md` for what
//! each number is used for. Every number is a [`Param`].

use crate::cache_coherent::spec::{
    ContentionSpec, MultiLineSpec as MinMaxMultiLineSpec, PingPongSpec,
};
use crate::request::LineState;
use crate::spec::Param;
use serde::Deserialize;
use std::collections::BTreeMap;
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
    /// Optional seed 000 tables (reads by location and state, ping-pong, multi-line T_N,
    /// contention T_C): with them the machine also offers seed 000's min-max collectives
    /// (small-tree broadcast and reduction, dissemination barrier, large broadcasts).
    #[serde(default)]
    pub min_max: Option<MinMaxSpec>,
    /// Optional record of a `modelopt calibrate` run: host, time, what was not measured and why.
    #[serde(default)]
    pub calibration: Option<CalibrationSpec>,
}

/// The seed 000 tables of a ccNUMA machine, in the layout of the `cache-coherent` family
/// (docs/machine-format.md), under `[min_max]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinMaxSpec {
    /// Reads by location and state (seed 000 Tables 1.6/1.7).
    #[serde(default)]
    pub reads: BTreeMap<String, BTreeMap<LineState, Param>>,
    /// Ping-pong overheads (seed 000 Eq. 2.1).
    #[serde(default)]
    pub ping_pong: Vec<PingPongSpec>,
    /// T_N = o·N + q − p/N per state pair (seed 000 Eq. 3.1, Table 3.1).
    pub multi_line: Vec<MinMaxMultiLineSpec>,
    /// T_C(n) per state pair (seed 000 Eqs. 3.2/3.3, Table 3.2).
    pub contention: Vec<ContentionSpec>,
}

/// What a calibration run records about itself (informative; the numbers carry their own
/// provenance).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationSpec {
    /// The tool and its version (`modelopt 0.1.0 calibrate --quick`).
    pub tool: String,
    /// CPU model.
    pub host: String,
    /// UTC time, RFC 3339.
    pub measured_at: String,
    /// The CPUs measured (Linux numbers).
    pub cpus: Vec<u32>,
    /// Why the host looks virtual, when it does.
    #[serde(default)]
    pub virtualized: Option<String>,
    /// Timer overhead subtracted from every timed region, ns.
    pub timer_overhead_ns: f64,
    /// Timer resolution, ns.
    pub timer_resolution_ns: f64,
    /// Keys of this file that were not measured, and why.
    #[serde(default)]
    pub not_measured: Vec<NotMeasured>,
    /// Warnings of the run (noise, VM, restricted CPUs).
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// A quantity a calibration could not measure on its host.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotMeasured {
    /// Dotted key (`line.remote_socket`).
    pub key: String,
    /// Why (`the host has one socket`).
    pub reason: String,
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
    /// L3 domains (chiplets, core complexes) per socket; 1 when omitted. Must divide
    /// `cores_per_socket`; with more than one, `line.remote_domain` is required.
    #[serde(default)]
    pub domains_per_socket: Option<Spanned<u32>>,
    /// Where a node keeps one many-to-one synchronization line: `"socket"` (the default, seed
    /// 001 §4) or `"domain"` (one per L3 domain; needs `domains_per_socket > 1`).
    #[serde(default)]
    pub sync_line: Option<Spanned<String>>,
}

/// The five line-transfer classes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    /// R_L: the line is in the accessing core's cache.
    pub local: Param,
    /// R_R: the line is in another core's cache on the same socket.
    pub remote: Param,
    /// R_D: the line is in a core's cache in another L3 domain of the same socket. Required
    /// when `topology.domains_per_socket > 1`, refused otherwise.
    #[serde(default)]
    pub remote_domain: Option<Param>,
    /// R_Q: the line is in a cache of another socket (over the interconnect). Required when
    /// `topology.sockets > 1`; a one-socket machine may omit it.
    #[serde(default)]
    pub remote_socket: Option<Param>,
    /// R_I: the line is in memory of the local NUMA region.
    pub invalid: Param,
    /// R_QI: the line is in memory of a remote NUMA region. Required when
    /// `topology.sockets > 1`; a one-socket machine may omit it.
    #[serde(default)]
    pub invalid_remote_socket: Option<Param>,
}

/// Eq. (1) parameters within one socket and across sockets.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiLineTables {
    /// Both threads on one socket.
    pub intra_socket: MultiLineSpec,
    /// The threads on different sockets. Required when `topology.sockets > 1`.
    #[serde(default)]
    pub inter_socket: Option<MultiLineSpec>,
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
    /// Measured: the intercept t_0 of T_inv(n) = t_0 + s·n.
    #[serde(default)]
    pub base: Option<Param>,
    /// Measured: the slope s of T_inv(n) = t_0 + s·n, the cost of one more sharer to invalidate.
    #[serde(default)]
    pub per_sharer: Option<Param>,
}
