//! The Rust source of an imported function: a kernel written with the builder, one call per instruction.

use super::decode::Decode;
use crate::ir::{Function, Item};
use crate::label::Label;
use std::collections::BTreeSet;
use std::fmt::Write;

/// The variable a label is held in.
fn var(l: &Label, function: &str) -> String {
    let name = l.name();
    let short = name.strip_prefix("const_").unwrap_or(name);
    let short = short.strip_prefix(function).map_or(short, |s| s.trim_start_matches('_'));
    let mut v: String = short.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if v.is_empty() || v.starts_with(|c: char| c.is_ascii_digit()) {
        v.insert(0, 'l');
    }
    v
}

/// The Rust source of `f` (imported from `file` at `offset`): a function building it with the builder.
pub fn source<I: Decode>(f: &Function<I>, file: &str, offset: u64) -> String {
    let body = body(f);
    let tokens: BTreeSet<&str> =
        body.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').filter(|t| !t.is_empty()).collect();
    let mut names: Vec<&str> = Vec::new();
    if tokens.iter().any(|t| I::is_reg_const(t)) {
        names.push("regs::*");
    }
    names.extend(I::RUST_NAMES.iter().copied().filter(|n| tokens.contains(n)));
    let mut s = String::new();
    let insts = f.insts().count();
    let _ = writeln!(
        s,
        "//! `{}`, imported by `cargo xtask import` from {file} (offset {offset:#x}): {insts} instructions.",
        f.name
    );
    let ctype = if f.frame.params > 0 { "CType, " } else { "" };
    let _ = writeln!(
        s,
        "\nuse {}::{{{}}};\nuse asmgen::{{Abi, Builder, {ctype}Function, GenError}};\n",
        I::RUST_MODULE,
        names.join(", ")
    );
    let _ = writeln!(s, "/// `{}`, imported.", f.name);
    let _ = writeln!(s, "pub fn {}(abi: Abi) -> Result<Function<{}>, GenError> {{", rust_name(&f.name), I::RUST_ISA);
    s.push_str(&body);
    let _ = writeln!(s, "    b.finish()\n}}");
    s
}

/// The statements of the function's body: the builder, its constants and labels, one call per item.
fn body<I: Decode>(f: &Function<I>) -> String {
    let mut s = String::new();
    let features: Vec<String> = f.required.iter().map(|x| format!("{}::{x:?}", I::RUST_FEATURE)).collect();
    let _ =
        writeln!(s, "    let mut b = Builder::<{}>::new({:?}, abi, &[{}]);", I::RUST_ISA, f.name, features.join(", "));
    for k in 0..f.frame.params {
        let _ = writeln!(s, "    b.param(\"arg{k}\", CType::Size); // the type is not in the object: say it");
    }
    if f.frame.naked {
        let _ =
            writeln!(s, "    b.naked(); // its own prologue and epilogue, not the ABI's: no unwind data is derived");
    }
    if !f.frame.landing_pad {
        let _ = writeln!(s, "    b.without_landing_pad();");
    }
    for c in &f.consts {
        let bytes: Vec<String> = c.bytes.iter().map(|b| format!("{b:#04x}")).collect();
        let name = c.label.name().strip_prefix("const_").unwrap_or(c.label.name());
        let v = var(&c.label, &f.name);
        let _ =
            writeln!(s, "    let {v} = b.constant({name:?}, {}, {:?}, &[{}]);", c.align, c.comment, bytes.join(", "));
    }
    let mut labels: Vec<&Label> =
        f.body.iter().filter_map(|i| if let Item::Label(l) = i { Some(l) } else { None }).collect();
    labels.sort_by_key(|l| l.name().to_string());
    for l in labels {
        let v = var(l, &f.name);
        let _ = writeln!(s, "    let {v} = b.label({v:?});");
    }
    for item in &f.body {
        let _ = match item {
            Item::Inst(inst) => {
                let info = I::info(inst.op);
                let label = |l: &Label| var(l, &f.name);
                let args: Vec<String> =
                    info.kinds.iter().zip(inst.operands.iter()).map(|(k, o)| I::rust_operand(k, o, &label)).collect();
                writeln!(s, "    b.{}({});", info.method, args.join(", "))
            }
            Item::Label(l) => writeln!(s, "    b.bind(&{});", var(l, &f.name)),
            Item::Align(k) => writeln!(s, "    b.align({k});"),
            Item::Comment(c) => writeln!(s, "    b.comment({c:?});"),
            Item::Blank => writeln!(s, "    b.blank();"),
            Item::Cfi(_) => Ok(()),
        };
    }
    s
}

/// A Rust function name for a symbol (keywords become raw identifiers).
fn rust_name(name: &str) -> String {
    let n: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    match n.as_str() {
        "fn" | "mod" | "type" | "match" | "loop" | "move" | "ref" | "self" | "impl" | "use" | "where" => {
            format!("r#{n}")
        }
        _ => n,
    }
}
