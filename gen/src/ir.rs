//! The intermediate representation every emitter, the ISA report and the JIT read: a function is a list of
//! items (instructions, labels, comments, unwind directives) plus its signature and feature set.

use crate::feature::FeatureSet;
use crate::isa::InstructionSet;
use crate::target::Abi;
use arrayvec::ArrayVec;
use std::fmt;

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
    /// Operands, in the table's order (a slice through `Deref`).
    pub operands: Operands<I::Operand>,
}

/// The most operands an instruction has in any table (x86_64 `vpclmulqdq`, aarch64 `stp`, riscv64 `vsetvli`...
/// have four). The builder's generated methods check their entry against it at compile time where a kernel calls
/// them, and a unit test checks every entry of the three tables.
pub const MAX_OPERANDS: usize = 4;

/// An instruction's operands, stored in the instruction: up to [`MAX_OPERANDS`] of them and their count, so that
/// building and dropping a function allocates and frees nothing per instruction (the JIT runs the builder at
/// startup). Reads as a slice (`Deref<Target = [T]>`); made from an array (a count over [`MAX_OPERANDS`] does
/// not compile), a `Vec` or a slice (more than [`MAX_OPERANDS`] panics). Backed by `arrayvec::ArrayVec`.
pub struct Operands<T>(ArrayVec<T, MAX_OPERANDS>);

impl<T> Operands<T> {
    /// No operands.
    pub const fn new() -> Self {
        Operands(ArrayVec::new_const())
    }

    /// Appends an operand. Panics when there are [`MAX_OPERANDS`] already.
    pub fn push(&mut self, o: T) {
        if self.0.try_push(o).is_err() {
            panic!("an instruction has at most {MAX_OPERANDS} operands");
        }
    }

    /// The operands, in order.
    pub fn as_slice(&self) -> &[T] {
        self.0.as_slice()
    }

    /// The operands, in order, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.0.as_mut_slice()
    }
}

impl<T> Default for Operands<T> {
    fn default() -> Self {
        Operands::new()
    }
}

impl<T> std::ops::Deref for Operands<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> std::ops::DerefMut for Operands<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: Clone> Clone for Operands<T> {
    fn clone(&self) -> Self {
        self.as_slice().iter().cloned().collect()
    }
}

impl<T: fmt::Debug> fmt::Debug for Operands<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: PartialEq> PartialEq for Operands<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for Operands<T> {}

impl<T> FromIterator<T> for Operands<T> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        let mut ops = Operands::new();
        ops.extend(iter);
        ops
    }
}

impl<T> Extend<T> for Operands<T> {
    fn extend<It: IntoIterator<Item = T>>(&mut self, iter: It) {
        iter.into_iter().for_each(|o| self.push(o));
    }
}

impl<T, const K: usize> From<[T; K]> for Operands<T> {
    fn from(a: [T; K]) -> Self {
        const { assert!(K <= MAX_OPERANDS, "an instruction has at most MAX_OPERANDS operands") };
        a.into_iter().collect()
    }
}

impl<T> From<Vec<T>> for Operands<T> {
    fn from(v: Vec<T>) -> Self {
        v.into_iter().collect()
    }
}

impl<T: Clone> From<&[T]> for Operands<T> {
    fn from(s: &[T]) -> Self {
        s.iter().cloned().collect()
    }
}

impl<'a, T> IntoIterator for &'a Operands<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// A C type of a parameter or of a return value, enough to print a prototype and a Rust `extern` declaration.
///
/// Every type is passed as one integer/pointer argument: in the ABI's next argument register, or in the next
/// stack slot ([`crate::abi::ArgLoc`]). A 32-bit value ([`CType::U32`], [`CType::I32`], [`CType::Int`]) arrives
/// in the low 32 bits of a 64-bit register (or of its stack slot): System V AMD64, Microsoft x64 and AAPCS64
/// (Apple's too) leave the upper 32 bits unspecified, so a kernel may assume nothing about them and extends
/// the value itself before it uses all 64 bits: `Builder::zero_extend32` on every ISA (two shifts; a signed
/// value has no helper yet). riscv64's LP64 passes a 32-bit value sign-extended to 64 bits (an unsigned one
/// too), in a register or on the stack, and a kernel may rely on that there. Pointers and 64-bit values
/// fill their register. A 32-bit return value is read by the caller from the low 32 bits of the return
/// register only (riscv64: the kernel must return it sign-extended, as LP64 says).
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
    /// `uint32_t` (a 32-bit value: see the type's documentation for its upper half)
    U32,
    /// `int32_t` (a 32-bit value)
    I32,
    /// `int` (32 bits on every supported target; a 32-bit value)
    Int,
    /// `const uint32_t *` (e.g. OpenSSL's `const unsigned int key[8]`)
    ConstU32Ptr,
    /// `uint32_t *`
    U32Ptr,
    /// `const uint64_t *`
    ConstU64Ptr,
    /// `uint64_t *`
    U64Ptr,
}

