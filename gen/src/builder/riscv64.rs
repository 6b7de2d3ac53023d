//! The riscv64 builder methods, from the table in [`crate::isa::riscv64`].

use crate::define_builder_methods;
use crate::isa::riscv64::*;

riscv64_table!(define_builder_methods);

impl super::StackFrame<Riscv64> {
    /// The memory operand `offset` bytes into the frame (`offset(sp)`). Panics if `offset` is outside the frame.
    pub fn at(&self, offset: i32) -> Mem {
        mem(self.base_register().unwrap_or(regs::SP), self.checked(offset))
    }
}

impl crate::Builder<Riscv64> {
    /// Zero-extends the 32-bit value in `r` to 64 bits (`slli r, r, 32; srli r, r, 32`): LP64 passes a
    /// `uint32_t` sign-extended ([`crate::CType`]), so a kernel that uses it as a 64-bit count extends it first.
    pub fn zero_extend32(&mut self, r: X) -> &mut Self {
        self.slli(r, r, 32).srli(r, r, 32)
    }
}
