//! Unwinding from every instruction: every linked listing function of every kernel set this CPU runs (and,
//! where its code equals the listing's, every kernel of the process JIT, with the listing function's CFI at
//! equal offsets) is stopped at each of its instructions, and at each stop one frame is unwound with the
//! `.eh_frame` CFI of this test executable, parsed and evaluated by gimli. The unwound frame must be the
//! caller's: CFA == the caller's stack pointer at the call, return address == the trampoline's, and every
//! callee-saved register (its CFI rule: unchanged, or saved at CFA+N and read from the stack) == the canary the
//! trampoline put there (x86_64: rbx, rbp, r12-r15; aarch64: x19-x29, d8-d15; riscv64: s0-s11, fs0-fs11).
//! After each call the trampoline also checks that the callee-saved registers and sp came back.
//!
//! How each architecture stops at every instruction:
//! * x86_64 (native): the trampoline sets the trap flag (`pushfq`/`or`/`popfq`) right before its `call`, so a
//!   SIGTRAP arrives before each kernel instruction runs (the first at the entry); the handler unwinds from
//!   the ucontext's registers and clears the flag once the pc is back in the trampoline. An instruction is
//!   checked the first time it runs; when the trap flag brings the pc to one already checked (a loop's
//!   second trip, a later call), the handler clears the flag and puts `int3` on every instruction not yet
//!   checked, and the first of those that runs takes the function's bytes back and sets the flag again. So
//!   each instruction costs about one trap however often it runs (a trap costs some 20 us in a VM; stepping
//!   every executed instruction took 18 s, this takes about one).
//! * aarch64 and riscv64 (under qemu-user, which has no ptrace): instruction k is patched with a trap (`brk
//!   #0`; `ebreak`, or `c.ebreak` where the instruction is compressed: lengths from the low bits), the kernel is
//!   called, and the SIGTRAP handler unwinds at that instruction, writes the original back and resumes, so
//!   the call completes (its callee-saved registers are checked after it too). The same method runs natively
//!   on such CPUs.
//!
//! Code is written only through `asmgen_unwind_poke` (raw syscalls, alone on its page so that it never makes
//! its own code writable): mprotect read-write, write, mprotect read-execute (never writable and executable
//! at once), then the instruction cache is synchronised (`dc cvau`/`ic ivau`; `fence.i` and
//! `riscv_flush_icache`); qemu drops its translations of a page made writable. While a page is writable no
//! other thread runs the runtime's code, whose functions share the listings' first and last pages: every test
//! here holds one lock from its start.
//!
//! Counts: a kernel is called with the harness's counts (0, 1, 3, 8, 17), then every other count up to 17
//! for the tails of the wide kernels, CTR kernels also with a counter about to carry out of its low 64
//! bits (the carry paths), hash updates also with 33 and 48 blocks (the zmm set's 32-block loop), and on x86_64
//! the batch kernels (ECB, CTR, CBC and CFB decryption) with 49 (the zmm SM4 sets' 48-block loop). x86_64 goes through the counts until every instruction has been checked;
//! aarch64/riscv64 try, per instruction, the count that reached the previous one first, then the others.
//! Instructions no count reaches are printed per function (offsets), not failed: on x86_64 they are mostly
//! branches a tail path can never take (the 9-15 block path of the ymm sets tests `nblocks < 2`, ...).
//!
//! The `.eh_frame` is found in memory through `dl_iterate_phdr` (PT_GNU_EH_FRAME: `.eh_frame_hdr` and its
//! search table) and each kernel's FDE by its address; a kernel's length is its FDE's address range.
//! Everything is prepared before a call: the handler evaluates the FDE's CFI program in a preallocated gimli
//! context (in-line storage, no allocation), reads only registers and aligned stack slots between the stack
//! pointer and the caller's frame, and records failures (offset, what differs) in a fixed array that the test
//! reads after the call. `hand_written_functions_with_wrong_cfi_are_caught` steps tiny functions written
//! here, one with correct CFI (no failure) and two with a wrong entry each (a stack adjustment missing its
//! `.cfi_adjust_cfa_offset`, a register saved at another slot than its `.cfi_rel_offset` says), and requires
//! failures at exactly the instructions where the CFI is wrong.
#![cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]

use asmgen_tests::kernel_calls::{
    is_setup, listing_kernels, process_jit_kernels, seed, Buffers, Kernel, COUNTS, MAX_BLOCKS,
};
use asmgen_tests::Rng;
use gimli::{
    BaseAddresses, CfaRule, EhFrame, EhFrameHdr, EndianSlice, FrameDescriptionEntry, LittleEndian, Register,
    RegisterRule, UnwindContext, UnwindContextStorage, UnwindSection, UnwindTableRow,
};
use std::collections::BTreeSet;
use std::ffi::c_void;
use std::mem::offset_of;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, OnceLock};

type Slice = EndianSlice<'static, LittleEndian>;
type Fde = FrameDescriptionEntry<Slice>;

/// What the trampoline reads and writes; the offsets are spelled as numbers in the assembly below.
#[repr(C)]
#[derive(Default)]
struct Frame {
    /// The six integer arguments.
    args: [u64; 6],
    /// The function to call.
    func: u64,
    /// x86_64: nonzero to set the trap flag before the call.
    step: u64,
    /// The canaries loaded into the callee-saved registers (order: [`CALLEE_SAVED`]).
    want: [u64; 24],
    /// The callee-saved registers after the call.
    got: [u64; 24],
    /// The stack pointer right before the call instruction.
    sp_at_call: u64,
    /// The return address: the trampoline's instruction after the call.
    ret_addr: u64,
    /// The stack pointer after the call.
    sp_after: u64,
    _pad: u64,
}

const _: () = {
    assert!(offset_of!(Frame, func) == 48);
    assert!(offset_of!(Frame, step) == 56);
    assert!(offset_of!(Frame, want) == 64);
    assert!(offset_of!(Frame, got) == 256);
    assert!(offset_of!(Frame, sp_at_call) == 448);
    assert!(offset_of!(Frame, ret_addr) == 456);
    assert!(offset_of!(Frame, sp_after) == 464);
};

/// The callee-saved registers: name and DWARF register number.
#[cfg(target_arch = "x86_64")]
const CALLEE_SAVED: &[(&str, u16)] = &[("rbx", 3), ("rbp", 6), ("r12", 12), ("r13", 13), ("r14", 14), ("r15", 15)];
#[cfg(target_arch = "aarch64")]
const CALLEE_SAVED: &[(&str, u16)] = &[
    ("x19", 19),
    ("x20", 20),
    ("x21", 21),
    ("x22", 22),
    ("x23", 23),
    ("x24", 24),
    ("x25", 25),
    ("x26", 26),
    ("x27", 27),
    ("x28", 28),
    ("x29", 29),
    ("d8", 72),
    ("d9", 73),
    ("d10", 74),
    ("d11", 75),
    ("d12", 76),
    ("d13", 77),
    ("d14", 78),
    ("d15", 79),
];
#[cfg(target_arch = "riscv64")]
const CALLEE_SAVED: &[(&str, u16)] = &[
    ("s0", 8),
    ("s1", 9),
    ("s2", 18),
    ("s3", 19),
    ("s4", 20),
    ("s5", 21),
    ("s6", 22),
    ("s7", 23),
    ("s8", 24),
    ("s9", 25),
    ("s10", 26),
    ("s11", 27),
    ("fs0", 40),
    ("fs1", 41),
    ("fs2", 50),
    ("fs3", 51),
    ("fs4", 52),
    ("fs5", 53),
    ("fs6", 54),
    ("fs7", 55),
    ("fs8", 56),
    ("fs9", 57),
    ("fs10", 58),
    ("fs11", 59),
];

/// The DWARF number of the stack pointer.
#[cfg(target_arch = "x86_64")]
const SP: u16 = 7;
#[cfg(target_arch = "aarch64")]
const SP: u16 = 31;
#[cfg(target_arch = "riscv64")]
const SP: u16 = 2;

