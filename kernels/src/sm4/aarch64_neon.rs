//! SM4 with plain Advanced SIMD (`_neon`: Neoverse N1, Cortex-A7x; no SM4 extension).
//!
//! Blocks are transposed by `ld4`/`st4`: register j of a group holds word j of four blocks (byte-swapped to
//! its big-endian value with `rev32`). Two groups, eight blocks, are in flight (v0-v3, v4-v7). Round `i`
//! overwrites the register holding X(i) with X(i+4), so the roles rotate back every four rounds and the round
//! loop runs eight times over four unrolled rounds, loading each round key with `ld1r` (one word to all lanes).
//!
//! The S-box: the 256-byte table lives in v16-v31. `tbl` looks a byte up in the first 64 bytes (indices of 64
//! and up give 0); the index is lowered by 64 and `tbx` looks it up in the next 64 bytes (an index out of
//! range, including those that wrapped below zero, leaves the byte unchanged), and so on: four lookups and
//! three subtractions, every byte always through all four, so timing does not depend on the data.
//!
//! The linear layer `L(B) = B ^ rol(B, 2) ^ rol(B, 10) ^ rol(B, 18) ^ rol(B, 24)` is computed as
//! `B ^ rol(B, 24) ^ rol(B ^ rol(B, 8) ^ rol(B, 16), 2)`: byte rotations by `tbl` (8, 24) and `rev32 .8h` (16),
//! the rotation by 2 as `shl` + `sri`. A round is 20 vector ops per group: 3 xor, S-box 7 (four of them
//! 4-register table lookups), L 10. Bottleneck (modelled with llvm-mca-19 for Neoverse N1, no hardware
//! measurement): the two vector pipes are saturated (the 4-register `tbl`/`tbx` are multi-uop), about 148
//! cycles per four rounds on eight blocks, 9.5 cycles/byte for CTR; the round's dependency chain is hidden by
//! the two groups (32 registers hold two groups, the table and the round's temporaries, not three).
use super::{Mode, Serial, B};
use crate::arch::aarch64::addr;
use crate::plan::Trips;
use crate::role::{self, Role};
use crate::sm4::{CK, FK, SBOX};
use crate::{Blocks, Fixed};
use asmgen::isa::aarch64::{regs::*, Aarch64, V, X};
use asmgen::{Abi, Function, GenError, Label};

/// The two groups.
const G: [[V; 4]; 2] = [[V(0), V(1), V(2), V(3)], [V(4), V(5), V(6), V(7)]];
/// Round temporaries.
const T0: V = V(8);
const T1: V = V(9);
const T2: V = V(10);
/// The round key, in every lane.
const RKB: V = V(11);
/// 64 in every byte (the S-box index step), and the `tbl` controls rotating each word left by 8 and 24.
const C64: V = V(12);
const ROL8: V = V(13);
const ROL24: V = V(14);
/// The S-box, 64 bytes per four registers.
const SB: [V; 4] = [V(16), V(20), V(24), V(28)];
/// After the rounds, v8-v15 hold the output groups.
const OUT: [[V; 4]; 2] = [[V(8), V(9), V(10), V(11)], [V(12), V(13), V(14), V(15)]];

/// `tbl` control rotating each little-endian word left by `8*n` bits: result byte m = byte (m - n) mod 4.
fn rol_bytes(n: usize) -> [u8; 16] {
    std::array::from_fn(|i| (4 * (i / 4) + (i % 4 + 4 - n) % 4) as u8)
}

/// The constants of the NEON kernels.
struct Consts {
    sbox: Label,
    rol: Label,
}

impl Consts {
    fn new(b: &mut B) -> Consts {
        let mut rol = rol_bytes(1).to_vec();
        rol.extend_from_slice(&rol_bytes(3));
        Consts {
            sbox: b.constant("sm4_sbox", 16, "the S-box of GB/T 32907-2016", &SBOX),
            rol: b.constant("sm4_rol8_rol24", 16, "tbl: rotate each word left by 8, then by 24", &rol),
        }
    }

