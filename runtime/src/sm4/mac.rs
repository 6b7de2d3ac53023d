//! SM4: CMAC, XCBC and CBC-MAC, with RustCrypto's `digest::Mac` (0.11) on each.

use super::dispatch::{self, Sm4Kernels};
use super::keys::*;
use crate::Error;
use digest::common::KeySizeUser;
use digest::consts::U16;
use digest::{FixedOutput, FixedOutputReset, Key, KeyInit, MacMarker, Output, OutputSizeUser, Reset, Update};
use zeroize::{Zeroize, Zeroizing};

/// The CBC-MAC chain shared by the MACs: absorbs whole blocks but always keeps the last 1..=16 bytes
/// buffered, so that finalisation can treat the last block specially.
#[derive(Clone)]
pub(super) struct MacCore {
    keys: Keys,
    state: [u8; 16],
    buf: [u8; 16],
    n: usize,
}

impl MacCore {
    pub(super) fn new(keys: Keys) -> MacCore {
        MacCore { keys, state: [0; 16], buf: [0; 16], n: 0 }
    }

    pub(super) fn update(&mut self, mut data: &[u8]) {
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
    pub(super) fn last(&self, pad: u8) -> (bool, [u8; 16]) {
        let mut b = [0u8; 16];
        b[..self.n].copy_from_slice(&self.buf[..self.n]);
        if self.n < 16 {
            b[self.n] = pad;
        }
        (self.n == 16, b)
    }

    /// Starts a new message under the same key.
    pub(super) fn reset(&mut self) {
        self.state.zeroize();
        self.buf.zeroize();
        self.n = 0;
    }

    pub(super) fn finish(&self, last: &[u8; 16]) -> [u8; 16] {
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

wipe_on_drop!(Sm4Cmac: core.keys.k);

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

    /// The 16-byte tag (`digest::Mac::finalize` returns it as a `CtOutput`).
    pub fn finalize(self) -> [u8; 16] {
        self.tag()
    }

    fn tag(&self) -> [u8; 16] {
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

wipe_on_drop!(Sm4Xcbc: core.keys.k);

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
        // K1, K2, K3 = E(0x01..), E(0x02..), E(0x03..), from one ECB call.
        let mut derived = Zeroizing::new([[1u8; 16], [2; 16], [3; 16]]);
        keys.ecb(derived.as_flattened_mut(), false);
        let [k1, k2, k3] = (*derived).map(Zeroizing::new);
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

    /// The 16-byte tag (`digest::Mac::finalize` returns it as a `CtOutput`).
    pub fn finalize(self) -> [u8; 16] {
        self.tag()
    }

    fn tag(&self) -> [u8; 16] {
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

wipe_on_drop!(Sm4CbcMac: core.keys.k);

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

    /// The 16-byte tag (`digest::Mac::finalize` returns it as a `CtOutput`).
    pub fn finalize(self) -> [u8; 16] {
        self.tag()
    }

    fn tag(&self) -> [u8; 16] {
        if self.core.n == 0 {
            return self.core.state;
        }
        let (_, last) = self.core.last(0);
        self.core.finish(&last)
    }
}

/// The methods every MAC shares beyond its own: `verify`, and RustCrypto's `digest` 0.11 traits (`KeyInit`,
/// `Update`, `FixedOutput`, `FixedOutputReset`, `Reset`, `MacMarker`, hence `digest::Mac`).
macro_rules! mac_traits {
    ($($t:ident),*) => {$(
        impl $t {
            /// Finishes the message and compares its tag with `tag` in constant time: `Ok` when they are equal,
            /// [`Error::TagMismatch`] otherwise (a `tag` that is not 16 bytes long included; for a truncated
            /// tag use `digest::Mac::verify_truncated_left`).
            pub fn verify(self, tag: &[u8]) -> Result<(), Error> {
                let mut t = self.tag();
                let ok = ct_eq(&t, tag);
                t.zeroize();
                if ok {
                    Ok(())
                } else {
                    Err(Error::TagMismatch)
                }
            }
        }

        impl KeySizeUser for $t {
            type KeySize = U16;
        }

        impl KeyInit for $t {
            fn new(key: &Key<Self>) -> Self {
                $t::new(&(*key).into())
            }
        }

        impl OutputSizeUser for $t {
            type OutputSize = U16;
        }

        impl Update for $t {
            fn update(&mut self, data: &[u8]) {
                self.core.update(data);
            }
        }

        impl FixedOutput for $t {
            fn finalize_into(self, out: &mut Output<Self>) {
                out.copy_from_slice(&self.tag());
            }
        }

        impl Reset for $t {
            fn reset(&mut self) {
                self.core.reset();
            }
        }

        impl FixedOutputReset for $t {
            fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
                out.copy_from_slice(&self.tag());
                self.core.reset();
            }
        }

        impl MacMarker for $t {}
    )*};
}

mac_traits!(Sm4Cmac, Sm4Xcbc, Sm4CbcMac);

backend_debug!(Sm4Cmac, Sm4Xcbc, Sm4CbcMac);
