//! Running a kernel through the interpreter (`asmgen::sem::interp`) on the process's own buffers, for the
//! tests that compare it with a native kernel (tests/tests/interp_*.rs): [`interpret`], and [`call_native`] for
//! the native side.

use asmgen::sem::interp::{Interp, Program};
use asmgen::sem::{Fault, Memory};
use asmgen::{Function, Label};
use std::collections::HashMap;

/// The process's own memory, read and written through raw pointers, and the function's constants.
struct Host {
    labels: HashMap<String, u64>,
}

impl Memory for Host {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        // SAFETY: `interpret`'s contract: the addresses are the caller's buffers, the stack and the constants.
        unsafe { std::ptr::copy_nonoverlapping(addr as usize as *const u8, out.as_mut_ptr(), out.len()) };
        Ok(())
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        // SAFETY: as for `read`.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), addr as usize as *mut u8, data.len()) };
        Ok(())
    }
    fn label(&self, l: &Label) -> Option<u64> {
        self.labels.get(l.name()).copied()
    }
}

/// Interprets `f` on `args` on a machine of `model` (riscv64: VLEN) with a private 64 KiB stack, its stack
/// pointer on entry as a call leaves it; panics where the run stops early.
///
/// # Safety
/// `args` must be what `f`'s role takes: pointers to buffers as large as the role reads and writes for the
/// counts in `args`, which the kernel then accesses as its native twin would.
pub unsafe fn interpret<I: Interp>(f: &Function<I>, args: &[u64], model: I::Model) {
    let p = Program::new(f);
    let labels = p.consts.iter().map(|(l, b)| (l.name().to_string(), b.as_ptr() as u64)).collect();
    let mut stack = vec![0u8; 1 << 16];
    let top = ((stack.as_mut_ptr() as u64 + (1 << 16)) & !15) - I::ENTRY_MISALIGN;
    p.call(&mut Host { labels }, args, top, model, 1 << 32).unwrap_or_else(|e| panic!("{}: {e:?}", f.name));
}

/// Calls the native kernel at `entry` on `args` (at most six integer or pointer arguments).
///
/// # Safety
/// `entry` must be an `extern "C"` kernel of this target that takes at most six such arguments (System V or
/// AAPCS64: in registers, so passing six is harmless), and `args` what its role takes, as for [`interpret`].
pub unsafe fn call_native(entry: *const (), args: &[u64]) {
    let mut six = [0u64; 6];
    six[..args.len()].copy_from_slice(args);
    // SAFETY: the caller's contract.
    let f: extern "C" fn(u64, u64, u64, u64, u64, u64) = unsafe { std::mem::transmute(entry) };
    f(six[0], six[1], six[2], six[3], six[4], six[5]);
}
