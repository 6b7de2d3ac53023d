//! A hash key whose table is filled as the messages need it ([`HashKey`]): a fresh key costs in proportion to
//! the message, and a clone shares what was computed.
//!
//! Three levels, each computed at most once per key and shared by every clone:
//! * none: a call of one block runs the update against a 144-byte table on the stack holding H^1 and its
//!   half-sum, computed in a few instructions ([`portable::first_power`]) and wiped after the call. Every set's
//!   update reads only those two entries for one block.
//! * the common part: H^1..H^8 and their half-sums (256 bytes, inside the shared state), from the set's `init_base` (the x86_64 ymm and zmm sets: the xmm set's init) or its `init` (the other
//!   sets fill nothing more). Those sets' updates read nothing else; the ymm and zmm sets' read nothing else
//!   for fewer than [`BASE_UPDATE_BLOCKS`] + 1 blocks, so longer calls go in runs of that many.
//! * the whole table (the ymm and zmm sets only): 2 KiB on the heap, from the set's `init`, made when a call
//!   brings [`WHOLE_TABLE_BLOCKS`] or more blocks (or a fixed-size kernel needs it).

use super::dispatch::{HashKernels, UpdateFn};
use super::portable;
use std::cell::UnsafeCell;
use std::sync::{Arc, Once};
use zeroize::Zeroize;

/// Size of the key table a backend may fill (powers of H and their Karatsuba half-sums: 256 bytes common to
/// every backend, 2 KiB for the x86_64 ymm and zmm sets' H^1..H^64).
const TABLE_BYTES: usize = 2048;
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

/// What the clones of a key share: each level once it is computed. Every byte of it is written when it is
/// made (no padding, no uninitialised slot: `repr(C)`, sizes checked below), so that its heap block never
/// carries what the block's previous owner left there.
#[repr(C)]
struct Levels {
    base: UnsafeCell<BaseTable>,
    whole: UnsafeCell<Option<Box<KeyTable>>>,
    base_filled: Once,
    whole_filled: Once,
    padding: [u8; LEVELS_PADDING],
}

/// The bytes [`Levels`] needs after its fields to fill its 16-byte alignment (a `Once` is 4 bytes on most
/// targets, a pointer on some).
const LEVELS_PADDING: usize = (16 - (BASE_BYTES + 8 + 2 * std::mem::size_of::<Once>()) % 16) % 16;
/// The bytes [`HashKey`] needs after its fields to fill its 8-byte alignment.
const KEY_PADDING: usize = (8 - std::mem::size_of::<Once>() % 8) % 8;

const _: () = {
    let once = std::mem::size_of::<Once>();
    let levels = BASE_BYTES + std::mem::size_of::<Option<Box<KeyTable>>>() + 2 * once + LEVELS_PADDING;
    assert!(std::mem::size_of::<Levels>() == levels);
    let key = 8 + 16 + std::mem::size_of::<Option<Arc<Levels>>>() + once + KEY_PADDING;
    assert!(std::mem::size_of::<HashKey>() == key);
};

// SAFETY: `base` and `whole` are each written only inside their `Once`'s `call_once` and read only after it
// returned (the `Once` orders the write before every read); `Box<KeyTable>` is `Send + Sync`.
unsafe impl Sync for Levels {}
// SAFETY: as above; the fields are owned data.
unsafe impl Send for Levels {}

impl Levels {
    fn new() -> Arc<Levels> {
        Arc::new(Levels {
            base: UnsafeCell::new(BaseTable([0; BASE_BYTES / 16])),
            whole: UnsafeCell::new(None),
            base_filled: Once::new(),
            whole_filled: Once::new(),
            padding: [0; LEVELS_PADDING],
        })
    }
}

impl Drop for Levels {
    fn drop(&mut self) {
        if self.base_filled.is_completed() {
            // SAFETY: called from `drop` (no other reference); all-zero words are a valid table.
            unsafe { crate::wipe_object(self.base.get_mut()) };
        }
        // `whole` wipes itself when its box drops.
    }
}

