//! SM4 on aarch64: the SM4 crypto extension (`_ce`) and plain Advanced SIMD (`_neon`).
//!
//! # SM4 CE (FEAT_SM4)
//!
//! `sm4e` runs four rounds on one block held as four big-endian words (`.s[0]` = X0), so a block is loaded,
//! byte-swapped per word (`rev32`) and put through eight `sm4e` with the 32 round keys in eight registers
//! (v16-v23, loaded once per call). The result holds X32..X35 in lanes 0..3; the ciphertext is
//! X35, X34, X33, X32 big-endian, which is exactly the byte reversal of the register (one `tbl`).
//! Parallel modes (ECB, CTR, CBC/CFB decryption, XTS) keep eight blocks in flight in v0-v7, each an
//! independent chain of eight `sm4e`. Bottleneck (modelled with llvm-mca-19 for Neoverse N2, no hardware
//! measurement): the `sm4e` issue rate, 64 per 128 bytes (block throughput 64 cycles); CTR models at 74
//! cycles per 128 bytes (0.58 c/B), ECB 72, CBC decryption 74. XTS adds the tweak recurrence (mov or rbit,
//! then 4 dependent vector ops per block, off the `sm4e` chains): 83 cycles per 128 bytes (0.65 c/B) in both
//! conventions. The serial modes (CBC/CFB encryption, CBC-MAC) are bound by the latency of eight dependent
//! `sm4e` per block.
//!
//! The XTS unit kernels (one call per data unit) put the tweak encryption in front of the same whole-block
//! loop and steal ciphertext without a byte loop: the unit's last 16 bytes are read and written whole, the
//! bytes moved by `tbl`/`tbx` with controls loaded at an offset of the tail length (public) into a constant.
//! Modelled for one 64-byte unit (Neoverse N2, straight-line path of one call): 119 cycles, against 67 for
//! CTR over 64 bytes plus 49 for a one-block ECB call; back to back, 73 against 36 + 11, as the unit's
//! chain (tweak encryption, doublings, rounds) is serial where the two other calls overlap.
//!
//! # NEON (no SM4 extension)
//!
//! Blocks are kept transposed with `ld4`/`st4`: register j of a group holds word j of four blocks; two groups
//! (eight blocks) are in flight. The S-box is a constant-time lookup of every byte in the 256-byte table held
//! in v16-v31: `tbl` over the first 64 bytes, then `tbx` over the next three quarters with the index lowered
//! by 64 each time (an index out of a quarter's range leaves the byte alone). The linear layer is
//! `x0 ^= B ^ rol(B, 24) ^ rol(B ^ rol(B, 8) ^ rol(B, 16), 2)` with byte rotations as `tbl`/`rev32`.
//! Bottleneck (modelled, Neoverse N1): the vector pipes, about 9.5 c/B for CTR (see [`neon`]).
//!
//! Constant time: secret data only reaches `sm4e`/`sm4ekey`, vector arithmetic and `tbl`/`tbx` indices on
//! vector registers; branches and addresses depend on lengths and counter values only.

use super::{Mode, Serial, CK, FK};
use crate::arch::aarch64::addr;
use crate::plan::Trips;
use crate::role::{self, Kernel, Kernels, Role};
use crate::{Blocks, Fixed};
use asmgen::isa::aarch64::{regs::*, A64Feature, Aarch64, V, X};
use asmgen::{Abi, Builder, Function, GenError};

type B = Builder<Aarch64>;

