//! SM4 with the vector crypto extensions: Zvksed (`vsm4k.vi`, `vsm4r.vs`), Zvkb (`vrev8.v`, `vbrev8.v`,
//! `vror.vi`) and, for XTS, Zvkg (`vgmul.vv`). VLEN-agnostic: every loop asks `vsetvli` for as many 32-bit
//! elements as blocks remain (four per block, one element group), at LMUL 4.
//!
//! The state of a block is one element group of four 32-bit elements `X0..X3` (numeric values: `vle32`
//! loads the big-endian words byte-swapped, `vrev8.v` swaps them back). `vsm4r.vs` runs four rounds on every
//! element group of the register group with the four round keys of one register, so 32 rounds are eight
//! `vsm4r.vs` with the round keys held in v0..v7 for the whole call. The result `X32..X35` is stored as
//! `X35..X32` big-endian: a `vrgather.vv` with indices `i ^ 3` reverses the words of each group and
//! `vrev8.v` swaps their bytes.
//!
//! Bottleneck: per register group (VLEN/32 blocks at LMUL 4) the cipher is eight dependent `vsm4r.vs`, plus
//! two permutations, one load, one store and the mode's xors. On a core with one vector crypto pipe the
//! `vsm4r` throughput bounds the bulk modes: 8 x (LMUL 4 = four register-sized issues) per group of
//! VLEN/32 blocks. CTR builds its counters in the vector unit (64-bit lanes `hi, lo + i`, rotated by 32 to
//! big-endian word order) unless the low 64 bits wrap inside the batch (then one block at a time: the counter
//! is public, the branch leaks nothing). XTS keeps the tweaks of a whole register group in GCM's bit order
//! and steps them with one `vgmul` by x^G per batch. The serial modes are latency bound: eight `vsm4r`
//! latencies per block. The XTS unit kernels encrypt the tweak first (one element group), run the same
//! strip-mining loop, and steal ciphertext one block at a time with a byte loop over the (public) tail.
//!
//! Modelled (llvm-mca-19 `-mcpu=sifive-p670`, VLEN 128, a model, not a measurement): the CTR loop takes 32
//! cycles per 4 blocks, 0.50 cycles/byte, bound by the eight LMUL-4 `vsm4r.vs` (4 cycles each on the one
//! vector crypto pipe); everything else of the loop issues in their shadow.
//!
//! Constant time: data only reaches vector arithmetic, `vsm4r`, `vgmul` and permutations with data-independent
//! indices; branches and addresses depend on lengths, pointers and the (public) CTR counter only.

use super::FK;
use crate::plan::Trips;
use crate::role::{self, Role};
use crate::{Blocks, Fixed};
use asmgen::isa::riscv64::{mem, regs::*, Riscv64, RvFeature, VType, V, X};
use asmgen::{Abi, Builder, Function, GenError, Label};

type B = Builder<Riscv64>;

/// The features of the vector set (XTS also needs Zvkg).
pub const FEATURES: [RvFeature; 3] = [RvFeature::V, RvFeature::Zvkb, RvFeature::Zvksed];

const E32M1: VType = VType { sew: 32, lmul: 1 };
const E32M4: VType = VType { sew: 32, lmul: 4 };
const E64M4: VType = VType { sew: 64, lmul: 4 };

// Vector register roles. The round keys occupy v0..v7 (one register of four keys per four rounds); the
// register groups of LMUL 4 are v8, v12, ..., v28.
/// Word-reversal indices `i ^ 3`.
const IDX3: V = V(8);
/// The cipher's state.
const D: V = V(12);
/// The cipher's output.
const T: V = V(16);
/// The mode's mask (source blocks, previous blocks).
const M: V = V(20);
/// CTR: group index per 64-bit lane (`i >> 1`); XTS: the tweaks (GCM bit order).
const G1: V = V(24);
/// CTR: all-ones in odd 64-bit lanes; XTS: the step x^G of every group.
const G2: V = V(28);

fn rk_reg(i: usize) -> V {
    V(i as u8)
}

