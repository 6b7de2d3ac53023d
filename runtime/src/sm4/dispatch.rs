//! SM4 backends: the portable code, the listings' SM4 sets and the JIT's, each a complete table of function
//! pointers with the kernels' C ABI, filled by role from the generated set table or the JIT, in one
//! [`Registry`]. A set may lack a combined-mode kernel (XTS, GCM, CCM); the API then builds the mode from that
//! set's ECB, CTR and CBC-MAC kernels and the GHASH kernels.

use super::portable;
use crate::backend::{self, cast, Backends, Kernels, Registry};
use crate::ghash::dispatch::{self as ghash, HashKernels};
use crate::Error;

/// `expand_key(rk_enc, rk_dec, key)`.
pub(crate) type ExpandFn = unsafe extern "C" fn(*mut u8, *mut u8, *const u8);
/// `ecb(rk, dst, src, nblocks)`, also `cbc_mac(rk, mac, src, nblocks)`.
pub(crate) type BlocksFn = unsafe extern "C" fn(*const u8, *mut u8, *const u8, usize);
/// `f(rk, dst, src, nblocks, iv_or_counter_or_tweak)`.
pub(crate) type ChainFn = unsafe extern "C" fn(*const u8, *mut u8, *const u8, usize, *mut u8);
/// `xts_unit(rk_data, rk_tweak, dst, src, len, iv)`: one XTS data unit of `len` bytes (at least 16), the tweak
/// encryption and ciphertext stealing inside.
pub(crate) type XtsUnitFn = unsafe extern "C" fn(*const u8, *const u8, *mut u8, *const u8, usize, *const u8);
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
    pub available: bool,
    pub expand_key: ExpandFn,
    pub ecb: BlocksFn,
    pub ctr: ChainFn,
    pub cbc_enc: ChainFn,
    pub cbc_dec: ChainFn,
    pub cfb_enc: ChainFn,
    pub cfb_dec: ChainFn,
    pub cbc_mac: BlocksFn,
    // The combined modes: `None` where the set has no kernel; the safe API then composes the mode from this
    // set's ECB, CTR and CBC-MAC kernels and the GHASH kernels (still far faster than the portable combined
    // kernel).
    pub xts_enc_ieee: Option<ChainFn>,
    pub xts_dec_ieee: Option<ChainFn>,
    pub xts_enc_gb: Option<ChainFn>,
    pub xts_dec_gb: Option<ChainFn>,
    /// One data unit per call (`xts_unit_*`): encryption and decryption, IEEE then GB.
    pub xts_unit: [Option<XtsUnitFn>; 4],
    /// Fused GCM encryption.
    pub gcm_enc: Option<GcmFn>,
    /// Fused GCM decryption (GHASH of the ciphertext read); the API restores the buffer on a bad tag.
    pub gcm_dec: Option<GcmFn>,
    pub ccm_enc: Option<CcmFn>,
    pub ccm_dec: Option<CcmFn>,
    /// The GHASH kernels GCM uses with this set (the key table layout is the same on every backend).
    pub ghash: fn() -> &'static HashKernels,
    /// The GHASH set that `gcm_enc` and `gcm_dec` multiply as (the listings' table's `fused_ghash`).
    pub fused_ghash: Option<FusedGhash>,
}

/// What [`crate::Sm4Gcm`] weighs about the GHASH set a kernel set's fused GCM kernels multiply as, found once
/// when the set's table is made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FusedGhash {
    /// Its place in the listings' table ([`backend::rank`]): a GHASH set of a lower rank outranks it.
    pub rank: usize,
    /// Whether it fills a key table extension (its `ghash_init_base` role), which the fused kernels read.
    pub extension: bool,
}

impl FusedGhash {
    /// The fused GHASH set of the listings' set that backend `name` runs, if it names one.
    fn of(name: &str) -> Option<FusedGhash> {
        let fused = backend::set_of(name)?.fused_ghash?;
        let set = crate::aot::SETS.iter().find(|s| s.name == fused)?;
        let extension = set.kernels.iter().any(|k| k.role == "ghash_init_base");
        Some(FusedGhash { rank: backend::rank(fused)?, extension })
    }
}

impl Kernels for Sm4Kernels {
    fn name(&self) -> &'static str {
        self.name
    }
    fn available(&self) -> bool {
        self.available
    }
}

