//! The x86_64 builder methods, from the table in [`crate::isa::x86_64`].

use crate::define_builder_methods;
use crate::isa::x86_64::*;

x86_64_table!(define_builder_methods);
