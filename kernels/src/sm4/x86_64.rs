//! SM4 with AES-NI on x86_64: AVX (xmm, 8 blocks in flight) and AVX2 (ymm, 16 blocks in flight).
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
//! The building blocks ([`round`], [`round_lean`], [`rounds`], [`transpose`], [`Consts`], [`Width`]) are public;
//! the modes with more state than a batch of blocks live in submodules: [`xts`] (tweak chain in registers),
//! [`gcm`] (CTR fused with GHASH) and [`ccm`] (CTR and CBC-MAC in one pass).

use super::{gfni, sbox_affine, Mode, Serial, CK, FK};
use crate::arch::x86_64::{advance, mov_count};
use crate::role::{self, Kernel, Kernels, Role};
use crate::{Blocks, Fixed};
use asmgen::isa::x86_64::{mem, mem_index, regs::*, rip, Gpr, Mem, X86Feature, Xmm, Ymm, X86_64};
use asmgen::{Abi, Builder, Function, GenError, Label};

pub mod ccm;
pub mod gcm;
pub mod xts;

type B = Builder<X86_64>;

/// Register width of a vector operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// xmm: 4 blocks per group.
    X,
    /// ymm: 8 blocks per group (4 per 128-bit lane).
    Y,
}

impl Width {
    /// Blocks one register holds when it holds whole blocks.
    pub fn blocks(self) -> usize {
        match self {
            Width::X => 1,
            Width::Y => 2,
        }
    }
}

/// How a round computes the S-box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sbox {
    /// `vpshufb` nibble tables around `aesenclast` with a zero key (ymm: on the two 128-bit halves).
    AesNi,
    /// The same with `vaesenclast` on whole ymm registers (VAES).
    Vaes,
    /// GFNI: the state kept in the pre-affine's domain, a round is three `vgf2p8affineinvqb` ([`gfni::round`]).
    Gfni,
}

/// A kernel set of the listing: the suffix of its function names, its main width and its S-box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Set {
    /// `_avx`: AES-NI + AVX, xmm.
    Avx,
    /// `_avx2`: AES-NI + AVX2, ymm, `aesenclast` per half.
    Avx2,
    /// `_vaes`: VAES + AVX2, ymm.
    Vaes,
    /// `_gfni`: GFNI + AVX2, ymm.
    Gfni,
}

impl Set {
    /// The width of the main loop (small batches and serial modes run on xmm).
    pub fn width(self) -> Width {
        match self {
            Set::Avx => Width::X,
            _ => Width::Y,
        }
    }

    /// The S-box strategy.
    pub fn sbox(self) -> Sbox {
        match self {
            Set::Avx | Set::Avx2 => Sbox::AesNi,
            Set::Vaes => Sbox::Vaes,
            Set::Gfni => Sbox::Gfni,
        }
    }

    /// The function-name suffix.
    pub fn name(self) -> &'static str {
        match self {
            Set::Avx => "avx",
            Set::Avx2 => "avx2",
            Set::Vaes => "vaes",
            Set::Gfni => "gfni",
        }
    }

    /// The features the set's kernels may use.
    pub fn features(self) -> Vec<X86Feature> {
        use X86Feature::*;
        match self {
            Set::Avx => vec![Aes, Avx],
            Set::Avx2 => vec![Aes, Avx, Avx2],
            Set::Vaes => vec![Aes, Avx, Avx2, Vaes],
            Set::Gfni => vec![Avx, Avx2, Gfni],
        }
    }

    /// How the main loop's blocks are held, for the functions' documentation.
    fn layout(self) -> &'static str {
        match self {
            Set::Avx => "two groups of 4 in xmm",
            Set::Avx2 => "two groups of 8 in ymm, aesenclast per half",
            Set::Vaes => "two groups of 8 in ymm, vaesenclast",
            Set::Gfni => "two groups of 8 in ymm, GFNI S-box",
        }
    }
}

/// A vector register by number (printed as xmm or ymm according to the operation's [`Width`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct V(pub u8);

impl V {
    /// The xmm view.
    pub fn x(self) -> Xmm {
        Xmm(self.0)
    }
    /// The ymm view.
    pub fn y(self) -> Ymm {
        Ymm(self.0)
    }
}

/// A register or memory source operand.
#[derive(Clone, Debug)]
pub enum Src {
    /// A register.
    R(V),
    /// Memory (16 or 32 bytes, by width).
    M(Mem),
}

impl From<V> for Src {
    fn from(v: V) -> Src {
        Src::R(v)
    }
}
impl From<Mem> for Src {
    fn from(m: Mem) -> Src {
        Src::M(m)
    }
}

macro_rules! binops {
    ($($name:ident => $x:ident, $y:ident;)*) => {$(
        #[doc = concat!("`", stringify!($x), "` at width `w`.")]
        pub fn $name(b: &mut B, w: Width, d: V, a: V, s: impl Into<Src>) {
            match (w, s.into()) {
                (Width::X, Src::R(r)) => b.$x(d.x(), a.x(), r.x()),
                (Width::X, Src::M(m)) => b.$x(d.x(), a.x(), m),
                (Width::Y, Src::R(r)) => b.$y(d.y(), a.y(), r.y()),
                (Width::Y, Src::M(m)) => b.$y(d.y(), a.y(), m),
            };
        }
    )*};
}

binops! {
    vxor => vpxor, vpxor_y;
    vand => vpand, vpand_y;
    vshufb => vpshufb, vpshufb_y;
    vaddq => vpaddq, vpaddq_y;
    vaddd => vpaddd, vpaddd_y;
    vunpckldq => vpunpckldq, vpunpckldq_y;
    vunpckhdq => vpunpckhdq, vpunpckhdq_y;
    vunpcklqdq => vpunpcklqdq, vpunpcklqdq_y;
    vunpckhqdq => vpunpckhqdq, vpunpckhqdq_y;
}

