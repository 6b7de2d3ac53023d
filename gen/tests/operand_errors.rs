//! Operands the encoders cannot encode are errors when the instruction is added, on every ISA: the builder
//! records the first one and `finish` returns it, naming the function, the instruction as it prints, the value
//! written and the range allowed. One test per rule.

use asmgen::isa::{aarch64, riscv64, x86_64};
use asmgen::{Abi, Builder, GenError, Isa};

/// The error of a builder that must fail.
fn error<I: Isa>(b: Builder<I>) -> GenError {
    match b.finish() {
        Ok(_) => panic!("generation must fail"),
        Err(e) => e,
    }
}

/// `build` fails with exactly `expected` (function, instruction and rule).
fn fails<I: Isa>(abi: Abi, features: &[I::Feature], build: impl FnOnce(&mut Builder<I>), expected: &str) {
    let mut b = Builder::<I>::new("asmgen_foo", abi, features);
    build(&mut b);
    assert_eq!(error(b).to_string(), expected);
}

/// `build` builds.
fn builds<I: Isa>(abi: Abi, features: &[I::Feature], build: impl FnOnce(&mut Builder<I>)) {
    let mut b = Builder::<I>::new("asmgen_foo", abi, features);
    build(&mut b);
    if let Err(e) = b.finish() {
        panic!("{e}");
    }
}

mod a64 {
    use super::*;
    use aarch64::{regs::*, A64Feature, Aarch64, V, X};

    fn fails(build: impl FnOnce(&mut Builder<Aarch64>), expected: &str) {
        super::fails::<Aarch64>(Abi::Aapcs64, &[A64Feature::Sha3], build, expected);
    }

    /// The example: a left shift of 32-bit lanes by 32.
    #[test]
    fn vector_shift_counts_are_checked_per_element_size() {
        fails(
            |b| {
                b.shl_4s(V(0), V(1), 32);
            },
            "asmgen_foo: shl v0.4s, v1.4s, #32: shift 32 out of range 0..=31 for 32-bit elements",
        );
        fails(
            |b| {
                b.ushr_4s(V(0), V(1), 0);
            },
            "asmgen_foo: ushr v0.4s, v1.4s, #0: shift 0 out of range 1..=32 for 32-bit elements",
        );
        fails(
            |b| {
                b.shl_2d(V(0), V(1), 64);
            },
            "asmgen_foo: shl v0.2d, v1.2d, #64: shift 64 out of range 0..=63 for 64-bit elements",
        );
        fails(
            |b| {
                b.sshr_2d(V(0), V(1), 65);
            },
            "asmgen_foo: sshr v0.2d, v1.2d, #65: shift 65 out of range 1..=64 for 64-bit elements",
        );
        super::builds::<Aarch64>(Abi::Aapcs64, &[], |b| {
            b.shl_4s(V(0), V(1), 31).ushr_4s(V(0), V(1), 32).shl_2d(V(0), V(1), 63).ushr_2d(V(0), V(1), 64);
        });
    }

    #[test]
    fn register_shift_counts_are_checked() {
        fails(
            |b| {
                b.lsl(X0, X1, 64);
            },
            "asmgen_foo: lsl x0, x1, #64: shift 64 out of range 0..=63 for 64-bit registers",
        );
        fails(
            |b| {
                b.lsr(X0, X1, -1);
            },
            "asmgen_foo: lsr x0, x1, #-1: shift -1 out of range 0..=63 for 64-bit registers",
        );
        fails(
            |b| {
                b.add_lsl(X0, X1, X2, 64);
            },
            "asmgen_foo: add x0, x1, x2, lsl #64: shift 64 out of range 0..=63 for 64-bit registers",
        );
    }

