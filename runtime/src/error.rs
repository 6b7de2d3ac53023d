//! The error type of the safe API.

use std::fmt;

/// What went wrong. Bad input is reported, never a panic.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No backend of that name exists in this build.
    UnknownBackend(String),
    /// The backend exists but the running CPU lacks the features it needs.
    BackendUnavailable(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownBackend(name) => write!(f, "no backend named {name:?} in this build"),
            Error::BackendUnavailable(name) => {
                write!(f, "backend {name} needs CPU features this machine lacks")
            }
        }
    }
}

impl std::error::Error for Error {}
