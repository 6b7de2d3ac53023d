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
