//! MPICH JSON collective selection (the "csel" tree read from
//! `MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`).
//!
//! How MPICH reads it (pmodels/mpich, `src/mpi/coll/src/csel.c`, `parse_json_tree`): every key is
//! a condition (`collective=bcast`, `comm_type=intra`, `comm_size<=N`, `avg_msg_size<=N`,
//! `total_msg_size<=N`, `comm_size=pow2`, `count<pow2`, `is_op_built_in=yes`, `...=any`) or a
//! leaf (`algorithm=NAME`, whose object holds its parameters such as `{"k=4": {}}`, see
//! `src/mpi/coll/src/csel_container.c`). Sibling keys are tried in file order, the first
//! matching wins; numbers go through `atoi` (so must fit a C `int`). An unknown key is
//! `MPIR_Assert(0)`, so the format has no room for a comment: the provenance is not in the file.
//! When no leaf matches, the collective's `MPIR_*_allcomm_auto` asserts a container was found:
//! every collective MPICH may select with must be covered. Collectives the model does not decide
//! are filled from [`MPICH_DEFAULTS`], MPICH's own choices.
//!
//! The message size MPICH compares is per process (`avg_msg_size`) for bcast, reduce and
//! allreduce, and the whole result (`total_msg_size`) for allgather, whose thresholds are
//! therefore the model's per-process size times the communicator rule's smallest size.

use crate::ordered::Json;
use crate::{sorted_unique, Decision, DecisionTable, ExportError, Output, Provenance};
use modelopt_model::Collective;

/// The MPICH release line a file is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MpichVersion {
    /// MPICH 4.0.x (Debian bookworm ships 4.0.2): no tree bcast, no k-parameterised blocking
    /// algorithms.
    V4_0,
    /// MPICH 4.1 and later: adds `MPIR_Bcast_intra_tree`/`pipelined_tree`,
    /// `MPIR_Barrier_intra_k_dissemination`, `MPIR_Allgather_intra_k_brucks`,
    /// `MPIR_Allreduce_intra_ring`, with `k=`, `tree_type=` and `chunk_size=` parameters.
    V4_1,
}

/// How a leaf's parameters are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// No parameters.
    Plain,
    /// `k=` from the model's `radix` (default 2 when the model gives none).
    K,
    /// `tree_type=<n>` (0 k-ary, 1 k-nomial; `src/mpi/coll/include/coll_types.h`) with `k=`
    /// from `radix`.
    Tree(u32),
    /// A fixed k-ary tree `tree_type=0`, `k=<n>`, with `chunk_size=` from `segment`.
    PipelinedKary(u32),
}

/// Preconditions MPICH's own defaults guard an algorithm with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// None.
    None,
    /// Only for built-in ops with `count ≥` the nearest power of two below the communicator
    /// size; otherwise the given algorithm (as in MPICH's `maint/tuning/coll/mpir/generic.json`).
    BuiltInOpCountPow2(&'static str),
}

/// One row of the mapping: a model algorithm and its MPICH container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MpichAlgorithm {
    /// Collective.
    pub collective: Collective,
    /// The model's algorithm name.
    pub ours: &'static str,
    /// MPICH's container name (`algorithm=` value).
    pub name: &'static str,
    /// First release line with it.
    pub since: MpichVersion,
    /// First release line without it (`None` = still there).
    pub until: Option<MpichVersion>,
    /// Parameters.
    pub leaf: Leaf,
    /// Precondition guard.
    pub guard: Guard,
    /// Whether the model's `radix` must be 2 (the algorithm has no radix to set).
    pub radix_two: bool,
    /// Source file.
    pub source: &'static str,
}

const CONTAINER_SRC: &str =
    "src/mpi/coll/src/csel_container.c (MPII_Create_container, parse_container_params)";

use Collective::{Allgather, Allreduce, Barrier, Bcast, Reduce};
use MpichVersion::{V4_0, V4_1};

