//! Windows x64 unwind data (SEH): the `UNWIND_INFO` of a function, computed from its prologue's unwind steps
//! (the same [`Cfi`] items GNU as listings spell as `.seh_*` directives). Assemblers without those directives
//! (NASM 2.16) get the `.xdata` bytes written out from here.
//!
//! `UNWIND_INFO` (Microsoft x64 exception handling): version 1 and no flags, the prologue's size, the number
//! of 2-byte unwind-code slots, no frame register; then the unwind codes, last prologue step first, each the
//! offset of the end of its instruction, its operation and its operation info, followed by the slots of its
//! operand; padded with one zero slot to an even number of slots. Offsets are kept symbolic (`O`: a label the
//! assembler resolves, or a number in tests).

use crate::ir::Cfi;
use crate::isa::x86_64::GPR64;

/// `UWOP_PUSH_NONVOL`: a general-purpose register was pushed (info: its number).
pub const UWOP_PUSH_NONVOL: u8 = 0;
/// `UWOP_ALLOC_LARGE`: the stack was lowered by a size in the next slot (info 0, scaled by 8) or two (info 1).
pub const UWOP_ALLOC_LARGE: u8 = 1;
/// `UWOP_ALLOC_SMALL`: the stack was lowered by 8 to 128 bytes (info: size / 8 - 1).
pub const UWOP_ALLOC_SMALL: u8 = 2;
/// `UWOP_SAVE_XMM128`: an xmm register was stored at the offset in the next slot, scaled by 16.
pub const UWOP_SAVE_XMM128: u8 = 8;
/// `UWOP_SAVE_XMM128_FAR`: an xmm register was stored at the unscaled 32-bit offset in the next two slots.
pub const UWOP_SAVE_XMM128_FAR: u8 = 9;

/// The operations' names by number, as Microsoft documents them (`UWOP_` dropped).
const OP_NAMES: [&str; 11] = [
    "PUSH_NONVOL",
    "ALLOC_LARGE",
    "ALLOC_SMALL",
    "SET_FPREG",
    "SAVE_NONVOL",
    "SAVE_NONVOL_FAR",
    "EPILOG",
    "SPARE_CODE",
    "SAVE_XMM128",
    "SAVE_XMM128_FAR",
    "PUSH_MACHFRAME",
];

/// The name of the operation of an unwind code's second byte (operation in the low nibble, info in the high).
pub fn op_name(code: u8) -> &'static str {
    OP_NAMES.get((code & 15) as usize).copied().unwrap_or("unknown")
}

/// One prologue step that the unwinder must undo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `push` of general-purpose register number `n`.
    Push(u8),
    /// `sub rsp, n`.
    Alloc(u32),
    /// xmm register `n` stored at this offset from the final stack pointer.
    SaveXmm(u8, u32),
}

impl Step {
    /// The step an unwind item describes; `None` for items that are not prologue steps (CFI only, or the end of
    /// the prologue). Panics on a register name that is not x86-64's: the prologue is generated.
    pub fn of(c: &Cfi) -> Option<Step> {
        match c {
            Cfi::Push(r) => {
                Some(Step::Push(GPR64.iter().position(|g| *g == r.as_str()).expect("a 64-bit register") as u8))
            }
            Cfi::Alloc(n) => Some(Step::Alloc(u32::try_from(*n).expect("a positive allocation"))),
            Cfi::SaveVec(r, off) => {
                let n = r.strip_prefix("xmm").and_then(|n| n.parse().ok()).expect("an xmm register");
                Some(Step::SaveXmm(n, u32::try_from(*off).expect("a positive offset")))
            }
            Cfi::AdjustCfaOffset(_) | Cfi::RelOffset(..) | Cfi::Restore(_) | Cfi::EndPrologue => None,
            // ARM64 SEH items: never in an x86-64 prologue.
            Cfi::SaveRegs { .. } | Cfi::Nop | Cfi::StartEpilogue | Cfi::EndEpilogue => None,
        }
    }

    /// The operation, its info nibble and the operand slots that follow the code.
    fn encode(self) -> (u8, u8, Vec<u16>) {
        let halves = |v: u32| vec![v as u16, (v >> 16) as u16];
        match self {
            Step::Push(r) => (UWOP_PUSH_NONVOL, r, vec![]),
            Step::Alloc(n) if (8..=128).contains(&n) => (UWOP_ALLOC_SMALL, (n / 8 - 1) as u8, vec![]),
            Step::Alloc(n) if n / 8 <= 0xffff => (UWOP_ALLOC_LARGE, 0, vec![(n / 8) as u16]),
            Step::Alloc(n) => (UWOP_ALLOC_LARGE, 1, halves(n)),
            Step::SaveXmm(r, off) if off / 16 <= 0xffff => (UWOP_SAVE_XMM128, r, vec![(off / 16) as u16]),
            Step::SaveXmm(r, off) => (UWOP_SAVE_XMM128_FAR, r, halves(off)),
        }
    }
}

