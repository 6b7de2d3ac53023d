//! Instruction-set descriptions.
//!
//! Each ISA module holds one table, written with [`define_isa!`](crate::define_isa): one entry per instruction
//! form, giving the builder method's name, its assembler syntax, its typed operands, the CPU features it needs
//! and (for fixed-width ISAs) its encoding. The macro derives from that single entry:
//!
//! * the `Op` enum and the static `OPS` table of [`OpInfo`] (what the printer, the feature check, the ISA report
//!   and the encoder read),
//! * the typed builder methods: `Builder::<Isa>::name(...)` taking exactly the entry's operand kinds, or, for
//!   entries marked `as method`, one method per mnemonic whose form the operand types choose
//!   (`b.vmovdqu(xmm, mem)` is the load, `b.vmovdqu(mem, ymm)` the 256-bit store).
//!
//! Adding an instruction is two entries: one in the ISA's table here, one in its semantics table
//! ([`crate::sem`], in table order; a unit test names an entry left without one). The builder checks each
//! instruction's operands when it is added ([`InstructionSet::check_operands`]) from the same table entry: the
//! field maps of the fixed-width encodings ([`fixed::Range`]), on x86_64 the immediate ranges of the operand kinds
//! ([`x86_64::IMM_RANGES`], held to iced-x86's data by a test).
//!
//! ```
//! use asmgen::isa::x86_64::{mem, regs::*, X86Feature, Xmm, Ymm, X86_64};
//! use asmgen::{Abi, Builder};
//! let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[X86Feature::Avx, X86Feature::Avx2]);
//! b.vmovdqu(Ymm(0), mem(RSI, 0)); // entry vmovdqu_load_y
//! b.vpxor(Ymm(0), Ymm(0), Ymm(1)); // entry vpxor_y
//! b.vmovdqu(mem(RDI, 0), Xmm(0)); // entry vmovdqu_store
//! b.mov(RAX, 5).mov(RAX, mem(RSI, 8)); // entries mov, mov_load
//! ```
//!
//! Operands that fit no form do not compile:
//!
//! ```compile_fail
//! use asmgen::isa::x86_64::{mem, regs::*, X86Feature, Xmm, Ymm, X86_64};
//! use asmgen::{Abi, Builder};
//! let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[X86Feature::Avx, X86Feature::Avx2]);
//! b.vpxor(Ymm(0), Xmm(0), Ymm(1)); // no form mixes xmm and ymm
//! ```

pub mod aarch64;
#[doc(hidden)]
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
    /// The label operand's index and how its value is computed, for entries that refer to a label (so a
    /// listing can spell a page or page-offset reference as its object format does).
    fn label_operand(&self) -> Option<(usize, fixed::LabelValue)> {
        None
    }
}

impl Encoding for fixed::Encoding {
    fn raw_word(&self, values: &[i64]) -> Option<Result<u32, fixed::EncodeError>> {
        (!self.gas).then(|| self.encode(values))
    }
    fn label_operand(&self) -> Option<(usize, fixed::LabelValue)> {
        self.label.map(|l| (l.operand as usize, l.value))
    }
}

/// Everything the table says about one instruction form.
#[derive(Debug)]
pub struct OpInfo<F: 'static, E: 'static = fixed::Encoding> {
    /// The entry's name, unique in the table (`vpxor_y`, `pmull2`, ...): its `Op` variant.
    pub name: &'static str,
    /// The builder method the entry is a form of: its `as` name in the table, else its own name (`vpxor` for
    /// both `vpxor` and `vpxor_y`).
    pub method: &'static str,
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
    /// The mnemonic: the first word of the syntax, after a prefix (x86_64's `rep movsb`: `movsb`).
    pub fn mnemonic(&self) -> &'static str {
        let mut words = self.syntax.split_whitespace();
        match words.next() {
            Some("rep") => words.next().unwrap_or(self.syntax),
            first => first.unwrap_or(self.syntax),
        }
    }
}

/// What an emitter needs from the context to print an operand.
pub struct PrintCtx<'a> {
    /// Prefix of local labels (`.L` on ELF).
    pub local_label_prefix: &'a str,
    /// How a reference to a label's 4 KiB page (`adrp`) and to its offset in that page (`add`) are spelled.
    pub page_refs: PageRefs,
}

/// The text around a label naming its 4 KiB page or its offset in the page: ELF `adrp x0, label` and
/// `add x0, x0, :lo12:label`, Mach-O `adrp x0, label@PAGE` and `add x0, x0, label@PAGEOFF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRefs {
    /// Before and after the label of a page reference.
    pub page: (&'static str, &'static str),
    /// Before and after the label of a page-offset reference.
    pub offset: (&'static str, &'static str),
}

