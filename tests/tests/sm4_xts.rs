//! SM4-XTS on every backend: the GB/T 17964-2021 and IEEE 1619 vectors OpenSSL carries
//! (evpciph_sm4.txt), differential tests against RustCrypto's `xts-mode` (IEEE) and a reference written here
//! (GB/T 17964, whose tweak is multiplied by x in the bit-reflected order), every length 16..=1024 and random
//! lengths up to 64 KiB, misaligned buffers, and error cases; every set's one-unit kernels
//! (`xts_unit_*`) called directly; and the zmm sets' whole-block and unit kernels called directly at every
//! block count through four 48-block batches.

use asmgen_runtime::{sm4_backends, Error, Sm4Xts};
use asmgen_tests::kernel_calls::{listing_kernels, process_jit_kernels, Kernel};
use asmgen_tests::{hex, hex16, rc_xts_ieee, sweep, Misaligned, Rng};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};

fn rc(key: &[u8; 16]) -> sm4::Sm4 {
    sm4::Sm4::new(&(*key).into())
}

/// Multiplication by x of the GB/T 17964 tweak: the 128-bit string read big-endian, shifted right, with
/// 0xe1 folded into the first byte (the polynomial x^128 + x^7 + x^2 + x + 1 in reflected bit order).
fn gb_next(t: [u8; 16]) -> [u8; 16] {
    let mut r = [0u8; 16];
    let carry = t[15] & 1;
    for i in (0..16).rev() {
        r[i] = t[i] >> 1 | if i > 0 { t[i - 1] << 7 } else { 0 };
    }
    if carry == 1 {
        r[0] ^= 0xe1;
    }
    r
}

/// XTS with ciphertext stealing (IEEE 1619 section 5.3), written independently, with GB/T 17964's tweak.
fn ref_xts_gb(k1: &[u8; 16], k2: &[u8; 16], tweak: &[u8; 16], data: &[u8], decrypt: bool) -> Vec<u8> {
    let (c1, c2) = (rc(k1), rc(k2));
    let mut t: cipher::Block<sm4::Sm4> = (*tweak).into();
    c2.encrypt_block(&mut t);
    let mut t: [u8; 16] = t.into();
    let one = |block: &[u8], t: &[u8; 16]| -> [u8; 16] {
        let mut b = [0u8; 16];
        for i in 0..16 {
            b[i] = block[i] ^ t[i];
        }
        let mut bb: cipher::Block<sm4::Sm4> = b.into();
        if decrypt {
            c1.decrypt_block(&mut bb);
        } else {
            c1.encrypt_block(&mut bb);
        }
        for i in 0..16 {
            b[i] = bb[i] ^ t[i];
        }
        b
    };
    let n = data.len();
    let m = n / 16;
    let d = n % 16;
    let mut out = data.to_vec();
    let whole = if d == 0 { m } else { m - 1 };
    for i in 0..whole {
        out[16 * i..16 * i + 16].copy_from_slice(&one(&data[16 * i..16 * i + 16], &t));
        t = gb_next(t);
    }
    if d != 0 {
        let (ta, tb) = if decrypt { (gb_next(t), t) } else { (t, gb_next(t)) };
        let cc = one(&data[16 * (m - 1)..16 * m], &ta);
        let mut pp = cc;
        pp[..d].copy_from_slice(&data[16 * m..]);
        out[16 * (m - 1)..16 * m].copy_from_slice(&one(&pp, &tb));
        out[16 * m..].copy_from_slice(&cc[..d]);
    }
    out
}

type Reference = fn(&[u8; 16], &[u8; 16], &[u8; 16], &[u8], bool) -> Vec<u8>;

fn xts_on(b: &str, k1: &[u8; 16], k2: &[u8; 16], gb: bool) -> Sm4Xts {
    if gb {
        Sm4Xts::with_backend_gb(k1, k2, b).unwrap()
    } else {
        Sm4Xts::with_backend(k1, k2, b).unwrap()
    }
}

const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c 000102030405060708090a0b0c0d0e0f";
const IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
const PT: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                  30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17";

