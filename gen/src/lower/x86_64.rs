//! x86-64 lowering: every instruction is encoded by iced-x86 from the codes its table entry names
//! ([`X86Encoding`](crate::isa::x86_64::X86Encoding)), laid out as GNU as lays out the listing.
//!
//! * Form: of the entry's codes that accept the operands, the shortest encoding, the first of equals (GNU as's
//!   choice: `add rax, imm32` over `add r/m64, imm32`, the store form of `vmovdqa` when it saves the 3-byte VEX
//!   prefix, `shl r/m64, 1` for a shift by one).
//! * Branches start in their first (short) form and take the next one when the displacement does not fit,
//!   until no branch changes: GNU as's relaxation, which only ever grows a branch.
//! * Alignment (function starts, loop heads) is filled with GNU as's NOPs: 11-byte NOPs, then one NOP of the
//!   remaining length.
//! * RIP-relative operands (constants) are encoded once and their 32-bit displacement patched when the layout
//!   is final; iced's [`ConstantOffsets`](iced_x86::ConstantOffsets) says where it is.
//!
//! [`disassemble`](Lower::disassemble) decodes the image with iced-x86 and prints it with its Intel formatter,
//! constants and functions by name: what the CPU will run, not what the description meant.

use super::image::{align_up, finish_image, place_constants, Image, Labels, Lower, Symbol};
use crate::abi::LandingPad;
use crate::builder::Sink;
use crate::error::GenError;
use crate::hash::FastSet;
use crate::ir::{Function, Item, Label};
use crate::isa::x86_64::{Mem, Op, Operand, X86_64};
use crate::isa::InstructionSet;
use crate::layout;
use crate::syntax::{Directives, Spelling};
use crate::target::{Arch, Target};
use iced_x86::{Code, Encoder, Instruction, MemoryOperand, Register, RepPrefixKind};
use std::cell::RefCell;
use std::rc::Rc;

macro_rules! registers {
    ($($r:ident),*) => { [$(Register::$r),*] };
}
const GPR64: [Register; 16] = registers!(RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15);
const GPR32: [Register; 16] =
    registers!(EAX, ECX, EDX, EBX, ESP, EBP, ESI, EDI, R8D, R9D, R10D, R11D, R12D, R13D, R14D, R15D);
const GPR8: [Register; 16] =
    registers!(AL, CL, DL, BL, SPL, BPL, SIL, DIL, R8L, R9L, R10L, R11L, R12L, R13L, R14L, R15L);
const XMM: [Register; 16] =
    registers!(XMM0, XMM1, XMM2, XMM3, XMM4, XMM5, XMM6, XMM7, XMM8, XMM9, XMM10, XMM11, XMM12, XMM13, XMM14, XMM15);
const YMM: [Register; 16] =
    registers!(YMM0, YMM1, YMM2, YMM3, YMM4, YMM5, YMM6, YMM7, YMM8, YMM9, YMM10, YMM11, YMM12, YMM13, YMM14, YMM15);

/// An operand as iced-x86 takes it.
#[derive(Clone, Copy)]
enum Arg {
    R(Register),
    /// A register under a zeroing opmask (the destination).
    Kz(Register, Register),
    /// Memory under a merging opmask (the destination).
    Mk(MemoryOperand, Register),
    M(MemoryOperand),
    I(i32),
    /// An immediate outside `i32` (`movabs`).
    Q(i64),
}

/// The operands of one instruction (at most four).
struct Args {
    args: [Arg; 4],
    len: usize,
}

impl Args {
    fn as_slice(&self) -> &[Arg] {
        &self.args[..self.len]
    }
}

fn mem_operand(m: &Mem) -> MemoryOperand {
    if m.label.is_some() {
        // Encoded with a provisional target; the displacement is patched once the layout is final.
        return MemoryOperand::new(Register::RIP, Register::None, 1, 0, 8, false, Register::None);
    }
    let base = m.base.map_or(Register::None, |b| GPR64[b.0 as usize]);
    let (index, scale) = m.index.map_or((Register::None, 1), |(i, s)| (GPR64[i.0 as usize], s as u32));
    // Displacement size 1: a byte if it fits, else 32 bits (iced), as GNU as picks; none when it is zero.
    let displ_size = if m.disp == 0 { 0 } else { 1 };
    MemoryOperand::new(base, index, scale, m.disp as i64, displ_size, false, Register::None)
}

/// The iced-x86 operands of a (non-branch) instruction.
fn args(operands: &[Operand]) -> Result<Args, String> {
    let mut out = Args { args: [Arg::I(0); 4], len: operands.len() };
    if operands.len() > 4 {
        return Err("more than four operands".into());
    }
    for (a, o) in out.args.iter_mut().zip(operands) {
        *a = match o {
            Operand::Gpr(n) => Arg::R(GPR64[*n as usize]),
            Operand::Gpr32(n) => Arg::R(GPR32[*n as usize]),
            Operand::Gpr8(n) => Arg::R(GPR8[*n as usize]),
            Operand::Xmm(n) => Arg::R(XMM[*n as usize]),
            Operand::Ymm(n) => Arg::R(YMM[*n as usize]),
            Operand::Zmm(n) if *n < 32 => Arg::R(Register::ZMM0 + *n as u32),
            Operand::Zmm(n) => return Err(format!("no register zmm{n}")),
            Operand::ZmmMaskz(n, k) if *n < 32 && *k < 8 => {
                Arg::Kz(Register::ZMM0 + *n as u32, Register::K0 + *k as u32)
            }
            Operand::ZmmMaskz(n, k) => return Err(format!("no register zmm{n} or k{k}")),
            Operand::K(k) if *k < 8 => Arg::R(Register::K0 + *k as u32),
            Operand::K(k) => return Err(format!("no register k{k}")),
            Operand::Mem(_, m) => Arg::M(mem_operand(m)),
            Operand::MemMask(_, m, k) if *k < 8 => Arg::Mk(mem_operand(m), Register::K0 + *k as u32),
            Operand::MemMask(_, _, k) => return Err(format!("no register k{k}")),
            Operand::Imm(v) => i32::try_from(*v).map_or(Arg::Q(*v), Arg::I),
            Operand::Sel(v) => Arg::I(*v as i32),
            Operand::Label(l) => return Err(format!("label {} outside a branch", l.name())),
        };
    }
    Ok(out)
}

/// The RIP-relative operand of an instruction: its label and addend.
fn rip_ref(operands: &[Operand]) -> Option<(&Label, i32)> {
    operands.iter().find_map(|o| match o {
        Operand::Mem(_, m) | Operand::MemMask(_, m, _) => m.label.as_ref().map(|l| (l, m.disp)),
        _ => None,
    })
}

/// The instruction `code` with `args`, as far as iced-x86 accepts the combination.
fn instruction(code: Code, args: &[Arg]) -> Result<Instruction, String> {
    match build(code, args) {
        Some(ins) => ins.map_err(|e| e.to_string()),
        None => Err("no iced-x86 constructor for this operand combination".into()),
    }
}

