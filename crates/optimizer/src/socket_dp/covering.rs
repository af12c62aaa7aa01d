//! The covering pass: the least T_min of every state of the socket DP, from corners
//! (docs/cla.md §11, "The covering pass"); or, for a bound under `--objective max` and blends,
//! the least of a relaxation of the score ([`Prices`]).
//!
//! ## What it computes
//! For every unit σ and count vector c of the box, **T̂(σ, c)**: the least T_min over the rooted
//! trees on σ that hold *at least* c_s nodes on every unit s (they *cover* c; a unit the box
//! gives no room stays empty), and the same for every forest of k trees on one unit, every
//! group's `min (M + (k − 1)·R_R)` and every node stage of the parent module's DP. These are the
//! tables the backward pass (`ScalarPass::backward`) reads.
//!
//! The box may also be a *clip* of a request too large for these tables (every unit at most
//! the request's count): its whole-box value then bounds the request, whose trees all cover the
//! clip, provided a group may hold as many trees as the request's widest unit (`widest` of
//! [`cover`], not the box's).
//!
//! ## Why it is right
//! Every tree that holds exactly c covers c, so **T̂ ≤ T**, the exact least T_min over trees of
//! exactly c: a certified lower bound at the request, and a sound forward table for the backward
//! pass, whose budgets need only lower bounds of the least values (an under-estimate there only
//! lets more through). Where the exact least value does not drop when nodes are added
//! (T(σ, c') ≥ T(σ, c) for every c' ≥ c in the box), T̂ = T; that holds for most requests but
//! not all, even on the E5-2660: a root alone on its unit keeps all its children on another
//! unit in one group, one line, and a second node on the root's unit can relay some of them
//! and split that chain over two lines ([9, 1] rooted on socket 1: 612.6 ns exactly, 579.9 ns
//! with a relay, [9, 2]). The caller never relies on tightness: the Pareto pass that follows
//! is exact on its own and finds no tree within a bound that is too low, and the caller then
//! widens it (`SocketTable::build_for`).
//!
//! ## Why it is fast
//! A covering function is non-decreasing in c, so it is fixed by its **corners**: the points m
//! whose value rises in every direction the box allows (f(d) = min over corners m ≥ d). The
//! DP's recurrences are (min, max) convolutions, and a convolution of two covering functions is
//! the covering function of the pairwise sums of their corners (clipped to the box), with the
//! larger of the two values: a product of two corner lists instead of every pair d ≤ r of the
//! box. On four sockets of 16 threads the box has 83,521 count vectors and 5.5·10⁸ such pairs a
//! convolution; the functions have a few thousand corners each (docs/perf.md).
//!
//! ## Order: by height, semi-naive
//! Round h computes the covering functions of trees of height at most h from those of round
//! h − 1 (leaves at h = 0). A round whose trees gain nothing is a fixed point. Each round
//! convolves only what is new: (A ∪ ΔA) ⊛ (B ∪ ΔB) = A ⊛ B ∪ ΔA ⊛ (B ∪ ΔB) ∪ A ⊛ ΔB, and A ⊛ B is
//! already in the table, so a round pairs every new corner once. New corners are the corners
//! whose value dropped (a point only becomes a corner by getting cheaper).
//!
//! After each update a table is made an envelope again and its corners listed, a sweep in
//! descending index order (`Grid::settle`, most of the pass's own time). An entry's envelope and
//! whether it is a corner read only the entries above it, so the sweep starts at the highest
//! entry the update lowered and keeps the corners above it (`Grid::settle_below`): 15–25 %
//! faster on whole requests (docs/perf.md "The covering pass settles from the highest change"),
//! the same tables to the bit. The sweep goes one unit at a time over blocks that stay in cache
//! (the envelope is separable), so that all units but the lowest lower whole runs of entries at
//! once, which the compiler vectorizes (`Grid::settle_in_blocks`; docs/perf.md "The covering
//! pass settles one unit at a time").
//!
//! ## Precision: `f32`, rounded towards what stays sound
//! The tables hold [`Bound`]s, `f32`: the node stages' tables, one per suffix state and unit,
//! are most of the pass's memory (48 threads on eight L3 domains: 744 of every count vector's
//! 792 entries), and half the bytes take the exact search twice as far (docs/perf.md). Every
//! value is computed in `f64` from the stored ones and stored rounded **down** ([`below`]), so
//! every entry stays at most the `f64` value it stands for, itself at most the exact least
//! value: still a lower bound, which is all the backward pass and the certified bound need.
//! The backward pass's budgets are stored rounded **up** ([`above`]), so they stay at least
//! what they stand for and prune no more than before. What is lost is tightness, by at most
//! one `f32` step (2⁻²³ of the value, 0.00015 ns at 1,300 ns) per stored step on a tree's
//! longest chain; the first Pareto pass therefore asks for a [`ROUNDING_MARGIN`] above the
//! bound (`SocketTable::build_for`). Rounding cannot make a round go on for ever: a value
//! computed from a stored x by adding costs ≥ 0 is at least x, and x is an `f32`, so it rounds
//! down to x or above.
//!
//! ## Limits
//! Corners above what can still beat the incumbent are dropped (their points cannot be part of
//! a tree that does), which is what the passes' `hopeless` cuts do. Each product's pairs are
//! counted against the work allowance, and the deadline is read after every function: both
//! stop the pass, which then has no answer (it is a relaxation only when complete).

use super::{relation_index, Suffix, MAX_SOCKETS};
use crate::limits::Deadline;
use crate::objective::Objective;
use modelopt_model::placed_tree::{LineClasses, UnitRelation};

/// One entry of the covering pass's tables and of the backward pass's budgets (see the module
/// docs, "Precision").
pub(super) type Bound = f32;

/// `v` as a [`Bound`] at most `v`: the largest `f32` not above it (`∞` stays `∞`, a finite value
/// past `f32::MAX` becomes `f32::MAX`, `−∞` stays `−∞`).
pub(super) fn below(v: f64) -> Bound {
    let b = v as f32;
    if f64::from(b) > v {
        b.next_down()
    } else {
        b
    }
}

/// `v` as a [`Bound`] at least `v`: the least `f32` not below it.
pub(super) fn above(v: f64) -> Bound {
    let b = v as f32;
    if f64::from(b) < v {
        b.next_up()
    } else {
        b
    }
}

/// How far above the covering bound the first Pareto pass looks, relative to the bound: the
/// stored bound may be below the `f64` one by one `f32` step per stored step of the chain that
/// decides it (a few hundred steps in a tree of a few levels: 2⁻¹⁵ of the value), and a first
/// pass a little too low would miss an optimum equal to the bound and run again wider. 2⁻¹²
/// (0.3 ns at 1,300 ns) covers 2,048 steps; a wider first pass costs next to nothing.
pub const ROUNDING_MARGIN: f64 = 1.0 / 4096.0;

/// Most nodes one unit of the box may hold: count vectors are stored with `u16` components.
/// Larger boxes are refused before the pass (their tables would be far over memory anyway).
pub(super) const MAX_UNIT_NODES: u32 = u16::MAX as u32;

/// One corner of a covering function: its count vector (index and components) and value.
#[derive(Debug, Clone, Copy)]
struct Corner {
    idx: u32,
    at: [u16; MAX_SOCKETS],
    value: f64,
}

/// The box of count vectors [0, N_0] × … × [0, N_{S−1}], indexed in mixed radix (unit 0 the
/// lowest digit), as the parent module's tables are.
#[derive(Debug, Clone)]
struct Grid {
    n: Vec<usize>,
    stride: Vec<usize>,
    states: usize,
    /// `comps[idx · S + s]`: the components of every count vector.
    comps: Vec<u16>,
    /// `clip[s][v]` = min(v, N_s) · stride_s for v in 0..=2·N_s: where a sum of two
    /// components lands in the box.
    clip: Vec<Vec<u32>>,
    /// When the pass must stop: a product checks it every [`PAIRS_PER_LOOK`] pairs (one
    /// product of two large corner lists took 20 ms at 4 × 16 under max, past a 1 s limit).
    deadline: Deadline,
}

