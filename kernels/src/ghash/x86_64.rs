//! GHASH/POLYVAL with PCLMULQDQ on xmm registers (VEX-encoded, so AVX is required too).

use super::{h_offset, hk_offset, Flavour, AGGREGATE, BYTE_REVERSE, POLY};
use crate::plan::{Loops, Trips};
use crate::role;
use crate::Blocks;
use asmgen::isa::x86_64::{mem, regs::*, rip, Gpr, Mem, X86Feature, Xmm, X86_64};
use asmgen::{Abi, Builder, Function, GenError};

type B = Builder<X86_64>;

// Register roles (all xmm registers are caller-saved under System V).
pub(super) const S: Xmm = Xmm(0); // the running state
const LO: Xmm = Xmm(1); // sum of low products
const HI: Xmm = Xmm(2); // sum of high products
const MID: Xmm = Xmm(3); // sum of Karatsuba middle products
const X: Xmm = Xmm(4); // the block being absorbed
const T: Xmm = Xmm(5); // scratch
const CARRY: Xmm = Xmm(6); // state still to be added to the first block of a tail
const T2: Xmm = Xmm(7);
const POLYR: Xmm = Xmm(14); // the reduction constant
pub(super) const BSWAP: Xmm = Xmm(15); // byte-reversal control (GHASH only)

/// Loads a block into `x`, byte-reversing it for GHASH.
fn load_block(b: &mut B, f: Flavour, x: Xmm, src: asmgen::isa::x86_64::Mem) {
    b.vmovdqu(x, src);
    if f.reflected() {
        b.vpshufb(x, x, BSWAP);
    }
}

/// Multiplies block `x` by the power of H at `table + 16*(power-1)` and adds the three Karatsuba partial
/// products into LO, HI and MID (or sets them, for the first block of a group).
fn mul_acc(b: &mut B, x: Xmm, h: asmgen::isa::x86_64::Mem, hk: asmgen::isa::x86_64::Mem, first: bool) {
    let (lo, hi) = if first { (LO, HI) } else { (T, T2) };
    b.vpclmulqdq(lo, x, h.clone(), 0x00);
    b.vpclmulqdq(hi, x, h, 0x11);
    b.vpshufd(X, x, 0x4e);
    b.vpxor(X, X, x);
    if first {
        b.vpclmulqdq(MID, X, hk, 0x00);
    } else {
        b.vpxor(LO, LO, T);
        b.vpxor(HI, HI, T2);
        b.vpclmulqdq(T, X, hk, 0x00);
        b.vpxor(MID, MID, T);
    }
}

/// The registers a reduction works on, so that the fused GCM kernel (`sm4::x86_64::gcm`), which keeps its
/// own register roles, emits the same reduction as this kernel.
pub struct Reduction {
    /// The low 128 bits of the product (folded in place).
    pub lo: Xmm,
    /// The high 128 bits.
    pub hi: Xmm,
    /// The Karatsuba middle product (clobbered).
    pub mid: Xmm,
    /// Scratch.
    pub t: Xmm,
    /// The reduction constant: a register holding it, or its place in memory.
    pub poly: Poly,
}

/// Where the reduction constant (`POLY`) is.
#[derive(Clone)]
pub enum Poly {
    /// In a register.
    Reg(Xmm),
    /// In memory (a RIP-relative constant).
    Mem(Mem),
}

/// Karatsuba recombination: `mid ^= lo ^ hi`, then `mid` folded into the middle 128 bits of `hi:lo`.
pub fn combine(b: &mut B, r: &Reduction) {
    b.vpxor(r.mid, r.mid, r.lo);
    b.vpxor(r.mid, r.mid, r.hi);
    b.vpslldq(r.t, r.mid, 8);
    b.vpsrldq(r.mid, r.mid, 8);
    b.vpxor(r.lo, r.lo, r.t);
    b.vpxor(r.hi, r.hi, r.mid);
}

/// Two Montgomery folds of `lo` by x^-64 (multiply the low qword by 0xc2 << 56, swap halves, add): with
/// `hi ^ lo` afterwards, `(hi:lo) * x^-128 mod P`.
pub fn fold(b: &mut B, r: &Reduction) {
    for _ in 0..2 {
        match &r.poly {
            Poly::Reg(p) => b.vpclmulqdq(r.t, r.lo, *p, 0x10),
            Poly::Mem(m) => b.vpclmulqdq(r.t, r.lo, m.clone(), 0x10),
        };
        b.vpshufd(r.lo, r.lo, 0x4e);
        b.vpxor(r.lo, r.lo, r.t);
    }
}