    /// Loads the S-box into v16-v31 (uses x9).
    fn load_sbox(&self, b: &mut B) {
        b.comment("The S-box in v16-v31.");
        addr(b, X9, &self.sbox);
        for r in SB {
            b.ld1_4x16b_post(r, X9);
        }
    }

    /// Loads the round constants C64, ROL8, ROL24 (uses x9).
    fn load_round(&self, b: &mut B) {
        b.movi_16b(C64, 64);
        addr(b, X9, &self.rol);
        b.ldp(ROL8, ROL24, X9, 0);
    }
}

/// `t = S(t)` on every byte, result in `d` (`t` clobbered): `tbl` then three `tbx`, the index lowered by 64
/// between them.
fn sbox(b: &mut B, d: V, t: V) {
    b.tbl4_16b(d, SB[0], t);
    for &q in &SB[1..] {
        b.sub_16b(t, t, C64);
        b.tbx4_16b(d, q, t);
    }
}

/// One round on a group: `x[0] ^= L(S(x[1] ^ x[2] ^ x[3] ^ rk))`.
fn round(b: &mut B, x: [V; 4]) {
    b.eor_16b(T0, x[1], x[2]);
    b.eor_16b(T0, T0, RKB);
    b.eor_16b(T0, T0, x[3]);
    sbox(b, T1, T0);
    b.eor_16b(x[0], x[0], T1);
    b.tbl_16b(T0, T1, ROL8);
    b.eor_16b(T0, T0, T1);
    b.rev32_8h(T2, T1);
    b.eor_16b(T0, T0, T2);
    b.tbl_16b(T2, T1, ROL24);
    b.eor_16b(x[0], x[0], T2);
    b.shl_4s(T2, T0, 2);
    b.sri_4s(T2, T0, 30);
    b.eor_16b(x[0], x[0], T2);
}

/// The 32 rounds on `groups` with the round keys at `rk`: eight times four unrolled rounds (uses x14, x15).
fn rounds(b: &mut B, groups: &[[V; 4]], rk: X) {
    b.comment(format_args!(
        "32 rounds on {} blocks: 8 x 4 unrolled rounds, 20 vector ops per round and group.",
        4 * groups.len()
    ));
    b.mov(X14, rk);
    b.movz(X15, 8);
    let lp = b.label("rounds");
    b.align(4);
    b.bind(&lp);
    for j in 0..4 {
        b.comment(format_args!(
            "round 4i+{j}: X{j} ^= T(X{} ^ X{} ^ X{} ^ rk[4i+{j}])",
            (j + 1) % 4,
            (j + 2) % 4,
            (j + 3) % 4
        ));
        b.ld1r_4s_post(RKB, X14);
        for g in groups {
            round(b, [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]]);
        }
    }
    b.subs(X15, X15, 1);
    b.b_ne(&lp);
}

/// Emits `f(i)` for the blocks `i = 0..7` of a partial batch while `i < n` (`n` is 1..7 at run time).
fn per_block(b: &mut B, n: X, f: &dyn Fn(&mut B, usize)) {
    let end = b.label("blocks_done");
    for i in 0..7 {
        if i > 0 {
            b.cmp(n, i as i32);
            b.b_ls(&end);
        }
        f(b, i);
    }
    b.bind(&end);
}

/// How many blocks a batch holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fill {
    /// Eight.
    Full,
    /// `n`, 1..7 at run time.
    Partial,
    /// 1..7, known when the kernel is generated (fixed-size kernels).
    Known(usize),
}

impl Fill {
    /// The groups of four the batch's blocks occupy (a known batch of at most four runs one group).
    fn groups(self) -> usize {
        match self {
            Fill::Known(k) if k <= 4 => 1,
            _ => 2,
        }
    }
}

