//! Machines with some parameters changed, for sensitivity analysis.
//!
//! Works on any model family without knowing it: the machine's TOML text is parsed into a
//! [`toml::Table`], the `value` of each named [`Param`](crate::spec::Param) is replaced at its
//! key path (the dotted, indexed keys [`Machine::params`] lists, such as `line.remote` or
//! `contention[0].c`), and the edited text is loaded again through [`machine::from_text`], so the
//! family's validation applies to the changed values exactly as to a file.
//!
//! ```
//! use modelopt_model::{machine, perturb};
//! let phi = machine::load("xeon-phi").unwrap();
//! let slower = perturb::with_param(&phi, "line.remote", 300.0).unwrap();
//! let row = slower.params().into_iter().find(|p| p.key == "line.remote").unwrap();
//! assert_eq!(row.value, 300.0);
//! // A value outside the parameter's domain is refused by the family's own checks.
//! assert!(perturb::with_param(&phi, "line.remote", -1.0).is_err());
//! ```

use crate::error::SpecError;
use crate::machine::{self, Machine};
use crate::request::{Params, Request};

/// A machine's specification parsed once, ready to produce variants with changed parameters.
#[derive(Debug, Clone)]
pub struct Perturber {
    origin: String,
    table: toml::Table,
    sources: Vec<std::sync::Arc<dyn machine::AlgorithmSource>>,
}

impl Perturber {
    /// Parse `machine`'s specification text.
    pub fn new(machine: &Machine) -> Result<Self, SpecError> {
        let table: toml::Table = toml::from_str(machine.text())
            .map_err(|e| SpecError::file(&machine.origin, e.message().to_string()))?;
        Ok(Perturber {
            origin: machine.origin.clone(),
            table,
            sources: machine.algorithm_sources().to_vec(),
        })
    }

    /// A machine whose parameters at `changes` (key, new value) take the new values; every other
    /// number is as in the original file.
    ///
    /// Fails with a [`SpecError`] naming the key when a key is not a parameter of the file, or when
    /// the family rejects a new value (e.g. a negative latency).
    pub fn machine(&self, changes: &[(&str, f64)]) -> Result<Machine, SpecError> {
        let mut table = self.table.clone();
        for (key, value) in changes {
            let param = param_table(&mut table, key).ok_or_else(|| SpecError {
                origin: self.origin.clone(),
                position: None,
                key: Some((*key).to_string()),
                message: "no parameter with this key (see `modelopt machines show`)".into(),
            })?;
            if !value.is_finite() {
                return Err(SpecError {
                    origin: self.origin.clone(),
                    position: None,
                    key: Some((*key).to_string()),
                    message: format!("value must be a finite number (got {value})"),
                });
            }
            param.insert("value".into(), toml::Value::Float(*value));
        }
        let text = toml::to_string(&table)
            .map_err(|e| SpecError::file(&self.origin, format!("cannot re-serialize: {e}")))?;
        let mut changed = machine::from_text(&self.origin, &text)?;
        // The perturbed machine offers what the original offered, contributed algorithms too.
        for source in &self.sources {
            changed.add_algorithms(source.clone());
        }
        Ok(changed)
    }
}

/// A machine like `machine` with the parameter at `key` set to `value`.
///
/// `key` is one of the keys [`Machine::params`] lists (`line.remote`, `contention[0].c`, ...).
pub fn with_param(machine: &Machine, key: &str, value: f64) -> Result<Machine, SpecError> {
    Perturber::new(machine)?.machine(&[(key, value)])
}

