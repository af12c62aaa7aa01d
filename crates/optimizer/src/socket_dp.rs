//! The exact dynamic program over rooted trees **and** their socket placements (seed 001 §4,
//! Eq. 2 with one many-to-one line per socket; `docs/cla.md` §7 and §10).
//!
//! ## Why a small state suffices
//! The cost T(p) of a subtree (§7) is built from its children only through, for each socket s
//! holding children, the number k_s of children there and the latest arrival among them
//! (`max_c T(c)`, both bounds componentwise); and a child subtree is seen by its parent only
//! through its root's socket and its (T_min, T_max). Threads of one socket are interchangeable
//! (seed 001 footnote 2), so what a subtree "uses up" is the count of nodes it holds on each
//! socket. Hence the optimum over all subtrees with root on σ holding the count vector c is a
//! function of (σ, c) alone, and the optimum over whole trees is read at (root socket, the
//! request's counts). Costs are kept as Pareto sets of (T_min, T_max) so that every objective
//! monotone in both (min, max, any blend, min with ties by max) is exact.
//!
//! ## Recurrences (all sets are Pareto-minimal; ⊕ adds count vectors)
//! - **Group table** `G_s[d]`: forests of k ≥ 1 trees rooted on socket s holding d in total,
//!   kept as (max T_min, max T_max, k). One tree, or one tree plus a smaller forest:
//!   `G_s[d] ⊇ { (a, b, 1) : (a, b) ∈ T(s, d) } ∪ { (max(a, m₁), max(b, m₂), k + 1) :
//!   (a, b) ∈ T(s, e), (m₁, m₂, k) ∈ G_s[d − e] }`: a bottleneck partition of d.
//! - **Node table** `P_σ^{(s)}[r]`: the groups on sockets ≥ s of a node on σ whose children
//!   hold r, processed in descending socket order so that each group's share of the waits in
//!   ascending socket order (the suffix Σ_{s' ≥ s used} x(s', σ)) is known when it is added. A
//!   point keeps (T_min so far, the largest T_max group term, Σ_s 2·k_s·x(s, σ) of A_max, the
//!   number of remote groups by class, whether a local group exists).
//! - **Subtree** `T(σ, c)` = the node table at `r = c − e_σ` finished with A(p); a leaf is (0, 0).
//!
//! **Units below a socket.** The "sockets" here are the units that keep one synchronization
//! line each: sockets, or L3 domains numbered across sockets when [`LineClasses::domains`] says
//! so (docs/cla.md §13). Nothing above changes except that a group's wait has three prices (its
//! own unit R_R, another domain of the node's socket R_D, another socket R_Q), so a node stage
//! carries how many of each kind it used (its `Suffix` state) instead of a remote count.
//!
//! Every formula is the socket-line form of [`LineClasses`], the closed forms a pricing promises
//! when it returns them from `PlacedTreeCost::line_classes`: the tests price each DP tree again
//! with the family's `PlacedTreeCost::evaluate` and compare with brute force over every tree and
//! every placement.
//!
//! ## Three passes under [`Objective::Min`] (`docs/cla.md` §11)
//! T_min alone is a scalar DP (a node's T_min depends on its children only through their least
//! T_min per group, `ScalarPass`). For a Min request [`optimal`] runs it first as the **covering
//! pass** (`socket_dp/covering.rs`): the least T_min of every state over the trees that hold
//! *at least* its count vector, a monotone function stored by its corners, so that a
//! convolution is a product of two corner lists instead of every pair of the box. Its value at the request is a
//! certified lower bound T̂ on the optimum. A **backward pass** then gives every entry a budget,
//! the largest T_min it may have inside a tree of T_min T̂, and the **Pareto pass** keeps only
//! points within their budgets, so the tie-break by T_max runs over the few points of optimal
//! trees. Where T̂ is below every tree (a larger count vector is cheaper, e.g. a relay on the
//! root's socket), the Pareto pass finds nothing and runs again with wider budgets, up to the
//! incumbent's T_min (or with none): the answer is exact either way.
//!
//! **Under max and blends** the same three passes run on a relaxation of T_max (or of the
//! blend) with the covering pass's shape (`covering::Prices`, docs/cla.md §11 "Bounds under
//! max and blends"): its values are lower bounds of every part's real score, so its budgets
//! are sound for the real Pareto points (subtrees by their score, forests by a lower bound of
//! their latest score); it is often a few per cent below the optimum, so the widening steps
//! (`WIDENING`) matter there. Under max those passes compare points by T_max alone (T_min
//! projected out of the Pareto sets: every pruning rule under max reads T_max only), which
//! finds the optimum's T_max with a third to a half of the points; one more pass within it,
//! with full Pareto sets, breaks its ties by T_min. Should that pass stop, the table still
//! answers a tree of the proven optimal T_max ([`Filled::TiesOpen`]). Every pass that
//! completes without a tree raises the certified lower bound to its budget.
//!
//! ## Time limits
//! Every pass checks the deadline at least once per state (or per covering function); the
//! covering pass counts its corner pairs against the work budget
//! ([`CORNER_PAIRS_PER_BUDGET_UNIT`]) and the Pareto passes their point combinations
//! ([`POINTS_PER_BUDGET_UNIT`]), each up to the whole budget. [`least_score_of_total`]
//! reads the covering tables of the box, so it answers only when the covering pass completed.
//! A pass whose deadline has passed before it starts allocates nothing.
//!
//! ## Complexity
//! With N_s threads on socket s, there are Π_s (N_s + 1) count vectors and
//! Π_s (N_s + 1)(N_s + 2)/2 pairs (d ≤ r) per convolution; the Pareto pass runs S group
//! convolutions and S·(S − 1) node convolutions (the first node stage needs none), each pair
//! costing the product of two Pareto-set sizes. Each pass walks only pairs whose operands
//! survived pruning. [`estimate`] reports the pair count of one Pareto pass before the DP
//! starts: an upper bound on its pairs, not a time prediction. The covering pass's work is the
//! products of corner lists, unknown beforehand; [`covering_estimate`] bounds its memory and
//! per-state work (states × (S·K + 2·R + 4·S + ⌈S²/4⌉), + 4·S under max and blends, R the
//! suffix states the node stages can reach, `Suffix::reachable`; with envelopes, under min
//! on L3 domains or when those tables do not fit, [`envelope_estimate_within`]) and [`estimate_for`] chooses
//! which estimate a request is checked against.

use crate::limits::{Deadline, Limits, Progress, StopReason, WorkEstimate};
use crate::objective::Objective;
use crate::rooted_trees::cost_key;
use covering::Bound;
pub use covering::ROUNDING_MARGIN;
use modelopt_model::placed_tree::{LineClasses, UnitRelation};
use modelopt_model::Cost;

mod covering;
mod paged;

/// Largest number of sockets the DP accepts (count vectors are indexed in a mixed radix).
pub const MAX_SOCKETS: usize = 8;

/// Why the DP could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SocketDpError {
    /// The counts describe no tree (no socket, or more sockets than [`MAX_SOCKETS`]).
    #[error("socket counts {counts:?} describe no tree the DP handles (1 to {MAX_SOCKETS} sockets, at least one thread)")]
    Counts {
        /// Threads per socket.
        counts: Vec<u32>,
    },
    /// The root's socket holds no thread.
    #[error("the root socket {root} holds no thread (counts {counts:?})")]
    Root {
        /// Root socket.
        root: u32,
        /// Threads per socket.
        counts: Vec<u32>,
    },
    /// The state space is over the work budget.
    #[error(transparent)]
    Budget(#[from] crate::limits::BudgetExceeded),
    /// The tables are over the memory limit.
    #[error(transparent)]
    Memory(#[from] crate::limits::MemoryExceeded),
}

/// Pareto point combinations the pass may try per unit of the work budget. The up-front
/// estimate counts transition pairs; the points per pair are known only while filling (one
/// per pair for a Min request pruned by its covering pass, thousands under `--objective max` on
/// four sockets), so the pass also counts them and stops with the budget's reason. Measured:
/// 3.6–4.4 · 10⁷ combinations a second under min, 2–2.6 · 10⁷ under max and blends on four
/// sockets (larger Pareto sets make each insertion dearer), so the default budget of 10⁸
/// stops the Pareto passes within 10–20 s (docs/perf.md).
pub const POINTS_PER_BUDGET_UNIT: u64 = 4;

/// Corner pairs the covering pass (and its clips) may multiply per unit of the work budget: a
/// pair is a few comparisons and one store, four to five times cheaper than a Pareto point
/// combination (measured on four sockets × 16 and 12, 2026-11-27: 1.5–2.0 · 10⁸ pairs a
/// second under max, blend:0.5 and on five L3 domains), so that a unit of budget buys about as
/// much time in either pass (10⁸ units: ~10 s each). At 4 a unit, as before, four sockets ×
/// 16 under max (6.2 · 10⁸ pairs, 3.2 s) were refused by the default budget.
pub const CORNER_PAIRS_PER_BUDGET_UNIT: u64 = 16;

/// Corner pairs per budget unit of the covering passes that only certify a bound (over clips
/// of a request the exact search does not run: [`least_score_of_total`],
/// [`clipped_covering_bound`] and their callers' growing clips). A refused or stopped request
/// computes that bound on top of its stopgap tree, at a share of the budget, so they keep the
/// rate they were tuned at: a refusal at the default budget answers in about a second, not
/// the four the exact pass's rate would allow.
pub const BOUND_PAIRS_PER_BUDGET_UNIT: u64 = 4;

/// Bytes of the Pareto tables' index a word of 64 count vectors, in every table: the
/// presence bits (8) and the sets before them (4, `u32`; see [`Table`]). The tables are
/// allocated for every count vector of the box, S² + 2·S of them, before any state is filled,
/// so a box past the memory limit (eight sockets of 10 threads: 11⁸ states × 80 tables, 3.2 GB
/// of index and 6.9 GB of the count vectors' components) is refused before it is allocated.
/// The starts of the non-empty sets (4 bytes each) come with their points, counted as stored.
const BYTES_PER_INDEX_WORD: u64 = 12;

/// Bytes of one entry of the covering pass's tables and of its budgets (a [`Bound`], `f32`).
const BYTES_PER_COVERING_ENTRY: u64 = std::mem::size_of::<Bound>() as u64;

/// The count vectors of the box `counts`: Π (c_s + 1), saturating.
pub fn box_states(counts: &[u32]) -> u64 {
    counts
        .iter()
        .fold(1u64, |acc, &c| acc.saturating_mul(u64::from(c) + 1))
}

/// The tables of a DP over `sockets` sockets: a subtree and a group table a socket, a node
/// table a socket and stage.
fn table_count(sockets: u64) -> u64 {
    sockets * sockets + 2 * sockets
}

/// The bytes of the Pareto tables' index over the box `counts`, allocated before any state is
/// filled: every table's words of presence bits (`BYTES_PER_INDEX_WORD`, 12 bytes) and every
/// count vector's components (`u32`), saturating. The sets' starts and points come on top,
/// counted while they are stored.
pub fn table_bytes(counts: &[u32]) -> u64 {
    let s = counts.len() as u64;
    let states = box_states(counts);
    if states > u64::from(u32::MAX) {
        // Count vectors are indexed by `u32`: no memory holds such a box here.
        return u64::MAX;
    }
    index_words(states)
        .saturating_mul(table_count(s))
        .saturating_mul(BYTES_PER_INDEX_WORD)
        .saturating_add(states.saturating_mul(4 * s))
}

/// Whether the Pareto tables' index over the box `counts` fits in `memory_limit` bytes
/// ([`table_bytes`]): a box that does not is refused whatever the work budget, so a caller
/// says so instead of asking for more budget.
pub fn tables_fit(counts: &[u32], memory_limit: u64) -> bool {
    table_bytes(counts) <= memory_limit
}

/// Refuse a box whose tables' index is over the memory limit.
fn check_table_bytes(counts: &[u32], limits: &Limits) -> Result<(), SocketDpError> {
    limits.check_memory(
        "the socket DP's tables over these counts",
        table_bytes(counts),
    )?;
    Ok(())
}

/// The bytes of the covering pass's tables and budgets of `entries` entries
/// ([`covering_estimate_within`]) over the box `within`, saturating.
fn covering_bytes(entries: u64, within: &[u32]) -> u64 {
    entries
        .saturating_mul(BYTES_PER_COVERING_ENTRY)
        .saturating_add(box_states(within).saturating_mul(2 * within.len() as u64))
}

/// The bytes the exact search's covering pass and budgets hold in the `form` whose work is
/// `entries` ([`covering_estimate_within`], [`envelope_estimate_within`]) over the box `within`,
/// saturating, sized before the pass. By suffix states [`covering_bytes`]; by envelopes the
/// envelopes (2·S² of the entries a count vector) are stored by pages ([`paged::Paged`]), so
/// what is sized is their directories (S² tables of 4 bytes a page of 64 count vectors, 1/128
/// of the dense envelopes): the pages written while the backward pass runs are counted as it
/// writes them, against the memory left ([`ScalarPass::backward`]).
fn form_bytes(form: StageBudgets, entries: u64, within: &[u32]) -> u64 {
    match form {
        StageBudgets::BySuffix => covering_bytes(entries, within),
        StageBudgets::Envelope => {
            let s = within.len() as u64;
            let states = box_states(within);
            let envelopes = states.saturating_mul(2 * s * s);
            covering_bytes(entries.saturating_sub(envelopes), within)
                .saturating_add((s * s).saturating_mul(paged::directory_bytes(states)))
        }
    }
}

/// The size of the covering pass and its budgets for a request under [`Objective::Min`], known
/// before it starts: the entries of their tables, every count vector of the box ×
/// (S·K + 2·R + 4·S + ⌈S²/4⌉) (+ 4·S under max and blends, [`covering_estimate_within`]), with
/// K the most trees one group can hold (the widest unit's count: no incumbent is known yet)
/// and R the suffix states of all node stages together, only those a tree can reach
/// (`Suffix::reachable`: a unit the box leaves empty adds none). The pass's other work, the corner pairs it multiplies, depends on
/// the machine and is counted while it runs (at most [`CORNER_PAIRS_PER_BUDGET_UNIT`] × the
/// budget), as the Pareto pass after it counts its point combinations.
pub fn covering_estimate(costs: &LineClasses, counts: &[u32]) -> WorkEstimate {
    covering_estimate_within(
        costs,
        &Objective::Min,
        counts,
        counts.iter().copied().max().unwrap_or(0),
        None,
    )
}

/// [`covering_estimate`] for a pass over the box `within` whose groups may hold `widest` trees
/// (the widest unit of a request `within` clips, as [`clipped_covering_bound`] runs), and, with
/// an `incumbent` (T_min of a tree of the request, offset included), no more than a group can
/// hold under it (`(k − 1)·R_R` above the least a parent's level adds; the pass cuts there
/// too): K is then often far below `widest` (two sockets of 2,048 threads: a few dozen).
pub fn covering_estimate_within(
    costs: &LineClasses,
    objective: &Objective,
    within: &[u32],
    widest: u32,
    incumbent: Option<f64>,
) -> WorkEstimate {
    let shape = PassShape::of(costs, objective, within, widest, incumbent);
    shape.entries(
        "socket-DP table entries (covering pass and budgets)",
        |s, k, prices| {
            let stages = Suffix::new(within.len(), costs).stage_states(costs, within);
            // The rows of trees and forests the backward pass reads (S·K) beside the trees
            // (S); the node stages forward and their budgets (2·R); a group table per unit,
            // forward and in the budgets, or under max and blends one per relation to the
            // parent (2·S·kinds); the budgets of the trees (S); and a flag a node stage,
            // whether any of its suffix states has a budget (S² bytes, a quarter of an entry
            // each). Until 2026-11-27 (sixth session) the trees, the groups' tables and
            // budgets, the tree budgets, the lists and the flags were left out: 6·S + ⌈S²/4⌉
            // entries a count vector too few; until 2026-11-28 lists of the count vectors
            // where each tree and group table holds a value (2·S, `u32`) were kept too, which
            // the backward pass stopped reading when it walked its tables as down-sets.
            let kinds = prices.group_kinds() as u64;
            s.saturating_mul(k)
                .saturating_add(2 * stages)
                .saturating_add(s * (2 * kinds + 2))
                .saturating_add((s * s).div_ceil(4))
        },
    )
}

/// The size of the exact search's covering pass and budgets when its partial nodes are
/// budgeted by envelopes (under min only; `StageBudgets::Envelope`), in table entries: every
/// count vector of the box `within` × (S·K + 4·S + 3·S²), the work the budget counts (the
/// backward pass visits every envelope). While the covering pass runs (lowest
/// unit first, `covering::Stages`) it holds its trees and forests (S·K), groups (S) and node
/// stages (S², one a unit and stage, freed before the next); after it, the trees (S) beside the rows of trees and
/// forests the backward pass reads (S·K), the groups (S), the lower bounds of the partial
/// nodes above each stage (S², `covering::Covered::upper`), the budgets of trees and groups
/// (2·S) and the envelopes (2·S², two numbers a node stage), which is more (until 2026-11-28
/// also lists of the count vectors where each tree and group table holds a value, 2·S `u32`,
/// which the backward pass no longer reads). The envelopes are stored by pages, only those
/// written (`form_bytes`: the memory sized before the pass is S·K + 4·S + S² entries a count
/// vector and the pages' directories). Under max and blends, where envelopes do not apply,
/// `u64::MAX` units. 48 domain-line threads (six domains of 8): 6·8 + 4·6 + 3·6² = 180
/// entries a count vector against the 825 of the suffix states' form
/// ([`covering_estimate_within`]: 48 + 2·372 + 4·6 + 9, R = 372).
pub fn envelope_estimate_within(
    costs: &LineClasses,
    objective: &Objective,
    within: &[u32],
    widest: u32,
    incumbent: Option<f64>,
) -> WorkEstimate {
    let shape = PassShape::of(costs, objective, within, widest, incumbent);
    shape.entries(
        "socket-DP table entries (covering pass and envelope budgets)",
        |s, k, prices| {
            if prices.ascends() {
                s.saturating_mul(k)
                    .saturating_add(4 * s)
                    .saturating_add(3 * s * s)
            } else {
                u64::MAX
            }
        },
    )
}

/// What sizes a covering pass over a box: its count vectors, S units, K trees a group at most
/// and the terms of the objective; `None` where a unit holds more nodes than a count vector can
/// store (u16 components; far over memory in any case).
struct PassShape(Option<(u64, u64, u64, covering::Prices)>);

impl PassShape {
    fn of(
        costs: &LineClasses,
        objective: &Objective,
        within: &[u32],
        widest: u32,
        incumbent: Option<f64>,
    ) -> Self {
        if within.iter().any(|&c| c > covering::MAX_UNIT_NODES) {
            return PassShape(None);
        }
        let widest = widest.max(within.iter().copied().max().unwrap_or(0));
        let prices = covering::Prices::of(objective);
        let k = covering::most_trees(costs, &prices, widest, incumbent.unwrap_or(f64::INFINITY));
        PassShape(Some((
            box_states(within),
            within.len() as u64,
            k as u64,
            prices,
        )))
    }

    /// The pass's table entries, `per_state(S, K, prices)` for every count vector (saturating).
    fn entries(
        &self,
        what: &str,
        per_state: impl FnOnce(u64, u64, &covering::Prices) -> u64,
    ) -> WorkEstimate {
        let units = self.0.map_or(u64::MAX, |(states, s, k, prices)| {
            states.saturating_mul(per_state(s, k, &prices))
        });
        WorkEstimate {
            what: what.into(),
            units,
        }
    }
}

/// The size of a covering pass that only bounds, over the box `within` (a clip's, read at the
/// whole box: [`clipped_covering_bound`], [`covering_bound`], [`least_score_of_total`]), in
/// table entries: its trees and forests, S·K (K as in [`covering_estimate_within`]), a group
/// table per unit (per relation to the parent under max and blends), and its node stages,
/// without budgets: under min one table per unit and stage (T_min in ascending stage order
/// needs no suffix state, `covering::Stages`), under max and blends the reachable suffix
/// states. On L3 domains this is a fraction of the exact search's pass (48 domain-line
/// threads: 6·8 + 36 + 6 = 90 entries a count vector against 792).
pub fn bound_estimate_within(
    costs: &LineClasses,
    objective: &Objective,
    within: &[u32],
    widest: u32,
    incumbent: Option<f64>,
) -> WorkEstimate {
    let shape = PassShape::of(costs, objective, within, widest, incumbent);
    shape.entries(
        "socket-DP table entries (covering pass of a bound)",
        |s, k, prices| {
            let stages = if prices.ascends() {
                s * s
            } else {
                Suffix::new(within.len(), costs).stage_states(costs, within)
            };
            s.saturating_mul(k)
                .saturating_add(stages)
                .saturating_add(s * prices.group_kinds() as u64)
        },
    )
}

/// The bytes of a covering pass that only bounds ([`bound_estimate_within`]) with the
/// components of the box it is read through (4·S bytes a count vector, no Pareto index),
/// saturating; `u64::MAX` past 2³² count vectors (indexed by `u32`).
pub fn bound_memory_within(
    costs: &LineClasses,
    objective: &Objective,
    within: &[u32],
    widest: u32,
    incumbent: Option<f64>,
) -> u64 {
    let states = box_states(within);
    if states > u64::from(u32::MAX) {
        return u64::MAX;
    }
    let entries = bound_estimate_within(costs, objective, within, widest, incumbent).units;
    states
        .saturating_mul(4 * within.len() as u64)
        .saturating_add(covering_bytes(entries, within))
}

/// Whether the covering pass over the box `counts` fits in `memory_limit` bytes together with
/// the Pareto tables' index ([`table_bytes`] + its own tables, [`covering_estimate`] entries
/// of 4 bytes, `f32`). A caller choosing how large a pass to run (a truncated bound) asks this
/// first, since a pass that does not fit is refused.
pub fn covering_fits(costs: &LineClasses, counts: &[u32], memory_limit: u64) -> bool {
    covering_fits_within(
        costs,
        &Objective::Min,
        counts,
        counts.iter().copied().max().unwrap_or(0),
        None,
        memory_limit,
    )
}

/// [`covering_fits`] for a pass bounding `objective`'s score over the box `within` whose groups
/// may hold `widest` trees, cut at `incumbent` ([`covering_estimate_within`]).
pub fn covering_fits_within(
    costs: &LineClasses,
    objective: &Objective,
    within: &[u32],
    widest: u32,
    incumbent: Option<f64>,
    memory_limit: u64,
) -> bool {
    covering_memory_within(costs, objective, within, widest, incumbent) <= memory_limit
}

/// The bytes the covering pass over the box `within` keeps with the Pareto tables' index
/// (the sizes of [`covering_fits_within`]), saturating: what `--memory-limit` must allow for
/// the exact search to run its covering pass.
pub fn covering_memory_within(
    costs: &LineClasses,
    objective: &Objective,
    within: &[u32],
    widest: u32,
    incumbent: Option<f64>,
) -> u64 {
    let entries = covering_estimate_within(costs, objective, within, widest, incumbent).units;
    table_bytes(within).saturating_add(covering_bytes(entries, within))
}

/// The up-front size of [`optimal`] for this objective: the covering pass's
/// ([`covering_estimate_within`]; T_min under min, the relaxation of `covering::Prices` under
/// max and blends), whose Pareto pass keeps only the points within the budgets that pass gives,
/// when its tables fit in `memory_limit` bytes; else, under min, the same pass with envelopes
/// ([`envelope_estimate_within`]) when those fit; else the transition pairs of the Pareto pass
/// alone ([`estimate`]). With the `incumbent`'s score (offset included), a group holds no more
/// trees than can beat it, as the pass itself sizes its tables ([`covering_estimate_within`]).
/// Of the forms that fit, one within `work_budget` entries is taken first.
pub fn estimate_for(
    costs: &LineClasses,
    counts: &[u32],
    objective: &Objective,
    (memory_limit, work_budget): (u64, u64),
    incumbent: Option<f64>,
) -> WorkEstimate {
    let widest = counts.iter().copied().max().unwrap_or(0);
    let memory = memory_limit.saturating_sub(table_bytes(counts));
    let room = (memory, work_budget);
    stage_budgets_within(costs, objective, counts, widest, incumbent, room, None)
        .map_or_else(|| estimate(counts), |(_, entries)| entries)
}

/// How the exact search over the box `counts` budgets its partial nodes within `memory` bytes
/// (besides the Pareto tables' index), with the entries of that form: under min the envelopes
/// ([`envelope_estimate_within`]) when the units are L3 domains (a node's groups wait in three
/// classes, so its stages have many suffix states) or the suffix states' form
/// ([`covering_estimate_within`]) does not fit, else the suffix states; `None` when neither
/// fits. Of the forms that fit, the first within `work_budget` entries is taken, so a request
/// on sockets whose suffix states are over the budget runs by envelopes when theirs are within
/// it (four sockets of 16 at a budget of 1.5·10⁷: 19,710,956 entries by suffix states,
/// 10,690,688 by envelopes); when none is, the preferred one, whose size the budget refuses.
/// Only the `forced` form if given. Measured with each form forced (docs/perf.md
/// "Envelopes", same output to the byte): on L3 domains the envelopes are 1.7–1.9 × faster
/// from 33 domain-line threads on and take a third of the memory (at a few hundred µs, the
/// same time); on sockets the suffix states prune better and are 1.3–1.6 × faster (4 × 16,
/// a free split of 63 over four sockets), though their tables hold 1.5–2.2 × the entries.
fn stage_budgets_within(
    costs: &LineClasses,
    objective: &Objective,
    counts: &[u32],
    widest: u32,
    incumbent: Option<f64>,
    (memory, work_budget): (u64, u64),
    forced: Option<StageBudgets>,
) -> Option<(StageBudgets, WorkEstimate)> {
    let mut forms = stage_forms(costs, objective, counts, widest, incumbent);
    let on_domains = Suffix::new(counts.len(), costs).near_span > 1;
    let envelopes_first = on_domains && forms[1].1.units != u64::MAX;
    if envelopes_first {
        forms.reverse();
    }
    let mut fitting = forms
        .into_iter()
        .filter(|(form, _)| forced.is_none_or(|f| f == *form))
        .filter(|(form, entries)| form_bytes(*form, entries.units, counts) <= memory);
    let first = fitting.next()?;
    if first.1.units <= work_budget {
        return Some(first);
    }
    Some(
        fitting
            .find(|(_, entries)| entries.units <= work_budget)
            .unwrap_or(first),
    )
}

/// The two forms of the covering pass and budgets over the box `counts`, each with its size:
/// by suffix states ([`covering_estimate_within`]), then by envelopes
/// ([`envelope_estimate_within`]).
fn stage_forms(
    costs: &LineClasses,
    objective: &Objective,
    counts: &[u32],
    widest: u32,
    incumbent: Option<f64>,
) -> [(StageBudgets, WorkEstimate); 2] {
    [
        (
            StageBudgets::BySuffix,
            covering_estimate_within(costs, objective, counts, widest, incumbent),
        ),
        (
            StageBudgets::Envelope,
            envelope_estimate_within(costs, objective, counts, widest, incumbent),
        ),
    ]
}

/// The least work budget that starts the exact search over the box `counts` within
/// `memory_limit` bytes ([`estimate_for`] admits it), and the memory that search's tables take
/// when they are over the limit (0 when they fit): the fewest entries among the forms of the
/// covering pass whose tables fit (with that budget `stage_budgets_within` takes the first
/// fitting form within it, which is then one of the fewest); where none fits, the form that
/// needs the least memory, with its entries and that memory (with both raised the search
/// starts with that form; at this limit only the Pareto pass alone would, whose pairs,
/// [`estimate`], are orders of magnitude more: 54 domain-line threads, 859,340,097 entries and
/// 2,190,666,842 bytes against 11,392,766,437,500 pairs); the Pareto pass's pairs where no form
/// has a size (each form's entries saturate at `u64::MAX`). What the search does while it runs (corner pairs,
/// points) draws on the same budget, so that budget starts the search but may not see it
/// through.
pub fn least_budget(
    costs: &LineClasses,
    counts: &[u32],
    objective: &Objective,
    memory_limit: u64,
    incumbent: Option<f64>,
) -> (u64, u64) {
    let widest = counts.iter().copied().max().unwrap_or(0);
    let index = table_bytes(counts);
    let memory = memory_limit.saturating_sub(index);
    let forms = stage_forms(costs, objective, counts, widest, incumbent);
    let sized = forms
        .iter()
        .filter(|(_, entries)| entries.units != u64::MAX)
        .map(|&(form, ref entries)| (entries.units, form_bytes(form, entries.units, counts)));
    if let Some(fewest) = sized
        .clone()
        .filter(|&(_, bytes)| bytes <= memory)
        .map(|(units, _)| units)
        .min()
    {
        return (fewest, 0);
    }
    sized
        .min_by_key(|&(units, bytes)| (bytes, units))
        .map_or((estimate(counts).units, 0), |(units, bytes)| {
            (units, index.saturating_add(bytes))
        })
}

/// Whether the exact search over the box `counts` under `objective` budgets its partial nodes
/// by envelopes within `memory_limit` bytes and `work_budget` entries (`stage_budgets_within`,
/// no incumbent): under min, on L3 domains, or where the suffix states' tables do not fit or
/// are over the budget while the envelopes' are not.
pub fn by_envelopes(
    costs: &LineClasses,
    objective: &Objective,
    counts: &[u32],
    (memory_limit, work_budget): (u64, u64),
) -> bool {
    let widest = counts.iter().copied().max().unwrap_or(0);
    let memory = memory_limit.saturating_sub(table_bytes(counts));
    let room = (memory, work_budget);
    stage_budgets_within(costs, objective, counts, widest, None, room, None)
        .is_some_and(|(form, _)| form == StageBudgets::Envelope)
}

/// The least memory the exact search's covering pass and budgets can run in over the box
/// `within`, with the Pareto tables' index: [`covering_memory_within`], or under min, when
/// smaller, the same with envelopes ([`envelope_estimate_within`]), saturating. What
/// `--memory-limit` must allow for the exact search to start with its covering pass.
pub fn exact_memory_within(
    costs: &LineClasses,
    objective: &Objective,
    within: &[u32],
    widest: u32,
    incumbent: Option<f64>,
) -> u64 {
    let by_envelope = envelope_estimate_within(costs, objective, within, widest, incumbent);
    covering_memory_within(costs, objective, within, widest, incumbent).min(
        table_bytes(within).saturating_add(form_bytes(
            StageBudgets::Envelope,
            by_envelope.units,
            within,
        )),
    )
}

/// The size of the DP for these counts, in transition pairs (see the module docs), saturating.
pub fn estimate(counts: &[u32]) -> WorkEstimate {
    let s = counts.len() as u64;
    let pairs = counts.iter().fold(1u64, |acc, &n| {
        let n = u64::from(n);
        acc.saturating_mul((n + 1).saturating_mul(n + 2) / 2)
    });
    let convolutions = s + s * s.saturating_sub(1);
    WorkEstimate {
        what: "socket-DP transitions".into(),
        units: pairs.saturating_mul(convolutions.max(1)),
    }
}

#[derive(Debug, Clone, Copy)]
struct TPoint {
    min: f64,
    max: f64,
    /// Point of the node table `P_σ^{(0)}[c − e_σ]` (unused for a leaf).
    node_point: u32,
}

#[derive(Debug, Clone, Copy)]
struct GPoint {
    mmin: f64,
    mmax: f64,
    k: u32,
    /// The first tree: its count vector and its point in `T(s, ·)`.
    tree: u32,
    tree_point: u32,
    /// The rest of the forest at `G_s[d − tree]`, or `NONE`.
    rest_point: u32,
}

#[derive(Debug, Clone, Copy)]
struct PPoint {
    tmin: f64,
    mmax: f64,
    sum: f64,
    /// Used groups on other sockets (R_Q waits), on other units of this node's socket (R_D),
    /// and whether one on its own unit (R_R): the [`Suffix`] state.
    far: u8,
    near: u8,
    local: u8,
    /// The group added at this stage (`NONE` when the stage's socket holds no child), its point
    /// in `G_s`, and the point of the previous stage at `r − group`.
    group: u32,
    group_point: u32,
    prev_point: u32,
}

const NONE: u32 = u32::MAX;

/// Pareto sets stored flat, in one arena per table, with a succinct index: one presence bit
/// per count vector, the sets before each 64-bit word of those bits, and where each non-empty
/// set starts. Most count vectors of a large box hold no point within the budgets (their
/// sets are empty), and a range per count vector in every table was 35–44 % of the exact
/// search's memory from 50 domain-line threads on (docs/perf.md "The index"); this takes 12
/// bytes per 64 count vectors a table up front and 4 bytes per non-empty set as it is stored.
///
/// Non-empty sets are stored in increasing index order, once each ([`Table::set`]; storing
/// an empty set is a no-op): the DP fills the count vectors in index order, every table of a
/// count vector before the next.
#[derive(Debug, Clone)]
struct Table<P> {
    /// Bit `idx % 64` of word `idx / 64`: whether the set of count vector `idx` is not empty.
    present: Vec<u64>,
    /// Per word of `present`, the non-empty sets of the words before it (final for the words
    /// up to the last one a set was stored in; others are not read, their bits are clear).
    before: Vec<u32>,
    /// Words of `before` that are final.
    ranked: usize,
    /// Where the k-th non-empty set starts in `points`; the next one's start, or the arena's
    /// end, ends it.
    starts: Vec<u32>,
    points: Vec<P>,
}

/// The words of a [`Table`]'s presence bits over `entries` count vectors.
fn index_words(entries: u64) -> u64 {
    entries.div_ceil(64)
}

impl<P: Copy> Table<P> {
    fn new(entries: usize) -> Self {
        let words = entries.div_ceil(64);
        Table {
            present: vec![0; words],
            before: vec![0; words],
            ranked: 0,
            starts: Vec::new(),
            points: Vec::new(),
        }
    }

    /// The position of `idx`'s set among the non-empty ones, `None` when it is empty.
    fn rank(&self, idx: usize) -> Option<usize> {
        let (word, bit) = (idx / 64, idx % 64);
        let bits = *self.present.get(word)?;
        if bits >> bit & 1 == 0 {
            return None;
        }
        let below = (bits & ((1u64 << bit) - 1)).count_ones();
        Some(self.before[word] as usize + below as usize)
    }

    fn get(&self, idx: usize) -> &[P] {
        let Some(k) = self.rank(idx) else {
            return &[];
        };
        let start = self.starts[k] as usize;
        let end = self
            .starts
            .get(k + 1)
            .map_or(self.points.len(), |&e| e as usize);
        &self.points[start..end]
    }

    /// Store `idx`'s set: after every set of a smaller index (see the type's docs).
    fn set(&mut self, idx: usize, set: &[P]) {
        if set.is_empty() {
            return;
        }
        let word = idx / 64;
        debug_assert!(
            self.starts.is_empty() || (word + 1 >= self.ranked && self.rank(idx).is_none()),
            "sets are stored in increasing index order"
        );
        while self.ranked <= word && self.ranked < self.before.len() {
            self.before[self.ranked] = self.starts.len() as u32;
            self.ranked += 1;
        }
        if let Some(bits) = self.present.get_mut(word) {
            *bits |= 1u64 << (idx % 64);
            self.starts.push(self.points.len() as u32);
            self.points.extend_from_slice(set);
        }
    }

    /// The sizes of the non-empty sets.
    fn set_sizes(&self) -> impl Iterator<Item = usize> + '_ {
        let ends = self
            .starts
            .iter()
            .skip(1)
            .copied()
            .chain(std::iter::once(self.points.len() as u32));
        self.starts.iter().zip(ends).map(|(a, b)| (b - a) as usize)
    }

    /// The bytes the table's arena and starts hold (their capacity: what is allocated).
    fn stored_bytes(&self) -> u64 {
        let points =
            (self.points.capacity() as u64).saturating_mul(std::mem::size_of::<P>() as u64);
        points.saturating_add((self.starts.capacity() as u64).saturating_mul(4))
    }
}

