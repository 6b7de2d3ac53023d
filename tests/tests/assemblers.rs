//! Every aarch64 and riscv64 listing assembles to the same code with GNU as 2.40 and llvm-mc-19. The riscv64
//! listings carry the vector crypto instructions GNU as lacks as raw `.insn` words with the mnemonic in a
//! comment: llvm-mc assembles a copy in which each raw word is replaced by that mnemonic, so a wrong raw word
//! (or a wrong comment) fails here, over whole listings, not only entry by entry as
//! `gen/tests/riscv64_table.rs` checks.
//!
//! Runs on an x86_64 host with the cross binutils and llvm-19 (`bash .ci/install-deps`); elsewhere it prints a
//! notice and passes; without the tools it does too, unless `CI` is set, when it fails. The code compared is
//! every function's section in the listing's order (`asmgen_tests::sections`). GNU as pads the end of a riscv64
//! section to its alignment with `nop`s, which the comparison allows after the last function.

use std::path::Path;
use std::process::Command;

use asmgen_tests::run;

fn text(arch: &Arch, obj: &Path) -> Vec<u8> {
    asmgen_tests::sections::code(arch.objdump, arch.objcopy, obj)
}

struct Arch {
    dir: &'static str,
    gas: &'static [&'static str],
    mc: &'static [&'static str],
    objcopy: &'static str,
    objdump: &'static str,
    /// The padding word GNU as may append.
    nop: [u8; 4],
}

const AARCH64: Arch = Arch {
    dir: "aarch64-linux",
    gas: &["aarch64-linux-gnu-as"],
    mc: &["llvm-mc-19", "-triple=aarch64", "-mattr=+sm4,+sha3,+aes", "-filetype=obj"],
    objcopy: "aarch64-linux-gnu-objcopy",
    objdump: "aarch64-linux-gnu-objdump",
    nop: [0x1f, 0x20, 0x03, 0xd5],
};

const RISCV64: Arch = Arch {
    dir: "riscv64-linux",
    gas: &["riscv64-linux-gnu-as", "-march=rv64g", "-mno-relax"],
    mc: &[
        "llvm-mc-19",
        "-triple=riscv64",
        "-mattr=+zbb,+zbc,+zbkb,+zksed,+v,+zvkb,+zvksed,+zvkg,+zvbb,+zvbc,-relax",
        "-filetype=obj",
    ],
    objcopy: "riscv64-linux-gnu-objcopy",
    objdump: "riscv64-linux-gnu-objdump",
    nop: [0x13, 0x00, 0x00, 0x00],
};

