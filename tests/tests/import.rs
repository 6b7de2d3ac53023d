//! The importer (`asmgen::import`): every function of the checked-in listings, assembled by GNU as, read back
//! and lowered again gives the object's bytes, on x86_64, aarch64 and riscv64; so do small hand-written files
//! (`tests/import/*.S`) exercising each family of forms, assembled by GNU as or llvm-mc. A table entry whose
//! encoding disagrees with the assembler's fails here. Bad input (not an object, a truncated one, another
//! architecture, an instruction the tables lack, a branch into an instruction) gives a clear error.

use asmgen::import::{import_file, import_object, Import, Outcome};
use asmgen::Arch;
use asmgen_tests::{have_all, listings, run, workspace};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch folder for this test's objects.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("asmgen-import-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// How one architecture's sources are assembled.
struct Assembler {
    arch: Arch,
    cmd: &'static str,
    args: &'static [&'static str],
}

const GAS_X86_64: Assembler = Assembler { arch: Arch::X86_64, cmd: "gcc", args: &["-c"] };
const GAS_AARCH64: Assembler = Assembler { arch: Arch::Aarch64, cmd: "aarch64-linux-gnu-gcc", args: &["-c"] };
/// rv64g without compressed forms and without linker relaxation: the final bytes, as the listings are linked.
const GAS_RISCV64: Assembler =
    Assembler { arch: Arch::Riscv64, cmd: "riscv64-linux-gnu-gcc", args: &["-c", "-march=rv64g", "-mno-relax"] };
const LLVM_X86_64_MACOS: Assembler =
    Assembler { arch: Arch::X86_64, cmd: "llvm-mc-19", args: &["-triple=x86_64-apple-macos", "-filetype=obj"] };
const MINGW_X86_64: Assembler = Assembler { arch: Arch::X86_64, cmd: "x86_64-w64-mingw32-gcc", args: &["-c"] };
const LLVM_AARCH64_MACOS: Assembler = Assembler {
    arch: Arch::Aarch64,
    cmd: "llvm-mc-19",
    args: &["-triple=arm64-apple-macos", "-mattr=+aes,+sha2,+sha3,+sm4", "-filetype=obj"],
};
const LLVM_AARCH64_WINDOWS: Assembler = Assembler {
    arch: Arch::Aarch64,
    cmd: "llvm-mc-19",
    args: &["-triple=aarch64-windows", "-mattr=+aes,+sha2,+sha3,+sm4", "-filetype=obj"],
};
/// llvm-mc for the hand-written riscv64 file: GNU as 2.40 lacks the vector crypto extensions.
const LLVM_RISCV64: Assembler = Assembler {
    arch: Arch::Riscv64,
    cmd: "llvm-mc-19",
    args: &["-triple=riscv64", "-mattr=+d,-c,-relax", "-filetype=obj"],
};

impl Assembler {
    fn assemble(&self, src: &Path, out: &Path) -> PathBuf {
        let obj = out.join(src.file_name().unwrap()).with_extension("o");
        run(Command::new(self.cmd).args(self.args).arg("-o").arg(&obj).arg(src));
        obj
    }

    fn have(&self, what: &str) -> bool {
        have_all(&[self.cmd], what)
    }
}

/// Every function of `import` was imported and lowers to the object's bytes; their names.
fn all_identical(import: &Import) -> Vec<String> {
    assert!(!import.functions.is_empty(), "{}: no functions", import.file);
    for f in &import.functions {
        assert_eq!(f.instructions, f.expressed, "{} {}: forms missing: {:?}", import.file, f.name, f.missing);
        match &f.outcome {
            Outcome::Identical { source, .. } => assert!(source.contains("Builder::<")),
            other => panic!("{} {}: {other:?}", import.file, f.name),
        }
    }
    import.functions.iter().map(|f| f.name.clone()).collect()
}

