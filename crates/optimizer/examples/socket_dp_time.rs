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
        pricing: std::sync::Arc::new(if domains {
            TreeCosts {
                local: 1.43,
                socket: 35.0,
                remote: 223.5,
                memory: 122.0,
                remote_memory: 159.0,
                domains: Some(modelopt_model::placed_tree::Domains {
                    per_socket: 4,
                    remote_domain: 164.5,
                }),
            }
        } else {
            TreeCosts {
                local: 2.3,
                socket: 35.0,
                remote: 94.0,
                memory: 70.0,
                remote_memory: 107.0,
                domains: None,
            }
        }),
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
