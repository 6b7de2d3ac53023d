//! The importer: assembled objects read back into asmgen functions.
//!
//! [`import_object`] decodes each function of an object (x86-64 with iced-x86's decoder, aarch64 and riscv64
//! with a decoder read off the same fixed-width table entries that encode), makes its branch targets labels,
//! the data it reads constants, its padding alignment and, where they are the ABI's, its prologue and epilogue
//! the frame the builder derives. It then lowers the function again and compares the bytes with the object's
//! (a relocation's bits excepted), and writes the function's Rust source: a kernel written with the builder.
//! A function it cannot import (a form the tables lack, a hand-made prologue, data inside the code) is named
//! with the reason, and nothing is written for it.

mod aarch64;
mod decode;
mod fixed;
mod function;
mod object;
mod riscv64;
mod rust;
mod x86_64;

pub use function::MissingForm;

use crate::ir::{Frame, Function, Item, Signature};
use crate::label::Label;
use crate::target::{Abi, Arch};
use decode::Decode;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// An object, imported: one report per function.
#[derive(Debug)]
pub struct Import {
    /// The file's name, as given.
    pub file: String,
    /// Its architecture.
    pub arch: Arch,
    /// The ABI its functions were read under (from the object format: ELF and Mach-O x86-64 System V, COFF
    /// Win64, and so on).
    pub abi: Abi,
    /// Its functions, in address order.
    pub functions: Vec<FunctionReport>,
}

/// What became of one function.
#[derive(Debug)]
pub struct FunctionReport {
    /// Its symbol.
    pub name: String,
    /// Its offset in its section.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Instructions decoded (padding excluded).
    pub instructions: usize,
    /// Of those, the ones the tables express.
    pub expressed: usize,
    /// The forms the tables lack, where they were met.
    pub missing: Vec<MissingForm>,
    /// Whether it was imported, and whether its lowering gives the object's bytes.
    pub outcome: Outcome,
}

/// Whether a function was imported, and whether its lowering gives the object's bytes.
#[derive(Debug)]
pub enum Outcome {
    /// Imported; lowering it gives the object's bytes (relocated bits excepted).
    Identical {
        /// The Rust source of the kernel.
        source: String,
        /// Whether its prologue and epilogue became the frame the builder derives (callee-saved registers).
        frame: bool,
    },
    /// Imported, but its lowering differs from the object at `offset`.
    Differs {
        /// The first offset (in the function) where the bytes differ.
        offset: u64,
        /// What differs.
        why: String,
    },
    /// Not imported.
    NotImported(String),
}

impl FunctionReport {
    /// Whether the function was imported and re-encodes to the object's bytes.
    pub fn identical(&self) -> bool {
        matches!(self.outcome, Outcome::Identical { .. })
    }
}

/// Why an object could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    /// The file.
    pub file: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

impl std::error::Error for ImportError {}

/// Imports the object in the file at `path` (an assembled `.o`/`.obj`).
pub fn import_file(path: &Path) -> Result<Import, ImportError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ImportError { file: file.clone(), message: e.to_string() })?;
    import_object(&file, &bytes)
}

/// Comments to carry into the imported functions: by code section name and offset in it, the lines to print
/// before the instruction there (what `cargo xtask import` reads from the source through the object's line
/// table).
pub type Comments = BTreeMap<(String, u64), Vec<String>>;

/// Imports the object `bytes` (named `file` in reports and errors): every function it defines.
pub fn import_object(file: &str, bytes: &[u8]) -> Result<Import, ImportError> {
    import_object_with(file, bytes, &Comments::new())
}

/// [`import_object`], with comments to carry over.
pub fn import_object_with(file: &str, bytes: &[u8], comments: &Comments) -> Result<Import, ImportError> {
    let err = |message: String| ImportError { file: file.to_string(), message };
    let object = object::read(bytes).map_err(err)?;
    let abi = match (object.arch, object.coff, object.macho) {
        (Arch::X86_64, true, _) => Abi::Win64,
        (Arch::X86_64, _, _) => Abi::SysV,
        (Arch::Aarch64, true, _) => Abi::WinArm64,
        (Arch::Aarch64, _, true) => Abi::AppleAapcs64,
        (Arch::Aarch64, _, _) => Abi::Aapcs64,
        (Arch::Riscv64, _, _) => Abi::Lp64d,
    };
    let functions = match object.arch {
        Arch::X86_64 => functions::<crate::isa::x86_64::X86_64>(&object, abi, file, comments),
        Arch::Aarch64 => functions::<crate::isa::aarch64::Aarch64>(&object, abi, file, comments),
        Arch::Riscv64 => functions::<crate::isa::riscv64::Riscv64>(&object, abi, file, comments),
    };
    Ok(Import { file: file.to_string(), arch: object.arch, abi, functions })
}

