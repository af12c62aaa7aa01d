//! # modelopt-collectives
//!
//! Real shared-memory implementations of the collectives modelopt's models price, so that a
//! prediction can be checked against an execution and a collective author can call them:
//!
//! - [`bcast::OneLineBroadcast`]: the one-line broadcast over **any** rooted tree (seed 001,
//!   Fig. 1 and §4; `docs/cla.md`), with one many-to-one line per (node, socket holding
//!   children) when given a placement ([`bcast::OneLineBroadcast::with_sockets`]);
//! - [`barrier::DisseminationBarrier`]: the dissemination barrier of degree m (seed 000 §4.2,
//!   Fig. 4.3, Eq. 4.11);
//! - [`cla_dissemination::ClaDisseminationBarrier`]: the dissemination barrier that counts
//!   notifications on one line per thread and round, what modelopt prices as
//!   `cla-dissemination` on ccNUMA machines;
//! - [`tree_barrier::TreeBarrier`]: the tree barrier of `models/barrier.cla` over any rooted
//!   tree (arrival up on one many-to-one line per (node, child socket), release down on go
//!   flags), the barrier modelopt prices and recommends on ccNUMA machines;
//! - [`reduce::SmallTreeReduce`]: the small reduction up a tree (seed 000 §4.3, Eq. 4.13,
//!   Table B.3), what the `small-tree` model prices;
//! - [`cla_reduce::ClaTreeReduce`]: the reduction of `models/small-reduce.cla` over any rooted
//!   tree (ready flag, one slot line per child, one many-to-one line per (node, child socket)),
//!   the reduction modelopt prices (`cla-tree`) and recommends on ccNUMA machines.
//!
//! Every flag, counter and payload sits in its own 64-byte-aligned line (in a 128-byte slot, so
//! the adjacent-line prefetcher never pairs two of them). Every wait has a deadline ([`wait`]).
//! [`coherence`] puts the lines in the states each model assumes before every timed iteration
//! (x86_64 `clflush`; elsewhere it says it could not), and [`placement`] pins threads where a
//! machine model places them (thread i on a CPU of the package standing for its socket). [`shapes`] builds the trees the command line names (flat, k-ary, binomial,
//! level-degree), [`runner`] executes a collective many times on pinned threads, each iteration
//! started on a timestamp interval with the lines in their initial states and checked, and
//! [`stats`] summarizes the latencies (nearest-rank percentiles) and compares rankings
//! (Kendall's τ_b). `docs/run.md` describes the whole procedure.
//!
//! ```
//! use modelopt_collectives::{runner, shapes, Job};
//! use modelopt_model::ccnuma::tree::RootedTree;
//! // The binomial tree on 2 threads, 50 iterations, both threads on the first allowed CPU
//! // (oversubscribed, so this example runs anywhere).
//! let tree = RootedTree::from_parents(&shapes::binomial(2)).unwrap();
//! let cpus = runner::allowed_cpus().unwrap();
//! let cpus = runner::assign_cpus(2, &cpus[..1], true).unwrap();
//! let measured = runner::run(&Job::Broadcast(tree), &runner::RunOptions::new(2, 50, cpus)).unwrap();
//! assert_eq!(measured.samples_ns.len(), 50);
//! assert!(measured.summary().unwrap().min > 0.0);
//! ```
#![deny(missing_docs)]
// The only `unsafe` is the `clflush`/`mfence` intrinsics in `coherence`, allowed there alone.
#![deny(unsafe_code)]

pub mod barrier;
pub mod bcast;
pub mod cla_dissemination;
pub mod cla_reduce;
pub mod coherence;
mod many_to_one;
pub mod placement;
pub mod reduce;
pub mod runner;
pub mod shapes;
pub mod stats;
#[cfg(test)]
mod test_support;
pub mod tree_barrier;
pub mod wait;

pub use many_to_one::SocketsMismatch;
pub use runner::{Job, Measurement, RunError, RunOptions};
pub use shapes::Shape;
pub use stats::{kendall_tau_b, Summary};
