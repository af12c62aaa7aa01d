//! The KSR-1 collectives of seed 003 §5 as [`Algorithm`]s for the optimizer.
//!
//! | name | collective | seed | model |
//! |---|---|---|---|
//! | `global-barrier` | barrier | §5.1 | 270 µs on one ring:0; estimate across ring:1 |
//! | `concurrent-read` | bcast | §5.2 | all nodes read node 0's array at once, `C0 + C1·N` |
//! | `ring-shift` | shift | §5.4, Table 3 | `C1·P + C2·N`, × ring:1 slowdown; parameter `distance` |
//! | `sequential-reads` | gather | §5.5 algorithm 1 | `C0 + C1·P + C2·N` |
//! | `binary-tree` | gather | §5.5 algorithm 2 | `C0 + C1·log2 P + C2·N` |
//! | `gather-bcast` | allgather | §5.6 algorithm 1 | `C0 + C1·P + C2·N` |
//! | `tree-gather-bcast` | allgather | §5.6 algorithm 2 | `C0 + C5·log2 P + C6·P + C7·N` |
//! | `cyclic-shifts` | allgather | §5.6 algorithm 3 | `C0 + C1·P + C2·N` |
//! | `gather-op-bcast` | reduce | §5.7 with algorithm 1 | gather + operation + broadcast |
//! | `tree-gather-op-bcast` | reduce | §5.7 with algorithm 2 | gather + operation + broadcast |
//!
//! The request's size is per processor (`n` subpages); a concatenation's `N_subpages` is `P·n`.
//! The shift distance is the application's: the optimizer lists every distance unless
//! `--fix distance=K` pins one. Throughput (the seed gives none) is bytes delivered over time:
//! the message for bcast, shift and reduce, the `P·size` concatenation for gather and allgather.

use super::fits::GatherAlgorithm;
use super::Ksr1;
use crate::algorithm::{Algorithm, IntRange, Space, SpaceOptions, Term};
use crate::error::ModelError;
use crate::request::{Collective, Cost, Params, Request};

const MS_TO_NS: f64 = 1e6;

/// Which of the seed's algorithms a [`KsrAlgorithm`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// §5.1 global barrier.
    Barrier,
    /// §5.2 broadcast by concurrent remote reads.
    Bcast,
    /// §5.4 cyclic shift at a distance.
    Shift,
    /// §5.5 concatenate-one, algorithm 1 or 2.
    Gather(GatherAlgorithm),
    /// §5.6 concatenate-all algorithm 1: concatenate-one (1) + broadcast.
    AllgatherGatherBcast,
    /// §5.6 concatenate-all algorithm 2: concatenate-one (2) + broadcast.
    AllgatherTreeGatherBcast,
    /// §5.6 concatenate-all algorithm 3: N − 1 cyclic shifts.
    AllgatherCyclicShifts,
    /// §5.7 reduction: concatenate-one (1 or 2) + operation + broadcast.
    Reduce(GatherAlgorithm),
}

/// Every algorithm of the family, borrowing the model.
pub fn all(model: &Ksr1) -> Vec<Box<dyn Algorithm + '_>> {
    [
        Kind::Barrier,
        Kind::Bcast,
        Kind::Shift,
        Kind::Gather(GatherAlgorithm::Sequential),
        Kind::Gather(GatherAlgorithm::Tree),
        Kind::AllgatherGatherBcast,
        Kind::AllgatherTreeGatherBcast,
        Kind::AllgatherCyclicShifts,
        Kind::Reduce(GatherAlgorithm::Sequential),
        Kind::Reduce(GatherAlgorithm::Tree),
    ]
    .into_iter()
    .map(|kind| Box::new(KsrAlgorithm { model, kind }) as Box<dyn Algorithm + '_>)
    .collect()
}

/// One KSR-1 collective algorithm of seed 003.
#[derive(Debug, Clone, Copy)]
pub struct KsrAlgorithm<'a> {
    /// The machine model.
    pub model: &'a Ksr1,
    /// Which algorithm.
    pub kind: Kind,
}

fn term(label: impl Into<String>, ms: f64) -> Term {
    Term {
        label: label.into(),
        min_ns: ms * MS_TO_NS,
        max_ns: ms * MS_TO_NS,
    }
}

