//! The collective algorithms of Open MPI, MPICH and UCC as [`Algorithm`]s, priced on a
//! machine's point-to-point model ([`P2p`]).
//!
//! Notation: p ranks (`Request::threads`), m bytes (`Request::size_bytes`: the broadcast or
//! reduced vector; each rank's contribution for allgather), T(m) and G(m) the end-to-end time and
//! the gap of one m-byte message ([`P2p::time`], [`P2p::gap`]), γ the reduction time per byte,
//! p' = 2^⌊log2 p⌋, c = ⌈m/p⌉. Under Hockney, T = G = α + mβ and every formula reduces to the
//! one its source prints; `docs/mpi.md` lists them all with their sources.
//!
//! | collective | name | parameters | model (source) |
//! |---|---|---|---|
//! | bcast | `linear` | – | flat tree: (p−2)G(m) + T(m) (Pješivac-Grbović et al. 2007 §3) |
//! | bcast | `chain` | fanout, segment | pipelined chains (Pješivac-Grbović et al. 2007 §3) |
//! | bcast | `pipeline` | segment | one pipelined chain: (p + n_s − 2)T(s) under Hockney (ibid.) |
//! | bcast | `split-binary` | segment | each half down one subtree, then pairs swap halves (ibid.) |
//! | bcast | `binary` | segment | pipelined binary tree (ibid.) |
//! | bcast | `binomial` | segment | binomial tree: ⌈log2 p⌉T(m) (Thakur et al. 2005 §4.2) |
//! | bcast | `knomial` | radix, segment | k-nomial tree: (k−1)⌈log_k p⌉T(m) under Hockney |
//! | bcast | `scatter-rd-allgather` | – | binomial scatter + recursive-doubling allgather (Thakur et al. 2005 §4.2) |
//! | bcast | `scatter-ring-allgather` | – | binomial scatter + ring allgather (Thakur et al. 2005 §4.2; Chan et al. 2007) |
//! | barrier | `linear` | – | fan-in to the root and fan-out: 2((p−2)G(0) + T(0)) |
//! | barrier | `double-ring` | – | a token twice around the ring: 2p·T(0) |
//! | barrier | `recursive-doubling` | – | log2 p' exchanges, + 2 when p ≠ p' |
//! | barrier | `bruck` | radix | ⌈log_k p⌉ rounds of up to k−1 messages (Bruck et al. 1997; Hensgen et al. 1988) |
//! | barrier | `tree` | – | binomial fan-in and fan-out: 2⌈log2 p⌉T(0) under Hockney |
//! | reduce | `linear`, `chain`, `pipeline`, `binary`, `binomial` | as bcast | the bcast tree reversed, γ per combined byte (Chan et al. 2007 §3) |
//! | reduce | `in-order-binary` | segment | binary tree rooted at rank p−1, + T(m) to the root |
//! | reduce | `rabenseifner` | – | recursive-halving reduce-scatter + binomial gather (Rabenseifner 2004; Thakur et al. 2005 §4.5) |
//! | allreduce | `linear` | – | linear reduce + linear bcast |
//! | allreduce | `nonoverlapping` | – | binomial reduce + binomial bcast |
//! | allreduce | `recursive-doubling` | – | log2 p'(T(m) + γm), pre/post steps when p ≠ p' (Thakur et al. 2005 §4.4) |
//! | allreduce | `ring` | – | (p−1)(T(c) + γc) + (p−1)T(c) (Patarasuk & Yuan 2009; Chan et al. 2007) |
//! | allreduce | `segmented-ring` | segment | ring with each step's reduction overlapping the next segment |
//! | allreduce | `rabenseifner` | – | reduce-scatter + allgather (Rabenseifner 2004; Thakur et al. 2005 §4.4) |
//! | allgather | `linear` | – | gather to the root + linear bcast of pm bytes |
//! | allgather | `bruck` | radix | ⌈log_k p⌉ rounds (Bruck et al. 1997; Thakur et al. 2005 §4.1) |
//! | allgather | `recursive-doubling` | – | Σ_{i<log2 p} T(2^i m), p a power of two (Thakur et al. 2005 §4.1) |
//! | allgather | `ring` | – | (p−1)T(m) (Thakur et al. 2005 §4.1) |
//! | allgather | `neighbor-exchange` | – | T(m) + (p/2 − 1)T(2m), p even (Chen et al. 2005) |
//!
//! Parameters (all [`Params::Named`]):
//! - `segment`, bytes: 0 means "not segmented" (as in Open MPI's rule files); otherwise the
//!   message travels in n_s = ⌈m/s⌉ segments of s bytes (the last one priced as a full segment,
//!   an upper bound). The search offers 0 and the powers of two from 1 KiB to 1 MiB below m
//!   (segments ≥ m are the unsegmented case).
//! - `fanout`: chains of `chain` (1 ..= min(p−1, 8) in the search).
//! - `radix`: k of `knomial` and `bruck` (2 ..= min(p, 16) in the search; any k ≥ 2 is priced).
//!
//! Two-level machines: each message is priced by its link (see `Net` and `docs/mpi.md`, "Two
//! levels"): tree edges one by one, a step of simultaneous exchanges by the slowest link its
//! pairs use. On one level every formula above holds as written.
//!
//! Pipelining (Pješivac-Grbović et al. 2007 §3): one segment crosses the tree in the tree's
//! completion time for s bytes; each further segment adds one period, the busiest rank's time per
//! segment: max(c_root·G(s), c·G(s), c·o_s(s) + o_r(s), G(s)) for a broadcast (c children per
//! rank), with γs added per combined segment for a reduction.

use super::tree::{ceil_log2, Shape};
use super::{LogGp, P2p};
use crate::algorithm::{Algorithm, Space, SpaceOptions, Term, ValueList};
use crate::error::ModelError;
use crate::request::{Collective, Cost, Params, Request, MAX_SIZE_BYTES};
use std::collections::BTreeMap;

