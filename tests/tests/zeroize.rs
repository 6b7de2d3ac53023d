//! No key material survives the drop of an API object: every type and constructor of the safe API, boxed so
//! that it lives on the heap, is dropped while this binary's global allocator copies each block it frees, and
//! those copies must hold no 8-byte window of the raw key, the SM4 round keys (both directions), the GHASH /
//! POLYVAL key table or the MACs' derived subkeys. The expected material is computed here from the standards
//! (SM4's key schedule, POLYVAL's field), not read from the objects.
//!
//! Bytes of an object that no field owns (padding, the payload of an `Option` that is `None`) are copied along
//! with it, whatever they held on the stack, so a zeroising `Drop` of the fields alone is not enough: the
//! test checks the whole freed block.
//!
//! `ASMGEN_BACKEND` is read once per process, so the test also re-runs itself with `portable`, `aot` and
//! `jit` (where no fixed-size kernel exists, the fixed-size constructors' `Option`s are `None`).
//!
//! The recording allocator is this test binary's global allocator; keep other tests out of this file.

use asmgen_runtime::{Ghash, Polyval, Sm4, Sm4CbcMac, Sm4Ccm, Sm4Cmac, Sm4Ctr, Sm4Gcm, Sm4Xcbc, Sm4Xts};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::HashSet;
use std::sync::Mutex;

/// The window looked for: 8 bytes (the padding of the round-key struct is 8 bytes wide), 2^-64 per position
/// of matching by chance.
const W: usize = 8;

/// Bytes of freed blocks one drop may record.
const LOG_BYTES: usize = 1 << 20;
/// Freed blocks one drop may record.
const LOG_BLOCKS: usize = 1024;

struct Log {
    bytes: [u8; LOG_BYTES],
    len: usize,
    /// (start, length) in `bytes` of each recorded block.
    blocks: [(usize, usize); LOG_BLOCKS],
    n: usize,
    overflow: bool,
}

static LOG: Mutex<Log> =
    Mutex::new(Log { bytes: [0; LOG_BYTES], len: 0, blocks: [(0, 0); LOG_BLOCKS], n: 0, overflow: false });

thread_local! {
    /// Whether this thread's frees are recorded (only the drop under test is).
    static RECORDING: Cell<bool> = const { Cell::new(false) };
}

/// The system allocator, copying the contents of every block the recording thread frees before freeing it.
struct Recorder;

