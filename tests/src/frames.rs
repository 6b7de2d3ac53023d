//! Test-only kernels with stack frames ([`asmgen::Builder::frame`]), one per frame shape of [`SHAPES`], for
//! every ISA and ABI: none of the catalog's kernels has a frame, so the ABI, unwinding and SEH tests build
//! these. Each writes a value into slots spread over its frame, reads them back, and stores the sum (with its
//! six arguments) in `out[0]`; [`expected`] computes it. They use callee-saved registers (x86_64 rbx, r12 and
//! xmm6; aarch64 x19, d8; riscv64 s1), so the prologue saves registers and allocates the frame together, and
//! under Win64 their 5th and 6th arguments come from the stack, loaded past the frame.
//!
//! Signature: `void frame_<shape>(uint64_t *out, uint64_t a, uint64_t c, uint64_t p3, uint64_t p4,
//! uint64_t p5)`; slot k holds `a + k * c`.

use asmgen::isa::aarch64::{Aarch64, V as AV, X as AX};
use asmgen::isa::riscv64::{Riscv64, X as RX};
use asmgen::isa::x86_64::{regs::*, X86Feature, Xmm, Ymm, X86_64};
use asmgen::{Abi, Builder, CType, Function, Listing, StackFrame};

/// A frame shape: the function's name, the bytes and the alignment it asks for.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// The function's name.
    pub name: &'static str,
    /// The local storage's size.
    pub bytes: u32,
    /// Its alignment.
    pub align: u32,
}

/// The shapes: a small frame (Win64 `UWOP_ALLOC_SMALL`, up to 128 bytes), a large one (`UWOP_ALLOC_LARGE`), two
/// of 4 KiB or more (probed on Windows: two pages and ten), and two over-aligned ones (ymm and zmm spills:
/// x86_64 and riscv64 only; aarch64 aligns frames to 16).
pub const SHAPES: [Shape; 6] = [
    Shape { name: "frame_small", bytes: 48, align: 8 },
    Shape { name: "frame_large", bytes: 1000, align: 16 },
    Shape { name: "frame_probed", bytes: 8192, align: 16 },
    Shape { name: "frame_pages", bytes: 40000, align: 16 },
    Shape { name: "frame_ymm", bytes: 256, align: 32 },
    Shape { name: "frame_zmm", bytes: 512, align: 64 },
];

/// The offsets of the 8-byte slots a kernel of `shape` writes, below `limit` (an ISA's largest load offset):
/// up to 16 spread over the frame, and its last 8 bytes.
pub fn slots(shape: &Shape, limit: u32) -> Vec<i32> {
    let end = shape.bytes.min(limit) / 8 * 8;
    let stride = (end / 16 / 8 * 8).max(8);
    let mut v: Vec<i32> = (0..end).step_by(stride as usize).take(16).map(|o| o as i32).collect();
    let last = end as i32 - 8;
    if !v.contains(&last) {
        v.push(last);
    }
    v
}

/// The largest slot offset per ISA: x86_64 any, aarch64 `ldr x, [sp, #off]` (32760), riscv64 `ld` (2047).
fn limit(arch: asmgen::Arch) -> u32 {
    match arch {
        asmgen::Arch::X86_64 => u32::MAX,
        asmgen::Arch::Aarch64 => 32768,
        asmgen::Arch::Riscv64 => 2048,
    }
}

/// The shapes an ISA offers (aarch64 has no over-aligned frames).
pub fn shapes(arch: asmgen::Arch) -> Vec<Shape> {
    SHAPES.iter().copied().filter(|s| arch != asmgen::Arch::Aarch64 || s.align <= 16).collect()
}

