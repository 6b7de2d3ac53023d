//! GHASH/POLYVAL with PMULL/PMULL2 (ARMv8 Crypto Extension, FEAT_PMULL) on the 128-bit vector registers.
//!
//! The same algorithm as the x86_64 kernel (see the module above): POLYVAL core, Karatsuba products, one
//! Montgomery reduction per 8 blocks; GHASH byte-reverses blocks and state with `rev64` + `ext #8`. A vector
//! register holds a field element as two 64-bit lanes: `.d[0]` the coefficients of x^0..x^63, `.d[1]` those of
//! x^64..x^127. `pmull` multiplies the low lanes of its sources, `pmull2` the high lanes; `ext d, n, m, #8` takes
//! the high lane of `n` into the low lane of `d` and the low lane of `m` into its high lane (with `n = m`: swap
//! the halves).

use super::{Flavour, AGGREGATE, POLY};
use crate::plan::Trips;
use crate::role;
use crate::Blocks;
use asmgen::isa::aarch64::{regs::*, A64Feature, Aarch64, V, X};
use asmgen::{Abi, Builder, Function, GenError};

type B = Builder<Aarch64>;

// Register roles. v0-v7 and v16-v31 are caller-saved; the update kernel keeps H^1..H^8 in v8-v15, whose low
// halves the prologue saves.
const LO: V = V(20); // sum of low products
const HI: V = V(21); // sum of high products
const MID: V = V(22); // sum of Karatsuba middle products
const S: V = V(23); // the running state
const POLYC: V = V(24); // 0xc2000000_00000000 in both lanes: the folding constant
const T: V = V(25); // scratch
const T2: V = V(26); // scratch
const ZERO: V = V(27); // all zeroes
const POLYR: V = V(28); // POLY: low lane 1, high lane 0xc2000000_00000000 (mulX_POLYVAL)
const XB: V = V(29); // the block being absorbed (tail)
const HT: V = V(30); // its power of H (tail)
const HKT: V = V(31); // that power's Karatsuba half-sum (tail)
const CONST_ADDR: X = X9; // address of a constant
const TAIL_PTR: X = X10; // table entry of the tail's next power

/// The register holding H^`power` in the 8-block loop of the update kernel.
fn h_pow(power: usize) -> V {
    V(7 + power as u8)
}

/// The register holding the half-sums of H^(8-2j) (low lane) and H^(7-2j) (high lane) in the 8-block loop.
fn hk_pair(j: usize) -> V {
    V(16 + j as u8)
}

/// Byte-reverses the 16 bytes of `v` for GHASH: `rev64` reverses each half, `ext #8` swaps the halves.
fn reflect(b: &mut B, f: Flavour, v: V) {
    if f.reflected() {
        b.rev64_16b(v, v);
        b.ext_16b(v, v, v, 8);
    }
}

/// Loads the reduction constants: POLYR = POLY, POLYC = its high lane in both lanes, and ZERO.
fn constants(b: &mut B) {
    load_constants(b, CONST_ADDR, POLYR, POLYC, ZERO);
}

/// The registers of a Karatsuba accumulation and its reduction, so that other kernels (SM4-GCM) can run the
/// same GHASH steps on registers of their choosing.
#[derive(Clone, Copy, Debug)]
pub struct Acc {
    /// Sum of low products.
    pub lo: V,
    /// Sum of high products.
    pub hi: V,
    /// Sum of Karatsuba middle products.
    pub mid: V,
    /// 0xc2000000_00000000 in both lanes.
    pub polyc: V,
    /// Scratch.
    pub t: V,
    /// All zeroes.
    pub zero: V,
}

/// The accumulation registers of this module's kernels.
const ACC: Acc = Acc { lo: LO, hi: HI, mid: MID, polyc: POLYC, t: T, zero: ZERO };

/// Loads the reduction constants: `polyr` = POLY, `polyc` = its high lane in both lanes, and `zero`.
pub fn load_constants(b: &mut B, addr: X, polyr: V, polyc: V, zero: V) {
    let poly = b.constant("polyval_poly", 16, "x^128 + x^127 + x^126 + x^121 + 1, reflected", &POLY);
    crate::arch::aarch64::addr(b, addr, &poly);
    b.ldr(polyr, addr, 0);
    b.dup_2d(polyc, polyr, 1);
    b.movi_zero(zero);
}

/// Byte-reverses the 16 bytes of `v` (GHASH byte order <-> POLYVAL's): `rev64`, then `ext #8`.
pub fn reflect_block(b: &mut B, v: V) {
    b.rev64_16b(v, v);
    b.ext_16b(v, v, v, 8);
}

