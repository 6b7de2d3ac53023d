//! SM4: CCM, with its lengths given at run time ([`Sm4Ccm`]) or in the type ([`Sm4CcmAead`], RustCrypto's
//! `aead` 0.6 traits: `KeyInit`, `AeadCore`, `AeadInOut`, hence `Aead` with the `alloc` feature).

use aead::array::ArraySize;
use aead::consts::U16;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Nonce, Tag, TagPosition};
use cipher::{Key, KeyInit, KeySizeUser};
use std::marker::PhantomData;

use super::dispatch;
use super::keys::*;
use super::mac::MacCore;
use crate::Error;
use zeroize::Zeroizing;

/// SM4-CCM (NIST SP 800-38C, RFC 3610; RFC 8998): nonce of 7..=13 bytes, tag of 4..=16 bytes (even).
/// Decryption works on a scratch copy and writes `buf` only once the tag has been verified.
#[derive(Clone)]
pub struct Sm4Ccm {
    keys: Keys,
}

wipe_on_drop!(Sm4Ccm: keys.k);

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
        if !(4..=16).contains(&tag_len) || !tag_len.is_multiple_of(2) {
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
        // The tag mask E(A0) and the partial last block's keystream from one call.
        let ks = self.keys.encrypt_pair(&a0, (!rest.is_empty()).then_some(&ctr));
        if !rest.is_empty() {
            xor_into(rest, &ks[16..16 + rest.len()]);
            let mut last = Zeroizing::new([0u8; 16]);
            last[..rest.len()].copy_from_slice(rest);
            self.keys.cbc_mac(&mut mac, &last[..]);
        }
        let mut t = [0u8; 16];
        t.copy_from_slice(&ks[..16]);
        xor_into(&mut t, &mac);
        if !ct_eq(&t[..tag.len()], tag) {
            return Err(Error::TagMismatch);
        }
        buf.copy_from_slice(&plain);
        Ok(())
    }
}

backend_debug!(Sm4Ccm);

/// The tag lengths CCM allows (4 to 16 bytes, even), as `typenum` sizes: the `M` of [`Sm4CcmAead`].
pub trait CcmTagSize: ArraySize + sealed::Sealed {}

/// The nonce lengths CCM allows (7 to 13 bytes), as `typenum` sizes: the `N` of [`Sm4CcmAead`].
pub trait CcmNonceSize: ArraySize + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! sizes {
    ($tr:ident: $($n:ident),*) => {$(
        impl $tr for aead::consts::$n {}
    )*};
}
// Every length either trait takes, sealed once.
macro_rules! sealed {
    ($($n:ident),*) => {$(
        impl sealed::Sealed for aead::consts::$n {}
    )*};
}
sealed!(U4, U6, U7, U8, U9, U10, U11, U12, U13, U14, U16);
sizes!(CcmTagSize: U4, U6, U8, U10, U12, U14, U16);
sizes!(CcmNonceSize: U7, U8, U9, U10, U11, U12, U13);

/// SM4-CCM with its tag length `M` and nonce length `N` fixed in the type, as RustCrypto's
/// `ccm::Ccm<sm4::Sm4, M, N>`: `KeyInit`, `AeadCore` (tag postfix) and `AeadInOut`, hence `aead::Aead` with
/// the `aead` crate's `alloc` feature. The same code as [`Sm4Ccm`], which takes both lengths at run time.
///
/// ```
/// use asmgen_runtime::aead::{consts::{U13, U16}, AeadInOut, KeyInit};
/// let ccm = asmgen_runtime::Sm4CcmAead::<U16, U13>::new(&[7u8; 16].into());
/// let (nonce, mut buf) = ([1u8; 13], *b"plaintext");
/// let tag = ccm.encrypt_inout_detached(&nonce.into(), b"header", (&mut buf[..]).into())?;
/// ccm.decrypt_inout_detached(&nonce.into(), b"header", (&mut buf[..]).into(), &tag)?;
/// assert_eq!(&buf, b"plaintext");
/// # Ok::<(), asmgen_runtime::aead::Error>(())
/// ```
pub struct Sm4CcmAead<M: CcmTagSize = U16, N: CcmNonceSize = aead::consts::U13> {
    ccm: Sm4Ccm,
    sizes: PhantomData<(M, N)>,
}

impl<M: CcmTagSize, N: CcmNonceSize> Sm4CcmAead<M, N> {
    /// Keys the AEAD on the named backend (see [`crate::sm4_backends`]).
    pub fn with_backend(key: &[u8; 16], backend: &str) -> Result<Self, crate::Error> {
        Ok(Sm4CcmAead { ccm: Sm4Ccm::with_backend(key, backend)?, sizes: PhantomData })
    }

    /// The kernel set in use.
    pub fn backend(&self) -> &'static str {
        self.ccm.backend()
    }
}

impl<M: CcmTagSize, N: CcmNonceSize> Clone for Sm4CcmAead<M, N> {
    fn clone(&self) -> Self {
        Sm4CcmAead { ccm: self.ccm.clone(), sizes: PhantomData }
    }
}

impl<M: CcmTagSize, N: CcmNonceSize> std::fmt::Debug for Sm4CcmAead<M, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sm4CcmAead").field("backend", &self.backend()).finish_non_exhaustive()
    }
}

impl<M: CcmTagSize, N: CcmNonceSize> KeySizeUser for Sm4CcmAead<M, N> {
    type KeySize = U16;
}

impl<M: CcmTagSize, N: CcmNonceSize> KeyInit for Sm4CcmAead<M, N> {
    fn new(key: &Key<Self>) -> Self {
        Sm4CcmAead { ccm: Sm4Ccm::new(&(*key).into()), sizes: PhantomData }
    }
}

impl<M: CcmTagSize, N: CcmNonceSize> AeadCore for Sm4CcmAead<M, N> {
    type NonceSize = N;
    type TagSize = M;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<M: CcmTagSize, N: CcmNonceSize> AeadInOut for Sm4CcmAead<M, N> {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let buf = buffer.into_out_with_copied_in();
        let mut tag = Tag::<Self>::default();
        self.ccm.encrypt(nonce.as_slice(), associated_data, buf, &mut tag).map_err(|_| aead::Error)?;
        Ok(tag)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        let buf = buffer.into_out_with_copied_in();
        self.ccm.decrypt(nonce.as_slice(), associated_data, buf, tag).map_err(|_| aead::Error)
    }
}
