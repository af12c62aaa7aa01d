//! Machine specification files: the common pieces every model family uses.
//!
//! A machine file is TOML. Its header (`name`, `family`, `description`, `max_threads`, ...) is read
//! by [`SpecHeader`]; the rest belongs to the family named by `family` and is read by that family's
//! own `serde` structs with `deny_unknown_fields`. Every measured or estimated number is a
//! [`Param`]: a value with its unit, its source (seed file and table or equation), an optional
//! standard deviation, and an `estimated` flag for numbers the seeds do not give.
//!
//! Reading happens in two steps, as in the rest of modelopt: TOML → plain spec structs (this
//! module and the family's `spec` module), then validation into an immutable model object. The
//! [`SpecContext`] carries the file name and text so that every error names file, line, column and
//! key.

use crate::error::SpecError;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::ops::Range;
use toml::Spanned;

/// One number of a machine specification, with its provenance.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// The value, in `unit`.
    pub value: Spanned<f64>,
    /// Unit of `value` and `stdev` (e.g. `ns`).
    pub unit: String,
    /// Where the number comes from: seed file and table/equation, or how it was estimated.
    pub source: String,
    /// Standard deviation of the measurement, when the source gives one.
    #[serde(default)]
    pub stdev: Option<f64>,
    /// `true` when the source gives no number and this is a documented estimate.
    #[serde(default)]
    pub estimated: bool,
    /// Free-form remark (e.g. how an estimate was derived).
    #[serde(default)]
    pub note: Option<String>,
    /// Provenance of a number measured on a host (`modelopt calibrate`, docs/calibration.md):
    /// the benchmark that measured it. When given, `host`, `measured_at` and `samples` must be
    /// given too, and `estimated` must be false.
    #[serde(default)]
    pub benchmark: Option<String>,
    /// The host it was measured on: CPU model (from `/proc/cpuinfo`), and `(VM)` when virtual.
    #[serde(default)]
    pub host: Option<String>,
    /// When it was measured: UTC time, RFC 3339 (`2026-11-22T13:40:00Z`).
    #[serde(default)]
    pub measured_at: Option<String>,
    /// How many timed samples the value summarizes (for a fit: samples per fitted point).
    #[serde(default)]
    pub samples: Option<u64>,
    /// Median absolute deviation of the samples, in `unit` (the value is their median).
    #[serde(default)]
    pub mad: Option<f64>,
    /// Robust coefficient of variation 1.4826·MAD / median of the samples.
    #[serde(default)]
    pub cv: Option<f64>,
    /// R² of the least-squares fit the value comes from.
    #[serde(default)]
    pub r2: Option<f64>,
}

impl Param {
    /// Whether the number carries measurement provenance (a `benchmark`).
    pub fn is_measured(&self) -> bool {
        self.benchmark.is_some()
    }
}

/// What values a parameter may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    /// Strictly positive (latencies, gaps, sizes).
    Positive,
    /// Zero or positive (slopes that may vanish, e.g. a contention slope where none was observed).
    NonNegative,
    /// Any finite number (fitted overheads, which the seeds report negative at times).
    Finite,
}

/// The header every machine file starts with.
#[derive(Debug, Clone, Deserialize)]
pub struct SpecHeader {
    /// Short machine name, used on the command line (`xeon-phi`).
    pub name: String,
    /// Model family: `cache-coherent`, `cell`, `ksr1`, `scc`, ...
    pub family: String,
}

/// File name and text of a specification being read, for error reporting.
#[derive(Debug, Clone, Copy)]
pub struct SpecContext<'a> {
    /// File path or `bundled:NAME`.
    pub origin: &'a str,
    /// The whole text of the file.
    pub text: &'a str,
}

impl<'a> SpecContext<'a> {
    /// A context for `text` read from `origin`.
    pub fn new(origin: &'a str, text: &'a str) -> Self {
        SpecContext { origin, text }
    }

