//! The JIT: the kernel descriptions the listings are printed from, lowered at startup into machine code for
//! this CPU (`asmgen::lower`, the table encodings checked against GNU as and llvm-mc) and mapped through
//! dynasmrt, never writable and executable at once: the code is copied into a read-write mapping, which is
//! then turned read-execute.
//!
//! Only the functions whose features this CPU has are lowered. aarch64 and riscv64 are supported;
//! [`Jit::host`] returns [`JitError::Unsupported`] elsewhere (x86_64 lowering is not written yet). The
//! assembled code is kept for the life of the process by the dispatcher ([`host`]), so no function pointer
//! outlives its buffer.

use std::fmt;
use std::sync::OnceLock;

/// Why the JIT could not assemble this CPU's kernels.
#[derive(Debug)]
pub enum JitError {
    /// No JIT lowering for this architecture yet.
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
    /// The function's symbol name (as in the listing, e.g. `asmgen_sm4_ecb_ce`).
    pub name: String,
    /// The listing it comes from (`ghash`, `sm4`).
    pub listing: String,
    /// The CPU features it requires, comma-separated (`baseline` for none).
    pub features: String,
    /// Its code as text: offset, words and the description's instruction (for audits).
    pub disassembly: String,
    offset: usize,
    len: usize,
}

/// This CPU's kernels, assembled at startup.
pub struct Jit {
    buffer: dynasmrt::ExecutableBuffer,
    kernels: Vec<JitKernel>,
    features: Vec<&'static str>,
    used: usize,
}

impl fmt::Debug for Jit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jit").field("kernels", &self.kernels.len()).field("bytes", &self.used).finish()
    }
}

impl Jit {
    /// Assembles the kernels this CPU can run.
    pub fn host() -> Result<Jit, JitError> {
        host_impl()
    }

    /// The assembled kernels.
    pub fn kernels(&self) -> &[JitKernel] {
        &self.kernels
    }

    /// The CPU features the kernel selection used (those detected that some kernel requires).
    pub fn features(&self) -> &[&'static str] {
        &self.features
    }

