//! The riscv64 instruction semantics (`asmgen::sem::riscv64`) checked against the CPU (qemu in `cargo xtask
//! cross riscv64`, at the VLENs its runs set): every table entry the CPU executes (branches, `lla`, `ret` and
//! `nop` aside: label operands and the return) is lowered by the JIT into a harness built with the builder, which
//! loads a random state (the temporaries and a1..a7, v0..v31, vl and vtype of a random legal type), runs the one
//! instruction and stores the state back; the model runs on the same state and both must agree bit for bit,
//! except the destination group's tail (elements at and past vl: `ta` lets the CPU write ones there). A mismatch
//! names the entry and operands. The negative test runs the comparison on a doctored model and requires it to
//! be caught.
#![cfg(all(target_arch = "riscv64", target_os = "linux"))]

use asmgen::isa::riscv64::{mem, Op, Operand, Riscv64, RvFeature, VType, VTypePol, OPS, X};
use asmgen::sem::riscv64::{sem, Machine, State};
use asmgen::{Abi, Builder};
use asmgen_tests::semantics::{self, Diff, Exec, Isa, Scratch};
use asmgen_tests::Rng;

/// The registers the random operands use (a0 holds the state's address): t0..t2, a1..a6, t3..t6.
const XS: [u8; 13] = [5, 6, 7, 11, 12, 13, 14, 15, 16, 28, 29, 30, 31];
/// The register scalar and vector memory operands use as base: a7, pointing into the buffer.
const BASE: u8 = 17;
const BUF: usize = 1024;

/// The state as the harness reads and writes it: x registers, vl, vector registers (VLEN at most 1024).
#[repr(C)]
struct Raw {
    x: [u64; 32],
    vl: u64,
    v: [u8; 32 * 128],
}
const VL_OFF: i32 = 256;
const V_OFF: i32 = 264;

fn vlenb() -> usize {
    let v: usize;
    // SAFETY: reads the vlenb CSR (0xc22), which has no side effect; only called where V is present.
    unsafe { std::arch::asm!("csrr {0}, 0xc22", out(reg) v) };
    v
}

fn hwprobe_ext0() -> u64 {
    let mut pair = [4i64, 0];
    // SAFETY: riscv_hwprobe(pairs, 1, 0, NULL, 0) writes only the one pair it is given.
    let r = unsafe { libc::syscall(258, pair.as_mut_ptr(), 1usize, 0usize, 0usize, 0u32) };
    if r == 0 {
        pair[1] as u64
    } else {
        0
    }
}

fn cpu_has(f: RvFeature) -> bool {
    let e = hwprobe_ext0();
    match f {
        RvFeature::Zbb => e & (1 << 4) != 0,
        RvFeature::Zbc => e & (1 << 7) != 0,
        RvFeature::Zbkb => e & (1 << 8) != 0,
        RvFeature::Zksed => e & (1 << 14) != 0,
        RvFeature::V => e & (1 << 2) != 0,
        RvFeature::Zvbc => e & (1 << 18) != 0,
        RvFeature::Zvkb => e & (1 << 19) != 0,
        RvFeature::Zvkg => e & (1 << 20) != 0,
        RvFeature::Zvksed => e & (1 << 24) != 0,
        RvFeature::Zbkx => e & (1 << 10) != 0,
        RvFeature::Zknd => e & (1 << 11) != 0,
        RvFeature::Zkne => e & (1 << 12) != 0,
        RvFeature::Zknh => e & (1 << 13) != 0,
        RvFeature::Zksh => e & (1 << 15) != 0,
        RvFeature::Zvbb => e & (1 << 17) != 0,
        RvFeature::Zvkned => e & (1 << 21) != 0,
        // As the runtime detects it: Zvknhb has Zvknha's forms too.
        RvFeature::Zvknha => e & (3 << 22) != 0,
        RvFeature::Zvknhb => e & (1 << 23) != 0,
        RvFeature::Zvksh => e & (1 << 25) != 0,
    }
}

/// Entries not checked here: label operands, the return, no effect.
fn skipped(op: Op) -> bool {
    let info = &OPS[op as usize];
    info.kinds.contains(&"Target") || matches!(op, Op::ret | Op::nop)
}

/// The register operands give strided loads and stores as stride: a6, set to a small multiple of the element
/// size in each state.
const STRIDE: u8 = 16;

