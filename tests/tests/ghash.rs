//! GHASH and POLYVAL on every backend this machine runs: published known answers (RFC 8452, the GCM
//! specification's test cases as used by NIST SP 800-38D), the RFC 8452 GHASH/POLYVAL relation, and
//! differential tests against RustCrypto's `ghash` and `polyval` over random keys, every length 0..=1024,
//! random lengths up to 16 KiB, misaligned buffers and many ways of splitting the input.

use asmgen_runtime::{backends, Ghash, Polyval};
use asmgen_tests::{hex, hex16, scaled, sweep, Rng};
use universal_hash::{KeyInit, UniversalHash};

fn polyval_on(backend: &str, h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut p = Polyval::with_backend(h, backend).expect("backend listed as available");
    p.update_padded(data);
    p.finalize()
}

fn ghash_on(backend: &str, h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut g = Ghash::with_backend(h, backend).expect("backend listed as available");
    g.update_padded(data);
    g.finalize()
}

fn rc_polyval(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut p = polyval::Polyval::new(&(*h).into());
    p.update_padded(data);
    p.finalize().into()
}

fn rc_ghash(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut g = ghash::GHash::new(&(*h).into());
    g.update_padded(data);
    g.finalize().into()
}

/// The backend the dispatcher must pick on this machine, so that a fallback cannot hide a broken fast path.
fn expected_default() -> &'static str {
    if std::env::var("ASMGEN_BACKEND").as_deref() == Ok("portable") {
        return "portable";
    }
    // What the CPU has, less what an `ASMGEN_ISA` cap hides (as `cargo xtask jit-tests` sets it).
    use asmgen_tests::caps::usable;
    if usable(&["vpclmulqdq", "avx2", "avx512f", "avx512bw"]) {
        return "aot/x86_64-vpclmul-avx512";
    }
    if usable(&["vpclmulqdq", "avx2"]) {
        return "aot/x86_64-vpclmul-avx2";
    }
    if usable(&["pclmulqdq", "avx"]) {
        return "aot/x86_64-pclmulqdq-avx";
    }
    #[cfg(target_arch = "aarch64")]
    if std::arch::is_aarch64_feature_detected!("pmull") {
        return "aot/aarch64-pmull";
    }
    #[cfg(target_arch = "riscv64")]
    if std::arch::is_riscv_feature_detected!("zbb") && std::arch::is_riscv_feature_detected!("zbc") {
        return "aot/riscv64-zbb-zbc";
    }
    "portable"
}

#[test]
fn dispatch_picks_the_expected_kernel() {
    let h = [7u8; 16];
    // Cross runs name the kernel each emulated CPU must get (`cargo xtask cross`).
    let expected = match std::env::var("ASMGEN_EXPECT_GHASH") {
        Ok(name) if std::env::var("ASMGEN_BACKEND").as_deref() != Ok("portable") => name,
        _ => asmgen_tests::jit_expectation(expected_default()),
    };
    assert_eq!(Polyval::new(&h).backend(), expected);
    assert_eq!(Ghash::new(&h).backend(), expected);
    assert!(backends().contains(&expected.as_str()));
}

#[test]
fn unknown_backend_is_an_error() {
    assert!(Polyval::with_backend(&[0; 16], "no-such-backend").is_err());
    assert!(Ghash::with_backend(&[0; 16], "no-such-backend").is_err());
}

#[test]
fn polyval_rfc8452_vectors() {
    // RFC 8452, appendix A.
    let h = hex16("25629347589242761d31f826ba4b757b");
    let x = hex("4f4f95668c83dfb6401762bb2d01a262 d1a24ddd2721d006bbe45f20d3c9f362");
    // RFC 8452, appendix C.1 (AEAD_AES_128_GCM_SIV, 8-byte plaintext): POLYVAL input and result.
    let h2 = hex16("d9b360279694941ac5dbc6987ada7377");
    let x2 = hex("01000000000000000000000000000000 00000000000000004000000000000000");
    for b in backends() {
        assert_eq!(polyval_on(b, &h, &x), hex16("f7a3b47b846119fae5b7866cf5e5b77e"), "{b}");
        assert_eq!(polyval_on(b, &h2, &x2), hex16("eb93b7740962c5e49d2a90a7dc5cec74"), "{b}");
        assert_eq!(polyval_on(b, &h2, &[0; 16]), [0; 16], "{b}");
    }
}

