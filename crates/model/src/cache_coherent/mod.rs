//! Cache-coherent many-cores: Intel Xeon Phi (KNC) and Sandy Bridge, after seed 000 (Ramos &
//! Hoefler, "Modelling Communications in Cache Coherent Systems", 2013).
//!
//! The model has three layers, each parametrized by measurement:
//! 1. line transfers R_L, R_R, R_I (and per-state, per-location reads, Tables 1.5–1.8), with the
//!    single-line ping-pong estimate of Eq. (2.1) ([`pingpong`]);
//! 2. the multi-line model T_N = o·N + q − p/N (Eq. 3.1, Table 3.1) and the contention model
//!    T_C(n) = b + c·n − a/n (Eqs. 3.2/3.3, Table 3.2) ([`Costs`]);
//! 3. min-max models of collectives built from those pieces (Table 4.1) ([`minmax`]), exposed to
//!    the optimizer as [`Algorithm`]s ([`algorithms`]).

pub mod algorithms;
pub mod minmax;
pub mod pingpong;
pub mod spec;

use crate::algorithm::Algorithm;
use crate::error::{ModelError, SpecError};
use crate::machine::{Loaded, ModelFamily};
use crate::request::{BufferStates, LineState, Request};
use crate::spec::{Domain, Param, SpecContext};
use spec::CacheCoherentSpec;
use std::collections::BTreeMap;

/// Where threads can run.
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
}

impl Topology {
    /// Whether `threads` threads, placed one per core and socket by socket (as in seed 000's
    /// evaluation, "one thread per core"), span more than one socket.
    pub fn spans_sockets(&self, threads: u32) -> bool {
        self.sockets > 1 && threads > self.cores_per_socket
    }
}

/// The simplified line-transfer costs of Table 1.5b (Xeon Phi) or Table 1.8 (Sandy Bridge), ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineCosts {
    /// R_L.
    pub local: f64,
    /// R_R within a socket.
    pub remote: f64,
    /// R_I.
    pub invalid: f64,
    /// R_R across sockets, where the machine has several.
    pub remote_socket: Option<f64>,
    /// R_I from a remote NUMA region, where the machine has several sockets.
    pub invalid_remote_socket: Option<f64>,
}

/// A measured latency: average and standard deviation, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// Average.
    pub avg: f64,
    /// Standard deviation (0 when the source gives none).
    pub stdev: f64,
}

/// Multi-line model parameters (seed 000, Eq. 3.1): T_N = o·N + q − p/N, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MultiLine {
    /// q.
    pub q: f64,
    /// o.
    pub o: f64,
    /// p.
    pub p: f64,
}

impl MultiLine {
    /// T_N for `lines` ≥ 1 lines.
    pub fn time(&self, lines: f64) -> f64 {
        self.o * lines + self.q - self.p / lines
    }
}

/// Contention model parameters (seed 000, Eqs. 3.2/3.3): T_C(n) = c·n + b − a/n, ns
/// (a = 0 for cached lines).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contention {
    /// b.
    pub b: f64,
    /// c.
    pub c: f64,
    /// a.
    pub a: f64,
}

impl Contention {
    /// T_C(n) for n ≥ 1 threads reading one line at once.
    pub fn time(&self, threads: f64) -> f64 {
        self.c * threads + self.b - self.a / threads
    }
}

/// One fitted ping-pong equation (seed 000, Eqs. 2.6–2.20).
#[derive(Debug, Clone, PartialEq)]
pub struct PingPongFit {
    /// Location key.
    pub location: String,
    /// Covered send states.
    pub send_states: Vec<LineState>,
    /// Covered receive states.
    pub recv_states: Vec<LineState>,
    /// State standing in for S_r in the read cost.
    pub recv_read_as: Option<LineState>,
    /// Equation reference.
    pub equation: String,
    /// Fitted overhead O, ns.
    pub overhead: f64,
}

