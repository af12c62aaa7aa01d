//! Scenario tests of the Cell family (seed 002, Ali, Midkiff & Pai, PPoPP 2010) on the bundled
//! machines `cell-chip`, `cell-blade` and `cell-cluster`.
//!
//! Expected values are worked out by hand from the seed's formulas with the estimates of
//! `machines/cell-blade.toml` (docs/cell.md, "Parameter estimates"):
//!
//! | | one chip (L, g) | same chip on a blade (L_1, g_1) | across the BIF (L_2, g_2) |
//! |---|---|---|---|
//! | L(1) | 150 | 150 | 260 |
//! | L(m) | 300 + m/25.6 | 300 + m/25.6 | 520 + m/12.8 |
//! | g(m) | 20 + m/25.6 | 24 + m/21.3 | 40 + m/20.48 |
//! | g_Ack(1) | 20 | 24 | 40 |
//!
//! C(m, n) = (n − 2)⁺/2 · (m − 256)⁺ / 33.9, γ = 0.06 ns/B.

use modelopt_model::cell::Cell;
use modelopt_model::{
    machine, Algorithm, Collective, Cost, IntRange, ModelError, Params, Request, Space,
    SpaceOptions,
};
use proptest::prelude::*;
use std::sync::OnceLock;

fn blade() -> &'static machine::Machine {
    static M: OnceLock<machine::Machine> = OnceLock::new();
    M.get_or_init(|| machine::load("cell-blade").expect("bundled cell-blade loads"))
}

fn chip() -> &'static machine::Machine {
    static M: OnceLock<machine::Machine> = OnceLock::new();
    M.get_or_init(|| machine::load("cell-chip").expect("bundled cell-chip loads"))
}

fn cluster() -> &'static machine::Machine {
    static M: OnceLock<machine::Machine> = OnceLock::new();
    M.get_or_init(|| machine::load("cell-cluster").expect("bundled cell-cluster loads"))
}

fn request(collective: Collective, threads: u32, size: u64) -> Request {
    Request::new(collective, threads)
        .and_then(|r| r.with_size(size))
        .expect("valid request")
}

fn algorithm<'m>(
    m: &'m machine::Machine,
    collective: Collective,
    name: &str,
) -> Box<dyn Algorithm + 'm> {
    m.algorithms_for(collective)
        .into_iter()
        .find(|a| a.name() == name)
        .unwrap_or_else(|| panic!("{} has no {collective} `{name}`", m.name))
}

fn cost(
    m: &machine::Machine,
    c: Collective,
    name: &str,
    p: u32,
    size: u64,
    params: &Params,
) -> Cost {
    algorithm(m, c, name)
        .cost(&request(c, p, size), params)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn xy(x: i64, y: i64) -> Params {
    Params::named([("x", x), ("y", y)])
}

fn close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() < 1e-6,
        "expected {expected}, got {actual}"
    );
}

/// Every configuration of an algorithm's space for a request.
fn configurations(a: &dyn Algorithm, r: &Request) -> Vec<Params> {
    match a.space(r, &SpaceOptions::default()) {
        Ok(Space::Fixed) => vec![Params::None],
        Ok(Space::Grid(ranges)) => grid(&ranges),
        Ok(other) => panic!("unexpected space {other:?}"),
        Err(_) => Vec::new(),
    }
}

fn grid(ranges: &[IntRange]) -> Vec<Params> {
    let mut out = vec![Vec::<(String, i64)>::new()];
    for r in ranges {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                (r.lo..=r.hi).map(move |v| {
                    let mut p = prefix.clone();
                    p.push((r.name.clone(), v));
                    p
                })
            })
            .collect();
    }
    out.into_iter()
        .map(|pairs| Params::Named(pairs.into_iter().collect()))
        .collect()
}

/// The cheapest (algorithm, params, cost) over everything that prices the request.
fn best(m: &machine::Machine, r: &Request) -> (String, Params, Cost) {
    let mut found: Option<(String, Params, Cost)> = None;
    for a in m.algorithms_for(r.collective()) {
        for params in configurations(a.as_ref(), r) {
            if let Ok(c) = a.cost(r, &params) {
                let better = match &found {
                    None => true,
                    Some((_, _, b)) => c.min_ns < b.min_ns,
                };
                if better {
                    found = Some((a.name().to_string(), params, c));
                }
            }
        }
    }
    found.expect("some algorithm applies")
}

