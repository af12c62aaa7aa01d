//! The dissemination barrier of degree m (seed 000 §4.2, Figure 4.3, Eqs. 4.11/4.12).
//!
//! Every thread owns one line holding its flag and its notification counter (`synchro_t` of
//! Figure 4.3). In round r (0-based) of r_total rounds, thread T
//!
//! ```text
//! flag[T] = round                                  (set own flag: R_L)
//! for i in 1..=m:
//!     peer = (T − i·(m+1)^r) mod n
//!     wait until flag[peer] ≥ round                (read a peer's flag: R_R)
//!     notification[peer] += 1                      (notify it: R_R)
//! wait until notification[T] ≥ round · m          (m notifications: R_R)
//! ```
//!
//! where `round` counts rounds over all calls (epoch e, round r: (e−1)·r_total + r + 1), so flags and
//! counters only grow and the object serves any number of calls with epochs 1, 2, 3, ...
//! (Figure 4.3 resets the counter to 0 every round instead; a counter that only grows does the same
//! without the extra write.)
//!
//! After round r a thread has heard, directly or through its peers, from the (m+1)^(r+1) threads
//! T, T−1·(m+1)^0, ...; the barrier is complete when (m+1)^r_total ≥ n. Seed 000 takes
//! r_total = ⌈log_m n⌉ (Eq. 4.11, and m = 1, r = 1 for n = 2), which is at least that.

use crate::coherence::{self, InitialState, LineState};
use crate::wait::{Stage, WaitError, Waiter};
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicU64, Ordering};

/// Flag and notification counter in one 64-byte, 64-byte-aligned line (kept in a 128-byte
/// `CachePadded` slot, so the adjacent-line prefetcher never pulls a neighbour's line along).
#[repr(C, align(64))]
#[derive(Debug, Default)]
struct SynchroLine {
    flag: AtomicU64,
    notification: AtomicU64,
}

/// Why a dissemination barrier cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BarrierError {
    /// Fewer than 2 threads.
    #[error("a barrier needs at least 2 threads (got {0})")]
    Threads(u32),
    /// m outside 1..=n−1.
    #[error("degree m = {degree} must be between 1 and n−1 = {max}")]
    Degree {
        /// m.
        degree: u32,
        /// n − 1.
        max: u32,
    },
    /// Too few rounds: (m+1)^r < n.
    #[error("{rounds} rounds of degree {degree} reach (m+1)^r < {threads} threads: not a barrier")]
    Rounds {
        /// m.
        degree: u32,
        /// r.
        rounds: u32,
        /// n.
        threads: u32,
    },
}

/// The shared state of a dissemination barrier.
#[derive(Debug)]
pub struct DisseminationBarrier {
    lines: Vec<CachePadded<SynchroLine>>,
    degree: u32,
    rounds: u32,
    /// (m+1)^r mod n for each round r.
    strides: Vec<u64>,
}

impl DisseminationBarrier {
    /// A barrier of `threads` threads, `degree` peers per round and `rounds` rounds; fails unless
    /// 1 ≤ m ≤ n−1 and (m+1)^r ≥ n.
    pub fn new(threads: u32, degree: u32, rounds: u32) -> Result<Self, BarrierError> {
        if threads < 2 {
            return Err(BarrierError::Threads(threads));
        }
        if degree == 0 || degree >= threads {
            return Err(BarrierError::Degree {
                degree,
                max: threads - 1,
            });
        }
        let reach = u64::from(degree + 1)
            .checked_pow(rounds)
            .unwrap_or(u64::MAX);
        if reach < u64::from(threads) {
            return Err(BarrierError::Rounds {
                degree,
                rounds,
                threads,
            });
        }
        let n = u64::from(threads);
        let mut strides = Vec::with_capacity(rounds as usize);
        let mut s = 1 % n;
        for _ in 0..rounds {
            strides.push(s);
            s = s * u64::from(degree + 1) % n;
        }
        Ok(DisseminationBarrier {
            lines: (0..threads)
                .map(|_| CachePadded::new(SynchroLine::default()))
                .collect(),
            degree,
            rounds,
            strides,
        })
    }

    /// The rounds seed 000 uses for degree m (Eq. 4.11): ⌈log_m n⌉ for m ≥ 2, 1 for m = 1 and
    /// n = 2; for m = 1 and n > 2, where the paper's formula has no value, ⌈log_2 n⌉ (what a
    /// degree-1 dissemination barrier needs).
    pub fn paper_rounds(threads: u32, degree: u32) -> u32 {
        let base = if degree >= 2 { degree } else { 2 };
        modelopt_model::algorithm::ceil_log(base.into(), threads.into()).max(1)
    }

