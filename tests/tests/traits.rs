//! Every mode behind its RustCrypto trait, checked with RustCrypto's generic harnesses and against RustCrypto's
//! compositions on random inputs, on every backend: `Sm4Ctr` as `StreamCipher` + `StreamCipherSeek` against
//! `ctr::Ctr128BE<sm4::Sm4>` (random keys, counters near the wrap, lengths, chunkings and seeks); `Sm4CcmAead`
//! as `aead::AeadInOut` against `ccm::Ccm<sm4::Sm4, M, N>`; `Sm4Cmac` as `digest::Mac` against
//! `cmac::Cmac<sm4::Sm4>`, and `Sm4Xcbc` and `Sm4CbcMac` through `Mac` against their inherent API (which
//! sm4_mac.rs checks against references); `verify` accepts the right tag only. The harnesses: cipher's
//! `stream_cipher_test` and `stream_cipher_seek_test`, aead's `pass_test` and `fail_test` (RFC 8998's GCM and
//! CCM examples), digest's `mac_test` and `reset_mac_test`. And `UniversalHash::update` hands every block to
//! the kernel (the same result as the inherent API on every backend).

use asmgen_runtime::aead::consts::{U10, U11, U12, U13, U14, U16, U4, U6, U7, U8, U9};
use asmgen_runtime::aead::{Aead, AeadInOut, KeyInit};
use asmgen_runtime::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use asmgen_runtime::digest::Mac;
use asmgen_runtime::{sm4_backends, CcmNonceSize, CcmTagSize, Error, Sm4CbcMac, Sm4CcmAead, Sm4Cmac, Sm4Ctr, Sm4Xcbc};
use asmgen_tests::{hex, hex16, sweep, Rng};

cipher::stream_cipher_seek_test!(ctr_seeks_as_the_cipher_harness_asks, asmgen_runtime::Sm4Ctr);

type RcCtr = ctr::Ctr128BE<sm4::Sm4>;

#[test]
fn ctr_passes_the_cipher_harness_on_the_draft_example() {
    // draft-ribose-cfrg-sm4, CTR: every chunk length 1..256 (the harness's loop).
    let key = hex("0123456789abcdeffedcba9876543210");
    let plaintext = hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd\
                         eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa");
    let ciphertext = hex("c2b4759e78ac3cf43d0852f4e8d5f9fd7256e8a5fcb65a350ee00630912e4449\
                          2a0b17e1b85b060d0fba612d8a95831638b361fd5ffacd942f081485a83ca35d");
    let leak = |v: Vec<u8>| -> &'static [u8] { Box::leak(v.into_boxed_slice()) };
    let tv = cipher::dev::stream::TestVector {
        key: leak(key.clone()),
        iv: leak(key),
        plaintext: leak(plaintext),
        ciphertext: leak(ciphertext),
    };
    cipher::dev::stream::stream_cipher_test::<Sm4Ctr>(&tv).unwrap();
}

/// Splits `len` into random pieces: mostly short ones (partial blocks), sometimes long ones.
fn chunks(rng: &mut Rng, len: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut left = len;
    while left > 0 {
        let n = match rng.below(4) {
            0 => rng.below(left + 1),
            _ => rng.below(40),
        }
        .min(left);
        out.push(n);
        left -= n;
    }
    out
}

#[test]
fn ctr_matches_the_ctr_crate_over_random_chunkings_and_seeks() {
    let mut rng = Rng::new(0x5eed_c7a1);
    for b in sm4_backends() {
        let (max, count) = sweep::random_lengths(b, 4096, 40);
        for case in 0..count {
            let key = rng.block();
            let mut iv = rng.block();
            if case % 4 == 0 {
                // Near the 128-bit wrap: the counter runs over it within the message.
                iv = (u128::MAX - rng.below(20) as u128).to_be_bytes();
            }
            let len = rng.below(max + 1);
            let mut data = vec![0u8; len];
            rng.fill(&mut data);
            let mut want = data.clone();
            RcCtr::new(&key.into(), &iv.into()).apply_keystream(&mut want);

            let mut s = Sm4Ctr::with_backend(&key, &iv, b).unwrap();
            assert_eq!(s.backend(), b);
            let mut got = data.clone();
            let mut at = 0;
            for n in chunks(&mut rng, len) {
                s.apply_keystream(&mut got[at..at + n]);
                at += n;
                assert_eq!(s.current_pos::<u64>(), at as u64, "{b}: position");
            }
            assert!(got == want, "{b}: case {case}, {len} bytes");

            // Seek anywhere (before, inside, past the message) against the crate's seek.
            for _ in 0..4 {
                let pos = rng.below(len + 40);
                let mut rc = RcCtr::new(&key.into(), &iv.into());
                rc.seek(pos);
                let mut s2 = s.clone();
                s2.seek(pos as u64);
                assert_eq!(s2.current_pos::<usize>(), pos, "{b}: position after seek");
                let mut x = vec![0u8; rng.below(100)];
                rng.fill(&mut x);
                let mut y = x.clone();
                rc.apply_keystream(&mut x);
                s2.apply_keystream(&mut y);
                assert_eq!(x, y, "{b}: after seeking to {pos}");
            }
        }
    }
}

