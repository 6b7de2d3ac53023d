//! C signatures beyond byte pointers and sizes (issue 26, item 4): a test kernel, written here for each ISA and
//! built for every ABI, takes thirteen parameters (more than any ABI passes in registers, so the last ones are
//! on the stack everywhere), among them a `const uint32_t *`, a `uint32_t *`, `uint32_t`, `int32_t` and `int`
//! values, and returns an `int`. It stores every parameter it receives, as a 64-bit word, into `out` (its third
//! parameter), and returns `key[0] + x`.
//!
//! * Its prototype, Rust declaration and listing comment show the types; its C header compiles (`gcc -std=c99
//!   -pedantic -Werror`).
//! * The stack offsets are the ABIs' (Apple's AAPCS64 packs 32-bit values in 4 bytes, the others take 8-byte
//!   slots; Win64's start above the shadow space).
//! * Its listing assembles for every target: GNU as (Linux, mingw), llvm-mc-19 (macOS, Windows on Arm) and NASM;
//!   on the Linux rows the JIT lowering's bytes equal GNU as's.
//! * The interpreter (`asmgen::sem::interp`) runs it under every ABI (System V, Win64, AAPCS64, Apple's,
//!   Windows on Arm, LP64D): what it stores and returns is checked.
//! * Natively on x86_64 Linux the JIT's code (`asmgen::lower`, mapped W^X) is called from Rust; a C program
//!   compiled with the generated header and linked with the listing calls it (natively on x86_64, under
//!   qemu-user for aarch64 and riscv64 where the cross compilers and qemu are installed, and the Win64 listing
//!   under wine where `WINEPREFIX` names a prefix).
//! * With a stack frame (`Builder::frame`: none, 8 KiB, probed on Windows, and 200 bytes aligned to 64 through
//!   the frame base register where the ISA has one) that `x` goes through, the prologue's stack-parameter loads
//!   reach past what it allocated: checked in the interpreter on every ABI, natively (x86_64 System V JIT), and
//!   the 8 KiB variant's listing assembled for every target (and its JIT bytes compared on the Linux rows).
//!
//! Without a tool, the check that needs it prints a notice and is skipped (with `CI` set it fails).

use asmgen::abi::ArgLoc;
use asmgen::emit::c_header::{self, HeaderSpec};
use asmgen::isa::aarch64::{Aarch64, X};
use asmgen::isa::riscv64::{self, Riscv64};
use asmgen::isa::x86_64::{self, regs::*, X86_64};
use asmgen::sem::interp::{Interp, Program};
use asmgen::sem::{Fault, Memory};
use asmgen::CType::{self, *};
use asmgen::{emit, Abi, Builder, Function, Label, Listing, Target};
use std::path::{Path, PathBuf};
use std::process::Command;

const NAME: &str = "asmgen_sig_test";

/// Whether the external tools run here: on an x86_64 Linux host (under qemu-user or wine, `cargo xtask cross`,
/// only what needs no tool runs: forking them from an emulated process can hang, and they are not there).
const HOST_TOOLS: bool = cfg!(all(target_arch = "x86_64", target_os = "linux"));

/// The parameters, in order.
const PARAMS: [(&str, CType); 13] = [
    ("key", ConstU32Ptr),
    ("x", U32),
    ("out", U64Ptr),
    ("a3", I32),
    ("a4", U64),
    ("a5", Size),
    ("a6", Int),
    ("a7", ConstBytePtr),
    ("a8", U32),
    ("a9", I32),
    ("a10", U64),
    ("a11", Int),
    ("a12", U32Ptr),
];

/// The values passed, but for the pointers (`key`, `out`, `a7`, `a12`), which are buffers' addresses. Their
/// upper 32 bits are what the caller puts into a 32-bit parameter's register or slot where it passes a
/// `u64`: garbage the kernel must not rely on.
const VALUES: [u64; 13] = [
    0,
    0xa5a5_a5a5_7654_3210,
    0,
    0x5a5a_5a5a_ffff_fffb, // -5
    0x1122_3344_5566_7788,
    0x99,
    0x1234_5678_ffff_fff9, // -7
    0,
    0xffff_0000_dead_beef,
    0x0f0f_0f0f_fffe_1dc0, // -123456
    0x0102_0304_0506_0708,
    0x7777_7777_0000_002a, // 42
    0,
];

/// The key's first two words.
const KEY: [u32; 2] = [0x89ab_cdef, 0x0123_4567];

