//! SM4-GCM on x86_64: CTR (32-bit big-endian counter) and GHASH in one pass, the carry-less multiplies
//! interleaved with the SM4 rounds.
//!
//! The counter blocks need no transposition: words 0..2 of every block are the IV's (broadcast into `X0..X2`)
//! and word 3 is the counter, so `X3` is the broadcast counter plus the block offsets (`vpaddd` wraps mod 2^32
//! exactly as `inc32` does).
//!
//! The rounds use [`round_lean`], which leaves xmm10 and xmm11 free: they accumulate the
//! low and high Karatsuba products of one 8-block GHASH aggregate, the middle products accumulate in
//! `state[16..32]` (the GHASH state's own slot; the state itself is in xmm11 between aggregates), and
//! xmm8/xmm9 are free between rounds for the multiplies. The state enters an aggregate as `S * H^8`, added to
//! the accumulators before its first block. One block is absorbed every two rounds with xmm (8 per batch), two
//! every four with ymm (16 per batch, reduced after each 8). Encryption absorbs the previous batch's
//! ciphertext while computing the next batch; decryption absorbs the batch's own ciphertext, loaded from `src`
//! while its keystream is computed (before the stores, so `dst == src` is fine): the same work per batch, one
//! function built for either direction. Leftover blocks (fewer than a batch) go through the plain GHASH loop of
//! [`crate::ghash::x86_64::absorb`]: after their encryption, or before their decryption (they may be
//! overwritten). Their keystream is one chain of 32 rounds on up to 16 of them (a ymm batch for 9..15 blocks,
//! an xmm batch for 5..8, one xmm group for 1..4): on Zen 4, 8191-byte messages took 10-16% longer than 8192-byte
//! ones when 15 leftover blocks ran as two xmm chains, 3% with one.
//!
//! The GFNI zmm set's kernels run 48 blocks at a time (then one batch of 32 or 16): twelve GHASH groups of four
//! blocks against H^48..H^1 (the key table's extension, laid out as the zmm GHASH set reads it), one
//! `vpclmulqdq` triple per group, spread among the unrolled rounds (`rounds_z_hooked`), their sums reduced once
//! per batch after its stores; encryption absorbs the previous batch and, after the last, that batch alone.
//! Only the last 0..15 blocks take the ymm and xmm code below.
//!
//! The counter is 32-bit (`inc32`): after `0xffffffff` comes 0 and the IV words never change, so one call may
//! cross the wrap.

use super::batch::*;
use super::cipher::*;
use super::consts::*;
use super::roles::*;
use super::set::Set;
use super::width::*;
use crate::ghash::x86_64::{absorb, absorb_few, combine, fold, Poly, Reduction};
use crate::ghash::x86_64_avx512::{group_products, pair_of, reduce_into, Group};
use crate::ghash::{ext_h_offset, ext_hk};
use crate::ghash::{h_offset, hk_offset, Flavour, AGGREGATE, BYTE_REVERSE, POLY};
use crate::role::{self, Role};
use asmgen::isa::x86_64::{mem, regs::*, rip, Gpr, Mem, X86_64};
use asmgen::{Abi, Function, GenError, Label};

// GHASH registers inside the round loop.
const X: V = V(8);
const T: V = V(9);
const LO: V = V(10);
/// The high-product accumulator; between aggregates, the GHASH state (POLYVAL form).
const HI: V = V(11);

struct Ctx {
    c: Consts,
    rol8: Label,
    rev: Label,
    poly: Label,
    inc: [[Label; 2]; 2],
    rk: Gpr,
    htable: Gpr,
    dst: Gpr,
    src: Gpr,
    state: Gpr,
    /// The 32-bit counter (low half; the upper bits are ignored).
    ctr: Gpr,
    /// Next block to absorb.
    gptr: Gpr,
    /// The power of H for the next block.
    hptr: Gpr,
    /// Round-key pointer at which the first 8-block aggregate of a ymm batch is reduced.
    mid: Gpr,
}

/// The middle-product accumulator.
fn mid_acc(x: &Ctx) -> Mem {
    mem(x.state, 16)
}

