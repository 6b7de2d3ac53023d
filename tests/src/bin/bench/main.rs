//! `cargo xtask bench`: throughput of asmgen's kernels beside the peers, in one run.
//!
//! Method: each (implementation, message size) is timed over batches of messages lasting at least 20 ms, the
//! implementations' batches taken in turn (one of each, then the next of each, so that a slow spell of the
//! machine falls on all of them); the median of 9 batches is reported as MB/s (10^6 bytes per second) and
//! cycles per byte. Cycles are core cycles: the core clock is calibrated first by timing a chain of dependent
//! 1-cycle `add` instructions (x86_64), so turbo and TSC frequency do not distort c/B. Every message is
//! processed from a keyed state (key setup excluded; libgcrypt's per-message reset/IV/tag is included, as an
//! application pays it); the hashes start each message as their API starts the next one under the same key
//! (`finalize_reset`, or a clone of the keyed state where the crate has no `Reset`).
//!
//! Peers: RustCrypto crates (linked), libgcrypt through its C API and OpenSSL's libcrypto through EVP (both
//! loaded at run time, so a machine without them reports the peer as missing, "n/a", with the command that
//! installs it). OpenSSL's GHASH row is AES-128-GCM with AAD only (see asmgen_tests::bench::openssl).
//!
//! Usage: `bench [FILTER] [--json FILE] [--svg DIR] [--libgcrypt DIR]`: beside the text tables, the figures as
//! JSON and one SVG chart (c/B against message size) per family (asmgen_tests::bench). `--libgcrypt DIR` (or
//! the environment variable `ASMGEN_LIBGCRYPT_DIR`) loads libgcrypt from DIR instead of the system's.

use asmgen_runtime::{Ghash, Polyval};
use asmgen_tests::bench::{self, openssl, Args, Family, Figures, Machine, Point, Series, MAX_SIZE};
use std::hint::black_box;
use std::time::{Duration, Instant};
use universal_hash::UniversalHash;

mod fresh;
#[cfg(target_arch = "x86_64")]
mod limits;

/// Processes one message, returning a byte of the result (so the work cannot be optimised away).
type RunFn = Box<dyn FnMut(&[u8]) -> u8>;

const SIZES: [usize; 6] = [16, 64, 256, 1024, 4096, 8192];
const SAMPLES: usize = 9;
const SAMPLE_TIME: Duration = Duration::from_millis(20);

/// One implementation under test: processes one message.
struct Contender {
    name: String,
    ours: bool,
    run: RunFn,
}

/// A missing peer and how to get it.
struct Missing {
    name: String,
    install: &'static str,
}

/// Warms `c` up on `msg` and returns how many messages make a batch of at least [`SAMPLE_TIME`].
fn batch_size(c: &mut Contender, msg: &[u8]) -> usize {
    let mut n = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..n {
            black_box((c.run)(black_box(msg)));
        }
        if t.elapsed() >= SAMPLE_TIME / 4 {
            return n * 4;
        }
        n *= 2;
    }
}

/// Nanoseconds per byte of one batch of `n` messages.
fn batch_ns_per_byte(c: &mut Contender, msg: &[u8], n: usize) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        black_box((c.run)(black_box(msg)));
    }
    t.elapsed().as_nanos() as f64 / (n * msg.len()) as f64
}

/// What one size's measurement gives: each contender's nanoseconds per byte, and the core clock in GHz
/// sampled between their batches (absent where it cannot be calibrated).
struct Row {
    ns: Vec<f64>,
    ghz: Option<f64>,
}

/// Each contender on `msg`: the median of [`SAMPLES`] batches, the contenders' batches taken in turn (one of
/// each, then the next of each), so that a slow spell of the machine falls on all of them rather than on
/// whichever was running; and the core clock, one [`clock_sample`] per turn, its median. Cycles per byte are
/// then this size's ns/B times this size's clock: a spell in which the machine runs slower (a lower clock,
/// time taken by other guests) shows in the clock as in the kernels' ns/B instead of reading as slower code.
fn measure(cs: &mut [Contender], msg: &[u8]) -> Row {
    let sizes: Vec<usize> = cs.iter_mut().map(|c| batch_size(c, msg)).collect();
    let mut samples = vec![Vec::with_capacity(SAMPLES); cs.len()];
    let mut clock = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        for ((c, &n), s) in cs.iter_mut().zip(&sizes).zip(&mut samples) {
            s.push(batch_ns_per_byte(c, msg, n));
        }
        clock.extend(clock_sample());
    }
    let ghz = (clock.len() == SAMPLES).then(|| median(clock));
    Row { ns: samples.into_iter().map(median).collect(), ghz }
}

/// The median of `s` (its middle figure once sorted; the upper one of an even count).
fn median(mut s: Vec<f64>) -> f64 {
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[s.len() / 2]
}

/// `iters` times eight dependent register-register adds (one cycle each on every x86_64 core; register
/// operands, because recent cores fold `add reg, imm` chains at rename).
#[cfg(target_arch = "x86_64")]
fn add_chain(iters: u64) {
    // SAFETY: register-only arithmetic.
    unsafe {
        std::arch::asm!(
            "2:",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "sub {n}, 1",
            "jnz 2b",
            x = inout(reg) 0u64 => _,
            one = in(reg) 1u64,
            n = inout(reg) iters => _,
            options(nostack, nomem),
        );
    }
}

/// The core clock in GHz over one chain of `iters` times eight adds.
#[cfg(target_arch = "x86_64")]
fn chain_ghz(iters: u64) -> f64 {
    let t = Instant::now();
    add_chain(iters);
    8.0 * iters as f64 / t.elapsed().as_nanos() as f64
}

/// The core clock in GHz over one add chain of some 5 ms.
#[cfg(target_arch = "x86_64")]
fn clock_sample() -> Option<f64> {
    Some(chain_ghz(2_000_000))
}

#[cfg(not(target_arch = "x86_64"))]
fn clock_sample() -> Option<f64> {
    None
}

/// The core clock in GHz at the start of the run (the header's figure): the fastest of seven add chains after
/// a warm-up chain.
#[cfg(target_arch = "x86_64")]
fn core_ghz() -> Option<f64> {
    let iters = 20_000_000u64;
    add_chain(iters);
    Some((0..7).map(|_| chain_ghz(iters)).fold(0.0, f64::max))
}

#[cfg(not(target_arch = "x86_64"))]
fn core_ghz() -> Option<f64> {
    None
}

