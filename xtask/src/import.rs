//! `cargo xtask import`: objects (or assembly, assembled first) read back into asmgen kernels
//! ([`asmgen::import`]), and the coverage report of a folder of them.
//!
//! * `import FILE.S|FILE.o [--out DIR] [--arch A]`: per function, the kernel's Rust source in
//!   `DIR/<function>.rs` (default `imported/`), and a line saying what became of each function. Assembly is
//!   assembled for the architecture its name says (`x86_64`, `aarch64`/`armv8`, `riscv64`) or `--arch` names.
//! * `import --check DIR [--arch A]`: every object under `DIR` (assembly without an object beside it is
//!   assembled into a temporary folder, with `DIR/include` on the include path): per file and in total,
//!   instructions, those the tables express, functions imported, functions re-encoded byte-identical, and the
//!   forms still missing, most frequent first. It fails if a file cannot be read.

use crate::shape;
use asmgen::import::{import_file, import_object_with, Comments, Import, Outcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The architecture of a source file: named by `--arch`, or read from the file's name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arch {
    X86_64,
    Aarch64,
    Riscv64,
}

impl Arch {
    /// The architecture `--arch` names (`x86_64`, `aarch64`, `riscv64`).
    fn parse(name: &str) -> Result<Arch, String> {
        match name {
            "x86_64" => Ok(Arch::X86_64),
            "aarch64" => Ok(Arch::Aarch64),
            "riscv64" => Ok(Arch::Riscv64),
            _ => Err(format!("--arch {name}: not x86_64, aarch64 or riscv64")),
        }
    }

    /// The architecture a file's name says (`x86_64`, `armv8`/`aarch64`, `riscv64`), if any.
    fn of_name(name: &str) -> Option<Arch> {
        if name.contains("x86_64") || name.contains("x86-64") || name.contains("avx2") {
            Some(Arch::X86_64)
        } else if name.contains("armv8") || name.contains("aarch64") || name.contains("arm64") {
            Some(Arch::Aarch64)
        } else if name.contains("riscv64") {
            Some(Arch::Riscv64)
        } else {
            None
        }
    }

    /// The compiler driver that assembles this architecture's `.S` files, and its flags.
    fn assembler(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Arch::X86_64 => ("gcc", &[]),
            Arch::Aarch64 => ("aarch64-linux-gnu-gcc", &["-march=armv8.2-a+crypto+sha3+sm4"]),
            // clang: GNU as 2.40 lacks the vector crypto extensions. No compressed forms and no linker
            // relaxation, so the object holds the final bytes.
            Arch::Riscv64 => (
                "clang-19",
                &[
                    "--target=riscv64-linux-gnu",
                    "-march=rv64gv_zbb_zbc_zbkb_zbkc_zbkx_zknd_zkne_zknh_zksed_zksh_zvbb_zvbc_zvkg_zvkned_zvknhb_zvksed_zvksh",
                    "-mno-relax",
                ],
            ),
        }
    }

    /// The objdump that reads this architecture's line table, and the source's comment marker.
    fn objdump(self) -> (&'static str, &'static str) {
        match self {
            Arch::X86_64 => ("objdump", "#"),
            Arch::Aarch64 => ("aarch64-linux-gnu-objdump", "//"),
            Arch::Riscv64 => ("riscv64-linux-gnu-objdump", "#"),
        }
    }
}

/// The architecture of source file `src`: `arch` where `--arch` named one, else what its name says.
fn arch_of(src: &Path, arch: Option<Arch>) -> Result<Arch, String> {
    let name = src.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    arch.or_else(|| Arch::of_name(&name))
        .ok_or_else(|| format!("{}: which architecture? (the name says none; name it with --arch)", src.display()))
}

/// Assembles `src` for `arch` into `out` (the include path: `includes`).
fn assemble(src: &Path, arch: Arch, out: &Path, includes: &[PathBuf]) -> Result<(), String> {
    let (cc, flags) = arch.assembler();
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
    const USAGE: &str =
        "usage: cargo xtask import FILE.S|FILE.o [--out DIR] [--arch A] | import --check DIR [--arch A]";
    let (mut check_dir, mut file, mut out, mut arch) = (None, None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a}: a value is missing; {USAGE}"));
        match a.as_str() {
            "--check" => check_dir = Some(value()?),
            "--out" => out = Some(value()?),
            "--arch" => arch = Some(Arch::parse(value()?)?),
            f if !f.starts_with("--") && file.is_none() => file = Some(f),
            _ => return Err(format!("{a}: unexpected; {USAGE}")),
        }
    }
    match (check_dir, file) {
        (Some(dir), None) if out.is_none() => check(Path::new(dir), arch),
        (None, Some(file)) => one(Path::new(file), Path::new(out.map(String::as_str).unwrap_or("imported")), arch),
        _ => Err(USAGE.into()),
    }
}

