//! Open MPI coll/tuned dynamic rules: the classic text file (4.x, 5.x), its `rule-file-version-2`
//! form (5.0.7+), and the JSON rules of Open MPI 6.
//!
//! How Open MPI reads them (sources in open-mpi/ompi):
//! - classic, 4.1.x and 5.0.x (`ompi/mca/coll/tuned/coll_tuned_dynamic_file.c`,
//!   `coll_tuned_dynamic_rules.c`, `ompi_coll_tuned_get_com_rule_ptr` and
//!   `ompi_coll_tuned_get_target_method_params`): a communicator uses the rule with the LARGEST
//!   communicator size ≤ its size (the first rule when none is ≤), and a call the rule with the
//!   largest message size ≤ its size; the first message rule must be for size 0. Comments start
//!   with `#`. Each message rule is `size alg faninout segsize` (plus `reqs` in version 2).
//! - `rule-file-version-N` must be the first token (read by `fscanf` before any comment), so
//!   the version line precedes our comment header. Releases before 5.0.7 reject it.
//! - Open MPI 6 (`main` and `v6.0.x`) tries JSON first (`ompi_coll_tuned_read_rules_json`): keys
//!   `collectives`, `comm_size_min`, `comm_size_max`, `rules`, `msg_size_min`, `msg_size_max`,
//!   `alg` (name or number), `faninout`, `seg_size`, `reqs`; other keys are ignored, so the header
//!   goes in a `comment` key. First match wins, both bounds inclusive.
//! - Open MPI 6's classic reader turns each communicator key into the range
//!   `[previous key, key − 1]` (`mpi_comsize_max = COMSIZE - 1`), not "largest ≤": a classic file
//!   with several communicator sizes means something else there. Use `ompi-json` for Open MPI 6.
//!
//! The message size Open MPI compares is the collective's total for allgather
//! (`datatype size × comm size × count`, see `docs/tuning-apps/collectives/tuned.rst`), while the
//! model's size is per process: allgather thresholds are multiplied by the communicator rule's
//! smallest size (the grid point where the decision was computed).

use crate::ordered::Json;
use crate::{sorted_unique, Decision, DecisionTable, ExportError, Output, Provenance};
use modelopt_model::Collective;

/// How a target algorithm takes the model's `radix` parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Radix {
    /// The algorithm has no radix.
    None,
    /// The algorithm is radix 2 by construction; another value cannot be set.
    FixedTwo,
    /// One value for the whole run from this MCA parameter: not settable per rule.
    Global(&'static str),
    /// From the rule's `faninout` field (Open MPI 6 only).
    Faninout,
}

/// One row of the mapping: a model algorithm and its Open MPI coll/tuned equivalent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OmpiAlgorithm {
    /// Collective.
    pub collective: Collective,
    /// The model's algorithm name.
    pub ours: &'static str,
    /// Open MPI's algorithm id (the `coll_tuned_<coll>_algorithm` value).
    pub id: u32,
    /// Its name in Open MPI 4.1/5.0.
    pub name: &'static str,
    /// Its name in Open MPI 6 (`main`), which the JSON reader checks.
    pub name_v6: &'static str,
    /// Whether the rule's segment size is used.
    pub segment: bool,
    /// Whether the rule's fan-in/out is used as the model's `fanout`.
    pub fanout: bool,
    /// How the radix is set.
    pub radix: Radix,
    /// Radix handling in Open MPI 6, when it differs.
    pub radix_v6: Radix,
    /// The source file the id and name come from.
    pub source: &'static str,
}

const BCAST_SRC: &str = "ompi/mca/coll/tuned/coll_tuned_bcast_decision.c (bcast_algorithms[], ompi_coll_tuned_bcast_intra_do_this)";
const BARRIER_SRC: &str = "ompi/mca/coll/tuned/coll_tuned_barrier_decision.c (barrier_algorithms[], ompi_coll_tuned_barrier_intra_do_this)";
const REDUCE_SRC: &str = "ompi/mca/coll/tuned/coll_tuned_reduce_decision.c (reduce_algorithms[], ompi_coll_tuned_reduce_intra_do_this)";
const ALLREDUCE_SRC: &str = "ompi/mca/coll/tuned/coll_tuned_allreduce_decision.c (allreduce_algorithms[], ompi_coll_tuned_allreduce_intra_do_this)";
const ALLGATHER_SRC: &str = "ompi/mca/coll/tuned/coll_tuned_allgather_decision.c (allgather_algorithms[], ompi_coll_tuned_allgather_intra_do_this)";