/// `tbl` control reversing the 16 bytes of a register.
const REVERSE: [u8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

// ================================================================================================
// SM4 CE
// ================================================================================================

/// The eight blocks in flight.
const ST: [V; 8] = [V(0), V(1), V(2), V(3), V(4), V(5), V(6), V(7)];
/// The round keys: RK[i] holds rk[4i..4i+4].
const RK: [V; 8] = [V(16), V(17), V(18), V(19), V(20), V(21), V(22), V(23)];
/// Data kept beside the blocks (ciphertext for the chaining modes, plaintext for CTR).
const DT: [V; 8] = [V(24), V(25), V(26), V(27), V(28), V(29), V(30), V(31)];
/// The byte-reversal control (output of `sm4e` to memory order).
const REV: V = V(8);
/// Chaining value (IV, MAC) of the serial and chaining modes.
const IV: V = V(9);
/// CTR: the counter (hi, lo) as 64-bit lanes, and (0, 1).
const CB: V = V(10);
const ONE: V = V(11);

const CE: &[A64Feature] = &[A64Feature::Sm4];

/// Loads the 32 round keys at `rk` into [`RK`].
fn load_rk(b: &mut B, rk: X) {
    b.comment("Round keys: RK[i] = rk[4i..4i+4] (little-endian words, as sm4e takes them).");
    for i in (0..8).step_by(2) {
        b.ldp(RK[i], RK[i + 1], rk, 16 * i as i32);
    }
}

/// The byte-reversal control of the XTS kernels (whose tweaks occupy v8-v15).
const XTS_REV: V = V(27);

/// Loads the byte-reversal control into `rev`.
fn load_rev(b: &mut B, tmp: X, rev: V) {
    let l = b.constant("sm4_reverse16", 16, "tbl: reverse the 16 bytes of a block", &REVERSE);
    addr(b, tmp, &l);
    b.ldr(rev, tmp, 0);
}

/// 32 rounds on `regs` (each a block as big-endian words), eight `sm4e` each, interleaved across blocks; then
/// the result X32..X35 is byte-reversed into memory order (X35..X32 big-endian).
fn ce_rounds(b: &mut B, regs: &[V], rev: V) {
    b.comment(format_args!("32 rounds on {} block(s): 8 x sm4e each, interleaved.", regs.len()));
    for k in RK {
        for &r in regs {
            b.sm4e(r, k);
        }
    }
    b.comment("X32..X35 -> X35..X32 big-endian: a byte reversal.");
    for &r in regs {
        b.tbl_16b(r, r, rev);
    }
}

/// Loads `dst.len()` blocks from `src` (post-increment) into the consecutive registers `dst`: four per `ld1`,
/// then pairs (`ldp`), then a single block.
fn load_blocks(b: &mut B, dst: &[V], src: X) {
    let mut rest = dst;
    while rest.len() >= 4 {
        b.ld1_4x16b_post(rest[0], src);
        rest = &rest[4..];
    }
    while rest.len() >= 2 {
        b.ldp_post(rest[0], rest[1], src, 32);
        rest = &rest[2..];
    }
    if let [r] = rest {
        b.ld1_16b_post(*r, src);
    }
}

/// Stores the consecutive registers `src` to `dst` (post-increment): four per `st1`, then one at a time.
fn store_blocks(b: &mut B, src: &[V], dst: X) {
    let mut rest = src;
    while rest.len() >= 4 {
        b.st1_4x16b_post(rest[0], dst);
        rest = &rest[4..];
    }
    for &r in rest {
        b.st1_16b_post(r, dst);
    }
}

/// General-purpose registers of the CE batch kernels.
struct CeCtx {
    mode: Mode,
    dst: X,
    src: X,
    /// CTR: the counter's halves as integers.
    hi: X,
    lo: X,
}

/// CTR inputs for `k` blocks: (hi, lo + j) with the 128-bit carry, as big-endian words (`rev64` on the words
/// of each 64-bit lane). The counter is public: the carry test may branch.
fn ce_ctr_inputs(b: &mut B, x: &CeCtx, k: usize) {
    let regs = &ST[..k];
    if k == 1 {
        b.ins_d_x(regs[0], 0, x.hi);
        b.ins_d_x(regs[0], 1, x.lo);
        b.rev64_4s(regs[0], regs[0]);
        b.adds(x.lo, x.lo, 1);
        b.adc(x.hi, x.hi, XZR);
        return;
    }
    let slow = b.label("ctr_carry");
    let ready = b.label("ctr_ready");
    b.comment(format_args!("Counter blocks: vector adds unless the low 64 bits wrap inside these {k} blocks."));
    b.adds(X12, x.lo, k as i32 - 1);
    b.b_hs(&slow);
    b.ins_d_x(CB, 0, x.hi);
    b.ins_d_x(CB, 1, x.lo);
    for (j, &r) in regs.iter().enumerate() {
        b.rev64_4s(r, CB);
        if j + 1 < k {
            b.add_2d(CB, CB, ONE);
        }
    }
    b.adds(x.lo, x.lo, k as i32);
    b.adc(x.hi, x.hi, XZR);
    b.b(&ready);
    b.bind(&slow);
    b.comment("Slow path: 128-bit increments one block at a time.");
    for &r in regs {
        b.ins_d_x(r, 0, x.hi);
        b.ins_d_x(r, 1, x.lo);
        b.rev64_4s(r, r);
        b.adds(x.lo, x.lo, 1);
        b.adc(x.hi, x.hi, XZR);
    }
    b.bind(&ready);
}

/// One batch of `k` (1..=8) blocks of a parallel mode.
fn ce_batch(b: &mut B, x: &CeCtx, k: usize) {
    let st = &ST[..k];
    let dt = &DT[..k];
    b.comment(format_args!("{k} block(s)."));
    match x.mode {
        Mode::Ecb => {
            load_blocks(b, st, x.src);
            for &r in st {
                b.rev32_16b(r, r);
            }
        }
        Mode::Ctr => ce_ctr_inputs(b, x, k),
        Mode::CbcDec => {
            load_blocks(b, dt, x.src);
            for (&r, &d) in st.iter().zip(dt) {
                b.rev32_16b(r, d);
            }
        }
        Mode::CfbDec => {
            load_blocks(b, dt, x.src);
            b.rev32_16b(st[0], IV);
            for j in 1..k {
                b.rev32_16b(st[j], dt[j - 1]);
            }
        }
    }
    ce_rounds(b, st, REV);
    match x.mode {
        Mode::Ecb => {}
        Mode::Ctr => {
            load_blocks(b, dt, x.src);
            for (&r, &d) in st.iter().zip(dt) {
                b.eor_16b(r, r, d);
            }
        }
        Mode::CbcDec => {
            b.eor_16b(st[0], st[0], IV);
            for j in 1..k {
                b.eor_16b(st[j], st[j], dt[j - 1]);
            }
            b.mov_16b(IV, dt[k - 1]);
        }
        Mode::CfbDec => {
            for (&r, &d) in st.iter().zip(dt) {
                b.eor_16b(r, r, d);
            }
            b.mov_16b(IV, dt[k - 1]);
        }
    }
    store_blocks(b, st, x.dst);
}

/// `asmgen_sm4_<mode>_ce`: ECB, CTR, CBC or CFB decryption, eight blocks in flight, then four, then one.
pub fn ce_batch_mode(mode: Mode, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    ce_batch_mode_of(mode, abi, Blocks::Arg)
}

/// [`ce_batch_mode`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`, the JIT's fixed-size
/// CTR): then no zero check, `count / 8` batches of eight in a counted loop (straight-line for one) and the
/// last `count % 8` blocks as one batch of that many, interleaved; no batch of four, no single-block loop.
pub fn ce_batch_mode_of(mode: Mode, abi: Abi, blocks: Blocks) -> Result<Function<Aarch64>, GenError> {
    let mut b = B::new(&format!("asmgen_sm4_{}_ce{}", mode.name(), blocks.suffix()), abi, CE);
    b.doc(mode.doc());
    b.doc(match blocks {
        Blocks::Arg => {
            "SM4 extension: eight blocks in flight (8 x sm4e each), then a batch of four and single blocks; dst may \
             equal src."
        }
        Blocks::Fixed(_) => {
            "SM4 extension: eight blocks in flight (8 x sm4e each) in a counted loop, then the rest as one batch; \
             dst may equal src."
        }
    });
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let (rk, dst, src, n, extra) = mode.params(&mut b);
    let x = CeCtx { mode, dst, src, hi: X10, lo: X11 };
    let trips = Trips::new(blocks, n);
    let done = b.label("done");
    trips.skip_if_zero(&mut b, &done);
    load_rk(&mut b, rk);
    load_rev(&mut b, X9, REV);
    match mode {
        Mode::Ctr => {
            let ctr = extra.expect("ctr");
            b.comment("The counter as two integers (hi, lo); ONE = (0, 1) for the vector increments.");
            b.ldp(x.hi, x.lo, ctr, 0);
            b.rev(x.hi, x.hi);
            b.rev(x.lo, x.lo);
            let mut one = [0u8; 16];
            one[8] = 1;
            let l = b.constant("sm4_ctr_one", 16, "CTR increment: (0, 1) as 64-bit lanes", &one);
            addr(&mut b, X9, &l);
            b.ldr(ONE, X9, 0);
        }
        Mode::CbcDec | Mode::CfbDec => {
            b.ldr(IV, extra.expect("iv"), 0);
        }
        Mode::Ecb => {}
    }
    trips.batches(
        &mut b,
        8,
        "counted",
        &mut |b, _| ce_batch(b, &x, 8),
        |b, rest| {
            b.comment(format_args!("The last {rest} blocks."));
            ce_batch(b, &x, rest);
        },
        |b, n| {
            let lp8 = b.label("loop8");
            let four = b.label("four");
            let one = b.label("one");
            let tail = b.label("tail");
            b.cmp(n, 8);
            b.b_lo(&four);
            b.align(4);
            b.bind(&lp8);
            ce_batch(b, &x, 8);
            b.sub(n, n, 8);
            b.cmp(n, 8);
            b.b_hs(&lp8);
            b.blank();
            b.bind(&four);
            b.cmp(n, 4);
            b.b_lo(&tail);
            ce_batch(b, &x, 4);
            b.sub(n, n, 4);
            b.bind(&tail);
            b.cbz(n, &one);
            let lp1 = b.label("loop1");
            b.bind(&lp1);
            ce_batch(b, &x, 1);
            b.subs(n, n, 1);
            b.b_ne(&lp1);
            b.bind(&one);
        },
    );
    match mode {
        Mode::Ctr => {
            let ctr = extra.expect("ctr");
            b.rev(x.hi, x.hi);
            b.rev(x.lo, x.lo);
            b.stp(x.hi, x.lo, ctr, 0);
        }
        Mode::CbcDec | Mode::CfbDec => {
            b.str(IV, extra.expect("iv"), 0);
        }
        Mode::Ecb => {}
    }
    trips.bind_skip(&mut b, &done);
    b.finish()
}

/// One serial step on the chaining value [`IV`] with plaintext `p`; the new chaining value is also the output
/// block (written back into `p`).
fn ce_serial_step(b: &mut B, mode: Serial, p: V) {
    let s = ST[0];
    match mode {
        Serial::CbcEnc | Serial::CbcMac => {
            b.eor_16b(IV, IV, p);
            b.rev32_16b(s, IV);
            ce_rounds(b, &[s], REV);
            b.mov_16b(IV, s);
        }
        Serial::CfbEnc => {
            b.rev32_16b(s, IV);
            ce_rounds(b, &[s], REV);
            b.eor_16b(IV, s, p);
        }
    }
    if mode != Serial::CbcMac {
        b.mov_16b(p, IV);
    }
}

/// `asmgen_sm4_{cbc_enc,cfb_enc,cbc_mac}_ce`: serial, plaintext loaded four blocks per `ld1`.
pub fn ce_serial_mode(mode: Serial, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let mut b = B::new(&format!("asmgen_sm4_{}_ce", mode.name()), abi, CE);
    b.doc(mode.doc());
    b.doc("Serial (8 dependent sm4e per block); input loaded and output stored four blocks at a time.");
    let (rk, dst, src, n, state) = mode.params(&mut b);
    let done = b.label("done");
    b.cbz(n, &done);
    load_rk(&mut b, rk);
    load_rev(&mut b, X9, REV);
    b.ldr(IV, state, 0);
    let lp4 = b.label("loop4");
    let tail = b.label("tail");
    let lp1 = b.label("loop1");
    let end = b.label("end");
    b.cmp(n, 4);
    b.b_lo(&tail);
    b.align(4);
    b.bind(&lp4);
    b.ld1_4x16b_post(DT[0], src);
    for &p in &DT[..4] {
        ce_serial_step(&mut b, mode, p);
    }
    if let Some(dst) = dst {
        b.st1_4x16b_post(DT[0], dst);
    }
    b.sub(n, n, 4);
    b.cmp(n, 4);
    b.b_hs(&lp4);
    b.bind(&tail);
    b.cbz(n, &end);
    b.bind(&lp1);
    b.ld1_16b_post(DT[0], src);
    ce_serial_step(&mut b, mode, DT[0]);
    if let Some(dst) = dst {
        b.st1_16b_post(DT[0], dst);
    }
    b.subs(n, n, 1);
    b.b_ne(&lp1);
    b.bind(&end);
    b.str(IV, state, 0);
    b.bind(&done);
    b.finish()
}

/// `asmgen_sm4_expand_key_ce(rk_enc, rk_dec, key)`: eight `sm4ekey`; the decryption keys are the encryption
/// keys in reverse order (registers in reverse, words reversed within each register).
pub fn ce_expand_key(abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let mut b = B::new("asmgen_sm4_expand_key_ce", abi, CE);
    crate::doc_role(&mut b, Role::ExpandKey);
    b.doc("sm4ekey: K = MK ^ FK, then four round keys per sm4ekey with CK[4i..4i+4].");
    let [re, rd, key] = role::params(&mut b, Role::ExpandKey);
    let fk: Vec<u8> = FK.iter().flat_map(|w| w.to_le_bytes()).collect();
    let ck: Vec<u8> = CK.iter().flat_map(|w| w.to_le_bytes()).collect();
    let fk = b.constant("sm4_fk", 16, "FK as words", &fk);
    let ck = b.constant("sm4_ck", 16, "CK[0..32] as words", &ck);
    let k = V(24);
    b.comment("K = MK ^ FK as big-endian words.");
    b.ldr(k, key, 0);
    b.rev32_16b(k, k);
    addr(&mut b, X9, &fk);
    b.ldr(V(25), X9, 0);
    b.eor_16b(k, k, V(25));
    addr(&mut b, X9, &ck);
    b.comment("CK in v16-v23; rk[4i..4i+4] = sm4ekey(rk[4i-4..4i], CK[4i..4i+4]) into v0-v7.");
    for i in (0..8).step_by(2) {
        b.ldp(RK[i], RK[i + 1], X9, 16 * i as i32);
    }
    for i in 0..8 {
        let prev = if i == 0 { k } else { ST[i - 1] };
        b.sm4ekey(ST[i], prev, RK[i]);
    }
    b.st1_4x16b_post(ST[0], re);
    b.st1_4x16b_post(ST[4], re);
    b.comment("Decryption keys: register 7-i with its words reversed (rev64 .4s, then swap halves).");
    for i in 0..8 {
        let d = DT[i];
        b.rev64_4s(d, ST[7 - i]);
        b.ext_16b(d, d, d, 8);
    }
    b.st1_4x16b_post(DT[0], rd);
    b.st1_4x16b_post(DT[4], rd);
    b.comment("Clear the key material from the vector registers.");
    for v in ST.iter().chain(&DT).chain(&[V(24), V(25)]) {
        b.movi_zero(*v);
    }
    b.finish()
}

// ------------------------------------------------------------------------------------------------
// XTS (CE)
// ------------------------------------------------------------------------------------------------

/// The tweaks of a batch of eight.
const TW: [V; 8] = [V(8), V(9), V(10), V(11), V(12), V(13), V(14), V(15)];
/// XTS: the doubling constant, (0x87, 1) as 64-bit lanes.
const GF: V = V(24);
/// XTS: the tweak chain (GB/T: in the bit-reflected domain), and a scratch register.
const CHAIN: V = V(25);
const MASK: V = V(26);

/// `d = s * x` in GF(2^128), IEEE 1619 order (little-endian, 0x87): each 64-bit lane shifted left by one, the
/// bit leaving lane 0 entering lane 1 and the bit leaving lane 1 folded into lane 0 as 0x87. Constant time.
fn xts_double(b: &mut B, d: V, s: V) {
    b.sshr_2d(MASK, s, 63);
    b.ext_16b(MASK, MASK, MASK, 8);
    b.and_16b(MASK, MASK, GF);
    b.add_2d(d, s, s);
    b.eor_16b(d, d, MASK);
}

/// Which XTS flavour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Xts {
    /// IEEE 1619.
    Ieee,
    /// GB/T 17964-2021.
    Gb,
}

