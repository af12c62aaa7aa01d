//! The fitted linear cost models of seed 003 §5, in milliseconds.
//!
//! `p` is the number of processors (`N_procs`), `n` the subpages (128 B) per processor, and
//! `total = p·n` the size of a concatenation's result — the seed's `N_subpages` for
//! concatenate-one and concatenate-all ("the first N_procs/2 processors read N_subpages/N_procs
//! from the other processors"). `log2 N_procs` of the tree algorithms is the number of stages,
//! ⌈log2 p⌉. Units and readings: `docs/ksr1.md`.

use super::shift::ring1_crossings;
use super::Ksr1;
use crate::algorithm::ceil_log;

/// The two concatenate-one algorithms of seed 003 §5.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GatherAlgorithm {
    /// Algorithm 1: node 0 reads from all other nodes one by one (O(N_procs) steps).
    Sequential,
    /// Algorithm 2: a binary tree; the data doubles at each of ⌈log2 N_procs⌉ stages.
    Tree,
}

/// The three parts of a reduction (seed 003 §5.7), ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReduceParts {
    /// Concatenate-one of the p vectors (`p·n` subpages) at the root.
    pub gather: f64,
    /// The root combines `(p − 1)·n` subpages.
    pub operation: f64,
    /// Broadcast of the `n`-subpage result.
    pub bcast: f64,
}

impl ReduceParts {
    /// The reduction time.
    pub fn total(&self) -> f64 {
        self.gather + self.operation + self.bcast
    }
}

impl Ksr1 {
    /// Whether `p` processors span more than one ring:0 (and so use ring:1).
    pub fn spans_ring1(&self, p: u32) -> bool {
        p > self.topology.cells_per_ring0
    }

    /// Tree stages `⌈log2 p⌉`.
    pub fn tree_stages(p: u32) -> u32 {
        ceil_log(2, u64::from(p.max(1)))
    }

    /// Seed 003 §5.1: "about 270 microseconds" for 8, 16 and 32 processors, all on one ring:0;
    /// across ring:1 an estimate (`barrier.ring1`).
    pub fn barrier(&self, p: u32) -> f64 {
        if self.spans_ring1(p) {
            self.barrier.ring1
        } else {
            self.barrier.ring0
        }
    }

    /// Seed 003 §5.2: `T_broadcast = C0 + C1·N_subpages`, with C0 ≈ 0, C1 = 0.054 for
    /// N_procs ≤ 32 and C0 = 0.419, C1 = 0.069 above ("communication over ring:1").
    pub fn bcast(&self, p: u32, n: u64) -> f64 {
        let fit = if self.spans_ring1(p) {
            self.bcast.ring1
        } else {
            self.bcast.ring0
        };
        fit.c0 + fit.per_subpage * n as f64
    }

    /// Seed 003 §5.4: `T_cshift = C1·N_procs + C2·N_subpages` at distance 1 (C1 = 0.007,
    /// C2 = 0.029), times the ring:1 slowdown κ of Table 3 for shifts by `distance`.
    pub fn shift(&self, p: u32, n: u64, distance: u32) -> f64 {
        let base = self.shift.per_processor * f64::from(p) + self.shift.per_subpage * n as f64;
        base * self.shift_slowdown(p, distance)
    }

    /// The Table 3 slowdown κ(f) of a shift by `distance` on `p` processors, f being the fraction
    /// of messages crossing ring:1 (1 within one ring:0).
    pub fn shift_slowdown(&self, p: u32, distance: u32) -> f64 {
        if p == 0 {
            return 1.0;
        }
        let crossings = ring1_crossings(p, distance, self.topology.cells_per_ring0);
        self.shift
            .contention
            .slowdown(f64::from(crossings) / f64::from(p))
    }

    /// Seed 003 §5.5, concatenate-one: algorithm 1 `C0 + C1·N_procs + C2·N_subpages`
    /// (C0 ≈ 0, C1 = 0.050, C2 = 0.030), algorithm 2 `C0 + C1·log2 N_procs + C2·N_subpages`
    /// (C0 ≈ 0, C1 = 0.442, C2 = 0.029); `total` subpages gathered.
    pub fn gather(&self, algorithm: GatherAlgorithm, p: u32, total: u64) -> f64 {
        match algorithm {
            GatherAlgorithm::Sequential => {
                let f = self.gather.sequential;
                f.c0 + f.per_x * f64::from(p) + f.per_subpage * total as f64
            }
            GatherAlgorithm::Tree => {
                let f = self.gather.tree;
                f.c0 + f.per_x * f64::from(Self::tree_stages(p)) + f.per_subpage * total as f64
            }
        }
    }

    /// Seed 003 §5.6, concatenate-all algorithm 1 (concatenate-one algorithm 1 + broadcast):
    /// `C0 + C1·N_procs + C2·N_subpages`, C0 ≈ 0, C1 = 0.091, C2 = 0.064.
    pub fn allgather_gather_bcast(&self, p: u32, total: u64) -> f64 {
        let f = self.allgather.gather_bcast;
        f.c0 + f.per_x * f64::from(p) + f.per_subpage * total as f64
    }

