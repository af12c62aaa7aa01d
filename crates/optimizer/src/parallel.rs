//! The one place this crate uses rayon.
//!
//! Every parallel loop of the optimizer goes through these functions, so the parallelism policy
//! (pool, chunking, ordering) is decided here once. Results always come back in input order, so
//! callers stay deterministic whatever the number of rayon threads (`RAYON_NUM_THREADS`).
//!
//! ## Which level is parallel
//! One level only, the outermost loop over independent problems:
//! - [`crate::sweep`]: the points of a chunk (each point tuned on one worker);
//! - [`crate::sensitivity`]: the parameters of one-at-a-time ranges, the samples of a Monte Carlo
//!   chunk;
//! - [`crate::rooted_trees`]: the batches of its exhaustive enumeration (a single search with no
//!   outer loop around it in the CLI).
//!
//! A loop whose items run searches that may each take the memory limit (a sweep's points,
//! sensitivity's ranges and Monte Carlo samples) runs at most
//! `SearchOptions::searches_at_once` of them at a time ([`map_owned_at_most`]): the memory the
//! process may use over the limit. Without it 200 workers could hold 200 searches' limits.
//!
//! A level-degree, dissemination or grid search ([`crate::search`]) runs on the calling thread:
//! it is fast enough alone (a million threads in milliseconds) and, unparallelized, its memory
//! and its counters do not depend on scheduling. rayon runs a nested parallel loop inline on the
//! current worker anyway; keeping searches sequential makes that explicit.

use rayon::prelude::*;

/// `f` over `items` in parallel; results in input order.
pub fn map_ordered<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    items.par_iter().map(f).collect()
}

/// `f` over owned `items` in parallel; results in input order.
pub fn map_owned<T, R, F>(items: Vec<T>, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    items.into_par_iter().map(f).collect()
}

/// [`map_owned`] running at most `at_once` items at a time (for loops whose items each may
/// take a search's whole memory limit: `SearchOptions::searches_at_once`). Below the pool's
/// workers, the items run on a pool of `at_once` threads of their own (on the calling thread
/// alone should that pool not start). Results in input order, as with [`map_owned`].
pub fn map_owned_at_most<T, R, F>(items: Vec<T>, at_once: usize, f: F) -> Vec<R>
where
    T: Send,
    R: Send,
    F: Fn(T) -> R + Sync + Send,
{
    let at_once = at_once.max(1);
    if at_once >= workers() || items.len() <= 1 {
        return map_owned(items, f);
    }
    if at_once == 1 {
        return items.into_iter().map(f).collect();
    }
    match rayon::ThreadPoolBuilder::new().num_threads(at_once).build() {
        Ok(pool) => pool.install(|| map_owned(items, f)),
        Err(_) => items.into_iter().map(f).collect(),
    }
}

/// [`map_ordered`] running at most `at_once` items at a time ([`map_owned_at_most`]).
pub fn map_ordered_at_most<T, R, F>(items: &[T], at_once: usize, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    map_owned_at_most(items.iter().collect(), at_once, f)
}

/// `f` over the items of a sequential iterator, in parallel as they come; results in input order
/// (each item is numbered before it is handed out, and the results are sorted back).
pub fn map_iter<I, R, F>(iter: I, f: F) -> Vec<R>
where
    I: Iterator + Send,
    I::Item: Send,
    R: Send,
    F: Fn(I::Item) -> R + Sync + Send,
{
    let mut numbered: Vec<(usize, R)> = iter
        .enumerate()
        .par_bridge()
        .map(|(i, item)| (i, f(item)))
        .collect();
    numbered.sort_by_key(|(i, _)| *i);
    numbered.into_iter().map(|(_, r)| r).collect()
}

/// How many workers rayon's pool has (for sizing chunks).
pub fn workers() -> usize {
    rayon::current_num_threads()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_input_order() {
        let v: Vec<u64> = (0..1000).collect();
        assert_eq!(
            map_ordered(&v, |x| x * 2),
            (0..1000).map(|x| x * 2).collect::<Vec<_>>()
        );
        assert_eq!(map_owned(v.clone(), |x| x + 1)[999], 1000);
        assert_eq!(map_iter(v.into_iter(), |x| x)[..3], [0, 1, 2]);
    }

    #[test]
    fn at_most_so_many_items_run_at_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        // Each item counts itself in, sleeps 2 ms (so that items on free workers overlap) and
        // records the most in flight, under a pool of 4 workers (whatever the machine's cores:
        // sleeping items overlap on it): 1 at a time runs on the calling thread, 2 and 3 on a
        // pool of their own, 4 and more on the 4 workers. The most in flight never passes the
        // bound (without one, 24 items of 2 ms on 4 workers overlap).
        let items: Vec<u64> = (0..24).collect();
        let workers = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        for at_once in [1, 2, 3, 4, 8] {
            let in_flight = AtomicUsize::new(0);
            let most = AtomicUsize::new(0);
            let out = workers.install(|| {
                map_owned_at_most(items.clone(), at_once, |x| {
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    x * 3
                })
            });
            assert_eq!(out, (0..24).map(|x| x * 3).collect::<Vec<_>>());
            assert!(most.load(Ordering::SeqCst) <= at_once.min(4), "{at_once}");
        }
        let refs = map_ordered_at_most(&items, 1, |&x| x + 1);
        assert_eq!(refs[23], 24);
    }
}