/// `asmgen_sm4_xts_{enc,dec}_{ieee,gb}_ce(rk, dst, src, nblocks, tweak)`: XTS on whole blocks,
/// `dst[i] = E(src[i] ^ T[i]) ^ T[i]`, `T[0]` the (encrypted) tweak at `tweak`, which becomes `T[nblocks]`.
///
/// GB/T 17964 multiplies by x in the bit-reflected order (big-endian, shift right, 0xe1 into the first
/// byte). Reversing the bits of every byte (`rbit`) turns that into the IEEE doubling, so the chain runs in
/// the reflected domain and each tweak is reflected back once (one `rbit` per block).
pub fn ce_xts(flavour: Xts, decrypt: bool, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    ce_xts_of(flavour, decrypt, abi, Blocks::Arg)
}

/// The names of an XTS kernel's flavour and direction: (`ieee`|`gb`, `enc`|`dec`).
fn xts_names(flavour: Xts, decrypt: bool) -> (&'static str, &'static str) {
    let fl = match flavour {
        Xts::Ieee => "ieee",
        Xts::Gb => "gb",
    };
    (fl, if decrypt { "dec" } else { "enc" })
}

/// The XTS constants: the byte-reversal control in [`XTS_REV`] and the doubling constant in [`GF`].
fn xts_constants(b: &mut B) {
    load_rev(b, X9, XTS_REV);
    let mut gf = [0u8; 16];
    gf[0] = 0x87;
    gf[8] = 1;
    let gfl = b.constant("sm4_xts_gf", 16, "XTS doubling: 0x87 into lane 0, the carry into lane 1", &gf);
    addr(b, X9, &gfl);
    b.ldr(GF, X9, 0);
}

