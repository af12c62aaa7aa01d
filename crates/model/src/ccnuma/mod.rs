//! ccNUMA machines priced by cache-line transfers: the dual-socket Sandy Bridge E5-2660 of seed 001
//! (Ramos & Hoefler, "Cache Line Aware Optimizations for ccNUMA Systems", HPDC 2015).
//!
//! The model has three layers:
//! 1. the five line-transfer classes R_L, R_R, R_Q, R_I, R_QI (seed 001 §2.1), selected by a
//!    [`Topology`] that classifies a pair of threads ([`PairClass`]) — the only code that knows
//!    where threads run;
//! 2. multi-line transfers with QPI congestion, Eq. (1) ([`MultiLine`]), and invalidation of
//!    shared lines (§2.3);
//! 3. the one-line broadcast of Figure 1 over any rooted tree and socket placement, in the closed
//!    form of Eq. (2) ([`bcast`]), exposed to the optimizer as the `cla-tree` [`Algorithm`]
//!    ([`algorithms`]). The general CLa graphs of §3 live in the `modelopt-graph` crate.
//!
//! Every rule's reading is written down in `docs/cla.md`.

pub mod algorithms;
pub mod bcast;
pub mod spec;
/// Rooted trees are family-neutral ([`crate::tree`]); re-exported here where they were first used.
pub use crate::tree;

use crate::algorithm::Algorithm;
use crate::cache_coherent::{self, CacheCoherent, TableSpecs};
use crate::error::SpecError;
use crate::machine::{Loaded, ModelFamily};
use crate::spec::{Domain, Param, SpecContext};
use spec::CcnumaSpec;

/// Where one hardware thread runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    /// Socket (NUMA region).
    pub socket: u32,
    /// L3 domain (chiplet, core complex) within the socket: cores `d·c .. (d+1)·c − 1` with
    /// c = cores per domain. Always 0 on a machine whose socket is one L3 domain.
    pub domain: u32,
    /// Core within the socket.
    pub core: u32,
    /// Hardware thread within the core.
    pub hw: u32,
}

/// How two threads (or a thread and a line's memory) relate: what a line transfer between them
/// costs depends only on this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PairClass {
    /// The same hardware thread: the line is in its own cache (R_L).
    SameThread,
    /// Two hardware threads of one core, sharing L1/L2 (priced R_L, see `docs/cla.md`).
    SameCore,
    /// Two cores of one L3 domain of one socket (R_R); on a machine whose socket is one L3
    /// domain, any two cores of one socket.
    SameSocket,
    /// Two L3 domains (chiplets) of one socket (R_D, `line.remote_domain`).
    OtherDomain,
    /// Two sockets (R_Q).
    OtherSocket,
}

/// Sockets, cores per socket, hardware threads per core: enough to classify any pair of threads,
/// for two sockets, more, or a single-socket ring such as the Xeon Phi.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Topology {
    /// Sockets.
    pub sockets: u32,
    /// Cores per socket.
    pub cores_per_socket: u32,
    /// Hardware threads per core.
    pub threads_per_core: u32,
    /// Cache line size in bytes.
    pub line_bytes: u32,
    /// L3 domains (chiplets, core complexes) per socket, each of `cores_per_socket /
    /// domains_per_socket` consecutive cores; 1 when a socket shares one L3 (seed 001's machine).
    pub domains_per_socket: u32,
    /// Where a node of a tree collective keeps its many-to-one synchronization lines.
    pub sync_line: SyncLine,
}

/// The level at which a node of a tree collective keeps one many-to-one synchronization line for
/// its children (`topology.sync_line`; docs/cla.md §13): the `group` of the `.cla` language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncLine {
    /// One line per socket holding children (seed 001 §4 (2): "we use one synchronization line
    /// per socket").
    #[default]
    Socket,
    /// One line per L3 domain holding children: on a chiplet machine the adds of one line stay
    /// inside one domain (R_R), and only the parent's wait crosses.
    Domain,
}

