//! SM4 on riscv64 with the scalar crypto extension Zksed (`sm4ed`, `sm4ks`) and Zbb (`rev8`); the vector
//! kernels (Zvksed, Zvkb, Zvkg) are in [`zvksed`].
//!
//! `sm4ed rd, rs1, rs2, bs` adds (xors) into `rs1` the round function's contribution of byte `bs` of `rs2`:
//! S-box, the linear layer `L`, rotated into place. Four of them, `bs = 0..3`, compute `X ^ T(Y)` for a whole
//! word. The instruction's byte order is that of a word loaded little-endian: with every state word loaded by
//! `lw` (no byte swap) and the round keys byte-swapped, the rounds give the standard result, and the output
//! words are stored with `sw` as they are. The round keys are kept in memory in the ABI's format (the numeric
//! big-endian word, stored little-endian), so a pair of them is loaded with `ld` and byte-swapped with one
//! `rev8`: the low half is then the odd key in `sm4ed` order and the high half (`srli 32`) the even one.
//! `sm4ed` reads only the low 32 bits of its sources and sign-extends its result, so nothing ever clears the
//! upper halves of the state registers.
//!
//! Round `i` overwrites the register holding `X(i)` with `X(i+4)`: `t = X(i+1) ^ X(i+2) ^ rk ^ X(i+3)`, then
//! four `sm4ed` into `X(i)`. After 32 rounds register `j` holds `X(32+j)`; the ciphertext `X35, X34, X33, X32`
//! is register 3, 2, 1, 0 stored at offsets 0, 4, 8, 12.
//!
//! Bottleneck: one round of one block is a chain of one `xor` and four dependent `sm4ed` (the last `xor` of
//! `t` with the newest word, then the accumulation into `X(i)`), so a single block is latency bound at about
//! 5 x 32 dependent operations. The parallel modes (ECB, CTR, CBC and CFB decryption) interleave four
//! independent blocks (16 state registers, the round-key pair, three temporaries) so that a core with two
//! or more ALUs able to run `sm4ed` is throughput bound at 7 operations per block-round plus 1.5 per round
//! for the keys shared by the four blocks, about 7.4 x 32 / 16 = 15 instructions per byte. The serial
//! modes (CBC and CFB encryption, CBC-MAC) split each round's four `sm4ed` into two chains of two (one of
//! them starting from zero) joined by an `xor`, four dependent operations per round instead of five.
//!
//! Constant time: data only reaches `xor`, `sm4ed`/`sm4ks` and stores; branches and addresses depend on
//! `nblocks`, the pointers and (CTR) nothing at all: the 128-bit counter increment is branch-free.

#[path = "riscv64_zvksed.rs"]
pub mod zvksed;

pub use super::Serial;
use super::{Mode, CK, FK};
use crate::plan::Trips;
use crate::role::{self, Kernel, Kernels, Role};
use crate::{Blocks, Fixed};
use asmgen::isa::riscv64::{mem, regs::*, Riscv64, RvFeature, X};
use asmgen::{Abi, Builder, Function, GenError, Label};

type B = Builder<Riscv64>;

/// The features of the scalar set.
pub const FEATURES: [RvFeature; 2] = [RvFeature::Zbb, RvFeature::Zksed];

/// Blocks in flight in the parallel modes.
pub const LANES: usize = 4;

// Register roles. Arguments are a0..a4; the state of block k is STATE[k] (word j of the block in STATE[k][j]
// before the rounds).
/// State registers of the four blocks in flight.
const STATE: [[X; 4]; LANES] = [[S0, S1, S2, S3], [S4, S5, S6, S7], [S8, S9, S10, S11], [T3, T4, T5, T6]];
/// A pair of round keys after `rev8`: odd key in the low half.
const KP: X = A5;
/// The even key of the pair (`KP >> 32`).
const KE: X = A6;
/// The end of the round keys (the loop bound).
const END: X = A7;
/// Round temporaries (block k uses `TMP[k % 3]`).
const TMP: [X; 3] = [T0, T1, T2];

