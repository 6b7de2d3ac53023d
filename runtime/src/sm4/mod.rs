//! SM4 (GB/T 32907-2016): the block cipher, its modes, MACs and AEADs over the dispatched kernels.
//!
//! Every type holds round keys (zeroised on drop) and a `&'static` kernel set; see [`sm4_backends`] and
//! each type's `with_backend` for tests and benchmarks that compare backends.

mod aead_impls;
mod cipher_impls;
pub(crate) mod dispatch;
pub(crate) mod portable;

use crate::Error;
pub use dispatch::sm4_backend_table;
use dispatch::Sm4Kernels;
use zeroize::{Zeroize, Zeroizing};

/// Names of the SM4 backends this CPU can run, portable first, best last.
pub fn sm4_backends() -> Vec<&'static str> {
    sm4_backend_table().into_iter().filter(|(_, ok)| *ok).map(|(n, _)| n).collect()
}

/// 32 round keys as the kernels take them: little-endian 32-bit words, 128 bytes.
#[derive(Clone)]
#[repr(C, align(16))]
struct RoundKeys([u8; 128]);

impl RoundKeys {
    fn ptr(&self) -> *const u8 {
        self.0.as_ptr()
    }
}

impl Drop for RoundKeys {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

/// A key schedule in both directions on one kernel set.
#[derive(Clone)]
struct Keys {
    k: &'static Sm4Kernels,
    enc: RoundKeys,
    dec: RoundKeys,
}

impl Keys {
    fn new(k: &'static Sm4Kernels, key: &[u8; 16]) -> Keys {
        let mut enc = RoundKeys([0; 128]);
        let mut dec = RoundKeys([0; 128]);
        // SAFETY: 128 writable bytes each and a 16-byte key, as the kernels' contract asks.
        unsafe { (k.expand_key)(enc.0.as_mut_ptr(), dec.0.as_mut_ptr(), key.as_ptr()) };
        Keys { k, enc, dec }
    }

    /// ECB over whole blocks in place (`decrypt` picks the schedule).
    fn ecb(&self, buf: &mut [u8], decrypt: bool) {
        debug_assert_eq!(buf.len() % 16, 0);
        let rk = if decrypt { &self.dec } else { &self.enc };
        let n = buf.len() / 16;
        // SAFETY: `buf` holds `16 * n` bytes; source and destination alias exactly, which the kernels allow.
        unsafe { (self.k.ecb)(rk.ptr(), buf.as_mut_ptr(), buf.as_ptr(), n) }
    }

    /// ECB over whole blocks in place with the given schedule.
    fn ecb_rk(&self, rk: &RoundKeys, buf: &mut [u8]) {
        debug_assert_eq!(buf.len() % 16, 0);
        // SAFETY: as in `ecb`.
        unsafe { (self.k.ecb)(rk.ptr(), buf.as_mut_ptr(), buf.as_ptr(), buf.len() / 16) }
    }

    /// CTR over whole blocks with GCM's inc32 counter (the low 32 bits wrap without carrying), from the
    /// set's 128-bit CTR kernel: the message is split where the low word wraps.
    fn ctr32(&self, ctr: &mut [u8; 16], buf: &mut [u8]) {
        let mut rest = buf;
        while !rest.is_empty() {
            let low = u32::from_be_bytes([ctr[12], ctr[13], ctr[14], ctr[15]]);
            let room = (1u64 << 32) - u64::from(low);
            let n = ((rest.len() / 16) as u64).min(room) as usize;
            let (now, later) = rest.split_at_mut(16 * n);
            let mut high = [0u8; 12];
            high.copy_from_slice(&ctr[..12]);
            self.chain(self.k.ctr, &self.enc, now, ctr);
            // At the wrap the 128-bit kernel carries into the upper 96 bits; inc32 does not.
            ctr[..12].copy_from_slice(&high);
            rest = later;
        }
    }

    /// One block through the cipher.
    fn encrypt_block(&self, block: &[u8; 16]) -> [u8; 16] {
        let mut b = *block;
        self.ecb(&mut b, false);
        b
    }

    /// A chaining kernel (`f(rk, dst, src, n, state)`) over whole blocks of `buf` in place.
    fn chain(&self, f: dispatch::ChainFn, rk: &RoundKeys, buf: &mut [u8], state: &mut [u8; 16]) {
        debug_assert_eq!(buf.len() % 16, 0);
        let n = buf.len() / 16;
        // SAFETY: `buf` holds `16 * n` bytes (exact aliasing allowed), `state` 16 writable bytes, `rk` 128.
        unsafe { f(rk.ptr(), buf.as_mut_ptr(), buf.as_ptr(), n, state.as_mut_ptr()) }
    }