#[test]
fn ctr_through_inout_and_keystream_writes_matches() {
    let mut rng = Rng::new(3);
    let (key, iv) = (rng.block(), rng.block());
    let mut data = vec![0u8; 333];
    rng.fill(&mut data);
    let mut want = data.clone();
    RcCtr::new(&key.into(), &iv.into()).apply_keystream(&mut want);
    let mut out = vec![0u8; 333];
    let mut s = Sm4Ctr::new(&key.into(), &iv.into());
    s.apply_keystream_b2b(&data[..7], &mut out[..7]);
    s.apply_keystream_b2b(&data[7..], &mut out[7..]);
    assert_eq!(out, want);
    let mut ks = vec![0u8; 333];
    let mut s = Sm4Ctr::new(&key.into(), &iv.into());
    s.write_keystream(&mut ks[..100]);
    s.write_keystream(&mut ks[100..]);
    let xored: Vec<u8> = ks.iter().zip(&data).map(|(k, d)| k ^ d).collect();
    assert_eq!(xored, want);
}

#[test]
fn ctr_seeks_to_the_end_of_u128_positions_as_the_crate_does() {
    let mut rng = Rng::new(4);
    let (key, iv) = (rng.block(), rng.block());
    for pos in [u128::MAX - 40, u128::MAX - 16, u128::MAX - 5, u128::MAX] {
        let mut s = Sm4Ctr::new(&key.into(), &iv.into());
        let mut rc = RcCtr::new(&key.into(), &iv.into());
        assert_eq!(s.try_seek(pos).is_ok(), rc.try_seek(pos).is_ok(), "seek to {pos:#x}");
        let (mut x, mut y) = ([0u8; 21], [0u8; 21]);
        assert_eq!(s.try_apply_keystream(&mut x).is_ok(), rc.try_apply_keystream(&mut y).is_ok());
        assert_eq!(x, y, "keystream at {pos:#x}");
        assert_eq!(s.try_current_pos::<u128>().ok(), rc.try_current_pos::<u128>().ok(), "position after {pos:#x}");
    }
}

fn ccm_against_the_crate<M, N>(rng: &mut Rng, b: &str)
where
    M: CcmTagSize + ccm::TagSize,
    N: CcmNonceSize + ccm::NonceSize,
{
    let (max, count) = sweep::random_lengths(b, 2048, 12);
    for case in 0..count {
        let key = rng.block();
        let mut nonce = vec![0u8; N::USIZE];
        rng.fill(&mut nonce);
        let mut aad = vec![0u8; [0, 1, 16, 31, 300][case % 5]];
        rng.fill(&mut aad);
        let mut pt = vec![0u8; rng.below(max + 1)];
        rng.fill(&mut pt);
        let ours = Sm4CcmAead::<M, N>::with_backend(&key, b).unwrap();
        let theirs = ccm::Ccm::<sm4::Sm4, M, N>::new(&key.into());
        let n = nonce.as_slice().try_into().unwrap();
        let ct = ours.encrypt(n, aead::Payload { msg: &pt, aad: &aad }).unwrap();
        assert_eq!(
            ct,
            theirs.encrypt(n, aead::Payload { msg: &pt, aad: &aad }).unwrap(),
            "{b}: CCM<{}, {}> case {case}",
            M::USIZE,
            N::USIZE
        );
        assert_eq!(ours.decrypt(n, aead::Payload { msg: &ct, aad: &aad }).unwrap(), pt);
        let mut bad = ct.clone();
        let i = rng.below(bad.len());
        bad[i] ^= 1;
        assert!(ours.decrypt(n, aead::Payload { msg: &bad, aad: &aad }).is_err(), "{b}: forged");
        // The detached, in-place path.
        let mut buf = pt.clone();
        let tag = ours.encrypt_inout_detached(n, &aad, buf.as_mut_slice().into()).unwrap();
        assert_eq!([&buf[..], &tag[..]].concat(), ct);
    }
}

