//! SM4 (GB/T 32907-2016): the block cipher, its modes, MACs and AEADs over the dispatched kernels.
//!
//! Every type holds round keys (zeroised on drop) and a `&'static` kernel set; see [`sm4_backends`] and
//! each type's `with_backend` for tests and benchmarks that compare backends.

mod aead_impls;
mod block;
mod ccm;
mod cipher_impls;
mod ctr;
pub(crate) mod dispatch;
mod gcm;
mod keys;
mod mac;
pub(crate) mod portable;
mod xts;

pub use block::Sm4;
pub use ccm::{CcmNonceSize, CcmTagSize, Sm4Ccm, Sm4CcmAead};
pub use ctr::Sm4Ctr;
pub use gcm::{GcmPath, Sm4Gcm};
pub use mac::{Sm4CbcMac, Sm4Cmac, Sm4Xcbc};
pub use xts::Sm4Xts;

pub use dispatch::sm4_backend_table;

/// Names of the SM4 backends this CPU can run, portable first, best last.
pub fn sm4_backends() -> Vec<&'static str> {
    sm4_backend_table().into_iter().filter(|(_, ok)| *ok).map(|(n, _)| n).collect()
}