/// Corner pairs a product tries between two looks at the deadline.
const PAIRS_PER_LOOK: u64 = 1 << 16;

/// Indices [`Grid::settle`] sweeps at a time: 8,192 entries (32 KiB) and their mask stay in
/// cache while every unit's step passes over them.
const SETTLE_BLOCK: usize = 8192;

impl Grid {
    fn new(counts: &[u32], deadline: Deadline) -> Self {
        let n: Vec<usize> = counts.iter().map(|&c| c as usize).collect();
        let mut stride = vec![1usize; n.len()];
        for s in 1..n.len() {
            stride[s] = stride[s - 1] * (n[s - 1] + 1);
        }
        let states = n.iter().map(|&c| c + 1).product();
        let mut comps = vec![0u16; states * n.len()];
        for idx in 0..states {
            for s in 0..n.len() {
                comps[idx * n.len() + s] = ((idx / stride[s]) % (n[s] + 1)) as u16;
            }
        }
        let clip = n
            .iter()
            .zip(&stride)
            .map(|(&cap, &st)| (0..=2 * cap).map(|v| (v.min(cap) * st) as u32).collect())
            .collect();
        Grid {
            n,
            stride,
            states,
            comps,
            clip,
            deadline,
        }
    }

    fn units(&self) -> usize {
        self.n.len()
    }

    fn component(&self, idx: usize, s: usize) -> usize {
        self.comps[idx * self.units() + s] as usize
    }

    fn corner(&self, idx: usize, value: f64) -> Corner {
        let s_count = self.units();
        let mut at = [0u16; MAX_SOCKETS];
        at[..s_count].copy_from_slice(&self.comps[idx * s_count..idx * s_count + s_count]);
        Corner {
            idx: idx as u32,
            at,
            value,
        }
    }

    /// Turn `f` into its envelope, f(d) = min over d' ≥ d of f(d') (the least value of everything
    /// that covers d), and list its corners whose value is at most `cap(idx)`, sorted by value
    /// (then index: a fixed order). A point d is a corner exactly when f(d) is below the
    /// envelope at every point above it (d + e_s), i.e. when its own envelope is.
    fn settle(&self, f: &mut [Bound], cap: impl Fn(usize) -> f64, out: &mut Vec<Corner>) {
        out.clear();
        self.settle_below(self.states, f, cap, out);
    }

    /// [`Grid::settle`] of a table that was an envelope already but for the entries below
    /// `end` (indices `end..` unchanged since it was settled, with the same `cap`): only
    /// `0..end` is swept, and `out`, which holds on entry the corners of the table as it was
    /// settled, keeps those at `end` or above. Exact: an entry's envelope and whether it is a
    /// corner read only the entries above it, so neither changes at `end` or above.
    fn settle_below(
        &self,
        end: usize,
        f: &mut [Bound],
        cap: impl Fn(usize) -> f64,
        out: &mut Vec<Corner>,
    ) {
        self.settle_in_blocks(end, f, cap, out, SETTLE_BLOCK);
    }

    /// [`Grid::settle_below`], sweeping `0..end` in blocks of `block` indices from the top.
    ///
    /// The envelope is separable: the points above d are a product of intervals, so the least
    /// over them is taken one unit at a time, f(d) = min(f(d), f(d + e_s)) for unit 0, then
    /// unit 1, …, each in descending index order. Every step takes the least of values standing
    /// for points above d, so no entry goes below its envelope; and an entry of a higher block,
    /// already its envelope, is at most what the one-unit-at-a-time sweep would hold there, so a
    /// block swept after the blocks above it ends at its envelope too. Inside a block the units
    /// above 0 lower whole runs of entries from the run one step up (contiguous slices, which the
    /// compiler vectorizes); the unit of stride 1 (unit 0, or the first unit holding nodes) is a
    /// short chain per line. Then the block's corners: d is
    /// one when its envelope is below the envelope at every d + e_s (then it is f(d) itself),
    /// marked unit by unit in a mask of the block (cleared first; the unit of stride 1
    /// overwrites it). A block is a few pages of memory, so a sweep reads the table about once
    /// from memory, with a stream per unit, as a single sweep with all S neighbours did (that
    /// one was a serial chain of scalar minima through each entry).
    fn settle_in_blocks(
        &self,
        end: usize,
        f: &mut [Bound],
        cap: impl Fn(usize) -> f64,
        out: &mut Vec<Corner>,
        block: usize,
    ) {
        out.retain(|c| c.idx as usize >= end);
        let block = block.max(1);
        let mut not_corner = vec![false; block.min(end)];
        let mut top = end;
        while top > 0 {
            let bottom = top.saturating_sub(block);
            for s in 0..self.units() {
                self.lower_from_above(s, bottom, top, f);
            }
            let mask = &mut not_corner[..top - bottom];
            mask.fill(false);
            for s in 0..self.units() {
                self.mark_ties_above(s, bottom, top, f, mask);
            }
            for (idx, _) in (bottom..top).zip(mask.iter()).filter(|&(_, &tie)| !tie) {
                let value = f64::from(f[idx]);
                if value < f64::INFINITY && value <= cap(idx) {
                    out.push(self.corner(idx, value));
                }
            }
            top = bottom;
        }
        out.sort_unstable_by(|a, b| a.value.total_cmp(&b.value).then(a.idx.cmp(&b.idx)));
    }