/// The keys among `keys` that the cost of one configuration depends on.
///
/// Each parameter is nudged on its own (×1.01, or to 1 when it is 0) and `params` of the
/// algorithm named `algorithm` priced again for `request`; a parameter is used when the cost
/// changes. A key that cannot be nudged (not a parameter, or a value the family refuses) counts as
/// used, to stay on the safe side. This is how the CLI says *which* estimates a result rests on.
pub fn params_used(
    machine: &Machine,
    keys: &[String],
    request: &Request,
    algorithm: &str,
    params: &Params,
) -> Vec<String> {
    let cost_of = |m: &Machine| {
        m.algorithms_for(request.collective())
            .into_iter()
            .find(|a| a.name() == algorithm)
            .and_then(|a| a.cost(request, params).ok())
    };
    let (Some(base), Ok(perturber)) = (cost_of(machine), Perturber::new(machine)) else {
        return keys.to_vec();
    };
    let values: std::collections::BTreeMap<String, f64> = machine
        .params()
        .into_iter()
        .map(|p| (p.key, p.value))
        .collect();
    keys.iter()
        .filter(|key| {
            let Some(&value) = values.get(key.as_str()) else {
                return true;
            };
            let nudged = if value == 0.0 { 1.0 } else { value * 1.01 };
            match perturber.machine(&[(key.as_str(), nudged)]) {
                Ok(m) => cost_of(&m) != Some(base),
                Err(_) => true,
            }
        })
        .cloned()
        .collect()
}

/// One step of a key path: a table key, then zero or more array indices.
fn split_segment(segment: &str) -> Option<(&str, Vec<usize>)> {
    let (name, mut rest) = match segment.find('[') {
        Some(i) => (&segment[..i], &segment[i..]),
        None => (segment, ""),
    };
    let mut indices = Vec::new();
    while !rest.is_empty() {
        let close = rest.find(']')?;
        let index: usize = rest.get(1..close)?.parse().ok()?;
        indices.push(index);
        rest = &rest[close + 1..];
        if !rest.is_empty() && !rest.starts_with('[') {
            return None;
        }
    }
    Some((name, indices))
}

/// The table of the parameter at `key` (a table with a `value` and a `source`), if there is one.
fn param_table<'t>(root: &'t mut toml::Table, key: &str) -> Option<&'t mut toml::Table> {
    let mut current: &mut toml::Table = root;
    for segment in key.split('.') {
        let (name, indices) = split_segment(segment)?;
        let mut value: &mut toml::Value = current.get_mut(name)?;
        for index in indices {
            value = value.as_array_mut()?.get_mut(index)?;
        }
        current = value.as_table_mut()?;
    }
    let is_param = current.contains_key("value") && current.contains_key("source");
    is_param.then_some(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_param_can_be_changed() {
        for name in machine::bundled_names() {
            let m = machine::load(name).unwrap();
            let perturber = Perturber::new(&m).unwrap();
            for row in m.params() {
                // A 1% change keeps every value in its domain and every cross-check true.
                let changed = perturber
                    .machine(&[(row.key.as_str(), row.value * 1.01)])
                    .unwrap_or_else(|e| panic!("{name} {}: {e}", row.key));
                let new = changed.params();
                let after = new.iter().find(|p| p.key == row.key).unwrap();
                assert_eq!(after.value, row.value * 1.01, "{name} {}", row.key);
                // Everything else is unchanged, in the same order.
                assert_eq!(new.len(), m.params().len());
            }
        }
    }

    #[test]
    fn indexed_keys_reach_arrays_of_tables() {
        let phi = machine::load("xeon-phi").unwrap();
        let m = with_param(&phi, "contention[0].c", 60.0).unwrap();
        let c = m
            .params()
            .into_iter()
            .find(|p| p.key == "contention[0].c")
            .unwrap();
        assert_eq!(c.value, 60.0);
        assert_eq!(c.source, "seed 000, Table 3.2 (E-E); Figure 3.6a");
    }

    #[test]
    fn bad_keys_are_errors_not_panics() {
        let phi = machine::load("xeon-phi").unwrap();
        for key in [
            "",
            "line",
            "line.nope",
            "contention[9].c",
            "contention[x].c",
            "contention[0",
            "contention[0]x.c",
            "name",
            "topology.sockets",
        ] {
            let err = with_param(&phi, key, 1.0).unwrap_err();
            assert!(err.to_string().contains("key"), "{key}: {err}");
        }
        assert!(with_param(&phi, "line.remote", f64::NAN).is_err());
    }

    #[test]
    fn segments() {
        assert_eq!(split_segment("a"), Some(("a", vec![])));
        assert_eq!(split_segment("a[2]"), Some(("a", vec![2])));
        assert_eq!(split_segment("a[2][3]"), Some(("a", vec![2, 3])));
        assert_eq!(split_segment("a[2]b"), None);
        assert_eq!(split_segment("a[-1]"), None);
    }
}
