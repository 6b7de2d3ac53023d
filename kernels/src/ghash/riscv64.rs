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
    b.doc("H^2; then H^3, H^4; then H^5..H^8 = H^1..H^4 * H^4: three dependent products (H^5..H^8 as two pairs),");
    b.doc("the products of a step interleaved (squares: two 64-bit carry-less products, no middle one); no");
    b.doc("callee-saved register (a power not kept in registers is read back from the table).");
    let [table, h] = role::params(&mut b, f.init_role());
    constants(&mut b);
    // Caller-saved registers other than the table's and POLY's; `h` joins them once the key is loaded.
    let mut free: Vec<X> = [A1, A2, A3, A4, A5, A6, A7, T0, T1, T2, T3, T4, T5, T6]
        .into_iter()
        .rev()
        .filter(|&r| r != table && r != POLY && r != h)
        .collect();
    let mut power: [Option<Power>; AGGREGATE + 1] = [None; AGGREGATE + 1];
    let (k0, k1, kk) = (take(&mut free), take(&mut free), take(&mut free));
    load_block(&mut b, f, k0, k1, h, 0);
    free.push(h);
    if f.reflected() {
        let (p0, p1) = (take(&mut free), take(&mut free));
        b.comment("GHASH key in POLYVAL form: mulX_POLYVAL(ByteReverse(H)) (RFC 8452, appendix A).");
        b.comment("Constant-time: an all-ones mask from bit 127 selects the polynomial.");
        b.srai(p0, k1, 63);
        b.srli(p1, k0, 63);
        b.slli(k0, k0, 1);
        b.slli(k1, k1, 1);
        b.or(k1, k1, p1);
        b.andi(p1, p0, 1);
        b.and(p0, p0, POLY);
        b.xor(k0, k0, p1);
        b.xor(k1, k1, p0);
        free.extend([p1, p0]);
    }
    let h1 = Power { lo: k0, hi: k1, k: kk };
    b.comment("H^1 and its half-sum.");
    let mut ops = vec![Op::Xor(kk, k0, k1)];
    h1.store(&mut ops, table, 1);
    emit(&mut b, &ops);
    power[1] = Some(h1);
    for (r, &(step, note)) in INIT_STEPS.iter().enumerate() {
        let names: Vec<String> = step.iter().map(|&(i, a, c, _)| format!("H^{i} = H^{a} * H^{c}")).collect();
        b.comment(format_args!("{}{note}; each stored with its half-sum.", names.join(", ")));
        let (mut lists, mut released) = (Vec::new(), Vec::new());
        for &(i, a, c, consume) in step {
            let mut ops = Vec::new();
            let pa = match power[a] {
                Some(p) => p,
                None => {
                    let p = Power { lo: take(&mut free), hi: take(&mut free), k: take(&mut free) };
                    ops.push(Op::Ld(p.lo, table, super::h_offset(a)));
                    ops.push(Op::Ld(p.hi, table, super::h_offset(a) + 8));
                    ops.push(Op::Ld(p.k, table, super::hk_offset(a)));
                    p
                }
            };
            let pc = if a == c { pa } else { power[c].expect("kept in registers") };
            if consume {
                power[a] = None;
            }
            let p = mont_mul(&mut ops, &mut free, &mut released, pa, pc, consume);
            p.store(&mut ops, table, i);
            power[i] = Some(p);
            lists.push(ops);
        }
        emit_interleaved(&mut b, &lists);
        // Scratch and the powers no later step reads go back only now: the step's products run interleaved.
        for (j, slot) in power.iter_mut().enumerate() {
            if let Some(p) =
                slot.filter(|_| !INIT_STEPS[r + 1..].iter().any(|s| s.0.iter().any(|&(_, a, c, _)| a == j || c == j)))
            {
                released.extend([p.lo, p.hi, p.k]);
                *slot = None;
            }
        }
        free.append(&mut released);
    }
    b.finish()
}

/// A product of the key setup: `(i, a, c, consume)`, see [`INIT_STEPS`].
type Product = (usize, usize, usize, bool);

/// The key setup's steps: products `(i, a, c, consume)`, `H^i = H^a * H^c`, where `consume` lets the product
/// overwrite H^a (no other product of the step reads it; a later one reads it back from the table), and the
/// note of the step's comment. Steps 3 and 4 do not depend on each other (H^5..H^8 all from H^4): the
/// dependency chain is [`super::INIT_ROUNDS`]'s three products; two products at a time keep them in the
/// caller-saved registers.
const INIT_STEPS: [(&[Product], &str); 4] = [
    (&[(2, 1, 1, false)], ""),
    (&[(3, 1, 2, true), (4, 2, 2, false)], ", interleaved (H^1 consumed)"),
    (&[(6, 2, 4, true), (7, 3, 4, true)], ", interleaved (H^2 and H^3 consumed)"),
    (&[(5, 1, 4, true), (8, 4, 4, false)], ", interleaved (H^1 read back from the table)"),
];

/// A power of H in the key setup: its two qwords and its half-sum (`lo ^ hi`).
#[derive(Clone, Copy, Debug)]
struct Power {
    lo: X,
    hi: X,
    k: X,
}

impl Power {
    /// Stores `H^i` and its half-sum (in both qwords) into the table.
    fn store(self, ops: &mut Vec<Op>, table: X, i: usize) {
        ops.push(Op::Sd(self.lo, table, super::h_offset(i)));
        ops.push(Op::Sd(self.hi, table, super::h_offset(i) + 8));
        ops.push(Op::Sd(self.k, table, super::hk_offset(i)));
        ops.push(Op::Sd(self.k, table, super::hk_offset(i) + 8));
    }
}

