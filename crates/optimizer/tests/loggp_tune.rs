//! Message-passing machines (family `loggp`): every bundled machine has a best algorithm for every
//! collective it models, the tuner searches the `Space::Values` of segmented algorithms, and the
//! choice follows the model's crossovers.

use modelopt_model::{machine, Collective, Machine, Request};
use modelopt_optimizer::{tune, SearchOptions};

fn loggp_machines() -> Vec<Machine> {
    machine::bundled_names()
        .into_iter()
        .map(|n| machine::load(n).unwrap())
        .filter(|m| m.family == "loggp")
        .collect()
}

#[test]
fn every_bundled_loggp_machine_has_a_best_algorithm_for_every_collective() {
    let machines = loggp_machines();
    assert!(machines.len() >= 2);
    let collectives = [
        Collective::Bcast,
        Collective::Barrier,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Allgather,
    ];
    for m in &machines {
        assert_eq!(m.collectives(), collectives, "{}", m.name);
        for c in collectives {
            // Odd, power-of-two and other rank counts; empty, small and large messages.
            for p in [2, 3, 7, 16, 64, 100] {
                for size in [0, 8, 65_536, 4 << 20] {
                    let r = Request::new(c, p).unwrap().with_size(size).unwrap();
                    let t = tune(m, &r, &SearchOptions::default(), None)
                        .unwrap_or_else(|e| panic!("{} {c} p={p} m={size}: {e}", m.name));
                    let best = t.best().unwrap_or_else(|| panic!("{} {c} p={p}", m.name));
                    assert!(best.scored.cost.min_ns.is_finite() && best.scored.cost.min_ns > 0.0);
                }
            }
        }
    }
}

#[test]
fn large_broadcasts_choose_a_pipelined_or_scatter_algorithm() {
    let m = machine::load("cluster-example").unwrap();
    let options = SearchOptions::default();
    // 8 bytes at 64 ranks: a tree; 16 MiB: never the unsegmented binomial tree, whose
    // ⌈log2 64⌉ = 6 full copies of the message cost ≈ 6 · 1.34 ms ≈ 8 ms against ≈ 2.7 ms for
    // scatter + allgather (2 · 63/64 · 16 MiB · 0.08 ns/B).
    let small = Request::new(Collective::Bcast, 64)
        .unwrap()
        .with_size(8)
        .unwrap();
    let best = tune(&m, &small, &options, None).unwrap();
    let name = best.best().unwrap().algorithm.clone();
    assert!(
        ["binomial", "knomial", "binary", "split-binary", "chain"].contains(&name.as_str()),
        "{name}"
    );
    let large = Request::new(Collective::Bcast, 64)
        .unwrap()
        .with_size(16 << 20)
        .unwrap();
    let t = tune(&m, &large, &options, None).unwrap();
    let best = t.best().unwrap();
    assert!(
        best.algorithm != "binomial" || best.scored.params.get("segment") != Some(0),
        "{best:?}"
    );
    assert!(best.scored.cost.min_ns < 4.0e6, "{best:?}");
}
