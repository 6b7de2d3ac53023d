//! SM4 rounds with AES-NI or VAES in the pre-affine map's domain.
//!
//! The state words are held as `X~ = M1*X`, `M1` the linear part of the S-box's pre-affine map `A1`. `M1` is
//! byte-wise and linear, so a round's S-box input `A1(x1 ^ x2 ^ x3 ^ rk) = X~1 ^ X~2 ^ X~3 ^ A1(rk)` goes straight
//! into `aesenclast`, and from its output `y` the post-affine map, SM4's linear layer and `M1` are one step:
//! `M1*L(B) = isr0(G0(y)) ^ isr8(G8(y)) ^ isr16(G8(y)) ^ isr24(G0(y) ^ G8(y))`, `G0` and `G8` byte-wise maps
//! looked up by nibble ([`DomainTables`]) and each `isr` a `vpshufb` undoing ShiftRows and rotating. A batch's
//! round is 23 vector ops per group rather than 28 (its key's `vpshufd` included), and its dependency chain 7
//! ops and `aesenclast` rather than 15.
//!
//! [`rounds_one`](super::rounds_one) runs one group this way, built for latency; [`rounds_in_domain`] runs the
//! batches' groups, built for throughput.

use super::consts::*;
use super::nibble::*;
use super::roles::{round_loop, RK, TMP};
use super::set::Sbox;
use super::width::*;
use crate::sm4::{sbox_affine, Affine};
use asmgen::isa::x86_64::{mem, rip, Gpr};
use asmgen::Label;

/// The nibble tables of the domain's rounds (`lo[n]` for the low nibble, constants included; `hi[n]` for the
/// high nibble), 32 bytes each (the table twice, for ymm).
pub struct DomainTables {
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

/// `F0` and `F8` of [`DomainTables::g`], byte-wise.
const LINEAR_MAPS: [(&str, &str, ByteMap); 2] =
    [("sm4_m1_f0", "B ^ T1(B)", |x| x ^ (x << 2)), ("sm4_m1_f8", "T1(B) ^ T2(B)", |x| (x << 2) ^ (x >> 6))];

impl DomainTables {
    /// The tables' bytes: `G0` and `G8` (low, high), then `M1^-1` (low, high).
    ///
    /// Derived once per process and then copied: every SM4 kernel the JIT builds at startup registers them,
    /// and inverting `M1` by search was 6% of a Zen 3's startup.
    fn bytes() -> ([NibbleTables; 2], NibbleTables) {
        static BYTES: std::sync::OnceLock<([NibbleTables; 2], NibbleTables)> = std::sync::OnceLock::new();
        *BYTES.get_or_init(Self::derive_bytes)
    }

    fn derive_bytes() -> ([NibbleTables; 2], NibbleTables) {
        let (pre, post) = sbox_affine();
        let m1 = pre.m;
        let (lo, hi) = post.nibble_tables();
        let g = LINEAR_MAPS.map(|(_, _, f)| (lo.map(|x| m1.apply(f(x))), hi.map(|x| m1.apply(f(x)))));
        (g, Affine { m: m1.inverse(), c: 0 }.nibble_tables())
    }

