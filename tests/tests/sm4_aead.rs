//! SM4-GCM and SM4-CCM on every backend: RFC 8998's examples, differential tests against RustCrypto's
//! `aes-gcm` (its generic `AesGcm<Sm4, N>`, several nonce lengths) and `ccm` (several nonce and tag
//! lengths) over every length 0..=1024 and random lengths up to 64 KiB with random associated data and
//! misaligned buffers; tag failures leave the buffer unchanged (the fused decryption kernels restore it);
//! GCM's 32-bit counter wraps without carrying (nonces chosen for a J0 near the wrap); wrong lengths are errors.
//! GCM runs on each of a backend's paths (fused kernels where it has them, and composed), whichever is its
//! default on this CPU.

use aead::{AeadInOut, KeyInit};
use asmgen_runtime::{sm4_backends, Error, GcmPath, Sm4Ccm, Sm4Gcm};
use asmgen_tests::{hex, hex16, sweep, Misaligned, Rng};
use cipher::array::ArraySize;
use cipher::consts::{U1, U10, U11, U12, U13, U14, U16, U4, U6, U7, U8};
use cipher::BlockCipherEncrypt;

const KEY: &str = "0123456789abcdeffedcba9876543210";
const NONCE: &str = "00001234567800000000abcd";
const AAD: &str = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
const PT: &str = "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd\
                  eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa";

/// The backend's GCM on each path it has, pinned (fused where the set has fused kernels, and composed: from 113
/// bytes on, the bulk on that path), and as keyed by default (its short messages' path up to 1520 bytes), each
/// with its name.
fn gcms(key: &[u8; 16], b: &str) -> Vec<(Sm4Gcm, String)> {
    let mut v: Vec<(Sm4Gcm, String)> = [GcmPath::Fused, GcmPath::Composed]
        .into_iter()
        .filter_map(|p| Sm4Gcm::with_path(key, b, p).ok().map(|g| (g, format!("{p:?}"))))
        .collect();
    let g = Sm4Gcm::with_backend(key, b).unwrap();
    let name = format!("default ({:?})", g.path());
    v.push((g, name));
    v
}

#[test]
fn rfc8998_gcm_example() {
    let ct = hex("17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735\
         d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d");
    let tag = hex16("83de3541e4c2b58177e065a9bf7b62ec");
    for b in sm4_backends() {
        for (g, p) in gcms(&hex16(KEY), b) {
            let mut buf = hex(PT);
            assert_eq!(g.encrypt(&hex(NONCE), &hex(AAD), &mut buf).unwrap(), tag, "{b} {p}");
            assert_eq!(buf, ct, "{b} {p}");
            g.decrypt(&hex(NONCE), &hex(AAD), &mut buf, &tag).unwrap();
            assert_eq!(buf, hex(PT), "{b} {p}");
        }
    }
}

#[test]
fn rfc8998_ccm_example() {
    let ct = hex("48af93501fa62adbcd414cce6034d895dda1bf8f132f042098661572e7483094\
         fd12e518ce062c98acee28d95df4416bed31a2f04476c18bb40c84a74b97dc5b");
    let tag = hex("16842d4fa186f56ab33256971fa110f4");
    for b in sm4_backends() {
        let c = Sm4Ccm::with_backend(&hex16(KEY), b).unwrap();
        let mut buf = hex(PT);
        let mut t = [0u8; 16];
        c.encrypt(&hex(NONCE), &hex(AAD), &mut buf, &mut t).unwrap();
        assert_eq!((buf.clone(), t.to_vec()), (ct.clone(), tag.clone()), "{b}");
        c.decrypt(&hex(NONCE), &hex(AAD), &mut buf, &tag).unwrap();
        assert_eq!(buf, hex(PT), "{b}");
    }
}

/// RustCrypto's GCM over SM4 with an `N`-byte nonce: (ciphertext, tag).
fn rc_gcm<N: ArraySize>(key: &[u8; 16], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16]) {
    let g = aes_gcm::AesGcm::<sm4::Sm4, N>::new(&(*key).into());
    let mut buf = pt.to_vec();
    let tag = g.encrypt_inout_detached(nonce.try_into().unwrap(), aad, buf.as_mut_slice().into()).unwrap();
    (buf, tag.into())
}

fn rc_gcm_any(key: &[u8; 16], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, [u8; 16]) {
    match nonce.len() {
        1 => rc_gcm::<U1>(key, nonce, aad, pt),
        8 => rc_gcm::<U8>(key, nonce, aad, pt),
        12 => rc_gcm::<U12>(key, nonce, aad, pt),
        16 => rc_gcm::<U16>(key, nonce, aad, pt),
        n => unreachable!("nonce length {n}"),
    }
}

