//! The aarch64 instruction semantics (`asmgen::sem::aarch64`) checked against the CPU (under `cargo xtask
//! cross`: qemu-aarch64, `-cpu max` and the other models of its runs): every table entry the CPU executes
//! (branches, label forms and `ret` aside) is encoded by the table's own encoder (the JIT's) into a W^X harness
//! that loads a random state (x0..x30, v0..v31, NZCV, a memory buffer), runs the one instruction and stores the
//! state back; the model runs on the same state and both must agree bit for bit. A mismatch names the entry and
//! its operands. The negative test runs the comparison with a doctored model and requires it to be caught.
#![cfg(all(target_arch = "aarch64", target_os = "linux"))]

use asmgen::isa::aarch64::{Op, Operand, OPS};
use asmgen::sem::aarch64::{sem, Machine, State};
use asmgen::Feature;
use asmgen_tests::semantics::{self, Buffer, Diff, Exec, Isa, Scratch};
use asmgen_tests::Rng;

/// The state as the harness reads and writes it.
#[repr(C)]
#[derive(Clone, Copy)]
struct Raw {
    x: [u64; 32],
    v: [[u8; 16]; 32],
    nzcv: u64,
}
const V_OFF: u32 = 256;
const NZCV_OFF: u32 = 256 + 512;
/// The memory buffer; the base register of a memory operand holds `buffer + 128`.
const BUF: usize = 256;

fn cpu_has(f: &str) -> bool {
    match f {
        "pmull" => std::arch::is_aarch64_feature_detected!("pmull"),
        "aes" => std::arch::is_aarch64_feature_detected!("aes"),
        "sha3" => std::arch::is_aarch64_feature_detected!("sha3"),
        // std's `sm4` is SM3 and SM4 together.
        "sm3" | "sm4" => std::arch::is_aarch64_feature_detected!("sm4"),
        // std's `sha2` is SHA1 and SHA2 together.
        "sha1" | "sha2" => std::arch::is_aarch64_feature_detected!("sha2"),
        // std names FEAT_SHA512 together with FEAT_SHA3.
        "sha512" => std::arch::is_aarch64_feature_detected!("sha3"),
        _ => false,
    }
}

// Harness instruction words (A64 encodings; offsets in bytes).
fn ldr_x(t: u32, n: u32, off: u32) -> u32 {
    0xf9400000 | (off / 8) << 10 | n << 5 | t
}
fn str_x(t: u32, n: u32, off: u32) -> u32 {
    0xf9000000 | (off / 8) << 10 | n << 5 | t
}
fn ldr_q(t: u32, n: u32, off: u32) -> u32 {
    0x3dc00000 | (off / 16) << 10 | n << 5 | t
}
fn str_q(t: u32, n: u32, off: u32) -> u32 {
    0x3d800000 | (off / 16) << 10 | n << 5 | t
}
/// `stp a, b, [sp, #-16]!` (x or, with `d`, d registers).
fn push2(a: u32, b: u32, d: bool) -> u32 {
    (if d { 0x6d800000 } else { 0xa9800000 }) | (0x7e << 15) | b << 10 | 31 << 5 | a
}
/// `ldp a, b, [sp], #16`.
fn pop2(a: u32, b: u32, d: bool) -> u32 {
    (if d { 0x6cc00000 } else { 0xa8c00000 }) | (2 << 15) | b << 10 | 31 << 5 | a
}
const PAIRS: [(u32, u32, bool); 10] = [
    (29, 30, false),
    (19, 20, false),
    (21, 22, false),
    (23, 24, false),
    (25, 26, false),
    (27, 28, false),
    (8, 9, true),
    (10, 11, true),
    (12, 13, true),
    (14, 15, true),
];

/// Loads the state from the `Raw` at x0, runs `inst`, stores the state back; callee-saved registers kept.
fn harness(inst: &[u32]) -> Vec<u32> {
    let mut w: Vec<u32> = PAIRS.iter().map(|&(a, b, d)| push2(a, b, d)).collect();
    w.push(0xf81f0fe0); // str x0, [sp, #-16]!
    w.push(ldr_x(1, 0, NZCV_OFF));
    w.push(0xd51b4201); // msr nzcv, x1
    w.extend((0..32).map(|i| ldr_q(i, 0, V_OFF + 16 * i)));
    w.extend((1..31).map(|i| ldr_x(i, 0, 8 * i)));
    w.push(ldr_x(0, 0, 0));
    w.extend_from_slice(inst);
    w.push(0xf81f0fe0); // str x0, [sp, #-16]!
    w.push(ldr_x(0, 31, 16));
    w.extend((1..31).map(|i| str_x(i, 0, 8 * i)));
    w.push(0xf84107e1); // ldr x1, [sp], #16
    w.push(str_x(1, 0, 0));
    w.push(0xd53b4201); // mrs x1, nzcv
    w.push(str_x(1, 0, NZCV_OFF));
    w.extend((0..32).map(|i| str_q(i, 0, V_OFF + 16 * i)));
    w.push(0x910043ff); // add sp, sp, #16
    w.extend(PAIRS.iter().rev().map(|&(a, b, d)| pop2(a, b, d)));
    w.push(0xd65f03c0); // ret
    w
}