const fn row(
    collective: Collective,
    ours: &'static str,
    name: &'static str,
    since: MpichVersion,
    leaf: Leaf,
) -> MpichAlgorithm {
    MpichAlgorithm {
        collective,
        ours,
        name,
        since,
        until: None,
        leaf,
        guard: Guard::None,
        radix_two: false,
        source: CONTAINER_SRC,
    }
}

/// The model's algorithms and their MPICH containers (v4.0.2 and v4.1 tags of
/// `src/mpi/coll/src/csel_container.c`). Model algorithms not listed have no MPICH equivalent:
/// bcast linear, chain, split-binary; barrier linear, double-ring, tree; reduce linear, chain,
/// pipeline, binary, in-order-binary; allreduce linear, nonoverlapping, segmented-ring;
/// allgather linear, neighbor-exchange.
pub const MPICH_ALGORITHMS: &[MpichAlgorithm] = &[
    row(
        Bcast,
        "binomial",
        "MPIR_Bcast_intra_binomial",
        V4_0,
        Leaf::Plain,
    ),
    row(
        Bcast,
        "scatter-rd-allgather",
        "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
        V4_0,
        Leaf::Plain,
    ),
    row(
        Bcast,
        "scatter-ring-allgather",
        "MPIR_Bcast_intra_scatter_ring_allgather",
        V4_0,
        Leaf::Plain,
    ),
    row(
        Bcast,
        "knomial",
        "MPIR_Bcast_intra_tree",
        V4_1,
        Leaf::Tree(1),
    ),
    row(
        Bcast,
        "binary",
        "MPIR_Bcast_intra_pipelined_tree",
        V4_1,
        Leaf::PipelinedKary(2),
    ),
    row(
        Bcast,
        "pipeline",
        "MPIR_Bcast_intra_pipelined_tree",
        V4_1,
        Leaf::PipelinedKary(1),
    ),
    MpichAlgorithm {
        // 4.1 replaced the radix-2 dissemination barrier by the k-ary one.
        radix_two: true,
        until: Some(V4_1),
        ..row(
            Barrier,
            "bruck",
            "MPIR_Barrier_intra_dissemination",
            V4_0,
            Leaf::Plain,
        )
    },
    row(
        Barrier,
        "bruck",
        "MPIR_Barrier_intra_k_dissemination",
        V4_1,
        Leaf::K,
    ),
    row(
        Barrier,
        "recursive-doubling",
        "MPIR_Barrier_intra_recexch",
        V4_1,
        Leaf::K,
    ),
    row(
        Reduce,
        "binomial",
        "MPIR_Reduce_intra_binomial",
        V4_0,
        Leaf::Plain,
    ),
    MpichAlgorithm {
        guard: Guard::BuiltInOpCountPow2("MPIR_Reduce_intra_binomial"),
        ..row(
            Reduce,
            "rabenseifner",
            "MPIR_Reduce_intra_reduce_scatter_gather",
            V4_0,
            Leaf::Plain,
        )
    },
    row(
        Allreduce,
        "recursive-doubling",
        "MPIR_Allreduce_intra_recursive_doubling",
        V4_0,
        Leaf::Plain,
    ),
    MpichAlgorithm {
        guard: Guard::BuiltInOpCountPow2("MPIR_Allreduce_intra_recursive_doubling"),
        ..row(
            Allreduce,
            "rabenseifner",
            "MPIR_Allreduce_intra_reduce_scatter_allgather",
            V4_0,
            Leaf::Plain,
        )
    },
    row(
        Allreduce,
        "ring",
        "MPIR_Allreduce_intra_ring",
        V4_1,
        Leaf::Plain,
    ),
    MpichAlgorithm {
        radix_two: true,
        ..row(
            Allgather,
            "bruck",
            "MPIR_Allgather_intra_brucks",
            V4_0,
            Leaf::Plain,
        )
    },
    row(
        Allgather,
        "recursive-doubling",
        "MPIR_Allgather_intra_recursive_doubling",
        V4_0,
        Leaf::Plain,
    ),
    row(
        Allgather,
        "ring",
        "MPIR_Allgather_intra_ring",
        V4_0,
        Leaf::Plain,
    ),
];