// Eight fields of one table row; a builder would hide the table's shape.
#[allow(clippy::too_many_arguments)]
const fn row(
    collective: Collective,
    ours: &'static str,
    id: u32,
    name: &'static str,
    segment: bool,
    fanout: bool,
    radix: Radix,
    source: &'static str,
) -> OmpiAlgorithm {
    OmpiAlgorithm {
        collective,
        ours,
        id,
        name,
        name_v6: name,
        segment,
        fanout,
        radix,
        radix_v6: radix,
        source,
    }
}

use Collective::{Allgather, Allreduce, Barrier, Bcast, Reduce};

/// The model's algorithms and their Open MPI coll/tuned ids, one row per algorithm, each citing
/// its source (ids are the same in v4.1.4, v5.0.x and main for these rows).
pub const OMPI_ALGORITHMS: &[OmpiAlgorithm] = &[
    row(
        Bcast,
        "linear",
        1,
        "basic_linear",
        false,
        false,
        Radix::None,
        BCAST_SRC,
    ),
    row(
        Bcast,
        "chain",
        2,
        "chain",
        true,
        true,
        Radix::None,
        BCAST_SRC,
    ),
    row(
        Bcast,
        "pipeline",
        3,
        "pipeline",
        true,
        false,
        Radix::None,
        BCAST_SRC,
    ),
    row(
        Bcast,
        "split-binary",
        4,
        "split_binary_tree",
        true,
        false,
        Radix::None,
        BCAST_SRC,
    ),
    row(
        Bcast,
        "binary",
        5,
        "binary_tree",
        true,
        false,
        Radix::None,
        BCAST_SRC,
    ),
    row(
        Bcast,
        "binomial",
        6,
        "binomial",
        true,
        false,
        Radix::None,
        BCAST_SRC,
    ),
    row(
        Bcast,
        "knomial",
        7,
        "knomial",
        true,
        false,
        Radix::Global("coll_tuned_bcast_knomial_radix"),
        BCAST_SRC,
    ),
    row(
        Bcast,
        "scatter-rd-allgather",
        8,
        "scatter_allgather",
        true,
        false,
        Radix::None,
        BCAST_SRC,
    ),
    row(
        Bcast,
        "scatter-ring-allgather",
        9,
        "scatter_allgather_ring",
        true,
        false,
        Radix::None,
        BCAST_SRC,
    ),
    row(
        Barrier,
        "linear",
        1,
        "linear",
        false,
        false,
        Radix::None,
        BARRIER_SRC,
    ),
    row(
        Barrier,
        "double-ring",
        2,
        "double_ring",
        false,
        false,
        Radix::None,
        BARRIER_SRC,
    ),
    row(
        Barrier,
        "recursive-doubling",
        3,
        "recursive_doubling",
        false,
        false,
        Radix::None,
        BARRIER_SRC,
    ),
    row(
        Barrier,
        "bruck",
        4,
        "bruck",
        false,
        false,
        Radix::FixedTwo,
        BARRIER_SRC,
    ),
    row(
        Barrier,
        "tree",
        6,
        "tree",
        false,
        false,
        Radix::None,
        BARRIER_SRC,
    ),
    row(
        Reduce,
        "linear",
        1,
        "linear",
        false,
        false,
        Radix::None,
        REDUCE_SRC,
    ),
    row(
        Reduce,
        "chain",
        2,
        "chain",
        true,
        true,
        Radix::None,
        REDUCE_SRC,
    ),
    row(
        Reduce,
        "pipeline",
        3,
        "pipeline",
        true,
        false,
        Radix::None,
        REDUCE_SRC,
    ),
    row(
        Reduce,
        "binary",
        4,
        "binary",
        true,
        false,
        Radix::None,
        REDUCE_SRC,
    ),
    row(
        Reduce,
        "binomial",
        5,
        "binomial",
        true,
        false,
        Radix::None,
        REDUCE_SRC,
    ),
    row(
        Reduce,
        "in-order-binary",
        6,
        "in-order_binary",
        true,
        false,
        Radix::None,
        REDUCE_SRC,
    ),
    row(
        Reduce,
        "rabenseifner",
        7,
        "rabenseifner",
        false,
        false,
        Radix::None,
        REDUCE_SRC,
    ),
    row(
        Allreduce,
        "linear",
        1,
        "basic_linear",
        false,
        false,
        Radix::None,
        ALLREDUCE_SRC,
    ),
    row(
        Allreduce,
        "nonoverlapping",
        2,
        "nonoverlapping",
        false,
        false,
        Radix::None,
        ALLREDUCE_SRC,
    ),
    row(
        Allreduce,
        "recursive-doubling",
        3,
        "recursive_doubling",
        false,
        false,
        Radix::None,
        ALLREDUCE_SRC,
    ),
    row(
        Allreduce,
        "ring",
        4,
        "ring",
        false,
        false,
        Radix::None,
        ALLREDUCE_SRC,
    ),
    row(
        Allreduce,
        "segmented-ring",
        5,
        "segmented_ring",
        true,
        false,
        Radix::None,
        ALLREDUCE_SRC,
    ),
    row(
        Allreduce,
        "rabenseifner",
        6,
        "rabenseifner",
        false,
        false,
        Radix::None,
        ALLREDUCE_SRC,
    ),
    row(
        Allgather,
        "linear",
        1,
        "linear",
        false,
        false,
        Radix::None,
        ALLGATHER_SRC,
    ),
    // 4.1/5.0 call ompi_coll_base_allgather_intra_bruck (radix 2); main calls
    // ompi_coll_base_allgather_intra_k_bruck(..., faninout) and names it "bruck-k-fanout".
    OmpiAlgorithm {
        collective: Allgather,
        ours: "bruck",
        id: 2,
        name: "bruck",
        name_v6: "bruck-k-fanout",
        segment: false,
        fanout: false,
        radix: Radix::FixedTwo,
        radix_v6: Radix::Faninout,
        source: ALLGATHER_SRC,
    },
    row(
        Allgather,
        "recursive-doubling",
        3,
        "recursive_doubling",
        false,
        false,
        Radix::None,
        ALLGATHER_SRC,
    ),
    row(
        Allgather,
        "ring",
        4,
        "ring",
        false,
        false,
        Radix::None,
        ALLGATHER_SRC,
    ),
    OmpiAlgorithm {
        collective: Allgather,
        ours: "neighbor-exchange",
        id: 5,
        name: "neighbor",
        name_v6: "neighbor",
        segment: false,
        fanout: false,
        radix: Radix::None,
        radix_v6: Radix::None,
        source: ALLGATHER_SRC,
    },
];

