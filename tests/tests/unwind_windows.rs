//! Unwinding from every instruction, Windows x64 (under wine: `cargo xtask cross windows`): every listing
//! kernel of every set this CPU runs is single-stepped and, at each instruction, one frame is unwound with the
//! platform's unwinder, which must give back the caller's state.
//!
//! The trampoline written here fills the Win64 callee-saved registers (rbx, rbp, rdi, rsi, r12-r15,
//! xmm6-xmm15) with random values, passes the kernel its real arguments (the shared harness of
//! `asmgen_tests::kernel_calls`: valid buffers per role), sets the trap flag (`pushfq; or [rsp], 0x100;
//! popfq`) just before the `call`, and records the stack pointer at the call and the return address. A
//! vectored exception handler gets `EXCEPTION_SINGLE_STEP` before each instruction (wine maps the SIGTRAP of
//! the trap flag to it); while Rip is inside the kernel it copies the CONTEXT, unwinds it with
//! `RtlLookupFunctionEntry` + `RtlVirtualUnwind`, and checks that the unwound Rsp is the stack pointer before
//! the call, Rip the return address, and every callee-saved register the value the trampoline set. It
//! re-arms the trap flag and continues; when Rip reaches the return address it clears it.
//!
//! Block counts: every count from 0 to `MAX_BLOCKS` (each tail length reaches its own slots of the wide
//! kernels' tails), 33 (the wide XTS and GCM kernels repeat their 16-block loops) and 49 (the zmm kernels run
//! their 48-block loop and then the ymm one), 113 for the hash updates (the ymm set's 64-block loop, then its
//! batches of 32 and 16 and a tail), except for the serial
//! roles (CBC/CFB encryption, CBC-MAC, CCM: one block at a time), stepped with 0, 1 and 2 blocks: each block
//! costs them thousands of exceptions and no new instruction, and the XTS unit kernels, stepped with 0, 1, 2,
//! 9, 17 and 33. The test requires every prologue instruction
//! (the unwind entry's SizeOfProlog), every epilogue (each `ret` and the reloads, `add rsp` and `pop`s before
//! it) and every backward branch stepped at least once, and prints per function the steps taken and how many
//! of its instructions they reached (the rest: the last tail slot, which a full group takes through the loop
//! instead, the counter-carry path of CTR, and the like).
//! About 30 s under wine; the run with `ASMGEN_BACKEND=jit` skips it (same listings).
//! `a_wrong_unwind_entry_is_caught` steps hand-written functions whose unwind entries are wrong (an
//! allocation declared too small, a push not declared) and requires them reported, and a correct one not.
//!
//! The JIT registers each image's unwind data (`RtlAddFunctionTable`), so its kernels are stepped the same
//! way in the run with `ASMGEN_BACKEND=jit`.
#![cfg(all(windows, target_arch = "x86_64"))]

use asmgen_tests::kernel_calls::{listing_kernels, process_jit_kernels, seed, sweep_counts, Kernel, MAX_BLOCKS};
use asmgen_tests::Rng;
use std::collections::BTreeSet;
use std::ffi::c_void;
use std::mem::offset_of;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

/// The x64 `CONTEXT` (only what is read here is named).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Context {
    home: [u64; 6],
    flags: u32,
    mxcsr: u32,
    segs: [u16; 6],
    eflags: u32,
    dr: [u64; 6],
    /// rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15.
    gpr: [u64; 16],
    rip: u64,
    /// `XMM_SAVE_AREA32`: xmm0-xmm15 from byte 160.
    flt: [u8; 512],
    rest: [u8; 0x1d0],
}

const _: () = {
    assert!(offset_of!(Context, eflags) == 0x44);
    assert!(offset_of!(Context, gpr) == 0x78);
    assert!(offset_of!(Context, rip) == 0xf8);
    assert!(offset_of!(Context, flt) == 0x100);
    assert!(std::mem::size_of::<Context>() == 0x4d0);
};

