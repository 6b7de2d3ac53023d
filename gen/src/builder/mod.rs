//! The typed builder kernels are written with.
//!
//! A kernel is a Rust function that takes a `&mut Builder<Isa>` and calls one method per instruction; the methods
//! are generated from the ISA table (see [`crate::isa`]), so their parameters are typed by operand kind. Macros
//! are Rust functions, unrolling is a Rust loop. The builder checks every instruction against the features the
//! function was declared with: using an instruction the target's feature set does not allow is an error when
//! the listing is generated, not when it is assembled.

use crate::abi::ArgLoc;
use crate::feature::FeatureSet;
use crate::hash::{FastMap, FastSet};
pub mod aarch64;
pub mod riscv64;
pub mod x86_64;

use crate::ir::{CType, Const, Frame, Function, Inst, Item, Label, Locals, Operands, Param, Signature, StackParam};
use crate::platform::Isa;
use crate::target::Abi;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::sync::Arc;

pub use crate::error::GenError;

/// Builds one function.
pub struct Builder<I: Isa> {
    name: String,
    doc: Vec<String>,
    abi: Abi,
    params: Vec<Param>,
    /// The stack-passed parameters the prologue loads ([`Builder::param_in`]).
    stack_params: Vec<StackParam<I::Gpr>>,
    /// The return type ([`Builder::returns`]).
    ret: Option<CType>,
    allowed: FeatureSet<I::Feature>,
    required: FeatureSet<I::Feature>,
    body: Vec<Item<I>>,
    consts: Vec<Const>,
    /// The next suffix to try per label name (names are never released, so the smaller ones are taken).
    label_next: FastMap<String, u32>,
    /// A buffer the next label's name is written into.
    label_scratch: String,
    /// Callee-saved registers the body uses, in order of first use.
    saved: Vec<I::Reg>,
    /// Scratch for the registers of one operand.
    regs: Vec<I::Reg>,
    /// The registers whose use has been handled ([`reg_bits`](crate::isa::InstructionSet::reg_bits)).
    regs_seen: u64,
    /// The labels bound, by allocation (a label and its clones), and the labels themselves (kept, so that an
    /// address is not reused while the builder lives).
    defined_at: FastSet<usize>,
    defined: Vec<Label>,
    /// The labels instructions refer to, one per allocation (most references share their label's: a hash of
    /// the address, not of the name, per reference).
    referenced: Vec<Label>,
    referenced_at: FastSet<usize>,
    /// The address of the last label referenced (runs of instructions read one constant).
    last_referenced: usize,
    error: Option<String>,
    /// The local storage asked for ([`Builder::frame`]).
    locals: Locals,
    /// Whether the body is the whole function ([`Builder::naked`]), and whether it starts with the landing pad.
    naked: bool,
    landing_pad: bool,
    /// Whether comment, blank and documentation lines are kept ([`without_text`] drops them).
    text: bool,
    /// Where the body goes instead of `body` ([`streaming`]): the JIT's lowering, fed as the body is made.
    sink: Option<Box<dyn Sink<I>>>,
}

/// Takes a function's body as it is built, instead of the builder's items ([`streaming`]): what the JIT
/// lowers straight into machine code, without writing the items and reading them back. The builder still
/// checks every instruction (features, registers, labels) and still computes the frame; the sink sees the
/// instructions, labels and alignments of the body in order (comments and blank lines are dropped), then the
/// finished function (with an empty body) from [`Builder::finish`].
pub trait Sink<I: Isa> {
    /// The next instruction of the body. An error fails the function (as [`Builder::finish`]'s error).
    fn inst(&mut self, op: I::Op, operands: &[I::Operand]) -> Result<(), String>;
    /// `label` is bound here.
    fn bind(&mut self, label: &Label);
    /// Alignment of the next instruction to `1 << log2` bytes.
    fn align(&mut self, log2: u32);
    /// The function is finished: `function` has its frame, constants and features, and an empty body.
    fn finish(&mut self, function: &Function<I>) -> Result<(), String>;
}

/// Makes the sink of each builder started on the thread, from the function's name ([`streaming`]).
type MakeSink<I> = Box<dyn Fn(&str) -> Box<dyn Sink<I>>>;

thread_local! {
    /// The sinks of builders started on this thread ([`streaming`]): a [`MakeSink`] of some ISA.
    static SINKS: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

/// Runs `f` with every builder of ISA `I` started on this thread meanwhile handing its body to a sink made by
/// `make` from the function's name (see [`Sink`]): the functions those builders finish have empty bodies. Used
/// by the JIT (`lower::x86_64::Stream`) to lower as it builds; listings build items. Builders of another ISA
/// are unaffected. The setting ends with the call.
pub fn streaming<I: Isa, R>(make: impl Fn(&str) -> Box<dyn Sink<I>> + 'static, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Box<dyn Any>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            SINKS.with(|s| *s.borrow_mut() = previous);
        }
    }
    let make: MakeSink<I> = Box::new(make);
    let _restore = Restore(SINKS.with(|s| s.borrow_mut().replace(Box::new(make))));
    f()
}

