//! The runtime's interpreter backends (feature `interp`: `cargo test -p asmgen-tests --features interp --test
//! interp_backend`): the GFNI set's SM4 kernels run by the interpreter through the safe API (ECB, CTR, XTS,
//! GCM, CBC) agree with RustCrypto at a few lengths, whatever the CPU (no GFNI needed); and every x86_64 set is
//! listed as `interp/<set>`. The aarch64 sets (`interp/aarch64-<set>`, interpreted per AAPCS64 on any host) too:
//! SM4 of both SM4 sets, GHASH and POLYVAL of the PMULL set, against RustCrypto. With the feature on, the general
//! API suites (sm4_modes, sm4_aead, sm4_xts, sm4_mac, ghash, zeroize) run every `interp/` backend too, at the
//! lengths of `asmgen_tests::sweep`.
#![cfg(feature = "interp")]

use aead::{AeadInOut, KeyInit};
use asmgen_runtime::{sm4_backend_table, Sm4, Sm4Gcm, Sm4Xts};
use asmgen_tests::{rc_xts_ieee, Rng};
use cipher::{BlockCipherEncrypt, KeyIvInit, StreamCipher};
use universal_hash::UniversalHash;

const GFNI: &str = "interp/x86_64-gfni-avx2";
const LENGTHS: [usize; 4] = [32, 48, 272, 528];

#[test]
fn every_x86_64_set_is_an_interpreter_backend() {
    let table = sm4_backend_table();
    for set in ["x86_64-gfni-avx2", "x86_64-vaes-avx2", "x86_64-aesni-avx2", "x86_64-aesni-avx"] {
        let name = format!("interp/{set}");
        assert!(table.iter().any(|(n, ok)| *n == name && *ok), "{name} missing: {table:?}");
    }
    assert!(asmgen_runtime::hash_backends().iter().any(|(n, _)| *n == "interp/x86_64-pclmulqdq-avx"));
}

#[test]
fn gfni_sm4_through_the_interpreter_matches_rustcrypto() {
    sm4_matches_rustcrypto(GFNI);
}

#[test]
fn aarch64_sets_through_the_interpreter_match_rustcrypto() {
    let table = sm4_backend_table();
    for set in ["interp/aarch64-sm4ce", "interp/aarch64-neon"] {
        assert!(table.iter().any(|(n, ok)| *n == set && *ok), "{set} missing: {table:?}");
        sm4_matches_rustcrypto(set);
    }
    let mut rng = Rng::new(9);
    let h = rng.block();
    for len in [16, 48, 272] {
        let mut data = vec![0u8; len];
        rng.fill(&mut data);
        let mut g = asmgen_runtime::Ghash::with_backend(&h, "interp/aarch64-pmull").unwrap();
        g.update_padded(&data);
        let mut rg = ghash::GHash::new(&h.into());
        rg.update_padded(&data);
        assert_eq!(g.finalize(), <[u8; 16]>::from(rg.finalize()), "GHASH of {len} bytes");
        let mut p = asmgen_runtime::Polyval::with_backend(&h, "interp/aarch64-pmull").unwrap();
        p.update_padded(&data);
        let mut rp = polyval::Polyval::new(&h.into());
        rp.update_padded(&data);
        assert_eq!(p.finalize(), <[u8; 16]>::from(rp.finalize()), "POLYVAL of {len} bytes");
    }
}

/// ECB, CTR, XTS and GCM of the SM4 backend `backend` against RustCrypto at [`LENGTHS`].
fn sm4_matches_rustcrypto(backend: &str) {
    let mut rng = Rng::new(7);
    let (key, key2, iv) = (rng.block(), rng.block(), rng.block());
    let s = Sm4::with_backend(&key, backend).unwrap();
    assert_eq!(s.backend(), backend);
    let rc = sm4::Sm4::new(&key.into());
    for len in LENGTHS {
        let mut data = vec![0u8; len];
        rng.fill(&mut data);
        // ECB.
        let mut buf = data.clone();
        s.encrypt_ecb(&mut buf).unwrap();
        let mut want = data.clone();
        want.chunks_mut(16).for_each(|b| rc.encrypt_block(b.try_into().unwrap()));
        assert_eq!(buf, want, "ECB, {len} bytes");
        // CTR (a counter that carries out of its low 64 bits).
        let mut ctr = [0xff; 16];
        ctr[0] = 1;
        let mut buf = data.clone();
        s.apply_ctr(&mut ctr.clone(), &mut buf);
        let mut want = data.clone();
        ctr::Ctr128BE::<sm4::Sm4>::new(&key.into(), &ctr.into()).apply_keystream(&mut want);
        assert_eq!(buf, want, "CTR, {len} bytes");
        // XTS (IEEE), with a partial last block.
        let x = Sm4Xts::with_backend(&key, &key2, backend).unwrap();
        let mut buf = data[..len - 5].to_vec();
        x.encrypt(&iv, &mut buf).unwrap();
        assert_eq!(buf, rc_xts_ieee(&key, &key2, &iv, &data[..len - 5], false), "XTS, {} bytes", len - 5);
        // GCM.
        let g = Sm4Gcm::with_backend(&key, backend).unwrap();
        let nonce = &iv[..12];
        let mut buf = data.clone();
        let tag = g.encrypt(nonce, b"aad", &mut buf).unwrap();
        let rc_gcm = aes_gcm::AesGcm::<sm4::Sm4, cipher::consts::U12>::new(&key.into());
        let mut want = data.clone();
        let want_tag =
            rc_gcm.encrypt_inout_detached(nonce.try_into().unwrap(), b"aad", want.as_mut_slice().into()).unwrap();
        assert_eq!((buf, tag), (want, want_tag.into()), "GCM, {len} bytes");
    }
}