/// The tweaks of the next `k` blocks into `TW[..k]`, stepping the chain past them. GB/T keeps the chain
/// bit-reflected, so each tweak is reflected back; IEEE keeps the chain in TW[j] directly.
fn xts_tweaks(b: &mut B, gb: bool, k: usize) {
    for &t in &TW[..k] {
        if gb {
            b.rbit_16b(t, CHAIN);
        } else {
            b.mov_16b(t, CHAIN);
        }
        xts_double(b, CHAIN, CHAIN);
    }
}

/// A batch of `k` blocks from `src` to `dst` (both post-incremented): tweaks, then `E(src ^ T) ^ T`.
fn xts_batch(b: &mut B, gb: bool, dst: X, src: X, k: usize) {
    let st = &ST[..k];
    b.comment(format_args!("{k} block(s): tweaks, then E(src ^ T) ^ T."));
    xts_tweaks(b, gb, k);
    load_blocks(b, st, src);
    for (&r, &t) in st.iter().zip(&TW) {
        b.eor_16b(r, r, t);
        b.rev32_16b(r, r);
    }
    ce_rounds(b, st, XTS_REV);
    for (&r, &t) in st.iter().zip(&TW) {
        b.eor_16b(r, r, t);
    }
    store_blocks(b, st, dst);
}

