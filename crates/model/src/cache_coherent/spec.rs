//! The TOML layout of a cache-coherent machine (`family = "cache-coherent"`).
//!
//! See `docs/machine-format.md` for a commented example. Every number is a [`Param`].

use crate::request::LineState;
use crate::spec::Param;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// A whole cache-coherent machine file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheCoherentSpec {
    /// Short name.
    pub name: String,
    /// Always `cache-coherent`.
    pub family: String,
    /// One-line description.
    pub description: String,
    /// Hardware thread limit.
    pub max_threads: Spanned<u32>,
    /// Sockets, cores and threads, and the cache line size.
    pub topology: TopologySpec,
    /// The simplified (clustered) line-transfer model used by the min-max collective models.
    pub line: LineSpec,
    /// The full measured read latencies, by location name and then state (Tables 1.6, 1.7).
    #[serde(default)]
    pub reads: BTreeMap<String, BTreeMap<LineState, Param>>,
    /// Fitted single-line ping-pong overheads (Eq. 2.1 and its instances).
    #[serde(default)]
    pub ping_pong: Vec<PingPongSpec>,
    /// Multi-line model T_N = o·N + q − p/N per state pair (Table 3.1).
    pub multi_line: Vec<MultiLineSpec>,
    /// Contention model T_C(n) per state pair (Table 3.2).
    pub contention: Vec<ContentionSpec>,
}

/// Where threads run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Number of sockets (processors).
    pub sockets: Spanned<u32>,
    /// Cores per socket.
    pub cores_per_socket: Spanned<u32>,
    /// Hardware threads per core.
    pub threads_per_core: Spanned<u32>,
    /// Cache line size in bytes.
    pub line_bytes: Spanned<u32>,
    /// The key of `[reads]` that holds same-core (local cache) reads, R_{L,S}.
    #[serde(default)]
    pub local_location: Option<String>,
}

/// The simplified model: R_L, R_R, R_I, and the other-socket variants where there are sockets.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    /// R_L: read of a line in the reader's own cache.
    pub local: Param,
    /// R_R: read of a line cached by another core (same socket).
    pub remote: Param,
    /// R_I: read of a line that is in memory.
    pub invalid: Param,
    /// R_R across sockets (R_N on Sandy Bridge), used when threads span sockets.
    #[serde(default)]
    pub remote_socket: Option<Param>,
    /// R_I when the memory is behind another socket.
    #[serde(default)]
    pub invalid_remote_socket: Option<Param>,
}

/// One fitted ping-pong equation: for these send/receive states at this location,
/// T_1 ≈ R_{L,S_s} + R_{loc,S_r'} + R_{loc,M} + O (seed 000 Eq. 2.1).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PingPongSpec {
    /// Key of `[reads]` where the two threads' caches are relative to each other.
    pub location: String,
    /// Send-buffer states S_s the equation covers.
    pub send_states: Vec<LineState>,
    /// Receive-buffer states S_r the equation covers.
    pub recv_states: Vec<LineState>,
    /// The state whose read cost stands for R_{loc,S_r} (the seed clusters e.g. S and F with E
    /// in Eq. 2.9). Defaults to S_r itself.
    #[serde(default)]
    pub recv_read_as: Option<LineState>,
    /// Which equation of the seed this is (e.g. "seed 000, Eq. (2.9)").
    pub equation: String,
    /// The fitted overhead O.
    pub overhead: Param,
}

/// Multi-line ping-pong parameters for one (S_s, S_r) pair.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiLineSpec {
    /// Sender buffer state.
    pub sender: LineState,
    /// Receiver buffer state.
    pub receiver: LineState,
    /// q: fixed start-up overhead.
    pub q: Param,
    /// o: asymptotic per-line fetch latency.
    pub o: Param,
    /// p: start-up overhead amortized by the number of lines.
    pub p: Param,
}

/// Contention parameters for one (S_s, S_r) pair.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentionSpec {
    /// Sender (owner) buffer state.
    pub sender: LineState,
    /// Receiver buffer state.
    pub receiver: LineState,
    /// b: intercept.
    pub b: Param,
    /// c: cost of one more thread.
    pub c: Param,
    /// a: amortized term of the invalid-line model (absent for cached lines).
    #[serde(default)]
    pub a: Option<Param>,
}
