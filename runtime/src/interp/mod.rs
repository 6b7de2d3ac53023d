//! The interpreter backends `interp/x86_64-<set>` (feature `interp`): every x86_64 kernel set of the catalog,
//! run by `asmgen::sem::interp` from its description instead of by the CPU, so the API and its tests run the
//! x86_64 kernels where the CPU lacks their features (or is not x86_64 at all).
//!
//! Function pointers carry no state, so each kernel gets a slot: a static table holds per (set, role) the
//! decoded function and its constants, and slot `N`'s trampoline `t::<N>` (an `extern "C"` function taking six
//! pointer-sized integers: every role passes at most six integer or pointer arguments) interprets slot `N`'s
//! function on its arguments, against the process's memory through raw pointers, with a private stack.

use asmgen::hash::FastMap;
use asmgen::isa::x86_64::X86_64;
use asmgen::sem::interp::Program;
use asmgen::sem::x86_64::Machine;
use asmgen::sem::{Fault, Memory};
use asmgen::{Abi, Function, Label};
use std::sync::OnceLock;

/// One kernel: its set and role, the decoded function, its constants' addresses.
struct Slot {
    set: &'static str,
    listing: &'static str,
    role: &'static str,
    program: Program,
    labels: FastMap<String, u64>,
    /// Owns the constants' bytes (`labels` points into them).
    _consts: Vec<Box<[u8]>>,
}

/// The ABI `extern "C"` means on this target.
const ABI: Abi = if cfg!(windows) { Abi::Win64 } else { Abi::SysV };

fn slot(set: &'static str, listing: &'static str, role: &'static str, f: &Function<X86_64>) -> Slot {
    let program = Program::new(f);
    let consts: Vec<Box<[u8]>> = program.consts.iter().map(|(_, b)| b.clone().into_boxed_slice()).collect();
    let labels = program.consts.iter().zip(&consts).map(|((l, _), b)| (l.name().to_string(), b.as_ptr() as u64));
    Slot { set, listing, role, labels: labels.collect(), program, _consts: consts }
}

/// Every kernel of every x86_64 set, built on first use.
fn slots() -> &'static [Slot] {
    static SLOTS: OnceLock<Vec<Slot>> = OnceLock::new();
    SLOTS.get_or_init(|| {
        let mut slots = Vec::new();
        for set in asmgen_kernels::catalog::X86_64_SETS {
            let Ok(kernels) = (set.build)(ABI) else { continue };
            for k in kernels {
                slots.push(slot(set.name, set.listing, k.role.name(), &k.function));
            }
        }
        assert!(slots.len() <= TRAMPOLINES.len(), "more kernels than interpreter trampolines");
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
    // The stack pointer as after a call from a 16-byte aligned frame; Win64's 5th and 6th arguments go above it.
    let state = s.program.setup(&mut host, &args, (top & !15) - 8);
    let mut m = Machine { state, mem: &mut host };
    if let Err(e) = s.program.run(&mut m, u64::MAX, &mut |_, _, _| {}) {
        panic!("interp/{}: {} stopped: {e:?}", s.set, s.program.name);
    }
}

/// Slot `N`'s entry point.
extern "C" fn t<const N: usize>(a: usize, b: usize, c: usize, d: usize, e: usize, f: usize) {
    interpret(N, [a, b, c, d, e, f]);
}

type Trampoline = extern "C" fn(usize, usize, usize, usize, usize, usize);

/// One entry point per slot.
static TRAMPOLINES: [Trampoline; 96] = [
    t::<0>, t::<1>, t::<2>, t::<3>, t::<4>, t::<5>, t::<6>, t::<7>, t::<8>, t::<9>, t::<10>, t::<11>, t::<12>, t::<13>,
    t::<14>, t::<15>, t::<16>, t::<17>, t::<18>, t::<19>, t::<20>, t::<21>, t::<22>, t::<23>, t::<24>, t::<25>,
    t::<26>, t::<27>, t::<28>, t::<29>, t::<30>, t::<31>, t::<32>, t::<33>, t::<34>, t::<35>, t::<36>, t::<37>,
    t::<38>, t::<39>, t::<40>, t::<41>, t::<42>, t::<43>, t::<44>, t::<45>, t::<46>, t::<47>, t::<48>, t::<49>,
    t::<50>, t::<51>, t::<52>, t::<53>, t::<54>, t::<55>, t::<56>, t::<57>, t::<58>, t::<59>, t::<60>, t::<61>,
    t::<62>, t::<63>, t::<64>, t::<65>, t::<66>, t::<67>, t::<68>, t::<69>, t::<70>, t::<71>, t::<72>, t::<73>,
    t::<74>, t::<75>, t::<76>, t::<77>, t::<78>, t::<79>, t::<80>, t::<81>, t::<82>, t::<83>, t::<84>, t::<85>,
    t::<86>, t::<87>, t::<88>, t::<89>, t::<90>, t::<91>, t::<92>, t::<93>, t::<94>, t::<95>,
];

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
                Some(TRAMPOLINES[n] as *const ())
            };
            make(crate::backend::interp_name(set), true, &entry)
        })
        .collect()
}