// ---------------------------------------------------------------- barrier (Table 1, §6.1)

#[test]
fn recursive_doubling_barrier_16_spes_on_two_chips() {
    // Table 1 row 2 (and §6.1 "3·L_1(1) + L_2(1)"): (log2 16 − 1)·L_1(1) + L_2(1)
    // = 3 × 150 + 260 = 710 ns.
    let c = cost(
        blade(),
        Collective::Barrier,
        "recursive-doubling",
        16,
        0,
        &Params::None,
    );
    close(c.min_ns, 710.0);
    close(c.max_ns, 710.0);
}

#[test]
fn recursive_doubling_barrier_not_a_power_of_two() {
    // Two chips, p = 12: (⌊log2 12⌋ + 1)·L_1(1) + L_2(1) = 4 × 150 + 260 = 860 ns.
    close(
        cost(
            blade(),
            Collective::Barrier,
            "recursive-doubling",
            12,
            0,
            &Params::None,
        )
        .min_ns,
        860.0,
    );
    // One chip, p = 6: (⌊log2 6⌋ + 2)·L(1) = 4 × 150 = 600 ns; p = 8: 3 × 150 = 450 ns.
    close(
        cost(
            chip(),
            Collective::Barrier,
            "recursive-doubling",
            6,
            0,
            &Params::None,
        )
        .min_ns,
        600.0,
    );
    close(
        cost(
            chip(),
            Collective::Barrier,
            "recursive-doubling",
            8,
            0,
            &Params::None,
        )
        .min_ns,
        450.0,
    );
}

#[test]
fn bruck_and_gather_broadcast_barriers_on_the_blade() {
    // Bruck p = 16: ⌈log2 16⌉ × max[L_1(1), L_2(1)] = 4 × 260 = 1040 ns.
    close(
        cost(blade(), Collective::Barrier, "bruck", 16, 0, &Params::None).min_ns,
        1040.0,
    );
    // Gather-broadcast p = 16: max[2·3·150, 2·(260 + 3·150)] = max[900, 1420] = 1420 ns.
    close(
        cost(
            blade(),
            Collective::Barrier,
            "gather-broadcast",
            16,
            0,
            &Params::None,
        )
        .min_ns,
        1420.0,
    );
}

#[test]
fn one_to_all_barrier_min_max() {
    // One chip p = 8: q = 6, g(1) = 20 + 16/25.6 = 20.625:
    // min = 6 × 20.625 + 150 + 150 = 423.75; max = min + 6 × g_Ack(1) = 423.75 + 120 = 543.75.
    let c = cost(
        chip(),
        Collective::Barrier,
        "one-to-all",
        8,
        0,
        &Params::None,
    );
    close(c.min_ns, 423.75);
    close(c.max_ns, 543.75);
    // Blade p = 16: q_1 = 6, q_2 = 7; g_1(1) = 24 + 16/21.3, g_2(1) = 40 + 16/20.48 = 40.78125:
    // min = 2 × (150 + 260) + 6 g_1(1) + 7 g_2(1); X ≤ 6 × 24 + 7 × 40 = 424.
    let g1 = 24.0 + 16.0 / 21.3;
    let g2 = 40.78125;
    let c = cost(
        blade(),
        Collective::Barrier,
        "one-to-all",
        16,
        0,
        &Params::None,
    );
    close(c.min_ns, 820.0 + 6.0 * g1 + 7.0 * g2);
    close(c.max_ns - c.min_ns, 424.0);
}

#[test]
fn cluster_barrier_of_section_6_1() {
    // 4 blades, 64 SPEs: T_rd = 710; T_ack = 300 + 15 × 50 = 1050;
    // T_bruck = ⌈log2 4⌉ × (25000 + 8000) = 66000; T_rel = 300 + 3 × 150 + 260 = 1010.
    // T = max(710, 1050 + 66000) + 1010 = 68060 ns.
    let c = cost(
        cluster(),
        Collective::Barrier,
        "cluster-hybrid",
        64,
        0,
        &Params::None,
    );
    close(c.min_ns, 68060.0);
    // 2 blades: one Bruck round: max(710, 1050 + 33000) + 1010 = 35060 ns.
    close(
        cost(
            cluster(),
            Collective::Barrier,
            "cluster-hybrid",
            32,
            0,
            &Params::None,
        )
        .min_ns,
        35060.0,
    );
}

