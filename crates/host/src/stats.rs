//! Robust statistics of timing samples and least-squares fits of the seeds' models.
//!
//! Timings have a floor (the hardware cost) and a long right tail (interrupts, a vCPU being
//! descheduled, SMIs), so the centre is the **median** and the spread the **median absolute
//! deviation** (MAD) and the interquartile range (IQR), not the mean and standard deviation. The
//! coefficient of variation reported is the robust one, `cv = 1.4826·MAD / median`
//! (1.4826·MAD estimates σ for normal data), so one 50 µs interrupt among 1000 samples does not
//! mark a benchmark noisy while a bimodal or drifting benchmark is.
//!
//! Fits are linear least squares in the models' parameters, solved by nalgebra's SVD (which also
//! copes with a rank-deficient design), with R² = 1 − SS_res / SS_tot.

use crate::error::HostError;
use nalgebra::{DMatrix, DVector};

/// The factor that turns a MAD into a standard-deviation estimate for normal data
/// (1 / Φ⁻¹(3/4)).
pub const MAD_TO_SIGMA: f64 = 1.4826;

/// Robust summary of one set of samples (ns or any unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// Median absolute deviation from the median.
    pub mad: f64,
    /// First quartile (linear interpolation between order statistics, "type 7").
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

impl Summary {
    /// Summarize `samples`; `None` when there are none or one is not finite.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = quantile_sorted(&sorted, 0.5);
        let mut dev: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
        dev.sort_by(f64::total_cmp);
        Some(Summary {
            n: sorted.len(),
            median,
            mad: quantile_sorted(&dev, 0.5),
            q1: quantile_sorted(&sorted, 0.25),
            q3: quantile_sorted(&sorted, 0.75),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
        })
    }

    /// Interquartile range q3 − q1.
    pub fn iqr(&self) -> f64 {
        self.q3 - self.q1
    }

    /// Robust standard deviation estimate 1.4826·MAD.
    pub fn sigma(&self) -> f64 {
        MAD_TO_SIGMA * self.mad
    }

    /// Robust coefficient of variation 1.4826·MAD / |median| (0 when the median is 0).
    pub fn cv(&self) -> f64 {
        if self.median == 0.0 {
            0.0
        } else {
            self.sigma() / self.median.abs()
        }
    }

    /// The same summary with `offset` subtracted from every location (median, quartiles, min,
    /// max, mean); spreads are unchanged. Used to remove the timer overhead.
    pub fn shifted(&self, offset: f64) -> Summary {
        Summary {
            median: self.median - offset,
            q1: self.q1 - offset,
            q3: self.q3 - offset,
            min: self.min - offset,
            max: self.max - offset,
            mean: self.mean - offset,
            ..*self
        }
    }

    /// The same summary with every number divided by `k > 0` (per-line cost of a k-line chase).
    pub fn scaled(&self, k: f64) -> Summary {
        Summary {
            n: self.n,
            median: self.median / k,
            mad: self.mad / k,
            q1: self.q1 / k,
            q3: self.q3 / k,
            min: self.min / k,
            max: self.max / k,
            mean: self.mean / k,
        }
    }
}

/// The `p`-quantile (0 ≤ p ≤ 1) of ascending, non-empty `sorted` by linear interpolation between
/// the order statistics at positions p·(n−1) (Hyndman & Fan type 7, R's default).
pub fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let pos = p.clamp(0.0, 1.0) * (n - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi.min(n - 1)] - sorted[lo]) * frac
}

/// A least-squares fit: coefficients in the order of the design's columns, and its quality.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Fitted coefficients.
    pub coefficients: Vec<f64>,
    /// R² = 1 − SS_res/SS_tot (1 when the data have no variance and the fit is exact).
    pub r2: f64,
    /// Points used.
    pub points: usize,
}

