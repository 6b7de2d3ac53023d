//! SM4 (GB/T 32907-2016): the algorithm's constants, the S-box as an affine image of the AES S-box, and the
//! ABI every SM4 kernel set implements.
//!
//! # The cipher
//!
//! A block is four big-endian 32-bit words `X0..X3`. Round `i` (0..32) computes
//! `X(i+4) = X(i) ^ T(X(i+1) ^ X(i+2) ^ X(i+3) ^ rk[i])` with `T(x) = L(S(x))`: [`SBOX`] on each byte, then
//! `L(B) = B ^ rol(B, 2) ^ rol(B, 10) ^ rol(B, 18) ^ rol(B, 24)`. The ciphertext is `X35, X34, X33, X32`.
//! Decryption is encryption with the round keys reversed. The key schedule runs the same recurrence on
//! `K = MK ^ FK` with `CK[i]` in place of the round key and `L'(B) = B ^ rol(B, 13) ^ rol(B, 23)`.
//!
//! # The S-box through AES-NI
//!
//! SM4's S-box is `S(x) = A·inv(A·x ^ C) ^ C` in GF(2^8) modulo x^8+x^7+x^6+x^5+x^4+x^2+1 ([`SM4_POLY`]), with
//! `A` the circulant bit matrix whose row `i` is `rotl(0xa7, i)` and `C = 0xd3` (bit `i` of a byte is the
//! coefficient of x^i). Both fields of order 256 are isomorphic: [`Affine::field_map`] maps SM4's field onto
//! AES's (x^8+x^4+x^3+x+1) by sending x to a root of [`SM4_POLY`] there. Composing,
//!
//! ```text
//! S(x) = M2 · AES_SubBytes(M1 · x ^ c1) ^ c2
//! ```
//!
//! and [`sbox_affine`] derives `(M1, c1)` and `(M2, c2)` when the listing is generated (nothing copied). The
//! kernels apply each affine map with two 16-entry `vpshufb` nibble tables ([`Affine::nibble_tables`]) and get
//! `AES_SubBytes` from `aesenclast` with a zero round key (which also applies ShiftRows; the kernels undo it
//! in the byte shuffles of the linear layer).
//!
//! # ABI (every kernel set)
//!
//! The C signature of each kind of kernel (parameter names and types) is declared once, in [`crate::Role`].
//! All functions return `void`. `dst` and `src` may be the same buffer (exact aliasing only) and may be
//! misaligned; `nblocks` may be 0. Round keys are 32 `u32` stored as little-endian words (128 bytes);
//! `rk_dec` is `rk_enc` in reverse order. Counters and IVs are 16 bytes. A set without a kernel of some kind
//! (GCM, CCM, XTS) leaves that mode to the runtime, which composes it from the kernels it has.
//!
//! * `asmgen_sm4_expand_key_<set>(uint8_t *rk_enc, uint8_t *rk_dec, const uint8_t *key)`: the key schedule
//!   (constant time); writes both schedules.
//! * `asmgen_sm4_ecb_<set>(const uint8_t *rk, uint8_t *dst, const uint8_t *src, size_t nblocks)`: encrypts
//!   (or, given `rk_dec`, decrypts) `nblocks` blocks.
//! * `asmgen_sm4_ctr_<set>(rk, dst, src, nblocks, uint8_t *ctr)`: `dst = src ^ E(ctr), E(ctr + 1), ...`; the
//!   counter is a 128-bit big-endian integer (the carry crosses the 64-bit halves; it wraps mod 2^128) and is
//!   updated to `ctr + nblocks`.
//! * `asmgen_sm4_cbc_dec_<set>(rk_dec, dst, src, nblocks, uint8_t *iv)`: CBC decryption; `iv` becomes the last
//!   ciphertext block, so calls chain.
//! * `asmgen_sm4_cfb_dec_<set>(rk_enc, dst, src, nblocks, uint8_t *iv)`: CFB-128 decryption of whole blocks;
//!   `iv` becomes the last ciphertext block.
//! * `asmgen_sm4_cbc_enc_<set>(rk_enc, dst, src, nblocks, iv)`, `asmgen_sm4_cfb_enc_<set>(rk_enc, dst, src,
//!   nblocks, iv)`: the serial modes; `iv` becomes the last ciphertext block.
//! * `asmgen_sm4_cbc_mac_<set>(const uint8_t *rk_enc, uint8_t *mac, const uint8_t *src, size_t nblocks)`:
//!   `mac = E(mac ^ block)` for each block (the core of CBC-MAC, CMAC and XCBC).
//! * `asmgen_sm4_xts_{enc,dec}_{ieee,gb}_<set>(const uint8_t *rk_enc or *rk_dec, uint8_t *dst, const uint8_t
//!   *src, size_t nblocks, uint8_t *tweak)`: XTS over whole blocks (ciphertext stealing is the caller's, with
//!   single-block calls): `dst[i] = E(src[i] ^ T[i]) ^ T[i]` with `rk_enc` (enc) or `rk_dec` (dec). `tweak`
//!   holds `T[0]`, the already-encrypted tweak, and becomes `T[nblocks]`. `ieee` (IEEE 1619): `T[i+1] = T[i] *
//!   x` in GF(2^128), the block read little-endian (byte 0 least significant), reduction `0x87`. `gb`
//!   (GB/T 17964-2021): the bit-reflected convention, the block read as a 128-bit big-endian integer `V`,
//!   `V' = (V >> 1) ^ (V & 1 ? 0xe1 << 120 : 0)`.
//! * `asmgen_sm4_gcm_{enc,dec}_<set>(const uint8_t *rk_enc, const uint8_t *htable, uint8_t *dst, const uint8_t *src,
//!   size_t nblocks, uint8_t *state)`: GCM encryption or decryption of whole blocks in one pass. `state[0..16]` is the
//!   counter block (its last 4 bytes a big-endian counter, incremented per block mod 2^32 without touching the first 12
//!   bytes: `inc32`, so a call may cross the wrap), `state[16..32]` the running GHASH state in GHASH byte order (as the
//!   set's `asmgen_ghash_update_*`'s); `htable` is the table the GHASH kernel set's init fills. `dst = src ^ E(ctr_i)`;
//!   GHASH absorbs the ciphertext: `dst` when encrypting, `src` when decrypting. Both halves of `state` are updated, so
//!   calls chain. Decryption writes the plaintext before the tag is known: the runtime restores the buffer on a bad tag
//!   by applying the same keystream again.
//! * `asmgen_sm4_ccm_{enc,dec}_<set>(const uint8_t *rk_enc, uint8_t *dst, const uint8_t *src, size_t nblocks,
//!   uint8_t *ctr, uint8_t *mac)`: CCM's payload over whole blocks in one pass: `dst = src ^ E(ctr_i)` with
//!   `ctr` a 128-bit big-endian counter (updated), and `mac = E(mac ^ p_i)` over the plaintext (`p = src`
//!   when encrypting, `p = dst` when decrypting).
//!
//! x86_64 sets (`<set>` = function suffix): `avx` (AES-NI + AVX, 8 blocks in flight) for every function,
//! `avx2` (AES-NI + AVX2, 16 blocks in flight; no VAES) for ECB, CTR, CBC and CFB decryption, XTS and GCM
//! (GCM also needs PCLMULQDQ; the AVX2 set takes its key schedule, serial modes and CCM from `avx`: CCM's
//! CBC-MAC is serial, and the CTR block rides in a spare lane of the MAC's rounds). `vaes` (VAES + AVX2:
//! `vaesenclast` on whole ymm registers) covers the parallel modes, XTS and GCM; `gfni` (GFNI + AVX2) covers
//! every mode and the key schedule, with the S-box in GFNI's affine instructions and the state kept in the
//! pre-affine's domain (see [`gfni`]): three `vgf2p8affineinvqb` and three `vpshufb` per round (the key
//! schedule: four and three, [`gfni::key_round`]).
//!
//! aarch64 sets: `ce` (the SM4 extension: `sm4e`, `sm4ekey`; 8 blocks in flight) for the key schedule, ECB,
//! CTR, CBC, CFB, CBC-MAC, XTS, GCM encryption and decryption (fused with PMULL GHASH) and CCM; `neon` (plain
//! Advanced SIMD, `tbl`/`tbx` S-box; 8 blocks in flight) for the key schedule, ECB, CTR, CBC, CFB and CBC-MAC.
//!
//! riscv64 sets: `zvksed` (Zvksed and Zvkb, VLEN-agnostic; XTS tweaks with Zvkg) for the key schedule, ECB,
//! CTR, CBC, CFB, CBC-MAC and XTS; `zksed` (scalar Zksed, four blocks interleaved) for the key schedule, ECB,
//! CTR, CBC, CFB and CBC-MAC.

