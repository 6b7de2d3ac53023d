//! What the JIT made: the assembled kernels ([`Jit`], [`JitKernel`]), their mappings and what assembling took
//! ([`JitStats`]). The entry points that assemble ([`Jit::host`], [`Jit::process`], [`Jit::specialised`]) are
//! in the module above.

use super::error::JitError;
use super::module::JitModule;
use std::fmt;
use std::time::Duration;

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
    /// Running the kernel descriptions (the builder): description to instructions; on x86_64 also their
    /// encoding, done as each instruction is made ([`asmgen::lower::x86_64::Stream`]).
    pub build: Duration,
    /// Lowering: instructions to bytes (encoding, branch relaxation, layout); on x86_64 the layout only
    /// (prologues and epilogues, branch relaxation, constants).
    pub lower: Duration,
    /// Mapping ([`JitModule`]'s): checking the kernels against this CPU, copying them into read-write memory,
    /// turning it read-execute, flushing the instruction cache (Windows x64: making and registering the unwind
    /// data too).
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

    pub(super) fn add(&mut self, o: &JitStats) {
        self.build += o.build;
        self.lower += o.lower;
        self.map += o.map;
        self.instructions += o.instructions;
        self.bytes += o.bytes;
        self.mapped += o.mapped;
    }
}

/// Prints an image's text, one string per function (from the description, rebuilt on demand: for audits).
pub(super) type TextFn = Box<dyn Fn(&asmgen::lower::Image) -> Result<Vec<String>, String> + Send + Sync>;

/// One image (a kernel set or a specialisation) in its own mapping: a [`JitModule`] (mapping and unwind
/// registration), with the image it maps, for its text.
pub(crate) struct Mapped {
    pub(super) module: JitModule,
    pub(super) image: asmgen::lower::Image,
    pub(super) text: TextFn,
}

/// This CPU's kernels, assembled at startup.
pub struct Jit {
    images: Vec<Mapped>,
    kernels: Vec<JitKernel>,
    pub(super) features: Vec<&'static str>,
    pub(super) sets: Vec<String>,
    tuning: Vec<String>,
    pub(super) stats: JitStats,
}

impl fmt::Debug for Jit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jit").field("sets", &self.sets).field("kernels", &self.kernels.len()).finish()
    }
}

impl Jit {
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
        &self.images[k.image].module.code()[k.offset..k.offset + k.len]
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
        self.images[k.image].module.code()[k.offset..].as_ptr()
    }

    pub(super) fn empty(tuning: Vec<String>) -> Jit {
        Jit {
            images: Vec::new(),
            kernels: Vec::new(),
            features: Vec::new(),
            sets: Vec::new(),
            tuning,
            stats: JitStats::default(),
        }
    }

    pub(super) fn push(&mut self, m: Mapped, listing: &str, set: &str, kernels: Vec<(&'static str, String)>) {
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