#[test]
fn ghash_rfc8452_appendix_a() {
    // RFC 8452, appendix A: GHASH of the same two blocks under the same H.
    let h = hex16("25629347589242761d31f826ba4b757b");
    let x = hex("4f4f95668c83dfb6401762bb2d01a262 d1a24ddd2721d006bbe45f20d3c9f362");
    for b in backends() {
        assert_eq!(ghash_on(b, &h, &x), hex16("bd9b3997046731fb96251b91f9c99d7a"), "{b}");
    }
}

/// GCM's GHASH over A || pad || C || pad || len(A) || len(C) (bit lengths, big-endian).
fn gcm_ghash(backend: &str, h: &[u8; 16], a: &[u8], c: &[u8]) -> [u8; 16] {
    let mut g = Ghash::with_backend(h, backend).unwrap();
    g.update_padded(a);
    g.update_padded(c);
    let mut len = [0u8; 16];
    len[..8].copy_from_slice(&(a.len() as u64 * 8).to_be_bytes());
    len[8..].copy_from_slice(&(c.len() as u64 * 8).to_be_bytes());
    g.update_padded(&len);
    g.finalize()
}

#[test]
fn ghash_gcm_spec_test_cases() {
    // McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", test cases 1-6 (the vectors NIST SP 800-38D
    // validation uses): H, A, C, GHASH(H, A, C).
    let c3 = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e\
              21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985";
    let cases: [(&str, &str, &str, &str); 6] = [
        ("66e94bd4ef8a2c3b884cfa59ca342b2e", "", "", "00000000000000000000000000000000"),
        (
            "66e94bd4ef8a2c3b884cfa59ca342b2e",
            "",
            "0388dace60b6a392f328c2b971b2fe78",
            "f38cbb1ad69223dcc3457ae5b6b0f885",
        ),
        ("b83b533708bf535d0aa6e52980d53b78", "", c3, "7f1b32b81b820d02614f8895ac1d4eac"),
        (
            "b83b533708bf535d0aa6e52980d53b78",
            "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            &c3[..120],
            "698e57f70e6ecc7fd9463b7260a9ae5f",
        ),
        (
            "b83b533708bf535d0aa6e52980d53b78",
            "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c7423\
             73806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598",
            "df586bb4c249b92cb6922877e444d37b",
        ),
        (
            "b83b533708bf535d0aa6e52980d53b78",
            "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7\
             01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5",
            "1c5afe9760d3932f3c9a878aac3dc3de",
        ),
    ];
    for b in backends() {
        for (i, (h, a, c, want)) in cases.iter().enumerate() {
            let got = gcm_ghash(b, &hex16(h), &hex(a), &hex(c));
            assert_eq!(got, hex16(want), "{b}: test case {}", i + 1);
        }
    }
}

fn byte_reverse(b: [u8; 16]) -> [u8; 16] {
    let mut r = b;
    r.reverse();
    r
}

/// mulX_POLYVAL of RFC 8452 appendix A, written out independently of the runtime.
fn mul_x_polyval(b: [u8; 16]) -> [u8; 16] {
    let v = u128::from_le_bytes(b);
    let mut r = v << 1;
    if v >> 127 == 1 {
        r ^= (0xc2u128 << 120) | 1;
    }
    r.to_le_bytes()
}

