//! Backends: the portable code, the listings' kernel sets (`aot/<set>`) and the JIT's (`jit/<set>`), one
//! registry and one ordering for every algorithm, and the override `ASMGEN_BACKEND`.
//!
//! The listings' sets are the generated table (`generated/<target>/mod.rs`, from the kernel catalog): a set is
//! available when the CPU has every feature the table names ([`crate::cpu`]), and its kernels are found by
//! role. `ASMGEN_BACKEND=portable` forces the portable code, `aot` the best available listings' set (the
//! portable code where there is none), `jit` the JIT's set (the listings' otherwise); unset or anything else:
//! the best available listings' set ([`backend_override`] reports a value it does not know).

use crate::aot;
use crate::Error;
use std::sync::OnceLock;

/// The override requested through `ASMGEN_BACKEND`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Request {
    Best,
    Portable,
    Aot,
    Jit,
}

/// `ASMGEN_BACKEND`, read once; a value [`parse_request`] rejects counts as unset (see [`backend_override`]).
pub(crate) fn request() -> Request {
    static R: OnceLock<Request> = OnceLock::new();
    *R.get_or_init(|| read_request().unwrap_or(Request::Best))
}

fn read_request() -> Result<Request, Error> {
    match std::env::var("ASMGEN_BACKEND") {
        Ok(v) => parse_request(&v),
        Err(std::env::VarError::NotPresent) => Ok(Request::Best),
        Err(std::env::VarError::NotUnicode(v)) => Err(invalid_backend(v.to_string_lossy().into_owned())),
    }
}

fn invalid_backend(value: String) -> Error {
    Error::InvalidEnvironment { var: "ASMGEN_BACKEND", value, expected: "portable, aot or jit (or unset)" }
}

/// A value of `ASMGEN_BACKEND`: `portable`, `aot`, `jit`, or empty (as unset). `jit` in a build without the
/// features `jit` and `interp` is an error too: it would run the listings.
pub(crate) fn parse_request(value: &str) -> Result<Request, Error> {
    match value {
        "" => Ok(Request::Best),
        "portable" => Ok(Request::Portable),
        "aot" => Ok(Request::Aot),
        // Without a JIT, the interpreter's sets stand in for it (feature `interp`).
        "jit" if cfg!(any(feature = "jit", feature = "interp")) => Ok(Request::Jit),
        "jit" => Err(Error::InvalidEnvironment {
            var: "ASMGEN_BACKEND",
            value: value.to_string(),
            expected: "portable or aot: this build has no JIT (the feature `jit`)",
        }),
        _ => Err(invalid_backend(value.to_string())),
    }
}

/// What `ASMGEN_BACKEND` asks for: `Ok(None)` when it is unset or empty, `Ok(Some("portable" | "aot" | "jit"))`,
/// or [`Error::InvalidEnvironment`] for a value the runtime does not know (a misspelling, or `jit` in a build
/// without the features `jit` and `interp`), in `ASMGEN_BACKEND` or in `ASMGEN_ISA` (the x86_64 feature cap:
/// `avx`, `avx2`, `vaes`, `gfni`). The dispatchers cannot fail, so they choose as if the variable were unset;
/// an application that wants such a mistake to be seen calls this at startup:
///
/// ```
/// if let Err(e) = asmgen_runtime::backend_override() {
///     eprintln!("{e}"); // e.g. ASMGEN_BACKEND="protable" is not one of portable, aot or jit (or unset)
/// }
/// ```
pub fn backend_override() -> Result<Option<&'static str>, Error> {
    crate::cpu::check_cap()?;
    Ok(match read_request()? {
        Request::Best => None,
        Request::Portable => Some("portable"),
        Request::Aot => Some("aot"),
        Request::Jit => Some("jit"),
    })
}

/// The listings' kernel sets of `listing` (`ghash`, `sm4`), best first (none without listings).
pub(crate) fn aot_sets(listing: &str) -> impl Iterator<Item = &'static aot::KernelSet> + '_ {
    aot::SETS.iter().filter(move |s| s.listing == listing)
}

/// The name of the set a backend or one of its specialisations runs: `x86_64-vpclmul-avx2` for
/// `aot/x86_64-vpclmul-avx2` and `jit/x86_64-vpclmul-avx2/hash-64`; `None` for the portable code.
pub(crate) fn set_name(backend: &str) -> Option<&str> {
    backend.split('/').nth(1)
}

/// The listings' set a backend runs (`aot/<set>`, `jit/<set>`, `interp/<set>`, and their specialisations):
/// the same table row whichever way its kernels were made; `None` for the portable code.
pub(crate) fn set_of(backend: &str) -> Option<&'static aot::KernelSet> {
    let set = set_name(backend)?;
    aot::SETS.iter().find(|s| s.name == set)
}

