//! Callee-saved canaries: every kernel this CPU runs (the linked listings' functions of the generated set
//! table, the process JIT's kernels and its fixed-size ones) is called through a trampoline written here, per
//! architecture, that fills every callee-saved register with random values, passes the kernel its real
//! arguments (valid buffers for its role: round keys from the set's key schedule, a key table from the set's
//! init kernel, lengths 0, 1 and a few blocks), and on return records the callee-saved registers, the stack
//! pointer and the control state, which must be unchanged:
//!
//! * x86_64 (System V): rbx, rbp, r12-r15; rsp; MXCSR; the direction flag clear; and no dirty upper ymm
//!   state: `xgetbv` with ecx = 1 (XINUSE, where CPUID.(0Dh,1):EAX[2] says it exists) must show bit 2 (the
//!   AVX state component) clear. The trampoline runs `vzeroupper` before the call and checks a function that
//!   does nothing first: where XINUSE still reports bit 2 after that (it may over-report), the ymm check is
//!   skipped and the test says so.
//! * x86_64 Windows (Microsoft x64): rbx, rbp, rdi, rsi, r12-r15 and xmm6-xmm15 (all 128 bits); rsp, MXCSR,
//!   the direction flag and XINUSE as above; and nothing written below rsp: the kernel runs on a private
//!   stack filled with a pattern (the trampoline passes the 5th and 6th arguments above the 32-byte shadow
//!   space), and every byte below the lowest address its frame declares (entry rsp minus the pushes and the
//!   allocation of its unwind data, read with `RtlLookupFunctionEntry` and the `UNWIND_INFO` codes) must
//!   still hold the pattern. The JIT registers its images' unwind data (`RtlAddFunctionTable`), so its
//!   kernels are bounded the same way; for every listing and JIT kernel the frame the unwind data declares is
//!   checked to agree with the prologue's instructions (`endbr64`, `push`, `sub rsp, imm` decoded). Runs
//!   under wine (`cargo xtask cross windows`).
//! * aarch64 (AAPCS64): x19-x29, d8-d15; sp; FPCR.
//! * riscv64 (LP64D): s0-s11, fs0-fs11; sp; the rounding mode `frm` of fcsr; tp and gp.
//!
//! The trampoline keeps its frame's address in a static slot (calls are serialised by a mutex), not in a
//! register or on the stack, so a wrong stack pointer after return is reported rather than followed; it
//! restores its own stack pointer and control state before returning to Rust. `the_trampoline_catches_
//! broken_functions` proves each check can fail with tiny functions written here that break one rule each.
//! The same test runs natively, under qemu and under wine (`cargo xtask cross`).
#![cfg(any(
    all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")),
    all(windows, target_arch = "x86_64")
))]

use asmgen_tests::kernel_calls::{fixed_size_jit_kernels, listing_kernels, process_jit_kernels, seed, sweep, Kernel};
use asmgen_tests::Rng;
use std::mem::offset_of;
use std::sync::Mutex;

/// What the trampoline reads and writes; the offsets are spelled as numbers in the assembly below and checked
/// here.
#[repr(C)]
#[derive(Default)]
struct Frame {
    /// The six integer arguments.
    args: [u64; 6],
    /// The function to call.
    func: u64,
    /// x86_64: nonzero to read XINUSE (`xgetbv` with ecx = 1) before and after the call.
    xinuse: u64,
    /// The values loaded into the callee-saved registers (order: [`CALLEE_SAVED`]).
    want: [u64; 24],
    /// The callee-saved registers after the call.
    got: [u64; 24],
    /// Before the call: stack pointer, control register (MXCSR, FPCR, fcsr), then x86_64 rflags and XINUSE,
    /// riscv64 tp and gp.
    before: [u64; 4],
    /// The same after the call.
    after: [u64; 4],
    /// Win64: the values loaded into xmm6-xmm15 (two words each, low first).
    want_xmm: [u64; 20],
    /// Win64: xmm6-xmm15 after the call.
    got_xmm: [u64; 20],
    /// Win64: the top (16-byte aligned) of the private stack the kernel is called on.
    stack: u64,
    /// Win64: the trampoline's own stack pointer while the kernel runs on the private stack.
    saved_sp: u64,
}

const _: () = {
    assert!(offset_of!(Frame, func) == 48);
    assert!(offset_of!(Frame, xinuse) == 56);
    assert!(offset_of!(Frame, want) == 64);
    assert!(offset_of!(Frame, got) == 256);
    assert!(offset_of!(Frame, before) == 448);
    assert!(offset_of!(Frame, after) == 480);
    assert!(offset_of!(Frame, want_xmm) == 512);
    assert!(offset_of!(Frame, got_xmm) == 672);
    assert!(offset_of!(Frame, stack) == 832);
    assert!(offset_of!(Frame, saved_sp) == 840);
    assert!(std::mem::size_of::<Frame>() == 848);
};

