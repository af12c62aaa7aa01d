//! The ccNUMA collectives as [`Algorithm`]s for the optimizer.
//!
//! | name | collective | free parameters | model |
//! |---|---|---|---|
//! | `cla-tree` | bcast | any rooted tree of the threads, with their sockets (or L3 domains) | seed 001 Fig. 1, Eq. (2), §4 placement |
//!
//! The space is [`Space::RootedTrees`]: the optimizer enumerates every rooted tree (or runs the
//! exact dynamic program) and places it on the sockets; [`Algorithm::cost`] prices one
//! [`Params::RootedTree`] with the closed form of [`super::bcast`].

use super::{Ccnuma, SyncLine};
use crate::algorithm::{Algorithm, Space, SpaceOptions, Term, ThreadPlacement};
use crate::error::ModelError;
use crate::placed_tree::{PlacedTreeCost, RootedTreeSpace};
use crate::request::{Collective, Cost, Params, Request};
use crate::tree::RootedTree;

/// Every algorithm of the family, borrowing the model.
///
/// The closed form of Eq. (2) holds where every group of children that shares a
/// synchronization line is priced alike: one line per socket on a machine whose socket is one L3
/// domain, or one line per L3 domain (`topology.sync_line = "domain"`, docs/cla.md §13), where
/// the labels of a placed tree are domains. On a chiplet machine with one line per socket the
/// adds of one line cross domains and the graph's cheapest visiting order depends on which
/// child arrives last, so the family offers nothing there; the graph crate's `.cla` broadcast
/// (priced by the CLa graph, which classifies every pair by its lowest common level) is the
/// broadcast of such machines.
pub fn all(model: &Ccnuma) -> Vec<Box<dyn Algorithm + '_>> {
    if model.topology.domains_per_socket > 1 && model.topology.sync_line == SyncLine::Socket {
        return Vec::new();
    }
    vec![Box::new(ClaTreeBroadcast::new(model))]
}

/// The one-line broadcast of seed 001 Figure 1 over an optimal rooted tree.
#[derive(Debug, Clone, Copy)]
pub struct ClaTreeBroadcast<'a> {
    model: &'a Ccnuma,
    root: u32,
    placement: ThreadPlacement,
}

impl<'a> ClaTreeBroadcast<'a> {
    /// Rooted at thread 0, threads placed by thread id.
    pub fn new(model: &'a Ccnuma) -> Self {
        ClaTreeBroadcast {
            model,
            root: 0,
            placement: ThreadPlacement::ByThreadId,
        }
    }

    /// The same algorithm rooted at another thread (`--root R`).
    pub fn with_root(mut self, root: u32) -> Self {
        self.root = root;
        self
    }

    fn check(&self, request: &Request) -> Result<(), ModelError> {
        let line = u64::from(self.model.topology.line_bytes);
        if request.size_bytes() > line {
            return Err(ModelError::SizeLimit {
                size_bytes: request.size_bytes(),
                limit_bytes: line,
                what: "the one cache line the one-line broadcast carries".into(),
            });
        }
        if self.root >= request.threads() {
            return Err(ModelError::Parameter {
                name: "root".into(),
                value: self.root.to_string(),
                reason: format!("must be a thread id below {}", request.threads()),
            });
        }
        Ok(())
    }

    /// The search space for a request.
    pub fn tree_space(&self, request: &Request) -> Result<RootedTreeSpace, ModelError> {
        self.check(request)?;
        Ok(RootedTreeSpace {
            threads: request.threads(),
            // Sockets, or L3 domains when each domain keeps its own line (docs/cla.md §13).
            thread_sockets: self.model.topology.groups_of(request.threads()),
            root_thread: self.root,
            pricing: std::sync::Arc::new(self.model.tree_costs()),
            capacity: match self.placement {
                ThreadPlacement::ByThreadId => None,
                ThreadPlacement::Optimal => {
                    Some(free_split_capacity(self.model, request.threads()))
                }
            },
        })
    }
}

/// How many of `threads` each group can hold when the split is free (`--placement optimal`):
/// the groups are the L3 domains, socket by socket (domain g mod D of socket g / D, D =
/// `domains_per_socket`; the sockets themselves when a socket is one domain), each holding its
/// cores while the request fits in one thread per core, its hardware threads otherwise.
pub fn free_split_capacity(model: &Ccnuma, threads: u32) -> Vec<u32> {
    let t = &model.topology;
    let per_core = if threads <= t.sockets.saturating_mul(t.cores_per_socket) {
        1
    } else {
        t.threads_per_core
    };
    let domains = t.domains_per_socket.max(1);
    vec![
        t.cores_per_domain().saturating_mul(per_core);
        (t.sockets.saturating_mul(domains)) as usize
    ]
}

