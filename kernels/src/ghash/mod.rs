//! GHASH and POLYVAL: one description, lowered per ISA.
//!
//! POLYVAL (RFC 8452) works in GF(2^128) modulo x^128 + x^127 + x^126 + x^121 + 1 with little-endian bytes:
//! `S = (S + X_i) * H * x^-128` for each block. GHASH is the same function under a byte reflection
//! (RFC 8452, appendix A):
//!
//! ```text
//! GHASH(H, X_1..X_n) = ByteReverse(POLYVAL(mulX_POLYVAL(ByteReverse(H)), ByteReverse(X_1), ..., ByteReverse(X_n)))
//! ```
//!
//! so every kernel here is a POLYVAL kernel; the GHASH variant byte-reverses blocks as they are loaded, the
//! state as it is loaded and stored, and converts H at key setup. The update kernels aggregate N blocks against
//! the precomputed powers H^N..H^1 (Karatsuba: three carry-less multiplies per block) and reduce once per N
//! blocks; the reduction multiplies by x^-128 in two 64-bit folding steps with the constant
//! `0xc2000000_00000000` (the reflected x^63 + x^62 + x^57 of the polynomial).
//!
//! Every kernel set uses the same key-table layout ([`KEY_TABLE_BYTES`] bytes, 16-byte aligned): its first
//! [`BASE_TABLE_BYTES`] hold H^1..H^8 at `16*(i-1)`, then each power's Karatsuba half-sum (`lo ^ hi` in both
//! 64-bit lanes) at `128 + 16*(i-1)`; every set's init fills them and the fused GCM kernels read only them.
//! The rest is the x86_64 ymm and zmm sets' extension, which only their inits fill (the same bytes): H^64..H^1
//! descending ([`ext_h_offset`]) and their half-sums packed two to a 16-byte lane ([`ext_hk`]). Both inits compute the powers as vectors of consecutive powers doubled by
//! products against the broadcast highest power (key setup runs per key: AES-GCM-SIV's per nonce).
//!
//! Function signatures (every kernel set; declared once in [`crate::Role`]):
//! * `<name>_init(uint8_t *table, const uint8_t *h)`: key setup from the 16-byte key `h`.
//! * `<name>_update(uint8_t *state, const uint8_t *table, const uint8_t *data, size_t nblocks)`: absorbs
//!   `nblocks` 16-byte blocks into the 16-byte state (in the function's own byte order: GHASH's for GHASH).

pub mod aarch64;
pub mod riscv64;
pub mod riscv64_zvkg;
pub mod x86_64;
pub mod x86_64_avx512;
pub mod x86_64_vpclmul;

use crate::Role;

/// Bytes of the key table a caller provides (the most any set's init fills: the ymm and zmm sets' extension).
pub const KEY_TABLE_BYTES: usize = 2048;
/// Bytes of the table every set's init fills: H^1..H^8 and their half-sums.
pub const BASE_TABLE_BYTES: usize = 256;
/// Powers of H in the x86_64 ymm and zmm sets' extension of the table (the ymm loop's blocks per reduction).
pub const EXT_POWERS: usize = 64;
/// Blocks aggregated per reduction.
pub const AGGREGATE: usize = 8;

/// Which of the two functions a kernel computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    /// RFC 8452 POLYVAL: little-endian, no reflection.
    Polyval,
    /// NIST SP 800-38D GHASH: POLYVAL under byte reversal.
    Ghash,
}

impl Flavour {
    /// Both, in listing order.
    pub const ALL: [Flavour; 2] = [Flavour::Ghash, Flavour::Polyval];

    /// `ghash` or `polyval`.
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Polyval => "polyval",
            Flavour::Ghash => "ghash",
        }
    }

    /// The key-setup kernel's role.
    pub fn init_role(self) -> Role {
        match self {
            Flavour::Ghash => Role::GhashInit,
            Flavour::Polyval => Role::PolyvalInit,
        }
    }

    /// The role of the base-only key setup, in the sets whose init also fills the table's extension.
    pub fn init_base_role(self) -> Role {
        match self {
            Flavour::Ghash => Role::GhashInitBase,
            Flavour::Polyval => Role::PolyvalInitBase,
        }
    }

    /// The role of the key setup of H^1..H^4 only, for updates of at most four blocks.
    pub fn init_small_role(self) -> Role {
        match self {
            Flavour::Ghash => Role::GhashInitSmall,
            Flavour::Polyval => Role::PolyvalInitSmall,
        }
    }

    /// The update kernel's role.
    pub fn update_role(self) -> Role {
        match self {
            Flavour::Ghash => Role::GhashUpdate,
            Flavour::Polyval => Role::PolyvalUpdate,
        }
    }

    /// Whether data and state are byte-reversed around the POLYVAL core.
    pub fn reflected(self) -> bool {
        self == Flavour::Ghash
    }
}

