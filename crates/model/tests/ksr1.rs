//! KSR-1 (seed 003): scenario tests through the bundled machine, laws as proptests, and bad
//! machine files.

mod common;
use common::{error_of, line_of};

use modelopt_model::ksr1::Ksr1;
use modelopt_model::machine::load;
use modelopt_model::{Algorithm, Collective, ModelError, Params, Request};
use proptest::prelude::*;

fn ksr_text() -> &'static str {
    common::bundled_text("ksr1")
}

fn request(collective: Collective, threads: u32, size: u64) -> Request {
    Request::new(collective, threads)
        .and_then(|r| r.with_size(size))
        .expect("valid request")
}

fn params_for(alg: &dyn Algorithm, distance: u32) -> Params {
    if alg.name() == "ring-shift" {
        Params::named([("distance", distance.into())])
    } else {
        Params::None
    }
}

/// The cheapest algorithm for a request, by latency.
fn best(collective: Collective, threads: u32, size: u64) -> (&'static str, f64) {
    let machine = load("ksr1").unwrap();
    let r = request(collective, threads, size);
    let algorithms = machine.algorithms_for(collective);
    let best = algorithms
        .iter()
        .map(|a| {
            (
                a.name(),
                a.cost(&r, &params_for(a.as_ref(), 1)).unwrap().min_ns,
            )
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    best
}

#[test]
fn bundled_ksr1_has_every_collective_of_section_5() {
    let machine = load("ksr1").unwrap();
    assert_eq!(machine.family, "ksr1");
    assert_eq!(machine.max_threads, 128);
    assert_eq!(
        machine.collectives(),
        [
            Collective::Bcast,
            Collective::Barrier,
            Collective::Reduce,
            Collective::Allgather,
            Collective::Gather,
            Collective::Shift
        ]
    );
    let names = |c| -> Vec<&str> { machine.algorithms_for(c).iter().map(|a| a.name()).collect() };
    assert_eq!(
        names(Collective::Gather),
        ["sequential-reads", "binary-tree"]
    );
    assert_eq!(
        names(Collective::Allgather),
        ["gather-bcast", "tree-gather-bcast", "cyclic-shifts"]
    );
    assert_eq!(
        names(Collective::Reduce),
        ["gather-op-bcast", "tree-gather-op-bcast"]
    );
    // The three documented estimates, and nothing else.
    let mut estimated: Vec<String> = machine
        .estimated_params()
        .into_iter()
        .map(|p| p.key)
        .collect();
    estimated.sort();
    assert_eq!(
        estimated,
        [
            "allgather.tree_gather_bcast.c7",
            "barrier.ring1",
            "reduce.operation"
        ]
    );
}

#[test]
fn broadcast_of_n_subpages_below_and_above_32_processors() {
    let machine = load("ksr1").unwrap();
    let bcast = &machine.algorithms_for(Collective::Bcast)[0];
    // Seed 003 §5.2, 40 subpages (5120 B):
    // 32 processors, one ring:0: C0 ≈ 0, C1 = 0.054: 0.054·40 = 2.16 ms.
    let c = bcast
        .cost(&request(Collective::Bcast, 32, 5120), &Params::None)
        .unwrap();
    assert!((c.min_ns - 2.16e6).abs() < 1e-3, "{}", c.min_ns);
    // 16 processors: the same ("independent of the number of processors used on ring:0").
    let c16 = bcast
        .cost(&request(Collective::Bcast, 16, 5120), &Params::None)
        .unwrap();
    assert_eq!(c16.min_ns, c.min_ns);
    // 33 processors reach across ring:1: 0.419 + 0.069·40 = 3.179 ms.
    let c = bcast
        .cost(&request(Collective::Bcast, 33, 5120), &Params::None)
        .unwrap();
    assert!((c.min_ns - 3.179e6).abs() < 1e-3, "{}", c.min_ns);
    // A partial subpage is a whole subpage: 5121 B is 41 subpages.
    let c = bcast
        .cost(&request(Collective::Bcast, 64, 5121), &Params::None)
        .unwrap();
    assert!((c.min_ns - (0.419 + 0.069 * 41.0) * 1e6).abs() < 1e-3);
}

#[test]
fn best_algorithms_for_64_threads_and_16_kib() {
    // Concatenate-all: algorithm 3 (cyclic shifts) wins, as in Fig. 10: 184.01 ms.
    let (name, ns) = best(Collective::Allgather, 64, 16384);
    assert_eq!(name, "cyclic-shifts");
    assert!((ns - 184.01e6).abs() < 1e-2);
    // Concatenate-one: the tree, 240.22 ms against 248.96 ms.
    assert_eq!(best(Collective::Gather, 64, 16384).0, "binary-tree");
    // Reduce: tree gather + operation + broadcast, 240.22 + 20.9664 + 9.251 = 270.4374 ms.
    let (name, ns) = best(Collective::Reduce, 64, 16384);
    assert_eq!(name, "tree-gather-op-bcast");
    assert!((ns - 270.4374e6).abs() < 1e-2);
    // With few processors and one subpage each the processor terms decide: 4 processors,
    // algorithm 1 = 0.2 + 0.12 = 0.32 ms, algorithm 2 = 0.884 + 0.116 = 1.0 ms.
    assert_eq!(best(Collective::Gather, 4, 128).0, "sequential-reads");
}

#[test]
fn table_3_distance_contention() {
    let machine = load("ksr1").unwrap();
    let model: &Ksr1 = machine.model().unwrap();
    let shift = &machine.algorithms_for(Collective::Shift)[0];
    let r = request(Collective::Shift, 64, 16384);
    let cost = |d: i64| {
        shift
            .cost(&r, &Params::named([("distance", d)]))
            .unwrap()
            .min_ns
    };
    // 4.16 ms at distance 1 (Table 3: 3.97); symmetric distances cost the same.
    assert!((cost(1) - 4.16e6).abs() < 1e-3);
    assert_eq!(cost(8), cost(56));
    assert_eq!(cost(16), cost(48));
    // Distance 32 sends every message across ring:1: ×7.94/3.945.
    assert!((cost(32) / cost(1) - 7.94 / 3.945).abs() < 1e-12);
    // On one ring:0 the distance does not matter (Table 3, 32 processors).
    let r32 = request(Collective::Shift, 32, 16384);
    let d1 = shift.cost(&r32, &Params::named([("distance", 1)])).unwrap();
    let d16 = shift
        .cost(&r32, &Params::named([("distance", 16)]))
        .unwrap();
    assert_eq!(d1.min_ns, d16.min_ns);
    assert_eq!(model.shift_slowdown(32, 16), 1.0);
}

#[test]
fn impossible_requests_give_clear_errors() {
    let machine = load("ksr1").unwrap();
    let bcast = &machine.algorithms_for(Collective::Bcast)[0];
    let err = bcast
        .cost(&request(Collective::Bcast, 2000, 128), &Params::None)
        .unwrap_err();
    assert!(matches!(err, ModelError::Threads { threads: 2000, .. }));
    assert!(err.to_string().contains("1024 processing cells"), "{err}");
    let err = bcast
        .cost(&request(Collective::Bcast, 8, 0), &Params::None)
        .unwrap_err();
    assert!(err.to_string().contains("message size"), "{err}");
    let barrier = &machine.algorithms_for(Collective::Barrier)[0];
    assert!(barrier
        .cost(&request(Collective::Barrier, 8, 0), &Params::None)
        .is_ok());
}

proptest! {
    #[test]
    fn a_larger_message_never_costs_less(
        p in 2u32..=128,
        distance in 1u32..128,
        a in 1u64..5_000_000,
        b in 1u64..5_000_000,
    ) {
        let machine = load("ksr1").unwrap();
        let distance = 1 + (distance - 1) % (p - 1);
        let (small, large) = (a.min(b), a.max(b));
        for alg in machine.algorithms() {
            let params = params_for(alg.as_ref(), distance);
            let lo = alg.cost(&request(alg.collective(), p, small), &params).unwrap();
            let hi = alg.cost(&request(alg.collective(), p, large), &params).unwrap();
            prop_assert!(lo.min_ns <= hi.min_ns, "{} {small}->{large}", alg.name());
        }
    }

    #[test]
    fn costs_are_finite_ordered_and_throughput_positive(
        p in 2u32..=1024,
        distance in 1u32..1024,
        size in 1u64..10_000_000,
    ) {
        let machine = load("ksr1").unwrap();
        let distance = 1 + (distance - 1) % (p - 1);
        for alg in machine.algorithms() {
            let c = alg
                .cost(&request(alg.collective(), p, size), &params_for(alg.as_ref(), distance))
                .unwrap();
            prop_assert!(c.min_ns.is_finite() && c.min_ns > 0.0);
            prop_assert!(c.min_ns <= c.max_ns);
            match c.throughput_bytes_per_s {
                Some(t) => prop_assert!(t.is_finite() && t > 0.0),
                None => prop_assert_eq!(alg.collective(), Collective::Barrier),
            }
        }
    }

    #[test]
    fn crossing_ring1_never_makes_a_broadcast_cheaper(size in 1u64..1_000_000) {
        let machine = load("ksr1").unwrap();
        let bcast = &machine.algorithms_for(Collective::Bcast)[0];
        let ring0 = bcast.cost(&request(Collective::Bcast, 32, size), &Params::None).unwrap();
        let ring1 = bcast.cost(&request(Collective::Bcast, 33, size), &Params::None).unwrap();
        prop_assert!(ring0.min_ns < ring1.min_ns);
    }
}

#[test]
fn bad_fits_are_rejected_with_file_line_and_key() {
    let text = ksr_text().replace("value = 0.054,", "value = -0.054,");
    let err = error_of(&text);
    let line = line_of(&text, "value = -0.054,");
    assert!(err.starts_with(&format!("test.toml:{line}:")), "{err}");
    assert!(err.contains("key `bcast.ring0.c1`"), "{err}");
    let err = error_of(&ksr_text().replace(
        "value = 0.029, unit = \"ms/subpage\"",
        "value = 0.029, unit = \"ms\"",
    ));
    assert!(
        err.contains("shift.c2") && err.contains("ms/subpage"),
        "{err}"
    );
    let err = error_of(&ksr_text().replace(
        "value = 0.442, unit = \"ms/stage\"",
        "value = 0.442, unit = \"ms/processor\"",
    ));
    assert!(err.contains("gather.tree.c1"), "{err}");
}

#[test]
fn bad_contention_rows_are_rejected() {
    let err = error_of(&ksr_text().replacen("processors = 64", "processors = 32", 1));
    assert!(
        err.contains("shift.ring1_contention[0].processors") && err.contains("ring:1"),
        "{err}"
    );
    let err = error_of(&ksr_text().replacen("distance = 63", "distance = 64", 1));
    assert!(err.contains("shift.ring1_contention[6].distance"), "{err}");
}

#[test]
fn bad_hierarchy_is_rejected() {
    let err = error_of(&ksr_text().replace("value = 600,", "value = 100,"));
    assert!(
        err.contains("allcache.ring1") && err.contains("faster"),
        "{err}"
    );
    let err = error_of(&ksr_text().replace("max_threads = 128", "max_threads = 2000"));
    assert!(err.contains("max_threads") && err.contains("1024"), "{err}");
    let err = error_of(&ksr_text().replace("subpage_bytes = 128", "subpage_bytes = 0"));
    assert!(err.contains("topology.subpage_bytes"), "{err}");
    let err = error_of(&ksr_text().replace("[reduce]", "[reduce]\nspeed = 1"));
    assert!(err.contains("unknown field"), "{err}");
}
