//! The SCC broadcasts of seed 004 as [`Algorithm`]s for the optimizer.
//!
//! | name | collective | free parameters | latency | throughput |
//! |---|---|---|---|---|
//! | `oc-bcast` | bcast | k, 1 ≤ k ≤ min(P−1, 24) | Eqs. 4.17–4.21 (+ pipeline beyond 2 chunks) | Eq. 4.23 per chunk |
//! | `binomial` | bcast | – | Eq. 4.22 | bytes / Eq. 4.22 |
//! | `scatter-allgather` | bcast | – | Eq. 4.24 | bytes / Eq. 4.24 |
//!
//! Every cost carries both a latency and a throughput; the optimizer ranks by the one the
//! request's metric names. Requests need 2 ≤ threads ≤ 48 (the mesh's cores) and at least one
//! byte.
//!
//! # Validity
//!
//! The seed's put/get model is contention-free, and the seed measured it valid for up to 24
//! cores reading one MPB at once (seed 004 §4.1.3, Fig. 4.3: "up to 24 cores accessing the same
//! MPB do not create any measurable contention. With more than 24 … diverges from the
//! established model"). In OC-BCAST the k children of a node read its MPB together, so an
//! `oc-bcast` with k > [`CONTENTION_FREE_READERS`] is priced as
//! [`ModelError::OutsideValidity`]: the search skips it instead of recommending a configuration
//! whose number the model cannot stand behind (at 96 lines the unchecked model would pick
//! k = 47, which the seed measured ≈ 16 % below the prediction). The space still spans
//! `1..=P−1`, so a pinned `k = 47` is reported with this reason rather than as "no such
//! configuration"; the formula functions of [`super::bcast`] still accept any k, for the seed's
//! Table 4.2 comparison.

use super::Scc;
use crate::algorithm::{Algorithm, IntRange, Space, SpaceOptions, Term};
use crate::error::ModelError;
use crate::request::{Collective, Cost, Params, Request};

/// Up to this many cores reading one MPB at once show no measurable contention (seed 004 §4.1.3,
/// Fig. 4.3); beyond it the contention-free model is optimistic.
pub const CONTENTION_FREE_READERS: u32 = 24;

/// `Err(OutsideValidity)` when `k` children would read one MPB at once beyond what the
/// contention-free model covers (seed 004 §4.1.3).
pub fn check_contention_free(k: u32) -> Result<(), ModelError> {
    if k > CONTENTION_FREE_READERS {
        return Err(ModelError::OutsideValidity {
            reason: format!(
                "oc-bcast with k = {k}: {k} cores read one MPB at once, and the contention-free \
                 model holds for at most {CONTENTION_FREE_READERS} (seed 004 §4.1.3, Fig. 4.3)"
            ),
        });
    }
    Ok(())
}

/// Every algorithm of the family, borrowing the model.
pub fn all(model: &Scc) -> Vec<Box<dyn Algorithm + '_>> {
    vec![
        Box::new(OcBcast(model)),
        Box::new(BinomialBcast(model)),
        Box::new(ScatterAllgather(model)),
    ]
}

const US_TO_NS: f64 = 1e3;

fn cost_from_us(latency_us: f64, bytes: u64, stream_us: f64) -> Cost {
    Cost::exact(latency_us * US_TO_NS).with_throughput(bytes as f64 / (stream_us * 1e-6))
}

fn term(label: impl Into<String>, us: f64) -> Term {
    Term {
        label: label.into(),
        min_ns: us * US_TO_NS,
        max_ns: us * US_TO_NS,
    }
}

fn no_params(name: &str, params: &Params) -> Result<(), ModelError> {
    match params {
        Params::None => Ok(()),
        Params::Named(map) if map.is_empty() => Ok(()),
        other => Err(ModelError::WrongParams {
            algorithm: name.into(),
            expected: "no free parameter".into(),
            got: crate::error::clip(&other.to_string()),
        }),
    }
}

/// OC-BCAST (seed 004 §3.1, §4.3): a k-ary data tree over the MPBs with binary notification
/// trees, chunks of `M_oc` lines, double buffering.
#[derive(Debug, Clone, Copy)]
pub struct OcBcast<'a>(pub &'a Scc);