/// Open MPI's collective id (`COLLTYPE` in `ompi/mca/coll/base/coll_base_functions.h`) and the
/// name its JSON reader accepts (`mca_coll_base_name_to_colltype`).
pub fn collective_id(collective: Collective) -> Option<(u32, &'static str)> {
    match collective {
        Collective::Allgather => Some((0, "allgather")),
        Collective::Allreduce => Some((2, "allreduce")),
        Collective::Barrier => Some((6, "barrier")),
        Collective::Bcast => Some((7, "bcast")),
        Collective::Gather => Some((9, "gather")),
        Collective::Reduce => Some((11, "reduce")),
        Collective::Shift => None,
    }
}

/// The mapping row for a model algorithm.
pub fn lookup(collective: Collective, ours: &str) -> Option<&'static OmpiAlgorithm> {
    OMPI_ALGORITHMS
        .iter()
        .find(|r| r.collective == collective && r.ours == ours)
}

/// Whether the Open MPI targets can express a decision (for [`crate::fill`]).
pub fn accepts(collective: Collective, decision: &Decision) -> bool {
    lookup(collective, &decision.algorithm).is_some()
}

/// Which Open MPI format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    Classic,
    V2,
    Json,
}

impl Flavor {
    fn target(self) -> &'static str {
        match self {
            Flavor::Classic => "ompi-rules",
            Flavor::V2 => "ompi-rules-v2",
            Flavor::Json => "ompi-json",
        }
    }
}

/// One message rule, resolved.
struct Resolved {
    size: u64,
    size_max: Option<u64>,
    row: &'static OmpiAlgorithm,
    faninout: i64,
    segsize: i64,
}

