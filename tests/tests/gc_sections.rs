//! Every function of a listing has a section of its own (`.text.<symbol>`), and every constant too
//! (`.rodata.<constant>`), so a C program linked with `-Wl,--gc-sections` keeps only the kernels it calls and the
//! constants they read.
//!
//! A C program calling two SM4 kernels (the key schedule and CTR) is linked with gcc against
//! `generated/x86_64-linux/sm4.S`: the asmgen code it keeps (the sizes `nm` gives its `asmgen_` symbols) must be
//! under a tenth of the listing's, the two kernels must be there and a kernel it does not call
//! (`asmgen_sm4_xts_enc_gb_gfni`) must not, and the linker must report constants it dropped. The same program
//! is linked for aarch64 with the cross gcc against `generated/aarch64-linux/sm4.S` (not run). The negative
//! check: a listing in the old form, two functions in one `.text`, keeps the function nobody calls.
//!
//! Runs on an x86_64 host with gcc and the aarch64 cross gcc (`bash .ci/install-deps`); without them it prints
//! a notice and passes, unless `CI` is set, when it fails. Skipped under qemu and wine (`HOST_TOOL_TESTS`).

use std::path::{Path, PathBuf};
use std::process::Command;

use asmgen_tests::run;

/// A target's C compiler and nm, its listing folder and the kernels the program calls.
struct Toolchain {
    gcc: &'static str,
    nm: &'static str,
    dir: &'static str,
    expand_key: &'static str,
    ctr: &'static str,
}

const X86_64: Toolchain = Toolchain {
    gcc: "gcc",
    nm: "nm",
    dir: "x86_64-linux",
    expand_key: "asmgen_sm4_expand_key_avx",
    ctr: "asmgen_sm4_ctr_avx",
};

const AARCH64: Toolchain = Toolchain {
    gcc: "aarch64-linux-gnu-gcc",
    nm: "aarch64-linux-gnu-nm",
    dir: "aarch64-linux",
    expand_key: "asmgen_sm4_expand_key_ce",
    ctr: "asmgen_sm4_ctr_ce",
};

/// The C program: expands a key and encrypts one block in CTR mode with the two kernels.
fn program(t: &Toolchain) -> String {
    format!(
        "#include \"asmgen_sm4.h\"\n#include <stdio.h>\n\
         int main(void) {{\n\
         \tuint8_t key[16] = {{0}}, rk[128], rkd[128], ctr[16] = {{0}}, in[16] = {{0}}, out[16];\n\
         \t{}(rk, rkd, key);\n\
         \t{}(rk, out, in, 1, ctr);\n\
         \tprintf(\"%02x\\n\", out[0]);\n\
         \treturn 0;\n}}\n",
        t.expand_key, t.ctr
    )
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asmgen-gc-sections-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The sizes of the function symbols starting with `prefix` that `nm` finds in `file`, by name.
fn function_sizes(nm: &str, file: &Path, prefix: &str) -> Vec<(String, usize)> {
    let out = run(Command::new(nm).args(["-S", "--size-sort", "--defined-only"]).arg(file));
    out.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let [_, size, kind, name] = f[..] else { return None };
            let code = kind.eq_ignore_ascii_case("t") && name.starts_with(prefix);
            code.then(|| (name.to_string(), usize::from_str_radix(size, 16).unwrap()))
        })
        .collect()
}

/// Compiles `main.c` with `listing` into `exe` with `-ffunction-sections -Wl,--gc-sections`; the linker's
/// `--print-gc-sections` report.
fn link(gcc: &str, dir: &Path, include: &Path, listing: &Path, exe: &Path) -> String {
    let out = Command::new(gcc)
        .args(["-O2", "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections", "-Wl,--print-gc-sections"])
        .arg("-I")
        .arg(include)
        .arg(dir.join("main.c"))
        .arg(listing)
        .arg("-o")
        .arg(exe)
        .output()
        .unwrap_or_else(|e| panic!("{gcc}: {e}"));
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{gcc} failed:\n{report}");
    report
}

