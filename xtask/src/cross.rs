//! `cargo xtask cross`, `cargo xtask jit-tests` and `cargo xtask bench`: commands that run other cargo
//! invocations.
//!
//! `jit-tests` runs the runtime's test suite natively on the JIT's kernels (`ASMGEN_BACKEND=jit`), once per
//! x86_64 kernel set ([`NATIVE_JIT_RUNS`]: `ASMGEN_ISA` caps the choice, so each set is the JIT's once).
//!
//! `cross` runs the runtime's test suite (the `asmgen-tests` crate) for aarch64 and riscv64 under qemu-user,
//! with the listings assembled by the cross GNU as (see `../shared/CROSS.md`), once per emulated CPU model in
//! [`RUNS`], then for x86_64-pc-windows-gnu under wine (`cross windows` alone), on the listings and on the JIT's
//! kernels. Each run names the kernels the dispatcher must pick on that CPU (`ASMGEN_EXPECT_GHASH`,
//! `ASMGEN_EXPECT_SM4`), so a fallback cannot hide a broken fast path.

use std::path::Path;
use std::process::Command;

/// A cross target: rustup triple, linker and sysroot.
struct CrossTarget {
    triple: &'static str,
    linker: &'static str,
    sysroot: &'static str,
}

const AARCH64: CrossTarget = CrossTarget {
    triple: "aarch64-unknown-linux-gnu",
    linker: "aarch64-linux-gnu-gcc",
    sysroot: "/usr/aarch64-linux-gnu",
};
const RISCV64: CrossTarget = CrossTarget {
    triple: "riscv64gc-unknown-linux-gnu",
    linker: "riscv64-linux-gnu-gcc",
    sysroot: "/usr/riscv64-linux-gnu",
};

/// One run of the suite: a target, the qemu binary and CPU model, extra environment, and the kernels that CPU
/// must get.
struct Run {
    target: &'static CrossTarget,
    /// What the run checks, printed before it.
    label: &'static str,
    /// qemu binary: a name on PATH, or a path relative to the workspace root.
    qemu: &'static str,
    cpu: &'static str,
    expect_ghash: &'static str,
    expect_sm4: &'static str,
    /// Extra environment of the run (`ASMGEN_BACKEND=jit` for the JIT rows).
    env: &'static [(&'static str, &'static str)],
}

const JIT: &[(&str, &str)] = &[("ASMGEN_BACKEND", "jit")];

/// qemu 7.2 (bookworm) lacks riscv_hwprobe, so feature detection would see no extension there; qemu 10 from
/// bookworm-backports has it and runs the vector crypto extensions. `.ci/fetch-qemu10.sh` puts it here.
pub(crate) const QEMU10_RISCV: &str = ".tools/qemu10/usr/bin/qemu-riscv64";