    /// The example: a 16-byte load at an offset that is not a multiple of 16.
    #[test]
    fn scaled_offsets_are_multiples_of_the_access_size_in_range() {
        fails(
            |b| {
                b.ldr(V(0), X0, 8);
            },
            "asmgen_foo: ldr q0, [x0, #8]: offset 8 out of range 0..=65520 (a multiple of 16) for 16-byte accesses",
        );
        fails(
            |b| {
                b.ldr(X1, X0, -8);
            },
            "asmgen_foo: ldr x1, [x0, #-8]: offset -8 out of range 0..=32760 (a multiple of 8) for 8-byte accesses",
        );
        fails(
            |b| {
                b.str_d(V(8), SP, 32768);
            },
            "asmgen_foo: str d8, [sp, #32768]: offset 32768 out of range 0..=32760 (a multiple of 8) for 8-byte \
             accesses",
        );
        fails(
            |b| {
                b.stp(X29, X30, SP, 512);
            },
            "asmgen_foo: stp x29, x30, [sp, #512]: offset 512 out of range -512..=504 (a multiple of 8) for 8-byte \
             accesses",
        );
        fails(
            |b| {
                b.ldp(V(0), V(1), X0, 24);
            },
            "asmgen_foo: ldp q0, q1, [x0, #24]: offset 24 out of range -1024..=1008 (a multiple of 16) for 16-byte \
             accesses",
        );
        fails(
            |b| {
                b.ldr_post(X1, X0, 256);
            },
            "asmgen_foo: ldr x1, [x0], #256: offset 256 out of range -256..=255",
        );
        super::builds::<Aarch64>(Abi::Aapcs64, &[], |b| {
            b.ldr(V(0), X0, 65520).ldr(X1, X0, 32760).stp(X2, X3, X0, -512).ldp(V(0), V(1), X0, 1008);
            b.ldr_post(X1, X0, -256);
        });
    }

    #[test]
    fn immediates_are_checked() {
        fails(
            |b| {
                b.add(X0, X0, 4096);
            },
            "asmgen_foo: add x0, x0, #4096: immediate 4096 out of range 0..=4095",
        );
        fails(
            |b| {
                b.cmp(X0, -1);
            },
            "asmgen_foo: cmp x0, #-1: immediate -1 out of range 0..=4095",
        );
        fails(
            |b| {
                b.movz(X0, 65536);
            },
            "asmgen_foo: movz x0, #65536: immediate 65536 out of range 0..=65535",
        );
        fails(
            |b| {
                b.movi_16b(V(0), 256);
            },
            "asmgen_foo: movi v0.16b, #256: immediate 256 out of range 0..=255",
        );
        fails(
            |b| {
                b.ext_16b(V(0), V(1), V(1), 16);
            },
            "asmgen_foo: ext v0.16b, v1.16b, v1.16b, #16: immediate 16 out of range 0..=15",
        );
        super::builds::<Aarch64>(Abi::Aapcs64, &[], |b| {
            b.add(X0, X0, 4095).movz(X0, 65535).movi_16b(V(0), 255).ext_16b(V(0), V(1), V(1), 15);
        });
    }

    #[test]
    fn lanes_are_checked_per_element_size() {
        fails(
            |b| {
                b.dup_4s(V(0), V(1), 4);
            },
            "asmgen_foo: dup v0.4s, v1.s[4]: lane 4 out of range 0..=3 for 32-bit elements",
        );
        fails(
            |b| {
                b.ins_d(V(0), 0, V(1), 2);
            },
            "asmgen_foo: mov v0.d[0], v1.d[2]: lane 2 out of range 0..=1 for 64-bit elements",
        );
        fails(
            |b| {
                b.ld4_s_post(V(0), 4, X0);
            },
            "asmgen_foo: ld4 {v0.s, v1.s, v2.s, v3.s}[4], [x0], #16: lane 4 out of range 0..=3 for 32-bit elements",
        );
    }

    #[test]
    fn register_classes_are_checked() {
        fails(
            |b| {
                b.add(X(31), X0, X1);
            },
            "asmgen_foo: add x31, x0, x1: x31 is not a general-purpose register: x0..=x30 (sp and xzr are SP and XZR)",
        );
        fails(
            |b| {
                b.eor3(V(0), V(1), V(2), V(32));
            },
            "asmgen_foo: eor3 v0.16b, v1.16b, v2.16b, v32.16b: v32 is not a vector register: v0..=v31",
        );
    }
}

mod rv64 {
    use super::*;
    use riscv64::{mem, regs::*, Riscv64, RvFeature, VType, V, X};

