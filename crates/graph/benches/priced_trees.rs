//! The graph-priced tree search of the ccNUMA barrier and reduction (docs/perf.md,
//! "Graph-priced trees: barrier and reduce on ccNUMA"): whole searches as `modelopt barrier|reduce
//! --machine sandy-bridge-e5-2660 --threads N` runs them, at the sizes the default budget lets
//! the exhaustive pass run (8 threads: one socket; 10 threads: 8 + 2 on two sockets), and one
//! over budget (16 threads: candidates and local search); and the 2 × 4 × 8 chiplet machine
//! `chiplet-2s-4x8` at 10 threads (exhaustive by L3 domain) and 64 (local search), its broadcast
//! at 24, 33 and 34 threads (the relaxation of one line per socket proves the first two and
//! bounds the third), with a free split over its domains (`--placement optimal`) at 5
//! (exact) and 32 threads, and past the cores (two threads a core) at 96 threads, by id and
//! placed freely.
//!
//! RAYON_NUM_THREADS=1 cargo bench -p modelopt-graph --bench priced_trees -- --warm-up-time 1 --measurement-time 5
//! RAYON_NUM_THREADS=2 cargo bench -p modelopt-graph --bench priced_trees -- --warm-up-time 1 --measurement-time 5

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use modelopt_graph::collectives::attach;
use modelopt_model::algorithm::ThreadPlacement;
use modelopt_model::{machine, Collective, Request};
use modelopt_optimizer::search::{rank, SearchOptions};
use modelopt_optimizer::Objective;

/// One benchmark group: a whole search of each collective at each size on `machine`.
fn search_group(
    c: &mut Criterion,
    name: &str,
    machine: &modelopt_model::Machine,
    collectives: &[Collective],
    sizes: &[u32],
    placement: ThreadPlacement,
) {
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    for &collective in collectives {
        for &threads in sizes {
            let request = Request::new(collective, threads).unwrap();
            let mut options = SearchOptions::new(Objective::Min, 5);
            options.space.placement = placement;
            let algorithms = machine.algorithms_for(collective);
            let algorithm = &*algorithms[0];
            let label = format!("{collective}/{threads}");
            g.bench_with_input(BenchmarkId::from_parameter(label), &request, |b, r| {
                b.iter(|| rank(algorithm, r, &options).map(|x| x.best.len()))
            });
        }
    }
    g.finish();
}

fn priced_trees(c: &mut Criterion) {
    let mut m = machine::load("sandy-bridge-e5-2660").unwrap();
    attach(&mut m).unwrap();
    let by_id = ThreadPlacement::ByThreadId;
    let [bcast, barrier, reduce] = [Collective::Bcast, Collective::Barrier, Collective::Reduce];
    search_group(
        c,
        "priced-trees",
        &m,
        &[barrier, reduce],
        &[8, 10, 16],
        by_id,
    );
    // The 2 × 4 × 8 chiplet hierarchy (issue 8, item 6): one domain and a bit (exhaustive), and
    // all 64 cores (candidates and local search, flagged).
    let mut chiplet = machine::load("chiplet-2s-4x8").unwrap();
    attach(&mut chiplet).unwrap();
    let all = [bcast, barrier, reduce];
    search_group(c, "priced-trees-chiplet", &chiplet, &all, &[10, 64], by_id);
    // The broadcast with one line per socket and its relaxation (docs/cla.md §13): 24 and 33
    // threads proven score-optimal at the default budget, 34 stopped by it with a bound.
    search_group(
        c,
        "priced-trees-chiplet-relaxation",
        &chiplet,
        &[bcast],
        &[24, 33, 34],
        by_id,
    );
    // `--placement optimal` on the chiplet machine: the split over L3 domains, exhaustive up to
    // renaming of domains at 5 threads (exact), and candidates with moves between domains at 32.
    let free = ThreadPlacement::Optimal;
    search_group(
        c,
        "priced-trees-chiplet-free-split",
        &chiplet,
        &all,
        &[5, 32],
        free,
    );
    // Past the cores, two threads a core (docs/cla.md §13, "Threads sharing cores"): 96
    // threads by id (the merged bound of their split) and placed freely (one run over the box
    // of the splits per socket).
    for (name, placement) in [
        ("priced-trees-chiplet-shared-cores-by-id", by_id),
        ("priced-trees-chiplet-shared-cores-free", free),
    ] {
        search_group(c, name, &chiplet, &[bcast], &[96], placement);
    }
}

/// The certified lower bounds (graph::bounds, on T_min and on T_max), both computed whenever a
/// graph-priced space is built: what they add to every request, at the bundled chiplet
/// machine's 128 threads and at the 1,024-thread limit, on two sockets.
fn lower_bounds(c: &mut Criterion) {
    use modelopt_graph::bounds::{lower_bound, Span, Threads, TreeProgram};
    use modelopt_graph::Bound;
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
            for (name, bound) in [("t_min", Bound::Min), ("t_max", Bound::Max)] {
                // Lines only, and the threads counted on an uneven split (3/4 on the root's
                // socket: two classes of node, the dearest case).
                let counted = Threads {
                    per_domain: vec![threads - threads / 4, threads / 4],
                    root_domain: Some(0),
                    ..Threads::on_sockets(threads, 2, Span::Sockets)
                };
                for (spread, threads_of) in [
                    ("", Threads::on_sockets(threads, 2, Span::Sockets)),
                    ("/counted", counted),
                ] {
                    let label = format!("{program:?}/{name}/{threads}{spread}");
                    g.bench_with_input(BenchmarkId::from_parameter(label), &threads_of, |b, t| {
                        b.iter(|| lower_bound(bound, program, ccnuma, t))
                    });
                }
            }
        }
    }
    g.finish();
}

criterion_group!(benches, priced_trees, lower_bounds);
criterion_main!(benches);
