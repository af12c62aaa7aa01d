//! Tuning files for real MPI libraries, written from modelopt's decisions.
//!
//! The [`table`] module fills a neutral [`DecisionTable`] (collective → communicator-size ranges →
//! message-size ranges → algorithm and parameters) by asking the tuner over a grid and merging
//! equal neighbours. Each writer module turns that table into one library's file:
//!
//! | target | module | library |
//! |---|---|---|
//! | `ompi-rules` | [`ompi`] | Open MPI coll/tuned classic dynamic rules (4.x, 5.x) |
//! | `ompi-rules-v2` | [`ompi`] | the same with `rule-file-version-2` (Open MPI ≥ 5.0.7) |
//! | `ompi-json` | [`ompi`] | coll/tuned JSON rules (Open MPI 6) |
//! | `mpich-json` | [`mpich`] | MPICH JSON collective selection (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`) |
//! | `ucc-tune` | [`ucc`] | UCC `UCC_TL_UCP_TUNE` string |
//! | `json` | [`json`] | the whole decision table, for other tools |
//!
//! Each writer maps the model's algorithm names through ONE table in its module, every row
//! citing the library source file it comes from. A name a target cannot express is an
//! [`ExportError::Unmapped`]; a parameter it cannot set per rule is written as a comment and
//! returned in [`Output::warnings`].
//!
//! ```
//! use modelopt_export::{merge_grid, Decision, Provenance, ompi};
//! let ranks = [2, 4];
//! let sizes = [0, 1024];
//! let cells = vec![
//!     vec![Decision::new("binomial", []), Decision::new("binomial", [])],
//!     vec![Decision::new("binomial", []), Decision::new("pipeline", [("segment", 8192)])],
//! ];
//! let comms = merge_grid(&ranks, &sizes, &cells).unwrap();
//! assert_eq!(comms.len(), 2);
//! let table = modelopt_export::DecisionTable {
//!     machine: "m".into(),
//!     machine_file: "m.toml".into(),
//!     collectives: vec![modelopt_export::CollectiveTable {
//!         collective: modelopt_model::Collective::Bcast,
//!         comms,
//!     }],
//!     notes: vec![],
//! };
//! let prov = Provenance::new("modelopt export ompi-rules", &table, "2026-01-01T00:00:00Z");
//! let out = ompi::write_classic(&table, &prov).unwrap();
//! assert!(out.text.contains("1024 3 0 8192"));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod json;
pub mod mpich;
pub mod ompi;
mod ordered;
pub mod table;
pub mod ucc;

pub use table::{
    fill, merge_grid, CollectiveTable, CommRule, Decision, DecisionTable, Grid, SizeRule,
};

use modelopt_model::Collective;

/// Why an export failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// The grid asked for is not usable.
    #[error("grid: {0}")]
    Grid(String),
    /// The tuner could not answer for one grid cell.
    #[error("{collective} at {ranks} ranks, {size} B: {reason}")]
    Cell {
        /// Collective.
        collective: Collective,
        /// Communicator size.
        ranks: u32,
        /// Message size in bytes.
        size: u64,
        /// The tuner's reason.
        reason: String,
    },
    /// The target has no equivalent of an algorithm.
    #[error("{target} has no equivalent of the {collective} algorithm `{algorithm}`{hint}")]
    Unmapped {
        /// Target name (`ompi-rules`, ...).
        target: &'static str,
        /// Collective.
        collective: Collective,
        /// The model's algorithm name.
        algorithm: String,
        /// What to do about it (starts with "; " when not empty).
        hint: String,
    },
    /// The target has no rules for this collective at all.
    #[error("{target} cannot express {collective} rules")]
    UnsupportedCollective {
        /// Target name.
        target: &'static str,
        /// Collective.
        collective: Collective,
    },
    /// A size does not fit the target's number format.
    #[error("{target}: {what} does not fit the file format")]
    Overflow {
        /// Target name.
        target: &'static str,
        /// What overflowed.
        what: String,
    },
}

