//! The x86_64 side of the constant-time checker ([`super::ct`]): taint through the operand roles of the
//! [`Sem`](super::x86_64::Sem) table (the flags an instruction writes take the taint of what it read; `xor r, r`
//! and `pxor`/`xorps`/`vpxor`/`vxorps`/`vpxorq`/`vpxord v, v, v` clear it; `push`/`pop` move a stack slot's; registers used without being
//! named, [`Sem::implicit`](super::x86_64::Sem::implicit), are read and written as the named ones; `call` pushes a
//! public return address, `pushfq`/`popfq` move the flags' taint to and from the stack slot, `leave` loads rbp's
//! taint from its slot; the string instructions move the taint of the bytes they copy or store, and a masked
//! store's bytes take its opmask's). Flagged: a conditional branch on secret flags or (`jrcxz`) a secret rcx, a
//! call through a secret register, a memory access whose address uses a secret register (a string instruction's
//! rsi or rdi too), a `rep` count (rcx) that is secret, and an instruction marked variable-time
//! ([`Sem::variable_time`](super::x86_64::Sem::variable_time)) with a secret operand.

use super::ct::{Taint, Tainting};
use super::x86_64::{address, sem, Machine};
use super::Role;
use crate::ir::Inst;
use crate::isa::x86_64::{Mem, Op, Operand, Reg, Size, X86_64};