impl Fit {
    /// Degrees of freedom left: points − coefficients. R² of a fit with none is 1 by
    /// construction and says nothing about the model.
    pub fn dof(&self) -> usize {
        self.points.saturating_sub(self.coefficients.len())
    }
}

/// Solve min ‖X·β − y‖² for a design `rows` (one row per point, all of one length) by SVD.
pub fn least_squares(model: &str, rows: &[Vec<f64>], y: &[f64]) -> Result<Fit, HostError> {
    let fail = |reason: String| HostError::Fit {
        model: model.to_string(),
        reason,
    };
    let cols = rows.first().map_or(0, Vec::len);
    if cols == 0 || rows.len() != y.len() || rows.iter().any(|r| r.len() != cols) {
        return Err(fail("the design matrix is empty or ragged".into()));
    }
    if rows.len() < cols {
        return Err(fail(format!(
            "{} points cannot determine {cols} parameters",
            rows.len()
        )));
    }
    if rows.iter().flatten().chain(y).any(|v| !v.is_finite()) {
        return Err(fail("a point is not a finite number".into()));
    }
    let x = DMatrix::from_row_slice(rows.len(), cols, &rows.concat());
    let b = DVector::from_column_slice(y);
    let svd = x.clone().svd(true, true);
    let beta = svd
        .solve(&b, 1e-12)
        .map_err(|e| fail(format!("SVD solve failed: {e}")))?;
    let residual = &x * &beta - &b;
    let ss_res = residual.norm_squared();
    let mean = y.iter().sum::<f64>() / y.len() as f64;
    let ss_tot: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else if ss_res <= 1e-18 {
        1.0
    } else {
        0.0
    };
    Ok(Fit {
        coefficients: beta.iter().copied().collect(),
        r2,
        points: rows.len(),
    })
}

/// Fit seed 000 Eq. (3.1), T_N = o·N + q − p/N, to points (N, T_N). Coefficients `[o, q, p]`.
pub fn fit_multi_line(points: &[(f64, f64)]) -> Result<Fit, HostError> {
    let rows: Vec<Vec<f64>> = points
        .iter()
        .map(|&(n, _)| vec![n, 1.0, -1.0 / n])
        .collect();
    let y: Vec<f64> = points.iter().map(|p| p.1).collect();
    least_squares("T_N = o·N + q − p/N (seed 000 Eq. 3.1)", &rows, &y)
}

/// A fit of seed 000 Eq. (3.1) within the model's bounds q ≥ 0 and p ≥ 0.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundedMultiLine {
    /// The fit, coefficients `[o, q, p]` (a bound held at 0 where the free fit crossed it).
    pub fit: Fit,
    /// Where q is held at 0: the free fit's q (below 0, or p's bound held it).
    pub q_held: Option<f64>,
    /// Where p is held at 0: the free fit's p.
    pub p_held: Option<f64>,
}

