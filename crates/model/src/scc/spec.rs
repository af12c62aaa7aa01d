//! The TOML layout of an SCC machine (`family = "scc"`); see `machines/scc.toml`.
//!
//! Every number of the model is a [`Param`] with unit and source; the mesh shape is plain
//! integers.

use crate::spec::Param;
use serde::Deserialize;
use toml::Spanned;

/// A whole SCC machine file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SccSpec {
    /// Short name.
    pub name: String,
    /// Always `scc`.
    pub family: String,
    /// One-line description.
    pub description: String,
    /// Hardware thread limit (one process per core; at most the mesh's cores).
    pub max_threads: Spanned<u32>,
    /// Tiles, cores, MPBs and memory controllers (seed 004 §2.3).
    pub mesh: MeshSpec,
    /// The put/get parameters of seed 004 Table 4.1.
    pub putget: PutGetSpec,
    /// Chunk sizes and average distances of the broadcast models (seed 004 §3.3.1, §4.3).
    pub broadcast: BroadcastSpec,
}

/// The tile mesh.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshSpec {
    /// Tiles per row (x from 0 to columns − 1).
    pub columns: Spanned<u32>,
    /// Rows of tiles (y from 0 to rows − 1).
    pub rows: Spanned<u32>,
    /// Cores per tile.
    pub cores_per_tile: Spanned<u32>,
    /// Cache line (packet payload) size in bytes.
    pub line_bytes: Spanned<u32>,
    /// Message-passing buffer per tile, in bytes, shared equally by the tile's cores.
    pub mpb_bytes_per_tile: Spanned<u32>,
    /// `[x, y]` of the tiles whose routers the memory controllers are attached to; a core uses
    /// the nearest, ties going to the first listed.
    pub memory_controllers: Spanned<Vec<[u32; 2]>>,
}

/// Seed 004 Table 4.1, every value in µs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PutGetSpec {
    /// `L^hop`.
    pub hop: Param,
    /// `o^mpb`.
    pub mpb: Param,
    /// `o_w^mem`.
    pub mem_write: Param,
    /// `o_r^mem`.
    pub mem_read: Param,
    /// `o_put^mpb`.
    pub put_mpb: Param,
    /// `o_get^mpb`.
    pub get_mpb: Param,
    /// `o_put^mem`.
    pub put_mem: Param,
    /// `o_get^mem`.
    pub get_mem: Param,
}

/// Broadcast-model constants.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BroadcastSpec {
    /// `M_oc`: OC-BCAST chunk, in lines (an implementation constant, like the mesh shape).
    pub oc_chunk_lines: Spanned<u32>,
    /// `M_rcce`: RCCE payload buffer, in lines.
    pub rcce_chunk_lines: Spanned<u32>,
    /// `d^mpb`: average routers to a remote MPB (unit `routers`, at least 1).
    pub mpb_distance: Param,
    /// `d^mem`: average routers to the memory controller (unit `routers`, at least 1).
    pub mem_distance: Param,
}
