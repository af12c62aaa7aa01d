//! Level-degree trees past 10^5 threads (issue 8, item 5): one optimum at 1,048,576 threads
//! (criterion), then the whole sweep 2..=100,000 (bcast, xeon-phi, extrapolated) timed once, and
//! the process's peak resident set size (VmHWM from /proc/self/status).
//!
//! ```text
//! RAYON_NUM_THREADS=1 cargo bench -p modelopt-optimizer --bench level_search
//! RAYON_NUM_THREADS=2 cargo bench -p modelopt-optimizer --bench level_search
//! ```
//! Set `LEVEL_SEARCH_SWEEP_MAX` to sweep a shorter range (default 100000).

use criterion::Criterion;
use modelopt_model::{machine, Collective, Request};
use modelopt_optimizer::sweep::Sweep;
use modelopt_optimizer::{rank, Objective, SearchOptions};
use std::hint::black_box;
use std::time::Instant;

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let phi = machine::load("xeon-phi").expect("bundled machine");
    let options = SearchOptions::new(Objective::Min, 1);
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("level_search");
    group.sample_size(10);
    for collective in [Collective::Bcast, Collective::Reduce] {
        let request = Request::new(collective, 1 << 20).expect("request");
        let algorithms = phi.algorithms_for(collective);
        let tree = algorithms
            .iter()
            .find(|a| a.name() == "small-tree")
            .expect("small-tree");
        let ranked = rank(tree.as_ref(), &request, &options).expect("ranked");
        println!(
            "{collective} 1,048,576 threads: {} ({:?}, {} priced, {} pruned)",
            ranked.best[0].params, ranked.exactness, ranked.stats.evaluated, ranked.stats.pruned
        );
        group.bench_function(format!("{collective}_optimum_1048576_threads"), |b| {
            b.iter(|| black_box(rank(tree.as_ref(), &request, &options).expect("ranked")))
        });
    }
    group.finish();
    c.final_summary();
    if let Some(mib) = peak_rss_mib() {
        println!("peak RSS after the single optima (VmHWM): {mib:.1} MiB");
    }

    let max: u32 = std::env::var("LEVEL_SEARCH_SWEEP_MAX")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut sweep =
        Sweep::new(vec![&phi], vec![Collective::Bcast], (2..=max).collect()).expect("sweep");
    sweep.extrapolate = true;
    let start = Instant::now();
    let mut rows = 0u64;
    let mut digest = 0u64;
    for row in sweep.rows() {
        rows += 1;
        // A cheap order-sensitive digest of the output, to compare runs with 1 and 2 threads.
        digest = digest
            .rotate_left(5)
            .wrapping_add(row.t_min_ns.to_bits() ^ u64::from(row.threads));
    }
    println!(
        "sweep bcast xeon-phi 2..={max} extrapolated: {rows} rows in {:.2} s, digest {digest:016x}, rayon threads {}",
        start.elapsed().as_secs_f64(),
        modelopt_optimizer::parallel::workers()
    );
    if let Some(mib) = peak_rss_mib() {
        println!("peak RSS (VmHWM): {mib:.1} MiB");
    }
}
