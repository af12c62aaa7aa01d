//! Error types of the model crate.
//!
//! Two kinds of failure exist: a machine file that cannot be turned into a model
//! ([`SpecError`], which always knows the file and, where there is one, the line, column and key),
//! and a request that a model cannot price ([`ModelError`]: impossible thread counts, parameters
//! outside an algorithm's domain, and so on). Both render as one line, suitable for a CLI.

use std::fmt;

/// A machine specification that could not be read, parsed or validated.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SpecError {
    /// Where the specification came from: a file path, or `bundled:NAME`.
    pub origin: String,
    /// 1-based line and column of the offending text, when known.
    pub position: Option<(usize, usize)>,
    /// Dotted key of the offending value (e.g. `line.remote.value`), when known.
    pub key: Option<String>,
    /// What is wrong, in one line.
    pub message: String,
}

impl SpecError {
    /// An error about a whole file (unreadable, unknown name, ...).
    pub fn file(origin: impl Into<String>, message: impl Into<String>) -> Self {
        SpecError {
            origin: origin.into(),
            position: None,
            key: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some((line, column)) = self.position {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": ")?;
        if let Some(key) = &self.key {
            write!(f, "key `{key}`: ")?;
        }
        // Keep the error on one line whatever the underlying parser said.
        let one_line: Vec<&str> = self.message.lines().map(str::trim).collect();
        write!(f, "{}", one_line.join(" "))
    }
}

impl std::error::Error for SpecError {}

/// A request that a model cannot price.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The thread count is outside what the model or machine supports.
    #[error("{threads} threads: {reason}")]
    Threads {
        /// The requested thread count.
        threads: u64,
        /// Why it is not allowed.
        reason: String,
    },
    /// A parameter value is outside the algorithm's domain.
    #[error("parameter `{name}` = {value}: {reason}")]
    Parameter {
        /// Parameter name as it appears in `params`.
        name: String,
        /// The offending value, rendered.
        value: String,
        /// Why it is not allowed.
        reason: String,
    },
    /// The configuration is of the wrong kind for the algorithm (e.g. a barrier degree given to
    /// a tree algorithm).
    #[error("{algorithm} takes {expected}, got `{got}`")]
    WrongParams {
        /// The algorithm, or the kind of algorithm.
        algorithm: String,
        /// What it takes.
        expected: String,
        /// What it was given, rendered.
        got: String,
    },
    /// A parameter the algorithm needs is missing.
    #[error("{algorithm} needs the parameter `{name}` (e.g. {example})")]
    MissingParameter {
        /// The algorithm.
        algorithm: String,
        /// The missing parameter.
        name: String,
        /// An example value, `name=value`.
        example: String,
    },
    /// The models price messages, and the request is for one small item (size 0).
    #[error("{models} need a message size of at least 1 byte")]
    SizeRequired {
        /// Which models, e.g. "the large-broadcast models".
        models: String,
    },
    /// The message size is above what the model covers.
    #[error("{size_bytes} B is more than {what} ({limit_bytes} B)")]
    SizeLimit {
        /// The requested size.
        size_bytes: u64,
        /// The largest size the model covers.
        limit_bytes: u64,
        /// What sets the limit.
        what: String,
    },
    /// The machine file lacks the parameters this request needs.
    #[error("{machine} has no {what}")]
    NotMeasured {
        /// The machine.
        machine: String,
        /// What is missing (and, where useful, what there is).
        what: String,
    },
    /// The model does not cover this case at all.
    #[error("{what} is not modelled: {why}")]
    NotModelled {
        /// The case.
        what: String,
        /// Why, with the seed's words where it gives them.
        why: String,
    },
    /// The configuration is well defined, but outside the domain where the model's source
    /// validates it (e.g. more concurrent readers of one buffer than the contention-free model
    /// covers). A search skips it like an infeasible configuration: its price would be a number
    /// the model cannot stand behind.
    #[error("outside the model's validity: {reason}")]
    OutsideValidity {
        /// Why, with the source that sets the limit.
        reason: String,
    },
}

impl ModelError {
    /// Whether the request would apply with a message size (the CLI then hints at `--size`).
    pub fn needs_size(&self) -> bool {
        matches!(self, ModelError::SizeRequired { .. })
    }
}

/// User text short enough for a one-line error: at most 60 characters, then an ellipsis and
/// the full length.
pub fn clip(s: &str) -> String {
    const KEEP: usize = 60;
    let count = s.chars().count();
    if count <= KEEP {
        s.to_string()
    } else {
        let head: String = s.chars().take(KEEP).collect();
        format!("{head}… ({count} characters)")
    }
}
