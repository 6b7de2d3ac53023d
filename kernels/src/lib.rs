//! Kernel descriptions written with the asmgen builder, and the catalog of listings they produce.
//!
//! * [`ghash`]: GHASH and POLYVAL (one description; x86_64 PCLMULQDQ, aarch64 PMULL, riscv64 Zbc).
//! * [`sm4`]: SM4 (x86_64: AES-NI S-box with AVX and AVX2).
//! * [`catalog`]: which listings exist for which target.

#![warn(missing_docs)]

mod arch;
pub mod catalog;
pub mod ghash;
mod plan;
pub mod role;
pub mod sm4;

pub use role::{Kernel, Kernels, Role};

/// How many blocks a kernel processes: its `nblocks` argument, or a number fixed when the kernel is generated.
///
/// A fixed-size kernel (the JIT's specialisations) ignores `nblocks`: its loops run a constant number of
/// times and it has no length checks, and no tail code beyond what that number needs. Its name carries the
/// number (`_n256`); its C signature is the general kernel's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Blocks {
    /// `nblocks`, at run time.
    Arg,
    /// Exactly this many blocks.
    Fixed(usize),
}

/// A fixed-size kernel the JIT builds on request, by block count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fixed {
    /// A set's XTS kernels (both directions, both tweak conventions) for one data-unit size.
    Xts(usize),
    /// A set's CTR kernel for one message size (whole blocks).
    Ctr(usize),
    /// A set's GHASH and POLYVAL update kernels for one block count.
    Hash(usize),
}

impl Blocks {
    /// The function-name suffix: none, or `_n<count>`.
    pub fn suffix(self) -> String {
        match self {
            Blocks::Arg => String::new(),
            Blocks::Fixed(n) => format!("_n{n}"),
        }
    }

    /// The documentation line of a fixed-size kernel.
    pub fn doc(self) -> Option<String> {
        match self {
            Blocks::Arg => None,
            Blocks::Fixed(n) => Some(format!(
                "Fixed size: exactly {n} blocks ({} bytes); nblocks is ignored, no length checks, no tail code.",
                16 * n
            )),
        }
    }
}

/// Starts a kernel's comment with its role's ISA-neutral documentation line ([`Role::doc`]); the kernel adds
/// only its ISA-specific notes after it (blocks in flight, instructions).
pub(crate) fn doc_role<I: asmgen::Isa>(b: &mut asmgen::Builder<I>, role: Role) {
    b.doc(role.doc().expect("every role has an ISA-neutral doc line"));
}