mod gcrypt {
    //! libgcrypt through its C API, loaded with dlopen ([`asmgen_tests::bench::dl`]).
    use asmgen_tests::bench::dl;
    use std::ffi::{c_char, c_int, c_void};
    use std::path::Path;

    /// GCRY_CIPHER_AES (AES-128).
    pub const AES128: c_int = 7;
    /// GCRY_CIPHER_MODE_GCM.
    pub const MODE_GCM: c_int = 9;
    /// GCRY_CIPHER_MODE_GCM_SIV.
    pub const MODE_GCM_SIV: c_int = 16;
    /// GCRY_CIPHER_SM4.
    pub const SM4: c_int = 318;
    /// GCRY_CIPHER_MODE_ECB, _CFB, _CBC, _CTR, _XTS.
    pub const MODE_ECB: c_int = 1;
    pub const MODE_CFB: c_int = 2;
    pub const MODE_CBC: c_int = 3;
    pub const MODE_CTR: c_int = 6;
    pub const MODE_XTS: c_int = 13;
    /// GCRY_MAC_CMAC_SM4.
    pub const MAC_CMAC_SM4: c_int = 212;
    /// GCRY_CIPHER_CBC_MAC: CBC mode computes a CBC-MAC (the output is the last block).
    pub const FLAG_CBC_MAC: u32 = 8;

    type Handle = *mut c_void;

    /// The functions used.
    #[derive(Clone, Copy)]
    pub struct Lib {
        pub version: unsafe extern "C" fn(*const c_char) -> *const c_char,
        pub(crate) open: unsafe extern "C" fn(*mut Handle, c_int, c_int, u32) -> u32,
        pub(crate) setkey: unsafe extern "C" fn(Handle, *const u8, usize) -> u32,
        pub(crate) setiv: unsafe extern "C" fn(Handle, *const u8, usize) -> u32,
        pub(crate) authenticate: unsafe extern "C" fn(Handle, *const u8, usize) -> u32,
        pub(crate) gettag: unsafe extern "C" fn(Handle, *mut u8, usize) -> u32,
        pub(crate) ctl: unsafe extern "C" fn(Handle, c_int, *mut c_void, usize) -> u32,
        pub(crate) encrypt: unsafe extern "C" fn(Handle, *mut u8, usize, *const u8, usize) -> u32,
        pub(crate) decrypt: unsafe extern "C" fn(Handle, *mut u8, usize, *const u8, usize) -> u32,
        pub(crate) setctr: unsafe extern "C" fn(Handle, *const u8, usize) -> u32,
        pub(crate) mac_open: unsafe extern "C" fn(*mut Handle, c_int, u32, *mut c_void) -> u32,
        pub(crate) mac_setkey: unsafe extern "C" fn(Handle, *const u8, usize) -> u32,
        pub(crate) mac_write: unsafe extern "C" fn(Handle, *const u8, usize) -> u32,
        pub(crate) mac_read: unsafe extern "C" fn(Handle, *mut u8, *mut usize) -> u32,
        pub(crate) mac_ctl: unsafe extern "C" fn(Handle, c_int, *mut c_void, usize) -> u32,
    }

    /// The system's libgcrypt (`None` where it is missing), or the one in `dir`: there a missing library or
    /// symbol is an error, since the user asked for that build. `dir`'s libgpg-error, if it has one, is loaded
    /// first, so that its libgcrypt links to it and not to an older system copy.
    pub fn load(dir: Option<&Path>) -> Result<Option<Lib>, String> {
        let Some(dir) = dir else { return Ok(open(dl::open("libgcrypt.so.20"))) };
        let path = dir.join("libgcrypt.so.20");
        if !path.is_file() {
            return Err(format!("no libgcrypt.so.20 in {} (ASMGEN_LIBGCRYPT_DIR or --libgcrypt)", dir.display()));
        }
        let gpg_error = dir.join("libgpg-error.so.0");
        if gpg_error.is_file() {
            dl::open_path(&gpg_error)?;
        }
        let lib = open(Some(dl::open_path(&path)?))
            .ok_or_else(|| format!("{} lacks a libgcrypt function the benchmark calls", path.display()))?;
        println!("libgcrypt: {} from {}", version(&lib), dir.display());
        Ok(Some(lib))
    }

    fn open(h: Option<dl::Library>) -> Option<Lib> {
        let h = h?;
        // SAFETY: the symbols have the C signatures declared in gcrypt.h.
        unsafe {
            let lib = Lib {
                version: h.sym("gcry_check_version")?,
                open: h.sym("gcry_cipher_open")?,
                setkey: h.sym("gcry_cipher_setkey")?,
                setiv: h.sym("gcry_cipher_setiv")?,
                authenticate: h.sym("gcry_cipher_authenticate")?,
                gettag: h.sym("gcry_cipher_gettag")?,
                ctl: h.sym("gcry_cipher_ctl")?,
                encrypt: h.sym("gcry_cipher_encrypt")?,
                decrypt: h.sym("gcry_cipher_decrypt")?,
                setctr: h.sym("gcry_cipher_setctr")?,
                mac_open: h.sym("gcry_mac_open")?,
                mac_setkey: h.sym("gcry_mac_setkey")?,
                mac_write: h.sym("gcry_mac_write")?,
                mac_read: h.sym("gcry_mac_read")?,
                mac_ctl: h.sym("gcry_mac_ctl")?,
            };
            (lib.version)(std::ptr::null());
            Some(lib)
        }
    }

    /// The library's version string.
    pub fn version(lib: &Lib) -> String {
        // SAFETY: gcry_check_version(NULL) returns a static NUL-terminated string.
        unsafe { std::ffi::CStr::from_ptr((lib.version)(std::ptr::null())).to_string_lossy().into_owned() }
    }

    /// An AEAD cipher handle used for its authenticator only (AAD in, tag out).
    pub struct Mac {
        lib: Lib,
        h: Handle,
    }

    impl Mac {
        pub fn new(lib: Lib, mode: c_int, key: &[u8; 16]) -> Mac {
            let mut h: Handle = std::ptr::null_mut();
            // SAFETY: valid out-pointer and key buffer.
            unsafe {
                assert_eq!((lib.open)(&mut h, AES128, mode, 0), 0, "gcry_cipher_open");
                assert_eq!((lib.setkey)(h, key.as_ptr(), 16), 0, "gcry_cipher_setkey");
            }
            Mac { lib, h }
        }

