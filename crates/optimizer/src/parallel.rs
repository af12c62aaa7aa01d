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
}
