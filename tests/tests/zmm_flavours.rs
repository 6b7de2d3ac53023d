//! The AVX-512 (zmm, EVEX) entries under the Windows flavours: a Win64 function holding every entry that needs
//! AVX512F, with low registers, zmm16-zmm31 and memory operands whose displacements do and do not compress
//! (EVEX's disp8 * N), printed as the GNU as (mingw) and the NASM listing; both objects' code must be the JIT
//! lowering's bytes. (The ELF listing is checked entry by entry in `gen/tests/x86_64_encoding.rs`, llvm-mc's
//! acceptance in `gen/tests/x86_64_builder.rs`.) Needs mingw binutils and NASM (`asmgen_tests::have_all`).

use asmgen::isa::x86_64::{mem, mem_index, regs::*, Op, Operand, Size, X86Feature, OPS, X86_64};
use asmgen::{Abi, Builder};
use asmgen_tests::coff::{self, GAS, NASM, OBJCOPY, OBJDUMP};

/// The operands of instance `i` (0: low registers, 1: high registers, 2: memory where the entry takes it).
fn operands(kinds: &[&str], i: usize) -> Vec<Operand> {
    let m = [mem(RCX, 64), mem(RDX, 8192), mem_index(R8, R9, 8, -64)][i].clone();
    kinds
        .iter()
        .enumerate()
        .map(|(k, kind)| {
            let r = [k as u8 + 1, 31 - k as u8, 17 + k as u8][i];
            match *kind {
                "Z" => Operand::Zmm(r),
                "Zm" if i < 2 => Operand::Zmm(r),
                "Zm" | "M512" => Operand::Mem(Size::Zmmword, m.clone()),
                "Ym" if i == 2 => Operand::Mem(Size::Ymmword, m.clone()),
                "Y" | "Ym" => Operand::Ymm(r % 16),
                "Xm" if i == 2 => Operand::Mem(Size::Xmmword, m.clone()),
                "X" | "Xm" => Operand::Xmm(r % 16),
                "Zkz" => Operand::ZmmMaskz(r, 1 + i as u8),
                "M512k" => Operand::MemMask(Size::Zmmword, m.clone(), 1 + i as u8),
                "Kr" => Operand::K(r % 8),
                "R64" => Operand::Gpr([2, 14, 9][i]),
                "M128" => Operand::Mem(Size::Xmmword, m.clone()),
                "M32" => Operand::Mem(Size::Dword, m.clone()),
                "M8" => Operand::Mem(Size::Byte, m.clone()),
                "M64" => Operand::Mem(Size::Qword, m.clone()),
                "M256" => Operand::Mem(Size::Ymmword, m.clone()),
                "Imm" => Operand::Imm(3 + i as i64),
                "Sel" => Operand::Sel(0x1b + i as u8),
                other => panic!("no sample for {other}"),
            }
        })
        .collect()
}

const HERE: &str = "tests/tests/zmm_flavours.rs";

fn zmm_function() -> asmgen::Function<X86_64> {
    let mut b = Builder::<X86_64>::new("asmgen_test_zmm", Abi::Win64, <X86Feature as asmgen::Feature>::ALL);
    for (info, &op) in OPS.iter().zip(Op::ALL) {
        if info.features.contains(&X86Feature::Avx512f) {
            for i in 0..3 {
                b.inst(op, operands(info.kinds, i));
            }
        }
    }
    b.vzeroupper();
    b.finish().unwrap()
}

#[test]
fn nasm_and_gnu_as_give_the_jit_bytes_for_the_zmm_entries() {
    // Named `nasm_...`: `cargo xtask cross` skips it under wine and qemu (HOST_TOOL_TESTS) like tests/tests/nasm.rs.
    if !cfg!(target_arch = "x86_64") || !asmgen_tests::have_all(&[NASM, GAS, OBJCOPY, OBJDUMP], "the zmm entries") {
        return;
    }
    coff::assert_flavours_give_the_jit_bytes(zmm_function(), HERE, ("zmm_flavours", "both"));
}
