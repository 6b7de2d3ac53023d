//! Backend choice: CPU features detected at run time pick the best kernel; `ASMGEN_BACKEND` overrides.
//!
//! `ASMGEN_BACKEND=portable` forces the portable Rust code, `ASMGEN_BACKEND=aot` the linked listings (when
//! the CPU has what they need; otherwise the portable code runs and `backend()` says so), `ASMGEN_BACKEND=jit`
//! the JIT's kernels (feature `jit`; the best AOT or portable code where the JIT has none).
//! Unset or any other value: the best available.

use crate::portable;
use std::sync::OnceLock;

/// Key setup: `init(table, h)`.
pub(crate) type InitFn = unsafe extern "C" fn(*mut u8, *const u8);
/// Update: `update(state, table, data, nblocks)`.
pub(crate) type UpdateFn = unsafe extern "C" fn(*mut u8, *const u8, *const u8, usize);

/// One implementation of GHASH or POLYVAL.
#[derive(Clone, Copy)]
pub(crate) struct HashKernels {
    /// What `backend()` reports.
    pub name: &'static str,
    /// Whether the running CPU can execute it.
    pub available: fn() -> bool,
    /// Key setup.
    pub init: InitFn,
    /// Block update.
    pub update: UpdateFn,
}

/// The override requested through `ASMGEN_BACKEND`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Request {
    Best,
    Portable,
    Aot,
    Jit,
}

pub(crate) fn request() -> Request {
    static R: OnceLock<Request> = OnceLock::new();
    *R.get_or_init(|| match std::env::var("ASMGEN_BACKEND").as_deref() {
        Ok("portable") => Request::Portable,
        Ok("aot") => Request::Aot,
        Ok("jit") => Request::Jit,
        _ => Request::Best,
    })
}

fn always() -> bool {
    true
}

const PORTABLE_GHASH: HashKernels =
    HashKernels { name: "portable", available: always, init: portable::ghash_init, update: portable::ghash_update };
const PORTABLE_POLYVAL: HashKernels =
    HashKernels { name: "portable", available: always, init: portable::polyval_init, update: portable::polyval_update };

#[cfg(all(asmgen_aot, target_arch = "x86_64"))]
mod host {
    use super::HashKernels;
    use crate::aot::*;
    fn pclmul_avx() -> bool {
        std::arch::is_x86_feature_detected!("pclmulqdq") && std::arch::is_x86_feature_detected!("avx")
    }
    pub(crate) const GHASH: &[HashKernels] = &[HashKernels {
        name: "aot/x86_64-pclmulqdq-avx",
        available: pclmul_avx,
        init: asmgen_ghash_init_avx,
        update: asmgen_ghash_update_avx,
    }];
    pub(crate) const POLYVAL: &[HashKernels] = &[HashKernels {
        name: "aot/x86_64-pclmulqdq-avx",
        available: pclmul_avx,
        init: asmgen_polyval_init_avx,
        update: asmgen_polyval_update_avx,
    }];
}

#[cfg(all(asmgen_aot, target_arch = "aarch64"))]
mod host {
    use super::HashKernels;
    use crate::aot::*;
    fn pmull() -> bool {
        std::arch::is_aarch64_feature_detected!("pmull")
    }
    pub(crate) const GHASH: &[HashKernels] = &[HashKernels {
        name: "aot/aarch64-pmull",
        available: pmull,
        init: asmgen_ghash_init_pmull,
        update: asmgen_ghash_update_pmull,
    }];
    pub(crate) const POLYVAL: &[HashKernels] = &[HashKernels {
        name: "aot/aarch64-pmull",
        available: pmull,
        init: asmgen_polyval_init_pmull,
        update: asmgen_polyval_update_pmull,
    }];
}

#[cfg(all(asmgen_aot, target_arch = "riscv64"))]
pub(crate) mod host {
    use super::HashKernels;
    use crate::aot::*;
    fn zbb_zbc() -> bool {
        std::arch::is_riscv_feature_detected!("zbb") && std::arch::is_riscv_feature_detected!("zbc")
    }
    fn zvkg() -> bool {
        has_all(RVV | ZVKB | ZVKG)
    }

