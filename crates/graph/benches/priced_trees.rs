//! The graph-priced tree search of the ccNUMA barrier and reduction (docs/perf.md,
//! "Graph-priced trees: barrier and reduce on ccNUMA"): whole searches as `modelopt barrier|reduce
//! --machine sandy-bridge-e5-2660 --threads N` runs them, at the sizes the default budget lets
//! the exhaustive pass run (8 threads: one socket; 10 threads: 8 + 2 on two sockets), and one
//! over budget (16 threads: candidates and local search); and the 2 × 4 × 8 chiplet machine
//! `chiplet-2s-4x8` at 10 threads (exhaustive by L3 domain) and 64 (local search), and with a
//! free split over its domains (`--placement optimal`) at 5 (exact) and 32 threads.
//!
//! RAYON_NUM_THREADS=1 cargo bench -p modelopt-graph --bench priced_trees -- --warm-up-time 1 --measurement-time 5
//! RAYON_NUM_THREADS=2 cargo bench -p modelopt-graph --bench priced_trees -- --warm-up-time 1 --measurement-time 5

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use modelopt_graph::collectives::attach;
use modelopt_model::{machine, Collective, Request};
use modelopt_optimizer::search::{rank, SearchOptions};
use modelopt_optimizer::Objective;

fn priced_trees(c: &mut Criterion) {
    let mut m = machine::load("sandy-bridge-e5-2660").unwrap();
    attach(&mut m).unwrap();
    let mut g = c.benchmark_group("priced-trees");
    g.sample_size(10);
    for collective in [Collective::Barrier, Collective::Reduce] {
        for threads in [8u32, 10, 16] {
            let request = Request::new(collective, threads).unwrap();
            let options = SearchOptions::new(Objective::Min, 5);
            let algorithms = m.algorithms_for(collective);
            let algorithm = &*algorithms[0];
            let label = format!("{collective}/{threads}");
            g.bench_with_input(BenchmarkId::from_parameter(label), &request, |b, r| {
                b.iter(|| rank(algorithm, r, &options).map(|x| x.best.len()))
            });
        }
    }
    g.finish();
    // The 2 × 4 × 8 chiplet hierarchy (issue 8, item 6): one domain and a bit (exhaustive), and
    // all 64 cores (candidates and local search, flagged).
    let mut chiplet = machine::load("chiplet-2s-4x8").unwrap();
    attach(&mut chiplet).unwrap();
    let mut g = c.benchmark_group("priced-trees-chiplet");
    g.sample_size(10);
    for collective in [Collective::Bcast, Collective::Barrier, Collective::Reduce] {
        for threads in [10u32, 64] {
            let request = Request::new(collective, threads).unwrap();
            let options = SearchOptions::new(Objective::Min, 5);
            let algorithms = chiplet.algorithms_for(collective);
            let algorithm = &*algorithms[0];
            let label = format!("{collective}/{threads}");
            g.bench_with_input(BenchmarkId::from_parameter(label), &request, |b, r| {
                b.iter(|| rank(algorithm, r, &options).map(|x| x.best.len()))
            });
        }
    }
    g.finish();
    // `--placement optimal` on the chiplet machine: the split over L3 domains, exhaustive up to
    // renaming of domains at 5 threads (exact), and candidates with moves between domains at 32.
    let mut g = c.benchmark_group("priced-trees-chiplet-free-split");
    g.sample_size(10);
    for collective in [Collective::Bcast, Collective::Barrier, Collective::Reduce] {
        for threads in [5u32, 32] {
            let request = Request::new(collective, threads).unwrap();
            let mut options = SearchOptions::new(Objective::Min, 5);
            options.space.placement = modelopt_model::algorithm::ThreadPlacement::Optimal;
            let algorithms = chiplet.algorithms_for(collective);
            let algorithm = &*algorithms[0];
            let label = format!("{collective}/{threads}");
            g.bench_with_input(BenchmarkId::from_parameter(label), &request, |b, r| {
                b.iter(|| rank(algorithm, r, &options).map(|x| x.best.len()))
            });
        }
    }
    g.finish();
}

/// The certified lower bound (graph::bounds), computed whenever a graph-priced space is built:
/// what it adds to every request, at the bundled chiplet machine's 128 threads and at the
/// 1,024-thread limit, on two sockets.
fn lower_bounds(c: &mut Criterion) {
    use modelopt_graph::bounds::{t_min_lower_bound, Span, TreeProgram};
    let m = machine::load("sandy-bridge-e5-2660").unwrap();
    let Some(ccnuma) = m.model::<modelopt_model::ccnuma::Ccnuma>() else {
        return;
    };
    let mut g = c.benchmark_group("lower-bound");
    g.sample_size(10);
    for program in [
        TreeProgram::Barrier,
        TreeProgram::Reduce,
        TreeProgram::Bcast,
    ] {
        for threads in [128u32, 1024] {
            let label = format!("{program:?}/{threads}");
            g.bench_with_input(BenchmarkId::from_parameter(label), &threads, |b, &n| {
                b.iter(|| t_min_lower_bound(program, ccnuma, n, 2, Span::Sockets, false))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, priced_trees, lower_bounds);
criterion_main!(benches);
