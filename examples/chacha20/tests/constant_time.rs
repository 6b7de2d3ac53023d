//! asmgen's constant-time checker on the three kernels: each runs in asmgen's interpreter with the key and
//! the input marked secret, and no branch, memory address or variable-time instruction may depend on them.
//! Lengths cover whole batches, a partial last batch and a partial block (which the kernels leave alone).

#[path = "../src/kernels.rs"]
#[allow(dead_code)]
mod kernels;

use asmgen::sem::ct::{check, Finding, Tainting};
use asmgen::sem::interp::{Flat, Program};
use asmgen::{Abi, Function};

/// The findings of one run over `len` bytes: out, in, len, key, counter as the kernels take them.
fn findings<I: Tainting>(f: &Function<I>, model: I::Model, len: usize) -> Vec<Finding> {
    let mut mem = Flat::default();
    let input = mem.map(&vec![0x5a; len]);
    let out = mem.map(&vec![0; len]);
    let key = mem.map(&[0xa5; 32]);
    let counter = mem.map(&[1, 0, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0]);
    let p = Program::new(f);
    mem.map_consts(&p);
    let stack = mem.map(&[0; 1 << 16]) + (1 << 16) - I::ENTRY_MISALIGN;
    let state = p.setup(&mut mem, &[out, input, len as u64, key, counter], stack, model);
    // Secret: the key and the message; public: the pointers, the length, the counter and nonce.
    check(&p, &mut mem, state, &[(key, 32), (input, len as u64)]).expect("the kernel runs to its end")
}

fn assert_constant_time<I: Tainting>(f: Function<I>, model: I::Model) {
    for len in [64, 5 * 64 + 9, 8 * 64, 17 * 64 + 63] {
        let found = findings(&f, model, len);
        assert!(found.is_empty(), "{} over {len} bytes: {found:#?}", f.name);
    }
}

#[test]
fn the_avx2_kernel_is_constant_time() {
    assert_constant_time(kernels::chacha20_avx2(Abi::SysV).unwrap(), ());
    assert_constant_time(kernels::chacha20_avx2(Abi::Win64).unwrap(), ());
}

#[test]
fn the_neon_kernel_is_constant_time() {
    assert_constant_time(kernels::chacha20_neon(Abi::Aapcs64).unwrap(), ());
}

#[test]
fn the_rv64_kernel_is_constant_time() {
    assert_constant_time(kernels::chacha20_rv64(Abi::Lp64d).unwrap(), 128);
}

/// The harness finds a leak where there is one: a kernel that branches on a key word.
#[test]
fn a_branch_on_the_key_is_found() {
    use asmgen::isa::x86_64::{mem, regs::*, X86_64};
    use asmgen::{Builder, CType};
    let mut b = Builder::<X86_64>::new("leaky", Abi::SysV, &[]);
    for (name, ty) in [("out", CType::BytePtr), ("inp", CType::ConstBytePtr), ("len", CType::Size)] {
        b.param(name, ty);
    }
    let key = b.param("key", CType::ConstU32Ptr);
    b.param("counter", CType::ConstU32Ptr);
    let skip = b.label("skip");
    b.mov(RAX, mem(key, 0)).test(RAX, RAX).jz(&skip).bind(&skip);
    let found = findings(&b.finish().unwrap(), (), 64);
    assert!(!found.is_empty(), "no finding for a branch on the key");
}
