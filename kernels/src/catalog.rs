//! The catalog: which listings exist for which target, and the kernel sets the runtime dispatches over. It is
//! the only registry of kernel sets: `cargo xtask gen` writes each set's roles, symbols and required features
//! (the union of its functions' required features, never written by hand) into `generated/<target>/mod.rs`,
//! the runtime's listings backends are exactly those sets, and the JIT assembles a set by name and rebinds its
//! kernels by role. A new kernel set is one entry here plus its kernel functions.

use crate::{ghash, sm4, Fixed, Kernels, Role};
use asmgen::emit;
use asmgen::emit::c_header::{RoleDoc, SizeMacro};
use asmgen::emit::rust::SetTable;
use asmgen::isa::aarch64::Aarch64;
use asmgen::isa::riscv64::Riscv64;
use asmgen::isa::x86_64::X86_64;
use asmgen::{Abi, Arch, GenError, Generator, Isa, Listing, ListingSpec, Target};
use std::borrow::Cow;

pub use asmgen::GeneratedFile;

const GHASH_TITLE: &str = "GHASH (NIST SP 800-38D) and POLYVAL (RFC 8452), N-block aggregated reduction";
const SM4_A64_TITLE: &str = "SM4 (GB/T 32907-2016) with the SM4 extension (sm4e, sm4ekey) and with NEON (tbl S-box)";
const SM4_RV_TITLE: &str =
    "SM4 (GB/T 32907-2016) with Zksed (sm4ed, sm4ks) and with Zvksed (vsm4k, vsm4r; XTS with Zvkg)";
const SM4_TITLE: &str =
    "SM4 (GB/T 32907-2016) with AES-NI, VAES or GFNI: key schedule, ECB, CTR, CBC, CFB, CBC-MAC, XTS, GCM, CCM";

fn ghash_listing<I: Isa>(sets: &[&KernelSet<I>], abi: Abi) -> Result<Listing<I>, GenError> {
    let mut functions = Vec::new();
    for set in sets {
        for k in set.build_all(abi)? {
            // A set may run another set's function (the ymm and zmm sets' `init_base`): listed once.
            if !functions.iter().any(|f: &asmgen::Function<I>| f.name == k.function.name) {
                functions.push(k.function);
            }
        }
    }
    Ok(Listing { name: "ghash".into(), title: GHASH_TITLE.into(), functions })
}

/// How the generated files name and export the functions: the checked-in files use [`Naming::CHECKED_IN`]
/// (`asmgen_` symbols, hidden); `cargo xtask gen --out` writes a consumer's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Naming {
    /// The symbol prefix without its `_`, a C identifier: `asmgen_sm4_ecb_avx` becomes `<prefix>_sm4_ecb_avx`,
    /// and the headers are `<prefix>_<listing>.h` with `<PREFIX>_` macros.
    pub prefix: Cow<'static, str>,
    /// The function symbols' visibility.
    pub visibility: emit::gas::Visibility,
}

impl Naming {
    /// The checked-in files' naming.
    pub const CHECKED_IN: Naming =
        Naming { prefix: Cow::Borrowed(SYMBOL_PREFIX), visibility: emit::gas::Visibility::Hidden };
}

/// A kernel's symbol without the `asmgen_` its builder names it with (`asmgen_sm4_ecb_avx`: `sm4_ecb_avx`), to
/// which the generator applies the prefix.
fn bare(name: &str) -> Option<&str> {
    name.strip_prefix(SYMBOL_PREFIX).and_then(|r| r.strip_prefix('_'))
}

/// The kernels' functions renamed [`bare`] (labels too).
fn unprefixed<I: Isa>(mut functions: Vec<asmgen::Function<I>>) -> Vec<asmgen::Function<I>> {
    for f in &mut functions {
        if let Some(rest) = bare(&f.name).map(str::to_string) {
            f.rename(&rest);
        }
    }
    functions
}

