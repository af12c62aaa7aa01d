//! One-off timing of the exact two-or-more-socket tree search at sizes too slow for criterion's
//! ten samples (docs/perf.md): `cargo run --release -p modelopt-optimizer --example
//! socket_dp_time -- 64 64` (threads per socket; the root on socket 0; E5-2660 costs), or
//! `-- domains 8 8 8 8` (threads per L3 domain, 4 domains a socket, the estimates of
//! machines/chiplet-2s-4x8-domain-lines.toml: docs/cla.md §13).
use modelopt_model::ccnuma::bcast::TreeCosts;
use modelopt_model::placed_tree::RootedTreeSpace;
use modelopt_optimizer::rooted_trees;
use modelopt_optimizer::rooted_trees::TreeSearch;
use modelopt_optimizer::Objective;

/// The broadcast's cost constants of a bundled machine.
fn bundled(name: &str) -> TreeCosts {
    let m = modelopt_model::machine::load(name).unwrap_or_else(|e| panic!("{e}"));
    match m.model::<modelopt_model::ccnuma::Ccnuma>() {
        Some(c) => c.tree_costs(),
        None => panic!("{name} is not a ccnuma machine"),
    }
}

fn main() {
    let domains = std::env::args().nth(1).is_some_and(|a| a == "domains");
    let counts: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let mut thread_sockets = Vec::new();
    for (s, &c) in counts.iter().enumerate() {
        thread_sockets.extend(std::iter::repeat_n(s as u32, c as usize));
    }
    let space = RootedTreeSpace {
        threads: thread_sockets.len() as u32,
        thread_sockets,
        root_thread: 0,
        pricing: std::sync::Arc::new(bundled(if domains {
            "chiplet-2s-4x8-domain-lines"
        } else {
            "sandy-bridge-e5-2660"
        })),
        capacity: None,
    };
    let t0 = std::time::Instant::now();
    match rooted_trees::optimal(&space, TreeSearch::Dp, &Objective::Min) {
        Ok(found) => println!(
            "{counts:?}: {:.3} s, t_min {:.1} ns, t_max {:.1} ns, exact {}, {} DP transitions",
            t0.elapsed().as_secs_f64(),
            found.cost.min_ns,
            found.cost.max_ns,
            found.exact(),
            found.trees
        ),
        Err(e) => println!("{counts:?}: {e}"),
    }
}
