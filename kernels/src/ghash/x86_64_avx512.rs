//! GHASH/POLYVAL with VPCLMULQDQ on zmm registers (AVX-512): four blocks per carry-less multiply.
//!
//! The key table is the xmm set's (256 bytes, H^1..H^8 and their Karatsuba half-sums; the key setup is that
//! set's kernel under this set's name). A call of at least [`BATCH`] blocks first builds its keys in zmm16 and
//! up: the table's H^1..H^8 lane-reversed (`vshufi64x2`) into `[H^4, H^3, H^2, H^1]` and `[H^8..H^5]`, and
//! each further group of four powers as the one two groups below times H^8 broadcast to every lane, so that
//! four data blocks loaded as they lie pair with one key register; then each power group's Karatsuba
//! half-sums. The loop absorbs [`BATCH`] blocks per reduction: Karatsuba products, three `vpclmulqdq` per
//! four blocks; the groups that do not depend on the state are multiplied before the one that does, so the
//! out-of-order core overlaps them with the previous batch's reduction. The four lanes of the three sums are
//! added (`vextracti64x4`, `vextracti128`) before one xmm Montgomery reduction. What the loop leaves (fewer
//! than [`BATCH`] blocks, and every call shorter than that) goes through the ymm set's code for a batch of 8
//! and its tail: at 64 bytes this kernel is the ymm kernel plus one compare.

use super::x86_64::{combine, fold, Poly, Reduction};
use super::x86_64_vpclmul as ymm;
use super::{h_offset, Flavour, BYTE_REVERSE, POLY};
use crate::arch::x86_64::mov_count;
use crate::role;
use crate::Blocks;
use asmgen::isa::x86_64::{mem, rip, Gpr, Mem, X86Feature, Xmm, Zmm, X86_64};
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
const GROUPS: usize = 4;
/// Blocks per reduction in the zmm loop.
pub const BATCH: usize = 4 * GROUPS;

// Register roles. The state and the byte-reversal control are where the ymm code expects them.
const S: Xmm = ymm::S; // the running state (upper lanes zero: only VEX.128 writes it)
const BSWAP: Zmm = Zmm(ymm::BSWAP.0); // byte-reversal control in every lane (GHASH only)
const LO: Zmm = Zmm(1); // sums of low products, one per lane
const HI: Zmm = Zmm(2); // sums of high products
const MID: Zmm = Zmm(3); // sums of the middle products
const X: Zmm = Zmm(4); // the four blocks being absorbed
const T: Zmm = Zmm(5); // scratch
const XS: Zmm = Zmm(6); // the blocks' Karatsuba half-sums
const H8: Zmm = Zmm(7); // H^8 in every lane (key setup only)
const PZ: Zmm = Zmm(8); // the reduction constant in every lane (key setup only)

/// Key register of power group `j`: lanes `[H^(4j+4), H^(4j+3), H^(4j+2), H^(4j+1)]`.
const fn key(j: usize) -> Zmm {
    Zmm(16 + j as u8)
}

/// The Karatsuba half-sums of [`key`]`(j)`.
const fn key_hk(j: usize) -> Zmm {
    Zmm(16 + (GROUPS + j) as u8)
}

/// `<f>_init_vpclmul_avx512(table, h)`: the xmm set's key setup (the same table).
pub fn init(f: Flavour, abi: Abi) -> Result<Function<X86_64>, GenError> {
    super::x86_64::init_named(f, abi, "vpclmul_avx512")
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
    b.doc("16 blocks per reduction on zmm (H^9..H^16 computed per call), four blocks per vpclmulqdq:");
    b.doc("(S + X1)*H^16 + X2*H^15 + ... + X16*H^1, Karatsuba products, one reduction; fewer than 16 blocks");
    b.doc("left: the ymm set's batch of 8 and tail.");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let [state, table, data, n] = role::params(&mut b, f.update_role());
    if let Blocks::Fixed(count) = blocks {
        mov_count(&mut b, n, count);
    }
    let state = mem(state, 0);
    prologue(&mut b, f, &state);
    let rest = b.label("rest");
    let lp = b.label("loop_zmm");
    b.cmp(n, BATCH as i32);
    b.jb(&rest);
    keys(&mut b, table);
    b.align(4);
    b.bind(&lp);
    batch(&mut b, f, data);
    b.add(data, 16 * BATCH as i32);
    b.sub(n, BATCH as i32);
    b.cmp(n, BATCH as i32);
    b.jae(&lp);
    b.blank();
    b.bind(&rest);
    ymm::absorb_body(&mut b, f, table, data, n);
    ymm::epilogue(&mut b, f, state);
    b.vzeroupper();
    b.finish()
}

