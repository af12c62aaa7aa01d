//! Write the hand-built proof files that `scripts/mpi-check.sh` runs the real libraries with:
//! `cargo run -p modelopt-export --example handbuilt_files -- DIR`.
//!
//! - `default.rules` / `default.json`: a table whose decisions are the libraries' ordinary choices
//!   (binomial bcast, recursive-doubling barrier/allreduce, binomial reduce, ring allgather);
//! - `slow.rules`: bcast forced to a pipeline (Open MPI algorithm 3) of 1 KiB segments for every
//!   size, a distinctive (slow at 1 MiB: 1024 segments through 3 hops) choice whose effect the
//!   check measures; `linear.rules`: bcast forced to linear (algorithm 1);
//! - `binomial.rules`: the same table with binomial bcast, the comparison run.
//! - `default-v2.rules`, `default-ompi6.json`, `default.ucc`: the other formats of `default`.

use modelopt_export::{
    merge_grid, mpich::MpichVersion, CollectiveTable, Decision, DecisionTable, Provenance, Target,
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
    write(
        "slow.rules",
        Target::OmpiRules,
        &table(Decision::new("pipeline", [("segment", 1024)])),
    );
    write("default-v2.rules", Target::OmpiRulesV2, &default);
    write("default-ompi6.json", Target::OmpiJson, &default);
    write("default.ucc", Target::UccTune, &default);
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