/// A checked cache-coherent machine model.
#[derive(Debug, Clone)]
pub struct CacheCoherent {
    /// Machine name (for messages).
    pub name: String,
    /// Topology.
    pub topology: Topology,
    /// Simplified line costs.
    pub line: LineCosts,
    /// Full read table: location → state → latency.
    pub reads: BTreeMap<String, BTreeMap<LineState, Measured>>,
    /// Location key of same-core reads.
    pub local_location: Option<String>,
    /// Fitted ping-pong equations.
    pub ping_pong: Vec<PingPongFit>,
    /// Multi-line parameters per state pair.
    pub multi_line: BTreeMap<BufferStates, MultiLine>,
    /// Contention parameters per state pair.
    pub contention: BTreeMap<BufferStates, Contention>,
}

/// The numbers one request uses: line costs for its thread span and the multi-line and contention
/// parameters for its buffer states.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// R_L.
    pub r_l: f64,
    /// R_R (across sockets when the threads span sockets).
    pub r_r: f64,
    /// R_I (from a remote region when the threads span sockets).
    pub r_i: f64,
    /// Contention model.
    pub contention: Contention,
    /// Multi-line model.
    pub multi_line: MultiLine,
    /// Line size in bytes.
    pub line_bytes: u32,
}

impl Costs {
    /// T_C(n).
    pub fn t_c(&self, threads: f64) -> f64 {
        self.contention.time(threads)
    }

    /// T_N, the multi-line model for N lines.
    pub fn t_n(&self, lines: f64) -> f64 {
        self.multi_line.time(lines)
    }
}

impl CacheCoherent {
    /// A model from checked parts (used by this family's loader and by `ccnuma` machines that
    /// carry the seed 000 tables).
    pub fn from_parts(
        name: String,
        topology: Topology,
        line: LineCosts,
        local_location: Option<String>,
        tables: Tables,
    ) -> Self {
        CacheCoherent {
            name,
            topology,
            line,
            reads: tables.reads,
            local_location,
            ping_pong: tables.ping_pong,
            multi_line: tables.multi_line,
            contention: tables.contention,
        }
    }

    /// The costs a request uses.
    ///
    /// Seed 000 models one R_R; on a multi-socket machine, once the threads span sockets some
    /// transfers cross the interconnect, and we conservatively price every remote transfer at the
    /// other-socket cost (documented in `docs/cache-coherent.md`).
    pub fn costs(&self, request: &Request) -> Result<Costs, ModelError> {
        let spans = self.topology.spans_sockets(request.threads());
        let r_r = match (spans, self.line.remote_socket) {
            (true, Some(r)) => r,
            _ => self.line.remote,
        };
        let r_i = match (spans, self.line.invalid_remote_socket) {
            (true, Some(r)) => r,
            _ => self.line.invalid,
        };
        let states = request.state();
        let known = |m: &mut dyn Iterator<Item = &BufferStates>| {
            m.map(ToString::to_string).collect::<Vec<_>>().join(", ")
        };
        let contention = *self
            .contention
            .get(&states)
            .ok_or_else(|| ModelError::NotMeasured {
                machine: self.name.clone(),
                what: format!(
                    "contention parameters for buffer states {states} (it has: {})",
                    known(&mut self.contention.keys())
                ),
            })?;
        let multi_line = *self
            .multi_line
            .get(&states)
            .ok_or_else(|| ModelError::NotMeasured {
                machine: self.name.clone(),
                what: format!(
                    "multi-line parameters for buffer states {states} (it has: {})",
                    known(&mut self.multi_line.keys())
                ),
            })?;
        Ok(Costs {
            r_l: self.line.local,
            r_r,
            r_i,
            contention,
            multi_line,
            line_bytes: self.topology.line_bytes,
        })
    }

    /// Number of cache lines a message of `size_bytes` occupies (at least 1).
    pub fn lines(&self, size_bytes: u64) -> u64 {
        size_bytes.div_ceil(self.topology.line_bytes.into()).max(1)
    }
}

