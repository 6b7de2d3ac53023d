//! The families with a new key for every message (`<KIND>-NEW-KEY`): what an application pays when each message
//! has its own key (AES-GCM-SIV derives a POLYVAL key per nonce; protocols re-key per connection). Each message
//! is the whole sequence: a new object from a key that changes with every message, the message, the tag, the
//! drop. Beside it, asmgen's same kind under one key (the other families' contender, for the ratio), and the
//! peers re-keyed per message: RustCrypto's types made anew, libgcrypt's open handle given the new key
//! (`gcry_cipher_setkey`, `gcry_mac_setkey`; its GCM-SIV also derives a key per nonce).

use super::{gcrypt, gcrypt_sm4, in_place, keyed, sm4_ours, Contender, Libs, Missing};
use asmgen_runtime::{Ghash, Polyval, Sm4, Sm4Cmac, Sm4Gcm, Sm4Xts};

/// The families: each kind with its libgcrypt mode (`None`: CMAC; unused for the hashes).
pub const KINDS: [(&str, Option<i32>); 7] = [
    ("GHASH-NEW-KEY", None),
    ("POLYVAL-NEW-KEY", None),
    ("SM4-ECB-NEW-KEY", Some(gcrypt::MODE_ECB)),
    ("SM4-CTR-NEW-KEY", Some(gcrypt::MODE_CTR)),
    ("SM4-XTS-NEW-KEY", Some(gcrypt::MODE_XTS)),
    ("SM4-GCM-NEW-KEY", Some(gcrypt::MODE_GCM)),
    ("SM4-CMAC-NEW-KEY", None),
];

/// The suffix that names a new-key family.
pub const SUFFIX: &str = "-NEW-KEY";

/// What a new key costs per message, in cycles: the new-key contender's time per message less the one-key
/// contender's (`[1]` and `[2]` of the table), per size, from `(ns/B new key, ns/B one key, GHz)` per size.
pub fn key_cost(rows: &[(f64, f64, Option<f64>)], sizes: &[usize]) -> String {
    let cost: Vec<String> = rows
        .iter()
        .zip(sizes)
        .map(|(&(fresh, one, ghz), &size)| match ghz {
            Some(g) => format!("{size} B: {:.0}", (fresh - one) * size as f64 * g),
            None => format!("{size} B: {:.0} ns", (fresh - one) * size as f64),
        })
        .collect();
    format!("a new key costs, in cycles per message ([1] less [2]): {}", cost.join(", "))
}

/// A 32-byte key that differs for every call (a counter in its first and last 8 bytes), so no contender can
/// keep work from one message for the next.
fn next_key(n: &mut u64) -> [u8; 32] {
    *n += 1;
    let mut k = [0x42u8; 32];
    k[..8].copy_from_slice(&n.to_le_bytes());
    k[24..].copy_from_slice(&n.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes());
    k
}

/// The first 16 bytes of a [`next_key`].
fn key16(k: &[u8; 32]) -> [u8; 16] {
    k[..16].try_into().expect("16 of 32 bytes")
}

/// A contender that makes a new key for every message and passes it with the message.
fn rekeyed(name: String, ours: bool, mut f: impl FnMut(&[u8; 32], &mut [u8]) -> u8 + 'static) -> Contender {
    let mut n = 0u64;
    in_place(name, ours, move |m| f(&next_key(&mut n), m))
}

/// The contenders of a new-key family, and the peers that are missing.
pub fn contenders(kind: &str, mode: Option<i32>, libs: Libs) -> (Vec<Contender>, Vec<Missing>) {
    let base = kind.strip_suffix(SUFFIX).expect("a new-key family");
    let mut v = match base {
        "GHASH" | "POLYVAL" => hashes(base == "GHASH"),
        _ => sm4(base),
    };
    let mut missing = Vec::new();
    match libs.gcrypt {
        Some(lib) => v.push(gcrypt_peer(base, mode, lib)),
        None => missing.push(Missing { name: format!("libgcrypt {base}"), install: "apt-get install libgcrypt20" }),
    }
    (v, missing)
}

/// asmgen's hash with a new key per message and under one key, then RustCrypto's with a new key per message.
fn hashes(ghash: bool) -> Vec<Contender> {
    use universal_hash::UniversalHash;
    let h = [0x42u8; 16];
    if ghash {
        let best = Ghash::new(&h).backend();
        let f: fn(&mut Ghash, &[u8]) -> u8 = |g, m| {
            g.update_padded(m);
            g.finalize_reset()[0]
        };
        vec![
            rekeyed(format!("asmgen {best}, a new key per message"), true, |k, m| {
                let mut g = Ghash::new(&key16(k));
                g.update_padded(m);
                g.finalize()[0]
            }),
            keyed(format!("asmgen {best}, one key"), true, Ghash::new(&h), f),
            rekeyed("RustCrypto ghash 0.6, a new key per message".into(), false, |k, m| {
                let mut g = ghash::GHash::new(&key16(k).into());
                g.update_padded(m);
                g.finalize()[0]
            }),
        ]
    } else {
        let best = Polyval::new(&h).backend();
        let f: fn(&mut Polyval, &[u8]) -> u8 = |g, m| {
            g.update_padded(m);
            g.finalize_reset()[0]
        };
        vec![
            rekeyed(format!("asmgen {best}, a new key per message"), true, |k, m| {
                let mut p = Polyval::new(&key16(k));
                p.update_padded(m);
                p.finalize()[0]
            }),
            keyed(format!("asmgen {best}, one key"), true, Polyval::new(&h), f),
            rekeyed("RustCrypto polyval 0.7, a new key per message".into(), false, |k, m| {
                let mut p = polyval::Polyval::new(&key16(k).into());
                p.update_padded(m);
                p.finalize()[0]
            }),
        ]
    }
}