// System V x86_64. Frame in rdi. Our own callee-saved registers are pushed (6 pushes and 8 bytes keep the
// call 16-byte aligned); r11 holds the frame until the call, the static slot after it. With `step` set, the
// trap flag is set right before the call: the first trap comes after the call, at the kernel's entry.
#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    ".pushsection .bss",
    ".p2align 3",
    ".Lunwind_slot: .zero 8",
    ".popsection",
    ".pushsection .text",
    ".globl asmgen_unwind_trampoline",
    ".p2align 4",
    "asmgen_unwind_trampoline:",
    "push rbp",
    "push rbx",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    "sub rsp, 8",
    "mov [rip + .Lunwind_slot], rdi",
    "mov r11, rdi",
    "lea rax, [rip + .Lunwind_ret]",
    "mov [r11 + 456], rax",
    "mov rbx, [r11 + 64]",
    "mov rbp, [r11 + 72]",
    "mov r12, [r11 + 80]",
    "mov r13, [r11 + 88]",
    "mov r14, [r11 + 96]",
    "mov r15, [r11 + 104]",
    "mov rdi, [r11]",
    "mov rsi, [r11 + 8]",
    "mov rdx, [r11 + 16]",
    "mov rcx, [r11 + 24]",
    "mov r8, [r11 + 32]",
    "mov r9, [r11 + 40]",
    "mov [r11 + 448], rsp",
    "cmp qword ptr [r11 + 56], 0",
    "je 2f",
    "pushfq",
    "or qword ptr [rsp], 0x100",
    "popfq",
    "2:",
    "call qword ptr [r11 + 48]",
    ".Lunwind_ret:",
    "pushfq",
    "and qword ptr [rsp], -0x101",
    "popfq",
    "mov r11, [rip + .Lunwind_slot]",
    "mov [r11 + 464], rsp",
    "mov [r11 + 256], rbx",
    "mov [r11 + 264], rbp",
    "mov [r11 + 272], r12",
    "mov [r11 + 280], r13",
    "mov [r11 + 288], r14",
    "mov [r11 + 296], r15",
    "mov rsp, [r11 + 448]",
    "add rsp, 8",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
    // Hand-written functions: correct CFI, then two wrong entries. Each saves rbx and r12, clobbers them and
    // restores them; `_from`/`_to` bracket the instructions whose CFI row is wrong.
    ".globl asmgen_unwind_good",
    "asmgen_unwind_good:",
    ".cfi_startproc",
    "push rbx",
    ".cfi_adjust_cfa_offset 8",
    ".cfi_rel_offset rbx, 0",
    "push r12",
    ".cfi_adjust_cfa_offset 8",
    ".cfi_rel_offset r12, 0",
    "xor ebx, ebx",
    "xor r12d, r12d",
    "pop r12",
    ".cfi_adjust_cfa_offset -8",
    ".cfi_restore r12",
    "pop rbx",
    ".cfi_adjust_cfa_offset -8",
    ".cfi_restore rbx",
    "ret",
    ".cfi_endproc",
    // The push of r12 has no .cfi_adjust_cfa_offset (nor its pop): the CFA is 8 bytes off until the pop.
    ".globl asmgen_unwind_bad_cfa",
    ".globl asmgen_unwind_bad_cfa_from",
    ".globl asmgen_unwind_bad_cfa_to",
    "asmgen_unwind_bad_cfa:",
    ".cfi_startproc",
    "push rbx",
    ".cfi_adjust_cfa_offset 8",
    ".cfi_rel_offset rbx, 0",
    "push r12",
    "asmgen_unwind_bad_cfa_from:",
    "xor ebx, ebx",
    "xor r12d, r12d",
    "pop r12",
    "asmgen_unwind_bad_cfa_to:",
    "pop rbx",
    ".cfi_adjust_cfa_offset -8",
    ".cfi_restore rbx",
    "ret",
    ".cfi_endproc",
    // r12 is said to be at CFA-16 (rbx's slot) instead of CFA-24.
    ".globl asmgen_unwind_bad_slot",
    ".globl asmgen_unwind_bad_slot_from",
    ".globl asmgen_unwind_bad_slot_to",
    "asmgen_unwind_bad_slot:",
    ".cfi_startproc",
    "push rbx",
    ".cfi_adjust_cfa_offset 8",
    ".cfi_rel_offset rbx, 0",
    "push r12",
    ".cfi_adjust_cfa_offset 8",
    ".cfi_rel_offset r12, 8",
    "asmgen_unwind_bad_slot_from:",
    "xor ebx, ebx",
    "xor r12d, r12d",
    "pop r12",
    ".cfi_adjust_cfa_offset -8",
    ".cfi_restore r12",
    "asmgen_unwind_bad_slot_to:",
    "pop rbx",
    ".cfi_adjust_cfa_offset -8",
    ".cfi_restore rbx",
    "ret",
    ".cfi_endproc",
    ".popsection",
    // The patcher, alone on its page (so that it never makes its own code writable): rdi address, rsi the
    // bytes, rdx their count, rcx the first page, r8 the length of the pages. mprotect read-write, copy,
    // mprotect read-execute (x86 keeps instruction fetch coherent). Returns 0 or -errno.
    ".pushsection .text.asmgen_unwind_poke, \"ax\", @progbits",
    ".p2align 12",
    ".globl asmgen_unwind_poke",
    "asmgen_unwind_poke:",
    "push rbx",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    "mov rbx, rdi",
    "mov r12, rsi",
    "mov r13, rdx",
    "mov r14, rcx",
    "mov r15, r8",
    "mov rdi, r14",
    "mov rsi, r15",
    "mov edx, 3",
    "mov eax, 10",
    "syscall",
    "test rax, rax",
    "jnz 9f",
    "mov rdi, rbx",
    "mov rsi, r12",
    "mov rcx, r13",
    "rep movsb",
    "mov rdi, r14",
    "mov rsi, r15",
    "mov edx, 5",
    "mov eax, 10",
    "syscall",
    "9:",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "ret",
    ".balign 4096",
    ".popsection",
);

// AAPCS64. Frame in x0. Our frame: x29/x30, x19-x28, d8-d15 (160 bytes); x16 holds the frame until the call,
// x9 (from the static slot) after it.
#[cfg(target_arch = "aarch64")]
std::arch::global_asm!(
    ".pushsection .bss",
    ".p2align 3",
    ".Lunwind_slot: .zero 8",
    ".popsection",
    ".pushsection .text",
    ".globl asmgen_unwind_trampoline",
    ".p2align 4",
    "asmgen_unwind_trampoline:",
    "stp x29, x30, [sp, #-160]!",
    "mov x29, sp",
    "stp x19, x20, [sp, #16]",
    "stp x21, x22, [sp, #32]",
    "stp x23, x24, [sp, #48]",
    "stp x25, x26, [sp, #64]",
    "stp x27, x28, [sp, #80]",
    "stp d8, d9, [sp, #96]",
    "stp d10, d11, [sp, #112]",
    "stp d12, d13, [sp, #128]",
    "stp d14, d15, [sp, #144]",
    "adrp x9, .Lunwind_slot",
    "add x9, x9, :lo12:.Lunwind_slot",
    "str x0, [x9]",
    "mov x16, x0",
    "adr x9, .Lunwind_ret",
    "str x9, [x16, #456]",
    "mov x9, sp",
    "str x9, [x16, #448]",
    "ldp x19, x20, [x16, #64]",
    "ldp x21, x22, [x16, #80]",
    "ldp x23, x24, [x16, #96]",
    "ldp x25, x26, [x16, #112]",
    "ldp x27, x28, [x16, #128]",
    "ldr x29, [x16, #144]",
    "ldp d8, d9, [x16, #152]",
    "ldp d10, d11, [x16, #168]",
    "ldp d12, d13, [x16, #184]",
    "ldp d14, d15, [x16, #200]",
    "ldr x17, [x16, #48]",
    "ldp x0, x1, [x16]",
    "ldp x2, x3, [x16, #16]",
    "ldp x4, x5, [x16, #32]",
    "blr x17",
    ".Lunwind_ret:",
    "adrp x9, .Lunwind_slot",
    "add x9, x9, :lo12:.Lunwind_slot",
    "ldr x9, [x9]",
    "mov x10, sp",
    "str x10, [x9, #464]",
    "stp x19, x20, [x9, #256]",
    "stp x21, x22, [x9, #272]",
    "stp x23, x24, [x9, #288]",
    "stp x25, x26, [x9, #304]",
    "stp x27, x28, [x9, #320]",
    "str x29, [x9, #336]",
    "stp d8, d9, [x9, #344]",
    "stp d10, d11, [x9, #360]",
    "stp d12, d13, [x9, #376]",
    "stp d14, d15, [x9, #392]",
    "ldr x10, [x9, #448]",
    "mov sp, x10",
    "ldp d14, d15, [sp, #144]",
    "ldp d12, d13, [sp, #128]",
    "ldp d10, d11, [sp, #112]",
    "ldp d8, d9, [sp, #96]",
    "ldp x27, x28, [sp, #80]",
    "ldp x25, x26, [sp, #64]",
    "ldp x23, x24, [sp, #48]",
    "ldp x21, x22, [sp, #32]",
    "ldp x19, x20, [sp, #16]",
    "ldp x29, x30, [sp], #160",
    "ret",
    // Hand-written functions: correct CFI, then two wrong entries. Each saves x29/x30 and x19/d8, clobbers
    // x19 and d8 and restores them; `_from`/`_to` bracket the instructions whose CFI row is wrong.
    ".globl asmgen_unwind_good",
    "asmgen_unwind_good:",
    ".cfi_startproc",
    "stp x29, x30, [sp, #-32]!",
    ".cfi_adjust_cfa_offset 32",
    ".cfi_rel_offset x29, 0",
    ".cfi_rel_offset x30, 8",
    "str x19, [sp, #16]",
    ".cfi_rel_offset x19, 16",
    "str d8, [sp, #24]",
    ".cfi_rel_offset d8, 24",
    "mov x29, sp",
    "sub sp, sp, #16",
    ".cfi_adjust_cfa_offset 16",
    "mov x19, #0",
    "fmov d8, xzr",
    "add sp, sp, #16",
    ".cfi_adjust_cfa_offset -16",
    "ldr d8, [sp, #24]",
    ".cfi_restore d8",
    "ldr x19, [sp, #16]",
    ".cfi_restore x19",
    "ldp x29, x30, [sp], #32",
    ".cfi_restore x29",
    ".cfi_restore x30",
    ".cfi_adjust_cfa_offset -32",
    "ret",
    ".cfi_endproc",
    // The `sub sp` has no .cfi_adjust_cfa_offset (nor its `add`): the CFA is 16 bytes off until the add.
    ".globl asmgen_unwind_bad_cfa",
    ".globl asmgen_unwind_bad_cfa_from",
    ".globl asmgen_unwind_bad_cfa_to",
    "asmgen_unwind_bad_cfa:",
    ".cfi_startproc",
    "stp x29, x30, [sp, #-32]!",
    ".cfi_adjust_cfa_offset 32",
    ".cfi_rel_offset x29, 0",
    ".cfi_rel_offset x30, 8",
    "str x19, [sp, #16]",
    ".cfi_rel_offset x19, 16",
    "str d8, [sp, #24]",
    ".cfi_rel_offset d8, 24",
    "mov x29, sp",
    "sub sp, sp, #16",
    "asmgen_unwind_bad_cfa_from:",
    "mov x19, #0",
    "fmov d8, xzr",
    "add sp, sp, #16",
    "asmgen_unwind_bad_cfa_to:",
    "ldr d8, [sp, #24]",
    ".cfi_restore d8",
    "ldr x19, [sp, #16]",
    ".cfi_restore x19",
    "ldp x29, x30, [sp], #32",
    ".cfi_restore x29",
    ".cfi_restore x30",
    ".cfi_adjust_cfa_offset -32",
    "ret",
    ".cfi_endproc",
    // x19 is said to be at CFA-8 (x30's slot) instead of CFA-16.
    ".globl asmgen_unwind_bad_slot",
    ".globl asmgen_unwind_bad_slot_from",
    ".globl asmgen_unwind_bad_slot_to",
    "asmgen_unwind_bad_slot:",
    ".cfi_startproc",
    "stp x29, x30, [sp, #-32]!",
    ".cfi_adjust_cfa_offset 32",
    ".cfi_rel_offset x29, 0",
    ".cfi_rel_offset x30, 8",
    "str x19, [sp, #16]",
    ".cfi_rel_offset x19, 8",
    "asmgen_unwind_bad_slot_from:",
    "str d8, [sp, #24]",
    ".cfi_rel_offset d8, 24",
    "mov x29, sp",
    "mov x19, #0",
    "fmov d8, xzr",
    "ldr d8, [sp, #24]",
    ".cfi_restore d8",
    "ldr x19, [sp, #16]",
    ".cfi_restore x19",
    "asmgen_unwind_bad_slot_to:",
    "ldp x29, x30, [sp], #32",
    ".cfi_restore x29",
    ".cfi_restore x30",
    ".cfi_adjust_cfa_offset -32",
    "ret",
    ".cfi_endproc",
    ".popsection",
    // The patcher, alone on its page (so that it never makes its own code writable): x0 address, x1 the
    // bytes, x2 their count, x3 the first page, x4 the length of the pages. mprotect read-write, copy,
    // mprotect read-execute, synchronise the instruction cache. Returns 0 or -errno.
    ".pushsection .text.asmgen_unwind_poke, \"ax\", %progbits",
    ".p2align 12",
    ".globl asmgen_unwind_poke",
    "asmgen_unwind_poke:",
    "mov x9, x0",
    "mov x10, x1",
    "mov x11, x2",
    "mov x12, x3",
    "mov x13, x4",
    "mov x0, x12",
    "mov x1, x13",
    "mov x2, #3",
    "mov x8, #226",
    "svc #0",
    "cbnz x0, 9f",
    "mov x14, #0",
    "2:",
    "cmp x14, x11",
    "b.hs 3f",
    "ldrb w15, [x10, x14]",
    "strb w15, [x9, x14]",
    "add x14, x14, #1",
    "b 2b",
    "3:",
    "mov x0, x12",
    "mov x1, x13",
    "mov x2, #5",
    "mov x8, #226",
    "svc #0",
    "cbnz x0, 9f",
    "dc cvau, x9",
    "dsb ish",
    "ic ivau, x9",
    "dsb ish",
    "isb",
    "mov x0, #0",
    "9:",
    "ret",
    ".balign 4096",
    ".popsection",
);