/// The object of `file`: itself, or the assembly assembled into a temporary folder.
fn object_of(file: &Path, arch: Option<Arch>, tmp: &Path, includes: &[PathBuf]) -> Result<PathBuf, String> {
    let ext = file.extension().map(|e| e.to_string_lossy().to_string()).unwrap_or_default();
    if ext == "S" || ext == "s" || ext == "asm" {
        std::fs::create_dir_all(tmp).map_err(|e| e.to_string())?;
        let o = tmp.join(file.with_extension("o").file_name().unwrap());
        assemble(file, arch_of(file, arch)?, &o, includes)?;
        Ok(o)
    } else {
        Ok(file.to_path_buf())
    }
}

fn one(file: &Path, out: &Path, arch: Option<Arch>) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!("asmgen-import-{}", std::process::id()));
    let includes: Vec<PathBuf> = file.parent().map(|p| p.join("include")).into_iter().filter(|p| p.is_dir()).collect();
    let obj = object_of(file, arch, &tmp, &includes)?;
    let bytes = std::fs::read(&obj).map_err(|e| format!("{}: {e}", obj.display()))?;
    let comments = match arch_of(file, arch) {
        Ok(a) if obj != file => comments(file, a, &obj),
        _ => Comments::new(),
    };
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
fn comments(src: &Path, arch: Arch, obj: &Path) -> Comments {
    let name = src.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let (objdump, marker) = arch.objdump();
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

/// The disassembler's text of the instructions of `obj` that the importer knows only as words (aarch64, riscv64),
/// by function and offset; empty for x86_64, whose forms iced-x86 names.
fn word_forms(import: &Import, obj: &Path) -> std::collections::HashMap<(String, u64), String> {
    let objdump = match import.arch {
        asmgen::Arch::Aarch64 => Arch::Aarch64.objdump().0,
        asmgen::Arch::Riscv64 => Arch::Riscv64.objdump().0,
        _ => return Default::default(),
    };
    let any_word = import.functions.iter().flat_map(|f| &f.missing).any(|m| m.form.starts_with("word "));
    if any_word {
        let names: Vec<&str> = import.functions.iter().map(|f| f.name.as_str()).collect();
        shape::disassembly(objdump, obj, &names)
    } else {
        Default::default()
    }
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

/// Every object (and assembly file without one) under `dir`, sorted; `include` folders hold headers, skipped.
fn inputs(dir: &Path, arch: Option<Arch>) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != "include") {
                walk(&p, out);
            } else if p.is_dir() {
                // DIR/include holds what the files include, not files to import.
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
            "S" | "s" => !all.contains(&p.with_extension("o")) && arch_of(p, arch).is_ok(),
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

fn check(dir: &Path, arch: Option<Arch>) -> Result<(), String> {
    let tmp = std::env::temp_dir().join(format!("asmgen-import-check-{}", std::process::id()));
    let includes: Vec<PathBuf> = [dir.join("include")].into_iter().filter(|p| p.is_dir()).collect();
    let files = inputs(dir, arch);
    if files.is_empty() {
        return Err(format!("{}: no objects or assembly files", dir.display()));
    }
    let mut per_arch: BTreeMap<String, Totals> = BTreeMap::new();
    let mut missing: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for file in &files {
        let obj = object_of(file, arch, &tmp, &includes)?;
        let import = import_file(&obj).map_err(|e| e.to_string())?;
        let mut t = Totals::default();
        t.add(&import);
        let shown = file.strip_prefix(dir).unwrap_or(file).display().to_string();
        println!("{}", t.line(&shown));
        per_arch.entry(format!("{:?}", import.arch)).or_default().add(&import);
        let words = word_forms(&import, &obj);
        for f in &import.functions {
            for m in &f.missing {
                let form = words.get(&(f.name.clone(), m.offset)).map_or_else(|| m.form.clone(), |t| shape::generic(t));
                *missing.entry((format!("{:?}", import.arch), form)).or_default() += 1;
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

#[cfg(test)]
mod tests {
    use super::{arch_of, run, Arch};
    use std::path::Path;

    #[test]
    fn the_architecture_is_named_or_read_from_the_file_name() {
        assert!(arch_of(Path::new("gen/bcm/aesni-x86_64-linux.S"), None) == Ok(Arch::X86_64));
        assert!(arch_of(Path::new("sm4-armv8-linux.S"), None) == Ok(Arch::Aarch64));
        assert!(arch_of(Path::new("cipher/sm4-gfni-avx512-amd64.S"), Some(Arch::X86_64)) == Ok(Arch::X86_64));
        let e = arch_of(Path::new("aes_enc.S"), None).unwrap_err();
        assert!(e.contains("aes_enc.S") && e.contains("--arch"), "{e}");
    }

    #[test]
    fn bad_arguments_are_errors_that_say_why() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let e = run(&args(&["f.S", "--arch", "mips"])).unwrap_err();
        assert!(e.contains("--arch mips"), "{e}");
        let e = run(&args(&["f.S", "--arch"])).unwrap_err();
        assert!(e.contains("a value is missing"), "{e}");
        let e = run(&args(&["--check", "d", "--out", "o"])).unwrap_err();
        assert!(e.starts_with("usage"), "{e}");
        let e = run(&args(&["a.S", "b.S"])).unwrap_err();
        assert!(e.contains("b.S: unexpected"), "{e}");
    }
}
