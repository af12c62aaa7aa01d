//! Machines: loading a specification (bundled or from a file) into a checked model.
//!
//! Bundled machines are the TOML files of the repository's `machines/` folder, embedded in the
//! binary, so `xeon-phi` works from any directory.
//!
//! # Names and paths
//!
//! [`load`] takes one argument and decides from its spelling alone, never from what happens to
//! be on disk, whether it is a bundled name or a file ([`is_path`]):
//!
//! - it is a **path** if and only if it contains `/` or ends in `.toml` (`./scc`,
//!   `machines/scc.toml`, `my-phi.toml`); the path must name a regular file — a symbolic link is
//!   followed, and must end at a regular file; directories, FIFOs, sockets and devices are refused
//!   before anything is opened, so a FIFO cannot block the loader; files above [`MAX_FILE_BYTES`]
//!   are refused;
//! - anything else is a **bundled name** (`xeon-phi`, `scc`), looked up in the family registry ([`crate::registry::bundled`]) only: the
//!   filesystem is never consulted, so a file named `xeon-phi` in the current directory cannot
//!   replace the bundled machine. To load such a file, write `./xeon-phi`.
//!
//! [`Machine::origin`] says which was loaded: `bundled:NAME`, or the path as given.

use crate::algorithm::Algorithm;
use crate::error::SpecError;
use crate::request::Collective;
use crate::spec::{param_rows, ParamRow, SpecContext, SpecHeader};
use std::any::Any;
use std::path::Path;

/// A model family's checked model of one machine.
pub trait ModelFamily: Send + Sync + std::fmt::Debug {
    /// Every algorithm the family models on this machine.
    fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>>;
    /// For downcasting to the family's concrete type.
    fn as_any(&self) -> &dyn Any;
}

/// Algorithms a crate downstream of the model contributes to machines of a family it knows,
/// priced by means the model crate does not have (the graph crate prices `.cla` programs by
/// their CLa graph on ccNUMA machines). Attached with [`Machine::add_algorithms`]; the
/// machine's [`Machine::algorithms`] then lists them after the family's own.
pub trait AlgorithmSource: Send + Sync + std::fmt::Debug {
    /// A name unique to the source (its crate and purpose), by which a machine recognizes a
    /// source attached twice.
    fn name(&self) -> &'static str;
    /// The algorithms for this machine's model (`model` is the family's concrete type, as
    /// [`Machine::model`] downcasts it); empty for a family the source does not know.
    fn algorithms<'m>(&'m self, model: &'m dyn Any) -> Vec<Box<dyn Algorithm + 'm>>;
}

/// A loaded, validated machine.
#[derive(Debug)]
pub struct Machine {
    /// Short name (`xeon-phi`).
    pub name: String,
    /// Model family (`cache-coherent`, ...).
    pub family: String,
    /// One-line description.
    pub description: String,
    /// Largest thread count the hardware runs; beyond it a model extrapolates.
    pub max_threads: u32,
    /// Where it was read from (a path, or `bundled:NAME`).
    pub origin: String,
    entry: &'static crate::registry::Family,
    text: String,
    model: Box<dyn ModelFamily>,
    sources: Vec<std::sync::Arc<dyn AlgorithmSource>>,
}

impl Machine {
    /// Every algorithm for `collective`, in the family's order.
    pub fn algorithms_for(&self, collective: Collective) -> Vec<Box<dyn Algorithm + '_>> {
        self.algorithms()
            .into_iter()
            .filter(|a| a.collective() == collective)
            .collect()
    }

    /// Every algorithm of the machine: the family's, then those of every attached
    /// [`AlgorithmSource`] in the order they were attached.
    pub fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>> {
        let mut all = self.model.algorithms();
        for source in &self.sources {
            all.extend(source.algorithms(self.model.as_any()));
        }
        all
    }

    /// The attached [`AlgorithmSource`]s, in the order they were attached.
    pub fn algorithm_sources(&self) -> &[std::sync::Arc<dyn AlgorithmSource>] {
        &self.sources
    }

    /// Attach algorithms a downstream crate contributes (see [`AlgorithmSource`]). Attaching
    /// the same source twice is a no-op, so a front end may attach unconditionally.
    pub fn add_algorithms(&mut self, source: std::sync::Arc<dyn AlgorithmSource>) {
        if !self.sources.iter().any(|s| s.name() == source.name()) {
            self.sources.push(source);
        }
    }

    /// The collectives this machine has at least one algorithm for.
    pub fn collectives(&self) -> Vec<Collective> {
        Collective::ALL
            .into_iter()
            .filter(|c| !self.algorithms_for(*c).is_empty())
            .collect()
    }

    /// Every parameter of the file with its unit and source.
    pub fn params(&self) -> Vec<ParamRow> {
        param_rows(&self.text)
    }

    /// The parameters marked `estimated = true`.
    pub fn estimated_params(&self) -> Vec<ParamRow> {
        self.params().into_iter().filter(|p| p.estimated).collect()
    }

    /// The registry entry of its family: what the family offers (cache states, metrics).
    pub fn family_entry(&self) -> &'static crate::registry::Family {
        self.entry
    }

    /// The specification text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The family's model, for family-specific calls (`machine.model::<CacheCoherent>()`).
    pub fn model<T: 'static>(&self) -> Option<&T> {
        self.model.as_any().downcast_ref::<T>()
    }
}