impl SyncLine {
    /// The spelling in a machine file.
    pub fn name(self) -> &'static str {
        match self {
            SyncLine::Socket => "socket",
            SyncLine::Domain => "domain",
        }
    }
}

impl Topology {
    /// Cores of one L3 domain.
    pub fn cores_per_domain(&self) -> u32 {
        (self.cores_per_socket / self.domains_per_socket.max(1)).max(1)
    }

    /// The place of core `core` of socket `socket`, hardware thread `hw`.
    pub fn place_of(&self, socket: u32, core: u32, hw: u32) -> Place {
        Place {
            socket,
            domain: core / self.cores_per_domain(),
            core,
            hw,
        }
    }

    /// Hardware threads of the machine.
    pub fn hardware_threads(&self) -> u32 {
        self.sockets * self.cores_per_socket * self.threads_per_core
    }

    /// The default placement of thread `t`: socket by socket, one thread per core first
    /// ("we schedule up to eight threads in one socket and the rest of them in the second one",
    /// seed 001 §4), then the next hardware thread of every core in the same order. Threads
    /// beyond the hardware wrap around.
    pub fn place(&self, thread: u32) -> Place {
        let cores = (self.sockets * self.cores_per_socket).max(1);
        let hw = (thread / cores) % self.threads_per_core.max(1);
        let slot = thread % cores;
        self.place_of(
            slot / self.cores_per_socket.max(1),
            slot % self.cores_per_socket.max(1),
            hw,
        )
    }

    /// The sockets of threads `0..threads` under [`Topology::place`].
    pub fn sockets_of(&self, threads: u32) -> Vec<u32> {
        (0..threads).map(|t| self.place(t).socket).collect()
    }

    /// The synchronization group (`topology.sync_line`) of each of threads `0..threads`: its
    /// socket, or its L3 domain numbered across sockets (domain d of socket s is s·D + d).
    pub fn groups_of(&self, threads: u32) -> Vec<u32> {
        (0..threads)
            .map(|t| {
                let p = self.place(t);
                match self.sync_line {
                    SyncLine::Socket => p.socket,
                    SyncLine::Domain => p.socket * self.domains_per_socket.max(1) + p.domain,
                }
            })
            .collect()
    }

    /// How many of threads `0..threads` run on each socket.
    pub fn threads_per_socket(&self, threads: u32) -> Vec<u32> {
        let mut counts = vec![0; self.sockets as usize];
        for s in self.sockets_of(threads) {
            counts[s as usize] += 1;
        }
        counts
    }

    /// Classify a pair of places.
    pub fn classify(a: Place, b: Place) -> PairClass {
        if a.socket != b.socket {
            PairClass::OtherSocket
        } else if a.domain != b.domain {
            PairClass::OtherDomain
        } else if a.core != b.core {
            PairClass::SameSocket
        } else if a.hw != b.hw {
            PairClass::SameCore
        } else {
            PairClass::SameThread
        }
    }
}

/// The five line-transfer classes of seed 001 §2.1, ns.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LineCosts {
    /// R_L: line in the accessing core's cache.
    pub local: f64,
    /// R_R: another core of the same socket (of the same L3 domain, when sockets have several).
    pub remote: f64,
    /// R_D: a core of another L3 domain of the same socket (`remote` when a socket is one
    /// domain).
    pub remote_domain: f64,
    /// R_Q: a cache of another socket.
    pub remote_socket: f64,
    /// R_I: memory of the local NUMA region.
    pub invalid: f64,
    /// R_QI: memory of a remote NUMA region.
    pub invalid_remote_socket: f64,
}

impl LineCosts {
    /// The cost of fetching a line held in another cache, by pair class.
    pub fn transfer(&self, class: PairClass) -> f64 {
        match class {
            PairClass::SameThread | PairClass::SameCore => self.local,
            PairClass::SameSocket => self.remote,
            PairClass::OtherDomain => self.remote_domain,
            PairClass::OtherSocket => self.remote_socket,
        }
    }