/// One block into the accumulation: `lo ^= x*h` (low), `hi ^= x*h` (high), `mid ^= (x.lo ^ x.hi) * hk` where
/// `hk` holds the half-sum of `h` (the table's layout). With `first`, the sums are set instead of updated.
pub fn mul_acc(b: &mut B, a: &Acc, x: V, h: V, hk: V, first: bool) {
    if first {
        b.pmull(a.lo, x, h);
        b.pmull2(a.hi, x, h);
        b.ext_16b(a.t, x, x, 8);
        b.eor_16b(a.t, a.t, x);
        b.pmull(a.mid, a.t, hk);
        return;
    }
    b.pmull(a.t, x, h);
    b.eor_16b(a.lo, a.lo, a.t);
    b.pmull2(a.t, x, h);
    b.eor_16b(a.hi, a.hi, a.t);
    b.ext_16b(a.t, x, x, 8);
    b.eor_16b(a.t, a.t, x);
    b.pmull(a.t, a.t, hk);
    b.eor_16b(a.mid, a.mid, a.t);
}

/// Combines `lo`, `hi` and `mid` into the 256-bit product hi:lo and reduces it into `dst` (multiplying by
/// x^-128); clobbers the accumulation.
pub fn reduce_acc(b: &mut B, a: &Acc, dst: V) {
    let Acc { lo, hi, mid, polyc, t, zero } = *a;
    b.comment("Karatsuba: MID ^= LO ^ HI, then fold MID into the middle 128 bits of HI:LO.");
    b.eor_16b(mid, mid, lo);
    b.eor_16b(mid, mid, hi);
    b.ext_16b(t, zero, mid, 8);
    b.ext_16b(mid, mid, zero, 8);
    b.eor_16b(lo, lo, t);
    b.eor_16b(hi, hi, mid);
    b.comment("Reduce: two folds of the low 64 bits by x^-64 (multiply by 0xc2 << 56, swap halves).");
    b.pmull(t, lo, polyc);
    b.ext_16b(lo, lo, lo, 8);
    b.eor_16b(lo, lo, t);
    b.pmull(t, lo, polyc);
    b.ext_16b(lo, lo, lo, 8);
    b.eor_16b(lo, lo, t);
    b.eor_16b(dst, lo, hi);
}

/// Combines LO, HI and MID into the 256-bit product HI:LO and reduces it into `dst` (multiplying by x^-128).
fn reduce(b: &mut B, dst: V) {
    reduce_acc(b, &ACC, dst);
}

/// `<f>_init_pmull(table, h)`: the key table (powers H^1..H^8 and their Karatsuba half-sums).
pub fn init(f: Flavour, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let mut b = B::new(&format!("asmgen_{}_init_pmull", f.name()), abi, &[A64Feature::Pmull]);
    super::document_init(&mut b, f);
    b.doc("H^2; then H^3, H^4; then H^5..H^8 = H^1..H^4 * H^4: three dependent products, the products of a round");
    b.doc("interleaved (squares: two carry-less products, no middle one).");
    let [table, h] = role::params(&mut b, f.init_role());
    let hreg = V(0);
    constants(&mut b);
    b.ldr(hreg, h, 0);
    if f.reflected() {
        b.comment("GHASH key in POLYVAL form: mulX_POLYVAL(ByteReverse(H)) (RFC 8452, appendix A).");
        reflect(&mut b, f, hreg);
        b.shl_2d(T, hreg, 1);
        b.ushr_2d(T2, hreg, 63);
        b.ext_16b(T2, ZERO, T2, 8);
        b.orr_16b(T, T, T2);
        b.comment("Constant-time: an all-ones mask from bit 127 selects the polynomial.");
        b.sshr_2d(T2, hreg, 63);
        b.dup_2d(T2, T2, 1);
        b.and_16b(T2, T2, POLYR);
        b.eor_16b(hreg, T, T2);
    }
    // Caller-saved registers other than the constants' (POLYR, T and T2 are free once H is converted), so the
    // function saves nothing.
    let mut free: Vec<V> = [1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 25, 26, 28, 29, 30, 31]
        .into_iter()
        .rev()
        .map(V)
        .collect();
    let mut power: [Option<Power>; AGGREGATE + 1] = [None; AGGREGATE + 1];
    let h1 = Power { h: hreg, k: take(&mut free) };
    b.comment("H^1 and its half-sum.");
    let mut ops = vec![Op::Ext(h1.k, h1.h, h1.h), Op::Eor(h1.k, h1.k, h1.h)];
    h1.store(&mut ops, table, 1);
    emit(&mut b, &ops);
    power[1] = Some(h1);
    for (r, round) in super::INIT_ROUNDS.iter().enumerate() {
        let names: Vec<String> = round.iter().map(|&(i, a, c)| format!("H^{i} = H^{a} * H^{c}")).collect();
        b.comment(format_args!("{}, interleaved; each stored with its half-sum.", names.join(", ")));
        let (mut lists, mut released) = (Vec::new(), Vec::new());
        for &(i, a, c) in round.iter() {
            let pa = power[a].expect("computed in an earlier round");
            let pc = power[c].expect("computed in an earlier round");
            let mut ops = Vec::new();
            let p = if a == c {
                square(&mut ops, &mut free, &mut released, pa)
            } else {
                // H^a's registers hold the product when nothing else reads H^a (it is already stored).
                let consume = !reads(&super::INIT_ROUNDS[r + 1..], a)
                    && round.iter().all(|&(j, x, y)| j == i || (x != a && y != a));
                if consume {
                    power[a] = None;
                }
                karatsuba(&mut ops, &mut free, &mut released, pa, pc, consume)
            };
            p.store(&mut ops, table, i);
            power[i] = Some(p);
            lists.push(ops);
        }
        emit_interleaved(&mut b, &lists);
        // Scratch goes back only now: the round's products run interleaved.
        free.append(&mut released);
    }
    b.finish()
}

