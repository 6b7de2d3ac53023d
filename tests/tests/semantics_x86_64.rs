//! The x86_64 instruction semantics (`asmgen::sem::x86_64`) checked against this CPU: every table entry the host
//! executes (branches and stack operations aside: their operands are labels and rsp) is assembled by the JIT
//! lowering into a harness that loads a random state (16 GPRs, 32 zmm where the CPU has AVX-512 and 16 ymm
//! otherwise, the status flags, a memory buffer),
//! runs the one instruction, and stores the state back; the model runs on the same state and both results must
//! agree bit for bit (flags the architecture leaves undefined aside). A mismatch names the entry and operands.
//! Conditional branches are checked on their own: `jcc` over a `mov` of a marker, taken or not as the model says.
//! The negative tests run the same comparison on a model with one bit flipped (and, on an AVX-512 CPU, zmm
//! entries wrong only in the upper 256 bits) and require it to be caught.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use asmgen::isa::x86_64::{mem, Gpr, Op, Operand, Size, X86Feature, OPS, X86_64};
use asmgen::sem::x86_64::{sem, Machine, State, AF, CF, OF, PF, SF, STATUS, ZF};
use asmgen::{Abi, Builder};
use asmgen_tests::semantics::{self, Buffer, Diff, Exec, Isa, Scratch};
use asmgen_tests::Rng;
use iced_x86::{Code, Decoder, DecoderOptions, Encoder, Instruction, MemoryOperand, Register};

/// The state as the harness reads and writes it.
#[repr(C)]
#[derive(Clone, Copy)]
struct Raw {
    gpr: [u64; 16],
    vec: [[u8; 64]; 32],
    flags: u64,
    k: [u64; 8],
}
const VEC_OFF: i64 = 128;
const FLAGS_OFF: i64 = 128 + 64 * 32;
const K_OFF: i64 = FLAGS_OFF + 8;
/// The memory buffer memory operands point into (their base register holds `buffer + 64`).
const BUF: usize = 256;

fn host_has(f: X86Feature) -> bool {
    match f {
        X86Feature::Ssse3 => is_x86_feature_detected!("ssse3"),
        X86Feature::Sse41 => is_x86_feature_detected!("sse4.1"),
        X86Feature::Aes => is_x86_feature_detected!("aes"),
        X86Feature::Pclmulqdq => is_x86_feature_detected!("pclmulqdq"),
        X86Feature::Avx => is_x86_feature_detected!("avx"),
        X86Feature::Avx2 => is_x86_feature_detected!("avx2"),
        X86Feature::Bmi1 => is_x86_feature_detected!("bmi1"),
        X86Feature::Bmi2 => is_x86_feature_detected!("bmi2"),
        X86Feature::Adx => is_x86_feature_detected!("adx"),
        X86Feature::Sha => is_x86_feature_detected!("sha"),
        X86Feature::Vaes => is_x86_feature_detected!("vaes"),
        X86Feature::Vpclmulqdq => is_x86_feature_detected!("vpclmulqdq"),
        X86Feature::Gfni => is_x86_feature_detected!("gfni"),
        X86Feature::Ibt => true,
        X86Feature::Avx512f => is_x86_feature_detected!("avx512f"),
        X86Feature::Avx512bw => is_x86_feature_detected!("avx512bw"),
        X86Feature::Avx512vl => is_x86_feature_detected!("avx512vl"),
        X86Feature::Movbe => is_x86_feature_detected!("movbe"),
        X86Feature::Rdrand => is_x86_feature_detected!("rdrand"),
    }
}

/// Whether the harness loads and stores zmm0-zmm31 (else ymm0-ymm15, and only those bytes are compared).
fn zmm_host() -> bool {
    host_has(X86Feature::Avx512f)
}

/// A random general-purpose register other than rsp.
fn gpr(rng: &mut Rng) -> u8 {
    let g = rng.below(15) as u8;
    if g >= 4 {
        g + 1
    } else {
        g
    }
}

