//! Pareto-set sizes and time of the socket DP for one request (docs/perf.md):
//! `cargo run --release -p modelopt-optimizer --example socket_dp_sizes -- 16 16`.
use modelopt_model::ccnuma::bcast::TreeCosts;
use modelopt_optimizer::limits::{Limits, Progress};
use modelopt_optimizer::socket_dp::{Prune, SocketTable};
use modelopt_optimizer::Objective;
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
    let prune = Some(Prune {
        objective: Objective::Min,
        incumbent,
    });
    let t0 = std::time::Instant::now();
    let Ok((table, _)) = SocketTable::build(
        &costs.into(),
        &counts,
        prune,
        &Limits::default(),
        &Progress::none(),
    ) else {
        return;
    };
    let best = table.best(0, &counts, &Objective::Min);
    println!(
        "{counts:?} incumbent {incumbent}: {:?}, {} transitions, (points, largest set) of T/G/P {:?}; best {:?}",
        t0.elapsed(),
        table.transitions,
        table.sizes(),
        best.map(|b| b.cost)
    );
}
