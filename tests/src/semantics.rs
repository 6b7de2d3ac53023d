//! The machinery the semantics-against-the-CPU tests (`tests/tests/semantics_<isa>.rs`) share: the comparison
//! loop ([`compare`]: every entry the CPU executes, operand draws, random states, one mismatch line per failing
//! entry), the executable mapping of a harness ([`Exec`]), the memory buffer the harness and the model both use
//! ([`Scratch`], [`Buffer`]) and the description of where model and CPU differ ([`Diff`]). Each ISA's test keeps
//! only what is its own: operand generators, the harness code, the state layout ([`Isa`]).

use crate::Rng;
use asmgen::sem::{Fault, Memory};
use std::fmt::{Debug, Display, Write};

/// One ISA's side of the comparison of its semantics with the CPU.
pub trait Isa {
    /// What identifies a table entry (its `Op`).
    type Entry: Copy;
    /// One operand draw: what a mismatch line shows after the entry's name (the operands, and for riscv64 the
    /// vector type).
    type Draw: Debug;
    /// What the summary line says first about the CPU (riscv64: `VLEN 128: `); nothing by default.
    fn about(&self) -> String {
        String::new()
    }
    /// The entries this CPU executes and the test checks, with their names.
    fn entries(&self) -> Vec<(&'static str, Self::Entry)>;
    /// Random operands for `entry` and the harness code that runs it on a state; `None` when the draw does not
    /// encode (it is drawn again).
    fn draw(&self, rng: &mut Rng, entry: Self::Entry) -> Option<(Self::Draw, Vec<u8>)>;
    /// The length of the memory buffer memory operands point into ([`Scratch`]).
    const SCRATCH: usize;
    /// Draws one random state (memory in `scratch`), runs the model and the harness `exec` on it, and says where
    /// they differ.
    fn state(&self, rng: &mut Rng, entry: Self::Entry, draw: &Self::Draw, exec: &Exec, scratch: &mut Scratch) -> Diff;
}

/// Runs every entry of `isa` on `draws` operand draws of `states` random states each and returns the
/// mismatches: per failing entry one line, naming the entry, its operands, where the first differing state
/// differs, how many states differed, and the seed (`ASMGEN_SEED` replays it). Prints the entries checked.
pub fn compare<I: Isa>(isa: &I, draws: usize, states: usize) -> Vec<String> {
    let seed = crate::kernel_calls::seed();
    let mut rng = Rng::new(seed);
    let mut scratch = Scratch::new(I::SCRATCH);
    let (entries, mut compared, mut bad) = (isa.entries(), 0, Vec::new());
    for &(name, entry) in &entries {
        let (mut first, mut differing, mut drawn) = (None, 0, 0);
        while drawn < draws {
            let Some((draw, code)) = isa.draw(&mut rng, entry) else { continue };
            drawn += 1;
            let exec = Exec::new(&code);
            for _ in 0..states {
                let diff = isa.state(&mut rng, entry, &draw, &exec, &mut scratch);
                compared += 1;
                if !diff.is_empty() {
                    differing += 1;
                    first.get_or_insert_with(|| format!("{name} {draw:?}: {diff}"));
                }
            }
        }
        if let Some(line) = first {
            bad.push(format!("{line} ({differing} of {} states differ; seed {seed})", draws * states));
        }
    }
    assert!(compared > 0, "no entry executes on this CPU");
    let names: Vec<&str> = entries.iter().map(|e| e.0).collect();
    eprintln!("{}{} entries, {compared} states compared (seed {seed}): {}", isa.about(), names.len(), names.join(" "));
    bad
}

/// Panics, listing the mismatches, unless the model and the CPU agree on every entry ([`compare`]).
pub fn assert_agree<I: Isa>(isa: &I, draws: usize, states: usize) {
    let bad = compare(isa, draws, states);
    assert!(bad.is_empty(), "the model differs from the CPU:\n{}", bad.join("\n"));
}

/// Panics unless [`compare`] reports a mismatch for each entry named in `doctored` (the negative tests: a model
/// with a bit flipped in those entries must be caught).
pub fn assert_caught<I: Isa>(isa: &I, draws: usize, states: usize, doctored: &[&str]) {
    let bad = compare(isa, draws, states);
    for name in doctored {
        assert!(bad.iter().any(|b| b.split_once(' ').is_some_and(|(n, _)| n == *name)), "{name} not caught: {bad:?}");
    }
}

/// Where the model's state and the CPU's differ, part by part, with a note on the state (`vl 3`).
#[derive(Default)]
pub struct Diff {
    note: String,
    parts: Vec<String>,
}

impl Diff {
    /// The most differing parts a mismatch line shows.
    const SHOWN: usize = 4;