/// What the kernel returns: `key[0] + x`, as a C `int`.
fn expected_ret() -> i32 {
    KEY[0].wrapping_add(VALUES[1] as u32) as i32
}

/// A stack frame a kernel allocates (`Builder::frame(bytes, align)`) and routes `x` through, below what the
/// prologue pushes: the stack parameters' loads must reach past it.
type Locals = Option<(u32, u32)>;

/// The frames the kernels are checked with: none, one probed on Windows (8 KiB), and an over-aligned one
/// (through the frame base register; aarch64 aligns frames to 16 at most).
const LOCALS: [Locals; 3] = [None, Some((8192, 16)), Some((200, 64))];

fn x86_64(abi: Abi) -> Function<X86_64> {
    x86_64_with(abi, None)
}

fn x86_64_with(abi: Abi, locals: Locals) -> Function<X86_64> {
    let mut b = Builder::<X86_64>::new(NAME, abi, &[]);
    b.doc("Stores its parameters into out[0..13], returns key[0] + x.");
    // The first six where System V passes them (the Win64 prologue moves or loads them there); the rest loaded
    // by the prologue, into scratch and callee-saved registers (so the loads come after pushes).
    // An over-aligned frame's base register is r15: rbp instead.
    let last = if locals.is_some_and(|(_, align)| align > 16) { RBP } else { R15 };
    let stack = [R10, R11, RBX, R12, R13, R14, last];
    let regs: Vec<x86_64::Gpr> = (0..PARAMS.len())
        .map(|i| {
            let (name, ty) = PARAMS[i];
            if i < 6 {
                b.param(name, ty)
            } else {
                b.param_in(name, ty, stack[i - 6])
            }
        })
        .collect();
    let ret = b.returns(Int);
    assert_eq!((ret, b.ret_reg()), (RAX, Some(RAX)));
    let out = regs[2];
    for (i, r) in regs.iter().enumerate() {
        b.mov(x86_64::mem(out, 8 * i as i32), *r);
    }
    b.mov(ret, x86_64::mem(regs[0], 0));
    if let Some((bytes, align)) = locals {
        let frame = b.frame(bytes, align);
        b.mov(frame.at(bytes as i32 - 8), regs[1]);
        b.mov(R10, frame.at(bytes as i32 - 8));
        b.add(ret, R10);
    } else {
        b.add(ret, regs[1]);
    }
    b.finish().unwrap()
}

fn aarch64(abi: Abi) -> Function<Aarch64> {
    aarch64_with(abi, None)
}

fn aarch64_with(abi: Abi, locals: Locals) -> Function<Aarch64> {
    let mut b = Builder::<Aarch64>::new(NAME, abi, &[]);
    b.doc("Stores its parameters into out[0..13], returns key[0] + x.");
    let stack = [X(9), X(10), X(19), X(20), X(21)];
    let regs: Vec<X> = (0..PARAMS.len())
        .map(|i| {
            let (name, ty) = PARAMS[i];
            if i < 8 {
                b.param(name, ty)
            } else {
                b.param_in(name, ty, stack[i - 8])
            }
        })
        .collect();
    let ret = b.returns(Int);
    assert_eq!(ret, X(0));
    for (i, r) in regs.iter().enumerate() {
        b.str(*r, regs[2], 8 * i as i32);
    }
    b.ldr(X(11), regs[0], 0);
    if let Some((bytes, align)) = locals {
        let frame = b.frame(bytes, align);
        b.str(regs[1], frame.base(), frame.offset(bytes as i32 - 8));
        b.ldr(X(12), frame.base(), frame.offset(bytes as i32 - 8));
        b.add(ret, X(11), X(12));
    } else {
        b.add(ret, X(11), regs[1]);
    }
    b.finish().unwrap()
}

fn riscv64() -> Function<Riscv64> {
    riscv64_with(None)
}

fn riscv64_with(locals: Locals) -> Function<Riscv64> {
    use riscv64::regs::*;
    let mut b = Builder::<Riscv64>::new(NAME, Abi::Lp64d, &[]);
    b.doc("Stores its parameters into out[0..13], returns key[0] + x.");
    let stack = [T0, T1, S1, S2, S3];
    let regs: Vec<riscv64::X> = (0..PARAMS.len())
        .map(|i| {
            let (name, ty) = PARAMS[i];
            if i < 8 {
                b.param(name, ty)
            } else {
                b.param_in(name, ty, stack[i - 8])
            }
        })
        .collect();
    let ret = b.returns(Int);
    assert_eq!(ret, A0);
    for (i, r) in regs.iter().enumerate() {
        b.sd(*r, riscv64::mem(regs[2], 8 * i as i32));
    }
    b.ld(T2, riscv64::mem(regs[0], 0));
    if let Some((bytes, align)) = locals {
        // Past 2 KiB from the base an `sd`/`ld` offset does not reach: the frame's last word when it does.
        let off = (bytes as i32 - 8).min(2040);
        let frame = b.frame(bytes, align);
        b.sd(regs[1], frame.at(off));
        b.ld(T3, frame.at(off));
        b.add(ret, T2, T3);
    } else {
        b.add(ret, T2, regs[1]);
    }
    // LP64 returns a 32-bit value sign-extended.
    b.slli(ret, ret, 32);
    b.srai(ret, ret, 32);
    b.finish().unwrap()
}

