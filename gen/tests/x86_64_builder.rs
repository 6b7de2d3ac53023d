//! The builder and emitter on x86_64: feature checks at generation time, label checks, the ABI-derived
//! prologue (callee-saved registers and unwind directives), constants, and deterministic output that GNU as
//! accepts.

use asmgen::abi::ArgLoc;
use asmgen::emit;
use asmgen::isa::x86_64::Gpr;
use asmgen::isa::x86_64::{mem, regs::*, rip, X86Feature, Xmm, X86_64};
use asmgen::{Abi, Builder, CType, Listing, Target};
use std::process::Command;
use support::{runs, tool_missing};

mod support;

fn listing(functions: Vec<asmgen::Function<X86_64>>) -> String {
    let l = Listing { name: "t".into(), title: "test".into(), functions };
    emit::listing(Target::X86_64_LINUX, &l, "gen/tests/x86_64_builder.rs").unwrap()
}

#[test]
fn instruction_outside_the_feature_set_is_a_generation_error() {
    let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[X86Feature::Avx]);
    b.vpclmulqdq(Xmm(0), Xmm(1), Xmm(2), 0x00);
    let Err(err) = b.finish() else { panic!("generation must fail") };
    assert!(err.message.contains("PCLMULQDQ"), "{err}");
    assert_eq!(err.function, "f");
}

#[test]
fn stack_arguments_are_described_by_the_abi() {
    // Win64: rcx, rdx, r8, r9, then the stack above the return address and the 32-byte shadow space.
    let mut b = Builder::<X86_64>::new("f", Abi::Win64, &[]);
    let locs: Vec<ArgLoc<Gpr>> = (0..6).map(|_| b.arg("p", CType::Size)).collect();
    assert_eq!(locs[0], ArgLoc::Reg(RCX));
    assert_eq!(locs[3], ArgLoc::Reg(R9));
    assert_eq!(&locs[4..], &[ArgLoc::Stack(40), ArgLoc::Stack(48)]);
    assert!(b.finish().is_ok());
    // System V: six registers, then the stack above the return address.
    let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
    let locs: Vec<ArgLoc<Gpr>> = (0..7).map(|_| b.arg("p", CType::Size)).collect();
    assert_eq!(locs[5], ArgLoc::Reg(R9));
    assert_eq!(locs[6], ArgLoc::Stack(8));
    // `param` gives a register to every parameter the ABI has one for (Win64's 5th and 6th: r8 and r9, loaded
    // by the prologue); a 7th has none, which is a generation error naming the function.
    let mut b = Builder::<X86_64>::new("asmgen_seven", Abi::Win64, &[]);
    for _ in 0..7 {
        b.param("p", CType::Size);
    }
    let Err(err) = b.finish() else { panic!("generation must fail") };
    assert_eq!(err.function, "asmgen_seven");
    assert!(err.message.contains("on the stack (56 bytes"), "{err}");
}

#[test]
fn unbound_label_is_a_generation_error() {
    let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
    let l = b.label("nowhere");
    b.jmp(&l);
    let Err(err) = b.finish() else { panic!("generation must fail") };
    assert!(err.message.contains("never bound"));
}

#[test]
fn label_bound_twice_is_a_generation_error() {
    let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
    let l = b.label("x");
    b.bind(&l);
    b.bind(&l);
    assert!(b.finish().is_err());
}

#[test]
fn parameters_follow_the_abi() {
    let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
    let regs: Vec<_> = (0..4).map(|_| b.param("p", CType::Size)).collect();
    assert_eq!(format!("{regs:?}"), "[Gpr(7), Gpr(6), Gpr(2), Gpr(1)]"); // rdi rsi rdx rcx
                                                                         // Win64: the body reads its parameters where System V passes them (the prologue moves them there).
    let mut w = Builder::<X86_64>::new("f", Abi::Win64, &[]);
    let regs: Vec<_> = (0..6).map(|_| w.param("p", CType::Size)).collect();
    assert_eq!(format!("{regs:?}"), "[Gpr(7), Gpr(6), Gpr(2), Gpr(1), Gpr(8), Gpr(9)]");
    let f = w.finish().unwrap();
    assert_eq!(format!("{:?}", f.frame.saved), "[Gpr(6), Gpr(7)]", "rsi and rdi are written, so saved");
}