/// The sink for a builder of `name` started now, if [`streaming`] is on for its ISA.
fn sink_for<I: Isa>(name: &str) -> Option<Box<dyn Sink<I>>> {
    SINKS.with(|s| s.borrow().as_ref().and_then(|m| m.downcast_ref::<MakeSink<I>>()).map(|make| make(name)))
}

thread_local! {
    /// Whether builders started on this thread keep their text ([`without_text`]).
    static TEXT: Cell<bool> = const { Cell::new(true) };
}

/// Runs `f` with every builder started on this thread meanwhile dropping its comment, blank and documentation
/// lines ([`Builder::comment`], [`Builder::blank`], [`Builder::doc`]): for descriptions nothing prints, such as
/// the JIT's. Those lines emit no bytes, so the instructions, labels and code are the same; the listings keep
/// them. A comment given as `format_args!` is then never formatted.
pub fn without_text<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            TEXT.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(TEXT.with(|t| t.replace(false)));
    f()
}

impl<I: Isa> Builder<I> {
    /// Starts the function `name` for `abi`, allowed to use exactly the features in `allowed`.
    pub fn new(name: &str, abi: Abi, allowed: &[I::Feature]) -> Self {
        let sink = sink_for::<I>(name);
        Builder {
            name: name.to_string(),
            doc: Vec::new(),
            abi,
            params: Vec::new(),
            stack_params: Vec::new(),
            ret: None,
            allowed: FeatureSet::of(allowed),
            required: FeatureSet::empty(),
            // Room for most kernels' bodies (the JIT builds at startup: fewer reallocations, each a copy); none
            // where a sink takes the body.
            body: if sink.is_some() { Vec::new() } else { Vec::with_capacity(512) },
            consts: Vec::new(),
            label_next: FastMap::with_capacity_and_hasher(32, Default::default()),
            label_scratch: String::new(),
            saved: Vec::new(),
            regs: Vec::new(),
            regs_seen: 0,
            defined_at: FastSet::with_capacity_and_hasher(32, Default::default()),
            defined: Vec::with_capacity(32),
            referenced: Vec::new(),
            referenced_at: FastSet::with_capacity_and_hasher(32, Default::default()),
            last_referenced: 0,
            error: None,
            locals: Locals::default(),
            naked: false,
            landing_pad: true,
            text: TEXT.with(Cell::get),
            sink,
        }
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The ABI the function is generated for.
    pub fn abi(&self) -> Abi {
        self.abi
    }

    /// Whether the function may use `feature` (kernels use this to pick a variant).
    pub fn has(&self, feature: I::Feature) -> bool {
        self.allowed.contains(feature)
    }

    /// Adds a line of documentation, printed above the function in the listing (dropped in [`without_text`]).
    pub fn doc(&mut self, line: impl fmt::Display) -> &mut Self {
        if self.text {
            self.doc.push(line.to_string());
        }
        self
    }

    /// Declares the next parameter and returns where the ABI passes it: a register, or a stack slot (e.g. the
    /// 5th and 6th argument under Win64, or an argument after Apple's packed 32-bit ones), the offset from the
    /// stack pointer on entry, before the prologue's pushes and frame ([`Builder::frame`]). A kernel reads stack
    /// parameters through [`Builder::param_in`] (the prologue loads them, past what it pushed and allocated);
    /// this is for kernels and tests that look at the ABI.
    pub fn arg(&mut self, name: &'static str, ty: CType) -> ArgLoc<I::Gpr> {
        self.params.push(Param { name, ty });
        let types: Vec<CType> = self.params.iter().map(|p| p.ty).collect();
        I::arg_of(self.abi, &types, types.len() - 1)
    }

    /// Declares the next parameter and returns the register the body reads it in
    /// ([`Conventions::param_reg`](crate::abi::Conventions::param_reg)): the ABI's argument register, or the
    /// register the prologue moves or loads it into (Win64's register and stack arguments go where System V
    /// passes them, so a kernel's registers are the same under both). A parameter the ABI passes on the stack
    /// with no such register (System V's 7th, Win64's 7th, AAPCS64's and LP64's 9th) is an error naming the
    /// function: declare it with [`Builder::param_in`].
    ///
    /// A 32-bit value ([`CType::U32`], [`CType::I32`], [`CType::Int`]) is in the register's low half; its
    /// upper half is unspecified except on riscv64, where it is sign-extended (see [`CType`]); a kernel that
    /// needs it zero-extended says so with `zero_extend32` (a method of each ISA's builder).
    pub fn param(&mut self, name: &'static str, ty: CType) -> I::Gpr {
        let n = self.params.len();
        let at = self.arg(name, ty);
        match I::param_reg(self.abi, n) {
            Some(r) => {
                // The prologue writes it: save it if the ABI says so, even if the body never reads it.
                self.note_used(r.into());
                r
            }
            None => {
                let at = match at {
                    ArgLoc::Stack(offset) => format!("on the stack ({offset} bytes above the entry stack pointer)"),
                    ArgLoc::Reg(r) => format!("in {r:?}"),
                };
                self.fail(format!(
                    "parameter {name} is passed {at} under {:?}, which has no register for it: declare it with \
                     `param_in`, naming the register the prologue loads it into",
                    self.abi
                ));
                I::arg_regs(self.abi)[0]
            }
        }
    }

    /// Declares the next parameter, read by the body in `reg`: for a parameter the ABI passes on the stack
    /// beyond the registers [`Builder::param`] gives, the prologue loads it from its slot into `reg` after its
    /// saves (so `reg` may be a callee-saved register: it is saved first). `reg` must be no other parameter's
    /// register, not the stack pointer and not a register the ABI reserves (x18 on Apple and Windows arm64); a parameter [`Builder::param`] has a register for must be read in
    /// that one (`reg` equal to it), since the prologue moves nothing else. Returns `reg`.
    ///
    /// The slot is 8 bytes (a 32-bit value's upper half unspecified, except on riscv64: sign-extended), or,
    /// on Apple's AAPCS64, the value's natural size ([`Conventions::arg_of`](crate::abi::Conventions::arg_of)).
    pub fn param_in(&mut self, name: &'static str, ty: CType, reg: I::Gpr) -> I::Gpr {
        let n = self.params.len();
        let at = self.arg(name, ty);
        match (I::param_reg(self.abi, n), at) {
            (Some(r), _) if r == reg => self.note_used(r.into()),
            (Some(r), _) => self.fail(format!(
                "parameter {name} is read in {r:?} under {:?}, not in {reg:?}: declare it with `param`",
                self.abi
            )),
            (None, ArgLoc::Stack(offset)) => {
                if I::is_stack_pointer(reg.into()) {
                    self.fail(format!("parameter {name} cannot be loaded into the stack pointer"));
                }
                if I::reserved(self.abi, reg.into()) {
                    let r = I::reg_name(reg.into());
                    self.fail(format!("parameter {name} is loaded into {r}, which the {:?} ABI reserves", self.abi));
                }
                self.note_used(reg.into());
                self.stack_params.push(StackParam { reg, offset, bytes: ty.bytes() });
            }
            (None, ArgLoc::Reg(r)) => {
                self.fail(format!("parameter {name} is passed in {r:?} under {:?}, which it is not read in", self.abi))
            }
        }
        reg
    }

    /// Declares the function's return type (without this it returns `void`) and returns the register the
    /// value is returned in ([`Conventions::ret_reg`](crate::abi::Conventions::ret_reg): rax, x0, a0), which
    /// the body writes before it returns (the epilogue leaves it alone). A 32-bit value is read by the caller
    /// from the low half; on riscv64 it must be sign-extended (LP64).
    pub fn returns(&mut self, ty: CType) -> I::Gpr {
        self.ret = Some(ty);
        I::ret_reg(self.abi)
    }

    /// The register the function returns its value in, once [`Builder::returns`] declared one.
    pub fn ret_reg(&self) -> Option<I::Gpr> {
        self.ret.map(|_| I::ret_reg(self.abi))
    }

    fn note_used(&mut self, r: I::Reg) {
        if I::callee_saved(self.abi, r) && !I::is_stack_pointer(r) && !self.saved.contains(&r) {
            self.saved.push(r);
        }
    }

    /// Appends an instruction (the generated methods call [`Builder::inst_array`]; kernels call the generated
    /// methods).
    pub fn inst(&mut self, op: I::Op, operands: impl Into<Operands<I::Operand>>) -> &mut Self {
        let operands = operands.into();
        if !self.check(op, &operands) {
            return self;
        }
        if self.streamed(op, &operands) {
            return self;
        }
        self.body.push(Item::Inst(Inst { op, operands }));
        self
    }

    /// Appends an instruction whose operands are an array, as the generated methods have them: they are
    /// moved into the instruction once it lies in the body, not into a temporary instruction that is then
    /// copied there (the JIT runs this at startup, once per instruction). More than
    /// [`MAX_OPERANDS`](crate::ir::MAX_OPERANDS) does not compile.
    pub fn inst_array<const K: usize>(&mut self, op: I::Op, operands: [I::Operand; K]) -> &mut Self {
        const { assert!(K <= crate::ir::MAX_OPERANDS, "more operands than ir::MAX_OPERANDS") };
        if !self.check(op, &operands) {
            return self;
        }
        if self.streamed(op, &operands) {
            // Most instructions hold no label: nothing to drop, and no call to the drop glue.
            if operands.iter().all(I::owns_nothing) {
                std::mem::forget(operands);
            }
            return self;
        }
        // `resize_with` reserves before it makes the item, so the item is written where it lies (a `push` builds
        // the 176 bytes aside and copies them).
        self.body.resize_with(self.body.len() + 1, || Item::Inst(Inst { op, operands: Operands::new() }));
        if let Some(Item::Inst(inst)) = self.body.last_mut() {
            inst.operands.extend(operands);
        }
        self
    }

    /// Hands an instruction to the sink when [`streaming`] is on (true: the body takes nothing), failing the
    /// function on the sink's error.
    #[inline(always)]
    fn streamed(&mut self, op: I::Op, operands: &[I::Operand]) -> bool {
        let Some(sink) = &mut self.sink else {
            return false;
        };
        if let Err(e) = sink.inst(op, operands) {
            self.fail(e);
        }
        true
    }

    /// Checks an instruction's features, operands
    /// ([`InstructionSet::check_operands`](crate::isa::InstructionSet::check_operands)) and registers, and records
    /// the labels it refers to. False where the operands cannot be encoded: the instruction is dropped (the
    /// function fails), so that neither the body nor a sink ([`streaming`]) ever holds it.
    // Inlined into each `inst_array` (one per operand count): the operand loop unrolls, and the call goes.
    #[inline(always)]
    fn check(&mut self, op: I::Op, operands: &[I::Operand]) -> bool {
        let info = I::info(op);
        let needs = FeatureSet::of(info.features);
        if !self.allowed.contains_all(&needs) {
            let missing = needs.difference(self.allowed);
            self.fail(format!(
                "`{}` needs {} which the function's feature set {:?} does not allow",
                info.name,
                missing.names(", "),
                self.allowed
            ));
        }
        self.required = self.required.union(needs);
        if let Err(e) = I::check_operands(op, operands) {
            let message = format!("{}: {e}", crate::isa::inst_text::<I>(op, operands));
            self.fail(message);
            return false;
        }
        if !self.naked
            && I::writes_stack(op, operands, self.locals.over_aligned().then(|| I::frame_base(self.abi)).flatten())
        {
            self.fail_stack_write(op, operands);
        }
        for o in operands {
            if let Some(l) = I::label(o) {
                // `referenced` keeps each label it holds, so an address is not reused while the builder lives.
                let at = Arc::as_ptr(&l.0) as usize;
                if at != self.last_referenced && self.referenced_at.insert(at) {
                    self.referenced.push(l.clone());
                }
                self.last_referenced = at;
            }
        }
        for &r in I::implicit_regs(op) {
            self.note_used(r);
        }
        // A register's handling (reserved? callee-saved? saved already?) depends on the register and the ABI
        // only, and repeats nothing once done: only an instruction naming a register new to the function needs it.
        let bits = I::reg_bits(operands);
        if bits.is_some_and(|b| b & !self.regs_seen == 0) {
            return true;
        }
        let mut regs = std::mem::take(&mut self.regs);
        regs.clear();
        I::regs_of(operands, &mut regs);
        if let Some(&r) = regs.iter().find(|&&r| I::reserved(self.abi, r)) {
            let message = format!("uses {}, which the {:?} ABI reserves", I::reg_name(r), self.abi);
            self.fail(message);
        }
        for &r in &regs {
            self.note_used(r);
        }
        self.regs = regs;
        self.regs_seen |= bits.unwrap_or(0);
        true
    }

    /// A new label, unique in the function; bind it with [`Builder::bind`].
    pub fn label(&mut self, name: &str) -> Label {
        let mut k = self.label_next.get(name).copied().unwrap_or(1);
        // `<function>_<name><k>` (no number for k = 1), written into a buffer kept for this and allocated once,
        // when free.
        let mut n = std::mem::take(&mut self.label_scratch);
        n.clear();
        n.push_str(&self.name);
        n.push('_');
        let tail = n.len();
        n.push_str(name);
        let stem = n.len();
        let label = loop {
            n.truncate(stem);
            if k > 1 {
                n.push_str(itoa(k, &mut [0; 10]));
            }
            k += 1;
            // `taken` never asks about `name`'s own number (see there): it may be recorded after.
            if !self.taken(&n[tail..], name) {
                break Label::named(&n);
            }
        };
        match self.label_next.get_mut(name) {
            Some(next) => *next = k,
            None => {
                self.label_next.insert(name.to_string(), k);
            }
        }
        self.label_scratch = n;
        label
    }

    /// Whether [`Builder::label`] has made a label `<function>_<s>`, `s` being `name` and a number it is about
    /// to give (from the numbers it has given each name, without a set of the names made): `s` is `<base><j>`
    /// for a base it has given number `j` (no number for j = 1, else `j` >= 2 in decimal without a leading
    /// zero), so the candidates are the splits of `s`'s trailing digits other than `name`'s own, which is not
    /// given yet. None for a first label of a name that does not end in a digit.
    fn taken(&self, s: &str, name: &str) -> bool {
        let given = |base: &str, j: u64| self.label_next.get(base).is_some_and(|&next| u64::from(next) > j);
        let digits = s.len() - s.bytes().rev().take_while(u8::is_ascii_digit).count();
        (digits..=s.len()).filter(|&i| i != name.len()).any(|i| {
            let (base, d) = s.split_at(i);
            match d {
                "" => given(base, 1),
                _ => !d.starts_with('0') && d.len() <= 10 && d.parse::<u64>().is_ok_and(|j| j >= 2 && given(base, j)),
            }
        })
    }

    /// Defines `label` at the current position.
    pub fn bind(&mut self, label: &Label) -> &mut Self {
        // By allocation here; two labels of one name bound are found by `finish` for listings and by the
        // lowering for the JIT.
        if !self.defined_at.insert(Arc::as_ptr(&label.0) as usize) {
            self.fail(format!("label {} bound twice", label.name()));
        } else {
            self.defined.push(label.clone());
        }
        if let Some(sink) = &mut self.sink {
            sink.bind(label);
            return self;
        }
        self.body.push(Item::Label(label.clone()));
        self
    }

    /// A comment line in the listing: a string, or `format_args!(...)` (formatted only where the text is kept,
    /// not in [`without_text`]).
    pub fn comment(&mut self, text: impl fmt::Display) -> &mut Self {
        if self.text && self.sink.is_none() {
            self.body.push(Item::Comment(text.to_string()));
        }
        self
    }

    /// An empty line in the listing (dropped in [`without_text`]).
    pub fn blank(&mut self) -> &mut Self {
        if self.text && self.sink.is_none() {
            self.body.push(Item::Blank);
        }
        self
    }

    /// Aligns the next instruction to `1 << log2` bytes (loop heads).
    pub fn align(&mut self, log2: u32) -> &mut Self {
        if let Some(sink) = &mut self.sink {
            sink.align(log2);
            return self;
        }
        self.body.push(Item::Align(log2));
        self
    }

    /// A read-only constant: `bytes` aligned to `align`, labelled `name` (shared by the functions of a listing
    /// when the contents agree).
    pub fn constant(&mut self, name: &str, align: u32, comment: &str, bytes: &[u8]) -> Label {
        // A kernel names its constants again where it uses them: the first one of that name is found without
        // formatting or allocating the name.
        let named = |c: &&Const| c.label.is_named("const_", name);
        if let Some(c) = self.consts.iter().find(named) {
            return c.label.clone();
        }
        let mut n = std::mem::take(&mut self.label_scratch);
        n.clear();
        n.push_str("const_");
        n.push_str(name);
        let label = Label::named(&n);
        self.label_scratch = n;
        // The comment is printed in listings only.
        let comment = if self.text { comment.to_string() } else { String::new() };
        self.consts.push(Const { label: label.clone(), align, comment, bytes: bytes.to_vec() });
        label
    }

    /// Makes the body the whole function: no prologue or epilogue is derived (the body saves and restores the
    /// registers it uses, moves the stack pointer and returns itself) and no unwind data is written (no CFI,
    /// no Win64 or ARM64 SEH codes: a debugger or an exception cannot unwind through it). The landing pad
    /// stays unless [`Builder::without_landing_pad`] drops it. This is for code imported as it is
    /// ([`crate::import`]) whose prologue is not the ABI's; a kernel written here lets the builder derive its
    /// frame. Errors (reported by [`Builder::finish`]): local storage asked for with [`Builder::frame`], or
    /// parameters on the stack.
    pub fn naked(&mut self) -> &mut Self {
        self.naked = true;
        self
    }

    /// Drops the landing pad (`endbr64`, `bti c`) a naked function would start with: for imported code that
    /// has none. Indirect calls to it then fault where the CPU enforces landing pads, and the object no longer
    /// marks IBT or BTI. An error (reported by [`Builder::finish`]) unless the function is naked.
    pub fn without_landing_pad(&mut self) -> &mut Self {
        self.landing_pad = false;
        self
    }

    /// Asks for `bytes` of local storage on the stack, aligned to `align` (a power of two; 32 or 64 for ymm or
    /// zmm spills), once per function: the prologue allocates it below the saved registers and the epilogue
    /// frees it, and the unwind data (DWARF CFI, Win64 and ARM64 SEH) describes both; a Windows frame of 4 KiB
    /// or more is probed page by page first. The body addresses it through the returned handle (on x86_64
    /// `frame.at(offset)` is a memory operand, on aarch64 `frame.base()` and `frame.offset(offset)` are the
    /// base and offset operands, on riscv64 `frame.at(offset)`).
    ///
    /// Up to the stack's 16-byte alignment the storage starts at the stack pointer. Above it (up to 2048; on
    /// x86_64 and riscv64, since aarch64's vector registers need no more than 16), the prologue allocates
    /// `align - 16` bytes more and points the ISA's frame base register
    /// ([`Conventions::frame_base`](crate::abi::Conventions::frame_base): r15, s11) at the aligned start: the stack
    /// pointer still moves by a constant, so the unwind data stays a plain allocation on every target (a frame
    /// pointer with a realigned stack pointer has no Win64 unwind code), and the body may read that register
    /// but not write it. No body instruction may write the stack pointer.
    ///
    /// Errors (reported by [`Builder::finish`], naming the function): a second frame, an alignment that is not a
    /// power of two or that the ISA cannot give, more than [`MAX_LOCALS`](crate::abi::MAX_LOCALS) bytes.
    ///
    /// ```
    /// use asmgen::isa::x86_64::{regs::*, X86Feature, Ymm, X86_64};
    /// use asmgen::{Abi, Builder};
    /// let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[X86Feature::Avx]);
    /// let frame = b.frame(256, 32);
    /// b.vmovdqu(frame.at(32), Ymm(3)); // spill
    /// b.vmovdqa(Ymm(3), frame.at(32)); // and reload
    /// let f = b.finish().unwrap();
    /// assert_eq!((f.frame.locals.bytes, f.frame.locals.align), (256, 32));
    /// ```
    pub fn frame(&mut self, bytes: u32, align: u32) -> StackFrame<I> {
        let align = align.max(1);
        if self.locals.bytes > 0 {
            self.fail("asks for a second stack frame (one per function)".into());
        } else if !align.is_power_of_two() {
            self.fail(format!("asks for a stack frame aligned to {align} bytes, which is not a power of two"));
        } else if align > 2048 {
            self.fail(format!("asks for a stack frame aligned to {align} bytes, over 2048"));
        } else if bytes > crate::abi::MAX_LOCALS {
            self.fail(format!("asks for a stack frame of {bytes} bytes, over {}", crate::abi::MAX_LOCALS));
        } else if bytes > 0 && align > 16 && I::frame_base(self.abi).is_none() {
            self.fail(format!("asks for a stack frame aligned to {align} bytes; {:?} aligns frames to 16", I::ARCH));
        } else if bytes > 0 {
            self.locals = Locals { bytes, align: align.max(1) };
            if let Some(base) = I::frame_base(self.abi).filter(|_| self.locals.over_aligned()) {
                // The prologue writes it: the ABI may need it saved.
                self.note_used(base.into());
            }
        }
        let base = I::frame_base(self.abi).filter(|_| self.locals.over_aligned());
        StackFrame { base, bytes }
    }

    /// Fails the function for a body instruction that writes the stack pointer or the frame base register.
    #[cold]
    fn fail_stack_write(&mut self, op: I::Op, operands: &[I::Operand]) {
        let ctx = crate::isa::PrintCtx {
            local_label_prefix: "",
            page_refs: crate::isa::PageRefs { page: ("", ""), offset: ("", "") },
        };
        let inst: Inst<I> = Inst { op, operands: operands.iter().cloned().collect() };
        let text = crate::syntax::format_inst(&inst, &ctx);
        let what = match I::frame_base(self.abi) {
            Some(base) if !I::writes(op, operands, I::stack_pointer()) => {
                format!("{}, the base register of the over-aligned stack frame", I::reg_name(base.into()))
            }
            _ => "the stack pointer".to_string(),
        };
        self.fail(format!(
            "`{}` writes {what}, which the prologue and epilogue own (and the unwind data describes): use the \
             frame API (Builder::frame) for stack storage",
            text.trim()
        ));
    }

    /// What a naked function, or one that dropped its landing pad, asks for that it cannot have.
    fn naked_error(&self) -> Option<&'static str> {
        if !self.landing_pad && !self.naked {
            Some("only a naked function (Builder::naked) may drop its landing pad")
        } else if self.naked && (self.locals.bytes > 0 || !self.stack_params.is_empty()) {
            Some("a naked function has no prologue to make a stack frame or load stack parameters")
        } else {
            None
        }
    }