// LP64D. Frame in a0. Our frame: ra, s0-s11, fs0-fs11 (208 bytes); t2 holds the frame until the call, t0
// (from the static slot) after it.
#[cfg(target_arch = "riscv64")]
std::arch::global_asm!(
    ".pushsection .bss",
    ".p2align 3",
    ".Lunwind_slot: .zero 8",
    ".popsection",
    ".pushsection .text",
    ".globl asmgen_unwind_trampoline",
    ".p2align 2",
    "asmgen_unwind_trampoline:",
    "addi sp, sp, -208",
    "sd ra, 200(sp)",
    "sd s0, 0(sp)",
    "sd s1, 8(sp)",
    "sd s2, 16(sp)",
    "sd s3, 24(sp)",
    "sd s4, 32(sp)",
    "sd s5, 40(sp)",
    "sd s6, 48(sp)",
    "sd s7, 56(sp)",
    "sd s8, 64(sp)",
    "sd s9, 72(sp)",
    "sd s10, 80(sp)",
    "sd s11, 88(sp)",
    "fsd fs0, 96(sp)",
    "fsd fs1, 104(sp)",
    "fsd fs2, 112(sp)",
    "fsd fs3, 120(sp)",
    "fsd fs4, 128(sp)",
    "fsd fs5, 136(sp)",
    "fsd fs6, 144(sp)",
    "fsd fs7, 152(sp)",
    "fsd fs8, 160(sp)",
    "fsd fs9, 168(sp)",
    "fsd fs10, 176(sp)",
    "fsd fs11, 184(sp)",
    "lla t0, .Lunwind_slot",
    "sd a0, 0(t0)",
    "mv t2, a0",
    "lla t0, .Lunwind_ret",
    "sd t0, 456(t2)",
    "sd sp, 448(t2)",
    "ld s0, 64(t2)",
    "ld s1, 72(t2)",
    "ld s2, 80(t2)",
    "ld s3, 88(t2)",
    "ld s4, 96(t2)",
    "ld s5, 104(t2)",
    "ld s6, 112(t2)",
    "ld s7, 120(t2)",
    "ld s8, 128(t2)",
    "ld s9, 136(t2)",
    "ld s10, 144(t2)",
    "ld s11, 152(t2)",
    "fld fs0, 160(t2)",
    "fld fs1, 168(t2)",
    "fld fs2, 176(t2)",
    "fld fs3, 184(t2)",
    "fld fs4, 192(t2)",
    "fld fs5, 200(t2)",
    "fld fs6, 208(t2)",
    "fld fs7, 216(t2)",
    "fld fs8, 224(t2)",
    "fld fs9, 232(t2)",
    "fld fs10, 240(t2)",
    "fld fs11, 248(t2)",
    "ld t3, 48(t2)",
    "ld a0, 0(t2)",
    "ld a1, 8(t2)",
    "ld a2, 16(t2)",
    "ld a3, 24(t2)",
    "ld a4, 32(t2)",
    "ld a5, 40(t2)",
    "jalr t3",
    ".Lunwind_ret:",
    "lla t0, .Lunwind_slot",
    "ld t0, 0(t0)",
    "sd sp, 464(t0)",
    "sd s0, 256(t0)",
    "sd s1, 264(t0)",
    "sd s2, 272(t0)",
    "sd s3, 280(t0)",
    "sd s4, 288(t0)",
    "sd s5, 296(t0)",
    "sd s6, 304(t0)",
    "sd s7, 312(t0)",
    "sd s8, 320(t0)",
    "sd s9, 328(t0)",
    "sd s10, 336(t0)",
    "sd s11, 344(t0)",
    "fsd fs0, 352(t0)",
    "fsd fs1, 360(t0)",
    "fsd fs2, 368(t0)",
    "fsd fs3, 376(t0)",
    "fsd fs4, 384(t0)",
    "fsd fs5, 392(t0)",
    "fsd fs6, 400(t0)",
    "fsd fs7, 408(t0)",
    "fsd fs8, 416(t0)",
    "fsd fs9, 424(t0)",
    "fsd fs10, 432(t0)",
    "fsd fs11, 440(t0)",
    "ld sp, 448(t0)",
    "ld s0, 0(sp)",
    "ld s1, 8(sp)",
    "ld s2, 16(sp)",
    "ld s3, 24(sp)",
    "ld s4, 32(sp)",
    "ld s5, 40(sp)",
    "ld s6, 48(sp)",
    "ld s7, 56(sp)",
    "ld s8, 64(sp)",
    "ld s9, 72(sp)",
    "ld s10, 80(sp)",
    "ld s11, 88(sp)",
    "fld fs0, 96(sp)",
    "fld fs1, 104(sp)",
    "fld fs2, 112(sp)",
    "fld fs3, 120(sp)",
    "fld fs4, 128(sp)",
    "fld fs5, 136(sp)",
    "fld fs6, 144(sp)",
    "fld fs7, 152(sp)",
    "fld fs8, 160(sp)",
    "fld fs9, 168(sp)",
    "fld fs10, 176(sp)",
    "fld fs11, 184(sp)",
    "ld ra, 200(sp)",
    "addi sp, sp, 208",
    "ret",
    // Hand-written functions: correct CFI, then two wrong entries. Each saves ra, s0 and fs0, clobbers s0
    // and fs0 and restores them; `_from`/`_to` bracket the instructions whose CFI row is wrong.
    ".globl asmgen_unwind_good",
    "asmgen_unwind_good:",
    ".cfi_startproc",
    "addi sp, sp, -32",
    ".cfi_adjust_cfa_offset 32",
    "sd ra, 24(sp)",
    ".cfi_rel_offset ra, 24",
    "sd s0, 16(sp)",
    ".cfi_rel_offset s0, 16",
    "fsd fs0, 8(sp)",
    ".cfi_rel_offset fs0, 8",
    "addi sp, sp, -16",
    ".cfi_adjust_cfa_offset 16",
    "li s0, 0",
    "fmv.d.x fs0, zero",
    "addi sp, sp, 16",
    ".cfi_adjust_cfa_offset -16",
    "fld fs0, 8(sp)",
    ".cfi_restore fs0",
    "ld s0, 16(sp)",
    ".cfi_restore s0",
    "ld ra, 24(sp)",
    ".cfi_restore ra",
    "addi sp, sp, 32",
    ".cfi_adjust_cfa_offset -32",
    "ret",
    ".cfi_endproc",
    // The second `addi sp` has no .cfi_adjust_cfa_offset (nor its inverse): the CFA is 16 bytes off.
    ".globl asmgen_unwind_bad_cfa",
    ".globl asmgen_unwind_bad_cfa_from",
    ".globl asmgen_unwind_bad_cfa_to",
    "asmgen_unwind_bad_cfa:",
    ".cfi_startproc",
    "addi sp, sp, -32",
    ".cfi_adjust_cfa_offset 32",
    "sd ra, 24(sp)",
    ".cfi_rel_offset ra, 24",
    "sd s0, 16(sp)",
    ".cfi_rel_offset s0, 16",
    "fsd fs0, 8(sp)",
    ".cfi_rel_offset fs0, 8",
    "addi sp, sp, -16",
    "asmgen_unwind_bad_cfa_from:",
    "li s0, 0",
    "fmv.d.x fs0, zero",
    "addi sp, sp, 16",
    "asmgen_unwind_bad_cfa_to:",
    "fld fs0, 8(sp)",
    ".cfi_restore fs0",
    "ld s0, 16(sp)",
    ".cfi_restore s0",
    "ld ra, 24(sp)",
    ".cfi_restore ra",
    "addi sp, sp, 32",
    ".cfi_adjust_cfa_offset -32",
    "ret",
    ".cfi_endproc",
    // s0 is said to be at CFA-8 (ra's slot) instead of CFA-16.
    ".globl asmgen_unwind_bad_slot",
    ".globl asmgen_unwind_bad_slot_from",
    ".globl asmgen_unwind_bad_slot_to",
    "asmgen_unwind_bad_slot:",
    ".cfi_startproc",
    "addi sp, sp, -32",
    ".cfi_adjust_cfa_offset 32",
    "sd ra, 24(sp)",
    ".cfi_rel_offset ra, 24",
    "sd s0, 16(sp)",
    ".cfi_rel_offset s0, 24",
    "asmgen_unwind_bad_slot_from:",
    "fsd fs0, 8(sp)",
    ".cfi_rel_offset fs0, 8",
    "li s0, 0",
    "fmv.d.x fs0, zero",
    "fld fs0, 8(sp)",
    ".cfi_restore fs0",
    "ld s0, 16(sp)",
    ".cfi_restore s0",
    "asmgen_unwind_bad_slot_to:",
    "ld ra, 24(sp)",
    ".cfi_restore ra",
    "addi sp, sp, 32",
    ".cfi_adjust_cfa_offset -32",
    "ret",
    ".cfi_endproc",
    ".popsection",
    // The patcher, alone on its page (so that it never makes its own code writable): a0 address, a1 the
    // bytes, a2 their count, a3 the first page, a4 the length of the pages. mprotect read-write, copy,
    // mprotect read-execute, synchronise the instruction cache (fence.i, then riscv_flush_icache for the
    // other harts natively; its result is ignored). Returns 0 or -errno.
    ".pushsection .text.asmgen_unwind_poke, \"ax\", %progbits",
    ".p2align 12",
    ".globl asmgen_unwind_poke",
    "asmgen_unwind_poke:",
    "mv t0, a0",
    "mv t1, a1",
    "mv t2, a2",
    "mv t3, a3",
    "mv t4, a4",
    "mv a0, t3",
    "mv a1, t4",
    "li a2, 3",
    "li a7, 226",
    "ecall",
    "bnez a0, 9f",
    "2:",
    "beqz t2, 3f",
    "lbu t5, 0(t1)",
    "sb t5, 0(t0)",
    "addi t0, t0, 1",
    "addi t1, t1, 1",
    "addi t2, t2, -1",
    "j 2b",
    "3:",
    "mv a0, t3",
    "mv a1, t4",
    "li a2, 5",
    "li a7, 226",
    "ecall",
    "bnez a0, 9f",
    "fence.i",
    "mv a0, t3",
    "add a1, t3, t4",
    "li a2, 0",
    "li a7, 259",
    "ecall",
    "li a0, 0",
    "9:",
    "ret",
    ".balign 4096",
    ".popsection",
);

