//! Broadcast models of seed 002, Table 2 (§5.2).
//!
//! Data algorithms use the ADDR-array latency L(m) of Fig. 3(b) for an m-byte message and L(1)
//! for its ACK. `bytes` is the broadcast message m (≥ 1); the caller checks p against the
//! placement and the power-of-two conditions of the table.

use super::plogp::Link;
use super::{ceil_log2, floor_log2, Blade, Terms};

/// q = Σ_k (d_k − 1) over the levels k of the binomial tree of p nodes, where d_k is the largest
/// out-degree of a node at level k − 1 (seed 002 §4, Eq. for q).
///
/// In the binomial tree node r's depth is the number of one bits of r and its children are
/// r + 2^j for every 2^j below r's lowest one bit (every j for the root) with r + 2^j < p.
/// For p = 8 the degrees are 3, 2, 1 and q = 3, the value Table 2 prints for one chip.
pub fn binomial_gaps(p: u32) -> u32 {
    let levels = floor_log2(p) as usize + 1;
    let mut widest = vec![0u32; levels];
    for r in 0..p {
        let low_bit = if r == 0 {
            u64::MAX
        } else {
            1u64 << r.trailing_zeros()
        };
        let mut children = 0u32;
        let mut step = 1u64;
        while step < low_bit && u64::from(r) + step < u64::from(p) {
            children += 1;
            step <<= 1;
        }
        let depth = r.count_ones() as usize;
        if let Some(w) = widest.get_mut(depth) {
            *w = (*w).max(children);
        }
    }
    widest.iter().map(|&d| d.saturating_sub(1)).sum()
}

/// One-to-all on one chip (Table 2, row 1): `T = q × g(m) + L(m) + L(1) + X`,
/// `0 ≤ X ≤ q × g_Ack(1)`, `q = p − 2`.
pub fn one_to_all_one(l: &Link, p: u32, bytes: u64) -> Terms {
    let q = f64::from(p.saturating_sub(2));
    let mut t = Terms::new();
    t.add(
        format!("q = {q} gaps × g(m): p − 1 gets from the root"),
        q * l.g(bytes),
    );
    t.add("L(m) data to the last SPE", l.l(bytes));
    t.add("L(1) ACK", l.l1());
    t.add_range("X ∈ [0, q × g_Ack(1)]: queued ACKs", 0.0, q * l.g_ack());
    t
}

/// One-to-all on two chips (Table 2, row 2):
/// `T = L_1(m) + q_1 g_1(m) + L_2(m) + q_2 g_2(m) + L_1(1) + L_2(1) + X`,
/// `0 ≤ X ≤ q_1 g_1Ack(1) + q_2 g_2Ack(1)`, `p > 8`, `q_1 = 6`, `q_2 = p − 9`
/// (q_1 = s − 2 and q_2 = p − s − 1 for s SPEs per chip).
pub fn one_to_all_two(b: &Blade, p: u32, bytes: u64) -> Terms {
    let s = b.spes_per_chip;
    let q1 = f64::from(s.saturating_sub(2));
    let q2 = f64::from(p.saturating_sub(s + 1));
    let mut t = Terms::new();
    t.add(
        "L_1(m) + L_1(1) on-chip data and ACK",
        b.intra.l(bytes) + b.intra.l1(),
    );
    t.add(
        "L_2(m) + L_2(1) BIF data and ACK",
        b.inter.l(bytes) + b.inter.l1(),
    );
    t.add(
        format!("q_1 = {q1} on-chip gaps × g_1(m)"),
        q1 * b.intra.g(bytes),
    );
    t.add(
        format!("q_2 = {q2} BIF gaps × g_2(m)"),
        q2 * b.inter.g(bytes),
    );
    t.add_range(
        "X ∈ [0, q_1 g_1Ack(1) + q_2 g_2Ack(1)]: queued ACKs",
        0.0,
        q1 * b.intra.g_ack() + q2 * b.inter.g_ack(),
    );
    t
}

/// Simple binomial tree on one chip (Table 2, row 3):
/// `T = ⌊log2 p⌋ × [L(m) + L(1)] + q × g(m) + X`, `0 ≤ X ≤ q × g_Ack(1)`, `q = 3`.
///
/// Every node posts its address to all its children at once, so the critical path is the tree's
/// depth ⌊log2 p⌋ and the concurrent gets cost q gaps (priority inversion, §5.2). Table 2's
/// q = 3 is [`binomial_gaps`] for p = 8; we use [`binomial_gaps`] for every p.
pub fn binomial_simple_one(l: &Link, p: u32, bytes: u64) -> Terms {
    let depth = floor_log2(p);
    let q = f64::from(binomial_gaps(p));
    let mut t = Terms::new();
    t.add(
        format!("{depth} levels × [L(m) + L(1)]"),
        f64::from(depth) * (l.l(bytes) + l.l1()),
    );
    t.add(
        format!("q = {q} gaps × g(m) (priority inversion)"),
        q * l.g(bytes),
    );
    t.add_range("X ∈ [0, q × g_Ack(1)]: queued ACKs", 0.0, q * l.g_ack());
    t
}

