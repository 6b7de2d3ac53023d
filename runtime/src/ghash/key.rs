//! A hash key whose table is filled as the messages need it ([`HashKey`]): a fresh key costs in proportion to
//! the message, and a clone shares what was computed.
//!
//! Three levels, each computed at most once per key (clones included):
//! * none: a call of one block runs the update against a 144-byte table on the stack holding H^1 and its
//!   half-sum, computed in a few instructions ([`portable::first_power`]) and wiped after the call. Every set's
//!   update reads only those two entries for one block.
//! * the first call of 2..=[`SMALL_BLOCKS`] blocks, where the set has an `init_small` (x86_64): H^1..H^4 and
//!   their half-sums on the stack, 128 bytes, wiped after the call (every x86_64 update reads nothing else for
//!   that many blocks); a second such call fills the common part instead.
//! * the common part: H^1..H^8 and their half-sums (256 bytes, inside the key), from the set's `init_base`
//!   (the x86_64 ymm and zmm sets: the xmm set's init) or its `init` (the other sets fill nothing more). Those
//!   sets' updates read nothing else; the ymm and zmm sets' read nothing else for fewer than
//!   [`BASE_UPDATE_BLOCKS`] + 1 blocks, so longer calls go in runs of that many.
//! * the whole table (the ymm and zmm sets only): 2 KiB on the heap, from the set's `init`, made when a call
//!   brings [`WHOLE_TABLE_BLOCKS`] or more blocks (or a fixed-size kernel needs it).
//!
//! A key that is never cloned allocates nothing but the whole table; its first clone copies the levels it has
//! into a counted, shared copy (no key material computed again) that every clone uses from then on.

use super::dispatch::{HashKernels, InitFn, UpdateFn};
use super::portable;
use std::alloc::{alloc, alloc_zeroed, dealloc, handle_alloc_error, Layout};
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicPtr, AtomicU8, AtomicUsize, Ordering};
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
/// The most blocks an update reads only H^1..H^4 (and their half-sums) for, in the sets with an `init_small`.
pub(crate) const SMALL_BLOCKS: usize = 4;
#[cfg(any(feature = "jit", feature = "interp"))]
const _: () = assert!(SMALL_BLOCKS == asmgen_kernels::ghash::SMALL_BLOCKS);

/// From this many blocks in one call, a ymm or zmm set's key gets its whole table: below it, the table's
/// setup costs more than the wide loops save (a 1 KiB call).
pub(crate) const WHOLE_TABLE_BLOCKS: usize = 64;

/// A key table (16-byte words, 16-byte aligned) on the heap behind a raw pointer: made by [`KeyTable::filled`]
/// or [`KeyTable::copied`], wiped and given back by [`KeyTable::free`].
#[repr(C, align(16))]
pub(crate) struct KeyTable([u128; TABLE_BYTES / 16]);

impl KeyTable {
    /// A table on the heap filled by `init`: this thread's spare table if it has one (wiped when it was
    /// given back), else a new zeroed one (the zmm set's init leaves part of it unwritten); allocated in place,
    /// not built on the stack and moved.
    fn filled(init: InitFn, h: &[u8; 16]) -> *mut KeyTable {
        let spare = SPARE.try_with(|s| s.0.replace(std::ptr::null_mut())).unwrap_or(std::ptr::null_mut());
        let p = if spare.is_null() {
            let layout = Layout::new::<KeyTable>();
            // SAFETY: a layout of non-zero size.
            let p = unsafe { alloc_zeroed(layout) }.cast::<KeyTable>();
            if p.is_null() {
                handle_alloc_error(layout);
            }
            p
        } else {
            spare
        };
        // SAFETY: the table has the 2048 bytes and `h` the 16 bytes the kernels' contract asks for.
        unsafe { init(p.cast(), h.as_ptr()) };
        p
    }

    /// Wipes a table from [`KeyTable::filled`] or [`KeyTable::copied`] and keeps it as this thread's spare, or
    /// frees it where the thread has one already.
    ///
    /// # Safety
    /// `p` is such a table, given back once, and nobody reads it any more.
    unsafe fn free(p: *mut KeyTable) {
        // SAFETY: a whole table, ours alone.
        unsafe { KeyTable::wipe(p) };
        let kept = SPARE
            .try_with(|s| {
                let empty = s.0.get().is_null();
                if empty {
                    s.0.set(p);
                }
                empty
            })
            .unwrap_or(false);
        if !kept {
            // SAFETY: allocated by the global allocator with `KeyTable`'s layout.
            unsafe { dealloc(p.cast(), Layout::new::<KeyTable>()) };
        }
    }

