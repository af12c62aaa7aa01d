//! Sensitivity of an optimum (issue 5): one-at-a-time ranges worked out by hand, and Monte Carlo
//! reproducibility.
//!
//! ## Xeon Phi barrier at 60 threads, by hand
//! Seed 000 Eq. (4.11), best case: T(m) = r·(R_L + (m+1)·R_R) with r = ⌈log_m 60⌉ (Table B.2's
//! rounds rule). The candidates that can win are the smallest m for each r:
//!
//! | m | r | T |
//! |---|---|---|
//! | 2 | 6 | 6R_L + 18R_R |
//! | 3 | 4 | 4R_L + 16R_R |
//! | 4 | 3 | 3R_L + 15R_R |
//! | 8 | 2 | 2R_L + 18R_R |
//! | 59 | 1 | R_L + 60R_R |
//!
//! (a larger m with the same r only adds R_R.) m = 4 beats m = 2 and m = 3 for every positive
//! R_L, R_R; it beats m = 8 iff 3R_L + 15R_R < 2R_L + 18R_R, i.e. **R_L < 3·R_R**; and m = 59
//! iff R_L < 22.5·R_R, which is weaker. So with R_L = 8.6 ns and R_R = 235.8 ns (Table 1.5b):
//!
//! - R_R may fall to R_L/3 = 2.8667 ns, a factor 2.8667/235.8 = **0.012157**, before m = 8, r = 2
//!   takes over; it may grow without bound;
//! - R_L may grow to 3·R_R = 707.4 ns, a factor 707.4/8.6 = **82.256**, before m = 8, r = 2 takes
//!   over; it may shrink without bound;
//! - R_I does not enter the barrier at all.

use modelopt_model::{machine, Collective, Params, Request};
use modelopt_optimizer::sensitivity::{Analysis, Limit, MonteCarloOptions, RangeOptions};
use modelopt_optimizer::{Objective, SearchOptions};

fn phi_barrier_60() -> (modelopt_model::Machine, Request) {
    (
        machine::load("xeon-phi").unwrap(),
        Request::new(Collective::Barrier, 60).unwrap(),
    )
}

fn wide() -> RangeOptions {
    RangeOptions {
        min_factor: 1e-3,
        max_factor: 1e3,
        ..RangeOptions::default()
    }
}

fn m8() -> Params {
    Params::Dissemination {
        degree: 8,
        rounds: 2,
    }
}

#[test]
fn xeon_phi_barrier_ranges_match_the_hand_derivation() {
    let (phi, request) = phi_barrier_60();
    let analysis = Analysis::new(&phi, request, SearchOptions::new(Objective::Min, 1)).unwrap();
    assert_eq!(
        analysis.chosen().params,
        Params::Dissemination {
            degree: 4,
            rounds: 3
        }
    );
    let ranges = analysis
        .ranges(&["line.remote", "line.local", "line.invalid"], &wide())
        .unwrap();
    let close = |got: f64, want: f64| {
        assert!(
            (got - want).abs() / want <= 1e-3,
            "got {got}, want {want} within 1e-3"
        )
    };

    let remote = &ranges[0];
    assert!(remote.affects_chosen);
    let lower = remote.lower.as_ref().unwrap();
    close(lower.factor, 8.6 / 3.0 / 235.8);
    close(lower.value, 8.6 / 3.0);
    assert!(
        lower.factor >= 8.6 / 3.0 / 235.8 * (1.0 - 1e-9),
        "the edge is on the optimal side"
    );
    assert_eq!(
        lower.limit,
        Limit::Overtaken {
            algorithm: "dissemination".into(),
            params: m8()
        }
    );
    let upper = remote.upper.as_ref().unwrap();
    assert_eq!((upper.factor, &upper.limit), (1e3, &Limit::ScanEnd));

    let local = &ranges[1];
    assert!(local.affects_chosen);
    let upper = local.upper.as_ref().unwrap();
    close(upper.factor, 3.0 * 235.8 / 8.6);
    close(upper.value, 707.4);
    assert_eq!(
        upper.limit,
        Limit::Overtaken {
            algorithm: "dissemination".into(),
            params: m8()
        }
    );
    assert_eq!(local.lower.as_ref().unwrap().limit, Limit::ScanEnd);

    let invalid = &ranges[2];
    assert!(!invalid.affects_chosen);
    assert_eq!(invalid.lower.as_ref().unwrap().limit, Limit::ScanEnd);
    assert_eq!(invalid.upper.as_ref().unwrap().limit, Limit::ScanEnd);
}

