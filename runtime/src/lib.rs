//! asmgen-runtime: the library an application links.
//!
//! It links the host's checked-in listings (`generated/<target>/*.S`, assembled by `build.rs`), picks the
//! best kernel for the running CPU (with a portable Rust fallback), and wraps them in a safe API:
//!
//! * [`Ghash`] and [`Polyval`]: `new`, `update_padded`, `finalize`, `backend`, plus RustCrypto's
//!   `UniversalHash` and `KeyInit`.
//! * SM4: [`Sm4`] (ECB, CBC, CFB, CTR, CBC-CS3 and RustCrypto's `cipher` block traits), [`Sm4Ctr`] (CTR as a
//!   stream: `cipher::StreamCipher` and `StreamCipherSeek`), [`Sm4Xts`] (IEEE 1619 and GB/T 17964),
//!   [`Sm4Cmac`], [`Sm4Xcbc`], [`Sm4CbcMac`] (each also `digest::Mac`), [`Sm4Gcm`] (also
//!   `aead::AeadInOut`), [`Sm4Ccm`] and [`Sm4CcmAead`] (CCM with its lengths in the type, `aead::AeadInOut`).
//!
//! The trait crates are re-exported ([`cipher`], [`aead`], [`digest`], [`universal_hash`]) so that an
//! application names the versions this crate implements; a RustCrypto composition (`ctr::Ctr128BE<sm4::Sm4>`,
//! `cmac::Cmac<sm4::Sm4>`, `ccm::Ccm<sm4::Sm4, M, N>`, `ghash::GHash`, `polyval::Polyval`) is replaced by
//! naming the type here instead.
//!
//! # Inherent methods and the traits
//!
//! Where a type has an inherent method of a trait method's name, the inherent one is what `value.method()` and
//! `Type::method` call; the trait's is called as `Trait::method(&value)` (or through a generic bound):
//!
//! * `new(&[u8; 16])` on every keyed type takes a plain array; `KeyInit::new` / `KeyIvInit::new` take the
//!   trait's `&Key<Self>` (`&key.into()`). [`Sm4Ctr`] and [`Sm4CcmAead`] have no inherent `new`.
//! * The MACs' `finalize` returns `[u8; 16]`, `digest::Mac::finalize` a `CtOutput` compared in constant time;
//!   their `verify(&[u8])` returns [`Error::TagMismatch`], `Mac::verify` a `MacError`; both are constant-time.
//! * [`Ghash`] and [`Polyval`]: `update_padded`, `finalize`, `finalize_reset`, `reset` do what the traits' do,
//!   returning `[u8; 16]` where the traits return a `Block`.
//! * [`Sm4Gcm`] and [`Sm4Ccm`]: `encrypt`/`decrypt` take slices and return [`Error`] (`Sm4Gcm`'s are not
//!   `aead::Aead`'s, which is reached as `aead::Aead::encrypt(&gcm, ..)`).
//!
//! With the feature `jit`, `jit::Jit` assembles the same kernel descriptions at startup for this CPU
//! (x86_64, aarch64, riscv64); `ASMGEN_BACKEND=jit` makes the safe API use those kernels, and the fixed-size
//! constructors ([`Sm4Xts::with_sector_size`], [`Sm4::with_ctr_message_size`], [`Ghash::with_fixed_blocks`],
//! [`Polyval::with_fixed_blocks`]) use kernels the JIT generates for one size. `jit::JitModule` is the same
//! JIT for any function an application writes with `asmgen::Builder`: mapped W^X, handed back as typed
//! function pointers.
//!
//! `ASMGEN_BACKEND=portable|aot|jit` overrides the choice (for tests and benchmarks); `ASMGEN_ISA=avx` keeps the
//! x86_64 SM4 kernels to AVX (as on a CPU without AVX2); `avx2`, `vaes` and `gfni` cap them likewise (`gfni`
//! hides only AVX-512).

#![warn(missing_docs)]

#[doc(hidden)]
pub mod abi_test;
/// `Drop` for an API type: every byte of the object zeroised ([`wipe_object`]: padding and the payload of a
/// `None` are copied with the object and may hold key bytes), then the listed fields (`&'static` kernel
/// tables, not secret) written back, so that the fields' own drop glue sees a valid value.
macro_rules! wipe_on_drop {
    ($t:ty: $($($field:tt).+),+) => {
        impl Drop for $t {
            fn drop(&mut self) {
                let keep = ($(self.$($field).+,)+);
                // SAFETY: called from `drop`; with the kernel-table references written back, all-zero bytes
                // are a valid value of the type.
                unsafe { $crate::wipe_object(self) };
                ($(self.$($field).+,)+) = keep;
            }
        }
    };
}

mod aot;
mod backend;
mod cpu;
mod error;
mod ghash;
#[cfg(all(feature = "interp", target_pointer_width = "64", target_endian = "little"))]
mod interp;
#[cfg(feature = "jit")]
pub mod jit;
mod sm4;