/// Emits `f(i)` for each block `i` a partial batch holds: behind branches on `n` ([`Fill::Partial`]), or for
/// `i < k` ([`Fill::Known`]).
fn each_block(b: &mut B, n: X, fill: Fill, f: &dyn Fn(&mut B, usize)) {
    match fill {
        Fill::Known(k) => (0..k).for_each(|i| f(b, i)),
        _ => per_block(b, n, f),
    }
}

/// Loads the first `k` blocks at `p` (post-increment) into the groups `regs`: whole groups with `ld4`, then
/// one lane per block.
fn load_known(b: &mut B, regs: &[[V; 4]; 2], k: usize, p: X) {
    for g in &regs[..k / 4] {
        b.ld4_4s_post(g[0], p);
    }
    for i in 4 * (k / 4)..k {
        lane_load(b, regs, i, p);
    }
}

/// Loads block `i` of a batch into lane `i % 4` of the group `regs[i / 4]`.
fn lane_load(b: &mut B, regs: &[[V; 4]; 2], i: usize, p: X) {
    b.ld4_s_post(regs[i / 4][0], (i % 4) as i32, p);
}

/// The general-purpose registers of a batch kernel.
struct Ctx {
    mode: Mode,
    rk: X,
    dst: X,
    src: X,
    n: X,
    iv: X,
    hi: X,
    lo: X,
    c: Consts,
    inc: Label,
}

/// CTR inputs for the blocks of `groups` groups (eight, or four): (hi, lo + j) with the 128-bit carry computed
/// lane-wise (`cmhi` finds the lanes whose low half wrapped), split into transposed words with `uzp1`/`uzp2`.
fn ctr_inputs(b: &mut B, x: &Ctx, groups: usize) {
    let (bl, bh) = (V(10), V(11));
    let inc = [V(12), V(13), V(14), V(15)];
    b.comment("Counter blocks ctr + 0..7: 64-bit lane adds, carries by compare, words split by uzp.");
    addr(b, X9, &x.inc);
    b.ld1_4x16b_post(inc[0], X9);
    b.dup_2d_x(bl, x.lo);
    b.dup_2d_x(bh, x.hi);
    for (gi, g) in G[..groups].iter().enumerate().rev() {
        // lo + j for the group's blocks in g[0], g[1]; hi + carry in g[2], g[3].
        b.add_2d(g[0], bl, inc[2 * gi]);
        b.add_2d(g[1], bl, inc[2 * gi + 1]);
        b.cmhi_2d(V(8), bl, g[0]);
        b.cmhi_2d(V(9), bl, g[1]);
        b.sub_2d(g[2], bh, V(8));
        b.sub_2d(g[3], bh, V(9));
        b.uzp1_4s(V(8), g[0], g[1]); // X3: low words of lo
        b.uzp2_4s(V(9), g[0], g[1]); // X2: high words of lo
        b.uzp1_4s(g[1], g[2], g[3]); // X1: low words of hi
        b.uzp2_4s(g[0], g[2], g[3]); // X0: high words of hi
        b.mov_16b(g[2], V(9));
        b.mov_16b(g[3], V(8));
    }
}

/// One batch: eight blocks, the last `n` (1..7), or a known number of them (see [`Fill`]; a known batch of at
/// most four runs the rounds on one group only).
fn batch(b: &mut B, x: &Ctx, fill: Fill) {
    let groups = &G[..fill.groups()];
    b.comment(match fill {
        Fill::Full => "Eight blocks.".to_string(),
        Fill::Partial => "The last 1..7 blocks, one lane at a time.".to_string(),
        Fill::Known(k) => format!("The last {k} blocks."),
    });
    cipher_inputs(b, x, fill, groups);
    x.c.load_round(b);
    rounds(b, groups, x.rk);
    b.comment("Output words X35, X34, X33, X32 into v8-v15 (byte-swapped), xored with the mode's operand.");
    mode_operands(b, x, fill);
    for (g, o) in groups.iter().zip(&OUT) {
        for j in 0..4 {
            if x.mode == Mode::Ecb {
                b.rev32_16b(o[j], g[3 - j]);
            } else {
                b.rev32_16b(g[3 - j], g[3 - j]);
                b.eor_16b(o[j], o[j], g[3 - j]);
            }
        }
    }
    chain_and_store(b, x, fill);
    if x.mode == Mode::Ctr {
        advance_counter(b, x, fill);
    }
}

