//! The x86_64 builder methods, from the table in [`crate::isa::x86_64`].

use crate::define_builder_methods;
use crate::isa::x86_64::*;

x86_64_table!(define_builder_methods);

impl super::StackFrame<X86_64> {
    /// The memory operand `offset` bytes into the frame (`[rsp + offset]`, or `[r15 + offset]` when the frame
    /// is over-aligned). Panics if `offset` is outside the frame.
    pub fn at(&self, offset: i32) -> Mem {
        mem(self.base_register().unwrap_or(regs::RSP), self.checked(offset))
    }
}
