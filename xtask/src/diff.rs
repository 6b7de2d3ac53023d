//! `cargo xtask diff <rev> [<rev2>] [--json]`: what changed in the checked-in listings between two revisions
//! (rev2 default: the working tree), per function, for reviewers of a kernel change: added and removed
//! functions, instruction counts (instruction lines of the listing, prologue and epilogue included, with the
//! mnemonics that changed), the `Requires:` features, the size in bytes (x86_64-linux only, where the host's
//! GNU as assembles both sides; elsewhere instruction counts only) and the constant-time verdict.
//!
//! Old listings come from `git show <rev>:generated/<target>/<file>`; nothing is checked out. The verdict is
//! the constant-time checker's (through [`crate::audit`]) for the working tree's functions the audit checks,
//! and for a revision's function whose listing text is identical to the working tree's; a revision's other
//! functions cannot be rebuilt from their text and are "not checked", as are functions of architectures the
//! audit has no checker for.

use crate::audit::{audit, targets, CONSTANT_TIME};
use crate::json::Json;
use asmgen::Target;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// One function as its listing shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Func {
    /// The `Requires:` line of its header comment (`baseline` when none).
    pub requires: String,
    /// Instruction lines, raw `.inst`/`.insn` words included.
    pub instructions: usize,
    /// Instruction lines per mnemonic.
    pub mnemonics: BTreeMap<String, usize>,
    /// Bytes of code, where the listing was assembled.
    pub size: Option<usize>,
    /// The function's lines as the listing has them (so operand-only changes count too).
    pub body: String,
}

/// The functions of a GNU as listing by symbol, in name order: a function starts at the label of a `.globl`
/// symbol and ends at its `.cfi_endproc`, `.seh_endproc` or `.size`, or at the next such label.
pub fn parse(text: &str) -> BTreeMap<String, Func> {
    let globals: BTreeSet<&str> = text.lines().filter_map(|l| l.trim().strip_prefix(".globl")).map(str::trim).collect();
    let (mut out, mut requires, mut cur): (BTreeMap<String, Func>, Option<String>, Option<String>) =
        (BTreeMap::new(), None, None);
    for line in text.lines() {
        let t = line.trim();
        if let Some(r) = requires_line(t) {
            requires = Some(r);
        } else if let Some(sym) = t.strip_suffix(':').filter(|s| globals.contains(s)) {
            let requires = requires.take().unwrap_or_else(|| "baseline".into());
            out.insert(sym.to_string(), Func { requires, ..Func::default() });
            cur = Some(sym.to_string());
        } else if [".cfi_endproc", ".seh_endproc", ".size"].iter().any(|e| t.starts_with(e)) {
            cur = None;
        } else if let Some(sym) = &cur {
            let f = out.get_mut(sym).expect("the current function was inserted");
            f.body.push_str(line);
            f.body.push('\n');
            if let Some(m) = mnemonic(t) {
                f.instructions += 1;
                *f.mnemonics.entry(m).or_default() += 1;
            }
        }
    }
    out
}

/// The features of a function header's `Requires:` comment line (`* Requires: ...` in a C comment block,
/// `# Requires: ...` or `// Requires: ...` in older listings).
fn requires_line(t: &str) -> Option<String> {
    let body = ["*", "#", "//"].iter().find_map(|c| t.strip_prefix(c))?;
    Some(body.trim_start().strip_prefix("Requires:")?.trim().to_string())
}

/// The mnemonic of an instruction line (of a raw word, the one its comment names), or none for a label,
/// directive, comment or blank line.
fn mnemonic(t: &str) -> Option<String> {
    let first = t.split_whitespace().next()?;
    if first.ends_with(':') || first.starts_with("/*") || first.starts_with('*') || first.starts_with("//") {
        return None;
    }
    if first.starts_with('#') {
        return None;
    }
    if first == ".inst" || first == ".insn" {
        let comment = t.split_once("//").or_else(|| t.split_once('#')).map(|(_, c)| c);
        let named = comment.and_then(|c| c.split_whitespace().next());
        return Some(named.unwrap_or(first).to_string());
    }
    (!first.starts_with('.')).then(|| first.to_string())
}