/// Starts an aggregate: accumulators = the Karatsuba products of `S * H^8` (S in [`HI`]).
fn ghash_start(b: &mut B, x: &Ctx) {
    b.comment("GHASH aggregate: accumulators = S * H^8 (S in xmm11), middle products in state[16..32].");
    let (h8, hk8) = (mem(x.htable, h_offset(AGGREGATE)), mem(x.htable, hk_offset(AGGREGATE)));
    b.vpclmulqdq(LO.x(), HI.x(), h8.clone(), 0x00);
    b.vpshufd(X.x(), HI.x(), 0x4e);
    b.vpxor(X.x(), X.x(), HI.x());
    b.vpclmulqdq(X.x(), X.x(), hk8, 0x00);
    b.vmovdqu(mid_acc(x), X.x());
    b.vpclmulqdq(HI.x(), HI.x(), h8.clone(), 0x11);
    b.lea(x.hptr, h8);
}

/// Absorbs the block at `gptr` against the power at `hptr` into the accumulators.
fn ghash_block(b: &mut B, x: &Ctx) {
    b.comment("GHASH: next block times its power of H (Karatsuba), into the accumulators.");
    b.vmovdqu(X.x(), mem(x.gptr, 0));
    b.vpshufb(X.x(), X.x(), rip(&x.rev));
    b.vpclmulqdq(T.x(), X.x(), mem(x.hptr, 0), 0x00);
    b.vpxor(LO.x(), LO.x(), T.x());
    b.vpclmulqdq(T.x(), X.x(), mem(x.hptr, 0), 0x11);
    b.vpxor(HI.x(), HI.x(), T.x());
    b.vpshufd(T.x(), X.x(), 0x4e);
    b.vpxor(X.x(), X.x(), T.x());
    b.vpclmulqdq(X.x(), X.x(), mem(x.hptr, hk_offset(1)), 0x00);
    b.vpxor(X.x(), X.x(), mid_acc(x));
    b.vmovdqu(mid_acc(x), X.x());
    b.add(x.gptr, 16);
    b.sub(x.hptr, 16);
}

/// Ends an aggregate: the GHASH kernel's Karatsuba recombination and Montgomery reduction
/// ([`combine`], [`fold`]) on this kernel's registers (the middle product loaded into [`T`], [`X`] as scratch,
/// the constant in memory), into S (in [`HI`]).
fn ghash_reduce(b: &mut B, x: &Ctx) {
    b.comment("GHASH: recombine the Karatsuba products, reduce (two folds by x^-64) into S = xmm11.");
    b.vmovdqu(T.x(), mid_acc(x));
    let r = Reduction { lo: LO.x(), hi: HI.x(), mid: T.x(), t: X.x(), poly: Poly::Mem(rip(&x.poly)) };
    combine(b, &r);
    fold(b, &r);
    b.vpxor(HI.x(), HI.x(), LO.x());
}

