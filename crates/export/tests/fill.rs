//! Filling a table from the tuner on a bundled machine: every cell is the tuner's answer, equal
//! neighbours merge, and a target that cannot express the model's best gets the best it can,
//! with a note.

use modelopt_export::{fill, Decision, Grid};
use modelopt_model::{machine, Collective, Request};
use modelopt_optimizer::{tune, Objective, SearchOptions};

fn options() -> SearchOptions {
    SearchOptions::new(Objective::Min, 1)
}

#[test]
fn every_cell_is_the_tuners_best() {
    let m = machine::load("xeon-phi").unwrap();
    let grid = Grid::powers_of_two((2, 8), (0, 256)).unwrap();
    let t = fill(&m, &grid, &[Collective::Bcast], &options(), &|_, _| true).unwrap();
    assert!(t.notes.is_empty());
    let comms = &t.collectives[0].comms;
    for &r in &grid.ranks {
        for &s in &grid.sizes {
            let req = Request::new(Collective::Bcast, r)
                .unwrap()
                .with_size(s)
                .unwrap();
            let best = tune(&m, &req, &options(), None).unwrap();
            let best = best.best().unwrap();
            let expected = Decision::from_params(&best.algorithm, &best.scored.params);
            let comm = comms
                .iter()
                .find(|c| c.ranks_min <= r && c.ranks_max.is_none_or(|x| r <= x))
                .unwrap();
            let rule = comm
                .sizes
                .iter()
                .find(|x| x.size_min <= s && x.size_max.is_none_or(|y| s <= y))
                .unwrap();
            assert_eq!(rule.decision, expected, "{r} ranks, {s} B");
        }
    }
}

#[test]
fn inexpressible_best_falls_back_to_the_next_ranked_with_a_note() {
    let m = machine::load("xeon-phi").unwrap();
    let grid = Grid::powers_of_two((2, 8), (0, 256)).unwrap();
    let all = fill(&m, &grid, &[Collective::Bcast], &options(), &|_, _| true).unwrap();
    // Take away the algorithm the model picks for the largest size and ask again.
    let banned = all.collectives[0].comms[0]
        .sizes
        .last()
        .unwrap()
        .decision
        .algorithm
        .clone();
    let accept = |_: Collective, d: &Decision| d.algorithm != banned;
    // xeon-phi: flat-tree wins the large sizes; without it, the tuner's next ranked algorithm
    // (pipelined) is kept and the note counts the replaced cells.
    let t = fill(&m, &grid, &[Collective::Bcast], &options(), &accept).unwrap();
    for comm in &t.collectives[0].comms {
        for rule in &comm.sizes {
            assert_ne!(rule.decision.algorithm, banned);
        }
    }
    assert_eq!(t.notes.len(), 1);
    assert!(
        t.notes[0].contains(&format!("the model's best, {banned},")),
        "{:?}",
        t.notes
    );
}

#[test]
fn barrier_is_asked_at_size_zero_only() {
    let m = machine::load("xeon-phi").unwrap();
    if !m.collectives().contains(&Collective::Barrier) {
        return;
    }
    let grid = Grid::powers_of_two((2, 4), (0, 1024)).unwrap();
    let t = fill(&m, &grid, &[Collective::Barrier], &options(), &|_, _| true).unwrap();
    for comm in &t.collectives[0].comms {
        assert_eq!(comm.sizes.len(), 1);
        assert_eq!(comm.sizes[0].size_min, 0);
        assert_eq!(comm.sizes[0].size_max, None);
    }
}

#[test]
fn cells_whose_search_stopped_at_a_limit_are_named_in_a_note() {
    // Four sockets at a budget of 4·10^5: 8 ranks lie on one socket's 8 cores (exact); 32
    // ranks take the 8 cores of every socket and need the socket DP's covering pass over 9^4 =
    // 6,561 count vectors of 4·K + 2·76 + 6·4 + 4 = 4·K + 180 entries each by suffix states, or
    // 4·K + 6·4 + 3·4² = 4·K + 72 by envelopes (docs/cla.md §11; 1 ≤ K ≤ 8 the trees a group
    // may hold): at least 6,561 × 184 = 1,207,224 and 6,561 × 76 = 498,636, both over that
    // budget (within the default 10^8), so that cell is the best found, not proven optimal,
    // and the table says so.
    let m = machine::load("xeon-e5-4650-4s").unwrap();
    let grid = Grid {
        ranks: vec![8, 32],
        sizes: vec![0],
    };
    let mut opts = options();
    opts.limits.work_budget = 400_000;
    let t = fill(&m, &grid, &[Collective::Bcast], &opts, &|_, _| true).unwrap();
    assert_eq!(
        t.notes,
        vec![
            "bcast: in 1 grid cell(s) the search stopped at a limit (the work budget or the time limit), so the decision there is the best found, not proven optimal".to_string()
        ]
    );
    // Within the default budget both cells are exact: no note.
    let t = fill(&m, &grid, &[Collective::Bcast], &options(), &|_, _| true).unwrap();
    assert!(t.notes.is_empty(), "{:?}", t.notes);
}