/// Simple binomial tree on two chips (Table 2, row 5):
/// `T = (⌊log2 p⌋ − 1)[L_1(m) + L_1(1)] + L_2(m) + L_2(1) + q_1 g_1(m) + X`,
/// `0 ≤ X ≤ q_1 × g_1Ack(1)` (printed garbled as "q (× g_1Ack(1))"), `q_1 = 7`, `q_2 = 0`.
///
/// Reading: Table 2 gives q_1 = 7 for p = 16 only. The one-chip rule Σ(d_k − 1) gives 6 for 16
/// nodes; we take q_1 = [`binomial_gaps`]`(p) + 1`, which reproduces the printed 7 (the extra gap
/// being the root's BIF-crossing get competing with its on-chip children), see `docs/cell.md`.
pub fn binomial_simple_two(b: &Blade, p: u32, bytes: u64) -> Terms {
    let on_chip = floor_log2(p).saturating_sub(1);
    let q1 = f64::from(binomial_gaps(p) + 1);
    let mut t = Terms::new();
    t.add(
        format!("{on_chip} on-chip levels × [L_1(m) + L_1(1)]"),
        f64::from(on_chip) * (b.intra.l(bytes) + b.intra.l1()),
    );
    t.add("BIF level L_2(m) + L_2(1)", b.inter.l(bytes) + b.inter.l1());
    t.add(
        format!("q_1 = {q1} gaps × g_1(m) (priority inversion)"),
        q1 * b.intra.g(bytes),
    );
    t.add_range(
        "X ∈ [0, q_1 × g_1Ack(1)]: queued ACKs",
        0.0,
        q1 * b.intra.g_ack(),
    );
    t
}

/// Ordered ("opt") binomial tree on one chip (Table 2, row 4), p a power of two:
/// `T = log2 p × [L(m) + L(1)]`.
pub fn binomial_opt_one(l: &Link, p: u32, bytes: u64) -> Terms {
    let r = floor_log2(p);
    let mut t = Terms::new();
    t.add(
        format!("{r} rounds × [L(m) + L(1)]"),
        f64::from(r) * (l.l(bytes) + l.l1()),
    );
    t
}

/// Ordered binomial tree on two chips (Table 2, row 6):
/// `T = (⌈log2 p⌉ − 1)[L_1(m) + L_1(1)] + L_2(m) + L_2(1)`.
pub fn binomial_opt_two(b: &Blade, p: u32, bytes: u64) -> Terms {
    let on_chip = ceil_log2(p).saturating_sub(1);
    let mut t = Terms::new();
    t.add(
        format!("{on_chip} on-chip rounds × [L_1(m) + L_1(1)]"),
        f64::from(on_chip) * (b.intra.l(bytes) + b.intra.l1()),
    );
    t.add("BIF round L_2(m) + L_2(1)", b.inter.l(bytes) + b.inter.l1());
    t
}

/// Segmented binomial on one chip (Table 2, row 7), p a power of two:
/// `T = (log2 p + 1) × [L(m/2) + L(1)]`: log2 p rounds to spread the two halves, one to exchange
/// them. (The §5.2 text's "(log2 p − 1) × L(m/2) + L(1)" for the first phase is garbled; the
/// table's count is the one that adds up, see `docs/cell.md`.) m/2 is rounded up.
pub fn segmented_one(l: &Link, p: u32, bytes: u64) -> Terms {
    let r = floor_log2(p) + 1;
    let half = bytes.div_ceil(2);
    let mut t = Terms::new();
    t.add(
        format!("{r} rounds × [L(m/2) + L(1)] (log2 p spreading, 1 exchange)"),
        f64::from(r) * (l.l(half) + l.l1()),
    );
    t
}

/// Segmented binomial on two chips (Table 2, row 8), p a power of two with one half per chip:
/// `T = (log2 p − 1)[L_1(m/2) + L_1(1)] + 2[L_2(m/2) + L_2(1)] + C(m/2 > 256)`.
///
/// The contention term is C(m/2, p − 2): "in the 16 SPE case, this policy results in 14
/// inter-chip data exchanges in the last phase" (§5.2).
pub fn segmented_two(b: &Blade, p: u32, bytes: u64) -> Terms {
    let on_chip = floor_log2(p).saturating_sub(1);
    let half = bytes.div_ceil(2);
    let crossing = p.saturating_sub(2);
    let mut t = Terms::new();
    t.add(
        format!("{on_chip} on-chip rounds × [L_1(m/2) + L_1(1)]"),
        f64::from(on_chip) * (b.intra.l(half) + b.intra.l1()),
    );
    t.add(
        "2 BIF rounds × [L_2(m/2) + L_2(1)] (send the far half, exchange halves)",
        2.0 * (b.inter.l(half) + b.inter.l1()),
    );
    t.add(
        format!("C(m/2, {crossing}): BIF contention of the exchange"),
        b.contention.c(half, crossing),
    );
    t
}

