//! Per-ISA helpers shared by the kernel families (GHASH/POLYVAL and SM4): loop counts known when the kernel
//! is generated, counted loops, the batch loop's step, constant addresses. A family imports its ISA's module
//! here, never another family's.

pub(crate) mod aarch64;
pub(crate) mod riscv64;
pub(crate) mod x86_64;
