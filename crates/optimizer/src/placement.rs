//! Placing a broadcast tree on sockets (seed 001 §4): which tree nodes run on which socket, for
//! fixed numbers of threads per socket and a fixed root socket.
//!
//! Threads of one socket are interchangeable (seed 001 footnote 2: "there is no difference among
//! threads from the same socket"), so a placement is a socket label per tree node. The cost is the
//! closed form of [`PlacedTreeCost::evaluate`] (Eq. 2 with inter-socket edges at R_Q and one
//! many-to-one line per socket). Three exact methods:
//!
//! - [`exhaustive`]: every labeling with the right counts, for small trees;
//! - [`dp`]: a dynamic program over the tree for two sockets, with Pareto sets of (T_min, T_max)
//!   per (node, socket, nodes on socket 1), fast enough to run for every tree in a search;
//! - [`milp`]: a mixed-integer program (good_lp with the pure-Rust microlp solver) for any number
//!   of sockets, solved lexicographically: the objective's score, then the other bound.
//!
//! Ties: lower score, then the other bound, then (exhaustive only) the lexicographically smallest
//! socket vector in node-id order. The tests check all three agree on every small instance.

use crate::objective::Objective;
use crate::rooted_trees::cost_key;
use modelopt_model::placed_tree::{Group, LineClasses, PlacedTreeCost};
use modelopt_model::tree::RootedTree;
use modelopt_model::Cost;
use std::rc::Rc;

/// A placement and its cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Socket of each tree node (by node id).
    pub sockets: Vec<u32>,
    /// T_min and T_max of the broadcast with this placement.
    pub cost: Cost,
}

/// Why the MILP found no placement.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlacementError {
    /// The counts do not add up to the tree's nodes, or leave the root no room.
    #[error("socket counts {counts:?} cannot place {nodes} nodes with the root on socket {root}")]
    Counts {
        /// Nodes per socket.
        counts: Vec<u32>,
        /// Tree size.
        nodes: usize,
        /// Root socket.
        root: u32,
    },
    /// The pricing is not of the socket-line form the MILP is written in (sockets as units:
    /// it has no R_D between the L3 domains of one socket).
    #[error("the MILP is written for the socket-line form (LineClasses) with sockets as units; this pricing is not")]
    Form,
    /// The solver failed.
    #[error("the MILP solver failed: {0}")]
    Solver(String),
}

fn feasible(tree: &RootedTree, counts: &[u32], root_socket: u32) -> bool {
    counts.iter().map(|&c| c as usize).sum::<usize>() == tree.len()
        && counts.get(root_socket as usize).is_some_and(|&c| c > 0)
}

/// Every labeling of the non-root nodes with exactly `counts[s]` nodes on socket s (the root's
/// included), the best under `objective`. `None` when the counts do not fit.
pub fn exhaustive(
    tree: &RootedTree,
    counts: &[u32],
    root_socket: u32,
    costs: &dyn PlacedTreeCost,
    objective: &Objective,
) -> Option<Placement> {
    if !feasible(tree, counts, root_socket) {
        return None;
    }
    let n = tree.len();
    let mut left = counts.to_vec();
    left[root_socket as usize] -= 1;
    let mut sockets = vec![0u32; n];
    sockets[tree.root() as usize] = root_socket;
    let others: Vec<usize> = (0..n).filter(|&v| v != tree.root() as usize).collect();
    let mut best: Option<((i64, i64), Placement)> = None;
    #[allow(clippy::too_many_arguments)]
    fn rec(
        i: usize,
        others: &[usize],
        left: &mut [u32],
        sockets: &mut [u32],
        tree: &RootedTree,
        costs: &dyn PlacedTreeCost,
        objective: &Objective,
        best: &mut Option<((i64, i64), Placement)>,
    ) {
        if i == others.len() {
            if let Ok(cost) = costs.evaluate(tree, sockets) {
                let key = cost_key(objective, cost.min_ns, cost.max_ns);
                if best.as_ref().is_none_or(|(k, _)| key < *k) {
                    *best = Some((
                        key,
                        Placement {
                            sockets: sockets.to_vec(),
                            cost,
                        },
                    ));
                }
            }
            return;
        }
        for s in 0..left.len() {
            if left[s] > 0 {
                left[s] -= 1;
                sockets[others[i]] = s as u32;
                rec(i + 1, others, left, sockets, tree, costs, objective, best);
                left[s] += 1;
            }
        }
    }
    rec(
        0,
        &others,
        &mut left,
        &mut sockets,
        tree,
        costs,
        objective,
        &mut best,
    );
    best.map(|(_, p)| p)
}

