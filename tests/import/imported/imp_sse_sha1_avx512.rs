//! `imp_sse_sha1_avx512`, imported by `cargo xtask import` from tests/import/x86_64.S (offset 0x119): 15 instructions.

use asmgen::isa::x86_64::{regs::*, mem, X86Feature, Xmm, Zmm, X86_64};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_sse_sha1_avx512`, imported.
pub fn imp_sse_sha1_avx512(abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = Builder::<X86_64>::new("imp_sse_sha1_avx512", abi, &[X86Feature::Avx, X86Feature::Sha, X86Feature::Avx512f, X86Feature::Avx512bw]);
    b.movups(Xmm(0), mem(RDI, 0));
    b.por(Xmm(0), Xmm(1));
    b.psrld(Xmm(0), 3);
    b.pslldq(Xmm(1), 4);
    b.punpcklqdq(Xmm(2), Xmm(0));
    b.sha1rnds4(Xmm(0), Xmm(1), 0x02);
    b.sha1nexte(Xmm(1), Xmm(2));
    b.sha1msg1(Xmm(2), Xmm(3));
    b.vpternlogd(Zmm(4), Zmm(5), Zmm(6), 0x96);
    b.vpxord(Zmm(4), Zmm(4), Zmm(7));
    b.kmovq(k(1), RAX);
    b.vmovdqu8(Zmm(8).maskz(k(1)), mem(RSI, 0));
    b.vpxord(Zmm(8), Zmm(8), Zmm(4));
    b.vmovdqu8(mem(RSI, 0), Zmm(8));
    b.vzeroupper();
    b.finish()
}
