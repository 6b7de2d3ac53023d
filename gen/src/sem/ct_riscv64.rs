//! The riscv64 side of the constant-time checker ([`super::ct`]): taint through the operand roles of the
//! [`Sem`](super::riscv64::Sem) table (a written operand is secret when a read one is; `xor d, a, a` and
//! `vxor.vv d, a, a` clear it; a vector register group taints each of its registers; masked instructions and
//! `vmerge` read v0 too). Flagged: a branch on a secret register, a memory access whose address register (or
//! stride, or indices) is secret, a vector length set from a secret, an instruction marked variable-time with a
//! secret operand, and a secret in the operand Zvkt exempts as control (a vector shift amount, a gather index, a
//! slide amount). No entry is marked variable-time: its scalar crypto entries are those Zkt requires to run in
//! data-independent time, its vector ones those Zvkt requires.

use super::ct::{Taint, Tainting};
use super::riscv64::{address, control_operand, reads_v0, sem, Machine};
use super::Role;
use crate::ir::Inst;
use crate::isa::riscv64::{Op, Operand, Riscv64};

/// Bytes a memory operand of `op` accesses, at the current vl.
fn access_len(op: Op, m: &Machine<'_>) -> u64 {
    match op {
        Op::ld | Op::sd => 8,
        Op::lw | Op::lwu | Op::sw => 4,
        Op::lhu | Op::lh | Op::sh => 2,
        Op::lbu | Op::lb | Op::sb => 1,
        Op::vle8_v | Op::vse8_v => m.state.vl,
        Op::vle32_v | Op::vse32_v => 4 * m.state.vl,
        Op::vle64_v | Op::vse64_v => 8 * m.state.vl,
        _ => 0,
    }
}

/// The registers of the group from `v`, operand `index` of `op` (LMUL of them, of the element width `eew`
/// where it differs from SEW: loads and stores, a widening destination, an extension's source; eight such groups
/// for a segment access).
fn group(m: &Machine<'_>, v: u8, op: Op, index: usize) -> std::ops::Range<usize> {
    let sew = m.state.sew;
    let eew = match op {
        Op::vle8_v | Op::vse8_v => 8,
        Op::vle32_v | Op::vse32_v | Op::vlse32_v | Op::vsse32_v | Op::vlsseg8e32_v | Op::vssseg8e32_v => 32,
        Op::vle64_v | Op::vse64_v | Op::vlse64_v | Op::vsse64_v => 64,
        Op::vwsll_vv | Op::vwsll_vx | Op::vwsll_vi if index == 0 => 2 * sew,
        Op::vzext_vf2 | Op::vsext_vf2 if index == 1 => sew / 2,
        Op::vzext_vf4 if index == 1 => sew / 4,
        Op::vluxei8_v | Op::vsuxei8_v if index == 2 => 8,
        // A mask register.
        Op::vmseq_vi | Op::vmsgtu_vx if index == 0 => 1,
        _ => sew,
    };
    let fields = if matches!(op, Op::vlsseg8e32_v | Op::vssseg8e32_v) { 8 } else { 1 };
    let n = match op {
        Op::vmv1r_v => 1,
        Op::vmv2r_v => 2,
        Op::vmv4r_v => 4,
        Op::vmv8r_v => 8,
        _ => fields * (m.state.lmul * eew / sew).max(1) as usize,
    };
    v as usize..(v as usize + n).min(32)
}