#[test]
fn ccm_aead_matches_the_ccm_crate() {
    let mut rng = Rng::new(0xcc);
    for b in sm4_backends() {
        ccm_against_the_crate::<U16, U13>(&mut rng, b);
        ccm_against_the_crate::<U16, U12>(&mut rng, b);
        ccm_against_the_crate::<U4, U7>(&mut rng, b);
        ccm_against_the_crate::<U6, U8>(&mut rng, b);
        ccm_against_the_crate::<U8, U13>(&mut rng, b);
        ccm_against_the_crate::<U10, U11>(&mut rng, b);
        ccm_against_the_crate::<U12, U10>(&mut rng, b);
        ccm_against_the_crate::<U14, U9>(&mut rng, b);
    }
}

#[test]
fn ccm_aead_rfc8998_example() {
    // RFC 8998, A.2 (SM4-CCM: 16-byte tag, 12-byte nonce).
    let key = hex16("0123456789abcdeffedcba9876543210");
    let nonce = hex("00001234567800000000abcd");
    let aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    let pt = hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd\
                  eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa");
    let ct = Sm4CcmAead::<U16, U12>::new(&key.into())
        .encrypt(nonce.as_slice().try_into().unwrap(), aead::Payload { msg: &pt, aad: &aad })
        .unwrap();
    let want = hex("48af93501fa62adbcd414cce6034d895dda1bf8f132f042098661572e7483094\
                    fd12e518ce062c98acee28d95df4416bed31a2f04476c18bb40c84a74b97dc5b\
                    16842d4fa186f56ab33256971fa110f4");
    assert_eq!(ct, want);
}

/// A `&'static` copy, as the harnesses' vectors hold.
fn leak(v: &[u8]) -> &'static [u8] {
    Box::leak(v.to_vec().into_boxed_slice())
}

#[test]
fn aeads_pass_the_aead_harness_on_rfc8998() {
    use aead::dev::{fail_test, pass_test, TestVector};
    let key = hex("0123456789abcdeffedcba9876543210");
    let nonce = hex("00001234567800000000abcd");
    let aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    let pt = hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd\
                  eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa");
    // RFC 8998, A.1 (GCM) and A.2 (CCM): ciphertext then tag.
    let gcm = hex("17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735\
                   d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d\
                   83de3541e4c2b58177e065a9bf7b62ec");
    let ccm = hex("48af93501fa62adbcd414cce6034d895dda1bf8f132f042098661572e7483094\
                   fd12e518ce062c98acee28d95df4416bed31a2f04476c18bb40c84a74b97dc5b\
                   16842d4fa186f56ab33256971fa110f4");
    for (ct, is_gcm) in [(gcm, true), (ccm, false)] {
        let tv = TestVector {
            key: leak(&key),
            nonce: leak(&nonce),
            aad: leak(&aad),
            plaintext: leak(&pt),
            ciphertext: leak(&ct),
        };
        let mut bad = ct.clone();
        bad[3] ^= 1;
        let forged = TestVector { ciphertext: leak(&bad), ..tv };
        if is_gcm {
            pass_test::<asmgen_runtime::Sm4Gcm>(&tv).unwrap();
            fail_test::<asmgen_runtime::Sm4Gcm>(&forged).unwrap();
        } else {
            pass_test::<Sm4CcmAead<U16, U12>>(&tv).unwrap();
            fail_test::<Sm4CcmAead<U16, U12>>(&forged).unwrap();
        }
    }
}