/// `vpslld` at width `w`.
pub fn vslld(b: &mut B, w: Width, d: V, a: V, n: i32) {
    match w {
        Width::X => b.vpslld(d.x(), a.x(), n),
        Width::Y => b.vpslld_y(d.y(), a.y(), n),
    };
}

/// `vpsrld` at width `w`.
pub fn vsrld(b: &mut B, w: Width, d: V, a: V, n: i32) {
    match w {
        Width::X => b.vpsrld(d.x(), a.x(), n),
        Width::Y => b.vpsrld_y(d.y(), a.y(), n),
    };
}

/// Unaligned load at width `w`.
pub fn vload(b: &mut B, w: Width, d: V, m: Mem) {
    match w {
        Width::X => b.vmovdqu_load(d.x(), m),
        Width::Y => b.vmovdqu_load_y(d.y(), m),
    };
}

/// Unaligned store at width `w`.
pub fn vstore(b: &mut B, w: Width, m: Mem, s: V) {
    match w {
        Width::X => b.vmovdqu_store(m, s.x()),
        Width::Y => b.vmovdqu_store_y(m, s.y()),
    };
}

/// Register-to-register copy at width `w`.
pub fn vmov(b: &mut B, w: Width, d: V, s: V) {
    match w {
        Width::X => b.vmovdqa(d.x(), s.x()),
        Width::Y => b.vmovdqa_y(d.y(), s.y()),
    };
}

/// Broadcasts the round-key word at `m` to every dword.
pub fn vbroadcast(b: &mut B, w: Width, d: V, m: Mem) {
    match w {
        Width::X => b.vbroadcastss(d.x(), m),
        Width::Y => b.vpbroadcastd_y(d.y(), m),
    };
}

/// `vgf2p8affineqb` at width `w`: `d = A·a ^ c` on every byte.
pub fn vaffine(b: &mut B, w: Width, d: V, a: V, m: impl Into<Src>, c: u8) {
    match (w, m.into()) {
        (Width::X, Src::R(r)) => b.vgf2p8affineqb(d.x(), a.x(), r.x(), c),
        (Width::X, Src::M(m)) => b.vgf2p8affineqb(d.x(), a.x(), m, c),
        (Width::Y, Src::R(r)) => b.vgf2p8affineqb_y(d.y(), a.y(), r.y(), c),
        (Width::Y, Src::M(m)) => b.vgf2p8affineqb_y(d.y(), a.y(), m, c),
    };
}

/// `vgf2p8affineinvqb` at width `w`: `d = A·inv(a) ^ c` on every byte.
pub fn vaffineinv(b: &mut B, w: Width, d: V, a: V, m: impl Into<Src>, c: u8) {
    match (w, m.into()) {
        (Width::X, Src::R(r)) => b.vgf2p8affineinvqb(d.x(), a.x(), r.x(), c),
        (Width::X, Src::M(m)) => b.vgf2p8affineinvqb(d.x(), a.x(), m, c),
        (Width::Y, Src::R(r)) => b.vgf2p8affineinvqb_y(d.y(), a.y(), r.y(), c),
        (Width::Y, Src::M(m)) => b.vgf2p8affineinvqb_y(d.y(), a.y(), m, c),
    };
}

// Register roles. Groups are v0-v3 and v4-v7 (slot `s` of a batch, a register of whole blocks, is `V(s)`).
/// The two groups of state registers.
pub const GROUPS: [[V; 4]; 2] = [[V(0), V(1), V(2), V(3)], [V(4), V(5), V(6), V(7)]];
/// Scratch registers of a round.
pub const TMP: [V; 3] = [V(8), V(9), V(10)];
/// The broadcast round key.
pub const RK: V = V(11);
/// Pre-affine nibble tables (low, high), post-affine nibble tables (low, high). GFNI: the matrices of
/// [`gfni::GfniRound`] `rot0`, `rot8`, `rot24` and `key` (= `enter`).
pub const PRE_LO: V = V(12);
/// See [`PRE_LO`].
pub const PRE_HI: V = V(13);
/// See [`PRE_LO`].
pub const POST_LO: V = V(14);
/// See [`PRE_LO`].
pub const POST_HI: V = V(15);

/// Twice a 16-byte pattern: every vector constant is 32 bytes so ymm code can use it as a memory operand.
fn twice(x: [u8; 16]) -> [u8; 32] {
    std::array::from_fn(|i| x[i % 16])
}

/// `vpshufb` control for a byte permutation given as `out[i] = in[p(i)]`.
fn perm(p: impl Fn(usize) -> usize) -> [u8; 16] {
    std::array::from_fn(|i| p(i) as u8)
}

/// The AES ShiftRows source index: `aesenclast` output byte `i` is S-box(input byte `SR[i]`).
fn shift_rows(i: usize) -> usize {
    let (c, r) = (i / 4, i % 4);
    4 * ((c + r) % 4) + r
}

/// Control undoing ShiftRows and then rotating each dword left by `8*n` bits.
fn inv_shift_rows_rol(n: usize) -> [u8; 16] {
    let isr = |j: usize| (0..16).find(|&i| shift_rows(i) == j).expect("permutation");
    // rol(w, 8n) on a little-endian dword: byte m of the result is byte (m - n) mod 4 of the input.
    perm(|i| isr(4 * (i / 4) + (i % 4 + 4 - n) % 4))
}