/// `t = a ^ b ^ k ^ c` then `x ^= T(t)` with four `sm4ed`, for each block of a round, interleaved by three.
fn round(b: &mut B, blocks: &[[X; 4]], r: usize, key: X) {
    for chunk in (0..blocks.len()).collect::<Vec<_>>().chunks(TMP.len()) {
        for (&k, &t) in chunk.iter().zip(&TMP) {
            let w = blocks[k];
            b.xor(t, w[(r + 1) % 4], w[(r + 2) % 4]);
            b.xor(t, t, key);
            b.xor(t, t, w[(r + 3) % 4]);
        }
        for bs in 0..4 {
            for (&k, &t) in chunk.iter().zip(&TMP) {
                let d = blocks[k][r % 4];
                b.sm4ed(d, d, t, bs);
            }
        }
    }
}

/// The serial round: `t` as in [`round`], then two chains of two `sm4ed` (one from zero) and an `xor`.
fn round_serial(b: &mut B, w: [X; 4], r: usize, key: X) {
    let [t, u, _] = TMP;
    let d = w[r % 4];
    b.xor(t, w[(r + 1) % 4], w[(r + 2) % 4]);
    b.xor(t, t, key);
    b.xor(t, t, w[(r + 3) % 4]);
    b.sm4ed(d, d, t, 0);
    b.sm4ed(u, ZERO, t, 1);
    b.sm4ed(d, d, t, 2);
    b.sm4ed(u, u, t, 3);
    b.xor(d, d, u);
}

/// 32 rounds on `blocks`, the round keys at `rk` (restored afterwards): a loop of eight times four rounds,
/// two `ld` + `rev8` per four rounds for the keys.
fn rounds(b: &mut B, rk: X, blocks: &[[X; 4]], serial: bool) {
    let lp = b.label("rounds");
    b.comment(format_args!(
        "32 rounds on {} block(s): eight times four, the keys in byte-swapped pairs.",
        blocks.len()
    ));
    b.addi(END, rk, 128);
    b.bind(&lp);
    for pair in 0..2 {
        b.ld(KP, mem(rk, 8 * pair as i32));
        b.rev8(KP, KP);
        b.srli(KE, KP, 32);
        for (r, key) in [(2 * pair, KE), (2 * pair + 1, KP)] {
            if serial {
                round_serial(b, blocks[0], r, key);
            } else {
                round(b, blocks, r, key);
            }
        }
    }
    b.addi(rk, rk, 16);
    b.bne(rk, END, &lp);
    b.addi(rk, rk, -128);
}

/// Loads the 16 bytes at `base + off` into the words `w` (little-endian, as `sm4ed` wants them).
fn load_words(b: &mut B, w: [X; 4], base: X, off: i32) {
    for (j, &r) in w.iter().enumerate() {
        b.lw(r, mem(base, off + 4 * j as i32));
    }
}

struct Ctx {
    mode: Mode,
    rk: X,
    dst: X,
    src: X,
    /// ctr or iv (unused for ECB).
    extra: X,
}

/// The address of block `k`'s chaining input: `src[k-1]`, or the IV for `k = 0`.
fn prev(c: &Ctx, k: usize) -> (X, i32) {
    if k == 0 {
        (c.extra, 0)
    } else {
        (c.src, 16 * (k as i32 - 1))
    }
}

