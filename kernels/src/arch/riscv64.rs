//! riscv64 helpers every kernel family uses: loop counts known when the kernel is generated, counted loops.

use asmgen::isa::riscv64::{Riscv64, X};
use asmgen::Builder;

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

/// `body` `times` times (fixed-size kernels): once as straight-line code, or a counted loop with the count in
/// `n` (`addi -1` + `bnez`); nothing for zero.
pub(crate) fn counted_loop(b: &mut B, n: X, times: usize, body: &mut dyn FnMut(&mut B)) {
    match times {
        0 => {}
        1 => body(b),
        _ => {
            let lp = b.label("counted");
            li_count(b, n, times);
            b.align(4);
            b.bind(&lp);
            body(b);
            b.addi(n, n, -1);
            b.bnez(n, &lp);
        }
    }
}
