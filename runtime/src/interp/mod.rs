//! The interpreter backends `interp/x86_64-<set>`, `interp/aarch64-<set>` and `interp/riscv64-<set>` (feature
//! `interp`): every kernel set of the catalog, run by `asmgen::sem::interp` (AAPCS64 on aarch64, LP64D at VLEN
//! 128 on riscv64) from its description instead of by the CPU, so the API and its tests
//! run the kernels where the CPU lacks their features (or is another architecture).
//!
//! Function pointers carry no state, so each kernel gets a slot: a static table holds per (set, role) the
//! decoded function and its constants, and slot `N`'s trampoline `t::<N>` (an `extern "C"` function taking six
//! pointer-sized integers: every role passes at most six integer or pointer arguments) interprets slot `N`'s
//! function on its arguments, against the process's memory through raw pointers, with a private stack.

use asmgen::hash::FastMap;
use asmgen::isa::aarch64::Aarch64;
use asmgen::isa::riscv64::Riscv64;
use asmgen::isa::x86_64::X86_64;
use asmgen::sem::interp::Program;
use asmgen::sem::{Fault, Memory};
use asmgen::{Abi, Label};
use std::sync::OnceLock;

/// One kernel: its set and role, the decoded function, its constants' addresses.
struct Slot {
    set: &'static str,
    listing: &'static str,
    role: &'static str,
    program: Prog,
    labels: FastMap<String, u64>,
    /// Owns the constants' bytes (`labels` points into them).
    _consts: Vec<Box<[u8]>>,
}

/// A decoded function of one of the interpreted ISAs.
enum Prog {
    X86_64(Program<X86_64>),
    Aarch64(Program<Aarch64>),
    Riscv64(Program<Riscv64>),
}

impl Prog {
    fn consts(&self) -> &[(Label, Vec<u8>)] {
        match self {
            Prog::X86_64(p) => &p.consts,
            Prog::Aarch64(p) => &p.consts,
            Prog::Riscv64(p) => &p.consts,
        }
    }
}

/// The VLEN the riscv64 kernels are interpreted at.
const VLEN: usize = 128;

/// The ABI `extern "C"` means on this target.
const ABI: Abi = if cfg!(windows) { Abi::Win64 } else { Abi::SysV };

fn slot(set: &'static str, listing: &'static str, role: &'static str, program: Prog) -> Slot {
    let consts: Vec<Box<[u8]>> = program.consts().iter().map(|(_, b)| b.clone().into_boxed_slice()).collect();
    let labels = program.consts().iter().zip(&consts).map(|((l, _), b)| (l.name().to_string(), b.as_ptr() as u64));
    Slot { set, listing, role, labels: labels.collect(), program, _consts: consts }
}

/// Every kernel of every x86_64, aarch64 (AAPCS64) and riscv64 (LP64D) set, built on first use.
fn slots() -> &'static [Slot] {
    static SLOTS: OnceLock<Vec<Slot>> = OnceLock::new();
    SLOTS.get_or_init(|| {
        let mut slots = Vec::new();
        for set in asmgen_kernels::catalog::X86_64_SETS {
            let Ok(kernels) = set.build_all(ABI) else { continue };
            for k in kernels {
                slots.push(slot(set.name, set.listing, k.role.name(), Prog::X86_64(Program::new(&k.function))));
            }
        }
        for set in asmgen_kernels::catalog::AARCH64_SETS {
            let Ok(kernels) = set.build_all(Abi::Aapcs64) else { continue };
            for k in kernels {
                slots.push(slot(set.name, set.listing, k.role.name(), Prog::Aarch64(Program::new(&k.function))));
            }
        }
        for set in asmgen_kernels::catalog::RISCV64_SETS {
            let Ok(kernels) = set.build_all(Abi::Lp64d) else { continue };
            for k in kernels {
                slots.push(slot(set.name, set.listing, k.role.name(), Prog::Riscv64(Program::new(&k.function))));
            }
        }
        assert!(slots.len() <= 16 * TRAMPOLINES.len(), "more kernels than interpreter trampolines: add a row");
        slots
    })
}

