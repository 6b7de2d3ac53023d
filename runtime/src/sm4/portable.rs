//! The portable SM4 backend: constant-time Rust with the same C ABI as the listings' kernels.
//!
//! No table is indexed by secret data and no branch depends on it. The S-box is computed as a circuit on
//! bit planes ("bitslicing"): sixteen blocks are processed at once, each 32-bit word of the state held as
//! eight `u64` planes (plane `b` holds bit `b` of every byte; bit position `16 * j + lane` is byte `j`,
//! big-endian, of lane `lane`). The S-box is `S(x) = A * inv(A * x + 0xd3) + 0xd3` with `inv` the inverse in
//! GF(2^8) modulo x^8+x^7+x^6+x^5+x^4+x^2+1 (computed as x^254 with four multiplications and seven
//! squarings) and `A` the circulant bit matrix of row `0xa7` (a unit test checks all 256 inputs against the
//! standard's table). Rotations of the linear layer are plane moves and 16-bit rotations of the planes.
//!
//! Cost: about 1,000 simple 64-bit operations per round for sixteen blocks, so roughly 40 cycles per byte on
//! parallel modes (ECB, CTR, CBC/CFB decryption, XTS, GCM) and sixteen times that per byte on serial ones
//! (CBC/CFB encryption, the MACs), which pay a full batch for every block.

// Block-index loops over several parallel arrays read more plainly with indices.
#![allow(clippy::needless_range_loop)]

use zeroize::Zeroize;

/// The family key of the key schedule (GB/T 32907).
const FK: [u32; 4] = [0xa3b1_bac6, 0x56aa_3350, 0x677d_9197, 0xb270_22dc];

/// The key schedule constants: byte `j` of `CK[i]` is `(4 * i + j) * 7 mod 256`.
const CK: [u32; 32] = {
    let mut ck = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        let mut j = 0;
        while j < 4 {
            ck[i] |= ((((4 * i + j) * 7) % 256) as u32) << (24 - 8 * j);
            j += 1;
        }
        i += 1;
    }
    ck
};

/// Rows of the S-box's affine matrix: output bit `i` is the parity of `input & A_ROWS[i]`.
const A_ROWS: [u8; 8] = {
    let mut r = [0u8; 8];
    let mut i = 0;
    while i < 8 {
        r[i] = 0xa7u8.rotate_left(i as u32);
        i += 1;
    }
    r
};

/// The affine constant of the S-box.
const A_CONST: u8 = 0xd3;

/// Eight bit planes.
type Planes = [u64; 8];

/// `A * x + 0xd3` on bit planes (branches depend on the constant matrix only).
#[inline(always)]
fn affine(x: &Planes) -> Planes {
    let mut o = [0u64; 8];
    for (i, out) in o.iter_mut().enumerate() {
        let mut acc = 0u64.wrapping_sub(u64::from(A_CONST >> i & 1));
        for (j, plane) in x.iter().enumerate() {
            if A_ROWS[i] >> j & 1 == 1 {
                acc ^= plane;
            }
        }
        *out = acc;
    }
    o
}

/// Reduces a 15-plane product modulo x^8 = x^7+x^6+x^5+x^4+x^2+1.
#[inline(always)]
fn reduce(t: &mut [u64; 15]) -> Planes {
    for k in (8..15).rev() {
        let v = t[k];
        t[k - 1] ^= v;
        t[k - 2] ^= v;
        t[k - 3] ^= v;
        t[k - 4] ^= v;
        t[k - 6] ^= v;
        t[k - 8] ^= v;
    }
    [t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]]
}

/// Product in GF(2^8), plane-wise.
#[inline(always)]
fn gmul(a: &Planes, b: &Planes) -> Planes {
    let mut t = [0u64; 15];
    for i in 0..8 {
        for j in 0..8 {
            t[i + j] ^= a[i] & b[j];
        }
    }
    reduce(&mut t)
}

/// Square in GF(2^8) (a linear map), plane-wise.
#[inline(always)]
fn gsq(a: &Planes) -> Planes {
    let mut t = [0u64; 15];
    for i in 0..8 {
        t[2 * i] = a[i];
    }
    reduce(&mut t)
}