/// The GFNI constants (matrix qwords, repeated to 32 bytes) and the immediates.
pub struct GfniConsts {
    /// The maps (matrices and constants).
    pub maps: gfni::GfniRound,
    /// `leave` (`M1^-1`).
    pub leave: Label,
    /// `vpshufb` controls rotating each dword left by 8, 16, 24.
    pub rol: [Label; 3],
}

/// The read-only constants of the SM4 listing, registered in one function.
pub struct Consts {
    /// The S-box strategy of the kernel.
    pub sbox: Sbox,
    /// GFNI's constants (`Sbox::Gfni` only).
    pub gfni: Option<GfniConsts>,
    /// The matrices loaded into [`PRE_LO`]..[`POST_HI`] (GFNI).
    tables_gfni: Vec<Label>,
    /// Pre-affine tables.
    pub pre: (Label, Label),
    /// Post-affine tables.
    pub post: (Label, Label),
    /// `0x0f` bytes.
    pub nibble: Label,
    /// Zero (the `aesenclast` round key).
    pub zero: Label,
    /// Inverse ShiftRows composed with dword rotations by 0, 8, 16 and 24 bits.
    pub isr_rol: [Label; 4],
    /// Byte swap of each dword.
    pub bswap32: Label,
    /// Counter increments: 16 entries of `(k as u64, 0)`.
    pub ctr_add: Label,
    /// FK as four dwords.
    pub fk: Label,
    /// CK as 32 dwords.
    pub ck: Label,
}

impl Consts {
    /// Registers the constants of an `sbox` kernel with `b`.
    pub fn new(b: &mut B, sbox: Sbox) -> Consts {
        if sbox == Sbox::Gfni {
            return Consts::new_gfni(b);
        }
        let (pre, post) = sbox_affine();
        let (plo, phi) = pre.nibble_tables();
        let (qlo, qhi) = post.nibble_tables();
        let names = ["sm4_isr", "sm4_isr_rol8", "sm4_isr_rol16", "sm4_isr_rol24"];
        let isr_rol = std::array::from_fn(|n| {
            b.constant(
                names[n],
                32,
                &format!("vpshufb: undo ShiftRows, then rotate each dword left by {}", 8 * n),
                &twice(inv_shift_rows_rol(n)),
            )
        });
        let mut ctr_add = Vec::new();
        for k in 0..16u64 {
            ctr_add.extend_from_slice(&k.to_le_bytes());
            ctr_add.extend_from_slice(&[0; 8]);
        }
        let fk: Vec<u8> = FK.iter().flat_map(|w| w.to_le_bytes()).collect();
        let ck: Vec<u8> = CK.iter().flat_map(|w| w.to_le_bytes()).collect();
        Consts {
            sbox,
            gfni: None,
            tables_gfni: Vec::new(),
            pre: (
                b.constant("sm4_pre_lo", 32, "S-box pre-affine M1*x ^ c1 (low nibble, c1 included)", &twice(plo)),
                b.constant("sm4_pre_hi", 32, "S-box pre-affine M1*x (high nibble)", &twice(phi)),
            ),
            post: (
                b.constant("sm4_post_lo", 32, "S-box post-affine M2*y ^ c2 (low nibble, c2 included)", &twice(qlo)),
                b.constant("sm4_post_hi", 32, "S-box post-affine M2*y (high nibble)", &twice(qhi)),
            ),
            nibble: b.constant("sm4_nibble", 32, "0x0f bytes", &[0x0f; 32]),
            zero: if sbox == Sbox::Vaes {
                b.constant("sm4_zero_y", 32, "vaesenclast round key: zero", &[0; 32])
            } else {
                b.constant("sm4_zero", 16, "aesenclast round key: zero", &[0; 16])
            },
            isr_rol,
            bswap32: b.constant("sm4_bswap32", 32, "vpshufb: byte-swap each dword", &twice(perm(|i| i ^ 3))),
            ctr_add: b.constant("sm4_ctr_add", 32, "counter increments k = 0..15 (low qword)", &ctr_add),
            fk: b.constant("sm4_fk", 16, "FK", &fk),
            ck: b.constant("sm4_ck", 16, "CK[0..32]", &ck),
        }
    }

    /// The GFNI kernels' constants (the table labels are unused placeholders for the GFNI matrices).
    fn new_gfni(b: &mut B) -> Consts {
        let maps = gfni::round();
        let mat = |b: &mut B, name: &str, what: &str, m: &super::Matrix| {
            b.constant(name, 32, what, &gfni::qword(m).to_le_bytes().repeat(4))
        };
        let rot0 = mat(b, "sm4_gfni_rot0", "GFNI matrix M1*(I + <<2)*S (unrotated term of L)", &maps.rot0.m);
        let rot8 = mat(b, "sm4_gfni_rot8", "GFNI matrix M1*(<<2 + >>6)*S (rotated by 8 and 16)", &maps.rot8.m);
        let rot24 = mat(b, "sm4_gfni_rot24", "GFNI matrix M1*(I + >>6)*S (rotated by 24)", &maps.rot24.m);
        let key = mat(b, "sm4_gfni_m1", "GFNI matrix M1 (pre-affine; the state's domain)", &maps.enter);
        let leave = mat(b, "sm4_gfni_m1inv", "GFNI matrix M1^-1 (out of the domain)", &maps.leave);
        let rol = [1usize, 2, 3].map(|n| {
            let name = ["", "sm4_rol8", "sm4_rol16", "sm4_rol24"][n];
            let what = [
                "",
                "vpshufb: rotate each dword left by 8",
                "vpshufb: rotate each dword left by 16",
                "vpshufb: rotate each dword left by 24",
            ][n];
            b.constant(name, 32, what, &twice(perm(|i| 4 * (i / 4) + (i % 4 + 4 - n) % 4)))
        });
        let mut ctr_add = Vec::new();
        for k in 0..16u64 {
            ctr_add.extend_from_slice(&k.to_le_bytes());
            ctr_add.extend_from_slice(&[0; 8]);
        }
        let fk: Vec<u8> = FK.iter().flat_map(|w| w.to_le_bytes()).collect();
        let ck: Vec<u8> = CK.iter().flat_map(|w| w.to_le_bytes()).collect();
        let bswap32 = b.constant("sm4_bswap32", 32, "vpshufb: byte-swap each dword", &twice(perm(|i| i ^ 3)));
        Consts {
            sbox: Sbox::Gfni,
            gfni: Some(GfniConsts { maps, leave, rol: rol.clone() }),
            tables_gfni: vec![rot0, rot8, rot24, key.clone()],
            pre: (key.clone(), key.clone()),
            post: (key.clone(), key.clone()),
            nibble: key.clone(),
            zero: key.clone(),
            isr_rol: [key.clone(), rol[0].clone(), rol[1].clone(), rol[2].clone()],
            bswap32,
            ctr_add: b.constant("sm4_ctr_add", 32, "counter increments k = 0..15 (low qword)", &ctr_add),
            fk: b.constant("sm4_fk", 16, "FK", &fk),
            ck: b.constant("sm4_ck", 16, "CK[0..32]", &ck),
        }
    }