/// What `frame_<shape>(out, args[1..])` stores in `out[0]`, on `arch`.
pub fn expected(shape: &Shape, arch: asmgen::Arch, args: &[u64; 6]) -> u64 {
    let slots = slots(shape, limit(arch)).len() as u64;
    let mut sum = (0..slots).fold(0u64, |s, k| s.wrapping_add(args[1].wrapping_add(k.wrapping_mul(args[2]))));
    sum = sum.wrapping_add(args[3]).wrapping_add(args[4]).wrapping_add(args[5]);
    if arch == asmgen::Arch::X86_64 {
        // xmm6 round trip (and the ymm spill of the over-aligned shapes).
        sum = sum.wrapping_add(args[1]);
        if shape.align >= 32 {
            sum = sum.wrapping_add(args[1]);
        }
    }
    sum
}

fn params<I: asmgen::Isa>(b: &mut Builder<I>) {
    b.param("out", CType::BytePtr);
    for name in ["a", "c", "p3", "p4", "p5"] {
        b.param(name, CType::U64);
    }
}

/// The x86_64 kernel of `shape` for `abi` (System V or Win64; AVX).
pub fn x86_64(shape: &Shape, abi: Abi) -> Function<X86_64> {
    let mut b = Builder::<X86_64>::new(shape.name, abi, &[X86Feature::Avx]);
    params(&mut b);
    let frame: StackFrame<X86_64> = b.frame(shape.bytes, shape.align);
    b.mov(RBX, RSI).mov(R12, RDX);
    let slots = slots(shape, limit(asmgen::Arch::X86_64));
    for &off in &slots {
        b.mov(frame.at(off), RBX).add(RBX, R12);
    }
    b.mov(RAX, 0);
    for &off in &slots {
        b.mov(R10, frame.at(off)).add(RAX, R10);
    }
    b.add(RAX, RCX).add(RAX, R8).add(RAX, R9);
    // xmm6 (callee-saved under Win64: saved above the frame) through a register.
    b.vmovq(Xmm(6), RSI).vpextrq(R10, Xmm(6), 0).add(RAX, R10);
    if shape.align >= 32 {
        // A ymm spill and an aligned reload (which faults unless the slot is 32-byte aligned), and the base's
        // misalignment, which must be 0.
        b.vmovdqu(frame.at(32), Ymm(6)).vmovdqa(Ymm(1), frame.at(32));
        b.vpextrq(R10, Xmm(1), 0).add(RAX, R10);
        b.lea(R10, frame.at(0)).and(R10, shape.align as i32 - 1).add(RAX, R10);
        b.vzeroupper();
    }
    b.mov(asmgen::isa::x86_64::mem(RDI, 0), RAX);
    b.finish().expect("the x86_64 frame kernel builds")
}

/// The aarch64 kernel of `shape` for `abi` (AAPCS64, Apple's or Windows').
pub fn aarch64(shape: &Shape, abi: Abi) -> Function<Aarch64> {
    let mut b = Builder::<Aarch64>::new(shape.name, abi, &[]);
    params(&mut b);
    let frame = b.frame(shape.bytes, shape.align);
    b.mov(AX(19), AX(1));
    let slots = slots(shape, limit(asmgen::Arch::Aarch64));
    for &off in &slots {
        b.str(AX(19), frame.base(), frame.offset(off)).add(AX(19), AX(19), AX(2));
    }
    b.movz(AX(9), 0);
    for &off in &slots {
        b.ldr(AX(10), frame.base(), frame.offset(off)).add(AX(9), AX(9), AX(10));
    }
    b.add(AX(9), AX(9), AX(3)).add(AX(9), AX(9), AX(4)).add(AX(9), AX(9), AX(5));
    // d8 (callee-saved) spilled to the frame and back.
    b.movi_zero(AV(8));
    b.str(AV(8), frame.base(), frame.offset(0)).ldr(AV(8), frame.base(), frame.offset(0));
    b.str(AX(9), AX(0), 0);
    b.finish().expect("the aarch64 frame kernel builds")
}

