//! NASM listings (`generated/x86_64-windows/<listing>.asm`, [`Syntax::Nasm`]): the x86_64-windows functions
//! spelled for `nasm -f win64` by [`crate::syntax::nasm`], in the layout the GNU as listing has ([`layout`]), so
//! both assemble to the same code. NASM 2.16 has no `.seh_*` directives, so the Win64 unwind data is written
//! out: a local label at the end of each prologue step and of the prologue, an `UNWIND_INFO` per function in
//! `.xdata$<function>` ([`crate::syntax::seh`], from the same [`Cfi`] items the GNU as listing spells as `.seh_*`)
//! and a `RUNTIME_FUNCTION` (start, end, unwind information; image-relative) per function in `.pdata$<function>`:
//! the sections GNU as makes for a function in `.text$<function>`, one per function as in the GNU as listing.
//!
//! [`Syntax::Nasm`]: crate::target::Syntax::Nasm

use super::gas::{check_abi, function_header, header, Out};
use super::origin::Origin;
use crate::error::GenError;
use crate::ir::{Cfi, Const, Function, Item, Listing};
use crate::isa::x86_64::X86_64;
use crate::isa::PrintCtx;
use crate::layout;
use crate::lower;
use crate::syntax::nasm::Form;
use crate::syntax::seh::{self, Field, Step, UnwindInfo};
use crate::syntax::{landing_pad, nasm, Directives};
use crate::target::Target;
use iced_x86::{Code, Decoder, DecoderOptions, Mnemonic, OpKind};

/// The local label at the end of the prologue.
const PROLOGUE_END: &str = ".seh_endprologue";
/// The local label at the end of a function (the end of its `RUNTIME_FUNCTION`).
const FUNCTION_END: &str = ".seh_end";

/// Prints the NASM listing of `listing` for `target` (x86_64, COFF, Win64). `source` names the kernel file.
pub fn listing(target: Target, listing: &Listing<X86_64>, source: &str) -> Result<String, GenError> {
    listing_from(target, listing, &Origin::project(source))
}

/// Prints the NASM listing of `listing` for `target`, its header naming `origin`.
pub fn listing_from(target: Target, listing: &Listing<X86_64>, origin: &Origin) -> Result<String, GenError> {
    let ctx = nasm::print_ctx();
    let mut o = Out::with_line_comments(nasm::COMMENT);
    header(&mut o, target, listing, origin, "NASM");
    o.line("");
    o.directive("default rel");
    let mut unwind = Vec::new();
    let mut forms = gnu_as_forms(&listing.functions)?.into_iter();
    for (i, f) in listing.functions.iter().enumerate() {
        check_abi(target, f)?;
        unwind.push((f.name.clone(), function(&mut o, f, &ctx, &mut forms)));
        // As in the GNU as listing: every function section but the last ends at the next function's alignment.
        if i + 1 < listing.functions.len() {
            o.directive(nasm::align_code(layout::FUNCTION_ALIGN_LOG2));
        }
    }
    constants(&mut o, &layout::constants(&listing.functions)?);
    unwind_data(&mut o, &unwind);
    Ok(o.finish())
}

/// How GNU as encoded an instruction, where NASM would choose otherwise unless told.
enum GnuAs {
    /// Spelled so that NASM makes the same bytes: as it is, a branch of GNU as's size, or a `mov r64, imm32`
    /// with its immediate `strict dword` (NASM would shorten it to `mov r32, imm32`).
    Spelled(Form),
    /// A register-to-register move GNU as encodes in its store form, whose 2-byte VEX prefix is shorter than
    /// the load form's 3-byte one NASM picks (a source among xmm8-xmm15): written as these bytes.
    Bytes(Vec<u8>),
}

/// The store forms of the moves (`vmovdqa xmm/m128, xmm`, ...): register to register, GNU as picks one when it
/// saves the 3-byte VEX prefix. And `xchg` of two registers, whose first GNU as puts in ModRM.rm, NASM in
/// ModRM.reg.
const STORE_FORMS: [Code; 6] = [
    Code::VEX_Vmovdqa_xmmm128_xmm,
    Code::VEX_Vmovdqa_ymmm256_ymm,
    Code::VEX_Vmovdqu_xmmm128_xmm,
    Code::VEX_Vmovdqu_ymmm256_ymm,
    Code::Xchg_rm64_r64,
    Code::Xchg_rm32_r32,
];

