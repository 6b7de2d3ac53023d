//! What the importer reads of an assembled object: its architecture, its sections' bytes, its function symbols
//! and its relocations, through the `object` crate (ELF, Mach-O, COFF).

use crate::target::Arch;
use object::{Object as _, ObjectSection as _, ObjectSymbol as _, RelocationFlags, RelocationTarget, SectionKind};
use std::collections::BTreeMap;

/// One section: its bytes and relocations by offset.
pub struct Section {
    /// Its name (`.text`, `.rodata.asmgen_sm4_consts`, `__TEXT,__text`, ...).
    pub name: String,
    /// Its bytes (empty for a section with no contents, such as `.bss`).
    pub data: Vec<u8>,
    /// Whether it holds code.
    pub code: bool,
    /// Its alignment in bytes.
    pub align: u64,
    /// The relocations applied to it, by offset.
    pub relocs: BTreeMap<u64, Reloc>,
}

/// A relocation: where its value comes from.
#[derive(Clone, Debug)]
pub struct Reloc {
    /// The symbol or section it refers to.
    pub target: Place,
    /// The addend (the format's explicit addend, or the implicit one read from the section's bytes).
    pub addend: i64,
    /// How many bytes of the section it patches.
    pub size: u8,
}

/// What a relocation refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A place in this object: section index and offset (a defined symbol, or a section).
    In {
        /// Index into [`ObjectFile::sections`].
        section: usize,
        /// The symbol's offset in the section (before the addend).
        offset: u64,
        /// The symbol's name, where it has one.
        name: Option<String>,
    },
    /// A symbol this object does not define (a function of another file).
    External(String),
}

/// A function: a code symbol and its extent.
#[derive(Clone, Debug)]
pub struct FunctionSymbol {
    /// The symbol's name, without the format's prefix (`_` on Mach-O).
    pub name: String,
    /// Index into [`ObjectFile::sections`].
    pub section: usize,
    /// Its offset in the section.
    pub offset: u64,
    /// Its size in bytes (the symbol's, or up to the next symbol or the section's end).
    pub size: u64,
}

/// An object, read.
pub struct ObjectFile {
    /// Its architecture.
    pub arch: Arch,
    /// Whether it is Mach-O (whose symbols carry a `_` prefix).
    pub macho: bool,
    /// Whether it is COFF.
    pub coff: bool,
    /// Its sections, by the object's section index (absent ones empty).
    pub sections: Vec<Section>,
    /// Its functions, in section and address order.
    pub functions: Vec<FunctionSymbol>,
}

/// Reads an object, or says why it cannot.
pub fn read(bytes: &[u8]) -> Result<ObjectFile, String> {
    let file = object::File::parse(bytes).map_err(|e| format!("not an object file this importer reads: {e}"))?;
    let arch = match file.architecture() {
        object::Architecture::X86_64 => Arch::X86_64,
        object::Architecture::Aarch64 => Arch::Aarch64,
        object::Architecture::Riscv64 => Arch::Riscv64,
        other => return Err(format!("an object for {other:?}; the importer reads x86_64, aarch64 and riscv64")),
    };
    let macho = file.format() == object::BinaryFormat::MachO;
    let coff = file.format() == object::BinaryFormat::Coff;
    let mut sections: Vec<Section> = Vec::new();
    for s in file.sections() {
        let index = s.index().0;
        while sections.len() <= index {
            sections.push(Section {
                name: String::new(),
                data: Vec::new(),
                code: false,
                align: 1,
                relocs: BTreeMap::new(),
            });
        }
        let data = s.uncompressed_data().map_err(|e| format!("section {}: {e}", s.name().unwrap_or("?")))?;
        sections[index] = Section {
            name: s.name().unwrap_or("").to_string(),
            data: data.into_owned(),
            code: s.kind() == SectionKind::Text,
            align: s.align().max(1),
            relocs: BTreeMap::new(),
        };
    }
    let strip = |n: &str| if macho { n.strip_prefix('_').unwrap_or(n).to_string() } else { n.to_string() };
    for s in file.sections() {
        for (offset, r) in s.relocations() {
            if let Some(reloc) = reloc(&file, &s, offset, &r, &sections, &strip)? {
                sections[s.index().0].relocs.entry(offset).or_insert(reloc);
            }
        }
    }
    let functions = functions(&file, &sections, strip)?;
    Ok(ObjectFile { arch, macho, coff, sections, functions })
}