/// `EXCEPTION_POINTERS`; of the record only the code is read.
#[repr(C)]
struct ExceptionPointers {
    record: *const u32,
    context: *mut Context,
}

/// `RUNTIME_FUNCTION`.
#[repr(C)]
struct RuntimeFunction {
    begin: u32,
    end: u32,
    unwind_info: u32,
}

type Handler = unsafe extern "system" fn(*mut ExceptionPointers) -> i32;

#[link(name = "kernel32")]
extern "system" {
    fn AddVectoredExceptionHandler(first: u32, handler: Handler) -> *mut c_void;
    fn RemoveVectoredExceptionHandler(handle: *mut c_void) -> u32;
    fn RtlLookupFunctionEntry(pc: u64, image_base: *mut u64, history: *mut c_void) -> *const RuntimeFunction;
    fn RtlVirtualUnwind(
        handler_type: u32,
        image_base: u64,
        pc: u64,
        entry: *const RuntimeFunction,
        context: *mut Context,
        handler_data: *mut *mut c_void,
        establisher: *mut u64,
        pointers: *mut c_void,
    ) -> *mut c_void;
}

const EXCEPTION_SINGLE_STEP: u32 = 0x8000_0004;
const CONTINUE_EXECUTION: i32 = -1;
const CONTINUE_SEARCH: i32 = 0;
const TRAP_FLAG: u32 = 0x100;

/// What the trampoline reads and writes (offsets spelled as numbers in the assembly, checked here).
#[repr(C)]
#[derive(Default)]
struct Frame {
    /// The six integer arguments.
    args: [u64; 6],
    /// The function to call.
    func: u64,
    /// rbx, rbp, rdi, rsi, r12-r15 as loaded.
    want: [u64; 8],
    /// xmm6-xmm15 as loaded, two words each.
    want_xmm: [u64; 20],
    /// The stack pointer at the `call`.
    call_sp: u64,
    /// The return address (the instruction after the `call`).
    ret: u64,
}

const _: () = {
    assert!(offset_of!(Frame, func) == 48);
    assert!(offset_of!(Frame, want) == 56);
    assert!(offset_of!(Frame, want_xmm) == 120);
    assert!(offset_of!(Frame, call_sp) == 280);
    assert!(offset_of!(Frame, ret) == 288);
};

const GPR_NAMES: [&str; 8] = ["rbx", "rbp", "rdi", "rsi", "r12", "r13", "r14", "r15"];
/// Their indices in [`Context::gpr`].
const GPR_INDEX: [usize; 8] = [3, 5, 7, 6, 12, 13, 14, 15];

/// The trampoline's frame while the kernel runs.
static mut SLOT: u64 = 0;

