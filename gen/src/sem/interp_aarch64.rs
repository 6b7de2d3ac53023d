//! The aarch64 side of the interpreter ([`super::interp`]): the [`Sem`](super::aarch64::Sem) table's machine,
//! AAPCS64 (x0..x7, then the stack), `sp` at register 31 of the state. It runs on any host; memory is whatever
//! [`Memory`] the caller gives.

use super::aarch64::{sem, Machine, State};
use super::interp::Interp;
use super::{Fault, Flow, Memory};
use crate::ir::Inst;
use crate::isa::aarch64::{Aarch64, X};

impl Interp for Aarch64 {
    type State = State;
    type Machine<'m> = Machine<'m>;
    type Model = ();
    const ENTRY_MISALIGN: u64 = 0;
    fn state(_: ()) -> State {
        State::default()
    }
    fn machine<'m>(state: State, mem: &'m mut dyn Memory) -> Machine<'m> {
        Machine { state, mem }
    }
    fn state_of<'a>(m: &'a Machine<'_>) -> &'a State {
        &m.state
    }
    fn sp(s: &State) -> u64 {
        s.x[31]
    }
    fn set_sp(s: &mut State, v: u64) {
        s.x[31] = v;
    }
    fn set_gpr(s: &mut State, r: X, v: u64) {
        s.x[r.0 as usize] = v;
    }
    fn exec<'o>(m: &mut Machine<'_>, inst: &'o Inst<Aarch64>) -> Result<Flow<'o>, Fault> {
        (sem(inst.op).exec)(m, &inst.operands)
    }
}
