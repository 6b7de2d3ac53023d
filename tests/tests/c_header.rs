//! The C headers of the listings (`generated/<target>/asmgen_<listing>.h`, gen/src/emit/c_header.rs): each
//! compiles cleanly as C99 with gcc and clang (`-Wall -Wextra -pedantic -Werror`) and as C++ with g++; each
//! declares every function of its listing with exactly the prototype the listing's header comment prints, and
//! nothing else; and a C program that includes the x86_64-linux headers and links the x86_64-linux listings
//! with gcc gets the published answers (the GCM specification's test case 2 GHASH; GB/T 32907's SM4 example,
//! encrypted and decrypted) from every kernel set the CPU has, and sees every function called with a count of
//! 0 leave every buffer unchanged, as the headers promise. Consumer generation (`cargo xtask gen --out`, here
//! through `catalog::generate_with`): the same program links listings and headers generated with the prefix
//! `myapp`, whose objects define no `asmgen` symbol; a shared library of such listings with default visibility
//! exports its kernels to `dlsym`, and one with hidden visibility does not.
//!
//! Needs gcc, g++ and clang-19 (or clang) on the host (`bash .ci/install-deps`); without them it prints a notice
//! and passes unless `CI` is set. Skipped under wine (`HOST_TOOL_TESTS` in xtask/src/cross.rs): host tools.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use asmgen_tests::{have_all, run, runs, tool_missing, workspace};

/// Every listing folder and its listings' stems (`ghash`, `sm4`), from the `.S` files there.
fn listing_dirs() -> Vec<(PathBuf, Vec<String>)> {
    let root = workspace().join("generated");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).collect();
    dirs.retain(|d| d.is_dir());
    dirs.sort();
    let mut v = Vec::new();
    for d in dirs {
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let stems =
            asmgen_tests::listings(&name).iter().map(|p| p.file_stem().unwrap().to_string_lossy().into()).collect();
        v.push((d, stems));
    }
    assert!(v.len() >= 7, "expected the seven target folders under generated/");
    v
}

fn header_of(dir: &Path, listing: &str) -> PathBuf {
    dir.join(format!("asmgen_{listing}.h"))
}

/// The prototypes of a listing's header comment (the `Functions:` block of the `.S` file).
fn listing_prototypes(listing: &str) -> Vec<String> {
    let mut v = Vec::new();
    for line in listing.lines() {
        if line == " */" {
            break;
        }
        if let Some(p) = line.strip_prefix(" *   void ") {
            v.push(format!("void {p}"));
        }
    }
    v
}

/// What is wrong with `header` as the declarations of `prototypes`: prototypes it lacks (as a whole line),
/// and function declarations it has beyond them.
fn declaration_errors(header: &str, prototypes: &[String]) -> Vec<String> {
    let lines: BTreeSet<&str> = header.lines().collect();
    let wanted: BTreeSet<&str> = prototypes.iter().map(String::as_str).collect();
    let mut errors: Vec<String> =
        wanted.iter().filter(|p| !lines.contains(*p)).map(|p| format!("not declared: {p}")).collect();
    let declared = header.lines().filter(|l| l.starts_with("void ") && l.ends_with(");"));
    errors.extend(declared.filter(|l| !wanted.contains(l)).map(|l| format!("not in the listing: {l}")));
    errors
}

#[test]
fn c_header_declares_every_listing_function_with_its_prototype() {
    let mut checked = 0;
    for (dir, stems) in listing_dirs() {
        for stem in stems {
            let listing = std::fs::read_to_string(dir.join(format!("{stem}.S"))).unwrap();
            let prototypes = listing_prototypes(&listing);
            assert!(!prototypes.is_empty(), "{}/{stem}.S: no prototypes in its header comment", dir.display());
            let h = header_of(&dir, &stem);
            let header = std::fs::read_to_string(&h).unwrap_or_else(|e| panic!("{}: {e}", h.display()));
            let errors = declaration_errors(&header, &prototypes);
            assert!(errors.is_empty(), "{}:\n  {}", h.display(), errors.join("\n  "));
            checked += prototypes.len();
        }
    }
    assert!(checked > 100, "only {checked} prototypes checked");
}