pub use backend::backend_override;
pub use error::Error;
pub use ghash::dispatch::hash_backends;
pub use ghash::{Ghash, Polyval};
pub use sm4::{
    sm4_backend_table, sm4_backends, CcmNonceSize, CcmTagSize, GcmPath, Sm4, Sm4CbcMac, Sm4Ccm, Sm4CcmAead, Sm4Cmac,
    Sm4Ctr, Sm4Gcm, Sm4Xcbc, Sm4Xts,
};
// The RustCrypto trait crates the types implement, so that an application names the same versions.
pub use {aead, cipher, digest, universal_hash};

/// The README's examples, compiled and run as this crate's doctests (`cargo test -p asmgen-runtime --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}

// Every API type may move to and be shared between threads: checked at compile time.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Sm4>();
    send_sync::<Sm4Ctr>();
    send_sync::<Sm4Xts>();
    send_sync::<Sm4Cmac>();
    send_sync::<Sm4Xcbc>();
    send_sync::<Sm4CbcMac>();
    send_sync::<Sm4Gcm>();
    send_sync::<Sm4Ccm>();
    send_sync::<Sm4CcmAead>();
    send_sync::<Sm4CcmAead<aead::consts::U4, aead::consts::U7>>();
    send_sync::<GcmPath>();
    send_sync::<Ghash>();
    send_sync::<Polyval>();
    send_sync::<Error>();
    #[cfg(feature = "jit")]
    {
        send_sync::<jit::Jit>();
        send_sync::<jit::JitKernel>();
        send_sync::<jit::JitStats>();
        send_sync::<jit::JitModule>();
        send_sync::<jit::JitError>();
        send_sync::<jit::Specialisation>();
    }
};

/// The largest block count a fixed-size kernel takes (256 MiB): [`Sm4Xts::with_sector_size`],
/// [`Sm4::with_ctr_message_size`], [`Ghash::with_fixed_blocks`], [`Polyval::with_fixed_blocks`].
pub const MAX_FIXED_BLOCKS: usize = 1 << 24;

/// Overwrites every byte of `*obj` with zeros through volatile writes (which the compiler may not elide): its
/// fields, the padding between them and the payload of any `Option` that is `None`.
///
/// Why the whole object and not its fields: moving or copying a value copies all of its bytes, including those
/// no field owns (padding; the payload of a `None`, as in `Sm4Xts`'s sector `Option` or `Sm4`'s fixed-size
/// kernels), and those bytes carry whatever was in the stack slot the value was built in, round keys or key
/// tables among it. Zeroising fields leaves them, so the API types' `Drop` calls this on the whole object.
///
/// # Safety
///
/// Only from `T`'s `Drop::drop`. All-zero bytes must be a valid `T` once the caller has restored its
/// references (the API types hold `&'static` kernel tables, which are not secret and which the caller
/// writes back right after), because the drop glue of the fields still runs on the object.
pub(crate) unsafe fn wipe_object<T>(obj: &mut T) {
    // The widest store the object's alignment allows: a type's size is a multiple of its alignment, so the
    // words cover it exactly. (Byte stores doubled the cost of a 16-byte GHASH message, whose keyed state is
    // cloned and dropped per message.)
    let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
    let p = obj as *mut T;
    // SAFETY (each loop): the words lie within the object, which the caller owns exclusively, and are aligned
    // since the object is aligned to at least the word's size.
    if align >= 16 {
        for i in 0..size / 16 {
            unsafe { std::ptr::write_volatile(p.cast::<u128>().add(i), 0) };
        }
    } else if align >= 8 {
        for i in 0..size / 8 {
            unsafe { std::ptr::write_volatile(p.cast::<u64>().add(i), 0) };
        }
    } else {
        for i in 0..size {
            unsafe { std::ptr::write_volatile(p.cast::<u8>().add(i), 0) };
        }
    }
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
}

/// Names of the GHASH/POLYVAL backends this CPU can run, best last.
pub fn backends() -> Vec<&'static str> {
    hash_backends().into_iter().filter(|(_, ok)| *ok).map(|(n, _)| n).collect()
}

#[cfg(test)]
mod tests {
    /// Every kernel set of the generated table is a backend of its algorithm (`aot/<set>`): the dispatchers
    /// drop a set that lacks a role every set of its algorithm has, and that must never happen silently.
    #[test]
    fn every_table_set_is_a_backend() {
        let listed: Vec<&str> =
            crate::sm4_backend_table().into_iter().chain(crate::hash_backends()).map(|(n, _)| n).collect();
        for set in crate::aot::SETS {
            let name = format!("aot/{}", set.name);
            assert!(listed.contains(&name.as_str()), "{name} is not a backend: {listed:?}");
        }
    }
}
