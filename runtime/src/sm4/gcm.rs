//! SM4: GCM.

use super::dispatch::{self, Sm4Kernels};
use super::keys::*;
use crate::ghash::dispatch::HashKernels;
use crate::ghash::HashKey;
use crate::Error;
use zeroize::Zeroizing;

/// SM4-GCM (NIST SP 800-38D; RFC 8998) with a 16-byte tag; any non-empty nonce length (12 is the fast
/// path, others are hashed with GHASH). A failed decryption leaves the buffer as it was: on the fused path
/// ([`GcmPath`]) it decrypts and hashes in one pass and, on a bad tag, applies the same keystream again; on
/// the composed path it checks the tag (a GHASH pass) before it decrypts (CTR). Messages of at most 112 bytes
/// get their keystream and `E(J0)` from one ECB call, the tag checked before the buffer is written; longer
/// ones get `E(J0)` and a partial last block's keystream from one (two blocks in one block's latency).
///
/// The counter is GCM's: `inc32` of J0, the low 32 bits wrapping to 0 without carrying into the rest. With
/// a 12-byte nonce J0's low word is 1, so no message reaches the wrap; other nonce lengths give an arbitrary
/// J0, and every path (the fused kernels natively, the CTR kernel split at the wrap) wraps as GCM does.
#[derive(Clone)]
pub struct Sm4Gcm {
    keys: Keys,
    /// The GHASH key `H = E(0)` on the GHASH backend, its table filled as messages need it.
    hkey: HashKey,
    /// The fused kernels, encryption and decryption, where the bulk takes them ([`GcmPath::Fused`]).
    fused: Option<(dispatch::GcmFn, dispatch::GcmFn)>,
    /// Messages of at most this many bytes take one ECB call for their keystream and `E(J0)`: [`SHORT_BYTES`],
    /// or [`ONE_BATCH_BYTES`] where the bulk's path was chosen ([`Sm4Gcm::with_path`]).
    short: ShortLimit,
}

/// The short messages' limit in bytes, and 8 zero bytes: [`Sm4Gcm`]'s fields fill its 16-byte alignment.
#[derive(Clone, Copy)]
struct ShortLimit {
    bytes: usize,
    _zero: usize,
}

/// How [`Sm4Gcm`] runs a message's whole blocks (above 1520 bytes, or above 112 with [`Sm4Gcm::with_path`];
/// shorter messages take one ECB call for their keystream and `E(J0)`, then GHASH).
///
/// A set's fused kernels multiply as the GHASH set the kernel table names for them (`fused_ghash`): one block
/// per carry-less multiply as `x86_64-pclmulqdq-avx` or `aarch64-pmull`, four as `x86_64-vpclmul-avx512` (the
/// GFNI zmm set's, which read the key table's extension). Where the CPU runs a GHASH set that ranks above that
/// one (VPCLMULQDQ on ymm or zmm beside the one-block kernels), the set's CTR kernel and that GHASH set, a few
/// KiB at a time, are faster, and that is the default; elsewhere the fused kernels are.
/// [`Sm4Gcm::with_path`] picks one (tests, measurements). On the fused path a message still takes the composed
/// one where the fused kernels would fill a whole key table for it (a key whose GHASH set has an extension, not
/// yet filled, and fewer than 64 blocks), as GHASH alone fills no more than the common part for such a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcmPath {
    /// The set's fused kernels: CTR and GHASH in one pass (decryption re-applies the keystream on a bad tag).
    Fused,
    /// The set's CTR kernel and the GHASH kernels in turn, 4 KiB at a time (decryption checks the tag first).
    Composed,
}

// The fields leave no padding, so wiping each of them wipes every byte of the object.
const _: () = assert!(
    std::mem::size_of::<Sm4Gcm>()
        == std::mem::size_of::<Keys>()
            + std::mem::size_of::<HashKey>()
            + std::mem::size_of::<Option<(dispatch::GcmFn, dispatch::GcmFn)>>()
            + std::mem::size_of::<ShortLimit>()
);

impl Drop for Sm4Gcm {
    /// Every byte of the object zeroised (as `wipe_on_drop!` does) field by field: the round keys with their
    /// padding (the kernel table written back for the drop glue), the fused kernels (the payload of a `None`
    /// carries what its stack slot held), the short messages' limit; the GHASH key wipes itself.
    fn drop(&mut self) {
        let k = self.keys.k;
        // SAFETY: called from `drop`; all-zero bytes are valid round keys and `None`; `k` is written back.
        unsafe { crate::wipe_object(&mut self.keys) };
        self.keys.k = k;
        // SAFETY: as above.
        unsafe { crate::wipe_object(&mut self.fused) };
        self.short = ShortLimit { bytes: 0, _zero: 0 };
    }
}