/// One batch: counter blocks, 32 rounds (with GHASH of the blocks at `gptr` when `ghash`), keystream xor.
/// `n`: `None` for a full batch, else the block count (< batch) in that register.
fn batch(b: &mut B, x: &Ctx, w: Width, ghash: bool, n: Option<Gpr>) {
    let nblk = 8 * w.blocks();
    b.comment(format_args!("{nblk} counter blocks, transposed: X0..X2 = IV words (broadcast), X3 = counter + i."));
    counter_blocks(b, x, w, &GROUPS);
    if ghash {
        ghash_start(b, x);
    }
    enter(b, &x.c, w, &GROUPS);
    // Blocks absorbed per iteration of four rounds, after these rounds.
    let hooks: &[usize] = if !ghash {
        &[]
    } else if w == Width::X {
        &[1]
    } else {
        &[1, 3]
    };
    let (ptr, end) = (RAX, R11);
    b.comment(format_args!(
        "32 rounds on {nblk} blocks (two scratch registers){}.",
        if ghash { format!(", {} GHASH block(s) every four rounds", hooks.len()) } else { String::new() }
    ));
    b.lea(end, mem(x.rk, 128));
    b.mov(ptr, x.rk);
    if ghash && w == Width::Y {
        b.lea(x.mid, mem(x.rk, 64));
    }
    let lp = b.label("rounds");
    b.align(4);
    b.bind(&lp);
    for j in 0..4 {
        b.comment(format_args!("round 4i+{j}"));
        for g in &GROUPS {
            let r = [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]];
            round_lean(b, &x.c, w, r, mem(ptr, 4 * j as i32), [TMP[0], TMP[1]], &x.rol8);
        }
        if hooks.contains(&j) {
            ghash_block(b, x);
        }
    }
    b.add(ptr, 16);
    if ghash && w == Width::Y {
        let skip = b.label("no_reduce");
        b.cmp(ptr, x.mid);
        b.jnz(&skip);
        ghash_reduce(b, x);
        ghash_start(b, x);
        b.bind(&skip);
    }
    b.cmp(ptr, end);
    b.jnz(&lp);
    if ghash {
        ghash_reduce(b, x);
    }
    leave(b, &x.c, w, &GROUPS);
    keystream_out(b, x, w, &GROUPS, n.map_or(Count::All, Count::Reg));
    match n {
        None => b.add(x.ctr, nblk as i32),
        Some(n) => b.add(x.ctr, n),
    };
}

/// The counter blocks of `groups` (the first group's words copied to the others): X0..X2 the IV's words
/// (broadcast), X3 the counter plus each block's offset. Clobbers `TMP[0]`.
fn counter_blocks(b: &mut B, x: &Ctx, w: Width, groups: &[[V; 4]]) {
    let wi = if w == Width::X { 0 } else { 1 };
    let base = TMP[0];
    b.vmovq(base.x(), x.ctr);
    b.vpshufd(base.x(), base.x(), 0x00);
    if w == Width::Y {
        b.vinserti128(base.y(), base.y(), base.x(), 0x01);
    }
    for (gi, g) in groups.iter().enumerate() {
        vaddd(b, w, g[3], base, rip(&x.inc[wi][gi]));
    }
    iv_words(b, x, w, groups, &|b, v| vshufb(b, w, v, v, rip(&x.c.bswap32)));
}

/// X0..X2 of `groups`: the IV's words broadcast into the first group, made ready there by `ready` (a byte swap
/// to big-endian, or on zmm the map into the GFNI domain of words as loaded), copied to the others.
fn iv_words(b: &mut B, x: &Ctx, w: Width, groups: &[[V; 4]], ready: &dyn Fn(&mut B, V)) {
    for j in 0..3 {
        let v = groups[0][j];
        vbroadcast(b, w, v, mem(x.state, 4 * j as i32));
        ready(b, v);
        for g in &groups[1..] {
            vmov(b, w, g[j], v);
        }
    }
}

/// The keystream words X35..X32 of `groups` back into blocks ([`words_to_blocks`]), then `dst = src ^ keystream`
/// for `count` blocks.
fn keystream_out(b: &mut B, x: &Ctx, w: Width, groups: &[[V; 4]], count: Count) {
    b.comment(if words_as_loaded(&x.c, w) {
        "Keystream X35, X34, X33, X32: transpose back; dst = src ^ keystream."
    } else {
        "Keystream X35, X34, X33, X32: transpose back, byte-swap; dst = src ^ keystream."
    });
    words_to_blocks(b, &x.c, w, groups);
    each_slot(b, w, 4 * groups.len(), count, &mut |b, s, part| {
        let half = part.half();
        let v = slot_reg(s);
        let off = 16 * (s * w.blocks()) as i32;
        if w == Width::X || half {
            b.vpxor(v.x(), v.x(), mem(x.src, off));
            b.vmovdqu(mem(x.dst, off), v.x());
        } else {
            vxor(b, w, v, v, mem(x.src, off));
            vstore(b, w, mem(x.dst, off), v);
        }
    });
}

