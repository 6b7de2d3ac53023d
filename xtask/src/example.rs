//! `cargo xtask example`: the worked example outside the workspace (`examples/chacha20`, a crate of its own
//! that uses asmgen as another project would). Its formatting and lints are checked, then its tests run
//! natively, for aarch64 and riscv64 under qemu-user, and for x86_64-pc-windows-gnu under wine: the listing
//! its build writes and links for each target, the JIT, the portable code.
//!
//! The example builds into its own target folder (`examples/chacha20/target`). A missing cross tool skips
//! that target with a notice, or fails the task when the environment variable `CI` is set.

use crate::cross::{env_key, have, WineServer, WINE_PREFIX, WINE_RUNNER};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The example's folder, relative to the workspace root.
const EXAMPLE: &str = "examples/chacha20";

/// A cross run: the rustup target, its linker, the runner's program and arguments, and what it needs.
struct Run {
    triple: &'static str,
    linker: &'static str,
    /// The runner: a program and its arguments (the test binary follows).
    runner: &'static [&'static str],
    /// What runs it, printed.
    label: &'static str,
}

const QEMU_RUNS: &[Run] = &[
    Run {
        triple: "aarch64-unknown-linux-gnu",
        linker: "aarch64-linux-gnu-gcc",
        runner: &["qemu-aarch64", "-cpu", "max", "-L", "/usr/aarch64-linux-gnu"],
        label: "the NEON listing under qemu-aarch64",
    },
    Run {
        triple: "riscv64gc-unknown-linux-gnu",
        linker: "riscv64-linux-gnu-gcc",
        runner: &["qemu-riscv64", "-L", "/usr/riscv64-linux-gnu"],
        label: "the RV64I listing under qemu-riscv64",
    },
];

/// The Windows run: mingw-w64 links, wine runs (through the project's runner script, which retries once when
/// wine loses its server).
const WINDOWS: Run = Run {
    triple: "x86_64-pc-windows-gnu",
    linker: "x86_64-w64-mingw32-gcc",
    runner: &["bash", WINE_RUNNER],
    label: "the Win64 listing under wine",
};

/// `cargo <args>` in the example's folder, building into its own target folder.
fn cargo(root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    let dir = root.join(EXAMPLE);
    cmd.current_dir(&dir).env("CARGO_TARGET_DIR", dir.join("target")).args(args);
    cmd
}

fn status(what: &str, mut cmd: Command) -> Result<(), String> {
    let s = cmd.status().map_err(|e| format!("running cargo: {e}"))?;
    if s.success() {
        Ok(())
    } else {
        Err(format!("{EXAMPLE}: {what} failed"))
    }
}

/// Tools a run needs that are missing: an error under CI, else a notice and `false` (skip the run).
fn ready(run: &Run, extra: &[PathBuf]) -> Result<bool, String> {
    let mut missing: Vec<String> =
        [run.linker, run.runner[0]].into_iter().filter(|c| !have(c)).map(String::from).collect();
    if run.triple == WINDOWS.triple {
        missing.extend(["wine", "wineserver"].into_iter().filter(|c| !have(c)).map(String::from));
    }
    missing.extend(extra.iter().filter(|p| !p.exists()).map(|p| p.display().to_string()));
    if missing.is_empty() {
        return Ok(true);
    }
    let msg = format!("{}: missing {}; install with `bash .ci/install-deps`", run.triple, missing.join(", "));
    if std::env::var_os("CI").is_some() {
        return Err(msg);
    }
    println!("== skipped {msg}");
    Ok(false)
}

/// Runs the example's checks and tests: natively, under qemu, under wine (`args` selects runs by a prefix
/// of their triple, or `native`; none: all).
pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let wanted = |name: &str| args.is_empty() || args.iter().any(|a| name.starts_with(a.as_str()));
    if wanted("native") {
        println!("== {EXAMPLE}: rustfmt, clippy, tests (native)");
        status("cargo fmt --check", cargo(root, &["fmt", "--check"]))?;
        status("clippy", cargo(root, &["clippy", "--all-targets", "--", "-D", "warnings"]))?;
        status("cargo test", cargo(root, &["test"]))?;
    }
    for r in QEMU_RUNS.iter().filter(|r| wanted(r.triple)) {
        if !ready(r, &[])? {
            continue;
        }
        println!("== {EXAMPLE}: {} ({})", r.label, r.triple);
        let mut cmd = cargo(root, &["test", "--target", r.triple]);
        cmd.env(env_key(r.triple, "LINKER"), r.linker).env(env_key(r.triple, "RUNNER"), r.runner.join(" "));
        status(&format!("cargo test --target {}", r.triple), cmd)?;
    }
    if wanted(WINDOWS.triple) || args.iter().any(|a| a == "windows") {
        let prefix = root.join(WINE_PREFIX);
        let stub = prefix.join("drive_c/windows/system32/bcryptprimitives.dll");
        if ready(&WINDOWS, &[stub])? {
            println!("== {EXAMPLE}: {} ({})", WINDOWS.label, WINDOWS.triple);
            let runner = format!("bash {}", root.join(WINDOWS.runner[1]).display());
            let _server = WineServer::start(&prefix)?;
            let mut cmd = cargo(root, &["test", "--target", WINDOWS.triple]);
            cmd.env(env_key(WINDOWS.triple, "LINKER"), WINDOWS.linker)
                .env(env_key(WINDOWS.triple, "RUNNER"), runner)
                .env("WINEPREFIX", &prefix)
                .env("WINEDEBUG", "-all");
            status(&format!("cargo test --target {}", WINDOWS.triple), cmd)?;
        }
    }
    Ok(())
}
