//! A hash key whose table is filled as the messages need it ([`HashKey`]): a fresh key costs in proportion to
//! the message, and a clone shares what was computed.
//!
//! Three levels, each computed at most once per key and shared by every clone:
//! * none: a call of one block runs the update against a 144-byte table on the stack holding H^1 and its
//!   half-sum, computed in a few instructions ([`portable::first_power`]) and wiped after the call. Every set's
//!   update reads only those two entries for one block.
//! * the common part: H^1..H^8 and their half-sums (256 bytes, inside the shared state, no allocation of its
//!   own), from the set's `init_base` (the x86_64 ymm and zmm sets: the xmm set's init) or its `init` (the other
//!   sets fill nothing more). Those sets' updates read nothing else; the ymm and zmm sets' read nothing else
//!   for fewer than [`BASE_UPDATE_BLOCKS`] + 1 blocks, so longer calls go in runs of that many.
//! * the whole table (the ymm and zmm sets only): 2 KiB on the heap, from the set's `init`, made when a call
//!   brings [`WHOLE_TABLE_BLOCKS`] or more blocks (or a fixed-size kernel needs it).

use super::dispatch::{HashKernels, UpdateFn};
use super::portable;
use std::cell::UnsafeCell;
use std::sync::{Arc, Once, OnceLock};
use zeroize::Zeroize;

/// Size of the key table a backend may fill (powers of H and their Karatsuba half-sums: 256 bytes common to
/// every backend, 2 KiB for the x86_64 ymm and zmm sets' H^1..H^64).
pub(crate) const TABLE_BYTES: usize = 2048;
// The kernels' own figure, where this build has the kernels crate (the JIT, the interpreter).
#[cfg(any(feature = "jit", feature = "interp"))]
const _: () = assert!(TABLE_BYTES == asmgen_kernels::ghash::KEY_TABLE_BYTES);
/// Bytes of the common part of the table (H^1..H^8 and their half-sums).
const BASE_BYTES: usize = 256;
#[cfg(any(feature = "jit", feature = "interp"))]
const _: () = assert!(BASE_BYTES == asmgen_kernels::ghash::BASE_TABLE_BYTES);

/// The most blocks one update call of a ymm or zmm set may take when only the common part is filled (from 16
/// blocks on they read the extension).
pub(crate) const BASE_UPDATE_BLOCKS: usize = 15;
/// From this many blocks in one call, a ymm or zmm set's key gets its whole table: below it, the table's
/// setup costs more than the wide loops save (a 1 KiB call).
pub(crate) const WHOLE_TABLE_BLOCKS: usize = 64;

/// A key table, as 16-byte words so that zeroising it takes 128 stores, not 2048. Dropped, it wipes itself.
#[repr(C, align(16))]
pub(crate) struct KeyTable([u128; TABLE_BYTES / 16]);

impl KeyTable {
    /// A table on the heap filled by `init` (which writes all of it).
    fn filled(init: super::dispatch::InitFn, h: &[u8; 16]) -> Box<KeyTable> {
        let mut t = Box::new(KeyTable([0; TABLE_BYTES / 16]));
        // SAFETY: the table has the 2048 bytes and `h` the 16 bytes the kernels' contract asks for.
        unsafe { init(t.0.as_mut_ptr().cast(), h.as_ptr()) };
        t
    }

    fn as_ptr(&self) -> *const u8 {
        self.0.as_ptr().cast()
    }
}

impl Drop for KeyTable {
    fn drop(&mut self) {
        // SAFETY: called from `drop`; all-zero words are a valid table.
        unsafe { crate::wipe_object(self) };
    }
}

/// The common part of a table: H^1..H^8 and their half-sums.
#[repr(C, align(16))]
struct BaseTable([u128; BASE_BYTES / 16]);

/// The first 144 bytes of a table with only H^1 (at 0) and its half-sum (at 128) filled: what every set's
/// update reads for one block.
#[repr(C, align(16))]
struct FirstPower([u8; 144]);

/// What the clones of a key share: the key, and each level once it is computed.
struct Levels {
    h: [u8; 16],
    base: UnsafeCell<BaseTable>,
    base_filled: Once,
    whole: OnceLock<Box<KeyTable>>,
}

// SAFETY: `base` is written only inside `base_filled.call_once` and read only after it returned (the `Once`
// orders the write before every read); the other fields are `Sync`.
unsafe impl Sync for Levels {}

