//! `imp_strings_xchg`, imported by `cargo xtask import` from tests/import/x86_64.S (offset 0x167): 23 instructions.

use asmgen::isa::x86_64::{regs::*, mem, rip, Gpr32, X86Feature, Zmm, X86_64};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_strings_xchg`, imported.
pub fn imp_strings_xchg(abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = Builder::<X86_64>::new("imp_strings_xchg", abi, &[X86Feature::Avx, X86Feature::Avx512f, X86Feature::Avx512bw, X86Feature::Rdrand]);
    let s5_000000 = b.constant("imp_strings_xchg_s5_000000", 32, "from .rodata at 0x0", &[0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
    let l0 = b.label("l0");
    let l1 = b.label("l1");
    b.xchg(RCX, RAX);
    b.xchg(R8, R9);
    b.xchg(Gpr32(2), Gpr32(0));
    b.xchg(mem(RSI, 8), R10);
    b.rdrand(R11);
    b.cld();
    b.mov(RCX, 4);
    b.rep_movsb();
    b.movsq();
    b.stosb();
    b.rep_stosq();
    b.std();
    b.movsb();
    b.stosq();
    b.cld();
    b.bind(&l1);
    b.dec(RCX);
    b.jrcxz(&l0);
    b.jmp(&l1);
    b.bind(&l0);
    b.call_reg(R11);
    b.kmovq(k(1), RAX);
    b.vmovdqu8(mem(RDI, 64).mask(k(1)), Zmm(8));
    b.vmovdqu8(rip(&s5_000000).mask(k(7)), Zmm(31));
    b.vzeroupper();
    b.finish()
}