/// Loads the 32 round keys at `rk` into v0..v7 (numeric words, as `vsm4r` wants them). Clobbers `p`; leaves
/// vl = 4.
fn load_keys(b: &mut B, rk: X, p: X) {
    b.comment("The 32 round keys, four per register, in v0..v7.");
    b.vsetivli(ZERO, 4, E32M1);
    b.mv(p, rk);
    for i in 0..8 {
        b.vle32_v(rk_reg(i), p);
        if i < 7 {
            b.addi(p, p, 16);
        }
    }
}

/// `IDX3 = i ^ 3` for every element (vl = VLMAX at e32, m4).
fn word_reverse_indices(b: &mut B, t: X) {
    b.vsetvli(t, ZERO, E32M4);
    b.vid_v(IDX3);
    b.vxor_vi(IDX3, IDX3, 3);
}

/// 32 rounds on every element group of `D` (big-endian words as loaded when `swap_in`), result in `T` as
/// bytes to store.
fn crypt(b: &mut B, swap_in: bool) {
    if swap_in {
        b.vrev8_v(D, D);
    }
    b.comment("32 rounds: eight vsm4r.vs, four rounds each.");
    for i in 0..8 {
        b.vsm4r_vs(D, rk_reg(i));
    }
    b.comment("X35, X34, X33, X32 big-endian: reverse the words of each group, swap their bytes.");
    b.vrgather_vv(T, D, IDX3);
    b.vrev8_v(T, T);
}

use crate::sm4::Mode;

/// `D = (hi, lo + i)` in 64-bit lanes `2i, 2i + 1` (`G1` = lane >> 1, `G2` = all-ones in odd lanes): a select
/// by mask, `hi ^ ((lo + i) ^ hi) & odd`. With `vl` > 0, sets vl = `vl` lanes at e64 first.
fn ctr_lanes(b: &mut B, hi: X, lo: X, vl: u8) {
    if vl > 0 {
        b.vsetivli(ZERO, vl as i32, E64M4);
    }
    b.vadd_vx(D, G1, lo);
    b.vxor_vx(D, D, hi);
    b.vand_vv(D, D, G2);
    b.vxor_vx(D, D, hi);
}

/// `vl = min(4 * n, VLMAX)` at e32, m4; `blk = vl / 4`.
fn set_vl(b: &mut B, n: X, vl: X, blk: X) {
    b.slli(vl, n, 2);
    b.vsetvli(vl, vl, E32M4);
    b.srli(blk, vl, 2);
}

/// `asmgen_sm4_<mode>_zvksed`: a batch mode, VLEN/32 blocks per register group.
pub fn batch_mode(mode: Mode, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    batch_mode_of(mode, abi, Blocks::Arg)
}