fn listing<I: asmgen::InstructionSet>(f: Function<I>) -> Listing<I> {
    Listing { name: "sig".into(), title: "a test kernel with many parameters".into(), functions: vec![f] }
}

const PROTOTYPE: &str = "int asmgen_sig_test(const uint32_t *key, uint32_t x, uint64_t *out, int32_t a3, uint64_t \
                         a4, size_t a5, int a6, const uint8_t *a7, uint32_t a8, int32_t a9, uint64_t a10, int a11, \
                         uint32_t *a12);";

fn header_of<I: asmgen::Isa>(target: Target, l: &Listing<I>) -> String {
    let origin = asmgen::emit::Origin::project("tests/tests/signatures.rs");
    let spec = HeaderSpec { prefix: "asmgen", origin, sizes: &[], rules: "Test.", notes: "", roles: &[], sets: &[] };
    c_header::header(target, l, &spec)
}

#[test]
fn signatures_print_in_prototypes_listings_headers_and_rust() {
    let f = x86_64(Abi::SysV);
    assert_eq!(f.c_prototype(), PROTOTYPE);
    let l = listing(f);
    let text = emit::listing(Target::X86_64_LINUX, &l, "tests/tests/signatures.rs").unwrap();
    assert!(text.contains(PROTOTYPE), "the listing's comment block has the prototype");
    let rust = emit::rust::declarations(Target::X86_64_LINUX, std::slice::from_ref(&l), &[], "cargo xtask gen");
    let decl = "pub fn asmgen_sig_test(key: *const u32, x: u32, out: *mut u64, a3: i32, a4: u64, a5: usize, a6: i32, \
                a7: *const u8, a8: u32, a9: i32, a10: u64, a11: i32, a12: *mut u32) -> i32;";
    assert!(rust.contains(decl), "{rust}");
    // A void function keeps its old spelling.
    let mut b = Builder::<X86_64>::new("v", Abi::SysV, &[]);
    b.param("p", BytePtr);
    let v = b.finish().unwrap();
    assert_eq!(v.c_prototype(), "void v(uint8_t *p);");
    let rust = emit::rust::declarations(Target::X86_64_LINUX, &[listing(v)], &[], "cargo xtask gen");
    assert!(rust.contains("pub fn v(p: *mut u8);"), "{rust}");
    // The header has the prototype and compiles as C99 and C++.
    let h = header_of(Target::X86_64_LINUX, &l);
    assert!(h.contains(PROTOTYPE));
    if HOST_TOOLS && asmgen_tests::have_all(&["gcc"], "compiling the test kernel's header") {
        let dir = scratch("header");
        let path = dir.join("asmgen_sig.h");
        std::fs::write(&path, h).unwrap();
        let c = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only", "-x", "c"];
        asmgen_tests::run(Command::new("gcc").args(c).arg(&path));
        let cpp = ["-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only", "-x", "c++"];
        asmgen_tests::run(Command::new("gcc").args(cpp).arg(&path));
    }
}

