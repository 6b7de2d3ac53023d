//! `cargo xtask import`: objects (or assembly, assembled first) read back into asmgen kernels
//! ([`asmgen::import`]), and the coverage report of a folder of them.
//!
//! * `import FILE.S|FILE.o [--out DIR]`: per function, the kernel's Rust source in `DIR/<function>.rs` (default
//!   `imported/`), and a line saying what became of each function.
//! * `import --check DIR`: every object under `DIR` (assembly without an object beside it is assembled into a
//!   temporary folder, with `DIR/include` on the include path): per file and in total, instructions, those the
//!   tables express, functions imported, functions re-encoded byte-identical, and the forms still missing, most
//!   frequent first. It fails if a file cannot be read.

use asmgen::import::{import_file, import_object_with, Comments, Import, Outcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The assembler for a source file, from its name (`x86_64`, `armv8`/`aarch64`, `riscv64`).
fn assembler(name: &str) -> Option<(&'static str, &'static [&'static str])> {
    if name.contains("x86_64") || name.contains("x86-64") || name.contains("avx2") {
        Some(("gcc", &[]))
    } else if name.contains("armv8") || name.contains("aarch64") || name.contains("arm64") {
        Some(("aarch64-linux-gnu-gcc", &["-march=armv8.2-a+crypto+sha3+sm4"]))
    } else if name.contains("riscv64") {
        // clang: GNU as 2.40 lacks the vector crypto extensions. No compressed forms and no linker relaxation,
        // so the object holds the final bytes.
        Some((
            "clang-19",
            &[
                "--target=riscv64-linux-gnu",
                "-march=rv64gv_zbb_zbc_zbkb_zbkc_zbkx_zknd_zkne_zknh_zksed_zksh_zvbb_zvbc_zvkg_zvkned_zvknhb_zvksed_zvksh",
                "-mno-relax",
            ],
        ))
    } else {
        None
    }
}

/// Assembles `src` into `out` (the include path: `include` folders above it, up to `root`).
fn assemble(src: &Path, out: &Path, includes: &[PathBuf]) -> Result<(), String> {
    let name = src.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let (cc, flags) =
        assembler(&name).ok_or_else(|| format!("{}: which architecture? (the name says none)", src.display()))?;
    let mut cmd = Command::new(cc);
    // -g: the line table, through which the source's comments are carried over.
    cmd.args(flags).arg("-g").arg("-c").arg("-o").arg(out).arg(src);
    for i in includes {
        cmd.arg("-I").arg(i);
    }
    let o = cmd.output().map_err(|e| format!("{cc}: {e}"))?;
    if !o.status.success() {
        return Err(format!("{}: {cc} failed:\n{}", src.display(), String::from_utf8_lossy(&o.stderr)));
    }
    Ok(())
}

/// Runs `cargo xtask import ...`.
pub fn run(args: &[String]) -> Result<(), String> {
    match args {
        [flag, dir] if flag == "--check" => check(Path::new(dir)),
        [file] => one(Path::new(file), Path::new("imported")),
        [file, flag, out] if flag == "--out" => one(Path::new(file), Path::new(out)),
        _ => Err("usage: cargo xtask import FILE.S|FILE.o [--out DIR] | import --check DIR".into()),
    }
}

/// The object of `file`: itself, or the assembly assembled into a temporary folder.
fn object_of(file: &Path, tmp: &Path, includes: &[PathBuf]) -> Result<PathBuf, String> {
    let ext = file.extension().map(|e| e.to_string_lossy().to_string()).unwrap_or_default();
    if ext == "S" || ext == "s" || ext == "asm" {
        std::fs::create_dir_all(tmp).map_err(|e| e.to_string())?;
        let o = tmp.join(file.with_extension("o").file_name().unwrap());
        assemble(file, &o, includes)?;
        Ok(o)
    } else {
        Ok(file.to_path_buf())
    }
}

fn one(file: &Path, out: &Path) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!("asmgen-import-{}", std::process::id()));
    let includes: Vec<PathBuf> = file.parent().map(|p| p.join("include")).into_iter().filter(|p| p.is_dir()).collect();
    let obj = object_of(file, &tmp, &includes)?;
    let bytes = std::fs::read(&obj).map_err(|e| format!("{}: {e}", obj.display()))?;
    let comments = if obj == file { Comments::new() } else { comments(file, &obj) };
    let import = import_object_with(&file.display().to_string(), &bytes, &comments).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for f in &import.functions {
        match &f.outcome {
            Outcome::Identical { source, .. } => {
                let path = out.join(format!("{}.rs", f.name));
                std::fs::write(&path, source).map_err(|e| format!("{}: {e}", path.display()))?;
                println!("{}: imported, byte-identical: {}", f.name, path.display());
            }
            Outcome::Differs { offset, why } => {
                println!("{}: not written: its lowering differs at +{offset:#x} ({why})", f.name)
            }
            Outcome::NotImported(why) => println!("{}: not imported: {why}", f.name),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(())
}

/// The comments of assembly source `src` by the offset of the instruction they precede (or follow on its line)
/// in the object's `.text`, from the object's line table (`objdump --dwarf=decodedline`). None where the
/// table does not tell sections apart (code in more than one section) or the tools are missing.
fn comments(src: &Path, obj: &Path) -> Comments {
    let name = src.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let (objdump, marker) = if name.contains("x86") || name.contains("avx2") {
        ("objdump", "#")
    } else if name.contains("riscv64") {
        ("riscv64-linux-gnu-objdump", "#")
    } else {
        ("aarch64-linux-gnu-objdump", "//")
    };
    let (Ok(text), Ok(table)) =
        (std::fs::read_to_string(src), Command::new(objdump).args(["--dwarf=decodedline"]).arg(obj).output())
    else {
        return Comments::new();
    };
    let table = String::from_utf8_lossy(&table.stdout);
    let stem = name.as_str();
    // Rows: file, line, address (hex or 0).
    let rows: Vec<(usize, u64)> = table
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next()? == stem).then_some(())?;
            let line = w.next()?.parse().ok()?;
            let addr = w.next()?;
            Some((line, u64::from_str_radix(addr.trim_start_matches("0x"), 16).ok()?))
        })
        .collect();
    let restarts = rows.windows(2).filter(|w| w[1].1 < w[0].1).count();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Comments::new();
    let mut prev = 0;
    for &(line, addr) in rows.iter().take(if restarts == 0 { rows.len() } else { 0 }) {
        let mut found = Vec::new();
        for (k, l) in lines.iter().enumerate().take(line).skip(prev) {
            let t = l.trim();
            let comment = match t.find(marker) {
                Some(0) => Some(&t[marker.len()..]),
                Some(p) if k + 1 == line => Some(&t[p + marker.len()..]),
                _ => None,
            };
            found.extend(comment.map(str::trim).filter(|c| !c.is_empty()).map(str::to_string));
        }
        prev = prev.max(line);
        if !found.is_empty() {
            out.entry((".text".to_string(), addr)).or_default().extend(found);
        }
    }
    out
}

