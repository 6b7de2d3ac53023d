//! `imp_bitmanip`, imported by `cargo xtask import` from tests/import/riscv64.S (offset 0x0): 12 instructions.

use asmgen::isa::riscv64::{mem, RvFeature, Riscv64, X};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_bitmanip`, imported.
pub fn imp_bitmanip(abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let mut b = Builder::<Riscv64>::new("imp_bitmanip", abi, &[RvFeature::Zbb, RvFeature::Zbc, RvFeature::Zbkb, RvFeature::Zksed]);
    let l0 = b.label("l0");
    b.ld(X(5), mem(X(10), 0));
    b.ld(X(6), mem(X(10), 8));
    b.bind(&l0);
    b.rev8(X(7), X(5));
    b.andn(X(28), X(6), X(7));
    b.rori(X(29), X(28), 17);
    b.clmul(X(30), X(5), X(6));
    b.clmulh(X(31), X(5), X(6));
    b.pack(X(13), X(30), X(31));
    b.sm4ed(X(14), X(13), X(5), 2);
    b.addi(X(12), X(12), -1);
    b.bnez(X(12), &l0);
    b.sd(X(14), mem(X(10), 0));
    b.finish()
}
