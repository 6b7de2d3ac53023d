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
//! * the common part: H^1..H^8 and their half-sums (256 bytes on the heap), from the set's `init_base`
//!   (the x86_64 ymm and zmm sets: the xmm set's init) or its `init` (the other sets fill nothing more). Those
//!   sets' updates read nothing else; the ymm and zmm sets' read nothing else for fewer than
//!   [`BASE_UPDATE_BLOCKS`] + 1 blocks, so longer calls go in runs of that many.
//! * the whole table (the ymm and zmm sets only): 2 KiB on the heap, from the set's `init`, made when a call
//!   brings [`WHOLE_TABLE_BLOCKS`] or more blocks (or a fixed-size kernel needs it).
//!
//! Each level's table comes from the thread's spare table of its size (wiped when the last key gave it back),
//! so a new key per message allocates nothing, and the key itself is 64 bytes to move. Its first clone copies
//! the levels it has into a counted, shared copy (no key material computed again) that every clone uses from
//! then on.

use super::dispatch::{HashKernels, InitFn, UpdateFn};
use super::portable;
use std::alloc::{alloc, alloc_zeroed, dealloc, handle_alloc_error, Layout};
use std::cell::Cell;
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

/// A key table of either level on the heap behind a raw pointer, from this thread's spare of its size (or a
/// new zeroed allocation): made by [`Table::filled`] or [`Table::copied`], wiped and given back by
/// [`Table::free`]. A new key per message then allocates nothing.
trait Table: Sized + 'static {
    /// This thread's spare table of this size (wiped), if it has one.
    fn spare() -> &'static std::thread::LocalKey<Spare<Self>>;

    /// A table filled by `init`: the spare if the thread has one (wiped when it was given back), else a new
    /// zeroed one; allocated in place, not built on the stack and moved.
    fn filled(init: InitFn, h: &[u8; 16]) -> *mut Self {
        let spare = Self::spare().try_with(|s| s.0.replace(std::ptr::null_mut())).unwrap_or(std::ptr::null_mut());
        let p = if spare.is_null() {
            let layout = Layout::new::<Self>();
            // SAFETY: a layout of non-zero size.
            let p = unsafe { alloc_zeroed(layout) }.cast::<Self>();
            if p.is_null() {
                handle_alloc_error(layout);
            }
            p
        } else {
            spare
        };
        // SAFETY: the table has the bytes `init` writes (the base-only inits 256, the others 2048) and `h` the
        // 16 bytes the kernels' contract asks for.
        unsafe { init(p.cast(), h.as_ptr()) };
        p
    }

    /// Wipes a table from [`Table::filled`] or [`Table::copied`] and keeps it as this thread's spare, or frees
    /// it where the thread has one already.
    ///
    /// # Safety
    /// `p` is such a table, given back once, and nobody reads it any more.
    unsafe fn free(p: *mut Self) {
        // One `memset` (the widest stores the CPU has), kept by `black_box`: the table is freed or kept unread,
        // so a plain store would be dead to the optimiser. (2 KiB in 16-byte volatile stores cost a fresh 8 KiB
        // message 5%.)
        // SAFETY: a whole table, ours alone; all-zero words are a valid table.
        unsafe { std::ptr::write_bytes(p, 0, 1) };
        std::hint::black_box(p);
        std::sync::atomic::compiler_fence(Ordering::SeqCst);
        let kept = Self::spare()
            .try_with(|s| {
                let empty = s.0.get().is_null();
                if empty {
                    s.0.set(p);
                }
                empty
            })
            .unwrap_or(false);
        if !kept {
            // SAFETY: allocated by the global allocator with `Self`'s layout.
            unsafe { dealloc(p.cast(), Layout::new::<Self>()) };
        }
    }

    /// A copy of the table at `p` on the heap.
    fn copied(p: *const Self) -> *mut Self {
        let layout = Layout::new::<Self>();
        // SAFETY: a layout of non-zero size.
        let q = unsafe { alloc(layout) }.cast::<Self>();
        if q.is_null() {
            handle_alloc_error(layout);
        }
        // SAFETY: both are tables of that size; the source is filled and only read.
        unsafe { std::ptr::copy_nonoverlapping(p, q, 1) };
        q
    }
}

