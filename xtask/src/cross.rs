//! `cargo xtask cross` and `cargo xtask bench`: commands that run other cargo invocations.
//!
//! `cross` runs the runtime's test suite (the `asmgen-tests` crate) for aarch64 and riscv64 under qemu-user,
//! with the listings assembled by the cross GNU as (see `../shared/CROSS.md`). `ASMGEN_EXPECT_ASM=1` makes the
//! dispatch test fail if the listing kernels do not run, so a fallback cannot hide a broken listing.

use std::path::Path;
use std::process::Command;

/// A cross target: rustup triple, linker, and the qemu command line that runs its binaries.
struct CrossTarget {
    triple: &'static str,
    linker: &'static str,
    /// qemu binary: a name on PATH, or a path relative to the workspace root.
    qemu: &'static str,
    args: &'static str,
    sysroot: &'static str,
}

const TARGETS: [CrossTarget; 2] = [
    CrossTarget {
        triple: "aarch64-unknown-linux-gnu",
        linker: "aarch64-linux-gnu-gcc",
        qemu: "qemu-aarch64",
        args: "-cpu max",
        sysroot: "/usr/aarch64-linux-gnu",
    },
    CrossTarget {
        triple: "riscv64gc-unknown-linux-gnu",
        linker: "riscv64-linux-gnu-gcc",
        // qemu 7.2 (bookworm) lacks riscv_hwprobe, so feature detection would see no Zbb/Zbc; qemu 10 from
        // bookworm-backports has it. `.ci/fetch-qemu10.sh` puts it here.
        qemu: ".tools/qemu10/usr/bin/qemu-riscv64",
        args: "-cpu rv64,zbb=true,zbc=true",
        sysroot: "/usr/riscv64-linux-gnu",
    },
];

fn env_key(triple: &str, what: &str) -> String {
    format!("CARGO_TARGET_{}_{what}", triple.to_uppercase().replace('-', "_"))
}

fn have(cmd: &str) -> bool {
    Command::new("sh").arg("-c").arg(format!("command -v {cmd} >/dev/null")).status().is_ok_and(|s| s.success())
}

/// Runs the test suite for each cross target (or the ones named in `args`).
pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for t in TARGETS.iter().filter(|t| args.is_empty() || args.iter().any(|a| t.triple.starts_with(a.as_str()))) {
        let qemu = if t.qemu.contains('/') { root.join(t.qemu).display().to_string() } else { t.qemu.to_string() };
        let missing: Vec<&str> = [t.linker, qemu.as_str()].into_iter().filter(|c| !have(c)).collect();
        if !missing.is_empty() {
            return Err(format!(
                "{}: missing {}; install with `.ci/install-deps` (apt packages, rustup targets, qemu 10)",
                t.triple,
                missing.join(", ")
            ));
        }
        println!("== {} under {} {}", t.triple, qemu, t.args);
        let status = Command::new(&cargo)
            .current_dir(root)
            .args(["test", "-p", "asmgen-tests", "--target", t.triple])
            .env(env_key(t.triple, "LINKER"), t.linker)
            .env(env_key(t.triple, "RUNNER"), format!("{qemu} {} -L {}", t.args, t.sysroot))
            .env("ASMGEN_EXPECT_ASM", "1")
            .status()
            .map_err(|e| format!("running cargo: {e}"))?;
        if !status.success() {
            return Err(format!("tests failed for {}", t.triple));
        }
    }
    Ok(())
}

/// Builds and runs the benchmark binary in release mode.
pub fn bench(root: &Path, args: &[String]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["run", "--quiet", "--release", "-p", "asmgen-tests", "--bin", "bench", "--"])
        .args(args)
        .status()
        .map_err(|e| format!("running cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err("benchmark failed".into())
    }
}
