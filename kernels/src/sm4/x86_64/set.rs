//! The variants of the x86_64 kernel sets ([`Set`]) and their S-box strategies ([`Sbox`]).

use super::width::Width;
use asmgen::isa::x86_64::X86Feature;

/// How a round computes the S-box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sbox {
    /// `vpshufb` nibble tables around `aesenclast` with a zero key (ymm: on the two 128-bit halves).
    AesNi,
    /// The same with `vaesenclast` on whole ymm registers (VAES).
    Vaes,
    /// GFNI: the state kept in the pre-affine's domain, a round is three `vgf2p8affineinvqb` ([`gfni::round`](crate::sm4::gfni::round)).
    Gfni,
}

/// The variant of an x86_64 SM4 kernel set (one [`crate::catalog::KernelSet`] each): the suffix of its function
/// names, its main width and its S-box.
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
    /// `_gfni512`: GFNI + AVX-512F/BW, zmm batch modes (`vprold`, `vpternlogq`) and XTS (`vpclmulqdq` on zmm for
    /// the tweaks); everything else is [`Set::Gfni`]'s.
    GfniAvx512,
    /// `_vaes512`: VAES + AVX-512F/BW, zmm batch modes (`vaesenclast` on zmm, nibble tables with `vpshufb`,
    /// `vprold`, `vpternlogq`) and XTS (`vpclmulqdq` on zmm for the tweaks); everything else is [`Set::Vaes`]'s.
    VaesAvx512,
}

impl Set {
    /// The width of the main loop (small batches and serial modes run on xmm).
    pub fn width(self) -> Width {
        match self {
            Set::Avx => Width::X,
            Set::GfniAvx512 | Set::VaesAvx512 => Width::Z,
            _ => Width::Y,
        }
    }

    /// The S-box strategy.
    pub fn sbox(self) -> Sbox {
        match self {
            Set::Avx | Set::Avx2 => Sbox::AesNi,
            Set::Vaes | Set::VaesAvx512 => Sbox::Vaes,
            Set::Gfni | Set::GfniAvx512 => Sbox::Gfni,
        }
    }

    /// The function-name suffix.
    pub fn name(self) -> &'static str {
        match self {
            Set::Avx => "avx",
            Set::Avx2 => "avx2",
            Set::Vaes => "vaes",
            Set::Gfni => "gfni",
            Set::GfniAvx512 => "gfni512",
            Set::VaesAvx512 => "vaes512",
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
            Set::GfniAvx512 => vec![Avx, Avx2, Gfni, Avx512f, Avx512bw, Bmi2],
            Set::VaesAvx512 => vec![Aes, Avx, Avx2, Vaes, Avx512f, Avx512bw],
        }
    }

    /// How the main loop's blocks are held, for the functions' documentation.
    pub(super) fn layout(self) -> &'static str {
        match self {
            Set::Avx => "two groups of 4 in xmm",
            Set::Avx2 => "two groups of 8 in ymm, aesenclast per half",
            Set::Vaes => "two groups of 8 in ymm, vaesenclast",
            Set::Gfni => "two groups of 8 in ymm, GFNI S-box",
            Set::GfniAvx512 => "three groups of 16 in zmm, GFNI S-box, vprold and vpternlogq",
            Set::VaesAvx512 => "three groups of 16 in zmm, vaesenclast, vprold and vpternlogq",
        }
    }

    /// The set whose kernels this one takes for what it has no own kernel of (GCM, serial modes, CCM), and whose
    /// ymm and xmm code runs its batches below 48 blocks: [`Set::Gfni`] for [`Set::GfniAvx512`], [`Set::Vaes`]
    /// for [`Set::VaesAvx512`], itself otherwise.
    pub fn base(self) -> Set {
        match self {
            Set::GfniAvx512 => Set::Gfni,
            Set::VaesAvx512 => Set::Vaes,
            s => s,
        }
    }
}
