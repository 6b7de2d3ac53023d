//! SM4 confidentiality modes (ECB, CBC, CFB, CTR, CBC-CS3) on every backend this machine runs: published
//! known answers (GB/T 32907-2016; draft-ribose-cfrg-sm4 as carried by OpenSSL's evpciph_sm4.txt) and
//! differential tests against RustCrypto's `sm4` with `cbc`, `cfb-mode` and `ctr` (CTS-CBC against a small
//! reference written here): every length 0..=1024, random lengths up to 64 KiB, misaligned buffers, messages
//! split over several calls (IV/counter chaining), and error cases.

use asmgen_runtime::{sm4_backends, Error, Sm4};
use asmgen_tests::{hex, hex16, scaled, sweep, Misaligned, Rng};
use cipher::{
    BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit, StreamCipher,
};

fn rc(key: &[u8; 16]) -> sm4::Sm4 {
    sm4::Sm4::new(&(*key).into())
}

fn rc_ecb(key: &[u8; 16], data: &[u8], decrypt: bool) -> Vec<u8> {
    let c = rc(key);
    let mut out = data.to_vec();
    for b in out.chunks_exact_mut(16) {
        let blk: &mut cipher::Block<sm4::Sm4> = b.try_into().unwrap();
        if decrypt {
            c.decrypt_block(blk)
        } else {
            c.encrypt_block(blk)
        }
    }
    out
}

fn rc_cbc(key: &[u8; 16], iv: &[u8; 16], data: &[u8], decrypt: bool) -> Vec<u8> {
    let mut out = data.to_vec();
    let blocks: Vec<&mut cipher::Block<sm4::Sm4>> = out.chunks_exact_mut(16).map(|b| b.try_into().unwrap()).collect();
    if decrypt {
        let mut d = cbc::Decryptor::<sm4::Sm4>::new(&(*key).into(), &(*iv).into());
        for b in blocks {
            d.decrypt_block(b);
        }
    } else {
        let mut e = cbc::Encryptor::<sm4::Sm4>::new(&(*key).into(), &(*iv).into());
        for b in blocks {
            e.encrypt_block(b);
        }
    }
    out
}

fn rc_cfb(key: &[u8; 16], iv: &[u8; 16], data: &[u8], decrypt: bool) -> Vec<u8> {
    let mut out = data.to_vec();
    if decrypt {
        cfb_mode::Decryptor::<sm4::Sm4>::new(&(*key).into(), &(*iv).into()).decrypt(&mut out);
    } else {
        cfb_mode::Encryptor::<sm4::Sm4>::new(&(*key).into(), &(*iv).into()).encrypt(&mut out);
    }
    out
}

fn rc_ctr(key: &[u8; 16], ctr: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    ctr::Ctr128BE::<sm4::Sm4>::new(&(*key).into(), &(*ctr).into()).apply_keystream(&mut out);
    out
}

