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
use crate::isa::InstructionSet;
use crate::target::Abi;

/// The registers an entry writes without naming them: the writes among the semantics table's `implicit`
/// registers (`sem::x86_64`, which imports this layer: its test `implicit_writes_agree_with_the_abi` checks
/// that the two lists agree).
pub fn implicit_writes(op: Op) -> &'static [Reg] {
    const RAX_RDX: &[Reg] = &[Reg::Gpr(0), Reg::Gpr(2)];
    // `leave`: rsp from rbp, rbp from the stack.
    const RSP_RBP: &[Reg] = &[Reg::Gpr(4), Reg::Gpr(5)];
    match op {
        Op::mul => RAX_RDX,
        Op::leave => RSP_RBP,
        // The string instructions' pointers and count.
        _ => X86_64::implicit_regs(op),
    }
}

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
    fn stack_pointer() -> Reg {
        Reg::Gpr(4)
    }
    fn writes(op: Op, operands: &[Operand], reg: Reg) -> bool {
        if reg == Reg::Gpr(4) && matches!(op, Op::push | Op::pop | Op::call | Op::pushfq | Op::popfq) {
            return true;
        }
        // Register destinations are the first operand, named `d` (`r` for one-operand entries such as `pop`).
        let first = match (operands.first(), reg) {
            (Some(Operand::Gpr(n) | Operand::Gpr32(n) | Operand::Gpr8(n)), Reg::Gpr(r)) => *n == r,
            (Some(Operand::Xmm(n) | Operand::Ymm(n) | Operand::Zmm(n) | Operand::ZmmMaskz(n, _)), Reg::Vec(r)) => {
                *n == r
            }
            _ => false,
        };
        let named = first && op != Op::push && matches!(X86_64::info(op).operands.first(), Some(&("d" | "r")));
        // `mulx` writes its second operand too; `mul` writes rax and rdx unnamed.
        let lo = op == Op::mulx && matches!((operands.get(1), reg), (Some(Operand::Gpr(n)), Reg::Gpr(r)) if *n == r);
        named || lo || implicit_writes(op).contains(&reg)
    }
    /// An access to memory at `[rsp + disp]` (no index) whose bytes (its operand's width) lie below the return address
    /// (inside the frame the prologue made: local storage, vector save area, pushed registers) leaves it
    /// alone; any other use of rsp (a register operand, `lea` of its address, a negative or larger
    /// displacement) may reach it.
    fn touches_return_address(abi: Abi, frame: &Frame<Self>, op: Op, operands: &[Operand]) -> bool {
        if Self::writes(op, operands, Reg::Gpr(4)) {
            return true;
        }
        let pushes = frame.saved.iter().filter(|r| matches!(r, Reg::Gpr(_))).count();
        let vecs = if abi == Abi::Win64 { frame.saved.len() - pushes } else { 0 };
        let depth = 8 * pushes as i64 + alloc(pushes, frame.locals.allocation() + 16 * vecs as u32) as i64;
        operands.iter().any(|o| match o {
            Operand::Gpr(4) | Operand::Gpr32(4) | Operand::Gpr8(4) => true,
            Operand::Mem(size, m) | Operand::MemMask(size, m, _)
                if m.base == Some(regs::RSP) || m.index.is_some_and(|(i, _)| i == regs::RSP) =>
            {
                let width = match size {
                    Size::Byte => 1,
                    Size::Dword => 4,
                    Size::Qword => 8,
                    Size::Xmmword => 16,
                    Size::Ymmword => 32,
                    Size::Zmmword => 64,
                };
                op == Op::lea || m.index.is_some() || m.disp < 0 || i64::from(m.disp) + width > depth
            }
            _ => false,
        })
    }
    fn frame_base(_abi: Abi) -> Option<Gpr> {
        Some(regs::R15)
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

/// The bytes the prologue allocates below `pushes` pushed registers for `area` bytes (local storage and,
/// under Win64, the vector save area): `area` rounded up so that the stack pointer, 8 mod 16 on entry, is
/// 16-byte aligned after the allocation. Nothing for an empty area.
pub fn alloc(pushes: usize, area: u32) -> i32 {
    if area == 0 {
        return 0;
    }
    let entry = 8 + 8 * pushes as i32;
    let area = area as i32;
    area + (entry + area).rem_euclid(16)
}

/// After the allocation: point the frame base register at the aligned start of an over-aligned local storage
/// (`lea base, [rsp + align - 16]; and base, -align`).
fn align_base(frame: &Frame<X86_64>, out: &mut Vec<Item<X86_64>>) {
    if frame.locals.over_aligned() {
        let base = X86_64::frame_base(Abi::SysV).expect("x86_64 has a frame base register");
        let bias = frame.locals.align as i32 - 16;
        out.push(inst(Op::lea, vec![Operand::Gpr(base.0), Operand::Mem(Size::Qword, mem(regs::RSP, bias))]));
        out.push(inst(Op::and, vec![Operand::Gpr(base.0), Operand::Imm(-(frame.locals.align as i64))]));
    }
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

/// System V: push the saved registers, allocate the local storage, load the stack-passed parameters (from
/// their entry offset plus what was pushed and allocated), with CFI; free the storage and pop in reverse.
fn sysv(frame: &Frame<X86_64>, gprs: &[u8]) -> (Vec<Item<X86_64>>, Vec<Item<X86_64>>) {
    let (mut pro, mut epi) = (Vec::new(), Vec::new());
    for &g in gprs {
        pro.push(inst(Op::push, vec![Operand::Gpr(g)]));
        pro.push(Item::Cfi(Cfi::AdjustCfaOffset(8)));
        pro.push(Item::Cfi(Cfi::RelOffset(GPR64[g as usize].into(), 0)));
    }
    let locals = alloc(gprs.len(), frame.locals.allocation());
    if locals > 0 {
        pro.push(inst(Op::sub, vec![Operand::Gpr(4), Operand::Imm(locals as i64)]));
        pro.push(Item::Cfi(Cfi::AdjustCfaOffset(locals)));
        align_base(frame, &mut pro);
        epi.push(inst(Op::add, vec![Operand::Gpr(4), Operand::Imm(locals as i64)]));
        epi.push(Item::Cfi(Cfi::AdjustCfaOffset(-locals)));
    }
    load_stack_params(frame, 8 * gprs.len() as i32 + locals, &mut pro);
    for &g in gprs.iter().rev() {
        epi.push(inst(Op::pop, vec![Operand::Gpr(g)]));
        epi.push(Item::Cfi(Cfi::AdjustCfaOffset(-8)));
        epi.push(Item::Cfi(Cfi::Restore(GPR64[g as usize].into())));
    }
    epi.push(inst(Op::ret, vec![]));
    (pro, epi)
}

/// The bytes Win64's prologue allocates below the pushed registers for `vecs` vector registers and no local
/// storage: 16 each, plus 8 when `pushes` leave the stack pointer 8 mod 16 (it is 8 mod 16 on entry), so that
/// the save area is 16-byte aligned for `vmovdqa`. Nothing when no vector register is saved.
pub fn win64_alloc(pushes: usize, vecs: usize) -> i32 {
    alloc(pushes, 16 * vecs as u32)
}

/// The page size Windows commits a stack by: an allocation of this much or more is probed first.
pub const PAGE: i32 = 4096;

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
    // The local storage at the stack pointer, the vector save area above it.
    let locals = frame.locals.allocation();
    let alloc = alloc(gprs.len(), locals + 16 * vecs.len() as u32);
    if alloc > 0 {
        // The stack probe: Windows commits a thread's stack one guard page at a time, so a frame of a page or
        // more touches each page below the stack pointer, nearest first, before it is allocated (the loads
        // change no register but rax, which is volatile and passes no argument).
        for page in 1..=alloc / PAGE {
            let at = Operand::Mem(Size::Qword, mem(regs::RSP, -page * PAGE));
            pro.push(inst(Op::mov_load, vec![Operand::Gpr(regs::RAX.0), at]));
        }
        pro.push(inst(Op::sub, vec![Operand::Gpr(4), Operand::Imm(alloc as i64)]));
        pro.push(Item::Cfi(Cfi::Alloc(alloc)));
    }
    for (i, &v) in vecs.iter().enumerate() {
        let off = locals as i32 + 16 * i as i32;
        let slot = Operand::Mem(Size::Xmmword, mem(regs::RSP, off));
        pro.push(inst(Op::vmovdqa_store, vec![slot.clone(), Operand::Xmm(v)]));
        pro.push(Item::Cfi(Cfi::SaveVec(format!("xmm{v}"), off)));
        epi.push(inst(Op::vmovdqa, vec![Operand::Xmm(v), slot]));
    }
    pro.push(Item::Cfi(Cfi::EndPrologue));
    align_base(frame, &mut pro);
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
    fn implicit_and_second_destinations_are_writes() {
        let g = Operand::Gpr;
        let writes = |op, ops: &[Operand], r: u8| X86_64::writes(op, ops, Reg::Gpr(r));
        // mul rcx: rax and rdx, not rcx.
        assert_eq!([0, 2, 1].map(|r| writes(Op::mul, &[g(1)], r)), [true, true, false]);
        // mulx rax, rsp, rcx: both destinations (the builder rejects this one), not the source or rdx.
        assert_eq!([0, 4, 1, 2].map(|r| writes(Op::mulx, &[g(0), g(4), g(1)], r)), [true, true, false, false]);
    }

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
