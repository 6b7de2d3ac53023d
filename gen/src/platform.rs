//! What an instruction set brings to the emitters and the JIT: its table ([`InstructionSet`]), its calling
//! conventions ([`Conventions`]) and its spelling ([`Spelling`]). Kernels, the catalog and the runtime write
//! `I: Isa`.

use crate::abi::Conventions;
use crate::isa::InstructionSet;
use crate::syntax::Spelling;

/// An instruction set with its calling conventions and its spelling: everything a listing or a JIT image of
/// its functions needs. Implemented for every type that has the layers.
pub trait Isa: InstructionSet + Conventions + Spelling {}

impl<T: InstructionSet + Conventions + Spelling> Isa for T {}