/// CBC with ciphertext stealing, CS3 (NIST SP 800-38A addendum; RFC 3962): written independently here.
fn ref_cts_cbc(key: &[u8; 16], iv: &[u8; 16], data: &[u8], decrypt: bool) -> Vec<u8> {
    let c = rc(key);
    let n = data.len();
    assert!(n >= 16);
    if n == 16 {
        return rc_cbc(key, iv, data, decrypt);
    }
    let m = n.div_ceil(16);
    let d = n - 16 * (m - 1);
    let mut out = data.to_vec();
    if !decrypt {
        let head = rc_cbc(key, iv, &data[..16 * (m - 1)], false);
        let cn1: [u8; 16] = head[16 * (m - 2)..].try_into().unwrap();
        let mut last = cn1;
        for i in 0..d {
            last[i] ^= data[16 * (m - 1) + i];
        }
        let mut b = last.into();
        c.encrypt_block(&mut b);
        out[..16 * (m - 2)].copy_from_slice(&head[..16 * (m - 2)]);
        out[16 * (m - 2)..16 * (m - 1)].copy_from_slice(&b);
        out[16 * (m - 1)..].copy_from_slice(&cn1[..d]);
    } else {
        let head = rc_cbc(key, iv, &data[..16 * (m - 2)], true);
        let prev: [u8; 16] = if m == 2 { *iv } else { data[16 * (m - 3)..16 * (m - 2)].try_into().unwrap() };
        let mut x: cipher::Block<sm4::Sm4> = <[u8; 16]>::try_from(&data[16 * (m - 2)..16 * (m - 1)]).unwrap().into();
        c.decrypt_block(&mut x);
        let mut cn1 = [0u8; 16];
        cn1[..d].copy_from_slice(&data[16 * (m - 1)..]);
        cn1[d..].copy_from_slice(&x[d..]);
        let mut pn = vec![0u8; d];
        for i in 0..d {
            pn[i] = x[i] ^ cn1[i];
        }
        let mut y = cn1.into();
        c.decrypt_block(&mut y);
        for i in 0..16 {
            y[i] ^= prev[i];
        }
        out[..16 * (m - 2)].copy_from_slice(&head);
        out[16 * (m - 2)..16 * (m - 1)].copy_from_slice(&y);
        out[16 * (m - 1)..].copy_from_slice(&pn);
    }
    out
}

/// The backend the dispatcher must pick on this machine, so that a fallback cannot hide a broken fast path.
fn expected_default() -> &'static str {
    if std::env::var("ASMGEN_BACKEND").as_deref() == Ok("portable") {
        return "portable";
    }
    let listed = sm4_backends();
    // What the CPU has, less what an `ASMGEN_ISA` cap hides; the first set listed for it, best first.
    use asmgen_tests::caps::usable;
    let sets: [(&str, &[&str]); 5] = [
        ("aot/x86_64-gfni-avx512", &["aes", "avx", "avx2", "gfni", "avx512f", "avx512bw", "bmi2"]),
        ("aot/x86_64-gfni-avx2", &["aes", "avx", "avx2", "gfni"]),
        ("aot/x86_64-vaes-avx2", &["aes", "avx", "avx2", "vaes"]),
        ("aot/x86_64-aesni-avx2", &["aes", "avx", "avx2"]),
        ("aot/x86_64-aesni-avx", &["aes", "avx"]),
    ];
    if let Some((name, _)) = sets.iter().find(|(name, needs)| usable(needs) && listed.contains(name)) {
        return name;
    }
    "portable"
}

#[test]
fn dispatch_picks_the_expected_kernel() {
    let k = [7u8; 16];
    // Cross runs name the kernel set each emulated CPU must get (`cargo xtask cross`), so a fallback cannot
    // hide a broken fast path; natively the expectation follows the CPU's features.
    let expected = match std::env::var("ASMGEN_EXPECT_SM4") {
        Ok(name) if std::env::var("ASMGEN_BACKEND").as_deref() != Ok("portable") => name,
        _ => asmgen_tests::jit_expectation(expected_default()),
    };
    assert_eq!(Sm4::new(&k).backend(), expected);
    if std::env::var("ASMGEN_BACKEND").as_deref() != Ok("portable") {
        assert_eq!(*sm4_backends().last().unwrap(), expected, "the best backend listed is the default");
    }
    assert_eq!(sm4_backends()[0], "portable");
}

