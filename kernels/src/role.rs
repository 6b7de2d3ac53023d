//! Kernel roles: what a kernel of a set is for (`ecb`, `xts_enc_ieee`, `ghash_update`, ...), independent of
//! the ISA. A kernel set names its kernels by role; `cargo xtask gen` writes each set's roles, symbols and
//! required features into `generated/<target>/mod.rs`, and the runtime (listings and JIT alike) fills its
//! function tables by role. Every role has one C signature, declared here and checked against every kernel
//! of that role in the catalog's tests.

use asmgen::ir::CType::{self, BytePtr as Mut, ConstBytePtr as Ptr, Size};

/// What a kernel is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// GHASH key setup: `init(table, h)`.
    GhashInit,
    /// GHASH update: `update(state, table, data, nblocks)`.
    GhashUpdate,
    /// POLYVAL key setup: `init(table, h)`.
    PolyvalInit,
    /// POLYVAL update: `update(state, table, data, nblocks)`.
    PolyvalUpdate,
    /// SM4 key schedule, both directions: `expand_key(rk_enc, rk_dec, key)`.
    ExpandKey,
    /// SM4-ECB.
    Ecb,
    /// SM4-CTR (128-bit big-endian counter).
    Ctr,
    /// SM4-CBC encryption.
    CbcEnc,
    /// SM4-CBC decryption.
    CbcDec,
    /// SM4-CFB-128 encryption.
    CfbEnc,
    /// SM4-CFB-128 decryption.
    CfbDec,
    /// The SM4 CBC-MAC core (CMAC, XCBC, CBC-MAC).
    CbcMac,
    /// SM4-XTS encryption, IEEE 1619 tweaks.
    XtsEncIeee,
    /// SM4-XTS decryption, IEEE 1619 tweaks.
    XtsDecIeee,
    /// SM4-XTS encryption, GB/T 17964 tweaks.
    XtsEncGb,
    /// SM4-XTS decryption, GB/T 17964 tweaks.
    XtsDecGb,
    /// SM4-GCM encryption with GHASH fused (decryption is GHASH, then CTR).
    GcmEnc,
    /// SM4-CCM encryption: CBC-MAC and CTR in one pass.
    CcmEnc,
    /// SM4-CCM decryption: CTR and CBC-MAC in one pass.
    CcmDec,
}

/// One row of the role table: the role, its name in generated tables, and its C parameters.
struct RoleInfo {
    role: Role,
    name: &'static str,
    params: &'static [(&'static str, CType)],
}