/// The riscv64 kernel of `shape` (LP64D).
pub fn riscv64(shape: &Shape, abi: Abi) -> Function<Riscv64> {
    use asmgen::isa::riscv64::mem;
    let mut b = Builder::<Riscv64>::new(shape.name, abi, &[]);
    params(&mut b);
    let frame = b.frame(shape.bytes, shape.align);
    let (s1, t0, t1) = (RX(9), RX(5), RX(6));
    b.addi(s1, RX(11), 0);
    let slots = slots(shape, limit(asmgen::Arch::Riscv64));
    for &off in &slots {
        b.sd(s1, frame.at(off)).add(s1, s1, RX(12));
    }
    b.addi(t0, RX(0), 0);
    for &off in &slots {
        b.ld(t1, frame.at(off)).add(t0, t0, t1);
    }
    b.add(t0, t0, RX(13)).add(t0, t0, RX(14)).add(t0, t0, RX(15));
    if shape.align > 16 {
        // The base's misalignment, which must be 0.
        let base = frame.base_register().expect("an over-aligned frame has a base register");
        b.andi(t1, base, shape.align as i32 - 1).add(t0, t0, t1);
    }
    b.sd(t0, mem(RX(10), 0));
    b.finish().expect("the riscv64 frame kernel builds")
}

/// The listing of every shape's kernel for `abi`, built by `build`.
pub fn listing<I: asmgen::Isa>(abi: Abi, arch: asmgen::Arch, build: impl Fn(&Shape, Abi) -> Function<I>) -> Listing<I> {
    Listing {
        name: "frames".into(),
        title: "test kernels with stack frames".into(),
        functions: shapes(arch).iter().map(|s| build(s, abi)).collect(),
    }
}

/// The kernels of this host's ISA for its Linux ABI, lowered by the JIT's lowering ([`asmgen::lower::lower`])
/// and mapped read-execute: each shape with its entry point. The mapping is never unmapped.
#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
pub fn host_kernels() -> Vec<(Shape, *const ())> {
    #[cfg(target_arch = "x86_64")]
    let (arch, functions) = {
        let arch = asmgen::Arch::X86_64;
        (arch, shapes(arch).iter().map(|s| x86_64(s, Abi::SysV)).collect::<Vec<_>>())
    };
    #[cfg(target_arch = "aarch64")]
    let (arch, functions) = {
        let arch = asmgen::Arch::Aarch64;
        (arch, shapes(arch).iter().map(|s| aarch64(s, Abi::Aapcs64)).collect::<Vec<_>>())
    };
    #[cfg(target_arch = "riscv64")]
    let (arch, functions) = {
        let arch = asmgen::Arch::Riscv64;
        (arch, shapes(arch).iter().map(|s| riscv64(s, Abi::Lp64d)).collect::<Vec<_>>())
    };
    let refs: Vec<_> = functions.iter().collect();
    let image = asmgen::lower::lower(&refs).expect("the frame kernels lower");
    let base = map_executable(&image.bytes);
    shapes(arch)
        .into_iter()
        .zip(&image.symbols)
        .map(|(s, sym)| {
            assert_eq!(sym.name, s.name);
            (s, (base + sym.offset) as *const ())
        })
        .collect()
}

/// Copies `code` into a fresh mapping, makes it read-execute (never writable and executable at once) and
/// synchronises the instruction cache; its address.
#[cfg(target_os = "linux")]
fn map_executable(code: &[u8]) -> usize {
    let len = code.len().div_ceil(4096) * 4096;
    // SAFETY: a fresh anonymous mapping, written within its length, then only made executable.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(p, libc::MAP_FAILED, "mmap failed");
        std::ptr::copy_nonoverlapping(code.as_ptr(), p.cast::<u8>(), code.len());
        assert_eq!(libc::mprotect(p, len, libc::PROT_READ | libc::PROT_EXEC), 0, "mprotect failed");
        sync_icache(p as usize, len);
        p as usize
    }
}