        /// Keys the handle with `key` (AES-128).
        pub fn rekey(&mut self, key: &[u8; 16]) {
            // SAFETY: the handle is open; a 16-byte key.
            unsafe { assert_eq!((self.lib.setkey)(self.h, key.as_ptr(), 16), 0, "gcry_cipher_setkey") };
        }

        /// Resets, sets a 12-byte nonce, absorbs `aad`, returns the first tag byte.
        pub fn tag(&mut self, aad: &[u8]) -> u8 {
            let nonce = [0u8; 12];
            let mut tag = [0u8; 16];
            // SAFETY: the handle is open; buffers are valid for their lengths. GCRYCTL_RESET is 4.
            unsafe {
                (self.lib.ctl)(self.h, 4, std::ptr::null_mut(), 0);
                (self.lib.setiv)(self.h, nonce.as_ptr(), 12);
                (self.lib.authenticate)(self.h, aad.as_ptr(), aad.len());
                (self.lib.gettag)(self.h, tag.as_mut_ptr(), 16);
            }
            tag[0]
        }
    }
}

/// libgcrypt SM4 in one mode, processing each message in place as an application would (IV/counter set per
/// message; GCM: reset, IV, encrypt, tag; CMAC: reset, write, read).
mod gcrypt_sm4 {
    use super::gcrypt::{self, Lib};
    use std::ffi::c_void;

    pub struct Sm4 {
        lib: Lib,
        h: *mut c_void,
        mode: i32,
        decrypt: bool,
        mac: bool,
    }

    impl Sm4 {
        /// `mode` a GCRY_CIPHER_MODE_*, or `None` for CMAC; `flags` GCRY_CIPHER_* flags for `gcry_cipher_open`.
        pub fn new(lib: Lib, mode: Option<i32>, flags: u32, decrypt: bool) -> Option<Sm4> {
            let mut h: *mut c_void = std::ptr::null_mut();
            let key = [0x42u8; 32];
            // SAFETY: valid out-pointer and key buffer; sizes as gcrypt.h documents.
            unsafe {
                match mode {
                    Some(m) => {
                        if (lib.open)(&mut h, gcrypt::SM4, m, flags) != 0 {
                            return None;
                        }
                        let klen = if m == gcrypt::MODE_XTS { 32 } else { 16 };
                        if (lib.setkey)(h, key.as_ptr(), klen) != 0 {
                            return None;
                        }
                    }
                    None => {
                        if (lib.mac_open)(&mut h, gcrypt::MAC_CMAC_SM4, 0, std::ptr::null_mut()) != 0 {
                            return None;
                        }
                        if (lib.mac_setkey)(h, key.as_ptr(), 16) != 0 {
                            return None;
                        }
                    }
                }
            }
            Some(Sm4 { lib, h, mode: mode.unwrap_or(-1), decrypt, mac: mode.is_none() })
        }

        /// Keys the handle with `key` (32 bytes for XTS, 16 otherwise).
        pub fn rekey(&mut self, key: &[u8]) {
            // SAFETY: the handle is open; the key buffer is valid for its length.
            let rc = unsafe {
                if self.mac {
                    (self.lib.mac_setkey)(self.h, key.as_ptr(), key.len())
                } else {
                    (self.lib.setkey)(self.h, key.as_ptr(), key.len())
                }
            };
            assert_eq!(rc, 0, "libgcrypt setkey");
        }

        pub fn run(&mut self, buf: &mut [u8]) -> u8 {
            let iv = [7u8; 16];
            // SAFETY: the handle is open; buffers are valid for their lengths; in-place (NULL input).
            unsafe {
                if self.mac {
                    let mut tag = [0u8; 16];
                    let mut n = 16usize;
                    (self.lib.mac_ctl)(self.h, 4, std::ptr::null_mut(), 0);
                    (self.lib.mac_write)(self.h, buf.as_ptr(), buf.len());
                    (self.lib.mac_read)(self.h, tag.as_mut_ptr(), &mut n);
                    return tag[0];
                }
                match self.mode {
                    gcrypt::MODE_ECB => {}
                    gcrypt::MODE_CTR => {
                        (self.lib.setctr)(self.h, iv.as_ptr(), 16);
                    }
                    gcrypt::MODE_GCM => {
                        (self.lib.ctl)(self.h, 4, std::ptr::null_mut(), 0);
                        (self.lib.setiv)(self.h, iv.as_ptr(), 12);
                    }
                    _ => {
                        (self.lib.setiv)(self.h, iv.as_ptr(), 16);
                    }
                }
                if self.decrypt {
                    (self.lib.decrypt)(self.h, buf.as_mut_ptr(), buf.len(), std::ptr::null(), 0);
                } else {
                    (self.lib.encrypt)(self.h, buf.as_mut_ptr(), buf.len(), std::ptr::null(), 0);
                }
                if self.mode == gcrypt::MODE_GCM {
                    let mut tag = [0u8; 16];
                    (self.lib.gettag)(self.h, tag.as_mut_ptr(), 16);
                    return tag[0];
                }
            }
            buf[0]
        }
    }
}

/// The SM4 modes benchmarked, with their libgcrypt mode (`None`: CMAC) and direction.
const SM4_KINDS: [(&str, Option<i32>, bool); 13] = [
    ("SM4-ECB", Some(gcrypt::MODE_ECB), false),
    ("SM4-CTR", Some(gcrypt::MODE_CTR), false),
    ("SM4-CBC-ENC", Some(gcrypt::MODE_CBC), false),
    ("SM4-CBC-DEC", Some(gcrypt::MODE_CBC), true),
    ("SM4-CFB-ENC", Some(gcrypt::MODE_CFB), false),
    ("SM4-CFB-DEC", Some(gcrypt::MODE_CFB), true),
    ("SM4-XTS", Some(gcrypt::MODE_XTS), false),
    ("SM4-XTS-GB", None, false),
    ("SM4-GCM", Some(gcrypt::MODE_GCM), false),
    ("SM4-GCM-DEC", Some(gcrypt::MODE_GCM), true),
    ("SM4-CMAC", None, false),
    ("SM4-CBC-MAC", Some(gcrypt::MODE_CBC), false),
    ("SM4-XCBC", None, false),
];

/// A contender that encrypts (or MACs) each message in place in its own buffer (of [`MAX_SIZE`] bytes).
fn in_place(name: String, ours: bool, mut f: impl FnMut(&mut [u8]) -> u8 + 'static) -> Contender {
    let mut buf = vec![0x5au8; MAX_SIZE];
    Contender { name, ours, run: Box::new(move |m| f(&mut buf[..m.len()])) }
}

