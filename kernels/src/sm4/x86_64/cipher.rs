//! The cipher core: the S-box, the rounds (AES-NI out of the domain for GCM, GFNI, VAES on zmm), 32 rounds over
//! groups of transposed blocks (AES-NI and VAES on xmm and ymm in [`domain`](super::domain)), entering and
//! leaving the GFNI domain, the transpose, and one block on its own.

use super::consts::*;
use super::domain::{a1, add_linear_one, aes_subbytes, enter_domain, leave_domain, rounds_in_domain, DomainTables};
use super::nibble::*;
use super::roles::*;
use super::set::Sbox;
use super::width::*;
use asmgen::isa::x86_64::{mem, regs::*, rip, Gpr, Mem};
use asmgen::Label;

/// The S-box on every byte of `t`, leaving the result in ShiftRows order: `t = ShiftRows(S(t))`, as
/// `M2*SubBytes(M1*t ^ c1) ^ c2`. 13 vector ops on xmm (6 pre-affine, `aesenclast`, 6 post-affine), 16 on ymm.
/// Clobbers `s`.
pub fn sbox(b: &mut B, c: &Consts, w: Width, t: V, s: V) {
    assert!(c.sbox != Sbox::Gfni, "the GFNI round has its own S-box");
    affine_map(b, c, w, t, s, (PRE_LO, PRE_HI));
    aes_subbytes(b, c, w, t, s);
    affine_map(b, c, w, t, s, (POST_LO, POST_HI));
}

/// One SM4 round on one group held transposed, `x[0] ^= L(S(x[1] ^ x[2] ^ x[3] ^ rk))`, on zmm with VAES: the
/// constants in registers ([`ZNIB`], [`ZISR`], [`ZZERO`], the nibble tables), the
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

/// One SM4 round on one group held transposed, `x[0] ^= L(S(x[1] ^ x[2] ^ x[3] ^ rk))`, with GFNI, in the domain `Y = M1·X` ([`gfni::GfniRound`](crate::sm4::gfni::GfniRound)), `rk` already mapped (`M1·rk ^ c1`):
/// `u = x1 ^ x2 ^ rk ^ x3`, `x0 ^= rot0(u) ^ rol8(rot8(u)) ^ rol16(rot8(u)) ^ rol24(rot24(u))`, each `rotK` one
/// `vgf2p8affineinvqb`. 13 vector ops; the chain from `x3` to the new word is xor, affine-inverse, shuffle and
/// two xors.
pub fn round_gfni(b: &mut B, c: &Consts, w: Width, x: [V; 4], rk: V, t: [V; 3]) {
    let g = c.g();
    let m = g.maps;
    let [t0, t1, t2] = t;
    if w == Width::Z {
        // zmm: three-way xors are one vpternlogq and the byte rotations vprold (no constant to read): 10 ops.
        // The words are as loaded ([`words_as_loaded`]): rol8 and rol24 of a big-endian word are rol24 and rol8.
        assert!(words_as_loaded(c, w), "the zmm GFNI rounds hold the words as loaded");
        vxor(b, w, t0, x[1], x[2]);
        vxor3(b, t0, rk, x[3]);
        vaffineinv(b, w, t1, t0, PRE_HI, m.rot8.c);
        vaffineinv(b, w, t2, t0, PRE_LO, m.rot0.c);
        vaffineinv(b, w, t0, t0, POST_LO, m.rot24.c);
        vrold(b, t0, t0, 8);
        vxor3(b, x[0], t2, t0);
        vrold(b, t2, t1, 24);
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

/// One SM4 round on one group held transposed, `x[0] ^= L(S(x[1] ^ x[2] ^ x[3] ^ rk))`, out of any domain and
/// with two scratch registers, for kernels that keep other state in the registers this frees (GCM keeps GHASH
/// accumulators there).
///
/// The round key is broadcast into `t[1]` from `rk` (once per group); the S-box is [`sbox`]; the linear layer
/// `x0 ^= B ^ rol24(B) ^ rol2(B ^ rol8(B) ^ rol16(B))` rotates `B` in place: `t1 = B, t0 = rol8(B), t1 ^= t0,
/// t0 = rol8(t0), t1 ^= t0, t0 = rol8(t0)`, the first shuffle also undoing ShiftRows. 28 vector ops per round
/// and group on xmm (31 on ymm) plus the broadcast: 3 xor, the S-box 13 (16), the linear layer 12.
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
    if c.sbox != Sbox::Gfni && w != Width::Z {
        return rounds_in_domain(b, c, w, groups, rk);
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
        return rounds_entered(b, c, w, groups, rk);
    } else {
        enter(b, c, w, groups);
        b.comment(format_args!(
            "32 rounds on {} blocks: 8 x 4 unrolled rounds; 13 vector ops per round and group (3 xor, 3 \
             vgf2p8affineinvqb, 3 vpshufb, 4 xor), plus the round key's broadcast and affine map.",
            groups.len() * 4 * w.blocks(),
        ));
    }
    if w == Width::Z && c.sbox == Sbox::Gfni {
        rounds_z_gfni(b, c, groups);
    } else {
        round_loop(b, rk, &mut |b, j, ptr| {
            round_comment(b, j);
            if c.sbox == Sbox::Gfni {
                round_key_gfni(b, c, w, RK, mem(ptr, 4 * j as i32));
            } else {
                vbroadcast(b, w, RK, mem(ptr, 4 * j as i32));
            }
            for g in groups {
                let x = [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]];
                if c.sbox == Sbox::Gfni {
                    round_gfni(b, c, w, x, RK, TMP);
                } else {
                    round_vaes_z(b, x, RK, TMP);
                }
            }
        });
    }
    leave(b, c, w, groups);
}

