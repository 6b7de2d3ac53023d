//! Batch plumbing shared by the batch kernels (ECB, CTR, CBC and CFB decryption, XTS): how a batch knows its
//! size ([`Fill`], [`Count`]), the slots of a batch, and the loop over batches.

use super::width::{Width, B};
use crate::arch::x86_64::advance;
use crate::plan::Trips;
use asmgen::isa::x86_64::regs::{k, R11, RAX};
use asmgen::isa::x86_64::{Gpr, K};
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
    /// The slots holding blocks `< k`, each with how much of it holds blocks.
    pub(super) fn known_slots(k: usize, bps: usize) -> Vec<(usize, Slot)> {
        (0..k.div_ceil(bps))
            .map(move |s| {
                let part = match bps {
                    _ if k - s * bps >= bps => Slot::Full,
                    2 => Slot::Half,
                    _ => Slot::Masked,
                };
                (s, part)
            })
            .collect()
    }

    /// [`Self::known_slots`] of a known count, with [`set_slot_mask`] emitted for a masked slot (the last: a
    /// caller that emits the slots last first sets it before the first).
    pub(super) fn known_slots_masked(b: &mut B, count: Count, bps: usize) -> Vec<(usize, Slot)> {
        let Count::Known(k) = count else { unreachable!("a known count") };
        let slots = Self::known_slots(k, bps);
        if let Some((_, Slot::Masked)) = slots.last() {
            set_slot_mask(b, count);
        }
        slots
    }
}

/// How much of a slot (one register of a group: 1, 2 or 4 blocks) holds blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Every block.
    Full,
    /// A ymm slot's first block only.
    Half,
    /// A zmm slot's first one to three blocks: the bytes under [`SLOT_MASK`], which the slot loops set before
    /// they emit the slots (loads `vmovdqu8 zmm{k1}{z}`, stores `vmovdqu8 [..]{k1}`: nothing beyond the last
    /// block is read or written).
    Masked,
}

impl Slot {
    /// Whether only a ymm slot's first block is held, for the kernels whose zmm batches are always full (XTS,
    /// GCM).
    pub(crate) fn half(self) -> bool {
        assert!(self != Slot::Masked, "this kernel's zmm batches are full");
        self == Slot::Half
    }
}

/// The opmask of a [`Slot::Masked`] zmm slot: one bit per byte of its blocks.
pub(crate) const SLOT_MASK: K = k(1);

/// Sets [`SLOT_MASK`] to the bytes of the blocks of the slot the count fills partly: the slot of four blocks
/// holding the last block holds `count % 4` of them, so one mask serves whichever slot that is (none when the
/// count is a multiple of four). Clobbers rax and r11.
pub(crate) fn set_slot_mask(b: &mut B, count: Count) {
    match count {
        Count::Known(k) => {
            b.movabs(RAX, ((1u64 << (16 * (k % 4))) - 1) as i64);
        }
        Count::Reg(n) => {
            b.mov(R11, n);
            b.and(R11, 3);
            b.shl(R11, 4);
            b.mov(RAX, -1);
            b.bzhi(RAX, RAX, R11);
        }
        Count::All => unreachable!("a full batch has no partial slot"),
    }
    b.kmovq(SLOT_MASK, RAX);
}

/// The most blocks a one-group xmm batch holds (the short path).
pub(crate) const SHORT: usize = 4;

/// The blocks of one zmm group.
pub(crate) const Z_GROUP: usize = 16;