/// k-parameterised replacements from 4.1 on, when the model's radix is not 2.
const K_VARIANTS: &[(Collective, &str, &str)] =
    &[(Allgather, "bruck", "MPIR_Allgather_intra_k_brucks")];

/// MPICH's own choice for a collective the model does not decide: the intra-communicator
/// algorithm (and the one for an in-place send buffer where MPICH's default distinguishes it),
/// and the inter-communicator one (`None` = one algorithm for every communicator). Chosen from
/// the unconditional (`=any`) branches of MPICH v4.0.2 `maint/tuning/coll/mpir/generic.json`,
/// taking the branch valid for every op and buffer where that file branches on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MpichDefault {
    /// Collective name as MPICH's parser spells it (`collective=` value).
    pub collective: &'static str,
    /// Intra-communicator algorithm.
    pub intra: &'static str,
    /// Intra-communicator algorithm for `MPI_IN_PLACE` send buffers, where different.
    pub intra_inplace: Option<&'static str>,
    /// Inter-communicator algorithm.
    pub inter: Option<&'static str>,
}

/// MPICH ≥ 4.1 removed `MPIR_Barrier_intra_dissemination`; its default barrier is
/// `MPIR_Barrier_intra_k_dissemination` with `k=2` (`maint/tuning/coll/mpir/generic.json`, main).
const BARRIER_DEFAULT_41: (&str, &str) = ("MPIR_Barrier_intra_k_dissemination", "k=2");

const fn d(
    collective: &'static str,
    intra: &'static str,
    intra_inplace: Option<&'static str>,
    inter: Option<&'static str>,
) -> MpichDefault {
    MpichDefault {
        collective,
        intra,
        intra_inplace,
        inter,
    }
}

