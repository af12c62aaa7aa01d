//! Waiting on a cache line, with a deadline.
//!
//! Every wait in this crate — on a parent's flag, a notification counter, the runner's start
//! signal — goes through [`Waiter::wait`], so none can spin forever: after its timeout a wait
//! returns [`WaitError::Timeout`] naming the thread and the [`Stage`], and raises the shared abort
//! flag so that every other thread stops at its next check ([`WaitError::Aborted`]).
//!
//! The spin checks the condition 64 times between two reads of the clock (a clock read costs about
//! as much as a line transfer, so it is kept off the fast path), and after [`YIELD_AFTER`] of
//! spinning (at once, for threads that share a CPU) it also yields the CPU at every clock read: a thread that waits that long is waiting
//! for a thread that is not running (an oversubscribed or loaded machine), and a real collective on
//! a dedicated CPU completes in microseconds.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// After spinning this long a waiter yields its CPU between checks.
pub const YIELD_AFTER: Duration = Duration::from_micros(50);

/// What a thread was waiting for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// Broadcast S1 (seed 001 Fig. 1): the parent's flag-and-data line.
    BcastParentFlag,
    /// Broadcast S5: the copy notifications of the children on one socket, on the node's
    /// many-to-one line of that socket.
    BcastChildrenCopied {
        /// The socket of the children (as the broadcast's placement labels it).
        socket: u32,
    },
    /// Dissemination barrier: a peer's flag in a round (seed 000 Fig. 4.3).
    BarrierPeerFlag {
        /// Round, from 0.
        round: u32,
        /// The peer thread.
        peer: u32,
    },
    /// Dissemination barrier: the m notifications of a round on the own line.
    BarrierNotifications {
        /// Round, from 0.
        round: u32,
    },
    /// Tree barrier arrival (`models/barrier.cla`): the arrivals of the children on one socket
    /// (and so of their subtrees), on the node's many-to-one line of that socket.
    TreeBarrierChildrenArrived {
        /// The socket of the children (as the barrier's placement labels it).
        socket: u32,
    },
    /// Tree barrier release: the parent's go flag.
    TreeBarrierParentGo,
    /// Small reduction: the parent's "buffers ready" flag (seed 000 §4.3).
    ReduceParentReady,
    /// Small reduction: a child's value in the own buffers.
    ReduceChildValue {
        /// The child thread.
        child: u32,
    },
    /// Reduction of `models/small-reduce.cla`: the children on one socket have copied their
    /// values into the own slots, on the node's many-to-one line of that socket.
    ReduceChildrenWrote {
        /// The socket of the children (as the reduction's placement labels it).
        socket: u32,
    },
    /// Runner: the leader's signal to prepare the next iteration.
    Prepare,
    /// Runner: every thread has put its lines in their initial states (leader only).
    AllPrepared,
    /// Runner: the leader's start signal with the start instant.
    StartSignal,
    /// Runner: the start instant itself.
    StartInstant,
    /// Runner: every thread has finished the iteration (leader only).
    AllFinished,
    /// Runner: a participant that was told to stall (fault injection in tests).
    InjectedStall,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::BcastParentFlag => f.write_str("broadcast S1 (waiting for the parent's flag)"),
            Stage::BcastChildrenCopied { socket } => {
                write!(
                    f,
                    "broadcast S5 (waiting for the children on socket {socket} to copy)"
                )
            }
            Stage::BarrierPeerFlag { round, peer } => {
                write!(
                    f,
                    "barrier round {round} (waiting for thread {peer}'s flag)"
                )
            }
            Stage::BarrierNotifications { round } => {
                write!(f, "barrier round {round} (waiting for the notifications)")
            }
            Stage::TreeBarrierChildrenArrived { socket } => write!(
                f,
                "tree barrier arrival (waiting for the children on socket {socket} and their subtrees)"
            ),
            Stage::TreeBarrierParentGo => {
                f.write_str("tree barrier release (waiting for the parent's go flag)")
            }
            Stage::ReduceParentReady => {
                f.write_str("reduction (waiting for the parent's buffers to be ready)")
            }
            Stage::ReduceChildValue { child } => {
                write!(f, "reduction (waiting for thread {child}'s value)")
            }
            Stage::ReduceChildrenWrote { socket } => write!(
                f,
                "reduction (waiting for the values of the children on socket {socket})"
            ),
            Stage::Prepare => f.write_str("runner (waiting for the next iteration)"),
            Stage::AllPrepared => f.write_str("runner (waiting for every thread to prepare)"),
            Stage::StartSignal => f.write_str("runner (waiting for the start signal)"),
            Stage::StartInstant => f.write_str("runner (waiting for the start instant)"),
            Stage::AllFinished => f.write_str("runner (waiting for every thread to finish)"),
            Stage::InjectedStall => f.write_str("an injected stall"),
        }
    }
}