pub mod aarch64;
pub mod riscv64;
pub mod x86_64;

/// The S-box of GB/T 32907-2016 (table 1), used to check the derivation and by the NEON kernels' table: the
/// semantics' copy (one home for both, in gen, which kernels build on).
pub use asmgen::sem::sm4::SBOX;

/// The system parameter FK of the key schedule.
pub const FK: [u32; 4] = [0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc];

/// The key-schedule constants: byte `j` (big-endian) of `CK[i]` is `(4i + j) * 7 mod 256`.
pub const CK: [u32; 32] = {
    let mut ck = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        let mut j = 0;
        while j < 4 {
            ck[i] = (ck[i] << 8) | (((4 * i + j) * 7) % 256) as u32;
            j += 1;
        }
        i += 1;
    }
    ck
};

/// SM4's field polynomial x^8+x^7+x^6+x^5+x^4+x^2+1.
pub const SM4_POLY: u16 = 0x1f5;
/// AES's field polynomial x^8+x^4+x^3+x+1.
pub const AES_POLY: u16 = 0x11b;
/// First row of SM4's circulant affine matrix `A` (row `i` is this rotated left by `i`).
pub const SM4_A_ROW: u8 = 0xa7;
/// SM4's affine constant `C`.
pub const SM4_C: u8 = 0xd3;
/// First row of AES's circulant affine matrix (row `i` is this rotated left by `i`).
pub const AES_A_ROW: u8 = 0xf1;
/// AES's affine constant.
pub const AES_C: u8 = 0x63;