/// The kernel sets of `target` as its header and `mod.rs` list them, their symbols [`bare`] (the generator
/// applies the prefix).
fn set_tables(target: Target) -> Result<Vec<SetTable>, GenError> {
    let abi = target.abi;
    let mut tables = match target.arch {
        Arch::X86_64 => X86_64_SETS.iter().map(|s| s.table(abi)).collect::<Result<Vec<_>, _>>()?,
        Arch::Aarch64 => AARCH64_SETS.iter().map(|s| s.table(abi)).collect::<Result<Vec<_>, _>>()?,
        Arch::Riscv64 => RISCV64_SETS.iter().map(|s| s.table(abi)).collect::<Result<Vec<_>, _>>()?,
    };
    for (_, sym) in tables.iter_mut().flat_map(|t| t.kernels.iter_mut()) {
        if let Some(rest) = bare(sym).map(str::to_string) {
            *sym = rest;
        }
    }
    Ok(tables)
}

/// The generator of every listing of the catalog, writing under `out` (`generated/`) with `naming`: `cargo
/// xtask gen` and `check` run it, `gen --out` too, with a consumer's naming. The files are those of
/// [`Target::GENERATED`].
pub fn generator(out: impl Into<std::path::PathBuf>, naming: &Naming) -> Generator {
    let rules = crate::role::C_RULES;
    let listing = |name: &str, title: &str, sizes: &[SizeMacro]| {
        let mut l = ListingSpec::new(name, title).source(&format!("kernels/src/{name}/{{arch}}.rs")).doc(rules);
        for arch in [Arch::X86_64, Arch::Aarch64, Arch::Riscv64] {
            l = l.note(arch, c_notes(arch));
        }
        sizes.iter().fold(l, |l, m| l.size(&m.name, m.value, &m.doc))
    };
    let ghash = listing("ghash", GHASH_TITLE, GHASH_SIZES)
        .x86_64(|abi| Ok(unprefixed(ghash_x86_64(abi)?.functions)))
        .aarch64(|abi| Ok(unprefixed(ghash_listing(&[&AARCH64_SETS[0]], abi)?.functions)))
        .riscv64(|abi| Ok(unprefixed(ghash_riscv64(abi)?.functions)));
    let sm4 = listing("sm4", SM4_TITLE, SM4_SIZES)
        .title_on(Arch::Aarch64, SM4_A64_TITLE)
        .title_on(Arch::Riscv64, SM4_RV_TITLE)
        .x86_64(|abi| Ok(unprefixed(sm4::x86_64::functions(abi)?)))
        .aarch64(|abi| Ok(unprefixed(sm4::aarch64::functions(abi)?)))
        .riscv64(|abi| Ok(unprefixed(sm4::riscv64::functions(abi)?)));
    let roles: Vec<RoleDoc> = Role::all().map(|r| RoleDoc { name: r.name(), doc: r.c_doc() }).collect();
    Generator::new(out)
        .targets(&Target::GENERATED)
        .prefix(&naming.prefix)
        .visibility(naming.visibility)
        .regenerate_command(emit::gas::REGEN_COMMAND)
        .check_command(emit::gas::CHECK_COMMAND)
        .listing(ghash)
        .listing(sm4)
        .kernel_sets(roles, set_tables)
}

/// The symbol prefix of every listing function (`asmgen_sm4_ecb_avx`), without its `_`: the C headers' file
/// names and macro prefix (`ASMGEN_SM4_ROUND_KEYS_BYTES`).
pub const SYMBOL_PREFIX: &str = "asmgen";

/// The size macros of the GHASH listing's header (`ASMGEN_GHASH_<name>`).
const GHASH_SIZES: &[SizeMacro] = &[
    SizeMacro::new("BLOCK_BYTES", 16, "Bytes of a block of data; nblocks counts these."),
    SizeMacro::new("KEY_BYTES", 16, "Bytes of the hash key h that init reads."),
    SizeMacro::new("STATE_BYTES", 16, "Bytes of the running state that update reads and updates."),
    SizeMacro::new(
        "KEY_TABLE_BYTES",
        ghash::KEY_TABLE_BYTES,
        "Bytes of the key table that init writes and update reads.",
    ),
];

