//! The constant-time checker on riscv64 (`asmgen::sem::ct`, riscv64's taint rules in `ct_riscv64`): every kernel of
//! every riscv64 set, and each fixed-size variant the JIT builds (`asmgen_tests::ct`), is interpreted from its
//! description (LP64D) at VLEN 128 and 256 for a few block counts with its secret buffers tainted (per parameter
//! name, `asmgen::sem::ct::PARAMS`), and must branch on no secret, address no memory through a secret register and
//! set no vector length from a secret. The counter (`ctr`) is public; with it tainted only the vector CTR kernel's
//! branch on its wrap is flagged. Two hand-built functions, a table lookup indexed by a secret byte and a branch on
//! a secret bit, must be flagged.

use asmgen::isa::riscv64::{mem, regs::*, Riscv64, RvFeature, VType, V};
use asmgen::{Abi, Builder, Function};
use asmgen_kernels::catalog::RISCV64_SETS;
use asmgen_tests::ct::{self, LEAKY};

/// Every riscv64 set (LP64D) at VLEN 128 and 256 (under qemu 128). The vector CTR kernel branches on whether the
/// low counter word wraps within a batch.
const PLAN: ct::Plan<Riscv64> = ct::Plan {
    sets: RISCV64_SETS,
    abis: &[Abi::Lp64d],
    models: if asmgen_tests::SLOW_TARGET { &[128] } else { &[128, 256] },
    at_least: (25, 10),
    counter_branch: ("_ctr_", "branch on a secret"),
};

#[test]
fn every_riscv64_kernel_is_constant_time() {
    PLAN.every_kernel_is_clean();
}

#[test]
fn with_a_secret_counter_only_its_wrap_branch_is_flagged() {
    PLAN.with_a_secret_counter_only_its_branch_is_flagged();
}

/// `f(table, key)`: loads a secret doubleword from `key` into t0 and then does `body`.
fn hand_built(body: impl Fn(&mut Builder<Riscv64>)) -> Function<Riscv64> {
    ct::leaky::<Riscv64>(Abi::Lp64d, |b, table, key| {
        assert_eq!((table, key), (A0, A1));
        b.ld(T0, mem(A1, 0));
        body(b);
    })
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

#[test]
fn a_branch_on_a_signed_comparison_with_a_secret_is_flagged() {
    let f = hand_built(|b| {
        let skip = b.label("skip");
        b.blt(T0, ZERO, &skip);
        b.addi(T1, T1, 1);
        b.bind(&skip);
    });
    let found = ct::run(&f, LEAKY, 0, false, 128);
    assert!(found.iter().any(|f| f.what.starts_with("branch") && f.inst.starts_with("blt")), "{found:?}");
}

/// As [`hand_built`], the vector extension allowed and the vector type e32, m1 with vl 4 set first.
fn hand_built_v(body: impl Fn(&mut Builder<Riscv64>)) -> Function<Riscv64> {
    let mut b = Builder::<Riscv64>::new("leaky", Abi::Lp64d, &[RvFeature::V]);
    let (table, key) = (b.param(LEAKY[0].0, LEAKY[0].1), b.param(LEAKY[1].0, LEAKY[1].1));
    assert_eq!((table, key), (A0, A1));
    b.vsetivli(ZERO, 4, VType { sew: 32, lmul: 1 });
    b.ld(T0, mem(A1, 0));
    body(&mut b);
    b.finish().unwrap()
}

#[test]
fn a_strided_access_with_a_secret_stride_is_flagged() {
    let f = hand_built_v(|b| {
        b.andi(T0, T0, 4);
        b.vlse32_v(V(1), A0, T0);
    });
    let found = ct::run(&f, LEAKY, 0, false, 128);
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("vlse32")), "{found:?}");
    // A public stride is not; the secret bytes it loads taint the destination (a branch on them is flagged).
    let f = hand_built_v(|b| {
        let skip = b.label("skip");
        b.li(T0, 4);
        b.vlse32_v(V(1), A1, T0);
        b.vmv_x_s(T1, V(1));
        b.beqz(T1, &skip);
        b.bind(&skip);
    });
    let found = ct::run(&f, LEAKY, 0, false, 128);
    assert!(found.iter().all(|f| !f.what.starts_with("memory address")), "{found:?}");
    assert!(found.iter().any(|f| f.what.starts_with("branch") && f.inst.starts_with("beqz")), "{found:?}");
}

#[test]
fn a_secret_mask_taints_what_a_masked_instruction_writes() {
    let body = |secret_mask: bool| {
        move |b: &mut Builder<Riscv64>| {
            let skip = b.label("skip");
            if secret_mask {
                b.vle32_v(V(0), A1);
            } else {
                b.vmv_v_i(V(0), 5);
            }
            b.vmv_v_i(V(1), 0);
            b.vmerge_vim(V(2), V(1), 1);
            b.vmv_x_s(T1, V(2));
            b.beqz(T1, &skip);
            b.bind(&skip);
        }
    };
    let found = ct::run(&hand_built_v(body(true)), LEAKY, 0, false, 128);
    assert!(found.iter().any(|f| f.what.starts_with("branch") && f.inst.starts_with("beqz")), "{found:?}");
    assert_eq!(ct::run(&hand_built_v(body(false)), LEAKY, 0, false, 128), vec![]);
}

#[test]
fn an_indexed_load_with_secret_indices_is_flagged() {
    let lookup = |secret: bool| {
        hand_built_v(move |b| {
            if secret {
                b.vle32_v(V(1), A1);
            } else {
                b.vid_v(V(1));
            }
            b.vand_vi(V(1), V(1), 15);
            b.vluxei8_v(V(2), A0, V(1));
        })
    };
    let found = ct::run(&lookup(true), LEAKY, 0, false, 128);
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("vluxei8")), "{found:?}");
    assert_eq!(ct::run(&lookup(false), LEAKY, 0, false, 128), vec![]);
}

#[test]
fn a_vector_shift_by_a_secret_amount_is_flagged() {
    let f = hand_built_v(|b| {
        b.vid_v(V(1));
        b.vsll_vx(V(2), V(1), T0);
    });
    let found = ct::run(&f, LEAKY, 0, false, 128);
    assert!(found.iter().any(|f| f.what.starts_with("shift") && f.inst.starts_with("vsll")), "{found:?}");
}
