//! # modelopt-model
//!
//! Analytical cost models of many-core machines, as published in the seed documents, and the
//! machine specifications that parametrize them.
//!
//! - [`spec`]: the TOML machine format common to all families (values with units and sources);
//! - [`machine`]: loading bundled or user machine files into checked models;
//! - [`registry`]: the model families, one entry each (loader, bundled machines, capabilities);
//! - [`request`]: what is asked (collective, threads, size, metric) and answered ([`Cost`]);
//! - [`algorithm`]: the [`Algorithm`] contract between a model family and the optimizer;
//! - [`tree`], [`placed_tree`], [`socket_lines`]: rooted trees and the family-neutral contracts
//!   through which a family prices them placed on sockets and L3 domains, each cost written once;
//! - [`cache_coherent`]: Xeon Phi and Sandy Bridge line-transfer, multi-line, contention and
//!   min-max collective models (seed 000, Ramos & Hoefler 2013).
//! - [`cell`]: Cell BE chip, two-chip blade and blade cluster: extended PLogP with BIF contention
//!   and the barrier, broadcast, all-gather, reduce and all-reduce models (seed 002, Ali et al. 2010).
//! - [`ksr1`]: KSR-1 ALLCACHE latencies and the fitted ring:0/ring:1 models of barrier, broadcast,
//!   cyclic shift, concatenate-one/all and reduce (seed 003, Goil, Wang & Ranka).
//! - [`scc`]: Intel SCC mesh, put/get and RCCE models, OC-BCAST(k), binomial and scatter-allgather
//!   broadcasts, latency and throughput (seed 004, Petrović 2015, ch. 3-4).
//! - [`loggp`]: message-passing clusters under Hockney, LogP, LogGP or PLogP, and the bcast,
//!   barrier, reduce, allreduce and allgather algorithms of Open MPI, MPICH and UCC.
//!
//! ```
//! use modelopt_model::{machine, cache_coherent::CacheCoherent};
//! let phi = machine::load("xeon-phi").unwrap();
//! let model: &CacheCoherent = phi.model().unwrap();
//! // Seed 000, Table 1.5b: R_R = 235.8 ns between two cores of the ring.
//! assert_eq!(model.line.remote, 235.8);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod algorithm;
pub mod cache_coherent;
pub mod ccnuma;
pub mod cell;
pub mod dissemination;
pub mod error;
pub mod ksr1;
pub mod level_bound;
pub mod loggp;
pub mod machine;
pub mod perturb;
pub mod placed_tree;
pub mod registry;
pub mod request;
pub mod scc;
pub mod socket_lines;
pub mod spec;
pub mod tree;

pub use algorithm::{
    Algorithm, DegreeOrdering, IntRange, RoundsRule, Space, SpaceOptions, Term, ThreadPlacement,
    ValueList,
};
pub use error::{ModelError, SpecError};
pub use machine::Machine;
pub use request::{BufferStates, Collective, Cost, LineState, Metric, Params, Request};
