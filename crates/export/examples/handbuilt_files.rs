//! Write the hand-built proof files that `scripts/mpi-check.sh` runs the real libraries with:
//! `cargo run -p modelopt-export --example handbuilt_files -- DIR`.
//!
//! - `default.rules` / `default.json`: a table whose decisions are the libraries' ordinary choices
//!   (binomial bcast, recursive-doubling barrier/allreduce, binomial reduce, ring allgather);
//! - `slow.rules`: bcast forced to a pipeline (Open MPI algorithm 3) of 1 KiB segments for every
//!   size, a distinctive (slow at 1 MiB: 1024 segments through 3 hops) choice whose effect the
//!   check measures; `linear.rules`: bcast forced to linear (algorithm 1);
//! - `binomial.rules`: the same table with binomial bcast, the comparison run.
//! - `slow-v2.rules` / `binomial-v2.rules`: the same two as `rule-file-version-2` (Open MPI
//!   ≥ 5.0.7 applies them; Open MPI 4.1 ignores the whole file);
//! - `default-4.1.json`: `default` with MPICH ≥ 4.1 names (`MPIR_Barrier_intra_recexch` `k=2`);
//! - `every-4.0.json` / `every-4.1.json`: every algorithm and parameter the MPICH writer can
//!   express for that version, one per message size, so the library's parser sees them all.
//! - `default-v2.rules`, `default-ompi6.json`, `default.ucc`: the other formats of `default`.

use modelopt_export::{
    merge_grid,
    mpich::{Leaf, MpichAlgorithm, MpichVersion, MPICH_ALGORITHMS},
    CollectiveTable, Decision, DecisionTable, Provenance, Target,
};
use modelopt_model::Collective;

fn table(bcast: Decision) -> DecisionTable {
    let ranks = [2, 4];
    let sizes = [0, 65_536];
    let two = |d: Decision| vec![vec![d.clone(), d.clone()], vec![d.clone(), d]];
    let one = |d: Decision| vec![vec![d.clone()], vec![d]];
    let coll = |collective, cells: Vec<Vec<Decision>>, sizes: &[u64]| CollectiveTable {
        collective,
        comms: merge_grid(&ranks, sizes, &cells).expect("a hand-built grid"),
    };
    DecisionTable {
        machine: "hand-built".into(),
        machine_file: "crates/export/examples/handbuilt_files.rs".into(),
        collectives: vec![
            coll(Collective::Bcast, two(bcast), &sizes),
            coll(
                Collective::Barrier,
                one(Decision::new("recursive-doubling", [])),
                &[0],
            ),
            coll(
                Collective::Reduce,
                two(Decision::new("binomial", [])),
                &sizes,
            ),
            coll(
                Collective::Allreduce,
                two(Decision::new("recursive-doubling", [])),
                &sizes,
            ),
            coll(
                Collective::Allgather,
                two(Decision::new("ring", [])),
                &sizes,
            ),
        ],
        notes: vec![],
    }
}

/// One collective whose message-size rules (at 2 ranks and above) walk through `decisions`, one
/// per size 0, 1, 2, ... bytes (barrier: one per communicator size 2, 3, 4, ...).
fn walk(collective: Collective, decisions: Vec<Decision>) -> CollectiveTable {
    let n = decisions.len();
    let comms = if collective == Collective::Barrier {
        let ranks: Vec<u32> = (2..).take(n).collect();
        let cells: Vec<Vec<Decision>> = decisions.into_iter().map(|d| vec![d]).collect();
        merge_grid(&ranks, &[0], &cells)
    } else {
        let sizes: Vec<u64> = (0..).take(n).collect();
        merge_grid(&[2], &sizes, &[decisions])
    };
    CollectiveTable {
        collective,
        comms: comms.expect("a hand-built grid"),
    }
}