#[test]
fn default_scan_covers_every_parameter_in_file_order() {
    let (phi, request) = phi_barrier_60();
    let analysis = Analysis::new(&phi, request, SearchOptions::new(Objective::Min, 1)).unwrap();
    let ranges = analysis.ranges(&[], &RangeOptions::default()).unwrap();
    let keys: Vec<String> = phi.params().into_iter().map(|p| p.key).collect();
    let got: Vec<String> = ranges.iter().map(|r| r.key.clone()).collect();
    assert_eq!(got, keys);
    // Within 0.1×..10× nothing moves the barrier's optimum (the edges are at 0.012× and 82×);
    // a range may only end where the machine file refuses the value (e.g. contention `a` must
    // keep T_C(1) = c + b - a positive).
    for r in &ranges {
        for edge in [&r.lower, &r.upper].into_iter().flatten() {
            assert!(
                !matches!(edge.limit, Limit::Overtaken { .. }),
                "{}: {edge:?}",
                r.key
            );
        }
    }
    // Only R_L and R_R enter the barrier's cost.
    let used: Vec<&str> = ranges
        .iter()
        .filter(|r| r.affects_chosen)
        .map(|r| r.key.as_str())
        .collect();
    assert_eq!(used, ["line.local", "line.remote"]);
}

#[test]
fn values_the_machine_file_refuses_end_a_range() {
    // Contention a must keep c + b - a > 0 (T_C(1) positive): for I-E (b 863.6, c 23.9) a may grow
    // to 887.5, a factor 887.5 / 667.4 = 1.3298 of its value.
    let phi = machine::load("xeon-phi").unwrap();
    let request = Request::new(Collective::Bcast, 8)
        .unwrap()
        .with_state("I-E".parse().unwrap());
    let analysis = Analysis::new(&phi, request, SearchOptions::new(Objective::Min, 1)).unwrap();
    let r = &analysis
        .ranges(&["contention[2].a"], &RangeOptions::default())
        .unwrap()[0];
    let upper = r.upper.as_ref().unwrap();
    match &upper.limit {
        Limit::Invalid { reason } => assert!(reason.contains("c + b - a"), "{reason}"),
        Limit::Overtaken { .. } => assert!(upper.factor < 887.5 / 667.4),
        Limit::ScanEnd => panic!("a cannot grow 10×"),
        Limit::Stopped { .. } => panic!("no time limit was set"),
    }
    assert!(upper.factor <= 887.5 / 667.4 + 1e-9);
}

#[test]
fn unknown_keys_and_bad_options_are_errors() {
    let (phi, request) = phi_barrier_60();
    let analysis = Analysis::new(&phi, request, SearchOptions::new(Objective::Min, 1)).unwrap();
    let err = analysis
        .ranges(&["line.nope"], &RangeOptions::default())
        .unwrap_err();
    assert!(err.to_string().contains("line.nope"), "{err}");
    let bad = RangeOptions {
        min_factor: 2.0,
        ..RangeOptions::default()
    };
    assert!(analysis.ranges(&[], &bad).is_err());
    let none = MonteCarloOptions {
        samples: 0,
        ..MonteCarloOptions::default()
    };
    assert!(analysis.monte_carlo(&none).is_err());
}

#[test]
fn monte_carlo_is_reproducible_for_a_fixed_seed() {
    // Small broadcast at 9 threads: d = 1 (k = 8) beats d = 2 (k = 3,2) by only 17.1 ns on the
    // measured values (see tests/appendix_b.rs), so the spreads of Table 1.6 make both win.
    let phi = machine::load("xeon-phi").unwrap();
    let request = Request::new(Collective::Bcast, 9).unwrap();
    let analysis = Analysis::new(&phi, request, SearchOptions::new(Objective::Min, 1)).unwrap();
    let options = MonteCarloOptions {
        samples: 300,
        seed: 42,
        ..MonteCarloOptions::default()
    };
    let first = analysis.monte_carlo(&options).unwrap();
    let again = analysis.monte_carlo(&options).unwrap();
    assert_eq!(first, again);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let serial = pool.install(|| analysis.monte_carlo(&options).unwrap());
    assert_eq!(first, serial);

    assert_eq!(first.samples, 300);
    let total: f64 = first.candidates.iter().map(|c| c.p_optimal).sum();
    assert!((total - 1.0).abs() < 1e-12, "{total}");
    // Both trees win sometimes.
    let p = |d: u32| {
        first
            .candidates
            .iter()
            .filter(|c| matches!(&c.params, Params::Tree { depth, .. } if *depth == d))
            .map(|c| c.p_optimal)
            .sum::<f64>()
    };
    assert!(p(1) > 0.0 && p(2) > 0.0, "d=1: {}, d=2: {}", p(1), p(2));
    // Only the parameters with a standard deviation are drawn.
    assert!(first.drawn.iter().any(|(k, _)| k == "line.remote"));
    assert!(!first.drawn.iter().any(|(k, _)| k == "contention[0].c"));

    let other = analysis
        .monte_carlo(&MonteCarloOptions {
            seed: 43,
            ..options
        })
        .unwrap();
    assert_ne!(first, other);
}