/// GCM's limit on the plaintext: 2^39 - 256 bits.
const GCM_MAX_BYTES: u64 = (1 << 36) - 32;

/// Messages of at most this many bytes take [`Sm4Gcm::short_keystream`]: their counter blocks and `J0` in one
/// ECB call of at most 96 blocks (two batches of the zmm kernels, six of the ymm kernels), then GHASH of the
/// ciphertext, instead of the bulk path (fused or composed) and then `E(J0)` with a partial tail's keystream
/// block: fewer chains of 32 rounds (the partial batch, `E(J0)` and the tail's block in one). On the Zen 4 this
/// took 128-1520 byte messages 5-35% faster on every x86_64 set (gfni-avx512: 272 B 4.06 -> 2.89 c/B, 496 B
/// 2.34 -> 1.84, 1100 B 2.00 -> 1.56-1.62, 1500 B 1.64 -> 1.40-1.50); longer messages take the bulk path, whose
/// GHASH runs among the rounds (fused) or in L1-sized chunks (composed), and need no buffer.
const SHORT_BYTES: usize = 1520;

/// The short messages' limit where the bulk's path was chosen ([`Sm4Gcm::with_path`], for tests and
/// measurements that pin the kernels): 8 blocks with `J0`, one batch of every SIMD kernel.
const ONE_BATCH_BYTES: usize = 112;

/// The blocks of a short message's keystream and `E(J0)`.
const SHORT_BLOCKS: usize = SHORT_BYTES / 16 + 1;

/// The chunk the composed encryption (no fused kernel) runs CTR and then GHASH over, while it is in L1: 288
/// blocks, a whole number of every set's full batches (8, 16 and 48 blocks), so that a chunk ends in no partial
/// batch (4096 bytes, 256 blocks, ended each in a 16-block ymm batch on the zmm sets). On the Zen 4 with
/// gfni-avx512, 8 KiB messages: 1.16 c/B with 4096, 1.12 with 4608 or 6144, 1.16 with one chunk of 9216.
const CHUNK_BYTES: usize = 4608;

impl Sm4Gcm {
    /// Keys the AEAD with the best backend.
    pub fn new(key: &[u8; 16]) -> Sm4Gcm {
        let k = dispatch::best();
        let ghash = (k.ghash)();
        Self::on(k, ghash, key, Self::decide_fused(k, ghash))
    }

    /// Keys the AEAD on the named backend.
    pub fn with_backend(key: &[u8; 16], backend: &str) -> Result<Sm4Gcm, Error> {
        let k = dispatch::find(backend)?;
        let ghash = (k.ghash)();
        Ok(Self::on(k, ghash, key, Self::decide_fused(k, ghash)))
    }

    /// Keys the AEAD on the named backend, its bulk on `path` rather than the default ([`GcmPath`]); an error
    /// where the backend has no fused kernels and `path` asks for them.
    pub fn with_path(key: &[u8; 16], backend: &str, path: GcmPath) -> Result<Sm4Gcm, Error> {
        let k = dispatch::find(backend)?;
        let ghash = (k.ghash)();
        let fused = match path {
            GcmPath::Fused => Some(
                Self::fused_kernels(k)
                    .filter(|_| Self::table_fits(k.fused_ghash, ghash))
                    .ok_or(Error::Unsupported { what: "fused GCM", backend: k.name })?,
            ),
            GcmPath::Composed => None,
        };
        let mut g = Self::on(k, ghash, key, fused);
        g.short.bytes = ONE_BATCH_BYTES;
        Ok(g)
    }

    /// The set's fused kernels, encryption and decryption, where it has both.
    fn fused_kernels(k: &Sm4Kernels) -> Option<(dispatch::GcmFn, dispatch::GcmFn)> {
        k.gcm_enc.zip(k.gcm_dec)
    }

    /// The default path's kernels: the fused ones unless GHASH backend `ghash` runs a set that ranks above the
    /// one they multiply as (the listings' table's `fused_ghash` for the set `k` runs), or its key table lacks
    /// what they read ([`Self::table_fits`]). Facts of the two tables, found when they were made: no look-up
    /// per key.
    fn decide_fused(k: &Sm4Kernels, ghash: &HashKernels) -> Option<(dispatch::GcmFn, dispatch::GcmFn)> {
        let outranked = matches!((ghash.rank, k.fused_ghash), (Some(g), Some(f)) if g < f.rank);
        Self::fused_kernels(k).filter(|_| !outranked && Self::table_fits(k.fused_ghash, ghash))
    }

