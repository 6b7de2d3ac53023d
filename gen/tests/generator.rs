//! The generator as a user's build calls it ([`Generator`]): a listing of the user's own functions, written for
//! every target with their prefix, docs and size macros, then checked (fresh, then stale, missing and extra
//! files named).

use asmgen::isa::aarch64::{self as a64, Aarch64};
use asmgen::isa::riscv64::{self as rv, Riscv64};
use asmgen::isa::x86_64::{mem, regs::*, X86_64};
use asmgen::{Abi, Arch, Builder, CType, Function, GenError, Generator, ListingSpec, Target, Visibility};
use std::path::PathBuf;

/// `void add_one(uint64_t *x)`: `*x += 1`, with a loop label so that the prefix reaches labels too.
fn x86(abi: Abi) -> Result<Vec<Function<X86_64>>, GenError> {
    let mut b = Builder::<X86_64>::new("add_one", abi, &[]);
    b.doc("Adds one to *x.");
    let x = b.param("x", CType::U64Ptr);
    let done = b.label("done");
    b.mov(RAX, mem(x, 0)).add(RAX, 1).mov(mem(x, 0), RAX).jmp(done.clone()).bind(&done);
    Ok(vec![b.finish()?])
}

fn arm(abi: Abi) -> Result<Vec<Function<Aarch64>>, GenError> {
    let mut b = Builder::<Aarch64>::new("add_one", abi, &[]);
    b.doc("Adds one to *x.");
    let x = b.param("x", CType::U64Ptr);
    b.ldr(a64::regs::X9, x, 0).add(a64::regs::X9, a64::regs::X9, 1).str(a64::regs::X9, x, 0);
    Ok(vec![b.finish()?])
}

fn riscv(abi: Abi) -> Result<Vec<Function<Riscv64>>, GenError> {
    let mut b = Builder::<Riscv64>::new("add_one", abi, &[]);
    b.doc("Adds one to *x.");
    let x = b.param("x", CType::U64Ptr);
    b.ld(rv::regs::T0, rv::mem(x, 0)).addi(rv::regs::T0, rv::regs::T0, 1).sd(rv::regs::T0, rv::mem(x, 0));
    Ok(vec![b.finish()?])
}

