//! The JIT: the kernel descriptions the listings are printed from, lowered at startup into machine code for
//! this CPU and mapped through dynasmrt, never writable and executable at once (the code is copied into a
//! read-write mapping, which is then turned read-execute).
//!
//! * What it assembles: the kernel sets [`crate::backend`] chooses for this CPU (per listing the best available
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
//! The process's JIT ([`Jit::process`]) is kept for the life of the process, as are specialised kernels, so no
//! function pointer outlives its buffer. Without listings linked (a target without them, or
//! `ASMGEN_NO_ASM`) there is nothing to specialise from and [`Jit::host`] says so.

mod memory;
pub(crate) mod specialised;
#[cfg(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
mod target;

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

pub use specialised::Specialisation;

/// Why the JIT could not assemble this CPU's kernels.
#[derive(Debug)]
pub enum JitError {
    /// No JIT for this build or CPU (no listings linked, or no kernel set for this CPU).
    Unsupported(&'static str),
    /// A kernel description could not be built or lowered (a bug: the listings are generated from them).
    Lower(String),
    /// Mapping the memory failed.
    Memory(std::io::Error),
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JitError::Unsupported(what) => write!(f, "JIT not supported: {what}"),
            JitError::Lower(e) => write!(f, "JIT lowering failed: {e}"),
            JitError::Memory(e) => write!(f, "JIT memory: {e}"),
        }
    }
}

impl std::error::Error for JitError {}

/// One assembled kernel.
#[derive(Clone, Debug)]
pub struct JitKernel {
    /// The function's symbol name (as in the listing, e.g. `asmgen_sm4_ecb_gfni`).
    pub name: String,
    /// What it is for in its set (`ecb`, `xts_enc_ieee`, `ghash_update`): its role in the kernel catalog.
    pub role: String,
    /// The listing it comes from (`ghash`, `sm4`).
    pub listing: String,
    /// The kernel set it was assembled for (`x86_64-gfni-avx2`), or the specialisation.
    pub set: String,
    /// The CPU features it requires, comma-separated (`baseline` for none).
    pub features: String,
    image: usize,
    offset: usize,
    len: usize,
}

/// What assembling took and made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JitStats {
    /// Running the kernel descriptions (the builder): description to instructions.
    pub build: Duration,
    /// Lowering: instructions to bytes (encoding, branch relaxation, layout).
    pub lower: Duration,
    /// Mapping: copying into read-write memory, turning it read-execute, flushing the instruction cache.
    pub map: Duration,
    /// Instructions lowered.
    pub instructions: usize,
    /// Bytes of code and constants.
    pub bytes: usize,
    /// Bytes of executable memory mapped (whole pages, one mapping per image).
    pub mapped: usize,
}

impl JitStats {
    /// Build, lower and map together.
    pub fn total(&self) -> Duration {
        self.build + self.lower + self.map
    }

    fn add(&mut self, o: &JitStats) {
        self.build += o.build;
        self.lower += o.lower;
        self.map += o.map;
        self.instructions += o.instructions;
        self.bytes += o.bytes;
        self.mapped += o.mapped;
    }
}

/// Prints an image's text, one string per function (from the description, rebuilt on demand: for audits).
type TextFn = Box<dyn Fn(&asmgen::lower::Image) -> Result<Vec<String>, String> + Send + Sync>;

/// One image (a kernel set or a specialisation) in its own mapping.
pub(crate) struct Mapped {
    buffer: dynasmrt::ExecutableBuffer,
    image: asmgen::lower::Image,
    text: TextFn,
}

/// This CPU's kernels, assembled at startup.
pub struct Jit {
    images: Vec<Mapped>,
    kernels: Vec<JitKernel>,
    features: Vec<&'static str>,
    sets: Vec<String>,
    tuning: Vec<String>,
    stats: JitStats,
}

impl fmt::Debug for Jit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jit").field("sets", &self.sets).field("kernels", &self.kernels.len()).finish()
    }
}

impl Jit {
    /// Assembles the kernel sets [`crate::backend`] chooses for this CPU.
    pub fn host() -> Result<Jit, JitError> {
        #[cfg(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
        return target::host();
        #[cfg(not(all(asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64"))))]
        Err(JitError::Unsupported("no listings are linked for this target, so there are no kernel sets to assemble"))
    }