    fn fails(build: impl FnOnce(&mut Builder<Riscv64>), expected: &str) {
        let features = [RvFeature::V, RvFeature::Zvkb, RvFeature::Zvksed, RvFeature::Zksed];
        super::fails::<Riscv64>(Abi::Lp64d, &features, build, expected);
    }

    #[test]
    fn immediates_are_checked_signed_or_unsigned() {
        fails(
            |b| {
                b.addi(A0, A0, 2048);
            },
            "asmgen_foo: addi a0, a0, 2048: immediate 2048 out of range -2048..=2047",
        );
        fails(
            |b| {
                b.li(A0, -2049);
            },
            "asmgen_foo: li a0, -2049: immediate -2049 out of range -2048..=2047",
        );
        fails(
            |b| {
                b.lui(A0, 1 << 20);
            },
            "asmgen_foo: lui a0, 1048576: immediate 1048576 out of range 0..=1048575",
        );
        fails(
            |b| {
                b.vxor_vi(V(1), V(2), 16);
            },
            "asmgen_foo: vxor.vi v1, v2, 16: immediate 16 out of range -16..=15",
        );
        fails(
            |b| {
                b.vsrl_vi(V(1), V(2), -1);
            },
            "asmgen_foo: vsrl.vi v1, v2, -1: immediate -1 out of range 0..=31",
        );
        fails(
            |b| {
                b.vsetivli(ZERO, 32, VType { sew: 32, lmul: 1 });
            },
            "asmgen_foo: vsetivli zero, 32, e32, m1, ta, ma: immediate 32 out of range 0..=31",
        );
        fails(
            |b| {
                b.sm4ed(A0, A0, A1, 4);
            },
            "asmgen_foo: sm4ed a0, a0, a1, 4: byte select 4 out of range 0..=3",
        );
        super::builds::<Riscv64>(Abi::Lp64d, &[RvFeature::V], |b| {
            b.addi(A0, A0, -2048).li(A0, 2047).lui(A0, 0xfffff).vxor_vi(V(1), V(2), -16).vsrl_vi(V(1), V(2), 31);
        });
    }

    #[test]
    fn aes_round_numbers_are_checked() {
        super::fails::<Riscv64>(
            Abi::Lp64d,
            &[RvFeature::Zkne],
            |b| {
                b.aes64ks1i(A0, A1, 11);
            },
            "asmgen_foo: aes64ks1i a0, a1, 11: round number 11 out of range 0..=10",
        );
        super::builds::<Riscv64>(Abi::Lp64d, &[RvFeature::Zkne], |b| {
            b.aes64ks1i(A0, A1, 10).aes64ks1i(A0, A1, 0);
        });
    }

    #[test]
    fn whole_register_moves_take_aligned_registers() {
        fails(
            |b| {
                b.vmv2r_v(V(3), V(4));
            },
            "asmgen_foo: vmv2r.v v3, v4: vector register 3 out of range 0..=30 (a multiple of 2) for a group of 2",
        );
        fails(
            |b| {
                b.vmv8r_v(V(8), V(12));
            },
            "asmgen_foo: vmv8r.v v8, v12: vector register 12 out of range 0..=24 (a multiple of 8) for a group of 8",
        );
        super::builds::<Riscv64>(Abi::Lp64d, &[RvFeature::V], |b| {
            b.vmv2r_v(V(30), V(2)).vmv4r_v(V(28), V(4)).vmv8r_v(V(24), V(0)).vmv1r_v(V(31), V(7));
        });
    }

    #[test]
    fn a_policy_form_refuses_ta_ma() {
        use riscv64::VTypePol;
        let pol = |tu, mu| VTypePol { vtype: VType { sew: 32, lmul: 1 }, tail_undisturbed: tu, mask_undisturbed: mu };
        fails(
            |b| {
                b.vsetivli_p(ZERO, 4, pol(false, false));
            },
            "asmgen_foo: vsetivli zero, 4, e32, m1, ta, ma: vector type 208 out of range 0..=191 (tu or mu; `ta, ma` \
             is the plain vsetivli/vsetvli)",
        );
        super::builds::<Riscv64>(Abi::Lp64d, &[RvFeature::V], |b| {
            b.vsetivli_p(ZERO, 4, pol(true, true)).vsetvli_p(A0, A1, pol(false, true)).vsetvli_p(
                A0,
                A1,
                pol(true, false),
            );
        });
    }