// Microsoft x64; frame in rcx. Our callee-saved registers: 8 pushes and 168 bytes for xmm6-xmm15; then 48
// bytes of shadow space and the 5th/6th arguments (rsp 16-byte aligned at the call). The trap flag is set
// by the popfq before the call: the first single-step exception is at the kernel's first instruction.
std::arch::global_asm!(
    ".globl asmgen_unwind_trampoline",
    ".p2align 4",
    "asmgen_unwind_trampoline:",
    "push rbp",
    "push rbx",
    "push rdi",
    "push rsi",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    "sub rsp, 168",
    "movdqu [rsp], xmm6",
    "movdqu [rsp + 16], xmm7",
    "movdqu [rsp + 32], xmm8",
    "movdqu [rsp + 48], xmm9",
    "movdqu [rsp + 64], xmm10",
    "movdqu [rsp + 80], xmm11",
    "movdqu [rsp + 96], xmm12",
    "movdqu [rsp + 112], xmm13",
    "movdqu [rsp + 128], xmm14",
    "movdqu [rsp + 144], xmm15",
    "mov [rip + {slot}], rcx",
    "mov r11, rcx",
    "sub rsp, 48",
    "mov rax, [r11 + 32]",
    "mov [rsp + 32], rax",
    "mov rax, [r11 + 40]",
    "mov [rsp + 40], rax",
    "mov [r11 + 280], rsp",
    "lea rax, [rip + 5f]",
    "mov [r11 + 288], rax",
    "mov rbx, [r11 + 56]",
    "mov rbp, [r11 + 64]",
    "mov rdi, [r11 + 72]",
    "mov rsi, [r11 + 80]",
    "mov r12, [r11 + 88]",
    "mov r13, [r11 + 96]",
    "mov r14, [r11 + 104]",
    "mov r15, [r11 + 112]",
    "movdqu xmm6, [r11 + 120]",
    "movdqu xmm7, [r11 + 136]",
    "movdqu xmm8, [r11 + 152]",
    "movdqu xmm9, [r11 + 168]",
    "movdqu xmm10, [r11 + 184]",
    "movdqu xmm11, [r11 + 200]",
    "movdqu xmm12, [r11 + 216]",
    "movdqu xmm13, [r11 + 232]",
    "movdqu xmm14, [r11 + 248]",
    "movdqu xmm15, [r11 + 264]",
    "mov rcx, [r11]",
    "mov rdx, [r11 + 8]",
    "mov r8, [r11 + 16]",
    "mov r9, [r11 + 24]",
    "mov rax, [r11 + 48]",
    "pushfq",
    "or qword ptr [rsp], 0x100",
    "popfq",
    "call rax",
    "5:",
    "add rsp, 48",
    "cld",
    "movdqu xmm6, [rsp]",
    "movdqu xmm7, [rsp + 16]",
    "movdqu xmm8, [rsp + 32]",
    "movdqu xmm9, [rsp + 48]",
    "movdqu xmm10, [rsp + 64]",
    "movdqu xmm11, [rsp + 80]",
    "movdqu xmm12, [rsp + 96]",
    "movdqu xmm13, [rsp + 112]",
    "movdqu xmm14, [rsp + 128]",
    "movdqu xmm15, [rsp + 144]",
    "add rsp, 168",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rsi",
    "pop rdi",
    "pop rbx",
    "pop rbp",
    "ret",
    // Hand-written functions with unwind entries: one right, two wrong. Each saves rsi (clobbered in the
    // body) and allocates 40 bytes.
    ".seh_proc asmgen_unwind_good",
    "asmgen_unwind_good:",
    "push rsi",
    ".seh_pushreg rsi",
    "sub rsp, 40",
    ".seh_stackalloc 40",
    ".seh_endprologue",
    "mov rsi, rcx",
    "mov [rsp], rsi",
    "add rsp, 40",
    "pop rsi",
    "ret",
    ".seh_endproc",
    ".seh_proc asmgen_unwind_small_alloc",
    "asmgen_unwind_small_alloc:",
    "push rsi",
    ".seh_pushreg rsi",
    "sub rsp, 40",
    ".seh_stackalloc 24",
    ".seh_endprologue",
    "mov rsi, rcx",
    "mov [rsp], rsi",
    "add rsp, 40",
    "pop rsi",
    "ret",
    ".seh_endproc",
    ".seh_proc asmgen_unwind_hidden_push",
    "asmgen_unwind_hidden_push:",
    "push rsi",
    ".seh_pushreg rsi",
    "push rdi",
    "sub rsp, 40",
    ".seh_stackalloc 40",
    ".seh_endprologue",
    "mov rsi, rcx",
    "mov rdi, rcx",
    "mov [rsp], rsi",
    "add rsp, 40",
    "pop rdi",
    "pop rsi",
    "ret",
    ".seh_endproc",
    slot = sym SLOT,
);

extern "C" {
    fn asmgen_unwind_trampoline(frame: *mut Frame);
    fn asmgen_unwind_good();
    fn asmgen_unwind_small_alloc();
    fn asmgen_unwind_hidden_push();
}

