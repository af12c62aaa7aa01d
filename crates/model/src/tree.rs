//! Rooted trees of threads: the communication structure a CLa algorithm receives as parameter
//! (seed 001 §3, "if an algorithm receives a communication structure as parameter, we analyze
//! multiple structures to obtain the best one").
//!
//! Two text forms are read and written:
//! - the nested form used by `--tree`: `0(1(3),2)` — a node id, then its children in parentheses;
//! - a parent array in brackets: `[-1,0,0,1]` — entry i is the parent of node i, −1 for the root.
//!
//! Node ids are thread ids `0..n`; every id must appear exactly once.
//!
//! This module belongs to no family: a family prices trees, a search builds them. The one pricing
//! contract that lives here is [`LevelCost`], the max-plus recursion of tree broadcasts on one
//! socket, T(p) = T_lev(k_p) + max_c T(c) (seed 001 Eq. 2), evaluated by [`LevelTable`] — the
//! only place that recursion is written; a family says what T_lev(k) is.

use std::fmt;

/// A tree cost of the max-plus form T(p) = T_lev(k_p) + max over p's children c of T(c) (a leaf
/// costs 0), with a constant added to the root: seed 001 Eq. (2) on one socket. Contract: both
/// bounds of `level(k)` are in ns, finite, non-negative and non-decreasing in k, so removing a
/// leaf never makes a tree costlier (the one-socket DP's exactness rests on this).
pub trait LevelCost: Sync {
    /// (T_lev,min(k), T_lev,max(k)) for a node with k ≥ 1 children, ns.
    fn level(&self, k: u32) -> (f64, f64);
    /// (min, max) added to every tree, ns.
    fn offset(&self) -> (f64, f64);
}

/// [`LevelCost`] precomputed for trees of up to n nodes, and the evaluation of a tree given as
/// its preorder level sequence in O(n) without allocating between calls.
#[derive(Debug, Clone)]
pub struct LevelTable {
    /// T_lev,min(k), k = 0..n (index 0 unused).
    pub min: Vec<f64>,
    /// T_lev,max(k).
    pub max: Vec<f64>,
    /// The constant of every tree.
    pub offset: (f64, f64),
}

impl LevelTable {
    /// The table for trees of up to `n` nodes.
    pub fn new(cost: &dyn LevelCost, n: usize) -> Self {
        let mut min = vec![0.0; n.max(1)];
        let mut max = vec![0.0; n.max(1)];
        for k in 1..n {
            let (a, b) = cost.level(k as u32);
            min[k] = a;
            max[k] = b;
        }
        LevelTable {
            min,
            max,
            offset: cost.offset(),
        }
    }

    /// (T_min, T_max) of the tree with these preorder levels (root 0, each next level at most
    /// one deeper), offset included. `scratch` is reused between calls.
    pub fn evaluate(&self, levels: &[u32], scratch: &mut Scratch) -> (f64, f64) {
        let n = levels.len();
        scratch.reset(n);
        // Parent of each node: the last node one level up.
        let last = &mut scratch.last_at_level;
        let parent = &mut scratch.parent;
        for (i, &l) in levels.iter().enumerate() {
            if l > 0 {
                parent[i] = last[l as usize - 1];
            }
            last[l as usize] = i as u32;
        }
        let kids = &mut scratch.kids;
        let mx_min = &mut scratch.mx_min;
        let mx_max = &mut scratch.mx_max;
        for i in (1..n).rev() {
            let k = kids[i] as usize;
            let (a, b) = if k > 0 {
                (self.min[k] + mx_min[i], self.max[k] + mx_max[i])
            } else {
                (0.0, 0.0)
            };
            let p = parent[i] as usize;
            kids[p] += 1;
            if a > mx_min[p] {
                mx_min[p] = a;
            }
            if b > mx_max[p] {
                mx_max[p] = b;
            }
        }
        let k = kids.first().copied().unwrap_or(0) as usize;
        if k == 0 {
            return self.offset;
        }
        (
            self.offset.0 + self.min[k] + mx_min[0],
            self.offset.1 + self.max[k] + mx_max[0],
        )
    }
}

/// Reusable buffers of [`LevelTable::evaluate`].
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    last_at_level: Vec<u32>,
    parent: Vec<u32>,
    kids: Vec<u32>,
    mx_min: Vec<f64>,
    mx_max: Vec<f64>,
}

