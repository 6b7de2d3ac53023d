//! riscv64 helpers every kernel family uses: loop counts known when the kernel is generated, counted loops.

use crate::plan::Loops;
use asmgen::isa::riscv64::{Riscv64, X};
use asmgen::{Builder, Label};

type B = Builder<Riscv64>;

/// `d = v`, a count known when the kernel is generated: `li`, or `lui` + `addi` above 11 bits (below 2^31).
pub(crate) fn li_count(b: &mut B, d: X, v: usize) {
    if v < 2048 {
        b.li(d, v as i32);
        return;
    }
    assert!(v < (1 << 31) - 2048, "count {v} does not fit in 31 bits");
    let hi = (v + 0x800) >> 12;
    let lo = v as i64 - ((hi as i64) << 12);
    b.lui(d, hi as i32);
    if lo != 0 {
        b.addi(d, d, lo as i32);
    }
}

impl Loops for Riscv64 {
    /// [`li_count`].
    fn load_count(b: &mut B, n: X, v: usize) {
        li_count(b, n, v);
    }

    /// `beqz`.
    fn branch_if_zero(b: &mut B, n: X, to: &Label) {
        b.beqz(n, to);
    }

    /// `addi -1` + `bnez`.
    fn decrement_and_loop(b: &mut B, n: X, top: &Label) {
        b.addi(n, n, -1);
        b.bnez(n, top);
    }
}