/// The check above catches a changed parameter, a missing function and an extra one.
#[test]
fn c_header_declaration_check_rejects_a_wrong_missing_or_extra_prototype() {
    let dir = workspace().join("generated/x86_64-linux");
    let listing = std::fs::read_to_string(dir.join("sm4.S")).unwrap();
    let header = std::fs::read_to_string(header_of(&dir, "sm4")).unwrap();
    let prototypes = listing_prototypes(&listing);
    assert!(declaration_errors(&header, &prototypes).is_empty());
    let wrong = header.replacen("size_t nblocks, uint8_t *ctr)", "uint64_t nblocks, uint8_t *ctr)", 1);
    assert_eq!(declaration_errors(&wrong, &prototypes).len(), 2, "a changed type: one missing, one extra");
    let first = format!("{}\n", prototypes[0]);
    assert_eq!(declaration_errors(&header.replacen(&first, "", 1), &prototypes).len(), 1);
    let extra = format!("{header}void asmgen_sm4_nothing(void);\n");
    assert_eq!(declaration_errors(&extra, &prototypes).len(), 1);
}

/// The C compiler for the clang run: clang-19, or clang.
fn clang() -> Option<&'static str> {
    ["clang-19", "clang"].into_iter().find(|c| runs(c))
}

#[test]
fn c_header_compiles_as_c99_with_gcc_and_clang_and_as_cpp() {
    if !have_all(&["gcc", "g++"], "compiling the C headers") {
        return;
    }
    let clang = clang();
    if clang.is_none() {
        tool_missing("clang-19 (or clang) not found: compiling the C headers with clang");
    }
    let c_flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only", "-x", "c"];
    let cpp_flags = ["-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only", "-x", "c++"];
    let mut headers = 0;
    for (dir, stems) in listing_dirs() {
        for stem in stems {
            let h = header_of(&dir, &stem);
            run(Command::new("gcc").args(c_flags).arg(&h));
            if let Some(c) = clang {
                run(Command::new(c).args(c_flags).arg(&h));
            }
            run(Command::new("g++").args(cpp_flags).arg(&h));
            // Twice in one unit: the include guard.
            let twice = format!("#include \"{0}\"\n#include \"{0}\"\n", h.display());
            let unit = std::env::temp_dir().join(format!("asmgen-c-header-{}-{stem}.c", std::process::id()));
            std::fs::write(&unit, twice).unwrap();
            run(Command::new("gcc").args(c_flags).arg(&unit));
            let _ = std::fs::remove_file(&unit);
            headers += 1;
        }
    }
    assert_eq!(headers, 14, "two headers in each of the seven folders");
}

/// gcc's `__builtin_cpu_supports` name of an x86_64 feature as the headers print it.
fn cpu_name(feature: &str) -> &'static str {
    const NAMES: &[(&str, &str)] = &[
        ("AES", "aes"),
        ("PCLMULQDQ", "pclmul"),
        ("AVX", "avx"),
        ("AVX2", "avx2"),
        ("VAES", "vaes"),
        ("VPCLMULQDQ", "vpclmulqdq"),
        ("GFNI", "gfni"),
        ("SSSE3", "ssse3"),
        ("SSE4.1", "sse4.1"),
        ("AVX512F", "avx512f"),
        ("AVX512BW", "avx512bw"),
        ("BMI2", "bmi2"),
        ("AVX512VL", "avx512vl"),
    ];
    NAMES.iter().find(|(n, _)| *n == feature).unwrap_or_else(|| panic!("no cpu name for {feature}")).1
}

/// The C condition that the CPU has every feature of a `/* requires A, B */` line.
fn cpu_condition(requires: &str) -> String {
    let fs: Vec<String> =
        requires.split(", ").map(|f| format!("__builtin_cpu_supports(\"{}\")", cpu_name(f.trim()))).collect();
    fs.join(" && ")
}

