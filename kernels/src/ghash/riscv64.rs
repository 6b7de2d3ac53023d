//! GHASH/POLYVAL with scalar carry-less multiplication (Zbc) and byte reversal (Zbb).
//!
//! A 128-bit value lives in two 64-bit registers, low qword first, exactly as POLYVAL reads 16 little-endian
//! bytes. A 64x64 -> 128-bit product is a `clmul` (low half) and a `clmulh` (high half); a block times a power
//! of H takes three such products (Karatsuba), eight blocks are accumulated per reduction, and the reduction
//! is the two folds by `0xc2000000_00000000` of the x86_64 kernel, one 64-bit half at a time. GHASH reverses
//! the 16 bytes of every block: `rev8` of each qword, and the two qwords swapped.
//!
//! Constant time: the only branches depend on `nblocks`, and the only addresses on the public pointers.
//! `ld`/`sd` handle misaligned data and state pointers on riscv64 Linux.

use super::{Flavour, AGGREGATE};
use crate::plan::Trips;
use crate::role;
use crate::Blocks;
use asmgen::isa::riscv64::{mem, regs::*, Riscv64, RvFeature, X};
use asmgen::{Abi, Builder, Function, GenError};

type B = Builder<Riscv64>;

// Register roles. The arguments stay in a0..a3.
const ST0: X = A4; // the running state, low qword
const ST1: X = A5; // the running state, high qword
const POLY: X = A6; // the reduction constant 0xc2000000_00000000
const PTR: X = A7; // the tail's pointer into the key table
const X0: X = T0; // the block being absorbed, low qword
const X1: X = T1; // ... and high qword
const K0: X = T2; // a power of H, low qword
const K1: X = T3; // ... high qword
const KK: X = T4; // ... and its Karatsuba half-sum (low ^ high)
const P0: X = T5; // scratch: a 128-bit product
const P1: X = T6;
// The accumulated 128-bit products live in callee-saved registers (the prologue saves them).
const LO0: X = S0; // sum of low products (x0 * h0)
const LO1: X = S1;
const HI0: X = S2; // sum of high products (x1 * h1)
const HI1: X = S3;
const MID0: X = S4; // sum of middle products ((x0 ^ x1) * (h0 ^ h1))
const MID1: X = S5;

/// Loads the 16 bytes at `base + off` into `(lo, hi)`; for GHASH, byte-reversed (each qword reversed, and the
/// qwords swapped).
fn load_block(b: &mut B, f: Flavour, lo: X, hi: X, base: X, off: i32) {
    if f.reflected() {
        b.ld(hi, mem(base, off));
        b.ld(lo, mem(base, off + 8));
        b.rev8(hi, hi);
        b.rev8(lo, lo);
    } else {
        b.ld(lo, mem(base, off));
        b.ld(hi, mem(base, off + 8));
    }
}

/// Stores `(lo, hi)` as 16 bytes at `base`, byte-reversed for GHASH (clobbers `lo` and `hi` then).
fn store_block(b: &mut B, f: Flavour, lo: X, hi: X, base: X) {
    if f.reflected() {
        b.rev8(lo, lo);
        b.rev8(hi, hi);
        b.sd(hi, mem(base, 0));
        b.sd(lo, mem(base, 8));
    } else {
        b.sd(lo, mem(base, 0));
        b.sd(hi, mem(base, 8));
    }
}

/// Loads the power of H at `base + off` (its qwords into K0, K1) and its half-sum at `base + off + 128` (KK).
fn load_power(b: &mut B, base: X, off: i32) {
    b.ld(K0, mem(base, off));
    b.ld(K1, mem(base, off + 8));
    b.ld(KK, mem(base, off + 128));
}

