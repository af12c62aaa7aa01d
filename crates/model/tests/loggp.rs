//! Message-passing clusters (family `loggp`): every formula against a hand-worked value under
//! round Hockney numbers, the point-to-point models, known crossovers, laws as proptests, typed
//! errors, and bad machine files.

mod common;
use common::{error_of, line_of};

use modelopt_model::loggp::{algorithms::Kind, LogGp, P2p};
use modelopt_model::machine::{from_text, load, Machine};
use modelopt_model::{Algorithm, Collective, ModelError, Params, Request, Space, SpaceOptions};
use proptest::prelude::*;

/// Hockney with α = 1 µs = 1000 ns, β = 0.001 µs/B = 1 ns/B, γ = 0.0005 µs/B = 0.5 ns/B,
/// so T(m) = G(m) = 1000 + m ns and γm = m/2 ns.
const HOCKNEY: &str = r#"
name = "round-hockney"
family = "loggp"
description = "round numbers"
max_threads = 4096
model = "hockney"

[hockney]
latency = { value = 1.0, unit = "us", source = "test" }
per_byte = { value = 0.001, unit = "us/B", source = "test" }

[compute]
gamma = { value = 0.0005, unit = "us/B", source = "test" }
"#;

fn hockney() -> Machine {
    from_text("hockney.toml", HOCKNEY).unwrap()
}

fn request(collective: Collective, p: u32, m: u64) -> Request {
    Request::new(collective, p)
        .and_then(|r| r.with_size(m))
        .unwrap()
}

fn algorithm<'m>(
    machine: &'m Machine,
    collective: Collective,
    name: &str,
) -> Box<dyn Algorithm + 'm> {
    machine
        .algorithms_for(collective)
        .into_iter()
        .find(|a| a.name() == name)
        .unwrap_or_else(|| panic!("no {collective} algorithm {name}"))
}

fn cost(
    machine: &Machine,
    collective: Collective,
    name: &str,
    p: u32,
    m: u64,
    params: Params,
) -> f64 {
    let a = algorithm(machine, collective, name);
    let c = a.cost(&request(collective, p, m), &params).unwrap();
    assert_eq!(c.min_ns, c.max_ns, "the family has no min-max range");
    c.min_ns
}

fn seg(s: i64) -> Params {
    Params::named([("segment", s)])
}

fn close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() < 1e-6 * expected.max(1.0),
        "{actual} != {expected}"
    );
}

#[test]
fn every_algorithm_name_the_exporter_relies_on_exists() {
    let m = hockney();
    let names = |c: Collective| -> Vec<&'static str> {
        m.algorithms_for(c).iter().map(|a| a.name()).collect()
    };
    assert_eq!(
        names(Collective::Bcast),
        [
            "linear",
            "chain",
            "pipeline",
            "split-binary",
            "binary",
            "binomial",
            "knomial",
            "scatter-rd-allgather",
            "scatter-ring-allgather"
        ]
    );
    assert_eq!(
        names(Collective::Barrier),
        [
            "linear",
            "double-ring",
            "recursive-doubling",
            "bruck",
            "tree"
        ]
    );
    assert_eq!(
        names(Collective::Reduce),
        [
            "linear",
            "chain",
            "pipeline",
            "binary",
            "binomial",
            "in-order-binary",
            "rabenseifner"
        ]
    );
    assert_eq!(
        names(Collective::Allreduce),
        [
            "linear",
            "nonoverlapping",
            "recursive-doubling",
            "ring",
            "segmented-ring",
            "rabenseifner"
        ]
    );
    assert_eq!(
        names(Collective::Allgather),
        [
            "linear",
            "bruck",
            "recursive-doubling",
            "ring",
            "neighbor-exchange"
        ]
    );
}

