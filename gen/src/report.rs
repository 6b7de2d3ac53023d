//! The ISA report: for each function, the features it requires, its instruction mix and the registers it uses.
//! `cargo xtask report` prints it; auditors compare it with the `Requires:` lines of the listings. `cargo xtask
//! audit` builds on [`mix`] and [`registers`].

use crate::ir::{Function, Listing};
use crate::isa::InstructionSet;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The body's instructions per mnemonic (prologue and epilogue not counted).
pub fn mix<I: InstructionSet>(f: &Function<I>) -> BTreeMap<&'static str, usize> {
    let mut mix = BTreeMap::new();
    for inst in f.insts() {
        *mix.entry(I::info(inst.op).mnemonic()).or_default() += 1;
    }
    mix
}

/// The registers the body's operands name, sorted, each once.
pub fn registers<I: InstructionSet>(f: &Function<I>) -> Vec<I::Reg> {
    let mut regs = Vec::new();
    for o in f.insts().flat_map(|inst| &inst.operands) {
        I::regs(o, &mut regs);
    }
    regs.sort();
    regs.dedup();
    regs
}

/// A plain-text report of every function in `listings`.
pub fn report<I: InstructionSet>(listings: &[Listing<I>]) -> String {
    let mut s = String::new();
    for l in listings {
        for f in &l.functions {
            let _ = writeln!(s, "{} ({}.S)", f.name, l.name);
            let req = f.required.names(", ");
            let _ = writeln!(s, "  requires: {}", if req.is_empty() { "baseline" } else { &req });
            let (mix, regs) = (mix(f), registers(f));
            let total: usize = mix.values().sum();
            let mix: Vec<String> = mix.iter().map(|(m, n)| format!("{m} {n}")).collect();
            let _ = writeln!(s, "  instructions ({total}): {}", mix.join(", "));
            let regs: Vec<String> = regs.iter().map(|r| I::reg_name(*r)).collect();
            let _ = writeln!(s, "  registers: {}", regs.join(" "));
            let saved: Vec<String> = f.frame.saved.iter().map(|r| I::reg_name(*r)).collect();
            let _ = writeln!(
                s,
                "  callee-saved, preserved by the prologue: {}",
                if saved.is_empty() { "none".into() } else { saved.join(" ") }
            );
        }
    }
    s
}
