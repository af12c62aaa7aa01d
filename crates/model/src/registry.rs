//! The model families modelopt knows, in one table.
//!
//! A family is one module (its spec, formulas and algorithms), its machine files in `machines/`,
//! and one [`Family`] entry in [`FAMILIES`]. Everything else asks this table: the machine loader
//! (which family reads a file), the bundled machines (which files are embedded), and the CLI
//! (whether `--state` matters, whether a family predicts throughput). Adding a family touches
//! nothing else.

use crate::error::SpecError;
use crate::machine::Loaded;
use crate::request::Metric;
use crate::spec::SpecContext;

/// One model family.
#[derive(Debug)]
pub struct Family {
    /// The `family = "…"` value of its machine files.
    pub name: &'static str,
    /// One line: what it models and from which source.
    pub summary: &'static str,
    /// Reads and validates a machine file of this family (the header is already parsed).
    pub load: fn(&SpecContext<'_>) -> Result<Loaded, SpecError>,
    /// Its bundled machines: (name, TOML text), embedded in the binary.
    pub bundled: &'static [(&'static str, &'static str)],
    /// Whether its costs depend on the initial cache-line states of the buffers (`--state`).
    pub cache_states: bool,
    /// The metrics its models predict.
    pub metrics: &'static [Metric],
    /// What its throughput figures mean, when that is not simply size ÷ time (shown under a
    /// throughput column).
    pub throughput_note: Option<&'static str>,
}

impl Family {
    /// Whether its models predict `metric`.
    pub fn offers(&self, metric: Metric) -> bool {
        self.metrics.contains(&metric)
    }
}

const LATENCY: &[Metric] = &[Metric::Latency];
const LATENCY_AND_THROUGHPUT: &[Metric] = &[Metric::Latency, Metric::Throughput];

/// Every family, in the order machines are listed.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "cache-coherent",
        summary: "line transfers, multi-line, contention and min-max collectives (seed 000)",
        load: crate::cache_coherent::load,
        bundled: &[
            ("xeon-phi", include_str!("../../../machines/xeon-phi.toml")),
            (
                "sandy-bridge-e5-2670",
                include_str!("../../../machines/sandy-bridge-e5-2670.toml"),
            ),
        ],
        cache_states: true,
        metrics: LATENCY,
        throughput_note: None,
    },
    Family {
        name: "ccnuma",
        summary: "cache-line-aware graphs and rooted trees on several sockets (seed 001)",
        load: crate::ccnuma::load,
        bundled: &[
            (
                "sandy-bridge-e5-2660",
                include_str!("../../../machines/sandy-bridge-e5-2660.toml"),
            ),
            (
                "xeon-e5-4650-4s",
                include_str!("../../../machines/xeon-e5-4650-4s.toml"),
            ),
            (
                "chiplet-2s-4x8",
                include_str!("../../../machines/chiplet-2s-4x8.toml"),
            ),
            (
                "chiplet-2s-4x8-domain-lines",
                include_str!("../../../machines/chiplet-2s-4x8-domain-lines.toml"),
            ),
        ],
        cache_states: true,
        metrics: LATENCY,
        throughput_note: None,
    },
    Family {
        name: "cell",
        summary: "extended PLogP with BIF contention on the Cell BE (seed 002)",
        load: crate::cell::load,
        bundled: &[
            (
                "cell-chip",
                include_str!("../../../machines/cell-chip.toml"),
            ),
            (
                "cell-blade",
                include_str!("../../../machines/cell-blade.toml"),
            ),
            (
                "cell-cluster",
                include_str!("../../../machines/cell-cluster.toml"),
            ),
        ],
        cache_states: false,
        metrics: LATENCY,
        throughput_note: None,
    },
    Family {
        name: "ksr1",
        summary: "ALLCACHE ring latencies and fitted collective models of the KSR-1 (seed 003)",
        load: crate::ksr1::load,
        bundled: &[("ksr1", include_str!("../../../machines/ksr1.toml"))],
        cache_states: false,
        metrics: LATENCY_AND_THROUGHPUT,
        throughput_note: None,
    },
    Family {
        name: "scc",
        summary: "put/get on the Intel SCC mesh, OC-BCAST and its rivals (seed 004)",
        load: crate::scc::load,
        bundled: &[("scc", include_str!("../../../machines/scc.toml"))],
        cache_states: false,
        metrics: LATENCY_AND_THROUGHPUT,
        // docs/scc.md, "Throughput": seed 004 Eq. 4.23 for OC-BCAST.
        throughput_note: Some(
            "SCC oc-bcast throughput is the sustained rate of back-to-back broadcasts of this size \
             (bytes per pipeline period, seed 004 Eq. 4.23), not size ÷ time; for binomial and \
             scatter-allgather it is size ÷ time",
        ),
    },
    Family {
        name: "loggp",
        summary: "message passing under Hockney, LogP, LogGP or PLogP: the algorithms MPI libraries implement",
        load: crate::loggp::load,
        bundled: &[
            (
                "cluster-example",
                include_str!("../../../machines/cluster-example.toml"),
            ),
            ("tukey-ib", include_str!("../../../machines/tukey-ib.toml")),
        ],
        cache_states: false,
        metrics: LATENCY,
        throughput_note: None,
    },
];

/// The family named `name`.
pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}

/// The names of every family, for messages.
pub fn family_names() -> Vec<&'static str> {
    FAMILIES.iter().map(|f| f.name).collect()
}

/// Every bundled machine, family by family: (name, TOML text).
pub fn bundled() -> impl Iterator<Item = (&'static str, &'static str)> {
    FAMILIES.iter().flat_map(|f| f.bundled.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut families = family_names();
        families.sort_unstable();
        families.dedup();
        assert_eq!(families.len(), FAMILIES.len());
        let mut machines: Vec<&str> = bundled().map(|(n, _)| n).collect();
        let count = machines.len();
        machines.sort_unstable();
        machines.dedup();
        assert_eq!(machines.len(), count);
    }

    #[test]
    fn every_bundled_file_names_its_own_family() {
        for f in FAMILIES {
            for (name, text) in f.bundled {
                let needle = format!("family = \"{}\"", f.name);
                assert!(text.contains(&needle), "{name} is not in family {}", f.name);
            }
        }
    }
}
