//! The JIT: the kernel descriptions the listings are printed from, lowered at startup into machine code for
//! this CPU and mapped (memmap2), never writable and executable at once (the code is copied into a
//! read-write mapping, which is then turned read-execute).
//!
//! * For any function ([`JitModule`]): a user's functions, written with [`asmgen::Builder`] for this platform's
//!   ABI ([`host_target`]) and CPU ([`host_features`]), lowered, mapped W^X with the instruction cache
//!   synchronised and, on Windows x64, their unwind data registered; [`JitModule::get`] hands back typed
//!   function pointers checked against their C signatures. Errors (another ISA or ABI, a feature this CPU
//!   lacks, no executable memory, a wrong signature) are [`JitError`]s. The kernel catalog's JIT below maps
//!   each of its images through the same type.
//! * What it assembles: the kernel sets the runtime's backend layer chooses for this CPU (per listing the best available
//!   set, or its rival where the catalog names one and it measured faster: on x86_64 the AES-NI AVX2 set
//!   against the AVX one, for CPUs such as Zen 1 that split 256-bit operations; [`Jit::tuning`] says what was
//!   measured), not whole listings: `asmgen_kernels::catalog` builds a set's kernels on demand, each with its
//!   role, and the dispatchers find the JIT's kernels by set and role ([`Jit::entry_of`]). This module is
//!   mechanism only: it never calls the dispatchers.
//! * How: x86_64 through iced-x86 ([`asmgen::lower::x86_64`]), aarch64 and riscv64 through the tables' own
//!   encoders ([`asmgen::lower::fixed`]); every listing function's JIT bytes equal the assembled listing's
//!   (`tests/tests/jit.rs`).
//! * Fixed-size kernels ([`Jit::specialised`]): XTS for one sector size, GHASH/POLYVAL for one block count, CTR
//!   for one message size, assembled when an application asks for them.
//!
//! * Deferred kernels ([`Jit::deferred`]): on x86_64 the XTS unit kernels, assembled when the first `Sm4Xts` on
//!   a `jit/` backend is made, not at startup.
//!
//! The process's JIT ([`Jit::process`]) is kept for the life of the process, as are specialised and deferred kernels, so no
//! function pointer outlives its buffer. Without listings linked (a target without them, or
//! `ASMGEN_NO_ASM`) there is nothing to specialise from and [`Jit::host`] says so.

mod assembly;
mod error;
mod memory;
mod module;
mod specialised;
#[cfg(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
mod target;
mod unwind;

pub use assembly::{Jit, JitKernel, JitStats};
pub use error::JitError;
pub use module::{host_features, host_target, CReturn, CValue, JitFn, JitFunction, JitModule};
pub use specialised::Specialisation;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

impl Jit {
    /// Assembles the kernel sets the runtime's backend layer chooses for this CPU.
    pub fn host() -> Result<Jit, JitError> {
        #[cfg(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
        return target::host();
        #[cfg(not(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64"))))]
        Err(JitError::Unsupported("no listings are linked for this target, so there are no kernel sets to assemble"))
    }

    /// The JIT the dispatchers use (`ASMGEN_BACKEND=jit`, and the `jit/` backends): assembled on first use
    /// and kept for the life of the process. Its [`tuning`](Jit::tuning) tells which SM4 width it measured
    /// faster; its [`stats`](Jit::stats) what startup cost.
    pub fn process() -> Result<&'static Jit, &'static JitError> {
        static J: OnceLock<Result<Jit, JitError>> = OnceLock::new();
        J.get_or_init(Jit::host).as_ref()
    }

    /// The kernels [`Jit::process`] leaves to their first use: the XTS unit kernels of its SM4 set where the set
    /// can be built in part (x86_64's), about half of the set's instructions, which an application that never
    /// runs XTS does not wait for (`Sm4Xts` asks for them when it is made on a `jit/` backend). Assembled on
    /// the first call and kept for the life of the process; it holds no set where the process JIT assembled
    /// its unit kernels itself.
    pub fn deferred() -> Result<&'static Jit, &'static JitError> {
        static J: OnceLock<Result<Jit, JitError>> = OnceLock::new();
        J.get_or_init(|| {
            #[cfg(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
            return target::deferred();
            #[cfg(not(all(
                asmgen_aot,
                any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")
            )))]
            Err(JitError::Unsupported("no listings are linked for this target"))
        })
        .as_ref()
    }

    /// The fixed-size kernels of `spec` for this CPU's kernel sets (those [`Jit::process`] chose), assembled on
    /// the first request and kept for the life of the process. `Unsupported` where the set has no such kernel
    /// (the NEON and scalar riscv64 sets have no XTS kernel, for example) or the size is out of range.
    pub fn specialised(spec: Specialisation) -> Result<&'static Jit, JitError> {
        static CACHE: OnceLock<Mutex<HashMap<Specialisation, &'static Jit>>> = OnceLock::new();
        if !spec.is_valid() {
            return Err(JitError::Unsupported("no specialisation for that size"));
        }
        let mut cache = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        if let Some(j) = cache.get(&spec) {
            return Ok(j);
        }
        #[cfg(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
        {
            // Kept for the life of the process: the kernels' users hold plain function pointers.
            let j: &'static Jit = Box::leak(Box::new(target::specialise(spec)?));
            cache.insert(spec, j);
            Ok(j)
        }
        #[cfg(not(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64"))))]
        Err(JitError::Unsupported("no listings are linked for this target"))
    }
}

/// The process JIT's sets of `listing` made into backends by `make` (named `jit/<set>`, available, kernels by
/// role); none when the JIT could not assemble.
pub(crate) fn backends<K>(listing: &str, make: crate::backend::MakeFn<'_, K>) -> Vec<K> {
    let Ok(jit) = Jit::process() else { return Vec::new() };
    jit.sets_of(listing)
        .filter_map(|set| make(crate::backend::jit_name(set), true, &|role| jit.entry_of(set, role)))
        .collect()
}
