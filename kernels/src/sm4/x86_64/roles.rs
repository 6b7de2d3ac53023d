//! Register roles of the cipher: the groups of state registers, a round's scratch and round-key registers, and
//! the loop over the round keys (rax and r11).

use super::width::*;
use asmgen::isa::x86_64::{mem, regs::*, Gpr};

// Register roles. Groups are v0-v3 and v4-v7, on zmm also v19-v22 (slot `s` of a batch, a register of whole
// blocks, is `slot_reg(s)`: `V(s)` in the first two groups).
/// The two groups of state registers.
pub const GROUPS: [[V; 4]; 2] = [[V(0), V(1), V(2), V(3)], [V(4), V(5), V(6), V(7)]];
/// The zmm kernels' third group (EVEX only reaches it): 48 blocks in flight.
pub const GROUP_Z3: [V; 4] = [V(19), V(20), V(21), V(22)];

/// The register of slot `s` of a batch: `V(s)` for the first two groups, [`GROUP_Z3`] for the third.
pub fn slot_reg(s: usize) -> V {
    if s < 8 {
        V(s as u8)
    } else {
        GROUP_Z3[s - 8]
    }
}

/// The first `n` groups of state registers (the third only on zmm).
pub fn groups(n: usize) -> Vec<[V; 4]> {
    GROUPS.into_iter().chain([GROUP_Z3]).take(n).collect()
}
/// Scratch registers of a round.
pub const TMP: [V; 3] = [V(8), V(9), V(10)];
/// The broadcast round key.
pub const RK: V = V(11);

/// The loop over the round keys at `rk`: eight passes of `round(b, j, ptr)` for `j = 0..4`, `ptr` (rax) the
/// pass's first key; r11 holds the end.
pub fn round_loop(b: &mut B, rk: Gpr, round: &mut dyn FnMut(&mut B, usize, Gpr)) {
    let (ptr, end) = (RAX, R11);
    b.lea(end, mem(rk, 128));
    b.mov(ptr, rk);
    let lp = b.label("rounds");
    b.align(4);
    b.bind(&lp);
    for j in 0..4 {
        round(b, j, ptr);
    }
    b.add(ptr, 16);
    b.cmp(ptr, end);
    b.jnz(&lp);
}