#[test]
fn openssl_evpciph_sm4_xts_vectors() {
    let key = hex(KEY);
    let (k1, k2): ([u8; 16], [u8; 16]) = (key[..16].try_into().unwrap(), key[16..].try_into().unwrap());
    let gb = hex("e9538251c71d7b80bbe4483fef497bd12c5c581bd6242fc51e08964fb4f60fdb\
         0ba42f63499279213d318d2c11f6886e903be7f93a1b3479");
    let ieee = hex("e9538251c71d7b80bbe4483fef497bd1b3db1a3e60408c575d63ff7db39f8326\
         0869f9e2585fec9f0b863bf8fd784b8627d16c0db6d2cfc7");
    // The same vectors through the references (which the differential tests then trust).
    assert_eq!(ref_xts_gb(&k1, &k2, &hex16(IV), &hex(PT), false), gb);
    assert_eq!(rc_xts_ieee(&k1, &k2, &hex16(IV), &hex(PT), false), ieee);
    // A 17-byte unit (ciphertext stealing), OpenSSL's default standard (GB).
    let key2 = hex("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0 bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0");
    let (k3, k4): ([u8; 16], [u8; 16]) = (key2[..16].try_into().unwrap(), key2[16..].try_into().unwrap());
    let tw = hex16("9a785634120000000000000000000000");
    let p17 = hex("000102030405060708090a0b0c0d0e0f10");
    let c17 = hex("9e52443a35410ca0ba5637b94c0766f469");
    for b in sm4_backends() {
        for (is_gb, want) in [(true, &gb), (false, &ieee)] {
            let x = xts_on(b, &k1, &k2, is_gb);
            let mut buf = hex(PT);
            x.encrypt(&hex16(IV), &mut buf).unwrap();
            assert_eq!(&buf, want, "{b}: gb={is_gb}");
            x.decrypt(&hex16(IV), &mut buf).unwrap();
            assert_eq!(buf, hex(PT), "{b}: gb={is_gb} decrypt");
        }
        let x = xts_on(b, &k3, &k4, true);
        let mut buf = p17.clone();
        x.encrypt(&tw, &mut buf).unwrap();
        assert_eq!(buf, c17, "{b}: 17-byte unit");
        x.decrypt(&tw, &mut buf).unwrap();
        assert_eq!(buf, p17, "{b}: 17-byte unit decrypt");
    }
}

fn check(b: &str, gb: bool, rng: &mut Rng, data: &[u8]) {
    let (k1, k2, tw) = (rng.block(), rng.block(), rng.block());
    let reference: Reference = if gb { ref_xts_gb } else { rc_xts_ieee };
    let want = reference(&k1, &k2, &tw, data, false);
    assert_eq!(reference(&k1, &k2, &tw, &want, true), data, "reference round trip");
    let x = xts_on(b, &k1, &k2, gb);
    let off = rng.below(64);
    let mut m = Misaligned::new(data, off);
    x.encrypt(&tw, m.get()).unwrap();
    m.check_guards();
    assert_eq!(m.get(), &want[..], "{b}: gb={gb}, length {}, offset {off}: encryption", data.len());
    x.decrypt(&tw, m.get()).unwrap();
    m.check_guards();
    assert_eq!(m.get(), data, "{b}: gb={gb}, length {}, offset {off}: decryption", data.len());
}

#[test]
fn every_length_to_1024_matches_the_references() {
    let mut rng = Rng::new(1619);
    let mut data = vec![0u8; 1024];
    for b in sm4_backends() {
        for gb in [false, true] {
            for len in sweep::every_length(b, 16, 1024) {
                rng.fill(&mut data[..len]);
                check(b, gb, &mut rng, &data[..len]);
            }
        }
    }
}

#[test]
fn random_lengths_to_64k_match_the_references() {
    let mut rng = Rng::new(17964);
    let mut data = vec![0u8; 65536];
    for b in sm4_backends() {
        let (max, count) = sweep::random_lengths(b, 65536, 12);
        for gb in [false, true] {
            for _ in 0..count {
                let len = 16 + rng.below(max - 15);
                rng.fill(&mut data[..len]);
                check(b, gb, &mut rng, &data[..len]);
            }
        }
    }
}

#[test]
fn short_units_are_errors() {
    for b in sm4_backends() {
        for gb in [false, true] {
            let x = xts_on(b, &[1; 16], &[2; 16], gb);
            for len in 0..16 {
                let mut buf = vec![7u8; len];
                assert!(matches!(x.encrypt(&[0; 16], &mut buf), Err(Error::InvalidLength { .. })));
                assert!(x.decrypt(&[0; 16], &mut buf).is_err());
                assert_eq!(buf, vec![7u8; len]);
            }
        }
    }
}

// --- The unit kernels (`xts_unit_*`), called directly -------------------------------------------------------

/// `expand_key(rk_enc, rk_dec, key)`.
type ExpandFn = unsafe extern "C" fn(*mut u8, *mut u8, *const u8);
/// `xts_unit(rk_data, rk_tweak, dst, src, len, iv)`.
type UnitFn = unsafe extern "C" fn(*const u8, *const u8, *mut u8, *const u8, usize, *const u8);