/// The closed form of a placed tree, its failure named as the `sockets` parameter.
fn price(
    costs: &super::bcast::TreeCosts,
    tree: &RootedTree,
    sockets: &[u32],
) -> Result<Cost, ModelError> {
    costs
        .evaluate(tree, sockets)
        .map_err(|e| ModelError::Parameter {
            name: "sockets".into(),
            value: format!("{} entries", sockets.len()),
            reason: e.to_string(),
        })
}

/// The tree and the label of every node: its socket, or with one synchronization line per L3
/// domain its domain numbered across sockets (socket · D + domain).
fn placed_tree(
    model: &Ccnuma,
    request: &Request,
    params: &Params,
) -> Result<(RootedTree, Vec<u32>), ModelError> {
    let Params::RootedTree {
        parents,
        sockets,
        domains,
    } = params
    else {
        return Err(ModelError::WrongParams {
            algorithm: "cla-tree".into(),
            expected: "a rooted tree (parent array and sockets)".into(),
            got: crate::error::clip(&params.to_string()),
        });
    };
    let topology = &model.topology;
    let by_domain = topology.sync_line == SyncLine::Domain;
    if !domains.is_empty() && !by_domain {
        // Offered only where a socket is one L3 domain (above), so there is nothing to choose.
        return Err(ModelError::Parameter {
            name: "domain".into(),
            value: crate::error::clip(&format!("{domains:?}")),
            reason: format!(
                "{} has one L3 domain per socket, so the closed form of Eq. (2) takes no domains",
                model.name
            ),
        });
    }
    let tree = RootedTree::from_parents(parents).map_err(|e| ModelError::Parameter {
        name: "parent".into(),
        value: format!("{parents:?}"),
        reason: e.to_string(),
    })?;
    tree.expect_len(request.threads())
        .map_err(|e| ModelError::Parameter {
            name: "parent".into(),
            value: tree.nested(),
            reason: e.to_string(),
        })?;
    let expected = topology.sockets_of(request.threads());
    if domains.is_empty() && sockets == &expected {
        // Threads by id, where the machine places them.
        return Ok((tree, topology.groups_of(request.threads())));
    }
    // A placement chosen by the search (`--placement optimal`): any split the groups hold.
    let per_socket = if by_domain {
        topology.domains_per_socket.max(1)
    } else {
        1
    };
    let capacity = free_split_capacity(model, request.threads());
    let labels: Option<Vec<u32>> = if by_domain {
        (domains.len() == sockets.len())
            .then(|| {
                sockets
                    .iter()
                    .zip(domains)
                    .map(|(&s, &d)| {
                        (d < per_socket).then(|| s.saturating_mul(per_socket).saturating_add(d))
                    })
                    .collect()
            })
            .flatten()
    } else {
        Some(sockets.clone())
    };
    let mut used = vec![0u32; capacity.len()];
    let fits = labels.as_ref().is_some_and(|labels| {
        labels.len() == expected.len()
            && labels.iter().all(|&g| {
                used.get_mut(g as usize).is_some_and(|u| {
                    *u += 1;
                    true
                })
            })
            && used.iter().zip(&capacity).all(|(u, c)| u <= c)
    });
    match labels {
        Some(labels) if fits => Ok((tree, labels)),
        _ => Err(ModelError::Parameter {
            name: if by_domain { "domain" } else { "socket" }.into(),
            value: crate::error::clip(&format!("{sockets:?} {domains:?}")),
            reason: if by_domain {
                format!(
                    "one socket and one L3 domain (below {per_socket}) per thread, each domain holding at most {capacity:?} threads on {}",
                    model.name
                )
            } else {
                format!(
                    "one socket per thread, each socket holding at most {capacity:?} threads on {}",
                    model.name
                )
            },
        }),
    }
}