#[cfg(all(target_arch = "x86_64", not(windows)))]
const CALLEE_SAVED: &[&str] = &["rbx", "rbp", "r12", "r13", "r14", "r15"];
/// Win64: the integer callee-saved registers; xmm6-xmm15 are in [`Frame::want_xmm`].
#[cfg(all(target_arch = "x86_64", windows))]
const CALLEE_SAVED: &[&str] = &["rbx", "rbp", "rdi", "rsi", "r12", "r13", "r14", "r15"];
#[cfg(target_arch = "aarch64")]
const CALLEE_SAVED: &[&str] = &[
    "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "d8", "d9", "d10", "d11", "d12",
    "d13", "d14", "d15",
];
#[cfg(target_arch = "riscv64")]
const CALLEE_SAVED: &[&str] = &[
    "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "fs0", "fs1", "fs2", "fs3", "fs4", "fs5",
    "fs6", "fs7", "fs8", "fs9", "fs10", "fs11",
];

// System V x86_64. Frame in rdi. Our own callee-saved registers are pushed (6 pushes and 8 bytes keep the
// call 16-byte aligned); r11 holds the frame until the call, the slot after it.
#[cfg(all(target_arch = "x86_64", not(windows)))]
std::arch::global_asm!(
    ".pushsection .bss",
    ".p2align 3",
    ".Labi_slot: .zero 8",
    ".popsection",
    ".pushsection .text",
    ".globl asmgen_abi_trampoline",
    ".p2align 4",
    "asmgen_abi_trampoline:",
    "push rbp",
    "push rbx",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    "sub rsp, 8",
    "mov [rip + .Labi_slot], rdi",
    "mov r11, rdi",
    "cld",
    "cmp qword ptr [r11 + 56], 0",
    "je 2f",
    "vzeroupper",
    "mov ecx, 1",
    "xgetbv",
    "shl rdx, 32",
    "or rax, rdx",
    "mov [r11 + 472], rax",
    "2:",
    "mov [r11 + 448], rsp",
    "stmxcsr [r11 + 456]",
    "pushfq",
    "pop qword ptr [r11 + 464]",
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
    "call qword ptr [r11 + 48]",
    "mov r11, [rip + .Labi_slot]",
    "mov [r11 + 480], rsp",
    "pushfq",
    "pop qword ptr [r11 + 496]",
    "stmxcsr [r11 + 488]",
    "mov [r11 + 256], rbx",
    "mov [r11 + 264], rbp",
    "mov [r11 + 272], r12",
    "mov [r11 + 280], r13",
    "mov [r11 + 288], r14",
    "mov [r11 + 296], r15",
    "cmp qword ptr [r11 + 56], 0",
    "je 3f",
    "mov ecx, 1",
    "xgetbv",
    "shl rdx, 32",
    "or rax, rdx",
    "mov [r11 + 504], rax",
    "vzeroupper",
    "3:",
    "mov rsp, [r11 + 448]",
    "cld",
    "ldmxcsr [r11 + 456]",
    "add rsp, 8",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
    // The broken functions: each breaks one rule.
    ".globl asmgen_abi_noop",
    "asmgen_abi_noop: ret",
    ".globl asmgen_abi_broken_reg",
    "asmgen_abi_broken_reg: xor ebx, ebx",
    "ret",
    ".globl asmgen_abi_broken_sp",
    "asmgen_abi_broken_sp: pop rax",
    "sub rsp, 16",
    "jmp rax",
    ".globl asmgen_abi_broken_ctl",
    "asmgen_abi_broken_ctl: sub rsp, 8",
    "stmxcsr [rsp]",
    "or dword ptr [rsp], 0x6000",
    "ldmxcsr [rsp]",
    "add rsp, 8",
    "ret",
    ".globl asmgen_abi_broken_df",
    "asmgen_abi_broken_df: std",
    "ret",
    ".globl asmgen_abi_broken_ymm",
    "asmgen_abi_broken_ymm: vpcmpeqd xmm1, xmm1, xmm1",
    "vinsertf128 ymm1, ymm1, xmm1, 1",
    "ret",
    ".popsection",
);

/// Win64: the trampoline's frame while a kernel runs (the static slot of the other architectures).
#[cfg(all(target_arch = "x86_64", windows))]
static mut WIN64_SLOT: u64 = 0;