#[test]
fn ghash_polyval_relation() {
    // GHASH(H, X1..Xn) = ByteReverse(POLYVAL(mulX_POLYVAL(ByteReverse(H)), ByteReverse(X1), ...)).
    let mut rng = Rng::new(8452);
    for b in backends() {
        for n in 0..40 {
            let h = rng.block();
            let mut data = vec![0u8; 16 * n];
            rng.fill(&mut data);
            let reversed: Vec<u8> = data.chunks(16).flat_map(|c| c.iter().rev().copied()).collect();
            let want = byte_reverse(polyval_on(b, &mul_x_polyval(byte_reverse(h)), &reversed));
            assert_eq!(ghash_on(b, &h, &data), want, "{b}, {n} blocks");
        }
    }
}

#[test]
fn every_length_to_1024_matches_rustcrypto() {
    let mut rng = Rng::new(1024);
    let mut buf = vec![0u8; 1024 + 16];
    for b in backends() {
        let lengths = if sweep::interpreted(b) { sweep::every_length(b, 0, 1024) } else { (0..=1024).collect() };
        for len in lengths {
            let h = rng.block();
            let off = rng.below(16);
            rng.fill(&mut buf);
            let data = &buf[off..off + len];
            assert_eq!(polyval_on(b, &h, data), rc_polyval(&h, data), "{b}: POLYVAL, length {len}, offset {off}");
            assert_eq!(ghash_on(b, &h, data), rc_ghash(&h, data), "{b}: GHASH, length {len}, offset {off}");
        }
    }
}

/// Every block count to 200 in one update on each native backend: the wide sets' loops (64 blocks per
/// reduction on ymm, 32 on zmm) once to three times, each followed by every batch and tail after them.
#[test]
fn every_block_count_to_200_matches_rustcrypto() {
    let mut rng = Rng::new(200);
    let mut buf = vec![0u8; 200 * 16 + 16];
    for b in backends().into_iter().filter(|b| !sweep::interpreted(b)) {
        for blocks in (0..=200).step_by(scaled(1, 5)) {
            let h = rng.block();
            let off = rng.below(16);
            rng.fill(&mut buf);
            let data = &buf[off..off + 16 * blocks];
            assert_eq!(polyval_on(b, &h, data), rc_polyval(&h, data), "{b}: POLYVAL, {blocks} blocks");
            assert_eq!(ghash_on(b, &h, data), rc_ghash(&h, data), "{b}: GHASH, {blocks} blocks");
        }
    }
}

#[test]
fn random_lengths_to_16k_with_splits_match_rustcrypto() {
    let mut rng = Rng::new(16384);
    let mut buf = vec![0u8; 16384 + 64];
    for b in backends() {
        let (max, count) = if sweep::interpreted(b) { sweep::random_lengths(b, 16384, 150) } else { (16384, 150) };
        for _ in 0..count {
            let h = rng.block();
            let len = rng.below(max + 1);
            let off = rng.below(64);
            rng.fill(&mut buf);
            let data = &buf[off..off + len];
            // Split at random block boundaries; only the last piece may be partial.
            let mut p = Polyval::with_backend(&h, b).unwrap();
            let mut g = Ghash::with_backend(&h, b).unwrap();
            let mut at = 0;
            while at < len {
                let step = (16 * rng.below(40)).min(len - at);
                let end = if step == 0 || at + step >= len { len } else { at + step };
                p.update_padded(&data[at..end]);
                g.update_padded(&data[at..end]);
                at = end;
            }
            assert_eq!(p.finalize(), rc_polyval(&h, data), "{b}: POLYVAL, length {len}");
            assert_eq!(g.finalize(), rc_ghash(&h, data), "{b}: GHASH, length {len}");
        }
    }
}

#[test]
fn backends_agree_with_each_other() {
    let mut rng = Rng::new(7);
    let all = backends();
    let mut data = vec![0u8; 4096 + 3];
    for _ in 0..50 {
        let h = rng.block();
        rng.fill(&mut data);
        let len = rng.below(4096);
        let d = &data[3..3 + len];
        let first = polyval_on(all[0], &h, d);
        for b in &all[1..] {
            assert_eq!(polyval_on(b, &h, d), first, "{b} vs {}", all[0]);
        }
    }
}