/// A power of H in the key setup: the value and its half-sum (`lo ^ hi` in both lanes).
#[derive(Clone, Copy, Debug)]
struct Power {
    h: V,
    k: V,
}

impl Power {
    /// Stores `H^i` and its half-sum into the table.
    fn store(self, ops: &mut Vec<Op>, table: X, i: usize) {
        ops.push(Op::Str(self.h, table, super::h_offset(i)));
        ops.push(Op::Str(self.k, table, super::hk_offset(i)));
    }
}

/// One instruction of the key setup, so that independent products can be interleaved.
#[derive(Clone, Copy, Debug)]
enum Op {
    Pmull(V, V, V),
    Pmull2(V, V, V),
    Ext(V, V, V),
    Eor(V, V, V),
    Str(V, X, i32),
}

fn emit(b: &mut B, ops: &[Op]) {
    for &op in ops {
        match op {
            Op::Pmull(d, n, m) => b.pmull(d, n, m),
            Op::Pmull2(d, n, m) => b.pmull2(d, n, m),
            Op::Ext(d, n, m) => b.ext_16b(d, n, m, 8),
            Op::Eor(d, n, m) => b.eor_16b(d, n, m),
            Op::Str(v, base, off) => b.str(v, base, off),
        };
    }
}

/// Emits the lists one instruction of each in turn.
fn emit_interleaved(b: &mut B, lists: &[Vec<Op>]) {
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for ops in lists {
            if let Some(&op) = ops.get(i) {
                emit(b, &[op]);
            }
        }
    }
}

/// Whether a product of `rounds` reads `H^power`.
fn reads(rounds: &[&[(usize, usize, usize)]], power: usize) -> bool {
    rounds.iter().any(|round| round.iter().any(|&(_, a, c)| a == power || c == power))
}

fn take(free: &mut Vec<V>) -> V {
    free.pop().expect("enough caller-saved registers")
}

/// `a * a * x^-128 mod P` and its half-sum, in registers from `free` (its scratch into `released`): two
/// carry-less products (the Karatsuba middle product of a square is `lo ^ hi`), then the reduction.
fn square(ops: &mut Vec<Op>, free: &mut Vec<V>, released: &mut Vec<V>, a: Power) -> Power {
    let (lo, hi, t) = (take(free), take(free), take(free));
    ops.push(Op::Pmull(lo, a.h, a.h));
    ops.push(Op::Pmull2(hi, a.h, a.h));
    reduce_ops(ops, lo, hi, t);
    released.push(t);
    Power { h: lo, k: hi }
}