/// [`batch_mode`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`, the JIT's fixed-size CTR).
/// VLEN is unknown when the kernel is generated, so the fixed count still runs the `vsetvli` strip-mining
/// loop (the count is loaded into the register `nblocks` arrived in), as does the counter-wrap path (the
/// counter is an argument); the count removes the zero-length check, and for one block the wrap check (a
/// single counter block cannot wrap inside the batch).
// Over 100 lines: one vsetvli strip-mining loop read top to bottom (inputs per mode, rounds, the mode's xor,
// stores, the CTR wrap path beside it); its parts share a dozen registers and labels.
pub fn batch_mode_of(mode: Mode, abi: Abi, blocks: Blocks) -> Result<Function<Riscv64>, GenError> {
    let mut b = B::new(&format!("asmgen_sm4_{}_zvksed{}", mode.name(), blocks.suffix()), abi, &FEATURES);
    b.doc(mode.doc());
    b.doc("Vector: every element group of a register group (LMUL 4) is a block; dst may equal src.");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
        b.doc("VLEN-agnostic: the vsetvli loop stays; no zero check (and for one block no wrap check).");
    }
    let (rk, dst, src, n, extra) = mode.params(&mut b);
    let extra = extra.unwrap_or(ZERO);
    let (vl, blk, t, u, hi, lo, four) = (T0, T1, T2, T3, T4, T5, T6);
    let (lp, done) = (b.label("loop"), b.label("done"));
    let trips = Trips::new(blocks, n);
    trips.skip_if_zero(&mut b, &done);
    trips.load_known(&mut b);
    load_keys(&mut b, rk, t);
    word_reverse_indices(&mut b, t);
    if mode == Mode::Ctr {
        b.comment("Counter lanes: G1 = lane >> 1 (the block), G2 = all-ones in the odd (low-half) lanes.");
        b.vsetvli(t, ZERO, E64M4);
        b.vid_v(G1);
        b.vand_vi(G2, G1, 1);
        b.vrsub_vi(G2, G2, 0);
        b.vsrl_vi(G1, G1, 1);
        b.comment("The counter as two integers (hi, lo): big-endian qwords, byte-swapped by vrev8 at e64.");
        b.vsetivli(ZERO, 2, E64M4);
        b.vle64_v(D, extra);
        b.vrev8_v(D, D);
        b.vmv_x_s(hi, D);
        b.li(four, 1);
        b.vslidedown_vx(T, D, four);
        b.vmv_x_s(lo, T);
    }
    if mode.chains() {
        b.li(four, 4);
    }
    b.align(4);
    b.bind(&lp);
    set_vl(&mut b, n, vl, blk);
    match mode {
        Mode::Ecb => {
            b.vle32_v(D, src);
            crypt(&mut b, true);
        }
        Mode::Ctr => {
            if trips.known() != Some(1) {
                let fast = b.label("no_wrap");
                b.comment("If lo + blocks - 1 wraps, do one block only (the carry then reaches hi exactly once).");
                b.addi(t, blk, -1);
                b.add(t, t, lo);
                b.bgeu(t, lo, &fast);
                b.vsetivli(vl, 4, E32M4);
                b.li(blk, 1);
                b.bind(&fast);
            }
            b.comment("Lanes (hi, lo + i) at e64, rotated by 32: the big-endian words of ctr + i.");
            b.srli(t, vl, 1);
            b.vsetvli(ZERO, t, E64M4);
            ctr_lanes(&mut b, hi, lo, 0);
            b.vror_vi(D, D, 32);
            b.vsetvli(ZERO, vl, E32M4);
            b.vle32_v(M, src);
            crypt(&mut b, false);
            b.vxor_vv(T, T, M);
            b.add(lo, lo, blk);
            b.sltu(t, lo, blk);
            b.add(hi, hi, t);
        }
        Mode::CbcDec | Mode::CfbDec => {
            let (cur, prev) = if mode == Mode::CbcDec { (D, M) } else { (M, D) };
            b.comment("Previous blocks: the IV, then the source slid up by one group.");
            b.vle32_v(cur, src);
            b.vsetivli(ZERO, 4, E32M4);
            b.vle32_v(prev, extra);
            b.vsetvli(ZERO, vl, E32M4);
            b.vslideup_vx(prev, cur, four);
            crypt(&mut b, true);
            b.vxor_vv(T, T, M);
            b.comment("The last ciphertext block becomes the IV (read before the store: dst may be src).");
            b.slli(t, blk, 4);
            b.add(t, t, src);
            b.ld(hi, mem(t, -16));
            b.ld(lo, mem(t, -8));
        }
    }
    b.vse32_v(T, dst);
    if mode.chains() {
        b.sd(hi, mem(extra, 0));
        b.sd(lo, mem(extra, 8));
    }
    b.slli(u, vl, 2);
    b.add(src, src, u);
    b.add(dst, dst, u);
    b.sub(n, n, blk);
    b.bnez(n, &lp);
    if mode == Mode::Ctr {
        b.comment("Store the counter: lanes (hi, lo), byte-swapped.");
        ctr_lanes(&mut b, hi, lo, 2);
        b.vrev8_v(D, D);
        b.vse64_v(D, extra);
    }
    trips.bind_skip(&mut b, &done);
    b.finish()
}

pub use super::Serial;

