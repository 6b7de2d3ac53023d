//! The constant-time checker (`asmgen::sem::ct`) over every x86_64 kernel: each function of each set, and each
//! fixed-size variant the JIT builds (one harness for all ISAs: `asmgen_tests::ct`), is interpreted from its
//! description (System V and Win64) for a few block counts with its secret buffers tainted (per parameter name,
//! `asmgen::sem::ct::PARAMS`: keys, round keys, key tables, hash and chaining state, plaintext, tweak, MAC;
//! pointers and lengths are public), and must branch on no secret flag and address no memory through a secret
//! register. The CTR/CCM counter (`ctr`) is public (a nonce, sent in clear): the CTR kernels branch on the carry
//! out of its low 64 bits, which `with_a_secret_counter_only_the_carry_branch_is_flagged` pins down. Two hand-built
//! functions, a table lookup indexed by a secret byte and a branch on a secret bit, must be flagged; a chain through
//! every zmm entry carries a secret to an address (flagged) unless zeroed on the way. The portable
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

/// `f(table, key)` through every zmm entry: the secret `key` (broadcast) and `table` flow through the chain into
/// zmm16, whose top qword (by `vextracti64x4`, `vpextrq`) indexes a load; with `clear`, zmm16 is zeroed first
/// (`vpxorq` with itself, a zeroing idiom) and nothing is secret any more.
fn zmm_chain(clear: bool) -> Function<X86_64> {
    use asmgen::isa::x86_64::{X86Feature, Xmm};
    let mut b = Builder::<X86_64>::new("zmm_chain", Abi::SysV, <X86Feature as asmgen::Feature>::ALL);
    let (table, key) = (b.param(LEAKY[0].0, LEAKY[0].1), b.param(LEAKY[1].0, LEAKY[1].1));
    let z = zmm;
    b.vmovdqu64(z(1), mem(table, 0));
    b.vbroadcasti32x4(z(2), mem(key, 0));
    b.vpxorq(z(3), z(1), z(2));
    b.vpternlogq(z(3), z(1), z(2), 0x96);
    b.vpclmulqdq(z(4), z(3), z(1), 0x11);
    b.vpshufb(z(5), z(4), z(2));
    b.vpslldq(z(6), z(5), 4).vpsrldq(z(7), z(6), 3).vpsllq(z(8), z(7), 1).vpsrlq(z(9), z(8), 2);
    b.vshufi64x2(z(10), z(9), z(9), 0x4e);
    b.vaesenclast(z(11), z(10), z(1));
    b.vgf2p8affineqb(z(12), z(11), z(2), 0x63).vgf2p8affineinvqb(z(13), z(12), z(2), 0);
    b.vpbroadcastd(z(14), mem(key, 4)).vpaddq(z(15), z(13), z(14));
    b.vpaddd(z(18), z(15), z(2)).vpandq(z(19), z(18), z(1)).vprold(z(20), z(19), 7).vpshufd(z(21), z(20), 0x1b);
    b.vpunpckldq(z(22), z(21), z(1)).vpunpckhdq(z(23), z(22), z(2));
    b.vpunpcklqdq(z(24), z(23), z(1)).vpunpckhqdq(z(25), z(24), z(2));
    b.vextracti64x4(ymm(15), z(25), 1);
    b.vinserti64x4(z(16), z(31), ymm(15), 1);
    b.vmovdqu64(mem(table, 64), z(16));
    b.vmovdqu64(z(17), mem(table, 64));
    if clear {
        b.vpxorq(z(17), z(17), z(17));
    }
    b.vextracti64x4(ymm(14), z(17), 1);
    b.vpextrq(RAX, Xmm(14), 1);
    b.and(RAX, 31);
    b.mov(RCX, mem_index(table, RAX, 8, 0));
    b.vzeroupper();
    b.finish().unwrap()
}

#[test]
fn secrets_flow_through_the_zmm_entries() {
    let found = ct::run(&zmm_chain(false), LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("mov_load")), "{found:?}");
    assert!(found.iter().all(|f| f.inst.starts_with("mov_load")), "{found:?}");
    assert_eq!(ct::run(&zmm_chain(true), LEAKY, 0, false, ()), vec![]);
}