impl KsrAlgorithm<'_> {
    /// The shift distance of `params`, checked against 1 ≤ distance ≤ P − 1.
    fn distance(&self, request: &Request, params: &Params) -> Result<u32, ModelError> {
        let Params::Named(map) = params else {
            return Err(ModelError::WrongParams {
                algorithm: "ring-shift".into(),
                expected: "the shift distance (e.g. distance=1)".into(),
                got: params.to_string(),
            });
        };
        if let Some(other) = map.keys().find(|name| name.as_str() != "distance") {
            return Err(ModelError::Parameter {
                name: other.clone(),
                value: map.get(other).map_or_else(String::new, i64::to_string),
                reason: "ring-shift has one parameter, distance".into(),
            });
        }
        let d = *map
            .get("distance")
            .ok_or_else(|| ModelError::MissingParameter {
                algorithm: "ring-shift".into(),
                name: "distance".into(),
                example: "distance=1".into(),
            })?;
        let p = i64::from(request.threads());
        if d < 1 || d >= p {
            return Err(ModelError::Parameter {
                name: "distance".into(),
                value: d.to_string(),
                reason: format!("a cyclic shift distance is between 1 and P−1 = {}", p - 1),
            });
        }
        u32::try_from(d).map_err(|_| ModelError::Parameter {
            name: "distance".into(),
            value: d.to_string(),
            reason: "out of range".into(),
        })
    }

    fn no_params(&self, params: &Params) -> Result<(), ModelError> {
        match params {
            Params::None => Ok(()),
            Params::Named(map) if map.is_empty() => Ok(()),
            other => Err(ModelError::WrongParams {
                algorithm: self.name().into(),
                expected: "no free parameter".into(),
                got: other.to_string(),
            }),
        }
    }

    /// The model's terms for `request`, ms, after checking it; their sum is the time.
    fn terms(&self, request: &Request, params: &Params) -> Result<Vec<Term>, ModelError> {
        let m = self.model;
        let n = m.check_request(request)?;
        let p = request.threads();
        let total = u64::from(p).saturating_mul(n);
        let pf = f64::from(p);
        let stages = Ksr1::tree_stages(p);
        let ring = if m.spans_ring1(p) { "ring:1" } else { "ring:0" };
        if self.kind != Kind::Shift {
            self.no_params(params)?;
        }
        Ok(match self.kind {
            Kind::Barrier => vec![term(
                format!(
                    "global barrier, processors on {ring} (seed 003 §5.1{})",
                    if m.spans_ring1(p) { "; estimated" } else { "" }
                ),
                m.barrier(p),
            )],
            Kind::Bcast => {
                let fit = if m.spans_ring1(p) {
                    m.bcast.ring1
                } else {
                    m.bcast.ring0
                };
                vec![
                    term(format!("C0 ({ring} fit, §5.2)"), fit.c0),
                    term(
                        format!("C1·N_subpages = {}·{n}", fit.per_subpage),
                        fit.per_subpage * n as f64,
                    ),
                ]
            }
            Kind::Shift => {
                let distance = self.distance(request, params)?;
                let s = &m.shift;
                let slowdown = m.shift_slowdown(p, distance);
                let base = s.per_processor * pf + s.per_subpage * n as f64;
                vec![
                    term(
                        format!("C1·N_procs = {}·{p} (§5.4)", s.per_processor),
                        s.per_processor * pf,
                    ),
                    term(
                        format!("C2·N_subpages = {}·{n} (§5.4)", s.per_subpage),
                        s.per_subpage * n as f64,
                    ),
                    term(
                        format!(
                            "ring:1 contention at distance {distance}: ×{slowdown:.4} (Table 3)"
                        ),
                        base * (slowdown - 1.0),
                    ),
                ]
            }
            Kind::Gather(GatherAlgorithm::Sequential) => {
                let f = m.gather.sequential;
                vec![
                    term("C0 (§5.5 algorithm 1)", f.c0),
                    term(format!("C1·N_procs = {}·{p}", f.per_x), f.per_x * pf),
                    term(
                        format!("C2·N_subpages = {}·{total}", f.per_subpage),
                        f.per_subpage * total as f64,
                    ),
                ]
            }
            Kind::Gather(GatherAlgorithm::Tree) => {
                let f = m.gather.tree;
                vec![
                    term("C0 (§5.5 algorithm 2)", f.c0),
                    term(
                        format!("C1·⌈log2 N_procs⌉ = {}·{stages}", f.per_x),
                        f.per_x * f64::from(stages),
                    ),
                    term(
                        format!("C2·N_subpages = {}·{total}", f.per_subpage),
                        f.per_subpage * total as f64,
                    ),
                ]
            }
            Kind::AllgatherGatherBcast => {
                let f = m.allgather.gather_bcast;
                vec![
                    term("C0 (§5.6 algorithm 1)", f.c0),
                    term(format!("C1·N_procs = {}·{p}", f.per_x), f.per_x * pf),
                    term(
                        format!("C2·N_subpages = {}·{total}", f.per_subpage),
                        f.per_subpage * total as f64,
                    ),
                ]
            }
            Kind::AllgatherTreeGatherBcast => {
                let f = m.allgather.tree_gather_bcast;
                vec![
                    term("C0 (§5.6 algorithm 2)", f.c0),
                    term(
                        format!("C5·⌈log2 N_procs⌉ = {}·{stages}", f.per_stage),
                        f.per_stage * f64::from(stages),
                    ),
                    term(
                        format!("C6·N_procs = {}·{p}", f.per_processor),
                        f.per_processor * pf,
                    ),
                    term(
                        format!("C7·N_subpages = {}·{total} (C7 estimated)", f.per_subpage),
                        f.per_subpage * total as f64,
                    ),
                ]
            }
            Kind::AllgatherCyclicShifts => {
                let f = m.allgather.cyclic_shifts;
                vec![
                    term("C0 (§5.6 algorithm 3)", f.c0),
                    term(format!("C1·N_procs = {}·{p}", f.per_x), f.per_x * pf),
                    term(
                        format!("C2·N_subpages = {}·{total}", f.per_subpage),
                        f.per_subpage * total as f64,
                    ),
                ]
            }
            Kind::Reduce(algorithm) => {
                let parts = m.reduce_parts(algorithm, p, n);
                let which = match algorithm {
                    GatherAlgorithm::Sequential => 1,
                    GatherAlgorithm::Tree => 2,
                };
                vec![
                    term(
                        format!("concatenate-one, algorithm {which}, of {total} subpages (§5.5)"),
                        parts.gather,
                    ),
                    term(
                        format!(
                            "root combines {} subpages (estimated {} ms/subpage)",
                            u64::from(p - 1) * n,
                            m.reduce_operation
                        ),
                        parts.operation,
                    ),
                    term(
                        format!("broadcast of {n} subpages over {ring} (§5.2)"),
                        parts.bcast,
                    ),
                ]
            }
        })
    }
}

