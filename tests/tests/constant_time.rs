//! The constant-time checker (`asmgen::sem::ct`) over every x86_64 kernel: each function of each set, and each
//! fixed-size variant the JIT builds (one harness for all ISAs: `asmgen_tests::ct`), is interpreted from its
//! description (System V and Win64) for a few block counts with its secret buffers tainted (per parameter name,
//! `asmgen::sem::ct::PARAMS`: keys, round keys, key tables, hash and chaining state, plaintext, tweak, MAC;
//! pointers and lengths are public), and must branch on no secret flag and address no memory through a secret
//! register. The CTR/CCM counter (`ctr`) is public (a nonce, sent in clear): the CTR kernels branch on the carry
//! out of its low 64 bits, which `with_a_secret_counter_only_the_carry_branch_is_flagged` pins down. Two hand-built
//! functions, a table lookup indexed by a secret byte and a branch on a secret bit, must be flagged. The portable
//! Rust backends are not checked.

use asmgen::isa::x86_64::{mem, mem_index, regs::*, X86_64};
use asmgen::{Abi, Builder, Function};
use asmgen_kernels::catalog::X86_64_SETS;
use asmgen_tests::ct::{self, LEAKY};

/// Every x86_64 set, System V and Win64 (under qemu System V).
const PLAN: ct::Plan<X86_64> = ct::Plan {
    sets: X86_64_SETS,
    abis: if asmgen_tests::SLOW_TARGET { &[Abi::SysV] } else { &[Abi::SysV, Abi::Win64] },
    models: &[()],
    at_least: (100, 30),
    counter_branch: ("_ctr_carry", "branch on secret flags"),
};

#[test]
fn every_x86_64_kernel_is_constant_time() {
    PLAN.every_kernel_is_clean();
}

#[test]
fn with_a_secret_counter_only_the_carry_branch_is_flagged() {
    PLAN.with_a_secret_counter_only_its_branch_is_flagged();
}

/// `f(table, key)`: loads a secret qword from `key` and then does `body` with it in rax.
fn hand_built(body: impl Fn(&mut Builder<X86_64>)) -> Function<X86_64> {
    ct::leaky::<X86_64>(Abi::SysV, |b, table, key| {
        assert_eq!((table, key), (RDI, RSI));
        b.mov(RAX, mem(RSI, 0));
        body(b);
    })
}

#[test]
fn a_lookup_indexed_by_a_secret_byte_is_flagged() {
    let f = hand_built(|b| {
        b.and(RAX, 31);
        b.mov(RCX, mem_index(RDI, RAX, 8, 0));
    });
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("mov_load")), "{found:?}");
    // The same lookup with a public index is not.
    let f = hand_built(|b| {
        b.mov(RAX, 3);
        b.mov(RCX, mem_index(RDI, RAX, 8, 0));
    });
    assert_eq!(ct::run(&f, LEAKY, 0, false, ()), vec![]);
}

#[test]
fn a_branch_on_a_secret_bit_is_flagged() {
    let f = hand_built(|b| {
        let skip = b.label("skip");
        b.and(RAX, 1);
        b.jz(&skip);
        b.add(RCX, 1);
        b.bind(&skip);
    });
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("branch") && f.inst.starts_with("jz")), "{found:?}");
}
