//! Kernel descriptions written with the asmgen builder, and the catalog of listings they produce.
//!
//! * [`ghash`]: GHASH and POLYVAL (one description; x86_64 PCLMULQDQ, aarch64 PMULL, riscv64 Zbc).
//! * [`sm4`]: SM4 (x86_64: AES-NI S-box with AVX and AVX2).
//! * [`catalog`]: which listings exist for which target.

#![warn(missing_docs)]

pub mod catalog;
pub mod ghash;
pub mod sm4;
