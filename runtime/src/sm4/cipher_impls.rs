//! RustCrypto `cipher` 0.5 traits for [`Sm4`]: `KeyInit`, `BlockCipherEncrypt`, `BlockCipherDecrypt`, with
//! sixteen blocks per parallel call (one kernel call).

use super::keys::Keys;
use super::{dispatch, Sm4};
use cipher::consts::U16;
use cipher::{
    AlgorithmName, Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherDecrypt, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, InOut, InOutBuf, Key, KeyInit, KeySizeUser, ParBlocks,
    ParBlocksSizeUser,
};

impl KeySizeUser for Sm4 {
    type KeySize = U16;
}

impl KeyInit for Sm4 {
    fn new(key: &Key<Self>) -> Self {
        let k: [u8; 16] = (*key).into();
        Sm4(Keys::new(dispatch::best(), &k), None)
    }
}

impl BlockSizeUser for Sm4 {
    type BlockSize = U16;
}

impl AlgorithmName for Sm4 {
    fn write_alg_name(f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SM4")
    }
}

/// One direction of the cipher as a `cipher` backend.
struct Backend<'a> {
    keys: &'a Keys,
    decrypt: bool,
}

impl Backend<'_> {
    /// ECB over `n` blocks from `src` to `dst` (equal or disjoint, as `InOut` guarantees).
    fn run(&self, src: *const u8, dst: *mut u8, n: usize) {
        let rk = if self.decrypt { &self.keys.dec } else { &self.keys.enc };
        // SAFETY: `InOut`/`InOutBuf` give `n` readable input and `n` writable output blocks that are either the
        // same memory or disjoint; the kernels allow exact aliasing.
        unsafe { (self.keys.k.ecb)(rk.ptr(), dst, src, n) }
    }
    fn one(&self, block: InOut<'_, '_, Block<Sm4>>) {
        let (src, dst) = block.into_raw();
        self.run(src.cast(), dst.cast(), 1);
    }
    fn par(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        let (src, dst) = blocks.into_raw();
        self.run(src.cast(), dst.cast(), 16);
    }
    fn tail(&self, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        let n = blocks.len();
        let (src, dst) = blocks.into_raw();
        self.run(src.cast(), dst.cast(), n);
    }
}

impl BlockSizeUser for Backend<'_> {
    type BlockSize = U16;
}

impl ParBlocksSizeUser for Backend<'_> {
    type ParBlocksSize = U16;
}

impl BlockCipherEncBackend for Backend<'_> {
    fn encrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
        self.one(block);
    }
    fn encrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        self.par(blocks);
    }
    fn encrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        self.tail(blocks);
    }
}

impl BlockCipherDecBackend for Backend<'_> {
    fn decrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
        self.one(block);
    }
    fn decrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        self.par(blocks);
    }
    fn decrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        self.tail(blocks);
    }
}

impl BlockCipherEncrypt for Sm4 {
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = Self::BlockSize>) {
        f.call(&Backend { keys: &self.0, decrypt: false });
    }
}

impl BlockCipherDecrypt for Sm4 {
    fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = Self::BlockSize>) {
        f.call(&Backend { keys: &self.0, decrypt: true });
    }
}
