//! Time of the covering pass alone (the certified least T_min that `socket_dp::optimal` starts
//! from under `Objective::Min`; docs/perf.md), on the E5-2660 costs with one socket per count:
//! `cargo run --release -p modelopt-optimizer --example socket_dp_min -- 16 16 16 16
//! [--incumbent NS]`. The root is on socket 0.
use modelopt_model::ccnuma::bcast::TreeCosts;
use modelopt_optimizer::limits::{Limits, Progress};
use modelopt_optimizer::socket_dp;

fn main() {
    let mut counts = Vec::new();
    let mut incumbent = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--incumbent" {
            incumbent = args.next().and_then(|a| a.parse::<f64>().ok());
        } else if let Ok(count) = arg.parse::<u32>() {
            counts.push(count);
        } else {
            eprintln!("usage: socket_dp_min COUNT... [--incumbent NS] (not a count: {arg})");
            std::process::exit(2);
        }
    }
    if counts.is_empty() {
        counts = vec![16; 4];
    }
    let costs = TreeCosts {
        local: 2.3,
        socket: 35.0,
        remote: 94.0,
        memory: 70.0,
        remote_memory: 107.0,
        domains: None,
    };
    let t0 = std::time::Instant::now();
    let limits = Limits {
        time_limit: None,
        work_budget: u64::MAX,
        ..Limits::default()
    };
    let found = socket_dp::covering_bound(
        &costs.into(),
        &counts,
        0,
        incumbent,
        &limits,
        &Progress::none(),
    );
    println!(
        "{counts:?} incumbent {incumbent:?}: {:.3} s, least T_min {found:?}",
        t0.elapsed().as_secs_f64()
    );
}