/// [`instruction`] without formatting its error (none where no constructor takes `args`).
fn build(code: Code, args: &[Arg]) -> Option<Result<Instruction, iced_x86::IcedError>> {
    use Arg::*;
    let masked = match args.first() {
        Some(&Kz(r, k)) => Some((R(r), k, true)),
        Some(&Mk(m, k)) => Some((M(m), k, false)),
        _ => None,
    };
    if let Some((first, k, zeroing)) = masked {
        let mut plain = [I(0); 4];
        plain[..args.len()].copy_from_slice(args);
        plain[0] = first;
        return build(code, &plain[..args.len()]).map(|ins| {
            ins.map(|mut ins| {
                ins.set_op_mask(k);
                ins.set_zeroing_masking(zeroing);
                ins
            })
        });
    }
    if let Some(swapped) = accumulator_form(code, args) {
        return swapped.and_then(|a| build(code, &a));
    }
    Some(match *args {
        [] => string_instruction(code).unwrap_or_else(|| Ok(Instruction::with(code))),
        [R(a)] => Instruction::with1(code, a),
        [M(a)] => Instruction::with1(code, a),
        [R(a), R(b)] => Instruction::with2(code, a, b),
        [R(a), M(b)] => Instruction::with2(code, a, b),
        [M(a), R(b)] => Instruction::with2(code, a, b),
        [R(a), I(b)] => Instruction::with2(code, a, b),
        [R(a), Q(b)] => Instruction::with2(code, a, b),
        [R(a), R(b), R(c)] => Instruction::with3(code, a, b, c),
        [R(a), R(b), M(c)] => Instruction::with3(code, a, b, c),
        [R(a), M(b), R(c)] => Instruction::with3(code, a, b, c),
        [M(a), R(b), R(c)] => Instruction::with3(code, a, b, c),
        [M(a), R(b), I(c)] => Instruction::with3(code, a, b, c),
        [M(a), I(b)] => Instruction::with2(code, a, b),
        [R(a), R(b), I(c)] => Instruction::with3(code, a, b, c),
        [R(a), M(b), I(c)] => Instruction::with3(code, a, b, c),
        [R(a), R(b), R(c), I(d)] => Instruction::with4(code, a, b, c, d),
        [R(a), R(b), M(c), I(d)] => Instruction::with4(code, a, b, c, d),
        _ => return None,
    })
}

/// `xchg`'s one-byte forms (`90+r`, with rax or eax second): the operands in that order (`xchg` commutes, and
/// GNU as takes the form for either), `None` where the operands already are, and no instruction for `eax, eax`
/// (`90` is `nop`, which does not zero rax's upper half). Other codes: `None`.
fn accumulator_form(code: Code, args: &[Arg]) -> Option<Option<[Arg; 2]>> {
    let acc = match code {
        Code::Xchg_r64_RAX => Register::RAX,
        Code::Xchg_r32_EAX => Register::EAX,
        _ => return None,
    };
    match *args {
        [Arg::R(a), Arg::R(b)] if a == acc && b == acc => (acc == Register::EAX).then_some(None),
        [Arg::R(a), Arg::R(b)] if a == acc => Some(Some([Arg::R(b), Arg::R(a)])),
        _ => None,
    }
}

/// The string instructions (their operands are implicit: `[rsi]`, `[rdi]`, the accumulator), without a prefix.
fn string_instruction(code: Code) -> Option<Result<Instruction, iced_x86::IcedError>> {
    Some(match code {
        Code::Movsb_m8_m8 => Instruction::with_movsb(64, Register::None, RepPrefixKind::None),
        Code::Movsq_m64_m64 => Instruction::with_movsq(64, Register::None, RepPrefixKind::None),
        Code::Stosb_m8_AL => Instruction::with_stosb(64, RepPrefixKind::None),
        Code::Stosq_m64_RAX => Instruction::with_stosq(64, RepPrefixKind::None),
        _ => return None,
    })
}

/// What decides whether iced-x86 takes a form's operands, 14 bits per operand: its kind; for a register
/// whether it is number 0 or 1 (the fixed `rax`/`cl` forms), at least 8 or 16; for memory whether it is
/// RIP-relative, has a base, an index, `rsp` as index (refused by every form), and its scale; for an immediate whether it is 1 (`shl r/m64, 1`), which sizes it fits (8, 16, 32 bits,
/// signed or not) and its sign. A form that refused one instruction's operands refuses every instruction's of
/// the same shape: [`Assembler`] does not try it again (each refusal costs iced-x86 a formatted error).
fn shape(operands: &[Operand]) -> u64 {
    let reg = |kind: u64, n: u8| {
        kind | ((n == 0) as u64) << 4 | ((n == 1) as u64) << 5 | ((n >= 8) as u64) << 6 | ((n >= 16) as u64) << 7
    };
    let imm = |kind: u64, v: i64| {
        let fits = |lo: i64, hi: i64| (lo..=hi).contains(&v) as u64;
        kind | ((v == 1) as u64) << 4
            | fits(-128, 127) << 5
            | fits(0, 255) << 6
            | fits(-32768, 32767) << 7
            | fits(0, 65535) << 8
            | fits(i32::MIN as i64, i32::MAX as i64) << 9
            | fits(0, u32::MAX as i64) << 10
            | ((v >= 0) as u64) << 11
    };
    let mut s = operands.len() as u64;
    for (i, o) in operands.iter().take(4).enumerate() {
        let b = match o {
            Operand::Gpr(n) => reg(1, *n),
            Operand::Gpr32(n) => reg(2, *n),
            Operand::Gpr8(n) => reg(10, *n),
            Operand::Xmm(n) => reg(3, *n),
            Operand::Ymm(n) => reg(4, *n),
            Operand::Zmm(n) => reg(5, *n),
            Operand::ZmmMaskz(n, _) => reg(11, *n),
            Operand::K(n) => reg(12, *n),
            Operand::Mem(_, m) | Operand::MemMask(_, m, _) => {
                let kind = if matches!(o, Operand::Mem(..)) { 6 } else { 13 };
                let (index, scale) = m.index.map_or((None, 0), |(i, s)| (Some(i.0), s as u64));
                kind | (m.label.is_some() as u64) << 4
                    | (m.base.is_some() as u64) << 5
                    | (index.is_some() as u64) << 6
                    | ((index == Some(4)) as u64) << 7
                    | (scale & 0xf) << 8
            }
            Operand::Imm(v) => imm(7, *v),
            Operand::Sel(v) => imm(8, *v as i64),
            Operand::Label(_) => 9,
        };
        s |= b << (4 + 14 * i);
    }
    s
}

/// What an encoding depends on: the opcode and the operands, one word each, RIP-relative labels left out (they
/// are encoded with a provisional target and patched).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    op: Op,
    operands: [u64; 4],
}