/// Random operands for an entry's kinds; `base` is the register memory operands use, if any.
/// `step`: displacements are multiples of it (`vmovdqa` faults on unaligned memory; the buffer is 64-byte aligned).
fn operands(rng: &mut Rng, kinds: &[&str], base: u8, step: i32) -> Vec<Operand> {
    let m = |rng: &mut Rng, size| Operand::Mem(size, mem(Gpr(base), (rng.below(65) as i32 - 32) / step * step));
    let pick = |rng: &mut Rng| rng.below(2) == 0;
    kinds
        .iter()
        .map(|k| match *k {
            "R64" => Operand::Gpr(gpr(rng)),
            "R32" => Operand::Gpr32(gpr(rng)),
            "Ri32" if pick(rng) => Operand::Gpr32(gpr(rng)),
            "Ri32" => Operand::Imm(rng.next_u64() as i32 as i64),
            "Rm32" if pick(rng) => Operand::Gpr32(gpr(rng)),
            "Ri64" if pick(rng) => Operand::Gpr(gpr(rng)),
            "Ri64" | "Imm" => Operand::Imm(rng.below(128) as i64 - if *k == "Ri64" { 64 } else { 0 }),
            "Rm64" if pick(rng) => Operand::Gpr(gpr(rng)),
            "Rm64" | "M64" | "Addr" => m(rng, Size::Qword),
            "X" => Operand::Xmm(rng.below(16) as u8),
            "Xm" if pick(rng) => Operand::Xmm(rng.below(16) as u8),
            "Xm" | "M128" => m(rng, Size::Xmmword),
            "M32" | "Rm32" => m(rng, Size::Dword),
            "R8" => Operand::Gpr8(gpr(rng)),
            "Rm8" if pick(rng) => Operand::Gpr8(gpr(rng)),
            "Rm8" | "M8" => m(rng, Size::Byte),
            "Cl" => Operand::Gpr8(1),
            "Y" => Operand::Ymm(rng.below(16) as u8),
            "Ym" if pick(rng) => Operand::Ymm(rng.below(16) as u8),
            "Ym" | "M256" => m(rng, Size::Ymmword),
            "Z" => Operand::Zmm(rng.below(32) as u8),
            "Zm" if pick(rng) => Operand::Zmm(rng.below(32) as u8),
            "Zm" | "M512" => m(rng, Size::Zmmword),
            "Zkz" => Operand::ZmmMaskz(rng.below(32) as u8, 1 + rng.below(7) as u8),
            "M512k" => match m(rng, Size::Zmmword) {
                Operand::Mem(size, a) => Operand::MemMask(size, a, 1 + rng.below(7) as u8),
                other => other,
            },
            "Kr" => Operand::K(rng.below(8) as u8),
            "Sel" => Operand::Sel(rng.next_u64() as u8),
            "Imm64" => Operand::Imm(rng.next_u64() as i64),
            "I32" => Operand::Imm(rng.next_u64() as i32 as i64),
            k => panic!("no generator for kind {k}"),
        })
        .collect()
}

/// The bytes of one instruction, from the JIT lowering of a function holding only it.
fn encode(op: Op, operands: &[Operand]) -> Vec<u8> {
    let mut b = Builder::<X86_64>::new("one", Abi::SysV, <X86Feature as asmgen::Feature>::ALL);
    b.inst(op, operands.to_vec());
    let f = b.finish().unwrap();
    let image = asmgen::lower::lower(&[&f]).unwrap();
    let sym = image.symbol("one").unwrap();
    let code = &image.bytes[sym.offset..sym.offset + sym.len];
    let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    // Skip the landing pad and the pushes of callee-saved registers the instruction names.
    let skip = 1 + f.frame.saved.len();
    let inst = d.iter().nth(skip).unwrap();
    code[inst.ip() as usize..inst.next_ip() as usize].to_vec()
}

const GPRS: [Register; 16] = [
    Register::RAX,
    Register::RCX,
    Register::RDX,
    Register::RBX,
    Register::RSP,
    Register::RBP,
    Register::RSI,
    Register::RDI,
    Register::R8,
    Register::R9,
    Register::R10,
    Register::R11,
    Register::R12,
    Register::R13,
    Register::R14,
    Register::R15,
];

/// The vector registers the harness loads and stores, the move codes (load, store) and the registers' name.
fn vec_regs() -> (usize, Code, Code, Register) {
    if zmm_host() {
        (32, Code::EVEX_Vmovdqu64_zmm_k1z_zmmm512, Code::EVEX_Vmovdqu64_zmmm512_k1z_zmm, Register::ZMM0)
    } else {
        (16, Code::VEX_Vmovdqu_ymm_ymmm256, Code::VEX_Vmovdqu_ymmm256_ymm, Register::YMM0)
    }
}