    /// Whether GHASH backend `ghash`'s key table holds what fused kernels multiplying as `fused` read: the
    /// common part (every set's), or where that set has an extension (the GFNI zmm set's kernels, as
    /// `x86_64-vpclmul-avx512`: H^48..H^1), the extension too.
    fn table_fits(fused: Option<dispatch::FusedGhash>, ghash: &HashKernels) -> bool {
        ghash.init_base.is_some() || !fused.is_some_and(|f| f.extension)
    }

    fn on(
        k: &'static Sm4Kernels,
        ghash: &'static HashKernels,
        key: &[u8; 16],
        fused: Option<(dispatch::GcmFn, dispatch::GcmFn)>,
    ) -> Sm4Gcm {
        let keys = Keys::new(k, key);
        let h = Zeroizing::new(keys.encrypt_block(&[0; 16]));
        Sm4Gcm { keys, hkey: HashKey::new(ghash, &h), fused, short: ShortLimit { bytes: SHORT_BYTES, _zero: 0 } }
    }

    /// How the bulk runs ([`GcmPath`]).
    pub fn path(&self) -> GcmPath {
        if self.fused.is_some() {
            GcmPath::Fused
        } else {
            GcmPath::Composed
        }
    }

    /// The kernel set in use.
    pub fn backend(&self) -> &'static str {
        self.keys.k.name
    }

    /// GHASH of `data`, zero-padded to whole blocks, into `state`.
    fn ghash_padded(&self, state: &mut [u8; 16], data: &[u8]) {
        let full = data.len() / 16 * 16;
        self.hkey.absorb(state, &data[..full]);
        if full < data.len() {
            let mut last = Zeroizing::new([0u8; 16]);
            last[..data.len() - full].copy_from_slice(&data[full..]);
            self.hkey.absorb(state, &*last);
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
        Self::add32(b, 1)
    }

    /// `inc32` applied `k` times (the counter of block `k` after `b`).
    fn add32(b: &[u8; 16], k: usize) -> [u8; 16] {
        let mut r = *b;
        let c = u32::from_be_bytes([b[12], b[13], b[14], b[15]]).wrapping_add(k as u32);
        r[12..].copy_from_slice(&c.to_be_bytes());
        r
    }

    /// For a message of `len <= self.short.bytes` bytes: its keystream (`E(inc32^i(J0))`, `i = 1..`, one block per
    /// started 16 bytes) and `E(J0)`, from one ECB call, in `ks` (the caller's: returning it would copy it).
    fn short_keystream<'a>(
        &self,
        ks: &'a mut WipedBlocks<SHORT_BLOCKS>,
        j0: &[u8; 16],
        len: usize,
    ) -> (&'a [u8], &'a [u8]) {
        let n = len.div_ceil(16);
        let blocks = ks.fill(n + 1, |i| if i < n { Self::add32(j0, i + 1) } else { *j0 });
        self.keys.ecb(blocks, false);
        blocks.split_at(16 * n)
    }

    /// The tag from `E(J0)` (16 bytes) and the GHASH state.
    fn tag_from(ej0: &[u8], s: &[u8; 16]) -> [u8; 16] {
        let mut t = [0u8; 16];
        t.copy_from_slice(ej0);
        xor_into(&mut t, s);
        t
    }

    /// Encrypts `buf` in place and returns the tag.
    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16], Error> {
        let j0 = self.check(nonce, aad, buf)?;
        let mut s = [0u8; 16];
        self.ghash_padded(&mut s, aad);
        if buf.len() <= self.short.bytes {
            let mut ks = WipedBlocks::new();
            let (stream, mask) = self.short_keystream(&mut ks, &j0, buf.len());
            xor_into(buf, stream);
            self.ghash_padded(&mut s, buf);
            self.lengths(&mut s, aad.len(), buf.len());
            return Ok(Self::tag_from(mask, &s));
        }
        let mut ctr = Self::inc32(&j0);
        let full = buf.len() / 16 * 16;
        let (blocks, rest) = buf.split_at_mut(full);
        match self.fused {
            Some((f, _)) if self.hkey.fused_table_ready(blocks.len() / 16) => {
                self.run_fused(f, blocks, &mut ctr, &mut s)
            }
            _ => {
                for chunk in blocks.chunks_mut(CHUNK_BYTES) {
                    self.keys.ctr32(&mut ctr, chunk);
                    self.ghash_padded(&mut s, chunk);
                }
            }
        }
        let ks = self.keys.encrypt_pair(&j0, (!rest.is_empty()).then_some(&ctr));
        if !rest.is_empty() {
            xor_into(rest, &ks[16..16 + rest.len()]);
            self.ghash_padded(&mut s, rest);
        }
        self.lengths(&mut s, aad.len(), buf.len());
        Ok(Self::tag_from(&ks[..16], &s))
    }

    /// A fused kernel (gcm_enc or gcm_dec) over the whole blocks `blocks` in place, continuing counter `ctr` and
    /// GHASH state `s`, which it updates.
    fn run_fused(&self, f: dispatch::GcmFn, blocks: &mut [u8], ctr: &mut [u8; 16], s: &mut [u8; 16]) {
        let mut state = [0u8; 32];
        state[..16].copy_from_slice(ctr);
        state[16..].copy_from_slice(s);
        let p = blocks.as_mut_ptr();
        // SAFETY: `blocks` in place (exact aliasing allowed), a whole number of blocks; `state` is the 32-byte
        // counter || GHASH state the kernel takes; the key table as `table_fits` checked it: its common part, or
        // the whole table where the key's set has an extension (what the zmm kernels read).
        self.hkey.with_fused_table(|htable| unsafe {
            f(self.keys.enc.ptr(), htable, p, p, blocks.len() / 16, state.as_mut_ptr())
        });
        ctr.copy_from_slice(&state[..16]);
        s.copy_from_slice(&state[16..]);
    }

    /// Decrypts `buf` in place if `tag` (compared in constant time) is right; on failure `buf` is unchanged.
    pub fn decrypt(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> Result<(), Error> {
        let j0 = self.check(nonce, aad, buf)?;
        let mut s = [0u8; 16];
        self.ghash_padded(&mut s, aad);
        if buf.len() <= self.short.bytes {
            // The tag first, from the ciphertext; the buffer is written only when it matches.
            let mut ks = WipedBlocks::new();
            let (stream, mask) = self.short_keystream(&mut ks, &j0, buf.len());
            self.ghash_padded(&mut s, buf);
            self.lengths(&mut s, aad.len(), buf.len());
            if !ct_eq(&Self::tag_from(mask, &s), tag) {
                return Err(Error::TagMismatch);
            }
            xor_into(buf, stream);
            return Ok(());
        }
        match self.fused {
            Some((_, f)) if self.hkey.fused_table_ready(buf.len() / 16) => {
                self.decrypt_fused(f, &j0, s, aad.len(), buf, tag)
            }
            _ => self.decrypt_checked_first(&j0, s, aad.len(), buf, tag),
        }
    }

    /// One pass with the fused kernel (decrypt and hash), then the tag; on a bad tag the same keystream is
    /// applied again to the whole blocks (the partial tail is decrypted only after the tag is checked).
    fn decrypt_fused(
        &self,
        f: dispatch::GcmFn,
        j0: &[u8; 16],
        ghash_aad: [u8; 16],
        aad_len: usize,
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> Result<(), Error> {
        let len = buf.len();
        let ctr0 = Self::inc32(j0);
        let full = len / 16 * 16;
        let (blocks, rest) = buf.split_at_mut(full);
        let (mut ctr, mut s) = (ctr0, ghash_aad);
        self.run_fused(f, blocks, &mut ctr, &mut s);
        self.ghash_padded(&mut s, rest);
        self.lengths(&mut s, aad_len, len);
        let ks = self.keys.encrypt_pair(j0, (!rest.is_empty()).then_some(&ctr));
        if !ct_eq(&Self::tag_from(&ks[..16], &s), tag) {
            // Restore the ciphertext: CTR is its own inverse (ctr32 splits the 128-bit CTR kernel at the wrap).
            let mut c = ctr0;
            self.keys.ctr32(&mut c, blocks);
            return Err(Error::TagMismatch);
        }
        xor_into(rest, &ks[16..16 + rest.len()]);
        Ok(())
    }

    /// Composed ([`GcmPath::Composed`]): GHASH of the ciphertext and the tag first, then CTR.
    fn decrypt_checked_first(
        &self,
        j0: &[u8; 16],
        mut s: [u8; 16],
        aad_len: usize,
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> Result<(), Error> {
        self.ghash_padded(&mut s, buf);
        self.lengths(&mut s, aad_len, buf.len());
        let full = buf.len() / 16 * 16;
        let tail_ctr = Self::add32(j0, 1 + full / 16);
        let ks = self.keys.encrypt_pair(j0, (full < buf.len()).then_some(&tail_ctr));
        if !ct_eq(&Self::tag_from(&ks[..16], &s), tag) {
            return Err(Error::TagMismatch);
        }
        let mut ctr = Self::inc32(j0);
        let (blocks, rest) = buf.split_at_mut(full);
        // The tag is already checked, so this pass needs no GHASH: plain CTR with inc32.
        self.keys.ctr32(&mut ctr, blocks);
        xor_into(rest, &ks[16..16 + rest.len()]);
        Ok(())
    }
}

backend_debug!(Sm4Gcm);
