//! Message-passing clusters: the LogP family of point-to-point models (Hockney, LogP, LogGP,
//! PLogP) and the collective algorithms that Open MPI, MPICH and UCC implement, priced on them.
//!
//! Why a family of its own: the other families model the inside of one chip from the seeds'
//! measurements; MPI libraries choose among a fixed menu of algorithms (binomial, pipelined chain,
//! scatter + allgather, ring, Rabenseifner, ...) whose classic analyses (Thakur, Rabenseifner &
//! Gropp 2005; Pješivac-Grbović et al. 2007; Chan et al. 2007) are written in these models. The
//! family has three layers:
//! 1. [`P2p`]: what one message of m bytes costs, in the model the machine file names
//!    (`model = "hockney" | "logp" | "loggp" | "plogp"`): its end-to-end time T(m), the gap G(m)
//!    between consecutive messages at one process, and the CPU overheads o_s(m), o_r(m);
//! 2. [`tree`]: the broadcast trees of the libraries (flat, chain, binary, binomial, k-nomial)
//!    and their completion time, pipelined or not, for broadcast and (by duality) reduction;
//! 3. [`algorithms`]: one [`Algorithm`] per library algorithm, each formula
//!    cited in its doc and in `docs/mpi.md`.
//!
//! A machine may have two levels (`[node]`: ranks per node and the intra-node parameters of the
//! same model); every message is then priced by the link between its two ranks.
//!
//! Units: the machine file gives µs (and µs/B, B); the model works in nanoseconds.
//!
//! ```
//! use modelopt_model::{machine, loggp::LogGp, Collective, Params, Request};
//! let cluster = machine::load("cluster-example").unwrap();
//! let model: &LogGp = cluster.model().unwrap();
//! // LogGP, L = 1 µs, o = 0.3 µs: an empty message takes T(0) = L + 2o = 1.6 µs.
//! assert_eq!(model.p2p.time(0), 1600.0);
//! let binomial = cluster
//!     .algorithms_for(Collective::Bcast)
//!     .into_iter()
//!     .find(|a| a.name() == "binomial")
//!     .unwrap();
//! let request = Request::new(Collective::Bcast, 8).unwrap();
//! // ⌈log2 8⌉ = 3 rounds of T(0), unsegmented.
//! let cost = binomial.cost(&request, &Params::named([("segment", 0)])).unwrap();
//! assert_eq!(cost.min_ns, 3.0 * 1600.0);
//! ```

pub mod algorithms;
pub mod spec;
pub mod table;
pub mod tree;

use crate::algorithm::Algorithm;
use crate::error::SpecError;
use crate::machine::{Loaded, ModelFamily};
use crate::spec::{Domain, Param, SpecContext};
use spec::{LogGpSpec, PointSpec};
use table::Table;
use toml::Spanned;

/// Nanoseconds per microsecond: machine files are in µs, the model in ns.
const NS_PER_US: f64 = 1000.0;

/// The point-to-point model of a machine, every time in ns and every size in bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum P2p {
    /// Hockney (1994): T(m) = α + mβ; a process is busy for the whole message, so G(m) = T(m).
    Hockney {
        /// α, ns.
        alpha: f64,
        /// β, ns/B.
        beta: f64,
    },
    /// LogP (Culler et al. 1993): an m-byte message is k = max(1, ⌈m/w⌉) small messages.
    LogP {
        /// L, ns.
        latency: f64,
        /// o, ns.
        overhead: f64,
        /// g, ns.
        gap: f64,
        /// w, bytes.
        packet: u64,
    },
    /// LogGP (Alexandrov et al. 1995): long messages stream at G per byte.
    LogGp {
        /// L, ns.
        latency: f64,
        /// o, ns.
        overhead: f64,
        /// g, ns.
        gap: f64,
        /// G, ns/B.
        gap_per_byte: f64,
    },
    /// PLogP (Kielmann, Bal & Verstoep 2000): L and the size-dependent o_s(m), o_r(m), g(m).
    PLogP {
        /// L, ns.
        latency: f64,
        /// o_s(m), ns.
        send_overhead: Table,
        /// o_r(m), ns.
        recv_overhead: Table,
        /// g(m), ns.
        gap: Table,
    },
}

