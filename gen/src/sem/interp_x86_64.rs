//! The x86_64 side of the interpreter ([`super::interp`]): the [`Sem`](super::x86_64::Sem) table's machine, the
//! stack pointer in rsp, an entry stack pointer 8 below a 16-byte boundary (the return address a call pushes).

use super::interp::Interp;
use super::x86_64::{sem, Machine, State};
use super::{Fault, Flow, Memory};
use crate::ir::Inst;
use crate::isa::x86_64::{Gpr, X86_64};

impl Interp for X86_64 {
    type State = State;
    type Machine<'m> = Machine<'m>;
    type Model = ();
    const ENTRY_MISALIGN: u64 = 8;
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
        s.gpr[4]
    }
    fn set_sp(s: &mut State, v: u64) {
        s.gpr[4] = v;
    }
    fn set_gpr(s: &mut State, r: Gpr, v: u64) {
        s.gpr[r.0 as usize] = v;
    }
    fn exec<'o>(m: &mut Machine<'_>, inst: &'o Inst<X86_64>) -> Result<Flow<'o>, Fault> {
        (sem(inst.op).exec)(m, &inst.operands)
    }
}