impl Scratch {
    fn reset(&mut self, n: usize) {
        self.last_at_level.clear();
        self.last_at_level.resize(n + 1, 0);
        self.parent.clear();
        self.parent.resize(n, 0);
        self.kids.clear();
        self.kids.resize(n, 0);
        self.mx_min.clear();
        self.mx_min.resize(n, 0.0);
        self.mx_max.clear();
        self.mx_max.resize(n, 0.0);
    }
}

/// Why a tree cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TreeError {
    /// Nothing to read.
    #[error("the tree is empty")]
    Empty,
    /// The text does not follow the grammar.
    #[error("column {column}: {message}")]
    Syntax {
        /// 1-based column of the offending character.
        column: usize,
        /// What was expected.
        message: String,
    },
    /// A node appears twice.
    #[error("node {0} appears twice (a node has one parent; a repeated node would close a cycle)")]
    Duplicate(u32),
    /// The ids are not exactly `0..n`.
    #[error("node {missing} is missing: the ids of a {n}-node tree must be 0..{n} (largest id seen: {largest})")]
    Missing {
        /// The smallest absent id.
        missing: u32,
        /// Node count.
        n: u32,
        /// Largest id present.
        largest: u32,
    },
    /// A parent array with a cycle (the message names at most the first 10 nodes).
    #[error("nodes {} form a cycle", list_clipped(.0))]
    Cycle(Vec<u32>),
    /// A parent array without a root or with several.
    #[error("a tree has exactly one root (parent -1); found {0}")]
    Roots(usize),
    /// A parent outside `0..n`.
    #[error("node {node} has parent {parent}, outside 0..{n}")]
    ParentOutOfRange {
        /// The node.
        node: u32,
        /// Its parent as given.
        parent: i64,
        /// Node count.
        n: u32,
    },
    /// A placement without one socket per node.
    #[error("the placement must give a socket to each of the {nodes} nodes; it gives {got}")]
    Placement {
        /// Tree nodes.
        nodes: u32,
        /// Socket entries given.
        got: usize,
    },
    /// The tree does not have the node count required.
    #[error("the tree has {got} nodes but {expected} threads take part")]
    Size {
        /// Threads expected.
        expected: u32,
        /// Nodes in the tree.
        got: u32,
    },
}

/// A rooted tree on nodes `0..n` with ordered children.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RootedTree {
    parent: Vec<Option<u32>>,
    children: Vec<Vec<u32>>,
    root: u32,
}

impl RootedTree {
    /// A tree from a parent array (`None` for the root). Children are ordered by id.
    pub fn from_parents(parents: &[Option<u32>]) -> Result<Self, TreeError> {
        let n = parents.len();
        if n == 0 {
            return Err(TreeError::Empty);
        }
        let n32 = u32::try_from(n).map_err(|_| TreeError::Size {
            expected: u32::MAX,
            got: u32::MAX,
        })?;
        let roots: Vec<usize> = (0..n).filter(|&i| parents[i].is_none()).collect();
        if roots.len() != 1 {
            return Err(TreeError::Roots(roots.len()));
        }
        let mut children = vec![Vec::new(); n];
        for (i, p) in parents.iter().enumerate() {
            if let Some(p) = *p {
                if p >= n32 {
                    return Err(TreeError::ParentOutOfRange {
                        node: i as u32,
                        parent: p.into(),
                        n: n32,
                    });
                }
                if p as usize == i {
                    return Err(TreeError::Cycle(vec![p]));
                }
                children[p as usize].push(i as u32);
            }
        }
        let tree = RootedTree {
            parent: parents.to_vec(),
            children,
            root: roots[0] as u32,
        };
        // Every node must be reached from the root; the unreached ones sit on cycles.
        let reached = tree.preorder();
        if reached.len() != n {
            let mut seen = vec![false; n];
            for v in reached {
                seen[v as usize] = true;
            }
            let start = (0..n).find(|&i| !seen[i]).unwrap_or(0);
            // Walk up from an unreached node until a node repeats: that is the cycle. Positions
            // on the walk are remembered, so a long cycle costs linear time.
            let mut path: Vec<u32> = Vec::new();
            let mut at: Vec<Option<usize>> = vec![None; n];
            let mut v = start as u32;
            while at[v as usize].is_none() {
                at[v as usize] = Some(path.len());
                path.push(v);
                match parents[v as usize] {
                    Some(p) => v = p,
                    None => break,
                }
            }
            let from = at[v as usize].unwrap_or(0);
            let mut cycle = path[from..].to_vec();
            cycle.sort_unstable();
            return Err(TreeError::Cycle(cycle));
        }
        Ok(tree)
    }