/// Product in GF(2^8) modulo `poly`.
pub fn gf_mul(mut a: u8, mut b: u8, poly: u16) -> u8 {
    let mut r = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        b >>= 1;
        let carry = a & 0x80 != 0;
        a <<= 1;
        if carry {
            a ^= (poly & 0xff) as u8;
        }
    }
    r
}

/// Multiplicative inverse in GF(2^8) modulo `poly` (0 maps to 0): `a^254`.
pub fn gf_inv(a: u8, poly: u16) -> u8 {
    let mut r = 1u8;
    let mut p = a;
    let mut e = 254u32;
    while e != 0 {
        if e & 1 != 0 {
            r = gf_mul(r, p, poly);
        }
        p = gf_mul(p, p, poly);
        e >>= 1;
    }
    r
}

/// An 8x8 bit matrix over GF(2), stored by columns: `col[i]` is the image of bit `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matrix(pub [u8; 8]);

impl Matrix {
    /// The matrix whose row `i` is `row0` rotated left by `i` (AES's and SM4's affine matrices).
    pub fn circulant(row0: u8) -> Matrix {
        let mut cols = [0u8; 8];
        for (i, c) in cols.iter_mut().enumerate() {
            for r in 0..8 {
                if row0.rotate_left(r as u32) >> i & 1 != 0 {
                    *c |= 1 << r;
                }
            }
        }
        Matrix(cols)
    }

    /// `M · x`.
    pub fn apply(&self, x: u8) -> u8 {
        (0..8).filter(|i| x >> i & 1 != 0).fold(0, |acc, i| acc ^ self.0[i])
    }

    /// `self · other`.
    pub fn mul(&self, other: &Matrix) -> Matrix {
        Matrix(other.0.map(|c| self.apply(c)))
    }

    /// The inverse (the matrices here are bijections; panics otherwise).
    pub fn inverse(&self) -> Matrix {
        let mut cols = [0u8; 8];
        for (i, c) in cols.iter_mut().enumerate() {
            *c = (0..=255u8).find(|&x| self.apply(x) == 1 << i).expect("invertible matrix");
        }
        Matrix(cols)
    }
}

/// An affine map `x -> M·x ^ c` on bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Affine {
    /// The linear part.
    pub m: Matrix,
    /// The constant.
    pub c: u8,
}

impl Affine {
    /// Applies the map.
    pub fn apply(&self, x: u8) -> u8 {
        self.m.apply(x) ^ self.c
    }

    /// The `vpshufb` tables: `lo[n] = M·n ^ c`, `hi[n] = M·(n << 4)`, so `f(x) = lo[x & 15] ^ hi[x >> 4]`.
    pub fn nibble_tables(&self) -> ([u8; 16], [u8; 16]) {
        let lo = std::array::from_fn(|n| self.apply(n as u8));
        let hi = std::array::from_fn(|n| self.m.apply((n as u8) << 4));
        (lo, hi)
    }

    /// The field isomorphism `T` from GF(2^8)/[`SM4_POLY`] to GF(2^8)/[`AES_POLY`]: `T(x^i) = beta^i` for the
    /// smallest root `beta` of [`SM4_POLY`] in the AES field.
    pub fn field_map() -> Matrix {
        let eval = |beta: u8| {
            let mut acc = 0u8;
            for i in (0..=8).rev() {
                acc = gf_mul(acc, beta, AES_POLY) ^ ((SM4_POLY >> i) & 1) as u8;
            }
            acc
        };
        let beta = (2..=255u8).find(|&b| eval(b) == 0).expect("SM4's polynomial splits in the AES field");
        let mut cols = [0u8; 8];
        let mut p = 1u8;
        for c in cols.iter_mut() {
            *c = p;
            p = gf_mul(p, beta, AES_POLY);
        }
        Matrix(cols)
    }
}