fn strided(op: Op) -> bool {
    segment(op) || matches!(op, Op::vlse32_v | Op::vlse64_v | Op::vsse32_v | Op::vsse64_v)
}

/// Segment accesses: eight registers from the one named (at LMUL 1).
fn segment(op: Op) -> bool {
    matches!(op, Op::vlsseg8e32_v | Op::vssseg8e32_v)
}

/// The registers a whole-register move copies (its operands then groups of as many).
fn whole(op: Op) -> Option<u32> {
    match op {
        Op::vmv1r_v => Some(1),
        Op::vmv2r_v => Some(2),
        Op::vmv4r_v => Some(4),
        Op::vmv8r_v => Some(8),
        _ => None,
    }
}

/// Widening entries: the destination a group of 2 LMUL registers of 2 SEW-bit elements.
fn widening(op: Op) -> bool {
    matches!(op, Op::vwsll_vv | Op::vwsll_vx | Op::vwsll_vi)
}

/// Whether an entry reads the mask in v0 (masked forms, `vmerge`): no operand of it is then v0's group.
fn reads_v0(op: Op) -> bool {
    OPS[op as usize].syntax.contains("v0")
}

/// The elements of an element group the entry works on (1: none).
fn egs(op: Op) -> usize {
    let fs = OPS[op as usize].features;
    if fs.contains(&RvFeature::Zvksh) {
        8
    } else if fs
        .iter()
        .any(|f| matches!(f, RvFeature::Zvkg | RvFeature::Zvksed | RvFeature::Zvkned | RvFeature::Zvknha))
    {
        4
    } else {
        1
    }
}

/// The vector type an entry needs (or a random one).
fn vtype(rng: &mut Rng, op: Op) -> VType {
    let fs = OPS[op as usize].features;
    let sew = match op {
        Op::vle32_v | Op::vse32_v | Op::vlse32_v | Op::vsse32_v => 32,
        Op::vle64_v | Op::vse64_v | Op::vlse64_v | Op::vsse64_v => 64,
        Op::vle8_v | Op::vse8_v => 8,
        Op::vlsseg8e32_v | Op::vssseg8e32_v => 32,
        _ if widening(op) => 8 << rng.below(3),
        Op::vzext_vf2 | Op::vsext_vf2 => 16 << rng.below(3),
        Op::vzext_vf4 => 32 << rng.below(2),
        Op::vclmul_vv | Op::vclmulh_vv | Op::vclmul_vx | Op::vclmulh_vx | Op::vclmul_vx_v0t => 64,
        _ if fs.contains(&RvFeature::Zvknha) => 32 << rng.below(2),
        _ if egs(op) > 1 => 32,
        _ => 8 << rng.below(4),
    };
    // A 256-bit element group (SM3, SHA-512) needs LMUL 2 at VLEN 128; strided accesses stay in the buffer.
    let lmul = if egs(op) * sew as usize > 128 {
        2 << rng.below(3)
    } else if segment(op) {
        1
    } else if let Some(nr) = whole(op) {
        nr
    } else if strided(op) || widening(op) {
        1 << rng.below(2 + widening(op) as usize)
    } else {
        1 << rng.below(4)
    };
    VType { sew, lmul }
}

