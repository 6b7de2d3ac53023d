//! The riscv64 side of the interpreter ([`super::interp`]): the [`Sem`](super::riscv64::Sem) table's machine at
//! a VLEN the caller chooses (the [`Interp::Model`]), the LP64D ABI: arguments in a0..a7, the stack pointer in
//! sp, the return through ra ([`ret`](crate::isa::riscv64::Op::ret)). Memory is any [`Memory`], e.g.
//! [`Flat`](super::interp::Flat).

use super::interp::Interp;
use super::riscv64::{sem, Machine, State};
use super::{Fault, Flow, Memory};
use crate::ir::Inst;
use crate::isa::riscv64::{Riscv64, X};

/// The stack pointer, x2.
const SP: usize = 2;

impl Interp for Riscv64 {
    type State = State;
    type Machine<'m> = Machine<'m>;
    /// VLEN, bits per vector register.
    type Model = usize;
    const ENTRY_MISALIGN: u64 = 0;
    fn state(vlen: usize) -> State {
        State::new(vlen)
    }
    fn machine<'m>(state: State, mem: &'m mut dyn Memory) -> Machine<'m> {
        Machine { state, mem }
    }
    fn state_of<'a>(m: &'a Machine<'_>) -> &'a State {
        &m.state
    }
    fn sp(s: &State) -> u64 {
        s.x[SP]
    }
    fn set_sp(s: &mut State, v: u64) {
        s.x[SP] = v;
    }
    fn set_gpr(s: &mut State, r: X, v: u64) {
        s.x[r.0 as usize] = v;
    }
    fn exec<'o>(m: &mut Machine<'_>, inst: &'o Inst<Riscv64>) -> Result<Flow<'o>, Fault> {
        (sem(inst.op).exec)(m, &inst.operands)
    }
}
