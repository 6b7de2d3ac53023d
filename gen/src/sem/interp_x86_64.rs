//! The x86_64 side of the interpreter ([`super::interp`]): the [`Sem`](super::x86_64::Sem) table's machine, the
//! stack pointer in rsp, an entry stack pointer 8 below a 16-byte boundary (the return address a call pushes).

use super::interp::interp_isa;
use super::x86_64::State;
use crate::isa::x86_64::X86_64;

interp_isa!(X86_64, x86_64, gpr, sp: 4, misalign: 8, model: (), state: |()| State::default());
