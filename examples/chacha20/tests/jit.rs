//! The same kernel descriptions (`src/kernels.rs`), built at run time for this machine's ABI, lowered to
//! machine code by asmgen and mapped executable: RFC 8439's vectors and random messages against the
//! reference, through the JIT's code instead of the linked listing.

#[path = "../src/kernels.rs"]
#[allow(dead_code)]
mod kernels;

mod common;

use asmgen::{Function, Isa, Target};
use chacha20_asmgen::{chacha20_with_kernel, Kernel};
use common::{lengths, reference, vector, Rng, VECTORS};

/// Code mapped read-execute, and the kernel in it.
///
/// TEMPORARY: mapped by hand (memmap2) until `asmgen_runtime::jit` offers a user's functions a W^X mapping
/// (issue 26, item 6); the code is copied into a read-write mapping, which is then made read-execute.
struct Jitted {
    _code: memmap2::Mmap,
    kernel: Kernel,
}

fn map<I: asmgen::lower::Lower + Isa>(f: Function<I>) -> Jitted {
    let image = asmgen::lower::lower(&[&f]).expect("the kernel lowers");
    let at = image.symbol(&f.name).expect("the kernel is in the image").offset;
    let mut rw = memmap2::MmapMut::map_anon(image.bytes.len()).expect("mmap");
    rw.copy_from_slice(&image.bytes);
    let code = rw.make_exec().expect("mprotect");
    #[cfg(all(target_arch = "aarch64", target_os = "linux"))]
    {
        extern "C" {
            fn __clear_cache(start: *mut u8, end: *mut u8);
        }
        let p = code.as_ptr() as *mut u8;
        // SAFETY: the range is the mapping just written.
        unsafe { __clear_cache(p, p.add(code.len())) };
    }
    // SAFETY: the image's code starts with the function at `at`, which has the Kernel signature.
    let kernel = unsafe { std::mem::transmute::<*const u8, Kernel>(code.as_ptr().add(at)) };
    Jitted { _code: code, kernel }
}

/// The host's kernel, built for its ABI and mapped; `None` where the CPU lacks its features.
fn jit() -> Option<Jitted> {
    let target = Target::from_rust(std::env::consts::ARCH, std::env::consts::OS)?;
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx2").then(|| map(kernels::chacha20_avx2(target.abi).unwrap()));
    #[cfg(target_arch = "aarch64")]
    return Some(map(kernels::chacha20_neon(target.abi).unwrap()));
    #[cfg(target_arch = "riscv64")]
    return Some(map(kernels::chacha20_rv64(target.abi).unwrap()));
    #[allow(unreachable_code)]
    None
}

#[test]
fn rfc8439_vectors_through_the_jit() {
    let Some(j) = jit() else {
        println!("skipped: this CPU lacks the kernel's features");
        return;
    };
    for v in VECTORS {
        let (key, nonce, counter, plain, cipher) = vector(v);
        let mut out = vec![0; plain.len()];
        // SAFETY: the JIT's kernel has the listings' contract and the CPU runs it.
        unsafe { chacha20_with_kernel(j.kernel, &key, &nonce, counter, &plain, &mut out) };
        assert_eq!(out, cipher, "vector {}", v.0);
    }
}

#[test]
fn random_messages_through_the_jit_match_the_reference() {
    let Some(j) = jit() else { return };
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for len in lengths(&mut rng, 60) {
        let key: [u8; 32] = rng.bytes(32).try_into().unwrap();
        let nonce: [u8; 12] = rng.bytes(12).try_into().unwrap();
        let counter = rng.next() as u32 >> 8;
        let plain = rng.bytes(len);
        let mut out = vec![0; len];
        // SAFETY: as above.
        unsafe { chacha20_with_kernel(j.kernel, &key, &nonce, counter, &plain, &mut out) };
        assert!(out == reference(&key, &nonce, counter, &plain), "{len} bytes");
    }
}

#[test]
fn the_jit_kernel_encrypts_in_place() {
    let Some(j) = jit() else { return };
    let (key, nonce) = ([3u8; 32], [5u8; 12]);
    let plain: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
    let mut buf = plain.clone();
    let whole = buf.len() / 64 * 64;
    let (k, c) = ([0x0303_0303u32; 8], [11u32, 0x0505_0505, 0x0505_0505, 0x0505_0505]);
    // SAFETY: the kernel reads and writes `whole` bytes of one buffer (in == out is in its contract).
    unsafe { (j.kernel)(buf.as_mut_ptr(), buf.as_ptr(), whole, k.as_ptr(), c.as_ptr()) };
    assert_eq!(buf[..whole], reference(&key, &nonce, 11, &plain)[..whole]);
    assert_eq!(buf[whole..], plain[whole..], "the partial block is left alone");
}
