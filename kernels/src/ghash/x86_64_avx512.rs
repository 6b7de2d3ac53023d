//! GHASH/POLYVAL with VPCLMULQDQ on zmm registers (AVX-512): four blocks per carry-less multiply.
//!
//! The key table is the ymm set's, byte for byte (the table's 2 KiB: H^1..H^8 and their half-sums, then
//! H^64..H^1 highest first and their half-sums packed two to a lane). A call of at least 16 blocks loads H^32..H^1
//! into zmm16-zmm23, four powers per register, highest first (`[H^4j+4..H^4j+1]` pairs with four data blocks
//! loaded as they lie), and all 64 half-sums into zmm24-zmm31 (the 64 bytes that hold group `j`'s in the high
//! 64 bits of each lane hold group `j + 8`'s in the low: the `vpclmulqdq` selector picks them); H^64..H^33 are
//! loaded where they are multiplied, one 64-byte load per four blocks. No key is computed per call.
//!
//! The loop absorbs [`BATCH`] (64) blocks per reduction: Karatsuba products, three `vpclmulqdq` per four blocks,
//! two groups at a time (one `vpternlogq` adds both groups' products to each sum); POLYVAL's half-sums of the
//! data are one `vpxorq` against the data 8 bytes on (no shuffle), GHASH's the same and a `vpshufb` (except in
//! the group that takes the state and a batch's last: a `vpshufd` and a `vpxorq`). Batches alternate between two sets of sums: a batch's sums are reduced four groups into the next
//! batch (their inputs ready by then, the reduction's latency hidden behind the groups around it), and the state
//! it gives goes into that batch's group 0. The reduction: Karatsuba's fix-up on every lane (`vpternlogq`), the
//! four lanes of the three sums added (`vextracti64x4`, `vextracti128`), one xmm Montgomery reduction.
//!
//! Measured on Zen 4 (`vpclmulqdq` issues once per 2 cycles at every width, so three per 64 bytes bound the loop
//! at 0.094 cycles/byte): the group code alone runs at the bound for POLYVAL (48 cycles per 512 bytes) and at about
//! 55 for GHASH (its two shuffles per group, `vpshufb` and `vpshufd`, compete with `vpclmulqdq`); a reduction
//! costs about 13 cycles of throughput (the lane additions' extracts, two `vpclmulqdq`), so 32 blocks per
//! reduction ran at 0.14 (POLYVAL) and 0.16 (GHASH) cycles/byte, 64 at about 0.11 and 0.13.
//!
//! Then at most one batch each of 32 and 16 on H^32..H^1; what is left (fewer than 16 blocks, and every call
//! shorter than that) goes through the ymm set's code for a batch of 8 and its tail, and the state is loaded and
//! stored by the ymm set's code: below 16 blocks this kernel is the ymm kernel plus one compare. A call of one
//! block takes the xmm set's one-block path, as the ymm kernel's does.

use super::x86_64::{fold, mont_mul, Poly, Reduction};
use super::x86_64_vpclmul as ymm;
use super::{ext_h_offset, ext_hk, h_offset, hk_offset, Flavour, BYTE_REVERSE, POLY};
use crate::arch::x86_64::mov_count;
use crate::role;
use crate::Blocks;
use asmgen::isa::x86_64::{mem, rip, Gpr, Mem, X86Feature, Xmm, Zm, Zmm, X86_64};
use asmgen::{Abi, Builder, Function, GenError};

type B = Builder<X86_64>;

/// The features the update kernels require (the tail is the ymm set's VEX code).
const FEATURES: &[X86Feature] = &[
    X86Feature::Avx,
    X86Feature::Avx2,
    X86Feature::Pclmulqdq,
    X86Feature::Vpclmulqdq,
    X86Feature::Avx512f,
    X86Feature::Avx512bw,
];

/// Groups of four blocks per reduction in the zmm loop.
const GROUPS: usize = 16;
/// Blocks per reduction in the zmm loop: the whole extension, H^64..H^1.
pub const BATCH: usize = 4 * GROUPS;
/// Groups whose powers stay in registers (H^32..H^1); the loop loads the higher ones where it multiplies.
const KEY_REGS: usize = 8;
/// Blocks of the shorter zmm batches after the loop (or instead of it), on the powers in registers.
const HALF: usize = BATCH / 2;
const QUARTER: usize = BATCH / 4;

