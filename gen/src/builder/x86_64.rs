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

impl crate::Builder<X86_64> {
    /// Zero-extends the 32-bit value in `r` to 64 bits (`shl r, 32; shr r, 32`): a `uint32_t` parameter
    /// arrives with its upper half unspecified ([`crate::CType`]), so a kernel that uses all 64 bits of it
    /// (a count in address arithmetic) extends it first.
    pub fn zero_extend32(&mut self, r: Gpr) -> &mut Self {
        self.shl(r, 32).shr(r, 32)
    }
}
