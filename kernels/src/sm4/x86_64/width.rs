//! The width layer: [`Width`] (xmm, ymm or zmm), the vector register [`V`] seen at any width, and one wrapper
//! per vector instruction that emits its xmm, ymm or zmm form.

use asmgen::isa::x86_64::{Mem, Xmm, Ymm, Zmm, X86_64};
use asmgen::Builder;

/// The builder of x86_64 kernels.
pub(crate) type B = Builder<X86_64>;

/// Register width of a vector operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// xmm: 4 blocks per group.
    X,
    /// ymm: 8 blocks per group (4 per 128-bit lane).
    Y,
    /// zmm (AVX-512, EVEX): 16 blocks per group (4 per 128-bit lane).
    Z,
}

impl Width {
    /// Blocks one register holds when it holds whole blocks.
    pub fn blocks(self) -> usize {
        match self {
            Width::X => 1,
            Width::Y => 2,
            Width::Z => 4,
        }
    }

    /// Groups of four registers a full batch runs: two on xmm and ymm, three on zmm.
    pub fn groups(self) -> usize {
        match self {
            Width::Z => 3,
            _ => 2,
        }
    }

    /// Blocks of a full batch: 8 on xmm, 16 on ymm, 48 on zmm.
    pub fn per_batch(self) -> usize {
        4 * self.groups() * self.blocks()
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
    /// The zmm view.
    pub fn z(self) -> Zmm {
        Zmm(self.0)
    }
}

/// A register or memory source operand.
#[derive(Clone, Debug)]
pub enum Src {
    /// A register.
    R(V),
    /// Memory (16, 32 or 64 bytes, by width).
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
    ($($name:ident => $op:ident, $opz:ident;)*) => {$(
        #[doc = concat!("`", stringify!($op), "` at width `w` (`", stringify!($opz), "` on zmm).")]
        pub fn $name(b: &mut B, w: Width, d: V, a: V, s: impl Into<Src>) {
            match (w, s.into()) {
                (Width::X, Src::R(r)) => b.$op(d.x(), a.x(), r.x()),
                (Width::X, Src::M(m)) => b.$op(d.x(), a.x(), m),
                (Width::Y, Src::R(r)) => b.$op(d.y(), a.y(), r.y()),
                (Width::Y, Src::M(m)) => b.$op(d.y(), a.y(), m),
                (Width::Z, Src::R(r)) => b.$opz(d.z(), a.z(), r.z()),
                (Width::Z, Src::M(m)) => b.$opz(d.z(), a.z(), m),
            };
        }
    )*};
}

binops! {
    vxor => vpxor, vpxorq;
    vand => vpand, vpandq;
    vshufb => vpshufb, vpshufb;
    vaddq => vpaddq, vpaddq;
    vaddd => vpaddd, vpaddd;
    vunpckldq => vpunpckldq, vpunpckldq;
    vunpckhdq => vpunpckhdq, vpunpckhdq;
    vunpcklqdq => vpunpcklqdq, vpunpcklqdq;
    vunpckhqdq => vpunpckhqdq, vpunpckhqdq;
}

/// `vpternlogq d, a, s, 0x96` (zmm only): `d ^= a ^ s`.
pub fn vxor3(b: &mut B, d: V, a: V, s: impl Into<Src>) {
    match s.into() {
        Src::R(r) => b.vpternlogq(d.z(), a.z(), r.z(), 0x96),
        Src::M(m) => b.vpternlogq(d.z(), a.z(), m, 0x96),
    };
}

/// `vprold` (zmm only): each dword of `a` rotated left by `n`.
pub fn vrold(b: &mut B, d: V, a: V, n: i32) {
    b.vprold(d.z(), a.z(), n);
}

/// `vpshufd` at width `w`: the dwords of each 128-bit lane of `a` picked by `sel` (two bits each).
pub fn vshufd(b: &mut B, w: Width, d: V, a: V, sel: u8) {
    match w {
        Width::X => b.vpshufd(d.x(), a.x(), sel),
        Width::Y => b.vpshufd(d.y(), a.y(), sel),
        Width::Z => b.vpshufd(d.z(), a.z(), sel),
    };
}

/// `vpslld` at width `w`.
pub fn vslld(b: &mut B, w: Width, d: V, a: V, n: i32) {
    match w {
        Width::X => b.vpslld(d.x(), a.x(), n),
        Width::Y => b.vpslld(d.y(), a.y(), n),
        Width::Z => panic!("no zmm vpslld: the zmm kernels rotate with vprold"),
    };
}

/// `vpsrld` at width `w`.
pub fn vsrld(b: &mut B, w: Width, d: V, a: V, n: i32) {
    match w {
        Width::X => b.vpsrld(d.x(), a.x(), n),
        Width::Y => b.vpsrld(d.y(), a.y(), n),
        Width::Z => panic!("no zmm vpsrld: the zmm kernels rotate with vprold"),
    };
}

/// Unaligned load at width `w`.
pub fn vload(b: &mut B, w: Width, d: V, m: Mem) {
    match w {
        Width::X => b.vmovdqu(d.x(), m),
        Width::Y => b.vmovdqu(d.y(), m),
        Width::Z => b.vmovdqu64(d.z(), m),
    };
}

/// Unaligned store at width `w`.
pub fn vstore(b: &mut B, w: Width, m: Mem, s: V) {
    match w {
        Width::X => b.vmovdqu(m, s.x()),
        Width::Y => b.vmovdqu(m, s.y()),
        Width::Z => b.vmovdqu64(m, s.z()),
    };
}

/// Register-to-register copy at width `w`.
pub fn vmov(b: &mut B, w: Width, d: V, s: V) {
    match w {
        Width::X => b.vmovdqa(d.x(), s.x()),
        Width::Y => b.vmovdqa(d.y(), s.y()),
        Width::Z => b.vmovdqu64(d.z(), s.z()),
    };
}

/// Broadcasts the round-key word at `m` to every dword.
pub fn vbroadcast(b: &mut B, w: Width, d: V, m: Mem) {
    match w {
        Width::X => b.vbroadcastss(d.x(), m),
        Width::Y => b.vpbroadcastd(d.y(), m),
        Width::Z => b.vpbroadcastd(d.z(), m),
    };
}

/// `vgf2p8affineqb` at width `w`: `d = A·a ^ c` on every byte.
pub fn vaffine(b: &mut B, w: Width, d: V, a: V, m: impl Into<Src>, c: u8) {
    match (w, m.into()) {
        (Width::X, Src::R(r)) => b.vgf2p8affineqb(d.x(), a.x(), r.x(), c),
        (Width::X, Src::M(m)) => b.vgf2p8affineqb(d.x(), a.x(), m, c),
        (Width::Y, Src::R(r)) => b.vgf2p8affineqb(d.y(), a.y(), r.y(), c),
        (Width::Y, Src::M(m)) => b.vgf2p8affineqb(d.y(), a.y(), m, c),
        (Width::Z, Src::R(r)) => b.vgf2p8affineqb(d.z(), a.z(), r.z(), c),
        (Width::Z, Src::M(m)) => b.vgf2p8affineqb(d.z(), a.z(), m, c),
    };
}

/// `vgf2p8affineinvqb` at width `w`: `d = A·inv(a) ^ c` on every byte.
pub fn vaffineinv(b: &mut B, w: Width, d: V, a: V, m: impl Into<Src>, c: u8) {
    match (w, m.into()) {
        (Width::X, Src::R(r)) => b.vgf2p8affineinvqb(d.x(), a.x(), r.x(), c),
        (Width::X, Src::M(m)) => b.vgf2p8affineinvqb(d.x(), a.x(), m, c),
        (Width::Y, Src::R(r)) => b.vgf2p8affineinvqb(d.y(), a.y(), r.y(), c),
        (Width::Y, Src::M(m)) => b.vgf2p8affineinvqb(d.y(), a.y(), m, c),
        (Width::Z, Src::R(r)) => b.vgf2p8affineinvqb(d.z(), a.z(), r.z(), c),
        (Width::Z, Src::M(m)) => b.vgf2p8affineinvqb(d.z(), a.z(), m, c),
    };
}