// Register roles. The state and the byte-reversal control are where the ymm code expects them.
const S: Xmm = ymm::S; // the running state (upper lanes zero: only VEX.128 writes it)
const BSWAP: Zmm = Zmm(ymm::BSWAP.0); // byte-reversal control (GHASH only; in every lane from the zmm path on)

/// A batch's three sums (low, high and middle products), one per lane; the loop alternates two sets.
#[derive(Clone, Copy)]
struct Sums {
    lo: Zmm,
    hi: Zmm,
    mid: Zmm,
}
const SET_A: Sums = Sums { lo: Zmm(1), hi: Zmm(2), mid: Zmm(3) };
const SET_B: Sums = Sums { lo: Zmm(7), hi: Zmm(8), mid: Zmm(9) };

/// The registers of a group being multiplied: its blocks (then their high products), their half-sums (then
/// the middle products), the low products. Two groups are in flight at a time.
struct InFlight {
    x: Zmm,
    xs: Zmm,
    t: Zmm,
}
const IN_FLIGHT: [InFlight; 2] =
    [InFlight { x: Zmm(4), xs: Zmm(6), t: Zmm(5) }, InFlight { x: Zmm(10), xs: Zmm(11), t: Zmm(12) }];
const RT: Zmm = Zmm(13); // the reduction's scratch
const KM: Zmm = Zmm(14); // the powers of a group above H^32, loaded where they are multiplied

/// Groups of a batch multiplied before the previous batch's sums are reduced (an even number: pairs). Zen 4,
/// against 2: 1-4% faster from 4 KiB on; 6 and 8 were no better than 4, 0 (the reduction first) 3-5% slower.
const REDUCE_AFTER: usize = 4;

/// Key register of power group `j < 8`: lanes `[H^(4j+4), H^(4j+3), H^(4j+2), H^(4j+1)]`.
const fn key(j: usize) -> Zmm {
    Zmm(16 + j as u8)
}

/// Where the Karatsuba half-sums of power group `j` (of 16) are: a register, loaded with the table's 64 bytes
/// that hold them packed with group `j ^ 8`'s (group `j < 8` in the high 64 bits of each lane, `j + 8` in the
/// low), and the `vpclmulqdq` selector of the group's 64 bits in it.
fn key_hk(j: usize) -> (Zmm, u8) {
    let (_, sel) = ext_hk(pair_of(j));
    (Zmm(24 + (j % KEY_REGS) as u8), sel)
}

/// The ymm set's pair (of [`ext_hk`]) with the two highest powers of group `j`: `[H^(4j+4), H^(4j+3)]`.
pub(crate) const fn pair_of(j: usize) -> usize {
    (super::EXT_POWERS - 4 * j - 4) / 2
}

/// `<f>_init_vpclmul_avx512(table, h)`: the key table's base and the part of the ymm set's extension this set
/// reads (H^1..H^32 and their half-sums), on zmm.
pub fn init(f: Flavour, abi: Abi) -> Result<Function<X86_64>, GenError> {
    super::x86_64::init_of(f, abi, "vpclmul_avx512", FEATURES, init_body)
}

