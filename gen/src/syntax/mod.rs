//! How a target spells a listing: directives, comments, local labels, raw instruction words, sections, symbol
//! types and sizes, alignment, the GNU notes and properties, and how the assembler fills alignment padding
//! (which the JIT reproduces byte for byte).
//!
//! Two levels: what depends on the object format ([`Directives`]: symbol prefix, sections, local-label prefix,
//! `.type`/`.size`, CFI, GNU notes) and what depends on the instruction set under GNU as ([`Spelling`]: comment
//! character, raw-word directive, type prefix, preamble, alignment directive, padding). The GNU property
//! note's value comes from [`crate::property`]. GNU as syntax ([`Syntax::Gas`]) is every target's; GNU as and
//! llvm-mc both accept it. [`nasm`] spells the x86_64-windows listings for NASM ([`Syntax::Nasm`]), and [`seh`]
//! encodes the Win64 unwind data NASM has no directives for.
//!
//! [`Syntax::Gas`]: crate::target::Syntax::Gas
//! [`Syntax::Nasm`]: crate::target::Syntax::Nasm

mod aarch64;
pub mod nasm;
mod riscv64;
pub mod seh;
mod x86_64;

use crate::abi::LandingPad;
use crate::feature::FeatureSet;
use crate::ir::{Cfi, Inst};
use crate::isa::{Encoding, InstructionSet, PageRefs, PrintCtx};
use crate::target::ObjectFormat;

/// The spelling that depends on the object format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Directives {
    /// Prefix of C symbols (`_` on Mach-O).
    pub symbol_prefix: &'static str,
    /// Directive that switches to the code section.
    pub text_section: &'static str,
    /// Directive that switches to the read-only constant section.
    pub rodata_section: &'static str,
    /// Prefix of assembler-local labels.
    pub local_label_prefix: &'static str,
    /// Whether to emit `.type` and `.size` for symbols.
    pub elf_symbols: bool,
    /// The directive that keeps an exported function out of the linked image's exports (`.hidden` on ELF,
    /// `.private_extern` on Mach-O), if the format has one.
    pub private_symbol: Option<&'static str>,
    /// How `adrp` and `add` name a label's 4 KiB page and its offset in the page.
    pub page_refs: PageRefs,
    /// Whether to emit `.cfi_*` unwind directives (ELF, Mach-O); Windows gets SEH data instead.
    pub cfi: bool,
    /// Whether to emit `.section .note.GNU-stack` and the GNU property note (IBT/SHSTK, BTI).
    pub gnu_notes: bool,
    /// How each function gets a section of its own, so that a linker drops the ones nothing references
    /// (`--gc-sections`, dead-stripping).
    pub sections: Sections,
}

/// How a format gives each function (and each constant) a section of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sections {
    /// ELF: `.section .text.<symbol>,"ax",@progbits` per function, `.section .rodata.<constant>,"a",@progbits`
    /// per constant (`--gc-sections` keeps the sections a kept one references).
    Elf,
    /// COFF: `.section .text$<symbol>,"xr"` per function (GNU as names its unwind data `.pdata$<symbol>` and
    /// `.xdata$<symbol>`, which linkers associate with it), `.section .rdata$<constant>,"dr"` per constant.
    Coff,
    /// Mach-O: one `__text` and one `__const` section, split by the linker at every symbol because the listing
    /// ends with `.subsections_via_symbols` (every function starts at its symbol and ends with a return).
    MachO,
}

impl Directives {
    /// ELF (Linux).
    pub const ELF: Directives = Directives {
        symbol_prefix: "",
        text_section: ".text",
        rodata_section: ".section .rodata",
        local_label_prefix: ".L",
        elf_symbols: true,
        private_symbol: Some(".hidden"),
        page_refs: PageRefs { page: ("", ""), offset: (":lo12:", "") },
        cfi: true,
        gnu_notes: true,
        sections: Sections::Elf,
    };
    /// Mach-O (macOS): `_` before C symbols, `.private_extern`, no `.type`/`.size`, assembler-local labels
    /// starting with `L`, constants in `__TEXT,__const`, `@PAGE`/`@PAGEOFF` references, no GNU notes.
    pub const MACH_O: Directives = Directives {
        symbol_prefix: "_",
        text_section: ".text",
        rodata_section: ".section __TEXT,__const",
        local_label_prefix: "L",
        elf_symbols: false,
        private_symbol: Some(".private_extern"),
        page_refs: PageRefs { page: ("", "@PAGE"), offset: ("", "@PAGEOFF") },
        cfi: true,
        gnu_notes: false,
        sections: Sections::MachO,
    };
    /// COFF (Windows): `.def` symbols, `.rdata`, SEH unwind data (`.seh_*`) instead of CFI.
    pub const COFF: Directives = Directives {
        symbol_prefix: "",
        text_section: ".text",
        rodata_section: ".section .rdata,\"dr\"",
        local_label_prefix: ".L",
        elf_symbols: false,
        private_symbol: None,
        page_refs: PageRefs { page: ("", ""), offset: (":lo12:", "") },
        cfi: false,
        gnu_notes: false,
        sections: Sections::Coff,
    };