/// `AES_SubBytes(x) = Aaes·inv(x) ^ 0x63` in the AES field (computed, for the derivation and its test).
pub fn aes_sub_byte(x: u8) -> u8 {
    Matrix::circulant(AES_A_ROW).apply(gf_inv(x, AES_POLY)) ^ AES_C
}

/// SM4's S-box from its algebraic description: `A·inv(A·x ^ C) ^ C` modulo [`SM4_POLY`].
pub fn sm4_sub_byte(x: u8) -> u8 {
    let a = Matrix::circulant(SM4_A_ROW);
    a.apply(gf_inv(a.apply(x) ^ SM4_C, SM4_POLY)) ^ SM4_C
}

/// The pre- and post-maps `(f1, f2)` with `S(x) = f2(AES_SubBytes(f1(x)))`:
/// `f1 = T·A·x ^ T·C`, `f2(y) = A·T^-1·Aaes^-1·y ^ (A·T^-1·Aaes^-1·0x63 ^ C)`.
///
/// Derived once per process (the JIT builds kernels at startup) and then copied.
pub fn sbox_affine() -> (Affine, Affine) {
    static MAPS: std::sync::OnceLock<(Affine, Affine)> = std::sync::OnceLock::new();
    *MAPS.get_or_init(derive_sbox_affine)
}

fn derive_sbox_affine() -> (Affine, Affine) {
    let a = Matrix::circulant(SM4_A_ROW);
    let t = Affine::field_map();
    let aaes_inv = Matrix::circulant(AES_A_ROW).inverse();
    let m1 = t.mul(&a);
    let c1 = t.apply(SM4_C);
    let m2 = a.mul(&t.inverse()).mul(&aaes_inv);
    let c2 = m2.apply(AES_C) ^ SM4_C;
    (Affine { m: m1, c: c1 }, Affine { m: m2, c: c2 })
}

/// A plain, table-based SM4 for tests (not constant time).
#[cfg(test)]
pub mod reference {
    use super::{CK, FK, SBOX};

    fn tau(x: u32) -> u32 {
        u32::from_be_bytes(x.to_be_bytes().map(|b| SBOX[b as usize]))
    }

    /// Round keys of `key`.
    pub fn expand(key: &[u8; 16]) -> [u32; 32] {
        let mut k: [u32; 4] = std::array::from_fn(|i| u32::from_be_bytes(key[4 * i..4 * i + 4].try_into().unwrap()));
        for (ki, f) in k.iter_mut().zip(FK) {
            *ki ^= f;
        }
        let mut rk = [0u32; 32];
        for i in 0..32 {
            let b = tau(k[1] ^ k[2] ^ k[3] ^ CK[i]);
            let n = k[0] ^ b ^ b.rotate_left(13) ^ b.rotate_left(23);
            rk[i] = n;
            k = [k[1], k[2], k[3], n];
        }
        rk
    }