// Microsoft x64. Frame in rcx. Our own callee-saved registers: 8 pushes, then 168 bytes for xmm6-xmm15 (keeps
// rsp 16-byte aligned). The kernel is called on the private stack (`Frame::stack`): 32 bytes of shadow space
// and the 5th and 6th arguments above it, rsp 16-byte aligned at the call. r11 holds the frame until the
// call, the slot after it; our stack pointer comes back from the frame before anything is pushed.
#[cfg(all(target_arch = "x86_64", windows))]
std::arch::global_asm!(
    ".globl asmgen_abi_trampoline",
    ".p2align 4",
    "asmgen_abi_trampoline:",
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
    "mov [r11 + 840], rsp",
    "cld",
    "cmp qword ptr [r11 + 56], 0",
    "je 2f",
    "vzeroupper",
    "mov ecx, 1",
    "xgetbv",
    "shl rdx, 32",
    "or rax, rdx",
    "mov [r11 + 472], rax",
    "2:",
    "stmxcsr [r11 + 456]",
    "pushfq",
    "pop qword ptr [r11 + 464]",
    "mov rsp, [r11 + 832]",
    "sub rsp, 48",
    "mov rax, [r11 + 32]",
    "mov [rsp + 32], rax",
    "mov rax, [r11 + 40]",
    "mov [rsp + 40], rax",
    "mov [r11 + 448], rsp",
    "mov rbx, [r11 + 64]",
    "mov rbp, [r11 + 72]",
    "mov rdi, [r11 + 80]",
    "mov rsi, [r11 + 88]",
    "mov r12, [r11 + 96]",
    "mov r13, [r11 + 104]",
    "mov r14, [r11 + 112]",
    "mov r15, [r11 + 120]",
    "movdqu xmm6, [r11 + 512]",
    "movdqu xmm7, [r11 + 528]",
    "movdqu xmm8, [r11 + 544]",
    "movdqu xmm9, [r11 + 560]",
    "movdqu xmm10, [r11 + 576]",
    "movdqu xmm11, [r11 + 592]",
    "movdqu xmm12, [r11 + 608]",
    "movdqu xmm13, [r11 + 624]",
    "movdqu xmm14, [r11 + 640]",
    "movdqu xmm15, [r11 + 656]",
    "mov rcx, [r11]",
    "mov rdx, [r11 + 8]",
    "mov r8, [r11 + 16]",
    "mov r9, [r11 + 24]",
    "call qword ptr [r11 + 48]",
    "mov r11, [rip + {slot}]",
    "mov [r11 + 480], rsp",
    "mov rsp, [r11 + 840]",
    "pushfq",
    "pop qword ptr [r11 + 496]",
    "stmxcsr [r11 + 488]",
    "mov [r11 + 256], rbx",
    "mov [r11 + 264], rbp",
    "mov [r11 + 272], rdi",
    "mov [r11 + 280], rsi",
    "mov [r11 + 288], r12",
    "mov [r11 + 296], r13",
    "mov [r11 + 304], r14",
    "mov [r11 + 312], r15",
    "movdqu [r11 + 672], xmm6",
    "movdqu [r11 + 688], xmm7",
    "movdqu [r11 + 704], xmm8",
    "movdqu [r11 + 720], xmm9",
    "movdqu [r11 + 736], xmm10",
    "movdqu [r11 + 752], xmm11",
    "movdqu [r11 + 768], xmm12",
    "movdqu [r11 + 784], xmm13",
    "movdqu [r11 + 800], xmm14",
    "movdqu [r11 + 816], xmm15",
    "cmp qword ptr [r11 + 56], 0",
    "je 3f",
    "mov ecx, 1",
    "xgetbv",
    "shl rdx, 32",
    "or rax, rdx",
    "mov [r11 + 504], rax",
    "vzeroupper",
    "3:",
    "cld",
    "ldmxcsr [r11 + 456]",
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
    // The broken functions: each breaks one rule (none has unwind data: leaf functions that may not move rsp
    // or write below it; the MXCSR one stores into its shadow space).
    ".globl asmgen_abi_noop",
    "asmgen_abi_noop: ret",
    ".globl asmgen_abi_broken_reg",
    "asmgen_abi_broken_reg: xor ebx, ebx",
    "ret",
    ".globl asmgen_abi_broken_rdi",
    "asmgen_abi_broken_rdi: xor edi, edi",
    "ret",
    ".globl asmgen_abi_broken_rsi",
    "asmgen_abi_broken_rsi: inc rsi",
    "ret",
    ".globl asmgen_abi_broken_xmm6",
    "asmgen_abi_broken_xmm6: xorps xmm6, xmm6",
    "ret",
    ".globl asmgen_abi_broken_xmm15",
    "asmgen_abi_broken_xmm15: vpsrldq xmm15, xmm15, 8",
    "ret",
    ".globl asmgen_abi_broken_sp",
    "asmgen_abi_broken_sp: pop rax",
    "sub rsp, 16",
    "jmp rax",
    ".globl asmgen_abi_broken_below",
    "asmgen_abi_broken_below: mov [rsp - 24], rax",
    "ret",
    ".globl asmgen_abi_broken_ctl",
    "asmgen_abi_broken_ctl: stmxcsr [rsp + 8]",
    "or dword ptr [rsp + 8], 0x6000",
    "ldmxcsr [rsp + 8]",
    "ret",
    ".globl asmgen_abi_broken_df",
    "asmgen_abi_broken_df: std",
    "ret",
    ".globl asmgen_abi_broken_ymm",
    "asmgen_abi_broken_ymm: vpcmpeqd xmm1, xmm1, xmm1",
    "vinsertf128 ymm1, ymm1, xmm1, 1",
    "ret",
    slot = sym WIN64_SLOT,
);