#[test]
fn universal_hash_traits_match_the_inherent_api() {
    let mut rng = Rng::new(42);
    let h = rng.block();
    let mut data = vec![0u8; 1000];
    rng.fill(&mut data);

    let mut via_trait = <Polyval as KeyInit>::new(&h.into());
    let blocks: Vec<universal_hash::Block<Polyval>> =
        data[..992].chunks(16).map(|c| <[u8; 16]>::try_from(c).unwrap().into()).collect();
    via_trait.update(&blocks);
    UniversalHash::update_padded(&mut via_trait, &data[992..]);
    let t: [u8; 16] = UniversalHash::finalize(via_trait).into();
    assert_eq!(t, rc_polyval(&h, &data));

    let mut g = <Ghash as KeyInit>::new(&h.into());
    UniversalHash::update_padded(&mut g, &data);
    let t: [u8; 16] = UniversalHash::finalize(g).into();
    assert_eq!(t, rc_ghash(&h, &data));
}

#[test]
fn clone_continues_independently() {
    let mut rng = Rng::new(3);
    let h = rng.block();
    let mut data = vec![0u8; 512];
    rng.fill(&mut data);
    let mut a = Polyval::new(&h);
    a.update_padded(&data[..256]);
    let mut b = a.clone();
    a.update_padded(&data[256..]);
    b.update_padded(&data[256..]);
    assert_eq!(a.finalize(), b.finalize());
}

/// `finalize_reset` gives `finalize`'s result and starts the next message under the same key, on every
/// backend (the trait's `finalize_reset` and `Reset` too); a clone keeps its own state after its original
/// is reset, and dropping the original leaves the clone's key table (shared) intact.
#[test]
fn finalize_reset_starts_the_next_message_under_the_same_key() {
    let mut rng = Rng::new(4);
    let h = rng.block();
    let mut data = vec![0u8; 1000];
    rng.fill(&mut data);
    for backend in asmgen_runtime::backends() {
        let fresh = |m: &[u8]| {
            let mut g = Ghash::with_backend(&h, backend).unwrap();
            g.update_padded(m);
            g.finalize()
        };
        let mut g = Ghash::with_backend(&h, backend).unwrap();
        g.update_padded(&data[..608]);
        let copy = g.clone();
        assert_eq!(g.finalize_reset(), fresh(&data[..608]), "{backend}");
        g.update_padded(&data[608..]);
        assert_eq!(g.finalize_reset(), fresh(&data[608..]), "{backend}: after finalize_reset");
        g.update_padded(&data[..100]);
        universal_hash::Reset::reset(&mut g);
        g.update_padded(&data[100..]);
        assert_eq!(UniversalHash::finalize_reset(&mut g).as_slice(), fresh(&data[100..]), "{backend}: after reset");
        drop(g);
        let mut copy = copy;
        copy.update_padded(&data[608..]);
        assert_eq!(copy.finalize(), fresh(&data), "{backend}: the clone");

        let mut p = Polyval::with_backend(&h, backend).unwrap();
        p.update_padded(&data);
        let mut q = Polyval::with_backend(&h, backend).unwrap();
        q.update_padded(&data);
        assert_eq!(p.finalize_reset(), q.finalize(), "{backend}");
        assert_eq!(p.finalize_reset(), [0; 16], "{backend}: an empty message");
    }
}

