//! Lowering for the fixed-width ISAs (aarch64, riscv64): every instruction is one or two 32-bit words encoded
//! from the table ([`crate::isa::fixed`]); label operands take their values as the entry's [`LabelRef`] says.
//!
//! [`LabelRef`]: crate::isa::fixed::LabelRef

use super::image::{align_up, finish_image, place_constants, Image, Labels, Lower, Symbol};
use crate::abi::LandingPad;
use crate::error::GenError;
use crate::ir::{Function, Inst, Item};
use crate::isa::aarch64::Aarch64;
use crate::isa::fixed::Encoding;
use crate::isa::riscv64::Riscv64;
use crate::layout;
use crate::platform::Isa;
use crate::syntax::{format_inst, Directives};
use crate::target::Target;

/// An ISA whose instructions are 32-bit words encoded from the table (aarch64, riscv64).
pub trait FixedIsa: Isa<Encoding = Encoding> {
    /// The word of a landing pad (`bti c` on aarch64), if the ISA has it.
    fn landing_pad_word(pad: LandingPad) -> Option<u32>;
}

impl FixedIsa for Aarch64 {
    fn landing_pad_word(pad: LandingPad) -> Option<u32> {
        // `bti c` (`hint #34`).
        (pad == LandingPad::BtiC).then_some(0xd503_245f)
    }
}

impl FixedIsa for Riscv64 {
    fn landing_pad_word(_pad: LandingPad) -> Option<u32> {
        None
    }
}

enum Placed<'a, I: Isa> {
    Pad(usize),
    Word(u32, &'static str),
    Inst(&'a Inst<I>, usize),
}

macro_rules! lower_fixed {
    ($($isa:ty),*) => {$(
        impl Lower for $isa {
            fn lower(functions: &[&Function<Self>]) -> Result<Image, GenError> {
                lower_words(functions, false).map(|(image, _)| image)
            }
            fn disassemble(functions: &[&Function<Self>], _image: &Image) -> Result<Vec<String>, GenError> {
                lower_words(functions, true).map(|(_, text)| text)
            }
        }
    )*};
}
lower_fixed!(Aarch64, Riscv64);

fn err<I: Isa>(f: &Function<I>, message: String) -> GenError {
    GenError { function: f.name.clone(), message }
}

/// One function placed: its start, its end and its pieces.
struct PlacedFunction<'a, I: Isa> {
    start: usize,
    end: usize,
    pieces: Vec<Placed<'a, I>>,
}

/// Pass 1: the addresses of functions, labels and instructions (labels are defined in `labels`), and the length
/// of the code.
fn place<'a, I: FixedIsa>(
    functions: &[&Function<I>],
    items: &'a [layout::FunctionItems<'a, I>],
    labels: &mut Labels,
) -> Result<(Vec<PlacedFunction<'a, I>>, usize), GenError> {
    let mut placed = Vec::with_capacity(functions.len());
    let mut pc = 0usize;
    let mut section_align = 1usize << layout::FUNCTION_ALIGN_LOG2;
    for (f, items) in functions.iter().zip(items) {
        let mut p = Vec::new();
        let start = align_up(pc, 1 << layout::FUNCTION_ALIGN_LOG2);
        if start > pc {
            // Padding between functions belongs to neither; emitted before the function.
            p.push(Placed::Pad(start - pc));
        }
        pc = start;
        if let Some(pad) = layout::landing_pad(f) {
            let w =
                I::landing_pad_word(pad).ok_or_else(|| err(f, format!("no encoding of the landing pad {pad:?}")))?;
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
                Item::Label(l) => labels.define(l, pc).map_err(|e| err(f, e.message))?,
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
        placed.push(PlacedFunction { start, end: pc, pieces: p });
    }
    let code_len = if I::PAD_SECTION_END { align_up(pc, section_align) } else { pc };
    Ok((placed, code_len))
}

/// The words of `inst` at `pc`, label operands resolved.
fn encode_inst<I: FixedIsa>(f: &Function<I>, inst: &Inst<I>, pc: usize, labels: &Labels) -> Result<Vec<u32>, GenError> {
    let info = I::info(inst.op);
    let enc = info.encoding.expect("checked in pass 1");
    let mut values = Vec::with_capacity(inst.operands.len());
    for (k, o) in inst.operands.iter().enumerate() {
        let v = match (enc.label, I::label(o)) {
            (Some(lref), Some(l)) if lref.operand as usize == k => {
                let target =
                    labels.get(l).ok_or_else(|| err(f, format!("{}: undefined label {}", info.name, l.name())))?;
                lref.value.value(pc as u64, target as u64)
            }
            _ => I::operand_value(o).ok_or_else(|| err(f, format!("{}: operand {k} has no value", info.name)))?,
        };
        values.push(v);
    }
    enc.encode_words(&values).map_err(|e| err(f, format!("{}: {}", info.name, e.0)))
}

/// Lowers `functions` (in order) into one image and, with `text_on`, each function's listing (offset, words,
/// the description's instruction text).
fn lower_words<I: FixedIsa>(functions: &[&Function<I>], text_on: bool) -> Result<(Image, Vec<String>), GenError> {
    let ctx = Directives::of(Target::first_of(I::ARCH).format).print_ctx();
    let items: Vec<layout::FunctionItems<I>> = functions.iter().map(|f| layout::function_items(f)).collect();
    let mut labels = Labels::default();
    let (placed, code_len) = place(functions, &items, &mut labels)?;
    let (rodata_offset, consts) = place_constants(functions.iter().copied(), code_len, |l, at| labels.define(l, at))?;

    // Pass 2: encode.
    let mut bytes = Vec::with_capacity(rodata_offset + 4096);
    let mut symbols = Vec::new();
    let mut texts = Vec::new();
    for (f, PlacedFunction { start, end, pieces }) in functions.iter().zip(placed) {
        let mut text = String::new();
        for pl in pieces {
            match pl {
                Placed::Pad(n) => {
                    I::code_fill(&mut bytes, n);
                    if text_on && bytes.len() > start {
                        text.push_str(&format!("{:#06x}: {} nop (padding)\n", bytes.len() - n, n / 4));
                    }
                }
                Placed::Word(w, what) => {
                    if text_on {
                        text.push_str(&format!("{:#06x}: {w:08x}           {what}\n", bytes.len()));
                    }
                    bytes.extend_from_slice(&w.to_le_bytes());
                }
                Placed::Inst(inst, pc) => {
                    debug_assert_eq!(pc, bytes.len());
                    let words = encode_inst(f, inst, pc, &labels)?;
                    if text_on {
                        let hex: Vec<String> = words.iter().map(|w| format!("{w:08x}")).collect();
                        let line = format_inst(inst, &ctx);
                        let shown = line.trim().split('\t').next_back().unwrap_or("").trim();
                        let shown = shown.trim_start_matches(I::COMMENT).trim();
                        text.push_str(&format!("{pc:#06x}: {:<18} {shown}\n", hex.join(" ")));
                    }
                    for w in words {
                        bytes.extend_from_slice(&w.to_le_bytes());
                    }
                }
            }
        }
        debug_assert_eq!(bytes.len(), end);
        symbols.push(Symbol { name: f.name.clone(), offset: start, len: end - start });
        texts.push(text);
    }
    let fill = code_len - bytes.len();
    I::code_fill(&mut bytes, fill);
    let instructions = functions.iter().map(|f| f.insts().count()).sum();
    Ok((finish_image(bytes, code_len, rodata_offset, consts, symbols, instructions), texts))
}