/// The last 1-4 blocks (`n`) on one xmm group, without hashing: [`rounds`]' one-group loop, built for latency
/// (a short message is one chain of 32 rounds), instead of [`batch`]'s two groups of [`round_lean`].
fn batch_one(b: &mut B, x: &Ctx, n: Gpr) {
    let w = Width::X;
    let g = GROUPS[0];
    b.comment("1..4 counter blocks on one group, transposed: X0..X2 = IV words (broadcast), X3 = counter + i.");
    counter_blocks(b, x, w, &[g]);
    rounds(b, &x.c, w, &[g], x.rk);
    keystream_out(b, x, w, &[g], Count::Reg(n));
    b.add(x.ctr, n);
}

/// `asmgen_sm4_gcm_{enc,dec}_<set>(rk_enc, htable, dst, src, nblocks, state)`: GCM encryption or decryption;
/// GHASH absorbs the ciphertext (`dst` when encrypting, `src` when decrypting).
pub fn gcm(set: Set, decrypt: bool, abi: Abi) -> Result<Function<X86_64>, GenError> {
    let zmm = set.width() == Width::Z;
    // A zmm set's batches below 48 blocks are its base set's ymm code.
    let w = set.base().width();
    let mut f = set.features();
    f.push(asmgen::isa::x86_64::X86Feature::Pclmulqdq);
    if zmm {
        f.push(asmgen::isa::x86_64::X86Feature::Vpclmulqdq);
    }
    let dir = if decrypt { "dec" } else { "enc" };
    let mut b = B::new(&format!("asmgen_sm4_gcm_{dir}_{}", set.name()), abi, &f);
    crate::doc_role(&mut b, Role::gcm(decrypt));
    if zmm {
        b.doc("One pass: 48 blocks in flight on zmm, twelve GHASH multiplies of four blocks (against H^48..H^1,");
        b.doc("the key table's extension) interleaved with the rounds, one reduction per batch; then a zmm batch");
        b.doc("of 32 or 16 blocks, and the last 0..15 on ymm or xmm. dst may equal src.");
    } else {
        b.doc(format_args!(
            "One pass: {} blocks in flight, the GHASH multiplies interleaved with the rounds; dst may equal src.",
            8 * w.blocks()
        ));
    }
    let [rk, htable, dst, src, n, state] = role::params(&mut b, Role::gcm(decrypt));
    let x = context(&mut b, set.base(), [rk, htable, dst, src, state]);
    if !zmm {
        x.c.load_tables(&mut b, w);
    }
    b.comment("The 32-bit counter (big-endian word 3) and the GHASH state in POLYVAL form (xmm11).");
    b.mov(x.ctr, mem(state, 8));
    b.bswap(x.ctr);
    b.vmovdqu(HI.x(), mem(state, 16));
    b.vpshufb(HI.x(), HI.x(), rip(&x.rev));
    b.mov(x.gptr, if decrypt { src } else { dst });
    if zmm {
        let z = ZConsts::new(&mut b);
        zmm_batches(&mut b, &x, &z, n, decrypt);
        x.c.load_tables(&mut b, w);
    }

    let tail = b.label("tail");
    let fin = b.label("fin");
    if !zmm {
        whole_batches(&mut b, &x, w, n, decrypt, &tail);
    }
    b.blank();
    b.bind(&tail);
    b.comment("Fewer blocks than a batch remain; the GHASH state goes back to memory for the plain loop.");
    b.vpshufb(HI.x(), HI.x(), rip(&x.rev));
    b.vmovdqu(mem(state, 16), HI.x());
    let cnt = R12;
    if decrypt {
        b.comment("Absorb the remaining ciphertext before it is decrypted (dst may be src); the GHASH loop");
        b.comment("uses xmm14/xmm15, two of the S-box table registers, so the tables are loaded again.");
        b.mov(cnt, n);
        // Fewer than 8 blocks remain with xmm batches: no 8-block aggregate to absorb.
        let absorb_tail = if w == Width::X { absorb_few } else { absorb };
        absorb_tail(&mut b, Flavour::Ghash, mem(state, 16), htable, x.gptr, cnt);
        x.c.load_tables(&mut b, w);
    }
    last_blocks(&mut b, &x, w, n, &fin);
    b.bind(&fin);
    if !decrypt {
        b.comment("Absorb the ciphertext not yet absorbed: from gptr to the end of dst.");
        b.mov(cnt, dst);
        b.sub(cnt, x.gptr);
        b.shr(cnt, 4);
        absorb(&mut b, Flavour::Ghash, mem(state, 16), htable, x.gptr, cnt);
    }
    store_counter(&mut b, &x, state);
    if w == Width::Y {
        b.vzeroupper();
    }
    b.finish()
}

