//! Sweeps: row counts, order, winners and determinism (issue 5).

use modelopt_model::{machine, BufferStates, Collective, Machine, Params, Request};
use modelopt_optimizer::sweep::{log_sizes, Row, Sweep, SweepError};
use modelopt_optimizer::{tune, Objective, SearchOptions};

fn load(name: &str) -> Machine {
    machine::load(name).unwrap()
}

fn rows_of(sweep: &Sweep<'_>) -> Vec<Row> {
    sweep.rows().collect()
}

#[test]
fn barrier_sweep_has_one_row_per_thread_count_and_matches_table_b2() {
    let phi = load("xeon-phi");
    let sweep = Sweep::new(vec![&phi], vec![Collective::Barrier], (2..=60).collect()).unwrap();
    let rows = rows_of(&sweep);
    assert_eq!(rows.len(), 59);
    assert!(rows
        .iter()
        .all(|r| r.winner && r.algorithm == "dissemination"));
    let threads: Vec<u32> = rows.iter().map(|r| r.threads).collect();
    assert_eq!(threads, (2..=60).collect::<Vec<_>>());
    // Seed 000 Table B.2, a few rows.
    let at = |n: u32| rows.iter().find(|r| r.threads == n).unwrap().params.clone();
    assert_eq!(
        at(2),
        Params::Dissemination {
            degree: 1,
            rounds: 1
        }
    );
    assert_eq!(
        at(26),
        Params::Dissemination {
            degree: 3,
            rounds: 3
        }
    );
    assert_eq!(
        at(28),
        Params::Dissemination {
            degree: 6,
            rounds: 2
        }
    );
    assert_eq!(
        at(60),
        Params::Dissemination {
            degree: 4,
            rounds: 3
        }
    );
}

#[test]
fn every_algorithm_gets_a_row_where_it_applies() {
    let phi = load("xeon-phi");
    let mut sweep = Sweep::new(vec![&phi], vec![Collective::Bcast], (2..=10).collect()).unwrap();
    // One small item: only the small tree applies (the large broadcasts need a size).
    assert_eq!(rows_of(&sweep).len(), 9);
    // 64 B fits the notification line and is a message: all three apply.
    sweep.sizes = vec![64];
    let rows = rows_of(&sweep);
    assert_eq!(rows.len(), 27);
    let algorithms: Vec<&str> = rows[..3].iter().map(|r| r.algorithm.as_str()).collect();
    assert_eq!(algorithms, ["small-tree", "pipelined", "flat-tree"]);
    // Exactly one winner per point, and it is the tuner's best.
    for chunk in rows.chunks(3) {
        assert_eq!(chunk.iter().filter(|r| r.winner).count(), 1);
        let winner = chunk.iter().find(|r| r.winner).unwrap();
        let request = Request::new(Collective::Bcast, winner.threads)
            .unwrap()
            .with_size(64)
            .unwrap();
        let tuning = tune(&phi, &request, &SearchOptions::new(Objective::Min, 1), None).unwrap();
        let best = tuning.best().unwrap();
        assert_eq!(best.algorithm, winner.algorithm);
        assert_eq!(best.scored.params, winner.params);
    }
    // A size above one line: the small tree drops out, two rows per point.
    sweep.sizes = vec![8192];
    assert_eq!(rows_of(&sweep).len(), 18);
}

#[test]
fn rows_come_in_machine_collective_state_size_threads_order() {
    let phi = load("xeon-phi");
    let snb = load("sandy-bridge-e5-2670");
    let mut sweep = Sweep::new(
        vec![&phi, &snb],
        vec![Collective::Bcast, Collective::Barrier, Collective::Reduce],
        (2..=40).collect(),
    )
    .unwrap();
    sweep.states = vec![BufferStates::default()];
    let mut rows = sweep.rows();
    let all: Vec<Row> = rows.by_ref().collect();
    let stats = rows.stats();
    // Sandy Bridge runs at most 32 threads: 8 thread counts × 3 collectives are beyond it.
    assert_eq!(stats.beyond_machine, 24);
    assert_eq!(stats.points, 2 * 3 * 39);
    assert_eq!(stats.rows, all.len() as u64);
    // phi: 39 × 3 (one row each at size 0); snb: 31 × 3.
    assert_eq!(all.len(), 39 * 3 + 31 * 3);
    let key = |r: &Row| {
        (
            usize::from(r.machine != "xeon-phi"),
            r.collective,
            r.size_bytes,
            r.threads,
        )
    };
    assert!(all.windows(2).all(|w| key(&w[0]) < key(&w[1])));
}

