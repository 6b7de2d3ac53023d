//! RustCrypto `aead` 0.6 traits for [`Sm4Gcm`] (12-byte nonce, 16-byte tag, postfix): `KeyInit`, `AeadCore`,
//! `AeadInOut` (hence `Aead` with the `alloc` feature). CCM's are beside it (`super::ccm`).

use super::gcm::Sm4Gcm;
use aead::consts::{U12, U16};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Nonce, Tag, TagPosition};
use cipher::{Key, KeyInit, KeySizeUser};

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
