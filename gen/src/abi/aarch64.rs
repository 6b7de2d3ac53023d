//! aarch64: AAPCS64 (Linux, macOS and Windows on Arm use its register roles): arguments in x0-x7, then the
//! stack from sp; x19-x28 and the low halves of v8-v15 are callee-saved (and x29, x30 are saved when the body
//! touches them). Apple's variant ([`Abi::AppleAapcs64`]) and Windows' ([`Abi::WinArm64`]) reserve x18 for the
//! platform: no function may touch it. The prologue stores the saved registers in pairs, the epilogue loads them
//! and returns; the unwind items are CFI, or ARM64 SEH codes on Windows.

use super::{ArgLoc, Conventions, LandingPad};
use crate::ir::{CType, Cfi, Frame, Item};
use crate::isa::aarch64::{Aarch64, Op, Operand, Reg, X, XNAMES};
use crate::isa::InstructionSet;
use crate::target::Abi;

/// One slot of the register save area: a pair (`stp`) or a single register (`str`), x or d.
struct Slot {
    d: bool,
    a: u8,
    b: Option<u8>,
}

impl Slot {
    fn name(&self, r: u8) -> String {
        if self.d {
            format!("d{r}")
        } else {
            XNAMES[r as usize].to_string()
        }
    }
    fn reg(&self, r: u8) -> Operand {
        if self.d {
            Operand::D(r)
        } else {
            Operand::X(r)
        }
    }
    /// The store (pre-indexed by `off` when `pre`) or the load (post-indexed by `off` when `post`).
    fn inst(&self, store: bool, writeback: bool, off: i32) -> crate::ir::Inst<Aarch64> {
        let op = match (self.d, self.b.is_some(), store, writeback) {
            (false, true, true, true) => Op::stp_x_pre,
            (false, true, true, false) => Op::stp_x,
            (false, true, false, true) => Op::ldp_x_post,
            (false, true, false, false) => Op::ldp_x,
            (false, false, true, true) => Op::str_x_pre,
            (false, false, true, false) => Op::str_x,
            (false, false, false, true) => Op::ldr_x_post,
            (false, false, false, false) => Op::ldr_x,
            (true, true, true, true) => Op::stp_d_pre,
            (true, true, true, false) => Op::stp_d,
            (true, true, false, true) => Op::ldp_d_post,
            (true, true, false, false) => Op::ldp_d,
            (true, false, true, true) => Op::str_d_pre,
            (true, false, true, false) => Op::str_d,
            (true, false, false, true) => Op::ldr_d_post,
            (true, false, false, false) => Op::ldr_d,
        };
        let mut operands = crate::ir::Operands::new();
        operands.push(self.reg(self.a));
        operands.extend(self.b.map(|b| self.reg(b)));
        operands.push(Operand::Sp);
        operands.push(Operand::Imm(off as i64));
        crate::ir::Inst { op, operands }
    }
}

