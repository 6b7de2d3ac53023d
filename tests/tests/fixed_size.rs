//! The fixed-size constructors and the JIT's kernels for one size: `Sm4Xts::with_sector_size` (512 and 4096
//! byte sectors, IEEE 1619 against RustCrypto's `xts-mode`, GB/T 17964 against the general kernels, which
//! `sm4_xts.rs` checks against a reference), `Sm4::with_ctr_message_size` against RustCrypto's `ctr`, and
//! `Ghash`/`Polyval::with_fixed_blocks` against RustCrypto's `ghash`/`polyval`; random keys, misaligned
//! buffers, lengths around every batch boundary; the kernel names and error cases.
//!
//! Where the JIT has a fixed-size kernel of a kind for this CPU's set (every x86_64 set; on aarch64 the SM4
//! extension's set all kinds, the NEON set CTR, PMULL the hash kind; on riscv64 the Zvksed set all kinds, the
//! Zksed set CTR, both hash sets the hash kind; the others fall back to their general kernels, which the names
//! then show), the test requires it to be the one in use.

use asmgen_runtime::{Error, Ghash, Polyval, Sm4, Sm4Xts};
use asmgen_tests::{hex, hex16, rc_xts_ieee, scaled, Misaligned, Rng};
use cipher::{KeyIvInit, StreamCipher};
use universal_hash::UniversalHash;

/// A kind of fixed-size kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// SM4-XTS for one sector size.
    Xts,
    /// SM4-CTR for one message size.
    Ctr,
    /// GHASH/POLYVAL for one block count.
    Hash,
}

