//! Kendall Square Research KSR-1, after seed 003 (Goil, Wang & Ranka, "A Study of Collective
//! Communication on the KSR-1").
//!
//! The model has two layers:
//! 1. the ALLCACHE hierarchy: sub-cache, local cache, ring:0 and ring:1 latencies of Table 1
//!    ([`Ksr1::read_latency_ns`]);
//! 2. the fitted linear models of §5 — barrier, broadcast, cyclic shift with the ring:1 contention
//!    of Table 3, concatenate-one (algorithms 1 and 2), concatenate-all (algorithms 1–3), and
//!    reduction as concatenate-one + operation + broadcast ([`fits`], [`shift`]) — exposed to the
//!    optimizer as [`Algorithm`]s ([`algorithms`]).
//!
//! The fits are in milliseconds with sizes in 128-byte subpages (the reading `docs/ksr1.md`
//! argues for); costs are converted to nanoseconds at the `Cost` boundary.
//!
//! ```
//! use modelopt_model::{machine, ksr1::Ksr1};
//! let ksr = machine::load("ksr1").unwrap();
//! let model: &Ksr1 = ksr.model().unwrap();
//! // Seed 003 §5.2: a 128-subpage broadcast across ring:1 takes 0.419 + 0.069·128 ms.
//! assert!((model.bcast(64, 128) - 9.251).abs() < 1e-9);
//! ```

pub mod algorithms;
pub mod fits;
pub mod shift;
pub mod spec;

use crate::algorithm::Algorithm;
use crate::error::{ModelError, SpecError};
use crate::machine::{Loaded, ModelFamily};
use crate::request::{Collective, Request};
use crate::spec::{Domain, Param, SpecContext};
use shift::{RingContention, ShiftMeasurement};
use spec::{Ksr1Spec, LinearFitSpec, SubpageFitSpec};

/// The ring hierarchy (seed 003 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Topology {
    /// Processing cells per ring:0 (32).
    pub cells_per_ring0: u32,
    /// ring:0s per ring:1 (32).
    pub ring0_per_ring1: u32,
    /// Subpage size in bytes (128).
    pub subpage_bytes: u32,
}

/// Where a referenced subpage is found (seed 003 Table 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AllcacheLevel {
    /// The referencing cell's sub-cache.
    SubCache,
    /// The referencing cell's local cache.
    LocalCache,
    /// Another cell's local cache on the same ring:0.
    Ring0,
    /// A local cache on another ring:0, through the ARD cells and ring:1.
    Ring1,
    /// Nowhere in ALLCACHE: a page fault to disk.
    Disk,
}

/// Table 1 latencies, in cycles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Allcache {
    /// Sub-cache (2).
    pub sub_cache: f64,
    /// Local cache (18).
    pub local_cache: f64,
    /// ring:0 (175).
    pub ring0: f64,
    /// ring:1 (600).
    pub ring1: f64,
    /// Disk (400,000).
    pub disk: f64,
}

/// Barrier times, ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Barrier {
    /// One ring:0.
    pub ring0: f64,
    /// Across ring:1 (estimated).
    pub ring1: f64,
}

/// `T = c0 + per_subpage·N_subpages`, ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubpageFit {
    /// C0, ms.
    pub c0: f64,
    /// C1, ms per subpage.
    pub per_subpage: f64,
}

/// The broadcast fits of §5.2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bcast {
    /// N_procs ≤ 32.
    pub ring0: SubpageFit,
    /// N_procs > 32.
    pub ring1: SubpageFit,
}

/// The cyclic shift of §5.4.
#[derive(Debug, Clone, PartialEq)]
pub struct Shift {
    /// C1, ms per processor.
    pub per_processor: f64,
    /// C2, ms per subpage.
    pub per_subpage: f64,
    /// Table 3 slowdown by crossing fraction.
    pub contention: RingContention,
}

/// `T = c0 + per_x·x + per_subpage·N_subpages`, ms, x being processors or tree stages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearFit {
    /// C0, ms.
    pub c0: f64,
    /// C1, ms per processor (or per stage).
    pub per_x: f64,
    /// C2, ms per subpage.
    pub per_subpage: f64,
}

/// Concatenate-one fits (§5.5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gather {
    /// Algorithm 1 (x = processors).
    pub sequential: LinearFit,
    /// Algorithm 2 (x = tree stages).
    pub tree: LinearFit,
}

