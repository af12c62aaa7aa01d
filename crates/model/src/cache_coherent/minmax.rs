//! The min-max collective models of seed 000, chapter 4 (summarized in its Table 4.1).
//!
//! Every function returns `(min, max)` in nanoseconds for the given [`Costs`]. Readings of
//! formulas the PDF conversion garbled are recorded in `docs/cache-coherent.md`:
//! - Eq. (4.6) max: `R_I + Σ_{i=1}^d 2(R_R + Σ_{i=1}^d (c·k_i + b))` reuses `i` for both sums;
//!   we read the inner sum as the one level's contention term, i.e.
//!   `R_I + Σ_i 2(R_R + T_C(k_i))`: at each level the polling children can interfere with the
//!   parent once while it copies and once while it sets the flag.
//! - The tree term `Σ (c·k_i + b)` of Eqs. (4.5)/(4.7) is T_C(k_i) for cached lines; for other
//!   buffer states we use that state's T_C (the seed: "the models can be adapted by applying the
//!   invalid-state equations where the exclusive-state models are used").
//! - Eq. (4.13)/(4.14): T_{k_i} is the multi-line model for k_i lines (the parent reads the k_i
//!   buffers its children wrote).

use super::Costs;

/// Notification backwards (many-to-one on one line), Eqs. (4.1)/(4.2):
/// min `R_I + (n−1)·R_R`, max `R_I + 2(n−1)·R_R`, for `n` threads (the parent and n−1 children).
pub fn notify_backwards(c: &Costs, threads: u32) -> (f64, f64) {
    let others = f64::from(threads.saturating_sub(1));
    (c.r_i + others * c.r_r, c.r_i + 2.0 * others * c.r_r)
}

/// Notification forwards of a level-uniform tree, Eq. (4.6):
/// min `(d+1)·R_I + 2d·R_L`, max `R_I + Σ_i 2(R_R + T_C(k_i))`.
pub fn notify_forwards(c: &Costs, degrees: &[u32]) -> (f64, f64) {
    let d = degrees.len() as f64;
    let min = (d + 1.0) * c.r_i + 2.0 * d * c.r_l;
    let max = c.r_i
        + degrees
            .iter()
            .map(|&k| 2.0 * (c.r_r + c.t_c(k.into())))
            .sum::<f64>();
    (min, max)
}

/// Data transfer down a level-uniform tree, Eq. (4.5): `Σ_i T_C(k_i)` (same in min and max).
pub fn tree_transfer(c: &Costs, degrees: &[u32]) -> f64 {
    degrees.iter().map(|&k| c.t_c(k.into())).sum()
}

/// Small (one-line) broadcast over a level-uniform tree, Eq. (4.7):
/// `T_fw + Σ_i T_C(k_i) + Σ_i T_nb(k_i + 1)`, min and max.
pub fn small_broadcast(c: &Costs, degrees: &[u32]) -> (f64, f64) {
    let (fw_min, fw_max) = notify_forwards(c, degrees);
    let data = tree_transfer(c, degrees);
    let (nb_min, nb_max) = degrees.iter().fold((0.0, 0.0), |(lo, hi), &k| {
        let (a, b) = notify_backwards(c, k + 1);
        (lo + a, hi + b)
    });
    (fw_min + data + nb_min, fw_max + data + nb_max)
}

/// Per-level part of [`small_broadcast`], used for lower bounds of partial trees: everything but
/// the root's initial `R_I` of T_fw, for one level of degree `k`.
pub fn small_broadcast_level(c: &Costs, k: u32) -> (f64, f64) {
    let (nb_min, nb_max) = notify_backwards(c, k + 1);
    let t_c = c.t_c(k.into());
    (
        c.r_i + 2.0 * c.r_l + t_c + nb_min,
        2.0 * (c.r_r + t_c) + t_c + nb_max,
    )
}

/// Dissemination barrier with degree m and r rounds, Eqs. (4.11)/(4.12):
/// min `r(R_L + m·R_R + R_R)`, max `r(R_R + 4m·R_R + (2m+1)·R_R)`.
pub fn barrier(c: &Costs, degree: u32, rounds: u32) -> (f64, f64) {
    let m = f64::from(degree);
    let r = f64::from(rounds);
    (
        r * (c.r_l + m * c.r_r + c.r_r),
        r * (c.r_r + 4.0 * m * c.r_r + (2.0 * m + 1.0) * c.r_r),
    )
}