    /// CBC-MAC kernel over whole blocks.
    fn cbc_mac(&self, mac: &mut [u8; 16], data: &[u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        // SAFETY: `data` holds `16 * n` readable bytes, `mac` 16 writable bytes.
        unsafe { (self.k.cbc_mac)(self.enc.ptr(), mac.as_mut_ptr(), data.as_ptr(), data.len() / 16) }
    }
}

fn xor_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

fn whole_blocks(what: &'static str, buf: &[u8]) -> Result<(), Error> {
    if buf.len() % 16 == 0 {
        Ok(())
    } else {
        Err(Error::InvalidLength { what, len: buf.len() })
    }
}

/// Equality of two byte strings in time independent of their contents.
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    let d = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    core::hint::black_box(d) == 0 && a.len() == b.len()
}

/// The SM4 block cipher with its confidentiality modes (ECB, CBC, CFB, CTR, CBC with ciphertext stealing).
///
/// Also implements RustCrypto's `cipher::{KeyInit, BlockCipherEncrypt, BlockCipherDecrypt}`.
#[derive(Clone)]
pub struct Sm4(Keys);

impl Sm4 {
    /// Keys the cipher, using the best backend for this CPU (or `ASMGEN_BACKEND` / `ASMGEN_ISA`).
    pub fn new(key: &[u8; 16]) -> Sm4 {
        Sm4(Keys::new(dispatch::best(), key))
    }

    /// Keys the cipher on the named backend (see [`sm4_backends`]).
    pub fn with_backend(key: &[u8; 16], backend: &str) -> Result<Sm4, Error> {
        Ok(Sm4(Keys::new(dispatch::find(backend)?, key)))
    }

    /// The kernel set in use for the bulk modes, e.g. `aot/x86_64-aesni-avx2` or `portable`.
    pub fn backend(&self) -> &'static str {
        self.0.k.name
    }

    /// ECB encryption in place; the length must be a multiple of 16.
    pub fn encrypt_ecb(&self, buf: &mut [u8]) -> Result<(), Error> {
        whole_blocks("ECB data", buf)?;
        self.0.ecb(buf, false);
        Ok(())
    }

    /// ECB decryption in place; the length must be a multiple of 16.
    pub fn decrypt_ecb(&self, buf: &mut [u8]) -> Result<(), Error> {
        whole_blocks("ECB data", buf)?;
        self.0.ecb(buf, true);
        Ok(())
    }

    /// CBC encryption in place; the length must be a multiple of 16. `iv` becomes the last ciphertext block,
    /// so consecutive calls continue one message.
    pub fn encrypt_cbc(&self, iv: &mut [u8; 16], buf: &mut [u8]) -> Result<(), Error> {
        whole_blocks("CBC data", buf)?;
        self.0.chain(self.0.k.cbc_enc, &self.0.enc, buf, iv);
        Ok(())
    }

    /// CBC decryption in place; the length must be a multiple of 16. `iv` becomes the last ciphertext block.
    pub fn decrypt_cbc(&self, iv: &mut [u8; 16], buf: &mut [u8]) -> Result<(), Error> {
        whole_blocks("CBC data", buf)?;
        self.0.chain(self.0.k.cbc_dec, &self.0.dec, buf, iv);
        Ok(())
    }

    /// CFB-128 encryption in place, any length. `iv` becomes the last ciphertext block, so calls with
    /// whole blocks chain; a trailing partial block ends the stream (`iv` then holds the last whole
    /// ciphertext block, or is unchanged if there was none).
    pub fn encrypt_cfb(&self, iv: &mut [u8; 16], buf: &mut [u8]) -> Result<(), Error> {
        self.cfb(iv, buf, false);
        Ok(())
    }

    /// CFB-128 decryption in place, any length; `iv` as for [`Sm4::encrypt_cfb`].
    pub fn decrypt_cfb(&self, iv: &mut [u8; 16], buf: &mut [u8]) -> Result<(), Error> {
        self.cfb(iv, buf, true);
        Ok(())
    }

    fn cfb(&self, iv: &mut [u8; 16], buf: &mut [u8], decrypt: bool) {
        let full = buf.len() / 16 * 16;
        let (blocks, rest) = buf.split_at_mut(full);
        let f = if decrypt { self.0.k.cfb_dec } else { self.0.k.cfb_enc };
        self.0.chain(f, &self.0.enc, blocks, iv);
        if !rest.is_empty() {
            let ks = Zeroizing::new(self.0.encrypt_block(iv));
            xor_into(rest, &ks[..]);
        }
    }

    /// CTR with a 128-bit big-endian counter (wrapping), in place, any length. `counter` is advanced past
    /// the blocks used, a trailing partial block included.
    pub fn apply_ctr(&self, counter: &mut [u8; 16], buf: &mut [u8]) {
        let full = buf.len() / 16 * 16;
        let (blocks, rest) = buf.split_at_mut(full);
        self.0.chain(self.0.k.ctr, &self.0.enc, blocks, counter);
        if !rest.is_empty() {
            let mut ks = Zeroizing::new([0u8; 16]);
            self.0.chain(self.0.k.ctr, &self.0.enc, &mut ks[..], counter);
            xor_into(rest, &ks[..]);
        }
    }