/// Every collective `src/mpi/coll/src/csel.c` (v4.0.2, `parse_json_tree`) accepts, with MPICH's
/// default for it. The five the model decides are here too and used when not asked for.
pub const MPICH_DEFAULTS: &[MpichDefault] = &[
    d(
        "allgather",
        "MPIR_Allgather_intra_ring",
        None,
        Some("MPIR_Allgather_inter_local_gather_remote_bcast"),
    ),
    d(
        "allgatherv",
        "MPIR_Allgatherv_intra_ring",
        None,
        Some("MPIR_Allgatherv_inter_remote_gather_local_bcast"),
    ),
    d(
        "allreduce",
        "MPIR_Allreduce_intra_recursive_doubling",
        None,
        Some("MPIR_Allreduce_inter_reduce_exchange_bcast"),
    ),
    d(
        "alltoall",
        "MPIR_Alltoall_intra_pairwise",
        Some("MPIR_Alltoall_intra_pairwise_sendrecv_replace"),
        Some("MPIR_Alltoall_inter_pairwise_exchange"),
    ),
    d(
        "alltoallv",
        "MPIR_Alltoallv_intra_scattered",
        Some("MPIR_Alltoallv_intra_pairwise_sendrecv_replace"),
        Some("MPIR_Alltoallv_inter_pairwise_exchange"),
    ),
    d(
        "alltoallw",
        "MPIR_Alltoallw_intra_scattered",
        Some("MPIR_Alltoallw_intra_pairwise_sendrecv_replace"),
        Some("MPIR_Alltoallw_inter_pairwise_exchange"),
    ),
    d(
        "barrier",
        "MPIR_Barrier_intra_dissemination",
        None,
        Some("MPIR_Barrier_inter_bcast"),
    ),
    d(
        "bcast",
        "MPIR_Bcast_intra_binomial",
        None,
        Some("MPIR_Bcast_inter_remote_send_local_bcast"),
    ),
    d("exscan", "MPIR_Exscan_intra_recursive_doubling", None, None),
    d(
        "gather",
        "MPIR_Gather_intra_binomial",
        None,
        Some("MPIR_Gather_inter_linear"),
    ),
    d("gatherv", "MPIR_Gatherv_allcomm_linear", None, None),
    d(
        "iallgather",
        "MPIR_Iallgather_intra_sched_ring",
        None,
        Some("MPIR_Iallgather_inter_sched_local_gather_remote_bcast"),
    ),
    d(
        "iallgatherv",
        "MPIR_Iallgatherv_intra_sched_ring",
        None,
        Some("MPIR_Iallgatherv_inter_sched_remote_gather_local_bcast"),
    ),
    d(
        "iallreduce",
        "MPIR_Iallreduce_intra_sched_recursive_doubling",
        None,
        Some("MPIR_Iallreduce_inter_sched_remote_reduce_local_bcast"),
    ),
    d(
        "ialltoall",
        "MPIR_Ialltoall_intra_sched_pairwise",
        Some("MPIR_Ialltoall_intra_sched_inplace"),
        Some("MPIR_Ialltoall_inter_sched_pairwise_exchange"),
    ),
    d(
        "ialltoallv",
        "MPIR_Ialltoallv_intra_sched_blocked",
        Some("MPIR_Ialltoallv_intra_sched_inplace"),
        Some("MPIR_Ialltoallv_inter_sched_pairwise_exchange"),
    ),
    d(
        "ialltoallw",
        "MPIR_Ialltoallw_intra_sched_blocked",
        Some("MPIR_Ialltoallw_intra_sched_inplace"),
        Some("MPIR_Ialltoallw_inter_sched_pairwise_exchange"),
    ),
    d(
        "ibarrier",
        "MPIR_Ibarrier_intra_sched_recursive_doubling",
        None,
        Some("MPIR_Ibarrier_inter_sched_bcast"),
    ),
    d(
        "ibcast",
        "MPIR_Ibcast_intra_sched_binomial",
        None,
        Some("MPIR_Ibcast_inter_sched_flat"),
    ),
    d(
        "iexscan",
        "MPIR_Iexscan_intra_sched_recursive_doubling",
        None,
        None,
    ),
    d(
        "igather",
        "MPIR_Igather_intra_sched_binomial",
        None,
        Some("MPIR_Igather_inter_sched_long"),
    ),
    d("igatherv", "MPIR_Igatherv_allcomm_sched_linear", None, None),
    d(
        "ineighbor_allgather",
        "MPIR_Ineighbor_allgather_allcomm_sched_linear",
        None,
        None,
    ),
    d(
        "ineighbor_allgatherv",
        "MPIR_Ineighbor_allgatherv_allcomm_sched_linear",
        None,
        None,
    ),
    d(
        "ineighbor_alltoall",
        "MPIR_Ineighbor_alltoall_allcomm_sched_linear",
        None,
        None,
    ),
    d(
        "ineighbor_alltoallv",
        "MPIR_Ineighbor_alltoallv_allcomm_sched_linear",
        None,
        None,
    ),
    d(
        "ineighbor_alltoallw",
        "MPIR_Ineighbor_alltoallw_allcomm_sched_linear",
        None,
        None,
    ),
    d(
        "ireduce",
        "MPIR_Ireduce_intra_sched_binomial",
        None,
        Some("MPIR_Ireduce_inter_sched_local_reduce_remote_send"),
    ),
    d(
        "ireduce_scatter",
        "MPIR_Ireduce_scatter_intra_sched_recursive_doubling",
        None,
        Some("MPIR_Ireduce_scatter_inter_sched_remote_reduce_local_scatterv"),
    ),
    d(
        "ireduce_scatter_block",
        "MPIR_Ireduce_scatter_block_intra_sched_recursive_doubling",
        None,
        Some("MPIR_Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv"),
    ),
    d(
        "iscan",
        "MPIR_Iscan_intra_sched_recursive_doubling",
        None,
        None,
    ),
    d(
        "iscatter",
        "MPIR_Iscatter_intra_sched_binomial",
        None,
        Some("MPIR_Iscatter_inter_sched_linear"),
    ),
    d(
        "iscatterv",
        "MPIR_Iscatterv_allcomm_sched_linear",
        None,
        None,
    ),
    d(
        "neighbor_allgather",
        "MPIR_Neighbor_allgather_allcomm_nb",
        None,
        None,
    ),
    d(
        "neighbor_allgatherv",
        "MPIR_Neighbor_allgatherv_allcomm_nb",
        None,
        None,
    ),
    d(
        "neighbor_alltoall",
        "MPIR_Neighbor_alltoall_allcomm_nb",
        None,
        None,
    ),
    d(
        "neighbor_alltoallv",
        "MPIR_Neighbor_alltoallv_allcomm_nb",
        None,
        None,
    ),
    d(
        "neighbor_alltoallw",
        "MPIR_Neighbor_alltoallw_allcomm_nb",
        None,
        None,
    ),
    d(
        "reduce",
        "MPIR_Reduce_intra_binomial",
        None,
        Some("MPIR_Reduce_inter_local_reduce_remote_send"),
    ),
    d(
        "reduce_scatter",
        "MPIR_Reduce_scatter_intra_recursive_doubling",
        None,
        Some("MPIR_Reduce_scatter_inter_remote_reduce_local_scatter"),
    ),
    d(
        "reduce_scatter_block",
        "MPIR_Reduce_scatter_block_intra_recursive_doubling",
        None,
        Some("MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter"),
    ),
    d("scan", "MPIR_Scan_intra_recursive_doubling", None, None),
    d(
        "scatter",
        "MPIR_Scatter_intra_binomial",
        None,
        Some("MPIR_Scatter_inter_linear"),
    ),
    d("scatterv", "MPIR_Scatterv_allcomm_linear", None, None),
];