impl P2p {
    /// The model's name as written in machine files.
    pub fn name(&self) -> &'static str {
        match self {
            P2p::Hockney { .. } => "hockney",
            P2p::LogP { .. } => "logp",
            P2p::LogGp { .. } => "loggp",
            P2p::PLogP { .. } => "plogp",
        }
    }

    fn packets(bytes: u64, packet: u64) -> f64 {
        bytes.div_ceil(packet.max(1)).max(1) as f64
    }

    /// T(m): from the start of the send to the data being in the receiver's buffer, ns.
    ///
    /// - Hockney: α + mβ (Hockney 1994; Thakur et al. 2005 §3);
    /// - LogP: L + 2o + (k − 1)·max(g, o), k = ⌈m/w⌉ (Culler et al. 1993 §3: k messages leave
    ///   one per max(g, o), the last arrives L + o after its send);
    /// - LogGP: L + 2o + (m − 1)G (Alexandrov et al. 1995 §2);
    /// - PLogP: L + g(m) (Kielmann et al. 2000 §2: g(m) covers the sender's work and the transfer).
    pub fn time(&self, bytes: u64) -> f64 {
        match self {
            P2p::Hockney { alpha, beta } => alpha + bytes as f64 * beta,
            P2p::LogP {
                latency,
                overhead,
                gap,
                packet,
            } => {
                latency
                    + 2.0 * overhead
                    + (Self::packets(bytes, *packet) - 1.0) * gap.max(*overhead)
            }
            P2p::LogGp {
                latency,
                overhead,
                gap_per_byte,
                ..
            } => latency + 2.0 * overhead + bytes.saturating_sub(1) as f64 * gap_per_byte,
            P2p::PLogP { latency, gap, .. } => latency + gap.at(bytes),
        }
    }

    /// G(m): the least interval between the starts of two consecutive m-byte sends (or
    /// receives) at one process, ns.
    ///
    /// - Hockney: α + mβ (one message at a time);
    /// - LogP: k·max(g, o);
    /// - LogGP: max(g, o) + (m − 1)G (our reading of Alexandrov et al. 1995 §2: the next message
    ///   may start a gap g after the previous one has been injected, at G per byte);
    /// - PLogP: g(m) (Kielmann et al. 2000 §2).
    pub fn gap(&self, bytes: u64) -> f64 {
        match self {
            P2p::Hockney { .. } => self.time(bytes),
            P2p::LogP {
                overhead,
                gap,
                packet,
                ..
            } => Self::packets(bytes, *packet) * gap.max(*overhead),
            P2p::LogGp {
                overhead,
                gap,
                gap_per_byte,
                ..
            } => gap.max(*overhead) + bytes.saturating_sub(1) as f64 * gap_per_byte,
            P2p::PLogP { gap, .. } => gap.at(bytes),
        }
    }

    /// o_s(m): the sender's CPU time for one m-byte message, ns (0 in Hockney, which has no
    /// separate overhead; k·o in LogP; o in LogGP; the table in PLogP).
    pub fn send_overhead(&self, bytes: u64) -> f64 {
        match self {
            P2p::Hockney { .. } => 0.0,
            P2p::LogP {
                overhead, packet, ..
            } => Self::packets(bytes, *packet) * overhead,
            P2p::LogGp { overhead, .. } => *overhead,
            P2p::PLogP { send_overhead, .. } => send_overhead.at(bytes),
        }
    }

    /// o_r(m): the receiver's CPU time for one m-byte message, ns.
    pub fn recv_overhead(&self, bytes: u64) -> f64 {
        match self {
            P2p::PLogP { recv_overhead, .. } => recv_overhead.at(bytes),
            _ => self.send_overhead(bytes),
        }
    }
}

/// The intra-node level of a two-level machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Consecutive ranks per node: rank r runs on node ⌊r / ranks_per_node⌋ (ranks relative to
    /// the root of rooted collectives).
    pub ranks_per_node: u32,
    /// The point-to-point model between ranks of one node.
    pub p2p: P2p,
}

