//! Kernel roles: what a kernel of a set is for (`ecb`, `xts_enc_ieee`, `ghash_update`, ...), independent of
//! the ISA. A kernel set names its kernels by role; `cargo xtask gen` writes each set's roles, symbols and
//! required features into `generated/<target>/mod.rs`, and the runtime (listings and JIT alike) fills its
//! function tables by role. Every role has one C signature, declared here and checked against every kernel
//! of that role in the catalog's tests: the parameter names and types of every role are declared here once,
//! for every ISA, and kernels declare their parameters with [`params`].

use asmgen::ir::CType::{self, BytePtr as Mut, ConstBytePtr as Ptr, Size};
use asmgen::{Builder, Isa};

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

/// One row of the role table: the role, its name in generated tables, its C parameters (names and types, as
/// every kernel of the role declares them and every listing prints them) and the documentation line every
/// ISA's kernel of the role starts with, where they all print the same one.
struct RoleInfo {
    role: Role,
    name: &'static str,
    params: &'static [(&'static str, CType)],
    doc: Option<&'static str>,
}

const HASH_INIT: &[(&str, CType)] = &[("table", Mut), ("h", Ptr)];
const HASH_UPDATE: &[(&str, CType)] = &[("state", Mut), ("table", Ptr), ("data", Ptr), ("nblocks", Size)];
const ECB: &[(&str, CType)] = &[("rk", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size)];
const CTR: &[(&str, CType)] = &[("rk", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("ctr", Mut)];
const CHAIN_ENC: &[(&str, CType)] = &[("rk_enc", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("iv", Mut)];
const CHAIN_DEC: &[(&str, CType)] = &[("rk_dec", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("iv", Mut)];
const XTS_ENC: &[(&str, CType)] = &[("rk_enc", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("tweak", Mut)];
const XTS_DEC: &[(&str, CType)] = &[("rk_dec", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("tweak", Mut)];
const CCM: &[(&str, CType)] =
    &[("rk_enc", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("ctr", Mut), ("mac", Mut)];

/// Every role, in the order of the generated tables.
const ROLES: &[RoleInfo] = &[
    RoleInfo { role: Role::GhashInit, name: "ghash_init", params: HASH_INIT, doc: None },
    RoleInfo { role: Role::GhashUpdate, name: "ghash_update", params: HASH_UPDATE, doc: None },
    RoleInfo { role: Role::PolyvalInit, name: "polyval_init", params: HASH_INIT, doc: None },
    RoleInfo { role: Role::PolyvalUpdate, name: "polyval_update", params: HASH_UPDATE, doc: None },
    RoleInfo {
        role: Role::ExpandKey,
        name: "expand_key",
        params: &[("rk_enc", Mut), ("rk_dec", Mut), ("key", Ptr)],
        doc: None,
    },
    RoleInfo {
        role: Role::Ecb,
        name: "ecb",
        params: ECB,
        doc: Some("SM4-ECB: dst[i] = E(src[i]) (decrypts when given the reversed round keys)."),
    },
    RoleInfo {
        role: Role::Ctr,
        name: "ctr",
        params: CTR,
        doc: Some("SM4-CTR: dst[i] = src[i] ^ E(ctr + i), 128-bit big-endian counter, updated to ctr + nblocks."),
    },
    RoleInfo {
        role: Role::CbcEnc,
        name: "cbc_enc",
        params: CHAIN_ENC,
        doc: Some("SM4-CBC encryption: c[i] = E(p[i] ^ c[i-1]), c[-1] = iv; iv = last ciphertext block."),
    },
    RoleInfo {
        role: Role::CbcDec,
        name: "cbc_dec",
        params: CHAIN_DEC,
        doc: Some("SM4-CBC decryption: dst[i] = D(src[i]) ^ src[i-1], src[-1] = iv; iv = last ciphertext block."),
    },
    RoleInfo {
        role: Role::CfbEnc,
        name: "cfb_enc",
        params: CHAIN_ENC,
        doc: Some("SM4-CFB-128 encryption: c[i] = p[i] ^ E(c[i-1]), c[-1] = iv; iv = last ciphertext block."),
    },
    RoleInfo {
        role: Role::CfbDec,
        name: "cfb_dec",
        params: CHAIN_ENC,
        doc: Some("SM4-CFB-128 decryption: dst[i] = src[i] ^ E(src[i-1]), src[-1] = iv; iv = last ciphertext block."),
    },
    RoleInfo {
        role: Role::CbcMac,
        name: "cbc_mac",
        params: &[("rk_enc", Ptr), ("mac", Mut), ("src", Ptr), ("nblocks", Size)],
        doc: Some("SM4 CBC-MAC core: mac = E(mac ^ block) for each block."),
    },
    RoleInfo { role: Role::XtsEncIeee, name: "xts_enc_ieee", params: XTS_ENC, doc: None },
    RoleInfo { role: Role::XtsDecIeee, name: "xts_dec_ieee", params: XTS_DEC, doc: None },
    RoleInfo { role: Role::XtsEncGb, name: "xts_enc_gb", params: XTS_ENC, doc: None },
    RoleInfo { role: Role::XtsDecGb, name: "xts_dec_gb", params: XTS_DEC, doc: None },
    RoleInfo {
        role: Role::GcmEnc,
        name: "gcm_enc",
        params: &[("rk_enc", Ptr), ("htable", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("state", Mut)],
        doc: None,
    },
    RoleInfo { role: Role::CcmEnc, name: "ccm_enc", params: CCM, doc: None },
    RoleInfo { role: Role::CcmDec, name: "ccm_dec", params: CCM, doc: None },
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

    /// Its C parameters, name and type, in order (every kernel returns `void`).
    pub fn params(self) -> &'static [(&'static str, CType)] {
        self.info().params
    }

    /// The documentation line every ISA's kernel of this role starts with, where they all share one (the SM4
    /// block modes); `None` where each ISA describes its kernel itself.
    pub fn doc(self) -> Option<&'static str> {
        self.info().doc
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
}

/// Declares the C parameters of a kernel of `role` on `b`, names and types from the role table, and returns the
/// general-purpose registers the ABI passes them in, in order: `let [rk, dst, src, n, ctr] = params(&mut b,
/// Role::Ctr);`. Panics if `N` is not the role's parameter count (a kernel bug, caught by every listing test).
pub fn params<I: Isa, const N: usize>(b: &mut Builder<I>, role: Role) -> [I::Gpr; N] {
    let ps = role.params();
    assert_eq!(ps.len(), N, "role {} has {} parameters", role.name(), ps.len());
    std::array::from_fn(|i| b.param(ps[i].0, ps[i].1))
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
