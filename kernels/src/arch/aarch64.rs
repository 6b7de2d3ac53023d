//! aarch64 helpers every kernel family uses: constant addresses, loop counts known when the kernel is
//! generated, counted loops.

use crate::plan::Loops;
use asmgen::isa::aarch64::{Aarch64, X};
use asmgen::{Builder, Label};

type B = Builder<Aarch64>;

/// Loads the address of a constant into `x`.
pub(crate) fn addr(b: &mut B, x: X, l: &Label) {
    b.adrp(x, l);
    b.add_lo12(x, x, l);
}

/// `x = v`, a loop count known when the kernel is generated: `movz`, and above 16 bits `movz` of the bits from
/// 12 up, `lsl #12` and `add` of the low 12 bits (counts below 2^28).
pub(crate) fn mov_count(b: &mut B, x: X, v: usize) {
    if v <= 0xffff {
        b.movz(x, v as i32);
        return;
    }
    assert!(v < 1 << 28, "loop count {v} does not fit in 28 bits");
    b.movz(x, (v >> 12) as i32);
    b.lsl(x, x, 12);
    if v & 0xfff != 0 {
        b.add(x, x, (v & 0xfff) as i32);
    }
}

impl Loops for Aarch64 {
    /// [`mov_count`].
    fn load_count(b: &mut B, n: X, v: usize) {
        mov_count(b, n, v);
    }

    /// `cbz`.
    fn branch_if_zero(b: &mut B, n: X, to: &Label) {
        b.cbz(n, to);
    }

    /// `subs` + `b.ne`.
    fn decrement_and_loop(b: &mut B, n: X, top: &Label) {
        b.subs(n, n, 1);
        b.b_ne(top);
    }
}