/// Word 3 of the counter block in `state` = the 32-bit counter; words 0..2 unchanged.
fn store_counter(b: &mut B, x: &Ctx, state: Gpr) {
    b.comment("Counter back: word 3 = ctr, words 0..2 unchanged.");
    b.mov(RAX, mem(state, 8));
    b.bswap(RAX);
    b.shr(RAX, 32);
    b.shl(RAX, 32);
    b.shl(x.ctr, 32);
    b.shr(x.ctr, 32);
    b.add(RAX, x.ctr);
    b.bswap(RAX);
    b.mov(mem(state, 8), RAX);
}

/// The kernel's constants and registers: `[rk, htable, dst, src, state]` are its parameters.
fn context(b: &mut B, set: Set, [rk, htable, dst, src, state]: [Gpr; 5]) -> Ctx {
    let c = Consts::new(b, set.sbox());
    let rol8 = rol8_constant(b);
    let rev = b.constant("byte_reverse", 16, "vpshufb control: reverse 16 bytes", &BYTE_REVERSE);
    let poly = b.constant("polyval_poly", 16, "x^128 + x^127 + x^126 + x^121 + 1, reflected", &POLY);
    let dw = |v: [u32; 8]| -> Vec<u8> { v.iter().flat_map(|d| d.to_le_bytes()).collect() };
    let inc = [
        [
            b.constant("sm4_gcm_inc_x0", 32, "inc32 offsets, xmm group 0", &dw([0, 1, 2, 3, 0, 1, 2, 3])),
            b.constant("sm4_gcm_inc_x1", 32, "inc32 offsets, xmm group 1", &dw([4, 5, 6, 7, 4, 5, 6, 7])),
        ],
        [
            b.constant("sm4_gcm_inc_y0", 32, "inc32 offsets, ymm group 0", &dw([0, 2, 4, 6, 1, 3, 5, 7])),
            b.constant("sm4_gcm_inc_y1", 32, "inc32 offsets, ymm group 1", &dw([8, 10, 12, 14, 9, 11, 13, 15])),
        ],
    ];
    Ctx { c, rol8, rev, poly, inc, rk, htable, dst, src, state, ctr: R10, gptr: RBX, hptr: RBP, mid: R12 }
}

/// The whole batches; to `tail` when fewer than a batch remain. Encryption: the first without hashing, then
/// each encrypted while the previous batch's ciphertext is absorbed. Decryption: each absorbs its own.
fn whole_batches(b: &mut B, x: &Ctx, w: Width, n: Gpr, decrypt: bool, tail: &Label) {
    let nblk = 8 * w.blocks() as i32;
    let lp = b.label("loop");
    if !decrypt {
        b.cmp(n, nblk);
        b.jb(tail);
        b.comment("First batch: nothing to absorb yet.");
        batch(b, x, w, false, None);
        b.sub(n, nblk);
        b.add(x.src, 16 * nblk);
        b.add(x.dst, 16 * nblk);
    }
    b.align(4);
    b.bind(&lp);
    b.cmp(n, nblk);
    b.jb(tail);
    b.comment(if decrypt {
        "Decrypt this batch while absorbing its ciphertext."
    } else {
        "Encrypt this batch while absorbing the previous batch's ciphertext."
    });
    batch(b, x, w, true, None);
    b.sub(n, nblk);
    b.add(x.src, 16 * nblk);
    b.add(x.dst, 16 * nblk);
    b.jmp(&lp);
}

