//! x86_64 helpers every kernel family uses: loop counts known when the kernel is generated, the batch loop's
//! step.

use crate::plan::Loops;
use asmgen::isa::x86_64::{Gpr, X86_64};
use asmgen::{Builder, Label};

type B = Builder<X86_64>;

/// `n = v`, a loop count known when the kernel is generated (a 32-bit immediate).
pub(crate) fn mov_count(b: &mut B, n: Gpr, v: usize) {
    let v = i32::try_from(v).unwrap_or_else(|_| panic!("loop count {v} does not fit in 31 bits"));
    b.mov(n, v);
}

/// After a batch of `blocks` blocks: done if no more than `blocks` were left, else step `n`, `src` and `dst`
/// past the batch (the loop step every batch loop shares).
pub(crate) fn advance(b: &mut B, n: Gpr, src: Gpr, dst: Gpr, blocks: i32, done: &Label) {
    b.cmp(n, blocks);
    b.jbe(done);
    b.sub(n, blocks);
    b.add(src, 16 * blocks);
    b.add(dst, 16 * blocks);
}

impl Loops for X86_64 {
    /// [`mov_count`].
    fn load_count(b: &mut B, n: Gpr, v: usize) {
        mov_count(b, n, v);
    }

    /// `test` + `jz`.
    fn branch_if_zero(b: &mut B, n: Gpr, to: &Label) {
        b.test(n, n);
        b.jz(to);
    }

    /// `sub 1` + `jnz`.
    fn decrement_and_loop(b: &mut B, n: Gpr, top: &Label) {
        b.sub(n, 1);
        b.jnz(top);
    }
}