/// The whole-block loop over the `n` blocks (a register, counted down to zero; zero runs nothing): batches of
/// eight, one of four, then single blocks.
fn xts_loop(b: &mut B, gb: bool, dst: X, src: X, n: X) {
    let lp8 = b.label("loop8");
    let four = b.label("four");
    let tail = b.label("tail");
    let end = b.label("end");
    b.cmp(n, 8);
    b.b_lo(&four);
    b.align(4);
    b.bind(&lp8);
    xts_batch(b, gb, dst, src, 8);
    b.sub(n, n, 8);
    b.cmp(n, 8);
    b.b_hs(&lp8);
    b.bind(&four);
    b.cmp(n, 4);
    b.b_lo(&tail);
    xts_batch(b, gb, dst, src, 4);
    b.sub(n, n, 4);
    b.bind(&tail);
    b.cbz(n, &end);
    let lp1 = b.label("loop1");
    b.bind(&lp1);
    xts_batch(b, gb, dst, src, 1);
    b.subs(n, n, 1);
    b.b_ne(&lp1);
    b.bind(&end);
}

/// Clears the tweaks from the vector registers.
fn xts_clear(b: &mut B) {
    b.comment("Clear the tweaks.");
    for v in TW.iter().chain(&[CHAIN, MASK]) {
        b.movi_zero(*v);
    }
}