fn uses_rbx_and_r12() -> asmgen::Function<X86_64> {
    let mut b = Builder::<X86_64>::new("asmgen_test_saves", Abi::SysV, &[X86Feature::Avx]);
    b.doc("Clobbers rbx and r12, which System V says the callee preserves.");
    let p = b.param("p", CType::BytePtr);
    let c = b.constant("ones", 16, "sixteen 0x01 bytes", &[1; 16]);
    b.mov(RBX, p);
    b.mov(R12, 5);
    b.vmovdqa(Xmm(0), rip(&c));
    b.vmovdqu(mem(RBX, 0), Xmm(0));
    b.finish().unwrap()
}

#[test]
fn prologue_saves_callee_saved_registers_with_unwind_info() {
    let f = uses_rbx_and_r12();
    let text = listing(vec![f]);
    let push_rbx = text.find("push        rbx").expect("rbx pushed");
    let push_r12 = text.find("push        r12").expect("r12 pushed");
    let pop_r12 = text.find("pop         r12").expect("r12 popped");
    let pop_rbx = text.find("pop         rbx").expect("rbx popped");
    assert!(push_rbx < push_r12 && push_r12 < pop_r12 && pop_r12 < pop_rbx, "LIFO order");
    assert!(text.contains(".cfi_rel_offset rbx, 0"));
    assert!(text.contains(".cfi_restore r12"));
    assert!(text.contains("Saves: rbx, r12"));
    assert!(text.contains("endbr64"));
    assert!(text.contains(".section .note.GNU-stack"));
    assert!(text.contains("void asmgen_test_saves(uint8_t *p);"));
    assert!(text.contains("Requires: AVX"));
    assert!(text.contains(".Lconst_ones:"));
    assert!(text.contains("\t.section .text.asmgen_test_saves,\"ax\",@progbits\n"));
}

/// A function with only a return, named `name`, reading constant `k` when given, built for `abi`.
fn small(name: &str, k: Option<&str>, abi: Abi) -> asmgen::Function<X86_64> {
    let mut b = Builder::<X86_64>::new(name, abi, &[X86Feature::Avx]);
    if let Some(k) = k {
        let c = b.constant(k, 16, "", &[3; 16]);
        b.vmovdqa(Xmm(0), rip(&c));
    }
    b.finish().unwrap()
}

#[test]
fn each_function_and_constant_has_a_section_of_its_own() {
    let l = |abi| Listing {
        name: "t".into(),
        title: "test".into(),
        functions: vec![
            small("asmgen_a", Some("ka"), abi),
            small("asmgen_b", None, abi),
            small("asmgen_c", Some("kc"), abi),
        ],
    };
    let elf = emit::listing(Target::X86_64_LINUX, &l(Abi::SysV), "").unwrap();
    for f in ["a", "b", "c"] {
        let section = format!("\t.section .text.asmgen_{f},\"ax\",@progbits\n\t.globl asmgen_{f}\n");
        assert!(elf.contains(&section), "no section for asmgen_{f} in\n{elf}");
    }
    for k in ["ka", "kc"] {
        let section = format!("\t.section .rodata.const_{k},\"a\",@progbits\n\t.p2align 4\n.Lconst_{k}:");
        assert!(elf.contains(&section), "no section for constant {k} in\n{elf}");
    }
    // Every function section but the last is padded by the assembler to the next function's alignment.
    let ends = |text: &str, f: &str| text.contains(&format!(".size asmgen_{f}, .-asmgen_{f}\n\t.p2align 5\n"));
    assert!(ends(&elf, "a") && ends(&elf, "b") && !ends(&elf, "c"), "{elf}");
    let coff = emit::listing(Target::X86_64_WINDOWS, &l(Abi::Win64), "").unwrap();
    assert_eq!(coff.matches(".section .text$asmgen_").count(), 3, "{coff}");
    assert_eq!(coff.matches(".section .rdata$const_").count(), 2, "{coff}");
    let macho = emit::listing(Target::X86_64_MACOS, &l(Abi::SysV), "").unwrap();
    assert!(!macho.contains(".section .text") && macho.matches("\t.section __TEXT,__const\n").count() == 1);
    assert!(macho.trim_end().ends_with("\t.subsections_via_symbols"), "{macho}");
}

#[test]
fn output_is_deterministic() {
    assert_eq!(listing(vec![uses_rbx_and_r12()]), listing(vec![uses_rbx_and_r12()]));
}

#[test]
fn conflicting_constants_are_rejected() {
    let mut a = Builder::<X86_64>::new("a", Abi::SysV, &[X86Feature::Avx]);
    let c = a.constant("k", 16, "", &[1; 16]);
    a.vmovdqa(Xmm(0), rip(&c));
    let mut b = Builder::<X86_64>::new("b", Abi::SysV, &[X86Feature::Avx]);
    let c = b.constant("k", 16, "", &[2; 16]);
    b.vmovdqa(Xmm(0), rip(&c));
    let l = Listing { name: "t".into(), title: "t".into(), functions: vec![a.finish().unwrap(), b.finish().unwrap()] };
    assert!(emit::listing(Target::X86_64_LINUX, &l, "").is_err());
}