// AAPCS64. Frame in x0. Our frame: x29/x30, x19-x28, d8-d15 (160 bytes); x16 holds the frame until the call,
// x9 (from the slot) after it.
#[cfg(target_arch = "aarch64")]
std::arch::global_asm!(
    ".pushsection .bss",
    ".p2align 3",
    ".Labi_slot: .zero 8",
    ".popsection",
    ".pushsection .text",
    ".globl asmgen_abi_trampoline",
    ".p2align 4",
    "asmgen_abi_trampoline:",
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
    "adrp x9, .Labi_slot",
    "add x9, x9, :lo12:.Labi_slot",
    "str x0, [x9]",
    "mov x16, x0",
    "mov x9, sp",
    "str x9, [x16, #448]",
    "mrs x9, fpcr",
    "str x9, [x16, #456]",
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
    "adrp x9, .Labi_slot",
    "add x9, x9, :lo12:.Labi_slot",
    "ldr x9, [x9]",
    "mov x10, sp",
    "str x10, [x9, #480]",
    "mrs x10, fpcr",
    "str x10, [x9, #488]",
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
    "ldr x10, [x9, #456]",
    "msr fpcr, x10",
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
    ".globl asmgen_abi_noop",
    "asmgen_abi_noop: ret",
    ".globl asmgen_abi_broken_reg",
    "asmgen_abi_broken_reg: mov x19, #0",
    "ret",
    ".globl asmgen_abi_broken_freg",
    "asmgen_abi_broken_freg: fmov d8, xzr",
    "ret",
    ".globl asmgen_abi_broken_sp",
    "asmgen_abi_broken_sp: sub sp, sp, #16",
    "ret",
    ".globl asmgen_abi_broken_ctl",
    "asmgen_abi_broken_ctl: mrs x9, fpcr",
    "eor x9, x9, #0x400000",
    "msr fpcr, x9",
    "ret",
    ".popsection",
);

// LP64D. Frame in a0. Our frame: ra, s0-s11, fs0-fs11 (208 bytes); t2 holds the frame until the call, t0
// (from the slot) after it.
#[cfg(target_arch = "riscv64")]
std::arch::global_asm!(
    ".pushsection .bss",
    ".p2align 3",
    ".Labi_slot: .zero 8",
    ".popsection",
    ".pushsection .text",
    ".globl asmgen_abi_trampoline",
    ".p2align 2",
    "asmgen_abi_trampoline:",
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
    "lla t0, .Labi_slot",
    "sd a0, 0(t0)",
    "mv t2, a0",
    "sd sp, 448(t2)",
    "csrr t1, fcsr",
    "sd t1, 456(t2)",
    "sd tp, 464(t2)",
    "sd gp, 472(t2)",
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
    "lla t0, .Labi_slot",
    "ld t0, 0(t0)",
    "sd sp, 480(t0)",
    "csrr t1, fcsr",
    "sd t1, 488(t0)",
    "sd tp, 496(t0)",
    "sd gp, 504(t0)",
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
    "ld t1, 456(t0)",
    "csrw fcsr, t1",
    "ld tp, 464(t0)",
    "ld gp, 472(t0)",
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
    ".globl asmgen_abi_noop",
    "asmgen_abi_noop: ret",
    ".globl asmgen_abi_broken_reg",
    "asmgen_abi_broken_reg: li s1, 0",
    "ret",
    ".globl asmgen_abi_broken_freg",
    "asmgen_abi_broken_freg: fmv.d.x fs0, zero",
    "ret",
    ".globl asmgen_abi_broken_sp",
    "asmgen_abi_broken_sp: addi sp, sp, -16",
    "ret",
    ".globl asmgen_abi_broken_ctl",
    "asmgen_abi_broken_ctl: fsrmi 2",
    "ret",
    ".popsection",
);