/// [`ce_xts`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`: the JIT's kernels for one sector
/// size, e.g. 256 blocks for 4096-byte sectors): then no zero check, `count / 8` batches of eight in a counted
/// loop (straight-line for one) and the last `count % 8` blocks as one batch of that many, interleaved; no
/// batch of four, no single-block loop.
pub fn ce_xts_of(flavour: Xts, decrypt: bool, abi: Abi, blocks: Blocks) -> Result<Function<Aarch64>, GenError> {
    let (fl, dir) = xts_names(flavour, decrypt);
    let mut b = B::new(&format!("asmgen_sm4_xts_{dir}_{fl}_ce{}", blocks.suffix()), abi, CE);
    crate::doc_role(&mut b, Role::xts(decrypt, flavour == Xts::Gb));
    b.doc("Eight blocks in flight; the tweak chain stays in vector registers.");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let [rk, dst, src, n, tweak] = role::params(&mut b, Role::xts(decrypt, flavour == Xts::Gb));
    let gb = flavour == Xts::Gb;
    let trips = Trips::new(blocks, n);
    let done = b.label("done");
    trips.skip_if_zero(&mut b, &done);
    load_rk(&mut b, rk);
    xts_constants(&mut b);
    b.ldr(CHAIN, tweak, 0);
    if gb {
        b.comment("GB/T: the chain runs on the bit-reflected tweak (rbit of every byte).");
        b.rbit_16b(CHAIN, CHAIN);
    }
    trips.batches(
        &mut b,
        8,
        "counted",
        &mut |b, _| xts_batch(b, gb, dst, src, 8),
        |b, rest| {
            b.comment(format_args!("The last {rest} blocks."));
            xts_batch(b, gb, dst, src, rest);
        },
        |b, n| xts_loop(b, gb, dst, src, n),
    );
    if gb {
        b.rbit_16b(CHAIN, CHAIN);
    }
    b.str(CHAIN, tweak, 0);
    xts_clear(&mut b);
    trips.bind_skip(&mut b, &done);
    b.finish()
}