/// One instruction of the key setup, so that independent products can be interleaved.
#[derive(Clone, Copy, Debug)]
enum Op {
    Clmul(X, X, X),
    Clmulh(X, X, X),
    Xor(X, X, X),
    Ld(X, X, i32),
    Sd(X, X, i32),
}

fn emit(b: &mut B, ops: &[Op]) {
    for &op in ops {
        match op {
            Op::Clmul(d, a, c) => b.clmul(d, a, c),
            Op::Clmulh(d, a, c) => b.clmulh(d, a, c),
            Op::Xor(d, a, c) => b.xor(d, a, c),
            Op::Ld(d, base, off) => b.ld(d, mem(base, off)),
            Op::Sd(s, base, off) => b.sd(s, mem(base, off)),
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

fn take(free: &mut Vec<X>) -> X {
    free.pop().expect("enough caller-saved registers")
}

/// `a * c * x^-128 mod P` and its half-sum in registers from `free` (its scratch into `released`): a square in
/// four 64-bit carry-less products (the Karatsuba middle product of a square is `lo ^ hi`), otherwise
/// Karatsuba with the half-sums (six), the middle product folded in as soon as its parts are known, then the
/// two folds of [`montgomery`]. With `consume`, `a`'s registers hold parts of the product (each read first).
/// Every product gives the one reduced value, so the table holds exactly what the portable code computes.
fn mont_mul(ops: &mut Vec<Op>, free: &mut Vec<X>, released: &mut Vec<X>, a: Power, c: Power, consume: bool) -> Power {
    // The 256-bit product w3:w2:w1:w0 and a scratch register t.
    let [w0, w1, w2, w3, t];
    if a.lo == c.lo {
        (w1, w3) = (take(free), take(free));
        [w0, w2, t] = if consume { [a.lo, a.hi, a.k] } else { [take(free), take(free), take(free)] };
        ops.push(Op::Clmulh(w1, a.lo, a.lo));
        ops.push(Op::Clmul(w0, a.lo, a.lo));
        ops.push(Op::Clmulh(w3, a.hi, a.hi));
        ops.push(Op::Clmul(w2, a.hi, a.hi));
    } else {
        // lo = a.lo * c.lo in (w0, w3), mid = a.k * c.k in (w1, w2), then w1 = lo1 ^ mid0 ^ lo0 and
        // w2 = mid1 ^ lo1; hi = a.hi * c.hi in (t, w3), added into w1 and w2.
        (w3, w2) = (take(free), take(free));
        [w0, w1, t] = if consume { [a.lo, a.k, a.hi] } else { [take(free), take(free), take(free)] };
        ops.push(Op::Clmulh(w3, a.lo, c.lo));
        ops.push(Op::Clmul(w0, a.lo, c.lo));
        ops.push(Op::Clmulh(w2, a.k, c.k));
        ops.push(Op::Clmul(w1, a.k, c.k));
        ops.push(Op::Xor(w1, w1, w0));
        ops.push(Op::Xor(w1, w1, w3));
        ops.push(Op::Xor(w2, w2, w3));
        ops.push(Op::Clmulh(w3, a.hi, c.hi));
        ops.push(Op::Clmul(t, a.hi, c.hi));
        ops.push(Op::Xor(w1, w1, t));
        ops.push(Op::Xor(w2, w2, t));
        ops.push(Op::Xor(w2, w2, w3));
    }
    // Two folds of the low qword by 0xc2 << 56, then the high 128 bits added.
    for (x, other) in [(w0, w1), (w1, w0)] {
        ops.push(Op::Clmul(t, x, POLY));
        ops.push(Op::Xor(other, other, t));
        ops.push(Op::Clmulh(t, x, POLY));
        ops.push(Op::Xor(x, x, t));
    }
    ops.push(Op::Xor(w0, w0, w2));
    ops.push(Op::Xor(w1, w1, w3));
    ops.push(Op::Xor(w2, w0, w1));
    released.extend([w3, t]);
    Power { lo: w0, hi: w1, k: w2 }
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

#[cfg(test)]
mod tests {
    use super::INIT_STEPS;
    use crate::ghash::INIT_ROUNDS;

    /// The scalar key setup's steps are the shared rounds' products (factors in either order), the last round
    /// split in two: every step reads only powers made by an earlier round, so the chain stays three products.
    #[test]
    fn init_steps_are_the_rounds_split() {
        let round_of = |i: usize| INIT_ROUNDS.iter().position(|r| r.iter().any(|p| p.0 == i)).map_or(0, |r| r + 1);
        let mut steps: Vec<(usize, usize, usize)> =
            INIT_STEPS.iter().flat_map(|s| s.0.iter().map(|&(i, a, c, _)| (i, a.min(c), a.max(c)))).collect();
        let mut rounds: Vec<(usize, usize, usize)> =
            INIT_ROUNDS.iter().flat_map(|r| r.iter().map(|&(i, a, c)| (i, a.min(c), a.max(c)))).collect();
        steps.sort_unstable();
        rounds.sort_unstable();
        assert_eq!(steps, rounds);
        for &(i, a, c, _) in INIT_STEPS.iter().flat_map(|s| s.0) {
            assert!(round_of(a) < round_of(i) && round_of(c) < round_of(i), "H^{i} = H^{a} * H^{c}");
        }
    }
}