    /// CBC with ciphertext stealing, variant CS3 (Kerberos, Linux `cts(cbc(sm4))`): the last two blocks are
    /// always swapped; exactly 16 bytes is plain CBC. The length must be at least 16.
    pub fn encrypt_cts_cbc(&self, iv: &[u8; 16], buf: &mut [u8]) -> Result<(), Error> {
        let len = buf.len();
        if len < 16 {
            return Err(Error::InvalidLength { what: "CTS-CBC data", len });
        }
        let mut v = *iv;
        if len == 16 {
            self.0.chain(self.0.k.cbc_enc, &self.0.enc, buf, &mut v);
            return Ok(());
        }
        let m = len.div_ceil(16); // blocks, the last one of d bytes
        let d = len - 16 * (m - 1);
        self.0.chain(self.0.k.cbc_enc, &self.0.enc, &mut buf[..16 * (m - 1)], &mut v);
        // v = C[m-1]; C[m] = E(C[m-1] ^ (P[m] || 0)).
        let mut last = Zeroizing::new([0u8; 16]);
        last[..d].copy_from_slice(&buf[16 * (m - 1)..]);
        let prev: [u8; 16] = v;
        self.0.chain(self.0.k.cbc_enc, &self.0.enc, &mut last[..], &mut v);
        buf[16 * (m - 2)..16 * (m - 1)].copy_from_slice(&last[..]);
        buf[16 * (m - 1)..].copy_from_slice(&prev[..d]);
        Ok(())
    }

    /// Decryption of [`Sm4::encrypt_cts_cbc`].
    pub fn decrypt_cts_cbc(&self, iv: &[u8; 16], buf: &mut [u8]) -> Result<(), Error> {
        let len = buf.len();
        if len < 16 {
            return Err(Error::InvalidLength { what: "CTS-CBC data", len });
        }
        let mut v = *iv;
        if len == 16 {
            self.0.chain(self.0.k.cbc_dec, &self.0.dec, buf, &mut v);
            return Ok(());
        }
        let m = len.div_ceil(16);
        let d = len - 16 * (m - 1);
        self.0.chain(self.0.k.cbc_dec, &self.0.dec, &mut buf[..16 * (m - 2)], &mut v);
        // X = C[m] (full, at position m-1), Y = C[m-1][..d] (at position m).
        let mut x = Zeroizing::new([0u8; 16]);
        x.copy_from_slice(&buf[16 * (m - 2)..16 * (m - 1)]);
        self.0.ecb(&mut x[..], true); // D(C[m]) = C[m-1] ^ (P[m] || 0)
        let mut c_prev = [0u8; 16];
        c_prev[..d].copy_from_slice(&buf[16 * (m - 1)..]);
        c_prev[d..].copy_from_slice(&x[d..]);
        let mut p_last = Zeroizing::new([0u8; 16]);
        for i in 0..d {
            p_last[i] = x[i] ^ c_prev[i];
        }
        let mut p_prev = Zeroizing::new(c_prev);
        self.0.chain(self.0.k.cbc_dec, &self.0.dec, &mut p_prev[..], &mut v);
        buf[16 * (m - 2)..16 * (m - 1)].copy_from_slice(&p_prev[..]);
        buf[16 * (m - 1)..].copy_from_slice(&p_last[..d]);
        Ok(())
    }
}

impl std::fmt::Debug for Sm4 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sm4").field("backend", &self.backend()).finish_non_exhaustive()
    }
}

/// SM4-XTS with ciphertext stealing: IEEE 1619 ([`Sm4Xts::new`]) or GB/T 17964-2021 ([`Sm4Xts::new_gb`],
/// which differs in the bit order of the tweak's multiplication by x).
#[derive(Clone)]
pub struct Sm4Xts {
    data: Keys,
    tweak: Keys,
    gb: bool,
}

impl Sm4Xts {
    /// IEEE 1619 XTS with data key `key1` and tweak key `key2`.
    pub fn new(key1: &[u8; 16], key2: &[u8; 16]) -> Sm4Xts {
        Self::on(dispatch::best(), key1, key2, false)
    }

    /// GB/T 17964-2021 XTS with data key `key1` and tweak key `key2`.
    pub fn new_gb(key1: &[u8; 16], key2: &[u8; 16]) -> Sm4Xts {
        Self::on(dispatch::best(), key1, key2, true)
    }

    /// IEEE 1619 XTS on the named backend.
    pub fn with_backend(key1: &[u8; 16], key2: &[u8; 16], backend: &str) -> Result<Sm4Xts, Error> {
        Ok(Self::on(dispatch::find(backend)?, key1, key2, false))
    }

    /// GB/T 17964-2021 XTS on the named backend.
    pub fn with_backend_gb(key1: &[u8; 16], key2: &[u8; 16], backend: &str) -> Result<Sm4Xts, Error> {
        Ok(Self::on(dispatch::find(backend)?, key1, key2, true))
    }

    fn on(k: &'static Sm4Kernels, key1: &[u8; 16], key2: &[u8; 16], gb: bool) -> Sm4Xts {
        Sm4Xts { data: Keys::new(k, key1), tweak: Keys::new(k, key2), gb }
    }

