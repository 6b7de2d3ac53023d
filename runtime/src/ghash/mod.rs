//! GHASH and POLYVAL: the safe API ([`Ghash`], [`Polyval`]) over the kernels; [`dispatch`] picks them (the
//! listings', the JIT's or the [`portable`] code).

pub(crate) mod dispatch;
mod key;
pub(crate) mod portable;

pub(crate) use key::HashKey;

use crate::{backend, Error};
use dispatch::{HashKernels, UpdateFn};
use universal_hash::array::Array;
use universal_hash::common::{BlockSizeUser, KeySizeUser, ParBlocksSizeUser};
use universal_hash::consts::{U16, U8};
use universal_hash::{Block, Key, KeyInit, ParBlocks, Reset, UhfBackend, UhfClosure, UniversalHash};
use zeroize::Zeroize;

/// A fixed-size update kernel: its name, block count and function.
#[derive(Clone, Copy)]
struct Fixed {
    name: &'static str,
    blocks: usize,
    update: UpdateFn,
}

/// The state shared by both functions: the key (its table filled as messages need it, shared by clones) and
/// the running 16-byte state.
#[derive(Clone)]
struct Core {
    key: HashKey,
    fixed: Option<Fixed>,
    state: [u8; 16],
}

impl Core {
    #[inline]
    fn new(kernels: &'static HashKernels, h: &[u8; 16]) -> Core {
        Core { key: HashKey::new(kernels, h), fixed: None, state: [0; 16] }
    }

    /// Absorbs whole blocks; `blocks.len()` must be a multiple of 16.
    fn blocks(&mut self, blocks: &[u8]) {
        match self.fixed {
            Some(f) if f.blocks * 16 == blocks.len() => self.key.absorb_mut(f.update, true, &mut self.state, blocks),
            _ => self.key.absorb_mut(self.key.kernels().update, false, &mut self.state, blocks),
        }
    }

    fn update_padded(&mut self, data: &[u8]) {
        let full = data.len() / 16 * 16;
        self.blocks(&data[..full]);
        let rest = &data[full..];
        if !rest.is_empty() {
            let mut last = [0u8; 16];
            last[..rest.len()].copy_from_slice(rest);
            self.blocks(&last);
            last.zeroize();
        }
    }
}

// The fields leave no padding, so wiping each of them wipes every byte of the object.
const _: () = assert!(
    std::mem::size_of::<Core>()
        == std::mem::size_of::<HashKey>() + std::mem::size_of::<Option<Fixed>>() + std::mem::size_of::<[u8; 16]>()
);

impl Drop for Core {
    /// Wipes every byte of the object: the running state, the fixed kernel (the payload of a `None` carries
    /// what its stack slot held), and the key, which wipes itself.
    fn drop(&mut self) {
        // SAFETY: called from `drop`; all-zero bytes are `None`.
        unsafe { crate::wipe_object(&mut self.fixed) };
        // SAFETY: a field of `self`, written once.
        unsafe { std::ptr::write_volatile(&mut self.state, [0; 16]) };
    }
}