/// load state from [rdi], run `inst`, store state to the same place; callee-saved registers kept.
fn harness(inst: &[u8]) -> Vec<u8> {
    let m = |base: Register, d: i64| MemoryOperand::with_base_displ(base, d);
    let mut pre = vec![];
    for r in [Register::RBX, Register::RBP, Register::R12, Register::R13, Register::R14, Register::R15, Register::RDI] {
        pre.push(Instruction::with1(Code::Push_r64, r).unwrap());
    }
    pre.push(Instruction::with1(Code::Push_rm64, m(Register::RDI, FLAGS_OFF)).unwrap());
    pre.push(Instruction::with(Code::Popfq));
    let (regs, load, store, reg0) = vec_regs();
    for i in 0..regs {
        let v = reg0 + i as u32;
        pre.push(Instruction::with2(load, v, m(Register::RDI, VEC_OFF + 64 * i as i64)).unwrap());
    }
    for k in 0..if zmm_host() { 8 } else { 0 } {
        let r = Register::K0 + k as u32;
        pre.push(Instruction::with2(Code::VEX_Kmovq_kr_km64, r, m(Register::RDI, K_OFF + 8 * k as i64)).unwrap());
    }
    for r in (0..16).filter(|&r| r != 4 && r != 7).chain([7]) {
        pre.push(Instruction::with2(Code::Mov_r64_rm64, GPRS[r], m(Register::RDI, 8 * r as i64)).unwrap());
    }
    let mut post = vec![Instruction::with(Code::Pushfq), Instruction::with1(Code::Push_r64, Register::RAX).unwrap()];
    post.push(Instruction::with2(Code::Mov_r64_rm64, Register::RAX, m(Register::RSP, 16)).unwrap());
    for r in (1..16).filter(|&r| r != 4) {
        post.push(Instruction::with2(Code::Mov_rm64_r64, m(Register::RAX, 8 * r as i64), GPRS[r]).unwrap());
    }
    for (off, _) in [(0, ()), (FLAGS_OFF, ())] {
        post.push(Instruction::with1(Code::Pop_r64, Register::RCX).unwrap());
        post.push(Instruction::with2(Code::Mov_rm64_r64, m(Register::RAX, off), Register::RCX).unwrap());
    }
    for i in 0..regs {
        let v = reg0 + i as u32;
        post.push(Instruction::with2(store, m(Register::RAX, VEC_OFF + 64 * i as i64), v).unwrap());
    }
    for k in 0..if zmm_host() { 8 } else { 0 } {
        let r = Register::K0 + k as u32;
        post.push(Instruction::with2(Code::VEX_Kmovq_m64_kr, m(Register::RAX, K_OFF + 8 * k as i64), r).unwrap());
    }
    post.push(Instruction::with2(Code::Add_rm64_imm8, Register::RSP, 8).unwrap());
    for r in [Register::R15, Register::R14, Register::R13, Register::R12, Register::RBP, Register::RBX] {
        post.push(Instruction::with1(Code::Pop_r64, r).unwrap());
    }
    post.push(Instruction::with(Code::VEX_Vzeroupper));
    post.push(Instruction::with(Code::Retnq));
    let mut enc = Encoder::new(64);
    let mut out = vec![];
    for (list, tail) in [(&pre, inst), (&post, &[][..])] {
        for i in list {
            enc.encode(i, 0).unwrap();
            out.extend(enc.take_buffer());
        }
        out.extend_from_slice(tail);
    }
    out
}

/// Entries with semantics not checked here: branches (label operands; `call` and `ret` by
/// `call_and_ret_agree_with_this_cpu`), stack operations (`pushfq`/`popfq` by `pushfq_and_popfq_agree_with_this_cpu`,
/// `leave` by `leave_agrees_with_this_cpu`), `ret` and `int3` (a trap: `int3_is_a_fault`); the string instructions
/// and `std` (by `string_instructions_agree_with_this_cpu`: their addresses are rsi and rdi, and `std` must be
/// undone before the harness returns); `rdrand` and `call_reg`, which stop the interpreter
/// (`rdrand_and_indirect_calls_stop_the_interpreter`).
fn skipped(op: Op) -> bool {
    OPS[op as usize].kinds.contains(&"Target")
        || STRING.contains(&op)
        || matches!(
            op,
            Op::push
                | Op::pop
                | Op::ret
                | Op::pushfq
                | Op::popfq
                | Op::std
                | Op::rdrand
                | Op::call_reg
                | Op::int3
                | Op::leave
        )
}

/// The string instructions.
const STRING: [Op; 8] =
    [Op::movsb, Op::movsq, Op::stosb, Op::stosq, Op::rep_movsb, Op::rep_movsq, Op::rep_stosb, Op::rep_stosq];

/// The x86_64 side of the comparison, with the model `M` (the real one, or a doctored one).
struct X86<M>(M);

