//! Link contention of cyclic shifts across ring:1 (seed 003 §5.4, Table 3).
//!
//! Processor i sends to (i + k) mod n. Within one ring:0 the time does not depend on k; across
//! ring:1 "the number of messages traversing over the ARD cell decides on the cost". We count
//! those messages ([`ring1_crossings`]), take the crossing fraction f = crossings / n, and turn
//! Table 3 into a slowdown κ(f) relative to the least-crossing shift, interpolated linearly
//! ([`RingContention`]). `docs/ksr1.md` shows the resulting points.

/// Processors, placed in order on ring:0s of `cells_per_ring0` cells, whose shift destination
/// `(i + distance) mod processors` is on another ring:0 — the messages that go through the ARD
/// cells and ring:1.
pub fn ring1_crossings(processors: u32, distance: u32, cells_per_ring0: u32) -> u32 {
    if processors == 0 || cells_per_ring0 == 0 {
        return 0;
    }
    let ring = |i: u64| i / u64::from(cells_per_ring0);
    let n = u64::from(processors);
    let k = u64::from(distance) % n;
    (0..n).filter(|&i| ring(i) != ring((i + k) % n)).count() as u32
}

/// One Table 3 measurement, checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShiftMeasurement {
    /// Processors.
    pub processors: u32,
    /// Shift distance.
    pub distance: u32,
    /// Time, ms.
    pub time_ms: f64,
}

/// The slowdown κ(f) of a cyclic shift whose fraction f of messages crosses ring:1, relative to
/// the least-crossing shift measured (distance 1 or n − 1), as points `(f, κ)` sorted by f.
#[derive(Debug, Clone, PartialEq)]
pub struct RingContention {
    /// `(crossing fraction, slowdown)`, sorted by fraction.
    pub points: Vec<(f64, f64)>,
}

impl RingContention {
    /// No contention data: κ = 1 everywhere.
    pub fn none() -> Self {
        RingContention { points: Vec::new() }
    }

    /// Build κ from measurements. For each processor count, times are divided by the mean time
    /// of its least-crossing measurements; points of equal fraction are averaged.
    ///
    /// Every measurement must involve more processors than one ring:0 holds (otherwise no message
    /// crosses ring:1) and a distance in 1..processors−1; these are checked by the loader.
    pub fn from_measurements(measurements: &[ShiftMeasurement], cells_per_ring0: u32) -> Self {
        let mut by_fraction: Vec<(f64, f64, u32)> = Vec::new();
        let mut counts: Vec<u32> = measurements.iter().map(|m| m.processors).collect();
        counts.sort_unstable();
        counts.dedup();
        for p in counts {
            let rows: Vec<(f64, f64)> = measurements
                .iter()
                .filter(|m| m.processors == p)
                .map(|m| {
                    let c = ring1_crossings(p, m.distance, cells_per_ring0);
                    (f64::from(c) / f64::from(p), m.time_ms)
                })
                .collect();
            let least = rows.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
            let base: Vec<f64> = rows.iter().filter(|r| r.0 == least).map(|r| r.1).collect();
            let reference = base.iter().sum::<f64>() / base.len() as f64;
            for (f, t) in rows {
                let ratio = t / reference;
                match by_fraction.iter_mut().find(|e| (e.0 - f).abs() < 1e-12) {
                    Some(e) => {
                        e.1 += ratio;
                        e.2 += 1;
                    }
                    None => by_fraction.push((f, ratio, 1)),
                }
            }
        }
        by_fraction.sort_by(|a, b| a.0.total_cmp(&b.0));
        RingContention {
            points: by_fraction
                .into_iter()
                .map(|(f, sum, n)| (f, sum / f64::from(n)))
                .collect(),
        }
    }

    /// κ(f): 1 at f = 0 (no message crosses ring:1), linear between (0, 1) and the points, the
    /// last value beyond the last point.
    pub fn slowdown(&self, fraction: f64) -> f64 {
        let mut previous = (0.0, 1.0);
        for &(f, k) in &self.points {
            if fraction <= f {
                let (fa, ka) = previous;
                if f <= fa {
                    return k;
                }
                return ka + (k - ka) * (fraction - fa).max(0.0) / (f - fa);
            }
            previous = (f, k);
        }
        previous.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_3_64() -> Vec<ShiftMeasurement> {
        [
            (1, 3.97),
            (8, 4.41),
            (16, 5.15),
            (32, 7.94),
            (48, 5.20),
            (56, 4.38),
            (63, 3.92),
        ]
        .into_iter()
        .map(|(distance, time_ms)| ShiftMeasurement {
            processors: 64,
            distance,
            time_ms,
        })
        .collect()
    }

    #[test]
    fn crossings_on_two_rings() {
        // 64 processors on two ring:0s: distance k ≤ 32 sends k messages each way.
        assert_eq!(ring1_crossings(64, 1, 32), 2);
        assert_eq!(ring1_crossings(64, 8, 32), 16);
        assert_eq!(ring1_crossings(64, 32, 32), 64);
        assert_eq!(ring1_crossings(64, 48, 32), 32);
        assert_eq!(ring1_crossings(64, 63, 32), 2);
        // One ring:0: nothing crosses.
        assert_eq!(ring1_crossings(32, 16, 32), 0);
        // 40 processors, distance 1: 31→32 and 39→0.
        assert_eq!(ring1_crossings(40, 1, 32), 2);
    }

    #[test]
    fn table_3_slowdowns() {
        let c = RingContention::from_measurements(&table_3_64(), 32);
        // Reference: mean of distances 1 and 63, (3.97 + 3.92)/2 = 3.945 ms.
        let expect = [
            (2.0 / 64.0, 1.0),
            (0.25, (4.41 + 4.38) / 2.0 / 3.945),
            (0.5, (5.15 + 5.20) / 2.0 / 3.945),
            (1.0, 7.94 / 3.945),
        ];
        assert_eq!(c.points.len(), 4);
        for ((f, k), (ef, ek)) in c.points.iter().zip(expect) {
            assert!((f - ef).abs() < 1e-12 && (k - ek).abs() < 1e-12, "{f} {k}");
        }
        assert!((c.slowdown(1.0) - 2.012_674).abs() < 1e-6);
        assert_eq!(c.slowdown(0.0), 1.0);
        // Half-way between f = 1/2 and f = 1.
        let mid = (c.points[2].1 + c.points[3].1) / 2.0;
        assert!((c.slowdown(0.75) - mid).abs() < 1e-12);
        assert_eq!(RingContention::none().slowdown(0.5), 1.0);
    }
}