/// Whether listings' set `a` ranks above set `b`: both are in the table, `a` first (the table lists each
/// listing's sets best first). For the JIT, which chooses the kernels it assembles by the sets' names
/// (`Sm4Gcm` weighs ranks found once, [`rank`]).
#[cfg(feature = "jit")]
pub(crate) fn outranks(a: &str, b: &str) -> bool {
    matches!((rank(a), rank(b)), (Some(a), Some(b)) if a < b)
}

/// The place of listings' set `name` in the table (lower ranks higher among a listing's sets).
pub(crate) fn rank(name: &str) -> Option<usize> {
    aot::SETS.iter().position(|s| s.name == name)
}

/// Whether the CPU runs every kernel of `set`.
pub(crate) fn available(set: &aot::KernelSet) -> bool {
    crate::cpu::has_all(set.features)
}

/// The listing function of `set` in `role`.
pub(crate) fn entry(set: &aot::KernelSet, role: &str) -> Option<*const ()> {
    set.kernels.iter().find(|k| k.role == role).map(|k| k.entry)
}

/// Makes an algorithm's typed table from a set: `make(backend name, available, kernel by role)`.
pub(crate) type MakeFn<'a, K> = &'a dyn Fn(&'static str, bool, &dyn Fn(&str) -> Option<*const ()>) -> Option<K>;

/// The listings' sets of `listing` made into backends by `make`, best first (a set `make` rejects, lacking a
/// role every set of its algorithm has, is left out: the catalog's tests keep that from happening).
pub(crate) fn aot_backends<K>(listing: &str, make: MakeFn<'_, K>) -> Vec<K> {
    aot_sets(listing).filter_map(|s| make(aot_name(s.name), available(s), &|role| entry(s, role))).collect()
}

/// One implementation of an algorithm: a table of kernels (function pointers by role) with its name.
pub(crate) trait Kernels: 'static {
    /// What `backend()` reports: `portable`, `aot/<set>`, `jit/<set>`.
    fn name(&self) -> &'static str;
    /// Whether the running CPU can execute it.
    fn available(&self) -> bool;
}

/// Every backend of one algorithm in this build, portable first and best last, and the one to use.
pub(crate) struct Registry<K: Kernels> {
    all: Vec<K>,
    best: usize,
}

impl<K: Kernels> Registry<K> {
    /// The registry of `portable`, the listings' backends `aot` and the JIT's `jit` (each best first). The
    /// JIT's come after the listings' when `ASMGEN_BACKEND=jit` (they are the default then), before them
    /// otherwise.
    pub(crate) fn new(portable: K, aot: Vec<K>, jit: Vec<K>) -> Registry<K> {
        let jit_first = request() == Request::Jit && !jit.is_empty();
        // The chosen backend is in the preferred list, which stands last: its `i`-th is `all[len - 1 - i]`.
        let chosen = match request() {
            Request::Portable => None,
            _ if jit_first => Some(0),
            _ => aot.iter().position(|b| b.available()),
        };
        let (first, last) = if jit_first { (aot, jit) } else { (jit, aot) };
        let mut all = vec![portable];
        all.extend(first.into_iter().rev());
        all.extend(last.into_iter().rev());
        let best = chosen.map_or(0, |i| all.len() - 1 - i);
        Registry { all, best }
    }