    /// 1-based line and column of a byte offset.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rfind('\n').map_or(before.chars().count(), |nl| {
            before[nl + 1..].chars().count()
        }) + 1;
        (line, column)
    }

    /// An error at a span of the file, about `key`.
    pub fn error_at(&self, span: Range<usize>, key: &str, message: impl Into<String>) -> SpecError {
        SpecError {
            origin: self.origin.to_string(),
            position: Some(self.position(span.start)),
            key: Some(key.to_string()),
            message: message.into(),
        }
    }

    /// An error about `key` with no position (e.g. a missing combination of tables).
    pub fn error(&self, key: &str, message: impl Into<String>) -> SpecError {
        SpecError {
            origin: self.origin.to_string(),
            position: None,
            key: Some(key.to_string()),
            message: message.into(),
        }
    }

    /// Parse the whole file into `T`, turning TOML and serde errors into one-line [`SpecError`]s
    /// with line, column and, where the error lies inside a key or its value, the dotted key.
    ///
    /// The key comes from [`toml_error_key`].
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, SpecError> {
        toml::from_str::<T>(self.text).map_err(|err| SpecError {
            origin: self.origin.to_string(),
            position: err.span().map(|span| self.position(span.start)),
            key: toml_error_key(&err, self.text),
            message: err.message().to_string(),
        })
    }

    /// Check a count (sockets, cores, line size, ...): at least 1 and at most [`MAX_COUNT`].
    /// Returns the value.
    pub fn count(&self, value: &Spanned<u32>, key: &str) -> Result<u32, SpecError> {
        let v = *value.get_ref();
        if v == 0 {
            return Err(self.error_at(value.span(), key, "must be at least 1"));
        }
        if v > MAX_COUNT {
            return Err(self.error_at(
                value.span(),
                key,
                format!(
                    "{v} is above the largest count a machine file may give ({MAX_COUNT}, \
                     the CLI's thread limit): a typo?"
                ),
            ));
        }
        Ok(v)
    }

    /// Check the size in bytes of a cache line or subpage: a power of two in
    /// [`LINE_BYTES`] (8 to 4096). Returns the value.
    pub fn line_size(&self, value: &Spanned<u32>, key: &str) -> Result<u32, SpecError> {
        let v = *value.get_ref();
        if !v.is_power_of_two() || !LINE_BYTES.contains(&v) {
            return Err(self.error_at(
                value.span(),
                key,
                format!(
                    "{v} bytes is not a line size: must be a power of two from {} to {} \
                     (every coherence unit of the seeds' machines is 32 to 128 bytes)",
                    LINE_BYTES.start(),
                    LINE_BYTES.end()
                ),
            ));
        }
        Ok(v)
    }

    /// Check a parameter: unit as expected, value and stdev finite and in `domain`.
    /// Returns the value.
    pub fn check(
        &self,
        param: &Param,
        key: &str,
        unit: &str,
        domain: Domain,
    ) -> Result<f64, SpecError> {
        let value = *param.value.get_ref();
        let span = param.value.span();
        if param.unit != unit {
            return Err(self.error_at(
                span,
                key,
                format!("unit must be \"{unit}\" (got \"{}\")", param.unit),
            ));
        }
        if !value.is_finite() {
            return Err(self.error_at(
                span,
                key,
                format!("value must be a finite number (got {})", compact(value)),
            ));
        }
        let ok = match domain {
            Domain::Positive => value > 0.0,
            Domain::NonNegative => value >= 0.0,
            Domain::Finite => true,
        };
        if !ok {
            let rule = match domain {
                Domain::Positive => "must be positive",
                Domain::NonNegative => "must not be negative",
                Domain::Finite => "must be finite",
            };
            return Err(self.error_at(span, key, format!("value {rule} (got {})", compact(value))));
        }
        if let Some(range) = unit_range(unit) {
            if value != 0.0 && !range.contains(value.abs()) {
                let sign = if value < 0.0 { "the magnitude of " } else { "" };
                return Err(self.error_at(
                    span,
                    key,
                    format!(
                        "{sign}value {} {unit} is outside the sane range {} to {} {unit} ({})",
                        compact(value),
                        compact(range.min),
                        compact(range.max),
                        range.why
                    ),
                ));
            }
        } else if value.abs() > ABSURD {
            return Err(self.error_at(
                span,
                key,
                format!("value {} is absurdly large", compact(value)),
            ));
        }
        if let Some(stdev) = param.stdev {
            let too_big = unit_range(unit).map_or(ABSURD, |r| r.max);
            if !stdev.is_finite() || stdev < 0.0 || stdev > too_big {
                return Err(self.error_at(
                    span,
                    key,
                    format!(
                        "stdev must be a non-negative finite number of at most {} {unit} (got {})",
                        compact(too_big),
                        compact(stdev)
                    ),
                ));
            }
        }
        if param.source.trim().is_empty() {
            return Err(self.error_at(span, key, "source must name where the number comes from"));
        }
        self.check_provenance(param, key)?;
        Ok(value)
    }
}