/// The algorithms of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Bcast, flat tree.
    BcastLinear,
    /// Bcast, pipelined chains with a fan-out.
    BcastChain,
    /// Bcast, one pipelined chain.
    BcastPipeline,
    /// Bcast, split binary tree.
    BcastSplitBinary,
    /// Bcast, pipelined binary tree.
    BcastBinary,
    /// Bcast, binomial tree.
    BcastBinomial,
    /// Bcast, k-nomial tree.
    BcastKnomial,
    /// Bcast, binomial scatter + recursive-doubling allgather.
    BcastScatterRdAllgather,
    /// Bcast, binomial scatter + ring allgather.
    BcastScatterRingAllgather,
    /// Barrier, fan-in and fan-out at the root.
    BarrierLinear,
    /// Barrier, double ring.
    BarrierDoubleRing,
    /// Barrier, recursive doubling.
    BarrierRecursiveDoubling,
    /// Barrier, Bruck (dissemination) with a radix.
    BarrierBruck,
    /// Barrier, binomial fan-in and fan-out.
    BarrierTree,
    /// Reduce, flat tree.
    ReduceLinear,
    /// Reduce, pipelined chains.
    ReduceChain,
    /// Reduce, one pipelined chain.
    ReducePipeline,
    /// Reduce, pipelined binary tree.
    ReduceBinary,
    /// Reduce, binomial tree.
    ReduceBinomial,
    /// Reduce, in-order binary tree.
    ReduceInOrderBinary,
    /// Reduce, Rabenseifner.
    ReduceRabenseifner,
    /// Allreduce, linear reduce + linear bcast.
    AllreduceLinear,
    /// Allreduce, reduce + bcast.
    AllreduceNonoverlapping,
    /// Allreduce, recursive doubling.
    AllreduceRecursiveDoubling,
    /// Allreduce, ring.
    AllreduceRing,
    /// Allreduce, segmented ring.
    AllreduceSegmentedRing,
    /// Allreduce, Rabenseifner.
    AllreduceRabenseifner,
    /// Allgather, gather + bcast.
    AllgatherLinear,
    /// Allgather, Bruck with a radix.
    AllgatherBruck,
    /// Allgather, recursive doubling.
    AllgatherRecursiveDoubling,
    /// Allgather, ring.
    AllgatherRing,
    /// Allgather, neighbor exchange.
    AllgatherNeighborExchange,
}

impl Kind {
    /// Every algorithm, in the family's order (the tie-break order of the tuner).
    pub const ALL: [Kind; 32] = [
        Kind::BcastLinear,
        Kind::BcastChain,
        Kind::BcastPipeline,
        Kind::BcastSplitBinary,
        Kind::BcastBinary,
        Kind::BcastBinomial,
        Kind::BcastKnomial,
        Kind::BcastScatterRdAllgather,
        Kind::BcastScatterRingAllgather,
        Kind::BarrierLinear,
        Kind::BarrierDoubleRing,
        Kind::BarrierRecursiveDoubling,
        Kind::BarrierBruck,
        Kind::BarrierTree,
        Kind::ReduceLinear,
        Kind::ReduceChain,
        Kind::ReducePipeline,
        Kind::ReduceBinary,
        Kind::ReduceBinomial,
        Kind::ReduceInOrderBinary,
        Kind::ReduceRabenseifner,
        Kind::AllreduceLinear,
        Kind::AllreduceNonoverlapping,
        Kind::AllreduceRecursiveDoubling,
        Kind::AllreduceRing,
        Kind::AllreduceSegmentedRing,
        Kind::AllreduceRabenseifner,
        Kind::AllgatherLinear,
        Kind::AllgatherBruck,
        Kind::AllgatherRecursiveDoubling,
        Kind::AllgatherRing,
        Kind::AllgatherNeighborExchange,
    ];

