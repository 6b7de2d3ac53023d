//! riscv64: LP64D: integer arguments in a0-a7, then the stack from sp; s0-s11 are callee-saved, every vector
//! register is caller-saved. The prologue stores the saved registers in a 16-byte aligned frame and allocates
//! the local storage below it (pointing s11 at its aligned start when it is aligned above 16), the epilogue
//! frees it, loads the registers and returns.

use super::{Conventions, LandingPad};
use crate::ir::{Cfi, Frame, Item};
use crate::isa::riscv64::{mem, regs, Op, Operand, Reg, Riscv64, X, XNAMES};
use crate::isa::InstructionSet;
use crate::target::Abi;

impl Conventions for Riscv64 {
    fn arg_regs(_abi: Abi) -> &'static [X] {
        &[X(10), X(11), X(12), X(13), X(14), X(15), X(16), X(17)]
    }
    fn first_stack_arg(_abi: Abi) -> i32 {
        0
    }
    fn ret_reg(_abi: Abi) -> X {
        regs::A0
    }
    fn callee_saved(_abi: Abi, r: Reg) -> bool {
        // LP64D: sp, s0..s11 (x8, x9, x18..x27); every vector register is caller-saved.
        matches!(r, Reg::X(2) | Reg::X(8..=9) | Reg::X(18..=27))
    }
    fn is_stack_pointer(r: Reg) -> bool {
        r == Reg::X(2)
    }
    fn stack_pointer() -> Reg {
        Reg::X(2)
    }
    fn frame_base(_abi: Abi) -> Option<X> {
        Some(X(27))
    }
    fn writes(op: Op, operands: &[Operand], reg: Reg) -> bool {
        // Register destinations are the first operand, named `d`.
        let info = Riscv64::info(op);
        info.operands.first() == Some(&"d")
            && matches!((operands.first(), reg), (Some(Operand::X(n)), Reg::X(r)) if *n == r)
    }
    /// Saves the callee-saved registers the body uses below a 16-byte aligned frame
    /// (`addi sp, sp, -N; sd s_i, 8*i(sp)`), loads the stack-passed parameters the body reads in registers
    /// ([`Frame::stack_params`]), restores the saved registers in the epilogue and returns.
    fn prologue_epilogue(_abi: Abi, frame: &Frame<Self>) -> (Vec<Item<Self>>, Vec<Item<Self>>) {
        let inst = |op: Op, operands: Vec<Operand>| Item::Inst(crate::ir::Inst { op, operands: operands.into() });
        let saved: Vec<u8> = frame
            .saved
            .iter()
            .filter_map(|r| match r {
                Reg::X(n) if *n != 2 => Some(*n),
                _ => None,
            })
            .collect();
        let (mut pro, mut epi) = (Vec::new(), Vec::new());
        // The local storage below the save area: allocated after the stores and freed before the loads, in
        // steps an `addi` immediate holds.
        let (mut alloc, mut free) = (Vec::new(), Vec::new());
        let mut locals = frame.locals.allocation() as i32;
        let sp = Operand::X(regs::SP.0);
        while locals > 0 {
            let step = locals.min(2032);
            locals -= step;
            alloc.push(inst(Op::addi, vec![sp.clone(), sp.clone(), Operand::Imm(-step as i64)]));
            alloc.push(Item::Cfi(Cfi::AdjustCfaOffset(step)));
            free.push(inst(Op::addi, vec![sp.clone(), sp.clone(), Operand::Imm(step as i64)]));
            free.push(Item::Cfi(Cfi::AdjustCfaOffset(-step)));
        }
        epi.extend(free);
        let bytes = (8 * saved.len() as i32 + 15) & !15;
        if !saved.is_empty() {
            pro.push(inst(Op::addi, vec![sp.clone(), sp.clone(), Operand::Imm(-bytes as i64)]));
            pro.push(Item::Cfi(Cfi::AdjustCfaOffset(bytes)));
            for (i, &r) in saved.iter().enumerate() {
                let slot = Operand::Mem(mem(regs::SP, 8 * i as i32));
                pro.push(inst(Op::sd, vec![Operand::X(r), slot.clone()]));
                pro.push(Item::Cfi(Cfi::RelOffset(XNAMES[r as usize].into(), 8 * i as i32)));
                epi.push(inst(Op::ld, vec![Operand::X(r), slot]));
                epi.push(Item::Cfi(Cfi::Restore(XNAMES[r as usize].into())));
            }
            epi.push(inst(Op::addi, vec![sp.clone(), sp.clone(), Operand::Imm(bytes as i64)]));
            epi.push(Item::Cfi(Cfi::AdjustCfaOffset(-bytes)));
        }
        // Stack-passed parameters, loaded before the local storage is allocated (their offsets stay small): 8-byte
        // slots above the entry sp, a 32-bit value sign-extended (LP64).
        for p in &frame.stack_params {
            let at = Operand::Mem(mem(regs::SP, p.offset + bytes));
            pro.push(inst(Op::ld, vec![Operand::X(p.reg.0), at]));
        }
        pro.extend(alloc);
        if frame.locals.over_aligned() {
            // s11 = (sp + align - 16) & -align: the aligned start of the storage.
            let (base, align) = (Operand::X(27), frame.locals.align as i64);
            pro.push(inst(Op::addi, vec![base.clone(), sp.clone(), Operand::Imm(align - 16)]));
            pro.push(inst(Op::andi, vec![base.clone(), base, Operand::Imm(-align)]));
        }
        epi.push(inst(Op::ret, vec![]));
        (pro, epi)
    }
    fn landing_pad(_abi: Abi) -> Option<LandingPad> {
        None
    }
}
