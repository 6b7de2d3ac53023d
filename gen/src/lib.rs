//! asmgen: one instruction description per ISA, a typed builder that kernels are written with, and emitters
//! that turn the result into checked-in assembly listings and, through the JIT lowering, machine code.
//!
//! Layers, each importing only those above it:
//!
//! * leaves: [`label`], [`feature`], [`error`], [`hash`], [`target`] (one row per platform: architecture,
//!   OS, object format, ABI, syntax).
//! * [`isa`]: the instruction tables, operand kinds and registers ([`isa::x86_64`], [`isa::aarch64`],
//!   [`isa::riscv64`]).
//! * [`ir`]: functions (with their ABI) and listings as data.
//! * [`abi`]: calling conventions: argument locations, callee-saved registers, landing pads, prologues and
//!   epilogues with their unwind directives.
//! * [`syntax`]: how a target spells a listing (directives, comments, labels, raw words, padding).
//! * [`platform`]: [`Isa`], an instruction set with its conventions and spelling.
//! * [`builder`]: the typed builder (methods generated from the tables).
//! * [`layout`]: emission order, function alignment and the constant pool, shared by the emitter and the JIT.
//! * [`property`]: the GNU property note's control-flow-protection bits (IBT, SHSTK; BTI, PAC, GCS), derived
//!   from the functions.
//! * [`lower`]: machine code for the JIT; [`emit`]: GNU as and NASM listings and Rust declarations (the NASM
//!   listing reads GNU as's encoding choices from [`lower`]'s image); [`report`]: what each function requires
//!   and uses, for audits.

#![warn(missing_docs)]

pub mod abi;
pub mod builder;
pub mod emit;
pub mod error;
pub mod feature;
pub mod generate;
pub mod hash;
pub mod ir;
pub mod isa;
pub mod label;
pub mod layout;
pub mod lower;
pub mod platform;
pub mod property;
pub mod report;
pub mod sem;
pub mod syntax;
pub mod target;

pub use builder::{Builder, GenError, StackFrame};
pub use emit::c_header::SizeMacro;
pub use emit::gas::Visibility;
pub use feature::{Feature, FeatureSet};
pub use generate::{GeneratedFile, Generator, ListingSpec};
pub use ir::{CType, Function, Listing};
pub use isa::InstructionSet;
pub use label::Label;
pub use platform::Isa;
pub use target::{Abi, Arch, Os, Target};
