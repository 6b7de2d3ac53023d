//! The constant-time checker, one for every ISA, on the interpreter ([`super::interp`]): taint flows from the
//! secret inputs through the operand roles of the ISA's semantics table (a written operand is secret when a read
//! operand, the loaded bytes or read flags are; zeroing idioms clear it). Registers carry one taint bit each,
//! memory one per byte ([`Taint`]). Flagged: a conditional branch on a secret, a memory access whose address
//! uses a secret register, and an instruction marked variable-time with a secret operand; each ISA's side
//! ([`Tainting::step`]) adds its own (riscv64: a vector length set from a secret). The sides:
//! [`super::ct_x86_64`], [`super::ct_aarch64`], [`super::ct_riscv64`].

use super::interp::{Flat, Interp, Program, Stop};
use crate::hash::FastSet;
use crate::ir::{Function, Inst};

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
pub struct Taint {
    /// General-purpose registers by number (aarch64: `sp` at 31).
    pub gpr: [bool; 32],
    /// Vector registers by number.
    pub vec: [bool; 32],
    /// The condition flags (x86_64, aarch64).
    pub flags: bool,
    /// The secret memory bytes.
    pub mem: FastSet<u64>,
}

impl Taint {
    /// Whether any of `len` bytes at `addr` is secret.
    pub fn bytes(&self, addr: u64, len: u64) -> bool {
        (addr..addr + len).any(|a| self.mem.contains(&a))
    }
    /// Marks `len` bytes at `addr` secret (`t`) or public.
    pub fn set_bytes(&mut self, addr: u64, len: u64, t: bool) {
        for a in addr..addr + len {
            if t {
                self.mem.insert(a);
            } else {
                self.mem.remove(&a);
            }
        }
    }
}

/// An ISA the checker runs on: how taint moves through one instruction.
pub trait Tainting: Interp {
    /// Checks `inst` before it runs on `m`, then moves the taint as it will; returns the violations.
    fn step(taint: &mut Taint, inst: &Inst<Self>, m: &mut Self::Machine<'_>) -> Vec<&'static str>;
}

/// Runs `p` from `state` on `mem` with the bytes `secret` (address, length) tainted; returns the violations,
/// one per instruction and kind.
pub fn check<I: Tainting>(
    p: &Program<I>,
    mem: &mut Flat,
    state: I::State,
    secret: &[(u64, u64)],
) -> Result<Vec<Finding>, Stop> {
    let mut taint = Taint::default();
    for &(addr, len) in secret {
        taint.set_bytes(addr, len, true);
    }
    let mut found: Vec<Finding> = Vec::new();
    let mut m = I::machine(state, mem);
    p.run(&mut m, 50_000_000, &mut |index, inst, m| {
        for what in I::step(&mut taint, inst, m) {
            if !found.iter().any(|f| f.index == index && f.what == what) {
                let inst = format!("{} {:?}", I::info(inst.op).name, inst.operands);
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
    ("table", Secrecy::Secret, 2048),
    ("htable", Secrecy::Secret, 2048),
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

/// Interprets `f` on a machine of `model` (riscv64: VLEN), its parameters named `params` (see [`PARAMS`]), over
/// `n` blocks from made-up buffers, with the secret ones tainted (and the counter too when `secret_ctr`); returns
/// the violations.
pub fn check_function<I: Tainting>(
    f: &Function<I>,
    params: &[&str],
    n: usize,
    secret_ctr: bool,
    model: I::Model,
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
    let stack = flat.map(&[0; 1 << 16]) + (1 << 16) - I::ENTRY_MISALIGN;
    let p = Program::new(f);
    flat.map_consts(&p);
    let state = p.setup(&mut flat, &args, stack, model);
    check(&p, &mut flat, state, &secret).map_err(|e| format!("{}: {e:?}", f.name))
}
