//! Batch plumbing shared by the batch kernels (ECB, CTR, CBC and CFB decryption, XTS): how a batch knows its
//! size ([`Fill`], [`Count`]), the slots of a batch, and the loop over batches.

use super::width::{Width, B};
use crate::arch::x86_64::advance;
use crate::plan::Trips;
use asmgen::isa::x86_64::Gpr;
use asmgen::Label;

/// How a batch knows its size: `n < N` (in `n`), either, decided by `n >= N`, or exactly `k <= N` blocks, known
/// when the kernel is generated (fixed-size kernels).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fill {
    Partial,
    Both,
    Known(usize),
}

/// How many blocks the slots of a batch hold: all of them, `n` (a register, fewer than the batch), or `k`
/// (known when the kernel is generated, fewer than the batch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// Every slot is full.
    All,
    /// The count in a register.
    Reg(Gpr),
    /// A known count.
    Known(usize),
}

impl Count {
    /// The slots holding blocks `< k` with whether each holds only its first block: `(slot, half)`.
    pub(super) fn known_slots(k: usize, bps: usize) -> impl Iterator<Item = (usize, bool)> {
        (0..k.div_ceil(bps)).map(move |s| (s, bps == 2 && 2 * s + 1 == k))
    }
}

/// The most blocks a one-group xmm batch holds (the short path).
pub(crate) const SHORT: usize = 4;

/// The blocks of one zmm group.
pub(crate) const Z_GROUP: usize = 16;

/// The blocks of a zmm batch of two groups, which the GFNI kernels run below a full zmm batch when as many are
/// left (`Fill::Known(32)`): on Zen 4 it took 444-481 cycles where the two ymm batches took 740. A batch of one
/// group measured no faster than one ymm batch of 16, and slower with an xmm batch after it, so 1..31 blocks
/// stay on ymm and xmm.
pub(crate) const Z_PAIR: usize = 2 * Z_GROUP;

/// How many groups of four slots a batch of width `w` filled as `fill` runs: `f(b, fill, ngroups)`. On xmm a
/// batch of at most [`SHORT`] blocks runs one group instead of two (behind a branch on `n` when the count is
/// in a register): half the vector work per round for short messages, and the round's chain no longer shares
/// the ports with an idle group. Every other batch runs both groups.
pub(crate) fn by_groups(b: &mut B, n: Gpr, w: Width, fill: Fill, f: &dyn Fn(&mut B, Fill, usize)) {
    let short_or_two = |b: &mut B| {
        let two = b.label("two_groups");
        let end = b.label("short_done");
        b.cmp(n, SHORT as i32);
        b.ja(&two);
        b.comment(format_args!("1..{SHORT} blocks: one group."));
        f(b, Fill::Partial, 1);
        b.jmp(&end);
        b.bind(&two);
        f(b, Fill::Partial, 2);
        b.bind(&end);
    };
    match (w, fill) {
        (Width::X, Fill::Partial) => short_or_two(b),
        (Width::X, Fill::Both) => {
            let part = b.label("partial");
            let join = b.label("join");
            b.cmp(n, 8);
            b.jb(&part);
            f(b, Fill::Known(8), 2);
            b.jmp(&join);
            b.bind(&part);
            short_or_two(b);
            b.bind(&join);
        }
        (Width::X, Fill::Known(k)) if k <= SHORT => f(b, fill, 1),
        (Width::Z, Fill::Known(k)) if k < w.per_batch() => {
            assert!(k % Z_GROUP == 0, "a zmm batch of fewer groups holds whole groups");
            f(b, fill, k / Z_GROUP)
        }
        _ => f(b, fill, w.groups()),
    }
}

