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
            let Ok(kernels) = (set.build)(ABI) else { continue };
            for k in kernels {
                slots.push(slot(set.name, set.listing, k.role.name(), Prog::X86_64(Program::new(&k.function))));
            }
        }
        for set in asmgen_kernels::catalog::AARCH64_SETS {
            let Ok(kernels) = (set.build)(Abi::Aapcs64) else { continue };
            for k in kernels {
                slots.push(slot(set.name, set.listing, k.role.name(), Prog::Aarch64(Program::new(&k.function))));
            }
        }
        for set in asmgen_kernels::catalog::RISCV64_SETS {
            let Ok(kernels) = (set.build)(Abi::Lp64d) else { continue };
            for k in kernels {
                slots.push(slot(set.name, set.listing, k.role.name(), Prog::Riscv64(Program::new(&k.function))));
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

/// Slot `N`'s entry point.
extern "C" fn t<const N: usize>(a: usize, b: usize, c: usize, d: usize, e: usize, f: usize) {
    interpret(N, [a, b, c, d, e, f]);
}

type Trampoline = extern "C" fn(usize, usize, usize, usize, usize, usize);

/// One entry point per slot.
static TRAMPOLINES: [Trampoline; 224] = [
    t::<0>, t::<1>, t::<2>, t::<3>, t::<4>, t::<5>, t::<6>, t::<7>, t::<8>, t::<9>, t::<10>, t::<11>, t::<12>, t::<13>,
    t::<14>, t::<15>, t::<16>, t::<17>, t::<18>, t::<19>, t::<20>, t::<21>, t::<22>, t::<23>, t::<24>, t::<25>,
    t::<26>, t::<27>, t::<28>, t::<29>, t::<30>, t::<31>, t::<32>, t::<33>, t::<34>, t::<35>, t::<36>, t::<37>,
    t::<38>, t::<39>, t::<40>, t::<41>, t::<42>, t::<43>, t::<44>, t::<45>, t::<46>, t::<47>, t::<48>, t::<49>,
    t::<50>, t::<51>, t::<52>, t::<53>, t::<54>, t::<55>, t::<56>, t::<57>, t::<58>, t::<59>, t::<60>, t::<61>,
    t::<62>, t::<63>, t::<64>, t::<65>, t::<66>, t::<67>, t::<68>, t::<69>, t::<70>, t::<71>, t::<72>, t::<73>,
    t::<74>, t::<75>, t::<76>, t::<77>, t::<78>, t::<79>, t::<80>, t::<81>, t::<82>, t::<83>, t::<84>, t::<85>,
    t::<86>, t::<87>, t::<88>, t::<89>, t::<90>, t::<91>, t::<92>, t::<93>, t::<94>, t::<95>, t::<96>, t::<97>,
    t::<98>, t::<99>, t::<100>, t::<101>, t::<102>, t::<103>, t::<104>, t::<105>, t::<106>, t::<107>, t::<108>,
    t::<109>, t::<110>, t::<111>, t::<112>, t::<113>, t::<114>, t::<115>, t::<116>, t::<117>, t::<118>, t::<119>,
    t::<120>, t::<121>, t::<122>, t::<123>, t::<124>, t::<125>, t::<126>, t::<127>, t::<128>, t::<129>, t::<130>,
    t::<131>, t::<132>, t::<133>, t::<134>, t::<135>, t::<136>, t::<137>, t::<138>, t::<139>, t::<140>, t::<141>,
    t::<142>, t::<143>, t::<144>, t::<145>, t::<146>, t::<147>, t::<148>, t::<149>, t::<150>, t::<151>, t::<152>,
    t::<153>, t::<154>, t::<155>, t::<156>, t::<157>, t::<158>, t::<159>, t::<160>, t::<161>, t::<162>, t::<163>,
    t::<164>, t::<165>, t::<166>, t::<167>, t::<168>, t::<169>, t::<170>, t::<171>, t::<172>, t::<173>, t::<174>,
    t::<175>, t::<176>, t::<177>, t::<178>, t::<179>, t::<180>, t::<181>, t::<182>, t::<183>, t::<184>, t::<185>,
    t::<186>, t::<187>, t::<188>, t::<189>, t::<190>, t::<191>, t::<192>, t::<193>, t::<194>, t::<195>, t::<196>,
    t::<197>, t::<198>, t::<199>, t::<200>, t::<201>, t::<202>, t::<203>, t::<204>, t::<205>, t::<206>, t::<207>,
    t::<208>, t::<209>, t::<210>, t::<211>, t::<212>, t::<213>, t::<214>, t::<215>, t::<216>, t::<217>, t::<218>,
    t::<219>, t::<220>, t::<221>, t::<222>, t::<223>,
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
