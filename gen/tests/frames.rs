//! Stack frames ([`Builder::frame`]): the errors (a body instruction that writes the stack pointer or an
//! over-aligned frame's base register, on every ISA; a frame the ABI cannot give), and the prologue's
//! allocation on every ABI (16-byte aligned stack pointer, the probe of a Windows frame of 4 KiB or more, the
//! vector save area above the frame).

use asmgen::abi::Conventions;
use asmgen::ir::{Cfi, Item};
use asmgen::isa::aarch64::{self as a64, Aarch64};
use asmgen::isa::riscv64::{self as rv, Riscv64};
use asmgen::isa::x86_64::{mem, regs::*, Operand, Xmm, X86_64};
use asmgen::{Abi, Builder, Function, GenError, Isa};

fn build<I: Isa>(abi: Abi, body: impl FnOnce(&mut Builder<I>)) -> Result<Function<I>, GenError> {
    let mut b = Builder::<I>::new("kernel", abi, <I::Feature as asmgen::Feature>::ALL);
    body(&mut b);
    b.finish()
}

/// The error of a function whose body writes the stack pointer: it names the function and the instruction.
fn rejected<I: Isa>(abi: Abi, inst: &str, body: impl FnOnce(&mut Builder<I>)) {
    let e = build::<I>(abi, body).err().unwrap_or_else(|| panic!("{inst} is accepted"));
    assert_eq!(e.function, "kernel");
    let squeezed = e.message.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(squeezed.contains(&format!("`{inst}`")), "{squeezed}");
    assert!(squeezed.contains("use the frame API"), "{squeezed}");
}

#[test]
fn x86_64_body_may_not_write_rsp() {
    rejected::<X86_64>(Abi::SysV, "sub rsp, 64", |b| {
        b.sub(RSP, 64);
    });
    rejected::<X86_64>(Abi::Win64, "add rsp, 8", |b| {
        b.add(RSP, 8);
    });
    rejected::<X86_64>(Abi::SysV, "push rbx", |b| {
        b.push(RBX);
    });
    rejected::<X86_64>(Abi::SysV, "pop rax", |b| {
        b.pop(RAX);
    });
    rejected::<X86_64>(Abi::SysV, "mov rsp, rax", |b| {
        b.mov(RSP, RAX);
    });
    rejected::<X86_64>(Abi::SysV, "lea rsp, qword ptr [rax + 8]", |b| {
        b.lea(RSP, mem(RAX, 8));
    });
    rejected::<X86_64>(Abi::SysV, "and rsp, -32", |b| {
        b.and(RSP, -32);
    });
    // Reading rsp, and memory at rsp, is not writing it.
    build::<X86_64>(Abi::SysV, |b| {
        b.mov(RAX, RSP).cmp(RSP, RAX).mov(RAX, mem(RSP, 8)).mov(mem(RSP, -8), RAX);
    })
    .unwrap();
}

#[test]
fn x86_64_over_aligned_frame_base_is_read_only() {
    rejected::<X86_64>(Abi::SysV, "mov r15, rax", |b| {
        b.frame(64, 32);
        b.mov(R15, RAX);
    });
    let e = build::<X86_64>(Abi::SysV, |b| {
        b.frame(64, 32);
        b.mov(R15, RAX);
    });
    assert!(e.err().unwrap().message.contains("writes r15, the base register of the over-aligned stack frame"));
    let e = build::<X86_64>(Abi::SysV, |b| {
        b.sub(RSP, 8);
    });
    assert!(e.err().unwrap().message.contains("writes the stack pointer,"));
    let f = build::<X86_64>(Abi::SysV, |b| {
        let frame = b.frame(64, 32);
        b.mov(RAX, frame.at(8)).mov(RCX, R15);
    })
    .unwrap();
    assert!(f.frame.saved.contains(&R15.into()), "the base register is saved: {:?}", f.frame.saved);
    // Without an over-aligned frame r15 is an ordinary register.
    build::<X86_64>(Abi::SysV, |b| {
        b.frame(64, 16);
        b.mov(R15, RAX);
    })
    .unwrap();
}

