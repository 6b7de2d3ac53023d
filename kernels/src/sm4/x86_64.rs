//! SM4 on x86_64: AES-NI with AVX (xmm, 8 blocks in flight) or AVX2 (ymm, 16 blocks in flight), VAES, GFNI
//! (ymm), and GFNI or VAES with AVX-512 (zmm batch modes and XTS, 48 blocks in flight: [`Set::GfniAvx512`],
//! [`Set::VaesAvx512`]).
//!
//! Blocks are kept transposed: after loading, each 32-bit word is byte-swapped to its big-endian value and four
//! blocks are transposed so that one register holds word `j` of four blocks (xmm) or, per 128-bit lane, of four
//! blocks each (ymm: eight). A group is four such registers `X0..X3`; two groups are in flight. Round `i`
//! overwrites the register holding `X(i)` with `X(i+4)`, so four rounds bring the roles back and the round loop
//! runs eight times over four unrolled rounds.
//!
//! The S-box is `post(AES_SubBytes(pre(x)))` with the affine maps of [`super::sbox_affine`] applied by
//! `vpshufb` nibble tables, and `aesenclast` with a zero key supplying SubBytes (and ShiftRows, undone by the
//! byte shuffles of the linear layer). The baseline AVX2 CPU has no VAES, so ymm rounds run `aesenclast` on
//! the two 128-bit halves. Constant time: data only reaches `vpshufb` indices and `aesenclast`; branches and
//! addresses depend on lengths and counter values only.
//!
//! The building blocks ([`round_gfni`], [`round_lean`], [`rounds`], [`transpose`], [`Consts`], [`Width`]) are public;
//! the modes with more state than a batch of blocks live in submodules: [`xts`] (tweak chain in registers),
//! [`gcm`] (CTR fused with GHASH) and [`ccm`] (CTR and CBC-MAC in one pass).
//!
//! Layers, each a file under `x86_64/` re-exported here, bottom up: `width` (xmm/ymm wrappers of the vector
//! instructions), `consts` (the S-box tables and constants), `roles` (register roles, the round-key loop),
//! `nibble` (nibble-table lookups), `domain` (AES-NI's rounds in the pre-affine map's domain: the batches' groups
//! and the one-group round), `cipher` (S-box, rounds, transpose, entering and leaving the GFNI domain, one block
//! alone), `batch` (how a batch knows its size, the loop over batches). This file keeps the kernel sets ([`Set`], the variant of a kernel set) and the entry
//! points of the batch, serial and key-schedule kernels.

use super::{Mode, Serial};
use crate::plan::Trips;
use crate::role::{self, Kernel, Kernels, Role};
use crate::{Blocks, Fixed};
use asmgen::isa::x86_64::{mem, mem_index, regs::*, rip, Gpr, Mem, X86_64};
use asmgen::{Abi, Function, GenError, Label};

mod batch;
pub mod ccm;
mod cipher;
mod consts;
mod domain;
pub mod gcm;
mod nibble;
mod roles;
mod set;
mod width;
pub mod xts;

pub(crate) use batch::*;
pub use cipher::*;
pub use consts::*;
use nibble::{load_table, lookup_in_memory, nibbles};
pub use roles::*;
pub use set::{Sbox, Set};
pub use width::*;

/// Where a block of a batch comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Blk {
    /// `src[i]`.
    Cur,
    /// `src[i-1]`, the IV for `i = 0`.
    Prev,
}

/// The general-purpose registers of a batch kernel.
struct Ctx {
    c: Consts,
    mode: Mode,
    rk: Gpr,
    dst: Gpr,
    src: Gpr,
    n: Gpr,
    /// ctr or iv.
    extra: Gpr,
    /// The counter's halves as integers (CTR).
    lo: Gpr,
    hi: Gpr,
    /// The zmm CTR kernels' 48 counter increments ([`ctr_add_z`]) and the offsets of their transposed words'
    /// blocks ([`counter_offsets_z`]).
    ctr_z: Option<(asmgen::Label, [asmgen::Label; 3])>,
}

impl Ctx {
    /// `[src + 16*i]` or, for `Prev`, `[src + 16*(i-1)]` / `[iv]`.
    fn addr(&self, k: Blk, i: usize) -> Mem {
        match (k, i) {
            (Blk::Cur, _) => mem(self.src, 16 * i as i32),
            (Blk::Prev, 0) => mem(self.extra, 0),
            (Blk::Prev, _) => mem(self.src, 16 * (i as i32 - 1)),
        }
    }

    /// Loads blocks `i, i+1` of kind `k` into the ymm `d` (the IV case needs an insert).
    fn load_pair(&self, b: &mut B, d: V, k: Blk, i: usize) {
        if k == Blk::Prev && i == 0 {
            b.vmovdqu(d.x(), mem(self.extra, 0));
            b.vinserti128(d.y(), d.y(), mem(self.src, 0), 0x01);
        } else {
            b.vmovdqu(d.y(), self.addr(k, i));
        }
    }