/// Where the key table (256 bytes, one layout for every ISA and the portable code) keeps `H^power`, for
/// `power` in `1..=8`: `table + h_offset(power)`.
pub const fn h_offset(power: usize) -> i32 {
    16 * (power as i32 - 1)
}

/// Where the key table keeps the Karatsuba half-sum of `H^power` (its two 64-bit halves xored, in both).
pub const fn hk_offset(power: usize) -> i32 {
    128 + h_offset(power)
}

/// Where the table's extension (filled by the x86_64 ymm set's init; the zmm set's up to H^32) keeps `H^power`,
/// for `power` in `1..=`[`EXT_POWERS`], highest first: the 32 bytes at `ext_h_offset(2m)` are the pair
/// `[H^2m, H^(2m-1)]` one ymm load puts against two consecutive blocks, and the 64 at `ext_h_offset(4m)` are
/// `[H^4m..H^(4m-3)]`.
pub const fn ext_h_offset(power: usize) -> i32 {
    BASE_TABLE_BYTES as i32 + 16 * (EXT_POWERS as i32 - power as i32)
}

/// Where the extension keeps the Karatsuba half-sums of pair `j` in `0..32` (`EXT_POWERS / 2`), the powers
/// `[H^(64-2j), H^(63-2j)]` at [`ext_h_offset`]`(64 - 2j)`: the 32 bytes at the returned offset hold them in
/// the low 64 bits (`j < 16`) or the high 64 bits (`j >= 16`) of each 16-byte lane, so the returned
/// `vpclmulqdq` selector (`0x00` or `0x10`) picks them; pairs `j` and `j + 16` share the 32 bytes.
pub const fn ext_hk(j: usize) -> (i32, u8) {
    let half = EXT_POWERS / 4;
    let offset = ext_h_offset(0) + 32 * (j % half) as i32;
    (offset, if j < half { 0x00 } else { 0x10 })
}

/// The reduction polynomial's reflected constant, as a 16-byte little-endian value:
/// low qword `1`, high qword `0xc2000000_00000000` (x^128 + x^127 + x^126 + x^121 + 1 without x^128).
/// The low qword serves `mulX_POLYVAL`, the high qword the Montgomery folding.
pub const POLY: [u8; 16] = {
    let mut p = [0u8; 16];
    p[0] = 1;
    p[15] = 0xc2;
    p
};

