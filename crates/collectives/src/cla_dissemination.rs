//! The dissemination barrier that counts notifications, one line per thread and round: the
//! program `modelopt barrier` prices on ccNUMA machines as `cla-dissemination`
//! (`modelopt_graph::dissemination`, docs/cla.md §12), executed on the same schedule
//! ([`modelopt_model::dissemination::Schedule`]).
//!
//! In round k of r, thread T adds 1 to the round-k counter of each peer (T + i·(m+1)^k) mod n,
//! i = 1..=m_k, then waits until its own round-k counter holds epoch · m_k (the counters only
//! grow: the object serves any number of calls with epochs 1, 2, 3, ...).
//!
//! Why an early notification of the next epoch cannot let a thread through too soon: thread U
//! can notify p in round k of epoch e + 1 only after leaving epoch e, which it does only once
//! every thread has entered epoch e. If that notification stands in for a late one of epoch e
//! (from a thread V still in round k of epoch e), p leaves round k of epoch e when everyone has
//! entered epoch e, which is all a barrier owes. And by counting, when p's counter reaches
//! (e + 1) · m_k, at most e · m_k of its adds are from epochs up to e, so all m_k of epoch e + 1
//! are in: each epoch's round k sees its own notifications or proof that they are not needed.
//! The test `nobody_leaves_before_everybody_has_arrived` checks the barrier property over
//! hundreds of staggered epochs.

use crate::barrier::BarrierError;
use crate::coherence::{self, InitialState, LineState};
use crate::wait::{Stage, WaitError, Waiter};
use crossbeam_utils::CachePadded;
use modelopt_model::dissemination::{Schedule, ScheduleError};
use std::sync::atomic::{AtomicU64, Ordering};

/// The shared state: one counter line per (thread, round).
#[derive(Debug)]
pub struct ClaDisseminationBarrier {
    schedule: Schedule,
    /// `counters[t · r + k]`: thread t's round-k notifications, over all epochs.
    counters: Vec<CachePadded<AtomicU64>>,
}

impl ClaDisseminationBarrier {
    /// The barrier of degree `degree` on `threads` threads (2 ≤ n, 1 ≤ m ≤ n − 1; the rounds
    /// follow, ⌈log_{m+1} n⌉).
    pub fn new(threads: u32, degree: u32) -> Result<Self, BarrierError> {
        let schedule = Schedule::new(threads, degree).map_err(|e| match e {
            ScheduleError::Degree { degree, max } => BarrierError::Degree { degree, max },
            _ => BarrierError::Threads(threads),
        })?;
        let lines = threads as usize * schedule.rounds.len();
        Ok(ClaDisseminationBarrier {
            counters: (0..lines)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            schedule,
        })
    }

    /// Threads.
    pub fn threads(&self) -> u32 {
        self.schedule.threads
    }

    /// Degree m.
    pub fn degree(&self) -> u32 {
        self.schedule.degree
    }

    /// Rounds r.
    pub fn rounds(&self) -> u32 {
        self.schedule.round_count()
    }

    fn counter(&self, thread: u32, round: usize) -> &AtomicU64 {
        &self.counters[thread as usize * self.schedule.rounds.len() + round]
    }

    /// The starting state of its lines, as the CLa program declares them (`line arrive[t,k]
    /// memory thread=t`: in no cache) and what [`ClaDisseminationBarrier::prepare`] reaches.
    pub fn initial_states() -> Vec<InitialState> {
        vec![InitialState::forced(
            "round counter of every (thread, round)",
            "",
            LineState::Invalid,
            "modelopt_graph::dissemination `line arrive[t,k] memory thread=t` (seed 001 §3 rule 1): each round's first add priced R_I (R_QI across sockets)",
        )]
    }

