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