fn round_trip_listings(dir: &str, asm: &Assembler) {
    if !asm.have(&format!("importing the {dir} listings")) {
        return;
    }
    let out = scratch(dir);
    for src in listings(dir) {
        let import = import_file(&asm.assemble(&src, &out)).unwrap();
        assert_eq!(import.arch, asm.arch);
        let names = all_identical(&import);
        let text = std::fs::read_to_string(&src).unwrap();
        for n in &names {
            assert!(text.contains(&format!("{n}:")), "{}: {n} is not a function of the listing", src.display());
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn importer_x86_64_listings_round_trip() {
    round_trip_listings("x86_64-linux", &GAS_X86_64);
}

#[test]
fn importer_aarch64_listings_round_trip() {
    round_trip_listings("aarch64-linux", &GAS_AARCH64);
}

#[test]
fn importer_riscv64_listings_round_trip() {
    round_trip_listings("riscv64-linux", &GAS_RISCV64);
}

/// Mach-O and COFF: the macOS listings (llvm-mc's padding compares by length), the Windows ones (a Win64
/// prologue, which moves the parameters, stays in a naked body; ARM64 SEH's is the ABI's).
#[test]
fn importer_macos_and_windows_listings_round_trip() {
    round_trip_listings("x86_64-macos", &LLVM_X86_64_MACOS);
    round_trip_listings("aarch64-macos", &LLVM_AARCH64_MACOS);
    round_trip_listings("x86_64-windows", &MINGW_X86_64);
    round_trip_listings("aarch64-windows", &LLVM_AARCH64_WINDOWS);
}

fn round_trip_hand_written(file: &str, asm: &Assembler, expect: &[&str]) {
    if !asm.have(&format!("importing tests/import/{file}")) {
        return;
    }
    let out = scratch(file);
    let import = import_file(&asm.assemble(&workspace().join("tests/import").join(file), &out)).unwrap();
    assert_eq!(all_identical(&import), expect);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn importer_x86_64_hand_written_forms_round_trip() {
    round_trip_hand_written(
        "x86_64.S",
        &GAS_X86_64,
        &[
            "imp_sha_ni",
            "imp_aes",
            "imp_bignum",
            "imp_avx2_lanes",
            "imp_scalar32",
            "imp_sse_sha1_avx512",
            "imp_strings_xchg",
            "imp_gcrypt_scalar",
            "imp_gcrypt_vex",
            "imp_gcrypt_avx512vl",
            "imp_gcrypt_zmm",
            "imp_gcrypt_more",
        ],
    );
}

#[test]
fn importer_aarch64_hand_written_forms_round_trip() {
    round_trip_hand_written(
        "aarch64.S",
        &GAS_AARCH64,
        &["imp_sha", "imp_scalar", "imp_permutes", "imp_words", "imp_tables", "imp_sm3"],
    );
}

#[test]
fn importer_riscv64_hand_written_forms_round_trip() {
    round_trip_hand_written(
        "riscv64.S",
        &LLVM_RISCV64,
        &["imp_bitmanip", "imp_vector", "imp_crypto", "imp_calls", "imp_untyped"],
    );
}

/// Assembles `text` (x86_64, GNU as, Intel syntax) and imports it.
fn import_x86(name: &str, text: &str) -> Option<Import> {
    if !GAS_X86_64.have("the importer's bad-input checks") {
        return None;
    }
    let out = scratch(name);
    let src = out.join(format!("{name}.S"));
    std::fs::write(&src, format!(".intel_syntax noprefix\n.text\n.globl {name}\n.type {name}, @function\n{name}:\n{text}\n.size {name}, .-{name}\n")).unwrap();
    let import = import_file(&GAS_X86_64.assemble(&src, &out)).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    Some(import)
}

#[test]
fn importer_bad_objects_are_errors_naming_the_file() {
    let e = import_object("junk.o", b"not an object at all").unwrap_err();
    assert!(e.to_string().starts_with("junk.o: not an object"), "{e}");
    let e = import_file(Path::new("/nonexistent/x.o")).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/x.o"), "{e}");
    let Some(_) = import_x86("probe", "endbr64\nret") else { return };
    // A real object, truncated, and the same with its machine patched to 32-bit ARM.
    let out = scratch("bad");
    let src = out.join("f.S");
    std::fs::write(&src, ".text\n.globl f\n.type f, @function\nf:\nendbr64\nret\n.size f, .-f\n").unwrap();
    let bytes = std::fs::read(GAS_X86_64.assemble(&src, &out)).unwrap();
    let e = import_object("cut.o", &bytes[..100]).unwrap_err();
    assert!(e.to_string().starts_with("cut.o: "), "{e}");
    let mut arm = bytes.clone();
    arm[18] = 40; // e_machine: EM_ARM
    let e = import_object("arm.o", &arm).unwrap_err();
    assert!(e.to_string().contains("arm.o: an object for Arm"), "{e}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn importer_functions_that_cannot_be_imported_say_where_and_why() {
    // An instruction no table has: named, with its offset; the function is not written.
    let Some(i) = import_x86("cpu", "endbr64\ncpuid\nret") else { return };
    let f = &i.functions[0];
    assert_eq!((f.instructions, f.expressed), (3, 2), "the landing pad counts");
    assert_eq!(f.missing[0].offset, 4);
    assert_eq!(f.missing[0].form, "Cpuid");
    let Outcome::NotImported(why) = &f.outcome else { panic!("{:?}", f.outcome) };
    assert!(why.contains("at +0x4: cpuid"), "{why}");
    // A branch into the middle of an instruction.
    let Some(i) = import_x86("mid", "endbr64\njmp 1f + 1\n1: mov rax, rcx\nret") else { return };
    let Outcome::NotImported(why) = &i.functions[0].outcome else { panic!("{:?}", i.functions[0].outcome) };
    assert!(why.contains("into the middle of an instruction, at +0x7"), "{why}");
    // A function without the landing pad its ABI's functions start with, and one with its own prologue: both
    // naked (no prologue, epilogue or unwind data derived), still byte-identical.
    let Some(i) = import_x86("nopad", "mov rax, rcx\nret") else { return };
    let Outcome::Identical { source, frame } = &i.functions[0].outcome else { panic!("{:?}", i.functions[0].outcome) };
    assert!(!frame && source.contains("b.naked();") && source.contains("b.without_landing_pad();"), "{source}");
    let Some(i) = import_x86("own", "endbr64\nsub rsp, 8\nmov rax, rdi\nadd rsp, 8\nret") else { return };
    let Outcome::Identical { source, .. } = &i.functions[0].outcome else { panic!("{:?}", i.functions[0].outcome) };
    assert!(source.contains("b.naked();") && !source.contains("without_landing_pad"), "{source}");
    // The ABI's own prologue becomes the frame the builder derives: no push in the source.
    let Some(i) = import_x86("abi", "endbr64\npush rbx\nmov rbx, rdi\nmov rax, rbx\npop rbx\nret") else { return };
    let Outcome::Identical { source, frame } = &i.functions[0].outcome else { panic!("{:?}", i.functions[0].outcome) };
    assert!(*frame && !source.contains("push") && !source.contains("naked"), "{source}");
}

// The importer's Rust source, checked in (this test writes it with `ASMGEN_BLESS=1`): it compiles, builds, and
// is what the importer writes today.
#[rustfmt::skip]
#[path = "../import/imported/imp_aes.rs"]
mod imp_aes;
#[rustfmt::skip]
#[path = "../import/imported/imp_avx2_lanes.rs"]
mod imp_avx2_lanes;
#[rustfmt::skip]
#[path = "../import/imported/imp_scalar32.rs"]
mod imp_scalar32;
#[rustfmt::skip]
#[path = "../import/imported/imp_sse_sha1_avx512.rs"]
mod imp_sse_sha1_avx512;
#[rustfmt::skip]
#[path = "../import/imported/imp_sha.rs"]
mod imp_sha;
#[rustfmt::skip]
#[path = "../import/imported/imp_words.rs"]
mod imp_words;
#[rustfmt::skip]
#[path = "../import/imported/imp_crypto.rs"]
mod imp_crypto;
#[rustfmt::skip]
#[path = "../import/imported/imp_permutes.rs"]
mod imp_permutes;
#[rustfmt::skip]
#[path = "../import/imported/imp_bitmanip.rs"]
mod imp_bitmanip;
#[rustfmt::skip]
#[path = "../import/imported/imp_vector.rs"]
mod imp_vector;
#[rustfmt::skip]
#[path = "../import/imported/imp_strings_xchg.rs"]
mod imp_strings_xchg;

/// The source the importer writes for `name` of `tests/import/<file>` equals the checked-in one, whose
/// function builds; where `code` is given (functions without relocations), the built function lowers to the
/// object's bytes.
fn written_source_builds<I: asmgen::lower::Lower>(
    file: &str,
    asm: &Assembler,
    name: &str,
    build: fn(asmgen::Abi) -> Result<asmgen::Function<I>, asmgen::GenError>,
    abi: asmgen::Abi,
    exact: bool,
) {
    if !asm.have(&format!("importing tests/import/{file}")) {
        return;
    }
    let out = scratch(&format!("src-{name}"));
    let obj = asm.assemble(&workspace().join("tests/import").join(file), &out);
    let bytes = std::fs::read(&obj).unwrap();
    let import = import_object(&format!("tests/import/{file}"), &bytes).unwrap();
    let f = import.functions.iter().find(|f| f.name == name).unwrap();
    let Outcome::Identical { source, .. } = &f.outcome else { panic!("{name}: {:?}", f.outcome) };
    let path = workspace().join("tests/import/imported").join(format!("{name}.rs"));
    if std::env::var_os("ASMGEN_BLESS").is_some() {
        std::fs::write(&path, source).unwrap();
    }
    let kept = std::fs::read_to_string(&path).unwrap();
    assert_eq!(source, &kept, "{name}: the importer's source changed; ASMGEN_BLESS=1 rewrites {}", path.display());
    let built = build(abi).unwrap_or_else(|e| panic!("{name}: {e}"));
    let image = asmgen::lower::lower(&[&built]).unwrap();
    let sym = image.symbol(name).unwrap();
    if exact {
        let (objdump, objcopy) = match import.arch {
            Arch::X86_64 => ("objdump", "objcopy"),
            Arch::Aarch64 => ("aarch64-linux-gnu-objdump", "aarch64-linux-gnu-objcopy"),
            Arch::Riscv64 => ("riscv64-linux-gnu-objdump", "riscv64-linux-gnu-objcopy"),
        };
        let code = asmgen_tests::sections::code(objdump, objcopy, &obj);
        let at = f.offset as usize;
        assert_eq!(&image.bytes[sym.offset..sym.offset + sym.len], &code[at..at + f.size as usize], "{name}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn importer_written_sources_build_the_same_functions() {
    use asmgen::Abi;
    written_source_builds("x86_64.S", &GAS_X86_64, "imp_aes", imp_aes::imp_aes, Abi::SysV, true);
    written_source_builds("x86_64.S", &GAS_X86_64, "imp_avx2_lanes", imp_avx2_lanes::imp_avx2_lanes, Abi::SysV, false);
    written_source_builds("x86_64.S", &GAS_X86_64, "imp_scalar32", imp_scalar32::imp_scalar32, Abi::SysV, true);
    let avx512 = imp_sse_sha1_avx512::imp_sse_sha1_avx512;
    written_source_builds("x86_64.S", &GAS_X86_64, "imp_sse_sha1_avx512", avx512, Abi::SysV, true);
    let strings = imp_strings_xchg::imp_strings_xchg;
    written_source_builds("x86_64.S", &GAS_X86_64, "imp_strings_xchg", strings, Abi::SysV, false);
    written_source_builds("aarch64.S", &GAS_AARCH64, "imp_sha", imp_sha::imp_sha, Abi::Aapcs64, true);
    written_source_builds("aarch64.S", &GAS_AARCH64, "imp_words", imp_words::imp_words, Abi::Aapcs64, true);
    written_source_builds("aarch64.S", &GAS_AARCH64, "imp_permutes", imp_permutes::imp_permutes, Abi::Aapcs64, false);
    written_source_builds("riscv64.S", &LLVM_RISCV64, "imp_bitmanip", imp_bitmanip::imp_bitmanip, Abi::Lp64d, true);
    written_source_builds("riscv64.S", &LLVM_RISCV64, "imp_vector", imp_vector::imp_vector, Abi::Lp64d, false);
    written_source_builds("riscv64.S", &LLVM_RISCV64, "imp_crypto", imp_crypto::imp_crypto, Abi::Lp64d, true);
}
