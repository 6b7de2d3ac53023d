//! The cipher core: the register roles, the S-box, the round (AES-NI and GFNI), 32 rounds over groups of
//! transposed blocks, entering and leaving the GFNI domain, the transpose, and one block on its own.

use super::consts::*;
use super::set::Sbox;
use super::width::*;
use crate::sm4::{sbox_affine, Affine};
use asmgen::isa::x86_64::{mem, regs::*, rip, Gpr, Mem};
use asmgen::Label;

// Register roles. Groups are v0-v3 and v4-v7, on zmm also v19-v22 (slot `s` of a batch, a register of whole
// blocks, is `slot_reg(s)`: `V(s)` in the first two groups).
/// The two groups of state registers.
pub const GROUPS: [[V; 4]; 2] = [[V(0), V(1), V(2), V(3)], [V(4), V(5), V(6), V(7)]];
/// The zmm kernels' third group (EVEX only reaches it): 48 blocks in flight.
pub const GROUP_Z3: [V; 4] = [V(19), V(20), V(21), V(22)];

/// The register of slot `s` of a batch: `V(s)` for the first two groups, [`GROUP_Z3`] for the third.
pub fn slot_reg(s: usize) -> V {
    if s < 8 {
        V(s as u8)
    } else {
        GROUP_Z3[s - 8]
    }
}

/// The first `n` groups of state registers (the third only on zmm).
pub fn groups(n: usize) -> Vec<[V; 4]> {
    GROUPS.into_iter().chain([GROUP_Z3]).take(n).collect()
}
/// Scratch registers of a round.
pub const TMP: [V; 3] = [V(8), V(9), V(10)];
/// The broadcast round key.
pub const RK: V = V(11);
/// zmm kernels: the four round keys of a pass of the round loop, mapped, in every lane (EVEX only reaches it).
pub const ZKEYS: V = V(18);

/// The S-box on every byte of `t`, leaving the result in ShiftRows order: `t = ShiftRows(S(t))`.
/// 13 vector ops on xmm (6 pre-affine, `aesenclast`, 6 post-affine), 16 on ymm. Clobbers `s`.
pub fn sbox(b: &mut B, c: &Consts, w: Width, t: V, s: V) {
    subbytes(b, c, w, t, s);
    // Post-affine: M2*y ^ c2.
    affine_map(b, c, w, t, s, (POST_LO, POST_HI));
}

/// `t = lo[t & 15] ^ hi[t >> 4]` on every byte, the nibble tables `(lo, hi)` in registers: an affine map
/// ([`PRE_LO`]/[`PRE_HI`] the S-box's pre-affine A1, [`POST_LO`]/[`POST_HI`] its post-affine). Clobbers `s`.
fn affine_map(b: &mut B, c: &Consts, w: Width, t: V, s: V, (lo, hi): (V, V)) {
    nibbles(b, c, w, t, s);
    vshufb(b, w, t, lo, t);
    vshufb(b, w, s, hi, s);
    vxor(b, w, t, t, s);
}

/// `out = lo[l] ^ hi[h]`, the nibble tables `(lo, hi)` read from memory into `d` and `tmp` (`vpshufb` takes
/// its table from a register), `l` and `h` the low and high nibbles of the bytes looked up ([`nibbles`]).
fn lookup_in_memory(b: &mut B, w: Width, out: V, [d, tmp]: [V; 2], [l, h]: [V; 2], (lo, hi): &(Label, Label)) {
    b.vmovdqa(d.x(), rip(lo));
    vshufb(b, w, d, d, l);
    b.vmovdqa(tmp.x(), rip(hi));
    vshufb(b, w, tmp, tmp, h);
    vxor(b, w, out, d, tmp);
}

/// `t = lo(t), s = hi(t)`: the low nibble of every byte of `t` and the high nibble, as `vpshufb` indices.
fn nibbles(b: &mut B, c: &Consts, w: Width, t: V, s: V) {
    vsrld(b, w, s, t, 4);
    vand(b, w, t, t, rip(&c.nibble));
    vand(b, w, s, s, rip(&c.nibble));
}

/// The S-box up to its post-affine map: `t = ShiftRows(AES-SubBytes(M1*t ^ c1))`. Clobbers `s`.
fn subbytes(b: &mut B, c: &Consts, w: Width, t: V, s: V) {
    assert!(c.sbox != Sbox::Gfni, "the GFNI round has its own S-box");
    // Pre-affine: M1*x ^ c1 = lo[x & 15] ^ hi[x >> 4].
    affine_map(b, c, w, t, s, (PRE_LO, PRE_HI));
    // AES SubBytes (and ShiftRows) with a zero round key; on ymm, per 128-bit half (no VAES).
    match w {
        Width::X => {
            b.vaesenclast(t.x(), t.x(), rip(&c.zero));
        }
        Width::Y if c.sbox == Sbox::Vaes => {
            b.vaesenclast(t.y(), t.y(), rip(&c.zero));
        }
        Width::Y => {
            b.vextracti128(s.x(), t.y(), 0x01);
            b.vaesenclast(t.x(), t.x(), rip(&c.zero));
            b.vaesenclast(s.x(), s.x(), rip(&c.zero));
            b.vinserti128(t.y(), t.y(), s.x(), 0x01);
        }
        Width::Z => unreachable!("the zmm VAES round has its own S-box (round_vaes_z)"),
    }
}