extern "C" {
    fn asmgen_unwind_trampoline(frame: *mut Frame);
    fn asmgen_unwind_good();
    fn asmgen_unwind_bad_cfa();
    fn asmgen_unwind_bad_cfa_from();
    fn asmgen_unwind_bad_cfa_to();
    fn asmgen_unwind_bad_slot();
    fn asmgen_unwind_bad_slot_from();
    fn asmgen_unwind_bad_slot_to();
    fn asmgen_unwind_poke(addr: *mut u8, bytes: *const u8, len: usize, page: *mut u8, pages_len: usize) -> i64;
}

// ---------------------------------------------------------------------------------------------------------
// The `.eh_frame` of this executable.

/// This executable's `.eh_frame` and its search table, found in memory.
struct EhInfo {
    hdr: gimli::ParsedEhFrameHdr<Slice>,
    frame: EhFrame<Slice>,
    bases: BaseAddresses,
}

/// The `.eh_frame_hdr` (address, length) and the end of the loaded segment that holds it, of the object that
/// contains `anchor`.
fn eh_frame_hdr_of(anchor: usize) -> Option<(usize, usize, usize)> {
    struct Search {
        anchor: usize,
        found: Option<(usize, usize, usize)>,
    }
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> libc::c_int {
        // SAFETY: dl_iterate_phdr passes a valid info; `data` is our `Search`.
        let (info, search) = unsafe { (&*info, &mut *data.cast::<Search>()) };
        // SAFETY: dlpi_phdr points at dlpi_phnum program headers.
        let phdrs = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) };
        let base = info.dlpi_addr as usize;
        let load = |p: &libc::Elf64_Phdr| (base + p.p_vaddr as usize, base + (p.p_vaddr + p.p_memsz) as usize);
        let holds = |addr: usize| {
            phdrs.iter().filter(|p| p.p_type == libc::PT_LOAD).map(load).find(|&(s, e)| s <= addr && addr < e)
        };
        if holds(search.anchor).is_none() {
            return 0;
        }
        if let Some(h) = phdrs.iter().find(|p| p.p_type == libc::PT_GNU_EH_FRAME) {
            let addr = base + h.p_vaddr as usize;
            search.found = holds(addr).map(|(_, end)| (addr, h.p_memsz as usize, end));
        }
        1
    }
    let mut search = Search { anchor, found: None };
    // SAFETY: the callback only reads the headers it is given.
    unsafe { libc::dl_iterate_phdr(Some(each), (&mut search as *mut Search).cast()) };
    search.found
}

fn eh_info() -> &'static EhInfo {
    static EH: OnceLock<EhInfo> = OnceLock::new();
    EH.get_or_init(|| eh_info_at(asmgen_unwind_trampoline as *const () as usize))
}

/// The `.eh_frame` of the loaded object that contains `anchor` (this executable, or a library loaded here).
fn eh_info_at(anchor: usize) -> EhInfo {
    {
        let (hdr_addr, hdr_len, seg_end) =
            eh_frame_hdr_of(anchor).expect("the object has a PT_GNU_EH_FRAME segment (.eh_frame_hdr)");
        // SAFETY: the segment is mapped for the life of the process.
        let hdr_bytes: &'static [u8] = unsafe { std::slice::from_raw_parts(hdr_addr as *const u8, hdr_len) };
        let bases = BaseAddresses::default().set_eh_frame_hdr(hdr_addr as u64);
        let hdr = EhFrameHdr::new(hdr_bytes, LittleEndian).parse(&bases, 8).expect(".eh_frame_hdr parses");
        let frame_addr = match hdr.eh_frame_ptr() {
            gimli::Pointer::Direct(a) => a as usize,
            other => panic!("unexpected .eh_frame pointer {other:?}"),
        };
        assert!(hdr.table().is_some(), ".eh_frame_hdr has a search table");
        // SAFETY: .eh_frame lies in the same loaded segment, which ends at `seg_end`.
        let frame_bytes: &'static [u8] =
            unsafe { std::slice::from_raw_parts(frame_addr as *const u8, seg_end - frame_addr) };
        let bases = bases.set_eh_frame(frame_addr as u64);
        EhInfo { hdr, frame: EhFrame::new(frame_bytes, LittleEndian), bases }
    }
}

/// The FDE that covers `addr`.
fn fde_of(addr: u64) -> Option<Fde> {
    fde_in(eh_info(), addr)
}

/// The FDE of `eh` that covers `addr`.
fn fde_in(eh: &'static EhInfo, addr: u64) -> Option<Fde> {
    let table = eh.hdr.table()?;
    table.fde_for_address(&eh.frame, &eh.bases, addr, EhFrame::cie_from_offset).ok()
}

// ---------------------------------------------------------------------------------------------------------
// The stepper: what the SIGTRAP handler sees.

/// gimli's unwind context with in-line storage: evaluating a CFI program allocates nothing.
struct Inline;
impl UnwindContextStorage<usize> for Inline {
    type Rules = [(Register, RegisterRule<usize>); 64];
    type Stack = [UnwindTableRow<usize, Self>; 4];
}

/// What differs at one instruction.
#[derive(Clone, Copy, Debug, Default)]
struct Failure {
    offset: u32,
    /// What: see [`WHAT_CFA`] etc., or 0..CALLEE_SAVED.len() for a callee-saved register.
    what: u16,
    got: u64,
    want: u64,
}

const WHAT_CFA: u16 = 100;
const WHAT_RA: u16 = 101;
const WHAT_NO_ROW: u16 = 102;
const WHAT_RULE: u16 = 103;
const WHAT_SLOT: u16 = 104;

impl Failure {
    fn describe(&self) -> String {
        let (got, want) = (self.got, self.want);
        match self.what {
            WHAT_CFA => format!("+{:#x}: CFA {got:#x}, caller's sp {want:#x}", self.offset),
            WHAT_RA => format!("+{:#x}: return address {got:#x}, want {want:#x}", self.offset),
            WHAT_NO_ROW => format!("+{:#x}: no CFI row for this address", self.offset),
            WHAT_RULE => format!("+{:#x}: unsupported CFI rule for DWARF register {got}", self.offset),
            WHAT_SLOT => format!("+{:#x}: saved slot {got:#x} outside the stack (sp {want:#x})", self.offset),
            i => format!("+{:#x}: {} {got:#x}, canary {want:#x}", self.offset, CALLEE_SAVED[i as usize].0),
        }
    }
}

const MAX_FAILURES: usize = 32;
/// The longest function the reached-offsets map covers.
const MAX_LEN: usize = 1 << 16;

/// How the handler is reached.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// x86_64: a trap after every instruction while the trap flag is set, and `int3` on the instructions not
    /// yet checked while it is clear.
    TrapFlag,
    /// The instruction at `addr` (of `len` bytes, `orig` its bytes) is a trap.
    Patch { addr: u64, len: usize, orig: [u8; 4] },
}

