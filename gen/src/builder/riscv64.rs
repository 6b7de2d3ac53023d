//! The riscv64 builder methods, from the table in [`crate::isa::riscv64`].

use crate::define_builder_methods;
use crate::isa::riscv64::*;

riscv64_table!(define_builder_methods);