    /// The kernel set in use.
    pub fn backend(&self) -> &'static str {
        self.data.k.name
    }

    /// Encrypts one data unit in place; `tweak` is its (unencrypted) tweak. Length at least 16.
    pub fn encrypt(&self, tweak: &[u8; 16], buf: &mut [u8]) -> Result<(), Error> {
        self.crypt(tweak, buf, false)
    }

    /// Decrypts one data unit in place. Length at least 16.
    pub fn decrypt(&self, tweak: &[u8; 16], buf: &mut [u8]) -> Result<(), Error> {
        self.crypt(tweak, buf, true)
    }

    fn crypt(&self, tweak: &[u8; 16], buf: &mut [u8], decrypt: bool) -> Result<(), Error> {
        let len = buf.len();
        if len < 16 {
            return Err(Error::InvalidLength { what: "XTS data unit", len });
        }
        let k = self.data.k;
        let (f, rk) = match (decrypt, self.gb) {
            (false, false) => (k.xts_enc_ieee, &self.data.enc),
            (true, false) => (k.xts_dec_ieee, &self.data.dec),
            (false, true) => (k.xts_enc_gb, &self.data.enc),
            (true, true) => (k.xts_dec_gb, &self.data.dec),
        };
        let mut t = Zeroizing::new(self.tweak.encrypt_block(tweak));
        let d = len % 16;
        if d == 0 {
            self.blocks(f, rk, buf, &mut t);
            return Ok(());
        }
        let m = len / 16; // whole blocks, m >= 1, then d bytes
        self.blocks(f, rk, &mut buf[..16 * (m - 1)], &mut t);
        // t = T[m-1] (tweak of the last whole block); T[m] follows it.
        let (t_first, t_second) = if decrypt {
            let next = Zeroizing::new(portable::xts_next(*t, self.gb));
            (next, t.clone())
        } else {
            (t.clone(), Zeroizing::new(portable::xts_next(*t, self.gb)))
        };
        let mut cc = Zeroizing::new([0u8; 16]);
        cc.copy_from_slice(&buf[16 * (m - 1)..16 * m]);
        let mut tt = *t_first;
        self.blocks(f, rk, &mut cc[..], &mut tt);
        let mut pp = Zeroizing::new(*cc);
        pp[..d].copy_from_slice(&buf[16 * m..]);
        let mut tt = *t_second;
        self.blocks(f, rk, &mut pp[..], &mut tt);
        tt.zeroize();
        buf[16 * (m - 1)..16 * m].copy_from_slice(&pp[..]);
        buf[16 * m..].copy_from_slice(&cc[..d]);
        Ok(())
    }
}

impl Sm4Xts {
    /// XTS over whole blocks: the set's kernel, or (without one) tweaks computed here around its ECB kernel.
    fn blocks(&self, f: Option<dispatch::ChainFn>, rk: &RoundKeys, buf: &mut [u8], t: &mut [u8; 16]) {
        if let Some(f) = f {
            self.data.chain(f, rk, buf, t);
            return;
        }
        let mut tw = Zeroizing::new([0u8; 1024]);
        for chunk in buf.chunks_mut(1024) {
            for (blk, tb) in chunk.chunks_exact_mut(16).zip(tw.chunks_exact_mut(16)) {
                tb.copy_from_slice(&t[..]);
                xor_into(blk, tb);
                *t = portable::xts_next(*t, self.gb);
            }
            self.data.ecb_rk(rk, chunk);
            xor_into(chunk, &tw[..chunk.len()]);
        }
    }
}

impl std::fmt::Debug for Sm4Xts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sm4Xts").field("backend", &self.backend()).field("gb", &self.gb).finish_non_exhaustive()
    }
}

/// The CBC-MAC chain shared by the MACs: absorbs whole blocks but always keeps the last 1..=16 bytes
/// buffered, so that finalisation can treat the last block specially.
#[derive(Clone)]
struct MacCore {
    keys: Keys,
    state: [u8; 16],
    buf: [u8; 16],
    n: usize,
}

impl MacCore {
    fn new(keys: Keys) -> MacCore {
        MacCore { keys, state: [0; 16], buf: [0; 16], n: 0 }
    }

    fn update(&mut self, mut data: &[u8]) {
        if data.is_empty() {
            return;
        }
        if self.n > 0 {
            let take = (16 - self.n).min(data.len());
            self.buf[self.n..self.n + take].copy_from_slice(&data[..take]);
            self.n += take;
            data = &data[take..];
            if data.is_empty() {
                return;
            }
            let b = self.buf;
            self.keys.cbc_mac(&mut self.state, &b);
            self.n = 0;
        }
        let full = (data.len() - 1) / 16 * 16;
        self.keys.cbc_mac(&mut self.state, &data[..full]);
        let rest = &data[full..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.n = rest.len();
    }

    /// The buffered tail: whether it is a whole block, and the block padded with `pad` then zeros.
    fn last(&self, pad: u8) -> (bool, [u8; 16]) {
        let mut b = [0u8; 16];
        b[..self.n].copy_from_slice(&self.buf[..self.n]);
        if self.n < 16 {
            b[self.n] = pad;
        }
        (self.n == 16, b)
    }

    fn finish(self, last: &[u8; 16]) -> [u8; 16] {
        let mut s = self.state;
        self.keys.cbc_mac(&mut s, last);
        s
    }
}

impl Drop for MacCore {
    fn drop(&mut self) {
        self.state.zeroize();
        self.buf.zeroize();
    }
}

/// Doubling in GF(2^128) as CMAC defines it (big-endian, 0x87), constant-time.
fn dbl(b: &[u8; 16]) -> [u8; 16] {
    let v = u128::from_be_bytes(*b);
    let carry = 0u128.wrapping_sub(v >> 127);
    ((v << 1) ^ (carry & 0x87)).to_be_bytes()
}

/// CMAC (NIST SP 800-38B, also OMAC1) over SM4.
#[derive(Clone)]
pub struct Sm4Cmac {
    core: MacCore,
    k1: Zeroizing<[u8; 16]>,
    k2: Zeroizing<[u8; 16]>,
}

impl Sm4Cmac {
    /// Keys the MAC with the best backend.
    pub fn new(key: &[u8; 16]) -> Sm4Cmac {
        Self::on(dispatch::best(), key)
    }