const RUNS: &[Run] = &[
    Run {
        target: &AARCH64,
        label: "SM4 and PMULL (-cpu max)",
        qemu: "qemu-aarch64",
        cpu: "max",
        expect_ghash: "aot/aarch64-pmull",
        expect_sm4: "aot/aarch64-sm4ce",
        env: &[],
    },
    Run {
        target: &AARCH64,
        label: "JIT kernels, SM4 and PMULL (-cpu max, ASMGEN_BACKEND=jit)",
        qemu: "qemu-aarch64",
        cpu: "max",
        expect_ghash: "jit/aarch64-pmull",
        expect_sm4: "jit/aarch64-sm4ce",
        env: JIT,
    },
    Run {
        target: &AARCH64,
        label: "PMULL without SM4: the NEON SM4 kernels (-cpu neoverse-n1)",
        qemu: "qemu-aarch64",
        cpu: "neoverse-n1",
        expect_ghash: "aot/aarch64-pmull",
        expect_sm4: "aot/aarch64-neon",
        env: &[],
    },
    Run {
        target: &AARCH64,
        label: "JIT kernels, PMULL without SM4: NEON (-cpu neoverse-n1, ASMGEN_BACKEND=jit)",
        qemu: "qemu-aarch64",
        cpu: "neoverse-n1",
        expect_ghash: "jit/aarch64-pmull",
        expect_sm4: "jit/aarch64-neon",
        env: JIT,
    },
    Run {
        target: &RISCV64,
        label: "Zbb + Zbc + Zksed scalar",
        qemu: QEMU10_RISCV,
        cpu: "rv64,zbb=true,zbc=true,zksed=true",
        expect_ghash: "aot/riscv64-zbb-zbc",
        expect_sm4: "aot/riscv64-zksed",
        env: &[],
    },
    Run {
        target: &RISCV64,
        label: "JIT kernels, Zbb + Zbc + Zksed scalar (ASMGEN_BACKEND=jit)",
        qemu: QEMU10_RISCV,
        cpu: "rv64,zbb=true,zbc=true,zksed=true",
        expect_ghash: "jit/riscv64-zbb-zbc",
        expect_sm4: "jit/riscv64-zksed",
        env: JIT,
    },
    Run {
        target: &RISCV64,
        label: "V + vector crypto, VLEN 128",
        qemu: QEMU10_RISCV,
        cpu: "rv64,v=true,vlen=128,elen=64,zbb=true,zbc=true,zbkb=true,zksed=true,zvbb=true,zvbc=true,zvkb=true,\
              zvkg=true,zvksed=true,zbkx=true,zknd=true,zkne=true,zknh=true,zksh=true,zvkned=true,zvknha=true,\
              zvknhb=true,zvksh=true",
        expect_ghash: "aot/riscv64-zvkg",
        expect_sm4: "aot/riscv64-zvksed",
        env: &[],
    },
    Run {
        target: &RISCV64,
        label: "JIT kernels, V + vector crypto, VLEN 128 (ASMGEN_BACKEND=jit)",
        qemu: QEMU10_RISCV,
        cpu: "rv64,v=true,vlen=128,elen=64,zbb=true,zbc=true,zbkb=true,zksed=true,zvbb=true,zvbc=true,zvkb=true,\
              zvkg=true,zvksed=true,zbkx=true,zknd=true,zkne=true,zknh=true,zksh=true,zvkned=true,zvknha=true,\
              zvknhb=true,zvksh=true",
        expect_ghash: "jit/riscv64-zvkg",
        expect_sm4: "jit/riscv64-zvksed",
        env: JIT,
    },
    Run {
        target: &RISCV64,
        label: "V + vector crypto, VLEN 256",
        qemu: QEMU10_RISCV,
        cpu: "rv64,v=true,vlen=256,elen=64,zbb=true,zbc=true,zbkb=true,zksed=true,zvbb=true,zvbc=true,zvkb=true,\
              zvkg=true,zvksed=true,zbkx=true,zknd=true,zkne=true,zknh=true,zksh=true,zvkned=true,zvknha=true,\
              zvknhb=true,zvksh=true",
        expect_ghash: "aot/riscv64-zvkg",
        expect_sm4: "aot/riscv64-zvksed",
        env: &[],
    },
];

/// Whether `cmd` is on the `PATH`.
pub(crate) fn have(cmd: &str) -> bool {
    Command::new("sh").arg("-c").arg(format!("command -v {cmd} >/dev/null")).status().is_ok_and(|s| s.success())
}

/// Cargo's per-target variable `what` (`LINKER`, `RUNNER`) for `triple`.
pub(crate) fn env_key(triple: &str, what: &str) -> String {
    format!("CARGO_TARGET_{}_{what}", triple.to_uppercase().replace('-', "_"))
}

/// Runs the test suite for each run in [`RUNS`] (or those whose triple starts with one of `args`), then the
/// Windows rows ([`windows`]; `windows` or a prefix of its triple selects them).
pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    run_qemu(root, args)?;
    if args.is_empty() || args.iter().any(|a| a == "windows" || WINDOWS.starts_with(a.as_str())) {
        windows(root)?;
    }
    Ok(())
}

/// The Windows target: the suite is built with mingw-w64 and run under wine (`../shared/CROSS.md`).
const WINDOWS: &str = "x86_64-pc-windows-gnu";

/// The wine prefix of the Windows runs, relative to the workspace root; `.ci/wine/setup.sh` makes it (with the
/// stub `bcryptprimitives.dll` wine 8.0 lacks, without which every Rust program exits 53).
pub(crate) const WINE_PREFIX: &str = ".tools/wine";