    /// Encrypts one block with round keys `rk` (decrypts with them reversed).
    pub fn crypt(rk: &[u32; 32], block: &[u8; 16]) -> [u8; 16] {
        let mut x: [u32; 4] = std::array::from_fn(|i| u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap()));
        for &r in rk {
            let b = tau(x[1] ^ x[2] ^ x[3] ^ r);
            let n = x[0] ^ b ^ b.rotate_left(2) ^ b.rotate_left(10) ^ b.rotate_left(18) ^ b.rotate_left(24);
            x = [x[1], x[2], x[3], n];
        }
        let mut out = [0u8; 16];
        for i in 0..4 {
            out[4 * i..4 * i + 4].copy_from_slice(&x[3 - i].to_be_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> [u8; 16] {
        std::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
    }

    #[test]
    fn algebraic_sbox_is_the_standard_table() {
        for x in 0..=255u8 {
            assert_eq!(sm4_sub_byte(x), SBOX[x as usize], "x = {x:#04x}");
        }
    }

    #[test]
    fn aes_sub_bytes_is_the_standard_one() {
        for (x, y) in [(0x00, 0x63), (0x01, 0x7c), (0x53, 0xed), (0xff, 0x16), (0x10, 0xca)] {
            assert_eq!(aes_sub_byte(x), y);
        }
    }

    #[test]
    fn field_map_is_a_field_isomorphism() {
        let t = Affine::field_map();
        for a in 0..=255u8 {
            for b in [0u8, 1, 2, 0x53, 0x80, 0xa7, 0xff, a.wrapping_mul(31)] {
                assert_eq!(t.apply(gf_mul(a, b, SM4_POLY)), gf_mul(t.apply(a), t.apply(b), AES_POLY));
            }
        }
    }

    #[test]
    fn sm4_sbox_is_affine_image_of_aes_sbox() {
        let (pre, post) = sbox_affine();
        let (plo, phi) = pre.nibble_tables();
        let (qlo, qhi) = post.nibble_tables();
        for x in 0..=255u8 {
            assert_eq!(post.apply(aes_sub_byte(pre.apply(x))), SBOX[x as usize], "x = {x:#04x}");
            // The same through the nibble tables the kernels use.
            let a = plo[(x & 15) as usize] ^ phi[(x >> 4) as usize];
            let s = aes_sub_byte(a);
            assert_eq!(qlo[(s & 15) as usize] ^ qhi[(s >> 4) as usize], SBOX[x as usize]);
        }
    }

    #[test]
    fn ck_matches_the_standard() {
        assert_eq!(CK[0], 0x00070e15);
        assert_eq!(CK[1], 0x1c232a31);
        assert_eq!(CK[31], 0x646b7279);
    }

    #[test]
    fn reference_matches_gbt_32907_examples() {
        let k = hex("0123456789abcdeffedcba9876543210");
        let rk = reference::expand(&k);
        assert_eq!(rk[0], 0xf12186f9);
        assert_eq!(rk[31], 0x9124a012);
        assert_eq!(reference::crypt(&rk, &k), hex("681edf34d206965e86b3e94f536e4246"));
        let mut rev = rk;
        rev.reverse();
        assert_eq!(reference::crypt(&rev, &hex("681edf34d206965e86b3e94f536e4246")), k);
    }
}

/// GFNI (`vgf2p8affineqb`, `vgf2p8affineinvqb`) encodings of the S-box and of the round.
///
/// `vgf2p8affineqb(x, A, b)` computes, for every byte `x` of a qword lane, the byte whose bit `i` is the parity
/// of `A.byte[7 - i] & x`, xored with bit `i` of the immediate `b`: byte `7 - i` of the matrix qword is row `i`.
/// `vgf2p8affineinvqb` first replaces `x` by its inverse in AES's field. So the S-box is two instructions,
/// `S(x) = affineinv(affine(x, M1, c1), M2·Aaes, M2·0x63 ^ c2)`, by [`sbox_affine`] and
/// `AES_SubBytes(y) = Aaes·inv(y) ^ 0x63`.
///
/// The kernels go further ([`GfniRound`](gfni::GfniRound)): they keep the state words in the pre-affine's linear domain
/// (`Y = M1·X` on every byte, a byte-wise linear map, which commutes with the byte rotations of the linear
/// layer), and split `L` into byte-wise linear maps and byte rotations, so that a round is three
/// `vgf2p8affineinvqb` and three `vpshufb` after the xors.
pub mod gfni {
    use super::{gf_inv, sbox_affine, Affine, Matrix, AES_A_ROW, AES_C, AES_POLY};

    /// The qword operand of `vgf2p8affineqb` for `m` (row `i` in byte `7 - i`).
    pub fn qword(m: &Matrix) -> u64 {
        let mut q = 0u64;
        for i in 0..8 {
            let row = (0..8).filter(|&j| m.0[j] >> i & 1 != 0).fold(0u8, |r, j| r | 1 << j);
            q |= (row as u64) << (8 * (7 - i));
        }
        q
    }

    /// A model of `vgf2p8affineqb` on one byte.
    pub fn affine(x: u8, q: u64, c: u8) -> u8 {
        (0..8).fold(c, |acc, i| acc ^ ((((q >> (8 * (7 - i))) as u8 & x).count_ones() as u8 & 1) << i))
    }

    /// A model of `vgf2p8affineinvqb` on one byte.
    pub fn affine_inv(x: u8, q: u64, c: u8) -> u8 {
        affine(gf_inv(x, AES_POLY), q, c)
    }

    /// The two maps of the S-box: `(pre, post)` with `S(x) = post·inv(pre(x))` in AES's field.
    pub fn sbox() -> (Affine, Affine) {
        let (pre, post) = sbox_affine();
        let aaes = Matrix::circulant(AES_A_ROW);
        (pre, Affine { m: post.m.mul(&aaes), c: post.m.apply(AES_C) ^ post.c })
    }

    /// Byte-wise shift left by `n` (bits shifted out are lost).
    fn shl(n: usize) -> Matrix {
        Matrix(std::array::from_fn(|i| if i + n < 8 { 1 << (i + n) } else { 0 }))
    }

    /// Byte-wise shift right by `n`.
    fn shr(n: usize) -> Matrix {
        Matrix(std::array::from_fn(|i| if i >= n { 1 << (i - n) } else { 0 }))
    }

    fn add(a: &Matrix, b: &Matrix) -> Matrix {
        Matrix(std::array::from_fn(|i| a.0[i] ^ b.0[i]))
    }

    /// The maps of a round in the domain `Y = M1·X`.
    ///
    /// With `P` = byte-wise `<< 2` and `Q` = byte-wise `>> 6`, `rol(B, 2) = P·B ^ rol(Q·B, 8)` on a 32-bit word,
    /// so `L(B) = (I+P)·B ^ rol((P+Q)·B, 8) ^ rol((P+Q)·B, 16) ^ rol((I+Q)·B, 24)`. With
    /// `u = Y1 ^ Y2 ^ Y3 ^ (M1·rk ^ c1)` = `pre(X1 ^ X2 ^ X3 ^ rk)` and `B = post·inv(u)`, the new word is
    /// `Y0 ^ M1·L(B)`, each `M1·R·B` being one `vgf2p8affineinvqb(u, M1·R·post.m, M1·R·post.c)`.
    #[derive(Clone, Copy, Debug)]
    pub struct GfniRound {
        /// `rk -> M1·rk ^ c1` (the round key into the domain, constant included).
        pub key: Affine,
        /// `X -> M1·X` (the state into the domain; no constant).
        pub enter: Matrix,
        /// `Y -> M1^-1·Y` (back).
        pub leave: Matrix,
        /// `M1·(I+P)·S`: the unrotated term.
        pub rot0: Affine,
        /// `M1·(P+Q)·S`: rotated by 8 and by 16.
        pub rot8: Affine,
        /// `M1·(I+Q)·S`: rotated by 24.
        pub rot24: Affine,
    }

    /// The round maps (see [`GfniRound`]).
    ///
    /// Derived once per process and then copied.
    pub fn round() -> GfniRound {
        static ROUND: std::sync::OnceLock<GfniRound> = std::sync::OnceLock::new();
        *ROUND.get_or_init(derive_round)
    }

    fn derive_round() -> GfniRound {
        let (pre, post) = sbox();
        let id = Matrix(std::array::from_fn(|i| 1 << i));
        let (p, q) = (shl(2), shr(6));
        let term = |r: Matrix| {
            let m = pre.m.mul(&r);
            Affine { m: m.mul(&post.m), c: m.apply(post.c) }
        };
        GfniRound {
            key: pre,
            enter: pre.m,
            leave: pre.m.inverse(),
            rot0: term(add(&id, &p)),
            rot8: term(add(&p, &q)),
            rot24: term(add(&id, &q)),
        }
    }

    /// The maps of a key-schedule round in the domain `Y = M1·K` (the GFNI key schedule).
    ///
    /// The key schedule's linear layer is `L'(B) = B ^ rol(B, 13) ^ rol(B, 23)`. With `Pn` = byte-wise `<< n`
    /// and `Qn` = byte-wise `>> n`, `rol(B, 5) = P5·B ^ rol(Q3·B, 8)` and `ror(B, 1) = Q1·B ^ rol(P7·B, 24)` on a
    /// 32-bit word, so `L'(B) = B ^ rol(P5·B, 8) ^ rol((Q3+P7)·B, 16) ^ rol(Q1·B, 24)`: four byte-wise linear
    /// maps of `B`, each then rotated by whole bytes. With `u = Y1 ^ Y2 ^ Y3 ^ ck[i]` (`ck` = [`key_ck`]) and
    /// `B = post·inv(u)`, the new word is `Y0 ^ M1·L'(B)`, each `M1·R·B` one `vgf2p8affineinvqb(u, M1·R·post.m,
    /// M1·R·post.c)`.
    #[derive(Clone, Copy, Debug)]
    pub struct GfniKeyRound {
        /// `M1·S`: the unrotated term.
        pub rot0: Affine,
        /// `M1·P5·S`: rotated by 8.
        pub rot8: Affine,
        /// `M1·(Q3+P7)·S`: rotated by 16.
        pub rot16: Affine,
        /// `M1·Q1·S`: rotated by 24.
        pub rot24: Affine,
    }

    /// The byte-wise linear maps of the key schedule's `L'` (see [`GfniKeyRound`]): `I`, `P5`, `Q3+P7` and `Q1`,
    /// whose images of `B` are rotated by 0, 8, 16 and 24 bits.
    pub fn key_linear_maps() -> [Matrix; 4] {
        [Matrix(std::array::from_fn(|i| 1 << i)), shl(5), add(&shr(3), &shl(7)), shr(1)]
    }

    /// The key-schedule round maps (see [`GfniKeyRound`]).
    pub fn key_round() -> GfniKeyRound {
        let (pre, post) = sbox();
        let term = |r: Matrix| {
            let m = pre.m.mul(&r);
            Affine { m: m.mul(&post.m), c: m.apply(post.c) }
        };
        let [rot0, rot8, rot16, rot24] = key_linear_maps().map(term);
        GfniKeyRound { rot0, rot8, rot16, rot24 }
    }

    /// `CK[i]` mapped into the key schedule's domain, constant included: `M1·CK[i] ^ c1` on every byte, so that
    /// `Y1 ^ Y2 ^ Y3 ^ key_ck()[i]` is the S-box's pre-affine image of `K1 ^ K2 ^ K3 ^ CK[i]`.
    pub fn key_ck() -> [u32; 32] {
        let (pre, _) = sbox();
        super::CK.map(|w| u32::from_le_bytes(w.to_le_bytes().map(|x| pre.apply(x))))
    }

    #[cfg(test)]
    mod tests {
        use super::super::{SBOX, SM4_POLY};
        use super::*;

        #[test]
        fn qword_encoding_matches_the_instruction_definition() {
            // The identity is 0x0102040810204080 in Intel's documentation; the AES affine map through
            // affineinv is SubBytes.
            let id = Matrix(std::array::from_fn(|i| 1 << i));
            assert_eq!(qword(&id), 0x0102_0408_1020_4080);
            let aes = qword(&Matrix::circulant(AES_A_ROW));
            assert_eq!(aes, 0xf1e3_c78f_1f3e_7cf8);
            for x in 0..=255u8 {
                assert_eq!(affine(x, qword(&id), 0), x);
                assert_eq!(affine_inv(x, aes, AES_C), super::super::aes_sub_byte(x));
            }
        }

        #[test]
        fn two_instruction_sbox_is_sm4s() {
            let (pre, post) = sbox();
            for x in 0..=255u8 {
                let t = affine(x, qword(&pre.m), pre.c);
                assert_eq!(affine_inv(t, qword(&post.m), post.c), SBOX[x as usize], "x = {x:#04x}");
            }
            let _ = SM4_POLY;
        }

        fn bytes(w: u32, f: impl Fn(u8) -> u8) -> u32 {
            u32::from_le_bytes(w.to_le_bytes().map(f))
        }

        #[test]
        fn round_in_the_domain_is_sm4s_round() {
            let r = round();
            let q = |a: &Affine| (qword(&a.m), a.c);
            let (k, e, l) = (q(&r.key), qword(&r.enter), qword(&r.leave));
            let (r0, r8, r24) = (q(&r.rot0), q(&r.rot8), q(&r.rot24));
            let mut s = 0x1234_5678u32;
            for i in 0..20000u32 {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                let (x0, x123, rk) = (s.rotate_left(7) ^ i, s, s.wrapping_mul(0x9e37_79b9));
                // Reference: X0 ^ L(S(X1 ^ X2 ^ X3 ^ rk)), X123 standing for X1 ^ X2 ^ X3.
                let b = bytes(x123 ^ rk, |v| SBOX[v as usize]);
                let want = x0 ^ b ^ b.rotate_left(2) ^ b.rotate_left(10) ^ b.rotate_left(18) ^ b.rotate_left(24);
                // Kernel: in the domain.
                let y0 = bytes(x0, |v| affine(v, e, 0));
                let y123 = bytes(x123, |v| affine(v, e, 0));
                let u = y123 ^ bytes(rk, |v| affine(v, k.0, k.1));
                let a0 = bytes(u, |v| affine_inv(v, r0.0, r0.1));
                let a8 = bytes(u, |v| affine_inv(v, r8.0, r8.1));
                let a24 = bytes(u, |v| affine_inv(v, r24.0, r24.1));
                let y4 = y0 ^ a0 ^ a8.rotate_left(8) ^ a8.rotate_left(16) ^ a24.rotate_left(24);
                assert_eq!(bytes(y4, |v| affine(v, l, 0)), want);
            }
        }

        /// The GFNI key schedule as the kernel runs it (the words in the domain, `key_ck`, the four terms of
        /// [`key_round`] rotated by whole bytes) gives the reference's round keys.
        #[test]
        fn key_schedule_in_the_domain_is_sm4s() {
            let r = round();
            let kr = key_round();
            let (e, l) = (qword(&r.enter), qword(&r.leave));
            let terms = [kr.rot0, kr.rot8, kr.rot16, kr.rot24].map(|a| (qword(&a.m), a.c));
            let ck = key_ck();
            let mut s = 0x0bad_5eedu32;
            for _ in 0..200 {
                let key: [u8; 16] = std::array::from_fn(|_| {
                    s ^= s << 13;
                    s ^= s >> 17;
                    s ^= s << 5;
                    s as u8
                });
                let want = super::super::reference::expand(&key);
                let mut y: [u32; 4] = std::array::from_fn(|i| {
                    let k = u32::from_be_bytes(key[4 * i..4 * i + 4].try_into().unwrap()) ^ super::super::FK[i];
                    bytes(k, |v| affine(v, e, 0))
                });
                for (i, &w) in want.iter().enumerate() {
                    let u = y[1] ^ y[2] ^ y[3] ^ ck[i];
                    let mut n = y[0];
                    for (k, &(m, c)) in terms.iter().enumerate() {
                        n ^= bytes(u, |v| affine_inv(v, m, c)).rotate_left(8 * k as u32);
                    }
                    y = [y[1], y[2], y[3], n];
                    assert_eq!(bytes(n, |v| affine(v, l, 0)), w, "round key {i} of {key:02x?}");
                }
            }
        }
    }
}

/// A batch mode kernel's parameter registers: `(rk, dst, src, nblocks, ctr or iv)`, the last `None` for ECB.
pub type BatchParams<R> = (R, R, R, R, Option<R>);

/// A serial mode kernel's parameter registers: `(rk, dst, src, nblocks, iv or mac)`, `dst` `None` for CBC-MAC.
pub type SerialParams<R> = (R, Option<R>, R, R, R);

/// The parallel modes every ISA lists: what a batch feeds the cipher and xors into the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `dst[i] = E(src[i])`.
    Ecb,
    /// `dst[i] = src[i] ^ E(ctr + i)`.
    Ctr,
    /// `dst[i] = D(src[i]) ^ src[i-1]` (`src[-1]` = iv).
    CbcDec,
    /// `dst[i] = src[i] ^ E(src[i-1])`.
    CfbDec,
}

impl Mode {
    /// The four, in listing order.
    pub const ALL: [Mode; 4] = [Mode::Ecb, Mode::Ctr, Mode::CbcDec, Mode::CfbDec];