    /// The cost of fetching a line from memory homed on `home` into a thread on `socket`.
    pub fn memory(&self, home: u32, socket: u32) -> f64 {
        if home == socket {
            self.invalid
        } else {
            self.invalid_remote_socket
        }
    }
}

/// One row of seed 001 Table 1: T_m(n, N) = q + o·N + c·n·N, ns.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct MultiLine {
    /// q.
    pub q: f64,
    /// o, per line.
    pub o: f64,
    /// c, per line and simultaneous thread.
    pub c: f64,
}

impl MultiLine {
    /// Eq. (1): N lines copied while n threads transfer at once.
    pub fn time(&self, threads: u32, lines: u32) -> f64 {
        let n = f64::from(threads.max(1));
        let big_n = f64::from(lines);
        self.q + self.o * big_n + self.c * n * big_n
    }
}

/// How an RFO of a line shared by several owners is priced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Invalidation {
    /// One transfer per owner (n·R_R on one socket), seed 001 §2.3.
    PerOwner,
    /// One transfer, whatever the number of owners.
    Single,
}

/// A checked ccNUMA machine model.
#[derive(Debug, Clone)]
pub struct Ccnuma {
    /// Machine name.
    pub name: String,
    /// Where threads run.
    pub topology: Topology,
    /// The five classes.
    pub line: LineCosts,
    /// Eq. (1) within a socket.
    pub intra_socket: MultiLine,
    /// Eq. (1) across sockets.
    pub inter_socket: MultiLine,
    /// Invalidation rule.
    pub invalidation: Invalidation,
    /// The seed 000 min-max model of the same machine, when the file has `[min_max]` tables: its
    /// algorithms (small-tree broadcast and reduction, dissemination barrier, pipelined and
    /// flat-tree broadcasts) are offered beside `cla-tree`, priced by the `cache_coherent`
    /// family's own formulas from this machine's R_L, R_R, R_I.
    pub min_max: Option<CacheCoherent>,
}

impl Ccnuma {
    /// The one-line broadcast cost constants of this machine (Eq. 2).
    pub fn tree_costs(&self) -> bcast::TreeCosts {
        let costs = bcast::TreeCosts::from_lines(&self.line);
        match self.topology.sync_line {
            SyncLine::Socket => costs,
            SyncLine::Domain => bcast::TreeCosts {
                domains: Some(crate::placed_tree::Domains {
                    per_socket: self.topology.domains_per_socket.max(1),
                    remote_domain: self.line.remote_domain,
                }),
                ..costs
            },
        }
    }
}

