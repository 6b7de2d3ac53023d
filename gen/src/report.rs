//! The ISA report: for each function, the features it requires, its instruction mix and the registers it uses.
//! `cargo xtask report` prints it; auditors compare it with the `Requires:` lines of the listings.

use crate::ir::Listing;
use crate::isa::InstructionSet;
use std::collections::BTreeMap;
use std::fmt::Write;

/// A plain-text report of every function in `listings`.
pub fn report<I: InstructionSet>(listings: &[Listing<I>]) -> String {
    let mut s = String::new();
    for l in listings {
        for f in &l.functions {
            let _ = writeln!(s, "{} ({}.S)", f.name, l.name);
            let req = f.required.names(", ");
            let _ = writeln!(s, "  requires: {}", if req.is_empty() { "baseline" } else { &req });
            let mut mix: BTreeMap<&str, usize> = BTreeMap::new();
            let mut regs = Vec::new();
            for inst in f.insts() {
                *mix.entry(I::info(inst.op).mnemonic()).or_default() += 1;
                for o in &inst.operands {
                    I::regs(o, &mut regs);
                }
            }
            regs.sort();
            regs.dedup();
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