/// The process's memory through raw pointers, and a slot's constants.
struct Host<'a> {
    labels: &'a FastMap<String, u64>,
}

impl Memory for Host<'_> {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        // SAFETY: the kernel's contract: it reads only the caller's buffers, its stack and its constants.
        unsafe { std::ptr::copy_nonoverlapping(addr as usize as *const u8, out.as_mut_ptr(), out.len()) };
        Ok(())
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        // SAFETY: as for `read`: the caller's output buffers and the private stack.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), addr as usize as *mut u8, data.len()) };
        Ok(())
    }
    fn label(&self, l: &Label) -> Option<u64> {
        self.labels.get(l.name()).copied()
    }
}

/// Interprets slot `n` on `args`.
fn interpret(n: usize, args: [usize; 6]) {
    let s = &slots()[n];
    let mut stack = vec![0u64; 8192];
    let top = stack.as_mut_ptr() as u64 + 8 * 8192 - 256;
    let args: Vec<u64> = args.iter().map(|&a| a as u64).collect();
    let mut host = Host { labels: &s.labels };
    // x86_64: the stack pointer as after a call from a 16-byte aligned frame (Win64's 5th and 6th arguments go
    // above it).
    let (name, stop) = match &s.program {
        Prog::X86_64(p) => (&p.name, p.call(&mut host, &args, (top & !15) - 8, (), u64::MAX).err()),
        Prog::Aarch64(p) => (&p.name, p.call(&mut host, &args, top & !15, (), u64::MAX).err()),
        Prog::Riscv64(p) => (&p.name, p.call(&mut host, &args, top & !15, VLEN, u64::MAX).err()),
    };
    if let Some(e) = stop {
        panic!("interp/{}: {name} stopped: {e:?}", s.set);
    }
}

/// Slot `16 * R + C`'s entry point.
extern "C" fn t<const R: usize, const C: usize>(a: usize, b: usize, c: usize, d: usize, e: usize, f: usize) {
    interpret(16 * R + C, [a, b, c, d, e, f]);
}

type Trampoline = extern "C" fn(usize, usize, usize, usize, usize, usize);

/// Row `R` of [`TRAMPOLINES`]: slots `16 * R` to `16 * R + 15`.
macro_rules! row {
    ($r:literal) => {
        [
            t::<$r, 0>,
            t::<$r, 1>,
            t::<$r, 2>,
            t::<$r, 3>,
            t::<$r, 4>,
            t::<$r, 5>,
            t::<$r, 6>,
            t::<$r, 7>,
            t::<$r, 8>,
            t::<$r, 9>,
            t::<$r, 10>,
            t::<$r, 11>,
            t::<$r, 12>,
            t::<$r, 13>,
            t::<$r, 14>,
            t::<$r, 15>,
        ]
    };
}

/// The rows of [`TRAMPOLINES`], by number.
macro_rules! rows {
    ($($r:literal)*) => { [$(row!($r)),*] };
}

/// One entry point per slot, sixteen to a row (slot `n` in row `n / 16`): room for more kernels is one row
/// number more (the assert in `slots` says when).
static TRAMPOLINES: [[Trampoline; 16]; 16] = rows!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);

/// The interpreter's sets of `listing` made into backends by `make` (named `interp/<set>`, available wherever
/// this builds, kernels by role).
pub(crate) fn backends<K>(listing: &str, make: crate::backend::MakeFn<'_, K>) -> Vec<K> {
    let all = slots();
    let mut sets: Vec<&'static str> = all.iter().filter(|s| s.listing == listing).map(|s| s.set).collect();
    sets.dedup();
    sets.into_iter()
        .filter_map(|set| {
            let entry = |role: &str| {
                let n = all.iter().position(|s| s.set == set && s.role == role)?;
                Some(TRAMPOLINES[n / 16][n % 16] as *const ())
            };
            make(crate::backend::interp_name(set), true, &entry)
        })
        .collect()
}