    /// The runs of `bottom..top` on which unit `s` can still go up, in descending order: with
    /// stride t and top count n, the indices whose digit s is below n, cut into pieces of
    /// consecutive indices (at most t long) that share that digit.
    fn runs_below_top(
        &self,
        s: usize,
        bottom: usize,
        top: usize,
    ) -> impl Iterator<Item = (usize, usize)> + '_ {
        let (stride, n) = (self.stride[s], self.n[s]);
        // Runs of t indices, numbered from 0; the run's number modulo n + 1 is its digit s.
        let mut run = top.saturating_sub(1) / stride;
        let mut digit = run % (n + 1);
        let mut done = top <= bottom;
        std::iter::from_fn(move || {
            while !done {
                let lo = (run * stride).max(bottom);
                let hi = ((run + 1) * stride).min(top);
                let here = digit;
                done = lo == bottom;
                run = run.saturating_sub(1);
                digit = if digit == 0 { n } else { digit - 1 };
                if here < n {
                    return Some((lo, hi));
                }
            }
            None
        })
    }

    /// One unit's step of the envelope over `bottom..top` (see [`Grid::settle_in_blocks`]):
    /// f(d) = min(f(d), f(d + e_s)) in descending index order, where d + e_s is in the box.
    fn lower_from_above(&self, s: usize, bottom: usize, top: usize, f: &mut [Bound]) {
        let (stride, n) = (self.stride[s], self.n[s]);
        if n == 0 || top <= bottom {
            return;
        }
        if stride == 1 {
            // Stride 1 (unit 0, or the first unit holding nodes): a chain along each line of
            // n + 1 entries (lines are independent, so the chains of consecutive lines overlap
            // in the processor).
            let line = n + 1;
            let mut start = (top - 1) / line * line;
            loop {
                let entries = &mut f[start..start + line];
                let hi = (top - start).min(n);
                let lo = bottom.saturating_sub(start);
                for j in (lo..hi).rev() {
                    let up = entries[j + 1];
                    let here = entries[j];
                    entries[j] = if up < here { up } else { here };
                }
                if start <= bottom {
                    break;
                }
                start -= line;
            }
            return;
        }
        for (lo, hi) in self.runs_below_top(s, bottom, top) {
            // The run one step up, [lo + t, hi + t), lies wholly above this one (hi − lo ≤ t).
            let (low, high) = f.split_at_mut(lo + stride);
            for (x, &y) in low[lo..hi].iter_mut().zip(&high[..hi - lo]) {
                *x = if y < *x { y } else { *x };
            }
        }
    }

    /// Marks in `mask` (indexed from `bottom`) the entries of `bottom..top` whose envelope is
    /// not below the envelope one step up on unit `s` (so they are no corner). The unit of
    /// stride 1 (unit 0, or the first unit holding nodes: those before it add nothing) must be
    /// marked first: it overwrites the mask, the others add to it.
    fn mark_ties_above(&self, s: usize, bottom: usize, top: usize, f: &[Bound], mask: &mut [bool]) {
        let (stride, n) = (self.stride[s], self.n[s]);
        if n == 0 || top <= bottom {
            return;
        }
        if stride == 1 {
            // Every entry against the next one, then the tops of the lines (digit n, nothing
            // above on this unit) cleared.
            let compared = top.min(self.states - 1).max(bottom);
            for ((tie, &x), &y) in mask
                .iter_mut()
                .zip(&f[bottom..compared])
                .zip(&f[bottom + 1..])
            {
                *tie = x >= y;
            }
            mask[compared - bottom..top - bottom].fill(false);
            let line = n + 1;
            let first_top = bottom + (n + line - bottom % line) % line;
            for idx in (first_top..top).step_by(line) {
                mask[idx - bottom] = false;
            }
            return;
        }
        for (lo, hi) in self.runs_below_top(s, bottom, top) {
            let here = &f[lo..hi];
            let above = &f[lo + stride..hi + stride];
            for ((tie, &x), &y) in mask[lo - bottom..hi - bottom]
                .iter_mut()
                .zip(here)
                .zip(above)
            {
                *tie |= x >= y;
            }
        }
    }

    /// Into `out`, every pairwise sum of a corner of `a` (value raised by `shift`) and one of
    /// `b` (sorted by value, raised by `shift_b`), clipped to the box, with the larger value,
    /// where it lowers `out` (each lowered entry marked in `marks`) and is at most `cap`.
    /// Returns the pairs tried; stops early once the deadline has passed (the caller then stops
    /// the pass).
    #[allow(clippy::too_many_arguments)]
    fn product(
        &self,
        a: &[Corner],
        shift: f64,
        b: &[Corner],
        shift_b: f64,
        cap: f64,
        out: &mut [Bound],
        marks: &mut Marks,
    ) -> u64 {
        let s_count = self.units();
        let mut pairs = 0u64;
        let mut rows: [&[u32]; MAX_SOCKETS] = [&[]; MAX_SOCKETS];
        for x in a {
            let va = x.value + shift;
            if va > cap {
                continue;
            }
            // Where each of x's components lands with each of y's.
            for (s, row) in rows.iter_mut().enumerate().take(s_count) {
                *row = &self.clip[s][x.at[s] as usize..];
            }
            for y in b {
                let vb = y.value + shift_b;
                if vb > cap {
                    break;
                }
                pairs += 1;
                if pairs.is_multiple_of(PAIRS_PER_LOOK) && self.deadline.passed() {
                    return pairs;
                }
                let v = va.max(vb);
                let mut idx = 0usize;
                for (row, &c) in rows.iter().zip(&y.at).take(s_count) {
                    idx += row[c as usize] as usize;
                }
                // Rounded only where it may lower the entry (most pairs do not).
                if v < f64::from(out[idx]) {
                    let v = below(v);
                    if v < out[idx] {
                        out[idx] = v;
                        marks.mark(idx);
                    }
                }
            }
        }
        pairs
    }
}

/// Lower `f` to the values of `corners` where they are below it (a stage passing the one
/// before it on without a group), marking what it lowers. A corner's value is a stored
/// [`Bound`] (or the empty node's −∞), so `below` keeps it as it is.
fn lower_to(f: &mut [Bound], corners: &[Corner], marks: &mut Marks) {
    for c in corners {
        let v = below(c.value);
        if v < f[c.idx as usize] {
            f[c.idx as usize] = v;
            marks.mark(c.idx as usize);
        }
    }
}

/// One update's work on a table: lower entries, marking each in the [`Marks`] (which then say
/// whether and where anything changed); returns the corner pairs tried.
type Fill<'a> = dyn FnMut(&mut [Bound], &mut Marks) -> u64 + 'a;

/// The entries an update lowered: a bit each, and one past the highest. What the settle after
/// it needs (it sweeps below the highest, `Grid::settle_below`) and which of the new corners
/// dropped (those lowered: an entry not lowered keeps its value, the envelope it had), without
/// a copy of the table to compare with (1/32 of its bytes).
#[derive(Debug)]
struct Marks {
    bits: Vec<u64>,
    end: usize,
}

impl Marks {
    fn new(states: usize) -> Self {
        Marks {
            bits: vec![0; states.div_ceil(64)],
            end: 0,
        }
    }

    fn mark(&mut self, i: usize) {
        self.bits[i / 64] |= 1 << (i % 64);
        self.end = self.end.max(i + 1);
    }

    fn is_marked(&self, i: usize) -> bool {
        self.bits[i / 64] >> (i % 64) & 1 == 1
    }

    /// Clear every mark (all lie below `end`).
    fn clear(&mut self) {
        let words = self.end.div_ceil(64);
        self.bits[..words].fill(0);
        self.end = 0;
    }
}

/// One covering function over the grid with the bookkeeping of a semi-naive round.
#[derive(Debug, Clone, Default)]
struct Stair {
    dense: Vec<Bound>,
    corners: Vec<Corner>,
    /// The corners before the last update (kept where a later product needs "A" of ΔA ⊛ B).
    prev: Vec<Corner>,
    /// The corners of the last update whose value dropped (ΔA).
    fresh: Vec<Corner>,
}

impl Covered {
    /// The forests as one row of K per state, `rows[s][d · K + k − 1]` (k = 1 the tree), the
    /// layout the backward pass reads a forest's tree counts in; each unit's per-k tables are
    /// released as its rows are built.
    pub fn forest_rows(&mut self) -> Vec<Vec<Bound>> {
        let k_max = self.most_trees;
        let mut rows = Vec::with_capacity(self.tree.len());
        for (t, fs) in self.tree.iter().zip(self.forests.iter_mut()) {
            let mut row = vec![Bound::INFINITY; t.len() * k_max];
            for (d, &v) in t.iter().enumerate() {
                row[d * k_max] = v;
            }
            for (k, f) in (1..).zip(std::mem::take(fs)) {
                for (d, v) in f.into_iter().enumerate() {
                    row[d * k_max + k] = v;
                }
            }
            rows.push(row);
        }
        rows
    }
}

/// Why the pass produced no tables.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum CoverStop {
    /// The deadline passed.
    Deadline,
    /// The pairs of the corner products passed the allowance.
    Work,
}

/// The tables of a complete pass, in the layouts of the parent module's `ScalarPass` (values
/// without the offset R_L; `∞` where nothing fits under the incumbent).
#[derive(Debug)]
pub(super) struct Covered {
    /// `tree[σ][c]`: T̂(σ, c); `∞` where c holds no node on σ (the exact DP's domain).
    pub tree: Vec<Vec<Bound>>,
    /// `forests[s][k − 2][d]`: the least latest T_min of k trees on s covering d, 2 ≤ k ≤ K
    /// (k = 1 is `tree`); `∞` where d holds fewer than k nodes on s.
    pub forests: Vec<Vec<Vec<Bound>>>,
    /// K.
    pub most_trees: usize,
    /// `group_min[s][kind][d]`: min over k of forests + (k − 1)·slope; `∞` where d holds no
    /// node on s. One kind (T_min: the slope R_R), or one per relation to the parent in
    /// [`super::relation_index`] order (T_max: 4·x(σ, s), [`Prices::group_kind`]).
    pub group_min: Vec<Vec<Vec<Bound>>>,
    /// `nodes[σ][stage][suffix][r]`: the least T_min so far of a node on σ whose groups on the
    /// units from `stage` up cover r, with that [`Suffix`] state; empty where no tree reaches
    /// that state (read as `∞`).
    pub nodes: Vec<Vec<Vec<Vec<Bound>>>>,
    /// Under [`Stages::AscendingWithUpper`], `upper[σ][stage][r]`: a lower bound of the T_min
    /// so far of every partial node on σ whose groups on the units from `stage` up cover r
    /// (whatever its suffix state); empty otherwise, and for a σ the box leaves empty.
    pub upper: Vec<Vec<Vec<Bound>>>,
    /// Corner pairs tried.
    pub pairs: u64,
}