    /// No difference yet; `note` describes the state.
    pub fn new(note: impl Into<String>) -> Diff {
        Diff { note: note.into(), parts: Vec::new() }
    }
    /// Whether model and CPU agreed.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
    /// Compares one part (`flags`, `memory`).
    pub fn value<T: PartialEq + Debug>(&mut self, name: impl Display, model: T, cpu: T) {
        if model != cpu {
            self.parts.push(format!("{name}: model {model:02x?} cpu {cpu:02x?}"));
        }
    }
    /// Compares the registers `which` of a register file (`x3`, `v17`; `prefix` names them).
    pub fn regs<T: PartialEq + Debug>(
        &mut self,
        prefix: &str,
        model: &[T],
        cpu: &[T],
        which: impl IntoIterator<Item = usize>,
    ) {
        // Whole files first: one comparison, where register by register is slow in a debug build under qemu.
        if model == cpu {
            return;
        }
        for i in which {
            if model[i] != cpu[i] {
                self.value(format_args!("{prefix}{i}"), &model[i], &cpu[i]);
            }
        }
    }
    /// Compares two byte strings (memory), showing the range from the first to the last differing byte.
    pub fn bytes(&mut self, name: &str, model: &[u8], cpu: &[u8]) {
        if model == cpu {
            return;
        }
        let differ = |i: &usize| model[*i] != cpu[*i];
        let Some(lo) = (0..model.len()).find(differ) else { return };
        let hi = (0..model.len()).rev().find(differ).unwrap_or(lo) + 1;
        self.value(format_args!("{name}[{lo}..{hi}]"), &model[lo..hi], &cpu[lo..hi]);
    }
}

impl Display for Diff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.note.is_empty() {
            write!(f, "({}) ", self.note)?;
        }
        let mut shown = self.parts.iter().take(Self::SHOWN).map(String::as_str).collect::<Vec<_>>().join(", ");
        if self.parts.len() > Self::SHOWN {
            write!(shown, " and {} more", self.parts.len() - Self::SHOWN)?;
        }
        f.write_str(&shown)
    }
}

/// The memory buffer memory operands point into: the CPU's copy at a fixed, 64-byte aligned address, refilled at
/// random for each state, and the model's copy of it.
pub struct Scratch {
    chunks: Vec<Chunk>,
}

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Chunk([u8; 64]);

impl Scratch {
    fn new(len: usize) -> Scratch {
        Scratch { chunks: vec![Chunk([0; 64]); len.div_ceil(64)] }
    }
    /// The address of the CPU's buffer.
    pub fn addr(&self) -> u64 {
        self.chunks.as_ptr() as u64
    }
    /// The CPU's buffer.
    pub fn cpu(&mut self) -> &mut [u8] {
        // SAFETY: `Chunk` is 64 plain bytes without padding (repr(C), align 64).
        unsafe { std::slice::from_raw_parts_mut(self.chunks.as_mut_ptr() as *mut u8, self.chunks.len() * 64) }
    }
    /// Fills the CPU's buffer at random and returns the model's copy of it.
    pub fn fill(&mut self, rng: &mut Rng) -> Buffer {
        let base = self.addr();
        let cpu = self.cpu();
        rng.fill(cpu);
        Buffer { base, bytes: cpu.to_vec() }
    }
    /// Adds to `diff` where the model's buffer differs from the CPU's.
    pub fn compare(&mut self, model: &Buffer, diff: &mut Diff) {
        diff.bytes("memory", &model.bytes, self.cpu());
    }
}