    /// Loads blocks `i .. i+4` of kind `k` into the zmm `d` (the IV case: IV, then `src[0]` inserted above it,
    /// then `src[1..3]` above both).
    fn load_quad(&self, b: &mut B, d: V, k: Blk, i: usize) {
        if k == Blk::Prev && i == 0 {
            b.vmovdqu(d.x(), mem(self.extra, 0));
            b.vinserti128(d.y(), d.y(), mem(self.src, 0), 0x01);
            b.vinserti64x4(d.z(), d.z(), mem(self.src, 16), 0x01);
        } else {
            b.vmovdqu64(d.z(), self.addr(k, i));
        }
    }

    /// Loads slot `s` (blocks `s*bps ..`, as many as `part` says) as the cipher's input.
    fn slot_in(&self, b: &mut B, w: Width, s: usize, part: Slot) {
        let k = if self.mode == Mode::CfbDec { Blk::Prev } else { Blk::Cur };
        let i = s * w.blocks();
        if w == Width::Z {
            if part == Slot::Masked {
                self.load_masked(b, slot_reg(s), k, i);
            } else {
                self.load_quad(b, slot_reg(s), k, i);
            }
            return;
        }
        if w == Width::X || part == Slot::Half {
            b.vmovdqu(V(s as u8).x(), self.addr(k, i));
        } else {
            self.load_pair(b, V(s as u8), k, i);
        }
    }

    /// Blocks `i ..` of kind `k` under [`SLOT_MASK`] into the zmm `d`, the rest of it zero (a partly filled
    /// slot, never the first: the IV case does not arise).
    fn load_masked(&self, b: &mut B, d: V, k: Blk, i: usize) {
        assert!(i > 0, "a batch's first slot is full");
        b.vmovdqu8(d.z().maskz(SLOT_MASK), self.addr(k, i));
    }

    /// Finishes slot `s` (as many blocks as `part` says): xors the mode's mask and stores.
    fn slot_out(&self, b: &mut B, w: Width, s: usize, part: Slot) {
        let v = slot_reg(s);
        let i = s * w.blocks();
        let mask = match self.mode {
            Mode::Ecb => None,
            Mode::Ctr | Mode::CfbDec => Some(Blk::Cur),
            Mode::CbcDec => Some(Blk::Prev),
        };
        if w == Width::Z && part == Slot::Masked {
            if let Some(k) = mask {
                self.load_masked(b, TMP[1], k, i);
                b.vpxorq(v.z(), v.z(), TMP[1].z());
            }
            b.vmovdqu8(mem(self.dst, 16 * i as i32).mask(SLOT_MASK), v.z());
            return;
        }
        if w == Width::Z {
            match mask {
                Some(Blk::Prev) if i == 0 => {
                    self.load_quad(b, TMP[1], Blk::Prev, 0);
                    b.vpxorq(v.z(), v.z(), TMP[1].z());
                }
                Some(k) => {
                    b.vpxorq(v.z(), v.z(), self.addr(k, i));
                }
                None => {}
            }
            b.vmovdqu64(mem(self.dst, 16 * i as i32), v.z());
            return;
        }
        if w == Width::X || part == Slot::Half {
            if let Some(k) = mask {
                b.vpxor(v.x(), v.x(), self.addr(k, i));
            }
            b.vmovdqu(mem(self.dst, 16 * i as i32), v.x());
        } else {
            match mask {
                Some(Blk::Prev) if i == 0 => {
                    self.load_pair(b, TMP[1], Blk::Prev, 0);
                    b.vpxor(v.y(), v.y(), TMP[1].y());
                }
                Some(k) => {
                    b.vpxor(v.y(), v.y(), self.addr(k, i));
                }
                None => {}
            }
            b.vmovdqu(mem(self.dst, 16 * i as i32), v.y());
        }
    }
}

/// Emits `f` for every slot of a batch that holds blocks: all (`Count::All`), those holding blocks `< k`
/// (`Known`), or those holding blocks `< n` behind branches on `n` (`Reg`); a slot the count fills partly is
/// a ymm slot's [`Slot::Half`] or a zmm slot's [`Slot::Masked`] (the opmask set before the slots:
/// [`set_slot_mask`]).
/// `rev`: last slot first.
fn for_slots(
    b: &mut B,
    x: &Ctx,
    w: Width,
    slots: usize,
    count: Count,
    rev: bool,
    f: fn(&Ctx, &mut B, Width, usize, Slot),
) {
    let bps = w.blocks();
    let order: Vec<usize> = if rev { (0..slots).rev().collect() } else { (0..slots).collect() };
    let n = match count {
        Count::All => {
            for s in order {
                f(x, b, w, s, Slot::Full);
            }
            return;
        }
        Count::Known(_) => {
            let mut known = Count::known_slots_masked(b, count, bps);
            if rev {
                known.reverse();
            }
            for (s, part) in known {
                f(x, b, w, s, part);
            }
            return;
        }
        Count::Reg(n) => n,
    };
    if bps == 4 {
        set_slot_mask(b, count);
    }
    let done = b.label("slots_done");
    for s in order {
        if s < always_full(bps) {
            f(x, b, w, s, Slot::Full);
            continue;
        }
        let next = b.label("slot_next");
        if s > 0 {
            b.cmp(n, (s * bps) as i32 + 1);
            b.jb(if rev { &next } else { &done });
        }
        if bps > 1 {
            partial_slot(b, n, s, bps, &next, &mut |b, part| f(x, b, w, s, part));
        } else {
            f(x, b, w, s, Slot::Full);
        }
        b.bind(&next);
    }
    b.bind(&done);
}