    /// Keys the MAC on the named backend.
    pub fn with_backend(key: &[u8; 16], backend: &str) -> Result<Sm4Cmac, Error> {
        Ok(Self::on(dispatch::find(backend)?, key))
    }

    fn on(k: &'static Sm4Kernels, key: &[u8; 16]) -> Sm4Cmac {
        let keys = Keys::new(k, key);
        let l = Zeroizing::new(keys.encrypt_block(&[0; 16]));
        let k1 = Zeroizing::new(dbl(&l));
        let k2 = Zeroizing::new(dbl(&k1));
        Sm4Cmac { core: MacCore::new(keys), k1, k2 }
    }

    /// The kernel set in use.
    pub fn backend(&self) -> &'static str {
        self.core.keys.k.name
    }

    /// Absorbs `data` (any length, any number of calls).
    pub fn update(&mut self, data: &[u8]) {
        self.core.update(data);
    }

    /// The 16-byte tag.
    pub fn finalize(self) -> [u8; 16] {
        let (whole, mut last) = self.core.last(0x80);
        let sub = if whole { &self.k1 } else { &self.k2 };
        xor_into(&mut last, &sub[..]);
        let t = self.core.finish(&last);
        last.zeroize();
        t
    }
}

/// AES-XCBC-MAC's construction (RFC 3566) over SM4: `K1 = E(0x01..)`, `K2 = E(0x02..)`, `K3 = E(0x03..)`.
#[derive(Clone)]
pub struct Sm4Xcbc {
    core: MacCore,
    k2: Zeroizing<[u8; 16]>,
    k3: Zeroizing<[u8; 16]>,
}

impl Sm4Xcbc {
    /// Keys the MAC with the best backend.
    pub fn new(key: &[u8; 16]) -> Sm4Xcbc {
        Self::on(dispatch::best(), key)
    }

    /// Keys the MAC on the named backend.
    pub fn with_backend(key: &[u8; 16], backend: &str) -> Result<Sm4Xcbc, Error> {
        Ok(Self::on(dispatch::find(backend)?, key))
    }

    fn on(k: &'static Sm4Kernels, key: &[u8; 16]) -> Sm4Xcbc {
        let keys = Keys::new(k, key);
        let k1 = Zeroizing::new(keys.encrypt_block(&[1; 16]));
        let k2 = Zeroizing::new(keys.encrypt_block(&[2; 16]));
        let k3 = Zeroizing::new(keys.encrypt_block(&[3; 16]));
        Sm4Xcbc { core: MacCore::new(Keys::new(k, &k1)), k2, k3 }
    }

    /// The kernel set in use.
    pub fn backend(&self) -> &'static str {
        self.core.keys.k.name
    }

    /// Absorbs `data` (any length, any number of calls).
    pub fn update(&mut self, data: &[u8]) {
        self.core.update(data);
    }

    /// The 16-byte tag.
    pub fn finalize(self) -> [u8; 16] {
        let (whole, mut last) = self.core.last(0x80);
        let sub = if whole { &self.k2 } else { &self.k3 };
        xor_into(&mut last, &sub[..]);
        let t = self.core.finish(&last);
        last.zeroize();
        t
    }
}

/// Plain CBC-MAC over SM4: zero IV, a trailing partial block zero-padded, no data gives 16 zero bytes.
/// Secure only for messages of one fixed length (or as a building block, as in CCM).
#[derive(Clone)]
pub struct Sm4CbcMac {
    core: MacCore,
}

impl Sm4CbcMac {
    /// Keys the MAC with the best backend.
    pub fn new(key: &[u8; 16]) -> Sm4CbcMac {
        Sm4CbcMac { core: MacCore::new(Keys::new(dispatch::best(), key)) }
    }

    /// Keys the MAC on the named backend.
    pub fn with_backend(key: &[u8; 16], backend: &str) -> Result<Sm4CbcMac, Error> {
        Ok(Sm4CbcMac { core: MacCore::new(Keys::new(dispatch::find(backend)?, key)) })
    }

    /// The kernel set in use.
    pub fn backend(&self) -> &'static str {
        self.core.keys.k.name
    }

    /// Absorbs `data` (any length, any number of calls).
    pub fn update(&mut self, data: &[u8]) {
        self.core.update(data);
    }

    /// The 16-byte tag.
    pub fn finalize(self) -> [u8; 16] {
        if self.core.n == 0 {
            return self.core.state;
        }
        let (_, last) = self.core.last(0);
        self.core.finish(&last)
    }
}