/// What the pass's recurrences add: the socket-line form's T_min terms, a relaxation of its
/// T_max terms, or a blend of the two, for the score of the objective the pass bounds
/// (docs/cla.md §11, "Bounds under max and blends").
///
/// **T_max, relaxed.** A node p on σ whose children on unit s form groups of k_s trees
/// (slowest M_s) pays, under T_max (`LineClasses`), with x_s = x(σ, s):
///
/// T(p) = A + max_s (x_s + R_L + M_s + mem(s, σ) + (2·k_s − 1)·x_s + x_s + W_{>s}),
/// A = max_t mem(σ, t) + max_t x_t + Σ_t D_t,  D_t = 2·k_t·x_t,
///
/// the edge, the group's adds and its wait, then W_{>s} = Σ of x_t over the groups on units
/// above s (waited after s). A is shared by every group, which a DP over groups one unit at a
/// time cannot carry whole. Taking the groups in descending unit order (as the node stages do),
/// with P the units already taken, V_P = max_{t∈P} (mem(σ, t) + x_t + term_t) + Σ_{t∈P} D_t is
/// at most T(p) once P holds every group (the maxima are at least any one group's terms), and
/// V_{P∪s} = max(V_P, term'_s + Σ_{t∈P} D_t) + D_s ≥ max(V_P + 2·x_s, term'_s + 2·W_{>s} + D_s),
/// because every group above holds a tree (D_t ≥ 2·x_t, and Σ_{t∈P} x_t is W_{>s}). So a group
/// adds, above its slowest child, mem(σ, s) + mem(s, σ) + R_L + 6·x_s + 3·W_{>s} for its first
/// tree and 4·x_s for each further one, and the stage above it is raised by 2·x_s; the maxima
/// mem(σ, t) and x_t are taken over this group and the groups above it, whose relations the
/// suffix state knows ([`Prices::stage_shifts`]). Every term is at most T_max's, and all are
/// non-decreasing in the children's values, so by induction over the tree the relaxed value
/// of every placed tree is at most its T_max; on one socket it is T_max itself (2·R_I + R_L +
/// 2·R_R + 4k·R_R per level, §7). What it gives up: the maxima of the groups below, the further
/// trees of groups above (2·(k_t − 1)·x_t each) and, for the groups below, their shares D_t.
///
/// **Blends.** (1 − w)·max(a, b) + w·max(c, d) ≥ max((1 − w)·a + w·c, (1 − w)·b + w·d), so the
/// recurrence with every term blended is at most the blended score of every tree: the pass
/// with the blended terms bounds a blend, T_min (w = 0) and T_max (w = 1) being its ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Prices {
    /// w: the weight of T_max (0 for T_min).
    weight: f64,
}

impl Prices {
    /// The terms that bound `objective`'s score.
    pub(super) fn of(objective: &Objective) -> Self {
        let weight = match *objective {
            Objective::Min => 0.0,
            Objective::Max => 1.0,
            Objective::Blend(w) => w,
        };
        Prices { weight }
    }

    fn blend(&self, min: f64, max: f64) -> f64 {
        if self.weight == 0.0 {
            min
        } else {
            (1.0 - self.weight) * min + self.weight * max
        }
    }

    /// Whether these are T_min's terms, which a bound may take in ascending stage order
    /// ([`Stages::Ascending`]).
    pub(super) fn ascends(&self) -> bool {
        self.weight == 0.0
    }

    /// What a group adds per tree past its first, at its least (a parent on the same unit).
    pub(super) fn slope(&self, costs: &LineClasses) -> f64 {
        self.blend(costs.socket, 4.0 * costs.socket)
    }

    /// What a group adds per tree past its first below a parent on a unit of `relation`.
    pub(super) fn slope_to(&self, costs: &LineClasses, relation: UnitRelation) -> f64 {
        self.blend(costs.socket, 4.0 * costs.class(relation))
    }

    /// How many group tables a unit has: one, or (T_max, whose slope depends on the parent's
    /// unit) one per relation to the parent.
    pub(super) fn group_kinds(&self) -> usize {
        if self.weight != 0.0 {
            3
        } else {
            1
        }
    }

    /// Which group table a parent of `relation` ([`super::relation_index`]) reads.
    pub(super) fn group_kind(&self, relation: usize) -> usize {
        relation.min(self.group_kinds() - 1)
    }

    /// The relation of group table `kind` (its slope: [`Prices::slope_to`]).
    pub(super) fn kind_relation(kind: usize) -> UnitRelation {
        match kind {
            0 => UnitRelation::Same,
            1 => UnitRelation::SameSocket,
            _ => UnitRelation::OtherSocket,
        }
    }

    /// A node on `sigma` adding its group on unit `s` (one tree) below the groups above s,
    /// whose waits sum to `waits` and which are in suffix state `above` (so many on other
    /// sockets, on other units of σ's socket, on σ's own unit): (what it adds above the group's
    /// slowest tree, its wait and the waits above included; what it adds to the stage above,
    /// T_max's D_s at k = 1). A_max's maxima, mem and x over all the node's groups, are at
    /// least this group's and those of the groups above: a group on another socket above makes
    /// them R_QI and R_Q, one on another unit of the socket makes x at least R_D.
    pub(super) fn stage_shifts(
        &self,
        costs: &LineClasses,
        sigma: u32,
        s: u32,
        waits: f64,
        above: (usize, usize, usize),
    ) -> (f64, f64) {
        let x = costs.transfer(sigma, s);
        let (far, near, _) = above;
        let (mut fetch_max, mut x_max) = (costs.fetch(sigma, s), x);
        if far > 0 {
            fetch_max = fetch_max.max(costs.remote_memory);
            x_max = x_max.max(costs.class(UnitRelation::OtherSocket));
        }
        if near > 0 {
            fetch_max = fetch_max.max(costs.memory);
            x_max = x_max.max(costs.class(UnitRelation::SameSocket));
        }
        (
            self.blend(
                2.0 * costs.memory + costs.local + 2.0 * x + waits,
                fetch_max + x_max + costs.fetch(s, sigma) + costs.local + 5.0 * x + 3.0 * waits,
            ),
            self.blend(0.0, 2.0 * x),
        )
    }

    /// The least a parent's level adds above a child: the first part of
    /// [`Prices::stage_shifts`] at its least (every class R_R, every fetch R_I, no group above).
    pub(super) fn parent_level(&self, costs: &LineClasses) -> f64 {
        self.blend(
            2.0 * costs.memory + 2.0 * costs.socket + costs.local,
            2.0 * costs.memory + 6.0 * costs.socket + costs.local,
        )
    }
}

/// The most trees a group may hold under `incumbent` (offset included), as `ScalarPass` counts
/// them: a group of k trees costs its parent at least lv_min + (k − 1)·slope above its slowest
/// child (`prices`), and a unit of N nodes roots at most N of them, so at most `widest` (the
/// most nodes one unit of the request holds; for a pass over a smaller box than the request,
/// the request's, not the box's: a group of the request's trees may have more children on a
/// unit than the box has room for there).
pub(super) fn most_trees(
    costs: &LineClasses,
    prices: &Prices,
    widest: u32,
    incumbent: f64,
) -> usize {
    let widest = widest as usize;
    let lv_min = prices.parent_level(costs);
    let room = (incumbent + super::SLACK - costs.offset() - lv_min) / prices.slope(costs);
    if room.is_finite() && room >= 0.0 {
        (room.floor() as usize + 1).min(widest).max(1)
    } else if room < 0.0 {
        1
    } else {
        widest.max(1)
    }
}

