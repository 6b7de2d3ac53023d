//! Calling conventions: per ABI, where each argument is on entry (registers, then the stack), which registers
//! a callee must preserve, the indirect-branch landing pad every exported function starts with, and the
//! prologue and epilogue that save and restore what the body uses, with the unwind directives ([`Cfi`]) derived
//! from the same items.
//!
//! * System V AMD64 and Microsoft x64 in [`x86_64`],
//! * AAPCS64 and Apple's AAPCS64 (x18 reserved) in [`aarch64`],
//! * LP64D in [`riscv64`].
//!
//! [`Cfi`]: crate::ir::Cfi

pub mod aarch64;
pub mod riscv64;
pub mod x86_64;

use crate::ir::{CType, Frame, Item};
use crate::isa::InstructionSet;
use crate::target::Abi;

/// The most local storage a function may ask for ([`crate::Builder::frame`]), in bytes: the Win64 prologue
/// touches each 4 KiB page of a frame of 4 KiB or more before it allocates it (the stack probe), one load per
/// page, and its unwind data describes at most 255 bytes of prologue.
pub const MAX_LOCALS: u32 = 60 * 1024;

/// Where an integer or pointer argument is when the function is entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgLoc<R> {
    /// In a register.
    Reg(R),
    /// On the stack, this many bytes above the stack pointer on entry (before the prologue moves it): on
    /// x86-64 the return address is at 0, so System V's 7th argument is at 8 and Win64's 5th at 40 (above the
    /// 32-byte shadow space; Apple's AAPCS64 packs 32-bit values in 4 bytes, [`Conventions::arg_of`]). The body
    /// does not load it: the prologue loads it into the parameter's register ([`Conventions::param_reg`], or
    /// the one the kernel named with [`crate::Builder::param_in`]), adding what the prologue pushed and
    /// allocated.
    Stack(i32),
}

/// The indirect-branch landing pad an exported function starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LandingPad {
    /// `endbr64` (x86-64 CET indirect-branch tracking).
    Endbr64,
    /// `bti c` (aarch64 branch target identification).
    BtiC,
}

/// The calling conventions of one instruction set.
pub trait Conventions: InstructionSet {
    /// The registers `abi` passes the first integer/pointer arguments in, in order.
    fn arg_regs(abi: Abi) -> &'static [Self::Gpr];
    /// Offset of the first stack-passed argument from the stack pointer on entry ([`ArgLoc::Stack`]).
    fn first_stack_arg(abi: Abi) -> i32;
    /// Where integer/pointer argument `n` (0 is the first) is on entry: the argument registers, then 8-byte
    /// stack slots (what [`Conventions::arg_of`] gives on every ABI where arguments of any type take one slot
    /// each, and on Apple's AAPCS64 when every argument before the `n`th is 8 bytes).
    fn arg(abi: Abi, n: usize) -> ArgLoc<Self::Gpr> {
        let regs = Self::arg_regs(abi);
        match regs.get(n) {
            Some(r) => ArgLoc::Reg(*r),
            None => ArgLoc::Stack(Self::first_stack_arg(abi) + 8 * (n - regs.len()) as i32),
        }
    }
    /// Where argument `n` of a function whose parameters have the types `params` is on entry: the argument
    /// registers in order, then stack slots in order. Every ABI but Apple's AAPCS64 gives each stack argument
    /// an 8-byte slot ([`Conventions::arg`]); Apple packs them to their natural size and alignment (a 32-bit
    /// value takes 4 bytes), so the aarch64 conventions override this.
    fn arg_of(abi: Abi, params: &[CType], n: usize) -> ArgLoc<Self::Gpr> {
        let _ = params;
        Self::arg(abi, n)
    }
    /// The register a function returns its value in under `abi` (rax, x0, a0). The body writes it before it
    /// returns; it is never callee-saved.
    fn ret_reg(abi: Abi) -> Self::Gpr;
    /// The register the body reads parameter `n` in, which the prologue fills from [`Conventions::arg`] when
    /// the two differ (a register move, or a load of a stack argument); `None` if `abi` has no register for
    /// it, which makes the builder fail naming the function. By default the argument's own register (none for
    /// a stack argument).
    fn param_reg(abi: Abi, n: usize) -> Option<Self::Gpr> {
        match Self::arg(abi, n) {
            ArgLoc::Reg(r) => Some(r),
            ArgLoc::Stack(_) => None,
        }
    }
    /// Whether the callee must preserve `reg` under `abi`.
    fn callee_saved(abi: Abi, reg: Self::Reg) -> bool;
    /// Whether `abi` reserves `reg` for the platform, so that no function may use it (x18 on Apple arm64).
    /// A kernel that uses one cannot be expressed under that ABI: [`crate::Builder`] reports it, naming the
    /// function, when the function is finished.
    #[inline]
    fn reserved(_abi: Abi, _reg: Self::Reg) -> bool {
        false
    }
    /// The stack pointer (never counted as a clobbered register).
    fn is_stack_pointer(reg: Self::Reg) -> bool;
    /// Whether the instruction `op` with `operands` writes `reg`: as its destination register, as the base
    /// register a pre- or post-indexed access writes back, or implicitly (x86-64 `push` and `pop` write rsp).
    /// The builder rejects a body instruction that writes the stack pointer, or the frame base register of an
    /// over-aligned frame ([`Conventions::frame_base`]): the prologue and epilogue own them, and the unwind
    /// data describes only what they do.
    fn writes(op: Self::Op, operands: &[Self::Operand], reg: Self::Reg) -> bool;
    /// Whether the body instruction `op` writes the stack pointer, or `base` (the frame base register of an
    /// over-aligned frame) when given.
    #[inline]
    fn writes_stack(op: Self::Op, operands: &[Self::Operand], base: Option<Self::Gpr>) -> bool {
        Self::writes(op, operands, Self::stack_pointer()) || base.is_some_and(|b| Self::writes(op, operands, b.into()))
    }
    /// The stack pointer register.
    fn stack_pointer() -> Self::Reg;
    /// Whether the body instruction `op` may reach the return address or switch stacks through the stack
    /// pointer, in a function of `frame` under `abi` (what the shadow-stack property bits rule out,
    /// [`crate::property`]). By default, conservatively, any instruction that names the stack pointer.
    fn touches_return_address(_abi: Abi, _frame: &Frame<Self>, _op: Self::Op, operands: &[Self::Operand]) -> bool {
        let mut regs = Vec::new();
        Self::regs_of(operands, &mut regs);
        regs.into_iter().any(Self::is_stack_pointer)
    }
    /// The callee-saved register that points at the local storage when its alignment is above the stack's
    /// 16 bytes ([`crate::ir::Locals::over_aligned`]), or `None` if this ISA does not offer such frames.
    #[inline]
    fn frame_base(_abi: Abi) -> Option<Self::Gpr> {
        None
    }
    /// Instructions (and unwind directives) that save the registers in `frame` and those that restore them and
    /// return.
    fn prologue_epilogue(abi: Abi, frame: &Frame<Self>) -> (Vec<Item<Self>>, Vec<Item<Self>>);
    /// The landing pad every exported function starts with under `abi`, if any.
    fn landing_pad(abi: Abi) -> Option<LandingPad>;
}
