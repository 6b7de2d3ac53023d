//! SM4 backend choice. Each backend is a complete set of function pointers with the kernels' C ABI; a
//! backend whose listing lacks a mode (an older listing, or a mode not written in assembly yet) takes the
//! portable function for that mode, and its name describes the kernels of the bulk modes (ECB, CTR, CBC/CFB
//! decryption).
//!
//! `ASMGEN_BACKEND=portable` forces the portable code; `ASMGEN_BACKEND=jit` picks the JIT's set (the listings'
//! set the JIT chose, re-pointed to its own assembly of the same functions); `ASMGEN_ISA=avx` makes the AVX2
//! kernels unavailable, as on a CPU without AVX2, so the AVX (four-block) kernels run instead.

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

impl Sm4Kernels {
    /// The same set with every kernel re-pointed to the JIT's assembly of the same function (`None` if the JIT
    /// lacks one).
    #[cfg(all(feature = "jit", asmgen_aot))]
    fn rebind(&self) -> Option<Sm4Kernels> {
        use crate::jit::rebind as r;
        fn opt<F: Copy>(f: Option<F>) -> Option<Option<F>> {
            match f {
                None => Some(None),
                Some(f) => r(f).map(Some),
            }
        }
        Some(Sm4Kernels {
            name: crate::jit::backend_name(self.name),
            available: always,
            expand_key: r(self.expand_key)?,
            ecb: r(self.ecb)?,
            ctr: r(self.ctr)?,
            cbc_enc: r(self.cbc_enc)?,
            cbc_dec: r(self.cbc_dec)?,
            cfb_enc: r(self.cfb_enc)?,
            cfb_dec: r(self.cfb_dec)?,
            cbc_mac: r(self.cbc_mac)?,
            xts_enc_ieee: opt(self.xts_enc_ieee)?,
            xts_dec_ieee: opt(self.xts_dec_ieee)?,
            xts_enc_gb: opt(self.xts_enc_gb)?,
            xts_dec_gb: opt(self.xts_dec_gb)?,
            gcm_enc: opt(self.gcm_enc)?,
            ccm_enc: opt(self.ccm_enc)?,
            ccm_dec: opt(self.ccm_dec)?,
            ghash: self.ghash,
        })
    }
}

/// The listings' SM4 set the JIT assembles on this CPU (the best available, or, where the JIT measures the
/// interleave width, the faster one), and what was measured.
#[cfg(feature = "jit")]
pub(crate) fn jit_choice() -> (Vec<&'static str>, Vec<String>) {
    let Some(best) = host::SETS.iter().find(|k| (k.available)()) else { return (Vec::new(), Vec::new()) };
    #[cfg(all(asmgen_aot, target_arch = "x86_64"))]
    if let Some((k, note)) = host::tune(best) {
        return (vec![k.name], vec![note]);
    }
    (vec![best.name], Vec::new())
}

/// Fixed-size kernels from the JIT ([`crate::jit::Jit::specialised`]), for the API types that take a fixed
/// size: the functions of the process JIT's SM4 set specialised for `bytes`. `None` without the `jit` feature,
/// when `ASMGEN_BACKEND` asks for the portable code or the listings, or when the set has no such kernel.
#[derive(Clone, Copy)]
pub(crate) struct FixedKernels {
    /// `jit/<set>/<specialisation>`.
    pub name: &'static str,
    /// The size they take, in bytes.
    pub bytes: usize,
    /// XTS: encryption and decryption, IEEE then GB; CTR: the kernel in `fns[0]`.
    pub fns: [Option<ChainFn>; 4],
}