extern "C" {
    fn asmgen_abi_trampoline(frame: *mut Frame);
    fn asmgen_abi_noop();
    fn asmgen_abi_broken_reg();
    fn asmgen_abi_broken_sp();
    fn asmgen_abi_broken_ctl();
    #[cfg(target_arch = "x86_64")]
    fn asmgen_abi_broken_df();
    #[cfg(target_arch = "x86_64")]
    fn asmgen_abi_broken_ymm();
    #[cfg(windows)]
    fn asmgen_abi_broken_rdi();
    #[cfg(windows)]
    fn asmgen_abi_broken_rsi();
    #[cfg(windows)]
    fn asmgen_abi_broken_xmm6();
    #[cfg(windows)]
    fn asmgen_abi_broken_xmm15();
    #[cfg(windows)]
    fn asmgen_abi_broken_below();
    #[cfg(not(target_arch = "x86_64"))]
    fn asmgen_abi_broken_freg();
}

/// The trampoline's static slot holds one frame at a time.
static TRAMPOLINE: Mutex<()> = Mutex::new(());

/// Whether XINUSE can be read (`xgetbv` with ecx = 1) and the AVX upper state is checked.
#[cfg(target_arch = "x86_64")]
fn xinuse_readable() -> bool {
    // SAFETY: cpuid leaf 0Dh exists where XSAVE does (`unsafe` until Rust 1.87 made cpuid safe).
    #[allow(unused_unsafe)]
    let leaf = || unsafe { std::arch::x86_64::__cpuid_count(0xd, 1) }.eax;
    is_x86_feature_detected!("avx") && is_x86_feature_detected!("xsave") && leaf() & 4 != 0
}