/// Every table entry printed with sample operands must be accepted by GNU as (and llvm-mc when present) in
/// Intel syntax: the table's syntax is checked against real assemblers, entry by entry.
#[test]
fn every_table_entry_assembles() {
    use asmgen::isa::x86_64::{Op, Operand, Size, OPS};
    let ctx = asmgen::syntax::Directives::ELF.print_ctx();
    let mut src = String::from(".intel_syntax noprefix\n.text\n.Ltarget:\n");
    for (i, info) in OPS.iter().enumerate() {
        let rel8_only = info.encoding.is_some_and(|e| e.0.len() == 1 && format!("{:?}", e.0[0]).contains("rel8"));
        if rel8_only {
            src += ".Lnear_target:\n";
        }
        let operands: Vec<Operand> = info
            .kinds
            .iter()
            .enumerate()
            .map(|(k, kind)| match *kind {
                "R64" | "Ri64" | "Rm64" => Operand::Gpr(k as u8 + 1),
                "R32" | "Ri32" | "Rm32" => Operand::Gpr32(k as u8 + 1),
                "X" | "Xm" => Operand::Xmm(k as u8 + 3),
                "Y" | "Ym" => Operand::Ymm(k as u8 + 3),
                "M128" => Operand::Mem(Size::Xmmword, mem(RSI, 32)),
                "M256" => Operand::Mem(Size::Ymmword, mem(RSI, 32)),
                "Z" | "Zm" => Operand::Zmm(k as u8 + 17),
                "M512" => Operand::Mem(Size::Zmmword, mem(RSI, 64)),
                "M64" | "Addr" => Operand::Mem(Size::Qword, mem(RSI, 8)),
                "M32" => Operand::Mem(Size::Dword, mem(RSI, 4)),
                "M8" => Operand::Mem(Size::Byte, mem(RSI, 1)),
                "Zkz" => Operand::ZmmMaskz(k as u8 + 17, 1),
                "M512k" => Operand::MemMask(Size::Zmmword, mem(RSI, 64), 3),
                "Kr" => Operand::K(2),
                "R8" | "Rm8" | "Cl" => Operand::Gpr8(1),
                "Imm" => Operand::Imm(3),
                "Imm64" => Operand::Imm(-1 << 40),
                "I32" => Operand::Imm(1000),
                "Sel" => Operand::Sel(0x11),
                // A branch with a rel8 form only (`jrcxz`) goes to a label just before it.
                "Target" if rel8_only => Operand::Label(asmgen::Label::named("near_target")),
                "Target" => Operand::Label(asmgen::Label::named("target")),
                other => panic!("{}: no sample for operand kind {other}", info.name),
            })
            .collect();
        let op = Op::ALL[i];
        let inst = asmgen::ir::Inst::<X86_64> { op, operands: operands.into() };
        src += &asmgen::syntax::format_inst(&inst, &ctx);
        src.push('\n');
    }
    let dir = std::env::temp_dir().join(format!("asmgen-x86-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let s = dir.join("t.S");
    std::fs::write(&s, &src).unwrap();
    let out = Command::new("as").arg(&s).arg("-o").arg(dir.join("t.o")).output().expect("GNU as runs");
    assert!(out.status.success(), "GNU as rejected the table:\n{}\n{src}", String::from_utf8_lossy(&out.stderr));
    let Some(mc) = ["llvm-mc-19", "llvm-mc"].into_iter().find(|mc| runs(mc)) else {
        tool_missing("llvm-mc-19 (or llvm-mc) not found: assembling the table with llvm-mc");
        return;
    };
    let out = Command::new(mc).args(["-triple=x86_64", "-filetype=obj", "-o", "/dev/null"]).arg(&s).output().unwrap();
    assert!(out.status.success(), "{mc} rejected the table:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// A Win64 function with six parameters that uses rbx, xmm6 and xmm9.
fn win64_six() -> asmgen::Function<X86_64> {
    let mut b = Builder::<X86_64>::new("asmgen_test_win64", Abi::Win64, &[X86Feature::Avx]);
    let ps: Vec<Gpr> = (0..6).map(|_| b.param("p", CType::BytePtr)).collect();
    let c = b.constant("ones", 16, "sixteen 0x01 bytes", &[1; 16]);
    b.mov(RBX, ps[5]);
    b.vmovdqa(Xmm(6), rip(&c));
    b.vmovdqu(Xmm(9), mem(ps[4], 0));
    b.vmovdqu(mem(RBX, 0), Xmm(6));
    b.finish().unwrap()
}

#[test]
fn win64_prologue_saves_loads_and_describes_itself_in_seh() {
    let l = Listing { name: "t".into(), title: "test".into(), functions: vec![win64_six()] };
    let text = emit::listing(Target::X86_64_WINDOWS, &l, "gen/tests/x86_64_builder.rs").unwrap();
    let expect = [
        ".def asmgen_test_win64; .scl 2; .type 32; .endef",
        ".seh_proc asmgen_test_win64",
        "push        rbx\n\t.seh_pushreg rbx",
        "push        rsi\n\t.seh_pushreg rsi",
        "push        rdi\n\t.seh_pushreg rdi",
        // Three pushes leave rsp 0 mod 16: two xmm slots, no padding.
        "sub         rsp, 32\n\t.seh_stackalloc 32",
        "vmovdqa     xmmword ptr [rsp], xmm6\n\t.seh_savexmm xmm6, 0",
        "vmovdqa     xmmword ptr [rsp + 16], xmm9\n\t.seh_savexmm xmm9, 16",
        ".seh_endprologue\n\tmov         rdi, rcx\n\tmov         rsi, rdx\n\tmov         rdx, r8\n\tmov         rcx, r9",
        // 40 and 48 above the entry rsp, plus 24 pushed and 32 allocated.
        "mov         r8, qword ptr [rsp + 96]\n\tmov         r9, qword ptr [rsp + 104]",
        "vmovdqa     xmm6, xmmword ptr [rsp]\n\tvmovdqa     xmm9, xmmword ptr [rsp + 16]\n\tadd         rsp, 32",
        "pop         rdi\n\tpop         rsi\n\tpop         rbx\n\tret\n\t.seh_endproc",
        ".section .text$asmgen_test_win64,\"xr\"\n\t.def asmgen_test_win64",
        ".section .rdata$const_ones,\"dr\"\n\t.p2align 4\n.Lconst_ones:",
    ];
    for e in expect {
        assert!(text.contains(e), "missing {e:?} in\n{text}");
    }
    for absent in [".type asmgen", ".size", ".hidden", ".cfi_", ".note.GNU-stack", ".note.gnu.property"] {
        assert!(!text.contains(absent), "{absent} in a COFF listing");
    }
}

/// The JIT's Win64 unwind data (`lower::win64_unwind`): the prologue steps at the ends of the lowered
/// instructions, last first, as the listing's `.seh_*` directives make GNU as write them.
#[test]
fn lowered_win64_functions_get_their_unwind_info() {
    let mut b = Builder::<X86_64>::new("asmgen_test_win64_unwind", Abi::Win64, &[X86Feature::Avx]);
    let p = b.param("p", CType::BytePtr);
    b.mov(RBX, p);
    b.vpxor(Xmm(6), Xmm(6), Xmm(6));
    b.vmovdqu(mem(RBX, 0), Xmm(6));
    let f = b.finish().unwrap();
    let image = asmgen::lower::lower(&[&f]).unwrap();
    let unwind = asmgen::lower::win64_unwind::win64_unwind(&[&f], &image).unwrap();
    let s = &image.symbols[0];
    assert_eq!(unwind.functions, [(s.offset as u32, (s.offset + s.len) as u32, 0)]);
    // endbr64 (4); push rbx -> 5; push rdi (the first parameter's register under System V, which the body
    // reads it in) -> 6; sub rsp, 24 -> 10; vmovdqa [rsp], xmm6 -> 15, the end of the prologue.
    let expected = [
        1, 15, 5, 0, // version 1, a 15-byte prologue, 5 slots, no frame register
        15, 0x68, 0, 0, // SAVE_XMM128 xmm6 at rsp + 0
        10, 0x22, // ALLOC_SMALL 24
        6, 0x70, // PUSH_NONVOL rdi
        5, 0x30, // PUSH_NONVOL rbx
        0, 0, // padding to an even count
    ];
    assert_eq!(unwind.xdata, expected);
}

/// A function using zmm entries requires their features, as the listing's and the C header's `requires` lines
/// name them (in the feature enum's order); without them it is a generation
/// error.
#[test]
fn zmm_entries_require_avx512() {
    use asmgen::isa::x86_64::X86Feature::*;
    let body = |b: &mut Builder<X86_64>| {
        b.vpternlogq(zmm(1), zmm(2), zmm(30), 0x96);
        b.vpshufb(zmm(17), zmm(1), mem(RSI, 64));
        b.vpclmulqdq(zmm(3), zmm(17), zmm(1), 0x11);
    };
    let mut b = Builder::<X86_64>::new("zmm", Abi::SysV, &[Avx512f, Avx512bw, Vpclmulqdq, Avx]);
    body(&mut b);
    let f = b.finish().unwrap();
    assert_eq!(f.required.names(", "), "VPCLMULQDQ, AVX512F, AVX512BW");
    assert!(listing(vec![f]).contains("requires: VPCLMULQDQ, AVX512F, AVX512BW"));
    let mut b = Builder::<X86_64>::new("zmm", Abi::SysV, &[Avx2, Vpclmulqdq, Avx]);
    body(&mut b);
    let Err(err) = b.finish() else { panic!("generation must fail without AVX-512") };
    assert!(err.message.contains("AVX512F"), "{err}");
}

#[test]
fn a_naked_function_is_its_body_without_derived_frame_or_unwind_data() {
    use asmgen::lower;
    let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
    b.naked();
    b.push(RBX).mov(RBX, RDI).mov(RAX, RBX).pop(RBX).ret();
    let f = b.finish().expect("a naked body may push, pop and return");
    assert!(f.frame.naked && f.frame.saved.is_empty(), "no registers saved for it");
    let image = lower::lower(&[&f]).unwrap();
    let code = &image.bytes[..image.symbol("f").unwrap().len];
    assert_eq!(code, [0xf3, 0x0f, 0x1e, 0xfa, 0x53, 0x48, 0x89, 0xfb, 0x48, 0x89, 0xd8, 0x5b, 0xc3]);
    let text = listing(vec![f]);
    assert!(!text.contains(".cfi_startproc") && text.contains("endbr64"), "{text}");
    // Without its landing pad.
    let mut b = Builder::<X86_64>::new("g", Abi::SysV, &[]);
    b.naked().without_landing_pad();
    b.ret();
    let g = b.finish().unwrap();
    let image = lower::lower(&[&g]).unwrap();
    assert_eq!(&image.bytes[..image.symbol("g").unwrap().len], [0xc3]);
    // Not naked: the stack pointer is the prologue's, and the landing pad stays.
    let mut b = Builder::<X86_64>::new("h", Abi::SysV, &[]);
    b.push(RBX);
    let Err(e) = b.finish() else { panic!("push outside a naked function must fail") };
    assert!(e.message.contains("writes the stack pointer"), "{e}");
    let mut b = Builder::<X86_64>::new("h", Abi::SysV, &[]);
    b.without_landing_pad();
    let Err(e) = b.finish() else { panic!("dropping the landing pad must fail") };
    assert!(e.message.contains("only a naked function"), "{e}");
    let mut b = Builder::<X86_64>::new("h", Abi::SysV, &[]);
    b.naked();
    let _ = b.frame(64, 16);
    let Err(e) = b.finish() else { panic!("a naked frame must fail") };
    assert!(e.message.contains("no prologue to make a stack frame"), "{e}");
}

/// The string instructions write rsi and rdi without naming them: under Win64, where both are callee-saved, the
/// prologue saves them (and rcx, caller-saved, is not saved); under System V nothing is saved.
#[test]
fn string_instructions_save_rsi_and_rdi_under_win64() {
    use asmgen::isa::x86_64::Reg;
    for (abi, saved) in [(Abi::Win64, vec![Reg::Gpr(6), Reg::Gpr(7)]), (Abi::SysV, vec![])] {
        let mut b = Builder::<X86_64>::new("asmgen_test_strings", abi, &[]);
        b.rep_movsb();
        let f = b.finish().unwrap();
        assert_eq!(f.frame.saved, saved, "{abi:?}");
    }
}

/// `jrcxz` has a rel8 form only: a target out of its reach is a lowering error naming it, not a panic.
#[test]
fn jrcxz_out_of_reach_is_an_error() {
    let mut b = Builder::<X86_64>::new("asmgen_test_jrcxz", Abi::SysV, &[]);
    let far = b.label("far");
    b.jrcxz(&far);
    for _ in 0..40 {
        b.add(RAX, 100_000);
    }
    b.bind(&far);
    let f = b.finish().unwrap();
    let Err(e) = asmgen::lower::lower(&[&f]) else { panic!("a jrcxz out of reach lowered") };
    assert!(e.to_string().contains("asmgen_test_jrcxz"), "{e}");
}