    /// Put thread `me`'s counter lines in their initial state: evicted from every cache where
    /// [`coherence::can_flush`], otherwise rewritten unchanged (Modified in `me`'s cache).
    pub fn prepare(&self, me: u32) {
        let rounds = self.schedule.rounds.len();
        if coherence::can_flush() {
            for k in 0..rounds {
                coherence::evict(self.counter(me, k));
            }
            coherence::fence();
        } else {
            for k in 0..rounds {
                let c = self.counter(me, k);
                c.store(c.load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
    }

    /// Thread `me`'s part of the `epoch`-th barrier (epochs 1, 2, 3, ... on one object): returns
    /// once every thread has entered this epoch's barrier.
    pub fn wait(&self, me: u32, epoch: u64, waiter: &Waiter<'_>) -> Result<(), WaitError> {
        let n = u64::from(self.schedule.threads);
        for (k, round) in self.schedule.rounds.iter().enumerate() {
            for i in 1..=u64::from(round.peers) {
                let peer = ((u64::from(me) + i * round.stride) % n) as u32;
                self.counter(peer, k).fetch_add(1, Ordering::AcqRel);
            }
            let own = self.counter(me, k);
            let expected = epoch.saturating_mul(u64::from(round.peers));
            waiter.wait(Stage::BarrierNotifications { round: k as u32 }, || {
                own.load(Ordering::Acquire) >= expected
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    #[test]
    fn counters_grow_by_their_round_degree_each_call() {
        // n = 5, m = 2: rounds with strides 1 and 3, peers 2 and ⌈5/3⌉ − 1 = 1. After three
        // calls every thread's round-0 counter holds 3·2 = 6 and its round-1 counter 3·1 = 3.
        let b = ClaDisseminationBarrier::new(5, 2).unwrap();
        assert_eq!((b.threads(), b.degree(), b.rounds()), (5, 2, 2));
        crate::test_support::barrier_property_holds("n = 5, m = 2", 5, 3, |me, epoch, w| {
            b.wait(me, epoch, w)
        });
        for t in 0..5 {
            assert_eq!(b.counter(t, 0).load(Ordering::Relaxed), 6);
            assert_eq!(b.counter(t, 1).load(Ordering::Relaxed), 3);
            b.prepare(t);
            assert_eq!(b.counter(t, 0).load(Ordering::Relaxed), 6);
        }
    }

    fn barrier_property_holds(threads: u32, degree: u32, epochs: u64) {
        let b = ClaDisseminationBarrier::new(threads, degree).unwrap();
        crate::test_support::barrier_property_holds(
            &format!("n = {threads}, m = {degree}"),
            threads,
            epochs,
            |me, epoch, w| b.wait(me, epoch, w),
        );
    }

    #[test]
    fn nobody_leaves_before_everybody_has_arrived() {
        // Two threads; powers of m + 1 and not; a partial last round (n = 5, m = 2; n = 7,
        // m = 3); the single round of m = n − 1.
        barrier_property_holds(2, 1, 500);
        barrier_property_holds(4, 1, 300);
        barrier_property_holds(5, 2, 300);
        barrier_property_holds(7, 3, 200);
        barrier_property_holds(6, 5, 200);
        barrier_property_holds(8, 2, 200);
    }

    #[test]
    fn a_missing_thread_holds_everyone_at_its_round() {
        // n = 2, m = 1: thread 1 alone adds to thread 0's counter and waits for its own, which
        // thread 0 never fills.
        let b = ClaDisseminationBarrier::new(2, 1).unwrap();
        let abort = AtomicBool::new(false);
        let alone = Waiter::new(1, Duration::from_millis(20), &abort);
        assert_eq!(
            b.wait(1, 1, &alone).unwrap_err(),
            WaitError::Timeout {
                thread: 1,
                stage: Stage::BarrierNotifications { round: 0 },
                timeout: Duration::from_millis(20)
            }
        );
        assert!(matches!(
            ClaDisseminationBarrier::new(4, 4).unwrap_err(),
            BarrierError::Degree { degree: 4, max: 3 }
        ));
        assert!(matches!(
            ClaDisseminationBarrier::new(1, 1).unwrap_err(),
            BarrierError::Threads(1)
        ));
    }
}