/// The whole key table (16-byte words, 16-byte aligned).
#[repr(C, align(16))]
pub(crate) struct KeyTable([u128; TABLE_BYTES / 16]);

/// The common part of the table: H^1..H^8 and their half-sums.
#[repr(C, align(16))]
struct BaseTable([u128; BASE_BYTES / 16]);

/// The first 144 bytes of a table with only H^1 (at 0) and its half-sum (at 128) filled: what every set's
/// update reads for one block.
#[repr(C, align(16))]
struct FirstPower([u8; 144]);

thread_local! {
    static SPARE: Spare<KeyTable> = const { Spare(Cell::new(std::ptr::null_mut())) };
    static SPARE_BASE: Spare<BaseTable> = const { Spare(Cell::new(std::ptr::null_mut())) };
}

impl Table for KeyTable {
    fn spare() -> &'static std::thread::LocalKey<Spare<Self>> {
        &SPARE
    }
}

impl Table for BaseTable {
    fn spare() -> &'static std::thread::LocalKey<Spare<Self>> {
        &SPARE_BASE
    }
}

/// A thread's spare table of one size: the last one given back, wiped, for the next fresh key to fill. Freed
/// when the thread ends.
struct Spare<T>(Cell<*mut T>);

impl<T> Drop for Spare<T> {
    fn drop(&mut self) {
        let p = self.0.get();
        if !p.is_null() {
            // SAFETY: a wiped table with `T`'s layout, owned by this slot alone.
            unsafe { dealloc(p.cast(), Layout::new::<T>()) };
        }
    }
}

/// One level of a key's table on the heap: null until filled, then owned. Filled once: two threads racing each
/// fill one, and the loser's is wiped and given back.
struct Level<T: Table>(AtomicPtr<T>);