/// The VAES zmm set, which dispatch never picks where GFNI is present, is listed (so the suites above run it)
/// wherever the CPU has VAES + AVX-512F/BW and no `ASMGEN_ISA` cap hides them, and its listing's batch modes
/// agree with the portable backend at every block count to 50 and longer. (The JIT assembles only the set
/// dispatch picks; `tests/jit.rs` checks that its bytes for this set equal the assembled listing's.)
#[test]
fn vaes_avx512_is_listed_where_the_cpu_has_it() {
    #[cfg(target_arch = "x86_64")]
    {
        let has = asmgen_tests::caps::usable(&["vaes", "avx2", "avx512f", "avx512bw"]);
        let listed = sm4_backends();
        let name = "aot/x86_64-vaes-avx512";
        if std::env::var("ASMGEN_BACKEND").is_err() {
            assert_eq!(listed.contains(&name), has, "{listed:?}");
        }
        if asmgen_tests::caps::hidden("avx512f") {
            assert!(!listed.contains(&name), "a cap hides AVX-512: {listed:?}");
        }
        // Natively, the listing's kernels of the set, at every block count to 50 and longer.
        let key = [0x3cu8; 16];
        let p = Sm4::with_backend(&key, "portable").unwrap();
        if let Ok(z) = Sm4::with_backend(&key, name) {
            eprintln!("{name}: batch modes against the portable backend");
            let counts = (0..=50).chain([63, 64, 95, 96, 97, 130, 145]);
            for n in counts {
                let data: Vec<u8> = (0..16 * n).map(|i| (i * 7 + n) as u8).collect();
                let iv = [n as u8; 16];
                asmgen_tests::sweep::batch_modes_agree(&z, &p, &data, iv, name);
            }
        }
    }
}

#[test]
fn unknown_backend_is_an_error() {
    assert!(matches!(Sm4::with_backend(&[0; 16], "no-such-backend"), Err(Error::UnknownBackend(_))));
}

const K: &str = "0123456789abcdeffedcba9876543210";

#[test]
fn gbt32907_example_1() {
    for b in sm4_backends() {
        let s = Sm4::with_backend(&hex16(K), b).unwrap();
        let mut buf = hex(K);
        s.encrypt_ecb(&mut buf).unwrap();
        assert_eq!(buf, hex("681edf34d206965e86b3e94f536e4246"), "{b}");
        s.decrypt_ecb(&mut buf).unwrap();
        assert_eq!(buf, hex(K), "{b}");
    }
}

#[test]
fn gbt32907_example_2_million_iterations() {
    // Encrypting the block 1,000,000 times with the same key. One block per call is the portable backend's
    // worst case (a full sixteen-lane batch per block), so it runs the whole example only in optimised builds
    // and otherwise checks the first 10,000 iterations against RustCrypto.
    for b in sm4_backends() {
        let s = Sm4::with_backend(&hex16(K), b).unwrap();
        let full = (b != "portable" || !cfg!(debug_assertions)) && !sweep::interpreted(b);
        let n = if full {
            1_000_000
        } else if sweep::interpreted(b) {
            300
        } else {
            10_000
        };
        let mut buf = hex16(K);
        for _ in 0..n {
            s.encrypt_ecb(&mut buf).unwrap();
        }
        if full {
            assert_eq!(buf, hex16("595298c7c6fd271f0402f804c33d3f66"), "{b}");
        } else {
            let c = rc(&hex16(K));
            let mut r: cipher::Block<sm4::Sm4> = hex16(K).into();
            for _ in 0..n {
                c.encrypt_block(&mut r);
            }
            assert_eq!(buf[..], r[..], "{b}");
        }
    }
}

