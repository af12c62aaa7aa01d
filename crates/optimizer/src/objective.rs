//! What the search minimizes: a scalar score of a [`Cost`].
//!
//! For latency requests the score is the best-case (`min`, the seed's default and Appendix B's
//! choice), the worst-case (`max`) latency, or a blend `(1−w)·min + w·max`. For throughput
//! requests it is nanoseconds per byte, `1e9 / throughput`, so that lower is better everywhere.

use modelopt_model::{Cost, Metric};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// The search objective.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    /// Minimize the best-case (min) model (default; what seed 000 Appendix B does).
    #[default]
    Min,
    /// Minimize the worst-case (max) model.
    Max,
    /// Minimize `(1−w)·min + w·max` for the weight `w` in [0, 1].
    Blend(f64),
}

impl Objective {
    /// The score of a cost for a metric: lower is better. `None` when the metric needs a
    /// throughput the cost does not have.
    pub fn score(&self, cost: &Cost, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Throughput => cost
                .throughput_bytes_per_s
                .filter(|t| *t > 0.0)
                .map(|t| 1e9 / t),
            Metric::Latency => Some(self.of_range(cost.min_ns, cost.max_ns)),
        }
    }

    /// The latency score of a cost range from `min` to `max` (best and worst case, ns): what
    /// the searches compare partial and whole trees by.
    pub fn of_range(&self, min: f64, max: f64) -> f64 {
        match *self {
            Objective::Min => min,
            Objective::Max => max,
            Objective::Blend(w) => (1.0 - w) * min + w * max,
        }
    }

    /// The secondary score used to break ties: the other end of the min-max range.
    pub fn tie_score(&self, cost: &Cost) -> f64 {
        match self {
            Objective::Min => cost.max_ns,
            Objective::Max | Objective::Blend(_) => cost.min_ns,
        }
    }
}

impl FromStr for Objective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "min" => Ok(Objective::Min),
            "max" => Ok(Objective::Max),
            _ => {
                let w = s.strip_prefix("blend:").ok_or_else(|| {
                    format!(
                        "unknown objective `{s}` (expected min, max or blend:W with W in [0, 1])"
                    )
                })?;
                let parsed: f64 = w
                    .parse()
                    .map_err(|_| format!("blend weight `{w}` is not a number"))?;
                if !(0.0..=1.0).contains(&parsed) {
                    // Echo the weight as typed: `1e308` must not come back as 309 digits.
                    return Err(format!("blend weight {w} is outside [0, 1]"));
                }
                Ok(Objective::Blend(parsed))
            }
        }
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Objective::Min => f.write_str("min"),
            Objective::Max => f.write_str("max"),
            // Tiny weights in scientific notation, never hundreds of digits; parses back.
            Objective::Blend(w) if *w != 0.0 && w.abs() < 1e-4 => write!(f, "blend:{w:e}"),
            Objective::Blend(w) => write!(f, "blend:{w}"),
        }
    }
}

/// A score as an integer key at 1e-6 ns resolution: costs closer than that are ties, broken by
/// the documented rule (see [`crate::search`]). Integer keys keep the order total.
pub fn score_key(score: f64) -> i64 {
    // `(score * 1e6).round() as i64` (round half away from zero, saturating, NaN to 0), without
    // the call to libm's `round` that f64::round is on targets without SSE4.1 (the hot loop of
    // the level-degree search keys every bound). `as` truncates; below 2^53 the fraction
    // x − trunc(x) is exact (Sterbenz), from 2^53 on x is an integer and the fraction 0, and
    // beyond i64's range the saturated truncation already is the answer.
    let x = score * 1e6;
    let truncated = x as i64;
    let fraction = x - truncated as f64;
    if fraction >= 0.5 {
        truncated.saturating_add(1)
    } else if fraction <= -0.5 {
        truncated.saturating_sub(1)
    } else {
        truncated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_objectives() {
        assert_eq!("min".parse::<Objective>().unwrap(), Objective::Min);
        assert_eq!(
            "blend:0.5".parse::<Objective>().unwrap(),
            Objective::Blend(0.5)
        );
        assert!("blend:2".parse::<Objective>().is_err());
        assert!("blend:x".parse::<Objective>().is_err());
        assert!("best".parse::<Objective>().is_err());
    }

    /// What `score_key` must equal: the plain rounding it replaces.
    fn rounded_key(score: f64) -> i64 {
        (score * 1e6).round() as i64
    }

    #[test]
    fn score_key_rounds_half_away_from_zero_and_saturates() {
        // 1.5e-6 ns is 1.5 key units: away from zero, 2 (and −2); 2.5e-6 gives 3.
        assert_eq!(score_key(1.5e-6), rounded_key(1.5e-6));
        assert_eq!(score_key(0.0000025), 3);
        assert_eq!(score_key(-0.0000025), -3);
        assert_eq!(score_key(1234.5678904), 1_234_567_890);
        for x in [
            0.0,
            -0.0,
            0.49e-6,
            0.5e-6,
            -0.5e-6,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            9.3e12,
            -9.3e12,
            4_503_599_627_370_495.5 / 1e6,
            9_007_199_254_740_993.0 / 1e6,
            f64::from_bits(0x3ff8_0000_0000_0000) * 1e-6,
        ] {
            assert_eq!(score_key(x), rounded_key(x), "{x}");
        }
    }

    proptest::proptest! {
        #[test]
        fn score_key_equals_plain_rounding(bits in proptest::num::u64::ANY, ns in -1e7f64..1e7) {
            let any = f64::from_bits(bits);
            proptest::prop_assert_eq!(score_key(any), rounded_key(any));
            proptest::prop_assert_eq!(score_key(ns), rounded_key(ns));
            // Halves exactly: k + 0.5 key units.
            let half = ((ns * 1e6).trunc() + 0.5) / 1e6;
            proptest::prop_assert_eq!(score_key(half), rounded_key(half));
        }
    }

    #[test]
    fn blend_interpolates() {
        let c = Cost::range(100.0, 300.0);
        assert_eq!(
            Objective::Blend(0.25).score(&c, Metric::Latency),
            Some(150.0)
        );
        assert_eq!(Objective::Max.score(&c, Metric::Latency), Some(300.0));
        assert_eq!(Objective::Min.score(&c, Metric::Throughput), None);
        let t = c.with_throughput(2e9);
        assert_eq!(Objective::Min.score(&t, Metric::Throughput), Some(0.5));
    }
}
