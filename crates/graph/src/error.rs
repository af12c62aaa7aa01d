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
    /// The tree is malformed.
    #[error("tree `{tree}`: {source}")]
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
    /// No thread can make progress: the blocked waits, one per thread.
    #[error("the program deadlocks: {0}")]
    Deadlock(String),
}