/// Every algorithm (and parameter) the MPICH writer can express for `version`, so that the
/// library's parser sees each `algorithm=` name and each `k=`/`tree_type=`/`chunk_size=` key.
/// Built from the writer's own table (`MPICH_ALGORITHMS`), so a row added there is checked too:
/// one decision per row valid for `version`, with a radix of 3 where the row takes `k=` (so `k=3`
/// is written) and a segment where it takes `chunk_size=`; plus, from 4.1 on, a radix-3 allgather
/// bruck, which the writer maps to `MPIR_Allgather_intra_k_brucks`.
fn every_mpich(version: MpichVersion) -> DecisionTable {
    let collectives = [
        Collective::Bcast,
        Collective::Barrier,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Allgather,
    ];
    let valid =
        |row: &MpichAlgorithm| row.since <= version && row.until.is_none_or(|u| version < u);
    DecisionTable {
        machine: "hand-built (every MPICH algorithm)".into(),
        machine_file: "crates/export/examples/handbuilt_files.rs".into(),
        collectives: collectives
            .into_iter()
            .map(|collective| {
                let mut decisions: Vec<Decision> = MPICH_ALGORITHMS
                    .iter()
                    .filter(|row| row.collective == collective && valid(row))
                    .map(|row| match row.leaf {
                        Leaf::Plain => Decision::new(row.ours, []),
                        Leaf::K | Leaf::Tree(_) => Decision::new(row.ours, [("radix", 3)]),
                        Leaf::PipelinedKary(_) => Decision::new(row.ours, [("segment", 4096)]),
                    })
                    .collect();
                if collective == Collective::Allgather && version >= MpichVersion::V4_1 {
                    decisions.push(Decision::new("bruck", [("radix", 3)]));
                }
                walk(collective, decisions)
            })
            .collect(),
        notes: vec![],
    }
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let write = |name: &str, target: Target, t: &DecisionTable| {
        let prov = Provenance::new("handbuilt_files example", t, "2026-01-01T00:00:00Z");
        let out = target
            .write(t, &prov)
            .expect("hand-built tables are expressible");
        std::fs::write(format!("{dir}/{name}"), out.text).expect("writable output directory");
    };
    let default = table(Decision::new("binomial", []));
    write("default.rules", Target::OmpiRules, &default);
    write("binomial.rules", Target::OmpiRules, &default);
    write(
        "linear.rules",
        Target::OmpiRules,
        &table(Decision::new("linear", [])),
    );
    let slow = table(Decision::new("pipeline", [("segment", 1024)]));
    write("slow.rules", Target::OmpiRules, &slow);
    write("default-v2.rules", Target::OmpiRulesV2, &default);
    write("binomial-v2.rules", Target::OmpiRulesV2, &default);
    write("slow-v2.rules", Target::OmpiRulesV2, &slow);
    write("default-ompi6.json", Target::OmpiJson, &default);
    write("default.ucc", Target::UccTune, &default);
    // MPICH >= 4.1 names (the recursive-doubling barrier is MPIR_Barrier_intra_recexch k=2).
    write(
        "default-4.1.json",
        Target::MpichJson(MpichVersion::V4_1),
        &default,
    );
    write(
        "every-4.0.json",
        Target::MpichJson(MpichVersion::V4_0),
        &every_mpich(MpichVersion::V4_0),
    );
    write(
        "every-4.1.json",
        Target::MpichJson(MpichVersion::V4_1),
        &every_mpich(MpichVersion::V4_1),
    );
    // MPICH has no recursive-doubling barrier before 4.1: its dissemination barrier is the model's bruck.
    let mut mpich = default.clone();
    if let Some(b) = mpich
        .collectives
        .iter_mut()
        .find(|c| c.collective == Collective::Barrier)
    {
        for comm in &mut b.comms {
            for rule in &mut comm.sizes {
                rule.decision = Decision::new("bruck", []);
            }
        }
    }
    write(
        "default.json",
        Target::MpichJson(MpichVersion::V4_0),
        &mpich,
    );
}
