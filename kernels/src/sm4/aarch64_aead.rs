//! SM4-GCM and SM4-CCM payload kernels with the SM4 extension (`_ce`).
//!
//! # GCM (`asmgen_sm4_gcm_{enc,dec}_ce`, FEAT_SM4 + FEAT_PMULL)
//!
//! CTR with `inc32`: the counter block is kept as big-endian words (`rev32` of the block), so its last word is
//! the 32-bit counter in lane 3 and the eight blocks of a batch are `add .4s` of (0, 0, 0, 1) apart (the
//! increment wraps mod 2^32 and never touches the first 12 bytes, so one call may cross the wrap). Eight blocks are in flight; the 32 rounds of
//! batch i are interleaved with the PMULL GHASH of batch i-1's ciphertext (read back from `dst`): after each
//! of the eight `sm4e` steps, one ciphertext block is byte-reflected and multiplied by its power of H
//! (Karatsuba, powers and half-sums loaded from the table; the GHASH helpers of
//! [`crate::ghash::aarch64`]), and one reduction follows the rounds. The first batch runs without GHASH work,
//! the last batch's GHASH runs alone after the loop; the remaining k < 8 blocks go one at a time, hashed
//! against H^k..H^1 with one reduction. Modelled (llvm-mca-19, Neoverse N2; no hardware measurement): 102
//! cycles per 128 bytes (0.80 c/B; CTR then GHASH separately model at 0.59 + 0.34). The floor is the V0 pipe,
//! which in that model alone issues both `sm4e` (64 per batch) and `pmull` (26 per batch): 90 cycles.
//!
//! Decryption is the same function built the other way: GHASH absorbs the ciphertext it reads, so every batch
//! hashes its own `src` blocks during its rounds (before its stores: `dst == src` is fine), with no first
//! batch without hashing and no drain; the single-block tail hashes the loaded block.
//!
//! # CCM (`asmgen_sm4_ccm_{enc,dec}_ce`, FEAT_SM4)
//!
//! CBC-MAC is serial; each pass puts the MAC block and one counter block (128-bit big-endian increment)
//! through the same eight `sm4e` steps, so the CTR keystream rides on the MAC's latency. Decryption needs the
//! plaintext first: its MAC runs one block behind (a CTR-only pass first, a MAC-only pass last).
//! Modelled (Neoverse N2): 48 cycles per block (3.0 c/B), the latency of eight dependent `sm4e`.
//!
//! Constant time: secret data only reaches `sm4e`, `pmull` and vector arithmetic; branches and addresses
//! depend on lengths only.

use super::{load_rev, load_rk, B, REV, RK, ST};
use crate::arch::aarch64::addr;
use crate::ghash::aarch64::{load_constants, mul_acc, reduce_acc, reflect_block, Acc};
use crate::role::{self, Role};
use asmgen::isa::aarch64::{regs::*, A64Feature, Aarch64, V, X};
use asmgen::{Abi, Function, GenError};

/// 32 rounds on `regs` (blocks as big-endian words), one `sm4e` step across every block at a time; `between(k)`
/// is emitted after step k. Then the byte reversal into memory order.
fn rounds_with(b: &mut B, regs: &[V], mut between: impl FnMut(&mut B, usize)) {
    b.comment(format_args!("32 rounds on {} block(s): 8 x sm4e each, interleaved.", regs.len()));
    for (k, rk) in RK.into_iter().enumerate() {
        for &r in regs {
            b.sm4e(r, rk);
        }
        between(b, k);
    }
    b.comment("X32..X35 -> X35..X32 big-endian: a byte reversal.");
    for &r in regs {
        b.tbl_16b(r, r, REV);
    }
}

// ------------------------------------------------------------------------------------------------
// GCM
// ------------------------------------------------------------------------------------------------