// SAFETY: every allocation is the system allocator's; `dealloc` only reads the block it is handed before
// passing it on, and allocates nothing (the log is static, the lock a futex).
unsafe impl GlobalAlloc for Recorder {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if RECORDING.try_with(Cell::get).unwrap_or(false) {
            if let Ok(mut log) = LOG.lock() {
                let (len, n, size) = (log.len, log.n, layout.size());
                if len + size <= LOG_BYTES && n < LOG_BLOCKS {
                    // SAFETY: the block is `size` bytes and still ours; the log has room. Uninitialised bytes
                    // of the block (what this test is about) are copied as they are.
                    unsafe { std::ptr::copy_nonoverlapping(ptr, log.bytes.as_mut_ptr().add(len), size) };
                    log.blocks[n] = (len, size);
                    log.len += size;
                    log.n += 1;
                } else {
                    log.overflow = true;
                }
            }
        }
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Recorder = Recorder;

/// SM4's key schedule (GB/T 32907): the encryption round keys, then the decryption ones, each as the kernels
/// store them (32 little-endian words).
fn round_keys(key: &[u8; 16]) -> Vec<u8> {
    asmgen_tests::sm4_round_keys(key).concat()
}

/// One SM4 block encryption (RustCrypto's `sm4`).
fn encrypt(key: &[u8; 16], block: [u8; 16]) -> [u8; 16] {
    use cipher::{BlockCipherEncrypt, KeyInit};
    let mut b = block.into();
    sm4::Sm4::new(&(*key).into()).encrypt_block(&mut b);
    b.into()
}

/// `a * b * x^-128` in POLYVAL's field (RFC 8452), bit by bit.
fn dot(a: u128, b: u128) -> u128 {
    let (mut hi, mut lo) = (0u128, 0u128);
    for i in 0..128 {
        if b >> i & 1 == 1 {
            lo ^= a << i;
            hi ^= if i == 0 { 0 } else { a >> (128 - i) };
        }
    }
    // Divide by x 128 times, adding x^128 + x^127 + x^126 + x^121 + 1 whenever the lowest bit is set.
    for _ in 0..128 {
        if lo & 1 == 1 {
            lo ^= (3 << 126) | (1 << 121) | 1;
            hi ^= 1;
        }
        lo = (lo >> 1) | (hi << 127);
        hi >>= 1;
    }
    lo
}

/// The 256-byte key table every backend fills: H^1..H^8 in POLYVAL's representation, then each power's
/// Karatsuba half-sum (low ^ high) in both halves. GHASH's H is converted first (RFC 8452, appendix A).
fn hash_table(h: &[u8; 16], ghash: bool) -> Vec<u8> {
    let h1 = if ghash {
        let v = u128::from_be_bytes(*h);
        (v << 1) ^ if v >> 127 == 1 { (0xc2 << 120) | 1 } else { 0 }
    } else {
        u128::from_le_bytes(*h)
    };
    let (mut powers, mut sums) = (Vec::new(), Vec::new());
    let mut p = h1;
    for _ in 0..8 {
        powers.extend(p.to_le_bytes());
        let k = (p as u64 ^ (p >> 64) as u64) as u128;
        sums.extend(((k << 64) | k).to_le_bytes());
        p = dot(p, h1);
    }
    powers.extend(sums);
    powers
}

/// CMAC's doubling (NIST SP 800-38B).
fn dbl(b: [u8; 16]) -> [u8; 16] {
    let v = u128::from_be_bytes(b);
    ((v << 1) ^ if v >> 127 == 1 { 0x87 } else { 0 }).to_be_bytes()
}

/// The material that must not survive: every 8-byte window of each piece (runs of one byte value left out).
struct Secrets(HashSet<[u8; W]>);

impl Secrets {
    fn of(pieces: &[&[u8]]) -> Secrets {
        let windows = pieces.iter().flat_map(|p| p.windows(W));
        Secrets(windows.filter(|w| w.iter().any(|&b| b != w[0])).map(|w| w.try_into().unwrap()).collect())
    }