/// A checked message-passing machine model.
#[derive(Debug, Clone, PartialEq)]
pub struct LogGp {
    /// Machine name (for messages).
    pub name: String,
    /// The point-to-point model (between nodes, when the machine has two levels).
    pub p2p: P2p,
    /// The intra-node level, for two-level machines.
    pub node: Option<Node>,
    /// γ, ns per byte of reduction.
    pub gamma: f64,
    /// Largest rank count of the machine.
    pub max_threads: u32,
}

impl ModelFamily for LogGp {
    fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>> {
        algorithms::all(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The model names a machine file may give, in the order of the docs.
pub const MODELS: [&str; 4] = ["hockney", "logp", "loggp", "plogp"];

fn us(ctx: &SpecContext<'_>, p: &Param, key: &str, domain: Domain) -> Result<f64, SpecError> {
    Ok(ctx.check(p, key, "us", domain)? * NS_PER_US)
}

fn us_per_byte(ctx: &SpecContext<'_>, p: &Param, key: &str) -> Result<f64, SpecError> {
    Ok(ctx.check(p, key, "us/B", Domain::NonNegative)? * NS_PER_US)
}

/// A PLogP table: at least one point, sizes strictly ascending, values finite and non-negative.
/// Measured tables dip here and there (noise); the model reads each point as the largest value
/// measured at or below its size (see [`Table`]), so every cost stays non-decreasing in m.
fn table(
    ctx: &SpecContext<'_>,
    points: &Spanned<Vec<PointSpec>>,
    key: &str,
) -> Result<Table, SpecError> {
    let list = points.get_ref();
    if list.is_empty() {
        return Err(ctx.error_at(points.span(), key, "needs at least one (size, value) point"));
    }
    let mut rows: Vec<(u64, f64)> = Vec::with_capacity(list.len());
    for (i, point) in list.iter().enumerate() {
        let here = format!("{key}[{i}]");
        let value = us(ctx, &point.param(), &here, Domain::NonNegative)?;
        let size = *point.size.get_ref();
        if let Some(&(prev_size, _)) = rows.last() {
            if size <= prev_size {
                return Err(ctx.error_at(
                    point.size.span(),
                    &format!("{here}.size"),
                    format!("sizes must be strictly ascending ({size} B follows {prev_size} B)"),
                ));
            }
        }
        rows.push((size, value));
    }
    Ok(Table::new(rows))
}

/// The point-to-point tables of one level, as read from the file.
struct Tables<'s> {
    hockney: Option<&'s spec::HockneySpec>,
    logp: Option<&'s spec::LogPSpec>,
    loggp: Option<&'s spec::LogGpParamsSpec>,
    plogp: Option<&'s spec::PLogPSpec>,
}

/// The model `model` of one level from its tables; `prefix` is `""` or `"node."` for the keys
/// of errors, `span` where `model` is written.
fn p2p_of(
    ctx: &SpecContext<'_>,
    model: &str,
    span: std::ops::Range<usize>,
    tables: &Tables<'_>,
    prefix: &str,
) -> Result<P2p, SpecError> {
    let present = [
        ("hockney", tables.hockney.is_some()),
        ("logp", tables.logp.is_some()),
        ("loggp", tables.loggp.is_some()),
        ("plogp", tables.plogp.is_some()),
    ];
    if let Some((other, _)) = present.iter().find(|(n, p)| *p && *n != model) {
        return Err(ctx.error(
            &format!("{prefix}{other}"),
            format!(
                "[{prefix}{other}] is not used by model = \"{model}\" (give only the [{prefix}{model}] table)"
            ),
        ));
    }
    let missing = || {
        ctx.error_at(
            span.clone(),
            "model",
            format!("model = \"{model}\" needs a [{prefix}{model}] table"),
        )
    };
    let key = |k: &str| format!("{prefix}{model}.{k}");
    Ok(match model {
        "hockney" => {
            let h = tables.hockney.ok_or_else(missing)?;
            P2p::Hockney {
                alpha: us(ctx, &h.latency, &key("latency"), Domain::Positive)?,
                beta: us_per_byte(ctx, &h.per_byte, &key("per_byte"))?,
            }
        }
        "logp" => {
            let l = tables.logp.ok_or_else(missing)?;
            let packet = ctx.check(&l.packet, &key("packet"), "B", Domain::Positive)?;
            if packet.fract() != 0.0 {
                return Err(ctx.error_at(
                    l.packet.value.span(),
                    &key("packet"),
                    format!("must be a whole number of bytes (got {packet})"),
                ));
            }
            P2p::LogP {
                latency: us(ctx, &l.latency, &key("latency"), Domain::Positive)?,
                overhead: us(ctx, &l.overhead, &key("overhead"), Domain::NonNegative)?,
                gap: us(ctx, &l.gap, &key("gap"), Domain::Positive)?,
                packet: packet as u64,
            }
        }
        "loggp" => {
            let l = tables.loggp.ok_or_else(missing)?;
            P2p::LogGp {
                latency: us(ctx, &l.latency, &key("latency"), Domain::Positive)?,
                overhead: us(ctx, &l.overhead, &key("overhead"), Domain::NonNegative)?,
                gap: us(ctx, &l.gap, &key("gap"), Domain::Positive)?,
                gap_per_byte: us_per_byte(ctx, &l.gap_per_byte, &key("gap_per_byte"))?,
            }
        }
        _ => {
            let l = tables.plogp.ok_or_else(missing)?;
            P2p::PLogP {
                latency: us(ctx, &l.latency, &key("latency"), Domain::Positive)?,
                send_overhead: table(ctx, &l.send_overhead, &key("send_overhead"))?,
                recv_overhead: table(ctx, &l.recv_overhead, &key("recv_overhead"))?,
                gap: table(ctx, &l.gap, &key("gap"))?,
            }
        }
    })
}

/// Read and validate a message-passing machine file (`family = "loggp"`).
pub fn load(ctx: &SpecContext<'_>) -> Result<Loaded, SpecError> {
    let spec: LogGpSpec = ctx.parse()?;
    let model = spec.model.get_ref().as_str();
    if !MODELS.contains(&model) {
        return Err(ctx.error_at(
            spec.model.span(),
            "model",
            format!(
                "unknown point-to-point model `{model}` (expected one of: {})",
                MODELS.join(", ")
            ),
        ));
    }
    let top = Tables {
        hockney: spec.hockney.as_ref(),
        logp: spec.logp.as_ref(),
        loggp: spec.loggp.as_ref(),
        plogp: spec.plogp.as_ref(),
    };
    let p2p = p2p_of(ctx, model, spec.model.span(), &top, "")?;
    let node = match &spec.node {
        None => None,
        Some(n) => {
            let ranks_per_node = *n.ranks_per_node.get_ref();
            if ranks_per_node < 2 {
                return Err(ctx.error_at(
                    n.ranks_per_node.span(),
                    "node.ranks_per_node",
                    format!("a node shares at least 2 ranks (got {ranks_per_node})"),
                ));
            }
            let tables = Tables {
                hockney: n.hockney.as_ref(),
                logp: n.logp.as_ref(),
                loggp: n.loggp.as_ref(),
                plogp: n.plogp.as_ref(),
            };
            Some(Node {
                ranks_per_node,
                p2p: p2p_of(ctx, model, spec.model.span(), &tables, "node.")?,
            })
        }
    };
    let gamma = us_per_byte(ctx, &spec.compute.gamma, "compute.gamma")?;
    let max_threads = *spec.max_threads.get_ref();
    if !(2..=crate::request::MAX_THREADS).contains(&max_threads) {
        return Err(ctx.error_at(
            spec.max_threads.span(),
            "max_threads",
            format!(
                "must be between 2 and {} ranks (got {max_threads})",
                crate::request::MAX_THREADS
            ),
        ));
    }
    let model = LogGp {
        name: spec.name.clone(),
        p2p,
        node,
        gamma,
        max_threads,
    };
    Ok(Loaded {
        description: spec.description,
        max_threads,
        model: Box::new(model),
    })
}