#[test]
fn aarch64_body_may_not_write_sp() {
    use a64::regs::*;
    rejected::<Aarch64>(Abi::Aapcs64, "sub sp, sp, #16", |b| {
        b.sub(SP, SP, 16);
    });
    rejected::<Aarch64>(Abi::WinArm64, "add sp, sp, #16", |b| {
        b.add(SP, SP, 16);
    });
    rejected::<Aarch64>(Abi::Aapcs64, "str x0, [sp, #-16]!", |b| {
        b.str_pre(X0, SP, -16);
    });
    rejected::<Aarch64>(Abi::Aapcs64, "ldr x0, [sp], #16", |b| {
        b.ldr_post(X0, SP, 16);
    });
    rejected::<Aarch64>(Abi::AppleAapcs64, "stp x0, x1, [sp, #-16]!", |b| {
        b.stp_pre(X0, X1, SP, -16);
    });
    rejected::<Aarch64>(Abi::Aapcs64, "ldp x0, x1, [sp], #16", |b| {
        b.ldp_post(X0, X1, SP, 16);
    });
    build::<Aarch64>(Abi::Aapcs64, |b| {
        let frame = b.frame(32, 16);
        b.add(X0, SP, 16).str(X1, frame.base(), frame.offset(8)).ldr(X2, frame.base(), frame.offset(16));
        // Writeback on another base is fine.
        b.ldr_post(X3, X4, 16);
    })
    .unwrap();
}

#[test]
fn riscv64_body_may_not_write_sp() {
    rejected::<Riscv64>(Abi::Lp64d, "addi sp, sp, -16", |b| {
        b.addi(rv::regs::SP, rv::regs::SP, -16);
    });
    rejected::<Riscv64>(Abi::Lp64d, "ld sp, 0(a0)", |b| {
        b.ld(rv::regs::SP, rv::mem(rv::X(10), 0));
    });
    rejected::<Riscv64>(Abi::Lp64d, "addi s11, a0, 0", |b| {
        b.frame(64, 64);
        b.addi(rv::X(27), rv::X(10), 0);
    });
    build::<Riscv64>(Abi::Lp64d, |b| {
        let frame = b.frame(64, 16);
        b.addi(rv::X(10), rv::regs::SP, 16).sd(rv::X(11), frame.at(8));
    })
    .unwrap();
}

#[test]
fn frames_the_abi_cannot_give_are_errors() {
    let e = build::<X86_64>(Abi::SysV, |b| {
        b.frame(64, 16);
        b.frame(64, 16);
    });
    assert!(e.err().unwrap().message.contains("second stack frame"));
    let e = build::<X86_64>(Abi::SysV, |b| {
        b.frame(64, 24);
    });
    assert!(e.err().unwrap().message.contains("not a power of two"));
    let e = build::<X86_64>(Abi::SysV, |b| {
        b.frame(asmgen::abi::MAX_LOCALS + 16, 16);
    });
    assert!(e.err().unwrap().message.contains("over"));
    let e = build::<Aarch64>(Abi::Aapcs64, |b| {
        b.frame(64, 32);
    });
    assert!(e.err().unwrap().message.contains("aligns frames to 16"));
}

#[test]
#[should_panic(expected = "outside the stack frame")]
fn an_offset_outside_the_frame_panics() {
    let mut b = Builder::<X86_64>::new("kernel", Abi::SysV, &[]);
    let frame = b.frame(64, 16);
    let _ = frame.at(64);
}

fn cfi<I: Isa>(items: &[Item<I>]) -> Vec<Cfi> {
    items.iter().filter_map(|i| if let Item::Cfi(c) = i { Some(c.clone()) } else { None }).collect()
}

/// The stack pointer's offset below its entry value after an x86_64 prologue: pushes and `sub rsp, n`.
fn x86_depth(pro: &[Item<X86_64>]) -> i64 {
    use asmgen::isa::x86_64::Op;
    pro.iter()
        .map(|i| match i {
            Item::Inst(i) if i.op == Op::push => 8,
            Item::Inst(i) if i.op == Op::sub && i.operands[0] == Operand::Gpr(4) => match i.operands[1] {
                Operand::Imm(n) => n,
                _ => panic!("sub rsp, imm"),
            },
            _ => 0,
        })
        .sum()
}