/// Where each ABI passes the parameters (an argument register, or the offset from the entry stack pointer).
#[test]
fn stack_offsets_follow_each_abi() {
    fn offsets<I: asmgen::Isa>(abi: Abi) -> Vec<ArgLoc<I::Gpr>> {
        let mut b = Builder::<I>::new("f", abi, &[]);
        PARAMS.iter().map(|&(n, t)| b.arg(n, t)).collect()
    }
    fn stack<R>(locs: &[ArgLoc<R>]) -> Vec<i32> {
        locs.iter().filter_map(|l| if let ArgLoc::Stack(o) = l { Some(*o) } else { None }).collect()
    }
    // System V: six registers, then 8-byte slots above the return address.
    assert_eq!(stack(&offsets::<X86_64>(Abi::SysV)), [8, 16, 24, 32, 40, 48, 56]);
    // Win64: four registers, then 8-byte slots above the return address and the 32-byte shadow space.
    assert_eq!(stack(&offsets::<X86_64>(Abi::Win64)), [40, 48, 56, 64, 72, 80, 88, 96, 104]);
    // AAPCS64 (Linux, Windows) and LP64D: eight registers, then 8-byte slots from sp.
    for abi in [Abi::Aapcs64, Abi::WinArm64] {
        assert_eq!(stack(&offsets::<Aarch64>(abi)), [0, 8, 16, 24, 32]);
    }
    assert_eq!(stack(&offsets::<Riscv64>(Abi::Lp64d)), [0, 8, 16, 24, 32]);
    // Apple: packed to natural size and alignment: u32 at 0, i32 at 4, u64 at 8, int at 16, a pointer at 24.
    assert_eq!(stack(&offsets::<Aarch64>(Abi::AppleAapcs64)), [0, 4, 8, 16, 24]);
    assert_eq!(offsets::<Aarch64>(Abi::AppleAapcs64)[7], ArgLoc::Reg(X(7)));
}

/// The message of the error `b` fails with.
fn error<I: asmgen::Isa>(b: Builder<I>) -> String {
    match b.finish() {
        Ok(_) => panic!("the function must fail"),
        Err(e) => e.message,
    }
}

/// A parameter on the stack must be declared with `param_in`; `param_in` does not move a register parameter,
/// nor load into another parameter's register.
#[test]
fn stack_parameters_need_a_register_of_their_own() {
    let mut b = Builder::<Aarch64>::new("asmgen_nine", Abi::Aapcs64, &[]);
    (0..9).for_each(|_| _ = b.param("p", U64));
    let Err(err) = b.finish() else { panic!("a 9th parameter read with `param` must fail") };
    assert_eq!(err.function, "asmgen_nine");
    assert!(err.message.contains("on the stack (0 bytes") && err.message.contains("param_in"), "{err}");
    let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
    b.param_in("p", U64, RAX);
    assert!(error(b).contains("declare it with `param`"));
    let mut b = Builder::<X86_64>::new("f", Abi::Win64, &[]);
    (0..6).for_each(|_| _ = b.param("p", U64));
    b.param_in("q", U32, R9);
    assert!(error(b).contains("which another parameter is read in"));
    let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
    (0..6).for_each(|_| _ = b.param("p", U64));
    b.param_in("q", U32, RSP);
    assert!(error(b).contains("stack pointer"));
    let mut b = Builder::<Aarch64>::new("f", Abi::AppleAapcs64, &[]);
    (0..8).for_each(|_| _ = b.param("p", U64));
    b.param_in("q", U32, X(18));
    assert!(error(b).contains("x18, which the AppleAapcs64 ABI reserves"));
    // A callee-saved register loaded from the stack is saved first.
    let f = x86_64(Abi::Win64);
    for r in [RBX, R12, R13, R14, R15, RSI, RDI] {
        assert!(f.frame.saved.contains(&r.into()), "{r:?} is saved");
    }
}

/// Memory that is the process's own (the interpreter reads and writes the test's buffers).
struct Host;

impl Memory for Host {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        // SAFETY: the kernel reads only the key, the buffers and the stack, all alive (see `interpret`).
        unsafe { std::ptr::copy_nonoverlapping(addr as usize as *const u8, out.as_mut_ptr(), out.len()) };
        Ok(())
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        // SAFETY: as for `read`: `out` and the stack.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), addr as usize as *mut u8, data.len()) };
        Ok(())
    }
    fn label(&self, _: &Label) -> Option<u64> {
        None
    }
}

/// Buffers the kernel is given, and the arguments pointing at them.
struct Call {
    key: [u32; 2],
    out: [u64; 13],
    bytes: [u8; 8],
    words: [u32; 2],
}

