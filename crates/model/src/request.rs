//! What is asked of a model: a collective, a thread count, a message size, a metric; and what a
//! model answers: a [`Cost`] for one choice of [`Params`].

use crate::error::ModelError;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Largest thread count any model accepts (2^20). Machines have their own, smaller hardware limit;
/// going beyond that is an extrapolation the caller must ask for explicitly.
pub const MAX_THREADS: u32 = 1 << 20;

/// Largest message size any model accepts (1 GiB).
pub const MAX_SIZE_BYTES: u64 = 1 << 30;

/// A collective operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Collective {
    /// One-to-all broadcast.
    Bcast,
    /// Barrier synchronization.
    Barrier,
    /// All-to-one reduction.
    Reduce,
    /// All-reduce.
    Allreduce,
    /// All-gather (concatenate-all).
    Allgather,
    /// Gather (concatenate-one).
    Gather,
    /// Cyclic shift (permutation by a fixed distance).
    Shift,
}

impl Collective {
    /// Every collective, in display order.
    pub const ALL: [Collective; 7] = [
        Collective::Bcast,
        Collective::Barrier,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Allgather,
        Collective::Gather,
        Collective::Shift,
    ];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Collective::Bcast => "bcast",
            Collective::Barrier => "barrier",
            Collective::Reduce => "reduce",
            Collective::Allreduce => "allreduce",
            Collective::Allgather => "allgather",
            Collective::Gather => "gather",
            Collective::Shift => "shift",
        }
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Collective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Collective::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "unknown collective `{s}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// What "best" means for a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Completion time of one operation (lower is better).
    #[default]
    Latency,
    /// Sustained bytes per second for a stream of large operations (higher is better).
    Throughput,
}

impl FromStr for Metric {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "latency" => Ok(Metric::Latency),
            "throughput" => Ok(Metric::Throughput),
            _ => Err(format!(
                "unknown metric `{s}` (expected latency or throughput)"
            )),
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Metric::Latency => "latency",
            Metric::Throughput => "throughput",
        })
    }
}

/// Coherence state of a cache line (MESI, plus F for MESIF).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
pub enum LineState {
    /// Modified.
    M,
    /// Exclusive.
    E,
    /// Shared.
    S,
    /// Invalid (the line is in memory).
    I,
    /// Forward (MESIF only).
    F,
}

impl FromStr for LineState {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "M" => Ok(LineState::M),
            "E" => Ok(LineState::E),
            "S" => Ok(LineState::S),
            "I" => Ok(LineState::I),
            "F" => Ok(LineState::F),
            _ => Err(format!(
                "unknown cache state `{s}` (expected M, E, S, I or F)"
            )),
        }
    }
}

impl fmt::Display for LineState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

/// Initial coherence states of the data buffers: sender (S_s) and receiver (S_r), as in the
/// multi-line and contention tables of seed 000 (Tables 3.1, 3.2).
///
/// Written `E` (both E, the paper's evaluation default), `I` (both I) or `E-I` (sender-receiver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct BufferStates {
    /// State of the sender's buffer.
    pub sender: LineState,
    /// State of the receiver's buffer.
    pub receiver: LineState,
}

impl Default for BufferStates {
    fn default() -> Self {
        BufferStates {
            sender: LineState::E,
            receiver: LineState::E,
        }
    }
}

impl FromStr for BufferStates {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Vec<&str> = s.split('-').collect();
        match parts.as_slice() {
            [one] => {
                let st: LineState = one.parse()?;
                Ok(BufferStates { sender: st, receiver: st })
            }
            [a, b] => Ok(BufferStates {
                sender: a.parse()?,
                receiver: b.parse()?,
            }),
            _ => Err(format!(
                "unknown state `{s}` (expected a state such as E or I, or a sender-receiver pair such as E-I)"
            )),
        }
    }
}

impl fmt::Display for BufferStates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.sender == self.receiver {
            write!(f, "{}", self.sender)
        } else {
            write!(f, "{}-{}", self.sender, self.receiver)
        }
    }
}

/// One question to a model: price a collective for this many threads and this message size.
///
/// Checked once, when it is built ([`Request::new`], [`Request::with_size`]): at least 2 and at
/// most [`MAX_THREADS`] threads, at most [`MAX_SIZE_BYTES`] bytes. The fields are private, so
/// every holder of a `Request` can trust those checks and none repeats them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request {
    collective: Collective,
    threads: u32,
    size_bytes: u64,
    state: BufferStates,
    metric: Metric,
}

