//! Enumeration of the search spaces an [`Algorithm`](modelopt_model::Algorithm) describes.
//!
//! ## Level-degree trees (seed 000, Eqs. 4.3/4.4)
//! A tree of depth d with k_i children per node at level i−1 has `1 + Σ_i Π_{j≤i} k_j` nodes.
//! The space holds the **minimal covers** of n threads: trees whose first d−1 levels hold fewer
//! than n nodes (the last level is needed) and whose last degree k_d is the smallest that reaches
//! n under the ordering constraint. Every other covering tree has a minimal cover that is no
//! costlier when cost is non-decreasing in each k_i and every level costs something — the
//! contract [`Algorithm`](modelopt_model::Algorithm) states for level-degree spaces — so the
//! restriction never loses an optimum. The proptests in `tests/` check this against brute force.
//!
//! ## Dissemination degrees
//! `m` with its rounds `r` by [`RoundsRule`](modelopt_model::RoundsRule).
//!
//! ## Grids
//! The product of named integer ranges, in lexicographic order of the ranges as given.

use modelopt_model::{DegreeOrdering, IntRange, Params, Space, ValueList};
use std::collections::BTreeMap;

/// A partial tree: the degrees so far, the nodes they hold, and the nodes on the last level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreePrefix {
    /// k_1..k_i.
    pub degrees: Vec<u32>,
    /// 1 + Σ Π: nodes in levels 0..=i.
    pub covered: u64,
    /// Π k_j: nodes on level i.
    pub level_nodes: u64,
}

impl TreePrefix {
    /// The root alone.
    pub fn root() -> Self {
        TreePrefix {
            degrees: Vec::new(),
            covered: 1,
            level_nodes: 1,
        }
    }

    fn push(&self, k: u32) -> TreePrefix {
        let level_nodes = self.level_nodes.saturating_mul(k.into());
        let mut degrees = self.degrees.clone();
        degrees.push(k);
        TreePrefix {
            degrees,
            covered: self.covered.saturating_add(level_nodes),
            level_nodes,
        }
    }
}

/// One step of the level-degree enumeration from a prefix that does not yet cover n.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// Prefixes one level deeper that still do not cover n.
    pub partial: Vec<TreePrefix>,
    /// The minimal cover one level deeper, if the ordering allows one.
    pub complete: Option<TreePrefix>,
}

/// The level-degree space of n threads under an ordering constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelDegrees {
    /// n.
    pub threads: u32,
    /// Ordering constraint.
    pub ordering: DegreeOrdering,
}

impl LevelDegrees {
    /// Expand a prefix whose `covered < threads`.
    pub fn expand(&self, prefix: &TreePrefix) -> Expansion {
        let n = u64::from(self.threads);
        let last = prefix.degrees.last().copied();
        let lo = match (self.ordering, last) {
            (DegreeOrdering::NonDecreasing, Some(k)) => k,
            _ => 1,
        };
        let hi = match (self.ordering, last) {
            (DegreeOrdering::NonIncreasing, Some(k)) => k,
            _ => u32::MAX,
        };
        let missing = n.saturating_sub(prefix.covered);
        // Smallest k that covers n on this level.
        let k_final = missing.div_ceil(prefix.level_nodes.max(1)).max(1);
        let k_final = u32::try_from(k_final).unwrap_or(u32::MAX);
        let k_complete = k_final.max(lo);
        let complete = (k_complete <= hi).then(|| prefix.push(k_complete));
        let partial_hi = hi.min(k_final.saturating_sub(1));
        let partial = (lo..=partial_hi).map(|k| prefix.push(k)).collect();
        Expansion { partial, complete }
    }

    /// Every minimal cover, depth-first, children in increasing k (the naive enumeration).
    pub fn for_each(&self, mut visit: impl FnMut(&[u32])) {
        if self.threads < 2 {
            return;
        }
        let mut stack = vec![TreePrefix::root()];
        while let Some(prefix) = stack.pop() {
            let step = self.expand(&prefix);
            if let Some(done) = &step.complete {
                visit(&done.degrees);
            }
            stack.extend(step.partial.into_iter().rev());
        }
    }

    /// Every minimal cover, collected.
    pub fn all(&self) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        self.for_each(|d| out.push(d.to_vec()));
        out
    }
}

/// Every configuration of a space, without pruning. `None` for spaces that are not enumerated
/// here.
pub fn enumerate(space: &Space) -> Option<Vec<Params>> {
    match space {
        Space::Fixed => Some(vec![Params::None]),
        Space::LevelDegrees { threads, ordering } => Some(
            LevelDegrees {
                threads: *threads,
                ordering: *ordering,
            }
            .all()
            .into_iter()
            .map(|degrees| Params::Tree {
                depth: degrees.len() as u32,
                degrees,
            })
            .collect(),
        ),
        Space::Dissemination { threads, rule } => Some(
            rule.candidates(*threads)
                .into_iter()
                .map(|(degree, rounds)| Params::Dissemination { degree, rounds })
                .collect(),
        ),
        Space::Grid(ranges) => Some(grid(ranges)),
        Space::Values(lists) => Some(values(lists)),
        _ => None,
    }
}