impl Tainting for Riscv64 {
    fn step(taint: &mut Taint, inst: &Inst<Riscv64>, m: &mut Machine<'_>) -> Vec<&'static str> {
        let (s, ops, op) = (sem(inst.op), &inst.operands, inst.op);
        let mut found = Vec::new();
        let stride_secret = stride(op, m, ops).is_some() && matches!(ops[2], Operand::X(n) if taint.gpr[n as usize]);
        let index_secret = matches!(op, Op::vluxei8_v | Op::vsuxei8_v) && read(taint, m, op, ops, 2);
        if stride_secret
            || index_secret
            || ops.iter().zip(s.roles).any(|(o, r)| *r != Role::None && addr_secret(taint, o))
        {
            found.push("memory address depends on a secret");
        }
        let zeroing = matches!(op, Op::xor | Op::vxor_vv) && ops[1] == ops[2];
        let read_op = |(i, r): (usize, &Role)| matches!(r, Role::R | Role::RW) && read(taint, m, op, ops, i);
        let t = !zeroing && (s.roles.iter().enumerate().any(read_op) || (reads_v0(op) && taint.vec[0]));
        let branch = matches!(op, Op::beqz | Op::bnez | Op::beq | Op::bne | Op::bltu | Op::bgeu | Op::blt | Op::bge);
        if branch && t {
            found.push("branch on a secret");
        }
        if matches!(op, Op::vsetvli | Op::vsetvli_p) && t {
            found.push("vector length set from a secret");
        }
        if s.variable_time && t {
            found.push("variable-time instruction on a secret");
        }
        if control_operand(op).is_some_and(|i| read(taint, m, op, ops, i)) {
            found.push("shift, gather or slide controlled by a secret");
        }
        for (i, r) in s.roles.iter().enumerate() {
            if matches!(r, Role::W | Role::RW) {
                write(taint, m, op, ops, i, t);
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

/// The element size and stride (operand 2's value) of a strided load or store.
fn stride(op: Op, m: &Machine<'_>, ops: &[Operand]) -> Option<(u64, u64)> {
    let eb = match op {
        Op::vlse32_v | Op::vsse32_v => 4,
        Op::vlse64_v | Op::vsse64_v => 8,
        // A segment of eight 32-bit fields.
        Op::vlsseg8e32_v | Op::vssseg8e32_v => 32,
        _ => return None,
    };
    match ops.get(2) {
        Some(Operand::X(n)) => Some((eb, m.state.x[*n as usize])),
        _ => None,
    }
}

/// The byte ranges `(address, length)` a memory operand of `op` at `addr` accesses at the current vl: one, or
/// one per element of a strided access.
fn spans(op: Op, m: &Machine<'_>, ops: &[Operand], addr: u64) -> Vec<(u64, u64)> {
    match (stride(op, m, ops), &ops[2..]) {
        (Some((eb, s)), _) => (0..m.state.vl).map(|i| (addr.wrapping_add(i.wrapping_mul(s)), eb)).collect(),
        (None, [Operand::V(idx)]) if matches!(op, Op::vluxei8_v | Op::vsuxei8_v) => {
            let eb = u64::from(m.state.sew / 8);
            (0..m.state.vl as usize).map(|i| (addr.wrapping_add(m.state.elem(*idx, i, 1)), eb)).collect()
        }
        _ => vec![(addr, access_len(op, m))],
    }
}

/// The taint of read operand `index`.
fn read(taint: &Taint, m: &Machine<'_>, op: Op, ops: &[Operand], index: usize) -> bool {
    let o = &ops[index];
    match o {
        Operand::X(n) => taint.gpr[*n as usize],
        Operand::V(n) => group(m, *n, op, index).any(|r| taint.vec[r]),
        Operand::Mem(_) | Operand::Base(_) => {
            address(m, o).is_ok_and(|addr| spans(op, m, ops, addr).into_iter().any(|(at, len)| taint.bytes(at, len)))
        }
        _ => false,
    }
}

/// Sets the taint of written operand `index` (x0 stays public).
fn write(taint: &mut Taint, m: &Machine<'_>, op: Op, ops: &[Operand], index: usize, t: bool) {
    let o = &ops[index];
    match o {
        Operand::X(n) => taint.gpr[*n as usize] = t && *n != 0,
        Operand::V(n) => group(m, *n, op, index).for_each(|r| taint.vec[r] = t),
        Operand::Mem(_) | Operand::Base(_) => {
            if let Ok(addr) = address(m, o) {
                for (at, len) in spans(op, m, ops, addr) {
                    taint.set_bytes(at, len, t);
                }
            }
        }
        _ => {}
    }
}