/// [`rounds`] on words already in the GFNI domain where the zmm GFNI rounds keep them (their [`enter`] done by
/// the caller); [`rounds`] itself for the other sets.
pub fn rounds_entered(b: &mut B, c: &Consts, w: Width, groups: &[[V; 4]], rk: Gpr) {
    if w != Width::Z || c.sbox != Sbox::Gfni {
        return rounds(b, c, w, groups, rk);
    }
    b.comment(format_args!(
        "32 rounds on {} blocks: 7 x 4 unrolled rounds and 4 more; 10 vector ops per round and group (vpxorq, 3 \
         vpternlogq, 3 vgf2p8affineinvqb, 3 vprold), plus the round key's vpbroadcastd (the keys mapped once per \
         call).",
        groups.len() * 4 * w.blocks(),
    ));
    rounds_z_gfni(b, c, groups);
    leave(b, c, w, groups);
}

/// The comment naming round `4i + j`.
fn round_comment(b: &mut B, j: usize) {
    b.comment(format_args!(
        "round 4i+{j}: X{j} ^= T(X{} ^ X{} ^ X{} ^ rk[4i+{j}])",
        (j + 1) % 4,
        (j + 2) % 4,
        (j + 3) % 4
    ));
}

/// The 32 rounds of the zmm GFNI kernels: seven passes of four unrolled rounds in a loop, then the last pass,
/// each round's key, mapped into the domain once per call ([`Consts::map_keys_z`]), read from the stack frame
/// with one `vpbroadcastd` (a load: the shuffle and GFNI pipes, which the rounds fill, do nothing for it).
fn rounds_z_gfni(b: &mut B, c: &Consts, groups: &[[V; 4]]) {
    let w = Width::Z;
    let pass = |b: &mut B| {
        for j in 0..4 {
            round_comment(b, j);
            b.vpbroadcastd(RK.z(), mem(RAX, 4 * j as i32));
            for g in groups {
                round_gfni(b, c, w, [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]], RK, TMP);
            }
        }
    };
    let (ptr, end) = (RAX, R11);
    let keys = c.keys_z();
    b.lea(ptr, keys.at(0));
    b.lea(end, keys.at(112));
    let lp = b.label("rounds");
    b.align(4);
    b.bind(&lp);
    pass(b);
    b.add(ptr, 16);
    b.cmp(ptr, end);
    b.jnz(&lp);
    b.comment("The last pass.");
    pass(b);
}