impl PrintCtx<'_> {
    /// The printed name of a label.
    pub fn label(&self, l: &Label) -> String {
        format!("{}{}", self.local_label_prefix, l.name())
    }

    /// A printed label operand as a reference of kind `value` (a page, a page offset, or plain).
    pub fn label_ref(&self, printed: &str, value: fixed::LabelValue) -> String {
        let (before, after) = match value {
            fixed::LabelValue::Offset => return printed.to_string(),
            fixed::LabelValue::Page => self.page_refs.page,
            fixed::LabelValue::Lo12 => self.page_refs.offset,
        };
        format!("{before}{printed}{after}")
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
    /// The registers an entry writes without naming them (x86_64's string instructions: rsi, rdi, rcx), which the
    /// builder saves where the ABI makes them callee-saved.
    #[inline]
    fn implicit_regs(_op: Self::Op) -> &'static [Self::Reg] {
        &[]
    }
    /// Appends the registers every operand names, in order: [`InstructionSet::regs`] of each (an ISA may
    /// override it with one call per instruction instead of one per operand; the builder calls it per instruction).
    #[inline]
    fn regs_of(operands: &[Self::Operand], out: &mut Vec<Self::Reg>) {
        for o in operands {
            Self::regs(o, out);
        }
    }
    /// The registers `operands` name as a set of bits, one per register (each register its own bit, the same
    /// for every instruction), or `None` where this ISA has no such numbering (the default) or a register has
    /// no bit. The builder handles an instruction's registers ([`InstructionSet::regs_of`]) only when one of
    /// them is new to the function: at the JIT's startup, once per instruction.
    #[inline]
    fn reg_bits(_operands: &[Self::Operand]) -> Option<u64> {
        None
    }
    /// The label an operand refers to, if any.
    fn label(operand: &Self::Operand) -> Option<&Label>;
    /// The label an operand refers to, to replace it ([`crate::Function::rename`]).
    fn label_mut(operand: &mut Self::Operand) -> Option<&mut Label>;
    /// Whether dropping `operand` does nothing (it holds no label, nor anything else that owns memory), so that
    /// it may be forgotten instead: the builder, handing an instruction to a sink ([`crate::builder::Sink`]),
    /// skips the drop call per instruction then. False (always drop) unless an ISA says otherwise.
    #[inline]
    fn owns_nothing(_operand: &Self::Operand) -> bool {
        false
    }
    /// Prints an operand in the assembler's syntax.
    fn print_operand(operand: &Self::Operand, ctx: &PrintCtx) -> String;
    /// The value an operand contributes to an encoding (register number or immediate).
    fn operand_value(_operand: &Self::Operand) -> Option<i64> {
        None
    }
    /// The register's assembler name.
    fn reg_name(reg: Self::Reg) -> String;
    /// Checks an instruction's operands against every rule its encoding relies on (register classes,
    /// immediate ranges, shift counts, lanes, scaled offsets), from the table's own data: the error says what
    /// is wrong with the value written and the range allowed (`shift 32 out of range 0..=31 for 32-bit
    /// elements`). The builder runs it when the instruction is added ([`crate::Builder::inst`]) and names the
    /// function and the instruction; the values of labels are checked when the code is laid out.
    fn check_operands(_op: Self::Op, _operands: &[Self::Operand]) -> Result<(), String> {
        Ok(())
    }
}

/// An instruction as the assembler reads it, for messages: the entry's syntax with its operands (labels by
/// name, no padding).
pub fn inst_text<I: InstructionSet>(op: I::Op, operands: &[I::Operand]) -> String {
    let info = I::info(op);
    let ctx = PrintCtx { local_label_prefix: "", page_refs: PageRefs { page: ("", ""), offset: ("", "") } };
    let printed: Vec<String> = operands.iter().map(|o| I::print_operand(o, &ctx)).collect();
    if info.syntax.contains('{') {
        let mut t = info.syntax.to_string();
        for (name, p) in info.operands.iter().zip(&printed) {
            t = t.replace(&format!("{{{name}}}"), p);
        }
        t
    } else if printed.is_empty() {
        info.syntax.to_string()
    } else {
        format!("{} {}", info.syntax, printed.join(", "))
    }
}

