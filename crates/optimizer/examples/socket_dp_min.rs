//! Time of the scalar T_min pass alone (docs/perf.md): `cargo run --release -p
//! modelopt-optimizer --example socket_dp_min -- 64 64 [incumbent]`.
use modelopt_model::ccnuma::bcast::TreeCosts;
use modelopt_optimizer::limits::{Limits, Progress};
use modelopt_optimizer::socket_dp;
fn main() {
    let mut args: Vec<f64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let incumbent = args.pop().unwrap_or(f64::INFINITY);
    let counts: Vec<u32> = args.iter().map(|&a| a as u32).collect();
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
    };
    let found = socket_dp::min_optimum(
        &costs.into(),
        &counts,
        0,
        Some(incumbent),
        &limits,
        &Progress::none(),
    );
    println!(
        "{counts:?} incumbent {incumbent}: {:.3} s, least T_min {found:?}",
        t0.elapsed().as_secs_f64()
    );
}