/// Links the program for `t` and checks what the linker kept; returns (kept, listing) asmgen code bytes.
fn check(t: &Toolchain) -> Option<(usize, usize)> {
    if !cfg!(target_arch = "x86_64") {
        println!("notice: not an x86_64 host: linking with {} skipped", t.gcc);
        return None;
    }
    if !asmgen_tests::have_all(&[t.gcc, t.nm], &format!("linking generated/{}/sm4.S with --gc-sections", t.dir)) {
        return None;
    }
    let dir = scratch(t.dir);
    let include = asmgen_tests::workspace().join("generated").join(t.dir);
    let listing = include.join("sm4.S");
    std::fs::write(dir.join("main.c"), program(t)).unwrap();
    let (obj, exe) = (dir.join("sm4.o"), dir.join("main"));
    run(Command::new(t.gcc).arg("-c").arg(&listing).arg("-o").arg(&obj));
    let whole: usize = function_sizes(t.nm, &obj, "asmgen_").iter().map(|f| f.1).sum();
    let report = link(t.gcc, &dir, &include, &listing, &exe);
    let kept = function_sizes(t.nm, &exe, "asmgen_");
    let names: Vec<&str> = kept.iter().map(|f| f.0.as_str()).collect();
    let code: usize = kept.iter().map(|f| f.1).sum();
    println!("{}: kept {names:?}, {code} of {whole} bytes of asmgen code", t.dir);
    for k in [t.expand_key, t.ctr] {
        assert!(names.contains(&k), "{}: {k} was dropped (kept {names:?})", t.dir);
    }
    assert!(!names.contains(&"asmgen_sm4_xts_enc_gb_gfni"), "{}: an unused kernel was kept", t.dir);
    assert!(code * 10 < whole, "{}: kept {code} bytes of asmgen code, the listing has {whole}", t.dir);
    assert!(report.contains("'.rodata.const_"), "{}: no unused constant dropped:\n{report}", t.dir);
    let _ = std::fs::remove_dir_all(dir);
    Some((code, whole))
}

#[test]
fn gc_sections_keep_only_the_called_x86_64_kernels() {
    check(&X86_64);
}

#[test]
fn gc_sections_keep_only_the_called_aarch64_kernels() {
    check(&AARCH64);
}

/// A listing of two functions, `asmgen_used` and `asmgen_unused`, each after `section(name)`'s line if any.
fn two_functions(section: impl Fn(&str) -> String) -> String {
    let mut text = String::new();
    for name in ["asmgen_used", "asmgen_unused"] {
        text.push_str(&section(name));
        text.push_str(&format!("\t.globl {name}\n\t.type {name}, @function\n{name}:\n\tret\n"));
        text.push_str(&format!("\t.size {name}, .-{name}\n"));
    }
    text + "\t.section .note.GNU-stack,\"\",@progbits\n"
}

/// The old form, every function in one `.text`: the linker keeps the function nobody calls, so the check above
/// measures the sections, not the linker alone. The same two functions in sections of their own: it goes.
#[test]
fn gc_sections_cannot_drop_a_function_sharing_its_section() {
    if !cfg!(target_arch = "x86_64") || !asmgen_tests::have_all(&["gcc", "nm"], "linking a one-section listing") {
        return;
    }
    let dir = scratch("one-section");
    let (listing, exe) = (dir.join("two.S"), dir.join("main"));
    std::fs::write(dir.join("main.c"), "void asmgen_used(void);\nint main(void) { asmgen_used(); return 0; }\n")
        .unwrap();
    let kept = |text: String| -> Vec<String> {
        std::fs::write(&listing, text).unwrap();
        link("gcc", &dir, &dir, &listing, &exe);
        function_sizes("nm", &exe, "asmgen_").into_iter().map(|f| f.0).collect()
    };
    let one = kept(two_functions(|f| if f == "asmgen_used" { "\t.text\n".into() } else { String::new() }));
    assert!(one.contains(&"asmgen_unused".to_string()), "one section, yet the unused function went: {one:?}");
    let own = kept(two_functions(|f| format!("\t.section .text.{f},\"ax\",@progbits\n")));
    assert_eq!(own, ["asmgen_used"], "sections of their own, yet the unused function stayed");
    let _ = std::fs::remove_dir_all(dir);
}