impl Conventions for Aarch64 {
    fn arg_regs(_abi: Abi) -> &'static [X] {
        &[X(0), X(1), X(2), X(3), X(4), X(5), X(6), X(7)]
    }
    fn first_stack_arg(_abi: Abi) -> i32 {
        0
    }
    /// AAPCS64 (Linux, Windows): x0-x7, then 8-byte stack slots. Apple's: the same registers, then stack
    /// arguments packed to their natural size and alignment (a 32-bit value in 4 bytes).
    fn arg_of(abi: Abi, params: &[CType], n: usize) -> ArgLoc<X> {
        let regs = Self::arg_regs(abi);
        if abi != Abi::AppleAapcs64 || n < regs.len() {
            return Self::arg(abi, n);
        }
        let mut at = 0;
        for ty in &params[regs.len()..n] {
            let size = i32::from(ty.bytes());
            at = (at + size - 1) / size * size + size;
        }
        let size = i32::from(params[n].bytes());
        ArgLoc::Stack((at + size - 1) / size * size)
    }
    fn ret_reg(_abi: Abi) -> X {
        X(0)
    }
    fn callee_saved(_abi: Abi, r: Reg) -> bool {
        // x19-x28 and the low 64 bits of v8-v15 (AAPCS64); x29 and x30 are saved when the body touches them
        // (a leaf that writes x30 could not return otherwise).
        matches!(r, Reg::X(19..=30) | Reg::V(8..=15))
    }
    fn reserved(abi: Abi, r: Reg) -> bool {
        matches!(abi, Abi::AppleAapcs64 | Abi::WinArm64) && r == Reg::X(18)
    }
    fn is_stack_pointer(r: Reg) -> bool {
        r == Reg::X(31)
    }
    fn stack_pointer() -> Reg {
        Reg::X(31)
    }
    fn writes(op: Op, operands: &[Operand], reg: Reg) -> bool {
        let names = |o: &Operand| match (o, reg) {
            (Operand::Sp | Operand::Wsp, Reg::X(31)) => true,
            (Operand::X(n) | Operand::W(n), Reg::X(r)) => *n == r,
            (Operand::D(n) | Operand::Q(n) | Operand::V(n) | Operand::S(n), Reg::V(r)) => *n == r,
            _ => false,
        };
        if !operands.iter().any(names) {
            return false;
        }
        let info = Aarch64::info(op);
        let writeback = info.syntax.contains("]!") || info.syntax.contains("], ");
        let load = info.mnemonic().starts_with("ld");
        info.operands.iter().zip(operands).any(|(name, o)| {
            let written = match *name {
                "d" => true,
                "n" => writeback,
                "t" | "a" | "b" => load,
                _ => false,
            };
            written && names(o)
        })
    }
    /// The save area: the registers in pairs (x with x, d with d; an odd one alone), 16 bytes per slot. The
    /// first slot's store allocates the whole area (pre-index), the last load frees it (post-index), so sp stays
    /// 16-byte aligned and the unwinder sees every step. Under [`Abi::WinArm64`] a pair is two consecutive
    /// registers (an ARM64 SEH save code names the first of a pair), and the unwind items are SEH's (`seh`).
    fn prologue_epilogue(abi: Abi, frame: &Frame<Self>) -> (Vec<Item<Self>>, Vec<Item<Self>>) {
        let slots = slots(abi, frame);
        let locals = frame.locals.allocation() as i32;
        if abi == Abi::WinArm64 {
            return seh(frame, &slots, locals);
        }
        let (mut pro, mut epi) = (Vec::new(), Vec::new());
        let ret = Item::Inst(crate::ir::Inst { op: Op::ret, operands: crate::ir::Operands::new() });
        // The local storage below the save area, allocated after the stores and freed before the loads.
        let (mut alloc, mut free) = (Vec::new(), Vec::new());
        for chunk in chunks(locals) {
            alloc.push(Item::Inst(sp_adjust(Op::sub_imm, chunk)));
            alloc.push(Item::Cfi(Cfi::AdjustCfaOffset(chunk)));
            free.push(Item::Inst(sp_adjust(Op::add_imm, chunk)));
            free.push(Item::Cfi(Cfi::AdjustCfaOffset(-chunk)));
        }
        if slots.is_empty() {
            load_stack_params(frame, 0, &mut pro);
            pro.extend(alloc);
            free.push(ret);
            return (pro, free);
        }
        let size = 16 * slots.len() as i32;
        let saved_at = |s: &Slot, off: i32, out: &mut Vec<Item<Self>>| {
            out.push(Item::Cfi(Cfi::RelOffset(s.name(s.a), off)));
            if let Some(b) = s.b {
                out.push(Item::Cfi(Cfi::RelOffset(s.name(b), off + 8)));
            }
        };
        let restored = |s: &Slot, out: &mut Vec<Item<Self>>| {
            out.push(Item::Cfi(Cfi::Restore(s.name(s.a))));
            if let Some(b) = s.b {
                out.push(Item::Cfi(Cfi::Restore(s.name(b))));
            }
        };
        for (i, s) in slots.iter().enumerate() {
            let off = 16 * i as i32;
            if i == 0 {
                pro.push(Item::Inst(s.inst(true, true, -size)));
                pro.push(Item::Cfi(Cfi::AdjustCfaOffset(size)));
            } else {
                pro.push(Item::Inst(s.inst(true, false, off)));
            }
            saved_at(s, off, &mut pro);
        }
        load_stack_params(frame, size, &mut pro);
        pro.extend(alloc);
        epi.extend(free);
        for (i, s) in slots.iter().enumerate().skip(1).rev() {
            epi.push(Item::Inst(s.inst(false, false, 16 * i as i32)));
            restored(s, &mut epi);
        }
        epi.push(Item::Inst(slots[0].inst(false, true, size)));
        epi.push(Item::Cfi(Cfi::AdjustCfaOffset(-size)));
        restored(&slots[0], &mut epi);
        epi.push(ret);
        (pro, epi)
    }
    fn landing_pad(_abi: Abi) -> Option<LandingPad> {
        Some(LandingPad::BtiC)
    }
}

