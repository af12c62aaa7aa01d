//! Single-line ping-pong estimates recomputed from the measured reads (seed 000, Eq. 2.1, 2.2).
//!
//! The "Estimation" columns of Tables 2.2, 2.3 (Sandy Bridge) and 2.5–2.7 (Xeon Phi) are the sum
//! R_{L,S_s} + R_{R,S_r} + R_{R,M} of Table 1.7 / 1.6 values, with σ = sqrt(σ0² + σ1² + σ2²). The
//! published estimates are rounded to 0.1 ns from Table values themselves rounded, so we allow
//! 0.15 ns on averages and 0.1 ns on standard deviations.

use modelopt_model::cache_coherent::CacheCoherent;
use modelopt_model::machine::load;
use modelopt_model::LineState::{self, E, F, I, M, S};

fn check(
    model: &CacheCoherent,
    location: &str,
    send: LineState,
    recv: LineState,
    avg: f64,
    stdev: f64,
) {
    let pp = model.ping_pong(location, send, recv).unwrap();
    assert!(
        (pp.estimate_ns - avg).abs() <= 0.15,
        "{location} {send}-{recv}: estimate {} vs published {avg}",
        pp.estimate_ns
    );
    assert!(
        (pp.estimate_stdev_ns - stdev).abs() <= 0.1,
        "{location} {send}-{recv}: stdev {} vs published {stdev}",
        pp.estimate_stdev_ns
    );
}

#[test]
fn xeon_phi_table_2_5_adjacent_cores() {
    let m = load("xeon-phi").unwrap();
    let phi: &CacheCoherent = m.model().unwrap();
    // M-M: 8.600 + 241.218 + 241.218 = 491.036; σ = sqrt(0.227² + 2·21.718²) = 30.71.
    check(phi, "adjacent", M, M, 491.0, 30.7);
    // M-E: 8.600 + 227.412 + 241.218 = 477.23; σ = sqrt(0.227² + 20.637² + 21.718²) = 29.96.
    check(phi, "adjacent", M, E, 477.2, 30.0);
    // E-S: 8.603 + 232.002 + 241.218 = 481.82.
    check(phi, "adjacent", E, S, 481.8, 24.0);
    // I-M: 277.650 + 2·241.218 = 760.09; σ = sqrt(34.016² + 2·21.718²) = 45.83 (published 45.9).
    check(phi, "adjacent", I, M, 760.1, 45.9);
    check(phi, "adjacent", I, E, 746.3, 45.3);
    check(phi, "adjacent", I, S, 750.9, 41.6);
}

#[test]
fn xeon_phi_table_2_6_middle_distance() {
    let m = load("xeon-phi").unwrap();
    let phi: &CacheCoherent = m.model().unwrap();
    // M-M: 8.600 + 2·234.702 = 478.004; σ = sqrt(0.227² + 2·25.617²) = 36.23.
    check(phi, "middle", M, M, 478.0, 36.2);
    // E-E: 8.603 + 235.796 + 234.702 = 479.10.
    check(phi, "middle", E, E, 479.1, 36.1);
    // S-S: 8.662 + 233.363 + 234.702 = 476.73; σ = sqrt(0.883² + 34.959² + 25.617²) = 43.35.
    check(phi, "middle", S, S, 476.7, 43.3);
    check(phi, "middle", I, M, 747.1, 49.7);
    check(phi, "middle", I, S, 745.7, 55.1);
    // Fitted, Eq. (2.19): R_L + R_R + R_R + O_M = 478.004 + 20 = 498.0 (measured 501.0).
    let pp = phi.ping_pong("middle", M, M).unwrap();
    let (fitted, eq) = pp.fitted.unwrap();
    assert!((fitted - 498.004).abs() < 1e-9);
    assert!(eq.contains("2.19"));
}