/// Everything the handler reads and writes, prepared before each call.
struct Stepper {
    ctx: Box<UnwindContext<usize, Inline>>,
    fde: Option<Fde>,
    /// Where the stepped code runs, and its length.
    code: u64,
    len: u64,
    /// The address of the same code in the FDE (the listing function's, for a JIT kernel).
    cfi: u64,
    frame: *const Frame,
    mode: Mode,
    /// Instructions the handler stopped at.
    steps: u64,
    /// Patch mode: whether the patched instruction was reached.
    hit: bool,
    reached: Box<[bool; MAX_LEN]>,
    /// Trap-flag mode: the instruction starts, the function's bytes, and whether breakpoints (`int3`) are
    /// planted on the instructions not yet checked while already checked code runs without the trap flag.
    starts: Box<[bool; MAX_LEN]>,
    orig: Box<[u8; MAX_LEN]>,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    image: Box<[u8; MAX_LEN]>,
    planted: bool,
    failures: [Failure; MAX_FAILURES],
    nfail: usize,
}

static STEPPER: AtomicPtr<Stepper> = AtomicPtr::new(std::ptr::null_mut());
/// One test at a time, from its start: the handler's state and the trampoline's slot are global, and while
/// a page of code is writable no other thread of this binary may run the runtime's code (the listings share
/// their first and last pages with runtime functions).
static LOCK: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

impl Stepper {
    fn fail(&mut self, offset: u64, what: u16, got: u64, want: u64) {
        if self.nfail < MAX_FAILURES {
            self.failures[self.nfail] = Failure { offset: offset as u32, what, got, want };
        }
        self.nfail += 1;
    }

    /// The caller's value of DWARF register `reg` by `row`'s rule, or the failure to record.
    fn value(&self, row: &UnwindTableRow<usize, Inline>, regs: &Regs, cfa: u64, reg: u16) -> Result<u64, (u16, u64)> {
        let rule = row.registers().find(|(r, _)| r.0 == reg).map(|(_, rule)| rule.clone());
        match rule {
            // No rule (gimli's iterator omits it): unchanged, as DWARF unwinders treat callee-saved registers.
            None | Some(RegisterRule::SameValue) => Ok(regs.get(reg)),
            Some(RegisterRule::Offset(n)) => {
                let addr = cfa.wrapping_add(n as u64);
                // SAFETY (of the read below): only an aligned slot between the red zone under the stack
                // pointer and the trampoline's frame above the caller's stack pointer is read.
                // SAFETY (frame): set before the call, alive until it returns.
                let top = unsafe { (*self.frame).sp_at_call } + 512;
                let sp = regs.get(SP);
                if !addr.is_multiple_of(8) || addr < sp.wrapping_sub(128) || addr >= top {
                    return Err((WHAT_SLOT, addr));
                }
                // SAFETY: checked above: within this thread's stack.
                Ok(unsafe { (addr as *const u64).read() })
            }
            Some(RegisterRule::ValOffset(n)) => Ok(cfa.wrapping_add(n as u64)),
            Some(RegisterRule::Register(r)) => Ok(regs.get(r.0)),
            Some(_) => Err((WHAT_RULE, reg as u64)),
        }
    }

    /// Unwinds one frame at `pc` (an address in the stepped code) and compares with the trampoline's frame.
    fn check(&mut self, regs: &Regs, pc: u64) {
        let off = pc - self.code;
        let Some(fde) = self.fde.take() else { return self.fail(off, WHAT_NO_ROW, 0, 0) };
        self.check_with(&fde, regs, off);
        self.fde = Some(fde);
    }

    fn check_with(&mut self, fde: &Fde, regs: &Regs, off: u64) {
        let eh = eh_info();
        let row = match fde.unwind_info_for_address(&eh.frame, &eh.bases, &mut self.ctx, self.cfi + off) {
            Ok(row) => row.clone(),
            Err(_) => return self.fail(off, WHAT_NO_ROW, 0, 0),
        };
        // SAFETY: set before the call, alive until it returns.
        let frame = unsafe { &*self.frame };
        let cfa = match row.cfa() {
            CfaRule::RegisterAndOffset { register, offset } => regs.get(register.0).wrapping_add(*offset as u64),
            CfaRule::Expression(_) => return self.fail(off, WHAT_RULE, 0, 0),
        };
        if cfa != frame.sp_at_call {
            self.fail(off, WHAT_CFA, cfa, frame.sp_at_call);
        }
        let ra = fde.cie().return_address_register().0;
        match self.value(&row, regs, cfa, ra) {
            Ok(v) if v != frame.ret_addr => self.fail(off, WHAT_RA, v, frame.ret_addr),
            Ok(_) => {}
            Err((what, got)) => self.fail(off, what, got, regs.get(SP)),
        }
        for (i, &(_, reg)) in CALLEE_SAVED.iter().enumerate() {
            match self.value(&row, regs, cfa, reg) {
                Ok(v) if v != frame.want[i] => self.fail(off, i as u16, v, frame.want[i]),
                Ok(_) => {}
                Err((what, got)) => self.fail(off, what, got, regs.get(SP)),
            }
        }
    }
}

/// The interrupted registers by DWARF number (x86_64: 0-16, rip at 16; aarch64: x0-x30, sp, v0-v31 at
/// 64-95, their low 64 bits; riscv64: x0-x31, f0-f31 at 32-63).
struct Regs {
    r: [u64; 96],
    pc: u64,
}

impl Regs {
    fn get(&self, reg: u16) -> u64 {
        self.r.get(reg as usize).copied().unwrap_or(0)
    }

    /// Reads the registers of a signal's ucontext.
    ///
    /// # Safety
    /// `uc` is the ucontext a SIGTRAP handler was given.
    #[cfg(target_arch = "x86_64")]
    unsafe fn read(uc: *mut libc::ucontext_t) -> Regs {
        // SAFETY: the caller's.
        let g = unsafe { &(*uc).uc_mcontext.gregs };
        let mut r = [0; 96];
        let order = [
            libc::REG_RAX,
            libc::REG_RDX,
            libc::REG_RCX,
            libc::REG_RBX,
            libc::REG_RSI,
            libc::REG_RDI,
            libc::REG_RBP,
            libc::REG_RSP,
            libc::REG_R8,
            libc::REG_R9,
            libc::REG_R10,
            libc::REG_R11,
            libc::REG_R12,
            libc::REG_R13,
            libc::REG_R14,
            libc::REG_R15,
            libc::REG_RIP,
        ];
        for (dwarf, &reg) in order.iter().enumerate() {
            r[dwarf] = g[reg as usize] as u64;
        }
        Regs { r, pc: g[libc::REG_RIP as usize] as u64 }
    }

    /// Reads the registers of a signal's ucontext (the FP/SIMD registers from its `fpsimd_context` record).
    ///
    /// # Safety
    /// `uc` is the ucontext a SIGTRAP handler was given.
    #[cfg(target_arch = "aarch64")]
    unsafe fn read(uc: *mut libc::ucontext_t) -> Regs {
        // SAFETY: the caller's.
        let m = unsafe { &(*uc).uc_mcontext };
        let mut r = [0; 96];
        r[..31].copy_from_slice(&m.regs);
        r[31] = m.sp;
        // The records of `__reserved` (16-byte aligned after pstate): {magic, size} headers, FPSIMD first.
        let mut rec = (((&m.pstate as *const u64 as usize) + 8 + 15) & !15) as *const u8;
        // SAFETY: the kernel (or qemu) writes a record list ending with a zero magic into `__reserved`.
        unsafe {
            loop {
                let (magic, size) = ((rec as *const u32).read(), (rec as *const u32).add(1).read());
                if magic == 0 || size == 0 {
                    break;
                }
                if magic == 0x4650_8001 {
                    let vregs = rec.add(16) as *const u64;
                    for i in 0..32 {
                        r[64 + i] = vregs.add(2 * i).read();
                    }
                    break;
                }
                rec = rec.add(size as usize);
            }
        }
        Regs { r, pc: m.pc }
    }

    /// Reads the registers of a signal's ucontext.
    ///
    /// # Safety
    /// `uc` is the ucontext a SIGTRAP handler was given.
    #[cfg(target_arch = "riscv64")]
    unsafe fn read(uc: *mut libc::ucontext_t) -> Regs {
        // SAFETY: the caller's; the D extension's state is the union's member on LP64D.
        let (g, f) = unsafe { (&(*uc).uc_mcontext.__gregs, &(*uc).uc_mcontext.__fpregs.__d.__f) };
        let mut r = [0; 96];
        r[1..32].copy_from_slice(&g[1..32]);
        r[32..64].copy_from_slice(f);
        Regs { r, pc: g[0] }
    }
}

/// Sets the interrupted pc (a trap that reports the pc after the trap instruction is moved back to it).
///
/// # Safety
/// `uc` is the ucontext a SIGTRAP handler was given.
unsafe fn set_pc(uc: *mut libc::ucontext_t, pc: u64) {
    // SAFETY: the caller's.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        {
            (*uc).uc_mcontext.gregs[libc::REG_RIP as usize] = pc as i64;
        }
        #[cfg(target_arch = "aarch64")]
        {
            (*uc).uc_mcontext.pc = pc;
        }
        #[cfg(target_arch = "riscv64")]
        {
            (*uc).uc_mcontext.__gregs[0] = pc;
        }
    }
}

/// Writes `bytes` at `addr` in code: the pages made read-write, written, made read-execute again, the
/// instruction cache synchronised.
fn poke(addr: u64, bytes: &[u8]) -> i64 {
    let page = addr & !4095;
    let end = (addr + bytes.len() as u64 + 4095) & !4095;
    // SAFETY: `addr` is inside the code being stepped, which nothing runs while it is patched; the patcher
    // is on a page of its own.
    unsafe { asmgen_unwind_poke(addr as *mut u8, bytes.as_ptr(), bytes.len(), page as *mut u8, (end - page) as usize) }
}