/// The model's memory: a copy of the buffer at the address the CPU sees it at.
pub struct Buffer {
    /// The address of byte 0.
    pub base: u64,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl Memory for Buffer {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let off = addr.wrapping_sub(self.base) as usize;
        let src = self.bytes.get(off..off + out.len()).ok_or(Fault { addr, len: out.len(), what: "outside" })?;
        out.copy_from_slice(src);
        Ok(())
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let off = addr.wrapping_sub(self.base) as usize;
        let dst = self.bytes.get_mut(off..off + data.len()).ok_or(Fault { addr, len: data.len(), what: "outside" })?;
        dst.copy_from_slice(data);
        Ok(())
    }
}

/// Fills each word of `words` at random.
pub fn random_words(rng: &mut Rng, words: &mut [u64]) {
    words.iter_mut().for_each(|w| *w = rng.next_u64());
}

/// Bytes of the pool [`random_regs`] copies from.
const POOL: usize = 1 << 16;

/// Fills the register file `regs` (byte arrays) at random: a copy from a random offset of a pool of random bytes
/// drawn once per thread (from the seed: `ASMGEN_SEED` replays it), as one word per byte from [`Rng::fill`] is
/// slow for 32 zmm registers per state in a debug build. Files over half the pool are drawn byte by byte.
pub fn random_regs<const N: usize>(rng: &mut Rng, regs: &mut [[u8; N]]) {
    thread_local! {
        static BYTES: Vec<u8> = {
            let mut v = vec![0; POOL];
            Rng::new(crate::kernel_calls::seed() ^ 0x9e37_79b9_7f4a_7c15).fill(&mut v);
            v
        };
    }
    let file = regs.as_flattened_mut();
    if file.len() > POOL / 2 {
        return rng.fill(file);
    }
    let at = rng.below(POOL - file.len());
    BYTES.with(|b| file.copy_from_slice(&b[at..at + file.len()]));
}

/// An executable copy of harness code (W^X: written, then made read-execute, the instruction cache synchronised).
pub struct Exec(*mut libc::c_void, usize);

#[cfg(target_arch = "aarch64")]
extern "C" {
    fn __clear_cache(start: *mut libc::c_char, end: *mut libc::c_char);
}

impl Exec {
    /// Maps `code`.
    pub fn new(code: &[u8]) -> Exec {
        // 64 KiB: a multiple of every page size the targets use.
        let len = code.len().next_multiple_of(65536);
        // SAFETY: a fresh private mapping, written within its length, then made executable; the instruction cache
        // is synchronised over the written range (aarch64: __clear_cache; riscv64: fence.i, besides the one the
        // kernel does on mprotect; x86_64 needs nothing).
        unsafe {
            let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
            let p = libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0);
            assert_ne!(p, libc::MAP_FAILED);
            std::ptr::copy_nonoverlapping(code.as_ptr(), p as *mut u8, code.len());
            assert_eq!(libc::mprotect(p, len, libc::PROT_READ | libc::PROT_EXEC), 0);
            #[cfg(target_arch = "aarch64")]
            __clear_cache(p as *mut libc::c_char, (p as *mut libc::c_char).add(code.len()));
            #[cfg(target_arch = "riscv64")]
            std::arch::asm!("fence.i");
            Exec(p, len)
        }
    }
    /// The address of the code's byte `offset` (a function's entry, to transmute to its type).
    pub fn at(&self, offset: usize) -> *const u8 {
        assert!(offset < self.1, "offset {offset} outside the mapping");
        // SAFETY: within the mapping (checked above).
        unsafe { (self.0 as *const u8).add(offset) }
    }
    /// Calls the code as `extern "C" fn(*mut T)` on `state`.
    ///
    /// # Safety
    /// The code must be such a function: it keeps the callee-saved registers and the stack pointer, returns,
    /// and touches no memory but `state` and what `state`'s registers point to that is alive.
    pub unsafe fn run<T>(&self, state: &mut T) {
        // SAFETY: the caller's promise.
        let f: extern "C" fn(*mut T) = unsafe { std::mem::transmute(self.0) };
        f(state);
    }
}

impl Drop for Exec {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made.
        unsafe { libc::munmap(self.0, self.1) };
    }
}
