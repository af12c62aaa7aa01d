//! Range merging on hand-built grids, and the grid itself.

use modelopt_export::{merge_grid, CommRule, Decision, Grid, SizeRule};
use proptest::prelude::*;

fn d(name: &str) -> Decision {
    Decision::new(name, [])
}

#[test]
fn equal_neighbours_merge_in_both_directions() {
    // ranks {2, 4, 8} x sizes {0, 16, 256}:
    //   2: a a b
    //   4: a a b   (same as 2 -> merged into [2, 7])
    //   8: c c c   (one size rule)
    let cells = vec![
        vec![d("a"), d("a"), d("b")],
        vec![d("a"), d("a"), d("b")],
        vec![d("c"), d("c"), d("c")],
    ];
    let got = merge_grid(&[2, 4, 8], &[0, 16, 256], &cells).unwrap();
    let expected = vec![
        CommRule {
            ranks_min: 2,
            ranks_max: Some(7),
            sizes: vec![
                SizeRule {
                    size_min: 0,
                    size_max: Some(255),
                    decision: d("a"),
                },
                SizeRule {
                    size_min: 256,
                    size_max: None,
                    decision: d("b"),
                },
            ],
        },
        CommRule {
            ranks_min: 8,
            ranks_max: None,
            sizes: vec![SizeRule {
                size_min: 0,
                size_max: None,
                decision: d("c"),
            }],
        },
    ];
    assert_eq!(got, expected);
}

#[test]
fn parameters_are_part_of_the_decision() {
    // Same algorithm, different segment: two rules.
    let cells = vec![vec![
        Decision::new("pipeline", [("segment", 1024)]),
        Decision::new("pipeline", [("segment", 4096)]),
    ]];
    let got = merge_grid(&[2], &[0, 64], &cells).unwrap();
    assert_eq!(got[0].sizes.len(), 2);
    assert_eq!(got[0].sizes[0].size_max, Some(63));
}

#[test]
fn non_adjacent_equal_rows_do_not_merge() {
    // 2: a, 4: b, 8: a -> three communicator rules.
    let cells = vec![vec![d("a")], vec![d("b")], vec![d("a")]];
    let got = merge_grid(&[2, 4, 8], &[0], &cells).unwrap();
    let mins: Vec<u32> = got.iter().map(|c| c.ranks_min).collect();
    assert_eq!(mins, vec![2, 4, 8]);
}

#[test]
fn bad_shapes_are_errors() {
    assert!(merge_grid(&[2, 4], &[0], &[vec![d("a")]]).is_err());
    assert!(merge_grid(&[4, 2], &[0], &[vec![d("a")], vec![d("a")]]).is_err());
    assert!(merge_grid(&[2], &[0, 1], &[vec![d("a")]]).is_err());
}

#[test]
fn grid_is_powers_of_two_plus_ends_and_zero() {
    let g = Grid::powers_of_two((2, 24), (0, 100)).unwrap();
    // 2, then 4, 8, 16 strictly between, then 24.
    assert_eq!(g.ranks, vec![2, 4, 8, 16, 24]);
    // 0, then 1, 2, 4, ..., 64 (128 > 100).
    assert_eq!(g.sizes, vec![0, 1, 2, 4, 8, 16, 32, 64]);
    assert!(Grid::powers_of_two((1, 4), (0, 1)).is_err());
    assert!(Grid::powers_of_two((2, 4), (5, 1)).is_err());
}

proptest! {
    /// Merging loses nothing: every grid cell's decision is the one its covering rules give.
    #[test]
    fn merge_preserves_every_cell(
        cells in proptest::collection::vec(proptest::collection::vec(0u8..3, 4), 1..6)
    ) {
        let ranks: Vec<u32> = (0..cells.len() as u32).map(|i| 2 << i).collect();
        let sizes = [0u64, 8, 64, 512];
        let decisions: Vec<Vec<Decision>> = cells
            .iter()
            .map(|row| row.iter().map(|&x| d(&format!("alg{x}"))).collect())
            .collect();
        let comms = merge_grid(&ranks, &sizes, &decisions).unwrap();
        for (i, &r) in ranks.iter().enumerate() {
            let comm = comms
                .iter()
                .find(|c| c.ranks_min <= r && c.ranks_max.is_none_or(|m| r <= m))
                .unwrap();
            for (j, &s) in sizes.iter().enumerate() {
                let rule = comm
                    .sizes
                    .iter()
                    .find(|x| x.size_min <= s && x.size_max.is_none_or(|m| s <= m))
                    .unwrap();
                prop_assert_eq!(&rule.decision, &decisions[i][j]);
            }
        }
        // Neighbouring rules always differ (the merge is maximal).
        for w in comms.windows(2) {
            prop_assert_ne!(&w[0].sizes, &w[1].sizes);
        }
    }
}
