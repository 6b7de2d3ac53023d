//! The host target's listings, linked by `build.rs`: the declarations of their functions and the table of
//! their kernel sets, generated from the kernel catalog (`generated/<target>/mod.rs`), never written by hand.
//! Without listings (a target without them, or `ASMGEN_NO_ASM`) the table is empty.

#[cfg(asmgen_aot)]
#[allow(dead_code)]
mod linked {
    include!(concat!(env!("ASMGEN_LISTINGS_DIR"), "/mod.rs"));
}
#[cfg(asmgen_aot)]
pub(crate) use linked::{KernelSet, SETS};

/// A kernel set of the listings (see `generated/<target>/mod.rs`); none in this build.
#[cfg(not(asmgen_aot))]
pub(crate) struct KernelSet {
    pub name: &'static str,
    pub listing: &'static str,
    pub features: &'static [&'static str],
    pub kernels: &'static [Kernel],
    pub rival: Option<&'static str>,
    pub fused_ghash: Option<&'static str>,
}

/// A kernel of a set; none in this build.
#[cfg(not(asmgen_aot))]
pub(crate) struct Kernel {
    pub role: &'static str,
    pub symbol: &'static str,
    pub entry: *const (),
}

/// No listings in this build.
#[cfg(not(asmgen_aot))]
pub(crate) const SETS: &[KernelSet] = &[];