/// The most seconds one test binary may run under qemu-user before `timeout` kills it (the slowest, the
/// interpreter and mode suites, take about two minutes).
const QEMU_BINARY_LIMIT_S: u32 = 900;

/// Tests skipped under wine and qemu-user: they check the listings with the host's Linux tools (GNU as,
/// llvm-mc, objdump), which a Windows program cannot start, and run natively in `cargo test --workspace`
/// already. (The JIT proof, tests/tests/jit.rs, only lowers there.)
const HOST_TOOL_TESTS: &[&str] = &[
    "_listings_assemble_identically_with_gnu_as_and_llvm_mc",
    "riscv64_objects_claim_only_the_base_isa", // tests/tests/assemblers.rs: riscv64-linux-gnu-gcc, readelf
    "_macos_code_equals_",
    "windows_listings_assemble_to_the_same_code_with_mingw_as_and_llvm_mc",
    "unwind_data_lists_every_saved_register_and_the_allocation",
    "cfp_",
    "nasm_", // tests/tests/nasm.rs: nasm, mingw-w64 binutils, llvm-readobj-19
    "aarch64_windows_unwind_data_matches_the_prologues_and_the_code_equals_aarch64_linux",
    "unwind_check_rejects_a_wrong_save_offset",
    "c_header_",    // tests/tests/c_header.rs: host gcc, g++ and clang-19
    "c_example_",   // tests/tests/c_example.rs: host gcc and clang-19 build examples/c
    "gc_sections_", // tests/tests/gc_sections.rs: host gcc and the aarch64 cross gcc link with --gc-sections
    // tests/tests/windows.rs and windows_arm64.rs (mingw-w64 binutils, llvm-mc-19, llvm-readobj-19) and
    // tests/tests/assemblers.rs (llvm-mc-19, nasm) on the test-only kernels with frames.
    "kernels_with_frames_have_unwind_data_for_",
    "kernels_with_frames_assemble_for_every_target",
    "importer_", // tests/tests/import.rs: host gcc, the cross gcc and llvm-mc-19 assemble what it imports
];

/// The kernel sets the dispatcher picks on this CPU, natively (GHASH, SM4), as the `backends` binary of the
/// tests crate prints them: wine runs the same CPU, so the Windows build must pick the same sets (`portable`
/// where the CPU has none). xtask does not link the runtime itself, so that `cargo xtask gen` builds even
/// when a listing does not assemble.
fn native_choice(root: &Path) -> Result<(String, String), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["run", "--quiet", "-p", "asmgen-tests", "--bin", "backends"])
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("the backends binary failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let set = |kind: &str| -> Result<String, String> {
        let backend = text
            .lines()
            .find_map(|l| l.strip_prefix(kind)?.strip_prefix(' '))
            .ok_or_else(|| format!("the backends binary printed no {kind} line: {text}"))?;
        Ok(backend.split_once('/').map_or(backend.to_string(), |(_, s)| s.to_string()))
    };
    Ok((set("ghash")?, set("sm4")?))
}

