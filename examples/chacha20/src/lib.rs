//! ChaCha20 (RFC 8439) through asmgen's listings: a worked example of a crate that uses asmgen the way a
//! perlasm user ports a kernel (see `docs/GUIDE.md`).
//!
//! [`chacha20`] picks the fastest code the CPU runs: the AVX2 kernel on x86_64 (eight blocks at a time), the
//! NEON kernel on aarch64 (four), the RV64I kernel on riscv64 (one), else a small portable implementation
//! ([`Backend`]). The kernels are
//! described in `src/kernels.rs`; `build.rs` writes their listings for every target and links the host's.

#![warn(missing_docs)]

#[cfg(chacha_asm)]
#[allow(dead_code, missing_docs, clippy::all)]
mod ffi {
    include!(env!("CHACHA20_DECLARATIONS"));
}

/// Bytes of a ChaCha20 block.
pub const BLOCK_BYTES: usize = 64;

/// Which code encrypts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The AVX2 kernel (x86_64, eight blocks at a time).
    Avx2,
    /// The NEON kernel (aarch64, four blocks at a time).
    Neon,
    /// The base-ISA kernel (riscv64, RV64I, one block at a time).
    Rv64,
    /// Portable Rust, one block at a time.
    Portable,
}

impl Backend {
    /// The backends this CPU can run, fastest first ([`Backend::Portable`] is always there); detected once.
    pub fn available() -> &'static [Backend] {
        static AVAILABLE: std::sync::OnceLock<Vec<Backend>> = std::sync::OnceLock::new();
        AVAILABLE.get_or_init(|| {
            let mut v = Vec::new();
            #[cfg(all(chacha_asm, target_arch = "x86_64"))]
            if std::is_x86_feature_detected!("avx2") {
                v.push(Backend::Avx2);
            }
            #[cfg(all(chacha_asm, target_arch = "aarch64"))]
            if std::arch::is_aarch64_feature_detected!("neon") {
                v.push(Backend::Neon);
            }
            #[cfg(all(chacha_asm, target_arch = "riscv64"))]
            v.push(Backend::Rv64);
            v.push(Backend::Portable);
            v
        })
    }

    /// The fastest backend this CPU runs.
    pub fn best() -> Backend {
        Backend::available()[0]
    }
}

/// The kernel contract's key and counter words: eight little-endian key words; the block counter, then the
/// nonce as three little-endian words.
fn words(key: &[u8; 32], nonce: &[u8; 12], counter: u32) -> ([u32; 8], [u32; 4]) {
    let k = std::array::from_fn(|i| u32::from_le_bytes(key[4 * i..4 * i + 4].try_into().unwrap()));
    let n = |i: usize| u32::from_le_bytes(nonce[4 * i..4 * i + 4].try_into().unwrap());
    (k, [counter, n(0), n(1), n(2)])
}

/// `output = input ^ ChaCha20(key, nonce)`, the key stream starting at block `counter`, with the fastest
/// backend this CPU runs.
///
/// Panics if the lengths differ or if the message would run the 32-bit block counter past 2^32 - 1.
pub fn chacha20(key: &[u8; 32], nonce: &[u8; 12], counter: u32, input: &[u8], output: &mut [u8]) {
    chacha20_with(Backend::best(), key, nonce, counter, input, output);
}

/// [`chacha20`] with the given backend. Panics as [`chacha20`] does, and if the CPU cannot run `backend`.
pub fn chacha20_with(
    backend: Backend,
    key: &[u8; 32],
    nonce: &[u8; 12],
    counter: u32,
    input: &[u8],
    output: &mut [u8],
) {
    assert!(Backend::available().contains(&backend), "this CPU cannot run {backend:?}");
    whole_blocks_then_tail(key, nonce, counter, input, output, |i, o, k, c| blocks_with(backend, i, o, k, c));
}

/// A kernel with the listings' contract (`src/kernels.rs`): `out = in ^ key stream` for the `len / 64`
/// whole blocks, `key` eight words, `counter` the block counter and three nonce words.
pub type Kernel = unsafe extern "C" fn(out: *mut u8, inp: *const u8, len: usize, key: *const u32, counter: *const u32);

/// [`chacha20`] through `kernel` (one the JIT mapped, for example), which does the whole blocks; a partial
/// last block goes through a 64-byte buffer. Panics as [`chacha20`] does.
///
/// # Safety
///
/// `kernel` must have the [`Kernel`] contract and the CPU must run it.
pub unsafe fn chacha20_with_kernel(
    kernel: Kernel,
    key: &[u8; 32],
    nonce: &[u8; 12],
    counter: u32,
    input: &[u8],
    output: &mut [u8],
) {
    whole_blocks_then_tail(key, nonce, counter, input, output, |i, o, k, c| {
        // SAFETY: the caller vouches for the kernel; it reads i.len() bytes of i, eight key words and four
        // counter words, and writes o.len() == i.len() bytes of o.
        unsafe { kernel(o.as_mut_ptr(), i.as_ptr(), i.len(), k.as_ptr(), c.as_ptr()) }
    });
}

