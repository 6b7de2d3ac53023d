//! The key schedule every SM4 type holds ([`Keys`]: round keys in both directions on one kernel set) and the
//! helpers the modes share.

use super::dispatch::{self, Sm4Kernels};
use crate::Error;
use std::mem::MaybeUninit;
use zeroize::{Zeroize, Zeroizing};

/// 32 round keys as the kernels take them: little-endian 32-bit words, 128 bytes.
#[derive(Clone)]
#[repr(C, align(16))]
pub(super) struct RoundKeys(pub(super) [u8; 128]);

impl RoundKeys {
    pub(super) fn ptr(&self) -> *const u8 {
        self.0.as_ptr()
    }
}

impl Drop for RoundKeys {
    fn drop(&mut self) {
        // SAFETY: called from `drop`; all-zero bytes are valid round keys. Eight 16-byte stores (the struct is
        // 16-byte aligned), not 128 byte stores: a new key's drop is part of what a new key costs.
        unsafe { crate::wipe_object(self) };
    }
}

/// A key schedule in both directions on one kernel set.
#[derive(Clone)]
pub(super) struct Keys {
    pub(super) k: &'static Sm4Kernels,
    pub(super) enc: RoundKeys,
    pub(super) dec: RoundKeys,
}

impl Keys {
    pub(super) fn new(k: &'static Sm4Kernels, key: &[u8; 16]) -> Keys {
        let mut enc = RoundKeys([0; 128]);
        let mut dec = RoundKeys([0; 128]);
        // SAFETY: 128 writable bytes each and a 16-byte key, as the kernels' contract asks.
        unsafe { (k.expand_key)(enc.0.as_mut_ptr(), dec.0.as_mut_ptr(), key.as_ptr()) };
        Keys { k, enc, dec }
    }

    /// ECB over whole blocks in place (`decrypt` picks the schedule).
    pub(super) fn ecb(&self, buf: &mut [u8], decrypt: bool) {
        debug_assert_eq!(buf.len() % 16, 0);
        let rk = if decrypt { &self.dec } else { &self.enc };
        let n = buf.len() / 16;
        // SAFETY: `buf` holds `16 * n` bytes; source and destination alias exactly, which the kernels allow.
        unsafe { (self.k.ecb)(rk.ptr(), buf.as_mut_ptr(), buf.as_ptr(), n) }
    }

    /// ECB over whole blocks in place with the given schedule.
    pub(super) fn ecb_rk(&self, rk: &RoundKeys, buf: &mut [u8]) {
        debug_assert_eq!(buf.len() % 16, 0);
        // SAFETY: as in `ecb`.
        unsafe { (self.k.ecb)(rk.ptr(), buf.as_mut_ptr(), buf.as_ptr(), buf.len() / 16) }
    }