impl Key {
    /// The words mixed into one (independent multiplications, not a chain of five): on the JIT's startup path,
    /// once per instruction. An absent operand is the word 0, which no operand packs to.
    #[inline(always)]
    fn hash(&self) -> u64 {
        const K: [u64; 4] =
            [0x9e37_79b9_7f4a_7c15, 0xc2b2_ae3d_27d4_eb4f, 0x1656_67b1_9e37_79f9, 0x27d4_eb2f_1656_67c5];
        let [a, b, c, d] = self.operands;
        let m = (a ^ (self.op as u64) << 48).wrapping_mul(K[0])
            ^ b.wrapping_mul(K[1]).rotate_left(16)
            ^ c.wrapping_mul(K[2]).rotate_left(32)
            ^ d.wrapping_mul(K[3]).rotate_left(48);
        // The high bits pick the slot ([`Cache::slot`]): fold the low ones in.
        (m ^ m >> 29).wrapping_mul(K[0])
    }
}

/// The encoding cache: open addressing with linear probing in a power-of-two table at most half full, each
/// slot (40 bytes) a key's operands, then its opcode and encoding packed in one word ([`Cache::meta`]), so that
/// one probe (one cache line, most of the time) finds an instruction, against a hash map's control bytes,
/// then its bucket. An empty slot is all zeros (no encoding is empty): the table is allocated zeroed, and its
/// pages are touched only where a key lands.
struct Cache {
    slots: Vec<[u64; 5]>,
    /// 64 minus log2 of the table's size: a hash's high bits are its first slot.
    shift: u32,
    len: usize,
}

impl Cache {
    fn with_log2(log2: u32) -> Cache {
        Cache { slots: vec![[0; 5]; 1 << log2], shift: 64 - log2, len: 0 }
    }

    /// A slot's last word: the opcode (bits 0-15), the encoding's length (16-23, never 0), displacement offset
    /// (24-31) and place in [`Assembler::main`] (32-63).
    fn meta(op: Op, e: Encoded) -> u64 {
        op as u64 | (e.len as u64) << 16 | (e.disp as u64) << 24 | (e.at as u64) << 32
    }

    /// The slot of `key`: where it is, or the empty one where it goes.
    #[inline(always)]
    fn slot(&self, key: &Key) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = (key.hash() >> self.shift) as usize;
        loop {
            let s = &self.slots[i];
            if s[4] == 0 || (s[4] as u16 == key.op as u16 && s[..4] == key.operands) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    #[inline(always)]
    fn get(&self, key: &Key) -> Option<Encoded> {
        let m = self.slots[self.slot(key)][4];
        (m != 0).then_some(Encoded { at: (m >> 32) as u32, len: (m >> 16) as u8, disp: (m >> 24) as u8 })
    }

    /// Records `key`'s encoding (absent from the cache); an empty one, which no instruction has, is not kept.
    fn insert(&mut self, key: Key, e: Encoded) {
        if e.len == 0 {
            return;
        }
        if 2 * (self.len + 1) > self.slots.len() {
            let old = std::mem::replace(self, Cache::with_log2(65 - self.shift));
            for s in old.slots.iter().filter(|s| s[4] != 0) {
                let op = Op::ALL[(s[4] & 0xffff) as usize];
                let [a, b, c, d, m] = *s;
                let e = Encoded { at: (m >> 32) as u32, len: (m >> 16) as u8, disp: (m >> 24) as u8 };
                self.insert(Key { op, operands: [a, b, c, d] }, e);
            }
        }
        let i = self.slot(&key);
        debug_assert!(self.slots[i][4] == 0);
        let [a, b, c, d] = key.operands;
        self.slots[i] = [a, b, c, d, Cache::meta(key.op, e)];
        self.len += 1;
    }
}

impl Key {
    /// The key of an instruction, or `None` where an operand does not pack into a word (an immediate outside
    /// `i32`, which the encoding refuses anyway, or a register number outside 0..16, 0..32 for zmm): such an
    /// instruction is encoded without the cache. The low 4 bits of a word are the operand's kind, so words of
    /// different kinds differ; a memory operand packs its size (3 bits), base and index (5 bits each, 16 for
    /// none), scale (4 bits), whether it is RIP-relative (1 bit) and its displacement (the high 32 bits).
    #[inline(always)]
    fn new(op: Op, operands: &[Operand]) -> Option<Key> {
        let reg = |n: u8| (n < 16).then_some(n as u64);
        let mut k = Key { op, operands: [0; 4] };
        for (slot, o) in k.operands.iter_mut().zip(operands) {
            *slot = match o {
                Operand::Gpr(n) => 1 | reg(*n)? << 8,
                Operand::Gpr32(n) => 2 | reg(*n)? << 8,
                Operand::Gpr8(n) => 10 | reg(*n)? << 8,
                Operand::Xmm(n) => 3 | reg(*n)? << 8,
                Operand::Ymm(n) => 4 | reg(*n)? << 8,
                Operand::Zmm(n) => 9 | ((*n < 32).then_some(*n as u64)?) << 8,
                Operand::ZmmMaskz(n, k) => {
                    11 | ((*n < 32).then_some(*n as u64)?) << 8 | ((*k < 8).then_some(*k as u64)?) << 16
                }
                Operand::K(k) => 12 | ((*k < 8).then_some(*k as u64)?) << 8,
                Operand::Mem(size, m) => {
                    let base = match m.base {
                        Some(b) => reg(b.0)?,
                        None => 16,
                    };
                    let (index, scale) = match m.index {
                        Some((i, s)) if s < 16 => (reg(i.0)?, s as u64),
                        Some(_) => return None,
                        None => (16, 0),
                    };
                    let rip = m.label.is_some() as u64;
                    5 | (*size as u64) << 4
                        | base << 7
                        | index << 12
                        | scale << 17
                        | rip << 21
                        | (m.disp as u32 as u64) << 32
                }
                // Rare: not cached.
                Operand::MemMask(..) => return None,
                Operand::Imm(v) => 6 | (i32::try_from(*v).ok()? as u32 as u64) << 32,
                Operand::Sel(v) => 7 | (*v as u64) << 8,
                Operand::Label(_) => 8,
            };
        }
        Some(k)
    }
}

/// An encoded instruction in [`Assembler::main`]'s buffer: where, how long, and where its displacement is.
#[derive(Clone, Copy)]
struct Encoded {
    at: u32,
    len: u8,
    disp: u8,
}

impl Encoded {
    fn new(at: usize, len: usize, disp: usize) -> Result<Encoded, String> {
        let too_long = || "code too long for the encoding cache".to_string();
        Ok(Encoded {
            at: u32::try_from(at).map_err(|_| too_long())?,
            len: u8::try_from(len).map_err(|_| too_long())?,
            disp: u8::try_from(disp).map_err(|_| too_long())?,
        })
    }
}

/// Encodes instructions once each (an instruction that recurs, as unrolled rounds do, reuses its bytes).
struct Assembler {
    /// Every distinct non-branch instruction, encoded with provisional RIP-relative targets.
    main: Encoder,
    /// The bytes `main` has produced so far.
    len: usize,
    /// For measuring the alternative forms of an entry.
    scratch: Encoder,
    cache: Cache,
    /// The forms iced-x86 refused, by code and operand [`shape`]: not tried again.
    refused: FastSet<(Code, u64)>,
}

impl Assembler {
    fn new() -> Assembler {
        // Room for the host's sets (about 1,600 distinct instructions) without growing.
        Assembler {
            main: Encoder::new(64),
            len: 0,
            scratch: Encoder::new(64),
            cache: Cache::with_log2(12),
            refused: FastSet::default(),
        }
    }