macro_rules! mac_debug {
    ($($t:ident),*) => {$(
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t)).field("backend", &self.backend()).finish_non_exhaustive()
            }
        }
    )*};
}
mac_debug!(Sm4Cmac, Sm4Xcbc, Sm4CbcMac, Sm4Gcm, Sm4Ccm);

/// The 256-byte GHASH key table (same layout on every backend).
#[derive(Clone)]
#[repr(C, align(16))]
struct HTable([u8; 256]);

impl Drop for HTable {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

/// SM4-GCM (NIST SP 800-38D; RFC 8998) with a 16-byte tag; any non-empty nonce length (12 is the fast
/// path, others are hashed with GHASH). Decryption checks the tag before anything is decrypted.
#[derive(Clone)]
pub struct Sm4Gcm {
    keys: Keys,
    ghash: &'static crate::dispatch::HashKernels,
    htable: HTable,
}

/// GCM's limit on the plaintext: 2^39 - 256 bits.
const GCM_MAX_BYTES: u64 = (1 << 36) - 32;

impl Sm4Gcm {
    /// Keys the AEAD with the best backend.
    pub fn new(key: &[u8; 16]) -> Sm4Gcm {
        Self::on(dispatch::best(), key)
    }

    /// Keys the AEAD on the named backend.
    pub fn with_backend(key: &[u8; 16], backend: &str) -> Result<Sm4Gcm, Error> {
        Ok(Self::on(dispatch::find(backend)?, key))
    }

    fn on(k: &'static Sm4Kernels, key: &[u8; 16]) -> Sm4Gcm {
        let keys = Keys::new(k, key);
        let ghash = (k.ghash)();
        let h = Zeroizing::new(keys.encrypt_block(&[0; 16]));
        let mut htable = HTable([0; 256]);
        // SAFETY: 256 writable bytes and a 16-byte H, as the GHASH kernels' contract asks.
        unsafe { (ghash.init)(htable.0.as_mut_ptr(), h.as_ptr()) };
        Sm4Gcm { keys, ghash, htable }
    }

    /// The kernel set in use.
    pub fn backend(&self) -> &'static str {
        self.keys.k.name
    }

    /// GHASH of `data`, zero-padded to whole blocks, into `state`.
    fn ghash_padded(&self, state: &mut [u8; 16], data: &[u8]) {
        let full = data.len() / 16 * 16;
        if full > 0 {
            // SAFETY: `state` 16 bytes, the table filled by the same GHASH backend, `full` readable bytes.
            unsafe { (self.ghash.update)(state.as_mut_ptr(), self.htable.0.as_ptr(), data.as_ptr(), full / 16) };
        }
        if full < data.len() {
            let mut last = Zeroizing::new([0u8; 16]);
            last[..data.len() - full].copy_from_slice(&data[full..]);
            // SAFETY: as above, one block.
            unsafe { (self.ghash.update)(state.as_mut_ptr(), self.htable.0.as_ptr(), last.as_ptr(), 1) };
        }
    }

    fn lengths(&self, state: &mut [u8; 16], aad: usize, text: usize) {
        let mut l = [0u8; 16];
        l[..8].copy_from_slice(&(aad as u64).wrapping_mul(8).to_be_bytes());
        l[8..].copy_from_slice(&(text as u64).wrapping_mul(8).to_be_bytes());
        self.ghash_padded(state, &l);
    }

    fn check(&self, nonce: &[u8], aad: &[u8], buf: &[u8]) -> Result<[u8; 16], Error> {
        if nonce.is_empty() || nonce.len() as u64 >= 1 << 61 {
            return Err(Error::InvalidNonceLength { len: nonce.len() });
        }
        if buf.len() as u64 > GCM_MAX_BYTES {
            return Err(Error::InvalidLength { what: "GCM plaintext", len: buf.len() });
        }
        if aad.len() as u64 >= 1 << 61 {
            return Err(Error::InvalidLength { what: "GCM associated data", len: aad.len() });
        }
        if nonce.len() == 12 {
            let mut j0 = [0u8; 16];
            j0[..12].copy_from_slice(nonce);
            j0[15] = 1;
            Ok(j0)
        } else {
            let mut j0 = [0u8; 16];
            self.ghash_padded(&mut j0, nonce);
            self.lengths(&mut j0, 0, nonce.len());
            Ok(j0)
        }
    }

    fn inc32(b: &[u8; 16]) -> [u8; 16] {
        let mut r = *b;
        let c = u32::from_be_bytes([b[12], b[13], b[14], b[15]]).wrapping_add(1);
        r[12..].copy_from_slice(&c.to_be_bytes());
        r
    }

    /// The keystream for the trailing partial block at counter `ctr`, applied to `rest`.
    fn tail(&self, ctr: &[u8; 16], rest: &mut [u8]) {
        let ks = Zeroizing::new(self.keys.encrypt_block(ctr));
        xor_into(rest, &ks[..]);
    }