/// Fit seed 000 Eq. (3.1) by least squares subject to q ≥ 0 and p ≥ 0 (negative values are
/// noise the model does not allow): the free fit where it is within the bounds, else the
/// best of the fits with q, p or both held at 0 that are (a convex problem's optimum on its
/// active face, so the least residual among the feasible faces is the constrained optimum).
pub fn fit_multi_line_bounded(points: &[(f64, f64)]) -> Result<BoundedMultiLine, HostError> {
    let free = fit_multi_line(points)?;
    let (q, p) = (free.coefficients[1], free.coefficients[2]);
    if q >= 0.0 && p >= 0.0 {
        return Ok(BoundedMultiLine {
            fit: free,
            q_held: None,
            p_held: None,
        });
    }
    let y: Vec<f64> = points.iter().map(|p| p.1).collect();
    let model = "T_N = o·N + q − p/N (seed 000 Eq. 3.1), q, p ≥ 0";
    let mut best: Option<(Fit, bool, bool)> = None;
    // (q held at 0, p held at 0) for each face of the bounds.
    for (hold_q, hold_p) in [(false, true), (true, false), (true, true)] {
        let rows: Vec<Vec<f64>> = points
            .iter()
            .map(|&(n, _)| {
                let mut row = vec![n];
                if !hold_q {
                    row.push(1.0);
                }
                if !hold_p {
                    row.push(-1.0 / n);
                }
                row
            })
            .collect();
        let f = least_squares(model, &rows, &y)?;
        let mut c = f.coefficients.iter().copied().skip(1);
        let q = if hold_q { 0.0 } else { c.next().unwrap_or(0.0) };
        let p = if hold_p { 0.0 } else { c.next().unwrap_or(0.0) };
        if q < 0.0 || p < 0.0 {
            continue;
        }
        let fit = Fit {
            coefficients: vec![f.coefficients[0], q, p],
            r2: f.r2,
            points: f.points,
        };
        if best.as_ref().is_none_or(|(b, _, _)| fit.r2 > b.r2) {
            best = Some((fit, hold_q, hold_p));
        }
    }
    // Both held at 0 is always within the bounds.
    let (fit, hold_q, hold_p) = best.ok_or_else(|| HostError::Fit {
        model: model.into(),
        reason: "no fit within the bounds".into(),
    })?;
    Ok(BoundedMultiLine {
        fit,
        q_held: hold_q.then_some(q),
        p_held: hold_p.then_some(p),
    })
}

/// Fit seed 001 Eq. (1), T_m(n, N) = q + o·N + c·n·N, to points (n, N, T). Coefficients
/// `[q, o, c]`. With one value of n, c is not identifiable: use [`fit_line`] on (N, T) instead.
pub fn fit_congestion(points: &[(f64, f64, f64)]) -> Result<Fit, HostError> {
    let rows: Vec<Vec<f64>> = points
        .iter()
        .map(|&(n, big_n, _)| vec![1.0, big_n, n * big_n])
        .collect();
    let y: Vec<f64> = points.iter().map(|p| p.2).collect();
    least_squares("T_m(n,N) = q + o·N + c·n·N (seed 001 Eq. 1)", &rows, &y)
}

/// Fit seed 000 Eq. (3.2) T_C(n) = c·n + b (`amortized = false`, coefficients `[c, b]`) or
/// Eq. (3.3) T_C(n) = c·n + b − a/n (`amortized = true`, coefficients `[c, b, a]`) to points
/// (n, T_C).
pub fn fit_contention(points: &[(f64, f64)], amortized: bool) -> Result<Fit, HostError> {
    let rows: Vec<Vec<f64>> = points
        .iter()
        .map(|&(n, _)| {
            if amortized {
                vec![n, 1.0, -1.0 / n]
            } else {
                vec![n, 1.0]
            }
        })
        .collect();
    let y: Vec<f64> = points.iter().map(|p| p.1).collect();
    let model = if amortized {
        "T_C(n) = c·n + b − a/n (seed 000 Eq. 3.3)"
    } else {
        "T_C(n) = c·n + b (seed 000 Eq. 3.2)"
    };
    least_squares(model, &rows, &y)
}