    /// The name shared with `modelopt export` (unique within a collective).
    pub fn name(self) -> &'static str {
        use Kind::*;
        match self {
            BcastLinear | BarrierLinear | ReduceLinear | AllreduceLinear | AllgatherLinear => {
                "linear"
            }
            BcastChain | ReduceChain => "chain",
            BcastPipeline | ReducePipeline => "pipeline",
            BcastSplitBinary => "split-binary",
            BcastBinary | ReduceBinary => "binary",
            BcastBinomial | ReduceBinomial => "binomial",
            BcastKnomial => "knomial",
            BcastScatterRdAllgather => "scatter-rd-allgather",
            BcastScatterRingAllgather => "scatter-ring-allgather",
            BarrierDoubleRing => "double-ring",
            BarrierRecursiveDoubling | AllreduceRecursiveDoubling | AllgatherRecursiveDoubling => {
                "recursive-doubling"
            }
            BarrierBruck | AllgatherBruck => "bruck",
            BarrierTree => "tree",
            ReduceInOrderBinary => "in-order-binary",
            ReduceRabenseifner | AllreduceRabenseifner => "rabenseifner",
            AllreduceNonoverlapping => "nonoverlapping",
            AllreduceRing | AllgatherRing => "ring",
            AllreduceSegmentedRing => "segmented-ring",
            AllgatherNeighborExchange => "neighbor-exchange",
        }
    }

    /// The collective it implements.
    pub fn collective(self) -> Collective {
        use Kind::*;
        match self {
            BcastLinear
            | BcastChain
            | BcastPipeline
            | BcastSplitBinary
            | BcastBinary
            | BcastBinomial
            | BcastKnomial
            | BcastScatterRdAllgather
            | BcastScatterRingAllgather => Collective::Bcast,
            BarrierLinear
            | BarrierDoubleRing
            | BarrierRecursiveDoubling
            | BarrierBruck
            | BarrierTree => Collective::Barrier,
            ReduceLinear | ReduceChain | ReducePipeline | ReduceBinary | ReduceBinomial
            | ReduceInOrderBinary | ReduceRabenseifner => Collective::Reduce,
            AllreduceLinear
            | AllreduceNonoverlapping
            | AllreduceRecursiveDoubling
            | AllreduceRing
            | AllreduceSegmentedRing
            | AllreduceRabenseifner => Collective::Allreduce,
            AllgatherLinear
            | AllgatherBruck
            | AllgatherRecursiveDoubling
            | AllgatherRing
            | AllgatherNeighborExchange => Collective::Allgather,
        }
    }

    /// One line: what it is and where its model comes from.
    pub fn summary(self) -> &'static str {
        use Kind::*;
        match self {
            BcastLinear => "root sends to every rank in turn (Open MPI basic_linear; Pješivac-Grbović et al. 2007)",
            BcastChain => "fanout pipelined chains fed by the root (Open MPI chain; Pješivac-Grbović et al. 2007)",
            BcastPipeline => "one pipelined chain through all ranks (Open MPI pipeline; Pješivac-Grbović et al. 2007)",
            BcastSplitBinary => "each half of the message down one binary subtree, then pairs swap halves (Open MPI split_bintree)",
            BcastBinary => "pipelined binary tree (Open MPI bintree; Pješivac-Grbović et al. 2007)",
            BcastBinomial => "binomial tree, ⌈log2 p⌉ rounds (Thakur, Rabenseifner & Gropp 2005 §4.2)",
            BcastKnomial => "k-nomial tree, (k−1)⌈log_k p⌉ sends on the longest path (MPICH/Open MPI knomial)",
            BcastScatterRdAllgather => "binomial scatter + recursive-doubling allgather, p a power of two (Thakur et al. 2005 §4.2)",
            BcastScatterRingAllgather => "binomial scatter + ring allgather (Thakur et al. 2005 §4.2; Chan et al. 2007)",
            BarrierLinear => "every rank reports to the root, the root releases every rank (Open MPI basic_linear)",
            BarrierDoubleRing => "a token travels twice around the ring (Open MPI doublering)",
            BarrierRecursiveDoubling => "log2 p' pairwise exchanges, two extra steps when p is not a power of two (Open MPI recursivedoubling)",
            BarrierBruck => "dissemination: ⌈log_k p⌉ rounds of k−1 messages (Bruck et al. 1997; MPICH k-dissemination)",
            BarrierTree => "binomial fan-in then binomial fan-out (Open MPI tree)",
            ReduceLinear => "root receives and combines every rank's vector in turn (Open MPI basic_linear)",
            ReduceChain => "fanout pipelined chains towards the root (Open MPI chain; Pješivac-Grbović et al. 2007)",
            ReducePipeline => "one pipelined chain towards the root (Open MPI pipeline; Pješivac-Grbović et al. 2007)",
            ReduceBinary => "pipelined binary tree towards the root (Open MPI binary)",
            ReduceBinomial => "binomial tree, ⌈log2 p⌉(T(m) + γm) (Thakur et al. 2005 §4.5)",
            ReduceInOrderBinary => "binary tree in rank order rooted at rank p−1, then the result to the root (Open MPI in-order binary)",
            ReduceRabenseifner => "recursive-halving reduce-scatter + binomial gather (Rabenseifner 2004; Thakur et al. 2005 §4.5)",
            AllreduceLinear => "linear reduce then linear bcast (Open MPI basic_linear)",
            AllreduceNonoverlapping => "binomial reduce then binomial bcast (Open MPI nonoverlapping)",
            AllreduceRecursiveDoubling => "log2 p' exchanges of the whole vector (Thakur et al. 2005 §4.4)",
            AllreduceRing => "ring reduce-scatter + ring allgather of p chunks (Patarasuk & Yuan 2009; Open MPI ring)",
            AllreduceSegmentedRing => "ring with segmented chunks, each reduction overlapping the next segment (Open MPI ring_segmented)",
            AllreduceRabenseifner => "recursive-halving reduce-scatter + recursive-doubling allgather (Rabenseifner 2004; Thakur et al. 2005 §4.4)",
            AllgatherLinear => "gather to the root then linear bcast of all p blocks (Open MPI basic_linear)",
            AllgatherBruck => "Bruck: ⌈log_k p⌉ rounds, k−1 messages each (Bruck et al. 1997; Thakur et al. 2005 §4.1)",
            AllgatherRecursiveDoubling => "log2 p exchanges of doubling blocks, p a power of two (Thakur et al. 2005 §4.1)",
            AllgatherRing => "p−1 steps around the ring (Thakur et al. 2005 §4.1)",
            AllgatherNeighborExchange => "p/2 exchanges with alternating neighbours, p even (Chen et al. 2005)",
        }
    }

    /// The named parameters it takes, in name order.
    pub fn parameters(self) -> &'static [&'static str] {
        use Kind::*;
        match self {
            BcastChain | ReduceChain => &["fanout", "segment"],
            BcastKnomial => &["radix", "segment"],
            BcastPipeline
            | BcastSplitBinary
            | BcastBinary
            | BcastBinomial
            | ReducePipeline
            | ReduceBinary
            | ReduceBinomial
            | ReduceInOrderBinary
            | AllreduceSegmentedRing => &["segment"],
            BarrierBruck | AllgatherBruck => &["radix"],
            _ => &[],
        }
    }
}

/// Every algorithm of the family on `model`.
pub fn all(model: &LogGp) -> Vec<Box<dyn Algorithm + '_>> {
    Kind::ALL
        .into_iter()
        .map(|kind| Box::new(LogGpAlgorithm { model, kind }) as Box<dyn Algorithm + '_>)
        .collect()
}

/// Largest fan-out the search offers for `chain`.
pub const MAX_SEARCH_FANOUT: u32 = 8;
/// Largest radix the search offers for `knomial` and `bruck`.
pub const MAX_SEARCH_RADIX: u32 = 16;
/// Smallest and largest segment the search offers (powers of two between them).
pub const SEARCH_SEGMENTS: (u32, u32) = (10, 20);
/// Largest radix or fan-out priced at all.
pub const MAX_RADIX: i64 = 1 << 20;

