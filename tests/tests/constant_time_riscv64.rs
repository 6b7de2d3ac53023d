//! The constant-time checker on riscv64 (`asmgen::sem::ct_riscv64`): every kernel of every riscv64 set, and each
//! fixed-size variant the JIT builds (`asmgen_tests::ct`), is interpreted from its description (LP64D) at VLEN 128 and
//! 256 for a few block counts with its secret buffers tainted (per parameter name, `asmgen::sem::ct::PARAMS`), and must
//! branch on no secret, address no memory through a secret register and set no vector length from a secret. The counter
//! (`ctr`) is public; with it tainted only the vector CTR kernel's branch on its wrap is flagged. Two hand-built
//! functions, a table lookup indexed by a secret byte and a branch on a secret bit, must be flagged.

use asmgen::isa::riscv64::{mem, regs::*, Riscv64};
use asmgen::{Abi, Builder, CType, Function};
use asmgen_kernels::catalog::RISCV64_SETS;
use asmgen_tests::ct::{self, Checked, LEAKY};

/// Every riscv64 kernel, general and fixed-size, through the checker at VLEN 128 and 256 (under qemu 128).
fn check_all(secret_ctr: bool) -> Checked {
    let vlens: &[usize] = if asmgen_tests::SLOW_TARGET { &[128] } else { &[128, 256] };
    ct::check_all(RISCV64_SETS, &[Abi::Lp64d], vlens, secret_ctr)
}

#[test]
fn every_riscv64_kernel_is_constant_time() {
    let c = check_all(false);
    assert!(c.general > 25 && c.fixed > 10, "only {} + {} fixed runs", c.general, c.fixed);
    assert!(c.lines.is_empty(), "constant-time violations:\n{}", c.lines.join("\n"));
}

#[test]
fn with_a_secret_counter_only_its_wrap_branch_is_flagged() {
    let lines = check_all(true).lines;
    // The vector CTR kernel branches on whether the low counter word wraps within a batch.
    assert!(!lines.is_empty());
    for l in &lines {
        assert!(l.contains("_ctr_") && l.ends_with("branch on a secret"), "{l}");
    }
}

/// `f(table, key)`: loads a secret doubleword from `key` into t0 and then does `body`.
fn hand_built(body: impl Fn(&mut Builder<Riscv64>)) -> Function<Riscv64> {
    let mut b = Builder::<Riscv64>::new("leaky", Abi::Lp64d, &[]);
    let table = b.param("table", CType::ConstBytePtr);
    let key = b.param("key", CType::ConstBytePtr);
    assert_eq!((table, key), (A0, A1));
    b.ld(T0, mem(A1, 0));
    body(&mut b);
    b.finish().unwrap()
}

#[test]
fn a_lookup_indexed_by_a_secret_byte_is_flagged() {
    let f = hand_built(|b| {
        b.andi(T0, T0, 15);
        b.add(T1, A0, T0);
        b.lbu(T2, mem(T1, 0));
    });
    let found = ct::run(&f, LEAKY, 0, false, 128);
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("lbu")), "{found:?}");
    // The same lookup with a public index is not.
    let f = hand_built(|b| {
        b.li(T0, 3);
        b.add(T1, A0, T0);
        b.lbu(T2, mem(T1, 0));
    });
    assert_eq!(ct::run(&f, LEAKY, 0, false, 128), vec![]);
}

#[test]
fn a_branch_on_a_secret_bit_is_flagged() {
    let f = hand_built(|b| {
        let skip = b.label("skip");
        b.andi(T0, T0, 1);
        b.beqz(T0, &skip);
        b.addi(T1, T1, 1);
        b.bind(&skip);
    });
    let found = ct::run(&f, LEAKY, 0, false, 128);
    assert!(found.iter().any(|f| f.what.starts_with("branch") && f.inst.starts_with("beqz")), "{found:?}");
}
