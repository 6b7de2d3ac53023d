//! The JIT on this target: its ISA and kernel sets (the catalog's), and the assembly of a set's kernels (build,
//! lower, map) that [`Jit::host`] and [`Jit::specialised`] share.

use super::assembly::{Jit, JitStats, Mapped};
use super::error::JitError;
use super::module::JitModule;
use super::specialised::Specialisation;
#[cfg(test)]
use super::unwind;
use asmgen::lower::Lower;
use asmgen::{Feature, FeatureSet, Function, InstructionSet};
use asmgen_kernels::catalog::KernelSet;
use asmgen_kernels::{Kernels, Role};
use std::time::Instant;

#[cfg(target_arch = "x86_64")]
mod arch {
    pub(crate) type I = asmgen::isa::x86_64::X86_64;
    /// The row whose listing the JIT's image reproduces: its ABI is what the kernels are built for (Windows:
    /// Microsoft x64, as the linked `generated/x86_64-windows` listing; elsewhere System V).
    #[cfg(windows)]
    pub(crate) const TARGET: asmgen::Target = asmgen::Target::X86_64_WINDOWS;
    #[cfg(not(windows))]
    pub(crate) const TARGET: asmgen::Target = asmgen::Target::X86_64_LINUX;
    pub(crate) const SETS: &[asmgen_kernels::catalog::KernelSet<I>] = asmgen_kernels::catalog::X86_64_SETS;
}

#[cfg(target_arch = "aarch64")]
mod arch {
    pub(crate) type I = asmgen::isa::aarch64::Aarch64;
    /// The row whose listing is linked: macOS's (Apple's AAPCS64, x18 reserved) on Apple systems.
    #[cfg(target_vendor = "apple")]
    pub(crate) const TARGET: asmgen::Target = asmgen::Target::AARCH64_MACOS;
    #[cfg(not(target_vendor = "apple"))]
    pub(crate) const TARGET: asmgen::Target = asmgen::Target::AARCH64_LINUX;
    pub(crate) const SETS: &[asmgen_kernels::catalog::KernelSet<I>] = asmgen_kernels::catalog::AARCH64_SETS;
}

#[cfg(target_arch = "riscv64")]
mod arch {
    pub(crate) type I = asmgen::isa::riscv64::Riscv64;
    pub(crate) const TARGET: asmgen::Target = asmgen::Target::RISCV64_LINUX;
    pub(crate) const SETS: &[asmgen_kernels::catalog::KernelSet<I>] = asmgen_kernels::catalog::RISCV64_SETS;
}

pub(crate) use arch::{I, SETS, TARGET};

/// The catalog's kernel set named `name`.
pub(crate) fn set_named(name: &str) -> Option<&'static KernelSet<I>> {
    SETS.iter().find(|s| s.name == name)
}

