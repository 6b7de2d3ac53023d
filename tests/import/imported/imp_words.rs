//! `imp_words`, imported by `cargo xtask import` from tests/import/aarch64.S (offset 0xb4): 13 instructions.

use asmgen::isa::aarch64::{regs::*, Aarch64, V};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_words`, imported.
pub fn imp_words(abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let mut b = Builder::<Aarch64>::new("imp_words", abi, &[]);
    let l0 = b.label("l0");
    b.ldp_w(X3, X4, X1, 0);
    b.add_w(X5, X3, X4);
    b.eor_w_ror(X6, X5, X3, 7);
    b.ror_w_imm(X7, X6, 13);
    b.and_imm(X8, X3, 0xff00ff00ff00ff00u64);
    b.orr_imm(X9, X8, 0x1u64);
    b.ld1_4x16b_post(V(0), X2);
    b.ld1_2x4s(V(4), X2);
    b.cmp(X8, X9);
    b.cset_eq(X10);
    b.tbz_w(X7, 3, &l0);
    b.add_w_imm(X7, X7, 1);
    b.bind(&l0);
    b.str_w(X7, X0, 0);
    b.finish()
}
