//! What a lowering makes ([`Image`], [`Symbol`]), the trait each ISA's lowering implements ([`Lower`]), and the
//! layout helpers the lowerings share (constant placement, label addresses).

use crate::error::GenError;
use crate::hash::FastMap;
use crate::ir::{Const, Function, Label};
use crate::layout;
use crate::platform::Isa;

/// A function's place in an [`Image`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The function's name (without a symbol prefix).
    pub name: String,
    /// Offset of its first byte (the landing pad) in the image.
    pub offset: usize,
    /// Length in bytes, up to and including the epilogue's return.
    pub len: usize,
}

/// Machine code and constants of a set of functions, ready to be copied to executable memory placed at a
/// 4 KiB-aligned address.
#[derive(Clone, Debug)]
pub struct Image {
    /// The bytes: code, padding, constants.
    pub bytes: Vec<u8>,
    /// Length of the code (what `.text` would hold).
    pub code_len: usize,
    /// Where the constants start.
    pub rodata_offset: usize,
    /// The functions, in order.
    pub symbols: Vec<Symbol>,
    /// The constants: name (without the local prefix) and offset, in image order.
    pub constants: Vec<(String, usize)>,
    /// How many instructions the functions' bodies hold (prologues and epilogues not counted), counted while
    /// lowering them.
    pub instructions: usize,
}

impl Image {
    /// The symbol of function `name`.
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name)
    }
}

/// An ISA the JIT can lower.
pub trait Lower: Isa {
    /// Lowers `functions` (in order) into one image. Fails on an instruction without an encoding, an operand
    /// the encoding cannot hold (e.g. a branch out of range), an undefined or twice-defined label, or
    /// conflicting constants.
    fn lower(functions: &[&Function<Self>]) -> Result<Image, GenError>;

    /// The code of `image` (lowered from `functions`) as text, one string per function: offset, bytes and
    /// instruction on each line, for audits. x86-64 disassembles the bytes with iced-x86's formatter; aarch64
    /// and riscv64 print the description's own instruction text beside each word.
    fn disassemble(functions: &[&Function<Self>], image: &Image) -> Result<Vec<String>, GenError>;
}

pub(crate) fn align_up(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}

/// The constant pool of `functions` placed after `code_len` bytes of code: the offset of the first constant
/// (the first multiple of the largest alignment) and each constant with its offset. Their labels are added to
/// `labels`.
pub(crate) fn place_constants<'a, I: Isa + 'a>(
    functions: impl IntoIterator<Item = &'a Function<I>>,
    code_len: usize,
    mut define: impl FnMut(&Label, usize) -> Result<(), GenError>,
) -> Result<(usize, Vec<(Const, usize)>), GenError> {
    let consts = layout::constants(functions)?;
    let max_align = consts.iter().map(|c| c.align as usize).max().unwrap_or(1).max(1);
    let rodata_offset = if consts.is_empty() { code_len } else { align_up(code_len, max_align) };
    let mut at = rodata_offset;
    let mut placed = Vec::with_capacity(consts.len());
    for c in consts {
        at = align_up(at, c.align.max(1) as usize);
        define(&c.label, at)?;
        let len = c.bytes.len();
        placed.push((c, at));
        at += len;
    }
    Ok((rodata_offset, placed))
}

/// Appends the constants to `bytes` (code padded to `rodata_offset` with zeros) and builds the image of
/// `instructions` body instructions.
pub(crate) fn finish_image(
    mut bytes: Vec<u8>,
    code_len: usize,
    rodata_offset: usize,
    consts: Vec<(Const, usize)>,
    symbols: Vec<Symbol>,
    instructions: usize,
) -> Image {
    bytes.resize(rodata_offset, 0);
    let mut constants = Vec::with_capacity(consts.len());
    for (c, at) in consts {
        bytes.resize(at, 0);
        bytes.extend_from_slice(&c.bytes);
        constants.push((c.label.name().to_string(), at));
    }
    Image { bytes, code_len, rodata_offset, symbols, constants, instructions }
}

/// Label addresses of an image being laid out.
#[derive(Default)]
pub(crate) struct Labels {
    at: FastMap<Label, usize>,
}

impl Labels {
    pub(crate) fn define(&mut self, l: &Label, at: usize) -> Result<(), GenError> {
        if self.at.insert(l.clone(), at).is_some() {
            return Err(GenError { function: String::new(), message: format!("label {} defined twice", l.name()) });
        }
        Ok(())
    }
    pub(crate) fn get(&self, l: &Label) -> Option<usize> {
        self.at.get(l).copied()
    }
}
