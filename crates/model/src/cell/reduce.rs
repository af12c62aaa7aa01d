//! Reduce (Table 4, §5.4) and all-reduce (Table 5, §5.5) models of seed 002.
//!
//! Sizes: the binomial, recursive-doubling and hybrid-A models take the whole vector m each SPE
//! contributes. The reduce-scatter models write their sums in terms of the piece m each SPE holds
//! after the reduce-scatter, "the total size of the reduced data is p·m" (§5.4), so the caller
//! passes `piece` = ⌈vector / p⌉. γ is the computation time per byte.

use super::allgather;
use super::plogp::Link;
use super::{ceil_log2, floor_log2, Blade, Terms};

/// Binomial reduce on one chip (Table 4, row 1): `T = ⌊log2 p⌋ × [L(m) + L(1) + γm]`.
pub fn binomial_one(l: &Link, p: u32, bytes: u64, gamma: f64) -> Terms {
    let r = floor_log2(p);
    let mut t = Terms::new();
    t.add(
        format!("{r} rounds × [L(m) + L(1)]"),
        f64::from(r) * (l.l(bytes) + l.l1()),
    );
    t.add(
        format!("{r} × γm computation"),
        f64::from(r) * gamma * bytes as f64,
    );
    t
}

/// Binomial reduce on two chips (Table 4, row 2):
/// `T = (⌈log2 p⌉ − 1) × [L_1(m) + L_1(1) + γm] + L_2(m) + L_2(1) + γm`.
pub fn binomial_two(b: &Blade, p: u32, bytes: u64, gamma: f64) -> Terms {
    let r = ceil_log2(p);
    let on_chip = r.saturating_sub(1);
    let mut t = Terms::new();
    t.add(
        format!("{on_chip} on-chip rounds × [L_1(m) + L_1(1)]"),
        f64::from(on_chip) * (b.intra.l(bytes) + b.intra.l1()),
    );
    t.add("BIF round L_2(m) + L_2(1)", b.inter.l(bytes) + b.inter.l1());
    t.add(
        format!("{r} × γm computation"),
        f64::from(r) * gamma * bytes as f64,
    );
    t
}

/// The reduce-scatter + gather sum on one chip (Table 4, row 3; also Table 5 rows 3 and 5):
/// `Σ_{k=0}^{log2 p − 1} [2 × L(2^k m) + γ 2^k m + 2 × L(1)]`, m the piece.
pub fn reduce_scatter_gather_one(l: &Link, p: u32, piece: u64, gamma: f64) -> Terms {
    let mut t = Terms::new();
    let mut compute = 0.0;
    for k in 0..floor_log2(p) {
        let size = piece.saturating_mul(1 << k);
        t.add(
            format!(
                "stage {}: 2 × [L({size} B) + L(1)] (scatter and gather)",
                k + 1
            ),
            2.0 * (l.l(size) + l.l1()),
        );
        compute += gamma * size as f64;
    }
    t.add("Σ γ 2^k m computation", compute);
    t
}

/// The reduce-scatter + gather sum on two chips without its contention term (Table 4, row 4):
///
/// ```text
/// Σ_{k=0}^{log2 p − 2} [2 L_1(2^k m) + γ 2^k m + 2 L_1(1)] + 2 [L_2(2^{log2 p − 1} m) + L_2(1)]
///   + γ 2^{log2 p − 1} m
/// ```
///
/// Returns the terms and the BIF message size 2^{log2 p − 1} m.
fn reduce_scatter_gather_two_base(b: &Blade, p: u32, piece: u64, gamma: f64) -> (Terms, u64) {
    let rounds = floor_log2(p);
    let mut t = Terms::new();
    let mut compute = 0.0;
    for k in 0..rounds.saturating_sub(1) {
        let size = piece.saturating_mul(1 << k);
        t.add(
            format!("stage {} on chip: 2 × [L_1({size} B) + L_1(1)]", k + 1),
            2.0 * (b.intra.l(size) + b.intra.l1()),
        );
        compute += gamma * size as f64;
    }
    let last = piece.saturating_mul(1 << rounds.saturating_sub(1));
    t.add(
        format!("stage {rounds} across the BIF: 2 × [L_2({last} B) + L_2(1)]"),
        2.0 * (b.inter.l(last) + b.inter.l1()),
    );
    compute += gamma * last as f64;
    t.add("Σ γ 2^k m computation", compute);
    (t, last)
}