/// The loads of the stack-passed parameters into their registers ([`Frame::stack_params`]), after the save
/// area of `below` bytes (a multiple of 16): `ldr` of the 8-byte slot; Apple's 4-byte slot that is not 8-byte
/// aligned is loaded with the 4 bytes below it and shifted down (`lsr #32`). A 32-bit value's upper half is
/// unspecified, as in a register.
fn load_stack_params(frame: &Frame<Aarch64>, below: i32, pro: &mut Vec<Item<Aarch64>>) {
    let inst = |op, operands: Vec<Operand>| Item::Inst(crate::ir::Inst { op, operands: operands.into() });
    for p in &frame.stack_params {
        let at = p.offset + below;
        let r = Operand::X(p.reg.0);
        if at % 8 == 0 {
            pro.push(inst(Op::ldr_x, vec![r, Operand::Sp, Operand::Imm(at as i64)]));
        } else {
            debug_assert_eq!((p.bytes, at % 8), (4, 4), "only Apple's 4-byte slots are not 8-byte aligned");
            pro.push(inst(Op::ldr_x, vec![r.clone(), Operand::Sp, Operand::Imm(at as i64 - 4)]));
            pro.push(inst(Op::lsr, vec![r.clone(), r, Operand::Imm(32)]));
        }
    }
}

/// The save area's slots: the saved x registers, then the d registers, two per slot. AAPCS64 and Apple pair
/// them in order (an odd one alone at the end); Windows pairs only consecutive registers (`d8, d10, d11` is
/// `d8` alone, then `d10, d11`), the pairs ARM64 SEH can describe.
fn slots(abi: Abi, frame: &Frame<Aarch64>) -> Vec<Slot> {
    let mut xs = Vec::new();
    let mut ds = Vec::new();
    for r in &frame.saved {
        match *r {
            Reg::X(n) => xs.push(n),
            Reg::V(n) => ds.push(n),
        }
    }
    let mut slots = Vec::new();
    for (d, regs) in [(false, &xs), (true, &ds)] {
        let mut rest = regs.as_slice();
        while let [a, tail @ ..] = rest {
            let b = tail.first().copied().filter(|&b| abi != Abi::WinArm64 || b == a + 1);
            slots.push(Slot { d, a: *a, b });
            rest = &tail[b.map_or(0, |_| 1)..];
        }
    }
    slots
}

/// Windows: the same stores and loads, each followed by its ARM64 SEH code ([`Cfi::SaveRegs`]); the landing
/// pad, which every prologue starts with, is an unwind no-op ([`Cfi::Nop`]), so the codes count the prologue's
/// instructions as the unwinder does. The epilogue's loads are described between [`Cfi::StartEpilogue`] and
/// [`Cfi::EndEpilogue`], before the return. A function that saves nothing still gets its prologue (the
/// landing pad) and an empty epilogue, so it has unwind data like every other.
///
/// The stack-passed parameters ([`Frame::stack_params`]) are loaded after the stores (each load an unwind
/// no-op), from their entry offset plus the save area. The local storage (`locals` bytes) is allocated after
/// them, in steps of at most 4080 bytes (`sub sp,
/// sp, #n`, `.seh_stackalloc n`), and freed first in the epilogue. A frame of 4 KiB or more is probed as
/// Windows needs (it commits a stack one guard page at a time): each step stores `xzr` at the new stack
/// pointer before the next step moves it further (an unwind no-op).
fn seh(frame: &Frame<Aarch64>, slots: &[Slot], locals: i32) -> (Vec<Item<Aarch64>>, Vec<Item<Aarch64>>) {
    let size = 16 * slots.len() as i32;
    let code = |s: &Slot, i: usize| {
        let regs = std::iter::once(s.a).chain(s.b).map(|r| s.name(r)).collect();
        let (offset, pre_index) = if i == 0 { (size, true) } else { (16 * i as i32, false) };
        Item::Cfi(Cfi::SaveRegs { regs, offset, pre_index })
    };
    let mut pro = vec![Item::Cfi(Cfi::Nop)];
    for (i, s) in slots.iter().enumerate() {
        let off = if i == 0 { -size } else { 16 * i as i32 };
        pro.push(Item::Inst(s.inst(true, i == 0, off)));
        pro.push(code(s, i));
    }
    // The stack-passed parameters, loaded above the local storage, each load an unwind no-op.
    let mut loads = Vec::new();
    load_stack_params(frame, size, &mut loads);
    for load in loads {
        pro.push(load);
        pro.push(Item::Cfi(Cfi::Nop));
    }
    let probe = locals >= 4096;
    let mut epi = vec![Item::Cfi(Cfi::StartEpilogue)];
    for chunk in chunks(locals) {
        pro.push(Item::Inst(sp_adjust(Op::sub_imm, chunk)));
        pro.push(Item::Cfi(Cfi::Alloc(chunk)));
        if probe {
            let mut operands = crate::ir::Operands::new();
            operands.extend([Operand::Xzr, Operand::Sp, Operand::Imm(0)]);
            pro.push(Item::Inst(crate::ir::Inst { op: Op::str_x, operands }));
            pro.push(Item::Cfi(Cfi::Nop));
        }
    }
    for chunk in chunks(locals).rev() {
        epi.push(Item::Inst(sp_adjust(Op::add_imm, chunk)));
        epi.push(Item::Cfi(Cfi::Alloc(chunk)));
    }
    pro.push(Item::Cfi(Cfi::EndPrologue));
    for (i, s) in slots.iter().enumerate().rev() {
        let off = if i == 0 { size } else { 16 * i as i32 };
        epi.push(Item::Inst(s.inst(false, i == 0, off)));
        epi.push(code(s, i));
    }
    epi.push(Item::Cfi(Cfi::EndEpilogue));
    epi.push(Item::Inst(crate::ir::Inst { op: Op::ret, operands: crate::ir::Operands::new() }));
    (pro, epi)
}