    /// The raw key and both round-key schedules of an SM4 key.
    fn sm4(keys: &[[u8; 16]]) -> Vec<Vec<u8>> {
        keys.iter().flat_map(|k| [k.to_vec(), round_keys(k)]).collect()
    }
}

/// Builds `make()` on the heap, drops it while recording, and notes every freed block that holds a window of
/// `secrets`.
fn check<T>(failures: &mut Vec<String>, what: &str, secrets: &Secrets, make: impl FnOnce() -> T) {
    let boxed = Box::new(make());
    {
        let mut log = LOG.lock().unwrap();
        (log.len, log.n, log.overflow) = (0, 0, false);
    }
    RECORDING.with(|r| r.set(true));
    drop(boxed);
    RECORDING.with(|r| r.set(false));
    let log = LOG.lock().unwrap();
    assert!(!log.overflow, "{what}: the drop freed more than the log holds");
    let size = std::mem::size_of::<T>();
    let blocks: Vec<&[u8]> = log.blocks[..log.n].iter().map(|&(s, n)| &log.bytes[s..s + n]).collect();
    assert!(blocks.iter().any(|b| b.len() == size), "{what}: the object's {size}-byte block was not freed");
    for b in blocks {
        if let Some(at) = b.windows(W).position(|w| secrets.0.contains(w)) {
            failures.push(format!("{what}: key material at offset {at} of a freed {}-byte block", b.len()));
        }
    }
}

/// Every type and constructor of the safe API, on this process's `ASMGEN_BACKEND`.
#[test]
fn no_key_material_survives_drop() {
    let (k1, k2) =
        ([0x3c, 0x51, 0x9e, 0x07, 0xd2, 0x6a, 0xb8, 0x14, 0xe1, 0x4f, 0x93, 0x2d, 0x75, 0xc6, 0x08, 0xaf], {
            let mut k = [0u8; 16];
            for (i, b) in k.iter_mut().enumerate() {
                *b = (i as u8).wrapping_mul(0x9d) ^ 0x5b;
            }
            k
        });
    let mut f = Vec::new();
    let f = &mut f;

    // Sm4 and Sm4Ccm, Sm4CbcMac: the key's round keys.
    let s = Secrets::of(&Secrets::sm4(&[k1]).iter().map(Vec::as_slice).collect::<Vec<_>>());
    check(f, "Sm4::new", &s, || Sm4::new(&k1));
    check(f, "Sm4 KeyInit", &s, || <Sm4 as cipher::KeyInit>::new(&k1.into()));
    check(f, "Sm4 KeyInit::new_from_slice", &s, || <Sm4 as cipher::KeyInit>::new_from_slice(&k1).unwrap());
    for size in [16, 1000, 1024, 4096] {
        check(f, &format!("Sm4::with_ctr_message_size({size})"), &s, || Sm4::with_ctr_message_size(&k1, size).unwrap());
    }
    check(f, "Sm4Ccm::new", &s, || Sm4Ccm::new(&k1));
    check(f, "Sm4CbcMac::new", &s, || Sm4CbcMac::new(&k1));
    check(f, "Sm4CcmAead KeyInit", &s, || <asmgen_runtime::Sm4CcmAead as cipher::KeyInit>::new(&k1.into()));
    // Sm4Ctr part way through a block (the rest of its keystream buffered).
    let ctr = |c: Result<Sm4Ctr, _>| {
        let mut c = c.unwrap();
        cipher::StreamCipher::apply_keystream(&mut c, &mut [0u8; 7]);
        c
    };
    check(f, "Sm4Ctr KeyIvInit", &s, || ctr(Ok(<Sm4Ctr as cipher::KeyIvInit>::new(&k1.into(), &[0; 16].into()))));
    for b in asmgen_runtime::sm4_backends() {
        check(f, &format!("Sm4Ctr::with_backend({b})"), &s, || ctr(Sm4Ctr::with_backend(&k1, &[0; 16], b)));
        check(f, &format!("Sm4::with_backend({b})"), &s, || Sm4::with_backend(&k1, b).unwrap());
        check(f, &format!("Sm4Ccm::with_backend({b})"), &s, || Sm4Ccm::with_backend(&k1, b).unwrap());
        check(f, &format!("Sm4CbcMac::with_backend({b})"), &s, || Sm4CbcMac::with_backend(&k1, b).unwrap());
    }

    // Sm4Xts: both keys.
    let s = Secrets::of(&Secrets::sm4(&[k1, k2]).iter().map(Vec::as_slice).collect::<Vec<_>>());
    check(f, "Sm4Xts::new", &s, || Sm4Xts::new(&k1, &k2));
    check(f, "Sm4Xts::new_gb", &s, || Sm4Xts::new_gb(&k1, &k2));
    for size in [16, 512, 4096] {
        check(f, &format!("Sm4Xts::with_sector_size({size})"), &s, || {
            Sm4Xts::with_sector_size(&k1, &k2, size).unwrap()
        });
        check(f, &format!("Sm4Xts::with_sector_size_gb({size})"), &s, || {
            Sm4Xts::with_sector_size_gb(&k1, &k2, size).unwrap()
        });
    }
    for b in asmgen_runtime::sm4_backends() {
        check(f, &format!("Sm4Xts::with_backend({b})"), &s, || Sm4Xts::with_backend(&k1, &k2, b).unwrap());
        check(f, &format!("Sm4Xts::with_backend_gb({b})"), &s, || Sm4Xts::with_backend_gb(&k1, &k2, b).unwrap());
    }

    // Sm4Cmac: round keys and the subkeys L, K1, K2.
    let l = encrypt(&k1, [0; 16]);
    let mut pieces = Secrets::sm4(&[k1]);
    pieces.extend([l, dbl(l), dbl(dbl(l))].map(|b| b.to_vec()));
    let s = Secrets::of(&pieces.iter().map(Vec::as_slice).collect::<Vec<_>>());
    check(f, "Sm4Cmac::new", &s, || Sm4Cmac::new(&k1));
    for b in asmgen_runtime::sm4_backends() {
        check(f, &format!("Sm4Cmac::with_backend({b})"), &s, || Sm4Cmac::with_backend(&k1, b).unwrap());
    }

    // Sm4Xcbc: the key, K1 (its round keys are the MAC's), K2, K3.
    let [x1, x2, x3] = [1u8, 2, 3].map(|i| encrypt(&k1, [i; 16]));
    let mut pieces = Secrets::sm4(&[k1, x1]);
    pieces.extend([x2.to_vec(), x3.to_vec()]);
    let s = Secrets::of(&pieces.iter().map(Vec::as_slice).collect::<Vec<_>>());
    check(f, "Sm4Xcbc::new", &s, || Sm4Xcbc::new(&k1));
    for b in asmgen_runtime::sm4_backends() {
        check(f, &format!("Sm4Xcbc::with_backend({b})"), &s, || Sm4Xcbc::with_backend(&k1, b).unwrap());
    }

    // Sm4Gcm: round keys, H and its GHASH key table.
    let h = encrypt(&k1, [0; 16]);
    let mut pieces = Secrets::sm4(&[k1]);
    pieces.extend([h.to_vec(), hash_table(&h, true)]);
    let s = Secrets::of(&pieces.iter().map(Vec::as_slice).collect::<Vec<_>>());
    check(f, "Sm4Gcm::new", &s, || Sm4Gcm::new(&k1));
    check(f, "Sm4Gcm KeyInit", &s, || <Sm4Gcm as cipher::KeyInit>::new(&k1.into()));
    for b in asmgen_runtime::sm4_backends() {
        check(f, &format!("Sm4Gcm::with_backend({b})"), &s, || Sm4Gcm::with_backend(&k1, b).unwrap());
    }
    // The GHASH key's table is filled as messages need it: one block, the common part, the whole table.
    for len in [16, 100, 1024, 8192] {
        check(f, &format!("Sm4Gcm::new, then a {len}-byte message"), &s, || {
            let g = Sm4Gcm::new(&k1);
            g.encrypt(&[7; 12], &[], &mut vec![0x5a; len]).unwrap();
            g
        });
    }

    // Ghash and Polyval: H and the key table.
    let h = k2;
    let s = Secrets::of(&[&h[..], &hash_table(&h, true)]);
    check(f, "Ghash::new", &s, || Ghash::new(&h));
    check(f, "Ghash KeyInit", &s, || <Ghash as universal_hash::KeyInit>::new(&h.into()));
    for n in [1, 4, 8, 64] {
        check(f, &format!("Ghash::with_fixed_blocks({n})"), &s, || Ghash::with_fixed_blocks(&h, n).unwrap());
    }
    for b in asmgen_runtime::backends() {
        check(f, &format!("Ghash::with_backend({b})"), &s, || Ghash::with_backend(&h, b).unwrap());
        // The key table filled in parts (one block, the common part, the whole table) is wiped whole.
        for blocks in [1, 2, 15, 64, 100] {
            check(f, &format!("Ghash::with_backend({b}), then {blocks} blocks"), &s, || {
                let mut g = Ghash::with_backend(&h, b).unwrap();
                g.update_padded(&vec![0x5a; 16 * blocks]);
                g
            });
        }
    }
    let s = Secrets::of(&[&h[..], &hash_table(&h, false)]);
    check(f, "Polyval::new", &s, || Polyval::new(&h));
    check(f, "Polyval KeyInit", &s, || <Polyval as universal_hash::KeyInit>::new(&h.into()));
    for n in [1, 4, 8, 64] {
        check(f, &format!("Polyval::with_fixed_blocks({n})"), &s, || Polyval::with_fixed_blocks(&h, n).unwrap());
    }
    for b in asmgen_runtime::backends() {
        check(f, &format!("Polyval::with_backend({b})"), &s, || Polyval::with_backend(&h, b).unwrap());
        // A clone shares the levels (filled by both); both dropped together.
        check(f, &format!("Polyval::with_backend({b}), cloned, then 2 and 100 blocks"), &s, || {
            let mut p = Polyval::with_backend(&h, b).unwrap();
            p.update_padded(&[0x5a; 32]);
            let mut q = p.clone();
            q.update_padded(&[0x5a; 1600]);
            p.update_padded(&[0x5a; 1600]);
            (p, q)
        });
        for blocks in [1, 2, 15, 64, 100] {
            check(f, &format!("Polyval::with_backend({b}), then {blocks} blocks"), &s, || {
                let mut p = Polyval::with_backend(&h, b).unwrap();
                p.update_padded(&vec![0x5a; 16 * blocks]);
                p
            });
        }
    }

    let backend = std::env::var("ASMGEN_BACKEND").unwrap_or_default();
    assert!(f.is_empty(), "ASMGEN_BACKEND={backend:?}: key material survives drop:\n{}", f.join("\n"));
}

/// The reference computations above agree with the runtime (else the test would look for the wrong bytes).
#[test]
fn reference_material_matches_the_runtime() {
    let key = [0x42u8; 16];
    // GB/T 32907's example: the first round key of 0123456789abcdeffedcba9876543210 is 0xf12186f9.
    let example = asmgen_tests::hex16("0123456789abcdeffedcba9876543210");
    assert_eq!(round_keys(&example)[..4], 0xf12186f9u32.to_le_bytes());
    assert_eq!(round_keys(&example)[252..], 0xf12186f9u32.to_le_bytes());
    let mut b = [7u8; 16];
    Sm4::new(&key).encrypt_ecb(&mut b).unwrap();
    assert_eq!(b, encrypt(&key, [7; 16]));
    // POLYVAL of one block X is X * H * x^-128: check `dot` and the table's first entry through it.
    let (h, x) = ([0x17u8; 16], [0x29u8; 16]);
    let mut p = Polyval::new(&h);
    p.update_padded(&x);
    assert_eq!(p.finalize(), dot(u128::from_le_bytes(x), u128::from_le_bytes(h)).to_le_bytes());
    assert_eq!(hash_table(&h, false)[..16], h);
}

/// Re-runs [`no_key_material_survives_drop`] in a process with `ASMGEN_BACKEND=backend`. Under emulation
/// (`cargo xtask cross`) the binary is started through the runner the xtask names in `ASMGEN_TEST_RUNNER`
/// (`qemu-aarch64 -cpu ... -L ...`), as cargo started this one.
fn rerun_with(backend: &str) {
    let out = asmgen_tests::rerun_this_binary()
        .args(["no_key_material_survives_drop", "--exact", "--nocapture", "--test-threads=1"])
        .env("ASMGEN_BACKEND", backend)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "ASMGEN_BACKEND={backend}:\n{text}");
}

#[test]
fn no_key_material_survives_drop_on_the_portable_backend() {
    rerun_with("portable");
}

#[test]
fn no_key_material_survives_drop_on_the_listings() {
    rerun_with("aot");
}

#[test]
fn no_key_material_survives_drop_on_the_jit() {
    rerun_with("jit");
}
