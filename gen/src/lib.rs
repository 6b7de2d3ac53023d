//! asmgen: one instruction description per ISA, a typed builder that kernels are written with, and emitters
//! that turn the result into checked-in assembly listings (and, later, JIT code).
//!
//! * [`target`]: architectures, operating systems, ABIs and object-file flavours.
//! * [`isa`]: the per-ISA instruction tables ([`isa::x86_64`], [`isa::aarch64`], [`isa::riscv64`]).
//! * [`builder`]: the typed builder (methods generated from the tables).
//! * [`ir`]: functions and listings as data.
//! * [`emit`]: GNU as listings and Rust declarations.
//! * [`lower`]: machine code for the JIT (aarch64, riscv64), laid out as the linked listing.
//! * [`report`]: what each function requires and uses, for audits.

#![warn(missing_docs)]

pub mod abi;
pub mod builder;
pub mod emit;
pub mod error;
pub mod feature;
pub mod hash;
pub mod ir;
pub mod isa;
pub mod label;
pub mod lower;
pub mod platform;
pub mod report;
pub mod target;

pub use builder::{Builder, GenError};
pub use feature::{Feature, FeatureSet};
pub use ir::{CType, Function, Listing};
pub use isa::InstructionSet;
pub use label::Label;
pub use platform::Isa;
pub use target::{Abi, Arch, Os, Target};