/// Ciphertext stealing's byte moves as `tbl` controls: 0xff (out of range) in bytes 0..16 and 32..48, and
/// 0, 1, ..., 15 in bytes 16..32. The 16 bytes at offset `d` move byte `j - (16 - d)` to `j` for
/// `j >= 16 - d` (a tail's last `d` bytes from the front of a block); those at offset `32 - d` move byte
/// `16 - d + i` to `i` for `i < d` (the reverse).
const STEAL: [u8; 48] = {
    let mut t = [0xff; 48];
    let mut i = 0;
    while i < 16 {
        t[16 + i] = i as u8;
        i += 1;
    }
    t
};

/// One block in `x`: `x = E(x ^ t) ^ t` (encryption or decryption by the round keys loaded).
fn xts_one(b: &mut B, x: V, t: V) {
    b.eor_16b(x, x, t);
    b.rev32_16b(x, x);
    ce_rounds(b, &[x], XTS_REV);
    b.eor_16b(x, x, t);
}

/// IEEE 1619 ciphertext stealing on the last whole block at `src`/`dst` and the `d` (1..=15, public) bytes
/// after it, with the chain at T[m-1]. Encryption: CC = E(P[m-1] ^ T[m-1]) ^ T[m-1], C[m] = the first `d`
/// bytes of CC, C[m-1] = E(PP ^ T[m]) ^ T[m] with PP = P[m] || the last 16 - d bytes of CC. Decryption is the
/// same byte movement with T[m] first, then T[m-1]. No byte loop: the last 16 bytes of the unit are read and
/// written whole (at `src + d`, `dst + d`, overlapping the last whole block), and `tbl`/`tbx` controls loaded
/// at offsets of `d` into [`STEAL`] move the bytes; both inputs are read before anything is written, so
/// `dst == src` works. Addresses depend on `d` only.
fn xts_steal(b: &mut B, gb: bool, decrypt: bool, dst: X, src: X, d: X) {
    let (x, l, idx, z) = (ST[0], ST[1], ST[2], ST[3]);
    b.comment("Ciphertext stealing: TW[0] = T[m-1], TW[1] = T[m].");
    xts_tweaks(b, gb, 2);
    let (first, second) = if decrypt { (TW[1], TW[0]) } else { (TW[0], TW[1]) };
    b.comment("The last whole block, and the unit's last 16 bytes (tail in lanes 16-d..16).");
    b.ldr(x, src, 0);
    b.add(X9, src, d);
    b.ldr(l, X9, 0);
    xts_one(b, x, first);
    let steal = b.constant("sm4_xts_steal", 16, "XTS stealing: 0xff x 16, 0..15, 0xff x 16", &STEAL);
    addr(b, X10, &steal);
    b.comment("The first d bytes of the result become the tail: stored as the unit's last 16 bytes.");
    b.add(X11, X10, d);
    b.ldr(idx, X11, 0);
    b.tbl_16b(z, x, idx);
    b.add(X12, dst, d);
    b.str(z, X12, 0);
    b.comment("The tail replaces the first d bytes of the result; one more block, stored over the rest.");
    b.add(X10, X10, 32);
    b.sub(X10, X10, d);
    b.ldr(idx, X10, 0);
    b.tbx4_16b(x, l, idx);
    xts_one(b, x, second);
    b.str(x, dst, 0);
}