/// This kernel's reduction roles: the accumulators, scratch `T`, the constant in `POLYR`.
fn roles(lo: Xmm) -> Reduction {
    Reduction { lo, hi: HI, mid: MID, t: T, poly: Poly::Reg(POLYR) }
}

/// One block at `data` with the state added, times H^1 (Karatsuba), reduced into the state with the constant
/// at `poly`: the ymm set's path for a call of one block, whose state and byte-reversal registers are this
/// set's [`S`] and [`BSWAP`]. Clobbers xmm1-xmm5, xmm8.
pub(super) fn absorb_one(b: &mut B, f: Flavour, table: Gpr, data: Gpr, poly: Poly) {
    b.comment("One block: (S + X) * H on xmm (Karatsuba), one reduction.");
    load_block(b, f, Xmm(8), mem(data, 0));
    b.vpxor(Xmm(8), Xmm(8), S);
    mul_acc(b, Xmm(8), mem(table, h_offset(1)), mem(table, hk_offset(1)), true);
    let r = Reduction { poly, ..roles(LO) };
    combine(b, &r);
    fold(b, &r);
    b.vpxor(S, LO, HI);
}

/// Combines LO, HI and MID into the 256-bit product and reduces it into `S` (multiplying by x^-128).
fn reduce(b: &mut B) {
    b.comment("Karatsuba: MID ^= LO ^ HI, then fold MID into the middle 128 bits of HI:LO.");
    combine(b, &roles(LO));
    montgomery(b, LO, HI, S);
}

/// `dst = (hi:lo) * x^-128 mod P`: two folds of the low qword by 0xc2000000_00000000, then add `hi`.
fn montgomery(b: &mut B, lo: Xmm, hi: Xmm, dst: Xmm) {
    b.comment("Reduce: two folds of the low 64 bits by x^-64 (multiply by 0xc2 << 56, swap halves).");
    fold(b, &roles(lo));
    b.vpxor(dst, lo, hi);
}

fn constants(b: &mut B, f: Flavour) {
    let poly = b.constant("polyval_poly", 16, "x^128 + x^127 + x^126 + x^121 + 1, reflected", &POLY);
    b.vmovdqa(POLYR, rip(&poly));
    if f.reflected() {
        let bswap = b.constant("byte_reverse", 16, "vpshufb control: reverse 16 bytes", &BYTE_REVERSE);
        b.vmovdqa(BSWAP, rip(&bswap));
    }
}

/// `<f>_init_avx(table, h)`: the key table (powers H^1..H^8 and their Karatsuba half-sums).
pub fn init(f: Flavour, abi: Abi) -> Result<Function<X86_64>, GenError> {
    init_of(f, abi, "avx", &[X86Feature::Avx, X86Feature::Pclmulqdq], base)
}