fn slot_in(x: &Ctx, b: &mut B, w: Width, s: usize, part: Slot) {
    x.slot_in(b, w, s, part)
}
fn slot_out(x: &Ctx, b: &mut B, w: Width, s: usize, part: Slot) {
    x.slot_out(b, w, s, part)
}

/// CTR inputs for every slot: `ctr + i` as 128-bit little-endian values (the byte-swap to the state layout is
/// folded into the transposition). The counter is public, so the carry check may branch.
fn ctr_inputs(b: &mut B, x: &Ctx, w: Width, slots: usize) {
    let nblk = slots * w.blocks();
    let slow = b.label("ctr_carry");
    let done = b.label("ctr_ready");
    b.comment("Counter blocks: vpaddq from one base unless the low 64 bits wrap inside this batch.");
    b.mov(RAX, x.lo);
    b.add(RAX, nblk as i32 - 1);
    b.jb(&slow);
    let base = TMP[0];
    b.vmovq(base.x(), x.lo);
    b.vpinsrq(base.x(), base.x(), x.hi, 1);
    match w {
        Width::X => {}
        Width::Y => {
            b.vinserti128(base.y(), base.y(), base.x(), 0x01);
        }
        Width::Z => {
            b.vshufi64x2(base.z(), base.z(), base.z(), 0x00);
        }
    }
    let add = match (&x.ctr_z, w) {
        (Some((l, _)), Width::Z) => l,
        _ => &x.c.ctr_add,
    };
    b.lea(RAX, rip(add));
    for s in 0..slots {
        vaddq(b, w, slot_reg(s), base, mem(RAX, (16 * s * w.blocks()) as i32));
    }
    b.jmp(&done);
    b.bind(&slow);
    b.comment("Slow path: 128-bit increments one block at a time.");
    b.mov(RAX, x.lo);
    b.mov(R11, x.hi);
    for s in 0..slots {
        // vmovq/vpinsrq are VEX only (registers 0-15): the third zmm group's counters are built in TMP[2] and
        // moved.
        let v = if slot_reg(s).0 < 16 { slot_reg(s) } else { TMP[2] };
        for j in 0..w.blocks() {
            // Block j: the low xmm of the slot's register (0), TMP[1] (odd), TMP[0] (2).
            let d = match j {
                0 => v,
                2 => TMP[0],
                _ => TMP[1],
            };
            b.vmovq(d.x(), RAX);
            b.vpinsrq(d.x(), d.x(), R11, 1);
            b.add(RAX, 1);
            b.adc(R11, 0);
            match j {
                1 => {
                    b.vinserti128(v.y(), v.y(), TMP[1].x(), 0x01);
                }
                3 => {
                    b.vinserti128(TMP[0].y(), TMP[0].y(), TMP[1].x(), 0x01);
                    b.vinserti64x4(v.z(), v.z(), TMP[0].y(), 0x01);
                    if s >= 8 {
                        b.vmovdqu64(slot_reg(s).z(), v.z());
                    }
                }
                _ => {}
            }
        }
    }
    b.bind(&done);
}

/// The zmm CTR batch's words formed transposed from the counter, where its low 32 bits do not wrap inside the
/// batch (then jumps to `ready`, past [`ctr_inputs`] and the transposition, which take the other batches): the
/// first three words, the same in every block, broadcast (`vpshufd` of the counter block in every lane); the
/// last one the counter's low word plus each block's offset (`offsets`), byte-swapped where the rounds hold
/// the words as loaded ([`words_as_loaded`]); GFNI: into the domain, the counter block once for every group's
/// X0..X2. 25 vector ops in place of 60 (GFNI: the counters' `vpaddq`, the transposition, its byte swaps and
/// 12 maps into the domain).
fn ctr_words_z(b: &mut B, x: &Ctx, groups: &[[V; 4]], offsets: &[asmgen::Label; 3], ready: &asmgen::Label) {
    let general = b.label("ctr_carry32");
    let [block, low, _] = TMP;
    let loaded = words_as_loaded(&x.c, Width::Z);
    b.comment(if loaded {
        "Counter words, transposed, unless the low 32 bits wrap inside this batch: X0..X2 the counter's first 12 bytes as loaded (broadcast), X3 its low word + i, byte-swapped."
    } else {
        "Counter words, transposed, unless the low 32 bits wrap inside this batch: X0..X2 the counter's first three big-endian words (broadcast), X3 its low word + i."
    });
    b.mov(RAX.d(), x.lo.d());
    b.add(RAX.d(), 16 * groups.len() as i32 - 1);
    b.jb(&general);
    // The counter block's dwords: as loaded (the integers byte-swapped back), or its big-endian words, each
    // half's two swapped (dword 0 of the high integer is word 1).
    b.mov(RAX, x.hi);
    if loaded {
        b.bswap(RAX);
    }
    b.vmovq(block.x(), RAX);
    b.mov(RAX, x.lo);
    if loaded {
        b.bswap(RAX);
    }
    b.vpinsrq(block.x(), block.x(), RAX, 1);
    b.vshufi64x2(block.z(), block.z(), block.z(), 0x00);
    if x.c.sbox == Sbox::Gfni {
        b.comment(
            "Into the GFNI domain (Y = M1*X on every byte): the counter block once for every group's X0..X2, each X3.",
        );
        vaffine(b, Width::Z, block, block, POST_HI, 0);
    }
    b.vmovq(low.x(), x.lo);
    b.vshufi64x2(low.z(), low.z(), low.z(), 0x00);
    vshufd(b, Width::Z, low, low, 0x00);
    let dword = if loaded { [0, 1, 2] } else { [1, 0, 3] };
    for (g, l) in groups.iter().zip(offsets) {
        vaddd(b, Width::Z, g[3], low, rip(l));
        if loaded {
            bswap32(b, &x.c, Width::Z, g[3]);
        }
        if x.c.sbox == Sbox::Gfni {
            vaffine(b, Width::Z, g[3], g[3], POST_HI, 0);
        }
        for (&v, d) in g[..3].iter().zip(dword) {
            vshufd(b, Width::Z, v, block, 0x55 * d);
        }
    }
    b.jmp(ready);
    b.bind(&general);
}