fn abort_with(msg: &str) -> ! {
    // SAFETY: write(2) and abort(3) are async-signal-safe.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        libc::abort()
    }
}

extern "C" fn on_trap(_sig: libc::c_int, _info: *mut libc::siginfo_t, uc: *mut c_void) {
    let uc = uc.cast::<libc::ucontext_t>();
    let p = STEPPER.load(Ordering::Acquire);
    if p.is_null() {
        abort_with("unwind: SIGTRAP with no stepper armed\n");
    }
    // SAFETY: the stepper is armed by the thread this trap interrupted, which does not touch it meanwhile.
    let st = unsafe { &mut *p };
    // SAFETY: `uc` is the handler's ucontext.
    let regs = unsafe { Regs::read(uc) };
    let pc = regs.pc;
    match st.mode {
        #[cfg(target_arch = "x86_64")]
        Mode::TrapFlag => {
            // SAFETY: `uc` is the handler's ucontext; rflags and rip are written back on return.
            let (flags, rip) = unsafe {
                let g = &mut (*uc).uc_mcontext.gregs;
                (&mut *(&mut g[libc::REG_EFL as usize] as *mut i64), &mut *(&mut g[libc::REG_RIP as usize] as *mut i64))
            };
            let inside = |a: u64| a >= st.code && a < st.code + st.len;
            if st.planted {
                // An int3 on an instruction not yet checked: bytes back, check it, step again from it.
                let at = pc.wrapping_sub(1);
                if !inside(at) || !st.starts[(at - st.code) as usize] || st.reached[(at - st.code) as usize] {
                    abort_with("unwind: SIGTRAP away from the planted breakpoints\n");
                }
                st.unplant();
                *rip = at as i64;
                st.steps += 1;
                st.reached[(at - st.code) as usize] = true;
                st.check(&regs, at);
                *flags |= 0x100;
            } else if inside(pc) && !st.reached[(pc - st.code) as usize] {
                st.steps += 1;
                st.reached[(pc - st.code) as usize] = true;
                st.check(&regs, pc);
            } else if inside(pc) {
                // Checked already: run without the trap flag until an instruction not yet checked.
                *flags &= !0x100;
                st.plant();
            } else {
                // Back in the trampoline: stop stepping.
                *flags &= !0x100;
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Mode::TrapFlag => abort_with("unwind: the trap flag is x86_64's\n"),
        Mode::Patch { addr, len, orig } => {
            if pc != addr && pc != addr + len as u64 {
                abort_with("unwind: SIGTRAP away from the patched instruction\n");
            }
            st.steps += 1;
            st.hit = true;
            st.reached[(addr - st.code) as usize] = true;
            st.check(&regs, addr);
            if poke(addr, &orig[..len]) != 0 {
                abort_with("unwind: restoring the patched instruction failed\n");
            }
            // SAFETY: `uc` is the handler's ucontext.
            unsafe { set_pc(uc, addr) };
        }
    }
}

fn install_handler() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        // SAFETY: a plain SA_SIGINFO handler for SIGTRAP, which nothing else in this test binary uses.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_trap as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut sa.sa_mask);
            assert_eq!(libc::sigaction(libc::SIGTRAP, &sa, std::ptr::null_mut()), 0, "sigaction");
        }
    });
}

// ---------------------------------------------------------------------------------------------------------
// Driving: one function (a listing function, or a JIT kernel with its listing function's CFI).

/// A function to step: where it runs, the address its CFI describes, its length.
#[derive(Clone)]
struct Target {
    name: String,
    code: u64,
    cfi: u64,
    len: u64,
    fde: Fde,
}

impl Target {
    /// A linked function: its FDE by its address.
    fn linked(name: &str, entry: u64) -> Target {
        let fde = fde_of(entry).unwrap_or_else(|| panic!("{name} ({entry:#x}) has no FDE in .eh_frame"));
        assert_eq!(fde.initial_address(), entry, "{name}: its FDE starts elsewhere");
        Target { name: name.into(), code: entry, cfi: entry, len: fde.len(), fde }
    }

    /// The code's bytes.
    fn bytes(&self) -> &'static [u8] {
        // SAFETY: the function's code is mapped for the life of the process (JIT kernels included).
        unsafe { std::slice::from_raw_parts(self.code as *const u8, self.len as usize) }
    }

    /// The offsets of its instructions.
    fn boundaries(&self) -> Vec<u64> {
        let bytes = self.bytes();
        let mut out = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            let mut d = iced_x86::Decoder::with_ip(64, bytes, 0, iced_x86::DecoderOptions::NONE);
            while d.can_decode() {
                out.push(d.ip());
                let _ = d.decode();
            }
        }
        #[cfg(target_arch = "aarch64")]
        out.extend((0..bytes.len() as u64).step_by(4));
        #[cfg(target_arch = "riscv64")]
        {
            let mut off = 0;
            while off < bytes.len() {
                out.push(off as u64);
                off += if bytes[off] & 3 == 3 { 4 } else { 2 };
            }
        }
        out
    }
}

/// What stepping one function found, over every call.
#[derive(Default)]
struct Report {
    calls: usize,
    steps: u64,
    failures: Vec<Failure>,
    more_failures: usize,
    /// Instruction offsets no call reached.
    unreached: Vec<u64>,
    /// Callee-saved registers or sp not kept across a call (the trampoline's own check after return).
    broken_calls: Vec<String>,
}

impl Report {
    fn failing_offsets(&self) -> BTreeSet<u64> {
        self.failures.iter().map(|f| f.offset as u64).collect()
    }

    fn summary(&self, name: &str) -> Option<String> {
        if self.failures.is_empty() && self.broken_calls.is_empty() {
            return None;
        }
        let mut lines: Vec<String> = self.failures.iter().take(8).map(Failure::describe).collect();
        if self.failures.len() + self.more_failures > 8 {
            lines.push(format!("... {} failures in all", self.failures.len() + self.more_failures));
        }
        lines.extend(self.broken_calls.iter().cloned());
        Some(format!("{name}:\n  {}", lines.join("\n  ")))
    }
}

/// Calls `t` once through the trampoline with `args` and fresh canaries, stepped as `mode` says; adds what
/// the handler found to `report`. Returns whether the patched instruction was hit (patch mode).
fn stepped_call(st: &mut Stepper, t: &Target, mode: Mode, args: &[u64], rng: &mut Rng, report: &mut Report) -> bool {
    let mut frame = Frame { func: t.code, step: (mode == Mode::TrapFlag) as u64, ..Frame::default() };
    frame.args[..args.len()].copy_from_slice(args);
    for w in &mut frame.want[..CALLEE_SAVED.len()] {
        *w = rng.next_u64();
    }
    st.frame = &frame;
    st.mode = mode;
    st.hit = false;
    st.nfail = 0;
    #[cfg(not(target_arch = "x86_64"))]
    if let Mode::Patch { addr, len, .. } = mode {
        let trap: &[u8] = match len {
            2 => &[0x02, 0x90], // c.ebreak
            #[cfg(target_arch = "riscv64")]
            _ => &[0x73, 0x00, 0x10, 0x00], // ebreak
            #[cfg(target_arch = "aarch64")]
            _ => &[0x00, 0x00, 0x20, 0xd4], // brk #0
        };
        assert_eq!(poke(addr, trap), 0, "patching {}", t.name);
    }
    STEPPER.store(st, Ordering::Release);
    // SAFETY: `frame.func` is a function of the C ABI whose arguments `args` are valid for; the handler
    // restores any patched instruction before it runs.
    unsafe { asmgen_unwind_trampoline(&mut frame) };
    STEPPER.store(std::ptr::null_mut(), Ordering::Release);
    st.unplant();
    #[cfg(not(target_arch = "x86_64"))]
    if let Mode::Patch { addr, len, orig } = mode {
        if !st.hit {
            assert_eq!(poke(addr, &orig[..len]), 0, "unpatching {}", t.name);
        }
    }
    report.calls += 1;
    report.steps += st.steps;
    st.steps = 0;
    let kept = st.nfail.min(MAX_FAILURES);
    report.failures.extend_from_slice(&st.failures[..kept]);
    report.more_failures += st.nfail - kept;
    for (i, (name, _)) in CALLEE_SAVED.iter().enumerate() {
        if frame.got[i] != frame.want[i] {
            report.broken_calls.push(format!("{name} not kept across the call ({args:x?})"));
        }
    }
    if frame.sp_after != frame.sp_at_call {
        report.broken_calls.push(format!("sp {:#x} -> {:#x} across the call", frame.sp_at_call, frame.sp_after));
    }
    st.hit
}

impl Stepper {
    fn new() -> Box<Stepper> {
        install_handler();
        Box::new(Stepper {
            ctx: Box::new(UnwindContext::new_in()),
            fde: None,
            code: 0,
            len: 0,
            cfi: 0,
            frame: std::ptr::null(),
            mode: Mode::TrapFlag,
            steps: 0,
            hit: false,
            reached: vec![false; MAX_LEN].into_boxed_slice().try_into().expect("MAX_LEN"),
            starts: vec![false; MAX_LEN].into_boxed_slice().try_into().expect("MAX_LEN"),
            orig: vec![0; MAX_LEN].into_boxed_slice().try_into().expect("MAX_LEN"),
            image: vec![0; MAX_LEN].into_boxed_slice().try_into().expect("MAX_LEN"),
            planted: false,
            failures: [Failure::default(); MAX_FAILURES],
            nfail: 0,
        })
    }

    /// Arms the stepper for `t`.
    fn target(&mut self, t: &Target) {
        assert!((t.len as usize) < MAX_LEN, "{} is longer than the stepper's map", t.name);
        self.fde = Some(t.fde.clone());
        (self.code, self.cfi, self.len) = (t.code, t.cfi, t.len);
        self.reached[..].fill(false);
        self.starts[..].fill(false);
        for o in t.boundaries() {
            self.starts[o as usize] = true;
        }
        self.orig[..t.len as usize].copy_from_slice(t.bytes());
    }

