//! The extended PLogP model of seed 002 (Ali, Midkiff & Pai, PPoPP 2010, §3): point-to-point
//! latency L(m), gap g(m), the ACK latency L(1) and gap g_Ack(1) of one kind of SPE-to-SPE path
//! ([`Link`]), and the BIF contention C(m, n) ([`Contention`]).
//!
//! The seed measures these as functions of the message size with micro-benchmarks (Fig. 3, §3.3)
//! and shows them only in figures (Figs. 7, 8) that did not survive conversion. modelopt gives
//! them the simplest shape that matches what the text says about them:
//! - L(m) = L_0 + m / β: the ADDR-array benchmark (Fig. 3b) is an address `dma_put` and a data
//!   `dma_get`; its size-independent part is L_0 and the DMA streams at β bytes/ns;
//! - g(m) = g_0 + m / β_g: the gap benchmark has every non-root SPE `dma_get` m bytes from the
//!   root and averages the time per SPE (§3.3), so the root's port (or the BIF) is shared at β_g;
//! - C(m, n) = ⌈n − n_free⌉⁺ / 2 · (m − m_0)⁺ / β_C: no contention up to n_free = 2 messages
//!   ("BIF-1 equals BIF-2", §3.3) or up to m_0 = 256 bytes (§4, §7.1), then growing with both.
//!
//! Messages smaller than the smallest DMA (16 bytes, §3.3) cost as much as the smallest DMA.
//! All times are nanoseconds; bandwidths in GB/s are bytes per nanosecond.

/// The PLogP parameters of one kind of SPE-to-SPE path: one chip (L, g), intra-chip on a blade
/// (L_1, g_1) or across the BIF (L_2, g_2) (seed 002 §3.3, §7.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    /// L(1): half the round trip of the ACK-array benchmark (seed 002 Fig. 3a), ns.
    pub ack: f64,
    /// L_0, the size-independent part of L(m) (ADDR-array benchmark, Fig. 3b), ns.
    pub latency: f64,
    /// β, the per-byte rate of L(m), bytes/ns (= GB/s).
    pub bandwidth: f64,
    /// g_0, the size-independent part of g(m), ns.
    pub gap: f64,
    /// β_g, the per-byte rate of g(m), bytes/ns.
    pub gap_bandwidth: f64,
    /// g_Ack(1), ns.
    pub ack_gap: f64,
    /// Smallest DMA in bytes (16, seed 002 §3.3).
    pub min_bytes: u64,
}

impl Link {
    fn effective(&self, bytes: u64) -> f64 {
        bytes.max(self.min_bytes) as f64
    }

    /// L(1): latency of a 16-byte ACK (seed 002 §3.3, "the '1' ... indicates that the message
    /// size is a small constant ... 16 bytes").
    pub fn l1(&self) -> f64 {
        self.ack
    }

    /// L(m) = L_0 + m / β: latency of an m-byte data message with its address exchange (seed 002
    /// §3.3, Fig. 3b), non-decreasing in m.
    pub fn l(&self, bytes: u64) -> f64 {
        self.latency + self.effective(bytes) / self.bandwidth
    }

    /// g(m) = g_0 + m / β_g: gap between consecutive m-byte DMAs served by one SPE (seed 002
    /// §3.3), non-decreasing in m.
    pub fn g(&self, bytes: u64) -> f64 {
        self.gap + self.effective(bytes) / self.gap_bandwidth
    }

    /// g(1): the gap of a 16-byte message (seed 002 Table 1, one-to-all barrier).
    pub fn g1(&self) -> f64 {
        self.g(self.min_bytes)
    }

    /// g_Ack(1): gap between consecutive ACKs (seed 002 §3.3).
    pub fn g_ack(&self) -> f64 {
        self.ack_gap
    }
}

/// BIF contention C(m, n) (seed 002 §3.3, §4, §7.1): the excess latency of a pattern with n
/// m-byte messages crossing the BIF over the same pattern with two.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contention {
    /// n_free: messages the BIF carries without contention (2, §3.3).
    pub free_messages: f64,
    /// m_0: size up to which there is no contention (256 B, §4, §7.1).
    pub threshold_bytes: f64,
    /// β_C: rate at which each extra message pair is absorbed, bytes/ns.
    pub bandwidth: f64,
}

impl Contention {
    /// C(m, n) = (n − n_free)⁺ / 2 · (m − m_0)⁺ / β_C, ns. Zero for n ≤ 2 or m ≤ 256 B (the
    /// seed's "C(m > 256)" condition); non-decreasing in both m and n.
    pub fn c(&self, bytes: u64, messages: u32) -> f64 {
        let extra_messages = (f64::from(messages) - self.free_messages).max(0.0);
        let extra_bytes = (bytes as f64 - self.threshold_bytes).max(0.0);
        extra_messages / 2.0 * extra_bytes / self.bandwidth
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link() -> Link {
        Link {
            ack: 100.0,
            latency: 200.0,
            bandwidth: 20.0,
            gap: 10.0,
            gap_bandwidth: 16.0,
            ack_gap: 5.0,
            min_bytes: 16,
        }
    }

    #[test]
    fn latency_and_gap_are_affine_above_the_smallest_dma() {
        let l = link();
        // L(4000) = 200 + 4000/20 = 400 ns; g(4000) = 10 + 4000/16 = 260 ns.
        assert_eq!(l.l(4000), 400.0);
        assert_eq!(l.g(4000), 260.0);
        // Below 16 bytes a message costs a 16-byte DMA: L(1 B) = 200 + 16/20 = 200.8.
        assert_eq!(l.l(1), 200.8);
        assert_eq!(l.l(0), l.l(16));
        // g(1) of the one-to-all barrier is the gap of a 16-byte message: 10 + 1 = 11.
        assert_eq!(l.g1(), 11.0);
        assert_eq!(l.l1(), 100.0);
        assert_eq!(l.g_ack(), 5.0);
    }

    #[test]
    fn contention_vanishes_for_small_or_few_messages() {
        let c = Contention {
            free_messages: 2.0,
            threshold_bytes: 256.0,
            bandwidth: 32.0,
        };
        assert_eq!(c.c(256, 16), 0.0);
        assert_eq!(c.c(100_000, 2), 0.0);
        assert_eq!(c.c(100_000, 1), 0.0);
        // C(4352, 16) = (16-2)/2 · (4352-256)/32 = 7 · 128 = 896 ns.
        assert_eq!(c.c(4352, 16), 896.0);
        // C(4352, 4) = 1 · 128 = 128 ns.
        assert_eq!(c.c(4352, 4), 128.0);
    }
}