/// The harness's words as code bytes.
fn code(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Random operands for an entry, or `None` when the draw does not encode (an out-of-range immediate): X
/// registers distinct from each other and from `base`, which memory operands' base register takes.
fn operands(rng: &mut Rng, op: Op, base: u8) -> Option<(Vec<Operand>, u32)> {
    let info = &OPS[op as usize];
    let mem_base = sem(op).base;
    let mut used = vec![base];
    let x = |rng: &mut Rng, used: &mut Vec<u8>| loop {
        let r = rng.below(31) as u8;
        if !used.contains(&r) {
            used.push(r);
            return Operand::X(r);
        }
    };
    let mut ops = Vec::new();
    for (i, k) in info.kinds.iter().enumerate() {
        let imm = |rng: &mut Rng, n: usize, lo: i64| Operand::Imm(rng.below(n) as i64 + lo);
        ops.push(match *k {
            "XnSp" if mem_base == Some(i) => Operand::X(base),
            "Xn" if rng.below(16) == 0 => Operand::Xzr,
            "Xn" | "Xm" | "XnSp" => x(rng, &mut used),
            "Wn" if rng.below(16) == 0 => Operand::Wzr,
            "Wn" | "WnSp" => match x(rng, &mut used) {
                Operand::X(n) => Operand::W(n),
                _ => unreachable!(),
            },
            "Vn" | "VList16b" | "VList4s" | "VListS" | "VList2d" | "VTriple16b" | "VTriple2d" | "VPair16b"
            | "VPair2d" | "VPair4s" => {
                let n = rng.below(32) as u8;
                match *k {
                    "Vn" => Operand::V(n),
                    "VList16b" => Operand::List4(n, "16b"),
                    "VList4s" => Operand::List4(n, "4s"),
                    "VList2d" => Operand::List4(n, "2d"),
                    "VTriple16b" => Operand::List3(n, "16b"),
                    "VTriple2d" => Operand::List3(n, "2d"),
                    "VPair16b" => Operand::List2(n, "16b"),
                    "VPair2d" => Operand::List2(n, "2d"),
                    "VPair4s" => Operand::List2(n, "4s"),
                    _ => Operand::List4(n, "s"),
                }
            }
            "Qn" => Operand::Q(rng.below(32) as u8),
            "Dn" => Operand::D(rng.below(32) as u8),
            "Sn" => Operand::S(rng.below(32) as u8),
            "Imm12" => imm(rng, 4096, 0),
            "Imm8" => imm(rng, 256, 0),
            "Imm4" => imm(rng, 16, 0),
            "Shift" => imm(rng, 65, 0),
            "Shift32" => imm(rng, 33, 0),
            "Lane" => imm(rng, 2, 0),
            "LaneS" => imm(rng, 4, 0),
            "UOff" | "UOff1" => imm(rng, 65, 0),
            "SOff" => imm(rng, 129, -64),
            "UOff4" => Operand::Imm(4 * rng.below(16) as i64),
            "Imm3" => imm(rng, 8, 0),
            "ExtShift" => imm(rng, 5, 0),
            "Shift8" => imm(rng, 9, 0),
            "LaneB" => imm(rng, 16, 0),
            "Bit32" => imm(rng, 32, 0),
            "MovShift" => Operand::Imm(16 * rng.below(2) as i64),
            "BitImm64" => Operand::Imm(bitmask(rng) as i64),
            // A 64-bit pattern of elements of at most 32 bits is the 32-bit one twice.
            "BitImm32" => loop {
                let b = bitmask(rng);
                if b >> 32 == b & 0xffff_ffff {
                    break Operand::Imm((b & 0xffff_ffff) as i64);
                }
            },
            k => panic!("no generator for kind {k}"),
        });
    }
    // Loads of a pair into one register are unpredictable.
    if let [Operand::Q(a) | Operand::D(a), Operand::Q(b) | Operand::D(b), ..] = ops[..] {
        if a == b && info.name.starts_with("ldp") {
            return None;
        }
    }
    let values: Vec<i64> = ops
        .iter()
        .map(|o| <asmgen::isa::aarch64::Aarch64 as asmgen::InstructionSet>::operand_value(o).unwrap())
        .collect();
    let word = info.encoding.as_ref().unwrap().encode(&values).ok()?;
    Some((ops, word))
}

/// A random 64-bit logical immediate: a run of k ones (0 < k < e) rotated by r in an element of e bits, replicated.
fn bitmask(rng: &mut Rng) -> u64 {
    let e = 2u32 << rng.below(6);
    let k = 1 + rng.below(e as usize - 1) as u32;
    let r = rng.below(e as usize) as u32;
    let mask = if e == 64 { u64::MAX } else { (1u64 << e) - 1 };
    let ones = (1u64 << k) - 1;
    let elem = if r == 0 { ones } else { ((ones >> r) | (ones << (e - r))) & mask };
    (0..64 / e).fold(0, |acc, i| acc | elem << (i * e))
}

/// Entries not checked here: branches and label forms (their operand is a label), `ret`, calls (`blr`: the
/// interpreter models none) and pointer authentication (`paciasp`/`autiasp` change x30 on a CPU with FEAT_PAuth;
/// `pointer_authentication_round_trips` checks the pair).
fn skipped(op: Op) -> bool {
    OPS[op as usize].kinds.contains(&"Target") || matches!(op, Op::ret | Op::blr | Op::paciasp | Op::autiasp)
}

/// The aarch64 side of the comparison, with the model `M` (the real one, or a doctored one).
struct Aarch64<M>(M);

impl<M: Fn(Op, &mut Machine<'_>, &[Operand])> Isa for Aarch64<M> {
    type Entry = Op;
    /// The operands and the register memory operands use as base.
    type Draw = (Vec<Operand>, u8);
    const SCRATCH: usize = BUF;

    fn entries(&self) -> Vec<(&'static str, Op)> {
        let runs = |op: Op| !skipped(op) && OPS[op as usize].features.iter().all(|f| cpu_has(f.name()));
        Op::ALL.iter().filter(|&&op| runs(op)).map(|&op| (OPS[op as usize].name, op)).collect()
    }

    fn draw(&self, rng: &mut Rng, op: Op) -> Option<(Self::Draw, Vec<u8>)> {
        let base = rng.below(31) as u8;
        let (ops, word) = operands(rng, op, base)?;
        Some(((ops, base), code(&harness(&[word]))))
    }

    fn state(&self, rng: &mut Rng, op: Op, (ops, base): &Self::Draw, exec: &Exec, scratch: &mut Scratch) -> Diff {
        let mut raw = Raw { x: [0; 32], v: [[0; 16]; 32], nzcv: (rng.next_u64() & 0xf) << 28 };
        semantics::random_words(rng, &mut raw.x);
        semantics::random_regs(rng, &mut raw.v);
        raw.x[*base as usize] = scratch.addr() + 128;
        // A register-offset access's index (the operand after the base) stays inside the buffer.
        if let Some(Operand::X(i)) = sem(op).base.and_then(|b| ops.get(b + 1)) {
            raw.x[*i as usize] = rng.below(96) as u64;
        }
        raw.x[31] = 0;
        let mut mem = scratch.fill(rng);
        let state = State { x: raw.x, v: raw.v, flags: raw.nzcv >> 28 };
        let mut m = Machine { state, mem: &mut mem };
        (self.0)(op, &mut m, ops);
        let want = m.state.clone();
        // SAFETY: the harness saves and restores every callee-saved register and sp, and touches only `raw` and
        // the buffer whose address the state's base register holds.
        unsafe { exec.run(&mut raw) };
        let mut diff = Diff::default();
        diff.regs("x", &want.x, &raw.x, 0..31);
        diff.regs("v", &want.v, &raw.v, 0..32);
        diff.value("nzcv", want.flags, raw.nzcv >> 28);
        scratch.compare(&mem, &mut diff);
        diff
    }
}

fn real(op: Op, m: &mut Machine<'_>, ops: &[Operand]) {
    (sem(op).exec)(m, ops).unwrap();
}

#[test]
fn the_model_agrees_with_this_cpu() {
    semantics::assert_agree(&Aarch64(real), 12, 6);
}

#[test]
fn a_wrong_model_is_caught() {
    // eor_16b with bit 0 of the result flipped.
    let wrong = |op: Op, m: &mut Machine<'_>, ops: &[Operand]| {
        real(op, m, ops);
        if let (Op::eor_16b, Some(Operand::V(d))) = (op, ops.first()) {
            m.state.v[*d as usize][0] ^= 1;
        }
    };
    semantics::assert_caught(&Aarch64(wrong), 2, 2, &["eor_16b"]);
}