/// What produced a file, from which machine file, and when: the header every file carries where
/// its format allows comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The producing command (`modelopt 0.1.0 export ompi-rules --ranks 2..=64 ...`).
    pub tool: String,
    /// Machine name.
    pub machine: String,
    /// Machine file.
    pub machine_file: String,
    /// Generation time, UTC, RFC 3339 (injected so tests are deterministic).
    pub generated_utc: String,
}

impl Provenance {
    /// The provenance of `table`, produced by `tool` at `generated_utc`.
    pub fn new(tool: &str, table: &DecisionTable, generated_utc: &str) -> Self {
        Provenance {
            tool: tool.to_string(),
            machine: table.machine.clone(),
            machine_file: table.machine_file.clone(),
            generated_utc: generated_utc.to_string(),
        }
    }

    /// The header as lines (without a comment marker).
    pub fn lines(&self) -> Vec<String> {
        vec![
            format!("Generated by {}", self.tool),
            format!("Machine: {} (file {})", self.machine, self.machine_file),
            format!("Generated at {} (UTC)", self.generated_utc),
        ]
    }
}

/// A written file and the warnings its writer has for the user (also written into the file as
/// comments where the format allows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The file's text.
    pub text: String,
    /// Warnings, sorted and without duplicates.
    pub warnings: Vec<String>,
}

/// A UTC time as RFC 3339 (`2023-11-14T22:13:20Z`) from seconds since the Unix epoch.
///
/// Uses the days-to-civil conversion of H. Hinnant, "chrono-Compatible Low-Level Date
/// Algorithms" (2013), `civil_from_days`.
pub fn utc_rfc3339(unix_seconds: u64) -> String {
    let days = unix_seconds / 86_400;
    let rem = unix_seconds % 86_400;
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    // civil_from_days with z = days since 1970-01-01, shifted to the era starting 0000-03-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = if month <= 2 { y + 1 } else { y };
    format!("{year:04}-{month:02}-{d:02}T{h:02}:{m:02}:{s:02}Z")
}

/// Collect warnings: sorted, without duplicates.
pub(crate) fn sorted_unique(mut warnings: Vec<String>) -> Vec<String> {
    warnings.sort();
    warnings.dedup();
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_rfc3339_known_instants() {
        // 0 s is the epoch itself.
        assert_eq!(utc_rfc3339(0), "1970-01-01T00:00:00Z");
        // 1_700_000_000 s = 19675 days + 80000 s; 80000 s = 22 h 13 min 20 s; day 19675 after
        // 1970-01-01 is 2023-11-14 (the well-known "1.7 billion seconds" instant).
        assert_eq!(utc_rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        // 951_782_400 = 11016 days exactly: 2000-02-29, the leap day of a year divisible by 400.
        assert_eq!(utc_rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }
}

/// An export target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Open MPI classic rules (4.x, 5.x).
    OmpiRules,
    /// Open MPI `rule-file-version-2` (≥ 5.0.7).
    OmpiRulesV2,
    /// Open MPI 6 JSON rules.
    OmpiJson,
    /// MPICH JSON selection for a release line.
    MpichJson(mpich::MpichVersion),
    /// UCC `UCC_TL_UCP_TUNE`.
    UccTune,
    /// The decision table as JSON.
    Json,
}

impl Target {
    /// Whether this target can express a decision (pass to [`fill`]).
    pub fn accepts(self, collective: Collective, decision: &Decision) -> bool {
        match self {
            Target::OmpiRules | Target::OmpiRulesV2 | Target::OmpiJson => {
                ompi::accepts(collective, decision)
            }
            Target::MpichJson(v) => mpich::accepts(v, collective, decision),
            Target::UccTune => ucc::accepts(collective, decision),
            Target::Json => true,
        }
    }

    /// Write `table` in this target's format.
    pub fn write(self, table: &DecisionTable, prov: &Provenance) -> Result<Output, ExportError> {
        match self {
            Target::OmpiRules => ompi::write_classic(table, prov),
            Target::OmpiRulesV2 => ompi::write_v2(table, prov),
            Target::OmpiJson => ompi::write_json(table, prov),
            Target::MpichJson(v) => mpich::write(table, prov, v),
            Target::UccTune => ucc::write(table, prov),
            Target::Json => json::write(table, prov),
        }
    }
}