/// A GCM decryption contender: each message is decrypted in place and its tag checked (`dec` says whether it
/// matched). Decryption xors the keystream in, so the buffer alternates between two texts; the tags of both
/// are computed by encrypting when the size changes, and each run passes the one for the buffer's text.
fn gcm_dec(
    name: String,
    ours: bool,
    enc: impl Fn(&mut [u8]) -> [u8; 16] + 'static,
    dec: impl Fn(&mut [u8], &[u8; 16]) -> bool + 'static,
) -> Contender {
    let mut buf = vec![0x5au8; MAX_SIZE];
    let mut tags: Option<(usize, [[u8; 16]; 2])> = None;
    let mut which = 0;
    Contender {
        name,
        ours,
        run: Box::new(move |m| {
            let b = &mut buf[..m.len()];
            if tags.as_ref().is_none_or(|(n, _)| *n != m.len()) {
                b.fill(0x5a);
                // Encrypting X gives X ^ KS and the tag of X ^ KS taken as ciphertext; twice gives X back.
                let t1 = enc(b);
                let t0 = enc(b);
                tags = Some((m.len(), [t0, t1]));
                which = 0;
            }
            let t = tags.as_ref().expect("made above").1[which];
            assert!(dec(b, &t), "GCM decryption rejected a valid tag");
            which ^= 1;
            b.first().copied().unwrap_or(0)
        }),
    }
}

/// A contender with one instance per message size (fixed-size kernels: one specialisation per size), made
/// when the size changes (a timing batch uses one size, so the timed loop pays one comparison, as the
/// other contenders' keyed states do not even pay).
fn per_size<T: 'static>(
    name: String,
    make: impl Fn(usize) -> T + 'static,
    mut run: impl FnMut(&mut T, &mut [u8]) -> u8 + 'static,
) -> Contender {
    let mut buf = vec![0x5au8; MAX_SIZE];
    let mut made: Option<(usize, T)> = None;
    Contender {
        name,
        ours: true,
        run: Box::new(move |m| {
            if made.as_ref().is_none_or(|(n, _)| *n != m.len()) {
                made = Some((m.len(), make(m.len())));
            }
            let (_, t) = made.as_mut().expect("made above");
            run(t, &mut buf[..m.len()])
        }),
    }
}

/// Ours with the JIT's fixed-size kernels for an SM4 kind that has them (XTS sectors, CTR messages).
fn sm4_fixed(kind: &str) -> Option<Contender> {
    use asmgen_runtime::{Sm4, Sm4Xts};
    let key = [0x42u8; 16];
    let iv = [7u8; 16];
    let probe = match kind {
        "SM4-XTS" => Sm4Xts::with_sector_size(&key, &[0x24; 16], 4096).ok()?.backend().to_string(),
        "SM4-XTS-GB" => Sm4Xts::with_sector_size_gb(&key, &[0x24; 16], 4096).ok()?.backend().to_string(),
        "SM4-CTR" => Sm4::with_ctr_message_size(&key, 4096).ok()?.specialised()?.to_string(),
        _ => return None,
    };
    if !probe.starts_with("jit/") {
        return None;
    }
    let set = probe.rsplit_once('/').map_or(probe.as_str(), |(s, _)| s).to_string();
    let name = format!("asmgen {set}/<size>: fixed-size kernels, one per message size");
    Some(match kind {
        "SM4-CTR" => per_size(
            name,
            move |n| Sm4::with_ctr_message_size(&key, n).expect("a CTR message size"),
            move |s, m| {
                s.apply_ctr(&mut iv.clone(), m);
                m[0]
            },
        ),
        _ => {
            let gb = kind == "SM4-XTS-GB";
            per_size(
                name,
                move |n| {
                    if gb {
                        Sm4Xts::with_sector_size_gb(&key, &[0x24; 16], n)
                    } else {
                        Sm4Xts::with_sector_size(&key, &[0x24; 16], n)
                    }
                    .expect("a sector size")
                },
                move |x, m| {
                    x.encrypt(&iv, m).unwrap();
                    m[0]
                },
            )
        }
    })
}

/// Ours on the given backend for an SM4 kind.
fn sm4_ours(kind: &str, backend: Option<&str>) -> Contender {
    use asmgen_runtime::{Sm4, Sm4CbcMac, Sm4Cmac, Sm4Gcm, Sm4Xcbc, Sm4Xts};
    let key = [0x42u8; 16];
    let b = backend.map(str::to_string).unwrap_or_else(|| Sm4::new(&key).backend().to_string());
    let s = Sm4::with_backend(&key, &b).expect("listed backend");
    let name = format!("asmgen {b}");
    let iv = [7u8; 16];
    match kind {
        "SM4-ECB" => in_place(name, true, move |m| {
            s.encrypt_ecb(m).unwrap();
            m[0]
        }),
        "SM4-CTR" => in_place(name, true, move |m| {
            s.apply_ctr(&mut iv.clone(), m);
            m[0]
        }),
        "SM4-CBC-ENC" => in_place(name, true, move |m| {
            s.encrypt_cbc(&mut iv.clone(), m).unwrap();
            m[0]
        }),
        "SM4-CBC-DEC" => in_place(name, true, move |m| {
            s.decrypt_cbc(&mut iv.clone(), m).unwrap();
            m[0]
        }),
        "SM4-CFB-DEC" => in_place(name, true, move |m| {
            s.decrypt_cfb(&mut iv.clone(), m).unwrap();
            m[0]
        }),
        "SM4-CFB-ENC" => in_place(name, true, move |m| {
            s.encrypt_cfb(&mut iv.clone(), m).unwrap();
            m[0]
        }),
        "SM4-XTS" | "SM4-XTS-GB" => {
            let x = if kind == "SM4-XTS" {
                Sm4Xts::with_backend(&key, &[0x24; 16], &b)
            } else {
                Sm4Xts::with_backend_gb(&key, &[0x24; 16], &b)
            }
            .expect("listed backend");
            in_place(name, true, move |m| {
                x.encrypt(&iv, m).unwrap();
                m[0]
            })
        }
        "SM4-GCM" => {
            let g = Sm4Gcm::with_backend(&key, &b).expect("listed backend");
            in_place(name, true, move |m| g.encrypt(&iv[..12], &[], m).unwrap()[0])
        }
        "SM4-GCM-DEC" => {
            let g = Sm4Gcm::with_backend(&key, &b).expect("listed backend");
            let e = g.clone();
            gcm_dec(
                name,
                true,
                move |m| e.encrypt(&iv[..12], &[], m).unwrap(),
                move |m, t| g.decrypt(&iv[..12], &[], m, t).is_ok(),
            )
        }
        // A MAC starts the next message as its API does under the same key: `finalize_reset` (libgcrypt's
        // handle is reset, RustCrypto's `cmac` reset the same way).
        "SM4-CMAC" => mac_reset(name, Sm4Cmac::with_backend(&key, &b).expect("listed backend")),
        "SM4-CBC-MAC" => mac_reset(name, Sm4CbcMac::with_backend(&key, &b).expect("listed backend")),
        "SM4-XCBC" => mac_reset(name, Sm4Xcbc::with_backend(&key, &b).expect("listed backend")),
        _ => unreachable!("{kind}"),
    }
}

