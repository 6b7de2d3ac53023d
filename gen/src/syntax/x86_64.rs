//! x86-64 under GNU as: Intel syntax, `#` comments, GNU as's multi-byte NOP fill.

use super::Spelling;
use crate::feature::FeatureSet;
use crate::isa::x86_64::{X86Feature, X86_64};

/// The fill GNU as (2.40, x86-64) puts in code alignment: as many of the 11-byte NOP as fit, then the NOP of
/// the remaining length.
const NOP11: &[u8] = &[0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0];
const NOP_TAIL: [&[u8]; 11] = [
    &[],
    &[0x90],
    &[0x66, 0x90],
    &[0x0f, 0x1f, 0x00],
    &[0x0f, 0x1f, 0x40, 0x00],
    &[0x0f, 0x1f, 0x44, 0x00, 0x00],
    &[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00],
    &[0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00],
    &[0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    &[0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    &[0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
];

impl Spelling for X86_64 {
    const COMMENT: &'static str = "#";
    fn preamble(_features: FeatureSet<X86Feature>) -> Vec<String> {
        vec![".intel_syntax noprefix".into()]
    }
    fn code_fill(out: &mut Vec<u8>, mut n: usize) {
        while n > NOP11.len() {
            out.extend_from_slice(NOP11);
            n -= NOP11.len();
        }
        if n == NOP11.len() {
            out.extend_from_slice(NOP11);
        } else {
            out.extend_from_slice(NOP_TAIL[n]);
        }
    }
}