/// Whether the subtree point `q` is as good as `p`: in both bounds, or with T_min projected out
/// (`by_max`) in T_max alone.
fn t_dominates(q: &TPoint, p: &TPoint, by_max: bool) -> bool {
    (by_max || q.min <= p.min) && q.max <= p.max
}

fn insert_t(set: &mut Vec<TPoint>, p: TPoint, by_max: bool) {
    if set.iter().any(|q| t_dominates(q, &p, by_max)) {
        return;
    }
    set.retain(|q| !t_dominates(&p, q, by_max));
    set.push(p);
}

fn g_dominates(q: &GPoint, p: &GPoint, by_max: bool) -> bool {
    (by_max || q.mmin <= p.mmin) && q.mmax <= p.mmax && q.k <= p.k
}

fn insert_g(set: &mut Vec<GPoint>, p: GPoint, by_max: bool) {
    if set.iter().any(|q| g_dominates(q, &p, by_max)) {
        return;
    }
    set.retain(|q| !g_dominates(&p, q, by_max));
    set.push(p);
}

fn p_dominates(q: &PPoint, p: &PPoint, by_max: bool) -> bool {
    (by_max || q.tmin <= p.tmin)
        && q.mmax <= p.mmax
        && q.sum <= p.sum
        && q.far <= p.far
        && q.near <= p.near
        && q.local <= p.local
}

fn insert_p(set: &mut Vec<PPoint>, p: PPoint, by_max: bool) {
    if set.iter().any(|q| p_dominates(q, &p, by_max)) {
        return;
    }
    set.retain(|q| !p_dominates(&p, q, by_max));
    set.push(p);
}

/// The cuts a forest point of one group table (socket s, count vector d) must pass, read once
/// for the table: the combination loop of [`SocketTable::fill_groups`] checks every pair of
/// points it forms (most of the Pareto pass's work under max), and the budgets, slopes and
/// prices it compares with do not change within a table.
struct ForestCut {
    /// The parent level's least terms (T_min, T_max) and R_R.
    level: (f64, f64),
    socket: f64,
    /// The incumbent's cut and the offset its score includes.
    prune: Option<(Prune, f64)>,
    /// The budgets' objective (how a forest is scored) and, per group kind, the budget of d
    /// and the slope per tree past the first; `None` without budgets.
    budgets: Option<(Objective, Vec<(Bound, f64)>)>,
}

impl ForestCut {
    fn of(table: &SocketTable, s: usize, d: usize) -> Self {
        ForestCut {
            level: table.parent_level(),
            socket: table.costs.socket,
            prune: table.prune.map(|p| (p, table.costs.offset())),
            budgets: table.budgets.as_ref().map(|b| {
                let kinds = b.out_group[s]
                    .iter()
                    .enumerate()
                    .map(|(kind, budget)| {
                        let relation = covering::Prices::kind_relation(kind);
                        (budget[d], b.prices.slope_to(&table.costs, relation))
                    })
                    .collect();
                (b.objective, kinds)
            }),
        }
    }

    /// Whether a forest of `k` trees whose latest T_min is `mmin` and latest T_max `mmax` is
    /// dropped: its parent adds at least its level with k children on one line (§7, every
    /// transfer ≥ R_R, every fetch ≥ R_I), which puts it above the incumbent, or it is
    /// [`ForestCut::over_budget`].
    fn drops(&self, mmin: f64, mmax: f64, k: u32) -> bool {
        let kk = f64::from(k);
        let (lv_min, lv_max) = self.level;
        let rr = self.socket;
        let hopeless = self.prune.is_some_and(|(p, offset)| {
            p.hopeless(
                offset,
                mmin + lv_min + (kk - 1.0) * rr,
                mmax + lv_max + (4.0 * kk - 4.0) * rr,
            )
        });
        hopeless || self.over_budget(mmin, mmax, k)
    }

    /// Whether the forest is over its budget under every parent: the budget is the group's,
    /// its latest value and k − 1 slopes (a group table per relation to the parent under
    /// max).
    fn over_budget(&self, mmin: f64, mmax: f64, k: u32) -> bool {
        self.budgets.as_ref().is_some_and(|(objective, kinds)| {
            let further = f64::from(k.saturating_sub(1));
            let value = forest_score(objective, mmin, mmax);
            kinds
                .iter()
                .all(|&(budget, slope)| value + further * slope > f64::from(budget) + SLACK)
        })
    }
}

/// The filled DP for one machine and one box of counts: the optimum for **every** root socket
/// and every count vector inside the box.
#[derive(Debug, Clone)]
pub struct SocketTable {
    costs: LineClasses,
    radix: Vec<usize>,
    stride: Vec<usize>,
    trees: Vec<Table<TPoint>>,
    groups: Vec<Table<GPoint>>,
    /// `nodes[σ][stage]`, stage s in 0..S (stage S is implicit: only the empty node).
    nodes: Vec<Vec<Table<PPoint>>>,
    /// Points whose score bound exceeds this incumbent are dropped (see [`Prune`]).
    prune: Option<Prune>,
    /// The node count of a whole tree when every split of one request is asked for
    /// ([`SocketTable::build_splits`]): states of that total may be roots. `None`: only the
    /// whole box may.
    root_total: Option<u32>,
    /// Transition pairs visited.
    pub transitions: u64,
    /// Pareto point combinations tried (the Pareto pass's real work: pairs × the points of
    /// both operands, which the up-front estimate cannot know).
    pub points: u64,
    /// The Pareto pass stops (work budget) past this many point combinations:
    /// [`POINTS_PER_BUDGET_UNIT`] × the work budget.
    point_cap: u64,
    /// The Pareto pass stops (memory limit) once its points take more than this many bytes
    /// ([`SocketTable::arena_bytes`]): the memory limit less the index and the covering
    /// pass's tables, and less the points of a table kept beside it (the tie pass).
    memory_cap: u64,
    /// The memory limit this table was built under, for the stop reason.
    memory_limit: u64,
    /// The components of every count vector, `comps[idx · S + s]`.
    comps: Vec<u32>,
    /// Per socket s, the count vectors whose subtree set `T(s, ·)` is not empty, in fill order.
    alive_trees: Vec<Vec<u32>>,
    /// Per socket s, the count vectors whose group set `G_s[·]` is not empty, in fill order.
    alive_groups: Vec<Vec<u32>>,
    /// For a request under [`Objective::Min`], the covering pass with its budgets: points over
    /// their entry's budget are dropped (dropped again once the table is filled).
    budgets: Option<Box<ScalarPass>>,
    /// For one request ([`SocketTable::build_for`] with a root), a certified lower bound on the
    /// score of every tree of the request (offset included): the covering pass's value at the
    /// root, raised to the budget of every Pareto pass that completed without a tree, and
    /// under max to the optimum's T_max once a pass by T_max alone found it.
    lower_bound: Option<f64>,
    /// Points are compared by T_max alone (T_min projected out of the Pareto sets): the
    /// passes under [`Objective::Max`] that look for the optimum's T_max, before the pass that
    /// breaks its ties (see [`SocketTable::build_for`]).
    by_max: bool,
}

/// A sound cut for one request: the score of an incumbent tree. Every point of every table is a
/// lower bound of the costs of the trees that contain it — a root's T_min and T_max are at
/// least each child's plus positive terms, and a partial node's (T_min so far, largest T_max
/// term + Σ 2 k x + R_I + R_R) only grow as groups are added — and every objective is
/// non-decreasing in both bounds, so a point whose score (with the offset R_L) is above the
/// incumbent's by more than 1e-6 ns cannot be part of an optimum or of a tie.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prune {
    /// The objective of the request.
    pub objective: Objective,
    /// The incumbent's score, ns.
    pub incumbent: f64,
}

impl Prune {
    fn hopeless(&self, offset: f64, min: f64, max: f64) -> bool {
        self.objective.of_range(offset + min, offset + max) > self.incumbent + 1e-6
    }
}

/// One placed tree: parent of each node (node 0 is the root) and socket of each node.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedTree {
    /// Parent of each node, `None` for node 0, the root.
    pub parents: Vec<Option<u32>>,
    /// Socket of each node.
    pub sockets: Vec<u32>,
    /// Its cost, the broadcast's offset (R_L) included.
    pub cost: Cost,
}

/// What stopped the DP early, if anything.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Filled {
    /// Every state was computed.
    Complete,
    /// Under [`Objective::Max`]: the search found the optimum's T_max with T_min projected out
    /// of its Pareto sets, so [`SocketTable::best`] answers a tree of optimal T_max (its cost
    /// is the tree's own), but the pass that breaks ties among those trees by T_min stopped
    /// for this reason: another tree of the same T_max may have a lower T_min.
    TiesOpen(StopReason),
    /// The deadline passed before the states of this many nodes were computed.
    Stopped(StopReason),
}

impl SocketTable {
    /// Fill the DP for every count vector up to `counts` (componentwise). Refuses when the
    /// estimate is over `limits.work_budget`; stops at `limits.time_limit` (then
    /// [`SocketTable::best`] answers only smaller sizes and the caller falls back).
    ///
    /// With `prune`, only the answers whose score can reach the incumbent are kept: use it for
    /// one request, not for a table queried at many counts.
    pub fn build(
        costs: &LineClasses,
        counts: &[u32],
        prune: Option<Prune>,
        limits: &Limits,
        progress: &Progress,
    ) -> Result<(Self, Filled), SocketDpError> {
        Self::build_for(costs, counts, prune, None, None, None, limits, progress)
    }

    /// [`SocketTable::build`] for one request of `threads` nodes whose split over the sockets is
    /// free within the box `counts` (`--placement optimal`): every state holding `threads` nodes
    /// may be a whole tree, so a [`Prune`] adds a parent's level only to smaller states, and the
    /// table answers [`SocketTable::best`] at `root` for every split of `threads` (those that can
    /// reach the incumbent). Under [`Objective::Min`] the covering pass runs first, with a whole
    /// tree at every such split, and the Pareto pass keeps only the trees of least T_min over
    /// all splits (their ties by T_max): the best split is exact, the others are not answered.
    pub fn build_splits(
        costs: &LineClasses,
        counts: &[u32],
        threads: u32,
        root: u32,
        prune: Option<Prune>,
        limits: &Limits,
        progress: &Progress,
    ) -> Result<(Self, Filled), SocketDpError> {
        Self::build_for(
            costs,
            counts,
            prune,
            Some(root),
            Some(threads),
            None,
            limits,
            progress,
        )
    }

