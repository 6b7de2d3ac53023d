//! `cargo xtask <task>`: the project's tasks.
//!
//! * `gen`: rewrite `generated/` from the kernel descriptions.
//! * `gen --out DIR [--target T] [--prefix P] [--visibility hidden|default]`: write the listings and C headers
//!   for a consumer (every target folder, or `T`'s) under `DIR/<target>/`, with the symbol prefix `P` (default
//!   `asmgen`) and the visibility given (default hidden); `generated/` is left alone.
//! * `check`: regenerate in memory and fail, naming the files, if `generated/` is stale.
//! * `report [target]`: the ISA report (features, instruction mix, registers) of every function.
//! * `audit [target] [--json]`: per function its sets and roles, required features (on x86_64 cross-checked
//!   against iced-x86's decoding of the lowered bytes; a disagreement fails), code and stack bytes, constants,
//!   instruction mix, registers, callee-saved registers, constant-time verdict (x86_64, riscv64).
//! * `diff <rev> [<rev2>] [--json]`: per function what changed in the listings between two revisions (rev2
//!   default: the working tree): added and removed functions, instruction counts, features, size.
//! * `jit-tests`: run the runtime's tests natively on the JIT's kernels, once per x86_64 kernel set.
//! * `cross [arch|windows]`: run the runtime's tests for aarch64 and riscv64 under qemu-user, and for
//!   x86_64-pc-windows-gnu under wine (the JIT's kernels too).
//! * `bench [filter] [--json FILE] [--svg DIR]`: the benchmark table (this project beside libgcrypt, OpenSSL and
//!   RustCrypto); `--json` writes the figures, `--svg` one chart per family (paths relative to the workspace root).
//! * `bench --model`: llvm-mca-19 cycles/byte of the aarch64 and riscv64 hot loops (no such hardware here).

mod audit;
mod cross;
mod diff;
mod json;
mod model;

use asmgen::emit::gas::Visibility;
use asmgen::target::Syntax;
use asmgen::Target;
use asmgen_kernels::catalog::{self, GeneratedFile, Naming};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

fn generated() -> Result<Vec<GeneratedFile>, String> {
    catalog::generate_all().map_err(|e| format!("generation failed: {e}"))
}

/// Files under `generated/` that are not produced by the catalog (stale leftovers).
fn extra_files(dir: &Path, wanted: &BTreeSet<String>) -> Vec<String> {
    let mut extra = Vec::new();
    // A folder holds the listings of every syntax of its platform (x86_64-windows: GNU as and NASM).
    let dirs: BTreeSet<String> = Target::GENERATED.iter().map(|t| t.dir_name()).collect();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(dir.join(&d)) else {
            continue;
        };
        for e in rd.flatten() {
            let rel = format!("{d}/{}", e.file_name().to_string_lossy());
            if !wanted.contains(&rel) {
                extra.push(rel);
            }
        }
    }
    extra.sort();
    extra
}

fn gen() -> Result<(), String> {
    let dir = root().join("generated");
    let files = generated()?;
    let wanted: BTreeSet<String> = files.iter().map(|f| f.path.clone()).collect();
    for f in &files {
        let path = dir.join(&f.path);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        let old = std::fs::read_to_string(&path).ok();
        if old.as_deref() != Some(f.contents.as_str()) {
            std::fs::write(&path, &f.contents).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("wrote generated/{}", f.path);
        }
    }
    for rel in extra_files(&dir, &wanted) {
        std::fs::remove_file(dir.join(&rel)).map_err(|e| e.to_string())?;
        println!("removed generated/{rel}");
    }
    println!("generated/ is up to date ({} files)", files.len());
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
            "--prefix" => {
                let ident = value
                    .chars()
                    .enumerate()
                    .all(|(i, c)| c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()));
                if value.is_empty() || !ident {
                    return Err(format!("--prefix {value:?}: not a C identifier"));
                }
                naming.prefix = value.clone().into();
            }
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

/// `gen --out`: the listings and headers of every target folder (or one) for a consumer, without the runtime's
/// `mod.rs`.
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
    let mut n = 0;
    for t in targets {
        let files = catalog::generate_with(t, &c.naming).map_err(|e| format!("generation failed: {e}"))?;
        for f in files.iter().filter(|f| !f.path.ends_with("/mod.rs")) {
            let path = c.out.join(&f.path);
            std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
            std::fs::write(&path, &f.contents).map_err(|e| format!("{}: {e}", path.display()))?;
            n += 1;
        }
    }
    println!("wrote {n} files under {}", c.out.display());
    Ok(())
}

fn check() -> Result<(), String> {
    let dir = root().join("generated");
    let files = generated()?;
    let wanted: BTreeSet<String> = files.iter().map(|f| f.path.clone()).collect();
    let mut stale = Vec::new();
    for f in &files {
        match std::fs::read_to_string(dir.join(&f.path)) {
            Ok(s) if s == f.contents => {}
            Ok(_) => stale.push(format!("generated/{} differs from what the kernels generate", f.path)),
            Err(_) => stale.push(format!("generated/{} is missing", f.path)),
        }
    }
    for rel in extra_files(&dir, &wanted) {
        stale.push(format!("generated/{rel} is not generated by any kernel"));
    }
    if stale.is_empty() {
        println!("generated/ is fresh ({} files)", files.len());
        Ok(())
    } else {
        Err(format!("generated/ is stale; run `cargo xtask gen`:\n  {}", stale.join("\n  ")))
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
        Some("bench") if args.get(1).map(String::as_str) == Some("--model") => model::run(&root()),
        Some("bench") => cross::bench(&root(), &args[1..]),
        _ => Err(
            "usage: cargo xtask <gen [--out DIR [--target T] [--prefix P] [--visibility hidden|default]] | check | report [target] | audit [target] [--json] | diff <rev> [<rev2>] [--json] | jit-tests | cross [arch | windows] | bench [filter] [--json FILE] [--svg DIR] | bench --model>"
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
