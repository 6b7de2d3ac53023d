//! SM4 backend choice. Each backend is a complete set of function pointers with the kernels' C ABI; a
//! backend whose listing lacks a mode (an older listing, or a mode not written in assembly yet) takes the
//! portable function for that mode, and its name describes the kernels of the bulk modes (ECB, CTR, CBC/CFB
//! decryption).
//!
//! `ASMGEN_BACKEND=portable` forces the portable code; `ASMGEN_ISA=avx` makes the AVX2 kernels unavailable,
//! as on a CPU without AVX2, so the AVX (four-block) kernels run instead.

use super::portable;
use crate::dispatch::{request, HashKernels, Request};
use crate::Error;
use std::sync::OnceLock;

/// `expand_key(rk_enc, rk_dec, key)`.
pub(crate) type ExpandFn = unsafe extern "C" fn(*mut u8, *mut u8, *const u8);
/// `ecb(rk, dst, src, nblocks)`, also `cbc_mac(rk, mac, src, nblocks)`.
pub(crate) type BlocksFn = unsafe extern "C" fn(*const u8, *mut u8, *const u8, usize);
/// `f(rk, dst, src, nblocks, iv_or_counter_or_tweak)`.
pub(crate) type ChainFn = unsafe extern "C" fn(*const u8, *mut u8, *const u8, usize, *mut u8);
/// `gcm(rk, htable, dst, src, nblocks, state)`: `state` is the counter block (16 bytes) followed by the GHASH
/// state (16 bytes); six arguments, so that every ABI passes them in registers.
pub(crate) type GcmFn = unsafe extern "C" fn(*const u8, *const u8, *mut u8, *const u8, usize, *mut u8);
/// `ccm(rk, dst, src, nblocks, ctr, mac)`.
pub(crate) type CcmFn = unsafe extern "C" fn(*const u8, *mut u8, *const u8, usize, *mut u8, *mut u8);

/// One SM4 implementation: every mode's kernel.
pub(crate) struct Sm4Kernels {
    /// What `backend()` reports.
    pub name: &'static str,
    /// Whether the running CPU can execute it.
    pub available: fn() -> bool,
    pub expand_key: ExpandFn,
    pub ecb: BlocksFn,
    pub ctr: ChainFn,
    pub cbc_enc: ChainFn,
    pub cbc_dec: ChainFn,
    pub cfb_enc: ChainFn,
    pub cfb_dec: ChainFn,
    pub cbc_mac: BlocksFn,
    // The combined modes: `None` where the listing has no kernel yet; the safe API then composes the mode
    // from this set's ECB, CTR and CBC-MAC kernels and the GHASH kernels (still far faster than the
    // portable combined kernel).
    pub xts_enc_ieee: Option<ChainFn>,
    pub xts_dec_ieee: Option<ChainFn>,
    pub xts_enc_gb: Option<ChainFn>,
    pub xts_dec_gb: Option<ChainFn>,
    /// Fused GCM encryption (decryption checks the tag first, so it is a GHASH pass and then CTR).
    pub gcm_enc: Option<GcmFn>,
    pub ccm_enc: Option<CcmFn>,
    pub ccm_dec: Option<CcmFn>,
    /// The GHASH kernels GCM uses with this set (the key table layout is the same on every backend).
    pub ghash: fn() -> &'static HashKernels,
}

fn always() -> bool {
    true
}

static PORTABLE_GHASH: HashKernels = HashKernels {
    name: "portable",
    available: always,
    init: crate::portable::ghash_init,
    update: crate::portable::ghash_update,
};

fn portable_ghash() -> &'static HashKernels {
    &PORTABLE_GHASH
}

/// The portable set: every function from [`portable`].
pub(crate) const PORTABLE: Sm4Kernels = Sm4Kernels {
    name: "portable",
    available: always,
    expand_key: portable::expand_key,
    ecb: portable::ecb,
    ctr: portable::ctr,
    cbc_enc: portable::cbc_enc,
    cbc_dec: portable::cbc_dec,
    cfb_enc: portable::cfb_enc,
    cfb_dec: portable::cfb_dec,
    cbc_mac: portable::cbc_mac,
    xts_enc_ieee: Some(portable::xts_enc_ieee),
    xts_dec_ieee: Some(portable::xts_dec_ieee),
    xts_enc_gb: Some(portable::xts_enc_gb),
    xts_dec_gb: Some(portable::xts_dec_gb),
    gcm_enc: Some(portable::gcm_enc),
    ccm_enc: Some(portable::ccm_enc),
    ccm_dec: Some(portable::ccm_dec),
    ghash: portable_ghash,
};

