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