    /// The directives of an object format.
    pub const fn of(format: ObjectFormat) -> Directives {
        match format {
            ObjectFormat::Elf => Self::ELF,
            ObjectFormat::MachO => Self::MACH_O,
            ObjectFormat::Coff => Self::COFF,
        }
    }

    /// The printing context of operands (label names).
    pub fn print_ctx(&self) -> PrintCtx<'static> {
        PrintCtx { local_label_prefix: self.local_label_prefix, page_refs: self.page_refs }
    }

    /// The symbol of function `name`.
    pub fn symbol(&self, name: &str) -> String {
        format!("{}{name}", self.symbol_prefix)
    }

    /// Whether unwind data is SEH (`.seh_*`, COFF) rather than CFI: the format without CFI.
    pub fn seh(&self) -> bool {
        !self.cfi
    }

    /// The directives that export function symbol `sym` (before its alignment and label): `.globl`, the
    /// format's private-symbol directive (ELF `.hidden`, Mach-O `.private_extern`), on ELF `.type`, on COFF
    /// `.def` (storage class external, type function).
    pub fn symbol_start<I: Spelling>(&self, sym: &str) -> Vec<String> {
        let mut d = vec![format!(".globl {sym}")];
        if let Some(private) = self.private_symbol {
            d.push(format!("{private} {sym}"));
        }
        if self.elf_symbols {
            d.push(format!(".type {sym}, {}function", I::TYPE_PREFIX));
        }
        if self.seh() {
            d.insert(0, format!(".def {sym}; .scl 2; .type 32; .endef"));
        }
        d
    }

    /// The directive that opens the section of function symbol `sym`: its own on ELF and COFF; none on Mach-O,
    /// whose functions stay in the code section ([`Directives::listing_end`] lets the linker split it).
    pub fn function_section<I: Spelling>(&self, sym: &str) -> Option<String> {
        match self.sections {
            Sections::Elf => Some(format!(".section .text.{sym},\"ax\",{}progbits", I::TYPE_PREFIX)),
            Sections::Coff => Some(format!(".section .text${sym},\"xr\"")),
            Sections::MachO => None,
        }
    }

    /// Whether each function has a section of its own (ELF, COFF). A linker fills the gap between two such
    /// sections with its own padding (GNU ld's x86 NOPs are not GNU as's), so every function section but the
    /// last ends aligned to the next function's alignment: concatenated in order they are the bytes of one
    /// code section holding every function.
    pub fn function_sections(&self) -> bool {
        self.sections != Sections::MachO
    }

    /// The directive that opens the section of the constant labelled `name` (its own on ELF and COFF, so that a
    /// linker keeps the constants the kept functions reference; the constant section on Mach-O).
    pub fn constant_section<I: Spelling>(&self, name: &str) -> String {
        match self.sections {
            Sections::Elf => format!(".section .rodata.{name},\"a\",{}progbits", I::TYPE_PREFIX),
            Sections::Coff => format!(".section .rdata${name},\"dr\""),
            Sections::MachO => self.rodata_section.to_string(),
        }
    }

    /// The directive that ends a listing, before the notes: Mach-O's `.subsections_via_symbols`, which lets the
    /// linker split sections at symbols and dead-strip the functions nothing references.
    pub fn listing_end(&self) -> Option<&'static str> {
        (self.sections == Sections::MachO).then_some(".subsections_via_symbols")
    }

    /// The directive that closes function symbol `sym` (`.size` on ELF).
    pub fn symbol_end(&self, sym: &str) -> Option<String> {
        self.elf_symbols.then(|| format!(".size {sym}, .-{sym}"))
    }

    /// The directive that opens the unwind information of function `sym`: `.cfi_startproc`, or `.seh_proc`.
    pub fn proc_start(&self, sym: &str) -> String {
        if self.seh() {
            format!(".seh_proc {sym}")
        } else {
            ".cfi_startproc".into()
        }
    }

    /// The directive that closes a function's unwind information: `.cfi_endproc`, or `.seh_endproc`.
    pub fn proc_end(&self) -> &'static str {
        if self.seh() {
            ".seh_endproc"
        } else {
            ".cfi_endproc"
        }
    }

    /// An unwind directive: CFI lines, or SEH (which has no directives for the CFI-only items; x64 SEH describes
    /// no epilogue, ARM64 SEH does). Several lines are joined by a newline and a tab.
    pub fn cfi_directive(&self, c: &Cfi) -> Option<String> {
        if self.seh() {
            return match c {
                Cfi::Push(r) => Some(format!(".seh_pushreg {r}")),
                Cfi::Alloc(n) => Some(format!(".seh_stackalloc {n}")),
                Cfi::SaveVec(r, off) => Some(format!(".seh_savexmm {r}, {off}")),
                Cfi::EndPrologue => Some(".seh_endprologue".into()),
                Cfi::SaveRegs { regs, offset, pre_index } => Some(seh_save(regs, *offset, *pre_index)),
                Cfi::Nop => Some(".seh_nop".into()),
                Cfi::StartEpilogue => Some(".seh_startepilogue".into()),
                Cfi::EndEpilogue => Some(".seh_endepilogue".into()),
                Cfi::AdjustCfaOffset(_) | Cfi::RelOffset(..) | Cfi::Restore(_) => None,
            };
        }
        match c {
            Cfi::AdjustCfaOffset(n) | Cfi::Alloc(n) => Some(format!(".cfi_adjust_cfa_offset {n}")),
            Cfi::RelOffset(r, off) | Cfi::SaveVec(r, off) => Some(format!(".cfi_rel_offset {r}, {off}")),
            Cfi::Restore(r) => Some(format!(".cfi_restore {r}")),
            Cfi::Push(r) => Some(format!(".cfi_adjust_cfa_offset 8\n\t.cfi_rel_offset {r}, 0")),
            Cfi::EndPrologue | Cfi::SaveRegs { .. } | Cfi::Nop | Cfi::StartEpilogue | Cfi::EndEpilogue => None,
        }
    }

    /// The lines that end a listing: on ELF the non-executable-stack note and, where the instruction set has
    /// one, the GNU property note of type and value `property` (`crate::property` derives it from the
    /// functions; bit 1 is the landing pads' on both x86 and aarch64).
    pub fn gnu_notes<I: Spelling>(&self, property: Option<(u32, u32)>) -> Vec<String> {
        if !self.gnu_notes {
            return Vec::new();
        }
        let (tp, c) = (I::TYPE_PREFIX, I::COMMENT);
        let mut lines = vec![String::new(), format!("\t.section .note.GNU-stack,\"\",{tp}progbits")];
        if let Some((kind, value)) = property {
            let every = if value & 1 != 0 { "every" } else { "not every" };
            lines.extend([
                c_comment(&format!("GNU property note: {every} function in this file carries its landing pad.")),
                format!("\t.section .note.gnu.property,\"a\",{tp}note"),
                "\t.p2align 3".into(),
                format!("\t.long 4\t\t\t{c} name size"),
                format!("\t.long 16\t\t\t{c} descriptor size"),
                format!("\t.long 5\t\t\t{c} NT_GNU_PROPERTY_TYPE_0"),
                "\t.asciz \"GNU\"".into(),
                format!("\t.long {kind:#x}\t\t{c} property type"),
                format!("\t.long 4\t\t\t{c} property size"),
                format!("\t.long {value}\t\t\t{c} property value"),
                "\t.p2align 3".into(),
            ]);
        }
        lines
    }
}

