//! The one-sided put/get model of the SCC (seed 004, Figure 4.1, parameters of Table 4.1) and
//! the two-sided RCCE send/receive built on it (seed 004 §4.2).
//!
//! All times are in microseconds, as in the seed; `m` is a number of 32-byte cache lines and `d`
//! a number of routers traversed (see [`super::mesh`]). `L` is a latency (the data is available at
//! the destination), `C` a completion time (the operation returns).
//!
//! Readings of the garbled Figure 4.1 (recorded in `docs/scc.md`): Eq. 4.6 uses `o_r^mem`; Eq. 4.7
//! is `C_put^mpb` with `o_put^mpb`; Eq. 4.8 uses `o_put^mem`; Eqs. 4.9/4.10 end with the latency
//! `L_w^mpb(d)` of the last line instead of its completion `C_w^mpb(d)`; Eq. 4.11 is `C_get^mpb`
//! with `o_get^mpb`. A flag read costs [`PutGet::flag_read`], `o_get^mpb + C_r^mpb(d)` — the
//! reading that reproduces Table 4.2 exactly.

/// Routers between a core and its own MPB: the local MPB is reached through the local router
/// (an SCC bug makes direct access unsafe), so `d = 1` (seed 004 §4.1.1, §4.4).
pub const LOCAL_MPB: f64 = 1.0;

/// The parameters of seed 004 Table 4.1, in µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PutGet {
    /// `L^hop`: time for one packet to traverse one router.
    pub hop: f64,
    /// `o^mpb`: core overhead of reading or writing one line of an MPB.
    pub mpb: f64,
    /// `o_w^mem`: overhead of writing one line to off-chip memory.
    pub mem_write: f64,
    /// `o_r^mem`: overhead of reading one line from off-chip memory.
    pub mem_read: f64,
    /// `o_put^mpb`: fixed overhead of a put whose source is the local MPB.
    pub put_mpb: f64,
    /// `o_get^mpb`: fixed overhead of a get into the local MPB.
    pub get_mpb: f64,
    /// `o_put^mem`: fixed overhead of a put from private off-chip memory.
    pub put_mem: f64,
    /// `o_get^mem`: fixed overhead of a get into private off-chip memory.
    pub get_mem: f64,
}

fn lines(m: u64) -> f64 {
    m as f64
}

impl PutGet {
    /// Eq. 4.1: `L_w^mpb(d) = o^mpb + d·L^hop`, latency of writing one line to an MPB.
    pub fn mpb_write_latency(&self, d: f64) -> f64 {
        self.mpb + d * self.hop
    }

    /// Eq. 4.2: `C_w^mpb(d) = o^mpb + 2d·L^hop` (the write completes with the acknowledgment).
    pub fn mpb_write(&self, d: f64) -> f64 {
        self.mpb + 2.0 * d * self.hop
    }

    /// Eq. 4.3: `L_r^mpb(d) = C_r^mpb(d) = o^mpb + 2d·L^hop`.
    pub fn mpb_read(&self, d: f64) -> f64 {
        self.mpb + 2.0 * d * self.hop
    }

    /// Eq. 4.4: `L_w^mem(d) = o_w^mem + d·L^hop`, `d` the distance to the memory controller.
    pub fn mem_write_latency(&self, d: f64) -> f64 {
        self.mem_write + d * self.hop
    }

    /// Eq. 4.5: `C_w^mem(d) = o_w^mem + 2d·L^hop`.
    pub fn mem_write(&self, d: f64) -> f64 {
        self.mem_write + 2.0 * d * self.hop
    }

    /// Eq. 4.6: `L_r^mem(d) = C_r^mem(d) = o_r^mem + 2d·L^hop` (printed with `o_w^mem`; read as
    /// `o_r^mem`, the only use of that Table 4.1 parameter).
    pub fn mem_read(&self, d: f64) -> f64 {
        self.mem_read + 2.0 * d * self.hop
    }

    /// Eq. 4.7: `C_put^mpb(m, d_dst) = o_put^mpb + m·C_r^mpb(1) + m·C_w^mpb(d_dst)`, a put of `m`
    /// lines from the local MPB to an MPB `d_dst` routers away.
    pub fn put_mpb(&self, m: u64, d_dst: f64) -> f64 {
        self.put_mpb + lines(m) * (self.mpb_read(LOCAL_MPB) + self.mpb_write(d_dst))
    }

    /// Eq. 4.8: `C_put^mem(m, d_src, d_dst) = o_put^mem + m·C_r^mem(d_src) + m·C_w^mpb(d_dst)`,
    /// a put from private memory (`d_src` routers to the controller) to an MPB.
    pub fn put_mem(&self, m: u64, d_src: f64, d_dst: f64) -> f64 {
        self.put_mem + lines(m) * (self.mem_read(d_src) + self.mpb_write(d_dst))
    }

