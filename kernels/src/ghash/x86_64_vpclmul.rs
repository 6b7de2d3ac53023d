//! GHASH/POLYVAL with VPCLMULQDQ on ymm registers (AVX2): two blocks per carry-less multiply.
//!
//! The key table is the common 256 bytes (H^1..H^8 and their Karatsuba half-sums) and this set's extension (the
//! table's 2 KiB): H^64..H^1 highest first, so one ymm load of two consecutive blocks pairs with one ymm load of
//! `[H^2m, H^2m-1]`, and their half-sums packed (pairs j and j + 16 in the low and high 64 bits of each lane,
//! picked by the `vpclmulqdq` selector). The init doubles pairs of powers by ymm products. The loop absorbs
//! 64 blocks per reduction (32 ran 3% slower on Zen 3: two more multiplies and the reduction's shuffles per 64
//! blocks, on a core bound on `vpclmulqdq`), then at most one batch of 32 and one of 16 on the lower powers: no key
//! is computed or permuted per call. POLYVAL takes most pairs' half-sums with one `vpxor` against the data 8 bytes
//! on (no shuffle). Each key pair is loaded once into a register for its two products. Products are Karatsuba,
//! three `vpclmulqdq` per pair: the cores measured here are bound on `vpclmulqdq` (schoolbook's four were 25%
//! slower). The pairs that do not depend on the state are multiplied before the pair that does, so the out-of-order
//! core overlaps them with the previous batch's reduction; lanes are added before the xmm Montgomery reduction.
//! Then one batch of 8 against the common table (each pair loaded lane-swapped, `[X_2j+1, X_2j]`, so the table's
//! `[H^p-1, H^p]` are its key; the zmm set runs this code for what its loops leave), then the tail (k < 8 blocks)
//! in pairs against `[H^k, H^k-1]` (schoolbook: no half-sums to load), at most one block on xmm, one reduction. A
//! call of one block takes a path of its own: Karatsuba on xmm against H^1.

use super::x86_64::{fold, mont_mul, Poly, Reduction};
use super::{ext_h_offset, ext_hk, h_offset, hk_offset, Flavour, AGGREGATE, BYTE_REVERSE, EXT_POWERS, POLY};
use crate::arch::x86_64::mov_count;
use crate::role;
use crate::Blocks;
use asmgen::isa::x86_64::{mem, regs::*, rip, Gpr, Mem, X86Feature, Xmm, Ym, Ymm, X86_64};
use asmgen::{Abi, Builder, Function, GenError, Label};

type B = Builder<X86_64>;

/// The features the update kernels require.
const FEATURES: &[X86Feature] = &[X86Feature::Avx, X86Feature::Avx2, X86Feature::Pclmulqdq, X86Feature::Vpclmulqdq];

// Register roles (all vector registers are caller-saved under System V; Windows saves xmm6+ in the prologue).
// The running state (its upper lane stays zero: only VEX.128 writes it): the xmm set's, whose one-block code
// this set runs.
pub(super) const S: Xmm = super::x86_64::S;
const LO: Ymm = Ymm(1); // sums of low products, one per lane
const HI: Ymm = Ymm(2); // sums of high products
const MID: Ymm = Ymm(3); // sums of the middle products
const X: Ymm = Ymm(4); // the pair of blocks being absorbed
const T: Ymm = Ymm(5); // scratch
const XS: Ymm = Ymm(6); // the pair's Karatsuba half-sums
const CARRY: Xmm = Xmm(8); // state still to be added to the first block of a tail
const KEY: Ymm = Ymm(7); // the key pair being multiplied (loaded once for its two or four products)
/// Byte-reversal control in both lanes (GHASH only): the xmm set's register, widened.
pub(super) const BSWAP: Ymm = Ymm(super::x86_64::BSWAP.0);

/// Where a pair's key and its half-sums are in the table, and the `vpclmulqdq` selector of the half-sums.
struct Key {
    h: Mem,
    hk: Mem,
    hk_sel: u8,
}

/// `<f>_init_vpclmul_avx2(table, h)`: the key table with its extension (H^1..H^64 and their half-sums), on ymm.
pub fn init(f: Flavour, abi: Abi) -> Result<Function<X86_64>, GenError> {
    super::x86_64::init_of(f, abi, "vpclmul_avx2", FEATURES, init_body)
}