    fn g(&self) -> &GfniConsts {
        self.gfni.as_ref().expect("GFNI constants")
    }

    /// Loads the four affine tables into [`PRE_LO`], [`PRE_HI`], [`POST_LO`], [`POST_HI`] (GFNI: the matrices
    /// `rot0`, `rot8`, `rot24`, `M1`).
    pub fn load_tables(&self, b: &mut B, w: Width) {
        let regs: Vec<(V, &Label)> = if self.sbox == Sbox::Gfni {
            [PRE_LO, PRE_HI, POST_LO, POST_HI].into_iter().zip(&self.tables_gfni).collect()
        } else {
            vec![(PRE_LO, &self.pre.0), (PRE_HI, &self.pre.1), (POST_LO, &self.post.0), (POST_HI, &self.post.1)]
        };
        for (r, l) in regs {
            match w {
                Width::X => b.vmovdqa(r.x(), rip(l)),
                Width::Y => b.vmovdqa_y(r.y(), rip(l)),
            };
        }
    }
}

/// The S-box on every byte of `t`, leaving the result in ShiftRows order: `t = ShiftRows(S(t))`.
/// 13 vector ops on xmm (6 pre-affine, `aesenclast`, 6 post-affine), 16 on ymm. Clobbers `s`.
pub fn sbox(b: &mut B, c: &Consts, w: Width, t: V, s: V) {
    assert!(c.sbox != Sbox::Gfni, "the GFNI round has its own S-box");
    let nib = || rip(&c.nibble);
    // Pre-affine: M1*x ^ c1 = lo[x & 15] ^ hi[x >> 4].
    vsrld(b, w, s, t, 4);
    vand(b, w, t, t, nib());
    vand(b, w, s, s, nib());
    vshufb(b, w, t, PRE_LO, t);
    vshufb(b, w, s, PRE_HI, s);
    vxor(b, w, t, t, s);
    // AES SubBytes (and ShiftRows) with a zero round key; on ymm, per 128-bit half (no VAES).
    match w {
        Width::X => {
            b.vaesenclast(t.x(), t.x(), rip(&c.zero));
        }
        Width::Y if c.sbox == Sbox::Vaes => {
            b.vaesenclast_y(t.y(), t.y(), rip(&c.zero));
        }
        Width::Y => {
            b.vextracti128(s.x(), t.y(), 0x01);
            b.vaesenclast(t.x(), t.x(), rip(&c.zero));
            b.vaesenclast(s.x(), s.x(), rip(&c.zero));
            b.vinserti128(t.y(), t.y(), s.x(), 0x01);
        }
    }
    // Post-affine: M2*y ^ c2.
    vsrld(b, w, s, t, 4);
    vand(b, w, t, t, nib());
    vand(b, w, s, s, nib());
    vshufb(b, w, t, POST_LO, t);
    vshufb(b, w, s, POST_HI, s);
    vxor(b, w, t, t, s);
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

/// [`round`] with GFNI, in the domain `Y = M1·X` ([`gfni::GfniRound`]), `rk` already mapped (`M1·rk ^ c1`):
/// `u = x1 ^ x2 ^ rk ^ x3`, `x0 ^= rot0(u) ^ rol8(rot8(u)) ^ rol16(rot8(u)) ^ rol24(rot24(u))`, each `rotK` one
/// `vgf2p8affineinvqb`. 13 vector ops; the chain from `x3` to the new word is xor, affine-inverse, shuffle and
/// two xors.
pub fn round_gfni(b: &mut B, c: &Consts, w: Width, x: [V; 4], rk: V, t: [V; 3]) {
    let g = c.g();
    let m = g.maps;
    let [t0, t1, t2] = t;
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
        vaffine(b, w, v, v, rip(&c.g().leave), 0);
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
    let (ptr, end) = (RAX, R11);
    if c.sbox == Sbox::Gfni {
        enter(b, c, w, groups);
        b.comment(format!(
            "32 rounds on {} blocks: 8 x 4 unrolled rounds; 13 vector ops per round and group (3 xor, 3 \
             vgf2p8affineinvqb, 3 vpshufb, 4 xor), plus the round key's broadcast and affine map.",
            groups.len() * 4 * w.blocks(),
        ));
    } else {
        b.comment(format!(
            "32 rounds on {} blocks: 8 x 4 unrolled rounds; {} vector ops per round and group (3 xor, S-box {}, L 12).",
            groups.len() * 4 * w.blocks(),
            if w == Width::X || c.sbox == Sbox::Vaes { 28 } else { 31 },
            if w == Width::X || c.sbox == Sbox::Vaes { 13 } else { 16 },
        ));
    }
    b.lea(end, mem(rk, 128));
    b.mov(ptr, rk);
    let lp = b.label("rounds");
    b.align(4);
    b.bind(&lp);
    for j in 0..4 {
        b.comment(format!(
            "round 4i+{j}: X{j} ^= T(X{} ^ X{} ^ X{} ^ rk[4i+{j}])",
            (j + 1) % 4,
            (j + 2) % 4,
            (j + 3) % 4
        ));
        if c.sbox == Sbox::Gfni {
            round_key_gfni(b, c, w, RK, mem(ptr, 4 * j as i32));
        } else {
            vbroadcast(b, w, RK, mem(ptr, 4 * j as i32));
        }
        for g in groups {
            let x = [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]];
            round(b, c, w, x, RK, TMP);
        }
    }
    b.add(ptr, 16);
    b.cmp(ptr, end);
    b.jnz(&lp);
    leave(b, c, w, groups);
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
            b.vmovdqu_load(d.x(), mem(self.extra, 0));
            b.vinserti128(d.y(), d.y(), mem(self.src, 0), 0x01);
        } else {
            b.vmovdqu_load_y(d.y(), self.addr(k, i));
        }
    }

    /// Loads slot `s` (blocks `s*bps ..`) as the cipher's input; `half`: only its first block.
    fn slot_in(&self, b: &mut B, w: Width, s: usize, half: bool) {
        let k = if self.mode == Mode::CfbDec { Blk::Prev } else { Blk::Cur };
        let i = s * w.blocks();
        if w == Width::X || half {
            b.vmovdqu_load(V(s as u8).x(), self.addr(k, i));
        } else {
            self.load_pair(b, V(s as u8), k, i);
        }
    }

    /// Finishes slot `s`: xors the mode's mask and stores.
    fn slot_out(&self, b: &mut B, w: Width, s: usize, half: bool) {
        let v = V(s as u8);
        let i = s * w.blocks();
        let mask = match self.mode {
            Mode::Ecb => None,
            Mode::Ctr | Mode::CfbDec => Some(Blk::Cur),
            Mode::CbcDec => Some(Blk::Prev),
        };
        if w == Width::X || half {
            if let Some(k) = mask {
                b.vpxor(v.x(), v.x(), self.addr(k, i));
            }
            b.vmovdqu_store(mem(self.dst, 16 * i as i32), v.x());
        } else {
            match mask {
                Some(Blk::Prev) if i == 0 => {
                    self.load_pair(b, TMP[1], Blk::Prev, 0);
                    b.vpxor_y(v.y(), v.y(), TMP[1].y());
                }
                Some(k) => {
                    b.vpxor_y(v.y(), v.y(), self.addr(k, i));
                }
                None => {}
            }
            b.vmovdqu_store_y(mem(self.dst, 16 * i as i32), v.y());
        }
    }
}

