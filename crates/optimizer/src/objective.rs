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
            Metric::Latency => Some(match *self {
                Objective::Min => cost.min_ns,
                Objective::Max => cost.max_ns,
                Objective::Blend(w) => (1.0 - w) * cost.min_ns + w * cost.max_ns,
            }),
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
    (score * 1e6).round() as i64
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