impl OcBcast<'_> {
    /// The degree `k` of `params`, checked against `1 ≤ k ≤ P − 1`.
    pub fn degree(&self, request: &Request, params: &Params) -> Result<u32, ModelError> {
        let Params::Named(map) = params else {
            return Err(ModelError::WrongParams {
                algorithm: "oc-bcast".into(),
                expected: "the tree degree k (e.g. k=7)".into(),
                got: crate::error::clip(&params.to_string()),
            });
        };
        if let Some(other) = map.keys().find(|name| name.as_str() != "k") {
            return Err(ModelError::Parameter {
                name: other.clone(),
                value: map.get(other).map_or_else(String::new, i64::to_string),
                reason: "oc-bcast has one parameter, k".into(),
            });
        }
        let k = *map.get("k").ok_or_else(|| ModelError::MissingParameter {
            algorithm: "oc-bcast".into(),
            name: "k".into(),
            example: "k=7".into(),
        })?;
        let p = i64::from(request.threads());
        if k < 1 || k >= p {
            return Err(ModelError::Parameter {
                name: "k".into(),
                value: k.to_string(),
                reason: format!(
                    "the data tree degree must be between 1 and P−1 = {} (seed 004 §3.1)",
                    p - 1
                ),
            });
        }
        u32::try_from(k).map_err(|_| ModelError::Parameter {
            name: "k".into(),
            value: k.to_string(),
            reason: "out of range".into(),
        })
    }
}

impl Algorithm for OcBcast<'_> {
    fn name(&self) -> &'static str {
        "oc-bcast"
    }
    fn collective(&self) -> Collective {
        Collective::Bcast
    }
    fn summary(&self) -> &'static str {
        "OC-BCAST: k-ary tree of one-sided gets through the MPBs, binary notification trees, 96-line double-buffered chunks (seed 004, Eqs. 4.17-4.21, 4.23)"
    }
    fn space(&self, request: &Request, _: &SpaceOptions) -> Result<Space, ModelError> {
        self.0.check_request(request)?;
        Ok(Space::Grid(vec![IntRange::new(
            "k",
            1,
            i64::from(request.threads()) - 1,
        )]))
    }
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        let m = self.0.check_request(request)?;
        let k = self.degree(request, params)?;
        check_contention_free(k)?;
        let p = request.threads();
        Ok(cost_from_us(
            self.0.oc_latency(p, m, k),
            request.size_bytes(),
            self.0.oc_stream_time(p, m, k),
        ))
    }
    fn breakdown(&self, request: &Request, params: &Params) -> Result<Vec<Term>, ModelError> {
        let m = self.0.check_request(request)?;
        let k = self.degree(request, params)?;
        check_contention_free(k)?;
        let p = request.threads();
        let parts = self.0.oc_latency_parts(p, m, k);
        let chunk = m.min(self.0.oc_chunk_lines);
        let mut terms = vec![
            term(
                format!(
                    "T_chunk_root: put {chunk} lines into the root's MPB + notify ⌈log2 {k}⌉ levels (Eq. 4.19)"
                ),
                parts.root,
            ),
            term(
                format!(
                    "(D−2)·T_chunk_intermediate with D = {} (Eqs. 4.18, 4.20)",
                    parts.depth
                ),
                parts.intermediates,
            ),
            term(
                "max(T_chunk_leaf, C_get^mem + L_polling_children) of the first chunk (Eq. 4.21)",
                parts.first_tail,
            ),
        ];
        if parts.middle_chunks > 0 {
            terms.push(term(
                format!(
                    "{} middle chunks × pipeline period (Eq. 4.23 denominator; docs/scc.md extension)",
                    parts.middle_chunks
                ),
                parts.middle_chunks as f64 * parts.period,
            ));
        }
        if parts.last_tail > 0.0 {
            terms.push(term(
                "tail of the last chunk (second chunk of Eq. 4.21)",
                parts.last_tail,
            ));
        }
        let period = self.0.oc_period(p, self.0.oc_chunk_lines, k);
        terms.push(term(
            "throughput: C_chunk_root per full chunk (Eq. 4.23)",
            period.root,
        ));
        if let Some(int) = period.intermediate {
            terms.push(term(
                "throughput: C_chunk_intermediate per full chunk (Eq. 4.23)",
                int,
            ));
        }
        terms.push(term(
            "throughput: C_chunk_leaf per full chunk (Eq. 4.23)",
            period.leaf,
        ));
        Ok(terms)
    }
}

