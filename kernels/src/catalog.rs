//! The catalog: which listings exist for which target. `cargo xtask gen` writes exactly these files and the
//! runtime links exactly these functions (through the generated declarations).

use crate::{ghash, sm4, Fixed};
use asmgen::emit;
use asmgen::isa::aarch64::Aarch64;
use asmgen::isa::riscv64::Riscv64;
use asmgen::isa::x86_64::X86_64;
use asmgen::{Abi, Arch, GenError, Isa, Listing, Target};

/// A file under `generated/<target>/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path relative to `generated/`, e.g. `x86_64-linux/ghash.S`.
    pub path: String,
    /// Contents.
    pub contents: String,
}

const GHASH_TITLE: &str = "GHASH (NIST SP 800-38D) and POLYVAL (RFC 8452), N-block aggregated reduction";
const SM4_A64_TITLE: &str = "SM4 (GB/T 32907-2016) with the SM4 extension (sm4e, sm4ekey) and with NEON (tbl S-box)";
const SM4_TITLE: &str =
    "SM4 (GB/T 32907-2016) with AES-NI, VAES or GFNI: key schedule, ECB, CTR, CBC, CFB, CBC-MAC, XTS, GCM, CCM";

fn ghash_listing<I: Isa>(functions: Vec<asmgen::Function<I>>) -> Listing<I> {
    Listing { name: "ghash".into(), title: GHASH_TITLE.into(), functions }
}

fn render<I: Isa>(target: Target, listings: Vec<(Listing<I>, String)>) -> Result<Vec<GeneratedFile>, GenError> {
    let dir = target.dir_name();
    let mut files = Vec::new();
    for (l, source) in &listings {
        files.push(GeneratedFile { path: format!("{dir}/{}.S", l.name), contents: emit::listing(target, l, source)? });
    }
    let ls: Vec<Listing<I>> = listings.into_iter().map(|(l, _)| l).collect();
    files.push(GeneratedFile { path: format!("{dir}/mod.rs"), contents: emit::rust::declarations(target, &ls) });
    Ok(files)
}

/// The kernel source a listing is generated from: `kernels/src/<listing>/<arch>.rs`.
fn source(listing: &str, arch: &str) -> String {
    format!("kernels/src/{listing}/{arch}.rs")
}

/// The x86_64 listings.
pub fn x86_64(target: Target) -> Result<Vec<Listing<X86_64>>, GenError> {
    let abi = target.abi;
    Ok(vec![
        ghash_listing(ghash::x86_64::functions(abi)?),
        Listing { name: "sm4".into(), title: SM4_TITLE.into(), functions: sm4::x86_64::functions(abi)? },
    ])
}

/// The aarch64 listings.
pub fn aarch64(target: Target) -> Result<Vec<Listing<Aarch64>>, GenError> {
    let abi = target.abi;
    Ok(vec![
        ghash_listing(ghash::aarch64::functions(abi)?),
        Listing { name: "sm4".into(), title: SM4_A64_TITLE.into(), functions: sm4::aarch64::functions(abi)? },
    ])
}

/// The riscv64 listings.
pub fn riscv64(target: Target) -> Result<Vec<Listing<Riscv64>>, GenError> {
    let abi = target.abi;
    let mut ghash = ghash::riscv64::functions(abi)?;
    ghash.extend(ghash::riscv64_zvkg::functions(abi)?);
    let sm4_title = "SM4 (GB/T 32907-2016) with Zksed (sm4ed, sm4ks) and with Zvksed (vsm4k, vsm4r; XTS with Zvkg)";
    Ok(vec![
        ghash_listing(ghash),
        Listing { name: "sm4".into(), title: sm4_title.into(), functions: sm4::riscv64::functions(abi)? },
    ])
}

fn with_sources<I: Isa>(ls: Vec<Listing<I>>, arch: &str) -> Vec<(Listing<I>, String)> {
    ls.into_iter()
        .map(|l| {
            let s = source(&l.name, arch);
            (l, s)
        })
        .collect()
}

/// Every file under `generated/` for `target`.
pub fn generate(target: Target) -> Result<Vec<GeneratedFile>, GenError> {
    match target.arch {
        Arch::X86_64 => render(target, with_sources(x86_64(target)?, "x86_64")),
        Arch::Aarch64 => render(target, with_sources(aarch64(target)?, "aarch64")),
        Arch::Riscv64 => render(target, with_sources(riscv64(target)?, "riscv64")),
    }
}