    /// Trap-flag mode: puts `int3` on every instruction not yet checked (false when there is none).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn plant(&mut self) -> bool {
        let len = self.len as usize;
        self.image[..len].copy_from_slice(&self.orig[..len]);
        let mut any = false;
        for o in 0..len {
            if self.starts[o] && !self.reached[o] {
                self.image[o] = 0xcc;
                any = true;
            }
        }
        if any && poke(self.code, &self.image[..len]) != 0 {
            abort_with("unwind: planting breakpoints failed\n");
        }
        self.planted = any;
        any
    }

    /// Trap-flag mode: the function's own bytes back.
    fn unplant(&mut self) {
        if self.planted && poke(self.code, &self.orig[..self.len as usize]) != 0 {
            abort_with("unwind: removing breakpoints failed\n");
        }
        self.planted = false;
    }
}

/// Steps every instruction of `t`, calling it with `args_for(n)` for the counts of `counts`: with the trap
/// flag, every count; by patching, per instruction the counts in turn (the one that reached the previous
/// instruction first) until one reaches it.
fn step_function(
    st: &mut Stepper,
    t: &Target,
    counts: &[usize],
    args_for: &mut dyn FnMut(usize) -> Vec<u64>,
) -> Report {
    let mut rng = Rng::new(seed());
    let mut report = Report::default();
    st.target(t);
    let offsets = t.boundaries();
    if cfg!(target_arch = "x86_64") {
        for &n in counts {
            if offsets.iter().all(|&o| st.reached[o as usize]) {
                break;
            }
            let args = args_for(n);
            stepped_call(st, t, Mode::TrapFlag, &args, &mut rng, &mut report);
        }
    } else {
        let bytes = t.bytes();
        let mut last = 0;
        for (i, &off) in offsets.iter().enumerate() {
            let len = offsets.get(i + 1).copied().unwrap_or(t.len) as usize - off as usize;
            let mut orig = [0; 4];
            orig[..len].copy_from_slice(&bytes[off as usize..off as usize + len]);
            let mode = Mode::Patch { addr: t.code + off, len, orig };
            let order = std::iter::once(last).chain((0..counts.len()).filter(|&c| c != last));
            for c in order {
                let args = args_for(counts[c]);
                if stepped_call(st, t, mode, &args, &mut rng, &mut report) {
                    last = c;
                    break;
                }
            }
        }
    }
    report.unreached = offsets.into_iter().filter(|&o| !st.reached[o as usize]).collect();
    report
}

/// Added to a CTR kernel's count: the counter block passed is 2 below a carry out of its low 64 bits, so that
/// the kernels' carry paths run too (the harness's random counter almost never gets there).
const NEAR_WRAP: usize = 1 << 20;

/// The counts a kernel of `role` is called with, in the order they are tried: the harness's [`COUNTS`], then
/// every other count up to its buffers' [`MAX_BLOCKS`], for the tails of the wide kernels; CTR kernels also
/// with the counter about to carry ([`NEAR_WRAP`]); hash updates also with [`LONG_HASH_COUNTS`], the batch
/// kernels with [`ZMM_BATCH_COUNT`].
fn counts_of(role: &str) -> Vec<usize> {
    if is_setup(role) {
        return vec![0];
    }
    let mut counts = COUNTS.to_vec();
    counts.extend((0..=MAX_BLOCKS).filter(|n| !COUNTS.contains(n)));
    if role == "ctr" {
        counts.extend((1..=MAX_BLOCKS).map(|n| n + NEAR_WRAP));
    }
    if role.ends_with("_update") {
        // The zmm hash set's 32-block loop, once with a tail and once with its batch of 16.
        counts.extend(LONG_HASH_COUNTS);
    }
    if cfg!(target_arch = "x86_64") && ZMM_BATCH_ROLES.contains(&role) {
        // The zmm SM4 sets' 48-block loop and a one-block tail (CTR also with the counter about to carry).
        counts.push(ZMM_BATCH_COUNT);
        if role == "ctr" {
            counts.push(ZMM_BATCH_COUNT + NEAR_WRAP);
        }
    }
    counts
}

/// The hash update kernels' counts past [`MAX_BLOCKS`] (within the harness's buffers).
const LONG_HASH_COUNTS: [usize; 2] = [33, 48];

/// The roles the zmm SM4 sets run 48 blocks at a time, and the count past [`MAX_BLOCKS`] that reaches their
/// loop (within the harness's buffers).
const ZMM_BATCH_ROLES: [&str; 6] = ["ecb", "ctr", "cbc_dec", "cfb_dec", "gcm_enc", "gcm_dec"];
const ZMM_BATCH_COUNT: usize = 49;

/// The arguments of a `role` kernel for a count of [`counts_of`]; `counter` holds the CTR counter block
/// that is about to carry.
fn args_of(bufs: &mut Buffers, counter: &mut [u8; 16], role: &str, n: usize) -> Vec<u64> {
    let mut args = bufs.args(role, n % NEAR_WRAP);
    if n >= NEAR_WRAP {
        // A big-endian 128-bit counter: any high half, the low half 2^64 - 2.
        counter[..8].copy_from_slice(&0x0123_4567_89ab_cdefu64.to_be_bytes());
        counter[8..].copy_from_slice(&(u64::MAX - 1).to_be_bytes());
        args[4] = counter.as_mut_ptr() as u64;
    }
    args
}

/// Steps every kernel of `targets` (setup kernels of a set first, so that the others get round keys and key
/// tables); returns the failures, one entry per kernel, and prints coverage and cost. The caller holds
/// [`lock`].
fn step_kernels(what: &str, targets: &[(Kernel, Target)]) -> Vec<String> {
    let start = std::time::Instant::now();
    let mut st = Stepper::new();
    let mut bufs = Buffers::new(&mut Rng::new(seed()));
    let mut counter = Box::new([0u8; 16]);
    let (mut failures, mut unreached, mut instructions, mut steps, mut calls) = (Vec::new(), Vec::new(), 0, 0, 0);
    let mut missed = 0;
    let ordered =
        targets.iter().filter(|(k, _)| is_setup(&k.role)).chain(targets.iter().filter(|(k, _)| !is_setup(&k.role)));
    for (k, t) in ordered {
        let report =
            step_function(&mut st, t, &counts_of(&k.role), &mut |n| args_of(&mut bufs, &mut counter, &k.role, n));
        let total = t.boundaries().len();
        instructions += total;
        steps += report.steps;
        calls += report.calls;
        missed += report.unreached.len();
        if !report.unreached.is_empty() {
            unreached.push(format!("{} ({} of {total}): {:x?}", t.name, report.unreached.len(), report.unreached));
        }
        failures.extend(report.summary(&t.name));
    }
    eprintln!(
        "unwind: {what}: {} functions, {} of {instructions} instructions reached and checked ({steps} stops in \
         {calls} calls), {:.1} s",
        targets.len(),
        instructions - missed,
        start.elapsed().as_secs_f64()
    );
    if !unreached.is_empty() {
        eprintln!("unwind: {what}: instructions no count reached:\n  {}", unreached.join("\n  "));
    }
    failures
}

#[test]
fn every_listing_function_unwinds_from_every_instruction() {
    let _guard = lock();
    let (runnable, all) = listing_kernels();
    eprintln!("unwind: {} of {all} listing functions run on this CPU", runnable.len());
    if all == 0 {
        eprintln!("unwind: no listings linked (ASMGEN_NO_ASM or a target without them): nothing to check");
        return;
    }
    let targets: Vec<(Kernel, Target)> =
        runnable.into_iter().map(|k| (k.clone(), Target::linked(&k.name, k.entry as u64))).collect();
    let failures = step_kernels("listing functions", &targets);
    assert!(failures.is_empty(), "wrong unwinding:\n{}", failures.join("\n"));
}

/// The process JIT's kernels have no CFI of their own; where a kernel's bytes equal its listing function's,
/// it is stepped with that function's CFI at equal offsets.
#[test]
fn every_jit_kernel_unwinds_with_its_listing_functions_cfi() {
    let _guard = lock();
    let jit = match asmgen_runtime::jit::Jit::process() {
        Ok(j) => j,
        Err(e) => {
            eprintln!("unwind: no process JIT here ({e}): nothing to check");
            return;
        }
    };
    let listing: Vec<Kernel> = asmgen_runtime::abi_test::kernels()
        .iter()
        .map(|k| Kernel { set: k.set.into(), role: k.role.into(), name: k.symbol.into(), entry: k.entry })
        .collect();
    let mut targets = Vec::new();
    let mut unequal = Vec::new();
    for k in process_jit_kernels(jit) {
        let Some(l) = listing.iter().find(|l| l.name == k.name) else { continue };
        let linked = Target::linked(&l.name, l.entry as u64);
        let t = Target { code: k.entry as u64, ..linked.clone() };
        if same_code(t.bytes(), linked.bytes()) {
            targets.push((k, t));
        } else {
            unequal.push(k.name);
        }
    }
    if !unequal.is_empty() {
        // riscv64: the linked listings are assembled for rv64gc (GNU as compresses), the JIT never compresses.
        eprintln!("unwind: JIT kernels whose code differs from the linked function's (not stepped): {unequal:?}");
    }
    if targets.is_empty() {
        eprintln!("unwind: no JIT kernel equals its linked listing function here: nothing to check");
        return;
    }
    let failures = step_kernels("JIT kernels", &targets);
    assert!(failures.is_empty(), "wrong unwinding:\n{}", failures.join("\n"));
}

