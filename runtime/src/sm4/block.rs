//! SM4: The block cipher and its confidentiality modes.

use super::dispatch;
use super::keys::*;
use crate::Error;
use zeroize::Zeroizing;

/// A message that ends in a partial block runs in CTR and CFB decryption as whole batches of this many bytes
/// (the zmm sets' batch: 48 blocks), then the rest, at most as many bytes with the partial block, in one call
/// ([`Sm4::chain_with_tail`]).
const TAIL_BYTES: usize = 16 * 48;

/// The SM4 block cipher with its confidentiality modes (ECB, CBC, CFB, CTR, CBC with ciphertext stealing).
///
/// Also implements RustCrypto's `cipher::{KeyInit, BlockCipherEncrypt, BlockCipherDecrypt}`.
#[derive(Clone)]
pub struct Sm4(pub(super) Keys, pub(super) Option<dispatch::FixedKernels>);

wipe_on_drop!(Sm4: 0.k);

impl Sm4 {
    /// Keys the cipher, using the best backend for this CPU (or `ASMGEN_BACKEND` / `ASMGEN_ISA`).
    pub fn new(key: &[u8; 16]) -> Sm4 {
        Sm4(Keys::new(dispatch::best(), key), None)
    }

    /// Keys the cipher on the named backend (see [`crate::sm4_backends`]).
    pub fn with_backend(key: &[u8; 16], backend: &str) -> Result<Sm4, Error> {
        Ok(Sm4(Keys::new(dispatch::find(backend)?, key), None))
    }

    /// Keys the cipher for CTR messages of `message_bytes` bytes (1 to 256 MiB): with the JIT (the opt-in
    /// feature `jit`), [`Sm4::apply_ctr`] on exactly that many bytes runs a CTR kernel generated for that size
    /// ([`Sm4::specialised`] names it); other lengths, and every other mode, run the best kernels.
    pub fn with_ctr_message_size(key: &[u8; 16], message_bytes: usize) -> Result<Sm4, Error> {
        if message_bytes == 0 || message_bytes.div_ceil(16) > crate::MAX_FIXED_BLOCKS {
            return Err(Error::InvalidLength { what: "CTR message size", len: message_bytes });
        }
        // The fixed kernel takes the message's whole blocks (`apply_ctr` adds the partial one); its name reports
        // the size asked for (`ctr-1000`). A message shorter than a block has none for a fixed kernel to take.
        let fixed = if message_bytes >= 16 { dispatch::fixed_ctr(message_bytes) } else { None };
        Ok(Sm4(Keys::new(dispatch::best(), key), fixed))
    }

    /// The fixed-size kernel in use for messages of one size (see [`Sm4::with_ctr_message_size`]), e.g.
    /// `jit/x86_64-gfni-avx2/ctr-1024`.
    pub fn specialised(&self) -> Option<&'static str> {
        self.1.map(|f| f.name)
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
        if decrypt && full < buf.len() {
            // The keystream of the partial block is E(the last whole ciphertext block), known before any
            // decryption: one call with the blocks before it. `iv` ends as the last whole ciphertext block.
            let mut last = *iv;
            if full > 0 {
                last.copy_from_slice(&buf[full - 16..full]);
            }
            self.chain_with_tail(self.0.k.cfb_dec, buf, iv);
            *iv = last;
            return;
        }
        let (blocks, rest) = buf.split_at_mut(full);
        let f = if decrypt { self.0.k.cfb_dec } else { self.0.k.cfb_enc };
        self.0.chain(f, &self.0.enc, blocks, iv);
        if !rest.is_empty() {
            let ks = Zeroizing::new(self.0.encrypt_block(iv));
            xor_into(rest, &ks[..]);
        }
    }

    /// CTR with a 128-bit big-endian counter (wrapping), in place, any length. `counter` is advanced past
    /// the blocks used, a trailing partial block included: the rest of that block's keystream is dropped, so
    /// a message must be passed whole (or in multiples of 16 bytes). For a message in pieces of any length,
    /// and for seeking, use [`crate::Sm4Ctr`].
    pub fn apply_ctr(&self, counter: &mut [u8; 16], buf: &mut [u8]) {
        let full = buf.len() / 16 * 16;
        let fixed = self.1.filter(|f| f.bytes == buf.len());
        if full == buf.len() || fixed.is_some() {
            let ctr = fixed.map_or(self.0.k.ctr, |f| f.fns[0].expect("a CTR kernel"));
            let (blocks, rest) = buf.split_at_mut(full);
            self.0.chain(ctr, &self.0.enc, blocks, counter);
            if !rest.is_empty() {
                let mut ks = Zeroizing::new([0u8; 16]);
                self.0.chain(self.0.k.ctr, &self.0.enc, &mut ks[..], counter);
                xor_into(rest, &ks[..]);
            }
            return;
        }
        self.chain_with_tail(self.0.k.ctr, buf, counter);
    }

    /// Chaining kernel `f` (CTR, CFB decryption: the partial block's keystream does not depend on it) over
    /// `buf`, which ends in a partial block: its whole batches of [`TAIL_BYTES`] in place, then the blocks
    /// after them and the partial one, zero-padded, in one call on a buffer of their own (one chain of rounds,
    /// where the blocks and then the partial block were two). `state` is left as `f` leaves it after the
    /// padded block.
    fn chain_with_tail(&self, f: dispatch::ChainFn, buf: &mut [u8], state: &mut [u8; 16]) {
        let head = buf.len() / TAIL_BYTES * TAIL_BYTES;
        let (blocks, tail) = buf.split_at_mut(head);
        self.0.chain(f, &self.0.enc, blocks, state);
        let mut own = WipedBlocks::<{ TAIL_BYTES / 16 }>::new();
        let padded = own.copy_padded(tail);
        self.0.chain(f, &self.0.enc, padded, state);
        tail.copy_from_slice(&padded[..tail.len()]);
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