    /// [`SocketTable::build`]; with `root` (the request's root socket) and a [`Prune`], the
    /// covering pass runs first (T_min under min; under max and blends the relaxation of
    /// `covering::Prices`), and the Pareto pass keeps only the trees of least score on `root`,
    /// whole trees holding the box (`root_total` `None`) or `root_total` nodes (a free split).
    #[allow(clippy::too_many_arguments)]
    fn build_for(
        costs: &LineClasses,
        counts: &[u32],
        prune: Option<Prune>,
        root: Option<u32>,
        root_total: Option<u32>,
        forced: Option<StageBudgets>,
        limits: &Limits,
        progress: &Progress,
    ) -> Result<(Self, Filled), SocketDpError> {
        if counts.is_empty() || counts.len() > MAX_SOCKETS || counts.iter().all(|&c| c == 0) {
            return Err(SocketDpError::Counts {
                counts: counts.to_vec(),
            });
        }
        // Every objective has a scalar pass (T_min; a relaxation of T_max, or of a blend)
        // whose budgets the Pareto pass keeps to.
        let min_request = match (prune, root) {
            (Some(p), Some(root)) => Some((p, root as usize)),
            _ => None,
        };
        match min_request {
            Some((p, _)) => limits.check(&estimate_for(
                costs,
                counts,
                &p.objective,
                (limits.memory_limit, limits.work_budget),
                Some(p.incumbent).filter(|i| i.is_finite()),
            ))?,
            None => limits.check(&estimate(counts))?,
        }
        check_table_bytes(counts, limits)?;
        let deadline = limits.deadline();
        let mut table = SocketTable::shell(costs, counts, prune);
        if deadline_passed(&deadline) {
            // No time left (e.g. a caller's bound took it): not even the scalar tables.
            return Ok((table, Filled::Stopped(deadline.reason())));
        }
        table.root_total = root_total;
        table.point_cap = limits.work_budget.saturating_mul(POINTS_PER_BUDGET_UNIT);
        table.memory_limit = limits.memory_limit;
        table.memory_cap = limits.memory_limit.saturating_sub(table_bytes(counts));
        let states = table.ranges_len();
        // The count vectors a whole tree may hold: the box (a fixed split), or every vector of
        // `root_total` nodes with the root's socket non-empty (a free split).
        let whole_total =
            root_total.map_or_else(|| counts.iter().map(|&c| c as usize).sum(), |n| n as usize);
        let mut scalar = None;
        if let Some((p, root)) = min_request {
            // What the pass will hold, said as it starts (a terminal shows it on the bar).
            let widest = counts.iter().copied().max().unwrap_or(0);
            let planned = ScalarPass::plan(
                costs,
                &p.objective,
                counts,
                p.incumbent,
                (table.memory_cap, limits.work_budget),
                forced,
            );
            let bytes = planned.map_or_else(
                || {
                    let incumbent = Some(p.incumbent).filter(|i| i.is_finite());
                    let entries =
                        covering_estimate_within(costs, &p.objective, counts, widest, incumbent);
                    covering_bytes(entries.units, counts)
                },
                |(_, bytes)| bytes,
            );
            let tables = crate::limits::format_bytes(table_bytes(counts).saturating_add(bytes));
            let form = match planned {
                Some((StageBudgets::Envelope, _)) => ", partial nodes budgeted by envelopes",
                _ => "",
            };
            let what = match p.objective {
                Objective::Min => "least T_min",
                Objective::Max => "least relaxed T_max",
                Objective::Blend(_) => "least relaxed blend",
            };
            progress.begin(
                &format!("covering pass ({what} of every count vector; tables {tables}{form})"),
                None,
            );
            let allowance = limits
                .work_budget
                .saturating_mul(CORNER_PAIRS_PER_BUDGET_UNIT);
            let built = ScalarPass::new(
                &table,
                &p.objective,
                counts,
                (root, whole_total),
                p.incumbent,
                allowance,
                ((table.memory_cap, limits.work_budget), forced),
                &deadline,
            );
            progress.finish();
            match built {
                Ok(pass) => {
                    // Its tables and budgets stay while the Pareto passes run.
                    table.memory_cap = table.memory_cap.saturating_sub(pass.bytes);
                    scalar = Some((p, root, pass));
                }
                Err(NotBuilt::Stopped) => {
                    return Ok((table, Filled::Stopped(deadline.reason())));
                }
                Err(NotBuilt::Exhausted) => {
                    let reason = StopReason::WorkBudget {
                        budget: limits.work_budget,
                        needed: 0,
                        memory: 0,
                    };
                    return Ok((table, Filled::Stopped(reason)));
                }
                // The Pareto pass alone, still exact (its points are held to the memory
                // limit while it fills).
                Err(NotBuilt::TooLarge) => {}
            }
        }
        let s_count = counts.len();
        let roots: Vec<usize> = match &scalar {
            Some((_, root, _)) => (0..states)
                .filter(|&idx| {
                    let v = &table.comps[idx * s_count..idx * s_count + s_count];
                    v[*root] > 0 && v.iter().map(|&c| c as usize).sum::<usize>() == whole_total
                })
                .collect(),
            None => Vec::new(),
        };
        let least_at = |pass: &ScalarPass, root: usize| {
            roots
                .iter()
                .filter_map(|&idx| pass.tree.get(root).and_then(|t| t.get(idx)).copied())
                .map(f64::from)
                .fold(f64::INFINITY, f64::min)
        };
        let Some((p, root, pass)) = scalar else {
            progress.begin("socket DP over count vectors", Some(states as u64));
            return table.fill_pareto(&deadline, progress);
        };
        let offset = costs.offset();
        let least = least_at(&pass, root);
        if !least.is_finite() {
            // The pass cut at the incumbent holds no whole tree: no tree of the request scores
            // at most the incumbent (the cut never drops one that does), which is then a
            // certified bound, and there is nothing to find (an incumbent from elsewhere, e.g.
            // another split of a free request). The full Pareto pass that ran here cost 2.7 s
            // on one split of 32 threads over eight L3 domains, for no tree.
            table.transitions = table.transitions.saturating_add(pass.pairs);
            if p.incumbent.is_finite() {
                table.lower_bound = Some(p.incumbent);
                return Ok((table, Filled::Complete));
            }
            progress.begin("socket DP over count vectors", Some(states as u64));
            return table.fill_pareto(&deadline, progress);
        }
        table.lower_bound = Some(least + offset);
        table.transitions = table.transitions.saturating_add(pass.pairs);
        // The Pareto pass keeps the points of trees whose score fits the roots' budget: first
        // the covering bound (the optimum wherever the bound is tight: most requests under
        // min, many under max), then, while no tree is that cheap, budgets widened towards the
        // incumbent's score (a sixteenth, a quarter, all of the gap: under max the relaxation
        // is often a few per cent below the optimum, and a pass costs more the wider its
        // budget), or no budget at all without an incumbent. A pass within budget B finds
        // every tree of score ≤ B, so the first that finds one has found the optimum and its
        // ties.
        // The first looks a rounding margin above the bound, which the `f32` tables may hold
        // a little low (`covering`, "Precision"): a pass at the bound itself could then miss
        // an optimum equal to it. A wider budget below it would find nothing new.
        let first = least + least.abs() * covering::ROUNDING_MARGIN;
        let gap = p.incumbent - offset - least;
        let mut budgets = vec![first];
        if gap.is_finite() && gap > SLACK {
            budgets.extend(
                WIDENING
                    .iter()
                    .map(|f| least + f * gap)
                    .filter(|&b| b > first),
            );
        }
        // Under max the passes compare points by T_max alone: every pruning rule there reads
        // T_max only, so a point that is no worse in T_max and in the node stage's other
        // coordinates serves every tree the dropped one would, and the first pass that finds
        // a tree has the optimum's T_max, with a third to a half of the points (4 x 16: 316 M
        // combinations where the full Pareto sets took 1,146 M). One more pass within that
        // T_max breaks its ties by T_min ([`SocketTable::settle_ties`]).
        let by_max = p.objective == Objective::Max;
        let mut pass = Some(Box::new(pass));
        for budget in budgets {
            let Some(this) = pass.take() else { break };
            // Fresh tables (and the prune's own incumbent, which a pass lowers to its budget);
            // the last pass's points are freed before this one stores its own.
            let mut fresh = table.widened(costs, counts, prune);
            drop(table);
            fresh.by_max = by_max;
            let (done, filled, back) =
                fresh.pareto_within(*this, root, &roots, budget, &deadline, progress)?;
            table = done;
            if filled != Filled::Complete {
                return Ok((table, filled));
            }
            match table.least_score_at(root, &roots, &p.objective) {
                // No tree of the request scores `budget` or less: the optimum is above it.
                None => {
                    let proven = budget + offset;
                    table.lower_bound = Some(table.lower_bound.map_or(proven, |b| b.max(proven)));
                    pass = back;
                }
                Some(_) if !by_max => return Ok((table, filled)),
                Some(optimum) => {
                    return table.settle_ties(
                        costs, counts, prune, back, root, &roots, optimum, &deadline, progress,
                    );
                }
            }
        }
        drop(pass);
        let wider = table.widened(costs, counts, prune);
        if gap.is_finite() && gap > SLACK {
            // No tree within the incumbent's score (the last budget): none of this box is.
            return Ok((wider, Filled::Complete));
        }
        progress.begin("socket DP over count vectors", Some(states as u64));
        wider.fill_pareto(&deadline, progress)
    }

    /// Empty tables for another Pareto pass over the same request, carrying this one's bound,
    /// work and point count (the passes share one point cap).
    fn widened(&self, costs: &LineClasses, counts: &[u32], prune: Option<Prune>) -> Self {
        let mut wider = SocketTable::shell(costs, counts, prune);
        wider.root_total = self.root_total;
        wider.point_cap = self.point_cap;
        wider.memory_cap = self.memory_cap;
        wider.memory_limit = self.memory_limit;
        wider.lower_bound = self.lower_bound;
        wider.transitions = self.transitions;
        wider.points = self.points;
        wider
    }

    /// The least score (without the offset) of the whole trees on `root` at `roots`, `None`
    /// when the table holds none.
    fn least_score_at(&self, root: usize, roots: &[usize], objective: &Objective) -> Option<f64> {
        roots
            .iter()
            .flat_map(|&idx| self.trees[root].get(idx))
            .map(|t| objective.of_range(t.min, t.max))
            .reduce(f64::min)
    }

    /// After a pass by T_max alone (`self`) found the optimum's T_max `optimum` (without the
    /// offset), the pass with full Pareto sets within it: every tree of that T_max, so the tie
    /// by T_min is exact. The T_max is proven either way (the table's lower bound); if the tie
    /// pass stops, the T_max-alone table answers, with [`Filled::TiesOpen`].
    #[allow(clippy::too_many_arguments)]
    fn settle_ties(
        mut self,
        costs: &LineClasses,
        counts: &[u32],
        prune: Option<Prune>,
        pass: Option<Box<ScalarPass>>,
        root: usize,
        roots: &[usize],
        optimum: f64,
        deadline: &Deadline,
        progress: &Progress,
    ) -> Result<(Self, Filled), SocketDpError> {
        self.lower_bound = Some(optimum + self.costs.offset());
        let Some(mut pass) = pass else {
            return Ok((self, Filled::TiesOpen(deadline.reason())));
        };
        self.tighten_from_max_pass(&mut pass);
        // This table answers if the tie pass stops, so its points stay beside that pass's.
        let mut tie = self.widened(costs, counts, prune);
        tie.memory_cap = tie.memory_cap.saturating_sub(self.arena_bytes());
        let (tied, filled, _) =
            tie.pareto_within(*pass, root, roots, optimum, deadline, progress)?;
        let reason = match filled {
            Filled::Complete if tied.least_score_at(root, roots, &Objective::Max).is_some() => {
                return Ok((tied, Filled::Complete));
            }
            // Every part of the tree found above is within these budgets, so this pass finds
            // it or one as good; said plainly should it ever not.
            Filled::Complete => StopReason::NoProof {
                why: "the pass breaking ties by T_min found no tree of the optimum's T_max",
            },
            Filled::Stopped(reason) | Filled::TiesOpen(reason) => reason,
        };
        self.points = tied.points;
        self.transitions = tied.transitions;
        Ok((self, Filled::TiesOpen(reason)))
    }

    /// Raise the covering pass's values of subtrees and forests (lower bounds of their T_max
    /// under max) to what this pass by T_max alone found, before the tie pass's backward pass
    /// reads them. This pass's budget was at least the optimum's T_max V*, so every subtree and
    /// every forest of every tree of T_max ≤ V* is among its points or dominated there by one
    /// of no more T_max (and, a forest, no more trees): what it holds at a count vector is a
    /// lower bound of every such part there (none: +∞). For a subtree (`pass.tree`): its least
    /// T_max; for a forest of exactly k trees (`pass.forests`): the least latest T_max of its
    /// forests of at most k; for a group (`pass.group_min`, per kind): the least of its latest
    /// T_max plus k − 1 slopes. The backward pass walks subtrees and groups as envelopes (closed
    /// downwards, `down_set_within`), which the pass's own values need not be (a state can lose
    /// its points to a budget while one above it keeps some), so those are first lowered to
    /// the least over the count vectors above ([`SocketTable::least_above`]), still a lower
    /// bound and non-decreasing. The larger of the two lower bounds is kept. At four sockets
    /// of 16 under max the tie pass then takes 228 M point combinations instead of 409 M (336 M
    /// with the subtrees' values alone).
    fn tighten_from_max_pass(&self, pass: &mut ScalarPass) {
        fn raise(values: &mut [Bound], found: &[Bound]) {
            for (value, &floor) in values.iter_mut().zip(found) {
                if floor > *value {
                    *value = floor;
                }
            }
        }
        let states = self.ranges_len();
        let kk = pass.most_trees;
        // One scratch table for every unit and kind: the tables' own size, once.
        let mut least = Vec::new();
        for sigma in 0..self.radix.len() {
            self.least_above(
                |c| {
                    self.trees[sigma]
                        .get(c)
                        .iter()
                        .map(|t| t.max)
                        .fold(f64::INFINITY, f64::min)
                },
                &mut least,
            );
            if let Some(values) = pass.tree.get_mut(sigma) {
                raise(values, &least);
            }
            if let Some(rows) = pass
                .forests
                .get_mut(sigma)
                .filter(|r| r.len() == states * kk)
            {
                for (d, row) in rows.chunks_mut(kk.max(1)).enumerate() {
                    let points = self.groups[sigma].get(d);
                    let mut running = f64::INFINITY;
                    for (k, slot) in (1u32..).zip(row.iter_mut()) {
                        running = points
                            .iter()
                            .filter(|g| g.k == k)
                            .map(|g| g.mmax)
                            .fold(running, f64::min);
                        let floor = covering::below(running);
                        if floor > *slot {
                            *slot = floor;
                        }
                    }
                }
            }
            for kind in 0..pass.prices.group_kinds() {
                let relation = covering::Prices::kind_relation(kind);
                let slope = pass.prices.slope_to(&self.costs, relation);
                self.least_above(
                    |d| {
                        self.groups[sigma]
                            .get(d)
                            .iter()
                            .map(|g| g.mmax + f64::from(g.k - 1) * slope)
                            .fold(f64::INFINITY, f64::min)
                    },
                    &mut least,
                );
                if let Some(values) = pass.group_min.get_mut(sigma).and_then(|g| g.get_mut(kind)) {
                    raise(values, &least);
                }
            }
        }
    }

    /// For every count vector c, the least of `value(c′)` over the count vectors c′ ≥ c
    /// (componentwise; +∞ where every one is), as a [`Bound`] at most it, into `least`: a
    /// running minimum along each unit in turn, from the top of the box down. (Rounding down
    /// is monotone, so the least of the rounded values is the rounded least.)
    fn least_above(&self, value: impl Fn(usize) -> f64, least: &mut Vec<Bound>) {
        let states = self.ranges_len();
        least.clear();
        least.extend((0..states).map(|c| covering::below(value(c))));
        for unit in 0..self.radix.len() {
            let step = self.stride[unit];
            for c in (0..states).rev() {
                if self.component(c, unit) + 1 < self.radix[unit] {
                    let above = least[c + step];
                    if above < least[c] {
                        least[c] = above;
                    }
                }
            }
        }
    }

    /// The backward pass from the budget `budget` (T_min without the offset) of every whole
    /// tree on `root` at `roots` whose covering value fits it, then the Pareto pass within its
    /// budgets; the pass is handed back for a wider second try.
    fn pareto_within(
        mut self,
        mut pass: ScalarPass,
        root: usize,
        roots: &[usize],
        budget: f64,
        deadline: &Deadline,
        progress: &Progress,
    ) -> Result<(Self, Filled, Option<Box<ScalarPass>>), SocketDpError> {
        let whole = self.ranges_len() - 1;
        let offset = self.costs.offset();
        if let Some(p) = self.prune.as_mut() {
            p.incumbent = p.incumbent.min(budget + offset + SLACK);
        }
        let seeds: Vec<usize> = roots
            .iter()
            .copied()
            .filter(|&idx| {
                pass.tree
                    .get(root)
                    .and_then(|t| t.get(idx))
                    .is_some_and(|&v| f64::from(v) <= budget + SLACK)
            })
            .collect();
        // The envelopes' pages share the memory the Pareto points are held to.
        let allowance = self.memory_cap.saturating_sub(self.arena_bytes());
        match pass.backward(&self, (root, &seeds), budget, allowance, deadline) {
            Backward::Done => {}
            Backward::Stopped => return Ok((self, Filled::Stopped(deadline.reason()), None)),
            Backward::Full => {
                let reason = StopReason::MemoryLimit {
                    limit: self.memory_limit,
                    needed: 0,
                };
                return Ok((self, Filled::Stopped(reason), None));
            }
        }
        self.budgets = Some(Box::new(pass));
        progress.begin(
            "socket DP over count vectors (trees within the budgets)",
            Some(whole as u64 + 1),
        );
        let (mut table, filled) = self.fill_pareto(deadline, progress)?;
        let pass = table.budgets.take();
        Ok((table, filled, pass))
    }

    /// The Pareto pass over every state.
    fn fill_pareto(
        mut self,
        deadline: &Deadline,
        progress: &Progress,
    ) -> Result<(Self, Filled), SocketDpError> {
        let states = self.ranges_len();
        let mut filled = Filled::Complete;
        // Index order: every sub-vector of c has a smaller index, so each state's subtrees,
        // forests and node stages are read complete; within c, its trees come before its groups
        // (a forest of one tree) and its groups before its node stages (one group holding all).
        // In memory order, unlike by node count.
        for c in 0..states {
            self.fill_trees(c);
            self.fill_groups(c);
            self.fill_nodes(c);
            if self.points > self.point_cap {
                filled = Filled::Stopped(self.points_exhausted());
                break;
            }
            let grown = self.budgets.as_ref().map_or(0, |b| b.grown_bytes());
            if self.arena_bytes().saturating_add(grown) > self.memory_cap {
                filled = Filled::Stopped(StopReason::MemoryLimit {
                    limit: self.memory_limit,
                    needed: 0,
                });
                break;
            }
            if self.largest_arena() > MAX_ARENA_POINTS {
                filled = Filled::Stopped(StopReason::NoProof {
                    why: "a Pareto table passed 2^31 points, past what its u32 index addresses",
                });
                break;
            }
            if deadline_passed(deadline) {
                filled = Filled::Stopped(deadline.reason());
                break;
            }
            if c % PROGRESS_STEP == PROGRESS_STEP - 1 {
                progress.advance(PROGRESS_STEP as u64);
            }
        }
        progress.finish();
        Ok((self, filled))
    }

    /// The bytes the Pareto points of every table hold (their arenas' capacity: what is
    /// allocated, not only what is used). A pass reads it after every state, so it passes
    /// [`SocketTable::memory_cap`] by at most one state's points and one arena's growth.
    fn arena_bytes(&self) -> u64 {
        fn bytes<P: Copy>(table: &Table<P>) -> u64 {
            table.stored_bytes()
        }
        let trees: u64 = self.trees.iter().map(bytes).sum();
        let groups: u64 = self.groups.iter().map(bytes).sum();
        let nodes: u64 = self.nodes.iter().flatten().map(bytes).sum();
        trees.saturating_add(groups).saturating_add(nodes)
    }

    /// The most points one table's arena holds (its ranges are `u32`: see
    /// [`MAX_ARENA_POINTS`]).
    fn largest_arena(&self) -> usize {
        let trees = self.trees.iter().map(|t| t.points.len());
        let groups = self.groups.iter().map(|t| t.points.len());
        let nodes = self.nodes.iter().flatten().map(|t| t.points.len());
        trees.chain(groups).chain(nodes).max().unwrap_or(0)
    }

    /// The stop reason once [`SocketTable::points`] passed its cap: the work budget the cap was
    /// derived from.
    fn points_exhausted(&self) -> StopReason {
        StopReason::WorkBudget {
            budget: self.point_cap / POINTS_PER_BUDGET_UNIT,
            needed: 0,
            memory: 0,
        }
    }

    /// Whether no tree within the budgets uses the node stage (σ, stage, r) in any suffix
    /// state: its points would all be dropped, so its candidates are not even listed.
    fn dead_node(&self, sigma: usize, stage: usize, r: usize) -> bool {
        self.budgets
            .as_ref()
            .is_some_and(|b| match b.stage_budgets {
                StageBudgets::BySuffix => !b.live_nodes[sigma][stage][r],
                StageBudgets::Envelope => b.out_envelope[sigma]
                    .get(stage)
                    .and_then(|t| t.get(r))
                    .is_none_or(|e| e.0 == Bound::NEG_INFINITY),
            })
    }

    /// Whether no tree within the budgets uses a group of `d` on socket `s`.
    fn dead_group(&self, s: usize, d: usize) -> bool {
        self.budgets
            .as_ref()
            .is_some_and(|b| b.out_group[s].iter().all(|g| g[d] == Bound::NEG_INFINITY))
    }

    /// Whether a subtree point (T_min, T_max) is over its budget (of its T_min, or under max
    /// of its T_max).
    fn over_tree(&self, sigma: usize, c: usize, min: f64, max: f64) -> bool {
        self.budgets
            .as_ref()
            .is_some_and(|b| b.score(min, max) > f64::from(b.out_tree[sigma][c]) + SLACK)
    }

    /// Whether a partial node point is over its budget. Under max and blends only a stage no
    /// tree of the request reaches is: the relaxed value of a partial node (`covering::Prices`)
    /// is not a function of the point's fields.
    fn over_node(&self, sigma: usize, stage: usize, r: usize, p: &PPoint) -> bool {
        self.budgets.as_ref().is_some_and(|b| {
            if b.stage_budgets == StageBudgets::Envelope {
                // Under min only: the T_min so far and the waits of the point's groups.
                let waits = Suffix::waits(&self.costs, p.far.into(), p.near.into(), p.local.into());
                return b.out_envelope[sigma]
                    .get(stage)
                    .and_then(|t| t.get(r))
                    .is_none_or(|(budget, slack)| {
                        p.tmin > f64::from(budget) + SLACK || waits > f64::from(slack) + SLACK
                    });
            }
            let st = self
                .suffix()
                .encode(p.far.into(), p.near.into(), p.local.into());
            // A state the stage cannot reach has no budget (no tree of the request is there).
            let slots = &b.slots[sigma][stage];
            slots.of(st).is_none_or(|i| {
                let budget = b.out_nodes[sigma][stage][r * slots.width() + i];
                match b.objective {
                    Objective::Min => p.tmin > f64::from(budget) + SLACK,
                    _ => budget == Bound::NEG_INFINITY,
                }
            })
        })
    }

    /// Empty tables for the box `counts` (1 to [`MAX_SOCKETS`] sockets, checked by the caller).
    fn shell(costs: &LineClasses, counts: &[u32], prune: Option<Prune>) -> Self {
        Self::over_box(costs, counts, prune, true)
    }

    /// [`SocketTable::shell`], with the Pareto tables' index allocated or left empty.
    fn over_box(costs: &LineClasses, counts: &[u32], prune: Option<Prune>, index: bool) -> Self {
        let s_count = counts.len();
        let radix: Vec<usize> = counts.iter().map(|&c| c as usize + 1).collect();
        let mut stride = vec![1usize; s_count];
        for i in 1..s_count {
            stride[i] = stride[i - 1] * radix[i - 1];
        }
        let states = stride.last().copied().unwrap_or(1) * radix.last().copied().unwrap_or(1);
        let entries = if index { states } else { 0 };
        let mut table = SocketTable {
            costs: *costs,
            radix,
            stride,
            trees: (0..s_count).map(|_| Table::new(entries)).collect(),
            groups: (0..s_count).map(|_| Table::new(entries)).collect(),
            nodes: (0..s_count)
                .map(|_| (0..s_count).map(|_| Table::new(entries)).collect())
                .collect(),
            prune,
            root_total: None,
            transitions: 0,
            points: 0,
            point_cap: u64::MAX,
            memory_cap: u64::MAX,
            memory_limit: u64::MAX,
            comps: Vec::with_capacity(states * s_count),
            alive_trees: vec![Vec::new(); s_count],
            alive_groups: vec![Vec::new(); s_count],
            budgets: None,
            lower_bound: None,
            by_max: false,
        };
        for i in 0..states {
            let v = table.decode(i);
            table.comps.extend(v.iter().map(|&x| x as u32));
        }
        table
    }

