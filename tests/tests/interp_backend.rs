//! The runtime's interpreter backends (feature `interp`: `cargo test -p asmgen-tests --features interp --test
//! interp_backend`): the GFNI set's SM4 kernels run by the interpreter through the safe API (ECB, CTR, XTS,
//! GCM, CBC) agree with RustCrypto at a few lengths, whatever the CPU (no GFNI needed), the GFNI + AVX-512 and
//! VAES + AVX-512 sets' batch modes at every block count to 50 and some longer ones (no AVX-512 needed); and
//! every x86_64 set is
//! listed as `interp/<set>`; the zmm and ymm GHASH/POLYVAL sets agree at block counts that reach each of their
//! paths.
//! The aarch64 sets (`interp/aarch64-<set>`, interpreted per AAPCS64 on any host) too: SM4 of both SM4 sets,
//! GHASH and POLYVAL of the PMULL set, against RustCrypto. With the feature on, the general API suites (sm4_modes,
//! sm4_aead, sm4_xts, sm4_mac, ghash, zeroize) run every `interp/` backend too, at the lengths of
//! `asmgen_tests::sweep`.
#![cfg(feature = "interp")]

use asmgen_runtime::sm4_backend_table;
use asmgen_tests::interp::sm4_backend_matches_rustcrypto;
use asmgen_tests::Rng;
use universal_hash::UniversalHash;

const GFNI: &str = "interp/x86_64-gfni-avx2";
const GFNI512: &str = "interp/x86_64-gfni-avx512";
const VAES512: &str = "interp/x86_64-vaes-avx512";
const LENGTHS: [usize; 4] = [32, 48, 272, 528];

#[test]
fn every_x86_64_set_is_an_interpreter_backend() {
    let table = sm4_backend_table();
    for set in [
        "x86_64-gfni-avx512",
        "x86_64-vaes-avx512",
        "x86_64-gfni-avx2",
        "x86_64-vaes-avx2",
        "x86_64-aesni-avx2",
        "x86_64-aesni-avx",
    ] {
        let name = format!("interp/{set}");
        assert!(table.iter().any(|(n, ok)| *n == name && *ok), "{name} missing: {table:?}");
    }
    for set in ["interp/x86_64-vpclmul-avx512", "interp/x86_64-vpclmul-avx2", "interp/x86_64-pclmulqdq-avx"] {
        assert!(asmgen_runtime::hash_backends().iter().any(|(n, _)| *n == set), "{set} missing");
    }
}

#[test]
fn gfni_sm4_through_the_interpreter_matches_rustcrypto() {
    sm4_backend_matches_rustcrypto(GFNI, &LENGTHS, &mut Rng::new(7));
}

/// The zmm set at every block count to 50 (the zmm loop's full batches of 32, the ymm batches of 16 and the
/// partial ymm and xmm batches after them) and some longer ones (several zmm batches, then each tail), in
/// every batch mode, against the portable backend (itself checked against RustCrypto); ECB, CTR, XTS and GCM
/// also against RustCrypto.
#[test]
fn gfni_avx512_sm4_through_the_interpreter_matches() {
    zmm_set_matches(GFNI512, &mut Rng::new(11));
}

/// The VAES zmm set as [`gfni_avx512_sm4_through_the_interpreter_matches`] checks the GFNI one.
#[test]
fn vaes_avx512_sm4_through_the_interpreter_matches() {
    zmm_set_matches(VAES512, &mut Rng::new(13));
}

/// A zmm set's batch modes at every block count to 50 and some longer ones against the portable backend, and
/// the set against RustCrypto at five lengths (XTS, 5 bytes shorter, runs its whole-block loop over 0, 31, 63,
/// 96 and 143 blocks: one 48-block batch and two back to back, with and without a tail, then stealing).
fn zmm_set_matches(set: &str, rng: &mut Rng) {
    sm4_backend_matches_rustcrypto(set, &[32, 528, 1040, 16 * 98, 16 * 145], rng);
    let key = rng.block();
    let z = asmgen_runtime::Sm4::with_backend(&key, set).unwrap();
    let p = asmgen_runtime::Sm4::with_backend(&key, "portable").unwrap();
    let counts: Vec<usize> = (0..=50).chain([63, 64, 65, 81, 95, 96, 97, 113, 130]).collect();
    for n in counts {
        let mut data = vec![0u8; 16 * n];
        rng.fill(&mut data);
        let iv = rng.block();
        asmgen_tests::sweep::batch_modes_agree(&z, &p, &data, iv, set);
    }
}

#[test]
fn aarch64_sets_through_the_interpreter_match_rustcrypto() {
    let table = sm4_backend_table();
    for set in ["interp/aarch64-sm4ce", "interp/aarch64-neon"] {
        assert!(table.iter().any(|(n, ok)| *n == set && *ok), "{set} missing: {table:?}");
        sm4_backend_matches_rustcrypto(set, &LENGTHS, &mut Rng::new(7));
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

/// The zmm GHASH/POLYVAL set through the interpreter (whatever the CPU), at every block count that reaches
/// one of its paths: 0..=33 (the ymm tail alone, the batch of 8, the zmm batches of 16 and 32, with and
/// without each tail), the first 64-block batch alone and with the batches of 32, 16, 8 and a tail after it,
/// then one, two and three more 64-block batches (each set of sums reduced after the loop, and the loop's way
/// back), with tails.
#[test]
fn zmm_hash_set_through_the_interpreter_matches_rustcrypto() {
    let counts = (0..=33).chain([47, 48, 49, 63, 64, 65, 79, 80, 95, 96, 111, 127, 128, 129, 191, 192, 255, 256, 319]);
    hash_set_matches_rustcrypto("interp/x86_64-vpclmul-avx512", counts, 11);
}

/// The ymm GHASH/POLYVAL set through the interpreter (whatever the CPU), at block counts that reach each of
/// its paths: one block, the tail alone, the batches of 8, 16 and 32 alone and together, the 64-block loop
/// once and twice, each with what it leaves.
#[test]
fn ymm_hash_set_through_the_interpreter_matches_rustcrypto() {
    let counts =
        (0..=9).chain([15, 16, 17, 24, 31, 32, 40, 47, 48, 55, 63, 64, 65, 72, 79, 80, 88, 111, 127, 128, 129]);
    hash_set_matches_rustcrypto("interp/x86_64-vpclmul-avx2", counts, 12);
}

/// GHASH and POLYVAL of `set` against RustCrypto, one message of random blocks per count, one update each.
fn hash_set_matches_rustcrypto(set: &str, counts: impl Iterator<Item = usize>, seed: u64) {
    assert!(asmgen_runtime::hash_backends().iter().any(|(n, ok)| *n == set && *ok), "{set}");
    let mut rng = Rng::new(seed);
    let h = rng.block();
    for blocks in counts {
        let mut data = vec![0u8; 16 * blocks];
        rng.fill(&mut data);
        let mut g = asmgen_runtime::Ghash::with_backend(&h, set).unwrap();
        g.update_padded(&data);
        let mut rg = ghash::GHash::new(&h.into());
        rg.update_padded(&data);
        assert_eq!(g.finalize(), <[u8; 16]>::from(rg.finalize()), "{set}: GHASH of {blocks} blocks");
        let mut p = asmgen_runtime::Polyval::with_backend(&h, set).unwrap();
        p.update_padded(&data);
        let mut rp = polyval::Polyval::new(&h.into());
        rp.update_padded(&data);
        assert_eq!(p.finalize(), <[u8; 16]>::from(rp.finalize()), "{set}: POLYVAL of {blocks} blocks");
    }
}
