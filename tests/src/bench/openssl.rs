//! OpenSSL's libcrypto (3.x) as a benchmark peer, through its EVP API, loaded with dlopen (no headers, no link
//! dependency: a machine without libcrypto.so.3 reports the peer as "n/a").
//!
//! What is measured, per message, as an application pays it: the IV (or tweak) set again, then one
//! `EVP_CipherUpdate` in place (no padding). GHASH has no EVP interface of its own, so its row measures
//! AES-128-GCM with additional data only: IV set, `EVP_EncryptUpdate(NULL out, aad)`, final, tag read - the
//! GHASH of the AAD plus one AES block for the tag. CMAC is `EVP_MAC` "CMAC" over SM4-CBC, re-initialised per
//! message with the same key. An algorithm the default provider lacks (OpenSSL 3.0 has SM4 ECB, CBC, CFB, OFB
//! and CTR, not XTS or GCM; no AES-GCM-SIV before 3.2) is looked up with `EVP_CIPHER_fetch` and reported as
//! missing. Contexts are never freed: a benchmark run makes a few dozen.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};

/// EVP_CTRL_AEAD_GET_TAG.
const GET_TAG: c_int = 0x10;
/// OSSL_PARAM_UTF8_STRING.
const UTF8_STRING: c_uint = 4;

type Ptr = *mut c_void;

/// OSSL_PARAM, as openssl/core.h lays it out.
#[repr(C)]
struct Param {
    key: *const c_char,
    data_type: c_uint,
    data: *mut c_void,
    data_size: usize,
    return_size: usize,
}

/// The libcrypto functions used.
#[derive(Clone, Copy)]
pub struct Lib {
    version: unsafe extern "C" fn(c_int) -> *const c_char,
    cipher_fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr,
    ctx_new: unsafe extern "C" fn() -> Ptr,
    init: unsafe extern "C" fn(Ptr, Ptr, Ptr, *const u8, *const u8, c_int) -> c_int,
    update: unsafe extern "C" fn(Ptr, *mut u8, *mut c_int, *const u8, c_int) -> c_int,
    finalize: unsafe extern "C" fn(Ptr, *mut u8, *mut c_int) -> c_int,
    set_padding: unsafe extern "C" fn(Ptr, c_int) -> c_int,
    ctrl: unsafe extern "C" fn(Ptr, c_int, c_int, Ptr) -> c_int,
    mac_fetch: unsafe extern "C" fn(Ptr, *const c_char, *const c_char) -> Ptr,
    mac_ctx_new: unsafe extern "C" fn(Ptr) -> Ptr,
    mac_init: unsafe extern "C" fn(Ptr, *const u8, usize, *const Param) -> c_int,
    mac_update: unsafe extern "C" fn(Ptr, *const u8, usize) -> c_int,
    mac_final: unsafe extern "C" fn(Ptr, *mut u8, *mut usize, usize) -> c_int,
}

/// libcrypto.so.3, or `None` where it is not installed.
pub fn load() -> Option<Lib> {
    let h = super::dl::open("libcrypto.so.3")?;
    // SAFETY: the types are the C signatures of openssl/evp.h and openssl/crypto.h.
    unsafe {
        Some(Lib {
            version: h.sym("OpenSSL_version")?,
            cipher_fetch: h.sym("EVP_CIPHER_fetch")?,
            ctx_new: h.sym("EVP_CIPHER_CTX_new")?,
            init: h.sym("EVP_CipherInit_ex")?,
            update: h.sym("EVP_CipherUpdate")?,
            finalize: h.sym("EVP_CipherFinal_ex")?,
            set_padding: h.sym("EVP_CIPHER_CTX_set_padding")?,
            ctrl: h.sym("EVP_CIPHER_CTX_ctrl")?,
            mac_fetch: h.sym("EVP_MAC_fetch")?,
            mac_ctx_new: h.sym("EVP_MAC_CTX_new")?,
            mac_init: h.sym("EVP_MAC_init")?,
            mac_update: h.sym("EVP_MAC_update")?,
            mac_final: h.sym("EVP_MAC_final")?,
        })
    }
}

/// The library's version ("OpenSSL 3.0.19 27 Jan 2026" shortened to "OpenSSL 3.0.19").
pub fn version(lib: &Lib) -> String {
    // SAFETY: OpenSSL_version(OPENSSL_VERSION) returns a static NUL-terminated string.
    let full = unsafe { CStr::from_ptr((lib.version)(0)).to_string_lossy().into_owned() };
    full.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
}

/// What one message costs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Work {
    /// IV set (unless ECB), one in-place update.
    Cipher { iv: bool },
    /// GCM: IV set, in-place update (or AAD only), final, tag.
    Gcm { aad_only: bool },
    /// EVP_MAC: re-init, update, final.
    Mac,
}

/// One OpenSSL algorithm, keyed, processing each message as `Work` says.
pub struct Peer {
    lib: Lib,
    ctx: Ptr,
    work: Work,
}