/// C code calling every function of `header` that takes `nblocks` with a count of 0, where the CPU has its
/// features, on buffers of distinct bytes, and failing unless every buffer keeps its contents.
fn zero_count_calls(header: &str) -> String {
    let mut c = String::new();
    let mut requires = None;
    for line in header.lines() {
        if let Some(r) = line.strip_prefix("/* requires ").and_then(|r| r.strip_suffix(" */")) {
            requires = Some(r.to_string());
            continue;
        }
        let Some(proto) = line.strip_prefix("void ").and_then(|p| p.strip_suffix(");")) else { continue };
        let (name, params) = proto.split_once('(').unwrap();
        if !params.contains("size_t nblocks") {
            continue;
        }
        let args: Vec<&str> = params
            .split(", ")
            .enumerate()
            .map(|(i, p)| if p.starts_with("size_t") { "0" } else { ["b0", "b1", "b2", "b3", "b4", "b5"][i] })
            .collect();
        let cond = cpu_condition(requires.as_deref().expect("a requires line before each prototype"));
        c.push_str(&format!(
            "    if ({cond}) {{\n        fill();\n        {name}({});\n        zero_check(\"{name}\");\n    }}\n",
            args.join(", ")
        ));
    }
    c
}

/// The fixed part of the C program: GHASH and SM4 known answers per kernel set, and the zero-count helpers.
const PROGRAM: &str = r#"
#include <stdio.h>
#include <string.h>
#include "asmgen_ghash.h"
#include "asmgen_sm4.h"

static int failures, zero_checked;
static uint8_t b0[512], b1[512], b2[512], b3[512], b4[512], b5[512], saved[6][512];
static uint8_t *const bufs[6] = {b0, b1, b2, b3, b4, b5};

static void fill(void) {
    int i, j;
    for (i = 0; i < 6; i++)
        for (j = 0; j < 512; j++) saved[i][j] = bufs[i][j] = (uint8_t)(31 * i + 7 * j + 1);
}

static void zero_check(const char *name) {
    int i;
    for (i = 0; i < 6; i++)
        if (memcmp(saved[i], bufs[i], 512) != 0) {
            printf("FAIL %s with nblocks 0 changed argument %d\n", name, i + 1);
            failures++;
        }
    zero_checked++;
}

static void hex(const char *s, uint8_t *out) {
    unsigned v;
    for (; *s; s += 2, out++) { sscanf(s, "%2x", &v); *out = (uint8_t)v; }
}

static void expect(const char *what, const uint8_t *got, const char *want_hex) {
    uint8_t want[16];
    hex(want_hex, want);
    if (memcmp(got, want, 16) != 0) { printf("FAIL %s\n", what); failures++; }
    else printf("ok %s\n", what);
}

/* GCM specification test case 2: GHASH(H, {}, C) over C and the lengths block. */
static void ghash_case_2(void) {
    uint8_t h[ASMGEN_GHASH_KEY_BYTES], data[2 * ASMGEN_GHASH_BLOCK_BYTES] = {0};
    uint8_t table[ASMGEN_GHASH_KEY_TABLE_BYTES], state[ASMGEN_GHASH_STATE_BYTES] = {0};
    hex("66e94bd4ef8a2c3b884cfa59ca342b2e", h);
    hex("0388dace60b6a392f328c2b971b2fe78", data);
    data[31] = 0x80; /* len(A) = 0, len(C) = 128 bits */
    asmgen_ghash_init_avx(table, h);
    asmgen_ghash_update_avx(state, table, data, 2);
    expect("ghash x86_64-pclmulqdq-avx", state, "f38cbb1ad69223dcc3457ae5b6b0f885");
    if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
          __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq")))
        return;
    memset(state, 0, sizeof state);
    asmgen_ghash_init_vpclmul_avx512(table, h);
    asmgen_ghash_update_vpclmul_avx512(state, table, data, 2);
    expect("ghash x86_64-vpclmul-avx512", state, "f38cbb1ad69223dcc3457ae5b6b0f885");
}