/// One batch of `n` blocks (1..=4): inputs, 32 rounds, outputs; pointers are not advanced.
fn batch(b: &mut B, c: &Ctx, n: usize) {
    let blocks = &STATE[..n];
    match c.mode {
        Mode::Ecb | Mode::CbcDec => {
            b.comment(format_args!("Load {n} block(s) as little-endian words."));
            for (k, &w) in blocks.iter().enumerate() {
                load_words(b, w, c.src, 16 * k as i32);
            }
        }
        Mode::CfbDec => {
            b.comment(format_args!("The cipher's inputs: the previous {n} ciphertext block(s) (the IV first)."));
            for (k, &w) in blocks.iter().enumerate() {
                let (base, off) = prev(c, k);
                load_words(b, w, base, off);
            }
        }
        Mode::Ctr => {
            let (hi, lo, carry) = (KP, KE, END);
            b.comment(format_args!("{n} counter block(s): (hi, lo) as integers, rev8 gives the little-endian words."));
            b.ld(hi, mem(c.extra, 0));
            b.ld(lo, mem(c.extra, 8));
            b.rev8(hi, hi);
            b.rev8(lo, lo);
            for &w in blocks {
                b.rev8(w[0], hi);
                b.srli(w[1], w[0], 32);
                b.rev8(w[2], lo);
                b.srli(w[3], w[2], 32);
                b.comment("128-bit increment, branch-free: the carry is (lo + 1 == 0).");
                b.addi(lo, lo, 1);
                b.sltiu(carry, lo, 1);
                b.add(hi, hi, carry);
            }
            b.rev8(hi, hi);
            b.rev8(lo, lo);
            b.sd(hi, mem(c.extra, 0));
            b.sd(lo, mem(c.extra, 8));
        }
    }
    rounds(b, c.rk, blocks, false);
    b.comment("Output words X35, X34, X33, X32, xored with the mode's mask.");
    if c.mode.chains() {
        b.comment("The last ciphertext block becomes the IV (read before any store: dst may be src).");
        b.ld(KP, mem(c.src, 16 * (n as i32 - 1)));
        b.ld(KE, mem(c.src, 16 * (n as i32 - 1) + 8));
    }
    // CBC decryption masks block k with src[k-1]: store the last block first so that dst == src works.
    let order: Vec<usize> = if c.mode == Mode::CbcDec { (0..n).rev().collect() } else { (0..n).collect() };
    for k in order {
        let w = blocks[k];
        for j in 0..4 {
            let v = w[3 - j];
            let off = 16 * k as i32 + 4 * j as i32;
            let mask = match c.mode {
                Mode::Ecb => None,
                Mode::Ctr | Mode::CfbDec => Some((c.src, off)),
                Mode::CbcDec => {
                    let (base, o) = prev(c, k);
                    Some((base, o + 4 * j as i32))
                }
            };
            if let Some((base, o)) = mask {
                b.lw(TMP[0], mem(base, o));
                b.xor(v, v, TMP[0]);
            }
            b.sw(v, mem(c.dst, off));
        }
    }
    if c.mode.chains() {
        b.sd(KP, mem(c.extra, 0));
        b.sd(KE, mem(c.extra, 8));
    }
}

fn new(name: &str, abi: Abi) -> B {
    B::new(&format!("asmgen_sm4_{name}_zksed"), abi, &FEATURES)
}

/// `asmgen_sm4_<mode>_zksed`: a batch mode, four blocks in flight, then the last 1..3 blocks one at a time.
pub fn batch_mode(mode: Mode, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    batch_mode_of(mode, abi, Blocks::Arg)
}

