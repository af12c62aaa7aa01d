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
        let c = self.children(&prefix.degrees, prefix.covered, prefix.level_nodes);
        Expansion {
            partial: (c.lo..=c.hi).map(|k| prefix.push(k)).collect(),
            complete: c.complete.map(|k| prefix.push(k)),
        }
    }

    /// The degree range of `prefix`'s children: `(lo, hi, complete)` where `lo..=hi` are the
    /// partial children (still not covering n) and `complete` the degree of the minimal cover
    /// one level deeper, if the ordering allows one. `prefix` must not cover n yet.
    pub fn children(&self, degrees: &[u32], covered: u64, level_nodes: u64) -> Children {
        let n = u64::from(self.threads);
        let last = degrees.last().copied();
        let lo = match (self.ordering, last) {
            (DegreeOrdering::NonDecreasing, Some(k)) => k,
            _ => 1,
        };
        let hi = match (self.ordering, last) {
            (DegreeOrdering::NonIncreasing, Some(k)) => k,
            _ => u32::MAX,
        };
        let missing = n.saturating_sub(covered);
        let k_final = missing.div_ceil(level_nodes.max(1)).max(1);
        let k_final = u32::try_from(k_final).unwrap_or(u32::MAX);
        let k_complete = k_final.max(lo);
        Children {
            lo,
            hi: hi.min(k_final.saturating_sub(1)),
            complete: (k_complete <= hi).then_some(k_complete),
        }
    }

    /// Whether `degrees` is a member of the space: a minimal cover of n obeying the ordering,
    /// exactly as [`LevelDegrees::expand`] generates them.
    pub fn contains(&self, degrees: &[u32]) -> bool {
        let Some((&last, prefix)) = degrees.split_last() else {
            return false;
        };
        if self.threads < 2 {
            return false;
        }
        let (mut covered, mut level_nodes) = (1u64, 1u64);
        for (i, &k) in prefix.iter().enumerate() {
            let c = self.children(&prefix[..i], covered, level_nodes);
            if k < c.lo || k > c.hi {
                return false;
            }
            level_nodes = level_nodes.saturating_mul(k.into());
            covered = covered.saturating_add(level_nodes);
        }
        self.children(prefix, covered, level_nodes).complete == Some(last)
    }

    /// Every minimal cover, depth-first, children in increasing k after the complete one (the
    /// naive enumeration). Iterative, with one frame per level: memory O(depth).
    pub fn for_each(&self, mut visit: impl FnMut(&[u32])) {
        self.for_each_while(|d| {
            visit(d);
            true
        });
    }

    /// [`LevelDegrees::for_each`] until `visit` returns false.
    pub fn for_each_while(&self, mut visit: impl FnMut(&[u32]) -> bool) {
        if self.threads < 2 {
            return;
        }
        // frames[i]: the next partial child of degrees[..i], the last one, and the prefix's
        // covered and last-level node counts.
        let mut degrees: Vec<u32> = Vec::new();
        let mut frames: Vec<(u32, u32, u64, u64)> = Vec::new();
        let mut go_on = true;
        let mut open = |degrees: &mut Vec<u32>, covered: u64, level_nodes: u64| {
            let c = self.children(degrees, covered, level_nodes);
            if let Some(k) = c.complete {
                degrees.push(k);
                go_on = visit(degrees);
                degrees.pop();
            }
            ((c.lo, c.hi, covered, level_nodes), go_on)
        };
        let (root, mut more) = open(&mut degrees, 1, 1);
        frames.push(root);
        while more {
            let Some(frame) = frames.last_mut() else {
                break;
            };
            let (next, hi, covered, level_nodes) = *frame;
            if next > hi {
                frames.pop();
                degrees.pop();
                continue;
            }
            // next ≤ hi < k_final ≤ u32::MAX: no overflow.
            frame.0 = next + 1;
            let level_nodes = level_nodes.saturating_mul(next.into());
            degrees.push(next);
            let (child, go) = open(
                &mut degrees,
                covered.saturating_add(level_nodes),
                level_nodes,
            );
            frames.push(child);
            more = go;
        }
    }

    /// Every minimal cover, collected.
    pub fn all(&self) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        self.for_each(|d| out.push(d.to_vec()));
        out
    }

    /// An upper bound on the number of minimal covers, exact without an ordering constraint
    /// (saturating at `u64::MAX`).
    ///
    /// Each minimal cover is one non-covering prefix plus its complete degree, so without an
    /// ordering the count is the number of sequences k_1..k_i ≥ 1 with
    /// `Σ_j Π_{l≤j} k_l ≤ m = n − 2` (the prefix holds at most n − 1 nodes). Choosing k_1 = k
    /// leaves `Σ_{j≥2} Π_{2≤l≤j} k_l ≤ ⌊m/k⌋ − 1` for the rest, so
    /// `f(m) = 1 + Σ_{k=1}^{m} f(⌊m/k⌋ − 1)` with f of a negative argument 0. ⌊m/k⌋ takes
    /// O(√m) values, so memoized the count costs about m^{3/4} steps. An ordering only removes
    /// sequences, so f bounds the ordered spaces too.
    pub fn count_upper_bound(&self) -> u64 {
        if self.threads < 2 {
            return 0;
        }
        let m = u64::from(self.threads) - 2;
        let table = PREFIX_COUNTS.get_or_init(prefix_counts);
        usize::try_from(m)
            .ok()
            .and_then(|m| table.get(m).copied())
            .unwrap_or(u64::MAX)
    }
}