    /// Zeroes the table at `p` with one `memset` (the widest stores the CPU has), kept by `black_box`: the
    /// table is freed or kept unread, so a plain store would be dead to the optimiser. (2 KiB in 16-byte
    /// volatile stores cost a fresh 8 KiB message 5%.)
    ///
    /// # Safety
    /// `p` is a whole table, not read or written by anyone else.
    unsafe fn wipe(p: *mut KeyTable) {
        // SAFETY: the caller's contract; all-zero words are a valid table.
        unsafe { std::ptr::write_bytes(p, 0, 1) };
        std::hint::black_box(p);
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
    }

    /// A copy of the table at `p` on the heap.
    fn copied(p: *const KeyTable) -> *mut KeyTable {
        let layout = Layout::new::<KeyTable>();
        // SAFETY: a layout of non-zero size.
        let q = unsafe { alloc(layout) }.cast::<KeyTable>();
        if q.is_null() {
            handle_alloc_error(layout);
        }
        // SAFETY: both are tables of that size; the source is filled and only read.
        unsafe { std::ptr::copy_nonoverlapping(p, q, 1) };
        q
    }
}

/// A thread's spare key table: the last whole table given back, wiped, for the next fresh key to fill (a new
/// key per message then allocates nothing). Freed when the thread ends.
struct Spare(Cell<*mut KeyTable>);

impl Drop for Spare {
    fn drop(&mut self) {
        let p = self.0.get();
        if !p.is_null() {
            // SAFETY: a wiped table with `KeyTable`'s layout, owned by this slot alone.
            unsafe { dealloc(p.cast(), Layout::new::<KeyTable>()) };
        }
    }
}

thread_local! {
    static SPARE: Spare = const { Spare(Cell::new(std::ptr::null_mut())) };
}

/// The common part of a table: H^1..H^8 and their half-sums.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct BaseTable([u128; BASE_BYTES / 16]);

/// The first 144 bytes of a table with only H^1 (at 0) and its half-sum (at 128) filled: what every set's
/// update reads for one block.
#[repr(C, align(16))]
struct FirstPower([u8; 144]);

/// [`Levels::base_state`]: nothing yet, being filled by one caller, filled.
const EMPTY: u8 = 0;
const FILLING: u8 = 1;
const FILLED: u8 = 2;

/// The levels of one key's table beyond H^1: the common part (inline) and the whole table (on the heap).
/// Each is filled once; a caller that finds the common part being filled by another thread fills a copy of
/// its own on the stack rather than wait. Every byte is initialised (`repr(C)`, explicit padding, sizes
/// checked below), so that an owner copied or freed whole carries no stale bytes.
#[repr(C)]
struct Levels {
    base: UnsafeCell<BaseTable>,
    /// The whole table (null until filled), owned.
    whole: AtomicPtr<KeyTable>,
    base_state: AtomicU8,
    /// Whether a call already used H^1..H^4 on the stack (the next one fills the common part).
    small_used: AtomicU8,
    padding: [u8; 6],
}

// SAFETY: `base` is written only by the caller that moved `base_state` from EMPTY to FILLING, and read only
// after a load of FILLED (release/acquire); `whole` is an atomic pointer to an owned table, written once.
unsafe impl Sync for Levels {}
// SAFETY: as above; the fields are owned data.
unsafe impl Send for Levels {}

impl Levels {
    #[inline]
    fn new() -> Levels {
        Levels {
            base: UnsafeCell::new(BaseTable([0; BASE_BYTES / 16])),
            whole: AtomicPtr::new(std::ptr::null_mut()),
            base_state: AtomicU8::new(EMPTY),
            small_used: AtomicU8::new(0),
            padding: [0; 6],
        }
    }

    /// The common part: filled already, or now by this caller with `init`; `None` while another thread fills
    /// it.
    fn base(&self, init: InitFn, h: &[u8; 16]) -> Option<*const u8> {
        let p = self.base.get().cast_const().cast::<u8>();
        match self.base_state.load(Ordering::Acquire) {
            FILLED => Some(p),
            EMPTY if self.base_state.compare_exchange(EMPTY, FILLING, Ordering::Acquire, Ordering::Relaxed).is_ok() => {
                // SAFETY: this caller alone moved the state to FILLING, so it is the only writer and nobody
                // reads until FILLED; the base-only inits write the 256 bytes and nothing else.
                unsafe { init(self.base.get().cast(), h.as_ptr()) };
                self.base_state.store(FILLED, Ordering::Release);
                Some(p)
            }
            _ => None,
        }
    }