/// Fit a straight line y = s·x + t to points (x, y). Coefficients `[s, t]`.
pub fn fit_line(model: &str, points: &[(f64, f64)]) -> Result<Fit, HostError> {
    let rows: Vec<Vec<f64>> = points.iter().map(|&(x, _)| vec![x, 1.0]).collect();
    let y: Vec<f64> = points.iter().map(|p| p.1).collect();
    least_squares(model, &rows, &y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * (1.0 + b.abs())
    }

    #[test]
    fn odd_sample_median_mad_quartiles() {
        // Sorted: 1 2 3 4 100. Median 3. |x−3| = 2 1 0 1 97 → sorted 0 1 1 2 97, MAD 1.
        // Type-7 quartiles: q1 at position 0.25·4 = 1 → 2; q3 at 3 → 4. IQR 2.
        let s = Summary::of(&[4.0, 100.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!(s.median, 3.0);
        assert_eq!(s.mad, 1.0);
        assert_eq!((s.q1, s.q3, s.iqr()), (2.0, 4.0, 2.0));
        assert_eq!((s.min, s.max, s.n), (1.0, 100.0, 5));
        // Mean 110/5 = 22; robust CV 1.4826·1/3 = 0.4942.
        assert_eq!(s.mean, 22.0);
        assert!(close(s.cv(), 1.4826 / 3.0));
    }

    #[test]
    fn even_sample_median_interpolates() {
        // Sorted 10 20 30 40: median (20+30)/2 = 25; deviations 15 5 5 15 → MAD (5+15)/2 = 10.
        // q1 at position 0.75 → 10 + 0.75·10 = 17.5; q3 at 2.25 → 30 + 0.25·10 = 32.5.
        let s = Summary::of(&[40.0, 10.0, 30.0, 20.0]).unwrap();
        assert_eq!(s.median, 25.0);
        assert_eq!(s.mad, 10.0);
        assert_eq!((s.q1, s.q3), (17.5, 32.5));
        // Shift by 5 (timer overhead) and scale by 4 lines: median (25−5)/4 = 5.
        let t = s.shifted(5.0).scaled(4.0);
        assert_eq!(t.median, 5.0);
        assert_eq!(t.mad, 2.5);
    }

    #[test]
    fn no_samples_or_nan_is_none() {
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn a_multi_line_fit_below_its_bounds_holds_q_at_zero() {
        // T_N = 3N − 1 at N = 1, 2, 4, 8, 16 (2, 5, 11, 23, 47): the free fit is exact with
        // q = −1 < 0. Held q = 0, the normal equations of T = o·N − p/N are
        // [ΣN², −Σ1; −Σ1, Σ1/N²]·[o; p] = [ΣN·T; −ΣT/N] with ΣN² = 341, Σ1 = 5,
        // Σ1/N² = 1.33203125, ΣN·T = 992, ΣT/N = 13.0625; det = 429.22265625, so
        // o = (992 · 1.33203125 − 5 · 13.0625)/det = 1256.0625/det and
        // p = (5 · 992 − 341 · 13.0625)/det = 505.6875/det ≥ 0: within the bounds, and a
        // closer fit than o alone (q and p held).
        let points: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0, 16.0]
            .iter()
            .map(|&n| (n, 3.0 * n - 1.0))
            .collect();
        let b = fit_multi_line_bounded(&points).unwrap();
        let det = 429.22265625;
        assert!(close(b.fit.coefficients[0], 1256.0625 / det), "{:?}", b);
        assert_eq!(b.fit.coefficients[1], 0.0);
        assert!(close(b.fit.coefficients[2], 505.6875 / det), "{:?}", b);
        assert!(b.q_held.is_some_and(|q| close(q, -1.0)), "{:?}", b.q_held);
        assert_eq!(b.p_held, None);
        // Within the bounds (T_N = 3N + 4 − 2/N), the free fit as it is.
        let inside: Vec<(f64, f64)> = points
            .iter()
            .map(|&(n, _)| (n, 3.0 * n + 4.0 - 2.0 / n))
            .collect();
        let b = fit_multi_line_bounded(&inside).unwrap();
        assert!(close(b.fit.coefficients[1], 4.0) && close(b.fit.coefficients[2], 2.0));
        assert!(b.q_held.is_none() && b.p_held.is_none());
    }

    #[test]
    fn multi_line_fit_recovers_seed_000_figure_3_1a() {
        // T_N = 76·N + 1521 − 1096/N (seed 000 Fig. 3.1a) at N = 1, 2, 4, 8:
        // N=1: 76+1521−1096 = 501; N=2: 152+1521−548 = 1125;
        // N=4: 304+1521−274 = 1551; N=8: 608+1521−137 = 1992. Exact data → R² = 1.
        let pts = [(1.0, 501.0), (2.0, 1125.0), (4.0, 1551.0), (8.0, 1992.0)];
        let f = fit_multi_line(&pts).unwrap();
        assert!(close(f.coefficients[0], 76.0));
        assert!(close(f.coefficients[1], 1521.0));
        assert!(close(f.coefficients[2], 1096.0));
        assert!(close(f.r2, 1.0));
        assert_eq!(f.dof(), 1);
    }

    #[test]
    fn line_fit_r2_by_hand() {
        // Points (0,0) (1,1) (2,1) (3,2): x̄ = 1.5, ȳ = 1. Sxy = (−1.5)(−1)+(−0.5)(0)+(0.5)(0)
        // +(1.5)(1) = 3; Sxx = 2.25+0.25+0.25+2.25 = 5 → s = 0.6, t = 1 − 0.6·1.5 = 0.1.
        // Fitted 0.1 0.7 1.3 1.9; residuals −0.1 0.3 −0.3 0.1 → SS_res = 0.2; SS_tot = 1+0+0+1 = 2
        // → R² = 1 − 0.2/2 = 0.9.
        let f = fit_line("line", &[(0.0, 0.0), (1.0, 1.0), (2.0, 1.0), (3.0, 2.0)]).unwrap();
        assert!(close(f.coefficients[0], 0.6));
        assert!(close(f.coefficients[1], 0.1));
        assert!(close(f.r2, 0.9));
    }

    #[test]
    fn congestion_fit_recovers_seed_001_table_1_inter_socket() {
        // q = 180.65, o = 7.5, c = 3 (seed 001 Table 1): T(n,N) = 180.65 + 7.5N + 3nN.
        // (1,1): 191.15; (1,4): 222.65; (2,4): 234.65; (2,8): 288.65; (4,2): 219.65.
        let pts = [
            (1.0, 1.0, 191.15),
            (1.0, 4.0, 222.65),
            (2.0, 4.0, 234.65),
            (2.0, 8.0, 288.65),
            (4.0, 2.0, 219.65),
        ];
        let f = fit_congestion(&pts).unwrap();
        assert!(close(f.coefficients[0], 180.65));
        assert!(close(f.coefficients[1], 7.5));
        assert!(close(f.coefficients[2], 3.0));
    }

    #[test]
    fn contention_fit_recovers_table_3_2_invalid_row() {
        // T_C(n) = 23.4n + 1202 − 695.8/n (seed 000 Fig. 3.6b): n=1: 23.4+1202−695.8 = 529.6;
        // n=2: 46.8+1202−347.9 = 900.9;
        // n=4: 1121.65; n=8: 1302.225.
        let pts = [(1.0, 529.6), (2.0, 900.9), (4.0, 1121.65), (8.0, 1302.225)];
        let f = fit_contention(&pts, true).unwrap();
        assert!(close(f.coefficients[0], 23.4));
        assert!(close(f.coefficients[1], 1202.0));
        assert!(close(f.coefficients[2], 695.8));
    }

    #[test]
    fn too_few_points_is_an_error() {
        assert!(matches!(
            fit_multi_line(&[(1.0, 2.0), (2.0, 3.0)]),
            Err(HostError::Fit { .. })
        ));
    }

    proptest! {
        #[test]
        fn median_is_shift_equivariant_and_mad_shift_invariant(
            xs in proptest::collection::vec(-1e6f64..1e6, 1..50), d in -1e3f64..1e3,
        ) {
            let a = Summary::of(&xs).unwrap();
            let shifted: Vec<f64> = xs.iter().map(|x| x + d).collect();
            let b = Summary::of(&shifted).unwrap();
            prop_assert!((b.median - a.median - d).abs() < 1e-6);
            prop_assert!((b.mad - a.mad).abs() < 1e-6);
            prop_assert!(a.q1 <= a.median && a.median <= a.q3);
            prop_assert!(a.min <= a.q1 && a.q3 <= a.max);
        }
    }
}