/// The cipher's inputs of a batch into `groups`, transposed, as big-endian words: counter blocks (CTR), the
/// source blocks (ECB, CBC), or the IV and the source blocks but the last (CFB).
fn cipher_inputs(b: &mut B, x: &Ctx, fill: Fill, groups: &[[V; 4]]) {
    let p = X12;
    let q = X13;
    let full = fill == Fill::Full;
    b.mov(p, x.src);
    match x.mode {
        Mode::Ctr => ctr_inputs(b, x, groups.len()),
        Mode::Ecb | Mode::CbcDec => match fill {
            Fill::Full => {
                b.ld4_4s_post(G[0][0], p);
                b.ld4_4s_post(G[1][0], p);
            }
            Fill::Known(k) => load_known(b, &G, k, p),
            Fill::Partial => per_block(b, x.n, &|b, i| lane_load(b, &G, i, p)),
        },
        Mode::CfbDec => {
            b.comment("Cipher inputs: iv, src[0], src[1], ...");
            b.mov(q, x.iv);
            b.ld4_s_post(G[0][0], 0, q);
            if full {
                for i in 1..4 {
                    lane_load(b, &G, i, p);
                }
                b.ld4_4s_post(G[1][0], p);
            } else {
                each_block(b, x.n, fill, &|b, i| {
                    if i > 0 {
                        lane_load(b, &G, i, p)
                    }
                });
            }
        }
    }
    if x.mode != Mode::Ctr {
        b.comment("Big-endian words.");
        for g in groups {
            for &r in g {
                b.rev32_16b(r, r);
            }
        }
    }
}

/// The operand the mode xors into the cipher's output, transposed, into [`OUT`]: the source blocks (CTR, CFB)
/// or the IV and the source blocks but the last (CBC); nothing for ECB.
fn mode_operands(b: &mut B, x: &Ctx, fill: Fill) {
    let p = X12;
    let q = X13;
    let full = fill == Fill::Full;
    b.mov(p, x.src);
    match x.mode {
        Mode::Ecb => {}
        Mode::Ctr | Mode::CfbDec => match fill {
            Fill::Full => {
                b.ld4_4s_post(OUT[0][0], p);
                b.ld4_4s_post(OUT[1][0], p);
            }
            Fill::Known(k) => load_known(b, &OUT, k, p),
            Fill::Partial => per_block(b, x.n, &|b, i| lane_load(b, &OUT, i, p)),
        },
        Mode::CbcDec => {
            b.mov(q, x.iv);
            b.ld4_s_post(OUT[0][0], 0, q);
            if full {
                for i in 1..4 {
                    lane_load(b, &OUT, i, p);
                }
                b.ld4_4s_post(OUT[1][0], p);
            } else {
                each_block(b, x.n, fill, &|b, i| {
                    if i > 0 {
                        lane_load(b, &OUT, i, p)
                    }
                });
            }
        }
    }
}

