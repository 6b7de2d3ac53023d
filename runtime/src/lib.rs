//! asmgen-runtime: the library an application links.
//!
//! It links the host's checked-in listings (`generated/<target>/*.S`, assembled by `build.rs`), picks the
//! best kernel for the running CPU (with a portable Rust fallback), and wraps them in a safe API:
//!
//! * [`Ghash`] and [`Polyval`]: `new`, `update_padded`, `finalize`, `backend`, plus RustCrypto's
//!   `UniversalHash` and `KeyInit`.
//!
//! `ASMGEN_BACKEND=portable|aot` overrides the choice (for tests and benchmarks).

#![warn(missing_docs)]

#[cfg(asmgen_aot)]
mod aot;
mod dispatch;
mod error;
mod portable;
mod universal;

pub use dispatch::hash_backends;
pub use error::Error;
pub use universal::{Ghash, Polyval};

/// Names of the GHASH/POLYVAL backends this CPU can run, best last.
pub fn backends() -> Vec<&'static str> {
    hash_backends().into_iter().filter(|(_, ok)| *ok).map(|(n, _)| n).collect()
}