#[test]
fn cluster_machine_keeps_blade_models_within_one_blade() {
    let r = request(Collective::Barrier, 16, 0);
    let rd = algorithm(cluster(), Collective::Barrier, "recursive-doubling");
    close(rd.cost(&r, &Params::None).expect("one blade").min_ns, 710.0);
    let hybrid = algorithm(cluster(), Collective::Barrier, "cluster-hybrid");
    assert!(matches!(
        hybrid.cost(&r, &Params::None),
        Err(ModelError::Threads { .. })
    ));
}

// ---------------------------------------------------------------- broadcast (Table 2)

#[test]
fn segmented_binomial_broadcast_with_bif_contention() {
    // p = 16, m = 4096, m/2 = 2048: 3 × [L_1(2048) + L_1(1)] = 3 × (380 + 150) = 1590;
    // 2 × [L_2(2048) + L_2(1)] = 2 × (680 + 260) = 1880; C(2048, 14) = 6 × 1792 / 33.9.
    let c = cost(
        blade(),
        Collective::Bcast,
        "segmented-binomial",
        16,
        4096,
        &Params::None,
    );
    close(c.min_ns, 1590.0 + 1880.0 + 6.0 * 1792.0 / 33.9);
}

#[test]
fn binomial_broadcasts_on_the_blade() {
    // Opt, p = 16, m = 4096: 3 × [L_1(4096) + L_1(1)] + L_2(4096) + L_2(1)
    // = 3 × (460 + 150) + 840 + 260 = 2930 ns.
    close(
        cost(
            blade(),
            Collective::Bcast,
            "binomial-opt",
            16,
            4096,
            &Params::None,
        )
        .min_ns,
        2930.0,
    );
    // Hybrid segmented, p = 16, m = 16384: 4 × [L_1(8192) + L_1(1)] + L_2(16384) + L_2(1)
    // = 4 × (620 + 150) + (520 + 1280) + 260 = 5140 ns.
    close(
        cost(
            blade(),
            Collective::Bcast,
            "hybrid-segmented-binomial",
            16,
            16384,
            &Params::None,
        )
        .min_ns,
        5140.0,
    );
    // Simple, p = 16, m = 4096: (⌊log2 16⌋ − 1) = 3 on-chip levels × (460 + 150) = 1830, the BIF
    // level 840 + 260 = 1100, and q_1 = 7 gaps g_1(4096) = 24 + 4096/21.3; X ≤ 7 × 24 = 168.
    let c = cost(
        blade(),
        Collective::Bcast,
        "binomial-simple",
        16,
        4096,
        &Params::None,
    );
    close(c.min_ns, 1830.0 + 1100.0 + 7.0 * (24.0 + 4096.0 / 21.3));
    close(c.max_ns - c.min_ns, 168.0);
}

// ---------------------------------------------------------------- all-gather (Table 3)

#[test]
fn hybrid_allgather_beats_recursive_doubling_when_the_bif_contends() {
    // m = 4096 per SPE, p = 16. Recursive doubling: on chip Σ_{k=0}^{2} [L_1(2^k m) + 150]
    // = (460 + 150) + (620 + 150) + (940 + 150) = 2470; BIF L_2(32768) + 260 = 3340;
    // C(32768, 16) = 7 × 32512 / 33.9. Total ≈ 12523.
    let rd = cost(
        blade(),
        Collective::Allgather,
        "recursive-doubling",
        16,
        4096,
        &Params::None,
    );
    close(rd.min_ns, 2470.0 + 3340.0 + 7.0 * 32512.0 / 33.9);
    // Hybrid-2-8: gather round 1: 610; recursive doubling rounds 2, 3 on chip with 8192 and
    // 16384 B: 770 + 1090 = 1860; round 4 across the BIF with 32768 B and y = 8: 3340 +
    // 3 × 32512 / 33.9; broadcast: 1 × [L_1(65536) + L_1(1)] = 300 + 2560 + 150 = 3010.
    let hybrid = cost(
        blade(),
        Collective::Allgather,
        "hybrid",
        16,
        4096,
        &xy(2, 8),
    );
    close(
        hybrid.min_ns,
        610.0 + 1860.0 + 3340.0 + 3.0 * 32512.0 / 33.9 + 3010.0,
    );
    assert!(hybrid.min_ns < rd.min_ns);
    let (name, params, _) = best(blade(), &request(Collective::Allgather, 16, 4096));
    assert_eq!((name.as_str(), params), ("hybrid", xy(2, 8)));
}

