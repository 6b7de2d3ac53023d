//! GHASH/POLYVAL with VPCLMULQDQ on ymm registers (AVX2): two blocks per carry-less multiply.
//!
//! The key table is the xmm set's (256 bytes, H^1..H^8 and their Karatsuba half-sums; the key setup is that
//! set's kernel under this set's name). Each pair of data blocks is loaded lane-swapped, `[X_2j+1, X_2j]` (a
//! load and a `vinserti128` from memory), so that the table's natural pairs `[H^p-1, H^p]` and their half-sums
//! are the multiplies' memory operands: no key is loaded or permuted per call for 8..15 blocks. Calls of at
//! least 16 blocks first compute `[H^15, H^16]`..`[H^9, H^10]` and their half-sums into registers (four
//! independent ymm multiplies of the table's pairs by H^8), so that 16 blocks share one reduction while the
//! table stays 256 bytes for every set. Products are Karatsuba, three `vpclmulqdq` per pair: the cores
//! measured here are bound on `vpclmulqdq` (schoolbook's four were 25% slower). The pairs that do not
//! depend on the state are multiplied before the pair that does, so the out-of-order core overlaps them
//! with the previous batch's reduction; lanes are added before the xmm Montgomery reduction. After the
//! 16-block loop: one batch of 8, then the tail (k < 8 blocks) in pairs against `[H^k, H^k-1]` (schoolbook:
//! no half-sums to load), at most one block on xmm, one reduction.

use super::x86_64::{fold, Poly, Reduction};
use super::{h_offset, hk_offset, Flavour, AGGREGATE, BYTE_REVERSE, POLY};
use crate::arch::x86_64::mov_count;
use crate::role;
use crate::Blocks;
use asmgen::isa::x86_64::{mem, regs::*, rip, Gpr, Mem, X86Feature, Xmm, Ymm, X86_64};
use asmgen::{Abi, Builder, Function, GenError};

type B = Builder<X86_64>;

/// The features the update kernels require.
const FEATURES: &[X86Feature] = &[X86Feature::Avx, X86Feature::Avx2, X86Feature::Pclmulqdq, X86Feature::Vpclmulqdq];

// Register roles (all vector registers are caller-saved under System V; Windows saves xmm6+ in the prologue).
pub(super) const S: Xmm = Xmm(0); // the running state (its upper lane stays zero: only VEX.128 writes it)
const LO: Ymm = Ymm(1); // sums of low products, one per lane
const HI: Ymm = Ymm(2); // sums of high products
const MID: Ymm = Ymm(3); // sums of the middle products
const X: Ymm = Ymm(4); // the pair of blocks being absorbed
const T: Ymm = Ymm(5); // scratch
const XS: Ymm = Ymm(6); // the pair's Karatsuba half-sums
/// The key pairs `[H^(15-2j), H^(16-2j)]`, j = 0..3, computed per call of at least 16 blocks (the pairs of
/// H^1..H^8 are memory operands on the table).
const UPPER: [Ymm; 4] = [Ymm(7), Ymm(8), Ymm(9), Ymm(10)];
/// Their Karatsuba half-sums.
const UPPER_HK: [Ymm; 4] = [Ymm(11), Ymm(12), Ymm(13), Ymm(14)];
const CARRY: Xmm = Xmm(8); // state still to be added to the first block of a tail (an upper key's place)
const TAIL_KEY: Ymm = Ymm(7); // the tail's key pair (an upper key's place)
/// Byte-reversal control in both lanes (GHASH only).
pub(super) const BSWAP: Ymm = Ymm(15);

/// Where a pair's key and its half-sums are: registers (H^9..H^16) or the table (H^1..H^8).
#[derive(Clone)]
enum Key {
    Reg(Ymm, Ymm),
    Table(Mem, Mem),
}

/// `<f>_init_vpclmul_avx2(table, h)`: the xmm set's key setup (the same table).
pub fn init(f: Flavour, abi: Abi) -> Result<Function<X86_64>, GenError> {
    super::x86_64::init_named(f, abi, "vpclmul_avx2")
}

