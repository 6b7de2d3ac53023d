//! x86-64 under NASM ([`Syntax::Nasm`]): the Win64 COFF listings OpenSSL users on Windows assemble with
//! `nasm -f win64`. The same instructions as the GNU as listing, spelled NASM's way: `;` comments, `default
//! rel` and `[rel label]`, NASM's size keywords (`dword`, `qword`, `oword`, `yword`, `zword`; none for `lea`), local
//! labels (`.name`, scoped by the function's label), a section per function (`section .text$<symbol> code
//! align=32`) and per constant, `align` directives, `db` data. NASM 2.16 has no `.seh_*` directives: the emitter writes `.pdata` and `.xdata` itself
//! ([`super::seh`]).
//!
//! [`Syntax::Nasm`]: crate::target::Syntax::Nasm

use crate::ir::Inst;
use crate::isa::x86_64::{Operand, Size, X86_64};
use crate::isa::{InstructionSet, PrintCtx};
use crate::label::Label;

/// Line-comment introducer.
pub const COMMENT: &str = ";";
/// The section of function `sym` (`.text$<sym>`, one per function, so that a linker drops the functions nothing
/// references); 32 is the function alignment ([`crate::layout::FUNCTION_ALIGN_LOG2`]).
pub fn function_section(sym: &str) -> String {
    format!("section .text${sym} code align=32")
}

/// The section of the unwind data `kind` (`xdata`, `pdata`) of function `sym`: `.xdata$<sym>`, `.pdata$<sym>`,
/// as GNU as names them for a function in `.text$<sym>`, so that linkers associate them with it.
pub fn unwind_section(kind: &str, sym: &str) -> String {
    format!("section .{kind}${sym} rdata align=4")
}
/// The prefix of a local label (local to the function label before it).
pub const LOCAL_LABEL_PREFIX: &str = ".";

/// The context the shared operand printer needs (registers and immediates are spelled as under GNU as).
pub fn print_ctx() -> PrintCtx<'static> {
    PrintCtx { local_label_prefix: LOCAL_LABEL_PREFIX, page_refs: super::Directives::COFF.page_refs }
}

/// A local label's name (`.name`), as defined and as a branch operand.
pub fn local_label(l: &Label) -> String {
    format!("{LOCAL_LABEL_PREFIX}{}", l.name())
}

/// A constant's label: file-scoped, not local (constants follow every function, and every function may use
/// them).
pub fn const_label(l: &Label) -> String {
    l.name().to_string()
}

/// The section of the constant labelled `name` (`.rdata$<name>`, one per constant, as in the GNU as listing),
/// aligned to the constant's `align` bytes.
pub fn constant_section(name: &str, align: u32) -> String {
    format!("section .rdata${name} rdata align={align}")
}

/// The directive that aligns code to `1 << log2` bytes (NASM fills it with NOPs).
pub fn align_code(log2: u32) -> String {
    format!("align {}", 1u32 << log2)
}

/// The directive that aligns data to `1 << log2` bytes, padding with zeros.
pub fn align_data(log2: u32) -> String {
    format!("align {}, db 0", 1u32 << log2)
}

fn size_keyword(size: Size) -> &'static str {
    match size {
        Size::Byte => "byte",
        Size::Dword => "dword",
        Size::Qword => "qword",
        Size::Xmmword => "oword",
        Size::Ymmword => "yword",
        Size::Zmmword => "zword",
    }
}

/// A memory operand: `[rel constant + disp]` or `[base + index*scale + disp]`, with its size keyword when
/// `sized`.
fn memory(size: Size, m: &crate::isa::x86_64::Mem, sized: bool) -> String {
    let addr = m.address(|l| format!("rel {}", const_label(l)));
    if sized {
        format!("{} [{addr}]", size_keyword(size))
    } else {
        format!("[{addr}]")
    }
}

/// How to spell an instruction where NASM, left to itself, would encode it otherwise than GNU as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// As it is.
    Plain,
    /// A branch whose target is `short` (rel8) or `near` (rel32): the size GNU as relaxes it to.
    Branch {
        /// Whether GNU as made it short.
        short: bool,
    },
    /// Immediates written `strict dword`: `mov r64, imm32` keeps GNU as's sign-extended 32-bit form.
    StrictImm,
}

/// One instruction: mnemonic, padded, then its operands, as `form` says. `lea`'s address takes no size
/// keyword.
pub fn format_inst(inst: &Inst<X86_64>, ctx: &PrintCtx, form: Form) -> String {
    let info = X86_64::info(inst.op);
    let sized = info.mnemonic() != "lea";
    let operands: Vec<String> = inst
        .operands
        .iter()
        .map(|o| match (o, form) {
            (Operand::Mem(size, m), _) => memory(*size, m, sized),
            (Operand::MemMask(size, m, k), _) => format!("{}{{k{k}}}", memory(*size, m, sized)),
            (Operand::Label(l), Form::Branch { short: true }) => format!("short {}", local_label(l)),
            (Operand::Label(l), Form::Branch { short: false }) => format!("near {}", local_label(l)),
            (Operand::Label(l), _) => local_label(l),
            (Operand::Imm(_), Form::StrictImm) => format!("strict dword {}", X86_64::print_operand(o, ctx)),
            (other, _) => X86_64::print_operand(other, ctx),
        })
        .collect();
    if operands.is_empty() {
        format!("\t{}", info.syntax)
    } else {
        format!("\t{:<11} {}", info.syntax, operands.join(", "))
    }
}

/// An instruction NASM would encode differently, written as GNU as's `bytes` with the instruction in a comment.
pub fn raw_inst(inst: &Inst<X86_64>, ctx: &PrintCtx, bytes: &[u8]) -> String {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
    let text = format_inst(inst, ctx, Form::Plain);
    format!(
        "\t{:<11} {}\t{COMMENT} {} (GNU as's encoding)",
        "db",
        hex.join(", "),
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}