/// `dst = a * c * x^-128 mod P` in each 128-bit lane of registers of one width, the products by `kind`:
/// `square` (`a` and `c` one register: two carry-less products, the middle ones cancel), `schoolbook` (four)
/// or `karatsuba(ak, ck)` (three; `ak` and `ck` hold the operands' half-sums in the low 64 bits of each lane),
/// then the Montgomery reduction, with the scratch `[lo, hi, mid, t]` and the reduction constant `poly` (a
/// register or memory operand holding [`POLY`] in each lane); `xor` is the width's xor (`vpxor`, `vpxorq`).
/// `dst` may be `lo` or a source. Every product of the key setups is one of these: each gives the one reduced
/// value, so the tables hold exactly what the portable code computes.
macro_rules! mont_mul {
    (@reduce $b:ident, $xor:ident, $dst:expr, [$lo:expr, $hi:expr, $mid:expr, $t:expr], $poly:expr) => {{
        for _ in 0..2 {
            $b.vpclmulqdq($t, $lo, $poly, 0x10);
            $b.vpshufd($lo, $lo, 0x4e);
            $b.$xor($lo, $lo, $t);
        }
        $b.$xor($dst, $lo, $hi);
    }};
    (@middle $b:ident, $xor:ident, [$lo:expr, $hi:expr, $mid:expr, $t:expr]) => {{
        $b.vpslldq($t, $mid, 8);
        $b.vpsrldq($mid, $mid, 8);
        $b.$xor($lo, $lo, $t);
        $b.$xor($hi, $hi, $mid);
    }};
    ($b:expr, $xor:ident, $dst:expr, $a:expr, $c:expr, square, [$($s:expr),*], $poly:expr) => {{
        let b = &mut *$b;
        let [lo, hi, _, _] = [$($s),*];
        b.vpclmulqdq(lo, $a, $c, 0x00);
        b.vpclmulqdq(hi, $a, $c, 0x11);
        mont_mul!(@reduce b, $xor, $dst, [$($s),*], $poly);
    }};
    ($b:expr, $xor:ident, $dst:expr, $a:expr, $c:expr, schoolbook, [$($s:expr),*], $poly:expr) => {{
        let b = &mut *$b;
        let [lo, hi, mid, t] = [$($s),*];
        b.vpclmulqdq(lo, $a, $c, 0x00);
        b.vpclmulqdq(hi, $a, $c, 0x11);
        b.vpclmulqdq(mid, $a, $c, 0x01);
        b.vpclmulqdq(t, $a, $c, 0x10);
        b.$xor(mid, mid, t);
        mont_mul!(@middle b, $xor, [$($s),*]);
        mont_mul!(@reduce b, $xor, $dst, [$($s),*], $poly);
    }};
    ($b:expr, $xor:ident, $dst:expr, $a:expr, $c:expr, karatsuba($ak:expr, $ck:expr), [$($s:expr),*], $poly:expr) => {{
        let b = &mut *$b;
        let [lo, hi, mid, _] = [$($s),*];
        b.vpclmulqdq(lo, $a, $c, 0x00);
        b.vpclmulqdq(hi, $a, $c, 0x11);
        b.vpclmulqdq(mid, $ak, $ck, 0x00);
        b.$xor(mid, mid, lo);
        b.$xor(mid, mid, hi);
        mont_mul!(@middle b, $xor, [$($s),*]);
        mont_mul!(@reduce b, $xor, $dst, [$($s),*], $poly);
    }};
}
pub(super) use mont_mul;

/// The reduction constant's place: [`POLY`], 16 bytes.
pub(super) fn init_poly(b: &mut B) -> Mem {
    rip(&b.constant("polyval_poly", 16, "x^128 + x^127 + x^126 + x^121 + 1, reflected", &POLY))
}

/// Loads the 16-byte key at `h` into `h1` in POLYVAL form (GHASH's converted: mulX_POLYVAL(ByteReverse(H))),
/// with the scratch `t`.
pub(super) fn load_key(b: &mut B, f: Flavour, h: Gpr, h1: Xmm, t: [Xmm; 2]) {
    let [t0, t1] = t;
    b.vmovdqu(h1, mem(h, 0));
    if f.reflected() {
        let bswap = rip(&b.constant("byte_reverse", 16, "vpshufb control: reverse 16 bytes", &BYTE_REVERSE));
        let poly = init_poly(b);
        b.comment("GHASH key in POLYVAL form: mulX_POLYVAL(ByteReverse(H)) (RFC 8452, appendix A).");
        b.vpshufb(h1, h1, bswap);
        b.vpsllq(t0, h1, 1);
        b.vpsrlq(t1, h1, 63);
        b.vpslldq(t1, t1, 8);
        b.vpor(t0, t0, t1);
        b.comment("Constant-time: an all-ones mask from bit 127 selects the polynomial.");
        b.vpshufd(t1, h1, 0xff);
        b.vpsrad(t1, t1, 31);
        b.vpand(t1, t1, poly);
        b.vpxor(h1, t0, t1);
    }
}

/// The products of the xmm key setup, `(i, a, c)`: `H^i = H^a * H^c`, in three rounds of independent products
/// (H^2; H^3, H^4; H^5..H^8 from H^4), so that the dependency chain is three products long.
const BASE_PRODUCTS: [(usize, usize, usize); 7] =
    [(2, 1, 1), (3, 2, 1), (4, 2, 2), (5, 4, 1), (6, 4, 2), (7, 4, 3), (8, 4, 4)];

/// The key setup named `asmgen_<f>_init_<suffix>` allowed `features`: documented as every set's, then `body`
/// (which adds its own documentation) with the table's and the key's registers.
pub(super) fn init_of(
    f: Flavour,
    abi: Abi,
    suffix: &str,
    features: &[X86Feature],
    body: fn(&mut B, Flavour, Gpr, Gpr),
) -> Result<Function<X86_64>, GenError> {
    let name = format!("asmgen_{}_init_{suffix}", f.name());
    let mut b = B::new(&name, abi, features);
    super::document_init(&mut b, f);
    let [table, h] = role::params(&mut b, f.init_role());
    body(&mut b, f, table, h);
    b.finish()
}

