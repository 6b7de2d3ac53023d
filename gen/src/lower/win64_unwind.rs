//! Win64 unwind data for a lowered image, so a JIT on Windows can register its kernels with the OS
//! (`RtlAddFunctionTable`) as the linker registers the listings' `.pdata`/`.xdata`: each function's
//! `UNWIND_INFO` from its prologue's unwind steps ([`crate::syntax::seh`], the encoder the NASM listings use),
//! with the offsets where the image's prologue instructions end.

use super::image::Image;
use crate::error::GenError;
use crate::ir::{Cfi, Function, Item};
use crate::isa::x86_64::X86_64;
use crate::layout;
use crate::syntax::seh::{Step, UnwindInfo};
use iced_x86::{Decoder, DecoderOptions};

/// The unwind data of an image: the `UNWIND_INFO`s, to be placed after the image (4-aligned), and one
/// `RUNTIME_FUNCTION` per function: begin and end offsets in the image, and its `UNWIND_INFO`'s offset in
/// [`Win64Unwind::xdata`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Win64Unwind {
    /// The `UNWIND_INFO` structures, each a multiple of 4 bytes.
    pub xdata: Vec<u8>,
    /// Per function: (begin, end, offset of its `UNWIND_INFO` in `xdata`).
    pub functions: Vec<(u32, u32, u32)>,
}

/// The unwind data of `image`, lowered from `functions` (in the same order). An error names a function whose
/// prologue the data cannot describe (over 255 bytes, or not followed by the end-of-prologue item).
pub fn win64_unwind(functions: &[&Function<X86_64>], image: &Image) -> Result<Win64Unwind, GenError> {
    let mut out = Win64Unwind::default();
    for (f, sym) in functions.iter().zip(&image.symbols) {
        let info = unwind_info(f, &image.bytes[sym.offset..sym.offset + sym.len])?;
        let at = u32::try_from(out.xdata.len()).expect("unwind data under 4 GiB");
        out.xdata.extend(info.bytes(|o| *o));
        let (begin, end) = (sym.offset as u32, (sym.offset + sym.len) as u32);
        out.functions.push((begin, end, at));
    }
    Ok(out)
}

/// The `UNWIND_INFO` of `f`, whose lowered bytes are `code`: each prologue step at the end of the instruction
/// before it (the items after the landing pad, up to the end of the prologue, are instructions and unwind
/// items only).
fn unwind_info(f: &Function<X86_64>, code: &[u8]) -> Result<UnwindInfo<u8>, GenError> {
    let fail = |message: &str| GenError { function: f.name.clone(), message: message.into() };
    let mut pc = if crate::layout::landing_pad(f).is_some() { 4 } else { 0 };
    let mut info = UnwindInfo { prologue_end: None, steps: Vec::new() };
    let offset = |pc: usize| u8::try_from(pc).map_err(|_| fail("a prologue over 255 bytes has no Win64 unwind data"));
    for item in layout::function_items(f).iter() {
        match item {
            Item::Inst(_) => {
                let mut d = Decoder::with_ip(64, code.get(pc..).unwrap_or_default(), 0, DecoderOptions::NONE);
                let len = d.decode().len();
                if len == 0 {
                    return Err(fail("the prologue runs past the function's code"));
                }
                pc += len;
            }
            Item::Cfi(Cfi::EndPrologue) => {
                info.prologue_end = Some(offset(pc)?);
                return Ok(info);
            }
            Item::Cfi(c) => {
                if let Some(step) = Step::of(c) {
                    info.steps.push((offset(pc)?, step));
                }
            }
            Item::Comment(_) | Item::Blank => {}
            Item::Label(_) | Item::Align(_) => return Err(fail("a label or alignment inside the prologue")),
        }
    }
    Err(fail("no end of the prologue"))
}
