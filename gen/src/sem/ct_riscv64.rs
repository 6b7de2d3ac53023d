//! The constant-time checker ([`super::ct`]) on the riscv64 interpreter: taint flows from the secret inputs
//! through the operand roles of the [`Sem`](super::riscv64::Sem) table (a written operand is secret when a read
//! one is; `xor d, a, a` and `vxor.vv d, a, a` clear it). Registers carry one taint bit each (a vector register
//! group one per register), memory one per byte. Flagged: a branch on a secret register, a memory access whose
//! address register is secret, a vector length set from a secret, and an instruction marked variable-time with
//! a secret operand. The secret parameters are [`ct::PARAMS`](super::ct::PARAMS)'s.

use super::ct::{Finding, Secrecy, PARAMS};
use super::interp::{Flat, Stop};
use super::interp_riscv64::Program;
use super::riscv64::{address, sem, Machine, State};
use super::Role;
use crate::hash::FastSet;
use crate::ir::{Function, Inst};
use crate::isa::riscv64::{Op, Operand, Riscv64, OPS};

/// Taint: one bit per register, and the set of secret memory bytes.
#[derive(Default)]
struct Taint {
    x: [bool; 32],
    v: [bool; 32],
    mem: FastSet<u64>,
}

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

impl Taint {
    fn bytes(&self, addr: u64, len: u64) -> bool {
        (addr..addr + len).any(|a| self.mem.contains(&a))
    }
    fn set_bytes(&mut self, addr: u64, len: u64, t: bool) {
        for a in addr..addr + len {
            if t {
                self.mem.insert(a);
            } else {
                self.mem.remove(&a);
            }
        }
    }
    /// Whether an operand's address register is secret.
    fn addr_secret(&self, o: &Operand) -> bool {
        match o {
            Operand::Mem(a) => self.x[a.base().0 as usize],
            Operand::Base(b) => self.x[*b as usize],
            _ => false,
        }
    }
    fn read(&self, m: &Machine<'_>, op: Op, o: &Operand) -> bool {
        match o {
            Operand::X(n) => self.x[*n as usize],
            Operand::V(n) => group(m, *n, op).any(|r| self.v[r]),
            Operand::Mem(_) | Operand::Base(_) => address(m, o).is_ok_and(|addr| self.bytes(addr, access_len(op, m))),
            _ => false,
        }
    }
    fn write(&mut self, m: &Machine<'_>, op: Op, o: &Operand, t: bool) {
        match o {
            Operand::X(n) => self.x[*n as usize] = t && *n != 0,
            Operand::V(n) => group(m, *n, op).for_each(|r| self.v[r] = t),
            Operand::Mem(_) | Operand::Base(_) => {
                if let Ok(addr) = address(m, o) {
                    self.set_bytes(addr, access_len(op, m), t);
                }
            }
            _ => {}
        }
    }

    /// Checks one instruction before it runs, then moves the taint as it will; returns the violations.
    fn step(&mut self, inst: &Inst<Riscv64>, m: &Machine<'_>) -> Vec<&'static str> {
        let (s, ops, op) = (sem(inst.op), &inst.operands, inst.op);
        let mut found = Vec::new();
        if ops.iter().zip(s.roles).any(|(o, r)| *r != Role::None && self.addr_secret(o)) {
            found.push("memory address depends on a secret");
        }
        let zeroing = matches!(op, Op::xor | Op::vxor_vv) && ops[1] == ops[2];
        let t =
            !zeroing && ops.iter().zip(s.roles).any(|(o, r)| matches!(r, Role::R | Role::RW) && self.read(m, op, o));
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
                self.write(m, op, o, t);
            }
        }
        found
    }
}

/// Runs `p` from `state` on `mem` with the bytes `secret` (address, length) tainted; returns the violations,
/// one per instruction and kind.
pub fn check(p: &Program, mem: &mut Flat, state: State, secret: &[(u64, u64)]) -> Result<Vec<Finding>, Stop> {
    let mut taint = Taint::default();
    for &(addr, len) in secret {
        taint.set_bytes(addr, len, true);
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

/// [`ct::check_function`](super::ct::check_function) for riscv64 at `vlen` bits per vector register: interprets
/// `f` (parameters named `params`) over `n` blocks from made-up buffers with the secret ones tainted (the
/// counter too when `secret_ctr`); returns the violations.
pub fn check_function(
    f: &Function<Riscv64>,
    params: &[&str],
    n: usize,
    secret_ctr: bool,
    vlen: usize,
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
    let stack = flat.map(&[0; 1 << 16]) + (1 << 16) - 64;
    let p = Program::new(f);
    for (l, bytes) in &p.consts {
        let addr = flat.map(bytes);
        flat.labels.insert(l.name().to_string(), addr);
    }
    let state = p.setup(&mut flat, &args, stack, vlen);
    check(&p, &mut flat, state, &secret).map_err(|e| format!("{}: {e:?}", f.name))
}