/// Both round-key schedules of `key` from a set's key schedule.
fn schedule(expand: &Kernel, key: &[u8; 16]) -> [[u8; 128]; 2] {
    let mut rk = [[0u8; 128]; 2];
    let [enc, dec] = &mut rk;
    // SAFETY: the set's `expand_key` (its C signature), 128-byte outputs and a 16-byte key.
    unsafe {
        std::mem::transmute::<*const (), ExpandFn>(expand.entry)(enc.as_mut_ptr(), dec.as_mut_ptr(), key.as_ptr())
    };
    rk
}

/// One unit kernel over `len` bytes, out of place (into a buffer of `0xa5`) and in place, against the
/// references, guards around every buffer; below 16 bytes no buffer may change.
fn check_unit(unit: &Kernel, expand: &Kernel, rng: &mut Rng, len: usize) {
    let (gb, decrypt) = (unit.role.ends_with("_gb"), unit.role.contains("_dec_"));
    let (k1, k2, iv) = (rng.block(), rng.block(), rng.block());
    let (rk1, rk2) = (schedule(expand, &k1), schedule(expand, &k2));
    let reference: Reference = if gb { ref_xts_gb } else { rc_xts_ieee };
    let mut input = vec![0u8; len];
    rng.fill(&mut input);
    let want = if len < 16 { input.clone() } else { reference(&k1, &k2, &iv, &input, decrypt) };
    // SAFETY (the calls below): the role's C signature; 128-byte round keys, `len` bytes at dst and at src
    // (the same buffer or disjoint ones), a 16-byte iv.
    let f = unsafe { std::mem::transmute::<*const (), UnitFn>(unit.entry) };
    let (rk, rkt) = (rk1[decrypt as usize].as_ptr(), rk2[0].as_ptr());
    let what = format!("{} {} ({}), length {len}", unit.set, unit.name, unit.role);
    let (mut src, mut dst) = (Misaligned::new(&input, 3), Misaligned::new(&vec![0xa5; len], 5));
    unsafe { f(rk, rkt, dst.get().as_mut_ptr(), src.get().as_ptr(), len, iv.as_ptr()) };
    src.check_guards();
    dst.check_guards();
    assert_eq!(src.get(), &input[..], "{what}: src changed");
    let out = if len < 16 { vec![0xa5; len] } else { want.clone() };
    assert_eq!(dst.get(), &out[..], "{what}: dst != src");
    let mut buf = Misaligned::new(&input, 7);
    let p = buf.get().as_mut_ptr();
    unsafe { f(rk, rkt, p, p, len, iv.as_ptr()) };
    buf.check_guards();
    assert_eq!(buf.get(), &want[..], "{what}: dst == src");
}

/// The kernels to call directly: the linked listings' the CPU runs, and the process JIT's where there is one.
fn kernel_sources() -> Vec<Vec<Kernel>> {
    let mut sources = vec![listing_kernels().0];
    if let Ok(jit) = asmgen_runtime::jit::Jit::process() {
        sources.push(process_jit_kernels(jit));
    }
    sources
}

/// Every set's unit kernels this CPU runs (the linked listings' and the process JIT's), called directly for
/// every length 0..=100 and 4096 + 5, out of place and in place, against the references (so against the
/// whole-block path the API tests above check); below 16 bytes nothing is written. Every set with
/// whole-block XTS kernels has them.
#[test]
fn unit_kernels_called_directly_match_the_references() {
    let mut rng = Rng::new(1619_17964);
    let sources = kernel_sources();
    let mut tested = 0;
    for kernels in &sources {
        let mut sets: Vec<&str> = kernels.iter().map(|k| k.set.as_str()).collect();
        sets.sort_unstable();
        sets.dedup();
        for set in sets {
            let of_set: Vec<&Kernel> = kernels.iter().filter(|k| k.set == set).collect();
            let units: Vec<&&Kernel> = of_set.iter().filter(|k| k.role.starts_with("xts_unit_")).collect();
            let Some(expand) = of_set.iter().find(|k| k.role == "expand_key") else { continue };
            if of_set.iter().any(|k| k.role == "xts_enc_ieee") {
                assert_eq!(units.len(), 4, "{set}: every set with XTS kernels has the four unit kernels");
            }
            for unit in units {
                for len in (0..=100).chain([4096 + 5]) {
                    check_unit(unit, expand, &mut rng, len);
                }
                tested += 1;
            }
        }
    }
    eprintln!("{tested} unit kernels called directly");
}