/// Defines an ISA table. See the ISA modules for the entry syntax:
///
/// ```text
/// methods { $(/// doc)* method(operand, ...); ... }   (may be empty)
/// entry: "syntax" (operand: Kind, ...) [Feature, ...] $(as method)? $(=> encoding)? ;
/// ```
///
/// The header names the ISA, its feature enum and, unless it is [`fixed::Encoding`], its encoding type. This
/// macro derives the table's data (`Op`, `OPS`, `METHODS`); each ISA keeps its entries in a macro
/// (`x86_64_table!`, ...) that expands them here and, through
/// [`define_builder_methods!`](crate::define_builder_methods), into the builder's methods in `builder/`, so
/// that `isa/` holds tables only. An entry without `as` gets a builder method of its own name taking exactly
/// its operand kinds; entries marked `as method` are forms of one builder method declared in `methods`.
#[macro_export]
macro_rules! define_isa {
    (
        isa: $isa:ty, feature: $feat:ident $(, encoding: $encty:ty)?;
        methods { $( $(#[$mdoc:meta])* $method:ident ( $($param:ident),* ) ; )* }
        $( $(#[$doc:meta])* $name:ident : $syntax:literal ( $($arg:ident : $kind:ident),* ) [$($f:ident),*]
            $(as $as:ident)? $(=> $enc:expr)? ; )*
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
                method: $crate::define_isa!(@method $name $($as)?),
                syntax: $syntax,
                operands: &[$(stringify!($arg)),*],
                kinds: &[$(stringify!($kind)),*],
                features: &[$($feat::$f),*],
                encoding: $crate::define_isa!(@enc $($enc)?),
            } ),*
        ];

        /// The builder methods that have several forms (or a name other than their entry's), in declaration
        /// order.
        pub const METHODS: &[&str] = &[$(stringify!($method)),*];

    };
    (@method $name:ident) => { stringify!($name) };
    (@method $name:ident $as:ident) => { stringify!($as) };
    (@enc) => { None };
    (@enc $enc:expr) => { Some($enc) };
}

/// The builder's check of a fixed-width entry's operands ([`InstructionSet::check_operands`]): their
/// values (`value`; `None` for a label, or an operand the ISA checks otherwise) through the entry's fields;
/// an error names the operand where the field's map gives no range of its own.
#[inline]
pub fn check_fixed_fields<F, O>(
    info: &OpInfo<F, fixed::Encoding>,
    operands: &[O],
    value: impl Fn(&O) -> Option<i64>,
) -> Result<(), String> {
    let Some(enc) = info.encoding else { return Ok(()) };
    let mut values = [None; 4];
    for (v, o) in values.iter_mut().zip(operands) {
        *v = value(o);
    }
    enc.check(&values[..operands.len().min(4)]).map_err(|(i, e)| match e {
        fixed::FieldError::Range(e) => e.to_string(),
        fixed::FieldError::Bits { .. } => format!("operand {}: {e}", info.operands.get(i as usize).unwrap_or(&"?")),
    })
}

#[cfg(test)]
mod tests {
    use super::{aarch64, riscv64, x86_64};
    use crate::ir::Item;
    use crate::{Abi, Builder};

    /// Every method declared in a table's `methods` has at least one form, and every entry's method is its own
    /// name or a declared one.
    fn check_methods(table: &str, methods: &[&str], ops: &[(&str, &str)]) {
        for m in methods {
            assert!(ops.iter().any(|(_, method)| method == m), "{table}: method {m} has no form");
        }
        for (name, method) in ops {
            assert!(name == method || methods.contains(method), "{table}: {name} is a form of undeclared {method}");
        }
    }

    #[test]
    fn every_method_has_forms() {
        let x: Vec<_> = x86_64::OPS.iter().map(|o| (o.name, o.method)).collect();
        check_methods("x86_64", x86_64::METHODS, &x);
        let a: Vec<_> = aarch64::OPS.iter().map(|o| (o.name, o.method)).collect();
        check_methods("aarch64", aarch64::METHODS, &a);
        let r: Vec<_> = riscv64::OPS.iter().map(|o| (o.name, o.method)).collect();
        check_methods("riscv64", riscv64::METHODS, &r);
    }

    #[test]
    fn operand_types_choose_the_form() {
        use x86_64::{mem, regs::*, Op, X86Feature, Xmm, Ymm, X86_64};
        let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[X86Feature::Avx, X86Feature::Avx2]);
        b.vmovdqu(Xmm(0), mem(RSI, 0)).vmovdqu(mem(RDI, 0), Xmm(0));
        b.vmovdqu(Ymm(1), mem(RSI, 32)).vmovdqu(mem(RDI, 32), Ymm(1));
        b.vpxor(Xmm(2), Xmm(2), Xmm(3)).vpxor(Ymm(2), Ymm(2), mem(RSI, 64));
        b.mov(RAX, RCX).mov(RAX, 5).mov(RAX, mem(RSI, 8)).mov(mem(RDI, 8), RAX);
        b.vpshufd(Xmm(1), Xmm(2), 0x4e).vpshufd(Ymm(1), Ymm(2), 0x4e);
        let f = b.finish().unwrap();
        let ops: Vec<Op> =
            f.body.iter().filter_map(|i| if let Item::Inst(i) = i { Some(i.op) } else { None }).collect();
        use Op::*;
        assert_eq!(
            ops,
            [
                vmovdqu_load,
                vmovdqu_store,
                vmovdqu_load_y,
                vmovdqu_store_y,
                vpxor,
                vpxor_y,
                mov,
                mov,
                mov_load,
                mov_store,
                vpshufd,
                vpshufd_y
            ]
        );

        use aarch64::{regs::*, Aarch64, Op as A, V};
        let mut b = Builder::<Aarch64>::new("f", Abi::Aapcs64, &[]);
        b.cmp(X0, X1).cmp(X0, 16).add(X0, X0, X1).add(X3, SP, 16).ldr(X2, X1, 8).ldr(V(0), X1, 16);
        b.stp_pre(X29, X30, X4, -16).ldp_post(X29, X30, X4, 16);
        let f = b.finish().unwrap();
        let ops: Vec<A> = f.body.iter().filter_map(|i| if let Item::Inst(i) = i { Some(i.op) } else { None }).collect();
        assert_eq!(ops, [A::cmp, A::cmp_imm, A::add, A::add_imm, A::ldr_x, A::ldr_q, A::stp_x_pre, A::ldp_x_post]);
    }
}