    #[test]
    fn shift_amounts_are_checked() {
        fails(
            |b| {
                b.slli(A0, A0, 64);
            },
            "asmgen_foo: slli a0, a0, 64: shift 64 out of range 0..=63 for 64-bit registers",
        );
        fails(
            |b| {
                b.slliw(A0, A0, 32);
            },
            "asmgen_foo: slliw a0, a0, 32: shift 32 out of range 0..=31 for 32-bit words",
        );
        fails(
            |b| {
                b.vror_vi(V(1), V(2), 64);
            },
            "asmgen_foo: vror.vi v1, v2, 64: rotate amount 64 out of range 0..=63",
        );
    }

    #[test]
    fn load_and_store_offsets_are_checked() {
        fails(
            |b| {
                b.ld(A0, mem(A1, 2048));
            },
            "asmgen_foo: ld a0, 2048(a1): offset 2048 out of range -2048..=2047",
        );
        fails(
            |b| {
                b.sd(A0, mem(SP, -2049));
            },
            "asmgen_foo: sd a0, -2049(sp): offset -2049 out of range -2048..=2047",
        );
        super::builds::<Riscv64>(Abi::Lp64d, &[], |b| {
            b.ld(A0, mem(A1, 2047)).sd(A0, mem(A1, -2048));
        });
    }

    #[test]
    fn registers_and_vector_types_are_checked() {
        fails(
            |b| {
                b.add(A0, X(32), A1);
            },
            "asmgen_foo: add a0, x32, a1: x32 is not a general-purpose register: x0..=x31",
        );
        fails(
            |b| {
                b.vxor_vv(V(32), V(1), V(2));
            },
            "asmgen_foo: vxor.vv v32, v1, v2: v32 is not a vector register: v0..=v31",
        );
        fails(
            |b| {
                b.vsetivli(ZERO, 4, VType { sew: 7, lmul: 1 });
            },
            "asmgen_foo: vsetivli zero, 4, e7, m1, ta, ma: SEW 7 out of 8, 16, 32, 64",
        );
    }
}

mod x64 {
    use super::*;
    use x86_64::{mem, mem_index, regs::*, Gpr, X86Feature, Xmm, Ymm, Zmm, X86_64};

    fn fails(build: impl FnOnce(&mut Builder<X86_64>), expected: &str) {
        let features = [X86Feature::Avx, X86Feature::Avx2, X86Feature::Avx512f];
        super::fails::<X86_64>(Abi::SysV, &features, build, expected);
    }

    #[test]
    fn immediates_fit_the_forms_of_the_entry() {
        fails(
            |b| {
                b.vpslld(Xmm(0), Xmm(1), 256);
            },
            "asmgen_foo: vpslld xmm0, xmm1, 256: immediate 256 out of range -128..=255",
        );
        fails(
            |b| {
                b.shl(RAX, -129);
            },
            "asmgen_foo: shl rax, -129: immediate -129 out of range -128..=255",
        );
        fails(
            |b| {
                b.vpinsrq(Xmm(0), Xmm(0), RAX, 300);
            },
            "asmgen_foo: vpinsrq xmm0, xmm0, rax, 300: immediate 300 out of range -128..=255",
        );
        super::builds::<X86_64>(Abi::SysV, &[X86Feature::Avx], |b| {
            b.vpslld(Xmm(0), Xmm(1), 255).shl(RAX, 1).shl(RAX, 63).add(RAX, i32::MIN).mov(RAX, i32::MAX);
        });
    }

