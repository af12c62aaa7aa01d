//! Barrier models of seed 002, Table 1 (§5.1).
//!
//! Barriers move no data: they use the ACK-array latency L(1) of Fig. 3(a) only. Every function
//! takes the SPE count p (≥ 2) and returns the model's [`Terms`]; the caller checks that p fits
//! the placement (one chip: p ≤ 8; two chips: p > 8).

use super::plogp::Link;
use super::{ceil_log2, floor_log2, Blade, Terms};

/// Recursive doubling on one chip (Table 1, row 1):
/// `T = log2 p × L(1)` for a power-of-two p, `T = (⌊log2 p⌋ + 2) × L(1)` otherwise (the extra
/// fold-in and fold-out steps of §4).
pub fn recursive_doubling_one(l: &Link, p: u32) -> Terms {
    let mut t = Terms::new();
    if p.is_power_of_two() {
        let r = p.ilog2();
        t.add(
            format!("{r} butterfly rounds × L(1)"),
            f64::from(r) * l.l1(),
        );
    } else {
        let r = floor_log2(p) + 2;
        t.add(
            format!(
                "{r} rounds × L(1): fold-in, {} butterfly rounds, fold-out",
                r - 2
            ),
            f64::from(r) * l.l1(),
        );
    }
    t
}

/// Recursive doubling on two chips (Table 1, row 2):
/// `T = (log2 p − 1) × L_1(1) + L_2(1)` for a power-of-two p,
/// `T = (⌊log2 p⌋ + 1) × L_1(1) + L_2(1)` otherwise (one round crosses the BIF).
pub fn recursive_doubling_two(b: &Blade, p: u32) -> Terms {
    let mut t = Terms::new();
    let on_chip = if p.is_power_of_two() {
        p.ilog2().saturating_sub(1)
    } else {
        floor_log2(p) + 1
    };
    t.add(
        format!("{on_chip} on-chip rounds × L_1(1)"),
        f64::from(on_chip) * b.intra.l1(),
    );
    t.add("1 BIF round L_2(1)", b.inter.l1());
    t
}

/// Bruck on one chip (Table 1, row 3): `T = ⌈log2 p⌉ × L(1)`.
pub fn bruck_one(l: &Link, p: u32) -> Terms {
    let r = ceil_log2(p);
    let mut t = Terms::new();
    t.add(format!("{r} rounds × L(1)"), f64::from(r) * l.l1());
    t
}

/// Bruck on two chips (Table 1, row 4): `T = ⌈log2 p⌉ × max[L_1(1), L_2(1)]`: "as there are at
/// least two messages crossing the BIF in each round" (§5.1), every round waits for the slower
/// path.
pub fn bruck_two(b: &Blade, p: u32) -> Terms {
    let r = ceil_log2(p);
    let mut t = Terms::new();
    t.add(
        format!("{r} rounds × max[L_1(1), L_2(1)] (every round crosses the BIF)"),
        f64::from(r) * b.intra.l1().max(b.inter.l1()),
    );
    t
}

/// Gather-broadcast on one chip (Table 1, row 5): `T = 2 × ⌈log2 p⌉ × L(1)`.
pub fn gather_broadcast_one(l: &Link, p: u32) -> Terms {
    let r = ceil_log2(p);
    let mut t = Terms::new();
    t.add(
        format!("2 × {r} rounds × L(1) (gather, then broadcast)"),
        2.0 * f64::from(r) * l.l1(),
    );
    t
}

/// Gather-broadcast on two chips (Table 1, row 6):
/// `T = max[2(⌈log2 p⌉ − 1) L_1(1), 2[L_2(1) + (⌈log2 p⌉ − 1) L_1(1)]]`.
///
/// The second branch is the larger whenever L_2(1) > 0; both are kept as printed.
pub fn gather_broadcast_two(b: &Blade, p: u32) -> Terms {
    let on_chip = ceil_log2(p).saturating_sub(1);
    let chip_only = 2.0 * f64::from(on_chip) * b.intra.l1();
    let with_bif = 2.0 * (b.inter.l1() + f64::from(on_chip) * b.intra.l1());
    let mut t = Terms::new();
    if with_bif >= chip_only {
        t.add(
            format!("2 × {on_chip} on-chip rounds × L_1(1) (gather, then broadcast)"),
            chip_only,
        );
        t.add(
            "2 × L_2(1) (the BIF round of the gather and of the broadcast)",
            with_bif - chip_only,
        );
    } else {
        t.add(
            format!("2 × {on_chip} on-chip rounds × L_1(1) (dominates the BIF branch)"),
            chip_only,
        );
    }
    t
}