impl Peer {
    /// The cipher `name` ("SM4-CTR", "SM4-XTS", "SM4-GCM", "AES-128-GCM"), keyed with `key`, encrypting (or
    /// decrypting); `None` where the provider lacks it.
    pub fn cipher(lib: Lib, name: &str, key: &[u8], decrypt: bool) -> Option<Peer> {
        let cname = CString::new(name).ok()?;
        let iv = [7u8; 16];
        // SAFETY: the context and cipher are checked non-null; key and IV buffers are as long as the cipher
        // wants (the callers pass its key length; IVs are at most 16 bytes).
        unsafe {
            let c = (lib.cipher_fetch)(std::ptr::null_mut(), cname.as_ptr(), std::ptr::null());
            let ctx = (lib.ctx_new)();
            if c.is_null() || ctx.is_null() {
                return None;
            }
            let null = std::ptr::null_mut();
            if (lib.init)(ctx, c, null, key.as_ptr(), iv.as_ptr(), c_int::from(!decrypt)) != 1 {
                return None;
            }
            (lib.set_padding)(ctx, 0);
            let work = if name.ends_with("-GCM") {
                Work::Gcm { aad_only: false }
            } else {
                Work::Cipher { iv: !name.ends_with("-ECB") }
            };
            Some(Peer { lib, ctx, work })
        }
    }

    /// An AEAD with additional data only: "AES-128-GCM" is the GHASH peer, "AES-128-GCM-SIV" (OpenSSL 3.2+)
    /// the POLYVAL one.
    pub fn aad_only(lib: Lib, name: &str, key: &[u8; 16]) -> Option<Peer> {
        let mut p = Peer::cipher(lib, name, key, false)?;
        p.work = Work::Gcm { aad_only: true };
        Some(p)
    }

    /// CMAC over the CBC cipher `cipher` ("SM4-CBC"), keyed with `key`.
    pub fn cmac(lib: Lib, cipher: &str, key: &[u8]) -> Option<Peer> {
        let cmac = CString::new("CMAC").ok()?;
        let pname = CString::new("cipher").ok()?;
        let cname = CString::new(cipher).ok()?;
        let params = [
            Param {
                key: pname.as_ptr(),
                data_type: UTF8_STRING,
                data: cname.as_ptr() as *mut c_void,
                data_size: cipher.len(),
                return_size: usize::MAX,
            },
            Param { key: std::ptr::null(), data_type: 0, data: std::ptr::null_mut(), data_size: 0, return_size: 0 },
        ];
        // SAFETY: the MAC and context are checked non-null; the parameter array is NULL-terminated and its
        // strings outlive the call.
        unsafe {
            let mac = (lib.mac_fetch)(std::ptr::null_mut(), cmac.as_ptr(), std::ptr::null());
            if mac.is_null() {
                return None;
            }
            let ctx = (lib.mac_ctx_new)(mac);
            if ctx.is_null() || (lib.mac_init)(ctx, key.as_ptr(), key.len(), params.as_ptr()) != 1 {
                return None;
            }
            Some(Peer { lib, ctx, work: Work::Mac })
        }
    }

    /// Processes one message in place (GCM AAD only and CMAC: read only), returning a byte of the result.
    pub fn run(&mut self, buf: &mut [u8]) -> u8 {
        match self.work {
            Work::Cipher { .. } => {
                self.process(buf);
                buf[0]
            }
            _ => self.process(buf)[0],
        }
    }

    /// Processes one message in place as [`Peer::run`] does, returning the tag (zero for a plain cipher).
    pub fn process(&mut self, buf: &mut [u8]) -> [u8; 16] {
        let iv = [7u8; 16];
        let null = std::ptr::null_mut();
        let len = buf.len() as c_int;
        let mut n: c_int = 0;
        let mut tag = [0u8; 16];
        // SAFETY: the context is keyed; buffers are valid for their lengths; in place is allowed by EVP.
        unsafe {
            match self.work {
                Work::Cipher { iv: with_iv } => {
                    if with_iv {
                        (self.lib.init)(self.ctx, null, null, std::ptr::null(), iv.as_ptr(), -1);
                    }
                    (self.lib.update)(self.ctx, buf.as_mut_ptr(), &mut n, buf.as_ptr(), len);
                }
                Work::Gcm { aad_only } => {
                    (self.lib.init)(self.ctx, null, null, std::ptr::null(), iv.as_ptr(), -1);
                    let out = if aad_only { std::ptr::null_mut() } else { buf.as_mut_ptr() };
                    (self.lib.update)(self.ctx, out, &mut n, buf.as_ptr(), len);
                    (self.lib.finalize)(self.ctx, tag.as_mut_ptr(), &mut n);
                    (self.lib.ctrl)(self.ctx, GET_TAG, 16, tag.as_mut_ptr().cast());
                }
                Work::Mac => {
                    let mut outl = 0usize;
                    (self.lib.mac_init)(self.ctx, std::ptr::null(), 0, std::ptr::null());
                    (self.lib.mac_update)(self.ctx, buf.as_ptr(), buf.len());
                    (self.lib.mac_final)(self.ctx, tag.as_mut_ptr(), &mut outl, 16);
                }
            }
        }
        tag
    }
}

/// The OpenSSL cipher name and key length for a benchmark kind ("SM4-CBC-DEC" -> SM4-CBC, 16), `None` for kinds
/// no OpenSSL has (GB/T XTS).
pub fn sm4_name(kind: &str) -> Option<(&'static str, usize)> {
    const NAMES: [(&str, &str, usize); 9] = [
        ("SM4-ECB", "SM4-ECB", 16),
        ("SM4-CTR", "SM4-CTR", 16),
        ("SM4-CBC-ENC", "SM4-CBC", 16),
        ("SM4-CBC-DEC", "SM4-CBC", 16),
        ("SM4-CFB-DEC", "SM4-CFB", 16),
        ("SM4-CFB-ENC", "SM4-CFB", 16),
        ("SM4-XTS", "SM4-XTS", 32),
        ("SM4-GCM", "SM4-GCM", 16),
        ("SM4-CMAC", "SM4-CBC", 16),
    ];
    NAMES.iter().find(|(k, ..)| *k == kind).map(|&(_, n, l)| (n, l))
}