fn functions<I: Decode>(object: &object::ObjectFile, abi: Abi, file: &str, comments: &Comments) -> Vec<FunctionReport> {
    let mut out = Vec::new();
    for f in &object.functions {
        let section = &object.sections[f.section].name;
        let mine: BTreeMap<u64, Vec<String>> =
            comments.iter().filter(|((s, _), _)| s == section).map(|((_, o), c)| (*o, c.clone())).collect();
        let imported = function::import::<I>(object, f, abi, &mine);
        let code = &object.sections[f.section].data[f.offset as usize..(f.offset + f.size) as usize];
        let code = &code[..imported.len];
        let outcome = match &imported.function {
            Err(why) => Outcome::NotImported(why.clone()),
            Ok(func) => match compare(func, &imported, code) {
                Ok(()) => {
                    Outcome::Identical { source: rust::source(func, file, f.offset), frame: imported.frame_mapped }
                }
                Err((offset, why)) => Outcome::Differs { offset, why },
            },
        };
        out.push(FunctionReport {
            name: f.name.clone(),
            offset: f.offset,
            size: f.size,
            instructions: imported.instructions,
            expressed: imported.expressed,
            missing: imported.missing,
            outcome,
        });
    }
    out
}

/// Lowers `f` (beside a stub for each function it refers to) and compares its bytes with `code`.
fn compare<I: Decode>(f: &Function<I>, imported: &function::Imported<I>, code: &[u8]) -> Result<(), (u64, String)> {
    let stubs: Vec<Function<I>> = imported
        .externals
        .iter()
        .map(|name| Function {
            name: format!("{name}__stub"),
            doc: Vec::new(),
            abi: f.abi,
            signature: Signature { params: Vec::new(), ret: None },
            allowed: f.allowed,
            required: crate::feature::FeatureSet::empty(),
            frame: Frame {
                saved: Vec::new(),
                params: 0,
                locals: Default::default(),
                stack_params: Vec::new(),
                naked: false,
                landing_pad: true,
            },
            body: vec![Item::Label(Label::named(name))],
            consts: Vec::new(),
        })
        .collect();
    let all: Vec<&Function<I>> = std::iter::once(f).chain(&stubs).collect();
    let image = crate::lower::lower(&all).map_err(|e| (0, format!("lowering: {}", e.message)))?;
    let sym = image.symbol(&f.name).ok_or((0, "no symbol in the lowered image".to_string()))?;
    let lowered = &image.bytes[sym.offset..sym.offset + sym.len];
    let mut mask = vec![0xffu8; code.len()];
    for (at, m) in &imported.masks {
        for (k, b) in m.iter().enumerate() {
            if let Some(x) = mask.get_mut(at + k) {
                *x &= b;
            }
        }
    }
    let n = lowered.len().min(code.len());
    if let Some(k) = (0..n).find(|&k| (lowered[k] ^ code[k]) & mask[k] != 0) {
        // The instruction of the object there, as decoded (the lowering's may have another length).
        let inst = imported.texts.iter().rev().find(|(at, _)| *at <= k).map_or("", |(_, t)| t.as_str());
        let prefix = if matches!(code[k], 0x66 | 0x67) && lowered[k] != code[k] {
            "; the object has a prefix there that the tables do not write"
        } else if f.body.iter().any(|i| matches!(i, Item::Align(a) if *a > imported.start_align)) {
            "; the object's function starts at an offset less aligned than its alignment inside, which pads \
             differently where asmgen places it (at 32 bytes)"
        } else {
            ""
        };
        return Err((
            k as u64,
            format!("in `{inst}`: lowered byte {:#04x}, object byte {:#04x}{prefix}", lowered[k], code[k]),
        ));
    }
    if lowered.len() != code.len() {
        let tail = |b: &[u8]| b[n.saturating_sub(3)..].iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ");
        let (l, o) = (tail(lowered), tail(code));
        return Err((
            n as u64,
            format!("lowered {} bytes, the object has {} (ending {l} and {o})", lowered.len(), code.len()),
        ));
    }
    Ok(())
}
