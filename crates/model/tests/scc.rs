//! Intel SCC (seed 004): scenario tests through the bundled machine, laws as proptests, and bad
//! machine files.

mod common;
use common::{error_of, line_of};

use modelopt_model::machine::load;
use modelopt_model::scc::Scc;
use modelopt_model::{Algorithm, Collective, Metric, ModelError, Params, Request};
use proptest::prelude::*;

fn scc_text() -> &'static str {
    common::bundled_text("scc")
}

fn request(threads: u32, size: u64) -> Request {
    Request::new(Collective::Bcast, threads)
        .and_then(|r| r.with_size(size))
        .expect("valid request")
}

fn k(k: i64) -> Params {
    Params::named([("k", k)])
}

/// The parameters of `alg` with OC-BCAST's degree folded into the model's validity domain,
/// 1 ≤ k ≤ 24 (seed 004 §4.1.3).
fn params_for(alg: &dyn Algorithm, degree: u32) -> Params {
    if alg.name() == "oc-bcast" {
        k((1 + (degree - 1) % 24).into())
    } else {
        Params::None
    }
}

#[test]
fn bundled_scc_offers_the_three_broadcasts() {
    let machine = load("scc").unwrap();
    assert_eq!(machine.family, "scc");
    assert_eq!(machine.max_threads, 48);
    let names: Vec<&str> = machine
        .algorithms_for(Collective::Bcast)
        .iter()
        .map(|a| a.name())
        .collect();
    assert_eq!(names, ["oc-bcast", "binomial", "scatter-allgather"]);
    assert_eq!(machine.collectives(), [Collective::Bcast]);
    // The memory-controller layout is an estimate but not a Param; no Param is estimated.
    assert!(machine.estimated_params().is_empty());
}

#[test]
fn figure_4_1_completion_times_on_the_mesh() {
    let machine = load("scc").unwrap();
    let scc: &Scc = machine.model().unwrap();
    let p = &scc.putget;
    // Core 0 (tile (0,0)) gets 128 lines from the MPB of core 47 (tile (5,3)): d = 9 routers.
    let d = scc.mesh.distance(0, 47).unwrap();
    assert_eq!(d, 9);
    // Eq. 4.11: 0.33 + 128·(0.126 + 18·0.005) + 128·(0.126 + 2·0.005)
    //         = 0.33 + 128·0.216 + 128·0.136 = 45.386 µs.
    assert!((p.get_mpb(128, f64::from(d)) - 45.386).abs() < 1e-9);
    // The same get from the neighbour core on the tile (d = 1): 0.33 + 128·0.272 = 35.146 µs.
    let d1 = f64::from(scc.mesh.distance(0, 1).unwrap());
    assert!((p.get_mpb(128, d1) - 35.146).abs() < 1e-9);
    // Eq. 4.7: core 0 puts one line from its MPB into the MPB of core 13 (tile (0,1), d = 2):
    // 0.069 + 0.136 + (0.126 + 4·0.005) = 0.351 µs; latency (Eq. 4.9) 0.069 + 0.136 + 0.136.
    let d13 = f64::from(scc.mesh.distance(0, 13).unwrap());
    assert_eq!(d13, 2.0);
    assert!((p.put_mpb(1, d13) - 0.351).abs() < 1e-9);
    assert!((p.put_mpb_latency(1, d13) - 0.341).abs() < 1e-9);
    // Eq. 4.12: core 42 (tile (3,3)) copies 10 lines from its own MPB (d = 1) to its memory,
    // 4 routers away: 0.095 + 10·0.136 + 10·(0.461 + 8·0.005) = 6.465 µs.
    let dm = f64::from(scc.mesh.memory_distance(42).unwrap());
    assert_eq!(dm, 4.0);
    assert!((p.get_mem(10, 1.0, dm) - 6.465).abs() < 1e-9);
}