/// The registers `mul` and `mulx` use without naming them carry taint as named ones do: a secret in rax (`mul`) or
/// rdx (`mulx`) reaches the product, and the product indexing a load is flagged; public factors are not.
#[test]
fn secrets_flow_through_implicit_registers() {
    let indexed_by = |b: &mut Builder<X86_64>, r| {
        b.and(r, 31);
        b.mov(RCX, mem_index(RDI, r, 8, 0));
    };
    let mul = |secret: bool| {
        hand_built(move |b| {
            if !secret {
                b.mov(RAX, 3);
            }
            b.mov(RCX, 0x1_0001);
            b.mul(RCX);
            // The high half: secret only through mul's implicit write of rdx.
            indexed_by(b, RDX);
        })
    };
    // As `hand_built`, with BMI2 allowed.
    let mulx = |secret: bool| {
        let mut b = Builder::<X86_64>::new("leaky", Abi::SysV, &[asmgen::isa::x86_64::X86Feature::Bmi2]);
        let (table, key) = (b.param(LEAKY[0].0, LEAKY[0].1), b.param(LEAKY[1].0, LEAKY[1].1));
        assert_eq!((table, key), (RDI, RSI));
        b.mov(RAX, mem(RSI, 0));
        b.mov(RDX, if secret { RAX.into() } else { asmgen::isa::x86_64::Ri64::from(5) });
        b.mov(RCX, 7);
        b.mulx(R8, R9, RCX);
        indexed_by(&mut b, R9);
        b.finish().unwrap()
    };
    for (name, f) in [("mul", &mul as &dyn Fn(bool) -> Function<X86_64>), ("mulx", &mulx)] {
        let found = ct::run(&f(true), LEAKY, 0, false, ());
        assert!(found.iter().any(|f| f.what.starts_with("memory address")), "{name}: {found:?}");
        assert_eq!(ct::run(&f(false), LEAKY, 0, false, ()), vec![], "{name}");
    }
}

/// A conditional move on secret flags is no branch (not flagged), but what it picks is secret: an access through
/// it is flagged. A signed branch (`jg`) and `bsf` (variable-time) on a secret are flagged; 32-bit forms carry
/// the taint as the 64-bit ones do.
#[test]
fn a_cmov_on_secret_flags_is_not_flagged_but_its_result_is_secret() {
    let f = hand_built(|b| {
        b.cmp(RAX, 5);
        b.mov(RDX, RDI);
        b.cmovb(RDX, RSI);
        b.mov(RCX, mem(RDX, 0));
    });
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().all(|f| !f.inst.starts_with("cmovb")), "{found:?}");
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("mov_load")), "{found:?}");
    let f = hand_built(|b| {
        let skip = b.label("skip");
        b.mov(RCX.d(), RAX.d());
        b.add(RCX.d(), 3);
        b.cmp(RCX.d(), 7);
        b.jg(&skip);
        b.bind(&skip);
        b.bsf(RDX, RAX);
    });
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("branch") && f.inst.starts_with("jg")), "{found:?}");
    assert!(found.iter().any(|f| f.what.starts_with("variable-time") && f.inst.starts_with("bsf")), "{found:?}");
}

/// The checker follows a `call` into its subroutine and back: a branch there on secret flags set before the call
/// is flagged, and the pushed return address is no secret.
#[test]
fn a_branch_on_secret_flags_in_a_subroutine_is_flagged() {
    use asmgen::ir::{Inst, Item};
    use asmgen::isa::x86_64::{Op, Operand};
    let mut f = hand_built(|b| {
        b.test(RAX, RAX);
    });
    let (sub, skip, end) = (asmgen::Label::named("sub"), asmgen::Label::named("skip"), asmgen::Label::named("end"));
    let inst = |op, operands: Vec<Operand>| Item::Inst(Inst { op, operands: operands.into() });
    f.body.extend([
        inst(Op::call, vec![Operand::Label(sub.clone())]),
        inst(Op::jmp, vec![Operand::Label(end.clone())]),
        Item::Label(sub),
        inst(Op::jz, vec![Operand::Label(skip.clone())]),
        Item::Label(skip),
        inst(Op::ret, vec![]),
        Item::Label(end),
    ]);
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("branch") && f.inst.starts_with("jz")), "{found:?}");
    assert!(found.iter().all(|f| f.inst.starts_with("jz")), "{found:?}");
}