impl CType {
    /// The C spelling, ending in a space or `*` so that a name can follow.
    pub fn c(self) -> &'static str {
        match self {
            CType::ConstBytePtr => "const uint8_t *",
            CType::BytePtr => "uint8_t *",
            CType::Size => "size_t ",
            CType::U64 => "uint64_t ",
            CType::U32 => "uint32_t ",
            CType::I32 => "int32_t ",
            CType::Int => "int ",
            CType::ConstU32Ptr => "const uint32_t *",
            CType::U32Ptr => "uint32_t *",
            CType::ConstU64Ptr => "const uint64_t *",
            CType::U64Ptr => "uint64_t *",
        }
    }
    /// The Rust FFI spelling (C's `int` is `i32` on every supported target).
    pub fn rust(self) -> &'static str {
        match self {
            CType::ConstBytePtr => "*const u8",
            CType::BytePtr => "*mut u8",
            CType::Size => "usize",
            CType::U64 => "u64",
            CType::U32 => "u32",
            CType::I32 | CType::Int => "i32",
            CType::ConstU32Ptr => "*const u32",
            CType::U32Ptr => "*mut u32",
            CType::ConstU64Ptr => "*const u64",
            CType::U64Ptr => "*mut u64",
        }
    }
    /// Its size in bytes: 4 for the 32-bit values, 8 for pointers and 64-bit values. Apple's AAPCS64 packs
    /// stack arguments to this size; the other ABIs give each one an 8-byte slot.
    pub fn bytes(self) -> u8 {
        match self {
            CType::U32 | CType::I32 | CType::Int => 4,
            _ => 8,
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

/// A function's C signature.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    /// Parameters in order; each is where the ABI passes that argument ([`crate::abi::Conventions::arg_of`]).
    pub params: Vec<Param>,
    /// The return type, `None` for `void`; the value is in the ABI's return register
    /// ([`crate::abi::Conventions::ret_reg`]: rax, x0, a0), which the body writes before it returns.
    pub ret: Option<CType>,
}

impl Signature {
    /// The parameters' types, in order.
    pub fn types(&self) -> Vec<CType> {
        self.params.iter().map(|p| p.ty).collect()
    }
}

/// A parameter passed on the stack that the prologue loads into a register ([`crate::Builder::param_in`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackParam<R> {
    /// The register the body reads it in.
    pub reg: R,
    /// Its offset from the stack pointer on entry ([`crate::abi::ArgLoc::Stack`]).
    pub offset: i32,
    /// Its size on the stack: 8, or 4 for a 32-bit value packed by Apple's AAPCS64.
    pub bytes: u8,
}

/// Registers the function body uses that the ABI says the callee must preserve, and its stack needs.
#[derive(Clone, Debug)]
pub struct Frame<I: InstructionSet> {
    /// Callee-saved registers the body writes or reads, sorted.
    pub saved: Vec<I::Reg>,
    /// The number of integer/pointer parameters: the prologue moves those the ABI passes elsewhere than where
    /// the body reads them ([`crate::abi::Conventions::param_reg`]).
    pub params: usize,
    /// The local storage the body asked for ([`crate::Builder::frame`]); none by default.
    pub locals: Locals,
    /// The parameters passed on the stack that the prologue loads into registers, after its saves (empty for
    /// most functions).
    pub stack_params: Vec<StackParam<I::Gpr>>,
    /// Whether the body is the whole function ([`crate::Builder::naked`]): no prologue, epilogue or unwind
    /// data are derived; the body saves, restores and returns itself. For code imported as it is.
    pub naked: bool,
    /// Whether the function starts with its ABI's landing pad (every function but a naked one that asks
    /// otherwise, [`crate::Builder::without_landing_pad`]).
    pub landing_pad: bool,
}

/// A function's local storage on the stack: the prologue allocates it below the saved registers and the
/// epilogue frees it, each with its unwind items ([`crate::abi::Conventions::prologue_epilogue`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Locals {
    /// Bytes the body addresses (0: no local storage).
    pub bytes: u32,
    /// Their alignment (a power of two). Up to the ABI's stack alignment (16) the storage starts at the stack
    /// pointer; above it the prologue allocates `align - 16` bytes more and points the ISA's frame base
    /// register ([`crate::abi::Conventions::frame_base`]) at the aligned start, so that the stack pointer
    /// still moves by a constant, which every unwind format describes.
    pub align: u32,
}