/// Whether a JIT kernel's code is its linked listing function's: the same instructions at the same offsets,
/// equal bytes but for the fields that address constants (the JIT puts them after its code, the linker in
/// `.rodata`): x86_64 rip-relative displacements, aarch64 `adrp` immediates and the `add` after one, riscv64
/// `auipc` immediates and the `addi` after one.
fn same_code(jit: &[u8], linked: &[u8]) -> bool {
    if jit.len() != linked.len() {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        use iced_x86::{Decoder, DecoderOptions};
        let mut a = Decoder::with_ip(64, jit, 0, DecoderOptions::NONE);
        let mut b = Decoder::with_ip(64, linked, 0, DecoderOptions::NONE);
        while a.can_decode() {
            let (at, ia, ib) = (a.ip() as usize, a.decode(), b.decode());
            let end = at + ia.len();
            let equal = ia.code() == ib.code()
                && ia.len() == ib.len()
                && (ia.is_ip_rel_memory_operand() || jit[at..end] == linked[at..end]);
            if !equal {
                return false;
            }
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // (mask of a constant-addressing instruction, mask of the instruction after it) by the word's kind.
        #[cfg(target_arch = "aarch64")]
        let masks = |w: u32, prev_addr: bool| match () {
            _ if w & 0x9f00_0000 == 0x9000_0000 => (0x9f00_001f, true),
            _ if prev_addr && w & 0xffc0_0000 == 0x9100_0000 => (!(0xfff << 10), false),
            _ => (u32::MAX, false),
        };
        #[cfg(target_arch = "riscv64")]
        let masks = |w: u32, prev_addr: bool| match () {
            _ if w & 0x7f == 0x17 => (0xfff, true),
            _ if prev_addr && w & 0x707f == 0x13 => (0x000f_ffff, false),
            _ => (u32::MAX, false),
        };
        let mut off = 0;
        let mut prev_addr = false;
        while off < jit.len() {
            let len = if cfg!(target_arch = "riscv64") && jit[off] & 3 != 3 { 2 } else { 4 };
            if off + len > jit.len() {
                return false;
            }
            let word = |b: &[u8]| b[off..off + len].iter().rev().fold(0u32, |w, &x| w << 8 | x as u32);
            let (wa, wb) = (word(jit), word(linked));
            let (mask, addr) = if len == 4 { masks(wa, prev_addr) } else { (u32::MAX, false) };
            if wa & mask != wb & mask {
                return false;
            }
            prev_addr = addr;
            off += len;
        }
        true
    }
}

/// The checker fails where the CFI is wrong, at exactly those instructions, and passes correct CFI.
#[test]
fn hand_written_functions_with_wrong_cfi_are_caught() {
    let _guard = lock();
    let mut st = Stepper::new();
    let step = |st: &mut Stepper, name: &str, f: unsafe extern "C" fn()| {
        let t = Target::linked(name, f as usize as u64);
        let report = step_function(st, &t, &[0], &mut |_| Vec::new());
        assert!(report.unreached.is_empty(), "{name}: unreached {:x?}", report.unreached);
        assert!(report.broken_calls.is_empty(), "{name}: {:?}", report.broken_calls);
        (t, report)
    };
    let (_, good) = step(&mut st, "asmgen_unwind_good", asmgen_unwind_good);
    assert!(good.failures.is_empty(), "correct CFI reported wrong: {:?}", good.summary("asmgen_unwind_good"));
    let bad: [(&str, unsafe extern "C" fn(), unsafe extern "C" fn(), unsafe extern "C" fn(), u16); 2] = [
        (
            "asmgen_unwind_bad_cfa",
            asmgen_unwind_bad_cfa,
            asmgen_unwind_bad_cfa_from,
            asmgen_unwind_bad_cfa_to,
            WHAT_CFA,
        ),
        ("asmgen_unwind_bad_slot", asmgen_unwind_bad_slot, asmgen_unwind_bad_slot_from, asmgen_unwind_bad_slot_to, 0),
    ];
    for (name, f, from, to, what) in bad {
        let (t, report) = step(&mut st, name, f);
        let (from, to) = (from as usize as u64 - t.code, to as usize as u64 - t.code);
        let expected: BTreeSet<u64> = t.boundaries().into_iter().filter(|o| (from..to).contains(o)).collect();
        assert!(!expected.is_empty());
        assert_eq!(report.failing_offsets(), expected, "{name}: {}", report.summary(name).unwrap_or_default());
        // The bad-slot function breaks the first callee-saved register the hand-written code saves.
        let what = if what == 0 { CALLEE_SAVED.iter().position(|r| SAVED_FIRST == r.0).unwrap() as u16 } else { what };
        assert!(
            report.failures.iter().any(|f| f.what == what),
            "{name}: expected a {} failure: {}",
            if what == WHAT_CFA { "CFA" } else { CALLEE_SAVED[what as usize].0 },
            report.summary(name).unwrap_or_default()
        );
        eprintln!("unwind: {name} caught at {:x?}", report.failing_offsets());
    }
}

/// The callee-saved register the bad-slot function describes at the wrong slot.
#[cfg(target_arch = "x86_64")]
const SAVED_FIRST: &str = "r12";
#[cfg(target_arch = "aarch64")]
const SAVED_FIRST: &str = "x19";
#[cfg(target_arch = "riscv64")]
const SAVED_FIRST: &str = "s0";

/// Kernels with stack frames (the test-only `asmgen_tests::frames`; the catalog has none): their listing for this
/// host's Linux target is assembled and linked as a shared library with the C compiler, loaded here, and each
/// function is stepped like a listing function: from every instruction (the probes, the allocation, the
/// over-aligned base's set-up, the body's frame accesses, the freeing) one frame is unwound with the library's
/// `.eh_frame` and must give the caller's stack pointer, return address and callee-saved registers.
#[test]
fn kernels_with_frames_unwind_from_every_instruction() {
    use asmgen_tests::frames::{expected, listing, shapes};
    let _guard = lock();
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx") {
        eprintln!("unwind: no AVX: the frame kernels are not stepped");
        return;
    }
    #[cfg(target_arch = "x86_64")]
    let (arch, text) = {
        let l = listing(asmgen::Abi::SysV, asmgen::Arch::X86_64, asmgen_tests::frames::x86_64);
        (asmgen::Arch::X86_64, gas(asmgen::Target::X86_64_LINUX, &l))
    };
    #[cfg(target_arch = "aarch64")]
    let (arch, text) = {
        let l = listing(asmgen::Abi::Aapcs64, asmgen::Arch::Aarch64, asmgen_tests::frames::aarch64);
        (asmgen::Arch::Aarch64, gas(asmgen::Target::AARCH64_LINUX, &l))
    };
    #[cfg(target_arch = "riscv64")]
    let (arch, text) = {
        let l = listing(asmgen::Abi::Lp64d, asmgen::Arch::Riscv64, asmgen_tests::frames::riscv64);
        (asmgen::Arch::Riscv64, gas(asmgen::Target::RISCV64_LINUX, &l))
    };
    let Some(lib) = shared_library(&text) else { return };
    let mut st = Stepper::new();
    let mut failures = Vec::new();
    for shape in shapes(arch) {
        let name = std::ffi::CString::new(shape.name).unwrap();
        // SAFETY: a symbol lookup in a library loaded for the life of the process.
        let entry = unsafe { libc::dlsym(lib, name.as_ptr()) } as u64;
        assert_ne!(entry, 0, "{} is not in the library", shape.name);
        let eh: &'static EhInfo = Box::leak(Box::new(eh_info_at(entry as usize)));
        let fde = fde_in(eh, entry).unwrap_or_else(|| panic!("{} has no FDE", shape.name));
        assert_eq!(fde.initial_address(), entry);
        let t = Target { name: shape.name.into(), code: entry, cfi: entry, len: fde.len(), fde };
        let mut out = Box::new([0u64; 1]);
        let mut rng = Rng::new(seed());
        let mut args = [0u64; 6];
        for a in &mut args[1..] {
            *a = rng.next_u64();
        }
        args[0] = out.as_mut_ptr() as u64;
        let report = step_function(&mut st, &t, &[0], &mut |_| args.to_vec());
        assert!(report.unreached.is_empty(), "{}: unreached {:x?}", shape.name, report.unreached);
        assert!(report.broken_calls.is_empty(), "{}: {:?}", shape.name, report.broken_calls);
        failures.extend(report.summary(shape.name));
        assert_eq!(out[0], expected(&shape, arch, &args), "{}: the kernel's answer", shape.name);
        eprintln!("unwind: {}: {} instructions stepped", shape.name, t.boundaries().len());
    }
    assert!(failures.is_empty(), "wrong unwinding:\n{}", failures.join("\n"));
}

/// The GNU as listing of `l` for `target`, its functions exported (a library's symbols are looked up by name).
fn gas<I: asmgen::Isa>(target: asmgen::Target, l: &asmgen::Listing<I>) -> String {
    asmgen::emit::gas::listing_with(target, l, "tests/src/frames.rs", asmgen::emit::gas::Visibility::Default)
        .expect("the frame kernels' listing")
}

/// Assembles and links `text` into a shared library with the C compiler (`cc`, or the target's cross compiler
/// when `cc` makes code this process cannot load, as under qemu) and loads it; `None`, with a notice, when no
/// compiler does.
fn shared_library(text: &str) -> Option<*mut c_void> {
    let dir = std::env::temp_dir().join(format!("asmgen-unwind-frames-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("frames.S");
    std::fs::write(&src, text).unwrap();
    let cross = format!("{}-linux-gnu-gcc", std::env::consts::ARCH);
    for (i, cc) in ["cc", cross.as_str()].into_iter().enumerate() {
        let lib = dir.join(format!("frames{i}.so"));
        let built = std::process::Command::new(cc)
            .args(["-shared", "-nostdlib", "-o"])
            .arg(&lib)
            .arg(&src)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !built {
            continue;
        }
        let path = std::ffi::CString::new(lib.to_str().unwrap()).unwrap();
        // SAFETY: the library holds only the frame kernels (no initialisers).
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW) };
        if !handle.is_null() {
            return Some(handle);
        }
    }
    asmgen_tests::tool_missing(&format!("no C compiler (cc, {cross}) links a library this process loads"));
    None
}
