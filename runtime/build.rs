//! Assembles the host target's checked-in listings (`generated/<target>/*.S`) with the target's C compiler
//! (GNU as through gcc; the cross gcc for cross targets, x86_64-w64-mingw32-gcc for x86_64-pc-windows-gnu, which
//! the cc crate picks itself) and links them into the crate. The Rust declarations
//! of their functions are generated too (`generated/<target>/mod.rs`) and included by `src/aot.rs`.
//!
//! `generated` is read beside this file: in the repository a symlink to the top-level `generated/`, in the
//! packaged crate the copy `cargo package` made of the folders it links.
//!
//! Targets without listings build the portable backend only. `ASMGEN_NO_ASM=1` forces that.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(asmgen_aot)");
    println!("cargo::rerun-if-env-changed=ASMGEN_NO_ASM");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if std::env::var_os("ASMGEN_NO_ASM").is_some() {
        return;
    }
    // `generated/<arch>-<os>/` (asmgen's `Target::dir_name`: Rust's target_arch and target_os spellings); a
    // target without that folder has no listings.
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut generated = manifest.join("generated");
    // A checkout without symlinks (git on Windows without `core.symlinks`) has a file holding the link's text.
    if !generated.is_dir() {
        generated = manifest.join("..").join("generated");
    }
    println!("cargo::rerun-if-changed={}", generated.display());
    let listings = generated.join(format!("{arch}-{os}"));
    if !listings.is_dir() {
        return;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&listings)
        .unwrap_or_else(|e| panic!("{}: {e}", listings.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "S"))
        .collect();
    files.sort();
    for f in &files {
        println!("cargo::rerun-if-changed={}", f.display());
    }
    cc::Build::new().files(&files).compile("asmgen_listings");
    println!("cargo::rustc-cfg=asmgen_aot");
    let canonical = listings.canonicalize().expect("listings directory exists");
    println!("cargo::rustc-env=ASMGEN_LISTINGS_DIR={}", canonical.display());
}