    /// The name in the function's symbol.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Ecb => "ecb",
            Mode::Ctr => "ctr",
            Mode::CbcDec => "cbc_dec",
            Mode::CfbDec => "cfb_dec",
        }
    }

    /// The description of the function (its role's, shared by every ISA).
    pub fn doc(self) -> &'static str {
        crate::Role::from(self).doc().expect("the block modes' roles have a shared doc line")
    }

    /// Declares the kernel's parameters from its role: `(rk, dst, src, nblocks, ctr or iv)`, the last `None` for
    /// ECB (which has four).
    pub fn params<I: asmgen::Isa>(self, b: &mut asmgen::Builder<I>) -> BatchParams<I::Gpr> {
        if self == Mode::Ecb {
            let [rk, dst, src, n] = crate::role::params(b, self.into());
            (rk, dst, src, n, None)
        } else {
            let [rk, dst, src, n, extra] = crate::role::params(b, self.into());
            (rk, dst, src, n, Some(extra))
        }
    }

    /// Whether the mode chains through an IV.
    pub fn chains(self) -> bool {
        matches!(self, Mode::CbcDec | Mode::CfbDec)
    }
}

/// The serial modes every ISA lists, one block at a time (each block depends on the previous).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Serial {
    /// CBC encryption.
    CbcEnc,
    /// CFB-128 encryption.
    CfbEnc,
    /// `mac = E(mac ^ block)`.
    CbcMac,
}

