//! SM4-CTR as a stream: [`Sm4Ctr`], RustCrypto's `StreamCipher` and `StreamCipherSeek` (the keystream of
//! `ctr::Ctr128BE<sm4::Sm4>`), keeping the rest of a partial block's keystream between calls.

use super::dispatch;
use super::keys::*;
use crate::Error;
use cipher::consts::U16;
use cipher::{
    InOutBuf, Iv, IvSizeUser, Key, KeyIvInit, KeySizeUser, OverflowError, SeekNum, StreamCipher, StreamCipherError,
    StreamCipherSeek,
};

/// SM4 in CTR mode with a 128-bit big-endian counter (wrapping), as a stream: data may come in pieces of any
/// length and the keystream continues where the last piece stopped, a partial block's included; the position
/// can be read and set (`StreamCipherSeek`). The same keystream as `ctr::Ctr128BE<sm4::Sm4>`, whole blocks
/// running the CTR kernel of the best backend.
///
/// Made with `cipher::KeyIvInit` (`Sm4Ctr::new(&key.into(), &iv.into())`) or [`Sm4Ctr::with_backend`]; used
/// through `cipher::StreamCipher` (`apply_keystream`) and `cipher::StreamCipherSeek` (`seek`, `current_pos`).
/// For one whole message with a caller-held counter, [`crate::Sm4::apply_ctr`] does the same without state.
#[derive(Clone)]
pub struct Sm4Ctr {
    keys: Keys,
    /// The initial counter block.
    iv: u128,
    /// Blocks of keystream generated so far (the next block's counter is `iv + block`).
    block: u128,
    /// The keystream of block `block - 1`; bytes `used..` are still to be used (`used == 16`: none).
    ks: [u8; 16],
    used: u8,
}

wipe_on_drop!(Sm4Ctr: keys.k);

impl Sm4Ctr {
    /// Keys the stream on the named backend (see [`crate::sm4_backends`]), at position 0.
    pub fn with_backend(key: &[u8; 16], iv: &[u8; 16], backend: &str) -> Result<Sm4Ctr, Error> {
        Ok(Self::on(dispatch::find(backend)?, key, iv))
    }

    fn on(k: &'static dispatch::Sm4Kernels, key: &[u8; 16], iv: &[u8; 16]) -> Sm4Ctr {
        Sm4Ctr { keys: Keys::new(k, key), iv: u128::from_be_bytes(*iv), block: 0, ks: [0; 16], used: 16 }
    }

    /// The kernel set in use, e.g. `aot/x86_64-aesni-avx2` or `portable`.
    pub fn backend(&self) -> &'static str {
        self.keys.k.name
    }

    /// The counter block of keystream block `block`.
    fn counter(&self, block: u128) -> [u8; 16] {
        self.iv.wrapping_add(block).to_be_bytes()
    }

    /// Generates the next keystream block into `ks`, all of it unused.
    fn refill(&mut self) {
        let mut ctr = self.counter(self.block);
        self.ks = [0; 16];
        self.keys.chain(self.keys.k.ctr, &self.keys.enc, &mut self.ks, &mut ctr);
        self.block = self.block.wrapping_add(1);
        self.used = 0;
    }

    /// XORs the keystream into `buf` in place, any length.
    fn apply(&mut self, buf: &mut [u8]) {
        // The rest of the buffered block first.
        let head = (16 - usize::from(self.used)).min(buf.len());
        let used = usize::from(self.used);
        xor_into(&mut buf[..head], &self.ks[used..used + head]);
        self.used += head as u8;
        let rest = &mut buf[head..];
        // Whole blocks through the kernel, all at once.
        let full = rest.len() / 16 * 16;
        let (blocks, tail) = rest.split_at_mut(full);
        if !blocks.is_empty() {
            let mut ctr = self.counter(self.block);
            self.keys.chain(self.keys.k.ctr, &self.keys.enc, blocks, &mut ctr);
            self.block = self.block.wrapping_add((full / 16) as u128);
        }
        // A partial block: its keystream is kept for the next call.
        if !tail.is_empty() {
            self.refill();
            xor_into(tail, &self.ks[..tail.len()]);
            self.used = tail.len() as u8;
        }
    }
}

impl KeySizeUser for Sm4Ctr {
    type KeySize = U16;
}

impl IvSizeUser for Sm4Ctr {
    type IvSize = U16;
}

impl KeyIvInit for Sm4Ctr {
    fn new(key: &Key<Self>, iv: &Iv<Self>) -> Self {
        Self::on(dispatch::best(), &(*key).into(), &(*iv).into())
    }
}

impl StreamCipher for Sm4Ctr {
    /// As `ctr::Ctr128BE`: the last of the 2^128 keystream blocks is never generated.
    fn check_remaining(&self, data_len: usize) -> Result<(), StreamCipherError> {
        let buffered = 16 - usize::from(self.used);
        let Some(more) = data_len.checked_sub(buffered) else { return Ok(()) };
        let left = u128::MAX - self.block;
        if (more.div_ceil(16) as u128) > left {
            Err(StreamCipherError)
        } else {
            Ok(())
        }
    }

    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        self.apply(buf.into_out_with_copied_in());
    }

    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        buf.fill(0);
        self.apply(buf);
    }
}

impl StreamCipherSeek for Sm4Ctr {
    fn try_current_pos<T: SeekNum>(&self) -> Result<T, OverflowError> {
        T::from_block_byte(self.block, self.used, 16)
    }

    fn try_seek<T: SeekNum>(&mut self, pos: T) -> Result<(), StreamCipherError> {
        let (block, byte): (u128, u8) = pos.into_block_byte(16)?;
        if byte != 0 && block == u128::MAX {
            return Err(StreamCipherError);
        }
        self.block = block;
        self.used = 16;
        if byte != 0 {
            self.refill();
            self.used = byte;
        }
        Ok(())
    }
}

backend_debug!(Sm4Ctr);