/// The two-sided binomial tree of RCCE_comm (seed 004 §3.3.2, Eq. 4.22).
#[derive(Debug, Clone, Copy)]
pub struct BinomialBcast<'a>(pub &'a Scc);

impl Algorithm for BinomialBcast<'_> {
    fn name(&self) -> &'static str {
        "binomial"
    }
    fn collective(&self) -> Collective {
        Collective::Bcast
    }
    fn summary(&self) -> &'static str {
        "RCCE_comm binomial tree of two-sided send/receive, later senders forwarding from cache (seed 004, Eq. 4.22)"
    }
    fn space(&self, request: &Request, _: &SpaceOptions) -> Result<Space, ModelError> {
        self.0.check_request(request)?;
        Ok(Space::Fixed)
    }
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        no_params(self.name(), params)?;
        let m = self.0.check_request(request)?;
        let t = self.0.binomial_latency(request.threads(), m);
        Ok(cost_from_us(t, request.size_bytes(), t))
    }
    fn breakdown(&self, request: &Request, params: &Params) -> Result<Vec<Term>, ModelError> {
        no_params(self.name(), params)?;
        let m = self.0.check_request(request)?;
        let rcce = self.0.rcce();
        let levels = crate::algorithm::ceil_log(2, u64::from(request.threads()));
        Ok(vec![
            term(
                format!("C_sr({m}): the root's send from memory (Eq. 4.22)"),
                rcce.send_recv(m),
            ),
            term(
                format!(
                    "(⌈log2 P⌉−1)·C_sr_cache({m}) = {}·{:.3} µs forwards from cache (Eq. 4.22)",
                    levels.saturating_sub(1),
                    rcce.send_recv_cached(m)
                ),
                f64::from(levels.saturating_sub(1)) * rcce.send_recv_cached(m),
            ),
        ])
    }
}

/// The two-sided scatter-allgather of RCCE_comm (seed 004 §3.3.2, Eq. 4.24).
#[derive(Debug, Clone, Copy)]
pub struct ScatterAllgather<'a>(pub &'a Scc);