/// The chaining modes' new IV (the last ciphertext block), then the batch's output blocks to `dst`.
fn chain_and_store(b: &mut B, x: &Ctx, fill: Fill) {
    let p = X12;
    if matches!(x.mode, Mode::CbcDec | Mode::CfbDec) {
        b.comment("The last ciphertext block becomes the IV (read before any store: dst may be src).");
        match fill {
            Fill::Full => b.ldr(V(0), x.src, 112),
            Fill::Known(k) => b.ldr(V(0), x.src, 16 * (k as i32 - 1)),
            Fill::Partial => {
                b.add_lsl(p, x.src, x.n, 4);
                b.sub(p, p, 16);
                b.ldr(V(0), p, 0)
            }
        };
        b.str(V(0), x.iv, 0);
    }
    match fill {
        Fill::Full => {
            b.st4_4s_post(OUT[0][0], x.dst);
            b.st4_4s_post(OUT[1][0], x.dst);
        }
        Fill::Known(k) => {
            for o in &OUT[..k / 4] {
                b.st4_4s_post(o[0], x.dst);
            }
            for i in 4 * (k / 4)..k {
                b_st4_lane(b, i, x.dst);
            }
        }
        Fill::Partial => per_block(b, x.n, &|b, i| b_st4_lane(b, i, x.dst)),
    }
}

/// CTR: the counter (hi, lo) advanced past the batch, the carry crossing into `hi`.
fn advance_counter(b: &mut B, x: &Ctx, fill: Fill) {
    let p = X12;
    match fill {
        Fill::Full => {
            b.adds(x.lo, x.lo, 8);
            b.adc(x.hi, x.hi, XZR);
        }
        Fill::Known(k) => {
            b.adds(x.lo, x.lo, k as i32);
            b.adc(x.hi, x.hi, XZR);
        }
        Fill::Partial => {
            let nc = b.label("no_carry");
            b.add(p, x.lo, x.n);
            b.cmp(p, x.lo);
            b.b_hs(&nc);
            b.add(x.hi, x.hi, 1);
            b.bind(&nc);
            b.mov(x.lo, p);
        }
    }
}

fn b_st4_lane(b: &mut B, i: usize, dst: X) {
    b.st4_s_post(OUT[i / 4][0], (i % 4) as i32, dst);
}

/// `asmgen_sm4_<mode>_neon`: ECB, CTR, CBC or CFB decryption, eight blocks in flight.
pub fn batch_mode(mode: Mode, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    batch_mode_of(mode, abi, Blocks::Arg)
}

/// [`batch_mode`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`, the JIT's fixed-size CTR):
/// then no zero check, `count / 8` batches in a counted loop (straight-line for one) and the last `count % 8`
/// blocks as straight-line code: whole groups by `ld4`/`st4`, the rest lane by lane with no branch on `n`, and
/// the rounds on one group only when at most four remain.
pub fn batch_mode_of(mode: Mode, abi: Abi, blocks: Blocks) -> Result<Function<Aarch64>, GenError> {
    let mut b = B::new(&format!("asmgen_sm4_{}_neon{}", mode.name(), blocks.suffix()), abi, &[]);
    b.doc(mode.doc());
    b.doc("NEON, tbl S-box: eight blocks in flight (two transposed groups of four); dst may equal src.");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let (rk, dst, src, n, iv) = mode.params(&mut b);
    let iv = iv.unwrap_or(X4);
    let c = Consts::new(&mut b);
    let mut incs = Vec::new();
    for k in 0..8u64 {
        incs.extend_from_slice(&k.to_le_bytes());
    }
    let inc = b.constant("sm4_ctr_inc", 16, "CTR: 0..7 as 64-bit lanes", &incs);
    let x = Ctx { mode, rk, dst, src, n, iv, hi: X10, lo: X11, c, inc };
    let trips = Trips::new(blocks, n);
    let done = b.label("done");
    trips.skip_if_zero(&mut b, &done);
    x.c.load_sbox(&mut b);
    if mode == Mode::Ctr {
        b.comment("The counter as two integers (hi, lo).");
        b.ldp(x.hi, x.lo, iv, 0);
        b.rev(x.hi, x.hi);
        b.rev(x.lo, x.lo);
    }
    trips.batches(
        &mut b,
        8,
        "counted",
        &mut |b, step| {
            batch(b, &x, Fill::Full);
            if step {
                b.add(src, src, 128);
            }
        },
        |b, rest| batch(b, &x, Fill::Known(rest)),
        |b, n| {
            let lp = b.label("loop8");
            let part = b.label("partial");
            let end = b.label("end");
            b.cmp(n, 8);
            b.b_lo(&part);
            b.align(4);
            b.bind(&lp);
            batch(b, &x, Fill::Full);
            b.add(src, src, 128);
            b.sub(n, n, 8);
            b.cmp(n, 8);
            b.b_hs(&lp);
            b.blank();
            b.bind(&part);
            b.cbz(n, &end);
            batch(b, &x, Fill::Partial);
            b.bind(&end);
        },
    );
    if mode == Mode::Ctr {
        b.rev(x.hi, x.hi);
        b.rev(x.lo, x.lo);
        b.stp(x.hi, x.lo, iv, 0);
    }
    b.comment("Clear the state.");
    for r in G.iter().chain(&OUT).flatten().chain(&[T0, T1, T2]) {
        b.movi_zero(*r);
    }
    trips.bind_skip(&mut b, &done);
    b.finish()
}

