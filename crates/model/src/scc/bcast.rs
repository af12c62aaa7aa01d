//! Broadcast models on the SCC (seed 004 §4.3): OC-BCAST latency (Eqs. 4.17–4.21) and
//! throughput (Eq. 4.23), the two-sided binomial tree (Eq. 4.22) and scatter-allgather
//! (Eq. 4.24).
//!
//! Times in µs, sizes in 32-byte lines, `p` the number of cores (P), `k` the OC-BCAST data-tree
//! degree. The formulas assume `p ≥ 2` and `1 ≤ k ≤ p − 1`; the [`Algorithm`] wrappers in
//! [`super::algorithms`] check requests before calling them, and these functions stay finite
//! (never panic) outside that domain.
//!
//! [`Algorithm`]: crate::algorithm::Algorithm

use super::putget::{Rcce, LOCAL_MPB};
use super::Scc;
use crate::algorithm::ceil_log;

/// The terms of an OC-BCAST latency prediction (see [`Scc::oc_latency_parts`]), µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OcLatencyParts {
    /// Depth D of the data tree (Eq. 4.18), counting the root's level.
    pub depth: u32,
    /// `T_chunk_root` of the first chunk (Eq. 4.19).
    pub root: f64,
    /// `(D − 2)·T_chunk_intermediate` of the first chunk (Eq. 4.20).
    pub intermediates: f64,
    /// `max(T_chunk_leaf, C_get^mem + L_polling_children)` of the first chunk.
    pub first_tail: f64,
    /// Chunks between the first and the last (0 for messages of at most two chunks).
    pub middle_chunks: u64,
    /// Pipeline period added by each middle chunk (Eq. 4.23's denominator; our extension).
    pub period: f64,
    /// The tail of the last chunk (the second chunk of Eq. 4.21), 0 for a one-chunk message.
    pub last_tail: f64,
}

impl OcLatencyParts {
    /// The latency: the sum of the parts.
    pub fn total(&self) -> f64 {
        self.root
            + self.intermediates
            + self.first_tail
            + self.middle_chunks as f64 * self.period
            + self.last_tail
    }
}

/// The per-chunk completion times of the OC-BCAST pipeline (Eq. 4.23), µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OcPeriod {
    /// `C_chunk_root`.
    pub root: f64,
    /// `C_chunk_intermediate`, `None` when the tree has no intermediate node (D = 2).
    pub intermediate: Option<f64>,
    /// `C_chunk_leaf`.
    pub leaf: f64,
}

impl OcPeriod {
    /// The slowest node's time per chunk: the pipeline period.
    pub fn max(&self) -> f64 {
        self.root
            .max(self.leaf)
            .max(self.intermediate.unwrap_or(0.0))
    }
}

impl Scc {
    /// The RCCE send/receive model with this machine's chunk size and average distances.
    pub fn rcce(&self) -> Rcce {
        Rcce {
            putget: self.putget,
            chunk_lines: self.rcce_chunk_lines,
            mpb_distance: self.mpb_distance,
            mem_distance: self.mem_distance,
        }
    }

    /// Eqs. 4.17/4.18: the depth D of OC-BCAST's k-ary data tree over `p` cores, the least `d`
    /// with `1 + k + … + k^(d−1) ≥ p`, in exact integer arithmetic (for k = 47, p = 48 the
    /// logarithm of Eq. 4.18 is exactly 2). k = 1 is a list: D = p.
    pub fn oc_depth(p: u32, k: u32) -> u32 {
        let target = u64::from(p.max(1));
        let k = u64::from(k.max(1));
        let (mut depth, mut covered, mut level) = (0u32, 0u64, 1u64);
        while covered < target {
            covered = covered.saturating_add(level);
            level = level.saturating_mul(k);
            depth += 1;
        }
        depth
    }

    /// `L_notify_children(k) = ⌈log2 k⌉·(C_put^mpb(1, d^mpb) + L_put^mpb(1, d^mpb) + C_r^mpb(1))`
    /// (seed 004 §4.3.1): notification down a binary tree of depth ⌈log2 k⌉; the child's read is
    /// a flag read.
    pub fn notify_children(&self, k: u32) -> f64 {
        let p = &self.putget;
        let levels = ceil_log(2, u64::from(k.max(1)));
        f64::from(levels)
            * (p.put_mpb(1, self.mpb_distance)
                + p.put_mpb_latency(1, self.mpb_distance)
                + p.flag_read(LOCAL_MPB))
    }

