//! Lowering of functions to machine code, for the JIT: the same [`Function`]s the listings are printed from,
//! with the same prologue, epilogue, alignment and constant pool ([`crate::layout`]), encoded through
//! the table's encodings and with every label resolved.
//!
//! * [`fixed`]: aarch64 and riscv64, whose table entries carry their 32-bit encodings ([`crate::isa::fixed`]).
//! * [`win64_unwind`]: the Win64 unwind data of an x86-64 image, for a JIT that registers it on Windows.
//! * [`x86_64`]: x86-64, whose table entries name the iced-x86 codes of their forms; branch sizes are relaxed
//!   as GNU as relaxes them and alignment is filled with GNU as's NOPs.
//!
//! An [`Image`] is laid out as the linked listing is: the functions in order, each at a 32-byte boundary and
//! starting with the landing pad, alignment padding filled with NOPs, then the constants (in name order, each
//! at its alignment) from the first multiple of the largest constant alignment after the code. Linking the
//! listing's object with `.text` at 0 and `.rodata` at [`Image::rodata_offset`] gives the same bytes (tested
//! in `tests/tests/jit.rs`).
//!
//! aarch64's `adrp`/`add :lo12:` pair depends on where the code is placed modulo 4 KiB: an image is encoded
//! for a base address that is a multiple of 4096 (any page-aligned mapping). riscv64 (`auipc`), x86-64
//! (RIP-relative operands) and every branch are position-independent.

pub mod fixed;
mod image;
pub mod win64_unwind;
pub mod x86_64;

pub use fixed::FixedIsa;
pub use image::{Image, Lower, Symbol};

use crate::error::GenError;
use crate::ir::Function;

/// Lowers `functions` (in order) into one image ([`Lower::lower`]).
pub fn lower<I: Lower>(functions: &[&Function<I>]) -> Result<Image, GenError> {
    I::lower(functions)
}

/// The text of each function of `image` ([`Lower::disassemble`]).
pub fn disassemble<I: Lower>(functions: &[&Function<I>], image: &Image) -> Result<Vec<String>, GenError> {
    I::disassemble(functions, image)
}