/// `asmgen_sm4_{cbc_enc,cfb_enc,cbc_mac}_zvksed`: one block (one element group) at a time.
pub fn serial_mode(mode: Serial, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let mut b = B::new(&format!("asmgen_sm4_{}_zvksed", mode.name()), abi, &FEATURES);
    b.doc(mode.doc());
    b.doc("Serial: one block per eight dependent vsm4r.");
    let (rk, dst, src, n, state) = mode.params(&mut b);
    let t = T0;
    let (lp, done) = (b.label("loop"), b.label("done"));
    b.beqz(n, &done);
    load_keys(&mut b, rk, t);
    word_reverse_indices(&mut b, t);
    b.vsetivli(ZERO, 4, E32M4);
    b.comment("The chaining value lives in T (the cipher's output register).");
    b.vle32_v(T, state);
    b.align(4);
    b.bind(&lp);
    b.vle32_v(M, src);
    if mode == Serial::CfbEnc {
        b.vmv_v_v(D, T);
        crypt(&mut b, true);
        b.vxor_vv(T, T, M);
    } else {
        b.vxor_vv(D, T, M);
        crypt(&mut b, true);
    }
    if let Some(dst) = dst {
        b.vse32_v(T, dst);
        b.addi(dst, dst, 16);
    }
    b.addi(src, src, 16);
    b.addi(n, n, -1);
    b.bnez(n, &lp);
    b.vse32_v(T, state);
    b.bind(&done);
    b.finish()
}

/// `asmgen_sm4_expand_key_zvksed(rk_enc, rk_dec, key)`: eight `vsm4k.vi`.
pub fn expand_key(abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let mut b = B::new("asmgen_sm4_expand_key_zvksed", abi, &FEATURES);
    crate::doc_role(&mut b, Role::ExpandKey);
    b.doc("vsm4k.vi: K = MK ^ FK, then four round keys per instruction.");
    let [re, rd, key] = role::params(&mut b, Role::ExpandKey);
    let fk: Vec<u8> = FK.iter().flat_map(|w| w.to_le_bytes()).collect();
    let fk = b.constant("sm4_fk_le", 4, "SM4 FK, little-endian words", &fk);
    let p = T0;
    let (k, k2, f, r) = (V(1), V(2), V(3), V(4));
    b.vsetivli(ZERO, 4, E32M1);
    b.vid_v(IDX3);
    b.vxor_vi(IDX3, IDX3, 3);
    b.comment("K = MK ^ FK as numeric words.");
    b.vle32_v(k, key);
    b.vrev8_v(k, k);
    b.lla(p, &fk);
    b.vle32_v(f, p);
    b.vxor_vv(k, k, f);
    b.addi(rd, rd, 112);
    for i in 0..8 {
        let (src, dst) = if i % 2 == 0 { (k, k2) } else { (k2, k) };
        b.comment(format_args!("rk[{}..{}]; reversed for rk_dec.", 4 * i, 4 * i + 4));
        b.vsm4k_vi(dst, src, i);
        b.vse32_v(dst, re);
        b.vrgather_vv(r, dst, IDX3);
        b.vse32_v(r, rd);
        if i < 7 {
            b.addi(re, re, 16);
            b.addi(rd, rd, -16);
        }
    }
    b.comment("Clear the key material.");
    for v in [k, k2, r] {
        b.vmv_v_i(v, 0);
    }
    b.finish()
}

/// x^0 .. x^XTS_MAX in GCM's bit order (byte j/8, bit 7 - j%8).
const XTS_MAX: usize = 32;

fn xts_powers(b: &mut B) -> Label {
    let mut bytes = vec![0u8; 16 * (XTS_MAX + 1)];
    for j in 0..=XTS_MAX {
        bytes[16 * j + j / 8] = 0x80 >> (j % 8);
    }
    b.constant("gcm_x_powers_0_32", 16, "x^0..x^32 in GCM bit order", &bytes)
}