/// GCM: the counter block as big-endian words, and (0, 0, 0, 1) as words.
const CB: V = V(9);
const ONE: V = V(10);
/// GCM: the GHASH accumulation (v11-v13, v24, v29 with the folding constant in v15) and the state.
const ACC: Acc = Acc { lo: V(11), hi: V(12), mid: V(13), polyc: V(15), t: V(24), zero: V(29) };
const S: V = V(14);
/// GCM: the ciphertext block being hashed, its power of H and that power's half-sum.
const XB: V = V(25);
const HT: V = V(26);
const HKT: V = V(27);
/// GCM: plaintext, four consecutive registers (free once the reduction is done).
const PT: [V; 4] = [V(24), V(25), V(26), V(27)];
/// GCM: scratch for the polynomial constant, the single-block plaintext.
const POLYR: V = V(28);
const P1: V = V(28);

/// General-purpose registers of the GCM kernel.
struct Gcm {
    table: X,
    dst: X,
    src: X,
    /// The ciphertext still to be hashed.
    gp: X,
    /// Tail: the table entry of the next power.
    tp: X,
}

/// GHASH step `j` of eight: block j of the batch at `gp` times H^(8-j); block 0 first absorbs the state.
fn ghash_step(b: &mut B, g: &Gcm, j: usize) {
    let off = 16 * (7 - j) as i32;
    b.ldr_post(XB, g.gp, 16);
    b.ldr(HT, g.table, off);
    b.ldr(HKT, g.table, 128 + off);
    b.tbl_16b(XB, XB, REV);
    if j == 0 {
        b.eor_16b(XB, XB, S);
    }
    mul_acc(b, &ACC, XB, HT, HKT, j == 0);
}

/// One batch of eight: counter blocks, rounds (with the GHASH of the previous batch when `hash`), xor with the
/// plaintext, store.
fn gcm_batch(b: &mut B, g: &Gcm, hash: bool) {
    b.comment(if hash {
        "Eight counter blocks; their rounds interleaved with the GHASH of the previous eight ciphertext blocks."
    } else {
        "Eight counter blocks (the first batch: nothing to hash yet)."
    });
    b.mov_16b(ST[0], CB);
    for j in 1..8 {
        b.add_4s(ST[j], ST[j - 1], ONE);
    }
    b.add_4s(CB, ST[7], ONE);
    rounds_with(b, &ST, |b, k| {
        if hash {
            ghash_step(b, g, k);
        }
    });
    if hash {
        reduce_acc(b, &ACC, S);
    }
    b.comment("Ciphertext = keystream ^ plaintext, four blocks at a time.");
    for half in ST.chunks(4) {
        b.ld1_4x16b_post(PT[0], g.src);
        for (&r, &p) in half.iter().zip(&PT) {
            b.eor_16b(r, r, p);
        }
        b.st1_4x16b_post(half[0], g.dst);
    }
}

/// `asmgen_sm4_gcm_{enc,dec}_ce(rk_enc, htable, dst, src, nblocks, state)`: GHASH over the ciphertext (`dst`
/// when encrypting, `src` when decrypting).
pub fn gcm(decrypt: bool, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let dir = if decrypt { "dec" } else { "enc" };
    let mut b = B::new(&format!("asmgen_sm4_gcm_{dir}_ce"), abi, &[A64Feature::Sm4, A64Feature::Pmull]);
    crate::doc_role(&mut b, Role::gcm(decrypt));
    b.doc(if decrypt {
        "Eight blocks in flight, the sm4e rounds of each batch interleaved with the PMULL GHASH of its own input."
    } else {
        "Eight blocks in flight, the sm4e rounds of each batch interleaved with the PMULL GHASH of the previous batch."
    });
    let [rk, table, dst, src, n, state] = role::params(&mut b, Role::gcm(decrypt));
    let g = Gcm { table, dst, src, gp: X12, tp: X13 };
    let done = b.label("done");
    b.cbz(n, &done);
    load_rk(&mut b, rk);
    load_rev(&mut b, X9, REV);
    load_constants(&mut b, X9, POLYR, ACC.polyc, ACC.zero);
    let mut one = [0u8; 16];
    one[12] = 1;
    let l = b.constant("sm4_gcm_one", 16, "GCM inc32: (0, 0, 0, 1) as 32-bit lanes", &one);
    addr(&mut b, X9, &l);
    b.ldr(ONE, X9, 0);
    b.comment("The counter block as big-endian words (lane 3: the 32-bit counter); the GHASH state reflected.");
    b.ldp(CB, S, state, 0);
    b.rev32_16b(CB, CB);
    reflect_block(&mut b, S);
    b.mov(g.gp, if decrypt { src } else { dst });
    gcm_batches(&mut b, &g, n, decrypt);
    gcm_tail(&mut b, &g, n, decrypt);
    b.rev32_16b(CB, CB);
    reflect_block(&mut b, S);
    b.stp(CB, S, state, 0);
    b.bind(&done);
    b.finish()
}