/// One SM4 round on one group held transposed: `x[0] ^= L(S(x[1] ^ x[2] ^ x[3] ^ rk))`.
///
/// Per round and group: 28 vector ops on xmm (4 blocks), 31 on ymm (8 blocks):
/// 3 xor; S-box 13 (16 on ymm: extract, two `aesenclast`, insert); linear layer 12 as
/// `x0 ^= B ^ rol(B, 24) ^ rol(B ^ rol(B, 8) ^ rol(B, 16), 2)`, the byte rotations being `vpshufb`s composed
/// with the inverse ShiftRows (4 shuffles, 6 xor, 2 shifts).
pub fn round(b: &mut B, c: &Consts, w: Width, x: [V; 4], rk: V, t: [V; 3]) {
    if c.sbox == Sbox::Gfni {
        return round_gfni(b, c, w, x, rk, t);
    }
    if w == Width::Z {
        return round_vaes_z(b, x, rk, t);
    }
    let [t0, t1, t2] = t;
    // x[3] is the newest word: xor it last to keep one op on the dependency chain.
    vxor(b, w, t0, x[1], x[2]);
    vxor(b, w, t0, t0, rk);
    vxor(b, w, t0, t0, x[3]);
    sbox(b, c, w, t0, t1);
    // t0 = ShiftRows(B); each shuffle below undoes ShiftRows and rotates.
    vshufb(b, w, t1, t0, rip(&c.isr_rol[0]));
    vxor(b, w, x[0], x[0], t1);
    vshufb(b, w, t2, t0, rip(&c.isr_rol[1]));
    vxor(b, w, t1, t1, t2);
    vshufb(b, w, t2, t0, rip(&c.isr_rol[2]));
    vxor(b, w, t1, t1, t2);
    vshufb(b, w, t0, t0, rip(&c.isr_rol[3]));
    vxor(b, w, x[0], x[0], t0);
    vslld(b, w, t2, t1, 2);
    vsrld(b, w, t1, t1, 30);
    vxor(b, w, x[0], x[0], t2);
    vxor(b, w, x[0], x[0], t1);
}

/// [`round`] on zmm with VAES: the constants in registers ([`ZNIB`], [`ZISR`], [`ZZERO`], the nibble tables), the
/// high nibbles brought down by `vprold` (a dword rotated right by 4 has each byte's high nibble in its low
/// nibble), inverse ShiftRows undone by one `vpshufb` and the linear layer's rotations by `vprold`:
/// `x0 ^= B ^ rol24(B) ^ rol2(B ^ rol8(B) ^ rol16(B))`. 23 vector ops per round and group (16 blocks):
/// `vpxorq` and `vpternlogq` for the input; S-box 13 (6 pre-affine, `vaesenclast`, 6 post-affine); 8 for the
/// inverse ShiftRows and the linear layer (`vpshufb`, 4 `vprold`, 2 `vpternlogq`, `vpxorq`).
pub fn round_vaes_z(b: &mut B, x: [V; 4], rk: V, t: [V; 3]) {
    let w = Width::Z;
    let [t0, t1, t2] = t;
    vxor(b, w, t0, x[1], x[2]);
    vxor3(b, t0, rk, x[3]);
    // Pre-affine: M1*u ^ c1 = lo[u & 15] ^ hi[u >> 4].
    affine_map_z(b, t0, t1, (PRE_LO, PRE_HI));
    // SubBytes and ShiftRows with a zero round key.
    b.vaesenclast(t0.z(), t0.z(), ZZERO.z());
    // Post-affine: M2*y ^ c2.
    affine_map_z(b, t0, t1, (POST_LO, POST_HI));
    // B = InvShiftRows(t0); the linear layer.
    vshufb(b, w, t0, t0, ZISR);
    vrold(b, t1, t0, 8);
    vrold(b, t2, t0, 16);
    vxor3(b, t1, t0, t2);
    vrold(b, t2, t0, 24);
    vxor3(b, x[0], t0, t2);
    vrold(b, t1, t1, 2);
    vxor(b, w, x[0], x[0], t1);
}