/// The ymm check: XINUSE readable, and clean after `vzeroupper` and a function that does nothing (XINUSE may
/// over-report; then the check would prove nothing and is skipped, said once).
fn ymm_checked() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static OK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *OK.get_or_init(|| {
            if !xinuse_readable() {
                eprintln!("abi: XINUSE (xgetbv ecx=1) not available: upper ymm state not checked");
                return false;
            }
            let (f, _) = raw_call(asmgen_abi_noop as *const (), &[], true, &mut Rng::new(1));
            let clean = f.before[3] & 4 == 0 && f.after[3] & 4 == 0;
            if !clean {
                eprintln!("abi: XINUSE reports AVX state in use after vzeroupper: upper ymm state not checked");
            }
            clean
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Win64: the size of the private stack the kernel runs on, and the byte it is filled with.
const STACK_BYTES: usize = 64 * 1024;
const STACK_PATTERN: u8 = 0xa5;

/// Calls `f` through the trampoline with `args` and random callee-saved registers; returns the frame and (on
/// Win64) the private stack the call ran on.
fn raw_call(f: *const (), args: &[u64], xinuse: bool, rng: &mut Rng) -> (Frame, Vec<u128>) {
    let mut frame = Frame { func: f as u64, xinuse: xinuse as u64, ..Frame::default() };
    frame.args[..args.len()].copy_from_slice(args);
    for w in frame.want[..CALLEE_SAVED.len()].iter_mut().chain(&mut frame.want_xmm) {
        *w = rng.next_u64();
    }
    let pattern = u128::from_ne_bytes([STACK_PATTERN; 16]);
    let stack = if cfg!(windows) { vec![pattern; STACK_BYTES / 16] } else { Vec::new() };
    frame.stack = stack.as_ptr() as u64 + STACK_BYTES as u64;
    let _guard = TRAMPOLINE.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: the caller passes a function of the C ABI whose arguments `args` are valid for; the trampoline
    // restores everything it changed before it returns; the private stack outlives the call.
    unsafe { asmgen_abi_trampoline(&mut frame) };
    (frame, stack)
}

/// What `f(args)` broke, one line per rule; empty when it kept the ABI.
fn abi_breaks(f: *const (), args: &[u64], rng: &mut Rng) -> Vec<String> {
    let ymm = ymm_checked();
    let (fr, stack) = raw_call(f, args, ymm, rng);
    let mut out = Vec::new();
    for (i, name) in CALLEE_SAVED.iter().enumerate() {
        if fr.want[i] != fr.got[i] {
            out.push(format!("{name} {:#018x} -> {:#018x}", fr.want[i], fr.got[i]));
        }
    }
    if fr.before[0] != fr.after[0] {
        out.push(format!("sp {:#x} -> {:#x}", fr.before[0], fr.after[0]));
    }
    #[cfg(target_arch = "x86_64")]
    {
        if fr.before[1] != fr.after[1] {
            out.push(format!("MXCSR {:#x} -> {:#x}", fr.before[1], fr.after[1]));
        }
        if fr.after[2] & (1 << 10) != 0 {
            out.push("direction flag set".into());
        }
        if ymm && fr.after[3] & 4 != 0 {
            out.push(format!("dirty upper ymm state (XINUSE {:#x})", fr.after[3]));
        }
    }
    #[cfg(windows)]
    out.extend(win64::breaks(f, &fr, &stack));
    let _ = stack;
    #[cfg(target_arch = "aarch64")]
    if fr.before[1] != fr.after[1] {
        out.push(format!("FPCR {:#x} -> {:#x}", fr.before[1], fr.after[1]));
    }
    #[cfg(target_arch = "riscv64")]
    {
        let frm = |fcsr: u64| (fcsr >> 5) & 7;
        if frm(fr.before[1]) != frm(fr.after[1]) {
            out.push(format!("frm {} -> {}", frm(fr.before[1]), frm(fr.after[1])));
        }
        if fr.before[2..] != fr.after[2..] {
            out.push(format!("tp/gp {:x?} -> {:x?}", &fr.before[2..], &fr.after[2..]));
        }
    }
    let _ = ymm;
    out
}

/// Win64 only: xmm6-xmm15, and nothing written below the lowest stack address the function's frame declares.
#[cfg(windows)]
mod win64 {
    use super::{Frame, STACK_PATTERN};

    /// `RUNTIME_FUNCTION`: a function's range and its `UNWIND_INFO`, relative to the image base.
    #[repr(C)]
    struct RuntimeFunction {
        begin: u32,
        end: u32,
        unwind_info: u32,
    }

    #[link(name = "kernel32")]
    extern "system" {
        fn RtlLookupFunctionEntry(pc: u64, image_base: *mut u64, history: *mut u8) -> *const RuntimeFunction;
    }

    /// The bytes the function's registered unwind data says its prologue pushes and allocates (entry rsp minus
    /// the lowest address it may write); `None` where it has no unwind data (code nobody registered).
    pub fn unwind_frame_size(f: *const ()) -> Option<u64> {
        let mut base = 0u64;
        // SAFETY: a lookup in the loaded images' exception directories.
        let rf = unsafe { RtlLookupFunctionEntry(f as u64, &mut base, std::ptr::null_mut()) };
        if rf.is_null() {
            return None;
        }
        // SAFETY: a registered entry points at its UNWIND_INFO in the same image: 4 header bytes, then
        // CountOfCodes 16-bit slots.
        let (flags, slots) = unsafe {
            let info = (base + (*rf).unwind_info as u64) as *const u8;
            let count = *info.add(2) as usize;
            let codes = std::slice::from_raw_parts(info.add(4), 2 * count);
            (*info >> 3, codes.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]]) as u64).collect::<Vec<u64>>())
        };
        assert!(flags & 4 == 0, "chained unwind info: not expected in the listings");
        let (mut size, mut i) = (0, 0);
        while i < slots.len() {
            let (op, info) = ((slots[i] >> 8) & 15, slots[i] >> 12);
            // UWOP_PUSH_NONVOL, ALLOC_LARGE (one or two more slots), ALLOC_SMALL; the saves (SAVE_NONVOL,
            // SAVE_XMM128 and their _FAR forms) take more slots and move nothing.
            let (bytes, used) = match (op, info) {
                (0, _) => (8, 1),
                (1, 0) => (slots[i + 1] * 8, 2),
                (1, _) => (slots[i + 1] | slots[i + 2] << 16, 3),
                (2, _) => (info * 8 + 8, 1),
                (4 | 8, _) => (0, 2),
                (5 | 9, _) => (0, 3),
                _ => panic!("unwind op {op} (frame register or machine frame): not expected in the listings"),
            };
            size += bytes;
            i += used;
        }
        Some(size)
    }

    /// The same read from the code: the bytes pushed and subtracted from rsp by the leading `endbr64`,
    /// `push r64` and `sub rsp, imm` instructions: the bound of code without unwind data, and the check that
    /// the unwind data describes the prologue.
    pub fn prologue_frame_size(f: *const ()) -> u64 {
        use iced_x86::{Code, Decoder, DecoderOptions, Mnemonic, OpKind, Register};
        // SAFETY: every function checked here is longer than 64 bytes or followed by more code in its section.
        let bytes = unsafe { std::slice::from_raw_parts(f.cast::<u8>(), 64) };
        let mut size = 0;
        for ins in Decoder::with_ip(64, bytes, f as u64, DecoderOptions::NONE) {
            let rsp_first =
                ins.op_count() == 2 && ins.op0_kind() == OpKind::Register && ins.op0_register() == Register::RSP;
            match ins.mnemonic() {
                _ if ins.code() == Code::Endbr64 => {}
                Mnemonic::Push if ins.op0_kind() == OpKind::Register => size += 8,
                Mnemonic::Sub if rsp_first && ins.op1_kind() != OpKind::Register => size += ins.immediate(1),
                _ => break,
            }
        }
        size
    }

    /// xmm6-xmm15 changed, and stack bytes below the frame's lowest address changed from the pattern.
    pub fn breaks(f: *const (), fr: &Frame, stack: &[u128]) -> Vec<String> {
        let mut out = Vec::new();
        for i in 0..10 {
            let (want, got) = (&fr.want_xmm[2 * i..2 * i + 2], &fr.got_xmm[2 * i..2 * i + 2]);
            if want != got {
                out.push(format!("xmm{} {want:x?} -> {got:x?}", i + 6));
            }
        }
        let frame = unwind_frame_size(f).unwrap_or_else(|| prologue_frame_size(f));
        let entry_sp = fr.before[0] - 8;
        let start = stack.as_ptr() as u64;
        // SAFETY: the private stack's bytes, read after the call.
        let bytes = unsafe { std::slice::from_raw_parts(stack.as_ptr().cast::<u8>(), 16 * stack.len()) };
        let bound = (entry_sp - frame - start) as usize;
        let written: Vec<usize> = (0..bound).filter(|&i| bytes[i] != STACK_PATTERN).collect();
        if let Some(&lowest) = written.first() {
            let below = entry_sp - (start + lowest as u64);
            out.push(format!(
                "wrote below rsp: {} bytes, the lowest at entry rsp - {below} (its frame declares {frame} bytes)",
                written.len()
            ));
        }
        out
    }
}

