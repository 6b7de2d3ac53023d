//! riscv64 under GNU as: `#` comments, `.insn` raw words, `.option push`/`.option arch`/`.option pop` around each function naming the extensions it uses, `nop`
//! fill, and the code section padded to its alignment.

use super::Spelling;
use crate::feature::{Feature, FeatureSet};
use crate::isa::riscv64::{Riscv64, RvFeature};

impl Spelling for Riscv64 {
    const COMMENT: &'static str = "#";
    const RAW_DIRECTIVE: &'static str = ".insn";
    const PAD_SECTION_END: bool = true;
    fn preamble(_features: FeatureSet<RvFeature>) -> Vec<String> {
        Vec::new()
    }
    /// `.option push`, `.option arch, +ext, ...` naming exactly the extensions the function's instructions use
    /// (those GNU as knows; the others are emitted as raw words), `.option pop` after it: the object's
    /// `Tag_RISCV_arch` stays the base the assembler was started with (`rv64gc`).
    fn function_isa(features: FeatureSet<RvFeature>) -> (Vec<String>, Vec<String>) {
        let exts: Vec<String> =
            features.iter().filter(|f| f.known_to_gas()).map(|f| format!("+{}", f.name())).collect();
        if exts.is_empty() {
            return (Vec::new(), Vec::new());
        }
        (vec![".option push".into(), format!(".option arch, {}", exts.join(", "))], vec![".option pop".into()])
    }
    fn code_fill(out: &mut Vec<u8>, n: usize) {
        for _ in 0..n / 4 {
            out.extend_from_slice(&0x0000_0013_u32.to_le_bytes()); // nop (addi zero, zero, 0)
        }
    }
}
