//! RFC 8439's vectors and random messages through every backend the CPU runs: the linked listing's kernel
//! (AVX2 or NEON) and the portable code, each against an independent reference.

mod common;

use chacha20_asmgen::{chacha20, chacha20_with, Backend};
use common::{lengths, reference, vector, Rng, VECTORS};

#[test]
fn rfc8439_vectors_through_every_backend() {
    println!("backends: {:?}", Backend::available());
    for v in VECTORS {
        let (key, nonce, counter, plain, cipher) = vector(v);
        assert_eq!(reference(&key, &nonce, counter, &plain), cipher, "the reference, vector {}", v.0);
        for &backend in Backend::available() {
            let mut out = vec![0; plain.len()];
            chacha20_with(backend, &key, &nonce, counter, &plain, &mut out);
            assert_eq!(out, cipher, "{backend:?}, vector {}", v.0);
            // Decryption is the same xor.
            let mut back = vec![0; plain.len()];
            chacha20_with(backend, &key, &nonce, counter, &out, &mut back);
            assert_eq!(back, plain, "{backend:?}, vector {} decrypted", v.0);
        }
        let mut out = vec![0; plain.len()];
        chacha20(&key, &nonce, counter, &plain, &mut out);
        assert_eq!(out, cipher, "chacha20, vector {}", v.0);
    }
}

#[test]
fn random_messages_match_the_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for len in lengths(&mut rng, 60) {
        let key: [u8; 32] = rng.bytes(32).try_into().unwrap();
        let nonce: [u8; 12] = rng.bytes(12).try_into().unwrap();
        let counter = rng.next() as u32 >> 8;
        let plain = rng.bytes(len);
        let want = reference(&key, &nonce, counter, &plain);
        for &backend in Backend::available() {
            let mut out = vec![0; len];
            chacha20_with(backend, &key, &nonce, counter, &plain, &mut out);
            assert!(out == want, "{backend:?}, {len} bytes, counter {counter}");
        }
    }
}

#[test]
fn the_counter_runs_up_to_its_last_value() {
    // 2000 bytes ending exactly at block 2^32 - 1: the kernels' lanes reach the top without wrapping early.
    let (key, nonce) = ([7u8; 32], [9u8; 12]);
    let plain: Vec<u8> = (0..2000u32).map(|i| i as u8).collect();
    let counter = u32::MAX - 31;
    let want = reference(&key, &nonce, counter, &plain);
    for &backend in Backend::available() {
        let mut out = vec![0; plain.len()];
        chacha20_with(backend, &key, &nonce, counter, &plain, &mut out);
        assert!(out == want, "{backend:?}");
    }
}

#[test]
#[should_panic(expected = "past 2^32 - 1")]
fn a_message_past_the_last_counter_is_refused() {
    let mut out = [0u8; 65];
    chacha20(&[0; 32], &[0; 12], u32::MAX, &[0; 65], &mut out);
}

#[test]
fn the_cpu_gets_its_kernel() {
    let best = Backend::best();
    #[cfg(target_arch = "x86_64")]
    assert_eq!(best == Backend::Avx2, std::is_x86_feature_detected!("avx2"), "{best:?}");
    #[cfg(target_arch = "aarch64")]
    assert_eq!(best, Backend::Neon);
    #[cfg(target_arch = "riscv64")]
    assert_eq!(best, Backend::Rv64);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
    assert_eq!(best, Backend::Portable);
}