// --- The zmm sets' kernels over every batch boundary ---------------------------------------------------------

/// `xts(rk, dst, src, nblocks, tweak)`: the whole-block kernels.
type BlocksFn = unsafe extern "C" fn(*const u8, *mut u8, *const u8, usize, *mut u8);

/// Multiplication by x of the IEEE 1619 tweak: little-endian, 0x87 folded in.
fn ieee_next(t: [u8; 16]) -> [u8; 16] {
    let v = u128::from_le_bytes(t);
    ((v << 1) ^ if v >> 127 == 1 { 0x87 } else { 0 }).to_le_bytes()
}

/// One whole-block kernel over `n` blocks, out of place (misaligned, into a buffer of `0xa5`) and in place,
/// against the references: the output, and the tweak left at `T[n]`; guards around every buffer.
fn check_blocks(k: &Kernel, expand: &Kernel, rng: &mut Rng, n: usize) {
    let (gb, decrypt) = (k.role.ends_with("_gb"), k.role.contains("_dec_"));
    let (k1, k2, iv) = (rng.block(), rng.block(), rng.block());
    let rk = schedule(expand, &k1)[decrypt as usize];
    let mut t0: cipher::Block<sm4::Sm4> = iv.into();
    rc(&k2).encrypt_block(&mut t0);
    let t0: [u8; 16] = t0.into();
    let mut t_end = t0;
    for _ in 0..n {
        t_end = if gb { gb_next(t_end) } else { ieee_next(t_end) };
    }
    let reference: Reference = if gb { ref_xts_gb } else { rc_xts_ieee };
    let mut input = vec![0u8; 16 * n];
    rng.fill(&mut input);
    let want = if n == 0 { Vec::new() } else { reference(&k1, &k2, &iv, &input, decrypt) };
    let what = format!("{} {} ({}), {n} blocks", k.set, k.name, k.role);
    // SAFETY (the calls below): the role's C signature; 128-byte round keys, 16 * n bytes at dst and at src
    // (the same buffer or disjoint ones), a 16-byte tweak read and written.
    let f = unsafe { std::mem::transmute::<*const (), BlocksFn>(k.entry) };
    let (mut src, mut dst) = (Misaligned::new(&input, 3), Misaligned::new(&vec![0xa5; 16 * n], 5));
    let mut t = t0;
    unsafe { f(rk.as_ptr(), dst.get().as_mut_ptr(), src.get().as_ptr(), n, t.as_mut_ptr()) };
    src.check_guards();
    dst.check_guards();
    assert_eq!(src.get(), &input[..], "{what}: src changed");
    assert_eq!(dst.get(), &want[..], "{what}: dst != src");
    assert_eq!(t, t_end, "{what}: dst != src, the tweak after");
    let mut buf = Misaligned::new(&input, 9);
    let p = buf.get().as_mut_ptr();
    let mut t = t0;
    unsafe { f(rk.as_ptr(), p, p, n, t.as_mut_ptr()) };
    buf.check_guards();
    assert_eq!(buf.get(), &want[..], "{what}: dst == src");
    assert_eq!(t, t_end, "{what}: dst == src, the tweak after");
}

/// The zmm sets' (`*-avx512`) XTS kernels this CPU runs (the linked listings' and the process JIT's), both
/// standards, both directions, called directly: the whole-block kernels at every block count 0..=200 (full
/// 48-block batches alone and back to back, and every tail of 0..47 blocks after zero to four of them), the
/// unit kernels at `16 * c` and `16 * c + d` bytes for every such count (ciphertext stealing after each), out
/// of place and in place, misaligned, against the references.
#[test]
fn zmm_kernels_over_every_batch_boundary_match_the_references() {
    let mut rng = Rng::new(48_1619);
    let sources = kernel_sources();
    let mut tested = 0;
    for kernels in &sources {
        let zmm: Vec<&Kernel> = kernels.iter().filter(|k| k.set.ends_with("-avx512")).collect();
        for k in zmm.iter().filter(|k| k.role.starts_with("xts_")) {
            let expand = zmm
                .iter()
                .find(|e| e.set == k.set && e.role == "expand_key")
                .expect("every SM4 set has a key schedule");
            for c in 0..=200 {
                if k.role.starts_with("xts_unit_") {
                    check_unit(k, expand, &mut rng, 16 * c);
                    check_unit(k, expand, &mut rng, 16 * c + 1 + c % 15);
                } else {
                    check_blocks(k, expand, &mut rng, c);
                }
            }
            tested += 1;
        }
    }
    eprintln!("{tested} zmm XTS kernels called directly");
}