/// A function's change between two listings.
#[derive(Debug, PartialEq, Eq)]
pub struct Change {
    /// `<target>/<file>`.
    pub file: String,
    /// The symbol.
    pub symbol: String,
    /// Before (none: added).
    pub old: Option<Func>,
    /// After (none: removed).
    pub new: Option<Func>,
    /// The constant-time verdicts before and after ([`CONSTANT_TIME`] where not checked).
    pub verdicts: [String; 2],
}

/// The functions that differ between `old` and `new` (the text of one listing; either may be empty).
pub fn compare(file: &str, old: &str, new: &str) -> Vec<Change> {
    let (o, n) = (parse(old), parse(new));
    let names: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    names
        .into_iter()
        .filter(|s| o.get(*s) != n.get(*s))
        .map(|s| Change {
            file: file.into(),
            symbol: s.clone(),
            old: o.get(s).cloned(),
            new: n.get(s).cloned(),
            verdicts: [CONSTANT_TIME.into(), CONSTANT_TIME.into()],
        })
        .collect()
}

/// Adds the assembled sizes to `funcs` where the host can assemble the listing (x86_64-linux with `as` and
/// `nm`); leaves them unknown elsewhere.
fn add_sizes(dir: &str, text: &str, funcs: &mut BTreeMap<String, Func>) {
    if dir != "x86_64-linux" || !cfg!(all(target_arch = "x86_64", target_os = "linux")) || text.is_empty() {
        return;
    }
    let tmp = std::env::temp_dir().join(format!("asmgen-diff-{}", std::process::id()));
    let (src, obj) = (tmp.with_extension("S"), tmp.with_extension("o"));
    if std::fs::write(&src, text).is_err() {
        return;
    }
    let ok = Command::new("as").arg("-o").arg(&obj).arg(&src).output().is_ok_and(|o| o.status.success());
    let nm = if ok { Command::new("nm").arg("-S").arg(&obj).output().ok() } else { None };
    let _ = (std::fs::remove_file(&src), std::fs::remove_file(&obj));
    for line in nm.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default().lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if let [_, size, _, sym] = w[..] {
            if let (Some(f), Ok(n)) = (funcs.get_mut(sym), usize::from_str_radix(size, 16)) {
                f.size = Some(n);
            }
        }
    }
}

/// The text of `generated/<dir>/<file>` at `rev` (`git show`), or in the working tree when `rev` is none; empty
/// when the file does not exist there.
fn read(root: &Path, rev: Option<&str>, path: &str) -> Result<String, String> {
    let Some(rev) = rev else {
        return Ok(std::fs::read_to_string(root.join(path)).unwrap_or_default());
    };
    let o = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["show", &format!("{rev}:{path}")])
        .output()
        .map_err(|e| format!("git: {e}"))?;
    Ok(if o.status.success() { String::from_utf8_lossy(&o.stdout).into_owned() } else { String::new() })
}

/// The `.S` listings of folder `dir` at `rev` (the working tree when none).
fn files(root: &Path, rev: Option<&str>, dir: &str) -> Result<BTreeSet<String>, String> {
    let names: Vec<String> = match rev {
        None => std::fs::read_dir(root.join("generated").join(dir))
            .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default(),
        Some(rev) => {
            let o = Command::new("git")
                .arg("-C")
                .arg(root)
                .args(["ls-tree", "--name-only", rev, &format!("generated/{dir}/")])
                .output()
                .map_err(|e| format!("git: {e}"))?;
            if !o.status.success() {
                return Err(format!("git ls-tree {rev}: {}", String::from_utf8_lossy(&o.stderr).trim()));
            }
            String::from_utf8_lossy(&o.stdout).lines().map(|l| l.rsplit('/').next().unwrap_or(l).to_string()).collect()
        }
    };
    Ok(names.into_iter().filter(|n| n.ends_with(".S")).collect())
}

