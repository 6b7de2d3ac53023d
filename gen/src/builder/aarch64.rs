//! The aarch64 builder methods, from the table in [`crate::isa::aarch64`].

use crate::define_builder_methods;
use crate::isa::aarch64::*;

aarch64_table!(define_builder_methods);

impl crate::Builder<Aarch64> {
    /// Zero-extends the 32-bit value in `r` to 64 bits (`lsl r, r, #32; lsr r, r, #32`): a `uint32_t`
    /// parameter arrives with its upper half unspecified ([`crate::CType`]), so a kernel that uses all 64 bits
    /// of it extends it first.
    pub fn zero_extend32(&mut self, r: X) -> &mut Self {
        self.lsl(r, r, 32).lsr(r, r, 32)
    }
}