/// The ISA report of every function for `target`.
pub fn report(target: Target) -> Result<String, GenError> {
    Ok(match target.arch {
        Arch::X86_64 => asmgen::report::report(&x86_64(target)?),
        Arch::Aarch64 => asmgen::report::report(&aarch64(target)?),
        Arch::Riscv64 => asmgen::report::report(&riscv64(target)?),
    })
}

/// A kernel set: the functions one backend of the runtime links, built on demand. The JIT builds the sets this
/// CPU gets instead of whole listings; the runtime maps each function to its set's fields by name.
pub struct KernelSet<I: Isa> {
    /// The listing its functions belong to (`ghash`, `sm4`).
    pub listing: &'static str,
    /// The runtime backend's name without its `aot/` or `jit/` prefix (`x86_64-gfni-avx2`).
    pub name: &'static str,
    /// Builds its functions for an ABI.
    pub build: fn(Abi) -> Functions<I>,
    /// Builds the fixed-size variants of its kernels (named `<kernel>_n<count>`); none where the set has no
    /// kernel of that kind, or no fixed-size variant of it yet.
    pub fixed: fn(Abi, Fixed) -> Functions<I>,
}

/// What a kernel description builds: functions, or why it could not.
pub type Functions<I> = Result<Vec<asmgen::Function<I>>, GenError>;

/// The x86_64 kernel sets.
pub const X86_64_SETS: &[KernelSet<X86_64>] = {
    use sm4::x86_64::{fixed_functions as fixed, set_functions as set, Set};
    &[
        KernelSet {
            listing: "ghash",
            name: "x86_64-pclmulqdq-avx",
            build: ghash::x86_64::functions,
            fixed: ghash::x86_64::fixed_functions,
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-gfni-avx2",
            build: |abi| set(Set::Gfni, abi),
            fixed: |abi, f| fixed(Set::Gfni, abi, f),
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-vaes-avx2",
            build: |abi| set(Set::Vaes, abi),
            fixed: |abi, f| fixed(Set::Vaes, abi, f),
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-aesni-avx2",
            build: |abi| set(Set::Avx2, abi),
            fixed: |abi, f| fixed(Set::Avx2, abi, f),
        },
        KernelSet {
            listing: "sm4",
            name: "x86_64-aesni-avx",
            build: |abi| set(Set::Avx, abi),
            fixed: |abi, f| fixed(Set::Avx, abi, f),
        },
    ]
};

/// The aarch64 kernel sets.
pub const AARCH64_SETS: &[KernelSet<Aarch64>] = &[
    KernelSet {
        listing: "ghash",
        name: "aarch64-pmull",
        build: ghash::aarch64::functions,
        fixed: ghash::aarch64::fixed_functions,
    },
    KernelSet {
        listing: "sm4",
        name: "aarch64-sm4ce",
        build: sm4::aarch64::ce_functions,
        fixed: sm4::aarch64::ce_fixed_functions,
    },
    KernelSet {
        listing: "sm4",
        name: "aarch64-neon",
        build: sm4::aarch64::neon::functions,
        fixed: sm4::aarch64::neon::fixed_functions,
    },
];

/// The riscv64 kernel sets.
pub const RISCV64_SETS: &[KernelSet<Riscv64>] = &[
    KernelSet {
        listing: "ghash",
        name: "riscv64-zvkg",
        build: ghash::riscv64_zvkg::functions,
        fixed: ghash::riscv64_zvkg::fixed_functions,
    },
    KernelSet {
        listing: "ghash",
        name: "riscv64-zbb-zbc",
        build: ghash::riscv64::functions,
        fixed: ghash::riscv64::fixed_functions,
    },
    KernelSet {
        listing: "sm4",
        name: "riscv64-zvksed",
        build: sm4::riscv64::zvksed::functions,
        fixed: sm4::riscv64::zvksed::fixed_functions,
    },
    KernelSet {
        listing: "sm4",
        name: "riscv64-zksed",
        build: sm4::riscv64::functions_zksed,
        fixed: sm4::riscv64::fixed_functions_zksed,
    },
];

/// Every generated file of every target in [`Target::GENERATED`].
pub fn generate_all() -> Result<Vec<GeneratedFile>, GenError> {
    let mut v = Vec::new();
    for t in Target::GENERATED {
        v.extend(generate(t)?);
    }
    Ok(v)
}