/// Win64: the frame each kernel's registered unwind data declares is the one its prologue makes (listing
/// functions through the linker's `.pdata`, JIT kernels through the JIT's `RtlAddFunctionTable`).
fn frames_agree(kernels: &[Kernel]) {
    #[cfg(windows)]
    for k in kernels {
        let (unwind, prologue) = (win64::unwind_frame_size(k.entry), win64::prologue_frame_size(k.entry));
        assert_eq!(unwind, Some(prologue), "{}: unwind data and prologue disagree on the frame", k.name);
    }
    let _ = kernels;
}

/// Calls every kernel through the trampoline; the rules each call broke.
fn check(kernels: &[Kernel]) -> (u64, Vec<String>) {
    let s = seed();
    (s, sweep(kernels, &mut Rng::new(s), |k, args, rng| abi_breaks(k.entry, args, rng)))
}

#[test]
fn every_listing_kernel_keeps_the_abi() {
    let (runnable, all) = listing_kernels();
    eprintln!("abi: {} of {all} listing kernels run on this CPU", runnable.len());
    if all == 0 {
        eprintln!("abi: no listings linked (ASMGEN_NO_ASM or a target without them): nothing to check");
        return;
    }
    frames_agree(&runnable);
    let (s, failures) = check(&runnable);
    assert!(failures.is_empty(), "seed {s}: kernels that broke the ABI:\n{}", failures.join("\n"));
}

#[test]
fn every_jit_kernel_keeps_the_abi() {
    let jit = match asmgen_runtime::jit::Jit::process() {
        Ok(j) => j,
        Err(e) => {
            eprintln!("abi: no process JIT here ({e}): nothing to check");
            return;
        }
    };
    let kernels = process_jit_kernels(jit);
    assert!(!kernels.is_empty(), "the process JIT assembled no kernel");
    eprintln!("abi: {} JIT kernels (sets {:?})", kernels.len(), jit.sets());
    frames_agree(&kernels);
    let (s, failures) = check(&kernels);
    assert!(failures.is_empty(), "seed {s}: JIT kernels that broke the ABI:\n{}", failures.join("\n"));
}

/// The JIT's fixed-size kernels too (not in any listing), key tables and round keys as the sweep leaves them.
#[test]
fn every_fixed_size_jit_kernel_keeps_the_abi() {
    let kernels = fixed_size_jit_kernels();
    eprintln!("abi: {} fixed-size JIT kernels", kernels.len());
    frames_agree(&kernels);
    let (s, failures) = check(&kernels);
    assert!(failures.is_empty(), "seed {s}: fixed-size JIT kernels that broke the ABI:\n{}", failures.join("\n"));
}