impl Request {
    /// A latency request for one small item with buffers in E, checked for a sane thread count.
    pub fn new(collective: Collective, threads: u32) -> Result<Self, ModelError> {
        if threads < 2 {
            return Err(ModelError::Threads {
                threads: threads.into(),
                reason: "a collective needs at least 2 threads".into(),
            });
        }
        if threads > MAX_THREADS {
            return Err(ModelError::Threads {
                threads: threads.into(),
                reason: format!("modelopt models at most {MAX_THREADS} threads"),
            });
        }
        Ok(Request {
            collective,
            threads,
            size_bytes: 0,
            state: BufferStates::default(),
            metric: Metric::Latency,
        })
    }

    /// The same request with a message size.
    pub fn with_size(mut self, size_bytes: u64) -> Result<Self, ModelError> {
        if size_bytes > MAX_SIZE_BYTES {
            return Err(ModelError::SizeLimit {
                size_bytes,
                limit_bytes: MAX_SIZE_BYTES,
                what: "the largest message size modelopt models".into(),
            });
        }
        self.size_bytes = size_bytes;
        Ok(self)
    }

    /// The same request with other buffer states.
    pub fn with_state(mut self, state: BufferStates) -> Self {
        self.state = state;
        self
    }

    /// The same request with another metric.
    pub fn with_metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    /// The collective operation.
    pub fn collective(&self) -> Collective {
        self.collective
    }

    /// Number of participating threads (processes, SPEs, cores, ranks): at least 2.
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// Message size in bytes (per process where the collective gathers or reduces); 0 means
    /// "one small item" (a single cache line or flag) for the collectives that model that case.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// Initial buffer states (cache-coherent machines only).
    pub fn state(&self) -> BufferStates {
        self.state
    }

    /// What to optimize.
    pub fn metric(&self) -> Metric {
        self.metric
    }
}

/// The predicted cost of one configuration: the min-max range of its latency and, where the
/// model gives one, its throughput.
///
/// Models without a worst case report `max_ns == min_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cost {
    /// Best-case latency (the seeds' "min" model), in nanoseconds.
    pub min_ns: f64,
    /// Worst-case latency (the seeds' "max" model), in nanoseconds.
    pub max_ns: f64,
    /// Sustained throughput in bytes per second, for models that define one.
    pub throughput_bytes_per_s: Option<f64>,
}

impl Cost {
    /// A cost with a min-max range.
    pub fn range(min_ns: f64, max_ns: f64) -> Self {
        Cost {
            min_ns,
            max_ns,
            throughput_bytes_per_s: None,
        }
    }

    /// A cost with a single prediction (no worst case in the model).
    pub fn exact(ns: f64) -> Self {
        Cost::range(ns, ns)
    }

    /// The same cost with a throughput.
    pub fn with_throughput(mut self, bytes_per_s: f64) -> Self {
        self.throughput_bytes_per_s = Some(bytes_per_s);
        self
    }
}

/// The free parameters of one algorithm configuration.
///
/// Serialized as the `params` object of the JSON schema (see `docs/json-schema.md`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Params {
    /// No free parameter.
    None,
    /// A level-uniform tree: depth d and the number of children k_i of each node at level i-1
    /// (seed 000, Eqs. 4.3/4.4).
    Tree {
        /// Depth d.
        depth: u32,
        /// k_1 .. k_d.
        degrees: Vec<u32>,
    },
    /// A dissemination barrier: degree m (peers per round) and rounds r.
    Dissemination {
        /// Peers per round, m.
        degree: u32,
        /// Rounds, r.
        rounds: u32,
    },
    /// Named integer parameters (e.g. `k` of OC-BCAST, `x` and `y` of hybrid algorithms).
    Named(BTreeMap<String, i64>),
    /// A rooted tree of threads with the socket each thread runs on (seed 001 §4). Serialized as
    /// `{"parent": [-1, 0, 0, 1], "tree": "0(1(3),2)", "socket": [0, 0, 0, 0]}`: the parent array
    /// (−1 for the root), the nested form `--tree` reads, and the socket of every thread; plus
    /// `"domain": [...]` when the L3 domains are given.
    RootedTree {
        /// Parent of each thread (`None` for the root).
        parents: Vec<Option<u32>>,
        /// Socket of each thread.
        sockets: Vec<u32>,
        /// The L3 domain (within its socket) of each thread, or empty: then the threads of a
        /// socket take its cores in id order, domain by domain (the machine's placement). Set
        /// by a free split on a machine with L3 domains (`--placement optimal`), where the
        /// search chooses how many threads run on each domain.
        domains: Vec<u32>,
    },
}