/// A child choice in the DP, linked back to the previous children's choices.
#[derive(Debug)]
struct Choice {
    prev: Option<Rc<Choice>>,
    socket: u32,
    ones: u32,
    point: usize,
}

impl Drop for Choice {
    /// Unlinks the chain iteratively: the default drop recurses once per link, and a node's
    /// chain is as long as its number of children (a flat tree of a million threads would
    /// overflow the stack).
    fn drop(&mut self) {
        let mut next = self.prev.take();
        while let Some(rc) = next {
            next = match Rc::try_unwrap(rc) {
                Ok(mut choice) => choice.prev.take(),
                // Still shared: its other owner drops the rest later.
                Err(_) => None,
            };
        }
    }
}

/// A partial merge of a node's children: max arrivals per socket group (T_min, T_max).
#[derive(Debug, Clone)]
struct Partial {
    arr: [f64; 4],
    back: Option<Rc<Choice>>,
}

/// One Pareto point of a subtree: (T_min, T_max) and how the children were placed.
#[derive(Debug, Clone)]
struct Point {
    min: f64,
    max: f64,
    back: Option<Rc<Choice>>,
}

fn dominated4(a: &[f64; 4], b: &[f64; 4]) -> bool {
    // a is dominated by (or equal to) b.
    (0..4).all(|i| b[i] <= a[i] + 1e-9)
}

fn insert4(set: &mut Vec<Partial>, p: Partial) {
    if set.iter().any(|q| dominated4(&p.arr, &q.arr)) {
        return;
    }
    set.retain(|q| !dominated4(&q.arr, &p.arr));
    set.push(p);
}

fn insert2(set: &mut Vec<Point>, p: Point) {
    if set
        .iter()
        .any(|q| q.min <= p.min + 1e-9 && q.max <= p.max + 1e-9)
    {
        return;
    }
    set.retain(|q| !(p.min <= q.min + 1e-9 && p.max <= q.max + 1e-9));
    set.push(p);
}