/* 40 blocks (the zmm set's 32-block loop, then its ymm tail) agree with the AVX set, GHASH and POLYVAL. */
static void hash_sets_agree(void) {
    uint8_t h[16], data[40 * 16], table[ASMGEN_GHASH_KEY_TABLE_BYTES], want[16] = {0}, got[16] = {0};
    size_t i;
    if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
          __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq")))
        return;
    for (i = 0; i < sizeof h; i++) h[i] = (uint8_t)(3 * i + 1);
    for (i = 0; i < sizeof data; i++) data[i] = (uint8_t)(7 * i + 5);
    asmgen_ghash_init_avx(table, h);
    asmgen_ghash_update_avx(want, table, data, 40);
    asmgen_ghash_init_vpclmul_avx512(table, h);
    asmgen_ghash_update_vpclmul_avx512(got, table, data, 40);
    if (memcmp(got, want, 16) != 0) { printf("FAIL ghash 40 blocks x86_64-vpclmul-avx512\n"); failures++; }
    else printf("ok ghash 40 blocks x86_64-vpclmul-avx512\n");
    memset(want, 0, 16);
    memset(got, 0, 16);
    asmgen_polyval_init_avx(table, h);
    asmgen_polyval_update_avx(want, table, data, 40);
    asmgen_polyval_init_vpclmul_avx512(table, h);
    asmgen_polyval_update_vpclmul_avx512(got, table, data, 40);
    if (memcmp(got, want, 16) != 0) { printf("FAIL polyval 40 blocks x86_64-vpclmul-avx512\n"); failures++; }
    else printf("ok polyval 40 blocks x86_64-vpclmul-avx512\n");
}

typedef void (*ecb_fn)(const uint8_t *, uint8_t *, const uint8_t *, size_t);

/* GB/T 32907-2016 example 1, encrypted and decrypted in place with one set's ECB. */
static void sm4_example(const char *set, ecb_fn ecb) {
    uint8_t key[ASMGEN_SM4_KEY_BYTES], block[ASMGEN_SM4_BLOCK_BYTES];
    uint8_t rk_enc[ASMGEN_SM4_ROUND_KEYS_BYTES], rk_dec[ASMGEN_SM4_ROUND_KEYS_BYTES];
    char what[80];
    hex("0123456789abcdeffedcba9876543210", key);
    memcpy(block, key, 16);
    asmgen_sm4_expand_key_avx(rk_enc, rk_dec, key);
    ecb(rk_enc, block, block, 1);
    snprintf(what, sizeof what, "sm4 encrypt %s", set);
    expect(what, block, "681edf34d206965e86b3e94f536e4246");
    ecb(rk_dec, block, block, 1);
    snprintf(what, sizeof what, "sm4 decrypt %s", set);
    expect(what, block, "0123456789abcdeffedcba9876543210");
}

static void zero_counts(void);

int main(void) {
    int sets = 0;
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("avx") && __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul"))) {
        printf("skip: no AVX + AES-NI + PCLMULQDQ\n");
        return 0;
    }
    ghash_case_2();
    hash_sets_agree();
    sm4_example("x86_64-aesni-avx", asmgen_sm4_ecb_avx), sets++;
    if (__builtin_cpu_supports("avx2")) sm4_example("x86_64-aesni-avx2", asmgen_sm4_ecb_avx2), sets++;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("vaes"))
        sm4_example("x86_64-vaes-avx2", asmgen_sm4_ecb_vaes), sets++;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f")
        && __builtin_cpu_supports("avx512bw"))
        sm4_example("x86_64-vaes-avx512", asmgen_sm4_ecb_vaes512), sets++;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("gfni"))
        sm4_example("x86_64-gfni-avx2", asmgen_sm4_ecb_gfni), sets++;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("gfni") && __builtin_cpu_supports("avx512f")
        && __builtin_cpu_supports("avx512bw"))
        sm4_example("x86_64-gfni-avx512", asmgen_sm4_ecb_gfni512), sets++;
    zero_counts();
    printf("sets %d zero-count %d failures %d\n", sets, zero_checked, failures);
    return failures != 0;
}
"#;

/// The C program: [`PROGRAM`] and the zero-count calls generated from the headers.
fn program(headers: &[String]) -> String {
    let calls: String = headers.iter().map(|h| zero_count_calls(h)).collect();
    format!("{PROGRAM}\nstatic void zero_counts(void) {{\n{calls}}}\n")
}