/// The size macros of the SM4 listing's header (`ASMGEN_SM4_<name>`).
const SM4_SIZES: &[SizeMacro] = &[
    SizeMacro::new("BLOCK_BYTES", 16, "Bytes of a block; nblocks counts these. IVs, counters, tweaks, MACs too."),
    SizeMacro::new("KEY_BYTES", 16, "Bytes of the key that expand_key reads."),
    SizeMacro::new(
        "ROUND_KEYS_BYTES",
        128,
        "Bytes of one key schedule (rk_enc or rk_dec): 32 little-endian uint32_t round keys.",
    ),
    SizeMacro::new(
        "GCM_STATE_BYTES",
        32,
        "Bytes of gcm_enc's and gcm_dec's state: the counter block, then the GHASH state.",
    ),
    SizeMacro::new(
        "GCM_HTABLE_BYTES",
        ghash::KEY_TABLE_BYTES,
        "Bytes of gcm_enc's and gcm_dec's htable: the GHASH listing's key table.",
    ),
    SizeMacro::new("CCM_CTR_BYTES", 16, "Bytes of the counter that ccm_enc and ccm_dec update."),
    SizeMacro::new("CCM_MAC_BYTES", 16, "Bytes of the CBC-MAC that ccm_enc and ccm_dec update."),
];

/// What each architecture's headers add to the roles' contracts: alignment and the feature names.
fn c_notes(arch: Arch) -> &'static str {
    match arch {
        Arch::X86_64 => {
            "Alignment: none required of any pointer (VEX and general-purpose loads and stores only).\n\
             Features are CPUID's: AES (AES-NI), PCLMULQDQ, AVX, AVX2, VAES, VPCLMULQDQ, GFNI; the AVX ones also\n\
             need the OS to save ymm state, which __builtin_cpu_supports checks."
        }
        Arch::Aarch64 => {
            "Alignment: none required of any pointer (loads and stores of normal memory may be unaligned).\n\
             Features are the extensions as Linux's HWCAPs name them (pmull, sm4); baseline is Advanced SIMD."
        }
        Arch::Riscv64 => {
            "Alignment: the scalar sets (zbc, zksed) need none where the OS completes misaligned loads and stores\n\
             (Linux does, slowly where the core traps). The vector sets (zvkg, zvksed) load and store with\n\
             vle32.v/vse32.v (the zvksed CTR counter with vle64.v), which a core may refuse for misaligned\n\
             elements: give them 4-byte aligned pointers (the CTR counter 8-byte aligned).\n\
             Features are the ISA extensions as riscv_hwprobe names them (v, zbb, zbc, zksed, zvkb, zvkg, zvksed)."
        }
    }
}

/// The x86_64 GHASH/POLYVAL functions: the xmm kernels first, then the ymm ones, then the zmm ones (listing
/// order; the sets are best first).
fn ghash_x86_64(abi: Abi) -> Result<Listing<X86_64>, GenError> {
    ghash_listing(&[&X86_64_SETS[2], &X86_64_SETS[1], &X86_64_SETS[0]], abi)
}

/// The riscv64 GHASH/POLYVAL functions: the scalar kernels first, then the vector ones.
fn ghash_riscv64(abi: Abi) -> Result<Listing<Riscv64>, GenError> {
    ghash_listing(&[&RISCV64_SETS[1], &RISCV64_SETS[0]], abi)
}

/// The x86_64 listings.
pub fn x86_64(target: Target) -> Result<Vec<Listing<X86_64>>, GenError> {
    let abi = target.abi;
    Ok(vec![
        ghash_x86_64(abi)?,
        Listing { name: "sm4".into(), title: SM4_TITLE.into(), functions: sm4::x86_64::functions(abi)? },
    ])
}

/// The aarch64 listings.
pub fn aarch64(target: Target) -> Result<Vec<Listing<Aarch64>>, GenError> {
    let abi = target.abi;
    Ok(vec![
        ghash_listing(&[&AARCH64_SETS[0]], abi)?,
        Listing { name: "sm4".into(), title: SM4_A64_TITLE.into(), functions: sm4::aarch64::functions(abi)? },
    ])
}

