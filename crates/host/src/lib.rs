//! The host modelopt runs on: what its CPUs are, how to pin threads to them, and what moving a
//! cache line between them costs.
//!
//! - [`topology`]: Linux topology discovery from sysfs — sockets, last-level-cache (L3) domains,
//!   cores, hardware threads, NUMA nodes — plus the signs of a virtual machine and of a cgroup
//!   limit. Every reader takes a root path, so tests run on fake sysfs trees.
//! - [`affinity`]: the CPUs this process may use and thread pinning (`sched_setaffinity`).
//! - [`mem`]: cache-line-aligned buffers and the operations that force M, E, S, I.
//! - [`bench`](mod@bench): the seeds' benchmarks (seed 000 §1.3.1, ch. 2–3; seed 001 §2), each pinned, with
//!   warm-up, states forced before every sample, and the timer's overhead subtracted.
//! - [`stats`]: medians, MADs, quartiles, robust CV, and least-squares fits (nalgebra SVD) of the
//!   seeds' models with R².
//!
//! `modelopt calibrate` (the CLI) puts these together into a machine file; `docs/calibration.md`
//! explains each benchmark and what a virtual machine does to its numbers.
//!
//! ```
//! use modelopt_host::stats::Summary;
//! let s = Summary::of(&[3.0, 1.0, 2.0]).unwrap();
//! assert_eq!((s.median, s.mad), (2.0, 1.0));
//! ```
#![deny(missing_docs)]

pub mod affinity;
pub mod bench;
pub mod error;
pub mod mem;
pub mod memory;
pub mod stats;
pub mod topology;

pub use error::HostError;
pub use topology::{LocationClass, Topology};
