//! `imp_permutes`, imported by `cargo xtask import` from tests/import/aarch64.S (offset 0x80): 11 instructions.

use asmgen::isa::aarch64::{regs::*, Aarch64, V};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_permutes`, imported.
pub fn imp_permutes(abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let mut b = Builder::<Aarch64>::new("imp_permutes", abi, &[]);
    let s5_000000 = b.constant("imp_permutes_s5_000000", 16, "from .rodata at 0x0", &[0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe]);
    b.ld4r_4s(V(0), X1);
    b.zip1_4s(V(4), V(0), V(1));
    b.zip2_2d(V(5), V(2), V(3));
    b.trn1_16b(V(6), V(4), V(5));
    b.uzp2_4s(V(7), V(6), V(4));
    b.sli_4s(V(7), V(6), 7);
    b.adrp(X2, &s5_000000);
    b.add(X2, X2, 0);
    b.ldr(V(16), X2, 0);
    b.eor_16b(V(7), V(7), V(16));
    b.str(V(7), X0, 0);
    b.finish()
}
