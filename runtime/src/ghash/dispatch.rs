//! GHASH/POLYVAL backends: the portable code, the listings' hash sets and the JIT's, each filled by role
//! (`ghash_init`, `ghash_update`, `polyval_init`, `polyval_update`, and where a set has them
//! `ghash_init_base`, `polyval_init_base`, `ghash_init_small`, `polyval_init_small`) from the generated set table or the
//! JIT, in one [`Registry`] per function.

use super::portable;
use crate::backend::{self, cast, Backends, Kernels, Registry};

/// Key setup: `init(table, h)`.
pub(crate) type InitFn = unsafe extern "C" fn(*mut u8, *const u8);
/// Update: `update(state, table, data, nblocks)`.
pub(crate) type UpdateFn = unsafe extern "C" fn(*mut u8, *const u8, *const u8, usize);

/// One implementation of GHASH or POLYVAL.
#[derive(Clone, Copy)]
pub(crate) struct HashKernels {
    /// What `backend()` reports.
    pub name: &'static str,
    /// Whether the running CPU can execute it.
    pub available: bool,
    /// Key setup.
    pub init: InitFn,
    /// Key setup of the table's common part only, where `init` fills more (the x86_64 ymm and zmm sets).
    pub init_base: Option<InitFn>,
    /// Key setup of H^1..H^4 and their half-sums only, enough for this set's update of at most
    /// [`super::key::SMALL_BLOCKS`] blocks (the x86_64 sets).
    pub init_small: Option<InitFn>,
    /// GHASH (keys and blocks byte-reflected around the POLYVAL core) rather than POLYVAL.
    pub reflected: bool,
    /// Block update.
    pub update: UpdateFn,
    /// The place of the listings' set it runs in their table ([`backend::rank`]); `None` for the portable code.
    pub rank: Option<usize>,
}

impl Kernels for HashKernels {
    fn name(&self) -> &'static str {
        self.name
    }
    fn available(&self) -> bool {
        self.available
    }
}

/// The portable GHASH (also what the portable SM4-GCM uses).
pub(crate) static PORTABLE_GHASH: HashKernels = HashKernels {
    name: "portable",
    available: true,
    init: portable::ghash_init,
    init_base: None,
    init_small: None,
    reflected: true,
    update: portable::ghash_update,
    rank: None,
};
const PORTABLE_POLYVAL: HashKernels = HashKernels {
    name: "portable",
    available: true,
    init: portable::polyval_init,
    init_base: None,
    init_small: None,
    reflected: false,
    update: portable::polyval_update,
    rank: None,
};

/// A hash set's GHASH and POLYVAL kernels from its kernels by role; `None` if a role is missing.
fn from_roles(
    name: &'static str,
    available: bool,
    entry: &dyn Fn(&str) -> Option<*const ()>,
) -> Option<(HashKernels, HashKernels)> {
    // SAFETY: the roles' C signatures are `InitFn` and `UpdateFn`; the kernels live for the process.
    let init = |role| entry(role).map(|p| unsafe { cast::<InitFn>(p) });
    let update = |role| entry(role).map(|p| unsafe { cast::<UpdateFn>(p) });
    let rank = backend::set_of(name).and_then(|s| backend::rank(s.name));
    Some((
        HashKernels {
            name,
            available,
            init: init("ghash_init")?,
            init_base: init("ghash_init_base"),
            init_small: init("ghash_init_small"),
            reflected: true,
            update: update("ghash_update")?,
            rank,
        },
        HashKernels {
            name,
            available,
            init: init("polyval_init")?,
            init_base: init("polyval_init_base"),
            init_small: init("polyval_init_small"),
            reflected: false,
            update: update("polyval_update")?,
            rank,
        },
    ))
}

/// The GHASH and POLYVAL registries.
struct Hashes {
    ghash: Registry<HashKernels>,
    polyval: Registry<HashKernels>,
}

static HASHES: Backends<Hashes> = Backends::new(hashes);

/// The registries, with the JIT's sets or without, with the interpreter's or without.
fn hashes(with_jit: bool, with_interp: bool) -> Hashes {
    let (aot_g, aot_p): (Vec<_>, Vec<_>) = backend::aot_backends("ghash", &from_roles).into_iter().unzip();
    #[cfg(feature = "jit")]
    let jit = if with_jit { crate::jit::backends("ghash", &from_roles) } else { Vec::new() };
    #[cfg(not(feature = "jit"))]
    let jit: Vec<(HashKernels, HashKernels)> = {
        let _ = with_jit;
        Vec::new()
    };
    #[cfg(not(all(feature = "interp", target_pointer_width = "64", target_endian = "little")))]
    let _ = with_interp;
    // The interpreter's sets (feature `interp`), after the JIT's: chosen only by ASMGEN_BACKEND=jit without a JIT.
    #[cfg(all(feature = "interp", target_pointer_width = "64", target_endian = "little"))]
    let jit = {
        let mut jit = jit;
        if with_interp {
            jit.extend(crate::interp::backends("ghash", &from_roles));
        }
        jit
    };
    let (jit_g, jit_p): (Vec<_>, Vec<_>) = jit.into_iter().unzip();
    Hashes {
        ghash: Registry::new(PORTABLE_GHASH, aot_g, jit_g),
        polyval: Registry::new(PORTABLE_POLYVAL, aot_p, jit_p),
    }
}

/// Fixed-size GHASH and POLYVAL updates of `n` blocks from the JIT ([`crate::jit::Jit::specialised`]):
/// `(name, ghash, polyval)`. `None` without the `jit` feature, when `ASMGEN_BACKEND` asks for the portable
/// code or the listings, or when this CPU's set has none.
pub(crate) fn fixed_hash(n: usize) -> Option<(&'static str, UpdateFn, UpdateFn)> {
    #[cfg(feature = "jit")]
    {
        use backend::Request;
        if matches!(backend::request(), Request::Portable | Request::Aot) {
            return None;
        }
        let jit = crate::jit::Jit::specialised(crate::jit::Specialisation::HashBlocks(n)).ok()?;
        let set = jit.sets().first()?;
        // SAFETY: the update roles' C signature is `UpdateFn`; specialisations live for the process.
        let update = |role| jit.entry_of(set, role).map(|p| unsafe { cast::<UpdateFn>(p) });
        Some((backend::jit_name(set), update("ghash_update")?, update("polyval_update")?))
    }
    #[cfg(not(feature = "jit"))]
    {
        let _ = n;
        None
    }
}

/// The GHASH kernels to use.
pub(crate) fn ghash() -> &'static HashKernels {
    HASHES.chosen().ghash.best()
}

/// The POLYVAL kernels to use.
pub(crate) fn polyval() -> &'static HashKernels {
    HASHES.chosen().polyval.best()
}

/// The GHASH implementations among which one named `name` is, if this build has it.
pub(crate) fn ghash_for(name: &str) -> &'static [HashKernels] {
    HASHES.for_name(name).ghash.all()
}

/// The POLYVAL implementations among which one named `name` is, if this build has it.
pub(crate) fn polyval_for(name: &str) -> &'static [HashKernels] {
    HASHES.for_name(name).polyval.all()
}

/// Every GHASH and POLYVAL implementation this build has, with whether this CPU runs it, portable first, best
/// last (for tests and the benchmark, which compare them all). Lists the JIT's without assembling them.
pub fn hash_backends() -> Vec<(&'static str, bool)> {
    HASHES.table("ghash", |h| h.polyval.table())
}
