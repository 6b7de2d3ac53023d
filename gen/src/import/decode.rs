//! What each ISA's decoder gives the importer, and what the importer gives it: the code around the
//! instruction, the relocations in it and the labels of the places it refers to.

use super::object::{ObjectFile, Place, Reloc};
use crate::ir::Inst;
use crate::label::Label;
use crate::lower::Lower;
use crate::platform::Isa;
use std::collections::BTreeMap;

/// One decoded instruction.
pub enum Decoded<I: Isa> {
    /// A table entry with its operands.
    Inst(Inst<I>),
    /// The ABI's landing pad (`endbr64`, `bti c`).
    Pad,
    /// Padding: a no-op the importer turns into alignment where it ends at an aligned offset, else into the
    /// instruction, where a table entry expresses it.
    Nop(Option<Inst<I>>),
}

/// An instruction the tables do not express: its form as the decoder names it (`Movups_xmm_xmmm128`,
/// `word 0x4e083c00`).
pub struct Unknown {
    /// Its length in bytes (to decode on after it), 0 where the bytes cannot be decoded at all.
    pub len: usize,
    /// Its form, for the coverage report.
    pub form: String,
    /// Its text, for the error message.
    pub text: String,
    /// Whether a table entry has the form, and only what it refers to cannot be expressed (a branch into
    /// another function's body): the instruction counts as expressed, the function is not imported.
    pub expressed: bool,
}

/// How every error about what an instruction refers to starts (so that the decoders can tell it from an
/// operand no entry admits).
pub const REFERENCE: &str = "a reference";

/// The decoders: one per ISA, derived from its table.
pub trait Decode: Isa<Operand: PartialEq> + Lower {
    /// Decodes the instruction at `code[at..]`; `refs` resolves what it refers to.
    fn decode(code: &[u8], at: usize, refs: &mut Refs) -> Result<(Decoded<Self>, usize), Unknown>;
    /// The bits of the `len` bytes of `inst` that a relocation patching `size` bytes at byte `field` of it leaves
    /// to the linker, as a mask over its bytes (1 where the bit compares): the comparison of lowered and object
    /// bytes ignores the others.
    fn reloc_mask(inst: &Inst<Self>, len: usize, field: usize, size: usize) -> Vec<u8>;
    /// The Rust expression of operand `operand` of kind `kind` (a builder argument); `label` names a label's
    /// variable.
    fn rust_operand(kind: &str, operand: &Self::Operand, label: &dyn Fn(&Label) -> String) -> String;
    /// The module of the ISA's names in Rust (`asmgen::isa::x86_64`).
    const RUST_MODULE: &'static str;
    /// The names a generated kernel may use from it (functions, types), imported where used.
    const RUST_NAMES: &'static [&'static str];
    /// Whether `token` names a register constant of the module's `regs` (`RAX`, `X3`).
    fn is_reg_const(token: &str) -> bool;
    /// The ISA's type name in Rust (`X86_64`).
    const RUST_ISA: &'static str;
    /// Its feature type's name in Rust (`X86Feature`).
    const RUST_FEATURE: &'static str;
}

/// What an instruction refers to, resolved: labels in the function, other functions, constants.
pub struct Refs<'a> {
    /// The object.
    pub object: &'a ObjectFile,
    /// The function's section.
    pub section: usize,
    /// The function's offset in its section.
    pub start: u64,
    /// Its size.
    pub size: u64,
    /// Offsets in the function that instructions branch to or address, and their labels.
    pub targets: BTreeMap<u64, Label>,
    /// Constants read: (section, offset) to label.
    pub constants: BTreeMap<(usize, u64), Label>,
    /// Other functions and external symbols referred to.
    pub externals: BTreeMap<String, Label>,
    /// The function's name (labels are named after it).
    pub name: String,
}

impl Refs<'_> {
    /// The relocation of the object applied within `len` bytes at `at` (an offset in the function).
    pub fn reloc(&self, at: usize, len: usize) -> Option<(usize, &Reloc)> {
        let from = self.start + at as u64;
        let relocs = &self.object.sections[self.section].relocs;
        relocs.range(from..from + len as u64).next().map(|(o, r)| ((o - from) as usize, r))
    }

    /// The label of the place `offset` bytes into the function's section `section` (a code address in this
    /// function, another function's entry, or a constant), and the distance from the label to the place.
    pub fn label_at(&mut self, section: usize, offset: i64, name: Option<&str>) -> Result<(Label, i64), String> {
        if offset < 0 {
            return Err(format!("{REFERENCE} before the start of section {}", self.section_name(section)));
        }
        let offset = offset as u64;
        if section == self.section && (self.start..self.start + self.size).contains(&offset) {
            let at = offset - self.start;
            let n = self.targets.len();
            let fname = self.name.clone();
            let l = self.targets.entry(at).or_insert_with(|| Label::named(&format!("{fname}_l{n}")));
            return Ok((l.clone(), 0));
        }
        let sec = &self.object.sections[section];
        if sec.code {
            if let Some(f) = self.object.functions.iter().find(|f| f.section == section && f.offset == offset) {
                return Ok((self.external(&f.name), 0));
            }
            if let Some(n) = name {
                return Ok((self.external(n), 0));
            }
            return Err(format!("{REFERENCE} into {} at {offset:#x}, inside another function", sec.name));
        }
        // A constant: one per place read, named after the function, the section and the offset (so that the
        // constants of one section keep their order in the image).
        let fname = self.name.clone();
        let l = self
            .constants
            .entry((section, offset))
            .or_insert_with(|| Label::named(&format!("const_{fname}_s{section}_{offset:06x}")));
        Ok((l.clone(), 0))
    }

    /// The label of another function or external symbol, by name.
    pub fn external(&mut self, name: &str) -> Label {
        self.externals.entry(name.to_string()).or_insert_with(|| Label::named(name)).clone()
    }

    /// The label a relocation refers to, plus `extra` bytes (the distance, on x86-64, from the relocated field to
    /// the end of the instruction, which the addend counts).
    pub fn reloc_label(&mut self, r: &Reloc, extra: i64) -> Result<(Label, i64), String> {
        match &r.target {
            Place::In { section, offset, name } => {
                let name = name.clone();
                self.label_at(*section, *offset as i64 + r.addend + extra, name.as_deref())
            }
            Place::External(name) => {
                let name = name.clone();
                Ok((self.external(&name), r.addend + extra))
            }
        }
    }

    fn section_name(&self, section: usize) -> &str {
        self.object.sections.get(section).map_or("?", |s| s.name.as_str())
    }
}
