//! Uniform kernel documentation: every role has one ISA-neutral doc line (`Role::doc`), and on every generated
//! target the comment block of every listing function starts with its role's line, word for word, whatever
//! the ISA (the kernel's own notes follow it). Checked on the checked-in listings (`generated/`, the GNU as
//! `.S` files and the NASM `.asm` ones), with the roles and symbols from the catalog's kernel sets.

use std::collections::BTreeMap;
use std::path::PathBuf;

use asmgen::emit::rust::SetTable;
use asmgen::{Arch, Target};
use asmgen_kernels::catalog::{AARCH64_SETS, RISCV64_SETS, X86_64_SETS};
use asmgen_kernels::Role;

/// Symbol -> role of every kernel of every set of `target`.
fn roles_by_symbol(target: Target) -> BTreeMap<String, Role> {
    let tables: Vec<SetTable> = match target.arch {
        Arch::X86_64 => X86_64_SETS.iter().map(|s| s.table(target.abi).unwrap()).collect(),
        Arch::Aarch64 => AARCH64_SETS.iter().map(|s| s.table(target.abi).unwrap()).collect(),
        Arch::Riscv64 => RISCV64_SETS.iter().map(|s| s.table(target.abi).unwrap()).collect(),
    };
    let role = |name: &str| Role::all().find(|r| r.name() == name).unwrap();
    tables.iter().flat_map(|t| t.kernels.iter().map(move |(r, sym)| (sym.clone(), role(r)))).collect()
}

/// `(symbol, first line)` of every function comment block of a listing: the text after the block's opening
/// rule, found by the block's `void symbol(` prototype line. `lead` is the comment's line prefix.
fn function_docs(listing: &str, lead: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = listing.lines().collect();
    let rule = format!("{lead}{}", "-".repeat(40));
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(proto) = line.strip_prefix(&format!("{lead}void ")) else { continue };
        let symbol = proto.split('(').next().unwrap().to_string();
        let start = (0..i).rev().find(|&j| lines[j].starts_with(&rule)).expect("a rule opens the block");
        out.push((symbol, lines[start + 1].strip_prefix(lead).unwrap_or("").to_string()));
    }
    out
}

/// What is wrong with the function comments of one listing file (empty when nothing is).
fn doc_errors(file: &str, listing: &str, lead: &str, roles: &BTreeMap<String, Role>) -> Vec<String> {
    let docs = function_docs(listing, lead);
    let mut errors = Vec::new();
    if docs.is_empty() {
        errors.push(format!("{file}: no function comment found"));
    }
    for (symbol, first) in docs {
        let Some(role) = roles.get(&symbol) else {
            errors.push(format!("{file}: {symbol} is in no kernel set"));
            continue;
        };
        let want = role.doc().unwrap_or("<no doc line>");
        if first != want {
            errors.push(format!("{file}: {symbol} ({}) starts `{first}`, not `{want}`", role.name()));
        }
    }
    errors
}

#[test]
fn every_role_has_an_isa_neutral_doc_line() {
    let missing: Vec<&str> = Role::all().filter(|r| r.doc().is_none()).map(|r| r.name()).collect();
    assert!(missing.is_empty(), "roles without a doc line: {missing:?}");
}

#[test]
fn every_listing_function_comment_starts_with_its_roles_doc_line_on_every_target() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("generated");
    let mut errors = Vec::new();
    let mut files = 0;
    for target in Target::GENERATED {
        let roles = roles_by_symbol(target);
        let lead = if target.syntax.extension() == "asm" { "; " } else { " * " };
        let dir = root.join(target.dir_name());
        for listing in ["ghash", "sm4"] {
            let path = dir.join(format!("{listing}.{}", target.syntax.extension()));
            let text = std::fs::read_to_string(&path).unwrap();
            errors.extend(doc_errors(&path.display().to_string(), &text, lead, &roles));
            files += 1;
        }
    }
    assert_eq!(files, 16, "two listings for each of the eight generated targets");
    assert!(
        errors.is_empty(),
        "{} function comments do not start with their role's doc line:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

#[test]
fn doc_check_rejects_another_first_line() {
    let roles = BTreeMap::from([("asmgen_sm4_ecb_x".to_string(), Role::Ecb)]);
    let block = |first: &str| {
        format!("/*\n * {}\n * {first}\n * Notes.\n *\n * void asmgen_sm4_ecb_x(void);\n */\n", "-".repeat(60))
    };
    assert!(doc_errors("t", &block(Role::Ecb.doc().unwrap()), " * ", &roles).is_empty());
    assert_eq!(doc_errors("t", &block("SM4-ECB, eight blocks in flight."), " * ", &roles).len(), 1);
    assert_eq!(doc_errors("t", &block(Role::Ecb.doc().unwrap()).replace("_x(", "_y("), " * ", &roles).len(), 1);
}
