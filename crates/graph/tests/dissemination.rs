//! The dissemination barrier in CLa form (`modelopt_graph::dissemination`, docs/cla.md §12):
//! its costs by hand, its graph's structure, and its search (every degree m, exact).

use modelopt_graph::collectives::attach;
use modelopt_graph::dissemination::{self, NAME};
use modelopt_graph::{analyze, default_places, EdgeKind};
use modelopt_model::algorithm::{SpaceOptions, ThreadPlacement};
use modelopt_model::ccnuma::Ccnuma;
use modelopt_model::dissemination::Schedule;
use modelopt_model::machine::{self, Machine};
use modelopt_model::tree::RootedTree;
use modelopt_model::{Algorithm, Collective, Params, Request};
use modelopt_optimizer::search::{rank, rank_naive, SearchOptions};
use modelopt_optimizer::{Exactness, Objective};

// Seed 001 §2.1 (machines/sandy-bridge-e5-2660.toml): R_R = 35, R_Q = 94, R_I = 70, R_QI = 107.
const R_R: f64 = 35.0;
const R_Q: f64 = 94.0;
const R_I: f64 = 70.0;
const R_QI: f64 = 107.0;

fn sandy() -> Machine {
    let mut m = machine::load("sandy-bridge-e5-2660").unwrap();
    attach(&mut m).unwrap();
    m
}

/// The E5-2660's numbers with one core per socket: two threads on two sockets.
fn one_core_per_socket() -> Machine {
    let text = include_str!("../../../machines/sandy-bridge-e5-2660.toml")
        .replace("cores_per_socket = 8", "cores_per_socket = 1")
        .replace("threads_per_core = 2", "threads_per_core = 1")
        .replace("max_threads = 32", "max_threads = 2");
    let mut m = machine::from_text("one-core-per-socket.toml", &text).unwrap();
    attach(&mut m).unwrap();
    m
}

fn dissemination(m: &Machine) -> Box<dyn Algorithm + '_> {
    m.algorithms_for(Collective::Barrier)
        .into_iter()
        .find(|a| a.name() == NAME)
        .unwrap()
}