/// The ARM64 SEH directive of a store of `regs` (one register or a consecutive pair; d registers are the `f`
/// forms) at `offset` from sp, or pre-indexed by `-offset` (`_x`): `.seh_save_regp_x x19, 32`, `.seh_save_freg d8,
/// 16`. The unwind code names the first register only: the pair is it and the next.
fn seh_save(regs: &[String], offset: i32, pre_index: bool) -> String {
    let f = if regs[0].starts_with('d') { "f" } else { "" };
    let p = if regs.len() == 2 { "p" } else { "" };
    let x = if pre_index { "_x" } else { "" };
    format!(".seh_save_{f}reg{p}{x} {}, {offset}", regs[0])
}

/// The directive that emits `bytes` as data.
pub fn bytes_directive(bytes: &[u8]) -> String {
    let bytes: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
    format!(".byte {}", bytes.join(", "))
}

/// How GNU as spells one instruction set's listings, and how it pads code.
pub trait Spelling: InstructionSet {
    /// Line-comment introducer (`#`, `//`).
    const COMMENT: &'static str;
    /// The directive that emits a raw instruction word (`.inst` on aarch64, `.insn` on riscv64).
    const RAW_DIRECTIVE: &'static str = ".inst";
    /// The prefix of section-type and symbol-type arguments (`@` or `%`).
    const TYPE_PREFIX: &'static str = "@";
    /// Whether the assembler pads the end of the code section to the section's alignment (the largest
    /// alignment requested in it): riscv64 GNU as does, the others do not.
    const PAD_SECTION_END: bool = false;
    /// Directives that must precede the code (syntax or base ISA selection) for a listing using `features`.
    fn preamble(features: FeatureSet<Self::Feature>) -> Vec<String>;
    /// The ISA selection scoped to one function that requires `features`: the directives before it and after it
    /// (which restore the listing's base). Each function enables only what it requires, so the assembler
    /// checks every instruction against its function's features, and no extension leaks into the object's
    /// attributes (riscv64 `Tag_RISCV_arch`). Default: none.
    fn function_isa(_features: FeatureSet<Self::Feature>) -> (Vec<String>, Vec<String>) {
        (Vec::new(), Vec::new())
    }
    /// Directive that aligns to `1 << log2` bytes.
    fn align_directive(log2: u32) -> String {
        format!(".p2align {log2}")
    }
    /// Appends the `n` bytes the assembler fills code alignment with (its NOPs).
    fn code_fill(out: &mut Vec<u8>, n: usize);
}