/// One batch as `fill` says, on one group or two ([`by_groups`]).
fn batch(b: &mut B, x: &Ctx, w: Width, fill: Fill) {
    by_groups(b, x.n, w, fill, &|b, fill, ngroups| batch_groups(b, x, w, fill, ngroups));
}

/// One batch of up to `slots * blocks` blocks on the first `ngroups` groups: inputs, transposition, 32 rounds,
/// transposition, outputs.
fn batch_groups(b: &mut B, x: &Ctx, w: Width, fill: Fill, ngroups: usize) {
    let groups = &groups(ngroups)[..];
    let slots = 4 * ngroups;
    let nblk = slots * w.blocks();

    b.comment(format_args!("Load {nblk} blocks ({} per register).", w.blocks()));
    let words = match &x.ctr_z {
        Some((_, offsets)) if w == Width::Z => {
            let words = b.label("words_ready");
            ctr_words_z(b, x, groups, offsets, &words);
            Some(words)
        }
        _ => None,
    };
    if x.mode == Mode::Ctr {
        ctr_inputs(b, x, w, slots);
    } else {
        by_fill(b, x.n, nblk, fill, &|b, count| for_slots(b, x, w, slots, count, false, slot_in));
    }
    b.comment(if words_as_loaded(&x.c, w) {
        "Words as loaded (the zmm rounds' byte order), transposed: register j of a group holds word j of its blocks."
    } else {
        "Big-endian words, transposed: register j of a group holds word j of its blocks."
    });
    for g in groups {
        if x.mode == Mode::Ctr {
            // Little-endian 128-bit counters: dword k is word 3-k (big-endian: byte-swapped for the zmm rounds).
            transpose(b, w, *g, [g[3], g[2], g[1], g[0]], TMP);
            for &v in g.iter().filter(|_| words_as_loaded(&x.c, w)) {
                bswap32(b, &x.c, w, v);
            }
        } else {
            blocks_to_words(b, &x.c, w, &[*g]);
        }
    }
    match &words {
        Some(words) => {
            // The general path's words enter the GFNI domain here; the fast path's are in it already.
            enter(b, &x.c, w, groups);
            b.bind(words);
            rounds_entered(b, &x.c, w, groups, x.rk);
        }
        None => rounds(b, &x.c, w, groups, x.rk),
    }
    b.comment(if words_as_loaded(&x.c, w) {
        "Output words X35, X34, X33, X32: transpose back."
    } else {
        "Output words X35, X34, X33, X32: transpose back, byte-swap."
    });
    words_to_blocks(b, &x.c, w, groups);
    by_fill(b, x.n, nblk, fill, &|b, count| {
        let last = TMP[2].x();
        if x.mode.chains() {
            b.comment("The last ciphertext block becomes the IV (read before any store: dst may be src).");
            match count {
                Count::All => b.vmovdqu(last, mem(x.src, 16 * (nblk as i32 - 1))),
                Count::Known(k) => b.vmovdqu(last, mem(x.src, 16 * (k as i32 - 1))),
                Count::Reg(n) => {
                    b.mov(RAX, n);
                    b.shl(RAX, 4);
                    b.vmovdqu(last, mem_index(x.src, RAX, 1, -16))
                }
            };
        }
        for_slots(b, x, w, slots, count, x.mode == Mode::CbcDec, slot_out);
        match x.mode {
            Mode::CbcDec | Mode::CfbDec => {
                b.vmovdqu(mem(x.extra, 0), last);
            }
            Mode::Ctr => {
                match count {
                    Count::All => b.add(x.lo, nblk as i32),
                    Count::Known(k) => b.add(x.lo, k as i32),
                    Count::Reg(n) => b.add(x.lo, n),
                };
                b.adc(x.hi, 0);
            }
            Mode::Ecb => {}
        }
    });
}

/// `asmgen_sm4_<mode>_<set>`: a batch mode (ECB, CTR, CBC or CFB decryption); `w` is the main width
/// (8 blocks per batch on xmm, 16 on ymm; the ymm kernel finishes 1..8 blocks with one xmm batch).
pub fn batch_mode(mode: Mode, set: Set, abi: Abi) -> Result<Function<X86_64>, GenError> {
    batch_mode_of(mode, set, abi, Blocks::Arg)
}