/// One level of the small reduction tree, the bracket of Eqs. (4.13)/(4.14):
/// min `R_I + T_C(k) + (1+k)·R_R + R_L + T_k`, max `R_I + 2T_C(k) + 2(1+k)·R_R + R_L + T_k`.
pub fn small_reduce_level(c: &Costs, k: u32) -> (f64, f64) {
    let kf = f64::from(k);
    let t_c = c.t_c(kf);
    let t_k = c.t_n(kf);
    (
        c.r_i + t_c + (1.0 + kf) * c.r_r + c.r_l + t_k,
        c.r_i + 2.0 * t_c + 2.0 * (1.0 + kf) * c.r_r + c.r_l + t_k,
    )
}

/// Small (one-item) reduction over a level-uniform tree, Eqs. (4.13)/(4.14): the levels plus a
/// final `R_R`.
pub fn small_reduce(c: &Costs, degrees: &[u32]) -> (f64, f64) {
    degrees.iter().fold((c.r_r, c.r_r), |(lo, hi), &k| {
        let (a, b) = small_reduce_level(c, k);
        (lo + a, hi + b)
    })
}

/// The four phases of the pipelined large broadcast, Eqs. (4.8)/(4.9), for `threads` threads and
/// a message of `lines` lines cut into n−1 slices of N_cl = ⌈lines/(n−1)⌉ lines:
/// returns `[(init_min, init_max), (first_min, first_max), (rest_min, rest_max), (fin, fin)]`.
pub fn pipelined_broadcast_phases(c: &Costs, threads: u32, lines: u64) -> [(f64, f64); 4] {
    let n = f64::from(threads);
    let slices = u64::from(threads.saturating_sub(1)).max(1);
    let slice_lines = lines.div_ceil(slices).max(1) as f64;
    let t_ncl = c.t_n(slice_lines);
    let t_c = c.t_c(n - 1.0);
    let init = (c.r_i + 2.0 * c.r_l, c.r_i + 2.0 * (c.r_r + t_c) + c.r_r);
    let first = (2.0 * c.r_l + t_c + t_ncl, 2.0 * c.r_r + t_c + t_ncl);
    let rest = (
        (n - 2.0) * (c.r_r + c.r_l + t_ncl),
        (n - 2.0) * (2.0 * c.r_r + t_ncl),
    );
    let fin = 2.0 * c.r_r + c.r_l;
    [init, first, rest, (fin, fin)]
}

/// Pipelined large broadcast, Eqs. (4.8)/(4.9): the sum of its phases.
pub fn pipelined_broadcast(c: &Costs, threads: u32, lines: u64) -> (f64, f64) {
    pipelined_broadcast_phases(c, threads, lines)
        .iter()
        .fold((0.0, 0.0), |(lo, hi), (a, b)| (lo + a, hi + b))
}

/// Flat-tree large broadcast, Eq. (4.10): `T_notif + T_copy` with
/// `T_copy = b + c·(n−2) + o·N`,
/// `T_notif,min = R_I + 3R_L + R_R + T_C(n−1) + (n−1)R_R`,
/// `T_notif,max = R_I + R_L + 3R_R + 2T_C(n−1) + 2(n−1)R_R`.
/// Returns `(copy, (notif_min, notif_max))`.
pub fn flat_tree_broadcast_parts(c: &Costs, threads: u32, lines: u64) -> (f64, (f64, f64)) {
    let n = f64::from(threads);
    let copy = c.contention.b + c.contention.c * (n - 2.0) + c.multi_line.o * lines as f64;
    let t_c = c.t_c(n - 1.0);
    let notif_min = c.r_i + 3.0 * c.r_l + c.r_r + t_c + (n - 1.0) * c.r_r;
    let notif_max = c.r_i + c.r_l + 3.0 * c.r_r + 2.0 * t_c + 2.0 * (n - 1.0) * c.r_r;
    (copy, (notif_min, notif_max))
}

