//! Lowering of functions to machine code, for the JIT: the same [`Function`]s the listings are printed from,
//! with the same prologue, epilogue, alignment and constant pool ([`crate::emit::layout`]), encoded with the
//! table's encodings ([`crate::isa::fixed`]) and with every label resolved.
//!
//! An [`Image`] is laid out as the linked listing is: the functions in order, each at a 32-byte boundary and
//! starting with the landing pad, alignment padding filled with `nop`, then the constants (in name order, each
//! at its alignment) from the first multiple of the largest constant alignment after the code. Linking the
//! listing's object with `.text` at 0 and `.rodata` at [`Image::rodata_offset`] gives the same bytes (tested
//! in `tests/tests/jit.rs`).
//!
//! aarch64's `adrp`/`add :lo12:` pair depends on where the code is placed modulo 4 KiB: an image is encoded
//! for a base address that is a multiple of 4096 (any page-aligned mapping). riscv64 (`auipc`) and every branch
//! are position-independent.

use crate::builder::GenError;
use crate::emit::gas::format_inst;
use crate::emit::layout;
use crate::ir::{Function, Item, Label};
use crate::isa::aarch64::Aarch64;
use crate::isa::riscv64::Riscv64;
use crate::isa::{Isa, PrintCtx};
use crate::target::Abi;
use std::collections::HashMap;

/// An ISA whose instructions are 32-bit words encoded from the table (aarch64, riscv64).
pub trait FixedIsa: Isa {
    /// The `nop` word alignment padding is filled with (what GNU as pads code sections with).
    const NOP: u32;
    /// The landing pad word each function starts with, if the ISA has one.
    const LANDING_PAD: Option<u32>;
    /// The ABI of the Linux target.
    const ABI: Abi;
    /// Whether the assembler pads the end of the code section to the section's alignment (the largest
    /// alignment requested in it) with `nop`s: riscv64 GNU as does, aarch64's does not.
    const PAD_SECTION_END: bool;
}

impl FixedIsa for Aarch64 {
    const NOP: u32 = 0xd503_201f;
    /// `bti c` (`hint #34`).
    const LANDING_PAD: Option<u32> = Some(0xd503_245f);
    const ABI: Abi = Abi::Aapcs64;
    const PAD_SECTION_END: bool = false;
}

impl FixedIsa for Riscv64 {
    /// `addi zero, zero, 0`.
    const NOP: u32 = 0x0000_0013;
    const LANDING_PAD: Option<u32> = None;
    const ABI: Abi = Abi::Lp64d;
    const PAD_SECTION_END: bool = true;
}

/// A function's place in an [`Image`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The function's name (without a symbol prefix).
    pub name: String,
    /// Offset of its first byte (the landing pad) in the image.
    pub offset: usize,
    /// Length in bytes, up to and including the epilogue's return.
    pub len: usize,
    /// Its code as text, one instruction per line with offset and words (for audits).
    pub listing: String,
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
}

impl Image {
    /// The symbol of function `name`.
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name)
    }
}

fn align_up(n: usize, align: usize) -> usize {
    n.div_ceil(align) * align
}