    /// Bytes of executable memory in use (code and constants, with page padding between listings).
    pub fn code_size(&self) -> usize {
        self.used
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&JitKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The machine code of kernel `k` (as mapped).
    pub fn bytes(&self, k: &JitKernel) -> &[u8] {
        &self.buffer[k.offset..k.offset + k.len]
    }

    /// The entry point of kernel `name`, valid as long as `self` lives.
    pub fn entry(&self, name: &str) -> Option<*const u8> {
        self.kernel(name).map(|k| self.buffer.ptr(dynasmrt::AssemblyOffset(k.offset)))
    }
}

#[cfg(any(target_arch = "aarch64", target_arch = "riscv64"))]
fn map(images: Vec<(String, asmgen::lower::Image)>, features: Vec<&'static str>) -> Result<Jit, JitError> {
    const PAGE: usize = 4096;
    // Each listing's image starts on a 4 KiB boundary (adrp/add :lo12: are encoded for that).
    let mut at = 0;
    let mut places = Vec::new();
    for (_, img) in &images {
        places.push(at);
        at = (at + img.bytes.len()).div_ceil(PAGE) * PAGE;
    }
    let used = at.max(PAGE);
    let mut buf = dynasmrt::mmap::MutableBuffer::new(used).map_err(JitError::Memory)?;
    buf.set_len(used);
    let mut kernels = Vec::new();
    for ((listing, img), &base) in images.iter().zip(&places) {
        buf[base..base + img.bytes.len()].copy_from_slice(&img.bytes);
        for s in &img.symbols {
            kernels.push(JitKernel {
                name: s.name.clone(),
                listing: listing.clone(),
                features: String::new(),
                disassembly: s.listing.clone(),
                offset: base + s.offset,
                len: s.len,
            });
        }
    }
    let buffer = buf.make_exec().map_err(JitError::Memory)?;
    dynasmrt::cache_control::synchronize_icache(&buffer);
    dynasmrt::cache_control::prepare_for_execution(&buffer);
    Ok(Jit { buffer, kernels, features, used })
}

#[cfg(target_arch = "aarch64")]
fn host_impl() -> Result<Jit, JitError> {
    use asmgen::isa::aarch64::A64Feature;
    use asmgen::Feature;
    let has = |f: A64Feature| match f {
        A64Feature::Pmull => std::arch::is_aarch64_feature_detected!("pmull"),
        A64Feature::Aes => std::arch::is_aarch64_feature_detected!("aes"),
        A64Feature::Sha3 => std::arch::is_aarch64_feature_detected!("sha3"),
        A64Feature::Sm4 => std::arch::is_aarch64_feature_detected!("sm4"),
    };
    let t = asmgen::Target::AARCH64_LINUX;
    let listings = asmgen_kernels::catalog::aarch64(t).map_err(|e| JitError::Lower(e.to_string()))?;
    lower_all(listings, |f: A64Feature| has(f), |f| f.name())
}

#[cfg(target_arch = "riscv64")]
fn host_impl() -> Result<Jit, JitError> {
    use asmgen::isa::riscv64::RvFeature;
    use asmgen::Feature;
    #[cfg(asmgen_aot)]
    fn vector(bits: u64) -> bool {
        crate::dispatch::host::has_all(bits)
    }
    #[cfg(not(asmgen_aot))]
    fn vector(_bits: u64) -> bool {
        false
    }
    // Bits of riscv_hwprobe's RISCV_HWPROBE_KEY_IMA_EXT_0 (see `dispatch::host`).
    let has = |f: RvFeature| -> bool {
        match f {
            RvFeature::Zbb => std::arch::is_riscv_feature_detected!("zbb"),
            RvFeature::Zbc => std::arch::is_riscv_feature_detected!("zbc"),
            RvFeature::Zbkb => std::arch::is_riscv_feature_detected!("zbkb"),
            RvFeature::Zksed => std::arch::is_riscv_feature_detected!("zksed"),
            RvFeature::V => vector(1 << 2),
            RvFeature::Zvkb => vector(1 << 19),
            RvFeature::Zvkg => vector(1 << 20),
            RvFeature::Zvksed => vector(1 << 24),
            RvFeature::Zvbc => vector(1 << 18),
        }
    };
    let t = asmgen::Target::RISCV64_LINUX;
    let listings = asmgen_kernels::catalog::riscv64(t).map_err(|e| JitError::Lower(e.to_string()))?;
    lower_all(listings, has, |f| f.name())
}

#[cfg(any(target_arch = "aarch64", target_arch = "riscv64"))]
fn lower_all<I: asmgen::lower::FixedIsa>(
    listings: Vec<asmgen::Listing<I>>,
    has: impl Fn(I::Feature) -> bool,
    name: impl Fn(I::Feature) -> &'static str,
) -> Result<Jit, JitError> {
    use asmgen::Feature;
    let mut used = asmgen::FeatureSet::<I::Feature>::empty();
    let mut images = Vec::new();
    let mut feats = Vec::new();
    for l in &listings {
        let fs: Vec<_> = l.functions.iter().filter(|f| f.required.iter().all(&has)).collect();
        for f in &fs {
            used = used.union(f.required);
            feats.push(if f.required.is_empty() { "baseline".to_string() } else { f.required.names(", ") });
        }
        if fs.is_empty() {
            continue;
        }
        let img = asmgen::lower::lower(&fs).map_err(|e| JitError::Lower(e.to_string()))?;
        images.push((l.name.clone(), img));
    }
    let mut jit = map(images, I::Feature::ALL.iter().copied().filter(|f| used.contains(*f)).map(name).collect())?;
    for (k, f) in jit.kernels.iter_mut().zip(feats) {
        k.features = f;
    }
    Ok(jit)
}

#[cfg(not(any(target_arch = "aarch64", target_arch = "riscv64")))]
fn host_impl() -> Result<Jit, JitError> {
    Err(JitError::Unsupported("no JIT lowering for this architecture yet (aarch64 and riscv64 only)"))
}

/// The process's JIT, assembled on first use and kept for the life of the process (the dispatcher's
/// function pointers point into it). `None` if it could not be built.
pub(crate) fn host() -> Option<&'static Jit> {
    static J: OnceLock<Option<Jit>> = OnceLock::new();
    J.get_or_init(|| Jit::host().ok()).as_ref()
}

/// The entry point of `name` in the process's JIT, as a function pointer of type `F`.
///
/// # Safety
/// `F` must be the `unsafe extern "C" fn` type of the kernel's C signature.
#[allow(dead_code)]
pub(crate) unsafe fn entry<F: Copy>(name: &str) -> Option<F> {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*const u8>());
    let p = host()?.entry(name)?;
    // SAFETY: `p` points to the kernel's first instruction in a mapping that is never freed; the caller
    // names the kernel's signature.
    Some(unsafe { std::mem::transmute_copy::<*const u8, F>(&p) })
}
