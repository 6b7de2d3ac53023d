//! x86-64: System V AMD64 (Linux, macOS) and Microsoft x64 (Windows).
//!
//! * System V: arguments in rdi, rsi, rdx, rcx, r8, r9, then on the stack from rsp+8; rbx, rbp and r12-r15
//!   are callee-saved.
//! * Win64: arguments in rcx, rdx, r8, r9, then on the stack from rsp+40 (above the return address and the
//!   32-byte shadow space); rbx, rbp, rdi, rsi, r12-r15 and xmm6-xmm15 are callee-saved.
//!
//! The prologue pushes the general-purpose registers (and, under Win64, stores xmm6-xmm15 below them); the
//! epilogue restores them in reverse order and returns.

use super::{Conventions, LandingPad};
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
    fn callee_saved(abi: Abi, r: Reg) -> bool {
        match (abi, r) {
            // rbx, rbp, r12-r15 (and rsi, rdi on Windows).
            (_, Reg::Gpr(3 | 5 | 12..=15)) => true,
            (Abi::Win64, Reg::Gpr(6 | 7)) => true,
            (Abi::Win64, Reg::Vec(6..=15)) => true,
            _ => false,
        }
    }
    fn is_stack_pointer(r: Reg) -> bool {
        r == Reg::Gpr(4)
    }
    fn prologue_epilogue(abi: Abi, frame: &Frame<Self>) -> (Vec<Item<Self>>, Vec<Item<Self>>) {
        let inst = |op: Op, operands: Vec<Operand>| Item::Inst(crate::ir::Inst { op, operands });
        let gprs: Vec<u8> =
            frame.saved.iter().filter_map(|r| if let Reg::Gpr(n) = r { Some(*n) } else { None }).collect();
        let vecs: Vec<u8> =
            frame.saved.iter().filter_map(|r| if let Reg::Vec(n) = r { Some(*n) } else { None }).collect();
        let (mut pro, mut epi) = (Vec::new(), Vec::new());
        for &g in &gprs {
            pro.push(inst(Op::push, vec![Operand::Gpr(g)]));
            pro.push(Item::Cfi(Cfi::AdjustCfaOffset(8)));
            pro.push(Item::Cfi(Cfi::RelOffset(GPR64[g as usize].into(), 0)));
        }
        // Win64 only: xmm6-xmm15 are callee-saved; they go below the pushed registers.
        let vec_bytes = 16 * vecs.len() as i32;
        if abi == Abi::Win64 && !vecs.is_empty() {
            pro.push(inst(Op::sub, vec![Operand::Gpr(4), Operand::Imm(vec_bytes as i64)]));
            pro.push(Item::Cfi(Cfi::AdjustCfaOffset(vec_bytes)));
            for (i, &v) in vecs.iter().enumerate() {
                let slot = Operand::Mem(Size::Xmmword, mem(regs::RSP, 16 * i as i32));
                pro.push(inst(Op::vmovdqu_store, vec![slot.clone(), Operand::Xmm(v)]));
                epi.push(inst(Op::vmovdqu_load, vec![Operand::Xmm(v), slot]));
            }
            epi.push(inst(Op::add, vec![Operand::Gpr(4), Operand::Imm(vec_bytes as i64)]));
            epi.push(Item::Cfi(Cfi::AdjustCfaOffset(-vec_bytes)));
        }
        for &g in gprs.iter().rev() {
            epi.push(inst(Op::pop, vec![Operand::Gpr(g)]));
            epi.push(Item::Cfi(Cfi::AdjustCfaOffset(-8)));
            epi.push(Item::Cfi(Cfi::Restore(GPR64[g as usize].into())));
        }
        epi.push(inst(Op::ret, vec![]));
        (pro, epi)
    }
    fn landing_pad(_abi: Abi) -> Option<LandingPad> {
        Some(LandingPad::Endbr64)
    }
}