#[test]
fn macs_pass_the_digest_harness() {
    use digest::dev::{mac_test, reset_mac_test, MacTestVector, MacTruncSide};
    // Vectors from RustCrypto's cmac::Cmac<sm4::Sm4> (CMAC), and from the inherent API, which sm4_mac.rs
    // checks against references (XCBC, CBC-MAC); lengths around the block size and the harness's chunk sizes.
    let mut rng = Rng::new(0xd16e);
    for len in [0, 1, 15, 16, 17, 32, 63, 64, 65, 200] {
        let key = rng.block();
        let mut input = vec![0u8; len];
        rng.fill(&mut input);
        let cmac = <cmac::Cmac<sm4::Sm4> as KeyInit>::new(&key.into()).chain_update(&input).finalize().into_bytes();
        let mut x = Sm4Xcbc::new(&key);
        x.update(&input);
        let mut c = Sm4CbcMac::new(&key);
        c.update(&input);
        let tv = |tag: &[u8]| MacTestVector { key: leak(&key), input: leak(&input), tag: leak(tag) };
        for (name, tv) in [("CMAC", tv(&cmac)), ("XCBC", tv(&x.finalize())), ("CBC-MAC", tv(&c.finalize()))] {
            let run = |trunc| match name {
                "CMAC" => mac_test::<Sm4Cmac>(&tv, trunc).and(reset_mac_test::<Sm4Cmac>(&tv, trunc)),
                "XCBC" => mac_test::<Sm4Xcbc>(&tv, trunc).and(reset_mac_test::<Sm4Xcbc>(&tv, trunc)),
                _ => mac_test::<Sm4CbcMac>(&tv, trunc).and(reset_mac_test::<Sm4CbcMac>(&tv, trunc)),
            };
            run(MacTruncSide::None).unwrap_or_else(|e| panic!("{name}, {len} bytes: {e}"));
            let left = MacTestVector { tag: &tv.tag[..8], ..tv };
            match name {
                "CMAC" => mac_test::<Sm4Cmac>(&left, MacTruncSide::Left),
                "XCBC" => mac_test::<Sm4Xcbc>(&left, MacTruncSide::Left),
                _ => mac_test::<Sm4CbcMac>(&left, MacTruncSide::Left),
            }
            .unwrap_or_else(|e| panic!("{name}, {len} bytes, truncated: {e}"));
        }
    }
}

fn mac_pieces<M: Mac>(mut m: M, rng: &mut Rng, data: &[u8]) -> M {
    let mut at = 0;
    for n in chunks(rng, data.len()) {
        m.update(&data[at..at + n]);
        at += n;
    }
    m
}

#[test]
fn cmac_matches_the_cmac_crate_through_mac() {
    let mut rng = Rng::new(0xc3ac);
    for b in sm4_backends() {
        let (max, count) = sweep::random_lengths(b, 2048, 40);
        for case in 0..count {
            let key = rng.block();
            let mut data = vec![0u8; if case < 40 { case } else { rng.below(max + 1) }];
            rng.fill(&mut data);
            let theirs = <cmac::Cmac<sm4::Sm4> as KeyInit>::new(&key.into()).chain_update(&data).finalize();
            let ours = mac_pieces(Sm4Cmac::with_backend(&key, b).unwrap(), &mut rng, &data);
            let tag: [u8; 16] = theirs.clone().into_bytes().into();
            assert_eq!(
                Mac::finalize(ours.clone()).into_bytes(),
                theirs.into_bytes(),
                "{b}: CMAC of {} bytes",
                data.len()
            );
            Mac::verify(ours.clone(), &tag.into()).unwrap();
            ours.clone().verify(&tag).unwrap();
            let mut wrong = tag;
            wrong[rng.below(16)] ^= 0x40;
            assert!(Mac::verify(ours.clone(), &wrong.into()).is_err());
            assert_eq!(ours.clone().verify(&wrong), Err(Error::TagMismatch));
            assert_eq!(ours.clone().verify(&tag[..15]), Err(Error::TagMismatch));
            // finalize_reset then the same message again.
            let mut again = ours;
            let first = again.finalize_reset();
            again.update(&data);
            assert_eq!(again.finalize(), <[u8; 16]>::from(first.into_bytes()));
        }
    }
}