/// The riscv64 listings.
pub fn riscv64(target: Target) -> Result<Vec<Listing<Riscv64>>, GenError> {
    let abi = target.abi;
    Ok(vec![
        ghash_riscv64(abi)?,
        Listing { name: "sm4".into(), title: SM4_RV_TITLE.into(), functions: sm4::riscv64::functions(abi)? },
    ])
}

/// Every file under `generated/` for `target`.
pub fn generate(target: Target) -> Result<Vec<GeneratedFile>, GenError> {
    generate_with(target, &Naming::CHECKED_IN)
}

/// The files of `target` named and exported as `naming` says (the checked-in ones with
/// [`Naming::CHECKED_IN`]).
pub fn generate_with(target: Target, naming: &Naming) -> Result<Vec<GeneratedFile>, GenError> {
    generator("generated", naming).files_for(target)
}

/// The ISA report of every function for `target`.
pub fn report(target: Target) -> Result<String, GenError> {
    Ok(match target.arch {
        Arch::X86_64 => asmgen::report::report(&x86_64(target)?),
        Arch::Aarch64 => asmgen::report::report(&aarch64(target)?),
        Arch::Riscv64 => asmgen::report::report(&riscv64(target)?),
    })
}

/// Builds a set's kernels for an ABI: those whose role the predicate accepts where the builder can leave
/// kernels out ([`KernelSet::in_part`]), all of them elsewhere.
pub type Build<I> = fn(Abi, &dyn Fn(Role) -> bool) -> Kernels<I>;

/// A kernel set: the kernels one backend of the runtime runs, by role, built on demand. The listings' backend
/// (`aot/<name>`) links them from the listing; the JIT (`jit/<name>`) builds and assembles them.
pub struct KernelSet<I: Isa> {
    /// The listing its functions belong to (`ghash`, `sm4`).
    pub listing: &'static str,
    /// The runtime backend's name without its `aot/` or `jit/` prefix (`x86_64-gfni-avx2`).
    pub name: &'static str,
    /// What it is, one line (printed above its table in `generated/<target>/mod.rs`).
    pub doc: &'static str,
    /// Builds its kernels for an ABI, those whose role `want` accepts where [`Self::in_part`] ([`Self::build_all`]:
    /// every kernel).
    pub build: Build<I>,
    /// Whether `build` leaves unbuilt the kernels whose role `want` rejects (x86_64's SM4 sets), for the JIT's
    /// host sets, which leave out what the API would not run (fused GCM kernels where a GHASH set ranked above
    /// their `fused_ghash` is assembled too; whole-block XTS kernels beside unit kernels) and defer the unit
    /// kernels; elsewhere `build` builds every kernel whatever `want` says.
    pub in_part: bool,
    /// Builds the fixed-size variants of its kernels (named `<kernel>_n<count>`, same role as the general
    /// kernel); none where the set has no kernel of that kind, or no fixed-size variant of it yet.
    pub fixed: fn(Abi, Fixed) -> Kernels<I>,
    /// A set the JIT times this one against when this one is the best the CPU runs (see
    /// [`SetTable::rival`]).
    pub rival: Option<&'static str>,
    /// SM4 sets with fused GCM kernels: the GHASH set whose multiply those kernels use (see
    /// [`SetTable::fused_ghash`]); `None` elsewhere.
    pub fused_ghash: Option<&'static str>,
}

impl<I: Isa> KernelSet<I> {
    /// Builds every kernel of the set for an ABI.
    pub fn build_all(&self, abi: Abi) -> Kernels<I> {
        (self.build)(abi, &|_| true)
    }

    /// The CPU features its kernels require together: the union of its functions' required features.
    pub fn features(&self, abi: Abi) -> Result<asmgen::FeatureSet<I::Feature>, GenError> {
        Ok(self.build_all(abi)?.iter().fold(asmgen::FeatureSet::empty(), |u, k| u.union(k.function.required)))
    }