/// The batches of eight; `n` ends below 8. Encryption: the first without hashing, each next one with the GHASH
/// of the previous, the last batch's GHASH alone. Decryption: each with the GHASH of its own ciphertext.
fn gcm_batches(b: &mut B, g: &Gcm, n: X, decrypt: bool) {
    let lp8 = b.label("loop8");
    let drain = b.label("drain");
    let tail = b.label("tail");
    b.cmp(n, 8);
    b.b_lo(&tail);
    if !decrypt {
        gcm_batch(b, g, false);
        b.sub(n, n, 8);
        b.cmp(n, 8);
        b.b_lo(&drain);
    }
    b.align(4);
    b.bind(&lp8);
    gcm_batch(b, g, true);
    b.sub(n, n, 8);
    b.cmp(n, 8);
    b.b_hs(&lp8);
    if !decrypt {
        b.blank();
        b.bind(&drain);
        b.comment("GHASH of the last batch of eight.");
        for j in 0..8 {
            ghash_step(b, g, j);
        }
        reduce_acc(b, &ACC, S);
    }
    b.blank();
    b.bind(&tail);
}

/// The last k < 8 blocks one at a time; their ciphertext times H^k..H^1, one reduction.
fn gcm_tail(b: &mut B, g: &Gcm, n: X, decrypt: bool) {
    let tail_loop = b.label("tail_loop");
    let end = b.label("end");
    b.comment("The last k < 8 blocks one at a time; their ciphertext times H^k..H^1, one reduction.");
    b.cbz(n, &end);
    b.add_lsl(g.tp, g.table, n, 4);
    b.sub(g.tp, g.tp, 16);
    for r in [ACC.lo, ACC.hi, ACC.mid] {
        b.movi_zero(r);
    }
    b.bind(&tail_loop);
    b.mov_16b(ST[0], CB);
    b.add_4s(CB, CB, ONE);
    rounds_with(b, &ST[..1], |_, _| {});
    b.ld1_16b_post(P1, g.src);
    b.eor_16b(ST[0], ST[0], P1);
    b.st1_16b_post(ST[0], g.dst);
    b.tbl_16b(XB, if decrypt { P1 } else { ST[0] }, REV);
    b.eor_16b(XB, XB, S);
    b.movi_zero(S);
    b.ldr(HKT, g.tp, 128);
    b.ldr_post(HT, g.tp, -16);
    mul_acc(b, &ACC, XB, HT, HKT, false);
    b.subs(n, n, 1);
    b.b_ne(&tail_loop);
    reduce_acc(b, &ACC, S);
    b.bind(&end);
}

// ------------------------------------------------------------------------------------------------
// CCM
// ------------------------------------------------------------------------------------------------

/// CCM: the MAC.
const MAC: V = V(9);
/// CCM: the input block (plaintext or ciphertext) and, for decryption, the previous plaintext block.
const IN: V = V(24);
const PREV: V = V(25);

/// The counter block (hi, lo) into `r` as big-endian words; then the 128-bit increment.
fn ctr_block(b: &mut B, r: V, hi: X, lo: X) {
    b.ins_d_x(r, 0, hi);
    b.ins_d_x(r, 1, lo);
    b.rev64_4s(r, r);
    b.adds(lo, lo, 1);
    b.adc(hi, hi, XZR);
}

