//! The same kernel descriptions (`src/kernels.rs`), built at run time for this machine's ABI and mapped by
//! asmgen-runtime's JIT (`JitModule`): RFC 8439's vectors and random messages against the reference, through
//! the JIT's code instead of the linked listing.

#[path = "../src/kernels.rs"]
#[allow(dead_code)]
mod kernels;

mod common;

use asmgen_runtime::jit::{host_target, JitError, JitModule};
use chacha20_asmgen::{chacha20_with_kernel, Kernel};
use common::{lengths, reference, vector, Rng, VECTORS};
use std::sync::OnceLock;

/// The host's kernel, built for this platform's C ABI, lowered and mapped once: W^X, the instruction cache
/// synchronised, the unwind data registered on Windows; `get` checks the pointer's type against the
/// function's C signature. `None` where the CPU lacks the kernel's features.
fn jit() -> Option<Kernel> {
    static KERNEL: OnceLock<Option<Kernel>> = OnceLock::new();
    *KERNEL.get_or_init(|| {
        let abi = host_target()?.abi;
        #[cfg(target_arch = "x86_64")]
        let function = kernels::chacha20_avx2(abi).unwrap();
        #[cfg(target_arch = "aarch64")]
        let function = kernels::chacha20_neon(abi).unwrap();
        #[cfg(target_arch = "riscv64")]
        let function = kernels::chacha20_rv64(abi).unwrap();
        match JitModule::new([&function]) {
            // The module lives as long as the process: the pointer stays valid.
            Ok(module) => Some(module.leak().get::<Kernel>(&function.name).unwrap().into_inner()),
            Err(JitError::MissingFeature { function, feature }) => {
                println!("skipped: {function} needs {feature}, which this CPU lacks");
                None
            }
            Err(e) => panic!("{e}"),
        }
    })
}

#[test]
fn rfc8439_vectors_through_the_jit() {
    let Some(j) = jit() else { return };
    for v in VECTORS {
        let (key, nonce, counter, plain, cipher) = vector(v);
        let mut out = vec![0; plain.len()];
        // SAFETY: the JIT's kernel has the listings' contract and the CPU runs it.
        unsafe { chacha20_with_kernel(j, &key, &nonce, counter, &plain, &mut out) };
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
        unsafe { chacha20_with_kernel(j, &key, &nonce, counter, &plain, &mut out) };
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
    unsafe { (j)(buf.as_mut_ptr(), buf.as_ptr(), whole, k.as_ptr(), c.as_ptr()) };
    assert_eq!(buf[..whole], reference(&key, &nonce, 11, &plain)[..whole]);
    assert_eq!(buf[whole..], plain[whole..], "the partial block is left alone");
}
