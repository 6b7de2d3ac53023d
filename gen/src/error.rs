//! The error generation and lowering report. A leaf module: it imports nothing else of the crate.

use std::fmt;

/// An error found while generating a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenError {
    /// The function being generated.
    pub function: String,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.function, self.message)
    }
}

impl std::error::Error for GenError {}