/// What NASM must be told about each instruction of `functions` (after the landing pads), in order, to make
/// GNU as's bytes. The JIT's lowering encodes and relaxes exactly as GNU as does (`tests/tests/jit.rs`), so its
/// image says; NASM's own branch optimiser can settle on a longer form where a displacement is at its limit.
fn gnu_as_forms(functions: &[Function<X86_64>]) -> Result<Vec<GnuAs>, GenError> {
    let refs: Vec<&Function<X86_64>> = functions.iter().collect();
    let image = lower::lower(&refs)?;
    let code = &image.bytes[..image.code_len];
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut forms = Vec::new();
    while decoder.can_decode() {
        let i = decoder.decode();
        if matches!(i.mnemonic(), Mnemonic::Nop | Mnemonic::Endbr64) {
            continue;
        }
        let regs = i.op_count() == 2 && i.op0_kind() == OpKind::Register && i.op1_kind() == OpKind::Register;
        // `jrcxz` has a rel8 form only, which NASM refuses to be told (`short`).
        forms.push(if i.code() == Code::Jrcxz_rel8_64 {
            GnuAs::Spelled(Form::Plain)
        } else if i.op_count() > 0 && i.op0_kind() == OpKind::NearBranch64 {
            GnuAs::Spelled(Form::Branch { short: i.len() == 2 })
        } else if regs && STORE_FORMS.contains(&i.code()) {
            GnuAs::Bytes(code[i.ip() as usize..i.next_ip() as usize].to_vec())
        } else if i.code() == Code::Mov_rm64_imm32 {
            GnuAs::Spelled(Form::StrictImm)
        } else {
            GnuAs::Spelled(Form::Plain)
        });
    }
    Ok(forms)
}

/// Prints one function; its unwind information, labels named relative to the function. `forms` says,
/// instruction by instruction, how GNU as encodes it.
fn function(
    o: &mut Out,
    f: &Function<X86_64>,
    ctx: &PrintCtx,
    forms: &mut impl Iterator<Item = GnuAs>,
) -> UnwindInfo<String> {
    let sym = &f.name;
    function_header(o, f);
    o.directive(nasm::function_section(sym));
    o.directive(format!("global {sym}"));
    o.directive(nasm::align_code(layout::FUNCTION_ALIGN_LOG2));
    o.line(format!("{sym}:"));
    if let Some((pad, why)) = layout::landing_pad(f).map(landing_pad) {
        o.line(format!("\t{pad:<11} \t{} {why}", nasm::COMMENT));
    }
    let mut info = UnwindInfo::default();
    for item in layout::function_items(f).iter() {
        match item {
            Item::Inst(i) => match forms.next().expect("the image has every instruction") {
                GnuAs::Spelled(form) => o.line(nasm::format_inst(i, ctx, form)),
                GnuAs::Bytes(b) => o.line(nasm::raw_inst(i, ctx, &b)),
            },
            Item::Label(l) => o.line(format!("{}:", nasm::local_label(l))),
            Item::Comment(c) => o.note(c),
            Item::Blank => o.line(""),
            Item::Align(n) => o.directive(nasm::align_code(*n)),
            Item::Cfi(Cfi::EndPrologue) => {
                o.line(format!("{PROLOGUE_END}:"));
                info.prologue_end = Some(PROLOGUE_END.to_string());
            }
            Item::Cfi(c) => {
                if let Some(step) = Step::of(c) {
                    let label = format!(".seh_{}", info.steps.len());
                    let seh = Directives::COFF.cfi_directive(c).unwrap_or_default();
                    o.line(format!("{label}:\t\t\t{} {seh} (an unwind code in .xdata)", nasm::COMMENT));
                    info.steps.push((label, step));
                }
            }
        }
    }
    o.line(format!("{FUNCTION_END}:"));
    info
}

/// Prints the constants, each in its own section at its alignment, under its label.
fn constants(o: &mut Out, consts: &[Const]) {
    if consts.is_empty() {
        return;
    }
    o.line("");
    for c in consts {
        o.directive(nasm::constant_section(c.label.name(), c.align));
        o.directive(nasm::align_data(c.align.trailing_zeros()));
        o.line(format!("{}:\t{} {}", nasm::const_label(&c.label), nasm::COMMENT, c.comment));
        for chunk in c.bytes.chunks(16) {
            let bytes: Vec<String> = chunk.iter().map(|b| format!("{b:#04x}")).collect();
            o.directive(format!("db {}", bytes.join(", ")));
        }
    }
}