/// Names of the bundled machines, family by family (the order of [`crate::registry::FAMILIES`]).
pub fn bundled_names() -> Vec<&'static str> {
    crate::registry::bundled().map(|(name, _)| name).collect()
}

/// The largest machine file [`load`] reads, in bytes (the bundled ones are under 20 KiB).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Whether a `--machine` argument names a file rather than a bundled machine: it contains `/` or
/// ends in `.toml` (see the module docs). Decided from the spelling alone.
pub fn is_path(arg: &str) -> bool {
    arg.contains('/') || arg.ends_with(".toml")
}

/// Load a machine by bundled name or file path; which one is decided by [`is_path`] (see the
/// module docs). Bundled names never touch the filesystem.
pub fn load(name_or_path: &str) -> Result<Machine, SpecError> {
    if is_path(name_or_path) {
        let text = read_machine_file(name_or_path)?;
        return from_text(name_or_path, &text);
    }
    if let Some((name, text)) = crate::registry::bundled().find(|(name, _)| *name == name_or_path) {
        return from_text(&format!("bundled:{name}"), text);
    }
    Err(SpecError::file(
        name_or_path,
        format!(
            "unknown machine (bundled: {}; a file path must contain `/` or end in `.toml`, e.g. \
             ./{name_or_path})",
            bundled_names().join(", ")
        ),
    ))
}

