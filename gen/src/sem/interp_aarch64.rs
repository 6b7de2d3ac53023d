//! The aarch64 side of the interpreter ([`super::interp`]): the [`Sem`](super::aarch64::Sem) table's machine,
//! AAPCS64 (x0..x7, then the stack), `sp` at register 31 of the state. It runs on any host; memory is whatever
//! [`Memory`](super::Memory) the caller gives.

use super::aarch64::State;
use super::interp::interp_isa;
use crate::isa::aarch64::Aarch64;

interp_isa!(Aarch64, aarch64, x, sp: 31, misalign: 0, model: (), state: |()| State::default());
