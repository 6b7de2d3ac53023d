//! `imp_avx2_lanes`, imported by `cargo xtask import` from tests/import/x86_64.S (offset 0xaf): 7 instructions.

use asmgen::isa::x86_64::{regs::*, mem, rip, X86Feature, Ymm, X86_64};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_avx2_lanes`, imported.
pub fn imp_avx2_lanes(abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = Builder::<X86_64>::new("imp_avx2_lanes", abi, &[X86Feature::Avx, X86Feature::Avx2]);
    let s5_000000 = b.constant("imp_avx2_lanes_s5_000000", 32, "from .rodata at 0x0", &[0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
    b.vmovdqu(Ymm(0), mem(RDI, 0));
    b.vperm2i128(Ymm(1), Ymm(0), Ymm(0), 0x01);
    b.vpermq(Ymm(2), Ymm(1), 0x4e);
    b.vpblendd(Ymm(3), Ymm(2), Ymm(0), 0xf0);
    b.vpxor(Ymm(3), Ymm(3), rip(&s5_000000));
    b.vmovdqu(mem(RDI, 0), Ymm(3));
    b.vzeroupper();
    b.finish()
}