    /// The assembled kernels.
    pub fn kernels(&self) -> &[JitKernel] {
        &self.kernels
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&JitKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The kernel sets assembled (`x86_64-pclmulqdq-avx`, `x86_64-gfni-avx2`, ...).
    pub fn sets(&self) -> &[String] {
        &self.sets
    }

    /// The CPU features the assembled kernels use.
    pub fn features(&self) -> &[&'static str] {
        &self.features
    }

    /// The choices made by measurement, as text (empty where the CPU left nothing to measure).
    pub fn tuning(&self) -> &[String] {
        &self.tuning
    }

    /// Times and sizes of the assembly.
    pub fn stats(&self) -> JitStats {
        self.stats
    }

    /// Bytes of executable memory in use (whole pages).
    pub fn code_size(&self) -> usize {
        self.stats.mapped
    }

    /// The machine code of kernel `k` (as mapped).
    pub fn bytes(&self, k: &JitKernel) -> &[u8] {
        &self.images[k.image].buffer[k.offset..k.offset + k.len]
    }

    /// Kernel `k` as text, for audits: offset, bytes and instruction per line. x86_64 disassembles the bytes
    /// with iced-x86's Intel formatter; aarch64 and riscv64 print the description's own instruction text
    /// beside each word (the description is built again for this).
    pub fn disassembly(&self, k: &JitKernel) -> Result<String, JitError> {
        let m = &self.images[k.image];
        let text = (m.text)(&m.image).map_err(JitError::Lower)?;
        let i = m.image.symbols.iter().position(|s| s.offset == k.offset).expect("a kernel is a symbol of its image");
        Ok(text[i].clone())
    }

    /// The entry point of kernel `name`, valid as long as `self` lives.
    pub fn entry(&self, name: &str) -> Option<*const u8> {
        self.kernel(name).map(|k| self.entry_at(k))
    }

    /// The entry point of the kernel of set `set` in role `role` (`ecb`, `ghash_update`), valid as long as
    /// `self` lives.
    pub fn entry_of(&self, set: &str, role: &str) -> Option<*const ()> {
        let k = self.kernels.iter().find(|k| k.set == set && k.role == role)?;
        Some(self.entry_at(k).cast())
    }

    /// The sets assembled for listing `listing` (`ghash`, `sm4`).
    pub fn sets_of<'a>(&'a self, listing: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.sets
            .iter()
            .map(String::as_str)
            .filter(move |s| self.kernels.iter().any(|k| k.set == *s && k.listing == listing))
    }

    fn entry_at(&self, k: &JitKernel) -> *const u8 {
        self.images[k.image].buffer.ptr(dynasmrt::AssemblyOffset(k.offset))
    }

    fn empty(tuning: Vec<String>) -> Jit {
        Jit {
            images: Vec::new(),
            kernels: Vec::new(),
            features: Vec::new(),
            sets: Vec::new(),
            tuning,
            stats: JitStats::default(),
        }
    }

    fn push(&mut self, m: Mapped, listing: &str, set: &str, kernels: Vec<(&'static str, String)>) {
        let image = self.images.len();
        for (s, (role, features)) in m.image.symbols.iter().zip(kernels) {
            self.kernels.push(JitKernel {
                name: s.name.clone(),
                role: role.to_string(),
                listing: listing.to_string(),
                set: set.to_string(),
                features,
                image,
                offset: s.offset,
                len: s.len,
            });
        }
        self.images.push(m);
    }
}

impl Jit {
    /// The JIT the dispatchers use (`ASMGEN_BACKEND=jit`, and the `jit/` backends): assembled on first use
    /// and kept for the life of the process. Its [`tuning`](Jit::tuning) tells which SM4 width it measured
    /// faster; its [`stats`](Jit::stats) what startup cost.
    pub fn process() -> Result<&'static Jit, &'static JitError> {
        static J: OnceLock<Result<Jit, JitError>> = OnceLock::new();
        J.get_or_init(Jit::host).as_ref()
    }
}