fn rc_ccm<M: ArraySize + ccm::TagSize, N: ArraySize + ccm::NonceSize>(
    key: &[u8; 16],
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
) -> (Vec<u8>, Vec<u8>) {
    let c = ccm::Ccm::<sm4::Sm4, M, N>::new(&(*key).into());
    let mut buf = pt.to_vec();
    let tag = c.encrypt_inout_detached(nonce.try_into().unwrap(), aad, buf.as_mut_slice().into()).unwrap();
    (buf, tag.to_vec())
}

/// (tag length, nonce length) pairs compared against `ccm`.
const CCM_SHAPES: [(usize, usize); 6] = [(16, 12), (4, 7), (8, 13), (10, 11), (6, 8), (14, 10)];

fn rc_ccm_any(shape: (usize, usize), key: &[u8; 16], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    match shape {
        (16, 12) => rc_ccm::<U16, U12>(key, nonce, aad, pt),
        (4, 7) => rc_ccm::<U4, U7>(key, nonce, aad, pt),
        (8, 13) => rc_ccm::<U8, U13>(key, nonce, aad, pt),
        (10, 11) => rc_ccm::<U10, U11>(key, nonce, aad, pt),
        (6, 8) => rc_ccm::<U6, U8>(key, nonce, aad, pt),
        (14, 10) => rc_ccm::<U14, U10>(key, nonce, aad, pt),
        s => unreachable!("{s:?}"),
    }
}

fn check(b: &str, rng: &mut Rng, data: &[u8], case: usize) {
    let key = rng.block();
    let mut aad = vec![0u8; [0, 1, 16, 20, 100, 300][case % 6]];
    rng.fill(&mut aad);
    let len = data.len();

    // GCM.
    let nonce_len = [12, 12, 1, 8, 16][case % 5];
    let mut nonce = vec![0u8; nonce_len];
    rng.fill(&mut nonce);
    let (want, want_tag) = rc_gcm_any(&key, &nonce, &aad, data);
    for (g, p) in gcms(&key, b) {
        let mut m = Misaligned::new(data, rng.below(32));
        let tag = g.encrypt(&nonce, &aad, m.get()).unwrap();
        m.check_guards();
        assert_eq!((m.get().to_vec(), tag), (want.clone(), want_tag), "{b} {p}: GCM, length {len}, nonce {nonce_len}");
        g.decrypt(&nonce, &aad, m.get(), &tag).unwrap();
        m.check_guards();
        assert_eq!(m.get(), data, "{b} {p}: GCM decryption, length {len}");
    }

    // CCM.
    let shape = CCM_SHAPES[case % CCM_SHAPES.len()];
    let mut nonce = vec![0u8; shape.1];
    rng.fill(&mut nonce);
    let (want, want_tag) = rc_ccm_any(shape, &key, &nonce, &aad, data);
    let c = Sm4Ccm::with_backend(&key, b).unwrap();
    let mut m = Misaligned::new(data, rng.below(32));
    let mut tag = vec![0u8; shape.0];
    c.encrypt(&nonce, &aad, m.get(), &mut tag).unwrap();
    m.check_guards();
    assert_eq!((m.get().to_vec(), tag.clone()), (want, want_tag), "{b}: CCM, length {len}, shape {shape:?}");
    c.decrypt(&nonce, &aad, m.get(), &tag).unwrap();
    m.check_guards();
    assert_eq!(m.get(), data, "{b}: CCM decryption, length {len}");
}

#[test]
fn every_length_to_1024_matches_rustcrypto() {
    let mut rng = Rng::new(8998);
    let mut data = vec![0u8; 1024];
    for b in sm4_backends() {
        for len in sweep::every_length(b, 0, 1024) {
            rng.fill(&mut data[..len]);
            check(b, &mut rng, &data[..len], len);
        }
    }
}

#[test]
fn random_lengths_to_64k_match_rustcrypto() {
    let mut rng = Rng::new(38);
    let mut data = vec![0u8; 65536];
    for b in sm4_backends() {
        let (max, count) = sweep::random_lengths(b, 65536, 12);
        for case in 0..count {
            let len = rng.below(max + 1);
            rng.fill(&mut data[..len]);
            check(b, &mut rng, &data[..len], case);
        }
    }
}