// ---------------------------------------------------------------- reduce (Table 4)

#[test]
fn binomial_reduce_on_the_blade() {
    // p = 16, m = 1024: 3 × [L_1(1024) + L_1(1) + γm] + L_2(1024) + L_2(1) + γm
    // = 3 × (340 + 150 + 61.44) + (600 + 260 + 61.44) = 1654.32 + 921.44 = 2575.76 ns.
    close(
        cost(
            blade(),
            Collective::Reduce,
            "binomial",
            16,
            1024,
            &Params::None,
        )
        .min_ns,
        2575.76,
    );
}

#[test]
fn reduce_scatter_gather_splits_the_vector() {
    // One chip, p = 8, vector 4096 B → piece m = 512:
    // Σ_{k=0}^{2} [2 L(2^k m) + γ 2^k m + 2 L(1)] with 512, 1024, 2048 B:
    // 2 × (320 + 340 + 380) + 3 × 300 + 0.06 × 3584 = 2080 + 900 + 215.04 = 3195.04 ns.
    close(
        cost(
            chip(),
            Collective::Reduce,
            "reduce-scatter-gather",
            8,
            4096,
            &Params::None,
        )
        .min_ns,
        3195.04,
    );
}

// ---------------------------------------------------------------- all-reduce (Table 5)

#[test]
fn recursive_doubling_allreduce_16_spes() {
    // m = 4096: 3 × [L_1(m) + 2 L_1(1) + γm] = 3 × (460 + 300 + 245.76) = 3017.28;
    // L_2(m) + 2 L_2(1) + γm = 840 + 520 + 245.76 = 1605.76; C(4096, 16) = 7 × 3840 / 33.9.
    let c = cost(
        blade(),
        Collective::Allreduce,
        "recursive-doubling",
        16,
        4096,
        &Params::None,
    );
    close(c.min_ns, 3017.28 + 1605.76 + 7.0 * 3840.0 / 33.9);
}

#[test]
fn hybrid_a_3_4_allreduce() {
    // §5.5's HybridA-3-4, m = 4096: 2 × 2 × (460 + 150) + 2 × 245.76 = 2931.52;
    // round 3 on chip 460 + 150 + 245.76 = 855.76; round 4 across the BIF
    // 840 + 260 + 245.76 = 1345.76 plus C(4096, 4) = 1 × 3840 / 33.9.
    let c = cost(
        blade(),
        Collective::Allreduce,
        "hybrid-a",
        16,
        4096,
        &xy(3, 4),
    );
    close(c.min_ns, 2931.52 + 855.76 + 1345.76 + 3840.0 / 33.9);
}

#[test]
fn allreduce_4096_on_the_blade_picks_hybrid_a_2_8() {
    // HybridA-2-8: 2 × 610 + 245.76 + 2 × 855.76 + 1345.76 + C(4096, 8) (= 3 × 3840 / 33.9)
    // ≈ 4862.9 ns, below recursive doubling (≈ 5416) because only 8 messages cross the BIF.
    let r = request(Collective::Allreduce, 16, 4096);
    let (name, params, c) = best(blade(), &r);
    assert_eq!((name.as_str(), &params), ("hybrid-a", &xy(2, 8)));
    close(
        c.min_ns,
        1220.0 + 245.76 + 1711.52 + 1345.76 + 3.0 * 3840.0 / 33.9,
    );
    // The breakdown names the contention term.
    let terms = algorithm(blade(), Collective::Allreduce, "hybrid-a")
        .breakdown(&r, &params)
        .expect("breakdown");
    assert!(terms.iter().any(|t| t.label.contains("C(m, y = 8)")));
    let sum: f64 = terms.iter().map(|t| t.min_ns).sum();
    close(sum, c.min_ns);
}

// ---------------------------------------------------------------- what each machine lists