/// [`batch_mode`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`, the JIT's fixed-size CTR):
/// then `count / 4` batches of four in a counted loop (straight-line for one) and the last `count % 4` blocks
/// as one interleaved batch of that many; no length checks, no single-block loop.
pub fn batch_mode_of(mode: Mode, abi: Abi, blocks: Blocks) -> Result<Function<Riscv64>, GenError> {
    let mut b = B::new(&format!("asmgen_sm4_{}_zksed{}", mode.name(), blocks.suffix()), abi, &FEATURES);
    b.doc(mode.doc());
    b.doc(match blocks {
        Blocks::Arg => "Four blocks interleaved (sm4ed), the last 1..3 one at a time; dst may equal src.",
        Blocks::Fixed(_) => {
            "Four blocks interleaved (sm4ed) in a counted loop, the rest as one batch; dst may equal src."
        }
    });
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let (rk, dst, src, n, extra) = mode.params(&mut b);
    let extra = extra.unwrap_or(ZERO);
    let c = Ctx { mode, rk, dst, src, extra };
    Trips::new(blocks, n).batches(
        &mut b,
        LANES,
        "counted",
        &mut |b, step| {
            batch(b, &c, LANES);
            if step {
                b.addi(src, src, 16 * LANES as i32);
                b.addi(dst, dst, 16 * LANES as i32);
            }
        },
        |b, rest| {
            b.comment(format_args!("The last {rest} block(s)."));
            batch(b, &c, rest);
        },
        |b, n| {
            let (lp, tail, tail_loop, done) = (b.label("loop"), b.label("tail"), b.label("tail_loop"), b.label("done"));
            b.li(TMP[0], LANES as i32);
            b.bltu(n, TMP[0], &tail);
            b.align(4);
            b.bind(&lp);
            batch(b, &c, LANES);
            b.addi(src, src, 16 * LANES as i32);
            b.addi(dst, dst, 16 * LANES as i32);
            b.addi(n, n, -(LANES as i32));
            b.li(TMP[0], LANES as i32);
            b.bgeu(n, TMP[0], &lp);
            b.blank();
            b.bind(&tail);
            b.comment("The last 0..3 blocks, one at a time.");
            b.beqz(n, &done);
            b.bind(&tail_loop);
            batch(b, &c, 1);
            b.addi(src, src, 16);
            b.addi(dst, dst, 16);
            b.addi(n, n, -1);
            b.bnez(n, &tail_loop);
            b.bind(&done);
        },
    );
    b.finish()
}

/// `asmgen_sm4_{cbc_enc,cfb_enc,cbc_mac}_zksed`.
pub fn serial_mode(mode: Serial, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let mut b = new(mode.name(), abi);
    b.doc(mode.doc());
    b.doc("Serial: one block per 32 rounds, each round's sm4ed split into two chains.");
    let (rk, dst, src, n, state) = mode.params(&mut b);
    // The chaining value in memory order (word j at offset 4j), and the round state.
    let w = STATE[3];
    let (lp, done) = (b.label("loop"), b.label("done"));
    b.beqz(n, &done);
    b.comment("The chaining value as little-endian words.");
    load_words(&mut b, w, state, 0);
    b.align(4);
    b.bind(&lp);
    if mode != Serial::CfbEnc {
        b.comment("Input: chaining value ^ block.");
        for (j, &r) in w.iter().enumerate() {
            b.lw(TMP[0], mem(src, 4 * j as i32));
            b.xor(r, r, TMP[0]);
        }
    }
    rounds(&mut b, rk, &[w], true);
    b.comment("Output X35, X34, X33, X32 back into words 0..3 (swap 0 and 3, 1 and 2).");
    for (p, q) in [(0, 3), (1, 2)] {
        b.mv(TMP[0], w[p]);
        b.mv(w[p], w[q]);
        b.mv(w[q], TMP[0]);
    }
    if mode == Serial::CfbEnc {
        b.comment("c = E(c_prev) ^ p.");
        for (j, &r) in w.iter().enumerate() {
            b.lw(TMP[0], mem(src, 4 * j as i32));
            b.xor(r, r, TMP[0]);
        }
    }
    if let Some(dst) = dst {
        for (j, &r) in w.iter().enumerate() {
            b.sw(r, mem(dst, 4 * j as i32));
        }
        b.addi(dst, dst, 16);
    }
    b.addi(src, src, 16);
    b.addi(n, n, -1);
    b.bnez(n, &lp);
    for (j, &r) in w.iter().enumerate() {
        b.sw(r, mem(state, 4 * j as i32));
    }
    b.bind(&done);
    b.finish()
}

/// FK and CK as big-endian bytes, so that `lw` gives them in `sm4ks` order (byte-swapped words).
fn constants(b: &mut B) -> (Label, Label) {
    let fk: Vec<u8> = FK.iter().flat_map(|w| w.to_be_bytes()).collect();
    let ck: Vec<u8> = CK.iter().flat_map(|w| w.to_be_bytes()).collect();
    let fk = b.constant("sm4_fk_be", 4, "SM4 FK, big-endian words", &fk);
    let ck = b.constant("sm4_ck_be", 4, "SM4 CK[0..32], big-endian words", &ck);
    (fk, ck)
}

