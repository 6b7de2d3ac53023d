//! aarch64 under GNU as: `//` comments, `%` type prefix, `.inst` raw words, `nop` fill.

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
