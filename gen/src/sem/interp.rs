//! The interpreter driver, one for every ISA: a [`Function`]'s instruction list (prologue, body and epilogue as
//! the listing lays them out) decoded once into a [`Program`], branch targets resolved to indices, and run by the
//! ISA's semantics table through the [`Interp`] trait, which says what differs per ISA: the state and machine
//! types, where the stack pointer is, how one instruction executes, and the machine's parameters (riscv64's
//! VLEN). The ISAs' sides: [`super::interp_x86_64`], [`super::interp_aarch64`], [`super::interp_riscv64`]. And
//! [`Flat`], a memory of separate regions, that the interpreter's callers and the constant-time checker
//! ([`super::ct`]) use.

use super::{Fault, Flow, Memory};
use crate::abi::ArgLoc;
use crate::hash::FastMap;
use crate::ir::{Function, Inst, Item};
use crate::label::Label;
use crate::{layout, InstructionSet, Isa};

/// An ISA the interpreter runs: its machine and how an instruction executes on it.
pub trait Interp: Isa {
    /// The architectural state (registers, flags, vector configuration).
    type State;
    /// The state and the memory an instruction runs on.
    type Machine<'m>;
    /// The machine's parameters beyond the ISA (riscv64: VLEN in bits; `()` elsewhere).
    type Model: Copy;
    /// Bytes the stack pointer has to be below a 16-byte boundary on entry (x86_64: 8, the return address).
    const ENTRY_MISALIGN: u64;
    /// A zeroed state of a machine of `model`.
    fn state(model: Self::Model) -> Self::State;
    /// The machine of `state` on `mem`.
    fn machine<'m>(state: Self::State, mem: &'m mut dyn Memory) -> Self::Machine<'m>;
    /// The state of a machine.
    fn state_of<'a>(m: &'a Self::Machine<'_>) -> &'a Self::State;
    /// The state of a machine, to change.
    fn state_of_mut<'a>(m: &'a mut Self::Machine<'_>) -> &'a mut Self::State;
    /// The stack pointer.
    fn sp(s: &Self::State) -> u64;
    /// Sets the stack pointer.
    fn set_sp(s: &mut Self::State, v: u64);
    /// Sets an argument register.
    fn set_gpr(s: &mut Self::State, r: Self::Gpr, v: u64);
    /// Executes one instruction.
    fn exec<'o>(m: &mut Self::Machine<'_>, inst: &'o Inst<Self>) -> Result<Flow<'o>, Fault>;
}

/// Implements [`Interp`] for an ISA whose semantics module `$sem` has `Machine { state, mem }`, `State` with the
/// general-purpose registers in the array `state.$gprs` (the stack pointer at index `$sp`) and `sem(op).exec`;
/// `$model` and `$state` give the machine's parameters and a fresh state from them.
macro_rules! interp_isa {
    ($isa:ty, $sem:ident, $gprs:ident, sp: $sp:expr, misalign: $mis:expr, model: $model:ty, state: $state:expr) => {
        impl $crate::sem::interp::Interp for $isa {
            type State = $crate::sem::$sem::State;
            type Machine<'m> = $crate::sem::$sem::Machine<'m>;
            type Model = $model;
            const ENTRY_MISALIGN: u64 = $mis;
            fn state(model: $model) -> Self::State {
                $state(model)
            }
            fn machine<'m>(state: Self::State, mem: &'m mut dyn $crate::sem::Memory) -> Self::Machine<'m> {
                $crate::sem::$sem::Machine { state, mem }
            }
            fn state_of<'a>(m: &'a Self::Machine<'_>) -> &'a Self::State {
                &m.state
            }
            fn state_of_mut<'a>(m: &'a mut Self::Machine<'_>) -> &'a mut Self::State {
                &mut m.state
            }
            fn sp(s: &Self::State) -> u64 {
                s.$gprs[$sp]
            }
            fn set_sp(s: &mut Self::State, v: u64) {
                s.$gprs[$sp] = v;
            }
            fn set_gpr(s: &mut Self::State, r: Self::Gpr, v: u64) {
                s.$gprs[r.0 as usize] = v;
            }
            fn exec<'o>(
                m: &mut Self::Machine<'_>,
                inst: &'o $crate::ir::Inst<$isa>,
            ) -> Result<$crate::sem::Flow<'o>, $crate::sem::Fault> {
                ($crate::sem::$sem::sem(inst.op).exec)(m, &inst.operands)
            }
        }
    };
}
pub(crate) use interp_isa;