#[test]
fn the_trampoline_catches_broken_functions() {
    let mut rng = Rng::new(seed());
    let check = |f: unsafe extern "C" fn(), rng: &mut Rng| abi_breaks(f as *const (), &[], rng);
    assert_eq!(check(asmgen_abi_noop, &mut rng), Vec::<String>::new(), "a function that does nothing");
    let expect = |f: unsafe extern "C" fn(), what: &str, rng: &mut Rng| {
        let broken = check(f, rng);
        assert!(broken.len() == 1 && broken[0].starts_with(what), "expected only {what}, got {broken:?}");
    };
    #[cfg(target_arch = "x86_64")]
    {
        expect(asmgen_abi_broken_reg, "rbx", &mut rng);
        expect(asmgen_abi_broken_sp, "sp", &mut rng);
        expect(asmgen_abi_broken_ctl, "MXCSR", &mut rng);
        expect(asmgen_abi_broken_df, "direction flag", &mut rng);
        if ymm_checked() {
            expect(asmgen_abi_broken_ymm, "dirty upper ymm", &mut rng);
        }
    }
    #[cfg(windows)]
    {
        expect(asmgen_abi_broken_rdi, "rdi", &mut rng);
        expect(asmgen_abi_broken_rsi, "rsi", &mut rng);
        expect(asmgen_abi_broken_xmm6, "xmm6", &mut rng);
        expect(asmgen_abi_broken_xmm15, "xmm15", &mut rng);
        expect(asmgen_abi_broken_below, "wrote below rsp: 8 bytes, the lowest at entry rsp - 24", &mut rng);
    }
    #[cfg(target_arch = "aarch64")]
    {
        expect(asmgen_abi_broken_reg, "x19", &mut rng);
        expect(asmgen_abi_broken_freg, "d8", &mut rng);
        expect(asmgen_abi_broken_sp, "sp", &mut rng);
        expect(asmgen_abi_broken_ctl, "FPCR", &mut rng);
    }
    #[cfg(target_arch = "riscv64")]
    {
        expect(asmgen_abi_broken_reg, "s1", &mut rng);
        expect(asmgen_abi_broken_freg, "fs0", &mut rng);
        expect(asmgen_abi_broken_sp, "sp", &mut rng);
        expect(asmgen_abi_broken_ctl, "frm", &mut rng);
    }
}

/// Kernels with stack frames (the test-only `asmgen_tests::frames`, none in the catalog), lowered for this
/// host's ABI and mapped by the runtime's `JitModule` (on Windows with their unwind data registered): each keeps the callee-saved registers and the stack pointer, and computes
/// its known answer from the slots it wrote across its frame (an over-aligned frame's misaligned base, or a
/// misaligned ymm reload, would change or fault it).
#[test]
fn kernels_with_frames_keep_the_abi() {
    use asmgen_tests::frames::{expected, host_kernels};
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx") {
        eprintln!("abi: no AVX: the frame kernels are not run");
        return;
    }
    let arch = if cfg!(target_arch = "x86_64") {
        asmgen::Arch::X86_64
    } else if cfg!(target_arch = "aarch64") {
        asmgen::Arch::Aarch64
    } else {
        asmgen::Arch::Riscv64
    };
    let s = seed();
    let mut rng = Rng::new(s);
    let mut failures = Vec::new();
    for (shape, entry) in host_kernels() {
        // Win64: the unwind data registered for the kernel declares the frame its prologue makes.
        #[cfg(windows)]
        assert_eq!(
            win64::unwind_frame_size(entry),
            Some(asmgen_tests::frames::win64_frame_size(&shape)),
            "{}: the unwind data's frame",
            shape.name
        );
        for _ in 0..4 {
            let mut out = [0u64; 1];
            let mut args = [0u64; 6];
            for a in &mut args[1..] {
                *a = rng.next_u64();
            }
            args[0] = out.as_mut_ptr() as u64;
            let broken = abi_breaks(entry, &args, &mut rng);
            failures.extend(broken.iter().map(|b| format!("{}: {b}", shape.name)));
            if out[0] != expected(&shape, arch, &args) {
                failures.push(format!("{}: {:#x}, expected {:#x}", shape.name, out[0], expected(&shape, arch, &args)));
            }
        }
    }
    assert!(failures.is_empty(), "seed {s}: frame kernels that broke the ABI or miscomputed:\n{}", failures.join("\n"));
}