    fn clear_scratch(&mut self) {
        let mut b = self.scratch.take_buffer();
        b.clear();
        self.scratch.set_buffer(b);
    }

    /// Encodes `inst`: of the codes of its entry that accept the operands, the shortest, the first of equals.
    /// Most instructions recur: the cache's hit is this inlined path, the encoding another function.
    #[inline(always)]
    fn encode(&mut self, op: Op, codes: &[Code], operands: &[Operand]) -> Result<Encoded, String> {
        let key = Key::new(op, operands);
        if let Some(e) = key.as_ref().and_then(|k| self.cache.get(k)) {
            return Ok(e);
        }
        self.encode_new(op, key, codes, operands)
    }

    /// Encodes an instruction of entry `op` the cache lacks (`key`: its key, `None` if it has none) and records it.
    #[inline(never)]
    fn encode_new(
        &mut self,
        op: Op,
        key: Option<Key>,
        codes: &[Code],
        operands: &[Operand],
    ) -> Result<Encoded, String> {
        let args = args(operands)?;
        let args = args.as_slice();
        let e = match codes {
            [code] => {
                let mut ins = instruction(*code, args)?;
                // `rep movsb` and the like: the string instruction's code with the prefix.
                ins.set_has_rep_prefix(X86_64::info(op).syntax.starts_with("rep "));
                let len = self.main.encode(&ins, 0).map_err(|e| e.to_string())?;
                Encoded::new(self.len, len, self.main.get_constant_offsets().displacement_offset())?
            }
            _ => self.encode_shortest(codes, args, shape(operands))?,
        };
        self.len += e.len as usize;
        if let Some(key) = key {
            self.cache.insert(key, e);
        }
        Ok(e)
    }

    /// Encodes each of `codes` that accepts `args` and appends the shortest, the first of equals, to the code
    /// (its bytes copied, not encoded again).
    fn encode_shortest(&mut self, codes: &[Code], args: &[Arg], shape: u64) -> Result<Encoded, String> {
        let mut best: Option<([u8; 16], usize, usize)> = None;
        for &code in codes {
            if self.refused.contains(&(code, shape)) {
                continue;
            }
            let Some(Ok(ins)) = build(code, args) else {
                self.refused.insert((code, shape));
                continue;
            };
            let encoded = self.scratch.encode(&ins, 0);
            if encoded.is_err() {
                self.refused.insert((code, shape));
            }
            if let Ok(len) = encoded {
                if len <= 16 && best.is_none_or(|(_, l, _)| len < l) {
                    let mut bytes = [0; 16];
                    let disp = self.scratch.get_constant_offsets().displacement_offset();
                    let b = self.scratch.take_buffer();
                    bytes[..len].copy_from_slice(&b[..len]);
                    self.scratch.set_buffer(b);
                    best = Some((bytes, len, disp));
                }
            }
            self.clear_scratch();
        }
        let (bytes, len, disp) = best.ok_or("no form of the entry accepts these operands")?;
        let mut b = self.main.take_buffer();
        b.extend_from_slice(&bytes[..len]);
        self.main.set_buffer(b);
        Encoded::new(self.len, len, disp)
    }

    /// Encodes an instruction without operands that the table does not hold (the landing pad).
    fn encode_code(&mut self, code: Code) -> Result<Encoded, String> {
        let len = self.main.encode(&Instruction::with(code), 0).map_err(|e| e.to_string())?;
        let e = Encoded::new(self.len, len, 0)?;
        self.len += len;
        Ok(e)
    }
}

/// No label: a [`Piece::Bytes`] without a RIP-relative operand.
const NO_LABEL: u32 = u32::MAX;

/// One element of the code, in order (8 bytes: the JIT writes one per instruction). Labels and branches are
/// numbered.
#[derive(Clone, Copy)]
enum Piece {
    /// Pad to a multiple of `1 << n` bytes.
    Align(u32),
    /// Encoded bytes; with `rip`, a RIP-relative displacement (at `disp`) whose label and addend are the next
    /// of the layout's [`Layout::rips`].
    Bytes { at: u32, len: u8, disp: u8, rip: bool },
    /// Branch `b` of [`Branches`], encoded once the layout is known.
    Branch(u32),
}

/// One element of the layout, what relaxation walks: the pieces with each run of encoded bytes as its length,
/// labels and function bounds (which emit no bytes) in their place.
#[derive(Clone, Copy)]
enum Step {
    /// This many bytes of encoded instructions.
    Run(u32),
    /// Pad to a multiple of `1 << n` bytes.
    Align(u32),
    /// Function `i` starts here (after its alignment).
    Start(u32),
    /// Function `i` ends here.
    End(u32),
    /// Label `id`.
    Label(u32),
    /// Branch `b`.
    Branch(u32),
}

/// The pieces and the steps of the code, built together.
#[derive(Default)]
struct Layout {
    pieces: Vec<Piece>,
    /// The label and addend of each RIP-relative piece, in order (most pieces have none).
    rips: Vec<(u32, i32)>,
    steps: Vec<Step>,
    /// Bytes since the last step.
    run: u32,
}

impl Layout {
    fn bytes(&mut self, e: Encoded, rip: u32, addend: i32) {
        if rip != NO_LABEL {
            self.rips.push((rip, addend));
        }
        self.pieces.push(Piece::Bytes { at: e.at, len: e.len, disp: e.disp, rip: rip != NO_LABEL });
        self.run += e.len as u32;
    }

    /// The layout with its last run of bytes a step: a segment of the code, which the next one continues.
    fn sealed(mut self) -> Layout {
        if self.run > 0 {
            self.steps.push(Step::Run(self.run));
            self.run = 0;
        }
        self
    }

    fn step(&mut self, s: Step) {
        if self.run > 0 {
            self.steps.push(Step::Run(self.run));
            self.run = 0;
        }
        self.steps.push(s);
        match s {
            Step::Align(n) => self.pieces.push(Piece::Align(n)),
            Step::Branch(b) => self.pieces.push(Piece::Branch(b)),
            Step::Run(_) | Step::Start(_) | Step::End(_) | Step::Label(_) => {}
        }
    }
}

/// A branch: its entry's forms (short first; indices into [`Branches::forms`]) and how many, the current one,
/// the target label and where it starts in the current layout.
struct Branch {
    forms: [u8; 2],
    count: usize,
    form: usize,
    target: u32,
    at: usize,
}

/// A branch form: its code, length, and bytes but for the displacement, which is its last byte (rel8, the 2-byte
/// forms) or its last four (rel32).
#[derive(Clone, Copy)]
struct BranchForm {
    code: Code,
    len: usize,
    bytes: [u8; 8],
}

impl BranchForm {
    /// Encodes `code` once (iced-x86) and checks that the displacement is where [`BranchForm::emit`] writes it.
    fn new(code: Code) -> Result<BranchForm, String> {
        let target = 0x10;
        let ins = Instruction::with_branch(code, target).map_err(|e| e.to_string())?;
        let mut e = Encoder::new(64);
        let len = e.encode(&ins, 0).map_err(|e| e.to_string())?;
        let bytes = e.take_buffer();
        let width = if len == 2 { 1 } else { 4 };
        let disp = (target as i64 - len as i64).to_le_bytes();
        if !(2..=8).contains(&len) || bytes.len() != len || bytes[len - width..] != disp[..width] {
            return Err(format!("{code:?}: the displacement is not the branch's last bytes"));
        }
        let mut b = [0; 8];
        b[..len - width].copy_from_slice(&bytes[..len - width]);
        Ok(BranchForm { code, len, bytes: b })
    }