/// Makes the instruction fetch see the bytes written at `[addr, addr + len)`.
#[cfg(target_os = "linux")]
fn sync_icache(addr: usize, len: usize) {
    #[cfg(target_arch = "aarch64")]
    // SAFETY: cache maintenance of mapped, readable memory.
    unsafe {
        for line in (addr..addr + len).step_by(64) {
            std::arch::asm!("dc cvau, {0}", in(reg) line);
        }
        std::arch::asm!("dsb ish");
        for line in (addr..addr + len).step_by(64) {
            std::arch::asm!("ic ivau, {0}", in(reg) line);
        }
        std::arch::asm!("dsb ish", "isb");
    }
    #[cfg(target_arch = "riscv64")]
    // SAFETY: fence.i, then the riscv_flush_icache system call (259) for every hart of the process.
    unsafe {
        std::arch::asm!("fence.i");
        libc::syscall(259, addr, addr + len, 0usize);
    }
    let _ = (addr, len);
}

/// The Win64 kernels, lowered by the JIT's lowering and mapped read-execute with their unwind data
/// ([`asmgen::lower::win64_unwind`]) registered (`RtlAddFunctionTable`), as the runtime's JIT does: each shape
/// with its entry point. Never unmapped.
#[cfg(all(windows, target_arch = "x86_64"))]
pub fn host_kernels() -> Vec<(Shape, *const ())> {
    #[repr(C)]
    struct RuntimeFunction {
        begin: u32,
        end: u32,
        unwind_info: u32,
    }
    #[link(name = "kernel32")]
    extern "system" {
        fn VirtualAlloc(at: *mut u8, len: usize, kind: u32, protect: u32) -> *mut u8;
        fn VirtualProtect(at: *mut u8, len: usize, protect: u32, old: *mut u32) -> i32;
        fn GetCurrentProcess() -> *mut u8;
        fn FlushInstructionCache(process: *mut u8, at: *const u8, len: usize) -> i32;
        fn RtlAddFunctionTable(table: *const RuntimeFunction, count: u32, base: u64) -> u8;
    }
    let arch = asmgen::Arch::X86_64;
    let functions: Vec<_> = shapes(arch).iter().map(|s| x86_64(s, Abi::Win64)).collect();
    let refs: Vec<_> = functions.iter().collect();
    let image = asmgen::lower::lower(&refs).expect("the frame kernels lower");
    let unwind = asmgen::lower::win64_unwind::win64_unwind(&refs, &image).expect("their unwind data");
    let mut bytes = image.bytes.clone();
    bytes.resize(bytes.len().next_multiple_of(4), 0);
    let xdata = bytes.len() as u32;
    bytes.extend_from_slice(&unwind.xdata);
    let table: &'static [RuntimeFunction] = Vec::leak(
        unwind
            .functions
            .iter()
            .map(|&(begin, end, at)| RuntimeFunction { begin, end, unwind_info: xdata + at })
            .collect(),
    );
    // SAFETY: a fresh allocation, written within its length, then only made executable; the table and the
    // code stay for the life of the process.
    let base = unsafe {
        let p = VirtualAlloc(std::ptr::null_mut(), bytes.len(), 0x3000, 0x04);
        assert!(!p.is_null(), "VirtualAlloc failed");
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        let mut old = 0;
        assert_ne!(VirtualProtect(p, bytes.len(), 0x20, &mut old), 0, "VirtualProtect failed");
        FlushInstructionCache(GetCurrentProcess(), p, bytes.len());
        assert_ne!(RtlAddFunctionTable(table.as_ptr(), table.len() as u32, p as u64), 0, "RtlAddFunctionTable failed");
        p as usize
    };
    shapes(arch).into_iter().zip(&image.symbols).map(|(s, sym)| (s, (base + sym.offset) as *const ())).collect()
}

/// The bytes the Win64 kernel of `shape` moves the stack pointer by in its prologue: its pushes, and the one
/// allocation of the frame and the vector save area.
pub fn win64_frame_size(shape: &Shape) -> u64 {
    let f = x86_64(shape, Abi::Win64);
    let pushes = f.frame.saved.iter().filter(|r| matches!(r, asmgen::isa::x86_64::Reg::Gpr(_))).count();
    let vecs = f.frame.saved.len() - pushes;
    8 * pushes as u64 + asmgen::abi::x86_64::alloc(pushes, f.frame.locals.allocation() + 16 * vecs as u32) as u64
}