fn generator(out: PathBuf) -> Generator {
    Generator::new(out)
        .prefix("demo")
        .visibility(Visibility::Default)
        .regenerate_command("cargo run --bin regen")
        .check_command("cargo run --bin regen -- --check")
        .listing(
            ListingSpec::new("counter", "A counter")
                .source("src/{arch}.rs")
                .doc("Every function takes a pointer to a uint64_t.")
                .note(Arch::Riscv64, "x must be 8-byte aligned.")
                .size("COUNTER_BYTES", 8, "Bytes of a counter.")
                .x86_64(x86)
                .aarch64(arm)
                .riscv64(riscv),
        )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asmgen-generator-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn writes_every_target_with_the_prefix_docs_and_sizes() {
    let files = generator(PathBuf::from("out")).files().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for t in Target::GENERATED {
        let dir = t.dir_name();
        let listing = format!("{dir}/counter.{}", t.syntax.extension());
        assert!(paths.contains(&listing.as_str()), "{listing} in {paths:?}");
        assert!(paths.contains(&format!("{dir}/demo_counter.h").as_str()), "{dir}: header");
        assert!(paths.contains(&format!("{dir}/mod.rs").as_str()), "{dir}: Rust declarations");
    }
    // Seven folders, each a listing, a header and mod.rs; x86_64-windows also the NASM listing.
    assert_eq!(files.len(), 7 * 3 + 1, "{paths:?}");
    for f in &files {
        let text = &f.contents;
        assert!(text.contains("demo_add_one"), "{}: the prefixed symbol", f.path);
        assert!(!text.contains("xtask"), "{}: names the project's own commands", f.path);
        assert!(text.contains("cargo run --bin regen"), "{}: the regeneration command", f.path);
        if f.path.ends_with(".S") && f.path.starts_with("x86_64") {
            // The label follows the function: `.Ldemo_add_one_done` (Mach-O: `Ldemo_add_one_done`).
            assert!(text.contains("demo_add_one_done:"), "{}: the label carries the prefix", f.path);
            assert!(!text.contains(".hidden") && !text.contains(".private_extern"), "{}: default visibility", f.path);
        }
        if f.path.ends_with(".h") {
            assert!(
                text.contains("/*\n * Adds one to *x.\n */\n/* requires baseline */\nvoid demo_add_one(uint64_t *x);")
            );
            assert!(text.contains("#define DEMO_COUNTER_COUNTER_BYTES 8"), "{}", f.path);
            assert!(text.contains("Every function takes a pointer to a uint64_t."));
            assert_eq!(text.contains("8-byte aligned"), f.path.starts_with("riscv64"), "{}: the note", f.path);
            assert!(!text.contains("other:") && !text.contains("Kernel sets"), "{}: the catalog's sections", f.path);
            assert!(text.contains("#ifndef DEMO_COUNTER_H"));
        }
        if f.path.ends_with("mod.rs") {
            assert!(text.contains("pub fn demo_add_one(x: *mut u64);"), "{}", f.path);
            assert!(!text.contains("KernelSet"), "{}: no set table", f.path);
        }
    }
}

#[test]
fn only_the_architectures_a_listing_has() {
    let g = Generator::new("out").listing(ListingSpec::new("counter", "A counter").aarch64(arm));
    let files = g.files().unwrap();
    assert!(files.iter().all(|f| f.path.starts_with("aarch64-")), "{:?}", files.iter().map(|f| &f.path));
    assert_eq!(files.len(), 3 * 3);
    // No prefix: the symbols and the header are the user's names as written.
    assert!(files
        .iter()
        .any(|f| f.path == "aarch64-linux/counter.h" && f.contents.contains("void add_one(uint64_t *x);")));
    // Only the NASM flavour asked for: its folder gets the header and declarations too.
    let nasm = Generator::new("out")
        .targets(&[Target::X86_64_WINDOWS_NASM])
        .listing(ListingSpec::new("counter", "A counter").x86_64(x86));
    let paths: Vec<String> = nasm.files().unwrap().into_iter().map(|f| f.path).collect();
    assert_eq!(paths, ["x86_64-windows/counter.asm", "x86_64-windows/counter.h", "x86_64-windows/mod.rs"]);
}

#[test]
fn builds_each_function_for_its_targets_abi() {
    let g = generator(PathBuf::from("out"));
    let sysv = g.files_for(Target::X86_64_LINUX).unwrap();
    let win = g.files_for(Target::X86_64_WINDOWS).unwrap();
    let listing =
        |files: &[asmgen::GeneratedFile]| files.iter().find(|f| f.path.ends_with(".S")).unwrap().contents.clone();
    // System V passes x in rdi, Win64 in rcx (the prologue moves it where the body reads it).
    assert!(listing(&sysv).contains("(%rdi)") || listing(&sysv).contains("[rdi]"));
    assert!(listing(&win).contains(".seh_proc"), "Win64 unwind data");
}

#[test]
fn check_names_stale_missing_and_extra_files() {
    let dir = scratch("check");
    let g = generator(dir.clone());
    let missing = g.check().unwrap_err();
    assert_eq!(missing.problems.len(), 22, "{missing}");
    assert!(missing.problems.iter().all(|p| p.ends_with("is missing")), "{missing}");
    let written = g.generate().unwrap();
    assert_eq!((written.files, written.changed.len(), written.removed.len()), (22, 22, 0));
    assert_eq!(g.check().unwrap(), 22);
    // A second run writes nothing.
    assert!(g.generate().unwrap().changed.is_empty());
    // One file edited, one removed, one that nothing generates.
    std::fs::write(dir.join("x86_64-linux/counter.S"), "edited").unwrap();
    std::fs::remove_file(dir.join("aarch64-linux/demo_counter.h")).unwrap();
    std::fs::write(dir.join("riscv64-linux/old.S"), "").unwrap();
    let stale = g.check().unwrap_err();
    let text = stale.to_string();
    assert_eq!(stale.problems.len(), 3, "{text}");
    assert!(text.contains("x86_64-linux/counter.S differs"), "{text}");
    assert!(text.contains("aarch64-linux/demo_counter.h is missing"), "{text}");
    assert!(text.contains("riscv64-linux/old.S is not generated"), "{text}");
    let fixed = g.generate().unwrap();
    assert_eq!(fixed.changed.len(), 2);
    assert_eq!(fixed.removed, ["riscv64-linux/old.S"]);
    assert_eq!(g.check().unwrap(), 22);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A parameter named like a Rust keyword (`in`, OpenSSL's name for the input) is a raw identifier in `mod.rs`.
#[test]
fn rust_keywords_are_raw_identifiers_in_the_declarations() {
    let g = Generator::new("out").targets(&[Target::X86_64_LINUX]).listing(ListingSpec::new("copy", "Copy").x86_64(
        |abi| {
            let mut b = Builder::<X86_64>::new("copy8", abi, &[]);
            let out = b.param("out", CType::U64Ptr);
            let inp = b.param("in", CType::ConstU64Ptr);
            b.mov(RAX, mem(inp, 0)).mov(mem(out, 0), RAX);
            Ok(vec![b.finish()?])
        },
    ));
    let files = g.files().unwrap();
    let rs = &files.iter().find(|f| f.path.ends_with("mod.rs")).unwrap().contents;
    assert!(rs.contains("pub fn copy8(out: *mut u64, r#in: *const u64);"), "{rs}");
    let h = &files.iter().find(|f| f.path.ends_with(".h")).unwrap().contents;
    assert!(h.contains("void copy8(uint64_t *out, const uint64_t *in);"), "{h}");
}

#[test]
fn a_bad_prefix_or_function_is_an_error() {
    let e = generator(PathBuf::from("out")).prefix("9lives").files().unwrap_err();
    assert!(e.to_string().contains("prefix \"9lives\" is not a C identifier"), "{e}");
    let failing = Generator::new("out").listing(
        ListingSpec::new("broken", "Broken").x86_64(|_| Err(GenError::new("broken_fn", "an operand out of range"))),
    );
    let e = failing.files().unwrap_err();
    assert_eq!(e.function, "broken_fn");
}