#[test]
fn a_robust_optimum_wins_every_sample() {
    // R_L < 3 R_R holds for any plausible draw of Table 1.6's spreads: m = 4 always wins.
    let (phi, request) = phi_barrier_60();
    let analysis = Analysis::new(&phi, request, SearchOptions::new(Objective::Min, 1)).unwrap();
    let mc = analysis
        .monte_carlo(&MonteCarloOptions {
            samples: 200,
            seed: 7,
            ..MonteCarloOptions::default()
        })
        .unwrap();
    let top = &mc.candidates[0];
    assert_eq!(
        top.params,
        Params::Dissemination {
            degree: 4,
            rounds: 3
        }
    );
    assert_eq!(top.p_optimal, 1.0);
    assert_eq!(top.worst_regret_percent, 0.0);
    assert_eq!(mc.best_in_expectation, 0);
    assert_eq!(mc.best_worst_case, 0);
}

#[test]
fn the_time_limit_holds_for_the_whole_analysis() {
    // 64 threads on four sockets under a work budget of 10^6 (the exact search's covering pass
    // needs 17⁴ · (4·16 + 2·76) = 18,040,536 table entries, socket_dp's unit test works out
    // the 76 suffix states): each tuning runs its over-budget search,
    // and a scan of one parameter tunes ~20 times per side. The limit used to hold for each
    // tuning alone, so `sensitivity --time-limit 2` ran for minutes; now the analysis's tuning,
    // its scans and its Monte Carlo run share one deadline from `Analysis::new`, and a scan the
    // limit cuts short says so (the edge is the last factor known optimal).
    let m = machine::load("xeon-e5-4650-4s").unwrap();
    let request = Request::new(Collective::Bcast, 64).unwrap();
    let mut search = SearchOptions::new(Objective::Min, 1);
    // A release build runs every scan to its end within 0.5 s (the edges below need not all
    // be cut short), so it gets a fifth of that.
    let limit = std::time::Duration::from_millis(if cfg!(debug_assertions) { 500 } else { 100 });
    search.limits.time_limit = Some(limit);
    search.limits.work_budget = 1_000_000;
    let t0 = std::time::Instant::now();
    let analysis = Analysis::new(&m, request, search).unwrap();
    // Said before it starts: this request's search is over the work budget.
    assert!(analysis.tunings_run_to_budget());
    let ranges = analysis
        .ranges(
            &["line.remote", "line.remote_socket"],
            &RangeOptions::default(),
        )
        .unwrap();
    let mc = analysis
        .monte_carlo(&MonteCarloOptions {
            samples: 20,
            ..MonteCarloOptions::default()
        })
        .unwrap();
    let took = t0.elapsed();
    // The chunk in flight when the limit passes answers at once (stopgap trees): a margin for
    // a debug build on a busy machine.
    assert!(took < limit + std::time::Duration::from_secs(4), "{took:?}");
    // The limit cut the scans short: an edge found before it passed stands (a release build
    // finds the lower edge of line.remote, overtaken at a factor of 0.998, within 0.5 s), the
    // others say they stopped.
    let edges: Vec<_> = ranges
        .iter()
        .flat_map(|r| [&r.lower, &r.upper].into_iter().flatten())
        .collect();
    assert!(edges.iter().all(|edge| edge.factor > 0.0), "{ranges:?}");
    assert!(
        edges
            .iter()
            .any(|edge| matches!(edge.limit, Limit::Stopped { .. })),
        "{ranges:?}"
    );
    assert!(mc.stopped.is_some());
    assert_eq!(mc.samples, 0);
    assert!(mc.candidates.is_empty());
}

#[test]
fn the_number_of_range_tunings_is_known_before_the_scan() {
    // Defaults: 8 grid steps per side from 1 to 0.1 (or 10), each a factor 10^(1/8): ln = 0.28782;
    // bisecting it to a relative 1e-3 (ln 1.001 = 0.0009995) takes ⌈log₂(0.28782 / 0.0009995)⌉
    // = ⌈log₂ 287.97⌉ = ⌈8.17⌉ = 9 steps. So 17 tunings a side, 34 a parameter.
    let (m, request) = phi_barrier_60();
    let analysis = Analysis::new(&m, request, SearchOptions::new(Objective::Min, 1)).unwrap();
    let defaults = RangeOptions::default();
    assert_eq!(analysis.range_tunings(2, &defaults), 68);
    assert_eq!(
        analysis.range_tunings(0, &defaults),
        34 * analysis.params().len() as u64
    );
    // The dissemination barrier's search finishes within any budget.
    assert!(!analysis.tunings_run_to_budget());
}