    /// The box, its count vectors and their components without the Pareto tables' index: what
    /// a covering pass that only bounds is read through ([`covered`]).
    fn without_index(costs: &LineClasses, counts: &[u32]) -> Self {
        Self::over_box(costs, counts, None, false)
    }

    /// Points stored in the subtree, group and node tables, and the largest set of each.
    pub fn sizes(&self) -> [(usize, usize); 3] {
        fn count<P: Copy>(tables: &[&Table<P>]) -> (usize, usize) {
            let total = tables.iter().map(|t| t.points.len()).sum();
            let largest = tables.iter().flat_map(|t| t.set_sizes()).max().unwrap_or(0);
            (total, largest)
        }
        [
            count(&self.trees.iter().collect::<Vec<_>>()),
            count(&self.groups.iter().collect::<Vec<_>>()),
            count(&self.nodes.iter().flatten().collect::<Vec<_>>()),
        ]
    }

    fn hopeless(&self, min: f64, max: f64) -> bool {
        self.prune
            .is_some_and(|p| p.hopeless(self.costs.offset(), min, max))
    }

    /// The least a parent's level adds to a proper subtree's (T_min, T_max): with every
    /// transfer ≥ R_R and every fetch ≥ R_I, one child alone on the parent's line costs
    /// A + x + R_L + R_I + x (T_min: A = R_I) and A_max + x + R_L + R_I + x + x
    /// (A_max ≥ R_I + 2 R_R + R_R); §7.
    fn parent_level(&self) -> (f64, f64) {
        let c = &self.costs;
        (
            2.0 * c.memory + 2.0 * c.socket + c.local,
            2.0 * c.memory + 6.0 * c.socket + c.local,
        )
    }

    /// Whether the state `c` (a count vector index) is a proper subtree of the request's tree:
    /// not the whole box, or (every split asked for) holding fewer nodes than a whole tree.
    fn proper(&self, c: usize) -> bool {
        match self.root_total {
            Some(n) => {
                let s = self.radix.len();
                self.comps[c * s..c * s + s].iter().sum::<u32>() != n
            }
            None => c + 1 != self.ranges_len(),
        }
    }

    /// The count vectors of the box (whether or not the Pareto tables' index is allocated:
    /// [`SocketTable::without_index`]).
    fn ranges_len(&self) -> usize {
        if self.radix.is_empty() {
            0
        } else {
            self.radix.iter().product()
        }
    }

    fn decode(&self, idx: usize) -> Vec<usize> {
        self.radix
            .iter()
            .zip(&self.stride)
            .map(|(&r, &s)| (idx / s) % r)
            .collect()
    }

    fn index(&self, v: &[usize]) -> Option<usize> {
        let mut idx = 0;
        for (i, &x) in v.iter().enumerate() {
            if x >= *self.radix.get(i)? {
                return None;
            }
            idx += x * self.stride[i];
        }
        Some(idx)
    }

    fn component(&self, idx: usize, s: usize) -> usize {
        (idx / self.stride[s]) % self.radix[s]
    }

    /// Whether e ≤ d componentwise.
    fn below(&self, e: usize, d: usize) -> bool {
        let s = self.radix.len();
        self.comps[e * s..e * s + s]
            .iter()
            .zip(&self.comps[d * s..d * s + s])
            .all(|(a, b)| a <= b)
    }

    /// The count vectors d ≤ r holding at least one node on `unit` for which `fits(d)` holds,
    /// into `out`, ascending, where `fits` is *closed downwards* on them (d ≤ d′, both holding a
    /// node on `unit`, and `fits(d′)` imply `fits(d)`): a threshold on a table that is an
    /// envelope there, such as the covering pass's groups (docs/cla.md §11). The walk is the
    /// odometer over those vectors (the lowest unit fastest), except that where `fits` fails at
    /// d it skips every vector that follows d in that order and lies above it: the run of
    /// vectors that agree with d on the units above z and hold at least d_z on z, z the lowest
    /// unit where d is above its least value. So it looks at the vectors that fit and at most
    /// one that does not per skip, not at the whole box below r (on L3 domains a node stage's
    /// groups within budget are 1–2 % of its sub-vectors: docs/perf.md).
    fn down_set_within(
        &self,
        r: usize,
        unit: usize,
        fits: impl Fn(usize) -> bool,
        out: &mut Vec<usize>,
    ) {
        out.clear();
        let s = self.radix.len();
        let hi = &self.comps[r * s..r * s + s];
        if hi.get(unit).is_none_or(|&h| h == 0) {
            return;
        }
        let lo = |i: usize| u32::from(i == unit);
        let mut cur = [0u32; MAX_SOCKETS];
        cur[unit] = 1;
        let mut idx = self.stride[unit];
        loop {
            // The lowest unit to advance: 0 after a fit; past a failure, the one above the
            // lowest unit standing above its least value (every vector before that carry is
            // above this one, so none fits).
            let i = if fits(idx) {
                out.push(idx);
                0
            } else {
                match (0..s).find(|&i| cur[i] > lo(i)) {
                    Some(z) => {
                        for (j, digit) in cur.iter_mut().enumerate().take(z + 1) {
                            idx -= (*digit - lo(j)) as usize * self.stride[j];
                            *digit = lo(j);
                        }
                        z + 1
                    }
                    // The least vector fails: every one does.
                    None => return,
                }
            };
            if !self.advance(&mut cur, &mut idx, i, lo, hi) {
                return;
            }
        }
    }

    /// The groups on `unit` a node stage at r may add that pass `fits` (closed downwards, as for
    /// [`SocketTable::down_set_within`]), into `out`: at the `last` stage only d = r (no stage
    /// above it holds the rest).
    fn stage_groups(
        &self,
        r: usize,
        unit: usize,
        last: bool,
        fits: impl Fn(usize) -> bool,
        out: &mut Vec<usize>,
    ) {
        if last {
            out.clear();
            if self.component(r, unit) > 0 && fits(r) {
                out.push(r);
            }
        } else {
            self.down_set_within(r, unit, fits, out);
        }
    }

    /// One step of an odometer over the vectors with lo(u) ≤ cur[u] ≤ hi[u] (index `idx`,
    /// the lowest unit fastest, so indices ascend), from unit `i`: the units below `i` are at
    /// their least, `i` or the first unit above it with room goes up by one and the ones it
    /// passes return to their least. False past the last vector.
    fn advance(
        &self,
        cur: &mut [u32; MAX_SOCKETS],
        idx: &mut usize,
        mut i: usize,
        lo: impl Fn(usize) -> u32,
        hi: &[u32],
    ) -> bool {
        while i < self.radix.len() {
            if cur[i] < hi[i] {
                cur[i] += 1;
                *idx += self.stride[i];
                return true;
            }
            *idx -= (cur[i] - lo(i)) as usize * self.stride[i];
            cur[i] = lo(i);
            i += 1;
        }
        false
    }

    /// The count vectors e ≤ d (d included) that are in `list` (`alive(e)` says the same)
    /// into `out`: the shorter of the list (filtered by ≤ d) and the sub-vectors of d (filtered
    /// by `alive`) is walked, so that pruned states cost nothing. Ascending when `sorted` (the
    /// Pareto pass keeps the first of equal points, so its order is part of the tie rule).
    fn candidates(
        &self,
        list: &[u32],
        alive: impl Fn(usize) -> bool,
        d: usize,
        sorted: bool,
        out: &mut Vec<usize>,
    ) {
        out.clear();
        let s = self.radix.len();
        let dv = &self.comps[d * s..d * s + s];
        let subs: usize = dv.iter().map(|&x| x as usize + 1).product();
        if list.len() < subs {
            out.extend(
                list.iter()
                    .map(|&e| e as usize)
                    .filter(|&e| self.below(e, d)),
            );
            if sorted {
                out.sort_unstable();
            }
            return;
        }
        // Odometer over every e ≤ d, lowest digit fastest: ascending indices.
        let mut cur = [0u32; MAX_SOCKETS];
        let mut idx = 0usize;
        loop {
            if alive(idx) {
                out.push(idx);
            }
            if !self.advance(&mut cur, &mut idx, 0, |_| 0, dv) {
                return;
            }
        }
    }

    /// T(σ, c) for every σ holding a node of c.
    fn fill_trees(&mut self, c: usize) {
        let s_count = self.radix.len();
        for sigma in 0..s_count {
            if self.component(c, sigma) == 0 {
                continue;
            }
            let r = c - self.stride[sigma];
            let mut set: Vec<TPoint> = Vec::new();
            if r == 0 {
                set.push(TPoint {
                    min: 0.0,
                    max: 0.0,
                    node_point: NONE,
                });
            } else {
                let c_ = self.costs;
                for (i, p) in self.nodes[sigma][0].get(r).iter().enumerate() {
                    if p.far == 0 && p.near == 0 && p.local == 0 {
                        continue;
                    }
                    // A_max's first fetch and re-read: the farthest group's (R_QI and R_Q
                    // across sockets, else R_I and R_D / R_R; the classes are ordered).
                    let fetch = if p.far > 0 {
                        c_.remote_memory
                    } else {
                        c_.memory
                    };
                    let reread = if p.far > 0 {
                        c_.remote
                    } else if p.near > 0 {
                        c_.class(UnitRelation::SameSocket)
                    } else {
                        c_.socket
                    };
                    let max = p.mmax + p.sum + fetch + reread;
                    let (up_min, up_max) = if self.proper(c) {
                        self.parent_level()
                    } else {
                        (0.0, 0.0)
                    };
                    if self.hopeless(p.tmin + up_min, max + up_max)
                        || self.over_tree(sigma, c, p.tmin, max)
                    {
                        continue;
                    }
                    insert_t(
                        &mut set,
                        TPoint {
                            min: p.tmin,
                            max,
                            node_point: i as u32,
                        },
                        self.by_max,
                    );
                }
            }
            if !set.is_empty() {
                self.alive_trees[sigma].push(c as u32);
            }
            self.trees[sigma].set(c, &set);
        }
    }

    /// G_s[d] for every s holding a node of d.
    fn fill_groups(&mut self, d: usize) {
        let s_count = self.radix.len();
        let mut subs = Vec::new();
        for s in 0..s_count {
            if self.component(d, s) == 0 {
                continue;
            }
            let mut set: Vec<GPoint> = Vec::new();
            if self.dead_group(s, d) {
                self.groups[s].set(d, &set);
                continue;
            }
            let cut = ForestCut::of(self, s, d);
            for (i, t) in self.trees[s].get(d).iter().enumerate() {
                if cut.over_budget(t.min, t.max, 1) {
                    continue;
                }
                insert_g(
                    &mut set,
                    GPoint {
                        mmin: t.min,
                        mmax: t.max,
                        k: 1,
                        tree: d as u32,
                        tree_point: i as u32,
                        rest_point: NONE,
                    },
                    self.by_max,
                );
            }
            let mut pairs = 0u64;
            self.candidates(
                &self.alive_trees[s],
                |e| !self.trees[s].get(e).is_empty(),
                d,
                true,
                &mut subs,
            );
            let held = self.comps[d * s_count + s];
            for &e in &subs {
                // The first tree and the rest both hold a node on s: (d − e)_s = d_s − e_s, read
                // without a second, scattered look-up of d − e's components.
                let first = self.comps[e * s_count + s];
                if e == d || first == 0 || first == held {
                    continue;
                }
                let rest = self.groups[s].get(d - e);
                if rest.is_empty() {
                    continue;
                }
                pairs += 1;
                let trees = self.trees[s].get(e);
                self.points = self
                    .points
                    .saturating_add((trees.len() as u64).saturating_mul(rest.len() as u64));
                for (ti, t) in trees.iter().enumerate() {
                    for (gi, g) in rest.iter().enumerate() {
                        let (mmin, mmax) = (t.min.max(g.mmin), t.max.max(g.mmax));
                        if cut.drops(mmin, mmax, g.k + 1) {
                            continue;
                        }
                        insert_g(
                            &mut set,
                            GPoint {
                                mmin,
                                mmax,
                                k: g.k + 1,
                                tree: e as u32,
                                tree_point: ti as u32,
                                rest_point: gi as u32,
                            },
                            self.by_max,
                        );
                    }
                }
            }
            self.transitions += pairs;
            if !set.is_empty() {
                self.alive_groups[s].push(d as u32);
            }
            self.groups[s].set(d, &set);
        }
    }

    /// The terms a group of `g` on socket `s` adds to a node on `sigma` whose groups on higher
    /// sockets are summarized by `prev`.
    fn add_group(&self, sigma: usize, s: usize, g: &GPoint, prev: &PPoint) -> PPoint {
        let c = &self.costs;
        let x = c.transfer(sigma as u32, s as u32);
        let fetch = c.fetch(s as u32, sigma as u32);
        let k = f64::from(g.k);
        // Suffix of waits: this group's and every used group above it (ascending-order waits).
        let suffix = x + Suffix::waits(c, prev.far.into(), prev.near.into(), prev.local.into());
        // T_min: A_min (R_I) + edge + subtree + R_I + (k − 1) R_R, then the waits.
        let g_min = c.memory + x + c.local + g.mmin + c.memory + (k - 1.0) * c.socket + suffix;
        // T_max without A_max: edge + subtree + fetch + k·x + (k − 1)·x, then the waits.
        let g_max = x + c.local + g.mmax + fetch + (2.0 * k - 1.0) * x + suffix;
        let relation = c.relation(sigma as u32, s as u32);
        PPoint {
            tmin: prev.tmin.max(g_min),
            mmax: prev.mmax.max(g_max),
            sum: prev.sum + 2.0 * k * x,
            far: prev.far + u8::from(relation == UnitRelation::OtherSocket),
            near: prev.near + u8::from(relation == UnitRelation::SameSocket),
            local: prev.local + u8::from(relation == UnitRelation::Same),
            group: 0,
            group_point: 0,
            prev_point: 0,
        }
    }

    /// P_σ^{(s)}[r] for every σ and stage s, descending.
    fn fill_nodes(&mut self, r: usize) {
        let s_count = self.radix.len();
        let mut subs = Vec::new();
        let empty = PPoint {
            tmin: f64::NEG_INFINITY,
            mmax: f64::NEG_INFINITY,
            sum: 0.0,
            far: 0,
            near: 0,
            local: 0,
            group: NONE,
            group_point: NONE,
            prev_point: NONE,
        };
        for sigma in 0..s_count {
            for stage in (0..s_count).rev() {
                let mut set: Vec<PPoint> = Vec::new();
                if self.dead_node(sigma, stage, r) {
                    self.nodes[sigma][stage].set(r, &set);
                    continue;
                }
                // This stage's socket holds no child: the previous stage as it is.
                if stage + 1 == s_count {
                    if r == 0 {
                        insert_p(&mut set, empty, self.by_max);
                    }
                } else {
                    for (i, p) in self.nodes[sigma][stage + 1].get(r).iter().enumerate() {
                        if self.over_node(sigma, stage, r, p) {
                            continue;
                        }
                        insert_p(
                            &mut set,
                            PPoint {
                                group: NONE,
                                group_point: NONE,
                                prev_point: i as u32,
                                ..*p
                            },
                            self.by_max,
                        );
                    }
                }
                let mut pairs = 0u64;
                let last = stage + 1 == s_count;
                let c = self.costs;
                // A finished node (stage 0) whose subtree is not the whole request has a parent
                // level above it; a partial node (stage > 0) may still become the root.
                let whole = self.component(r, sigma) + 1 < self.radix[sigma]
                    && !self.proper(r + self.stride[sigma]);
                let up = if whole || stage > 0 {
                    (0.0, 0.0)
                } else {
                    self.parent_level()
                };
                let base = [empty];
                self.candidates(
                    &self.alive_groups[stage],
                    |d| !self.groups[stage].get(d).is_empty(),
                    r,
                    true,
                    &mut subs,
                );
                for &d in &subs {
                    if self.component(d, stage) == 0 {
                        continue;
                    }
                    let rest = r - d;
                    let prevs: &[PPoint] = if last {
                        if rest != 0 {
                            continue;
                        }
                        &base
                    } else {
                        self.nodes[sigma][stage + 1].get(rest)
                    };
                    if prevs.is_empty() {
                        continue;
                    }
                    pairs += 1;
                    self.points = self.points.saturating_add(
                        (self.groups[stage].get(d).len() as u64).saturating_mul(prevs.len() as u64),
                    );
                    for (gi, g) in self.groups[stage].get(d).iter().enumerate() {
                        for (pi, p) in prevs.iter().enumerate() {
                            let mut q = self.add_group(sigma, stage, g, p);
                            q.group = d as u32;
                            q.group_point = gi as u32;
                            q.prev_point = if last { NONE } else { pi as u32 };
                            if self.hopeless(
                                q.tmin + up.0,
                                q.mmax + q.sum + c.memory + c.socket + up.1,
                            ) || self.over_node(sigma, stage, r, &q)
                            {
                                continue;
                            }
                            insert_p(&mut set, q, self.by_max);
                        }
                    }
                }
                self.transitions += pairs;
                self.nodes[sigma][stage].set(r, &set);
            }
        }
    }

    /// The best tree with its root on `root` holding `counts` nodes per socket, under
    /// `objective` (ties: the other bound, then the first point found). `None` when the counts
    /// are outside the table, hold no node on the root's socket, or were not computed.
    pub fn best(&self, root: u32, counts: &[u32], objective: &Objective) -> Option<PlacedTree> {
        let v: Vec<usize> = counts.iter().map(|&c| c as usize).collect();
        if v.len() != self.radix.len() {
            return None;
        }
        let c = self.index(&v)?;
        let sigma = root as usize;
        if *v.get(sigma)? == 0 {
            return None;
        }
        let off = self.costs.offset();
        let (pi, p) = self.trees[sigma]
            .get(c)
            .iter()
            .enumerate()
            .min_by_key(|(i, p)| (cost_key(objective, off + p.min, off + p.max), *i))?;
        let mut tree = self.reconstruct(sigma, c, pi as u32)?;
        tree.cost = Cost::range(off + p.min, off + p.max);
        Some(tree)
    }

    /// The tree behind a point of T(σ, c), built with an explicit stack (no recursion).
    fn reconstruct(&self, sigma: usize, c: usize, point: u32) -> Option<PlacedTree> {
        enum Work {
            Node {
                socket: usize,
                counts: usize,
                point: u32,
                id: u32,
            },
            Group {
                socket: usize,
                counts: usize,
                point: u32,
                parent: u32,
            },
        }
        let mut parents: Vec<Option<u32>> = vec![None];
        let mut sockets: Vec<u32> = vec![sigma as u32];
        let mut stack = vec![Work::Node {
            socket: sigma,
            counts: c,
            point,
            id: 0,
        }];
        let s_count = self.radix.len();
        while let Some(w) = stack.pop() {
            match w {
                Work::Node {
                    socket,
                    counts,
                    point,
                    id,
                } => {
                    let t = *self.trees[socket].get(counts).get(point as usize)?;
                    if t.node_point == NONE {
                        continue;
                    }
                    let mut r = counts - self.stride[socket];
                    let mut pp = t.node_point;
                    for stage in 0..s_count {
                        let p = *self.nodes[socket][stage].get(r).get(pp as usize)?;
                        if p.group != NONE {
                            stack.push(Work::Group {
                                socket: stage,
                                counts: p.group as usize,
                                point: p.group_point,
                                parent: id,
                            });
                            r -= p.group as usize;
                        }
                        pp = p.prev_point;
                        if pp == NONE {
                            break;
                        }
                    }
                }
                Work::Group {
                    socket,
                    counts,
                    point,
                    parent,
                } => {
                    let g = *self.groups[socket].get(counts).get(point as usize)?;
                    let id = parents.len() as u32;
                    parents.push(Some(parent));
                    sockets.push(socket as u32);
                    stack.push(Work::Node {
                        socket,
                        counts: g.tree as usize,
                        point: g.tree_point,
                        id,
                    });
                    if g.rest_point != NONE {
                        stack.push(Work::Group {
                            socket,
                            counts: counts - g.tree as usize,
                            point: g.rest_point,
                            parent,
                        });
                    }
                }
            }
        }
        Some(PlacedTree {
            parents,
            sockets,
            cost: Cost::range(0.0, 0.0),
        })
    }

    /// The shape of the node stages' suffix states.
    fn suffix(&self) -> Suffix {
        Suffix::new(self.radix.len(), &self.costs)
    }

    /// For a request whose covering pass completed (docs/cla.md §11): a certified lower bound
    /// on the objective's score of every tree and placement of the request, offset included
    /// (the covering value at the root, raised by the Pareto passes that found no tree within
    /// their budgets; see [`DpOutcome::lower_bound`]), known even when a Pareto pass after it
    /// stopped.
    pub fn lower_bound(&self) -> Option<f64> {
        self.lower_bound
    }

    /// The cost constants the table was filled with.
    pub fn costs(&self) -> &LineClasses {
        &self.costs
    }
}

/// The suffix state of a node stage (docs/cla.md §11, point 4): the used groups above the stage,
/// as how many lie on other sockets (`far`, each wait R_Q), how many on other units of the
/// node's socket (`near`, R_D; only when the units are L3 domains) and whether one lies on the
/// node's own unit (`local`, R_R). A lower group's term depends on the groups above it only
/// through the sum of their waits, and the node's A_max only through which counts are non-zero,
/// so this is all a stage carries. Encoded `(far · N + near) · 2 + local` with N the most units
/// of one socket: with sockets as units (N = 1) the 2·S states of seed 001's machine.
#[derive(Debug, Clone, Copy)]
struct Suffix {
    /// N: the most units of one socket (near counts 0..N).
    near_span: usize,
    /// The most units outside one socket, plus one (far counts 0..far_span).
    far_span: usize,
}

impl Suffix {
    /// The states of a table over `units` units: near counts up to the most units one socket
    /// holds (less one), far counts up to the most units outside one socket.
    fn new(units: usize, costs: &LineClasses) -> Self {
        let mut per_socket: Vec<usize> = Vec::new();
        for u in 0..units {
            let s = costs.socket_of(u as u32) as usize;
            if per_socket.len() <= s {
                per_socket.resize(s + 1, 0);
            }
            per_socket[s] += 1;
        }
        let present = per_socket.iter().copied().filter(|&c| c > 0);
        let most = present.clone().max().unwrap_or(1);
        let least = present.min().unwrap_or(1);
        Suffix {
            near_span: most.max(1),
            far_span: units.saturating_sub(least) + 1,
        }
    }

    /// How many states.
    fn width(&self) -> usize {
        self.far_span * self.near_span * 2
    }

    fn encode(&self, far: usize, near: usize, local: usize) -> usize {
        (far * self.near_span + near) * 2 + local
    }

    fn decode(&self, state: usize) -> (usize, usize, usize) {
        (
            state / 2 / self.near_span,
            state / 2 % self.near_span,
            state % 2,
        )
    }

