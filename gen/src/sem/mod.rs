//! Instruction semantics: a machine state, memory behind a trait (so an interpreter can hook every address), and
//! per ISA a table giving each instruction-table entry its operand roles, the flags it reads and writes and an
//! execution function: [`x86_64`], [`aarch64`] and [`riscv64`]. One interpreter driver ([`interp`]) and one
//! constant-time checker ([`ct`]) serve all three through traits ([`interp::Interp`], [`ct::Tainting`]) that
//! each ISA implements in its `interp_<isa>` and `ct_<isa>` module: its machine, and how taint moves through
//! one of its instructions.
//!
//! The semantics live in a table parallel to the ISA's own (`isa::x86_64::OPS`), keyed by the same `Op`: the
//! ISA table is a macro expanded twice (the data and the builder's methods) and shared in shape by three ISAs,
//! so a field there would touch every ISA's table and the builder at once; the parallel table is checked
//! complete and in `Op` order by a unit test, which keeps one home per instruction.

pub mod aarch64;
pub mod ct;
pub mod ct_aarch64;
pub mod ct_riscv64;
pub mod ct_x86_64;
pub mod interp;
pub mod interp_aarch64;
pub mod interp_riscv64;
pub mod interp_x86_64;
pub mod riscv64;
pub mod sm4;
pub mod x86_64;

use crate::label::Label;

/// Bytes of a vector register (512 bits: zmm).
pub const VEC_BYTES: usize = 64;
/// Number of vector registers (32: EVEX; VEX instructions name the first 16).
pub const VEC_REGS: usize = 32;

/// How an instruction uses an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read only (a memory operand's address registers are always read).
    R,
    /// Written only.
    W,
    /// Read and written.
    RW,
    /// Neither: an address computed but not accessed (`lea`), a branch target, an immediate.
    None,
}

/// A memory access the interpreter could not serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The address.
    pub addr: u64,
    /// The access's width in bytes.
    pub len: usize,
    /// What went wrong.
    pub what: &'static str,
}

/// Memory as the semantics see it: reads and writes by address, and the addresses of labels (constants).
pub trait Memory {
    /// Reads `out.len()` bytes at `addr`.
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault>;
    /// Writes `data` at `addr`.
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault>;
    /// The address of a label (a constant of the function), if it has one.
    fn label(&self, _label: &Label) -> Option<u64> {
        None
    }
}

/// What an instruction does to the control flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow<'a> {
    /// Continue with the next instruction.
    Next,
    /// Continue at a label.
    Jump(&'a Label),
    /// Return to the caller.
    Ret,
}