    /// Threads taking part.
    pub fn threads(&self) -> u32 {
        self.lines.len() as u32
    }

    /// Degree m.
    pub fn degree(&self) -> u32 {
        self.degree
    }

    /// Rounds r.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// The starting state of the lines the model prices (seed 000 §4.2 and §4.4), and what
    /// [`DisseminationBarrier::prepare`] reaches on this build.
    pub fn initial_states() -> Vec<InitialState> {
        vec![InitialState::forced(
            "flag + notification line (synchro_t) of every thread",
            "its owner",
            LineState::Exclusive,
            "seed 000 §4.2 (T_barr,min: the owner has its line in cache, R_L) and §4.4 (exclusive state in the owner's cache)",
        )]
    }

    /// Put thread `me`'s line in its initial state ([`DisseminationBarrier::initial_states`]):
    /// evicted from every cache and loaded by `me` (Exclusive in `me`'s cache) where
    /// [`coherence::can_flush`], otherwise rewritten unchanged (Modified in `me`'s cache).
    pub fn prepare(&self, me: u32) {
        let line = &self.lines[me as usize];
        if coherence::can_flush() {
            coherence::evict(&**line);
            coherence::fence();
            std::hint::black_box(line.flag.load(Ordering::Relaxed));
        } else {
            line.flag
                .store(line.flag.load(Ordering::Relaxed), Ordering::Relaxed);
            line.notification
                .store(line.notification.load(Ordering::Relaxed), Ordering::Relaxed);
        }
    }

    /// Thread `me`'s part of the `epoch`-th barrier (epochs 1, 2, 3, ... on one object): returns
    /// once every thread has entered this epoch's barrier.
    pub fn wait(&self, me: u32, epoch: u64, waiter: &Waiter<'_>) -> Result<(), WaitError> {
        let n = u64::from(self.threads());
        let m = u64::from(self.degree);
        let own = &self.lines[me as usize];
        let first = epoch
            .saturating_sub(1)
            .saturating_mul(u64::from(self.rounds));
        for (r, &stride) in self.strides.iter().enumerate() {
            let round = first + r as u64 + 1;
            own.flag.store(round, Ordering::Release);
            for i in 1..=m {
                let back = i * stride % n;
                let peer = ((u64::from(me) + n - back) % n) as u32;
                let line = &self.lines[peer as usize];
                waiter.wait(
                    Stage::BarrierPeerFlag {
                        round: r as u32,
                        peer,
                    },
                    || line.flag.load(Ordering::Acquire) >= round,
                )?;
                line.notification.fetch_add(1, Ordering::AcqRel);
            }
            let target = round.saturating_mul(m);
            waiter.wait(Stage::BarrierNotifications { round: r as u32 }, || {
                own.notification.load(Ordering::Acquire) >= target
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_follow_eq_4_11() {
        // Table B.2 rows: n = 2 → m = 1, r = 1; n = 28 → m = 6, r = ⌈log_6 28⌉ = 2 (36 ≥ 28);
        // n = 60 → m = 4, r = ⌈log_4 60⌉ = 3 (64 ≥ 60).
        assert_eq!(DisseminationBarrier::paper_rounds(2, 1), 1);
        assert_eq!(DisseminationBarrier::paper_rounds(28, 6), 2);
        assert_eq!(DisseminationBarrier::paper_rounds(60, 4), 3);
        // m = 1 on 5 threads: ⌈log_2 5⌉ = 3.
        assert_eq!(DisseminationBarrier::paper_rounds(5, 1), 3);
    }

    #[test]
    fn invalid_barriers_are_refused() {
        assert!(DisseminationBarrier::new(1, 1, 1).is_err());
        assert!(DisseminationBarrier::new(4, 4, 1).is_err());
        assert!(DisseminationBarrier::new(4, 0, 1).is_err());
        // m = 1, r = 1 reaches 2 < 4 threads.
        assert_eq!(
            DisseminationBarrier::new(4, 1, 1).unwrap_err(),
            BarrierError::Rounds {
                degree: 1,
                rounds: 1,
                threads: 4
            }
        );
        assert!(DisseminationBarrier::new(4, 1, 2).is_ok());
    }

    #[test]
    fn strides_are_powers_of_m_plus_one_mod_n() {
        // n = 10, m = 2, r = ⌈log_2 10⌉ = 4: 3^0, 3^1, 3^2, 3^3 mod 10 = 1, 3, 9, 7.
        let b = DisseminationBarrier::new(10, 2, 4).unwrap();
        assert_eq!(b.strides, vec![1, 3, 9, 7]);
    }
}