    #[test]
    fn register_classes_are_checked() {
        fails(
            |b| {
                b.vpxor(Xmm(16), Xmm(0), Xmm(1));
            },
            "asmgen_foo: vpxor xmm16, xmm0, xmm1: xmm16 out of range xmm0..=xmm15",
        );
        fails(
            |b| {
                b.vpxor(Ymm(0), Ymm(0), Ymm(16));
            },
            "asmgen_foo: vpxor ymm0, ymm0, ymm16: ymm16 out of range ymm0..=ymm15",
        );
        fails(
            |b| {
                b.vpxorq(Zmm(32), Zmm(0), Zmm(1));
            },
            "asmgen_foo: vpxorq zmm32, zmm0, zmm1: zmm32 out of range zmm0..=zmm31",
        );
        fails(
            |b| {
                b.add(Gpr(16), RAX);
            },
            "asmgen_foo: add r16, rax: r16 is not a general-purpose register: 0..=15 (rax..r15)",
        );
        super::builds::<X86_64>(Abi::SysV, &[X86Feature::Avx512f], |b| {
            b.vpxorq(Zmm(31), Zmm(16), Zmm(0));
        });
    }

    #[test]
    fn memory_operands_are_checked() {
        fails(
            |b| {
                b.mov(RAX, mem_index(RSI, RCX, 3, 0));
            },
            "asmgen_foo: mov rax, qword ptr [rsi + rcx*3]: scale 3 out of 1, 2, 4, 8",
        );
        fails(
            |b| {
                b.vmovdqu(Xmm(0), mem_index(RSI, RSP, 1, 16));
            },
            "asmgen_foo: vmovdqu xmm0, xmmword ptr [rsi + rsp*1 + 16]: rsp cannot be an index register",
        );
        fails(
            |b| {
                b.mov(RAX, mem(Gpr(16), 0));
            },
            "asmgen_foo: mov rax, qword ptr [r16]: r16 is not a general-purpose register: 0..=15 (rax..r15)",
        );
    }

    /// A merging-mask store takes k1..k7 (k0 means no mask in the encoding) and a memory operand checked as any.
    #[test]
    fn store_masks_are_checked() {
        use x86_64::regs::k;
        let features = [X86Feature::Avx512f, X86Feature::Avx512bw];
        let masked = |m: x86_64::Mem, n: u8| {
            move |b: &mut Builder<X86_64>| {
                b.vmovdqu8(m.clone().mask(k(n)), Zmm(0));
            }
        };
        let fails = |build: &dyn Fn(&mut Builder<X86_64>), expected: &str| {
            super::fails::<X86_64>(Abi::SysV, &features, build, expected)
        };
        fails(&masked(mem(RSI, 0), 0), "asmgen_foo: vmovdqu8 zmmword ptr [rsi]{k0}, zmm0: k0 cannot mask: k1..=k7");
        fails(
            &masked(mem(RSI, 64), 8),
            "asmgen_foo: vmovdqu8 zmmword ptr [rsi + 64]{k8}, zmm0: k8 cannot mask: k1..=k7",
        );
        fails(
            &masked(mem_index(RSI, RSP, 1, 0), 1),
            "asmgen_foo: vmovdqu8 zmmword ptr [rsi + rsp*1]{k1}, zmm0: rsp cannot be an index register",
        );
        super::builds::<X86_64>(Abi::SysV, &features, masked(mem(RSI, 0), 7));
    }

    /// `xchg`'s registers are checked as any general-purpose operand's.
    #[test]
    fn exchanged_registers_are_checked() {
        fails(
            |b| {
                b.xchg(RAX, Gpr(16));
            },
            "asmgen_foo: xchg rax, r16: r16 is not a general-purpose register: 0..=15 (rax..r15)",
        );
    }
}

/// The first error is the one reported, and later instructions are still taken (the builder does not panic).
#[test]
fn the_first_error_is_reported() {
    use aarch64::{regs::*, Aarch64, V};
    let mut b = Builder::<Aarch64>::new("asmgen_foo", Abi::Aapcs64, &[]);
    b.ldr(V(0), X0, 8).shl_4s(V(0), V(1), 32).add(X0, X0, 1);
    let e = error(b);
    assert_eq!(e.function, "asmgen_foo");
    assert!(e.message.starts_with("ldr q0, [x0, #8]: offset 8"), "{e}");
}

