//! Kernel roles: what a kernel of a set is for (`ecb`, `xts_enc_ieee`, `ghash_update`, ...), independent of
//! the ISA. A kernel set names its kernels by role; `cargo xtask gen` writes each set's roles, symbols and
//! required features into `generated/<target>/mod.rs`, and the runtime (listings and JIT alike) fills its
//! function tables by role. Every role has one C signature, declared here and checked against every kernel
//! of that role in the catalog's tests: the parameter names and types of every role are declared here once,
//! for every ISA, and kernels declare their parameters with [`params`].

use asmgen::ir::CType::{self, BytePtr as Mut, ConstBytePtr as Ptr, Size};
use asmgen::{Builder, Isa};

/// The rules every function of a listing follows, as its C header states them (lines separated by `\n`).
pub const C_RULES: &str =
    "Every function returns void and keeps nothing between calls: what a call continues (counter, IV,\n\
    tweak, MAC, hash state) lives in the caller's buffers, updated in place.\n\
    nblocks counts 16-byte blocks and may be 0: then every buffer keeps its contents (the XTS unit\n\
    kernels take len, a length in bytes, instead).\n\
    dst and src may be the same buffer (exact aliasing); they must not overlap otherwise. The other buffers\n\
    (round keys, tables, counters, IVs, tweaks, MACs, states) must overlap neither dst, src nor each other.\n\
    Byte orders: data, keys, IVs, tweaks and MACs are bytes as the standards print them; round keys are\n\
    little-endian uint32_t words; counters are big-endian integers (each role says how wide).";

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
    /// GHASH key setup of the table's common part only (H^1..H^8 and their half-sums), in the sets whose init
    /// also fills an extension: `init(table, h)`.
    GhashInitBase,
    /// POLYVAL key setup of the table's common part only, as [`Role::GhashInitBase`].
    PolyvalInitBase,
    /// GHASH key setup of H^1..H^4 and their half-sums only, for updates of at most four blocks (x86_64):
    /// `init(table, h)`.
    GhashInitSmall,
    /// POLYVAL key setup of H^1..H^4 and their half-sums only, as [`Role::GhashInitSmall`].
    PolyvalInitSmall,
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
    /// SM4-XTS encryption of one data unit, IEEE 1619: tweak encryption and ciphertext stealing inside.
    XtsUnitEncIeee,
    /// SM4-XTS decryption of one data unit, IEEE 1619.
    XtsUnitDecIeee,
    /// SM4-XTS encryption of one data unit, GB/T 17964.
    XtsUnitEncGb,
    /// SM4-XTS decryption of one data unit, GB/T 17964.
    XtsUnitDecGb,
    /// SM4-GCM encryption with GHASH fused: GHASH absorbs the ciphertext it writes.
    GcmEnc,
    /// SM4-GCM decryption with GHASH fused: GHASH absorbs the ciphertext it reads.
    GcmDec,
    /// SM4-CCM encryption: CBC-MAC and CTR in one pass.
    CcmEnc,
    /// SM4-CCM decryption: CTR and CBC-MAC in one pass.
    CcmDec,
}

/// One row of the role table: the role, its name in generated tables, its C parameters (names and types, as
/// every kernel of the role declares them and every listing prints them) and the ISA-neutral documentation
/// line every ISA's kernel of the role starts its comment with.
/// What kind of kernel a role is: the role table's column the predicates ([`Role::is_xts`], ...) read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    /// GHASH/POLYVAL key setup and update.
    Hash,
    /// The SM4 key schedule.
    KeySchedule,
    /// The block cipher modes and CBC-MAC: whole blocks, a key and at most one chaining buffer.
    Cipher,
    /// XTS over whole blocks.
    Xts,
    /// XTS over one data unit per call (ciphertext stealing).
    XtsUnit,
    /// Fused GCM (CTR and GHASH in one pass).
    Gcm,
    /// CCM's CTR and CBC-MAC in one pass.
    Ccm,
}

struct RoleInfo {
    role: Role,
    family: Family,
    name: &'static str,
    params: &'static [(&'static str, CType)],
    doc: Option<&'static str>,
    /// The C-facing contract the listing's header prints above the role's functions: what each pointer
    /// holds and its size, what is read and what updated, byte orders; lines separated by `\n`.
    c_doc: &'static str,
}

