//! riscv64 under GNU as: `#` comments, `.insn` raw words, `.option arch` naming the extensions used, `nop`
//! fill, and the code section padded to its alignment.

use super::Spelling;
use crate::feature::{Feature, FeatureSet};
use crate::isa::riscv64::{Riscv64, RvFeature};

impl Spelling for Riscv64 {
    const COMMENT: &'static str = "#";
    const RAW_DIRECTIVE: &'static str = ".insn";
    const PAD_SECTION_END: bool = true;
    /// `.option arch, +ext, ...` naming exactly the extensions the listing's instructions use (those GNU as
    /// knows; the others are emitted as raw words).
    fn preamble(features: FeatureSet<RvFeature>) -> Vec<String> {
        let exts: Vec<String> =
            features.iter().filter(|f| f.known_to_gas()).map(|f| format!("+{}", f.name())).collect();
        if exts.is_empty() {
            vec![]
        } else {
            vec![format!(".option arch, {}", exts.join(", "))]
        }
    }
    fn code_fill(out: &mut Vec<u8>, n: usize) {
        for _ in 0..n / 4 {
            out.extend_from_slice(&0x0000_0013_u32.to_le_bytes()); // nop (addi zero, zero, 0)
        }
    }
}