/// [`batch_mode`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`, the JIT's fixed-size CTR).
pub fn batch_mode_of(mode: Mode, set: Set, abi: Abi, blocks: Blocks) -> Result<Function<X86_64>, GenError> {
    let w = set.width();
    let mut b = B::new(&format!("asmgen_sm4_{}_{}{}", mode.name(), set.name(), blocks.suffix()), abi, &set.features());
    b.doc(mode.doc());
    b.doc(format_args!("{} blocks in flight ({}); dst may equal src.", w.per_batch(), set.layout()));
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let (rk, dst, src, n, extra) = mode.params(&mut b);
    let extra = extra.unwrap_or(RAX);
    let c = Consts::new(&mut b, set.sbox());
    let ctr_z = (w == Width::Z && mode == Mode::Ctr).then(|| (ctr_add_z(&mut b), counter_offsets_z(&mut b)));
    let x = Ctx { c, mode, rk, dst, src, n, extra, lo: R9, hi: R10, ctr_z };
    x.c.load_tables(&mut b, w);
    if w == Width::Z {
        b.comment("The ymm and xmm batches below 48 blocks read the tables from the low halves of the same registers.");
    }
    x.c.map_keys_z(&mut b, w, rk);
    if mode == Mode::Ctr {
        b.comment("The counter as two integers (hi, lo).");
        b.mov(x.hi, mem(extra, 0));
        b.mov(x.lo, mem(extra, 8));
        b.bswap(x.hi);
        b.bswap(x.lo);
    }
    batch_loop(&mut b, Trips::new(blocks, n), (src, dst), (w, set.sbox() == Sbox::Gfni), &|b, w, fill| {
        batch(b, &x, w, fill)
    });
    if mode == Mode::Ctr {
        b.bswap(x.hi);
        b.bswap(x.lo);
        b.mov(mem(extra, 0), x.hi);
        b.mov(mem(extra, 8), x.lo);
    }
    x.c.wipe_keys_z(&mut b);
    if w != Width::X {
        b.vzeroupper();
    }
    b.finish()
}

/// `asmgen_sm4_{cbc_enc,cfb_enc,cbc_mac}_<avx|gfni>` (xmm; `set` picks the S-box).
pub fn serial_mode(mode: Serial, set: Set, abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = B::new(&format!("asmgen_sm4_{}_{}", mode.name(), set.name()), abi, &set.features());
    b.doc(mode.doc());
    b.doc("Serial: one block per 32 rounds.");
    let (rk, dst, src, n, state) = mode.params(&mut b);
    let c = Consts::new(&mut b, set.sbox());
    c.load_tables(&mut b, Width::X);
    let s = V(4);
    let done = b.label("done");
    let lp = b.label("loop");
    b.test(n, n);
    b.jz(&done);
    b.vmovdqu(s.x(), mem(state, 0));
    b.align(4);
    b.bind(&lp);
    match mode {
        Serial::CbcEnc | Serial::CbcMac => {
            b.vpxor(s.x(), s.x(), mem(src, 0));
            encrypt_one(&mut b, &c, rk, s);
        }
        Serial::CfbEnc => {
            encrypt_one(&mut b, &c, rk, s);
            b.vpxor(s.x(), s.x(), mem(src, 0));
        }
    }
    if let Some(dst) = dst {
        b.vmovdqu(mem(dst, 0), s.x());
        b.add(dst, 16);
    }
    b.add(src, 16);
    b.sub(n, 1);
    b.jnz(&lp);
    b.vmovdqu(mem(state, 0), s.x());
    b.bind(&done);
    b.finish()
}

/// The registers of the key schedules beside [`GROUPS`]`[0]` (the words `K[i..i+4]`, word `i + j` in register
/// `j`, dword 0; the other dwords are never read): the S-box input `u` of this round and `s` of the next, `p`, and
/// a round's scratch ([`KEY_T`]; the AES-NI schedule also xmm12-xmm15, where the GFNI one keeps its matrices).
const KEY_U: V = V(4);
/// See [`KEY_U`].
const KEY_S: V = V(5);
/// See [`KEY_U`].
const KEY_P: V = V(6);
/// See [`KEY_U`].
const KEY_T: [V; 5] = [V(7), V(8), V(9), V(10), V(11)];

/// What tells the two x86_64 key schedules apart, for [`key_schedule`].
struct KeyDomain<'a> {
    /// Maps `K = MK ^ FK` (in the given register) into the domain the words are kept in.
    into: &'a dyn Fn(&mut B, V),
    /// Maps a register of four round keys out of that domain.
    out: &'a dyn Fn(&mut B, V),
    /// `s ^= T'(u)` in the domain, `u` consumed; the scratch is [`KEY_T`].
    add_t: &'a dyn Fn(&mut B, V, V),
}

