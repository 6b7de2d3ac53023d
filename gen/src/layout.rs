//! What the GNU as emitter ([`crate::emit`]) and the JIT lowering ([`crate::lower`]) share, so that a JIT image
//! has the bytes of the assembled listing: the function alignment, the items of a function in emission order
//! (prologue, body, epilogue) and the constant pool of a listing (deduplicated by name, in name order, each at
//! its alignment).

use crate::abi::LandingPad;
use crate::error::GenError;
use crate::ir::{Const, Function, Item};
use crate::platform::Isa;
use std::collections::BTreeMap;

/// Every function starts at a multiple of `1 << FUNCTION_ALIGN_LOG2` bytes.
pub const FUNCTION_ALIGN_LOG2: u32 = 5;

/// The items of a function as they are emitted, after the landing pad: prologue, body, epilogue.
pub struct FunctionItems<'a, I: Isa> {
    prologue: Vec<Item<I>>,
    body: &'a [Item<I>],
    epilogue: Vec<Item<I>>,
}

impl<I: Isa> FunctionItems<'_, I> {
    /// Prologue, body and epilogue, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Item<I>> + '_ {
        self.prologue.iter().chain(self.body).chain(&self.epilogue)
    }

    /// How many instructions the prologue and epilogue hold (those [`FunctionItems::iter`] yields beyond the
    /// body's).
    pub fn frame_insts(&self) -> usize {
        self.prologue.iter().chain(&self.epilogue).filter(|i| matches!(i, Item::Inst(_))).count()
    }
}

/// The items of `f` as they are emitted under its ABI (a naked function's: its body).
pub fn function_items<I: Isa>(f: &Function<I>) -> FunctionItems<'_, I> {
    let (prologue, epilogue) = prologue_epilogue(f);
    FunctionItems { prologue, body: &f.body, epilogue }
}

/// The prologue and epilogue of `f` under its ABI: none for a naked function.
pub fn prologue_epilogue<I: Isa>(f: &Function<I>) -> (Vec<Item<I>>, Vec<Item<I>>) {
    if f.frame.naked {
        (Vec::new(), Vec::new())
    } else {
        I::prologue_epilogue(f.abi, &f.frame)
    }
}

/// The landing pad `f` starts with: its ABI's, unless a naked function dropped it.
pub fn landing_pad<I: Isa>(f: &Function<I>) -> Option<LandingPad> {
    I::landing_pad(f.abi).filter(|_| f.frame.landing_pad)
}

/// The constants of `functions`, as the constant section holds them: one per name, in name order. Two
/// constants with one name and different contents or alignment are an error.
pub fn constants<'a, I: Isa>(functions: impl IntoIterator<Item = &'a Function<I>>) -> Result<Vec<Const>, GenError> {
    // Borrowed while deduplicated (the functions name a constant again and again), cloned once each.
    let mut consts: BTreeMap<&str, &Const> = BTreeMap::new();
    for f in functions {
        for c in &f.consts {
            match consts.get(c.label.name()) {
                Some(prev) if prev.bytes != c.bytes || prev.align != c.align => {
                    return Err(GenError {
                        function: f.name.clone(),
                        message: format!("constant {} defined twice with different contents", c.label.name()),
                    })
                }
                Some(_) => {}
                None => {
                    consts.insert(c.label.name(), c);
                }
            }
        }
    }
    Ok(consts.into_values().cloned().collect())
}