/// Random operands; vector registers are distinct groups aligned to LMUL.
fn operands(rng: &mut Rng, op: Op, t: VType) -> Vec<Operand> {
    // Groups of 2 LMUL registers for a widening entry (its sources too, aligned all the same).
    let size = t.lmul as u8 * if widening(op) { 2 } else { 1 };
    let first = reads_v0(op) as u8;
    let mut groups: Vec<u8> = (first..32 / size).map(|g| g * size).collect();
    let x = |rng: &mut Rng| Operand::X(XS[rng.below(XS.len())]);
    OPS[op as usize]
        .kinds
        .iter()
        .map(|k| match *k {
            "Xr" if strided(op) => Operand::X(STRIDE),
            "Xr" => x(rng),
            "Vr" if segment(op) => Operand::V(rng.below(25) as u8),
            "Vr" | "Vr2" | "Vr4" | "Vr8" => Operand::V(groups.remove(rng.below(groups.len()))),
            "Simm12" => Operand::Imm(rng.below(4096) as i64 - 2048),
            "Shamt" if op == Op::vror_vi => Operand::Imm(rng.below(t.sew as usize) as i64),
            "Shamt" => Operand::Imm(rng.below(64) as i64),
            "Uimm5" => Operand::Imm(rng.below(32) as i64),
            "Simm5" => Operand::Imm(rng.below(32) as i64 - 16),
            "Bs" => Operand::Imm(rng.below(4) as i64),
            "Rnum" => Operand::Imm(rng.below(11) as i64),
            "Uimm20" => Operand::Imm(rng.below(1 << 20) as i64),
            "M" => Operand::Mem(mem(X(BASE), rng.below(129) as i32 - 64)),
            "VAddr" => Operand::Base(BASE),
            "VTypeI" => Operand::VType(vtype(rng, op)),
            "VTypeP" => {
                // tu, mu or both (`ta, ma` is the plain entry's).
                let p = 1 + rng.below(3);
                Operand::VTypePol(VTypePol {
                    vtype: vtype(rng, op),
                    tail_undisturbed: p & 1 == 1,
                    mask_undisturbed: p & 2 == 2,
                })
            }
            k => panic!("no generator for kind {k}"),
        })
        .collect()
}

/// A harness `f(raw)`: loads the state, sets vl and the type, runs `op`, stores the state back.
fn harness(op: Op, ops: &[Operand], t: VType, vector: bool) -> Vec<u8> {
    use asmgen::isa::riscv64::regs::*;
    use asmgen::Feature;
    let all: Vec<RvFeature> = RvFeature::ALL.to_vec();
    let mut b = Builder::<Riscv64>::new("one", Abi::Lp64d, &all);
    let whole = VType { sew: 32, lmul: 8 };
    let regs = |b: &mut Builder<Riscv64>, store: bool| {
        b.vsetvli(T1, ZERO, whole);
        b.addi(T0, A0, V_OFF);
        b.slli(T1, T1, 2);
        for g in [0, 8, 16, 24] {
            if store {
                b.vse32_v(asmgen::isa::riscv64::regs::v(g), T0)
            } else {
                b.vle32_v(asmgen::isa::riscv64::regs::v(g), T0)
            };
            b.add(T0, T0, T1);
        }
    };
    if vector {
        regs(&mut b, false);
        b.ld(T0, mem(A0, VL_OFF));
        b.vsetvli(ZERO, T0, t);
    }
    for r in XS.iter().chain([&BASE]) {
        b.ld(X(*r), mem(A0, 8 * *r as i32));
    }
    b.inst(op, ops.to_vec());
    for r in XS.iter().chain([&BASE]) {
        b.sd(X(*r), mem(A0, 8 * *r as i32));
    }
    if vector {
        regs(&mut b, true);
    }
    let f = b.finish().unwrap();
    let image = asmgen::lower::lower(&[&f]).unwrap();
    let sym = image.symbol("one").unwrap();
    image.bytes[sym.offset..sym.offset + sym.len].to_vec()
}

/// Zeroes the destination group's tail (elements at and past vl) in `v`.
fn mask_tail(v: &mut [u8], vlenb: usize, op: Op, ops: &[Operand], t: VType, vl: usize) {
    let stores = matches!(
        op,
        Op::vse32_v | Op::vse64_v | Op::vse8_v | Op::vsse32_v | Op::vsse64_v | Op::vssseg8e32_v | Op::vsuxei8_v
    );
    let (Some(Operand::V(d)), false) = (ops.first(), stores) else { return };
    if matches!(op, Op::vmseq_vi | Op::vmsgtu_vx) {
        // A mask destination: one register, its bits from vl on tail.
        for bit in vl..vlenb * 8 {
            v[*d as usize * vlenb + bit / 8] &= !(1 << (bit % 8));
        }
        return;
    }
    let (mut eew, mut regs) = match op {
        Op::vle32_v | Op::vlse32_v | Op::vlsseg8e32_v => (4, t.lmul as usize),
        Op::vle64_v | Op::vlse64_v => (8, t.lmul as usize),
        Op::vle8_v => (1, t.lmul as usize),
        _ => (t.sew as usize / 8, t.lmul as usize),
    };
    if widening(op) {
        (eew, regs) = (2 * eew, 2 * regs);
    }
    for f in 0..if segment(op) { 8 } else { 1 } {
        let start = (*d as usize + f * regs) * vlenb;
        v[start + vl * eew..start + regs * vlenb].fill(0);
    }
}