    /// The suffix states a node on `sigma` can reach at `stage` within the box `counts`, in
    /// ascending order. Its groups from `stage` up lie on distinct units the box gives room
    /// (`counts[u] > 0`), so `far` is at most the number of such units on other sockets, `near`
    /// the number on σ's socket other than σ, and `local` is 1 only when σ is among them. A
    /// unit without room roots no node: none for it. Every state a tree reaches is listed (its
    /// groups are on such units), so tables over these states alone lose nothing; on a box
    /// that leaves units empty (40 threads on 8 L3 domains fill 5) they are a fraction of
    /// [`Suffix::width`].
    fn reachable(
        &self,
        costs: &LineClasses,
        counts: &[u32],
        sigma: usize,
        stage: usize,
    ) -> Vec<usize> {
        if counts.get(sigma).is_none_or(|&c| c == 0) {
            return Vec::new();
        }
        let home = costs.socket_of(sigma as u32);
        let used = |u: &usize| counts[*u] > 0;
        let far_most = (stage..counts.len())
            .filter(used)
            .filter(|&u| costs.socket_of(u as u32) != home)
            .count();
        let near_most = (stage..counts.len())
            .filter(used)
            .filter(|&u| u != sigma && costs.socket_of(u as u32) == home)
            .count();
        let local_most = usize::from(sigma >= stage);
        (0..self.width())
            .filter(|&state| {
                let (far, near, local) = self.decode(state);
                far <= far_most && near <= near_most && local <= local_most
            })
            .collect()
    }

    /// `Suffix::reachable` of every node stage of the box, `[σ][stage]`.
    fn slots(&self, costs: &LineClasses, counts: &[u32]) -> Vec<Vec<StageSlots>> {
        (0..counts.len())
            .map(|sigma| {
                (0..counts.len())
                    .map(|stage| {
                        StageSlots::new(self.width(), self.reachable(costs, counts, sigma, stage))
                    })
                    .collect()
            })
            .collect()
    }

    /// The reachable suffix states of all node stages of the box together: Σ over σ and stage
    /// of `Suffix::reachable`'s length, what the node tables of the covering pass and of its
    /// budgets hold per count vector.
    fn stage_states(&self, costs: &LineClasses, counts: &[u32]) -> u64 {
        (0..counts.len())
            .flat_map(|sigma| (0..counts.len()).map(move |stage| (sigma, stage)))
            .map(|(sigma, stage)| self.reachable(costs, counts, sigma, stage).len() as u64)
            .sum()
    }

    /// The state before a group of `relation` to the node was added, when `state` holds one.
    fn without(&self, state: usize, relation: UnitRelation) -> Option<usize> {
        let (far, near, local) = self.decode(state);
        match relation {
            UnitRelation::Same => (local == 1).then(|| self.encode(far, near, 0)),
            UnitRelation::SameSocket => (near > 0).then(|| self.encode(far, near - 1, local)),
            UnitRelation::OtherSocket => (far > 0).then(|| self.encode(far - 1, near, local)),
        }
    }

    /// For a group of `relation`, every (state, state before it, waits of the groups before it):
    /// the transitions of a node stage, listed once so that the passes' inner loops neither
    /// decode states nor visit impossible ones.
    fn steps(&self, costs: &LineClasses, relation: UnitRelation) -> Vec<(usize, usize, f64)> {
        (0..self.width())
            .filter_map(|state| {
                self.without(state, relation)
                    .map(|prev| (state, prev, self.cost(costs, prev)))
            })
            .collect()
    }

    /// The transitions of [`Suffix::steps`] for each relation, indexed by [`relation_index`].
    fn all_steps(&self, costs: &LineClasses) -> [Vec<(usize, usize, f64)>; 3] {
        [
            UnitRelation::Same,
            UnitRelation::SameSocket,
            UnitRelation::OtherSocket,
        ]
        .map(|r| self.steps(costs, r))
    }

    /// The waits of the groups a state counts.
    fn cost(&self, costs: &LineClasses, state: usize) -> f64 {
        let (far, near, local) = self.decode(state);
        Self::waits(costs, far, near, local)
    }

    /// far·R_Q + near·R_D + local·R_R.
    fn waits(costs: &LineClasses, far: usize, near: usize, local: usize) -> f64 {
        far as f64 * costs.remote
            + near as f64 * costs.class(UnitRelation::SameSocket)
            + local as f64 * costs.socket
    }
}

/// The suffix states one node stage can reach and where each is kept in a table with
/// [`StageSlots::width`] entries per count vector (`r · width + slot`).
#[derive(Debug, Clone, Default)]
struct StageSlots {
    /// `slot[state]`: its place, or `u32::MAX` where the stage cannot reach it.
    slot: Vec<u32>,
    /// The reachable states, ascending.
    states: Vec<usize>,
}

impl StageSlots {
    fn new(width: usize, states: Vec<usize>) -> Self {
        let mut slot = vec![u32::MAX; width];
        for (i, &state) in states.iter().enumerate() {
            slot[state] = i as u32;
        }
        StageSlots { slot, states }
    }

    /// How many states the stage can reach.
    fn width(&self) -> usize {
        self.states.len()
    }

    /// Where `state` is kept, if the stage can reach it.
    fn of(&self, state: usize) -> Option<usize> {
        match self.slot.get(state) {
            Some(&s) if s != u32::MAX => Some(s as usize),
            _ => None,
        }
    }
}

/// The index of a relation in [`Suffix::all_steps`].
fn relation_index(relation: UnitRelation) -> usize {
    match relation {
        UnitRelation::Same => 0,
        UnitRelation::SameSocket => 1,
        UnitRelation::OtherSocket => 2,
    }
}

/// The scalar first pass: the least T_min of every state (under max and blends the least of
/// the relaxation of `covering::Prices`, whose recurrence has the same shape), no Pareto sets,
/// and from it the budgets of the Pareto pass. Described below for T_min.
///
/// T_min of a node is `max` over its groups of `2 R_I + R_L + x + (M_s + (k_s − 1)·R_R) +
/// suffix_s` (§7, the terms of [`LineClasses::finish`] with A_min = R_I), where M_s is the latest
/// T_min among the k_s children on socket s and suffix_s the waits of the used groups at and
/// above s. It is non-decreasing in every child's T_min, so the least T_min of a state is built
/// from the least T_min of its children's states: per subtree state one scalar `tree[σ][c]`; per
/// forest state one scalar per tree count k (k enters the group term as (k − 1)·R_R and through
/// the next tree added); per group `min (M + (k − 1)·R_R)`; per node stage one scalar per
/// [`Suffix`] state. The forward tables are filled by the covering pass ([`covering`]): lower
/// bounds of those least values (equal to them wherever adding nodes never lowers the least
/// T_min), which is all the backward pass needs.
#[derive(Debug, Clone)]
struct ScalarPass {
    /// What the values are: T_min, or (under [`Objective::Max`]) the relaxation of T_max of
    /// `covering::Prices`, whose recurrence has the same shape (docs/cla.md §11, "Exact under
    /// max").
    objective: Objective,
    /// The terms of the recurrence (the forward tables' and the backward pass's).
    prices: covering::Prices,
    /// The covering pass's tables ([`Bound`]s, rounded down: docs of `covering`, "Precision").
    tree: Vec<Vec<Bound>>,
    /// `forests[s][d · K + k − 1]`: the least latest T_min of k trees on socket s holding d, for
    /// k ≤ K (more trees cannot fit under the incumbent); one row of K per state, as the
    /// backward pass reads them.
    forests: Vec<Vec<Bound>>,
    /// K, the most trees a group may have.
    most_trees: usize,
    /// `min (M + (k − 1)·R_R)` over the forests of `groups[s][d]`.
    group_min: Vec<Vec<Vec<Bound>>>,
    /// `nodes[σ][stage][suffix][r]`, [`Suffix::width`] states (2·S with sockets as units:
    /// remote groups · 2 + local); an empty table is a stage no tree reaches ([`ScalarPass::node`]).
    nodes: Vec<Vec<Vec<Vec<Bound>>>>,
    /// The suffix transitions of a node stage per relation ([`Suffix::all_steps`]).
    steps: [Vec<(usize, usize, f64)>; 3],
    /// The suffix states each node stage can reach and their places in `out_nodes`, `[σ][stage]`.
    slots: Vec<Vec<StageSlots>>,
    /// Corner pairs the covering pass tried (counted as the table's transitions).
    pairs: u64,
    /// The bytes of these tables and their budgets, as sized before the pass (counted
    /// against the memory limit while the Pareto passes run beside them).
    bytes: u64,
    /// Budgets of the backward pass ([`ScalarPass::backward`]), `[σ][c]`, `[s][d]` and
    /// `[σ][stage][r · width + slot]` (the stage's reachable suffix states, `slots`); `-∞` where
    /// no tree of least T_min passes. [`Bound`]s, rounded up: written with `raise_to`.
    out_tree: Vec<Vec<Bound>>,
    out_group: Vec<Vec<Vec<Bound>>>,
    out_nodes: Vec<Vec<Vec<Bound>>>,
    /// `live_nodes[σ][stage][r]`: whether any suffix state of that node stage has a budget.
    live_nodes: Vec<Vec<Vec<bool>>>,
    /// How the partial nodes are budgeted: per suffix state (`nodes`, `out_nodes`) or, when
    /// those tables do not fit, by an envelope (`out_envelope`).
    stage_budgets: StageBudgets,
    /// Under [`StageBudgets::Envelope`], `[σ][stage][r]`: (the largest T_min so far, the
    /// largest sum of waits) a partial node there may have, `(-∞, -∞)` where none may be;
    /// stored by pages, only those written ([`paged::Paged`]).
    out_envelope: Vec<Vec<paged::Paged>>,
    /// The bytes of the envelopes' pages written so far, and how many they may take (the
    /// memory left once the pass's other tables are counted); `envelope_full` once a page was
    /// refused, which leaves the budgets incomplete.
    envelope_bytes: u64,
    envelope_allowance: u64,
    envelope_full: bool,
    /// `[σ][stage]`: the least wait of a group on a unit above `stage` the box gives room
    /// (x(σ, u), u > stage; `∞` where there is none), what a partial node's groups above a
    /// stage wait at the least when they are not empty.
    least_wait_above: Vec<Vec<f64>>,
    /// Under [`StageBudgets::Envelope`], `upper[σ][stage][r]`: a lower bound of the T_min so
    /// far of the partial nodes there (`covering::Covered::upper`).
    upper: Vec<Vec<Vec<Bound>>>,
}

/// How the backward pass budgets the Pareto pass's partial nodes, the groups on the units
/// from a stage up of a node on σ (docs/cla.md §11, "Budgets without suffix states").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StageBudgets {
    /// One budget on the T_min so far per reachable suffix state, read from the covering
    /// pass's descending node stages: the tightest, and most of the pass's memory on L3
    /// domains (48 domain-line threads: 744 of 837 entries a count vector). Under max and
    /// blends the only form.
    BySuffix,
    /// Under min, on L3 domains or when those tables do not fit (`stage_budgets_within`):
    /// no node stage is kept from
    /// the covering pass (it runs lowest unit first), and each partial node has two budgets,
    /// on its T_min so far and on the sum of its groups' waits, given by the groups below it
    /// as the backward pass peels them off the node (2·S² entries a count vector), and a lower
    /// bound of the partial nodes above each stage (S², `covering::Covered::upper`) says
    /// whether the groups above a peeled one can fit. Looser than the suffix states on
    /// sockets, smaller and faster on L3 domains (docs/perf.md "Envelopes").
    Envelope,
}

/// States filled between two progress reports.
const PROGRESS_STEP: usize = 1024;

/// The budgets of the Pareto passes after one at the covering bound finds no tree: the bound
/// plus these fractions of its gap to the incumbent's score.
const WIDENING: [f64; 3] = [1.0 / 16.0, 1.0 / 4.0, 1.0];

/// Most points one Pareto table's arena may hold: its ranges are `u32`, and one state adds far
/// fewer than 2³¹ points, so a pass that stops once a table passes 2³¹ never wraps an index
/// (reachable only under a memory limit of ~50 GB or more: 2³¹ points of 24 bytes or more).
const MAX_ARENA_POINTS: usize = 1 << 31;

/// Slack of the budgets (ns): float sums in another order must not prune an optimum.
const SLACK: f64 = 1e-6;

/// How [`ScalarPass::backward`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backward {
    /// Every budget is written.
    Done,
    /// The deadline passed.
    Stopped,
    /// The envelopes' pages would have passed the memory left to them.
    Full,
}

/// Why [`ScalarPass::new`] built no pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NotBuilt {
    /// Its tables would take more than the memory left to it.
    TooLarge,
    /// The deadline passed.
    Stopped,
    /// The covering pass tried more corner pairs than its allowance.
    Exhausted,
}

impl ScalarPass {
    /// Which budgets a pass over `counts` (a request of `objective` cut at `incumbent`, offset
    /// included) keeps within `memory` bytes, preferring one within `work_budget` entries, with
    /// its bytes ([`stage_budgets_within`]); only the `forced` form if given.
    fn plan(
        costs: &LineClasses,
        objective: &Objective,
        counts: &[u32],
        incumbent: f64,
        room: (u64, u64),
        forced: Option<StageBudgets>,
    ) -> Option<(StageBudgets, u64)> {
        let widest = counts.iter().copied().max().unwrap_or(0);
        let incumbent = Some(incumbent).filter(|i| i.is_finite());
        stage_budgets_within(costs, objective, counts, widest, incumbent, room, forced)
            .map(|(form, entries)| (form, form_bytes(form, entries.units, counts)))
    }

    /// The pass for a request rooted on `root` whose whole trees hold `root_total` nodes (the
    /// box of `counts` for a fixed split, every split of the threads for a free one): the
    /// covering pass over the box, cut at `incumbent` (offset included), within `allowance`
    /// corner pairs and the deadline. `Err(NotBuilt::TooLarge)` when the tables would take more
    /// than `memory` bytes in either form of [`StageBudgets`] (the Pareto pass then runs
    /// alone, still exact).
    #[allow(clippy::too_many_arguments)]
    fn new(
        table: &SocketTable,
        objective: &Objective,
        counts: &[u32],
        (root, root_total): (usize, usize),
        incumbent: f64,
        allowance: u64,
        (room, forced): ((u64, u64), Option<StageBudgets>),
        deadline: &Deadline,
    ) -> Result<Self, NotBuilt> {
        let widest = counts.iter().copied().max().unwrap_or(0);
        let prices = covering::Prices::of(objective);
        let Some((stage_budgets, bytes)) =
            Self::plan(&table.costs, objective, counts, incumbent, room, forced)
        else {
            return Err(NotBuilt::TooLarge);
        };
        let stages = match stage_budgets {
            StageBudgets::BySuffix => covering::Stages::Descending,
            StageBudgets::Envelope => covering::Stages::AscendingWithUpper,
        };
        let mut covered = covering::cover(
            &table.costs,
            counts,
            widest,
            root,
            covering::WholeTrees::Exactly(root_total),
            incumbent,
            &prices,
            stages,
            allowance,
            deadline,
        )
        .map_err(|stop| match stop {
            covering::CoverStop::Deadline => NotBuilt::Stopped,
            covering::CoverStop::Work => NotBuilt::Exhausted,
        })?;
        // The backward pass walks the trees and groups below a budget as down-sets
        // (`SocketTable::down_set_within`): sound only while they are envelopes there.
        debug_assert!(
            covered
                .tree
                .iter()
                .enumerate()
                .all(|(s, values)| closed_downwards(table, values, s))
                && covered.group_min.iter().enumerate().all(|(s, kinds)| kinds
                    .iter()
                    .all(|values| closed_downwards(table, values, s))),
            "a covering table is not an envelope where the backward pass walks it"
        );
        let forests = covered.forest_rows();
        Ok(ScalarPass {
            objective: *objective,
            prices,
            tree: covered.tree,
            forests,
            most_trees: covered.most_trees,
            group_min: covered.group_min,
            nodes: covered.nodes,
            steps: table.suffix().all_steps(&table.costs),
            slots: table.suffix().slots(&table.costs, counts),
            pairs: covered.pairs,
            bytes,
            out_tree: Vec::new(),
            out_group: Vec::new(),
            out_nodes: Vec::new(),
            live_nodes: Vec::new(),
            stage_budgets,
            out_envelope: Vec::new(),
            envelope_bytes: 0,
            envelope_allowance: 0,
            envelope_full: false,
            least_wait_above: covering::least_waits_above(&table.costs, counts),
            upper: covered.upper,
        })
    }

    /// The value of a subtree point (T_min, T_max) that the pass's budgets bound: its score.
    fn score(&self, min: f64, max: f64) -> f64 {
        self.objective.of_range(min, max)
    }

    /// The least T_min so far of node stage (σ, stage) in suffix state `state` at r.
    fn node(&self, sigma: usize, stage: usize, state: usize, r: usize) -> f64 {
        self.nodes[sigma][stage][state]
            .get(r)
            .copied()
            .map_or(f64::INFINITY, f64::from)
    }

    /// The outside pass: from the root's budget `budget` (T_min without the offset) down, the
    /// largest T_min every entry may have and still be part of a tree whose T_min is at most
    /// `budget` (an over-estimate is sound: it only prunes less). Each forward transition is
    /// walked backwards from an entry with a budget O; where the other operand's least value
    /// fits O, the operand inherits O (less the terms the transition adds). By induction from
    /// the root, every part of every tree of T_min at most `budget` is within its entry's
    /// budget: its true value is at most O and the forward table's value of the other operand
    /// is at most its true value (the covering pass gives lower bounds, which is all this
    /// needs). Envelopes' pages (under [`StageBudgets::Envelope`]) take at most `allowance`
    /// bytes. Not [`Backward::Done`] when the deadline passed first (checked after every state)
    /// or a page was refused: the budgets are then incomplete and must not be used.
    fn backward(
        &mut self,
        t: &SocketTable,
        (root, seeds): (usize, &[usize]),
        budget: f64,
        allowance: u64,
        deadline: &Deadline,
    ) -> Backward {
        let s_count = t.radix.len();
        let states = t.ranges_len();
        let c = t.costs;
        self.out_tree = vec![vec![Bound::NEG_INFINITY; states]; s_count];
        let kinds = self.prices.group_kinds();
        self.out_group = vec![vec![vec![Bound::NEG_INFINITY; states]; kinds]; s_count];
        match self.stage_budgets {
            StageBudgets::BySuffix => {
                self.out_nodes = Vec::with_capacity(s_count);
                for sigma in 0..s_count {
                    // Most of the pass's memory: not to be filled past the deadline.
                    if deadline_passed(deadline) {
                        return Backward::Stopped;
                    }
                    let tables = self.slots[sigma]
                        .iter()
                        .map(|slots| vec![Bound::NEG_INFINITY; states * slots.width()])
                        .collect();
                    self.out_nodes.push(tables);
                }
                self.live_nodes = vec![vec![vec![false; states]; s_count]; s_count];
            }
            StageBudgets::Envelope => {
                // The stages of a unit the box leaves empty hold no node: no table.
                let none = (Bound::NEG_INFINITY, Bound::NEG_INFINITY);
                self.out_envelope = (0..s_count)
                    .map(|sigma| {
                        let len = if t.radix[sigma] > 1 { states } else { 0 };
                        (0..s_count).map(|_| paged::Paged::new(len, none)).collect()
                    })
                    .collect();
                self.envelope_bytes = 0;
                self.envelope_allowance = allowance;
                self.envelope_full = false;
            }
        }
        for &idx in seeds {
            if let Some(slot) = self.out_tree[root].get_mut(idx) {
                raise_to(slot, budget);
            }
        }
        let mut subs = Vec::new();
        // Descending index order: every state that contains x (a parent's share, a forest
        // holding it) has a larger index, so x's budgets are final when it is reached; within
        // x, node stages (ascending: a stage feeds the next), then groups, then subtrees.
        for at in (0..states).rev() {
            let (r, d, cv) = (at, at, at);
            if deadline_passed(deadline) {
                return Backward::Stopped;
            }
            if self.envelope_full {
                return Backward::Full;
            }
            // Node stages, ascending (a stage feeds the next one and smaller r).
            match self.stage_budgets {
                StageBudgets::BySuffix => self.stages_by_suffix(t, r, &mut subs),
                StageBudgets::Envelope => self.stages_by_envelope(t, r, &mut subs),
            }
            // Groups: a forest of k trees within budget B has M + (k − 1)·slope ≤ B (R_R under
            // min; under max 4·x of the parent's relation, one table per relation).
            for kind in 0..kinds {
                let rr = self
                    .prices
                    .slope_to(&c, covering::Prices::kind_relation(kind));
                for s in 0..s_count {
                    let b = f64::from(self.out_group[s][kind][d]);
                    if b == f64::NEG_INFINITY {
                        continue;
                    }
                    if f64::from(self.tree[s][d]) <= b + SLACK {
                        raise_to(&mut self.out_tree[s][d], b);
                    }
                    // The trees that fit with one more: a threshold on an envelope (a group
                    // holds no whole tree), walked as such (`down_set_within`).
                    let trees = &self.tree[s];
                    t.down_set_within(d, s, |e| f64::from(trees[e]) + rr <= b + SLACK, &mut subs);
                    for &e in &subs {
                        if e == d {
                            continue;
                        }
                        let te = f64::from(self.tree[s][e]);
                        // The fewest trees k' of a rest forest that fits with this tree (past
                        // te + k'·R_R > B no more trees can).
                        let kk = self.most_trees;
                        let rest = d - e;
                        let row = &self.forests[s][rest * kk..rest * kk + kk];
                        let fewest = (1..kk)
                            .take_while(|&k| te + k as f64 * rr <= b + SLACK)
                            .find(|&k| f64::from(row[k - 1]) + k as f64 * rr <= b + SLACK)
                            .map(|k| k as f64);
                        if let Some(k) = fewest {
                            raise_to(&mut self.out_tree[s][e], b - k * rr);
                            raise_to(&mut self.out_group[s][kind][d - e], b - rr);
                        }
                    }
                }
            }
            // Subtrees: the node table of their root.
            for sigma in 0..s_count {
                let o = f64::from(self.out_tree[sigma][cv]);
                if o == f64::NEG_INFINITY || t.component(cv, sigma) == 0 {
                    continue;
                }
                let r = cv - t.stride[sigma];
                if r == 0 {
                    continue;
                }
                match self.stage_budgets {
                    StageBudgets::BySuffix => {
                        let first = &self.slots[sigma][0];
                        for (i, &st) in first.states.iter().enumerate() {
                            if st != 0 && self.node(sigma, 0, st, r) <= o + SLACK {
                                let slot = &mut self.out_nodes[sigma][0][r * first.width() + i];
                                raise_to(slot, o);
                                self.live_nodes[sigma][0][r] = true;
                            }
                        }
                    }
                    // The whole node: no group below it waits after its groups.
                    StageBudgets::Envelope => {
                        if f64::from(self.upper[sigma][0][r]) <= o + SLACK {
                            self.raise_envelope(sigma, 0, r, o, f64::INFINITY);
                        }
                    }
                }
            }
        }
        if self.envelope_full {
            return Backward::Full;
        }
        Backward::Done
    }

    /// The bytes the budgets took while the backward pass ran, beyond those sized before the
    /// pass (`bytes`): the envelopes' pages.
    fn grown_bytes(&self) -> u64 {
        self.envelope_bytes
    }