/// [`affine_map`] on zmm with the constants in registers: the high nibbles brought down by `vprold` (a dword
/// rotated right by 4 has each byte's high nibble in its low nibble), `0x0f` in [`ZNIB`]. Clobbers `s`.
fn affine_map_z(b: &mut B, t: V, s: V, (lo, hi): (V, V)) {
    let w = Width::Z;
    vrold(b, s, t, 28);
    vand(b, w, t, t, ZNIB);
    vand(b, w, s, s, ZNIB);
    vshufb(b, w, t, lo, t);
    vshufb(b, w, s, hi, s);
    vxor(b, w, t, t, s);
}

/// [`round`] with GFNI, in the domain `Y = M1·X` ([`gfni::GfniRound`](crate::sm4::gfni::GfniRound)), `rk` already mapped (`M1·rk ^ c1`):
/// `u = x1 ^ x2 ^ rk ^ x3`, `x0 ^= rot0(u) ^ rol8(rot8(u)) ^ rol16(rot8(u)) ^ rol24(rot24(u))`, each `rotK` one
/// `vgf2p8affineinvqb`. 13 vector ops; the chain from `x3` to the new word is xor, affine-inverse, shuffle and
/// two xors.
pub fn round_gfni(b: &mut B, c: &Consts, w: Width, x: [V; 4], rk: V, t: [V; 3]) {
    let g = c.g();
    let m = g.maps;
    let [t0, t1, t2] = t;
    if w == Width::Z {
        // zmm: three-way xors are one vpternlogq and the byte rotations vprold (no constant to read): 10 ops.
        vxor(b, w, t0, x[1], x[2]);
        vxor3(b, t0, rk, x[3]);
        vaffineinv(b, w, t1, t0, PRE_HI, m.rot8.c);
        vaffineinv(b, w, t2, t0, PRE_LO, m.rot0.c);
        vaffineinv(b, w, t0, t0, POST_LO, m.rot24.c);
        vrold(b, t0, t0, 24);
        vxor3(b, x[0], t2, t0);
        vrold(b, t2, t1, 8);
        vrold(b, t1, t1, 16);
        vxor3(b, x[0], t1, t2);
        return;
    }
    vxor(b, w, t0, x[1], x[2]);
    vxor(b, w, t0, t0, rk);
    vxor(b, w, t0, t0, x[3]);
    vaffineinv(b, w, t1, t0, PRE_HI, m.rot8.c);
    vaffineinv(b, w, t2, t0, PRE_LO, m.rot0.c);
    vaffineinv(b, w, t0, t0, POST_LO, m.rot24.c);
    vxor(b, w, x[0], x[0], t2);
    vshufb(b, w, t2, t1, rip(&g.rol[0]));
    vshufb(b, w, t1, t1, rip(&g.rol[1]));
    vshufb(b, w, t0, t0, rip(&g.rol[2]));
    vxor(b, w, t1, t1, t2);
    vxor(b, w, x[0], x[0], t0);
    vxor(b, w, x[0], x[0], t1);
}

/// The round key at `rk` broadcast into `d` and mapped into the GFNI domain (`M1·rk ^ c1`).
pub fn round_key_gfni(b: &mut B, c: &Consts, w: Width, d: V, rk: Mem) {
    vbroadcast(b, w, d, rk);
    vaffine(b, w, d, d, POST_HI, c.g().maps.key.c);
}

/// Moves the state words of `groups` into the GFNI domain (`Y = M1·X`); nothing for the AES-NI S-boxes.
pub fn enter(b: &mut B, c: &Consts, w: Width, groups: &[[V; 4]]) {
    if c.sbox != Sbox::Gfni {
        return;
    }
    b.comment("Into the GFNI domain: Y = M1*X on every byte.");
    for &v in groups.iter().flatten() {
        vaffine(b, w, v, v, POST_HI, 0);
    }
}

/// Moves the state words of `groups` out of the GFNI domain (`X = M1^-1·Y`); nothing for the AES-NI S-boxes.
pub fn leave(b: &mut B, c: &Consts, w: Width, groups: &[[V; 4]]) {
    if c.sbox != Sbox::Gfni {
        return;
    }
    b.comment("Out of the GFNI domain: X = M1^-1*Y.");
    for &v in groups.iter().flatten() {
        if w == Width::Z {
            vaffine(b, w, v, v, ZLEAVE, 0);
        } else {
            vaffine(b, w, v, v, rip(&c.g().leave), 0);
        }
    }
}

/// `vpshufb` control rotating each dword left by 8 bits (no ShiftRows), for [`round_lean`].
pub fn rol8_constant(b: &mut B) -> Label {
    b.constant("sm4_rol8", 32, "vpshufb: rotate each dword left by 8", &twice(perm(|i| 4 * (i / 4) + (i % 4 + 3) % 4)))
}