/// What the handler checks and records for one stepped call.
struct Stepping {
    /// The kernel's code range (from its unwind entry): start...
    begin: u64,
    /// ...and end.
    end: u64,
    /// The trampoline's frame: the stack pointer at the call and the return address are written there
    /// before the call.
    frame: *const Frame,
    /// rbx, rbp, rdi, rsi, r12-r15 as the trampoline loads them.
    want: [u64; 8],
    /// xmm6-xmm15 as loaded.
    want_xmm: [u64; 20],
    /// The addresses stepped in the kernel, in order.
    steps: Vec<u64>,
    /// One line per step whose unwinding failed (the first few kept).
    failures: Vec<String>,
    /// Steps outside the kernel before the return address.
    strays: u64,
}

/// The call being stepped (null when none: the handler passes every exception on).
static STEPPING: AtomicPtr<Stepping> = AtomicPtr::new(std::ptr::null_mut());
/// One stepped call at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The vectored handler: at each single step inside the kernel, unwinds one frame and compares.
unsafe extern "system" fn on_exception(info: *mut ExceptionPointers) -> i32 {
    let st = STEPPING.load(Ordering::Acquire);
    // SAFETY: the pointers the dispatcher passes are valid; `st` is the test's, alive while it is published.
    unsafe {
        if st.is_null() || *(*info).record != EXCEPTION_SINGLE_STEP {
            return CONTINUE_SEARCH;
        }
        let (st, ctx) = (&mut *st, &mut *(*info).context);
        let call_sp = std::ptr::read_volatile(&(*st.frame).call_sp);
        let ret = std::ptr::read_volatile(&(*st.frame).ret);
        if ctx.rip == ret {
            ctx.eflags &= !TRAP_FLAG;
            return CONTINUE_EXECUTION;
        }
        if (st.begin..st.end).contains(&ctx.rip) {
            st.steps.push(ctx.rip);
            if let Err(e) = unwind_matches(st, ctx, call_sp, ret) {
                if st.failures.len() < 8 {
                    st.failures.push(format!("at +{:#x}: {e}", ctx.rip - st.begin));
                }
            }
        } else {
            st.strays += 1;
        }
        ctx.eflags |= TRAP_FLAG;
    }
    CONTINUE_EXECUTION
}

/// Unwinds a copy of `ctx` one frame and compares it with the caller's state.
fn unwind_matches(st: &Stepping, ctx: &Context, call_sp: u64, ret: u64) -> Result<(), String> {
    let mut c = *ctx;
    let mut base = 0u64;
    // SAFETY: lookups in the loaded images; the unwinder reads the stack the kernel is running on.
    unsafe {
        let rf = RtlLookupFunctionEntry(c.rip, &mut base, std::ptr::null_mut());
        if rf.is_null() {
            return Err("no unwind entry".into());
        }
        let (mut data, mut establisher) = (std::ptr::null_mut(), 0u64);
        RtlVirtualUnwind(0, base, c.rip, rf, &mut c, &mut data, &mut establisher, std::ptr::null_mut());
    }
    let mut bad = Vec::new();
    if c.gpr[4] != call_sp {
        bad.push(format!("rsp {:#x}, want {:#x}", c.gpr[4], call_sp));
    }
    if c.rip != ret {
        bad.push(format!("rip {:#x}, want {:#x}", c.rip, ret));
    }
    for (i, name) in GPR_NAMES.iter().enumerate() {
        if c.gpr[GPR_INDEX[i]] != st.want[i] {
            bad.push(format!("{name} {:#x}, want {:#x}", c.gpr[GPR_INDEX[i]], st.want[i]));
        }
    }
    for i in 0..10 {
        let at = 160 + 16 * (i + 6);
        let got = [0, 8].map(|o| u64::from_le_bytes(c.flt[at + o..at + o + 8].try_into().unwrap()));
        if got != st.want_xmm[2 * i..2 * i + 2] {
            bad.push(format!("xmm{} {got:x?}", i + 6));
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join(", "))
    }
}