    /// Its row of the runtime's set table.
    pub fn table(&self, abi: Abi) -> Result<SetTable, GenError> {
        use asmgen::Feature;
        let kernels = self.build_all(abi)?;
        let required = kernels.iter().fold(asmgen::FeatureSet::empty(), |u, k| u.union(k.function.required));
        Ok(SetTable {
            name: self.name.into(),
            listing: self.listing.into(),
            doc: self.doc.into(),
            features: required.iter().map(|f| f.name()).collect(),
            kernels: kernels.iter().map(|k| (k.role.name(), k.function.name.clone())).collect(),
            rival: self.rival.map(String::from),
            fused_ghash: self.fused_ghash.map(String::from),
        })
    }
}

/// The SM4 roles every set has (the others may be missing: the runtime then composes the mode).
pub const SM4_REQUIRED: &[Role] =
    &[Role::ExpandKey, Role::Ecb, Role::Ctr, Role::CbcEnc, Role::CbcDec, Role::CfbEnc, Role::CfbDec, Role::CbcMac];

/// The x86_64 kernel sets, best first within each listing.
pub const X86_64_SETS: &[KernelSet<X86_64>] = {
    use sm4::x86_64::{fixed_functions as fixed, set_functions_only as set_only, Set};
    &[
        KernelSet {
            listing: "ghash",
            name: "x86_64-vpclmul-avx512",
            doc: "GHASH and POLYVAL with VPCLMULQDQ on zmm (AVX-512), four blocks per multiply, 64 per reduction.",
            build: |abi, _| {
                ghash::with_small(
                    ghash::ext_set_kernels(abi, ghash::x86_64_avx512::init, ghash::x86_64_avx512::update, ghash::x86_64::init),
                    abi,
                    ghash::x86_64::init_small,
                )
            },
            in_part: false,
            fixed: |abi, f| ghash::set_fixed_kernels(abi, f, ghash::x86_64_avx512::update_of),
            rival: None,
            fused_ghash: None,
        },
        KernelSet {
            listing: "ghash",
            name: "x86_64-vpclmul-avx2",
            doc: "GHASH and POLYVAL with VPCLMULQDQ on ymm (AVX2), two blocks per multiply, eight per reduction.",
            build: |abi, _| {
                ghash::with_small(
                    ghash::ext_set_kernels(abi, ghash::x86_64_vpclmul::init, ghash::x86_64_vpclmul::update, ghash::x86_64::init),
                    abi,
                    ghash::x86_64::init_small,
                )
            },
            in_part: false,
            fixed: |abi, f| ghash::set_fixed_kernels(abi, f, ghash::x86_64_vpclmul::update_of),
            rival: None,
            fused_ghash: None,
        },
        KernelSet {
            listing: "ghash",
            name: "x86_64-pclmulqdq-avx",
            doc: "GHASH and POLYVAL with PCLMULQDQ and AVX, eight blocks per reduction.",
            build: |abi, _| {
                ghash::with_small(ghash::set_kernels(abi, ghash::x86_64::init, ghash::x86_64::update), abi, ghash::x86_64::init_small)
            },
            in_part: false,
            fixed: |abi, f| ghash::set_fixed_kernels(abi, f, ghash::x86_64::update_of),
            rival: None,
            fused_ghash: None,
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-gfni-avx512",
            doc: "GFNI + AVX-512: the batch modes, XTS and GCM on zmm (vprold, vpternlogq; XTS tweaks and GHASH by vpclmulqdq), 48 blocks in flight; the rest is the GFNI + AVX2 set's.",
            build: |abi, want| set_only(Set::GfniAvx512, abi, want),
            in_part: true,
            fixed: |abi, f| fixed(Set::GfniAvx512, abi, f),
            rival: None,
            fused_ghash: Some("x86_64-vpclmul-avx512"),
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-vaes-avx512",
            doc: "VAES + AVX-512: the batch modes and XTS on zmm (vaesenclast, vprold, vpternlogq; XTS tweaks by vpclmulqdq), 48 blocks in flight; the rest is the VAES + AVX2 set's. No fused GCM kernel: GCM is ctr and the zmm GHASH kernels over a few KiB at a time, faster than the ymm fused kernel.",
            build: |abi, want| set_only(Set::VaesAvx512, abi, want),
            in_part: true,
            fixed: |abi, f| fixed(Set::VaesAvx512, abi, f),
            rival: None,
            fused_ghash: None,
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-gfni-avx2",
            doc: "GFNI + AVX2: the S-box in two affine instructions, 16 blocks in flight; every mode has its kernel.",
            build: |abi, want| set_only(Set::Gfni, abi, want),
            in_part: true,
            fixed: |abi, f| fixed(Set::Gfni, abi, f),
            rival: None,
            fused_ghash: Some("x86_64-pclmulqdq-avx"),
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-vaes-avx2",
            doc: "VAES + AVX2: vaesenclast on whole ymm registers for the parallel modes; serial modes and the key schedule are AVX.",
            build: |abi, want| set_only(Set::Vaes, abi, want),
            in_part: true,
            fixed: |abi, f| fixed(Set::Vaes, abi, f),
            rival: None,
            fused_ghash: Some("x86_64-pclmulqdq-avx"),
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-aesni-avx2",
            doc: "AES-NI + AVX2: eight blocks per ymm register for the parallel modes; serial modes and the key schedule are AVX.",
            build: |abi, want| set_only(Set::Avx2, abi, want),
            in_part: true,
            fixed: |abi, f| fixed(Set::Avx2, abi, f),
            // Without VAES a ymm AES round is two xmm rounds; on CPUs that split 256-bit operations (Zen 1) the
            // xmm kernels may be faster, so the JIT measures.
            rival: Some("x86_64-aesni-avx"),
            fused_ghash: Some("x86_64-pclmulqdq-avx"),
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-aesni-avx",
            doc: "AES-NI + AVX: four blocks per xmm register, every mode.",
            build: |abi, want| set_only(Set::Avx, abi, want),
            in_part: true,
            fixed: |abi, f| fixed(Set::Avx, abi, f),
            rival: None,
            fused_ghash: Some("x86_64-pclmulqdq-avx"),
        },
    ]
};