fn resolve(
    flavor: Flavor,
    collective: Collective,
    ranks_min: u32,
    rule: &crate::SizeRule,
    warnings: &mut Vec<String>,
) -> Result<Resolved, ExportError> {
    let target = flavor.target();
    let decision = &rule.decision;
    let row = lookup(collective, &decision.algorithm).ok_or_else(|| ExportError::Unmapped {
        target,
        collective,
        algorithm: decision.algorithm.clone(),
        hint: String::new(),
    })?;
    let radix_rule = if flavor == Flavor::Json {
        row.radix_v6
    } else {
        row.radix
    };
    let mut faninout = 0;
    let mut segsize = 0;
    for (name, &value) in &decision.params {
        let unsettable = |why: &str| {
            format!(
                "{collective} {} {name}={value} is not settable per rule in {target}{why}",
                decision.algorithm
            )
        };
        match name.as_str() {
            "segment" if row.segment => segsize = value,
            "fanout" if row.fanout => faninout = value,
            "radix" => match radix_rule {
                Radix::Faninout => faninout = value,
                Radix::FixedTwo if value == 2 => {}
                Radix::FixedTwo => warnings.push(unsettable(" (Open MPI's algorithm is radix 2)")),
                Radix::Global(param) => warnings.push(unsettable(&format!(
                    " (one value for the whole run: --mca {param} {value})"
                ))),
                Radix::None => warnings.push(unsettable("")),
            },
            _ => warnings.push(unsettable("")),
        }
    }
    let scale = |size: u64| -> Result<u64, ExportError> {
        if collective == Collective::Allgather {
            size.checked_mul(u64::from(ranks_min))
                .ok_or_else(|| ExportError::Overflow {
                    target,
                    what: format!("allgather total size {size} B x {ranks_min} ranks"),
                })
        } else {
            Ok(size)
        }
    };
    let size_max = match rule.size_max {
        Some(m) => Some(scale(m.saturating_add(1))?.saturating_sub(1)),
        None => None,
    };
    // The readers take these as C ints and reject negatives.
    for (what, v) in [("faninout", faninout), ("segsize", segsize)] {
        if !(0..=i64::from(i32::MAX)).contains(&v) {
            return Err(ExportError::Overflow {
                target,
                what: format!("{collective} {} {what} {v}", decision.algorithm),
            });
        }
    }
    Ok(Resolved {
        size: scale(rule.size_min)?,
        size_max,
        row,
        faninout,
        segsize,
    })
}

fn check_collective(
    flavor: Flavor,
    collective: Collective,
) -> Result<(u32, &'static str), ExportError> {
    match collective {
        Collective::Bcast
        | Collective::Barrier
        | Collective::Reduce
        | Collective::Allreduce
        | Collective::Allgather => {
            collective_id(collective).ok_or(ExportError::UnsupportedCollective {
                target: flavor.target(),
                collective,
            })
        }
        _ => Err(ExportError::UnsupportedCollective {
            target: flavor.target(),
            collective,
        }),
    }
}

fn write_text(
    table: &DecisionTable,
    prov: &Provenance,
    flavor: Flavor,
) -> Result<Output, ExportError> {
    let mut warnings = Vec::new();
    let mut body = String::new();
    body.push_str(&format!(
        "{:<12} # number of collectives\n",
        table.collectives.len()
    ));
    for ct in &table.collectives {
        let (id, name) = check_collective(flavor, ct.collective)?;
        body.push_str(&format!("{id:<12} # collective id: {name}\n"));
        body.push_str(&format!("{:<12} # number of comm sizes\n", ct.comms.len()));
        for comm in &ct.comms {
            let upto = comm
                .ranks_max
                .map_or_else(|| "and above".to_string(), |m| format!("to {m}"));
            body.push_str(&format!(
                "{:<12} # comm size (used from {} {upto})\n",
                comm.ranks_min, comm.ranks_min
            ));
            body.push_str(&format!(
                "{:<12} # number of message sizes\n",
                comm.sizes.len()
            ));
            for rule in &comm.sizes {
                let r = resolve(flavor, ct.collective, comm.ranks_min, rule, &mut warnings)?;
                let mut line = format!("{} {} {} {}", r.size, r.row.id, r.faninout, r.segsize);
                if flavor == Flavor::V2 {
                    // reqs 0 = the component's default (coll_tuned_*_max_requests).
                    line.push_str(" 0");
                }
                body.push_str(&format!("{line:<32} # {}\n", r.row.name));
            }
        }
    }
    let warnings = sorted_unique(warnings);
    let mut text = String::new();
    if flavor == Flavor::V2 {
        text.push_str("rule-file-version-2\n");
    }
    for line in prov.lines() {
        text.push_str(&format!("# {line}\n"));
    }
    match flavor {
        Flavor::Classic => text.push_str(
            "# Open MPI coll/tuned classic dynamic rules (4.x, 5.x): a communicator uses the rule with the\n# largest comm size <= its size, a call the rule with the largest message size <= its size.\n# Columns: message-size algorithm faninout segsize.\n",
        ),
        Flavor::V2 => text.push_str(
            "# Open MPI coll/tuned rules, rule-file-version-2 (Open MPI >= 5.0.7): a communicator uses the\n# rule with the largest comm size <= its size, a call the largest message size <= its size.\n# Columns: message-size algorithm faninout segsize max-requests (0 = default).\n",
        ),
        Flavor::Json => {}
    }
    text.push_str("# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE\n");
    for note in &table.notes {
        text.push_str(&format!("# note: {note}\n"));
    }
    for w in &warnings {
        text.push_str(&format!("# warning: {w}\n"));
    }
    text.push_str(&body);
    Ok(Output { text, warnings })
}

