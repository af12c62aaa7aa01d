//! Machines: loading a specification (bundled or from a file) into a checked model.
//!
//! Bundled machines are the TOML files of the repository's `machines/` folder, embedded in the
//! binary, so `xeon-phi` works from any directory. A name is resolved as a file in the current
//! directory first (`xeon-phi.toml`), then as a bundled name (with or without `.toml`).

use crate::algorithm::Algorithm;
use crate::error::SpecError;
use crate::request::Collective;
use crate::spec::{param_rows, ParamRow, SpecContext, SpecHeader};
use std::any::Any;
use std::path::Path;

/// The bundled machine files: (name, TOML text).
pub const BUNDLED: &[(&str, &str)] = &[
    ("xeon-phi", include_str!("../../../machines/xeon-phi.toml")),
    (
        "sandy-bridge-e5-2670",
        include_str!("../../../machines/sandy-bridge-e5-2670.toml"),
    ),
    (
        "cell-blade",
        include_str!("../../../machines/cell-blade.toml"),
    ),
    (
        "cell-chip",
        include_str!("../../../machines/cell-chip.toml"),
    ),
    (
        "cell-cluster",
        include_str!("../../../machines/cell-cluster.toml"),
    ),
    (
        "sandy-bridge-e5-2660",
        include_str!("../../../machines/sandy-bridge-e5-2660.toml"),
    ),
    ("ksr1", include_str!("../../../machines/ksr1.toml")),
    ("scc", include_str!("../../../machines/scc.toml")),
    (
        "cluster-example",
        include_str!("../../../machines/cluster-example.toml"),
    ),
    ("tukey-ib", include_str!("../../../machines/tukey-ib.toml")),
];

/// A model family's checked model of one machine.
pub trait ModelFamily: Send + Sync + std::fmt::Debug {
    /// Every algorithm the family models on this machine.
    fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>>;
    /// For downcasting to the family's concrete type.
    fn as_any(&self) -> &dyn Any;
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
    text: String,
    model: Box<dyn ModelFamily>,
}

impl Machine {
    /// Every algorithm for `collective`, in the family's order.
    pub fn algorithms_for(&self, collective: Collective) -> Vec<Box<dyn Algorithm + '_>> {
        self.model
            .algorithms()
            .into_iter()
            .filter(|a| a.collective() == collective)
            .collect()
    }

    /// Every algorithm of the machine.
    pub fn algorithms(&self) -> Vec<Box<dyn Algorithm + '_>> {
        self.model.algorithms()
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

    /// The specification text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The family's model, for family-specific calls (`machine.model::<CacheCoherent>()`).
    pub fn model<T: 'static>(&self) -> Option<&T> {
        self.model.as_any().downcast_ref::<T>()
    }
}

/// Names of the bundled machines.
pub fn bundled_names() -> Vec<&'static str> {
    BUNDLED.iter().map(|(name, _)| *name).collect()
}

/// Load a machine by file path or bundled name (see the module docs for the resolution order).
pub fn load(name_or_path: &str) -> Result<Machine, SpecError> {
    let path = Path::new(name_or_path);
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SpecError::file(name_or_path, format!("cannot read file: {e}")))?;
        return from_text(name_or_path, &text);
    }
    if path.exists() {
        return Err(SpecError::file(name_or_path, "is not a regular file"));
    }
    let looks_like_path = name_or_path.contains('/') || name_or_path.contains('\\');
    if !looks_like_path {
        let bare = name_or_path.strip_suffix(".toml").unwrap_or(name_or_path);
        if let Some((name, text)) = BUNDLED.iter().find(|(name, _)| *name == bare) {
            return from_text(&format!("bundled:{name}"), text);
        }
    }
    let what = if looks_like_path || name_or_path.ends_with(".toml") {
        "no such file, and no bundled machine of that name"
    } else {
        "unknown machine"
    };
    Err(SpecError::file(
        name_or_path,
        format!(
            "{what} (bundled: {}; or give the path of a TOML machine file)",
            bundled_names().join(", ")
        ),
    ))
}

/// Build a machine from the text of a specification; `origin` names it in errors.
pub fn from_text(origin: &str, text: &str) -> Result<Machine, SpecError> {
    let ctx = SpecContext::new(origin, text);
    let header: SpecHeader = ctx.parse()?;
    let loaded = match header.family.as_str() {
        "cache-coherent" => crate::cache_coherent::load(&ctx)?,
        "ccnuma" => crate::ccnuma::load(&ctx)?,
        "cell" => crate::cell::load(&ctx)?,
        "ksr1" => crate::ksr1::load(&ctx)?,
        "scc" => crate::scc::load(&ctx)?,
        "loggp" => crate::loggp::load(&ctx)?,
        other => {
            let known = "cache-coherent, ccnuma, cell, ksr1, scc, loggp";
            return Err(ctx.error(
                "family",
                format!("unknown model family `{other}` (expected one of: {known})"),
            ));
        }
    };
    if loaded.max_threads < 2 {
        return Err(ctx.error("max_threads", "must be at least 2"));
    }
    Ok(Machine {
        name: header.name,
        family: header.family,
        description: loaded.description,
        max_threads: loaded.max_threads,
        origin: origin.to_string(),
        text: text.to_string(),
        model: loaded.model,
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
            assert!(!m.algorithms().is_empty());
        }
    }

    #[test]
    fn unknown_name_is_a_clear_error() {
        let err = load("no-such-machine").unwrap_err().to_string();
        assert!(err.contains("unknown machine"), "{err}");
        assert!(err.contains("xeon-phi"), "{err}");
    }

    #[test]
    fn bundled_name_with_toml_suffix_resolves() {
        assert_eq!(load("xeon-phi.toml").unwrap().name, "xeon-phi");
    }
}
