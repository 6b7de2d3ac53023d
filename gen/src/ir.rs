//! The intermediate representation every emitter, the ISA report and the JIT read: a function is a list of
//! items (instructions, labels, comments, unwind directives) plus its signature and feature set.

use crate::feature::FeatureSet;
use crate::isa::InstructionSet;
use crate::target::Abi;

pub use crate::label::Label;

/// An unwind directive, derived from the prologue; printed as `.cfi_*` on ELF and as SEH directives
/// (`.seh_*`) on COFF. The first three are CFI only; the others say what a prologue step did, and each object
/// format spells them its own way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cfi {
    /// The canonical frame address moved by this many bytes (stack grew by a positive amount).
    AdjustCfaOffset(i32),
    /// `reg` was saved at this offset from the current stack pointer.
    RelOffset(String, i32),
    /// `reg` has its caller's value again.
    Restore(String),
    /// `reg` was pushed (CFI: the CFA offset grew by 8 and `reg` is at offset 0; SEH: `.seh_pushreg`).
    Push(String),
    /// The stack pointer was lowered by this many bytes (CFI: the CFA offset; SEH: `.seh_stackalloc`).
    Alloc(i32),
    /// Vector register `reg` was stored at this offset from the stack pointer (CFI: `.cfi_rel_offset`; SEH:
    /// `.seh_savexmm`).
    SaveVec(String, i32),
    /// The prologue ends here (SEH: `.seh_endprologue`; nothing in CFI).
    EndPrologue,
    /// ARM64 SEH, where every prologue and epilogue instruction has an unwind code: `regs` (one register or a
    /// consecutive pair, x or d) were stored at `offset` from the stack pointer, or, when `pre_index`, at the
    /// stack pointer after the store lowered it by `offset` (`.seh_save_regp`, `.seh_save_fregp_x`, ...). In an
    /// epilogue, the load that undoes that store. Nothing in CFI.
    SaveRegs {
        /// The registers, by name.
        regs: Vec<String>,
        /// The offset from the stack pointer, or the allocation when `pre_index`.
        offset: i32,
        /// Whether the store pre-decremented the stack pointer (the load post-increments it).
        pre_index: bool,
    },
    /// ARM64 SEH: a prologue instruction that saves nothing, the landing pad (`.seh_nop`). Nothing in CFI.
    Nop,
    /// SEH: the epilogue starts here (`.seh_startepilogue`). Nothing in CFI.
    StartEpilogue,
    /// SEH: the epilogue's unwound part ends here, before the return (`.seh_endepilogue`). Nothing in CFI.
    EndEpilogue,
}

/// One line of a function body.
#[derive(Clone, Debug)]
pub enum Item<I: InstructionSet> {
    /// An instruction.
    Inst(Inst<I>),
    /// A label definition.
    Label(Label),
    /// A comment line from the kernel source.
    Comment(String),
    /// An empty line (visual grouping).
    Blank,
    /// Align the next instruction to `1 << log2` bytes.
    Align(u32),
    /// An unwind directive.
    Cfi(Cfi),
}

/// An instruction: an opcode from the ISA's table and its operands.
#[derive(Clone, Debug)]
pub struct Inst<I: InstructionSet> {
    /// The table entry.
    pub op: I::Op,
    /// Operands, in the table's order.
    pub operands: Vec<I::Operand>,
}

/// A C type of a parameter, enough to print a prototype and a Rust `extern` declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CType {
    /// `const uint8_t *`
    ConstBytePtr,
    /// `uint8_t *`
    BytePtr,
    /// `size_t`
    Size,
    /// `uint64_t`
    U64,
}

impl CType {
    /// The C spelling.
    pub fn c(self) -> &'static str {
        match self {
            CType::ConstBytePtr => "const uint8_t *",
            CType::BytePtr => "uint8_t *",
            CType::Size => "size_t ",
            CType::U64 => "uint64_t ",
        }
    }
    /// The Rust FFI spelling.
    pub fn rust(self) -> &'static str {
        match self {
            CType::ConstBytePtr => "*const u8",
            CType::BytePtr => "*mut u8",
            CType::Size => "usize",
            CType::U64 => "u64",
        }
    }
}

/// A parameter: its name, type and what it means.
#[derive(Clone, Debug)]
pub struct Param {
    /// Name in the prototype.
    pub name: &'static str,
    /// Type.
    pub ty: CType,
}

/// A function's C signature (all functions return `void`).
#[derive(Clone, Debug)]
pub struct Signature {
    /// Parameters in order; each is where the ABI passes that argument ([`crate::abi::Conventions::arg`]).
    pub params: Vec<Param>,
}

/// Registers the function body uses that the ABI says the callee must preserve, and its stack needs.
#[derive(Clone, Debug)]
pub struct Frame<I: InstructionSet> {
    /// Callee-saved registers the body writes or reads, sorted.
    pub saved: Vec<I::Reg>,
    /// The number of integer/pointer parameters: the prologue moves those the ABI passes elsewhere than where
    /// the body reads them ([`crate::abi::Conventions::param_reg`]).
    pub params: usize,
}

/// A read-only constant, placed in the listing's constant section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Const {
    /// Its label.
    pub label: Label,
    /// Alignment in bytes.
    pub align: u32,
    /// What it is, printed above it.
    pub comment: String,
    /// Contents.
    pub bytes: Vec<u8>,
}

/// A finished function, ready for an emitter.
#[derive(Clone, Debug)]
pub struct Function<I: InstructionSet> {
    /// Symbol name (without the object format's symbol prefix).
    pub name: String,
    /// Documentation, printed above the function.
    pub doc: Vec<String>,
    /// The calling convention it was built for (its parameters' registers, its prologue and epilogue).
    pub abi: Abi,
    /// The signature.
    pub signature: Signature,
    /// Features the function was allowed to use.
    pub allowed: FeatureSet<I::Feature>,
    /// Features its instructions actually require.
    pub required: FeatureSet<I::Feature>,
    /// The saved registers.
    pub frame: Frame<I>,
    /// Body, without prologue and epilogue.
    pub body: Vec<Item<I>>,
    /// Constants the body refers to.
    pub consts: Vec<Const>,
}

impl<I: InstructionSet> Function<I> {
    /// The C prototype, e.g. `void f(uint8_t *state, size_t n);` (the C name: a format's symbol prefix, such as
    /// Mach-O's `_`, is not part of it).
    pub fn c_prototype(&self) -> String {
        let params: Vec<String> = self.signature.params.iter().map(|p| format!("{}{}", p.ty.c(), p.name)).collect();
        format!("void {}({});", self.name, params.join(", "))
    }

    /// Instructions in the body.
    pub fn insts(&self) -> impl Iterator<Item = &Inst<I>> {
        self.body.iter().filter_map(|i| match i {
            Item::Inst(inst) => Some(inst),
            _ => None,
        })
    }
}

/// A listing: the functions of one kernel family for one target, written to `generated/<target>/<name>.S`.
pub struct Listing<I: InstructionSet> {
    /// File stem, e.g. `ghash`.
    pub name: String,
    /// What the listing contains.
    pub title: String,
    /// Functions in order.
    pub functions: Vec<Function<I>>,
}