/// The hook [`Program::run`] calls before each instruction, with its index.
pub type Hook<'h, I> = &'h mut dyn FnMut(usize, &Inst<I>, &mut <I as Interp>::Machine<'_>);

/// A function decoded for interpretation.
pub struct Program<I: InstructionSet> {
    /// The function's name.
    pub name: String,
    /// The instructions in order, each with the index a taken branch continues at.
    pub code: Vec<(Inst<I>, Option<usize>)>,
    /// The constants, by label name.
    pub consts: Vec<(Label, Vec<u8>)>,
    /// The ABI the function was built for.
    pub abi: crate::Abi,
    /// The types of its parameters (where Apple's AAPCS64 passes a stack argument depends on them).
    pub params: Vec<crate::ir::CType>,
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

impl<I: Interp> Program<I> {
    /// Decodes `f`: instructions in emission order, branch labels resolved (an operand's label that the
    /// function binds; a constant's label is not bound there).
    pub fn new(f: &Function<I>) -> Program<I> {
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
            *target = inst.operands.iter().filter_map(I::label).find_map(|l| at.get(l.name()).copied());
        }
        let consts = f.consts.iter().map(|c| (c.label.clone(), c.bytes.clone())).collect();
        Program { name: f.name.clone(), code, consts, abi: f.abi, params: f.signature.types() }
    }

    /// Runs from the first instruction until the return, calling `hook` before each instruction with its index.
    pub fn run(&self, m: &mut I::Machine<'_>, max_steps: u64, hook: Hook<'_, I>) -> Result<u64, Stop> {
        let (mut pc, mut steps, sp) = (0, 0u64, I::sp(I::state_of(m)));
        // The open calls: where each returns to, the stack pointer before it and the one its subroutine started with.
        let mut calls: Vec<(usize, u64, u64)> = Vec::new();
        while let Some((inst, target)) = self.code.get(pc) {
            steps += 1;
            if steps > max_steps {
                return Err(Stop::Steps(steps));
            }
            hook(pc, inst, m);
            let before = I::sp(I::state_of(m));
            match I::exec(m, inst).map_err(|f| Stop::Fault(pc, f))? {
                Flow::Next => pc += 1,
                Flow::Jump(_) => pc = target.expect("branch targets are resolved"),
                Flow::Call(_) => {
                    calls.push((pc + 1, before, I::sp(I::state_of(m))));
                    pc = target.expect("branch targets are resolved");
                }
                Flow::Ret => match calls.pop() {
                    Some((back, outer, inner)) if I::sp(I::state_of(m)) == inner => {
                        let state = I::state_of_mut(m);
                        I::set_sp(state, outer);
                        pc = back;
                    }
                    Some(_) => return Err(Stop::Unbalanced),
                    None => return if I::sp(I::state_of(m)) == sp { Ok(steps) } else { Err(Stop::Unbalanced) },
                },
            }
        }
        Ok(steps)
    }

    /// The entry state of a machine of `model`: the arguments where the ABI passes them, the stack pointer
    /// `stack_top - 64` and stack arguments above it (x86_64: above a return-address slot; keep `stack_top`
    /// [`Interp::ENTRY_MISALIGN`] below a 16-byte boundary to have the alignment a call leaves).
    pub fn setup(&self, mem: &mut dyn Memory, args: &[u64], stack_top: u64, model: I::Model) -> I::State {
        let mut s = I::state(model);
        let sp = stack_top - 64;
        I::set_sp(&mut s, sp);
        for (n, &a) in args.iter().enumerate() {
            // In order: a value written past a slot Apple's ABI packs to 4 bytes is overwritten by the next one.
            let at = if n < self.params.len() { I::arg_of(self.abi, &self.params, n) } else { I::arg(self.abi, n) };
            match at {
                ArgLoc::Reg(r) => I::set_gpr(&mut s, r, a),
                ArgLoc::Stack(off) => {
                    let _ = mem.write(sp.wrapping_add(off as u64), &a.to_le_bytes());
                }
            }
        }
        s
    }

    /// Calls the function on `args` on a machine of `model` with `mem` and the stack below `stack_top` (see
    /// [`Program::setup`]), at most `max_steps` instructions; returns the steps run.
    pub fn call(
        &self,
        mem: &mut dyn Memory,
        args: &[u64],
        stack_top: u64,
        model: I::Model,
        max_steps: u64,
    ) -> Result<u64, Stop> {
        let state = self.setup(mem, args, stack_top, model);
        self.run(&mut I::machine(state, mem), max_steps, &mut |_, _, _| {})
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
    pub fn map_consts<I: InstructionSet>(&mut self, p: &Program<I>) {
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
