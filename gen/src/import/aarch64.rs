//! aarch64 decoding through the table's fixed-width encodings ([`super::fixed`]): the operand kinds built
//! from field values, and their Rust spelling.

use super::decode::{Decode, Decoded, Refs, Unknown};
use super::fixed::{self, Operands32, Pattern};
use crate::ir::Inst;
use crate::isa::aarch64::{bitmask32, bitmask64, Aarch64, Op, Operand};
use crate::isa::fixed::Map;
use crate::label::Label;
use std::sync::OnceLock;

impl Operands32 for Aarch64 {
    fn operand(kind: &str, v: i64) -> Option<Operand> {
        let n = u8::try_from(v).ok().filter(|n| *n < 32);
        Some(match kind {
            "Xn" => n.map(|n| if n == 31 { Operand::Xzr } else { Operand::X(n) })?,
            "Xm" => n.filter(|n| *n < 31).map(Operand::X)?,
            "XnSp" => n.map(|n| if n == 31 { Operand::Sp } else { Operand::X(n) })?,
            "Wn" => n.map(|n| if n == 31 { Operand::Wzr } else { Operand::W(n) })?,
            "WnSp" => n.map(|n| if n == 31 { Operand::Wsp } else { Operand::W(n) })?,
            "VList2d" => Operand::List4(n?, "2d"),
            "VTriple16b" => Operand::List3(n?, "16b"),
            "VTriple2d" => Operand::List3(n?, "2d"),
            "VPair16b" => Operand::List2(n?, "16b"),
            "VPair2d" => Operand::List2(n?, "2d"),
            "VPair4s" => Operand::List2(n?, "4s"),
            "Vn" => Operand::V(n?),
            "Qn" => Operand::Q(n?),
            "Dn" => Operand::D(n?),
            "Sn" => Operand::S(n?),
            "VList16b" => Operand::List4(n?, "16b"),
            "VList4s" => Operand::List4(n?, "4s"),
            "VListS" => Operand::List4(n?, "s"),
            "Imm12" | "Imm8" | "Imm4" | "Shift" | "Lane" | "UOff" | "UOff1" | "SOff" | "Shift32" | "LaneS"
            | "UOff4" | "ExtShift" | "Imm3" | "Shift8" | "LaneB" | "Bit32" | "MovShift" | "BitImm64" | "BitImm32" => {
                Operand::Imm(v)
            }
            _ => return None,
        })
    }
    fn signed(kind: &str) -> bool {
        matches!(kind, "SOff" | "Target")
    }
    fn label_operand(l: Label) -> Operand {
        Operand::Label(l)
    }
    fn invert(map: Map, encoded: i64) -> Option<i64> {
        if std::ptr::fn_addr_eq(map, bitmask32 as Map) {
            // N is 0 in a 32-bit pattern; the 64-bit value is the pattern twice.
            return (encoded >> 12 == 0).then(|| decode_bit_masks(encoded).map(|v| v & 0xffff_ffff)).flatten();
        }
        std::ptr::fn_addr_eq(map, bitmask64 as Map).then(|| decode_bit_masks(encoded)).flatten()
    }
    fn op_at(index: usize) -> Op {
        Op::ALL[index]
    }
    const NOP: u32 = 0xd503_201f;
    const PAD: Option<u32> = Some(0xd503_245f);
}

/// The 64-bit value of a logical immediate's N:immr:imms (the Arm ARM's DecodeBitMasks), if it encodes one.
fn decode_bit_masks(enc: i64) -> Option<i64> {
    let (n, immr, imms) = ((enc >> 12) & 1, (enc >> 6) & 0x3f, enc & 0x3f);
    let combined = (n << 6) | (!imms & 0x3f);
    let len = 63 - (combined as u64).leading_zeros() as i64;
    if len < 1 {
        return None;
    }
    let (esize, levels) = (1u32 << len, (1i64 << len) - 1);
    let (s, r) = (imms & levels, (immr & levels) as u32);
    if s == levels {
        return None;
    }
    let mask = if esize == 64 { u64::MAX } else { (1u64 << esize) - 1 };
    let ones = (1u64 << (s + 1)) - 1;
    let elem = if r == 0 { ones } else { ((ones >> r) | (ones << (esize - r))) & mask };
    Some((0..64 / esize).fold(0u64, |acc, i| acc | (elem << (i * esize))) as i64)
}

fn patterns() -> &'static [Pattern] {
    static P: OnceLock<Vec<Pattern>> = OnceLock::new();
    P.get_or_init(fixed::patterns::<Aarch64>)
}

impl Decode for Aarch64 {
    fn decode(code: &[u8], at: usize, refs: &mut Refs) -> Result<(Decoded<Self>, usize), Unknown> {
        fixed::decode::<Aarch64>(patterns(), code, at, refs)
    }
    fn reloc_mask(inst: &Inst<Self>, len: usize, _field: usize, _size: usize) -> Vec<u8> {
        <Self as crate::isa::InstructionSet>::info(inst.op)
            .encoding
            .map_or(vec![0xff; len], |e| fixed::label_mask(&e, len))
    }
    fn rust_operand(kind: &str, o: &Operand, label: &dyn Fn(&Label) -> String) -> String {
        match o {
            // A 64-bit pattern: its kind converts from u64 and i64, not from the i32 a bare literal would be.
            Operand::Imm(v) if kind == "BitImm64" => format!("{:#x}u64", *v as u64),
            Operand::Imm(v) if kind == "BitImm32" => format!("{:#x}u32", *v as u32),
            Operand::X(n) | Operand::W(n) => format!("X{n}"),
            Operand::Sp => "SP".into(),
            Operand::Xzr | Operand::Wzr => "XZR".into(),
            Operand::Wsp => "SP".into(),
            Operand::Imm(v) => format!("{v}"),
            Operand::Label(l) => format!("&{}", label(l)),
            // The vector views and lists: the kernel names the register.
            _ => format!("V({})", o.vector().unwrap_or_default()),
        }
    }
    const RUST_MODULE: &'static str = "asmgen::isa::aarch64";
    const RUST_NAMES: &'static [&'static str] = &["A64Feature", "Aarch64", "V"];
    fn is_reg_const(token: &str) -> bool {
        matches!(token, "SP" | "XZR") || token.strip_prefix('X').is_some_and(|n| n.parse::<u8>().is_ok_and(|n| n <= 30))
    }
    const RUST_ISA: &'static str = "Aarch64";
    const RUST_FEATURE: &'static str = "A64Feature";
}
