//! The aarch64 builder methods, from the table in [`crate::isa::aarch64`].

use crate::define_builder_methods;
use crate::isa::aarch64::*;

aarch64_table!(define_builder_methods);

impl super::StackFrame<Aarch64> {
    /// The base operand of an access to the frame: `sp` (aarch64 frames are aligned to 16 at most).
    pub fn base(&self) -> Sp {
        regs::SP
    }

    /// The offset operand of the access `offset` bytes into the frame (`[sp, #offset]`). Panics if `offset` is
    /// outside the frame.
    pub fn offset(&self, offset: i32) -> i32 {
        self.checked(offset)
    }
}

impl crate::Builder<Aarch64> {
    /// Zero-extends the 32-bit value in `r` to 64 bits (`lsl r, r, #32; lsr r, r, #32`): a `uint32_t`
    /// parameter arrives with its upper half unspecified ([`crate::CType`]), so a kernel that uses all 64 bits
    /// of it extends it first.
    pub fn zero_extend32(&mut self, r: X) -> &mut Self {
        self.lsl(r, r, 32).lsr(r, r, 32)
    }
}
