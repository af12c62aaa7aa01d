//! Robust statistics of measured latencies and rank agreement between prediction and
//! measurement.
//!
//! - Percentiles use the **nearest-rank** definition: the p-th percentile of n sorted samples is
//!   the sample of rank ⌈p·n/100⌉ (1-based), and the 0th is the minimum. No interpolation, so every
//!   reported value is a sample that was measured. The median is the 50th percentile by the same
//!   rule (for an even n, the lower of the two middle samples).
//! - Rank agreement is Kendall's τ_b (Kendall 1945, "The treatment of ties in ranking problems"),
//!   which corrects τ for ties in either ranking:
//!   τ_b = (n_c − n_d) / √((n_0 − n_1)(n_0 − n_2)), with n_0 = n(n−1)/2, n_1 = Σ t_i(t_i−1)/2 over the
//!   groups of ties in the first ranking and n_2 the same in the second. It is undefined (None) when
//!   either ranking is all ties, e.g. for fewer than two items.

use serde::Serialize;

/// Order statistics of a sample, in the sample's unit (nanoseconds in this crate).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// Number of samples.
    pub count: usize,
    /// Smallest sample.
    pub min: f64,
    /// 5th percentile (nearest rank).
    pub p5: f64,
    /// 25th percentile (nearest rank): the lower edge of a box plot's box.
    pub p25: f64,
    /// Median: 50th percentile (nearest rank).
    pub median: f64,
    /// 75th percentile (nearest rank): the upper edge of a box plot's box.
    pub p75: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Largest sample.
    pub max: f64,
}

impl Summary {
    /// Summarize `samples`; `None` when there are none or one is not finite.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let at = |p: f64| nearest_rank(&sorted, p);
        Some(Summary {
            count: sorted.len(),
            min: sorted[0],
            p5: at(5.0),
            p25: at(25.0),
            median: at(50.0),
            p75: at(75.0),
            p95: at(95.0),
            max: sorted[sorted.len() - 1],
        })
    }
}

/// The nearest-rank p-th percentile of sorted, non-empty samples (0 ≤ p ≤ 100): the sample of
/// 1-based rank ⌈p·n/100⌉, or the minimum for p = 0.
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let rank = (p.clamp(0.0, 100.0) / 100.0 * n as f64).ceil() as usize;
    sorted[rank.clamp(1, n) - 1]
}

/// Kendall's τ_b between two rankings given as scores (lower or higher, as long as both use the
/// same direction): +1 when they order every pair alike, −1 when oppositely. `None` when the
/// lengths differ, when there are fewer than two items, or when either side is all ties.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    if n != y.len() || n < 2 {
        return None;
    }
    let (mut concordant, mut discordant) = (0i64, 0i64);
    let (mut ties_x, mut ties_y) = (0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[i].total_cmp(&x[j]);
            let dy = y[i].total_cmp(&y[j]);
            use std::cmp::Ordering::Equal;
            match (dx, dy) {
                (Equal, Equal) => {
                    ties_x += 1;
                    ties_y += 1;
                }
                (Equal, _) => ties_x += 1,
                (_, Equal) => ties_y += 1,
                (a, b) if a == b => concordant += 1,
                _ => discordant += 1,
            }
        }
    }
    // Σ t(t−1)/2 over tie groups equals the number of tied pairs, counted above.
    let pairs = (n * (n - 1) / 2) as i64;
    let denominator = (((pairs - ties_x) * (pairs - ties_y)) as f64).sqrt();
    if denominator == 0.0 {
        return None;
    }
    Some((concordant - discordant) as f64 / denominator)
}

