//! The SM4 kernel sets of the aarch64 listings (none yet: the portable kernels serve this target).

use super::Sm4Kernels;

/// The listings' sets of this target, best first.
pub(crate) const SETS: &[Sm4Kernels] = &[];
