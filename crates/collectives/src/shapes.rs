//! Tree shapes as parent arrays: the trees `modelopt run --tree` accepts.
//!
//! Every shape is on threads `0..n` with thread 0 at the root, and is returned as a parent array
//! (`None` for the root) that [`RootedTree::from_parents`] accepts. Conventions:
//!
//! | shape | parent of node i ≥ 1 | example, n = 8 |
//! |---|---|---|
//! | `flat` | 0 | `0(1,2,3,4,5,6,7)` |
//! | `k-ary:K` | ⌊(i−1)/K⌋ (heap order) | `k-ary:2` = `binary` = `0(1(3(7),4),2(5,6))` |
//! | `binomial` | i with its lowest set bit cleared, i & (i−1) | `0(1,2(3),4(5,6(7)))` |
//! | `levels:K1/K2/...` | breadth-first fill of a level-degree tree | `levels:3/2` on 8 = `0(1(4,5),2(6,7),3)` |
//!
//! The level-degree tree is the small-broadcast/small-reduction tree of seed 000 (§4.1.2, Eq. 4.4,
//! Fig. 4.2: "Tree for a 10-threads broadcast assuming d = 2, k_1 = 3, k_2 = 2"): every node of
//! level i−1 has k_i children. When n is smaller than the full tree, 1 + Σ_i Π_{j≤i} k_j, the
//! nodes are numbered breadth first and the last level is filled from the left, so the cut falls
//! on the last parents.
//!
//! An explicit tree (`0(1(3),2)` or `[-1,0,0,1]`) is parsed by [`RootedTree::parse`]; `optimal`
//! is resolved by the caller (it needs a machine model and the optimizer).

use modelopt_model::ccnuma::tree::{RootedTree, TreeError};
use std::fmt;

/// A tree shape named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// Every thread a child of the root.
    Flat,
    /// Each node has up to K children, numbered in heap order (`binary` is K = 2).
    KAry(u32),
    /// The binomial tree: the parent of i is i & (i−1).
    Binomial,
    /// A level-degree tree (seed 000 Eq. 4.4) with the degrees k_1..k_d.
    Levels(Vec<u32>),
    /// An explicit tree, as written.
    Explicit(RootedTree),
    /// The tree the optimizer finds best for the machine (resolved by the caller).
    Optimal,
}

/// Why a shape cannot be read or built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShapeError {
    /// An unknown shape name.
    #[error("unknown tree `{0}` (expected optimal, flat, binary, binomial, k-ary:K, levels:K1/K2/..., or a tree such as 0(1(3),2))")]
    Unknown(String),
    /// A degree that is not a positive integer.
    #[error("`{text}`: {reason}")]
    Degree {
        /// The shape as written.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// An explicit tree that does not parse.
    #[error("tree `{text}`: {source}")]
    Tree {
        /// The tree as written.
        text: String,
        /// The parser's reason.
        source: TreeError,
    },
    /// Fewer than one node, or a level tree too small for the threads.
    #[error("{0}")]
    Size(String),
}

impl Shape {
    /// Read one shape: `optimal`, `flat`, `binary`, `binomial`, `k-ary:K`, `levels:K1/K2/...`,
    /// or an explicit tree in nested (`0(1(3),2)`) or parent-array (`[-1,0,0,1]`) form.
    pub fn parse(text: &str) -> Result<Shape, ShapeError> {
        let t = text.trim();
        let degree = |s: &str| -> Result<u32, ShapeError> {
            match s.trim().parse::<u32>() {
                Ok(k) if k >= 1 => Ok(k),
                _ => Err(ShapeError::Degree {
                    text: t.to_string(),
                    reason: format!("`{s}` is not a degree (a whole number of at least 1)"),
                }),
            }
        };
        match t {
            "optimal" => Ok(Shape::Optimal),
            "flat" => Ok(Shape::Flat),
            "binary" => Ok(Shape::KAry(2)),
            "binomial" => Ok(Shape::Binomial),
            _ => {
                if let Some(k) = t.strip_prefix("k-ary:") {
                    Ok(Shape::KAry(degree(k)?))
                } else if let Some(ks) = t.strip_prefix("levels:") {
                    let ks: Result<Vec<u32>, _> = ks.split('/').map(degree).collect();
                    Ok(Shape::Levels(ks?))
                } else if t.starts_with(|c: char| c.is_ascii_digit() || c == '[') {
                    RootedTree::parse(t)
                        .map(Shape::Explicit)
                        .map_err(|source| ShapeError::Tree {
                            text: t.to_string(),
                            source,
                        })
                } else {
                    Err(ShapeError::Unknown(t.to_string()))
                }
            }
        }
    }

    /// Read a comma-separated list of shapes. Commas inside parentheses or brackets belong to an
    /// explicit tree: `flat,0(1,2),binary` is three shapes.
    pub fn parse_list(text: &str) -> Result<Vec<Shape>, ShapeError> {
        split_top_level(text)
            .iter()
            .map(|s| Shape::parse(s))
            .collect()
    }

