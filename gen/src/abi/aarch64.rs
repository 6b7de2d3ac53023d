//! aarch64: AAPCS64 (Linux, macOS and Windows on Arm use its register roles): arguments in x0-x7, then the
//! stack from sp; x19-x28 and the low halves of v8-v15 are callee-saved (and x29, x30 are saved when the body
//! touches them). Apple's variant ([`Abi::AppleAapcs64`]) reserves x18 for the platform: no function may touch
//! it. The prologue stores the saved registers in pairs, the epilogue loads them and returns.

use super::{Conventions, LandingPad};
use crate::ir::{Cfi, Frame, Item};
use crate::isa::aarch64::{Aarch64, Op, Operand, Reg, X, XNAMES};
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
        let mut operands = vec![self.reg(self.a)];
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
    fn callee_saved(_abi: Abi, r: Reg) -> bool {
        // x19-x28 and the low 64 bits of v8-v15 (AAPCS64); x29 and x30 are saved when the body touches them
        // (a leaf that writes x30 could not return otherwise).
        matches!(r, Reg::X(19..=30) | Reg::V(8..=15))
    }
    fn reserved(abi: Abi, r: Reg) -> bool {
        abi == Abi::AppleAapcs64 && r == Reg::X(18)
    }
    fn is_stack_pointer(r: Reg) -> bool {
        r == Reg::X(31)
    }
    /// The save area: the registers in pairs (x with x, d with d; an odd one alone), 16 bytes per slot. The
    /// first slot's store allocates the whole area (pre-index), the last load frees it (post-index), so sp stays
    /// 16-byte aligned and the unwinder sees every step.
    fn prologue_epilogue(_abi: Abi, frame: &Frame<Self>) -> (Vec<Item<Self>>, Vec<Item<Self>>) {
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
            for c in regs.chunks(2) {
                slots.push(Slot { d, a: c[0], b: c.get(1).copied() });
            }
        }
        let (mut pro, mut epi) = (Vec::new(), Vec::new());
        let ret = Item::Inst(crate::ir::Inst { op: Op::ret, operands: vec![] });
        if slots.is_empty() {
            return (pro, vec![ret]);
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