/// The fixed-size XTS kernels for sectors of `bytes` (see [`FixedKernels`]).
pub(crate) fn fixed_xts(bytes: usize) -> Option<FixedKernels> {
    #[cfg(all(feature = "jit", asmgen_aot))]
    {
        let spec = crate::jit::Specialisation::XtsSector(bytes);
        let (name, jit, aot) = fixed_jit(spec)?;
        let r = |f: Option<ChainFn>| crate::jit::rebind_in(f?, jit, &spec.suffix());
        let fns = [r(aot.xts_enc_ieee)?, r(aot.xts_dec_ieee)?, r(aot.xts_enc_gb)?, r(aot.xts_dec_gb)?];
        Some(FixedKernels { name, bytes, fns: fns.map(Some) })
    }
    #[cfg(not(all(feature = "jit", asmgen_aot)))]
    {
        let _ = bytes;
        None
    }
}

/// The fixed-size CTR kernel for messages of `bytes` (see [`FixedKernels`]).
pub(crate) fn fixed_ctr(bytes: usize) -> Option<FixedKernels> {
    #[cfg(all(feature = "jit", asmgen_aot))]
    {
        let spec = crate::jit::Specialisation::CtrMessage(bytes);
        let (name, jit, aot) = fixed_jit(spec)?;
        let f = crate::jit::rebind_in(aot.ctr, jit, &spec.suffix())?;
        Some(FixedKernels { name, bytes, fns: [Some(f), None, None, None] })
    }
    #[cfg(not(all(feature = "jit", asmgen_aot)))]
    {
        let _ = bytes;
        None
    }
}

/// The specialisation's JIT, its backend name and the listings' set it was specialised from.
#[cfg(all(feature = "jit", asmgen_aot))]
fn fixed_jit(
    spec: crate::jit::Specialisation,
) -> Option<(&'static str, &'static crate::jit::Jit, &'static Sm4Kernels)> {
    if matches!(request(), Request::Portable | Request::Aot) {
        return None;
    }
    let jit = crate::jit::Jit::specialised(spec).ok()?;
    let (set, _) = jit.sets().first()?.split_once('/')?;
    let aot = host::SETS.iter().find(|k| k.name.strip_prefix("aot/") == Some(set))?;
    Some((crate::jit::backend_name(jit.sets()[0].as_str()), jit, aot))
}

/// The JIT's sets, best first (none without the `jit` feature): the listings' sets the JIT assembled, each
/// kernel re-pointed to the JIT's assembly of the same function.
fn jit_sets() -> &'static [Sm4Kernels] {
    static V: OnceLock<Vec<Sm4Kernels>> = OnceLock::new();
    V.get_or_init(|| {
        #[cfg(all(feature = "jit", asmgen_aot))]
        if let Some(jit) = crate::jit::host() {
            return host::SETS
                .iter()
                .filter(|k| jit.sets().iter().any(|s| k.name.strip_prefix("aot/") == Some(s.as_str())))
                .filter_map(Sm4Kernels::rebind)
                .collect();
        }
        Vec::new()
    })
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

    /// Every listings' set has a kernel set (`asmgen_kernels::catalog`) of the same name that builds every
    /// function it links, so the JIT can stand in for any set the dispatcher chooses.
    #[cfg(feature = "jit")]
    #[test]
    fn every_listing_set_has_a_kernel_set_for_the_jit() {
        let names: std::collections::HashMap<usize, &str> =
            crate::aot::kernel_addresses().into_iter().map(|(n, a)| (a, n)).collect();
        let mut sets: Vec<(&str, Vec<usize>)> = super::host::SETS.iter().map(|k| (k.name, super::linked(k))).collect();
        for k in crate::dispatch::all_ghash().iter().zip(crate::dispatch::all_polyval()).skip(1) {
            sets.push((k.0.name, vec![k.0.init as usize, k.0.update as usize, k.1.init as usize, k.1.update as usize]));
        }
        for (name, linked) in sets.into_iter().filter(|(n, _)| n.starts_with("aot/")) {
            let built = crate::jit::set_function_names(name).unwrap_or_else(|| panic!("no kernel set for {name}"));
            for addr in linked {
                let f = names[&addr];
                assert!(built.iter().any(|b| b == f), "kernel set {name} does not build {f}");
            }
        }
    }
}