/// The ymm set's key setup. H^2 = H^1 squared on xmm; then the pairs `V_m = [H^2m, H^(2m-1)]` (as
/// [`ext_h_offset`]`(2m)` wants them) by ymm products against the broadcast highest power so far:
/// `V_2 = V_1 * H^2`, `V_3, V_4 = V_1, V_2 * H^4`, then `V_(k+m) = V_m * H^2k`, `m = 1..k`, for `k` = 4, 8, 16
/// (independent products: the chain is six products long). Karatsuba products (the clmul port is what key
/// setup is bound on), the operands' half-sums computed beside them. The base's 256 bytes come from the lanes of
/// `V_1..V_4`, and with the last round the extension's half-sums packed (`ext_hk(16 - m)`: those of `V_(16+m)`
/// in the low 64 bits, of `V_m` in the high). `V_1..V_4` stay in registers, the others are read back from the
/// table. Uses ymm0-ymm11.
fn init_body(b: &mut B, f: Flavour, table: Gpr, h: Gpr) {
    b.doc(format_args!(
        "Then H^{EXT_POWERS}..H^1 from table[{}] (highest first: pairs [H^2m, H^2m-1] for ymm loads) and their",
        ext_h_offset(EXT_POWERS)
    ));
    b.doc(format_args!(
        "half-sums packed two per 16-byte lane from table[{}] (pairs j and j + {} in the low and high 64 bits).",
        ext_hk(0).0,
        EXT_POWERS / 4
    ));
    b.doc("H^2 = H^1 squared; then pairs of powers doubled by ymm products against the broadcast highest power");
    b.doc("(H^4, H^3 from H^2; H^5..H^8 from H^4; H^9..H^16 from H^8; ...; H^33..H^64 from H^32): six dependent");
    b.doc("products.");
    let scratch = [0, 1, 2, 3].map(Ymm);
    let [lo, _, mid, t] = scratch;
    let v = |m: usize| Ymm(3 + m as u8);
    let (x, xk, bc, bk) = (Ymm(8), Ymm(9), Ymm(10), Ymm(11));
    let poly = poly(b);
    super::x86_64::load_key(b, f, h, x.x(), [lo.x(), t.x()]);
    b.comment("H^2 = H^1 squared; V_1 = [H^2, H^1].");
    let xs = scratch.map(|r| r.x());
    mont_mul!(b, vpxor, xk.x(), x.x(), x.x(), square, [xs[0], xs[1], xs[2], xs[3]], poly.clone());
    b.vinserti128(v(1), xk, x.x(), 1);
    // The broadcast of the low lane of `from` into `bc` and its half-sums into `bk`.
    let broadcast = |b: &mut B, from: Ymm| {
        b.vinserti128(bc, from, from.x(), 1);
        b.vpshufd(bk, bc, 0x4e);
        b.vpxor(bk, bk, bc);
    };
    // `dst = src * bc`, the half-sums of `src` left in `xk`.
    let times = |b: &mut B, dst: Ymm, src: Ymm| {
        b.vpshufd(xk, src, 0x4e);
        b.vpxor(xk, xk, src);
        mont_mul!(
            b,
            vpxor,
            dst,
            src,
            bc,
            karatsuba(xk, bk),
            [scratch[0], scratch[1], scratch[2], scratch[3]],
            poly.clone()
        );
    };
    broadcast(b, xk);
    b.comment("V_2 = [H^4, H^3] = V_1 * H^2; V_3, V_4 = V_1, V_2 * H^4.");
    times(b, v(2), v(1));
    broadcast(b, v(2));
    times(b, v(3), v(1));
    times(b, v(4), v(2));
    broadcast(b, v(4));
    b.comment("The base (the pairs' lanes, lower first) and the extension's H^8..H^1.");
    for m in 1..=4 {
        b.vmovdqu(mem(table, ext_h_offset(2 * m)), v(m));
        b.vpshufd(mid, v(m), 0x4e);
        b.vpxor(mid, mid, v(m));
        for (r, off) in [(v(m), h_offset(2 * m)), (mid, hk_offset(2 * m))] {
            b.vmovdqu(mem(table, off), r.x());
            b.vextracti128(t.x(), r, 1);
            b.vmovdqu(mem(table, off - 16), t.x());
        }
    }
    for k in [4, 8, 16] {
        let last = 2 * k == EXT_POWERS / 2;
        b.comment(format_args!(
            "H^{}..H^{}: the pairs of H^1..H^{} times H^{} in both lanes.",
            2 * k + 1,
            4 * k,
            2 * k,
            2 * k
        ));
        for m in 1..=k {
            let src = if m <= 4 {
                v(m)
            } else {
                b.vmovdqu(x, mem(table, ext_h_offset(2 * m)));
                x
            };
            times(b, lo, src);
            b.vmovdqu(mem(table, ext_h_offset(2 * (k + m))), lo);
            if last {
                let (off, sel) = ext_hk(k - m);
                debug_assert_eq!((sel, ext_hk(EXT_POWERS / 2 - m).0), (0x00, off));
                b.vpshufd(t, lo, 0x4e);
                b.vpxor(t, t, lo);
                b.vpunpcklqdq(t, t, xk);
                b.vmovdqu(mem(table, off), t);
            } else if m == k {
                broadcast(b, lo);
            }
        }
    }
    b.vzeroupper();
}

