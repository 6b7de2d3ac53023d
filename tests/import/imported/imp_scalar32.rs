//! `imp_scalar32`, imported by `cargo xtask import` from tests/import/x86_64.S (offset 0xd9): 17 instructions.

use asmgen::isa::x86_64::{regs::*, mem, mem_index, Gpr32, X86Feature, X86_64};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_scalar32`, imported.
pub fn imp_scalar32(abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = Builder::<X86_64>::new("imp_scalar32", abi, &[X86Feature::Bmi1, X86Feature::Bmi2, X86Feature::Movbe]);
    b.mov(Gpr32(0), mem(RDI, 0));
    b.add(Gpr32(0), Gpr32(1));
    b.ror(Gpr32(0), 7);
    b.rorx(Gpr32(2), Gpr32(0), 11);
    b.nop_m(mem(RAX, 0));
    b.shld(Gpr32(0), Gpr32(2), 3);
    b.xor(Gpr32(2), mem(RDI, 4));
    b.andn(Gpr32(8), Gpr32(0), Gpr32(2));
    b.lea(Gpr32(9), mem_index(RAX, RDX, 1, 0));
    b.movzx(Gpr32(1), mem(RSI, 0));
    b.shl(R10, CL);
    b.cmp(Gpr32(0), Gpr32(2));
    b.cmovb(R10, R11);
    b.setz(RAX.b());
    b.bswap(Gpr32(9));
    b.movbe(R11, mem(RSI, 8));
    b.mov(mem(RDI, 0), Gpr32(9));
    b.finish()
}
