//! `cargo xtask package-check`: the published crates as a user gets them. `cargo publish --dry-run` packs asmgen,
//! asmgen-kernels and asmgen-runtime (the workspace's local registry overlay resolves their dependencies on
//! each other); the `.crate` files are unpacked into an empty folder outside the repository, beside a tiny
//! binary crate that depends on the unpacked runtime by path (and on the unpacked asmgen and asmgen-kernels
//! through `[patch.crates-io]`, never on the repository). That binary runs the SM4 known answer of GB/T 32907
//! and fails unless the kernels in use are the linked listings (`aot/...`), not the portable code: natively
//! (with the opt-in `jit` feature, so the unpacked asmgen and asmgen-kernels build too), for aarch64 and
//! riscv64 under qemu-user and for x86_64-pc-windows-gnu under wine. A missing cross tool skips that target
//! with a notice, or fails the task when the environment variable `CI` is set.

use crate::cross::{env_key, have, WineServer, QEMU10_RISCV, WINE_PREFIX, WINE_RUNNER};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The crates a user depends on, packed in this order.
const CRATES: &[&str] = &["asmgen", "asmgen-kernels", "asmgen-runtime"];

/// The probe's program: the GB/T 32907 SM4 known answer, and the backend's name.
const PROBE_MAIN: &str = r#"fn main() {
    let key = [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
    ];
    let want = [
        0x68, 0x1e, 0xdf, 0x34, 0xd2, 0x06, 0x96, 0x5e, 0x86, 0xb3, 0xe9, 0x4f, 0x53, 0x6e, 0x42, 0x46,
    ];
    let sm4 = asmgen_runtime::Sm4::new(&key);
    let mut block = key;
    sm4.encrypt_ecb(&mut block).expect("one block");
    let backend = sm4.backend();
    println!("package-check: SM4 on {backend}: {}", if block == want { "known answer ok" } else { "WRONG" });
    assert_eq!(block, want, "GB/T 32907 known answer");
    assert!(backend.starts_with("aot/"), "the packaged runtime runs {backend}, not the linked listings");
}
"#;

/// One build and run of the probe: the rustup target (none: native), its linker, its runner, and what that
/// needs besides the linker and the runner's program.
struct Probe {
    triple: Option<&'static str>,
    linker: &'static str,
    runner: Vec<String>,
    needs: Vec<PathBuf>,
}