    /// `L_polling_children(k) = k·C_r^mpb(1)`: a parent reads its k children's done flags.
    pub fn polling_children(&self, k: u32) -> f64 {
        f64::from(k) * self.putget.flag_read(LOCAL_MPB)
    }

    /// Eq. 4.19: `T_chunk_root(m,k) = C_put^mem(m, d^mem, 1) + L_notify_children(k)`.
    pub fn chunk_root(&self, m: u64, k: u32) -> f64 {
        self.putget.put_mem(m, self.mem_distance, LOCAL_MPB) + self.notify_children(k)
    }

    /// Eq. 4.20: `T_chunk_intermediate(m,k) = C_get^mpb(m, d^mpb) + C_put^mpb(1, d^mpb) +
    /// L_notify_children(k)`.
    pub fn chunk_intermediate(&self, m: u64, k: u32) -> f64 {
        let p = &self.putget;
        p.get_mpb(m, self.mpb_distance) + p.put_mpb(1, self.mpb_distance) + self.notify_children(k)
    }

    /// `T_chunk_leaf(m) = C_get^mpb(m, d^mpb) + C_put^mpb(1, d^mpb) + L_get^mem(m, 1, d^mem)`,
    /// and `T_chunk_leaf(0) = 0` (seed 004 §4.3.1).
    pub fn chunk_leaf(&self, m: u64) -> f64 {
        if m == 0 {
            return 0.0;
        }
        let p = &self.putget;
        p.get_mpb(m, self.mpb_distance)
            + p.put_mpb(1, self.mpb_distance)
            + p.get_mem(m, LOCAL_MPB, self.mem_distance)
    }

    /// The last term of `L_bcast_chunk` and of Eq. 4.21:
    /// `max(T_chunk_leaf(m), C_get^mem(m, 1, d^mem) + L_polling_children(k))` — the last leaf, or
    /// the last intermediate node polling its children after copying the chunk (0 for m = 0).
    pub fn chunk_tail(&self, m: u64, k: u32) -> f64 {
        if m == 0 {
            return 0.0;
        }
        let poll = self.putget.get_mem(m, LOCAL_MPB, self.mem_distance) + self.polling_children(k);
        self.chunk_leaf(m).max(poll)
    }

    /// `L_bcast_chunk(P,m,k) = T_chunk_root(m,k) + (D−2)·T_chunk_intermediate(m,k) + tail(m,k)`:
    /// one chunk of `m ≤ M_oc` lines down the tree.
    pub fn bcast_chunk(&self, p: u32, m: u64, k: u32) -> f64 {
        let d = Self::oc_depth(p, k);
        self.chunk_root(m, k)
            + f64::from(d.saturating_sub(2)) * self.chunk_intermediate(m, k)
            + self.chunk_tail(m, k)
    }

    /// Eq. 4.21: the OC-BCAST latency of a message of `m ≤ 2·M_oc` lines,
    /// `L_bcast_chunk(P, min(m, M_oc), k) + tail(m', k)` with `m' = max(m − M_oc, 0)`.
    pub fn oc_latency_short(&self, p: u32, m: u64, k: u32) -> f64 {
        let first = m.min(self.oc_chunk_lines);
        let second = m.saturating_sub(self.oc_chunk_lines);
        self.bcast_chunk(p, first, k) + self.chunk_tail(second, k)
    }

    /// The OC-BCAST latency of `m` lines, as parts. For `m ≤ 2·M_oc` the total is Eq. 4.21. For
    /// more chunks (our extension, `docs/scc.md`) every chunk between the first and the last adds
    /// one pipeline period `max(period(M_oc,k), tail(M_oc,k))`; the `max` keeps the latency
    /// non-decreasing in `m`.
    pub fn oc_latency_parts(&self, p: u32, m: u64, k: u32) -> OcLatencyParts {
        let chunk = self.oc_chunk_lines;
        let chunks = m.div_ceil(chunk).max(1);
        let first = m.min(chunk);
        let last = if chunks >= 2 {
            m - (chunks - 1) * chunk
        } else {
            0
        };
        let depth = Self::oc_depth(p, k);
        let middle_chunks = chunks.saturating_sub(2);
        let period = if middle_chunks > 0 {
            self.oc_period(p, chunk, k)
                .max()
                .max(self.chunk_tail(chunk, k))
        } else {
            0.0
        };
        OcLatencyParts {
            depth,
            root: self.chunk_root(first, k),
            intermediates: f64::from(depth.saturating_sub(2)) * self.chunk_intermediate(first, k),
            first_tail: self.chunk_tail(first, k),
            middle_chunks,
            period,
            last_tail: self.chunk_tail(last, k),
        }
    }