/// The xmm set's key setup: H^1..H^8 (in xmm4-xmm11) and their half-sums, each stored as it is computed
/// ([`BASE_PRODUCTS`], schoolbook).
fn base(b: &mut B, f: Flavour, table: Gpr, h: Gpr) {
    b.doc("H^2; then H^3, H^4; then H^5..H^8 = H^1..H^4 * H^4: three dependent products.");
    powers(b, f, table, h, &BASE_PRODUCTS);
}

/// `<f>_init_small_avx(table, h)`: H^1..H^4 and their half-sums only, for every x86_64 set's update of at most
/// four blocks under a fresh key.
pub fn init_small(f: Flavour, abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = B::new(&format!("asmgen_{}_init_small_avx", f.name()), abi, &[X86Feature::Avx, X86Feature::Pclmulqdq]);
    crate::doc_role(&mut b, f.init_small_role());
    b.doc("table[16*(i-1)] = H^i, table[128 + 16*(i-1)] = Karatsuba half-sum of H^i, for i = 1..4 only: H^2;");
    b.doc("then H^3, H^4 (BASE_PRODUCTS' first two rounds). Nothing else of the table is written.");
    let [table, h] = role::params(&mut b, f.init_small_role());
    powers(&mut b, f, table, h, &BASE_PRODUCTS[..3]);
    b.finish()
}

/// H^1 and the `products`, each with its half-sum, stored as computed.
fn powers(b: &mut B, f: Flavour, table: Gpr, h: Gpr, products: &[(usize, usize, usize)]) {
    let power = |i: usize| Xmm(3 + i as u8);
    let [lo, hi, mid, t] = [0, 1, 2, 3].map(Xmm);
    let poly = init_poly(b);
    load_key(b, f, h, power(1), [lo, hi]);
    let store = |b: &mut B, i: usize| {
        b.vmovdqu(mem(table, h_offset(i)), power(i));
        b.vpshufd(t, power(i), 0x4e);
        b.vpxor(t, t, power(i));
        b.vmovdqu(mem(table, hk_offset(i)), t);
    };
    b.comment("H^1 and its half-sum.");
    store(b, 1);
    for &(i, a, c) in products {
        b.comment(format_args!("H^{i} = H^{a} * H^{c}, and its half-sum."));
        if a == c {
            mont_mul!(b, vpxor, power(i), power(a), power(c), square, [lo, hi, mid, t], poly.clone());
        } else {
            mont_mul!(b, vpxor, power(i), power(a), power(c), schoolbook, [lo, hi, mid, t], poly.clone());
        }
        store(b, i);
    }
}

/// `<f>_update_avx(state, table, data, nblocks)`: absorbs `nblocks` blocks, 8 per reduction.
pub fn update(f: Flavour, abi: Abi) -> Result<Function<X86_64>, GenError> {
    update_of(f, abi, Blocks::Arg)
}

/// [`update`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`, the JIT's fixed-size kernels:
/// the groups of eight in a counted loop, the last `count % 8` blocks unrolled against known powers).
pub fn update_of(f: Flavour, abi: Abi, blocks: Blocks) -> Result<Function<X86_64>, GenError> {
    let name = format!("asmgen_{}_update_avx{}", f.name(), blocks.suffix());
    let mut b = B::new(&name, abi, &[X86Feature::Avx, X86Feature::Pclmulqdq]);
    super::document_update(&mut b, f, blocks);
    let [state, table, data, n] = role::params(&mut b, f.update_role());
    Trips::new(blocks, n).either(
        &mut b,
        |b, n, count| absorb_fixed(b, f, mem(state, 0), table, data, n, count),
        |b, n| absorb(b, f, mem(state, 0), table, data, n),
    );
    b.finish()
}

/// Eight blocks at `data` against H^8..H^1 with the state added to the first, reduced into the state.
fn absorb8(b: &mut B, f: Flavour, table: Gpr, data: Gpr) {
    // Blocks 1..7 do not depend on the state: multiply them first, so that only block 0's product and the
    // reduction lie on the loop-carried dependency chain through S.
    for i in (1..AGGREGATE as i32).chain([0]) {
        let power = AGGREGATE as i32 - i;
        b.comment(format_args!("block {i} times H^{power}{}", if i == 0 { ", after adding the state" } else { "" }));
        load_block(b, f, Xmm(8), mem(data, 16 * i));
        if i == 0 {
            b.vpxor(Xmm(8), Xmm(8), S);
        }
        mul_acc(b, Xmm(8), mem(table, h_offset(power as usize)), mem(table, hk_offset(power as usize)), i == 1);
    }
    reduce(b);
}