/// The code range of `f` from its unwind entry.
fn function_range(f: *const ()) -> Option<(u64, u64)> {
    let mut base = 0u64;
    // SAFETY: a lookup in the loaded images.
    let rf = unsafe { RtlLookupFunctionEntry(f as u64, &mut base, std::ptr::null_mut()) };
    // SAFETY: a non-null entry is valid.
    (!rf.is_null()).then(|| unsafe { (base + (*rf).begin as u64, base + (*rf).end as u64) })
}

/// Steps `f(args)` with random callee-saved registers; the stepped addresses and the failed unwinds.
fn step(f: *const (), args: &[u64], rng: &mut Rng) -> (Vec<u64>, Vec<String>) {
    let Some((begin, end)) = function_range(f) else {
        return (Vec::new(), vec!["no unwind entry at the entry point".into()]);
    };
    let mut frame = Frame { func: f as u64, ..Frame::default() };
    frame.args[..args.len()].copy_from_slice(args);
    for w in frame.want.iter_mut().chain(&mut frame.want_xmm) {
        *w = rng.next_u64();
    }
    let mut st = Stepping {
        begin,
        end,
        frame: std::ptr::null(),
        want: frame.want,
        want_xmm: frame.want_xmm,
        steps: Vec::with_capacity(1 << 16),
        failures: Vec::new(),
        strays: 0,
    };
    let frame: *mut Frame = &mut frame;
    st.frame = frame;
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    STEPPING.store(&mut st, Ordering::Release);
    // SAFETY: `f` is a Win64 function whose arguments `args` are valid for; the trampoline restores what it
    // changed; the handler is installed while the trap flag can be set.
    unsafe {
        let h = AddVectoredExceptionHandler(1, on_exception);
        assert!(!h.is_null(), "AddVectoredExceptionHandler failed");
        asmgen_unwind_trampoline(frame);
        RemoveVectoredExceptionHandler(h);
    }
    STEPPING.store(std::ptr::null_mut(), Ordering::Release);
    let mut failures = st.failures;
    if st.strays != 0 {
        failures.push(format!("{} steps outside the function before its return", st.strays));
    }
    if st.steps.first() != Some(&(f as u64)) {
        failures.push(format!("the first step is not the entry point: {:x?}", st.steps.first()));
    }
    (st.steps, failures)
}

/// Instruction starts of `[begin, end)`, decoded.
fn instructions(begin: u64, end: u64) -> Vec<u64> {
    // SAFETY: the function's code, in the loaded image.
    let code = unsafe { std::slice::from_raw_parts(begin as *const u8, (end - begin) as usize) };
    iced_x86::Decoder::with_ip(64, code, begin, iced_x86::DecoderOptions::NONE).into_iter().map(|i| i.ip()).collect()
}