/// The last 0..batch-1 blocks, in one chain of rounds without hashing (ymm: a ymm batch for 9..15 blocks;
/// 5..8: an xmm batch; 1..4: one xmm group); `dst` ends past them; to `fin` when none.
fn last_blocks(b: &mut B, x: &Ctx, w: Width, n: Gpr, fin: &Label) {
    let nblk = 8 * w.blocks() as i32;
    b.test(n, n);
    b.jz(fin);
    let two = b.label("tail_two_groups");
    let one_done = b.label("tail_one_done");
    if w == Width::Y {
        b.comment(format_args!(
            "The last 1..{} blocks: 9..15 in one ymm batch, 5..8 in an xmm batch, 1..4 on one",
            nblk - 1
        ));
        b.comment("xmm group (one chain of 32 rounds each).");
        let part = b.label("tail_partial");
        b.cmp(n, 8);
        b.jbe(&part);
        batch(b, x, Width::Y, false, Some(n));
        b.jmp(&one_done);
        b.bind(&part);
    } else {
        b.comment(format_args!("The last 1..{} blocks: 5..7 in an xmm batch, 1..4 on one xmm group.", nblk - 1));
    }
    b.cmp(n, 4);
    b.ja(&two);
    batch_one(b, x, n);
    b.jmp(&one_done);
    b.bind(&two);
    batch(b, x, Width::X, false, Some(n));
    b.bind(&one_done);
    b.mov(RAX, n);
    b.shl(RAX, 4);
    b.add(x.dst, RAX);
}

// The zmm batches (GFNI + AVX-512): GHASH's registers, which no round uses (zmm18, zmm24-zmm30).
/// The sums of the low, high and middle Karatsuba products of a batch's twelve groups, one per lane.
const Z_SUMS: [V; 3] = [V(24), V(25), V(26)];
/// A group's blocks (then their high products), their half-sums (then the middle products), its low products.
const ZX: V = V(27);
const ZXS: V = V(28);
const ZT: V = V(29);
/// A group's four powers of H.
const ZK: V = V(18);
/// The GHASH state (POLYVAL form, upper lanes zero) between the zmm batches.
const ZS: V = V(30);
/// Where the sums are reduced, after a batch's stores (the reduction's lane additions are VEX: zmm0-zmm15).
const Z_REDUCE: [V; 3] = [V(0), V(1), V(2)];
/// The reduction's scratch, and its result before it moves to [`ZS`].
const Z_SCRATCH: V = V(3);

/// Blocks of a full zmm batch: three groups of sixteen.
const Z_BLOCKS: usize = 48;
/// Blocks of a zmm batch of two groups, and of one (what is left after the full batches).
const Z_TWO: usize = 32;
const Z_ONE: usize = 16;

/// The zmm batches' constants.
struct ZConsts {
    /// `inc32` offsets of the three groups ([`counter_offsets_z`]).
    inc: [Label; 3],
    /// GHASH's byte reversal in every lane.
    rev: Label,
}

impl ZConsts {
    fn new(b: &mut B) -> ZConsts {
        let inc = counter_offsets_z(b);
        let rev = b.constant(
            "byte_reverse_z",
            64,
            "vpshufb control: reverse the 16 bytes of each lane",
            &BYTE_REVERSE.repeat(4),
        );
        ZConsts { inc, rev }
    }
}

/// After which round GHASH group `g` of a zmm batch is multiplied: one every two rounds from round 2 on (the
/// state's group, 0, early: the previous batch's reduction is long done by then).
fn z_group_round(g: usize) -> usize {
    2 + 2 * g
}