#[test]
fn tag_failures_leave_the_buffer_unchanged() {
    let mut rng = Rng::new(1);
    for b in sm4_backends() {
        for len in [0usize, 1, 15, 16, 17, 64, 100, 1000] {
            let key = rng.block();
            let mut pt = vec![0u8; len];
            rng.fill(&mut pt);
            let aad = rng.block();
            let nonce = rng.block();

            for (g, p) in gcms(&key, b) {
                let mut ct = pt.clone();
                let tag = g.encrypt(&nonce[..12], &aad, &mut ct).unwrap();
                let mut bad_tag = tag;
                bad_tag[rng.below(16)] ^= 1 << rng.below(8);
                let mut buf = ct.clone();
                let failed = g.decrypt(&nonce[..12], &aad, &mut buf, &bad_tag);
                assert_eq!(failed, Err(Error::TagMismatch), "{b} {p}: {len}");
                assert_eq!(buf, ct, "{b} {p}: GCM buffer changed on failure");
                assert!(g.decrypt(&nonce[..12], &aad[..15], &mut buf, &tag).is_err(), "{b} {p}: GCM with other AAD");
                assert!(g.decrypt(&nonce[1..13], &aad, &mut buf, &tag).is_err(), "{b} {p}: GCM with other nonce");
                if len > 0 {
                    buf[rng.below(len)] ^= 0x80;
                    let before = buf.clone();
                    let altered = g.decrypt(&nonce[..12], &aad, &mut buf, &tag);
                    assert!(altered.is_err(), "{b} {p}: GCM with altered text");
                    assert_eq!(buf, before, "{b} {p}: GCM buffer changed on failure");
                }
            }

            let c = Sm4Ccm::with_backend(&key, b).unwrap();
            let mut ct = pt.clone();
            let mut tag = [0u8; 12];
            c.encrypt(&nonce[..11], &aad, &mut ct, &mut tag).unwrap();
            let mut buf = ct.clone();
            let mut bad = tag;
            bad[rng.below(12)] ^= 1 << rng.below(8);
            assert_eq!(c.decrypt(&nonce[..11], &aad, &mut buf, &bad), Err(Error::TagMismatch), "{b}: {len}");
            assert_eq!(buf, ct, "{b}: CCM buffer changed on failure");
            assert!(c.decrypt(&nonce[..11], &aad, &mut buf, &tag[..10]).is_err(), "{b}: CCM with a truncated tag");
            assert_eq!(buf, ct);
            if len > 0 {
                buf[rng.below(len)] ^= 4;
                let before = buf.clone();
                assert!(c.decrypt(&nonce[..11], &aad, &mut buf, &tag).is_err(), "{b}: CCM with altered text");
                assert_eq!(buf, before, "{b}: CCM buffer changed on failure");
            }
        }
    }
}

#[test]
fn wrong_lengths_are_errors() {
    let g = Sm4Gcm::new(&[1; 16]);
    let mut buf = [5u8; 20];
    assert!(matches!(g.encrypt(&[], &[], &mut buf), Err(Error::InvalidNonceLength { len: 0 })));
    assert!(g.decrypt(&[], &[], &mut buf, &[0; 16]).is_err());
    assert_eq!(buf, [5; 20]);
    let c = Sm4Ccm::new(&[1; 16]);
    let mut tag = [0u8; 16];
    for n in [0usize, 6, 14, 16] {
        let nonce = vec![0u8; n];
        assert!(matches!(c.encrypt(&nonce, &[], &mut buf, &mut tag), Err(Error::InvalidNonceLength { .. })));
        assert!(c.decrypt(&nonce, &[], &mut buf, &tag).is_err());
    }
    for t in [0usize, 2, 3, 5, 15, 17, 18] {
        let mut tag = vec![0u8; t];
        assert!(matches!(c.encrypt(&[0; 12], &[], &mut buf, &mut tag), Err(Error::InvalidTagLength { .. })));
        assert!(c.decrypt(&[0; 12], &[], &mut buf, &tag).is_err());
    }
    assert_eq!(buf, [5; 20]);
    // A 13-byte nonce leaves 2 bytes for the length: 65,536 bytes do not fit.
    let mut big = vec![0u8; 65536];
    assert!(matches!(c.encrypt(&[0; 13], &[], &mut big, &mut tag), Err(Error::InvalidLength { .. })));
    c.encrypt(&[0; 13], &[], &mut big[..65535], &mut tag).unwrap();
}