    // Bits of riscv_hwprobe's RISCV_HWPROBE_KEY_IMA_EXT_0 (Linux uapi asm/hwprobe.h).
    /// The vector extension V.
    pub(crate) const RVV: u64 = 1 << 2;
    /// Zvkb.
    pub(crate) const ZVKB: u64 = 1 << 19;
    /// Zvkg.
    pub(crate) const ZVKG: u64 = 1 << 20;
    /// Zvksed.
    pub(crate) const ZVKSED: u64 = 1 << 24;

    /// Whether the kernel reports every extension in `bits` (RISCV_HWPROBE_KEY_IMA_EXT_0). std's
    /// `is_riscv_feature_detected!` knows the vector extensions only on nightly (Rust 1.95), so the vector
    /// kernels ask `riscv_hwprobe` (syscall 258) themselves; the call fails (no kernel support) as "none".
    pub(crate) fn has_all(bits: u64) -> bool {
        static EXT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        let ext = *EXT.get_or_init(|| {
            // struct riscv_hwprobe { i64 key; u64 value; }, key 4 = IMA_EXT_0.
            let mut pair: [i64; 2] = [4, 0];
            let ret: i64;
            // SAFETY: riscv_hwprobe(pairs, 1, 0, NULL, 0) writes only the one pair it is given.
            unsafe {
                core::arch::asm!(
                    "ecall",
                    inlateout("a0") pair.as_mut_ptr() as i64 => ret,
                    in("a1") 1i64,
                    in("a2") 0i64,
                    in("a3") 0i64,
                    in("a4") 0i64,
                    in("a7") 258i64,
                    options(nostack),
                );
            }
            if ret == 0 && pair[0] == 4 {
                pair[1] as u64
            } else {
                0
            }
        });
        ext & bits == bits
    }
    pub(crate) const GHASH: &[HashKernels] = &[
        HashKernels {
            name: "aot/riscv64-zvkg",
            available: zvkg,
            init: asmgen_ghash_init_zvkg,
            update: asmgen_ghash_update_zvkg,
        },
        HashKernels {
            name: "aot/riscv64-zbb-zbc",
            available: zbb_zbc,
            init: asmgen_ghash_init_zbc,
            update: asmgen_ghash_update_zbc,
        },
    ];
    pub(crate) const POLYVAL: &[HashKernels] = &[
        HashKernels {
            name: "aot/riscv64-zvkg",
            available: zvkg,
            init: asmgen_polyval_init_zvkg,
            update: asmgen_polyval_update_zvkg,
        },
        HashKernels {
            name: "aot/riscv64-zbb-zbc",
            available: zbb_zbc,
            init: asmgen_polyval_init_zbc,
            update: asmgen_polyval_update_zbc,
        },
    ];
}

#[cfg(not(asmgen_aot))]
mod host {
    use super::HashKernels;
    pub(crate) const GHASH: &[HashKernels] = &[];
    pub(crate) const POLYVAL: &[HashKernels] = &[];
}

/// What the JIT assembles: the listings' backends the dispatcher chooses on this CPU (GHASH/POLYVAL, then
/// SM4 after the JIT's tuning), and the tuning's notes.
#[cfg(feature = "jit")]
pub(crate) struct JitChoice {
    /// Backend names of the listings' sets (`aot/...`).
    pub sets: Vec<&'static str>,
    /// What was measured to choose, as text.
    pub notes: Vec<String>,
}

/// The sets the JIT assembles for this CPU.
#[cfg(feature = "jit")]
pub(crate) fn jit_choice() -> JitChoice {
    let mut sets: Vec<&'static str> =
        host::POLYVAL.iter().find(|k| (k.available)()).map(|k| k.name).into_iter().collect();
    let (sm4, notes) = crate::sm4::jit_choice();
    sets.extend(sm4);
    JitChoice { sets, notes }
}