/// `bytes` (a multiple of 16) in steps an `add`/`sub` immediate holds: 4080 each, then the rest.
fn chunks(bytes: i32) -> impl DoubleEndedIterator<Item = i32> {
    const STEP: i32 = 4080;
    (0..(bytes + STEP - 1) / STEP).map(move |i| (bytes - i * STEP).min(STEP))
}

/// `sub sp, sp, #n` or `add sp, sp, #n`.
fn sp_adjust(op: Op, n: i32) -> crate::ir::Inst<Aarch64> {
    let mut operands = crate::ir::Operands::new();
    operands.extend([Operand::Sp, Operand::Sp, Operand::Imm(n as i64)]);
    crate::ir::Inst { op, operands }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(saved: &[Reg]) -> Frame<Aarch64> {
        Frame {
            saved: saved.to_vec(),
            params: 0,
            locals: Default::default(),
            stack_params: Vec::new(),
            naked: false,
            landing_pad: true,
        }
    }

    fn pairs(abi: Abi, saved: &[Reg]) -> Vec<(bool, u8, Option<u8>)> {
        slots(abi, &frame(saved)).iter().map(|s| (s.d, s.a, s.b)).collect()
    }

    #[test]
    fn windows_pairs_only_consecutive_registers() {
        let saved = [Reg::X(19), Reg::X(21), Reg::X(22), Reg::V(8), Reg::V(10), Reg::V(11)];
        let linux = [(false, 19, Some(21)), (false, 22, None), (true, 8, Some(10)), (true, 11, None)];
        let windows = [(false, 19, None), (false, 21, Some(22)), (true, 8, None), (true, 10, Some(11))];
        assert_eq!(pairs(Abi::Aapcs64, &saved), linux);
        assert_eq!(pairs(Abi::AppleAapcs64, &saved), linux);
        assert_eq!(pairs(Abi::WinArm64, &saved), windows);
        let all: Vec<Reg> = (8..16).map(Reg::V).collect();
        assert_eq!(pairs(Abi::WinArm64, &all), pairs(Abi::Aapcs64, &all));
    }

    #[test]
    fn windows_reserves_x18_and_describes_every_step() {
        assert!(Aarch64::reserved(Abi::WinArm64, Reg::X(18)));
        assert!(!Aarch64::reserved(Abi::Aapcs64, Reg::X(18)));
        let (pro, epi) = Aarch64::prologue_epilogue(Abi::WinArm64, &frame(&[Reg::V(8), Reg::V(9), Reg::V(10)]));
        let cfi = |items: &[Item<Aarch64>]| -> Vec<Cfi> {
            items.iter().filter_map(|i| if let Item::Cfi(c) = i { Some(c.clone()) } else { None }).collect()
        };
        let save = |regs: &[&str], offset, pre_index| Cfi::SaveRegs {
            regs: regs.iter().map(|r| r.to_string()).collect(),
            offset,
            pre_index,
        };
        let (d8, d10) = (save(&["d8", "d9"], 32, true), save(&["d10"], 16, false));
        assert_eq!(cfi(&pro), [Cfi::Nop, d8.clone(), d10.clone(), Cfi::EndPrologue]);
        assert_eq!(cfi(&epi), [Cfi::StartEpilogue, d10, d8, Cfi::EndEpilogue]);
        let (pro, epi) = Aarch64::prologue_epilogue(Abi::WinArm64, &frame(&[]));
        assert_eq!(cfi(&pro), [Cfi::Nop, Cfi::EndPrologue]);
        assert_eq!(cfi(&epi), [Cfi::StartEpilogue, Cfi::EndEpilogue]);
    }
}