/// `T = c0 + per_stage·log2 P + per_processor·P + per_subpage·N_subpages`, ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeBcastFit {
    /// C0.
    pub c0: f64,
    /// C5, per stage.
    pub per_stage: f64,
    /// C6, per processor.
    pub per_processor: f64,
    /// C7, per subpage.
    pub per_subpage: f64,
}

/// Concatenate-all fits (§5.6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Allgather {
    /// Algorithm 1.
    pub gather_bcast: LinearFit,
    /// Algorithm 2.
    pub tree_gather_bcast: TreeBcastFit,
    /// Algorithm 3.
    pub cyclic_shifts: LinearFit,
}

/// A checked KSR-1 model.
#[derive(Debug, Clone, PartialEq)]
pub struct Ksr1 {
    /// Machine name (for messages).
    pub name: String,
    /// Rings and subpages.
    pub topology: Topology,
    /// One clock cycle, ns (50 at 20 MHz).
    pub cycle_ns: f64,
    /// Table 1.
    pub allcache: Allcache,
    /// §5.1.
    pub barrier: Barrier,
    /// §5.2.
    pub bcast: Bcast,
    /// §5.4, Table 3.
    pub shift: Shift,
    /// §5.5.
    pub gather: Gather,
    /// §5.6.
    pub allgather: Allgather,
    /// §5.7: the root's arithmetic per combined subpage, ms (estimated).
    pub reduce_operation: f64,
}

impl Ksr1 {
    /// Processing cells of a fully populated two-level machine: the model's hard limit.
    pub fn max_processors(&self) -> u32 {
        self.topology
            .cells_per_ring0
            .saturating_mul(self.topology.ring0_per_ring1)
    }

    /// Subpages occupied by `size_bytes` (`⌈size/128⌉`).
    pub fn subpages(&self, size_bytes: u64) -> u64 {
        size_bytes.div_ceil(u64::from(self.topology.subpage_bytes))
    }

    /// Table 1 latency of one reference found at `level`, in ns (cycles × cycle time).
    pub fn read_latency_ns(&self, level: AllcacheLevel) -> f64 {
        let cycles = match level {
            AllcacheLevel::SubCache => self.allcache.sub_cache,
            AllcacheLevel::LocalCache => self.allcache.local_cache,
            AllcacheLevel::Ring0 => self.allcache.ring0,
            AllcacheLevel::Ring1 => self.allcache.ring1,
            AllcacheLevel::Disk => self.allcache.disk,
        };
        cycles * self.cycle_ns
    }

    /// Where processor `reader` finds a subpage held (exclusively) by processor `owner`:
    /// its own local cache, the same ring:0, or across ring:1 (processors numbered ring by ring).
    pub fn level_between(&self, reader: u32, owner: u32) -> AllcacheLevel {
        let ring = |p: u32| p / self.topology.cells_per_ring0.max(1);
        if reader == owner {
            AllcacheLevel::LocalCache
        } else if ring(reader) == ring(owner) {
            AllcacheLevel::Ring0
        } else {
            AllcacheLevel::Ring1
        }
    }

    /// Check a request: 2 ≤ threads ≤ the machine's processing cells; a size of at least one
    /// byte for every collective but the barrier. Returns the subpages per processor.
    pub fn check_request(&self, request: &Request) -> Result<u64, ModelError> {
        // At least 2 threads: a `Request` cannot hold fewer.
        if request.threads() > self.max_processors() {
            return Err(ModelError::Threads {
                threads: request.threads().into(),
                reason: format!(
                    "a KSR-1 has at most {} processing cells ({} ring:0s of {}; seed 003 §2)",
                    self.max_processors(),
                    self.topology.ring0_per_ring1,
                    self.topology.cells_per_ring0
                ),
            });
        }
        if request.collective() != Collective::Barrier && request.size_bytes() == 0 {
            return Err(ModelError::SizeRequired {
                models: format!("the KSR-1 {} models", request.collective()),
            });
        }
        Ok(self.subpages(request.size_bytes()))
    }
}