/// The XTS tweak conventions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Xts {
    /// IEEE 1619: little-endian, doubling with 0x87 (GCM's field with the bits of each byte reversed).
    Ieee,
    /// GB/T 17964: GCM's own bit order (big-endian, shift right, 0xe1).
    Gb,
}

/// `asmgen_sm4_xts_{enc,dec}_{ieee,gb}_zvksed(rk, dst, src, nblocks, tweak)`: XTS on whole blocks; `tweak`
/// (the encrypted tweak of the first block) becomes the next block's.
pub fn xts(conv: Xts, decrypt: bool, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    xts_of(conv, decrypt, abi, Blocks::Arg)
}

/// The general-purpose registers of the XTS kernels.
struct XtsRegs {
    /// This batch's element count (4 per block) and block count.
    vl: X,
    blk: X,
    /// Scratch.
    t: X,
    /// The elements of a whole batch (VLMAX at e32, m4, capped at 32 blocks) and its blocks, G.
    full: X,
    g: X,
    /// The address of the powers of x.
    p: X,
}

const XTS_REGS: XtsRegs = XtsRegs { vl: T0, blk: T1, t: T2, full: T3, g: T4, p: T5 };
/// XTS: the tweaks of a batch (GCM bit order), the step x^G, and the tweaks as the data sees them.
const TW: V = G1;
const STEP: V = G2;
const TI: V = M;

/// Where the XTS set-up finds T[0]: in memory (the streaming kernels' `tweak`), or already in a register
/// group's first element group, as `vle32` would have loaded it (the unit kernels' encrypted `iv`).
#[derive(Clone, Copy)]
enum TweakIn {
    Mem(X),
    Reg(V),
}

/// G, the powers of x and the tweaks of the first batch: `TW` = T[0] * x^i in group i, `STEP` = x^G in
/// every group; the powers' address stays in `p`.
fn xts_setup(b: &mut B, conv: Xts, r: &XtsRegs, pow: &Label, tweak: TweakIn) {
    b.comment("G = blocks per batch: VLMAX / 4 at e32, m4, at most 32.");
    b.li(r.t, 4 * XTS_MAX as i32);
    b.vsetvli(r.full, r.t, E32M4);
    b.srli(r.g, r.full, 2);
    b.comment("Broadcast indices (i & 3) in T, x^0..x^(G-1) in ti.");
    b.vid_v(T);
    b.vand_vi(T, T, 3);
    b.lla(r.p, pow);
    b.vle32_v(TI, r.p);
    b.vsetivli(ZERO, 4, E32M4);
    match tweak {
        TweakIn::Mem(x) => b.vle32_v(D, x),
        TweakIn::Reg(v) => b.vmv_v_v(D, v),
    };
    if conv == Xts::Ieee {
        b.comment("IEEE's tweak in GCM's bit order: reverse the bits of each byte.");
        b.vbrev8_v(D, D);
    }
    b.slli(r.t, r.g, 4);
    b.add(r.t, r.t, r.p);
    b.vle32_v(STEP, r.t);
    b.vsetvli(ZERO, r.full, E32M4);
    b.comment("tw = (T * x^i) for every group i; step = x^G in every group.");
    b.vrgather_vv(TW, D, T);
    b.vgmul_vv(TW, TI);
    b.vmv_v_v(D, STEP);
    b.vrgather_vv(STEP, D, T);
}