/// The JIT's sets, `(ghash, polyval)`: the listings' sets the JIT assembled, each kernel re-pointed to the
/// JIT's assembly of the same function.
fn jit_hash() -> &'static (Vec<HashKernels>, Vec<HashKernels>) {
    static V: OnceLock<(Vec<HashKernels>, Vec<HashKernels>)> = OnceLock::new();
    V.get_or_init(|| {
        #[allow(unused_mut)]
        let (mut g, mut p) = (Vec::new(), Vec::new());
        #[cfg(all(feature = "jit", asmgen_aot))]
        if let Some(jit) = crate::jit::host() {
            use crate::jit::rebind;
            for (gk, pk) in host::GHASH.iter().zip(host::POLYVAL) {
                if !jit.sets().iter().any(|s| gk.name.strip_prefix("aot/") == Some(s.as_str())) {
                    continue;
                }
                if let (Some(gi), Some(gu), Some(pi), Some(pu)) =
                    (rebind(gk.init), rebind(gk.update), rebind(pk.init), rebind(pk.update))
                {
                    let name = crate::jit::backend_name(gk.name);
                    g.push(HashKernels { name, available: always, init: gi, update: gu });
                    p.push(HashKernels { name, available: always, init: pi, update: pu });
                }
            }
        }
        (g, p)
    })
}

/// Fixed-size GHASH and POLYVAL updates of `n` blocks from the JIT ([`crate::jit::Jit::specialised`]):
/// `(name, ghash, polyval)`. `None` without the `jit` feature, when `ASMGEN_BACKEND` asks for the portable
/// code or the listings, or when this CPU's set has none.
pub(crate) fn fixed_hash(n: usize) -> Option<(&'static str, UpdateFn, UpdateFn)> {
    #[cfg(all(feature = "jit", asmgen_aot))]
    {
        if matches!(request(), Request::Portable | Request::Aot) {
            return None;
        }
        let spec = crate::jit::Specialisation::HashBlocks(n);
        let jit = crate::jit::Jit::specialised(spec).ok()?;
        let (set, _) = jit.sets().first()?.split_once('/')?;
        let i = host::GHASH.iter().position(|k| k.name.strip_prefix("aot/") == Some(set))?;
        let g = crate::jit::rebind_in(host::GHASH[i].update, jit, &spec.suffix())?;
        let p = crate::jit::rebind_in(host::POLYVAL[i].update, jit, &spec.suffix())?;
        Some((crate::jit::backend_name(jit.sets()[0].as_str()), g, p))
    }
    #[cfg(not(all(feature = "jit", asmgen_aot)))]
    {
        let _ = n;
        None
    }
}

fn choose(
    candidates: &'static [HashKernels],
    jit: &'static [HashKernels],
    portable: &'static HashKernels,
) -> &'static HashKernels {
    match request() {
        Request::Portable => portable,
        Request::Jit if !jit.is_empty() => &jit[0],
        _ => candidates.iter().find(|k| (k.available)()).unwrap_or(portable),
    }
}

/// The GHASH kernels to use.
pub(crate) fn ghash() -> &'static HashKernels {
    static K: OnceLock<&'static HashKernels> = OnceLock::new();
    K.get_or_init(|| choose(host::GHASH, &jit_hash().0, &PORTABLE_GHASH))
}

/// The POLYVAL kernels to use.
pub(crate) fn polyval() -> &'static HashKernels {
    static K: OnceLock<&'static HashKernels> = OnceLock::new();
    K.get_or_init(|| choose(host::POLYVAL, &jit_hash().1, &PORTABLE_POLYVAL))
}

/// Portable first, then the listings' sets, then the JIT's.
fn ordered(portable: &HashKernels, aot: &[HashKernels], jit: &[HashKernels]) -> Vec<HashKernels> {
    std::iter::once(portable).chain(aot).chain(jit).copied().collect()
}

/// Every GHASH implementation of this build, portable first.
pub(crate) fn all_ghash() -> &'static [HashKernels] {
    static V: OnceLock<Vec<HashKernels>> = OnceLock::new();
    V.get_or_init(|| ordered(&PORTABLE_GHASH, host::GHASH, &jit_hash().0))
}

/// Every POLYVAL implementation of this build, portable first.
pub(crate) fn all_polyval() -> &'static [HashKernels] {
    static V: OnceLock<Vec<HashKernels>> = OnceLock::new();
    V.get_or_init(|| ordered(&PORTABLE_POLYVAL, host::POLYVAL, &jit_hash().1))
}

/// Every GHASH and POLYVAL implementation this build has, with whether this CPU runs it (for tests and the
/// benchmark, which compare them all).
pub fn hash_backends() -> Vec<(&'static str, bool)> {
    all_polyval().iter().map(|k| (k.name, (k.available)())).collect()
}