impl Algorithm for ClaTreeBroadcast<'_> {
    fn name(&self) -> &'static str {
        "cla-tree"
    }
    fn collective(&self) -> Collective {
        Collective::Bcast
    }
    fn summary(&self) -> &'static str {
        match self.model.topology.sync_line {
            SyncLine::Socket => {
                "one-line broadcast over any rooted tree placed on the sockets (seed 001, Fig. 1, Eq. 2)"
            }
            SyncLine::Domain => {
                "one-line broadcast over any rooted tree placed on the L3 domains, one synchronization line per domain (seed 001, Fig. 1, Eq. 2 over domains, docs/cla.md §13)"
            }
        }
    }
    fn space(&self, request: &Request, options: &SpaceOptions) -> Result<Space, ModelError> {
        // The request's options (`--root`, `--placement`) override the algorithm's defaults.
        let configured = ClaTreeBroadcast {
            root: options.root.unwrap_or(self.root),
            placement: options.placement,
            ..*self
        };
        Ok(Space::RootedTrees(configured.tree_space(request)?))
    }
    fn cost(&self, request: &Request, params: &Params) -> Result<Cost, ModelError> {
        self.check(request)?;
        let (tree, sockets) = placed_tree(self.model, request, params)?;
        price(&self.model.tree_costs(), &tree, &sockets)
    }
    fn breakdown(&self, request: &Request, params: &Params) -> Result<Vec<Term>, ModelError> {
        let (tree, sockets) = placed_tree(self.model, request, params)?;
        let costs = self.model.tree_costs();
        let k0 = tree.children(tree.root()).len() as u32;
        let root_socket = sockets[tree.root() as usize];
        let classes = crate::placed_tree::LineClasses::from(costs);
        let crossing = |across: bool| {
            (0..tree.len() as u32)
                .filter(|&v| {
                    tree.parent(v).is_some_and(|p| {
                        let (a, b) = (sockets[p as usize], sockets[v as usize]);
                        a != b && (classes.socket_of(a) != classes.socket_of(b)) == across
                    })
                })
                .count()
        };
        let remote_edges = crossing(true);
        let domain_edges = crossing(false);
        let by_domain = self.model.topology.sync_line == SyncLine::Domain;
        let (group, per_group, group_cores) = if by_domain {
            (
                "L3 domain",
                "one sync line per L3 domain (docs/cla.md §13)",
                self.model.topology.cores_per_domain() as usize,
            )
        } else {
            (
                "socket",
                "one sync line per socket",
                self.model.topology.cores_per_socket as usize,
            )
        };
        let total = price(&costs, &tree, &sockets)?;
        // The root's level as placed: a star over the root's children on their sockets (one
        // synchronization line per socket), without the subtrees below them.
        let children = tree.children(tree.root());
        let star_parents: Vec<Option<u32>> = std::iter::once(None)
            .chain(children.iter().map(|_| Some(0)))
            .collect();
        let star_sockets: Vec<u32> = std::iter::once(root_socket)
            .chain(children.iter().map(|&c| sockets[c as usize]))
            .collect();
        let star = RootedTree::from_parents(&star_parents).map_err(|e| ModelError::Parameter {
            name: "tree".into(),
            value: format!("root level of {} children", children.len()),
            reason: e.to_string(),
        })?;
        let level = price(&costs, &star, &star_sockets)?;
        let mut terms = vec![
            Term {
                label: format!(
                    "T_lev(k_0 = {k0}) = T_o2m + T_data + T_m2o of the root's level as placed, {per_group} (Eq. 2); root on {group} {root_socket}"
                ),
                min_ns: level.min_ns,
                max_ns: level.max_ns,
            },
            Term {
                label: if by_domain {
                    format!(
                        "R_L + max over subtrees (Eq. 2), {remote_edges} inter-socket edge(s) in the tree at R_Q (seed 001 §4), {domain_edges} between L3 domains of one socket at R_D"
                    )
                } else {
                    format!(
                        "R_L + max over subtrees (Eq. 2), {remote_edges} inter-socket edge(s) in the tree at R_Q (seed 001 §4)"
                    )
                },
                min_ns: total.min_ns - level.min_ns,
                max_ns: total.max_ns - level.max_ns,
            },
        ];
        // Threads of a socket take its cores in order, then the cores' next hardware threads
        // (the machine's placement, and a free split's), so a socket with more threads than
        // cores puts the excess on cores that already hold one.
        // (Per L3 domain when the labels are domains.)
        let cores = group_cores;
        let groups = sockets.iter().max().map_or(1, |&g| g as usize + 1);
        let mut per_group = vec![0usize; groups];
        for &s in &sockets {
            if let Some(c) = per_group.get_mut(s as usize) {
                *c += 1;
            }
        }
        let shared: usize = per_group.iter().map(|&c| c.saturating_sub(cores)).sum();
        if shared > 0 {
            terms.push(Term {
                label: format!(
                    "note: {shared} thread(s) share a core with another; Eq. (2) prices their transfers as between two cores (R_R), the CLa graph at R_L, so this cost is an upper bound of the graph's (docs/cla.md §7)"
                ),
                min_ns: 0.0,
                max_ns: 0.0,
            });
        }
        Ok(terms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine;

    #[test]
    fn with_one_line_per_domain_cla_tree_prices_domains() {
        // chiplet-2s-4x8-domain-lines (R_L 1.43, R_R 35, R_D 164.5, R_I 122 ns), tree 0(1,2).
        let m = machine::load("chiplet-2s-4x8-domain-lines").unwrap();
        let algorithms = m.algorithms_for(Collective::Bcast);
        let a = algorithms.iter().find(|a| a.name() == "cla-tree").unwrap();
        let request = Request::new(Collective::Bcast, 3).unwrap();
        let params = |sockets: Vec<u32>, domains: Vec<u32>| Params::RootedTree {
            parents: vec![None, Some(0), Some(0)],
            sockets,
            domains,
        };
        // By id, all three in domain 0: R_L + R_I + R_R + R_L + R_I + 2 R_R (one line, two
        // adds) + R_R (the root's read) = 351.86 ns.
        let by_id = a.cost(&request, &params(vec![0; 3], Vec::new())).unwrap();
        assert!((by_id.min_ns - 351.86).abs() < 1e-9, "{by_id:?}");
        // Thread 2 in domain 1 of socket 0: 575.86 ns (by hand in crates/graph/tests/
        // one_line_bcast.rs, with_one_line_per_l3_domain_a_broadcast_by_hand_pays_r_d_once).
        let split = a
            .cost(&request, &params(vec![0; 3], vec![0, 0, 1]))
            .unwrap();
        assert!((split.min_ns - 575.86).abs() < 1e-9, "{split:?}");
        // A domain the socket does not have, a socket far out of range, a missing domain list
        // with a placement other than by id: refused, never a panic.
        for (sockets, domains) in [
            (vec![0, 0, 0], vec![0, 0, 4]),
            (vec![0, 0, u32::MAX], vec![0, 0, 3]),
            (vec![0, 0, 1], Vec::new()),
            (vec![0, 0, 0], vec![0, 0]),
        ] {
            let e = a.cost(&request, &params(sockets, domains)).unwrap_err();
            assert!(e.to_string().contains("domain"), "{e}");
        }
        assert!(a.summary().contains("L3 domains"));
    }

    #[test]
    fn cla_tree_prices_a_placed_tree() {
        let m = machine::load("sandy-bridge-e5-2660").unwrap();
        let algorithms = m.algorithms_for(Collective::Bcast);
        let a = algorithms.iter().find(|a| a.name() == "cla-tree").unwrap();
        let request = Request::new(Collective::Bcast, 4).unwrap();
        let tree = RootedTree::parse("0(1(3),2)").unwrap();
        let params = Params::RootedTree {
            parents: tree.parents().to_vec(),
            sockets: vec![0; 4],
            domains: Vec::new(),
        };
        let cost = a.cost(&request, &params).unwrap();
        assert!((cost.min_ns - 461.9).abs() < 1e-9);
        // A placement the search chose (`--placement optimal`) is priced as given: node 1 on
        // socket 1 makes the edge 0 -> 1 and 1 -> 3 remote.
        let chosen = Params::RootedTree {
            parents: tree.parents().to_vec(),
            sockets: vec![0, 1, 0, 0],
            domains: Vec::new(),
        };
        assert!(a.cost(&request, &chosen).unwrap().min_ns > cost.min_ns);
        // The E5-2660 has no socket 2.
        let wrong = Params::RootedTree {
            parents: tree.parents().to_vec(),
            sockets: vec![0, 2, 0, 0],
            domains: Vec::new(),
        };
        assert!(a.cost(&request, &wrong).is_err());
        // Domains on a machine whose socket is one L3 domain are refused, not ignored.
        let domains = Params::RootedTree {
            parents: tree.parents().to_vec(),
            sockets: vec![0; 4],
            domains: vec![0, 1, 0, 0],
        };
        assert!(a.cost(&request, &domains).is_err());
        assert!(matches!(
            a.space(&request, &SpaceOptions::default()).unwrap(),
            Space::RootedTrees(_)
        ));
        let json = serde_json::to_string(&params).unwrap();
        assert_eq!(
            json,
            r#"{"parent":[-1,0,0,1],"tree":"0(1(3),2)","socket":[0,0,0,0]}"#
        );
        assert_eq!(params.to_string(), "tree=0(1(3),2) sockets=0,0,0,0");
        // Domains, when given, follow the sockets in both forms.
        assert_eq!(
            serde_json::to_string(&domains).unwrap(),
            r#"{"parent":[-1,0,0,1],"tree":"0(1(3),2)","socket":[0,0,0,0],"domain":[0,1,0,0]}"#
        );
        assert_eq!(
            domains.to_string(),
            "tree=0(1(3),2) sockets=0,0,0,0 domains=0,1,0,0"
        );
    }
}