    /// The parent array of this shape on `n` threads (thread 0 at the root). `None` for
    /// [`Shape::Optimal`], which only the optimizer can answer.
    pub fn parents(&self, n: u32) -> Option<Result<Vec<Option<u32>>, ShapeError>> {
        Some(match self {
            Shape::Flat => Ok(flat(n)),
            Shape::KAry(k) => Ok(k_ary(n, *k)),
            Shape::Binomial => Ok(binomial(n)),
            Shape::Levels(ks) => level_degrees(n, ks),
            Shape::Explicit(tree) => match tree.expect_len(n) {
                Ok(()) => Ok(tree.parents().to_vec()),
                Err(source) => Err(ShapeError::Tree {
                    text: tree.nested(),
                    source,
                }),
            },
            Shape::Optimal => return None,
        })
    }

    /// The level degrees (k_1..k_d) of this shape on `n` threads when it is a level-degree tree
    /// (flat, k-ary, levels), which is what the seed 000 models price; `None` otherwise.
    pub fn level_degrees(&self, n: u32) -> Option<Vec<u32>> {
        match self {
            Shape::Flat => Some(vec![n.saturating_sub(1).max(1)]),
            Shape::KAry(k) => {
                let mut ks = Vec::new();
                while coverage(&ks) < u64::from(n) {
                    ks.push(*k);
                    if *k == 1 && ks.len() >= n as usize {
                        break;
                    }
                }
                if ks.is_empty() {
                    ks.push(*k);
                }
                Some(ks)
            }
            Shape::Levels(ks) => Some(ks.clone()),
            _ => None,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Flat => f.write_str("flat"),
            Shape::KAry(2) => f.write_str("binary"),
            Shape::KAry(k) => write!(f, "k-ary:{k}"),
            Shape::Binomial => f.write_str("binomial"),
            Shape::Levels(ks) => {
                let ks: Vec<String> = ks.iter().map(u32::to_string).collect();
                write!(f, "levels:{}", ks.join("/"))
            }
            Shape::Explicit(tree) => f.write_str(&tree.nested()),
            Shape::Optimal => f.write_str("optimal"),
        }
    }
}