/// [`round`] with two scratch registers instead of three plus the round-key register, for kernels that keep
/// other state in the registers this frees (GCM keeps GHASH accumulators there).
///
/// The round key is broadcast into `t[1]` from `rk` (once per group), and the linear layer rotates `B` in place:
/// `t1 = B, t0 = rol8(B), t1 ^= t0, t0 = rol8(t0), t1 ^= t0, t0 = rol8(t0)`, then
/// `x0 ^= B ^ rol24(B) ^ rol2(t1)`. The same 28 vector ops per round and group on xmm (31 on ymm) plus the
/// broadcast; a longer chain of shuffles, hidden by the other group.
pub fn round_lean(b: &mut B, c: &Consts, w: Width, x: [V; 4], rk: Mem, t: [V; 2], rol8: &Label) {
    let [t0, t1] = t;
    if c.sbox == Sbox::Gfni {
        // GFNI: the same terms as round_gfni, one at a time (15 vector ops).
        let g = c.g();
        let m = g.maps;
        round_key_gfni(b, c, w, t1, rk);
        vxor(b, w, t0, x[1], x[2]);
        vxor(b, w, t0, t0, t1);
        vxor(b, w, t0, t0, x[3]);
        vaffineinv(b, w, t1, t0, PRE_LO, m.rot0.c);
        vxor(b, w, x[0], x[0], t1);
        vaffineinv(b, w, t1, t0, POST_LO, m.rot24.c);
        vshufb(b, w, t1, t1, rip(&g.rol[2]));
        vxor(b, w, x[0], x[0], t1);
        vaffineinv(b, w, t0, t0, PRE_HI, m.rot8.c);
        vshufb(b, w, t1, t0, rip(&g.rol[0]));
        vxor(b, w, x[0], x[0], t1);
        vshufb(b, w, t0, t0, rip(&g.rol[1]));
        vxor(b, w, x[0], x[0], t0);
        return;
    }
    vbroadcast(b, w, t1, rk);
    vxor(b, w, t0, x[1], x[2]);
    vxor(b, w, t0, t0, t1);
    vxor(b, w, t0, t0, x[3]);
    sbox(b, c, w, t0, t1);
    vshufb(b, w, t1, t0, rip(&c.isr_rol[0]));
    vxor(b, w, x[0], x[0], t1);
    vshufb(b, w, t0, t0, rip(&c.isr_rol[1]));
    vxor(b, w, t1, t1, t0);
    vshufb(b, w, t0, t0, rip(rol8));
    vxor(b, w, t1, t1, t0);
    vshufb(b, w, t0, t0, rip(rol8));
    vxor(b, w, x[0], x[0], t0);
    vslld(b, w, t0, t1, 2);
    vsrld(b, w, t1, t1, 30);
    vxor(b, w, x[0], x[0], t0);
    vxor(b, w, x[0], x[0], t1);
}

/// The 32 rounds on `groups` with the round keys at `rk`: a loop of four unrolled rounds (the roles of the
/// registers rotate back every four). Uses rax and r11.
pub fn rounds(b: &mut B, c: &Consts, w: Width, groups: &[[V; 4]], rk: Gpr) {
    if let ([g], Width::X) = (groups, w) {
        return rounds_one(b, c, *g, rk);
    }
    if w == Width::Z && c.sbox == Sbox::Vaes {
        b.comment(format_args!(
            "32 rounds on {} blocks: 8 x 4 unrolled rounds; 23 vector ops per round and group (vpxorq and \
             vpternlogq; S-box 13: 2 vprold, 4 vpandq, 4 vpshufb, 2 vpxorq, vaesenclast; vpshufb undoing \
             ShiftRows, 4 vprold, 2 vpternlogq, vpxorq), plus the round key's vpbroadcastd.",
            groups.len() * 4 * w.blocks(),
        ));
    } else if w == Width::Z {
        enter(b, c, w, groups);
        b.comment(format_args!(
            "32 rounds on {} blocks: 8 x 4 unrolled rounds; 10 vector ops per round and group (vpxorq, 3 \
             vpternlogq, 3 vgf2p8affineinvqb, 3 vprold), plus a vpshufd of the round key (four keys loaded and \
             mapped once per pass).",
            groups.len() * 4 * w.blocks(),
        ));
    } else if c.sbox == Sbox::Gfni {
        enter(b, c, w, groups);
        b.comment(format_args!(
            "32 rounds on {} blocks: 8 x 4 unrolled rounds; 13 vector ops per round and group (3 xor, 3 \
             vgf2p8affineinvqb, 3 vpshufb, 4 xor), plus the round key's broadcast and affine map.",
            groups.len() * 4 * w.blocks(),
        ));
    } else {
        b.comment(format_args!(
            "32 rounds on {} blocks: 8 x 4 unrolled rounds; {} vector ops per round and group (3 xor, S-box {}, L 12).",
            groups.len() * 4 * w.blocks(),
            if w == Width::X || c.sbox == Sbox::Vaes { 28 } else { 31 },
            if w == Width::X || c.sbox == Sbox::Vaes { 13 } else { 16 },
        ));
    }
    let zgfni = w == Width::Z && c.sbox == Sbox::Gfni;
    round_loop(b, rk, &mut |b, j, ptr| {
        if j == 0 && zgfni {
            b.comment("zmm: the four round keys in every lane, mapped into the GFNI domain at once.");
            b.vbroadcasti32x4(ZKEYS.z(), mem(ptr, 0));
            vaffine(b, w, ZKEYS, ZKEYS, POST_HI, c.g().maps.key.c);
        }
        b.comment(format_args!(
            "round 4i+{j}: X{j} ^= T(X{} ^ X{} ^ X{} ^ rk[4i+{j}])",
            (j + 1) % 4,
            (j + 2) % 4,
            (j + 3) % 4
        ));
        if zgfni {
            b.vpshufd(RK.z(), ZKEYS.z(), 0x55 * j as u8);
        } else if c.sbox == Sbox::Gfni {
            round_key_gfni(b, c, w, RK, mem(ptr, 4 * j as i32));
        } else {
            vbroadcast(b, w, RK, mem(ptr, 4 * j as i32));
        }
        for g in groups {
            let x = [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]];
            round(b, c, w, x, RK, TMP);
        }
    });
    leave(b, c, w, groups);
}