    fn tag(&self, j0: &[u8; 16], state: &[u8; 16]) -> [u8; 16] {
        let mut t = self.keys.encrypt_block(j0);
        xor_into(&mut t, state);
        t
    }

    /// Encrypts `buf` in place and returns the tag.
    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16], Error> {
        let j0 = self.check(nonce, aad, buf)?;
        let mut s = [0u8; 16];
        self.ghash_padded(&mut s, aad);
        let mut ctr = Self::inc32(&j0);
        let full = buf.len() / 16 * 16;
        let (blocks, rest) = buf.split_at_mut(full);
        match self.keys.k.gcm_enc {
            // SAFETY: `blocks` holds `full` bytes (exact aliasing allowed); counter, state 16 bytes; table 256.
            Some(f) => {
                let mut state = [0u8; 32];
                state[..16].copy_from_slice(&ctr);
                state[16..].copy_from_slice(&s);
                // SAFETY: as above; `state` is the 32-byte counter || GHASH state the kernel takes.
                unsafe {
                    f(
                        self.keys.enc.ptr(),
                        self.htable.0.as_ptr(),
                        blocks.as_mut_ptr(),
                        blocks.as_ptr(),
                        full / 16,
                        state.as_mut_ptr(),
                    )
                };
                ctr.copy_from_slice(&state[..16]);
                s.copy_from_slice(&state[16..]);
            }
            None => {
                for chunk in blocks.chunks_mut(4096) {
                    self.keys.ctr32(&mut ctr, chunk);
                    self.ghash_padded(&mut s, chunk);
                }
            }
        }
        if !rest.is_empty() {
            self.tail(&ctr, rest);
            self.ghash_padded(&mut s, rest);
        }
        self.lengths(&mut s, aad.len(), buf.len());
        Ok(self.tag(&j0, &s))
    }

    /// Checks `tag` (in constant time) and only then decrypts `buf` in place; on failure `buf` is unchanged.
    pub fn decrypt(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> Result<(), Error> {
        let j0 = self.check(nonce, aad, buf)?;
        let mut s = [0u8; 16];
        self.ghash_padded(&mut s, aad);
        self.ghash_padded(&mut s, buf);
        self.lengths(&mut s, aad.len(), buf.len());
        if !ct_eq(&self.tag(&j0, &s), tag) {
            return Err(Error::TagMismatch);
        }
        let mut ctr = Self::inc32(&j0);
        let full = buf.len() / 16 * 16;
        let (blocks, rest) = buf.split_at_mut(full);
        // The tag is already checked, so this pass needs no GHASH: plain CTR with inc32.
        self.keys.ctr32(&mut ctr, blocks);
        if !rest.is_empty() {
            self.tail(&ctr, rest);
        }
        Ok(())
    }
}

/// SM4-CCM (NIST SP 800-38C, RFC 3610; RFC 8998): nonce of 7..=13 bytes, tag of 4..=16 bytes (even).
/// Decryption works on a scratch copy and writes `buf` only once the tag has been verified.
#[derive(Clone)]
pub struct Sm4Ccm {
    keys: Keys,
}

impl Sm4Ccm {
    /// Keys the AEAD with the best backend.
    pub fn new(key: &[u8; 16]) -> Sm4Ccm {
        Sm4Ccm { keys: Keys::new(dispatch::best(), key) }
    }

    /// Keys the AEAD on the named backend.
    pub fn with_backend(key: &[u8; 16], backend: &str) -> Result<Sm4Ccm, Error> {
        Ok(Sm4Ccm { keys: Keys::new(dispatch::find(backend)?, key) })
    }

