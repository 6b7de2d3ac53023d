//! `imp_aes`, imported by `cargo xtask import` from tests/import/x86_64.S (offset 0x29): 14 instructions.

use asmgen::isa::x86_64::{regs::*, mem, X86Feature, Xmm, Ymm, X86_64};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_aes`, imported.
pub fn imp_aes(abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = Builder::<X86_64>::new("imp_aes", abi, &[X86Feature::Aes, X86Feature::Avx, X86Feature::Vaes]);
    let l0 = b.label("l0");
    b.movdqa(Xmm(0), mem(RSI, 0));
    b.bind(&l0);
    b.aesenc(Xmm(0), mem(RDI, 0));
    b.aesenclast(Xmm(0), Xmm(1));
    b.aesdec(Xmm(0), Xmm(2));
    b.aesdeclast(Xmm(0), Xmm(3));
    b.vaesenc(Ymm(4), Ymm(5), Ymm(6));
    b.vaesenclast(Xmm(4), Xmm(5), Xmm(6));
    b.vaesimc(Xmm(7), Xmm(8));
    b.vaeskeygenassist(Xmm(9), Xmm(10), 0x36);
    b.pxor(Xmm(0), Xmm(9));
    b.add(RDI, 16);
    b.sub(RDX, 1);
    b.jnz(&l0);
    b.movdqa(mem(RSI, 0), Xmm(0));
    b.finish()
}
