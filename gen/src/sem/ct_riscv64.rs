//! The riscv64 side of the constant-time checker ([`super::ct`]): taint through the operand roles of the
//! [`Sem`](super::riscv64::Sem) table (a written operand is secret when a read one is; `xor d, a, a` and
//! `vxor.vv d, a, a` clear it; a vector register group taints each of its registers). Flagged: a branch on a
//! secret register, a memory access whose address register is secret, a vector length set from a secret, and
//! an instruction marked variable-time with a secret operand.

use super::ct::{Taint, Tainting};
use super::riscv64::{address, sem, Machine};
use super::Role;
use crate::ir::Inst;
use crate::isa::riscv64::{Op, Operand, Riscv64};

/// Bytes a memory operand of `op` accesses, at the current vl.
fn access_len(op: Op, m: &Machine<'_>) -> u64 {
    match op {
        Op::ld | Op::sd => 8,
        Op::lw | Op::lwu | Op::sw => 4,
        Op::lbu | Op::sb => 1,
        Op::vle32_v | Op::vse32_v => 4 * m.state.vl,
        Op::vle64_v | Op::vse64_v => 8 * m.state.vl,
        _ => 0,
    }
}

/// The registers of the group from `v` (LMUL of them, of the element width `eew` where it differs from SEW).
fn group(m: &Machine<'_>, v: u8, op: Op) -> std::ops::Range<usize> {
    let eew = match op {
        Op::vle32_v | Op::vse32_v => 32,
        Op::vle64_v | Op::vse64_v => 64,
        _ => m.state.sew,
    };
    let n = (m.state.lmul * eew / m.state.sew).max(1) as usize;
    v as usize..(v as usize + n).min(32)
}

impl Tainting for Riscv64 {
    fn step(taint: &mut Taint, inst: &Inst<Riscv64>, m: &mut Machine<'_>) -> Vec<&'static str> {
        let (s, ops, op) = (sem(inst.op), &inst.operands, inst.op);
        let mut found = Vec::new();
        if ops.iter().zip(s.roles).any(|(o, r)| *r != Role::None && addr_secret(taint, o)) {
            found.push("memory address depends on a secret");
        }
        let zeroing = matches!(op, Op::xor | Op::vxor_vv) && ops[1] == ops[2];
        let t =
            !zeroing && ops.iter().zip(s.roles).any(|(o, r)| matches!(r, Role::R | Role::RW) && read(taint, m, op, o));
        let branch = matches!(op, Op::beqz | Op::bnez | Op::beq | Op::bne | Op::bltu | Op::bgeu);
        if branch && t {
            found.push("branch on a secret");
        }
        if op == Op::vsetvli && t {
            found.push("vector length set from a secret");
        }
        if s.variable_time && t {
            found.push("variable-time instruction on a secret");
        }
        for (o, r) in ops.iter().zip(s.roles) {
            if matches!(r, Role::W | Role::RW) {
                write(taint, m, op, o, t);
            }
        }
        found
    }
}

/// Whether an operand's address register is secret.
fn addr_secret(taint: &Taint, o: &Operand) -> bool {
    match o {
        Operand::Mem(a) => taint.gpr[a.base().0 as usize],
        Operand::Base(b) => taint.gpr[*b as usize],
        _ => false,
    }
}

/// The taint of a read operand.
fn read(taint: &Taint, m: &Machine<'_>, op: Op, o: &Operand) -> bool {
    match o {
        Operand::X(n) => taint.gpr[*n as usize],
        Operand::V(n) => group(m, *n, op).any(|r| taint.vec[r]),
        Operand::Mem(_) | Operand::Base(_) => address(m, o).is_ok_and(|addr| taint.bytes(addr, access_len(op, m))),
        _ => false,
    }
}

/// Sets the taint of a written operand (x0 stays public).
fn write(taint: &mut Taint, m: &Machine<'_>, op: Op, o: &Operand, t: bool) {
    match o {
        Operand::X(n) => taint.gpr[*n as usize] = t && *n != 0,
        Operand::V(n) => group(m, *n, op).for_each(|r| taint.vec[r] = t),
        Operand::Mem(_) | Operand::Base(_) => {
            if let Ok(addr) = address(m, o) {
                taint.set_bytes(addr, access_len(op, m), t);
            }
        }
        _ => {}
    }
}