impl<M: Fn(Op, &mut Machine<'_>, &[Operand])> Isa for X86<M> {
    type Entry = Op;
    /// The operands and the register memory operands use as base.
    type Draw = (Vec<Operand>, u8);
    const SCRATCH: usize = BUF;

    fn entries(&self) -> Vec<(&'static str, Op)> {
        let runs = |op: Op| !skipped(op) && OPS[op as usize].features.iter().all(|&f| host_has(f));
        Op::ALL.iter().filter(|&&op| runs(op)).map(|&op| (OPS[op as usize].name, op)).collect()
    }

    fn draw(&self, rng: &mut Rng, op: Op) -> Option<(Self::Draw, Vec<u8>)> {
        let info = &OPS[op as usize];
        let base = gpr(rng);
        // Legacy SSE forms (no `v`) fault on unaligned 16-byte memory, as `vmovdqa` and `vmovdqa64` do.
        let legacy = !info.mnemonic().starts_with('v') && info.kinds.iter().any(|k| matches!(*k, "X" | "Xm"));
        let aligned = matches!(info.mnemonic(), "vmovdqa" | "vmovdqa32" | "vmovdqa64" | "movdqa")
            || (legacy && info.mnemonic() != "movdqu");
        // A zmm operand of `vmovdqa32`/`vmovdqa64` needs 64-byte alignment.
        let step = match (aligned, info.kinds.contains(&"Zm")) {
            (false, _) => 1,
            (true, false) => 32,
            (true, true) => 64,
        };
        let ops = operands(rng, info.kinds, base, step);
        let code = harness(&encode(op, &ops));
        Some(((ops, base), code))
    }

    fn state(&self, rng: &mut Rng, op: Op, (ops, base): &Self::Draw, exec: &Exec, scratch: &mut Scratch) -> Diff {
        let mut raw = Raw { gpr: [0; 16], vec: [[0; 64]; 32], flags: 0, k: [0; 8] };
        semantics::random_words(rng, &mut raw.gpr);
        semantics::random_words(rng, &mut raw.k);
        semantics::random_regs(rng, &mut raw.vec);
        raw.flags = (rng.next_u64() & STATUS) | 2;
        raw.gpr[*base as usize] = scratch.addr() + 64;
        let mut mem = scratch.fill(rng);
        let mut m = Machine { state: State { gpr: raw.gpr, vec: raw.vec, flags: raw.flags, k: raw.k }, mem: &mut mem };
        m.state.gpr[4] = 0;
        (self.0)(op, &mut m, ops);
        let mut want = m.state.clone();
        // SAFETY: the harness keeps the callee-saved registers and rsp, and touches only `raw` and the buffer.
        unsafe { exec.run(&mut raw) };
        if !zmm_host() {
            // Without AVX-512 the harness sees ymm0-ymm15 only.
            for (i, (w, r)) in want.vec.iter_mut().zip(&raw.vec).enumerate() {
                let seen = if i < 16 { 32 } else { 0 };
                w[seen..].copy_from_slice(&r[seen..]);
            }
        }
        let mut diff = Diff::default();
        diff.regs("r", &want.gpr, &raw.gpr, (0..16).filter(|&r| r != 4));
        diff.regs("zmm", &want.vec, &raw.vec, 0..32);
        diff.regs("k", &want.k, &raw.k, 0..if zmm_host() { 8 } else { 0 });
        let defined = STATUS & !sem(op).flags_undefined;
        diff.value("flags", want.flags & defined, raw.flags & defined);
        scratch.compare(&mem, &mut diff);
        diff
    }
}

fn real(op: Op, m: &mut Machine<'_>, ops: &[Operand]) {
    (sem(op).exec)(m, ops).unwrap();
}

#[test]
fn the_model_agrees_with_this_cpu() {
    semantics::assert_agree(&X86(real), 48, 40);
}

#[test]
fn a_wrong_model_is_caught() {
    // vpxor_y with bit 0 of the result flipped.
    let wrong = |op: Op, m: &mut Machine<'_>, ops: &[Operand]| {
        real(op, m, ops);
        if op == Op::vpxor_y {
            if let Operand::Ymm(d) = ops[0] {
                m.state.vec[d as usize][0] ^= 1;
            }
        }
    };
    semantics::assert_caught(&X86(wrong), 2, 2, &["vpxor_y"]);
}

#[test]
fn a_wrong_zmm_model_is_caught() {
    if !zmm_host() {
        eprintln!("notice: this CPU has no AVX-512: the zmm entries are not run");
        return;
    }
    // vpternlogq with the top byte of the result flipped (the bytes only zmm holds), vpshufb_z with its upper
    // half taken from the lower one.
    let wrong = |op: Op, m: &mut Machine<'_>, ops: &[Operand]| {
        real(op, m, ops);
        if let Some(&Operand::Zmm(d)) = ops.first() {
            let v = &mut m.state.vec[d as usize];
            match op {
                Op::vpternlogq => v[63] ^= 0x80,
                Op::vpshufb_z => v.copy_within(0..32, 32),
                _ => {}
            }
        }
    };
    semantics::assert_caught(&X86(wrong), 2, 2, &["vpternlogq", "vpshufb_z"]);
}