#[test]
fn oc_bcast_latency_for_k7_and_3072_bytes() {
    let machine = load("scc").unwrap();
    let algs = machine.algorithms_for(Collective::Bcast);
    let oc = &algs[0];
    // 3072 B = 96 lines = one chunk, P = 48, k = 7, D = 3:
    // T_root = C_put^mem(96,1,1) 34.174 + L_notify(7) 3·1.143          = 37.603
    // T_int  = C_get^mpb(96,1) 26.442 + C_put^mpb(1,1) 0.341 + 3.429   = 30.212
    // tail   = max(T_leaf = 26.442 + 0.341 + 58.367 = 85.150,
    //              C_get^mem(96,1,1) 58.367 + 7·0.466 = 61.629)        = 85.150
    // L = 37.603 + 30.212 + 85.150 = 152.965 µs.
    let cost = oc.cost(&request(48, 3072), &k(7)).unwrap();
    assert!((cost.min_ns - 152_965.0).abs() < 1e-6, "{}", cost.min_ns);
    assert_eq!(cost.min_ns, cost.max_ns);
}

/// The best valid degree: k > 24 is outside the model's validity and skipped, ties (within
/// 1e-6 ns, the optimizer's rule) go to the smaller k.
fn best_k(machine_algs: &[Box<dyn Algorithm + '_>], r: &Request) -> (u32, f64) {
    let oc = &machine_algs[0];
    (1..r.threads())
        .filter_map(|deg| {
            let c = oc.cost(r, &k(deg.into())).ok()?;
            let score = match r.metric() {
                Metric::Latency => c.min_ns,
                Metric::Throughput => 1e9 / c.throughput_bytes_per_s.unwrap(),
            };
            Some((deg, score))
        })
        .reduce(|best, next| if next.1 < best.1 - 1e-6 { next } else { best })
        .unwrap()
}

#[test]
fn best_k_depends_on_size_and_metric() {
    let machine = load("scc").unwrap();
    let algs = machine.algorithms_for(Collective::Bcast);
    // One line: notification and polling dominate, k = 2 is best (11.676 µs).
    let (deg, ns) = best_k(&algs, &request(48, 32));
    assert_eq!(deg, 2);
    assert!((ns - 11_676.0).abs() < 1e-6);
    // 96 lines (3072 B), P = 48, valid k ≤ 24. Per-line costs (µs): C_r^mem(1) = 0.218,
    // C_r^mpb(1) = C_w^mpb(1) = 0.136, C_w^mem(1) = 0.471, flag read r = 0.466; one notification
    // level = C_put^mpb(1,1) 0.341 + L_put^mpb(1,1) 0.336 + r 0.466 = 1.143.
    //   T_root(96,k)  = 0.19 + 96·(0.218 + 0.136) + ⌈log2 k⌉·1.143 = 34.174 + ⌈log2 k⌉·1.143
    //   T_int(96,k)   = 0.33 + 96·0.272 + 0.341 + ⌈log2 k⌉·1.143  = 26.783 + ⌈log2 k⌉·1.143
    //   tail(96,k)    = max(T_leaf = 26.442 + 0.341 + 58.367 = 85.150, 58.367 + 0.466k)
    //                 = 85.150 for every k ≤ 24 (58.367 + 11.184 = 69.551 at k = 24)
    // Depth D (1 + k + k² + … ≥ 48): k = 7..=24 → D = 3; k = 4..=6 → D = 4; smaller k deeper.
    //   k = 7, 8 (⌈log2 k⌉ = 3): 37.603 + 30.212 + 85.150 = 152.965
    //   k = 5, 6 (3 levels, D = 4): 37.603 + 2·30.212 + 85.150 = 183.177
    //   k = 4 (2 levels, D = 4): 36.460 + 2·29.069 + 85.150 = 179.748
    //   k = 9..=16 (4 levels, D = 3): 38.746 + 31.355 + 85.150 = 155.251
    //   k = 17..=24 (5 levels): 157.537
    //   k = 3 (2 levels, D = 5): 36.460 + 3·29.069 + 85.150 = 208.817
    //   k = 2 (1 level, D = 6): 35.317 + 4·27.926 + 85.150 = 232.171; k = 1 (D = 48) far more
    // k = 7 and k = 8 tie at 152.965 µs; the tie goes to the smaller k: k = 7. (Unchecked, the
    // model would pick k = 47 at 126.182 µs, a degree the seed measured under MPB contention.)
    let (deg, ns) = best_k(&algs, &request(48, 3072));
    assert_eq!(deg, 7);
    assert!((ns - 152_965.0).abs() < 1e-6, "{ns}");
    // Throughput of large messages (48 whole chunks): Eq. 4.23's period is
    //   max(C_root = 0.466k + 34.174 + 2·0.341, C_int = 0.466k + 0.466 + 26.442 + 3·0.341 + 58.367,
    //       C_leaf = 85.616) = 0.466k + 86.298 while D > 2.
    // It grows with k, so k = 1 (the list, D = 48) is best: 86.764 µs per 3072 B = 35.41 MB/s.
    // (Table 4.2's best, k = 47 at 35.88 MB/s, is outside the validity domain.)
    let r = request(48, 48 * 3072).with_metric(Metric::Throughput);
    let (deg, ns_per_byte) = best_k(&algs, &r);
    assert_eq!(deg, 1);
    assert!((1e3 / ns_per_byte - 3072.0 / 86.764).abs() < 1e-9);
}

#[test]
fn oc_bcast_beyond_24_readers_is_outside_the_model() {
    // Seed 004 §4.1.3: "up to 24 cores accessing the same MPB do not create any measurable
    // contention"; beyond, the contention-free model does not hold. k children read one MPB.
    let machine = load("scc").unwrap();
    let oc = &machine.algorithms_for(Collective::Bcast)[0];
    assert!(oc.cost(&request(48, 3072), &k(24)).is_ok());
    for degree in [25, 30, 47] {
        let err = oc.cost(&request(48, 3072), &k(degree)).unwrap_err();
        assert!(
            matches!(&err, ModelError::OutsideValidity { reason } if reason.contains("at most 24")),
            "{err}"
        );
        assert!(oc.breakdown(&request(48, 3072), &k(degree)).is_err());
    }
    // A degree above P − 1 is still a parameter error, not a validity one.
    let err = oc.cost(&request(48, 3072), &k(48)).unwrap_err();
    assert!(matches!(err, ModelError::Parameter { .. }), "{err}");
}

#[test]
fn oc_bcast_beats_the_two_sided_algorithms() {
    // Seed 004 §3.3: OC-BCAST has lower latency than the binomial tree and about three times the
    // throughput of scatter-allgather.
    let machine = load("scc").unwrap();
    let algs = machine.algorithms_for(Collective::Bcast);
    for size in [32, 1024, 3072, 6144] {
        let r = request(48, size);
        let oc = algs[0].cost(&r, &k(7)).unwrap();
        let binomial = algs[1].cost(&r, &Params::None).unwrap();
        assert!(oc.min_ns < binomial.min_ns, "size {size}");
    }
    let r = request(48, 48 * 3072);
    let oc = algs[0]
        .cost(&r, &k(2))
        .unwrap()
        .throughput_bytes_per_s
        .unwrap();
    let sag = algs[2]
        .cost(&r, &Params::None)
        .unwrap()
        .throughput_bytes_per_s
        .unwrap();
    // 35.22 / 13.09.
    assert!((oc / sag - 2.69).abs() < 0.01, "{}", oc / sag);
}

#[test]
fn impossible_requests_give_clear_errors() {
    let machine = load("scc").unwrap();
    let algs = machine.algorithms_for(Collective::Bcast);
    let err = algs[0].cost(&request(48, 3072), &k(48)).unwrap_err();
    assert!(err.to_string().contains("between 1 and P−1 = 47"), "{err}");
    let err = algs[0].cost(&request(48, 0), &k(7)).unwrap_err();
    assert!(err.to_string().contains("message size"), "{err}");
    let err = algs[1].cost(&request(64, 32), &Params::None).unwrap_err();
    assert!(
        matches!(err, ModelError::Threads { threads: 64, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("48 cores"), "{err}");
}

proptest! {
    #[test]
    fn a_larger_message_never_broadcasts_faster(
        p in 2u32..=48,
        degree in 1u32..48,
        a in 1u64..40_000,
        b in 1u64..40_000,
    ) {
        let machine = load("scc").unwrap();
        let degree = 1 + (degree - 1) % (p - 1);
        let (small, large) = (a.min(b), a.max(b));
        for alg in machine.algorithms_for(Collective::Bcast) {
            let params = params_for(alg.as_ref(), degree);
            let lo = alg.cost(&request(p, small), &params).unwrap();
            let hi = alg.cost(&request(p, large), &params).unwrap();
            prop_assert!(lo.min_ns <= hi.min_ns + 1e-9, "{} k={degree} {small}->{large}", alg.name());
        }
    }

    #[test]
    fn costs_are_finite_ordered_and_throughput_positive(
        p in 2u32..=48,
        degree in 1u32..48,
        size in 1u64..2_000_000,
    ) {
        let machine = load("scc").unwrap();
        let degree = 1 + (degree - 1) % (p - 1);
        for alg in machine.algorithms_for(Collective::Bcast) {
            let c = alg.cost(&request(p, size), &params_for(alg.as_ref(), degree)).unwrap();
            prop_assert!(c.min_ns.is_finite() && c.min_ns > 0.0);
            prop_assert!(c.min_ns <= c.max_ns);
            let t = c.throughput_bytes_per_s.unwrap();
            prop_assert!(t.is_finite() && t > 0.0);
        }
    }

    #[test]
    fn more_cores_never_make_the_binomial_tree_cheaper(p in 2u32..48, size in 1u64..100_000) {
        let machine = load("scc").unwrap();
        let algs = machine.algorithms_for(Collective::Bcast);
        let binomial = &algs[1];
        let few = binomial.cost(&request(p, size), &Params::None).unwrap();
        let more = binomial.cost(&request(p + 1, size), &Params::None).unwrap();
        prop_assert!(few.min_ns <= more.min_ns);
    }
}

#[test]
fn chunks_that_do_not_fit_the_mpb_are_rejected() {
    let text = scc_text().replace("oc_chunk_lines = 96", "oc_chunk_lines = 120");
    let err = error_of(&text);
    let line = line_of(&text, "oc_chunk_lines = 120");
    assert!(err.starts_with(&format!("test.toml:{line}:")), "{err}");
    assert!(err.contains("broadcast.oc_chunk_lines"), "{err}");
    assert!(err.contains("256-line"), "{err}");
}

#[test]
fn out_of_range_counts_and_distances_are_rejected() {
    let text = scc_text().replace("rcce_chunk_lines = 251", "rcce_chunk_lines = 251.5");
    let err = error_of(&text);
    let line = line_of(&text, "rcce_chunk_lines = 251.5");
    assert!(err.starts_with(&format!("test.toml:{line}:")), "{err}");
    let err = error_of(&scc_text().replace("rcce_chunk_lines = 251", "rcce_chunk_lines = 300"));
    assert!(
        err.contains("broadcast.rcce_chunk_lines") && err.contains("256-line"),
        "{err}"
    );
    let err = error_of(&scc_text().replace("oc_chunk_lines = 96", "oc_chunk_lines = 0"));
    assert!(err.contains("at least 1"), "{err}");
    let text = scc_text().replace(
        "mpb_distance = { value = 1.0,",
        "mpb_distance = { value = 10.0,",
    );
    let err = error_of(&text);
    assert!(err.contains("between 1 and 9 routers"), "{err}");
    let text = scc_text().replace(
        "mem_distance = { value = 1.0,",
        "mem_distance = { value = 0.5,",
    );
    assert!(error_of(&text).contains("broadcast.mem_distance"));
}

#[test]
fn bad_putget_parameters_are_rejected() {
    let err = error_of(&scc_text().replace("value = 0.005,", "value = -0.005,"));
    assert!(
        err.contains("putget.hop") && err.contains("positive"),
        "{err}"
    );
    let err = error_of(&scc_text().replace(
        "value = 0.126, unit = \"us\"",
        "value = 0.126, unit = \"ns\"",
    ));
    assert!(err.contains("putget.mpb") && err.contains("unit"), "{err}");
    let text: String = scc_text()
        .lines()
        .filter(|l| !l.starts_with("get_mem"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(error_of(&text).contains("missing field `get_mem`"));
    let err = error_of(&scc_text().replace("[putget]", "[putget]\nlatency = 1"));
    assert!(err.contains("unknown field"), "{err}");
}

#[test]
fn bad_mesh_is_rejected() {
    let err = error_of(&scc_text().replace("max_threads = 48", "max_threads = 49"));
    assert!(
        err.contains("max_threads") && err.contains("48 cores"),
        "{err}"
    );
    let err = error_of(&scc_text().replace("[5, 2]]", "[6, 2]]"));
    assert!(err.contains("outside the 6×4 mesh"), "{err}");
    let err = error_of(&scc_text().replace("columns = 6", "columns = 0"));
    assert!(err.contains("mesh.columns"), "{err}");
}