/// `<f>_update_vpclmul_avx2(state, table, data, nblocks)`: absorbs `nblocks` blocks, 16 per reduction, two
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
    b.doc("16 blocks per reduction (H^9..H^16 computed per call), then 8, then the tail; two blocks per");
    b.doc("vpclmulqdq: (S + X1)*H^16 + X2*H^15 + ... + X16*H^1, Karatsuba products on ymm, one reduction.");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let [state, table, data, n] = role::params(&mut b, f.update_role());
    if let Blocks::Fixed(count) = blocks {
        mov_count(&mut b, n, count);
    }
    absorb(&mut b, f, mem(state, 0), table, data, n);
    b.vzeroupper();
    b.finish()
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

/// Multiplies the pair in `X` by the key pair lane by lane (Karatsuba: three products) and adds the products
/// into LO, HI and MID (or sets them, for the first pair of a batch).
fn mul_acc(b: &mut B, key: &Key, first: bool) {
    b.vpshufd(XS, X, 0x4e);
    b.vpxor(XS, XS, X);
    let mul = |b: &mut B, d: Ymm, a: Ymm, k: &Key, hk: bool, sel: u8| {
        match (k, hk) {
            (Key::Reg(h, _), false) | (Key::Reg(_, h), true) => b.vpclmulqdq(d, a, *h, sel),
            (Key::Table(h, _), false) | (Key::Table(_, h), true) => b.vpclmulqdq(d, a, h.clone(), sel),
        };
    };
    for (acc, a, hk, sel) in [(LO, X, false, 0x00), (HI, X, false, 0x11), (MID, XS, true, 0x00)] {
        if first {
            mul(b, acc, a, key, hk, sel);
        } else {
            mul(b, T, a, key, hk, sel);
            b.vpxor(acc, acc, T);
        }
    }
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

/// `2 * pairs` blocks at `data` (16 or 8), the state added to the first, reduced into the state. The pairs
/// that do not depend on the state come first.
fn absorb_batch(b: &mut B, f: Flavour, data: Gpr, table: Gpr, pairs: usize) {
    let top = 2 * pairs;
    for j in (1..pairs).chain([0]) {
        let p = top - 2 * j;
        b.comment(format_args!("blocks {} and {} times H^{p} and H^{}", 2 * j, 2 * j + 1, p - 1));
        load_pair(b, f, data, 32 * j as i32, j == 0);
        let key = if p > 8 {
            Key::Reg(UPPER[j], UPPER_HK[j])
        } else {
            Key::Table(mem(table, h_offset(p - 1)), mem(table, hk_offset(p - 1)))
        };
        mul_acc(b, &key, j == 1);
    }
    reduce(b, true);
}

/// Loads the key pair `[H^hi, H^(hi-1)]` from `table` (at `off`, the offset of `H^hi`) into `k`.
fn key_pair(b: &mut B, k: Ymm, table: Gpr, off: i32) {
    b.vmovdqu(k.x(), mem(table, off));
    b.vinserti128(k, k, mem(table, off - 16), 1);
}

/// The key pairs `[H^15, H^16]`..`[H^9, H^10]` and their half-sums: each of the table's `[H^7, H^8]`..
/// `[H^1, H^2]` times H^8, lane by lane (schoolbook, then the Montgomery reduction on both lanes).
fn upper_keys(b: &mut B, table: Gpr) {
    b.comment("H^9..H^16: the table's pairs [H^7, H^8]..[H^1, H^2] times H^8, once per call of >= 16 blocks.");
    b.vbroadcasti128(X, mem(table, h_offset(8)));
    let p = poly(b);
    for j in 0..4 {
        let (dst, src) = (UPPER[j], mem(table, h_offset(7 - 2 * j)));
        b.vpclmulqdq(LO, X, src.clone(), 0x00);
        b.vpclmulqdq(HI, X, src.clone(), 0x11);
        b.vpclmulqdq(MID, X, src.clone(), 0x01);
        b.vpclmulqdq(T, X, src, 0x10);
        b.vpxor(MID, MID, T);
        b.vpslldq(T, MID, 8);
        b.vpsrldq(MID, MID, 8);
        b.vpxor(LO, LO, T);
        b.vpxor(HI, HI, MID);
        for _ in 0..2 {
            b.vpclmulqdq(T, LO, p.clone(), 0x10);
            b.vpshufd(LO, LO, 0x4e);
            b.vpxor(LO, LO, T);
        }
        b.vpxor(dst, LO, HI);
        b.vpshufd(UPPER_HK[j], dst, 0x4e);
        b.vpxor(UPPER_HK[j], UPPER_HK[j], dst);
    }
}

/// Loads the constants and the state (`S`, and GHASH's byte reversal in `BSWAP`).
pub(super) fn prologue(b: &mut B, f: Flavour, state: &Mem) {
    if f.reflected() {
        let bswap = b.constant("byte_reverse", 16, "vpshufb control: reverse 16 bytes", &BYTE_REVERSE);
        b.vbroadcasti128(BSWAP, rip(&bswap));
    }
    b.vmovdqu(S, state.clone());
    if f.reflected() {
        b.vpshufb(S, S, BSWAP.x());
    }
}

/// Absorbs `n` blocks at `data` into the state at `state`: 16 blocks per reduction while at least 16 are
/// left, then one batch of 8, then the tail. Clobbers rax, `data`, `n`, ymm0-ymm15.
fn absorb(b: &mut B, f: Flavour, state: Mem, table: Gpr, data: Gpr, n: Gpr) {
    prologue(b, f, &state);
    absorb_body(b, f, table, data, n, true);
    epilogue(b, f, state);
}

/// The body of [`absorb`], between loading and storing the state (in `S`, GHASH's byte reversal in `BSWAP`):
/// the 16-block loop when `loop16`, the batch of 8 and the tail. The zmm set runs it without the loop for the
/// fewer than 16 blocks its own loops leave. Clobbers rax, `data`, `n`, ymm1-ymm14.
pub(super) fn absorb_body(b: &mut B, f: Flavour, table: Gpr, data: Gpr, n: Gpr, loop16: bool) {
    let [one8, tail, done] = ["batch8", "tail", "done"].map(|l| b.label(l));
    if loop16 {
        let lp16 = b.label("loop16");
        b.cmp(n, 2 * AGGREGATE as i32);
        b.jb(&one8);
        upper_keys(b, table);
        b.align(4);
        b.bind(&lp16);
        absorb_batch(b, f, data, table, AGGREGATE);
        b.add(data, 32 * AGGREGATE as i32);
        b.sub(n, 2 * AGGREGATE as i32);
        b.cmp(n, 2 * AGGREGATE as i32);
        b.jae(&lp16);
    }

    b.blank();
    b.bind(&one8);
    b.cmp(n, AGGREGATE as i32);
    b.jb(&tail);
    absorb_batch(b, f, data, table, AGGREGATE / 2);
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
pub(super) fn epilogue(b: &mut B, f: Flavour, state: Mem) {
    if f.reflected() {
        b.vpshufb(S, S, BSWAP.x());
    }
    b.vmovdqu(state, S);
}

/// The last `1 <= n < 8` blocks: pairs against `[H^k, H^k-1]`, ..., then at most one block on xmm, one
/// reduction (schoolbook: no half-sums to load). Uses rax as the key pointer.
fn tail_blocks(b: &mut B, f: Flavour, table: Gpr, data: Gpr, n: Gpr) {
    let (ptr, key) = (RAX, TAIL_KEY);
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
    for (acc, sel) in [(LO, 0x00), (HI, 0x11), (MID, 0x01), (MID, 0x10)] {
        b.vpclmulqdq(t, x, mem(ptr, 0), sel);
        b.vpxor(acc, acc, T);
    }
    b.add(data, 16);
}
