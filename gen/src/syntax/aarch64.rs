//! aarch64 under GNU as: `//` comments, `%` type prefix, `.inst` raw words, `nop` fill, and `.arch` naming
//! each function's extensions.

use super::Spelling;
use crate::feature::FeatureSet;
use crate::isa::aarch64::{A64Feature, Aarch64};

/// The listing's base: GNU as 2.40 accepts `pmull .1q`, `eor3`/`bcax` and `sm4e` only on a v8.2 base.
const BASE: &str = ".arch armv8.2-a";

/// GNU as's name of the extension that enables a feature's instructions (PMULL comes with `aes`, SHA-512 with `sha3`).
fn gas_extension(f: A64Feature) -> &'static str {
    match f {
        A64Feature::Pmull | A64Feature::Aes => "aes",
        A64Feature::Sha3 => "sha3",
        // GNU as's `sm4` enables SM3 and SM4 together.
        A64Feature::Sm4 | A64Feature::Sm3 => "sm4",
        A64Feature::Sha1 | A64Feature::Sha2 => "sha2",
        // GNU as 2.40 has no `sha512` extension: `sha3` enables SHA-512 (and LLVM's does too).
        A64Feature::Sha512 => "sha3",
    }
}

impl Spelling for Aarch64 {
    const COMMENT: &'static str = "//";
    const TYPE_PREFIX: &'static str = "%";
    fn preamble(_f: FeatureSet<A64Feature>) -> Vec<String> {
        vec![BASE.into()]
    }
    /// `.arch` with the extensions the function requires before it, the base after it.
    fn function_isa(features: FeatureSet<A64Feature>) -> (Vec<String>, Vec<String>) {
        if features.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let mut exts: Vec<&str> = features.iter().map(gas_extension).collect();
        exts.dedup();
        (vec![format!("{BASE}+{}", exts.join("+"))], vec![BASE.into()])
    }
    fn code_fill(out: &mut Vec<u8>, n: usize) {
        for _ in 0..n / 4 {
            out.extend_from_slice(&0xd503_201f_u32.to_le_bytes()); // nop
        }
    }
}