const HASH_INIT: &[(&str, CType)] = &[("table", Mut), ("h", Ptr)];
const HASH_UPDATE: &[(&str, CType)] = &[("state", Mut), ("table", Ptr), ("data", Ptr), ("nblocks", Size)];
const ECB: &[(&str, CType)] = &[("rk", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size)];
const CTR: &[(&str, CType)] = &[("rk", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("ctr", Mut)];
const CHAIN_ENC: &[(&str, CType)] = &[("rk_enc", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("iv", Mut)];
const CHAIN_DEC: &[(&str, CType)] = &[("rk_dec", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("iv", Mut)];
const XTS_ENC: &[(&str, CType)] = &[("rk_enc", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("tweak", Mut)];
const XTS_DEC: &[(&str, CType)] = &[("rk_dec", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("tweak", Mut)];
const XTS_UNIT_ENC: &[(&str, CType)] =
    &[("rk_enc", Ptr), ("rk_tweak", Ptr), ("dst", Mut), ("src", Ptr), ("len", Size), ("iv", Ptr)];
const XTS_UNIT_DEC: &[(&str, CType)] =
    &[("rk_dec", Ptr), ("rk_tweak", Ptr), ("dst", Mut), ("src", Ptr), ("len", Size), ("iv", Ptr)];
const GCM: &[(&str, CType)] =
    &[("rk_enc", Ptr), ("htable", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("state", Mut)];
const CCM: &[(&str, CType)] =
    &[("rk_enc", Ptr), ("dst", Mut), ("src", Ptr), ("nblocks", Size), ("ctr", Mut), ("mac", Mut)];

// The base-only key setups are other sets' inits, so their doc lines are the inits'.
const GHASH_INIT_SMALL_DOC: &str = "GHASH key setup (SP 800-38D) of H^1..H^4 and their Karatsuba half-sums only (table bytes 0..63 and 128..191), from h: enough for updates of at most 4 blocks.";
const POLYVAL_INIT_SMALL_DOC: &str = "POLYVAL key setup (RFC 8452) of H^1..H^4 and their Karatsuba half-sums only (table bytes 0..63 and 128..191), from h: enough for updates of at most 4 blocks.";
const GHASH_INIT_DOC: &str = "GHASH key setup (SP 800-38D): table = H^1..H^8 and their Karatsuba half-sums (the kernels' form; the x86_64 ymm and zmm sets also H^9..H^64), from h.";
const POLYVAL_INIT_DOC: &str = "POLYVAL key setup (RFC 8452): table = H^1..H^8 and their Karatsuba half-sums (the kernels' form; the x86_64 ymm and zmm sets also H^9..H^64), from h.";

/// Every role, in the order of the generated tables.
const ROLES: &[RoleInfo] = &[
    RoleInfo {
        role: Role::GhashInit,
        family: Family::Hash,
        name: "ghash_init",
        params: HASH_INIT,
        doc: Some(GHASH_INIT_DOC),
        c_doc: "GHASH key setup (NIST SP 800-38D).\n\
            h: the 16-byte hash key H = E(K, 0^128), bytes as the standard writes them; read only.\n\
            table: PREFIX_GHASH_KEY_TABLE_BYTES (2048) bytes, written: H^1..H^8 and their Karatsuba half-sums in the\n\
            kernels' own form in the first 256 bytes (the same layout in every set of a target); the x86_64 ymm and\n\
            zmm sets also H^9..H^64 in the rest (the same bytes). Treat it as opaque:\n\
            fill it with an init of this listing and pass it to the update of the same set, or as htable to the SM4\n\
            listing's gcm_enc and gcm_dec (any set's init).",
    },
    RoleInfo {
        role: Role::GhashUpdate,
        family: Family::Hash,
        name: "ghash_update",
        params: HASH_UPDATE,
        doc: Some("GHASH update (SP 800-38D): state = (state ^ X) * H for each 16-byte block X of data."),
        c_doc: "GHASH update (SP 800-38D): state = (state ^ X) * H for each 16-byte block X of data.\n\
            state: 16 bytes, read and updated, in GCM's byte order (Y as SP 800-38D writes it; zeros to start).\n\
            table: filled by ghash_init. data: nblocks * 16 bytes, read. Partial blocks are the caller's (zero-pad).",
    },
    RoleInfo {
        role: Role::PolyvalInit,
        family: Family::Hash,
        name: "polyval_init",
        params: HASH_INIT,
        doc: Some(POLYVAL_INIT_DOC),
        c_doc: "POLYVAL key setup (RFC 8452).\n\
            h: the 16-byte POLYVAL key H (the field element's little-endian bytes); read only.\n\
            table: PREFIX_GHASH_KEY_TABLE_BYTES (2048) bytes, written, opaque: for polyval_update of the same set.",
    },
    RoleInfo {
        role: Role::PolyvalUpdate,
        family: Family::Hash,
        name: "polyval_update",
        params: HASH_UPDATE,
        doc: Some("POLYVAL update (RFC 8452): state = (state ^ X) * H * x^-128 for each 16-byte block X of data."),
        c_doc: "POLYVAL update (RFC 8452): for each 16-byte block X of data, state = (state ^ X) * H * x^-128.\n\
            state: 16 bytes, read and updated, little-endian as RFC 8452 writes it (zeros to start).\n\
            table: filled by polyval_init. data: nblocks * 16 bytes, read.",
    },
    RoleInfo {
        role: Role::GhashInitBase,
        family: Family::Hash,
        name: "ghash_init_base",
        params: HASH_INIT,
        doc: Some(GHASH_INIT_DOC),
        c_doc: "GHASH key setup of the first 256 bytes of the table only (H^1..H^8 and their half-sums), in the sets\n\
            whose ghash_init also fills the rest (the x86_64 ymm and zmm sets): it is another set's ghash_init.\n\
            Enough for ghash_update of fewer than 16 blocks and for gcm_enc and gcm_dec; a table for longer\n\
            updates comes from ghash_init. Arguments as for ghash_init; it writes only those 256 bytes.",
    },
    RoleInfo {
        role: Role::PolyvalInitBase,
        family: Family::Hash,
        name: "polyval_init_base",
        params: HASH_INIT,
        doc: Some(POLYVAL_INIT_DOC),
        c_doc: "POLYVAL key setup of the first 256 bytes of the table only, as ghash_init_base: enough for\n\
            polyval_update of fewer than 16 blocks. Arguments as for polyval_init; it writes only those 256 bytes.",
    },
    RoleInfo {
        role: Role::GhashInitSmall,
        family: Family::Hash,
        name: "ghash_init_small",
        params: HASH_INIT,
        doc: Some(GHASH_INIT_SMALL_DOC),
        c_doc: "GHASH key setup of H^1..H^4 and their half-sums only (table bytes 0..63 and 128..191): enough\n\
            for ghash_update of at most 4 blocks in every x86_64 set, for a message that short under a new key.\n\
            Arguments as for ghash_init; it writes only those 128 bytes.",
    },
    RoleInfo {
        role: Role::PolyvalInitSmall,
        family: Family::Hash,
        name: "polyval_init_small",
        params: HASH_INIT,
        doc: Some(POLYVAL_INIT_SMALL_DOC),
        c_doc: "POLYVAL key setup of H^1..H^4 and their half-sums only, as ghash_init_small: enough for\n\
            polyval_update of at most 4 blocks. Arguments as for polyval_init; it writes only those 128 bytes.",
    },
    RoleInfo {
        role: Role::ExpandKey,
        family: Family::KeySchedule,
        name: "expand_key",
        params: &[("rk_enc", Mut), ("rk_dec", Mut), ("key", Ptr)],
        doc: Some("SM4 key schedule (GB/T 32907), constant time: rk_enc = rk[0..32], rk_dec[i] = rk[31-i] (little-endian words)."),
        c_doc: "SM4 key schedule (GB/T 32907-2016), constant time.\n\
            key: the 16-byte key as the standard prints it (MK0..MK3 big-endian words); read only.\n\
            rk_enc, rk_dec: PREFIX_SM4_ROUND_KEYS_BYTES (128) bytes each, written: the 32 round keys as little-endian\n\
            uint32_t words, rk_dec holding them in reverse order (decryption is encryption with the reversed keys).",
    },
    RoleInfo {
        role: Role::Ecb,
        family: Family::Cipher,
        name: "ecb",
        params: ECB,
        doc: Some("SM4-ECB: dst[i] = E(src[i]) (decrypts when given the reversed round keys)."),
        c_doc: "SM4-ECB: dst[i] = E(src[i]) for nblocks 16-byte blocks; with rk = rk_dec it decrypts.\n\
            Reads rk (128 bytes) and src, writes dst.",
    },
    RoleInfo {
        role: Role::Ctr,
        family: Family::Cipher,
        name: "ctr",
        params: CTR,
        doc: Some("SM4-CTR: dst[i] = src[i] ^ E(ctr + i), 128-bit big-endian counter, updated to ctr + nblocks."),
        c_doc: "SM4-CTR: dst[i] = src[i] ^ E(ctr + i).\n\
            ctr: 16 bytes, read and updated to ctr + nblocks: a 128-bit big-endian integer (the carry crosses the\n\
            64-bit halves; it wraps mod 2^128). Encryption and decryption are the same call with rk_enc.",
    },
    RoleInfo {
        role: Role::CbcEnc,
        family: Family::Cipher,
        name: "cbc_enc",
        params: CHAIN_ENC,
        doc: Some("SM4-CBC encryption: c[i] = E(p[i] ^ c[i-1]), c[-1] = iv; iv = last ciphertext block."),
        c_doc: "SM4-CBC encryption: c[i] = E(p[i] ^ c[i-1]), c[-1] = iv (serial: one block at a time).\n\
            iv: 16 bytes, read and updated to the last ciphertext block, so calls chain.",
    },
    RoleInfo {
        role: Role::CbcDec,
        family: Family::Cipher,
        name: "cbc_dec",
        params: CHAIN_DEC,
        doc: Some("SM4-CBC decryption: dst[i] = D(src[i]) ^ src[i-1], src[-1] = iv; iv = last ciphertext block."),
        c_doc: "SM4-CBC decryption with rk_dec: dst[i] = D(src[i]) ^ src[i-1], src[-1] = iv.\n\
            iv: 16 bytes, read and updated to the last ciphertext block, so calls chain.",
    },
    RoleInfo {
        role: Role::CfbEnc,
        family: Family::Cipher,
        name: "cfb_enc",
        params: CHAIN_ENC,
        doc: Some("SM4-CFB-128 encryption: c[i] = p[i] ^ E(c[i-1]), c[-1] = iv; iv = last ciphertext block."),
        c_doc: "SM4-CFB-128 encryption of whole blocks: c[i] = p[i] ^ E(c[i-1]), c[-1] = iv (serial).\n\
            iv: 16 bytes, read and updated to the last ciphertext block, so calls chain.",
    },
    RoleInfo {
        role: Role::CfbDec,
        family: Family::Cipher,
        name: "cfb_dec",
        params: CHAIN_ENC,
        doc: Some("SM4-CFB-128 decryption: dst[i] = src[i] ^ E(src[i-1]), src[-1] = iv; iv = last ciphertext block."),
        c_doc: "SM4-CFB-128 decryption of whole blocks (with rk_enc): dst[i] = src[i] ^ E(src[i-1]), src[-1] = iv.\n\
            iv: 16 bytes, read and updated to the last ciphertext block, so calls chain.",
    },
    RoleInfo {
        role: Role::CbcMac,
        family: Family::Cipher,
        name: "cbc_mac",
        params: &[("rk_enc", Ptr), ("mac", Mut), ("src", Ptr), ("nblocks", Size)],
        doc: Some("SM4 CBC-MAC core: mac = E(mac ^ block) for each block."),
        c_doc: "SM4 CBC-MAC core (of CBC-MAC, CMAC and XCBC): mac = E(mac ^ block) for each block of src.\n\
            mac: 16 bytes, read and updated. Padding, subkeys and the final block are the caller's.",
    },
    RoleInfo {
        role: Role::XtsEncIeee,
        family: Family::Xts,
        name: "xts_enc_ieee",
        params: XTS_ENC,
        doc: Some("SM4-XTS encryption (IEEE 1619), whole blocks: dst[i] = E(src[i] ^ T[i]) ^ T[i], T[i+1] = T[i] * x; tweak: T[0] = E_K2(IV) in, T[nblocks] out."),
        c_doc: "SM4-XTS encryption of whole blocks, IEEE 1619 tweaks: dst[i] = E(src[i] ^ T[i]) ^ T[i] with rk_enc.\n\
            tweak: 16 bytes, read and updated: T[0], already encrypted with the tweak key by the caller, becomes\n\
            T[nblocks]; T[i+1] = T[i] * x in GF(2^128), the block little-endian (byte 0 least significant), 0x87.\n\
            Ciphertext stealing is the caller's (single-block calls).",
    },
    RoleInfo {
        role: Role::XtsDecIeee,
        family: Family::Xts,
        name: "xts_dec_ieee",
        params: XTS_DEC,
        doc: Some("SM4-XTS decryption (IEEE 1619), whole blocks: dst[i] = D(src[i] ^ T[i]) ^ T[i], T[i+1] = T[i] * x; tweak: T[0] = E_K2(IV) in, T[nblocks] out."),
        c_doc: "SM4-XTS decryption of whole blocks, IEEE 1619 tweaks: dst[i] = D(src[i] ^ T[i]) ^ T[i] with rk_dec.\n\
            tweak: 16 bytes, read and updated from T[0] to T[nblocks], as for xts_enc_ieee.",
    },
    RoleInfo {
        role: Role::XtsEncGb,
        family: Family::Xts,
        name: "xts_enc_gb",
        params: XTS_ENC,
        doc: Some("SM4-XTS encryption (GB/T 17964), whole blocks: dst[i] = E(src[i] ^ T[i]) ^ T[i], T[i+1] = T[i] * x; tweak: T[0] = E_K2(IV) in, T[nblocks] out."),
        c_doc:
            "SM4-XTS encryption of whole blocks, GB/T 17964-2021 tweaks: dst[i] = E(src[i] ^ T[i]) ^ T[i], rk_enc.\n\
            tweak: 16 bytes, read and updated: T[0] (already encrypted) becomes T[nblocks]; the block read as a\n\
            128-bit big-endian V steps as V' = (V >> 1) ^ (V & 1 ? 0xe1 << 120 : 0).",
    },
    RoleInfo {
        role: Role::XtsDecGb,
        family: Family::Xts,
        name: "xts_dec_gb",
        params: XTS_DEC,
        doc: Some("SM4-XTS decryption (GB/T 17964), whole blocks: dst[i] = D(src[i] ^ T[i]) ^ T[i], T[i+1] = T[i] * x; tweak: T[0] = E_K2(IV) in, T[nblocks] out."),
        c_doc:
            "SM4-XTS decryption of whole blocks, GB/T 17964-2021 tweaks: dst[i] = D(src[i] ^ T[i]) ^ T[i], rk_dec.\n\
            tweak: 16 bytes, read and updated from T[0] to T[nblocks], as for xts_enc_gb.",
    },
    RoleInfo {
        role: Role::XtsUnitEncIeee,
        family: Family::XtsUnit,
        name: "xts_unit_enc_ieee",
        params: XTS_UNIT_ENC,
        doc: Some("SM4-XTS encryption (IEEE 1619) of one data unit of len >= 16 bytes: T[0] = E_K2(iv) inside, then as xts_enc_ieee, the tail by ciphertext stealing."),
        c_doc: "SM4-XTS encryption of one whole data unit (IEEE 1619, P1619 ciphertext stealing): one call per unit.\n\
            len: the unit's length in bytes, any length from 16 (below 16 nothing is read or written). iv: the\n\
            unit's 16-byte tweak value (e.g. the sector number, little-endian), read only; the kernel computes\n\
            T[0] = E(rk_tweak, iv) itself. rk_tweak: the tweak key's rk_enc; rk_enc: the data key's.\n\
            Whole blocks as xts_enc_ieee; if len % 16 = d > 0, the last full block and the d-byte tail are\n\
            stolen as IEEE 1619 says: CC = E(P[m-1] ^ T[m-1]) ^ T[m-1], C[m] = the first d bytes of CC,\n\
            C[m-1] = E(PP ^ T[m]) ^ T[m] with PP = P[m] || the last 16 - d bytes of CC.",
    },
    RoleInfo {
        role: Role::XtsUnitDecIeee,
        family: Family::XtsUnit,
        name: "xts_unit_dec_ieee",
        params: XTS_UNIT_DEC,
        doc: Some("SM4-XTS decryption (IEEE 1619) of one data unit of len >= 16 bytes: T[0] = E_K2(iv) inside, then as xts_dec_ieee, the tail by ciphertext stealing."),
        c_doc: "SM4-XTS decryption of one whole data unit (IEEE 1619): the inverse of xts_unit_enc_ieee.\n\
            rk_dec: the data key's rk_dec; rk_tweak: the tweak key's rk_enc (the tweak is always encrypted).\n\
            len, iv as for xts_unit_enc_ieee; with a tail, the last full block is deciphered with T[m] and the\n\
            stolen block with T[m-1].",
    },
    RoleInfo {
        role: Role::XtsUnitEncGb,
        family: Family::XtsUnit,
        name: "xts_unit_enc_gb",
        params: XTS_UNIT_ENC,
        doc: Some("SM4-XTS encryption (GB/T 17964) of one data unit of len >= 16 bytes: T[0] = E_K2(iv) inside, then as xts_enc_gb, the tail by ciphertext stealing."),
        c_doc: "SM4-XTS encryption of one whole data unit, GB/T 17964-2021 tweaks: as xts_unit_enc_ieee, with the\n\
            tweak stepped as for xts_enc_gb.",
    },
    RoleInfo {
        role: Role::XtsUnitDecGb,
        family: Family::XtsUnit,
        name: "xts_unit_dec_gb",
        params: XTS_UNIT_DEC,
        doc: Some("SM4-XTS decryption (GB/T 17964) of one data unit of len >= 16 bytes: T[0] = E_K2(iv) inside, then as xts_dec_gb, the tail by ciphertext stealing."),
        c_doc: "SM4-XTS decryption of one whole data unit, GB/T 17964-2021 tweaks: as xts_unit_dec_ieee, with the\n\
            tweak stepped as for xts_enc_gb.",
    },
    RoleInfo {
        role: Role::GcmEnc,
        family: Family::Gcm,
        name: "gcm_enc",
        params: GCM,
        doc: Some("SM4-GCM encryption, whole blocks: dst[i] = src[i] ^ E(ctr_i), ctr = state[0..16] (inc32); GHASH state[16..32] absorbs dst."),
        c_doc: "SM4-GCM encryption of whole blocks in one pass: dst[i] = src[i] ^ E(ctr_i); GHASH absorbs dst.\n\
            state: PREFIX_SM4_GCM_STATE_BYTES (32) bytes, read and updated, so calls chain: state[0..16] the\n\
            counter block (its last 4 bytes a big-endian counter incremented mod 2^32, inc32: after\n\
            0xffffffff comes 0, the first 12 bytes never change), state[16..32] the GHASH state in GCM's byte\n\
            order, as the GHASH listing's ghash_update keeps it. htable: PREFIX_SM4_GCM_HTABLE_BYTES (2048) bytes\n\
            filled by the GHASH listing's ghash_init with H = E(K, 0^128). Decryption: gcm_dec.",
    },
    RoleInfo {
        role: Role::GcmDec,
        family: Family::Gcm,
        name: "gcm_dec",
        params: GCM,
        doc: Some("SM4-GCM decryption, whole blocks: dst[i] = src[i] ^ E(ctr_i), ctr = state[0..16] (inc32); GHASH state[16..32] absorbs src."),
        c_doc: "SM4-GCM decryption of whole blocks in one pass: dst[i] = src[i] ^ E(ctr_i); GHASH absorbs src,\n\
            the ciphertext. state and htable as for gcm_enc (inc32 counter, wrapping mod 2^32). The plaintext\n\
            is written before the tag can be checked: a caller that must not release it on a bad tag\n\
            restores dst by applying the same keystream again: gcm_enc over dst with a copy of the starting\n\
            state, or the ctr kernel (it counts in 128 bits: split its call where the low 32 bits wrap).",
    },
    RoleInfo {
        role: Role::CcmEnc,
        family: Family::Ccm,
        name: "ccm_enc",
        params: CCM,
        doc: Some("SM4-CCM encryption, whole blocks: dst[i] = src[i] ^ E(ctr + i) (128-bit counter, updated); mac = E(mac ^ src[i])."),
        c_doc: "SM4-CCM encryption of whole payload blocks in one pass: dst[i] = src[i] ^ E(ctr + i), and\n\
            mac = E(mac ^ src[i]) over the plaintext. ctr: 16 bytes, a 128-bit big-endian counter, read and\n\
            updated to ctr + nblocks; mac: 16 bytes, read and updated. B0, the AAD and the tag are the caller's.",
    },
    RoleInfo {
        role: Role::CcmDec,
        family: Family::Ccm,
        name: "ccm_dec",
        params: CCM,
        doc: Some("SM4-CCM decryption, whole blocks: dst[i] = src[i] ^ E(ctr + i) (128-bit counter, updated); mac = E(mac ^ dst[i])."),
        c_doc: "SM4-CCM decryption of whole payload blocks in one pass: dst[i] = src[i] ^ E(ctr + i), and\n\
            mac = E(mac ^ dst[i]) over the recovered plaintext. ctr and mac as for ccm_enc (rk_enc here too).",
    },
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

    /// The ISA-neutral documentation line every ISA's kernel of this role starts its comment with (ISA-specific
    /// notes follow it); `None` for a role without one yet, which kernels/tests/role_docs.rs rejects.
    pub fn doc(self) -> Option<&'static str> {
        self.info().doc
    }

    /// Its C contract as the listing's C header prints it (lines separated by `\n`; `PREFIX` stands for the
    /// header's macro prefix, `ASMGEN` in the checked-in headers).
    pub fn c_doc(self) -> &'static str {
        self.info().c_doc
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

    /// The one-data-unit XTS role for a direction and tweak convention.
    pub fn xts_unit(decrypt: bool, gb: bool) -> Role {
        match (decrypt, gb) {
            (false, false) => Role::XtsUnitEncIeee,
            (true, false) => Role::XtsUnitDecIeee,
            (false, true) => Role::XtsUnitEncGb,
            (true, true) => Role::XtsUnitDecGb,
        }
    }

    /// The GCM role for a direction.
    pub fn gcm(decrypt: bool) -> Role {
        if decrypt {
            Role::GcmDec
        } else {
            Role::GcmEnc
        }
    }

    /// Whether it is an XTS kernel (`xts_*`, `xts_unit_*`).
    pub fn is_xts(self) -> bool {
        matches!(self.info().family, Family::Xts | Family::XtsUnit)
    }

    /// Whether it is an XTS unit kernel (`xts_unit_*`: one data unit per call).
    pub fn is_xts_unit(self) -> bool {
        self.info().family == Family::XtsUnit
    }

    /// Whether it is a fused GCM kernel (`gcm_enc`, `gcm_dec`).
    pub fn is_fused_gcm(self) -> bool {
        self.info().family == Family::Gcm
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

#[cfg(test)]
mod tests {
    use super::Role;

    /// The family column agrees with the C names: `xts_*` (whole blocks and units), `xts_unit_*`, `gcm_*`.
    #[test]
    fn the_predicates_agree_with_the_names() {
        for r in Role::all() {
            let name = r.name();
            assert_eq!(r.is_xts(), name.starts_with("xts_"), "{name}");
            assert_eq!(r.is_xts_unit(), name.starts_with("xts_unit_"), "{name}");
            assert_eq!(r.is_fused_gcm(), name.starts_with("gcm_"), "{name}");
        }
        assert_eq!(Role::all().filter(|r| r.is_xts_unit()).count(), 4);
    }
}