/// Ours as a `digest::Mac` that absorbs each message and `finalize_reset`s (the key schedule kept).
fn mac_reset<M: asmgen_runtime::digest::Mac + asmgen_runtime::digest::FixedOutputReset + 'static>(
    name: String,
    mut mac: M,
) -> Contender {
    use asmgen_runtime::digest::Mac;
    in_place(name, true, move |m| {
        Mac::update(&mut mac, m);
        Mac::finalize_reset(&mut mac).into_bytes()[0]
    })
}

/// RustCrypto (sm4 0.6 with the mode crates) for an SM4 kind.
fn sm4_rustcrypto(kind: &str) -> Contender {
    use cipher::{BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit, KeyInit, StreamCipher};
    let key = [0x42u8; 16];
    let k = sm4::Sm4::new(&key.into());
    let iv = [7u8; 16];
    let name = format!(
        "RustCrypto sm4 0.6 + {}",
        match kind {
            "SM4-CTR" => "ctr 0.10",
            "SM4-CBC-ENC" | "SM4-CBC-DEC" => "cbc 0.2",
            "SM4-CFB-DEC" | "SM4-CFB-ENC" => "cfb-mode 0.9",
            "SM4-XTS" => "xts-mode 0.6",
            "SM4-GCM" | "SM4-GCM-DEC" => "aes-gcm 0.11",
            "SM4-CMAC" => "cmac 0.8",
            _ => "blocks",
        }
    );
    fn blocks(m: &mut [u8]) -> &mut [cipher::Block<sm4::Sm4>] {
        let n = m.len() / 16;
        // SAFETY: `Block<Sm4>` is `[u8; 16]` in layout (hybrid-array is repr(transparent)); n whole blocks.
        unsafe { std::slice::from_raw_parts_mut(m.as_mut_ptr().cast(), n) }
    }
    match kind {
        "SM4-ECB" => in_place(name, false, move |m| {
            k.encrypt_blocks(blocks(m));
            m[0]
        }),
        "SM4-CTR" => in_place(name, false, move |m| {
            ctr::Ctr128BE::<sm4::Sm4>::from_core(ctr::CtrCore::inner_iv_init(k.clone(), &iv.into())).apply_keystream(m);
            m[0]
        }),
        "SM4-CBC-ENC" => in_place(name, false, move |m| {
            cbc::Encryptor::<sm4::Sm4>::inner_iv_init(k.clone(), &iv.into()).encrypt_blocks(blocks(m));
            m[0]
        }),
        "SM4-CBC-DEC" => in_place(name, false, move |m| {
            cbc::Decryptor::<sm4::Sm4>::inner_iv_init(k.clone(), &iv.into()).decrypt_blocks(blocks(m));
            m[0]
        }),
        "SM4-CFB-DEC" => in_place(name, false, move |m| {
            cfb_mode::Decryptor::<sm4::Sm4>::inner_iv_init(k.clone(), &iv.into()).decrypt(m);
            m[0]
        }),
        "SM4-CFB-ENC" => in_place(name, false, move |m| {
            cfb_mode::Encryptor::<sm4::Sm4>::inner_iv_init(k.clone(), &iv.into()).encrypt(m);
            m[0]
        }),
        "SM4-XTS" => {
            let x = xts_mode::Xts128::new(k, sm4::Sm4::new(&[0x24; 16].into()));
            in_place(name, false, move |m| {
                x.encrypt_sector(m, iv.into());
                m[0]
            })
        }
        "SM4-GCM" => {
            use aead::AeadInOut;
            let g = aes_gcm::AesGcm::<sm4::Sm4, cipher::consts::U12>::from(k);
            in_place(name, false, move |m| {
                g.encrypt_inout_detached(iv[..12].try_into().unwrap(), &[], m.into()).unwrap()[0]
            })
        }
        "SM4-GCM-DEC" => {
            use aead::AeadInOut;
            let g = aes_gcm::AesGcm::<sm4::Sm4, cipher::consts::U12>::from(k);
            let e = g.clone();
            let nonce = |iv: &[u8; 16]| -> aead::Nonce<aes_gcm::AesGcm<sm4::Sm4, cipher::consts::U12>> {
                iv[..12].try_into().unwrap()
            };
            gcm_dec(
                name,
                false,
                move |m| e.encrypt_inout_detached(&nonce(&iv), &[], m.into()).unwrap().into(),
                move |m, t| g.decrypt_inout_detached(&nonce(&iv), &[], m.into(), t.into()).is_ok(),
            )
        }
        "SM4-CMAC" => {
            use cmac::Mac;
            let mut c = <cmac::Cmac<sm4::Sm4> as cmac::KeyInit>::new(&key.into());
            in_place(name, false, move |m| {
                c.update(m);
                c.finalize_reset().into_bytes()[0]
            })
        }
        _ => unreachable!("{kind}"),
    }
}

/// The loaded peer libraries.
#[derive(Clone, Copy)]
struct Libs {
    gcrypt: Option<gcrypt::Lib>,
    openssl: Option<openssl::Lib>,
}

/// How to get libcrypto.so.3.
const OPENSSL_INSTALL: &str = "apt-get install libssl3";