    /// A tree from a parent array with −1 for the root, as in the JSON output.
    pub fn from_signed_parents(parents: &[i64]) -> Result<Self, TreeError> {
        let n = parents.len() as u32;
        let mut out = Vec::with_capacity(parents.len());
        for (i, &p) in parents.iter().enumerate() {
            if p == -1 {
                out.push(None);
            } else if p < 0 || p >= i64::from(n) {
                return Err(TreeError::ParentOutOfRange {
                    node: i as u32,
                    parent: p,
                    n,
                });
            } else {
                out.push(Some(p as u32));
            }
        }
        RootedTree::from_parents(&out)
    }

    /// A tree from a level sequence in preorder (`levels[0] = 0` for the root; each next level is
    /// at most one deeper than the previous). Node i is the i-th node in preorder.
    pub fn from_levels(levels: &[u32]) -> Result<Self, TreeError> {
        if levels.is_empty() {
            return Err(TreeError::Empty);
        }
        if levels[0] != 0 {
            return Err(TreeError::Syntax {
                column: 1,
                message: "a level sequence starts with the root at level 0".into(),
            });
        }
        let mut parents = vec![None; levels.len()];
        let mut stack: Vec<u32> = vec![0];
        for (i, &l) in levels.iter().enumerate().skip(1) {
            if l == 0 || l as usize > stack.len() {
                return Err(TreeError::Syntax {
                    column: i + 1,
                    message: format!(
                        "level {l} cannot follow a node at level {}",
                        stack.len() - 1
                    ),
                });
            }
            stack.truncate(l as usize);
            parents[i] = stack.last().copied();
            stack.push(i as u32);
        }
        RootedTree::from_parents(&parents)
    }