    /// The OC-BCAST latency of `m` lines, µs ([`Scc::oc_latency_parts`]).
    pub fn oc_latency(&self, p: u32, m: u64, k: u32) -> f64 {
        self.oc_latency_parts(p, m, k).total()
    }

    /// The per-chunk completion times of a pipelined chunk of `c` lines (seed 004 §4.3.2):
    /// - `C_chunk_root(k) = L_polling_children(k) + C_put^mem(c, d^mem, 1) + 2·C_put^mpb(1, d^mpb)`
    /// - `C_chunk_intermediate(k) = L_polling_children(k) + C_r^mpb(1,1) + C_get^mpb(c, d^mpb)
    ///   + 3·C_put^mpb(1, d^mpb) + C_get^mem(c, 1, d^mem)` (only when D > 2)
    /// - `C_chunk_leaf = C_r^mpb(1,1) + C_get^mpb(c, d^mpb) + C_put^mpb(1, d^mpb) + C_get^mem(c, 1, d^mem)`
    ///
    /// `C_r^mpb(1,1)` is a flag read.
    pub fn oc_period(&self, p: u32, c: u64, k: u32) -> OcPeriod {
        let pg = &self.putget;
        let dm = self.mpb_distance;
        let flag = pg.flag_read(LOCAL_MPB);
        let poll = self.polling_children(k);
        let copy_down = pg.get_mpb(c, dm) + pg.get_mem(c, LOCAL_MPB, self.mem_distance);
        let root = poll + pg.put_mem(c, self.mem_distance, LOCAL_MPB) + 2.0 * pg.put_mpb(1, dm);
        let intermediate =
            (Self::oc_depth(p, k) > 2).then(|| poll + flag + copy_down + 3.0 * pg.put_mpb(1, dm));
        let leaf = flag + copy_down + pg.put_mpb(1, dm);
        OcPeriod {
            root,
            intermediate,
            leaf,
        }
    }

    /// Eq. 4.23: `B(k) = M_oc / max(C_chunk_root, C_chunk_intermediate, C_chunk_leaf)`, in bytes
    /// per µs (= MB/s with MB = 10^6 B, the seed's unit in Table 4.2).
    pub fn oc_throughput(&self, p: u32, k: u32) -> f64 {
        let chunk = self.oc_chunk_lines;
        (chunk * u64::from(self.line_bytes)) as f64 / self.oc_period(p, chunk, k).max()
    }

    /// Time per message in a stream of back-to-back broadcasts of `m` lines: the sum of the
    /// pipeline periods of its chunks (full chunks of `M_oc` and one remainder). For `m` a
    /// multiple of `M_oc` this gives exactly Eq. 4.23's throughput.
    pub fn oc_stream_time(&self, p: u32, m: u64, k: u32) -> f64 {
        let chunk = self.oc_chunk_lines;
        let full = m / chunk;
        let rest = m % chunk;
        let mut time = full as f64 * self.oc_period(p, chunk, k).max();
        if rest > 0 {
            time += self.oc_period(p, rest, k).max();
        }
        time
    }

    /// Eq. 4.22: `L_binomial(P, m) = C_sr(m) + (⌈log2 P⌉ − 1)·C_sr_cache(m)`: only the root's
    /// first send reads its message from memory; every later sender forwards from its cache.
    pub fn binomial_latency(&self, p: u32, m: u64) -> f64 {
        let rcce = self.rcce();
        let levels = ceil_log(2, u64::from(p.max(1)));
        rcce.send_recv(m) + f64::from(levels.saturating_sub(1)) * rcce.send_recv_cached(m)
    }

    /// The scatter phase of scatter-allgather:
    /// `C_scat(P, m_s) = C_sr(⌊P/2⌋·m_s) + C_scat(⌈P/2⌉, m_s)`, `C_scat(2, m_s) = C_sr(m_s)`,
    /// `C_scat(1, m_s) = 0`.
    pub fn scatter(&self, p: u32, slice: u64) -> f64 {
        let rcce = self.rcce();
        let mut cores = p;
        let mut time = 0.0;
        while cores >= 2 {
            time += rcce.send_recv(u64::from(cores / 2) * slice);
            cores = cores.div_ceil(2);
            if cores == 1 {
                break;
            }
        }
        time
    }