    /// The backward pass's node stages at r under [`StageBudgets::BySuffix`]: each budget of
    /// a stage in a suffix state passes to the stage above (no group on this stage's unit) and,
    /// through every group whose least value fits with the least value of the stage above in
    /// the state before it, to that group and that state.
    fn stages_by_suffix(&mut self, t: &SocketTable, r: usize, subs: &mut Vec<usize>) {
        let s_count = t.radix.len();
        let c = t.costs;
        let suffix = t.suffix();
        for sigma in 0..s_count {
            for stage in 0..s_count {
                let last = stage + 1 == s_count;
                if !self.live_nodes[sigma][stage][r] {
                    continue;
                }
                let width = self.slots[sigma][stage].width();
                let base = r * width;
                if !last {
                    let (here, above) = (&self.slots[sigma][stage], &self.slots[sigma][stage + 1]);
                    let above_base = r * above.width();
                    for (i, &st) in here.states.iter().enumerate() {
                        let o = f64::from(self.out_nodes[sigma][stage][base + i]);
                        let Some(j) = above.of(st) else { continue };
                        if self.node(sigma, stage + 1, st, r) <= o + SLACK {
                            let slot = &mut self.out_nodes[sigma][stage + 1][above_base + j];
                            raise_to(slot, o);
                            self.live_nodes[sigma][stage + 1][r] = true;
                        }
                    }
                }
                let relation = relation_index(c.relation(sigma as u32, stage as u32));
                // (A few dozen entries: copied so that the budgets can be written.)
                let steps = self.steps[relation].clone();
                let kind = self.prices.group_kind(relation);
                // A group fits some suffix state's budget with its least value, or no state's:
                // a threshold on an envelope, walked as such (`down_set_within`).
                let room: Vec<(f64, f64)> = steps
                    .iter()
                    .filter_map(|&(st, prev_state, waits)| {
                        let i = self.slots[sigma][stage].of(st)?;
                        let o = f64::from(self.out_nodes[sigma][stage][base + i]);
                        let (fixed, _) = self.prices.stage_shifts(
                            &c,
                            sigma as u32,
                            stage as u32,
                            waits,
                            suffix.decode(prev_state),
                        );
                        (o != f64::NEG_INFINITY).then_some((fixed, o))
                    })
                    .collect();
                // The test below, as written there (the same rounding).
                let gm = &self.group_min[stage][kind];
                let fits = |d: usize| {
                    room.iter()
                        .any(|&(fixed, o)| fixed + f64::from(gm[d]) <= o + SLACK)
                };
                t.stage_groups(r, stage, last, fits, subs);
                for &d in subs.iter() {
                    let rest = r - d;
                    for &(st, prev_state, waits) in &steps {
                        let Some(i) = self.slots[sigma][stage].of(st) else {
                            continue;
                        };
                        let o = f64::from(self.out_nodes[sigma][stage][base + i]);
                        if o == f64::NEG_INFINITY {
                            continue;
                        }
                        let prev = if last {
                            if prev_state == 0 {
                                f64::NEG_INFINITY
                            } else {
                                f64::INFINITY
                            }
                        } else {
                            self.node(sigma, stage + 1, prev_state, rest)
                        };
                        // The group's terms, and what it adds to the stage above (T_max's
                        // share of A, `covering::Prices`; none under min).
                        let (fixed, raise) = self.prices.stage_shifts(
                            &c,
                            sigma as u32,
                            stage as u32,
                            waits,
                            suffix.decode(prev_state),
                        );
                        let g = fixed + f64::from(self.group_min[stage][kind][d]);
                        if prev + raise > o + SLACK || g > o + SLACK {
                            continue;
                        }
                        if !last {
                            // A finite value at `prev_state` means a tree reaches it.
                            let above = &self.slots[sigma][stage + 1];
                            if let Some(j) = above.of(prev_state) {
                                let slot =
                                    &mut self.out_nodes[sigma][stage + 1][rest * above.width() + j];
                                raise_to(slot, o - raise);
                                self.live_nodes[sigma][stage + 1][rest] = true;
                            }
                        }
                        let slot = &mut self.out_group[stage][kind][d];
                        raise_to(slot, o - fixed);
                    }
                }
            }
        }
    }

    /// The backward pass's node stages at r under [`StageBudgets::Envelope`]. A partial node
    /// P_s (groups on units ≥ s, covering r) of a node within budget O is completed by the
    /// groups L below s, which wait after all of P_s's: the node's T_min is
    /// max(V(P_s), V(L) + W(P_s)), V(L) the ascending value of L (`covering::Stages`) and W
    /// the sum of P_s's waits. So P_s may have T_min so far up to O and waits up to
    /// O − V(L), its envelope (O, slack). Peeling P_s's group on unit s (value M, term
    /// 2·R_I + R_L + 2·x_s + M below the waits above it, x_s its wait) moves it into L:
    /// V(L ∪ s) = max(V(L) + x_s, term), so P_{s+1} gets (O, min(slack − x_s, O − term)),
    /// the group the budget O − 2·R_I − R_L − 2·x_s − W(P_{s+1}), and a group fits only
    /// where term + W(P_{s+1}) ≤ O and x_s + W(P_{s+1}) ≤ slack. M and W(P_{s+1}) are taken
    /// at their least (the covering pass's group value, and 0 or the least wait of a unit
    /// above with room), which only widens what passes: every part of every tree within O
    /// is within its budgets.
    fn stages_by_envelope(&mut self, t: &SocketTable, r: usize, subs: &mut Vec<usize>) {
        let s_count = t.radix.len();
        let c = t.costs;
        for sigma in 0..s_count {
            if self.out_envelope[sigma].iter().all(paged::Paged::is_empty) {
                continue;
            }
            for stage in 0..s_count {
                let Some((o, slack)) = self.out_envelope[sigma][stage].get(r) else {
                    continue;
                };
                if o == Bound::NEG_INFINITY {
                    continue;
                }
                let (o, slack) = (f64::from(o), f64::from(slack));
                let last = stage + 1 == s_count;
                // Whether a partial node above this stage can cover `rest` within o.
                let fits_above = |pass: &Self, rest: usize| {
                    f64::from(pass.upper[sigma][stage + 1][rest]) <= o + SLACK
                };
                if !last && fits_above(self, r) {
                    // No group on this stage's unit.
                    self.raise_envelope(sigma, stage + 1, r, o, slack);
                }
                let x = c.transfer(sigma as u32, stage as u32);
                if x > slack + SLACK {
                    continue;
                }
                let fixed = self
                    .prices
                    .stage_shifts(&c, sigma as u32, stage as u32, 0.0, (0, 0, 0))
                    .0;
                // The groups whose term fits the budget: a threshold on an envelope, so the
                // walk visits only those (`down_set_within`), not every sub-vector of r.
                let gm = &self.group_min[stage][0];
                let fits = |d: usize| fixed + f64::from(gm[d]) <= o + SLACK;
                t.stage_groups(r, stage, last, fits, subs);
                for &d in subs.iter() {
                    let rest = r - d;
                    let waits = if rest == 0 {
                        0.0
                    } else {
                        self.least_wait_above[sigma][stage]
                    };
                    let term = fixed + f64::from(self.group_min[stage][0][d]);
                    if term + waits > o + SLACK
                        || x + waits > slack + SLACK
                        || (!last && !fits_above(self, rest))
                    {
                        continue;
                    }
                    raise_to(&mut self.out_group[stage][0][d], o - fixed - waits);
                    if !last {
                        self.raise_envelope(sigma, stage + 1, rest, o, (slack - x).min(o - term));
                    }
                }
            }
        }
    }

    /// Widen the envelope of (σ, stage, r) to hold (o, slack); when its page would pass the
    /// allowance, mark the budgets incomplete (`envelope_full`) instead.
    fn raise_envelope(&mut self, sigma: usize, stage: usize, r: usize, o: f64, slack: f64) {
        let table = &mut self.out_envelope[sigma][stage];
        match table.entry(r, &mut self.envelope_bytes, self.envelope_allowance) {
            Ok(Some((budget, waits))) => {
                raise_to(budget, o);
                raise_to(waits, slack);
            }
            Ok(None) => {}
            Err(paged::Full) => self.envelope_full = true,
        }
    }
}

/// Whether `values` (a covering table of unit `unit`) is non-decreasing over the count vectors
/// of the box that hold a node on `unit` and are proper subtrees ([`SocketTable::proper`]):
/// where [`SocketTable::down_set_within`] walks a threshold on it. The covering pass's tables
/// are envelopes (the least value over the trees holding *at least* a count vector), cut to
/// `∞` at one threshold on proper subtrees and where the unit holds no node (docs/cla.md §11);
/// checked in debug builds after every pass.
fn closed_downwards(t: &SocketTable, values: &[Bound], unit: usize) -> bool {
    let s_count = t.radix.len();
    (0..values.len().min(t.ranges_len()))
        .filter(|&idx| t.component(idx, unit) > 0 && t.proper(idx))
        .all(|idx| {
            (0..s_count).all(|u| {
                let up = idx + t.stride[u];
                t.component(idx, u) + 1 >= t.radix[u]
                    || !t.proper(up)
                    || values.get(up).is_none_or(|&v| values[idx] <= v)
            })
        })
}

/// A lower bound of the value under `objective` of a forest whose trees' latest T_min is
/// `mmin` and latest T_max `mmax` (what a [`ScalarPass`]'s group budgets bound): the latest
/// score of its trees. Exact under min and max; under a blend the two maxima may come from
/// different trees, and each tree's blend is at least its T_min (T_max ≥ T_min) and at least w
/// times its T_max, so the latest blend is at least max(mmin, w·mmax).
fn forest_score(objective: &Objective, mmin: f64, mmax: f64) -> f64 {
    match *objective {
        Objective::Blend(w) => mmin.max(w * mmax),
        _ => objective.of_range(mmin, mmax),
    }
}

/// Raise a budget to at least `v` (stored rounded up: a budget may be over what it stands
/// for, never under).
fn raise_to(slot: &mut Bound, v: f64) {
    *slot = slot.max(covering::above(v));
}

fn deadline_passed(d: &Deadline) -> bool {
    d.passed()
}

/// A certified lower bound on T_min over every tree of `n` nodes and every placement on
/// `sockets` sockets (offset included). Every transfer costs at least R_R and every fetch at
/// least R_I (the loader checks R_Q ≥ R_R, R_QI ≥ R_I), so a node with k children and slowest
/// child subtree M costs at least c₀ + M with c₀ = 2 R_I + 2 R_R + R_L (the slowest child's group
/// and its wait), and at least c₀ + (⌈k/S⌉ − 1)·R_R (the largest group, of at least ⌈k/S⌉
/// children). The slowest child holds at least ⌈(n−1)/k⌉ nodes, so
/// `lb(n) = min_k c₀ + max(min_{m ∈ [⌈(n−1)/k⌉, n−1]} lb(m), (⌈k/S⌉ − 1)·R_R)`.
///
/// lb is non-decreasing (by induction: each k's term for n + 1 is at least its term for n, since
/// ⌈n/k⌉ ≥ ⌈(n−1)/k⌉), so the inner minimum is lb(⌈(n−1)/k⌉); that term does not increase with k
/// and (⌈k/S⌉ − 1)·R_R does not decrease, so the minimum over k lies where they cross, found by
/// bisection. O(n log n): a million threads take milliseconds.
pub fn lower_bound(costs: &LineClasses, n: u32, sockets: u32) -> f64 {
    let n = n as usize;
    if n < 2 {
        return costs.offset();
    }
    let s = sockets.max(1) as usize;
    let c0 = 2.0 * costs.memory + 2.0 * costs.socket + costs.local;
    let mut lb = vec![0.0f64; n + 1];
    for m in 2..=n {
        let slowest = |k: usize| lb[(m - 1).div_ceil(k)];
        let group = |k: usize| (k.div_ceil(s) - 1) as f64 * costs.socket;
        // Where group(k) catches up with slowest(k), k in [1, m − 1].
        lb[m] = c0 + modelopt_model::level_bound::least_dearer(1, m - 1, group, slowest);
    }
    costs.offset() + lb[n]
}

/// A second certified lower bound, from the socket-line form's least costs level by level
/// ([`modelopt_model::level_bound`], docs/cla.md §12 "Lower bounds", whose relaxation is the
/// same): a node's S3 (R_I), each child's S1 and S2 (class + R_L), each socket group's first
/// add from memory (R_I), further adds (R_R) and the wait (class), every class at its least
/// (R_R), except that a node with two groups or more has one across sockets (its child's S1 and
/// the wait at R_Q), and that when `counts` (a split, or a box of capacities) cannot hold the
/// `n` nodes on one socket, the path to a node on another socket crosses once. Height-indexed,
/// so unlike [`lower_bound`] it sees that deep trees pay per level; O(n²) per height, `None`
/// above [`modelopt_model::level_bound::MAX_NODES`] nodes.
pub fn lower_bound_by_height(costs: &LineClasses, n: u32, counts: &[u32]) -> Option<f64> {
    use modelopt_model::level_bound::{Crossing, LevelBound};
    let sockets = counts.iter().filter(|&&c| c > 0).count();
    let spans = counts.iter().all(|&c| c < n);
    // Across units: R_Q between sockets, R_D between the L3 domains of one socket.
    let read_across = costs.cheapest_across();
    let terms = LevelBound {
        pre: costs.memory,
        edge: costs.socket + costs.local,
        offset: costs.offset(),
        crossing: spans.then_some(Crossing {
            edge: read_across + costs.local,
            read: read_across,
            release: 0.0,
        }),
        other_socket: (sockets > 1)
            .then_some(read_across + costs.local + costs.memory + read_across),
        ..LevelBound::lines(costs.memory, costs.socket, costs.socket, n)
    };
    terms.lower_bound(n, u32::try_from(sockets).unwrap_or(u32::MAX))
}

/// What [`optimal`] found.
#[derive(Debug, Clone)]
pub struct DpOutcome {
    /// The best placed tree, when the table was filled completely.
    pub best: Option<PlacedTree>,
    /// Whether the table was filled completely, or why it stopped.
    pub filled: Filled,
    /// Transitions (and covering-pass corner pairs) visited.
    pub transitions: u64,
    /// Once the covering pass completed, a certified lower bound on the objective's score of
    /// every tree of the request, offset included: the covering value (T_min under min, the
    /// relaxation under max and blends), raised to the budget of every Pareto pass that
    /// completed without a tree, and under max to the optimum's T_max once a pass by T_max
    /// alone found it ([`Filled::TiesOpen`]). A stopped search answers with it instead of
    /// computing a bound again.
    pub lower_bound: Option<f64>,
}

/// The best placed tree for one request, with the table's filled state, the transitions
/// visited and, under min, the covering bound. `incumbent`, the score of any tree of the
/// request (e.g. the flat tree), makes the DP keep only points that can reach it ([`Prune`]);
/// it never changes the answer.
pub fn optimal(
    costs: &LineClasses,
    counts: &[u32],
    root: u32,
    objective: &Objective,
    incumbent: Option<f64>,
    limits: &Limits,
    progress: &Progress,
) -> Result<DpOutcome, SocketDpError> {
    optimal_in(
        costs, counts, root, objective, incumbent, None, limits, progress,
    )
}

/// [`optimal`] under [`Objective::Min`] with the partial nodes budgeted by envelopes whatever
/// the memory (docs/cla.md §11, "Budgets without suffix states"), the form [`optimal`] takes
/// only when the suffix states' tables do not fit: for tests that hold both forms to the
/// same optima on small requests. Other objectives run as [`optimal`] does.
#[doc(hidden)]
pub fn optimal_by_envelopes(
    costs: &LineClasses,
    counts: &[u32],
    root: u32,
    incumbent: Option<f64>,
    limits: &Limits,
    progress: &Progress,
) -> Result<DpOutcome, SocketDpError> {
    let forced = Some(StageBudgets::Envelope);
    let min = Objective::Min;
    optimal_in(
        costs, counts, root, &min, incumbent, forced, limits, progress,
    )
}

#[allow(clippy::too_many_arguments)]
fn optimal_in(
    costs: &LineClasses,
    counts: &[u32],
    root: u32,
    objective: &Objective,
    incumbent: Option<f64>,
    forced: Option<StageBudgets>,
    limits: &Limits,
    progress: &Progress,
) -> Result<DpOutcome, SocketDpError> {
    if counts.get(root as usize).is_none_or(|&c| c == 0) {
        return Err(SocketDpError::Root {
            root,
            counts: counts.to_vec(),
        });
    }
    // The covering pass runs even without an incumbent (its bound starts the budgets).
    let prune = Some(Prune {
        objective: *objective,
        incumbent: incumbent.unwrap_or(f64::INFINITY),
    });
    let (table, filled) = SocketTable::build_for(
        costs,
        counts,
        prune,
        Some(root),
        None,
        forced,
        limits,
        progress,
    )?;
    let best = match filled {
        Filled::Complete | Filled::TiesOpen(_) => table.best(root, counts, objective),
        Filled::Stopped(_) => None,
    };
    Ok(DpOutcome {
        best,
        filled,
        transitions: table.transitions,
        lower_bound: table.lower_bound,
    })
}

/// The covering pass alone ([`covering`]) over the box `counts` with the root on `root` and
/// whole trees where `root_total` says, cut at `incumbent` (offset included), its groups holding
/// at most `widest` trees (the widest unit of the request: of `counts` itself, or more when the
/// box is a clip of the request), after the checks its callers need: `Ok(None)` when the
/// deadline passed first, a budget refusal when its tables are over the work budget
/// ([`covering_estimate`]; only with [`Admission::BySize`]), a memory refusal when they are
/// over the memory limit, or when its corner pairs passed [`BOUND_PAIRS_PER_BUDGET_UNIT`] ×
/// the budget.
#[allow(clippy::too_many_arguments)]
fn covered(
    costs: &LineClasses,
    objective: &Objective,
    counts: &[u32],
    widest: u32,
    root: u32,
    root_total: covering::WholeTrees,
    incumbent: f64,
    limits: &Limits,
    progress: &Progress,
    admission: Admission,
) -> Result<Option<(SocketTable, covering::Covered)>, SocketDpError> {
    if counts.is_empty() || counts.len() > MAX_SOCKETS || counts.iter().all(|&c| c == 0) {
        return Err(SocketDpError::Counts {
            counts: counts.to_vec(),
        });
    }
    if counts.get(root as usize).is_none_or(|&c| c == 0) {
        return Err(SocketDpError::Root {
            root,
            counts: counts.to_vec(),
        });
    }
    let widest = widest.max(counts.iter().copied().max().unwrap_or(0));
    let incumbent_given = Some(incumbent).filter(|i| i.is_finite());
    if admission == Admission::BySize {
        limits.check(&bound_estimate_within(
            costs,
            objective,
            counts,
            widest,
            incumbent_given,
        ))?;
    }
    limits.check_memory(
        "the covering pass's tables over these counts",
        bound_memory_within(costs, objective, counts, widest, incumbent_given),
    )?;
    let table = SocketTable::without_index(costs, counts);
    let prices = covering::Prices::of(objective);
    let deadline = limits.deadline();
    if deadline_passed(&deadline) {
        return Ok(None);
    }
    let allowance = limits
        .work_budget
        .saturating_mul(BOUND_PAIRS_PER_BUDGET_UNIT);
    let what = match objective {
        Objective::Min => "covering pass (least T_min of every count vector)".to_string(),
        _ => format!("covering pass (least relaxed {objective} score of every count vector)"),
    };
    progress.begin(&what, None);
    let ran = covering::cover(
        costs,
        counts,
        widest,
        root as usize,
        root_total,
        incumbent,
        &prices,
        covering::Stages::Ascending,
        allowance,
        &deadline,
    );
    progress.finish();
    match ran {
        Ok(covered) => Ok(Some((table, covered))),
        Err(covering::CoverStop::Deadline) => Ok(None),
        Err(covering::CoverStop::Work) => {
            Err(SocketDpError::Budget(crate::limits::BudgetExceeded {
                what: "covering-pass corner pairs".into(),
                estimate: allowance.saturating_add(1),
                budget: allowance,
            }))
        }
    }
}

/// A lower bound (offset included) on `objective`'s score (T_min under min; under max and
/// blends the relaxation of `covering::Prices`) of every tree of exactly `total` nodes with at
/// most `counts[s]` on each socket s and the root on `root`: the least covering value (the
/// covering pass, docs/cla.md §11) over the count vectors of the box that hold `total` nodes and
/// the root's socket. The exact least T_min over those trees is at least this, and equal to it
/// wherever adding nodes never lowers the least T_min. `Ok(None)` when the deadline passed
/// first; refused over the work budget or the memory cap as [`covering_bound`] is.
///
/// A bound for a larger request too: removing a leaf (never the root) from a tree within the
/// box never makes it costlier (the argument of `rooted_trees`' truncated bound), so every tree
/// of more nodes within the box costs at least this.
///
/// `incumbent` (offset included) cuts the pass, which is then faster: the score of any tree of
/// `total` or more nodes within the box (e.g. a stopgap tree of a larger request) is at least
/// the value sought, so the cut never drops it; with an incumbent below it the answer is
/// `Ok(None)`.
#[allow(clippy::too_many_arguments)]
pub fn least_score_of_total(
    costs: &LineClasses,
    objective: &Objective,
    counts: &[u32],
    total: u32,
    root: u32,
    incumbent: Option<f64>,
    limits: &Limits,
    progress: &Progress,
) -> Result<Option<f64>, SocketDpError> {
    let incumbent = incumbent.unwrap_or(f64::INFINITY);
    let Some((table, covered)) = covered(
        costs,
        objective,
        counts,
        0,
        root,
        covering::WholeTrees::Exactly(total as usize),
        incumbent,
        limits,
        progress,
        Admission::BySize,
    )?
    else {
        return Ok(None);
    };
    Ok(least_at_total(&table, &covered, root, total).map(|t| t + costs.offset()))
}

/// The least covering value of the trees rooted on `root` over the count vectors of the table
/// that hold `total` nodes and a node on the root's unit (without the offset); `None` where
/// none is finite.
fn least_at_total(
    table: &SocketTable,
    covered: &covering::Covered,
    root: u32,
    total: u32,
) -> Option<f64> {
    let r = root as usize;
    let s_count = table.radix.len();
    let least = (0..table.ranges_len())
        .filter(|&c| {
            let v = &table.comps[c * s_count..c * s_count + s_count];
            v.iter().sum::<u32>() == total && v[r] > 0
        })
        .filter_map(|c| covered.tree.get(r).and_then(|t| t.get(c)).copied())
        .map(f64::from)
        .fold(f64::INFINITY, f64::min);
    least.is_finite().then_some(least)
}

/// Refuse a box `within` that is not a clip of `counts`: as many units, each at most its
/// count, and empty exactly where `counts` is (a pass whose box leaves a used unit empty
/// could not place a node there).
fn check_clip(within: &[u32], counts: &[u32]) -> Result<(), SocketDpError> {
    let clips = within.len() == counts.len()
        && within
            .iter()
            .zip(counts)
            .all(|(&w, &c)| w <= c && (w > 0) == (c > 0));
    if clips {
        Ok(())
    } else {
        Err(SocketDpError::Counts {
            counts: within.to_vec(),
        })
    }
}

/// The covering pass ([`covered`]) over `within`, a clip of the box of capacities `capacity`
/// (checked: [`check_clip`]), its groups as wide as the widest capacity, whole trees where
/// `whole` says, cut at `incumbent`, under `(limits, progress)`.
#[allow(clippy::too_many_arguments)]
fn covered_clip(
    costs: &LineClasses,
    objective: &Objective,
    capacity: &[u32],
    within: &[u32],
    root: u32,
    whole: covering::WholeTrees,
    incumbent: Option<f64>,
    (limits, progress, admission): (&Limits, &Progress, Admission),
) -> Result<Option<(SocketTable, covering::Covered)>, SocketDpError> {
    check_clip(within, capacity)?;
    let widest = capacity.iter().copied().max().unwrap_or(0);
    let incumbent = incumbent.unwrap_or(f64::INFINITY);
    covered(
        costs, objective, within, widest, root, whole, incumbent, limits, progress, admission,
    )
}

/// How a covering pass that only bounds is admitted against the work budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Refused up front when its tables ([`bound_estimate_within`]) are over the budget: the
    /// size of a pass that prunes nothing.
    BySize,
    /// Run whatever the tables' size (the memory limit still refuses it up front) and stopped
    /// once its corner pairs pass [`BOUND_PAIRS_PER_BUDGET_UNIT`] × the budget: a pass cut at a
    /// close incumbent tries a small share of its tables (clips of 5 a unit over eight L3
    /// domains at 33 threads: 3.5 · 10⁵ units of work against 2.3 · 10⁸ table entries), and a
    /// caller that gives it a share of its budget and counts the whole share when it is
    /// refused stays within the budget.
    ByWork,
}

