//! The aarch64 builder methods, from the table in [`crate::isa::aarch64`].

use crate::define_builder_methods;
use crate::isa::aarch64::*;

aarch64_table!(define_builder_methods);