/// Roles whose kernels chain one block at a time (no wide loop, no tail slots): 0, 1 and 2 blocks reach every
/// instruction of theirs, and each further block costs thousands of wine exceptions.
const SERIAL: [&str; 5] = ["cbc_enc", "cfb_enc", "cbc_mac", "ccm_enc", "ccm_dec"];
/// The block counts the serial roles are stepped with; the others are stepped with every count up to
/// `MAX_BLOCKS` (each tail length reaches its own slot of the wide kernels' tails).
const SERIAL_COUNTS: [usize; 3] = [0, 1, 2];
/// Longer runs, past `MAX_BLOCKS`: the wide XTS and GCM kernels repeat their 16-block loops (33, also the XTS
/// unit kernels' long count), the zmm batch kernels (`x86_64-gfni-avx512`, `x86_64-vaes-avx512`) enter their
/// 48-block loop (49).
const LONG_COUNTS: [usize; 2] = [33, 49];
/// The block counts the XTS unit kernels (`xts_unit_*`, the XTS loop between two serial blocks and the tweak's
/// encryption, so each call costs about twice a whole-block call) are stepped with: none, a tail alone, the
/// small batch, a partial and a full wide batch, and the repeated loop (the tails: `kernel_calls`' `n % 11`).
/// 6 blocks (96 + 6 bytes: 5 whole blocks before the stolen tail) reach the xmm kernels' partial two-group
/// batch (5-7 blocks), which the one-group path for 1-4 blocks left to no other count.
const UNIT_COUNTS: [usize; 9] = [0, 1, 2, 6, 9, 17, 33, ZMM_COUNTS[0], ZMM_COUNTS[1]];
/// The zmm sets' XTS kernels (whole-block and unit) and GCM kernels are also stepped with 27 blocks (a unit
/// kernel's tail leaves 26 to its loop: below 32, two ymm batches, the second partial, their loop's branch
/// back; GCM's ymm code below 32) and 97 (two 48-block batches back to back, the zmm loop's branch back; GCM
/// encryption's first batch, one in its loop and the last absorbed alone). Only they: each block costs the
/// other kernels wine exceptions for no instruction they have not stepped.
const ZMM_COUNTS: [usize; 2] = [27, 97];
/// The GHASH/POLYVAL updates are also stepped with 113 blocks: the ymm set's 64-block loop (its branch back),
/// then its batches of 32 and 16 and one block of tail; and with 241: the zmm set's loop, whose first batch
/// runs before it (each batch's sums are reduced in the next), goes round twice. Only they.
const HASH_COUNTS: [usize; 2] = [64 + 32 + 16 + 1, 3 * 64 + 32 + 16 + 1];

/// The instructions every call must have stepped at least once: the prologue (from the unwind entry's
/// SizeOfProlog), each epilogue (the `ret` and the xmm reloads, `add rsp` and `pop`s before it) and every
/// backward branch (the loops).
fn required(begin: u64, end: u64, prolog: u64) -> Vec<iced_x86::Instruction> {
    use iced_x86::{Mnemonic, OpKind, Register};
    // SAFETY: the function's code, in the loaded image.
    let code = unsafe { std::slice::from_raw_parts(begin as *const u8, (end - begin) as usize) };
    let all: Vec<_> = iced_x86::Decoder::with_ip(64, code, begin, iced_x86::DecoderOptions::NONE).into_iter().collect();
    let restores = |i: &iced_x86::Instruction| match i.mnemonic() {
        Mnemonic::Pop => true,
        Mnemonic::Add => i.op0_kind() == OpKind::Register && i.op0_register() == Register::RSP,
        _ => {
            i.op_count() == 2
                && i.op0_register().is_xmm()
                && i.op1_kind() == OpKind::Memory
                && i.memory_base() == Register::RSP
        }
    };
    let mut out: Vec<_> = all.iter().filter(|i| i.ip() < begin + prolog).copied().collect();
    for (n, i) in all.iter().enumerate() {
        if i.mnemonic() == Mnemonic::Ret {
            out.extend(all[..=n].iter().rev().skip(1).take_while(|i| restores(i)).copied());
            out.push(*i);
        }
        if i.op0_kind() == OpKind::NearBranch64 && i.mnemonic() != Mnemonic::Call && i.near_branch_target() < i.ip() {
            out.push(*i);
        }
    }
    out
}

/// SizeOfProlog of the unwind entry of `f`.
fn prolog_size(f: *const ()) -> u64 {
    let mut base = 0u64;
    // SAFETY: a lookup in the loaded images; a registered entry points at its UNWIND_INFO (byte 1: the size).
    unsafe {
        let rf = RtlLookupFunctionEntry(f as u64, &mut base, std::ptr::null_mut());
        assert!(!rf.is_null(), "no unwind entry");
        *((base + (*rf).unwind_info as u64) as *const u8).add(1) as u64
    }
}