/// A lower bound (offset included) on `objective`'s score (as [`least_score_of_total`]) of
/// every tree of every split of a free request
/// within the box of capacities `capacity` (the root on `root`) whose clip to `within` (every
/// unit cut to at most `within[s]`, as `within ≤ capacity`) holds at least `total` nodes: the
/// least covering value over the count vectors of `within` that hold `total` nodes and the
/// root's unit. Such a tree covers its clip, whose covering value is at least that of every
/// vector below it (covering values are non-decreasing), and a vector of `total` nodes with the
/// root's unit lies below every such clip; the pass lets a group hold as many trees as the
/// widest capacity, and puts the root's caps at every count vector of `total` nodes or more
/// (where those clips stand). The caller finds a `total` that every split's clip reaches
/// (`rooted_trees`' truncated bound). `Ok(None)` and refusals as for
/// [`clipped_covering_bound`].
#[allow(clippy::too_many_arguments)]
pub fn least_score_of_clipped_splits(
    costs: &LineClasses,
    objective: &Objective,
    capacity: &[u32],
    within: &[u32],
    total: u32,
    root: u32,
    incumbent: Option<f64>,
    limits: &Limits,
    progress: &Progress,
) -> Result<Option<ClippedBound>, SocketDpError> {
    let whole = covering::WholeTrees::AtLeast(total as usize);
    let passes = (limits, progress, Admission::BySize);
    let Some((table, covered)) = covered_clip(
        costs, objective, capacity, within, root, whole, incumbent, passes,
    )?
    else {
        return Ok(None);
    };
    Ok(Some(ClippedBound {
        bound: least_at_total(&table, &covered, root, total).map(|t| t + costs.offset()),
        pairs: covered.pairs,
    }))
}

/// The splits the DP's costs cannot tell apart, and one of each kind (docs/cla.md §13, "Splits
/// in order"). The recurrence sees a unit only through its relation to other units (the same
/// unit, another of the same socket, another socket: [`LineClasses::relation`]) and through
/// its place in the ascending order in which a parent waits for its children's groups. So
/// moving all threads of a unit to an empty unit next to it in the order (no unit holding
/// threads between them) that relates to every other unit as it does, has the same capacity
/// and is not the root's, changes no tree's cost: such units form *runs* (the domains of a
/// socket before the root's, those after it, or all of another socket's; with one unit per
/// socket, the sockets before the root's and those after it), and the splits that keep their
/// threads at the front of each run stand for all others. The one kept is the first of its
/// kind in descending lexicographic order, the order of the answer's tie rule, so an optimum
/// among the kept splits is the answer among all of them, ties included. (Exchanging two units
/// that both hold threads is no such move: their waits change order, and a split's optimum
/// differs from its mirror's, e.g. 2 + 2 + 1 and 2 + 1 + 2 threads over the root's domain and
/// the next two of `chiplet-2s-4x8-domain-lines`.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitsInOrder {
    /// `joined[u]`: unit u is in the run of unit u − 1.
    joined: Vec<bool>,
}

impl SplitsInOrder {
    /// The runs of units with the given capacities and the root on unit `root`.
    pub fn new(costs: &LineClasses, capacity: &[u32], root: u32) -> Self {
        let units = capacity.len() as u32;
        let twins = |a: u32, b: u32| {
            costs.relation(a, b) == costs.relation(b, a)
                && (0..units).filter(|&x| x != a && x != b).all(|x| {
                    costs.relation(a, x) == costs.relation(b, x)
                        && costs.relation(x, a) == costs.relation(x, b)
                })
        };
        let joined = (0..units)
            .map(|u| {
                u > 0
                    && u != root
                    && u - 1 != root
                    && capacity[u as usize] == capacity[u as usize - 1]
                    && twins(u - 1, u)
            })
            .collect();
        SplitsInOrder { joined }
    }

    /// Whether `split` is the one kept of its kind: in every run, no unit holding threads
    /// follows an empty one.
    pub fn keeps(&self, split: &[u32]) -> bool {
        split
            .windows(2)
            .zip(self.joined.iter().skip(1))
            .all(|(pair, &joined)| !joined || pair[0] > 0 || pair[1] == 0)
    }
}

/// A lower bound on the score of every split of a free request (`--placement optimal`), read
/// from **one** covering pass over a clip of the box of capacities (docs/cla.md §13, "Free
/// splits by their bounds"). The pass lets every count vector of the clip `within` be a whole
/// tree (the root's caps at every one), so its value at w is at most the least score (T_min
/// under min; under max and blends the relaxation of `covering::Prices`) of the trees that
/// hold at least w, what they hold on each unit cut to the clip (sums of corners are clipped to
/// the box, and a group may hold as many trees as the widest capacity). A tree of the split v
/// holds v ≥ min(v, within), so it is one of those at min(v, within), and the value there
/// bounds every tree of v: the argument of a fixed split's clip
/// ([`clipped_covering_bound`]). (Removing the tree's nodes beyond the clip would not do: one
/// may be an inner node, the middle of a chain.) One pass, a lookup per split:
/// on the eight L3 domains of `chiplet-2s-4x8-domain-lines` a clip of 4 a domain (5⁸ vectors,
/// 0.1 s) leaves 58 of the 155,100 splits of 16 threads within the stopgap tree's 810.36 ns.
pub struct SplitBounds {
    /// The clip.
    within: Vec<u32>,
    /// Mixed-radix strides of the clip's count vectors.
    stride: Vec<usize>,
    /// The covering values of whole trees on the root's unit, by count vector of the clip.
    tree: Vec<Bound>,
    /// The broadcast's offset (R_L), added to every bound.
    offset: f64,
    /// Corner pairs the pass tried (its work; [`BOUND_PAIRS_PER_BUDGET_UNIT`] a budget unit).
    pairs: u64,
}

impl SplitBounds {
    /// The covering pass over `within`, a clip of `capacity` ([`clipped_covering_bound`]'s
    /// rule: as many units, each at most its capacity, empty exactly where the capacity is),
    /// with the root on `root`. `incumbent` (offset included) cuts the pass: a split whose
    /// trees all score above it reads `∞`. `Ok(None)` when the deadline passed first;
    /// refused over the work budget (by its tables' size or by its work, as `admission` says)
    /// or the memory limit as [`clipped_covering_bound`] is.
    #[allow(clippy::too_many_arguments)]
    pub fn over(
        costs: &LineClasses,
        objective: &Objective,
        capacity: &[u32],
        within: &[u32],
        root: u32,
        incumbent: Option<f64>,
        limits: &Limits,
        progress: &Progress,
        admission: Admission,
    ) -> Result<Option<Self>, SocketDpError> {
        let whole = covering::WholeTrees::AtLeast(1);
        let passes = (limits, progress, admission);
        let Some((table, mut covered)) = covered_clip(
            costs, objective, capacity, within, root, whole, incumbent, passes,
        )?
        else {
            return Ok(None);
        };
        let tree = covered
            .tree
            .get_mut(root as usize)
            .map(std::mem::take)
            .unwrap_or_default();
        Ok(Some(SplitBounds {
            within: within.to_vec(),
            stride: table.stride,
            tree,
            offset: costs.offset(),
            pairs: covered.pairs,
        }))
    }

    /// The work of the pass, in units of the work budget.
    pub fn work(&self) -> u64 {
        self.pairs / BOUND_PAIRS_PER_BUDGET_UNIT
    }

    /// The clip: a split's bound is read at its counts cut to it.
    pub fn within(&self) -> &[u32] {
        &self.within
    }

    /// The bound (offset included) of every tree of the split `split` (threads per unit, as
    /// many units as the clip): the covering value at min(split, within); `∞` where no tree of
    /// the split scores at most the incumbent, or the split has another length.
    pub fn of(&self, split: &[u32]) -> f64 {
        if split.len() != self.within.len() {
            return f64::INFINITY;
        }
        let index: usize = split
            .iter()
            .zip(&self.within)
            .zip(&self.stride)
            .map(|((&v, &w), &stride)| v.min(w) as usize * stride)
            .sum();
        self.tree
            .get(index)
            .map_or(f64::INFINITY, |&b| f64::from(b) + self.offset)
    }
}

/// The covering pass's least T_min (offset included) over every tree and placement of the
/// request: a certified lower bound on the optimum's T_min, equal to it wherever adding nodes
/// never lowers the least T_min (most requests, not all: docs/cla.md §11). `None` when the
/// request has no tree whose T_min is at most `incumbent` (+ 1e-6 ns) or the deadline passed.
/// [`optimal`] starts its Pareto pass from this value for [`Objective::Min`].
pub fn covering_bound(
    costs: &LineClasses,
    counts: &[u32],
    root: u32,
    incumbent: Option<f64>,
    limits: &Limits,
    progress: &Progress,
) -> Result<Option<f64>, SocketDpError> {
    Ok(clipped_covering_bound(
        costs,
        &Objective::Min,
        counts,
        counts,
        root,
        incumbent,
        limits,
        progress,
    )?
    .and_then(|c| c.bound))
}

/// What one covering pass over a clip gave ([`clipped_covering_bound`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClippedBound {
    /// The bound (offset included); `None` when no tree covering the clip is within the
    /// incumbent (+ 1e-6 ns).
    pub bound: Option<f64>,
    /// Corner pairs the pass tried (its work; [`BOUND_PAIRS_PER_BUDGET_UNIT`] a budget unit).
    pub pairs: u64,
}