/// The batches over the `n` blocks (`n` > 0; `single`: a fixed count of at most four, one batch without the
/// loop), `dst`/`src` advanced past them; then group 0 of `TW` holds the next block's tweak, T[n].
fn xts_run(b: &mut B, conv: Xts, r: &XtsRegs, single: Option<usize>, dst: X, src: X, n: X) {
    let (lp, last, fin) = (b.label("loop"), b.label("partial"), b.label("store_tweak"));
    if let Some(count) = single {
        b.comment(format_args!("{count} block(s): one batch."));
        b.vsetivli(r.vl, 4 * count as i32, E32M4);
    } else {
        b.align(4);
        b.bind(&lp);
        b.slli(r.vl, n, 2);
        let capped = b.label("capped");
        b.bgeu(r.full, r.vl, &capped);
        b.mv(r.vl, r.full);
        b.bind(&capped);
        b.vsetvli(r.vl, r.vl, E32M4);
        b.srli(r.blk, r.vl, 2);
    }
    if conv == Xts::Ieee {
        b.vbrev8_v(TI, TW);
    } else {
        b.vmv_v_v(TI, TW);
    }
    b.vle32_v(D, src);
    b.vxor_vv(D, D, TI);
    crypt(b, true);
    b.vxor_vv(T, T, TI);
    b.vse32_v(T, dst);
    if single.is_none() {
        b.slli(r.t, r.vl, 2);
        b.add(src, src, r.t);
        b.add(dst, dst, r.t);
        b.sub(n, n, r.blk);
    }
    // Fewer than four blocks never fill a register group (16 elements or more): only the partial path.
    if !matches!(single, Some(count) if count < 4) {
        b.bne(r.vl, r.full, &last);
        b.comment("A whole batch: every tweak times x^G.");
        b.vgmul_vv(TW, STEP);
        if single.is_none() {
            b.bnez(n, &lp);
        }
        b.j(&fin);
    }
    b.bind(&last);
    b.comment("A partial (last) batch of k blocks: the next tweak is group k.");
    b.vsetvli(ZERO, r.full, E32M4);
    b.vslidedown_vx(TW, TW, r.vl);
    b.bind(&fin);
}

/// Clears the tweaks (and the blocks beside them) from the vector registers `regs`.
fn xts_clear(b: &mut B, r: &XtsRegs, regs: &[V]) {
    b.comment("Clear the tweaks.");
    b.vsetvli(ZERO, r.full, E32M4);
    for &v in regs {
        b.vmv_v_i(v, 0);
    }
}

/// [`xts`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`: the JIT's kernels for one sector
/// size). VLEN is unknown when the kernel is generated, so a fixed count still strip-mines with `vsetvli`
/// (the count is loaded into the register `nblocks` arrived in) and still asks at run time whether a batch
/// filled the register group. The count removes the zero-length check and, for up to four blocks (which fit
/// a register group at the smallest VLEN, 128), the loop: one batch whose length `vsetivli` sets, without
/// the cap at a whole group, the pointer and count updates or the back branch; under four blocks, which
/// never fill a group, also the whole-group test and its tweak step.
pub fn xts_of(conv: Xts, decrypt: bool, abi: Abi, blocks: Blocks) -> Result<Function<Riscv64>, GenError> {
    let (dir, cname) = (if decrypt { "dec" } else { "enc" }, if conv == Xts::Ieee { "ieee" } else { "gb" });
    let mut b = B::new(&format!("asmgen_sm4_xts_{dir}_{cname}_zvksed{}", blocks.suffix()), abi, &XTS_FEATURES);
    crate::doc_role(&mut b, Role::xts(decrypt, conv == Xts::Gb));
    b.doc("Tweaks of a register group (at most 32 blocks) in GCM bit order, stepped by one vgmul by x^G.");
    // Up to four blocks fit a register group (16 elements at e32, m4) at every VLEN: one batch, no loop.
    let plan = Trips::new(blocks, ());
    let single = plan.known().filter(|&count| count <= 4);
    if let Some(d) = blocks.doc() {
        b.doc(&d);
        b.doc(if single.is_some() {
            "VLEN-agnostic: one batch (at most four blocks fit every VLEN); no zero check, no loop."
        } else {
            "VLEN-agnostic: the vsetvli loop stays; the fixed count removes the zero check."
        });
    }
    let [rk, dst, src, n, tweak] = role::params(&mut b, Role::xts(decrypt, conv == Xts::Gb));
    let r = XTS_REGS;
    let pow = xts_powers(&mut b);
    let done = b.label("done");
    let trips = plan.with_reg(n);
    trips.skip_if_zero(&mut b, &done);
    if single.is_none() {
        trips.load_known(&mut b);
    }
    load_keys(&mut b, rk, r.t);
    word_reverse_indices(&mut b, r.t);
    xts_setup(&mut b, conv, &r, &pow, TweakIn::Mem(tweak));
    xts_run(&mut b, conv, &r, single, dst, src, n);
    b.vsetivli(ZERO, 4, E32M4);
    if conv == Xts::Ieee {
        b.vbrev8_v(TW, TW);
    }
    b.vse32_v(TW, tweak);
    xts_clear(&mut b, &r, &[TW, TI, D, T]);
    trips.bind_skip(&mut b, &done);
    b.finish()
}