impl SpecContext<'_> {
    /// Check the measurement provenance fields of a parameter: all or none of benchmark, host,
    /// measured_at and samples; not both measured and estimated; spreads non-negative; R² ≤ 1.
    fn check_provenance(&self, param: &Param, key: &str) -> Result<(), SpecError> {
        let span = param.value.span();
        let given = [
            ("benchmark", param.benchmark.is_some()),
            ("host", param.host.is_some()),
            ("measured_at", param.measured_at.is_some()),
            ("samples", param.samples.is_some()),
        ];
        if given.iter().any(|g| g.1) {
            if let Some((missing, _)) = given.iter().find(|g| !g.1) {
                return Err(self.error_at(
                    span,
                    key,
                    format!("a measured value needs benchmark, host, measured_at and samples ({missing} is missing)"),
                ));
            }
            if param.estimated {
                return Err(self.error_at(
                    span,
                    key,
                    "a value cannot be both measured (benchmark) and estimated",
                ));
            }
        }
        if param.samples == Some(0) {
            return Err(self.error_at(span, key, "samples must be at least 1"));
        }
        for (name, v) in [("mad", param.mad), ("cv", param.cv)] {
            if let Some(v) = v {
                if !v.is_finite() || v < 0.0 {
                    return Err(self.error_at(
                        span,
                        key,
                        format!("{name} must be a non-negative finite number (got {v})"),
                    ));
                }
            }
        }
        if let Some(r2) = param.r2 {
            if !r2.is_finite() || r2 > 1.0 {
                return Err(self.error_at(
                    span,
                    key,
                    format!("r2 must be a finite number at most 1 (got {r2})"),
                ));
            }
        }
        Ok(())
    }
}

/// Values above this magnitude are rejected as typos when their unit has no entry in
/// [`UNIT_RANGES`] (1e12 ns is a quarter of an hour).
pub const ABSURD: f64 = 1e12;

/// The largest count (sockets, cores, blades, chunk lines, ...) a machine file may give: the
/// CLI's thread limit, 2^20.
pub const MAX_COUNT: u32 = 1 << 20;

/// Sizes of a cache line or subpage, in bytes, that a machine file may give (powers of two only).
pub const LINE_BYTES: std::ops::RangeInclusive<u32> = 8..=4096;

/// The sane magnitudes of a parameter in one unit, and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnitRange {
    /// The unit, exactly as machine files write it.
    pub unit: &'static str,
    /// Smallest non-zero magnitude accepted.
    pub min: f64,
    /// Largest magnitude accepted.
    pub max: f64,
    /// Why these bounds: what they are in physical terms.
    pub why: &'static str,
}

impl UnitRange {
    /// Whether a magnitude lies in `[min, max]`.
    pub fn contains(&self, magnitude: f64) -> bool {
        (self.min..=self.max).contains(&magnitude)
    }
}

/// The one table of sane physical ranges, per unit (documented in `docs/machine-format.md`).
///
/// A non-zero value whose magnitude lies outside its unit's range is rejected when the machine is
/// loaded: such numbers are typos or unit mistakes, and they make the models print meaningless
/// figures (a machine of 1e-300 ns latencies prints 300-digit throughputs and `+inf%`). Zero is
/// governed by the parameter's [`Domain`] alone; negative values (fitted overheads) are checked
/// by magnitude. Every time-like bound spans 1 ps to 1 s, every bandwidth 1 kB/s to 1 PB/s.
pub const UNIT_RANGES: &[UnitRange] = &[
    UnitRange {
        unit: "ns",
        min: 1e-3,
        max: 1e9,
        why: "a latency from 1 ps to 1 s",
    },
    UnitRange {
        unit: "us",
        min: 1e-6,
        max: 1e6,
        why: "a latency from 1 ps to 1 s",
    },
    UnitRange {
        unit: "ms",
        min: 1e-9,
        max: 1e3,
        why: "a time from 1 ps to 1 s",
    },
    UnitRange {
        unit: "ms/processor",
        min: 1e-9,
        max: 1e3,
        why: "a time per processor from 1 ps to 1 s",
    },
    UnitRange {
        unit: "ms/subpage",
        min: 1e-9,
        max: 1e3,
        why: "a time per subpage from 1 ps to 1 s",
    },
    UnitRange {
        unit: "ms/stage",
        min: 1e-9,
        max: 1e3,
        why: "a time per stage from 1 ps to 1 s",
    },
    UnitRange {
        unit: "cycles",
        min: 1e-3,
        max: 1e9,
        why: "a latency from a thousandth of a clock cycle to a billion cycles",
    },
    UnitRange {
        unit: "GB/s",
        min: 1e-6,
        max: 1e6,
        why: "a bandwidth from 1 kB/s to 1 PB/s",
    },
    UnitRange {
        unit: "ns/B",
        min: 1e-6,
        max: 1e6,
        why: "a time per byte from 1 fs (1 PB/s) to 1 ms (1 kB/s)",
    },
    UnitRange {
        unit: "us/B",
        min: 1e-9,
        max: 1e3,
        why: "a time per byte from 1 fs (1 PB/s) to 1 ms (1 kB/s)",
    },
    UnitRange {
        unit: "B",
        min: 1.0,
        max: 1_099_511_627_776.0,
        why: "a size from 1 byte to 1 TiB",
    },
    UnitRange {
        unit: "messages",
        min: 1.0,
        max: 1e6,
        why: "a count of messages in flight from 1 to a million",
    },
    UnitRange {
        unit: "routers",
        min: 1e-2,
        max: 1e4,
        why: "a distance in mesh routers from 0.01 (an average) to 10,000",
    },
];