/// A GHASH or POLYVAL key on one backend, its table filled level by level as updates need it (see the module
/// doc). The levels live in an [`Arc`] made when the first of them is needed or the key is first cloned (a
/// one-block message under a fresh key allocates nothing); clones share them, so keying once and cloning per
/// message computes nothing per clone. Like [`Levels`], every byte of it is initialised (an owner that wipes
/// itself whole and writes the key back copies no stale bytes).
#[repr(C)]
pub(crate) struct HashKey {
    kernels: &'static HashKernels,
    h: [u8; 16],
    levels: UnsafeCell<Option<Arc<Levels>>>,
    levels_made: Once,
    padding: [u8; KEY_PADDING],
}

// SAFETY: `levels` is written only inside `levels_made.call_once` and read after it returned; `Arc<Levels>` is
// `Send + Sync`.
unsafe impl Sync for HashKey {}
// SAFETY: as above.
unsafe impl Send for HashKey {}

impl Clone for HashKey {
    fn clone(&self) -> HashKey {
        let levels = Arc::clone(self.levels());
        HashKey {
            kernels: self.kernels,
            h: self.h,
            levels: UnsafeCell::new(Some(levels)),
            levels_made: made(),
            padding: [0; KEY_PADDING],
        }
    }
}

/// A `Once` already completed.
fn made() -> Once {
    let once = Once::new();
    once.call_once(|| {});
    once
}

impl Drop for HashKey {
    fn drop(&mut self) {
        self.h.zeroize();
    }
}

impl HashKey {
    /// `h` on `kernels`; computes nothing yet.
    pub(crate) fn new(kernels: &'static HashKernels, h: &[u8; 16]) -> HashKey {
        HashKey { kernels, h: *h, levels: UnsafeCell::new(None), levels_made: Once::new(), padding: [0; KEY_PADDING] }
    }

    /// The backend.
    pub(crate) fn kernels(&self) -> &'static HashKernels {
        self.kernels
    }

    /// The shared levels, made now if they were not.
    fn levels(&self) -> &Arc<Levels> {
        self.levels_made.call_once(|| {
            // SAFETY: inside `call_once`, the only writer.
            unsafe { *self.levels.get() = Some(Levels::new()) };
        });
        // SAFETY: written above or by an earlier `call_once`, ordered before this read by the `Once`.
        unsafe { (*self.levels.get()).as_ref().expect("made") }
    }

    /// The shared levels if they were made.
    fn levels_if_made(&self) -> Option<&Levels> {
        if !self.levels_made.is_completed() {
            return None;
        }
        // SAFETY: completed, so written and ordered before this read.
        unsafe { (*self.levels.get()).as_deref() }
    }

    /// The common part of the table (filled now if it was not): for the fused GCM kernels, and the updates of
    /// the sets that have no extension.
    pub(crate) fn base(&self) -> *const u8 {
        let l = self.levels();
        l.base_filled.call_once(|| {
            let init = self.kernels.init_base.unwrap_or(self.kernels.init);
            // SAFETY: inside `call_once`, the only writer; the base-only inits write the first 256 bytes of
            // the table and nothing else, and `h` is 16 bytes.
            unsafe { init(l.base.get().cast(), self.h.as_ptr()) };
        });
        l.base.get().cast_const().cast()
    }

    /// The whole table for this backend's update of any length (filled now if it was not).
    pub(crate) fn whole(&self) -> *const u8 {
        if self.kernels.init_base.is_none() {
            return self.base();
        }
        let l = self.levels();
        l.whole_filled.call_once(|| {
            // SAFETY: inside `call_once`, the only writer.
            unsafe { *l.whole.get() = Some(KeyTable::filled(self.kernels.init, &self.h)) };
        });
        // SAFETY: filled above (or by an earlier `call_once`, ordered before this read by the `Once`).
        unsafe { (*l.whole.get()).as_ref().expect("filled").as_ptr() }
    }

    /// Whether the whole table is filled (for a set with an extension; the common part for the others).
    fn whole_filled(&self) -> bool {
        let Some(l) = self.levels_if_made() else { return false };
        match self.kernels.init_base {
            Some(_) => l.whole_filled.is_completed(),
            None => l.base_filled.is_completed(),
        }
    }

    /// Whether the common part is filled.
    fn base_filled(&self) -> bool {
        self.levels_if_made().is_some_and(|l| l.base_filled.is_completed())
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
        } else if n == 1 && !self.base_filled() {
            let mut one = FirstPower([0; 144]);
            portable::first_power(&mut one.0, &self.h, self.kernels.reflected);
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
