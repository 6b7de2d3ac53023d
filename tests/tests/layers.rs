//! The code's shape, checked: no import cycle among the modules of `gen`, `runtime` and `kernels` (at the crate's top
//! level, and among the files of each folder module, whose parts may use each other but not their folder's
//! own `mod.rs` items), no function over 80 lines in gen/, runtime/ and xtask/, and none over 100 lines in
//! kernels/ that does not say why.
//!
//! Sources are parsed with syn; a module is a file (`jit/target.rs` is `jit::target`, `jit/mod.rs` is `jit`).
//! Every path that starts with `crate::`, `super::` or `self::` (in `use` items and in code) is resolved to
//! the file module it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

use asmgen_tests::workspace;

/// Every `.rs` file under `dir`, with its module path (`["jit", "target"]`).
fn files(src: &Path) -> Vec<(Vec<String>, PathBuf)> {
    fn walk(dir: &Path, prefix: &[String], out: &mut Vec<(Vec<String>, PathBuf)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                walk(&p, &[prefix, &[name]].concat(), out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let module = match name.as_str() {
                    "mod" | "lib" | "main" => prefix.to_vec(),
                    _ => [prefix, &[name]].concat(),
                };
                out.push((module, p));
            }
        }
    }
    let mut out = Vec::new();
    walk(src, &[], &mut out);
    out
}

/// Collects the module paths a file refers to.
struct Refs<'a> {
    /// The module the code being visited is in (the file's, plus inline modules).
    at: Vec<String>,
    /// Known file modules.
    modules: &'a BTreeSet<Vec<String>>,
    /// File modules referred to.
    found: BTreeSet<Vec<String>>,
}