/// The classic rules file (Open MPI 4.x and 5.x; no version line).
pub fn write_classic(table: &DecisionTable, prov: &Provenance) -> Result<Output, ExportError> {
    write_text(table, prov, Flavor::Classic)
}

/// The `rule-file-version-2` rules file (Open MPI ≥ 5.0.7), with a max-requests column of 0.
pub fn write_v2(table: &DecisionTable, prov: &Provenance) -> Result<Output, ExportError> {
    write_text(table, prov, Flavor::V2)
}

/// The JSON rules of Open MPI 6, with explicit inclusive ranges and algorithm names as Open MPI
/// 6 spells them. The header is in a top-level `comment` key (the reader only reads
/// `collectives`).
pub fn write_json(table: &DecisionTable, prov: &Provenance) -> Result<Output, ExportError> {
    let flavor = Flavor::Json;
    let mut warnings = Vec::new();
    let mut collectives = Vec::new();
    for ct in &table.collectives {
        let (_, name) = check_collective(flavor, ct.collective)?;
        let mut comm_rules = Vec::new();
        for comm in &ct.comms {
            let mut rules = Vec::new();
            for rule in &comm.sizes {
                let r = resolve(flavor, ct.collective, comm.ranks_min, rule, &mut warnings)?;
                let mut m = vec![("msg_size_min".to_string(), Json::Num(r.size))];
                if let Some(max) = r.size_max {
                    m.push(("msg_size_max".into(), Json::Num(max)));
                }
                m.push(("alg".into(), Json::Str(r.row.name_v6.into())));
                if r.faninout > 0 {
                    m.push(("faninout".into(), Json::Num(r.faninout.unsigned_abs())));
                }
                if r.segsize > 0 {
                    m.push(("seg_size".into(), Json::Num(r.segsize.unsigned_abs())));
                }
                rules.push(Json::Obj(m));
            }
            let mut c = vec![(
                "comm_size_min".to_string(),
                Json::Num(comm.ranks_min.into()),
            )];
            if let Some(max) = comm.ranks_max {
                c.push(("comm_size_max".into(), Json::Num(max.into())));
            }
            c.push(("rules".into(), Json::Arr(rules)));
            comm_rules.push(Json::Obj(c));
        }
        collectives.push((name.to_string(), Json::Arr(comm_rules)));
    }
    let warnings = sorted_unique(warnings);
    let mut comment: Vec<String> = prov.lines();
    comment.push("Open MPI 6 coll/tuned JSON rules; first match wins, bounds inclusive".into());
    comment.extend(table.notes.iter().map(|n| format!("note: {n}")));
    comment.extend(warnings.iter().map(|w| format!("warning: {w}")));
    let root = Json::obj(vec![
        (
            "comment",
            Json::Arr(comment.into_iter().map(Json::Str).collect()),
        ),
        ("rule_file_version", Json::Num(3)),
        ("module", Json::Str("tuned".into())),
        ("collectives", Json::Obj(collectives)),
    ]);
    Ok(Output {
        text: root.pretty(),
        warnings,
    })
}