/// The exact two-socket placement by dynamic programming over the tree (see the module docs).
/// `None` when the counts do not fit or there are more than two sockets.
pub fn dp(
    tree: &RootedTree,
    counts: &[u32],
    root_socket: u32,
    costs: &dyn PlacedTreeCost,
    objective: &Objective,
) -> Option<Placement> {
    if !feasible(tree, counts, root_socket) || counts.len() > 2 {
        return None;
    }
    let n = tree.len();
    let ones_total = counts.get(1).copied().unwrap_or(0);
    let zeros_total = counts[0];
    let order = tree.preorder();
    let mut size = vec![1u32; n];
    for &v in order.iter().rev() {
        if let Some(p) = tree.parent(v) {
            size[p as usize] += size[v as usize];
        }
    }
    // table[v][socket][ones] = Pareto points.
    let mut table: Vec<[Vec<Vec<Point>>; 2]> = vec![[Vec::new(), Vec::new()]; n];
    let neg = f64::NEG_INFINITY;
    for &v in order.iter().rev() {
        let vi = v as usize;
        let sz = size[vi];
        for sigma in 0..2u32 {
            let mut result: Vec<Vec<Point>> = vec![Vec::new(); sz as usize + 1];
            let kids = tree.children(v);
            if kids.is_empty() {
                result[sigma as usize].push(Point {
                    min: 0.0,
                    max: 0.0,
                    back: None,
                });
                table[vi][sigma as usize] = result;
                continue;
            }
            // states[(ones so far, children on socket 0, children on socket 1)]
            let mut states: std::collections::BTreeMap<(u32, u32, u32), Vec<Partial>> =
                std::collections::BTreeMap::new();
            states.insert(
                (0, 0, 0),
                vec![Partial {
                    arr: [neg; 4],
                    back: None,
                }],
            );
            let mut placed = 0u32;
            for &c in kids {
                let ci = c as usize;
                placed += size[ci];
                let mut next: std::collections::BTreeMap<(u32, u32, u32), Vec<Partial>> =
                    std::collections::BTreeMap::new();
                for (&(ones, n0, n1), partials) in &states {
                    for sc in 0..2u32 {
                        let e = costs.edge(sigma, sc);
                        for (jc, points) in table[ci][sc as usize].iter().enumerate() {
                            if points.is_empty() {
                                continue;
                            }
                            let j = ones + jc as u32;
                            // Capacity: socket 1 and socket 0 counts among the subtree so far
                            // plus v itself.
                            let with_v_ones = j + sigma;
                            let with_v_zeros = placed + 1 - with_v_ones;
                            if with_v_ones > ones_total || with_v_zeros > zeros_total {
                                continue;
                            }
                            let key = if sc == 0 {
                                (j, n0 + 1, n1)
                            } else {
                                (j, n0, n1 + 1)
                            };
                            let set = next.entry(key).or_default();
                            for (pi, pt) in points.iter().enumerate() {
                                for part in partials {
                                    let mut arr = part.arr;
                                    let s = sc as usize;
                                    arr[s] = arr[s].max(e + pt.min);
                                    arr[2 + s] = arr[2 + s].max(e + pt.max);
                                    if set.iter().any(|q| dominated4(&arr, &q.arr)) {
                                        continue;
                                    }
                                    let back = Some(Rc::new(Choice {
                                        prev: part.back.clone(),
                                        socket: sc,
                                        ones: jc as u32,
                                        point: pi,
                                    }));
                                    insert4(set, Partial { arr, back });
                                }
                            }
                        }
                    }
                }
                states = next;
            }
            for ((ones, n0, n1), partials) in states {
                let (a_min, a_max) = costs.start(sigma, &[(0, n0), (1, n1)]);
                for part in partials {
                    let mut groups = Vec::with_capacity(2);
                    for (s, count) in [(0u32, n0), (1u32, n1)] {
                        if count > 0 {
                            groups.push(Group {
                                socket: s,
                                count,
                                arrival_min: a_min + part.arr[s as usize],
                                arrival_max: a_max + part.arr[2 + s as usize],
                            });
                        }
                    }
                    let (lo, hi) = costs.finish(sigma, &groups);
                    let j = (ones + sigma) as usize;
                    if j < result.len() {
                        insert2(
                            &mut result[j],
                            Point {
                                min: lo,
                                max: hi,
                                back: part.back.clone(),
                            },
                        );
                    }
                }
            }
            table[vi][sigma as usize] = result;
        }
    }
    let root = tree.root() as usize;
    let points = table[root][root_socket as usize].get(ones_total as usize)?;
    let off = costs.root_offset();
    let (best_i, _) = points
        .iter()
        .enumerate()
        .min_by_key(|(i, p)| (cost_key(objective, off + p.min, off + p.max), *i))?;
    // Walk the choices back down the tree.
    let mut sockets = vec![0u32; n];
    let mut stack = vec![(root as u32, root_socket, best_i, ones_total)];
    while let Some((v, s, pi, ones)) = stack.pop() {
        sockets[v as usize] = s;
        let point = &table[v as usize][s as usize][ones as usize][pi];
        let mut choice = point.back.clone();
        for &c in tree.children(v).iter().rev() {
            let Some(ch) = choice else { break };
            stack.push((c, ch.socket, ch.point, ch.ones));
            choice = ch.prev.clone();
        }
    }
    let cost = costs.evaluate(tree, &sockets).ok()?;
    Some(Placement { sockets, cost })
}