/// The features of the XTS kernels: the set's and Zvkg (`vgmul`).
const XTS_FEATURES: [RvFeature; 4] = [RvFeature::V, RvFeature::Zvkb, RvFeature::Zvksed, RvFeature::Zvkg];

/// One block at `src` to `dst` with the tweak (as the data sees it) in `tw`: `dst = E(src ^ tw) ^ tw`.
/// Expects vl = 4 at e32, m4.
fn xts_one(b: &mut B, tw: V, dst: X, src: X) {
    b.vle32_v(D, src);
    b.vxor_vv(D, D, tw);
    crypt(b, true);
    b.vxor_vv(T, T, tw);
    b.vse32_v(T, dst);
}

/// IEEE 1619 ciphertext stealing on the last whole block at `src`/`dst` and the `d` (1..=15, public) bytes
/// after it, with group 0 of `TW` at T[m-1]. Encryption: CC = E(P[m-1] ^ T[m-1]) ^ T[m-1] is stored at `dst`,
/// then for each tail byte i, P[m][i] (read first: `dst` may be `src`) and CC[i] trade places (CC[i] to
/// `dst + 16 + i`, P[m][i] to `dst + i`), which leaves PP = P[m] || the rest of CC at `dst`: its block with
/// T[m] goes back there. Decryption is the same with T[m] first, then T[m-1]. A byte loop over `d`: the
/// addresses depend on `d` only; the bytes pass through general-purpose registers, never into an address.
fn xts_steal(b: &mut B, conv: Xts, decrypt: bool, r: &XtsRegs, dst: X, src: X, d: X) {
    b.comment("Ciphertext stealing: TW = T[m-1], STEP = T[m] = T[m-1] * x (x^1 from the powers).");
    b.vsetivli(ZERO, 4, E32M4);
    b.addi(r.t, r.p, 16);
    b.vle32_v(STEP, r.t);
    b.vgmul_vv(STEP, TW);
    if conv == Xts::Ieee {
        b.vbrev8_v(TW, TW);
        b.vbrev8_v(STEP, STEP);
    }
    let (first, second) = if decrypt { (STEP, TW) } else { (TW, STEP) };
    xts_one(b, first, dst, src);
    b.comment("Trade the d tail bytes with the first d bytes of the block just stored.");
    let bytes = b.label("steal_bytes");
    b.mv(r.t, src);
    b.mv(r.g, dst);
    b.bind(&bytes);
    b.lbu(r.blk, mem(r.t, 16));
    b.lbu(r.vl, mem(r.g, 0));
    b.sb(r.vl, mem(r.g, 16));
    b.sb(r.blk, mem(r.g, 0));
    b.addi(r.t, r.t, 1);
    b.addi(r.g, r.g, 1);
    b.addi(d, d, -1);
    b.bnez(d, &bytes);
    xts_one(b, second, dst, dst);
}

