//! An aarch64 interpreter over a [`Function`]'s instruction list (prologue, body and epilogue as the listing
//! lays them out), the same shape as the x86_64 one ([`super::interp`]): decoded once, branch targets resolved
//! to indices, run by the [`Sem`](super::aarch64::Sem) table, arguments set up per AAPCS64 (x0..x7, then the
//! stack). It runs on any host; memory is whatever [`Memory`](super::Memory) the caller gives.

use super::aarch64::{sem, Machine, State};
use super::interp::Stop;
use super::{Flow, Memory};
use crate::abi::{ArgLoc, Conventions};
use crate::hash::FastMap;
use crate::ir::{Function, Inst, Item};
use crate::isa::aarch64::{Aarch64, Operand};
use crate::label::Label;
use crate::layout;

/// A function decoded for interpretation.
pub struct Program {
    /// The function's name.
    pub name: String,
    /// The instructions in order, each with the index a taken branch continues at.
    pub code: Vec<(Inst<Aarch64>, Option<usize>)>,
    /// The constants, by label name.
    pub consts: Vec<(Label, Vec<u8>)>,
    /// The ABI the function was built for.
    pub abi: crate::Abi,
}

impl Program {
    /// Decodes `f`: instructions in emission order, labels resolved.
    pub fn new(f: &Function<Aarch64>) -> Program {
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
        hook: &mut dyn FnMut(usize, &Inst<Aarch64>, &mut Machine<'_>),
    ) -> Result<u64, Stop> {
        let (mut pc, mut steps, sp) = (0, 0u64, m.state.x[31]);
        while let Some((inst, target)) = self.code.get(pc) {
            steps += 1;
            if steps > max_steps {
                return Err(Stop::Steps(steps));
            }
            hook(pc, inst, m);
            match (sem(inst.op).exec)(m, &inst.operands).map_err(|f| Stop::Fault(pc, f))? {
                Flow::Next => pc += 1,
                Flow::Jump(_) => pc = target.expect("branch targets are resolved"),
                Flow::Ret => return if m.state.x[31] == sp { Ok(steps) } else { Err(Stop::Unbalanced) },
            }
        }
        Ok(steps)
    }

    /// The entry state: the arguments where AAPCS64 passes them (x0..x7, then 8-byte slots at `sp`), `sp` =
    /// `stack_top - 64` (keep `stack_top` 16-byte aligned).
    pub fn setup(&self, mem: &mut dyn Memory, args: &[u64], stack_top: u64) -> State {
        let mut s = State::default();
        s.x[31] = stack_top - 64;
        for (n, &a) in args.iter().enumerate() {
            match Aarch64::arg(self.abi, n) {
                ArgLoc::Reg(r) => s.x[r.0 as usize] = a,
                ArgLoc::Stack(off) => {
                    let _ = mem.write(s.x[31].wrapping_add(off as u64), &a.to_le_bytes());
                }
            }
        }
        s
    }
}