/// The listing with every `.insn 0x...  # mnemonic operands` line replaced by `mnemonic operands`.
fn raw_words_as_mnemonics(listing: &str) -> String {
    let mut out = String::new();
    for line in listing.lines() {
        match line.trim_start().strip_prefix(".insn") {
            Some(rest) => {
                let (_, mnemonic) = rest.split_once('#').expect("a raw word carries its mnemonic in a comment");
                out.push('\t');
                out.push_str(mnemonic.trim());
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

fn check(arch: &Arch) {
    if !cfg!(target_arch = "x86_64") {
        println!("notice: not an x86_64 host: {} listings not compared", arch.dir);
        return;
    }
    if !asmgen_tests::have_all(
        &[arch.gas[0], arch.mc[0], arch.objcopy, arch.objdump],
        &format!("comparing the {} listings", arch.dir),
    ) {
        return;
    }
    let out = std::env::temp_dir().join(format!("asmgen-assemblers-{}-{}", arch.dir, std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    for src in asmgen_tests::listings(arch.dir) {
        let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
        let (g, l) = (out.join(format!("{stem}.gas.o")), out.join(format!("{stem}.mc.o")));
        run(Command::new(arch.gas[0]).args(&arch.gas[1..]).arg(&src).arg("-o").arg(&g));
        let mnemonics = out.join(format!("{stem}.mnemonics.S"));
        std::fs::write(&mnemonics, raw_words_as_mnemonics(&std::fs::read_to_string(&src).unwrap())).unwrap();
        run(Command::new(arch.mc[0]).args(&arch.mc[1..]).arg(&mnemonics).arg("-o").arg(&l));
        let (gt, lt) = (text(arch, &g), text(arch, &l));
        assert!(!lt.is_empty(), "{stem}: no code");
        assert!(gt.len() >= lt.len(), "{stem}: GNU as made less code than llvm-mc");
        if let Some(at) = gt.iter().zip(&lt).position(|(a, b)| a != b) {
            panic!("{}/{stem}.S: GNU as and llvm-mc differ at code offset {at:#x}", arch.dir);
        }
        assert!(gt[lt.len()..].chunks(4).all(|w| w == arch.nop), "{stem}: GNU as's extra bytes are not nop padding");
    }
}

#[test]
fn aarch64_listings_assemble_identically_with_gnu_as_and_llvm_mc() {
    check(&AARCH64);
}

#[test]
fn riscv64_listings_assemble_identically_with_gnu_as_and_llvm_mc() {
    check(&RISCV64);
}

/// Each riscv64 function enables its extensions between `.option push` and `.option pop`, so the object's
/// `Tag_RISCV_arch` is the base the compiler assembled it for (`-march=rv64gc`): a program that links the
/// listings does not claim to need V, Zbb, Zbc or Zksed. (A listing-wide `.option arch, +v, ...` wrote them
/// into the attribute: `readelf -A` showed `..._v1p0_..._zksed1p0`.)
#[test]
fn riscv64_objects_claim_only_the_base_isa() {
    const CC: &str = "riscv64-linux-gnu-gcc";
    if !cfg!(target_arch = "x86_64") || !asmgen_tests::have_all(&[CC, "readelf"], "the riscv64 arch attribute") {
        return;
    }
    let out = std::env::temp_dir().join(format!("asmgen-assemblers-arch-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    for src in asmgen_tests::listings("riscv64-linux") {
        let obj = out.join(src.file_stem().unwrap()).with_extension("o");
        run(Command::new(CC).args(["-c", "-march=rv64gc", "-mabi=lp64d"]).arg(&src).arg("-o").arg(&obj));
        let attrs = run(Command::new("readelf").arg("-A").arg(&obj));
        let arch = attrs.lines().find_map(|l| l.trim().strip_prefix("Tag_RISCV_arch: ")).expect("an arch attribute");
        let extensions: Vec<&str> = arch.trim_matches('"').split('_').skip(1).collect();
        let extra: Vec<&&str> = extensions
            .iter()
            .filter(|e| !["m", "a", "f", "d", "c", "zicsr", "zifencei", "zmmul"].iter().any(|b| e.starts_with(b)))
            .collect();
        assert!(extra.is_empty(), "{}: the object claims {extra:?} ({arch})", src.display());
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// The test-only kernels with stack frames (`asmgen_tests::frames`) are emitted for every generated target, each
/// built for the target's ABI, and assemble there: llvm-mc-19 for every GNU as listing (ELF, Mach-O, COFF),
/// NASM for the NASM one. (Their unwind data is checked by `windows.rs`, `nasm.rs`, `windows_arm64.rs`,
/// `unwind.rs` and `unwind_windows.rs`.)
#[test]
fn kernels_with_frames_assemble_for_every_target() {
    use asmgen::target::Syntax;
    use asmgen::{Arch, Target};
    use asmgen_tests::frames::{aarch64, listing, riscv64, x86_64};
    if !asmgen_tests::have_all(&["llvm-mc-19", "nasm"], "assembling the kernels with frames for every target") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("asmgen-frames-targets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for t in Target::GENERATED {
        let source = "tests/src/frames.rs";
        let text = match (t.arch, t.syntax) {
            (Arch::X86_64, Syntax::Nasm) => asmgen::emit::nasm::listing(t, &listing(t.abi, t.arch, x86_64), source),
            (Arch::X86_64, _) => asmgen::emit::gas::listing(t, &listing(t.abi, t.arch, x86_64), source),
            (Arch::Aarch64, _) => asmgen::emit::gas::listing(t, &listing(t.abi, t.arch, aarch64), source),
            (Arch::Riscv64, _) => asmgen::emit::gas::listing(t, &listing(t.abi, t.arch, riscv64), source),
        }
        .unwrap_or_else(|e| panic!("{t:?}: {e:?}"));
        let name = format!("{:?}-{:?}-{:?}", t.arch, t.os, t.syntax).to_lowercase();
        let (src, obj) = (dir.join(format!("{name}.s")), dir.join(format!("{name}.o")));
        std::fs::write(&src, &text).unwrap();
        let mut cmd = if t.syntax == Syntax::Nasm {
            let mut c = Command::new("nasm");
            c.args(["-f", "win64", "-o"]).arg(&obj).arg(&src);
            c
        } else {
            let triple = match (t.arch, t.os) {
                (Arch::X86_64, asmgen::Os::Linux) => "x86_64-linux-gnu",
                (Arch::X86_64, asmgen::Os::MacOs) => "x86_64-apple-macos",
                (Arch::X86_64, asmgen::Os::Windows) => "x86_64-windows-gnu",
                (Arch::Aarch64, asmgen::Os::Linux) => "aarch64-linux-gnu",
                (Arch::Aarch64, asmgen::Os::MacOs) => "arm64-apple-macos",
                (Arch::Aarch64, asmgen::Os::Windows) => "aarch64-windows-msvc",
                (Arch::Riscv64, _) => "riscv64-linux-gnu",
            };
            let mut c = Command::new("llvm-mc-19");
            c.args([&format!("-triple={triple}"), "-filetype=obj"]);
            if t.arch == Arch::Aarch64 {
                c.arg("-mattr=+sm4,+sha3,+aes");
            }
            c.arg(&src).arg("-o").arg(&obj);
            c
        };
        run(&mut cmd);
        assert!(std::fs::metadata(&obj).unwrap().len() > 0, "{name}: an empty object");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The x86_64 kernels with frames keep the IBT and SHSTK claim of the GNU property note: their body names rsp
/// only as the base of accesses inside their frame, below the return address (`asmgen::property`). The aarch64
/// ones, whose body names sp, claim BTI only (the rule stays conservative there).
#[test]
fn kernels_with_frames_keep_the_shadow_stack_claim_on_x86_64() {
    use asmgen_tests::frames::{aarch64, listing, x86_64};
    let x = listing(asmgen::Abi::SysV, asmgen::Arch::X86_64, x86_64);
    assert_eq!(asmgen::property::gnu_property(&x.functions).map(|p| p.1), Some(3), "IBT, SHSTK");
    let a = listing(asmgen::Abi::Aapcs64, asmgen::Arch::Aarch64, aarch64);
    assert_eq!(asmgen::property::gnu_property(&a.functions).map(|p| p.1), Some(1), "BTI");
}
