//! x86-64: System V AMD64 (Linux, macOS) and Microsoft x64 (Windows).
//!
//! * System V: arguments in rdi, rsi, rdx, rcx, r8, r9, then on the stack from rsp+8; rbx, rbp and r12-r15
//!   are callee-saved.
//! * Win64: arguments in rcx, rdx, r8, r9, then on the stack from rsp+40 (above the return address and the
//!   32-byte shadow space); rbx, rbp, rdi, rsi, r12-r15 and xmm6-xmm15 are callee-saved.
//!
//! The prologue pushes the general-purpose registers (and, under Win64, stores xmm6-xmm15 below them); the
//! epilogue restores them in reverse order and returns.

use super::{ArgLoc, Conventions, LandingPad};
use crate::ir::{Cfi, Frame, Item};
use crate::isa::x86_64::{mem, regs, Gpr, Op, Operand, Reg, Size, GPR64, X86_64};
use crate::target::Abi;

impl Conventions for X86_64 {
    fn arg_regs(abi: Abi) -> &'static [Gpr] {
        use regs::*;
        const SYSV: [Gpr; 6] = [RDI, RSI, RDX, RCX, R8, R9];
        const WIN64: [Gpr; 4] = [RCX, RDX, R8, R9];
        match abi {
            Abi::Win64 => &WIN64,
            _ => &SYSV,
        }
    }
    fn first_stack_arg(abi: Abi) -> i32 {
        match abi {
            // Return address, then the 32-byte shadow space the caller reserves for rcx, rdx, r8, r9.
            Abi::Win64 => 8 + 32,
            // Return address.
            _ => 8,
        }
    }
    fn ret_reg(_abi: Abi) -> Gpr {
        regs::RAX
    }
    #[inline]
    fn callee_saved(abi: Abi, r: Reg) -> bool {
        match (abi, r) {
            // rbx, rbp, r12-r15 (and rsi, rdi on Windows).
            (_, Reg::Gpr(3 | 5 | 12..=15)) => true,
            (Abi::Win64, Reg::Gpr(6 | 7)) => true,
            (Abi::Win64, Reg::Vec(6..=15)) => true,
            _ => false,
        }
    }
    #[inline]
    fn is_stack_pointer(r: Reg) -> bool {
        r == Reg::Gpr(4)
    }
    fn param_reg(abi: Abi, n: usize) -> Option<Gpr> {
        // Under Win64 the body reads its parameters where System V passes them: the kernels name their scratch
        // registers once for both ABIs, and some of those (r9, r8) are Win64 argument registers.
        Self::arg_regs(Abi::SysV).get(n).copied().filter(|_| matches!(abi, Abi::SysV | Abi::Win64))
    }
    fn prologue_epilogue(abi: Abi, frame: &Frame<Self>) -> (Vec<Item<Self>>, Vec<Item<Self>>) {
        let gprs: Vec<u8> =
            frame.saved.iter().filter_map(|r| if let Reg::Gpr(n) = r { Some(*n) } else { None }).collect();
        match abi {
            Abi::Win64 => win64(frame, &gprs),
            _ => sysv(frame, &gprs),
        }
    }
    fn landing_pad(_abi: Abi) -> Option<LandingPad> {
        Some(LandingPad::Endbr64)
    }
}

fn inst(op: Op, operands: Vec<Operand>) -> Item<X86_64> {
    Item::Inst(crate::ir::Inst { op, operands: operands.into() })
}

/// The loads of the stack-passed parameters into their registers ([`Frame::stack_params`]), `below` bytes
/// having been pushed and allocated since the entry: every slot is 8 bytes, a 32-bit value's upper half
/// unspecified.
fn load_stack_params(frame: &Frame<X86_64>, below: i32, pro: &mut Vec<Item<X86_64>>) {
    for p in &frame.stack_params {
        let at = Operand::Mem(Size::Qword, mem(regs::RSP, p.offset + below));
        pro.push(inst(Op::mov_load, vec![Operand::Gpr(p.reg.0), at]));
    }
}

/// System V: push the saved registers, load the stack-passed parameters, pop in reverse, with CFI.
fn sysv(frame: &Frame<X86_64>, gprs: &[u8]) -> (Vec<Item<X86_64>>, Vec<Item<X86_64>>) {
    let (mut pro, mut epi) = (Vec::new(), Vec::new());
    for &g in gprs {
        pro.push(inst(Op::push, vec![Operand::Gpr(g)]));
        pro.push(Item::Cfi(Cfi::AdjustCfaOffset(8)));
        pro.push(Item::Cfi(Cfi::RelOffset(GPR64[g as usize].into(), 0)));
    }
    load_stack_params(frame, 8 * gprs.len() as i32, &mut pro);
    for &g in gprs.iter().rev() {
        epi.push(inst(Op::pop, vec![Operand::Gpr(g)]));
        epi.push(Item::Cfi(Cfi::AdjustCfaOffset(-8)));
        epi.push(Item::Cfi(Cfi::Restore(GPR64[g as usize].into())));
    }
    epi.push(inst(Op::ret, vec![]));
    (pro, epi)
}