/// Encrypts the block in `s` (memory order) in lane 0 of group 0; the result replaces `s`. Uses v4-v6.
fn encrypt_one(b: &mut B, rk: X, s: V) {
    let g = G[0];
    b.comment("One block: big-endian words, word j in register j.");
    b.rev32_16b(V(5), s);
    for (j, &r) in g.iter().enumerate() {
        b.dup_4s(r, V(5), j as i32);
    }
    rounds(b, &[g], rk);
    b.comment("Gather X35, X34, X33, X32 and byte-swap.");
    b.zip1_4s(V(5), g[3], g[2]);
    b.zip1_4s(V(6), g[1], g[0]);
    b.zip1_2d(s, V(5), V(6));
    b.rev32_16b(s, s);
}

/// `asmgen_sm4_{cbc_enc,cfb_enc,cbc_mac}_neon`: serial, one block at a time.
pub fn serial_mode(mode: Serial, abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let mut b = B::new(&format!("asmgen_sm4_{}_neon", mode.name()), abi, &[]);
    b.doc(mode.doc());
    b.doc("Serial: one block per 32 rounds (NEON, tbl S-box).");
    let (rk, dst, src, n, state) = mode.params(&mut b);
    let c = Consts::new(&mut b);
    let done = b.label("done");
    b.cbz(n, &done);
    c.load_sbox(&mut b);
    c.load_round(&mut b);
    let s = V(15);
    let p = V(7);
    b.ldr(s, state, 0);
    let lp = b.label("loop");
    b.align(4);
    b.bind(&lp);
    b.ld1_16b_post(p, src);
    match mode {
        Serial::CbcEnc | Serial::CbcMac => {
            b.eor_16b(s, s, p);
            encrypt_one(&mut b, rk, s);
        }
        Serial::CfbEnc => {
            encrypt_one(&mut b, rk, s);
            b.eor_16b(s, s, p);
        }
    }
    if let Some(dst) = dst {
        b.st1_16b_post(s, dst);
    }
    b.subs(n, n, 1);
    b.b_ne(&lp);
    b.str(s, state, 0);
    b.comment("Clear the state.");
    for r in G.iter().flatten().chain(&[T0, T1, T2, V(5), V(6), p, s]) {
        b.movi_zero(*r);
    }
    b.bind(&done);
    b.finish()
}