/// The reduction constant (16 bytes, the xmm set's constant).
fn poly(b: &mut B) -> Mem {
    rip(&b.constant("polyval_poly", 16, "x^128 + x^127 + x^126 + x^121 + 1, reflected", &POLY))
}

/// Loads the byte-reversal control into every lane (GHASH) and the state.
fn prologue(b: &mut B, f: Flavour, state: &Mem) {
    if f.reflected() {
        let bswap = b.constant("byte_reverse", 16, "vpshufb control: reverse 16 bytes", &BYTE_REVERSE);
        b.vbroadcasti32x4(BSWAP, rip(&bswap));
    }
    b.vmovdqu(S, state.clone());
    if f.reflected() {
        b.vpshufb(S, S, ymm::BSWAP.x());
    }
}

/// The key registers: the table's powers lane-reversed, each further group the one two below times H^8
/// (schoolbook, Montgomery reduction in every lane), then every group's Karatsuba half-sums.
fn keys(b: &mut B, table: Gpr) {
    b.comment("Keys: [H^4..H^1] and [H^8..H^5] from the table, lane-reversed; H^9..H^16 as those times H^8.");
    for j in 0..2 {
        b.vmovdqu64(T, mem(table, h_offset(4 * j + 1)));
        b.vshufi64x2(key(j), T, T, 0x1b);
    }
    b.vbroadcasti32x4(H8, mem(table, h_offset(8)));
    let p = poly(b);
    b.vbroadcasti32x4(PZ, p);
    for j in 2..GROUPS {
        let a = key(j - 2);
        b.vpclmulqdq(LO, a, H8, 0x00);
        b.vpclmulqdq(HI, a, H8, 0x11);
        b.vpclmulqdq(MID, a, H8, 0x01);
        b.vpclmulqdq(T, a, H8, 0x10);
        b.vpxorq(MID, MID, T);
        b.vpslldq(T, MID, 8);
        b.vpsrldq(MID, MID, 8);
        b.vpxorq(LO, LO, T);
        b.vpxorq(HI, HI, MID);
        for _ in 0..2 {
            b.vpclmulqdq(T, LO, PZ, 0x10);
            b.vpshufd(LO, LO, 0x4e);
            b.vpxorq(LO, LO, T);
        }
        b.vpxorq(key(j), LO, HI);
    }
    for j in 0..GROUPS {
        b.vpshufd(key_hk(j), key(j), 0x4e);
        b.vpxorq(key_hk(j), key_hk(j), key(j));
    }
}

/// [`BATCH`] blocks at `data`, the state added to the first, reduced into the state. The groups that do not
/// depend on the state come first.
fn batch(b: &mut B, f: Flavour, data: Gpr) {
    for g in (1..GROUPS).chain([0]) {
        let top = BATCH - 4 * g;
        b.comment(format_args!("blocks {}..{} times H^{top}..H^{}", 4 * g, 4 * g + 3, top - 3));
        b.vmovdqu64(X, mem(data, 64 * g as i32));
        if f.reflected() {
            b.vpshufb(X, X, BSWAP);
        }
        if g == 0 {
            b.vpxorq(X, X, Zmm(S.0));
        }
        b.vpshufd(XS, X, 0x4e);
        b.vpxorq(XS, XS, X);
        let j = GROUPS - 1 - g;
        for (acc, a, k, sel) in [(LO, X, key(j), 0x00), (HI, X, key(j), 0x11), (MID, XS, key_hk(j), 0x00)] {
            if g == 1 {
                b.vpclmulqdq(acc, a, k, sel);
            } else {
                b.vpclmulqdq(T, a, k, sel);
                b.vpxorq(acc, acc, T);
            }
        }
    }
    reduce(b);
}

/// Adds the four lanes of LO, HI and MID, then the Karatsuba fix-up and the Montgomery reduction into `S`.
fn reduce(b: &mut B) {
    b.comment("The four lanes of each sum added; then Karatsuba and the reduction on xmm.");
    let (t, ty) = (T.y().x(), T.y());
    for acc in [LO, HI, MID] {
        let y = acc.y();
        b.vextracti64x4(ty, acc, 1);
        b.vpxor(y, y, ty);
        b.vextracti128(t, y, 1);
        b.vpxor(y.x(), y.x(), t);
    }
    let p = poly(b);
    let r = Reduction { lo: LO.y().x(), hi: HI.y().x(), mid: MID.y().x(), t, poly: Poly::Mem(p) };
    combine(b, &r);
    fold(b, &r);
    b.vpxor(S, r.lo, r.hi);
}