fn price(m: &Machine, threads: u32, degree: u32) -> (f64, f64) {
    let rounds = Schedule::new(threads, degree).unwrap().round_count();
    let request = Request::new(Collective::Barrier, threads).unwrap();
    let cost = dissemination(m)
        .cost(&request, &Params::Dissemination { degree, rounds })
        .unwrap();
    (cost.min_ns, cost.max_ns)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn two_threads_on_one_socket_by_hand() {
    // One round, one peer each. T_min: each thread's add to the other's counter fetches a line
    // from memory on its own socket (rule 1, R_I); the owner's wait reads it from the adder
    // (rule 4, R_R): R_I + R_R = 105 ns. T_max (n-writers rule, docs/cla.md §6): the poller
    // read the line first (R_I), the add steals it (R_R), the poller re-reads it (R_R):
    // R_I + 2·R_R = 140 ns.
    let (min, max) = price(&sandy(), 2, 1);
    assert!(close(min, R_I + R_R), "{min}");
    assert!(close(max, R_I + 2.0 * R_R), "{max}");
}

#[test]
fn two_threads_on_two_sockets_by_hand() {
    // As above with the peer across QPI: the add fetches the owner's line from memory on the
    // owner's socket, R_QI, and the owner reads it back, R_Q: 107 + 94 = 201 ns. T_max: the
    // owner's first read is from its own memory (R_I), then the steal and the re-read cross
    // the sockets: R_I + 2·R_Q = 258 ns.
    let (min, max) = price(&one_core_per_socket(), 2, 1);
    assert!(close(min, R_QI + R_Q), "{min}");
    assert!(close(max, R_I + 2.0 * R_Q), "{max}");
}

#[test]
fn four_threads_on_one_socket_by_hand() {
    // m = 1: two rounds of the two-thread round, every line fresh (one counter per round):
    // T_min = 2·(R_I + R_R) = 210 ns, T_max = 2·(R_I + 2·R_R) = 280 ns.
    let (min, max) = price(&sandy(), 4, 1);
    assert!(close(min, 2.0 * (R_I + R_R)), "{min}");
    assert!(close(max, 2.0 * (R_I + 2.0 * R_R)), "{max}");
    // m = 2: round 0 has peers T+1, T+2 (two adds, R_I each, done at 2·R_I = 140); T's counter
    // gets the adds of T−1 (its first op) and T−2 (its second, started at R_I = 70). The E3
    // group enters at the latest start, 70, and visits both writes, R_I then R_R (docs/cla.md
    // §5): 70 + 70 + 35 = 175, after T's own adds (140); the wait reads it, + R_R: 210.
    // Round 1 has ⌈4/3⌉ − 1 = 1 peer (T+3): add R_I, 280; wait + R_R: 315 ns.
    let (min, _) = price(&sandy(), 4, 2);
    assert!(close(min, 2.0 * R_I + 2.0 * R_R + R_I + R_R), "{min}");
    // m = 3: one round of three adds, 3·R_I = 210 before the wait; the group enters at the
    // third add of T−3 (start 140) and visits three writes, R_I + 2·R_R: 140 + 140 = 280; the
    // wait, + R_R: 315 ns, as m = 2.
    let (min, _) = price(&sandy(), 4, 3);
    assert!(close(min, 3.0 * R_I + 3.0 * R_R), "{min}");
}

#[test]
fn sixteen_threads_over_two_sockets_by_hand() {
    // Threads 0–7 on socket 0, 8–15 on socket 1 (by id); m = 1, distances 1, 2, 4, 8. An add
    // within a socket costs R_I (the counter is homed at its owner's socket) and the owner's
    // read R_R; across, R_QI and R_Q. A wait starts after its thread's own add. Thread 0:
    // round 0: own add 70; the add of 15 (across) ends 107; wait max(70, 107) + R_Q = 201.
    // Round 1: own add to 2 ends 271; 14's add to 0 starts after 14's round 0 (13 → 14 within
    // the socket: 105) and ends 105 + 107 = 212; wait max(271, 212) + 94 = 365. Round 2: own
    // add to 4 ends 435; 12's add across starts after 12's round 1 (10 → 12 within, both at
    // 175 after round 0's 105: 210), ends 317; wait 435 + 94 = 529. Round 3: own add to 8
    // across ends 529 + 107 = 636; 8's add to 0 ends 636 too (8's rounds end 201, 365, 529 by
    // the same steps on the other socket); wait 636 + 94 = 730 ns. No thread ends later (the
    // rounds across are the same for all, and within a socket every step is cheaper).
    let (min, _) = price(&sandy(), 16, 1);
    assert!(close(min, 730.0), "{min}");
}

#[test]
fn every_wait_depends_on_exactly_the_adds_it_counts_and_no_line_is_stolen() {
    // The reason for one counter line per round (module docs): each wait's E2 sources are the
    // m_k adds of its round, every add feeds exactly one wait, and no line is written after
    // its wait (no E4 edge).
    let m = sandy();
    let sandy: &Ccnuma = m.model().unwrap();
    for n in 2..=20u32 {
        for degree in 1..n {
            let schedule = Schedule::new(n, degree).unwrap();
            let program = dissemination::program(&schedule).unwrap();
            let parents: Vec<Option<u32>> = (0..n).map(|t| (t > 0).then_some(0)).collect();
            let tree = RootedTree::from_parents(&parents).unwrap();
            let (graph, _, _) = analyze(&program, &tree, sandy, &default_places(sandy, n)).unwrap();
            let edges = graph.edges();
            let adds: u64 = schedule.rounds.iter().map(|r| u64::from(r.peers)).sum();
            let e2 = edges.iter().filter(|e| e.2 == EdgeKind::E2).count() as u64;
            assert_eq!(e2, adds * u64::from(n), "n = {n}, m = {degree}");
            assert!(
                edges.iter().all(|e| e.2 != EdgeKind::E4),
                "n = {n}, m = {degree}"
            );
            for &(from, to, kind) in &edges {
                if kind == EdgeKind::E2 {
                    assert!(graph.node(from).text.starts_with("add "));
                    assert!(graph.node(to).text.starts_with("wait "));
                }
            }
        }
    }
}

#[test]
fn the_search_prices_every_degree_and_is_exact() {
    // The space is m = 1..n−1 (the rounds follow): the answer is the least T_min over them,
    // exact, for every n the E5-2660 holds up to 24 threads (both sockets, hyperthreads).
    let m = sandy();
    let algorithm = dissemination(&m);
    for n in [2u32, 3, 5, 8, 9, 13, 16, 17, 24] {
        let request = Request::new(Collective::Barrier, n).unwrap();
        let ranked = rank(algorithm.as_ref(), &request, &SearchOptions::default()).unwrap();
        assert_eq!(ranked.exactness, Exactness::Exact, "n = {n}");
        let best = ranked.best[0].cost.min_ns;
        let least = (1..n)
            .map(|d| price(&m, n, d).0)
            .fold(f64::INFINITY, f64::min);
        assert!(close(best, least), "n = {n}: {best} vs {least}");
    }
}

#[test]
fn a_free_placement_and_wrong_rounds_are_refused_in_words() {
    let m = sandy();
    let algorithm = dissemination(&m);
    let request = Request::new(Collective::Barrier, 8).unwrap();
    let free = SpaceOptions {
        placement: ThreadPlacement::Optimal,
        ..SpaceOptions::default()
    };
    let e = algorithm.space(&request, &free).unwrap_err().to_string();
    assert!(e.contains("rank order"), "{e}");
    // Past the hardware threads (32 on the E5-2660), refused once, in words.
    let e = algorithm
        .space(
            &Request::new(Collective::Barrier, 40).unwrap(),
            &SpaceOptions::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("one thread per hardware thread, and sandy-bridge-e5-2660 has 32"),
        "{e}"
    );
    // 8 threads of degree 2 need ⌈log_3 8⌉ = 2 rounds, not 3.
    let e = algorithm
        .cost(
            &request,
            &Params::Dissemination {
                degree: 2,
                rounds: 3,
            },
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 rounds"), "{e}");
    let e = algorithm
        .cost(
            &request,
            &Params::Dissemination {
                degree: 8,
                rounds: 1,
            },
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("between 1 and"), "{e}");
}

/// The E5-2660's text with one socket of `cores` cores of `per_core` hardware threads, R_R
/// raised to 60 ns (so that the least transfer between cores, 60, is far above R_L = 2.3 and a
/// bound that took R_L for a non-sibling or R_R for a sibling would show).
fn one_socket(cores: u32, per_core: u32) -> Machine {
    let text = include_str!("../../../machines/sandy-bridge-e5-2660.toml")
        .replace("sockets = 2", "sockets = 1")
        .replace(
            "cores_per_socket = 8",
            &format!("cores_per_socket = {cores}"),
        )
        .replace(
            "threads_per_core = 2",
            &format!("threads_per_core = {per_core}"),
        )
        .replace(
            "max_threads = 32",
            &format!("max_threads = {}", cores * per_core),
        )
        .replace("value = 35.0", "value = 60.0");
    assert!(text.contains("value = 60.0"));
    let mut m = machine::from_text("one-socket.toml", &text).unwrap();
    attach(&mut m).unwrap();
    m
}

fn chain_bound(m: &Machine, threads: u32, degree: u32) -> f64 {
    let ccnuma: &Ccnuma = m.model().unwrap();
    let schedule = Schedule::new(threads, degree).unwrap();
    dissemination::chain_bound(&schedule, ccnuma, &default_places(ccnuma, threads))
}

#[test]
fn the_bound_of_two_hyperthreads_counts_r_l_for_the_sibling_it_reads() {
    // One core, two hardware threads, m = 1: each adds to the other's fresh counter (R_I =
    // 70) and reads its own back from its sibling (R_L = 2.3): T_min = 72.3 ns. The bound takes
    // the least add, 60 (R_R here, below R_I), and R_L for the wait, whose last writer shares
    // the core: 62.3 ≤ 72.3 (taking 60 for the wait too would give 120, above the optimum).
    let m = one_socket(1, 2);
    let (min, _) = price(&m, 2, 1);
    assert!(close(min, R_I + 2.3), "{min}");
    assert!(close(chain_bound(&m, 2, 1), 60.0 + 2.3));
    // Two cores, one thread each: no sibling, the wait reads across cores (60): bound 120,
    // T_min R_I + 60 = 130.
    let m = one_socket(2, 1);
    let (min, _) = price(&m, 2, 1);
    assert!(close(min, R_I + 60.0), "{min}");
    assert!(close(chain_bound(&m, 2, 1), 120.0));
}

#[test]
fn the_chain_bound_is_never_above_t_min() {
    // The pruning's contract (`Algorithm::configuration_bound`): every degree, threads with a
    // core each and threads sharing cores (the E5-2660 past 16 threads, one socket of 2 cores
    // × 4 threads, chiplets).
    let cases: Vec<(Machine, Vec<u32>)> = vec![
        (sandy(), vec![2, 3, 5, 8, 9, 12, 16, 17, 20, 24, 32]),
        (one_socket(2, 4), vec![2, 3, 4, 5, 6, 7, 8]),
        (one_socket(3, 3), vec![4, 7, 9]),
        (
            {
                let mut m = machine::load("chiplet-2s-4x8").unwrap();
                attach(&mut m).unwrap();
                m
            },
            vec![9, 24, 40],
        ),
    ];
    for (m, counts) in &cases {
        for &n in counts {
            for degree in 1..n {
                let (min, max) = price(m, n, degree);
                let bound = chain_bound(m, n, degree);
                assert!(
                    bound <= min + 1e-9 && min <= max + 1e-9,
                    "{}: n = {n}, m = {degree}: bound {bound} > T_min {min}",
                    m.name
                );
            }
        }
    }
}

#[test]
fn pruning_by_the_bound_keeps_the_ranking_of_pricing_every_degree() {
    // An optimum is never worse than any candidate, and the kept rows are those of plain
    // enumeration (rank_naive prices every degree), under min and max.
    // Below a few dozen threads the bound (35 ns an op on the E5-2660) stays under the fifth
    // best and prunes nothing; on 48 cores of one socket (60 ns an op, m = 1 at about
    // 6 · (70 + 60) ns) it prunes the large degrees.
    let cases = [
        (sandy(), vec![6u32, 16, 24, 32]),
        (one_socket(48, 1), vec![48]),
    ];
    for (m, counts) in &cases {
        let algorithm = dissemination(m);
        for objective in [Objective::Min, Objective::Max] {
            for &n in counts {
                let request = Request::new(Collective::Barrier, n).unwrap();
                let options = SearchOptions::new(objective, 5);
                let fast = rank(algorithm.as_ref(), &request, &options).unwrap();
                let naive = rank_naive(algorithm.as_ref(), &request, &options).unwrap();
                assert_eq!(fast.best, naive.best, "n = {n}, {objective}");
                assert_eq!(fast.exactness, Exactness::Exact);
                if n == 48 {
                    assert!(fast.stats.pruned >= 10, "{:?}", fast.stats);
                }
            }
        }
    }
}
