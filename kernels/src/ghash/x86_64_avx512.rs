//! GHASH/POLYVAL with VPCLMULQDQ on zmm registers (AVX-512): four blocks per carry-less multiply.
//!
//! The key table is the xmm set's (256 bytes, H^1..H^8 and their Karatsuba half-sums; the key setup is that
//! set's kernel under this set's name). A call of at least 16 blocks first builds its keys in zmm16 and up,
//! four powers per register, highest first: the table's H^1..H^8 lane-reversed (`vshufi64x2`) into
//! `[H^4, H^3, H^2, H^1]` and `[H^8..H^5]`, H^9..H^16 as those times H^8 (broadcast to every lane), and, for
//! a call of at least 32 blocks, H^17..H^32 as `[H^4..H^1]`..`[H^16..H^13]` times H^16; then each
//! register's Karatsuba half-sums. So four data blocks loaded as they lie pair with one key register, and
//! the table stays 256 bytes for every set. The loop absorbs [`BATCH`] (32) blocks per reduction: Karatsuba
//! products, three `vpclmulqdq` per four blocks; the groups that do not depend on the state are multiplied
//! before the one that does, so the out-of-order core overlaps them with the previous batch's reduction.
//! The four lanes of the three sums are added (`vextracti64x4`, `vextracti128`) before one xmm Montgomery
//! reduction. Then at most one batch of 16 on the lower keys; what is left (fewer than 16 blocks, and every
//! call shorter than that) goes through the ymm set's code for a batch of 8 and its tail, and the state is
//! loaded and stored by the ymm set's code: below 16 blocks this kernel is the ymm kernel plus one compare.

use super::x86_64::{combine, fold, Poly, Reduction};
use super::x86_64_vpclmul as ymm;
use super::{h_offset, Flavour, POLY};
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
const GROUPS: usize = 8;
/// Blocks per reduction in the zmm loop.
pub const BATCH: usize = 4 * GROUPS;
/// Blocks of the one shorter zmm batch after the loop (or instead of it), on the lower half of the keys.
const HALF: usize = BATCH / 2;

// Register roles. The state and the byte-reversal control are where the ymm code expects them.
const S: Xmm = ymm::S; // the running state (upper lanes zero: only VEX.128 writes it)
const BSWAP: Zmm = Zmm(ymm::BSWAP.0); // byte-reversal control (GHASH only; in every lane from the zmm path on)
const LO: Zmm = Zmm(1); // sums of low products, one per lane
const HI: Zmm = Zmm(2); // sums of high products
const MID: Zmm = Zmm(3); // sums of the middle products
const X: Zmm = Zmm(4); // the four blocks being absorbed
const T: Zmm = Zmm(5); // scratch
const XS: Zmm = Zmm(6); // the blocks' Karatsuba half-sums
const HB: Zmm = Zmm(7); // H^8 or H^16 in every lane (key setup only)
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
    b.doc("32 blocks per reduction on zmm (H^9..H^32 computed per call), four blocks per vpclmulqdq:");
    b.doc("(S + X1)*H^32 + X2*H^31 + ... + X32*H^1, Karatsuba products, one reduction; then one batch of 16;");
    b.doc("fewer than 16 blocks left: the ymm set's batch of 8 and tail.");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let [state, table, data, n] = role::params(&mut b, f.update_role());
    if let Blocks::Fixed(count) = blocks {
        mov_count(&mut b, n, count);
    }
    let state = mem(state, 0);
    ymm::prologue(&mut b, f, &state);
    let [rest, half, lp] = ["rest", "batch16", "loop32"].map(|l| b.label(l));
    b.cmp(n, HALF as i32);
    b.jb(&rest);
    if f.reflected() {
        b.vshufi64x2(BSWAP, BSWAP, BSWAP, 0x00);
    }
    keys(&mut b, table, 0..GROUPS / 2);
    b.cmp(n, BATCH as i32);
    b.jb(&half);
    keys(&mut b, table, GROUPS / 2..GROUPS);
    b.align(4);
    b.bind(&lp);
    batch(&mut b, f, data, GROUPS);
    b.add(data, 16 * BATCH as i32);
    b.sub(n, BATCH as i32);
    b.cmp(n, BATCH as i32);
    b.jae(&lp);
    b.cmp(n, HALF as i32);
    b.jb(&rest);
    b.blank();
    b.bind(&half);
    batch(&mut b, f, data, GROUPS / 2);
    b.add(data, 16 * HALF as i32);
    b.sub(n, HALF as i32);
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

/// The key registers of power groups `groups` and their Karatsuba half-sums: groups 0 and 1 the table's powers
/// lane-reversed; group 2 and 3 those times H^8 (broadcast), groups 4..7 groups 0..3 times H^16 (group 3's
/// first lane broadcast); schoolbook products, the Montgomery reduction in every lane.
fn keys(b: &mut B, table: Gpr, groups: std::ops::Range<usize>) {
    b.comment(format_args!(
        "Keys H^{}..H^{}: four powers per register, highest first.",
        4 * groups.start + 1,
        4 * groups.end
    ));
    let p = poly(b);
    b.vbroadcasti32x4(PZ, p);
    for j in groups.clone() {
        match j {
            0 | 1 => {
                b.vmovdqu64(T, mem(table, h_offset(4 * j + 1)));
                b.vshufi64x2(key(j), T, T, 0x1b);
                continue;
            }
            2 => {
                b.vbroadcasti32x4(HB, mem(table, h_offset(8)));
            }
            4 => {
                b.vshufi64x2(HB, key(3), key(3), 0x00);
            }
            _ => {}
        };
        let a = key(if j < 4 { j - 2 } else { j - 4 });
        b.vpclmulqdq(LO, a, HB, 0x00);
        b.vpclmulqdq(HI, a, HB, 0x11);
        b.vpclmulqdq(MID, a, HB, 0x01);
        b.vpclmulqdq(T, a, HB, 0x10);
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
    for j in groups {
        b.vpshufd(key_hk(j), key(j), 0x4e);
        b.vpxorq(key_hk(j), key_hk(j), key(j));
    }
}

/// `4 * groups` blocks at `data`, the state added to the first, reduced into the state. The groups that do not
/// depend on the state come first.
fn batch(b: &mut B, f: Flavour, data: Gpr, groups: usize) {
    for g in (1..groups).chain([0]) {
        let top = 4 * (groups - g);
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
        let j = groups - 1 - g;
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
