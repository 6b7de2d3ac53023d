//! The runtime's riscv64 interpreter backends (feature `interp`: `cargo test -p asmgen-tests --features interp
//! --test interp_backend_riscv64`): every riscv64 set is listed as `interp/<set>`, and each riscv64 SM4 set run
//! by the interpreter (VLEN 128, LP64D set up by the interpreter, not the host's ABI) through the safe API (ECB,
//! CTR across a carry, XTS with a partial block, GCM with the riscv64 GHASH sets beside) agrees with RustCrypto,
//! on any host. Sizes are small: the interpreter runs unoptimised in the test profile.
#![cfg(feature = "interp")]

use aead::{AeadInOut, KeyInit};
use asmgen_runtime::{sm4_backend_table, Sm4, Sm4Gcm, Sm4Xts};
use asmgen_tests::{rc_xts_ieee, Rng};
use cipher::{BlockCipherEncrypt, KeyIvInit, StreamCipher};

const SETS: [&str; 2] = ["interp/riscv64-zvksed", "interp/riscv64-zksed"];

#[test]
fn every_riscv64_set_is_an_interpreter_backend() {
    let table = sm4_backend_table();
    for name in SETS {
        assert!(table.iter().any(|(n, ok)| *n == name && *ok), "{name} missing: {table:?}");
    }
    let hashes = asmgen_runtime::hash_backends();
    for name in ["interp/riscv64-zvkg", "interp/riscv64-zbb-zbc"] {
        assert!(hashes.iter().any(|(n, _)| *n == name), "{name} missing: {hashes:?}");
    }
}

#[test]
fn riscv64_sm4_through_the_interpreter_matches_rustcrypto() {
    let mut rng = Rng::new(11);
    let (key, key2, iv) = (rng.block(), rng.block(), rng.block());
    let rc = sm4::Sm4::new(&key.into());
    for set in SETS {
        let s = Sm4::with_backend(&key, set).unwrap();
        assert_eq!(s.backend(), set);
        for len in [32, 48, 272] {
            let mut data = vec![0u8; len];
            rng.fill(&mut data);
            let mut buf = data.clone();
            s.encrypt_ecb(&mut buf).unwrap();
            let mut want = data.clone();
            want.chunks_mut(16).for_each(|b| rc.encrypt_block(b.try_into().unwrap()));
            assert_eq!(buf, want, "{set} ECB, {len} bytes");
            let mut ctr = [0xff; 16];
            ctr[0] = 1;
            let mut buf = data.clone();
            s.apply_ctr(&mut ctr.clone(), &mut buf);
            let mut want = data.clone();
            ctr::Ctr128BE::<sm4::Sm4>::new(&key.into(), &ctr.into()).apply_keystream(&mut want);
            assert_eq!(buf, want, "{set} CTR, {len} bytes");
            let x = Sm4Xts::with_backend(&key, &key2, set).unwrap();
            let mut buf = data[..len - 5].to_vec();
            x.encrypt(&iv, &mut buf).unwrap();
            assert_eq!(buf, rc_xts_ieee(&key, &key2, &iv, &data[..len - 5], false), "{set} XTS, {} bytes", len - 5);
            let g = Sm4Gcm::with_backend(&key, set).unwrap();
            let nonce = &iv[..12];
            let mut buf = data.clone();
            let tag = g.encrypt(nonce, b"aad", &mut buf).unwrap();
            let rc_gcm = aes_gcm::AesGcm::<sm4::Sm4, cipher::consts::U12>::new(&key.into());
            let mut want = data.clone();
            let want_tag =
                rc_gcm.encrypt_inout_detached(nonce.try_into().unwrap(), b"aad", want.as_mut_slice().into()).unwrap();
            assert_eq!((buf, tag), (want, want_tag.into()), "{set} GCM, {len} bytes");
        }
    }
}