    /// Eq. 4.9: `L_put^mpb(m, d_dst) = o_put^mpb + m·C_r^mpb(1) + (m−1)·C_w^mpb(d_dst) +
    /// L_w^mpb(d_dst)`: the last line's acknowledgment is not waited for.
    pub fn put_mpb_latency(&self, m: u64, d_dst: f64) -> f64 {
        if m == 0 {
            return self.put_mpb;
        }
        self.put_mpb
            + lines(m) * self.mpb_read(LOCAL_MPB)
            + lines(m - 1) * self.mpb_write(d_dst)
            + self.mpb_write_latency(d_dst)
    }

    /// Eq. 4.10: `L_put^mem(m, d_src, d_dst) = o_put^mem + m·C_r^mem(d_src) +
    /// (m−1)·C_w^mpb(d_dst) + L_w^mpb(d_dst)`.
    pub fn put_mem_latency(&self, m: u64, d_src: f64, d_dst: f64) -> f64 {
        if m == 0 {
            return self.put_mem;
        }
        self.put_mem
            + lines(m) * self.mem_read(d_src)
            + lines(m - 1) * self.mpb_write(d_dst)
            + self.mpb_write_latency(d_dst)
    }

    /// Eq. 4.11: `L_get^mpb(m, d_src) = C_get^mpb(m, d_src) = o_get^mpb + m·C_r^mpb(d_src) +
    /// m·C_w^mpb(1)`, a get from an MPB `d_src` routers away into the local MPB.
    pub fn get_mpb(&self, m: u64, d_src: f64) -> f64 {
        self.get_mpb + lines(m) * (self.mpb_read(d_src) + self.mpb_write(LOCAL_MPB))
    }

    /// Eq. 4.12: `L_get^mem(m, d_src, d_dst) = C_get^mem(m, d_src, d_dst) = o_get^mem +
    /// m·C_r^mpb(d_src) + m·C_w^mem(d_dst)`, a get from an MPB into private memory (`d_dst`
    /// routers to the controller).
    pub fn get_mem(&self, m: u64, d_src: f64, d_dst: f64) -> f64 {
        self.get_mem + lines(m) * (self.mpb_read(d_src) + self.mem_write(d_dst))
    }

    /// One flag read (polling a notification or completion flag) in an MPB `d` routers away:
    /// `o_get^mpb + C_r^mpb(d)`, a one-line get into registers.
    ///
    /// The seed writes `C_r^mpb(1)` (and `C_r^mpb(1,1)` in the throughput formulas); only this
    /// cost reproduces its Table 4.2 (35.22 / 34.30 / 35.88 MB/s for k = 2 / 7 / 47). See
    /// `docs/scc.md`, "Flag reads".
    pub fn flag_read(&self, d: f64) -> f64 {
        self.get_mpb + self.mpb_read(d)
    }
}

/// The two-sided RCCE send/receive model (seed 004 §4.2): payload chunks of `M_rcce` lines,
/// sender and receiver `d_mpb` routers from the MPB and `d_mem` from their memory controllers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rcce {
    /// The put/get parameters.
    pub putget: PutGet,
    /// `M_rcce`: RCCE payload buffer, in lines (251 on the SCC, §3.3.1).
    pub chunk_lines: u64,
    /// `d^mpb`: routers to the MPB holding the payload (an average, so possibly fractional).
    pub mpb_distance: f64,
    /// `d^mem`: routers to the memory controller (an average).
    pub mem_distance: f64,
}

impl Rcce {
    /// Synchronization of one chunk: `2·(L_w^mpb(d^mpb) + C_r^mpb(1) + C_w^mpb(1))` — set the
    /// peer's flag, read one's own, reset it; twice (after the put and after the get). The flag
    /// read is [`PutGet::flag_read`].
    pub fn sync(&self) -> f64 {
        let p = &self.putget;
        2.0 * (p.mpb_write_latency(self.mpb_distance)
            + p.flag_read(LOCAL_MPB)
            + p.mpb_write(LOCAL_MPB))
    }

    /// `C_sr_chunk(s) = C_put^mem(s, d^mem, d^mpb) + C_get^mem(s, d^mpb, d^mem) + sync`, one
    /// chunk of `s ≤ M_rcce` lines from the sender's memory to the receiver's (0 for s = 0).
    pub fn send_recv_chunk(&self, s: u64) -> f64 {
        if s == 0 {
            return 0.0;
        }
        let p = &self.putget;
        p.put_mem(s, self.mem_distance, self.mpb_distance)
            + p.get_mem(s, self.mpb_distance, self.mem_distance)
            + self.sync()
    }

    /// `C_sr(s) = ⌊s/M_rcce⌋·C_sr_chunk(M_rcce) + C_sr_chunk(s mod M_rcce)`: a send/receive pair
    /// of `s` lines, called simultaneously.
    pub fn send_recv(&self, s: u64) -> f64 {
        let full = s / self.chunk_lines;
        full as f64 * self.send_recv_chunk(self.chunk_lines)
            + self.send_recv_chunk(s % self.chunk_lines)
    }