/// `Builder::inst`, which takes an entry and its operands as data, checks them as the typed methods do.
#[test]
fn builder_inst_checks_too() {
    use aarch64::{Aarch64, Op, Operand};
    let mut b = Builder::<Aarch64>::new("asmgen_foo", Abi::Aapcs64, &[]);
    b.inst(Op::shl_4s, [Operand::V(0), Operand::V(1), Operand::Imm(32)]);
    assert_eq!(
        error(b).to_string(),
        "asmgen_foo: shl v0.4s, v1.4s, #32: shift 32 out of range 0..=31 for 32-bit elements"
    );
    use x86_64::{Op as XOp, Operand as XOperand, X86_64};
    let mut b = Builder::<X86_64>::new("asmgen_foo", Abi::SysV, &[]);
    b.inst(XOp::shl, [XOperand::Gpr(0), XOperand::Imm(256)]);
    assert_eq!(error(b).to_string(), "asmgen_foo: shl rax, 256: immediate 256 out of range -128..=255");
}

/// The x86_64 check allows xmm0..=xmm15 and ymm0..=ymm15, the registers the lowering encodes them with: the
/// table's xmm and ymm forms are VEX, where there are no others, but for the EVEX entries listed here (an xmm or
/// ymm beside zmm registers, and the AVX512VL forms, held to registers 0-15 as the VEX ones). A new EVEX entry on
/// xmm or ymm fails here until the check and the lowering are given xmm16..=xmm31 (or it is added to this list).
#[test]
fn x86_64_xmm_and_ymm_operands_are_vex() {
    use iced_x86::EncodingKind;
    let mut evex = Vec::new();
    for info in x86_64::OPS {
        if !info.kinds.iter().any(|k| matches!(*k, "X" | "Xm" | "Y" | "Ym")) {
            continue;
        }
        if info
            .encoding
            .expect("every x86_64 entry has codes")
            .0
            .iter()
            .any(|c| c.op_code().encoding() == EncodingKind::EVEX)
        {
            evex.push(info.name);
        }
    }
    assert_eq!(
        evex,
        [
            "vinserti64x4",
            "vextracti64x4",
            "vpbroadcastb_z_reg",
            "vpbroadcastq_z_reg",
            "vpxord_x",
            "vpxord_y",
            "vpternlogd_x",
            "vpternlogd_y",
            "vpxorq_x",
            "vpxorq_y",
            "vpternlogq_x",
            "vpternlogq_y",
            "vprold_x",
            "vprold_y",
            "vprord_x",
            "vprord_y",
            "vprolq_x",
            "vprolq_y",
            "vprorq_x",
            "vprorq_y",
            "vmovdqu64_x",
            "vmovdqu64_y",
            "vmovdqu64_store_x",
            "vmovdqu64_store_y",
            "vmovdqa64_x",
            "vextracti32x4"
        ]
    );
}