#[test]
fn draft_ribose_cfrg_sm4_examples() {
    let k = hex16(K);
    let iv = hex16(K);
    let p2 = hex("0123456789abcdeffedcba9876543210 0123456789abcdeffedcba9876543210");
    let cbc6 = hex(&K.repeat(6));
    let ctr_p = hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd\
         eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa");
    for b in sm4_backends() {
        let s = Sm4::with_backend(&k, b).unwrap();
        let mut v = iv;
        let mut buf = p2.clone();
        s.encrypt_cbc(&mut v, &mut buf).unwrap();
        assert_eq!(buf, hex("2677f46b09c122cc975533105bd4a22af6125f7275ce552c3a2bbcf533de8a3b"), "{b}: CBC");
        let mut buf = cbc6.clone();
        let mut v = iv;
        s.encrypt_cbc(&mut v, &mut buf).unwrap();
        assert_eq!(
            buf,
            hex("2677f46b09c122cc975533105bd4a22af6125f7275ce552c3a2bbcf533de8a3bfff5a4f208092c0901ba02d577297736\
                 9915e3fa2356c9f4eb6460ecc457e7f8e3cfa3deebfe9883e3a48bcf7c4a11aa3ec9e0d317c5d319be72a5cdddec640c"),
            "{b}: CBC, 6 blocks"
        );
        let mut v = iv;
        s.decrypt_cbc(&mut v, &mut buf).unwrap();
        assert_eq!(buf, cbc6, "{b}: CBC decrypt");
        let mut buf = p2.clone();
        let mut v = iv;
        s.encrypt_cfb(&mut v, &mut buf).unwrap();
        assert_eq!(buf, hex("693d9a535bad5bb1786f53d7253a70569ed258a85a0467cc92aab393dd978995"), "{b}: CFB");
        let mut v = iv;
        s.decrypt_cfb(&mut v, &mut buf).unwrap();
        assert_eq!(buf, p2, "{b}: CFB decrypt");
        let mut buf = ctr_p.clone();
        let mut c = iv;
        s.apply_ctr(&mut c, &mut buf);
        assert_eq!(
            buf,
            hex("c2b4759e78ac3cf43d0852f4e8d5f9fd7256e8a5fcb65a350ee00630912e4449\
                 2a0b17e1b85b060d0fba612d8a95831638b361fd5ffacd942f081485a83ca35d"),
            "{b}: CTR"
        );
        assert_eq!(u128::from_be_bytes(c), u128::from_be_bytes(iv) + 4, "{b}: counter advanced");
    }
}

/// One mode under test: ours (in place, state chained) and the reference (one shot).
type Ours = fn(&Sm4, &mut [u8; 16], &mut [u8]) -> Result<(), Error>;
type Reference = fn(&[u8; 16], &[u8; 16], &[u8], bool) -> Vec<u8>;

struct Mode {
    name: &'static str,
    enc: Ours,
    dec: Ours,
    reference: Reference,
    /// Whether lengths must be a multiple of 16.
    whole: bool,
    /// Whether a call may be split at block boundaries (state chained).
    chains: bool,
}

const MODES: &[Mode] = &[
    Mode {
        name: "ECB",
        enc: |s, _, b| s.encrypt_ecb(b),
        dec: |s, _, b| s.decrypt_ecb(b),
        reference: |k, _, d, dec| rc_ecb(k, d, dec),
        whole: true,
        chains: true,
    },
    Mode { name: "CBC", enc: Sm4::encrypt_cbc, dec: Sm4::decrypt_cbc, reference: rc_cbc, whole: true, chains: true },
    Mode { name: "CFB", enc: Sm4::encrypt_cfb, dec: Sm4::decrypt_cfb, reference: rc_cfb, whole: false, chains: true },
    Mode {
        name: "CTR",
        enc: |s, c, b| {
            s.apply_ctr(c, b);
            Ok(())
        },
        dec: |s, c, b| {
            s.apply_ctr(c, b);
            Ok(())
        },
        reference: |k, c, d, _| rc_ctr(k, c, d),
        whole: false,
        chains: true,
    },
    Mode {
        name: "CTS-CBC",
        enc: |s, iv, b| s.encrypt_cts_cbc(iv, b),
        dec: |s, iv, b| s.decrypt_cts_cbc(iv, b),
        reference: ref_cts_cbc,
        whole: false,
        chains: false,
    },
];

