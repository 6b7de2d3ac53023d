//! The JIT: the kernel descriptions the listings are printed from, lowered at startup into machine code for
//! this CPU and mapped through dynasmrt, never writable and executable at once (the code is copied into a
//! read-write mapping, which is then turned read-execute).
//!
//! * What it assembles: the kernel sets the dispatcher chooses for this CPU (one GHASH/POLYVAL set, one SM4
//!   set), not whole listings: `asmgen_kernels::catalog` builds a set's functions on demand. On x86_64, where
//!   the choice is the AES-NI AVX2 set (no VAES or GFNI: AVX2-only CPUs such as Zen 1, which split 256-bit
//!   operations), the AVX (xmm) and AVX2 (ymm) kernels are timed and the faster width is assembled
//!   ([`Jit::tuning`] says what was measured).
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
// The one choice made by measurement today is x86_64's SM4 interleave width.
#[cfg(target_arch = "x86_64")]
pub(crate) mod tune;
#[cfg(all(test, asmgen_aot, any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
pub(crate) use target::set_function_names;

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
    /// Assembles the kernel sets the dispatcher chooses for this CPU.
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
        let k = self.kernel(name)?;
        Some(self.images[k.image].buffer.ptr(dynasmrt::AssemblyOffset(k.offset)))
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

    fn push(&mut self, m: Mapped, listing: &str, set: &str, features: Vec<String>) {
        let image = self.images.len();
        for (s, features) in m.image.symbols.iter().zip(features) {
            self.kernels.push(JitKernel {
                name: s.name.clone(),
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
    /// The JIT the dispatcher uses (`ASMGEN_BACKEND=jit`, and the `jit/` backends): assembled on first use
    /// and kept for the life of the process. Its [`tuning`](Jit::tuning) tells which SM4 width it measured
    /// faster; its [`stats`](Jit::stats) what startup cost.
    pub fn process() -> Result<&'static Jit, &'static JitError> {
        static J: OnceLock<Result<Jit, JitError>> = OnceLock::new();
        J.get_or_init(Jit::host).as_ref()
    }
}

/// The process's JIT ([`Jit::process`]), `None` if it could not be built.
pub(crate) fn host() -> Option<&'static Jit> {
    Jit::process().ok()
}

/// The entry point of `name` in the process's JIT, as a function pointer of type `F`.
///
/// # Safety
/// `F` must be the `unsafe extern "C" fn` type of the kernel's C signature.
pub(crate) unsafe fn entry<F: Copy>(name: &str) -> Option<F> {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*const u8>());
    let p = host()?.entry(name)?;
    // SAFETY: `p` points to the kernel's first instruction in a mapping that is never freed; the caller
    // names the kernel's signature.
    Some(unsafe { std::mem::transmute_copy::<*const u8, F>(&p) })
}

/// The listing function's name at `addr` (a linked kernel's address).
#[cfg(asmgen_aot)]
fn listing_name(addr: usize) -> Option<&'static str> {
    use std::collections::HashMap;
    static NAMES: OnceLock<HashMap<usize, &'static str>> = OnceLock::new();
    NAMES.get_or_init(|| crate::aot::kernel_addresses().into_iter().map(|(n, a)| (a, n)).collect()).get(&addr).copied()
}

/// The address of the function pointer `f`.
#[cfg(asmgen_aot)]
fn address<F: Copy>(f: F) -> usize {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<usize>());
    // SAFETY: `F` is a function pointer type (checked size); its bits are an address.
    unsafe { std::mem::transmute_copy(&f) }
}

/// The JIT's assembly of the listing function `f` (a linked kernel's pointer): the function of the same name in
/// the process's JIT. The same name is the same description, so the same C signature.
#[cfg(asmgen_aot)]
pub(crate) fn rebind<F: Copy>(f: F) -> Option<F> {
    // SAFETY: the JIT's function of that name has the listing function's signature, which is `F`.
    unsafe { entry::<F>(listing_name(address(f))?) }
}

/// The function of `jit` that is the fixed-size variant of the listing function `f` (a linked kernel's
/// pointer): the same name with `suffix` (`_n256`). Same description, same C signature.
#[cfg(asmgen_aot)]
pub(crate) fn rebind_in<F: Copy>(f: F, jit: &'static Jit, suffix: &str) -> Option<F> {
    let p = jit.entry(&format!("{}{suffix}", listing_name(address(f))?))?;
    // SAFETY: the kernel has the listing function's signature, which is `F`; `jit` lives for the process.
    Some(unsafe { std::mem::transmute_copy::<*const u8, F>(&p) })
}

/// The name of the JIT backend standing in for the listings' backend `aot` (`aot/x` -> `jit/x`).
pub(crate) fn backend_name(aot: &'static str) -> &'static str {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static NAMES: OnceLock<Mutex<HashMap<&'static str, &'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    // One string per backend for the life of the process (the names are `&'static str` like the others).
    names.entry(aot).or_insert_with(|| Box::leak(format!("jit/{}", aot.trim_start_matches("aot/")).into_boxed_str()))
}