impl Algorithm for KsrAlgorithm<'_> {
    fn name(&self) -> &'static str {
        match self.kind {
            Kind::Barrier => "global-barrier",
            Kind::Bcast => "concurrent-read",
            Kind::Shift => "ring-shift",
            Kind::Gather(GatherAlgorithm::Sequential) => "sequential-reads",
            Kind::Gather(GatherAlgorithm::Tree) => "binary-tree",
            Kind::AllgatherGatherBcast => "gather-bcast",
            Kind::AllgatherTreeGatherBcast => "tree-gather-bcast",
            Kind::AllgatherCyclicShifts => "cyclic-shifts",
            Kind::Reduce(GatherAlgorithm::Sequential) => "gather-op-bcast",
            Kind::Reduce(GatherAlgorithm::Tree) => "tree-gather-op-bcast",
        }
    }

    fn collective(&self) -> Collective {
        match self.kind {
            Kind::Barrier => Collective::Barrier,
            Kind::Bcast => Collective::Bcast,
            Kind::Shift => Collective::Shift,
            Kind::Gather(_) => Collective::Gather,
            Kind::AllgatherGatherBcast
            | Kind::AllgatherTreeGatherBcast
            | Kind::AllgatherCyclicShifts => Collective::Allgather,
            Kind::Reduce(_) => Collective::Reduce,
        }
    }

    fn summary(&self) -> &'static str {
        match self.kind {
            Kind::Barrier => "global barrier: about 270 µs within one ring:0 (seed 003 §5.1), estimated across ring:1",
            Kind::Bcast => "every node reads node 0's array at once; C0 + C1·N_subpages, ring:0 and ring:1 fits (seed 003 §5.2)",
            Kind::Shift => "cyclic shift by `distance` on the rings, C1·P + C2·N, slowed by ring:1 crossings (seed 003 §5.4, Table 3)",
            Kind::Gather(GatherAlgorithm::Sequential) => "concatenate-one algorithm 1: node 0 reads every node in turn (seed 003 §5.5)",
            Kind::Gather(GatherAlgorithm::Tree) => "concatenate-one algorithm 2: binary tree, data doubling at each of log2 P stages (seed 003 §5.5)",
            Kind::AllgatherGatherBcast => "concatenate-all algorithm 1: concatenate-one (algorithm 1) + broadcast (seed 003 §5.6)",
            Kind::AllgatherTreeGatherBcast => "concatenate-all algorithm 2: concatenate-one (algorithm 2) + broadcast, C7 estimated (seed 003 §5.6)",
            Kind::AllgatherCyclicShifts => "concatenate-all algorithm 3: N_procs − 1 cyclic shifts (seed 003 §5.6)",
            Kind::Reduce(GatherAlgorithm::Sequential) => "reduction: concatenate-one (algorithm 1) + operation at the root + broadcast (seed 003 §5.7)",
            Kind::Reduce(GatherAlgorithm::Tree) => "reduction: concatenate-one (algorithm 2) + operation at the root + broadcast (seed 003 §5.7)",
        }
    }

    fn space(&self, request: &Request, _: &SpaceOptions) -> Result<Space, ModelError> {
        self.model.check_request(request)?;
        Ok(match self.kind {
            Kind::Shift => Space::Grid(vec![IntRange::new(
                "distance",
                1,
                i64::from(request.threads()) - 1,
            )]),
            _ => Space::Fixed,
        })
    }

    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        let terms = self.terms(request, params)?;
        let ns: f64 = terms.iter().map(|t| t.min_ns).sum();
        let cost = Cost::exact(ns);
        let bytes = match self.kind {
            Kind::Barrier => return Ok(cost),
            Kind::Gather(_)
            | Kind::AllgatherGatherBcast
            | Kind::AllgatherTreeGatherBcast
            | Kind::AllgatherCyclicShifts => {
                u64::from(request.threads()).saturating_mul(request.size_bytes())
            }
            Kind::Bcast | Kind::Shift | Kind::Reduce(_) => request.size_bytes(),
        };
        Ok(cost.with_throughput(bytes as f64 / (ns * 1e-9)))
    }

    fn breakdown(&self, request: &Request, params: &Params) -> Result<Vec<Term>, ModelError> {
        self.terms(request, params)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::bundled;
    use super::*;

    fn request(collective: Collective, threads: u32, size: u64) -> Request {
        Request::new(collective, threads)
            .and_then(|r| r.with_size(size))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn find<'a>(algs: &'a [Box<dyn Algorithm + 'a>], name: &str) -> &'a dyn Algorithm {
        algs.iter()
            .find(|a| a.name() == name)
            .map(|a| a.as_ref())
            .unwrap_or_else(|| panic!("no {name}"))
    }

    #[test]
    fn names_are_unique_per_collective() {
        let ksr = bundled();
        let algs = all(&ksr);
        for a in &algs {
            let same = algs
                .iter()
                .filter(|b| b.collective() == a.collective() && b.name() == a.name())
                .count();
            assert_eq!(same, 1, "{}", a.name());
        }
    }

    #[test]
    fn bcast_cost_in_ns_with_throughput() {
        let ksr = bundled();
        let algs = all(&ksr);
        let bcast = find(&algs, "concurrent-read");
        let c = bcast
            .cost(&request(Collective::Bcast, 64, 16384), &Params::None)
            .unwrap();
        // 9.251 ms.
        assert!((c.min_ns - 9.251e6).abs() < 1e-3);
        assert!((c.throughput_bytes_per_s.unwrap() - 16384.0 / 9.251e-3).abs() < 1e-3);
    }

    #[test]
    fn shift_distance_is_a_checked_parameter() {
        let ksr = bundled();
        let algs = all(&ksr);
        let shift = find(&algs, "ring-shift");
        let r = request(Collective::Shift, 64, 16384);
        assert_eq!(
            shift.space(&r, &SpaceOptions::default()).unwrap(),
            Space::Grid(vec![IntRange::new("distance", 1, 63)])
        );
        for bad in [0, 64, -1] {
            assert!(shift.cost(&r, &Params::named([("distance", bad)])).is_err());
        }
        assert!(shift.cost(&r, &Params::None).is_err());
        let near = shift.cost(&r, &Params::named([("distance", 1)])).unwrap();
        let far = shift.cost(&r, &Params::named([("distance", 32)])).unwrap();
        assert!((far.min_ns / near.min_ns - 7.94 / 3.945).abs() < 1e-9);
    }

    #[test]
    fn bad_requests_are_errors() {
        let ksr = bundled();
        for alg in all(&ksr) {
            let params = if alg.name() == "ring-shift" {
                Params::named([("distance", 1)])
            } else {
                Params::None
            };
            let huge = request(alg.collective(), 1025, 128);
            assert!(matches!(
                alg.cost(&huge, &params),
                Err(ModelError::Threads { .. })
            ));
            let zero = request(alg.collective(), 8, 0);
            assert_eq!(
                alg.cost(&zero, &params).is_ok(),
                alg.collective() == Collective::Barrier,
                "{}",
                alg.name()
            );
            if alg.name() != "ring-shift" {
                assert!(alg
                    .cost(
                        &request(alg.collective(), 8, 128),
                        &Params::named([("k", 2)])
                    )
                    .is_err());
            }
        }
    }

    #[test]
    fn barrier_has_no_throughput() {
        let ksr = bundled();
        let algs = all(&ksr);
        let c = find(&algs, "global-barrier")
            .cost(&request(Collective::Barrier, 16, 0), &Params::None)
            .unwrap();
        assert_eq!(c.min_ns, 270_000.0);
        assert_eq!(c.throughput_bytes_per_s, None);
    }
}