/// The aarch64 kernel sets, best first within each listing.
pub const AARCH64_SETS: &[KernelSet<Aarch64>] = &[
    KernelSet {
        listing: "ghash",
        name: "aarch64-pmull",
        doc: "GHASH and POLYVAL with PMULL/PMULL2, eight blocks per reduction.",
        build: |abi, _| ghash::set_kernels(abi, ghash::aarch64::init, ghash::aarch64::update),
        in_part: false,
        fixed: |abi, f| ghash::set_fixed_kernels(abi, f, ghash::aarch64::update_of),
        rival: None,
        fused_ghash: None,
    },
    KernelSet {
        listing: "sm4",
        name: "aarch64-sm4ce",
        doc: "The SM4 extension (sm4e, sm4ekey), eight blocks in flight; XTS, GCM fused with PMULL, CCM in one pass.",
        build: |abi, _| sm4::aarch64::ce_functions(abi),
        in_part: false,
        fixed: sm4::aarch64::ce_fixed_functions,
        rival: None,
        fused_ghash: Some("aarch64-pmull"),
    },
    KernelSet {
        listing: "sm4",
        name: "aarch64-neon",
        doc: "Advanced SIMD (tbl/tbx S-box), eight blocks in flight; XTS, GCM and CCM composed by the runtime.",
        build: |abi, _| sm4::aarch64::neon::functions(abi),
        in_part: false,
        fixed: sm4::aarch64::neon::fixed_functions,
        rival: None,
        fused_ghash: None,
    },
];

