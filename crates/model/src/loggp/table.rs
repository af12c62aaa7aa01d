//! Piecewise-linear tables of a size-dependent parameter (PLogP's o_s(m), o_r(m), g(m)).
//!
//! Kielmann, Bal & Verstoep (2000) measure the PLogP parameters at a list of message sizes;
//! between two measured sizes modelopt interpolates linearly, below the first size it takes the
//! first value, and above the last it continues the last segment's slope (a single point is a
//! constant). Measured tables are noisy and sometimes dip (netgauge's o_s at 1 KiB below its value
//! at 512 B); each point is read as the largest value measured at or below its size (the running
//! maximum), so every lookup, and every cost built on it, is non-decreasing in m.

/// A checked table: `(size in bytes, value in ns)`, sizes strictly ascending, at least one point,
/// values replaced by their running maximum.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    points: Vec<(u64, f64)>,
}

impl Table {
    /// A table from checked points (see the module docs for what the loader checks).
    pub(crate) fn new(mut points: Vec<(u64, f64)>) -> Self {
        let mut highest = f64::NEG_INFINITY;
        for point in &mut points {
            highest = highest.max(point.1);
            point.1 = highest;
        }
        Table { points }
    }

    /// The points.
    pub fn points(&self) -> &[(u64, f64)] {
        &self.points
    }

    /// The value at `bytes`: linear between points, the first value below the first point, the
    /// last segment's slope above the last point.
    pub fn at(&self, bytes: u64) -> f64 {
        let pts = &self.points;
        let Some(&(first_size, first_value)) = pts.first() else {
            return 0.0;
        };
        if bytes <= first_size {
            return first_value;
        }
        // The first point at or above `bytes`, if any.
        let upper = pts.partition_point(|&(s, _)| s < bytes);
        let (lo, hi) = if upper < pts.len() {
            (pts[upper - 1], pts[upper])
        } else if pts.len() >= 2 {
            (pts[pts.len() - 2], pts[pts.len() - 1])
        } else {
            return first_value;
        };
        let slope = (hi.1 - lo.1) / (hi.0 - lo.0) as f64;
        lo.1 + slope * (bytes - lo.0) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_clamps_and_extrapolates() {
        let t = Table::new(vec![(0, 10.0), (1000, 20.0), (3000, 60.0)]);
        assert_eq!(t.at(0), 10.0);
        // Halfway between 0 and 1000: 10 + 500·(10/1000) = 15.
        assert_eq!(t.at(500), 15.0);
        assert_eq!(t.at(1000), 20.0);
        // Between 1000 and 3000 the slope is 40/2000 = 0.02: 20 + 1000·0.02 = 40.
        assert_eq!(t.at(2000), 40.0);
        // Above the last point the last slope continues: 60 + 1000·0.02 = 80.
        assert_eq!(t.at(4000), 80.0);
        // Below the first point: the first value.
        let shifted = Table::new(vec![(64, 5.0), (128, 7.0)]);
        assert_eq!(shifted.at(1), 5.0);
        // A dip is read as the running maximum: (0, 5), (10, 3), (20, 9) becomes (0, 5), (10, 5),
        // (20, 9), so at 15 B: 5 + 5·(4/10) = 7.
        let dip = Table::new(vec![(0, 5.0), (10, 3.0), (20, 9.0)]);
        assert_eq!(dip.points()[1], (10, 5.0));
        assert_eq!(dip.at(15), 7.0);
        // A single point is a constant.
        let one = Table::new(vec![(1, 3.0)]);
        assert_eq!(one.at(1 << 20), 3.0);
    }
}