/// f(0), f(1), ... of [`LevelDegrees::count_upper_bound`] up to the first value that saturates
/// u64 (f(1000) ≈ 1.1·10^12 and f(10^4) ≈ 10^21, so the table stops below 10^4 entries); larger
/// arguments are saturated too, since f increases. Computed once per process.
static PREFIX_COUNTS: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();

fn prefix_counts() -> Vec<u64> {
    let mut f: Vec<u64> = Vec::new();
    for x in 0u64.. {
        let mut total: u64 = 1;
        for (q, run) in quotient_runs(x) {
            // q ≥ 1 and q − 1 < x: already in the table.
            let below = f.get((q - 1) as usize).copied().unwrap_or(u64::MAX);
            total = total.saturating_add(below.saturating_mul(run));
        }
        if total == u64::MAX {
            break;
        }
        f.push(total);
    }
    f
}

/// The distinct values q = ⌊m/k⌋ for k = 1..=m, each with how many k give it.
fn quotient_runs(m: u64) -> impl Iterator<Item = (u64, u64)> {
    let mut k = 1u64;
    std::iter::from_fn(move || {
        if k > m {
            return None;
        }
        let q = m / k;
        let last = m / q;
        let run = last - k + 1;
        k = last + 1;
        Some((q, run))
    })
}

/// The children of a non-covering prefix (see [`LevelDegrees::children`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Children {
    /// Smallest partial child degree.
    pub lo: u32,
    /// Largest partial child degree (below `lo` when there is none).
    pub hi: u32,
    /// The degree of the minimal cover one level deeper, if the ordering allows one.
    pub complete: Option<u32>,
}

/// How many candidates a space holds (exact, or an upper bound for level-degree spaces with an
/// ordering constraint); `None` for spaces that are not enumerated here.
pub fn count(space: &Space) -> Option<u64> {
    match space {
        Space::Fixed => Some(1),
        Space::LevelDegrees { threads, ordering } => Some(
            LevelDegrees {
                threads: *threads,
                ordering: *ordering,
            }
            .count_upper_bound(),
        ),
        Space::Dissemination { threads, rule } => Some(match rule {
            modelopt_model::RoundsRule::Paper if *threads == 2 => 1,
            modelopt_model::RoundsRule::Paper => u64::from(threads.saturating_sub(2)),
            modelopt_model::RoundsRule::Exact => u64::from(threads.saturating_sub(1)),
        }),
        Space::Grid(ranges) => Some(ranges.iter().fold(1u64, |acc, r| {
            let len = u64::try_from(i128::from(r.hi) - i128::from(r.lo) + 1).unwrap_or(0);
            acc.saturating_mul(len)
        })),
        Space::Values(lists) => Some(lists.iter().fold(1u64, |acc, l| {
            acc.saturating_mul(u64::try_from(l.values.len()).unwrap_or(u64::MAX))
        })),
        _ => None,
    }
}

/// Every configuration of a space, streamed in the order of [`enumerate`], without
/// materializing the list (level-degree spaces are streamed lazily too). `None` for spaces that
/// are not enumerated here.
pub fn candidates(space: &Space) -> Option<Box<dyn Iterator<Item = Params> + Send + '_>> {
    match space {
        Space::Fixed => Some(Box::new(std::iter::once(Params::None))),
        Space::LevelDegrees { .. } => None,
        Space::Dissemination { threads, rule } => {
            Some(Box::new(rule.candidates(*threads).into_iter().map(
                |(degree, rounds)| Params::Dissemination { degree, rounds },
            )))
        }
        Space::Grid(ranges) => Some(Box::new(GridIter::new(ranges))),
        Space::Values(lists) => Some(Box::new(values(lists).into_iter())),
        _ => None,
    }
}

/// The product of integer ranges as an odometer, last range fastest (the order of [`grid`]).
struct GridIter<'r> {
    ranges: &'r [IntRange],
    current: Option<Vec<i64>>,
}

impl<'r> GridIter<'r> {
    fn new(ranges: &'r [IntRange]) -> Self {
        let empty = ranges.iter().any(|r| r.lo > r.hi);
        GridIter {
            ranges,
            current: (!empty).then(|| ranges.iter().map(|r| r.lo).collect()),
        }
    }
}

impl Iterator for GridIter<'_> {
    type Item = Params;
    fn next(&mut self) -> Option<Params> {
        let current = self.current.as_mut()?;
        let out = Params::Named(
            self.ranges
                .iter()
                .zip(current.iter())
                .map(|(r, v)| (r.name.clone(), *v))
                .collect(),
        );
        let mut i = current.len();
        loop {
            if i == 0 {
                self.current = None;
                break;
            }
            i -= 1;
            if current[i] < self.ranges[i].hi {
                current[i] += 1;
                break;
            }
            current[i] = self.ranges[i].lo;
        }
        Some(out)
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
