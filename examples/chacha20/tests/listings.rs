//! The build wrote a listing for every target asmgen generates (the GNU as ones and the NASM one), with its C
//! header and Rust declarations, and each names the kernel of its architecture.

use asmgen::target::Syntax;
use asmgen::{Arch, Target};
use std::path::Path;

#[test]
fn the_build_wrote_every_targets_listing() {
    let root = Path::new(env!("CHACHA20_LISTINGS"));
    assert_eq!(Target::GENERATED.len(), 8);
    for t in Target::GENERATED {
        let dir = root.join(t.dir_name());
        let listing = dir.join(format!("chacha20.{}", t.syntax.extension()));
        let text = std::fs::read_to_string(&listing).unwrap_or_else(|e| panic!("{}: {e}", listing.display()));
        let kernel = match t.arch {
            Arch::X86_64 => "chacha_chacha20_avx2",
            Arch::Aarch64 => "chacha_chacha20_neon",
            Arch::Riscv64 => "chacha_chacha20_rv64",
        };
        assert!(text.contains(&format!("{kernel}:")), "{}: no {kernel}", listing.display());
        if t.syntax == Syntax::Gas {
            for f in ["chacha_chacha20.h", "mod.rs"] {
                assert!(dir.join(f).is_file(), "{}/{f} is missing", dir.display());
            }
        }
    }
}

/// Every listing assembles with a second assembler: llvm-mc-19 for each GNU as flavour (the target's own
/// object format and triple; the host's listing was assembled by gcc in the build), nasm for the NASM one.
/// Host tools: run on an x86_64 Linux host only (not from under qemu-user or wine). Without the tools the
/// test passes with a notice, unless `CI` is set.
#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn every_listing_assembles_with_llvm_mc_and_nasm() {
    use std::process::Command;
    let root = Path::new(env!("CHACHA20_LISTINGS"));
    let tmp = std::env::temp_dir().join(format!("chacha20-listings-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for t in Target::GENERATED {
        let src = root.join(t.dir_name()).join(format!("chacha20.{}", t.syntax.extension()));
        let obj = tmp.join(format!("{}-{:?}.o", t.dir_name(), t.syntax));
        let (tool, args): (&str, Vec<String>) = match t.syntax {
            Syntax::Nasm => ("nasm", vec!["-f".into(), "win64".into(), "-o".into(), obj.display().to_string()]),
            Syntax::Gas => {
                let triple = match t.dir_name().as_str() {
                    "x86_64-linux" => "x86_64-linux-gnu",
                    "x86_64-macos" => "x86_64-apple-macos",
                    "x86_64-windows" => "x86_64-windows-gnu",
                    "aarch64-linux" => "aarch64-linux-gnu",
                    "aarch64-macos" => "arm64-apple-macos",
                    "aarch64-windows" => "aarch64-windows-msvc",
                    "riscv64-linux" => "riscv64-linux-gnu",
                    other => panic!("no triple for {other}"),
                };
                let args =
                    [format!("-triple={triple}"), "-filetype=obj".into(), "-o".into(), obj.display().to_string()];
                ("llvm-mc-19", args.to_vec())
            }
        };
        let out = match Command::new(tool).args(&args).arg(&src).output() {
            Ok(out) => out,
            Err(e) if std::env::var_os("CI").is_none() => {
                println!("skipped: {tool}: {e}");
                return;
            }
            Err(e) => panic!("{tool}: {e}"),
        };
        assert!(
            out.status.success() && obj.is_file(),
            "{tool} {}: {}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