    /// The backend to use.
    pub(crate) fn best(&'static self) -> &'static K {
        &self.all[self.best]
    }

    /// Every backend, portable first, best last.
    pub(crate) fn all(&'static self) -> &'static [K] {
        &self.all
    }

    /// The backend named `name`, if this build has it and the CPU runs it.
    pub(crate) fn find(&'static self, name: &str) -> Result<&'static K, Error> {
        let b = self.all.iter().find(|b| b.name() == name).ok_or_else(|| Error::UnknownBackend(name.to_string()))?;
        if b.available() {
            Ok(b)
        } else {
            Err(Error::BackendUnavailable(b.name()))
        }
    }

    /// Every backend's name with whether this CPU runs it, portable first, best last.
    pub(crate) fn table(&'static self) -> Vec<(&'static str, bool)> {
        self.all.iter().map(|b| (b.name(), b.available())).collect()
    }
}

/// An algorithm's backends, built on first use in three forms: the one that chooses the backend to use holds
/// the JIT's sets only when `ASMGEN_BACKEND=jit` asks for them, so the default path never assembles anything;
/// the one that `with_backend` finds a name in holds every backend but the JIT's, and the JIT's join it only
/// when a `jit/` name is asked for; the backend tables list the JIT's sets by name without assembling them
/// ([`Backends::table`]), so that listing backends never maps memory. `R` is the algorithm's registry (or
/// registries: GHASH and POLYVAL come from the same sets).
pub(crate) struct Backends<R> {
    make: fn(jit: bool, interp: bool) -> R,
    chosen: OnceLock<R>,
    unmapped: OnceLock<R>,
    listed: OnceLock<R>,
}

impl<R> Backends<R> {
    /// Backends made by `make` (its arguments: whether to include the JIT's sets, and the interpreter's).
    pub(crate) const fn new(make: fn(jit: bool, interp: bool) -> R) -> Backends<R> {
        Backends { make, chosen: OnceLock::new(), unmapped: OnceLock::new(), listed: OnceLock::new() }
    }

    /// The registry to choose from.
    pub(crate) fn chosen(&'static self) -> &'static R {
        let jit = request() == Request::Jit;
        self.chosen.get_or_init(|| (self.make)(jit, jit))
    }

    /// The registry that lists every backend of this build (the JIT assembled for it).
    pub(crate) fn listed(&'static self) -> &'static R {
        self.listed.get_or_init(|| (self.make)(true, true))
    }

    /// The registry that holds the backend named `name`, if this build has it: every backend but the JIT's
    /// (nothing assembled) unless `name` is a JIT's (`jit/<set>`).
    pub(crate) fn for_name(&'static self, name: &str) -> &'static R {
        if name.starts_with("jit/") {
            self.listed()
        } else {
            self.unmapped.get_or_init(|| (self.make)(false, true))
        }
    }

    /// Every backend's name with whether this CPU runs it, portable first, best last, as `table` gives them
    /// from a registry: the registry that lists every backend where it is built already (or `ASMGEN_BACKEND=jit`
    /// built the JIT), otherwise the one without the JIT's sets and their names (the sets
    /// [`jit_choice`] picks for `listing`, which the JIT would assemble) where the full one ranks them, before
    /// the listings' sets.
    pub(crate) fn table(
        &'static self,
        listing: &str,
        table: fn(&'static R) -> Vec<(&'static str, bool)>,
    ) -> Vec<(&'static str, bool)> {
        if let Some(r) = self.listed.get() {
            return table(r);
        }
        if request() == Request::Jit {
            return table(self.listed());
        }
        let t = table(self.for_name(""));
        #[cfg(feature = "jit")]
        let t = {
            let mut t = t;
            let at = t.iter().position(|(n, _)| n.starts_with("aot/")).unwrap_or(t.len());
            let sets = jit_choice().0.into_iter().filter(|s| aot_sets(listing).any(|a| a.name == *s));
            let names: Vec<_> = sets.map(|s| (jit_name(s), true)).collect();
            t.splice(at..at, names.into_iter().rev());
            t
        };
        #[cfg(not(feature = "jit"))]
        let _ = listing;
        t
    }
}

/// A kernel's address as the function pointer type `F` of its role.
///
/// # Safety
/// `F` must be the `unsafe extern "C" fn` type of the role's C signature (`asmgen_kernels::Role`), and `p` the
/// entry of a kernel of that role that lives for the process (linked, or in the JIT's kept mappings).
pub(crate) unsafe fn cast<F: Copy>(p: *const ()) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*const ()>());
    // SAFETY: the caller's contract; `F` is a function pointer type of the same size.
    unsafe { std::mem::transmute_copy::<*const (), F>(&p) }
}

/// The name of the JIT backend of set `set` (`jit/<set>`), one string per set for the life of the process.
#[cfg(feature = "jit")]
pub(crate) fn jit_name(set: &str) -> &'static str {
    named("jit/", set)
}

/// The name of the interpreter's backend of set `set` (`interp/<set>`).
#[cfg(all(feature = "interp", target_pointer_width = "64", target_endian = "little"))]
pub(crate) fn interp_name(set: &str) -> &'static str {
    named("interp/", set)
}

/// The name of the listings' backend of set `set` (`aot/<set>`).
pub(crate) fn aot_name(set: &str) -> &'static str {
    named("aot/", set)
}

fn named(prefix: &str, set: &str) -> &'static str {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static NAMES: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let key = format!("{prefix}{set}");
    // The names are `&'static str` like the portable one; there are a handful per process.
    names.entry(key.clone()).or_insert_with(|| Box::leak(key.into_boxed_str()))
}