/// A fresh key's table is filled as messages need it (one block: H^1 only; a few blocks: H^1..H^8; 64 blocks
/// or more on the ymm and zmm sets: the whole table), each level once per key and shared by the clones. Every
/// order of those levels, reached by the original or by a clone made before or after, gives RustCrypto's
/// result on every backend, for both functions.
#[test]
fn key_levels_in_any_order_match_rustcrypto() {
    let mut rng = Rng::new(5);
    let mut data = vec![0u8; 16 * 136];
    rng.fill(&mut data);
    // Block counts of successive updates: one block, the common part's runs (2, 15, 16, 63), the whole table.
    let orders: [&[usize]; 6] =
        [&[1, 1, 2, 16, 64, 1], &[2, 1, 63, 1], &[64, 1, 3], &[130], &[1, 130, 15], &[16, 17, 1, 64, 2, 1]];
    for backend in asmgen_runtime::backends() {
        for (oi, order) in orders.iter().enumerate() {
            let h = rng.block();
            let mut p = Polyval::with_backend(&h, backend).unwrap();
            let mut g = Ghash::with_backend(&h, backend).unwrap();
            let (mut rp, mut rg) = (polyval::Polyval::new(&h.into()), ghash::GHash::new(&h.into()));
            // A clone made before any level is filled, and one per step, each checked with the next update.
            let (early_p, early_g) = (p.clone(), g.clone());
            for (si, &n) in order.iter().enumerate() {
                let m = &data[16 * si..16 * (si + n)];
                let (mut cp, mut cg) = (p.clone(), g.clone());
                let (mut crp, mut crg) = (rp.clone(), rg.clone());
                p.update_padded(m);
                g.update_padded(m);
                rp.update_padded(m);
                rg.update_padded(m);
                cp.update_padded(&m[..16]);
                cg.update_padded(&m[..16]);
                crp.update_padded(&m[..16]);
                crg.update_padded(&m[..16]);
                let what = format!("{backend}: order {oi}, step {si} ({n} blocks)");
                assert_eq!(cp.finalize(), <[u8; 16]>::from(crp.finalize()), "POLYVAL {what}: a clone");
                assert_eq!(cg.finalize(), <[u8; 16]>::from(crg.finalize()), "GHASH {what}: a clone");
            }
            assert_eq!(p.finalize(), <[u8; 16]>::from(rp.finalize()), "POLYVAL {backend}: order {oi}");
            assert_eq!(g.finalize(), <[u8; 16]>::from(rg.finalize()), "GHASH {backend}: order {oi}");
            // The clone made first runs every count of the order after the original filled the levels.
            let (mut p, mut g) = (early_p, early_g);
            for &n in order.iter() {
                p.update_padded(&data[..16 * n]);
                g.update_padded(&data[..16 * n]);
            }
            let (mut rp, mut rg) = (polyval::Polyval::new(&h.into()), ghash::GHash::new(&h.into()));
            for &n in order.iter() {
                rp.update_padded(&data[..16 * n]);
                rg.update_padded(&data[..16 * n]);
            }
            assert_eq!(p.finalize(), <[u8; 16]>::from(rp.finalize()), "POLYVAL {backend}: order {oi}, first clone");
            assert_eq!(g.finalize(), <[u8; 16]>::from(rg.finalize()), "GHASH {backend}: order {oi}, first clone");
        }
    }
}

/// The runtime gives a set's base-only key setup (`*_init_base`, or `*_init` where a set has none) a 256-byte
/// table: every such kernel, listed or JIT-assembled, writes the table's first 256 bytes and nothing after
/// them, and the other inits (which fill the ymm and zmm sets' extension) get the whole table.
#[test]
fn base_only_inits_write_only_the_common_part() {
    use asmgen_kernels::ghash::{BASE_TABLE_BYTES, KEY_TABLE_BYTES};
    use asmgen_tests::kernel_calls::{listing_kernels, process_jit_kernels};
    let mut kernels = listing_kernels().0;
    if let Ok(jit) = asmgen_runtime::jit::Jit::process() {
        kernels.extend(process_jit_kernels(jit));
    }
    let inits: Vec<_> =
        kernels.iter().filter(|k| k.role.ends_with("_init") || k.role.ends_with("_init_base")).collect();
    assert!(!inits.is_empty(), "no hash init kernel runs here");
    let h = Rng::new(6).block();
    for k in inits {
        let flavour = k.role.split('_').next().unwrap();
        let has_base_role = kernels.iter().any(|o| o.set == k.set && o.role == format!("{flavour}_init_base"));
        if k.role.ends_with("_init") && has_base_role {
            continue;
        }
        let mut table = vec![0xa5u8; KEY_TABLE_BYTES];
        // SAFETY: an init kernel (`init(table, h)`): 2048 writable bytes and a 16-byte key.
        let init: unsafe extern "C" fn(*mut u8, *const u8) = unsafe { std::mem::transmute(k.entry) };
        unsafe { init(table.as_mut_ptr(), h.as_ptr()) };
        assert!(table[..BASE_TABLE_BYTES].iter().any(|&b| b != 0xa5), "{} ({}) wrote no key table", k.name, k.set);
        let beyond = table[BASE_TABLE_BYTES..].iter().position(|&b| b != 0xa5);
        assert_eq!(beyond, None, "{} ({}, {}) wrote past the common part", k.name, k.set, k.role);
    }
}