/// One field of `UNWIND_INFO`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field<O> {
    /// A byte: the offset of `O` from the function's start.
    Offset(O),
    /// A byte.
    Byte(u8),
    /// A 16-bit little-endian slot.
    Slot(u16),
}

/// The unwind information of one function: where its prologue ends and each step with where its instruction
/// ends.
#[derive(Clone, Debug, Default)]
pub struct UnwindInfo<O> {
    /// The end of the prologue (its size).
    pub prologue_end: Option<O>,
    /// The prologue steps in order, each with the end of its instruction.
    pub steps: Vec<(O, Step)>,
}

impl<O: Clone> UnwindInfo<O> {
    /// The fields of the `UNWIND_INFO` structure, in order; a multiple of 4 bytes. Panics without the end of
    /// the prologue.
    pub fn fields(&self) -> Vec<Field<O>> {
        let end = self.prologue_end.clone().expect("the prologue's end");
        let mut codes = Vec::new();
        let mut slots = 0;
        for (at, step) in self.steps.iter().rev() {
            let (op, info, operand) = step.encode();
            codes.push(Field::Offset(at.clone()));
            codes.push(Field::Byte(op | info << 4));
            slots += 1 + operand.len();
            codes.extend(operand.into_iter().map(Field::Slot));
        }
        if slots % 2 == 1 {
            codes.push(Field::Slot(0));
        }
        let count = u8::try_from(slots).expect("at most 255 unwind slots");
        let mut fields = vec![Field::Byte(1), Field::Offset(end), Field::Byte(count), Field::Byte(0)];
        fields.extend(codes);
        fields
    }

    /// The `UNWIND_INFO` bytes, each label's offset given by `offset`.
    pub fn bytes(&self, offset: impl Fn(&O) -> u8) -> Vec<u8> {
        let mut out = Vec::new();
        for f in self.fields() {
            match f {
                Field::Offset(o) => out.push(offset(&o)),
                Field::Byte(b) => out.push(b),
                Field::Slot(s) => out.extend(s.to_le_bytes()),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(steps: &[(u8, Step)], end: u8) -> Vec<u8> {
        UnwindInfo { prologue_end: Some(end), steps: steps.to_vec() }.bytes(|o| *o)
    }

    #[test]
    fn no_steps_is_a_header_only() {
        assert_eq!(info(&[], 4), [1, 4, 0, 0]);
    }

    #[test]
    fn pushes_alloc_and_xmm_saves_in_reverse_padded_to_even() {
        // endbr64; push rsi; push rdi; sub rsp, 40; vmovdqa [rsp], xmm6; vmovdqa [rsp + 16], xmm7
        let steps = [
            (5, Step::Push(6)),
            (6, Step::Push(7)),
            (10, Step::Alloc(40)),
            (15, Step::SaveXmm(6, 0)),
            (21, Step::SaveXmm(7, 16)),
        ];
        let expected = [
            1, 21, 7, 0, // version 1, prologue 21 bytes, 7 slots, no frame register
            21, 0x78, 1, 0, // xmm7 at 16: SAVE_XMM128, offset 16/16
            15, 0x68, 0, 0, // xmm6 at 0
            10, 0x42, // ALLOC_SMALL 40: info 40/8 - 1
            6, 0x70, // PUSH_NONVOL rdi
            5, 0x60, // PUSH_NONVOL rsi
            0, 0, // padding
        ];
        assert_eq!(info(&steps, 21), expected);
    }

    #[test]
    fn large_and_far_forms() {
        assert_eq!(info(&[(7, Step::Alloc(136))], 7), [1, 7, 2, 0, 7, 0x01, 17, 0]);
        assert_eq!(info(&[(7, Step::Alloc(0x80000))], 7), [1, 7, 3, 0, 7, 0x11, 0, 0, 8, 0, 0, 0]);
        assert_eq!(info(&[(9, Step::SaveXmm(15, 0x100000))], 9), [1, 9, 3, 0, 9, 0xf9, 0, 0, 0x10, 0, 0, 0]);
    }

    #[test]
    fn steps_from_the_prologue_items() {
        assert_eq!(Step::of(&Cfi::Push("r12".into())), Some(Step::Push(12)));
        assert_eq!(Step::of(&Cfi::Alloc(88)), Some(Step::Alloc(88)));
        assert_eq!(Step::of(&Cfi::SaveVec("xmm14".into(), 48)), Some(Step::SaveXmm(14, 48)));
        assert_eq!(Step::of(&Cfi::EndPrologue), None);
    }
}