/// Multiplies the block `(X0, X1)` by the power of H in `(K0, K1)` (half-sum in KK) and adds the three
/// Karatsuba products into LO, HI and MID (or sets them, for the first block of a group). Clobbers X0.
fn mul_acc(b: &mut B, first: bool) {
    if first {
        b.clmul(LO0, X0, K0);
        b.clmulh(LO1, X0, K0);
        b.clmul(HI0, X1, K1);
        b.clmulh(HI1, X1, K1);
        b.xor(X0, X0, X1);
        b.clmul(MID0, X0, KK);
        b.clmulh(MID1, X0, KK);
    } else {
        b.clmul(P0, X0, K0);
        b.clmulh(P1, X0, K0);
        b.xor(LO0, LO0, P0);
        b.xor(LO1, LO1, P1);
        b.clmul(P0, X1, K1);
        b.clmulh(P1, X1, K1);
        b.xor(HI0, HI0, P0);
        b.xor(HI1, HI1, P1);
        b.xor(X0, X0, X1);
        b.clmul(P0, X0, KK);
        b.clmulh(P1, X0, KK);
        b.xor(MID0, MID0, P0);
        b.xor(MID1, MID1, P1);
    }
}

/// Combines LO, HI and MID into the 256-bit product HI:LO and reduces it into `(ST0, ST1)`.
fn reduce(b: &mut B) {
    b.comment("Karatsuba: MID ^= LO ^ HI, then fold MID into the middle 128 bits of HI:LO.");
    b.xor(MID0, MID0, LO0);
    b.xor(MID1, MID1, LO1);
    b.xor(MID0, MID0, HI0);
    b.xor(MID1, MID1, HI1);
    b.xor(LO1, LO1, MID0);
    b.xor(HI0, HI0, MID1);
    montgomery(b);
}

/// `(ST0, ST1) = (HI:LO) * x^-128 mod P`: two folds of the low qword by 0xc2000000_00000000, then add HI.
fn montgomery(b: &mut B) {
    b.comment("Reduce: fold the low qword into the next one up, twice (multiply by 0xc2 << 56), add HI.");
    b.clmul(P0, LO0, POLY);
    b.clmulh(P1, LO0, POLY);
    b.xor(LO1, LO1, P0);
    b.xor(LO0, LO0, P1);
    b.clmul(P0, LO1, POLY);
    b.clmulh(P1, LO1, POLY);
    b.xor(ST0, LO0, P0);
    b.xor(ST1, LO1, P1);
    b.xor(ST0, ST0, HI0);
    b.xor(ST1, ST1, HI1);
}

/// POLY = 0xc2000000_00000000 (the reflected x^127 + x^126 + x^121 of the polynomial).
fn constants(b: &mut B) {
    b.li(POLY, 0xc2);
    b.slli(POLY, POLY, 56);
}

/// The features of the scalar kernels.
const FEATURES: [RvFeature; 2] = [RvFeature::Zbb, RvFeature::Zbc];

fn new(f: Flavour, what: &str, abi: Abi) -> B {
    B::new(&format!("asmgen_{}_{what}_zbc", f.name()), abi, &FEATURES)
}

/// `<f>_init_zbc(table, h)`: the key table (powers H^1..H^8 and their Karatsuba half-sums).
pub fn init(f: Flavour, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let mut b = new(f, "init", abi);
    super::document_init(&mut b, f);
    let [table, h] = role::params(&mut b, f.init_role());
    constants(&mut b);
    // H stays in (K0, K1) with its half-sum in KK; the running power is the "state" (ST0, ST1).
    load_block(&mut b, f, K0, K1, h, 0);
    if f.reflected() {
        b.comment("GHASH key in POLYVAL form: mulX_POLYVAL(ByteReverse(H)) (RFC 8452, appendix A).");
        b.comment("Constant-time: an all-ones mask from bit 127 selects the polynomial.");
        b.srai(P0, K1, 63);
        b.srli(P1, K0, 63);
        b.slli(K0, K0, 1);
        b.slli(K1, K1, 1);
        b.or(K1, K1, P1);
        b.andi(P1, P0, 1);
        b.and(P0, P0, POLY);
        b.xor(K0, K0, P1);
        b.xor(K1, K1, P0);
    }
    b.xor(KK, K0, K1);
    b.mv(ST0, K0);
    b.mv(ST1, K1);
    for i in 1..=AGGREGATE as i32 {
        b.comment(format_args!("H^{i}"));
        b.sd(ST0, mem(table, 16 * (i - 1)));
        b.sd(ST1, mem(table, 16 * (i - 1) + 8));
        b.xor(P0, ST0, ST1);
        b.sd(P0, mem(table, 128 + 16 * (i - 1)));
        b.sd(P0, mem(table, 128 + 16 * (i - 1) + 8));
        if i < AGGREGATE as i32 {
            // The next power: (ST0, ST1) * H, Karatsuba, one reduction.
            b.mv(X0, ST0);
            b.mv(X1, ST1);
            mul_acc(&mut b, true);
            reduce(&mut b);
        }
    }
    b.finish()
}