/// OpenSSL's contender for an SM4 kind, or why it is missing.
fn sm4_openssl(kind: &str, decrypt: bool, lib: Option<openssl::Lib>) -> Result<Contender, Missing> {
    let missing = |install| Missing { name: format!("OpenSSL {kind}"), install };
    let lib = lib.ok_or(missing(OPENSSL_INSTALL))?;
    let (name, klen) = openssl::sm4_name(kind).ok_or(missing("no peer implements it"))?;
    let key: Vec<u8> = (0..klen).map(|i| if i < 16 { 0x42 } else { 0x24 }).collect();
    let peer = if kind == "SM4-CMAC" {
        openssl::Peer::cmac(lib, name, &key)
    } else {
        openssl::Peer::cipher(lib, name, &key, decrypt)
    };
    let mut peer = peer.ok_or(missing("not in this OpenSSL's default provider (3.0 lacks SM4-XTS and SM4-GCM)"))?;
    Ok(in_place(format!("{} {kind}", openssl::version(&lib)), false, move |m| peer.run(m)))
}

fn sm4_contenders(kind: &str, mode: Option<i32>, decrypt: bool, libs: Libs) -> (Vec<Contender>, Vec<Missing>) {
    let lib = libs.gcrypt;
    let mut v = vec![sm4_ours(kind, None)];
    let best = asmgen_runtime::Sm4::new(&[0; 16]).backend();
    // The listings' sets and the JIT's (the same code, assembled at startup) side by side.
    for b in asmgen_runtime::sm4_backends() {
        if b != best {
            v.push(sm4_ours(kind, Some(b)));
        }
    }
    v.extend(sm4_fixed(kind));
    let mut missing = Vec::new();
    if kind == "SM4-XCBC" {
        missing.push(Missing { name: "SM4-XCBC".into(), install: "no peer here implements it; ours only" });
    } else if kind != "SM4-XTS-GB" {
        if kind != "SM4-CBC-MAC" {
            v.push(sm4_rustcrypto(kind));
        }
        let gmode = if kind == "SM4-CMAC" { None } else { mode };
        let flags = if kind == "SM4-CBC-MAC" { gcrypt::FLAG_CBC_MAC } else { 0 };
        match lib.and_then(|lib| gcrypt_sm4::Sm4::new(lib, gmode, flags, decrypt).map(|h| (lib, h))) {
            Some((lib, mut h)) => {
                v.push(in_place(format!("libgcrypt {} {kind}", gcrypt::version(&lib)), false, move |m| h.run(m)))
            }
            None => missing.push(Missing {
                name: format!("libgcrypt {kind}"),
                install: "apt-get install libgcrypt20 (1.9+ for SM4 modes)",
            }),
        }
        match sm4_openssl(kind, decrypt, libs.openssl) {
            Ok(c) => v.push(c),
            Err(m) => missing.push(m),
        }
    } else {
        missing.push(Missing { name: "GB/T 17964 XTS".into(), install: "no peer implements it; ours only" });
    }
    (v, missing)
}

/// A contender that hashes each message from an already keyed state, as its API starts the next message under
/// the same key (`finalize_reset` for ours and RustCrypto's POLYVAL, a clone for RustCrypto's GHASH).
fn keyed<T: 'static>(name: String, ours: bool, mut state: T, hash: fn(&mut T, &[u8]) -> u8) -> Contender {
    Contender { name, ours, run: Box::new(move |m| hash(&mut state, m)) }
}

/// The other non-portable GHASH/POLYVAL backends (the JIT's beside the listings'), keyed with `h`.
fn others<T>(
    h: &[u8; 16],
    with: fn(&[u8; 16], &str) -> Result<T, asmgen_runtime::Error>,
    best: &str,
) -> Vec<(String, T)> {
    asmgen_runtime::backends()
        .into_iter()
        .filter(|b| *b != "portable" && *b != best)
        .filter_map(|b| with(h, b).ok().map(|t| (format!("asmgen {b}"), t)))
        .collect()
}

/// Ours with the JIT's fixed-size update kernels, one per message size (`None` without them).
fn fixed_hash<T: 'static>(
    h: [u8; 16],
    with: fn(&[u8; 16], usize) -> Result<T, asmgen_runtime::Error>,
    specialised: fn(&T) -> Option<&'static str>,
    hash: fn(&mut T, &[u8]) -> u8,
) -> Option<Contender> {
    let probe = with(&h, 256).ok()?;
    let name = specialised(&probe)?;
    let set = name.rsplit_once('/').map_or(name, |(s, _)| s);
    Some(per_size(
        format!("asmgen {set}/<size>: fixed-size kernels, one per message size"),
        move |n| with(&h, n / 16).expect("a block count"),
        move |t, m| hash(t, m),
    ))
}

fn contenders(kind: &str, libs: Libs) -> (Vec<Contender>, Vec<Missing>) {
    let lib = libs.gcrypt;
    let h = [0x42u8; 16];
    let ghash = kind == "GHASH";
    let mut v = if ghash {
        let ours = Ghash::new(&h);
        let portable = Ghash::with_backend(&h, "portable").expect("portable always exists");
        let f: fn(&mut Ghash, &[u8]) -> u8 = |g, m| {
            g.update_padded(m);
            g.finalize_reset()[0]
        };
        // ghash 0.6 has no `Reset`: its way to the next message under the same key is a clone.
        let rc: fn(&mut ghash::GHash, &[u8]) -> u8 = |g, m| {
            let mut g = g.clone();
            g.update_padded(m);
            g.finalize()[0]
        };
        let best = ours.backend();
        let mut v = vec![keyed(format!("asmgen {best}"), true, ours, f)];
        v.extend(others(&h, Ghash::with_backend, best).into_iter().map(|(n, g)| keyed(n, true, g, f)));
        v.push(keyed("asmgen portable".into(), true, portable, f));
        v.extend(fixed_hash(h, Ghash::with_fixed_blocks, Ghash::specialised, f));
        v.push(keyed("RustCrypto ghash 0.6".into(), false, ghash::GHash::new(&h.into()), rc));
        v
    } else {
        let ours = Polyval::new(&h);
        let portable = Polyval::with_backend(&h, "portable").expect("portable always exists");
        let f: fn(&mut Polyval, &[u8]) -> u8 = |g, m| {
            g.update_padded(m);
            g.finalize_reset()[0]
        };
        let rc: fn(&mut polyval::Polyval, &[u8]) -> u8 = |g, m| {
            g.update_padded(m);
            g.finalize_reset()[0]
        };
        let best = ours.backend();
        let mut v = vec![keyed(format!("asmgen {best}"), true, ours, f)];
        v.extend(others(&h, Polyval::with_backend, best).into_iter().map(|(n, g)| keyed(n, true, g, f)));
        v.push(keyed("asmgen portable".into(), true, portable, f));
        v.extend(fixed_hash(h, Polyval::with_fixed_blocks, Polyval::specialised, f));
        v.push(keyed("RustCrypto polyval 0.7".into(), false, polyval::Polyval::new(&h.into()), rc));
        v
    };
    let (mode, what) = if ghash {
        (gcrypt::MODE_GCM, "AES-GCM (AAD only)")
    } else {
        (gcrypt::MODE_GCM_SIV, "AES-GCM-SIV (AAD only; includes its per-nonce key derivation)")
    };
    let mut missing = Vec::new();
    match lib {
        Some(lib) => {
            let mut mac = gcrypt::Mac::new(lib, mode, &h);
            v.push(Contender {
                name: format!("libgcrypt {} {what}", gcrypt::version(&lib)),
                ours: false,
                run: Box::new(move |m| mac.tag(m)),
            });
        }
        None => missing.push(Missing { name: format!("libgcrypt {what}"), install: "apt-get install libgcrypt20" }),
    }
    let (cipher, what) = if ghash {
        ("AES-128-GCM", "AES-128-GCM (AAD only)")
    } else {
        ("AES-128-GCM-SIV", "AES-128-GCM-SIV (AAD only)")
    };
    match libs.openssl.and_then(|lib| openssl::Peer::aad_only(lib, cipher, &h).map(|p| (lib, p))) {
        Some((lib, mut p)) => v.push(in_place(format!("{} {what}", openssl::version(&lib)), false, move |m| p.run(m))),
        None => missing.push(Missing {
            name: format!("OpenSSL {what}"),
            install: if libs.openssl.is_some() { "OpenSSL 3.2+ (GCM-SIV)" } else { OPENSSL_INSTALL },
        }),
    }
    (v, missing)
}