/// The targets the probe runs on (qemu 10 for riscv64, whose hwprobe the runtime's feature detection reads).
fn probes(root: &Path) -> Vec<Probe> {
    let prefix = root.join(WINE_PREFIX);
    vec![
        Probe { triple: None, linker: "cc", runner: vec![], needs: vec![] },
        Probe {
            triple: Some("aarch64-unknown-linux-gnu"),
            linker: "aarch64-linux-gnu-gcc",
            runner: ["qemu-aarch64", "-cpu", "max", "-L", "/usr/aarch64-linux-gnu"].map(String::from).to_vec(),
            needs: vec![],
        },
        Probe {
            triple: Some("riscv64gc-unknown-linux-gnu"),
            linker: "riscv64-linux-gnu-gcc",
            runner: vec![
                root.join(QEMU10_RISCV).display().to_string(),
                "-cpu".into(),
                "rv64,zbb=true,zbc=true,zksed=true".into(),
                "-L".into(),
                "/usr/riscv64-linux-gnu".into(),
            ],
            needs: vec![],
        },
        Probe {
            triple: Some("x86_64-pc-windows-gnu"),
            linker: "x86_64-w64-mingw32-gcc",
            runner: vec!["bash".into(), root.join(WINE_RUNNER).display().to_string()],
            needs: vec![prefix.join("drive_c/windows/system32/bcryptprimitives.dll")],
        },
    ]
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn status(what: &str, cmd: &mut Command) -> Result<(), String> {
    let s = cmd.status().map_err(|e| format!("{what}: {e}"))?;
    if s.success() {
        Ok(())
    } else {
        Err(format!("package-check: {what} failed ({s})"))
    }
}

/// Packs the crates with `cargo publish --dry-run` (without cargo's own verification build: the probe builds
/// them) into `target/package/tmp-crate`, then unpacks each into `dir`, returning the unpacked folders.
fn pack(root: &Path, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut cmd = cargo();
    cmd.current_dir(root).args(["publish", "--dry-run", "--no-verify", "--allow-dirty", "--quiet"]);
    cmd.args(CRATES.iter().flat_map(|c| ["-p", c]));
    status("cargo publish --dry-run", &mut cmd)?;
    let version = env!("CARGO_PKG_VERSION");
    let mut unpacked = Vec::new();
    for name in CRATES {
        // Cargo writes a multi-package publish's files into `tmp-crate` (and a `cargo package` into the folder).
        let file = ["target/package/tmp-crate", "target/package"]
            .iter()
            .map(|d| root.join(d).join(format!("{name}-{version}.crate")))
            .find(|f| f.is_file())
            .unwrap_or_else(|| root.join(format!("target/package/tmp-crate/{name}-{version}.crate")));
        let bytes = std::fs::metadata(&file).map_err(|e| format!("{}: {e}", file.display()))?.len();
        println!("== package-check: {name}-{version}.crate, {} KiB", bytes / 1024);
        // crates.io refuses a crate over 10 MB.
        if bytes > 10_000_000 {
            return Err(format!("{}: {bytes} bytes, over crates.io's 10 MB", file.display()));
        }
        status("tar", Command::new("tar").arg("xzf").arg(&file).arg("-C").arg(dir))?;
        unpacked.push(dir.join(format!("{name}-{version}")));
    }
    Ok(unpacked)
}

/// Writes the probe crate into `dir/probe`: the runtime by path, asmgen and asmgen-kernels patched to their
/// unpacked folders (the runtime's packaged manifest names them as crates.io dependencies).
fn write_probe(dir: &Path, unpacked: &[PathBuf]) -> Result<PathBuf, String> {
    let probe = dir.join("probe");
    std::fs::create_dir_all(probe.join("src")).map_err(|e| e.to_string())?;
    let [gen, kernels, runtime] = unpacked else { unreachable!("three crates") };
    let manifest = format!(
        "[package]\nname = \"probe\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [workspace]\n\n[features]\njit = [\"asmgen-runtime/jit\"]\n\n\
         [dependencies]\nasmgen-runtime = {{ path = {:?} }}\n\n\
         [patch.crates-io]\nasmgen = {{ path = {:?} }}\nasmgen-kernels = {{ path = {:?} }}\n",
        runtime.display().to_string(),
        gen.display().to_string(),
        kernels.display().to_string(),
    );
    std::fs::write(probe.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    std::fs::write(probe.join("src/main.rs"), PROBE_MAIN).map_err(|e| e.to_string())?;
    Ok(probe)
}

/// Whether the probe's tools for `p` are at hand: an error under CI, else a notice and `false` (skip it).
fn ready(p: &Probe) -> Result<bool, String> {
    let mut missing: Vec<String> = [p.linker].into_iter().filter(|c| !have(c)).map(String::from).collect();
    if let Some(r) = p.runner.first() {
        if !have(r) {
            missing.push(r.clone());
        }
    }
    if p.triple == Some("x86_64-pc-windows-gnu") {
        missing.extend(["wine", "wineserver"].into_iter().filter(|c| !have(c)).map(String::from));
    }
    missing.extend(p.needs.iter().filter(|f| !f.exists()).map(|f| f.display().to_string()));
    if missing.is_empty() {
        return Ok(true);
    }
    let msg = format!(
        "{}: missing {}; install with `bash .ci/install-deps`",
        p.triple.unwrap_or("native"),
        missing.join(", ")
    );
    if std::env::var_os("CI").is_some() {
        return Err(msg);
    }
    println!("== skipped {msg}");
    Ok(false)
}

/// Builds and runs the probe for `p` (`cargo run` in the probe's folder, into `target`).
fn run_probe(root: &Path, probe: &Path, target: &Path, p: &Probe) -> Result<(), String> {
    let name = p.triple.unwrap_or("native");
    println!("== package-check: the packaged runtime, {name}");
    let mut cmd = cargo();
    cmd.current_dir(probe).env("CARGO_TARGET_DIR", target).args(["run", "--quiet"]);
    // Whatever the caller's environment says, the default choice: the best kernels for the CPU.
    cmd.env_remove("ASMGEN_BACKEND").env_remove("ASMGEN_ISA").env_remove("ASMGEN_NO_ASM");
    let Some(t) = p.triple else {
        // The JIT's dependencies once, natively: the unpacked asmgen and asmgen-kernels build as a user gets them.
        return status("the native probe", cmd.args(["--features", "jit"]));
    };
    cmd.args(["--target", t]).env(env_key(t, "LINKER"), p.linker).env(env_key(t, "RUNNER"), p.runner.join(" "));
    if !t.contains("windows") {
        return status(&format!("the probe for {t}"), &mut cmd);
    }
    let prefix = root.join(WINE_PREFIX);
    cmd.env("WINEPREFIX", &prefix).env("WINEDEBUG", "-all");
    let _server = WineServer::start(&prefix)?;
    status(&format!("the probe for {t}"), &mut cmd)
}

/// `package-check [native|arch|windows]`: packs, unpacks, builds and runs the probe on each selected target.
pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let dir = std::env::temp_dir().join("asmgen-package-check");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let unpacked = pack(root, &dir)?;
    let probe = write_probe(&dir, &unpacked)?;
    // A target folder kept between runs (outside the unpacked tree, which is new each time): only the three
    // crates rebuild.
    let target = root.join("target/package-check");
    let wanted = |name: &str| {
        args.is_empty()
            || args.iter().any(|a| name.starts_with(a.as_str()) || (a == "windows" && name.contains("windows")))
    };
    for p in probes(root).iter().filter(|p| wanted(p.triple.unwrap_or("native"))) {
        if ready(p)? {
            run_probe(root, &probe, &target, p)?;
        }
    }
    Ok(())
}