impl Tainting for X86_64 {
    fn step(taint: &mut Taint, inst: &Inst<X86_64>, m: &mut Machine<'_>) -> Vec<&'static str> {
        let (s, ops) = (sem(inst.op), &inst.operands);
        if let Some(found) = string_step(taint, inst.op, m) {
            return found;
        }
        let mut found = Vec::new();
        if inst.op == Op::jrcxz && taint.gpr[1] {
            found.push("branch on a secret register");
        }
        if inst.op == Op::call_reg && read(taint, m, &ops[0]) {
            found.push("call through a secret register");
        }
        let accessed = ops.iter().zip(s.roles).filter(|(_, r)| **r != Role::None);
        let secret_address = |o: &Operand| match o {
            Operand::Mem(_, a) | Operand::MemMask(_, a, _) => addr_regs(taint, a),
            _ => false,
        };
        if accessed.clone().any(|(o, _)| secret_address(o)) {
            found.push("memory address depends on a secret");
        }
        let branch = ops.iter().any(|o| matches!(o, Operand::Label(_)));
        if branch && s.flags_read != 0 && taint.flags {
            found.push("branch on secret flags");
        }
        let zeroing = matches!(
            inst.op,
            Op::xor
                | Op::xor32
                | Op::pxor
                | Op::xorps
                | Op::vpxor
                | Op::vxorps
                | Op::vpxor_y
                | Op::vpxorq
                | Op::vpxord
                | Op::vpxord_x
                | Op::vpxord_y
        ) && ops[ops.len() - 2] == ops[ops.len() - 1];
        let mut t = !zeroing
            && (accessed.filter(|(_, r)| matches!(r, Role::R | Role::RW)).any(|(o, _)| read(taint, m, o))
                || (s.flags_read != 0 && !branch && taint.flags));
        let implicit = |reg: &Reg| match *reg {
            Reg::Gpr(n) => Operand::Gpr(n),
            Reg::Vec(n) => Operand::Xmm(n),
        };
        t = t
            || (!zeroing
                && s.implicit.iter().any(|(reg, r)| matches!(r, Role::R | Role::RW) && read(taint, m, &implicit(reg))));
        if inst.op == Op::popfq {
            t = taint.bytes(m.state.gpr[4], 8);
        }
        if inst.op == Op::lea {
            t = matches!(&ops[1], Operand::Mem(_, a) if addr_regs(taint, a));
        }
        if s.variable_time && t {
            found.push("variable-time instruction on a secret");
        }
        stack(taint, inst, m);
        for (o, r) in ops.iter().zip(s.roles) {
            if matches!(r, Role::W | Role::RW) && !matches!(inst.op, Op::pop) {
                write(taint, m, o, t);
            }
        }
        for (reg, r) in s.implicit {
            if matches!(r, Role::W | Role::RW) {
                write(taint, m, &implicit(reg), t);
            }
        }
        if s.flags_written != 0 {
            taint.flags = t;
        }
        if inst.op == Op::leave {
            leave(taint, m, &mut found);
        }
        found
    }
}

/// Where the opmask registers' taint is kept: k0..k7 at `Taint::gpr[16..24]` (x86_64 has 16 general-purpose
/// registers; the array has room for aarch64's 32).
const K_TAINT: usize = 16;

fn width(s: Size) -> u64 {
    super::x86_64::size_bytes(s) as u64
}

/// Whether a memory operand's address registers are secret.
fn addr_regs(taint: &Taint, m: &Mem) -> bool {
    m.base.is_some_and(|b| taint.gpr[b.0 as usize]) || m.index.is_some_and(|(i, _)| taint.gpr[i.0 as usize])
}

/// The taint of a read operand.
fn read(taint: &Taint, m: &mut Machine<'_>, o: &Operand) -> bool {
    match o {
        Operand::Gpr(n) | Operand::Gpr32(n) | Operand::Gpr8(n) => taint.gpr[*n as usize],
        Operand::Xmm(n) | Operand::Ymm(n) | Operand::Zmm(n) | Operand::ZmmMaskz(n, _) => taint.vec[*n as usize],
        Operand::K(k) => taint.gpr[K_TAINT + *k as usize],
        Operand::Mem(s, a) => address(m, a).is_ok_and(|addr| taint.bytes(addr, width(*s))),
        _ => false,
    }
}

/// Sets the taint of a written operand.
fn write(taint: &mut Taint, m: &mut Machine<'_>, o: &Operand, t: bool) {
    match o {
        Operand::Gpr(n) | Operand::Gpr32(n) => taint.gpr[*n as usize] = t,
        // The other bytes are kept, with their taint.
        Operand::Gpr8(n) => taint.gpr[*n as usize] |= t,
        Operand::Xmm(n) | Operand::Ymm(n) | Operand::Zmm(n) => taint.vec[*n as usize] = t,
        // The mask picks which bytes are kept: its taint goes into the result.
        Operand::ZmmMaskz(n, k) => taint.vec[*n as usize] = t || taint.gpr[K_TAINT + *k as usize],
        Operand::K(k) => taint.gpr[K_TAINT + *k as usize] = t,
        Operand::Mem(s, a) => {
            if let Ok(addr) = address(m, a) {
                taint.set_bytes(addr, width(*s), t);
            }
        }
        // Each byte under the mask takes `t`; a secret mask taints every byte (which of them changed is secret).
        Operand::MemMask(s, a, k) => {
            let (mask, secret_mask) = (m.state.k[*k as usize], taint.gpr[K_TAINT + *k as usize]);
            if let Ok(addr) = address(m, a) {
                for i in 0..width(*s) {
                    let at = addr.wrapping_add(i);
                    let kept = taint.bytes(at, 1);
                    taint.set_bytes(at, 1, if (mask >> i) & 1 == 1 { t } else { kept } || secret_mask);
                }
            }
        }
        _ => {}
    }
}

/// `leave`: rsp takes rbp's taint, rbp the taint of the slot it is loaded from (whose address is rbp).
fn leave(taint: &mut Taint, m: &mut Machine<'_>, found: &mut Vec<&'static str>) {
    let (bp, bp_secret) = (m.state.gpr[5], taint.gpr[5]);
    if bp_secret {
        found.push("memory address depends on a secret");
    }
    taint.gpr[4] = bp_secret;
    taint.gpr[5] = taint.bytes(bp, 8);
}

/// `push`/`pop`: the stack slot's taint.
fn stack(taint: &mut Taint, inst: &Inst<X86_64>, m: &mut Machine<'_>) {
    let sp = m.state.gpr[4];
    match inst.op {
        Op::push => {
            let t = read(taint, m, &inst.operands[0]);
            taint.set_bytes(sp.wrapping_sub(8), 8, t);
        }
        Op::pop => {
            let t = taint.bytes(sp, 8);
            write(taint, m, &inst.operands[0], t);
        }
        // The return address is public.
        Op::call | Op::call_reg => taint.set_bytes(sp.wrapping_sub(8), 8, false),
        Op::pushfq => taint.set_bytes(sp.wrapping_sub(8), 8, taint.flags),
        _ => {}
    }
}

/// The string instructions (`movsb`, `rep stosq`, ...): `None` for any other entry. Flagged: an address from a
/// secret rsi or rdi, and a secret count (rcx) of a `rep` form, which decides how long it runs. The bytes written
/// take the taint of the bytes read (`movs`, element by element) or of rax (`stos`); the pointers and the count
/// keep theirs.
fn string_step(taint: &mut Taint, op: Op, m: &mut Machine<'_>) -> Option<Vec<&'static str>> {
    let (kind, width, rep) = match op {
        Op::movsb => (b'm', 1, false),
        Op::movsq => (b'm', 8, false),
        Op::stosb => (b's', 1, false),
        Op::stosq => (b's', 8, false),
        Op::rep_movsb => (b'm', 1, true),
        Op::rep_movsq => (b'm', 8, true),
        Op::rep_stosb => (b's', 1, true),
        Op::rep_stosq => (b's', 8, true),
        _ => return None,
    };
    let mut found = Vec::new();
    if taint.gpr[7] || (kind == b'm' && taint.gpr[6]) {
        found.push("memory address depends on a secret");
    }
    if rep && taint.gpr[1] {
        found.push("variable-time instruction on a secret");
    }
    let back = m.state.flags & super::x86_64::DF != 0;
    let count = if rep { m.state.gpr[1].min(1 << 20) } else { 1 };
    let (mut src, mut dst) = (m.state.gpr[6], m.state.gpr[7]);
    for _ in 0..count {
        let t = if kind == b'm' { taint.bytes(src, width) } else { taint.gpr[0] };
        taint.set_bytes(dst, width, t);
        let step = if back { width.wrapping_neg() } else { width };
        (src, dst) = (src.wrapping_add(step), dst.wrapping_add(step));
    }
    Some(found)
}