    /// Whether this is the first call to ask for H^1..H^4 alone (later ones fill the common part). A hint, not
    /// a lock: two threads racing may both get `true`, and each computes its own.
    fn first_small(&self) -> bool {
        let first = self.small_used.load(Ordering::Relaxed) == 0;
        if first {
            self.small_used.store(1, Ordering::Relaxed);
        }
        first
    }

    fn base_filled(&self) -> bool {
        self.base_state.load(Ordering::Acquire) == FILLED
    }

    /// The whole table, filled by `init` now if it was not (two threads racing each fill one; the loser's is
    /// wiped and freed).
    fn whole(&self, init: InitFn, h: &[u8; 16]) -> *const u8 {
        let p = self.whole.load(Ordering::Acquire);
        if !p.is_null() {
            return p.cast_const().cast();
        }
        let new = KeyTable::filled(init, h);
        match self.whole.compare_exchange(std::ptr::null_mut(), new, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => new.cast_const().cast(),
            Err(theirs) => {
                // SAFETY: `new` was never shared.
                unsafe { KeyTable::free(new) };
                theirs.cast_const().cast()
            }
        }
    }

    fn whole_filled(&self) -> bool {
        !self.whole.load(Ordering::Acquire).is_null()
    }

    /// Levels holding copies of what `self` has filled (no key material computed again).
    fn copy(&self) -> Levels {
        let l = Levels::new();
        if self.base_filled() {
            // SAFETY: filled, so only read from now on; `l` is not shared yet.
            unsafe { *l.base.get() = *self.base.get() };
            l.base_state.store(FILLED, Ordering::Relaxed);
        }
        let w = self.whole.load(Ordering::Acquire);
        if !w.is_null() {
            l.whole.store(KeyTable::copied(w), Ordering::Relaxed);
        }
        l
    }
}

impl Drop for Levels {
    fn drop(&mut self) {
        if *self.base_state.get_mut() != EMPTY {
            // SAFETY: called from `drop` (no other reference); all-zero words are a valid table.
            unsafe { crate::wipe_object(self.base.get_mut()) };
        }
        let w = *self.whole.get_mut();
        if !w.is_null() {
            // SAFETY: owned, freed once, and nobody else holds the levels.
            unsafe { KeyTable::free(w) };
        }
    }
}

/// Levels shared by the clones of a key, counted by hand (so that a key that is never cloned allocates
/// nothing for them).
/// Every byte of it is initialised, as of [`Levels`] (explicit padding before the 16-byte aligned levels).
#[repr(C)]
struct Shared {
    refs: AtomicUsize,
    padding: [u8; 8],
    levels: Levels,
}

/// A GHASH or POLYVAL key on one backend, its table filled level by level as updates need it (see the module
/// doc). A key that is never cloned keeps its levels inline (the whole table, if a message needs it, on the
/// heap). The first clone moves them to a shared, counted copy that every clone then uses, so keying once and
/// cloning per message computes nothing per clone. Every byte of it is initialised (an owner that wipes
/// itself whole and writes the key back copies no stale bytes).
#[repr(C)]
pub(crate) struct HashKey {
    kernels: &'static HashKernels,
    h: [u8; 16],
    /// The shared levels once the key was cloned (null before).
    shared: AtomicPtr<Shared>,
    own: Levels,
}

const _: () = {
    assert!(std::mem::size_of::<Levels>() == BASE_BYTES + 16);
    assert!(std::mem::size_of::<HashKey>() == 32 + std::mem::size_of::<Levels>());
    assert!(std::mem::size_of::<Shared>() == 16 + std::mem::size_of::<Levels>());
};

impl Clone for HashKey {
    fn clone(&self) -> HashKey {
        let s = self.share();
        // SAFETY: `s` lives while `self` holds a count; the new key takes one more.
        unsafe { (*s).refs.fetch_add(1, Ordering::Relaxed) };
        HashKey { kernels: self.kernels, h: self.h, shared: AtomicPtr::new(s), own: Levels::new() }
    }
}

impl Drop for HashKey {
    fn drop(&mut self) {
        // SAFETY: a field of `self`, written once (one 16-byte store, not 16 byte stores).
        unsafe { std::ptr::write_volatile(&mut self.h, [0; 16]) };
        let s = *self.shared.get_mut();
        // SAFETY: this key holds one count of `s`; the last holder frees it (after an acquire fence, so that
        // every other holder's use happens before).
        if !s.is_null() && unsafe { (*s).refs.fetch_sub(1, Ordering::Release) } == 1 {
            std::sync::atomic::fence(Ordering::Acquire);
            drop(unsafe { Box::from_raw(s) });
        }
        // `own` wipes itself.
    }
}