/// Runs the suite for x86_64-pc-windows-gnu under wine: once on the listings (`generated/x86_64-windows`,
/// Microsoft x64 ABI, assembled by mingw-w64 gcc), once on the JIT's kernels (`ASMGEN_BACKEND=jit`, lowered
/// for the Windows row). Each names the sets the dispatcher must pick: the native choice on this CPU.
fn windows(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let linker = "x86_64-w64-mingw32-gcc";
    let prefix = root.join(WINE_PREFIX);
    let missing: Vec<&str> = [linker, "wine", "wineserver"].into_iter().filter(|c| !have(c)).collect();
    let stub = prefix.join("drive_c/windows/system32/bcryptprimitives.dll");
    if !missing.is_empty() || !stub.is_file() {
        return Err(format!(
            "{WINDOWS}: missing {}; install with `bash .ci/install-deps` (wine64, mingw-w64, the wine prefix)",
            if missing.is_empty() { stub.display().to_string() } else { missing.join(", ") }
        ));
    }
    let (ghash, sm4) = native_choice(root)?;
    let _server = WineServer::start(&prefix)?;
    let runner = format!("bash {}", root.join(WINE_RUNNER).display());
    let aot = |s: &str| if s == "portable" { s.to_string() } else { format!("aot/{s}") };
    let jit = |s: &str| if s == "portable" { s.to_string() } else { format!("jit/{s}") };
    // Where the SM4 set is the AES-NI AVX2 one, the JIT measures ymm against xmm and may pick the AVX set: the
    // tests check that themselves (`asmgen_tests::jit_expectation`) when no expectation is named.
    let jit_sm4 = (sm4 != "x86_64-aesni-avx2").then(|| jit(&sm4));
    type WindowsRun<'a> = (&'a str, String, Option<String>, &'a [(&'a str, &'a str)]);
    let runs: [WindowsRun; 2] = [
        ("the listings", aot(&ghash), Some(aot(&sm4)), &[]),
        ("JIT kernels (ASMGEN_BACKEND=jit)", jit(&ghash), jit_sm4, JIT),
    ];
    for (label, expect_ghash, expect_sm4, env) in runs {
        println!(
            "== {WINDOWS}: {label} (wine; expects GHASH {expect_ghash}, SM4 {})",
            expect_sm4.as_deref().unwrap_or("the JIT's measured choice")
        );
        let mut cmd = Command::new(&cargo);
        cmd.current_dir(root)
            .args(TEST_WITH_JIT)
            .args(["--target", WINDOWS])
            .env(env_key(WINDOWS, "LINKER"), linker)
            .env(env_key(WINDOWS, "RUNNER"), &runner)
            .env("WINEPREFIX", &prefix)
            .env("WINEDEBUG", "-all")
            .env("ASMGEN_EXPECT_GHASH", &expect_ghash)
            // The test binaries re-run themselves (tests/tests/zeroize.rs) from inside wine: no runner.
            .env_remove("ASMGEN_TEST_RUNNER")
            .env_remove("ASMGEN_BACKEND")
            .envs(env.iter().copied())
            .arg("--")
            .args(HOST_TOOL_TESTS.iter().flat_map(|t| ["--skip", t]));
        match &expect_sm4 {
            Some(s) => cmd.env("ASMGEN_EXPECT_SM4", s),
            None => cmd.env_remove("ASMGEN_EXPECT_SM4"),
        };
        let status = cmd.status().map_err(|e| format!("running cargo: {e}"))?;
        if !status.success() {
            return Err(format!("tests failed for {WINDOWS} ({label})"));
        }
    }
    Ok(())
}

/// The cargo runner of the Windows rows: wine, run once more only when wine lost its server (see there).
pub(crate) const WINE_RUNNER: &str = ".ci/wine/run.sh";

/// A persistent wineserver for the Windows rows (`wineserver -p`), stopped when dropped. Without it each test
/// binary's wine starts a server that lingers and exits after the binary; a binary starting as it exits gets
/// "wine client error: ... Connection reset by peer" and fails (seen in CI).
pub(crate) struct WineServer<'a> {
    prefix: &'a Path,
}

impl<'a> WineServer<'a> {
    pub(crate) fn start(prefix: &'a Path) -> Result<Self, String> {
        let status = Self::command(prefix).arg("-p").status().map_err(|e| format!("running wineserver: {e}"))?;
        if !status.success() {
            return Err(format!("wineserver -p failed ({status})"));
        }
        Ok(WineServer { prefix })
    }

    fn command(prefix: &Path) -> Command {
        let mut cmd = Command::new("wineserver");
        cmd.env("WINEPREFIX", prefix).env("WINEDEBUG", "-all");
        cmd
    }
}

impl Drop for WineServer<'_> {
    fn drop(&mut self) {
        // `-k` stops the server; `-w` waits until it has gone, so the next run starts a fresh one.
        let _ = Self::command(self.prefix).arg("-k").status();
        let _ = Self::command(self.prefix).arg("-w").status();
    }
}