#[test]
fn xcbc_and_cbc_mac_through_mac_match_their_inherent_api() {
    let mut rng = Rng::new(0x8cbc);
    for b in sm4_backends() {
        for len in sweep::every_length(b, 0, 100).into_iter().chain([1000, 4097]) {
            let key = rng.block();
            let mut data = vec![0u8; len];
            rng.fill(&mut data);
            let mut x = Sm4Xcbc::with_backend(&key, b).unwrap();
            x.update(&data);
            let want = x.clone().finalize();
            let ours = mac_pieces(<Sm4Xcbc as KeyInit>::new(&key.into()), &mut rng, &data);
            assert_eq!(<[u8; 16]>::from(Mac::finalize(ours.clone()).into_bytes()), want, "XCBC, {len} bytes");
            ours.clone().verify(&want).unwrap();
            Mac::verify_slice(ours, &want).unwrap();
            assert!(x.verify(&[0; 16]).is_err());

            let mut c = Sm4CbcMac::with_backend(&key, b).unwrap();
            c.update(&data);
            let want = c.clone().finalize();
            let mut ours = mac_pieces(<Sm4CbcMac as KeyInit>::new(&key.into()), &mut rng, &data);
            assert_eq!(<[u8; 16]>::from(ours.finalize_reset().into_bytes()), want, "CBC-MAC, {len} bytes");
            ours.update(&data);
            ours.verify(&want).unwrap();
        }
    }
}

#[test]
fn universal_hash_bulk_path_matches_the_inherent_api_on_every_backend() {
    use asmgen_runtime::universal_hash::{Block, UniversalHash};
    use asmgen_runtime::{Ghash, Polyval};
    let mut rng = Rng::new(0x0b1c);
    for b in asmgen_runtime::backends() {
        for len in sweep::every_length(b, 0, 300).into_iter().chain([4096 + 5, 20000]) {
            let h = rng.block();
            let mut data = vec![0u8; len];
            rng.fill(&mut data);
            let full = len / 16 * 16;
            let blocks: Vec<Block<Polyval>> =
                data[..full].chunks(16).map(|c| <[u8; 16]>::try_from(c).unwrap().into()).collect();

            let mut p = Polyval::with_backend(&h, b).unwrap();
            p.update_padded(&data);
            let want = p.finalize();
            let mut t = Polyval::with_backend(&h, b).unwrap();
            UniversalHash::update(&mut t, &blocks);
            UniversalHash::update_padded(&mut t, &data[full..]);
            assert_eq!(<[u8; 16]>::from(UniversalHash::finalize(t)), want, "{b}: POLYVAL, {len} bytes");

            let mut g = Ghash::with_backend(&h, b).unwrap();
            g.update_padded(&data);
            let want = g.finalize();
            let mut t = Ghash::with_backend(&h, b).unwrap();
            UniversalHash::update(&mut t, &blocks);
            UniversalHash::update_padded(&mut t, &data[full..]);
            assert_eq!(<[u8; 16]>::from(UniversalHash::finalize(t.clone())), want, "{b}: GHASH, {len} bytes");
            // The trait's verify, constant-time, against the same tag.
            assert!(UniversalHash::verify(t, &want.into()).is_ok());
        }
    }
}

/// A generic function bounded on each RustCrypto trait compiles with every asmgen type that offers it.
#[test]
fn every_type_fits_a_function_generic_over_its_traits() {
    use asmgen_runtime::cipher::{BlockCipherDecrypt, BlockCipherEncrypt};
    use asmgen_runtime::universal_hash::UniversalHash;
    use asmgen_runtime::{Ghash, Polyval, Sm4, Sm4Gcm};
    fn block<C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + Send + Sync>() {}
    fn aead<A: KeyInit + AeadInOut + Send + Sync>() {}
    fn stream<S: KeyIvInit + StreamCipher + StreamCipherSeek + Send + Sync>() {}
    fn mac<M: KeyInit + Mac + Send + Sync>() {}
    fn universal<U: KeyInit + UniversalHash + Send + Sync>() {}
    block::<Sm4>();
    aead::<Sm4Gcm>();
    aead::<Sm4CcmAead>();
    aead::<Sm4CcmAead<U8, U12>>();
    stream::<Sm4Ctr>();
    mac::<Sm4Cmac>();
    mac::<Sm4Xcbc>();
    mac::<Sm4CbcMac>();
    universal::<Ghash>();
    universal::<Polyval>();
}