#[test]
fn bcast_formulas_under_hockney() {
    let h = hockney();
    let b = Collective::Bcast;
    // Binomial, p = 8, m = 1 KiB: ⌈log2 8⌉(α + mβ) = 3 · (1000 + 1024) = 6072 ns
    // (Thakur, Rabenseifner & Gropp 2005 §4.2).
    close(cost(&h, b, "binomial", 8, 1024, seg(0)), 6072.0);
    // Linear, p = 8: (p − 1)(α + mβ) = 7 · 2024 = 14168.
    close(cost(&h, b, "linear", 8, 1024, Params::None), 14168.0);
    // Pipeline, p = 4, m = 4096 in 1 KiB segments (n_s = 4): (p + n_s − 2)(α + sβ)
    // = 6 · 2024 = 12144 (Pješivac-Grbović et al. 2007).
    close(cost(&h, b, "pipeline", 4, 4096, seg(1024)), 12144.0);
    // Chain with fan-out 2, p = 5, m = 2048 in two 1 KiB segments: chains {1,2}, {3,4}. The first
    // segment reaches rank 4 at G + 2T = 3 · 2024 = 6072 (rank 2 at 2T = 4048); the root feeds two
    // chains, so each further segment costs 2G = 4048: 6072 + 4048 = 10120.
    close(
        cost(
            &h,
            b,
            "chain",
            5,
            2048,
            Params::named([("fanout", 2), ("segment", 1024)]),
        ),
        10120.0,
    );
    // Binary, p = 7, unsegmented: rank 6 is the second child of the second child of the root:
    // 2T + 2G = 4 · 2024 = 8096.
    close(cost(&h, b, "binary", 7, 1024, seg(0)), 8096.0);
    // Split binary, p = 7, m = 2048: the binary tree with ⌈m/2⌉ = 1024 B (8096) and the swap of
    // halves T(1024) = 2024: 10120.
    close(cost(&h, b, "split-binary", 7, 2048, seg(0)), 10120.0);
    // 3-nomial, p = 9, m = 0: (k − 1)⌈log_k p⌉ α = 2 · 2 · 1000 = 4000.
    close(
        cost(
            &h,
            b,
            "knomial",
            9,
            0,
            Params::named([("radix", 3), ("segment", 0)]),
        ),
        4000.0,
    );
    // Scatter + recursive-doubling allgather, p = 8, m = 8192: scatter T(4096) + T(2048) +
    // T(1024) = 3000 + 7168 = 10168, allgather of c = 1024: T(1024) + T(2048) + T(4096) = 10168;
    // 20336 = (2 log2 p)α + 2(p−1)/p·mβ = 6000 + 14336 (Thakur et al. 2005 §4.2).
    close(
        cost(&h, b, "scatter-rd-allgather", 8, 8192, Params::None),
        20336.0,
    );
    // Scatter + ring allgather: 10168 + 7 · T(1024) = 10168 + 14168 = 24336
    // = (log2 p + p − 1)α + 2(p−1)/p·mβ = 10000 + 14336.
    close(
        cost(&h, b, "scatter-ring-allgather", 8, 8192, Params::None),
        24336.0,
    );
}

#[test]
fn barrier_formulas_under_hockney() {
    let h = hockney();
    let b = Collective::Barrier;
    // Every message is empty: T(0) = G(0) = α = 1000.
    // Linear, p = 8: 2((p − 2)G + T) = 2 · 7000 = 14000.
    close(cost(&h, b, "linear", 8, 0, Params::None), 14000.0);
    // Double ring: 2p·T(0) = 16000.
    close(cost(&h, b, "double-ring", 8, 0, Params::None), 16000.0);
    // Recursive doubling: log2 8 = 3 exchanges; p = 6: log2 4 = 2 exchanges + 2 extra steps.
    close(
        cost(&h, b, "recursive-doubling", 8, 0, Params::None),
        3000.0,
    );
    close(
        cost(&h, b, "recursive-doubling", 6, 0, Params::None),
        4000.0,
    );
    // Bruck radix 2, p = 8: 3 rounds of one message; radix 3: ⌈log3 8⌉ = 2 rounds of
    // (k − 2)G + T = 2000 each.
    let radix = |k| Params::named([("radix", k)]);
    close(cost(&h, b, "bruck", 8, 0, radix(2)), 3000.0);
    close(cost(&h, b, "bruck", 8, 0, radix(3)), 4000.0);
    // Radix 16 on 5 ranks: one round with only the p − 1 = 4 existing peers: 4 · 1000.
    close(cost(&h, b, "bruck", 5, 0, radix(16)), 4000.0);
    // Radix 3 on 4 ranks: round 0 signals 2 peers (2000), round 1 (distance 3) one (1000).
    close(cost(&h, b, "bruck", 4, 0, radix(3)), 3000.0);
    // Tree: binomial fan-in and fan-out, 2 · 3 · 1000.
    close(cost(&h, b, "tree", 8, 0, Params::None), 6000.0);
}

#[test]
fn reduce_formulas_under_hockney() {
    let h = hockney();
    let r = Collective::Reduce;
    // m = 1024: T = 2024, γm = 512.
    // Binomial, p = 8: ⌈log2 p⌉(α + mβ + mγ) = 3 · 2536 = 7608 (Thakur et al. 2005 §4.5).
    close(cost(&h, r, "binomial", 8, 1024, seg(0)), 7608.0);
    // Linear: (p − 1)(α + mβ + mγ) = 7 · 2536 = 17752.
    close(cost(&h, r, "linear", 8, 1024, Params::None), 17752.0);
    // In-order binary, p = 7: the binary tree 4 · 2536 = 10144, then T(m) = 2024 to the root.
    close(cost(&h, r, "in-order-binary", 7, 1024, seg(0)), 12168.0);
    // Pipeline, p = 4, m = 2048 in 1 KiB segments: (p + n_s − 2)(α + sβ + sγ) = 4 · 2536.
    close(cost(&h, r, "pipeline", 4, 2048, seg(1024)), 10144.0);
    // Rabenseifner, p = 8, m = 8192: halving Σ (T + γ) over 4096, 2048, 1024 B = 10168 + 3584,
    // gather 10168: 23920 = 2 log2 p·α + 2(p−1)/p·mβ + (p−1)/p·mγ = 6000 + 14336 + 3584.
    close(cost(&h, r, "rabenseifner", 8, 8192, Params::None), 23920.0);
    // p = 6: one extra step T(m) + γm = 9192 + 4096 first, then Rabenseifner on 4 ranks:
    // halving (T(4096) + 2048) + (T(2048) + 1024) = 7144 + 4072 = 11216, gather 5096 + 3048:
    // 13288 + 11216 + 8144 = 32648.
    close(cost(&h, r, "rabenseifner", 6, 8192, Params::None), 32648.0);
}