/// Builds and runs the C program against `dir`'s headers and listings; its output.
fn build_and_run(dir: &Path, source: &str, tag: &str) -> (bool, String) {
    let scratch = std::env::temp_dir().join(format!("asmgen-c-header-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let (c, exe) = (scratch.join("main.c"), scratch.join("main"));
    std::fs::write(&c, source).unwrap();
    let mut cc = Command::new("gcc");
    cc.args(["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O1", "-I"]).arg(dir).arg(&c);
    cc.args([dir.join("ghash.S"), dir.join("sm4.S")]).arg("-o").arg(&exe);
    run(&mut cc);
    let out = Command::new(&exe).output().unwrap();
    let _ = std::fs::remove_dir_all(&scratch);
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn c_header_program_calls_ghash_and_sm4_through_the_x86_64_linux_headers() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        println!("notice: not an x86_64 Linux host: the C program is not built");
        return;
    }
    if !have_all(&["gcc"], "building a C program against the listings") {
        return;
    }
    let dir = workspace().join("generated/x86_64-linux");
    let headers: Vec<String> =
        ["ghash", "sm4"].iter().map(|l| std::fs::read_to_string(header_of(&dir, l)).unwrap()).collect();
    let (ok, out) = build_and_run(&dir, &program(&headers), "good");
    print!("{out}");
    assert!(ok, "the C program failed:\n{out}");
    if out.starts_with("skip:") {
        return;
    }
    assert!(out.contains("ok ghash x86_64-pclmulqdq-avx") && out.contains("ok sm4 decrypt x86_64-aesni-avx\n"));
    assert!(!out.contains("zero-count 0 "), "no function was called with a count of 0");
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512f") && has!("avx512bw") && has!("avx2") && has!("vpclmulqdq") {
            for what in ["ghash x86_64-vpclmul-avx512", "ghash 40 blocks x86_64-vpclmul-avx512", "polyval 40 blocks"] {
                assert!(out.contains(&format!("ok {what}")), "{what}: {out}");
            }
        }
    }

    // The program can fail: a wrong expected answer is reported, and so is a zero-count call that writes.
    let wrong = program(&headers).replace("681edf34d206965e86b3e94f536e4246", "681edf34d206965e86b3e94f536e4247");
    let (ok, out) = build_and_run(&dir, &wrong, "wrong");
    assert!(!ok && out.contains("FAIL sm4 encrypt x86_64-aesni-avx"), "a wrong answer passed:\n{out}");
    let writes = program(&headers).replacen("        fill();\n", "        fill();\n        b1[5] ^= 1;\n", 1);
    let (ok, out) = build_and_run(&dir, &writes, "writes");
    assert!(!ok && out.contains("with nblocks 0 changed argument 2"), "a changed buffer passed:\n{out}");
}

