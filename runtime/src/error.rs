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
    /// A buffer has a length the operation does not accept (e.g. ECB data not a multiple of 16 bytes).
    InvalidLength {
        /// What the buffer is.
        what: &'static str,
        /// Its length in bytes.
        len: usize,
    },
    /// The nonce length is not one the mode accepts (GCM: non-empty; CCM: 7..=13 bytes).
    InvalidNonceLength {
        /// The length given.
        len: usize,
    },
    /// The tag length is not one the mode accepts (CCM: 4..=16 bytes and even).
    InvalidTagLength {
        /// The length given.
        len: usize,
    },
    /// Authentication failed: the message, associated data, nonce or tag was altered (nothing was decrypted).
    TagMismatch,
    /// An environment variable the runtime reads has a value it does not know (see
    /// [`crate::backend_override`]); the dispatchers go on as if it were unset.
    InvalidEnvironment {
        /// The variable (`ASMGEN_BACKEND`, `ASMGEN_ISA`).
        var: &'static str,
        /// Its value.
        value: String,
        /// The values it takes.
        expected: &'static str,
    },
    /// The backend has no kernels for what was asked (e.g. fused GCM on a set that composes it).
    Unsupported {
        /// What was asked.
        what: &'static str,
        /// The backend.
        backend: &'static str,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownBackend(name) => write!(f, "no backend named {name:?} in this build"),
            Error::BackendUnavailable(name) => {
                write!(f, "backend {name} needs CPU features this machine lacks")
            }
            Error::InvalidLength { what, len } => write!(f, "{what}: length {len} is not allowed"),
            Error::InvalidNonceLength { len } => write!(f, "nonce length {len} is not allowed"),
            Error::InvalidTagLength { len } => write!(f, "tag length {len} is not allowed"),
            Error::TagMismatch => f.write_str("authentication failed"),
            Error::InvalidEnvironment { var, value, expected } => {
                write!(f, "{var}={value:?} is not one of {expected}")
            }
            Error::Unsupported { what, backend } => write!(f, "backend {backend} has no {what} kernels"),
        }
    }
}

impl std::error::Error for Error {}