/// The riscv64 side of the comparison, with the model `M` (the real one, or a doctored one) and the CPU's
/// vector register length in bytes.
struct Rv<M> {
    model: M,
    vlenb: usize,
}

impl<M: Fn(Op, &mut Machine<'_>, &[Operand])> Rv<M> {
    fn new(model: M) -> Rv<M> {
        Rv { model, vlenb: if cpu_has(RvFeature::V) { vlenb() } else { 16 } }
    }
}

impl<M: Fn(Op, &mut Machine<'_>, &[Operand])> Isa for Rv<M> {
    type Entry = Op;
    /// The vector type and the operands.
    type Draw = (VType, Vec<Operand>);
    const SCRATCH: usize = BUF;

    fn about(&self) -> String {
        if cpu_has(RvFeature::V) {
            format!("VLEN {}: ", self.vlenb * 8)
        } else {
            String::new()
        }
    }

    fn entries(&self) -> Vec<(&'static str, Op)> {
        let runs = |op: Op| !skipped(op) && OPS[op as usize].features.iter().all(|f| cpu_has(*f));
        Op::ALL.iter().filter(|&&op| runs(op)).map(|&op| (OPS[op as usize].name, op)).collect()
    }

    fn draw(&self, rng: &mut Rng, op: Op) -> Option<(Self::Draw, Vec<u8>)> {
        let t = vtype(rng, op);
        let ops = operands(rng, op, t);
        let code = harness(op, &ops, t, OPS[op as usize].features.contains(&RvFeature::V));
        Some(((t, ops), code))
    }

    fn state(&self, rng: &mut Rng, op: Op, (t, ops): &Self::Draw, exec: &Exec, scratch: &mut Scratch) -> Diff {
        let (t, vlenb) = (*t, self.vlenb);
        let mut mem = scratch.fill(rng);
        let mut raw = Raw { x: [0; 32], vl: 0, v: [0; 32 * 128] };
        rng.fill(&mut raw.v[..32 * vlenb]);
        for r in XS {
            raw.x[r as usize] = rng.next_u64();
        }
        raw.x[BASE as usize] = scratch.addr() + BUF as u64 / 2;
        if segment(op) {
            // Segments that do not overlap: 32 to 40 bytes apart, up or down.
            let s = 32 + 4 * rng.below(3) as i64;
            raw.x[STRIDE as usize] = (if rng.below(2) == 0 { s } else { -s }) as u64;
        } else if strided(op) {
            raw.x[STRIDE as usize] = ((rng.below(7) as i64 - 3) * t.sew as i64 / 8) as u64;
        }
        let vlmax = t.lmul as usize * vlenb * 8 / t.sew as usize;
        let egs = egs(op);
        raw.vl = (rng.below(vlmax + 1) / egs * egs) as u64;
        // Segment and indexed accesses stay in the buffer and their offsets in a byte at any VLEN.
        if segment(op) {
            raw.vl = raw.vl.min(12);
        } else if op == Op::vsuxei8_v {
            raw.vl = raw.vl.min(256 / (t.sew as u64 / 8));
        }
        if let (Op::vsuxei8_v, Some(Operand::V(idx))) = (op, ops.get(2)) {
            // An unordered indexed store: offsets that do not overlap (descending), so the order does not show.
            for i in 0..raw.vl as usize {
                raw.v[*idx as usize * vlenb + i] = ((raw.vl as usize - 1 - i) * t.sew as usize / 8) as u8;
            }
        }
        let mut s = State::new(vlenb * 8);
        s.x = raw.x;
        s.v.copy_from_slice(&raw.v[..32 * vlenb]);
        (s.vl, s.sew, s.lmul) = (raw.vl, t.sew, t.lmul);
        let mut m = Machine { state: s, mem: &mut mem };
        (self.model)(op, &mut m, ops);
        let vl = raw.vl as usize;
        // SAFETY: the harness reads and writes only `raw` and the buffer a7 points into, and returns.
        unsafe { exec.run(&mut raw) };
        let mut want = m.state.v.clone();
        let mut got = raw.v[..32 * vlenb].to_vec();
        mask_tail(&mut want, vlenb, op, ops, t, vl);
        mask_tail(&mut got, vlenb, op, ops, t, vl);
        let mut diff = Diff::new(format!("vl {vl}"));
        diff.regs("x", &m.state.x, &raw.x, XS.map(usize::from));
        let regs = |v: &[u8]| v.chunks(vlenb).map(<[u8]>::to_vec).collect::<Vec<_>>();
        if want != got {
            diff.regs("v", &regs(&want), &regs(&got), 0..32);
        }
        scratch.compare(&mem, &mut diff);
        diff
    }
}