/// The zmm set's key setup. H^2 = H^1 squared on xmm, `[H^2, H^1]` formed on ymm; then the groups
/// `Z_k = [H^4k..H^(4k-3)]` (what [`key`]`(k - 1)` loads) by zmm products against the broadcast highest power so
/// far: `[H^4, H^3] = [H^2, H^1] * H^2` (its upper lanes zero) makes `Z_1`, then `Z_2 = Z_1 * H^4`,
/// `Z_3, Z_4 = Z_1, Z_2 * H^8`, `Z_5..Z_8 = Z_1..Z_4 * H^16`, `Z_9..Z_16 = Z_1..Z_8 * H^32` (the chain is six
/// products long). Karatsuba products, the operands' half-sums computed beside them. The base's 256 bytes are
/// `Z_1` and `Z_2` and their half-sums with their lanes reversed (`vshufi64x2`); the half-sums of `Z_m` and
/// `Z_(m+8)` are packed into one 64 bytes (`vpunpcklqdq`) where [`key_hk`] loads them: the table is the ymm
/// set's, byte for byte. `Z_1..Z_8` are in zmm16-zmm23, each of `Z_9..Z_16` in zmm4 until it is stored, the rest
/// in zmm0-zmm5 and zmm24-zmm27: no register Windows saves. Zen 4: about 375 cycles (H^1..H^32 alone took
/// 248, the ymm set's init takes 470): with a new key per message (AES-GCM-SIV), init and update together are
/// slower than with 32 blocks per reduction up to about 4 KiB (29% at 1 KiB) and faster from 8 KiB on.
fn init_body(b: &mut B, f: Flavour, table: Gpr, h: Gpr) {
    b.doc(format_args!(
        "Then the ymm set's table extension: H^{BATCH}..H^1 from table[{}] (highest first) and their half-sums",
        ext_h_offset(BATCH)
    ));
    b.doc(format_args!(
        "packed two per 16-byte lane from table[{}] (H^64..H^33's in the low 64 bits, H^32..H^1's in the high).",
        ext_hk(0).0
    ));
    b.doc("H^2 = H^1 squared; then groups of four powers doubled by zmm products against the broadcast highest");
    b.doc("power (H^4, H^3 from H^2; H^5..H^8 from H^4; H^9..H^16 from H^8; H^17..H^32 from H^16; H^33..H^64 from");
    b.doc("H^32): six dependent products.");
    let group = |k: usize| Zmm(15 + k as u8);
    let scratch = [0, 1, 2, 3].map(Zmm);
    let [lo, hi, _, t] = scratch;
    let (bc, bk, poly, xk) = (Zmm(24), Zmm(25), Zmm(26), Zmm(27));
    let (h1, h2) = (Xmm(4), Xmm(5));
    let up = Zmm(4); // each group of H^33..H^64 (h1 is no longer needed then)
    let p = poly_mem(b);
    super::x86_64::load_key(b, f, h, h1, [lo.y().x(), t.y().x()]);
    b.comment("H^2 = H^1 squared; [H^2, H^1] (VEX: the upper lanes zero).");
    let xs = scratch.map(|r| r.y().x());
    mont_mul!(b, vpxor, h2, h1, h1, square, [xs[0], xs[1], xs[2], xs[3]], p.clone());
    b.vinserti128(h2.y(), h2.y(), h1, 1);
    b.vbroadcasti32x4(poly, p);
    // The broadcast of the lowest lane of `from` into `bc` and its half-sums into `bk`.
    let broadcast = |b: &mut B, from: Zmm| {
        b.vshufi64x2(bc, from, from, 0x00);
        b.vpshufd(bk, bc, 0x4e);
        b.vpxorq(bk, bk, bc);
    };
    // `dst = src * bc`.
    let times = |b: &mut B, dst: Zmm, src: Zmm| {
        b.vpshufd(xk, src, 0x4e);
        b.vpxorq(xk, xk, src);
        mont_mul!(b, vpxorq, dst, src, bc, karatsuba(xk, bk), [scratch[0], scratch[1], scratch[2], scratch[3]], poly);
    };
    broadcast(b, h2.y().z());
    b.comment("Z_1 = [H^4, H^3] = [H^2, H^1] * H^2, then [H^2, H^1] above; Z_2 = Z_1 * H^4.");
    times(b, group(1), h2.y().z());
    b.vinserti64x4(group(1), group(1), h2.y(), 1);
    broadcast(b, group(1));
    times(b, group(2), group(1));
    for k in [2, 4] {
        broadcast(b, group(k));
        b.comment(format_args!(
            "H^{}..H^{}: the groups of H^1..H^{} times H^{} in every lane.",
            4 * k + 1,
            8 * k,
            4 * k,
            4 * k
        ));
        for m in 1..=k {
            times(b, group(k + m), group(m));
        }
    }
    b.comment("The base (H^1..H^8 and their half-sums, lowest first).");
    for k in 1..=2 {
        b.vpshufd(t, group(k), 0x4e);
        b.vpxorq(t, t, group(k));
        for (r, off) in [(group(k), h_offset(4 * k - 3)), (t, hk_offset(4 * k - 3))] {
            b.vshufi64x2(hi, r, r, 0x1b);
            b.vmovdqu64(mem(table, off), hi);
        }
    }
    broadcast(b, group(KEY_REGS));
    b.comment("H^33..H^64: the groups of H^1..H^32 times H^32 in every lane, each stored as it is made, with the");
    b.comment("group it came from; the half-sums of both packed (the higher group's in the low 64 bits of a lane).");
    for m in 1..=KEY_REGS {
        times(b, up, group(m));
        b.vmovdqu64(mem(table, ext_h_offset(4 * m)), group(m));
        b.vmovdqu64(mem(table, ext_h_offset(4 * (m + KEY_REGS))), up);
        b.vpshufd(t, group(m), 0x4e);
        b.vpxorq(t, t, group(m));
        b.vpshufd(hi, up, 0x4e);
        b.vpxorq(hi, hi, up);
        b.vpunpcklqdq(t, hi, t);
        b.vmovdqu64(mem(table, ext_hk(pair_of(m - 1)).0), t);
    }
    b.vzeroupper();
}

