//! Instruction-set descriptions.
//!
//! Each ISA module holds one table, written with [`define_isa!`](crate::define_isa): one entry per instruction
//! form, giving the builder method's name, its assembler syntax, its typed operands, the CPU features it needs
//! and (for fixed-width ISAs) its encoding. The macro derives from that single entry:
//!
//! * the `Op` enum and the static `OPS` table of [`OpInfo`] (what the printer, the feature check, the ISA report
//!   and the encoder read),
//! * a typed builder method `Builder::<Isa>::name(...)` taking exactly the operand types of the entry.
//!
//! Adding an instruction is adding one line to the table.

pub mod aarch64;
pub mod fixed;
pub mod riscv64;
pub mod x86_64;

use crate::label::Label;
use crate::target::Arch;
use std::fmt::Debug;

pub use crate::feature::{Feature, FeatureSet};

/// How a table entry's encoding is described: [`fixed::Encoding`] for the fixed-width ISAs, the iced-x86 codes
/// of its forms on x86_64 ([`x86_64::X86Encoding`]).
pub trait Encoding: Copy + Debug + 'static {
    /// For an instruction the supported assemblers lack: the raw word a listing prints in its place (with
    /// the mnemonic in a comment), from the operands' values.
    fn raw_word(&self, values: &[i64]) -> Option<Result<u32, fixed::EncodeError>>;
}

impl Encoding for fixed::Encoding {
    fn raw_word(&self, values: &[i64]) -> Option<Result<u32, fixed::EncodeError>> {
        (!self.gas).then(|| self.encode(values))
    }
}

/// Everything the table says about one instruction form.
#[derive(Debug)]
pub struct OpInfo<F: 'static, E: 'static = fixed::Encoding> {
    /// The builder method's name, unique in the table (`vpxor`, `pmull2`, ...).
    pub name: &'static str,
    /// The assembler syntax: a template with `{operand}` holes, or a bare mnemonic followed by the operands
    /// separated by commas.
    pub syntax: &'static str,
    /// Operand names, in order.
    pub operands: &'static [&'static str],
    /// Operand kinds (the builder's parameter types), in order.
    pub kinds: &'static [&'static str],
    /// Features the instruction requires.
    pub features: &'static [F],
    /// How it is encoded (every entry of the three tables has one; the JIT lowers through it).
    pub encoding: Option<E>,
}

impl<F: 'static, E: 'static> OpInfo<F, E> {
    /// The mnemonic: the first word of the syntax.
    pub fn mnemonic(&self) -> &'static str {
        self.syntax.split_whitespace().next().unwrap_or(self.syntax)
    }
}

/// What an emitter needs from the context to print an operand.
pub struct PrintCtx<'a> {
    /// Prefix of local labels (`.L` on ELF).
    pub local_label_prefix: &'a str,
}

impl PrintCtx<'_> {
    /// The printed name of a label.
    pub fn label(&self, l: &Label) -> String {
        format!("{}{}", self.local_label_prefix, l.name())
    }
}

/// An instruction set: its table, its operands and its registers. Calling conventions are in
/// [`crate::abi`], spelling in [`crate::syntax`]; [`crate::Isa`] is an instruction set with both.
pub trait InstructionSet: Sized + 'static {
    /// Which architecture this is.
    const ARCH: Arch;
    /// The opcode enum generated from the table.
    type Op: Copy + Eq + Debug + 'static;
    /// One operand.
    type Operand: Clone + Debug;
    /// A physical register.
    type Reg: Copy + Eq + Ord + Debug;
    /// A general-purpose register (what integer and pointer arguments are passed in).
    type Gpr: Copy + Eq + Debug + Into<Self::Reg>;
    /// The ISA's features.
    type Feature: Feature;
    /// How the table describes encodings.
    type Encoding: Encoding;

    /// The table entry of an opcode.
    fn info(op: Self::Op) -> &'static OpInfo<Self::Feature, Self::Encoding>;
    /// Every table entry.
    fn ops() -> &'static [OpInfo<Self::Feature, Self::Encoding>];
    /// Appends the registers an operand names.
    fn regs(operand: &Self::Operand, out: &mut Vec<Self::Reg>);
    /// The label an operand refers to, if any.
    fn label(operand: &Self::Operand) -> Option<&Label>;
    /// Prints an operand in the assembler's syntax.
    fn print_operand(operand: &Self::Operand, ctx: &PrintCtx) -> String;
    /// The value an operand contributes to an encoding (register number or immediate).
    fn operand_value(_operand: &Self::Operand) -> Option<i64> {
        None
    }
    /// The register's assembler name.
    fn reg_name(reg: Self::Reg) -> String;
}

/// Defines an ISA table. See the ISA modules for the entry syntax:
///
/// ```text
/// method: "syntax" (operand: Kind, ...) [Feature, ...] $(=> encoding)? ;
/// ```
///
/// The header names the ISA, its feature enum and, unless it is [`fixed::Encoding`], its encoding type.
#[macro_export]
macro_rules! define_isa {
    (
        isa: $isa:ty, feature: $feat:ident $(, encoding: $encty:ty)?;
        $( $(#[$doc:meta])* $name:ident : $syntax:literal ( $($arg:ident : $kind:ident),* ) [$($f:ident),*] $(=> $enc:expr)? ; )*
    ) => {
        /// Opcodes of this ISA, one per table entry.
        #[allow(non_camel_case_types, missing_docs)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Op { $($name),* }

        impl Op {
            /// Every opcode, in table order (`Op::ALL[i]` is described by `OPS[i]`).
            pub const ALL: &'static [Op] = &[$(Op::$name),*];
        }

        /// The instruction table: one entry per instruction form.
        pub static OPS: &[$crate::isa::OpInfo<$feat $(, $encty)?>] = &[
            $( $crate::isa::OpInfo {
                name: stringify!($name),
                syntax: $syntax,
                operands: &[$(stringify!($arg)),*],
                kinds: &[$(stringify!($kind)),*],
                features: &[$($feat::$f),*],
                encoding: $crate::define_isa!(@enc $($enc)?),
            } ),*
        ];

        #[allow(clippy::too_many_arguments)]
        impl $crate::builder::Builder<$isa> {
            $(
                $(#[$doc])*
                #[doc = concat!("`", $syntax, "`")]
                pub fn $name(&mut self, $($arg: impl Into<$kind>),*) -> &mut Self {
                    let operands = vec![$(Operand::from($arg.into())),*];
                    self.inst(Op::$name, operands)
                }
            )*
        }
    };
    (@enc) => { None };
    (@enc $enc:expr) => { Some($enc) };
}