/// The zmm batches, when at least 16 blocks are: full batches of 48, then one of 32 or 16 (one or two groups)
/// while 16 or more are left, the GHASH multiplies interleaved with the rounds (groups of four blocks against
/// the table's extension, H^48..H^1: the whole table), one reduction per batch after its stores. Encryption
/// absorbs the previous batch's ciphertext during a batch and the last batch's alone after it; decryption a
/// batch's own. Then the state goes back to [`HI`] for the ymm code, which takes the 0..15 blocks left, nothing
/// pending (the ymm set's 16-block batches are not needed).
fn zmm_batches(b: &mut B, x: &Ctx, z: &ZConsts, n: Gpr, decrypt: bool) {
    let [done, lp, exit] = ["below_z", "loop_z", "exit_z"].map(|l| b.label(l));
    b.cmp(n, Z_ONE as i32);
    b.jb(&done);
    x.c.load_tables(b, Width::Z);
    x.c.map_keys_z(b, Width::Z, x.rk);
    b.vmovdqa64(ZS.z(), HI.z());
    // The batches after the full ones: 32 blocks, or 16 (to `exit` when fewer are left).
    let last = |b: &mut B, pending: usize| {
        let one = b.label("last16_z");
        b.cmp(n, Z_TWO as i32);
        b.jb(&one);
        batch_z(b, x, z, n, Z_TWO, if decrypt { Z_TWO } else { pending });
        if !decrypt {
            ghash_z(b, x, z, Z_TWO);
        }
        b.jmp(&exit);
        b.bind(&one);
        if decrypt || pending == 0 {
            b.cmp(n, Z_ONE as i32);
            b.jb(&exit);
            batch_z(b, x, z, n, Z_ONE, if decrypt { Z_ONE } else { 0 });
            if !decrypt {
                ghash_z(b, x, z, Z_ONE);
            }
        } else {
            let flush = b.label("flush48_z");
            b.cmp(n, Z_ONE as i32);
            b.jb(&flush);
            batch_z(b, x, z, n, Z_ONE, pending);
            ghash_z(b, x, z, Z_ONE);
            b.jmp(&exit);
            b.bind(&flush);
            ghash_z(b, x, z, pending);
        }
        b.jmp(&exit);
    };
    let full = b.label("full_z");
    b.cmp(n, Z_BLOCKS as i32);
    b.jae(&full);
    b.comment("16..47 blocks: one batch of two groups or one.");
    last(b, 0);
    b.bind(&full);
    if !decrypt {
        b.comment("First zmm batch: nothing to absorb yet.");
        batch_z(b, x, z, n, Z_BLOCKS, 0);
    }
    let rest = b.label("rest_z");
    b.align(4);
    b.bind(&lp);
    b.cmp(n, Z_BLOCKS as i32);
    b.jb(&rest);
    b.comment(if decrypt {
        "Decrypt this zmm batch while absorbing its ciphertext."
    } else {
        "Encrypt this zmm batch while absorbing the previous batch's ciphertext."
    });
    batch_z(b, x, z, n, Z_BLOCKS, Z_BLOCKS);
    b.jmp(&lp);
    b.bind(&rest);
    last(b, if decrypt { 0 } else { Z_BLOCKS });
    b.bind(&exit);
    x.c.wipe_keys_z(b);
    b.comment("The state to xmm11 for the xmm code.");
    b.vmovdqa64(HI.z(), ZS.z());
    b.bind(&done);
}

/// One zmm batch of `blocks` (48, 32 or 16) counter blocks, formed transposed, the rounds with, when `ghash` is not
/// 0, that many blocks' GHASH groups (at `gptr`) among them, the keystream xored and stored, the sums reduced
/// into [`ZS`]; `n`, `src`, `dst` and the counter (and `gptr`) past the blocks.
fn batch_z(b: &mut B, x: &Ctx, z: &ZConsts, n: Gpr, blocks: usize, ghash: usize) {
    let w = Width::Z;
    let groups = groups(blocks / 16);
    b.comment(format_args!(
        "{blocks} counter blocks, transposed, their words as loaded: X0..X2 = IV words (broadcast), X3 = counter + i, byte-swapped; each into the GFNI domain (Y = M1*X on every byte), X0..X2 once for every group."
    ));
    b.mov(mem(x.state, 16), x.ctr.d());
    b.vpbroadcastd(TMP[0].z(), mem(x.state, 16));
    for (g, l) in groups.iter().zip(&z.inc) {
        vaddd(b, w, g[3], TMP[0], rip(l));
        bswap32(b, &x.c, w, g[3]);
        vaffine(b, w, g[3], g[3], POST_HI, 0);
    }
    iv_words(b, x, w, &groups, &|b, v| vaffine(b, w, v, v, POST_HI, 0));
    let mut hook = |b: &mut B, round: usize| {
        for g in (0..ghash / 4).filter(|&g| z_group_round(g) == round) {
            ghash_group_z(b, x, z, g, ghash / 4);
        }
    };
    rounds_z_hooked(b, &x.c, &groups, &mut hook);
    keystream_out(b, x, w, &groups, Count::All);
    b.add(x.ctr, blocks as i32);
    b.sub(n, blocks as i32);
    b.add(x.src, 16 * blocks as i32);
    b.add(x.dst, 16 * blocks as i32);
    if ghash > 0 {
        ghash_reduce_z(b, x, ghash);
    }
}

