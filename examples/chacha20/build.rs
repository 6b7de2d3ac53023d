//! Describes the ChaCha20 kernels (`src/kernels.rs`) with asmgen, writes their listings for every target
//! asmgen knows under `$OUT_DIR/listings/<target>/`, and assembles the host target's listing into the crate.
//!
//! Each target folder gets `chacha20.S` (GNU as; `chacha20.asm`, NASM syntax, beside it for x86_64 Windows),
//! the C header `chacha_chacha20.h` and `mod.rs`, the Rust `extern "C"` declarations `src/lib.rs` includes.

#[path = "src/kernels.rs"]
#[allow(dead_code)]
mod kernels;

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(chacha_asm)");
    println!("cargo::rerun-if-changed=src/kernels.rs");
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("listings");
    if let Err(e) = generate(&out) {
        panic!("generating the ChaCha20 listings: {e}");
    }
    println!("cargo::rustc-env=CHACHA20_LISTINGS={}", out.display());

    // The host target's listing, assembled by the target's C compiler (GNU as through gcc; mingw-w64 gcc for
    // x86_64-pc-windows-gnu; the cross gcc for a cross target: the cc crate picks it).
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let Some(target) = asmgen::Target::from_rust(&arch, &os) else { return };
    if target.arch == asmgen::Arch::Riscv64 {
        // No riscv64 kernel: the portable code serves.
        return;
    }
    let dir = out.join(target.dir_name());
    cc::Build::new().file(dir.join("chacha20.S")).compile("chacha20_listing");
    println!("cargo::rustc-cfg=chacha_asm");
    println!("cargo::rustc-env=CHACHA20_DECLARATIONS={}", dir.join("mod.rs").display());
}

/// Writes the listings, headers and declarations of every target under `out`.
///
/// TEMPORARY: a small driver over asmgen's emitters until `asmgen::Generator` (issue 26, item 2) lands;
/// then this function becomes:
///
/// ```ignore
/// asmgen::Generator::new(out)
///     .prefix("chacha")
///     .visibility(asmgen::Visibility::Hidden)
///     .regenerate_command("cargo build")
///     .listing(asmgen::ListingSpec::new("chacha20", "ChaCha20 (RFC 8439)")
///         .source("src/kernels.rs")
///         .x86_64(|abi| Ok(vec![kernels::chacha20_avx2(abi)?]))
///         .aarch64(|abi| Ok(vec![kernels::chacha20_neon(abi)?]))
///         .size("BLOCK_BYTES", 64, "Bytes of a ChaCha20 block."))
///     .generate()?;
/// ```
fn generate(out: &Path) -> Result<(), String> {
    use asmgen::emit::c_header::{HeaderSpec, RoleDoc, SizeMacro};
    use asmgen::emit::gas::Visibility;
    use asmgen::emit::rust::SetTable;
    use asmgen::target::Syntax;
    use asmgen::{Arch, Feature, Function, Isa, Listing, Target};

    const PREFIX: &str = "chacha";
    const SOURCE: &str = "examples/chacha20/src/kernels.rs";
    const TITLE: &str = "ChaCha20 (RFC 8439)";
    const CONTRACT: &str = "out = in ^ ChaCha20 key stream for the floor(len / 64) whole blocks of in; the last\n\
        len % 64 bytes are not read or written: the caller encrypts a partial last block itself (for example\n\
        through a 64-byte buffer, as the Rust wrapper does). key: eight little-endian words; counter[0]: the\n\
        first block's counter, wrapping modulo 2^32; counter[1..4]: the nonce. in and out are equal or do\n\
        not overlap.";

    fn write(path: &Path, text: &str) -> Result<(), String> {
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    }
    /// The listing's text with the example's regeneration command instead of asmgen's own.
    fn retitle(text: String) -> String {
        text.replace(asmgen::emit::gas::REGEN_COMMAND, "cargo build (examples/chacha20/build.rs)")
            .replace(asmgen::emit::gas::CHECK_COMMAND, "cargo test --test listings")
    }
    fn files<I: Isa>(out: &Path, target: Target, functions: Vec<Function<I>>, set: &str) -> Result<(), String> {
        let mut functions = functions;
        for f in &mut functions {
            f.name = format!("{PREFIX}_{}", f.name);
        }
        let features: Vec<&'static str> = functions.iter().flat_map(|f| f.required.iter().map(|x| x.name())).collect();
        let sets: Vec<SetTable> = functions
            .first()
            .map(|f| SetTable {
                name: set.into(),
                listing: "chacha20".into(),
                doc: "ChaCha20, several blocks per iteration".into(),
                features,
                kernels: vec![("chacha20_ctr32", f.name.clone())],
                rival: None,
                fused_ghash: None,
            })
            .into_iter()
            .collect();
        let listing = Listing { name: "chacha20".into(), title: TITLE.into(), functions };
        let dir = out.join(target.dir_name());
        let text = asmgen::emit::gas::listing_with(target, &listing, SOURCE, Visibility::Hidden)
            .map_err(|e| e.to_string())?;
        write(&dir.join("chacha20.S"), &retitle(text))?;
        let spec = HeaderSpec {
            prefix: PREFIX,
            sizes: &[SizeMacro { name: "BLOCK_BYTES", value: kernels::BLOCK_BYTES, doc: "Bytes of a ChaCha20 block." }],
            rules: CONTRACT,
            notes: "",
            roles: &[RoleDoc { name: "chacha20_ctr32", doc: "ChaCha20 on whole blocks (see above)." }],
            sets: &sets,
        };
        let header = asmgen::emit::c_header::header(target, &listing, &spec);
        write(&dir.join(asmgen::emit::c_header::file_name(PREFIX, "chacha20")), &retitle(header))?;
        let decls = asmgen::emit::rust::declarations(target, std::slice::from_ref(&listing), &[]);
        write(&dir.join("mod.rs"), &retitle(decls))?;
        Ok(())
    }

    for target in Target::GENERATED {
        let abi = target.abi;
        let e = |e: asmgen::GenError| e.to_string();
        match (target.arch, target.syntax) {
            (Arch::X86_64, Syntax::Gas) => files(out, target, vec![kernels::chacha20_avx2(abi).map_err(e)?], "x86_64-avx2")?,
            (Arch::X86_64, Syntax::Nasm) => {
                let mut f = kernels::chacha20_avx2(abi).map_err(e)?;
                f.name = format!("{PREFIX}_{}", f.name);
                let listing = Listing { name: "chacha20".into(), title: TITLE.into(), functions: vec![f] };
                let text = asmgen::emit::nasm::listing(target, &listing, SOURCE).map_err(e)?;
                write(&out.join(target.dir_name()).join("chacha20.asm"), &retitle(text))?;
            }
            (Arch::Aarch64, _) => files(out, target, vec![kernels::chacha20_neon(abi).map_err(e)?], "aarch64-neon")?,
            // No riscv64 kernel (see the report in docs/GUIDE.md): the listing holds no function.
            (Arch::Riscv64, _) => files::<asmgen::isa::riscv64::Riscv64>(out, target, Vec::new(), "riscv64")?,
        }
    }
    Ok(())
}