/// Whether this build and CPU should have fixed-size kernels of `kind`: x86_64 with AES-NI and AVX (every set
/// has every kind); on aarch64 and riscv64, where the set the dispatcher chose (the one the JIT specialises,
/// named by the default backend) has that kind.
fn expect_fixed(kind: Kind) -> bool {
    if matches!(std::env::var("ASMGEN_BACKEND").as_deref(), Ok("portable") | Ok("aot")) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        let _ = kind;
        std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("avx")
    }
    #[cfg(any(target_arch = "aarch64", target_arch = "riscv64"))]
    {
        // `aot/<set>` or `jit/<set>`.
        let set = |backend: &'static str| backend.split_once('/').map_or("", |(_, s)| s);
        match kind {
            Kind::Xts => matches!(set(Sm4::new(&[0; 16]).backend()), "aarch64-sm4ce" | "riscv64-zvksed"),
            Kind::Ctr => matches!(
                set(Sm4::new(&[0; 16]).backend()),
                "aarch64-sm4ce" | "aarch64-neon" | "riscv64-zvksed" | "riscv64-zksed"
            ),
            Kind::Hash => {
                matches!(set(Polyval::new(&[0; 16]).backend()), "aarch64-pmull" | "riscv64-zvkg" | "riscv64-zbb-zbc")
            }
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
    {
        let _ = kind;
        false
    }
}

#[test]
fn xts_sectors_match_rustcrypto_and_the_general_kernels() {
    let mut rng = Rng::new(4096);
    for sector in [512usize, 4096, 16, 48, 272, 528] {
        for gb in [false, true] {
            for _ in 0..scaled(4, 1) {
                let (k1, k2, tw) = (rng.block(), rng.block(), rng.block());
                let x = if gb {
                    Sm4Xts::with_sector_size_gb(&k1, &k2, sector).unwrap()
                } else {
                    Sm4Xts::with_sector_size(&k1, &k2, sector).unwrap()
                };
                assert_eq!(x.sector_size(), Some(sector));
                if expect_fixed(Kind::Xts) {
                    let want = format!("/xts-{sector}");
                    assert!(x.backend().starts_with("jit/") && x.backend().ends_with(&want), "{}", x.backend());
                }
                let mut data = vec![0u8; sector];
                rng.fill(&mut data);
                let want = if gb {
                    let mut v = data.clone();
                    Sm4Xts::new_gb(&k1, &k2).encrypt(&tw, &mut v).unwrap();
                    v
                } else {
                    rc_xts_ieee(&k1, &k2, &tw, &data, false)
                };
                let off = rng.below(64);
                let mut m = Misaligned::new(&data, off);
                x.encrypt(&tw, m.get()).unwrap();
                m.check_guards();
                assert_eq!(m.get(), &want[..], "{}: sector {sector}, gb={gb}, offset {off}", x.backend());
                x.decrypt(&tw, m.get()).unwrap();
                m.check_guards();
                assert_eq!(m.get(), &data[..], "{}: sector {sector}, gb={gb}: decryption", x.backend());
            }
        }
    }
}

#[test]
fn xts_sector_vector_of_openssl() {
    // OpenSSL's SM4-XTS vectors (evpciph_sm4.txt) are 56-byte units; ciphertext stealing changes only the
    // last whole block and the partial one, so their first 32 bytes are those of a 32-byte sector.
    let key = hex("2b7e151628aed2a6abf7158809cf4f3c 000102030405060708090a0b0c0d0e0f");
    let (k1, k2): ([u8; 16], [u8; 16]) = (key[..16].try_into().unwrap(), key[16..].try_into().unwrap());
    let iv = hex16("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    let pt = hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
    let gb = hex("e9538251c71d7b80bbe4483fef497bd12c5c581bd6242fc51e08964fb4f60fdb");
    let ieee = hex("e9538251c71d7b80bbe4483fef497bd1b3db1a3e60408c575d63ff7db39f8326");
    for (x, want) in [
        (Sm4Xts::with_sector_size_gb(&k1, &k2, 32).unwrap(), gb),
        (Sm4Xts::with_sector_size(&k1, &k2, 32).unwrap(), ieee),
    ] {
        let mut buf = pt.clone();
        x.encrypt(&iv, &mut buf).unwrap();
        assert_eq!(buf, want, "{}", x.backend());
        x.decrypt(&iv, &mut buf).unwrap();
        assert_eq!(buf, pt, "{}", x.backend());
    }
}

#[test]
fn xts_sector_sizes_and_unit_lengths_are_checked() {
    for bad in [0usize, 8, 15, 17, 520, 4095] {
        assert!(matches!(Sm4Xts::with_sector_size(&[1; 16], &[2; 16], bad), Err(Error::InvalidLength { .. })));
        assert!(Sm4Xts::with_sector_size_gb(&[1; 16], &[2; 16], bad).is_err());
    }
    assert!(Sm4Xts::with_sector_size(&[1; 16], &[2; 16], 16 << 25).is_err(), "over 2^24 blocks");
    let x = Sm4Xts::with_sector_size(&[1; 16], &[2; 16], 512).unwrap();
    for len in [0usize, 16, 511, 513, 1024] {
        let mut buf = vec![7u8; len];
        assert!(matches!(x.encrypt(&[0; 16], &mut buf), Err(Error::InvalidLength { .. })), "{len}");
        assert!(x.decrypt(&[0; 16], &mut buf).is_err());
        assert_eq!(buf, vec![7u8; len], "an error leaves the buffer untouched");
    }
}

#[test]
fn ctr_for_one_message_size_matches_rustcrypto() {
    type Ctr = ctr::Ctr128BE<sm4::Sm4>;
    let mut rng = Rng::new(1024);
    let sizes: Vec<usize> = (1..=40).map(|b| 16 * b).chain([1, 15, 17, 100, 1024, 4095, 4096, 8200]).collect();
    for size in sizes {
        let (key, iv) = (rng.block(), rng.block());
        let sm4 = Sm4::with_ctr_message_size(&key, size).unwrap();
        if expect_fixed(Kind::Ctr) && size >= 16 {
            let name = sm4.specialised().expect("a fixed-size CTR kernel");
            assert!(name.ends_with(&format!("/ctr-{size}")), "{name}");
        }
        for len in [size, size + 16, size.saturating_sub(16)] {
            let mut data = vec![0u8; len];
            rng.fill(&mut data);
            let mut want = data.clone();
            Ctr::new(&key.into(), &iv.into()).apply_keystream(&mut want);
            let off = rng.below(64);
            let mut m = Misaligned::new(&data, off);
            let mut counter = iv;
            sm4.apply_ctr(&mut counter, m.get());
            m.check_guards();
            assert_eq!(m.get(), &want[..], "{:?}: message size {size}, length {len}", sm4.specialised());
            // The counter moved past every block used, a partial one included.
            let moved = u128::from_be_bytes(counter).wrapping_sub(u128::from_be_bytes(iv));
            assert_eq!(moved, len.div_ceil(16) as u128, "size {size}, length {len}");
        }
    }
    assert!(Sm4::with_ctr_message_size(&[0; 16], 0).is_err());
    assert!(Sm4::with_ctr_message_size(&[0; 16], (16 << 24) + 1).is_err());
}

#[test]
fn ctr_specialisation_reports_the_message_size_asked_for() {
    // 1000 bytes: the fixed kernel takes 62 whole blocks (992 bytes), the API the 8-byte tail; what is
    // reported is the size the application asked for.
    let key = [5u8; 16];
    let sm4 = Sm4::with_ctr_message_size(&key, 1000).unwrap();
    if expect_fixed(Kind::Ctr) {
        let name = sm4.specialised().expect("a fixed-size CTR kernel");
        assert!(name.ends_with("/ctr-1000"), "{name}");
    } else {
        assert_eq!(sm4.specialised(), None);
    }
    type Ctr = ctr::Ctr128BE<sm4::Sm4>;
    let iv = [0xa5u8; 16];
    let mut want = vec![0u8; 1000];
    Ctr::new(&key.into(), &iv.into()).apply_keystream(&mut want);
    let mut got = vec![0u8; 1000];
    let mut counter = iv;
    sm4.apply_ctr(&mut counter, &mut got);
    assert_eq!(got, want);
    assert_eq!(u128::from_be_bytes(counter).wrapping_sub(u128::from_be_bytes(iv)), 63);
}

#[test]
fn ctr_counter_carry_in_a_fixed_size_kernel() {
    // The low 64 bits wrap inside the message: the fixed kernel's carry path.
    type Ctr = ctr::Ctr128BE<sm4::Sm4>;
    let key = [9u8; 16];
    for size in [256usize, 512] {
        let sm4 = Sm4::with_ctr_message_size(&key, size).unwrap();
        for low in [u64::MAX - 3, u64::MAX] {
            let mut iv = [0x11u8; 16];
            iv[8..].copy_from_slice(&low.to_be_bytes());
            let mut want = vec![0u8; size];
            Ctr::new(&key.into(), &iv.into()).apply_keystream(&mut want);
            let mut got = vec![0u8; size];
            let mut counter = iv;
            sm4.apply_ctr(&mut counter, &mut got);
            assert_eq!(got, want, "{:?}: low {low:#x}", sm4.specialised());
        }
    }
}

#[test]
fn ghash_and_polyval_for_one_block_count_match_rustcrypto() {
    let mut rng = Rng::new(8452);
    let counts: Vec<usize> = (1..=24).chain([31, 32, 33, 64, 256, 257]).collect();
    for n in counts {
        let h = rng.block();
        let mut data = vec![0u8; 16 * n + 16];
        rng.fill(&mut data);
        let g = Ghash::with_fixed_blocks(&h, n).unwrap();
        let p = Polyval::with_fixed_blocks(&h, n).unwrap();
        if expect_fixed(Kind::Hash) {
            for name in [g.specialised(), p.specialised()] {
                let name = name.expect("a fixed-size kernel");
                assert!(name.ends_with(&format!("/hash-{n}")), "{name}");
            }
        }
        // Exactly n blocks (the fixed kernel), n + 1 and a split (the general kernel, same state).
        for len in [16 * n, 16 * n + 16] {
            let off = rng.below(64);
            let mut m = Misaligned::new(&data[..len], off);
            let mut rg = ghash::GHash::new(&h.into());
            rg.update_padded(&data[..len]);
            let mut g2 = g.clone();
            g2.update_padded(m.get());
            assert_eq!(g2.finalize(), <[u8; 16]>::from(rg.finalize()), "{:?}: GHASH of {len} bytes", g.specialised());
            let mut rp = polyval::Polyval::new(&h.into());
            rp.update_padded(&data[..len]);
            let mut p2 = p.clone();
            p2.update_padded(m.get());
            assert_eq!(p2.finalize(), <[u8; 16]>::from(rp.finalize()), "POLYVAL of {len} bytes");
        }
        // The fixed kernel continues a state: n blocks twice.
        let mut twice = vec![0u8; 32 * n];
        rng.fill(&mut twice);
        let mut rg = ghash::GHash::new(&h.into());
        rg.update_padded(&twice);
        let mut g2 = g.clone();
        g2.update_padded(&twice[..16 * n]);
        g2.update_padded(&twice[16 * n..]);
        assert_eq!(g2.finalize(), <[u8; 16]>::from(rg.finalize()), "GHASH, two updates of {n} blocks");
    }
    assert!(Ghash::with_fixed_blocks(&[0; 16], 0).is_err());
    assert!(Polyval::with_fixed_blocks(&[0; 16], (1 << 24) + 1).is_err());
}
