//! SM4 MACs on every backend: CMAC against RustCrypto's `cmac`, XCBC (RFC 3566 over SM4) and plain CBC-MAC
//! against references written here; every length 0..=1024, random lengths up to 64 KiB, random ways of
//! splitting the input over `update` calls.

use asmgen_runtime::{sm4_backends, Sm4CbcMac, Sm4Cmac, Sm4Xcbc};
use asmgen_tests::{hex, hex16, sweep, Rng};
use cipher::{BlockCipherEncrypt, KeyInit};
use cmac::Mac;

fn rc(key: &[u8; 16]) -> sm4::Sm4 {
    sm4::Sm4::new(&(*key).into())
}

fn enc(c: &sm4::Sm4, b: [u8; 16]) -> [u8; 16] {
    let mut x = b.into();
    c.encrypt_block(&mut x);
    x.into()
}

fn rc_cmac(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut m = <cmac::Cmac<sm4::Sm4> as cmac::KeyInit>::new(&(*key).into());
    m.update(data);
    m.finalize().into_bytes().into()
}

/// CBC over `blocks` (whole blocks) from `state`.
fn chain(c: &sm4::Sm4, mut state: [u8; 16], blocks: &[u8]) -> [u8; 16] {
    for b in blocks.chunks_exact(16) {
        for i in 0..16 {
            state[i] ^= b[i];
        }
        state = enc(c, state);
    }
    state
}

/// RFC 3566, section 4, with SM4 for AES.
fn ref_xcbc(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let c = rc(key);
    let k1 = enc(&c, [1; 16]);
    let k2 = enc(&c, [2; 16]);
    let k3 = enc(&c, [3; 16]);
    let c1 = rc(&k1);
    let n = if data.is_empty() { 1 } else { data.len().div_ceil(16) };
    let state = chain(&c1, [0; 16], &data[..16 * (n - 1)]);
    let rest = &data[16 * (n - 1)..];
    let mut last = [0u8; 16];
    last[..rest.len()].copy_from_slice(rest);
    let sub = if rest.len() == 16 {
        k2
    } else {
        last[rest.len()] = 0x80;
        k3
    };
    for i in 0..16 {
        last[i] ^= sub[i];
    }
    chain(&c1, state, &last)
}

fn ref_cbc_mac(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut padded = data.to_vec();
    padded.resize(data.len().div_ceil(16) * 16, 0);
    chain(&rc(key), [0; 16], &padded)
}

/// Feeds `data` to `update` in random pieces.
fn pieces(rng: &mut Rng, data: &[u8], mut update: impl FnMut(&[u8])) {
    let mut at = 0;
    while at < data.len() {
        let step = match rng.below(4) {
            0 => rng.below(17),
            1 => 16 * rng.below(8),
            _ => rng.below(300),
        };
        let end = (at + step).min(data.len());
        update(&data[at..end]);
        at = end;
    }
}

fn check_all(b: &str, rng: &mut Rng, data: &[u8], split: bool) {
    let key = rng.block();
    let mut cm = Sm4Cmac::with_backend(&key, b).unwrap();
    let mut xc = Sm4Xcbc::with_backend(&key, b).unwrap();
    let mut cb = Sm4CbcMac::with_backend(&key, b).unwrap();
    if split {
        pieces(rng, data, |p| {
            cm.update(p);
            xc.update(p);
            cb.update(p);
        });
    } else {
        cm.update(data);
        xc.update(data);
        cb.update(data);
    }
    let len = data.len();
    assert_eq!(cm.finalize(), rc_cmac(&key, data), "{b}: CMAC, length {len}");
    assert_eq!(xc.finalize(), ref_xcbc(&key, data), "{b}: XCBC, length {len}");
    assert_eq!(cb.finalize(), ref_cbc_mac(&key, data), "{b}: CBC-MAC, length {len}");
}

#[test]
fn every_length_to_1024_matches_the_references() {
    let mut rng = Rng::new(38);
    let mut data = vec![0u8; 1024 + 16];
    for b in sm4_backends() {
        for len in sweep::every_length(b, 0, 1024) {
            let off = rng.below(16);
            rng.fill(&mut data[off..off + len]);
            check_all(b, &mut rng, &data[off..off + len], len % 2 == 1);
        }
    }
}

#[test]
fn random_lengths_to_64k_with_splits_match_the_references() {
    let mut rng = Rng::new(3566);
    let mut data = vec![0u8; 65536];
    for b in sm4_backends() {
        let (max, count) = sweep::random_lengths(b, 65536, 12);
        for _ in 0..count {
            let len = rng.below(max + 1);
            rng.fill(&mut data[..len]);
            check_all(b, &mut rng, &data[..len], true);
        }
    }
}

#[test]
fn edge_cases() {
    let key = hex16("0123456789abcdeffedcba9876543210");
    for b in sm4_backends() {
        // CBC-MAC of nothing is zero; of one block, the block's encryption.
        assert_eq!(Sm4CbcMac::with_backend(&key, b).unwrap().finalize(), [0; 16], "{b}");
        let mut m = Sm4CbcMac::with_backend(&key, b).unwrap();
        m.update(&key);
        assert_eq!(m.finalize(), hex16("681edf34d206965e86b3e94f536e4246"), "{b}");
        // Empty updates change nothing.
        let mut m = Sm4Cmac::with_backend(&key, b).unwrap();
        m.update(&[]);
        m.update(&hex("00112233"));
        m.update(&[]);
        assert_eq!(m.finalize(), rc_cmac(&key, &hex("00112233")), "{b}");
        assert_eq!(Sm4Cmac::with_backend(&key, b).unwrap().finalize(), rc_cmac(&key, &[]), "{b}");
        assert_eq!(Sm4Xcbc::with_backend(&key, b).unwrap().finalize(), ref_xcbc(&key, &[]), "{b}");
    }
}

#[test]
fn default_constructors_use_the_default_backend() {
    let k = [9u8; 16];
    let d = asmgen_runtime::Sm4::new(&k).backend();
    assert_eq!(Sm4Cmac::new(&k).backend(), d);
    assert_eq!(Sm4Xcbc::new(&k).backend(), d);
    assert_eq!(Sm4CbcMac::new(&k).backend(), d);
}