/// The frame of the x86_64 key schedules: `K = MK ^ FK` as big-endian words, mapped into the domain; then 8
/// passes of four rounds, each pass storing its four round keys with one store per schedule.
///
/// A round is laid out as [`rounds_one`]'s: the new word only feeds the next round's S-box input, so each round
/// computes that input directly, `u' = K[i+2] ^ K[i+3] ^ ck[i+1] ^ K[i+4] = s ^ T'(u)` with `p = K[i+2] ^
/// K[i+3] ^ ck[i+1]` and `s = p ^ K[i]` summed off the chain (neither depends on this round's S-box), and the
/// new word afterwards as `K[i+4] = u' ^ p`. `ck` is read as 16 bytes at the next round's word (its table
/// ends with 16 zero bytes).
fn key_schedule(b: &mut B, [re, rd, key]: [Gpr; 3], (bswap, fk, ck): (&Label, &Label, &Label), d: KeyDomain) {
    let g = GROUPS[0];
    let (mut u, mut s, p) = (KEY_U, KEY_S, KEY_P);
    b.comment("K = MK ^ FK as big-endian words, in the domain; word j in register j.");
    b.vmovdqu(g[0].x(), mem(key, 0));
    b.vpshufb(g[0].x(), g[0].x(), rip(bswap));
    b.vpxor(g[0].x(), g[0].x(), rip(fk));
    (d.into)(b, g[0]);
    for j in (0..4).rev() {
        b.vpshufd(g[j].x(), g[0].x(), 0x55 * j as u8);
    }
    let (ckp, end, rdp) = (RAX, R11, R8);
    b.lea(ckp, rip(ck));
    b.lea(end, mem(ckp, 128));
    b.lea(rdp, mem(rd, 112));
    b.comment("The first S-box input, u = K1 ^ K2 ^ K3 ^ ck[0].");
    b.vpxor(u.x(), g[1].x(), g[2].x());
    b.vpxor(u.x(), u.x(), g[3].x());
    b.vpxor(u.x(), u.x(), mem(ckp, 0));
    let lp = b.label("loop");
    b.align(4);
    b.bind(&lp);
    for j in 0..4 {
        let x = [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]];
        b.comment(format_args!(
            "rk[4i+{j}]: p = K{} ^ K{} ^ ck[4i+{}], s = p ^ K{j} off the chain; s ^= T'(u) is the next round's u, \
             K{j} = s ^ p.",
            (j + 2) % 4,
            (j + 3) % 4,
            j + 1,
        ));
        b.vpxor(p.x(), x[2].x(), x[3].x());
        b.vpxor(p.x(), p.x(), mem(ckp, 4 * (j as i32 + 1)));
        b.vpxor(s.x(), p.x(), x[0].x());
        (d.add_t)(b, u, s);
        b.vpxor(x[0].x(), s.x(), p.x());
        std::mem::swap(&mut u, &mut s);
    }
    b.comment("The pass's four round keys, gathered: rk_enc in order, rk_dec reversed.");
    let [k, t] = [KEY_T[0], KEY_T[1]];
    b.vpunpckldq(k.x(), g[0].x(), g[1].x());
    b.vpunpckldq(t.x(), g[2].x(), g[3].x());
    b.vpunpcklqdq(k.x(), k.x(), t.x());
    (d.out)(b, k);
    b.vmovdqu(mem(re, 0), k.x());
    b.vpshufd(k.x(), k.x(), 0x1b);
    b.vmovdqu(mem(rdp, 0), k.x());
    b.add(ckp, 16);
    b.add(re, 16);
    b.sub(rdp, 16);
    b.cmp(ckp, end);
    b.jnz(&lp);
    b.comment("Clear the key material from the vector registers.");
    for j in 0..16 {
        b.vpxor(V(j).x(), V(j).x(), V(j).x());
    }
}