#[test]
fn extrapolation_is_opt_in() {
    let snb = load("sandy-bridge-e5-2670");
    let mut sweep = Sweep::new(vec![&snb], vec![Collective::Barrier], vec![16, 64]).unwrap();
    assert_eq!(rows_of(&sweep).len(), 1);
    sweep.extrapolate = true;
    assert_eq!(rows_of(&sweep).len(), 2);
}

#[test]
fn size_sweeps_on_a_log_axis() {
    let phi = load("xeon-phi");
    let mut sweep = Sweep::new(vec![&phi], vec![Collective::Bcast], vec![48]).unwrap();
    sweep.sizes = log_sizes(32, 1 << 20);
    let rows = rows_of(&sweep);
    // 32 B and 64 B: three algorithms; 128 B .. 1 MiB (14 sizes): two.
    assert_eq!(rows.len(), 2 * 3 + 14 * 2);
    let sizes: Vec<u64> = rows
        .iter()
        .filter(|r| r.winner)
        .map(|r| r.size_bytes)
        .collect();
    assert_eq!(sizes, log_sizes(32, 1 << 20));
}

#[test]
fn results_do_not_depend_on_threads_or_chunking() {
    let phi = load("xeon-phi");
    let snb = load("sandy-bridge-e5-2670");
    let mut sweep = Sweep::new(
        vec![&phi, &snb],
        vec![Collective::Bcast, Collective::Reduce],
        (2..=32).collect(),
    )
    .unwrap();
    sweep.sizes = vec![0, 64];
    let reference = serde_json::to_string(&rows_of(&sweep)).unwrap();
    for (threads, chunk) in [(1, 1), (2, 7), (3, 1000)] {
        sweep.chunk = chunk;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let again = pool.install(|| serde_json::to_string(&rows_of(&sweep)).unwrap());
        assert_eq!(again, reference, "{threads} threads, chunk {chunk}");
    }
}

#[test]
fn callback_can_stop_early() {
    let phi = load("xeon-phi");
    let sweep = Sweep::new(vec![&phi], vec![Collective::Barrier], (2..=200).collect()).unwrap();
    let mut seen = 0;
    let result = sweep.for_each(|_| {
        seen += 1;
        if seen == 5 {
            Err("enough")
        } else {
            Ok(())
        }
    });
    assert_eq!(result, Err("enough"));
    assert_eq!(seen, 5);
}

#[test]
fn bad_sweeps_are_errors() {
    let phi = load("xeon-phi");
    assert!(matches!(
        Sweep::new(vec![&phi], vec![Collective::Barrier], vec![]),
        Err(SweepError::Empty(_))
    ));
    assert!(matches!(
        Sweep::new(vec![&phi], vec![Collective::Barrier], vec![1]),
        Err(SweepError::Request(_))
    ));
    let err = Sweep::new(vec![&phi], vec![Collective::Shift], vec![4]).unwrap_err();
    assert!(err.to_string().contains("no model for shift"), "{err}");
    let mut sweep = Sweep::new(vec![&phi], vec![Collective::Bcast], vec![4]).unwrap();
    sweep.algorithms = vec!["nope".into()];
    let err = sweep.check().unwrap_err().to_string();
    assert!(
        err.contains("`nope`") && err.contains("small-tree"),
        "{err}"
    );
}

#[test]
fn an_algorithm_filter_keeps_only_its_rows() {
    let phi = load("xeon-phi");
    let mut sweep = Sweep::new(vec![&phi], vec![Collective::Bcast], (2..=6).collect()).unwrap();
    sweep.sizes = vec![64];
    sweep.algorithms = vec!["pipelined".into(), "flat-tree".into()];
    let rows = rows_of(&sweep);
    assert_eq!(rows.len(), 10);
    assert!(rows.iter().all(|r| r.algorithm != "small-tree"));
    assert_eq!(rows.iter().filter(|r| r.winner).count(), 5);
}