/// The blocks of a zmm batch of two groups. Below a full zmm batch the GFNI kernels run 17..47 blocks as one
/// zmm batch of two groups (up to 32) or three, the last slot under an opmask ([`Slot::Masked`]): one chain of
/// 32 rounds. On Zen 4 a batch of two groups took 444-481 cycles where two ymm batches took 740 (and 33..47
/// blocks were a batch of two groups and a ymm or xmm batch). A batch of one group measured no faster than one
/// ymm batch of 16, so 1..16 blocks stay on ymm and xmm.
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
        (Width::Z, Fill::Known(k)) if k < w.per_batch() => f(b, fill, k.div_ceil(Z_GROUP)),
        (Width::Z, Fill::Partial) => {
            let three = b.label("three_groups_z");
            let end = b.label("groups_done_z");
            b.cmp(n, Z_PAIR as i32);
            b.ja(&three);
            f(b, Fill::Partial, 2);
            b.jmp(&end);
            b.bind(&three);
            f(b, Fill::Partial, 3);
            b.bind(&end);
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

/// Emits `f(b, s, part)` for the slots of a batch that hold blocks (in order): every slot (`Count::All`), those
/// holding blocks `< k` (`Known`), or those holding blocks `< n` behind branches on `n` (`Reg`, public). A slot
/// the count fills partly is a ymm slot's [`Slot::Half`] or a zmm slot's [`Slot::Masked`] ([`set_slot_mask`]
/// emitted before it).
pub(crate) fn each_slot(b: &mut B, w: Width, slots: usize, count: Count, f: &mut dyn FnMut(&mut B, usize, Slot)) {
    let bps = w.blocks();
    let n = match count {
        Count::All => {
            for s in 0..slots {
                f(b, s, Slot::Full);
            }
            return;
        }
        Count::Known(_) => {
            for (s, part) in Count::known_slots_masked(b, count, bps) {
                f(b, s, part);
            }
            return;
        }
        Count::Reg(n) => n,
    };
    if bps == 4 {
        set_slot_mask(b, count);
    }
    let done = b.label("slots_done");
    for s in 0..slots {
        if s < always_full(bps) {
            f(b, s, Slot::Full);
            continue;
        }
        if s > 0 {
            b.cmp(n, (s * bps) as i32 + 1);
            b.jb(&done);
        }
        if bps > 1 {
            let next = b.label("slot_next");
            partial_slot(b, n, s, bps, &next, &mut |b, part| f(b, s, part));
            b.bind(&next);
        } else {
            f(b, s, Slot::Full);
        }
    }
    b.bind(&done);
}

/// The slots that a count in a register always fills: a zmm batch with its count in a register holds 17..47
/// blocks (below 17 the ymm and xmm batches run), so its first group's four slots; none on ymm and xmm.
pub(crate) fn always_full(bps: usize) -> usize {
    if bps == 4 {
        Z_GROUP / bps
    } else {
        0
    }
}

/// Slot `s` (of `bps` > 1 blocks) when `n` may fill it partly: `f(b, Full)` if `n` reaches its last block,
/// else `f(b, Half)` (ymm) or `f(b, Masked)` (zmm, [`set_slot_mask`] emitted before the slots), behind a branch;
/// the full case jumps to `next`, which the caller binds after it.
pub(crate) fn partial_slot(b: &mut B, n: Gpr, s: usize, bps: usize, next: &Label, f: &mut dyn FnMut(&mut B, Slot)) {
    let part = b.label(if bps == 2 { "slot_half" } else { "slot_part" });
    b.cmp(n, ((s + 1) * bps) as i32);
    b.jb(&part);
    f(b, Slot::Full);
    b.jmp(next);
    b.bind(&part);
    f(b, if bps == 2 { Slot::Half } else { Slot::Masked });
}

/// A kernel's loop over batches of `per` blocks of width `w` (`per` = 8 on xmm, 16 on ymm, 48 on zmm). With a
/// fixed count: `count / per` full batches in a counted loop (the pointers stepped after each), then one batch
/// of the rest (on xmm when it fits: lower latency; on zmm, with `z_tail`, one zmm batch of two or three groups
/// for more than 16 ([`Z_PAIR`]), else full ymm batches while more than 16 are left, then ymm or xmm). With
/// `nblocks`: the general loop, full or partial batches decided at run time; on ymm, 1..8 blocks take one xmm
/// batch; on zmm, full batches of 48, then with `z_tail` one zmm batch of two or three groups for 17..47 or one
/// ymm or xmm batch for 1..16 (without `z_tail`: the ymm loop for 1..47). (`z_tail` is the GFNI kernels': the
/// VAES set's zmm batches of two groups measured slower than its ymm batches.)
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
    if w == Width::Z && z_tail && rest > Z_GROUP {
        // One zmm batch of two or three groups, the last slot masked where it is partly filled.
        part(b, Width::Z, Fill::Known(rest));
        return;
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

/// [`batch_loop`]'s run-time loop on zmm: full batches of 48 at `lp`, then with `z_tail` one of two or three
/// groups for 17..47 ([`Z_PAIR`]) or one ymm or xmm batch for 1..16; without, ymm batches of up to 16 and one
/// xmm batch of up to 8.
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
    if z_tail {
        let ymm = b.label("below_z_part");
        b.comment("17..47 blocks: one zmm batch of two groups or three, the last slot under an opmask.");
        b.cmp(n, Z_GROUP as i32);
        b.jbe(&ymm);
        part(b, Width::Z, Fill::Partial);
        b.jmp(done);
        b.bind(&ymm);
        b.comment("1..16 blocks: one ymm batch, or one xmm batch of up to 8.");
        b.cmp(n, 8);
        b.jbe(&small);
        part(b, Width::Y, Fill::Both);
        b.jmp(done);
        b.bind(&small);
        part(b, Width::X, Fill::Partial);
        return;
    }
    b.comment(format_args!("1..{} blocks: ymm batches of up to 16, then one xmm batch of up to 8.", per - 1));
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