/// Runs `f(b, count)` for a batch of up to `nblk` blocks as `fill` says: once with [`Count::Reg`]
/// (`Partial`), twice behind a branch on `n >= nblk` (`Both`), or once with the known count (`Known`).
pub(crate) fn by_fill(b: &mut B, n: Gpr, nblk: usize, fill: Fill, f: &dyn Fn(&mut B, Count)) {
    match fill {
        Fill::Partial => f(b, Count::Reg(n)),
        Fill::Both => {
            let part = b.label("partial");
            let join = b.label("join");
            b.cmp(n, nblk as i32);
            b.jb(&part);
            f(b, Count::All);
            b.jmp(&join);
            b.bind(&part);
            f(b, Count::Reg(n));
            b.bind(&join);
        }
        Fill::Known(k) if k >= nblk => f(b, Count::All),
        Fill::Known(k) => f(b, Count::Known(k)),
    }
}

/// Emits `f(b, s, half)` for the slots of a batch that hold blocks (in order): every slot (`Count::All`), those
/// holding blocks `< k` (`Known`), or those holding blocks `< n` behind branches on `n` (`Reg`, public); a ymm
/// slot holding only one block gets `half = true`.
pub(crate) fn each_slot(b: &mut B, w: Width, slots: usize, count: Count, f: &mut dyn FnMut(&mut B, usize, bool)) {
    let bps = w.blocks();
    let n = match count {
        Count::All => {
            for s in 0..slots {
                f(b, s, false);
            }
            return;
        }
        Count::Known(k) => {
            for (s, half) in Count::known_slots(k, bps) {
                f(b, s, half);
            }
            return;
        }
        Count::Reg(n) => n,
    };
    let done = b.label("slots_done");
    for s in 0..slots {
        if s > 0 {
            b.cmp(n, (s * bps) as i32 + 1);
            b.jb(&done);
        }
        if bps == 2 {
            let half = b.label("slot_half");
            let next = b.label("slot_next");
            b.cmp(n, (s * bps) as i32 + 2);
            b.jb(&half);
            f(b, s, false);
            b.jmp(&next);
            b.bind(&half);
            f(b, s, true);
            b.bind(&next);
        } else {
            f(b, s, false);
        }
    }
    b.bind(&done);
}

/// Below a full zmm batch (`n` < 48 blocks, not zero): a zmm batch of two groups ([`Z_PAIR`]) when 32 or more
/// are left, stepping the pointers (or jumping to `done` when it ran the last block).
fn z_pair(b: &mut B, n: Gpr, (src, dst): (Gpr, Gpr), part: &dyn Fn(&mut B, Width, Fill), done: &Label) {
    let below = b.label("below_z_pair");
    b.comment("32..47 blocks: a zmm batch of two groups.");
    b.cmp(n, Z_PAIR as i32);
    b.jb(&below);
    part(b, Width::Z, Fill::Known(Z_PAIR));
    advance(b, n, src, dst, Z_PAIR as i32, done);
    b.bind(&below);
}

/// A kernel's loop over batches of `per` blocks of width `w` (`per` = 8 on xmm, 16 on ymm, 48 on zmm). With a
/// fixed count: `count / per` full batches in a counted loop (the pointers stepped after each), then one batch
/// of the rest (on xmm when it fits: lower latency; on zmm, whose batches hold whole groups, with `z_tail` a
/// batch of two groups first when 32 or more are left ([`Z_PAIR`]), then full ymm batches while more than 16
/// are left, then ymm or xmm). With `nblocks`: the general loop, full or partial batches decided at run time;
/// on ymm, 1..8 blocks take one xmm batch; on zmm, full batches of 48, then with `z_tail` one of two groups
/// for 32..47 ([`z_pair`]), then the ymm loop for the 1..31 (without `z_tail` 1..47) left. (`z_tail` is the
/// GFNI kernels': the VAES set's zmm batches of two groups measured slower than its ymm batches.)
///
/// `full(b)` emits a full batch, `part(b, w, fill)` a batch of width `w` filled as `fill` says.
pub(crate) fn batch_loop(
    b: &mut B,
    trips: Trips<Gpr>,
    (src, dst): (Gpr, Gpr),
    (w, z_tail): (Width, bool),
    part: &dyn Fn(&mut B, Width, Fill),
) {
    let per = w.per_batch();
    let done = b.label("done");
    trips.batches(
        b,
        per,
        "loop",
        &mut |b, step| {
            part(b, w, Fill::Known(per));
            if step {
                b.add(src, 16 * per as i32);
                b.add(dst, 16 * per as i32);
            }
        },
        |b, rest| fixed_rest(b, rest, (src, dst), (w, z_tail), part),
        |b, n| {
            let lp = b.label("loop");
            b.test(n, n);
            b.jz(&done);
            match w {
                Width::X => {
                    b.align(4);
                    b.bind(&lp);
                    part(b, Width::X, Fill::Both);
                    advance(b, n, src, dst, 8, &done);
                    b.jmp(&lp);
                }
                Width::Z => zmm_loop(b, n, (src, dst), z_tail, part, (&lp, &done)),
                Width::Y => {
                    let small = b.label("small");
                    b.cmp(n, 8);
                    b.jbe(&small);
                    b.align(4);
                    b.bind(&lp);
                    part(b, Width::Y, Fill::Both);
                    advance(b, n, src, dst, 16, &done);
                    b.cmp(n, 8);
                    b.ja(&lp);
                    b.blank();
                    b.bind(&small);
                    b.comment("1..8 blocks: one xmm batch (lower latency than a ymm batch).");
                    part(b, Width::X, Fill::Partial);
                }
            }
        },
    );
    b.bind(&done);
}