#[test]
fn machines_list_the_algorithms_of_their_chip_count() {
    let names = |m: &machine::Machine, c| -> Vec<&'static str> {
        m.algorithms_for(c).iter().map(|a| a.name()).collect()
    };
    assert_eq!(
        names(blade(), Collective::Allreduce),
        [
            "recursive-doubling",
            "reduce-scatter-allgather",
            "reduce-scatter-gather-bcast",
            "hybrid-a",
            "hybrid-b"
        ]
    );
    assert_eq!(
        names(chip(), Collective::Allreduce),
        [
            "recursive-doubling",
            "reduce-scatter-allgather",
            "reduce-scatter-gather-bcast"
        ]
    );
    assert!(!names(blade(), Collective::Barrier).contains(&"cluster-hybrid"));
    assert!(names(cluster(), Collective::Barrier).contains(&"cluster-hybrid"));
    assert_eq!(names(chip(), Collective::Allgather), ["recursive-doubling"]);
    assert!(blade().model::<Cell>().is_some());
}

#[test]
fn estimates_are_flagged_and_seed_values_are_not() {
    let estimated: Vec<String> = blade()
        .estimated_params()
        .into_iter()
        .map(|p| p.key)
        .collect();
    assert!(estimated.contains(&"inter.ack".to_string()));
    assert!(estimated.contains(&"contention.bandwidth".to_string()));
    assert!(!estimated.contains(&"contention.threshold".to_string()));
    assert!(!estimated.contains(&"contention.free_messages".to_string()));
    for row in blade().params() {
        assert!(
            row.source.contains("seed 002"),
            "{}: {}",
            row.key,
            row.source
        );
    }
}

#[test]
fn hybrid_space_is_x_and_y() {
    let r = request(Collective::Allreduce, 16, 4096);
    let a = algorithm(blade(), Collective::Allreduce, "hybrid-b");
    assert_eq!(
        a.space(&r, &SpaceOptions::default()),
        Ok(Space::Grid(vec![
            IntRange::new("x", 2, 4),
            IntRange::new("y", 2, 8)
        ]))
    );
    // Exactly one y per x is feasible: (2, 8), (3, 4), (4, 2).
    let feasible: Vec<Params> = configurations(a.as_ref(), &r)
        .into_iter()
        .filter(|p| a.cost(&r, p).is_ok())
        .collect();
    assert_eq!(feasible, vec![xy(2, 8), xy(3, 4), xy(4, 2)]);
}

// ---------------------------------------------------------------- errors

fn expect_parameter(result: Result<Cost, ModelError>, name: &str, fragment: &str) {
    match result {
        Err(ModelError::Parameter {
            name: n, reason, ..
        }) => {
            assert_eq!(n, name);
            assert!(reason.contains(fragment), "{reason}");
        }
        other => panic!("expected a parameter error on {name}, got {other:?}"),
    }
}

fn expect_threads(result: Result<Cost, ModelError>, fragment: &str) {
    match result {
        Err(e @ ModelError::Threads { .. }) => {
            assert!(e.to_string().contains(fragment), "{e}");
        }
        other => panic!("expected a thread-count error, got {other:?}"),
    }
}

#[test]
fn x_beyond_log2_p_is_refused() {
    let r = request(Collective::Allreduce, 16, 4096);
    let a = algorithm(blade(), Collective::Allreduce, "hybrid-a");
    expect_parameter(a.cost(&r, &xy(5, 1)), "x", "log2 p = 4");
    expect_parameter(a.cost(&r, &xy(0, 32)), "x", "2 ≤ x");
    expect_parameter(a.cost(&r, &xy(1, 16)), "x", "recursive-doubling");
    expect_parameter(a.cost(&r, &xy(-3, 2)), "x", "2 ≤ x");
}

#[test]
fn y_must_match_x() {
    let r = request(Collective::Allgather, 16, 256);
    let a = algorithm(blade(), Collective::Allgather, "hybrid");
    expect_parameter(a.cost(&r, &xy(3, 2)), "y", "y = p / 2^(x−1) = 4");
    expect_parameter(
        a.cost(&r, &Params::named([("x", 3)])),
        "y",
        "needs the named parameters x and y",
    );
    expect_parameter(
        a.cost(&r, &Params::named([("x", 3), ("y", 4), ("k", 1)])),
        "k",
        "only the parameters x and y",
    );
    expect_parameter(a.cost(&r, &Params::None), "x", "x and y");
}

#[test]
fn fixed_algorithms_refuse_parameters() {
    let r = request(Collective::Bcast, 16, 256);
    let a = algorithm(blade(), Collective::Bcast, "binomial-opt");
    expect_parameter(
        a.cost(&r, &Params::named([("x", 2)])),
        "x",
        "no free parameter",
    );
}