/// The bytes Win64's prologue allocates below the pushed registers for `vecs` vector registers: 16 each, plus
/// 8 when `pushes` leave the stack pointer 8 mod 16 (it is 8 mod 16 on entry), so that the save area is
/// 16-byte aligned for `vmovdqa`. Nothing when no vector register is saved.
pub fn win64_alloc(pushes: usize, vecs: usize) -> i32 {
    if vecs == 0 {
        return 0;
    }
    16 * vecs as i32 + if pushes % 2 == 0 { 8 } else { 0 }
}

/// Win64: push the saved general-purpose registers, allocate an aligned area and store the saved xmm6-xmm15
/// there (`vmovdqa`), each step with its unwind item (SEH on COFF); then move the arguments where the body
/// reads them ([`Conventions::param_reg`]): register moves, and loads of the stack arguments from their entry
/// offset plus what the prologue pushed and allocated, the 5th and 6th into r8 and r9, later ones into the
/// registers the kernel chose ([`Frame::stack_params`]). The epilogue restores in reverse and returns.
fn win64(frame: &Frame<X86_64>, gprs: &[u8]) -> (Vec<Item<X86_64>>, Vec<Item<X86_64>>) {
    let vecs: Vec<u8> = frame.saved.iter().filter_map(|r| if let Reg::Vec(n) = r { Some(*n) } else { None }).collect();
    let (mut pro, mut epi) = (Vec::new(), Vec::new());
    for &g in gprs {
        pro.push(inst(Op::push, vec![Operand::Gpr(g)]));
        pro.push(Item::Cfi(Cfi::Push(GPR64[g as usize].into())));
    }
    let alloc = win64_alloc(gprs.len(), vecs.len());
    if alloc > 0 {
        pro.push(inst(Op::sub, vec![Operand::Gpr(4), Operand::Imm(alloc as i64)]));
        pro.push(Item::Cfi(Cfi::Alloc(alloc)));
    }
    for (i, &v) in vecs.iter().enumerate() {
        let slot = Operand::Mem(Size::Xmmword, mem(regs::RSP, 16 * i as i32));
        pro.push(inst(Op::vmovdqa_store, vec![slot.clone(), Operand::Xmm(v)]));
        pro.push(Item::Cfi(Cfi::SaveVec(format!("xmm{v}"), 16 * i as i32)));
        epi.push(inst(Op::vmovdqa, vec![Operand::Xmm(v), slot]));
    }
    pro.push(Item::Cfi(Cfi::EndPrologue));
    let below = 8 * gprs.len() as i32 + alloc;
    // In parameter order: each source is read before a later move overwrites it (rdi <- rcx, rsi <- rdx,
    // rdx <- r8, rcx <- r9, then r8 and r9 from the stack), which `win64_moves_read_before_write` checks.
    for n in 0..frame.params {
        let Some(to) = X86_64::param_reg(Abi::Win64, n) else { continue };
        match X86_64::arg(Abi::Win64, n) {
            ArgLoc::Reg(from) if from == to => {}
            ArgLoc::Reg(from) => pro.push(inst(Op::mov, vec![Operand::Gpr(to.0), Operand::Gpr(from.0)])),
            ArgLoc::Stack(off) => {
                let at = Operand::Mem(Size::Qword, mem(regs::RSP, off + below));
                pro.push(inst(Op::mov_load, vec![Operand::Gpr(to.0), at]));
            }
        }
    }
    // Then the parameters the body reads in registers of its choice (after the moves, which read the
    // argument registers; the builder checks that no two parameters share a register).
    load_stack_params(frame, below, &mut pro);
    if alloc > 0 {
        epi.push(inst(Op::add, vec![Operand::Gpr(4), Operand::Imm(alloc as i64)]));
    }
    for &g in gprs.iter().rev() {
        epi.push(inst(Op::pop, vec![Operand::Gpr(g)]));
    }
    epi.push(inst(Op::ret, vec![]));
    (pro, epi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn win64_moves_read_before_write() {
        // Every parameter's source register is not the destination of an earlier move.
        let mut written = Vec::new();
        for n in 0..6 {
            let to = X86_64::param_reg(Abi::Win64, n).unwrap();
            if let ArgLoc::Reg(from) = X86_64::arg(Abi::Win64, n) {
                assert!(!written.contains(&from), "argument {n} in {from:?} is overwritten before it is moved");
            }
            written.push(to);
        }
        assert_eq!(X86_64::param_reg(Abi::Win64, 6), None);
    }

    #[test]
    fn win64_save_area_is_aligned() {
        for pushes in 0..10 {
            for vecs in 1..11 {
                // Entry rsp is 8 mod 16; after the pushes and the allocation it must be 0 mod 16.
                assert_eq!((8 + 8 * pushes as i32 + win64_alloc(pushes, vecs)) % 16, 0);
            }
        }
    }
}