impl Call {
    fn new() -> Box<Call> {
        Box::new(Call { key: KEY, out: [0; 13], bytes: [0; 8], words: [0; 2] })
    }
    fn args(&mut self) -> [u64; 13] {
        let mut a = VALUES;
        a[0] = self.key.as_ptr() as u64;
        a[2] = self.out.as_mut_ptr() as u64;
        a[7] = self.bytes.as_ptr() as u64;
        a[12] = self.words.as_mut_ptr() as u64;
        a
    }
    /// Checks what the kernel stored: every parameter's value (a 32-bit one in the low half; on riscv64
    /// sign-extended, `sign_extends`), and the returned value.
    fn check(&mut self, what: &str, ret: u64, sign_extends: bool) {
        let args = self.args();
        for (i, &(name, ty)) in PARAMS.iter().enumerate() {
            let (got, want) = (self.out[i], args[i]);
            if ty.bytes() == 8 {
                assert_eq!(got, want, "{what}: parameter {name}");
            } else if sign_extends {
                assert_eq!(got, want as u32 as i32 as i64 as u64, "{what}: parameter {name}, sign-extended");
            } else {
                assert_eq!(got as u32, want as u32, "{what}: parameter {name}");
            }
        }
        assert_eq!(ret as u32 as i32, expected_ret(), "{what}: the return value");
        if sign_extends {
            assert_eq!(ret, expected_ret() as i64 as u64, "{what}: the return value, sign-extended");
        }
    }
}

/// Runs `f` in the interpreter on the call's arguments, the 32-bit values' upper halves filled with garbage
/// (on riscv64 sign-extended, as LP64 passes them); returns the return register.
fn interpret<I: Interp>(f: &Function<I>, call: &mut Call, model: I::Model, ret: impl Fn(&I::State) -> u64) -> u64 {
    let p = Program::new(f);
    let mut args = call.args();
    if I::ARCH == asmgen::Arch::Riscv64 {
        for (a, (_, ty)) in args.iter_mut().zip(PARAMS) {
            if ty.bytes() == 4 {
                *a = *a as u32 as i32 as i64 as u64;
            }
        }
    }
    let mut stack = vec![0u8; 1 << 16];
    // Stack arguments go above `top - 64`: leave room above it.
    let top = ((stack.as_mut_ptr() as u64 + (1 << 15)) & !15) - I::ENTRY_MISALIGN;
    let state = p.setup(&mut Host, &args, top, model);
    let mut host = Host;
    let mut m = I::machine(state, &mut host);
    p.run(&mut m, 10_000, &mut |_, _, _| {}).unwrap_or_else(|e| panic!("{:?}: {e:?}", f.abi));
    ret(I::state_of(&m))
}

#[test]
fn every_abi_receives_and_returns_in_the_interpreter() {
    for abi in [Abi::SysV, Abi::Win64] {
        let mut call = Call::new();
        let ret = interpret(&x86_64(abi), &mut call, (), |s| s.gpr[0]);
        call.check(&format!("x86_64 {abi:?}"), ret, false);
    }
    for abi in [Abi::Aapcs64, Abi::AppleAapcs64, Abi::WinArm64] {
        let mut call = Call::new();
        let ret = interpret(&aarch64(abi), &mut call, (), |s| s.x[0]);
        call.check(&format!("aarch64 {abi:?}"), ret, false);
    }
    let mut call = Call::new();
    let ret = interpret(&riscv64(), &mut call, 128, |s| s.x[10]);
    call.check("riscv64 Lp64d", ret, true);
}

#[test]
fn stack_parameters_load_past_a_stack_frame_in_the_interpreter() {
    for locals in LOCALS {
        for abi in [Abi::SysV, Abi::Win64] {
            let mut call = Call::new();
            let f = x86_64_with(abi, locals);
            assert_eq!(f.frame.locals.bytes, locals.map_or(0, |l| l.0));
            let ret = interpret(&f, &mut call, (), |s| s.gpr[0]);
            call.check(&format!("x86_64 {abi:?} {locals:?}"), ret, false);
        }
        if locals.is_some_and(|(_, align)| align <= 16) || locals.is_none() {
            for abi in [Abi::Aapcs64, Abi::AppleAapcs64, Abi::WinArm64] {
                let mut call = Call::new();
                let ret = interpret(&aarch64_with(abi, locals), &mut call, (), |s| s.x[0]);
                call.check(&format!("aarch64 {abi:?} {locals:?}"), ret, false);
            }
        }
        let mut call = Call::new();
        let ret = interpret(&riscv64_with(locals), &mut call, 128, |s| s.x[10]);
        call.check(&format!("riscv64 Lp64d {locals:?}"), ret, true);
    }
}

/// A scratch folder for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asmgen-signatures-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The test kernel's listing for `target`, written into `dir` (with `ext`).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn write_listing(dir: &Path, target: Target, ext: &str) -> PathBuf {
    write_listing_with(dir, target, ext, None)
}