/// Checks the lengths and the counter, runs `blocks` on the whole blocks, then on a 64-byte buffer holding
/// the partial last block (the kernels' contract leaves it to the caller).
fn whole_blocks_then_tail(
    key: &[u8; 32],
    nonce: &[u8; 12],
    counter: u32,
    input: &[u8],
    output: &mut [u8],
    blocks: impl Fn(&[u8], &mut [u8], &[u32; 8], &[u32; 4]),
) {
    assert_eq!(input.len(), output.len(), "input and output differ in length");
    let n = input.len().div_ceil(BLOCK_BYTES) as u64;
    assert!(u64::from(counter) + n <= 1 << 32, "the message runs the block counter past 2^32 - 1");
    let (k, c) = words(key, nonce, counter);
    let whole = input.len() / BLOCK_BYTES * BLOCK_BYTES;
    blocks(&input[..whole], &mut output[..whole], &k, &c);
    let rest = input.len() - whole;
    if rest > 0 {
        let mut buf = [0u8; BLOCK_BYTES];
        buf[..rest].copy_from_slice(&input[whole..]);
        let c = [c[0].wrapping_add((whole / BLOCK_BYTES) as u32), c[1], c[2], c[3]];
        let copy = buf;
        blocks(&copy, &mut buf, &k, &c);
        output[whole..].copy_from_slice(&buf[..rest]);
    }
}

/// Whole blocks (`input.len()` a multiple of 64) through `backend`.
fn blocks_with(backend: Backend, input: &[u8], output: &mut [u8], key: &[u32; 8], counter: &[u32; 4]) {
    debug_assert!(input.len().is_multiple_of(BLOCK_BYTES) && input.len() == output.len());
    match backend {
        // SAFETY: the CPU has the kernel's features (checked by the caller); the kernel reads input.len()
        // bytes of input and the key and counter words, and writes as many bytes of output.
        #[cfg(all(chacha_asm, target_arch = "x86_64"))]
        Backend::Avx2 => unsafe {
            ffi::chacha_chacha20_avx2(output.as_mut_ptr(), input.as_ptr(), input.len(), key.as_ptr(), counter.as_ptr())
        },
        // SAFETY: as above (NEON is baseline on aarch64).
        #[cfg(all(chacha_asm, target_arch = "aarch64"))]
        Backend::Neon => unsafe {
            ffi::chacha_chacha20_neon(output.as_mut_ptr(), input.as_ptr(), input.len(), key.as_ptr(), counter.as_ptr())
        },
        // SAFETY: as above (the base ISA).
        #[cfg(all(chacha_asm, target_arch = "riscv64"))]
        Backend::Rv64 => unsafe {
            ffi::chacha_chacha20_rv64(output.as_mut_ptr(), input.as_ptr(), input.len(), key.as_ptr(), counter.as_ptr())
        },
        _ => portable::blocks(input, output, key, counter),
    }
}

/// The portable fallback: one block at a time, as RFC 8439 section 2.3 writes it.
pub mod portable {
    /// "expand 32-byte k".
    const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

    fn quarter_round(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
        s[a] = s[a].wrapping_add(s[b]);
        s[d] = (s[d] ^ s[a]).rotate_left(16);
        s[c] = s[c].wrapping_add(s[d]);
        s[b] = (s[b] ^ s[c]).rotate_left(12);
        s[a] = s[a].wrapping_add(s[b]);
        s[d] = (s[d] ^ s[a]).rotate_left(8);
        s[c] = s[c].wrapping_add(s[d]);
        s[b] = (s[b] ^ s[c]).rotate_left(7);
    }

    /// The key stream block of `key` and `counter` (block counter and nonce words).
    pub fn block(key: &[u32; 8], counter: &[u32; 4]) -> [u8; 64] {
        let mut init = [0u32; 16];
        init[..4].copy_from_slice(&SIGMA);
        init[4..12].copy_from_slice(key);
        init[12..].copy_from_slice(counter);
        let mut s = init;
        for _ in 0..10 {
            quarter_round(&mut s, 0, 4, 8, 12);
            quarter_round(&mut s, 1, 5, 9, 13);
            quarter_round(&mut s, 2, 6, 10, 14);
            quarter_round(&mut s, 3, 7, 11, 15);
            quarter_round(&mut s, 0, 5, 10, 15);
            quarter_round(&mut s, 1, 6, 11, 12);
            quarter_round(&mut s, 2, 7, 8, 13);
            quarter_round(&mut s, 3, 4, 9, 14);
        }
        let mut out = [0u8; 64];
        for (i, w) in s.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&w.wrapping_add(init[i]).to_le_bytes());
        }
        out
    }

    /// The kernels' contract in Rust: whole blocks of `input` xored into `output`.
    pub fn blocks(input: &[u8], output: &mut [u8], key: &[u32; 8], counter: &[u32; 4]) {
        for (i, (src, dst)) in input.chunks_exact(64).zip(output.chunks_exact_mut(64)).enumerate() {
            let ks = block(key, &[counter[0].wrapping_add(i as u32), counter[1], counter[2], counter[3]]);
            for ((d, s), k) in dst.iter_mut().zip(src).zip(ks) {
                *d = s ^ k;
            }
        }
    }
}