/// The loop over the round keys at `rk`: eight passes of `round(b, j, ptr)` for `j = 0..4`, `ptr` (rax) the
/// pass's first key; r11 holds the end.
fn round_loop(b: &mut B, rk: Gpr, round: &mut dyn FnMut(&mut B, usize, Gpr)) {
    let (ptr, end) = (RAX, R11);
    b.lea(end, mem(rk, 128));
    b.mov(ptr, rk);
    let lp = b.label("rounds");
    b.align(4);
    b.bind(&lp);
    for j in 0..4 {
        round(b, j, ptr);
    }
    b.add(ptr, 16);
    b.cmp(ptr, end);
    b.jnz(&lp);
}

/// The two registers [`rounds_one`] uses beside [`TMP`] and [`RK`]: this round's S-box input and the next one's.
/// The second group's; callers running one group keep nothing there across the rounds.
pub const ONE_GROUP: [V; 2] = [V(6), V(7)];

/// The 32 rounds on one xmm group (1-4 blocks, and the serial modes' one block), arranged for latency: a lone
/// group has nothing to overlap its round's dependency chain with, so the chain is what costs.
///
/// Each round computes the next round's S-box input `u' = x2 ^ x3 ^ rk' ^ x0'` directly, as `p ^ x0 ^ L(B)`
/// with `p = x2 ^ x3 ^ rk'` and `x0` summed off the chain, and the new word afterwards as `x0' = u' ^ p`. The
/// round key joins `p` one round early, except across the loop's back edge (the key after the last is never
/// read): the first round of each pass adds its own key to `u`.
///
/// With AES-NI the words live in the pre-affine map's domain, `X~ = M1*X` (entered and left once per call), so
/// a round needs no pre-affine map: `u~ = X~1 ^ X~2 ^ X~3 ^ A1(rk)` goes straight into `aesenclast`, and the
/// post-affine map, the linear layer and `M1` are one step from its output `y`: `M1*L(B) = isr0(G0(y)) ^
/// isr8(G8(y)) ^ isr16(G8(y)) ^ isr24(G0(y) ^ G8(y))`, the `G` byte-wise maps looked up by nibble ([`OneGroupTables`])
/// and each `isr` a `vpshufb` undoing ShiftRows and rotating. From one S-box input to the next: `aesenclast`
/// and 7 dependent vector ops (the nibble split's 2, lookup, xor, shuffle, two xors) rather than [`round`]'s 15
/// (an xor, the pre-affine's 4, the post-affine's 4, the linear layer's 6). Per round 29 vector ops, the round
/// key's broadcast and 4 table loads with AES-NI (28 and the broadcast in [`round`]; the round key's map A1 is
/// 6 of them, off the chain), 14 vector ops with GFNI (13; 4 dependent rather than 5). Measured on a Zen 5
/// (whose simple vector ops take 2 cycles): about 22 cycles per AES-NI round against 35.
pub fn rounds_one(b: &mut B, c: &Consts, g: [V; 4], rk: Gpr) {
    let w = Width::X;
    let (mut u, mut s) = (ONE_GROUP[0], ONE_GROUP[1]);
    let tables = (c.sbox != Sbox::Gfni).then(|| OneGroupTables::new(b));
    // The round key at `m` into `d`: GFNI's domain map, or (AES-NI) the whole pre-affine map A1.
    let key = |b: &mut B, d: V, m: Mem| {
        if tables.is_some() {
            vbroadcast(b, w, d, m);
            a1(b, c, d, TMP[1]);
        } else {
            round_key_gfni(b, c, w, d, m);
        }
    };
    enter_one(b, c, g, tables.is_some(), s);
    b.comment(format_args!(
        "32 rounds on one group, for latency: each round sums the next round's S-box input u' = x2 ^ x3 ^ rk' ^ \
         x0' (in xmm{}, then xmm{}, alternately) and derives x0' = u' ^ (x2 ^ x3 ^ rk'); {}.",
        u.0,
        s.0,
        if tables.is_some() {
            "29 vector ops and 4 table loads per round; no pre-affine map in the domain, and the post-affine map, \
             the linear layer and M1 in one: M1*L(B) = isr0(G0) ^ isr8(G8) ^ isr16(G8) ^ isr24(G0 ^ G8), G0 and \
             G8 nibble lookups of the aesenclast output"
        } else {
            "14 vector ops per round"
        },
    ));
    b.vpxor(u.x(), g[1].x(), g[2].x());
    b.vpxor(u.x(), u.x(), g[3].x());
    round_loop(b, rk, &mut |b, j, ptr| {
        let x = [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]];
        b.comment(format_args!(
            "round 4i+{j}: X{j} ^= T(u), u = X{} ^ X{} ^ X{} ^ rk[4i+{j}]",
            (j + 1) % 4,
            (j + 2) % 4,
            (j + 3) % 4
        ));
        if j == 0 {
            key(b, RK, mem(ptr, 0));
            b.vpxor(u.x(), u.x(), RK.x());
        }
        // p = x2 ^ x3 ^ rk' in RK, s = p ^ x0: off the chain.
        if j < 3 {
            key(b, RK, mem(ptr, 4 * (j as i32 + 1)));
            b.vpxor(RK.x(), RK.x(), x[2].x());
            b.vpxor(RK.x(), RK.x(), x[3].x());
        } else {
            b.vpxor(RK.x(), x[2].x(), x[3].x());
        }
        b.vpxor(s.x(), RK.x(), x[0].x());
        match &tables {
            Some(tables) => add_linear_aesni(b, c, tables, u, s),
            None => add_linear_gfni(b, c, u, s),
        }
        b.vpxor(x[0].x(), s.x(), RK.x());
        std::mem::swap(&mut u, &mut s);
    });
    match &tables {
        Some(tables) => leave_one(b, c, g, tables),
        None => leave(b, c, w, &[g]),
    }
}