/// Hybrid segmented binomial on two chips (Table 2, row 9), p a power of two:
/// `T = log2 p × [L_1(m/2) + L_1(1)] + [L_2(m) + L_2(1)]`: the root sends the whole message to
/// one SPE of the other chip, then each chip runs the segmented broadcast on chip.
pub fn hybrid_segmented_two(b: &Blade, p: u32, bytes: u64) -> Terms {
    let r = floor_log2(p);
    let half = bytes.div_ceil(2);
    let mut t = Terms::new();
    t.add(
        "BIF L_2(m) + L_2(1): whole message to the other chip",
        b.inter.l(bytes) + b.inter.l1(),
    );
    t.add(
        format!("{r} on-chip rounds × [L_1(m/2) + L_1(1)] (segmented on each chip)"),
        f64::from(r) * (b.intra.l(half) + b.intra.l1()),
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::testing::blade;

    #[test]
    fn binomial_gap_counts() {
        // Table 2: q = 3 for p = 8 (degrees 3, 2, 1).
        assert_eq!(binomial_gaps(8), 3);
        // 16 nodes: degrees 4, 3, 2, 1 → 6 (Table 2's q_1 = 7 is this plus one).
        assert_eq!(binomial_gaps(16), 6);
        assert_eq!(binomial_gaps(4), 1);
        assert_eq!(binomial_gaps(2), 0);
        // 6 nodes: root 1, 2, 4 (3); node 4 → 5, node 2 → 3 (1); → 2 + 0 = 2.
        assert_eq!(binomial_gaps(6), 2);
    }

    #[test]
    fn one_chip_broadcasts() {
        let b = blade();
        let l = b.intra;
        // m = 4000: L(m) = 200 + 200 = 400, L(1) = 100, g(m) = 10 + 250 = 260, g_Ack = 5.
        // One-to-all p = 8: q = 6: 6·260 + 400 + 100 = 2060, max + 6·5 = 2090.
        let c = one_to_all_one(&l, 8, 4000).cost();
        assert_eq!((c.min_ns, c.max_ns), (2060.0, 2090.0));
        // Simple binomial p = 8: 3·(400 + 100) + 3·260 = 2280, max + 3·5 = 2295.
        let c = binomial_simple_one(&l, 8, 4000).cost();
        assert_eq!((c.min_ns, c.max_ns), (2280.0, 2295.0));
        // Opt binomial p = 8: 3·500 = 1500.
        assert_eq!(binomial_opt_one(&l, 8, 4000).cost().min_ns, 1500.0);
        // Segmented p = 8: L(2000) = 300: 4·(300 + 100) = 1600.
        assert_eq!(segmented_one(&l, 8, 4000).cost().min_ns, 1600.0);
    }

    #[test]
    fn two_chip_broadcasts() {
        let b = blade();
        // m = 4000: L_1(m) = 400, L_2(m) = 500 + 400 = 900, L_1(1) = 100, L_2(1) = 300,
        // g_1(m) = 260, g_2(m) = 20 + 500 = 520.
        // One-to-all p = 16: 400 + 6·260 + 900 + 7·520 + 100 + 300 = 6900;
        // max + 6·5 + 7·7 = 6979.
        let c = one_to_all_two(&b, 16, 4000).cost();
        assert_eq!((c.min_ns, c.max_ns), (6900.0, 6979.0));
        // Simple binomial p = 16: 3·500 + 1200 + 7·260 = 4520; max + 7·5 = 4555.
        let c = binomial_simple_two(&b, 16, 4000).cost();
        assert_eq!((c.min_ns, c.max_ns), (4520.0, 4555.0));
        // Opt binomial p = 16: 3·500 + 1200 = 2700; p = 12 has ⌈log2 12⌉ − 1 = 3 too.
        assert_eq!(binomial_opt_two(&b, 16, 4000).cost().min_ns, 2700.0);
        assert_eq!(binomial_opt_two(&b, 12, 4000).cost().min_ns, 2700.0);
        // Segmented p = 16, m/2 = 2000: L_1 = 300, L_2 = 700; C(2000, 14) = 6·1744/32 = 327;
        // 3·400 + 2·1000 + 327 = 3527.
        assert_eq!(segmented_two(&b, 16, 4000).cost().min_ns, 3527.0);
        // Hybrid segmented p = 16: 4·400 + 1200 = 2800.
        assert_eq!(hybrid_segmented_two(&b, 16, 4000).cost().min_ns, 2800.0);
    }
}