/// `<f>_update_vpclmul_avx512(state, table, data, nblocks)`: absorbs `nblocks` blocks, [`BATCH`] per
/// reduction, four per multiply.
pub fn update(f: Flavour, abi: Abi) -> Result<Function<X86_64>, GenError> {
    update_of(f, abi, Blocks::Arg)
}

/// [`update`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`: the count moved into the
/// register, then the general code).
pub fn update_of(f: Flavour, abi: Abi, blocks: Blocks) -> Result<Function<X86_64>, GenError> {
    let name = format!("asmgen_{}_update_vpclmul_avx512{}", f.name(), blocks.suffix());
    let mut b = B::new(&name, abi, FEATURES);
    crate::doc_role(&mut b, f.update_role());
    b.doc("64 blocks per reduction on zmm (keys from the table's extension), four blocks per vpclmulqdq:");
    b.doc("(S + X1)*H^64 + X2*H^63 + ... + X64*H^1, Karatsuba products, one reduction, done while the next");
    b.doc("batch's products are summed in a second set of registers; then one batch each of 32 and 16; fewer");
    b.doc("than 16 blocks left: the ymm set's batch of 8 and tail.");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let [state, table, data, n] = role::params(&mut b, f.update_role());
    if let Blocks::Fixed(count) = blocks {
        mov_count(&mut b, n, count);
    }
    ymm::framed(&mut b, f, [state, table, data, n], poly, |b, rest| {
        let [half, quarter, lp, fin_a, fin_b] =
            ["batch32", "batch16", "loop64", "reduce_a", "reduce_b"].map(|l| b.label(l));
        let ptrs = [table, data];
        b.cmp(n, QUARTER as i32);
        b.jb(rest);
        if f.reflected() {
            // From memory rather than from ymm15: the first blocks' byte reversal waits for no shuffle.
            let bswap = b.constant("byte_reverse", 16, "vpshufb control: reverse 16 bytes", &BYTE_REVERSE);
            b.vbroadcasti32x4(BSWAP, rip(&bswap));
        }
        keys(b, table, 0..KEY_REGS / 2);
        b.cmp(n, HALF as i32);
        b.jb(&quarter);
        keys(b, table, KEY_REGS / 2..KEY_REGS);
        b.cmp(n, BATCH as i32);
        b.jb(&half);
        b.comment("The first batch: its sums in set A, reduced by the next batch or after the loop.");
        batch(b, f, ptrs, GROUPS, SET_A, None);
        advance(b, data, n, BATCH);
        b.cmp(n, BATCH as i32);
        b.jb(&fin_a);
        b.align(4);
        b.bind(&lp);
        b.comment("A batch into set B while set A is reduced into the state, then one into A while B is.");
        batch(b, f, ptrs, GROUPS, SET_B, Some(SET_A));
        advance(b, data, n, BATCH);
        b.cmp(n, BATCH as i32);
        b.jb(&fin_b);
        batch(b, f, ptrs, GROUPS, SET_A, Some(SET_B));
        advance(b, data, n, BATCH);
        b.cmp(n, BATCH as i32);
        b.jae(&lp);
        b.blank();
        b.bind(&fin_a);
        reduce(b, SET_A);
        b.jmp(&half);
        b.bind(&fin_b);
        reduce(b, SET_B);
        for (size, label, next) in [(HALF, &half, &quarter), (QUARTER, &quarter, rest)] {
            b.blank();
            b.bind(label);
            b.cmp(n, size as i32);
            b.jb(next);
            batch(b, f, ptrs, size / 4, SET_A, None);
            reduce(b, SET_A);
            advance(b, data, n, size);
        }
        b.blank();
    });
    b.vzeroupper();
    b.finish()
}

/// `data += 16 * blocks`, `n -= blocks`.
fn advance(b: &mut B, data: Gpr, n: Gpr, blocks: usize) {
    b.add(data, 16 * blocks as i32);
    b.sub(n, blocks as i32);
}

/// The reduction constant (16 bytes, the xmm set's constant).
fn poly(b: &mut B) -> Mem {
    poly_mem(b)
}

/// The reduction constant's place (16 bytes, the xmm set's constant).
fn poly_mem(b: &mut B) -> Mem {
    rip(&b.constant("polyval_poly", 16, "x^128 + x^127 + x^126 + x^121 + 1, reflected", &POLY))
}