/// Reduce-scatter + gather on two chips (Table 4, row 4), p a power of two:
///
/// ```text
/// T = Σ_{k=0}^{log2 p − 2} [2 L_1(2^k m) + γ 2^k m + 2 L_1(1)] + 2 [L_2(2^{log2 p − 1} m) + L_2(1)]
///   + γ 2^{log2 p − 1} m + C(2^{log2 p − 1} m > 256)
/// ```
///
/// "In the first round of reduce-scatter there will be 16 messages crossing the BIF" (§5.4): the
/// contention term is C(2^{log2 p − 1} m, p).
pub fn reduce_scatter_gather_two(b: &Blade, p: u32, piece: u64, gamma: f64) -> Terms {
    let (mut t, last) = reduce_scatter_gather_two_base(b, p, piece, gamma);
    t.add(
        format!("C({last} B, {p}): BIF contention of the reduce-scatter"),
        b.contention.c(last, p),
    );
    t
}

/// Recursive-doubling all-reduce on one chip (Table 5, row 1):
/// `T = log2 p × [L(m) + 2 × L(1) + γm]`.
pub fn allreduce_recursive_doubling_one(l: &Link, p: u32, bytes: u64, gamma: f64) -> Terms {
    let r = floor_log2(p);
    let mut t = Terms::new();
    t.add(
        format!("{r} rounds × [L(m) + 2 × L(1)]"),
        f64::from(r) * (l.l(bytes) + 2.0 * l.l1()),
    );
    t.add(
        format!("{r} × γm computation"),
        f64::from(r) * gamma * bytes as f64,
    );
    t
}

/// Recursive-doubling all-reduce on two chips (Table 5, row 2):
/// `T = (log2 p − 1)[L_1(m) + 2 L_1(1) + γm] + L_2(m) + 2 L_2(1) + γm + C(m > 256)`; all p SPEs
/// cross the BIF in the last round: C(m, p).
pub fn allreduce_recursive_doubling_two(b: &Blade, p: u32, bytes: u64, gamma: f64) -> Terms {
    let r = floor_log2(p);
    let on_chip = r.saturating_sub(1);
    let mut t = Terms::new();
    t.add(
        format!("{on_chip} on-chip rounds × [L_1(m) + 2 × L_1(1)]"),
        f64::from(on_chip) * (b.intra.l(bytes) + 2.0 * b.intra.l1()),
    );
    t.add(
        "BIF round L_2(m) + 2 × L_2(1)",
        b.inter.l(bytes) + 2.0 * b.inter.l1(),
    );
    t.add(
        format!("{r} × γm computation"),
        f64::from(r) * gamma * bytes as f64,
    );
    t.add(
        format!("C(m, {p}): BIF contention, {p} messages"),
        b.contention.c(bytes, p),
    );
    t
}

/// Reduce-scatter + recursive-doubling all-gather on one chip (Table 5, row 3): the same sum as
/// [`reduce_scatter_gather_one`].
pub fn reduce_scatter_allgather_one(l: &Link, p: u32, piece: u64, gamma: f64) -> Terms {
    reduce_scatter_gather_one(l, p, piece, gamma)
}

/// Reduce-scatter + recursive-doubling all-gather on two chips (Table 5, row 4):
/// as [`reduce_scatter_gather_two`] with `2 × C(2^{log2 p − 1} m > 256)`: "the reduce-scatter
/// phase has 16 messages crossing the BIF and so does the all-gather phase" (§5.5).
pub fn reduce_scatter_allgather_two(b: &Blade, p: u32, piece: u64, gamma: f64) -> Terms {
    let (mut t, last) = reduce_scatter_gather_two_base(b, p, piece, gamma);
    t.add(
        format!("2 × C({last} B, {p}): BIF contention of the reduce-scatter and the all-gather"),
        2.0 * b.contention.c(last, p),
    );
    t
}

/// Reduce-scatter + gather + broadcast on one chip (Table 5, row 5):
/// `T = Σ_{k=0}^{log2 p − 1} [2 L(2^k m) + γ 2^k m + 2 L(1)] + log2 p × [L(m) + L(1)]`.
///
/// Reading: the broadcast sends the whole reduced vector (p × piece, what the other rows call
/// m), not one piece; `vector` is that size.
pub fn reduce_scatter_gather_bcast_one(
    l: &Link,
    p: u32,
    piece: u64,
    vector: u64,
    gamma: f64,
) -> Terms {
    let mut t = reduce_scatter_gather_one(l, p, piece, gamma);
    let r = floor_log2(p);
    t.add(
        format!("broadcast: {r} rounds × [L(m) + L(1)] of the whole vector"),
        f64::from(r) * (l.l(vector) + l.l1()),
    );
    t
}