/// The relocation `r` at `offset` of section `s`, with its addend as ELF's explicit one (the field's value where
/// the format keeps it there); none for the markers that patch nothing.
fn reloc(
    file: &object::File,
    s: &object::Section,
    offset: u64,
    r: &object::Relocation,
    sections: &[Section],
    strip: &impl Fn(&str) -> String,
) -> Result<Option<Reloc>, String> {
    let arch = file.architecture();
    let kind = match r.flags() {
        RelocationFlags::Elf { r_type } => r_type,
        RelocationFlags::MachO { r_type, .. } => u32::from(r_type),
        RelocationFlags::Coff { typ } => u32::from(typ),
        _ => 0,
    };
    // riscv64's R_RISCV_ALIGN (43) and R_RISCV_RELAX (51) mark what the linker may shorten; they patch nothing,
    // and the relocation beside them at that offset is the one that does.
    if arch == object::Architecture::Riscv64 && matches!(kind, 43 | 51) {
        return Ok(None);
    }
    let section_address = |i: object::SectionIndex| file.section_by_index(i).map_or(0, |s| s.address());
    let target = match r.target() {
        RelocationTarget::Symbol(i) => {
            let sym = file.symbol_by_index(i).map_err(|e| format!("relocation at {offset:#x}: {e}"))?;
            match sym.section_index() {
                // Defined here: in a section (a label without a type or size is no `is_definition` to `object`).
                Some(sec) if sec.0 < sections.len() => Place::In {
                    section: sec.0,
                    offset: sym.address().checked_sub(section_address(sec)).ok_or_else(|| {
                        format!("relocation at {offset:#x}: a symbol before the start of its section")
                    })?,
                    name: sym.name().ok().filter(|n| !n.is_empty()).map(strip),
                },
                Some(_) => return Err(format!("relocation at {offset:#x}: a symbol in no section")),
                _ => Place::External(strip(sym.name().unwrap_or("?"))),
            }
        }
        RelocationTarget::Section(sec) if sec.0 < sections.len() => Place::In { section: sec.0, offset: 0, name: None },
        _ => {
            return Err(format!(
                "relocation at {offset:#x} of {}: an absolute target, or a section it does not have",
                s.name().unwrap_or("?")
            ))
        }
    };
    let size = (r.size() / 8).max(1);
    let field = sections[s.index().0].data.get(offset as usize..offset as usize + 4);
    let field = field.map_or(0, |b| i64::from(i32::from_le_bytes(b.try_into().unwrap())));
    let x86 = arch == object::Architecture::X86_64 && size == 4;
    let addend = match file.format() {
        // COFF keeps the addend in the field: `object`'s is the type's fixed part (-4 for REL32).
        object::BinaryFormat::Coff if x86 => r.addend() + field,
        // Mach-O x86-64 keeps it in the field too; a section-relative reference holds the distance from the end
        // of the field (plus 1, 2 or 4 for SIGNED_1/2/4, the immediate after it) to the target as the object
        // lays out its sections.
        object::BinaryFormat::MachO if x86 && r.kind() == object::RelocationKind::Relative => {
            let extra = match kind {
                6 => 1,
                7 => 2,
                8 => 4,
                _ => 0,
            };
            match r.target() {
                // The target's address, less the 4 + extra bytes the importer adds back (to the end of the
                // instruction), as an offset in its section.
                RelocationTarget::Section(sec) => (s.address() + offset) as i64 + field - section_address(sec) as i64,
                _ => field - 4 - extra,
            }
        }
        _ => r.addend(),
    };
    Ok(Some(Reloc { target, addend, size }))
}

/// The function symbols of `file`: named code symbols (and global labels without a type), one per address,
/// sized by the symbol or by the next symbol (or the section's end).
fn functions(
    file: &object::File,
    sections: &[Section],
    strip: impl Fn(&str) -> String,
) -> Result<Vec<FunctionSymbol>, String> {
    let mut by_place: BTreeMap<(usize, u64), (String, u64, bool)> = BTreeMap::new();
    for sym in file.symbols() {
        let Some(sec) = sym.section_index() else { continue };
        let Some(section) = sections.get(sec.0) else { continue };
        let name = sym.name().unwrap_or("");
        let local = name.starts_with(".L") || name.starts_with("L") || name.starts_with('$') || name.is_empty();
        // A global label without a type (hand-written assembly without `.type`) names a function too.
        let untyped_global = sym.is_global()
            && !sym.is_undefined()
            && matches!(sym.kind(), object::SymbolKind::Unknown | object::SymbolKind::Label);
        let defined = sym.is_definition() || untyped_global;
        if !section.code || local || !defined || sym.kind() == object::SymbolKind::Section {
            continue;
        }
        let base = file.section_by_index(sec).map_or(0, |s| s.address());
        let Some(offset) = sym.address().checked_sub(base) else { continue };
        let global = sym.is_global();
        let entry = by_place.entry((sec.0, offset)).or_insert((strip(name), sym.size(), global));
        if global && !entry.2 {
            *entry = (strip(name), sym.size().max(entry.1), global);
        }
    }
    let places: Vec<_> = by_place.into_iter().collect();
    let mut out = Vec::new();
    for (i, ((section, offset), (name, size, _))) in places.iter().enumerate() {
        let end = match places.get(i + 1) {
            Some(((s, o), _)) if s == section => *o,
            _ => sections[*section].data.len() as u64,
        };
        // A symbol past its section's bytes (a corrupt object, or one in a section without contents) has none.
        if *offset > sections[*section].data.len() as u64 {
            continue;
        }
        let room = end.min(sections[*section].data.len() as u64).saturating_sub(*offset);
        let size = if *size > 0 { (*size).min(room) } else { room };
        out.push(FunctionSymbol { name: name.clone(), section: *section, offset: *offset, size });
    }
    Ok(out)
}