/// `<f>_update_vpclmul_avx2(state, table, data, nblocks)`: absorbs `nblocks` blocks, 32 per reduction, two
/// per multiply.
pub fn update(f: Flavour, abi: Abi) -> Result<Function<X86_64>, GenError> {
    update_of(f, abi, Blocks::Arg)
}

/// [`update`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`: the count moved into the
/// register, then the general code).
pub fn update_of(f: Flavour, abi: Abi, blocks: Blocks) -> Result<Function<X86_64>, GenError> {
    let name = format!("asmgen_{}_update_vpclmul_avx2{}", f.name(), blocks.suffix());
    let mut b = B::new(&name, abi, FEATURES);
    crate::doc_role(&mut b, f.update_role());
    b.doc("64 blocks per reduction (keys from the table's extension), then 32, 16, 8, the tail; two blocks");
    b.doc("per vpclmulqdq: (S + X1)*H^64 + X2*H^63 + ... + X64*H^1, Karatsuba products on ymm, one reduction.");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let [state, table, data, n] = role::params(&mut b, f.update_role());
    if let Blocks::Fixed(count) = blocks {
        mov_count(&mut b, n, count);
    }
    absorb(&mut b, f, [state, table, data, n]);
    b.vzeroupper();
    b.finish()
}

/// Loads blocks `data + off` (into the lower lane) and `data + off + 16` (the upper) as they lie, byte-reversed
/// for GHASH, the state added to the lower lane's block when `state`: lane 0 then pairs with the higher power.
fn load_pair_natural(b: &mut B, f: Flavour, data: Gpr, off: i32, state: bool) {
    b.vmovdqu(X, mem(data, off));
    if f.reflected() {
        b.vpshufb(X, X, BSWAP);
    }
    if state {
        b.vpxor(X, X, S.y());
    }
}

/// Loads blocks `data + off` (into the upper lane) and `data + off + 16` (the lower), byte-reversed for GHASH,
/// the state added to the upper lane's block when `state`: lane 0 then pairs with the table's lower power.
fn load_pair(b: &mut B, f: Flavour, data: Gpr, off: i32, state: bool) {
    if state {
        let t = T.x();
        b.vmovdqu(t, mem(data, off));
        b.vmovdqu(X.x(), mem(data, off + 16));
        if f.reflected() {
            b.vpshufb(t, t, BSWAP.x());
            b.vpshufb(X.x(), X.x(), BSWAP.x());
        }
        b.vpxor(t, t, S);
        b.vinserti128(X, X, t, 1);
        return;
    }
    b.vmovdqu(X.x(), mem(data, off + 16));
    b.vinserti128(X, X, mem(data, off), 1);
    if f.reflected() {
        b.vpshufb(X, X, BSWAP);
    }
}

/// The Karatsuba half-sums of the pair in `X` into `XS` (the low 64 bits of each lane are what the products
/// read): `X` xored with its halves swapped, or, where `next` is given, with the 32 bytes 8 bytes on from the
/// pair's own in memory (`next`), whose lanes start with the high halves of the pair's blocks: one `vpxor`
/// instead of a shuffle and a `vpxor`, for POLYVAL's unreversed blocks, where those 8 more bytes are in the
/// batch.
fn half_sums(b: &mut B, next: Option<Mem>) {
    match next {
        Some(m) => b.vpxor(XS, X, m),
        None => {
            b.vpshufd(XS, X, 0x4e);
            b.vpxor(XS, XS, X)
        }
    };
}