/// One algorithm on one machine.
#[derive(Debug, Clone, Copy)]
pub struct LogGpAlgorithm<'a> {
    /// The machine.
    pub model: &'a LogGp,
    /// Which algorithm.
    pub kind: Kind,
}

fn threads_error(p: u32, reason: impl Into<String>) -> ModelError {
    ModelError::Threads {
        threads: p.into(),
        reason: reason.into(),
    }
}

/// The checked values of the named parameters.
#[derive(Debug, Clone, Copy, Default)]
struct Knobs {
    segment: u64,
    fanout: u32,
    radix: u32,
}

/// A list of labelled terms that add up to a cost.
#[derive(Debug, Default)]
struct Terms(Vec<Term>);

impl Terms {
    fn add(&mut self, label: impl Into<String>, ns: f64) {
        self.0.push(Term {
            label: label.into(),
            min_ns: ns,
            max_ns: ns,
        });
    }

    fn total(&self) -> f64 {
        self.0.iter().map(|t| t.min_ns).sum()
    }
}

/// (segment size, number of segments) for an m-byte message and a `segment` parameter
/// (0 = not segmented).
fn segments(m: u64, segment: u64) -> (u64, u64) {
    if segment == 0 || segment >= m {
        (m, 1)
    } else {
        (segment, m.div_ceil(segment))
    }
}

/// The link kinds the pairs of one step use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kinds {
    intra: bool,
    inter: bool,
}

/// Which point-to-point model prices each message of one request.
///
/// On a one-level machine, or when all p ranks fit in one node of a two-level machine, one model
/// prices every message (`intra` is `None`; on a two-level machine `inter` is then the node's
/// model). Otherwise ranks r and s share a node when ⌊r/q⌋ = ⌊s/q⌋ (q ranks per node, ranks
/// numbered from the root), and a step of simultaneous exchanges takes the longest of the links
/// its pairs use.
struct Net<'a> {
    inter: &'a P2p,
    intra: Option<(&'a P2p, u32)>,
}

impl<'a> Net<'a> {
    fn new(model: &'a LogGp, p: u32) -> Self {
        match &model.node {
            Some(node) if p <= node.ranks_per_node => Net {
                inter: &node.p2p,
                intra: None,
            },
            Some(node) => Net {
                inter: &model.p2p,
                intra: Some((&node.p2p, node.ranks_per_node)),
            },
            None => Net {
                inter: &model.p2p,
                intra: None,
            },
        }
    }

    /// T(m) over the uniform link (between nodes on a multi-node request).
    fn t(&self, bytes: u64) -> f64 {
        self.inter.time(bytes)
    }

    fn link(&self, a: u32, b: u32) -> &'a P2p {
        match self.intra {
            Some((p2p, q)) if a / q == b / q => p2p,
            _ => self.inter,
        }
    }

    /// The kinds of link among `pairs`.
    fn kinds(&self, pairs: impl IntoIterator<Item = (u32, u32)>) -> Kinds {
        let Some((_, q)) = self.intra else {
            return Kinds {
                intra: false,
                inter: true,
            };
        };
        let mut k = Kinds {
            intra: false,
            inter: false,
        };
        for (a, b) in pairs {
            if a / q == b / q {
                k.intra = true;
            } else {
                k.inter = true;
            }
            if k.intra && k.inter {
                break;
            }
        }
        k
    }

    /// Pairs (r, r + d mod p) for every rank r, 1 ≤ d < p. On more than one node some pair
    /// always crosses nodes (a shift maps no node onto itself), and a pair inside a node exists
    /// exactly when d < q (ranks r and r + d of the first node).
    fn shift(&self, d: u32) -> Kinds {
        match self.intra {
            None => Kinds {
                intra: false,
                inter: true,
            },
            Some((_, q)) => Kinds {
                intra: d < q,
                inter: true,
            },
        }
    }

    /// Pairs (r, r xor d) for r < n.
    fn xor(&self, n: u32, d: u32) -> Kinds {
        self.kinds((0..n).map(|r| (r, r ^ d)).filter(|&(_, s)| s < n))
    }

    /// The longest T(m) over the kinds a step uses.
    fn step_t(&self, k: Kinds, bytes: u64) -> f64 {
        self.step(k, |l| l.time(bytes))
    }

    /// The longest G(m) over the kinds a step uses.
    fn step_g(&self, k: Kinds, bytes: u64) -> f64 {
        self.step(k, |l| l.gap(bytes))
    }

    fn step(&self, k: Kinds, f: impl Fn(&P2p) -> f64) -> f64 {
        let mut worst: f64 = 0.0;
        if k.inter {
            worst = worst.max(f(self.inter));
        }
        if let (true, Some((intra, _))) = (k.intra, self.intra) {
            worst = worst.max(f(intra));
        }
        worst
    }
}

