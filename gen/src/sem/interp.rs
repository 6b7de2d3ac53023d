//! An x86_64 interpreter over a [`Function`]'s instruction list (prologue, body and epilogue as the listing lays
//! them out), decoded once into a vector of instructions with their branch targets resolved to indices, run by
//! the [`Sem`](super::x86_64::Sem) table; and [`Flat`], a memory of separate regions, that the interpreter's callers
//! and the constant-time checker ([`super::ct`]) use.

use super::x86_64::{sem, Machine, State};
use super::{Fault, Flow, Memory};
use crate::abi::{ArgLoc, Conventions};
use crate::hash::FastMap;
use crate::ir::{Function, Inst, Item};
use crate::isa::x86_64::X86_64;
use crate::label::Label;
use crate::layout;

/// A function decoded for interpretation.
pub struct Program {
    /// The function's name.
    pub name: String,
    /// The instructions in order, each with the index a taken branch continues at.
    pub code: Vec<(Inst<X86_64>, Option<usize>)>,
    /// The constants, by label name.
    pub consts: Vec<(Label, Vec<u8>)>,
    /// The ABI the function was built for.
    pub abi: crate::Abi,
}

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// A memory access outside the mapped regions, at an instruction index.
    Fault(usize, Fault),
    /// More steps than allowed.
    Steps(u64),
    /// The function returned with the stack pointer moved.
    Unbalanced,
}

impl Program {
    /// Decodes `f`: instructions in emission order, labels resolved.
    pub fn new(f: &Function<X86_64>) -> Program {
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
            if let Some(crate::isa::x86_64::Operand::Label(l)) = inst.operands.first() {
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
        hook: &mut dyn FnMut(usize, &Inst<X86_64>, &mut Machine<'_>),
    ) -> Result<u64, Stop> {
        let (mut pc, mut steps, sp) = (0, 0u64, m.state.gpr[4]);
        while let Some((inst, target)) = self.code.get(pc) {
            steps += 1;
            if steps > max_steps {
                return Err(Stop::Steps(steps));
            }
            hook(pc, inst, m);
            match (sem(inst.op).exec)(m, &inst.operands).map_err(|f| Stop::Fault(pc, f))? {
                Flow::Next => pc += 1,
                Flow::Jump(_) => pc = target.expect("branch targets are resolved"),
                Flow::Ret => return if m.state.gpr[4] == sp { Ok(steps) } else { Err(Stop::Unbalanced) },
            }
        }
        Ok(steps)
    }

    /// The entry state: the arguments where the ABI passes them (stack arguments written to `mem` above a
    /// return-address slot at `stack_top - 64`, the stack pointer; a `stack_top` 8 below a 16-byte boundary
    /// gives the alignment a call leaves).
    pub fn setup(&self, mem: &mut dyn Memory, args: &[u64], stack_top: u64) -> State {
        let mut s = State::default();
        s.gpr[4] = stack_top - 64;
        for (n, &a) in args.iter().enumerate() {
            match X86_64::arg(self.abi, n) {
                ArgLoc::Reg(r) => s.gpr[r.0 as usize] = a,
                ArgLoc::Stack(off) => {
                    let _ = mem.write(s.gpr[4].wrapping_add(off as u64), &a.to_le_bytes());
                }
            }
        }
        s
    }
}

/// One mapped region.
struct Region {
    base: u64,
    bytes: Vec<u8>,
}

/// Memory made of regions placed apart (a 4 KiB gap after each).
#[derive(Default)]
pub struct Flat {
    regions: Vec<Region>,
    /// Constant addresses by label name.
    pub labels: FastMap<String, u64>,
}

impl Flat {
    /// Maps the constants of `p` and names their addresses.
    pub fn map_consts(&mut self, p: &Program) {
        for (l, bytes) in &p.consts {
            let addr = self.map(bytes);
            self.labels.insert(l.name().to_string(), addr);
        }
    }

    /// Maps a copy of `bytes`; returns its address (64-byte aligned).
    pub fn map(&mut self, bytes: &[u8]) -> u64 {
        let end = self.regions.last().map_or(0x10_0000, |r| r.base + r.bytes.len() as u64);
        let base = (end + 4096 + 63) & !63;
        self.regions.push(Region { base, bytes: bytes.to_vec() });
        base
    }

    fn region(&mut self, addr: u64, len: usize) -> Result<(&mut Region, usize), Fault> {
        let r = self.regions.iter_mut().find(|r| addr >= r.base && addr + len as u64 <= r.base + r.bytes.len() as u64);
        let r = r.ok_or(Fault { addr, len, what: "unmapped" })?;
        let off = (addr - r.base) as usize;
        Ok((r, off))
    }

    /// The bytes at `addr`.
    pub fn bytes(&mut self, addr: u64, len: usize) -> Result<Vec<u8>, Fault> {
        let (r, off) = self.region(addr, len)?;
        Ok(r.bytes[off..off + len].to_vec())
    }
}

impl Memory for Flat {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let (r, off) = self.region(addr, out.len())?;
        out.copy_from_slice(&r.bytes[off..off + out.len()]);
        Ok(())
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let (r, off) = self.region(addr, data.len())?;
        r.bytes[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }
    fn label(&self, label: &Label) -> Option<u64> {
        self.labels.get(label.name()).copied()
    }
}