/// `a * c * x^-128 mod P` and its half-sum, Karatsuba with the half-sums, then [`reduce_acc`]'s steps, in
/// registers from `free` (its scratch into `released`); with `consume`, `a`'s registers hold the low and middle
/// products (`a` read first).
fn karatsuba(ops: &mut Vec<Op>, free: &mut Vec<V>, released: &mut Vec<V>, a: Power, c: Power, consume: bool) -> Power {
    let (hi, t) = (take(free), take(free));
    let (lo, mid) = if consume { (a.h, a.k) } else { (take(free), take(free)) };
    ops.push(Op::Pmull2(hi, a.h, c.h));
    ops.push(Op::Pmull(lo, a.h, c.h));
    ops.push(Op::Pmull(mid, a.k, c.k));
    ops.push(Op::Eor(mid, mid, lo));
    ops.push(Op::Eor(mid, mid, hi));
    ops.push(Op::Ext(t, ZERO, mid));
    ops.push(Op::Ext(mid, mid, ZERO));
    ops.push(Op::Eor(lo, lo, t));
    ops.push(Op::Eor(hi, hi, mid));
    reduce_ops(ops, lo, hi, t);
    released.extend([mid, t]);
    Power { h: lo, k: hi }
}

/// The Montgomery reduction of `hi:lo` into `lo` (two folds by POLYC), then the half-sum into `hi`.
fn reduce_ops(ops: &mut Vec<Op>, lo: V, hi: V, t: V) {
    for _ in 0..2 {
        ops.push(Op::Pmull(t, lo, POLYC));
        ops.push(Op::Ext(lo, lo, lo));
        ops.push(Op::Eor(lo, lo, t));
    }
    ops.push(Op::Eor(lo, lo, hi));
    ops.push(Op::Ext(hi, lo, lo));
    ops.push(Op::Eor(hi, hi, lo));
}

/// `<f>_update_pmull(state, table, data, nblocks)`: absorbs `nblocks` blocks, 8 per reduction.
pub fn update(f: Flavour, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    update_of(f, abi, Blocks::Arg)
}

/// Loads H^1..H^8 into v8-v15 and the pairs of half-sums into v16-v19 for the 8-block loop.
fn load_powers(b: &mut B, table: X) {
    b.comment("H^1..H^8 stay in v8-v15; pair j's half-sums of H^(8-2j) and H^(7-2j) in v16+j.");
    for i in (0..AGGREGATE).step_by(2) {
        b.ldp(h_pow(i + 1), h_pow(i + 2), table, 16 * i as i32);
    }
    for j in 0..AGGREGATE / 2 {
        let low_power = 7 - 2 * j; // H^(7-2j) and H^(8-2j) are adjacent in the table
        b.ldp(T, T2, table, 128 + 16 * (low_power as i32 - 1));
        b.zip1_2d(hk_pair(j), T2, T);
    }
}

/// Eight blocks at `data` (post-increment) against H^8..H^1 in registers ([`load_powers`]), the state added to
/// the first, reduced into the state.
fn absorb8(b: &mut B, f: Flavour, data: X) {
    b.comment("Eight blocks X1..X8 into v0-v7.");
    for i in (0..AGGREGATE as u8).step_by(2) {
        b.ldp_post(V(i), V(i + 1), data, 32);
    }
    for i in 0..AGGREGATE as u8 {
        reflect(b, f, V(i));
    }
    b.eor_16b(V(0), V(0), S);
    for j in 0..AGGREGATE / 2 {
        let (xa, xb) = (V(2 * j as u8), V(2 * j as u8 + 1));
        let (pa, pb) = (AGGREGATE - 2 * j, AGGREGATE - 2 * j - 1);
        b.comment(format_args!("X{} * H^{pa} and X{} * H^{pb}: low and high products", 2 * j + 1, 2 * j + 2));
        if j == 0 {
            b.pmull(LO, xa, h_pow(pa));
            b.pmull2(HI, xa, h_pow(pa));
        } else {
            b.pmull(T, xa, h_pow(pa));
            b.eor_16b(LO, LO, T);
            b.pmull2(T, xa, h_pow(pa));
            b.eor_16b(HI, HI, T);
        }
        b.pmull(T, xb, h_pow(pb));
        b.eor_16b(LO, LO, T);
        b.pmull2(T, xb, h_pow(pb));
        b.eor_16b(HI, HI, T);
        b.comment(format_args!(
            "middle products: the half-sums (lo ^ hi) of X{} and X{} in one register, times those of H^{pa} and H^{pb}",
            2 * j + 1,
            2 * j + 2
        ));
        b.zip1_2d(T, xa, xb);
        b.zip2_2d(T2, xa, xb);
        b.eor_16b(T, T, T2);
        if j == 0 {
            b.pmull(MID, T, hk_pair(j));
        } else {
            b.pmull(T2, T, hk_pair(j));
            b.eor_16b(MID, MID, T2);
        }
        b.pmull2(T2, T, hk_pair(j));
        b.eor_16b(MID, MID, T2);
    }
    reduce(b, S);
}