impl LogGpAlgorithm<'_> {
    fn gamma(&self, bytes: u64) -> f64 {
        self.model.gamma * bytes as f64
    }

    fn knobs(&self, request: &Request, params: &Params) -> Result<Knobs, ModelError> {
        let expected = self.kind.parameters();
        let map: BTreeMap<String, i64> = match params {
            Params::None => BTreeMap::new(),
            Params::Named(map) => map.clone(),
            other => {
                return Err(ModelError::Parameter {
                    name: other.names().into_iter().next().unwrap_or_default(),
                    value: other.to_string(),
                    reason: format!(
                        "`{}` takes named parameters ({})",
                        self.kind.name(),
                        if expected.is_empty() {
                            "none".to_string()
                        } else {
                            expected.join(", ")
                        }
                    ),
                })
            }
        };
        if let Some((name, value)) = map.iter().find(|(k, _)| !expected.contains(&k.as_str())) {
            return Err(ModelError::Parameter {
                name: name.clone(),
                value: value.to_string(),
                reason: if expected.is_empty() {
                    format!("`{}` has no free parameter", self.kind.name())
                } else {
                    format!(
                        "`{}` has only the parameters {}",
                        self.kind.name(),
                        expected.join(", ")
                    )
                },
            });
        }
        let get = |name: &str| -> Result<i64, ModelError> {
            map.get(name)
                .copied()
                .ok_or_else(|| ModelError::MissingParameter {
                    algorithm: self.kind.name().into(),
                    name: name.into(),
                    example: format!("{name}=N; it takes {}", expected.join(", ")),
                })
        };
        let p = request.threads();
        let mut knobs = Knobs::default();
        for name in expected {
            let v = get(name)?;
            let bad = |reason: String| ModelError::Parameter {
                name: (*name).into(),
                value: v.to_string(),
                reason,
            };
            match *name {
                "segment" => {
                    if !(0..=MAX_SIZE_BYTES as i64).contains(&v) {
                        return Err(bad(format!(
                            "a segment is 0 (not segmented) or 1 ..= {MAX_SIZE_BYTES} bytes"
                        )));
                    }
                    knobs.segment = v as u64;
                }
                "fanout" => {
                    if v < 1 || v > i64::from(p - 1) {
                        return Err(bad(format!(
                            "the chains' fan-out is between 1 and p − 1 = {}",
                            p - 1
                        )));
                    }
                    knobs.fanout = v as u32;
                }
                _ => {
                    if !(2..=MAX_RADIX).contains(&v) {
                        return Err(bad(format!("the radix is between 2 and {MAX_RADIX}")));
                    }
                    knobs.radix = v as u32;
                }
            }
        }
        Ok(knobs)
    }

    /// One segment of `s` bytes through `shape` (first) and the pipeline period, for a broadcast
    /// or (`reduce`) a reduction. One model: the tree's profile (`tree.rs`); two levels on more
    /// than one node: every edge priced by its own link, rank by rank.
    fn tree_times(&self, net: &Net<'_>, shape: Shape, p: u32, s: u64, reduce: bool) -> (f64, f64) {
        let comb = if reduce { self.gamma(s) } else { 0.0 };
        let Some(_) = net.intra else {
            let l = net.inter;
            let prof = shape.profile(p);
            let g = l.gap(s) + comb;
            let first = prof.completion(l.time(s) + comb, g);
            let c = f64::from(prof.inner_children);
            let cpu = if prof.inner_children == 0 {
                0.0
            } else if reduce {
                c * (l.recv_overhead(s) + comb) + l.send_overhead(s)
            } else {
                c * l.send_overhead(s) + l.recv_overhead(s)
            };
            let period = (f64::from(prof.root_children) * g)
                .max(c * g)
                .max(cpu)
                .max(l.gap(s));
            return (first, period);
        };
        let edges = shape.edges(p);
        let n = p as usize;
        let mut arrival = vec![0.0f64; n];
        let mut up = vec![0u32; n];
        let mut first: f64 = 0.0;
        let mut period: f64 = 0.0;
        let mut i = 0;
        while i < edges.len() {
            let parent = edges[i].0;
            let start = arrival[parent as usize];
            let (mut sends, mut cpu) = (0.0, 0.0);
            if parent != 0 {
                let l = net.link(up[parent as usize], parent);
                cpu += if reduce {
                    l.send_overhead(s)
                } else {
                    l.recv_overhead(s)
                };
            }
            while i < edges.len() && edges[i].0 == parent {
                let child = edges[i].1;
                let l = net.link(parent, child);
                up[child as usize] = parent;
                let at = start + sends + l.time(s) + comb;
                arrival[child as usize] = at;
                first = first.max(at);
                sends += l.gap(s) + comb;
                cpu += comb
                    + if reduce {
                        l.recv_overhead(s)
                    } else {
                        l.send_overhead(s)
                    };
                period = period.max(l.gap(s));
                i += 1;
            }
            period = period.max(sends);
            if parent != 0 {
                period = period.max(cpu);
            }
        }
        (first, period)
    }

    /// A broadcast over `shape`, pipelined in segments (Pješivac-Grbović et al. 2007 §3).
    fn tree_bcast(
        &self,
        net: &Net<'_>,
        terms: &mut Terms,
        shape: Shape,
        p: u32,
        m: u64,
        segment: u64,
    ) {
        let (s, n) = segments(m, segment);
        let (first, period) = self.tree_times(net, shape, p, s, false);
        if n == 1 {
            terms.add(
                format!("one {s}-byte message down the tree: max over ranks of depth·T(m) + position·G(m)"),
                first,
            );
            return;
        }
        terms.add(
            format!("first of {n} segments of {s} B down the tree: max over ranks of depth·T(s) + position·G(s)"),
            first,
        );
        terms.add(
            format!(
                "{} more segments × period max(c_root·G(s), c·G(s), c·o_s(s) + o_r(s), G(s))",
                n - 1
            ),
            (n - 1) as f64 * period,
        );
    }

    /// A reduction over `shape`: the broadcast reversed, every message followed by combining it
    /// (T + γs, G + γs; Chan et al. 2007 §3), pipelined in segments.
    fn tree_reduce(
        &self,
        net: &Net<'_>,
        terms: &mut Terms,
        shape: Shape,
        p: u32,
        m: u64,
        segment: u64,
    ) {
        let (s, n) = segments(m, segment);
        let (first, period) = self.tree_times(net, shape, p, s, true);
        if n == 1 {
            terms.add(
                format!("one {s}-byte vector up the tree: max over ranks of depth·(T(m) + γm) + position·(G(m) + γm)"),
                first,
            );
            return;
        }
        terms.add(
            format!("first of {n} segments of {s} B up the tree: max over ranks of depth·(T(s) + γs) + position·(G(s) + γs)"),
            first,
        );
        terms.add(
            format!(
                "{} more segments × period max(c_root·(G(s) + γs), c·(G(s) + γs), c·(o_r(s) + γs) + o_s(s), G(s))",
                n - 1
            ),
            (n - 1) as f64 * period,
        );
    }

    /// Binomial scatter of an m-byte message in chunks of c = ⌈m/p⌉: in round r (1 ..= ⌈log2 p⌉)
    /// a rank v with the data sends the ⌈p/2^r⌉ chunks of its far half to v + 2^(⌈log2 p⌉−r)
    /// (Thakur et al. 2005 §4.2).
    fn scatter(&self, net: &Net<'_>, terms: &mut Terms, p: u32, m: u64) {
        let c = m.div_ceil(u64::from(p));
        let rounds = ceil_log2(p);
        let total: f64 = (1..=rounds)
            .map(|r| {
                let mask = 1u32 << (rounds - r);
                let pairs = (0..p)
                    .step_by(2 * mask as usize)
                    .filter(|v| v + mask < p)
                    .map(|v| (v, v + mask));
                net.step_t(net.kinds(pairs), u64::from(p).div_ceil(1 << r) * c)
            })
            .sum();
        terms.add(
            format!("binomial scatter: Σ_{{r=1..{rounds}}} T(⌈p/2^r⌉·c), c = {c} B"),
            total,
        );
    }

    fn power_of_two(&self, p: u32) -> Result<u32, ModelError> {
        if p.is_power_of_two() {
            Ok(p.ilog2())
        } else {
            Err(threads_error(
                p,
                format!(
                    "`{}` ({}) is modelled for a power-of-two number of ranks only",
                    self.kind.name(),
                    self.kind.collective()
                ),
            ))
        }
    }

    /// Folding p − p' extra ranks into p' = 2^⌊log2 p⌋ before a recursive algorithm: rank
    /// p' + i hands its vector to rank i, which combines it (T(m) + γm) (Thakur et al. 2005 §4.4;
    /// Rabenseifner 2004). Returns p'.
    fn fold_in(&self, net: &Net<'_>, terms: &mut Terms, p: u32, m: u64) -> u32 {
        let lower = 1u32 << p.ilog2();
        if lower != p {
            let k = net.kinds((lower..p).map(|r| (r - lower, r)));
            terms.add(
                format!(
                    "{} extra ranks hand their vectors to partners: T(m) + γm",
                    p - lower
                ),
                net.step_t(k, m) + self.gamma(m),
            );
        }
        lower
    }

    /// After an all-reduce on p' ranks, the partners hand the extra ranks the result: T(m).
    fn hand_back(&self, net: &Net<'_>, terms: &mut Terms, p: u32, m: u64) {
        if !p.is_power_of_two() {
            let lower = 1u32 << p.ilog2();
            let k = net.kinds((lower..p).map(|r| (r - lower, r)));
            terms.add(
                "partners return the result to the extra ranks: T(m)",
                net.step_t(k, m),
            );
        }
    }

    /// Recursive-halving reduce-scatter on p' ranks: in round r (1 ..= log2 p') partners at
    /// distance p'/2^r exchange halves: Σ_r (T(⌈m/2^r⌉) + γ⌈m/2^r⌉).
    fn halving(&self, net: &Net<'_>, terms: &mut Terms, lower: u32, m: u64) {
        let total: f64 = (1..=lower.ilog2())
            .map(|r| {
                let b = m.div_ceil(1 << r);
                net.step_t(net.xor(lower, lower >> r), b) + self.gamma(b)
            })
            .sum();
        terms.add(
            "recursive-halving reduce-scatter: Σ_r (T(⌈m/2^r⌉) + γ⌈m/2^r⌉)",
            total,
        );
    }

    /// Σ_{r=1..log2 p'} T(⌈m/2^r⌉), the piece of ⌈m/2^r⌉ bytes crossing distance p'/2^r: a
    /// recursive-doubling allgather (or binomial gather) of the halving's pieces.
    fn doubling(&self, net: &Net<'_>, terms: &mut Terms, lower: u32, m: u64, what: &str) {
        let total: f64 = (1..=lower.ilog2())
            .map(|r| net.step_t(net.xor(lower, lower >> r), m.div_ceil(1 << r)))
            .sum();
        terms.add(format!("{what}: Σ_r T(⌈m/2^r⌉)"), total);
    }

    fn terms(&self, request: &Request, params: &Params) -> Result<Terms, ModelError> {
        let knobs = self.knobs(request, params)?;
        let p = request.threads();
        let m = request.size_bytes();
        let net = Net::new(self.model, p);
        let n = &net;
        let mut terms = Terms::default();
        let t = &mut terms;
        // A ring step: every rank sends to its successor.
        let ring = n.shift(1);
        use Kind::*;
        match self.kind {
            BcastLinear => self.tree_bcast(n, t, Shape::Flat, p, m, 0),
            BcastChain => self.tree_bcast(
                n,
                t,
                Shape::Chain {
                    fanout: knobs.fanout,
                },
                p,
                m,
                knobs.segment,
            ),
            BcastPipeline => self.tree_bcast(n, t, Shape::Chain { fanout: 1 }, p, m, knobs.segment),
            BcastSplitBinary => {
                if p < 3 {
                    return Err(threads_error(
                        p,
                        "`split-binary` needs two subtrees below the root: at least 3 ranks",
                    ));
                }
                let half = m.div_ceil(2);
                self.tree_bcast(n, t, Shape::Binary, p, half, knobs.segment);
                // Partners in the two subtrees: on more than one node, priced across nodes.
                t.add(
                    "pairs of the two subtrees swap halves: T(⌈m/2⌉)",
                    n.step_t(n.shift(1), half),
                );
            }
            BcastBinary => self.tree_bcast(n, t, Shape::Binary, p, m, knobs.segment),
            BcastBinomial => {
                self.tree_bcast(n, t, Shape::Knomial { radix: 2 }, p, m, knobs.segment)
            }
            BcastKnomial => self.tree_bcast(
                n,
                t,
                Shape::Knomial { radix: knobs.radix },
                p,
                m,
                knobs.segment,
            ),
            BcastScatterRdAllgather => {
                let rounds = self.power_of_two(p)?;
                self.scatter(n, t, p, m);
                let c = m.div_ceil(u64::from(p));
                let total: f64 = (0..rounds)
                    .map(|i| n.step_t(n.xor(p, 1 << i), (1u64 << i) * c))
                    .sum();
                t.add("recursive-doubling allgather: Σ_{i<log2 p} T(2^i·c)", total);
            }
            BcastScatterRingAllgather => {
                self.scatter(n, t, p, m);
                let c = m.div_ceil(u64::from(p));
                t.add(
                    "ring allgather: (p−1)·T(c)",
                    f64::from(p - 1) * n.step_t(ring, c),
                );
            }
            BarrierLinear => {
                let (fan, _) = self.tree_times(n, Shape::Flat, p, 0, false);
                t.add("fan-in to the root: (p−2)·G(0) + T(0)", fan);
                t.add("fan-out from the root: (p−2)·G(0) + T(0)", fan);
            }
            BarrierDoubleRing => {
                // Edges r → r + 1 (mod p); on more than one node ⌈p/q⌉ of them cross nodes.
                let hops: f64 = match n.intra {
                    None => f64::from(p) * n.t(0),
                    Some((intra, q)) => {
                        let crossing = p.div_ceil(q);
                        f64::from(crossing) * n.t(0) + f64::from(p - crossing) * intra.time(0)
                    }
                };
                t.add(
                    "two rounds of the ring: 2 · Σ_edges T(0) (2p·T(0) on one link)",
                    2.0 * hops,
                );
            }
            BarrierRecursiveDoubling => {
                let lower = 1u32 << p.ilog2();
                let rounds: f64 = (0..lower.ilog2())
                    .map(|i| n.step_t(n.xor(lower, 1 << i), 0))
                    .sum();
                t.add(
                    format!("log2 p' = {} exchanges: log2 p'·T(0)", lower.ilog2()),
                    rounds,
                );
                if lower != p {
                    let k = n.kinds((lower..p).map(|r| (r - lower, r)));
                    t.add(
                        "extra ranks signal in and are released: 2·T(0)",
                        2.0 * n.step_t(k, 0),
                    );
                }
            }
            BarrierBruck => {
                // Round i signals the peers at distances j·k^i for the j < k with j·k^i < p:
                // n_i = min(k − 1, ⌈p/k^i⌉ − 1) messages, (n_i − 1)·G(0) + T(0).
                let k = u64::from(knobs.radix);
                let p64 = u64::from(p);
                let (mut total, mut rounds, mut w) = (0.0, 0u32, 1u64);
                while w < p64 {
                    let messages = (k - 1).min(p64.div_ceil(w) - 1);
                    for j in 1..=messages {
                        let kinds = n.shift((j * w) as u32);
                        total += if j < messages {
                            n.step_g(kinds, 0)
                        } else {
                            n.step_t(kinds, 0)
                        };
                    }
                    rounds += 1;
                    w = w.saturating_mul(k);
                }
                t.add(
                    format!("{rounds} round(s), round i: (n_i − 1)·G(0) + T(0), n_i = min(k − 1, ⌈p/k^i⌉ − 1)"),
                    total,
                );
            }
            BarrierTree => {
                let (fan, _) = self.tree_times(n, Shape::Knomial { radix: 2 }, p, 0, false);
                t.add("binomial fan-in of 0-byte messages", fan);
                t.add("binomial fan-out of 0-byte messages", fan);
            }
            ReduceLinear => self.tree_reduce(n, t, Shape::Flat, p, m, 0),
            ReduceChain => self.tree_reduce(
                n,
                t,
                Shape::Chain {
                    fanout: knobs.fanout,
                },
                p,
                m,
                knobs.segment,
            ),
            ReducePipeline => {
                self.tree_reduce(n, t, Shape::Chain { fanout: 1 }, p, m, knobs.segment)
            }
            ReduceBinary => self.tree_reduce(n, t, Shape::Binary, p, m, knobs.segment),
            ReduceBinomial => {
                self.tree_reduce(n, t, Shape::Knomial { radix: 2 }, p, m, knobs.segment)
            }
            ReduceInOrderBinary => {
                self.tree_reduce(n, t, Shape::Binary, p, m, knobs.segment);
                t.add(
                    "the result goes from rank p−1 (the in-order root) to the root: T(m)",
                    n.link(p - 1, 0).time(m),
                );
            }
            ReduceRabenseifner => {
                let lower = self.fold_in(n, t, p, m);
                self.halving(n, t, lower, m);
                self.doubling(n, t, lower, m, "binomial gather to the root");
            }
            AllreduceLinear => {
                self.tree_reduce(n, t, Shape::Flat, p, m, 0);
                self.tree_bcast(n, t, Shape::Flat, p, m, 0);
            }
            AllreduceNonoverlapping => {
                self.tree_reduce(n, t, Shape::Knomial { radix: 2 }, p, m, 0);
                self.tree_bcast(n, t, Shape::Knomial { radix: 2 }, p, m, 0);
            }
            AllreduceRecursiveDoubling => {
                let lower = self.fold_in(n, t, p, m);
                let total: f64 = (0..lower.ilog2())
                    .map(|i| n.step_t(n.xor(lower, 1 << i), m) + self.gamma(m))
                    .sum();
                t.add(
                    format!(
                        "log2 p' = {} exchanges of the vector: log2 p'·(T(m) + γm)",
                        lower.ilog2()
                    ),
                    total,
                );
                self.hand_back(n, t, p, m);
            }
            AllreduceRing => {
                let c = m.div_ceil(u64::from(p));
                t.add(
                    "ring reduce-scatter: (p−1)·(T(c) + γc)",
                    f64::from(p - 1) * (n.step_t(ring, c) + self.gamma(c)),
                );
                t.add(
                    "ring allgather: (p−1)·T(c)",
                    f64::from(p - 1) * n.step_t(ring, c),
                );
            }
            AllreduceSegmentedRing => {
                let c = m.div_ceil(u64::from(p));
                let (s, segs) = segments(c, knobs.segment);
                let step = n.step_t(ring, s)
                    + self.gamma(s)
                    + (segs - 1) as f64 * n.step_g(ring, s).max(self.gamma(s));
                t.add(
                    format!(
                        "ring reduce-scatter in {segs} segments of {s} B: (p−1)·(T(s) + γs + (n−1)·max(G(s), γs))"
                    ),
                    f64::from(p - 1) * step,
                );
                t.add(
                    "ring allgather: (p−1)·T(c)",
                    f64::from(p - 1) * n.step_t(ring, c),
                );
            }
            AllreduceRabenseifner => {
                let lower = self.fold_in(n, t, p, m);
                self.halving(n, t, lower, m);
                self.doubling(n, t, lower, m, "recursive-doubling allgather");
                self.hand_back(n, t, p, m);
            }
            AllgatherLinear => {
                // The gather is a linear broadcast run backwards (no combination).
                let (gather, _) = self.tree_times(n, Shape::Flat, p, m, false);
                t.add("gather to the root: (p−2)·G(m) + T(m)", gather);
                let all = m.saturating_mul(u64::from(p));
                let (bcast, _) = self.tree_times(n, Shape::Flat, p, all, false);
                t.add("linear bcast of p·m bytes: (p−2)·G(pm) + T(pm)", bcast);
            }
            AllgatherBruck => {
                let k = u64::from(knobs.radix);
                let p64 = u64::from(p);
                let mut total = 0.0;
                let mut rounds = 0;
                let mut w: u64 = 1;
                while w < p64 {
                    // Round with distance w: messages j = 1.. with j·w < p, each of
                    // min(w, p − j·w) blocks.
                    let messages: Vec<(u64, u64)> = (1..k)
                        .take_while(|j| j.saturating_mul(w) < p64)
                        .map(|j| (j * w, w.min(p64 - j * w).saturating_mul(m)))
                        .collect();
                    if let Some((&(d, last), rest)) = messages.split_last() {
                        total += rest
                            .iter()
                            .map(|&(d, b)| n.step_g(n.shift(d as u32), b))
                            .sum::<f64>()
                            + n.step_t(n.shift(d as u32), last);
                    }
                    rounds += 1;
                    w = w.saturating_mul(k);
                }
                t.add(
                    format!(
                        "{rounds} round(s), each Σ G(b_j·m) over its first messages + T(b_last·m), b_j = min(k^i, p − j·k^i) blocks"
                    ),
                    total,
                );
            }
            AllgatherRecursiveDoubling => {
                let rounds = self.power_of_two(p)?;
                let total: f64 = (0..rounds)
                    .map(|i| n.step_t(n.xor(p, 1 << i), (1u64 << i).saturating_mul(m)))
                    .sum();
                t.add("Σ_{i<log2 p} T(2^i·m)", total);
            }
            AllgatherRing => {
                t.add("(p−1)·T(m)", f64::from(p - 1) * n.step_t(ring, m));
            }
            AllgatherNeighborExchange => {
                if !p.is_multiple_of(2) {
                    return Err(threads_error(
                        p,
                        "`neighbor-exchange` pairs ranks: it needs an even number of ranks",
                    ));
                }
                // Steps alternate between the pairs (2i, 2i+1) and (2i+1, 2i+2 mod p).
                let even = n.kinds((0..p / 2).map(|i| (2 * i, 2 * i + 1)));
                let odd = n.kinds((0..p / 2).map(|i| (2 * i + 1, (2 * i + 2) % p)));
                t.add("first exchange: T(m)", n.step_t(even, m));
                let rest: f64 = (1..p / 2)
                    .map(|step| {
                        let k = if step % 2 == 1 { odd } else { even };
                        n.step_t(k, m.saturating_mul(2))
                    })
                    .sum();
                t.add("p/2 − 1 exchanges of two blocks: (p/2 − 1)·T(2m)", rest);
            }
        }
        Ok(terms)
    }

    fn values(&self, request: &Request) -> Vec<ValueList> {
        let p = request.threads();
        let m = request.size_bytes();
        self.kind
            .parameters()
            .iter()
            .map(|name| match *name {
                "segment" => {
                    let mut v = vec![0];
                    v.extend(
                        (SEARCH_SEGMENTS.0..=SEARCH_SEGMENTS.1)
                            .map(|e| 1i64 << e)
                            .filter(|&s| (s as u64) < m),
                    );
                    ValueList::new("segment", v)
                }
                "fanout" => ValueList::new(
                    "fanout",
                    (1..=i64::from((p - 1).min(MAX_SEARCH_FANOUT))).collect(),
                ),
                _ => ValueList::new(
                    "radix",
                    (2..=i64::from(p.clamp(2, MAX_SEARCH_RADIX))).collect(),
                ),
            })
            .collect()
    }
}

impl Algorithm for LogGpAlgorithm<'_> {
    fn name(&self) -> &'static str {
        self.kind.name()
    }

    fn collective(&self) -> Collective {
        self.kind.collective()
    }

    fn summary(&self) -> &'static str {
        self.kind.summary()
    }

    fn space(&self, request: &Request, _options: &SpaceOptions) -> Result<Space, ModelError> {
        if request.collective() != self.kind.collective() {
            return Err(ModelError::WrongParams {
                algorithm: self.kind.name().into(),
                expected: format!("a {} request", self.kind.collective()),
                got: request.collective().to_string(),
            });
        }
        if self.kind.parameters().is_empty() {
            Ok(Space::Fixed)
        } else {
            Ok(Space::Values(self.values(request)))
        }
    }

    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        let ns = self.terms(request, params)?.total();
        Ok(Cost::exact(ns))
    }

    fn breakdown(&self, request: &Request, params: &Params) -> Result<Vec<Term>, ModelError> {
        Ok(self.terms(request, params)?.0)
    }
}
