//! All-gather models of seed 002, Table 3 (§5.3). p is a power of two.
//!
//! `bytes` is m, "the starting size of the send buffer" of each SPE; p·m is the size of the final
//! receive buffer (Table 3 caption text, §5.3).

use super::plogp::Link;
use super::{Blade, Terms};

/// Recursive doubling on one chip (Table 3, row 1): `T = Σ_{k=0}^{log2 p − 1} [L(2^k m) + L(1)]`.
pub fn recursive_doubling_one(l: &Link, p: u32, bytes: u64) -> Terms {
    let mut t = Terms::new();
    for k in 0..p.max(1).ilog2() {
        let size = bytes.saturating_mul(1 << k);
        t.add(
            format!("round {}: L({size} B) + L(1)", k + 1),
            l.l(size) + l.l1(),
        );
    }
    t
}

/// Recursive doubling on two chips (Table 3, row 2):
///
/// ```text
/// T = Σ_{k=0}^{log2 p − 2} [L_1(2^k m) + L_1(1)] + L_2(2^{log2 p − 1} m) + L_2(1)
///     + C(2^{log2 p − 1} m > 256)
/// ```
///
/// In the last round all p SPEs exchange across the BIF ("p messages are exchanged in each
/// communication round", §5.3): the contention term is C(2^{log2 p − 1} m, p).
pub fn recursive_doubling_two(b: &Blade, p: u32, bytes: u64) -> Terms {
    let rounds = p.max(1).ilog2();
    let mut t = Terms::new();
    for k in 0..rounds.saturating_sub(1) {
        let size = bytes.saturating_mul(1 << k);
        t.add(
            format!("round {} on chip: L_1({size} B) + L_1(1)", k + 1),
            b.intra.l(size) + b.intra.l1(),
        );
    }
    let last = bytes.saturating_mul(1 << rounds.saturating_sub(1));
    t.add(
        format!("round {rounds} across the BIF: L_2({last} B) + L_2(1)"),
        b.inter.l(last) + b.inter.l1(),
    );
    t.add(
        format!("C({last} B, {p}): BIF contention, {p} messages"),
        b.contention.c(last, p),
    );
    t
}

/// Whether round k (1-based) of a distance-doubling pattern crosses the BIF: its partners are
/// 2^(k−1) apart, so it does once 2^(k−1) reaches the SPEs per chip. This is Table 3's
/// "z = 2 if k > 3" for 8 SPEs per chip.
pub fn crosses_bif(b: &Blade, round: u32) -> bool {
    1u64 << round.saturating_sub(1) >= u64::from(b.spes_per_chip)
}

/// Hybrid-x-y on two chips (Table 3, row 3; Fig. 6), p a power of two:
///
/// ```text
/// T = Σ_{k=1}^{x−1} [L_1(2^{k−1} m) + L_1(1)]
///   + Σ_{k=x}^{log2 p} [L_z(2^{k−1} m) + L_z(1) + C(2^{k−1} m > 256 and y > 2 and z = 2)]
///   + (x − 1)[L_1(p·m) + L_1(1)],     z = 2 if k > 3 and z = 1 otherwise
/// ```
///
/// x − 1 rounds of binomial gather, recursive doubling among the p / 2^{x−1} remaining SPEs from
/// round x, then x − 1 rounds of binomial broadcast of the whole p·m result. y is the number of
/// data messages crossing the BIF, p / 2^{x−1}; the contention term is C(2^{k−1} m, y). The
/// caller checks 2 ≤ x ≤ log2 p and y (x = 1 is the plain recursive-doubling row).
pub fn hybrid_two(b: &Blade, p: u32, bytes: u64, x: u32, y: u32) -> Terms {
    let rounds = p.max(1).ilog2();
    let mut t = Terms::new();
    for k in 1..x {
        let size = bytes.saturating_mul(1 << (k - 1));
        t.add(
            format!("gather round {k}: L_1({size} B) + L_1(1)"),
            b.intra.l(size) + b.intra.l1(),
        );
    }
    for k in x..=rounds {
        let size = bytes.saturating_mul(1 << (k - 1));
        if crosses_bif(b, k) {
            t.add(
                format!("recursive-doubling round {k} across the BIF: L_2({size} B) + L_2(1)"),
                b.inter.l(size) + b.inter.l1(),
            );
            t.add(
                format!("C({size} B, y = {y}): BIF contention"),
                b.contention.c(size, y),
            );
        } else {
            t.add(
                format!("recursive-doubling round {k} on chip: L_1({size} B) + L_1(1)"),
                b.intra.l(size) + b.intra.l1(),
            );
        }
    }
    if x > 1 {
        let whole = bytes.saturating_mul(u64::from(p));
        t.add(
            format!("{} broadcast rounds × [L_1({whole} B) + L_1(1)]", x - 1),
            f64::from(x - 1) * (b.intra.l(whole) + b.intra.l1()),
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::testing::blade;

    #[test]
    fn recursive_doubling() {
        let b = blade();
        // One chip, p = 8, m = 1000: L(1000) + L(2000) + L(4000) + 3 L(1)
        // = (200+50) + (200+100) + (200+200) + 300 = 1250.
        assert_eq!(
            recursive_doubling_one(&b.intra, 8, 1000).cost().min_ns,
            1250.0
        );
        // Two chips, p = 16, m = 1000: on chip 250 + 300 + 400 + 3·100 = 1250;
        // BIF L_2(8000) + L_2(1) = 500 + 800 + 300 = 1600; C(8000, 16) = 7·7744/32 = 1694;
        // total 4544.
        assert_eq!(recursive_doubling_two(&b, 16, 1000).cost().min_ns, 4544.0);
    }

    #[test]
    fn hybrid_matches_recursive_doubling_at_x_1() {
        let b = blade();
        let rd = recursive_doubling_two(&b, 16, 1000).cost();
        let hybrid = hybrid_two(&b, 16, 1000, 1, 16).cost();
        assert_eq!(rd, hybrid);
    }

    #[test]
    fn hybrid_4_2_of_figure_6() {
        let b = blade();
        // x = 4, y = 2, p = 16, m = 1000: gather rounds k = 1..3 with 1000, 2000, 4000 B:
        // 250 + 300 + 400 + 3·100 = 1250; round 4 across the BIF with 8000 B: 1600, C = 0
        // (y = 2); broadcast 3 × [L_1(16000) + L_1(1)] = 3·(200 + 800 + 100) = 3300.
        // Total 6150.
        assert_eq!(hybrid_two(&b, 16, 1000, 4, 2).cost().min_ns, 6150.0);
        assert!(crosses_bif(&b, 4));
        assert!(!crosses_bif(&b, 3));
    }
}