/// The chaining value the API documents after a whole message of `ciphertext` from `iv`: CBC's and CFB's last
/// whole ciphertext block (the IV where there is none), CTR's counter past every started block; `None` for
/// the modes that keep none.
fn state_after(mode: &Mode, iv: &[u8; 16], ciphertext: &[u8]) -> Option<[u8; 16]> {
    let whole = ciphertext.len() / 16 * 16;
    match mode.name {
        "CBC" | "CFB" if whole > 0 => ciphertext[whole - 16..whole].try_into().ok(),
        "CBC" | "CFB" => Some(*iv),
        "CTR" => Some(u128::from_be_bytes(*iv).wrapping_add(ciphertext.len().div_ceil(16) as u128).to_be_bytes()),
        _ => None,
    }
}

/// Encrypts and decrypts `data` with `mode` on `s`, split at `splits` (block boundaries) when the mode
/// chains, and compares with the reference, the chaining value after the message too ([`state_after`]).
fn check(s: &Sm4, mode: &Mode, key: &[u8; 16], iv: &[u8; 16], data: &[u8], off: usize, splits: &[usize]) {
    let what = format!("{}: {}, length {}, offset {off}, splits {splits:?}", s.backend(), mode.name, data.len());
    let want = (mode.reference)(key, iv, data, false);
    let mut m = Misaligned::new(data, off);
    let mut v = *iv;
    let mut at = 0;
    for &end in splits.iter().chain([data.len()].iter()) {
        (mode.enc)(s, &mut v, &mut m.get()[at..end]).unwrap();
        at = end;
    }
    m.check_guards();
    assert_eq!(m.get(), &want[..], "{what}: encryption");
    let state = state_after(mode, iv, &want);
    assert!(state.is_none_or(|st| st == v), "{what}: the chaining value after encryption");
    let back = (mode.reference)(key, iv, &want, true);
    assert_eq!(back, data, "{what}: the reference's own round trip");
    let mut v = *iv;
    let mut at = 0;
    for &end in splits.iter().chain([data.len()].iter()) {
        (mode.dec)(s, &mut v, &mut m.get()[at..end]).unwrap();
        at = end;
    }
    m.check_guards();
    assert_eq!(m.get(), data, "{what}: decryption");
    assert!(state.is_none_or(|st| st == v), "{what}: the chaining value after decryption");
}

#[test]
fn every_length_to_1024_matches_rustcrypto() {
    let mut rng = Rng::new(4);
    let mut data = vec![0u8; 1024];
    for b in sm4_backends() {
        for mode in MODES {
            for len in sweep::every_length(b, 0, 1024) {
                if (mode.whole && len % 16 != 0) || (!mode.chains && len < 16) {
                    continue;
                }
                let (key, iv) = (rng.block(), rng.block());
                rng.fill(&mut data[..len]);
                let s = Sm4::with_backend(&key, b).unwrap();
                check(&s, mode, &key, &iv, &data[..len], rng.below(16), &[]);
            }
        }
    }
}

#[test]
fn random_lengths_to_64k_with_splits_match_rustcrypto() {
    let mut rng = Rng::new(65536);
    let mut data = vec![0u8; 65536];
    for b in sm4_backends() {
        let (max, count) = sweep::random_lengths(b, 65536, 12);
        for mode in MODES {
            for _ in 0..count {
                let mut len = 16 + rng.below(max - 15);
                if mode.whole {
                    len &= !15;
                }
                let (key, iv) = (rng.block(), rng.block());
                rng.fill(&mut data[..len]);
                let mut splits = Vec::new();
                if mode.chains {
                    let mut at = 0;
                    loop {
                        at += 16 * rng.below(300);
                        if at >= len {
                            break;
                        }
                        splits.push(at);
                    }
                }
                let s = Sm4::with_backend(&key, b).unwrap();
                check(&s, mode, &key, &iv, &data[..len], rng.below(64), &splits);
            }
        }
    }
}