#[test]
fn conditional_branches_agree_with_this_cpu() {
    let mut rng = Rng::new(0xb4);
    let mov = [0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8]; // mov rax, 0x0807060504030201
    let mut checked = 0;
    for (i, info) in OPS.iter().enumerate() {
        let op = Op::ALL[i];
        if !info.kinds.contains(&"Target") || matches!(op, Op::jmp | Op::call) {
            continue;
        }
        // The rel8 form, jumping over the mov.
        let code = info.encoding.unwrap().0[0];
        let jcc = Instruction::with_branch(code, 2 + mov.len() as u64).unwrap();
        let mut enc = Encoder::new(64);
        enc.encode(&jcc, 0).unwrap();
        let mut inst = enc.take_buffer();
        inst.extend_from_slice(&mov);
        let exec = Exec::new(&harness(&inst));
        let label = asmgen::Label::named("t");
        let ops = [Operand::Label(label)];
        for flags in 0..64u64 {
            // Every combination of CF, PF, AF, ZF, SF, OF.
            let f = [CF, PF, AF, ZF, SF, OF]
                .iter()
                .enumerate()
                .fold(2, |a, (b, m)| a | if flags >> b & 1 == 1 { *m } else { 0 });
            let mut raw = Raw { gpr: [0; 16], vec: [[0; 64]; 32], flags: f, k: [0; 8] };
            raw.gpr[0] = rng.next_u64();
            // rcx (`jrcxz`): zero or not.
            raw.gpr[1] = if flags & 1 == 0 { 0 } else { rng.next_u64() };
            let mut mem = Buffer { base: 0, bytes: vec![] };
            let mut m = Machine { state: State { gpr: raw.gpr, vec: raw.vec, flags: f, k: [0; 8] }, mem: &mut mem };
            let taken = matches!((sem(op).exec)(&mut m, &ops).unwrap(), asmgen::sem::Flow::Jump(_));
            // SAFETY: the harness keeps the callee-saved registers and rsp, and touches only `raw`.
            unsafe { exec.run(&mut raw) };
            let native_taken = raw.gpr[0] != u64::from_le_bytes(mov[2..].try_into().unwrap());
            assert_eq!(taken, native_taken, "{} with flags {f:#x}", info.name);
            checked += 1;
        }
    }
    assert!(checked >= 6 * 64, "{checked}");
}

/// The cases random states reach too seldom or compare too little: shifts and rotates by 1 (where OF is defined,
/// which the random comparison leaves aside as the count is not known there) and by 64 or 32 (a count of 0: no
/// flag changes), products that fit (`imul`, `mul`: CF and OF clear) and the one signed overflow
/// `i64::MIN * -1`, `neg 0`, `dec 0` and the signed overflow of `inc`; shifts by cl of 1 and 64; `bsf` of 0.
/// Each runs on this CPU and on the model from random registers and flags, and the flags named are compared
/// with the registers.
#[test]
fn flag_edge_cases_agree_with_this_cpu() {
    let (g, g32, imm) = (Operand::Gpr, Operand::Gpr32, Operand::Imm);
    let shift = STATUS & !AF;
    /// Entry, operands, flags compared, values for rax and rcx (None: random).
    type Case = (Op, Vec<Operand>, u64, Option<(u64, u64)>);
    let cases: &[Case] = &[
        (Op::shl, vec![g(0), imm(1)], shift, None),
        (Op::shr, vec![g(0), imm(1)], shift, None),
        (Op::rol, vec![g(0), imm(1)], CF | OF, None),
        (Op::ror, vec![g(0), imm(1)], CF | OF, None),
        (Op::rol, vec![g(0), imm(64)], STATUS, None),
        (Op::ror, vec![g(0), imm(64)], STATUS, None),
        (Op::shld, vec![g(0), g(1), imm(1)], shift, None),
        (Op::shrd, vec![g(0), g(1), imm(1)], shift, None),
        (Op::shld, vec![g(0), g(1), imm(64)], STATUS, None),
        (Op::imul, vec![g(0), g(1)], CF | OF, Some((3, (-5i64) as u64))),
        (Op::imul, vec![g(0), g(1)], CF | OF, Some((1 << 40, (-(1i64 << 22)) as u64))),
        (Op::imul, vec![g(0), g(1)], CF | OF, Some((1 << 40, 1 << 23))),
        (Op::imul, vec![g(0), g(1)], CF | OF, Some((i64::MIN as u64, u64::MAX))),
        (Op::mul, vec![g(1)], CF | OF, Some((u32::MAX as u64, u32::MAX as u64))),
        (Op::mul, vec![g(1)], CF | OF, Some((1 << 32, 1 << 32))),
        (Op::shl32, vec![g32(0), imm(1)], shift, None),
        (Op::shr32, vec![g32(0), imm(1)], shift, None),
        (Op::sar, vec![g(0), imm(1)], shift, None),
        (Op::rol32, vec![g32(0), imm(1)], CF | OF, None),
        (Op::ror32, vec![g32(0), imm(1)], CF | OF, None),
        (Op::ror32, vec![g32(0), imm(32)], STATUS, None),
        (Op::shld32, vec![g32(0), g32(1), imm(1)], shift, None),
        (Op::shrd32, vec![g32(0), g32(1), imm(1)], shift, None),
        (Op::imul32, vec![g32(0), g32(1)], CF | OF, Some((3, (-5i64) as u64))),
        (Op::imul32, vec![g32(0), g32(1)], CF | OF, Some((1 << 20, 1 << 11))),
        (Op::neg, vec![g(0)], STATUS, Some((0, 0))),
        (Op::inc32, vec![g32(0)], STATUS, Some((0x7fff_ffff, 0))),
        (Op::dec, vec![g(0)], STATUS, Some((0, 0))),
        // A zero source: ZF set, the destination kept (as AMD documents and Intel's cores do).
        (Op::bsf, vec![g(0), g(1)], ZF, Some((0x1234, 0))),
        (Op::imul_imm, vec![g(0), g(1), imm(-3)], CF | OF, Some((0, 1 << 40))),
        (Op::imul32_imm, vec![g32(0), g32(1), imm(100)], CF | OF, Some((0, 1 << 20))),
        (Op::shr_cl, vec![g(0), Operand::Gpr8(1)], shift, Some((0x8000_0000_0000_0001, 1))),
        (Op::shl_cl, vec![g(0), Operand::Gpr8(1)], STATUS, Some((0x8000_0000_0000_0001, 64))),
        (Op::shrd_cl, vec![g(0), g(2), Operand::Gpr8(1)], shift, Some((0x8000_0000_0000_0001, 0x101))),
    ];
    let mut rng = Rng::new(0xf1a9);
    for (op, ops, compared, values) in cases {
        let exec = Exec::new(&harness(&encode(*op, ops)));
        for _ in 0..64 {
            let mut raw = Raw { gpr: [0; 16], vec: [[0; 64]; 32], flags: 0, k: [0; 8] };
            semantics::random_words(&mut rng, &mut raw.gpr);
            raw.gpr[4] = 0;
            if let Some((a, c)) = values {
                (raw.gpr[0], raw.gpr[1]) = (*a, *c);
            }
            raw.flags = (rng.next_u64() & STATUS) | 2;
            let mut mem = Buffer { base: 0, bytes: vec![] };
            let mut m =
                Machine { state: State { gpr: raw.gpr, vec: raw.vec, flags: raw.flags, k: raw.k }, mem: &mut mem };
            real(*op, &mut m, ops);
            let want = m.state;
            // SAFETY: the harness keeps the callee-saved registers and rsp, and touches only `raw`.
            unsafe { exec.run(&mut raw) };
            let what = format!("{} {ops:?}", OPS[*op as usize].name);
            assert_eq!(want.flags & compared, raw.flags & compared, "{what}: flags");
            assert_eq!(&want.gpr[..4], &raw.gpr[..4], "{what}: rax..rbx");
        }
    }
}