#[test]
fn size_zero_is_refused_where_a_size_is_needed() {
    for (collective, name) in [
        (Collective::Bcast, "binomial-opt"),
        (Collective::Allgather, "recursive-doubling"),
        (Collective::Reduce, "binomial"),
        (Collective::Allreduce, "hybrid-a"),
    ] {
        let r = request(collective, 16, 0);
        let a = algorithm(blade(), collective, name);
        match a.space(&r, &SpaceOptions::default()) {
            Err(e @ ModelError::SizeRequired { .. }) => assert!(e.needs_size(), "{e}"),
            other => panic!("{name}: expected an error for size 0, got {other:?}"),
        }
    }
    // Barriers carry no data and ignore the size.
    let r = request(Collective::Barrier, 16, 0);
    assert!(algorithm(blade(), Collective::Barrier, "bruck")
        .cost(&r, &Params::None)
        .is_ok());
}

#[test]
fn buffers_must_fit_the_local_store() {
    // All-gather of 32 KiB from each of 16 SPEs: a 512 KiB receive buffer.
    let r = request(Collective::Allgather, 16, 32768);
    match algorithm(blade(), Collective::Allgather, "recursive-doubling").cost(&r, &Params::None) {
        Err(ModelError::SizeLimit { what, .. }) => assert!(what.contains("local store"), "{what}"),
        other => panic!("expected a local-store error, got {other:?}"),
    }
    // 16 KiB each fills the 256 KiB local store exactly: allowed.
    let r = request(Collective::Allgather, 16, 16384);
    assert!(
        algorithm(blade(), Collective::Allgather, "recursive-doubling")
            .cost(&r, &Params::None)
            .is_ok()
    );
}

#[test]
fn impossible_thread_counts_are_refused() {
    let bcast = |m: &'static machine::Machine, name: &str, p: u32| {
        algorithm(m, Collective::Bcast, name)
            .cost(&request(Collective::Bcast, p, 1024), &Params::None)
    };
    expect_threads(bcast(blade(), "one-to-all", 17), "cell-blade has 16 SPEs");
    expect_threads(bcast(chip(), "one-to-all", 9), "cell-chip has 8 SPEs");
    // Power-of-two rows.
    expect_threads(bcast(chip(), "binomial-opt", 6), "power-of-two");
    // Two-chip rows with one half on each chip need p = 16.
    expect_threads(bcast(blade(), "segmented-binomial", 12), "power-of-two");
    // Two-chip-only algorithms on one chip's worth of SPEs.
    expect_threads(
        bcast(blade(), "hybrid-segmented-binomial", 8),
        "two-chip algorithm",
    );
    // Beyond one blade only the cluster barrier exists.
    let r = request(Collective::Barrier, 24, 0);
    expect_threads(
        algorithm(cluster(), Collective::Barrier, "bruck").cost(&r, &Params::None),
        "only the barrier across blades",
    );
    expect_threads(
        algorithm(cluster(), Collective::Barrier, "cluster-hybrid").cost(&r, &Params::None),
        "multiple of 16",
    );
    // The space refuses what the cost refuses.
    let r = request(Collective::Allreduce, 8, 1024);
    assert!(matches!(
        algorithm(blade(), Collective::Allreduce, "hybrid-a").space(&r, &SpaceOptions::default()),
        Err(ModelError::Threads { .. })
    ));
}

// ---------------------------------------------------------------- machine files