fn write_listing_with(dir: &Path, target: Target, ext: &str, locals: Locals) -> PathBuf {
    let abi = target.abi;
    let text = match target.arch {
        asmgen::Arch::X86_64 if ext == "asm" => {
            emit::nasm::listing(target, &listing(x86_64_with(abi, locals)), "t").unwrap()
        }
        asmgen::Arch::X86_64 => emit::listing(target, &listing(x86_64_with(abi, locals)), "t").unwrap(),
        asmgen::Arch::Aarch64 => emit::listing(target, &listing(aarch64_with(abi, locals)), "t").unwrap(),
        asmgen::Arch::Riscv64 => emit::listing(target, &listing(riscv64_with(locals)), "t").unwrap(),
    };
    assert!(text.contains(PROTOTYPE), "{target}: the listing shows the prototype");
    let framed = if locals.is_some() { "-frame" } else { "" };
    let path = dir.join(format!("{}{framed}.{ext}", target.dir_name()));
    std::fs::write(&path, text).unwrap();
    path
}

/// Every target's listing assembles; on the Linux rows, the JIT lowering's bytes are GNU as's (on an x86_64
/// Linux host; elsewhere the listings are only emitted).
#[test]
fn every_target_assembles_and_the_jit_agrees() {
    let dir = scratch("assemble");
    let asm: [(Target, &str, &[&str]); 8] = [
        (Target::X86_64_LINUX, "S", &["as"]),
        (Target::AARCH64_LINUX, "S", &["aarch64-linux-gnu-as"]),
        (Target::RISCV64_LINUX, "S", &["riscv64-linux-gnu-as", "-march=rv64g", "-mno-relax"]),
        (Target::X86_64_MACOS, "S", &["llvm-mc-19", "-triple=x86_64-apple-macos", "-filetype=obj"]),
        (Target::AARCH64_MACOS, "S", &["llvm-mc-19", "-triple=arm64-apple-macos", "-filetype=obj"]),
        (Target::X86_64_WINDOWS, "S", &["x86_64-w64-mingw32-as"]),
        (Target::AARCH64_WINDOWS, "S", &["llvm-mc-19", "-triple=aarch64-windows-msvc", "-filetype=obj"]),
        (Target::X86_64_WINDOWS_NASM, "asm", &["nasm", "-f", "win64"]),
    ];
    assert!(Target::GENERATED.iter().all(|t| asm.iter().any(|(a, _, _)| a == t)), "every generated row is here");
    // Without a frame, and with one (probed on Windows) that the stack parameters' loads reach past.
    for (target, ext, tool, locals) in
        asm.into_iter().flat_map(|(t, e, tool)| [(t, e, tool, None), (t, e, tool, LOCALS[1])])
    {
        let src = write_listing_with(&dir, target, ext, locals);
        if !HOST_TOOLS || !asmgen_tests::have_all(&tool[..1], &format!("assembling {target}")) {
            continue;
        }
        let framed = if locals.is_some() { "-frame" } else { "" };
        let obj = dir.join(format!("{}{framed}-{ext}.o", target.dir_name()));
        asmgen_tests::run(Command::new(tool[0]).args(&tool[1..]).arg(&src).arg("-o").arg(&obj));
        let objcopy = match target {
            t if t == Target::X86_64_LINUX => "objcopy",
            t if t == Target::AARCH64_LINUX => "aarch64-linux-gnu-objcopy",
            t if t == Target::RISCV64_LINUX => "riscv64-linux-gnu-objcopy",
            _ => continue,
        };
        let image = match target.arch {
            asmgen::Arch::X86_64 => asmgen::lower::lower(&[&x86_64_with(target.abi, locals)]),
            asmgen::Arch::Aarch64 => asmgen::lower::lower(&[&aarch64_with(target.abi, locals)]),
            asmgen::Arch::Riscv64 => asmgen::lower::lower(&[&riscv64_with(locals)]),
        }
        .unwrap();
        if !asmgen_tests::have_all(&[objcopy], "the JIT comparison") {
            continue;
        }
        let bin = dir.join(format!("{}{framed}.bin", target.dir_name()));
        let section = format!(".text.{NAME}");
        asmgen_tests::run(Command::new(objcopy).args(["-O", "binary", "-j", &section]).arg(&obj).arg(&bin));
        let text = std::fs::read(&bin).unwrap();
        assert_eq!(&image.bytes[..image.code_len], &text[..], "{target}: the JIT's bytes are GNU as's");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The JIT's code of the System V kernel, mapped W^X and called from Rust with thirteen arguments.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn the_jit_kernel_receives_and_returns_natively() {
    type Sig = unsafe extern "C" fn(
        *const u32,
        u32,
        *mut u64,
        i32,
        u64,
        usize,
        i32,
        *const u8,
        u32,
        i32,
        u64,
        i32,
        *mut u32,
    ) -> i32;
    // Without a frame, and with the frames the stack parameters' loads reach past.
    for locals in LOCALS {
        let image = asmgen::lower::lower(&[&x86_64_with(Abi::SysV, locals)]).unwrap();
        assert_eq!(image.symbols[0].offset, 0);
        let exec = asmgen_tests::semantics::Exec::new(&image.bytes);
        // SAFETY: the kernel has this signature, writes only out[0..13] and keeps the ABI (tests/abi.rs's rules).
        let f: Sig = unsafe { std::mem::transmute(exec.at(0)) };
        let mut call = Call::new();
        let a = call.args();
        // SAFETY: `a` points at `call`'s buffers, alive over the call.
        let ret = unsafe {
            f(
                a[0] as *const u32,
                a[1] as u32,
                a[2] as *mut u64,
                a[3] as i32,
                a[4],
                a[5] as usize,
                a[6] as i32,
                a[7] as *const u8,
                a[8] as u32,
                a[9] as i32,
                a[10],
                a[11] as i32,
                a[12] as *mut u32,
            )
        };
        call.check(&format!("the JIT's x86_64 System V code, frame {locals:?}"), ret as u32 as u64, false);
    }
}

/// A C program, compiled with the generated header and linked with the listing, calls the kernel: natively on
/// x86_64 Linux, under qemu-user for aarch64 and riscv64 (C's own calling convention against the kernel's).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn a_c_program_calls_the_listing() {
    let dir = scratch("c");
    let args: Vec<String> = PARAMS
        .iter()
        .zip(VALUES)
        .map(|(&(name, ty), v)| match name {
            "key" => "key".to_string(),
            "out" => "out".to_string(),
            "a7" => "bytes".to_string(),
            "a12" => "words".to_string(),
            _ => format!("({})0x{:x}u", ty.c().trim_end(), if ty.bytes() == 4 { v as u32 as u64 } else { v }),
        })
        .collect();
    let mut checks = String::new();
    for (i, &(name, ty)) in PARAMS.iter().enumerate() {
        let value = match name {
            "key" => "(uint64_t)(uintptr_t)key".to_string(),
            "out" => "(uint64_t)(uintptr_t)out".to_string(),
            "a7" => "(uint64_t)(uintptr_t)bytes".to_string(),
            "a12" => "(uint64_t)(uintptr_t)words".to_string(),
            _ => format!("0x{:x}u", VALUES[i]),
        };
        // A 32-bit value: its low half; on riscv64 all 64 bits, sign-extended (LP64).
        let check = if ty.bytes() == 4 {
            format!(
                "#ifdef __riscv\n  ok &= out[{i}] == (uint64_t)(int64_t)(int32_t)(uint32_t){value};\n#else\n  ok &= \
                 (uint32_t)out[{i}] == (uint32_t){value};\n#endif\n"
            )
        } else {
            format!("  ok &= out[{i}] == {value};\n")
        };
        checks.push_str(&check);
        checks.push_str(&format!(
            "  if (!ok) {{ printf(\"parameter {name} wrong: %llx\\n\", (unsigned long long)out[{i}]); return 1; }}\n"
        ));
    }
    let main = format!(
        "#include <stdio.h>\n#include \"asmgen_sig.h\"\n\nint main(void) {{\n  static const uint32_t key[2] = \
         {{0x{:x}u, 0x{:x}u}};\n  static uint64_t out[13];\n  static uint8_t bytes[8];\n  static uint32_t \
         words[2];\n  int ok = 1;\n  int r = {NAME}({});\n{checks}  if (r != (int)0x{:x}u) {{ printf(\"returned \
         %d\\n\", r); return 1; }}\n  printf(\"ok\\n\");\n  return 0;\n}}\n",
        KEY[0],
        KEY[1],
        args.join(", "),
        expected_ret() as u32,
    );
    std::fs::write(dir.join("main.c"), main).unwrap();
    let mut rows: Vec<(Target, &str, &[&str])> = vec![
        (Target::X86_64_LINUX, "gcc", &[]),
        (Target::AARCH64_LINUX, "aarch64-linux-gnu-gcc", &["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]),
        (Target::RISCV64_LINUX, "riscv64-linux-gnu-gcc", &["qemu-riscv64", "-L", "/usr/riscv64-linux-gnu"]),
    ];
    // Win64 under wine, where a prefix is set up (`cargo xtask cross windows` makes .tools/wine; WINEPREFIX
    // names it).
    if std::env::var_os("WINEPREFIX").is_some() {
        rows.push((Target::X86_64_WINDOWS, "x86_64-w64-mingw32-gcc", &["wine"]));
    } else {
        println!("notice: WINEPREFIX is not set: the x86_64-windows listing is not called from C under wine");
    }
    for (target, cc, runner) in rows {
        let sub = dir.join(target.dir_name());
        std::fs::create_dir_all(&sub).unwrap();
        let src = write_listing(&sub, target, "S");
        let l = match target.arch {
            asmgen::Arch::X86_64 => header_of(target, &listing(x86_64(target.abi))),
            asmgen::Arch::Aarch64 => header_of(target, &listing(aarch64(target.abi))),
            asmgen::Arch::Riscv64 => header_of(target, &listing(riscv64())),
        };
        std::fs::write(sub.join("asmgen_sig.h"), l).unwrap();
        let mut tools = vec![cc];
        tools.extend(runner.first().copied());
        if !asmgen_tests::have_all(&tools, &format!("calling the {target} listing from C")) {
            continue;
        }
        let exe = sub.join(if target.abi == Abi::Win64 { "main.exe" } else { "main" });
        let flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-I"];
        asmgen_tests::run(Command::new(cc).args(flags).arg(&sub).arg(dir.join("main.c")).arg(&src).arg("-o").arg(&exe));
        let mut run = Command::new(runner.first().copied().unwrap_or(exe.to_str().unwrap()));
        if !runner.is_empty() {
            run.args(&runner[1..]).arg(&exe);
        }
        let out = run.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.trim() == "ok",
            "{target}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// `uint64_t f(uint32_t x)` returning `x` zero-extended (`Builder::zero_extend32`), per ISA.
fn widen_x86_64() -> Function<X86_64> {
    let mut b = Builder::<X86_64>::new("asmgen_widen", Abi::SysV, &[]);
    let x = b.param("x", U32);
    let ret = b.returns(U64);
    b.mov(ret, x).zero_extend32(ret);
    b.finish().unwrap()
}

/// Runs a one-parameter function in the interpreter; returns what `ret` reads from the final state.
fn interpret_one<I: Interp>(f: &Function<I>, arg: u64, model: I::Model, ret: impl Fn(&I::State) -> u64) -> u64 {
    let p = Program::new(f);
    let mut stack = vec![0u8; 1 << 12];
    let top = ((stack.as_mut_ptr() as u64 + (1 << 11)) & !15) - I::ENTRY_MISALIGN;
    let state = p.setup(&mut Host, &[arg], top, model);
    let mut host = Host;
    let mut m = I::machine(state, &mut host);
    p.run(&mut m, 100, &mut |_, _, _| {}).unwrap();
    ret(I::state_of(&m))
}

/// A `uint32_t` whose register's upper half holds garbage (riscv64: the sign-extension LP64 gives it) comes
/// out zero-extended.
#[test]
fn zero_extend32_clears_the_upper_half() {
    let garbage = 0xdead_beef_8765_4321;
    assert_eq!(interpret_one(&widen_x86_64(), garbage, (), |s| s.gpr[0]), 0x8765_4321);
    let mut b = Builder::<Aarch64>::new("asmgen_widen", Abi::Aapcs64, &[]);
    let x = b.param("x", U32);
    assert_eq!(b.returns(U64), x);
    b.zero_extend32(x);
    assert_eq!(interpret_one(&b.finish().unwrap(), garbage, (), |s| s.x[0]), 0x8765_4321);
    let mut b = Builder::<Riscv64>::new("asmgen_widen", Abi::Lp64d, &[]);
    let x = b.param("x", U32);
    assert_eq!(b.returns(U64), x);
    b.zero_extend32(x);
    let sign_extended = 0xffff_ffff_8765_4321;
    assert_eq!(interpret_one(&b.finish().unwrap(), sign_extended, 128, |s| s.x[10]), 0x8765_4321);
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let image = asmgen::lower::lower(&[&widen_x86_64()]).unwrap();
        let exec = asmgen_tests::semantics::Exec::new(&image.bytes);
        // SAFETY: the function takes one integer argument and returns one, touching no memory. Declared with a
        // `u64` parameter, so that the register's upper half is the garbage given.
        let f: unsafe extern "C" fn(u64) -> u64 = unsafe { std::mem::transmute(exec.at(0)) };
        // SAFETY: as above.
        assert_eq!(unsafe { f(garbage) }, 0x8765_4321);
    }
}