impl Algorithm for ScatterAllgather<'_> {
    fn name(&self) -> &'static str {
        "scatter-allgather"
    }
    fn collective(&self) -> Collective {
        Collective::Bcast
    }
    fn summary(&self) -> &'static str {
        "RCCE_comm binomial scatter of P slices then Bruck ring allgather, two-sided (seed 004, Eq. 4.24)"
    }
    fn space(&self, request: &Request, _: &SpaceOptions) -> Result<Space, ModelError> {
        self.0.check_request(request)?;
        Ok(Space::Fixed)
    }
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        no_params(self.name(), params)?;
        let m = self.0.check_request(request)?;
        let t = self.0.scatter_allgather(request.threads(), m);
        Ok(cost_from_us(t, request.size_bytes(), t))
    }
    fn breakdown(&self, request: &Request, params: &Params) -> Result<Vec<Term>, ModelError> {
        no_params(self.name(), params)?;
        let m = self.0.check_request(request)?;
        let p = request.threads();
        let slice = Scc::slice_lines(p, m);
        Ok(vec![
            term(
                format!("C_scat(P, m_s = {slice} lines): binomial scatter (§4.3.2)"),
                self.0.scatter(p, slice),
            ),
            term(
                format!(
                    "C_allgath(P, m_s) = C_sr + (2P−3)·C_sr_cache, 2P−3 = {}",
                    2 * p - 3
                ),
                self.0.allgather(p, slice),
            ),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::bundled;
    use super::*;

    fn request(threads: u32, size: u64) -> Request {
        Request::new(Collective::Bcast, threads)
            .and_then(|r| r.with_size(size))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn oc_bcast_space_is_k_from_1_to_p_minus_1() {
        let scc = bundled();
        let space = OcBcast(&scc)
            .space(&request(48, 3072), &SpaceOptions::default())
            .unwrap();
        assert_eq!(space, Space::Grid(vec![IntRange::new("k", 1, 47)]));
    }

    #[test]
    fn bad_degrees_are_errors() {
        let scc = bundled();
        let oc = OcBcast(&scc);
        let r = request(48, 3072);
        for k in [0, 48, 100, -3] {
            let err = oc.cost(&r, &Params::named([("k", k)])).unwrap_err();
            assert!(
                matches!(err, ModelError::Parameter { ref name, .. } if name == "k"),
                "{err}"
            );
        }
        assert!(oc.cost(&r, &Params::None).is_err());
        assert!(oc.cost(&r, &Params::named([("k", 7), ("x", 1)])).is_err());
        assert!(oc.cost(&r, &Params::named([("k", 7)])).is_ok());
    }

    #[test]
    fn impossible_requests_are_errors() {
        let scc = bundled();
        for alg in all(&scc) {
            let params = if alg.name() == "oc-bcast" {
                Params::named([("k", 1)])
            } else {
                Params::None
            };
            let zero = request(48, 0);
            assert!(alg.cost(&zero, &params).is_err(), "{}", alg.name());
            assert!(alg.space(&zero, &SpaceOptions::default()).is_err());
            let too_many = request(49, 64);
            let err = alg.cost(&too_many, &params).unwrap_err();
            assert!(matches!(err, ModelError::Threads { .. }), "{err}");
        }
    }

    #[test]
    fn costs_carry_latency_and_throughput() {
        let scc = bundled();
        let r = request(48, 3072);
        let c = OcBcast(&scc).cost(&r, &Params::named([("k", 7)])).unwrap();
        // 96 lines, k = 7: 37.603 + 30.212 + 85.150 = 152.965 µs (docs/scc.md).
        assert!((c.min_ns - 152_965.0).abs() < 1e-6, "{}", c.min_ns);
        // One full chunk streams at Eq. 4.23's 34.30 MB/s (Table 4.2).
        let t = c.throughput_bytes_per_s.unwrap();
        assert!((t / 1e6 - 34.30).abs() < 0.005, "{t}");
        let b = BinomialBcast(&scc).cost(&r, &Params::None).unwrap();
        assert!(b.min_ns > c.min_ns);
        let s = ScatterAllgather(&scc).cost(&r, &Params::None).unwrap();
        assert!((s.throughput_bytes_per_s.unwrap() - 3072.0 / (s.min_ns * 1e-9)).abs() < 1e-3);
    }

    #[test]
    fn breakdowns_sum_to_the_latency() {
        let scc = bundled();
        for size in [32, 3072, 6144, 100_000] {
            let r = request(48, size);
            for k in [1, 2, 7, 24] {
                let params = Params::named([("k", k)]);
                let cost = OcBcast(&scc).cost(&r, &params).unwrap();
                let sum: f64 = OcBcast(&scc)
                    .breakdown(&r, &params)
                    .unwrap()
                    .iter()
                    .filter(|t| !t.label.starts_with("throughput"))
                    .map(|t| t.min_ns)
                    .sum();
                assert!((sum - cost.min_ns).abs() < 1e-6, "k={k} size={size}");
            }
            for alg in [
                &BinomialBcast(&scc) as &dyn Algorithm,
                &ScatterAllgather(&scc),
            ] {
                let cost = alg.cost(&r, &Params::None).unwrap();
                let sum: f64 = alg
                    .breakdown(&r, &Params::None)
                    .unwrap()
                    .iter()
                    .map(|t| t.min_ns)
                    .sum();
                assert!(
                    (sum - cost.min_ns).abs() < 1e-6,
                    "{} size={size}",
                    alg.name()
                );
            }
        }
    }

    #[test]
    fn more_than_24_readers_of_one_mpb_are_outside_validity() {
        // Seed 004 §4.1.3: the contention-free model holds for up to 24 readers of one MPB.
        let scc = bundled();
        let r = request(48, 32);
        assert!(OcBcast(&scc).cost(&r, &Params::named([("k", 24)])).is_ok());
        for k in [25, 47] {
            let params = Params::named([("k", k)]);
            for err in [
                OcBcast(&scc).cost(&r, &params).unwrap_err(),
                OcBcast(&scc).breakdown(&r, &params).unwrap_err(),
            ] {
                assert!(matches!(err, ModelError::OutsideValidity { .. }), "{err}");
                assert!(err.to_string().contains("§4.1.3"), "{err}");
            }
        }
    }
}