/// The product of integer ranges as [`Params::Named`], lexicographic in the given range order.
pub fn grid(ranges: &[IntRange]) -> Vec<Params> {
    let mut out = vec![BTreeMap::new()];
    for range in ranges {
        let mut next = Vec::new();
        for partial in &out {
            for v in range.lo..=range.hi {
                let mut p: BTreeMap<String, i64> = partial.clone();
                p.insert(range.name.clone(), v);
                next.push(p);
            }
        }
        out = next;
    }
    out.into_iter().map(Params::Named).collect()
}

/// The product of explicit value lists as [`Params::Named`], lexicographic in the given list
/// order (and, within a list, in its value order). An empty list yields no configuration.
pub fn values(lists: &[ValueList]) -> Vec<Params> {
    let mut out = vec![BTreeMap::new()];
    for list in lists {
        let mut next = Vec::with_capacity(out.len() * list.values.len());
        for partial in &out {
            for &v in &list.values {
                let mut p: BTreeMap<String, i64> = partial.clone();
                p.insert(list.name.clone(), v);
                next.push(p);
            }
        }
        out = next;
    }
    out.into_iter().map(Params::Named).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelopt_model::cache_coherent::algorithms::tree_coverage;

    #[test]
    fn minimal_covers_of_ten_threads() {
        // n = 10, non-increasing: d=1: (9); d=2: 1 + k1 + k1·k2 ≥ 10 with k2 minimal, k2 ≤ k1:
        // k1=2 needs k2 ≥ 3.5 > 2: none; k1=3: k2=2 (10); k1=4: k2=2 (13); k1=5..8: k2=1;
        // d=3 from (2,2): 1+2+4=7 → k3 = ceil(3/4) = 1 → (2,2,1); (2,1): 4 → k3 = ceil(6/2)=3 > 1 no;
        // (3,1): 1+3+3=7 → k3 = 1 (10) → (3,1,1); (2,2,1) covers 11.
        // (1,..) chains: (1) covers 2, (1,1) 3, ... (1,...,1) with 9 ones.
        let all = LevelDegrees {
            threads: 10,
            ordering: DegreeOrdering::NonIncreasing,
        }
        .all();
        for expected in [
            vec![9],
            vec![3, 2],
            vec![4, 2],
            vec![5, 1],
            vec![8, 1],
            vec![2, 2, 1],
            vec![3, 1, 1],
            vec![1; 9],
        ] {
            assert!(all.contains(&expected), "{expected:?} missing from {all:?}");
        }
        for d in &all {
            assert!(tree_coverage(d) >= 10);
            assert!(
                tree_coverage(&d[..d.len() - 1]) < 10,
                "{d:?} is not minimal"
            );
            assert!(d.windows(2).all(|w| w[0] >= w[1]));
        }
        assert!(!all.contains(&vec![2, 3]));
    }

    #[test]
    fn orderings_differ() {
        // n = 10: (2,k2) needs 1 + 2 + 2·k2 ≥ 10, k2 = 4; (3,k2): k2 = 2, raised to 3 when
        // non-decreasing; (4,k2): k2 = 2.
        let up = LevelDegrees {
            threads: 10,
            ordering: DegreeOrdering::NonDecreasing,
        }
        .all();
        assert!(up.contains(&vec![2, 4]) && up.contains(&vec![3, 3]));
        assert!(!up.contains(&vec![4, 2]) && !up.contains(&vec![3, 2]));
        let any = LevelDegrees {
            threads: 10,
            ordering: DegreeOrdering::Any,
        }
        .all();
        assert!(
            any.contains(&vec![2, 4]) && any.contains(&vec![4, 2]) && any.contains(&vec![3, 2])
        );
    }

    #[test]
    fn two_threads_have_one_tree() {
        let all = LevelDegrees {
            threads: 2,
            ordering: DegreeOrdering::NonIncreasing,
        }
        .all();
        assert_eq!(all, vec![vec![1]]);
    }

    #[test]
    fn value_lists_enumerate_their_product_in_order() {
        // segment ∈ {0, 1024, 4096} × radix ∈ {2, 4}: 3 · 2 = 6 configurations, segment first.
        let v = values(&[
            ValueList::new("segment", vec![0, 1024, 4096]),
            ValueList::new("radix", vec![2, 4]),
        ]);
        let s: Vec<String> = v.iter().map(ToString::to_string).collect();
        assert_eq!(
            s,
            [
                "radix=2 segment=0",
                "radix=4 segment=0",
                "radix=2 segment=1024",
                "radix=4 segment=1024",
                "radix=2 segment=4096",
                "radix=4 segment=4096"
            ]
        );
        assert!(values(&[ValueList::new("x", vec![])]).is_empty());
        assert_eq!(
            enumerate(&Space::Values(vec![ValueList::new("k", vec![8])])),
            Some(vec![Params::named([("k", 8)])])
        );
    }

    #[test]
    fn grid_is_lexicographic() {
        let g = grid(&[IntRange::new("x", 0, 1), IntRange::new("y", 1, 2)]);
        let s: Vec<String> = g.iter().map(ToString::to_string).collect();
        assert_eq!(s, ["x=0 y=1", "x=0 y=2", "x=1 y=1", "x=1 y=2"]);
    }
}