/// `x^254` (the inverse, with 0 mapped to 0).
#[inline(always)]
fn ginv(x: &Planes) -> Planes {
    let x2 = gsq(x);
    let x3 = gmul(&x2, x);
    let x12 = gsq(&gsq(&x3));
    let x14 = gmul(&x12, &x2);
    let x15 = gmul(&x12, &x3);
    let x240 = gsq(&gsq(&gsq(&gsq(&x15))));
    gmul(&x240, &x14)
}

/// The S-box on every byte of the planes.
#[inline(always)]
fn sbox(x: &Planes) -> Planes {
    affine(&ginv(&affine(x)))
}

/// `L(B) = B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24)` on the sixteen-lane layout.
#[inline(always)]
fn linear(s: &Planes) -> Planes {
    // B <<< 2: bits 0..6 of a byte move up two planes; bits 6 and 7 move to the next more significant byte
    // (byte index - 1, i.e. 16 positions down, cyclically).
    let r2 = [s[6].rotate_right(16), s[7].rotate_right(16), s[0], s[1], s[2], s[3], s[4], s[5]];
    let mut o = [0u64; 8];
    for b in 0..8 {
        o[b] = s[b] ^ r2[b] ^ r2[b].rotate_right(16) ^ r2[b].rotate_right(32) ^ s[b].rotate_right(48);
    }
    o
}

/// Transposes an 8x8 bit matrix (bit `8r + c` <-> bit `8c + r`).
#[inline(always)]
fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00aa_00aa_00aa_00aa;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_cccc_0000_cccc;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_f0f0_f0f0;
    x ^= t ^ (t << 28);
    x
}

/// The S-box on the four bytes of a word (key schedule), with the same circuit.
fn tau(v: u32) -> u32 {
    let mut p = [0u64; 8];
    for (b, plane) in p.iter_mut().enumerate() {
        for j in 0..4 {
            *plane |= u64::from(v >> (8 * j + b) & 1) << j;
        }
    }
    let s = sbox(&p);
    let mut r = 0u32;
    for (b, plane) in s.iter().enumerate() {
        for j in 0..4 {
            r |= ((plane >> j & 1) as u32) << (8 * j + b);
        }
    }
    r
}

/// Number of blocks processed together.
pub(crate) const LANES: usize = 16;

/// Round keys spread over bit planes (each key byte's bit broadcast to the sixteen lanes of its byte).
struct Schedule([Planes; 32]);

impl Schedule {
    /// From the C ABI's 128-byte round keys (32 little-endian words).
    fn load(rk: *const u8) -> Schedule {
        // SAFETY: the contract of every kernel: `rk` points to 128 readable bytes.
        let bytes: [u8; 128] = unsafe { core::ptr::read_unaligned(rk as *const [u8; 128]) };
        let mut s = Schedule([[0; 8]; 32]);
        for (i, planes) in s.0.iter_mut().enumerate() {
            let k = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap_or([0; 4]));
            for (b, plane) in planes.iter_mut().enumerate() {
                for j in 0..4 {
                    let bit = u64::from(k >> (24 - 8 * j + b) & 1);
                    *plane |= (0xffff & 0u64.wrapping_sub(bit)) << (16 * j);
                }
            }
        }
        s
    }

    /// Encrypts (or, with reversed keys, decrypts) sixteen blocks.
    fn crypt(&self, blocks: &mut [[u8; 16]; LANES]) {
        let mut x = [[0u64; 8]; 4];
        for (w, word) in x.iter_mut().enumerate() {
            for j in 0..4 {
                let (mut lo, mut hi) = (0u64, 0u64);
                for k in 0..8 {
                    lo |= u64::from(blocks[k][4 * w + j]) << (8 * k);
                    hi |= u64::from(blocks[8 + k][4 * w + j]) << (8 * k);
                }
                let (lo, hi) = (transpose8(lo), transpose8(hi));
                for (b, plane) in word.iter_mut().enumerate() {
                    *plane |= ((lo >> (8 * b) & 0xff) | (hi >> (8 * b) & 0xff) << 8) << (16 * j);
                }
            }
        }
        for (i, rk) in self.0.iter().enumerate() {
            let mut t = [0u64; 8];
            for b in 0..8 {
                t[b] = x[(i + 1) % 4][b] ^ x[(i + 2) % 4][b] ^ x[(i + 3) % 4][b] ^ rk[b];
            }
            let l = linear(&sbox(&t));
            for b in 0..8 {
                x[i % 4][b] ^= l[b];
            }
        }
        for w in 0..4 {
            let src = &x[3 - w];
            for j in 0..4 {
                let (mut lo, mut hi) = (0u64, 0u64);
                for (b, plane) in src.iter().enumerate() {
                    let v = plane >> (16 * j);
                    lo |= (v & 0xff) << (8 * b);
                    hi |= (v >> 8 & 0xff) << (8 * b);
                }
                let (lo, hi) = (transpose8(lo), transpose8(hi));
                for k in 0..8 {
                    blocks[k][4 * w + j] = (lo >> (8 * k)) as u8;
                    blocks[8 + k][4 * w + j] = (hi >> (8 * k)) as u8;
                }
            }
        }
        x.zeroize();
    }

    /// Encrypts one block.
    fn crypt1(&self, block: [u8; 16]) -> [u8; 16] {
        let mut b = [[0u8; 16]; LANES];
        b[0] = block;
        self.crypt(&mut b);
        let r = b[0];
        b.zeroize();
        r
    }
}