/// `call` to a subroutine of the function and its `ret`: `call sub; add rax, 2; jmp end; sub: add rax, rax; ret;
/// end:` run on this CPU (in the harness, on its stack) and by the interpreter (a function with that body, whose
/// return from the subroutine comes back after the call with the stack pointer restored), from random registers:
/// the same registers and flags.
#[test]
fn call_and_ret_agree_with_this_cpu() {
    use asmgen::ir::{Inst, Item};
    use asmgen::sem::interp::Program;
    // call +6; add rax, 2; jmp +4; add rax, rax; ret
    let native = [0xe8, 6, 0, 0, 0, 0x48, 0x83, 0xc0, 2, 0xeb, 4, 0x48, 0x01, 0xc0, 0xc3];
    let exec = Exec::new(&harness(&native));
    let (sub, end) = (asmgen::Label::named("sub"), asmgen::Label::named("end"));
    let mut f = Builder::<X86_64>::new("calls", Abi::SysV, &[]).finish().unwrap();
    let inst = |op, operands: Vec<Operand>| Item::Inst(Inst { op, operands: operands.into() });
    f.body = vec![
        inst(Op::call, vec![Operand::Label(sub.clone())]),
        inst(Op::add, vec![Operand::Gpr(0), Operand::Imm(2)]),
        inst(Op::jmp, vec![Operand::Label(end.clone())]),
        Item::Label(sub),
        inst(Op::add, vec![Operand::Gpr(0), Operand::Gpr(0)]),
        inst(Op::ret, vec![]),
        Item::Label(end),
    ];
    let program = Program::<X86_64>::new(&f);
    let mut rng = Rng::new(0xca11);
    for _ in 0..64 {
        let mut raw = Raw { gpr: [0; 16], vec: [[0; 64]; 32], flags: (rng.next_u64() & STATUS) | 2, k: [0; 8] };
        semantics::random_words(&mut rng, &mut raw.gpr);
        let stack = 0x10000u64;
        let mut mem = Buffer { base: stack - 256, bytes: vec![0; 512] };
        let mut m = Machine { state: State { gpr: raw.gpr, vec: raw.vec, flags: raw.flags, k: raw.k }, mem: &mut mem };
        m.state.gpr[4] = stack;
        program.run(&mut m, 100, &mut |_, _, _| {}).unwrap();
        assert_eq!(m.state.gpr[4], stack, "the stack pointer after the return");
        let want = m.state.clone();
        // SAFETY: the harness keeps the callee-saved registers and rsp, and touches only `raw`.
        unsafe { exec.run(&mut raw) };
        assert_eq!(&want.gpr[..4], &raw.gpr[..4], "rax..rbx");
        assert_eq!(&want.gpr[5..], &raw.gpr[5..], "rbp..r15");
        assert_eq!(want.flags & STATUS, raw.flags & STATUS, "flags");
    }
}