impl ModelFamily for CacheCoherent {
    fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>> {
        algorithms::all(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The checked seed 000 tables of a machine file: per-location reads (Tables 1.6/1.7), ping-pong
/// overheads (Eq. 2.1), multi-line (Table 3.1) and contention (Table 3.2) parameters.
///
/// Shared by the `cache-coherent` family and by `ccnuma` machines that also carry these tables
/// (`[min_max]`), so one machine file can price both seeds' algorithms with one set of formulas.
#[derive(Debug, Clone, Default)]
pub struct Tables {
    /// location → state → latency.
    pub reads: BTreeMap<String, BTreeMap<LineState, Measured>>,
    /// Fitted ping-pong equations.
    pub ping_pong: Vec<PingPongFit>,
    /// Multi-line parameters per state pair.
    pub multi_line: BTreeMap<BufferStates, MultiLine>,
    /// Contention parameters per state pair.
    pub contention: BTreeMap<BufferStates, Contention>,
}

/// The seed 000 tables as read from a file, before checking.
#[derive(Debug, Clone, Copy)]
pub struct TableSpecs<'s> {
    /// `[reads.LOCATION]` tables.
    pub reads: &'s BTreeMap<String, BTreeMap<LineState, Param>>,
    /// `[[ping_pong]]` entries.
    pub ping_pong: &'s [spec::PingPongSpec],
    /// `[[multi_line]]` entries.
    pub multi_line: &'s [spec::MultiLineSpec],
    /// `[[contention]]` entries.
    pub contention: &'s [spec::ContentionSpec],
}

/// Check the seed 000 tables; keys in errors start with `prefix` (`""` or `"min_max."`).
/// At least one multi-line and one contention entry are required.
pub fn load_tables(
    ctx: &SpecContext<'_>,
    prefix: &str,
    specs: TableSpecs<'_>,
) -> Result<Tables, SpecError> {
    let TableSpecs {
        reads: reads_spec,
        ping_pong: ping_pong_spec,
        multi_line: multi_line_spec,
        contention: contention_spec,
    } = specs;
    let ns = |p: &Param, key: &str, d: Domain| ctx.check(p, key, "ns", d);
    let mut reads = BTreeMap::new();
    for (location, states) in reads_spec {
        let mut row = BTreeMap::new();
        for (state, p) in states {
            let key = format!("{prefix}reads.{location}.{state}");
            let avg = ns(p, &key, Domain::Positive)?;
            row.insert(
                *state,
                Measured {
                    avg,
                    stdev: p.stdev.unwrap_or(0.0),
                },
            );
        }
        reads.insert(location.clone(), row);
    }
    let mut ping_pong = Vec::new();
    for (i, pp) in ping_pong_spec.iter().enumerate() {
        let key = format!("{prefix}ping_pong[{i}]");
        if !reads.contains_key(&pp.location) {
            return Err(ctx.error_at(
                pp.overhead.value.span(),
                &format!("{key}.location"),
                format!("`{}` is not a location of [reads]", pp.location),
            ));
        }
        if pp.send_states.is_empty() || pp.recv_states.is_empty() {
            return Err(ctx.error_at(
                pp.overhead.value.span(),
                &key,
                "send_states and recv_states must not be empty",
            ));
        }
        ping_pong.push(PingPongFit {
            location: pp.location.clone(),
            send_states: pp.send_states.clone(),
            recv_states: pp.recv_states.clone(),
            recv_read_as: pp.recv_read_as,
            equation: pp.equation.clone(),
            overhead: ns(&pp.overhead, &format!("{key}.overhead"), Domain::Finite)?,
        });
    }
    let mut multi_line = BTreeMap::new();
    for (i, m) in multi_line_spec.iter().enumerate() {
        let key = format!("{prefix}multi_line[{i}]");
        let states = BufferStates {
            sender: m.sender,
            receiver: m.receiver,
        };
        let model = MultiLine {
            q: ns(&m.q, &format!("{key}.q"), Domain::NonNegative)?,
            o: ns(&m.o, &format!("{key}.o"), Domain::Positive)?,
            p: ns(&m.p, &format!("{key}.p"), Domain::NonNegative)?,
        };
        // T_1 = o + q - p must stay positive, or one line would cost nothing.
        if model.time(1.0) <= 0.0 {
            return Err(ctx.error_at(
                m.p.value.span(),
                &format!("{key}.p"),
                "o + q - p must be positive (the one-line transfer time T_1)",
            ));
        }
        if multi_line.insert(states, model).is_some() {
            return Err(ctx.error_at(
                m.q.value.span(),
                &key,
                format!("a second multi_line entry for states {states}"),
            ));
        }
    }
    let mut contention = BTreeMap::new();
    for (i, c) in contention_spec.iter().enumerate() {
        let key = format!("{prefix}contention[{i}]");
        let states = BufferStates {
            sender: c.sender,
            receiver: c.receiver,
        };
        let model = Contention {
            b: ns(&c.b, &format!("{key}.b"), Domain::Positive)?,
            c: ns(&c.c, &format!("{key}.c"), Domain::NonNegative)?,
            a: c.a
                .as_ref()
                .map(|a| ns(a, &format!("{key}.a"), Domain::NonNegative))
                .transpose()?
                .unwrap_or(0.0),
        };
        if model.time(1.0) <= 0.0 {
            return Err(ctx.error_at(
                c.b.value.span(),
                &key,
                "c + b - a must be positive (T_C(1), one thread copying one line)",
            ));
        }
        if contention.insert(states, model).is_some() {
            return Err(ctx.error_at(
                c.b.value.span(),
                &key,
                format!("a second contention entry for states {states}"),
            ));
        }
    }
    if multi_line.is_empty() || contention.is_empty() {
        let table = if multi_line.is_empty() {
            "multi_line"
        } else {
            "contention"
        };
        return Err(ctx.error(
            &format!("{prefix}{table}"),
            "at least one entry is required",
        ));
    }
    Ok(Tables {
        reads,
        ping_pong,
        multi_line,
        contention,
    })
}

/// Read and validate a cache-coherent machine file.
pub fn load(ctx: &SpecContext<'_>) -> Result<Loaded, SpecError> {
    let spec: CacheCoherentSpec = ctx.parse()?;
    let t = &spec.topology;
    let topology = Topology {
        sockets: ctx.count(&t.sockets, "topology.sockets")?,
        cores_per_socket: ctx.count(&t.cores_per_socket, "topology.cores_per_socket")?,
        threads_per_core: ctx.count(&t.threads_per_core, "topology.threads_per_core")?,
        line_bytes: ctx.line_size(&t.line_bytes, "topology.line_bytes")?,
    };
    let hardware = topology.sockets * topology.cores_per_socket * topology.threads_per_core;
    let max_threads = *spec.max_threads.get_ref();
    if max_threads < 2 || max_threads > hardware {
        return Err(ctx.error_at(
            spec.max_threads.span(),
            "max_threads",
            format!("must be between 2 and sockets × cores × threads per core = {hardware} (got {max_threads})"),
        ));
    }
    let ns = |p: &Param, key: &str, d: Domain| ctx.check(p, key, "ns", d);
    let line = LineCosts {
        local: ns(&spec.line.local, "line.local", Domain::Positive)?,
        remote: ns(&spec.line.remote, "line.remote", Domain::Positive)?,
        invalid: ns(&spec.line.invalid, "line.invalid", Domain::Positive)?,
        remote_socket: spec
            .line
            .remote_socket
            .as_ref()
            .map(|p| ns(p, "line.remote_socket", Domain::Positive))
            .transpose()?,
        invalid_remote_socket: spec
            .line
            .invalid_remote_socket
            .as_ref()
            .map(|p| ns(p, "line.invalid_remote_socket", Domain::Positive))
            .transpose()?,
    };
    let tables = load_tables(
        ctx,
        "",
        TableSpecs {
            reads: &spec.reads,
            ping_pong: &spec.ping_pong,
            multi_line: &spec.multi_line,
            contention: &spec.contention,
        },
    )?;
    if let Some(local) = &t.local_location {
        if !tables.reads.contains_key(local) {
            return Err(ctx.error(
                "topology.local_location",
                format!("`{local}` is not a location of [reads]"),
            ));
        }
    }
    let model = CacheCoherent::from_parts(
        spec.name.clone(),
        topology,
        line,
        t.local_location.clone(),
        tables,
    );
    Ok(Loaded {
        description: spec.description,
        max_threads,
        model: Box::new(model),
    })
}
