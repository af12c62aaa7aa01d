//! Error types of the graph crate. Every error renders as one line that names where the problem
//! is: the `.cla` file with line and column, the tree text, or the blocked waits.

use modelopt_model::ccnuma::tree::TreeError;

/// A `.cla` text (or a built program) that does not follow the format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}:{line}:{column}: {message}")]
pub struct ParseError {
    /// File name, or `builder`.
    pub origin: String,
    /// 1-based line (0 for built programs).
    pub line: usize,
    /// 1-based column (0 for built programs).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// A program that cannot be turned into a CLa graph for a tree and a machine.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// The program text is malformed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The program file cannot be read (missing, not a regular file, too large, not UTF-8).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The tree is malformed (the tree text is shortened in the message: see [`clip`]).
    #[error("tree `{}`: {source}", clip(tree))]
    Tree {
        /// The tree as given.
        tree: String,
        /// What is wrong with it.
        source: TreeError,
    },
    /// The tree does not fit the machine or the requested thread count.
    #[error("{0}")]
    Threads(String),
    /// An expression cannot be evaluated for one thread (e.g. `parent` of the root).
    #[error("{origin}:{line}:{column}: in thread {thread}: {message}")]
    Eval {
        /// File.
        origin: String,
        /// Line of the op.
        line: usize,
        /// Column of the op.
        column: usize,
        /// The thread being instantiated.
        thread: u32,
        /// What failed.
        message: String,
    },
    /// An analysis would need more steps than its budget (estimated before it starts).
    #[error("the CLa graph is too large to analyse: {what} needs more than the limit of {limit} steps ({needed} estimated before starting, or counted when stopped)")]
    TooLarge {
        /// Which analysis.
        what: &'static str,
        /// Its steps: an upper bound estimated before it started (line stealing, congestion), or
        /// the count when it was stopped at the limit (the untimed execution).
        needed: u64,
        /// The budget.
        limit: u64,
    },
    /// No thread can make progress: the blocked waits, one per thread.
    #[error("the program deadlocks: {0}")]
    Deadlock(String),
}

/// A user's file that is not read: it is missing or unreadable, not a regular file (a FIFO would
/// block forever, a device might never end), larger than the limit, or not UTF-8.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The operating system refused (missing file, no permission, ...).
    #[error("{path}: cannot read: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// The system's reason.
        message: String,
    },
    /// Not a regular file; nothing was read from it.
    #[error("{path}: is a {kind}, not a regular file (refused without reading it)")]
    NotRegular {
        /// The path as given.
        path: String,
        /// `FIFO`, `directory`, `socket`, `character device`, `block device`.
        kind: &'static str,
    },
    /// Larger than the limit.
    #[error("{path}: larger than the limit of {limit} bytes")]
    TooLarge {
        /// The path as given.
        path: String,
        /// The limit, bytes.
        limit: u64,
    },
    /// Not UTF-8 text.
    #[error("{path}:{line}:{column}: invalid UTF-8 at byte offset {offset} of the file (the column counts bytes)")]
    Utf8 {
        /// The path as given.
        path: String,
        /// 1-based line of the first invalid byte.
        line: usize,
        /// 1-based byte of that line.
        column: usize,
        /// 0-based byte offset in the file.
        offset: usize,
    },
}

/// A path or other user text kept whole in a one-line error, with control characters escaped (a
/// file name may contain a newline).
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The longest user text quoted whole in an error message, in characters.
pub const CLIP_CHARS: usize = 60;

/// User text as quoted in one-line errors: control characters escaped (a quoted text never
/// breaks the line), and a text longer than [`CLIP_CHARS`] characters cut with an ellipsis and
/// its length, so a 20,000-node tree or a 300-digit number is not echoed in full.
///
/// ```
/// use modelopt_graph::error::clip;
/// assert_eq!(clip("0(1,2)"), "0(1,2)");
/// assert_eq!(clip("a\nb"), "a\\nb");
/// let long = "9".repeat(309);
/// assert_eq!(clip(&long), format!("{}… [309 characters]", "9".repeat(40)));
/// ```
pub fn clip(text: &str) -> String {
    let count = text.chars().count();
    let escape = |c: char| -> String {
        if c.is_control() {
            c.escape_default().collect()
        } else {
            c.to_string()
        }
    };
    if count <= CLIP_CHARS {
        text.chars().map(escape).collect()
    } else {
        let head: String = text.chars().take(40).map(escape).collect();
        format!("{head}… [{count} characters]")
    }
}