/// The mapping row for a model algorithm, in a release line.
pub fn lookup(
    version: MpichVersion,
    collective: Collective,
    ours: &str,
) -> Option<&'static MpichAlgorithm> {
    MPICH_ALGORITHMS.iter().find(|r| {
        r.collective == collective
            && r.ours == ours
            && r.since <= version
            && r.until.is_none_or(|u| version < u)
    })
}

/// Whether `mpich-json` for `version` can express a decision (for [`crate::fill`]).
pub fn accepts(version: MpichVersion, collective: Collective, decision: &Decision) -> bool {
    let Some(row) = lookup(version, collective, &decision.algorithm) else {
        return false;
    };
    let radix = decision.params.get("radix").copied().unwrap_or(2);
    !row.radix_two
        || radix == 2
        || (version >= V4_1
            && K_VARIANTS
                .iter()
                .any(|(c, o, _)| *c == collective && *o == decision.algorithm))
}

const TARGET: &str = "mpich-json";

fn name_of(collective: Collective) -> Option<&'static str> {
    match collective {
        Collective::Bcast => Some("bcast"),
        Collective::Barrier => Some("barrier"),
        Collective::Reduce => Some("reduce"),
        Collective::Allreduce => Some("allreduce"),
        Collective::Allgather => Some("allgather"),
        _ => None,
    }
}

fn int_key(prefix: &str, value: u64) -> Result<String, ExportError> {
    if value > i32::MAX as u64 {
        return Err(ExportError::Overflow {
            target: TARGET,
            what: format!("`{prefix}{value}` (MPICH reads it with atoi)"),
        });
    }
    Ok(format!("{prefix}{value}"))
}

/// `prefix` and a value MPICH's `atoi` reads as a positive int.
fn positive_key(prefix: &str, value: i64) -> Result<String, ExportError> {
    match u64::try_from(value) {
        Ok(v) if v > 0 => int_key(prefix, v),
        _ => Err(ExportError::Overflow {
            target: TARGET,
            what: format!("`{prefix}{value}` (must be positive)"),
        }),
    }
}