/// Ranks (1 = smallest) of scores, ties sharing the smallest rank of their group ("1224"
/// competition ranking); the order of equal scores does not matter.
pub fn competition_ranks(scores: &[f64]) -> Vec<usize> {
    scores
        .iter()
        .map(|s| 1 + scores.iter().filter(|t| t.total_cmp(s).is_lt()).count())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles_of_twenty_samples() {
        // Samples 1..=20 given shuffled. n = 20:
        // p5: ⌈0.05·20⌉ = 1 → 1;  p25: ⌈5⌉ = 5 → 5;  median: ⌈10⌉ = 10 → 10;
        // p75: ⌈15⌉ = 15 → 15;    p95: ⌈19⌉ = 19 → 19;  min 1, max 20.
        let mut v: Vec<f64> = (1..=20).map(f64::from).collect();
        v.reverse();
        v.swap(3, 11);
        let s = Summary::of(&v).unwrap();
        assert_eq!(s.count, 20);
        assert_eq!(
            (s.min, s.p5, s.p25, s.median, s.p75, s.p95, s.max),
            (1.0, 1.0, 5.0, 10.0, 15.0, 19.0, 20.0)
        );
    }

    #[test]
    fn nearest_rank_on_small_and_odd_samples() {
        // n = 5, sorted 10 20 30 40 50: p5 ⌈0.25⌉ = 1 → 10; p25 ⌈1.25⌉ = 2 → 20;
        // median ⌈2.5⌉ = 3 → 30; p75 ⌈3.75⌉ = 4 → 40; p95 ⌈4.75⌉ = 5 → 50.
        let s = Summary::of(&[50.0, 10.0, 40.0, 30.0, 20.0]).unwrap();
        assert_eq!(
            (s.p5, s.p25, s.median, s.p75, s.p95),
            (10.0, 20.0, 30.0, 40.0, 50.0)
        );
        // n = 4, sorted 1 2 3 100: median ⌈2⌉ = 2 → 2 (the lower middle; an outlier does not move it).
        assert_eq!(Summary::of(&[100.0, 3.0, 1.0, 2.0]).unwrap().median, 2.0);
        // One sample: every statistic is it.
        let one = Summary::of(&[7.0]).unwrap();
        assert_eq!((one.min, one.p5, one.median, one.p95), (7.0, 7.0, 7.0, 7.0));
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn kendall_tau_without_ties() {
        // Identical order: all 6 pairs of 4 items concordant → τ = 1.
        assert_eq!(
            kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]),
            Some(1.0)
        );
        // Reversed: all discordant → −1.
        assert_eq!(
            kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]),
            Some(-1.0)
        );
        // x = 1 2 3 4, y = 1 3 2 4: pairs (1,2)+ (1,3)+ (1,4)+ (2,3)− (2,4)+ (3,4)+
        // n_c = 5, n_d = 1 → τ = 4/6 = 2/3.
        let t = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((t - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn kendall_tau_b_with_ties() {
        // x = 1 1 2 3 (a tie between items 0 and 1), y = 1 2 3 4.
        // Pairs: (0,1) tied in x only; (0,2)+ (0,3)+ (1,2)+ (1,3)+ (2,3)+ → n_c = 5, n_d = 0.
        // n_0 = 6, n_1 = 1, n_2 = 0: τ_b = 5 / √(5·6) = 5/√30 ≈ 0.912871.
        let t = kendall_tau_b(&[1.0, 1.0, 2.0, 3.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!((t - 5.0 / 30f64.sqrt()).abs() < 1e-12);
        // x = 1 1 2 2, y = 1 2 1 2: pairs (0,1) x-tie; (0,2) y-tie; (0,3)+; (1,2)−; (1,3) y-tie;
        // (2,3) x-tie. n_c = 1, n_d = 1 → τ_b = 0 / √((6−2)(6−2)) = 0.
        assert_eq!(
            kendall_tau_b(&[1.0, 1.0, 2.0, 2.0], &[1.0, 2.0, 1.0, 2.0]),
            Some(0.0)
        );
        // All ties on one side: undefined.
        assert_eq!(kendall_tau_b(&[5.0, 5.0, 5.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(kendall_tau_b(&[1.0], &[1.0]), None);
        assert_eq!(kendall_tau_b(&[1.0, 2.0], &[1.0]), None);
    }

    #[test]
    fn competition_ranking() {
        // 30 20 20 10 → ranks 4 2 2 1.
        assert_eq!(
            competition_ranks(&[30.0, 20.0, 20.0, 10.0]),
            vec![4, 2, 2, 1]
        );
    }

    proptest::proptest! {
        #[test]
        fn percentiles_are_ordered_samples(v in proptest::collection::vec(-1e6f64..1e6, 1..200)) {
            let s = Summary::of(&v).unwrap();
            proptest::prop_assert!(s.min <= s.p5 && s.p5 <= s.p25 && s.p25 <= s.median);
            proptest::prop_assert!(s.median <= s.p75 && s.p75 <= s.p95 && s.p95 <= s.max);
            proptest::prop_assert!(v.contains(&s.median) && v.contains(&s.p95));
        }

        #[test]
        fn tau_is_symmetric_and_bounded(v in proptest::collection::vec((0u8..6, 0u8..6), 2..30)) {
            let x: Vec<f64> = v.iter().map(|p| f64::from(p.0)).collect();
            let y: Vec<f64> = v.iter().map(|p| f64::from(p.1)).collect();
            let a = kendall_tau_b(&x, &y);
            proptest::prop_assert_eq!(a, kendall_tau_b(&y, &x));
            if let Some(t) = a {
                proptest::prop_assert!((-1.0 - 1e-12..=1.0 + 1e-12).contains(&t));
            }
        }
    }
}
