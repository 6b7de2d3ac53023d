//! How much of a suite's length sweep each backend gets. Native backends (the listings, the JIT, the portable
//! code) get the whole sweep: every length to 1 KiB and random lengths to 64 KiB (fewer under qemu, see
//! [`crate::scaled`]). The interpreter's backends (`interp/<set>`, feature `interp`) run a few MB/s, so they get
//! [`INTERP_LENGTHS`]: lengths chosen to reach every path of the kernels (nothing, a partial block, one block,
//! the 8- and 16-block wide loops with and without a tail, more than one wide iteration) in seconds.

use crate::scaled;

/// Whether `backend` runs through the interpreter (`interp/<set>`).
pub fn interpreted(backend: &str) -> bool {
    backend.starts_with("interp/")
}

/// The interpreter backends' lengths: empty; partial, whole and one-more-than blocks; around the 8-block (128
/// bytes) and 16-block (256 bytes) wide loops; the zmm loop's 48 blocks (768 bytes) and more; two and more wide
/// iterations with a partial tail.
pub const INTERP_LENGTHS: [usize; 23] =
    [0, 1, 15, 16, 17, 31, 32, 33, 48, 100, 127, 128, 129, 255, 256, 257, 272, 383, 512, 533, 768, 1024, 1024 + 48 + 5];

/// The lengths `from..=to` that a sweep over every length tests on `backend`: each (every 7th under qemu)
/// natively, those of [`INTERP_LENGTHS`] in range through the interpreter.
pub fn every_length(backend: &str, from: usize, to: usize) -> Vec<usize> {
    if interpreted(backend) {
        INTERP_LENGTHS.into_iter().filter(|l| (from..=to).contains(l)).collect()
    } else {
        (from..=to).step_by(scaled(1, 7)).collect()
    }
}

/// The longest random length and the number of random cases on `backend`, for a suite that runs `count` cases
/// up to `max` bytes natively: `max` and `count` natively (8 KiB and 3 under qemu), 4 KiB and 3 through the
/// interpreter.
pub fn random_lengths(backend: &str, max: usize, count: usize) -> (usize, usize) {
    if interpreted(backend) {
        (max.min(4096), count.min(3))
    } else {
        (scaled(max, max.min(8192)), scaled(count, count.min(3)))
    }
}

/// A large buffer's length on `backend`: `native` (`emulated` under qemu), at most 64 KiB through the
/// interpreter.
pub fn large(backend: &str, native: usize, emulated: usize) -> usize {
    if interpreted(backend) {
        native.min(1 << 16)
    } else {
        scaled(native, emulated)
    }
}

/// Checks the batch modes of `z` against `p` (the same key) on `data`, whole blocks: ECB both ways, CTR from
/// `iv` and from a counter whose low 64 bits wrap inside the data, CBC and CFB decryption with the IV chained
/// out. `what` names the backend in a failure. The zmm sets' tests run this at every block count that reaches
/// one of their paths.
pub fn batch_modes_agree(z: &asmgen_runtime::Sm4, p: &asmgen_runtime::Sm4, data: &[u8], iv: [u8; 16], what: &str) {
    let n = data.len() / 16;
    let (mut a, mut c) = (data.to_vec(), data.to_vec());
    z.encrypt_ecb(&mut a).unwrap();
    p.encrypt_ecb(&mut c).unwrap();
    assert_eq!(a, c, "{what} ECB, {n} blocks");
    z.decrypt_ecb(&mut a).unwrap();
    assert_eq!(a, data, "{what} ECB decryption, {n} blocks");
    let mut wrap = [0xffu8; 16];
    wrap[15] = 0xf0 | (n as u8 & 0x0f);
    for ctr in [iv, wrap] {
        let (mut a, mut c) = (data.to_vec(), data.to_vec());
        let (mut ca, mut cc) = (ctr, ctr);
        z.apply_ctr(&mut ca, &mut a);
        p.apply_ctr(&mut cc, &mut c);
        assert_eq!((a, ca), (c, cc), "{what} CTR, {n} blocks, counter {ctr:02x?}");
    }
    type Chained = fn(&asmgen_runtime::Sm4, &mut [u8; 16], &mut [u8]) -> Result<(), asmgen_runtime::Error>;
    let modes: [(&str, Chained); 2] =
        [("CBC", asmgen_runtime::Sm4::decrypt_cbc), ("CFB", asmgen_runtime::Sm4::decrypt_cfb)];
    for (mode, f) in modes {
        let (mut a, mut c) = (data.to_vec(), data.to_vec());
        let (mut ia, mut ic) = (iv, iv);
        f(z, &mut ia, &mut a).unwrap();
        f(p, &mut ic, &mut c).unwrap();
        assert_eq!((a, ia), (c, ic), "{what} {mode} decryption, {n} blocks");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interpreter_gets_representative_lengths() {
        assert_eq!(
            every_length("interp/x86_64-gfni-avx2", 16, 300),
            [16, 17, 31, 32, 33, 48, 100, 127, 128, 129, 255, 256, 257, 272]
        );
        assert_eq!(every_length("aot/x86_64-gfni-avx2", 0, 1024).len(), scaled(1025, 147));
        assert_eq!(random_lengths("interp/x86_64-aesni-avx", 65536, 12), (4096, 3));
        assert_eq!(large("jit/x86_64-aesni-avx", 1 << 20, 1 << 14), scaled(1 << 20, 1 << 14));
    }
}