/// The sane range of `unit`, if the table has one.
pub fn unit_range(unit: &str) -> Option<&'static UnitRange> {
    UNIT_RANGES.iter().find(|r| r.unit == unit)
}

/// A number for an error message, never hundreds of digits long: plain notation for magnitudes
/// from 1e-3 to below 1e6 (and zero), scientific (`1e308`, `1.5e-300`) otherwise.
pub fn compact(value: f64) -> String {
    let magnitude = value.abs();
    if value == 0.0 || !value.is_finite() || (1e-3..1e6).contains(&magnitude) {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// The dotted key of a TOML error: the path the `toml` crate tracked while deserializing
/// (`line.remote.value`), extended by the bare key under the error's span when that is a key the
/// path does not already end with (`ping_pong.bytes` for an unknown field); for errors the
/// parser raises before deserializing (a duplicate key), the enclosing `[table]` header found by
/// scanning back from the span, plus the key under the span (`line.remote`).
///
/// The `toml` crate keeps its key path private; it prints it as a last line "in `a.b`" when the
/// error carries no input text, which is how it is read here.
pub fn toml_error_key(err: &toml::de::Error, text: &str) -> Option<String> {
    let mut bare_err = err.clone();
    bare_err.set_input(None);
    let rendered = bare_err.to_string();
    let tracked = rendered
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("in `")?.strip_suffix('`'))
        .filter(|k| !k.is_empty())
        .map(str::to_string);
    let span = err.span();
    let under = span
        .as_ref()
        .and_then(|span| text.get(span.clone()))
        .map(str::trim)
        .filter(|u| {
            !u.is_empty()
                && u.len() <= 64
                && u.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        });
    let parent = match tracked {
        Some(path) => Some(path),
        None => span.and_then(|span| enclosing_header(text, span.start)),
    };
    match (parent, under) {
        (Some(path), Some(key)) if path != key && !path.ends_with(&format!(".{key}")) => {
            Some(format!("{path}.{key}"))
        }
        (Some(path), _) => Some(path),
        (None, Some(key)) => Some(key.to_string()),
        (None, None) => None,
    }
}

/// The name of the `[table]` or `[[array]]` header above byte `offset`, if any.
fn enclosing_header(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset.min(text.len()))?;
    // The line holding `offset` is a header itself when the error is in the header.
    let start_of_line = before.rfind('\n').map_or(0, |nl| nl + 1);
    before[..start_of_line].lines().rev().find_map(|line| {
        let line = line.trim();
        let inner = line
            .strip_prefix("[[")
            .and_then(|l| l.split("]]").next())
            .or_else(|| line.strip_prefix('[').and_then(|l| l.split(']').next()))?;
        let name = inner.trim();
        (!name.is_empty()).then(|| name.to_string())
    })
}

/// One parameter of a machine file as listed by `machines show`: its dotted key and contents.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ParamRow {
    /// Dotted key path, e.g. `line.remote`.
    pub key: String,
    /// The value.
    pub value: f64,
    /// Unit.
    pub unit: String,
    /// Standard deviation, when given.
    pub stdev: Option<f64>,
    /// Source citation or estimate description.
    pub source: String,
    /// Whether the value is an estimate.
    pub estimated: bool,
}