impl HashKey {
    /// `h` on `kernels`; computes and allocates nothing.
    #[inline]
    pub(crate) fn new(kernels: &'static HashKernels, h: &[u8; 16]) -> HashKey {
        HashKey { kernels, h: *h, shared: AtomicPtr::new(std::ptr::null_mut()), own: Levels::new() }
    }

    /// The backend.
    pub(crate) fn kernels(&self) -> &'static HashKernels {
        self.kernels
    }

    /// The levels in use: the shared ones once the key was cloned, its own before.
    fn levels(&self) -> &Levels {
        let s = self.shared.load(Ordering::Acquire);
        if s.is_null() {
            &self.own
        } else {
            // SAFETY: this key holds a count of `s`.
            unsafe { &(*s).levels }
        }
    }

    /// The shared levels, made now (holding copies of this key's own) if the key was never cloned.
    fn share(&self) -> *mut Shared {
        let s = self.shared.load(Ordering::Acquire);
        if !s.is_null() {
            return s;
        }
        let new =
            Box::into_raw(Box::new(Shared { refs: AtomicUsize::new(1), padding: [0; 8], levels: self.own.copy() }));
        match self.shared.compare_exchange(std::ptr::null_mut(), new, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => new,
            Err(theirs) => {
                // SAFETY: `new` was never shared.
                drop(unsafe { Box::from_raw(new) });
                theirs
            }
        }
    }

    /// Runs `f` with the common part of the table: the key's (filled now if it was not), or, while another
    /// thread fills that, a copy filled on the stack and wiped after `f`. For the fused GCM kernels.
    pub(crate) fn with_base<R>(&self, f: impl FnOnce(*const u8) -> R) -> R {
        with_base_in(self.kernels, &self.h, &mut self.levels(), f)
    }

    /// Absorbs the whole blocks of `data` (its length a multiple of 16) into `state` with `update`, a kernel of
    /// this key's set (the general one, or a fixed-size one, which gets the whole table).
    pub(crate) fn absorb_with(&self, update: UpdateFn, fixed: bool, state: &mut [u8; 16], data: &[u8]) {
        absorb_in(self.kernels, &self.h, &mut self.levels(), update, fixed, state, data)
    }

    /// [`Self::absorb_with`] the backend's general update.
    pub(crate) fn absorb(&self, state: &mut [u8; 16], data: &[u8]) {
        self.absorb_with(self.kernels.update, false, state, data)
    }

    /// [`Self::absorb_with`] through `&mut`: a key that was never cloned fills its own levels with plain stores
    /// (no other thread can see them), not the atomic read-modify-writes a shared key needs.
    pub(crate) fn absorb_mut(&mut self, update: UpdateFn, fixed: bool, state: &mut [u8; 16], data: &[u8]) {
        if self.shared.get_mut().is_null() {
            absorb_in(self.kernels, &self.h, &mut &mut self.own, update, fixed, state, data)
        } else {
            self.absorb_with(update, fixed, state, data)
        }
    }
}

