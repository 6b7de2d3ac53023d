//! The JIT on this target: its ISA, feature detection and kernel sets, and the assembly of a set of functions
//! (build, lower, map) that [`Jit::host`](super::Jit::host) and the specialisations share.

use super::{memory, Jit, JitError, JitStats, Mapped};
use asmgen::lower::Lower;
use asmgen::{Feature, FeatureSet, Function, InstructionSet};
use asmgen_kernels::catalog::KernelSet;
use std::time::Instant;

#[cfg(target_arch = "x86_64")]
mod arch {
    use asmgen::isa::x86_64::{X86Feature, X86_64};
    pub(crate) type I = X86_64;
    pub(crate) const TARGET: asmgen::Target = asmgen::Target::X86_64_LINUX;
    pub(crate) const SETS: &[asmgen_kernels::catalog::KernelSet<I>] = asmgen_kernels::catalog::X86_64_SETS;
    pub(crate) fn has(f: X86Feature) -> bool {
        use std::arch::is_x86_feature_detected as d;
        match f {
            X86Feature::Ssse3 => d!("ssse3"),
            X86Feature::Sse41 => d!("sse4.1"),
            X86Feature::Aes => d!("aes"),
            X86Feature::Pclmulqdq => d!("pclmulqdq"),
            X86Feature::Avx => d!("avx"),
            X86Feature::Avx2 => d!("avx2"),
            X86Feature::Bmi2 => d!("bmi2"),
            X86Feature::Vaes => d!("vaes"),
            X86Feature::Vpclmulqdq => d!("vpclmulqdq"),
            X86Feature::Gfni => d!("gfni"),
            // The landing pad is a NOP without IBT; no instruction requires it.
            X86Feature::Ibt => true,
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod arch {
    use asmgen::isa::aarch64::{A64Feature, Aarch64};
    pub(crate) type I = Aarch64;
    pub(crate) const TARGET: asmgen::Target = asmgen::Target::AARCH64_LINUX;
    pub(crate) const SETS: &[asmgen_kernels::catalog::KernelSet<I>] = asmgen_kernels::catalog::AARCH64_SETS;
    pub(crate) fn has(f: A64Feature) -> bool {
        use std::arch::is_aarch64_feature_detected as d;
        match f {
            A64Feature::Pmull => d!("pmull"),
            A64Feature::Aes => d!("aes"),
            A64Feature::Sha3 => d!("sha3"),
            A64Feature::Sm4 => d!("sm4"),
        }
    }
}

#[cfg(target_arch = "riscv64")]
mod arch {
    use asmgen::isa::riscv64::{Riscv64, RvFeature};
    pub(crate) type I = Riscv64;
    pub(crate) const TARGET: asmgen::Target = asmgen::Target::RISCV64_LINUX;
    pub(crate) const SETS: &[asmgen_kernels::catalog::KernelSet<I>] = asmgen_kernels::catalog::RISCV64_SETS;
    pub(crate) fn has(f: RvFeature) -> bool {
        use crate::dispatch::host::has_all;
        use std::arch::is_riscv_feature_detected as d;
        // The vector extensions' bits of riscv_hwprobe's RISCV_HWPROBE_KEY_IMA_EXT_0 (see `dispatch::host`).
        match f {
            RvFeature::Zbb => d!("zbb"),
            RvFeature::Zbc => d!("zbc"),
            RvFeature::Zbkb => d!("zbkb"),
            RvFeature::Zksed => d!("zksed"),
            RvFeature::V => has_all(1 << 2),
            RvFeature::Zvkb => has_all(1 << 19),
            RvFeature::Zvkg => has_all(1 << 20),
            RvFeature::Zvksed => has_all(1 << 24),
            RvFeature::Zvbc => has_all(1 << 18),
        }
    }
}

pub(crate) use arch::{I, SETS, TARGET};

/// The kernel set the listings' backend `aot` stands for.
pub(crate) fn set_of(aot: &str) -> Option<&'static KernelSet<I>> {
    SETS.iter().find(|s| s.name == aot.trim_start_matches("aot/"))
}

/// Builds, lowers and maps the functions `build` makes (checking that this CPU has what they require) and
/// adds them to `jit` as one image of `listing` for `set`. `build` is kept to print the image's text later.
pub(crate) fn assemble(
    jit: &mut Jit,
    listing: &str,
    set: &str,
    build: impl Fn() -> Result<Vec<Function<I>>, asmgen::GenError> + Send + Sync + 'static,
) -> Result<JitStats, JitError> {
    let lower_err = |e: asmgen::GenError| JitError::Lower(e.to_string());
    let t0 = Instant::now();
    let functions = build().map_err(lower_err)?;
    if functions.is_empty() {
        return Err(JitError::Unsupported("the kernel set has no kernel of that kind"));
    }
    let t1 = Instant::now();
    let mut used = FeatureSet::<<I as InstructionSet>::Feature>::empty();
    let mut features = Vec::with_capacity(functions.len());
    for f in &functions {
        if let Some(missing) = f.required.iter().find(|x| !arch::has(*x)) {
            return Err(JitError::Lower(format!("{} needs {}, which this CPU lacks", f.name, missing.name())));
        }
        used = used.union(f.required);
        features.push(if f.required.is_empty() { "baseline".to_string() } else { f.required.names(", ") });
    }
    let refs: Vec<&Function<I>> = functions.iter().collect();
    let image = asmgen::lower::lower(&refs).map_err(lower_err)?;
    let instructions = functions.iter().map(|f| f.insts().count()).sum();
    drop(refs);
    drop(functions);
    let t2 = Instant::now();
    let (buffer, mapped) = memory::map(&image.bytes).map_err(JitError::Memory)?;
    let t3 = Instant::now();
    let stats =
        JitStats { build: t1 - t0, lower: t2 - t1, map: t3 - t2, instructions, bytes: image.bytes.len(), mapped };
    let text = move |image: &asmgen::lower::Image| -> Result<Vec<String>, String> {
        let functions = build().map_err(|e| e.to_string())?;
        let refs: Vec<&Function<I>> = functions.iter().collect();
        <I as Lower>::disassemble(&refs, image).map_err(|e| e.to_string())
    };
    jit.push(Mapped { buffer, image, text: Box::new(text) }, listing, set, features);
    for f in <I as InstructionSet>::Feature::ALL.iter().filter(|f| used.contains(**f)) {
        if !jit.features.contains(&f.name()) {
            jit.features.push(f.name());
        }
    }
    jit.stats.add(&stats);
    Ok(stats)
}

/// The fixed-size kernels of `spec` ([`Jit::specialised`](super::Jit::specialised)): those of the process
/// JIT's set of the right listing.
pub(super) fn specialise(spec: super::Specialisation) -> Result<Jit, JitError> {
    use super::Specialisation as S;
    use asmgen_kernels::Fixed;
    let process = Jit::process().map_err(|_| JitError::Unsupported("the JIT could not assemble this CPU's kernels"))?;
    let (fixed, listing) = match spec {
        S::XtsSector(bytes) => (Fixed::Xts(bytes / 16), "sm4"),
        S::CtrMessage(bytes) => (Fixed::Ctr(bytes / 16), "sm4"),
        S::HashBlocks(n) => (Fixed::Hash(n), "ghash"),
    };
    let set = process
        .sets()
        .iter()
        .filter_map(|s| SETS.iter().find(|k| k.name == s))
        .find(|k| k.listing == listing)
        .ok_or(JitError::Unsupported("no kernel set of that listing was assembled"))?;
    let abi = TARGET.abi;
    let build = set.fixed;
    let mut jit = Jit::empty(Vec::new());
    let name = format!("{}/{}", set.name, spec.label());
    assemble(&mut jit, listing, &name, move || build(abi, fixed))?;
    jit.sets.push(name);
    Ok(jit)
}

/// [`Jit::host`](super::Jit::host): the kernel sets the dispatcher chooses for this CPU.
pub(super) fn host() -> Result<Jit, JitError> {
    let choice = crate::dispatch::jit_choice();
    let mut jit = Jit::empty(choice.notes);
    if choice.sets.is_empty() {
        return Err(JitError::Unsupported("this CPU has none of the listings' kernel sets"));
    }
    let abi = TARGET.abi;
    for aot in choice.sets {
        let set = set_of(aot).ok_or(JitError::Unsupported("a chosen backend has no kernel set"))?;
        assemble(&mut jit, set.listing, set.name, move || (set.build)(abi))?;
        jit.sets.push(set.name.to_string());
    }
    Ok(jit)
}

/// The names of the functions kernel set `aot` builds (for tests).
#[cfg(test)]
pub(crate) fn set_function_names(aot: &str) -> Option<Vec<String>> {
    let set = set_of(aot)?;
    Some((set.build)(TARGET.abi).ok()?.into_iter().map(|f| f.name).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use asmgen_kernels::Fixed;

    /// Block counts around every batch boundary (8 and 16 blocks per batch, 8 per GHASH reduction), and a
    /// 4096-byte sector.
    const COUNTS: &[usize] = &[1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 47, 48, 49, 256];

    fn rand(seed: &mut u64, buf: &mut [u8]) {
        for b in buf {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *b = *seed as u8;
        }
    }

    /// Every fixed-size kernel of every kernel set this CPU runs computes what the set's general kernel
    /// computes for that count: outputs and the chained state (tweak, counter, hash state) alike. The public
    /// API only ever specialises the set the dispatcher chose; this covers the others.
    #[test]
    fn fixed_size_kernels_equal_the_general_ones_on_every_set() {
        type Chain = unsafe extern "C" fn(*const u8, *mut u8, *const u8, usize, *mut u8);
        type Update = unsafe extern "C" fn(*mut u8, *const u8, *const u8, usize);
        let abi = TARGET.abi;
        let general: std::collections::HashMap<&str, usize> = crate::aot::kernel_addresses().into_iter().collect();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut checked = 0;
        for set in SETS {
            for kind in [Fixed::Xts as fn(usize) -> Fixed, Fixed::Ctr, Fixed::Hash] {
                let build = move || -> Result<Vec<Function<I>>, asmgen::GenError> {
                    let mut v = Vec::new();
                    for &n in COUNTS {
                        v.extend((set.fixed)(abi, kind(n))?);
                    }
                    Ok(v)
                };
                let functions = build().unwrap();
                if functions.is_empty() || !functions.iter().all(|f| f.required.iter().all(arch::has)) {
                    continue;
                }
                let mut jit = Jit::empty(Vec::new());
                assemble(&mut jit, set.listing, set.name, build).unwrap();
                for k in jit.kernels() {
                    let (base, n) = k.name.rsplit_once("_n").unwrap();
                    let n: usize = n.parse().unwrap();
                    let (fixed, general) = (jit.entry(&k.name).unwrap(), general[base]);
                    let mut input = vec![0u8; 16 * n];
                    let mut key = [0u8; 256];
                    let mut state = [0u8; 16];
                    rand(&mut seed, &mut input);
                    rand(&mut seed, &mut key);
                    rand(&mut seed, &mut state);
                    let (mut out_f, mut out_g) = (vec![0u8; 16 * n], vec![0u8; 16 * n]);
                    let (mut st_f, mut st_g) = (state, state);
                    // SAFETY: the functions have the C signature of their kind (same description); buffers of
                    // `n` blocks, 16-byte states, round keys or a key table of at most 256 bytes.
                    unsafe {
                        if k.listing == "ghash" {
                            let (f, g) = (
                                std::mem::transmute::<*const u8, Update>(fixed),
                                std::mem::transmute::<*const u8, Update>(general as *const u8),
                            );
                            f(st_f.as_mut_ptr(), key.as_ptr(), input.as_ptr(), 0);
                            g(st_g.as_mut_ptr(), key.as_ptr(), input.as_ptr(), n);
                        } else {
                            let (f, g) = (
                                std::mem::transmute::<*const u8, Chain>(fixed),
                                std::mem::transmute::<*const u8, Chain>(general as *const u8),
                            );
                            // nblocks is ignored by the fixed kernel: pass a wrong one.
                            f(key.as_ptr(), out_f.as_mut_ptr(), input.as_ptr(), 0, st_f.as_mut_ptr());
                            g(key.as_ptr(), out_g.as_mut_ptr(), input.as_ptr(), n, st_g.as_mut_ptr());
                        }
                    }
                    assert_eq!(out_f, out_g, "{} ({})", k.name, set.name);
                    assert_eq!(st_f, st_g, "{} ({}): state", k.name, set.name);
                    checked += 1;
                }
            }
        }
        eprintln!("{checked} fixed-size kernels equal their general kernels");
        #[cfg(target_arch = "x86_64")]
        if arch::has(asmgen::isa::x86_64::X86Feature::Avx) {
            assert!(checked > 0, "x86_64 sets have fixed-size kernels");
        }
    }
}