fn load_edited(from: &str, to: &str) -> String {
    let text = blade().text().replacen(from, to, 1);
    assert_ne!(text, blade().text(), "edit `{from}` did not apply");
    match machine::from_text("edited.toml", &text) {
        Ok(_) => panic!("`{to}` should be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_machine_files_name_file_line_and_key() {
    let e = load_edited("chips = 2", "chips = 3");
    assert!(e.starts_with("edited.toml:"), "{e}");
    assert!(e.contains("topology.chips") && e.contains("1 or 2"), "{e}");
    let e = load_edited(
        "ack = { value = 260.0, unit = \"ns\"",
        "ack = { value = 260.0, unit = \"us\"",
    );
    assert!(
        e.contains("inter.ack") && e.contains("unit must be \"ns\""),
        "{e}"
    );
    let e = load_edited("max_threads = 16", "max_threads = 17");
    assert!(e.contains("max_threads") && e.contains("16"), "{e}");
    let e = load_edited("[inter]", "[inter_chip]");
    assert!(e.contains("inter"), "{e}");
    let e = load_edited("value = 33.9", "value = -33.9");
    assert!(
        e.contains("contention.bandwidth") && e.contains("positive"),
        "{e}"
    );
}

#[test]
fn one_chip_files_must_not_have_two_chip_tables() {
    let text = format!(
        "{}\n[contention]\nfree_messages = {{ value = 2.0, unit = \"messages\", source = \"seed 002\" }}\nthreshold = {{ value = 256.0, unit = \"B\", source = \"seed 002\" }}\nbandwidth = {{ value = 30.0, unit = \"GB/s\", source = \"seed 002\" }}\n",
        chip().text()
    );
    let e = machine::from_text("chip.toml", &text)
        .map(|_| ())
        .expect_err("one-chip file with [contention]")
        .to_string();
    assert!(e.contains("two-chip machines"), "{e}");
}

// ---------------------------------------------------------------- laws

fn cell_of(m: &machine::Machine) -> &Cell {
    m.model::<Cell>().expect("a Cell model")
}

/// Every (algorithm, params) pair that prices the request, with its cost.
fn all_costs(m: &machine::Machine, r: &Request) -> Vec<(String, Params, Cost)> {
    let mut out = Vec::new();
    for a in m.algorithms_for(r.collective()) {
        for params in configurations(a.as_ref(), r) {
            if let Ok(c) = a.cost(r, &params) {
                out.push((a.name().to_string(), params, c));
            }
        }
    }
    out
}

fn data_collective() -> impl Strategy<Value = Collective> {
    prop_oneof![
        Just(Collective::Bcast),
        Just(Collective::Allgather),
        Just(Collective::Reduce),
        Just(Collective::Allreduce),
    ]
}

proptest! {
    #[test]
    fn more_bif_messages_never_cost_less(m in 0u64..1_000_000, n in 0u32..64) {
        let c = cell_of(blade()).blade.expect("two chips").contention;
        prop_assert!(c.c(m, n + 1) >= c.c(m, n));
        prop_assert!(c.c(m, n) >= 0.0);
    }

    #[test]
    fn a_larger_message_never_completes_faster(
        collective in data_collective(),
        p in 2u32..=16,
        size in 1u64..8192,
        extra in 0u64..8192,
    ) {
        let m = if p <= 8 && size % 2 == 0 { chip() } else { blade() };
        let small = request(collective, p, size);
        let large = request(collective, p, size + extra);
        for a in m.algorithms_for(collective) {
            for params in configurations(a.as_ref(), &small) {
                if let (Ok(s), Ok(l)) = (a.cost(&small, &params), a.cost(&large, &params)) {
                    prop_assert!(l.min_ns >= s.min_ns - 1e-9, "{} {params}: {} < {}", a.name(), l.min_ns, s.min_ns);
                    prop_assert!(l.max_ns >= s.max_ns - 1e-9, "{} {params}", a.name());
                }
            }
        }
    }

    #[test]
    fn costs_are_finite_ranges_that_add_up(
        collective in prop_oneof![data_collective(), Just(Collective::Barrier)],
        p in 2u32..=64,
        size in 0u64..20000,
    ) {
        let r = request(collective, p, size);
        for m in [chip(), blade(), cluster()] {
            for (name, params, c) in all_costs(m, &r) {
                prop_assert!(c.min_ns.is_finite() && c.min_ns > 0.0, "{name}");
                prop_assert!(c.min_ns <= c.max_ns, "{name} {params}");
                let a = algorithm(m, collective, &name);
                let terms = a.breakdown(&r, &params).expect("breakdown of a priced configuration");
                let sum: f64 = terms.iter().map(|t| t.max_ns).sum();
                prop_assert!((sum - c.max_ns).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn bad_x_is_an_error_never_a_panic(x in -100i64..100, y in -100i64..100, size in 0u64..300_000) {
        let r = request(Collective::Allreduce, 16, size);
        for name in ["hybrid-a", "hybrid-b"] {
            let a = algorithm(blade(), Collective::Allreduce, name);
            let _ = a.cost(&r, &xy(x, y));
        }
    }
}
