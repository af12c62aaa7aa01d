//! Rooted-tree search at realistic sizes (docs/perf.md, "CLa trees (issue 3)").
//!
//! cargo bench -p modelopt-optimizer --bench rooted_trees -- --warm-up-time 1 --measurement-time 3

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use modelopt_model::ccnuma::bcast::TreeCosts;
use modelopt_model::ccnuma::tree::RootedTree;
use modelopt_optimizer::placement;
use modelopt_optimizer::rooted_trees::{self, count_trees, LevelSequences};
use modelopt_optimizer::Objective;
use std::hint::black_box;

fn sandy() -> TreeCosts {
    // Seed 001 §2.1.
    TreeCosts {
        local: 2.3,
        socket: 35.0,
        remote: 94.0,
        memory: 70.0,
        remote_memory: 107.0,
        domains: None,
    }
}

fn generator(c: &mut Criterion) {
    let mut g = c.benchmark_group("generate");
    g.sample_size(10);
    for n in [16usize, 18] {
        g.throughput(Throughput::Elements(count_trees(n)));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| {
                let mut gen = LevelSequences::new(n);
                let mut sum = 0u64;
                while let Some(l) = gen.next_tree() {
                    sum += u64::from(l[n - 1]);
                }
                black_box(sum)
            })
        });
    }
    g.finish();
}

fn exhaustive(c: &mut Criterion) {
    let mut g = c.benchmark_group("exhaustive");
    g.sample_size(10);
    let costs = sandy();
    for n in [16u32, 20] {
        g.throughput(Throughput::Elements(count_trees(n as usize)));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| rooted_trees::exhaustive(&costs, n, &Objective::Min).map(|t| t.cost))
        });
    }
    g.finish();
}

fn dp(c: &mut Criterion) {
    let mut g = c.benchmark_group("dp");
    g.sample_size(10);
    let costs = sandy();
    for n in [1024u32, 4096] {
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| rooted_trees::dp(&costs, n, &Objective::Min).map(|t| t.cost))
        });
    }
    g.finish();
}

fn placement_milp(c: &mut Criterion) {
    let mut g = c.benchmark_group("placement");
    g.sample_size(10);
    let costs = sandy();
    // A 16-node tree: the one-socket optimum for 16 threads.
    let best = rooted_trees::dp(&costs, 16, &Objective::Min).unwrap();
    let tree = RootedTree::from_levels(&best.levels).unwrap();
    g.bench_function("milp/2-sockets-16", |b| {
        b.iter(|| placement::milp(&tree, &[8, 8], 0, &costs, &Objective::Min).map(|p| p.cost))
    });
    g.bench_function("dp/2-sockets-16", |b| {
        b.iter(|| placement::dp(&tree, &[8, 8], 0, &costs, &Objective::Min).map(|p| p.cost))
    });
    let small = rooted_trees::dp(&costs, 8, &Objective::Min).unwrap();
    let small_tree = RootedTree::from_levels(&small.levels).unwrap();
    g.bench_function("milp/4-sockets-8", |b| {
        b.iter(|| {
            placement::milp(&small_tree, &[2, 2, 2, 2], 0, &costs, &Objective::Min).map(|p| p.cost)
        })
    });
    g.finish();
}

criterion_group!(benches, generator, exhaustive, dp, placement_milp);
criterion_main!(benches);