/// `pushfq; pop rax` and `push rcx; popfq` on this CPU and in the model (the stack in a buffer), from random flags and
/// registers (rcx holding status flags only: a set trap flag would stop the harness): the same registers and status
/// flags, and what `pushfq` pushed.
#[test]
fn pushfq_and_popfq_agree_with_this_cpu() {
    let mut rng = Rng::new(0xf1a6);
    // pushfq; pop rax / push rcx; popfq
    for (native, ops) in [([0x9c, 0x58], [Op::pushfq, Op::pop]), ([0x51, 0x9d], [Op::push, Op::popfq])] {
        let exec = Exec::new(&harness(&native));
        for _ in 0..64 {
            let mut raw = Raw { gpr: [0; 16], vec: [[0; 64]; 32], flags: (rng.next_u64() & STATUS) | 2, k: [0; 8] };
            semantics::random_words(&mut rng, &mut raw.gpr);
            raw.gpr[1] = rng.next_u64() & STATUS;
            let stack = 0x10000u64;
            let mut mem = Buffer { base: stack - 64, bytes: vec![0; 128] };
            let mut m =
                Machine { state: State { gpr: raw.gpr, vec: raw.vec, flags: raw.flags, k: raw.k }, mem: &mut mem };
            m.state.gpr[4] = stack;
            for op in ops {
                let operands = if matches!(op, Op::pop | Op::push) {
                    vec![Operand::Gpr(if op == Op::pop { 0 } else { 1 })]
                } else {
                    vec![]
                };
                (sem(op).exec)(&mut m, &operands).unwrap();
            }
            let want = m.state.clone();
            // SAFETY: the harness keeps the callee-saved registers and rsp, and touches only `raw`.
            unsafe { exec.run(&mut raw) };
            assert_eq!(&want.gpr[..4], &raw.gpr[..4], "{ops:?}: rax..rbx");
            assert_eq!(want.flags & STATUS, raw.flags & STATUS, "{ops:?}: flags");
        }
    }
}

/// The string instructions, with and without `rep`, forward and (between `std` and `cld`) back, on this CPU and
/// in the model: rsi and rdi in a buffer, rcx from 0 to 8, random registers and flags. The same registers, status
/// flags and buffer.
#[test]
fn string_instructions_agree_with_this_cpu() {
    let mut rng = Rng::new(0x5705);
    let mut buf = vec![0u8; 512];
    let base = buf.as_ptr() as u64;
    for op in STRING {
        for back in [false, true] {
            let mut native = if back { vec![0xfd] } else { vec![] };
            native.extend(encode(op, &[]));
            native.extend(if back { &[0xfc][..] } else { &[] });
            let exec = Exec::new(&harness(&native));
            for _ in 0..32 {
                rng.fill(&mut buf);
                let mut raw = Raw { gpr: [0; 16], vec: [[0; 64]; 32], flags: (rng.next_u64() & STATUS) | 2, k: [0; 8] };
                semantics::random_words(&mut rng, &mut raw.gpr);
                raw.gpr[4] = 0;
                raw.gpr[1] = rng.below(9) as u64;
                raw.gpr[6] = base + 160 + rng.below(32) as u64;
                raw.gpr[7] = base + 352 + rng.below(32) as u64;
                let mut mem = Buffer { base, bytes: buf.clone() };
                let state = State { gpr: raw.gpr, vec: raw.vec, flags: raw.flags, k: raw.k };
                let mut m = Machine { state, mem: &mut mem };
                let ops = if back { vec![Op::std, op, Op::cld] } else { vec![op] };
                for o in ops {
                    real(o, &mut m, &[]);
                }
                let want = m.state.clone();
                // SAFETY: the harness keeps the callee-saved registers and rsp, touches `raw` and `buf`, and DF is
                // clear again when it returns.
                unsafe { exec.run(&mut raw) };
                let what = format!("{}{}", OPS[op as usize].name, if back { " with DF set" } else { "" });
                assert_eq!(&want.gpr[..4], &raw.gpr[..4], "{what}: rax..rbx");
                assert_eq!(&want.gpr[5..], &raw.gpr[5..], "{what}: rbp..r15");
                assert_eq!(want.flags & STATUS, raw.flags & STATUS, "{what}: flags");
                assert!(mem.bytes == buf, "{what}: memory");
            }
        }
    }
}

