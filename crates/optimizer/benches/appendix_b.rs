//! Benchmarks of issue 2 (results and how to reproduce them: docs/perf.md).
//!
//! - the whole of seed 000 Appendix B: Tables B.1, B.2, B.3 for 2..=60 threads (target < 20 ms);
//! - bcast / barrier / reduce optima at 1,024 and 65,536 threads (target < 100 ms each);
//! - the pruned search against the naive enumeration of the same space, as a speed-up ratio,
//!   printed at the end of the run.

use criterion::{criterion_group, BenchmarkId, Criterion};
use modelopt_model::{machine, Algorithm, Collective, Machine, Request};
use modelopt_optimizer::{rank, rank_naive, Objective, SearchOptions};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn phi() -> Machine {
    machine::load("xeon-phi").expect("bundled machine")
}

fn algorithm<'m>(m: &'m Machine, collective: Collective) -> Box<dyn Algorithm + 'm> {
    m.algorithms_for(collective)
        .into_iter()
        .next()
        .expect("an algorithm")
}

fn appendix_b(c: &mut Criterion) {
    let m = phi();
    let options = SearchOptions::new(Objective::Min, 1);
    let algorithms: Vec<_> = [Collective::Bcast, Collective::Barrier, Collective::Reduce]
        .into_iter()
        .map(|col| (col, algorithm(&m, col)))
        .collect();
    c.bench_function("appendix_b/three_tables_2_to_60", |b| {
        b.iter(|| {
            for (collective, a) in &algorithms {
                for n in 2..=60 {
                    let request = Request::new(*collective, n).expect("valid");
                    black_box(rank(a.as_ref(), &request, &options).expect("ranked"));
                }
            }
        })
    });
}

fn large_optima(c: &mut Criterion) {
    let m = phi();
    let options = SearchOptions::new(Objective::Min, 1);
    let mut group = c.benchmark_group("optimum");
    group.sample_size(10);
    for collective in [Collective::Bcast, Collective::Barrier, Collective::Reduce] {
        let a = algorithm(&m, collective);
        for n in [1024u32, 65536] {
            let request = Request::new(collective, n).expect("valid");
            group.bench_with_input(BenchmarkId::new(collective.name(), n), &request, |b, r| {
                b.iter(|| black_box(rank(a.as_ref(), r, &options).expect("ranked")))
            });
        }
    }
    group.finish();
}

fn pruned_vs_naive(c: &mut Criterion) {
    let m = phi();
    let options = SearchOptions::new(Objective::Min, 1);
    let mut group = c.benchmark_group("pruned_vs_naive");
    group.sample_size(10);
    for collective in [Collective::Bcast, Collective::Reduce] {
        let a = algorithm(&m, collective);
        for n in [1024u32, 65536] {
            let request = Request::new(collective, n).expect("valid");
            group.bench_with_input(
                BenchmarkId::new(format!("{}/pruned", collective.name()), n),
                &request,
                |b, r| b.iter(|| black_box(rank(a.as_ref(), r, &options).expect("ranked"))),
            );
            group.bench_with_input(
                BenchmarkId::new(format!("{}/naive", collective.name()), n),
                &request,
                |b, r| b.iter(|| black_box(rank_naive(a.as_ref(), r, &options).expect("ranked"))),
            );
        }
    }
    group.finish();
}

/// Median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    t.sort();
    t[runs / 2]
}

/// The speed-up ratio table, printed after criterion's own report.
fn speedup_report() {
    let m = phi();
    let options = SearchOptions::new(Objective::Min, 1);
    println!("\npruned vs naive search of the same space (median of 11 runs):");
    println!(
        "{:<8} {:>7} {:>12} {:>12} {:>9} {:>12} {:>10}",
        "", "threads", "pruned", "naive", "speed-up", "candidates", "evaluated"
    );
    for collective in [Collective::Bcast, Collective::Reduce] {
        let a = algorithm(&m, collective);
        for n in [1024u32, 65536] {
            let request = Request::new(collective, n).expect("valid");
            let _ = rank(a.as_ref(), &request, &options);
            let fast = median(11, || {
                black_box(rank(a.as_ref(), &request, &options).expect("ranked"));
            });
            let slow = median(11, || {
                black_box(rank_naive(a.as_ref(), &request, &options).expect("ranked"));
            });
            let pruned = rank(a.as_ref(), &request, &options).expect("ranked");
            let naive = rank_naive(a.as_ref(), &request, &options).expect("ranked");
            assert_eq!(
                pruned.best, naive.best,
                "pruned and naive searches disagree"
            );
            println!(
                "{:<8} {:>7} {:>12.3?} {:>12.3?} {:>8.1}x {:>12} {:>10}",
                collective.name(),
                n,
                fast,
                slow,
                slow.as_secs_f64() / fast.as_secs_f64(),
                naive.stats.evaluated,
                pruned.stats.evaluated
            );
        }
    }
}

criterion_group!(benches, appendix_b, large_optima, pruned_vs_naive);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    speedup_report();
}