/// Reduce-scatter + gather + broadcast on two chips (Table 5, row 6):
/// `T = [Table 4 row 4] + (log2 p − 1)[L_1(m) + L_1(1)] + L_2(m) + L_2(1)`, the broadcast of the
/// whole vector (`vector`, see [`reduce_scatter_gather_bcast_one`]).
pub fn reduce_scatter_gather_bcast_two(
    b: &Blade,
    p: u32,
    piece: u64,
    vector: u64,
    gamma: f64,
) -> Terms {
    let mut t = reduce_scatter_gather_two(b, p, piece, gamma);
    let on_chip = floor_log2(p).saturating_sub(1);
    t.add(
        format!("broadcast: {on_chip} on-chip rounds × [L_1(m) + L_1(1)]"),
        f64::from(on_chip) * (b.intra.l(vector) + b.intra.l1()),
    );
    t.add(
        "broadcast: BIF round L_2(m) + L_2(1)",
        b.inter.l(vector) + b.inter.l1(),
    );
    t
}

/// HybridA-x-y all-reduce on two chips (Table 5, row 7; §5.5), p a power of two:
///
/// ```text
/// T = 2 × (x − 1)[L_1(m) + L_1(1)] + (x − 1) × γm
///   + Σ_{k=x}^{log2 p} [L_z(m) + L_z(1) + γm + C(m > 256 and y > 2 and z = 2)],
///     z = 2 if k > 3 and z = 1 otherwise
/// ```
///
/// Readings: the sum's lower bound prints as "k = π" (it is x: recursive doubling "in round
/// x"), and a "+" is missing before the Σ. x − 1 rounds of binomial reduce, recursive doubling
/// from round x, x − 1 rounds of binomial broadcast; y = p / 2^{x−1} messages cross the BIF, so
/// the contention term is C(m, y). The caller checks 2 ≤ x ≤ log2 p and y.
pub fn hybrid_a_two(b: &Blade, p: u32, bytes: u64, gamma: f64, x: u32, y: u32) -> Terms {
    let rounds = floor_log2(p);
    let gm = gamma * bytes as f64;
    let mut t = Terms::new();
    if x > 1 {
        let tree = f64::from(x - 1);
        t.add(
            format!(
                "2 × {} on-chip rounds × [L_1(m) + L_1(1)] (binomial reduce and broadcast)",
                x - 1
            ),
            2.0 * tree * (b.intra.l(bytes) + b.intra.l1()),
        );
        t.add(
            format!("{} × γm computation of the reduce", x - 1),
            tree * gm,
        );
    }
    for k in x..=rounds {
        if allgather::crosses_bif(b, k) {
            t.add(
                format!("recursive-doubling round {k} across the BIF: L_2(m) + L_2(1) + γm"),
                b.inter.l(bytes) + b.inter.l1() + gm,
            );
            t.add(
                format!("C(m, y = {y}): BIF contention"),
                b.contention.c(bytes, y),
            );
        } else {
            t.add(
                format!("recursive-doubling round {k} on chip: L_1(m) + L_1(1) + γm"),
                b.intra.l(bytes) + b.intra.l1() + gm,
            );
        }
    }
    t
}