/// The qemu-user rows ([`RUNS`]) selected by `args`.
fn run_qemu(root: &Path, args: &[String]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for r in RUNS.iter().filter(|r| args.is_empty() || args.iter().any(|a| r.target.triple.starts_with(a.as_str()))) {
        let t = r.target;
        let qemu = if r.qemu.contains('/') { root.join(r.qemu).display().to_string() } else { r.qemu.to_string() };
        let missing: Vec<&str> = [t.linker, qemu.as_str()].into_iter().filter(|c| !have(c)).collect();
        if !missing.is_empty() {
            return Err(format!(
                "{}: missing {}; install with `bash .ci/install-deps` (apt packages, rustup targets, qemu 10)",
                t.triple,
                missing.join(", ")
            ));
        }
        println!(
            "== {}: {} (qemu -cpu {}; expects GHASH {}, SM4 {})",
            t.triple, r.label, r.cpu, r.expect_ghash, r.expect_sm4
        );
        // The watchdog: a test binary that hangs under qemu-user (a guest process that forks while another of
        // its threads holds one of qemu's locks can deadlock) is killed and fails its row in minutes, instead
        // of holding CI until its overall limit.
        let runner = format!("timeout --kill-after=10 {QEMU_BINARY_LIMIT_S} {qemu} -cpu {} -L {}", r.cpu, t.sysroot);
        let status = Command::new(&cargo)
            .current_dir(root)
            .args(TEST_WITH_JIT)
            .args(["--target", t.triple])
            .env(env_key(t.triple, "LINKER"), t.linker)
            .env(env_key(t.triple, "RUNNER"), &runner)
            // Tests that re-run their own binary (tests/tests/zeroize.rs) start it through the runner too.
            .env("ASMGEN_TEST_RUNNER", &runner)
            .env("ASMGEN_EXPECT_GHASH", r.expect_ghash)
            .env("ASMGEN_EXPECT_SM4", r.expect_sm4)
            .envs(r.env.iter().copied())
            // The host tools' tests ran natively; spawning them again from a multi-threaded guest only adds
            // forks under qemu-user, where they can deadlock.
            .arg("--")
            .args(HOST_TOOL_TESTS.iter().flat_map(|t| ["--skip", t]))
            .status()
            .map_err(|e| format!("running cargo: {e}"))?;
        if !status.success() {
            return Err(format!("tests failed for {} ({})", t.triple, r.label));
        }
    }
    Ok(())
}

/// `cargo test` of the tests and the runtime with the runtime's opt-in JIT named (the tests crate enables it too).
const TEST_WITH_JIT: [&str; 7] =
    ["test", "-p", "asmgen-tests", "-p", "asmgen-runtime", "--features", "asmgen-runtime/jit"];

/// The native runs of `jit-tests`: a label and the environment (each with `ASMGEN_BACKEND=jit`). The tests'
/// expectations follow the CPU's features and `ASMGEN_ISA` (`tests/tests/sm4_modes.rs`).
const NATIVE_JIT_RUNS: &[(&str, &[(&str, &str)])] = &[
    ("the best set for this CPU", &[]),
    ("capped at GFNI + AVX2 (no AVX-512)", &[("ASMGEN_ISA", "gfni")]),
    ("capped at VAES + AVX2", &[("ASMGEN_ISA", "vaes")]),
    ("capped at AES-NI + AVX2 (the JIT measures ymm against xmm)", &[("ASMGEN_ISA", "avx2")]),
    ("capped at AES-NI + AVX", &[("ASMGEN_ISA", "avx")]),
];

/// Runs the runtime's test suite natively with `ASMGEN_BACKEND=jit`, once per run of [`NATIVE_JIT_RUNS`].
pub fn jit_tests(root: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let runs: &[(&str, &[(&str, &str)])] =
        if cfg!(target_arch = "x86_64") { NATIVE_JIT_RUNS } else { &NATIVE_JIT_RUNS[..1] };
    for (label, env) in runs {
        println!("== native, ASMGEN_BACKEND=jit: {label}");
        let status = Command::new(&cargo)
            .current_dir(root)
            .args(TEST_WITH_JIT)
            .env("ASMGEN_BACKEND", "jit")
            .envs(env.iter().copied())
            .status()
            .map_err(|e| format!("running cargo: {e}"))?;
        if !status.success() {
            return Err(format!("tests failed on the JIT's kernels ({label})"));
        }
    }
    Ok(())
}

/// Builds and runs the benchmark binary in release mode, passing `args` on (`[filter] [--json FILE] [--svg DIR] [--libgcrypt DIR]`;
/// it runs in the workspace root, so relative output paths are relative to it).
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