/// The landing pad's spelling and the comment printed beside it.
pub fn landing_pad(pad: LandingPad) -> (&'static str, &'static str) {
    match pad {
        LandingPad::Endbr64 => ("endbr64", "indirect-branch landing pad (CET IBT)"),
        LandingPad::BtiC => ("hint #34", "bti c: indirect-branch landing pad (BTI)"),
    }
}

/// Formats one instruction: mnemonic, padded, then operands; or a raw word with the mnemonic in a comment for
/// instructions the assembler does not know.
pub fn format_inst<I: Spelling>(inst: &Inst<I>, ctx: &PrintCtx) -> String {
    let info = I::info(inst.op);
    let mut printed: Vec<String> = inst.operands.iter().map(|o| I::print_operand(o, ctx)).collect();
    if let Some((i, value)) = info.encoding.and_then(|e| e.label_operand()) {
        printed[i] = ctx.label_ref(&printed[i], value);
    }
    let text = if info.syntax.contains('{') {
        let mut t = info.syntax.to_string();
        for (name, p) in info.operands.iter().zip(&printed) {
            t = t.replace(&format!("{{{name}}}"), p);
        }
        t
    } else if printed.is_empty() {
        info.syntax.to_string()
    } else {
        format!("{} {}", info.syntax, printed.join(", "))
    };
    let (mnemonic, rest) = text.split_once(' ').unwrap_or((&text, ""));
    let pretty = if rest.is_empty() { mnemonic.to_string() } else { format!("{mnemonic:<11} {}", rest.trim()) };
    let values = || inst.operands.iter().map(|o| I::operand_value(o).unwrap_or(0)).collect::<Vec<i64>>();
    match info.encoding.and_then(|enc| enc.raw_word(&values())) {
        Some(word) => {
            let word = word.unwrap_or_else(|e| panic!("{}: {}", info.name, e.0));
            format!("\t{:<11} {word:#010x}\t{} {pretty}", I::RAW_DIRECTIVE, I::COMMENT)
        }
        None => format!("\t{pretty}"),
    }
}

/// `text` as a one-line C comment, `/* text */`. The GNU as listings use C comments for whole-line comments:
/// GNU as and llvm-mc read them on every architecture, and the C preprocessor that `.S` files pass through
/// removes them, where it would act on a `#` line comment that reads like a directive (`# if the count ...`).
pub fn c_comment(text: &str) -> String {
    format!("/* {} */", c_comment_text(text))
}

/// `text` made safe inside a C comment: a `*/` would end it early, so it is written `* /`.
pub fn c_comment_text(text: &str) -> String {
    text.replace("*/", "* /")
}