/// The key registers of power groups `groups` (of the 8 in registers) from the table's extension: each group's
/// four powers (64 bytes, highest first) and the 64 bytes that hold its half-sums and group `j + 8`'s (where the
/// ymm set keeps its pairs `p` and `p + 1`, and `p - 16` and `p - 15`). A call of fewer than 32 blocks loads
/// only the lower four groups.
fn keys(b: &mut B, table: Gpr, groups: std::ops::Range<usize>) {
    b.comment(format_args!(
        "Keys H^{}..H^{}: four powers per register, highest first; the half-sums of those and of H^{}..H^{}.",
        4 * groups.start + 1,
        4 * groups.end,
        4 * (groups.start + KEY_REGS) + 1,
        4 * (groups.end + KEY_REGS),
    ));
    for j in groups {
        b.vmovdqu64(key(j), mem(table, ext_h_offset(4 * j + 4)));
        b.vmovdqu64(key_hk(j).0, mem(table, ext_hk(pair_of(j)).0));
    }
}

/// The products of group `g` (blocks `4g..4g + 3` of a batch of `4 * groups`) into `r`: the low product in
/// `r.t`, the high one in `r.x`, the middle one in `r.xs` ([`group_products`]).
fn products(b: &mut B, f: Flavour, [table, data]: [Gpr; 2], g: usize, groups: usize, r: &InFlight) {
    let top = 4 * (groups - g);
    b.comment(format_args!("blocks {}..{} times H^{top}..H^{}", 4 * g, 4 * g + 3, top - 3));
    let j = groups - 1 - g;
    let (hk, hk_sel) = key_hk(j);
    let group = Group {
        blocks: (data, 64 * g as i32),
        in_batch: g != 0 && g + 1 != groups,
        reverse: f.reflected().then(|| BSWAP.into()),
        state: (g == 0).then_some(Zmm(S.0)),
        x: r.x,
        xs: r.xs,
    };
    group_products(b, &group, |b| key_operand(b, table, j).into(), (hk.into(), hk_sel), [r.t, r.x, r.xs]);
}

/// A group of four blocks for [`group_products`]: where its blocks are, how its half-sums are formed, and the
/// two registers it is loaded into.
pub(crate) struct Group {
    /// The group's 64 bytes: a pointer and an offset.
    pub blocks: (Gpr, i32),
    /// Whether the half-sums come from the data 8 bytes on (a group that neither takes the state nor is the
    /// batch's last), or from the blocks' own halves swapped (`vpshufd`).
    pub in_batch: bool,
    /// GHASH's byte-reversal control (a register or the constant); `None` for POLYVAL.
    pub reverse: Option<Zm>,
    /// The state, added to the group's blocks (a batch's group 0).
    pub state: Option<Zmm>,
    /// The blocks (then, where `out` says so, a product).
    pub x: Zmm,
    /// Their half-sums (likewise).
    pub xs: Zmm,
}

/// One group's Karatsuba products, for the GHASH kernels and SM4-GCM's fused zmm batches alike: the blocks
/// (byte-reversed for GHASH, the state added), their half-sums, then the low, high and middle products into
/// `out` (which may name `x` and `xs`). The powers come from `powers`, called once the half-sums are formed (a
/// register, or a load into one, placed there), and the half-sums' from `half_sums` with its selector. The
/// half-sums of a group inside its batch are one `vpxorq` against the data 8 bytes on (whose 16-byte lanes
/// start with the high halves of the group's blocks): no shuffle for POLYVAL; GHASH byte-reverses the sums
/// (one `vpshufb`, which moves them to the high 64 bits) instead of swapping the reversed blocks' halves (a
/// `vpshufd` after the blocks' `vpshufb`): as many shuffles, and neither waits for the other.
pub(crate) fn group_products(
    b: &mut B,
    g: &Group,
    powers: impl FnOnce(&mut B) -> Zm,
    (half_sums, hk_sel): (Zm, u8),
    [lo, hi, mid]: [Zmm; 3],
) {
    let (x, xs, (data, off)) = (g.x, g.xs, g.blocks);
    b.vmovdqu64(x, mem(data, off));
    // Where the half-sums come from the data 8 bytes on, they are in the low 64 bits of each lane, or for
    // GHASH, reversed with the blocks, in the high.
    let mut xs_sel = 0x00;
    if g.in_batch {
        b.vpxorq(xs, x, mem(data, off + 8));
        if let Some(rev) = &g.reverse {
            b.vpshufb(xs, xs, rev.clone());
            xs_sel = 0x01;
        }
    }
    if let Some(rev) = &g.reverse {
        b.vpshufb(x, x, rev.clone());
    }
    if let Some(s) = g.state {
        b.vpxorq(x, x, s);
    }
    if !g.in_batch {
        b.vpshufd(xs, x, 0x4e);
        b.vpxorq(xs, xs, x);
    }
    let k = powers(b);
    b.vpclmulqdq(lo, x, k.clone(), 0x00);
    b.vpclmulqdq(hi, x, k, 0x11);
    b.vpclmulqdq(mid, xs, half_sums, hk_sel | xs_sel);
}