/// [`rounds_one`]'s entry into its domain: with AES-NI `X~ = M1*X = A1(X) ^ c1` on every word (`c1 = A1(0)`
/// built in `scratch`), with GFNI [`enter`].
fn enter_one(b: &mut B, c: &Consts, g: [V; 4], aesni: bool, scratch: V) {
    let w = Width::X;
    if !aesni {
        return enter(b, c, w, &[g]);
    }
    b.comment("Into the pre-affine map's domain, X~ = M1*X = A1(X) ^ c1 (c1 = A1(0)) on every word.");
    vshufb(b, w, scratch, PRE_LO, rip(&c.zero));
    for v in g {
        a1(b, c, v, TMP[0]);
        b.vpxor(v.x(), v.x(), scratch.x());
    }
}

/// [`rounds_one`]'s exit from the AES-NI domain: `X = M1^-1*X~` on every word.
fn leave_one(b: &mut B, c: &Consts, g: [V; 4], tables: &OneGroupTables) {
    let w = Width::X;
    let [t0, t1, t2] = TMP;
    b.comment("Out of the domain: X = M1^-1*X~.");
    for v in g {
        nibbles(b, c, w, v, t0);
        lookup_in_memory(b, w, v, [t1, t2], [v, t0], &tables.leave);
    }
}

/// One AES-NI round of [`rounds_one`] in the domain: `s ^= M1*L(B)` for the S-box input `u` (`y =
/// aesenclast(u, 0)`; `isr0(G0) ^ isr8(G8) ^ isr16(G8) ^ isr24(G0 ^ G8)`). Clobbers `u` and [`TMP`].
fn add_linear_aesni(b: &mut B, c: &Consts, tables: &OneGroupTables, u: V, s: V) {
    let w = Width::X;
    let [t0, t1, t2] = TMP;
    b.vaesenclast(u.x(), u.x(), rip(&c.zero));
    nibbles(b, c, w, u, t0);
    lookup_in_memory(b, w, t1, [t1, t2], [u, t0], &tables.g[0]);
    lookup_in_memory(b, w, t2, [t2, u], [u, t0], &tables.g[1]);
    b.vpxor(u.x(), t1.x(), t2.x()); // G24 = G0 ^ G8
    vshufb(b, w, t1, t1, rip(&c.isr_rol[0]));
    b.vpxor(s.x(), s.x(), t1.x());
    vshufb(b, w, t0, t2, rip(&c.isr_rol[1]));
    vshufb(b, w, t2, t2, rip(&c.isr_rol[2]));
    b.vpxor(t2.x(), t2.x(), t0.x());
    vshufb(b, w, u, u, rip(&c.isr_rol[3]));
    b.vpxor(s.x(), s.x(), u.x());
    b.vpxor(s.x(), s.x(), t2.x());
}