#[test]
fn conditional_branches_agree_with_this_cpu() {
    let mut rng = Rng::new(0xb4);
    let mut checked = 0;
    for (i, info) in OPS.iter().enumerate() {
        let op = Op::ALL[i];
        let reg = matches!(op, Op::cbz | Op::cbnz | Op::cbz_w | Op::cbnz_w | Op::tbz_w | Op::tbnz_w | Op::tbnz_x);
        if !reg && !info.name.starts_with("b_") {
            continue;
        }
        // The branch jumps over `movz x1, #1` (8 bytes on); x1 stays 0 when taken. `tbz`/`tbnz` test bit 5.
        let t = Operand::Label(asmgen::Label::named("t"));
        let w = |n: u8| if info.kinds[0] == "Wn" { Operand::W(n) } else { Operand::X(n) };
        let (values, ops): (&[i64], Vec<Operand>) = match (reg, info.kinds.len()) {
            (true, 3) => (&[2, 5, 8], vec![w(2), Operand::Imm(5), t]),
            (true, _) => (&[2, 8], vec![w(2), t]),
            (false, _) => (&[8], vec![t]),
        };
        let word = info.encoding.as_ref().unwrap().encode(values).unwrap();
        let exec = Exec::new(&code(&harness(&[word, 0xd2800021])));
        for flags in 0..32u64 {
            let mut raw = Raw { x: [0; 32], v: [[0; 16]; 32], nzcv: (flags & 0xf) << 28 };
            // Register zero or not, and (for the 32-bit forms) the upper half set: it must not count. For `tbz`,
            // bit 5 is set or clear.
            let r = rng.next_u64() | 1 << 32;
            raw.x[2] = if flags >> 4 == 1 {
                r | 1 | 1 << 5
            } else if info.kinds[0] == "Wn" {
                r & !0xffff_ffff
            } else {
                0
            };
            let mut mem = Buffer { base: 0, bytes: vec![] };
            let mut m = Machine { state: State { x: raw.x, v: raw.v, flags: flags & 0xf }, mem: &mut mem };
            let taken = matches!((sem(op).exec)(&mut m, &ops).unwrap(), asmgen::sem::Flow::Jump(_));
            // SAFETY: the harness keeps the callee-saved registers and sp, and touches only `raw`.
            unsafe { exec.run(&mut raw) };
            assert_eq!(taken, raw.x[1] == 0, "{} with NZCV {:#x}, x2 {:#x}", info.name, flags & 0xf, raw.x[2]);
            checked += 1;
        }
    }
    assert!(checked >= 16 * 32, "{checked}");
}