impl<T: Table> Level<T> {
    const fn new() -> Level<T> {
        Level(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// The table, filled by `init` now if it was not.
    fn get(&self, init: InitFn, h: &[u8; 16]) -> *const u8 {
        let p = self.0.load(Ordering::Acquire);
        if !p.is_null() {
            return p.cast_const().cast();
        }
        let new = T::filled(init, h);
        match self.0.compare_exchange(std::ptr::null_mut(), new, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => new.cast_const().cast(),
            Err(theirs) => {
                // SAFETY: `new` was never shared.
                unsafe { T::free(new) };
                theirs.cast_const().cast()
            }
        }
    }

    /// [`Level::get`] through `&mut`: no other thread sees the level, so plain loads and stores.
    fn get_mut(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8 {
        let p = self.0.get_mut();
        if p.is_null() {
            *p = T::filled(init, h);
        }
        p.cast_const().cast()
    }

    fn filled(&self) -> bool {
        !self.0.load(Ordering::Acquire).is_null()
    }

    /// A level holding a copy of this one's table, if filled.
    fn copy(&self) -> Level<T> {
        let p = self.0.load(Ordering::Acquire);
        Level(AtomicPtr::new(if p.is_null() { p } else { T::copied(p) }))
    }
}

impl<T: Table> Drop for Level<T> {
    fn drop(&mut self) {
        let p = *self.0.get_mut();
        if !p.is_null() {
            // SAFETY: owned, given back once, and nobody else holds the level.
            unsafe { T::free(p) };
        }
    }
}

/// The levels of one key's table beyond H^1: the common part and the whole table, each on the heap (from the
/// thread's spare of its size), so that a key is small to move. Every byte is initialised (`repr(C)`,
/// explicit padding), so that an owner copied whole carries no stale bytes.
#[repr(C)]
struct Levels {
    base: Level<BaseTable>,
    whole: Level<KeyTable>,
    /// Whether a call already used H^1..H^4 on the stack (the next one fills the common part).
    small_used: AtomicU8,
    padding: [u8; 7],
}

impl Levels {
    #[inline]
    const fn new() -> Levels {
        Levels { base: Level::new(), whole: Level::new(), small_used: AtomicU8::new(0), padding: [0; 7] }
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

    /// Levels holding copies of what `self` has filled (no key material computed again).
    fn copy(&self) -> Levels {
        Levels { base: self.base.copy(), whole: self.whole.copy(), small_used: AtomicU8::new(0), padding: [0; 7] }
    }
}

/// Levels shared by the clones of a key, counted by hand (so that a key that is never cloned allocates
/// nothing for them).
struct Shared {
    refs: AtomicUsize,
    levels: Levels,
}

/// A GHASH or POLYVAL key on one backend, its table filled level by level as updates need it (see the module
/// doc). A key that is never cloned has its own levels. The first clone moves them to a shared, counted copy
/// that every clone then uses, so keying once and cloning per message computes nothing per clone. Every byte
/// is initialised (explicit padding to 64 bytes, which its owners' layouts rely on).
#[repr(C)]
pub(crate) struct HashKey {
    kernels: &'static HashKernels,
    h: [u8; 16],
    /// The shared levels once the key was cloned (null before).
    shared: AtomicPtr<Shared>,
    own: Levels,
    padding: [u8; 8],
}

// Small to move: a key is moved whole wherever its owner is (`finalize(self)` copies it).
const _: () = {
    assert!(std::mem::size_of::<Levels>() == 24);
    assert!(std::mem::size_of::<HashKey>() == 64);
};

impl Clone for HashKey {
    fn clone(&self) -> HashKey {
        let s = self.share();
        // SAFETY: `s` lives while `self` holds a count; the new key takes one more.
        unsafe { (*s).refs.fetch_add(1, Ordering::Relaxed) };
        HashKey { kernels: self.kernels, h: self.h, shared: AtomicPtr::new(s), own: Levels::new(), padding: [0; 8] }
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
        // `own`'s levels wipe their tables and give them back.
    }
}

impl HashKey {
    /// `h` on `kernels`; computes and allocates nothing.
    #[inline]
    pub(crate) fn new(kernels: &'static HashKernels, h: &[u8; 16]) -> HashKey {
        HashKey { kernels, h: *h, shared: AtomicPtr::new(std::ptr::null_mut()), own: Levels::new(), padding: [0; 8] }
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
        let new = Box::into_raw(Box::new(Shared { refs: AtomicUsize::new(1), levels: self.own.copy() }));
        match self.shared.compare_exchange(std::ptr::null_mut(), new, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => new,
            Err(theirs) => {
                // SAFETY: `new` was never shared.
                drop(unsafe { Box::from_raw(new) });
                theirs
            }
        }
    }

    /// Runs `f` with the table for the fused GCM kernels, filled now if it was not: the whole table where the
    /// key's set has an extension (its common part comes first: every fused kernel finds what it reads), the
    /// common part elsewhere.
    pub(crate) fn with_fused_table<R>(&self, f: impl FnOnce(*const u8) -> R) -> R {
        if self.kernels.init_base.is_some() {
            f(self.levels().whole.get(self.kernels.init, &self.h))
        } else {
            with_base_in(self.kernels, &self.h, &mut self.levels(), f)
        }
    }

    /// Whether a fused GCM call over `blocks` blocks finds its table without filling a whole one for a short
    /// message: the key's set has no extension (the common part is cheap), or GHASH itself would take the whole
    /// table for that call ([`takes_full_table`]).
    pub(crate) fn fused_table_ready(&self, blocks: usize) -> bool {
        let extended = self.kernels.init_base.is_some();
        !extended || takes_full_table(self.levels(), extended, blocks)
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
    /// The common part, filled now with `init` if it was not.
    fn base(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8;
    /// The whole table, filled now with `init` if it was not.
    fn whole(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8;
    fn levels(&self) -> &Levels;
    /// Whether this is the first call to ask for H^1..H^4 alone.
    fn first_small(&mut self) -> bool;
}

impl Fill for &Levels {
    fn base(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8 {
        self.base.get(init, h)
    }
    fn whole(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8 {
        self.whole.get(init, h)
    }
    fn levels(&self) -> &Levels {
        self
    }
    fn first_small(&mut self) -> bool {
        Levels::first_small(self)
    }
}

impl Fill for &mut Levels {
    fn base(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8 {
        self.base.get_mut(init, h)
    }
    fn whole(&mut self, init: InitFn, h: &[u8; 16]) -> *const u8 {
        self.whole.get_mut(init, h)
    }
    fn levels(&self) -> &Levels {
        self
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
    f(levels.base(kernels.init_base.unwrap_or(kernels.init), h))
}

/// Whether a call of `blocks` blocks takes the key's full table (the whole one for a set with an extension,
/// `extended`; the common part is all the others have): it is filled, or the call brings
/// [`WHOLE_TABLE_BLOCKS`] or more. GHASH's calls and the fused GCM kernels' decide by it.
fn takes_full_table(levels: &Levels, extended: bool, blocks: usize) -> bool {
    let filled = if extended { levels.whole.filled() } else { levels.base.filled() };
    filled || blocks >= WHOLE_TABLE_BLOCKS
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
    let extended = kernels.init_base.is_some();
    let base_filled = levels.levels().base.filled();
    if fixed || takes_full_table(levels.levels(), extended, n) {
        if extended {
            call(levels.whole(kernels.init, h), data);
        } else {
            with_base_in(kernels, h, levels, |table| call(table, data));
        }
    } else if n == 1 && !base_filled {
        let mut one = FirstPower([0; 144]);
        portable::first_power(&mut one.0, h, kernels.reflected);
        call(one.0.as_ptr(), data);
        one.0[..16].zeroize();
        one.0[128..].zeroize();
    } else if let Some(init_small) =
        kernels.init_small.filter(|_| n <= SMALL_BLOCKS && !base_filled && levels.first_small())
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

    /// A table given back is wiped before it waits as the thread's spare (the zeroize test sees only freed
    /// blocks, and a spare is not freed): the common part after a message of a few blocks, the whole table
    /// after a long one, through a shared reference and through `&mut`.
    #[test]
    fn the_spare_tables_are_wiped() {
        let kernels = crate::ghash::dispatch::polyval();
        let mut state = [0u8; 16];
        for exclusive in [false, true] {
            let mut key = HashKey::new(kernels, &[0x5a; 16]);
            for blocks in [SMALL_BLOCKS + 1, WHOLE_TABLE_BLOCKS] {
                let data = vec![7; 16 * blocks];
                if exclusive {
                    key.absorb_mut(kernels.update, false, &mut state, &data);
                } else {
                    key.absorb(&mut state, &data);
                }
            }
            drop(key);
            let base = SPARE_BASE.with(|s| s.0.get());
            assert!(!base.is_null(), "{}: the common part was kept", kernels.name);
            // SAFETY: the spare is a table nobody else uses (this thread's).
            let words = unsafe { &(*base).0 };
            assert!(words.iter().all(|&w| w == 0), "{}: the spare common part holds key material", kernels.name);
            let whole = SPARE.with(|s| s.0.get());
            if kernels.init_base.is_none() {
                assert!(whole.is_null(), "{}: no whole table, no spare", kernels.name);
                continue;
            }
            assert!(!whole.is_null(), "{}: the whole table was kept", kernels.name);
            // SAFETY: as above.
            let words = unsafe { &(*whole).0 };
            assert!(words.iter().all(|&w| w == 0), "{}: the spare table holds key material", kernels.name);
        }
    }
}