#[test]
fn aead_traits_match_the_inherent_api() {
    let mut rng = Rng::new(77);
    let key = rng.block();
    let nonce = rng.block();
    let mut pt = vec![0u8; 77];
    rng.fill(&mut pt);
    let g = <Sm4Gcm as KeyInit>::new(&key.into());
    let mut buf = pt.clone();
    let tag = g.encrypt_inout_detached(nonce[..12].try_into().unwrap(), b"ad", buf.as_mut_slice().into()).unwrap();
    let (want, want_tag) = rc_gcm::<U12>(&key, &nonce[..12], b"ad", &pt);
    assert_eq!((buf.clone(), <[u8; 16]>::from(tag)), (want, want_tag));
    g.decrypt_inout_detached(nonce[..12].try_into().unwrap(), b"ad", buf.as_mut_slice().into(), &tag).unwrap();
    assert_eq!(buf, pt);
    let mut bad = tag;
    bad[0] ^= 1;
    assert!(g.decrypt_inout_detached(nonce[..12].try_into().unwrap(), b"ad", buf.as_mut_slice().into(), &bad).is_err());
}

/// The default path: the fused kernels where the set has them and no GHASH set ranked above theirs runs
/// (RFC 8998's key); composed where a wider GHASH set is in use (VPCLMULQDQ on ymm or zmm) than the set's
/// fused kernels multiply as (the GFNI zmm set's multiply as the zmm GHASH set); a set without fused kernels
/// refuses [`GcmPath::Fused`] with an error.
#[test]
fn gcm_path_follows_the_ghash_set() {
    let key = hex16(KEY);
    let ghash = asmgen_runtime::Ghash::new(&key).backend();
    let wide = ["x86_64-vpclmul-avx512", "x86_64-vpclmul-avx2"].iter().any(|w| ghash.ends_with(w));
    for b in sm4_backends() {
        let default = Sm4Gcm::with_backend(&key, b).unwrap().path();
        match Sm4Gcm::with_path(&key, b, GcmPath::Fused) {
            Err(e) => {
                assert_eq!(e, Error::Unsupported { what: "fused GCM", backend: b }, "{b}");
                assert_eq!(default, GcmPath::Composed, "{b}: no fused kernels");
            }
            Ok(_) if b.starts_with("aot/x86_64") || b.starts_with("jit/x86_64") || b.starts_with("interp/x86_64") => {
                let zmm_fused = b.ends_with("x86_64-gfni-avx512");
                let want = if wide && !zmm_fused { GcmPath::Composed } else { GcmPath::Fused };
                assert_eq!(default, want, "{b} with GHASH {ghash}");
            }
            Ok(_) if b == "portable" || b.contains("aarch64-sm4ce") => {
                assert_eq!(default, GcmPath::Fused, "{b} with GHASH {ghash}")
            }
            Ok(_) => {}
        }
    }
}

#[test]
fn gcm_failures_restore_the_buffer_on_every_backend() {
    let mut rng = Rng::new(11);
    let lengths: Vec<usize> = (0..=80).chain([4096 + 13]).collect();
    for b in sm4_backends() {
        let key = rng.block();
        for (g, p) in gcms(&key, b) {
            for &len in &lengths {
                let (nonce, aad) = (rng.block(), rng.block());
                let mut ct = vec![0u8; len];
                rng.fill(&mut ct);
                let tag = g.encrypt(&nonce[..12], &aad, &mut ct).unwrap();
                let mut bad = tag;
                bad[rng.below(16)] ^= 1 << rng.below(8);
                let mut m = Misaligned::new(&ct, rng.below(32));
                assert_eq!(g.decrypt(&nonce[..12], &aad, m.get(), &bad), Err(Error::TagMismatch), "{b} {p}: {len}");
                m.check_guards();
                assert!(m.get() == ct, "{b} {p}: length {len}: the buffer was not restored after a bad tag");
                g.decrypt(&nonce[..12], &aad, m.get(), &tag).unwrap();
                g.encrypt(&nonce[..12], &aad, m.get()).unwrap();
                assert!(m.get() == ct, "{b} {p}: length {len}: decryption after the failure");
            }
        }
    }
}

/// GHASH's multiplication in GF(2^128), blocks as big-endian integers (SP 800-38D, algorithm 1).
fn gf_mul(x: u128, y: u128) -> u128 {
    let (mut z, mut v) = (0u128, y);
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 { (v >> 1) ^ (0xe1 << 120) } else { v >> 1 };
    }
    z
}

/// `a^-1 = a^(2^128 - 2)`: the product of a^(2^i), i = 1..=127.
fn gf_inv(a: u128) -> u128 {
    let (mut r, mut sq) = (1u128 << 127, a);
    for _ in 1..128 {
        sq = gf_mul(sq, sq);
        r = gf_mul(r, sq);
    }
    r
}