/// Builds, lowers and maps the kernels `build` makes (checking that this CPU has what they require) and adds
/// them to `jit` as one image of `listing` for `set`. `build` is kept to print the image's text later.
pub(crate) fn assemble(
    jit: &mut Jit,
    listing: &str,
    set: &str,
    build: impl Fn() -> Kernels<I> + Send + Sync + 'static,
) -> Result<JitStats, JitError> {
    let lower_err = |e: asmgen::GenError| JitError::Lower(e.to_string());
    let t0 = Instant::now();
    // Without comments: the JIT prints nothing, and they emit no bytes. On x86_64 the builders hand each
    // instruction to the lowering as it is made (no items written, read back and dropped).
    #[cfg(target_arch = "x86_64")]
    let (built, stream) = asmgen::lower::x86_64::Stream::build(|| asmgen::builder::without_text(&build));
    #[cfg(not(target_arch = "x86_64"))]
    let built = asmgen::builder::without_text(&build);
    let built = built.map_err(lower_err)?;
    let (roles, functions): (Vec<_>, Vec<_>) = built.into_iter().map(|k| (k.role.name(), k.function)).unzip();
    if functions.is_empty() {
        return Err(JitError::Unsupported("the kernel set has no kernel of that kind"));
    }
    let t1 = Instant::now();
    let mut used = FeatureSet::<<I as InstructionSet>::Feature>::empty();
    let kernels: Vec<_> = functions
        .iter()
        .zip(roles)
        .map(|(f, role)| {
            used = used.union(f.required);
            (role, if f.required.is_empty() { "baseline".to_string() } else { f.required.names(", ") })
        })
        .collect();
    let refs: Vec<&Function<I>> = functions.iter().collect();
    #[cfg(target_arch = "x86_64")]
    let image = stream.lower(&refs).map_err(lower_err)?;
    #[cfg(not(target_arch = "x86_64"))]
    let image = asmgen::lower::lower(&refs).map_err(lower_err)?;
    let t2 = Instant::now();
    // The one path every JIT image takes: checked against this CPU, mapped W^X, unwind data registered.
    let module = JitModule::from_image(&refs, &image)?;
    let t3 = Instant::now();
    drop(refs);
    drop(functions);
    let stats = JitStats {
        build: t1 - t0,
        lower: t2 - t1,
        map: t3 - t2,
        instructions: image.instructions,
        bytes: image.bytes.len(),
        mapped: module.mapped(),
    };
    let text = move |image: &asmgen::lower::Image| -> Result<Vec<String>, String> {
        let functions: Vec<Function<I>> = build().map_err(|e| e.to_string())?.into_iter().map(|k| k.function).collect();
        let refs: Vec<&Function<I>> = functions.iter().collect();
        <I as Lower>::disassemble(&refs, image).map_err(|e| e.to_string())
    };
    jit.push(Mapped { module, image, text: Box::new(text) }, listing, set, kernels);
    for f in <I as InstructionSet>::Feature::ALL.iter().filter(|f| used.contains(**f)) {
        if !jit.features.contains(&f.name()) {
            jit.features.push(f.name());
        }
    }
    jit.stats.add(&stats);
    Ok(stats)
}

