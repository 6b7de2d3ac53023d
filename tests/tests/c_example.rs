//! `examples/c/example.c` on all three architectures with both compilers: built against the x86_64-linux headers
//! and listings with gcc (GNU as) and with clang-19 (its integrated assembler) and run natively; cross-built for
//! aarch64 and riscv64 with the cross gcc and with clang-19 (`--target`, the cross gcc's sysroot and
//! `--gcc-toolchain=/usr`: clang compiles and assembles, the cross binutils' ld links) and run under qemu.
//! Every kernel set the CPU has is checked against published vectors (GHASH, POLYVAL, SM4, SM4-CTR, SM4-XTS
//! whole units through the xts_unit kernels, SM4-GCM including gcm_dec's restore on a bad tag), ECB, CTR and
//! CBC decryption over 100 blocks against the set's own one-block ECB (past the zmm sets' 48-block loop), and
//! every function taking a count is called with 0; the example detects the sets itself (riscv64:
//! the riscv_hwprobe system call, which qemu 10 answers), so a qemu CPU without an extension shows that the
//! sets needing it are left out. A wrong published answer (a GHASH value, an XTS stolen-tail byte), and a
//! zero-count call that writes, make it fail.
//! Needs gcc, clang-19 and the cross tools on an x86_64 Linux host; without them it prints a notice and passes
//! unless `CI` is set. Skipped under wine (`HOST_TOOL_TESTS` in xtask/src/cross.rs): host tools.

use std::path::{Path, PathBuf};
use std::process::Command;

use asmgen_tests::{have_all, run, workspace};

/// The example's source.
fn source() -> String {
    assert!(Path::new(&workspace().join("examples/c/build.sh")).exists());
    std::fs::read_to_string(workspace().join("examples/c/example.c")).unwrap()
}