/// The riscv64 kernel sets, best first within each listing.
pub const RISCV64_SETS: &[KernelSet<Riscv64>] = &[
    KernelSet {
        listing: "ghash",
        name: "riscv64-zvkg",
        doc: "GHASH and POLYVAL with Zvkg (vghsh, vgmul), VLEN-agnostic.",
        build: |abi, _| ghash::set_kernels(abi, ghash::riscv64_zvkg::init, ghash::riscv64_zvkg::update),
        in_part: false,
        fixed: |abi, f| ghash::set_fixed_kernels(abi, f, ghash::riscv64_zvkg::update_of),
        rival: None,
        fused_ghash: None,
    },
    KernelSet {
        listing: "ghash",
        name: "riscv64-zbb-zbc",
        doc: "GHASH and POLYVAL with scalar carry-less multiplies (Zbc) and Zbb, eight blocks per reduction.",
        build: |abi, _| ghash::set_kernels(abi, ghash::riscv64::init, ghash::riscv64::update),
        in_part: false,
        fixed: |abi, f| ghash::set_fixed_kernels(abi, f, ghash::riscv64::update_of),
        rival: None,
        fused_ghash: None,
    },
    KernelSet {
        listing: "sm4",
        name: "riscv64-zvksed",
        doc: "Vector crypto (Zvksed, Zvkb; XTS tweaks with Zvkg), VLEN-agnostic; GCM and CCM composed by the runtime.",
        build: |abi, _| sm4::riscv64::zvksed::functions(abi),
        in_part: false,
        fixed: sm4::riscv64::zvksed::fixed_functions,
        rival: None,
        fused_ghash: None,
    },
    KernelSet {
        listing: "sm4",
        name: "riscv64-zksed",
        doc: "Scalar Zksed, four blocks interleaved; XTS, GCM and CCM composed by the runtime.",
        build: |abi, _| sm4::riscv64::functions_zksed(abi),
        in_part: false,
        fixed: sm4::riscv64::fixed_functions_zksed,
        rival: None,
        fused_ghash: None,
    },
];

