//! `examples/c/example.c`: built against the x86_64-linux headers and listings with gcc (GNU as) and with
//! clang-19 (its integrated assembler), run, and every check reported `ok`; a wrong published answer makes it
//! fail; and cross-built for aarch64 (aarch64-linux-gnu-gcc, static) and run under `qemu-aarch64 -cpu max`,
//! where both the NEON and the SM4-extension sets run. Needs gcc, clang-19 and the cross tools on an x86_64 Linux host; without them it prints a notice and passes unless `CI`
//! is set. Skipped under wine (`HOST_TOOL_TESTS` in xtask/src/cross.rs): host tools.

use std::path::Path;
use std::process::Command;

use asmgen_tests::{have_all, run, workspace};

/// Builds `source` with `cc` (statically) against `target`'s listings and runs it, under `runner` when
/// given (a command and its arguments before the program): success and stdout.
fn build_and_run(cc: &str, target: &str, runner: &[&str], source: &str, tag: &str) -> (bool, String) {
    let dir = workspace().join("generated").join(target);
    let scratch = std::env::temp_dir().join(format!("asmgen-c-example-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let (c, exe) = (scratch.join("example.c"), scratch.join("example"));
    std::fs::write(&c, source).unwrap();
    let mut cmd = Command::new(cc);
    cmd.args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-static", "-I"]).arg(&dir).arg(&c);
    cmd.args([dir.join("ghash.S"), dir.join("sm4.S")]).arg("-o").arg(&exe);
    run(&mut cmd);
    let out = match runner.split_first() {
        Some((r, args)) => Command::new(r).args(args).arg(&exe).output().unwrap(),
        None => Command::new(&exe).output().unwrap(),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn c_example_checks_published_vectors_with_gcc_and_clang() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        println!("notice: not an x86_64 Linux host: the C example is not built");
        return;
    }
    if !have_all(&["gcc", "clang-19"], "building examples/c") {
        return;
    }
    let source = std::fs::read_to_string(workspace().join("examples/c/example.c")).unwrap();
    assert!(Path::new(&workspace().join("examples/c/build.sh")).exists());
    for cc in ["gcc", "clang-19"] {
        let (ok, out) = build_and_run(cc, "x86_64-linux", &[], &source, cc);
        print!("{out}");
        assert!(ok, "examples/c failed with {cc}:\n{out}");
        if out.starts_with("skip:") {
            continue;
        }
        for check in [
            "ok ghash",
            "ok polyval",
            "ok sm4 encrypt avx ",
            "ok sm4 decrypt avx ",
            "ok sm4-gcm decrypt tag",
            "failures 0",
        ] {
            assert!(out.contains(check), "{cc}: no `{check}` line:\n{out}");
        }
    }
    // The example can fail: a wrong published answer is reported and the exit status is not 0.
    let wrong = source.replace("f7a3b47b846119fae5b7866cf5e5b77e", "f7a3b47b846119fae5b7866cf5e5b77f");
    let (ok, out) = build_and_run("gcc", "x86_64-linux", &[], &wrong, "wrong");
    assert!(!ok && out.contains("FAIL polyval"), "a wrong answer passed:\n{out}");
}

#[test]
fn c_example_runs_on_aarch64_under_qemu() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        println!("notice: not an x86_64 Linux host: the C example is not cross-built");
        return;
    }
    if !have_all(&["aarch64-linux-gnu-gcc", "qemu-aarch64"], "cross-building examples/c for aarch64") {
        return;
    }
    let source = std::fs::read_to_string(workspace().join("examples/c/example.c")).unwrap();
    let qemu = ["qemu-aarch64", "-cpu", "max"];
    let (ok, out) = build_and_run("aarch64-linux-gnu-gcc", "aarch64-linux", &qemu, &source, "aarch64");
    print!("{out}");
    assert!(ok, "examples/c failed on aarch64:\n{out}");
    for check in
        ["ok ghash", "ok polyval", "ok sm4-gcm decrypt tag", "ok sm4-ctr neon ", "ok sm4-ctr ce ", "failures 0"]
    {
        assert!(out.contains(check), "aarch64: no `{check}` line:\n{out}");
    }
}

#[test]
fn c_example_runs_on_riscv64_under_qemu() {
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        println!("notice: not an x86_64 Linux host: the C example is not cross-built");
        return;
    }
    let qemu = workspace().join(".tools/qemu10/usr/bin/qemu-riscv64");
    let qemu = qemu.to_str().unwrap();
    if !have_all(&["riscv64-linux-gnu-gcc", qemu], "cross-building examples/c for riscv64") {
        return;
    }
    let source = std::fs::read_to_string(workspace().join("examples/c/example.c")).unwrap();
    // The example has no riscv64 CPU detection: the environment variable says the CPU has Zbc and Zksed.
    let runner = ["env", "ASMGEN_EXAMPLE_RISCV_SCALAR=1", qemu, "-cpu", "rv64,zbb=true,zbc=true,zksed=true"];
    let (ok, out) = build_and_run("riscv64-linux-gnu-gcc", "riscv64-linux", &runner, &source, "riscv64");
    print!("{out}");
    assert!(ok, "examples/c failed on riscv64:\n{out}");
    for check in ["ok ghash", "ok polyval", "ok sm4-gcm decrypt tag", "ok sm4-ctr zksed ", "failures 0"] {
        assert!(out.contains(check), "riscv64: no `{check}` line:\n{out}");
    }
}