impl ModelFamily for Ccnuma {
    fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>> {
        let mut all = algorithms::all(self);
        if let Some(min_max) = &self.min_max {
            all.extend(cache_coherent::algorithms::all(min_max));
        }
        all
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Read and validate a ccNUMA machine file.
///
/// The other-socket classes (`line.remote_socket`, `line.invalid_remote_socket`,
/// `multi_line.inter_socket`) are required when `topology.sockets > 1`. A one-socket machine may
/// omit them (a calibration of such a host cannot measure them); the model then holds the
/// same-socket values in their place, which no placement ever reads: with one socket every pair
/// of threads and every memory home is on socket 0.
pub fn load(ctx: &SpecContext<'_>) -> Result<Loaded, SpecError> {
    let spec: CcnumaSpec = ctx.parse()?;
    let t = &spec.topology;
    let topology = Topology {
        sockets: ctx.count(&t.sockets, "topology.sockets")?,
        cores_per_socket: ctx.count(&t.cores_per_socket, "topology.cores_per_socket")?,
        threads_per_core: ctx.count(&t.threads_per_core, "topology.threads_per_core")?,
        line_bytes: ctx.line_size(&t.line_bytes, "topology.line_bytes")?,
        domains_per_socket: match &t.domains_per_socket {
            None => 1,
            Some(d) => ctx.count(d, "topology.domains_per_socket")?,
        },
        sync_line: SyncLine::Socket,
    };
    if !topology
        .cores_per_socket
        .is_multiple_of(topology.domains_per_socket)
    {
        return Err(ctx.error(
            "topology.domains_per_socket",
            format!(
                "must divide topology.cores_per_socket = {} (got {}): every L3 domain has as many cores",
                topology.cores_per_socket, topology.domains_per_socket
            ),
        ));
    }
    let chiplets = topology.domains_per_socket > 1;
    let mut topology = topology;
    if let Some(level) = &t.sync_line {
        topology.sync_line = match level.get_ref().as_str() {
            "socket" => SyncLine::Socket,
            "domain" if chiplets => SyncLine::Domain,
            "domain" => {
                return Err(ctx.error_at(
                    level.span(),
                    "topology.sync_line",
                    "is \"domain\" only on a machine with topology.domains_per_socket > 1 (a socket of one L3 domain keeps one line per socket)",
                ))
            }
            other => {
                return Err(ctx.error_at(
                    level.span(),
                    "topology.sync_line",
                    format!(
                        "must be \"socket\" or \"domain\" (got \"{}\")",
                        crate::error::clip(other)
                    ),
                ))
            }
        };
    }
    let hardware = u64::from(topology.sockets)
        * u64::from(topology.cores_per_socket)
        * u64::from(topology.threads_per_core);
    let max_threads = *spec.max_threads.get_ref();
    if max_threads < 2 || u64::from(max_threads) > hardware {
        return Err(ctx.error_at(
            spec.max_threads.span(),
            "max_threads",
            format!("must be between 2 and sockets × cores × threads per core = {hardware} (got {max_threads})"),
        ));
    }
    let ns = |p: &Param, key: &str, d: Domain| ctx.check(p, key, "ns", d);
    let one_socket = topology.sockets == 1;
    let needed = |key: &str| {
        ctx.error(
            key,
            format!(
                "is required on a machine with {} sockets (only a one-socket machine may omit it)",
                topology.sockets
            ),
        )
    };
    let local = ns(&spec.line.local, "line.local", Domain::Positive)?;
    let remote = ns(&spec.line.remote, "line.remote", Domain::Positive)?;
    let invalid = ns(&spec.line.invalid, "line.invalid", Domain::Positive)?;
    let other_socket = |p: &Option<Param>, key: &str, same: f64| match p {
        Some(p) => ns(p, key, Domain::Positive),
        None if one_socket => Ok(same),
        None => Err(needed(key)),
    };
    let remote_domain = match &spec.line.remote_domain {
        Some(p) if chiplets => ns(p, "line.remote_domain", Domain::Positive)?,
        Some(_) => {
            return Err(ctx.error(
                "line.remote_domain",
                "is only read on a machine with topology.domains_per_socket > 1; remove it or describe the domains",
            ))
        }
        None if chiplets => {
            return Err(ctx.error(
                "line.remote_domain",
                format!(
                    "is required on a machine with {} L3 domains per socket",
                    topology.domains_per_socket
                ),
            ))
        }
        None => remote,
    };
    let line = LineCosts {
        local,
        remote,
        remote_domain,
        remote_socket: other_socket(&spec.line.remote_socket, "line.remote_socket", remote)?,
        invalid,
        invalid_remote_socket: other_socket(
            &spec.line.invalid_remote_socket,
            "line.invalid_remote_socket",
            invalid,
        )?,
    };
    // The rules of docs/cla.md assume the hierarchy: a closer copy is never dearer.
    let ordered = [
        (line.local, line.remote, "line.local", "line.remote"),
        (
            line.remote,
            line.remote_domain,
            "line.remote",
            "line.remote_domain",
        ),
        (
            line.remote_domain,
            line.remote_socket,
            if chiplets {
                "line.remote_domain"
            } else {
                "line.remote"
            },
            "line.remote_socket",
        ),
        (
            line.invalid,
            line.invalid_remote_socket,
            "line.invalid",
            "line.invalid_remote_socket",
        ),
    ];
    for (near, far, near_key, far_key) in ordered {
        if near > far {
            return Err(ctx.error(
                far_key,
                format!("must not be below `{near_key}` ({far} < {near}): a farther line cannot be cheaper"),
            ));
        }
    }
    let row = |m: &spec::MultiLineSpec, key: &str| -> Result<MultiLine, SpecError> {
        Ok(MultiLine {
            q: ns(&m.q, &format!("{key}.q"), Domain::NonNegative)?,
            o: ns(&m.o, &format!("{key}.o"), Domain::Positive)?,
            c: ns(&m.c, &format!("{key}.c"), Domain::NonNegative)?,
        })
    };
    let intra_socket = row(&spec.multi_line.intra_socket, "multi_line.intra_socket")?;
    let inter_socket = match &spec.multi_line.inter_socket {
        Some(m) => row(m, "multi_line.inter_socket")?,
        None if one_socket => intra_socket,
        None => return Err(needed("multi_line.inter_socket")),
    };
    for (key, r2) in [
        (
            "multi_line.intra_socket.r2",
            spec.multi_line.intra_socket.r2,
        ),
        (
            "multi_line.inter_socket.r2",
            spec.multi_line.inter_socket.as_ref().and_then(|m| m.r2),
        ),
    ] {
        if let Some(r2) = r2 {
            if !(0.0..=1.0).contains(&r2) {
                return Err(ctx.error(key, format!("R² must be in [0, 1] (got {r2})")));
            }
        }
    }
    let invalidation = match spec.invalidation.rule.get_ref().as_str() {
        "per-owner" => Invalidation::PerOwner,
        "single" => Invalidation::Single,
        other => {
            return Err(ctx.error_at(
                spec.invalidation.rule.span(),
                "invalidation.rule",
                format!("unknown rule `{other}` (expected per-owner or single)"),
            ))
        }
    };
    for (key, p, domain) in [
        ("invalidation.base", &spec.invalidation.base, Domain::Finite),
        (
            "invalidation.per_sharer",
            &spec.invalidation.per_sharer,
            Domain::Finite,
        ),
    ] {
        if let Some(p) = p {
            ns(p, key, domain)?;
        }
    }
    if let Some(cal) = &spec.calibration {
        for nm in &cal.not_measured {
            let present = match nm.key.as_str() {
                "line.remote_socket" => spec.line.remote_socket.is_some(),
                "line.invalid_remote_socket" => spec.line.invalid_remote_socket.is_some(),
                "multi_line.inter_socket" => spec.multi_line.inter_socket.is_some(),
                _ => false,
            };
            if present {
                return Err(ctx.error(
                    "calibration.not_measured",
                    format!(
                        "`{}` is listed as not measured but the file gives it",
                        nm.key
                    ),
                ));
            }
        }
    }
    let min_max = match &spec.min_max {
        None => None,
        Some(mm) => {
            let tables = cache_coherent::load_tables(
                ctx,
                "min_max.",
                TableSpecs {
                    reads: &mm.reads,
                    ping_pong: &mm.ping_pong,
                    multi_line: &mm.multi_line,
                    contention: &mm.contention,
                },
            )?;
            Some(CacheCoherent::from_parts(
                spec.name.clone(),
                cache_coherent::Topology {
                    sockets: topology.sockets,
                    cores_per_socket: topology.cores_per_socket,
                    threads_per_core: topology.threads_per_core,
                    line_bytes: topology.line_bytes,
                },
                cache_coherent::LineCosts {
                    local: line.local,
                    remote: line.remote,
                    invalid: line.invalid,
                    remote_socket: (!one_socket).then_some(line.remote_socket),
                    invalid_remote_socket: (!one_socket).then_some(line.invalid_remote_socket),
                },
                None,
                tables,
            ))
        }
    };
    let model = Ccnuma {
        name: spec.name.clone(),
        topology,
        line,
        intra_socket,
        inter_socket,
        invalidation,
        min_max,
    };
    Ok(Loaded {
        description: spec.description,
        max_threads,
        model: Box::new(model),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandy() -> Topology {
        Topology {
            sockets: 2,
            cores_per_socket: 8,
            threads_per_core: 2,
            line_bytes: 64,
            domains_per_socket: 1,
            sync_line: SyncLine::Socket,
        }
    }

    #[test]
    fn placement_fills_one_socket_first() {
        let t = sandy();
        assert_eq!(
            t.place(0),
            Place {
                socket: 0,
                domain: 0,
                core: 0,
                hw: 0
            }
        );
        assert_eq!(t.place(7).socket, 0);
        assert_eq!(t.place(8).socket, 1);
        assert_eq!(
            t.place(16),
            Place {
                socket: 0,
                domain: 0,
                core: 0,
                hw: 1
            }
        );
        assert_eq!(t.threads_per_socket(10), vec![8, 2]);
        assert_eq!(t.threads_per_socket(16), vec![8, 8]);
        assert_eq!(t.threads_per_socket(20), vec![12, 8]);
    }

    #[test]
    fn pairs_are_classified_by_the_hierarchy() {
        let t = sandy();
        let c = |a, b| Topology::classify(t.place(a), t.place(b));
        assert_eq!(c(3, 3), PairClass::SameThread);
        assert_eq!(c(0, 16), PairClass::SameCore);
        assert_eq!(c(0, 7), PairClass::SameSocket);
        assert_eq!(c(0, 8), PairClass::OtherSocket);
    }

    const SANDY: &str = include_str!("../../../../machines/sandy-bridge-e5-2660.toml");

    #[test]
    fn bundled_machine_loads_with_the_five_classes() {
        let m = crate::machine::load("sandy-bridge-e5-2660").unwrap();
        let c: &Ccnuma = m.model().unwrap();
        assert_eq!(c.line.remote_socket, 94.0);
        assert_eq!(c.line.invalid_remote_socket, 107.0);
        assert_eq!(c.inter_socket.c, 3.0);
        assert_eq!(c.invalidation, Invalidation::PerOwner);
        assert_eq!(c.topology.threads_per_socket(16), vec![8, 8]);
        assert_eq!(m.max_threads, 32);
    }

    #[test]
    fn spec_errors_name_the_key() {
        let err = |text: &str| {
            crate::machine::from_text("x.toml", text)
                .unwrap_err()
                .to_string()
        };
        let unknown = SANDY.replace("[invalidation]", "[invalidation]\nextra = 1");
        assert!(
            err(&unknown).contains("unknown field `extra`"),
            "{}",
            err(&unknown)
        );
        let cheap_qpi = SANDY.replace("value = 94.0", "value = 20.0");
        let e = err(&cheap_qpi);
        assert!(
            e.contains("line.remote_socket") && e.contains("cannot be cheaper"),
            "{e}"
        );
        let rule = SANDY.replace("rule = \"per-owner\"", "rule = \"some\"");
        assert!(err(&rule).contains("unknown rule `some`"));
        let too_many = SANDY.replace("max_threads = 32", "max_threads = 64");
        assert!(err(&too_many).contains("max_threads"));
    }

    /// A one-socket ccNUMA file without the other-socket classes, with seed 000 tables.
    const ONE_SOCKET: &str = r#"
name = "one"
family = "ccnuma"
description = "one socket, two cores"
max_threads = 2
[topology]
sockets = 1
cores_per_socket = 2
threads_per_core = 1
line_bytes = 64
[line]
local = { value = 1.5, unit = "ns", source = "m" }
remote = { value = 60.0, unit = "ns", source = "m" }
invalid = { value = 110.0, unit = "ns", source = "m" }
[multi_line.intra_socket]
q = { value = 50.0, unit = "ns", source = "m" }
o = { value = 10.0, unit = "ns", source = "m" }
c = { value = 0.0, unit = "ns", source = "m", estimated = true }
[invalidation]
rule = "per-owner"
source = "seed 001 §2.3"
[[min_max.multi_line]]
sender = "E"
receiver = "E"
q = { value = 300.0, unit = "ns", source = "m" }
o = { value = 20.0, unit = "ns", source = "m" }
p = { value = 100.0, unit = "ns", source = "m" }
[[min_max.contention]]
sender = "E"
receiver = "E"
b = { value = 60.0, unit = "ns", source = "m" }
c = { value = 0.0, unit = "ns", source = "m", estimated = true }
[calibration]
tool = "test"
host = "Fake"
measured_at = "2026-11-22T00:00:00Z"
cpus = [0, 1]
timer_overhead_ns = 20.0
timer_resolution_ns = 1.0
not_measured = [{ key = "line.remote_socket", reason = "one socket" }]
"#;

    #[test]
    fn a_one_socket_machine_may_omit_the_other_socket_classes() {
        let m = crate::machine::from_text("one.toml", ONE_SOCKET).unwrap();
        let c: &Ccnuma = m.model().unwrap();
        // Never read with one socket; held at the same-socket values.
        assert_eq!(c.line.remote_socket, 60.0);
        assert_eq!(c.inter_socket, c.intra_socket);
        // The seed 000 model sees no other socket.
        let mm = c.min_max.as_ref().unwrap();
        assert_eq!(mm.line.remote_socket, None);
        // Both seeds' algorithms are offered.
        let names: Vec<&str> = m.algorithms().iter().map(|a| a.name()).collect();
        assert!(names.contains(&"cla-tree") && names.contains(&"small-tree"));
        assert!(names.contains(&"dissemination"));
    }

    #[test]
    fn a_two_socket_machine_must_give_the_other_socket_classes() {
        let two = ONE_SOCKET
            .replace("sockets = 1", "sockets = 2")
            .replace("[calibration]", "[x]")
            .split("[x]")
            .next()
            .unwrap()
            .to_string();
        let e = crate::machine::from_text("two.toml", &two)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line.remote_socket") && e.contains("required"),
            "{e}"
        );
        // Listing a given class as not measured is a contradiction.
        let given = ONE_SOCKET.replace(
            "invalid = { value = 110.0",
            "remote_socket = { value = 90.0, unit = \"ns\", source = \"m\" }\ninvalid = { value = 110.0",
        );
        let e = crate::machine::from_text("x.toml", &given)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not measured"), "{e}");
    }

    #[test]
    fn l3_domains_are_a_level_between_core_and_socket() {
        // The bundled chiplet machine: 2 sockets × 4 domains × 8 cores × 2 threads. Thread t
        // runs on core t mod 64 (socket by socket), in domain (core mod 32) / 8.
        let m = crate::machine::load("chiplet-2s-4x8").unwrap();
        let c: &Ccnuma = m.model().unwrap();
        let t = c.topology;
        assert_eq!(t.cores_per_domain(), 8);
        assert_eq!(t.place(9).domain, 1);
        assert_eq!(t.place(40).domain, 1); // socket 1, core 8
        let class = |a, b| Topology::classify(t.place(a), t.place(b));
        assert_eq!(class(0, 7), PairClass::SameSocket); // one domain
        assert_eq!(class(0, 8), PairClass::OtherDomain);
        assert_eq!(class(0, 32), PairClass::OtherSocket);
        assert_eq!(class(0, 64), PairClass::SameCore);
        assert_eq!(c.line.transfer(PairClass::OtherDomain), 164.5);
        // The closed form of Eq. (2) has one class within a socket: not offered here.
        assert!(algorithms::all(c).is_empty());
        // On a machine whose socket is one domain, R_D is R_R.
        let sandy = crate::machine::load("sandy-bridge-e5-2660").unwrap();
        let s: &Ccnuma = sandy.model().unwrap();
        assert_eq!(s.topology.domains_per_socket, 1);
        assert_eq!(s.line.remote_domain, s.line.remote);
    }

    #[test]
    fn the_sync_line_level_is_checked_with_its_key_and_line() {
        let chiplet = include_str!("../../../../machines/chiplet-2s-4x8.toml");
        let sandy = include_str!("../../../../machines/sandy-bridge-e5-2660.toml");
        let e = |text: &str| {
            crate::machine::from_text("c.toml", text)
                .unwrap_err()
                .to_string()
        };
        let with = |text: &str, after: &str, level: &str| {
            text.replacen(after, &format!("{after}\nsync_line = \"{level}\""), 1)
        };
        // An unknown level, and "domain" where a socket is one L3 domain: one line each, with
        // the key and the line of the value (the line after `domains_per_socket`/`sockets`).
        let core = e(&with(chiplet, "domains_per_socket = 4", "core"));
        assert!(
            core.contains("topology.sync_line") && core.contains("\"socket\" or \"domain\""),
            "{core}"
        );
        let line = chiplet
            .lines()
            .position(|l| l.starts_with("domains_per_socket"))
            .unwrap()
            + 2;
        assert!(core.contains(&format!("c.toml:{line}")), "{core}");
        assert_eq!(core.lines().count(), 1, "{core}");
        let one_domain = e(&with(sandy, "sockets = 2", "domain"));
        assert!(
            one_domain.contains("topology.sync_line")
                && one_domain.contains("domains_per_socket > 1"),
            "{one_domain}"
        );
        // "socket" is the default, accepted everywhere; "domain" offers the closed form.
        let m = crate::machine::from_text("c.toml", &with(sandy, "sockets = 2", "socket")).unwrap();
        let c: &Ccnuma = m.model().unwrap();
        assert_eq!(c.topology.sync_line, SyncLine::Socket);
        let m =
            crate::machine::from_text("c.toml", &with(chiplet, "domains_per_socket = 4", "domain"))
                .unwrap();
        let c: &Ccnuma = m.model().unwrap();
        assert_eq!(c.topology.sync_line, SyncLine::Domain);
        assert_eq!(algorithms::all(c).len(), 1);
        // Threads 0..17 by id: 8 in domain 0, 8 in domain 1, thread 16 in domain 2 (socket 0).
        let mut want = vec![0u32; 8];
        want.extend([1; 8]);
        want.push(2);
        assert_eq!(c.topology.groups_of(17), want);
        assert_eq!(c.tree_costs().domains.map(|d| d.per_socket), Some(4));
    }

    #[test]
    fn domain_fields_are_checked_with_their_keys() {
        let chiplet = include_str!("../../../../machines/chiplet-2s-4x8.toml");
        let e = |text: &str| {
            crate::machine::from_text("c.toml", text)
                .unwrap_err()
                .to_string()
        };
        // 32 cores cannot make 5 equal domains.
        let five = chiplet.replace("domains_per_socket = 4", "domains_per_socket = 5");
        assert!(
            e(&five).contains("topology.domains_per_socket"),
            "{}",
            e(&five)
        );
        // Several domains need R_D.
        let start = chiplet.find("remote_domain").unwrap();
        let end = start + chiplet[start..].find('\n').unwrap() + 1;
        let without = format!("{}{}", &chiplet[..start], &chiplet[end..]);
        let msg = e(&without);
        assert!(
            msg.contains("line.remote_domain") && msg.contains("required"),
            "{msg}"
        );
        // One domain a socket refuses it (it would never be read).
        let one = chiplet.replace("domains_per_socket = 4", "domains_per_socket = 1");
        assert!(e(&one).contains("line.remote_domain"), "{}", e(&one));
        // A farther line cannot be cheaper: R_D between R_R and R_Q.
        let cheap = chiplet.replace("value = 164.5", "value = 20.0");
        assert!(e(&cheap).contains("line.remote_domain"), "{}", e(&cheap));
    }

    #[test]
    fn eq1_with_congestion() {
        // Seed 001 Table 1, inter socket: 180.65 + 7.5·4 + 3·2·4 = 234.65 ns.
        let m = MultiLine {
            q: 180.65,
            o: 7.5,
            c: 3.0,
        };
        assert!((m.time(2, 4) - 234.65).abs() < 1e-9);
    }
}