    /// The allgather phase (Bruck, on a ring):
    /// `C_allgath(P, m_s) = C_sr(m_s) + (2P − 3)·C_sr_cache(m_s)`.
    pub fn allgather(&self, p: u32, slice: u64) -> f64 {
        if p < 2 {
            return 0.0;
        }
        let rcce = self.rcce();
        rcce.send_recv(slice) + f64::from(2 * p - 3) * rcce.send_recv_cached(slice)
    }

    /// The slice size of scatter-allgather, `m_s = ⌈m/P⌉` lines (the seed assumes P | m).
    pub fn slice_lines(p: u32, m: u64) -> u64 {
        m.div_ceil(u64::from(p.max(1)))
    }

    /// Eq. 4.24: `C_scat-allgath(P, m) = C_scat(P, m/P) + C_allgath(P, m/P)`.
    pub fn scatter_allgather(&self, p: u32, m: u64) -> f64 {
        let slice = Self::slice_lines(p, m);
        self.scatter(p, slice) + self.allgather(p, slice)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::bundled;
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} != {b} (±{tol})");
    }

    #[test]
    fn depth_is_exact() {
        // 1 + 7 + 49 ≥ 48: three levels ("k = 7 is the minimum degree where the tree depth is
        // two", counting edges). k = 47: 1 + 47 = 48 exactly, two levels.
        assert_eq!(Scc::oc_depth(48, 7), 3);
        assert_eq!(Scc::oc_depth(48, 6), 4);
        assert_eq!(Scc::oc_depth(48, 47), 2);
        assert_eq!(Scc::oc_depth(48, 2), 6);
        assert_eq!(Scc::oc_depth(48, 1), 48);
        assert_eq!(Scc::oc_depth(2, 1), 2);
    }

    #[test]
    fn notification_and_polling() {
        let scc = bundled();
        // Per level: C_put^mpb(1,1) 0.341 + L_put^mpb(1,1) 0.336 + flag 0.466 = 1.143 µs.
        close(scc.notify_children(7), 3.0 * 1.143, 1e-9);
        close(scc.notify_children(1), 0.0, 0.0);
        close(scc.notify_children(2), 1.143, 1e-9);
        close(scc.polling_children(7), 7.0 * 0.466, 1e-9);
    }

    #[test]
    fn oc_bcast_one_line_k7_by_hand() {
        let scc = bundled();
        // P = 48, k = 7, m = 1, D = 3:
        // T_root = C_put^mem(1,1,1) 0.544 + L_notify(7) 3.429            = 3.973
        // T_int  = C_get^mpb(1,1) 0.602 + C_put^mpb(1,1) 0.341 + 3.429    = 4.372
        // tail   = max(T_leaf = 0.602 + 0.341 + 0.702 = 1.645,
        //              C_get^mem(1,1,1) 0.702 + 7·0.466 = 3.964)          = 3.964
        // L = 3.973 + 1·4.372 + 3.964 = 12.309 µs (measured: 16.6 µs, §3.3.3).
        close(scc.oc_latency(48, 1, 7), 12.309, 1e-9);
        close(scc.oc_latency_short(48, 1, 7), 12.309, 1e-9);
    }

    #[test]
    fn oc_bcast_two_chunks_k47_by_hand() {
        let scc = bundled();
        // P = 48, k = 47, m = 128 lines: chunks of 96 and 32, D = 2 (no intermediate level).
        // T_root(96) = 0.19 + 96·0.354 + 6 levels·1.143                   = 41.032
        // tail(96)  = max(T_leaf = 26.442 + 0.341 + 58.367 = 85.150,
        //                58.367 + 47·0.466 = 80.269)                     = 85.150
        // tail(32)  = max(T_leaf = 9.034 + 0.341 + 19.519 = 28.894,
        //                19.519 + 21.902 = 41.421)                       = 41.421
        // L = 41.032 + 85.150 + 41.421 = 167.603 µs (Table 3.1 measured 198.6 µs).
        close(scc.oc_latency(48, 128, 47), 167.603, 1e-9);
        close(scc.oc_latency_short(48, 128, 47), 167.603, 1e-9);
    }

    #[test]
    fn long_messages_extend_eq_4_21_with_pipeline_periods() {
        let scc = bundled();
        // Up to two chunks the extension is Eq. 4.21.
        for m in [1, 50, 96, 97, 150, 192] {
            for k in [1, 2, 7, 47] {
                close(
                    scc.oc_latency(48, m, k),
                    scc.oc_latency_short(48, m, k),
                    1e-9,
                );
            }
        }
        // Three full chunks: one pipeline period more than two.
        let k = 7;
        let period = scc.oc_period(48, 96, k).max();
        let three = scc.oc_latency(48, 3 * 96, k);
        let two = scc.oc_latency(48, 2 * 96, k);
        close(three - two, period, 1e-9);
    }

    #[test]
    fn table_4_2_oc_bcast_throughput() {
        let scc = bundled();
        // Seed 004 Table 4.2: 35.22, 34.30, 35.88 MB/s for k = 2, 7, 47.
        close(scc.oc_throughput(48, 2), 35.22, 0.005);
        close(scc.oc_throughput(48, 7), 34.30, 0.005);
        close(scc.oc_throughput(48, 47), 35.88, 0.005);
        // k = 7: C_chunk_int = 7·0.466 + 0.466 + 26.442 + 3·0.341 + 58.367 = 89.560 µs.
        close(scc.oc_period(48, 96, 7).max(), 89.56, 1e-9);
        // k = 47 has no intermediate node: the leaf, 85.616 µs, sets the pace.
        assert_eq!(scc.oc_period(48, 96, 47).intermediate, None);
        close(scc.oc_period(48, 96, 47).max(), 85.616, 1e-9);
        // A stream of whole-chunk messages sustains exactly Eq. 4.23.
        close(
            (48 * 96 * 32) as f64 / scc.oc_stream_time(48, 48 * 96, 7),
            scc.oc_throughput(48, 7),
            1e-9,
        );
    }

    #[test]
    fn ninety_seven_lines_drop_throughput() {
        // Seed 004 §3.3.3: "a message of 97 cache lines is divided into a 96 cache lines chunk
        // and 1 cache line chunk. The second chunk is then limiting the throughput."
        let scc = bundled();
        let rate = |m: u64| (m * 32) as f64 / scc.oc_stream_time(48, m, 7);
        assert!(rate(97) < rate(96));
        assert!(rate(192) > rate(97));
    }

    #[test]
    fn binomial_one_line_by_hand() {
        let scc = bundled();
        // ⌈log2 48⌉ = 6: C_sr(1) 2.712 + 5·C_sr_cache(1) 2.494 = 15.182 µs (measured 21.6 µs).
        close(scc.binomial_latency(48, 1), 15.182, 1e-9);
        // And OC-BCAST beats it (seed §3.3.3: 16.6 vs 21.6 µs measured).
        assert!(scc.oc_latency(48, 1, 7) < scc.binomial_latency(48, 1));
    }

    #[test]
    fn table_4_2_scatter_allgather_throughput() {
        let scc = bundled();
        // m = P·M_oc = 4608 lines, slices of 96. Scatter sends 2304, 1152, 576, 288, 96, 96
        // lines (22 RCCE chunks): 22·1.751 + 4512·0.961 = 4374.554 µs. Allgather:
        // C_sr(96) 94.007 + 93·C_sr_cache(96) 73.079 = 6890.354 µs. Total 11264.908 µs:
        // 147456 B / 11264.908 µs = 13.09 MB/s (Table 4.2: 13.38; Eq. 4.16: 13.30).
        close(scc.scatter(48, 96), 4374.554, 1e-6);
        close(scc.allgather(48, 96), 6890.354, 1e-6);
        let t = scc.scatter_allgather(48, 48 * 96);
        close(t, 11264.908, 1e-6);
        close(147456.0 / t, 13.09, 0.005);
    }

    #[test]
    fn scatter_of_small_groups() {
        let scc = bundled();
        let rcce = scc.rcce();
        close(scc.scatter(1, 10), 0.0, 0.0);
        close(scc.scatter(2, 10), rcce.send_recv(10), 1e-12);
        // P = 3: C_sr(10) + C_scat(2) = 2·C_sr(10).
        close(scc.scatter(3, 10), 2.0 * rcce.send_recv(10), 1e-12);
    }
}