/// The JIT's startup: what it assembles for this CPU, how long that takes (build: running the descriptions;
/// lower: encoding and layout; map: W^X memory), and the executable memory it holds; then the fixed-size
/// specialisations the tables below use.
fn jit_report() {
    use asmgen_runtime::jit::{Jit, Specialisation};
    println!();
    println!("## JIT");
    let first = match Jit::host() {
        Ok(j) => j,
        Err(e) => {
            println!("no JIT on this machine: {e}");
            return;
        }
    };
    let s = first.stats();
    println!("sets: {} (features {})", first.sets().join(", "), first.features().join(", "));
    for t in first.tuning() {
        println!("tuning: {t}");
    }
    println!(
        "made: {} kernels, {} instructions, {} bytes of code and constants, {} bytes of executable memory ({} pages)",
        first.kernels().len(),
        s.instructions,
        s.bytes,
        s.mapped,
        s.mapped / 4096
    );
    drop(first);
    let runs: Vec<_> = (0..21).map(|_| Jit::host().expect("assembled once already").stats()).collect();
    let median = |f: &dyn Fn(&asmgen_runtime::jit::JitStats) -> Duration| {
        let mut v: Vec<Duration> = runs.iter().map(f).collect();
        v.sort();
        v[v.len() / 2]
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "first assembly in this process: build {:.3} ms + lower {:.3} ms + map {:.3} ms = {:.3} ms (one-time \
         initialisation included: iced-x86's encoder tables, the S-box derivations, cold caches)",
        ms(s.build),
        ms(s.lower),
        ms(s.map),
        ms(s.total())
    );
    println!(
        "time to assemble all of them (median of {}): build {:.3} ms + lower {:.3} ms + map {:.3} ms = {:.3} ms \
         (target: 1 ms)",
        runs.len(),
        ms(median(&|s| s.build)),
        ms(median(&|s| s.lower)),
        ms(median(&|s| s.map)),
        ms(median(&|s| s.total())),
    );
    // One image's size and assembly time, after `what`.
    let image = |what: String, j: &Jit| {
        let s = j.stats();
        println!(
            "{what}: {} kernels, {} instructions, {} bytes ({} mapped), assembled in {:.3} ms",
            j.kernels().len(),
            s.instructions,
            s.bytes,
            s.mapped,
            ms(s.total())
        );
    };
    // What startup leaves to first use (x86_64: the XTS unit kernels, assembled when the first `Sm4Xts` on a
    // `jit/` backend is made).
    match Jit::deferred() {
        Ok(j) if !j.kernels().is_empty() => {
            let roles: Vec<&str> = j.kernels().iter().map(|k| k.role.as_str()).collect();
            image(format!("deferred to first use ({})", roles.join(", ")), j);
        }
        Ok(_) => println!("deferred to first use: nothing (the sets were assembled whole)"),
        Err(e) => println!("deferred to first use: not assembled ({e})"),
    }
    for spec in [Specialisation::XtsSector(512), Specialisation::XtsSector(4096), Specialisation::CtrMessage(4096)]
        .into_iter()
        .chain([Specialisation::HashBlocks(256)])
    {
        match Jit::specialised(spec) {
            Ok(j) => image(format!("specialised {}", j.sets().join(", ")), j),
            Err(e) => println!("specialised {spec:?}: {e}"),
        }
    }
}

/// The size kind `kind` is measured at for a requested `size`: as asked where the kind takes any length (the
/// hashes, CTR, CFB, GCM, the CMAC and XCBC MACs), else rounded down to whole blocks, at least one.
fn measured_size(kind: &str, size: usize) -> usize {
    const ANY_LENGTH: [&str; 7] = ["GHASH", "POLYVAL", "SM4-CTR", "SM4-CFB", "SM4-GCM", "SM4-CMAC", "SM4-XCBC"];
    if ANY_LENGTH.iter().any(|k| kind.starts_with(k)) {
        size
    } else {
        (size / 16 * 16).max(16)
    }
}