/// The counter carries through all 128 bits and wraps at 2^128: within a short message, and within the zmm
/// kernels' 48-block batches (1600 bytes: three batches and a tail), where a batch whose low 32 bits do not
/// wrap forms its counter words another way than one whose do (before, inside and after the wrap's batch).
#[test]
fn counter_wraps_at_2_pow_128() {
    let mut rng = Rng::new(128);
    let key = rng.block();
    let mut data = vec![0u8; 1600];
    rng.fill(&mut data);
    for b in sm4_backends() {
        let s = Sm4::with_backend(&key, b).unwrap();
        let short = [u128::MAX - 2, u128::MAX, u64::MAX as u128 - 1, u32::MAX as u128].map(|c| (c, 100));
        // Distinct words above the low one, so that a word taken from the wrong place shows.
        let high = u128::from_be_bytes(key) << 64 | u128::from_be_bytes(key) >> 64 << 32;
        let low32 = [(1u128 << 32) - 20, (1 << 32) - 60, 5].map(|c| high | c);
        let long = low32.into_iter().chain([high >> 64 << 64 | (u64::MAX as u128 - 60), u128::MAX - 90]);
        for (start, len) in short.into_iter().chain(long.map(|c| (c, data.len()))) {
            let mut c = start.to_be_bytes();
            let mut buf = data[..len].to_vec();
            s.apply_ctr(&mut c, &mut buf);
            assert_eq!(buf, rc_ctr(&key, &start.to_be_bytes(), &data[..len]), "{b}: counter {start:#x}, {len} bytes");
            let blocks = len.div_ceil(16) as u128;
            assert_eq!(u128::from_be_bytes(c), start.wrapping_add(blocks), "{b}: counter {start:#x} advanced");
        }
    }
}

#[test]
fn backends_agree_on_large_buffers() {
    let mut rng = Rng::new(99);
    let mut data = vec![0u8; scaled(1 << 20, 1 << 14)];
    rng.fill(&mut data);
    let key = rng.block();
    let iv = rng.block();
    let want = rc_ctr(&key, &iv, &data);
    let want_cbc = rc_cbc(&key, &iv, &want, true);
    for b in sm4_backends() {
        // A prefix (whole blocks) for the interpreter: CTR's and CBC decryption's outputs are prefixes too.
        let n = sweep::large(b, data.len(), data.len());
        let s = Sm4::with_backend(&key, b).unwrap();
        let mut buf = data[..n].to_vec();
        let mut c = iv;
        s.apply_ctr(&mut c, &mut buf);
        assert!(buf == want[..n], "{b}: CTR over {n} bytes");
        let mut v = iv;
        s.decrypt_cbc(&mut v, &mut buf).unwrap();
        assert!(buf == want_cbc[..n], "{b}: CBC decryption over {n} bytes");
    }
}

#[test]
fn wrong_lengths_are_errors() {
    for b in sm4_backends() {
        let s = Sm4::with_backend(&[1; 16], b).unwrap();
        for len in [1usize, 15, 17, 31, 33] {
            let mut buf = vec![0u8; len];
            let mut iv = [0u8; 16];
            assert!(matches!(s.encrypt_ecb(&mut buf), Err(Error::InvalidLength { len: l, .. }) if l == len));
            assert!(s.decrypt_ecb(&mut buf).is_err());
            assert!(s.encrypt_cbc(&mut iv, &mut buf).is_err());
            assert!(s.decrypt_cbc(&mut iv, &mut buf).is_err());
            assert_eq!(buf, vec![0u8; len], "{b}: nothing written on error");
            assert_eq!(iv, [0; 16], "{b}: iv untouched on error");
        }
        for len in [0usize, 1, 15] {
            let mut buf = vec![0u8; len];
            assert!(s.encrypt_cts_cbc(&[0; 16], &mut buf).is_err());
            assert!(s.decrypt_cts_cbc(&[0; 16], &mut buf).is_err());
        }
        // Empty input is fine where the mode allows it.
        let mut iv = [3u8; 16];
        s.encrypt_ecb(&mut []).unwrap();
        s.encrypt_cbc(&mut iv, &mut []).unwrap();
        s.encrypt_cfb(&mut iv, &mut []).unwrap();
        s.apply_ctr(&mut iv, &mut []);
        assert_eq!(iv, [3; 16]);
    }
}