    /// Writes the branch to `target` at `out[pc..]` (and up to 8 bytes, which what follows overwrites);
    /// `target` is in reach ([`reaches`]).
    fn emit(&self, out: &mut [u8], pc: usize, target: usize) {
        let disp = (target as i64 - (pc + self.len) as i64).to_le_bytes();
        let width = if self.len == 2 { 1 } else { 4 };
        out[pc..pc + 8].copy_from_slice(&self.bytes);
        out[pc + self.len - width..pc + self.len].copy_from_slice(&disp[..width]);
    }
}

/// The branches, in order, and the branch forms met so far.
#[derive(Default)]
struct Branches {
    list: Vec<Branch>,
    forms: Vec<BranchForm>,
}

impl Branches {
    /// Adds a branch to `target` with the forms `codes` (one or two, short first); returns its number.
    fn add(&mut self, codes: &'static [Code], target: u32) -> Result<u32, String> {
        if codes.is_empty() || codes.len() > 2 {
            return Err("a branch entry has not one or two forms".into());
        }
        let mut forms = [0; 2];
        for (slot, &c) in forms.iter_mut().zip(codes) {
            let i = match self.forms.iter().position(|f| f.code == c) {
                Some(i) => i,
                None => {
                    self.forms.push(BranchForm::new(c)?);
                    self.forms.len() - 1
                }
            };
            *slot = u8::try_from(i).map_err(|_| "more than 256 branch forms")?;
        }
        self.list.push(Branch { forms, count: codes.len(), form: 0, target, at: 0 });
        Ok(self.list.len() as u32 - 1)
    }
}

/// Whether a branch of `len` bytes at `pc` reaches `target`: the 2-byte forms (opcode, rel8) reach
/// -128..=127 bytes from their end, the longer ones (rel32) +-2 GiB. The final encoding through iced-x86
/// checks it again.
fn reaches(len: usize, pc: usize, target: usize) -> bool {
    let disp = target as i64 - (pc + len) as i64;
    if len == 2 {
        i8::try_from(disp).is_ok()
    } else {
        i32::try_from(disp).is_ok()
    }
}

/// Labels numbered in order of appearance. Labels are equal by name: a label is numbered by name the first
/// time, and its number marked on it for this numbering ([`Label::mark`]), so that the references after it
/// (most share their label's allocation) read it there instead of hashing.
struct Numbering {
    /// This numbering's session: a label's mark is this numbering's only when it carries it (0: no marks).
    session: u64,
    /// The labels by name: an open-addressed table (linear probing, at most half full) of label numbers
    /// plus one (0: empty), into `names`, which holds each label once.
    table: Vec<u32>,
    names: Vec<Label>,
}

/// The last numbering session started ([`Numbering::session`]).
static SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Numbering {
    fn with_capacity(n: usize) -> Numbering {
        // After 2^40 numberings in a process, the session 0: labels are then numbered by name every time.
        let session = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        Numbering {
            session: if session < 1 << 40 { session } else { 0 },
            table: vec![0; (2 * n).next_power_of_two().max(16)],
            names: Vec::with_capacity(n),
        }
    }

    /// The slot of the label named as `l`: where its number is, or the empty one where it goes.
    fn slot(table: &[u32], names: &[Label], l: &Label) -> usize {
        use std::hash::BuildHasher;
        let mask = table.len() - 1;
        let h = crate::hash::FastState::default().hash_one(l);
        let mut i = (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as usize & mask;
        loop {
            match table[i] {
                0 => return i,
                id if names[id as usize - 1] == *l => return i,
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn number(&mut self, l: &Label) -> u32 {
        if let Some(id) = l.mark(self.session) {
            return id;
        }
        let i = Numbering::slot(&self.table, &self.names, l);
        let id = match self.table[i] {
            0 => {
                let id = self.names.len() as u32;
                self.names.push(l.clone());
                self.table[i] = id + 1;
                if 2 * self.names.len() > self.table.len() {
                    let mut table = vec![0; 2 * self.table.len()];
                    for (n, name) in self.names.iter().enumerate() {
                        let j = Numbering::slot(&table, &self.names, name);
                        table[j] = n as u32 + 1;
                    }
                    self.table = table;
                }
                id
            }
            id => id - 1,
        };
        l.set_mark(self.session, id);
        id
    }
}

fn fail(function: &str, message: impl Into<String>) -> GenError {
    GenError { function: function.to_string(), message: message.into() }
}

/// The state of one image's lowering: the encoder, the pieces and steps laid out so far, the branches and the
/// labels. Every distinct instruction is encoded once; labels and branches are numbered.
struct Lowering {
    asm: Assembler,
    /// The landing pad's encoding.
    endbr: Encoded,
    /// The code so far: finished segments (a streamed function's body is one), then the current one.
    segments: Vec<Layout>,
    code: Layout,
    branches: Branches,
    labels: Numbering,
    /// Instructions in the functions' bodies.
    instructions: usize,
}

impl Lowering {
    fn new(pieces: usize) -> Result<Lowering, GenError> {
        let mut asm = Assembler::new();
        let endbr = asm.encode_code(Code::Endbr64).map_err(|e| fail("", e))?;
        Ok(Lowering {
            asm,
            endbr,
            segments: Vec::new(),
            code: Layout { pieces: Vec::with_capacity(pieces), ..Layout::default() },
            branches: Branches::default(),
            labels: Numbering::with_capacity(1024),
            instructions: 0,
        })
    }

    /// Function `i`'s alignment, start and landing pad.
    fn start(&mut self, i: usize, f: &Function<X86_64>) -> Result<(), GenError> {
        self.code.step(Step::Align(layout::FUNCTION_ALIGN_LOG2));
        self.code.step(Step::Start(i as u32));
        match layout::landing_pad(f) {
            Some(LandingPad::Endbr64) => self.code.bytes(self.endbr, NO_LABEL, 0),
            Some(pad) => return Err(fail(&f.name, format!("no encoding of the landing pad {pad:?}"))),
            None => {}
        }
        Ok(())
    }

    /// Items of `f` appended to the code; returns how many instructions they hold.
    fn items(&mut self, f: &Function<X86_64>, items: &[Item<X86_64>]) -> Result<usize, GenError> {
        let mut instructions = 0;
        for item in items {
            let (asm, branches, labels, code) = (&mut self.asm, &mut self.branches, &mut self.labels, &mut self.code);
            match item {
                Item::Inst(inst) => {
                    instructions += 1;
                    instruction_piece(asm, branches, labels, code, inst.op, &inst.operands)
                        .map_err(|e| fail(&f.name, e))?
                }
                Item::Label(l) => {
                    let id = labels.number(l);
                    code.step(Step::Label(id))
                }
                Item::Align(n) => code.step(Step::Align(*n)),
                Item::Comment(_) | Item::Blank | Item::Cfi(_) => {}
            }
        }
        Ok(instructions)
    }

    /// The functions as pieces and steps, from their items.
    fn functions(&mut self, functions: &[&Function<X86_64>]) -> Result<(), GenError> {
        for (i, f) in functions.iter().enumerate() {
            let (prologue, epilogue) = layout::prologue_epilogue(f);
            self.start(i, f)?;
            self.items(f, &prologue)?;
            self.instructions += self.items(f, &f.body)?;
            self.items(f, &epilogue)?;
            self.code.step(Step::End(i as u32));
        }
        Ok(())
    }

    /// Relaxes the branches, places the constants after the code and writes the image.
    fn finish(self, functions: &[&Function<X86_64>]) -> Result<Image, GenError> {
        let Lowering { mut asm, mut segments, code, mut branches, labels, instructions, .. } = self;
        segments.push(code.sealed());
        let mut encoded = asm.main.take_buffer();
        encoded.resize(encoded.len() + SLACK, 0);
        let names = labels.names;
        let placement = relax(&segments, &mut branches, functions.len(), &names)?;
        let code_len = placement.code_len;

        // The constants, after the code; RIP-relative operands may refer to them.
        let mut labels = Labels::default();
        let (rodata_offset, consts) =
            place_constants(functions.iter().copied(), code_len, |l, offset| labels.define(l, offset))?;
        // Each label's offset, looked up by name once per constant (not once per reference).
        let mut target = placement.at;
        for (id, at) in target.iter_mut().enumerate() {
            if *at == UNBOUND {
                *at =
                    labels.get(&names[id]).ok_or_else(|| fail("", format!("undefined label {}", names[id].name())))?;
            }
        }
        let capacity = rodata_offset + consts.iter().map(|(c, _)| c.bytes.len() + 32).sum::<usize>();
        let out = emit_code(&segments, &branches, &encoded, code_len, capacity, &target)?;
        debug_assert_eq!(out.len(), code_len);
        let symbols = functions
            .iter()
            .enumerate()
            .map(|(i, f)| Symbol {
                name: f.name.clone(),
                offset: placement.starts[i],
                len: placement.ends[i] - placement.starts[i],
            })
            .collect();
        Ok(finish_image(out, code_len, rodata_offset, consts, symbols, instructions))
    }
}

/// One instruction appended to `code`: a branch (encoded once the layout is known) or encoded bytes.
fn instruction_piece(
    asm: &mut Assembler,
    branches: &mut Branches,
    labels: &mut Numbering,
    code: &mut Layout,
    op: Op,
    operands: &[Operand],
) -> Result<(), String> {
    let info = X86_64::info(op);
    let enc = info.encoding.ok_or_else(|| format!("{}: no encoding", info.name))?;
    if let [Operand::Label(target)] = operands {
        let target = labels.number(target);
        let b = branches.add(enc.0, target)?;
        code.step(Step::Branch(b));
        return Ok(());
    }
    let e = asm.encode(op, enc.0, operands).map_err(|e| format!("{}: {e}", info.name))?;
    match rip_ref(operands) {
        Some((l, addend)) => {
            let id = labels.number(l);
            code.bytes(e, id, addend)
        }
        None => code.bytes(e, NO_LABEL, 0),
    }
    Ok(())
}

/// The lowering of x86-64 functions fed by their builders as they are built (the JIT's path: see
/// [`builder::streaming`](crate::builder::streaming)): each instruction is encoded when the kernel makes it,
/// into its function's pieces, so that no item is written, read back or dropped. [`Stream::lower`] then lays
/// the functions out as [`Lower::lower`] lays out their items: the same bytes (tested for every kernel set by
/// the runtime's `every_set_lowers_to_the_same_bytes_streamed`).
pub struct Stream {
    shared: Rc<RefCell<Shared>>,
}

/// What the builders of a [`Stream`] share: the encoder, branches and labels of the image, and each finished
/// function's body as pieces.
struct Shared {
    asm: Assembler,
    branches: Branches,
    labels: Numbering,
    /// Each function finished so far: its name, body and instruction count.
    bodies: Vec<(String, Layout, usize)>,
}

/// A builder's sink: one function's body.
struct BodySink {
    shared: Rc<RefCell<Shared>>,
    code: Layout,
    instructions: usize,
}

impl Sink<X86_64> for BodySink {
    fn inst(&mut self, op: Op, operands: &[Operand]) -> Result<(), String> {
        self.instructions += 1;
        let s = &mut *self.shared.borrow_mut();
        instruction_piece(&mut s.asm, &mut s.branches, &mut s.labels, &mut self.code, op, operands)
    }

    fn bind(&mut self, label: &Label) {
        let id = self.shared.borrow_mut().labels.number(label);
        self.code.step(Step::Label(id));
    }

    fn align(&mut self, log2: u32) {
        self.code.step(Step::Align(log2));
    }

    fn finish(&mut self, function: &Function<X86_64>) -> Result<(), String> {
        let code = std::mem::take(&mut self.code);
        self.shared.borrow_mut().bodies.push((function.name.clone(), code, self.instructions));
        Ok(())
    }
}

impl Stream {
    /// Runs `build` with every x86-64 builder it starts feeding this lowering (and making functions with empty
    /// bodies); returns what `build` returns and the stream to lower the functions with.
    pub fn build<R>(build: impl FnOnce() -> R) -> (R, Stream) {
        let asm = Assembler::new();
        let shared = Rc::new(RefCell::new(Shared {
            asm,
            branches: Branches::default(),
            labels: Numbering::with_capacity(1024),
            bodies: Vec::new(),
        }));
        let make = {
            let shared = shared.clone();
            move |_: &str| -> Box<dyn Sink<X86_64>> {
                let code =
                    Layout { pieces: Vec::with_capacity(1024), steps: Vec::with_capacity(128), ..Layout::default() };
                Box::new(BodySink { shared: shared.clone(), code, instructions: 0 })
            }
        };
        let r = crate::builder::streaming(make, build);
        (r, Stream { shared })
    }

    /// Lowers `functions` (in order; each built during [`Stream::build`], by name) into one image, as
    /// [`Lower::lower`] lowers the same functions built with their items.
    pub fn lower(self, functions: &[&Function<X86_64>]) -> Result<Image, GenError> {
        let shared =
            Rc::try_unwrap(self.shared).map_err(|_| fail("", "a builder of the stream is still open"))?.into_inner();
        let Shared { mut asm, branches, labels, mut bodies } = shared;
        let endbr = asm.encode_code(Code::Endbr64).map_err(|e| fail("", e))?;
        let mut l = Lowering {
            asm,
            endbr,
            segments: Vec::with_capacity(2 * functions.len() + 1),
            code: Layout::default(),
            branches,
            labels,
            instructions: 0,
        };
        for (i, f) in functions.iter().enumerate() {
            let at = bodies
                .iter()
                .position(|(name, _, _)| *name == f.name)
                .ok_or_else(|| fail(&f.name, "the function was not built in this stream"))?;
            let (_, body, instructions) = bodies.swap_remove(at);
            if !f.body.is_empty() {
                return Err(fail(&f.name, "a streamed function has items"));
            }
            let (prologue, epilogue) = layout::prologue_epilogue(f);
            l.start(i, f)?;
            l.items(f, &prologue)?;
            // The body is a segment of its own, not copied.
            let frame = std::mem::take(&mut l.code);
            l.segments.push(frame.sealed());
            l.segments.push(body.sealed());
            l.instructions += instructions;
            l.items(f, &epilogue)?;
            l.code.step(Step::End(i as u32));
        }
        l.finish(functions)
    }
}

const UNBOUND: usize = usize::MAX;

/// Where everything is once the branches are relaxed.
struct Placement {
    /// Offset of each numbered code label ([`UNBOUND`] for constants).
    at: Vec<usize>,
    /// Start and end of each function.
    starts: Vec<usize>,
    ends: Vec<usize>,
    /// Length of the code.
    code_len: usize,
}

impl Placement {
    /// Lays the steps out with the branches' current forms; records where each branch starts.
    fn place(&mut self, segments: &[Layout], branches: &mut Branches, names: &[Label]) -> Result<(), GenError> {
        self.at.fill(UNBOUND);
        let mut pc = 0;
        for s in segments.iter().flat_map(|l| &l.steps) {
            match *s {
                Step::Run(n) => pc += n as usize,
                Step::Align(n) => pc = align_up(pc, 1 << n),
                Step::Start(i) => self.starts[i as usize] = pc,
                Step::End(i) => self.ends[i as usize] = pc,
                Step::Label(l) => {
                    if self.at[l as usize] != UNBOUND {
                        return Err(fail("", format!("label {} defined twice", names[l as usize].name())));
                    }
                    self.at[l as usize] = pc;
                }
                Step::Branch(b) => {
                    let b = &mut branches.list[b as usize];
                    b.at = pc;
                    pc += branches.forms[b.forms[b.form] as usize].len;
                }
            }
        }
        self.code_len = pc;
        Ok(())
    }
}

/// Relaxes the branches as GNU as does: lay out, grow those that do not reach, until none changes.
fn relax(
    segments: &[Layout],
    branches: &mut Branches,
    functions: usize,
    names: &[Label],
) -> Result<Placement, GenError> {
    let mut placement =
        Placement { at: vec![UNBOUND; names.len()], starts: vec![0; functions], ends: vec![0; functions], code_len: 0 };
    loop {
        placement.place(segments, branches, names)?;
        let mut changed = false;
        for b in branches.list.iter_mut() {
            let to = placement.at[b.target as usize];
            if to == UNBOUND {
                return Err(fail("", format!("undefined label {}", names[b.target as usize].name())));
            }
            while !reaches(branches.forms[b.forms[b.form] as usize].len, b.at, to) {
                if b.form + 1 == b.count {
                    return Err(fail("", format!("branch to {} out of range", names[b.target as usize].name())));
                }
                b.form += 1;
                changed = true;
            }
        }
        if !changed {
            return Ok(placement);
        }
    }
}

/// The code: the encoded bytes copied, RIP-relative displacements patched, branches encoded in place,
/// alignment filled with GNU as's NOPs. `target` holds each label's final offset.
fn emit_code(
    segments: &[Layout],
    branches: &Branches,
    code: &[u8],
    code_len: usize,
    capacity: usize,
    target: &[usize],
) -> Result<Vec<u8>, GenError> {
    // Every piece is written as a whole 16 (or 8) bytes, a copy of fixed size rather than a call per piece,
    // from `code` with 16 bytes of slack, into `out` with as much: what follows overwrites the excess.
    let mut out = Vec::with_capacity(capacity.max(code_len + SLACK));
    out.resize(code_len + SLACK, 0);
    let mut fill = Vec::new();
    let mut pc = 0;
    for l in segments {
        let mut rips = l.rips.iter();
        for p in &l.pieces {
            match *p {
                Piece::Align(n) => {
                    let pad = align_up(pc, 1 << n) - pc;
                    fill.clear();
                    X86_64::code_fill(&mut fill, pad);
                    out[pc..pc + pad].copy_from_slice(&fill);
                    pc += pad;
                }
                Piece::Bytes { at, len, disp, rip } => {
                    let (at, len) = (at as usize, len as usize);
                    out[pc..pc + SLACK].copy_from_slice(&code[at..at + SLACK]);
                    if rip {
                        let &(rip, addend) =
                            rips.next().ok_or_else(|| fail("", "a RIP-relative piece without its label"))?;
                        let rel = target[rip as usize] as i64 + addend as i64 - (pc + len) as i64;
                        let rel = i32::try_from(rel).map_err(|_| fail("", "RIP-relative operand out of range"))?;
                        let d = pc + disp as usize;
                        out[d..d + 4].copy_from_slice(&rel.to_le_bytes());
                    }
                    pc += len;
                }
                Piece::Branch(b) => {
                    let b = &branches.list[b as usize];
                    let form = &branches.forms[b.forms[b.form] as usize];
                    form.emit(&mut out, pc, target[b.target as usize]);
                    pc += form.len;
                }
            }
        }
    }
    if pc != code_len {
        return Err(fail("", format!("the code is {pc} bytes where the layout had {code_len}")));
    }
    out.truncate(code_len);
    Ok(out)
}

/// The longest x86-64 instruction is 15 bytes: each piece is copied as 16.
const SLACK: usize = 16;

impl Lower for X86_64 {
    fn lower(functions: &[&Function<Self>]) -> Result<Image, GenError> {
        let mut l = Lowering::new(functions.iter().map(|f| f.body.len() + 16).sum())?;
        l.functions(functions)?;
        l.finish(functions)
    }

    fn disassemble(_functions: &[&Function<Self>], image: &Image) -> Result<Vec<String>, GenError> {
        Ok(image.symbols.iter().map(|s| disassemble_range(image, s.offset, s.len)).collect())
    }
}

/// Names constants and functions of an image in the formatter's output.
struct Names(Vec<(u64, String)>);

impl iced_x86::SymbolResolver for Names {
    fn symbol(
        &mut self,
        instruction: &Instruction,
        _operand: u32,
        instruction_operand: Option<u32>,
        address: u64,
        _address_size: u32,
    ) -> Option<iced_x86::SymbolResult<'_>> {
        // Only addresses: RIP-relative operands and branch targets (not displacements or immediates).
        let kind = instruction.op_kind(instruction_operand?);
        let address_operand = match kind {
            iced_x86::OpKind::Memory => instruction.is_ip_rel_memory_operand(),
            iced_x86::OpKind::NearBranch64 => true,
            _ => false,
        };
        if !address_operand {
            return None;
        }
        let i = self.0.partition_point(|(a, _)| *a <= address).checked_sub(1)?;
        let (at, name) = &self.0[i];
        (*at == address).then(|| iced_x86::SymbolResult::with_str(address, name.as_str()))
    }
}

/// Disassembles `len` bytes of `image` from `offset` (addresses are image offsets): one line per
/// instruction, `offset: bytes  instruction` in Intel syntax.
pub fn disassemble_range(image: &Image, offset: usize, len: usize) -> String {
    use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter};
    use std::fmt::Write;
    let local = Directives::of(Target::first_of(Arch::X86_64).format).local_label_prefix;
    let mut names: Vec<(u64, String)> =
        image.constants.iter().map(|(n, at)| (*at as u64, format!("{local}{n}"))).collect();
    names.extend(image.symbols.iter().map(|s| (s.offset as u64, s.name.clone())));
    names.sort();
    let mut fmt = IntelFormatter::with_options(Some(Box::new(Names(names))), None);
    let o = fmt.options_mut();
    o.set_hex_prefix("0x");
    o.set_hex_suffix("");
    o.set_uppercase_hex(false);
    o.set_space_after_operand_separator(true);
    o.set_first_operand_char_index(12);
    o.set_memory_size_options(iced_x86::MemorySizeOptions::Always);
    o.set_branch_leading_zeros(false);
    o.set_use_pseudo_ops(false);
    let bytes = &image.bytes[offset..offset + len];
    let mut decoder = Decoder::with_ip(64, bytes, offset as u64, DecoderOptions::NONE);
    let mut text = String::new();
    let mut line = String::new();
    let mut ins = Instruction::default();
    while decoder.can_decode() {
        decoder.decode_out(&mut ins);
        line.clear();
        fmt.format(&ins, &mut line);
        let at = ins.ip() as usize;
        let hex: String = image.bytes[at..at + ins.len()].iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(text, "{at:#06x}: {hex:<24} {line}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::Key;
    use crate::isa::x86_64::{mem, mem_index, regs::*, Op, Operand, Size};

    /// The encoding cache's keys tell apart operands the encoding tells apart (kind, register, size, base,
    /// index, scale, displacement, immediate), and an immediate that no encoding takes has no key, so that it is
    /// refused rather than given a cached encoding of a truncated value.
    /// What the JIT's startup writes, reads and frees once per instruction stays small: a label is one pointer,
    /// so an operand is 32 bytes and an item 144 (they were 40 and 176).
    #[test]
    fn items_stay_small() {
        use crate::ir::Item;
        use crate::isa::x86_64::X86_64;
        eprintln!("operand {} item {}", std::mem::size_of::<Operand>(), std::mem::size_of::<Item<X86_64>>());
        assert!(std::mem::size_of::<Operand>() <= 32);
        assert!(std::mem::size_of::<Item<X86_64>>() <= 144);
        assert!(std::mem::size_of::<super::Piece>() <= 8);
    }

    /// Functions built into a [`super::Stream`] lower to the image of the same functions built with their items:
    /// labels bound before and after their branches, a loop head's alignment, a constant shared by two
    /// functions, a branch that must grow, callee-saved registers (a prologue), and functions lowered in
    /// another order than they were built. Their bodies are empty; an error in the body fails the build.
    #[test]
    fn streamed_functions_lower_to_the_same_image() {
        use crate::isa::x86_64::{mem, rip, X86Feature, Xmm, X86_64};
        use crate::{Abi, Builder, Function};
        let build = |name: &str, far: bool| -> Function<X86_64> {
            let mut b = Builder::<X86_64>::new(name, Abi::SysV, &[X86Feature::Avx]);
            let (top, done) = (b.label("top"), b.label("done"));
            let k = b.constant("k", 16, "a constant", &[7; 16]);
            b.vmovdqu(Xmm(1), rip(&k));
            b.test(RDX, RDX);
            b.jz(&done);
            b.align(5);
            b.bind(&top);
            for _ in 0..if far { 40 } else { 2 } {
                b.vpxor(Xmm(0), Xmm(0), Xmm(1));
                b.vmovdqu(mem(RSI, 16), Xmm(0));
            }
            b.mov(RBX, RDX);
            b.sub(RDX, 1);
            b.jnz(&top);
            b.bind(&done);
            b.finish().unwrap()
        };
        let both = || vec![build("f", false), build("g", true)];
        let items = both();
        let (streamed, stream) = super::Stream::build(both);
        assert!(streamed.iter().all(|f| f.body.is_empty()));
        fn order(v: &[Function<X86_64>]) -> Vec<&Function<X86_64>> {
            vec![&v[1], &v[0]]
        }
        let image = crate::lower::lower(&order(&items)).unwrap();
        let s = stream.lower(&order(&streamed)).unwrap();
        assert_eq!(image.bytes, s.bytes);
        assert_eq!((image.symbols, image.constants, image.instructions), (s.symbols, s.constants, s.instructions));

        let (bad, _) = super::Stream::build(|| {
            let mut b = Builder::<X86_64>::new("bad", Abi::SysV, &[]);
            b.inst(Op::ALL[0], [Operand::Zmm(40)]);
            b.finish()
        });
        assert!(bad.is_err());
    }

    #[test]
    fn keys_differ_where_encodings_do() {
        let m = |size, m| Operand::Mem(size, m);
        let operands = [
            Operand::Gpr(1),
            Operand::Gpr32(1),
            Operand::Xmm(1),
            Operand::Ymm(1),
            Operand::Ymm(15),
            Operand::Zmm(15),
            Operand::Zmm(31),
            m(Size::Xmmword, mem(RSI, 0)),
            m(Size::Ymmword, mem(RSI, 0)),
            m(Size::Zmmword, mem(RSI, 0)),
            m(Size::Xmmword, mem(RDI, 0)),
            m(Size::Xmmword, mem(RSI, -1)),
            m(Size::Xmmword, mem_index(RSI, RAX, 1, 0)),
            m(Size::Xmmword, mem_index(RSI, RAX, 8, 0)),
            m(Size::Xmmword, mem_index(RSI, RCX, 8, 0)),
            Operand::Imm(1),
            Operand::Imm(-1),
            Operand::Sel(1),
        ];
        let keys: Vec<Key> = operands.iter().map(|o| Key::new(Op::ALL[0], std::slice::from_ref(o)).unwrap()).collect();
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate().skip(i + 1) {
                assert!(a != b, "{:?} and {:?} share a key", operands[i], operands[j]);
            }
        }
        assert!(Key::new(Op::ALL[0], &[Operand::Imm(1 << 32 | 1)]).is_none());
        assert!(Key::new(Op::ALL[0], &[Operand::Imm(i32::MIN as i64)]).is_some());
        assert!(Key::new(Op::ALL[0], &[Operand::Zmm(32)]).is_none());
    }
}
