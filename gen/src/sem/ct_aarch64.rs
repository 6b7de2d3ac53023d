//! The constant-time checker ([`super::ct`]) on the aarch64 interpreter: taint flows through the operand roles of
//! the aarch64 [`Sem`](super::aarch64::Sem) table (a written operand is secret when a read operand, the loaded
//! bytes, or read flags are; flags written take the same taint; `eor v, v, v` clears it; a written-back base
//! register keeps its own taint). Registers carry one taint bit each (a register list four), memory one per
//! byte. Flagged: a conditional branch on secret flags or a secret register (`cbz`), a memory access whose base
//! register is secret, and an instruction marked variable-time with a secret operand.

use super::aarch64::{gpr, sem, vreg, Machine};
use super::ct::{Finding, Secrecy, PARAMS};
use super::interp::{Flat, Stop};
use super::interp_aarch64::Program;
use super::Role;
use crate::hash::FastSet;
use crate::ir::{Function, Inst};
use crate::isa::aarch64::{Aarch64, Op, Operand, OPS};

/// Taint: one bit per register and for the flags, and the set of secret memory bytes.
#[derive(Default)]
struct Taint {
    x: [bool; 32],
    v: [bool; 32],
    flags: bool,
    mem: FastSet<u64>,
}

impl Taint {
    fn reg(&self, o: &Operand) -> bool {
        match o {
            Operand::X(n) => self.x[*n as usize],
            Operand::Sp => self.x[31],
            Operand::V(_) | Operand::Q(_) | Operand::D(_) => self.v[vreg(o)],
            Operand::List4(n, _) => (0..4).any(|k| self.v[(*n as usize + k) % 32]),
            _ => false,
        }
    }
    fn set_reg(&mut self, o: &Operand, t: bool) {
        match o {
            Operand::X(n) => self.x[*n as usize] = t,
            Operand::Sp => self.x[31] = t,
            Operand::V(_) | Operand::Q(_) | Operand::D(_) => self.v[vreg(o)] = t,
            Operand::List4(n, _) => (0..4).for_each(|k| self.v[(*n as usize + k) % 32] = t),
            _ => {}
        }
    }
    fn bytes(&self, addr: u64, len: usize) -> bool {
        (addr..addr + len as u64).any(|a| self.mem.contains(&a))
    }
    fn set_bytes(&mut self, addr: u64, len: usize, t: bool) {
        for a in addr..addr + len as u64 {
            if t {
                self.mem.insert(a);
            } else {
                self.mem.remove(&a);
            }
        }
    }

    /// The address an access of `inst` goes to (post-index: the base; otherwise base + offset).
    fn address(inst: &Inst<Aarch64>, base: usize, m: &Machine<'_>) -> u64 {
        let b = gpr(m, &inst.operands[base]);
        let post = OPS[inst.op as usize].name.ends_with("_post");
        match inst.operands.get(base + 1) {
            Some(Operand::Imm(off)) if !post => b.wrapping_add(*off as u64),
            _ => b,
        }
    }

    /// Checks one instruction before it runs, then moves the taint as it will; returns the violations.
    fn step(&mut self, inst: &Inst<Aarch64>, m: &mut Machine<'_>) -> Vec<&'static str> {
        let (s, ops) = (sem(inst.op), &inst.operands);
        let mut found = Vec::new();
        let branch =
            matches!(ops.last(), Some(Operand::Label(_))) && OPS[inst.op as usize].name.starts_with(['b', 'c']);
        if branch && s.flags_read != 0 && self.flags {
            found.push("branch on secret flags");
        }
        if matches!(inst.op, Op::cbz | Op::cbnz) && self.reg(&ops[0]) {
            found.push("branch on a secret register");
        }
        let mem = s.base.map(|b| (b, Self::address(inst, b, m)));
        if s.base.is_some_and(|b| self.reg(&ops[b])) {
            found.push("memory address depends on a secret");
        }
        let regs = || ops.iter().zip(s.roles).enumerate().filter(|(i, _)| Some(*i) != s.base);
        let read = regs().any(|(_, (o, r))| matches!(r, Role::R | Role::RW) && self.reg(o));
        let store = mem.is_some() && regs().all(|(_, (_, r))| !matches!(r, Role::W));
        let loaded = mem.is_some_and(|(_, a)| !store && self.bytes(a, s.mem_bytes));
        let zeroing = inst.op == Op::eor_16b && ops[1] == ops[2];
        let t = !zeroing && (read || loaded || (s.flags_read != 0 && !branch && self.flags));
        if s.variable_time && t {
            found.push("variable-time instruction on a secret");
        }
        if let (true, Some((_, a))) = (store, mem) {
            self.set_bytes(a, s.mem_bytes, read);
        }
        for (_, (o, r)) in regs() {
            if matches!(r, Role::W | Role::RW) {
                self.set_reg(o, t);
            }
        }
        if s.flags_written != 0 {
            self.flags = t;
        }
        found
    }
}

/// Runs `p` from `state` on `mem` with the bytes `secret` (address, length) tainted; returns the violations,
/// one per instruction and kind.
pub fn check(
    p: &Program,
    mem: &mut Flat,
    state: super::aarch64::State,
    secret: &[(u64, u64)],
) -> Result<Vec<Finding>, Stop> {
    let mut taint = Taint::default();
    for &(addr, len) in secret {
        taint.set_bytes(addr, len as usize, true);
    }
    let mut found: Vec<Finding> = Vec::new();
    let mut m = Machine { state, mem };
    p.run(&mut m, 50_000_000, &mut |index, inst, m| {
        for what in taint.step(inst, m) {
            if !found.iter().any(|f| f.index == index && f.what == what) {
                let inst = format!("{} {:?}", OPS[inst.op as usize].name, inst.operands);
                found.push(Finding { function: p.name.clone(), index, inst, what });
            }
        }
    })?;
    Ok(found)
}

/// Interprets `f` (AAPCS64), whose parameters are named `params` (see [`PARAMS`]), over `n` blocks from made-up
/// buffers, with the secret ones tainted (and the counter too when `secret_ctr`); returns the violations.
pub fn check_function(
    f: &Function<Aarch64>,
    params: &[&str],
    n: usize,
    secret_ctr: bool,
) -> Result<Vec<Finding>, String> {
    let mut flat = Flat::default();
    let (mut args, mut secret) = (Vec::new(), Vec::new());
    for name in params {
        let &(_, what, size) =
            PARAMS.iter().find(|p| p.0 == *name).ok_or(format!("parameter {name}: secret or not?"))?;
        if what == Secrecy::Length {
            args.push(if *name == "len" { (16 * n + n % 7) as u64 } else { n as u64 });
            continue;
        }
        let bytes = if size == 0 { (n + 2) * 16 } else { size };
        let data: Vec<u8> = (0..bytes).map(|i| (i * 7 + 3) as u8).collect();
        let addr = flat.map(&data);
        args.push(addr);
        if what == Secrecy::Secret || secret_ctr {
            secret.push((addr, bytes as u64));
        }
    }
    let stack = flat.map(&[0; 1 << 16]) + (1 << 16);
    let p = Program::new(f);
    for (l, bytes) in &p.consts {
        let addr = flat.map(bytes);
        flat.labels.insert(l.name().to_string(), addr);
    }
    let state = p.setup(&mut flat, &args, stack);
    check(&p, &mut flat, state, &secret).map_err(|e| format!("{}: {e:?}", f.name))
}