/// `asmgen_sm4_ccm_{enc,dec}_ce(rk_enc, dst, src, nblocks, ctr, mac)`.
pub fn ccm(enc: bool, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let dir = if enc { "enc" } else { "dec" };
    let mut b = B::new(&format!("asmgen_sm4_ccm_{dir}_ce"), abi, &[A64Feature::Sm4]);
    crate::doc_role(&mut b, Role::ccm(!enc));
    b.doc(format_args!(
        "The MAC block and a counter block share each pass of sm4e rounds{}.",
        if enc { "" } else { " (the MAC one block behind)" }
    ));
    let [rk, dst, src, n, ctr, mac] = role::params(&mut b, Role::ccm(!enc));
    let (hi, lo) = (X10, X11);
    let (m, c) = (ST[0], ST[1]);
    let done = b.label("done");
    let lp = b.label("loop");
    b.cbz(n, &done);
    load_rk(&mut b, rk);
    load_rev(&mut b, X9, REV);
    b.ldr(MAC, mac, 0);
    b.comment("The counter as two integers (hi, lo).");
    b.ldp(hi, lo, ctr, 0);
    b.rev(hi, hi);
    b.rev(lo, lo);
    if enc {
        b.align(4);
        b.bind(&lp);
        b.ld1_16b_post(IN, src);
        b.comment("MAC ^ plaintext and the counter block through the same rounds.");
        b.eor_16b(MAC, MAC, IN);
        b.rev32_16b(m, MAC);
        ctr_block(&mut b, c, hi, lo);
        rounds_with(&mut b, &[m, c], |_, _| {});
        b.mov_16b(MAC, m);
        b.eor_16b(c, c, IN);
        b.st1_16b_post(c, dst);
        b.subs(n, n, 1);
        b.b_ne(&lp);
    } else {
        let last = b.label("last");
        b.comment("First block: CTR only.");
        b.ld1_16b_post(IN, src);
        ctr_block(&mut b, c, hi, lo);
        rounds_with(&mut b, &[c], |_, _| {});
        b.eor_16b(PREV, c, IN);
        b.st1_16b_post(PREV, dst);
        b.subs(n, n, 1);
        b.b_eq(&last);
        b.align(4);
        b.bind(&lp);
        b.ld1_16b_post(IN, src);
        b.comment("MAC ^ previous plaintext and the next counter block through the same rounds.");
        b.eor_16b(MAC, MAC, PREV);
        b.rev32_16b(m, MAC);
        ctr_block(&mut b, c, hi, lo);
        rounds_with(&mut b, &[m, c], |_, _| {});
        b.mov_16b(MAC, m);
        b.eor_16b(PREV, c, IN);
        b.st1_16b_post(PREV, dst);
        b.subs(n, n, 1);
        b.b_ne(&lp);
        b.bind(&last);
        b.comment("Last: MAC only.");
        b.eor_16b(MAC, MAC, PREV);
        b.rev32_16b(m, MAC);
        rounds_with(&mut b, &[m], |_, _| {});
        b.mov_16b(MAC, m);
    }
    b.str(MAC, mac, 0);
    b.rev(hi, hi);
    b.rev(lo, lo);
    b.stp(hi, lo, ctr, 0);
    b.bind(&done);
    b.finish()
}

/// The AEAD kernels: GCM and CCM encryption and decryption.
pub fn kernels(abi: Abi) -> crate::Kernels<Aarch64> {
    use crate::{Kernel, Role};
    Ok(vec![
        Kernel::new(Role::GcmEnc, gcm(false, abi)?),
        Kernel::new(Role::GcmDec, gcm(true, abi)?),
        Kernel::new(Role::CcmEnc, ccm(true, abi)?),
        Kernel::new(Role::CcmDec, ccm(false, abi)?),
    ])
}
