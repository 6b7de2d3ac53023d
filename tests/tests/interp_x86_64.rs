//! The x86_64 interpreter (`asmgen::sem::interp`) runs whole kernels: every x86_64 kernel of every set this CPU
//! runs is called natively (the linked listing) and interpreted from its description (System V) on copies of
//! the same buffers, for a few block counts, and every buffer must come out equal; and the GFNI set's SM4 ECB
//! and CTR kernels, interpreted, match RustCrypto (so the interpreter runs them on a machine without GFNI too).
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use asmgen::isa::x86_64::X86_64;
use asmgen::{Abi, CType, Function};
use asmgen_kernels::catalog::X86_64_SETS;
use asmgen_tests::interp::call_native;

/// Interprets `f` on `args` (System V).
fn interpret(f: &Function<X86_64>, args: &[u64]) {
    // SAFETY: the test's buffers, as large as the role needs (the native run of the same kernel on the same
    // buffers shows the bounds).
    unsafe { asmgen_tests::interp::interpret(f, args, ()) }
}

/// Buffers for a role's parameters over `n` blocks: (pointer parameters' buffers, arguments).
fn buffers(params: &[(&str, CType)], n: usize, seed: u8) -> (Vec<Vec<u8>>, Vec<Option<u64>>) {
    let (mut bufs, mut args) = (Vec::new(), Vec::new());
    for (i, (name, ty)) in params.iter().enumerate() {
        if *ty == CType::Size {
            args.push(Some(if *name == "len" { (16 * n + n % 7) as u64 } else { n as u64 }));
            continue;
        }
        let len = match *name {
            "src" | "dst" | "data" => (n + 2) * 16,
            "table" | "htable" => 256,
            _ => 128,
        };
        bufs.push((0..len).map(|j| (j as u8).wrapping_mul(31).wrapping_add(seed ^ i as u8)).collect());
        args.push(None);
    }
    (bufs, args)
}

fn pointers(bufs: &mut [Vec<u8>], args: &[Option<u64>]) -> Vec<u64> {
    let mut ptrs = bufs.iter_mut().map(|b| b.as_mut_ptr() as u64);
    args.iter().map(|a| a.unwrap_or_else(|| ptrs.next().unwrap())).collect()
}

#[test]
fn interpreted_kernels_equal_the_native_ones() {
    let linked = asmgen_runtime::abi_test::kernels();
    let mut compared = 0;
    for set in X86_64_SETS {
        for k in (set.build)(Abi::SysV).unwrap() {
            let Some(native) = linked.iter().find(|l| l.symbol == k.function.name && l.available) else { continue };
            for n in [1, 3, 17] {
                let (mut a, args) = buffers(k.role.params(), n, n as u8);
                let mut b = a.clone();
                let (pa, pb) = (pointers(&mut a, &args), pointers(&mut b, &args));
                // SAFETY: the linked kernel of the role, on buffers as large as the role needs for `n`.
                unsafe { call_native(native.entry, &pa) };
                interpret(&k.function, &pb);
                assert!(a == b, "{} ({}), {n} blocks: the interpreter differs from the CPU", k.function.name, set.name);
                compared += 1;
            }
        }
    }
    assert!(compared > 0, "no kernel ran natively");
    eprintln!("{compared} calls compared");
}

#[test]
fn gfni_sm4_interpreted_matches_rustcrypto() {
    use cipher::{BlockCipherEncrypt, KeyInit, KeyIvInit, StreamCipher};
    let set = X86_64_SETS.iter().find(|s| s.name == "x86_64-gfni-avx2").unwrap();
    let kernels = (set.build)(Abi::SysV).unwrap();
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
