//! UCC `UCC_TL_UCP_TUNE` strings.
//!
//! Syntax (openucx/ucc `docs/user_guide.md`, parsed in `src/coll_score/ucc_coll_score.c`):
//! `#`-separated tokens `coll_type:msg_range:mem_type:team_size:score:alg`, each qualifier
//! optional; message ranges are half-open `start-end` (`ucc_coll_score.c` merges a range whose
//! `end` equals the next `start`), `inf` the largest; team sizes are inclusive `[a-b]`
//! (`team_size >= start && team_size <= end`); `@name` selects an algorithm of TL/UCP. The
//! k-nomial radices are per-library settings (`UCC_TL_UCP_BCAST_KN_RADIX`, ...; `tl_ucp.c`), not
//! settable per token. The output is a shell line, so the header goes in `#` comment lines.

use crate::{sorted_unique, Decision, DecisionTable, ExportError, Output, Provenance};
use modelopt_model::Collective;

/// One row of the mapping: a model algorithm and its TL/UCP equivalent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UccAlgorithm {
    /// Collective.
    pub collective: Collective,
    /// The model's algorithm name.
    pub ours: &'static str,
    /// TL/UCP algorithm name (`@name`).
    pub name: &'static str,
    /// The radix the TL/UCP algorithm must run with to be the model's algorithm, and the
    /// library-wide variable that sets it (`None` = no radix).
    pub radix: Option<(i64, &'static str)>,
    /// Source file.
    pub source: &'static str,
}

use Collective::{Allgather, Allreduce, Barrier, Bcast, Reduce};

const fn row(
    collective: Collective,
    ours: &'static str,
    name: &'static str,
    radix: Option<(i64, &'static str)>,
    source: &'static str,
) -> UccAlgorithm {
    UccAlgorithm {
        collective,
        ours,
        name,
        radix,
        source,
    }
}

/// The model's algorithms and their TL/UCP names. A radix of 0 means "the model's radix" (the
/// algorithm is k-nomial with a free k). Model algorithms not listed have no TL/UCP equivalent:
/// bcast linear, chain, pipeline, split-binary, binary, scatter-ring-allgather; barrier linear,
/// double-ring, bruck, tree; reduce linear, chain, pipeline, binary, in-order-binary; allreduce
/// linear, nonoverlapping, segmented-ring.
pub const UCC_ALGORITHMS: &[UccAlgorithm] = &[
    row(
        Bcast,
        "binomial",
        "knomial",
        Some((2, "UCC_TL_UCP_BCAST_KN_RADIX")),
        "src/components/tl/ucp/bcast/bcast.c (ucc_tl_ucp_bcast_algs)",
    ),
    row(
        Bcast,
        "knomial",
        "knomial",
        Some((0, "UCC_TL_UCP_BCAST_KN_RADIX")),
        "src/components/tl/ucp/bcast/bcast.c (ucc_tl_ucp_bcast_algs)",
    ),
    row(
        Bcast,
        "scatter-rd-allgather",
        "sag_knomial",
        Some((2, "UCC_TL_UCP_BCAST_KN_RADIX")),
        "src/components/tl/ucp/bcast/bcast.c (ucc_tl_ucp_bcast_algs)",
    ),
    row(
        Barrier,
        "recursive-doubling",
        "knomial",
        Some((2, "UCC_TL_UCP_BARRIER_KN_RADIX")),
        "src/components/tl/ucp/barrier/barrier.c (ucc_tl_ucp_barrier_algs)",
    ),
    row(
        Reduce,
        "binomial",
        "knomial",
        Some((2, "UCC_TL_UCP_KN_RADIX")),
        "src/components/tl/ucp/reduce/reduce.c (ucc_tl_ucp_reduce_algs)",
    ),
    row(
        Reduce,
        "rabenseifner",
        "srg",
        None,
        "src/components/tl/ucp/reduce/reduce.c (ucc_tl_ucp_reduce_algs)",
    ),
    row(
        Allreduce,
        "recursive-doubling",
        "knomial",
        Some((2, "UCC_TL_UCP_ALLREDUCE_KN_RADIX")),
        "src/components/tl/ucp/allreduce/allreduce.c (ucc_tl_ucp_allreduce_algs)",
    ),
    row(
        Allreduce,
        "rabenseifner",
        "sra_knomial",
        Some((2, "UCC_TL_UCP_ALLREDUCE_SRA_KN_RADIX")),
        "src/components/tl/ucp/allreduce/allreduce.c (ucc_tl_ucp_allreduce_algs)",
    ),
    row(
        Allreduce,
        "ring",
        "ring",
        None,
        "src/components/tl/ucp/allreduce/allreduce.c (ucc_tl_ucp_allreduce_algs)",
    ),
    row(
        Allgather,
        "linear",
        "linear",
        None,
        "src/components/tl/ucp/allgather/allgather.c (ucc_tl_ucp_allgather_algs)",
    ),
    row(
        Allgather,
        "bruck",
        "bruck",
        None,
        "src/components/tl/ucp/allgather/allgather.c (ucc_tl_ucp_allgather_algs)",
    ),
    row(
        Allgather,
        "recursive-doubling",
        "knomial",
        Some((2, "UCC_TL_UCP_ALLGATHER_KN_RADIX")),
        "src/components/tl/ucp/allgather/allgather.c (ucc_tl_ucp_allgather_algs)",
    ),
    row(
        Allgather,
        "ring",
        "ring",
        None,
        "src/components/tl/ucp/allgather/allgather.c (ucc_tl_ucp_allgather_algs)",
    ),
    row(
        Allgather,
        "neighbor-exchange",
        "neighbor",
        None,
        "src/components/tl/ucp/allgather/allgather.c (ucc_tl_ucp_allgather_algs)",
    ),
];

/// The mapping row for a model algorithm.
pub fn lookup(collective: Collective, ours: &str) -> Option<&'static UccAlgorithm> {
    UCC_ALGORITHMS
        .iter()
        .find(|r| r.collective == collective && r.ours == ours)
}

