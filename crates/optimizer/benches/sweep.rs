//! Sweep throughput (issue 5): every bundled machine × every collective it models × threads
//! 2..=256 (extrapolating past each machine's limit) × sizes {one item, 8 KiB}, streamed.
//! Reports rows per second (criterion's element throughput) and, at the end, the process's peak
//! resident set size (VmHWM from /proc/self/status).
//!
//! ```text
//! cargo bench -p modelopt-optimizer --bench sweep -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{Criterion, Throughput};
use modelopt_model::{machine, Machine};
use modelopt_optimizer::sweep::Sweep;
use std::hint::black_box;

fn sweep_all(machines: &[Machine]) -> u64 {
    let mut rows = 0;
    for m in machines {
        let Ok(mut sweep) = Sweep::new(vec![m], m.collectives(), (2..=256).collect()) else {
            continue;
        };
        sweep.sizes = vec![0, 8 << 10];
        sweep.extrapolate = true;
        for row in sweep.rows() {
            black_box(&row);
            rows += 1;
        }
    }
    rows
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let machines: Vec<Machine> = machine::bundled_names()
        .into_iter()
        .filter_map(|name| machine::load(name).ok())
        .collect();
    let rows = sweep_all(&machines);
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("sweep");
    group.throughput(Throughput::Elements(rows));
    group.sample_size(10);
    group.bench_function(
        format!("{}_machines_all_collectives_threads_2_256", machines.len()),
        |b| b.iter(|| sweep_all(black_box(&machines))),
    );
    group.finish();
    c.final_summary();
    println!("rows per sweep: {rows}");
    if let Some(mib) = peak_rss_mib() {
        println!("peak RSS (VmHWM): {mib:.1} MiB");
    }
}