/// The kind of reason a function is not byte-identical, for the report's tally (without offsets and operands).
fn reason_kind(why: &str) -> String {
    if why.contains("inside another function") {
        "a branch or call into another function's body".into()
    } else if why.contains("prefix there") {
        "differs: the object has a prefix the tables do not write".into()
    } else if why.contains("less aligned") {
        "differs: the function starts less aligned than its inner alignment".into()
    } else if why.starts_with("differs") {
        "differs: another encoding of the same instruction (operand order, displacement size)".into()
    } else if why.starts_with("padding") {
        "padding that aligns nothing (a lone nop)".into()
    } else {
        why.chars().take(80).collect()
    }
}

/// Every object (and assembly file without one) under `dir`, sorted.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut all = Vec::new();
    walk(dir, &mut all);
    let ext = |p: &Path| p.extension().map(|e| e.to_string_lossy().to_string()).unwrap_or_default();
    let mut out: Vec<PathBuf> = all
        .iter()
        .filter(|p| match ext(p).as_str() {
            "o" | "obj" => true,
            "S" | "s" => !all.contains(&p.with_extension("o")) && assembler(&p.to_string_lossy()).is_some(),
            _ => false,
        })
        .cloned()
        .collect();
    out.sort();
    out
}

/// Totals of a coverage report.
#[derive(Default)]
struct Totals {
    instructions: usize,
    expressed: usize,
    functions: usize,
    imported: usize,
    identical: usize,
}

impl Totals {
    fn add(&mut self, i: &Import) {
        for f in &i.functions {
            self.instructions += f.instructions;
            self.expressed += f.expressed;
            self.functions += 1;
            self.imported += usize::from(!matches!(f.outcome, Outcome::NotImported(_)));
            self.identical += usize::from(f.identical());
        }
    }

    fn line(&self, what: &str) -> String {
        let pct = |a: usize, b: usize| if b == 0 { 100.0 } else { 100.0 * a as f64 / b as f64 };
        format!(
            "{what:<44} {:>7} instructions, {:>7} expressed ({:5.1}%), {:>4}/{:<4} functions imported, {:>4} byte-identical",
            self.instructions,
            self.expressed,
            pct(self.expressed, self.instructions),
            self.imported,
            self.functions,
            self.identical
        )
    }
}

fn check(dir: &Path) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!("asmgen-import-check-{}", std::process::id()));
    let includes: Vec<PathBuf> = [dir.join("include")].into_iter().filter(|p| p.is_dir()).collect();
    let files = inputs(dir);
    if files.is_empty() {
        return Err(format!("{}: no objects or assembly files", dir.display()));
    }
    let mut per_arch: BTreeMap<String, Totals> = BTreeMap::new();
    let mut missing: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for file in &files {
        let obj = object_of(file, &tmp, &includes)?;
        let import = import_file(&obj).map_err(|e| e.to_string())?;
        let mut t = Totals::default();
        t.add(&import);
        let shown = file.strip_prefix(dir).unwrap_or(file).display().to_string();
        println!("{}", t.line(&shown));
        per_arch.entry(format!("{:?}", import.arch)).or_default().add(&import);
        for f in &import.functions {
            for m in &f.missing {
                *missing.entry((format!("{:?}", import.arch), m.form.clone())).or_default() += 1;
            }
            let why = match &f.outcome {
                Outcome::NotImported(w) if f.missing.is_empty() => {
                    Some(w.split(" at +").next().unwrap_or(w).to_string())
                }
                Outcome::Differs { why, .. } => Some(format!("differs: {why}")),
                _ => None,
            };
            if let Some(w) = why {
                *reasons.entry(reason_kind(&w)).or_default() += 1;
            }
        }
    }
    println!();
    for (arch, t) in &per_arch {
        println!("{}", t.line(&format!("total {arch}")));
    }
    let mut forms: Vec<_> = missing.into_iter().collect();
    forms.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    println!("\nforms the tables lack ({}), most frequent first:", forms.len());
    for ((arch, form), n) in forms.iter().take(60) {
        println!("  {n:>6}  {arch:<8} {form}");
    }
    if forms.len() > 60 {
        println!("  ... and {} more", forms.len() - 60);
    }
    let mut reasons: Vec<_> = reasons.into_iter().collect();
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    println!("\nfunctions whose instructions are all expressed but that are not byte-identical, by reason:");
    for (why, n) in reasons.iter().take(20) {
        println!("  {n:>6}  {why}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(())
}
