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
    if let Err(e) = generator(&out).generate() {
        panic!("generating the ChaCha20 listings: {e}");
    }
    println!("cargo::rustc-env=CHACHA20_LISTINGS={}", out.display());

    // The host target's listing, assembled by the target's C compiler (GNU as through gcc; mingw-w64 gcc for
    // x86_64-pc-windows-gnu; the cross gcc for a cross target: the cc crate picks it).
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let Some(target) = asmgen::Target::from_rust(&arch, &os) else { return };
    let dir = out.join(target.dir_name());
    cc::Build::new().file(dir.join("chacha20.S")).compile("chacha20_listing");
    println!("cargo::rustc-cfg=chacha_asm");
    println!("cargo::rustc-env=CHACHA20_DECLARATIONS={}", dir.join("mod.rs").display());
}

/// What the build writes: one listing, `chacha20`, with a kernel per architecture, its functions named
/// `chacha_<kernel>` and hidden (`.hidden`/`.private_extern`: not exported from a shared library).
fn generator(out: &Path) -> asmgen::Generator {
    asmgen::Generator::new(out)
        .prefix("chacha")
        .visibility(asmgen::Visibility::Hidden)
        .regenerate_command("cargo build (examples/chacha20/build.rs)")
        .listing(
            asmgen::ListingSpec::new("chacha20", "ChaCha20 (RFC 8439)")
                .source("examples/chacha20/src/kernels.rs")
                .doc(kernels::CONTRACT)
                .x86_64(|abi| Ok(vec![kernels::chacha20_avx2(abi)?]))
                .aarch64(|abi| Ok(vec![kernels::chacha20_neon(abi)?]))
                .riscv64(|abi| Ok(vec![kernels::chacha20_rv64(abi)?]))
                .size("BLOCK_BYTES", kernels::BLOCK_BYTES, "Bytes of a ChaCha20 block."),
        )
}