    /// Registers the tables with `b`.
    pub fn new(b: &mut B) -> DomainTables {
        let (g, (ilo, ihi)) = Self::bytes();
        let mut n = 0;
        let g = g.map(|(lo, hi)| {
            let (name, what, _) = LINEAR_MAPS[n];
            n += 1;
            (
                b.constant(
                    &format!("{name}_lo"),
                    32,
                    &format!(
                        "M1*({what}), B = M2*y ^ c2 the S-box's post-affine output (low nibble of y, c2 included)"
                    ),
                    &twice(lo),
                ),
                b.constant(&format!("{name}_hi"), 32, &format!("M1*({what}), B = M2*y (high nibble of y)"), &twice(hi)),
            )
        });
        let leave = (
            b.constant("sm4_m1_inv_lo", 32, "M1^-1 (low nibble)", &twice(ilo)),
            b.constant("sm4_m1_inv_hi", 32, "M1^-1 (high nibble)", &twice(ihi)),
        );
        DomainTables { g, leave }
    }
}

/// `t = A1(t) = M1*t ^ c1`, the S-box's pre-affine map on every byte, from the nibble tables in [`PRE_LO`] and
/// [`PRE_HI`]. Clobbers `s`.
pub(super) fn a1(b: &mut B, c: &Consts, w: Width, t: V, s: V) {
    affine_map(b, c, w, t, s, (PRE_LO, PRE_HI));
}

/// Into the domain: `X~ = M1*X = A1(X) ^ c1` on every word of `groups` (`c1 = A1(0)` built in `scratch`), with
/// the pre-affine tables in [`PRE_LO`] and [`PRE_HI`]. Clobbers [`TMP`]`[0]`.
pub(super) fn enter_domain(b: &mut B, c: &Consts, w: Width, groups: &[[V; 4]], scratch: V) {
    b.comment("Into the pre-affine map's domain, X~ = M1*X = A1(X) ^ c1 (c1 = A1(0)) on every word.");
    vxor(b, w, scratch, scratch, scratch);
    vshufb(b, w, scratch, PRE_LO, scratch);
    for &v in groups.iter().flatten() {
        a1(b, c, w, v, TMP[0]);
        vxor(b, w, v, v, scratch);
    }
}

/// Out of the domain: `X = M1^-1*X~` on every word of `groups`, the tables read from memory. Clobbers [`TMP`].
pub(super) fn leave_domain(b: &mut B, c: &Consts, w: Width, groups: &[[V; 4]], tables: &DomainTables) {
    let [t0, t1, t2] = TMP;
    b.comment("Out of the domain: X = M1^-1*X~.");
    for &v in groups.iter().flatten() {
        nibbles(b, c, w, v, t0);
        lookup_in_memory(b, w, v, [t1, t2], [v, t0], &tables.leave);
    }
}

/// `y = ShiftRows(AES-SubBytes(t))` in `t`: `aesenclast` with a zero round key; on ymm without VAES, per
/// 128-bit half. Clobbers `s` (ymm without VAES).
pub(super) fn aes_subbytes(b: &mut B, c: &Consts, w: Width, t: V, s: V) {
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

/// One round of [`rounds_one`](super::rounds_one) in the domain: `s ^= M1*L(B)` for the S-box input `u`, the
/// `G` tables read from memory. Clobbers `u` and [`TMP`].
pub(super) fn add_linear_one(b: &mut B, c: &Consts, tables: &DomainTables, u: V, s: V) {
    let w = Width::X;
    let [t0, t1, t2] = TMP;
    aes_subbytes(b, c, w, u, t0);
    nibbles(b, c, w, u, t0);
    lookup_in_memory(b, w, t1, [t1, t2], [u, t0], &tables.g[0]);
    lookup_in_memory(b, w, t2, [t2, u], [u, t0], &tables.g[1]);
    add_rotated_terms(b, c, w, s, [t1, t2], [u, t0]);
}

/// `acc ^= isr0(G0) ^ isr8(G8) ^ isr16(G8) ^ isr24(G0 ^ G8)` = `M1*L(B)`, `G0` and `G8` in `g`, summed as a tree
/// (the `G24` term arrives one xor after the others). 4 shuffles, 5 xors. Clobbers `g[1]` and `t`.
fn add_rotated_terms(b: &mut B, c: &Consts, w: Width, acc: V, [g0, g8]: [V; 2], [ta, tb]: [V; 2]) {
    vshufb(b, w, ta, g0, rip(&c.isr_rol[0]));
    vxor(b, w, acc, acc, ta);
    vshufb(b, w, tb, g8, rip(&c.isr_rol[1]));
    vshufb(b, w, ta, g8, rip(&c.isr_rol[2]));
    vxor(b, w, tb, tb, ta);
    vxor(b, w, acc, acc, tb);
    vxor(b, w, g8, g8, g0); // G24 = G0 ^ G8
    vshufb(b, w, g8, g8, rip(&c.isr_rol[3]));
    vxor(b, w, acc, acc, g8);
}

/// [`rounds_in_domain`]'s table registers, [`PRE_LO`], [`PRE_HI`] and [`POST_LO`]'s (reloaded after the
/// rounds): `G0`'s two nibble tables and `G8`'s low-nibble table. `G8`'s high-nibble table is read from memory.
const G_REGS: [V; 3] = [PRE_LO, PRE_HI, POST_LO];
/// [`rounds_in_domain`]'s fourth scratch register, [`POST_HI`]'s.
const T3: V = POST_HI;

/// The 32 rounds on `groups` (xmm or ymm, AES-NI or VAES) in the domain, for throughput: a loop of four unrolled
/// rounds. Each pass loads its four round keys at once and maps them (`A1(rk)`, in dwords 0-3 of [`RK`]'s
/// lanes); a round's S-box input is `vpshufd` of its key xored with the three words. Uses rax and r11, and
/// leaves the S-box tables in [`PRE_LO`]..[`POST_HI`] as it found them.
pub fn rounds_in_domain(b: &mut B, c: &Consts, w: Width, groups: &[[V; 4]], rk: Gpr) {
    assert!(c.sbox != Sbox::Gfni && w != Width::Z, "the domain rounds are AES-NI's and VAES's on xmm and ymm");
    let tables = DomainTables::new(b);
    enter_domain(b, c, w, groups, T3);
    b.comment(format_args!(
        "32 rounds on {} blocks in the domain: 8 x 4 unrolled rounds; {} vector ops per round and group \
         (vpshufd of the mapped key, 3 xor, {}, the nibble split 3, 4 lookups, 3 xor, 4 shuffles undoing ShiftRows \
         and rotating, 4 xor) and a load of G8's high-nibble table; M1*L(B) = isr0(G0) ^ isr8(G8) ^ isr16(G8) ^ \
         isr24(G0 ^ G8).",
        groups.len() * 4 * w.blocks(),
        if w == Width::X || c.sbox == Sbox::Vaes { 23 } else { 26 },
        if w == Width::X || c.sbox == Sbox::Vaes { "aesenclast" } else { "extract, two aesenclast, insert" },
    ));
    for (r, l) in G_REGS.into_iter().zip([&tables.g[0].0, &tables.g[0].1, &tables.g[1].0]) {
        load_table(b, w, r, l);
    }
    round_loop(b, rk, &mut |b, j, ptr| {
        if j == 0 {
            b.comment("This pass's four round keys, mapped: A1(rk[4i + j]) in dword j (of each 128-bit lane).");
            match w {
                Width::X => b.vmovdqu(RK.x(), mem(ptr, 0)),
                _ => b.vbroadcasti128(RK.y(), mem(ptr, 0)),
            };
            nibbles(b, c, w, RK, TMP[0]);
            lookup_in_memory(b, w, RK, [TMP[1], TMP[2]], [RK, TMP[0]], &c.pre);
        }
        b.comment(format_args!(
            "round 4i+{j}: X~{j} ^= M1*L(B), B = S(X{} ^ X{} ^ X{} ^ rk[4i+{j}])",
            (j + 1) % 4,
            (j + 2) % 4,
            (j + 3) % 4
        ));
        for g in groups {
            let x = [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]];
            round_in_domain(b, c, w, x, j, &tables.g[1].1);
        }
    });
    leave_domain(b, c, w, groups, &tables);
    b.comment("The S-box tables back in their registers.");
    c.load_tables(b, w);
}

/// One round of [`rounds_in_domain`] on one group: `x[0] ^= M1*L(S(x[1] ^ x[2] ^ x[3] ^ rk))` in the domain,
/// the mapped key in dword `j` of [`RK`], `G8`'s high-nibble table at `g8hi`. Clobbers [`TMP`] and [`T3`].
fn round_in_domain(b: &mut B, c: &Consts, w: Width, x: [V; 4], j: usize, g8hi: &Label) {
    let [t0, t1, t2] = TMP;
    let [g0lo, g0hi, g8lo] = G_REGS;
    vshufd(b, w, t0, RK, 0x55 * j as u8);
    // x[3] is the newest word: xor it last to keep one op on the dependency chain.
    vxor(b, w, t0, t0, x[1]);
    vxor(b, w, t0, t0, x[2]);
    vxor(b, w, t0, t0, x[3]);
    aes_subbytes(b, c, w, t0, t1);
    nibbles(b, c, w, t0, t1);
    // G0 in t2, G8 in t0.
    vshufb(b, w, t2, g0lo, t0);
    vshufb(b, w, T3, g0hi, t1);
    vxor(b, w, t2, t2, T3);
    vshufb(b, w, t0, g8lo, t0);
    load_table(b, w, T3, g8hi);
    vshufb(b, w, T3, T3, t1);
    vxor(b, w, t0, t0, T3);
    add_rotated_terms(b, c, w, x[0], [t2, t0], [t1, T3]);
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
    fn domain_tables_compose_the_maps() {
        let (pre, post) = sbox_affine();
        let ([(g0lo, g0hi), (g8lo, g8hi)], (ilo, ihi)) = DomainTables::bytes();
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