#[test]
fn allreduce_formulas_under_hockney() {
    let h = hockney();
    let a = Collective::Allreduce;
    // m = 8192: T(m) = 9192, γm = 4096.
    // Recursive doubling, p = 8: log2 p (α + mβ + mγ) = 3 · 13288 = 39864 (Thakur §4.4).
    close(
        cost(&h, a, "recursive-doubling", 8, 8192, Params::None),
        39864.0,
    );
    // p = 6: fold in 13288, 2 rounds 26576, hand back 9192: 49056.
    close(
        cost(&h, a, "recursive-doubling", 6, 8192, Params::None),
        49056.0,
    );
    // Ring, p = 8, c = 1024: 7 · (2024 + 512) + 7 · 2024 = 31920
    // = 2(p−1)α + 2(p−1)/p·mβ + (p−1)/p·mγ = 14000 + 14336 + 3584.
    close(cost(&h, a, "ring", 8, 8192, Params::None), 31920.0);
    // Rabenseifner, p = 8: 13752 + 10168 = 23920 = 2 log2 p·α + 2(p−1)/p·mβ + (p−1)/p·mγ.
    close(cost(&h, a, "rabenseifner", 8, 8192, Params::None), 23920.0);
    // Rabenseifner, p = 6: fold 2 ranks in (13288), halving on 4 ranks (7144 + 4072 = 11216),
    // allgather (5096 + 3048 = 8144), hand the result back (9192): 41840.
    close(cost(&h, a, "rabenseifner", 6, 8192, Params::None), 41840.0);
    // Segmented ring, p = 8, c = 1024 in two 512 B segments: each reduce-scatter step
    // T(512) + γ·512 + max(G(512), γ·512) = 1512 + 256 + 1512 = 3280; 7 · 3280 + 7 · 2024.
    close(
        cost(&h, a, "segmented-ring", 8, 8192, seg(512)),
        22960.0 + 14168.0,
    );
    // Unsegmented (segment 0) is the ring.
    close(cost(&h, a, "segmented-ring", 8, 8192, seg(0)), 31920.0);
    // Linear, p = 4, m = 1024: linear reduce 3 · 2536 + linear bcast 3 · 2024 = 13680.
    close(cost(&h, a, "linear", 4, 1024, Params::None), 13680.0);
    // Non-overlapping, p = 8, m = 1024: binomial reduce 7608 + binomial bcast 6072.
    close(
        cost(&h, a, "nonoverlapping", 8, 1024, Params::None),
        13680.0,
    );
}

#[test]
fn allgather_formulas_under_hockney() {
    let h = hockney();
    let g = Collective::Allgather;
    // Each rank contributes m = 1024.
    // Ring, p = 8: (p − 1)(α + mβ) = 14168 (Thakur §4.1).
    close(cost(&h, g, "ring", 8, 1024, Params::None), 14168.0);
    // Recursive doubling, p = 8: T(1024) + T(2048) + T(4096) = 10168 = log2 p·α + (p−1)mβ.
    close(
        cost(&h, g, "recursive-doubling", 8, 1024, Params::None),
        10168.0,
    );
    // Bruck radix 2, p = 8: the same blocks, 10168; p = 5: blocks 1, 2, 1:
    // 2024 + 3048 + 2024 = 7096 = ⌈log2 5⌉α + (p−1)mβ = 3000 + 4096.
    let radix = |k| Params::named([("radix", k)]);
    close(cost(&h, g, "bruck", 8, 1024, radix(2)), 10168.0);
    close(cost(&h, g, "bruck", 5, 1024, radix(2)), 7096.0);
    // Bruck radix 3, p = 5: round 1 sends 1 block to two peers (G(1024) + T(1024) = 4048),
    // round 2 (distance 3) one message of min(3, 5 − 3) = 2 blocks (T(2048) = 3048): 7096.
    close(cost(&h, g, "bruck", 5, 1024, radix(3)), 7096.0);
    // Neighbor exchange, p = 8: T(m) + (p/2 − 1)T(2m) = 2024 + 3 · 3048 = 11168 (Chen et al.).
    close(
        cost(&h, g, "neighbor-exchange", 8, 1024, Params::None),
        11168.0,
    );
    // Linear, p = 4: gather 2G + T = 6072, bcast of 4096 B: 3 · 5096 = 15288.
    close(cost(&h, g, "linear", 4, 1024, Params::None), 21360.0);
}