/// One GFNI round of [`rounds_one`]: `s ^= T(u)` in GFNI's domain, [`round_gfni`]'s terms. Clobbers `u` and
/// [`TMP`].
fn add_linear_gfni(b: &mut B, c: &Consts, u: V, s: V) {
    let w = Width::X;
    let [t0, t1, t2] = TMP;
    let g = c.g();
    let m = g.maps;
    vaffineinv(b, w, t1, u, PRE_HI, m.rot8.c);
    vaffineinv(b, w, t2, u, PRE_LO, m.rot0.c);
    vaffineinv(b, w, t0, u, POST_LO, m.rot24.c);
    b.vpxor(s.x(), s.x(), t2.x());
    vshufb(b, w, u, t1, rip(&g.rol[0]));
    vshufb(b, w, t1, t1, rip(&g.rol[1]));
    vshufb(b, w, t0, t0, rip(&g.rol[2]));
    b.vpxor(u.x(), u.x(), t1.x());
    b.vpxor(s.x(), s.x(), t0.x());
    b.vpxor(s.x(), s.x(), u.x());
}

/// `t = A1(t) = M1*t ^ c1`, the S-box's pre-affine map on every byte, from the nibble tables in [`PRE_LO`] and
/// [`PRE_HI`]. Clobbers `s`.
fn a1(b: &mut B, c: &Consts, t: V, s: V) {
    affine_map(b, c, Width::X, t, s, (PRE_LO, PRE_HI));
}

/// [`rounds_one`]'s nibble tables with AES-NI (`lo[n]` for the low nibble, constants included; `hi[n]` for the
/// high nibble).
pub struct OneGroupTables {
    /// `G0`, `G8`: `M1` after the byte-wise maps `F0 = B ^ T1(B)` and `F8 = T1(B) ^ T2(B)` of the post-affine
    /// output `B = M2*y ^ c2`, with `T1(b) = (b << 2) & 0xff` and `T2(b) = b >> 6`. The rotation by 2 of a dword
    /// is `T1(B) ^ rol8(T2(B))` byte by byte, so SM4's linear layer `L(B) = B ^ rol24(B) ^ rol2(B ^ rol8(B) ^
    /// rol16(B))` is `F0 ^ rol8(F8) ^ rol16(F8) ^ rol24(F24)` with `F24 = B ^ T2(B) = F0 ^ F8`, and `M1`,
    /// byte-wise too, commutes with the rotations.
    pub g: [(Label, Label); 2],
    /// `M1^-1`, leaving the domain.
    pub leave: (Label, Label),
}

/// A map on bytes.
type ByteMap = fn(u8) -> u8;
/// A pair of `vpshufb` nibble tables (low nibble, high nibble).
type NibbleTables = ([u8; 16], [u8; 16]);

/// `F0` and `F8` of [`OneGroupTables::g`], byte-wise.
const LINEAR_MAPS: [(&str, &str, ByteMap); 2] =
    [("sm4_m1_f0", "B ^ T1(B)", |x| x ^ (x << 2)), ("sm4_m1_f8", "T1(B) ^ T2(B)", |x| (x << 2) ^ (x >> 6))];

impl OneGroupTables {
    /// The tables' bytes: `G0` and `G8` (low, high), then `M1^-1` (low, high).
    fn bytes() -> ([NibbleTables; 2], NibbleTables) {
        let (pre, post) = sbox_affine();
        let m1 = pre.m;
        let (lo, hi) = post.nibble_tables();
        let g = LINEAR_MAPS.map(|(_, _, f)| (lo.map(|x| m1.apply(f(x))), hi.map(|x| m1.apply(f(x)))));
        (g, Affine { m: m1.inverse(), c: 0 }.nibble_tables())
    }

    /// Registers the tables with `b`.
    pub fn new(b: &mut B) -> OneGroupTables {
        let (g, (ilo, ihi)) = Self::bytes();
        let mut n = 0;
        let g = g.map(|(lo, hi)| {
            let (name, what, _) = LINEAR_MAPS[n];
            n += 1;
            (
                b.constant(
                    &format!("{name}_lo"),
                    16,
                    &format!(
                        "M1*({what}), B = M2*y ^ c2 the S-box's post-affine output (low nibble of y, c2 included)"
                    ),
                    &lo,
                ),
                b.constant(&format!("{name}_hi"), 16, &format!("M1*({what}), B = M2*y (high nibble of y)"), &hi),
            )
        });
        let leave = (
            b.constant("sm4_m1_inv_lo", 16, "M1^-1 (low nibble)", &ilo),
            b.constant("sm4_m1_inv_hi", 16, "M1^-1 (high nibble)", &ihi),
        );
        OneGroupTables { g, leave }
    }
}

