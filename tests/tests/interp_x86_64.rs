//! The x86_64 interpreter (`asmgen::sem::interp`) runs whole kernels: every x86_64 kernel of every set this CPU
//! runs is called natively (the linked listing) and interpreted from its description (System V) on copies of
//! the same buffers, for the block counts of `kernel_calls::COUNTS`, and every output must come out equal
//! (`asmgen_tests::interp::compare_with_native`); and the GFNI set's SM4 ECB
//! and CTR kernels, interpreted, match RustCrypto (so the interpreter runs them on a machine without GFNI too).
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use asmgen::isa::x86_64::X86_64;
use asmgen::{Abi, Function};
use asmgen_kernels::catalog::X86_64_SETS;
use asmgen_tests::interp::{compare_with_native, native_set};

/// Interprets `f` on `args` (System V).
fn interpret(f: &Function<X86_64>, args: &[u64]) {
    // SAFETY: the test's buffers, as large as the role needs (the native run of the same kernel on the same
    // buffers shows the bounds).
    unsafe { asmgen_tests::interp::interpret(f, args, ()) }
}

#[test]
fn interpreted_kernels_equal_the_native_ones() {
    let (bad, compared) = compare_with_native(X86_64_SETS, Abi::SysV, (), |set| native_set(|name, _| name == set.name));
    assert!(compared > 0, "no kernel ran natively");
    assert!(bad.is_empty(), "the interpreter differs from the CPU:\n{}", bad.join("\n"));
    eprintln!("{compared} calls compared");
}

#[test]
fn gfni_sm4_interpreted_matches_rustcrypto() {
    use cipher::{BlockCipherEncrypt, KeyInit, KeyIvInit, StreamCipher};
    let set = X86_64_SETS.iter().find(|s| s.name == "x86_64-gfni-avx2").unwrap();
    let kernels = set.build_all(Abi::SysV).unwrap();
    let by_role = |r: &str| &kernels.iter().find(|k| k.role.name() == r).unwrap().function;
    let key: [u8; 16] = std::array::from_fn(|i| (i * 17 + 1) as u8);
    let (mut rk_enc, mut rk_dec) = ([0u8; 128], [0u8; 128]);
    interpret(by_role("expand_key"), &[rk_enc.as_mut_ptr() as u64, rk_dec.as_mut_ptr() as u64, key.as_ptr() as u64]);
    let rc = sm4::Sm4::new(&key.into());
    for n in [1, 5, 16, 19] {
        let src: Vec<u8> = (0..16 * n).map(|i| (i * 13 + 7) as u8).collect();
        let mut dst = vec![0u8; 16 * n];
        interpret(by_role("ecb"), &[rk_enc.as_ptr() as u64, dst.as_mut_ptr() as u64, src.as_ptr() as u64, n as u64]);
        let mut want = src.clone();
        for b in want.chunks_mut(16) {
            rc.encrypt_block(b.try_into().unwrap());
        }
        assert_eq!(dst, want, "ECB, {n} blocks");
        let iv = [0xffu8; 16];
        let mut ctr = iv;
        let args =
            [rk_enc.as_ptr() as u64, dst.as_mut_ptr() as u64, src.as_ptr() as u64, n as u64, ctr.as_mut_ptr() as u64];
        interpret(by_role("ctr"), &args);
        let mut want = src.clone();
        ctr::Ctr128BE::<sm4::Sm4>::new(&key.into(), &iv.into()).apply_keystream(&mut want);
        assert_eq!(dst, want, "CTR, {n} blocks");
    }
}