#[test]
fn xeon_phi_table_2_7_largest_distance() {
    let m = load("xeon-phi").unwrap();
    let phi: &CacheCoherent = m.model().unwrap();
    // M-M: 8.600 + 2·240.098 = 488.796; σ = sqrt(0.227² + 2·10.377²) = 14.68.
    check(phi, "largest", M, M, 488.8, 14.7);
    // E-E: 8.603 + 237.370 + 240.098 = 486.07; σ = sqrt(0.246² + 27.731² + 10.377²) = 29.61.
    check(phi, "largest", E, E, 486.1, 29.6);
    check(phi, "largest", I, S, 751.1, 42.1);
    // No fitted equation is given for this distance.
    assert!(phi.ping_pong("largest", M, M).unwrap().fitted.is_none());
}

#[test]
fn xeon_phi_table_2_4_same_core() {
    let m = load("xeon-phi").unwrap();
    let phi: &CacheCoherent = m.model().unwrap();
    // M-M: 3·8.6 = 25.8; I-M: 277.65 + 2·8.6 = 294.85.
    check(phi, "same_core", M, M, 25.8, 0.4);
    check(phi, "same_core", I, M, 294.9, 34.0);
    // Eq. (2.18): + 130 → 424.85 (measured 429.5).
    let (fitted, _) = phi.ping_pong("same_core", I, M).unwrap().fitted.unwrap();
    assert!((fitted - 424.85).abs() < 1e-9);
}

#[test]
fn sandy_bridge_table_2_2_same_processor() {
    let m = load("sandy-bridge-e5-2670").unwrap();
    let sb: &CacheCoherent = m.model().unwrap();
    // M-M: 2.3 + 41.6 + 41.6 = 85.5 (published 85.4: Table 1.7 is rounded); σ = sqrt(.07² + 2·3.63²) = 5.13.
    check(sb, "same_processor", M, M, 85.4, 5.1);
    // E-E: 2.3 + 32.8 + 41.6 = 76.7; σ = sqrt(.04² + 2.83² + 3.63²) = 4.60.
    check(sb, "same_processor", E, E, 76.7, 4.6);
    // M-F: 2.3 + 15.1 + 41.6 = 59.0.
    check(sb, "same_processor", M, F, 59.0, 3.7);
    // I-E: 69.3 + 32.8 + 41.6 = 143.7; I-F: 69.3 + 15.1 + 41.6 = 126.0.
    check(sb, "same_processor", I, E, 143.7, 8.4);
    check(sb, "same_processor", I, F, 126.0, 7.9);
    check(sb, "same_processor", F, S, 59.6, 4.2);
    // Eq. (2.8): 2.3 + 41.6 + 41.6 − 5.5 = 80.0 (measured 80.1).
    let (fitted, _) = sb
        .ping_pong("same_processor", M, M)
        .unwrap()
        .fitted
        .unwrap();
    assert!((fitted - 80.0).abs() < 1e-9);
    // Eq. (2.9) prices an S receive buffer as E: 2.3 + 32.8 + 41.6 − 4 = 72.7 (measured 73.1).
    let (fitted, _) = sb
        .ping_pong("same_processor", E, S)
        .unwrap()
        .fitted
        .unwrap();
    assert!((fitted - 72.7).abs() < 1e-9);
}

#[test]
fn sandy_bridge_table_2_3_other_processor() {
    let m = load("sandy-bridge-e5-2670").unwrap();
    let sb: &CacheCoherent = m.model().unwrap();
    // M-M: 2.3 + 2·115.4 = 233.1; E-E: 2.3 + 75.7 + 115.4 = 193.4; I-M: 69.3 + 230.8 = 300.1.
    check(sb, "other_processor", M, M, 233.1, 7.3);
    check(sb, "other_processor", E, E, 193.4, 6.4);
    check(sb, "other_processor", I, M, 300.1, 10.1);
    // Eq. (2.15), O_F (printed O_I) = 12.31: 69.3 + 16.0 + 115.4 + 12.31 = 213.01 (measured 213.0).
    let (fitted, _) = sb
        .ping_pong("other_processor", I, F)
        .unwrap()
        .fitted
        .unwrap();
    assert!((fitted - 213.01).abs() < 1e-9);
}

#[test]
fn receive_buffer_in_i_is_rejected() {
    let m = load("xeon-phi").unwrap();
    let phi: &CacheCoherent = m.model().unwrap();
    assert!(phi.ping_pong("middle", E, I).is_err());
    assert!(phi.ping_pong("nowhere", E, E).is_err());
}