/// Multiplies the pair in `X` by the key pair lane by lane (Karatsuba: three products, the half-sums already
/// in `XS`) and adds the products into LO, HI and MID (or sets them, for the first pair of a batch). The key
/// pair is loaded once into `KEY` for its two products: from two memory operands, GHASH's loop ran 4% slower
/// on Zen 3 (docs/PERFORMANCE.md, "the ymm set's key pairs in registers").
fn mul_acc(b: &mut B, key: &Key, first: bool) {
    b.vmovdqu(KEY, key.h.clone());
    let product = |b: &mut B, acc: Ymm, a: Ymm, k: Ym, sel: u8| {
        if first {
            b.vpclmulqdq(acc, a, k, sel);
        } else {
            b.vpclmulqdq(T, a, k, sel);
            b.vpxor(acc, acc, T);
        }
    };
    product(b, LO, X, KEY.into(), 0x00);
    product(b, HI, X, KEY.into(), 0x11);
    product(b, MID, XS, key.hk.clone().into(), key.hk_sel);
}

/// Multiplies the pair in `X` by the key pair `k` lane by lane, schoolbook (the tail), adding into LO, HI, MID.
fn mul_acc_schoolbook(b: &mut B, k: Ymm) {
    for (acc, sel) in [(LO, 0x00), (HI, 0x11), (MID, 0x01), (MID, 0x10)] {
        b.vpclmulqdq(T, X, k, sel);
        b.vpxor(acc, acc, T);
    }
}

/// The reduction constant in both lanes, a 32-byte constant.
fn poly(b: &mut B) -> Mem {
    let mut two = [0u8; 32];
    two[..16].copy_from_slice(&POLY);
    two[16..].copy_from_slice(&POLY);
    rip(&b.constant("polyval_poly_y", 32, "polyval_poly in both lanes", &two))
}

/// Folds MID (after the Karatsuba fix-up `MID ^= LO ^ HI` when `karatsuba`) into the middle of HI:LO in each
/// lane, adds the two lanes, and reduces into `S`.
fn reduce(b: &mut B, karatsuba: bool) {
    b.comment("MID into the middle 128 bits of HI:LO, lane by lane; then the upper lanes onto the lower.");
    if karatsuba {
        b.vpxor(MID, MID, LO);
        b.vpxor(MID, MID, HI);
    }
    b.vpslldq(T, MID, 8);
    b.vpsrldq(MID, MID, 8);
    b.vpxor(LO, LO, T);
    b.vpxor(HI, HI, MID);
    let (lo, hi, t) = (LO.x(), HI.x(), T.x());
    b.vextracti128(t, LO, 1);
    b.vpxor(lo, lo, t);
    b.vextracti128(t, HI, 1);
    b.vpxor(hi, hi, t);
    b.comment("Reduce: two folds of the low 64 bits by x^-64 (multiply by 0xc2 << 56, swap halves).");
    let p = poly(b);
    fold(b, &Reduction { lo, hi, mid: MID.x(), t, poly: Poly::Mem(p) });
    b.vpxor(S, lo, hi);
}

/// `2 * pairs` blocks at `data` (64, 32 or 16) as they lie, against the table's extension, the state added to
/// the first, reduced into the state. The pairs that do not depend on the state come first.
fn absorb_batch(b: &mut B, f: Flavour, data: Gpr, table: Gpr, pairs: usize) {
    let top = 2 * pairs;
    for j in (1..pairs).chain([0]) {
        let p = top - 2 * j;
        b.comment(format_args!("blocks {} and {} times H^{p} and H^{}", 2 * j, 2 * j + 1, p - 1));
        load_pair_natural(b, f, data, 32 * j as i32, j == 0);
        // Not for the state's pair (the state is in X only) nor the batch's last (8 bytes past the batch).
        let in_batch = !f.reflected() && j != 0 && j + 1 != pairs;
        half_sums(b, in_batch.then(|| mem(data, 32 * j as i32 + 8)));
        let (hk, hk_sel) = ext_hk((EXT_POWERS - p) / 2);
        let key = Key { h: mem(table, ext_h_offset(p)), hk: mem(table, hk), hk_sel };
        mul_acc(b, &key, j == 1);
    }
    reduce(b, true);
}