    fn fail(&mut self, message: String) {
        if self.error.is_none() {
            self.error = Some(message);
        }
    }

    /// Finishes the function: checks labels and computes the registers the prologue must save.
    pub fn finish(self) -> Result<Function<I>, GenError> {
        let err = |message: String| GenError { function: self.name.clone(), message };
        if let Some(e) = &self.error {
            return Err(err(e.clone()));
        }
        if let Some(e) = self.naked_error() {
            return Err(err(e.into()));
        }
        // Most references are to a label bound here (the same allocation); the rest to a constant, or to a label
        // of the same name.
        let bound = |l: &Label| {
            self.defined_at.contains(&(Arc::as_ptr(&l.0) as usize))
                || self.consts.iter().any(|c| c.label == *l)
                || self.defined.iter().any(|d| d == l)
        };
        if let Some(l) = self.referenced.iter().find(|l| !bound(l)) {
            return Err(err(format!("label {} is used but never bound", l.name())));
        }
        if self.text {
            // A listing names each label once (the JIT's lowering finds two bound under one name itself).
            let mut names = FastSet::with_capacity_and_hasher(self.defined.len(), Default::default());
            if let Some(l) = self.defined.iter().find(|l| !names.insert(l.name())) {
                return Err(err(format!("label {} bound twice", l.name())));
            }
        }
        // A register the prologue loads a stack parameter into holds nothing else the body reads.
        let in_regs = (0..self.params.len()).filter_map(|n| I::param_reg(self.abi, n));
        let mut taken: Vec<I::Gpr> = in_regs.collect();
        for (p, sp) in self.params.iter().skip(taken.len()).zip(&self.stack_params) {
            if taken.contains(&sp.reg) {
                return Err(err(format!(
                    "parameter {} is loaded into {:?}, which another parameter is read in",
                    p.name, sp.reg
                )));
            }
            taken.push(sp.reg);
        }
        // The over-aligned frame's base register is the prologue's too.
        if let Some(base) = I::frame_base(self.abi).filter(|_| self.locals.over_aligned()) {
            if let Some(p) = self.stack_params.iter().find(|p| p.reg == base) {
                return Err(err(format!(
                    "a stack parameter is loaded into {}, the base register of the over-aligned stack frame",
                    I::reg_name(p.reg.into())
                )));
            }
        }
        // A naked body saves what it uses itself.
        let mut saved = if self.naked { Vec::new() } else { self.saved };
        saved.sort();
        let mut body = self.body;
        if self.text {
            // Listings keep their functions; the JIT's are lowered and dropped at once.
            body.shrink_to_fit();
        }
        let params = self.params.len();
        let function = Function {
            name: self.name,
            doc: self.doc,
            abi: self.abi,
            signature: Signature { params: self.params, ret: self.ret },
            allowed: self.allowed,
            required: self.required,
            frame: Frame {
                saved,
                params,
                locals: self.locals,
                stack_params: self.stack_params,
                naked: self.naked,
                landing_pad: self.landing_pad,
            },
            body,
            consts: self.consts,
        };
        if let Some(mut sink) = self.sink {
            sink.finish(&function).map_err(|message| GenError { function: function.name.clone(), message })?;
        }
        Ok(function)
    }
}