/// `asmgen_sm4_expand_key_neon(rk_enc, rk_dec, key)`: the key schedule, four keys per loop iteration.
pub fn expand_key(abi: Abi) -> Result<Function<Aarch64>, GenError> {
    let mut b = B::new("asmgen_sm4_expand_key_neon", abi, &[]);
    crate::doc_role(&mut b, Role::ExpandKey);
    b.doc("K = MK ^ FK, rk[i] = K[i+4] = K[i] ^ L'(S(K[i+1] ^ K[i+2] ^ K[i+3] ^ CK[i])), L'(B) = B ^ rol(B, 13) ^");
    b.doc("rol(B, 23); one round key per step.");
    let [re, rd, key] = role::params(&mut b, Role::ExpandKey);
    let c = Consts::new(&mut b);
    let fk: Vec<u8> = FK.iter().flat_map(|w| w.to_le_bytes()).collect();
    let ck: Vec<u8> = CK.iter().flat_map(|w| w.to_le_bytes()).collect();
    let fk = b.constant("sm4_fk", 16, "FK as words", &fk);
    let ck = b.constant("sm4_ck", 16, "CK[0..32] as words", &ck);
    c.load_sbox(&mut b);
    c.load_round(&mut b);
    let g = G[0];
    b.comment("K = MK ^ FK as big-endian words; word j in register j.");
    b.ldr(V(5), key, 0);
    b.rev32_16b(V(5), V(5));
    addr(&mut b, X9, &fk);
    b.ldr(V(6), X9, 0);
    b.eor_16b(V(5), V(5), V(6));
    for (j, &r) in g.iter().enumerate() {
        b.dup_4s(r, V(5), j as i32);
    }
    addr(&mut b, X14, &ck);
    b.add(X13, rd, 112);
    b.movz(X15, 8);
    let lp = b.label("loop");
    b.align(4);
    b.bind(&lp);
    for j in 0..4 {
        b.comment(format_args!("rk[4i+{j}]"));
        let x = [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]];
        b.ld1r_4s_post(RKB, X14);
        b.eor_16b(T0, x[1], x[2]);
        b.eor_16b(T0, T0, RKB);
        b.eor_16b(T0, T0, x[3]);
        sbox(&mut b, T1, T0);
        b.eor_16b(x[0], x[0], T1);
        for (l, r) in [(13, 19), (23, 9)] {
            b.shl_4s(T2, T1, l);
            b.sri_4s(T2, T1, r);
            b.eor_16b(x[0], x[0], T2);
        }
    }
    b.comment("Four round keys: gathered, stored forwards and (words reversed) backwards.");
    b.zip1_4s(V(5), g[0], g[1]);
    b.zip1_4s(V(6), g[2], g[3]);
    b.zip1_2d(V(5), V(5), V(6));
    b.str_post(V(5), re, 16);
    b.rev64_4s(V(6), V(5));
    b.ext_16b(V(6), V(6), V(6), 8);
    b.str_post(V(6), X13, -16);
    b.subs(X15, X15, 1);
    b.b_ne(&lp);
    b.comment("Clear the key material from the vector registers.");
    for r in g.iter().chain(&[T0, T1, T2, V(5), V(6)]) {
        b.movi_zero(*r);
    }
    b.finish()
}

/// The fixed-size kernels of the NEON set (the JIT's specialisations): CTR for a message size; none for XTS
/// (the set has no XTS kernel) or the hash kinds.
pub fn fixed_functions(abi: Abi, fixed: Fixed) -> crate::Kernels<Aarch64> {
    match fixed {
        Fixed::Ctr(n) => {
            Ok(vec![crate::Kernel::new(crate::Role::Ctr, batch_mode_of(Mode::Ctr, abi, Blocks::Fixed(n))?)])
        }
        Fixed::Xts(_) | Fixed::Hash(_) => Ok(Vec::new()),
    }
}

/// The NEON set's kernels.
pub fn functions(abi: Abi) -> crate::Kernels<Aarch64> {
    use crate::{Kernel, Role};
    let mut v = vec![Kernel::new(Role::ExpandKey, expand_key(abi)?)];
    for m in [Mode::Ecb, Mode::Ctr, Mode::CbcDec, Mode::CfbDec] {
        v.push(Kernel::new(m.into(), batch_mode(m, abi)?));
    }
    for m in Serial::ALL {
        v.push(Kernel::new(m.role(), serial_mode(m, abi)?));
    }
    Ok(v)
}