impl Serial {
    /// The three, in listing order.
    pub const ALL: [Serial; 3] = [Serial::CbcEnc, Serial::CfbEnc, Serial::CbcMac];

    /// The name in the function's symbol.
    pub fn name(self) -> &'static str {
        self.role().name()
    }

    /// The kernel role.
    pub fn role(self) -> crate::Role {
        match self {
            Serial::CbcEnc => crate::Role::CbcEnc,
            Serial::CfbEnc => crate::Role::CfbEnc,
            Serial::CbcMac => crate::Role::CbcMac,
        }
    }

    /// Declares the kernel's parameters from its role: `(rk, dst, src, nblocks, state)` with `state` the iv, or
    /// the mac for CBC-MAC (which has no `dst`).
    pub fn params<I: asmgen::Isa>(self, b: &mut asmgen::Builder<I>) -> SerialParams<I::Gpr> {
        if self == Serial::CbcMac {
            let [rk, mac, src, n] = crate::role::params(b, self.role());
            (rk, None, src, n, mac)
        } else {
            let [rk, dst, src, n, iv] = crate::role::params(b, self.role());
            (rk, Some(dst), src, n, iv)
        }
    }

    /// The description of the function (its role's, shared by every ISA).
    pub fn doc(self) -> &'static str {
        self.role().doc().expect("the serial modes' roles have a shared doc line")
    }
}

impl From<Mode> for crate::Role {
    fn from(m: Mode) -> crate::Role {
        use crate::Role;
        match m {
            Mode::Ecb => Role::Ecb,
            Mode::Ctr => Role::Ctr,
            Mode::CbcDec => Role::CbcDec,
            Mode::CfbDec => Role::CfbDec,
        }
    }
}
