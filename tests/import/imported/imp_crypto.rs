//! `imp_crypto`, imported by `cargo xtask import` from tests/import/riscv64.S (offset 0x68): 26 instructions.

use asmgen::isa::riscv64::{mem, RvFeature, Riscv64, VType, V, X};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_crypto`, imported.
pub fn imp_crypto(abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let mut b = Builder::<Riscv64>::new("imp_crypto", abi, &[RvFeature::V, RvFeature::Zvbc, RvFeature::Zbkx, RvFeature::Zknd, RvFeature::Zkne, RvFeature::Zknh, RvFeature::Zksh, RvFeature::Zvbb, RvFeature::Zvkned, RvFeature::Zvknha, RvFeature::Zvksh]);
    b.ld(X(5), mem(X(10), 0));
    b.ld(X(6), mem(X(10), 8));
    b.aes64es(X(7), X(5), X(6));
    b.aes64esm(X(28), X(6), X(5));
    b.aes64ds(X(29), X(5), X(6));
    b.aes64im(X(30), X(29));
    b.aes64ks1i(X(31), X(30), 3);
    b.aes64ks2(X(13), X(31), X(5));
    b.sha256sig0(X(14), X(13));
    b.sha512sum1(X(15), X(14));
    b.sm3p0(X(16), X(15));
    b.xperm8(X(17), X(16), X(5));
    b.addw(X(17), X(17), X(6));
    b.sd(X(17), mem(X(10), 0));
    b.vsetivli(X(0), 4, VType { sew: 32, lmul: 1 });
    b.vle32_v(V(1), X(11));
    b.vaesef_vv(V(1), V(2));
    b.vaesem_vs(V(1), V(3));
    b.vaeskf1_vi(V(4), V(1), 1);
    b.vsha2ms_vv(V(5), V(6), V(7));
    b.vsha2ch_vv(V(5), V(6), V(7));
    b.vsm3me_vv(V(8), V(9), V(10));
    b.vsm3c_vi(V(8), V(9), 2);
    b.vclmul_vx(V(11), V(12), X(5));
    b.vwsll_vi(V(14), V(13), 3);
    b.vse32_v(V(8), X(11));
    b.finish()
}
