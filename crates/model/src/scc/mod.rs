//! Intel SCC (Single-chip Cloud Computer), after seed 004 (Petrović, *Efficient Communication and
//! Synchronization on Manycore Processors*, EPFL thesis 6552, 2015, chapters 3–4).
//!
//! The model has three layers:
//! 1. the mesh: cores → tiles → (x, y), router counts under X-Y routing ([`mesh`]);
//! 2. the LogP-style put/get model of Figure 4.1 with the parameters of Table 4.1, and the
//!    two-sided RCCE send/receive built on it ([`putget`]);
//! 3. the broadcast algorithms of §4.3: OC-BCAST (latency Eqs. 4.17–4.21, throughput Eq. 4.23),
//!    binomial tree (Eq. 4.22) and scatter-allgather (Eq. 4.24) ([`bcast`]), exposed to the
//!    optimizer as [`Algorithm`]s ([`algorithms`]).
//!
//! Readings of the garbled formulas and comparisons with the seed's numbers: `docs/scc.md`.
//!
//! ```
//! use modelopt_model::{machine, scc::Scc};
//! let scc = machine::load("scc").unwrap();
//! let model: &Scc = scc.model().unwrap();
//! // Seed 004 Table 4.2: OC-BCAST with k = 7 sustains 34.30 MB/s on 48 cores.
//! assert!((model.oc_throughput(48, 7) - 34.30).abs() < 0.005);
//! ```

pub mod algorithms;
pub mod bcast;
pub mod mesh;
pub mod putget;
pub mod spec;

use crate::algorithm::Algorithm;
use crate::error::{ModelError, SpecError};
use crate::machine::{Loaded, ModelFamily};
use crate::request::Request;
use crate::spec::{Domain, Param, SpecContext};
use mesh::{Mesh, Tile};
use putget::PutGet;
use spec::SccSpec;

/// A checked SCC machine model. Times in µs (the seed's unit), sizes in lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Scc {
    /// Machine name (for messages).
    pub name: String,
    /// The tile mesh.
    pub mesh: Mesh,
    /// Cache line size in bytes (32 on the SCC).
    pub line_bytes: u32,
    /// MPB lines available to one core (8 KB / 32 B = 256 on the SCC).
    pub mpb_lines_per_core: u64,
    /// Table 4.1.
    pub putget: PutGet,
    /// `M_oc`, OC-BCAST chunk in lines (96).
    pub oc_chunk_lines: u64,
    /// `M_rcce`, RCCE payload buffer in lines (251).
    pub rcce_chunk_lines: u64,
    /// `d^mpb`, average routers to a remote MPB (1, §4.3).
    pub mpb_distance: f64,
    /// `d^mem`, average routers to the memory controller (1, §4.3).
    pub mem_distance: f64,
}

impl Scc {
    /// Number of cores of the mesh (48).
    pub fn cores(&self) -> u32 {
        self.mesh.cores()
    }

    /// Lines occupied by a message of `size_bytes` (`⌈size/32⌉`).
    pub fn lines(&self, size_bytes: u64) -> u64 {
        size_bytes.div_ceil(u64::from(self.line_bytes))
    }

    /// Check a request against the machine: 2 ≤ threads ≤ cores and a message of at least one
    /// byte. Returns the message size in lines.
    pub fn check_request(&self, request: &Request) -> Result<u64, ModelError> {
        // At least 2 threads: a `Request` cannot hold fewer.
        if request.threads() > self.cores() {
            return Err(ModelError::Threads {
                threads: request.threads().into(),
                reason: format!(
                    "{} has {} cores (one process per core; the mesh has no room for more)",
                    self.name,
                    self.cores()
                ),
            });
        }
        if request.size_bytes() == 0 {
            return Err(ModelError::SizeRequired {
                models: "the SCC broadcast models".into(),
            });
        }
        Ok(self.lines(request.size_bytes()))
    }
}