/// [`batch_loop`]'s batches after the counted loop of a fixed count: the last `rest` blocks.
fn fixed_rest(
    b: &mut B,
    rest: usize,
    (src, dst): (Gpr, Gpr),
    (w, z_tail): (Width, bool),
    part: &dyn Fn(&mut B, Width, Fill),
) {
    b.comment(format_args!("The last {rest} blocks."));
    let mut rest = rest;
    if w == Width::Z && z_tail && rest >= Z_PAIR {
        part(b, Width::Z, Fill::Known(Z_PAIR));
        rest -= Z_PAIR;
        if rest == 0 {
            return;
        }
        b.add(src, 16 * Z_PAIR as i32);
        b.add(dst, 16 * Z_PAIR as i32);
    }
    while w == Width::Z && rest > 16 {
        // zmm batches hold whole groups: the rest runs as full ymm batches and a smaller one.
        part(b, Width::Y, Fill::Known(16));
        b.add(src, 16 * 16);
        b.add(dst, 16 * 16);
        rest -= 16;
    }
    let tail = if rest <= 8 {
        Width::X
    } else if w == Width::Z {
        Width::Y
    } else {
        w
    };
    part(b, tail, Fill::Known(rest));
}

/// [`batch_loop`]'s run-time loop on zmm: full batches of 48 at `lp`, then (with `z_tail`) one of two groups
/// for 32..47 ([`z_pair`]), then ymm batches of up to 16 and one xmm batch of up to 8.
fn zmm_loop(
    b: &mut B,
    n: Gpr,
    (src, dst): (Gpr, Gpr),
    z_tail: bool,
    part: &dyn Fn(&mut B, Width, Fill),
    (lp, done): (&Label, &Label),
) {
    let per = Width::Z.per_batch();
    let below = b.label("below_z");
    let small = b.label("small");
    let lpy = b.label("loop_y");
    b.cmp(n, per as i32);
    b.jb(&below);
    b.align(4);
    b.bind(lp);
    part(b, Width::Z, Fill::Known(per));
    advance(b, n, src, dst, per as i32, done);
    b.cmp(n, per as i32);
    b.jae(lp);
    b.blank();
    b.bind(&below);
    let left = if z_tail {
        z_pair(b, n, (src, dst), part, done);
        Z_PAIR - 1
    } else {
        per - 1
    };
    b.comment(format_args!("1..{left} blocks: ymm batches of up to 16, then one xmm batch of up to 8."));
    b.cmp(n, 8);
    b.jbe(&small);
    b.bind(&lpy);
    part(b, Width::Y, Fill::Both);
    advance(b, n, src, dst, 16, done);
    b.cmp(n, 8);
    b.ja(&lpy);
    b.bind(&small);
    part(b, Width::X, Fill::Partial);
}
