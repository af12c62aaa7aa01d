//! The errors of host discovery, pinning and benchmarking.

use std::path::PathBuf;

/// What went wrong while reading or measuring the host.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The platform has no topology this crate can read (not Linux, or no sysfs CPU tree).
    #[error("cannot read the CPU topology on this platform: {0}")]
    Unsupported(String),
    /// A sysfs or procfs file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A sysfs file held something that is not what the kernel documents.
    #[error("{path}: cannot parse {text:?}: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Its (trimmed) contents.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// A CPU list given by the user names a CPU that is not usable.
    #[error("CPU {cpu} is not usable here (usable CPUs: {usable})")]
    CpuNotUsable {
        /// The CPU.
        cpu: usize,
        /// The usable CPUs, as a list.
        usable: String,
    },
    /// A system call failed.
    #[error("{call} failed: {source}")]
    Sys {
        /// The call (`sched_setaffinity`, ...).
        call: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// A benchmark needs more CPUs than it was given.
    #[error("benchmark {benchmark} needs at least {needed} CPUs (got {got})")]
    TooFewCpus {
        /// The benchmark.
        benchmark: String,
        /// CPUs it needs.
        needed: usize,
        /// CPUs it got.
        got: usize,
    },
    /// A least-squares fit could not be done.
    #[error("cannot fit {model}: {reason}")]
    Fit {
        /// The model (`T_N = o·N + q − p/N`).
        model: String,
        /// Why.
        reason: String,
    },
    /// A measuring thread panicked or could not be spawned.
    #[error("benchmark thread failed: {0}")]
    Thread(String),
}