/// Whether `ASMGEN_ISA=avx` asks for the AVX kernels only.
#[allow(dead_code)]
fn avx_only() -> bool {
    static R: OnceLock<bool> = OnceLock::new();
    *R.get_or_init(|| std::env::var("ASMGEN_ISA").is_ok_and(|v| v.eq_ignore_ascii_case("avx")))
}

#[cfg(all(asmgen_aot, target_arch = "x86_64"))]
mod host {
    use super::Sm4Kernels;
    use crate::aot::*;

    fn aesni_avx() -> bool {
        std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("avx")
    }
    fn aesni_avx2() -> bool {
        aesni_avx() && std::arch::is_x86_feature_detected!("avx2") && !super::avx_only()
    }

    /// AES-NI + AVX (four blocks per register): every mode the listing has; XTS, GCM and CCM composed from
    /// these kernels until their own kernels exist.
    const AVX: Sm4Kernels = Sm4Kernels {
        name: "aot/x86_64-aesni-avx",
        available: aesni_avx,
        expand_key: asmgen_sm4_expand_key_avx,
        ecb: asmgen_sm4_ecb_avx,
        ctr: asmgen_sm4_ctr_avx,
        cbc_enc: asmgen_sm4_cbc_enc_avx,
        cbc_dec: asmgen_sm4_cbc_dec_avx,
        cfb_enc: asmgen_sm4_cfb_enc_avx,
        cfb_dec: asmgen_sm4_cfb_dec_avx,
        cbc_mac: asmgen_sm4_cbc_mac_avx,
        xts_enc_ieee: None,
        xts_dec_ieee: None,
        xts_enc_gb: None,
        xts_dec_gb: None,
        gcm_enc: None,
        ccm_enc: None,
        ccm_dec: None,
        ghash: crate::dispatch::ghash,
    };

    /// The listings' sets of this target, best first.
    pub(crate) const SETS: &[Sm4Kernels] = &[
        // AES-NI + AVX2 (eight blocks per register) for the parallel modes; the serial ones (CBC/CFB
        // encryption, CBC-MAC) and the key schedule are the AVX kernels.
        Sm4Kernels {
            name: "aot/x86_64-aesni-avx2",
            available: aesni_avx2,
            ecb: asmgen_sm4_ecb_avx2,
            ctr: asmgen_sm4_ctr_avx2,
            cbc_dec: asmgen_sm4_cbc_dec_avx2,
            cfb_dec: asmgen_sm4_cfb_dec_avx2,
            ..AVX
        },
        AVX,
    ];
}

#[cfg(not(all(asmgen_aot, target_arch = "x86_64")))]
mod host {
    use super::Sm4Kernels;
    /// The listings' sets of this target, best first.
    pub(crate) const SETS: &[Sm4Kernels] = &[];
}

/// Every SM4 implementation of this build, portable first, best last.
pub(crate) fn all() -> &'static [&'static Sm4Kernels] {
    static V: OnceLock<Vec<&'static Sm4Kernels>> = OnceLock::new();
    V.get_or_init(|| std::iter::once(&PORTABLE).chain(host::SETS.iter().rev()).collect())
}

/// The SM4 kernels to use.
pub(crate) fn best() -> &'static Sm4Kernels {
    static K: OnceLock<&'static Sm4Kernels> = OnceLock::new();
    K.get_or_init(|| {
        if request() == Request::Portable {
            return &PORTABLE;
        }
        host::SETS.iter().find(|k| (k.available)()).unwrap_or(&PORTABLE)
    })
}

/// The named set, if this build has it and the CPU runs it.
pub(crate) fn find(name: &str) -> Result<&'static Sm4Kernels, Error> {
    let k = all().iter().find(|k| k.name == name).ok_or_else(|| Error::UnknownBackend(name.to_string()))?;
    if (k.available)() {
        Ok(k)
    } else {
        Err(Error::BackendUnavailable(k.name))
    }
}

/// Every SM4 backend of this build with whether this CPU runs it, portable first, best last (for tests and
/// the benchmark, which compare them all).
pub fn sm4_backend_table() -> Vec<(&'static str, bool)> {
    all().iter().map(|k| (k.name, (k.available)())).collect()
}
