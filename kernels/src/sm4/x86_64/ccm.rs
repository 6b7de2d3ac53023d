//! SM4-CCM's payload pass on x86_64: CTR and the CBC-MAC of the plaintext in the same rounds.
//!
//! CBC-MAC is serial (one block per 32 rounds, bound by the round's latency), CTR is not; each pass of the
//! round loop carries the MAC block in lane 0 and a counter block in lane 1 of one xmm group, so the CTR
//! keystream costs nothing beyond the MAC's own latency. Encryption MACs `src[i]` in the pass that encrypts
//! `ctr + i`; decryption needs the plaintext first, so its MAC lane runs one block behind (block `i-1` in the
//! pass of `ctr + i`), with a MAC-only pass at the end.

use super::cipher::*;
use super::consts::*;
use super::roles::*;
use super::set::Set;
use super::width::*;
use crate::role::{self, Role};
use asmgen::isa::x86_64::{mem, regs::*, rip, Gpr, X86_64};
use asmgen::{Abi, Function, GenError};

const MAC: V = V(4);
/// The previous plaintext block (decryption).
const PREV: V = V(5);
const A: V = V(6);
const CB: V = V(7);

struct Ctx {
    c: Consts,
    rk: Gpr,
    lo: Gpr,
    hi: Gpr,
}

/// One pass: `A` (MAC input, memory byte order) in lane 0 and the counter block `hi:lo` in lane 1 through 32
/// rounds; afterwards `A = E(A)` and `CB = E(ctr)` (memory byte order), and the counter is incremented.
fn pass(b: &mut B, x: &Ctx) {
    let g = GROUPS[0];
    let [t0, t1, _] = TMP;
    b.comment("Lane 0: the MAC block; lane 1: the counter block (128-bit big-endian, as words: dwords reversed).");
    b.vmovq(CB.x(), x.lo);
    b.vpinsrq(CB.x(), CB.x(), x.hi, 1);
    b.vpshufd(CB.x(), CB.x(), 0x1b);
    b.vpshufb(A.x(), A.x(), rip(&x.c.bswap32));
    b.vpunpckldq(t0.x(), A.x(), CB.x());
    b.vpunpckhdq(t1.x(), A.x(), CB.x());
    b.vmovdqa(g[0].x(), t0.x());
    b.vpunpckhqdq(g[1].x(), t0.x(), t0.x());
    b.vmovdqa(g[2].x(), t1.x());
    b.vpunpckhqdq(g[3].x(), t1.x(), t1.x());
    b.add(x.lo, 1);
    b.adc(x.hi, 0);
    rounds(b, &x.c, Width::X, &[g], x.rk);
    b.comment("Gather X35, X34, X33, X32 of both lanes and byte-swap.");
    b.vpunpckldq(t0.x(), g[3].x(), g[2].x());
    b.vpunpckldq(t1.x(), g[1].x(), g[0].x());
    b.vpunpcklqdq(A.x(), t0.x(), t1.x());
    b.vpunpckhqdq(CB.x(), t0.x(), t1.x());
    b.vpshufb(A.x(), A.x(), rip(&x.c.bswap32));
    b.vpshufb(CB.x(), CB.x(), rip(&x.c.bswap32));
}

/// `asmgen_sm4_ccm_<enc|dec>_<avx|gfni>(rk, dst, src, nblocks, ctr, mac)` (xmm; `set` picks the S-box).
pub fn ccm(enc: bool, set: Set, abi: Abi) -> Result<Function<X86_64>, GenError> {
    let dir = if enc { "enc" } else { "dec" };
    let mut b = B::new(&format!("asmgen_sm4_ccm_{dir}_{}", set.name()), abi, &set.features());
    crate::doc_role(&mut b, Role::ccm(!enc));
    b.doc("One pass: the MAC block and a counter block share the rounds (two lanes of one xmm group); dst may equal");
    b.doc("src.");
    let [rk, dst, src, n, ctr, mac] = role::params(&mut b, Role::ccm(!enc));
    let c = Consts::new(&mut b, set.sbox());
    let x = Ctx { c, rk, lo: R10, hi: RBX };
    x.c.load_tables(&mut b, Width::X);
    let done = b.label("done");
    let lp = b.label("loop");
    b.test(n, n);
    b.jz(&done);
    b.comment("The counter as two integers (hi, lo); the MAC in xmm4.");
    b.mov(x.hi, mem(ctr, 0));
    b.mov(x.lo, mem(ctr, 8));
    b.bswap(x.hi);
    b.bswap(x.lo);
    b.vmovdqu(MAC.x(), mem(mac, 0));
    if enc {
        b.align(4);
        b.bind(&lp);
        b.vmovdqu(PREV.x(), mem(src, 0));
        b.vpxor(A.x(), MAC.x(), PREV.x());
        pass(&mut b, &x);
        b.vmovdqa(MAC.x(), A.x());
        b.vpxor(CB.x(), CB.x(), PREV.x());
        b.vmovdqu(mem(dst, 0), CB.x());
        b.add(src, 16);
        b.add(dst, 16);
        b.sub(n, 1);
        b.jnz(&lp);
    } else {
        b.comment("Block 0: keystream only (its plaintext is not known yet).");
        b.vmovdqa(A.x(), MAC.x());
        pass(&mut b, &x);
        b.vpxor(PREV.x(), CB.x(), mem(src, 0));
        b.vmovdqu(mem(dst, 0), PREV.x());
        b.add(src, 16);
        b.add(dst, 16);
        b.sub(n, 1);
        let last = b.label("last");
        b.jz(&last);
        b.align(4);
        b.bind(&lp);
        b.comment("MAC of block i-1 with the keystream of block i.");
        b.vpxor(A.x(), MAC.x(), PREV.x());
        pass(&mut b, &x);
        b.vmovdqa(MAC.x(), A.x());
        b.vpxor(PREV.x(), CB.x(), mem(src, 0));
        b.vmovdqu(mem(dst, 0), PREV.x());
        b.add(src, 16);
        b.add(dst, 16);
        b.sub(n, 1);
        b.jnz(&lp);
        b.bind(&last);
        b.comment("MAC of the last block alone.");
        b.vpxor(MAC.x(), MAC.x(), PREV.x());
        encrypt_one(&mut b, &x.c, rk, MAC);
    }
    b.vmovdqu(mem(mac, 0), MAC.x());
    b.bswap(x.hi);
    b.bswap(x.lo);
    b.mov(mem(ctr, 0), x.hi);
    b.mov(mem(ctr, 8), x.lo);
    b.bind(&done);
    b.finish()
}