fn sm4_block(key: &[u8; 16], block: [u8; 16]) -> [u8; 16] {
    let mut x = block.into();
    <sm4::Sm4 as KeyInit>::new(&(*key).into()).encrypt_block(&mut x);
    x.into()
}

/// A 16-byte nonce whose J0 is `j0`: J0 = GHASH(N || 0^64 || [128]_64) = N*H^2 ^ L*H, so N = (J0 ^ L*H) / H^2.
fn nonce_for_j0(key: &[u8; 16], j0: u128) -> [u8; 16] {
    let h = u128::from_be_bytes(sm4_block(key, [0; 16]));
    assert_eq!(gf_mul(h, gf_inv(h)), 1 << 127, "the inverse");
    gf_mul(j0 ^ gf_mul(128, h), gf_inv(gf_mul(h, h))).to_be_bytes()
}

#[test]
fn gcm_counter_wraps_in_32_bits_on_every_backend() {
    let mut rng = Rng::new(32);
    let key = rng.block();
    let aad = rng.block();
    let mut pt = vec![0u8; 4096 + 13];
    rng.fill(&mut pt);
    let high = u128::from_be_bytes(rng.block()) >> 32 << 32;
    // J0's low word: inc32 gives the first block's counter, so the wrap falls at block 0, 1, 7, 8, 9, 16, 250.
    for low in [u32::MAX, u32::MAX - 1, u32::MAX - 7, u32::MAX - 8, u32::MAX - 9, u32::MAX - 16, u32::MAX - 250] {
        let j0 = high | u128::from(low);
        let nonce = nonce_for_j0(&key, j0);
        for len in [4096 + 13, 16 * 9 + 5, 16 * 17, 16 * 33 + 1] {
            let (want, want_tag) = rc_gcm::<U16>(&key, &nonce, &aad, &pt[..len]);
            // The wrap is there: block i's keystream is E(J0's first 12 bytes || low + 1 + i mod 2^32).
            for (i, (c, p)) in want.chunks(16).zip(pt.chunks(16)).enumerate() {
                let ks =
                    sm4_block(&key, (j0 & !0xffff_ffff | u128::from(low.wrapping_add(1 + i as u32))).to_be_bytes());
                assert!(c.iter().zip(p).zip(ks).all(|((c, p), k)| *c == p ^ k), "RustCrypto's block {i}, low {low:#x}");
            }
            for (b, (g, p)) in sm4_backends().into_iter().flat_map(|b| gcms(&key, b).into_iter().map(move |g| (b, g))) {
                let mut buf = pt[..len].to_vec();
                let tag = g.encrypt(&nonce, &aad, &mut buf).unwrap();
                assert!(buf == want && tag == want_tag, "{b} {p}: encryption, low {low:#x}, length {len}");
                let mut bad = tag;
                bad[15] ^= 1;
                assert!(g.decrypt(&nonce, &aad, &mut buf, &bad).is_err());
                assert!(buf == want, "{b} {p}: restored after a bad tag, low {low:#x}, length {len}");
                g.decrypt(&nonce, &aad, &mut buf, &tag).unwrap();
                assert!(buf == pt[..len], "{b} {p}: decryption, low {low:#x}, length {len}");
            }
        }
    }
}

/// One `Sm4Gcm` (its GHASH key's table filled as messages need it) used by several threads at once, fresh
/// and after a clone, on every backend and path: threads that find a level being filled by another use a copy
/// of their own, and every result is RustCrypto's.
#[test]
fn one_key_from_several_threads_matches_rustcrypto() {
    let mut rng = Rng::new(77);
    let mut data = vec![0u8; 4096];
    rng.fill(&mut data);
    for b in sm4_backends() {
        for round in 0..4 {
            let key = rng.block();
            for (g, path) in gcms(&key, b) {
                let shared = if round % 2 == 0 { g } else { g.clone() };
                std::thread::scope(|s| {
                    for t in 0..4usize {
                        let (g, data, path) = (&shared, &data, &path);
                        s.spawn(move || {
                            for len in [16 * (t + 1), 100 + t, 1024 + 16 * t, 4000 - t, 1] {
                                let mut buf = data[..len].to_vec();
                                let tag = g.encrypt(&[t as u8; 12], &data[..t], &mut buf).unwrap();
                                let (ct, rtag) = rc_gcm_any(&key, &[t as u8; 12], &data[..t], &data[..len]);
                                assert_eq!((buf, tag), (ct, rtag), "{b} {path}, thread {t}, {len} bytes");
                            }
                        });
                    }
                });
            }
        }
    }
}