#[test]
fn point_to_point_models_by_hand() {
    // LogGP: L = 1 µs, o = 0.3 µs, g = 0.4 µs, G = 1 ns/B.
    let loggp = P2p::LogGp {
        latency: 1000.0,
        overhead: 300.0,
        gap: 400.0,
        gap_per_byte: 1.0,
    };
    // T(1025) = L + 2o + 1024G = 1000 + 600 + 1024; G(1025) = max(g, o) + 1024G = 1424.
    assert_eq!(loggp.time(1025), 2624.0);
    assert_eq!(loggp.gap(1025), 1424.0);
    assert_eq!(loggp.time(0), 1600.0);
    assert_eq!(loggp.send_overhead(1 << 20), 300.0);
    // LogP: L = 5, o = 1, g = 2 µs, w = 16 B; 40 B is k = 3 small messages.
    let logp = P2p::LogP {
        latency: 5000.0,
        overhead: 1000.0,
        gap: 2000.0,
        packet: 16,
    };
    // T = L + 2o + (k − 1)max(g, o) = 5000 + 2000 + 4000; G = k·max(g, o) = 6000; o_s = k·o.
    assert_eq!(logp.time(40), 11000.0);
    assert_eq!(logp.gap(40), 6000.0);
    assert_eq!(logp.send_overhead(40), 3000.0);
    assert_eq!(logp.time(0), 7000.0);
    // Hockney: T = G = α + mβ.
    let hock = P2p::Hockney {
        alpha: 1000.0,
        beta: 1.0,
    };
    assert_eq!(hock.time(24), 1024.0);
    assert_eq!(hock.gap(24), 1024.0);
    assert_eq!(hock.recv_overhead(24), 0.0);
}

const PLOGP: &str = r#"
name = "tiny-plogp"
family = "loggp"
description = "PLogP with two-point tables"
max_threads = 64
model = "plogp"

[plogp]
latency = { value = 2.0, unit = "us", source = "test" }
send_overhead = [
  { size = 0, value = 0.5, unit = "us", source = "test" },
  { size = 1000, value = 1.0, unit = "us", source = "test" },
]
recv_overhead = [ { size = 0, value = 0.5, unit = "us", source = "test" } ]
gap = [
  { size = 0, value = 1.0, unit = "us", source = "test" },
  { size = 1000, value = 3.0, unit = "us", source = "test" },
]

[compute]
gamma = { value = 0.0, unit = "us/B", source = "test" }
"#;

#[test]
fn plogp_tables_price_linear_broadcast() {
    let m = from_text("plogp.toml", PLOGP).unwrap();
    let model: &LogGp = m.model().unwrap();
    // g(500) = 1 + 500 · (2/1000) = 2 µs; T(500) = L + g(500) = 4 µs.
    assert_eq!(model.p2p.time(500), 4000.0);
    // Linear bcast, p = 5: L + (p − 1)g(m) = 2000 + 4 · 2000 = 10000 ns (Pješivac-Grbović et al.
    // 2007, PLogP linear broadcast), which is (p − 2)G + T.
    close(
        cost(&m, Collective::Bcast, "linear", 5, 500, Params::None),
        10000.0,
    );
    // Binomial, p = 4: ⌈log2 4⌉(L + g(m)) = 8000; with G < T the root's second send (to rank 1)
    // arrives at G + T = 6000, rank 3 at 2T = 8000.
    close(
        cost(&m, Collective::Bcast, "binomial", 4, 500, seg(0)),
        8000.0,
    );
    // Above the last point the last slope continues: g(2000) = 3 + 1000 · 0.002 = 5 µs.
    assert_eq!(model.p2p.gap(2000), 5000.0);
}

#[test]
fn pipelining_is_limited_by_the_cpu_overheads_under_logp() {
    // LogP with L = 5 µs, o = 3 µs > g = 2 µs and packets larger than any message (k = 1):
    // T = L + 2o = 11 µs, G = max(g, o) = 3 µs, o_s = o_r = 3 µs.
    let text = r#"
name = "logp-cpu"
family = "loggp"
description = "overhead-bound LogP"
max_threads = 16
model = "logp"
[logp]
latency = { value = 5.0, unit = "us", source = "test" }
overhead = { value = 3.0, unit = "us", source = "test" }
gap = { value = 2.0, unit = "us", source = "test" }
packet = { value = 1048576, unit = "B", source = "test" }
[compute]
gamma = { value = 0.0, unit = "us/B", source = "test" }
"#;
    let m = from_text("logp.toml", text).unwrap();
    // Pipeline over p = 3 in two 1 KiB segments: the first takes 2T = 22 µs; a middle rank
    // receives and forwards every segment, c·o_s + o_r = 6 µs of CPU, more than the gap G = 3:
    // 22 + 6 = 28 µs.
    close(
        cost(&m, Collective::Bcast, "pipeline", 3, 2048, seg(1024)),
        28000.0,
    );
    // Linear bcast, p = 4: (p − 2)·max(g, o) + L + 2o = 6 + 11 = 17 µs.
    close(
        cost(&m, Collective::Bcast, "linear", 4, 8, Params::None),
        17000.0,
    );
}

