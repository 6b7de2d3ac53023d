//! aarch64 under GNU as: `//` comments, `%` type prefix, `.inst` raw words, `nop` fill; the ARM64 SEH save
//! directives.

use super::Spelling;
use crate::feature::FeatureSet;
use crate::isa::aarch64::{A64Feature, Aarch64};

impl Spelling for Aarch64 {
    const COMMENT: &'static str = "//";
    const TYPE_PREFIX: &'static str = "%";
    fn gnu_property() -> Option<(u32, u32)> {
        // GNU_PROPERTY_AARCH64_FEATURE_1_AND: BTI (1) | PAC (2).
        Some((0xc000_0000, 3))
    }
    fn preamble(_f: FeatureSet<A64Feature>) -> Vec<String> {
        // GNU as 2.40 accepts pmull .1q, eor3/bcax and sm4e only on a v8.2 base.
        vec![".arch armv8.2-a+crypto+sm4+sha3".into()]
    }
    fn code_fill(out: &mut Vec<u8>, n: usize) {
        for _ in 0..n / 4 {
            out.extend_from_slice(&0xd503_201f_u32.to_le_bytes()); // nop
        }
    }
}

/// The ARM64 SEH directive of a store of `regs` (one register or a consecutive pair; d registers are the `f`
/// forms) at `offset` from sp, or pre-indexed by `-offset` (`_x`): `.seh_save_regp_x x19, 32`, `.seh_save_freg d8,
/// 16`. The unwind code names the first register only: the pair is it and the next.
pub(super) fn seh_save(regs: &[String], offset: i32, pre_index: bool) -> String {
    let f = if regs[0].starts_with('d') { "f" } else { "" };
    let p = if regs.len() == 2 { "p" } else { "" };
    let x = if pre_index { "_x" } else { "" };
    format!(".seh_save_{f}reg{p}{x} {}, {offset}", regs[0])
}