/// `asmgen_sm4_xts_unit_{enc,dec}_{ieee,gb}_ce(rk, rk_tweak, dst, src, len, iv)`: one XTS data unit of `len`
/// bytes (nothing below 16): `T[0] = E(rk_tweak, iv)`, the whole-block loop of [`ce_xts`] over m blocks (m - 1
/// with a tail), then `xts_steal`. The CE round keys live in v16-v23, so the tweak key's are loaded first,
/// and the data key's over them.
pub fn ce_xts_unit(flavour: Xts, decrypt: bool, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let (fl, dir) = xts_names(flavour, decrypt);
    let gb = flavour == Xts::Gb;
    let mut b = B::new(&format!("asmgen_sm4_xts_unit_{dir}_{fl}_ce"), abi, CE);
    crate::doc_role(&mut b, Role::xts_unit(decrypt, gb));
    b.doc("Eight blocks in flight; the tail through tbl/tbx on the unit's last 16 bytes; dst may equal src.");
    let [rk, rkt, dst, src, len, iv] = role::params(&mut b, Role::xts_unit(decrypt, gb));
    let (n, d) = (X6, X7);
    let (whole, fin, done) = (b.label("whole"), b.label("clear"), b.label("done"));
    b.cmp(len, 16);
    b.b_lo(&done);
    xts_constants(&mut b);
    b.comment("T[0] = E(rk_tweak, iv) with the tweak key's round keys; then the data key's replace them.");
    load_rk(&mut b, rkt);
    b.ldr(CHAIN, iv, 0);
    b.rev32_16b(CHAIN, CHAIN);
    ce_rounds(&mut b, &[CHAIN], XTS_REV);
    if gb {
        b.comment("GB/T: the chain runs on the bit-reflected tweak (rbit of every byte).");
        b.rbit_16b(CHAIN, CHAIN);
    }
    load_rk(&mut b, rk);
    b.comment("m = len / 16, d = len % 16 (public); the loop runs m blocks, m - 1 with a tail.");
    b.lsr(n, len, 4);
    b.lsl(d, n, 4);
    b.sub(d, len, d);
    b.cbz(d, &whole);
    b.sub(n, n, 1);
    b.bind(&whole);
    xts_loop(&mut b, gb, dst, src, n);
    b.cbz(d, &fin);
    xts_steal(&mut b, gb, decrypt, dst, src, d);
    b.bind(&fin);
    xts_clear(&mut b);
    b.bind(&done);
    b.finish()
}

/// The SM4 CE set's kernels.
pub fn ce_functions(abi: Abi) -> Kernels<Aarch64> {
    let mut v = vec![Kernel::new(Role::ExpandKey, ce_expand_key(abi)?)];
    for m in [Mode::Ecb, Mode::Ctr, Mode::CbcDec, Mode::CfbDec] {
        v.push(Kernel::new(m.into(), ce_batch_mode(m, abi)?));
    }
    for m in Serial::ALL {
        v.push(Kernel::new(m.role(), ce_serial_mode(m, abi)?));
    }
    for fl in [Xts::Ieee, Xts::Gb] {
        for dec in [false, true] {
            v.push(Kernel::new(Role::xts(dec, fl == Xts::Gb), ce_xts(fl, dec, abi)?));
        }
    }
    for fl in [Xts::Ieee, Xts::Gb] {
        for dec in [false, true] {
            v.push(Kernel::new(Role::xts_unit(dec, fl == Xts::Gb), ce_xts_unit(fl, dec, abi)?));
        }
    }
    v.extend(aead::kernels(abi)?);
    Ok(v)
}

/// The fixed-size kernels of the CE set (the JIT's specialisations): XTS for a data-unit size (both directions,
/// both tweak conventions) and CTR for a message size; none for the hash kinds.
pub fn ce_fixed_functions(abi: Abi, fixed: Fixed) -> Kernels<Aarch64> {
    match fixed {
        Fixed::Xts(n) => {
            let mut v = Vec::new();
            for fl in [Xts::Ieee, Xts::Gb] {
                for dec in [false, true] {
                    v.push(Kernel::new(Role::xts(dec, fl == Xts::Gb), ce_xts_of(fl, dec, abi, Blocks::Fixed(n))?));
                }
            }
            Ok(v)
        }
        Fixed::Ctr(n) => Ok(vec![Kernel::new(Role::Ctr, ce_batch_mode_of(Mode::Ctr, abi, Blocks::Fixed(n))?)]),
        Fixed::Hash(_) => Ok(Vec::new()),
    }
}

/// Every SM4 function for aarch64: the CE set, then the NEON set.
pub fn functions(abi: Abi) -> Result<Vec<Function<Aarch64>>, GenError> {
    let mut v = ce_functions(abi)?;
    v.extend(neon::functions(abi)?);
    Ok(v.into_iter().map(|k| k.function).collect())
}

#[path = "aarch64_neon.rs"]
pub mod neon;

#[path = "aarch64_aead.rs"]
pub mod aead;