    /// `C_sr_chunk_cache(m) = o_put^mem + m·C_w^mpb(1) + C_get^mem(m, d^mpb, d^mem) + sync`: the
    /// sender forwards data it just received, read from its on-chip cache at no cost (0 for m = 0).
    pub fn send_recv_chunk_cached(&self, m: u64) -> f64 {
        if m == 0 {
            return 0.0;
        }
        let p = &self.putget;
        p.put_mem
            + lines(m) * p.mpb_write(LOCAL_MPB)
            + p.get_mem(m, self.mpb_distance, self.mem_distance)
            + self.sync()
    }

    /// `C_sr_cache(m) = ⌊m/M_rcce⌋·C_sr_chunk_cache(M_rcce) + C_sr_chunk_cache(m mod M_rcce)`
    /// (printed with `S_max_rcce` and `s mod M_rcce`; both read as `M_rcce` and `m`).
    pub fn send_recv_cached(&self, m: u64) -> f64 {
        let full = m / self.chunk_lines;
        full as f64 * self.send_recv_chunk_cached(self.chunk_lines)
            + self.send_recv_chunk_cached(m % self.chunk_lines)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Table 4.1.
    pub(crate) fn table_4_1() -> PutGet {
        PutGet {
            hop: 0.005,
            mpb: 0.126,
            mem_write: 0.461,
            mem_read: 0.208,
            put_mpb: 0.069,
            get_mpb: 0.33,
            put_mem: 0.19,
            get_mem: 0.095,
        }
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn reads_and_writes() {
        let p = table_4_1();
        // 0.126 + 3·0.005; 0.126 + 6·0.005.
        close(p.mpb_write_latency(3.0), 0.141);
        close(p.mpb_write(3.0), 0.156);
        close(p.mpb_read(3.0), 0.156);
        // 0.461 + 2·0.005; 0.461 + 4·0.005; 0.208 + 4·0.005.
        close(p.mem_write_latency(2.0), 0.471);
        close(p.mem_write(2.0), 0.481);
        close(p.mem_read(2.0), 0.228);
    }

    #[test]
    fn puts_and_gets_of_ten_lines() {
        let p = table_4_1();
        // Eq. 4.7, m = 10, d = 3: 0.069 + 10·0.136 + 10·0.156 = 2.989 µs.
        close(p.put_mpb(10, 3.0), 2.989);
        // Eq. 4.9: the last line costs L_w^mpb(3) = 0.141 instead of 0.156: 2.974 µs.
        close(p.put_mpb_latency(10, 3.0), 2.974);
        // Eq. 4.8, d_src = 2, d_dst = 3: 0.19 + 10·0.228 + 10·0.156 = 4.03 µs.
        close(p.put_mem(10, 2.0, 3.0), 4.03);
        close(p.put_mem_latency(10, 2.0, 3.0), 4.015);
        // Eq. 4.11, d = 3: 0.33 + 10·0.156 + 10·0.136 = 3.25 µs.
        close(p.get_mpb(10, 3.0), 3.25);
        // Eq. 4.12, d_src = 3, d_dst = 2: 0.095 + 10·0.156 + 10·0.481 = 6.465 µs.
        close(p.get_mem(10, 3.0, 2.0), 6.465);
    }

    #[test]
    fn one_hop_and_nine_hop_gets_differ_by_thirty_percent() {
        // Seed 004 §4.1.2: "the performance difference between the 1-hop distance … and the
        // 9-hop distance … is only 30%". Per line: (0.216 + 0.136) / (0.136 + 0.136) = 1.294.
        let p = table_4_1();
        let ratio = p.get_mpb(1000, 9.0) / p.get_mpb(1000, 1.0);
        assert!((ratio - 1.294).abs() < 0.002, "{ratio}");
    }

    #[test]
    fn mpb_to_memory_bandwidth_is_about_55_mb_per_s() {
        // Seed 004 §3.3.4: "the maximum bandwidth when copying data from a core's MPB to the
        // off-chip memory is about 55 MB/s". 32 B / (0.136 + 0.471) µs = 52.7 MB/s.
        let p = table_4_1();
        let per_line = p.get_mem(1000, 1.0, 1.0) / 1000.0;
        let mb_per_s = 32.0 / per_line;
        assert!((mb_per_s - 52.7).abs() < 0.1, "{mb_per_s}");
    }

    #[test]
    fn rcce_send_receive() {
        let r = Rcce {
            putget: table_4_1(),
            chunk_lines: 251,
            mpb_distance: 1.0,
            mem_distance: 1.0,
        };
        // sync = 2·(0.131 + 0.466 + 0.136) = 1.466 µs.
        close(r.sync(), 1.466);
        // One line: C_put^mem(1,1,1) = 0.544, C_get^mem(1,1,1) = 0.702: 2.712 µs.
        close(r.send_recv(1), 2.712);
        // Cached: 0.19 + 0.136 + 0.702 + 1.466 = 2.494 µs.
        close(r.send_recv_cached(1), 2.494);
        // 251 lines is one full chunk, no empty remainder chunk.
        close(r.send_recv(251), r.send_recv_chunk(251));
        close(
            r.send_recv(252),
            r.send_recv_chunk(251) + r.send_recv_chunk(1),
        );
        close(r.send_recv(0), 0.0);
    }
}
