//! Optimal parameters under seed 000's best-case models for the Xeon Phi, worked out by hand.
//!
//! With Table 1.5b (R_L 8.6, R_R 235.8, R_I 277.7) and Table 3.2 E-E (b 320.5, c 56.2):
//!
//! **Barrier** (Eq. 4.11): T = r(R_L + (m+1)R_R) = r(8.6 + 235.8(m+1)), r = ⌈log_m n⌉, m ≥ 2
//! (m = 1 only for n = 2). One round costs 716.0 (m=2), 951.8 (m=3), 1187.6 (m=4), 1423.4 (m=5),
//! 1659.2 (m=6), 1895.0 (m=7). For each n the cheapest (m, r) is the smallest r·round(m) with
//! m^r ≥ n, e.g. n = 17: m=5,r=2 → 2846.8 beats m=3,r=3 → 2855.4; n = 26: m=3,r=3 → 2855.4 beats
//! m=6,r=2 → 3318.4 (m=5 needs r=3 since 25 < 26); n = 28: m=6,r=2 → 3318.4 beats m=4,r=3 →
//! 3562.8 and m=3,r=4 → 3807.2; n = 37: m=4,r=3 → 3562.8 beats m=7,r=2 → 3790.0.
//! That reproduces every row of Table B.2, which this test checks row by row.
//!
//! **Small broadcast** (Eq. 4.7, min): per level 2R_I + 2R_L + b = 893.1, per child c + R_R =
//! 292.0, so T = R_I + 893.1·d + 292.0·Σk_i: a level is worth 3.06 children. E.g. n = 9: d=1,k=8 →
//! 277.7 + 893.1 + 2336 = 3506.8; d=2 needs Σk ≥ 5 (3,2) → 277.7 + 1786.2 + 1460 = 3523.9, so
//! d = 1 wins by 17.1 ns (Table B.1 prints d=2, k=(3,2)).

use modelopt_model::{machine, Collective, Params, Request};
use modelopt_optimizer::{tune, Objective, SearchOptions};

/// Table B.2 of seed 000: n → (m, r), as printed.
const TABLE_B2: [(u32, u32, u32); 59] = {
    let mut t = [(0, 0, 0); 59];
    let mut i = 0;
    while i < 59 {
        let n = i as u32 + 2;
        let (m, r) = match n {
            2 => (1, 1),
            3..=4 => (2, 2),
            5..=9 => (3, 2),
            10..=16 => (4, 2),
            17..=25 => (5, 2),
            26..=27 => (3, 3),
            28..=36 => (6, 2),
            _ => (4, 3),
        };
        t[i] = (n, m, r);
        i += 1;
    }
    t
};

fn best(collective: Collective, n: u32) -> (Params, f64) {
    let phi = machine::load("xeon-phi").unwrap();
    let request = Request::new(collective, n).unwrap();
    let t = tune(&phi, &request, &SearchOptions::new(Objective::Min, 1), None).unwrap();
    let b = t.best().unwrap();
    (b.scored.params.clone(), b.scored.cost.min_ns)
}

#[test]
fn barrier_optimum_matches_table_b2_for_every_n() {
    for (n, m, r) in TABLE_B2 {
        let (params, _) = best(Collective::Barrier, n);
        assert_eq!(
            params,
            Params::Dissemination {
                degree: m,
                rounds: r
            },
            "n = {n}"
        );
    }
}

#[test]
fn barrier_costs_by_hand() {
    // n = 17: 2 rounds of m = 5: 2(8.6 + 6·235.8) = 2846.8.
    assert!((best(Collective::Barrier, 17).1 - 2846.8).abs() < 1e-9);
    // n = 26: 3 rounds of m = 3: 3(8.6 + 4·235.8) = 2855.4.
    assert!((best(Collective::Barrier, 26).1 - 2855.4).abs() < 1e-9);
}

#[test]
fn small_broadcast_by_hand() {
    let tree = |d: &[u32]| Params::Tree {
        depth: d.len() as u32,
        degrees: d.to_vec(),
    };
    // n = 9: d = 1, k = 8 → 3506.8 (see module docs).
    let (p, t) = best(Collective::Bcast, 9);
    assert_eq!(p, tree(&[8]));
    assert!((t - 3506.8).abs() < 1e-9);
    // n = 30: d=2 needs 1 + k1 + k1·k2 ≥ 30: Σk = 10 with (5,5) → 31 nodes; d=3 needs Σk ≥ 8
    // ((3,3,2) → 1+3+9+18 = 31): 277.7 + 2679.3 + 2336 = 5293.0 vs d=2: 277.7 + 1786.2 + 2920 =
    // 4983.9 → (5,5); (6,4) ties on cost and loses on the lexicographic rule. Table B.1: (5,5).
    let (p, t) = best(Collective::Bcast, 30);
    assert_eq!(p, tree(&[5, 5]));
    assert!((t - 4983.9).abs() < 1e-9);
    // n = 60: d=3, Σk = 11 (4,4,3) → 277.7 + 2679.3 + 3212 = 6169.0; (5,3,3), (5,4,2), (6,3,2)
    // tie and lose on the lexicographic rule; d=2 needs Σk = 15 → 6443.9. Table B.1: (4,4,3).
    let (p, t) = best(Collective::Bcast, 60);
    assert_eq!(p, tree(&[4, 4, 3]));
    assert!((t - 6169.0).abs() < 1e-9);
}

#[test]
fn small_reduction_by_hand() {
    // Eq. (4.13) per level: R_I + T_C(k) + (1+k)R_R + R_L + T_k with T_k = 76k + 1521 − 1096/k:
    // = 2363.6 + 368k − 1096/k, plus a final R_R = 235.8.
    // n = 2: k = 1 → 2363.6 + 368 − 1096 + 235.8 = 1871.4.
    let (p, t) = best(Collective::Reduce, 2);
    assert_eq!(
        p,
        Params::Tree {
            depth: 1,
            degrees: vec![1]
        }
    );
    assert!((t - 1871.4).abs() < 1e-9);
    // n = 8: d=1,k=7 → 2363.6 + 2576 − 156.571 + 235.8 = 5018.829;
    //        d=2,(3,2)/(2,3)... minimal covers with Σk=5: (3,2) → 2·2363.6 + 368·5 − 1096/3 − 548
    //        + 235.8 = 5889.7; d=1 wins.
    let (p, t) = best(Collective::Reduce, 8);
    assert_eq!(
        p,
        Params::Tree {
            depth: 1,
            degrees: vec![7]
        }
    );
    assert!((t - (2363.6 + 2576.0 - 1096.0 / 7.0 + 235.8)).abs() < 1e-9);
}