/// `k=` for a radix of at least 2.
fn k_key(radix: i64) -> Result<String, ExportError> {
    if radix < 2 {
        return Err(ExportError::Overflow {
            target: TARGET,
            what: format!("radix {radix} (a k-ary algorithm needs k >= 2)"),
        });
    }
    positive_key("k=", radix)
}

fn leaf(
    version: MpichVersion,
    collective: Collective,
    decision: &Decision,
    warnings: &mut Vec<String>,
) -> Result<Json, ExportError> {
    let unmapped = |hint: &str| ExportError::Unmapped {
        target: TARGET,
        collective,
        algorithm: decision.algorithm.clone(),
        hint: hint.to_string(),
    };
    let row = lookup(version, collective, &decision.algorithm).ok_or_else(|| {
        let later = lookup(V4_1, collective, &decision.algorithm).is_some();
        unmapped(if later && version == V4_0 {
            "; it needs MPICH >= 4.1 (--mpich-version 4.1)"
        } else {
            ""
        })
    })?;
    let radix = decision.params.get("radix").copied();
    let mut name = row.name;
    let mut params: Vec<(String, Json)> = Vec::new();
    let mut used = vec!["radix"];
    if row.radix_two && radix.is_some_and(|k| k != 2) {
        match K_VARIANTS
            .iter()
            .find(|(c, o, _)| *c == collective && *o == decision.algorithm)
        {
            Some((_, _, k_name)) if version >= V4_1 => {
                name = k_name;
                params.push((k_key(radix.unwrap_or(2))?, Json::obj(vec![])));
            }
            _ => {
                return Err(unmapped(&format!(
                    "; radix {} needs MPICH >= 4.1 (radix 2 only in {})",
                    radix.unwrap_or(2),
                    row.name
                )))
            }
        }
    }
    match row.leaf {
        Leaf::Plain => {}
        Leaf::K => params.push((k_key(radix.unwrap_or(2))?, Json::obj(vec![]))),
        Leaf::Tree(tree_type) => {
            params.push((format!("tree_type={tree_type}"), Json::obj(vec![])));
            params.push((k_key(radix.unwrap_or(2))?, Json::obj(vec![])));
        }
        Leaf::PipelinedKary(k) => {
            params.push(("tree_type=0".into(), Json::obj(vec![])));
            params.push((format!("k={k}"), Json::obj(vec![])));
            if let Some(seg) = decision.params.get("segment") {
                params.push((positive_key("chunk_size=", *seg)?, Json::obj(vec![])));
            }
            used.push("segment");
        }
    }
    for (p, v) in &decision.params {
        if !used.contains(&p.as_str()) {
            warnings.push(format!(
                "{collective} {} {p}={v} is not settable in {TARGET} ({} takes no such parameter)",
                decision.algorithm, name
            ));
        }
    }
    let chosen = Json::Obj(vec![(format!("algorithm={name}"), Json::Obj(params))]);
    Ok(match row.guard {
        Guard::None => chosen,
        Guard::BuiltInOpCountPow2(safe) => {
            let safe_leaf = || Json::Obj(vec![(format!("algorithm={safe}"), Json::obj(vec![]))]);
            Json::obj(vec![
                ("is_op_built_in=no", safe_leaf()),
                (
                    "is_op_built_in=yes",
                    Json::obj(vec![("count<pow2", safe_leaf()), ("count=any", chosen)]),
                ),
            ])
        }
    })
}