fn portable_ghash() -> &'static HashKernels {
    &ghash::PORTABLE_GHASH
}

/// The portable set: every function from [`portable`].
pub(crate) const PORTABLE: Sm4Kernels = Sm4Kernels {
    name: "portable",
    available: true,
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
    xts_unit: [None; 4],
    gcm_enc: Some(portable::gcm_enc),
    gcm_dec: Some(portable::gcm_dec),
    ccm_enc: Some(portable::ccm_enc),
    ccm_dec: Some(portable::ccm_dec),
    ghash: portable_ghash,
    fused_ghash: None,
};

/// A set's table from its kernels by role; `None` if a role every set has is missing.
fn from_roles(name: &'static str, available: bool, entry: &dyn Fn(&str) -> Option<*const ()>) -> Option<Sm4Kernels> {
    // SAFETY (each closure): the role's C signature is the named function pointer type (asmgen_kernels::Role);
    // the kernels live for the process.
    let expand = |r| entry(r).map(|p| unsafe { cast::<ExpandFn>(p) });
    let blocks = |r| entry(r).map(|p| unsafe { cast::<BlocksFn>(p) });
    let chain = |r| entry(r).map(|p| unsafe { cast::<ChainFn>(p) });
    let unit = |r| entry(r).map(|p| unsafe { cast::<XtsUnitFn>(p) });
    let gcm = |r| entry(r).map(|p| unsafe { cast::<GcmFn>(p) });
    let ccm = |r| entry(r).map(|p| unsafe { cast::<CcmFn>(p) });
    Some(Sm4Kernels {
        name,
        available,
        expand_key: expand("expand_key")?,
        ecb: blocks("ecb")?,
        ctr: chain("ctr")?,
        cbc_enc: chain("cbc_enc")?,
        cbc_dec: chain("cbc_dec")?,
        cfb_enc: chain("cfb_enc")?,
        cfb_dec: chain("cfb_dec")?,
        cbc_mac: blocks("cbc_mac")?,
        xts_enc_ieee: chain("xts_enc_ieee"),
        xts_dec_ieee: chain("xts_dec_ieee"),
        xts_enc_gb: chain("xts_enc_gb"),
        xts_dec_gb: chain("xts_dec_gb"),
        xts_unit: XTS_UNIT_ROLES.map(unit),
        gcm_enc: gcm("gcm_enc"),
        gcm_dec: gcm("gcm_dec"),
        ccm_enc: ccm("ccm_enc"),
        ccm_dec: ccm("ccm_dec"),
        ghash: ghash::ghash,
        fused_ghash: FusedGhash::of(name),
    })
}

/// The roles of [`Sm4Kernels::xts_unit`], in its order: index `decrypt + 2 * gb`.
const XTS_UNIT_ROLES: [&str; 4] = ["xts_unit_enc_ieee", "xts_unit_dec_ieee", "xts_unit_enc_gb", "xts_unit_dec_gb"];

#[cfg(all(test, any(feature = "jit", feature = "interp")))]
#[test]
fn xts_unit_roles_are_the_kernels_roles_in_the_index_order() {
    for (i, name) in XTS_UNIT_ROLES.iter().enumerate() {
        assert_eq!(*name, asmgen_kernels::role::Role::xts_unit(i % 2 == 1, i >= 2).name());
    }
}

/// The unit kernels of `k`: its own, or, for a JIT set that left them to their first use, those of
/// [`crate::jit::Jit::deferred`] (assembled on the first call in the process).
pub(crate) fn xts_units(k: &Sm4Kernels) -> [Option<XtsUnitFn>; 4] {
    #[cfg(feature = "jit")]
    if k.xts_unit.iter().all(Option::is_none) {
        if let (Some(set), Ok(jit)) = (k.name.strip_prefix("jit/"), crate::jit::Jit::deferred()) {
            // SAFETY: as in `from_roles`: the role's C signature is `XtsUnitFn`; the kernels live for the process.
            return XTS_UNIT_ROLES.map(|r| jit.entry_of(set, r).map(|p| unsafe { cast::<XtsUnitFn>(p) }));
        }
    }
    k.xts_unit
}

static SM4: Backends<Registry<Sm4Kernels>> = Backends::new(registry);