/// A certified lower bound (offset included) on `objective`'s score (T_min under min; under max
/// and blends a relaxation of it, docs/cla.md §11 "Bounds under max and blends") of every tree
/// of the request `counts` rooted on `root`, from the covering pass over the smaller box `within`
/// (`within[s] ≤ counts[s]`, and at least 1 wherever `counts[s]` is): T̂(root, within), the
/// least T_min over the trees that hold at least `within[s]` nodes on every unit s. Every tree of
/// the request holds `counts[s] ≥ within[s]` there, so it is one of them, provided the pass lets
/// a group hold as many trees as the request's widest unit (not only the box's), which it does
/// here. It is the whole-box bound ([`covering_bound`]) when `within` is `counts`, and weaker the
/// smaller the box (T̂ is non-decreasing in the box), but its tables are the box's: a request
/// too large for the pass gets a bound from the largest box that fits (docs/cla.md §11,
/// "Certified lower bound"). `Ok(None)` when the deadline passed first; refused over the work
/// budget or the memory cap as [`covering_bound`] is, and as [`SocketDpError::Counts`] when the
/// box is not such a clip of `counts`. The pass's work comes back with the bound, so that a
/// caller growing its clip can tell what the next one will cost.
#[allow(clippy::too_many_arguments)]
pub fn clipped_covering_bound(
    costs: &LineClasses,
    objective: &Objective,
    counts: &[u32],
    within: &[u32],
    root: u32,
    incumbent: Option<f64>,
    limits: &Limits,
    progress: &Progress,
) -> Result<Option<ClippedBound>, SocketDpError> {
    check_clip(within, counts)?;
    let incumbent = incumbent.unwrap_or(f64::INFINITY);
    let whole_total = within.iter().map(|&c| c as usize).sum();
    let widest = counts.iter().copied().max().unwrap_or(0);
    let Some((table, covered)) = covered(
        costs,
        objective,
        within,
        widest,
        root,
        covering::WholeTrees::Exactly(whole_total),
        incumbent,
        limits,
        progress,
        Admission::BySize,
    )?
    else {
        return Ok(None);
    };
    let whole = table.ranges_len() - 1;
    let bound = covered
        .tree
        .get(root as usize)
        .and_then(|t| t.get(whole))
        .copied()
        .map(f64::from)
        .filter(|t| t.is_finite() && t + costs.offset() <= incumbent + SLACK)
        .map(|t| t + costs.offset());
    Ok(Some(ClippedBound {
        bound,
        pairs: covered.pairs,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `least_above` (of the least T_max at each count vector) against its definition on every
    /// count vector of 3 × 3 × 2 (the unpruned table of chiplet-like classes, every root
    /// socket): the least T_max over the subtrees at every c′ ≥ c, by a scan of the box for
    /// each c; and non-decreasing, as the backward pass's down-set walks need.
    #[test]
    fn the_least_t_max_above_a_count_vector_is_the_least_over_the_vectors_above_it() {
        let costs = chiplet(1);
        let counts = [3u32, 3, 2];
        let (table, filled) =
            SocketTable::build(&costs, &counts, None, &Limits::default(), &Progress::none())
                .unwrap();
        assert_eq!(filled, Filled::Complete);
        let states = table.ranges_len();
        for sigma in 0..counts.len() {
            let at = |c: usize| {
                table.trees[sigma]
                    .get(c)
                    .iter()
                    .map(|t| t.max)
                    .fold(f64::INFINITY, f64::min)
            };
            let mut least = Vec::new();
            table.least_above(at, &mut least);
            for c in 0..states {
                let want = (0..states)
                    .filter(|&up| table.below(c, up))
                    .map(at)
                    .fold(f64::INFINITY, f64::min);
                assert_eq!(
                    least[c],
                    covering::below(want),
                    "socket {sigma}, {:?}",
                    table.decode(c)
                );
                for u in 0..counts.len() {
                    if table.component(c, u) + 1 < table.radix[u] {
                        assert!(least[c] <= least[c + table.stride[u]]);
                    }
                }
            }
            // The vectors holding a node on σ have subtrees up to the whole box; the empty
            // vector's least is the least of any.
            assert!(least[0].is_finite());
        }
    }

    #[test]
    fn the_succinct_index_reads_back_every_set_and_empty_elsewhere() {
        // 200 count vectors (4 words of presence bits, the last one partial), sets stored at
        // 0, 63, 64, 65, 127 and 199 (both ends of a word, a word's first bits, the last
        // vector) with 1, 2, 3, 1, 2, 1 points; 5 stored empty (no bit, no start).
        let mut table: Table<u32> = Table::new(200);
        assert_eq!((table.present.len(), table.before.len()), (4, 4));
        let stored: [(usize, &[u32]); 7] = [
            (0, &[10]),
            (5, &[]),
            (63, &[20, 21]),
            (64, &[30, 31, 32]),
            (65, &[40]),
            (127, &[50, 51]),
            (199, &[60]),
        ];
        for (idx, set) in stored {
            table.set(idx, set);
        }
        for idx in 0..200 {
            let want = stored
                .iter()
                .find(|(i, _)| *i == idx)
                .map_or(&[][..], |(_, set)| *set);
            assert_eq!(table.get(idx), want, "{idx}");
        }
        // Six starts (4 bytes each) and ten points; the sets' sizes in index order.
        assert_eq!(table.starts.len(), 6);
        assert_eq!(table.points.len(), 10);
        assert_eq!(table.set_sizes().collect::<Vec<_>>(), [1, 2, 3, 1, 2, 1]);
        // Past the box: empty, not a panic.
        assert!(table.get(256).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn the_succinct_index_equals_a_range_per_count_vector(
            sizes in proptest::collection::vec(0usize..4, 1..600)
        ) {
            // The law: storing each count vector's set in index order and reading any index
            // back gives that set, as the dense ranges it replaced did.
            let mut table: Table<usize> = Table::new(sizes.len());
            let sets: Vec<Vec<usize>> = sizes
                .iter()
                .enumerate()
                .map(|(idx, &k)| (0..k).map(|j| idx * 10 + j).collect())
                .collect();
            for (idx, set) in sets.iter().enumerate() {
                table.set(idx, set);
            }
            for (idx, set) in sets.iter().enumerate() {
                proptest::prop_assert_eq!(table.get(idx), &set[..]);
            }
        }
    }

    #[test]
    fn a_unit_wider_than_the_covering_pass_stores_is_refused_not_wrapped() {
        // 70,000 nodes on one unit do not fit the u16 components of a count vector: even with
        // an unlimited budget and an incumbent that would make the tables small (K = 1), the
        // pass is refused before it builds its grid, and the exact search runs without it.
        let unlimited = Limits {
            time_limit: None,
            work_budget: u64::MAX,
            ..Limits::default()
        };
        let counts = [70_000u32, 1];
        let got = covering_bound(
            &e5_2660(),
            &counts,
            0,
            Some(500.0),
            &unlimited,
            &Progress::none(),
        );
        // Its entries are not even countable (u64::MAX, saturating), so no memory holds them.
        assert!(matches!(got, Err(SocketDpError::Memory(_))), "{got:?}");
        assert_eq!(covering_estimate(&e5_2660(), &counts).units, u64::MAX);
        assert!(!covering_fits(&e5_2660(), &counts, u64::MAX - 1));
    }

    /// The E5-2660's line classes (seed 001 §2.1).
    fn e5_2660() -> LineClasses {
        LineClasses {
            local: 2.3,
            socket: 35.0,
            remote: 94.0,
            memory: 70.0,
            remote_memory: 107.0,
            domains: None,
        }
    }

    /// The E5-2660's classes over L3 domains, `per_socket` to a socket, R_D = 60 ns between
    /// two of one socket (R_R ≤ R_D ≤ R_Q).
    fn chiplet(per_socket: u32) -> LineClasses {
        LineClasses {
            domains: Some(modelopt_model::placed_tree::Domains {
                per_socket,
                remote_domain: 60.0,
            }),
            ..e5_2660()
        }
    }

    /// Both stage orders' tree tables over the box `counts`, entry by entry, for every root with
    /// room and with and without an incumbent cutting both alike: equal up to the f32 rounding
    /// (covering::cover, "Stage order").
    fn assert_stage_orders_agree(costs: &LineClasses, counts: &[u32]) {
        let never = Deadline::never();
        let min = covering::Prices::of(&Objective::Min);
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        for root in (0..counts.len()).filter(|&r| counts[r] > 0) {
            for incumbent in [f64::INFINITY, 1_500.0] {
                let run = |order| {
                    covering::cover(
                        costs,
                        counts,
                        0,
                        root,
                        covering::WholeTrees::Exactly(total),
                        incumbent,
                        &min,
                        order,
                        u64::MAX,
                        &never,
                    )
                    .unwrap()
                };
                let (up, down) = (
                    run(covering::Stages::Ascending),
                    run(covering::Stages::Descending),
                );
                assert!(up.nodes.is_empty() && !down.nodes.is_empty());
                for (sigma, (a, d)) in up.tree.iter().zip(&down.tree).enumerate() {
                    for (idx, (&a, &d)) in a.iter().zip(d).enumerate() {
                        let (a, d) = (f64::from(a), f64::from(d));
                        let alike = a == d || (a - d).abs() <= d.abs() * ROUNDING_MARGIN;
                        assert!(
                            alike,
                            "{costs:?} {counts:?} root {root} unit {sigma} at {idx}: {a} vs {d}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_down_set_walk_lists_what_fits_and_skips_what_lies_above_a_failure() {
        // Box [2, 2] (3 × 3 vectors, index d0 + 3·d1), r = (2, 2), unit 0, fits: d0 + d1 ≤ 2,
        // closed downwards. The vectors with d0 ≥ 1 that fit: (1, 0), (2, 0), (1, 1), at 1, 2
        // and 4. The walk: (1, 0) fits; (2, 0) fits; d0 at its top carries: (1, 1) fits;
        // (2, 1) fails, the lowest unit above its least is 0, so the carry goes to unit 1:
        // (1, 2) fails, now unit 1 is the lowest above its least (unit 0 is at 1), so the
        // carry goes past the last unit: done. Five looks, against six vectors below r with
        // d0 ≥ 1.
        let table = SocketTable::without_index(&e5_2660(), &[2, 2]);
        let looks = std::cell::Cell::new(0);
        let fits = |d: usize| {
            looks.set(looks.get() + 1);
            d % 3 + d / 3 <= 2
        };
        let mut out = Vec::new();
        table.down_set_within(8, 0, fits, &mut out);
        assert_eq!(out, [1, 2, 4]);
        assert_eq!(looks.get(), 5);
        // On unit 1 (d1 ≥ 1): (0, 1), (1, 1), (0, 2) at 3, 4, 6; below r = (1, 2) the same;
        // below r = (2, 0) none (it holds no node on unit 1), and nothing is looked at.
        table.down_set_within(8, 1, |d| d % 3 + d / 3 <= 2, &mut out);
        assert_eq!(out, [3, 4, 6]);
        table.down_set_within(7, 1, |d| d % 3 + d / 3 <= 2, &mut out);
        assert_eq!(out, [3, 4, 6]);
        looks.set(0);
        table.down_set_within(2, 1, fits, &mut out);
        assert!(out.is_empty());
        assert_eq!(looks.get(), 0);
        // Nothing fits: one look, at the least vector (1, 0).
        table.down_set_within(
            8,
            0,
            |d| {
                looks.set(looks.get() + 1);
                d == 0
            },
            &mut out,
        );
        assert!(out.is_empty());
        assert_eq!(looks.get(), 1);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// The walk lists exactly the vectors d ≤ r with a node on the unit at which a
        /// threshold on an envelope (the least of random values at the vectors above d) holds,
        /// ascending, as a filter of every vector says.
        #[test]
        fn a_down_set_walk_equals_a_filter_of_the_box(
            counts in proptest::collection::vec(0u32..=4, 1..=4),
            raw in proptest::collection::vec(0u32..=40, 625),
            threshold in 0u32..=40,
            at in 0usize..625,
            unit in 0usize..4,
        ) {
            let table = SocketTable::without_index(&e5_2660(), &counts);
            let states = table.ranges_len();
            let unit = unit % counts.len();
            let r = at % states;
            let envelope: Vec<u32> = (0..states)
                .map(|d| {
                    (d..states)
                        .filter(|&e| table.below(d, e))
                        .map(|e| raw[e])
                        .min()
                        .unwrap_or(u32::MAX)
                })
                .collect();
            let fits = |d: usize| envelope[d] <= threshold;
            let expected: Vec<usize> = (0..states)
                .filter(|&d| table.below(d, r) && table.component(d, unit) > 0 && fits(d))
                .collect();
            let mut out = Vec::new();
            table.down_set_within(r, unit, fits, &mut out);
            proptest::prop_assert_eq!(out, expected);
        }
    }

    #[test]
    fn both_stage_orders_give_every_covering_value_alike() {
        // Under T_min the ascending stages (no suffix state) and the descending ones (the
        // exact search's) compute the same least T_min of every tree covering every count
        // vector on every unit, on sockets and on L3 domains.
        let cases: [(LineClasses, &[u32]); 5] = [
            (e5_2660(), &[4, 3]),
            (e5_2660(), &[2, 2, 2]),
            (chiplet(2), &[2, 1, 1, 1]),
            (chiplet(2), &[3, 0, 2, 1]),
            (chiplet(4), &[1, 2, 0, 1, 2, 0, 0, 1]),
        ];
        for (costs, counts) in cases {
            assert_stage_orders_agree(&costs, counts);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// The same on random machines (R_L ≤ R_R ≤ R_D ≤ R_Q, R_I ≤ R_QI) and boxes of two
        /// sockets of two L3 domains, or of four sockets.
        #[test]
        fn both_stage_orders_agree_on_random_machines(
            local in 0.5f64..5.0,
            socket in 5.0f64..60.0,
            to_domain in 0.0f64..80.0,
            to_socket in 0.0f64..80.0,
            memory in 20.0f64..150.0,
            to_remote_memory in 0.0f64..80.0,
            counts in proptest::collection::vec(0u32..=2, 4),
            with_domains in proptest::bool::ANY,
        ) {
            proptest::prop_assume!(counts.iter().sum::<u32>() >= 2);
            let costs = LineClasses {
                local,
                socket,
                remote: socket + to_domain + to_socket,
                memory,
                remote_memory: memory + to_remote_memory,
                domains: with_domains.then_some(modelopt_model::placed_tree::Domains {
                    per_socket: 2,
                    remote_domain: socket + to_domain,
                }),
            };
            assert_stage_orders_agree(&costs, &counts);
        }
    }

    #[test]
    fn a_bound_only_pass_is_sized_without_suffix_states_or_budgets() {
        // Six L3 domains of 8 (two sockets of three), under min, no incumbent: K = 8, so a
        // count vector holds 6·8 tree and forest entries, 6·6 node stages (ascending, one
        // table each) and 6 group tables: 90. 9⁶ = 531,441 vectors: 47,829,690 entries,
        // 191,318,760 bytes of f32, + the components of the box (4·6 bytes a vector,
        // 12,754,584) and of the pass's grid (2·6, 6,377,292): 210,450,636 bytes. No Pareto
        // index, which the exact search adds (48 tables of ⌈531,441 / 64⌉ = 8,304 words of 12
        // bytes, 4,783,104, and the components, 12,754,584: 17,537,688 bytes), with every
        // reachable suffix state of its pass, forward and as budgets.
        let costs = chiplet(3);
        let counts = [8u32; 6];
        let min = Objective::Min;
        let entries = bound_estimate_within(&costs, &min, &counts, 8, None).units;
        assert_eq!(entries, 47_829_690);
        assert_eq!(table_bytes(&counts), 17_537_688);
        assert_eq!(
            bound_memory_within(&costs, &min, &counts, 8, None),
            210_450_636
        );
        let exact = covering_estimate_within(&costs, &min, &counts, 8, None).units;
        assert!(exact > 5 * entries, "{exact}");
        // By envelopes the exact search's work is S·K + 4·S + 3·S² = 48 + 24 + 108 = 180 entries
        // a vector (the 2·S² envelopes among them stored by pages, only those written),
        // 531,441 × 180 = 95,659,380: within the default budget of 10⁸, so 48 domain-line
        // threads, six domains of 8, are exact at the defaults (with the lists of finite
        // entries the pass kept until 2026-11-28, 2·S more, 102,036,672: just over it).
        assert_eq!(
            envelope_estimate_within(&costs, &min, &counts, 8, None).units,
            95_659_380
        );
        // Under max the stages keep their suffix states (forward only) and the group tables
        // one per relation: 6·8 + R + 6·3.
        let stages = Suffix::new(6, &costs).stage_states(&costs, &counts);
        assert_eq!(
            bound_estimate_within(&costs, &Objective::Max, &counts, 8, None).units,
            531_441 * (48 + stages + 18)
        );
    }

    #[test]
    fn the_least_budget_names_the_memory_when_no_form_fits() {
        // [8, 8] on the E5-2660, no incumbent (K = 8), 81 count vectors, the index 840 bytes
        // (as below). By envelopes S·K + 4·S + 3·S² = 16 + 8 + 12 = 36 entries a vector, 2,916,
        // in 10,268 bytes with the index (below); by suffix states S·K + 2·R + 4·S + ⌈S²/4⌉ =
        // 16 + 24 + 8 + 1 = 49, 3,969 entries, 3,969 × 4 + 81 × 2·2 of the grid's components +
        // 840 = 17,040 bytes. Where both fit, the fewer entries; where only the envelopes fit,
        // theirs; where neither fits, the one of least memory with what it needs.
        let costs = e5_2660();
        let min = Objective::Min;
        let least = |limit: u64| least_budget(&costs, &[8, 8], &min, limit, None);
        assert_eq!(least(u64::MAX), (2_916, 0));
        assert_eq!(least(10_268), (2_916, 0));
        assert_eq!(least(10_267), (2_916, 10_268));
        assert_eq!(least(0), (2_916, 10_268));
        // Under max the envelopes do not apply: the suffix states' form, with a group table per
        // relation to the parent (2·S·3 instead of 2·S: 8 more), 57 entries a vector, 4,617,
        // 4,617 × 4 + 324 + 840 = 19,632 bytes.
        let max = |limit: u64| least_budget(&costs, &[8, 8], &Objective::Max, limit, None);
        assert_eq!(max(19_632), (4_617, 0));
        assert_eq!(max(19_631), (4_617, 19_632));
    }

    #[test]
    fn the_envelopes_pages_are_held_to_the_memory_left_by_the_tables() {
        // [8, 8] on the E5-2660 rooted on socket 0, by envelopes, no incumbent (K = 8): 9² = 81
        // count vectors. Sized before the pass: S·K + 4·S + S² = 16 + 8 + 4 = 28 entries of 4
        // bytes and 2·2 bytes of components a vector, 81 × 116 = 9,396; the envelopes' pages'
        // directories, S² = 4 tables of ⌈81 / 64⌉ = 2 pages of 4 bytes, 32; the Pareto index,
        // S² + 2·S = 8 tables of 2 words of 12 bytes (192) and 81 × 4·2 bytes of components
        // (648), 840: 10,268 bytes.
        let costs = e5_2660();
        let counts = [8u32, 8];
        assert_eq!(
            exact_memory_within(&costs, &Objective::Min, &counts, 8, None),
            10_268
        );
        let limits = |memory_limit: u64| Limits {
            time_limit: None,
            work_budget: u64::MAX,
            memory_limit,
        };
        let quiet = Progress::none();
        // At exactly that limit the tables are admitted with no byte left, and the backward
        // pass writes the envelope of the root's whole node (the tree of least T_min passes
        // there) on a page of 528 bytes: refused, so the search stops on the memory limit with
        // no size to name, before any Pareto point.
        let tight =
            optimal_by_envelopes(&costs, &counts, 0, None, &limits(10_268), &quiet).unwrap();
        assert_eq!(
            tight.filled,
            Filled::Stopped(StopReason::MemoryLimit {
                limit: 10_268,
                needed: 0
            })
        );
        assert!(tight.best.is_none());
        // With a MiB more the same search is exact, and finds the optimum of the search with
        // no limit, which takes the suffix states (E5-2660 sockets).
        let roomy =
            optimal_by_envelopes(&costs, &counts, 0, None, &limits(1 << 20), &quiet).unwrap();
        let free = optimal(
            &costs,
            &counts,
            0,
            &Objective::Min,
            None,
            &limits(u64::MAX),
            &quiet,
        )
        .unwrap();
        assert_eq!(roomy.filled, Filled::Complete);
        let score = |o: &DpOutcome| o.best.as_ref().map(|t| t.cost);
        assert!(score(&roomy).is_some());
        assert_eq!(score(&roomy), score(&free));
    }

    #[test]
    fn a_box_whose_tables_exceed_memory_is_refused_before_allocating() {
        // Eight sockets of 10: 11^8 = 214,358,881 count vectors. The exact search's index:
        // (64 + 16) tables of ⌈214,358,881 / 64⌉ = 3,349,358 words of 12 bytes, 3,215,383,680,
        // and 8 components of 4 bytes a vector, 6,859,484,192: 10,074,867,872 bytes (9.4 GiB).
        // A bound's covering pass
        // (least of a total, no index): 8·10 + 64 + 8 = 152 f32 entries (K = 10, node stages
        // ascending, group tables), 8·4 bytes of components and 8·2 of its grid's a vector:
        // 214,358,881 × 656 = 140,619,425,936 bytes. Both over the default memory limit of
        // 2 GiB, whatever the work budget; the refusal comes before any table exists (the test
        // would run out of memory otherwise).
        let counts = [10u32; 8];
        assert_eq!(box_states(&counts), 214_358_881);
        let unlimited = Limits {
            time_limit: None,
            work_budget: u64::MAX,
            ..Limits::default()
        };
        let err = least_score_of_total(
            &e5_2660(),
            &Objective::Min,
            &counts,
            20,
            0,
            None,
            &unlimited,
            &Progress::none(),
        )
        .unwrap_err();
        match err {
            SocketDpError::Memory(m) => {
                assert_eq!(m.bytes, 140_619_425_936);
                assert_eq!(m.limit, 2 << 30);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(table_bytes(&counts), 10_074_867_872);
        let costs = e5_2660();
        let default = Limits::default().memory_limit;
        assert!(!covering_fits(&costs, &counts, default));
        // The covering pass's tables: states × (S·K + 2·R + 4·S + ⌈S²/4⌉) under min, K the
        // widest count, R the
        // suffix states the node stages reach. With sockets as units a suffix state is (far,
        // local): at stage s, a node on σ ≥ s reaches far ≤ S − s − 1 and local ≤ 1, (S − s)·2 states;
        // one on σ < s far ≤ S − s, local 0, S − s + 1 states. R = Σ_s (S − s)·2(S − s) +
        // s·(S − s + 1). S = 4: 32 + (18 + 4) + (8 + 6) + (2 + 6) = 76. Four sockets of 16
        // (83,521 vectors): 83,521 × (4·16 + 2·76 + 4·4 + 4) = 83,521 × 236 = 19,710,956
        // values of 4 bytes (`f32`) and 2·4 bytes of components a vector, 78,843,824 + 668,168
        // = 79,511,992 bytes; with the index, 24 tables of ⌈83,521 / 64⌉ = 1,306 words of 12
        // bytes (376,128) and 83,521 × 4·4 of components (1,336,336), 1,712,464 bytes:
        // 81,224,456 in all (77 MiB). It fits the default 2 GiB, and a limit of exactly that,
        // not one byte less.
        assert_eq!(covering_estimate(&costs, &[16; 4]).units, 19_710_956);
        assert_eq!(table_bytes(&[16; 4]), 1_712_464);
        assert!(covering_fits(&costs, &[16; 4], default));
        assert!(covering_fits(&costs, &[16; 4], 81_224_456));
        assert!(!covering_fits(&costs, &[16; 4], 81_224_455));
        // With envelopes (under min, when the suffix states' tables do not fit): 4·16 + 4·4 +
        // 3·4² = 64 + 16 + 48 = 128 entries a vector of work, 83,521 × 128 = 10,690,688. In
        // memory the envelopes (2·4² of them) are stored by pages, so what is sized before the
        // pass is 128 − 32 = 96 entries a vector, 83,521 × 96 × 4 = 32,072,064 bytes, +
        // 668,168 of components + the pages' directories, 4² tables of ⌈83,521 / 64⌉ = 1,306
        // pages of 4 bytes (83,584), + the index's 1,712,464 = 34,536,280 bytes, the least the
        // exact search needs; under max, where envelopes do not apply, the suffix states'
        // form is the only one.
        assert_eq!(
            envelope_estimate_within(&costs, &Objective::Min, &[16; 4], 16, None).units,
            10_690_688
        );
        assert_eq!(
            exact_memory_within(&costs, &Objective::Min, &[16; 4], 16, None),
            34_536_280
        );
        assert_eq!(
            envelope_estimate_within(&costs, &Objective::Max, &[16; 4], 16, None).units,
            u64::MAX
        );
        assert_eq!(
            exact_memory_within(&costs, &Objective::Max, &[16; 4], 16, None),
            covering_memory_within(&costs, &Objective::Max, &[16; 4], 16, None)
        );
        // So a limit between the two runs the exact search with envelopes: sized by them.
        let min = Objective::Min;
        assert_eq!(
            estimate_for(&costs, &[16; 4], &min, (34_536_280, u64::MAX), None).units,
            10_690_688
        );
        // One byte less and neither form fits: the Pareto pass alone, sized by its
        // transitions ([`estimate`]).
        assert_eq!(
            estimate_for(&costs, &[16; 4], &min, (34_536_279, u64::MAX), None).units,
            estimate(&[16; 4]).units
        );
        assert_eq!(
            estimate_for(&costs, &[16; 4], &min, (81_224_456, u64::MAX), None).units,
            19_710_956
        );
        // Both fit the default memory; the suffix states are preferred on sockets, unless they
        // are over the work budget and the envelopes are not: at 1.5·10⁷ the envelopes'
        // 10,690,688 entries, at 10⁷ (both over) the suffix states', which the budget refuses.
        let room = |budget: u64| (default, budget);
        assert_eq!(
            estimate_for(&costs, &[16; 4], &min, room(21_000_000), None).units,
            19_710_956
        );
        assert_eq!(
            estimate_for(&costs, &[16; 4], &min, room(15_000_000), None).units,
            10_690_688
        );
        assert_eq!(
            estimate_for(&costs, &[16; 4], &min, room(10_000_000), None).units,
            19_710_956
        );
        assert!(by_envelopes(&costs, &min, &[16; 4], room(15_000_000)));
        assert!(!by_envelopes(&costs, &min, &[16; 4], room(21_000_000)));
        // Under max (and blends) each unit keeps a group table per relation to the parent,
        // forward and in the budgets: 2 · S · 2 = 16 more per vector, 83,521 × 252.
        assert_eq!(
            covering_estimate_within(&costs, &Objective::Max, &[16; 4], 16, None).units,
            21_047_292
        );
        // S = 8: R = 128 + 106 + 86 + 68 + 52 + 38 + 26 + 16 = 520, 4·S + S²/4 = 48. Eight
        // sockets of 2: 6,561 × (8·2 + 2·520 + 48) = 6,561 × 1,104 = 7,243,344 entries fit; of
        // 3: 65,536 × (24 + 1,040 + 48) = 72,876,032 entries, 291,504,128 bytes, + 65,536 × 16
        // of components and the index's 80 tables of 1,024 words of 12 bytes (983,040) and
        // 65,536 × 8·4 of components (2,097,152): 295,632,896 bytes, within 2 GiB, not
        // 256 MiB.
        assert_eq!(covering_estimate(&costs, &[2; 8]).units, 7_243_344);
        assert!(covering_fits(&costs, &[2; 8], default));
        assert_eq!(covering_estimate(&costs, &[3; 8]).units, 72_876_032);
        assert!(covering_fits(&costs, &[3; 8], default));
        assert!(covering_fits(&costs, &[3; 8], 295_632_896));
        assert!(!covering_fits(&costs, &[3; 8], 295_632_895));
        assert!(!covering_fits(&costs, &[3; 8], 256 << 20));
    }

    #[test]
    fn an_incumbent_sizes_the_covering_pass_for_the_trees_that_can_beat_it() {
        // Two E5-2660 sockets of 512 threads: 513² = 263,169 count vectors, R = 12 suffix
        // states, 4·S + ⌈S²/4⌉ = 9. Without an incumbent a group may hold K = 512 trees:
        // 263,169 × (2·512 + 24 + 9) = 263,169 × 1,057 = 278,169,633 entries. Under a tree of
        // 1,600 ns, a group of k trees costs at least (k − 1)·R_R above a parent's least level
        // 2 R_I + 2 R_R + R_L = 212.3 ns and the offset R_L = 2.3 ns: k − 1 ≤
        // (1,600 − 214.6)/35 = 39.58, K = 40, 263,169 × 113 = 29,738,097 entries.
        let costs = e5_2660();
        let counts = [512u32, 512];
        let min = Objective::Min;
        let without = covering_estimate_within(&costs, &min, &counts, 512, None).units;
        let with = covering_estimate_within(&costs, &min, &counts, 512, Some(1_600.0)).units;
        assert_eq!((without, with), (278_169_633, 29_738_097));
        // In bytes (4 an entry), with the index (8 tables of ⌈263,169 / 64⌉ = 4,113 words of
        // 12 bytes, 394,848, and 263,169 × 2·4 of components, 2,105,352: 2,500,200) and the
        // pass's grid (263,169 × 2·2 = 1,052,676): 1,116,231,408 without, over a limit of
        // 1 GiB, and 122,505,264 with it; the work estimate follows (the exact search asks
        // again with its stopgap tree's score before it answers with the memory's reason).
        let memory = |incumbent| covering_memory_within(&costs, &min, &counts, 512, incumbent);
        assert_eq!(memory(None), 1_116_231_408);
        assert_eq!(memory(Some(1_600.0)), 122_505_264);
        let default = Limits::default().memory_limit;
        assert_eq!(
            estimate_for(&costs, &counts, &min, (default, u64::MAX), Some(1_600.0)).units,
            29_738_097
        );
    }

    #[test]
    fn node_stages_reach_only_suffix_states_of_units_with_room() {
        // Two sockets of four L3 domains (units 0–3 on socket 0, 4–7 on socket 1), 40 threads
        // filling units 0–4: W = far_span 5 × near_span 4 × 2 = 40 states a stage, but a node
        // reaches far ≤ (units with room on other sockets from the stage up), near ≤ (those on
        // its socket but its own), local only from a stage at or below its own unit.
        let costs = chiplet(4);
        let counts = [8, 8, 8, 8, 8, 0, 0, 0];
        let suffix = Suffix::new(8, &costs);
        assert_eq!(suffix.width(), 40);
        let widths = |sigma: usize| -> Vec<usize> {
            (0..8)
                .map(|stage| suffix.reachable(&costs, &counts, sigma, stage).len())
                .collect()
        };
        // σ = 0: stage 0 far ≤ 1 (unit 4), near ≤ 3, local: 2·4·2 = 16; stage 1: 2·4·1; stage 2
        // (near 2, 3): 2·3; stage 3: 2·2; stage 4: 2·1; stages 5–7 only the empty state.
        assert_eq!(widths(0), [16, 8, 6, 4, 2, 1, 1, 1]);
        // σ = 2: stage 1 near ≤ 2 (1, 3), local: 2·3·2; stage 2 near ≤ 1 (3), local: 2·2·2;
        // stage 3 near ≤ 1, no local: 2·2.
        assert_eq!(widths(2), [16, 12, 8, 4, 2, 1, 1, 1]);
        // σ = 4, alone on socket 1: far ≤ 4 − stage (units 0–3), near 0, local up to stage 4.
        assert_eq!(widths(4), [10, 8, 6, 4, 2, 1, 1, 1]);
        // No node lives on a unit without room.
        assert!(widths(5).iter().all(|&w| w == 0));
        // σ = 1: 16 + 12 + 6 + 4 + 2 + 3 = 43; σ = 3 as σ = 2: 45. R = 39 + 43 + 45 + 45 + 33 =
        // 205, and the tables hold 9^5 × (8·8 + 2·205 + 4·8 + 64/4) = 59,049 × 522 =
        // 30,823,578 values, 123,294,312 bytes, + 59,049 × 16 of components = 124,239,096, and
        // the index, 80 tables of ⌈59,049 / 64⌉ = 923 words of 12 bytes (886,080) and 59,049 ×
        // 8·4 of components (1,889,568): 127,014,744 bytes, within the default 2 GiB
        // (with all 8·8·40 stage states it would be 59,049 × 5,184 = 306,110,016 values,
        // 1,224,440,064 bytes: eight times as many).
        assert_eq!(widths(1).iter().sum::<usize>(), 43);
        assert_eq!(widths(3).iter().sum::<usize>(), 45);
        assert_eq!(suffix.stage_states(&costs, &counts), 205);
        assert_eq!(covering_estimate(&costs, &counts).units, 30_823_578);
        assert!(covering_fits(&costs, &counts, 127_014_744));
        assert!(!covering_fits(&costs, &counts, 127_014_743));
        // Every state listed is one a node can reach: the empty state at every stage of a
        // unit with room.
        let slots = suffix.slots(&costs, &counts);
        assert_eq!(slots[4][7].of(0), Some(0));
        assert_eq!(slots[4][7].of(1), None);
    }

    #[test]
    fn every_partial_node_of_the_exact_dp_lies_in_a_reachable_suffix_state() {
        // The law `Suffix::reachable` relies on: the Pareto pass without pruning keeps every
        // Pareto-optimal partial node of every stage, and each must lie in a state its stage
        // lists, here on boxes that leave units empty (where the lists are shorter than W).
        // Nodes on a unit the box leaves empty are no tree's and are not looked at.
        for (per_socket, boxes) in [
            (
                2u32,
                vec![vec![2u32, 0, 1, 1], vec![1, 2, 0, 2], vec![0, 2, 2, 1]],
            ),
            (3, vec![vec![1, 0, 2, 0, 1, 1], vec![2, 1, 0, 1, 0, 0]]),
        ] {
            let costs = chiplet(per_socket);
            for counts in boxes {
                let (table, filled) = SocketTable::build(
                    &costs,
                    &counts,
                    None,
                    &Limits::default(),
                    &Progress::none(),
                )
                .unwrap();
                assert_eq!(filled, Filled::Complete);
                let suffix = table.suffix();
                let slots = suffix.slots(&costs, &counts);
                let mut seen = 0usize;
                for sigma in (0..counts.len()).filter(|&s| counts[s] > 0) {
                    for (stage, stage_nodes) in table.nodes[sigma].iter().enumerate() {
                        for r in 0..table.ranges_len() {
                            for p in stage_nodes.get(r) {
                                let st = suffix.encode(p.far.into(), p.near.into(), p.local.into());
                                assert!(
                                    slots[sigma][stage].of(st).is_some(),
                                    "{counts:?}: σ {sigma} stage {stage} r {r} state {:?}",
                                    (p.far, p.near, p.local)
                                );
                                seen += 1;
                            }
                        }
                    }
                }
                assert!(seen > 100, "{counts:?}: {seen}");
            }
        }
    }

    /// The bound's recurrence evaluated literally, every k and every m in the range (O(n³) for
    /// the table): the bound of every count `0..=n`, `lb(m)` not depending on the `n` asked for,
    /// so one table serves every n (built once per n, the test took 40 s in a debug build).
    fn lower_bounds_literal(costs: &LineClasses, n: u32, sockets: u32) -> Vec<f64> {
        let n = n as usize;
        let s = sockets.max(1) as usize;
        let c0 = 2.0 * costs.memory + 2.0 * costs.socket + costs.local;
        let mut lb = vec![0.0f64; n.max(1) + 1];
        for m in 2..=n {
            let mut best = f64::INFINITY;
            for k in 1..m {
                let need = (m - 1).div_ceil(k);
                let slowest = lb[need..m].iter().copied().fold(f64::INFINITY, f64::min);
                let group = (k.div_ceil(s) - 1) as f64 * costs.socket;
                best = best.min(c0 + slowest.max(group));
            }
            lb[m] = best;
        }
        lb.iter().map(|b| costs.offset() + b).collect()
    }

    #[test]
    fn bisected_lower_bound_equals_the_literal_recurrence() {
        let costs = e5_2660();
        for sockets in 1..=4 {
            let slow = lower_bounds_literal(&costs, 300, sockets);
            for n in 1..=300 {
                let fast = lower_bound(&costs, n, sockets);
                let slow = slow[n as usize];
                assert!(
                    (fast - slow).abs() < 1e-9,
                    "n {n}, S {sockets}: {fast} vs {slow}"
                );
            }
        }
        // n = 2: one child, c₀ + max(lb(1), 0) = 2·70 + 2·35 + 2.3 = 212.3, plus R_L: 214.6.
        assert!((lower_bound(&costs, 2, 2) - 214.6).abs() < 1e-9);
    }

    #[test]
    fn the_height_bound_is_never_above_the_exact_optimum() {
        // Every split of up to 9 nodes on 2 sockets and up to 7 on 3, root on socket 0: the
        // bound is at most the socket DP's exact T_min (which equals brute force, tests
        // above), and on one socket of 2 nodes it is the chain's 214.6 ns (R_L + R_I + R_R +
        // R_L + R_I + R_R).
        let costs = e5_2660();
        assert_eq!(
            lower_bound_by_height(&costs, 2, &[2]).map(|b| (b * 1e6).round() / 1e6),
            Some(214.6)
        );
        let mut checked = 0;
        for (sockets, largest) in [(2usize, 9u32), (3, 7)] {
            let mut counts = vec![0u32; sockets];
            loop {
                let n: u32 = counts.iter().sum();
                if n >= 2 && counts[0] > 0 && n <= largest {
                    let outcome = optimal(
                        &costs,
                        &counts,
                        0,
                        &Objective::Min,
                        None,
                        &Limits::default(),
                        &Progress::none(),
                    )
                    .unwrap();
                    let exact = outcome.best.unwrap().cost.min_ns;
                    let bound = lower_bound_by_height(&costs, n, &counts).unwrap();
                    assert!(bound <= exact + 1e-9, "{counts:?}: bound {bound} > {exact}");
                    checked += 1;
                }
                // Next vector with entries 0..=largest.
                let mut i = 0;
                while i < sockets {
                    counts[i] += 1;
                    if counts[i] <= largest {
                        break;
                    }
                    counts[i] = 0;
                    i += 1;
                }
                if i == sockets {
                    break;
                }
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