/// The checker's verdicts of the working tree's functions of `t` by symbol (those the audit checks).
fn verdicts(t: Target) -> Result<BTreeMap<String, String>, String> {
    let rows = audit(t)?.into_iter().filter(|r| r.constant_time != CONSTANT_TIME);
    Ok(rows.map(|r| (r.symbol, r.constant_time)).collect())
}

/// Gives each side of `cs` the working tree's verdict where its text is the working tree's function's
/// (`current`: the working tree's listing parsed, `checked`: the verdicts of its target).
fn add_verdicts(cs: &mut [Change], current: &BTreeMap<String, Func>, checked: &BTreeMap<String, String>) {
    for c in cs {
        let (now, verdict) = (current.get(&c.symbol), checked.get(&c.symbol));
        for (side, f) in [&c.old, &c.new].into_iter().enumerate() {
            if let (Some(f), Some(now), Some(v)) = (f, now, verdict) {
                if f.body == now.body {
                    c.verdicts[side] = v.clone();
                }
            }
        }
    }
}

/// Every function change of every GNU as listing between `old` and `new` (the working tree when none).
pub fn changes(root: &Path, old: &str, new: Option<&str>) -> Result<Vec<Change>, String> {
    let mut out = Vec::new();
    for t in targets(None)? {
        let mut checked: Option<BTreeMap<String, String>> = None;
        let dir = t.dir_name();
        let names: BTreeSet<String> =
            files(root, Some(old), &dir)?.into_iter().chain(files(root, new, &dir)?).collect();
        for name in names {
            let path = format!("generated/{dir}/{name}");
            let (a, b) = (read(root, Some(old), &path)?, read(root, new, &path)?);
            let mut cs = compare(&format!("{dir}/{name}"), &a, &b);
            if !cs.is_empty() {
                let (mut pa, mut pb) = (parse(&a), parse(&b));
                add_sizes(&dir, &a, &mut pa);
                add_sizes(&dir, &b, &mut pb);
                for c in &mut cs {
                    c.old = pa.remove(&c.symbol);
                    c.new = pb.remove(&c.symbol);
                }
                let checked = match &mut checked {
                    Some(v) => v,
                    None => checked.insert(verdicts(t)?),
                };
                add_verdicts(&mut cs, &parse(&read(root, None, &path)?), checked);
            }
            out.extend(cs);
        }
    }
    Ok(out)
}

fn size(f: &Func) -> String {
    f.size.map_or("size unknown".into(), |n| format!("{n} bytes"))
}

/// The mnemonics whose counts changed, as `vpxor +2, nop -1`.
fn mnemonic_delta(old: &Func, new: &Func) -> String {
    let keys: BTreeSet<&String> = old.mnemonics.keys().chain(new.mnemonics.keys()).collect();
    let d: Vec<String> = keys
        .into_iter()
        .filter_map(|k| {
            let n = *new.mnemonics.get(k).unwrap_or(&0) as i64 - *old.mnemonics.get(k).unwrap_or(&0) as i64;
            (n != 0).then(|| format!("{k} {n:+}"))
        })
        .collect();
    d.join(", ")
}

/// A verdict in short: `constant time` for the checker's clean ones, the others as they are.
fn verdict(v: &str) -> &str {
    if v.starts_with("constant time (") {
        "constant time"
    } else {
        v
    }
}

/// One change as a line for people.
pub fn text(c: &Change) -> String {
    let [vo, vn] = [verdict(&c.verdicts[0]), verdict(&c.verdicts[1])];
    match (&c.old, &c.new) {
        (None, Some(n)) => {
            let (sym, i, r) = (&c.symbol, n.instructions, &n.requires);
            format!("  + {sym}: added, {i} instructions, requires {r}, {}; {vn}", size(n))
        }
        (Some(o), None) => {
            let (sym, i, r) = (&c.symbol, o.instructions, &o.requires);
            format!("  - {sym}: removed, {i} instructions, requires {r}, {}; {vo}", size(o))
        }
        (Some(o), Some(n)) => {
            let mut s = format!("  ~ {}: instructions {} -> {}", c.symbol, o.instructions, n.instructions);
            let delta = mnemonic_delta(o, n);
            if !delta.is_empty() {
                let _ = write!(s, " ({delta})");
            } else if o.instructions == n.instructions {
                s.push_str(" (same mnemonics, other lines changed)");
            }
            if o.requires != n.requires {
                let _ = write!(s, ", requires {} -> {}", o.requires, n.requires);
            }
            if o.size != n.size {
                let _ = write!(s, ", {} -> {}", size(o), size(n));
            }
            match vo == vn {
                true => write!(s, "; {vn}"),
                false => write!(s, "; {vo} -> {vn}"),
            }
            .expect("writing to a String");
            s
        }
        (None, None) => String::new(),
    }
}