#[test]
fn scatter_allgather_beats_binomial_for_large_messages_at_64_ranks() {
    let m = load("cluster-example").unwrap();
    let b = Collective::Bcast;
    // cluster-example (LogGP): L = 1000 ns, o = 300, g = 400, G = 0.08 ns/B.
    // 1 MiB at p = 64: binomial ≈ 6 · T(1 MiB) = 6 · (1600 + 83886) ≈ 513 µs; scatter + ring
    // allgather ≈ scatter (≈ 6 · 1600 + 63/64 · 83886) + 63 · T(16 KiB) (≈ 63 · 2911)
    // ≈ 92 + 183 ≈ 276 µs.
    let big = 1 << 20;
    let binomial = cost(&m, b, "binomial", 64, big, seg(0));
    let ring = cost(&m, b, "scatter-ring-allgather", 64, big, Params::None);
    let rd = cost(&m, b, "scatter-rd-allgather", 64, big, Params::None);
    assert!(ring < binomial && rd < binomial, "{ring} {rd} {binomial}");
    assert!((500_000.0..530_000.0).contains(&binomial), "{binomial}");
    // 8 bytes: binomial 6 · T(8) ≈ 9.6 µs; scatter + ring ≥ 69 messages ≈ 110 µs.
    let binomial = cost(&m, b, "binomial", 64, 8, seg(0));
    let ring = cost(&m, b, "scatter-ring-allgather", 64, 8, Params::None);
    assert!(binomial < ring, "{binomial} {ring}");
    close(binomial, 6.0 * (1600.0 + 7.0 * 0.08));
}

#[test]
fn ring_allreduce_beats_recursive_doubling_for_large_vectors() {
    let h = hockney();
    let a = Collective::Allreduce;
    // Hockney, p = 16, m = 1 MiB: recursive doubling 4(α + mβ + mγ) ≈ 4 · 1.57 ms ≈ 6.3 ms;
    // ring 2 · 15α + 2 · 15/16 · mβ + 15/16 · mγ ≈ 0.03 + 1.97 + 0.49 ≈ 2.5 ms.
    let rd = cost(&h, a, "recursive-doubling", 16, 1 << 20, Params::None);
    let ring = cost(&h, a, "ring", 16, 1 << 20, Params::None);
    assert!(ring < rd, "{ring} {rd}");
    // 8 bytes: recursive doubling 4 · 1012 ≈ 4 µs, ring 30 messages ≈ 30 µs.
    let rd = cost(&h, a, "recursive-doubling", 16, 8, Params::None);
    let ring = cost(&h, a, "ring", 16, 8, Params::None);
    assert!(rd < ring, "{rd} {ring}");
}

#[test]
fn requests_the_model_cannot_serve_are_typed_errors() {
    let h = hockney();
    let threads = |c, name, p, params| {
        let a = algorithm(&h, c, name);
        matches!(
            a.cost(&request(c, p, 1024), &params),
            Err(ModelError::Threads { threads, .. }) if threads == u64::from(p)
        )
    };
    assert!(threads(
        Collective::Allgather,
        "neighbor-exchange",
        7,
        Params::None
    ));
    assert!(threads(
        Collective::Allgather,
        "recursive-doubling",
        6,
        Params::None
    ));
    assert!(threads(
        Collective::Bcast,
        "scatter-rd-allgather",
        12,
        Params::None
    ));
    assert!(threads(Collective::Bcast, "split-binary", 2, seg(0)));
    // Parameters outside their domain, missing or unknown.
    let param = |c, name: &str, params: Params, bad: &str| {
        let a = algorithm(&h, c, name);
        match a.cost(&request(c, 8, 1024), &params) {
            Err(ModelError::Parameter { name, .. } | ModelError::MissingParameter { name, .. }) => {
                assert_eq!(name, bad)
            }
            other => panic!("{other:?}"),
        }
    };
    param(
        Collective::Bcast,
        "chain",
        Params::named([("fanout", 8), ("segment", 0)]),
        "fanout",
    );
    param(
        Collective::Bcast,
        "knomial",
        Params::named([("radix", 1), ("segment", 0)]),
        "radix",
    );
    param(Collective::Bcast, "binomial", seg(-1), "segment");
    param(Collective::Bcast, "binomial", Params::None, "segment");
    param(Collective::Bcast, "linear", seg(0), "segment");
    param(
        Collective::Bcast,
        "pipeline",
        Params::Dissemination {
            degree: 2,
            rounds: 1,
        },
        "degree",
    );
}

#[test]
fn search_spaces_offer_powers_of_two_below_the_message() {
    let h = hockney();
    let a = algorithm(&h, Collective::Bcast, "knomial");
    let space = a
        .space(
            &request(Collective::Bcast, 5, 5000),
            &SpaceOptions::default(),
        )
        .unwrap();
    let Space::Values(lists) = space else {
        panic!("{space:?}")
    };
    // Segments: 0 (not segmented) and 1 KiB, 2 KiB, 4 KiB (below 5000 B); radix 2..=min(p, 16).
    assert_eq!(lists[0].name, "radix");
    assert_eq!(lists[0].values, [2, 3, 4, 5]);
    assert_eq!(lists[1].name, "segment");
    assert_eq!(lists[1].values, [0, 1024, 2048, 4096]);
    let chain = algorithm(&h, Collective::Bcast, "chain");
    let Ok(Space::Values(lists)) = chain.space(
        &request(Collective::Bcast, 64, 1 << 30),
        &SpaceOptions::default(),
    ) else {
        panic!()
    };
    assert_eq!(lists[0].values, (1..=8).collect::<Vec<_>>());
    assert_eq!(lists[1].values.len(), 12, "0 and 2^10 ..= 2^20");
    let fixed = algorithm(&h, Collective::Barrier, "linear");
    assert_eq!(
        fixed.space(
            &request(Collective::Barrier, 4, 0),
            &SpaceOptions::default()
        ),
        Ok(Space::Fixed)
    );
}