fn real(op: Op, m: &mut Machine<'_>, ops: &[Operand]) {
    (sem(op).exec)(m, ops).unwrap();
}

#[test]
fn the_model_agrees_with_this_cpu() {
    semantics::assert_agree(&Rv::new(real), 6, 4);
}

#[test]
fn a_wrong_model_is_caught() {
    // The model of `xor` (and, with V, `vxor.vv`) doctored: bit 0 of the first x temporary flipped afterwards.
    let doctored = |op: Op, m: &mut Machine<'_>, ops: &[Operand]| {
        real(op, m, ops);
        match (op, &ops[0]) {
            (Op::xor, Operand::X(d)) => m.state.x[*d as usize] ^= 1,
            (Op::vxor_vv, Operand::V(d)) if m.state.vl > 0 => m.state.v[*d as usize * m.state.vlenb] ^= 1,
            _ => {}
        }
    };
    // Each state draws its own vl, and the doctored `vxor.vv` shows only when vl > 0: with 16 states, vl = 0 in
    // all of them (at most 1 in 3 each, for e64 at LMUL 1) happens about once in 4e7 runs.
    let doctored_entries: &[&str] = if cpu_has(RvFeature::V) { &["xor", "vxor_vv"] } else { &["xor"] };
    semantics::assert_caught(&Rv::new(doctored), 1, 16, doctored_entries);
}

/// `call` to a subroutine of the function and its `ret`: `call sub; addi t0, t0, 2; j end; sub: add t0, t0, t0;
/// ret; end:` run on this CPU (in a naked function that keeps its own `ra` on the stack) and by the interpreter
/// (the return from the subroutine comes back after the call), from random values: the same `t0`.
#[test]
fn call_and_ret_agree_with_this_cpu() {
    use asmgen::isa::riscv64::regs::*;
    use asmgen::sem::interp::Program;
    let body = |b: &mut Builder<Riscv64>| {
        let (sub, end) = (b.label("sub"), b.label("end"));
        b.call(&sub);
        b.addi(T0, T0, 2);
        b.j(&end);
        b.bind(&sub);
        b.add(T0, T0, T0);
        b.ret();
        b.bind(&end);
    };
    let mut b = Builder::<Riscv64>::new("calls", Abi::Lp64d, &[]);
    b.naked();
    b.addi(SP, SP, -16);
    b.sd(RA, mem(SP, 8));
    b.ld(T0, mem(A0, 0));
    body(&mut b);
    b.sd(T0, mem(A0, 0));
    b.ld(RA, mem(SP, 8));
    b.addi(SP, SP, 16);
    b.ret();
    let f = b.finish().unwrap();
    let image = asmgen::lower::lower(&[&f]).unwrap();
    let sym = image.symbol("calls").unwrap();
    let exec = Exec::new(&image.bytes[sym.offset..sym.offset + sym.len]);
    let mut model = Builder::<Riscv64>::new("model", Abi::Lp64d, &[]);
    model.naked();
    body(&mut model);
    let model = model.finish().unwrap();
    let program = Program::<Riscv64>::new(&model);
    let mut rng = Rng::new(0xca11);
    for _ in 0..64 {
        let v = rng.next_u64();
        let mut native = [v];
        // SAFETY: the function keeps ra on its stack, restores sp and touches only `native`.
        unsafe { exec.run(&mut native) };
        let mut m = Machine { state: State::new(128), mem: &mut semantics::Buffer { base: 0, bytes: vec![] } };
        m.state.x[5] = v;
        m.state.x[2] = 0x10000;
        program.run(&mut m, 100, &mut |_, _, _| {}).unwrap();
        assert_eq!(m.state.x[5], native[0], "t0 from {v:#x}");
        assert_eq!(m.state.x[5], v.wrapping_mul(2).wrapping_add(2));
    }
}