/// 8 blocks at `data` against the table's common part (H^1..H^8, each pair loaded lane-swapped so that the
/// table's `[H^p-1, H^p]` is its key), the state added to the first, reduced into the state.
fn absorb_batch8(b: &mut B, f: Flavour, data: Gpr, table: Gpr) {
    let pairs = AGGREGATE / 2;
    for j in (1..pairs).chain([0]) {
        let p = AGGREGATE - 2 * j;
        b.comment(format_args!("blocks {} and {} times H^{p} and H^{}", 2 * j, 2 * j + 1, p - 1));
        load_pair(b, f, data, 32 * j as i32, j == 0);
        half_sums(b, None);
        let key = Key { h: mem(table, h_offset(p - 1)), hk: mem(table, hk_offset(p - 1)), hk_sel: 0x00 };
        mul_acc(b, &key, j == 1);
    }
    reduce(b, true);
}

/// Loads the key pair `[H^hi, H^(hi-1)]` from `table` (at `off`, the offset of `H^hi`) into `k`.
fn key_pair(b: &mut B, k: Ymm, table: Gpr, off: i32) {
    b.vmovdqu(k.x(), mem(table, off));
    b.vinserti128(k, k, mem(table, off - 16), 1);
}

/// Loads the constants and the state (`S`, and GHASH's byte reversal in `BSWAP`).
fn prologue(b: &mut B, f: Flavour, state: &Mem) {
    if f.reflected() {
        let bswap = b.constant("byte_reverse", 16, "vpshufb control: reverse 16 bytes", &BYTE_REVERSE);
        b.vbroadcasti128(BSWAP, rip(&bswap));
    }
    b.vmovdqu(S, state.clone());
    if f.reflected() {
        b.vpshufb(S, S, BSWAP.x());
    }
}

/// Absorbs `n` blocks at `data` into the state at `state` (`params`: the update's `[state, table, data, n]`):
/// [`EXT_POWERS`] (64) blocks per reduction while at least that many are left, then at most one batch each of
/// 32, 16 and 8, then the tail; a single block on its own path. Clobbers rax, `data`, `n`, ymm0-ymm8, ymm15.
fn absorb(b: &mut B, f: Flavour, params: [Gpr; 4]) {
    let [_, table, data, n] = params;
    let batch = EXT_POWERS;
    framed(b, f, params, poly, |b, rest| {
        let lp = b.label(&format!("loop{batch}"));
        let smaller = [batch / 2, batch / 4].map(|size| (size, b.label(&format!("batch{size}"))));
        b.cmp(n, batch as i32);
        b.jb(&smaller[0].1);
        b.align(4);
        b.bind(&lp);
        absorb_batch(b, f, data, table, batch / 2);
        b.add(data, 16 * batch as i32);
        b.sub(n, batch as i32);
        b.cmp(n, batch as i32);
        b.jae(&lp);
        for (i, (size, label)) in smaller.iter().enumerate() {
            b.blank();
            b.bind(label);
            b.cmp(n, *size as i32);
            b.jb(smaller.get(i + 1).map_or(rest, |s| &s.1));
            absorb_batch(b, f, data, table, size / 2);
            b.add(data, 16 * *size as i32);
            b.sub(n, *size as i32);
        }
    });
}

/// What the ymm and zmm update kernels share around their own loops: loads the state, sends a call of one
/// block to the xmm set's one-block path (against H^1 and its half-sum in the table's common part, without
/// the tail's setup, schoolbook products and lane additions: 16-byte messages were 11% slower than on the
/// xmm set), runs `wide` (the set's loops, which jump to or fall through to the label it is given with fewer
/// than 16 blocks left), then the batch of 8 and the tail, and stores the state. `params` are the update's
/// `[state, table, data, n]`, `poly` the set's reduction constant.
pub(super) fn framed(
    b: &mut B,
    f: Flavour,
    params: [Gpr; 4],
    poly: fn(&mut B) -> Mem,
    wide: impl FnOnce(&mut B, &Label),
) {
    let [state, table, data, n] = params;
    let state = mem(state, 0);
    prologue(b, f, &state);
    let [one, rest, store] = ["one", "rest", "store"].map(|l| b.label(l));
    b.cmp(n, 1);
    b.jz(&one);
    wide(b, &rest);
    b.bind(&rest);
    absorb_body(b, f, table, data, n);
    b.jmp(&store);

    b.blank();
    b.bind(&one);
    let p = poly(b);
    super::x86_64::absorb_one(b, f, table, data, Poly::Mem(p));
    b.bind(&store);
    epilogue(b, f, state);
}