/// The x86_64 sets' `*_init_small` (what the runtime runs for a first call of 2..4 blocks under a fresh key)
/// writes H^1..H^4 and their half-sums as the portable init does and nothing else; and each such set's update
/// of 1..=4 blocks reads nothing else: against a table holding only those bytes (the rest poisoned), it gives
/// the portable result. Listed and JIT-assembled kernels alike.
#[test]
fn small_inits_fill_what_short_updates_read() {
    use asmgen_kernels::ghash::{hk_offset, KEY_TABLE_BYTES, SMALL_BLOCKS};
    use asmgen_tests::kernel_calls::{listing_kernels, process_jit_kernels};
    let mut kernels = listing_kernels().0;
    if let Ok(jit) = asmgen_runtime::jit::Jit::process() {
        kernels.extend(process_jit_kernels(jit));
    }
    let written = |i: usize| i < 16 * SMALL_BLOCKS || (hk_offset(1) as usize..hk_offset(5) as usize).contains(&i);
    let mut rng = Rng::new(0x736d_616c);
    let mut checked = 0;
    for k in kernels.iter().filter(|k| k.role.ends_with("_init_small")) {
        let flavour = k.role.split('_').next().unwrap();
        let (_, portable_init) =
            asmgen_runtime::abi_test::portable_hash_inits().into_iter().find(|(r, _)| r.starts_with(flavour)).unwrap();
        let update = kernels.iter().find(|o| o.set == k.set && o.role == format!("{flavour}_update")).unwrap();
        // SAFETY: the roles' C signatures.
        let init: unsafe extern "C" fn(*mut u8, *const u8) = unsafe { std::mem::transmute(k.entry) };
        let update: unsafe extern "C" fn(*mut u8, *const u8, *const u8, usize) =
            unsafe { std::mem::transmute(update.entry) };
        for _ in 0..4 {
            let h = rng.block();
            let (mut want, mut table) = ([0u8; KEY_TABLE_BYTES], [0xa5u8; KEY_TABLE_BYTES]);
            // SAFETY: tables of KEY_TABLE_BYTES, a 16-byte key.
            unsafe { portable_init(want.as_mut_ptr(), h.as_ptr()) };
            unsafe { init(table.as_mut_ptr(), h.as_ptr()) };
            let what = format!("{} {} ({})", k.name, k.set, k.role);
            for (i, (&got, &w)) in table.iter().zip(&want).enumerate() {
                if written(i) {
                    assert_eq!(got, w, "{what}: table byte {i}");
                } else {
                    assert_eq!(got, 0xa5, "{what}: wrote table byte {i}");
                }
            }
            for n in 1..=SMALL_BLOCKS {
                let data: Vec<u8> = (0..n).flat_map(|_| rng.block()).collect();
                let state0 = rng.block();
                let (mut got, mut expected) = (state0, state0);
                // SAFETY: 16-byte states, full tables, n blocks of data.
                unsafe { update(got.as_mut_ptr(), table.as_ptr(), data.as_ptr(), n) };
                unsafe { update(expected.as_mut_ptr(), want.as_ptr(), data.as_ptr(), n) };
                assert_eq!(got, expected, "{what}: update of {n} blocks reads past H^1..H^4");
            }
            checked += 1;
        }
    }
    let x86 = kernels.iter().any(|k| k.set.starts_with("x86_64-") && k.role.ends_with("_update"));
    assert_eq!(checked > 0, x86, "small inits run here exactly where x86_64 hash sets do");
}