/// The fixed-size kernels of `spec` ([`Jit::specialised`]): those of the process
/// JIT's set of the right listing.
pub(super) fn specialise(spec: Specialisation) -> Result<Jit, JitError> {
    use asmgen_kernels::Fixed;
    use Specialisation as S;
    let process = Jit::process().map_err(|_| JitError::Unsupported("the JIT could not assemble this CPU's kernels"))?;
    let (fixed, listing) = match spec {
        S::XtsSector(bytes) => (Fixed::Xts(bytes / 16), "sm4"),
        S::CtrMessage(bytes) => (Fixed::Ctr(bytes / 16), "sm4"),
        S::HashBlocks(n) => (Fixed::Hash(n), "ghash"),
    };
    let set = process
        .sets()
        .iter()
        .filter_map(|s| set_named(s))
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

/// [`Jit::host`]: the kernel sets [`crate::backend::jit_choice`] chooses for this CPU.
pub(super) fn host() -> Result<Jit, JitError> {
    let (sets, notes) = crate::backend::jit_choice();
    host_of(&sets, notes)
}

/// The JIT of the catalog's sets named `sets` (one per listing), with what was measured to choose them.
fn host_of(sets: &[&str], notes: Vec<String>) -> Result<Jit, JitError> {
    let mut jit = Jit::empty(notes);
    if sets.is_empty() {
        return Err(JitError::Unsupported("this CPU has none of the listings' kernel sets"));
    }
    let abi = TARGET.abi;
    for name in sets {
        let set = set_named(name).ok_or(JitError::Unsupported("a chosen set is not in the kernel catalog"))?;
        // Where the set can be built in part, what the API would not run is left out:
        // - its fused GCM kernels where a GHASH set ranked above theirs is assembled too: the API composes GCM
        //   from `ctr` and that set then (`Sm4Gcm`'s default path);
        // - its whole-block XTS kernels: `Sm4Xts` runs the unit kernels, and for a fixed sector size the JIT's
        //   fixed-size kernels (without either it would compose XTS from `ecb`);
        // and its unit kernels are left to their first use ([`deferred`]).
        let unused_gcm = set.fused_ghash.is_some_and(|f| sets.iter().any(|g| crate::backend::outranks(g, f)));
        let want = move |r: Role| {
            let outranked_gcm = unused_gcm && r.is_fused_gcm();
            !r.is_xts() && !outranked_gcm
        };
        assemble(&mut jit, set.listing, set.name, move || (set.build)(abi, &want))?;
        jit.sets.push(set.name.to_string());
    }
    Ok(jit)
}

/// [`Jit::deferred`]: the XTS unit kernels of the process JIT's sets that it built in part (`in_part`: their
/// builders left them out).
pub(super) fn deferred() -> Result<Jit, JitError> {
    let process = Jit::process().map_err(|_| JitError::Unsupported("the JIT could not assemble this CPU's kernels"))?;
    let abi = TARGET.abi;
    let mut jit = Jit::empty(Vec::new());
    for set in process.sets().iter().filter_map(|s| set_named(s)) {
        if !set.in_part {
            continue;
        }
        assemble(&mut jit, set.listing, set.name, move || (set.build)(abi, &|r: Role| r.is_xts_unit()))?;
        jit.sets.push(set.name.to_string());
    }
    Ok(jit)
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
        // The listings' general kernels by set and role.
        let general = |set: &str, role: &str| {
            let aot = crate::aot::SETS.iter().find(|s| s.name == set).expect("every catalog set is in the table");
            crate::backend::entry(aot, role).expect("the general kernel of a fixed-size kernel's role")
        };
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut checked = 0;
        for set in SETS {
            for kind in [Fixed::Xts as fn(usize) -> Fixed, Fixed::Ctr, Fixed::Hash] {
                let build = move || -> Kernels<I> {
                    let mut v = Vec::new();
                    for &n in COUNTS {
                        v.extend((set.fixed)(abi, kind(n))?);
                    }
                    Ok(v)
                };
                let functions = build().unwrap();
                if functions.is_empty()
                    || !functions.iter().all(|k| k.function.required.iter().all(|f| crate::cpu::has(f.name())))
                {
                    continue;
                }
                let mut jit = Jit::empty(Vec::new());
                assemble(&mut jit, set.listing, set.name, build).unwrap();
                for k in jit.kernels() {
                    let n: usize = k.name.rsplit_once("_n").unwrap().1.parse().unwrap();
                    let (fixed, general) = (jit.entry(&k.name).unwrap(), general(set.name, &k.role).cast::<u8>());
                    let mut input = vec![0u8; 16 * n];
                    let mut key = [0u8; asmgen_kernels::ghash::KEY_TABLE_BYTES];
                    let mut state = [0u8; 16];
                    rand(&mut seed, &mut input);
                    rand(&mut seed, &mut key);
                    rand(&mut seed, &mut state);
                    let (mut out_f, mut out_g) = (vec![0u8; 16 * n], vec![0u8; 16 * n]);
                    let (mut st_f, mut st_g) = (state, state);
                    // SAFETY: the functions have the C signature of their kind (same description); buffers of
                    // `n` blocks, 16-byte states, round keys (128 bytes) or a key table.
                    unsafe {
                        if k.listing == "ghash" {
                            let (f, g) = (
                                std::mem::transmute::<*const u8, Update>(fixed),
                                std::mem::transmute::<*const u8, Update>(general),
                            );
                            f(st_f.as_mut_ptr(), key.as_ptr(), input.as_ptr(), 0);
                            g(st_g.as_mut_ptr(), key.as_ptr(), input.as_ptr(), n);
                        } else {
                            let (f, g) = (
                                std::mem::transmute::<*const u8, Chain>(fixed),
                                std::mem::transmute::<*const u8, Chain>(general),
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
        if crate::cpu::has("AVX") {
            assert!(checked > 0, "x86_64 sets have fixed-size kernels");
        }
    }

    /// The JIT builds its descriptions without text ([`asmgen::builder::without_text`]): for every set of the
    /// catalog, they lower to the very image (and unwind data) that the descriptions with text lower to, which
    /// tests/tests/jit.rs compares with the assembled listings; and they are shorter (the text was dropped).
    #[test]
    fn every_set_lowers_to_the_same_bytes_without_text() {
        let abi = TARGET.abi;
        for set in SETS {
            let image = |text: bool| {
                let build = || set.build_all(abi).unwrap();
                let kernels = if text { build() } else { asmgen::builder::without_text(build) };
                let functions: Vec<&Function<I>> = kernels.iter().map(|k| &k.function).collect();
                let image = asmgen::lower::lower(&functions).unwrap();
                let mapped = unwind::prepare(&functions, &image).unwrap().bytes.into_owned();
                let items: usize = functions.iter().map(|f| f.body.len()).sum();
                (mapped, image.symbols, image.constants, items)
            };
            let (with, without) = (image(true), image(false));
            assert_eq!(with.0, without.0, "{}: the bytes differ", set.name);
            assert_eq!((&with.1, &with.2), (&without.1, &without.2), "{}", set.name);
            assert!(without.3 < with.3, "{}: no text was dropped", set.name);
        }
    }

    /// On x86_64 the JIT lowers as it builds ([`asmgen::lower::x86_64::Stream`]): for every set of the catalog,
    /// and its fixed-size kernels, the streamed image is the image of the same descriptions built with their
    /// items (which tests/tests/jit.rs compares with the assembled listings), symbols, constants and
    /// instruction count included.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_set_lowers_to_the_same_bytes_streamed() {
        use asmgen::lower::x86_64::Stream;
        let abi = TARGET.abi;
        let mut checked = 0;
        for set in SETS {
            let builds: [&dyn Fn() -> Kernels<I>; 4] = [
                &|| set.build_all(abi),
                &|| (set.fixed)(abi, Fixed::Xts(32)),
                &|| (set.fixed)(abi, Fixed::Ctr(5)),
                &|| (set.fixed)(abi, Fixed::Hash(9)),
            ];
            for build in builds {
                let items = asmgen::builder::without_text(build).unwrap();
                if items.is_empty() {
                    continue;
                }
                let functions: Vec<&Function<I>> = items.iter().map(|k| &k.function).collect();
                let image = asmgen::lower::lower(&functions).unwrap();
                let (streamed, stream) = Stream::build(|| asmgen::builder::without_text(build));
                let streamed = streamed.unwrap();
                let refs: Vec<&Function<I>> = streamed.iter().map(|k| &k.function).collect();
                assert!(refs.iter().all(|f| f.body.is_empty()), "{}: a streamed function kept items", set.name);
                let names = |f: &[&Function<I>]| f.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
                assert_eq!(names(&functions), names(&refs), "{}", set.name);
                let s = stream.lower(&refs).unwrap();
                assert!(image.bytes == s.bytes, "{}: the streamed bytes differ", set.name);
                assert_eq!((&image.symbols, &image.constants), (&s.symbols, &s.constants), "{}", set.name);
                assert_eq!((image.code_len, image.rodata_offset), (s.code_len, s.rodata_offset), "{}", set.name);
                assert_eq!(image.instructions, s.instructions, "{}", set.name);
                checked += 1;
            }
        }
        assert!(checked >= SETS.len(), "every set streamed");
    }

    /// Of an SM4 set that can be built in part (`in_part`: x86_64's), the fused GCM kernels are assembled
    /// beside a GHASH set exactly when that set does not rank above the one they multiply as, and the XTS
    /// kernels never (the unit kernels are deferred); any other set is assembled whole: every pair of sets
    /// this CPU runs.
    #[test]
    fn host_sets_leave_out_the_kernels_the_api_would_not_run() {
        let runs = |name: &str| crate::aot::SETS.iter().find(|s| s.name == name).is_some_and(crate::backend::available);
        let mut checked = 0;
        for ghash in SETS.iter().filter(|s| s.listing == "ghash" && runs(s.name)) {
            for sm4 in SETS.iter().filter(|s| s.fused_ghash.is_some() && runs(s.name)) {
                let jit = host_of(&[ghash.name, sm4.name], Vec::new()).unwrap();
                let has_gcm =
                    jit.entry_of(sm4.name, "gcm_enc").is_some() && jit.entry_of(sm4.name, "gcm_dec").is_some();
                let in_part = sm4.in_part;
                let outranked = crate::backend::outranks(ghash.name, sm4.fused_ghash.unwrap());
                assert_eq!(has_gcm, !(in_part && outranked), "{} beside {}", sm4.name, ghash.name);
                assert!(jit.entry_of(sm4.name, "ctr").is_some(), "{}", sm4.name);
                let whole_block = jit.entry_of(sm4.name, "xts_enc_ieee").is_some();
                assert_eq!(whole_block, !in_part, "{}: whole-block XTS", sm4.name);
                let units = jit.entry_of(sm4.name, "xts_unit_enc_ieee").is_some();
                assert_eq!(units, !in_part, "{}: unit kernels (deferred where built in part)", sm4.name);
                checked += 1;
            }
        }
        eprintln!("{checked} pairs of sets");
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::has_all(&["AES", "PCLMULQDQ", "AVX"]) {
            assert!(checked > 0, "x86_64 runs AES-NI sets with fused GCM kernels");
        }
    }

    /// What the process JIT defers is exactly the unit kernels of the sets it built in part: there, and only
    /// there, `Jit::deferred` holds all four and the process JIT none.
    #[test]
    fn the_deferred_kernels_are_the_unit_kernels_the_process_jit_left_out() {
        let (Ok(process), Ok(deferred)) = (Jit::process(), Jit::deferred()) else {
            panic!("the JIT assembles on every CPU this runtime supports");
        };
        let units: Vec<&str> = Role::all().filter(|r| r.is_xts_unit()).map(Role::name).collect();
        assert_eq!(units.len(), 4, "four unit roles");
        for set in process.sets().iter().filter_map(|s| set_named(s)) {
            let in_part = set.in_part;
            for &role in &units {
                assert!(process.entry_of(set.name, role).is_none() || !in_part, "{}: {role} at startup", set.name);
                assert_eq!(deferred.entry_of(set.name, role).is_some(), in_part, "{}: {role} deferred", set.name);
            }
        }
        assert!(deferred.kernels().iter().all(|k| units.contains(&k.role.as_str())), "only unit kernels deferred");
    }

    /// The JIT builds, for every set of the generated table, the same kernels in the same roles: the table
    /// and the JIT come from the one catalog entry, so rebinding by role gives the JIT's assembly of the very
    /// function the listing links.
    #[test]
    fn every_table_set_is_built_by_the_catalog_with_the_same_roles() {
        let abi = TARGET.abi;
        for table in crate::aot::SETS {
            let set = set_named(table.name).unwrap_or_else(|| panic!("no catalog set {}", table.name));
            assert_eq!(set.listing, table.listing);
            let built: Vec<(&str, String)> =
                set.build_all(abi).unwrap().into_iter().map(|k| (k.role.name(), k.function.name)).collect();
            let linked: Vec<(&str, String)> = table.kernels.iter().map(|k| (k.role, k.symbol.to_string())).collect();
            assert_eq!(built, linked, "{}", table.name);
        }
    }
}