impl Drop for Levels {
    fn drop(&mut self) {
        self.h.zeroize();
        if self.base_filled.is_completed() {
            // SAFETY: called from `drop` (no other reference); all-zero words are a valid table.
            unsafe { crate::wipe_object(self.base.get_mut()) };
        }
        // `whole` wipes itself when its box drops.
    }
}

/// A GHASH or POLYVAL key on one backend, its table filled level by level as updates need it (see the module
/// doc). Clones share the levels (an [`Arc`]): keying once and cloning per message computes nothing per clone.
#[derive(Clone)]
pub(crate) struct HashKey {
    kernels: &'static HashKernels,
    levels: Arc<Levels>,
}

impl HashKey {
    /// `h` on `kernels`; computes nothing yet.
    pub(crate) fn new(kernels: &'static HashKernels, h: &[u8; 16]) -> HashKey {
        let levels = Levels {
            h: *h,
            // Zeroed, not left uninitialised: the block may hold whatever its last owner freed.
            base: UnsafeCell::new(BaseTable([0; BASE_BYTES / 16])),
            base_filled: Once::new(),
            whole: OnceLock::new(),
        };
        HashKey { kernels, levels: Arc::new(levels) }
    }

    /// The backend.
    pub(crate) fn kernels(&self) -> &'static HashKernels {
        self.kernels
    }

    /// The common part of the table (filled now if it was not): for the fused GCM kernels, and the updates of
    /// the sets that have no extension.
    pub(crate) fn base(&self) -> *const u8 {
        let l = &*self.levels;
        l.base_filled.call_once(|| {
            let init = self.kernels.init_base.unwrap_or(self.kernels.init);
            // SAFETY: inside `call_once`, the only writer; the base-only inits write the first 256 bytes of
            // the table and nothing else, and `h` is 16 bytes.
            unsafe { init(l.base.get().cast(), l.h.as_ptr()) };
        });
        l.base.get().cast_const().cast()
    }

    /// The whole table for this backend's update of any length (filled now if it was not).
    pub(crate) fn whole(&self) -> *const u8 {
        if self.kernels.init_base.is_none() {
            return self.base();
        }
        let l = &*self.levels;
        l.whole.get_or_init(|| KeyTable::filled(self.kernels.init, &l.h)).as_ptr()
    }

    /// Whether the whole table is filled (for a set with an extension; the common part for the others).
    fn whole_filled(&self) -> bool {
        match self.kernels.init_base {
            Some(_) => self.levels.whole.get().is_some(),
            None => self.levels.base_filled.is_completed(),
        }
    }

    /// Absorbs the whole blocks of `data` (its length a multiple of 16) into `state` with `update`, a kernel of
    /// this key's set (the general one, or a fixed-size one, which gets the whole table).
    pub(crate) fn absorb_with(&self, update: UpdateFn, fixed: bool, state: &mut [u8; 16], data: &[u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        let n = data.len() / 16;
        let mut call = |table: *const u8, blocks: &[u8]| {
            // SAFETY: `state` is 16 writable bytes, `table` holds what this set's update reads for
            // `blocks.len() / 16` blocks (the module doc), and `blocks` that many readable bytes.
            unsafe { update(state.as_mut_ptr(), table, blocks.as_ptr(), blocks.len() / 16) }
        };
        if n == 0 {
            return;
        }
        if fixed || self.whole_filled() || n >= WHOLE_TABLE_BLOCKS {
            call(self.whole(), data);
        } else if n == 1 && !self.levels.base_filled.is_completed() {
            let mut one = FirstPower([0; 144]);
            portable::first_power(&mut one.0, &self.levels.h, self.kernels.reflected);
            call(one.0.as_ptr(), data);
            one.0[..16].zeroize();
            one.0[128..].zeroize();
        } else if self.kernels.init_base.is_none() {
            call(self.base(), data);
        } else {
            let base = self.base();
            for run in data.chunks(16 * BASE_UPDATE_BLOCKS) {
                call(base, run);
            }
        }
    }

    /// [`Self::absorb_with`] the backend's general update.
    pub(crate) fn absorb(&self, state: &mut [u8; 16], data: &[u8]) {
        self.absorb_with(self.kernels.update, false, state, data)
    }
}