/// The count vectors at which a whole tree of the request may stand, where the root's caps
/// (the incumbent itself, not the incumbent less a parent's level) apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WholeTrees {
    /// Those of exactly this many nodes: the box's total for a fixed split, the threads for a
    /// free split (whose whole trees are read at every count vector of that total).
    Exactly(usize),
    /// Those of this many nodes or more: a clip of every split of a free request, whose trees
    /// cover count vectors of different totals, all at least this one.
    AtLeast(usize),
}

impl WholeTrees {
    fn holds(self, total: usize) -> bool {
        match self {
            WholeTrees::Exactly(t) => total == t,
            WholeTrees::AtLeast(t) => total >= t,
        }
    }

    fn least(self) -> usize {
        match self {
            WholeTrees::Exactly(t) | WholeTrees::AtLeast(t) => t,
        }
    }
}

/// The order in which a node's stages take its groups ([`cover`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stages {
    /// Highest unit first, with the suffix state of the groups taken (their waits, and under
    /// max and blends their classes): the layout the backward pass and the Pareto passes read.
    Descending,
    /// Lowest unit first, without a suffix state: for a bound of T_min alone, whose tables are
    /// read at the whole box only (see [`cover`]).
    Ascending,
    /// [`Stages::Ascending`], then the lower bounds of the descending partial nodes without
    /// their suffix states that the backward pass with envelopes reads ([`Covered::upper`]).
    AscendingWithUpper,
}

/// `[σ][stage]`: the least wait x(σ, u) of a unit u above `stage` that the box `counts` gives
/// room (`∞` where there is none): what the groups of a partial node above a stage wait at
/// the least when there are any.
pub(super) fn least_waits_above(costs: &LineClasses, counts: &[u32]) -> Vec<Vec<f64>> {
    (0..counts.len())
        .map(|sigma| {
            (0..counts.len())
                .map(|stage| {
                    (stage + 1..counts.len())
                        .filter(|&u| counts[u] > 0)
                        .map(|u| costs.transfer(sigma as u32, u as u32))
                        .fold(f64::INFINITY, f64::min)
                })
                .collect()
        })
        .collect()
}