/// Every [`Param`]-shaped table in a machine file, in file order, with its dotted key path.
///
/// Used for listing a machine's sources and for finding its estimated parameters without knowing
/// the family. Arrays of tables are indexed (`multi_line[0].q`).
pub fn param_rows(text: &str) -> Vec<ParamRow> {
    let Ok(value) = toml::from_str::<toml::Table>(text) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    walk(&toml::Value::Table(value), String::new(), &mut rows);
    rows
}

fn walk(value: &toml::Value, path: String, rows: &mut Vec<ParamRow>) {
    match value {
        toml::Value::Table(table) => {
            if let (Some(v), Some(toml::Value::String(source))) =
                (table.get("value"), table.get("source"))
            {
                let number = match v {
                    toml::Value::Float(f) => *f,
                    toml::Value::Integer(i) => *i as f64,
                    _ => f64::NAN,
                };
                rows.push(ParamRow {
                    key: path,
                    value: number,
                    unit: table
                        .get("unit")
                        .and_then(|u| u.as_str())
                        .unwrap_or("")
                        .to_string(),
                    stdev: table.get("stdev").and_then(|s| match s {
                        toml::Value::Float(f) => Some(*f),
                        toml::Value::Integer(i) => Some(*i as f64),
                        _ => None,
                    }),
                    source: source.clone(),
                    estimated: table
                        .get("estimated")
                        .and_then(|e| e.as_bool())
                        .unwrap_or(false),
                });
                return;
            }
            for (k, v) in table {
                let child = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(v, child, rows);
            }
        }
        toml::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                walk(v, format!("{path}[{i}]"), rows);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_is_one_based() {
        let ctx = SpecContext::new("f.toml", "a = 1\nbb = 2\n");
        assert_eq!(ctx.position(0), (1, 1));
        assert_eq!(ctx.position(6), (2, 1));
        assert_eq!(ctx.position(9), (2, 4));
    }

    fn checked(text: &str) -> Result<f64, SpecError> {
        #[derive(Deserialize)]
        struct One {
            p: Param,
        }
        let ctx = SpecContext::new("p.toml", text);
        let one: One = ctx.parse()?;
        ctx.check(&one.p, "p", "ns", Domain::Positive)
    }

    #[test]
    fn provenance_fields_are_optional_and_checked_together() {
        // The old format still loads.
        assert_eq!(
            checked(r#"p = { value = 2.0, unit = "ns", source = "s" }"#).unwrap(),
            2.0
        );
        let full = r#"p = { value = 2.0, unit = "ns", source = "s", benchmark = "read_local E", host = "X", measured_at = "2026-11-22T13:00:00Z", samples = 200, mad = 0.1, cv = 0.07, r2 = 0.99 }"#;
        assert_eq!(checked(full).unwrap(), 2.0);
        let missing = r#"p = { value = 2.0, unit = "ns", source = "s", benchmark = "b", host = "X", samples = 3 }"#;
        let e = checked(missing).unwrap_err().to_string();
        assert!(e.contains("measured_at is missing"), "{e}");
        let both = full.replace("r2 = 0.99", "estimated = true");
        assert!(checked(&both)
            .unwrap_err()
            .to_string()
            .contains("both measured"));
        let bad_r2 = full.replace("r2 = 0.99", "r2 = 1.5");
        assert!(checked(&bad_r2).unwrap_err().to_string().contains("r2"));
        let neg_mad = full.replace("mad = 0.1", "mad = -1.0");
        assert!(checked(&neg_mad).unwrap_err().to_string().contains("mad"));
        let zero = full.replace("samples = 200", "samples = 0");
        assert!(checked(&zero).unwrap_err().to_string().contains("samples"));
        let unknown = full.replace("cv = 0.07", "cvv = 0.07");
        assert!(checked(&unknown)
            .unwrap_err()
            .to_string()
            .contains("unknown field"));
    }

    #[test]
    fn param_rows_finds_nested_params() {
        let text = r#"
name = "x"
[line]
local = { value = 8.6, unit = "ns", source = "seed 000, Table 1.5b" }
[[multi_line]]
q = { value = 1.0, unit = "ns", source = "s", estimated = true, stdev = 2 }
"#;
        let rows = param_rows(text);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].key, "line.local");
        assert_eq!(rows[1].key, "multi_line[0].q");
        assert!(rows[1].estimated);
        assert_eq!(rows[1].stdev, Some(2.0));
    }
}
