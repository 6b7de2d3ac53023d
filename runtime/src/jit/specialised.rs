//! Fixed-size kernels, assembled when an application asks for them: the kernel sets' descriptions generated
//! for one size (`asmgen_kernels::Blocks::Fixed`), so their loops run a constant number of times and they
//! have no length checks and no tail code beyond what the size needs. Each specialisation is its own
//! [`Jit`] (kernels, bytes, text, stats), assembled once and kept for the life of the process.

/// A size an application asks the JIT to specialise for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Specialisation {
    /// SM4-XTS for data units (sectors) of this many bytes, a multiple of 16: both directions, both tweak
    /// conventions.
    XtsSector(usize),
    /// SM4-CTR for messages of this many bytes: the kernel for its whole blocks (a trailing partial block is
    /// the API's).
    CtrMessage(usize),
    /// GHASH and POLYVAL updates of exactly this many blocks.
    HashBlocks(usize),
}

/// The largest block count a specialisation takes (256 MiB): loop counts stay immediate operands.
pub const MAX_BLOCKS: usize = crate::MAX_FIXED_BLOCKS;

impl Specialisation {
    /// How it is named in its set's name (`xts-4096`, `ctr-1024`, `hash-64`).
    pub fn label(self) -> String {
        match self {
            Specialisation::XtsSector(n) => format!("xts-{n}"),
            Specialisation::CtrMessage(n) => format!("ctr-{n}"),
            Specialisation::HashBlocks(n) => format!("hash-{n}"),
        }
    }

    /// The suffix of its kernels' names: the block count (`_n256`).
    pub fn suffix(self) -> String {
        format!("_n{}", self.blocks())
    }

    fn blocks(self) -> usize {
        match self {
            Specialisation::XtsSector(n) | Specialisation::CtrMessage(n) => n / 16,
            Specialisation::HashBlocks(n) => n,
        }
    }

    /// Whether the size is one a kernel can be specialised for.
    pub fn is_valid(self) -> bool {
        let whole = match self {
            Specialisation::XtsSector(n) => n % 16 == 0,
            Specialisation::CtrMessage(_) | Specialisation::HashBlocks(_) => true,
        };
        whole && (1..=MAX_BLOCKS).contains(&self.blocks())
    }
}