enum Placed<'a, I: Isa> {
    Pad(usize),
    Word(u32, &'static str),
    Inst(&'a crate::ir::Inst<I>, usize),
}

/// Lowers `functions` (in order) into one image. Fails on an instruction without an encoding, an operand the
/// encoding cannot hold (e.g. a branch out of range), an undefined or twice-defined label, or conflicting
/// constants.
pub fn lower<I: FixedIsa>(functions: &[&Function<I>]) -> Result<Image, GenError> {
    let err = |f: &Function<I>, message: String| GenError { function: f.name.clone(), message };
    let ctx = PrintCtx { local_label_prefix: ".L" };
    let items: Vec<layout::FunctionItems<I>> = functions.iter().map(|f| layout::function_items(I::ABI, f)).collect();

    // Pass 1: addresses of functions, labels and instructions.
    let mut labels: HashMap<Label, usize> = HashMap::new();
    let mut placed: Vec<(usize, usize, Vec<Placed<I>>)> = Vec::new(); // (function start, end, items)
    let mut pc = 0usize;
    let mut section_align = 1usize << layout::FUNCTION_ALIGN_LOG2;
    for (f, items) in functions.iter().zip(&items) {
        let mut p = Vec::new();
        let start = align_up(pc, 1 << layout::FUNCTION_ALIGN_LOG2);
        if start > pc {
            // Padding between functions belongs to neither; emitted before the function.
            p.push(Placed::Pad(start - pc));
        }
        pc = start;
        if let Some(w) = I::LANDING_PAD {
            p.push(Placed::Word(w, "landing pad"));
            pc += 4;
        }
        for item in items.iter() {
            match item {
                Item::Inst(inst) => {
                    let info = I::info(inst.op);
                    let enc = info.encoding.ok_or_else(|| err(f, format!("{}: no encoding", info.name)))?;
                    p.push(Placed::Inst(inst, pc));
                    pc += enc.len_bytes();
                }
                Item::Label(l) => {
                    if labels.insert(l.clone(), pc).is_some() {
                        return Err(err(f, format!("label {} defined twice", l.name())));
                    }
                }
                Item::Align(n) => {
                    section_align = section_align.max(1 << n);
                    let to = align_up(pc, 1 << n);
                    if to > pc {
                        p.push(Placed::Pad(to - pc));
                    }
                    pc = to;
                }
                Item::Comment(_) | Item::Blank | Item::Cfi(_) => {}
            }
        }
        placed.push((start, pc, p));
    }
    let code_len = if I::PAD_SECTION_END { align_up(pc, section_align) } else { pc };

    // The constants.
    let consts = layout::constants(functions.iter().copied())?;
    let max_align = consts.iter().map(|c| c.align as usize).max().unwrap_or(1).max(1);
    let rodata_offset = if consts.is_empty() { code_len } else { align_up(code_len, max_align) };
    let mut at = rodata_offset;
    let mut const_at = Vec::new();
    for c in &consts {
        at = align_up(at, c.align.max(1) as usize);
        if labels.insert(c.label.clone(), at).is_some() {
            return Err(GenError {
                function: String::new(),
                message: format!("label {} defined twice", c.label.name()),
            });
        }
        const_at.push(at);
        at += c.bytes.len();
    }
    let total = at;

    // Pass 2: encode.
    let mut bytes = Vec::with_capacity(total);
    let mut symbols = Vec::new();
    for ((f, (start, end, p)), _) in functions.iter().zip(placed).zip(&items) {
        let mut text = String::new();
        for pl in p {
            match pl {
                Placed::Pad(n) => {
                    for _ in 0..n / 4 {
                        bytes.extend_from_slice(&I::NOP.to_le_bytes());
                    }
                    if bytes.len() > start {
                        text.push_str(&format!("{:#06x}: {} nop (padding)\n", bytes.len() - n, n / 4));
                    }
                }
                Placed::Word(w, what) => {
                    text.push_str(&format!("{:#06x}: {w:08x}           {what}\n", bytes.len()));
                    bytes.extend_from_slice(&w.to_le_bytes());
                }
                Placed::Inst(inst, pc) => {
                    debug_assert_eq!(pc, bytes.len());
                    let info = I::info(inst.op);
                    let enc = info.encoding.expect("checked in pass 1");
                    let mut values = Vec::with_capacity(inst.operands.len());
                    for (k, o) in inst.operands.iter().enumerate() {
                        let v = match (enc.label, I::label(o)) {
                            (Some(lref), Some(l)) if lref.operand as usize == k => {
                                let target = *labels
                                    .get(l)
                                    .ok_or_else(|| err(f, format!("{}: undefined label {}", info.name, l.name())))?;
                                lref.value.value(pc as u64, target as u64)
                            }
                            _ => I::operand_value(o)
                                .ok_or_else(|| err(f, format!("{}: operand {k} has no value", info.name)))?,
                        };
                        values.push(v);
                    }
                    let words = enc.encode_words(&values).map_err(|e| err(f, format!("{}: {}", info.name, e.0)))?;
                    let hex: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
                    let line = format_inst(inst, &ctx, "//");
                    let shown = line.trim().split('\t').next_back().unwrap_or("").trim().trim_start_matches("// ");
                    text.push_str(&format!("{pc:#06x}: {:<18} {shown}\n", hex.join(" ")));
                    for w in words {
                        bytes.extend_from_slice(&w.to_le_bytes());
                    }
                }
            }
        }
        debug_assert_eq!(bytes.len(), end);
        symbols.push(Symbol { name: f.name.clone(), offset: start, len: end - start, listing: text });
    }
    while bytes.len() < code_len {
        bytes.extend_from_slice(&I::NOP.to_le_bytes());
    }
    bytes.resize(rodata_offset, 0);
    for (c, at) in consts.iter().zip(const_at) {
        bytes.resize(at, 0);
        bytes.extend_from_slice(&c.bytes);
    }
    Ok(Image { bytes, code_len, rodata_offset, symbols })
}