/// [`absorb`] for exactly `count` blocks: `count / 8` groups in a counted loop (in `n`), then the last
/// `k = count % 8` blocks unrolled against H^k..H^1 and one reduction, no tail loop.
fn absorb_fixed(b: &mut B, f: Flavour, state: Mem, table: Gpr, data: Gpr, n: Gpr, count: usize) {
    constants(b, f);
    load_block(b, f, S, state.clone());
    let (groups, k) = (count / AGGREGATE, count % AGGREGATE);
    X86_64::counted_loop(b, n, groups, "loop8", &mut |b| {
        absorb8(b, f, table, data);
        if groups > 1 || k > 0 {
            b.add(data, 16 * AGGREGATE as i32);
        }
    });
    if k > 0 {
        b.blank();
        b.comment(format_args!("The last {k} blocks: X1*H^{k} + ... + X{k}*H^1, one reduction."));
        for i in 0..k as i32 {
            let power = k as i32 - i;
            load_block(b, f, Xmm(8), mem(data, 16 * i));
            if i == 0 {
                b.vpxor(Xmm(8), Xmm(8), S);
            }
            mul_acc(b, Xmm(8), mem(table, h_offset(power as usize)), mem(table, hk_offset(power as usize)), i == 0);
        }
        reduce(b);
    }
    if f.reflected() {
        b.vpshufb(S, S, BSWAP);
    }
    b.vmovdqu(state, S);
}

/// The body of [`update`] for other kernels (SM4-GCM's tail): absorbs `n` blocks at `data` into the state at
/// `state` (16 bytes, in `f`'s byte order) with the key table at `table`. Advances `data`, clears `n`; clobbers
/// rax and xmm0-xmm8, xmm14, xmm15.
pub fn absorb(b: &mut B, f: Flavour, state: Mem, table: Gpr, data: Gpr, n: Gpr) {
    absorb_of(b, f, state, table, data, n, true)
}

/// [`absorb`] for a count known to be below [`AGGREGATE`] (SM4-GCM decryption's tail with xmm batches of 8):
/// the single-block loop only, without the aggregate loop it would never enter.
pub fn absorb_few(b: &mut B, f: Flavour, state: Mem, table: Gpr, data: Gpr, n: Gpr) {
    absorb_of(b, f, state, table, data, n, false)
}

fn absorb_of(b: &mut B, f: Flavour, state: Mem, table: Gpr, data: Gpr, n: Gpr, aggregates: bool) {
    let ptr = RAX;
    constants(b, f);
    load_block(b, f, S, state.clone());

    let lp8 = aggregates.then(|| b.label("loop8"));
    let tail = b.label("tail");
    let tail_loop = b.label("tail_loop");
    let done = b.label("done");

    if let Some(lp8) = lp8 {
        b.cmp(n, AGGREGATE as i32);
        b.jb(&tail);
        b.align(4);
        b.bind(&lp8);
        absorb8(b, f, table, data);
        b.add(data, 16 * AGGREGATE as i32);
        b.sub(n, AGGREGATE as i32);
        b.cmp(n, AGGREGATE as i32);
        b.jae(&lp8);
        b.blank();
    }
    b.bind(&tail);
    b.comment("The last k < 8 blocks: X1*H^k + ... + Xk*H^1, one reduction.");
    b.test(n, n);
    b.jz(&done);
    b.mov(ptr, n);
    b.shl(ptr, 4);
    b.add(ptr, table);
    b.sub(ptr, 16);
    b.vmovdqa(CARRY, S);
    for r in [LO, HI, MID] {
        b.vpxor(r, r, r);
    }
    b.bind(&tail_loop);
    load_block(b, f, Xmm(8), mem(data, 0));
    b.vpxor(Xmm(8), Xmm(8), CARRY);
    b.vpxor(CARRY, CARRY, CARRY);
    mul_acc(b, Xmm(8), mem(ptr, 0), mem(ptr, 128), false);
    b.add(data, 16);
    b.sub(ptr, 16);
    b.sub(n, 1);
    b.jnz(&tail_loop);
    reduce(b);

    b.bind(&done);
    if f.reflected() {
        b.vpshufb(S, S, BSWAP);
    }
    b.vmovdqu(state, S);
}
