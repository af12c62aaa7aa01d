//! Helpers shared by the unit tests of the barriers.

use crate::wait::{WaitError, Waiter};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Run `epochs` calls of a barrier (`wait(me, epoch, waiter)`) on `threads` unpinned threads,
/// each arrival counted on a shared counter just before entering and staggered by a
/// per-thread, per-epoch number of yields; after leaving epoch e a thread must see all n·e
/// arrivals of epochs 1..=e. `label` names the case in a failure.
pub(crate) fn barrier_property_holds<F>(label: &str, threads: u32, epochs: u64, wait: F)
where
    F: Fn(u32, u64, &Waiter<'_>) -> Result<(), WaitError> + Sync,
{
    let n = u64::from(threads);
    let arrivals = AtomicU64::new(0);
    let abort = AtomicBool::new(false);
    std::thread::scope(|s| {
        for me in 0..threads {
            let (arrivals, abort, wait) = (&arrivals, &abort, &wait);
            s.spawn(move || {
                let w = Waiter::new(me, Duration::from_secs(20), abort)
                    .with_yield_after(Duration::ZERO);
                for epoch in 1..=epochs {
                    for _ in 0..(epoch * 7 + u64::from(me) * 3) % 5 {
                        std::thread::yield_now();
                    }
                    arrivals.fetch_add(1, Ordering::AcqRel);
                    wait(me, epoch, &w).unwrap();
                    let seen = arrivals.load(Ordering::Acquire);
                    assert!(
                        seen >= n * epoch,
                        "{label}: thread {me} left epoch {epoch} having seen {seen} arrivals, not {}",
                        n * epoch
                    );
                }
            });
        }
    });
    assert_eq!(arrivals.load(Ordering::Relaxed), n * epochs);
}