/// Flat-tree large broadcast, Eq. (4.10).
pub fn flat_tree_broadcast(c: &Costs, threads: u32, lines: u64) -> (f64, f64) {
    let (copy, (lo, hi)) = flat_tree_broadcast_parts(c, threads, lines);
    (copy + lo, copy + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache_coherent::{Contention, MultiLine};

    /// Xeon Phi, buffers in E: Table 1.5b (R_L 8.6, R_R 235.8, R_I 277.7), Table 3.2 E-E
    /// (b 320.5, c 56.2), Table 3.1 E-E (q 1521.0, o 76.0, p 1096.0).
    fn phi_e() -> Costs {
        Costs {
            r_l: 8.6,
            r_r: 235.8,
            r_i: 277.7,
            contention: Contention {
                b: 320.5,
                c: 56.2,
                a: 0.0,
            },
            multi_line: MultiLine {
                q: 1521.0,
                o: 76.0,
                p: 1096.0,
            },
            line_bytes: 64,
        }
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-6, "{a} != {b}");
    }

    #[test]
    fn figure_4_2_tree_transfer_is_5c_plus_2b() {
        // Figure 4.2: d = 2, k = (3, 2): t_2 = c(k_1 + k_2) + 2b = 5c + 2b.
        let c = phi_e();
        close(tree_transfer(&c, &[3, 2]), 5.0 * 56.2 + 2.0 * 320.5);
    }

    #[test]
    fn small_broadcast_by_hand() {
        // d = 1, k = 7 (8 threads), min:
        //   T_fw,min = 2 R_I + 2 R_L = 555.4 + 17.2 = 572.6
        //   T_C(7) = 320.5 + 7·56.2 = 713.9
        //   T_nb,min(8) = R_I + 7 R_R = 277.7 + 1650.6 = 1928.3
        //   total = 3214.8
        // max:
        //   T_fw,max = R_I + 2(R_R + T_C(7)) = 277.7 + 2·949.7 = 2177.1
        //   T_nb,max(8) = R_I + 14 R_R = 277.7 + 3301.2 = 3578.9
        //   total = 2177.1 + 713.9 + 3578.9 = 6469.9
        let (lo, hi) = small_broadcast(&phi_e(), &[7]);
        close(lo, 3214.8);
        close(hi, 6469.9);
    }

    #[test]
    fn level_decomposition_adds_up() {
        let c = phi_e();
        for ks in [vec![7], vec![3, 2], vec![4, 4, 3]] {
            let (lo, hi) = small_broadcast(&c, &ks);
            let (l2, h2) = ks.iter().fold((c.r_i, c.r_i), |(a, b), &k| {
                let (x, y) = small_broadcast_level(&c, k);
                (a + x, b + y)
            });
            close(lo, l2);
            close(hi, h2);
        }
    }

    #[test]
    fn barrier_by_hand() {
        // n = 60, m = 4, r = 3 (Table B.2): min 3(8.6 + 4·235.8 + 235.8) = 3562.8;
        // max 3(235.8 + 16·235.8 + 9·235.8) = 3·26·235.8 = 18392.4.
        let (lo, hi) = barrier(&phi_e(), 4, 3);
        close(lo, 3562.8);
        close(hi, 18392.4);
    }

    #[test]
    fn small_reduce_by_hand() {
        // d = 1, k = 1 (2 threads):
        //   level min = R_I + T_C(1) + 2 R_R + R_L + T_1
        //             = 277.7 + 376.7 + 471.6 + 8.6 + (76 + 1521 - 1096 = 501) = 1635.6
        //   plus final R_R: 1871.4
        //   level max = 277.7 + 753.4 + 943.2 + 8.6 + 501 = 2483.9, plus R_R: 2719.7
        let (lo, hi) = small_reduce(&phi_e(), &[1]);
        close(lo, 1871.4);
        close(hi, 2719.7);
    }

    #[test]
    fn large_broadcasts_by_hand() {
        // 8 KiB = 128 lines, n = 3 threads.
        // Pipelined: N_cl = 64; T_64 = 76·64 + 1521 - 1096/64 = 4864 + 1521 - 17.125 = 6367.875;
        //   T_C(2) = 320.5 + 112.4 = 432.9
        //   init 277.7 + 17.2 = 294.9; first 17.2 + 432.9 + 6367.875 = 6817.975
        //   rest 1·(235.8 + 8.6 + 6367.875) = 6612.275; fin 471.6 + 8.6 = 480.2
        //   min = 14205.35
        let c = phi_e();
        let (lo, _) = pipelined_broadcast(&c, 3, 128);
        close(lo, 14205.35);
        // Flat tree: copy = 320.5 + 56.2·1 + 76·128 = 10104.7
        //   notif,min = 277.7 + 25.8 + 235.8 + 432.9 + 471.6 = 1443.8 -> 11548.5
        let (lo, _) = flat_tree_broadcast(&c, 3, 128);
        close(lo, 11548.5);
    }
}