#[test]
fn every_listing_kernel_unwinds_from_every_instruction() {
    let (runnable, all) = listing_kernels();
    if all == 0 {
        eprintln!("unwind: no listings linked: nothing to step");
        return;
    }
    if std::env::var("ASMGEN_BACKEND").is_ok_and(|b| b == "jit") {
        // The listings are the same in every run: stepped in the run without ASMGEN_BACKEND, the JIT's
        // kernels in this one.
        eprintln!("unwind: ASMGEN_BACKEND=jit: the listings are stepped in the run without it");
        return;
    }
    step_every_instruction(&runnable);
}

/// The JIT registers each image's unwind data (`RtlAddFunctionTable`, runtime/src/jit/unwind.rs), so the OS
/// unwinds its kernels too: stepped in the run with `ASMGEN_BACKEND=jit` (the JIT's run of the suite).
#[test]
fn every_jit_kernel_unwinds_from_every_instruction() {
    if std::env::var("ASMGEN_BACKEND").as_deref() != Ok("jit") {
        eprintln!("unwind: the JIT's kernels are stepped in the run with ASMGEN_BACKEND=jit");
        return;
    }
    let jit = match asmgen_runtime::jit::Jit::process() {
        Ok(j) => j,
        Err(e) => {
            eprintln!("unwind: no process JIT here ({e}): nothing to step");
            return;
        }
    };
    let kernels = process_jit_kernels(jit);
    assert!(!kernels.is_empty(), "the process JIT assembled no kernel");
    step_every_instruction(&kernels);
}

/// Steps every kernel of `kernels` with every count, unwinding at each instruction; fails on a wrong unwind
/// or a prologue, epilogue or loop instruction never stepped.
fn step_every_instruction(runnable: &[Kernel]) {
    let s = seed();
    let start = std::time::Instant::now();
    let mut stepped: Vec<(String, usize, BTreeSet<u64>)> = Vec::new();
    let counts: Vec<usize> = (0..=MAX_BLOCKS).chain(LONG_COUNTS).chain(ZMM_COUNTS).chain(HASH_COUNTS).collect();
    let failures = sweep_counts(runnable, &counts, &mut Rng::new(s), |k: &Kernel, args, rng| {
        let unit = k.role.starts_with("xts_unit_");
        // The block count: a unit kernel's length is its fifth argument, and so is GCM's count (after the key
        // table); the other bulk roles' count is their fourth (setup roles have none).
        let blocks = if unit {
            args[4] as usize / 16
        } else if k.role.starts_with("gcm_") {
            args[4] as usize
        } else {
            args.get(3).copied().unwrap_or(0) as usize
        };
        let zmm_role = k.role.starts_with("xts_") || k.role.starts_with("gcm_");
        if ZMM_COUNTS.contains(&blocks) && !(k.set.ends_with("-avx512") && zmm_role) {
            return Vec::new();
        }
        if HASH_COUNTS.contains(&blocks) && !matches!(k.role.as_str(), "ghash_update" | "polyval_update") {
            return Vec::new();
        }
        if SERIAL.contains(&k.role.as_str()) && !SERIAL_COUNTS.contains(&blocks) {
            return Vec::new();
        }
        // A unit kernel's length is 16 * n and a tail under 16 bytes.
        if unit && !UNIT_COUNTS.contains(&blocks) {
            return Vec::new();
        }
        let (steps, failures) = step(k.entry, args, rng);
        match stepped.iter_mut().find(|(n, _, _)| *n == k.name) {
            Some((_, count, set)) => {
                *count += steps.len();
                set.extend(steps);
            }
            None => stepped.push((k.name.clone(), steps.len(), steps.into_iter().collect())),
        }
        failures
    });
    let mut unstepped = Vec::new();
    let mut total = 0;
    for (name, count, set) in &stepped {
        let k = runnable.iter().find(|k| k.name == *name).expect("a stepped kernel");
        let (begin, end) = function_range(k.entry).expect("every kernel has an unwind entry");
        let all = instructions(begin, end);
        let must = required(begin, end, prolog_size(k.entry));
        eprintln!(
            "unwind: {name}: {count} steps, {} of {} instructions ({} prologue, epilogue and loop ones required)",
            set.len(),
            all.len(),
            must.len()
        );
        let mut formatter = iced_x86::IntelFormatter::new();
        for i in must.iter().filter(|i| !set.contains(&i.ip())) {
            let mut text = String::new();
            iced_x86::Formatter::format(&mut formatter, i, &mut text);
            unstepped.push(format!("{name}+{:#x}: {text}", i.ip() - begin));
        }
        total += count;
    }
    eprintln!(
        "unwind: {} functions, {total} steps in {:.1} s (blocks 0..={MAX_BLOCKS} and {LONG_COUNTS:?}; hash updates \
         {HASH_COUNTS:?}; \
         {SERIAL:?}: {SERIAL_COUNTS:?}; xts_unit_*: {UNIT_COUNTS:?})",
        stepped.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "seed {s}: kernels whose unwinding failed:\n{}", failures.join("\n"));
    assert!(unstepped.is_empty(), "prologue, epilogue or loop instructions never stepped:\n{}", unstepped.join("\n"));
}