/// Measures one family at `sizes` ([`measured_size`]), prints its table, and returns its figures.
fn family(kind: &str, (mode, decrypt): (Option<i32>, bool), libs: Libs, msg: &[u8], sizes: &[usize]) -> Family {
    let (mut cs, missing) = if kind.ends_with(fresh::SUFFIX) {
        fresh::contenders(kind, mode, libs)
    } else if kind.starts_with("SM4") {
        sm4_contenders(kind, mode, decrypt, libs)
    } else {
        contenders(kind, libs)
    };
    println!();
    println!("## {kind}");
    for m in &missing {
        println!("peer missing (n/a): {} (install: {})", m.name, m.install);
    }
    let mut sizes: Vec<usize> = sizes.iter().map(|&size| measured_size(kind, size)).collect();
    sizes.dedup();
    let rows: Vec<Row> = sizes.iter().map(|&size| measure(&mut cs, &msg[..size])).collect();
    for (ci, c) in cs.iter().enumerate() {
        println!("[{}] {}{}", ci + 1, c.name, if c.ours { "" } else { " (peer)" });
    }
    let mut header = format!("{:>6}", "bytes");
    for ci in 0..cs.len() {
        header += &format!(" | {:>9} {:>6}", format!("[{}] MB/s", ci + 1), "c/B");
    }
    header += " | [1] vs best peer |  GHz";
    println!("{header}");
    for (row, &size) in rows.iter().zip(&sizes) {
        let mut line = format!("{size:>6}");
        for ns in &row.ns {
            let mbs = 1e3 / ns;
            let cpb = row.ghz.map(|g| format!("{:.3}", ns * g)).unwrap_or_else(|| "-".into());
            line += &format!(" | {mbs:>9.0} {cpb:>6}");
        }
        let best_peer = cs.iter().zip(&row.ns).filter(|(c, _)| !c.ours).map(|(_, ns)| *ns).fold(f64::MAX, f64::min);
        if best_peer < f64::MAX {
            line += &format!(" | {:>16}", format!("{:.2}x", best_peer / row.ns[0]));
        } else {
            line += &format!(" | {:>16}", "-");
        }
        line += &row.ghz.map(|g| format!(" | {g:.2}")).unwrap_or_else(|| " |    -".into());
        println!("{line}");
    }
    if kind.ends_with(fresh::SUFFIX) {
        println!("{}", fresh::key_cost(&rows.iter().map(|r| (r.ns[0], r.ns[1], r.ghz)).collect::<Vec<_>>(), &sizes));
    }
    let series = cs
        .iter()
        .enumerate()
        .map(|(ci, c)| Series {
            contender: c.name.clone(),
            ours: c.ours,
            points: sizes
                .iter()
                .zip(&rows)
                .map(|(&size, row)| Point { size, mbs: 1e3 / row.ns[ci], cpb: row.ghz.map(|g| row.ns[ci] * g) })
                .collect(),
        })
        .collect();
    let missing = missing.iter().map(|m| format!("{}: n/a (install: {})", m.name, m.install)).collect();
    Family { name: kind.to_string(), series, missing, ghz: rows.iter().map(|r| r.ghz).collect() }
}

/// Writes the JSON file and the SVG charts the arguments ask for.
fn write_outputs(args: &Args, figures: &Figures) -> Result<(), String> {
    if let Some(path) = &args.json {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(path, figures.to_json()).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    if let Some(dir) = &args.svg {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for f in &figures.families {
            let path = dir.join(format!("{}.svg", f.name.to_ascii_lowercase()));
            let svg = bench::svg::family_svg(f, &figures.machine)?;
            std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// The machine's description for the outputs.
fn machine(ghz: Option<f64>) -> Machine {
    let features = asmgen_runtime::jit::Jit::host()
        .map(|j| j.features().iter().map(|f| f.to_string()).collect())
        .unwrap_or_default();
    Machine { cpu: bench::cpu_model(), features, ghz, date: bench::utc_date(), load: bench::load_average() }
}

fn main() {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench: {e}\nusage: bench [FILTER] [--json FILE] [--svg DIR] [--libgcrypt DIR] [--sizes LIST]");
            std::process::exit(2);
        }
    };
    let filter = args.filter.clone();
    let ghz = core_ghz();
    let mut figures = Figures { machine: machine(ghz), ..Figures::default() };
    if let Some(l) = figures.machine.load {
        println!("machine: {} (load average {l:.2} at the start)", figures.machine.cpu);
    }
    match ghz {
        Some(g) => println!(
            "core clock: {g:.2} GHz at the start (a chain of dependent register adds); c/B = ns/B x the clock \
             sampled between each size's batches (GHz column)"
        ),
        None => println!("core clock: not calibrated on this architecture; c/B not reported"),
    }
    figures.method = format!(
        "median of {SAMPLES} batches of >= {} ms each, the contenders' batches in turn; MB = 10^6 bytes",
        SAMPLE_TIME.as_millis()
    );
    println!("method: {}", figures.method);
    if filter.as_deref().is_none_or(|f| "jit".starts_with(&f.to_ascii_lowercase())) {
        jit_report();
    }
    if filter.as_deref().is_none_or(|f| f.eq_ignore_ascii_case("limits")) {
        #[cfg(target_arch = "x86_64")]
        limits::print(ghz);
    }
    if filter.as_deref().is_some_and(|f| f.eq_ignore_ascii_case("limits")) {
        return;
    }
    let gcrypt_dir = args.libgcrypt.clone().or_else(|| std::env::var_os("ASMGEN_LIBGCRYPT_DIR").map(Into::into));
    let gcrypt = match gcrypt::load(gcrypt_dir.as_deref()) {
        Ok(lib) => lib,
        Err(e) => {
            eprintln!("bench: {e}");
            std::process::exit(1);
        }
    };
    let libs = Libs { gcrypt, openssl: openssl::load() };
    let sizes = args.sizes.clone().unwrap_or_else(|| SIZES.to_vec());
    let mut msg = vec![0u8; MAX_SIZE];
    for (i, b) in msg.iter_mut().enumerate() {
        *b = (i * 131 + 7) as u8;
    }
    let kinds: Vec<(&str, Option<i32>, bool)> = [("GHASH", None, false), ("POLYVAL", None, false)]
        .into_iter()
        .chain(SM4_KINDS)
        .chain(fresh::KINDS.map(|(kind, mode)| (kind, mode, false)))
        .collect();
    for (kind, mode, decrypt) in kinds {
        // A filter names one kind ("sm4-ctr") or a prefix of several ("sm4", "sm4-gcm"), "SM4-" optional ("gcm").
        let lower = kind.to_ascii_lowercase();
        let short = lower.strip_prefix("sm4-").unwrap_or(&lower);
        if filter
            .as_deref()
            .map(str::to_ascii_lowercase)
            .is_some_and(|f| !lower.starts_with(&f) && !short.starts_with(&f))
        {
            continue;
        }
        figures.families.push(family(kind, (mode, decrypt), libs, &msg, &sizes));
    }
    if let Err(e) = write_outputs(&args, &figures) {
        eprintln!("bench: {e}");
        std::process::exit(1);
    }
}
