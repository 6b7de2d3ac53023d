//! `cargo xtask <task>`: the project's tasks.
//!
//! * `gen`: rewrite `generated/` from the kernel descriptions.
//! * `gen --out DIR [--target T] [--prefix P] [--visibility hidden|default]`: write the listings, C headers and
//!   Rust declarations for a consumer (every target folder, or `T`'s) under `DIR/<target>/`, with the symbol prefix `P` (default
//!   `asmgen`) and the visibility given (default hidden); `generated/` is left alone.
//! * `check`: regenerate in memory and fail, naming the files, if `generated/` is stale.
//! * `report [target]`: the ISA report (features, instruction mix, registers) of every function.
//! * `audit [target] [--json]`: per function its sets and roles, required features (on x86_64 cross-checked
//!   against iced-x86's decoding of the lowered bytes; a disagreement fails), code and stack bytes, constants,
//!   instruction mix, registers, callee-saved registers, constant-time verdict (x86_64, aarch64, riscv64).
//! * `diff <rev> [<rev2>] [--json]`: per function what changed in the listings between two revisions (rev2
//!   default: the working tree): added and removed functions, instruction counts, features, size.
//! * `jit-tests`: run the runtime's tests natively on the JIT's kernels, once per x86_64 kernel set.
//! * `cross [arch|windows]`: run the runtime's tests for aarch64 and riscv64 under qemu-user, and for
//!   x86_64-pc-windows-gnu under wine (the JIT's kernels too).
//! * `bench [filter] [--json FILE] [--svg DIR] [--libgcrypt DIR]`: the benchmark table (this project beside
//!   libgcrypt, OpenSSL and RustCrypto); `--json` writes the figures, `--svg` one chart per family (paths relative
//!   to the workspace root); `--libgcrypt DIR` or `ASMGEN_LIBGCRYPT_DIR=DIR` loads libgcrypt from DIR.
//! * `bench limits`: the cycles per instruction the zmm kernels are bound by, and their floors in c/B.
//! * `bench --model`: llvm-mca-19 cycles/byte of the aarch64 and riscv64 hot loops (no such hardware here).
//! * `example [native|aarch64|riscv64|windows]`: the worked example `examples/chacha20` (a crate outside the
//!   workspace): rustfmt, clippy and its tests natively, then under qemu-user and wine.
//! * `import FILE.S|FILE.o [--out DIR]`, `import --check DIR`: assembled code read back into kernels
//!   (`asmgen::import`), and the coverage report of a folder of objects.
//! * `package-check [native|aarch64|riscv64|windows]`: the crates packed by `cargo package`, unpacked outside
//!   the repository and built by a tiny crate that runs an SM4 known answer on the linked listings, natively,
//!   under qemu-user and under wine.

mod audit;
mod cross;
mod diff;
mod example;
mod import;
mod json;
mod model;
mod package;
mod shape;

use asmgen::emit::gas::Visibility;
use asmgen::target::Syntax;
use asmgen::Target;
use asmgen_kernels::catalog::{self, Naming};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// `gen`: rewrites `generated/` through the catalog's generator (the same API a user's build calls).
fn gen() -> Result<(), String> {
    let generator = catalog::generator(root().join("generated"), &Naming::CHECKED_IN);
    let written = generator.generate().map_err(|e| format!("generation failed: {e}"))?;
    for f in &written.changed {
        println!("wrote generated/{f}");
    }
    for f in &written.removed {
        println!("removed generated/{f}");
    }
    println!("generated/ is up to date ({} files)", written.files);
    Ok(())
}

/// What `gen --out` was asked for.
struct Consumer {
    out: PathBuf,
    target: Option<String>,
    naming: Naming,
}

/// Parses `--out DIR [--target T] [--prefix P] [--visibility hidden|default]`.
fn consumer_args(args: &[String]) -> Result<Consumer, String> {
    let (mut out, mut target, mut naming) = (None, None, Naming::CHECKED_IN);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--out" => out = Some(PathBuf::from(value)),
            "--target" => target = Some(value.clone()),
            "--prefix" => naming.prefix = value.clone().into(),
            "--visibility" => {
                naming.visibility = match value.as_str() {
                    "hidden" => Visibility::Hidden,
                    "default" => Visibility::Default,
                    v => return Err(format!("--visibility {v:?}: hidden or default")),
                }
            }
            f => return Err(format!("gen: unknown option {f}")),
        }
    }
    Ok(Consumer { out: out.ok_or("gen: options need --out DIR")?, target, naming })
}

/// `gen --out`: the listings, headers and Rust declarations of every target folder (or one) for a consumer.
fn gen_consumer(args: &[String]) -> Result<(), String> {
    let c = consumer_args(args)?;
    let targets: Vec<Target> =
        Target::GENERATED.into_iter().filter(|t| c.target.as_ref().is_none_or(|n| *n == t.dir_name())).collect();
    if targets.is_empty() {
        let names: BTreeSet<String> = Target::GENERATED.iter().map(|t| t.dir_name()).collect();
        return Err(format!(
            "no target {:?}; one of: {}",
            c.target.unwrap_or_default(),
            names.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let generator = catalog::generator(&c.out, &c.naming).targets(&targets);
    let written = generator.generate().map_err(|e| format!("generation failed: {e}"))?;
    println!(
        "wrote {} files under {} ({} unchanged)",
        written.changed.len(),
        c.out.display(),
        written.files - written.changed.len()
    );
    Ok(())
}

/// `check`: fails, naming the files, if `generated/` is not what the kernels generate.
fn check() -> Result<(), String> {
    let generator = catalog::generator(root().join("generated"), &Naming::CHECKED_IN);
    match generator.check() {
        Ok(n) => {
            println!("generated/ is fresh ({n} files)");
            Ok(())
        }
        Err(stale) => Err(format!("{stale}\nrun `cargo xtask gen`")),
    }
}

fn report(which: Option<&str>) -> Result<(), String> {
    // One report per platform: a flavour in another syntax has the same functions.
    for t in Target::GENERATED.into_iter().filter(|t| t.syntax == Syntax::Gas) {
        if which.is_some_and(|w| w != t.dir_name()) {
            continue;
        }
        println!("== {t}");
        print!("{}", catalog::report(t).map_err(|e| e.to_string())?);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("gen") if args.len() > 1 => gen_consumer(&args[1..]),
        Some("gen") => gen(),
        Some("check") => check(),
        Some("report") => report(args.get(1).map(String::as_str)),
        Some("audit") => audit::run(&args[1..]),
        Some("diff") => diff::run(&root(), &args[1..]),
        Some("cross") => cross::run(&root(), &args[1..]),
        Some("jit-tests") => cross::jit_tests(&root()),
        Some("example") => example::run(&root(), &args[1..]),
        Some("import") => import::run(&args[1..]),
        Some("package-check") => package::run(&root(), &args[1..]),
        Some("bench") if args.get(1).map(String::as_str) == Some("--model") => model::run(&root()),
        Some("bench") => cross::bench(&root(), &args[1..]),
        _ => Err(
            "usage: cargo xtask <gen [--out DIR [--target T] [--prefix P] [--visibility hidden|default]] | check | report [target] | audit [target] [--json] | diff <rev> [<rev2>] [--json] | jit-tests | cross [arch | windows] | example [native | arch | windows] | import FILE [--out DIR] [--arch A] | import --check DIR [--arch A] | package-check [native | arch | windows] | bench [filter] [--json FILE] [--svg DIR] [--libgcrypt DIR] | bench --model>"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