/// `paciasp` then `autiasp` (the model: both the identity) leave every register as it was, on a CPU with FEAT_PAuth
/// (qemu's `max`: x30 is signed in between) or without (both are NOPs); `bti` too.
#[test]
fn pointer_authentication_round_trips() {
    let mut rng = Rng::new(0x9ac);
    let words: Vec<u32> = [Op::paciasp, Op::bti_c, Op::autiasp, Op::bti_jc]
        .iter()
        .map(|&op| OPS[op as usize].encoding.as_ref().unwrap().encode(&[]).unwrap())
        .collect();
    let exec = Exec::new(&code(&harness(&words)));
    for _ in 0..16 {
        let mut raw = Raw { x: [0; 32], v: [[0; 16]; 32], nzcv: (rng.next_u64() & 0xf) << 28 };
        semantics::random_words(&mut rng, &mut raw.x);
        // A return address as a call leaves it: a user-space address (the upper bits clear).
        raw.x[30] = rng.next_u64() & 0x0000_ffff_ffff_fffc;
        raw.x[31] = 0;
        let mut mem = Buffer { base: 0, bytes: vec![] };
        let mut m = Machine { state: State { x: raw.x, v: raw.v, flags: raw.nzcv >> 28 }, mem: &mut mem };
        for op in [Op::paciasp, Op::bti_c, Op::autiasp, Op::bti_jc] {
            real(op, &mut m, &[]);
        }
        let want = m.state.clone();
        // SAFETY: the harness keeps the callee-saved registers and sp, and touches only `raw`.
        unsafe { exec.run(&mut raw) };
        assert_eq!(want.x[..31], raw.x[..31], "x registers after paciasp; autiasp");
        assert_eq!(want.flags, raw.nzcv >> 28);
    }
}