/// How a call reaches a key's levels: through a shared reference (atomics: another thread may fill them too)
/// or, for a key never cloned, through `&mut` (plain loads and stores).
trait Fill {
    /// The common part, filled now with `init` if it was not; `None` while another thread fills it.
    fn base(&mut self, init: InitFn, h: &[u8; 16]) -> Option<*const u8>;
    /// The whole table, filled now with `init` if it was not.
    fn whole(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8;
    fn base_filled(&self) -> bool;
    fn whole_filled(&self) -> bool;
    /// Whether this is the first call to ask for H^1..H^4 alone.
    fn first_small(&mut self) -> bool;
}

impl Fill for &Levels {
    fn base(&mut self, init: InitFn, h: &[u8; 16]) -> Option<*const u8> {
        Levels::base(self, init, h)
    }
    fn whole(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8 {
        Levels::whole(self, init, h)
    }
    fn base_filled(&self) -> bool {
        Levels::base_filled(self)
    }
    fn whole_filled(&self) -> bool {
        Levels::whole_filled(self)
    }
    fn first_small(&mut self) -> bool {
        Levels::first_small(self)
    }
}

impl Fill for &mut Levels {
    fn base(&mut self, init: InitFn, h: &[u8; 16]) -> Option<*const u8> {
        if *self.base_state.get_mut() != FILLED {
            // SAFETY: `&mut`: nobody else reads or writes the levels; the base-only inits write the 256 bytes
            // and nothing else.
            unsafe { init(self.base.get_mut().0.as_mut_ptr().cast(), h.as_ptr()) };
            *self.base_state.get_mut() = FILLED;
        }
        Some(self.base.get_mut().0.as_ptr().cast())
    }
    fn whole(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8 {
        let w = self.whole.get_mut();
        if w.is_null() {
            *w = KeyTable::filled(init, h);
        }
        w.cast_const().cast()
    }
    fn base_filled(&self) -> bool {
        Levels::base_filled(self)
    }
    fn whole_filled(&self) -> bool {
        Levels::whole_filled(self)
    }
    fn first_small(&mut self) -> bool {
        std::mem::replace(self.small_used.get_mut(), 1) == 0
    }
}

/// [`HashKey::with_base`] on `levels`.
fn with_base_in<R>(
    kernels: &'static HashKernels,
    h: &[u8; 16],
    levels: &mut impl Fill,
    f: impl FnOnce(*const u8) -> R,
) -> R {
    let init_base = kernels.init_base.unwrap_or(kernels.init);
    if let Some(p) = levels.base(init_base, h) {
        return f(p);
    }
    let mut local = BaseTable([0; BASE_BYTES / 16]);
    // SAFETY: 256 writable bytes, all a base-only init writes; a 16-byte key.
    unsafe { init_base(local.0.as_mut_ptr().cast(), h.as_ptr()) };
    let r = f(local.0.as_ptr().cast());
    // SAFETY: a local table no longer read; all-zero words are valid.
    unsafe { crate::wipe_object(&mut local) };
    r
}

/// [`HashKey::absorb_with`] on `levels`, the key `h` on `kernels`.
fn absorb_in(
    kernels: &'static HashKernels,
    h: &[u8; 16],
    levels: &mut impl Fill,
    update: UpdateFn,
    fixed: bool,
    state: &mut [u8; 16],
    data: &[u8],
) {
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
    // The whole table, for a set with an extension (the common part is all the others have).
    let extended = kernels.init_base.is_some();
    let whole_filled = if extended { levels.whole_filled() } else { levels.base_filled() };
    if fixed || whole_filled || n >= WHOLE_TABLE_BLOCKS {
        if extended {
            call(levels.whole(kernels.init, h), data);
        } else {
            with_base_in(kernels, h, levels, |table| call(table, data));
        }
    } else if n == 1 && !levels.base_filled() {
        let mut one = FirstPower([0; 144]);
        portable::first_power(&mut one.0, h, kernels.reflected);
        call(one.0.as_ptr(), data);
        one.0[..16].zeroize();
        one.0[128..].zeroize();
    } else if let Some(init_small) =
        kernels.init_small.filter(|_| n <= SMALL_BLOCKS && !levels.base_filled() && levels.first_small())
    {
        // Only the words init_small writes are read, and only they are wiped.
        let mut small = std::mem::MaybeUninit::<BaseTable>::uninit();
        let words = small.as_mut_ptr().cast::<u128>();
        // SAFETY: 256 writable bytes, of which init_small writes 0..64 and 128..192; a 16-byte key.
        unsafe { init_small(words.cast(), h.as_ptr()) };
        call(words.cast_const().cast(), data);
        for i in [0, 1, 2, 3, 8, 9, 10, 11] {
            // SAFETY: a word within the local table, no longer read.
            unsafe { std::ptr::write_volatile(words.add(i), 0) };
        }
    } else if !extended {
        with_base_in(kernels, h, levels, |table| call(table, data));
    } else {
        with_base_in(kernels, h, levels, |table| {
            for run in data.chunks(16 * BASE_UPDATE_BLOCKS) {
                call(table, run);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole table given back is wiped before it waits as the thread's spare (the zeroize test sees only
    /// freed blocks, and a spare is not freed).
    #[test]
    fn the_spare_table_is_wiped() {
        let kernels = crate::ghash::dispatch::polyval();
        let key = HashKey::new(kernels, &[0x5a; 16]);
        let mut state = [0u8; 16];
        key.absorb(&mut state, &[7; 16 * WHOLE_TABLE_BLOCKS]);
        drop(key);
        let spare = SPARE.with(|s| s.0.get());
        if kernels.init_base.is_none() {
            assert!(spare.is_null(), "{}: no whole table, no spare", kernels.name);
            return;
        }
        assert!(!spare.is_null(), "{}: the whole table was kept", kernels.name);
        // SAFETY: the spare is a whole table nobody else uses (this thread's).
        let words = unsafe { &(*spare).0 };
        assert!(words.iter().all(|&w| w == 0), "{}: the spare table holds key material", kernels.name);
    }
}
