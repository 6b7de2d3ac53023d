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

/// The kernels of this host's ISA for its C ABI, mapped by the runtime's JIT for any function
/// (`asmgen_runtime::jit::JitModule`: read-execute, the instruction cache synchronised, on Windows their unwind
/// data registered): each shape with its entry point. The module is kept for the life of the process. On
/// x86_64 the kernels use AVX: the caller checks that the CPU has it.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64"))]
pub fn host_kernels() -> Vec<(Shape, *const ())> {
    use asmgen_runtime::jit::{host_target, JitModule};
    let target = host_target().expect("a JIT host");
    let abi = target.abi;
    let shapes = shapes(target.arch);
    #[cfg(target_arch = "x86_64")]
    let functions: Vec<_> = shapes.iter().map(|s| x86_64(s, abi)).collect();
    #[cfg(target_arch = "aarch64")]
    let functions: Vec<_> = shapes.iter().map(|s| aarch64(s, abi)).collect();
    #[cfg(target_arch = "riscv64")]
    let functions: Vec<_> = shapes.iter().map(|s| riscv64(s, abi)).collect();
    let module = JitModule::new(&functions).unwrap_or_else(|e| panic!("the frame kernels map: {e}")).leak();
    shapes.into_iter().map(|s| (s, module.entry(s.name).expect("every shape's kernel").cast())).collect()
}

/// The bytes the Win64 kernel of `shape` moves the stack pointer by in its prologue: its pushes, and the one
/// allocation of the frame and the vector save area.
pub fn win64_frame_size(shape: &Shape) -> u64 {
    let f = x86_64(shape, Abi::Win64);
    let pushes = f.frame.saved.iter().filter(|r| matches!(r, asmgen::isa::x86_64::Reg::Gpr(_))).count();
    let vecs = f.frame.saved.len() - pushes;
    8 * pushes as u64 + asmgen::abi::x86_64::alloc(pushes, f.frame.locals.allocation() + 16 * vecs as u32) as u64
}