/// How a batch knows its size: `n < N` (in `n`), either, decided by `n >= N`, or exactly `k <= N` blocks, known
/// when the kernel is generated (fixed-size kernels).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fill {
    Partial,
    Both,
    Known(usize),
}

/// How many blocks the slots of a batch hold: all of them, `n` (a register, fewer than the batch), or `k`
/// (known when the kernel is generated, fewer than the batch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// Every slot is full.
    All,
    /// The count in a register.
    Reg(Gpr),
    /// A known count.
    Known(usize),
}

impl Count {
    /// The slots holding blocks `< k` with whether each holds only its first block: `(slot, half)`.
    fn known_slots(k: usize, bps: usize) -> impl Iterator<Item = (usize, bool)> {
        (0..k.div_ceil(bps)).map(move |s| (s, bps == 2 && 2 * s + 1 == k))
    }
}

/// Runs `f(b, count)` for a batch of up to `nblk` blocks as `fill` says: once with [`Count::Reg`]
/// (`Partial`), twice behind a branch on `n >= nblk` (`Both`), or once with the known count (`Known`).
fn by_fill(b: &mut B, n: Gpr, nblk: usize, fill: Fill, f: &dyn Fn(&mut B, Count)) {
    match fill {
        Fill::Partial => f(b, Count::Reg(n)),
        Fill::Both => {
            let part = b.label("partial");
            let join = b.label("join");
            b.cmp(n, nblk as i32);
            b.jb(&part);
            f(b, Count::All);
            b.jmp(&join);
            b.bind(&part);
            f(b, Count::Reg(n));
            b.bind(&join);
        }
        Fill::Known(k) if k >= nblk => f(b, Count::All),
        Fill::Known(k) => f(b, Count::Known(k)),
    }
}

/// Emits `f` for every slot of a batch that holds blocks: all (`Count::All`), those holding blocks `< k`
/// (`Known`), or those holding blocks `< n` behind branches on `n` (`Reg`); a ymm slot holding only one
/// block gets `f(.., half = true)`. `rev`: last slot first.
fn for_slots(
    b: &mut B,
    x: &Ctx,
    w: Width,
    slots: usize,
    count: Count,
    rev: bool,
    f: fn(&Ctx, &mut B, Width, usize, bool),
) {
    let bps = w.blocks();
    let order: Vec<usize> = if rev { (0..slots).rev().collect() } else { (0..slots).collect() };
    let n = match count {
        Count::All => {
            for s in order {
                f(x, b, w, s, false);
            }
            return;
        }
        Count::Known(k) => {
            let mut known: Vec<(usize, bool)> = Count::known_slots(k, bps).collect();
            if rev {
                known.reverse();
            }
            for (s, half) in known {
                f(x, b, w, s, half);
            }
            return;
        }
        Count::Reg(n) => n,
    };
    let done = b.label("slots_done");
    for s in order {
        let next = b.label("slot_next");
        if s > 0 {
            b.cmp(n, (s * bps) as i32 + 1);
            b.jb(if rev { &next } else { &done });
        }
        if bps == 2 {
            let half = b.label("slot_half");
            b.cmp(n, (s * bps) as i32 + 2);
            b.jb(&half);
            f(x, b, w, s, false);
            b.jmp(&next);
            b.bind(&half);
            f(x, b, w, s, true);
        } else {
            f(x, b, w, s, false);
        }
        b.bind(&next);
    }
    b.bind(&done);
}