/// Every generated file of every target in [`Target::GENERATED`].
pub fn generate_all() -> Result<Vec<GeneratedFile>, GenError> {
    generator("generated", &Naming::CHECKED_IN).files()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeSet, HashMap};

    /// Checks every set of one architecture against its target's listings: each kernel has its role's C
    /// signature (parameter names and types), is the listing's function of that name item for item, and no role appears twice in a set;
    /// every SM4 set has the roles every set has; every listing function is some set's kernel.
    fn check<I: Isa>(target: Target, listings: Vec<Listing<I>>, sets: &[KernelSet<I>]) {
        let abi = target.abi;
        let listed: HashMap<String, asmgen::Function<I>> =
            listings.into_iter().flat_map(|l| l.functions).map(|f| (f.name.clone(), f)).collect();
        let mut in_sets = BTreeSet::new();
        for set in sets {
            let kernels = set.build_all(abi).unwrap();
            let mut roles = BTreeSet::new();
            for k in &kernels {
                let f = &k.function;
                assert!(roles.insert(k.role), "{}: role {} twice", set.name, k.role.name());
                let params: Vec<_> = f.signature.params.iter().map(|p| (p.name, p.ty)).collect();
                assert_eq!(params, k.role.params(), "{}: {} signature", set.name, f.name);
                let l = listed.get(&f.name).unwrap_or_else(|| panic!("{}: {} is in no listing", set.name, f.name));
                let text = |f: &asmgen::Function<I>| -> Vec<String> {
                    f.insts().map(|i| format!("{:?} {:?}", i.op, i.operands)).collect()
                };
                assert_eq!(text(l), text(f), "{}: {} differs from the listing's", set.name, f.name);
                in_sets.insert(f.name.clone());
            }
            for fixed in [Fixed::Xts(3), Fixed::Ctr(3), Fixed::Hash(3)] {
                for k in (set.fixed)(abi, fixed).unwrap() {
                    let params: Vec<_> = k.function.signature.params.iter().map(|p| (p.name, p.ty)).collect();
                    assert_eq!(params, k.role.params(), "{}: {} signature", set.name, k.function.name);
                }
            }
            if set.listing == "sm4" {
                for r in SM4_REQUIRED {
                    assert!(roles.contains(r), "{} lacks {}", set.name, r.name());
                }
            }
            if let Some(r) = set.rival {
                assert!(sets.iter().any(|s| s.name == r && s.listing == set.listing), "{}: rival {r}", set.name);
            }
            // Building only some roles builds exactly those, the same functions in the same order.
            if set.in_part {
                let only = set.build;
                let names = |v: Vec<crate::role::Kernel<I>>| -> Vec<String> {
                    v.into_iter().map(|k| format!("{} {}", k.role.name(), k.function.name)).collect()
                };
                let all = names(set.build_all(abi).unwrap());
                let some = names(only(abi, &|r| !r.is_fused_gcm() && r != Role::Ecb && r != Role::XtsDecGb).unwrap());
                let want: Vec<String> = all
                    .iter()
                    .filter(|k| !k.starts_with("gcm_") && !k.starts_with("ecb ") && !k.starts_with("xts_dec_gb "))
                    .cloned()
                    .collect();
                assert_eq!(some, want, "{}: built without fused GCM, ECB and one XTS kernel", set.name);
                // The JIT leaves whole-block XTS kernels out beside unit kernels: every such set has both.
                let xts = |unit: bool| {
                    all.iter().filter(|k| k.starts_with("xts_") && k.starts_with("xts_unit_") == unit).count()
                };
                assert_eq!(xts(false), xts(true), "{}: as many unit kernels as whole-block XTS kernels", set.name);
            }
            // A set with fused GCM kernels names the GHASH set they multiply as (the runtime's choice between
            // fused and composed GCM rests on it), and only such a set names one.
            let fused = roles.iter().any(|r| r.is_fused_gcm());
            assert_eq!(fused, set.fused_ghash.is_some(), "{}: fused GCM kernels and fused_ghash", set.name);
            if let Some(g) = set.fused_ghash {
                assert!(sets.iter().any(|s| s.name == g && s.listing == "ghash"), "{}: fused_ghash {g}", set.name);
            }
        }
        let unlinked: Vec<&String> = listed.keys().filter(|n| !in_sets.contains(*n)).collect();
        assert!(unlinked.is_empty(), "{target}: listing functions no kernel set has: {unlinked:?}");
    }

    #[test]
    fn every_set_matches_its_listings_and_roles() {
        check(Target::X86_64_LINUX, x86_64(Target::X86_64_LINUX).unwrap(), X86_64_SETS);
        check(Target::X86_64_WINDOWS, x86_64(Target::X86_64_WINDOWS).unwrap(), X86_64_SETS);
        check(Target::AARCH64_LINUX, aarch64(Target::AARCH64_LINUX).unwrap(), AARCH64_SETS);
        check(Target::RISCV64_LINUX, riscv64(Target::RISCV64_LINUX).unwrap(), RISCV64_SETS);
        // macOS and Windows on Arm: the same kernels under the other rows' ABIs (Apple AAPCS64 and Windows ARM64
        // reserve x18: every aarch64 kernel, general and fixed-size, builds without it).
        check(Target::X86_64_MACOS, x86_64(Target::X86_64_MACOS).unwrap(), X86_64_SETS);
        check(Target::AARCH64_MACOS, aarch64(Target::AARCH64_MACOS).unwrap(), AARCH64_SETS);
        check(Target::AARCH64_WINDOWS, aarch64(Target::AARCH64_WINDOWS).unwrap(), AARCH64_SETS);
    }

    /// A set's features are the union of its kernels' required features: the GFNI set needs what its GCM
    /// (PCLMULQDQ) and XTS (VPCLMULQDQ) kernels need, not only its S-box's GFNI; no AES, since its key schedule
    /// is its own (GFNI) too.
    #[test]
    fn set_features_are_derived() {
        use asmgen::Feature;
        let gfni = X86_64_SETS.iter().find(|s| s.name == "x86_64-gfni-avx2").unwrap();
        let names: Vec<&str> = gfni.features(Abi::SysV).unwrap().iter().map(|f| f.name()).collect();
        assert_eq!(names, ["PCLMULQDQ", "AVX", "AVX2", "VPCLMULQDQ", "GFNI"]);
    }
}