fn find(name: &str, candidates: fn(&str) -> &'static [HashKernels]) -> Result<&'static HashKernels, Error> {
    let k = candidates(name).iter().find(|k| k.name == name).ok_or_else(|| Error::UnknownBackend(name.to_string()))?;
    if k.available {
        Ok(k)
    } else {
        Err(Error::BackendUnavailable(k.name))
    }
}

macro_rules! universal_hash {
    ($(#[$doc:meta])* $name:ident, $kernels:path, $all:path, $pick:expr) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name(Core);

        impl $name {
            /// Keys the function with `h`, using the best backend for this CPU (or `ASMGEN_BACKEND`).
            #[inline]
            pub fn new(h: &[u8; 16]) -> Self {
                $name(Core::new($kernels(), h))
            }

            /// Keys the function with `h` on the named backend (see [`crate::backends`]); for tests and
            /// benchmarks that compare backends.
            pub fn with_backend(h: &[u8; 16], backend: &str) -> Result<Self, Error> {
                Ok($name(Core::new(find(backend, $all)?, h)))
            }

            /// Keys the function with `h` for messages of `blocks` 16-byte blocks (1 to 2^24): with the JIT (the
            /// opt-in feature `jit`), an update of exactly that many blocks runs a kernel generated for that
            /// count ([`Self::specialised`] names it); other updates run the best kernel.
            pub fn with_fixed_blocks(h: &[u8; 16], blocks: usize) -> Result<Self, Error> {
                if blocks == 0 || blocks > crate::MAX_FIXED_BLOCKS {
                    return Err(Error::InvalidLength { what: "fixed block count", len: blocks });
                }
                let mut core = Core::new($kernels(), h);
                // Only a fixed-size kernel of the set whose init filled the table: the ymm and zmm sets' read
                // H^9..H^64, which only their own inits write.
                core.fixed = dispatch::fixed_hash(blocks)
                    .filter(|k| backend::set_name(k.0) == backend::set_name(core.key.kernels().name))
                    .map(|k| Fixed { name: k.0, blocks, update: $pick(k) });
                Ok($name(core))
            }

            /// The fixed-size kernel in use for updates of one size (see [`Self::with_fixed_blocks`]), e.g.
            /// `jit/x86_64-pclmulqdq-avx/hash-64`.
            pub fn specialised(&self) -> Option<&'static str> {
                self.0.fixed.map(|f| f.name)
            }

            /// Absorbs `data`; a trailing partial block is zero-padded (as RustCrypto's `update_padded`), so
            /// only the last call of a message may pass a length that is not a multiple of 16.
            #[inline]
            pub fn update_padded(&mut self, data: &[u8]) {
                self.0.update_padded(data);
            }

            /// The 16-byte result.
            #[inline]
            pub fn finalize(self) -> [u8; 16] {
                self.0.state
            }

            /// The 16-byte result, the state then reset for the next message under the same key (no copy of
            /// the key table, unlike a clone per message).
            #[inline]
            pub fn finalize_reset(&mut self) -> [u8; 16] {
                std::mem::take(&mut self.0.state)
            }

            /// Starts a new message under the same key.
            pub fn reset(&mut self) {
                self.0.state.zeroize();
            }

            /// The kernel in use, e.g. `aot/x86_64-pclmulqdq-avx` or `portable`.
            pub fn backend(&self) -> &'static str {
                self.0.key.kernels().name
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name)).field("backend", &self.backend()).finish_non_exhaustive()
            }
        }

        impl KeySizeUser for $name {
            type KeySize = U16;
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> Self {
                let h: [u8; 16] = (*key).into();
                $name::new(&h)
            }
        }

        impl BlockSizeUser for $name {
            type BlockSize = U16;
        }

        impl ParBlocksSizeUser for $name {
            type ParBlocksSize = U8;
        }

        impl UhfBackend for $name {
            fn proc_block(&mut self, block: &Block<Self>) {
                self.0.blocks(block);
            }

            fn proc_par_blocks(&mut self, blocks: &ParBlocks<Self>) {
                self.0.blocks(Array::slice_as_flattened(blocks.as_slice()));
            }
        }

        impl UniversalHash for $name {
            fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
                f.call(self);
            }

            /// All the blocks to the kernel in one call (the trait's default goes 8 blocks per call): the
            /// same path as the inherent [`Self::update_padded`].
            fn update(&mut self, blocks: &[Block<Self>]) {
                self.0.blocks(Array::slice_as_flattened(blocks));
            }

            /// The inherent [`Self::update_padded`]: whole blocks in one kernel call, then the padded rest.
            fn update_padded(&mut self, data: &[u8]) {
                self.0.update_padded(data);
            }

            fn finalize(self) -> Block<Self> {
                self.0.state.into()
            }

            fn finalize_reset(&mut self) -> Block<Self> {
                $name::finalize_reset(self).into()
            }
        }

        impl Reset for $name {
            fn reset(&mut self) {
                $name::reset(self);
            }
        }
    };
}

universal_hash!(
    /// GHASH (NIST SP 800-38D) keyed with `H`.
    Ghash,
    dispatch::ghash,
    dispatch::ghash_for,
    |k: (&'static str, UpdateFn, UpdateFn)| k.1
);
universal_hash!(
    /// POLYVAL (RFC 8452) keyed with `H`.
    Polyval,
    dispatch::polyval,
    dispatch::polyval_for,
    |k: (&'static str, UpdateFn, UpdateFn)| k.2
);
