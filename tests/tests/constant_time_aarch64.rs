//! The constant-time checker on aarch64 (`asmgen::sem::ct`, aarch64's taint rules in `ct_aarch64`): every aarch64
//! kernel of every set, and each fixed-size variant the JIT builds (`asmgen_tests::ct`), is interpreted from its
//! description (AAPCS64) for a few block counts with its secret buffers tainted (per parameter name,
//! `asmgen::sem::ct::PARAMS`), and must branch on no secret flag or register and address no memory through a secret
//! register. With the counter tainted too only the CTR carry branches are flagged. Hand-built functions, table
//! lookups indexed by a secret byte (through the base or the index register) and branches on a secret bit, must
//! be flagged; their public twins must not. The interpreter does not depend on the host, so the emulated riscv64 runs of `cargo xtask cross` leave this
//! out (it runs natively and under qemu-aarch64).
#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

use asmgen::isa::aarch64::{regs::*, Aarch64};
use asmgen::{Abi, Builder, Function};
use asmgen_kernels::catalog::AARCH64_SETS;
use asmgen_tests::ct::{self, LEAKY};

/// Every aarch64 set (AAPCS64).
const PLAN: ct::Plan<Aarch64> = ct::Plan {
    sets: AARCH64_SETS,
    abis: &[Abi::Aapcs64],
    models: &[()],
    at_least: (50, 10),
    counter_branch: ("_ctr", "branch on secret flags"),
};

#[test]
fn every_aarch64_kernel_is_constant_time() {
    PLAN.every_kernel_is_clean();
}

#[test]
fn with_a_secret_counter_only_the_carry_branch_is_flagged() {
    PLAN.with_a_secret_counter_only_its_branch_is_flagged();
}

/// `f(table, key)`: loads a secret doubleword from `key` into x2 and then does `body`.
fn hand_built(body: impl Fn(&mut Builder<Aarch64>)) -> Function<Aarch64> {
    ct::leaky::<Aarch64>(Abi::Aapcs64, |b, table, key| {
        assert_eq!((table, key), (X0, X1));
        b.ldr(X2, X1, 0);
        body(b);
    })
}

#[test]
fn a_lookup_indexed_by_a_secret_byte_is_flagged() {
    let f = hand_built(|b| {
        b.lsr(X2, X2, 59);
        b.add_lsl(X3, X0, X2, 3);
        b.ldr(X4, X3, 0);
    });
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("ldr_x")), "{found:?}");
    // The same lookup with a public index is not.
    let f = hand_built(|b| {
        b.movz(X2, 3);
        b.add_lsl(X3, X0, X2, 3);
        b.ldr(X4, X3, 0);
    });
    assert_eq!(ct::run(&f, LEAKY, 0, false, ()), vec![]);
}

#[test]
fn a_branch_on_a_secret_bit_is_flagged() {
    let f = hand_built(|b| {
        let skip = b.label("skip");
        b.lsr(X2, X2, 63);
        b.cmp(X2, 0);
        b.b_eq(&skip);
        b.add(X3, X3, 1);
        b.bind(&skip);
    });
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what == "branch on secret flags" && f.inst.starts_with("b_eq")), "{found:?}");
    let f = hand_built(|b| {
        let skip = b.label("skip");
        b.cbz(X2, &skip);
        b.movz(X3, 1);
        b.bind(&skip);
    });
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what == "branch on a secret register"), "{found:?}");
}

#[test]
fn a_select_on_secret_flags_is_not_flagged_but_its_result_is_secret() {
    // csel picks a pointer by the secret's flags: no branch, but an access through the pick leaks.
    let f = hand_built(|b| {
        b.cmp(X2, 0);
        b.csel_eq(X3, X0, X1);
        b.ldrb(X4, X3, 0);
    });
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().all(|f| !f.inst.starts_with("csel")), "{found:?}");
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("ldrb")), "{found:?}");
    // Storing the pick (secret data) at a public address is clean.
    let f = hand_built(|b| {
        b.cmp(X2, 0);
        b.csel_ne(X3, X0, X1);
        b.strb(X3, X0, 0);
    });
    assert_eq!(ct::run(&f, LEAKY, 0, false, ()), vec![]);
}

#[test]
fn a_byte_lookup_indexed_by_a_secret_byte_is_flagged() {
    let lookup = |secret: bool| {
        hand_built(move |b| {
            // A byte of the key (secret), cut to 0..=15, or a constant indexes the table.
            if secret {
                b.ldrb(X4, X1, 1);
                b.lsr(X4, X4, 4);
            } else {
                b.movz(X4, 5);
            }
            b.add(X5, X0, X4);
            b.ldrb(X6, X5, 0);
        })
    };
    let found = ct::run(&lookup(true), LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("ldrb")), "{found:?}");
    assert_eq!(ct::run(&lookup(false), LEAKY, 0, false, ()), vec![]);
}

#[test]
fn a_register_offset_lookup_by_a_secret_index_is_flagged() {
    let lookup = |secret: bool| {
        hand_built(move |b| {
            // The index register of `ldrb w, [x, x]` (not its base) holds a byte of the key, or a constant.
            if secret {
                b.ldrb(X4, X1, 1);
            } else {
                b.movz(X4, 5);
            }
            b.ldrb_reg(X6, X0, X4);
        })
    };
    let found = ct::run(&lookup(true), LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("ldrb_reg")), "{found:?}");
    assert_eq!(ct::run(&lookup(false), LEAKY, 0, false, ()), vec![]);
}

/// A word lookup `ldr w, [x, x]` (the T-table form): a secret index, masked by a 32-bit logical immediate, is
/// flagged; a public one is not.
#[test]
fn a_register_offset_word_lookup_by_a_secret_index_is_flagged() {
    let lookup = |secret: bool| {
        hand_built(move |b| {
            if secret {
                b.and_w_lsr(X4, X2, X2, 8);
            } else {
                b.movz(X4, 5);
            }
            b.and_w_imm(X4, X4, 0x3c_u32);
            b.ldr_w_reg(X6, X0, X4);
        })
    };
    let found = ct::run(&lookup(true), LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("ldr_w_reg")), "{found:?}");
    assert_eq!(ct::run(&lookup(false), LEAKY, 0, false, ()), vec![]);
}

#[test]
fn a_bit_test_branch_on_a_secret_is_flagged_and_eor_with_itself_clears_the_taint() {
    let branch = |clear: bool| {
        hand_built(move |b| {
            let skip = b.label("skip");
            if clear {
                b.eor_w(X2, X2, X2);
            }
            b.tbz_w(X2, 3, &skip);
            b.movz(X3, 1);
            b.bind(&skip);
        })
    };
    let found = ct::run(&branch(false), LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what == "branch on a secret register" && f.inst.starts_with("tbz_w")), "{found:?}");
    assert_eq!(ct::run(&branch(true), LEAKY, 0, false, ()), vec![]);
}
