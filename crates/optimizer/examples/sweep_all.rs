//! The full design-space sweep of `docs/perf.md`: every bundled machine × every collective it
//! models × threads 2..=256 (extrapolating past each machine's limit) × sizes {one item, 8 KiB},
//! streamed (rows are counted, not kept). Prints rows, time, rows per second and the peak
//! resident set size (VmHWM from /proc/self/status).
//!
//! ```text
//! cargo run --release --example sweep_all -p modelopt-optimizer
//! ```

use modelopt_model::machine;
use modelopt_optimizer::sweep::Sweep;
use std::time::Instant;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let machines: Vec<_> = machine::bundled_names()
        .into_iter()
        .map(machine::load)
        .collect::<Result<_, _>>()?;
    let before = peak_rss_kib();
    let start = Instant::now();
    let (mut rows, mut points) = (0u64, 0u64);
    for m in &machines {
        let mut sweep = Sweep::new(vec![m], m.collectives(), (2..=256).collect())?;
        sweep.sizes = vec![0, 8 << 10];
        sweep.extrapolate = true;
        let t = Instant::now();
        let stats = sweep
            .for_each(|_| Ok::<(), ()>(()))
            .map_err(|()| "stopped")?;
        rows += stats.rows;
        points += stats.points;
        println!(
            "{:<24} {:>7} points {:>7} rows {:>8.2} s",
            m.name,
            stats.points,
            stats.rows,
            t.elapsed().as_secs_f64()
        );
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "total: {} machines, {points} points, {rows} rows in {secs:.2} s = {:.0} rows/s ({} rayon threads)",
        machines.len(),
        rows as f64 / secs,
        rayon::current_num_threads()
    );
    if let (Some(b), Some(a)) = (before, peak_rss_kib()) {
        println!(
            "peak RSS (VmHWM): {:.1} MiB (after loading the machines: {:.1} MiB)",
            a as f64 / 1024.0,
            b as f64 / 1024.0
        );
    }
    Ok(())
}
