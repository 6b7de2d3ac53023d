//! A riscv64 interpreter over a [`Function`]'s instruction list (prologue, body and epilogue as the listing lays
//! them out), decoded once with branch targets resolved to indices and run by the
//! [`Sem`](super::riscv64::Sem) table, at a VLEN the caller chooses; the LP64D ABI: arguments in a0..a7, the
//! stack pointer in sp, the return through ra ([`ret`](crate::isa::riscv64::Op::ret)). Memory is any
//! [`Memory`], e.g. [`Flat`](super::interp::Flat).

use super::interp::Stop;
use super::riscv64::{sem, Machine, State};
use super::{Flow, Memory};
use crate::abi::{ArgLoc, Conventions};
use crate::hash::FastMap;
use crate::ir::{Function, Inst, Item};
use crate::isa::riscv64::{Operand, Riscv64};
use crate::label::Label;
use crate::layout;

/// The stack pointer, x2.
const SP: usize = 2;

/// A riscv64 function decoded for interpretation.
pub struct Program {
    /// The function's name.
    pub name: String,
    /// The instructions in order, each with the index a taken branch continues at.
    pub code: Vec<(Inst<Riscv64>, Option<usize>)>,
    /// The constants, by label name.
    pub consts: Vec<(Label, Vec<u8>)>,
    /// The ABI the function was built for.
    pub abi: crate::Abi,
}

impl Program {
    /// Decodes `f`: instructions in emission order, labels resolved.
    pub fn new(f: &Function<Riscv64>) -> Program {
        let items = layout::function_items(f);
        let (mut code, mut at) = (Vec::new(), FastMap::default());
        for item in items.iter() {
            match item {
                Item::Inst(i) => code.push((Inst { op: i.op, operands: i.operands.clone() }, None)),
                Item::Label(l) => {
                    at.insert(l.name().to_string(), code.len());
                }
                _ => {}
            }
        }
        for (inst, target) in &mut code {
            if let Some(Operand::Label(l)) = inst.operands.last() {
                *target = at.get(l.name()).copied();
            }
        }
        let consts = f.consts.iter().map(|c| (c.label.clone(), c.bytes.clone())).collect();
        Program { name: f.name.clone(), code, consts, abi: f.abi }
    }

    /// Runs from the first instruction until `ret`, calling `hook` before each instruction with its index.
    pub fn run(
        &self,
        m: &mut Machine<'_>,
        max_steps: u64,
        hook: &mut dyn FnMut(usize, &Inst<Riscv64>, &mut Machine<'_>),
    ) -> Result<u64, Stop> {
        let (mut pc, mut steps, sp) = (0, 0u64, m.state.x[SP]);
        while let Some((inst, target)) = self.code.get(pc) {
            steps += 1;
            if steps > max_steps {
                return Err(Stop::Steps(steps));
            }
            hook(pc, inst, m);
            match (sem(inst.op).exec)(m, &inst.operands).map_err(|f| Stop::Fault(pc, f))? {
                Flow::Next => pc += 1,
                Flow::Jump(_) => pc = target.expect("branch targets are resolved"),
                Flow::Ret => return if m.state.x[SP] == sp { Ok(steps) } else { Err(Stop::Unbalanced) },
            }
        }
        Ok(steps)
    }

    /// The entry state at `vlen` bits per vector register: the arguments where LP64D passes them (beyond a0..a7
    /// on the stack from `stack_top`, which should be 16-byte aligned), sp = `stack_top`.
    pub fn setup(&self, mem: &mut dyn Memory, args: &[u64], stack_top: u64, vlen: usize) -> State {
        let mut s = State::new(vlen);
        s.x[SP] = stack_top;
        for (n, &a) in args.iter().enumerate() {
            match Riscv64::arg(self.abi, n) {
                ArgLoc::Reg(r) => s.x[r.0 as usize] = a,
                ArgLoc::Stack(off) => {
                    let _ = mem.write(stack_top.wrapping_add(off as u64), &a.to_le_bytes());
                }
            }
        }
        s
    }
}