/// Prints `.xdata$<function>` (each function's `UNWIND_INFO`) and `.pdata$<function>` (each function's start, end
/// and unwind information, image-relative).
fn unwind_data(o: &mut Out, functions: &[(String, UnwindInfo<String>)]) {
    o.line("");
    for (sym, info) in functions {
        o.directive(nasm::unwind_section("xdata", sym));
        let off = |l: &String| format!("{sym}{l} - {sym}");
        o.line(format!("{sym}.unwind_info:"));
        let fields = info.fields();
        let [Field::Byte(version), Field::Offset(end), Field::Byte(slots), Field::Byte(frame)] = &fields[..4] else {
            unreachable!("UNWIND_INFO starts with its header")
        };
        o.directive(format!(
            "db {version}, {}, {slots}, {frame}\t{} version 1, prologue size, {slots} slots, no frame register",
            off(end),
            nasm::COMMENT
        ));
        let mut rest = fields[4..].iter();
        while let Some(field) = rest.next() {
            match (field, rest.as_slice().first()) {
                (Field::Offset(at), Some(Field::Byte(code))) => {
                    rest.next();
                    let (op, info) = (seh::op_name(*code), code >> 4);
                    o.directive(format!("db {}, {code:#04x}\t{} {op}, info {info}", off(at), nasm::COMMENT));
                }
                (Field::Slot(s), _) => o.directive(format!("dw {s}")),
                _ => unreachable!("an unwind code is an offset and a code byte"),
            }
        }
    }
    o.line("");
    for (sym, _) in functions {
        o.directive(nasm::unwind_section("pdata", sym));
        let rva = |l: &str| format!("{l} wrt ..imagebase");
        let (end, info) = (format!("{sym}{FUNCTION_END}"), format!("{sym}.unwind_info"));
        o.directive(format!("dd {}, {}, {}", rva(sym), rva(&end), rva(&info)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::CType;
    use crate::isa::x86_64::{mem, regs::RBX, rip, Gpr, X86Feature, Xmm};
    use crate::{Abi, Builder};

    /// A Win64 function with five parameters that uses rbx, xmm6 and xmm9, a constant and a loop.
    fn win64_five() -> Function<X86_64> {
        let mut b = Builder::<X86_64>::new("asmgen_test_nasm", Abi::Win64, &[X86Feature::Avx]);
        let ps: Vec<Gpr> = (0..5).map(|_| b.param("p", CType::BytePtr)).collect();
        let c = b.constant("ones", 16, "sixteen 0x01 bytes", &[1; 16]);
        let top = b.label("top");
        b.bind(&top);
        b.mov(RBX, ps[4]);
        b.vmovdqa(Xmm(6), rip(&c));
        b.vmovdqu(Xmm(9), mem(ps[3], 16));
        b.vmovdqu(mem(RBX, 0), Xmm(6));
        b.jnz(&top);
        b.finish().unwrap()
    }

    #[test]
    fn nasm_listing_spells_nasm_and_writes_the_unwind_data() {
        let l = Listing { name: "t".into(), title: "test".into(), functions: vec![win64_five()] };
        let text = listing(Target::X86_64_WINDOWS_NASM, &l, "gen/src/emit/nasm.rs").unwrap();
        let f = "asmgen_test_nasm";
        let expect = [
            "\tdefault rel\n".to_string(),
            format!("\tsection .text${f} code align=32\n\tglobal {f}\n\talign 32\n{f}:\n\tendbr64"),
            "\tpush        rbx\n.seh_0:".into(),
            // Three pushes leave rsp 0 mod 16: two xmm slots, no padding.
            "\tsub         rsp, 32\n.seh_3:".into(),
            "\tvmovdqa     oword [rsp + 16], xmm9\n.seh_5:".into(),
            ".seh_endprologue:\n\tmov         rdi, rcx".into(),
            "\tmov         r8, qword [rsp + 96]".into(),
            "\tvmovdqa     xmm6, oword [rel const_ones]".into(),
            "\tjnz         short .asmgen_test_nasm_top".into(),
            "\tret\n.seh_end:".into(),
            "\tsection .rdata$const_ones rdata align=16\n\talign 16, db 0\nconst_ones:".into(),
            format!("\tsection .xdata${f} rdata align=4\n{f}.unwind_info:\n\tdb 1, {f}.seh_endprologue - {f}, 8, 0"),
            format!("\tdb {f}.seh_5 - {f}, 0x98\t; SAVE_XMM128, info 9\n\tdw 1\n"),
            format!("\tdb {f}.seh_3 - {f}, 0x32\t; ALLOC_SMALL, info 3\n"),
            format!("\tdb {f}.seh_0 - {f}, 0x30\t; PUSH_NONVOL, info 3\n"),
            format!("\tsection .pdata${f} rdata align=4\n\tdd {f} wrt ..imagebase, {f}.seh_end wrt ..imagebase, {f}.unwind_info wrt ..imagebase"),
        ];
        for e in expect {
            assert!(text.contains(&e), "missing {e:?} in\n{text}");
        }
        for absent in ["ptr", ".seh_proc", ".intel_syntax", "rip", "#", "%define", ".L"] {
            assert!(!text.contains(absent), "{absent} in a NASM listing");
        }
    }
}
