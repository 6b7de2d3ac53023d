//! riscv64 decoding through the table's fixed-width encodings ([`super::fixed`]): the operand kinds built
//! from field values, and their Rust spelling.

use super::decode::{Decode, Decoded, Refs, Unknown};
use super::fixed::{self, Operands32, Pattern};
use crate::ir::Inst;
use crate::isa::fixed::Map;
use crate::isa::riscv64::{self, mem, Op, Operand, Riscv64, VType, VTypePol, X};
use crate::label::Label;
use std::sync::OnceLock;

/// The vector type of a `vtypei` immediate (tail and mask agnostic, as the table writes them).
fn vtype(bits: i64) -> Option<VType> {
    let t = VType { sew: 8 << ((bits >> 3) & 7), lmul: 1 << (bits & 7) };
    (t.sew <= 64 && t.lmul <= 8 && t.bits() == bits).then_some(t)
}

/// The vector type and policies of a `vtypei` immediate with `tu` or `mu` (the entries with policies).
fn policy(bits: i64) -> Option<VTypePol> {
    let vtype = vtype(bits | 0xc0)?;
    let t = VTypePol { vtype, tail_undisturbed: bits & 0x40 == 0, mask_undisturbed: bits & 0x80 == 0 };
    (t.bits() == bits).then_some(t)
}

impl Operands32 for Riscv64 {
    fn operand(kind: &str, v: i64) -> Option<Operand> {
        let n = u8::try_from(v).ok().filter(|n| *n < 32);
        Some(match kind {
            "Xr" => Operand::X(n?),
            "Vr" | "Vr2" | "Vr4" | "Vr8" => Operand::V(n?),
            "VAddr" => Operand::Base(n?),
            "M" => Operand::Mem(mem(X((v & 31) as u8), i32::try_from(v >> 5).ok()?)),
            "VTypeI" => Operand::VType(vtype(v)?),
            "VTypeP" => Operand::VTypePol(policy(v)?),
            "Simm12" | "Shamt" | "Uimm5" | "Simm5" | "Bs" | "Uimm20" | "Rnum" => Operand::Imm(v),
            _ => return None,
        })
    }
    fn signed(kind: &str) -> bool {
        matches!(kind, "Simm12" | "Simm5" | "M" | "Target")
    }
    fn label_operand(l: Label) -> Operand {
        Operand::Label(l)
    }
    fn join((first, second): (Map, Map), (hi, lo): (i64, i64)) -> Option<i64> {
        // `auipc`'s 20 bits are the offset's bits 31..12 with the low part's sign added; the low 12 bits sign-extend.
        let pair =
            std::ptr::fn_addr_eq(first, riscv64::hi20 as Map) && std::ptr::fn_addr_eq(second, riscv64::lo12 as Map);
        pair.then(|| i64::from((hi << 12) as i32) + ((lo << 52) >> 52))
    }
    fn op_at(index: usize) -> Op {
        Op::ALL[index]
    }
    const NOP: u32 = 0x0000_0013;
    const PAD: Option<u32> = None;
}

fn patterns() -> &'static [Pattern] {
    static P: OnceLock<Vec<Pattern>> = OnceLock::new();
    P.get_or_init(fixed::patterns::<Riscv64>)
}

impl Decode for Riscv64 {
    fn decode(code: &[u8], at: usize, refs: &mut Refs) -> Result<(Decoded<Self>, usize), Unknown> {
        fixed::decode::<Riscv64>(patterns(), code, at, refs)
    }
    fn reloc_mask(inst: &Inst<Self>, len: usize, _field: usize, _size: usize) -> Vec<u8> {
        <Self as crate::isa::InstructionSet>::info(inst.op)
            .encoding
            .map_or(vec![0xff; len], |e| fixed::label_mask(&e, len))
    }
    fn rust_operand(_kind: &str, o: &Operand, label: &dyn Fn(&Label) -> String) -> String {
        match o {
            Operand::X(n) | Operand::Base(n) => format!("X({n})"),
            Operand::V(n) => format!("V({n})"),
            Operand::Imm(v) => format!("{v}"),
            Operand::Mem(m) => format!("mem(X({}), {})", m.base().0, m.offset()),
            Operand::VType(t) => format!("VType {{ sew: {}, lmul: {} }}", t.sew, t.lmul),
            Operand::VTypePol(p) => format!(
                "VTypePol {{ vtype: VType {{ sew: {}, lmul: {} }}, tail_undisturbed: {}, mask_undisturbed: {} }}",
                p.vtype.sew, p.vtype.lmul, p.tail_undisturbed, p.mask_undisturbed
            ),
            Operand::Label(l) => format!("&{}", label(l)),
        }
    }
    const RUST_MODULE: &'static str = "asmgen::isa::riscv64";
    const RUST_NAMES: &'static [&'static str] = &["mem", "RvFeature", "Riscv64", "VType", "VTypePol", "V", "X"];
    fn is_reg_const(_token: &str) -> bool {
        false
    }
    const RUST_ISA: &'static str = "Riscv64";
    const RUST_FEATURE: &'static str = "RvFeature";
}