/// Split at commas that are not inside `(...)` or `[...]`; empty items are dropped.
fn split_top_level(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth: i64 = 0;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth <= 0 {
            out.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    out.push(current);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Nodes of a full level-degree tree, 1 + Σ_i Π_{j≤i} k_j (seed 000 Eq. 4.4), saturating.
pub fn coverage(degrees: &[u32]) -> u64 {
    let mut total: u64 = 1;
    let mut level: u64 = 1;
    for &k in degrees {
        level = level.saturating_mul(k.into());
        total = total.saturating_add(level);
    }
    total
}

/// The flat tree: every node's parent is 0.
pub fn flat(n: u32) -> Vec<Option<u32>> {
    (0..n).map(|i| (i > 0).then_some(0)).collect()
}

/// The K-ary tree in heap order: the parent of i ≥ 1 is ⌊(i−1)/K⌋ (K ≥ 1; K = 0 is read as 1).
pub fn k_ary(n: u32, k: u32) -> Vec<Option<u32>> {
    let k = k.max(1);
    (0..n).map(|i| (i > 0).then(|| (i - 1) / k)).collect()
}

/// The binomial tree: the parent of i ≥ 1 is i with its lowest set bit cleared, i & (i−1).
pub fn binomial(n: u32) -> Vec<Option<u32>> {
    (0..n).map(|i| (i > 0).then(|| i & (i - 1))).collect()
}

/// The level-degree tree k_1..k_d on n nodes, numbered breadth first; the last level is filled
/// from the left. Fails when the full tree has fewer than n nodes or a degree is 0.
pub fn level_degrees(n: u32, degrees: &[u32]) -> Result<Vec<Option<u32>>, ShapeError> {
    if degrees.contains(&0) {
        return Err(ShapeError::Size(format!(
            "level degrees {degrees:?}: every level needs at least one child per node"
        )));
    }
    if coverage(degrees) < u64::from(n) {
        return Err(ShapeError::Size(format!(
            "level degrees {degrees:?} make a tree of {} nodes, fewer than the {n} threads (seed 000 Eq. 4.4)",
            coverage(degrees)
        )));
    }
    let mut parents: Vec<Option<u32>> = Vec::with_capacity(n as usize);
    if n == 0 {
        return Ok(parents);
    }
    parents.push(None);
    // Parents of the current level are ids lo..hi; their children get the next ids.
    let (mut lo, mut hi) = (0u32, 1u32);
    for &k in degrees {
        for p in lo..hi {
            for _ in 0..k {
                if parents.len() as u64 >= u64::from(n) {
                    return Ok(parents);
                }
                parents.push(Some(p));
            }
        }
        lo = hi;
        hi = parents.len() as u32;
    }
    Ok(parents)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(parents: Vec<Option<u32>>) -> String {
        RootedTree::from_parents(&parents).unwrap().nested()
    }

    #[test]
    fn binomial_on_eight() {
        // 1=001→0, 2=010→0, 3=011→2, 4=100→0, 5=101→4, 6=110→4, 7=111→6.
        assert_eq!(
            binomial(8),
            vec![
                None,
                Some(0),
                Some(0),
                Some(2),
                Some(0),
                Some(4),
                Some(4),
                Some(6)
            ]
        );
        assert_eq!(nested(binomial(8)), "0(1,2(3),4(5,6(7)))");
    }

    #[test]
    fn binary_and_flat_on_eight() {
        // Heap order: children of j are 2j+1, 2j+2: 0→1,2; 1→3,4; 2→5,6; 3→7.
        assert_eq!(nested(k_ary(8, 2)), "0(1(3(7),4),2(5,6))");
        assert_eq!(nested(flat(8)), "0(1,2,3,4,5,6,7)");
        // 3-ary on 8: 0→1,2,3; 1→4,5,6; 2→7.
        assert_eq!(nested(k_ary(8, 3)), "0(1(4,5,6),2(7),3)");
    }

    #[test]
    fn level_tree_of_figure_4_2() {
        // Seed 000 Fig. 4.2: d = 2, k_1 = 3, k_2 = 2 on 10 threads: 1 + 3 + 6 nodes.
        assert_eq!(
            nested(level_degrees(10, &[3, 2]).unwrap()),
            "0(1(4,5),2(6,7),3(8,9))"
        );
        // Cut at 8: the last parent (3) loses both children.
        assert_eq!(
            nested(level_degrees(8, &[3, 2]).unwrap()),
            "0(1(4,5),2(6,7),3)"
        );
        assert!(level_degrees(11, &[3, 2]).is_err());
        assert!(level_degrees(3, &[0]).is_err());
    }

    #[test]
    fn kary_level_degrees_give_the_same_tree() {
        // binary on 8 has depth 3 (1+2+4 = 7 < 8 ≤ 15): degrees (2,2,2).
        assert_eq!(Shape::KAry(2).level_degrees(8), Some(vec![2, 2, 2]));
        assert_eq!(level_degrees(8, &[2, 2, 2]).unwrap(), k_ary(8, 2));
        assert_eq!(Shape::Flat.level_degrees(5), Some(vec![4]));
        assert_eq!(Shape::Binomial.level_degrees(5), None);
    }

    #[test]
    fn lists_keep_explicit_trees_whole() {
        let shapes =
            Shape::parse_list("optimal, flat,0(1(3),2),k-ary:4,[-1,0,0,1],levels:3/2").unwrap();
        assert_eq!(shapes.len(), 6);
        assert_eq!(shapes[0], Shape::Optimal);
        assert_eq!(shapes[2].to_string(), "0(1(3),2)");
        assert_eq!(shapes[3], Shape::KAry(4));
        assert_eq!(shapes[4].to_string(), "0(1(3),2)");
        assert_eq!(shapes[5], Shape::Levels(vec![3, 2]));
        assert!(Shape::parse("k-ary:0").is_err());
        assert!(Shape::parse("k-ary:x").is_err());
        assert!(Shape::parse("star").is_err());
        assert!(Shape::parse("0(1,1)").is_err());
    }

    proptest::proptest! {
        #[test]
        fn every_shape_is_a_tree_rooted_at_zero(n in 1u32..300, k in 1u32..9) {
            for parents in [flat(n), k_ary(n, k), binomial(n)] {
                let tree = RootedTree::from_parents(&parents).unwrap();
                proptest::prop_assert_eq!(tree.len(), n as usize);
                proptest::prop_assert_eq!(tree.root(), 0);
                // Parents precede children: ids grow down every path.
                proptest::prop_assert!(parents.iter().enumerate().all(|(i, p)| p.is_none_or(|p| (p as usize) < i)));
            }
            // k-ary: no node has more than k children.
            let tree = RootedTree::from_parents(&k_ary(n, k)).unwrap();
            proptest::prop_assert!((0..n).all(|v| tree.children(v).len() <= k as usize));
        }

        #[test]
        fn level_trees_respect_their_degrees(n in 1u32..200, ks in proptest::collection::vec(1u32..6, 1..5)) {
            match level_degrees(n, &ks) {
                Ok(parents) => {
                    let tree = RootedTree::from_parents(&parents).unwrap();
                    proptest::prop_assert_eq!(tree.len(), n as usize);
                    // A node at depth i − 1 has at most k_i children; no node is deeper than d.
                    let depth = tree.depths();
                    for v in 0..n {
                        let d = depth[v as usize] as usize;
                        let limit = ks.get(d).copied().unwrap_or(0) as usize;
                        proptest::prop_assert!(tree.children(v).len() <= limit);
                    }
                }
                Err(_) => proptest::prop_assert!(coverage(&ks) < u64::from(n)),
            }
        }
    }

    #[test]
    fn explicit_tree_must_match_the_threads() {
        let shape = Shape::parse("0(1(3),2)").unwrap();
        assert!(shape.parents(4).unwrap().is_ok());
        assert!(shape.parents(5).unwrap().is_err());
        assert!(Shape::Optimal.parents(4).is_none());
    }
}
