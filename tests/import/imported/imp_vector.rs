//! `imp_vector`, imported by `cargo xtask import` from tests/import/riscv64.S (offset 0x34): 11 instructions.

use asmgen::isa::riscv64::{RvFeature, Riscv64, VType, V, X};
use asmgen::{Abi, Builder, Function, GenError};

/// `imp_vector`, imported.
pub fn imp_vector(abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let mut b = Builder::<Riscv64>::new("imp_vector", abi, &[RvFeature::V, RvFeature::Zvkb, RvFeature::Zvkg, RvFeature::Zvksed]);
    let s4_000000 = b.constant("imp_vector_s4_000000", 16, "from .rodata at 0x0", &[0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00]);
    b.vsetivli(X(0), 4, VType { sew: 32, lmul: 1 });
    b.vle32_v(V(1), X(10));
    b.vle32_v(V(2), X(11));
    b.vghsh_vv(V(1), V(2), V(3));
    b.vrev8_v(V(4), V(1));
    b.vsm4k_vi(V(5), V(4), 0);
    b.vxor_vv(V(5), V(5), V(1));
    b.lla(X(5), &s4_000000);
    b.vle32_v(V(6), X(5));
    b.vxor_vv(V(5), V(5), V(6));
    b.vse32_v(V(5), X(10));
    b.finish()
}