/// The powers of group `j`: its key register, or for a group above H^32, [`KM`] loaded from the table.
fn key_operand(b: &mut B, table: Gpr, j: usize) -> Zmm {
    if j < KEY_REGS {
        key(j)
    } else {
        b.vmovdqu64(KM, mem(table, ext_h_offset(4 * j + 4)));
        KM
    }
}

/// `4 * groups` blocks at `data`, the state added to the first, their products summed into `sums`, two groups
/// at a time (one `vpternlogq` adds both groups' products to a sum). With `pending` (the previous batch's sums,
/// not yet reduced), the groups that do not depend on the state come first, and [`REDUCE_AFTER`] groups in, the
/// pending sums are reduced into the state, which group 0 then takes: the reduction's latency is hidden behind
/// the groups around it, and its inputs are ready when it is reached. Without, group 0 comes last (after a
/// reduction just before).
fn batch(b: &mut B, f: Flavour, ptrs: [Gpr; 2], groups: usize, sums: Sums, pending: Option<Sums>) {
    let order: Vec<usize> = match pending {
        Some(_) => (1..=REDUCE_AFTER).chain([0]).chain(REDUCE_AFTER + 1..groups).collect(),
        None => (1..groups).chain([0]).collect(),
    };
    for (i, pair) in order.chunks(2).enumerate() {
        if let (Some(p), true) = (pending, 2 * i == REDUCE_AFTER) {
            reduce(b, p);
        }
        for (&g, r) in pair.iter().zip(&IN_FLIGHT) {
            products(b, f, ptrs, g, groups, r);
        }
        let [u, v] = &IN_FLIGHT;
        for (acc, x, y) in [(sums.lo, u.t, v.t), (sums.hi, u.x, v.x), (sums.mid, u.xs, v.xs)] {
            if i == 0 {
                b.vpxorq(acc, x, y);
            } else {
                b.vpternlogq(acc, x, y, 0x96);
            }
        }
    }
}

/// Reduces `sums` into the state: the Karatsuba fix-up `MID ^= LO ^ HI` on all four lanes (one `vpternlogq`),
/// the four lanes of each sum added (`vextracti64x4`, `vextracti128`), then MID into the middle of HI:LO and the
/// Montgomery reduction on xmm.
fn reduce(b: &mut B, s: Sums) {
    reduce_into(b, [s.lo, s.hi, s.mid], RT, S);
}

/// [`reduce`] for other kernels (SM4-GCM's zmm batches): the sums `[lo, hi, mid]` (zmm0-zmm15: the lane
/// additions and the reduction are VEX), reduced into `out` with scratch `rt`.
pub(crate) fn reduce_into(b: &mut B, [lo, hi, mid]: [Zmm; 3], rt: Zmm, out: Xmm) {
    let s = Sums { lo, hi, mid };
    b.comment("Karatsuba's fix-up on every lane; the four lanes of each sum added; the reduction on xmm.");
    let (t, ty) = (rt.y().x(), rt.y());
    b.vpternlogq(s.mid, s.lo, s.hi, 0x96);
    for acc in [s.lo, s.hi, s.mid] {
        let y = acc.y();
        b.vextracti64x4(ty, acc, 1);
        b.vpxor(y, y, ty);
        b.vextracti128(t, y, 1);
        b.vpxor(y.x(), y.x(), t);
    }
    let (lo, hi, mid) = (s.lo.y().x(), s.hi.y().x(), s.mid.y().x());
    b.vpslldq(t, mid, 8);
    b.vpsrldq(mid, mid, 8);
    b.vpxor(lo, lo, t);
    b.vpxor(hi, hi, mid);
    let p = poly(b);
    let r = Reduction { lo, hi, mid, t, poly: Poly::Mem(p) };
    fold(b, &r);
    b.vpxor(out, r.lo, r.hi);
}