/// `a * b * x^-128` in POLYVAL's field, bit by bit: the reference for the key tables' powers.
fn mont_mul(a: u128, b: u128) -> u128 {
    let (mut lo, mut hi) = (0u128, 0u128);
    for i in (0..128).filter(|i| b >> i & 1 == 1) {
        lo ^= a << i;
        hi ^= if i == 0 { 0 } else { a >> (128 - i) };
    }
    // Divide by x 128 times, adding x^128 + x^127 + x^126 + x^121 + 1 first where the low bit is set.
    for _ in 0..128 {
        if lo & 1 == 1 {
            lo ^= 1 | 1 << 121 | 1 << 126 | 1 << 127;
            hi ^= 1;
        }
        lo = lo >> 1 | hi << 127;
        hi >>= 1;
    }
    lo
}

/// Every listing's key setup on this machine (both flavours) fills the table's first 256 bytes as the portable
/// backend does, and the x86_64 ymm and zmm sets' the extension's bytes their update kernels read: H^1..H^64
/// (the zmm set: H^1..H^32) where `ext_h_offset` puts them, and their Karatsuba half-sums packed as `ext_hk`
/// says (the zmm set: the high 64 bits only), with the powers computed here bit by bit.
#[test]
fn key_tables_match_the_portable_one_and_the_reference() {
    use asmgen_kernels::ghash::{ext_h_offset, ext_hk, BASE_TABLE_BYTES, EXT_POWERS, KEY_TABLE_BYTES};
    let mut rng = Rng::new(0x6b65_7973);
    let mut checked = 0;
    for (role, portable) in asmgen_runtime::abi_test::portable_hash_inits() {
        for k in asmgen_runtime::abi_test::kernels().into_iter().filter(|k| k.role == role && k.available) {
            // SAFETY: an init kernel's C signature: (table of KEY_TABLE_BYTES, 16-byte key).
            let init: unsafe extern "C" fn(*mut u8, *const u8) = unsafe { std::mem::transmute(k.entry) };
            for _ in 0..8 {
                let h = rng.block();
                let (mut want, mut got) = ([0u8; KEY_TABLE_BYTES], [0u8; KEY_TABLE_BYTES]);
                // SAFETY: both tables are KEY_TABLE_BYTES long, the key 16 bytes.
                unsafe { portable(want.as_mut_ptr(), h.as_ptr()) };
                unsafe { init(got.as_mut_ptr(), h.as_ptr()) };
                let what = format!("{} {} key {h:02x?}", k.set, k.symbol);
                assert_eq!(got[..BASE_TABLE_BYTES], want[..BASE_TABLE_BYTES], "{what}: base");
                let powers = match k.set {
                    "x86_64-vpclmul-avx2" | "x86_64-vpclmul-avx512" => EXT_POWERS,
                    _ => continue,
                };
                let word = |t: &[u8], off: i32| u128::from_le_bytes(t[off as usize..][..16].try_into().unwrap());
                let half = |t: &[u8], off: usize| u64::from_le_bytes(t[off..][..8].try_into().unwrap());
                let h1 = word(&want, 0);
                let mut p = h1;
                for i in 1..=powers {
                    assert_eq!(word(&got, ext_h_offset(i)), p, "{what}: H^{i}");
                    // Pair j = (64 - i) / 2 holds H^i in lane (64 - i) % 2; its half-sum is at that lane's
                    // low or high 64 bits.
                    let j = (EXT_POWERS - i) / 2;
                    let (off, sel) = ext_hk(j);
                    let at = off as usize + 16 * ((EXT_POWERS - i) % 2) + if sel == 0 { 0 } else { 8 };
                    assert_eq!(half(&got, at), (p as u64) ^ (p >> 64) as u64, "{what}: half-sum of H^{i}");
                    p = mont_mul(p, h1);
                }
                checked += 1;
            }
        }
    }
    eprintln!("{checked} key tables checked");
}