/// The 32 rounds of the zmm GFNI kernels on `groups`, their words already in the domain (the caller forms them
/// there), out of it at the end, unrolled (no loop, no pointer register), each round's key read from the frame
/// of [`Consts::map_keys_z`], and `hook(b, r)` after round `r` (0..32), where a fused kernel puts its other
/// work (GCM: the GHASH groups) among the rounds' chains.
pub fn rounds_z_hooked(b: &mut B, c: &Consts, groups: &[[V; 4]], hook: &mut dyn FnMut(&mut B, usize)) {
    let w = Width::Z;
    b.comment(format_args!(
        "32 rounds on {} blocks, unrolled; 10 vector ops per round and group (vpxorq, 3 vpternlogq, 3 \
         vgf2p8affineinvqb, 3 vprold), plus the round key's vpbroadcastd.",
        groups.len() * 4 * w.blocks(),
    ));
    let keys = c.keys_z();
    for r in 0..32 {
        let j = r % 4;
        round_comment(b, j);
        b.vpbroadcastd(RK.z(), keys.at(4 * r as i32));
        for g in groups {
            round_gfni(b, c, w, [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]], RK, TMP);
        }
        hook(b, r);
    }
    leave(b, c, w, groups);
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
/// isr8(G8(y)) ^ isr16(G8(y)) ^ isr24(G0(y) ^ G8(y))`, the `G` byte-wise maps looked up by nibble (`domain::DomainTables`)
/// and each `isr` a `vpshufb` undoing ShiftRows and rotating. From one S-box input to the next: `aesenclast`
/// and 7 dependent vector ops (the nibble split's 2, lookup, xor, shuffle, two xors) rather than 15 out of the domain
/// (an xor, the pre-affine's 4, the post-affine's 4, the linear layer's 6). Per round 29 vector ops, the round
/// key's broadcast and 4 table loads with AES-NI (28 and the broadcast out of it; the round key's map A1 is
/// 6 of them, off the chain), 14 vector ops with GFNI (13; 4 dependent rather than 5). Measured on a Zen 5
/// (whose simple vector ops take 2 cycles): about 22 cycles per AES-NI round against 35.
pub fn rounds_one(b: &mut B, c: &Consts, g: [V; 4], rk: Gpr) {
    let w = Width::X;
    let (mut u, mut s) = (ONE_GROUP[0], ONE_GROUP[1]);
    let tables = (c.sbox != Sbox::Gfni).then(|| DomainTables::new(b));
    // The round key at `m` into `d`: GFNI's domain map, or (AES-NI) the whole pre-affine map A1.
    let key = |b: &mut B, d: V, m: Mem| {
        if tables.is_some() {
            vbroadcast(b, w, d, m);
            a1(b, c, w, d, TMP[1]);
        } else {
            round_key_gfni(b, c, w, d, m);
        }
    };
    match &tables {
        Some(_) => enter_domain(b, c, w, &[g], s),
        None => enter(b, c, w, &[g]),
    }
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
            Some(tables) => add_linear_one(b, c, tables, u, s),
            None => add_linear_gfni(b, c, u, s),
        }
        b.vpxor(x[0].x(), s.x(), RK.x());
        std::mem::swap(&mut u, &mut s);
    });
    match &tables {
        Some(tables) => leave_domain(b, c, w, &[g], tables),
        None => leave(b, c, w, &[g]),
    }
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

/// Whether the rounds at width `w` hold the words as they lie in memory (little-endian) rather than byte-swapped
/// to SM4's big-endian order: the zmm GFNI kernels. The linear layer is byte rotations of bytewise maps of the
/// S-box output ([`round_gfni`]), and a bytewise map commutes with reversing a word's bytes, so the rounds on
/// byte-reversed words are the same rounds with the rotations by 8 and 24 exchanged and the round keys
/// byte-swapped (once per call, [`Consts::map_keys_z`]); the blocks then go into the rounds and out of them
/// without a byte swap (24 `vpshufb` fewer per 48 blocks).
pub fn words_as_loaded(c: &Consts, w: Width) -> bool {
    w == Width::Z && c.sbox == Sbox::Gfni
}

/// Byte-swaps each dword of `v`: on zmm with the control in [`ZBSWAP`], narrower from the `bswap32` constant.
pub fn bswap32(b: &mut B, c: &Consts, w: Width, v: V) {
    if w == Width::Z {
        vshufb(b, w, v, v, ZBSWAP);
    } else {
        vshufb(b, w, v, v, rip(&c.bswap32));
    }
}

/// The blocks of `groups` (as loaded) into the rounds' words, transposed: register j of a group then holds word
/// j of its blocks (byte-swapped to big-endian unless [`words_as_loaded`]).
pub fn blocks_to_words(b: &mut B, c: &Consts, w: Width, groups: &[[V; 4]]) {
    for g in groups {
        for &v in g.iter().filter(|_| !words_as_loaded(c, w)) {
            bswap32(b, c, w, v);
        }
        transpose(b, w, *g, *g, TMP);
    }
}

/// The output words X35, X34, X33, X32 of `groups` back into blocks: transposed back and byte-swapped (unless
/// [`words_as_loaded`]), a group's registers then holding its blocks in slot order.
pub fn words_to_blocks(b: &mut B, c: &Consts, w: Width, groups: &[[V; 4]]) {
    for g in groups {
        transpose(b, w, [g[3], g[2], g[1], g[0]], *g, TMP);
        for &v in g.iter().filter(|_| !words_as_loaded(c, w)) {
            bswap32(b, c, w, v);
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