/// One-to-all on one chip (Table 1, row 7): `T = q × g(1) + L(1) + L(1) + X`,
/// `0 ≤ X ≤ q × g_Ack(1)`, `q = p − 2`: the root's p − 1 messages leave g(1) apart, the last
/// ACK returns after L(1), and the ACKs may queue behind each other.
pub fn one_to_all_one(l: &Link, p: u32) -> Terms {
    let q = f64::from(p.saturating_sub(2));
    let mut t = Terms::new();
    t.add(format!("q = {q} gaps × g(1) at the root"), q * l.g1());
    t.add("L(1) message to the last SPE", l.l1());
    t.add("L(1) ACK back to the root", l.l1());
    t.add_range(
        format!("X ∈ [0, q × g_Ack(1)]: queued ACKs (q = {q})"),
        0.0,
        q * l.g_ack(),
    );
    t
}

/// One-to-all on two chips (Table 1, row 8):
/// `T = 2 × (L_1(1) + L_2(1)) + q_1 × g_1(1) + q_2 × g_2(1) + X`,
/// `0 ≤ X ≤ q_1 × g_1Ack(1) + q_2 × g_2Ack(1)`, `q_1 = 6`, `q_2 = p − 9`.
///
/// With s SPEs per chip the root has s − 1 on-chip and p − s off-chip children, so
/// q_1 = s − 2 and q_2 = p − s − 1 (§4's q_1, q_2 rule; 6 and p − 9 for s = 8).
pub fn one_to_all_two(b: &Blade, p: u32) -> Terms {
    let s = b.spes_per_chip;
    let q1 = f64::from(s.saturating_sub(2));
    let q2 = f64::from(p.saturating_sub(s + 1));
    let mut t = Terms::new();
    t.add(
        "2 × (L_1(1) + L_2(1)) messages and ACKs",
        2.0 * (b.intra.l1() + b.inter.l1()),
    );
    t.add(
        format!("q_1 = {q1} on-chip gaps × g_1(1)"),
        q1 * b.intra.g1(),
    );
    t.add(format!("q_2 = {q2} BIF gaps × g_2(1)"), q2 * b.inter.g1());
    t.add_range(
        "X ∈ [0, q_1 g_1Ack(1) + q_2 g_2Ack(1)]: queued ACKs",
        0.0,
        q1 * b.intra.g_ack() + q2 * b.inter.g_ack(),
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::testing::blade;

    #[test]
    fn recursive_doubling_one_chip() {
        let b = blade();
        // p = 8: log2 8 = 3 rounds × 100 = 300 ns.
        assert_eq!(recursive_doubling_one(&b.intra, 8).cost().min_ns, 300.0);
        // p = 6: (⌊log2 6⌋ + 2) = 4 rounds × 100 = 400 ns.
        assert_eq!(recursive_doubling_one(&b.intra, 6).cost().min_ns, 400.0);
    }

    #[test]
    fn recursive_doubling_two_chips() {
        let b = blade();
        // p = 16 (Table 1 and §6.1 "3·L_1(1) + L_2(1)"): 3 × 100 + 300 = 600 ns.
        assert_eq!(recursive_doubling_two(&b, 16).cost().min_ns, 600.0);
        // p = 12: (⌊log2 12⌋ + 1) = 4 on-chip rounds + BIF: 400 + 300 = 700 ns.
        assert_eq!(recursive_doubling_two(&b, 12).cost().min_ns, 700.0);
    }

    #[test]
    fn bruck_and_gather_broadcast() {
        let b = blade();
        // Bruck p = 6 on one chip: ⌈log2 6⌉ = 3 × 100 = 300.
        assert_eq!(bruck_one(&b.intra, 6).cost().min_ns, 300.0);
        // Bruck p = 16 on two chips: 4 × max(100, 300) = 1200.
        assert_eq!(bruck_two(&b, 16).cost().min_ns, 1200.0);
        // Gather-broadcast p = 8: 2 × 3 × 100 = 600.
        assert_eq!(gather_broadcast_one(&b.intra, 8).cost().min_ns, 600.0);
        // p = 16: max[2·3·100, 2·(300 + 3·100)] = max[600, 1200] = 1200.
        assert_eq!(gather_broadcast_two(&b, 16).cost().min_ns, 1200.0);
    }

    #[test]
    fn one_to_all_ranges() {
        let b = blade();
        // p = 8: q = 6; min = 6·11 + 100 + 100 = 266; max = 266 + 6·5 = 296.
        let c = one_to_all_one(&b.intra, 8).cost();
        assert_eq!((c.min_ns, c.max_ns), (266.0, 296.0));
        // p = 16: q_1 = 6, q_2 = 7; min = 2(100 + 300) + 6·11 + 7·22 = 800 + 66 + 154 = 1020;
        // max = 1020 + 6·5 + 7·7 = 1099.
        let c = one_to_all_two(&b, 16).cost();
        assert_eq!((c.min_ns, c.max_ns), (1020.0, 1099.0));
        // p = 9: q_2 = 0.
        let c = one_to_all_two(&b, 9).cost();
        assert_eq!(c.min_ns, 800.0 + 66.0);
    }
}