/// [`update`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`, the JIT's fixed-size kernels):
/// then `count / 8` groups in a counted loop (straight-line for one; the powers loaded only when there is a
/// group), the last `k = count % 8` blocks unrolled against H^k..H^1 (from the registers when loaded, from the
/// table otherwise) with one reduction; no length checks, no tail loop.
pub fn update_of(f: Flavour, abi: Abi, blocks: Blocks) -> Result<Function<Aarch64>, GenError> {
    let name = format!("asmgen_{}_update_pmull{}", f.name(), blocks.suffix());
    let mut b = B::new(&name, abi, &[A64Feature::Pmull]);
    super::document_update(&mut b, f, blocks);
    let [state, table, data, n] = role::params(&mut b, f.update_role());
    constants(&mut b);
    b.ldr(S, state, 0);
    reflect(&mut b, f, S);
    let trips = Trips::new(blocks, n);
    let groups = trips.split(AGGREGATE).map_or(0, |(groups, _)| groups);
    if groups > 0 {
        load_powers(&mut b, table);
    }
    trips.batches(
        &mut b,
        AGGREGATE,
        "counted",
        &mut |b, _| absorb8(b, f, data),
        |b, k| absorb_last(b, f, table, data, k, groups > 0),
        |b, n| absorb(b, f, table, data, n),
    );
    reflect(&mut b, f, S);
    b.str(S, state, 0);
    b.finish()
}

/// The general kernel's body: groups of eight while `n >= 8`, then a loop over the last `n % 8` blocks
/// stepping a pointer down the table.
fn absorb(b: &mut B, f: Flavour, table: X, data: X, n: X) {
    let lp8 = b.label("loop8");
    let tail = b.label("tail");
    let tail_loop = b.label("tail_loop");
    let done = b.label("done");

    b.cmp(n, AGGREGATE as i32);
    b.b_lo(&tail);
    load_powers(b, table);

    b.align(4);
    b.bind(&lp8);
    absorb8(b, f, data);
    b.sub(n, n, AGGREGATE as i32);
    b.cmp(n, AGGREGATE as i32);
    b.b_hs(&lp8);

    b.blank();
    b.bind(&tail);
    b.comment("The last k < 8 blocks: X1*H^k + ... + Xk*H^1, one reduction.");
    b.comment("The state is added to the first block, then cleared.");
    b.cbz(n, &done);
    b.add_lsl(TAIL_PTR, table, n, 4);
    b.sub(TAIL_PTR, TAIL_PTR, 16);
    for r in [LO, HI, MID] {
        b.movi_zero(r);
    }
    b.bind(&tail_loop);
    b.ldr_post(XB, data, 16);
    reflect(b, f, XB);
    b.eor_16b(XB, XB, S);
    b.movi_zero(S);
    b.ldr(HKT, TAIL_PTR, 128);
    b.ldr_post(HT, TAIL_PTR, -16);
    mul_acc(b, &ACC, XB, HT, HKT, false);
    b.subs(n, n, 1);
    b.b_ne(&tail_loop);
    reduce(b, S);

    b.bind(&done);
}

/// A fixed count's last `k = count % 8` blocks (after `count / 8` groups of [`absorb8`]) in v0..v(k-1), each
/// times its known power (from the registers when `loaded` by [`load_powers`], from the table otherwise) with
/// one reduction.
fn absorb_last(b: &mut B, f: Flavour, table: X, data: X, k: usize, loaded: bool) {
    b.blank();
    b.comment(format_args!("The last {k} blocks: X1*H^{k} + ... + X{k}*H^1, one reduction."));
    let xs: Vec<V> = (0..k as u8).map(V).collect();
    for pair in xs.chunks(2) {
        match pair {
            [a, c] => b.ldp_post(*a, *c, data, 32),
            [a] => b.ldr_post(*a, data, 16),
            _ => unreachable!("chunks of two"),
        };
    }
    for &x in &xs {
        reflect(b, f, x);
    }
    b.eor_16b(xs[0], xs[0], S);
    for (i, &x) in xs.iter().enumerate() {
        let power = k - i;
        let h = if loaded {
            h_pow(power)
        } else {
            b.ldr(HT, table, 16 * (power as i32 - 1));
            HT
        };
        b.ldr(HKT, table, 128 + 16 * (power as i32 - 1));
        mul_acc(b, &ACC, x, h, HKT, i == 0);
    }
    reduce(b, S);
}