fn func_json(f: &Option<Func>) -> Json {
    f.as_ref().map_or(Json::Null, |f| {
        let m: Vec<(String, usize)> = f.mnemonics.iter().map(|(k, n)| (k.clone(), *n)).collect();
        Json::Obj(vec![
            ("requires", Json::str(&f.requires)),
            ("instructions", Json::num(f.instructions)),
            ("mnemonics", Json::counts(&m)),
            ("size", f.size.map_or(Json::Null, Json::num)),
        ])
    })
}

/// One change as JSON.
pub fn json(c: &Change) -> Json {
    let kind = match (&c.old, &c.new) {
        (None, _) => "added",
        (_, None) => "removed",
        _ => "changed",
    };
    Json::Obj(vec![
        ("file", Json::str(&c.file)),
        ("symbol", Json::str(&c.symbol)),
        ("change", Json::str(kind)),
        ("old", func_json(&c.old)),
        ("new", func_json(&c.new)),
        ("constant_time", Json::Obj(vec![("old", Json::str(&c.verdicts[0])), ("new", Json::str(&c.verdicts[1]))])),
    ])
}

/// `diff <rev> [<rev2>] [--json]`.
pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let as_json = args.iter().any(|a| a == "--json");
    let revs: Vec<&str> = args.iter().filter(|a| *a != "--json").map(String::as_str).collect();
    let (old, new) = match revs[..] {
        [old] => (old, None),
        [old, new] => (old, Some(new)),
        _ => return Err("usage: cargo xtask diff <rev> [<rev2>] [--json]".into()),
    };
    let cs = changes(root, old, new)?;
    if as_json {
        println!("{}", Json::Arr(cs.iter().map(json).collect()).text());
        return Ok(());
    }
    println!("listings: {old} -> {}", new.unwrap_or("working tree"));
    let mut file = "";
    for c in &cs {
        if c.file != file {
            file = &c.file;
            println!("== {file}");
        }
        println!("{}", text(c));
    }
    let n = cs.len();
    println!("{n} function(s) changed; sizes: x86_64-linux (host GNU as), elsewhere instruction counts only");
    println!("constant time: the checker's verdict for functions as the working tree has them, where the audit checks them; a revision's other functions: {CONSTANT_TIME}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use asmgen::Target;

    fn root() -> std::path::PathBuf {
        crate::root()
    }

    fn listing() -> String {
        std::fs::read_to_string(root().join("generated/x86_64-linux/ghash.S")).unwrap()
    }

    /// The rule of tests/src/tools.rs: a missing tool fails under CI and is a notice otherwise.
    fn have(tools: &[&str], check: &str) -> bool {
        let missing: Vec<&&str> = tools.iter().filter(|t| Command::new(t).arg("--version").output().is_err()).collect();
        if missing.is_empty() {
            return true;
        }
        let msg = format!("{missing:?} not found: {check}");
        assert!(std::env::var_os("CI").is_none(), "{msg} (CI is set, so a missing tool is a failure)");
        eprintln!("NOTICE: {msg}; skipping it (with CI set this fails)");
        false
    }

    #[test]
    fn parse_finds_every_function_with_its_requires_line() {
        let t = Target::X86_64_LINUX;
        let audit = crate::audit::audit(t).unwrap();
        let fs = parse(&listing());
        let ghash: Vec<_> = audit.iter().filter(|r| r.listing == "ghash").collect();
        assert_eq!(fs.len(), ghash.len());
        for r in ghash {
            let f = &fs[&r.symbol];
            assert_eq!(f.requires, r.required.join(", "));
            // The listing's lines add the landing pad, the prologue and the epilogue to the body.
            assert!(f.instructions > r.instructions, "{}", r.symbol);
        }
    }

    #[test]
    fn a_doctored_listing_shows_exactly_its_changes() {
        let old = listing();
        let new = old
            .replace("\nasmgen_polyval_init_avx:\n", "\n")
            .replace("\nasmgen_ghash_update_avx:\n", "\nasmgen_ghash_update_avx:\n\tnop\n");
        let cs = compare("x86_64-linux/ghash.S", &old, &new);
        assert_eq!(cs.len(), 2, "{cs:?}");
        let (update, removed) = (&cs[0], &cs[1]);
        assert_eq!(removed.symbol, "asmgen_polyval_init_avx");
        assert!(removed.new.is_none() && removed.old.is_some());
        assert!(text(removed).starts_with("  - asmgen_polyval_init_avx: removed"));
        let (o, n) = (update.old.as_ref().unwrap(), update.new.as_ref().unwrap());
        assert_eq!((update.symbol.as_str(), n.instructions), ("asmgen_ghash_update_avx", o.instructions + 1));
        assert_eq!(o.requires, n.requires);
        assert_eq!(mnemonic_delta(o, n), "nop +1");
        assert!(compare("f", &old, &old).is_empty());
        assert_eq!(compare("f", "", &old).len(), parse(&old).len());
    }

    #[test]
    fn the_working_trees_functions_get_the_checkers_verdict() {
        let new = listing();
        let old = new.replace("\nasmgen_ghash_update_avx:\n", "\nasmgen_ghash_update_avx:\n\tnop\n");
        let checked = verdicts(Target::X86_64_LINUX).unwrap();
        let mut cs = compare("x86_64-linux/ghash.S", &old, &new);
        add_verdicts(&mut cs, &parse(&new), &checked);
        assert_eq!(cs.len(), 1, "{cs:?}");
        assert_eq!(cs[0].verdicts, [CONSTANT_TIME, crate::audit::CLEAN]);
        assert!(text(&cs[0]).ends_with("; not checked -> constant time"), "{}", text(&cs[0]));
        // Neither side as the working tree has it: not checked on either.
        let mut cs = compare("x86_64-linux/ghash.S", &old, &old.replace("\tnop\n", "\tnop\n\tnop\n"));
        add_verdicts(&mut cs, &parse(&new), &checked);
        assert_eq!(cs[0].verdicts, [CONSTANT_TIME, CONSTANT_TIME]);
        // riscv64's kernels have the checker's verdict too.
        let rv = verdicts(Target::RISCV64_LINUX).unwrap();
        assert!(!rv.is_empty() && rv.values().all(|v| verdict(v) == "constant time"), "{rv:?}");
    }

    #[test]
    fn assembled_sizes_equal_the_lowering() {
        if !have(&["as", "nm"], "diff's sizes of x86_64-linux listings") {
            return;
        }
        let text = std::fs::read_to_string(root().join("generated/x86_64-linux/sm4.S")).unwrap();
        let mut fs = parse(&text);
        add_sizes("x86_64-linux", &text, &mut fs);
        for r in crate::audit::audit(Target::X86_64_LINUX).unwrap().iter().filter(|r| r.listing == "sm4") {
            assert_eq!(fs[&r.symbol].size, r.code_bytes, "{}", r.symbol);
        }
    }

    #[test]
    fn reads_a_revision_with_git() {
        if !root().join(".git").exists() || !have(&["git"], "diff reads old listings with git show") {
            return;
        }
        let head = read(&root(), Some("HEAD"), "generated/x86_64-linux/ghash.S").unwrap();
        assert_eq!(parse(&head).len(), parse(&listing()).len());
        assert!(files(&root(), Some("HEAD"), "x86_64-linux").unwrap().contains("ghash.S"));
        assert!(files(&root(), Some("no-such-revision"), "x86_64-linux").is_err());
    }
}