impl ModelFamily for Ksr1 {
    fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>> {
        algorithms::all(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn subpage_fit(
    ctx: &SpecContext<'_>,
    spec: &SubpageFitSpec,
    key: &str,
) -> Result<SubpageFit, SpecError> {
    Ok(SubpageFit {
        c0: ctx.check(&spec.c0, &format!("{key}.c0"), "ms", Domain::NonNegative)?,
        per_subpage: ctx.check(
            &spec.c1,
            &format!("{key}.c1"),
            "ms/subpage",
            Domain::Positive,
        )?,
    })
}

fn linear_fit(
    ctx: &SpecContext<'_>,
    spec: &LinearFitSpec,
    key: &str,
    x_unit: &str,
) -> Result<LinearFit, SpecError> {
    Ok(LinearFit {
        c0: ctx.check(&spec.c0, &format!("{key}.c0"), "ms", Domain::NonNegative)?,
        per_x: ctx.check(&spec.c1, &format!("{key}.c1"), x_unit, Domain::Positive)?,
        per_subpage: ctx.check(
            &spec.c2,
            &format!("{key}.c2"),
            "ms/subpage",
            Domain::Positive,
        )?,
    })
}

/// Read and validate a KSR-1 machine file.
pub fn load(ctx: &SpecContext<'_>) -> Result<Loaded, SpecError> {
    let spec: Ksr1Spec = ctx.parse()?;
    let t = &spec.topology;
    let topology = Topology {
        cells_per_ring0: ctx.count(&t.cells_per_ring0, "topology.cells_per_ring0")?,
        ring0_per_ring1: ctx.count(&t.ring0_per_ring1, "topology.ring0_per_ring1")?,
        subpage_bytes: ctx.line_size(&t.subpage_bytes, "topology.subpage_bytes")?,
    };
    let cells = u64::from(topology.cells_per_ring0) * u64::from(topology.ring0_per_ring1);
    if cells > 1 << 16 {
        return Err(ctx.error_at(
            t.ring0_per_ring1.span(),
            "topology.ring0_per_ring1",
            format!(
                "cells_per_ring0 × ring0_per_ring1 = {cells} is more than modelopt models (65536)"
            ),
        ));
    }
    let max_threads = *spec.max_threads.get_ref();
    if max_threads < 2 || u64::from(max_threads) > cells {
        return Err(ctx.error_at(
            spec.max_threads.span(),
            "max_threads",
            format!("must be between 2 and cells_per_ring0 × ring0_per_ring1 = {cells} (got {max_threads})"),
        ));
    }
    let cycles = |p: &Param, key: &str| ctx.check(p, key, "cycles", Domain::Positive);
    let a = &spec.allcache;
    let allcache = Allcache {
        sub_cache: cycles(&a.sub_cache, "allcache.sub_cache")?,
        local_cache: cycles(&a.local_cache, "allcache.local_cache")?,
        ring0: cycles(&a.ring0, "allcache.ring0")?,
        ring1: cycles(&a.ring1, "allcache.ring1")?,
        disk: cycles(&a.disk, "allcache.disk")?,
    };
    let levels = [
        (
            "allcache.local_cache",
            &a.local_cache,
            allcache.local_cache,
            allcache.sub_cache,
        ),
        (
            "allcache.ring0",
            &a.ring0,
            allcache.ring0,
            allcache.local_cache,
        ),
        ("allcache.ring1", &a.ring1, allcache.ring1, allcache.ring0),
        ("allcache.disk", &a.disk, allcache.disk, allcache.ring1),
    ];
    for (key, param, this, nearer) in levels {
        if this < nearer {
            return Err(ctx.error_at(
                param.value.span(),
                key,
                format!("a farther level cannot be faster than the nearer one ({this} < {nearer} cycles)"),
            ));
        }
    }
    let ms = |p: &Param, key: &str| ctx.check(p, key, "ms", Domain::Positive);
    let barrier = Barrier {
        ring0: ms(&spec.barrier.ring0, "barrier.ring0")?,
        ring1: ms(&spec.barrier.ring1, "barrier.ring1")?,
    };
    let bcast = Bcast {
        ring0: subpage_fit(ctx, &spec.bcast.ring0, "bcast.ring0")?,
        ring1: subpage_fit(ctx, &spec.bcast.ring1, "bcast.ring1")?,
    };
    let mut measurements = Vec::new();
    for (i, m) in spec.shift.ring1_contention.iter().enumerate() {
        let key = format!("shift.ring1_contention[{i}]");
        let processors = *m.processors.get_ref();
        let distance = *m.distance.get_ref();
        if processors <= topology.cells_per_ring0 || u64::from(processors) > cells {
            return Err(ctx.error_at(
                m.processors.span(),
                &format!("{key}.processors"),
                format!(
                    "must be between {} and {cells}: with at most {} processors (one ring:0) no message crosses ring:1",
                    topology.cells_per_ring0 + 1,
                    topology.cells_per_ring0
                ),
            ));
        }
        if distance == 0 || distance >= processors {
            return Err(ctx.error_at(
                m.distance.span(),
                &format!("{key}.distance"),
                format!("must be between 1 and processors − 1 = {}", processors - 1),
            ));
        }
        measurements.push(ShiftMeasurement {
            processors,
            distance,
            time_ms: ms(&m.time, &format!("{key}.time"))?,
        });
    }
    let shift = Shift {
        per_processor: ctx.check(&spec.shift.c1, "shift.c1", "ms/processor", Domain::Positive)?,
        per_subpage: ctx.check(&spec.shift.c2, "shift.c2", "ms/subpage", Domain::Positive)?,
        contention: RingContention::from_measurements(&measurements, topology.cells_per_ring0),
    };
    let gather = Gather {
        sequential: linear_fit(
            ctx,
            &spec.gather.sequential,
            "gather.sequential",
            "ms/processor",
        )?,
        tree: linear_fit(ctx, &spec.gather.tree, "gather.tree", "ms/stage")?,
    };
    let ag = &spec.allgather;
    let tb = &ag.tree_gather_bcast;
    let key = "allgather.tree_gather_bcast";
    let allgather = Allgather {
        gather_bcast: linear_fit(
            ctx,
            &ag.gather_bcast,
            "allgather.gather_bcast",
            "ms/processor",
        )?,
        tree_gather_bcast: TreeBcastFit {
            c0: ctx.check(&tb.c0, &format!("{key}.c0"), "ms", Domain::NonNegative)?,
            per_stage: ctx.check(&tb.c5, &format!("{key}.c5"), "ms/stage", Domain::Positive)?,
            per_processor: ctx.check(
                &tb.c6,
                &format!("{key}.c6"),
                "ms/processor",
                Domain::Positive,
            )?,
            per_subpage: ctx.check(&tb.c7, &format!("{key}.c7"), "ms/subpage", Domain::Positive)?,
        },
        cyclic_shifts: linear_fit(
            ctx,
            &ag.cyclic_shifts,
            "allgather.cyclic_shifts",
            "ms/processor",
        )?,
    };
    let model = Ksr1 {
        name: spec.name.clone(),
        topology,
        cycle_ns: ctx.check(&spec.clock.cycle, "clock.cycle", "ns", Domain::Positive)?,
        allcache,
        barrier,
        bcast,
        shift,
        gather,
        allgather,
        reduce_operation: ctx.check(
            &spec.reduce.operation,
            "reduce.operation",
            "ms/subpage",
            Domain::NonNegative,
        )?,
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

    /// The bundled `machines/ksr1.toml`, loaded.
    pub(crate) fn bundled() -> Ksr1 {
        crate::machine::bundled_model("ksr1")
    }

    #[test]
    fn table_1_latencies_at_20_mhz() {
        let ksr = bundled();
        // 175 cycles × 50 ns = 8.75 µs on ring:0; 600 × 50 ns = 30 µs across ring:1.
        assert_eq!(ksr.read_latency_ns(AllcacheLevel::SubCache), 100.0);
        assert_eq!(ksr.read_latency_ns(AllcacheLevel::LocalCache), 900.0);
        assert_eq!(ksr.read_latency_ns(AllcacheLevel::Ring0), 8_750.0);
        assert_eq!(ksr.read_latency_ns(AllcacheLevel::Ring1), 30_000.0);
        assert_eq!(ksr.read_latency_ns(AllcacheLevel::Disk), 20_000_000.0);
    }

    #[test]
    fn levels_by_ring() {
        let ksr = bundled();
        assert_eq!(ksr.level_between(3, 3), AllcacheLevel::LocalCache);
        assert_eq!(ksr.level_between(0, 31), AllcacheLevel::Ring0);
        assert_eq!(ksr.level_between(0, 32), AllcacheLevel::Ring1);
        assert_eq!(ksr.max_processors(), 1024);
    }

    #[test]
    fn sizes_round_up_to_subpages() {
        let ksr = bundled();
        assert_eq!(ksr.subpages(1), 1);
        assert_eq!(ksr.subpages(128), 1);
        assert_eq!(ksr.subpages(129), 2);
        assert_eq!(ksr.subpages(16384), 128);
    }
}