    /// Seed 003 §5.6, concatenate-all algorithm 2 (concatenate-one algorithm 2 + broadcast):
    /// `C0 + C5·log2 N_procs + C6·N_procs + C7·N_subpages`, C0 ≈ 0, C5 = 0.087, C6 = 0.060, C7
    /// estimated (the seed omits it; `docs/ksr1.md`).
    pub fn allgather_tree_gather_bcast(&self, p: u32, total: u64) -> f64 {
        let f = self.allgather.tree_gather_bcast;
        f.c0 + f.per_stage * f64::from(Self::tree_stages(p))
            + f.per_processor * f64::from(p)
            + f.per_subpage * total as f64
    }

    /// Seed 003 §5.6, concatenate-all algorithm 3 (N − 1 cyclic shifts):
    /// `C0 + C1·N_procs + C2·N_subpages`, C0 = 0.074, C1 = 0.058, C2 = 0.022.
    pub fn allgather_cyclic_shifts(&self, p: u32, total: u64) -> f64 {
        let f = self.allgather.cyclic_shifts;
        f.c0 + f.per_x * f64::from(p) + f.per_subpage * total as f64
    }

    /// Seed 003 §5.7: reduction = concatenate-one of the p vectors of `n` subpages + the root's
    /// operation on `(p − 1)·n` subpages + broadcast of the `n`-subpage result.
    pub fn reduce_parts(&self, algorithm: GatherAlgorithm, p: u32, n: u64) -> ReduceParts {
        let total = u64::from(p).saturating_mul(n);
        ReduceParts {
            gather: self.gather(algorithm, p, total),
            operation: self.reduce_operation * (f64::from(p.saturating_sub(1)) * n as f64),
            bcast: self.bcast(p, n),
        }
    }

    /// The reduction time, ms ([`Ksr1::reduce_parts`]).
    pub fn reduce(&self, algorithm: GatherAlgorithm, p: u32, n: u64) -> f64 {
        self.reduce_parts(algorithm, p, n).total()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::bundled;
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn broadcast_below_and_above_32_processors() {
        let ksr = bundled();
        // 16 KB = 128 subpages. P ≤ 32: 0 + 0.054·128 = 6.912 ms, whatever P.
        close(ksr.bcast(8, 128), 6.912);
        close(ksr.bcast(32, 128), 6.912);
        // P = 33..: ring:1, 0.419 + 0.069·128 = 9.251 ms.
        close(ksr.bcast(33, 128), 9.251);
        close(ksr.bcast(64, 128), 9.251);
    }

    #[test]
    fn shift_reproduces_table_3() {
        let ksr = bundled();
        // One 16 KB page per processor: 0.007·32 + 0.029·128 = 3.936 ms (Table 3: 3.88 ms);
        // independent of the distance on one ring:0.
        close(ksr.shift(32, 128, 1), 3.936);
        close(ksr.shift(32, 128, 16), 3.936);
        // 64 processors: 0.448 + 3.712 = 4.16 ms at distance 1 (Table 3: 3.97 ms), and
        // 4.16 · 7.94/3.945 = 8.3727 ms at distance 32 (Table 3: 7.94 ms).
        close(ksr.shift(64, 128, 1), 4.16);
        close(ksr.shift(64, 128, 32), 4.16 * 7.94 / 3.945);
        close(ksr.shift(64, 128, 16), 4.16 * 5.175 / 3.945);
    }

    #[test]
    fn gathers_and_allgathers_by_hand() {
        let ksr = bundled();
        // 64 processors × 128 subpages = 8192 subpages.
        // Algorithm 1: 0.050·64 + 0.030·8192 = 3.2 + 245.76 = 248.96 ms.
        close(ksr.gather(GatherAlgorithm::Sequential, 64, 8192), 248.96);
        // Algorithm 2: 0.442·6 + 0.029·8192 = 2.652 + 237.568 = 240.22 ms.
        close(ksr.gather(GatherAlgorithm::Tree, 64, 8192), 240.22);
        // Concatenate-all: 0.091·64 + 0.064·8192 = 530.112; 0.087·6 + 0.060·64 + 0.063·8192 =
        // 520.458; 0.074 + 0.058·64 + 0.022·8192 = 184.01 ms.
        close(ksr.allgather_gather_bcast(64, 8192), 530.112);
        close(ksr.allgather_tree_gather_bcast(64, 8192), 520.458);
        close(ksr.allgather_cyclic_shifts(64, 8192), 184.01);
        // Non-power-of-two: 48 processors take ⌈log2 48⌉ = 6 tree stages.
        assert_eq!(Ksr1::tree_stages(48), 6);
    }

    #[test]
    fn reduce_is_gather_operation_broadcast() {
        let ksr = bundled();
        // P = 64, 128 subpages each: 248.96 + 0.0026·63·128 (20.9664) + 9.251 = 279.1774 ms.
        let parts = ksr.reduce_parts(GatherAlgorithm::Sequential, 64, 128);
        close(parts.gather, 248.96);
        close(parts.operation, 20.9664);
        close(parts.bcast, 9.251);
        close(ksr.reduce(GatherAlgorithm::Sequential, 64, 128), 279.1774);
    }

    #[test]
    fn barrier_by_ring() {
        let ksr = bundled();
        close(ksr.barrier(8), 0.270);
        close(ksr.barrier(32), 0.270);
        close(ksr.barrier(64), 0.689);
    }
}