/// The registry, with the JIT's sets or without, with the interpreter's or without.
fn registry(with_jit: bool, with_interp: bool) -> Registry<Sm4Kernels> {
    #[cfg(feature = "jit")]
    let jit = if with_jit { crate::jit::backends("sm4", &from_roles) } else { Vec::new() };
    #[cfg(not(feature = "jit"))]
    let jit = {
        let _ = with_jit;
        Vec::new()
    };
    #[cfg(not(all(feature = "interp", target_pointer_width = "64", target_endian = "little")))]
    let _ = with_interp;
    // The interpreter's sets (feature `interp`), after the JIT's: chosen only by ASMGEN_BACKEND=jit without a JIT.
    #[cfg(all(feature = "interp", target_pointer_width = "64", target_endian = "little"))]
    let jit = {
        let mut jit = jit;
        if with_interp {
            jit.extend(crate::interp::backends("sm4", &from_roles));
        }
        jit
    };
    Registry::new(PORTABLE, backend::aot_backends("sm4", &from_roles), jit)
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
    let roles = ["xts_enc_ieee", "xts_dec_ieee", "xts_enc_gb", "xts_dec_gb"];
    let (name, fns) = fixed(SpecKind::Xts, bytes, &roles)?;
    Some(FixedKernels { name, bytes, fns: [Some(fns[0]), Some(fns[1]), Some(fns[2]), Some(fns[3])] })
}

/// The fixed-size CTR kernel for messages of `bytes` (see [`FixedKernels`]).
pub(crate) fn fixed_ctr(bytes: usize) -> Option<FixedKernels> {
    let (name, fns) = fixed(SpecKind::Ctr, bytes, &["ctr"])?;
    Some(FixedKernels { name, bytes, fns: [Some(fns[0]), None, None, None] })
}

/// Which specialisation.
#[derive(Clone, Copy)]
enum SpecKind {
    Xts,
    Ctr,
}

/// The JIT's kernels in `roles` specialised for `bytes`, and the specialisation's backend name; `None` when
/// any is missing.
fn fixed(kind: SpecKind, bytes: usize, roles: &[&str]) -> Option<(&'static str, Vec<ChainFn>)> {
    #[cfg(feature = "jit")]
    {
        use crate::jit::{Jit, Specialisation};
        if matches!(backend::request(), backend::Request::Portable | backend::Request::Aot) {
            return None;
        }
        // What the API reports is the size asked for (`ctr-1000`); the JIT specialises CTR for the message's
        // whole blocks (the API adds a partial one), so messages of 992 and 1000 bytes share one kernel.
        let (asked, spec) = match kind {
            SpecKind::Xts => (Specialisation::XtsSector(bytes), Specialisation::XtsSector(bytes)),
            SpecKind::Ctr => (Specialisation::CtrMessage(bytes), Specialisation::CtrMessage(bytes / 16 * 16)),
        };
        let jit = Jit::specialised(spec).ok()?;
        let set = jit.sets().first()?;
        // SAFETY: the XTS and CTR roles' C signature is `ChainFn`; specialisations live for the process.
        let fns = roles.iter().map(|r| jit.entry_of(set, r).map(|p| unsafe { cast::<ChainFn>(p) }));
        let kernel_set = set.split_once('/').map_or(set.as_str(), |(s, _)| s);
        Some((backend::jit_name(&format!("{kernel_set}/{}", asked.label())), fns.collect::<Option<Vec<_>>>()?))
    }
    #[cfg(not(feature = "jit"))]
    {
        let _ = (kind, bytes, roles);
        None
    }
}

/// Every SM4 implementation of this build, portable first, best last.
#[cfg(test)]
pub(crate) fn all() -> &'static [Sm4Kernels] {
    SM4.listed().all()
}

/// The SM4 kernels to use.
pub(crate) fn best() -> &'static Sm4Kernels {
    SM4.chosen().best()
}

/// The named set, if this build has it and the CPU runs it.
pub(crate) fn find(name: &str) -> Result<&'static Sm4Kernels, Error> {
    SM4.for_name(name).find(name)
}

/// Every SM4 backend of this build with whether this CPU runs it, portable first, best last (for tests and
/// the benchmark, which compare them all).
pub fn sm4_backend_table() -> Vec<(&'static str, bool)> {
    SM4.table("sm4", Registry::table)
}