/// What the JIT assembles for this CPU: per listing, the best available listings' set, or its rival where the
/// table names one and it measured faster; and what was measured, as text. Measured once per process, so
/// that the backend tables (which name the JIT's sets without assembling them) and the JIT agree.
#[cfg(feature = "jit")]
pub(crate) fn jit_choice() -> (Vec<&'static str>, Vec<String>) {
    static CHOICE: OnceLock<(Vec<&'static str>, Vec<String>)> = OnceLock::new();
    CHOICE.get_or_init(measure_jit_choice).clone()
}

#[cfg(feature = "jit")]
fn measure_jit_choice() -> (Vec<&'static str>, Vec<String>) {
    let mut listings: Vec<&str> = aot::SETS.iter().map(|s| s.listing).collect();
    listings.dedup();
    let (mut sets, mut notes) = (Vec::new(), Vec::new());
    for l in listings {
        let Some(best) = aot_sets(l).find(|s| available(s)) else { continue };
        let rival = best.rival.and_then(|r| aot_sets(l).find(|s| s.name == r && available(s)));
        match rival.and_then(|r| tune::race_ecb(best, r)) {
            Some((pick, note)) => {
                sets.push(pick.name);
                notes.push(note);
            }
            None => sets.push(best.name),
        }
    }
    (sets, notes)
}

/// Choices made by measurement rather than by feature bits.
#[cfg(feature = "jit")]
pub(crate) mod tune {
    use crate::aot::KernelSet;
    use std::time::{Duration, Instant};

    /// The median time of each candidate over `runs` rounds, the candidates taking turns within a round (so a
    /// change of clock or load during the race hits all of them alike). One untimed warm-up round first.
    pub(crate) fn race<const N: usize>(candidates: &mut [&mut dyn FnMut(); N], runs: usize) -> [Duration; N] {
        for c in candidates.iter_mut() {
            c();
        }
        let mut times: [Vec<Duration>; N] = std::array::from_fn(|_| Vec::with_capacity(runs));
        for _ in 0..runs {
            for (c, t) in candidates.iter_mut().zip(&mut times) {
                let start = Instant::now();
                c();
                t.push(start.elapsed());
            }
        }
        times.map(|mut t| {
            t.sort();
            t[t.len() / 2]
        })
    }

    /// MB/s of `bytes` in `t`.
    pub(crate) fn mb_per_s(bytes: usize, t: Duration) -> f64 {
        bytes as f64 / t.as_secs_f64().max(1e-12) / 1e6
    }

    /// Times the `ecb` kernels of `best` and its `rival` over 4 KiB and picks the faster (ties to `best`): the
    /// interleave width where x86_64's choice is AES-NI AVX2 (ymm, 16 blocks in flight) against AVX (xmm, two
    /// groups of 4), as on Zen 1, which splits 256-bit operations. The listings' kernels are timed: they are
    /// the code the JIT would assemble. `None` where either set has no `ecb` kernel.
    pub(crate) fn race_ecb(
        best: &'static KernelSet,
        rival: &'static KernelSet,
    ) -> Option<(&'static KernelSet, String)> {
        type BlocksFn = unsafe extern "C" fn(*const u8, *mut u8, *const u8, usize);
        // SAFETY: the `ecb` role's C signature is `(rk, dst, src, nblocks)`; linked kernels live for the process.
        let ecb = |s: &KernelSet| super::entry(s, "ecb").map(|p| unsafe { super::cast::<BlocksFn>(p) });
        let (a, b) = (ecb(best)?, ecb(rival)?);
        const BYTES: usize = 4096;
        let rk = [0u8; 128];
        let (mut x, mut y) = (vec![0u8; BYTES], vec![0u8; BYTES]);
        let run = |f: BlocksFn, buf: &mut [u8]| {
            // SAFETY: 128 bytes of round keys, in place over 4096 bytes (256 blocks); the CPU runs both sets.
            unsafe { f(rk.as_ptr(), buf.as_mut_ptr(), buf.as_ptr(), BYTES / 16) }
        };
        let start = Instant::now();
        let [tb, tr] = race(&mut [&mut || run(a, &mut x), &mut || run(b, &mut y)], 15);
        let pick = if tr < tb { rival } else { best };
        let note = format!(
            "{} against {} (ECB, 4 KiB, median of 15, measured in {} us): {:.0} against {:.0} MB/s: {}",
            best.name,
            rival.name,
            start.elapsed().as_micros(),
            mb_per_s(BYTES, tb),
            mb_per_s(BYTES, tr),
            pick.name
        );
        Some((pick, note))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_requests_parse_and_misspellings_are_errors() {
        assert_eq!(parse_request(""), Ok(Request::Best));
        assert_eq!(parse_request("portable"), Ok(Request::Portable));
        assert_eq!(parse_request("aot"), Ok(Request::Aot));
        assert_eq!(parse_request("jit").is_ok(), cfg!(any(feature = "jit", feature = "interp")));
        for bad in ["protable", "AOT", "jit ", "best", "aot/x86_64-gfni-avx2"] {
            match parse_request(bad) {
                Err(Error::InvalidEnvironment { var: "ASMGEN_BACKEND", value, .. }) => assert_eq!(value, bad),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }
}