#[test]
fn cipher_traits_match_rustcrypto() {
    let mut rng = Rng::new(5);
    let key = rng.block();
    let ours = <Sm4 as KeyInit>::new(&key.into());
    let theirs = rc(&key);
    for n in [1usize, 3, 15, 16, 17, 40] {
        let mut blocks: Vec<cipher::Block<Sm4>> = (0..n).map(|_| rng.block().into()).collect();
        let orig = blocks.clone();
        let mut want: Vec<cipher::Block<sm4::Sm4>> = blocks.iter().map(|b| <[u8; 16]>::from(*b).into()).collect();
        ours.encrypt_blocks(&mut blocks);
        theirs.encrypt_blocks(&mut want);
        for (a, b) in blocks.iter().zip(&want) {
            assert_eq!(a[..], b[..], "{n} blocks");
        }
        ours.decrypt_blocks(&mut blocks);
        assert_eq!(blocks, orig);
    }
    // A RustCrypto mode over our cipher.
    let iv = rng.block();
    let mut data = vec![0u8; 160];
    rng.fill(&mut data);
    let mut buf = data.clone();
    drop(ours);
    ctr::Ctr128BE::<Sm4>::new(&key.into(), &iv.into()).apply_keystream(&mut buf);
    assert_eq!(buf, rc_ctr(&key, &iv, &data));
}

/// Every set's key schedule this CPU runs (the linked listings' and the process JIT's), called directly: both
/// schedules equal the reference's, byte for byte, for GB/T 32907's key and 200 random ones; the kernel writes
/// nothing beyond its 128-byte outputs.
#[test]
fn every_key_schedule_matches_the_reference() {
    use asmgen_tests::kernel_calls::{listing_kernels, process_jit_kernels};
    let example = hex16("0123456789abcdeffedcba9876543210");
    assert_eq!(asmgen_tests::sm4_round_keys(&example)[0][..4], 0xf12186f9u32.to_le_bytes());
    assert_eq!(asmgen_tests::sm4_round_keys(&example)[0][124..], 0x9124a012u32.to_le_bytes());
    let mut kernels = listing_kernels().0;
    if let Ok(jit) = asmgen_runtime::jit::Jit::process() {
        kernels.extend(process_jit_kernels(jit));
    }
    let mut rng = Rng::new(32907);
    let mut tested = 0;
    for k in kernels.iter().filter(|k| k.role == "expand_key") {
        // SAFETY: the role's C signature, `expand_key(rk_enc, rk_dec, key)`.
        let f = unsafe { std::mem::transmute::<*const (), unsafe extern "C" fn(*mut u8, *mut u8, *const u8)>(k.entry) };
        for i in 0..201 {
            let key = if i == 0 { example } else { rng.block() };
            let (mut enc, mut dec) = (Misaligned::new(&[0xa5; 128], 4), Misaligned::new(&[0xa5; 128], 12));
            let mut kb = Misaligned::new(&key, 3);
            // SAFETY: 128 writable bytes each and a 16-byte key.
            unsafe { f(enc.get().as_mut_ptr(), dec.get().as_mut_ptr(), kb.get().as_ptr()) };
            enc.check_guards();
            dec.check_guards();
            let want = asmgen_tests::sm4_round_keys(&key);
            assert_eq!(enc.get(), &want[0][..], "{} {}: rk_enc of {key:02x?}", k.set, k.name);
            assert_eq!(dec.get(), &want[1][..], "{} {}: rk_dec of {key:02x?}", k.set, k.name);
        }
        tested += 1;
    }
    assert!(tested > 0 || !kernels.iter().any(|k| k.role == "ecb"), "every SM4 set has a key schedule");
    eprintln!("{tested} key schedules called directly");
}