/// Why a wait ended without its condition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WaitError {
    /// The condition did not hold within the timeout.
    #[error("thread {thread} waited longer than {timeout:?} at {stage}")]
    Timeout {
        /// The waiting thread.
        thread: u32,
        /// What it waited for.
        stage: Stage,
        /// The timeout.
        timeout: Duration,
    },
    /// Another thread failed and raised the abort flag.
    #[error("thread {thread} stopped at {stage} because another thread failed")]
    Aborted {
        /// The waiting thread.
        thread: u32,
        /// What it waited for.
        stage: Stage,
    },
}

/// One thread's way of waiting: its id, the timeout of every wait, and the shared abort flag.
#[derive(Debug, Clone, Copy)]
pub struct Waiter<'a> {
    thread: u32,
    timeout: Duration,
    abort: &'a AtomicBool,
    yield_after: Duration,
}

impl<'a> Waiter<'a> {
    /// A waiter for `thread` whose waits give up after `timeout`, and stop early once `abort` is
    /// raised (by this or any other thread that shares it).
    pub fn new(thread: u32, timeout: Duration, abort: &'a AtomicBool) -> Self {
        Waiter {
            thread,
            timeout,
            abort,
            yield_after: YIELD_AFTER,
        }
    }

    /// The same waiter yielding its CPU after `spin` of spinning instead of [`YIELD_AFTER`]
    /// (zero: at every clock read, for threads that share a CPU).
    pub fn with_yield_after(mut self, spin: Duration) -> Self {
        self.yield_after = spin;
        self
    }

    /// The thread this waiter belongs to.
    pub fn thread(&self) -> u32 {
        self.thread
    }

    /// Spin until `ready()` is true. On timeout the abort flag is raised, so the other threads
    /// stop too; a wait that sees the flag raised returns [`WaitError::Aborted`].
    ///
    /// ```
    /// use modelopt_collectives::wait::{Stage, WaitError, Waiter};
    /// use std::sync::atomic::AtomicBool;
    /// use std::time::Duration;
    /// let abort = AtomicBool::new(false);
    /// let w = Waiter::new(3, Duration::from_millis(5), &abort);
    /// assert!(w.wait(Stage::BcastParentFlag, || true).is_ok());
    /// let err = w.wait(Stage::BcastParentFlag, || false).unwrap_err();
    /// assert!(matches!(err, WaitError::Timeout { thread: 3, .. }));
    /// ```
    pub fn wait(&self, stage: Stage, mut ready: impl FnMut() -> bool) -> Result<(), WaitError> {
        if ready() {
            return Ok(());
        }
        let started = Instant::now();
        loop {
            for _ in 0..64 {
                if ready() {
                    return Ok(());
                }
                std::hint::spin_loop();
            }
            if self.abort.load(Ordering::Relaxed) {
                return Err(WaitError::Aborted {
                    thread: self.thread,
                    stage,
                });
            }
            let waited = started.elapsed();
            if waited > self.timeout {
                self.abort.store(true, Ordering::Relaxed);
                return Err(WaitError::Timeout {
                    thread: self.thread,
                    stage,
                    timeout: self.timeout,
                });
            }
            if waited >= self.yield_after {
                std::thread::yield_now();
            }
        }
    }

    /// Raise the shared abort flag (a thread that found an error).
    pub fn abort(&self) {
        self.abort.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn a_stalled_flag_times_out_naming_thread_and_stage() {
        let abort = AtomicBool::new(false);
        let flag = AtomicU64::new(0);
        let w = Waiter::new(1, Duration::from_millis(20), &abort);
        let started = Instant::now();
        let err = w
            .wait(Stage::BcastParentFlag, || flag.load(Ordering::Acquire) >= 1)
            .unwrap_err();
        assert!(started.elapsed() >= Duration::from_millis(20));
        assert_eq!(
            err,
            WaitError::Timeout {
                thread: 1,
                stage: Stage::BcastParentFlag,
                timeout: Duration::from_millis(20)
            }
        );
        assert!(err.to_string().contains("thread 1"));
        assert!(err.to_string().contains("broadcast S1"));
        // The timeout raised the abort flag: the next wait of another thread stops at once.
        assert!(abort.load(Ordering::Relaxed));
        let other = Waiter::new(2, Duration::from_secs(10), &abort);
        let err = other
            .wait(Stage::BarrierNotifications { round: 0 }, || false)
            .unwrap_err();
        assert!(matches!(err, WaitError::Aborted { thread: 2, .. }));
    }

    #[test]
    fn a_flag_set_by_another_thread_ends_the_wait() {
        let abort = AtomicBool::new(false);
        let flag = AtomicU64::new(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(2));
                flag.store(7, Ordering::Release);
            });
            let w = Waiter::new(0, Duration::from_secs(10), &abort);
            w.wait(Stage::BcastParentFlag, || flag.load(Ordering::Acquire) == 7)
                .unwrap();
        });
    }
}