/// HybridB-x-y all-reduce on two chips (Table 5, row 8; §5.5), p a power of two:
///
/// ```text
/// T = Σ_{k=0}^{log2 p − 2} [L_1(2^k m) + γ 2^k m + L_1(1)] + L_2(2^{log2 p − 1} m) + L_2(1)
///   + γ 2^{log2 p − 1} m + C(2^{log2 p − 1} m > 256) + Hybrid-all-gather-x-y
/// ```
///
/// (a "+" is missing before C in the conversion): Rabenseifner's reduce-scatter, then the
/// hybrid-x-y all-gather of Table 3 ([`allgather::hybrid_two`]) starting from the piece m.
pub fn hybrid_b_two(b: &Blade, p: u32, piece: u64, gamma: f64, x: u32, y: u32) -> Terms {
    let rounds = floor_log2(p);
    let mut t = Terms::new();
    let mut compute = 0.0;
    for k in 0..rounds.saturating_sub(1) {
        let size = piece.saturating_mul(1 << k);
        t.add(
            format!(
                "reduce-scatter stage {} on chip: L_1({size} B) + L_1(1)",
                k + 1
            ),
            b.intra.l(size) + b.intra.l1(),
        );
        compute += gamma * size as f64;
    }
    let last = piece.saturating_mul(1 << rounds.saturating_sub(1));
    t.add(
        format!("reduce-scatter stage {rounds} across the BIF: L_2({last} B) + L_2(1)"),
        b.inter.l(last) + b.inter.l1(),
    );
    compute += gamma * last as f64;
    t.add("Σ γ 2^k m computation", compute);
    t.add(
        format!("C({last} B, {p}): BIF contention of the reduce-scatter"),
        b.contention.c(last, p),
    );
    t.extend(allgather::hybrid_two(b, p, piece, x, y));
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::testing::blade;

    const GAMMA: f64 = 0.5;

    #[test]
    fn binomial_reduce() {
        let b = blade();
        // One chip p = 8, m = 4000: 3·(400 + 100) + 3·0.5·4000 = 1500 + 6000 = 7500.
        assert_eq!(binomial_one(&b.intra, 8, 4000, GAMMA).cost().min_ns, 7500.0);
        // Two chips p = 16: 3·500 + (900 + 300) + 4·2000 = 1500 + 1200 + 8000 = 10700.
        assert_eq!(binomial_two(&b, 16, 4000, GAMMA).cost().min_ns, 10700.0);
    }

    #[test]
    fn reduce_scatter_gather() {
        let b = blade();
        // One chip p = 4, piece 1000: k = 0: 2·(250 + 100) + 500; k = 1: 2·(300 + 100) + 1000;
        // total 700 + 800 + 1500 = 3000.
        assert_eq!(
            reduce_scatter_gather_one(&b.intra, 4, 1000, GAMMA)
                .cost()
                .min_ns,
            3000.0
        );
        // Two chips p = 16, piece 1000: on chip k = 0..2: 2·(250+100) + 2·(300+100) + 2·(400+100)
        // = 2500; BIF 2·(L_2(8000) + L_2(1)) = 2·(1300 + 300) = 3200; γ(1000+2000+4000+8000)
        // = 7500; C(8000, 16) = 1694. Total 14894.
        assert_eq!(
            reduce_scatter_gather_two(&b, 16, 1000, GAMMA).cost().min_ns,
            14894.0
        );
        // The all-gather variant counts the contention twice: 14894 + 1694.
        assert_eq!(
            reduce_scatter_allgather_two(&b, 16, 1000, GAMMA)
                .cost()
                .min_ns,
            16588.0
        );
        // With the broadcast of the whole 16000 B vector: 3·(L_1(16000) + 100) + L_2(16000)
        // + 300 = 3·1100 + 2100 + 300 = 5700 → 20594.
        assert_eq!(
            reduce_scatter_gather_bcast_two(&b, 16, 1000, 16000, GAMMA)
                .cost()
                .min_ns,
            20594.0
        );
    }

    #[test]
    fn recursive_doubling_allreduce() {
        let b = blade();
        // One chip p = 8, m = 4000: 3·(400 + 200) + 3·2000 = 1800 + 6000 = 7800.
        assert_eq!(
            allreduce_recursive_doubling_one(&b.intra, 8, 4000, GAMMA)
                .cost()
                .min_ns,
            7800.0
        );
        // Two chips p = 16: 3·600 + (900 + 600) + 4·2000 + C(4000, 16) = 1800 + 1500 + 8000
        // + 7·3744/32 (= 819) = 12119.
        assert_eq!(
            allreduce_recursive_doubling_two(&b, 16, 4000, GAMMA)
                .cost()
                .min_ns,
            12119.0
        );
    }

    #[test]
    fn hybrid_a_3_4_of_section_5_5() {
        let b = blade();
        // p = 16, x = 3, y = 4, m = 4000: 2·2·(400 + 100) + 2·2000 = 6000;
        // round 3 on chip: 400 + 100 + 2000 = 2500; round 4 across the BIF: 900 + 300 + 2000
        // = 3200 and C(4000, 4) = 1·3744/32 = 117. Total 11817.
        assert_eq!(
            hybrid_a_two(&b, 16, 4000, GAMMA, 3, 4).cost().min_ns,
            11817.0
        );
    }

    #[test]
    fn hybrid_b() {
        let b = blade();
        // p = 16, piece 1000, x = 4, y = 2: reduce-scatter on chip 350 + 400 + 500 = 1250;
        // BIF L_2(8000) + L_2(1) = 1600; γ·15000 = 7500; C(8000, 16) = 1694; then the
        // hybrid-4-2 all-gather of 1000 B = 6150 (allgather tests). Total 18194.
        assert_eq!(
            hybrid_b_two(&b, 16, 1000, GAMMA, 4, 2).cost().min_ns,
            18194.0
        );
    }
}
