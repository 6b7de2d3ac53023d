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

impl GenError {
    /// An error in `function` (or the tool's step where no function is at fault): `message` says what is
    /// wrong and what was expected.
    pub fn new(function: impl Into<String>, message: impl Into<String>) -> GenError {
        GenError { function: function.into(), message: message.into() }
    }
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.function, self.message)
    }
}

impl std::error::Error for GenError {}