/// `<f>_update_zbc(state, table, data, nblocks)`: absorbs `nblocks` blocks, 8 per reduction.
pub fn update(f: Flavour, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    update_of(f, abi, Blocks::Arg)
}

/// Eight blocks at `data` against H^8..H^1 with the state added to the first, reduced into the state.
fn absorb8(b: &mut B, f: Flavour, table: X, data: X) {
    for i in 0..AGGREGATE as i32 {
        let power = AGGREGATE as i32 - i;
        b.comment(format_args!("block {i} times H^{power}"));
        load_block(b, f, X0, X1, data, 16 * i);
        load_power(b, table, 16 * (power - 1));
        if i == 0 {
            b.xor(X0, X0, ST0);
            b.xor(X1, X1, ST1);
        }
        mul_acc(b, i == 0);
    }
    reduce(b);
}

/// [`update`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`, the JIT's fixed-size kernels):
/// then `count / 8` groups in a counted loop (straight-line for one) and the last `k = count % 8` blocks
/// unrolled against H^k..H^1 at known table offsets with one reduction; no length checks, no tail loop.
pub fn update_of(f: Flavour, abi: Abi, blocks: Blocks) -> Result<Function<Riscv64>, GenError> {
    let mut b = B::new(&format!("asmgen_{}_update_zbc{}", f.name(), blocks.suffix()), abi, &FEATURES);
    super::document_update(&mut b, f, blocks);
    let [state, table, data, n] = role::params(&mut b, f.update_role());
    constants(&mut b);
    load_block(&mut b, f, ST0, ST1, state, 0);

    Trips::new(blocks, n).batches(
        &mut b,
        AGGREGATE,
        "counted",
        &mut |b, step| {
            absorb8(b, f, table, data);
            if step {
                b.addi(data, data, 16 * AGGREGATE as i32);
            }
        },
        |b, k| {
            b.blank();
            b.comment(format_args!("The last {k} blocks: X1*H^{k} + ... + X{k}*H^1, one reduction."));
            for i in 0..k as i32 {
                let power = k as i32 - i;
                load_block(b, f, X0, X1, data, 16 * i);
                load_power(b, table, 16 * (power - 1));
                if i == 0 {
                    b.xor(X0, X0, ST0);
                    b.xor(X1, X1, ST1);
                }
                mul_acc(b, i == 0);
            }
            reduce(b);
        },
        |b, n| {
            let lp8 = b.label("loop8");
            let tail = b.label("tail");
            let tail_loop = b.label("tail_loop");
            let done = b.label("done");

            b.li(P0, AGGREGATE as i32);
            b.bltu(n, P0, &tail);
            b.align(4);
            b.bind(&lp8);
            absorb8(b, f, table, data);
            b.addi(data, data, 16 * AGGREGATE as i32);
            b.addi(n, n, -(AGGREGATE as i32));
            b.li(P0, AGGREGATE as i32);
            b.bgeu(n, P0, &lp8);

            b.blank();
            b.bind(&tail);
            b.comment("The last k < 8 blocks: X1*H^k + ... + Xk*H^1, one reduction.");
            b.beqz(n, &done);
            b.slli(PTR, n, 4);
            b.add(PTR, PTR, table);
            b.addi(PTR, PTR, -16);
            for r in [LO0, LO1, HI0, HI1, MID0, MID1] {
                b.li(r, 0);
            }
            b.bind(&tail_loop);
            load_block(b, f, X0, X1, data, 0);
            load_power(b, PTR, 0);
            b.comment("The state goes into the first block only: add it, then clear it.");
            b.xor(X0, X0, ST0);
            b.xor(X1, X1, ST1);
            b.li(ST0, 0);
            b.li(ST1, 0);
            mul_acc(b, false);
            b.addi(data, data, 16);
            b.addi(PTR, PTR, -16);
            b.addi(n, n, -1);
            b.bnez(n, &tail_loop);
            reduce(b);

            b.bind(&done);
        },
    );
    store_block(&mut b, f, ST0, ST1, state);
    b.finish()
}