/// asmgen's SM4 kind with a new key per message and under one key, then RustCrypto's with a new key per
/// message.
fn sm4(kind: &str) -> Vec<Contender> {
    use cipher::{KeyInit, KeyIvInit, StreamCipher};
    let best = Sm4::new(&[0x42; 16]).backend();
    let iv = [7u8; 16];
    let name = format!("asmgen {best}, a new key per message");
    let ours = match kind {
        "SM4-ECB" => rekeyed(name, true, |k, m| {
            Sm4::new(&key16(k)).encrypt_ecb(m).unwrap();
            m[0]
        }),
        "SM4-CTR" => rekeyed(name, true, move |k, m| {
            Sm4::new(&key16(k)).apply_ctr(&mut iv.clone(), m);
            m[0]
        }),
        "SM4-XTS" => rekeyed(name, true, move |k, m| {
            Sm4Xts::new(&key16(k), &k[16..].try_into().unwrap()).encrypt(&iv, m).unwrap();
            m[0]
        }),
        "SM4-GCM" => rekeyed(name, true, move |k, m| Sm4Gcm::new(&key16(k)).encrypt(&iv[..12], &[], m).unwrap()[0]),
        "SM4-CMAC" => rekeyed(name, true, |k, m| {
            let mut c = Sm4Cmac::new(&key16(k));
            c.update(m);
            c.finalize()[0]
        }),
        _ => unreachable!("{kind}"),
    };
    let mut one = sm4_ours(kind, None);
    one.name += ", one key";
    let rc = format!("RustCrypto sm4 0.6 ({kind}), a new key per message");
    let rust_crypto = match kind {
        "SM4-ECB" => rekeyed(rc, false, |k, m| {
            use cipher::BlockCipherEncrypt;
            let c = sm4::Sm4::new(&key16(k).into());
            for b in m.chunks_exact_mut(16) {
                c.encrypt_block(b.try_into().unwrap());
            }
            m[0]
        }),
        "SM4-CTR" => rekeyed(rc, false, move |k, m| {
            ctr::Ctr128BE::<sm4::Sm4>::new(&key16(k).into(), &iv.into()).apply_keystream(m);
            m[0]
        }),
        "SM4-XTS" => rekeyed(rc, false, move |k, m| {
            let c1 = sm4::Sm4::new(&key16(k).into());
            let c2 = sm4::Sm4::new(&<[u8; 16]>::try_from(&k[16..]).unwrap().into());
            xts_mode::Xts128::new(c1, c2).encrypt_sector(m, iv.into());
            m[0]
        }),
        "SM4-GCM" => rekeyed(rc, false, move |k, m| {
            use aead::AeadInOut;
            let g = aes_gcm::AesGcm::<sm4::Sm4, cipher::consts::U12>::new(&key16(k).into());
            g.encrypt_inout_detached(iv[..12].try_into().unwrap(), &[], m.into()).unwrap()[0]
        }),
        "SM4-CMAC" => rekeyed(rc, false, |k, m| {
            use cmac::Mac;
            let mut c = <cmac::Cmac<sm4::Sm4> as cmac::KeyInit>::new(&key16(k).into());
            c.update(m);
            c.finalize().into_bytes()[0]
        }),
        _ => unreachable!("{kind}"),
    };
    vec![ours, one, rust_crypto]
}

/// libgcrypt re-keyed per message: its GCM (GHASH) or GCM-SIV (POLYVAL) over AAD only, or its SM4 mode.
fn gcrypt_peer(kind: &str, mode: Option<i32>, lib: gcrypt::Lib) -> Contender {
    let version = gcrypt::version(&lib);
    match kind {
        "GHASH" | "POLYVAL" => {
            let (mode, what) = if kind == "GHASH" {
                (gcrypt::MODE_GCM, "AES-GCM (AAD only)")
            } else {
                (gcrypt::MODE_GCM_SIV, "AES-GCM-SIV (AAD only)")
            };
            let mut mac = gcrypt::Mac::new(lib, mode, &[0x42; 16]);
            rekeyed(format!("libgcrypt {version} {what}, a new key per message"), false, move |k, m| {
                mac.rekey(&key16(k));
                mac.tag(m)
            })
        }
        _ => {
            let mut c = gcrypt_sm4::Sm4::new(lib, mode, 0, false).expect("libgcrypt has SM4 in this mode");
            let klen = if kind == "SM4-XTS" { 32 } else { 16 };
            rekeyed(format!("libgcrypt {version} {kind}, a new key per message"), false, move |k, m| {
                c.rekey(&k[..klen]);
                c.run(m)
            })
        }
    }
}