/// `asmgen_sm4_expand_key_zksed(rk_enc, rk_dec, key)`: the key schedule with `sm4ks`.
pub fn expand_key(abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let mut b = new("expand_key", abi);
    crate::doc_role(&mut b, Role::ExpandKey);
    b.doc("sm4ks: K = MK ^ FK, rk[i] = K[i+4] = K[i] ^ L'(S(K[i+1] ^ K[i+2] ^ K[i+3] ^ CK[i])), four sm4ks per key.");
    let [re, rd, key] = role::params(&mut b, Role::ExpandKey);
    let (fk, ck) = constants(&mut b);
    let k = [T3, T4, T5, T6];
    let (t, u, p, end) = (T0, T1, T2, A7);
    b.comment("K = MK ^ FK, little-endian words (sm4ks order).");
    b.lla(p, &fk);
    for (j, &r) in k.iter().enumerate() {
        b.lw(r, mem(key, 4 * j as i32));
        b.lw(t, mem(p, 4 * j as i32));
        b.xor(r, r, t);
    }
    b.lla(p, &ck);
    b.addi(end, p, 128);
    b.addi(rd, rd, 124);
    let lp = b.label("loop");
    b.align(4);
    b.bind(&lp);
    for j in 0..4 {
        b.comment(format_args!("rk[4i+{j}]"));
        let d = k[j];
        b.lw(t, mem(p, 4 * j as i32));
        b.xor(t, t, k[(j + 1) % 4]);
        b.xor(t, t, k[(j + 2) % 4]);
        b.xor(t, t, k[(j + 3) % 4]);
        for bs in 0..4 {
            b.sm4ks(d, d, t, bs);
        }
        b.comment("Back to the numeric word: byte-swap (rev8 puts it in the high half).");
        b.rev8(u, d);
        b.srli(u, u, 32);
        b.sw(u, mem(re, 4 * j as i32));
        b.sw(u, mem(rd, -4 * j as i32));
    }
    b.addi(p, p, 16);
    b.addi(re, re, 16);
    b.addi(rd, rd, -16);
    b.bne(p, end, &lp);
    b.comment("Clear the key material from the registers.");
    for r in [k[0], k[1], k[2], k[3], t, u] {
        b.li(r, 0);
    }
    b.finish()
}

/// The scalar (Zksed) set's kernels.
pub fn functions_zksed(abi: Abi) -> Kernels<Riscv64> {
    let mut v = vec![Kernel::new(Role::ExpandKey, expand_key(abi)?)];
    for m in Mode::ALL {
        v.push(Kernel::new(m.into(), batch_mode(m, abi)?));
    }
    for m in Serial::ALL {
        v.push(Kernel::new(m.role(), serial_mode(m, abi)?));
    }
    Ok(v)
}

/// The fixed-size kernels of the scalar set (the JIT's specialisations): CTR for a message size; none for XTS
/// (the set has no XTS kernel) or the hash kinds.
pub fn fixed_functions_zksed(abi: Abi, fixed: Fixed) -> Kernels<Riscv64> {
    match fixed {
        Fixed::Ctr(n) => Ok(vec![Kernel::new(Role::Ctr, batch_mode_of(Mode::Ctr, abi, Blocks::Fixed(n))?)]),
        Fixed::Xts(_) | Fixed::Hash(_) => Ok(Vec::new()),
    }
}

/// Every SM4 function for riscv64: the scalar set (`_zksed`) and the vector set (`_zvksed`).
pub fn functions(abi: Abi) -> Result<Vec<Function<Riscv64>>, GenError> {
    let mut v = functions_zksed(abi)?;
    v.extend(zvksed::functions(abi)?);
    Ok(v.into_iter().map(|k| k.function).collect())
}