/// The exact placement for any number of sockets as a MILP (good_lp, microlp), lexicographic:
/// first the objective's score, then the other bound with the score held at its optimum.
///
/// microlp can report a singular basis on big-M models (a known limitation of the solver); the
/// model is then solved again in other time units (R_R, 1 ns, 100 ns) before giving up.
pub fn milp(
    tree: &RootedTree,
    counts: &[u32],
    root_socket: u32,
    pricing: &dyn PlacedTreeCost,
    objective: &Objective,
) -> Result<Placement, PlacementError> {
    let Some(classes) = pricing
        .line_classes()
        .filter(|c| c.domains.is_none_or(|d| d.per_socket <= 1))
    else {
        return Err(PlacementError::Form);
    };
    let costs = &classes;
    if !feasible(tree, counts, root_socket) {
        return Err(PlacementError::Counts {
            counts: counts.to_vec(),
            nodes: tree.len(),
            root: root_socket,
        });
    }
    let mut last = PlacementError::Solver("no attempt".into());
    for unit in [costs.socket, 1.0, 100.0] {
        if !(unit.is_finite() && unit > 0.0) {
            continue;
        }
        match milp_in_units(tree, counts, root_socket, costs, objective, unit) {
            Ok(sockets) => {
                let cost = pricing
                    .evaluate(tree, &sockets)
                    .map_err(|e| PlacementError::Solver(e.to_string()))?;
                return Ok(Placement { sockets, cost });
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

#[allow(clippy::needless_range_loop)] // x[v][s] is indexed by node and socket throughout
fn milp_in_units(
    tree: &RootedTree,
    counts: &[u32],
    root_socket: u32,
    costs: &LineClasses,
    objective: &Objective,
    unit: f64,
) -> Result<Vec<u32>, PlacementError> {
    use good_lp::{
        microlp, variable, Expression, ProblemVariables, Solution, SolverModel, Variable,
    };
    let n = tree.len();
    let ns = counts.len();
    let rr = costs.socket / unit;
    let rq = costs.remote / unit;
    let ri = costs.memory / unit;
    let rqi = costs.remote_memory / unit;
    let rl = costs.local / unit;
    // Big-M: an upper bound on any subtree's T_max (every node at its dearest: all fetches
    // remote, every child across sockets, one wait per socket), with room to spare.
    let internal = (0..n)
        .filter(|&v| !tree.children(v as u32).is_empty())
        .count() as f64;
    let upper =
        internal * (2.0 * rqi + (2.0 + ns as f64) * rq + rl) + 4.0 * (n as f64 - 1.0) * rq + rl;
    let big_m = 2.0 * upper;
    // Stage 1 minimizes the score; stage 2 the other bound with the score fixed.
    let (w_min, w_max) = match objective {
        Objective::Min => (1.0, 0.0),
        Objective::Max => (0.0, 1.0),
        Objective::Blend(w) => (1.0 - w, *w),
    };
    let solve = |stage2: Option<f64>| -> Result<(Vec<u32>, f64), PlacementError> {
        let mut vars = ProblemVariables::new();
        // The root's socket is fixed by bounds.
        let root = tree.root() as usize;
        let x: Vec<Vec<Variable>> = (0..n)
            .map(|v| {
                (0..ns)
                    .map(|s| {
                        if v == root {
                            let fixed = f64::from(u8::from(s == root_socket as usize));
                            vars.add(variable().integer().min(fixed).max(fixed))
                        } else {
                            vars.add(variable().binary())
                        }
                    })
                    .collect()
            })
            .collect();
        // Leaves finish at 0: fixed by bounds rather than equalities (redundant equalities make
        // microlp's basis singular).
        let bound = |v: usize| {
            if tree.children(v as u32).is_empty() {
                variable().min(0.0).max(0.0)
            } else {
                variable().min(0.0)
            }
        };
        let t_min: Vec<Variable> = (0..n).map(|v| vars.add(bound(v))).collect();
        let t_max: Vec<Variable> = (0..n).map(|v| vars.add(bound(v))).collect();
        let mut cons: Vec<good_lp::Constraint> = Vec::new();
        for v in (0..n).filter(|&v| v != root) {
            let one: Expression = x[v].iter().copied().map(Expression::from).sum();
            cons.push(one.eq(1.0));
        }
        // The last socket's count follows from the others and the one-socket-per-node rows.
        for (s, &c) in counts.iter().enumerate().take(ns - 1) {
            let total: Expression = (0..n).map(|v| Expression::from(x[v][s])).sum();
            cons.push(total.eq(f64::from(c)));
        }
        for p in 0..n {
            let kids = tree.children(p as u32);
            if kids.is_empty() {
                continue;
            }
            // y[c] = 1 when child c is on another socket than p.
            let y: Vec<Variable> = kids
                .iter()
                .map(|_| vars.add(variable().min(0.0).max(1.0)))
                .collect();
            for (i, &c) in kids.iter().enumerate() {
                for s in 0..ns {
                    cons.push((Expression::from(y[i]) - x[p][s] + x[c as usize][s]).geq(0.0));
                }
            }
            // r = 1 when some child is on another socket (re-read and fetch of T_max).
            let r = vars.add(variable().min(0.0).max(1.0));
            for &yi in &y {
                cons.push((Expression::from(r) - yi).geq(0.0));
            }
            let inv: Expression = y.iter().map(|&yi| rr + (rq - rr) * yi).sum::<Expression>();
            let a_max: Expression = ri + (rqi - ri) * r + 2.0 * inv + rr + (rq - rr) * r;
            let mut w_prev_min: Option<Variable> = None;
            let mut w_prev_max: Option<Variable> = None;
            for s in 0..ns {
                let e = vars.add(variable().binary());
                let count: Expression = kids
                    .iter()
                    .map(|&c| Expression::from(x[c as usize][s]))
                    .sum();
                // z[c] = child c on s while p is not.
                let mut z_sum = Expression::from(0.0);
                for &c in kids {
                    let z = vars.add(variable().min(0.0).max(1.0));
                    cons.push((Expression::from(z) - x[c as usize][s] + x[p][s]).geq(0.0));
                    z_sum += z;
                    cons.push((Expression::from(e) - x[c as usize][s]).geq(0.0));
                }
                let not_here = 1.0 - Expression::from(x[p][s]);
                let read = rr + (rq - rr) * not_here.clone();
                let g_min = vars.add(variable().min(0.0));
                let g_max = vars.add(variable().min(0.0));
                for (i, &c) in kids.iter().enumerate() {
                    let ci = c as usize;
                    let edge = rr + (rq - rr) * y[i] + rl;
                    let relax = big_m * (1.0 - Expression::from(x[ci][s]));
                    let arr_min = ri + edge.clone() + t_min[ci];
                    cons.push(
                        (Expression::from(g_min) - (arr_min + ri + rr * (count.clone() - 1.0))
                            + relax.clone())
                        .geq(0.0),
                    );
                    let arr_max = a_max.clone() + edge + t_max[ci];
                    let steals = rr * count.clone() + (rq - rr) * z_sum.clone();
                    let rereads = steals.clone() - read.clone();
                    let fetch = ri + (rqi - ri) * not_here.clone();
                    cons.push(
                        (Expression::from(g_max) - (arr_max + fetch + steals + rereads) + relax)
                            .geq(0.0),
                    );
                }
                let w_min = vars.add(variable().min(0.0));
                let w_max = vars.add(variable().min(0.0));
                let off = big_m * (1.0 - Expression::from(e));
                for (w, g, prev) in [(w_min, g_min, w_prev_min), (w_max, g_max, w_prev_max)] {
                    cons.push((Expression::from(w) - g - read.clone() + off.clone()).geq(0.0));
                    if let Some(pv) = prev {
                        cons.push((Expression::from(w) - pv).geq(0.0));
                        cons.push((Expression::from(w) - pv - read.clone() + off.clone()).geq(0.0));
                    }
                }
                w_prev_min = Some(w_min);
                w_prev_max = Some(w_max);
            }
            if let (Some(wm), Some(wx)) = (w_prev_min, w_prev_max) {
                cons.push((Expression::from(t_min[p]) - wm).geq(0.0));
                cons.push((Expression::from(t_max[p]) - wx).geq(0.0));
            }
        }
        let score = w_min * Expression::from(t_min[root]) + w_max * Expression::from(t_max[root]);
        let other = if w_min >= w_max {
            Expression::from(t_max[root])
        } else {
            Expression::from(t_min[root])
        };
        let goal = match stage2 {
            None => score.clone(),
            Some(best) => {
                cons.push(score.leq(best + 1e-7));
                other
            }
        };
        let mut model = vars.minimise(goal.clone()).using(microlp);
        for c in cons {
            model = model.with(c);
        }
        let solution = model
            .solve()
            .map_err(|e| PlacementError::Solver(e.to_string()))?;
        let sockets: Vec<u32> = (0..n)
            .map(|v| {
                (0..ns)
                    .max_by(|&a, &b| solution.value(x[v][a]).total_cmp(&solution.value(x[v][b])))
                    .unwrap_or(0) as u32
            })
            .collect();
        Ok((sockets, solution.eval(&goal)))
    };
    let (_, best) = solve(None)?;
    let (sockets, _) = solve(Some(best))?;
    Ok(sockets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_chain_of_a_million_children_drops_without_recursion() {
        // The chain a node with a million children builds; the default drop would recurse
        // a million frames deep and overflow the test thread's 2 MiB stack.
        let mut back: Option<Rc<Choice>> = None;
        for i in 0..1_000_000u32 {
            back = Some(Rc::new(Choice {
                prev: back,
                socket: i % 2,
                ones: 0,
                point: 0,
            }));
        }
        let shared = back.clone();
        drop(back);
        // The other owner keeps the whole chain alive until it drops it too.
        assert_eq!(shared.as_ref().map(|c| c.socket), Some(1));
        drop(shared);
    }
}