impl Refs<'_> {
    /// Resolves a path's segments to the longest file module it names.
    fn add(&mut self, segments: &[String]) {
        let mut abs: Vec<String> = match segments.first().map(String::as_str) {
            Some("crate") => Vec::new(),
            Some("super") | Some("self") => self.at.clone(),
            // A path relative to the current module that starts with one of its child modules (`use
            // dispatch::Sm4Kernels` in `sm4/mod.rs`).
            Some(first) if self.modules.contains(&[self.at.as_slice(), &[first.to_string()]].concat()) => {
                self.at.clone()
            }
            _ => return,
        };
        for s in &segments[if segments[0] == "crate" { 1 } else { 0 }..] {
            match s.as_str() {
                "super" => {
                    abs.pop();
                }
                "self" => {}
                _ => abs.push(s.clone()),
            }
        }
        while !abs.is_empty() && !self.modules.contains(&abs) {
            abs.pop();
        }
        self.found.insert(abs);
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, t: &syn::UseTree) {
        match t {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.add(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.add(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.add(&prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Refs<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.add(&segments);
        syn::visit::visit_path(self, p);
    }
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(super)`, `pub(crate)` name who may see an item, not what it uses.
    }
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // `#[cfg(test)] mod tests { use super::*; }`: tests may reach into what they test.
        if m.content.is_some() && m.ident != "tests" {
            self.at.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.at.pop();
        }
    }
}

/// The module graph of a crate: file module -> file modules it refers to.
fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = files(src);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut g = BTreeMap::new();
    for (module, path) in &files {
        let ast = syn::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut r = Refs { at: module.clone(), modules: &modules, found: BTreeSet::new() };
        r.visit_file(&ast);
        r.found.remove(module);
        g.insert(module.clone(), r.found);
    }
    g
}

/// A cycle in `edges` over `nodes`, if any, as the list of its nodes.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn dfs(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m).copied().unwrap_or(0) {
                1 => {
                    let i = stack.iter().position(|s| s == m).unwrap();
                    return Some([&stack[i..], std::slice::from_ref(m)].concat());
                }
                0 => {
                    if let Some(c) = dfs(m, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if state.get(n).copied().unwrap_or(0) == 0 {
            if let Some(c) = dfs(n, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// The cycles of a crate: among its top-level modules, and among the files of each folder module (where a
/// part refers to its folder's `mod.rs` items, that is an edge to the folder, which refers to its parts).
fn cycles(src: &Path) -> Vec<String> {
    let g = graph(src);
    let mut problems = Vec::new();
    // Top level: `a` -> `b` when a file under `a` refers to a module under `b`.
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, refs) in &g {
        let Some(a) = m.first() else { continue };
        for r in refs {
            match r.first() {
                Some(b) if b != a => {
                    top.entry(a.clone()).or_default().insert(b.clone());
                }
                _ => {}
            }
        }
    }
    if let Some(c) = cycle(&top) {
        problems.push(format!("{}: top-level import cycle {}", src.display(), c.join(" -> ")));
    }
    // Inside each folder: the folder's own file and its direct parts.
    let folders: BTreeSet<Vec<String>> =
        g.keys().filter(|m| g.keys().any(|n| n.len() == m.len() + 1 && n.starts_with(m))).cloned().collect();
    for folder in folders.into_iter().filter(|f| !f.is_empty()) {
        let name = |m: &[String]| if m.len() == folder.len() { "mod".to_string() } else { m[folder.len()].clone() };
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (m, refs) in g.iter().filter(|(m, _)| m.starts_with(&folder) && m.len() <= folder.len() + 1) {
            for r in refs.iter().filter(|r| r.starts_with(&folder)) {
                let (a, b) = (name(m), name(&r[..r.len().min(folder.len() + 1)]));
                if a != b {
                    edges.entry(a).or_default().insert(b);
                }
            }
        }
        if let Some(c) = cycle(&edges) {
            problems.push(format!("{}/{}: import cycle {}", src.display(), folder.join("/"), c.join(" -> ")));
        }
    }
    problems
}

#[test]
fn no_import_cycles_in_gen_runtime_or_kernels() {
    let mut problems = Vec::new();
    for krate in ["gen", "runtime", "kernels"] {
        problems.extend(cycles(&workspace().join(krate).join("src")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A function longer than the limit: where it is, its name, the lines of its signature and of its body's end
/// (1-based), and its body's length.
struct LongFn {
    file: PathBuf,
    name: String,
    sig_line: usize,
    end_line: usize,
    lines: usize,
}

/// Functions (free and in impls) whose body is longer than `max` lines in the `.rs` files under `dir` (test
/// modules exempt).
fn long_fns(dir: &Path, max: usize) -> Vec<LongFn> {
    struct Long<'a> {
        file: &'a Path,
        max: usize,
        found: Vec<LongFn>,
    }
    impl Long<'_> {
        fn check(&mut self, sig: &syn::Signature, body: proc_macro2::Span) {
            let lines = body.end().line - body.start().line + 1;
            if lines > self.max {
                self.found.push(LongFn {
                    file: self.file.to_path_buf(),
                    name: sig.ident.to_string(),
                    sig_line: syn::spanned::Spanned::span(sig).start().line,
                    end_line: body.end().line,
                    lines,
                });
            }
        }
    }
    impl<'ast> Visit<'ast> for Long<'_> {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.check(&f.sig, syn::spanned::Spanned::span(&f.block));
            syn::visit::visit_item_fn(self, f);
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.check(&f.sig, syn::spanned::Spanned::span(&f.block));
            syn::visit::visit_impl_item_fn(self, f);
        }
        fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
            // Tests are exempt: a test function reads best as one story.
            if m.ident != "tests" {
                syn::visit::visit_item_mod(self, m);
            }
        }
    }
    let mut found = Vec::new();
    for (_, path) in files(dir) {
        let ast = syn::parse_file(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut l = Long { file: &path, max, found: Vec::new() };
        l.visit_file(&ast);
        found.extend(l.found);
    }
    found
}

impl LongFn {
    fn describe(&self) -> String {
        format!("{}:{} `{}`: {} lines", self.file.display(), self.sig_line, self.name, self.lines)
    }

    /// Whether a comment line containing `Over 100 lines:` (the reason) is right above the function (in the
    /// comment and attribute lines that lead to its signature) or inside it.
    fn says_why(&self) -> bool {
        let text = std::fs::read_to_string(&self.file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut first = self.sig_line - 1;
        while first > 0 && {
            let t = lines[first - 1].trim_start();
            t.starts_with("//") || t.starts_with("#[")
        } {
            first -= 1;
        }
        lines[first..self.end_line].iter().any(|l| l.trim_start().starts_with("//") && l.contains("Over 100 lines:"))
    }
}

/// Functions (free and in impls) longer than `max` lines in the `.rs` files under `dir`, described.
fn long_functions(dir: &Path, max: usize) -> Vec<String> {
    long_fns(dir, max).iter().map(LongFn::describe).collect()
}

/// Kernel functions over 100 lines that do not say why (see [`kernel_functions_over_100_lines_say_why`]).
fn unexplained_long_kernels(dir: &Path) -> Vec<String> {
    long_fns(dir, 100).iter().filter(|f| !f.says_why()).map(LongFn::describe).collect()
}

/// A kernel function may run past gen's 80 lines (a kernel often reads best as the straight-line story of one
/// loop), but one over 100 lines says why in a comment line containing `Over 100 lines:`, right above it or
/// inside it.
#[test]
fn kernel_functions_over_100_lines_say_why() {
    let found = unexplained_long_kernels(&workspace().join("kernels").join("src"));
    assert!(
        found.is_empty(),
        "kernel functions over 100 lines without an `Over 100 lines:` comment:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_function_over_80_lines_in_gen_runtime_or_xtask() {
    let mut found = Vec::new();
    for krate in ["gen", "runtime", "xtask"] {
        found.extend(long_functions(&workspace().join(krate).join("src"), 80));
    }
    assert!(found.is_empty(), "functions over 80 lines:\n{}", found.join("\n"));
}

/// The checks find what they look for: a planted cycle and a planted long function.
#[test]
fn the_checks_can_fail() {
    let dir = std::env::temp_dir().join(format!("asmgen-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a; mod b;").unwrap();
    std::fs::write(dir.join("a.rs"), "use crate::b::x;").unwrap();
    std::fs::write(dir.join("b/mod.rs"), "mod x; mod y; fn f() { crate::a::g(); }").unwrap();
    std::fs::write(dir.join("b/x.rs"), "use super::y::Y;").unwrap();
    std::fs::write(
        dir.join("b/y.rs"),
        format!("use super::x::X;\nfn long() {{\n{}}}\n", "    let _ = 1;\n".repeat(80)),
    )
    .unwrap();
    let problems = cycles(&dir);
    assert!(problems.iter().any(|p| p.contains("top-level import cycle")), "{problems:?}");
    assert!(problems.iter().any(|p| p.contains("b: import cycle")), "{problems:?}");
    assert_eq!(long_functions(&dir, 80).len(), 1);
    let body = "    let _ = 1;\n".repeat(101);
    std::fs::write(
        dir.join("k.rs"),
        format!("fn quiet() {{\n{body}}}\n/// A kernel.\n// Over 100 lines: one loop.\nfn told() {{\n{body}}}\nfn inside() {{\n    // Over 100 lines: one loop.\n{body}}}\n"),
    )
    .unwrap();
    let unexplained = unexplained_long_kernels(&dir);
    assert!(unexplained.len() == 1 && unexplained[0].contains("`quiet`"), "{unexplained:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