/// The builder's immediate ranges on x86_64 (`IMM_RANGES`, by operand kind) are the encoder's: for every entry
/// and immediate operand, within the smallest interval holding the ranges iced-x86 takes for the operand kinds
/// of the entry's codes (`imm8`: -128..=255, sign-extended `imm8`: -128..=127, the constant 1, `imm32`
/// sign-extended), and equal to it for `Imm` (the others' types hold less: `u8`, `i32`).
#[test]
fn x86_64_immediate_ranges_are_the_encoders() {
    use iced_x86::OpCodeOperandKind as K;
    for info in x86_64::OPS {
        let codes = info.encoding.expect("every x86_64 entry has codes").0;
        for (i, kind) in info.kinds.iter().enumerate() {
            let mut union: Option<(i64, i64)> = None;
            for code in codes {
                let (lo, hi) = match code.op_code().op_kind(i as u32) {
                    K::imm8 => (-128, 255),
                    K::imm8sex64 | K::imm8sex32 | K::imm8sex16 => (-128, 127),
                    K::imm8_const_1 => (1, 1),
                    K::imm32sex64 => (-(1 << 31), (1 << 31) - 1),
                    K::imm32 => (-(1 << 31), u32::MAX as i64),
                    K::imm64 => (i64::MIN, i64::MAX),
                    K::imm16 => {
                        panic!("{}: {code:?}: an immediate kind IMM_RANGES does not know", info.name)
                    }
                    _ => continue,
                };
                union = Some(union.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
            }
            let ours = x86_64::IMM_RANGES.iter().find(|r| r.0 == *kind).map(|r| (r.1, r.2));
            match (union, ours) {
                (Some(iced), Some(ours)) => assert!(
                    ours.0 >= iced.0 && ours.1 <= iced.1 && (*kind != "Imm" || ours == iced),
                    "{}: operand {i} ({kind}): IMM_RANGES says {ours:?}, the encoder takes {iced:?}",
                    info.name
                ),
                (Some(iced), None) => panic!("{}: operand {i} ({kind}) takes {iced:?}: not in IMM_RANGES", info.name),
                (None, _) => {}
            }
        }
    }
}

/// On aarch64 and riscv64 the builder checks registers by class and sends only immediates and memory offsets
/// through the fields: sound because every register of its class, and every vector type, fits the fields its
/// operand takes in every entry (what this checks, through the same `Encoding::check`).
#[test]
fn fixed_width_registers_fit_their_fields() {
    use asmgen::isa::fixed::Encoding;
    fn check(table: &str, name: &str, enc: &Encoding, operand: usize, n: usize, values: &[i64]) {
        for &v in values {
            let mut all = vec![None; n];
            all[operand] = Some(v);
            if let Err((_, e)) = enc.check(&all) {
                panic!("{table} {name}: operand {operand} = {v}: {e}");
            }
        }
    }
    let regs: Vec<i64> = (0..=31).collect();
    for info in aarch64::OPS {
        let enc = info.encoding.expect("every aarch64 entry is encoded");
        for (i, k) in info.kinds.iter().enumerate() {
            if matches!(
                *k,
                "Xn" | "Xm"
                    | "XnSp"
                    | "Wn"
                    | "WnSp"
                    | "Vn"
                    | "Qn"
                    | "Dn"
                    | "Sn"
                    | "VList16b"
                    | "VList4s"
                    | "VListS"
                    | "VList2d"
                    | "VTriple16b"
                    | "VTriple2d"
                    | "VPair16b"
                    | "VPair2d"
                    | "VPair4s"
            ) {
                check("aarch64", info.name, &enc, i, info.kinds.len(), &regs);
            }
        }
    }
    let vtypes: Vec<i64> =
        [8, 16, 32, 64].iter().flat_map(|&sew| [1, 2, 4, 8].map(|lmul| riscv64::VType { sew, lmul }.bits())).collect();
    let policies: Vec<i64> = vtypes.iter().flat_map(|&t| [t & !0x40, t & !0x80, t & !0xc0]).collect();
    for info in riscv64::OPS {
        let enc = info.encoding.expect("every riscv64 entry is encoded");
        for (i, k) in info.kinds.iter().enumerate() {
            match *k {
                "Xr" | "Vr" | "VAddr" => check("riscv64", info.name, &enc, i, info.kinds.len(), &regs),
                "VTypeI" => check("riscv64", info.name, &enc, i, info.kinds.len(), &vtypes),
                "VTypeP" => check("riscv64", info.name, &enc, i, info.kinds.len(), &policies),
                "Vr2" | "Vr4" | "Vr8" => {
                    let n: i64 = k[2..].parse().unwrap();
                    let aligned: Vec<i64> = (0..32).step_by(n as usize).collect();
                    check("riscv64", info.name, &enc, i, info.kinds.len(), &aligned)
                }
                _ => {}
            }
        }
    }
}

/// A streamed build (the JIT's, lowering as the kernel is made) fails with the same error, and the lowering
/// never sees the instruction (it has no encoding of xmm16).
#[test]
fn a_streamed_build_fails_without_lowering_the_instruction() {
    use x86_64::{X86Feature, Xmm, X86_64};
    let (built, _stream) = asmgen::lower::x86_64::Stream::build(|| {
        let mut b = Builder::<X86_64>::new("asmgen_foo", Abi::SysV, &[X86Feature::Avx]);
        b.vpxor(Xmm(16), Xmm(0), Xmm(1)).vpxor(Xmm(0), Xmm(0), Xmm(1));
        b.finish().map(|_| ())
    });
    assert_eq!(built.unwrap_err().to_string(), "asmgen_foo: vpxor xmm16, xmm0, xmm1: xmm16 out of range xmm0..=xmm15");
}