    /// Parse the nested form `0(1(3),2)` or a parent array `[-1,0,0,1]`.
    pub fn parse(text: &str) -> Result<Self, TreeError> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(TreeError::Empty);
        }
        if trimmed.starts_with('[') {
            return parse_parent_array(text);
        }
        let mut parser = Nested {
            bytes: text.as_bytes(),
            pos: 0,
            parents: Vec::new(),
            seen: std::collections::HashSet::new(),
        };
        parser.skip_ws();
        parser.node(None)?;
        parser.skip_ws();
        if parser.pos < parser.bytes.len() {
            return Err(parser.error("unexpected text after the tree"));
        }
        let n = parser.parents.len();
        let largest = parser.parents.iter().map(|(id, _)| *id).max().unwrap_or(0);
        let mut parents = vec![None; n];
        if largest as usize >= n {
            let mut present = vec![false; n];
            for &(id, _) in &parser.parents {
                if (id as usize) < n {
                    present[id as usize] = true;
                }
            }
            let missing = present.iter().position(|&p| !p).unwrap_or(0);
            return Err(TreeError::Missing {
                missing: missing as u32,
                n: n as u32,
                largest,
            });
        }
        for &(id, p) in &parser.parents {
            parents[id as usize] = p;
        }
        // Children keep the written order.
        let mut children = vec![Vec::new(); n];
        for &(id, p) in &parser.parents {
            if let Some(p) = p {
                children[p as usize].push(id);
            }
        }
        let root = parser.parents[0].0;
        Ok(RootedTree {
            parent: parents,
            children,
            root,
        })
    }

    /// Node count.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether the tree has no node (never true for a built tree).
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The root.
    pub fn root(&self) -> u32 {
        self.root
    }

    /// The parent of `v` (`None` for the root).
    pub fn parent(&self, v: u32) -> Option<u32> {
        self.parent[v as usize]
    }

    /// The parent array.
    pub fn parents(&self) -> &[Option<u32>] {
        &self.parent
    }

    /// The parent array with −1 for the root.
    pub fn signed_parents(&self) -> Vec<i64> {
        self.parent
            .iter()
            .map(|p| p.map_or(-1, i64::from))
            .collect()
    }

    /// The children of `v`, in order.
    pub fn children(&self, v: u32) -> &[u32] {
        &self.children[v as usize]
    }

    /// The nodes in preorder (children in order).
    pub fn preorder(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len());
        let mut stack = vec![self.root];
        while let Some(v) = stack.pop() {
            out.push(v);
            stack.extend(self.children[v as usize].iter().rev());
        }
        out
    }

    /// Depth of every node (root 0).
    pub fn depths(&self) -> Vec<u32> {
        let mut depth = vec![0; self.len()];
        for v in self.preorder() {
            if let Some(p) = self.parent[v as usize] {
                depth[v as usize] = depth[p as usize] + 1;
            }
        }
        depth
    }

    /// The same shape with node `v` renamed `map[v]` (a permutation of `0..n`).
    pub fn relabel(&self, map: &[u32]) -> Result<RootedTree, TreeError> {
        let mut parents = vec![None; self.len()];
        for v in 0..self.len() {
            parents[map[v] as usize] = self.parent[v].map(|p| map[p as usize]);
        }
        let mut tree = RootedTree::from_parents(&parents)?;
        // Keep the children order of the original.
        for v in 0..self.len() {
            tree.children[map[v] as usize] =
                self.children[v].iter().map(|&c| map[c as usize]).collect();
        }
        Ok(tree)
    }

    /// Check the node count against the number of threads.
    pub fn expect_len(&self, threads: u32) -> Result<(), TreeError> {
        if self.len() as u64 != u64::from(threads) {
            return Err(TreeError::Size {
                expected: threads,
                got: self.len() as u32,
            });
        }
        Ok(())
    }

    /// The nested text form, e.g. `0(1(3),2)`.
    pub fn nested(&self) -> String {
        let mut out = String::new();
        // Iterative to survive deep trees (a path of thousands of nodes).
        enum Step {
            Open(u32),
            Text(&'static str),
        }
        let mut stack = vec![Step::Open(self.root)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Text(t) => out.push_str(t),
                Step::Open(v) => {
                    out.push_str(&v.to_string());
                    let kids = &self.children[v as usize];
                    if !kids.is_empty() {
                        out.push('(');
                        stack.push(Step::Text(")"));
                        for (i, &c) in kids.iter().enumerate().rev() {
                            stack.push(Step::Open(c));
                            if i > 0 {
                                stack.push(Step::Text(","));
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for RootedTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.nested())
    }
}

fn parse_parent_array(text: &str) -> Result<RootedTree, TreeError> {
    let start = text.find('[').unwrap_or(0);
    let end = text.rfind(']').ok_or(TreeError::Syntax {
        column: text.len() + 1,
        message: "missing `]` after the parent array".into(),
    })?;
    if !text[end + 1..].trim().is_empty() {
        return Err(TreeError::Syntax {
            column: end + 2,
            message: "unexpected text after the parent array".into(),
        });
    }
    let inner = &text[start + 1..end];
    let mut parents = Vec::new();
    let mut offset = start + 1;
    for part in inner.split(',') {
        let value = part.trim();
        let v: i64 = value.parse().map_err(|_| TreeError::Syntax {
            column: offset + 1 + (part.len() - part.trim_start().len()),
            message: format!(
                "`{}` is not a parent id (an integer, -1 for the root)",
                clip(value)
            ),
        })?;
        parents.push(v);
        offset += part.len() + 1;
    }
    RootedTree::from_signed_parents(&parents)
}

/// User text quoted in an error: at most 40 characters, then an ellipsis and the length, control
/// characters escaped (a 300-digit number or a 20,000-node tree is not echoed in full).
fn clip(text: &str) -> String {
    let escape = |c: char| -> String {
        if c.is_control() {
            c.escape_default().collect()
        } else {
            c.to_string()
        }
    };
    let count = text.chars().count();
    let head: String = text.chars().take(40).map(escape).collect();
    if count <= 40 {
        head
    } else {
        format!("{head}… [{count} characters]")
    }
}

/// At most the first 10 nodes of a list, then how many there are.
fn list_clipped(nodes: &[u32]) -> String {
    if nodes.len() <= 10 {
        format!("{nodes:?}")
    } else {
        format!("{:?}… [{} nodes]", &nodes[..10], nodes.len())
    }
}

struct Nested<'a> {
    bytes: &'a [u8],
    pos: usize,
    parents: Vec<(u32, Option<u32>)>,
    seen: std::collections::HashSet<u32>,
}

impl Nested<'_> {
    fn error(&self, message: &str) -> TreeError {
        TreeError::Syntax {
            column: self.pos + 1,
            message: message.to_string(),
        }
    }

    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn number(&mut self) -> Result<u32, TreeError> {
        self.skip_ws();
        let start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error("expected a node id (a thread number)"));
        }
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap_or("");
        text.parse().map_err(|_| TreeError::Syntax {
            column: start + 1,
            message: format!(
                "node id `{}` is too large (at most {})",
                clip(text),
                u32::MAX
            ),
        })
    }

    /// node := INT [ '(' node (',' node)* ')' ], iteratively (deep paths must not overflow).
    fn node(&mut self, parent: Option<u32>) -> Result<(), TreeError> {
        let mut open: Vec<u32> = Vec::new();
        let mut current_parent = parent;
        loop {
            let id = self.number()?;
            if !self.seen.insert(id) {
                return Err(TreeError::Duplicate(id));
            }
            self.parents.push((id, current_parent));
            self.skip_ws();
            if self.peek() == Some(b'(') {
                self.pos += 1;
                open.push(id);
                current_parent = Some(id);
                continue;
            }
            // Close finished lists until a sibling follows or we are done.
            loop {
                self.skip_ws();
                match (self.peek(), open.last()) {
                    (Some(b','), Some(&p)) => {
                        self.pos += 1;
                        current_parent = Some(p);
                        break;
                    }
                    (Some(b')'), Some(_)) => {
                        self.pos += 1;
                        open.pop();
                    }
                    (_, None) => return Ok(()),
                    (Some(_), Some(_)) => return Err(self.error("expected `,` or `)`")),
                    (None, Some(_)) => return Err(self.error("missing `)`")),
                }
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_round_trip() {
        let t = RootedTree::parse("0(1(3),2)").unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(t.root(), 0);
        assert_eq!(t.children(0), &[1, 2]);
        assert_eq!(t.children(1), &[3]);
        assert_eq!(t.parent(3), Some(1));
        assert_eq!(t.nested(), "0(1(3),2)");
        assert_eq!(t.signed_parents(), vec![-1, 0, 0, 1]);
        let again = RootedTree::parse(" 0 ( 1 ( 3 ) , 2 ) ").unwrap();
        assert_eq!(again, t);
    }

    #[test]
    fn parent_array_form() {
        let t = RootedTree::parse("[-1, 0, 0, 1]").unwrap();
        assert_eq!(t.nested(), "0(1(3),2)");
        let other_root = RootedTree::parse("[2,2,-1]").unwrap();
        assert_eq!(other_root.nested(), "2(0,1)");
    }

    #[test]
    fn malformed_trees_are_clear_errors() {
        let err = |s: &str| RootedTree::parse(s).unwrap_err().to_string();
        assert!(
            err("0(1(0))").contains("appears twice"),
            "{}",
            err("0(1(0))")
        );
        assert!(
            err("0(1,3)").contains("node 2 is missing"),
            "{}",
            err("0(1,3)")
        );
        assert!(err("0(1").contains("missing `)`"));
        assert!(err("0(1))").contains("unexpected text"));
        assert!(err("").contains("empty"));
        assert!(err("0(,1)").contains("expected a node id"));
        assert!(err("[1,0]").contains("one root"), "{}", err("[1,0]"));
        assert!(err("[-1,2,1]").contains("cycle"), "{}", err("[-1,2,1]"));
        assert!(err("[-1,7]").contains("outside"));
        assert!(err("[-1,x]").contains("not a parent id"));
        let t = RootedTree::parse("0(1)").unwrap();
        assert!(t
            .expect_len(3)
            .unwrap_err()
            .to_string()
            .contains("3 threads"));
    }

    #[test]
    fn levels_and_deep_paths() {
        let t = RootedTree::from_levels(&[0, 1, 2, 1]).unwrap();
        assert_eq!(t.nested(), "0(1(2),3)");
        assert!(RootedTree::from_levels(&[0, 2]).is_err());
        let n = 20_000u32;
        let path: Vec<u32> = (0..n).collect();
        let deep = RootedTree::from_levels(&path).unwrap();
        let text = deep.nested();
        assert_eq!(RootedTree::parse(&text).unwrap(), deep);
        assert_eq!(deep.depths()[n as usize - 1], n - 1);
    }

    #[test]
    fn relabel_keeps_shape() {
        let t = RootedTree::parse("0(1(3),2)").unwrap();
        let r = t.relabel(&[3, 2, 1, 0]).unwrap();
        assert_eq!(r.nested(), "3(2(0),1)");
    }
}
