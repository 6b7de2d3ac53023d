//! `imp_sha`, imported by `cargo xtask import` from tests/import/aarch64.S (offset 0x0): 14 instructions.

use asmgen::isa::aarch64::{regs::*, A64Feature, Aarch64, V};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_sha`, imported.
pub fn imp_sha(abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let mut b = Builder::<Aarch64>::new("imp_sha", abi, &[A64Feature::Sha2, A64Feature::Sha512, A64Feature::Sha1]);
    let l0 = b.label("l0");
    b.ldr(V(0), X0, 0);
    b.ldr(V(1), X0, 16);
    b.bind(&l0);
    b.ld1_4x16b_post(V(4), X1);
    b.sha256su0(V(4), V(5));
    b.sha256su1(V(4), V(6), V(7));
    b.sha256h(V(0), V(1), V(4));
    b.sha256h2(V(1), V(0), V(4));
    b.sha512su0(V(4), V(5));
    b.sha512h(V(2), V(3), V(4));
    b.sha1h(V(16), V(17));
    b.sha1c(V(0), V(16), V(4));
    b.subs(X2, X2, 1);
    b.b_ne(&l0);
    b.str(V(0), X0, 0);
    b.finish()
}