/// Whether `ucc-tune` can express a decision (for [`crate::fill`]).
pub fn accepts(collective: Collective, decision: &Decision) -> bool {
    lookup(collective, &decision.algorithm).is_some()
}

const TARGET: &str = "ucc-tune";

/// A size in UCC's notation (`4K`, `1M`, plain bytes otherwise).
fn size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
    for (unit, suffix) in UNITS {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{}{suffix}", bytes / unit);
        }
    }
    bytes.to_string()
}

/// `UCC_TL_UCP_TUNE=...` with `#` comment lines above it: the header, the radix each used
/// k-nomial algorithm needs (a library-wide variable), and the warnings.
pub fn write(table: &DecisionTable, prov: &Provenance) -> Result<Output, ExportError> {
    let mut warnings = Vec::new();
    let mut tokens = Vec::new();
    for ct in &table.collectives {
        let coll = match ct.collective {
            Bcast | Barrier | Reduce | Allreduce | Allgather => ct.collective.name(),
            _ => {
                return Err(ExportError::UnsupportedCollective {
                    target: TARGET,
                    collective: ct.collective,
                })
            }
        };
        for comm in &ct.comms {
            let team = match comm.ranks_max {
                Some(max) => format!("[{}-{max}]", comm.ranks_min),
                // UCC has no open-ended team range: i32::MAX stands for "and above".
                None => format!("[{}-{}]", comm.ranks_min, i32::MAX),
            };
            for rule in &comm.sizes {
                let decision = &rule.decision;
                let row = lookup(ct.collective, &decision.algorithm).ok_or_else(|| {
                    ExportError::Unmapped {
                        target: TARGET,
                        collective: ct.collective,
                        algorithm: decision.algorithm.clone(),
                        hint: String::new(),
                    }
                })?;
                for (p, &v) in &decision.params {
                    let needed = match (p.as_str(), row.radix) {
                        ("radix", Some((0, var))) => Some((v, var)),
                        ("radix", Some((k, _))) if k == v => None,
                        // TL/UCP bruck is the classic radix-2 Bruck allgather.
                        ("radix", None) if v == 2 && row.name == "bruck" => None,
                        _ => {
                            warnings.push(format!(
                                "{} {} {p}={v} is not settable per token in {TARGET}",
                                ct.collective, decision.algorithm
                            ));
                            None
                        }
                    };
                    if let Some((k, var)) = needed {
                        warnings.push(format!(
                            "{} {} radix {k} is not settable per token: set {var}={k} (one value for the whole run)",
                            ct.collective, decision.algorithm
                        ));
                    }
                }
                if let Some((k, var)) = row.radix.filter(|(k, _)| *k != 0) {
                    warnings.push(format!(
                        "{} {}: TL/UCP {} is the model's algorithm only with {var}={k}",
                        ct.collective, decision.algorithm, row.name
                    ));
                }
                let end = rule
                    .size_max
                    .map_or_else(|| "inf".to_string(), |m| size(m + 1));
                let range = if ct.collective == Barrier {
                    "0-inf".to_string()
                } else {
                    format!("{}-{end}", size(rule.size_min))
                };
                tokens.push(format!("{coll}:{range}:cpu:{team}:@{}", row.name));
            }
        }
    }
    let warnings = sorted_unique(warnings);
    let mut text = String::new();
    for line in prov.lines() {
        text.push_str(&format!("# {line}\n"));
    }
    for note in &table.notes {
        text.push_str(&format!("# note: {note}\n"));
    }
    for w in &warnings {
        text.push_str(&format!("# warning: {w}\n"));
    }
    text.push_str(&format!("UCC_TL_UCP_TUNE={}\n", tokens.join("#")));
    Ok(Output { text, warnings })
}