/// The files of x86_64-linux as `cargo xtask gen --out DIR --prefix myapp --visibility <v>` writes them,
/// in a fresh folder.
fn consumer_files(visibility: asmgen::emit::gas::Visibility, tag: &str) -> PathBuf {
    use asmgen_kernels::catalog::{generate_with, Naming};
    let dir = std::env::temp_dir().join(format!("asmgen-c-header-consumer-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let naming = Naming { prefix: "myapp".into(), visibility };
    for f in generate_with(asmgen::Target::X86_64_LINUX, &naming).unwrap() {
        let path = dir.join(&f.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, f.contents).unwrap();
    }
    dir.join("x86_64-linux")
}

/// Whether this host builds and runs x86_64 Linux C programs with gcc (notice and tool rule otherwise).
fn x86_64_linux_gcc(what: &str) -> bool {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        println!("notice: not an x86_64 Linux host: {what} not checked");
        return false;
    }
    have_all(&["gcc", "nm"], what)
}

#[test]
fn c_header_program_links_listings_generated_with_another_prefix() {
    use asmgen::emit::gas::Visibility;
    if !x86_64_linux_gcc("a C program against prefixed listings") {
        return;
    }
    let dir = consumer_files(Visibility::Hidden, "prefix");
    let headers: Vec<String> =
        ["ghash", "sm4"].iter().map(|l| std::fs::read_to_string(dir.join(format!("myapp_{l}.h"))).unwrap()).collect();
    assert!(headers.iter().all(|h| !h.contains("asmgen_") && !h.contains("ASMGEN_")), "the prefix is everywhere");
    for l in ["ghash", "sm4"] {
        let listing = std::fs::read_to_string(dir.join(format!("{l}.S"))).unwrap();
        let left: Vec<&str> = listing.lines().filter(|line| line.contains("asmgen_")).take(3).collect();
        assert!(left.is_empty(), "{l}.S still names asmgen_ (local labels follow the prefix): {left:?}");
    }
    let source = program(&headers).replace("asmgen_", "myapp_").replace("ASMGEN_", "MYAPP_");
    let (ok, out) = build_and_run(&dir, &source, "prefix");
    print!("{out}");
    assert!(ok && out.contains("ok sm4 decrypt x86_64-aesni-avx\n") || out.starts_with("skip:"), "{out}");
    // The objects define the prefixed symbols only (the kernels' local labels never reach the symbol table).
    for l in ["ghash", "sm4"] {
        let obj = dir.join(format!("{l}.o"));
        run(Command::new("gcc").arg("-c").arg(dir.join(format!("{l}.S"))).arg("-o").arg(&obj));
        let syms = run(Command::new("nm").arg(&obj));
        assert!(!syms.contains("asmgen"), "{l}.o still has asmgen symbols:\n{syms}");
        assert!(syms.contains(&format!("T myapp_{l}_")), "{l}.o: no myapp_ functions:\n{syms}");
    }
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

/// A program that opens a shared library and calls SM4 through `dlsym`.
const DLSYM_PROGRAM: &str = r#"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "myapp_sm4.h"

int main(int argc, char **argv) {
    void *lib;
    void (*expand)(uint8_t *, uint8_t *, const uint8_t *);
    void (*ecb)(const uint8_t *, uint8_t *, const uint8_t *, size_t);
    uint8_t rk_enc[MYAPP_SM4_ROUND_KEYS_BYTES], rk_dec[MYAPP_SM4_ROUND_KEYS_BYTES], b[16];
    static const uint8_t key[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                    0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
    static const uint8_t want[16] = {0x68, 0x1e, 0xdf, 0x34, 0xd2, 0x06, 0x96, 0x5e,
                                     0x86, 0xb3, 0xe9, 0x4f, 0x53, 0x6e, 0x42, 0x46};
    (void)argc;
    lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) { printf("dlopen: %s\n", dlerror()); return 2; }
    *(void **)&expand = dlsym(lib, "myapp_sm4_expand_key_avx");
    *(void **)&ecb = dlsym(lib, "myapp_sm4_ecb_avx");
    if (!expand || !ecb) { printf("not exported\n"); return 3; }
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("avx") && __builtin_cpu_supports("aes"))) { printf("skip: no AVX + AES-NI\n"); return 0; }
    memcpy(b, key, 16);
    expand(rk_enc, rk_dec, key);
    ecb(rk_enc, b, b, 1);
    if (memcmp(b, want, 16) != 0) { printf("FAIL sm4 through dlsym\n"); return 1; }
    printf("ok sm4 through dlsym\n");
    return 0;
}
"#;

/// Builds `dir`'s listings into a shared library and runs [`DLSYM_PROGRAM`] on it: exit status and output.
fn dlsym_run(dir: &Path) -> (Option<i32>, String) {
    let so = dir.join("libmyapp.so");
    let mut cc = Command::new("gcc");
    cc.args(["-shared", "-fPIC"]).args([dir.join("ghash.S"), dir.join("sm4.S")]).arg("-o").arg(&so);
    run(&mut cc);
    let (c, exe) = (dir.join("dl.c"), dir.join("dl"));
    std::fs::write(&c, DLSYM_PROGRAM).unwrap();
    run(Command::new("gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(dir)
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .arg("-ldl"));
    let out = Command::new(&exe).arg(&so).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn c_header_shared_library_with_default_visibility_exports_its_kernels_to_dlsym() {
    use asmgen::emit::gas::Visibility;
    if !x86_64_linux_gcc("a shared library's exports") {
        return;
    }
    let dir = consumer_files(Visibility::Default, "default");
    let (code, out) = dlsym_run(&dir);
    print!("{out}");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("ok sm4 through dlsym") || out.starts_with("skip:"), "{out}");
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
    // The same library from hidden listings (the checked-in default) exports nothing dlsym finds.
    let dir = consumer_files(Visibility::Hidden, "hidden");
    let (code, out) = dlsym_run(&dir);
    assert_eq!((code, out.as_str()), (Some(3), "not exported\n"));
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
