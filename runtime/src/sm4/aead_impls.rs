//! RustCrypto `aead` 0.6 traits for [`Sm4Gcm`] (12-byte nonce, 16-byte tag, postfix) and [`Sm4CcmAead`]
//! (CCM with its tag and nonce lengths in the type; [`Sm4Ccm`] takes them at run time): `KeyInit`,
//! `AeadCore`, `AeadInOut` (hence `Aead` with the `alloc` feature).

use super::{Sm4Ccm, Sm4Gcm};
use aead::array::ArraySize;
use aead::consts::{U12, U16};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Nonce, Tag, TagPosition};
use cipher::{Key, KeyInit, KeySizeUser};
use std::marker::PhantomData;

impl KeySizeUser for Sm4Gcm {
    type KeySize = U16;
}

impl KeyInit for Sm4Gcm {
    fn new(key: &Key<Self>) -> Self {
        let k: [u8; 16] = (*key).into();
        Sm4Gcm::new(&k)
    }
}

impl AeadCore for Sm4Gcm {
    type NonceSize = U12;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl AeadInOut for Sm4Gcm {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let buf = buffer.into_out_with_copied_in();
        let tag = self.encrypt(nonce.as_slice(), associated_data, buf).map_err(|_| aead::Error)?;
        Ok(tag.into())
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        let buf = buffer.into_out_with_copied_in();
        let tag: [u8; 16] = (*tag).into();
        self.decrypt(nonce.as_slice(), associated_data, buf, &tag).map_err(|_| aead::Error)
    }
}

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
