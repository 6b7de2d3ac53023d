//! Kernel descriptions written with the asmgen builder, and the catalog of listings they produce.
//!
//! * [`ghash`]: GHASH and POLYVAL (one description; x86_64 PCLMULQDQ, aarch64 PMULL, riscv64 Zbc).
//! * [`catalog`]: which listings exist for which target.

#![warn(missing_docs)]

pub mod catalog;
pub mod ghash;
