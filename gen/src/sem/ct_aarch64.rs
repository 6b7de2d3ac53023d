//! The aarch64 side of the constant-time checker ([`super::ct`]): taint through the operand roles of the aarch64
//! [`Sem`](super::aarch64::Sem) table (a written operand is secret when a read operand, the loaded bytes, or read
//! flags are; flags written take the same taint; `eor v, v, v` clears it; a written-back base register keeps its
//! own taint; a register list is its two, three or four registers). Flagged: a conditional branch on secret flags or a
//! secret register (`cbz`, `tbz`), a memory access whose base or index register is secret, and an instruction
//! marked variable-time with a secret operand.

use super::aarch64::{gpr, sem, vreg, Machine};
use super::ct::{Taint, Tainting};
use super::Role;
use crate::ir::Inst;
use crate::isa::aarch64::{Aarch64, Op, Operand, OPS};

impl Tainting for Aarch64 {
    fn step(taint: &mut Taint, inst: &Inst<Aarch64>, m: &mut Machine<'_>) -> Vec<&'static str> {
        let (s, ops) = (sem(inst.op), &inst.operands);
        let mut found = Vec::new();
        let branch =
            matches!(ops.last(), Some(Operand::Label(_))) && OPS[inst.op as usize].name.starts_with(['b', 'c']);
        if branch && s.flags_read != 0 && taint.flags {
            found.push("branch on secret flags");
        }
        if matches!(inst.op, Op::cbz | Op::cbnz | Op::cbz_w | Op::cbnz_w | Op::tbz_w | Op::tbnz_w | Op::tbnz_x)
            && reg(taint, &ops[0])
        {
            found.push("branch on a secret register");
        }
        let mem = s.base.map(|b| (b, address(inst, b, m)));
        if s.base.is_some_and(|b| reg(taint, &ops[b]) || index(ops, b).is_some_and(|i| reg(taint, i))) {
            found.push("memory address depends on a secret");
        }
        let regs = || ops.iter().zip(s.roles).enumerate().filter(|(i, _)| Some(*i) != s.base);
        let read = regs().any(|(_, (o, r))| matches!(r, Role::R | Role::RW) && reg(taint, o));
        let store = mem.is_some() && regs().all(|(_, (_, r))| !matches!(r, Role::W));
        let loaded = mem.is_some_and(|(_, a)| !store && taint.bytes(a, s.mem_bytes as u64));
        let zeroing = matches!(inst.op, Op::eor_16b | Op::eor_8b | Op::eor | Op::eor_w) && ops[1] == ops[2];
        let t = !zeroing && (read || loaded || (s.flags_read != 0 && !branch && taint.flags));
        if s.variable_time && t {
            found.push("variable-time instruction on a secret");
        }
        if let (true, Some((_, a))) = (store, mem) {
            taint.set_bytes(a, s.mem_bytes as u64, read);
        }
        for (_, (o, r)) in regs() {
            if matches!(r, Role::W | Role::RW) {
                set_reg(taint, o, t);
            }
        }
        if s.flags_written != 0 {
            taint.flags = t;
        }
        found
    }
}

/// The taint of a register operand.
fn reg(taint: &Taint, o: &Operand) -> bool {
    match o {
        Operand::X(n) | Operand::W(n) => taint.gpr[*n as usize],
        Operand::Sp | Operand::Wsp => taint.gpr[31],
        Operand::V(_) | Operand::Q(_) | Operand::D(_) | Operand::S(_) => taint.vec[vreg(o)],
        Operand::List4(n, _) => (0..4).any(|k| taint.vec[(*n as usize + k) % 32]),
        Operand::List3(n, _) => (0..3).any(|k| taint.vec[(*n as usize + k) % 32]),
        Operand::List2(n, _) => (0..2).any(|k| taint.vec[(*n as usize + k) % 32]),
        _ => false,
    }
}

/// Sets the taint of a register operand.
fn set_reg(taint: &mut Taint, o: &Operand, t: bool) {
    match o {
        Operand::X(n) | Operand::W(n) => taint.gpr[*n as usize] = t,
        Operand::Sp | Operand::Wsp => taint.gpr[31] = t,
        Operand::V(_) | Operand::Q(_) | Operand::D(_) | Operand::S(_) => taint.vec[vreg(o)] = t,
        Operand::List4(n, _) => (0..4).for_each(|k| taint.vec[(*n as usize + k) % 32] = t),
        Operand::List3(n, _) => (0..3).for_each(|k| taint.vec[(*n as usize + k) % 32] = t),
        Operand::List2(n, _) => (0..2).for_each(|k| taint.vec[(*n as usize + k) % 32] = t),
        _ => {}
    }
}

/// The index register of a register-offset access (`ldr x0, [x1, x2]`): the operand after the base, when it is
/// a register.
fn index(ops: &[Operand], base: usize) -> Option<&Operand> {
    ops.get(base + 1).filter(|o| matches!(o, Operand::X(_) | Operand::Xzr))
}

/// The address an access of `inst` goes to (post-index: the base; otherwise base + offset or + index).
fn address(inst: &Inst<Aarch64>, base: usize, m: &Machine<'_>) -> u64 {
    let b = gpr(m, &inst.operands[base]);
    let post = OPS[inst.op as usize].name.ends_with("_post");
    match inst.operands.get(base + 1) {
        Some(Operand::Imm(off)) if !post => b.wrapping_add(*off as u64),
        Some(i @ (Operand::X(_) | Operand::Xzr)) => b.wrapping_add(gpr(m, i)),
        _ => b,
    }
}
