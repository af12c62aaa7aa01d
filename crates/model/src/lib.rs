//! # modelopt-model
//!
//! Analytical cost models of many-core machines, as published in the seed documents, and the
//! machine specifications that parametrize them.
//!
//! - [`spec`]: the TOML machine format common to all families (values with units and sources);
//! - [`machine`]: loading bundled or user machine files into checked models;
//! - [`request`]: what is asked (collective, threads, size, metric) and answered ([`Cost`]);
//! - [`algorithm`]: the [`Algorithm`] contract between a model family and the optimizer;
//! - [`cache_coherent`]: Xeon Phi and Sandy Bridge line-transfer, multi-line, contention and
//!   min-max collective models (seed 000, Ramos & Hoefler 2013).
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
pub mod error;
pub mod machine;
pub mod request;
pub mod spec;

pub use algorithm::{Algorithm, DegreeOrdering, IntRange, RoundsRule, Space, SpaceOptions, Term};
pub use error::{ModelError, SpecError};
pub use machine::Machine;
pub use request::{BufferStates, Collective, Cost, LineState, Metric, Params, Request};
