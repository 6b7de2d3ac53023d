//! A constant-time checker on the x86_64 interpreter: taint flows from the secret inputs through the operand
//! roles of the [`Sem`](super::x86_64::Sem) table (a written operand is secret when a read operand, or a read
//! flag, is; the flags an instruction writes take the same taint; `xor r, r` and `vpxor v, v, v` clear it).
//! Registers carry one taint bit each, memory one per byte. Flagged: a conditional branch on secret flags, a
//! memory access whose address uses a secret register, and an instruction marked variable-time
//! ([`Sem::variable_time`](super::x86_64::Sem::variable_time)) with a secret operand.

use super::interp::{Flat, Program, Stop};
use super::x86_64::{address, sem, Machine, State};
use super::Role;
use crate::hash::FastSet;
use crate::ir::Function;
use crate::ir::Inst;
use crate::isa::x86_64::{Mem, Op, Operand, Size, OPS, X86_64};

/// A constant-time violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The function.
    pub function: String,
    /// The instruction's index in the function's instruction list (prologue included).
    pub index: usize,
    /// The instruction: its table entry and operands.
    pub inst: String,
    /// What is wrong.
    pub what: &'static str,
}

/// Taint: one bit per register and for the flags, and the set of secret memory bytes.
#[derive(Default)]
struct Taint {
    gpr: [bool; 16],
    vec: [bool; 16],
    flags: bool,
    mem: FastSet<u64>,
}

fn width(s: Size) -> u64 {
    match s {
        Size::Dword => 4,
        Size::Qword => 8,
        Size::Xmmword => 16,
        Size::Ymmword => 32,
    }
}

impl Taint {
    fn addr_regs(&self, m: &Mem) -> bool {
        m.base.is_some_and(|b| self.gpr[b.0 as usize]) || m.index.is_some_and(|(i, _)| self.gpr[i.0 as usize])
    }
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
    /// The taint of a read operand.
    fn read(&self, m: &mut Machine<'_>, o: &Operand) -> bool {
        match o {
            Operand::Gpr(n) | Operand::Gpr32(n) => self.gpr[*n as usize],
            Operand::Xmm(n) | Operand::Ymm(n) => self.vec[*n as usize],
            Operand::Mem(s, a) => address(m, a).is_ok_and(|addr| self.bytes(addr, width(*s))),
            _ => false,
        }
    }
    fn write(&mut self, m: &mut Machine<'_>, o: &Operand, t: bool) {
        match o {
            Operand::Gpr(n) | Operand::Gpr32(n) => self.gpr[*n as usize] = t,
            Operand::Xmm(n) | Operand::Ymm(n) => self.vec[*n as usize] = t,
            Operand::Mem(s, a) => {
                if let Ok(addr) = address(m, a) {
                    self.set_bytes(addr, width(*s), t);
                }
            }
            _ => {}
        }
    }

    /// Checks one instruction before it runs, then moves the taint as it will; returns the violations.
    fn step(&mut self, inst: &Inst<X86_64>, m: &mut Machine<'_>) -> Vec<&'static str> {
        let (s, ops) = (sem(inst.op), &inst.operands);
        let mut found = Vec::new();
        let accessed = ops.iter().zip(s.roles).filter(|(_, r)| **r != Role::None);
        if accessed.clone().any(|(o, _)| matches!(o, Operand::Mem(_, a) if self.addr_regs(a))) {
            found.push("memory address depends on a secret");
        }
        let branch = ops.iter().any(|o| matches!(o, Operand::Label(_)));
        if branch && s.flags_read != 0 && self.flags {
            found.push("branch on secret flags");
        }
        let zeroing =
            matches!(inst.op, Op::xor32 | Op::vpxor | Op::vpxor_y) && ops[ops.len() - 2] == ops[ops.len() - 1];
        let mut t = !zeroing
            && (accessed.filter(|(_, r)| matches!(r, Role::R | Role::RW)).any(|(o, _)| self.read(m, o))
                || (s.flags_read != 0 && !branch && self.flags));
        if inst.op == Op::lea {
            t = matches!(&ops[1], Operand::Mem(_, a) if self.addr_regs(a));
        }
        if s.variable_time && t {
            found.push("variable-time instruction on a secret");
        }
        self.stack(inst, m);
        for (o, r) in ops.iter().zip(s.roles) {
            if matches!(r, Role::W | Role::RW) && !matches!(inst.op, Op::pop) {
                self.write(m, o, t);
            }
        }
        if s.flags_written != 0 {
            self.flags = t;
        }
        found
    }

    /// `push`/`pop`: the stack slot's taint.
    fn stack(&mut self, inst: &Inst<X86_64>, m: &mut Machine<'_>) {
        let sp = m.state.gpr[4];
        match inst.op {
            Op::push => {
                let t = self.read(m, &inst.operands[0]);
                self.set_bytes(sp.wrapping_sub(8), 8, t);
            }
            Op::pop => {
                let t = self.bytes(sp, 8);
                self.write(m, &inst.operands[0], t);
            }
            _ => {}
        }
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

/// Which pointer parameters of the kernel roles point at secret bytes, by name, and the bytes a check maps for
/// each: keys, round keys, key tables, hash and chaining state, tweak, MAC, plaintext and its output. The counter
/// (`ctr`) is public: a nonce, sent in clear (the CTR kernels branch on its carry; see [`check_function`]).
pub const PARAMS: &[(&str, Secrecy, usize)] = &[
    ("rk", Secrecy::Secret, 128),
    ("rk_enc", Secrecy::Secret, 128),
    ("rk_dec", Secrecy::Secret, 128),
    ("rk_tweak", Secrecy::Secret, 128),
    ("key", Secrecy::Secret, 16),
    ("h", Secrecy::Secret, 16),
    ("table", Secrecy::Secret, 256),
    ("htable", Secrecy::Secret, 256),
    ("state", Secrecy::Secret, 64),
    ("iv", Secrecy::Secret, 64),
    ("tweak", Secrecy::Secret, 64),
    ("mac", Secrecy::Secret, 64),
    ("ctr", Secrecy::PublicBuffer, 64),
    ("src", Secrecy::Secret, 0),
    ("dst", Secrecy::Secret, 0),
    ("data", Secrecy::Secret, 0),
    ("nblocks", Secrecy::Length, 0),
    ("len", Secrecy::Length, 0),
];

/// What a parameter is to the checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Secrecy {
    /// A pointer to secret bytes (size 0 in [`PARAMS`]: a data buffer of the block count).
    Secret,
    /// A pointer to public bytes.
    PublicBuffer,
    /// A public length (`nblocks`: blocks; `len`: bytes, `16 n + n % 7`).
    Length,
}

/// Interprets `f`, whose parameters are named `params` (see [`PARAMS`]), over `n` blocks from made-up buffers,
/// with the secret ones tainted (and the counter too when `secret_ctr`); returns the violations.
pub fn check_function(
    f: &Function<X86_64>,
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
    let stack = flat.map(&[0; 1 << 16]) + (1 << 16) - 8;
    let p = Program::new(f);
    flat.map_consts(&p);
    let state = p.setup(&mut flat, &args, stack);
    check(&p, &mut flat, state, &secret).map_err(|e| format!("{}: {e:?}", f.name))
}