/// `asmgen_sm4_xts_unit_{enc,dec}_{ieee,gb}_zvksed(rk, rk_tweak, dst, src, len, iv)`: one XTS data unit of
/// `len` bytes (nothing below 16). `T[0] = E(rk_tweak, iv)` (the tweak key's round keys first, then the data
/// key's over them), the strip-mining loop of [`xts`] over m whole blocks (m - 1 with a tail; at any VLEN),
/// then `xts_steal` one block at a time.
pub fn xts_unit(conv: Xts, decrypt: bool, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let (dir, cname) = (if decrypt { "dec" } else { "enc" }, if conv == Xts::Ieee { "ieee" } else { "gb" });
    let mut b = B::new(&format!("asmgen_sm4_xts_unit_{dir}_{cname}_zvksed"), abi, &XTS_FEATURES);
    crate::doc_role(&mut b, Role::xts_unit(decrypt, conv == Xts::Gb));
    b.doc("Whole blocks as the streaming XTS kernel (VLEN-agnostic); the tail by a byte loop; dst may equal src.");
    let [rk, rkt, dst, src, len, iv] = role::params(&mut b, Role::xts_unit(decrypt, conv == Xts::Gb));
    let (r, d) = (XTS_REGS, A6);
    let pow = xts_powers(&mut b);
    let (whole, tail, fin, done) = (b.label("whole"), b.label("tail"), b.label("clear"), b.label("done"));
    b.li(r.t, 16);
    b.bltu(len, r.t, &done);
    b.comment("T[0] = E(rk_tweak, iv), kept in TW until the set-up reads it.");
    load_keys(&mut b, rkt, r.t);
    word_reverse_indices(&mut b, r.t);
    b.vsetivli(ZERO, 4, E32M4);
    b.vle32_v(D, iv);
    crypt(&mut b, true);
    b.vmv_v_v(TW, T);
    load_keys(&mut b, rk, r.t);
    xts_setup(&mut b, conv, &r, &pow, TweakIn::Reg(TW));
    b.comment("m = len / 16, d = len % 16 (public): the loop runs m blocks, m - 1 with a tail.");
    let n = len;
    b.andi(d, len, 15);
    b.srli(n, len, 4);
    b.beqz(d, &whole);
    b.addi(n, n, -1);
    b.beqz(n, &tail);
    b.bind(&whole);
    xts_run(&mut b, conv, &r, None, dst, src, n);
    b.bind(&tail);
    b.beqz(d, &fin);
    xts_steal(&mut b, conv, decrypt, &r, dst, src, d);
    b.bind(&fin);
    xts_clear(&mut b, &r, &[TW, TI, STEP, D, T]);
    b.bind(&done);
    b.finish()
}

/// The fixed-size kernels of the vector set (the JIT's specialisations): XTS for a data-unit size (both
/// directions, both tweak conventions) and CTR for a message size; none for the hash kinds.
pub fn fixed_functions(abi: Abi, fixed: Fixed) -> crate::Kernels<Riscv64> {
    use crate::{Kernel, Role};
    match fixed {
        Fixed::Xts(n) => {
            let mut v = Vec::new();
            for conv in [Xts::Ieee, Xts::Gb] {
                for decrypt in [false, true] {
                    let f = xts_of(conv, decrypt, abi, Blocks::Fixed(n))?;
                    v.push(Kernel::new(Role::xts(decrypt, conv == Xts::Gb), f));
                }
            }
            Ok(v)
        }
        Fixed::Ctr(n) => Ok(vec![Kernel::new(Role::Ctr, batch_mode_of(Mode::Ctr, abi, Blocks::Fixed(n))?)]),
        Fixed::Hash(_) => Ok(Vec::new()),
    }
}

/// The vector set's kernels.
pub fn functions(abi: Abi) -> crate::Kernels<Riscv64> {
    use crate::{Kernel, Role};
    let mut v = vec![Kernel::new(Role::ExpandKey, expand_key(abi)?)];
    for m in Mode::ALL {
        v.push(Kernel::new(m.into(), batch_mode(m, abi)?));
    }
    for m in Serial::ALL {
        v.push(Kernel::new(m.role(), serial_mode(m, abi)?));
    }
    for conv in [Xts::Ieee, Xts::Gb] {
        for decrypt in [false, true] {
            v.push(Kernel::new(Role::xts(decrypt, conv == Xts::Gb), xts(conv, decrypt, abi)?));
        }
    }
    for conv in [Xts::Ieee, Xts::Gb] {
        for decrypt in [false, true] {
            v.push(Kernel::new(Role::xts_unit(decrypt, conv == Xts::Gb), xts_unit(conv, decrypt, abi)?));
        }
    }
    Ok(v)
}
