//! The riscv64 side of the interpreter ([`super::interp`]): the [`Sem`](super::riscv64::Sem) table's machine at
//! a VLEN the caller chooses (the [`Interp::Model`](super::interp::Interp::Model), in bits), the LP64D ABI:
//! arguments in a0..a7, the stack pointer in sp (x2), the return through ra
//! ([`ret`](crate::isa::riscv64::Op::ret)). Memory is any [`Memory`](super::Memory), e.g.
//! [`Flat`](super::interp::Flat).

use super::interp::interp_isa;
use super::riscv64::State;
use crate::isa::riscv64::Riscv64;

interp_isa!(Riscv64, riscv64, x, sp: 2, misalign: 0, model: usize, state: State::new);