    /// The kernel set in use.
    pub fn backend(&self) -> &'static str {
        self.keys.k.name
    }

    /// Validates the lengths; returns the CBC-MAC state after B0 and the associated data, and the counter
    /// block A0.
    fn start(&self, nonce: &[u8], aad: &[u8], len: usize, tag_len: usize) -> Result<([u8; 16], [u8; 16]), Error> {
        let n = nonce.len();
        if !(7..=13).contains(&n) {
            return Err(Error::InvalidNonceLength { len: n });
        }
        if !(4..=16).contains(&tag_len) || tag_len % 2 != 0 {
            return Err(Error::InvalidTagLength { len: tag_len });
        }
        let q = 15 - n;
        if q < 8 && (len as u64) >> (8 * q) != 0 {
            return Err(Error::InvalidLength { what: "CCM payload", len });
        }
        let mut b0 = [0u8; 16];
        b0[0] = (u8::from(!aad.is_empty()) << 6) | (((tag_len as u8 - 2) / 2) << 3) | (q as u8 - 1);
        b0[1..1 + n].copy_from_slice(nonce);
        let lb = (len as u64).to_be_bytes();
        b0[16 - q.min(8)..].copy_from_slice(&lb[8 - q.min(8)..]);
        let mut mac = MacCore::new(self.keys.clone());
        mac.update(&b0);
        if !aad.is_empty() {
            let a = aad.len() as u64;
            if a < 0xff00 {
                mac.update(&(a as u16).to_be_bytes());
            } else if a >> 32 == 0 {
                mac.update(&[0xff, 0xfe]);
                mac.update(&(a as u32).to_be_bytes());
            } else {
                mac.update(&[0xff, 0xff]);
                mac.update(&a.to_be_bytes());
            }
            mac.update(aad);
        }
        // Pad the header to a whole block and absorb it all.
        let (_, last) = mac.last(0);
        let state = mac.finish(&last);
        let mut a0 = [0u8; 16];
        a0[0] = q as u8 - 1;
        a0[1..1 + n].copy_from_slice(nonce);
        Ok((state, a0))
    }

    /// CTR and CBC-MAC of the plaintext over whole blocks in place: the set's kernel, or (without one) its
    /// CTR and CBC-MAC kernels in turn, 4 KiB at a time.
    fn blocks(&self, encrypt: bool, buf: &mut [u8], ctr: &mut [u8; 16], mac: &mut [u8; 16]) {
        let k = self.keys.k;
        if let Some(f) = if encrypt { k.ccm_enc } else { k.ccm_dec } {
            // SAFETY: `buf` holds whole blocks (exact aliasing allowed); counter and MAC 16 bytes each.
            unsafe {
                f(
                    self.keys.enc.ptr(),
                    buf.as_mut_ptr(),
                    buf.as_ptr(),
                    buf.len() / 16,
                    ctr.as_mut_ptr(),
                    mac.as_mut_ptr(),
                )
            };
            return;
        }
        for chunk in buf.chunks_mut(4096) {
            if encrypt {
                self.keys.cbc_mac(mac, chunk);
            }
            self.keys.chain(k.ctr, &self.keys.enc, chunk, ctr);
            if !encrypt {
                self.keys.cbc_mac(mac, chunk);
            }
        }
    }

    fn inc(b: &[u8; 16]) -> [u8; 16] {
        u128::from_be_bytes(*b).wrapping_add(1).to_be_bytes()
    }

    /// Encrypts `buf` in place and writes the tag (its length, 4..=16 and even, is `tag.len()`).
    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<(), Error> {
        let (mut mac, a0) = self.start(nonce, aad, buf.len(), tag.len())?;
        let mut ctr = Self::inc(&a0);
        let full = buf.len() / 16 * 16;
        let (blocks, rest) = buf.split_at_mut(full);
        self.blocks(true, blocks, &mut ctr, &mut mac);
        if !rest.is_empty() {
            let mut last = Zeroizing::new([0u8; 16]);
            last[..rest.len()].copy_from_slice(rest);
            self.blocks(true, &mut last[..], &mut ctr, &mut mac);
            let d = rest.len();
            rest.copy_from_slice(&last[..d]);
        }
        let mut t = self.keys.encrypt_block(&a0);
        xor_into(&mut t, &mac);
        tag.copy_from_slice(&t[..tag.len()]);
        Ok(())
    }

    /// Decrypts a copy of `buf`, checks `tag` (in constant time), and only then writes the plaintext to
    /// `buf`; on failure `buf` is unchanged.
    pub fn decrypt(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        let (mut mac, a0) = self.start(nonce, aad, buf.len(), tag.len())?;
        let mut ctr = Self::inc(&a0);
        let mut plain = Zeroizing::new(buf.to_vec());
        let full = buf.len() / 16 * 16;
        let (blocks, rest) = plain.split_at_mut(full);
        self.blocks(false, blocks, &mut ctr, &mut mac);
        if !rest.is_empty() {
            let ks = Zeroizing::new(self.keys.encrypt_block(&ctr));
            xor_into(rest, &ks[..]);
            let mut last = Zeroizing::new([0u8; 16]);
            last[..rest.len()].copy_from_slice(rest);
            self.keys.cbc_mac(&mut mac, &last[..]);
        }
        let mut t = self.keys.encrypt_block(&a0);
        xor_into(&mut t, &mac);
        if !ct_eq(&t[..tag.len()], tag) {
            return Err(Error::TagMismatch);
        }
        buf.copy_from_slice(&plain);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctr32_wraps_without_carry_on_every_set() {
        let key = [0x2bu8; 16];
        for k in dispatch::all().iter().filter(|k| (k.available)()) {
            let keys = Keys::new(k, &key);
            for low in [0xffff_fffeu32, 0xffff_ffff, 0, 7] {
                let mut c0 = [0xffu8; 16];
                c0[12..].copy_from_slice(&low.to_be_bytes());
                let mut want = vec![0u8; 80];
                for (i, b) in want.chunks_exact_mut(16).enumerate() {
                    let mut c = c0;
                    c[12..].copy_from_slice(&low.wrapping_add(i as u32).to_be_bytes());
                    b.copy_from_slice(&keys.encrypt_block(&c));
                }
                let mut got = vec![0u8; 80];
                let mut ctr = c0;
                keys.ctr32(&mut ctr, &mut got);
                assert_eq!(got, want, "{}: low {low:#x}", k.name);
                assert_eq!(ctr[..12], c0[..12], "{}", k.name);
                assert_eq!(ctr[12..], low.wrapping_add(5).to_be_bytes(), "{}", k.name);
            }
        }
    }
}