/// Emits `f(b, s, half)` for the slots of a batch that hold blocks (in order): every slot (`Count::All`), those
/// holding blocks `< k` (`Known`), or those holding blocks `< n` behind branches on `n` (`Reg`, public); a ymm
/// slot holding only one block gets `half = true`.
pub(crate) fn each_slot(b: &mut B, w: Width, slots: usize, count: Count, f: &mut dyn FnMut(&mut B, usize, bool)) {
    let bps = w.blocks();
    let n = match count {
        Count::All => {
            for s in 0..slots {
                f(b, s, false);
            }
            return;
        }
        Count::Known(k) => {
            for (s, half) in Count::known_slots(k, bps) {
                f(b, s, half);
            }
            return;
        }
        Count::Reg(n) => n,
    };
    let done = b.label("slots_done");
    for s in 0..slots {
        if s > 0 {
            b.cmp(n, (s * bps) as i32 + 1);
            b.jb(&done);
        }
        if bps == 2 {
            let half = b.label("slot_half");
            let next = b.label("slot_next");
            b.cmp(n, (s * bps) as i32 + 2);
            b.jb(&half);
            f(b, s, false);
            b.jmp(&next);
            b.bind(&half);
            f(b, s, true);
            b.bind(&next);
        } else {
            f(b, s, false);
        }
    }
    b.bind(&done);
}

fn slot_in(x: &Ctx, b: &mut B, w: Width, s: usize, half: bool) {
    x.slot_in(b, w, s, half)
}
fn slot_out(x: &Ctx, b: &mut B, w: Width, s: usize, half: bool) {
    x.slot_out(b, w, s, half)
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
    b.vmovq_gpr(base.x(), x.lo);
    b.vpinsrq(base.x(), base.x(), x.hi, 1);
    if w == Width::Y {
        b.vinserti128(base.y(), base.y(), base.x(), 0x01);
    }
    b.lea(RAX, rip(&x.c.ctr_add));
    for s in 0..slots {
        vaddq(b, w, V(s as u8), base, mem(RAX, (16 * s * w.blocks()) as i32));
    }
    b.jmp(&done);
    b.bind(&slow);
    b.comment("Slow path: 128-bit increments one block at a time.");
    b.mov(RAX, x.lo);
    b.mov(R11, x.hi);
    for s in 0..slots {
        for j in 0..w.blocks() {
            let d = if j == 0 { V(s as u8) } else { TMP[1] };
            b.vmovq_gpr(d.x(), RAX);
            b.vpinsrq(d.x(), d.x(), R11, 1);
            b.add(RAX, 1);
            b.adc(R11, 0);
        }
        if w == Width::Y {
            b.vinserti128(V(s as u8).y(), V(s as u8).y(), TMP[1].x(), 0x01);
        }
    }
    b.bind(&done);
}