/// Builds `source` with `cc` (a compiler and its first arguments; statically) against `target`'s listings,
/// into a scratch folder: the program's path.
fn build(cc: &[&str], target: &str, source: &str, tag: &str) -> PathBuf {
    let dir = workspace().join("generated").join(target);
    let scratch = std::env::temp_dir().join(format!("asmgen-c-example-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let (c, exe) = (scratch.join("example.c"), scratch.join("example"));
    std::fs::write(&c, source).unwrap();
    let mut cmd = Command::new(cc[0]);
    cmd.args(&cc[1..]);
    cmd.args(["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O1", "-static", "-I"]).arg(&dir).arg(&c);
    cmd.args([dir.join("ghash.S"), dir.join("sm4.S")]).arg("-o").arg(&exe);
    run(&mut cmd);
    exe
}

/// Runs the program, under `runner` when given (a command and its arguments before the program): success
/// and stdout.
fn run_exe(runner: &[&str], exe: &Path) -> (bool, String) {
    let out = match runner.split_first() {
        Some((r, args)) => Command::new(r).args(args).arg(exe).output().unwrap(),
        None => Command::new(exe).output().unwrap(),
    };
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Removes the scratch folder of a program [`build`] made.
fn clean(exe: &Path) {
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// Asserts that the run succeeded and printed every line of `checks` (prefixes of `ok ...` lines), and
/// that it ran `sets` SM4 kernel sets.
fn assert_passes(what: &str, (ok, out): &(bool, String), sets: usize, checks: &[&str]) {
    print!("{what}:\n{out}");
    assert!(ok, "examples/c failed ({what}):\n{out}");
    for check in checks.iter().chain(&["ok zero-count "]) {
        assert!(out.lines().any(|l| l.starts_with(check)), "{what}: no `{check}` line:\n{out}");
    }
    assert!(out.contains(&format!("sets {sets} failures 0")), "{what}: not {sets} sets without failures:\n{out}");
}

/// Whether the host builds x86_64 Linux programs; a notice otherwise.
fn x86_64_linux_host() -> bool {
    let yes = cfg!(all(target_arch = "x86_64", target_os = "linux"));
    if !yes {
        println!("notice: not an x86_64 Linux host: the C example is not built");
    }
    yes
}

#[test]
fn c_example_checks_published_vectors_with_gcc_and_clang() {
    if !x86_64_linux_host() || !have_all(&["gcc", "clang-19"], "building examples/c") {
        return;
    }
    let source = source();
    for cc in ["gcc", "clang-19"] {
        let exe = build(&[cc], "x86_64-linux", &source, cc);
        let (ok, out) = run_exe(&[], &exe);
        clean(&exe);
        if ok && out.starts_with("skip:") {
            continue;
        }
        let checks = ["ok ghash", "ok polyval", "ok sm4 encrypt avx ", "ok sm4-xts gb encrypt avx in place"];
        let long = ["ok sm4-ecb avx, 100 blocks", "ok sm4-ctr avx, 100 blocks", "ok sm4-cbc decrypt avx, 100 blocks"];
        let checks =
            [&checks[..], &long[..], &["ok sm4-gcm gcm_enc", "ok sm4-gcm gcm_dec wrong tag avx: ciphertext restored"]]
                .concat();
        let sets = out.lines().filter(|l| l.starts_with("ok zero-count ") && !l.contains("pclmul")).count();
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx512bw") && has!("avx2") && has!("vpclmulqdq") {
                for what in ["ok ghash vpclmul-avx512", "ok polyval vpclmul-avx512", "ok zero-count vpclmul-avx512"] {
                    assert!(out.contains(what), "{cc}: {what} missing:\n{out}");
                }
            }
            if has!("avx512f") && has!("avx512bw") && has!("avx2") && has!("gfni") && has!("bmi2") {
                // The zmm kernels' 48-block loop, reached by the 100-block checks.
                assert!(out.contains("ok sm4-ctr gfni512, 100 blocks"), "{cc}: the zmm CTR check missing:\n{out}");
            }
        }
        assert_passes(cc, &(ok, out), sets.max(1), &checks);
    }
}

#[test]
fn c_example_fails_on_a_wrong_answer_and_on_a_zero_count_write() {
    if !x86_64_linux_host() || !have_all(&["gcc"], "building examples/c") {
        return;
    }
    let source = source();
    let zero_call = "ZERO(s, ecb, (zb[0], zb[1], zb[2], 0));";
    assert!(source.contains(zero_call), "the example calls ecb with a count of 0");
    let wrong = source
        .replace("f7a3b47b846119fae5b7866cf5e5b77e", "f7a3b47b846119fae5b7866cf5e5b77f")
        .replace(zero_call, "ZERO(s, ecb, (zb[0], zb[1], zb[2], 1));")
        // The IEEE 56-byte unit's last tail byte: only the stolen tail checks it.
        .replace("6c0db6d2cfc7", "6c0db6d2cfc8");
    let exe = build(&["gcc"], "x86_64-linux", &wrong, "wrong");
    let (ok, out) = run_exe(&[], &exe);
    clean(&exe);
    if ok && out.starts_with("skip:") {
        return;
    }
    assert!(!ok && out.contains("FAIL polyval"), "a wrong answer passed:\n{out}");
    assert!(out.contains("FAIL sm4-xts ieee encrypt avx out of place"), "a wrong XTS tail passed:\n{out}");
    assert!(out.contains("FAIL zero-count ecb avx changed argument 2"), "a zero-count write passed:\n{out}");
}

#[test]
fn c_example_runs_on_aarch64_under_qemu_with_gcc_and_clang() {
    let clang = ["clang-19", "--target=aarch64-linux-gnu", "--sysroot=/usr/aarch64-linux-gnu", "--gcc-toolchain=/usr"];
    let tools = ["aarch64-linux-gnu-gcc", "clang-19", "qemu-aarch64"];
    if !x86_64_linux_host() || !have_all(&tools, "cross-building examples/c for aarch64") {
        return;
    }
    let source = source();
    for (tag, cc) in [("aarch64-gcc", &["aarch64-linux-gnu-gcc"][..]), ("aarch64-clang", &clang)] {
        let exe = build(cc, "aarch64-linux", &source, tag);
        let checks =
            ["ok ghash pmull", "ok polyval pmull", "ok sm4-ctr neon ", "ok sm4-ctr ce ", "ok sm4-xts ieee encrypt ce "];
        let checks = [&checks[..], &["ok sm4-gcm gcm_enc tag ce", "ok sm4-gcm gcm_dec wrong tag ce refused"]].concat();
        let checks = [&checks[..], &["ok zero-count neon", "ok zero-count ce"]].concat();
        assert_passes(tag, &run_exe(&["qemu-aarch64", "-cpu", "max"], &exe), 2, &checks);
        // A CPU with PMULL but no SM4 extension: the NEON set alone.
        let no_sm4 = run_exe(&["qemu-aarch64", "-cpu", "cortex-a72"], &exe);
        clean(&exe);
        assert_passes(&format!("{tag} cortex-a72"), &no_sm4, 1, &["ok sm4-ctr neon "]);
        assert!(!no_sm4.1.contains(" ce "), "{tag}: the SM4-extension set ran without the extension");
    }
}

#[test]
fn c_example_runs_on_riscv64_under_qemu_with_gcc_and_clang() {
    let qemu = workspace().join(".tools/qemu10/usr/bin/qemu-riscv64");
    let qemu = qemu.to_str().unwrap();
    let clang = [
        "clang-19",
        "--target=riscv64-linux-gnu",
        "-march=rv64gc",
        "--sysroot=/usr/riscv64-linux-gnu",
        "--gcc-toolchain=/usr",
    ];
    if !x86_64_linux_host()
        || !have_all(&["riscv64-linux-gnu-gcc", "clang-19", qemu], "cross-building examples/c for riscv64")
    {
        return;
    }
    let source = source();
    for (tag, cc) in [("riscv64-gcc", &["riscv64-linux-gnu-gcc"][..]), ("riscv64-clang", &clang)] {
        let exe = build(cc, "riscv64-linux", &source, tag);
        // `max` has every extension the sets need: all four (GHASH zbc and zvkg, SM4 zksed and zvksed).
        let checks = ["ok ghash zbc", "ok ghash zvkg", "ok polyval zvkg", "ok sm4-ctr zksed ", "ok sm4-ctr zvksed "];
        let checks =
            [&checks[..], &["ok sm4-xts gb encrypt zvksed in place", "ok sm4-gcm decrypt tag zvksed"]].concat();
        let checks = [&checks[..], &["ok zero-count zvkg", "ok zero-count zksed", "ok zero-count zvksed"]].concat();
        assert_passes(tag, &run_exe(&[qemu, "-cpu", "max"], &exe), 2, &checks);
        // Scalar extensions only: riscv_hwprobe reports no V, so the vector sets stay out.
        let scalar = run_exe(&[qemu, "-cpu", "rv64,zbb=true,zbc=true,zksed=true"], &exe);
        clean(&exe);
        assert_passes(&format!("{tag} scalar"), &scalar, 1, &["ok ghash zbc", "ok sm4-gcm decrypt tag zksed"]);
        assert!(!scalar.1.contains("zv"), "{tag}: a vector set ran on a CPU without V");
    }
}