fn default_tree(def: &MpichDefault, version: MpichVersion) -> Json {
    let alg = |name: &str| Json::Obj(vec![(format!("algorithm={name}"), Json::obj(vec![]))]);
    let intra = match def.intra_inplace {
        None if def.collective == "barrier" && version >= V4_1 => {
            let (name, k) = BARRIER_DEFAULT_41;
            Json::Obj(vec![(
                format!("algorithm={name}"),
                Json::Obj(vec![(k.to_string(), Json::obj(vec![]))]),
            )])
        }
        Some(inplace) => Json::obj(vec![
            ("is_sendbuf_inplace=yes", alg(inplace)),
            ("is_sendbuf_inplace=no", alg(def.intra)),
        ]),
        None => alg(def.intra),
    };
    match def.inter {
        Some(inter) => Json::obj(vec![
            ("comm_type=intra", intra),
            ("comm_type=inter", alg(inter)),
        ]),
        None => intra,
    }
}

/// The MPICH selection JSON for `version`: the model's decisions for the collectives in the
/// table, MPICH's defaults ([`MPICH_DEFAULTS`]) for every other collective (listed in the
/// returned warnings, since the file cannot carry a comment).
pub fn write(
    table: &DecisionTable,
    prov: &Provenance,
    version: MpichVersion,
) -> Result<Output, ExportError> {
    let _ = prov; // the format has no place for a comment (see the module docs)
    let mut warnings = Vec::new();
    let mut decided: Vec<(&str, Json)> = Vec::new();
    for ct in &table.collectives {
        let name = name_of(ct.collective).ok_or(ExportError::UnsupportedCollective {
            target: TARGET,
            collective: ct.collective,
        })?;
        let mut comms = Vec::new();
        for comm in &ct.comms {
            let comm_key = match comm.ranks_max {
                Some(max) => int_key("comm_size<=", max.into())?,
                None => "comm_size=any".to_string(),
            };
            let body = if ct.collective == Collective::Barrier {
                let rule = comm.sizes.first().ok_or(ExportError::Grid(
                    "a communicator rule without message-size rules".into(),
                ))?;
                leaf(version, ct.collective, &rule.decision, &mut warnings)?
            } else {
                let (prefix, any) = if ct.collective == Collective::Allgather {
                    ("total_msg_size<=", "total_msg_size=any")
                } else {
                    ("avg_msg_size<=", "avg_msg_size=any")
                };
                let mut sizes = Vec::new();
                for rule in &comm.sizes {
                    let key = match rule.size_max {
                        Some(max) if ct.collective == Collective::Allgather => {
                            let total = max
                                .checked_add(1)
                                .and_then(|n| n.checked_mul(u64::from(comm.ranks_min)))
                                .map_or(u64::MAX, |t| t.saturating_sub(1));
                            int_key(prefix, total)?
                        }
                        Some(max) => int_key(prefix, max)?,
                        None => any.to_string(),
                    };
                    sizes.push((
                        key,
                        leaf(version, ct.collective, &rule.decision, &mut warnings)?,
                    ));
                }
                Json::Obj(sizes)
            };
            comms.push((comm_key, body));
        }
        let inter = MPICH_DEFAULTS
            .iter()
            .find(|d| d.collective == name)
            .and_then(|d| d.inter);
        let tree = match inter {
            Some(inter) => Json::obj(vec![
                ("comm_type=intra", Json::Obj(comms)),
                (
                    "comm_type=inter",
                    Json::Obj(vec![(format!("algorithm={inter}"), Json::obj(vec![]))]),
                ),
            ]),
            None => Json::Obj(comms),
        };
        decided.push((name, tree));
    }
    let mut root = Vec::new();
    let mut defaulted = Vec::new();
    for def in MPICH_DEFAULTS {
        let key = format!("collective={}", def.collective);
        match decided.iter().position(|(n, _)| *n == def.collective) {
            Some(i) => root.push((key, decided[i].1.clone())),
            None => {
                defaulted.push(def.collective);
                root.push((key, default_tree(def, version)));
            }
        }
    }
    if !defaulted.is_empty() {
        warnings.push(format!(
            "the model decides no algorithm for {}: MPICH's defaults are written for them (MPICH asserts every collective finds a match)",
            defaulted.join(", ")
        ));
    }
    Ok(Output {
        text: Json::Obj(root).pretty(),
        warnings: sorted_unique(warnings),
    })
}