/// The batch of 8 and the tail, between loading and storing the state (in `S`, GHASH's byte reversal in
/// `BSWAP`), on the table's common part: the zmm set runs it for the fewer than 16 blocks its own loops
/// leave. Clobbers rax, `data`, `n`, ymm1-ymm8.
fn absorb_body(b: &mut B, f: Flavour, table: Gpr, data: Gpr, n: Gpr) {
    let [one8, tail, done] = ["batch8", "tail", "done"].map(|l| b.label(l));
    b.blank();
    b.bind(&one8);
    b.cmp(n, AGGREGATE as i32);
    b.jb(&tail);
    absorb_batch8(b, f, data, table);
    b.add(data, 16 * AGGREGATE as i32);
    b.sub(n, AGGREGATE as i32);

    b.blank();
    b.bind(&tail);
    b.test(n, n);
    b.jz(&done);
    tail_blocks(b, f, table, data, n);
    b.bind(&done);
}

/// Stores the state (byte-reversed back for GHASH).
fn epilogue(b: &mut B, f: Flavour, state: Mem) {
    if f.reflected() {
        b.vpshufb(S, S, BSWAP.x());
    }
    b.vmovdqu(state, S);
}

/// The last `1 <= n < 8` blocks: pairs against `[H^k, H^k-1]`, ..., then at most one block on xmm, one
/// reduction (schoolbook: no half-sums to load). Uses rax as the key pointer.
fn tail_blocks(b: &mut B, f: Flavour, table: Gpr, data: Gpr, n: Gpr) {
    let (ptr, key) = (RAX, KEY);
    let [pairs, single, red] = ["pairs", "single", "reduce"].map(|l| b.label(l));
    b.comment("The last k < 8 blocks: pairs against [H^k, H^k-1], ..., then one block on xmm, one reduction.");
    b.mov(ptr, n);
    b.shl(ptr, 4);
    b.add(ptr, table);
    b.sub(ptr, 16);
    b.vmovdqa(CARRY, S);
    for r in [LO, HI, MID] {
        b.vpxor(r, r, r);
    }
    b.cmp(n, 2);
    b.jb(&single);
    b.bind(&pairs);
    b.vmovdqu(X, mem(data, 0));
    if f.reflected() {
        b.vpshufb(X, X, BSWAP);
    }
    b.vpxor(X, X, CARRY.y());
    b.vpxor(CARRY, CARRY, CARRY);
    key_pair(b, key, ptr, 0);
    mul_acc_schoolbook(b, key);
    b.add(data, 32);
    b.sub(ptr, 32);
    b.sub(n, 2);
    b.cmp(n, 2);
    b.jae(&pairs);
    b.test(n, n);
    b.jz(&red);
    b.bind(&single);
    tail_block(b, f, data, ptr);
    b.bind(&red);
    reduce(b, false);
}

/// The tail's last odd block (against H^1 at `ptr`) on xmm; its products (upper lanes zero) join the sums.
fn tail_block(b: &mut B, f: Flavour, data: Gpr, ptr: Gpr) {
    let (x, t) = (X.x(), T.x());
    b.vmovdqu(x, mem(data, 0));
    if f.reflected() {
        b.vpshufb(x, x, BSWAP.x());
    }
    b.vpxor(x, x, CARRY);
    b.vmovdqu(KEY.x(), mem(ptr, 0));
    for (acc, sel) in [(LO, 0x00), (HI, 0x11), (MID, 0x01), (MID, 0x10)] {
        b.vpclmulqdq(t, x, KEY.x(), sel);
        b.vpxor(acc, acc, T);
    }
    b.add(data, 16);
}
