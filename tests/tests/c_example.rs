//! `examples/c/example.c`: built against the x86_64-linux headers and listings with gcc (GNU as) and with
//! clang-19 (its integrated assembler), run, and every check reported `ok`; a wrong published answer makes it
//! fail. Needs gcc and clang-19 on an x86_64 Linux host; without them it prints a notice and passes unless `CI`
//! is set. Skipped under wine (`HOST_TOOL_TESTS` in xtask/src/cross.rs): host tools.

use std::path::Path;
use std::process::Command;

use asmgen_tests::{have_all, run, workspace};

/// Builds `source` with `cc` against the x86_64-linux listings and runs it: success and stdout.
fn build_and_run(cc: &str, source: &str, tag: &str) -> (bool, String) {
    let dir = workspace().join("generated/x86_64-linux");
    let scratch = std::env::temp_dir().join(format!("asmgen-c-example-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let (c, exe) = (scratch.join("example.c"), scratch.join("example"));
    std::fs::write(&c, source).unwrap();
    let mut cmd = Command::new(cc);
    cmd.args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-I"]).arg(&dir).arg(&c);
    cmd.args([dir.join("ghash.S"), dir.join("sm4.S")]).arg("-o").arg(&exe);
    run(&mut cmd);
    let out = Command::new(&exe).output().unwrap();
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
        let (ok, out) = build_and_run(cc, &source, cc);
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
    let (ok, out) = build_and_run("gcc", &wrong, "wrong");
    assert!(!ok && out.contains("FAIL polyval"), "a wrong answer passed:\n{out}");
}
