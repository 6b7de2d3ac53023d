//! SM4: XTS with ciphertext stealing, both tweak conventions.

use super::dispatch::{self, Sm4Kernels};
use super::keys::*;
use super::portable;
use crate::Error;
use zeroize::{Zeroize, Zeroizing};

/// SM4-XTS with ciphertext stealing: IEEE 1619 ([`Sm4Xts::new`]) or GB/T 17964-2021 ([`Sm4Xts::new_gb`],
/// which differs in the bit order of the tweak's multiplication by x).
///
/// [`Sm4Xts::with_sector_size`] makes one for a fixed data-unit size (disk sectors of 512 or 4096 bytes):
/// with the JIT, its kernels are generated for exactly that size (no length checks or tail code inside).
#[derive(Clone)]
pub struct Sm4Xts {
    data: Keys,
    tweak: Keys,
    gb: bool,
    /// The fixed data-unit size and the JIT's kernels for it, if any.
    sector: Option<(usize, Option<dispatch::FixedKernels>)>,
    /// The set's unit kernels ([`dispatch::xts_units`]: a JIT set's are assembled when the first is made), in
    /// [`Sm4Kernels::xts_unit`]'s order; none for a fixed sector size, which runs the fixed-size kernels.
    units: [Option<dispatch::XtsUnitFn>; 4],
}

wipe_on_drop!(Sm4Xts: data.k, tweak.k);

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

    /// IEEE 1619 XTS for data units of exactly `sector_bytes` bytes (a multiple of 16, at least 16, at most
    /// 256 MiB), e.g. 512 or 4096. With the JIT (the opt-in feature `jit`), the kernels are generated for that
    /// size (`backend()` then names them, e.g. `jit/x86_64-gfni-avx2/xts-4096`); otherwise the best kernels
    /// run. Units of any other length are an error.
    pub fn with_sector_size(key1: &[u8; 16], key2: &[u8; 16], sector_bytes: usize) -> Result<Sm4Xts, Error> {
        Self::sectors(key1, key2, sector_bytes, false)
    }

    /// GB/T 17964-2021 XTS for data units of exactly `sector_bytes` bytes, as [`Sm4Xts::with_sector_size`].
    pub fn with_sector_size_gb(key1: &[u8; 16], key2: &[u8; 16], sector_bytes: usize) -> Result<Sm4Xts, Error> {
        Self::sectors(key1, key2, sector_bytes, true)
    }

    fn sectors(key1: &[u8; 16], key2: &[u8; 16], bytes: usize, gb: bool) -> Result<Sm4Xts, Error> {
        if bytes < 16 || !bytes.is_multiple_of(16) || bytes / 16 > crate::MAX_FIXED_BLOCKS {
            return Err(Error::InvalidLength { what: "XTS sector size", len: bytes });
        }
        let k = dispatch::best();
        let sector = Some((bytes, dispatch::fixed_xts(bytes)));
        Ok(Sm4Xts { data: Keys::new(k, key1), tweak: Keys::new(k, key2), gb, sector, units: [None; 4] })
    }

    fn on(k: &'static Sm4Kernels, key1: &[u8; 16], key2: &[u8; 16], gb: bool) -> Sm4Xts {
        let units = dispatch::xts_units(k);
        Sm4Xts { data: Keys::new(k, key1), tweak: Keys::new(k, key2), gb, sector: None, units }
    }

    /// The kernel set in use (for a fixed sector size with the JIT, its fixed-size kernels).
    pub fn backend(&self) -> &'static str {
        match self.sector {
            Some((_, Some(fixed))) => fixed.name,
            _ => self.data.k.name,
        }
    }

    /// The fixed data-unit size, if it has one.
    pub fn sector_size(&self) -> Option<usize> {
        self.sector.map(|(bytes, _)| bytes)
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
        let which = decrypt as usize + 2 * self.gb as usize;
        if let (None, Some(unit)) = (self.sector, self.units[which]) {
            let rk = if decrypt { &self.data.dec } else { &self.data.enc };
            // SAFETY: round keys of 128 bytes each (the tweak key's encryption schedule), `len` >= 16 bytes
            // in place (exact aliasing allowed), a 16-byte tweak value; the kernel keeps nothing.
            let p = buf.as_mut_ptr();
            unsafe { unit(rk.ptr(), self.tweak.enc.ptr(), p, p, len, tweak.as_ptr()) };
            return Ok(());
        }
        let (mut f, rk) = match (decrypt, self.gb) {
            (false, false) => (k.xts_enc_ieee, &self.data.enc),
            (true, false) => (k.xts_dec_ieee, &self.data.dec),
            (false, true) => (k.xts_enc_gb, &self.data.enc),
            (true, true) => (k.xts_dec_gb, &self.data.dec),
        };
        if let Some((bytes, fixed)) = self.sector {
            if len != bytes {
                return Err(Error::InvalidLength { what: "XTS sector", len });
            }
            // The fixed-size kernels take the same round keys (one layout on every backend).
            if let Some(fixed) = fixed {
                f = fixed.fns[which];
            }
        }
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
        f.debug_struct("Sm4Xts")
            .field("backend", &self.backend())
            .field("gb", &self.gb)
            .field("sector", &self.sector_size())
            .finish_non_exhaustive()
    }
}