#[test]
fn x86_64_prologues_allocate_an_aligned_frame() {
    use asmgen::isa::x86_64::Op;
    for abi in [Abi::SysV, Abi::Win64] {
        for (bytes, align) in [(8, 8), (48, 16), (200, 16), (256, 32), (512, 64), (5000, 16), (40000, 64)] {
            for saved in 0..4 {
                let f = build::<X86_64>(abi, |b| {
                    b.frame(bytes, align);
                    for r in [RBX, R12, R13][..saved.min(3)].iter() {
                        b.mov(*r, RAX);
                    }
                    if saved == 3 {
                        b.vpxor(Xmm(6), Xmm(6), Xmm(6));
                    }
                })
                .unwrap_or_else(|e| panic!("{e:?}"));
                let (pro, epi) = X86_64::prologue_epilogue(abi, &f.frame);
                let depth = x86_depth(&pro);
                assert_eq!((8 + depth) % 16, 0, "{abi:?} {bytes}/{align}: rsp is 16-byte aligned after the prologue");
                let pushes = pro.iter().filter(|i| matches!(i, Item::Inst(i) if i.op == Op::push)).count() as i64;
                assert!(depth - 8 * pushes >= f.frame.locals.allocation() as i64, "{abi:?} {bytes}/{align}: room");
                // Win64: a probe per page of the allocation, before it.
                let probes = pro.iter().filter(|i| matches!(i, Item::Inst(i) if i.op == Op::mov_load)).count();
                let want = if abi == Abi::Win64 { (depth - 8 * pushes) as usize / 4096 } else { 0 };
                assert_eq!(probes, want, "{abi:?} {bytes}/{align}: probes");
                // Unwind items: the allocation, and its undoing in the epilogue (CFI).
                let alloc = depth - 8 * pushes;
                let c = cfi(&pro);
                if abi == Abi::Win64 {
                    assert!(c.contains(&Cfi::Alloc(alloc as i32)), "{c:?}");
                } else {
                    assert!(c.contains(&Cfi::AdjustCfaOffset(alloc as i32)), "{c:?}");
                    assert!(cfi(&epi).contains(&Cfi::AdjustCfaOffset(-alloc as i32)));
                }
            }
        }
    }
}

#[test]
fn win64_saves_vectors_above_the_frame() {
    let f = build::<X86_64>(Abi::Win64, |b| {
        b.frame(100, 16);
        b.vpxor(Xmm(6), Xmm(6), Xmm(6)).vpxor(Xmm(7), Xmm(7), Xmm(7));
    })
    .unwrap();
    let (pro, _) = X86_64::prologue_epilogue(Abi::Win64, &f.frame);
    let c = cfi(&pro);
    // No push: entry rsp is 8 mod 16, so 112 + 32 + 8.
    assert_eq!(
        c,
        [Cfi::Alloc(152), Cfi::SaveVec("xmm6".into(), 112), Cfi::SaveVec("xmm7".into(), 128), Cfi::EndPrologue]
    );
}

/// The largest Win64 frame (the most local storage, the largest alignment, every callee-saved register): its
/// probed prologue stays within the 255 bytes its unwind data can describe, and the JIT's unwind data is made.
#[test]
fn the_largest_win64_frame_has_unwind_data() {
    let f = build::<X86_64>(Abi::Win64, |b| {
        b.frame(asmgen::abi::MAX_LOCALS, 2048);
        for r in [RBX, RBP, RDI, RSI, R12, R13, R14] {
            b.mov(r, RAX);
        }
        for x in 6..16 {
            b.vpxor(Xmm(x), Xmm(x), Xmm(x));
        }
    })
    .unwrap();
    let image = asmgen::lower::lower(&[&f]).unwrap();
    let unwind = asmgen::lower::win64_unwind::win64_unwind(&[&f], &image).unwrap();
    let prologue = unwind.xdata[1];
    assert!(prologue > 128, "a long prologue: {prologue} bytes");
}