/// The local storage of a function ([`Builder::frame`]): where the body finds it. Its methods, per ISA, give the
/// memory operands of offsets into it (checked to lie inside it).
#[derive(Clone, Copy, Debug)]
pub struct StackFrame<I: Isa> {
    /// The register the storage starts at, when it is not the stack pointer (an over-aligned frame).
    base: Option<I::Gpr>,
    /// Its size.
    bytes: u32,
}

impl<I: Isa> StackFrame<I> {
    /// The storage's size in bytes.
    pub fn bytes(&self) -> u32 {
        self.bytes
    }

    /// The register it starts at: `None` for the stack pointer (as after the prologue), else the frame base
    /// register of an over-aligned frame.
    pub fn base_register(&self) -> Option<I::Gpr> {
        self.base
    }

    /// `offset`, checked to lie inside the storage.
    fn checked(&self, offset: i32) -> i32 {
        assert!(
            offset >= 0 && (offset as u32) < self.bytes,
            "offset {offset} is outside the stack frame of {} bytes",
            self.bytes
        );
        offset
    }
}

/// `n` in decimal, written at the end of `buf`.
fn itoa(mut n: u32, buf: &mut [u8; 10]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).expect("ASCII digits")
}

/// Defines the builder's methods of an ISA from its table (the same entries [`define_isa!`](crate::define_isa)
/// reads, through the ISA's table macro): a method per entry without `as`, taking exactly its operand kinds,
/// and one method per name declared in `methods`, generic over its arguments, whose form is the one entry of
/// the group whose operand kinds the arguments convert into (a trait `forms::method<Kinds, Args>` implemented
/// once per entry, `Kinds` the entry's tuple of operand kinds). Two forms of a method must differ in a way the
/// argument types tell apart (`Xmm` and `Ymm`, a register and memory, a register and an immediate); arguments
/// that fit no form, or more than one, are a compile error at the call. Expanded in `builder/<isa>.rs`, with
/// the ISA's `Op`, `Operand` and operand kinds in scope.
#[macro_export]
macro_rules! define_builder_methods {
    (
        isa: $isa:ty, feature: $feat:ident $(, encoding: $encty:ty)?;
        methods { $( $(#[$mdoc:meta])* $method:ident ( $($param:ident),* ) ; )* }
        $( $(#[$doc:meta])* $name:ident : $syntax:literal ( $($arg:ident : $kind:ident),* ) [$($f:ident),*]
            $(as $as:ident)? $(=> $enc:expr)? ; )*
    ) => {
        /// One trait per builder method with forms: implemented for the builder once per form, with the
        /// form's operand kinds as `Kinds` and the argument types as `Args`. Kernels call the builder's method;
        /// a helper generic over the width names the trait in a `where` clause (see [`crate::forms`]).
        pub mod forms {
            $(
                #[doc = concat!("The forms of `", stringify!($method), "`.")]
                #[allow(non_camel_case_types)]
                pub trait $method<Kinds, Args> {
                    /// Appends the form's instruction.
                    fn form(&mut self, args: Args) -> &mut Self;
                }
            )*
        }

        #[allow(clippy::too_many_arguments, non_camel_case_types)]
        impl $crate::builder::Builder<$isa> {
            $(
                $(#[$mdoc])*
                pub fn $method<Kinds, $($param),*>(&mut self, $($param: $param),*) -> &mut Self
                where
                    Self: forms::$method<Kinds, ($($param,)*)>,
                {
                    forms::$method::form(self, ($($param,)*))
                }
            )*
        }

        $(
            $crate::define_builder_methods!(@form $isa; $(#[$doc])* $name $syntax ($($arg : $kind),*) $($as)?);
        )*
    };
    (@form $isa:ty; $(#[$doc:meta])* $name:ident $syntax:literal ($($arg:ident : $kind:ident),*)) => {
        #[allow(clippy::too_many_arguments)]
        impl $crate::builder::Builder<$isa> {
            $(#[$doc])*
            #[doc = concat!("`", $syntax, "`")]
            pub fn $name(&mut self, $($arg: impl Into<$kind>),*) -> &mut Self {
                let operands = [$(Operand::from($arg.into())),*];
                self.inst_array(Op::$name, operands)
            }
        }
    };
    (@form $isa:ty; $(#[$doc:meta])* $name:ident $syntax:literal ($($arg:ident : $kind:ident),*) $as:ident) => {
        $(#[$doc])*
        #[doc = concat!("`", $syntax, "` (table entry `", stringify!($name), "`)")]
        #[allow(non_camel_case_types)]
        impl<$($arg: Into<$kind>),*> forms::$as<($($kind,)*), ($($arg,)*)> for $crate::builder::Builder<$isa> {
            fn form(&mut self, ($($arg,)*): ($($arg,)*)) -> &mut Self {
                let operands = [$(Operand::from($arg.into())),*];
                self.inst_array(Op::$name, operands)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::without_text;
    use crate::ir::Item;
    use crate::isa::x86_64::{mem, regs::*, X86Feature, Xmm, X86_64};
    use crate::{Abi, Builder, Function};
    use std::cell::Cell;
    use std::fmt;

    /// A comment argument that counts how often it is formatted.
    struct Counted<'a>(&'a Cell<u32>);

    impl fmt::Display for Counted<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.set(self.0.get() + 1);
            f.write_str("counted")
        }
    }

    fn function(formatted: &Cell<u32>) -> Function<X86_64> {
        let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[X86Feature::Avx]);
        b.doc("what f does");
        let top = b.label("top");
        b.comment("load");
        b.bind(&top);
        b.vmovdqu(Xmm(0), mem(RSI, 0));
        b.blank();
        b.comment(Counted(formatted));
        b.comment(format_args!("{} blocks", 4));
        b.sub(RDX, 1);
        b.jnz(&top);
        b.finish().unwrap()
    }

    /// Labels are named `<function>_<name>`, then `<function>_<name>2`, ...; a name another label already has
    /// takes the next free suffix.
    #[test]
    fn labels_get_unique_names() {
        let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
        let names: Vec<String> =
            ["loop", "loop", "loop2", "x", "loop"].iter().map(|n| b.label(n).name().to_string()).collect();
        assert_eq!(names, ["f_loop", "f_loop2", "f_loop22", "f_x", "f_loop3"]);
        let many: Vec<String> = (0..12).map(|_| b.label("y").name().to_string()).collect();
        assert_eq!((many[0].as_str(), many[9].as_str(), many[11].as_str()), ("f_y", "f_y10", "f_y12"));
    }

    /// The names equal those of the plain rule (the first free of `<name>`, `<name>2`, `<name>3`, ..., counting
    /// on from the last number given to that name), over names ending in digits that collide in every way.
    #[test]
    fn label_names_equal_the_rule_with_a_set() {
        let names = ["a", "a1", "a2", "a12", "a10", "a21", "b", "a0", "a02", "1", "12", "2"];
        let mut seed = 0x9e37_79b9_u64;
        for _ in 0..200 {
            let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
            let mut set = std::collections::HashSet::new();
            let mut next = std::collections::HashMap::new();
            for _ in 0..60 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let name = names[(seed % names.len() as u64) as usize];
                let k = next.entry(name).or_insert(1);
                let expected = loop {
                    let n = if *k > 1 { format!("f_{name}{k}") } else { format!("f_{name}") };
                    *k += 1;
                    if set.insert(n.clone()) {
                        break n;
                    }
                };
                assert_eq!(b.label(name).name(), expected);
            }
        }
    }

    /// A label bound twice is an error, whether the same label (or a clone) or two labels of one name (in a
    /// listing; the JIT's lowering finds those); a reference to a label bound under its name is not.
    #[test]
    fn labels_are_bound_once() {
        use crate::Label;
        let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
        let l = b.label("x");
        b.bind(&l).bind(&l.clone());
        assert!(b.finish().err().unwrap().message.contains("bound twice"));
        let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
        b.bind(&Label::named("y")).bind(&Label::named("y"));
        assert!(b.finish().err().unwrap().message.contains("bound twice"));
        let mut b = Builder::<X86_64>::new("f", Abi::SysV, &[]);
        b.bind(&Label::named("z")).jmp(Label::named("z"));
        b.finish().unwrap();
    }

    /// Without text a function has the same instructions and labels, and no comment, blank or doc line; its
    /// comments are never formatted. The setting ends with the call (and on this thread only).
    #[test]
    fn without_text_drops_only_text() {
        let formatted = Cell::new(0);
        let with = function(&formatted);
        assert_eq!(formatted.get(), 1);
        let without = without_text(|| function(&formatted));
        assert_eq!(formatted.get(), 1, "a comment was formatted without text");
        let text = |i: &Item<X86_64>| matches!(i, Item::Comment(_) | Item::Blank);
        assert_eq!(with.body.iter().filter(|i| text(i)).count(), 4);
        assert!(!without.body.iter().any(text) && without.doc.is_empty());
        assert_eq!(with.doc, ["what f does"]);
        let code = |f: &Function<X86_64>| -> Vec<String> {
            let line = |i: &Item<X86_64>| match i {
                Item::Inst(i) => format!("{:?} {:?}", i.op, i.operands),
                Item::Label(l) => l.name().to_string(),
                _ => "other".to_string(),
            };
            f.body.iter().filter(|i| !text(i)).map(line).collect()
        };
        assert_eq!(code(&with), code(&without));
        assert_eq!(with.body.iter().filter(|i| text(i)).count(), 4, "the text is back after without_text");
        assert_eq!(function(&formatted).body.len(), with.body.len());
    }
}