/// One batch of up to `slots * blocks` blocks: inputs, transposition, 32 rounds, transposition, outputs.
fn batch(b: &mut B, x: &Ctx, w: Width, fill: Fill) {
    let groups = &GROUPS[..];
    let slots = 8;
    let nblk = slots * w.blocks();

    b.comment(format!("Load {nblk} blocks ({} per register).", w.blocks()));
    if x.mode == Mode::Ctr {
        ctr_inputs(b, x, w, slots);
    } else {
        by_fill(b, x.n, nblk, fill, &|b, count| for_slots(b, x, w, slots, count, false, slot_in));
    }
    b.comment("Big-endian words, transposed: register j of a group holds word j of its blocks.");
    for g in groups {
        if x.mode == Mode::Ctr {
            // Little-endian 128-bit counters: dword k is word 3-k.
            transpose(b, w, *g, [g[3], g[2], g[1], g[0]], TMP);
        } else {
            for &v in g {
                vshufb(b, w, v, v, rip(&x.c.bswap32));
            }
            transpose(b, w, *g, *g, TMP);
        }
    }
    rounds(b, &x.c, w, groups, x.rk);
    b.comment("Output words X35, X34, X33, X32: transpose back, byte-swap.");
    for g in groups {
        transpose(b, w, [g[3], g[2], g[1], g[0]], *g, TMP);
        for &v in g {
            vshufb(b, w, v, v, rip(&x.c.bswap32));
        }
    }
    by_fill(b, x.n, nblk, fill, &|b, count| {
        let last = TMP[2].x();
        if x.mode.chains() {
            b.comment("The last ciphertext block becomes the IV (read before any store: dst may be src).");
            match count {
                Count::All => b.vmovdqu_load(last, mem(x.src, 16 * (nblk as i32 - 1))),
                Count::Known(k) => b.vmovdqu_load(last, mem(x.src, 16 * (k as i32 - 1))),
                Count::Reg(n) => {
                    b.mov(RAX, n);
                    b.shl(RAX, 4);
                    b.vmovdqu_load(last, mem_index(x.src, RAX, 1, -16))
                }
            };
        }
        for_slots(b, x, w, slots, count, x.mode == Mode::CbcDec, slot_out);
        match x.mode {
            Mode::CbcDec | Mode::CfbDec => {
                b.vmovdqu_store(mem(x.extra, 0), last);
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

/// A kernel's loop over batches of `per` blocks of width `w` (`per` = 8 on xmm, 16 on ymm). With a fixed
/// count: `count / per` full batches in a counted loop (the pointers stepped after each), then one batch of
/// the rest (on xmm when it fits: lower latency). With `nblocks`: the general loop, full or partial batches
/// decided at run time; on ymm, 1..8 blocks take one xmm batch.
///
/// `full(b)` emits a full batch, `part(b, w, fill)` a batch of width `w` filled as `fill` says.
pub(crate) fn batch_loop(
    b: &mut B,
    blocks: Blocks,
    (n, src, dst): (Gpr, Gpr, Gpr),
    w: Width,
    part: &dyn Fn(&mut B, Width, Fill),
) {
    let per = 8 * w.blocks();
    let done = b.label("done");
    let lp = b.label("loop");
    match (blocks, w) {
        (Blocks::Fixed(count), _) => {
            let (full, rest) = (count / per, count % per);
            if full > 1 {
                mov_count(b, n, full);
                b.align(4);
                b.bind(&lp);
            }
            if full > 0 {
                part(b, w, Fill::Known(per));
                if full > 1 || rest > 0 {
                    b.add(src, 16 * per as i32);
                    b.add(dst, 16 * per as i32);
                }
                if full > 1 {
                    b.sub(n, 1);
                    b.jnz(&lp);
                }
            }
            if rest > 0 {
                let tail = if rest <= 8 { Width::X } else { w };
                b.comment(format!("The last {rest} blocks."));
                part(b, tail, Fill::Known(rest));
            }
        }
        (Blocks::Arg, Width::X) => {
            b.test(n, n);
            b.jz(&done);
            b.align(4);
            b.bind(&lp);
            part(b, Width::X, Fill::Both);
            advance(b, n, src, dst, 8, &done);
            b.jmp(&lp);
        }
        (Blocks::Arg, Width::Y) => {
            b.test(n, n);
            b.jz(&done);
            let small = b.label("small");
            b.cmp(n, 8);
            b.jbe(&small);
            b.align(4);
            b.bind(&lp);
            part(b, Width::Y, Fill::Both);
            advance(b, n, src, dst, 16, &done);
            b.cmp(n, 8);
            b.ja(&lp);
            b.blank();
            b.bind(&small);
            b.comment("1..8 blocks: one xmm batch (lower latency than a ymm batch).");
            part(b, Width::X, Fill::Partial);
        }
    }
    b.bind(&done);
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
    b.doc(&format!("{} blocks in flight ({}); dst may equal src.", 8 * w.blocks(), set.layout()));
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let (rk, dst, src, n, extra) = mode.params(&mut b);
    let extra = extra.unwrap_or(RAX);
    let c = Consts::new(&mut b, set.sbox());
    let x = Ctx { c, mode, rk, dst, src, n, extra, lo: R9, hi: R10 };
    x.c.load_tables(&mut b, w);
    if mode == Mode::Ctr {
        b.comment("The counter as two integers (hi, lo).");
        b.mov_load(x.hi, mem(extra, 0));
        b.mov_load(x.lo, mem(extra, 8));
        b.bswap(x.hi);
        b.bswap(x.lo);
    }
    batch_loop(&mut b, blocks, (n, src, dst), w, &|b, w, fill| batch(b, &x, w, fill));
    if mode == Mode::Ctr {
        b.bswap(x.hi);
        b.bswap(x.lo);
        b.mov_store(mem(extra, 0), x.hi);
        b.mov_store(mem(extra, 8), x.lo);
    }
    if w == Width::Y {
        b.vzeroupper();
    }
    b.finish()
}

/// Encrypts the block in `v` (byte order as in memory) with the round keys at `rk`, one lane, 32 rounds.
fn encrypt_one(b: &mut B, c: &Consts, rk: Gpr, v: V) {
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
    b.vmovdqu_load(s.x(), mem(state, 0));
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
        b.vmovdqu_store(mem(dst, 0), s.x());
        b.add(dst, 16);
    }
    b.add(src, 16);
    b.sub(n, 1);
    b.jnz(&lp);
    b.vmovdqu_store(mem(state, 0), s.x());
    b.bind(&done);
    b.finish()
}

/// `asmgen_sm4_expand_key_avx(rk_enc, rk_dec, key)`: the key schedule, both orders.
pub fn expand_key(abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = B::new("asmgen_sm4_expand_key_avx", abi, &Set::Avx.features());
    b.doc("SM4 key schedule: K = MK ^ FK, rk[i] = K[i+4] = K[i] ^ L'(S(K[i+1] ^ K[i+2] ^ K[i+3] ^ CK[i])),");
    b.doc("L'(B) = B ^ rol(B, 13) ^ rol(B, 23). Writes rk_enc[i] and rk_dec[31-i] (little-endian words).");
    let [re, rd, key] = role::params(&mut b, Role::ExpandKey);
    let c = Consts::new(&mut b, Sbox::AesNi);
    c.load_tables(&mut b, Width::X);
    let w = Width::X;
    let g = GROUPS[0];
    let [t0, t1, t2] = TMP;
    b.comment("K = MK ^ FK as big-endian words; word j broadcast in register j.");
    b.vmovdqu_load(g[0].x(), mem(key, 0));
    b.vpshufb(g[0].x(), g[0].x(), rip(&c.bswap32));
    b.vpxor(g[0].x(), g[0].x(), rip(&c.fk));
    for j in (0..4).rev() {
        b.vpshufd(g[j].x(), g[0].x(), 0x55 * j as u8);
    }
    let (ck, end, rdp) = (RAX, R11, R8);
    b.lea(ck, rip(&c.ck));
    b.lea(end, mem(ck, 128));
    b.lea(rdp, mem(rd, 112));
    let lp = b.label("loop");
    b.align(4);
    b.bind(&lp);
    for j in 0..4 {
        b.comment(format!("rk[4i+{j}]"));
        let x = [g[j], g[(j + 1) % 4], g[(j + 2) % 4], g[(j + 3) % 4]];
        b.vbroadcastss(RK.x(), mem(ck, 4 * j as i32));
        vxor(&mut b, w, t0, x[1], x[2]);
        vxor(&mut b, w, t0, t0, RK);
        vxor(&mut b, w, t0, t0, x[3]);
        sbox(&mut b, &c, w, t0, t1);
        vshufb(&mut b, w, t1, t0, rip(&c.isr_rol[0]));
        vxor(&mut b, w, x[0], x[0], t1);
        for (l, r) in [(13, 19), (23, 9)] {
            vslld(&mut b, w, t2, t1, l);
            vxor(&mut b, w, x[0], x[0], t2);
            vsrld(&mut b, w, t2, t1, r);
            vxor(&mut b, w, x[0], x[0], t2);
        }
        b.vmovd_store(mem(re, 4 * j as i32), x[0].x());
        b.vmovd_store(mem(rdp, 12 - 4 * j as i32), x[0].x());
    }
    b.add(ck, 16);
    b.add(re, 16);
    b.sub(rdp, 16);
    b.cmp(ck, end);
    b.jnz(&lp);
    b.comment("Clear the key material from the vector registers.");
    for v in [g[0], g[1], g[2], g[3], t0, t1, t2, RK] {
        b.vpxor(v.x(), v.x(), v.x());
    }
    b.finish()
}

/// The functions of one kernel set, as the runtime's set of that name links them: the set's own batch, XTS and
/// GCM kernels; its serial modes and CCM where it has its own (GFNI), the AES-NI AVX ones otherwise; the
/// AES-NI AVX key schedule.
pub fn set_functions(set: Set, abi: Abi) -> Kernels<X86_64> {
    let mut v = vec![Kernel::new(Role::ExpandKey, expand_key(abi)?)];
    for m in [Mode::Ecb, Mode::Ctr, Mode::CbcDec, Mode::CfbDec] {
        v.push(Kernel::new(m.into(), batch_mode(m, set, abi)?));
    }
    let serial = if set == Set::Gfni { Set::Gfni } else { Set::Avx };
    for m in [Serial::CbcEnc, Serial::CfbEnc, Serial::CbcMac] {
        v.push(Kernel::new(m.role(), serial_mode(m, serial, abi)?));
    }
    for std in [xts::Standard::Ieee, xts::Standard::Gb] {
        for enc in [true, false] {
            v.push(Kernel::new(Role::xts(!enc, std == xts::Standard::Gb), xts::xts(enc, std, set, abi)?));
        }
    }
    v.push(Kernel::new(Role::GcmEnc, gcm::gcm(true, set, abi)?));
    v.push(Kernel::new(Role::CcmEnc, ccm::ccm(true, serial, abi)?));
    v.push(Kernel::new(Role::CcmDec, ccm::ccm(false, serial, abi)?));
    Ok(v)
}

/// The fixed-size kernels of one set (the JIT's specialisations): XTS for a data-unit size, CTR for a message
/// size.
pub fn fixed_functions(set: Set, abi: Abi, fixed: Fixed) -> Kernels<X86_64> {
    match fixed {
        Fixed::Xts(n) => {
            let mut v = Vec::new();
            for std in [xts::Standard::Ieee, xts::Standard::Gb] {
                for enc in [true, false] {
                    let f = xts::xts_of(enc, std, set, abi, Blocks::Fixed(n))?;
                    v.push(Kernel::new(Role::xts(!enc, std == xts::Standard::Gb), f));
                }
            }
            Ok(v)
        }
        Fixed::Ctr(n) => Ok(vec![Kernel::new(Role::Ctr, batch_mode_of(Mode::Ctr, set, abi, Blocks::Fixed(n))?)]),
        Fixed::Hash(_) => Ok(Vec::new()),
    }
}

/// Every SM4 function for x86_64.
pub fn functions(abi: Abi) -> Result<Vec<Function<X86_64>>, GenError> {
    let mut v = vec![expand_key(abi)?];
    for set in [Set::Avx, Set::Avx2] {
        for m in [Mode::Ecb, Mode::Ctr, Mode::CbcDec, Mode::CfbDec] {
            v.push(batch_mode(m, set, abi)?);
        }
    }
    for m in [Serial::CbcEnc, Serial::CfbEnc, Serial::CbcMac] {
        v.push(serial_mode(m, Set::Avx, abi)?);
    }
    v.extend(xts::functions(abi)?);
    v.extend(gcm::functions(abi)?);
    v.extend(ccm::functions(abi)?);
    for set in [Set::Gfni, Set::Vaes] {
        for m in [Mode::Ecb, Mode::Ctr, Mode::CbcDec, Mode::CfbDec] {
            v.push(batch_mode(m, set, abi)?);
        }
        v.extend(xts::functions_of(set, abi)?);
        v.push(gcm::gcm(true, set, abi)?);
    }
    for m in [Serial::CbcEnc, Serial::CfbEnc, Serial::CbcMac] {
        v.push(serial_mode(m, Set::Gfni, abi)?);
    }
    v.push(ccm::ccm(true, Set::Gfni, abi)?);
    v.push(ccm::ccm(false, Set::Gfni, abi)?);
    Ok(v)
}