/// `rdrand` sets CF on this CPU (a number was ready; retried until one is) and clears the other status flags; the
/// interpreter stops there with its documented fault, as at `call_reg` (a call through a register: the CPU runs
/// it by `call_reg_calls_on_this_cpu`).
#[test]
fn rdrand_and_indirect_calls_stop_the_interpreter() {
    use asmgen::sem::x86_64::{INDIRECT_CALL, RDRAND};
    let mut mem = Buffer { base: 0, bytes: vec![] };
    let mut m = Machine { state: State::default(), mem: &mut mem };
    let fault = (sem(Op::rdrand).exec)(&mut m, &[Operand::Gpr(0)]).unwrap_err();
    assert_eq!(fault.what, RDRAND);
    let fault = (sem(Op::call_reg).exec)(&mut m, &[Operand::Gpr(0)]).unwrap_err();
    assert_eq!(fault.what, INDIRECT_CALL);
    if !host_has(X86Feature::Rdrand) {
        eprintln!("notice: this CPU has no RDRAND");
        return;
    }
    let exec = Exec::new(&harness(&encode(Op::rdrand, &[Operand::Gpr(0)])));
    let ready = (0..100).any(|_| {
        let mut raw = Raw { gpr: [0; 16], vec: [[0; 64]; 32], flags: STATUS | 2, k: [0; 8] };
        // SAFETY: the harness keeps the callee-saved registers and rsp, and touches only `raw`.
        unsafe { exec.run(&mut raw) };
        assert_eq!(raw.flags & (STATUS & !CF), 0, "rdrand clears OF, SF, ZF, AF, PF");
        raw.flags & CF != 0
    });
    assert!(ready, "rdrand never had a number ready");
}

/// `call rcx` on this CPU, rcx holding the address of `add rax, rax; ret`, then `add rax, 2`: rax doubled and
/// incremented, as `call_reg`'s documentation says (the interpreter stops there instead).
#[test]
fn call_reg_calls_on_this_cpu() {
    let sub = Exec::new(&[0x48, 0x01, 0xc0, 0xc3]);
    let mut native = encode(Op::call_reg, &[Operand::Gpr(1)]);
    native.extend([0x48, 0x83, 0xc0, 2]);
    let exec = Exec::new(&harness(&native));
    let mut rng = Rng::new(0xca12);
    for _ in 0..16 {
        let mut raw = Raw { gpr: [0; 16], vec: [[0; 64]; 32], flags: 2, k: [0; 8] };
        raw.gpr[0] = rng.next_u64();
        raw.gpr[1] = sub.at(0) as u64;
        let want = raw.gpr[0].wrapping_mul(2).wrapping_add(2);
        // SAFETY: the harness keeps the callee-saved registers and rsp; the subroutine only doubles rax.
        unsafe { exec.run(&mut raw) };
        assert_eq!(raw.gpr[0], want);
    }
}

/// `leave` against this CPU: `mov rax, rsp; push rbp; mov rbp, rsp; push rcx; push rdx; leave; sub rax, rsp` leaves
/// rax zero (rsp back where `push rbp` found it), rbp as it was, and the same flags, in the model and natively.
#[test]
fn leave_agrees_with_this_cpu() {
    let mut rng = Rng::new(0x1ea7e);
    let native = [0x48, 0x89, 0xe0, 0x55, 0x48, 0x89, 0xe5, 0x51, 0x52, 0xc9, 0x48, 0x29, 0xe0];
    let exec = Exec::new(&harness(&native));
    let (g, none) = (Operand::Gpr, Vec::new);
    let program = [
        (Op::mov, vec![g(0), g(4)]),
        (Op::push, vec![g(5)]),
        (Op::mov, vec![g(5), g(4)]),
        (Op::push, vec![g(1)]),
        (Op::push, vec![g(2)]),
        (Op::leave, none()),
        (Op::sub, vec![g(0), g(4)]),
    ];
    for _ in 0..16 {
        let mut raw = Raw { gpr: [0; 16], vec: [[0; 64]; 32], flags: (rng.next_u64() & STATUS) | 2, k: [0; 8] };
        semantics::random_words(&mut rng, &mut raw.gpr);
        let stack = 0x10000u64;
        let mut mem = Buffer { base: stack - 64, bytes: vec![0; 128] };
        let mut m = Machine { state: State { gpr: raw.gpr, vec: raw.vec, flags: raw.flags, k: raw.k }, mem: &mut mem };
        m.state.gpr[4] = stack;
        for (op, operands) in &program {
            (sem(*op).exec)(&mut m, operands).unwrap();
        }
        let want = m.state.clone();
        assert_eq!((want.gpr[0], want.gpr[4], want.gpr[5]), (0, stack, raw.gpr[5]));
        // SAFETY: the harness keeps the callee-saved registers and rsp, and touches only `raw`.
        unsafe { exec.run(&mut raw) };
        assert_eq!(&want.gpr[..4], &raw.gpr[..4], "rax..rbx");
        assert_eq!(want.gpr[5], raw.gpr[5], "rbp");
        assert_eq!(want.flags & STATUS, raw.flags & STATUS, "flags");
    }
}

/// `int3` traps: the interpreter reports a fault, not a step.
#[test]
fn int3_is_a_fault() {
    let mut mem = Buffer { base: 0, bytes: vec![0; 8] };
    let mut m = Machine { state: State::default(), mem: &mut mem };
    assert!((sem(Op::int3).exec)(&mut m, &[]).is_err());
}