impl Locals {
    /// Whether the storage needs an aligned base register (its alignment is above the stack's 16 bytes).
    pub fn over_aligned(&self) -> bool {
        self.bytes > 0 && self.align > 16
    }

    /// The bytes the prologue allocates for the storage: a multiple of 16, with room to align the base when
    /// [`Locals::over_aligned`].
    pub fn allocation(&self) -> u32 {
        if self.bytes == 0 {
            return 0;
        }
        let extra = if self.over_aligned() { self.align - 16 } else { 0 };
        self.bytes.div_ceil(16) * 16 + extra
    }
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
    /// The C prototype, e.g. `void f(uint8_t *state, size_t n);` or `int g(const uint32_t *key, uint32_t n);`
    /// (the C name: a format's symbol prefix, such as Mach-O's `_`, is not part of it).
    pub fn c_prototype(&self) -> String {
        let params: Vec<String> = self.signature.params.iter().map(|p| format!("{}{}", p.ty.c(), p.name)).collect();
        let ret = self.signature.ret.map_or("void ", CType::c);
        format!("{ret}{}({});", self.name, params.join(", "))
    }

    /// Renames the function to `name`, and with it the labels and constants the builder named after it
    /// ([`crate::Builder::label`] names them `<function>_<name>`): a symbol prefix applied to the
    /// description, before any emitter prints it ([`crate::Generator::prefix`]).
    pub fn rename(&mut self, name: &str) {
        let old = format!("{}_", self.name);
        let renamed = |l: &mut Label| {
            if let Some(rest) = l.name().strip_prefix(&old) {
                *l = Label::named(&format!("{name}_{rest}"));
            }
        };
        for item in &mut self.body {
            match item {
                Item::Label(l) => renamed(l),
                Item::Inst(inst) => inst.operands.as_mut_slice().iter_mut().filter_map(I::label_mut).for_each(renamed),
                _ => {}
            }
        }
        self.consts.iter_mut().for_each(|c| renamed(&mut c.label));
        self.name = name.to_string();
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

#[cfg(test)]
mod tests {
    use super::{Operands, MAX_OPERANDS};
    use std::sync::Arc;

    /// Operands hold their values in the instruction: each is dropped once (no leak, no double drop) whether
    /// the instruction is dropped, cloned or made from an array, a `Vec` or a slice; they read as a slice.
    #[test]
    fn operands_own_their_values_once() {
        let a = Arc::new(7);
        {
            let ops = Operands::from([a.clone(), a.clone(), a.clone()]);
            assert_eq!(Arc::strong_count(&a), 4);
            let copy = ops.clone();
            assert_eq!(Arc::strong_count(&a), 7);
            assert_eq!(copy.len(), 3);
            assert_eq!(format!("{copy:?}"), "[7, 7, 7]");
            let from_vec: Operands<_> = vec![a.clone()].into();
            let from_slice: Operands<_> = ops[..2].into();
            assert_eq!((from_vec.len(), from_slice.len()), (1, 2));
            assert_eq!(Arc::strong_count(&a), 10);
        }
        assert_eq!(Arc::strong_count(&a), 1);
        let mut ops = Operands::new();
        assert!(ops.is_empty());
        ops.extend((0..MAX_OPERANDS as i32).map(|i| i * 2));
        ops[1] = 5;
        assert_eq!(&ops[..], &[0, 5, 4, 6][..MAX_OPERANDS]);
        assert_eq!(ops, ops.clone());
    }

    /// No entry of any table has more operands than an instruction holds (the builder's methods also check
    /// it when a kernel calls them, at compile time; this covers the entries no kernel calls yet).
    #[test]
    fn max_operands_covers_every_table() {
        use crate::isa::{aarch64, riscv64, x86_64};
        let counts = x86_64::OPS.iter().map(|o| (o.name, o.operands.len()));
        let counts = counts.chain(aarch64::OPS.iter().map(|o| (o.name, o.operands.len())));
        let counts: Vec<_> = counts.chain(riscv64::OPS.iter().map(|o| (o.name, o.operands.len()))).collect();
        for (name, n) in &counts {
            assert!(*n <= MAX_OPERANDS, "{name} has {n} operands, more than MAX_OPERANDS");
        }
        assert!(counts.iter().any(|&(_, n)| n == MAX_OPERANDS), "MAX_OPERANDS is larger than any entry needs");
    }

    /// More than [`MAX_OPERANDS`] is refused, not written past the end.
    #[test]
    #[should_panic(expected = "at most")]
    fn operands_refuse_one_too_many() {
        let _: Operands<u8> = vec![0; MAX_OPERANDS + 1].into();
    }
}