/// Transposes a 4x4 matrix of dwords (per 128-bit lane): row `k` in `rows[k]`, column `k` ends in `out[k]`
/// (`out` is a permutation of `rows`). 8 ops; clobbers `t`.
pub fn transpose(b: &mut B, w: Width, rows: [V; 4], out: [V; 4], t: [V; 3]) {
    let [t0, t1, t2] = t;
    let r = rows[1];
    vunpckldq(b, w, t0, rows[0], rows[1]); // r0.0 r1.0 r0.1 r1.1
    vunpckhdq(b, w, t1, rows[0], rows[1]); // r0.2 r1.2 r0.3 r1.3
    vunpckldq(b, w, t2, rows[2], rows[3]); // r2.0 r3.0 r2.1 r3.1
    vunpckhdq(b, w, r, rows[2], rows[3]); // r2.2 r3.2 r2.3 r3.3
    let ops: [(usize, bool, V, V); 4] = [(0, false, t0, t2), (1, true, t0, t2), (2, false, t1, r), (3, true, t1, r)];
    // The column written into `r` goes last: the others still read it.
    let mut order: Vec<_> = ops.iter().filter(|o| out[o.0] != r).collect();
    order.extend(ops.iter().filter(|o| out[o.0] == r));
    for &&(k, high, a, s) in &order {
        if high {
            vunpckhqdq(b, w, out[k], a, s);
        } else {
            vunpcklqdq(b, w, out[k], a, s);
        }
    }
}

/// Encrypts the block in `v` (byte order as in memory) with the round keys at `rk`, one lane, 32 rounds.
pub(crate) fn encrypt_one(b: &mut B, c: &Consts, rk: Gpr, v: V) {
    let g = GROUPS[0];
    b.comment("One block: byte-swap, broadcast word j to register j.");
    b.vpshufb(g[0].x(), v.x(), rip(&c.bswap32));
    for j in (0..4).rev() {
        b.vpshufd(g[j].x(), g[0].x(), 0x55 * j as u8);
    }
    rounds(b, c, Width::X, &[g], rk);
    b.comment("Gather X35, X34, X33, X32 and byte-swap.");
    b.vpunpckldq(TMP[0].x(), g[3].x(), g[2].x());
    b.vpunpckldq(TMP[1].x(), g[1].x(), g[0].x());
    b.vpunpcklqdq(v.x(), TMP[0].x(), TMP[1].x());
    b.vpshufb(v.x(), v.x(), rip(&c.bswap32));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm4::sm4_sub_byte;

    fn bytewise(w: u32, f: impl Fn(u8) -> u8) -> u32 {
        u32::from_le_bytes(w.to_le_bytes().map(f))
    }

    /// SM4's linear layer from the byte-wise maps: `L(B) = F0 ^ rol8(F8) ^ rol16(F8) ^ rol24(F0 ^ F8)`.
    #[test]
    fn linear_layer_is_byte_wise_maps_and_rotations() {
        let l = |b: u32| b ^ b.rotate_left(2) ^ b.rotate_left(10) ^ b.rotate_left(18) ^ b.rotate_left(24);
        let mut b = 0x0123_4567u32;
        for _ in 0..100_000 {
            let f0 = bytewise(b, LINEAR_MAPS[0].2);
            let f8 = bytewise(b, LINEAR_MAPS[1].2);
            assert_eq!(l(b), f0 ^ f8.rotate_left(8) ^ f8.rotate_left(16) ^ (f0 ^ f8).rotate_left(24), "{b:#x}");
            b = b.wrapping_mul(0x9e37_79b9).wrapping_add(0x7f4a_7c15);
        }
    }

    /// The tables: `G(y) = M1*F(S-box post-affine(y))` for every byte `y` out of `aesenclast`, and `M1^-1`
    /// undoes the domain (`M1^-1 * (A1(x) ^ c1) = x`).
    #[test]
    fn one_group_tables_compose_the_maps() {
        let (pre, post) = sbox_affine();
        let ([(g0lo, g0hi), (g8lo, g8hi)], (ilo, ihi)) = OneGroupTables::bytes();
        let nib = |lo: &[u8; 16], hi: &[u8; 16], y: u8| lo[(y & 15) as usize] ^ hi[(y >> 4) as usize];
        for y in 0..=255u8 {
            let b = post.apply(y);
            assert_eq!(nib(&g0lo, &g0hi, y), pre.m.apply(LINEAR_MAPS[0].2(b)));
            assert_eq!(nib(&g8lo, &g8hi, y), pre.m.apply(LINEAR_MAPS[1].2(b)));
            assert_eq!(nib(&ilo, &ihi, pre.apply(y) ^ pre.c), y);
        }
        // And the S-box is post(AES-SubBytes(pre(x))), the split the domain relies on.
        for x in 0..=255u8 {
            assert_eq!(post.apply(crate::sm4::aes_sub_byte(pre.apply(x))), sm4_sub_byte(x));
        }
    }
}