#[test]
fn a_wrong_unwind_entry_is_caught() {
    let mut rng = Rng::new(seed());
    let (steps, failures) = step(asmgen_unwind_good as *const (), &[1], &mut rng);
    assert_eq!(steps.len(), 7, "every instruction of the right function is stepped");
    assert!(failures.is_empty(), "a right unwind entry reported: {failures:?}");
    for (f, what) in [(asmgen_unwind_small_alloc as unsafe extern "C" fn(), "rsp"), (asmgen_unwind_hidden_push, "rsp")]
    {
        let (steps, failures) = step(f as *const (), &[1], &mut rng);
        assert!(steps.len() >= 7, "stepped {steps:?}");
        assert!(!failures.is_empty() && failures[0].contains(what), "a wrong unwind entry not caught: {failures:?}");
        eprintln!("unwind: caught: {}", failures[0]);
    }
}

/// Kernels with stack frames (the test-only `asmgen_tests::frames`: small, large, probed and over-aligned
/// frames), mapped by the runtime's JIT for any function (`JitModule`, which registers their unwind data): every instruction is stepped
/// (the probes, the allocation, the body's frame accesses, the epilogue), one frame is unwound at each, and the
/// kernel's answer is checked.
#[test]
fn kernels_with_frames_unwind_from_every_instruction() {
    use asmgen_tests::frames::{expected, host_kernels};
    if !std::arch::is_x86_feature_detected!("avx") {
        eprintln!("unwind: no AVX: the frame kernels are not stepped");
        return;
    }
    let mut rng = Rng::new(seed());
    let mut failures = Vec::new();
    for (shape, entry) in host_kernels() {
        let mut out = Box::new([0u64; 1]);
        let mut args = [0u64; 6];
        for a in &mut args[1..] {
            *a = rng.next_u64();
        }
        args[0] = out.as_mut_ptr() as u64;
        let (steps, broken) = step(entry, &args, &mut rng);
        failures.extend(broken.into_iter().map(|b| format!("{}: {b}", shape.name)));
        let (begin, end) = function_range(entry).expect("a registered unwind entry");
        let stepped: BTreeSet<u64> = steps.into_iter().collect();
        let missed: Vec<u64> =
            instructions(begin, end).into_iter().filter(|i| !stepped.contains(i)).map(|i| i - begin).collect();
        assert!(missed.is_empty(), "{}: instructions never stepped at {missed:x?}", shape.name);
        assert_eq!(out[0], expected(&shape, asmgen::Arch::X86_64, &args), "{}: the kernel's answer", shape.name);
        eprintln!(
            "unwind: {}: {} instructions stepped, prologue {} bytes",
            shape.name,
            stepped.len(),
            prolog_size(entry)
        );
    }
    assert!(failures.is_empty(), "kernels with frames whose unwinding failed:\n{}", failures.join("\n"));
}