/// Read a machine file: a regular file (symbolic links followed) of at most [`MAX_FILE_BYTES`],
/// in UTF-8. Errors are one line naming the path (and the line and column of invalid UTF-8).
fn read_machine_file(path: &str) -> Result<String, SpecError> {
    use std::io::Read;
    let bundled_hint = || {
        let bare = Path::new(path)
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| n.strip_suffix(".toml").unwrap_or(n));
        match bare {
            Some(bare) if crate::registry::bundled().any(|(name, _)| name == bare) => {
                format!(" (the bundled machine is named `{bare}`, without `/` or `.toml`)")
            }
            _ => String::new(),
        }
    };
    // `metadata` follows symbolic links: a link to a regular file is accepted.
    let meta = std::fs::metadata(path).map_err(|e| {
        let what = if e.kind() == std::io::ErrorKind::NotFound {
            "no such file".to_string()
        } else {
            format!("cannot read file: {e}")
        };
        SpecError::file(path, format!("{what}{}", bundled_hint()))
    })?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a directory"
        } else {
            "a FIFO, socket or device"
        };
        return Err(SpecError::file(
            path,
            format!("is not a regular file (it is {kind}); give a TOML machine file"),
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(SpecError::file(
            path,
            format!(
                "is {} bytes; machine files are at most {MAX_FILE_BYTES} bytes",
                meta.len()
            ),
        ));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| SpecError::file(path, format!("cannot read file: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| SpecError::file(path, format!("cannot read file: {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(SpecError::file(
            path,
            format!("grew past {MAX_FILE_BYTES} bytes while being read"),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let valid = String::from_utf8_lossy(&e.as_bytes()[..good]).into_owned();
        let position = SpecContext::new(path, &valid).position(good);
        SpecError {
            position: Some(position),
            ..SpecError::file(
                path,
                format!("invalid UTF-8 at byte {good}; machine files are UTF-8 text"),
            )
        }
    })
}

/// Build a machine from the text of a specification; `origin` names it in errors.
pub fn from_text(origin: &str, text: &str) -> Result<Machine, SpecError> {
    let ctx = SpecContext::new(origin, text);
    let header: SpecHeader = ctx.parse()?;
    let Some(family) = crate::registry::family(&header.family) else {
        return Err(ctx.error(
            "family",
            format!(
                "unknown model family `{}` (expected one of: {})",
                crate::error::clip(&header.family),
                crate::registry::family_names().join(", ")
            ),
        ));
    };
    let loaded = (family.load)(&ctx)?;
    if loaded.max_threads < 2 {
        return Err(ctx.error("max_threads", "must be at least 2"));
    }
    Ok(Machine {
        name: header.name,
        family: header.family,
        entry: family,
        description: loaded.description,
        max_threads: loaded.max_threads,
        origin: origin.to_string(),
        text: text.to_string(),
        model: loaded.model,
        sources: Vec::new(),
    })
}

/// What a family's loader returns: the header facts it validated and its model.
#[derive(Debug)]
pub struct Loaded {
    /// One-line description.
    pub description: String,
    /// Hardware thread limit.
    pub max_threads: u32,
    /// The checked model.
    pub model: Box<dyn ModelFamily>,
}

/// A bundled machine's model, for the families' unit tests.
#[cfg(test)]
pub(crate) fn bundled_model<T: Clone + 'static>(name: &str) -> T {
    let machine = load(name).unwrap_or_else(|e| panic!("{e}"));
    machine
        .model::<T>()
        .cloned()
        .unwrap_or_else(|| panic!("{name} is not of the expected family"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_machine_loads() {
        for name in bundled_names() {
            let m = load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(m.name, name);
            // A machine with L3 domains has no algorithm of its own family: its broadcast,
            // barrier and reduction are contributed by the graph crate (`AlgorithmSource`;
            // crates/graph/tests/collectives.rs checks them).
            let chiplets = m
                .model::<crate::ccnuma::Ccnuma>()
                .is_some_and(|c| c.topology.domains_per_socket > 1);
            assert!(chiplets || !m.algorithms().is_empty(), "{name}");
        }
    }

    #[test]
    fn the_domain_lines_chiplet_has_the_chiplets_numbers() {
        // machines/chiplet-2s-4x8-domain-lines.toml promises to be machines/chiplet-2s-4x8.toml
        // but for its header, name, description and sync_line: compare everything else.
        fn body(text: &str) -> Vec<&str> {
            let from = text.find("# Shared reasoning:").unwrap_or(0);
            text[from..]
                .lines()
                .filter(|l| {
                    !l.starts_with("name = ")
                        && !l.starts_with("description = ")
                        && !l.starts_with("sync_line = ")
                        && !l.starts_with("# first 8 threads")
                        && !l.starts_with("# line per L3 domain")
                })
                .collect()
        }
        let chiplet = include_str!("../../../machines/chiplet-2s-4x8.toml");
        let lines = include_str!("../../../machines/chiplet-2s-4x8-domain-lines.toml");
        assert_eq!(body(chiplet), body(lines));
        assert!(lines.contains("\nsync_line = \"domain\""));
        let m = load("chiplet-2s-4x8-domain-lines").unwrap();
        let c = m.model::<crate::ccnuma::Ccnuma>().unwrap();
        assert_eq!(c.topology.sync_line, crate::ccnuma::SyncLine::Domain);
    }

    #[test]
    fn unknown_name_is_a_clear_error() {
        let err = load("no-such-machine").unwrap_err().to_string();
        assert!(err.contains("unknown machine"), "{err}");
        assert!(err.contains("xeon-phi"), "{err}");
    }

    #[test]
    fn a_name_ending_in_toml_is_a_path_and_hints_at_the_bundled_name() {
        // No file `xeon-phi.toml` exists in the crate directory the tests run in.
        let err = load("xeon-phi.toml").unwrap_err().to_string();
        assert!(err.contains("no such file"), "{err}");
        assert!(err.contains("bundled machine is named `xeon-phi`"), "{err}");
    }

    #[test]
    fn bundled_machines_say_so_in_their_origin() {
        assert_eq!(load("scc").unwrap().origin, "bundled:scc");
    }

    #[test]
    fn path_rule_is_spelling_only() {
        assert!(is_path("./scc"));
        assert!(is_path("scc.toml"));
        assert!(is_path("/tmp/x"));
        assert!(!is_path("scc"));
        assert!(!is_path("xeon-phi"));
    }
}