/// `pshufb`/`tbl` control that reverses the 16 bytes of a block.
pub const BYTE_REVERSE: [u8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

/// The products of the aarch64 and riscv64 key setups, `(i, a, c)`: `H^i = H^a * H^c`, in rounds of
/// independent products (H^2; H^3, H^4; H^5..H^8 from H^4), so that the dependency chain is three products
/// long (the x86_64 xmm key setup's rounds too).
pub(crate) const INIT_ROUNDS: [&[(usize, usize, usize)]; 3] =
    [&[(2, 1, 1)], &[(3, 2, 1), (4, 2, 2)], &[(5, 1, 4), (6, 2, 4), (7, 3, 4), (8, 4, 4)]];

/// The documentation of a key setup kernel that fills the table with powers in the Montgomery domain (the
/// x86_64, aarch64 and riscv64 scalar kernels share it).
pub(crate) fn document_init<I: asmgen::Isa>(b: &mut asmgen::Builder<I>, f: Flavour) {
    crate::doc_role(b, f.init_role());
    b.doc("table[16*(i-1)] = H^i, table[128 + 16*(i-1)] = Karatsuba half-sum of H^i, for i = 1..8 (powers in the");
    b.doc("Montgomery domain: H^i = H^(i-1) * H * x^-128).");
}

/// The documentation of an update kernel that aggregates [`AGGREGATE`] blocks per reduction, general or of a
/// fixed size (the x86_64, aarch64 and riscv64 scalar kernels share it).
pub(crate) fn document_update<I: asmgen::Isa>(b: &mut asmgen::Builder<I>, f: Flavour, blocks: crate::Blocks) {
    crate::doc_role(b, f.update_role());
    b.doc("Eight blocks per reduction: (S + X1)*H^8 + X2*H^7 + ... + X8*H^1, Karatsuba products, one Montgomery");
    b.doc("reduction.");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
}

/// A hash set's kernels: init and update of both flavours, in listing order.
pub fn set_kernels<I: asmgen::Isa>(
    abi: asmgen::Abi,
    init: fn(Flavour, asmgen::Abi) -> Result<asmgen::Function<I>, asmgen::GenError>,
    update: fn(Flavour, asmgen::Abi) -> Result<asmgen::Function<I>, asmgen::GenError>,
) -> crate::Kernels<I> {
    let mut v = Vec::new();
    for f in Flavour::ALL {
        v.push(crate::Kernel::new(f.init_role(), init(f, abi)?));
        v.push(crate::Kernel::new(f.update_role(), update(f, abi)?));
    }
    Ok(v)
}

/// The kernels of a hash set whose init also fills the table's extension: [`set_kernels`], then the key setup
/// of the common part only (`init_base`, another set's init), which the runtime runs for short messages under a
/// fresh key: this set's update reads only the common part for fewer than 16 blocks.
pub fn ext_set_kernels<I: asmgen::Isa>(
    abi: asmgen::Abi,
    init: fn(Flavour, asmgen::Abi) -> Result<asmgen::Function<I>, asmgen::GenError>,
    update: fn(Flavour, asmgen::Abi) -> Result<asmgen::Function<I>, asmgen::GenError>,
    init_base: fn(Flavour, asmgen::Abi) -> Result<asmgen::Function<I>, asmgen::GenError>,
) -> crate::Kernels<I> {
    let mut v = set_kernels(abi, init, update)?;
    for f in Flavour::ALL {
        v.push(crate::Kernel::new(f.init_base_role(), init_base(f, abi)?));
    }
    Ok(v)
}

/// `kernels` with the key setups of H^1..H^4 only (`init_small`, both flavours), which the runtime runs for a
/// message of at most [`SMALL_BLOCKS`] blocks under a fresh key: the set's update reads nothing else then.
pub fn with_small<I: asmgen::Isa>(
    kernels: crate::Kernels<I>,
    abi: asmgen::Abi,
    init_small: fn(Flavour, asmgen::Abi) -> Result<asmgen::Function<I>, asmgen::GenError>,
) -> crate::Kernels<I> {
    let mut v = kernels?;
    for f in Flavour::ALL {
        v.push(crate::Kernel::new(f.init_small_role(), init_small(f, abi)?));
    }
    Ok(v)
}

/// The most blocks an update reads only H^1..H^4 (and their half-sums) for: what `init_small` fills.
pub const SMALL_BLOCKS: usize = 4;

/// A hash set's fixed-size kernels: the updates of both flavours for `fixed`'s block count (none for the SM4
/// kinds).
pub fn set_fixed_kernels<I: asmgen::Isa>(
    abi: asmgen::Abi,
    fixed: crate::Fixed,
    update_of: fn(Flavour, asmgen::Abi, crate::Blocks) -> Result<asmgen::Function<I>, asmgen::GenError>,
) -> crate::Kernels<I> {
    match fixed {
        crate::Fixed::Hash(n) => Flavour::ALL
            .iter()
            .map(|&f| Ok(crate::Kernel::new(f.update_role(), update_of(f, abi, crate::Blocks::Fixed(n))?)))
            .collect(),
        crate::Fixed::Xts(_) | crate::Fixed::Ctr(_) => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    /// The constant-time checker (in `asmgen`, which cannot see this crate) maps as many bytes for a key table
    /// as the kernels may read.
    #[test]
    fn the_ct_checker_maps_the_whole_key_table() {
        for name in ["table", "htable"] {
            let (_, _, bytes) = asmgen::sem::ct::PARAMS.iter().find(|p| p.0 == name).expect("a key-table parameter");
            assert_eq!(*bytes, super::KEY_TABLE_BYTES, "{name}");
        }
    }
}