    /// CTR over whole blocks with GCM's inc32 counter (the low 32 bits wrap without carrying), from the
    /// set's 128-bit CTR kernel: the message is split where the low word wraps.
    pub(super) fn ctr32(&self, ctr: &mut [u8; 16], buf: &mut [u8]) {
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
    pub(super) fn encrypt_block(&self, block: &[u8; 16]) -> [u8; 16] {
        let mut b = *block;
        self.ecb(&mut b, false);
        b
    }

    /// `E(first)` (bytes 0..16) and, where given, `E(second)` (bytes 16..32), from one ECB call: the two blocks
    /// go through the rounds side by side, in one block's latency (on Zen 4 a second call cost another ~350
    /// cycles). For a mode's tag mask together with the keystream of a message's partial last block.
    pub(super) fn encrypt_pair(&self, first: &[u8; 16], second: Option<&[u8; 16]>) -> Zeroizing<[u8; 32]> {
        let mut out = Zeroizing::new([0u8; 32]);
        out[..16].copy_from_slice(first);
        let n = match second {
            Some(b) => {
                out[16..].copy_from_slice(b);
                32
            }
            None => 16,
        };
        self.ecb(&mut out[..n], false);
        out
    }

    /// A chaining kernel (`f(rk, dst, src, n, state)`) over whole blocks of `buf` in place.
    pub(super) fn chain(&self, f: dispatch::ChainFn, rk: &RoundKeys, buf: &mut [u8], state: &mut [u8; 16]) {
        debug_assert_eq!(buf.len() % 16, 0);
        let n = buf.len() / 16;
        // SAFETY: `buf` holds `16 * n` bytes (exact aliasing allowed), `state` 16 writable bytes, `rk` 128.
        unsafe { f(rk.ptr(), buf.as_mut_ptr(), buf.as_ptr(), n, state.as_mut_ptr()) }
    }

    /// CBC-MAC kernel over whole blocks.
    pub(super) fn cbc_mac(&self, mac: &mut [u8; 16], data: &[u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        // SAFETY: `data` holds `16 * n` readable bytes, `mac` 16 writable bytes.
        unsafe { (self.k.cbc_mac)(self.enc.ptr(), mac.as_mut_ptr(), data.as_ptr(), data.len() / 16) }
    }
}

/// Up to `N` blocks of secret bytes on the stack (a message's tail, a keystream): not zeroed when made; the
/// blocks filled ([`Self::fill`], [`Self::copy_padded`]) are wiped on drop, as u128 stores, so a short message
/// pays for its own blocks, not for `N`.
pub(super) struct WipedBlocks<const N: usize> {
    blocks: MaybeUninit<[u128; N]>,
    used: usize,
}

impl<const N: usize> WipedBlocks<N> {
    /// None filled.
    pub(super) fn new() -> Self {
        WipedBlocks { blocks: MaybeUninit::uninit(), used: 0 }
    }

    /// The first `n` blocks (at most `N`), block `i` written as `block(i)`, as bytes.
    pub(super) fn fill(&mut self, n: usize, mut block: impl FnMut(usize) -> [u8; 16]) -> &mut [u8] {
        assert!(n <= N, "{n} blocks in a buffer of {N}");
        let p = self.blocks.as_mut_ptr().cast::<[u8; 16]>();
        self.used = 0;
        for i in 0..n {
            // SAFETY: block `i < N` of the buffer ([u8; 16] has u128's size and a smaller alignment), counted
            // by `used` once written.
            unsafe { p.add(i).write(block(i)) };
            self.used = i + 1;
        }
        // SAFETY: the first `n` blocks are written; u128 has no padding.
        unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), 16 * n) }
    }

    /// `src` (at most `N` blocks) in the first blocks, the last one zero-padded, as bytes. One copy, not a
    /// block at a time: the kernels' wide loads of it then forward from few stores.
    pub(super) fn copy_padded(&mut self, src: &[u8]) -> &mut [u8] {
        let n = src.len().div_ceil(16);
        assert!(n <= N, "{n} blocks in a buffer of {N}");
        let p = self.blocks.as_mut_ptr().cast::<u8>();
        self.used = 0;
        // SAFETY: `n <= N` blocks of the buffer: the last zeroed, then `src` over the start of them, then
        // counted by `used`; u128 has no padding.
        unsafe {
            if n > 0 {
                p.add(16 * (n - 1)).cast::<[u8; 16]>().write([0; 16]);
            }
            std::ptr::copy_nonoverlapping(src.as_ptr(), p, src.len());
            self.used = n;
            std::slice::from_raw_parts_mut(p, 16 * n)
        }
    }
}

impl<const N: usize> Drop for WipedBlocks<N> {
    fn drop(&mut self) {
        // SAFETY: the first `used` blocks are written (`fill`, `copy_padded`).
        let used = unsafe { std::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast::<u128>(), self.used) };
        used.zeroize();
    }
}

pub(super) fn xor_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

pub(super) fn whole_blocks(what: &'static str, buf: &[u8]) -> Result<(), Error> {
    if buf.len().is_multiple_of(16) {
        Ok(())
    } else {
        Err(Error::InvalidLength { what, len: buf.len() })
    }
}

/// Equality of two byte strings in time independent of their contents.
pub(super) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    let d = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    core::hint::black_box(d) == 0 && a.len() == b.len()
}

/// `Debug` for API types that show only their backend (never key material).
macro_rules! backend_debug {
    ($($t:ident),*) => {$(
        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t)).field("backend", &self.backend()).finish_non_exhaustive()
            }
        }
    )*};
}
pub(super) use backend_debug;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn ctr32_wraps_without_carry_on_every_set() {
        let key = [0x2bu8; 16];
        for k in dispatch::all().iter().filter(|k| k.available) {
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