/// Secret flags saved with `pushfq` and restored with `popfq` stay secret: a branch on them is flagged.
#[test]
fn flags_through_the_stack_stay_secret() {
    use asmgen::ir::{Inst, Item};
    use asmgen::isa::x86_64::{Op, Operand};
    let mut f = hand_built(|b| {
        b.test(RAX, RAX);
    });
    let skip = asmgen::Label::named("skip");
    let inst = |op, operands: Vec<Operand>| Item::Inst(Inst { op, operands: operands.into() });
    f.body.extend([
        inst(Op::pushfq, vec![]),
        inst(Op::xor32, vec![Operand::Gpr32(1), Operand::Gpr32(1)]),
        inst(Op::popfq, vec![]),
        inst(Op::jz, vec![Operand::Label(skip.clone())]),
        Item::Label(skip),
    ]);
    let found = ct::run(&f, LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("branch") && f.inst.starts_with("jz")), "{found:?}");
}

/// The string instructions, `jrcxz` and the merging-mask store: a secret `rep` count is variable time and a
/// `jrcxz` on a secret rcx a secret branch (a public count is neither); `movsq` carries the secret bytes it copies
/// and a secret opmask taints the bytes a masked store writes, so an index loaded back from them is flagged.
#[test]
fn string_instructions_jrcxz_and_masked_stores_carry_and_flag_secrets() {
    let count = |secret: bool| {
        hand_built(move |b| {
            if !secret {
                b.mov(RAX, 3);
            }
            b.mov(RCX, RAX).and(RCX, 7).rep_stosb();
        })
    };
    let found = ct::run(&count(true), LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("variable-time") && f.inst.starts_with("rep_stosb")), "{found:?}");
    assert_eq!(ct::run(&count(false), LEAKY, 0, false, ()), vec![]);
    let branch = hand_built(|b| {
        let skip = b.label("skip");
        b.mov(RCX, RAX).jrcxz(&skip).nop().bind(&skip);
    });
    let found = ct::run(&branch, LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("branch") && f.inst.starts_with("jrcxz")), "{found:?}");
    // The table's first qword made public, then overwritten by the key's (`movsq`) or by a public rax (`stosq`),
    // and read back as an index.
    let copy = |secret: bool| {
        hand_built(move |b| {
            b.xor(RDX, RDX).mov(mem(RDI, 0), RDX);
            if secret {
                b.movsq();
            } else {
                b.mov(RAX, 0).stosq();
            }
            b.mov(RDX, mem(RDI, -8)).and(RDX, 7).mov(RCX, mem_index(RDI, RDX, 8, 0));
        })
    };
    let found = ct::run(&copy(true), LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("mov_load")), "{found:?}");
    assert_eq!(ct::run(&copy(false), LEAKY, 0, false, ()), vec![]);
    // Public bytes stored under a secret mask over public memory: which bytes changed is secret.
    let masked = |secret: bool| {
        use asmgen::isa::x86_64::{regs::k, X86Feature, Zmm};
        let features = [X86Feature::Avx, X86Feature::Avx512f, X86Feature::Avx512bw];
        let mut b = Builder::<X86_64>::new("leaky", Abi::SysV, &features);
        let (_table, _key) = (b.param(LEAKY[0].0, LEAKY[0].1), b.param(LEAKY[1].0, LEAKY[1].1));
        if secret {
            b.mov(RAX, mem(RSI, 0));
        } else {
            b.mov(RAX, 5);
        }
        // The table's first 64 bytes made public (zero), then stored again under the mask.
        b.vpxorq(Zmm(0), Zmm(0), Zmm(0)).vmovdqu8(mem(RDI, 0), Zmm(0));
        b.kmovq(k(1), RAX).vmovdqu8(mem(RDI, 0).mask(k(1)), Zmm(0));
        b.mov(RDX, mem(RDI, 0)).and(RDX, 7).mov(RCX, mem_index(RDI, RDX, 8, 0));
        b.vzeroupper();
        b.finish().unwrap()
    };
    let found = ct::run(&masked(true), LEAKY, 0, false, ());
    assert!(found.iter().any(|f| f.what.starts_with("memory address") && f.inst.starts_with("mov_load")), "{found:?}");
    assert_eq!(ct::run(&masked(false), LEAKY, 0, false, ()), vec![]);
}
