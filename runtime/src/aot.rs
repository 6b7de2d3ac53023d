//! The host target's listings, linked by `build.rs`. The declarations are generated from the kernels'
//! signatures (`generated/<target>/mod.rs`), never written by hand.

#![allow(dead_code)]

include!(concat!(env!("ASMGEN_LISTINGS_DIR"), "/mod.rs"));
