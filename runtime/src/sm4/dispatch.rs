//! SM4 backend choice. Each backend is a complete set of function pointers with the kernels' C ABI; a
//! backend whose listing lacks a mode (an older listing, or a mode not written in assembly yet) takes the
//! portable function for that mode, and its name describes the kernels of the bulk modes (ECB, CTR, CBC/CFB
//! decryption).
//!
//! `ASMGEN_BACKEND=portable` forces the portable code; `ASMGEN_BACKEND=jit` picks the JIT's sets (`jit.rs`); `ASMGEN_ISA=avx` makes the AVX2 kernels unavailable,
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
pub(crate) fn avx_only() -> bool {
    static R: OnceLock<bool> = OnceLock::new();
    *R.get_or_init(|| std::env::var("ASMGEN_ISA").is_ok_and(|v| v.eq_ignore_ascii_case("avx")))
}

// One file per architecture lists the kernel sets of its listings.
#[cfg(all(asmgen_aot, target_arch = "x86_64"))]
#[path = "host_x86_64.rs"]
mod host;
#[cfg(all(asmgen_aot, target_arch = "aarch64"))]
#[path = "host_aarch64.rs"]
mod host;
#[cfg(all(asmgen_aot, target_arch = "riscv64"))]
#[path = "host_riscv64.rs"]
mod host;
#[cfg(not(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64"))))]
mod host {
    use super::Sm4Kernels;
    /// The listings' sets of this target, best first.
    pub(crate) const SETS: &[Sm4Kernels] = &[];
}

#[cfg(feature = "jit")]
#[path = "jit.rs"]
mod jit;

/// The JIT's sets, best first (none without the `jit` feature).
fn jit_sets() -> &'static [Sm4Kernels] {
    #[cfg(feature = "jit")]
    return jit::sets();
    #[cfg(not(feature = "jit"))]
    &[]
}

/// Every SM4 implementation of this build, portable first, best last: the JIT's sets come after the
/// listings' when `ASMGEN_BACKEND=jit` (they are the default then), before them otherwise.
pub(crate) fn all() -> &'static [&'static Sm4Kernels] {
    static V: OnceLock<Vec<&'static Sm4Kernels>> = OnceLock::new();
    V.get_or_init(|| {
        let (first, last) = if request() == Request::Jit { (host::SETS, jit_sets()) } else { (jit_sets(), host::SETS) };
        std::iter::once(&PORTABLE).chain(first.iter().rev()).chain(last.iter().rev()).collect()
    })
}

/// The SM4 kernels to use.
pub(crate) fn best() -> &'static Sm4Kernels {
    static K: OnceLock<&'static Sm4Kernels> = OnceLock::new();
    K.get_or_init(|| {
        if request() == Request::Portable {
            return &PORTABLE;
        }
        if request() == Request::Jit {
            if let Some(k) = jit_sets().first() {
                return k;
            }
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

/// The addresses of every kernel a set links.
#[cfg(all(test, asmgen_aot))]
fn linked(k: &Sm4Kernels) -> Vec<usize> {
    let mut v = vec![
        k.expand_key as usize,
        k.ecb as usize,
        k.ctr as usize,
        k.cbc_enc as usize,
        k.cbc_dec as usize,
        k.cfb_enc as usize,
        k.cfb_dec as usize,
        k.cbc_mac as usize,
    ];
    v.extend([k.xts_enc_ieee, k.xts_dec_ieee, k.xts_enc_gb, k.xts_dec_gb].into_iter().flatten().map(|f| f as usize));
    v.extend(k.gcm_enc.map(|f| f as usize));
    v.extend([k.ccm_enc, k.ccm_dec].into_iter().flatten().map(|f| f as usize));
    v
}

#[cfg(all(test, asmgen_aot))]
mod tests {
    /// Every function of the host's listings is linked by some kernel set (SM4 here, GHASH/POLYVAL in
    /// `crate::dispatch`): a kernel the dispatch forgets would otherwise be shipped, listed and never run.
    #[test]
    fn every_listing_function_is_linked() {
        let mut linked: Vec<usize> = super::host::SETS.iter().flat_map(super::linked).collect();
        for k in crate::dispatch::all_ghash().iter().chain(crate::dispatch::all_polyval()) {
            linked.extend([k.init as usize, k.update as usize]);
        }
        let unlinked: Vec<&str> = crate::aot::kernel_addresses()
            .into_iter()
            .filter(|(_, addr)| !linked.contains(addr))
            .map(|(name, _)| name)
            .collect();
        assert!(unlinked.is_empty(), "listing functions no kernel set links: {unlinked:?}");
    }
}