impl Params {
    /// A [`Params::Named`] from pairs.
    pub fn named<const N: usize>(pairs: [(&str, i64); N]) -> Self {
        Params::Named(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// The value of a scalar parameter by name (`depth`, `degree`, `rounds`, or a named one),
    /// as used by `--fix NAME=VALUE`.
    pub fn get(&self, name: &str) -> Option<i64> {
        match (self, name) {
            (Params::Tree { depth, .. }, "depth" | "d") => Some((*depth).into()),
            (Params::Tree { degrees, .. }, key) => key
                .strip_prefix('k')
                .and_then(|i| i.parse::<usize>().ok())
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| degrees.get(i))
                .map(|&k| k.into()),
            (Params::Dissemination { degree, .. }, "degree" | "m") => Some((*degree).into()),
            (Params::Dissemination { rounds, .. }, "rounds" | "r") => Some((*rounds).into()),
            (Params::Named(map), key) => map.get(key).copied(),
            _ => None,
        }
    }

    /// The names of the scalar parameters [`Params::get`] answers for.
    pub fn names(&self) -> Vec<String> {
        match self {
            Params::None => vec![],
            Params::Tree { degrees, .. } => std::iter::once("depth".to_string())
                .chain((1..=degrees.len()).map(|i| format!("k{i}")))
                .collect(),
            Params::Dissemination { .. } => vec!["degree".into(), "rounds".into()],
            Params::Named(map) => map.keys().cloned().collect(),
            Params::RootedTree { .. } => vec![],
        }
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Params::None => f.write_str("-"),
            Params::Tree { depth, degrees } => {
                let ks: Vec<String> = degrees.iter().map(u32::to_string).collect();
                write!(f, "d={depth} k=({})", ks.join(","))
            }
            Params::Dissemination { degree, rounds } => write!(f, "m={degree} r={rounds}"),
            Params::Named(map) => {
                let parts: Vec<String> = map.iter().map(|(k, v)| format!("{k}={v}")).collect();
                f.write_str(&parts.join(" "))
            }
            Params::RootedTree {
                parents,
                sockets,
                domains,
            } => {
                match crate::tree::RootedTree::from_parents(parents) {
                    Ok(tree) => write!(f, "tree={tree}")?,
                    Err(_) => write!(f, "tree=(invalid) parents={parents:?}")?,
                }
                let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
                write!(f, " sockets={}", list(sockets))?;
                if !domains.is_empty() {
                    write!(f, " domains={}", list(domains))?;
                }
                Ok(())
            }
        }
    }
}

impl Serialize for Params {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        match self {
            Params::None => {}
            Params::Tree { depth, degrees } => {
                map.serialize_entry("depth", depth)?;
                map.serialize_entry("degrees", degrees)?;
            }
            Params::Dissemination { degree, rounds } => {
                map.serialize_entry("degree", degree)?;
                map.serialize_entry("rounds", rounds)?;
            }
            Params::Named(named) => {
                for (k, v) in named {
                    map.serialize_entry(k, v)?;
                }
            }
            Params::RootedTree {
                parents,
                sockets,
                domains,
            } => {
                let signed: Vec<i64> = parents.iter().map(|p| p.map_or(-1, i64::from)).collect();
                map.serialize_entry("parent", &signed)?;
                if let Ok(tree) = crate::tree::RootedTree::from_parents(parents) {
                    map.serialize_entry("tree", &tree.nested())?;
                }
                map.serialize_entry("socket", sockets)?;
                if !domains.is_empty() {
                    map.serialize_entry("domain", domains)?;
                }
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_parse() {
        assert_eq!(
            "E".parse::<BufferStates>().unwrap(),
            BufferStates::default()
        );
        let ei: BufferStates = "E-I".parse().unwrap();
        assert_eq!((ei.sender, ei.receiver), (LineState::E, LineState::I));
        assert!("X".parse::<BufferStates>().is_err());
        assert!("E-I-E".parse::<BufferStates>().is_err());
    }

    #[test]
    fn params_get_and_json() {
        let t = Params::Tree {
            depth: 2,
            degrees: vec![3, 2],
        };
        assert_eq!(t.get("depth"), Some(2));
        assert_eq!(t.get("k2"), Some(2));
        assert_eq!(t.get("k3"), None);
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"depth":2,"degrees":[3,2]}"#
        );
        let b = Params::Dissemination {
            degree: 4,
            rounds: 3,
        };
        assert_eq!(
            serde_json::to_string(&b).unwrap(),
            r#"{"degree":4,"rounds":3}"#
        );
        assert_eq!(serde_json::to_string(&Params::None).unwrap(), "{}");
    }

    #[test]
    fn thread_limits() {
        assert!(Request::new(Collective::Bcast, 1).is_err());
        assert!(Request::new(Collective::Bcast, MAX_THREADS + 1).is_err());
        assert!(Request::new(Collective::Bcast, 2).is_ok());
    }
}
