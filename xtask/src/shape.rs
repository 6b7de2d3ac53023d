//! Names for the forms the tables lack on the fixed-width ISAs. The importer knows an instruction it cannot
//! decode only as a word (`word 0xb8706890`); the report groups those by the disassembler's text with registers
//! and immediates made generic (`ldr w, [x, x]`), so a form that occurs with many registers counts once.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// The disassembler's text of every instruction of object `obj`, by function name and offset in it (other
/// symbols `objdump` heads a block with, such as riscv64's `.Lpcrel_hi0`, do not start a function). Empty where
/// `objdump` is missing or fails (the report then shows words).
pub fn disassembly(objdump: &str, obj: &Path, functions: &[&str]) -> HashMap<(String, u64), String> {
    let Ok(out) = Command::new(objdump).arg("-d").arg(obj).output() else { return HashMap::new() };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut map = HashMap::new();
    let mut function: Option<(String, u64)> = None;
    for line in text.lines() {
        // A function's header: `0000000000000000 <name>:`.
        if let Some((addr, rest)) = line.split_once(" <") {
            if let (Some(name), Ok(base)) = (rest.strip_suffix(">:"), u64::from_str_radix(addr.trim(), 16)) {
                if functions.contains(&name) {
                    function = Some((name.to_string(), base));
                }
                continue;
            }
        }
        // An instruction: `  1c:\t4cdf20b4 \tld1\t{v20.16b-v23.16b}, [x5], #64`.
        let fields: Vec<&str> = line.split('\t').collect();
        let (Some((name, base)), [addr, _word, mnemonic, rest @ ..]) = (&function, fields.as_slice()) else {
            continue;
        };
        let Ok(at) = u64::from_str_radix(addr.trim().trim_end_matches(':'), 16) else { continue };
        let operands = rest.first().map_or("", |o| o.split("//").next().unwrap_or(o).trim());
        map.insert((name.clone(), at - base), format!("{} {}", mnemonic.trim(), operands).trim().to_string());
    }
    map
}

/// The form of a disassembled instruction: registers by class (`w`, `x`, `v.16b`, `q`), immediates `#i`,
/// branch targets `label`.
pub fn generic(text: &str) -> String {
    let (mnemonic, operands) = text.split_once(' ').unwrap_or((text, ""));
    if operands.is_empty() {
        return mnemonic.to_string();
    }
    // A branch target: `1c <function+0x1c>`, the address and the symbol.
    let (operands, target) = match operands.find(" <") {
        Some(p) => (operands[..p].trim_end_matches(|c: char| c.is_ascii_hexdigit()), "label"),
        None => (operands, ""),
    };
    let mut out = String::new();
    for token in split_keep(operands) {
        out.push_str(&generic_token(token));
    }
    format!("{mnemonic} {out}{target}")
}

/// `s` cut before and after each separator (`, [ ] { } ( ) ! -` and space), the separators kept as tokens.
fn split_keep(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if matches!(c, ',' | '[' | ']' | '{' | '}' | '!' | ' ' | '(' | ')' | '-') {
            if start < i {
                out.push(&s[start..i]);
            }
            out.push(&s[i..i + 1]);
            start = i + 1;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// One operand token made generic: a register by its class, an immediate as `#i` (a number as `i`).
fn generic_token(t: &str) -> String {
    if t.starts_with('#') {
        return "#i".into();
    }
    let number = |s: &str| !s.is_empty() && (s.parse::<i64>().is_ok() || s.starts_with("0x") || s.starts_with("-0x"));
    if number(t) {
        return "i".into();
    }
    // aarch64 `v12.16b`, riscv64 `v12`: the vector register's arrangement only.
    if let Some(rest) = t.strip_prefix('v') {
        let (num, arr) = rest.split_once('.').unwrap_or((rest, ""));
        if num.parse::<u8>().is_ok() {
            return if arr.is_empty() { "v".into() } else { format!("v.{arr}") };
        }
    }
    // aarch64 w/x/q/d/s/h/b registers, riscv64 x registers by ABI name.
    let (class, num) = t.split_at(1);
    if matches!(class, "w" | "x" | "q" | "d" | "s" | "h" | "b") && num.parse::<u8>().is_ok() {
        return class.into();
    }
    const RV_NAMED: [&str; 5] = ["zero", "ra", "sp", "gp", "tp"];
    let rv_numbered = ["t", "s", "a"].iter().any(|p| t.strip_prefix(p).is_some_and(|n| n.parse::<u8>().is_ok()));
    if RV_NAMED.contains(&t) || rv_numbered {
        return "r".into();
    }
    t.to_string()
}

#[cfg(test)]
mod tests {
    use super::generic;

    #[test]
    fn forms_are_made_generic() {
        assert_eq!(generic("ldr w16, [x4, x16]"), "ldr w, [x, x]");
        assert_eq!(generic("and w16, w8, w11, lsl #4"), "and w, w, w, lsl #i");
        assert_eq!(generic("ld1 {v20.16b-v23.16b}, [x5], #64"), "ld1 {v.16b-v.16b}, [x], #i");
        assert_eq!(generic("isb"), "isb");
        assert_eq!(generic("vle32.v v1, (a0)"), "vle32.v v, (r)");
        assert_eq!(generic("b.ne 1c <f+0x1c>"), "b.ne label");
        assert_eq!(generic("b.mi a4 <f+0xa4>"), "b.mi label");
        assert_eq!(generic("cbz w3, 100 <f+0x100>"), "cbz w, label");
    }
}