impl ModelFamily for Scc {
    fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>> {
        algorithms::all(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// An average router count: at least 1 (the local router), at most the mesh's diameter.
fn routers(
    ctx: &SpecContext<'_>,
    param: &Param,
    key: &str,
    max_routers: u32,
) -> Result<f64, SpecError> {
    let v = ctx.check(param, key, "routers", Domain::Positive)?;
    if v < 1.0 || v > f64::from(max_routers) {
        return Err(ctx.error_at(
            param.value.span(),
            key,
            format!("must be between 1 and {max_routers} routers (got {v})"),
        ));
    }
    Ok(v)
}

/// Read and validate an SCC machine file.
pub fn load(ctx: &SpecContext<'_>) -> Result<Loaded, SpecError> {
    let spec: SccSpec = ctx.parse()?;
    let m = &spec.mesh;
    let columns = ctx.count(&m.columns, "mesh.columns")?;
    let rows = ctx.count(&m.rows, "mesh.rows")?;
    let cores_per_tile = ctx.count(&m.cores_per_tile, "mesh.cores_per_tile")?;
    let line_bytes = ctx.line_size(&m.line_bytes, "mesh.line_bytes")?;
    let mpb_bytes = ctx.count(&m.mpb_bytes_per_tile, "mesh.mpb_bytes_per_tile")?;
    let cores = u64::from(columns) * u64::from(rows) * u64::from(cores_per_tile);
    if cores > 4096 {
        return Err(ctx.error_at(
            m.columns.span(),
            "mesh",
            format!("columns × rows × cores_per_tile = {cores} cores is more than modelopt models (4096)"),
        ));
    }
    let mut controllers = Vec::new();
    for [x, y] in m.memory_controllers.get_ref() {
        if *x >= columns || *y >= rows {
            return Err(ctx.error_at(
                m.memory_controllers.span(),
                "mesh.memory_controllers",
                format!("[{x}, {y}] is outside the {columns}×{rows} mesh"),
            ));
        }
        controllers.push(Tile { x: *x, y: *y });
    }
    if controllers.is_empty() {
        return Err(ctx.error_at(
            m.memory_controllers.span(),
            "mesh.memory_controllers",
            "at least one memory controller is required",
        ));
    }
    let mesh = Mesh {
        columns,
        rows,
        cores_per_tile,
        memory_controllers: controllers,
    };
    let max_threads = *spec.max_threads.get_ref();
    if max_threads < 2 || u64::from(max_threads) > cores {
        return Err(ctx.error_at(
            spec.max_threads.span(),
            "max_threads",
            format!("must be between 2 and the mesh's {cores} cores (got {max_threads})"),
        ));
    }
    let us = |p: &Param, key: &str| ctx.check(p, key, "us", Domain::Positive);
    let pg = &spec.putget;
    let putget = PutGet {
        hop: us(&pg.hop, "putget.hop")?,
        mpb: us(&pg.mpb, "putget.mpb")?,
        mem_write: us(&pg.mem_write, "putget.mem_write")?,
        mem_read: us(&pg.mem_read, "putget.mem_read")?,
        put_mpb: us(&pg.put_mpb, "putget.put_mpb")?,
        get_mpb: us(&pg.get_mpb, "putget.get_mpb")?,
        put_mem: us(&pg.put_mem, "putget.put_mem")?,
        get_mem: us(&pg.get_mem, "putget.get_mem")?,
    };
    let mpb_lines_per_core =
        u64::from(mpb_bytes) / u64::from(cores_per_tile) / u64::from(line_bytes);
    let b = &spec.broadcast;
    let oc_chunk_lines = u64::from(ctx.count(&b.oc_chunk_lines, "broadcast.oc_chunk_lines")?);
    // OC-BCAST keeps two chunks (double buffering) and k + 1 ≤ P flag lines in a core's MPB
    // (seed 004 §3.3.1: "leaves enough space for flags (for any choice of k)").
    let needed = 2 * oc_chunk_lines + u64::from(max_threads);
    if needed > mpb_lines_per_core {
        return Err(ctx.error_at(
            b.oc_chunk_lines.span(),
            "broadcast.oc_chunk_lines",
            format!(
                "two chunks of {oc_chunk_lines} lines plus {max_threads} flag lines need {needed} lines, \
                 more than a core's {mpb_lines_per_core}-line share of the MPB"
            ),
        ));
    }
    let rcce_chunk_lines = u64::from(ctx.count(&b.rcce_chunk_lines, "broadcast.rcce_chunk_lines")?);
    if rcce_chunk_lines > mpb_lines_per_core {
        return Err(ctx.error_at(
            b.rcce_chunk_lines.span(),
            "broadcast.rcce_chunk_lines",
            format!(
                "{rcce_chunk_lines} lines do not fit a core's {mpb_lines_per_core}-line share of the MPB"
            ),
        ));
    }
    let max_routers = mesh.max_routers();
    let mpb_distance = routers(ctx, &b.mpb_distance, "broadcast.mpb_distance", max_routers)?;
    let mem_distance = routers(ctx, &b.mem_distance, "broadcast.mem_distance", max_routers)?;
    let model = Scc {
        name: spec.name.clone(),
        mesh,
        line_bytes,
        mpb_lines_per_core,
        putget,
        oc_chunk_lines,
        rcce_chunk_lines,
        mpb_distance,
        mem_distance,
    };
    Ok(Loaded {
        description: spec.description,
        max_threads,
        model: Box::new(model),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The bundled `machines/scc.toml`, loaded.
    pub(crate) fn bundled() -> Scc {
        crate::machine::bundled_model("scc")
    }

    #[test]
    fn bundled_machine_is_table_4_1() {
        let scc = bundled();
        assert_eq!(scc.putget, putget::tests::table_4_1());
        assert_eq!(scc.cores(), 48);
        assert_eq!(scc.mpb_lines_per_core, 256);
        assert_eq!((scc.oc_chunk_lines, scc.rcce_chunk_lines), (96, 251));
        assert_eq!((scc.mpb_distance, scc.mem_distance), (1.0, 1.0));
    }

    #[test]
    fn sizes_round_up_to_lines() {
        let scc = bundled();
        assert_eq!(scc.lines(1), 1);
        assert_eq!(scc.lines(32), 1);
        assert_eq!(scc.lines(33), 2);
        assert_eq!(scc.lines(3072), 96);
    }
}