#[test]
fn bundled_machines_load_with_their_models() {
    let example = load("cluster-example").unwrap();
    assert_eq!(example.family, "loggp");
    let model: &LogGp = example.model().unwrap();
    assert_eq!(model.p2p.name(), "loggp");
    // Every parameter of the example is an estimate, and says so.
    assert!(example.params().iter().all(|p| p.estimated));
    let tukey = load("tukey-ib").unwrap();
    let model: &LogGp = tukey.model().unwrap();
    assert_eq!(model.p2p.name(), "plogp");
    // The measured table rows are not estimates (only L and γ are).
    let estimated: Vec<String> = tukey
        .estimated_params()
        .into_iter()
        .map(|p| p.key)
        .collect();
    assert_eq!(estimated, ["compute.gamma", "plogp.latency"]);
    // g(1 MiB) = g + (m − 1)G from the 1048576-byte row: 10.664016 + 1048575 · 0.000497 µs
    // = 10.664016 + 521.141775 = 531.805791 µs.
    assert!((model.p2p.gap(1 << 20) - 531_805.791).abs() < 1.0);
    assert_eq!(Kind::ALL.len(), example.algorithms().len());
}

fn with(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

#[test]
fn bad_files_are_located_errors() {
    let err = error_of(&with(HOCKNEY, r#"model = "hockney""#, r#"model = "logpp""#));
    assert!(
        err.contains("unknown point-to-point model `logpp`"),
        "{err}"
    );
    assert!(
        err.contains(&format!(":{}:", line_of(HOCKNEY, "model ="))),
        "{err}"
    );
    let err = error_of(&with(HOCKNEY, r#"model = "hockney""#, r#"model = "loggp""#));
    assert!(
        err.contains("[hockney] is not used by model = \"loggp\""),
        "{err}"
    );
    let err = error_of(&with(
        HOCKNEY,
        "latency = { value = 1.0",
        "latency = { value = -1.0",
    ));
    assert!(
        err.contains("key `hockney.latency`") && err.contains("positive"),
        "{err}"
    );
    assert!(
        err.contains(&format!(":{}:", line_of(HOCKNEY, "latency ="))),
        "{err}"
    );
    let err = error_of(&with(
        HOCKNEY,
        r#"unit = "us/B", source = "test" }"#,
        r#"unit = "ns/B", source = "test" }"#,
    ));
    assert!(err.contains("unit must be \"us/B\""), "{err}");
    let err = error_of(&with(HOCKNEY, "max_threads = 4096", "max_threads = 1"));
    assert!(err.contains("key `max_threads`"), "{err}");
    let err = error_of(&with(HOCKNEY, "[compute]", "bogus = 1\n[compute]"));
    assert!(err.contains("unknown field `bogus`"), "{err}");
    // PLogP: sizes must ascend; tables need a point.
    let text = with(
        PLOGP,
        "{ size = 1000, value = 3.0",
        "{ size = 0, value = 3.0",
    );
    let err = error_of(&text);
    assert!(
        err.contains("key `plogp.gap[1].size`") && err.contains("strictly ascending"),
        "{err}"
    );
    assert!(
        err.contains(&format!(":{}:", line_of(&text, "{ size = 0, value = 3.0"))),
        "{err}"
    );
    let err = error_of(&with(
        PLOGP,
        r#"recv_overhead = [ { size = 0, value = 0.5, unit = "us", source = "test" } ]"#,
        "recv_overhead = []",
    ));
    assert!(
        err.contains("key `plogp.recv_overhead`") && err.contains("at least one"),
        "{err}"
    );
    let err = error_of(&with(
        PLOGP,
        "{ size = 0, value = 1.0",
        "{ size = 0, value = -1.0",
    ));
    assert!(
        err.contains("key `plogp.gap[0]`") && err.contains("negative"),
        "{err}"
    );
    // LogP packets are whole bytes.
    let logp = r#"
name = "x"
family = "loggp"
description = "x"
max_threads = 8
model = "logp"
[logp]
latency = { value = 5.0, unit = "us", source = "t" }
overhead = { value = 1.0, unit = "us", source = "t" }
gap = { value = 2.0, unit = "us", source = "t" }
packet = { value = 16.5, unit = "B", source = "t" }
[compute]
gamma = { value = 0.0, unit = "us/B", source = "t" }
"#;
    let err = error_of(logp);
    assert!(
        err.contains("key `logp.packet`") && err.contains("whole number"),
        "{err}"
    );
    assert!(from_text("ok.toml", &logp.replace("16.5", "16")).is_ok());
    // The bundled PLogP machine with a size out of order: the third o_s point (4 B) moved to 1 B.
    let tukey = common::bundled_text("tukey-ib");
    let text = with(
        tukey,
        "{ size = 4, value = 1.044193",
        "{ size = 1, value = 1.044193",
    );
    let err = error_of(&text);
    assert!(
        err.contains("key `plogp.send_overhead[2].size`") && err.contains("(1 B follows 2 B)"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            ":{}:",
            line_of(&text, "{ size = 1, value = 1.044193")
        )),
        "{err}"
    );
    // A model without its table.
    let bare: String = HOCKNEY
        .lines()
        .filter(|l| {
            !l.starts_with("[hockney]") && !l.starts_with("latency") && !l.starts_with("per_byte")
        })
        .collect::<Vec<_>>()
        .join("\n");
    let err = error_of(&bare);
    assert!(
        err.contains("model = \"hockney\" needs a [hockney] table"),
        "{err}"
    );
}

/// Two levels under Hockney: between nodes α = 1000 ns, β = 1 ns/B (T(1024) = 2024); inside a
/// node of 4 ranks α = 100 ns, β = 0.5 ns/B (T(1024) = 612); γ = 0.5 ns/B.
fn two_level() -> Machine {
    let text = format!(
        "{HOCKNEY}\n[node]\nranks_per_node = 4\n[node.hockney]\n\
         latency = {{ value = 0.1, unit = \"us\", source = \"test\" }}\n\
         per_byte = {{ value = 0.0005, unit = \"us/B\", source = \"test\" }}\n"
    );
    from_text("two-level.toml", &text).unwrap()
}

#[test]
fn two_level_machines_price_each_message_by_its_link() {
    let m = two_level();
    // p = 4 fits one node: everything intra-node. Binomial: 2 · 612 = 1224.
    close(
        cost(&m, Collective::Bcast, "binomial", 4, 1024, seg(0)),
        1224.0,
    );
    // p = 8 on two nodes of 4: the root sends to 4 (across, 2024), then 2 and 1 (inside, +612
    // each after the gap of the previous send); 4 forwards to 6 and 5, 2 to 3, 6 to 7. Last:
    // rank 1 at 2024 + 612 + 612 = 3248 (= T_inter + 2·T_intra).
    close(
        cost(&m, Collective::Bcast, "binomial", 8, 1024, seg(0)),
        3248.0,
    );
    // Ring allgather on two nodes: every step has a pair across nodes: 7 · 2024.
    close(
        cost(&m, Collective::Allgather, "ring", 8, 1024, Params::None),
        14168.0,
    );
    // Recursive-doubling allreduce: distances 1 and 2 stay inside a node (612 + 512 each),
    // distance 4 crosses (2024 + 512): 2 · 1124 + 2536 = 4784.
    close(
        cost(
            &m,
            Collective::Allreduce,
            "recursive-doubling",
            8,
            1024,
            Params::None,
        ),
        4784.0,
    );
    // Double ring of 8 ranks: 2 of the 8 edges cross (3 → 4 and 7 → 0): 2 · (2 · 1000 + 6 · 100).
    close(
        cost(&m, Collective::Barrier, "double-ring", 8, 0, Params::None),
        5200.0,
    );
    // Dissemination: every round has a pair across nodes: 3 · 1000.
    close(
        cost(
            &m,
            Collective::Barrier,
            "bruck",
            8,
            0,
            Params::named([("radix", 2)]),
        ),
        3000.0,
    );
    // Pipeline 0 → 1 → ... → 7 in two 1 KiB segments: one edge (3 → 4) crosses. First segment
    // 6 · 612 + 2024 = 5696; the period is the slowest link's gap, 2024: 7720.
    close(
        cost(&m, Collective::Bcast, "pipeline", 8, 2048, seg(1024)),
        7720.0,
    );
    // Rabenseifner allreduce, m = 8192: halving crosses at distance 4 with 4096 B
    // (5096 + 2048), then stays inside (1124 + 1024, 612 + 512): 10416; the allgather mirrors it
    // without γ: 5096 + 1124 + 612 = 6832. Total 17248.
    close(
        cost(
            &m,
            Collective::Allreduce,
            "rabenseifner",
            8,
            8192,
            Params::None,
        ),
        17248.0,
    );
}

#[test]
fn two_level_files_are_checked() {
    let base = format!(
        "{HOCKNEY}\n[node]\nranks_per_node = 4\n[node.hockney]\n\
         latency = {{ value = 0.1, unit = \"us\", source = \"test\" }}\n\
         per_byte = {{ value = 0.0005, unit = \"us/B\", source = \"test\" }}\n"
    );
    let err = error_of(&with(&base, "ranks_per_node = 4", "ranks_per_node = 1"));
    assert!(
        err.contains("key `node.ranks_per_node`") && err.contains("at least 2"),
        "{err}"
    );
    let p = |k: &str| format!("{k} = {{ value = 1.0, unit = \"us\", source = \"t\" }}\n");
    let extra = format!(
        "{base}[node.loggp]\n{}{}{}gap_per_byte = {{ value = 0.0, unit = \"us/B\", source = \"t\" }}\n",
        p("latency"),
        p("overhead"),
        p("gap")
    );
    let err = error_of(&extra);
    assert!(
        err.contains("[node.loggp] is not used by model = \"hockney\""),
        "{err}"
    );
    let err = error_of(&with(
        &base,
        "latency = { value = 0.1",
        "latency = { value = 0.0",
    ));
    assert!(
        err.contains("key `node.hockney.latency`") && err.contains("positive"),
        "{err}"
    );
    let bare = base.split("[node.hockney]").next().unwrap().to_string();
    let err = error_of(&bare);
    assert!(err.contains("needs a [node.hockney] table"), "{err}");
}

/// Every algorithm with one fixed configuration, for the laws.
fn fixed_params(kind: Kind) -> Vec<Params> {
    match kind.parameters() {
        [] => vec![Params::None],
        ["segment"] => vec![seg(0), seg(1024), seg(65536)],
        ["fanout", "segment"] => vec![
            Params::named([("fanout", 1), ("segment", 0)]),
            Params::named([("fanout", 1), ("segment", 4096)]),
        ],
        ["radix", "segment"] => vec![
            Params::named([("radix", 2), ("segment", 0)]),
            Params::named([("radix", 4), ("segment", 2048)]),
        ],
        ["radix"] => vec![Params::named([("radix", 2)]), Params::named([("radix", 5)])],
        other => panic!("{other:?}"),
    }
}

fn machines() -> Vec<Machine> {
    vec![
        hockney(),
        two_level(),
        from_text("plogp.toml", PLOGP).unwrap(),
        load("cluster-example").unwrap(),
        load("tukey-ib").unwrap(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Costs are finite, non-negative and non-decreasing in the message size, for every
    /// algorithm, configuration and machine.
    #[test]
    fn costs_are_finite_and_non_decreasing_in_size(
        p in 2u32..300,
        small in 0u64..(1 << 22),
        extra in 0u64..(1 << 22),
    ) {
        let large = small + extra;
        for machine in machines() {
            for a in machine.algorithms() {
                let kind = Kind::ALL.into_iter().find(|k| k.name() == a.name() && k.collective() == a.collective()).unwrap();
                for params in fixed_params(kind) {
                    let r1 = request(a.collective(), p, small);
                    let r2 = request(a.collective(), p, large);
                    match (a.cost(&r1, &params), a.cost(&r2, &params)) {
                        (Ok(c1), Ok(c2)) => {
                            prop_assert!(c1.min_ns.is_finite() && c1.min_ns >= 0.0);
                            prop_assert!(c2.min_ns.is_finite());
                            prop_assert!(c1.min_ns <= c2.min_ns * (1.0 + 1e-12),
                                "{} {} {params}: {} B {} ns > {} B {} ns", machine.name, a.name(), small, c1.min_ns, large, c2.min_ns);
                            let terms = a.breakdown(&r1, &params).unwrap();
                            let sum: f64 = terms.iter().map(|t| t.min_ns).sum();
                            prop_assert!((sum - c1.min_ns).abs() <= 1e-9 * c1.min_ns.max(1.0));
                        }
                        (Err(ModelError::Threads { .. }), Err(ModelError::Threads { .. })) => {}
                        (Err(ModelError::Parameter { name, .. }), Err(ModelError::Parameter { .. }))
                            if name == "fanout" && p == 2 => {}
                        (e1, e2) => prop_assert!(false, "{} {params} p={p}: {e1:?} {e2:?}", a.name()),
                    }
                }
            }
        }
    }

    /// A binomial broadcast under Hockney is ⌈log2 p⌉(α + mβ) for every p and m.
    #[test]
    fn binomial_bcast_is_ceil_log2_p_messages(p in 2u32..5000, m in 0u64..(1 << 20)) {
        let h = hockney();
        let rounds = 32 - (p - 1).leading_zeros();
        let expected = f64::from(rounds) * (1000.0 + m as f64);
        let actual = cost(&h, Collective::Bcast, "binomial", p, m, seg(0));
        prop_assert!((actual - expected).abs() < 1e-6 * expected);
    }

    /// A k-nomial broadcast on p = k^j ranks under Hockney is (k − 1)·j·(α + mβ): every level
    /// of the tree costs k − 1 sequential sends on the longest path.
    #[test]
    fn knomial_bcast_on_a_power_of_its_radix(k in 2u32..9, j in 1u32..6, m in 0u64..(1 << 16)) {
        let p = k.pow(j);
        prop_assume!(p <= 1 << 15);
        let h = hockney();
        let expected = f64::from((k - 1) * j) * (1000.0 + m as f64);
        let actual = cost(
            &h,
            Collective::Bcast,
            "knomial",
            p,
            m,
            Params::named([("radix", i64::from(k)), ("segment", 0)]),
        );
        prop_assert!((actual - expected).abs() < 1e-6 * expected, "{actual} {expected}");
    }
}