impl Drop for Schedule {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

/// Reads 16 bytes.
///
/// # Safety
/// `p` must point to 16 readable bytes.
#[inline(always)]
unsafe fn ld(p: *const u8) -> [u8; 16] {
    core::ptr::read_unaligned(p as *const [u8; 16])
}

/// Writes 16 bytes.
///
/// # Safety
/// `p` must point to 16 writable bytes.
#[inline(always)]
unsafe fn st(p: *mut u8, v: [u8; 16]) {
    core::ptr::write_unaligned(p as *mut [u8; 16], v)
}

#[inline(always)]
fn xor(a: [u8; 16], b: [u8; 16]) -> [u8; 16] {
    let mut r = [0u8; 16];
    for i in 0..16 {
        r[i] = a[i] ^ b[i];
    }
    r
}

/// Runs `f(first, count)` over `n` blocks in batches of at most [`LANES`].
#[inline(always)]
fn batches(n: usize, mut f: impl FnMut(usize, usize)) {
    let mut i = 0;
    while i < n {
        let m = (n - i).min(LANES);
        f(i, m);
        i += m;
    }
}

/// The key schedule: round keys for encryption and (reversed) decryption.
pub(crate) unsafe extern "C" fn expand_key(rk_enc: *mut u8, rk_dec: *mut u8, key: *const u8) {
    let mk = ld(key);
    let mut k = [0u32; 4];
    for i in 0..4 {
        k[i] = u32::from_be_bytes([mk[4 * i], mk[4 * i + 1], mk[4 * i + 2], mk[4 * i + 3]]) ^ FK[i];
    }
    let mut rk = [0u32; 32];
    for i in 0..32 {
        let t = tau(k[(i + 1) % 4] ^ k[(i + 2) % 4] ^ k[(i + 3) % 4] ^ CK[i]);
        k[i % 4] ^= t ^ t.rotate_left(13) ^ t.rotate_left(23);
        rk[i] = k[i % 4];
    }
    for i in 0..32 {
        core::ptr::write_unaligned(rk_enc.add(4 * i) as *mut [u8; 4], rk[i].to_le_bytes());
        core::ptr::write_unaligned(rk_dec.add(4 * i) as *mut [u8; 4], rk[31 - i].to_le_bytes());
    }
    k.zeroize();
    rk.zeroize();
}

/// ECB: each block through the cipher (`rk` decides the direction).
pub(crate) unsafe extern "C" fn ecb(rk: *const u8, dst: *mut u8, src: *const u8, nblocks: usize) {
    let s = Schedule::load(rk);
    let mut b = [[0u8; 16]; LANES];
    batches(nblocks, |i, m| {
        for k in 0..m {
            b[k] = ld(src.add(16 * (i + k)));
        }
        s.crypt(&mut b);
        for k in 0..m {
            st(dst.add(16 * (i + k)), b[k]);
        }
    });
    b.zeroize();
}

/// CTR with a 128-bit big-endian counter, advanced by `nblocks` (mod 2^128).
pub(crate) unsafe extern "C" fn ctr(rk: *const u8, dst: *mut u8, src: *const u8, nblocks: usize, ctr: *mut u8) {
    let s = Schedule::load(rk);
    let mut c = u128::from_be_bytes(ld(ctr));
    let mut b = [[0u8; 16]; LANES];
    batches(nblocks, |i, m| {
        for (k, blk) in b.iter_mut().enumerate().take(m) {
            *blk = c.wrapping_add(k as u128).to_be_bytes();
        }
        c = c.wrapping_add(m as u128);
        s.crypt(&mut b);
        for (k, ks) in b.iter().enumerate().take(m) {
            st(dst.add(16 * (i + k)), xor(ld(src.add(16 * (i + k))), *ks));
        }
    });
    b.zeroize();
    st(ctr, c.to_be_bytes());
}

/// CBC encryption; `iv` becomes the last ciphertext block.
pub(crate) unsafe extern "C" fn cbc_enc(rk: *const u8, dst: *mut u8, src: *const u8, nblocks: usize, iv: *mut u8) {
    let s = Schedule::load(rk);
    let mut v = ld(iv);
    for i in 0..nblocks {
        v = s.crypt1(xor(v, ld(src.add(16 * i))));
        st(dst.add(16 * i), v);
    }
    st(iv, v);
}

/// CBC decryption with the decryption round keys; `iv` becomes the last ciphertext block.
pub(crate) unsafe extern "C" fn cbc_dec(rk_dec: *const u8, dst: *mut u8, src: *const u8, nblocks: usize, iv: *mut u8) {
    let s = Schedule::load(rk_dec);
    let mut prev = ld(iv);
    let mut b = [[0u8; 16]; LANES];
    let mut c = [[0u8; 16]; LANES];
    batches(nblocks, |i, m| {
        for k in 0..m {
            c[k] = ld(src.add(16 * (i + k)));
            b[k] = c[k];
        }
        s.crypt(&mut b);
        for k in 0..m {
            st(dst.add(16 * (i + k)), xor(b[k], if k == 0 { prev } else { c[k - 1] }));
        }
        prev = c[m - 1];
    });
    b.zeroize();
    st(iv, prev);
}

/// CFB encryption; `iv` becomes the last ciphertext block.
pub(crate) unsafe extern "C" fn cfb_enc(rk: *const u8, dst: *mut u8, src: *const u8, nblocks: usize, iv: *mut u8) {
    let s = Schedule::load(rk);
    let mut v = ld(iv);
    for i in 0..nblocks {
        v = xor(s.crypt1(v), ld(src.add(16 * i)));
        st(dst.add(16 * i), v);
    }
    st(iv, v);
}

/// CFB decryption (encryption round keys); `iv` becomes the last ciphertext block.
pub(crate) unsafe extern "C" fn cfb_dec(rk: *const u8, dst: *mut u8, src: *const u8, nblocks: usize, iv: *mut u8) {
    let s = Schedule::load(rk);
    let mut prev = ld(iv);
    let mut b = [[0u8; 16]; LANES];
    let mut c = [[0u8; 16]; LANES];
    batches(nblocks, |i, m| {
        for k in 0..m {
            c[k] = ld(src.add(16 * (i + k)));
            b[k] = if k == 0 { prev } else { c[k - 1] };
        }
        s.crypt(&mut b);
        for k in 0..m {
            st(dst.add(16 * (i + k)), xor(b[k], c[k]));
        }
        prev = c[m - 1];
    });
    b.zeroize();
    st(iv, prev);
}

/// CBC-MAC: `mac = E(mac ^ block)` for each block.
pub(crate) unsafe extern "C" fn cbc_mac(rk: *const u8, mac: *mut u8, src: *const u8, nblocks: usize) {
    let s = Schedule::load(rk);
    let mut v = ld(mac);
    for i in 0..nblocks {
        v = s.crypt1(xor(v, ld(src.add(16 * i))));
    }
    st(mac, v);
}

/// The next XTS tweak: multiplication by x, IEEE 1619 (little-endian, 0x87) or GB/T 17964 (bit-reflected,
/// big-endian, 0xe1 into the first byte). Constant-time.
#[inline(always)]
pub(crate) fn xts_next(t: [u8; 16], gb: bool) -> [u8; 16] {
    if gb {
        let v = u128::from_be_bytes(t);
        let carry = 0u128.wrapping_sub(v & 1);
        ((v >> 1) ^ (carry & (0xe1u128 << 120))).to_be_bytes()
    } else {
        let v = u128::from_le_bytes(t);
        let carry = 0u128.wrapping_sub(v >> 127);
        ((v << 1) ^ (carry & 0x87)).to_le_bytes()
    }
}

/// XTS on whole blocks: `dst = E(src ^ T) ^ T` with `T` stepping from `*tweak`, which ends as the next
/// block's tweak.
unsafe fn xts(rk: *const u8, dst: *mut u8, src: *const u8, nblocks: usize, tweak: *mut u8, gb: bool) {
    let s = Schedule::load(rk);
    let mut t = ld(tweak);
    let mut b = [[0u8; 16]; LANES];
    let mut tw = [[0u8; 16]; LANES];
    batches(nblocks, |i, m| {
        for k in 0..m {
            tw[k] = t;
            t = xts_next(t, gb);
            b[k] = xor(ld(src.add(16 * (i + k))), tw[k]);
        }
        s.crypt(&mut b);
        for k in 0..m {
            st(dst.add(16 * (i + k)), xor(b[k], tw[k]));
        }
    });
    b.zeroize();
    tw.zeroize();
    st(tweak, t);
    t.zeroize();
}

/// XTS (IEEE 1619) encryption of whole blocks; `rk1` is the data key's encryption schedule.
pub(crate) unsafe extern "C" fn xts_enc_ieee(rk1: *const u8, dst: *mut u8, src: *const u8, n: usize, tweak: *mut u8) {
    xts(rk1, dst, src, n, tweak, false)
}
/// XTS (IEEE 1619) decryption of whole blocks; `rk1` is the data key's decryption schedule.
pub(crate) unsafe extern "C" fn xts_dec_ieee(rk1: *const u8, dst: *mut u8, src: *const u8, n: usize, tweak: *mut u8) {
    xts(rk1, dst, src, n, tweak, false)
}
/// XTS (GB/T 17964) encryption of whole blocks; `rk1` is the data key's encryption schedule.
pub(crate) unsafe extern "C" fn xts_enc_gb(rk1: *const u8, dst: *mut u8, src: *const u8, n: usize, tweak: *mut u8) {
    xts(rk1, dst, src, n, tweak, true)
}
/// XTS (GB/T 17964) decryption of whole blocks; `rk1` is the data key's decryption schedule.
pub(crate) unsafe extern "C" fn xts_dec_gb(rk1: *const u8, dst: *mut u8, src: *const u8, n: usize, tweak: *mut u8) {
    xts(rk1, dst, src, n, tweak, true)
}

/// GCM over whole blocks: CTR with inc32 (the low 32 bits wrap, the first 12 bytes stay), and GHASH absorbs the
/// ciphertext (the output when encrypting, the input when decrypting). `state` is the counter block followed by
/// the GHASH state (the kernels' ABI).
unsafe fn gcm(rk: *const u8, htable: *const u8, dst: *mut u8, src: *const u8, n: usize, state: *mut u8, dec: bool) {
    let (ctr, ghash) = (state, state.add(16));
    let s = Schedule::load(rk);
    let c0 = ld(ctr);
    let mut low = u32::from_be_bytes([c0[12], c0[13], c0[14], c0[15]]);
    let mut b = [[0u8; 16]; LANES];
    let mut data = [[0u8; 16]; LANES];
    batches(n, |i, m| {
        for k in 0..m {
            b[k] = c0;
            b[k][12..].copy_from_slice(&low.wrapping_add(k as u32).to_be_bytes());
            data[k] = ld(src.add(16 * (i + k)));
        }
        low = low.wrapping_add(m as u32);
        if dec {
            crate::ghash::portable::ghash_update(ghash, htable, data.as_ptr().cast(), m);
        }
        s.crypt(&mut b);
        for k in 0..m {
            data[k] = xor(data[k], b[k]);
            st(dst.add(16 * (i + k)), data[k]);
        }
        if !dec {
            crate::ghash::portable::ghash_update(ghash, htable, data.as_ptr().cast(), m);
        }
    });
    b.zeroize();
    data.zeroize();
    let mut c = c0;
    c[12..].copy_from_slice(&low.to_be_bytes());
    st(ctr, c);
}

/// GCM encryption of whole blocks ([`gcm`]: GHASH absorbs the ciphertext written).
pub(crate) unsafe extern "C" fn gcm_enc(
    rk: *const u8,
    htable: *const u8,
    dst: *mut u8,
    src: *const u8,
    nblocks: usize,
    state: *mut u8,
) {
    gcm(rk, htable, dst, src, nblocks, state, false)
}

/// GCM decryption of whole blocks ([`gcm`]: GHASH absorbs the ciphertext read).
pub(crate) unsafe extern "C" fn gcm_dec(
    rk: *const u8,
    htable: *const u8,
    dst: *mut u8,
    src: *const u8,
    nblocks: usize,
    state: *mut u8,
) {
    gcm(rk, htable, dst, src, nblocks, state, true)
}

/// CCM encryption of whole blocks: CBC-MAC of the plaintext and CTR (128-bit counter), one batch per block.
pub(crate) unsafe extern "C" fn ccm_enc(
    rk: *const u8,
    dst: *mut u8,
    src: *const u8,
    nblocks: usize,
    ctr: *mut u8,
    mac: *mut u8,
) {
    let s = Schedule::load(rk);
    let mut c = u128::from_be_bytes(ld(ctr));
    let mut v = ld(mac);
    let mut b = [[0u8; 16]; LANES];
    for i in 0..nblocks {
        let p = ld(src.add(16 * i));
        b[0] = xor(v, p);
        b[1] = c.to_be_bytes();
        c = c.wrapping_add(1);
        s.crypt(&mut b);
        v = b[0];
        st(dst.add(16 * i), xor(p, b[1]));
    }
    b.zeroize();
    st(ctr, c.to_be_bytes());
    st(mac, v);
}

/// CCM decryption of whole blocks: CTR (128-bit counter), then CBC-MAC of the recovered plaintext.
pub(crate) unsafe extern "C" fn ccm_dec(
    rk: *const u8,
    dst: *mut u8,
    src: *const u8,
    nblocks: usize,
    ctr: *mut u8,
    mac: *mut u8,
) {
    let s = Schedule::load(rk);
    let mut c = u128::from_be_bytes(ld(ctr));
    let mut v = ld(mac);
    let mut b = [[0u8; 16]; LANES];
    batches(nblocks, |i, m| {
        for (k, blk) in b.iter_mut().enumerate().take(m) {
            *blk = c.wrapping_add(k as u128).to_be_bytes();
        }
        c = c.wrapping_add(m as u128);
        s.crypt(&mut b);
        for k in 0..m {
            let p = xor(ld(src.add(16 * (i + k))), b[k]);
            st(dst.add(16 * (i + k)), p);
            v = s.crypt1(xor(v, p));
        }
    });
    b.zeroize();
    st(ctr, c.to_be_bytes());
    st(mac, v);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The S-box of GB/T 32907-2016, row by row.
    const SBOX: [u8; 256] = [
        0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05, 0x2b, 0x67,
        0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86, 0x06, 0x99, 0x9c, 0x42, 0x50, 0xf4,
        0x91, 0xef, 0x98, 0x7a, 0x33, 0x54, 0x0b, 0x43, 0xed, 0xcf, 0xac, 0x62, 0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08,
        0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa, 0x75, 0x8f, 0x3f, 0xa6, 0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba,
        0x83, 0x59, 0x3c, 0x19, 0xe6, 0x85, 0x4f, 0xa8, 0x68, 0x6b, 0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb,
        0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35, 0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25, 0x22, 0x7c, 0x3b,
        0x01, 0x21, 0x78, 0x87, 0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52, 0x4c, 0x36, 0x02, 0xe7, 0xa0, 0xc4,
        0xc8, 0x9e, 0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38, 0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1,
        0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34, 0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3, 0x1d, 0xf6,
        0xe2, 0x2e, 0x82, 0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f, 0xd5, 0xdb, 0x37, 0x45,
        0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51, 0x8d, 0x1b, 0xaf, 0x92, 0xbb, 0xdd,
        0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f, 0x10, 0x5a, 0xd8, 0x0a, 0xc1, 0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd,
        0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0, 0x89, 0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9,
        0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84, 0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e,
        0xd7, 0xcb, 0x39, 0x48,
    ];

    #[test]
    fn sbox_circuit_matches_the_standard_table() {
        for x in 0..=255u32 {
            let v = x | (x ^ 0x5a) << 8 | (255 - x) << 16 | ((x * 7) & 0xff) << 24;
            let want = u32::from_le_bytes([
                SBOX[x as usize],
                SBOX[(x ^ 0x5a) as usize],
                SBOX[(255 - x) as usize],
                SBOX[((x * 7) & 0xff) as usize],
            ]);
            assert_eq!(tau(v), want, "input {x:#04x}");
        }
    }

    #[test]
    fn transpose8_is_a_transpose() {
        let mut s = 0x0123_4567_89ab_cdefu64;
        for _ in 0..100 {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = transpose8(s);
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!(t >> (8 * c + r) & 1, s >> (8 * r + c) & 1);
                }
            }
        }
    }

    /// Reference: the plain round function on one block, with the table (test only).
    fn reference(rk: &[u32; 32], block: [u8; 16]) -> [u8; 16] {
        let t = |v: u32| {
            let b = v.to_be_bytes().map(|x| SBOX[x as usize]);
            let s = u32::from_be_bytes(b);
            s ^ s.rotate_left(2) ^ s.rotate_left(10) ^ s.rotate_left(18) ^ s.rotate_left(24)
        };
        let mut x = [0u32; 4];
        for i in 0..4 {
            x[i] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
        }
        for i in 0..32 {
            x[i % 4] ^= t(x[(i + 1) % 4] ^ x[(i + 2) % 4] ^ x[(i + 3) % 4] ^ rk[i]);
        }
        let mut out = [0u8; 16];
        for i in 0..4 {
            out[4 * i..4 * i + 4].copy_from_slice(&x[3 - i].to_be_bytes());
        }
        out
    }

    #[test]
    fn sixteen_lanes_match_the_plain_round_function() {
        let key = *b"0123456789abcdef";
        let (mut enc, mut dec) = ([0u8; 128], [0u8; 128]);
        unsafe { expand_key(enc.as_mut_ptr(), dec.as_mut_ptr(), key.as_ptr()) };
        let rk: [u32; 32] = core::array::from_fn(|i| u32::from_le_bytes(enc[4 * i..4 * i + 4].try_into().unwrap()));
        let mut blocks = [[0u8; 16]; LANES];
        for (k, b) in blocks.iter_mut().enumerate() {
            for (i, x) in b.iter_mut().enumerate() {
                *x = (k * 37 + i * 11 + 5) as u8;
            }
        }
        let want = blocks.map(|b| reference(&rk, b));
        let s = Schedule::load(enc.as_ptr());
        let mut got = blocks;
        s.crypt(&mut got);
        assert_eq!(got, want);
        Schedule::load(dec.as_ptr()).crypt(&mut got);
        assert_eq!(got, blocks);
    }

    #[test]
    fn gbt32907_example() {
        let k = [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10];
        let (mut enc, mut dec) = ([0u8; 128], [0u8; 128]);
        unsafe { expand_key(enc.as_mut_ptr(), dec.as_mut_ptr(), k.as_ptr()) };
        let c = Schedule::load(enc.as_ptr()).crypt1(k);
        let want = [0x68, 0x1e, 0xdf, 0x34, 0xd2, 0x06, 0x96, 0x5e, 0x86, 0xb3, 0xe9, 0x4f, 0x53, 0x6e, 0x42, 0x46];
        assert_eq!(c, want);
        assert_eq!(Schedule::load(dec.as_ptr()).crypt1(c), k);
    }
}