/// `asmgen_sm4_expand_key_avx(rk_enc, rk_dec, key)`: the key schedule, both orders, with AES-NI, the words kept
/// in the pre-affine map's domain `Y = M1·K` ([`AesKeyConsts`]); the frame is `key_schedule`'s.
///
/// The S-box input goes straight into `aesenclast`, and the post-affine map, `L'` and `M1` are four nibble
/// lookups `Hk` of its output `y`, each undone ShiftRows and rotated by `k` bits with one `vpshufb`:
/// `s ^= isr0(H0(y)) ^ isr8(H8(y)) ^ isr16(H16(y)) ^ isr24(H24(y))`. `s` joins the first term before its
/// shuffle (as `ShiftRows(s)`, off the chain), so the terms add as a tree of depth two. From one S-box input to
/// the next: `aesenclast` and 7 dependent vector ops (the nibble split's 2, lookup, xor, shuffle, two xors).
pub fn expand_key(abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = B::new("asmgen_sm4_expand_key_avx", abi, &Set::Avx.features());
    crate::doc_role(&mut b, Role::ExpandKey);
    b.doc("K = MK ^ FK, rk[i] = K[i+4] = K[i] ^ L'(S(K[i+1] ^ K[i+2] ^ K[i+3] ^ CK[i])), L'(B) = B ^ rol(B, 13) ^");
    b.doc("rol(B, 23), with the words in the S-box's pre-affine domain M1*K: per round aesenclast, four nibble");
    b.doc("lookups (post-affine map, L' and M1 in one), four vpshufb, and the xors that do not wait for the S-box");
    b.doc("off the chain.");
    let params = role::params(&mut b, Role::ExpandKey);
    let c = Consts::new(&mut b, Sbox::AesNi);
    let k = AesKeyConsts::new(&mut b);
    let w = Width::X;
    // The nibble map `tables` of `v` into `v`; clobbers `t`.
    let map = |b: &mut B, v: V, t: [V; 3], tables: &(Label, Label)| {
        nibbles(b, &c, w, v, t[0]);
        lookup_in_memory(b, w, v, [t[1], t[2]], [v, t[0]], tables);
    };
    let add_t = |b: &mut B, u: V, s: V| {
        let h = KEY_T[0];
        let t: [[V; 2]; 4] = std::array::from_fn(|n| [V(8 + 2 * n as u8), V(9 + 2 * n as u8)]);
        b.vaesenclast(u.x(), u.x(), rip(&c.zero));
        nibbles(b, &c, w, u, h);
        vshufb(b, w, s, s, rip(&k.shift_rows));
        for (n, ([lo, hi], (llo, lhi))) in t.iter().zip(&k.h).enumerate() {
            load_table(b, w, *lo, llo);
            vshufb(b, w, *lo, *lo, u);
            load_table(b, w, *hi, lhi);
            vshufb(b, w, *hi, *hi, h);
            if n == 0 {
                vxor(b, w, *lo, *lo, s);
            }
            vxor(b, w, *lo, *lo, *hi);
            vshufb(b, w, *lo, *lo, rip(&c.isr_rol[n]));
        }
        let [t0, t8, t16, t24] = t.map(|[lo, _]| lo);
        vxor(b, w, t8, t8, t16);
        vxor(b, w, s, t0, t24);
        vxor(b, w, s, s, t8);
    };
    let into = |b: &mut B, v: V| map(b, v, [V(12), V(13), V(14)], &k.enter);
    let out = |b: &mut B, v: V| map(b, v, [V(12), V(13), V(14)], &k.leave);
    key_schedule(&mut b, params, (&c.bswap32, &c.fk, &k.ck), KeyDomain { into: &into, out: &out, add_t: &add_t });
    b.finish()
}

/// `asmgen_sm4_expand_key_gfni(rk_enc, rk_dec, key)`: the key schedule, both orders, with GFNI
/// ([`gfni::key_round`](crate::sm4::gfni::key_round)): the words kept in the domain `Y = M1·K`, so the S-box
/// input goes straight into `vgf2p8affineinvqb`, whose four matrices give `M1·L'(S(u))`'s terms, three of them
/// rotated by `vpshufb`; the frame is `key_schedule`'s.
pub fn expand_key_gfni(abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = B::new("asmgen_sm4_expand_key_gfni", abi, &Set::Gfni.features());
    crate::doc_role(&mut b, Role::ExpandKey);
    b.doc("K = MK ^ FK, rk[i] = K[i+4] = K[i] ^ L'(S(K[i+1] ^ K[i+2] ^ K[i+3] ^ CK[i])), L'(B) = B ^ rol(B, 13) ^");
    b.doc("rol(B, 23), with the words in GFNI's domain M1*K: per round four vgf2p8affineinvqb (the terms of L'");
    b.doc("rotated by 0, 8, 16, 24 bits), three vpshufb, and the xors that do not wait for the S-box off the chain.");
    let params = role::params(&mut b, Role::ExpandKey);
    let c = Consts::new(&mut b, Sbox::Gfni);
    let k = GfniKeyConsts::new(&mut b);
    let w = Width::X;
    let mats = [PRE_LO, PRE_HI, POST_LO, POST_HI];
    for (m, (l, _)) in mats.iter().zip(&k.rot) {
        b.vmovdqa(m.x(), rip(l));
    }
    let g = c.g();
    let add_t = |b: &mut B, u: V, s: V| {
        let t = KEY_T;
        for (n, (m, (_, imm))) in mats.iter().zip(&k.rot).enumerate().rev() {
            vaffineinv(b, w, t[n], u, *m, *imm);
        }
        for (&v, rol) in t[1..4].iter().zip(&g.rol) {
            vshufb(b, w, v, v, rip(rol));
        }
        vxor(b, w, s, s, t[0]);
        vxor(b, w, t[1], t[1], t[2]);
        vxor(b, w, s, s, t[3]);
        vxor(b, w, s, s, t[1]);
    };
    let into = |b: &mut B, v: V| vaffine(b, w, v, v, rip(&g.enter), 0);
    let out = |b: &mut B, v: V| vaffine(b, w, v, v, rip(&g.leave), 0);
    key_schedule(&mut b, params, (&c.bswap32, &c.fk, &k.ck), KeyDomain { into: &into, out: &out, add_t: &add_t });
    b.finish()
}