/// The covering pass for one request: the box `counts` (units), the most nodes one unit of the
/// request holds (`widest`, which bounds a group's trees: the box's widest unit, or more when
/// the box is a clip of the request, [`most_trees`]), the root's unit, where whole trees stand
/// (`root_total`, [`WholeTrees`]), the incumbent
/// (the score of a known tree under the objective `prices` bound, offset included; `∞` for
/// none). Stops at the deadline or past `allowance` corner pairs.
///
/// **Stage order.** Under T_min a node's value is max over its groups s of (term_s + W_{>s}),
/// term_s = M_s + (k_s − 1)·R_R + 2·R_I + R_L + 2·x_s, W_{>s} the waits x_t of the groups above
/// s (waited after it). Taken highest unit first ([`Stages::Descending`]) a stage must know
/// W of the groups already taken, which is what the suffix state holds (tens of states a
/// stage on L3 domains). Taken lowest unit first ([`Stages::Ascending`]) it need not:
/// V_s = max(V_{s−1} + x_s, term_s) when unit s has a group, V_{s−1} when not, so that V over
/// every unit is the node's value, each group's term raised by the waits of the groups above
/// it; one table a stage. That form has no suffix state for the backward pass to walk and no
/// maxima of classes for the relaxation of T_max, so it serves bounds of T_min read at the
/// whole box ([`super::clipped_covering_bound`]), with far smaller tables and fewer corner
/// pairs; `nodes` is then empty.
#[allow(clippy::too_many_arguments)]
pub(super) fn cover(
    costs: &LineClasses,
    counts: &[u32],
    widest: u32,
    root: usize,
    root_total: WholeTrees,
    incumbent: f64,
    prices: &Prices,
    order: Stages,
    allowance: u64,
    deadline: &Deadline,
) -> Result<Covered, CoverStop> {
    let grid = Grid::new(counts, *deadline);
    let s_count = grid.units();
    let states = grid.states;
    let suffix = Suffix::new(s_count, costs);
    // T_min alone has the ascending form (the relaxation of T_max reads the suffix's classes).
    let ascending = order != Stages::Descending && prices.ascends();
    let w = if ascending { 1 } else { suffix.width() };
    let steps = suffix.all_steps(costs);
    // The suffix states each node stage can reach (groups only on units with room): the
    // others are never touched, so their tables are never allocated.
    let slots = suffix.slots(costs, counts);
    let rr = prices.slope(costs);
    let lv_min = prices.parent_level(costs);
    let whole = states - 1;
    // Values here exclude the offset R_L. A finished node is a child unless it is the root of
    // the whole request; a group's value M + (k − 1)·R_R is below a parent's level.
    let top = incumbent + super::SLACK - costs.offset();
    let cap_child = top - lv_min;
    let k_max = most_trees(costs, prices, widest, incumbent);
    // A node stage on a unit other than the root's belongs to a proper subtree, which has a
    // parent above it. On the root's unit a partial stage (above stage 0) may be the root's own,
    // whatever its children cover so far; a finished one (stage 0) is the root's only where its
    // children cover a whole tree less the root (or, clipped, a whole tree): `root_total − 1`
    // nodes or more. A subtree on the root's unit is a whole tree where `root_total` says.
    let totals: Vec<usize> = (0..states)
        .map(|idx| (0..s_count).map(|s| grid.component(idx, s)).sum())
        .collect();
    let whole_tree = |sigma: usize, idx: usize| sigma == root && root_total.holds(totals[idx]);
    // The stage at which a node is finished: 0 descending, the last ascending.
    let finished = if ascending { s_count - 1 } else { 0 };
    let cap_node = |sigma: usize, stage: usize| {
        let totals = &totals;
        move |idx: usize| {
            if sigma == root && (stage != finished || totals[idx] + 1 >= root_total.least()) {
                top
            } else {
                cap_child
            }
        }
    };

    let mut marks = Marks::new(states);
    let mut found = Vec::new();
    let mut pairs = 0u64;

    // One function's update: `fill` lowers its table in place, marking every entry it lowers
    // (`Marks`; until 2026-11-27 it lowered a copy, compared entry by entry afterwards); then
    // the envelope, the corners under `cap`, and the corners that dropped.
    let mut update = |stair: &mut Stair,
                      cap: &dyn Fn(usize) -> f64,
                      keep_prev: bool,
                      fill: &mut Fill<'_>,
                      pairs: &mut u64|
     -> Result<(), CoverStop> {
        if stair.dense.is_empty() {
            // First touched now: tables no tree reaches are never allocated.
            stair.dense = vec![Bound::INFINITY; states];
        }
        // In debug builds, the table before the update: every entry that changed must be
        // marked (the marks replace a comparison with such a copy).
        #[cfg(debug_assertions)]
        let before = stair.dense.clone();
        let tried = fill(&mut stair.dense, &mut marks);
        *pairs = pairs.saturating_add(tried);
        if *pairs > allowance {
            return Err(CoverStop::Work);
        }
        if deadline.passed() {
            return Err(CoverStop::Deadline);
        }
        #[cfg(debug_assertions)]
        for (i, (new, old)) in stair.dense.iter().zip(&before).enumerate() {
            debug_assert_eq!(
                new.to_bits() != old.to_bits(),
                marks.is_marked(i),
                "entry {i}"
            );
        }
        let end = marks.end;
        if end == 0 {
            stair.fresh.clear();
            if keep_prev {
                stair.prev.clone_from(&stair.corners);
            }
            return Ok(());
        }
        // Only the entries up to the highest one `fill` lowered are settled again: the table
        // was an envelope, and above that entry nothing changed (nor its corners). A corner
        // below it dropped exactly when its entry was lowered (one not lowered holds the
        // envelope it had, and a corner's value is its entry's).
        found.clone_from(&stair.corners);
        grid.settle_below(end, &mut stair.dense, cap, &mut found);
        stair.fresh.clear();
        stair.fresh.extend(
            found
                .iter()
                .filter(|c| (c.idx as usize) < end && marks.is_marked(c.idx as usize)),
        );
        marks.clear();
        if keep_prev {
            stair.prev = std::mem::take(&mut stair.corners);
        }
        stair.corners.clone_from(&found);
        Ok(())
    };

    // Round 0: every unit's leaf, covering its own node.
    let mut trees: Vec<Stair> = (0..s_count).map(|_| Stair::default()).collect();
    for (s, t) in trees.iter_mut().enumerate() {
        if grid.n[s] == 0 {
            continue;
        }
        let leaf = grid.stride[s];
        update(
            t,
            &|_| f64::INFINITY,
            true,
            &mut |f, marks| {
                f[leaf] = 0.0;
                marks.mark(leaf);
                0
            },
            &mut pairs,
        )?;
    }
    // Forests F_{s,k} (k ≥ 2; k = 1 is the tree), groups, node stages P_σ^{(stage)}[suffix].
    let mut forests: Vec<Vec<Stair>> = (0..s_count)
        .map(|_| (2..=k_max).map(|_| Stair::default()).collect())
        .collect();
    // One group table per unit, or (T_max, whose slope depends on the parent's unit) one per
    // relation to the parent.
    let group_kinds = prices.group_kinds();
    let mut groups: Vec<Vec<Stair>> = (0..s_count)
        .map(|_| (0..group_kinds).map(|_| Stair::default()).collect())
        .collect();
    let mut nodes: Vec<Vec<Vec<Stair>>> = (0..s_count)
        .map(|_| {
            (0..s_count)
                .map(|_| (0..w).map(|_| Stair::default()).collect())
                .collect()
        })
        .collect();
    // The stage past the last: only the empty node (no group yet, value −∞ at r = 0), new in
    // round 1 and unchanged after.
    let mut past_last: Vec<Stair> = (0..w).map(|_| Stair::default()).collect();
    past_last[0].corners = vec![grid.corner(0, f64::NEG_INFINITY)];
    past_last[0].fresh = past_last[0].corners.clone();
    let mut rounds = 0usize;
    loop {
        rounds += 1;
        if rounds == 2 {
            past_last[0].fresh.clear();
        }
        for s in 0..s_count {
            if grid.n[s] == 0 {
                continue;
            }
            let (t, fs) = (&trees[s], &mut forests[s]);
            for k in 2..=k_max {
                let (done, rest) = fs.split_at_mut(k - 2);
                let (before_fresh, before_all): (&[Corner], &[Corner]) = match done.last() {
                    Some(f) => (&f.fresh, &f.corners),
                    None => (&t.fresh, &t.corners),
                };
                let cap_k = cap_child - (k - 1) as f64 * rr;
                let fk = &mut rest[0];
                if t.fresh.is_empty() && before_fresh.is_empty() {
                    fk.fresh.clear();
                    continue;
                }
                update(
                    fk,
                    &|_| cap_k,
                    false,
                    &mut |f, marks| {
                        grid.product(&t.fresh, 0.0, before_all, 0.0, cap_k, f, marks)
                            + grid.product(&t.prev, 0.0, before_fresh, 0.0, cap_k, f, marks)
                    },
                    &mut pairs,
                )?;
            }
            let fs = &forests[s];
            for (kind, group) in groups[s].iter_mut().enumerate() {
                let slope = prices.slope_to(costs, Prices::kind_relation(kind));
                update(
                    group,
                    &|_| cap_child,
                    true,
                    &mut |f, marks| {
                        let ks = std::iter::once(&trees[s]).chain(fs.iter());
                        for (k, stair) in ks.enumerate() {
                            let add = k as f64 * slope;
                            for c in &stair.fresh {
                                let v = below(c.value + add);
                                if v < f[c.idx as usize] {
                                    f[c.idx as usize] = v;
                                    marks.mark(c.idx as usize);
                                }
                            }
                        }
                        0
                    },
                    &mut pairs,
                )?;
            }
        }
        // Node stages, highest unit first (a group's wait is followed by the waits above it).
        let mut any_new = false;
        for sigma in 0..s_count {
            if grid.n[sigma] == 0 {
                continue;
            }
            // Ascending: V_s = max(V_{s−1} + x_s, term_s), or V_{s−1} without a group on s.
            for stage in (0..s_count).filter(|_| ascending) {
                let cap = cap_node(sigma, stage);
                let product_cap = cap(whole);
                let relation = relation_index(costs.relation(sigma as u32, stage as u32));
                let g = &groups[stage][prices.group_kind(relation)];
                let (lower, upper) = nodes[sigma].split_at_mut(stage);
                let here = &mut upper[0][0];
                let before: &Stair = lower.last().map_or(&past_last[0], |b| &b[0]);
                let term = prices
                    .stage_shifts(costs, sigma as u32, stage as u32, 0.0, (0, 0, 0))
                    .0;
                let wait = costs.transfer(sigma as u32, stage as u32);
                let skip = &before.fresh;
                let has_input = !skip.is_empty()
                    || (grid.n[stage] > 0
                        && (!g.fresh.is_empty() && !before.corners.is_empty()
                            || !g.prev.is_empty() && !before.fresh.is_empty()));
                if !has_input {
                    here.fresh.clear();
                    continue;
                }
                update(
                    here,
                    &cap,
                    false,
                    &mut |f, marks| {
                        lower_to(f, skip, marks);
                        grid.product(&g.fresh, term, &before.corners, wait, product_cap, f, marks)
                            + grid.product(
                                &g.prev,
                                term,
                                &before.fresh,
                                wait,
                                product_cap,
                                f,
                                marks,
                            )
                    },
                    &mut pairs,
                )?;
            }
            for stage in (0..s_count).rev().filter(|_| !ascending) {
                let cap = cap_node(sigma, stage);
                let product_cap = cap(whole);
                let relation = relation_index(costs.relation(sigma as u32, stage as u32));
                let g = &groups[stage][prices.group_kind(relation)];
                let (lower, upper) = nodes[sigma].split_at_mut(stage + 1);
                let here = &mut lower[stage];
                let above: &[Stair] = upper.first().map_or(&past_last, |a| a.as_slice());
                for state in 0..w {
                    if slots[sigma][stage].of(state).is_none() {
                        continue;
                    }
                    // Without a group on this stage's unit the stage above passes as it is; with
                    // one, its term (and the waits above it) joins a state one group smaller.
                    let adds: Vec<(usize, (f64, f64))> = steps[relation]
                        .iter()
                        .filter(|&&(st, _, _)| st == state)
                        .map(|&(_, prev, waits)| {
                            (
                                prev,
                                prices.stage_shifts(
                                    costs,
                                    sigma as u32,
                                    stage as u32,
                                    waits,
                                    suffix.decode(prev),
                                ),
                            )
                        })
                        .collect();
                    let skip = &above[state].fresh;
                    let has_input = !skip.is_empty()
                        || adds.iter().any(|&(prev, _)| {
                            !above[prev].fresh.is_empty()
                                || (!g.fresh.is_empty() && !above[prev].corners.is_empty())
                        });
                    if !has_input {
                        here[state].fresh.clear();
                        continue;
                    }
                    update(
                        &mut here[state],
                        &cap,
                        false,
                        &mut |f, marks| {
                            let mut tried = 0u64;
                            lower_to(f, skip, marks);
                            for &(prev, (shift, raise)) in &adds {
                                let a = &above[prev];
                                tried += grid.product(
                                    &g.fresh,
                                    shift,
                                    &a.corners,
                                    raise,
                                    product_cap,
                                    f,
                                    marks,
                                );
                                tried += grid.product(
                                    &g.prev,
                                    shift,
                                    &a.fresh,
                                    raise,
                                    product_cap,
                                    f,
                                    marks,
                                );
                            }
                            tried
                        },
                        &mut pairs,
                    )?;
                }
            }
            // The subtrees on σ: the leaf, or a node whose children cover c less the node (a
            // finished stage in a state with a group: descending, every suffix state but the
            // empty one; ascending, every count vector but the empty one).
            let stage0 = &nodes[sigma][finished];
            let first_state = usize::from(!ascending);
            let step = grid.stride[sigma];
            let room = grid.n[sigma];
            let cap_t = |idx: usize| {
                if whole_tree(sigma, idx) {
                    top
                } else {
                    cap_child
                }
            };
            update(
                &mut trees[sigma],
                &cap_t,
                true,
                &mut |f, marks| {
                    for p in stage0.iter().skip(first_state) {
                        for c in p.fresh.iter().filter(|c| c.idx != 0) {
                            let idx = c.idx as usize;
                            let up = if (c.at[sigma] as usize) < room {
                                idx + step
                            } else {
                                idx
                            };
                            let v = below(c.value);
                            if v < f[up] {
                                f[up] = v;
                                marks.mark(up);
                            }
                        }
                    }
                    0
                },
                &mut pairs,
            )?;
            any_new |= !trees[sigma].fresh.is_empty();
        }
        if !any_new {
            break;
        }
    }

    // The partial nodes' lower bounds for the backward pass with envelopes, highest stage
    // first: U_s(r) = min(U_{s+1}(r), min over groups d on unit s of
    // max(U_{s+1}(r − d), term_s(d) + W)), W = 0 where r − d is empty and otherwise the least
    // wait of a unit above s (a partial node's T_min so far is max(its groups above's,
    // term_s + their waits), docs/cla.md §11 "Budgets without suffix states").
    // The descending stages stay for the backward pass; no ascending one is read again, and
    // each is freed here, before the lower bounds take their place (the envelopes' sizing,
    // `envelope_estimate_within`, counts S² tables of node stages or of bounds, not both).
    let descending_nodes = if ascending {
        drop(nodes);
        Vec::new()
    } else {
        nodes
    };
    let mut upper = Vec::new();
    if ascending && order == Stages::AscendingWithUpper {
        let waits = least_waits_above(costs, counts);
        upper = vec![Vec::new(); s_count];
        for (sigma, per_stage) in upper.iter_mut().enumerate() {
            if grid.n[sigma] == 0 {
                continue;
            }
            let mut tables: Vec<Vec<Bound>> = vec![Vec::new(); s_count];
            // The stage past the last: only the empty node.
            let mut above = vec![grid.corner(0, f64::NEG_INFINITY)];
            for stage in (0..s_count).rev() {
                let mut f = match tables.get(stage + 1) {
                    Some(t) => t.clone(),
                    None => {
                        let mut f = vec![Bound::INFINITY; states];
                        f[0] = Bound::NEG_INFINITY;
                        f
                    }
                };
                if grid.n[stage] > 0 {
                    let term = prices
                        .stage_shifts(costs, sigma as u32, stage as u32, 0.0, (0, 0, 0))
                        .0;
                    let g = &groups[stage][0];
                    for c in &g.corners {
                        let v = below(c.value + term);
                        if v < f[c.idx as usize] {
                            f[c.idx as usize] = v;
                        }
                    }
                    let rest: Vec<Corner> = above.iter().copied().filter(|c| c.idx != 0).collect();
                    let wait = waits[sigma][stage];
                    let tried =
                        grid.product(&g.corners, term + wait, &rest, 0.0, top, &mut f, &mut marks);
                    // Settled whole below: the marks are not read.
                    marks.clear();
                    pairs = pairs.saturating_add(tried);
                    if pairs > allowance {
                        return Err(CoverStop::Work);
                    }
                    if deadline.passed() {
                        return Err(CoverStop::Deadline);
                    }
                }
                grid.settle(&mut f, |_| top, &mut found);
                above = found.clone();
                tables[stage] = f;
            }
            *per_stage = tables;
        }
    }

    // The exact DP's domain (a tree on σ holds a node on σ, a forest of k trees on s at least
    // k), and the cuts: what cannot be part of a tree that beats the incumbent is left out, as
    // the corners were, so that the backward pass walks only what can.
    let mut tree = Vec::with_capacity(s_count);
    let mut forest_tables = Vec::with_capacity(s_count);
    let mut group_min = Vec::with_capacity(s_count);
    for ((t, fs), kinds) in trees.into_iter().zip(forests).zip(groups) {
        let s = tree.len();
        // A table never touched (a unit the box leaves empty, a forest no tree fills) is `∞`.
        let full = |dense: Vec<Bound>| {
            if dense.is_empty() {
                vec![Bound::INFINITY; states]
            } else {
                dense
            }
        };
        let mut t = full(t.dense);
        let mut g: Vec<Vec<Bound>> = kinds.into_iter().map(|k| full(k.dense)).collect();
        // Forests stay empty when untouched (`forest_rows` reads them as `∞`).
        let mut fs: Vec<Vec<Bound>> = fs.into_iter().map(|f| f.dense).collect();
        for idx in 0..states {
            let held = grid.component(idx, s);
            let cap_t = if whole_tree(s, idx) { top } else { cap_child };
            if held == 0 || f64::from(t[idx]) > cap_t {
                t[idx] = Bound::INFINITY;
            }
            for g in &mut g {
                if held == 0 || f64::from(g[idx]) > cap_child {
                    g[idx] = Bound::INFINITY;
                }
            }
            for (k, f) in (2..).zip(fs.iter_mut()) {
                if f.is_empty() {
                    continue;
                }
                if held < k || f64::from(f[idx]) + (k - 1) as f64 * rr > cap_child {
                    f[idx] = Bound::INFINITY;
                }
            }
        }
        tree.push(t);
        forest_tables.push(fs);
        group_min.push(g);
    }
    // Node stages as they are (their values over the cuts are over every budget the backward
    // pass gives); an empty table is a stage no tree reaches (all `∞`). None in ascending
    // order, which no backward pass reads.
    let nodes = descending_nodes
        .into_iter()
        .map(|per_sigma| {
            per_sigma
                .into_iter()
                .map(|per_stage| per_stage.into_iter().map(|stair| stair.dense).collect())
                .collect()
        })
        .collect();
    Ok(Covered {
        tree,
        forests: forest_tables,
        most_trees: k_max,
        group_min,
        nodes,
        upper,
        pairs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_round_towards_what_stays_sound() {
        // 0.1 is not an f32: its nearest, 13,421,773 · 2⁻²⁷ = 0.100000001490116…, is above it,
        // so a lower bound takes the step below, 13,421,772 · 2⁻²⁷ = 0.099999994039535…, and an
        // upper bound the nearest itself.
        assert_eq!(below(0.1), 13_421_772.0 * 2f32.powi(-27));
        assert_eq!(above(0.1), 13_421_773.0 * 2f32.powi(-27));
        // 1,300.8 ns: the nearest f32 is 1300.800048828125 (2⁻¹³ steps at this size), above it.
        assert_eq!(f64::from(above(1300.8)), 1300.800048828125);
        assert_eq!(f64::from(below(1300.8)), 1300.800048828125 - 2f64.powi(-13));
        // What is an f32 stays as it is, infinities included.
        for exact in [0.0, 1.5, -2.25, 35.0, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(f64::from(below(exact)), exact);
            assert_eq!(f64::from(above(exact)), exact);
        }
        // Past f32::MAX a lower bound is f32::MAX, an upper bound ∞.
        assert_eq!(below(1e39), f32::MAX);
        assert_eq!(above(1e39), f32::INFINITY);
        assert_eq!(above(-1e39), f32::MIN);
        assert_eq!(below(-1e39), f32::NEG_INFINITY);
    }

    fn corners(out: &[Corner]) -> Vec<(u32, f64)> {
        out.iter().map(|c| (c.idx, c.value)).collect()
    }

    #[test]
    fn a_settled_table_lowered_below_an_index_is_settled_again_from_there() {
        // The box [0, 2] × [0, 1], index = a + 3·b. f = 5 at (2, 1) (index 5), 7 at (0, 1)
        // (index 3), 9 at (1, 0) (index 1), ∞ elsewhere. Its envelope (the least of everything
        // covering a point): (2, 1) 5; (1, 1), (0, 1), (2, 0), (1, 0), (0, 0) all cover-ed by
        // (2, 1), so 5; corners: only (2, 1) (each other point has a point above it at 5).
        let grid = Grid::new(&[2, 1], Deadline::never());
        let inf = Bound::INFINITY;
        let mut f = vec![inf, 9.0, inf, 7.0, inf, 5.0];
        let mut out = Vec::new();
        grid.settle(&mut f, |_| f64::INFINITY, &mut out);
        assert_eq!(f, vec![5.0; 6]);
        assert_eq!(corners(&out), vec![(5, 5.0)]);
        // Lower (0, 1) to 4 and (1, 0) to 3 (indices 3 and 1: below end = 4). Envelope:
        // (0, 1) 4; (1, 0) 3; (0, 0) min(5, 4, 3) = 3; the rest 5. Corners: (1, 0) at 3,
        // (0, 1) at 4, (2, 1) at 5, by value. Only 0..4 is swept; (2, 1) is kept from before.
        f[3] = 4.0;
        f[1] = 3.0;
        let mut again = f.clone();
        grid.settle_below(4, &mut again, |_| f64::INFINITY, &mut out);
        assert_eq!(again, vec![3.0, 3.0, 5.0, 4.0, 5.0, 5.0]);
        assert_eq!(corners(&out), vec![(1, 3.0), (3, 4.0), (5, 5.0)]);
        // As a sweep of the whole table finds.
        let mut whole = f.clone();
        let mut fresh = Vec::new();
        grid.settle(&mut whole, |_| f64::INFINITY, &mut fresh);
        assert_eq!((whole, corners(&fresh)), (again, corners(&out)));
        // With nothing lowered (end 0) the corners stay as they were.
        let mut same = vec![3.0, 3.0, 5.0, 4.0, 5.0, 5.0];
        grid.settle_below(0, &mut same, |_| f64::INFINITY, &mut out);
        assert_eq!(corners(&out), vec![(1, 3.0), (3, 4.0), (5, 5.0)]);
    }

    /// The envelope and corners of `f` by their definitions, point by point: the envelope at d
    /// the least f over every d' ≥ d; d a corner when f(d) is finite, at most `cap` and below
    /// f at every other d' ≥ d. Sorted as `settle` sorts them.
    fn by_definition(grid: &Grid, f: &[Bound], cap: f64) -> (Vec<Bound>, Vec<(u32, f64)>) {
        let s_count = grid.units();
        let covers =
            |d: usize, e: usize| (0..s_count).all(|s| grid.component(e, s) >= grid.component(d, s));
        let mut envelope = Vec::new();
        let mut found = Vec::new();
        for d in 0..grid.states {
            let above = (0..grid.states).filter(|&e| e != d && covers(d, e));
            let least_above = above.map(|e| f[e]).fold(Bound::INFINITY, Bound::min);
            envelope.push(f[d].min(least_above));
            let value = f64::from(f[d]);
            if f[d] < least_above && value < f64::INFINITY && value <= cap {
                found.push((d as u32, value));
            }
        }
        found.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        (envelope, found)
    }

    #[test]
    fn a_block_sweep_finds_the_envelope_and_corners_of_a_small_box() {
        // The box [0, 2] × [0, 2] (index a + 3·b), f = 4 at (1, 2) (index 7), 6 at (2, 0)
        // (index 2), 9 at (0, 0), ∞ elsewhere. Envelope: the least over the points covering
        // each one. (2, 2) ∞, (1, 2) 4, (0, 2) 4; (2, 0) 6, (2, 1) ∞; (0, 0) min(9, 4, 6) = 4;
        // (1, 0) min(4, 6) = 4, (0, 1) 4, (1, 1) 4. Corners: (1, 2) at 4 (nothing above it finite) and (2, 0) at 6 (only (2, 1), (2, 2),
        // both ∞, above it); (0, 0) at 9 is not (4 covers it). Swept one index at a time, two
        // and four (blocks cutting lines and runs), and whole.
        let grid = Grid::new(&[2, 2], Deadline::never());
        let inf = Bound::INFINITY;
        let raw = vec![9.0, inf, 6.0, inf, inf, inf, inf, 4.0, inf];
        for block in [1, 2, 4, 9, SETTLE_BLOCK] {
            let mut f = raw.clone();
            let mut out = Vec::new();
            grid.settle_in_blocks(grid.states, &mut f, |_| f64::INFINITY, &mut out, block);
            assert_eq!(
                f,
                vec![4.0, 4.0, 6.0, 4.0, 4.0, inf, 4.0, 4.0, inf],
                "block {block}"
            );
            assert_eq!(corners(&out), vec![(7, 4.0), (2, 6.0)], "block {block}");
            // A cap of 5 keeps (1, 2) and drops (2, 0).
            let mut f = raw.clone();
            grid.settle_in_blocks(grid.states, &mut f, |_| 5.0, &mut out, block);
            assert_eq!(corners(&out), vec![(7, 4.0)], "block {block}");
        }
    }

    proptest::proptest! {
        /// The block sweep equals the definitions, point by point, for random boxes (up to
        /// four units of up to four nodes), tables (−∞ and ∞ among the values), caps and
        /// blocks (from one index, cutting every line and run, to the whole box).
        #[test]
        fn a_block_sweep_settles_as_the_definitions_say(
            counts in proptest::collection::vec(0u32..=4, 1..=4),
            seed in proptest::collection::vec(0u8..=21, 128),
            cap in 0u8..=25,
            block in 1usize..=40,
        ) {
            let grid = Grid::new(&counts, Deadline::never());
            // Values 0..=19, 20 as ∞ (nothing there), 21 as −∞ (the empty node).
            let value = |v: u8| match v {
                20 => Bound::INFINITY,
                21 => Bound::NEG_INFINITY,
                _ => Bound::from(v),
            };
            let raw: Vec<Bound> = (0..grid.states).map(|i| value(seed[(i * 7) % seed.len()])).collect();
            let cap = f64::from(cap);
            let (envelope, expected) = by_definition(&grid, &raw, cap);
            let mut f = raw.clone();
            let mut out = Vec::new();
            grid.settle_in_blocks(grid.states, &mut f, |_| cap, &mut out, block);
            proptest::prop_assert_eq!(&f, &envelope);
            proptest::prop_assert_eq!(corners(&out), expected.clone());
            let mut whole = raw;
            grid.settle(&mut whole, |_| cap, &mut out);
            proptest::prop_assert_eq!(&whole, &envelope);
            proptest::prop_assert_eq!(corners(&out), expected);
        }

        /// Settling again from the highest lowered entry equals settling the whole table, for
        /// random boxes (up to four units of up to three nodes), tables, caps and lowerings.
        #[test]
        fn settling_below_the_highest_change_equals_settling_everything(
            counts in proptest::collection::vec(0u32..=3, 1..=4),
            seed in proptest::collection::vec(0u8..=20, 256),
            lower in proptest::collection::vec((0usize..256, 0u8..=20), 0..6),
            cap in 0u8..=25,
        ) {
            let grid = Grid::new(&counts, Deadline::never());
            let states = grid.states;
            // Values 0..=19, and 20 as ∞ (nothing there).
            let value = |v: u8| if v == 20 { Bound::INFINITY } else { Bound::from(v) };
            let cap = f64::from(cap);
            let mut f: Vec<Bound> = (0..states).map(|i| value(seed[i % seed.len()])).collect();
            let mut out = Vec::new();
            grid.settle(&mut f, |_| cap, &mut out);
            let mut end = 0;
            for &(at, v) in &lower {
                let i = at % states;
                if value(v) < f[i] {
                    f[i] = value(v);
                    end = end.max(i + 1);
                }
            }
            let mut whole = f.clone();
            let mut fresh = Vec::new();
            grid.settle(&mut whole, |_| cap, &mut fresh);
            grid.settle_below(end, &mut f, |_| cap, &mut out);
            proptest::prop_assert_eq!(f, whole);
            proptest::prop_assert_eq!(corners(&out), corners(&fresh));
        }
    }
}