/// GHASH alone of `blocks` (48, 32 or 16) at `gptr`: the groups, then the reduction into [`ZS`].
fn ghash_z(b: &mut B, x: &Ctx, z: &ZConsts, blocks: usize) {
    b.comment(format_args!("GHASH of the last {blocks} blocks encrypted."));
    for g in 0..blocks / 4 {
        ghash_group_z(b, x, z, g, blocks / 4);
    }
    ghash_reduce_z(b, x, blocks);
}

/// The sums of `blocks` reduced into [`ZS`] (moved to zmm0-zmm2 first: the reduction is VEX); `gptr` past them.
fn ghash_reduce_z(b: &mut B, x: &Ctx, blocks: usize) {
    b.comment("GHASH: the sums reduced into the state.");
    for (&d, &s) in Z_REDUCE.iter().zip(&Z_SUMS) {
        vmov(b, Width::Z, d, s);
    }
    reduce_into(b, Z_REDUCE.map(|v| v.z()), Z_SCRATCH.z(), Z_SCRATCH.x());
    vmov(b, Width::Z, ZS, Z_SCRATCH);
    b.add(x.gptr, 16 * blocks as i32);
}

/// GHASH group `g` of `ngroups` (blocks `4g..4g + 3` at `gptr`, the state added to group 0's first) times
/// `H^(4(ngroups - g))..H^(4(ngroups - g) - 3)` from the table's extension (power group `ngroups - 1 - g` of the
/// zmm GHASH set's layout), Karatsuba products into [`Z_SUMS`] (group 0's written, the others added): the zmm
/// GHASH kernel's [`group_products`], the powers and half-sums read from the table where they are multiplied.
fn ghash_group_z(b: &mut B, x: &Ctx, z: &ZConsts, g: usize, ngroups: usize) {
    let j = ngroups - 1 - g;
    b.comment(format_args!("GHASH: blocks {}..{} times H^{}..H^{}.", 4 * g, 4 * g + 3, 4 * j + 4, 4 * j + 1));
    let (hk, hk_sel) = ext_hk(pair_of(j));
    let group = Group {
        blocks: (x.gptr, 64 * g as i32),
        in_batch: g != 0 && g + 1 != ngroups,
        reverse: Some(rip(&z.rev).into()),
        state: (g == 0).then_some(ZS.z()),
        x: ZX.z(),
        xs: ZXS.z(),
    };
    let powers = |b: &mut B| {
        b.vmovdqu64(ZK.z(), mem(x.htable, ext_h_offset(4 * j + 4)));
        ZK.z().into()
    };
    let [lo, hi, mid] = Z_SUMS.map(|v| v.z());
    if g == 0 {
        group_products(b, &group, powers, (mem(x.htable, hk).into(), hk_sel), [lo, hi, mid]);
    } else {
        group_products(b, &group, powers, (mem(x.htable, hk).into(), hk_sel), [ZT.z(), ZX.z(), ZXS.z()]);
        b.vpxorq(lo, lo, ZT.z());
        b.vpxorq(hi, hi, ZX.z());
        b.vpxorq(mid, mid, ZXS.z());
    }
}