/// The functions of one kernel set, as the runtime's set of that name links them: the set's own batch, XTS and
/// GCM kernels (the zmm sets: their own batch and XTS kernels); its key schedule, serial modes and CCM where it
/// has its own (GFNI, and GFNI + AVX-512: the GFNI set's), the AES-NI AVX ones otherwise.
///
/// The ymm and xmm sets' fused GCM kernels multiply as `x86_64-pclmulqdq-avx` (the catalog's `fused_ghash`), and
/// `Sm4Gcm` composes GCM from the CTR and GHASH kernels wherever a GHASH set ranked above that one runs. The
/// GFNI zmm set's own fused kernels multiply four blocks at a time against the table's extension, as
/// `x86_64-vpclmul-avx512` does (its `fused_ghash`); the VAES zmm set links none yet, and GCM is composed there.
///
/// Only the kernels whose role `want` accepts are built; the others never are (the JIT lowers kernels as they
/// are built).
pub fn set_functions_only(set: Set, abi: Abi, want: &dyn Fn(Role) -> bool) -> Kernels<X86_64> {
    let fused_gcm = set.width() != Width::Z || set == Set::GfniAvx512;
    type Build<'a> = &'a dyn Fn() -> Result<Function<X86_64>, GenError>;
    let one = |role: Role, build: Build| -> Result<Option<Kernel<X86_64>>, GenError> {
        Ok(if want(role) { Some(Kernel::new(role, build()?)) } else { None })
    };
    let mut v = Vec::new();
    let serial = if set.base() == Set::Gfni { Set::Gfni } else { Set::Avx };
    if serial == Set::Gfni {
        v.extend(one(Role::ExpandKey, &|| expand_key_gfni(abi))?);
    } else {
        v.extend(one(Role::ExpandKey, &|| expand_key(abi))?);
    }
    for m in [Mode::Ecb, Mode::Ctr, Mode::CbcDec, Mode::CfbDec] {
        v.extend(one(m.into(), &|| batch_mode(m, set, abi))?);
    }
    v.extend(xts::kernels_only(set, abi, Blocks::Arg, want)?);
    for m in [Serial::CbcEnc, Serial::CfbEnc, Serial::CbcMac] {
        v.extend(one(m.role(), &|| serial_mode(m, serial, abi))?);
    }
    if fused_gcm {
        for dec in [false, true] {
            v.extend(one(Role::gcm(dec), &|| gcm::gcm(set, dec, abi))?);
        }
    }
    v.extend(one(Role::CcmEnc, &|| ccm::ccm(true, serial, abi))?);
    v.extend(one(Role::CcmDec, &|| ccm::ccm(false, serial, abi))?);
    Ok(v)
}

/// The fixed-size kernels of one set (the JIT's specialisations): XTS for a data-unit size, CTR for a message
/// size.
pub fn fixed_functions(set: Set, abi: Abi, fixed: Fixed) -> Kernels<X86_64> {
    match fixed {
        Fixed::Xts(n) => xts::kernels(set, abi, Blocks::Fixed(n)),
        Fixed::Ctr(n) => Ok(vec![Kernel::new(Role::Ctr, batch_mode_of(Mode::Ctr, set, abi, Blocks::Fixed(n))?)]),
        Fixed::Hash(_) => Ok(Vec::new()),
    }
}

/// Every SM4 function for x86_64, in listing order: the key schedule; the AES-NI AVX and AVX2 kernels kind by
/// kind (batch modes, serial modes, XTS, GCM, CCM); then the GFNI and VAES sets' own batch, XTS and GCM
/// kernels set by set; then the GFNI key schedule, serial and CCM kernels; then the GFNI and the VAES AVX-512 sets' batch
/// modes and XTS kernels (and the GFNI one's GCM kernels), set by set.
pub fn functions(abi: Abi) -> Result<Vec<Function<X86_64>>, GenError> {
    let xts = |set| -> Result<Vec<Function<X86_64>>, GenError> {
        Ok(xts::kernels(set, abi, Blocks::Arg)?.into_iter().map(|k| k.function).collect())
    };
    let mut v = vec![expand_key(abi)?];
    for set in [Set::Avx, Set::Avx2] {
        for m in Mode::ALL {
            v.push(batch_mode(m, set, abi)?);
        }
    }
    for m in Serial::ALL {
        v.push(serial_mode(m, Set::Avx, abi)?);
    }
    for set in [Set::Avx, Set::Avx2] {
        v.extend(xts(set)?);
    }
    for set in [Set::Avx, Set::Avx2] {
        v.push(gcm::gcm(set, false, abi)?);
        v.push(gcm::gcm(set, true, abi)?);
    }
    v.push(ccm::ccm(true, Set::Avx, abi)?);
    v.push(ccm::ccm(false, Set::Avx, abi)?);
    for set in [Set::Gfni, Set::Vaes] {
        for m in Mode::ALL {
            v.push(batch_mode(m, set, abi)?);
        }
        v.extend(xts(set)?);
        v.push(gcm::gcm(set, false, abi)?);
        v.push(gcm::gcm(set, true, abi)?);
    }
    v.push(expand_key_gfni(abi)?);
    for m in Serial::ALL {
        v.push(serial_mode(m, Set::Gfni, abi)?);
    }
    v.push(ccm::ccm(true, Set::Gfni, abi)?);
    v.push(ccm::ccm(false, Set::Gfni, abi)?);
    for set in [Set::GfniAvx512, Set::VaesAvx512] {
        for m in Mode::ALL {
            v.push(batch_mode(m, set, abi)?);
        }
        v.extend(xts(set)?);
        if set == Set::GfniAvx512 {
            v.push(gcm::gcm(set, false, abi)?);
            v.push(gcm::gcm(set, true, abi)?);
        }
    }
    Ok(v)
}