const HASH_INIT: &[(&str, CType)] = &[("table", Mut), ("h", Ptr)];
const HASH_UPDATE: &[(&str, CType)] = &[("state", Mut), ("table", Ptr), ("data", Ptr), ("nblocks", Size)];
const BLOCKS: &[(&str, CType)] = &[("rk", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size)];
const CHAIN: &[(&str, CType)] = &[("rk", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("iv", Mut)];
const CCM: &[(&str, CType)] = &[("rk", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("ctr", Mut), ("mac", Mut)];

/// Every role, in the order of the generated tables. The parameter names are those of the typical kernel; the
/// types are the contract (names may differ: `rk_dec`, `counter`, `tweak`).
const ROLES: &[RoleInfo] = &[
    RoleInfo { role: Role::GhashInit, name: "ghash_init", params: HASH_INIT },
    RoleInfo { role: Role::GhashUpdate, name: "ghash_update", params: HASH_UPDATE },
    RoleInfo { role: Role::PolyvalInit, name: "polyval_init", params: HASH_INIT },
    RoleInfo { role: Role::PolyvalUpdate, name: "polyval_update", params: HASH_UPDATE },
    RoleInfo { role: Role::ExpandKey, name: "expand_key", params: &[("rk_enc", Mut), ("rk_dec", Mut), ("key", Ptr)] },
    RoleInfo { role: Role::Ecb, name: "ecb", params: BLOCKS },
    RoleInfo { role: Role::Ctr, name: "ctr", params: CHAIN },
    RoleInfo { role: Role::CbcEnc, name: "cbc_enc", params: CHAIN },
    RoleInfo { role: Role::CbcDec, name: "cbc_dec", params: CHAIN },
    RoleInfo { role: Role::CfbEnc, name: "cfb_enc", params: CHAIN },
    RoleInfo { role: Role::CfbDec, name: "cfb_dec", params: CHAIN },
    RoleInfo {
        role: Role::CbcMac,
        name: "cbc_mac",
        params: &[("rk", Ptr), ("mac", Mut), ("src", Ptr), ("nblocks", Size)],
    },
    RoleInfo { role: Role::XtsEncIeee, name: "xts_enc_ieee", params: CHAIN },
    RoleInfo { role: Role::XtsDecIeee, name: "xts_dec_ieee", params: CHAIN },
    RoleInfo { role: Role::XtsEncGb, name: "xts_enc_gb", params: CHAIN },
    RoleInfo { role: Role::XtsDecGb, name: "xts_dec_gb", params: CHAIN },
    RoleInfo {
        role: Role::GcmEnc,
        name: "gcm_enc",
        params: &[("rk", Ptr), ("htable", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("state", Mut)],
    },
    RoleInfo { role: Role::CcmEnc, name: "ccm_enc", params: CCM },
    RoleInfo { role: Role::CcmDec, name: "ccm_dec", params: CCM },
];

impl Role {
    fn info(self) -> &'static RoleInfo {
        ROLES.iter().find(|r| r.role == self).expect("every role has a row in ROLES")
    }

    /// Every role.
    pub fn all() -> impl Iterator<Item = Role> {
        ROLES.iter().map(|r| r.role)
    }

    /// Its name in the generated set tables and the runtime (`ecb`, `xts_enc_ieee`, `ghash_update`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The types of its C parameters, in order (every kernel returns `void`).
    pub fn param_types(self) -> impl Iterator<Item = CType> {
        self.info().params.iter().map(|p| p.1)
    }

    /// The XTS role for a direction and tweak convention.
    pub fn xts(decrypt: bool, gb: bool) -> Role {
        match (decrypt, gb) {
            (false, false) => Role::XtsEncIeee,
            (true, false) => Role::XtsDecIeee,
            (false, true) => Role::XtsEncGb,
            (true, true) => Role::XtsDecGb,
        }
    }

    /// The CCM role for a direction.
    pub fn ccm(decrypt: bool) -> Role {
        if decrypt {
            Role::CcmDec
        } else {
            Role::CcmEnc
        }
    }

    /// The key-setup role of a hash flavour.
    pub fn hash_init(f: crate::ghash::Flavour) -> Role {
        match f {
            crate::ghash::Flavour::Ghash => Role::GhashInit,
            crate::ghash::Flavour::Polyval => Role::PolyvalInit,
        }
    }

    /// The update role of a hash flavour.
    pub fn hash_update(f: crate::ghash::Flavour) -> Role {
        match f {
            crate::ghash::Flavour::Ghash => Role::GhashUpdate,
            crate::ghash::Flavour::Polyval => Role::PolyvalUpdate,
        }
    }
}

impl From<crate::sm4::Mode> for Role {
    fn from(m: crate::sm4::Mode) -> Role {
        use crate::sm4::Mode;
        match m {
            Mode::Ecb => Role::Ecb,
            Mode::Ctr => Role::Ctr,
            Mode::CbcDec => Role::CbcDec,
            Mode::CfbDec => Role::CfbDec,
        }
    }
}

/// A kernel of a set: a function and what it is for.
#[derive(Clone, Debug)]
pub struct Kernel<I: asmgen::Isa> {
    /// What it is for.
    pub role: Role,
    /// The function.
    pub function: asmgen::Function<I>,
}

impl<I: asmgen::Isa> Kernel<I> {
    /// `function` in `role`.
    pub fn new(role: Role, function: asmgen::Function<I>) -> Kernel<I> {
        Kernel { role, function }
    }
}

/// What a kernel set's description builds: its kernels by role, or why it could not.
pub type Kernels<I> = Result<Vec<Kernel<I>>, asmgen::GenError>;

/// A hash set's kernels: init and update of both flavours, in listing order.
pub fn hash_kernels<I: asmgen::Isa>(
    abi: asmgen::Abi,
    init: fn(crate::ghash::Flavour, asmgen::Abi) -> Result<asmgen::Function<I>, asmgen::GenError>,
    update: fn(crate::ghash::Flavour, asmgen::Abi) -> Result<asmgen::Function<I>, asmgen::GenError>,
) -> Kernels<I> {
    let mut v = Vec::new();
    for f in crate::ghash::Flavour::ALL {
        v.push(Kernel::new(Role::hash_init(f), init(f, abi)?));
        v.push(Kernel::new(Role::hash_update(f), update(f, abi)?));
    }
    Ok(v)
}

/// A hash set's fixed-size kernels: the updates of both flavours for `fixed`'s block count (none for the SM4
/// kinds).
pub fn hash_fixed_kernels<I: asmgen::Isa>(
    abi: asmgen::Abi,
    fixed: crate::Fixed,
    update_of: fn(crate::ghash::Flavour, asmgen::Abi, crate::Blocks) -> Result<asmgen::Function<I>, asmgen::GenError>,
) -> Kernels<I> {
    match fixed {
        crate::Fixed::Hash(n) => crate::ghash::Flavour::ALL
            .iter()
            .map(|&f| Ok(Kernel::new(Role::hash_update(f), update_of(f, abi, crate::Blocks::Fixed(n))?)))
            .collect(),
        crate::Fixed::Xts(_) | crate::Fixed::Ctr(_) => Ok(Vec::new()),
    }
}
