//! x86-64: registers, operand kinds, features and the instruction table.
//!
//! Listings use GNU as in Intel syntax (`.intel_syntax noprefix`): operands are in the order of the Intel SDM
//! (destination first), which is the order of the table, of the builder methods, of iced-x86's formatter (used
//! to disassemble JIT code) and of the vendors' documentation an auditor checks against.

use super::{Encoding, InstructionSet, OpInfo, PrintCtx};
use crate::define_isa;
use crate::label::Label;
use crate::target::Arch;

crate::define_features! {
    /// x86-64 ISA extensions (the x86-64 baseline, SSE2 included, needs none).
    X86Feature {
        /// Supplemental SSE3 (`pshufb`).
        Ssse3 = "SSSE3",
        /// SSE4.1.
        Sse41 = "SSE4.1",
        /// AES-NI.
        Aes = "AES",
        /// Carry-less multiplication on xmm.
        Pclmulqdq = "PCLMULQDQ",
        /// AVX (VEX encoding, 3-operand forms, ymm for floating point).
        Avx = "AVX",
        /// AVX2 (integer ops on ymm).
        Avx2 = "AVX2",
        /// BMI1 (`andn`).
        Bmi1 = "BMI1",
        /// BMI2.
        Bmi2 = "BMI2",
        /// ADX (`adcx`, `adox`: two independent carry chains).
        Adx = "ADX",
        /// SHA extensions (`sha256rnds2`, `sha256msg1`, `sha256msg2`).
        Sha = "SHA",
        /// AES on ymm/zmm.
        Vaes = "VAES",
        /// Carry-less multiplication on ymm/zmm.
        Vpclmulqdq = "VPCLMULQDQ",
        /// Galois-field affine instructions.
        Gfni = "GFNI",
        /// Indirect branch tracking landing pads (`endbr64` is a NOP without it).
        Ibt = "IBT",
        /// AVX-512 foundation (EVEX encoding, zmm0-zmm31, opmask registers; the OS saves the zmm state).
        Avx512f = "AVX512F",
        /// AVX-512 byte and word instructions (`vpshufb`, `vpslldq` on zmm).
        Avx512bw = "AVX512BW",
        /// AVX-512 on xmm and ymm (EVEX forms of 128- and 256-bit instructions, xmm16-xmm31).
        Avx512vl = "AVX512VL",
        /// `movbe` (load or store with the bytes swapped).
        Movbe = "MOVBE",
        /// `rdrand` (a random number from the CPU's generator).
        Rdrand = "RDRAND",
    }
}

/// A 64-bit general-purpose register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gpr(pub u8);
/// The 32-bit view of a general-purpose register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gpr32(pub u8);
/// The low byte of a general-purpose register: al, cl, dl, bl, spl, bpl, sil, dil, r8b..r15b (numbered as the
/// 64-bit registers; ah..bh are not named).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gpr8(pub u8);
/// An AVX-512 opmask register: k0..k7 (k0 cannot mask: it means "no mask" in an encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct K(pub u8);
/// A zmm destination written under a zeroing opmask, `zmm{n}{k}{z}`: each element whose mask bit is clear is zeroed
/// ([`Zmm::maskz`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ZmmMaskz(pub Zmm, pub K);
/// Memory written under a merging opmask, `zmmword ptr [...]{k}`: only the elements whose mask bit is set are
/// written ([`Mem::mask`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemMask(pub Mem, pub K);
/// A 128-bit vector register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Xmm(pub u8);
/// A 256-bit vector register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ymm(pub u8);
/// A 512-bit vector register (AVX-512, EVEX): zmm0-zmm31.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Zmm(pub u8);

#[allow(missing_docs)]
pub mod regs {
    //! Register names.
    use super::{Gpr, Gpr8, Xmm, Ymm, Zmm, K};
    pub const RAX: Gpr = Gpr(0);
    pub const RCX: Gpr = Gpr(1);
    pub const RDX: Gpr = Gpr(2);
    pub const RBX: Gpr = Gpr(3);
    pub const RSP: Gpr = Gpr(4);
    pub const RBP: Gpr = Gpr(5);
    pub const RSI: Gpr = Gpr(6);
    pub const RDI: Gpr = Gpr(7);
    pub const R8: Gpr = Gpr(8);
    pub const R9: Gpr = Gpr(9);
    pub const R10: Gpr = Gpr(10);
    pub const R11: Gpr = Gpr(11);
    pub const R12: Gpr = Gpr(12);
    pub const R13: Gpr = Gpr(13);
    pub const R14: Gpr = Gpr(14);
    pub const R15: Gpr = Gpr(15);
    /// cl, the count of the shifts by a register.
    pub const CL: Gpr8 = Gpr8(1);
    /// `xmm(n)`.
    pub const fn xmm(n: u8) -> Xmm {
        Xmm(n)
    }
    /// `ymm(n)`.
    pub const fn ymm(n: u8) -> Ymm {
        Ymm(n)
    }
    /// `zmm(n)`, n in 0..32.
    pub const fn zmm(n: u8) -> Zmm {
        Zmm(n)
    }
    /// `k(n)`, the opmask register n in 0..8.
    pub const fn k(n: u8) -> K {
        K(n)
    }
}

impl Gpr {
    /// The 32-bit view (writing it zeroes the upper half).
    pub fn d(self) -> Gpr32 {
        Gpr32(self.0)
    }
    /// The low byte (writing it keeps the other bytes).
    pub fn b(self) -> Gpr8 {
        Gpr8(self.0)
    }
}
impl Xmm {
    /// The ymm register this xmm is the low half of.
    pub fn y(self) -> Ymm {
        Ymm(self.0)
    }
}
impl Ymm {
    /// The low 128 bits.
    pub fn x(self) -> Xmm {
        Xmm(self.0)
    }
    /// The zmm register this ymm is the low half of.
    pub fn z(self) -> Zmm {
        Zmm(self.0)
    }
}
impl Zmm {
    /// The low 256 bits (the table's ymm operands are VEX ones: zmm0-zmm15 only).
    pub fn y(self) -> Ymm {
        Ymm(self.0)
    }
    /// This register as a destination under the zeroing opmask `k` (k1..k7): `zmm{n}{k}{z}`.
    pub fn maskz(self, k: K) -> ZmmMaskz {
        ZmmMaskz(self, k)
    }
}

/// The 64-bit general-purpose registers' names.
pub const GPR64: [&str; 16] =
    ["rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"];
const GPR8: [&str; 16] =
    ["al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil", "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b"];
const GPR32: [&str; 16] = [
    "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d",
    "r15d",
];

/// A physical register, for the ABI: general-purpose or vector (xmm/ymm/zmm share a number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reg {
    /// rax..r15.
    Gpr(u8),
    /// xmm/ymm/zmm n.
    Vec(u8),
}

impl From<Gpr> for Reg {
    fn from(g: Gpr) -> Reg {
        Reg::Gpr(g.0)
    }
}

/// A memory operand: `[base + index*scale + disp]` or `[rip + label]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mem {
    pub(crate) base: Option<Gpr>,
    pub(crate) index: Option<(Gpr, u8)>,
    pub(crate) disp: i32,
    pub(crate) label: Option<Label>,
}

impl Mem {
    /// The address inside the brackets, in Intel order: the constant (spelled by `constant`, e.g.
    /// `rip + .Lconst_x` for GNU as, `rel const_x` for NASM) or base, then `+ index*scale`, then the
    /// displacement. The one spelling both x86_64 syntaxes share.
    pub fn address(&self, constant: impl Fn(&Label) -> String) -> String {
        let mut addr = String::new();
        if let Some(l) = &self.label {
            addr.push_str(&constant(l));
        }
        let name = |r: Gpr| GPR64.get(r.0 as usize).map_or_else(|| format!("r{}", r.0), |n| n.to_string());
        if let Some(b) = self.base {
            addr.push_str(&name(b));
        }
        if let Some((i, s)) = self.index {
            addr.push_str(&format!(" + {}*{s}", name(i)));
        }
        match self.disp {
            0 => {}
            d if d > 0 => addr.push_str(&format!(" + {d}")),
            d => addr.push_str(&format!(" - {}", -(d as i64))),
        }
        addr
    }
}

impl Mem {
    /// This memory as a destination under the merging opmask `k` (k1..k7): `[...]{k}`.
    pub fn mask(self, k: K) -> MemMask {
        MemMask(self, k)
    }
}

/// `[base + disp]`.
pub fn mem(base: Gpr, disp: i32) -> Mem {
    Mem { base: Some(base), index: None, disp, label: None }
}

/// `[base + index*scale + disp]`.
pub fn mem_index(base: Gpr, index: Gpr, scale: u8, disp: i32) -> Mem {
    Mem { base: Some(base), index: Some((index, scale)), disp, label: None }
}

/// `[rip + label]`: a constant or code address.
pub fn rip(label: &Label) -> Mem {
    Mem { base: None, index: None, disp: 0, label: Some(label.clone()) }
}

/// `[rip + label + disp]`: an entry of a constant table.
pub fn rip_off(label: &Label, disp: i32) -> Mem {
    Mem { base: None, index: None, disp, label: Some(label.clone()) }
}

/// The width of a memory access, printed as Intel syntax's `... ptr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// 1 byte.
    Byte,
    /// 4 bytes.
    Dword,
    /// 8 bytes.
    Qword,
    /// 16 bytes.
    Xmmword,
    /// 32 bytes.
    Ymmword,
    /// 64 bytes.
    Zmmword,
}

/// An operand as stored in the IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// 64-bit register.
    Gpr(u8),
    /// 32-bit register.
    Gpr32(u8),
    /// 8-bit register: the low byte of general-purpose register n (al, cl, ..., spl, bpl, sil, dil, r8b..r15b).
    Gpr8(u8),
    /// xmm register.
    Xmm(u8),
    /// ymm register.
    Ymm(u8),
    /// zmm register.
    Zmm(u8),
    /// zmm register `.0` as a destination under the zeroing opmask k`.1` (1..=7): printed `zmm{n}{k}{z}`.
    ZmmMaskz(u8, u8),
    /// Opmask register k0..k7.
    K(u8),
    /// Memory of a given width.
    Mem(Size, Mem),
    /// Memory of a given width written under the merging opmask k`.2` (1..=7): printed `... ptr [...]{k}`.
    MemMask(Size, Mem, u8),
    /// Immediate printed in decimal (counts, offsets).
    Imm(i64),
    /// Immediate printed as a hex byte (selectors, shuffle controls).
    Sel(u8),
    /// Branch target.
    Label(Label),
}

// Operand kinds: the builder's parameter types. Each converts from the registers/memory it admits.
macro_rules! kinds {
    ($( $(#[$doc:meta])* $kind:ident { $($from:ty => |$v:ident| $e:expr),* } )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $kind(Operand);
        $( impl From<$from> for $kind { fn from($v: $from) -> Self { $kind($e) } } )*
        impl From<$kind> for Operand { fn from(k: $kind) -> Operand { k.0 } }
    )*};
}

kinds! {
    /// r64.
    R64 { Gpr => |g| Operand::Gpr(g.0) }
    /// r32.
    R32 { Gpr32 => |g| Operand::Gpr32(g.0) }
    /// r64 or imm32.
    Ri64 { Gpr => |g| Operand::Gpr(g.0), i32 => |i| Operand::Imm(i as i64) }
    /// r32 or imm32 (an `i32`, printed in decimal; the 32-bit forms take all 32 bits of it).
    Ri32 { Gpr32 => |g| Operand::Gpr32(g.0), i32 => |i| Operand::Imm(i as i64) }
    /// r32 or m32.
    Rm32 { Gpr32 => |g| Operand::Gpr32(g.0), Mem => |m| Operand::Mem(Size::Dword, m) }
    /// r8.
    R8 { Gpr8 => |g| Operand::Gpr8(g.0) }
    /// r8 or m8.
    Rm8 { Gpr8 => |g| Operand::Gpr8(g.0), Mem => |m| Operand::Mem(Size::Byte, m) }
    /// m8.
    M8 { Mem => |m| Operand::Mem(Size::Byte, m) }
    /// The shift count register cl ([`regs::CL`]; the builder refuses another).
    Cl { Gpr8 => |g| Operand::Gpr8(g.0) }
    /// r64 or m64.
    Rm64 { Gpr => |g| Operand::Gpr(g.0), Mem => |m| Operand::Mem(Size::Qword, m) }
    /// xmm.
    X { Xmm => |x| Operand::Xmm(x.0) }
    /// xmm or m128.
    Xm { Xmm => |x| Operand::Xmm(x.0), Mem => |m| Operand::Mem(Size::Xmmword, m) }
    /// m128.
    M128 { Mem => |m| Operand::Mem(Size::Xmmword, m) }
    /// m64.
    M64 { Mem => |m| Operand::Mem(Size::Qword, m) }
    /// m32.
    M32 { Mem => |m| Operand::Mem(Size::Dword, m) }
    /// ymm.
    Y { Ymm => |y| Operand::Ymm(y.0) }
    /// ymm or m256.
    Ym { Ymm => |y| Operand::Ymm(y.0), Mem => |m| Operand::Mem(Size::Ymmword, m) }
    /// m256.
    M256 { Mem => |m| Operand::Mem(Size::Ymmword, m) }
    /// zmm.
    Z { Zmm => |z| Operand::Zmm(z.0) }
    /// zmm or m512.
    Zm { Zmm => |z| Operand::Zmm(z.0), Mem => |m| Operand::Mem(Size::Zmmword, m) }
    /// m512.
    M512 { Mem => |m| Operand::Mem(Size::Zmmword, m) }
    /// m512 under a merging opmask, `[...]{k}` ([`Mem::mask`]).
    M512k { MemMask => |m| Operand::MemMask(Size::Zmmword, m.0, m.1 .0) }
    /// zmm destination under a zeroing opmask, `zmm{k}{z}` ([`Zmm::maskz`]).
    Zkz { ZmmMaskz => |z| Operand::ZmmMaskz(z.0 .0, z.1 .0) }
    /// Opmask register.
    Kr { K => |k| Operand::K(k.0) }
    /// Memory whose address is taken (`lea`).
    Addr { Mem => |m| Operand::Mem(Size::Qword, m) }
    /// Immediate count or offset.
    Imm { i32 => |i| Operand::Imm(i as i64) }
    /// An imm32 (a multiplier), printed in decimal.
    I32 { i32 => |i| Operand::Imm(i as i64) }
    /// A 64-bit immediate (`movabs`), printed in decimal.
    Imm64 { i64 => |i| Operand::Imm(i), u64 => |i| Operand::Imm(i as i64) }
    /// Immediate selector byte (printed in hex).
    Sel { u8 => |i| Operand::Sel(i) }
    /// Branch target.
    Target { &Label => |l| Operand::Label(l.clone()), Label => |l| Operand::Label(l) }
}

/// The x86-64 ISA.
pub struct X86_64;

/// How an x86-64 entry is encoded: the iced-x86 codes of its forms (e.g. `add r/m64, r64`, `add r/m64, imm8`,
/// `add rax, imm32`, `add r/m64, imm32`). The JIT lowering ([`crate::lower::x86_64`]) encodes the
/// instruction with every code that accepts its operands and keeps the shortest, the first of equals, which is
/// the form GNU as picks (checked entry by entry against GNU as in `gen/tests/x86_64_encoding.rs`); a branch
/// takes the first code whose displacement fits, as GNU as relaxes it.
#[derive(Clone, Copy, Debug)]
pub struct X86Encoding(pub &'static [iced_x86::Code]);

impl Encoding for X86Encoding {
    fn raw_word(&self, _values: &[i64]) -> Option<Result<u32, super::fixed::EncodeError>> {
        // GNU as 2.40 knows every x86-64 entry of the table.
        None
    }
}

/// `iced!(A, B)`: the [`X86Encoding`] of forms `iced_x86::Code::A` and `B`.
macro_rules! iced {
    ($($code:ident),+) => { X86Encoding(&[$(iced_x86::Code::$code),+]) };
}

/// The x86_64 table: one entry per instruction form (entry syntax: [`define_isa!`](crate::define_isa)).
/// `x86_64_table!(m)` expands the entries into the macro `m`: [`define_isa!`](crate::define_isa) here (the
/// opcodes and `OPS`) and [`define_builder_methods!`](crate::define_builder_methods) in `builder/x86_64.rs`.
macro_rules! x86_64_table {
    ($define:ident) => {
        $define! {
                isa: X86_64, feature: X86Feature, encoding: X86Encoding;
                methods {
                    /// `mov`: register or immediate (`mov`), load (`mov_load`), store (`mov_store`); 32-bit
                    /// (`mov32`, `mov32_load`, `mov32_store`); a byte register to r8 or m8 (`mov8`).
                    mov(d, s);
                    /// `xor`: 64-bit (`xor`), 32-bit registers (`xor32`; writing the low half zeroes the rest), or a
                    /// load (`xor_load`, `xor32_load`).
                    xor(d, s);
                    /// `vmovdqu`: load or store, xmm (`vmovdqu_load`, `vmovdqu_store`) or ymm (`vmovdqu_load_y`,
                    /// `vmovdqu_store_y`); register to register (`vmovdqu_reg`, `vmovdqu_reg_y`).
                    vmovdqu(d, s);
                    /// `vmovdqa`: xmm (`vmovdqa`) or ymm (`vmovdqa_y`), register or aligned memory; aligned stores
                    /// (`vmovdqa_store`, `vmovdqa_store_y`).
                    vmovdqa(d, s);
                    /// `vmovq`: from memory (`vmovq_load`), to memory (`vmovq_store`), from a 64-bit register
                    /// (`vmovq_gpr`) or to one (`vmovq_to_gpr`).
                    vmovq(d, s);
                    /// `vmovd`: store of the low dword (`vmovd_store`), load (`vmovd_load`) or from a 32-bit register
                    /// (`vmovd_gpr`).
                    vmovd(d, s);
                    /// `vpxor`: xmm (`vpxor`) or ymm (`vpxor_y`).
                    vpxor(d, a, b);
                    /// `vpand`: xmm (`vpand`) or ymm (`vpand_y`).
                    vpand(d, a, b);
                    /// `vpor`: xmm (`vpor`) or ymm (`vpor_y`).
                    vpor(d, a, b);
                    /// `vpandn`: xmm (`vpandn`) or ymm (`vpandn_y`).
                    vpandn(d, a, b);
                    /// `vpaddd`: xmm (`vpaddd`), ymm (`vpaddd_y`) or zmm (`vpaddd_z`).
                    vpaddd(d, a, b);
                    /// `vpaddq`: xmm (`vpaddq`), ymm (`vpaddq_y`) or zmm (`vpaddq_z`).
                    vpaddq(d, a, b);
                    /// `vpsubq`: xmm (`vpsubq`) or ymm (`vpsubq_y`).
                    vpsubq(d, a, b);
                    /// `vpshufb`: xmm (`vpshufb`), ymm (`vpshufb_y`) or zmm (`vpshufb_z`).
                    vpshufb(d, a, b);
                    /// `vpshufd`: xmm (`vpshufd`), ymm (`vpshufd_y`) or zmm (`vpshufd_z`).
                    vpshufd(d, a, sel);
                    /// `vpunpckldq`: xmm (`vpunpckldq`), ymm (`vpunpckldq_y`) or zmm (`vpunpckldq_z`).
                    vpunpckldq(d, a, b);
                    /// `vpunpckhdq`: xmm (`vpunpckhdq`), ymm (`vpunpckhdq_y`) or zmm (`vpunpckhdq_z`).
                    vpunpckhdq(d, a, b);
                    /// `vpunpcklqdq`: xmm (`vpunpcklqdq`), ymm (`vpunpcklqdq_y`) or zmm (`vpunpcklqdq_z`).
                    vpunpcklqdq(d, a, b);
                    /// `vpunpckhqdq`: xmm (`vpunpckhqdq`), ymm (`vpunpckhqdq_y`) or zmm (`vpunpckhqdq_z`).
                    vpunpckhqdq(d, a, b);
                    /// `vpsllq`: xmm (`vpsllq`), ymm (`vpsllq_y`) or zmm (`vpsllq_z`).
                    vpsllq(d, a, n);
                    /// `vpslld`: xmm (`vpslld`) or ymm (`vpslld_y`).
                    vpslld(d, a, n);
                    /// `vpsrld`: xmm (`vpsrld`) or ymm (`vpsrld_y`).
                    vpsrld(d, a, n);
                    /// `vpslldq`: xmm (`vpslldq`), ymm (`vpslldq_y`) or zmm (`vpslldq_z`).
                    vpslldq(d, a, n);
                    /// `vpsrldq`: xmm (`vpsrldq`), ymm (`vpsrldq_y`) or zmm (`vpsrldq_z`).
                    vpsrldq(d, a, n);
                    /// `vpclmulqdq`: xmm (`vpclmulqdq`), ymm (`vpclmulqdq_y`) or zmm (`vpclmulqdq_z`).
                    vpclmulqdq(d, a, b, sel);
                    /// `vaesenclast`: xmm (`vaesenclast`), ymm (`vaesenclast_y`) or zmm (`vaesenclast_z`).
                    vaesenclast(d, a, k);
                    /// `vaesenc`: xmm (`vaesenc`), ymm (`vaesenc_y`) or zmm (`vaesenc_z`).
                    vaesenc(d, a, k);
                    /// `vaesdec`: xmm (`vaesdec`), ymm (`vaesdec_y`) or zmm (`vaesdec_z`).
                    vaesdec(d, a, k);
                    /// `vaesdeclast`: xmm (`vaesdeclast`), ymm (`vaesdeclast_y`) or zmm (`vaesdeclast_z`).
                    vaesdeclast(d, a, k);
                    /// `vgf2p8affineqb`: xmm (`vgf2p8affineqb`), ymm (`vgf2p8affineqb_y`) or zmm (`vgf2p8affineqb_z`).
                    vgf2p8affineqb(d, a, m, c);
                    /// `vgf2p8affineinvqb`: xmm (`vgf2p8affineinvqb`), ymm (`vgf2p8affineinvqb_y`) or zmm
                    /// (`vgf2p8affineinvqb_z`).
                    vgf2p8affineinvqb(d, a, m, c);
                    /// `vpsllvq`: ymm (`vpsllvq_y`).
                    vpsllvq(d, a, n);
                    /// `vpsrlvq`: ymm (`vpsrlvq_y`).
                    vpsrlvq(d, a, n);
                    /// `vpsrlq`: xmm (`vpsrlq`), ymm (`vpsrlq_y`) or zmm (`vpsrlq_z`).
                    vpsrlq(d, a, n);
                    /// `vmovdqu64`: zmm from zmm or memory (`vmovdqu64`), or store (`vmovdqu64_store`); xmm or ymm
                    /// (`vmovdqu64_x`, `vmovdqu64_y`, `vmovdqu64_store_x`, `vmovdqu64_store_y`).
                    vmovdqu64(d, s);
                    /// `vpblendd`: xmm (`vpblendd`) or ymm (`vpblendd_y`).
                    vpblendd(d, a, b, sel);
                    /// `movdqa` (legacy SSE): register or aligned memory (`movdqa`), or store (`movdqa_store`).
                    movdqa(d, s);
                    /// `movdqu` (legacy SSE): register or load (`movdqu_load`) or store (`movdqu_store`).
                    movdqu(d, s);
                    /// `add`: r64 (`add`), r32 (`add32`), r8 or m8 (`add8`), or a load (`add_load`, `add32_load`).
                    add(d, s);
                    /// `adc`: r64 (`adc`), r32 (`adc32`) or a load (`adc_load`).
                    adc(d, s);
                    /// `sbb`: r64 (`sbb`) or a load (`sbb_load`).
                    sbb(d, s);
                    /// `sub`: r64 (`sub`), r32 (`sub32`) or a load (`sub_load`, `sub32_load`).
                    sub(d, s);
                    /// `and`: r64 (`and`), r32 (`and32`), r8 or m8 (`and8`), a load (`and_load`) or into m64
                    /// (`and_store`).
                    and(d, s);
                    /// `or`: r64 (`or`), r32 (`or32`), a load (`or_load`) or into m64 (`or_store`).
                    or(d, s);
                    /// `cmp`: r64 (`cmp`), r32 (`cmp32`), against memory (`cmp_load`), m32 with an immediate
                    /// (`cmp32_mem`), r8 or m8 with an immediate (`cmp8`).
                    cmp(a, b);
                    /// `test`: r64 (`test`) or r32 (`test32`).
                    test(a, b);
                    /// `lea`: 64-bit (`lea`) or 32-bit (`lea32`) result.
                    lea(d, a);
                    /// `imul`: r64 (`imul`) or r32 (`imul32`).
                    imul(d, s);
                    /// `imul` by an immediate: r64 (`imul_imm`) or r32 (`imul32_imm`).
                    imul_imm(d, s, n);
                    /// `shl`: r64 (`shl`) or r32 (`shl32`) by an immediate, r64 by cl (`shl_cl`).
                    shl(d, n);
                    /// `shr`: r64 (`shr`) or r32 (`shr32`) by an immediate, r64 by cl (`shr_cl`).
                    shr(d, n);
                    /// `rol`: r64 (`rol`) or r32 (`rol32`) by an immediate, r32 by cl (`rol32_cl`).
                    rol(d, n);
                    /// `ror`: r64 (`ror`) or r32 (`ror32`).
                    ror(d, n);
                    /// `rorx`: r64 (`rorx`) or r32 (`rorx32`).
                    rorx(d, s, n);
                    /// `shld`: r64 (`shld`) or r32 (`shld32`) by an immediate, r64 or m64 by cl (`shld_cl`).
                    shld(d, s, n);
                    /// `shrd`: r64 (`shrd`) or r32 (`shrd32`) by an immediate, r64 or m64 by cl (`shrd_cl`).
                    shrd(d, s, n);
                    /// `bswap`: r64 (`bswap`) or r32 (`bswap32`).
                    bswap(r);
                    /// `dec`: r64 (`dec`) or r32 (`dec32`).
                    dec(r);
                    /// `inc`: r64 (`inc`) or r32 (`inc32`).
                    inc(r);
                    /// `neg`: r64 (`neg`) or r32 (`neg32`).
                    neg(r);
                    /// `not`: r64 (`not`) or r32 (`not32`).
                    not(r);
                    /// `andn`: r64 (`andn`) or r32 (`andn32`).
                    andn(d, a, b);
                    /// `movq` (legacy SSE): to a 64-bit register (`movq_to_gpr`), from one (`movq_from_gpr`), load
                    /// (`movq_load`) or store (`movq_store`).
                    movq(d, s);
                    /// `movd` (legacy SSE): from a 32-bit register (`movd_from_gpr`), to one (`movd_to_gpr`), load
                    /// (`movd_load`) or store (`movd_store`).
                    movd(d, s);
                    /// `movups`: register or load (`movups`) or store (`movups_store`).
                    movups(d, s);
                    /// `movaps`: register or aligned load (`movaps`) or aligned store (`movaps_store`).
                    movaps(d, s);
                    /// `vmovups`: load (`vmovups_load`) or store (`vmovups_store`).
                    vmovups(d, s);
                    /// `vpalignr`: xmm (`vpalignr`) or ymm (`vpalignr_y`).
                    vpalignr(d, a, b, n);
                    /// `vpmuludq`: xmm (`vpmuludq`) or ymm (`vpmuludq_y`).
                    vpmuludq(d, a, b);
                    /// `vpbroadcastq` to ymm or zmm: from memory (`vpbroadcastq_y`, `vpbroadcastq_z`) or from an xmm
                    /// register (`vpbroadcastq_y_reg`, `vpbroadcastq_z_reg`).
                    vpbroadcastq(d, s);
                    /// `vmovdqu8` (AVX-512BW): zmm from zmm or memory (`vmovdqu8`), under a zeroing mask
                    /// (`vmovdqu8_maskz`), or store (`vmovdqu8_store`), under a merging mask
                    /// (`vmovdqu8_store_mask`).
                    vmovdqu8(d, s);
                    /// `movzx` of a byte: to a 32-bit (`movzx32`) or 64-bit register (`movzx`).
                    movzx(d, s);
                    /// `vpxord`: xmm (`vpxord_x`), ymm (`vpxord_y`) or zmm (`vpxord`).
                    vpxord(d, a, b);
                    /// `vpternlogd`: xmm (`vpternlogd_x`), ymm (`vpternlogd_y`) or zmm (`vpternlogd`).
                    vpternlogd(d, a, b, sel);
                    /// `vpxorq`: xmm (`vpxorq_x`), ymm (`vpxorq_y`) or zmm (`vpxorq`).
                    vpxorq(d, a, b);
                    /// `vpternlogq`: xmm (`vpternlogq_x`), ymm (`vpternlogq_y`) or zmm (`vpternlogq`).
                    vpternlogq(d, a, b, sel);
                    /// `vprold`: xmm (`vprold_x`), ymm (`vprold_y`) or zmm (`vprold`).
                    vprold(d, a, n);
                    /// `vprord`: xmm (`vprord_x`) or ymm (`vprord_y`).
                    vprord(d, a, n);
                    /// `vprolq`: xmm (`vprolq_x`) or ymm (`vprolq_y`).
                    vprolq(d, a, n);
                    /// `vprorq`: xmm (`vprorq_x`) or ymm (`vprorq_y`).
                    vprorq(d, a, n);
                    /// `vmovdqa64`: xmm (`vmovdqa64_x`) or zmm (`vmovdqa64`).
                    vmovdqa64(d, s);
                    /// `vmovdqu32`: zmm from zmm or memory (`vmovdqu32`), or store (`vmovdqu32_store`).
                    vmovdqu32(d, s);
                    /// `vpaddw`: ymm (`vpaddw_y`) or zmm (`vpaddw_z`).
                    vpaddw(d, a, b);
                    /// `vpbroadcastd` to ymm from an xmm register (`vpbroadcastd_y_reg`), to xmm from memory
                    /// (`vpbroadcastd_x`).
                    vpbroadcastd(d, s);
                    /// `xchg`: r64 (`xchg`), r32 (`xchg32`) or a register with m64 (`xchg_mem`).
                    xchg(d, s);
                    /// `vpbroadcastb` to ymm or zmm from memory (`vpbroadcastb_y`, `vpbroadcastb_z`) or an xmm register
                    /// (`vpbroadcastb_y_reg`, `vpbroadcastb_z_reg`).
                    vpbroadcastb(d, s);
                    /// `vpsubw`: xmm (`vpsubw`) or ymm (`vpsubw_y`).
                    vpsubw(d, a, b);
                    /// `vpaddb`: xmm (`vpaddb`), ymm (`vpaddb_y`) or zmm (`vpaddb_z`).
                    vpaddb(d, a, b);
                    /// `vpabsb`: xmm (`vpabsb`) or ymm (`vpabsb_y`).
                    vpabsb(d, s);
                    /// `vpcmpgtb`: xmm (`vpcmpgtb`) or ymm (`vpcmpgtb_y`).
                    vpcmpgtb(d, a, b);
                }

                // --- general-purpose ---------------------------------------------------------------------------------
                mov:        "mov"        (d: R64, s: Ri64)                 [] as mov => iced!(Mov_rm64_r64, Mov_rm64_imm32);
                mov_load:   "mov"        (d: R64, s: M64)                  [] as mov => iced!(Mov_r64_rm64);
                mov_store:  "mov"        (d: M64, s: R64)                  [] as mov => iced!(Mov_rm64_r64);
                lea:        "lea"        (d: R64, a: Addr)                 [] as lea => iced!(Lea_r64_m);
                add:        "add"        (d: R64, s: Ri64)                 [] as add
                    => iced!(Add_rm64_r64, Add_rm64_imm8, Add_RAX_imm32, Add_rm64_imm32);
                /// Add with carry.
                adc:        "adc"        (d: R64, s: Ri64)                 [] as adc
                    => iced!(Adc_rm64_r64, Adc_rm64_imm8, Adc_RAX_imm32, Adc_rm64_imm32);
                /// Subtract with borrow (CF).
                sbb:        "sbb"        (d: R64, s: Ri64)                 [] as sbb
                    => iced!(Sbb_rm64_r64, Sbb_rm64_imm8, Sbb_RAX_imm32, Sbb_rm64_imm32);
                /// Add with carry through CF only (the other flags kept): one of two independent carry chains.
                adcx:       "adcx"       (d: R64, s: Rm64)                 [Adx] => iced!(Adcx_r64_rm64);
                /// Add with carry through OF only (the other flags kept): the second carry chain.
                adox:       "adox"       (d: R64, s: Rm64)                 [Adx] => iced!(Adox_r64_rm64);
                /// Unsigned multiply by rax: the product in rdx (high) and rax (low); CF and OF: rdx is not zero.
                mul:        "mul"        (s: Rm64)                         [] => iced!(Mul_rm64);
                /// Unsigned multiply by rdx, flags untouched: the product in `d` (high) and `lo` (low).
                mulx:       "mulx"       (d: R64, lo: R64, s: Rm64)        [Bmi2] => iced!(VEX_Mulx_r64_r64_rm64);
                /// Signed multiply, the low 64 bits of the product (CF and OF: the product did not fit).
                imul:       "imul"       (d: R64, s: Rm64)                 [] as imul => iced!(Imul_r64_rm64);
                sub:        "sub"        (d: R64, s: Ri64)                 [] as sub
                    => iced!(Sub_rm64_r64, Sub_rm64_imm8, Sub_RAX_imm32, Sub_rm64_imm32);
                and:        "and"        (d: R64, s: Ri64)                 [] as and
                    => iced!(And_rm64_r64, And_rm64_imm8, And_RAX_imm32, And_rm64_imm32);
                xor32:      "xor"        (d: R32, s: Ri32)                 [] as xor
                    => iced!(Xor_rm32_r32, Xor_rm32_imm8, Xor_EAX_imm32, Xor_rm32_imm32);
                cmp:        "cmp"        (a: R64, b: Ri64)                 [] as cmp
                    => iced!(Cmp_rm64_r64, Cmp_rm64_imm8, Cmp_RAX_imm32, Cmp_rm64_imm32);
                test:       "test"       (a: R64, b: Ri64)                 [] as test
                    => iced!(Test_rm64_r64, Test_RAX_imm32, Test_rm64_imm32);
                shl:        "shl"        (d: R64, n: Imm)                  [] as shl => iced!(Shl_rm64_1, Shl_rm64_imm8);
                shr:        "shr"        (d: R64, n: Imm)                  [] as shr => iced!(Shr_rm64_1, Shr_rm64_imm8);
                /// Rotate left by `n` (mod 64); CF and OF only.
                rol:        "rol"        (d: R64, n: Imm)                  [] as rol => iced!(Rol_rm64_1, Rol_rm64_imm8);
                /// Rotate right by `n` (mod 64); CF and OF only.
                ror:        "ror"        (d: R64, n: Imm)                  [] as ror => iced!(Ror_rm64_1, Ror_rm64_imm8);
                /// Rotate right by `n` (mod 64) into another register, flags untouched.
                rorx:       "rorx"       (d: R64, s: Rm64, n: Imm)         [Bmi2] as rorx => iced!(VEX_Rorx_r64_rm64_imm8);
                /// Shift `d` left by `n` (mod 64), filling from the top bits of `s`.
                shld:       "shld"       (d: R64, s: R64, n: Imm)          [] as shld => iced!(Shld_rm64_r64_imm8);
                /// Shift `d` right by `n` (mod 64), filling from the low bits of `s`.
                shrd:       "shrd"       (d: R64, s: R64, n: Imm)          [] as shrd => iced!(Shrd_rm64_r64_imm8);
                /// Byte-swap a 64-bit register (big-endian <-> native).
                bswap:      "bswap"      (r: R64)                          [] as bswap => iced!(Bswap_r64);
                push:       "push"       (r: R64)                          [] => iced!(Push_r64);
                pop:        "pop"        (r: R64)                          [] => iced!(Pop_r64);
                jmp:        "jmp"        (t: Target)                       [] => iced!(Jmp_rel8_64, Jmp_rel32_64);
                jz:         "jz"         (t: Target)                       [] => iced!(Je_rel8_64, Je_rel32_64);
                jnz:        "jnz"        (t: Target)                       [] => iced!(Jne_rel8_64, Jne_rel32_64);
                /// Jump if below (unsigned <).
                jb:         "jb"         (t: Target)                       [] => iced!(Jb_rel8_64, Jb_rel32_64);
                /// Jump if above or equal (unsigned >=).
                jae:        "jae"        (t: Target)                       [] => iced!(Jae_rel8_64, Jae_rel32_64);
                /// Jump if above (unsigned >).
                ja:         "ja"         (t: Target)                       [] => iced!(Ja_rel8_64, Ja_rel32_64);
                /// Jump if below or equal (unsigned <=).
                jbe:        "jbe"        (t: Target)                       [] => iced!(Jbe_rel8_64, Jbe_rel32_64);
                ret:        "ret"        ()                                [] => iced!(Retnq);
                /// Breakpoint trap (`int3`): the interpreter reports it as a fault.
                int3:       "int3"       ()                                [] => iced!(Int3);
                /// `mov rsp, rbp; pop rbp`: drops a frame `push rbp; mov rbp, rsp` made.
                leave:      "leave"      ()                                [] => iced!(Leaveq);

                // --- general-purpose: 64-bit immediates, stores, 32-bit forms (writing a 32-bit register zeroes its upper
                // half), loads -----------------------------------------------------------------------------------------
                /// A 64-bit immediate into a register (`mov r64, imm64`).
                movabs:     "movabs"     (d: R64, s: Imm64)                [] => iced!(Mov_r64_imm64);
                /// `and` into memory: a register or a sign-extended imm32.
                and_store:  "and"        (d: M64, s: Ri64)                 [] as and
                    => iced!(And_rm64_r64, And_rm64_imm8, And_rm64_imm32);
                /// `or` into memory: a register or a sign-extended imm32.
                or_store:   "or"         (d: M64, s: Ri64)                 [] as or
                    => iced!(Or_rm64_r64, Or_rm64_imm8, Or_rm64_imm32);
                /// `xor` into memory: a register or a sign-extended imm32.
                xor_store:  "xor"        (d: M64, s: Ri64)                 [] as xor
                    => iced!(Xor_rm64_r64, Xor_rm64_imm8, Xor_rm64_imm32);
                /// `add` into memory: a register or a sign-extended imm32.
                add_store:  "add"        (d: M64, s: Ri64)                 [] as add
                    => iced!(Add_rm64_r64, Add_rm64_imm8, Add_rm64_imm32);
                mov32:      "mov"        (d: R32, s: Ri32)                 [] as mov => iced!(Mov_rm32_r32, Mov_r32_imm32);
                mov32_load: "mov"        (d: R32, s: M32)                  [] as mov => iced!(Mov_r32_rm32);
                mov32_store: "mov"       (d: M32, s: R32)                  [] as mov => iced!(Mov_rm32_r32);
                /// The low 32 bits of the address.
                lea32:      "lea"        (d: R32, a: Addr)                 [] as lea => iced!(Lea_r32_m);
                add32:      "add"        (d: R32, s: Ri32)                 [] as add
                    => iced!(Add_rm32_r32, Add_rm32_imm8, Add_EAX_imm32, Add_rm32_imm32);
                add_load:   "add"        (d: R64, s: M64)                  [] as add => iced!(Add_r64_rm64);
                add32_load: "add"        (d: R32, s: M32)                  [] as add => iced!(Add_r32_rm32);
                adc_load:   "adc"        (d: R64, s: M64)                  [] as adc => iced!(Adc_r64_rm64);
                adc32:      "adc"        (d: R32, s: Ri32)                 [] as adc
                    => iced!(Adc_rm32_r32, Adc_rm32_imm8, Adc_EAX_imm32, Adc_rm32_imm32);
                sbb_load:   "sbb"        (d: R64, s: M64)                  [] as sbb => iced!(Sbb_r64_rm64);
                sub32:      "sub"        (d: R32, s: Ri32)                 [] as sub
                    => iced!(Sub_rm32_r32, Sub_rm32_imm8, Sub_EAX_imm32, Sub_rm32_imm32);
                sub_load:   "sub"        (d: R64, s: M64)                  [] as sub => iced!(Sub_r64_rm64);
                sub32_load: "sub"        (d: R32, s: M32)                  [] as sub => iced!(Sub_r32_rm32);
                and32:      "and"        (d: R32, s: Ri32)                 [] as and
                    => iced!(And_rm32_r32, And_rm32_imm8, And_EAX_imm32, And_rm32_imm32);
                and_load:   "and"        (d: R64, s: M64)                  [] as and => iced!(And_r64_rm64);
                or:         "or"         (d: R64, s: Ri64)                 [] as or
                    => iced!(Or_rm64_r64, Or_rm64_imm8, Or_RAX_imm32, Or_rm64_imm32);
                or32:       "or"         (d: R32, s: Ri32)                 [] as or
                    => iced!(Or_rm32_r32, Or_rm32_imm8, Or_EAX_imm32, Or_rm32_imm32);
                or_load:    "or"         (d: R64, s: M64)                  [] as or => iced!(Or_r64_rm64);
                xor:        "xor"        (d: R64, s: Ri64)                 [] as xor
                    => iced!(Xor_rm64_r64, Xor_rm64_imm8, Xor_RAX_imm32, Xor_rm64_imm32);
                xor32_load: "xor"        (d: R32, s: M32)                  [] as xor => iced!(Xor_r32_rm32);
                xor_load:   "xor"        (d: R64, s: M64)                  [] as xor => iced!(Xor_r64_rm64);
                cmp32:      "cmp"        (a: R32, b: Ri32)                 [] as cmp
                    => iced!(Cmp_rm32_r32, Cmp_rm32_imm8, Cmp_EAX_imm32, Cmp_rm32_imm32);
                cmp_load:   "cmp"        (a: R64, b: M64)                  [] as cmp => iced!(Cmp_r64_rm64);
                /// A dword in memory against a sign-extended immediate.
                cmp32_mem:  "cmp"        (a: M32, b: I32)                  [] as cmp => iced!(Cmp_rm32_imm8, Cmp_rm32_imm32);
                test32:     "test"       (a: R32, b: R32)                  [] as test => iced!(Test_rm32_r32);
                /// Signed multiply, the low 32 bits of the product (CF and OF: the product did not fit).
                imul32:     "imul"       (d: R32, s: Rm32)                 [] as imul => iced!(Imul_r32_rm32);
                /// Signed multiply of `s` by an immediate, the low 64 bits (CF and OF: the product did not fit).
                imul_imm:   "imul"       (d: R64, s: Rm64, n: I32)         [] as imul_imm
                    => iced!(Imul_r64_rm64_imm8, Imul_r64_rm64_imm32);
                /// Signed multiply of `s` by an immediate, the low 32 bits (CF and OF: the product did not fit).
                imul32_imm: "imul"       (d: R32, s: Rm32, n: I32)         [] as imul_imm
                    => iced!(Imul_r32_rm32_imm8, Imul_r32_rm32_imm32);
                /// Push the flags (RFLAGS; the model's: the status flags, DF, IF and the reserved bit 1).
                pushfq:     "pushfq"     ()                                [] => iced!(Pushfq);
                /// Pop the flags (the model keeps the status flags and DF of the value).
                popfq:      "popfq"      ()                                [] => iced!(Popfq);
                shl32:      "shl"        (d: R32, n: Imm)                  [] as shl => iced!(Shl_rm32_1, Shl_rm32_imm8);
                shr32:      "shr"        (d: R32, n: Imm)                  [] as shr => iced!(Shr_rm32_1, Shr_rm32_imm8);
                /// Arithmetic shift right by `n` (mod 64): the sign bit fills.
                sar:        "sar"        (d: R64, n: Imm)                  [] => iced!(Sar_rm64_1, Sar_rm64_imm8);
                /// Rotate left by `n` (mod 32); CF and OF only.
                rol32:      "rol"        (d: R32, n: Imm)                  [] as rol => iced!(Rol_rm32_1, Rol_rm32_imm8);
                /// Rotate right by `n` (mod 32); CF and OF only.
                ror32:      "ror"        (d: R32, n: Imm)                  [] as ror => iced!(Ror_rm32_1, Ror_rm32_imm8);
                /// Rotate left by cl (mod 32); CF and OF only.
                rol32_cl:   "rol"        (d: R32, n: Cl)                   [] as rol => iced!(Rol_rm32_CL);
                /// Rotate right by `n` (mod 32) into another register, flags untouched.
                rorx32:     "rorx"       (d: R32, s: Rm32, n: Imm)         [Bmi2] as rorx => iced!(VEX_Rorx_r32_rm32_imm8);
                shld32:     "shld"       (d: R32, s: R32, n: Imm)          [] as shld => iced!(Shld_rm32_r32_imm8);
                shrd32:     "shrd"       (d: R32, s: R32, n: Imm)          [] as shrd => iced!(Shrd_rm32_r32_imm8);
                bswap32:    "bswap"      (r: R32)                          [] as bswap => iced!(Bswap_r32);
                /// Decrement (CF kept).
                dec:        "dec"        (r: R64)                          [] as dec => iced!(Dec_rm64);
                dec32:      "dec"        (r: R32)                          [] as dec => iced!(Dec_rm32);
                /// Increment (CF kept).
                inc:        "inc"        (r: R64)                          [] as inc => iced!(Inc_rm64);
                inc32:      "inc"        (r: R32)                          [] as inc => iced!(Inc_rm32);
                /// Two's complement negation (CF: the operand was not zero).
                neg:        "neg"        (r: R64)                          [] as neg => iced!(Neg_rm64);
                neg32:      "neg"        (r: R32)                          [] as neg => iced!(Neg_rm32);
                /// Bitwise not, flags untouched.
                not:        "not"        (r: R64)                          [] as not => iced!(Not_rm64);
                not32:      "not"        (r: R32)                          [] as not => iced!(Not_rm32);
                /// `!a & b` (BMI1).
                andn:       "andn"       (d: R64, a: R64, b: Rm64)         [Bmi1] as andn => iced!(VEX_Andn_r64_r64_rm64);
                andn32:     "andn"       (d: R32, a: R32, b: Rm32)         [Bmi1] as andn => iced!(VEX_Andn_r32_r32_rm32);
                /// The number of trailing zero bits of `s` (32 if it is zero; CF: `s` is zero, ZF: the count is).
                tzcnt32:    "tzcnt"      (d: R32, s: Rm32)                 [Bmi1] => iced!(Tzcnt_r32_rm32);
                /// `s` shifted left by `n` (mod 64), flags untouched.
                shlx:       "shlx"       (d: R64, s: Rm64, n: R64)         [Bmi2] => iced!(VEX_Shlx_r64_rm64_r64);
                /// `s` shifted right (logical) by `n` (mod 64), flags untouched.
                shrx:       "shrx"       (d: R64, s: Rm64, n: R64)         [Bmi2] => iced!(VEX_Shrx_r64_rm64_r64);
                /// `s` with the bits from index `n & 255` up cleared (CF: the index is over 63).
                bzhi:       "bzhi"       (d: R64, s: Rm64, n: R64)         [Bmi2] => iced!(VEX_Bzhi_r64_rm64_r64);
                /// CF = bit `n` (mod 64) of `a`.
                bt:         "bt"         (a: R64, n: Imm)                  [] => iced!(Bt_rm64_imm8);
                /// The index of the lowest set bit of `s` (ZF: `s` is zero, `d` then kept). Marked variable-time:
                /// older cores take longer on some inputs.
                bsf:        "bsf"        (d: R64, s: Rm64)                 [] => iced!(Bsf_r64_rm64);
                /// Load with the bytes swapped (big-endian <-> native).
                movbe:      "movbe"      (d: R64, s: M64)                  [Movbe] => iced!(Movbe_r64_m64);
                /// Move if below (CF).
                cmovb:      "cmovb"      (d: R64, s: Rm64)                 [] => iced!(Cmovb_r64_rm64);
                /// Move if above or equal (not CF).
                cmovae:     "cmovae"     (d: R64, s: Rm64)                 [] => iced!(Cmovae_r64_rm64);
                /// Move if zero (ZF; `cmove`).
                cmovz:      "cmovz"      (d: R64, s: Rm64)                 [] => iced!(Cmove_r64_rm64);
                /// Move if not zero (not ZF; `cmovne`).
                cmovnz:     "cmovnz"     (d: R64, s: Rm64)                 [] => iced!(Cmovne_r64_rm64);
                /// Move if greater (signed: not ZF and SF = OF).
                cmovg:      "cmovg"      (d: R64, s: Rm64)                 [] => iced!(Cmovg_r64_rm64);
                /// Move if zero (ZF; `cmove`), 32-bit (the upper half zeroed either way).
                cmovz32:    "cmovz"      (d: R32, s: Rm32)                 [] => iced!(Cmove_r32_rm32);
                /// Jump if greater (signed >: not ZF and SF = OF).
                jg:         "jg"         (t: Target)                       [] => iced!(Jg_rel8_64, Jg_rel32_64);
                /// Jump if greater or equal (signed >=: SF = OF).
                jge:        "jge"        (t: Target)                       [] => iced!(Jge_rel8_64, Jge_rel32_64);
                /// Jump if less (signed <: SF != OF).
                jl:         "jl"         (t: Target)                       [] => iced!(Jl_rel8_64, Jl_rel32_64);
                /// Jump if less or equal (signed <=: ZF or SF != OF).
                jle:        "jle"        (t: Target)                       [] => iced!(Jle_rel8_64, Jle_rel32_64);
                /// Jump if sign (SF).
                js:         "js"         (t: Target)                       [] => iced!(Js_rel8_64, Js_rel32_64);
                /// Jump if not sign (not SF).
                jns:        "jns"        (t: Target)                       [] => iced!(Jns_rel8_64, Jns_rel32_64);
                /// Jump if overflow (OF).
                jo:         "jo"         (t: Target)                       [] => iced!(Jo_rel8_64, Jo_rel32_64);
                /// Set the byte if below (CF).
                setb:       "setb"       (d: R8)                           [] => iced!(Setb_rm8);
                /// Set the byte if above or equal (not CF).
                setae:      "setae"      (d: R8)                           [] => iced!(Setae_rm8);
                /// Set the byte if zero (ZF; `sete`).
                setz:       "setz"       (d: R8)                           [] => iced!(Sete_rm8);
                /// Set the byte if not zero (not ZF; `setne`).
                setnz:      "setnz"      (d: R8)                           [] => iced!(Setne_rm8);
                // --- general-purpose: bytes, shifts by cl -----------------------------------------------------------------
                mov8:       "mov"        (d: Rm8, s: R8)                   [] as mov => iced!(Mov_rm8_r8);
                add8:       "add"        (d: Rm8, s: R8)                   [] as add => iced!(Add_rm8_r8);
                and8:       "and"        (d: Rm8, s: R8)                   [] as and => iced!(And_rm8_r8);
                cmp8:       "cmp"        (a: Rm8, b: Imm)                  [] as cmp => iced!(Cmp_rm8_imm8, Cmp_AL_imm8);
                add8_imm:   "add"        (d: Rm8, s: Imm)                  [] as add => iced!(Add_rm8_imm8, Add_AL_imm8);
                adc8_imm:   "adc"        (d: Rm8, s: Imm)                  [] as adc => iced!(Adc_rm8_imm8, Adc_AL_imm8);
                /// Zero-extends a byte to 32 bits (and so to 64).
                movzx32:    "movzx"      (d: R32, s: Rm8)                  [] as movzx => iced!(Movzx_r32_rm8);
                /// Zero-extends a byte to 64 bits.
                movzx:      "movzx"      (d: R64, s: Rm8)                  [] as movzx => iced!(Movzx_r64_rm8);
                /// Shift left by cl (mod 64).
                shl_cl:     "shl"        (d: R64, n: Cl)                   [] as shl => iced!(Shl_rm64_CL);
                /// Shift right (logical) by cl (mod 64).
                shr_cl:     "shr"        (d: R64, n: Cl)                   [] as shr => iced!(Shr_rm64_CL);
                /// `shld` by cl (mod 64).
                shld_cl:    "shld"       (d: Rm64, s: R64, n: Cl)          [] as shld => iced!(Shld_rm64_r64_CL);
                /// `shrd` by cl (mod 64).
                shrd_cl:    "shrd"       (d: Rm64, s: R64, n: Cl)          [] as shrd => iced!(Shrd_rm64_r64_CL);
                /// Prefetch the cache line of `a` into every level (no fault, no architectural effect).
                prefetcht0: "prefetcht0" (a: M8)                           [] => iced!(Prefetcht0_m8);
                /// Call a subroutine of the function: push the return address, jump to `t`.
                call:       "call"       (t: Target)                       [] => iced!(Call_rel32_64);
                /// The indirect-branch landing pad (a NOP without CET IBT): the prologue's, as an instruction.
                endbr64:    "endbr64"    ()                                [] => iced!(Endbr64);
                /// No operation (one byte, 0x90): a placeholder the importer keeps where padding aligns nothing.
                nop:        "nop"        ()                                [] => iced!(Nopd);
                /// No operation, three bytes or more (`0f 1f /0`): the address is neither computed nor accessed.
                /// Perlasm writes it as bytes inside functions; the importer keeps it where it aligns nothing.
                nop_m:      "nop"        (m: M32)                          [] => iced!(Nop_rm32);
                /// Swap two registers, flags untouched (`rax` with another: the one-byte `90+r` form, as GNU as).
                xchg:       "xchg"       (d: R64, s: R64)                  [] as xchg => iced!(Xchg_r64_RAX, Xchg_rm64_r64);
                /// Swap two 32-bit registers (both zero-extended; `eax, eax` too, which the `90` form would not do).
                xchg32:     "xchg"       (d: R32, s: R32)                  [] as xchg => iced!(Xchg_r32_EAX, Xchg_rm32_r32);
                /// Swap a register with memory (an atomic, locked exchange).
                xchg_mem:   "xchg"       (d: M64, s: R64)                  [] as xchg => iced!(Xchg_rm64_r64);
                /// Call through a register. The interpreter runs one function: it stops with a fault here.
                call_reg:   "call"       (t: R64)                          [] => iced!(Call_rm64);
                /// A random number from the CPU (CF: one was available). The interpreter cannot reproduce one: it
                /// stops with a fault here.
                rdrand:     "rdrand"     (d: R64)                          [Rdrand] => iced!(Rdrand_r64);
                /// Copy the byte at `[rsi]` to `[rdi]`, then step both by 1 (back if DF is set).
                movsb:      "movsb"      ()                                [] => iced!(Movsb_m8_m8);
                /// Copy the qword at `[rsi]` to `[rdi]`, then step both by 8 (back if DF is set).
                movsq:      "movsq"      ()                                [] => iced!(Movsq_m64_m64);
                /// Store al at `[rdi]`, then step rdi by 1 (back if DF is set).
                stosb:      "stosb"      ()                                [] => iced!(Stosb_m8_AL);
                /// Store rax at `[rdi]`, then step rdi by 8 (back if DF is set).
                stosq:      "stosq"      ()                                [] => iced!(Stosq_m64_RAX);
                /// `movsb` rcx times (rcx counts down to 0).
                rep_movsb:  "rep movsb"  ()                                [] => iced!(Movsb_m8_m8);
                /// `movsq` rcx times (rcx counts down to 0).
                rep_movsq:  "rep movsq"  ()                                [] => iced!(Movsq_m64_m64);
                /// `stosb` rcx times (rcx counts down to 0).
                rep_stosb:  "rep stosb"  ()                                [] => iced!(Stosb_m8_AL);
                /// `stosq` rcx times (rcx counts down to 0).
                rep_stosq:  "rep stosq"  ()                                [] => iced!(Stosq_m64_RAX);
                /// Clear the direction flag (string instructions step forward).
                cld:        "cld"        ()                                [] => iced!(Cld);
                /// Set the direction flag (string instructions step back).
                std:        "std"        ()                                [] => iced!(Std);
                /// Jump if rcx is zero (rel8 only: the target must be within 127 bytes).
                jrcxz:      "jrcxz"      (t: Target)                       [] => iced!(Jrcxz_rel8_64);

                // --- 128-bit vector (VEX) -------------------------------------------------------------------------------
                vmovdqu_load:  "vmovdqu" (d: X, s: M128)                   [Avx] as vmovdqu => iced!(VEX_Vmovdqu_xmm_xmmm128);
                vmovdqu_store: "vmovdqu" (d: M128, s: X)                   [Avx] as vmovdqu => iced!(VEX_Vmovdqu_xmmm128_xmm);
                /// Register to register (the store form where it is shorter, as GNU as picks it).
                vmovdqu_reg: "vmovdqu"   (d: X, s: X)                      [Avx] as vmovdqu
                    => iced!(VEX_Vmovdqu_xmm_xmmm128, VEX_Vmovdqu_xmmm128_xmm);
                vmovdqa:    "vmovdqa"    (d: X, s: Xm)                     [Avx] as vmovdqa
                    => iced!(VEX_Vmovdqa_xmm_xmmm128, VEX_Vmovdqa_xmmm128_xmm);
                vmovdqa_store: "vmovdqa" (d: M128, s: X)                   [Avx] as vmovdqa => iced!(VEX_Vmovdqa_xmmm128_xmm);
                vmovq_load: "vmovq"      (d: X, s: M64)                    [Avx] as vmovq
                    => iced!(VEX_Vmovq_xmm_xmmm64, VEX_Vmovq_xmm_rm64);
                /// Moves a 64-bit register into the low qword, zeroing the rest.
                vmovq_gpr:  "vmovq"      (d: X, s: R64)                    [Avx] as vmovq => iced!(VEX_Vmovq_xmm_rm64);
                vmovd_store: "vmovd"     (d: M32, s: X)                    [Avx] as vmovd => iced!(VEX_Vmovd_rm32_xmm);
                /// A dword from memory into the low dword, zeroing the rest.
                vmovd_load: "vmovd"      (d: X, s: M32)                    [Avx] as vmovd => iced!(VEX_Vmovd_xmm_rm32);
                /// Stores the low qword.
                vmovq_store: "vmovq"     (d: M64, s: X)                    [Avx] as vmovq => iced!(VEX_Vmovq_xmmm64_xmm);
                /// Inserts a qword at qword position `n`.
                vpinsrq:    "vpinsrq"    (d: X, a: X, s: Rm64, n: Imm)     [Avx] => iced!(VEX_Vpinsrq_xmm_xmm_rm64_imm8);
                /// `a` with the dword `s` inserted at dword position `n` (mod 4).
                vpinsrd:    "vpinsrd"    (d: X, a: X, s: Rm32, n: Imm)     [Avx] => iced!(VEX_Vpinsrd_xmm_xmm_rm32_imm8);
                /// Extracts the qword at qword position `n` into a 64-bit register.
                vpextrq:    "vpextrq"    (d: R64, s: X, n: Imm)            [Avx] => iced!(VEX_Vpextrq_rm64_xmm_imm8);
                /// Extracts the dword at dword position `n` (mod 4).
                vpextrd:    "vpextrd"    (d: R32, s: X, n: Imm)            [Avx] => iced!(VEX_Vpextrd_rm32_xmm_imm8);
                /// Broadcasts a dword from memory to the four dwords (a plain load on current cores).
                vbroadcastss: "vbroadcastss" (d: X, s: M32)                [Avx] => iced!(VEX_Vbroadcastss_xmm_m32);
                vpxor:      "vpxor"      (d: X, a: X, b: Xm)               [Avx] as vpxor => iced!(VEX_Vpxor_xmm_xmm_xmmm128);
                vpand:      "vpand"      (d: X, a: X, b: Xm)               [Avx] as vpand => iced!(VEX_Vpand_xmm_xmm_xmmm128);
                vpor:       "vpor"       (d: X, a: X, b: Xm)               [Avx] as vpor => iced!(VEX_Vpor_xmm_xmm_xmmm128);
                vpandn:     "vpandn"     (d: X, a: X, b: Xm)               [Avx] as vpandn => iced!(VEX_Vpandn_xmm_xmm_xmmm128);
                vpaddd:     "vpaddd"     (d: X, a: X, b: Xm)               [Avx] as vpaddd => iced!(VEX_Vpaddd_xmm_xmm_xmmm128);
                vpaddq:     "vpaddq"     (d: X, a: X, b: Xm)               [Avx] as vpaddq => iced!(VEX_Vpaddq_xmm_xmm_xmmm128);
                vpsubq:     "vpsubq"     (d: X, a: X, b: Xm)               [Avx] as vpsubq => iced!(VEX_Vpsubq_xmm_xmm_xmmm128);
                vpsubw:     "vpsubw"     (d: X, a: X, b: Xm)               [Avx] as vpsubw => iced!(VEX_Vpsubw_xmm_xmm_xmmm128);
                /// The qword from memory into both qwords.
                vmovddup:   "vmovddup"   (d: X, s: M64)                    [Avx] => iced!(VEX_Vmovddup_xmm_xmmm64);
                vpshufb:    "vpshufb"    (d: X, a: X, b: Xm)               [Avx] as vpshufb => iced!(VEX_Vpshufb_xmm_xmm_xmmm128);
                vpshufd:    "vpshufd"    (d: X, a: Xm, sel: Sel)           [Avx] as vpshufd => iced!(VEX_Vpshufd_xmm_xmmm128_imm8);
                vpalignr:   "vpalignr"   (d: X, a: X, b: Xm, n: Imm)       [Avx] as vpalignr
                    => iced!(VEX_Vpalignr_xmm_xmm_xmmm128_imm8);
                vpunpckldq: "vpunpckldq" (d: X, a: X, b: Xm)               [Avx] as vpunpckldq
                    => iced!(VEX_Vpunpckldq_xmm_xmm_xmmm128);
                vpunpckhdq: "vpunpckhdq" (d: X, a: X, b: Xm)               [Avx] as vpunpckhdq
                    => iced!(VEX_Vpunpckhdq_xmm_xmm_xmmm128);
                vpunpcklqdq: "vpunpcklqdq" (d: X, a: X, b: Xm)             [Avx] as vpunpcklqdq
                    => iced!(VEX_Vpunpcklqdq_xmm_xmm_xmmm128);
                vpunpckhqdq: "vpunpckhqdq" (d: X, a: X, b: Xm)             [Avx] as vpunpckhqdq
                    => iced!(VEX_Vpunpckhqdq_xmm_xmm_xmmm128);
                vpsllq:     "vpsllq"     (d: X, a: X, n: Imm)              [Avx] as vpsllq => iced!(VEX_Vpsllq_xmm_xmm_imm8);
                vpsrlq:     "vpsrlq"     (d: X, a: X, n: Imm)              [Avx] as vpsrlq => iced!(VEX_Vpsrlq_xmm_xmm_imm8);
                vpsrad:     "vpsrad"     (d: X, a: X, n: Imm)              [Avx] => iced!(VEX_Vpsrad_xmm_xmm_imm8);
                vpslld:     "vpslld"     (d: X, a: X, n: Imm)              [Avx] as vpslld => iced!(VEX_Vpslld_xmm_xmm_imm8);
                vpsrld:     "vpsrld"     (d: X, a: X, n: Imm)              [Avx] as vpsrld => iced!(VEX_Vpsrld_xmm_xmm_imm8);
                vpsrlw:     "vpsrlw"     (d: X, a: X, n: Imm)              [Avx] => iced!(VEX_Vpsrlw_xmm_xmm_imm8);
                vpslldq:    "vpslldq"    (d: X, a: X, n: Imm)              [Avx] as vpslldq => iced!(VEX_Vpslldq_xmm_xmm_imm8);
                vpsrldq:    "vpsrldq"    (d: X, a: X, n: Imm)              [Avx] as vpsrldq => iced!(VEX_Vpsrldq_xmm_xmm_imm8);
                /// Carry-less multiply of one qword of `a` and one of `b`, chosen by bits 0 and 4 of `sel`.
                vpclmulqdq: "vpclmulqdq" (d: X, a: X, b: Xm, sel: Sel)     [Avx, Pclmulqdq] as vpclmulqdq
                    => iced!(VEX_Vpclmulqdq_xmm_xmm_xmmm128_imm8);
                /// AES last round: ShiftRows, SubBytes, xor with the round key `k` (VEX form: AES-NI and AVX).
                vaesenclast: "vaesenclast" (d: X, a: X, k: Xm)             [Aes, Avx] as vaesenclast
                    => iced!(VEX_Vaesenclast_xmm_xmm_xmmm128);
                /// AES round: ShiftRows, SubBytes, MixColumns, xor with the round key `k`.
                vaesenc:    "vaesenc"    (d: X, a: X, k: Xm)               [Aes, Avx] as vaesenc
                    => iced!(VEX_Vaesenc_xmm_xmm_xmmm128);
                /// AES decryption round: InvShiftRows, InvSubBytes, InvMixColumns, xor with the round key `k`.
                vaesdec:    "vaesdec"    (d: X, a: X, k: Xm)               [Aes, Avx] as vaesdec
                    => iced!(VEX_Vaesdec_xmm_xmm_xmmm128);
                /// AES last decryption round: InvShiftRows, InvSubBytes, xor with the round key `k`.
                vaesdeclast: "vaesdeclast" (d: X, a: X, k: Xm)             [Aes, Avx] as vaesdeclast
                    => iced!(VEX_Vaesdeclast_xmm_xmm_xmmm128);
                /// InvMixColumns of a round key (the decryption key schedule).
                vaesimc:    "vaesimc"    (d: X, a: Xm)                     [Aes, Avx] => iced!(VEX_Vaesimc_xmm_xmmm128);
                /// Key-schedule assist: SubWord of dwords 1 and 3 of `a`, and RotWord of them xored with `rcon`.
                vaeskeygenassist: "vaeskeygenassist" (d: X, a: Xm, rcon: Sel) [Aes, Avx]
                    => iced!(VEX_Vaeskeygenassist_xmm_xmmm128_imm8);
                /// Affine map on each byte: `A·x ^ imm`, with the 8x8 bit matrix of each qword lane in `m` (row `i` in byte
                /// `7 - i`).
                vgf2p8affineqb: "vgf2p8affineqb" (d: X, a: X, m: Xm, c: Sel) [Gfni, Avx] as vgf2p8affineqb
                    => iced!(VEX_Vgf2p8affineqb_xmm_xmm_xmmm128_imm8);
                /// Inverse in GF(2^8)/0x11b, then the affine map of `vgf2p8affineqb`.
                vgf2p8affineinvqb: "vgf2p8affineinvqb" (d: X, a: X, m: Xm, c: Sel) [Gfni, Avx] as vgf2p8affineinvqb
                    => iced!(VEX_Vgf2p8affineinvqb_xmm_xmm_xmmm128_imm8);
                /// Moves the low qword into a 64-bit register.
                vmovq_to_gpr: "vmovq"    (d: R64, s: X)                    [Avx] as vmovq => iced!(VEX_Vmovq_rm64_xmm);
                /// Moves a 32-bit register into the low dword, zeroing the rest.
                vmovd_gpr:  "vmovd"      (d: X, s: R32)                    [Avx] as vmovd => iced!(VEX_Vmovd_xmm_rm32);
                vmovups_load: "vmovups"  (d: X, s: M128)                   [Avx] as vmovups => iced!(VEX_Vmovups_xmm_xmmm128);
                vmovups_store: "vmovups" (d: M128, s: X)                   [Avx] as vmovups => iced!(VEX_Vmovups_xmmm128_xmm);
                vxorps:     "vxorps"     (d: X, a: X, b: Xm)               [Avx] => iced!(VEX_Vxorps_xmm_xmm_xmmm128);
                vpaddb:     "vpaddb"     (d: X, a: X, b: Xm)               [Avx] as vpaddb => iced!(VEX_Vpaddb_xmm_xmm_xmmm128);
                vpsubd:     "vpsubd"     (d: X, a: X, b: Xm)               [Avx] => iced!(VEX_Vpsubd_xmm_xmm_xmmm128);
                /// Unsigned multiply of the low dwords of each qword, the 64-bit products.
                vpmuludq:   "vpmuludq"   (d: X, a: X, b: Xm)               [Avx] as vpmuludq
                    => iced!(VEX_Vpmuludq_xmm_xmm_xmmm128);
                /// Dword blend: dword `i` from `b` where bit `i` of `sel` is set, else from `a`.
                vpblendd:   "vpblendd"   (d: X, a: X, b: Xm, sel: Sel)     [Avx2] as vpblendd
                    => iced!(VEX_Vpblendd_xmm_xmm_xmmm128_imm8);

                // --- 128-bit vector, legacy SSE encoding (the upper bits of the register are kept; memory 16-byte
                // aligned) -------------------------------------------------------------------------------------------
                /// SHA-256 message schedule, first part: dword `i` of `d` plus σ0 of dword `i + 1` of `d:s`.
                /// Two SHA-256 rounds: state (C, D, G, H) in `d`, (A, B, E, F) in `s`, the message words plus round
                /// constants in the low two dwords of xmm0 (implicit: GNU as and llvm-mc accept the two-operand form).
                sha256rnds2: "sha256rnds2" (d: X, s: Xm)                   [Sha] => iced!(Sha256rnds2_xmm_xmmm128);
                sha256msg1: "sha256msg1" (d: X, s: Xm)                     [Sha] => iced!(Sha256msg1_xmm_xmmm128);
                /// SHA-256 message schedule, second part: the four next words W16..W19 from `d` (the partial sums)
                /// and dwords 2 and 3 of `s` (W14, W15), through σ1.
                sha256msg2: "sha256msg2" (d: X, s: Xm)                     [Sha] => iced!(Sha256msg2_xmm_xmmm128);
                movdqa:     "movdqa"     (d: X, s: Xm)                     [] as movdqa
                    => iced!(Movdqa_xmm_xmmm128, Movdqa_xmmm128_xmm);
                movdqa_store: "movdqa"   (d: M128, s: X)                   [] as movdqa => iced!(Movdqa_xmmm128_xmm);
                movdqu_load: "movdqu"    (d: X, s: Xm)                     [] as movdqu => iced!(Movdqu_xmm_xmmm128);
                movdqu_store: "movdqu"   (d: M128, s: X)                   [] as movdqu => iced!(Movdqu_xmmm128_xmm);
                pxor:       "pxor"       (d: X, s: Xm)                     [] => iced!(Pxor_xmm_xmmm128);
                por:        "por"        (d: X, s: Xm)                     [] => iced!(Por_xmm_xmmm128);
                pand:       "pand"       (d: X, s: Xm)                     [] => iced!(Pand_xmm_xmmm128);
                /// `!d & s`.
                pandn:      "pandn"      (d: X, s: Xm)                     [] => iced!(Pandn_xmm_xmmm128);
                xorps:      "xorps"      (d: X, s: Xm)                     [] => iced!(Xorps_xmm_xmmm128);
                /// Dwords equal: all ones, else zero.
                pcmpeqd:    "pcmpeqd"    (d: X, s: Xm)                     [] => iced!(Pcmpeqd_xmm_xmmm128);
                /// Dwords signed greater: all ones, else zero.
                pcmpgtd:    "pcmpgtd"    (d: X, s: Xm)                     [] => iced!(Pcmpgtd_xmm_xmmm128);
                psubd:      "psubd"      (d: X, s: Xm)                     [] => iced!(Psubd_xmm_xmmm128);
                punpckldq:  "punpckldq"  (d: X, s: Xm)                     [] => iced!(Punpckldq_xmm_xmmm128);
                punpckhdq:  "punpckhdq"  (d: X, s: Xm)                     [] => iced!(Punpckhdq_xmm_xmmm128);
                punpcklqdq: "punpcklqdq" (d: X, s: Xm)                     [] => iced!(Punpcklqdq_xmm_xmmm128);
                punpckhqdq: "punpckhqdq" (d: X, s: Xm)                     [] => iced!(Punpckhqdq_xmm_xmmm128);
                /// Dwords 0, 1 from `d` and 2, 3 from `s`, each chosen by two bits of `sel`.
                shufps:     "shufps"     (d: X, s: Xm, sel: Sel)           [] => iced!(Shufps_xmm_xmmm128_imm8);
                /// The high qword of `s` into the low qword of `d`.
                movhlps:    "movhlps"    (d: X, s: X)                      [] => iced!(Movhlps_xmm_xmm);
                psrld:      "psrld"      (d: X, n: Imm)                    [] => iced!(Psrld_xmm_imm8);
                pslld:      "pslld"      (d: X, n: Imm)                    [] => iced!(Pslld_xmm_imm8);
                psrlq:      "psrlq"      (d: X, n: Imm)                    [] => iced!(Psrlq_xmm_imm8);
                psllq:      "psllq"      (d: X, n: Imm)                    [] => iced!(Psllq_xmm_imm8);
                /// Byte shift left.
                pslldq:     "pslldq"     (d: X, n: Imm)                    [] => iced!(Pslldq_xmm_imm8);
                /// Byte shift right.
                psrldq:     "psrldq"     (d: X, n: Imm)                    [] => iced!(Psrldq_xmm_imm8);
                movups:     "movups"     (d: X, s: Xm)                     [] as movups
                    => iced!(Movups_xmm_xmmm128, Movups_xmmm128_xmm);
                movups_store: "movups"   (d: M128, s: X)                   [] as movups => iced!(Movups_xmmm128_xmm);
                movaps:     "movaps"     (d: X, s: Xm)                     [] as movaps
                    => iced!(Movaps_xmm_xmmm128, Movaps_xmmm128_xmm);
                movaps_store: "movaps"   (d: M128, s: X)                   [] as movaps => iced!(Movaps_xmmm128_xmm);
                /// The low qword into a 64-bit register.
                movq_to_gpr: "movq"      (d: R64, s: X)                    [] as movq => iced!(Movq_rm64_xmm);
                /// A 64-bit register into the low qword, zeroing the rest of the low 128 bits.
                movq_from_gpr: "movq"    (d: X, s: R64)                    [] as movq => iced!(Movq_xmm_rm64);
                movq_load:  "movq"       (d: X, s: M64)                    [] as movq => iced!(Movq_xmm_xmmm64);
                movq_store: "movq"       (d: M64, s: X)                    [] as movq => iced!(Movq_xmmm64_xmm);
                /// A 32-bit register into the low dword, zeroing the rest of the low 128 bits.
                movd_from_gpr: "movd"    (d: X, s: R32)                    [] as movd => iced!(Movd_xmm_rm32);
                movd_load:  "movd"       (d: X, s: M32)                    [] as movd => iced!(Movd_xmm_rm32);
                movd_store: "movd"       (d: M32, s: X)                    [] as movd => iced!(Movd_rm32_xmm);
                /// The low dword into a 32-bit register.
                movd_to_gpr: "movd"      (d: R32, s: X)                    [] as movd => iced!(Movd_rm32_xmm);
                /// Inserts a dword at dword position `n` (mod 4).
                pinsrd:     "pinsrd"     (d: X, s: Rm32, n: Imm)           [Sse41] => iced!(Pinsrd_xmm_rm32_imm8);
                /// Inserts a byte from memory at byte position `n` (mod 16).
                pinsrb:     "pinsrb"     (d: X, s: M8, n: Imm)             [Sse41] => iced!(Pinsrb_xmm_r32m8_imm8);
                /// Stores the byte at byte position `n` (mod 16).
                pextrb:     "pextrb"     (d: M8, s: X, n: Imm)             [Sse41] => iced!(Pextrb_r32m8_xmm_imm8);
                /// Extracts the qword at qword position `n` (mod 2).
                pextrq:     "pextrq"     (d: R64, s: X, n: Imm)            [Sse41] => iced!(Pextrq_rm64_xmm_imm8);
                /// Key-schedule assist (legacy SSE form of `vaeskeygenassist`).
                aeskeygenassist: "aeskeygenassist" (d: X, s: Xm, rcon: Sel) [Aes] => iced!(Aeskeygenassist_xmm_xmmm128_imm8);
                /// InvMixColumns of a round key (legacy SSE form of `vaesimc`).
                aesimc:     "aesimc"     (d: X, s: Xm)                     [Aes] => iced!(Aesimc_xmm_xmmm128);
                /// Four SHA-1 rounds on (A, B, C, D) in dwords 3..0 of `d`, the message words plus E in `s`, the
                /// round function and constant chosen by `sel & 3`.
                sha1rnds4:  "sha1rnds4"  (d: X, s: Xm, sel: Sel)           [Sha] => iced!(Sha1rnds4_xmm_xmmm128_imm8);
                /// E (dword 3 of `d`, rotated left 30) added to dword 3 of `s`; the other dwords of `s`.
                sha1nexte:  "sha1nexte"  (d: X, s: Xm)                     [Sha] => iced!(Sha1nexte_xmm_xmmm128);
                /// SHA-1 message schedule, first part: `W[i] ^ W[i + 2]` of the six words in `d:s`.
                sha1msg1:   "sha1msg1"   (d: X, s: Xm)                     [Sha] => iced!(Sha1msg1_xmm_xmmm128);
                /// SHA-1 message schedule, second part: the four next words, rotated left 1.
                sha1msg2:   "sha1msg2"   (d: X, s: Xm)                     [Sha] => iced!(Sha1msg2_xmm_xmmm128);
                paddd:      "paddd"      (d: X, s: Xm)                     [] => iced!(Paddd_xmm_xmmm128);
                paddq:      "paddq"      (d: X, s: Xm)                     [] => iced!(Paddq_xmm_xmmm128);
                paddb:      "paddb"      (d: X, s: Xm)                     [] => iced!(Paddb_xmm_xmmm128);
                pshufd:     "pshufd"     (d: X, s: Xm, sel: Sel)           [] => iced!(Pshufd_xmm_xmmm128_imm8);
                pshufb:     "pshufb"     (d: X, s: Xm)                     [Ssse3] => iced!(Pshufb_xmm_xmmm128);
                /// `[d, s]` shifted right by `n` bytes, the low 16 bytes.
                palignr:    "palignr"    (d: X, s: Xm, n: Imm)             [Ssse3] => iced!(Palignr_xmm_xmmm128_imm8);
                /// Carry-less multiply of one qword of `d` and one of `s`, chosen by bits 0 and 4 of `sel`.
                pclmulqdq:  "pclmulqdq"  (d: X, s: Xm, sel: Sel)           [Pclmulqdq] => iced!(Pclmulqdq_xmm_xmmm128_imm8);
                /// AES round on `d` with the round key `k`.
                aesenc:     "aesenc"     (d: X, k: Xm)                     [Aes] => iced!(Aesenc_xmm_xmmm128);
                /// AES last round on `d` with the round key `k`.
                aesenclast: "aesenclast" (d: X, k: Xm)                     [Aes] => iced!(Aesenclast_xmm_xmmm128);
                /// AES decryption round on `d` with the round key `k`.
                aesdec:     "aesdec"     (d: X, k: Xm)                     [Aes] => iced!(Aesdec_xmm_xmmm128);
                /// AES last decryption round on `d` with the round key `k`.
                aesdeclast: "aesdeclast" (d: X, k: Xm)                     [Aes] => iced!(Aesdeclast_xmm_xmmm128);

                // --- 256-bit vector (AVX2, VPCLMULQDQ) --------------------------------------------------------------------
                vmovdqu_load_y:  "vmovdqu" (d: Y, s: M256)                 [Avx] as vmovdqu => iced!(VEX_Vmovdqu_ymm_ymmm256);
                vmovdqu_reg_y: "vmovdqu" (d: Y, s: Y)                      [Avx] as vmovdqu
                    => iced!(VEX_Vmovdqu_ymm_ymmm256, VEX_Vmovdqu_ymmm256_ymm);
                vmovdqu_store_y: "vmovdqu" (d: M256, s: Y)                 [Avx] as vmovdqu => iced!(VEX_Vmovdqu_ymmm256_ymm);
                vmovdqa_y:  "vmovdqa"    (d: Y, s: Ym)                     [Avx] as vmovdqa
                    => iced!(VEX_Vmovdqa_ymm_ymmm256, VEX_Vmovdqa_ymmm256_ymm);
                vpxor_y:    "vpxor"      (d: Y, a: Y, b: Ym)               [Avx2] as vpxor => iced!(VEX_Vpxor_ymm_ymm_ymmm256);
                vpand_y:    "vpand"      (d: Y, a: Y, b: Ym)               [Avx2] as vpand => iced!(VEX_Vpand_ymm_ymm_ymmm256);
                vpandn_y:   "vpandn"     (d: Y, a: Y, b: Ym)               [Avx2] as vpandn => iced!(VEX_Vpandn_ymm_ymm_ymmm256);
                vpor_y:     "vpor"       (d: Y, a: Y, b: Ym)               [Avx2] as vpor => iced!(VEX_Vpor_ymm_ymm_ymmm256);
                vpaddd_y:   "vpaddd"     (d: Y, a: Y, b: Ym)               [Avx2] as vpaddd => iced!(VEX_Vpaddd_ymm_ymm_ymmm256);
                vpaddw_y:   "vpaddw"     (d: Y, a: Y, b: Ym)               [Avx2] as vpaddw => iced!(VEX_Vpaddw_ymm_ymm_ymmm256);
                vpaddq_y:   "vpaddq"     (d: Y, a: Y, b: Ym)               [Avx2] as vpaddq => iced!(VEX_Vpaddq_ymm_ymm_ymmm256);
                vpaddb_y:   "vpaddb"     (d: Y, a: Y, b: Ym)               [Avx2] as vpaddb => iced!(VEX_Vpaddb_ymm_ymm_ymmm256);
                vpsubw_y:   "vpsubw"     (d: Y, a: Y, b: Ym)               [Avx2] as vpsubw => iced!(VEX_Vpsubw_ymm_ymm_ymmm256);
                /// Absolute value of each signed byte.
                vpabsb_y:   "vpabsb"     (d: Y, s: Ym)                     [Avx2] as vpabsb => iced!(VEX_Vpabsb_ymm_ymmm256);
                /// Bytes signed greater: all ones, else zero.
                vpcmpgtb_y: "vpcmpgtb"   (d: Y, a: Y, b: Ym)               [Avx2] as vpcmpgtb
                    => iced!(VEX_Vpcmpgtb_ymm_ymm_ymmm256);
                vpsubq_y:   "vpsubq"     (d: Y, a: Y, b: Ym)               [Avx2] as vpsubq => iced!(VEX_Vpsubq_ymm_ymm_ymmm256);
                vpslld_y:   "vpslld"     (d: Y, a: Y, n: Imm)              [Avx2] as vpslld => iced!(VEX_Vpslld_ymm_ymm_imm8);
                vpsllq_y:   "vpsllq"     (d: Y, a: Y, n: Imm)              [Avx2] as vpsllq => iced!(VEX_Vpsllq_ymm_ymm_imm8);
                /// Byte shift left within each 128-bit lane.
                vpslldq_y:  "vpslldq"    (d: Y, a: Y, n: Imm)              [Avx2] as vpslldq => iced!(VEX_Vpslldq_ymm_ymm_imm8);
                /// Byte shift right within each 128-bit lane.
                vpsrldq_y:  "vpsrldq"    (d: Y, a: Y, n: Imm)              [Avx2] as vpsrldq => iced!(VEX_Vpsrldq_ymm_ymm_imm8);
                /// Shift each qword left by the count in the matching qword of `n` (counts over 63 give 0).
                vpsllvq_y:  "vpsllvq"    (d: Y, a: Y, n: Ym)               [Avx2] as vpsllvq => iced!(VEX_Vpsllvq_ymm_ymm_ymmm256);
                /// Shift each qword right (logical) by the count in the matching qword of `n` (counts over 63 give 0).
                vpsrlvq_y:  "vpsrlvq"    (d: Y, a: Y, n: Ym)               [Avx2] as vpsrlvq => iced!(VEX_Vpsrlvq_ymm_ymm_ymmm256);
                vpsrld_y:   "vpsrld"     (d: Y, a: Y, n: Imm)              [Avx2] as vpsrld => iced!(VEX_Vpsrld_ymm_ymm_imm8);
                vpunpckldq_y: "vpunpckldq" (d: Y, a: Y, b: Ym)             [Avx2] as vpunpckldq
                    => iced!(VEX_Vpunpckldq_ymm_ymm_ymmm256);
                vpunpckhdq_y: "vpunpckhdq" (d: Y, a: Y, b: Ym)             [Avx2] as vpunpckhdq
                    => iced!(VEX_Vpunpckhdq_ymm_ymm_ymmm256);
                vpunpcklqdq_y: "vpunpcklqdq" (d: Y, a: Y, b: Ym)           [Avx2] as vpunpcklqdq
                    => iced!(VEX_Vpunpcklqdq_ymm_ymm_ymmm256);
                vpunpckhqdq_y: "vpunpckhqdq" (d: Y, a: Y, b: Ym)           [Avx2] as vpunpckhqdq
                    => iced!(VEX_Vpunpckhqdq_ymm_ymm_ymmm256);
                vmovdqa_store_y: "vmovdqa" (d: M256, s: Y)                 [Avx] as vmovdqa => iced!(VEX_Vmovdqa_ymmm256_ymm);
                /// Per 128-bit lane: `[a, b]` shifted right by `n` bytes, the low 16 bytes.
                vpalignr_y: "vpalignr"   (d: Y, a: Y, b: Ym, n: Imm)       [Avx2] as vpalignr
                    => iced!(VEX_Vpalignr_ymm_ymm_ymmm256_imm8);
                /// Unsigned multiply of the low dwords of each qword, the 64-bit products.
                vpmuludq_y: "vpmuludq"   (d: Y, a: Y, b: Ym)               [Avx2] as vpmuludq
                    => iced!(VEX_Vpmuludq_ymm_ymm_ymmm256);
                vpsrlq_y:   "vpsrlq"     (d: Y, a: Y, n: Imm)              [Avx2] as vpsrlq => iced!(VEX_Vpsrlq_ymm_ymm_imm8);
                /// Dwords signed greater: all ones, else zero.
                vpcmpgtd:   "vpcmpgtd"   (d: X, a: X, b: Xm)               [Avx] => iced!(VEX_Vpcmpgtd_xmm_xmm_xmmm128);
                /// Bytes signed greater: all ones, else zero.
                vpcmpgtb:   "vpcmpgtb"   (d: X, a: X, b: Xm)               [Avx] as vpcmpgtb => iced!(VEX_Vpcmpgtb_xmm_xmm_xmmm128);
                /// Absolute value of each signed byte.
                vpabsb:     "vpabsb"     (d: X, s: Xm)                     [Avx] as vpabsb => iced!(VEX_Vpabsb_xmm_xmmm128);
                /// Broadcasts the low dword of `s` to the eight dwords.
                vpbroadcastd_y_reg: "vpbroadcastd" (d: Y, s: X)            [Avx2] as vpbroadcastd
                    => iced!(VEX_Vpbroadcastd_ymm_xmmm32);
                /// Dwords equal: all ones, else zero.
                vpcmpeqd_y: "vpcmpeqd"   (d: Y, a: Y, b: Ym)               [Avx2] => iced!(VEX_Vpcmpeqd_ymm_ymm_ymmm256);
                /// Dword permutation across the 256 bits: dword `i` of `d` is dword `a[i] & 7` of `b`.
                vpermd:     "vpermd"     (d: Y, a: Y, b: Ym)               [Avx2] => iced!(VEX_Vpermd_ymm_ymm_ymmm256);
                /// Broadcasts a qword from memory to the four qwords.
                vpbroadcastq_y: "vpbroadcastq" (d: Y, s: M64)              [Avx2] as vpbroadcastq
                    => iced!(VEX_Vpbroadcastq_ymm_xmmm64);
                /// Broadcasts the low qword of `s` to the four qwords.
                vpbroadcastq_y_reg: "vpbroadcastq" (d: Y, s: X)            [Avx2] as vpbroadcastq
                    => iced!(VEX_Vpbroadcastq_ymm_xmmm64);
                /// Broadcasts a dword from memory to the eight dwords.
                vpbroadcastd_y: "vpbroadcastd" (d: Y, s: M32)              [Avx2] as vpbroadcastd
                    => iced!(VEX_Vpbroadcastd_ymm_xmmm32);
                /// Broadcasts a dword from memory to the four dwords.
                vpbroadcastd_x: "vpbroadcastd" (d: X, s: M32)              [Avx2] as vpbroadcastd
                    => iced!(VEX_Vpbroadcastd_xmm_xmmm32);
                /// Broadcasts a byte from memory to the 32 bytes.
                vpbroadcastb_y: "vpbroadcastb" (d: Y, s: M8)               [Avx2] as vpbroadcastb
                    => iced!(VEX_Vpbroadcastb_ymm_xmmm8);
                /// Broadcasts the low byte of `s` to the 32 bytes.
                vpbroadcastb_y_reg: "vpbroadcastb" (d: Y, s: X)            [Avx2] as vpbroadcastb
                    => iced!(VEX_Vpbroadcastb_ymm_xmmm8);
                vpshufb_y:  "vpshufb"    (d: Y, a: Y, b: Ym)               [Avx2] as vpshufb => iced!(VEX_Vpshufb_ymm_ymm_ymmm256);
                vpshufd_y:  "vpshufd"    (d: Y, a: Ym, sel: Sel)           [Avx2] as vpshufd => iced!(VEX_Vpshufd_ymm_ymmm256_imm8);
                vbroadcasti128: "vbroadcasti128" (d: Y, s: M128)           [Avx2] => iced!(VEX_Vbroadcasti128_ymm_m128);
                vinserti128: "vinserti128" (d: Y, a: Y, b: Xm, sel: Sel)   [Avx2] => iced!(VEX_Vinserti128_ymm_ymm_xmmm128_imm8);
                vextracti128: "vextracti128" (d: X, a: Y, sel: Sel)        [Avx2] => iced!(VEX_Vextracti128_xmmm128_ymm_imm8);
                /// 128-bit halves: half `i` of `d` is half `(sel >> 4i) & 3` of `a:b` (0, 1 from `a`, 2, 3 from `b`),
                /// or zero where bit `4i + 3` of `sel` is set.
                vperm2i128: "vperm2i128" (d: Y, a: Y, b: Ym, sel: Sel)     [Avx2]
                    => iced!(VEX_Vperm2i128_ymm_ymm_ymmm256_imm8);
                /// Qword permutation across the 256 bits: qword `i` of `d` is qword `(sel >> 2i) & 3` of `a`.
                vpermq:     "vpermq"     (d: Y, a: Ym, sel: Sel)           [Avx2] => iced!(VEX_Vpermq_ymm_ymmm256_imm8);
                /// Dword blend on ymm: dword `i` from `b` where bit `i` of `sel` is set, else from `a`.
                vpblendd_y: "vpblendd"   (d: Y, a: Y, b: Ym, sel: Sel)     [Avx2] as vpblendd
                    => iced!(VEX_Vpblendd_ymm_ymm_ymmm256_imm8);
                vpclmulqdq_y: "vpclmulqdq" (d: Y, a: Y, b: Ym, sel: Sel)   [Avx, Vpclmulqdq] as vpclmulqdq
                    => iced!(VEX_Vpclmulqdq_ymm_ymm_ymmm256_imm8);
                /// AES last round on both 128-bit lanes.
                vaesenclast_y: "vaesenclast" (d: Y, a: Y, k: Ym)          [Avx, Vaes] as vaesenclast
                    => iced!(VEX_Vaesenclast_ymm_ymm_ymmm256);
                /// AES round on both 128-bit lanes.
                vaesenc_y:  "vaesenc"    (d: Y, a: Y, k: Ym)               [Avx, Vaes] as vaesenc
                    => iced!(VEX_Vaesenc_ymm_ymm_ymmm256);
                /// AES decryption round on both 128-bit lanes.
                vaesdec_y:  "vaesdec"    (d: Y, a: Y, k: Ym)               [Avx, Vaes] as vaesdec
                    => iced!(VEX_Vaesdec_ymm_ymm_ymmm256);
                /// AES last decryption round on both 128-bit lanes.
                vaesdeclast_y: "vaesdeclast" (d: Y, a: Y, k: Ym)          [Avx, Vaes] as vaesdeclast
                    => iced!(VEX_Vaesdeclast_ymm_ymm_ymmm256);
                /// `vgf2p8affineqb` on ymm.
                vgf2p8affineqb_y: "vgf2p8affineqb" (d: Y, a: Y, m: Ym, c: Sel) [Gfni, Avx] as vgf2p8affineqb
                    => iced!(VEX_Vgf2p8affineqb_ymm_ymm_ymmm256_imm8);
                /// `vgf2p8affineinvqb` on ymm.
                vgf2p8affineinvqb_y: "vgf2p8affineinvqb" (d: Y, a: Y, m: Ym, c: Sel) [Gfni, Avx] as vgf2p8affineinvqb
                    => iced!(VEX_Vgf2p8affineinvqb_ymm_ymm_ymmm256_imm8);
                vzeroupper: "vzeroupper" ()                                [Avx] => iced!(VEX_Vzeroupper);
                /// Zeroes ymm0-ymm15 (zmm16-zmm31 are kept).
                vzeroall:   "vzeroall"   ()                                [Avx] => iced!(VEX_Vzeroall);

                // --- 512-bit vector (AVX-512, EVEX; no opmask, no broadcast) -----------------------------------------
                vmovdqu64:  "vmovdqu64"  (d: Z, s: Zm)                     [Avx512f] as vmovdqu64
                    => iced!(EVEX_Vmovdqu64_zmm_k1z_zmmm512);
                vmovdqu64_store: "vmovdqu64" (d: M512, s: Z)               [Avx512f] as vmovdqu64
                    => iced!(EVEX_Vmovdqu64_zmmm512_k1z_zmm);
                vpxorq:     "vpxorq"     (d: Z, a: Z, b: Zm)               [Avx512f] as vpxorq
                    => iced!(EVEX_Vpxorq_zmm_k1z_zmm_zmmm512b64);
                /// Bitwise ternary logic: bit `(d << 2) | (a << 1) | b` of `sel` is each result bit (`0x96`: xor of the
                /// three).
                vpternlogq: "vpternlogq" (d: Z, a: Z, b: Zm, sel: Sel)     [Avx512f] as vpternlogq
                    => iced!(EVEX_Vpternlogq_zmm_k1z_zmm_zmmm512b64_imm8);
                /// Carry-less multiply in each of the four 128-bit lanes.
                vpclmulqdq_z: "vpclmulqdq" (d: Z, a: Z, b: Zm, sel: Sel)   [Avx512f, Vpclmulqdq] as vpclmulqdq
                    => iced!(EVEX_Vpclmulqdq_zmm_zmm_zmmm512_imm8);
                vpshufb_z:  "vpshufb"    (d: Z, a: Z, b: Zm)               [Avx512f, Avx512bw] as vpshufb
                    => iced!(EVEX_Vpshufb_zmm_k1z_zmm_zmmm512);
                /// Byte shift left within each 128-bit lane.
                vpslldq_z:  "vpslldq"    (d: Z, a: Z, n: Imm)              [Avx512f, Avx512bw] as vpslldq
                    => iced!(EVEX_Vpslldq_zmm_zmmm512_imm8);
                /// Byte shift right within each 128-bit lane.
                vpsrldq_z:  "vpsrldq"    (d: Z, a: Z, n: Imm)              [Avx512f, Avx512bw] as vpsrldq
                    => iced!(EVEX_Vpsrldq_zmm_zmmm512_imm8);
                vpsllq_z:   "vpsllq"     (d: Z, a: Z, n: Imm)              [Avx512f] as vpsllq
                    => iced!(EVEX_Vpsllq_zmm_k1z_zmmm512b64_imm8);
                vpsrlq_z:   "vpsrlq"     (d: Z, a: Z, n: Imm)              [Avx512f] as vpsrlq
                    => iced!(EVEX_Vpsrlq_zmm_k1z_zmmm512b64_imm8);
                /// 128-bit lanes: lanes 0 and 1 of `d` from `a`, lanes 2 and 3 from `b`, each chosen by two bits of
                /// `sel`.
                vshufi64x2: "vshufi64x2" (d: Z, a: Z, b: Zm, sel: Sel)     [Avx512f]
                    => iced!(EVEX_Vshufi64x2_zmm_k1z_zmm_zmmm512b64_imm8);
                /// `a` with its 256-bit half `sel & 1` replaced by `b`.
                vinserti64x4: "vinserti64x4" (d: Z, a: Z, b: Ym, sel: Sel) [Avx512f]
                    => iced!(EVEX_Vinserti64x4_zmm_k1z_zmm_ymmm256_imm8);
                /// The 256-bit half `sel & 1` of `a`.
                vextracti64x4: "vextracti64x4" (d: Y, a: Z, sel: Sel)      [Avx512f]
                    => iced!(EVEX_Vextracti64x4_ymmm256_k1z_zmm_imm8);
                /// Broadcasts 16 bytes from memory to the four 128-bit lanes.
                vbroadcasti32x4: "vbroadcasti32x4" (d: Z, s: M128)         [Avx512f]
                    => iced!(EVEX_Vbroadcasti32x4_zmm_k1z_m128);
                /// 128-bit lanes (as `vshufi64x2`; the dword form differs only under a mask).
                vshufi32x4: "vshufi32x4" (d: Z, a: Z, b: Zm, sel: Sel)     [Avx512f]
                    => iced!(EVEX_Vshufi32x4_zmm_k1z_zmm_zmmm512b32_imm8);
                vmovdqu32:  "vmovdqu32"  (d: Z, s: Zm)                     [Avx512f] as vmovdqu32
                    => iced!(EVEX_Vmovdqu32_zmm_k1z_zmmm512);
                vmovdqu32_store: "vmovdqu32" (d: M512, s: Z)               [Avx512f] as vmovdqu32
                    => iced!(EVEX_Vmovdqu32_zmmm512_k1z_zmm);
                /// Register or aligned memory.
                vmovdqa32:  "vmovdqa32"  (d: Z, s: Zm)                     [Avx512f] => iced!(EVEX_Vmovdqa32_zmm_k1z_zmmm512);
                /// Register or aligned memory.
                vmovdqa64:  "vmovdqa64"  (d: Z, s: Zm)                     [Avx512f] as vmovdqa64
                    => iced!(EVEX_Vmovdqa64_zmm_k1z_zmmm512);
                vpaddb_z:   "vpaddb"     (d: Z, a: Z, b: Zm)               [Avx512f, Avx512bw] as vpaddb
                    => iced!(EVEX_Vpaddb_zmm_k1z_zmm_zmmm512);
                vpaddw_z:   "vpaddw"     (d: Z, a: Z, b: Zm)               [Avx512f, Avx512bw] as vpaddw
                    => iced!(EVEX_Vpaddw_zmm_k1z_zmm_zmmm512);
                /// Broadcasts a byte from memory to the 64 bytes.
                vpbroadcastb_z: "vpbroadcastb" (d: Z, s: M8)               [Avx512f, Avx512bw] as vpbroadcastb
                    => iced!(EVEX_Vpbroadcastb_zmm_k1z_xmmm8);
                /// Broadcasts the low byte of `s` to the 64 bytes.
                vpbroadcastb_z_reg: "vpbroadcastb" (d: Z, s: X)            [Avx512f, Avx512bw] as vpbroadcastb
                    => iced!(EVEX_Vpbroadcastb_zmm_k1z_xmmm8);
                /// Broadcasts a qword from memory to the eight qwords.
                vpbroadcastq_z: "vpbroadcastq" (d: Z, s: M64)              [Avx512f] as vpbroadcastq
                    => iced!(EVEX_Vpbroadcastq_zmm_k1z_xmmm64);
                /// Broadcasts the low qword of `s` to the eight qwords.
                vpbroadcastq_z_reg: "vpbroadcastq" (d: Z, s: X)            [Avx512f] as vpbroadcastq
                    => iced!(EVEX_Vpbroadcastq_zmm_k1z_xmmm64);
                /// AES last round on the four 128-bit lanes.
                vaesenclast_z: "vaesenclast" (d: Z, a: Z, k: Zm)          [Avx512f, Vaes] as vaesenclast
                    => iced!(EVEX_Vaesenclast_zmm_zmm_zmmm512);
                /// AES round on the four 128-bit lanes.
                vaesenc_z:  "vaesenc"    (d: Z, a: Z, k: Zm)               [Avx512f, Vaes] as vaesenc
                    => iced!(EVEX_Vaesenc_zmm_zmm_zmmm512);
                /// AES decryption round on the four 128-bit lanes.
                vaesdec_z:  "vaesdec"    (d: Z, a: Z, k: Zm)               [Avx512f, Vaes] as vaesdec
                    => iced!(EVEX_Vaesdec_zmm_zmm_zmmm512);
                /// AES last decryption round on the four 128-bit lanes.
                vaesdeclast_z: "vaesdeclast" (d: Z, a: Z, k: Zm)          [Avx512f, Vaes] as vaesdeclast
                    => iced!(EVEX_Vaesdeclast_zmm_zmm_zmmm512);
                /// `vgf2p8affineqb` on zmm.
                vgf2p8affineqb_z: "vgf2p8affineqb" (d: Z, a: Z, m: Zm, c: Sel) [Gfni, Avx512f] as vgf2p8affineqb
                    => iced!(EVEX_Vgf2p8affineqb_zmm_k1z_zmm_zmmm512b64_imm8);
                /// `vgf2p8affineinvqb` on zmm.
                vgf2p8affineinvqb_z: "vgf2p8affineinvqb" (d: Z, a: Z, m: Zm, c: Sel) [Gfni, Avx512f] as vgf2p8affineinvqb
                    => iced!(EVEX_Vgf2p8affineinvqb_zmm_k1z_zmm_zmmm512b64_imm8);
                // For SM4 on zmm: counters, rotations, word transposes.
                vpaddd_z:   "vpaddd"     (d: Z, a: Z, b: Zm)               [Avx512f] as vpaddd
                    => iced!(EVEX_Vpaddd_zmm_k1z_zmm_zmmm512b32);
                vpandq:     "vpandq"     (d: Z, a: Z, b: Zm)               [Avx512f] => iced!(EVEX_Vpandq_zmm_k1z_zmm_zmmm512b64);
                vpaddq_z:   "vpaddq"     (d: Z, a: Z, b: Zm)               [Avx512f] as vpaddq
                    => iced!(EVEX_Vpaddq_zmm_k1z_zmm_zmmm512b64);
                /// Broadcasts a dword from memory to the sixteen dwords.
                vpbroadcastd_z: "vpbroadcastd" (d: Z, s: M32)              [Avx512f] as vpbroadcastd
                    => iced!(EVEX_Vpbroadcastd_zmm_k1z_xmmm32);
                /// Rotates each dword left by `n` (mod 32).
                vprold:     "vprold"     (d: Z, a: Z, n: Imm)              [Avx512f] as vprold
                    => iced!(EVEX_Vprold_zmm_k1z_zmmm512b32_imm8);
                vpshufd_z:  "vpshufd"    (d: Z, a: Zm, sel: Sel)           [Avx512f] as vpshufd
                    => iced!(EVEX_Vpshufd_zmm_k1z_zmmm512b32_imm8);
                vpunpckldq_z: "vpunpckldq" (d: Z, a: Z, b: Zm)             [Avx512f] as vpunpckldq
                    => iced!(EVEX_Vpunpckldq_zmm_k1z_zmm_zmmm512b32);
                vpunpckhdq_z: "vpunpckhdq" (d: Z, a: Z, b: Zm)             [Avx512f] as vpunpckhdq
                    => iced!(EVEX_Vpunpckhdq_zmm_k1z_zmm_zmmm512b32);
                vpunpcklqdq_z: "vpunpcklqdq" (d: Z, a: Z, b: Zm)           [Avx512f] as vpunpcklqdq
                    => iced!(EVEX_Vpunpcklqdq_zmm_k1z_zmm_zmmm512b64);
                vpunpckhqdq_z: "vpunpckhqdq" (d: Z, a: Z, b: Zm)           [Avx512f] as vpunpckhqdq
                    => iced!(EVEX_Vpunpckhqdq_zmm_k1z_zmm_zmmm512b64);
                vpxord:     "vpxord"     (d: Z, a: Z, b: Zm)               [Avx512f] as vpxord
                    => iced!(EVEX_Vpxord_zmm_k1z_zmm_zmmm512b32);
                /// Bitwise ternary logic (as `vpternlogq`; the dword form differs only under a mask).
                vpternlogd: "vpternlogd" (d: Z, a: Z, b: Zm, sel: Sel)     [Avx512f] as vpternlogd
                    => iced!(EVEX_Vpternlogd_zmm_k1z_zmm_zmmm512b32_imm8);
                // EVEX on xmm and ymm (AVX512VL; registers 0-15, as the VEX entries').
                vpxord_x:   "vpxord"     (d: X, a: X, b: Xm)               [Avx512f, Avx512vl] as vpxord
                    => iced!(EVEX_Vpxord_xmm_k1z_xmm_xmmm128b32);
                vpxord_y:   "vpxord"     (d: Y, a: Y, b: Ym)               [Avx512f, Avx512vl] as vpxord
                    => iced!(EVEX_Vpxord_ymm_k1z_ymm_ymmm256b32);
                vpternlogd_x: "vpternlogd" (d: X, a: X, b: Xm, sel: Sel)   [Avx512f, Avx512vl] as vpternlogd
                    => iced!(EVEX_Vpternlogd_xmm_k1z_xmm_xmmm128b32_imm8);
                vpternlogd_y: "vpternlogd" (d: Y, a: Y, b: Ym, sel: Sel)   [Avx512f, Avx512vl] as vpternlogd
                    => iced!(EVEX_Vpternlogd_ymm_k1z_ymm_ymmm256b32_imm8);
                vpxorq_x:   "vpxorq"     (d: X, a: X, b: Xm)               [Avx512f, Avx512vl] as vpxorq
                    => iced!(EVEX_Vpxorq_xmm_k1z_xmm_xmmm128b64);
                vpxorq_y:   "vpxorq"     (d: Y, a: Y, b: Ym)               [Avx512f, Avx512vl] as vpxorq
                    => iced!(EVEX_Vpxorq_ymm_k1z_ymm_ymmm256b64);
                vpternlogq_x: "vpternlogq" (d: X, a: X, b: Xm, sel: Sel)   [Avx512f, Avx512vl] as vpternlogq
                    => iced!(EVEX_Vpternlogq_xmm_k1z_xmm_xmmm128b64_imm8);
                vpternlogq_y: "vpternlogq" (d: Y, a: Y, b: Ym, sel: Sel)   [Avx512f, Avx512vl] as vpternlogq
                    => iced!(EVEX_Vpternlogq_ymm_k1z_ymm_ymmm256b64_imm8);
                vprold_x:   "vprold"     (d: X, a: X, n: Imm)              [Avx512f, Avx512vl] as vprold
                    => iced!(EVEX_Vprold_xmm_k1z_xmmm128b32_imm8);
                vprold_y:   "vprold"     (d: Y, a: Y, n: Imm)              [Avx512f, Avx512vl] as vprold
                    => iced!(EVEX_Vprold_ymm_k1z_ymmm256b32_imm8);
                /// Rotates each dword right by `n` (mod 32).
                vprord_x:   "vprord"     (d: X, a: X, n: Imm)              [Avx512f, Avx512vl] as vprord
                    => iced!(EVEX_Vprord_xmm_k1z_xmmm128b32_imm8);
                vprord_y:   "vprord"     (d: Y, a: Y, n: Imm)              [Avx512f, Avx512vl] as vprord
                    => iced!(EVEX_Vprord_ymm_k1z_ymmm256b32_imm8);
                /// Rotates each qword left by `n` (mod 64).
                vprolq_x:   "vprolq"     (d: X, a: X, n: Imm)              [Avx512f, Avx512vl] as vprolq
                    => iced!(EVEX_Vprolq_xmm_k1z_xmmm128b64_imm8);
                vprolq_y:   "vprolq"     (d: Y, a: Y, n: Imm)              [Avx512f, Avx512vl] as vprolq
                    => iced!(EVEX_Vprolq_ymm_k1z_ymmm256b64_imm8);
                /// Rotates each qword right by `n` (mod 64).
                vprorq_x:   "vprorq"     (d: X, a: X, n: Imm)              [Avx512f, Avx512vl] as vprorq
                    => iced!(EVEX_Vprorq_xmm_k1z_xmmm128b64_imm8);
                vprorq_y:   "vprorq"     (d: Y, a: Y, n: Imm)              [Avx512f, Avx512vl] as vprorq
                    => iced!(EVEX_Vprorq_ymm_k1z_ymmm256b64_imm8);
                vmovdqu64_x: "vmovdqu64" (d: X, s: Xm)                     [Avx512f, Avx512vl] as vmovdqu64
                    => iced!(EVEX_Vmovdqu64_xmm_k1z_xmmm128);
                vmovdqu64_y: "vmovdqu64" (d: Y, s: Ym)                     [Avx512f, Avx512vl] as vmovdqu64
                    => iced!(EVEX_Vmovdqu64_ymm_k1z_ymmm256);
                vmovdqu64_store_x: "vmovdqu64" (d: M128, s: X)             [Avx512f, Avx512vl] as vmovdqu64
                    => iced!(EVEX_Vmovdqu64_xmmm128_k1z_xmm);
                vmovdqu64_store_y: "vmovdqu64" (d: M256, s: Y)             [Avx512f, Avx512vl] as vmovdqu64
                    => iced!(EVEX_Vmovdqu64_ymmm256_k1z_ymm);
                /// Register or aligned memory.
                vmovdqa64_x: "vmovdqa64" (d: X, s: Xm)                     [Avx512f, Avx512vl] as vmovdqa64
                    => iced!(EVEX_Vmovdqa64_xmm_k1z_xmmm128);
                vmovdqu8:   "vmovdqu8"   (d: Z, s: Zm)                     [Avx512f, Avx512bw] as vmovdqu8
                    => iced!(EVEX_Vmovdqu8_zmm_k1z_zmmm512);
                vmovdqu8_store: "vmovdqu8" (d: M512, s: Z)                 [Avx512f, Avx512bw] as vmovdqu8
                    => iced!(EVEX_Vmovdqu8_zmmm512_k1z_zmm);
                /// The bytes of `s` whose bit of the opmask is set, the others zero.
                vmovdqu8_maskz: "vmovdqu8" (d: Zkz, s: Zm)                 [Avx512f, Avx512bw] as vmovdqu8
                    => iced!(EVEX_Vmovdqu8_zmm_k1z_zmmm512);
                /// The bytes of `s` whose bit of the opmask is set into memory, the other bytes of memory kept (and
                /// not accessed).
                vmovdqu8_store_mask: "vmovdqu8" (d: M512k, s: Z)           [Avx512f, Avx512bw] as vmovdqu8
                    => iced!(EVEX_Vmovdqu8_zmmm512_k1z_zmm);
                /// A 64-bit register into an opmask register.
                kmovq:      "kmovq"      (d: Kr, s: R64)                   [Avx512f, Avx512bw] => iced!(VEX_Kmovq_kr_r64);
                /// The 128-bit lane `sel & 3` of `a`.
                vextracti32x4: "vextracti32x4" (d: X, a: Z, sel: Sel)      [Avx512f]
                    => iced!(EVEX_Vextracti32x4_xmmm128_k1z_zmm_imm8);
        }
    };
}

pub(crate) use x86_64_table;

x86_64_table!(define_isa);

/// The immediates each operand kind holding one takes, as the encoder takes them: `Imm` is the `imm8` of
/// every entry with one (iced-x86 takes -128..=255 there, and `shl`'s form `1` is in it), `Ri64` the
/// sign-extended `imm32` of its entries and `Ri32` the `imm32` of the 32-bit forms (both kinds convert from `i32`:
/// always in range), `I32` the imm8 or imm32 of `imul`'s three-operand forms (from `i32`), `Imm64` any 64-bit
/// value, `Sel` a `u8`.
/// `gen/tests/operand_errors.rs` holds every entry to it, operand by operand, from iced-x86's operand kinds.
pub const IMM_RANGES: &[(&str, i64, i64)] = &[
    ("Imm", -128, 255),
    ("Ri64", -(1 << 31), (1 << 31) - 1),
    ("Ri32", -(1 << 31), (1 << 31) - 1),
    ("Imm64", i64::MIN, i64::MAX),
    ("I32", -(1 << 31), (1 << 31) - 1),
    ("Sel", 0, 255),
];

/// The range of immediate operand `i` of `op` ([`IMM_RANGES`] by the entry's operand kind).
fn imm_range(op: Op, i: usize) -> (i64, i64) {
    let kind = OPS[op as usize].kinds.get(i).copied().unwrap_or("");
    IMM_RANGES.iter().find(|r| r.0 == kind).map_or((i64::MIN, i64::MAX), |r| (r.1, r.2))
}

/// A memory operand as GNU as reads it in Intel syntax: `zmmword ptr [rip + .Lconst + 16]`.
fn memory(size: Size, m: &Mem, ctx: &PrintCtx) -> String {
    let size = match size {
        Size::Byte => "byte",
        Size::Dword => "dword",
        Size::Qword => "qword",
        Size::Xmmword => "xmmword",
        Size::Ymmword => "ymmword",
        Size::Zmmword => "zmmword",
    };
    let addr = m.address(|l| format!("rip + {}", ctx.label(l)));
    format!("{size} ptr [{addr}]")
}

/// Whether a memory operand's registers and scale can be encoded ([`operand_error`] says why not).
#[inline]
fn mem_ok(m: &Mem) -> bool {
    m.base.is_none_or(|b| b.0 < 16)
        && m.index.is_none_or(|(x, scale)| x.0 < 16 && x.0 != 4 && matches!(scale, 1 | 2 | 4 | 8))
}

/// What is wrong with the first operand of `op` that [`X86_64::check_operands`] refuses.
#[cold]
#[inline(never)]
fn operand_error(op: Op, operands: &[Operand]) -> Result<(), String> {
    let gpr = |n: u8| match n {
        0..=15 => Ok(()),
        _ => Err(format!("r{n} is not a general-purpose register: 0..=15 (rax..r15)")),
    };
    for (i, o) in operands.iter().enumerate() {
        match o {
            Operand::Gpr(n) | Operand::Gpr32(n) => gpr(*n)?,
            Operand::Gpr8(n) => {
                gpr(*n)?;
                if OPS[op as usize].kinds.get(i) == Some(&"Cl") && *n != 1 {
                    return Err(format!("{} is not cl: the count register is cl", GPR8[*n as usize]));
                }
            }
            Operand::Xmm(n) if *n > 15 => return Err(format!("xmm{n} out of range xmm0..=xmm15")),
            Operand::Ymm(n) if *n > 15 => return Err(format!("ymm{n} out of range ymm0..=ymm15")),
            Operand::Zmm(n) if *n > 31 => return Err(format!("zmm{n} out of range zmm0..=zmm31")),
            Operand::ZmmMaskz(n, _) if *n > 31 => return Err(format!("zmm{n} out of range zmm0..=zmm31")),
            Operand::ZmmMaskz(_, k) if !(1..8).contains(k) => return Err(format!("k{k} cannot mask: k1..=k7")),
            Operand::K(k) if *k > 7 => return Err(format!("k{k} out of range k0..=k7")),
            Operand::MemMask(_, _, k) if !(1..8).contains(k) => return Err(format!("k{k} cannot mask: k1..=k7")),
            Operand::Mem(_, m) | Operand::MemMask(_, m, _) => {
                if let Some(b) = m.base {
                    gpr(b.0)?;
                }
                if let Some((x, scale)) = m.index {
                    gpr(x.0)?;
                    if x.0 == 4 {
                        return Err("rsp cannot be an index register".into());
                    }
                    if !matches!(scale, 1 | 2 | 4 | 8) {
                        return Err(format!("scale {scale} out of 1, 2, 4, 8"));
                    }
                }
            }
            Operand::Imm(v) => {
                let (lo, hi) = imm_range(op, i);
                if !(lo..=hi).contains(v) {
                    return Err(format!("immediate {v} out of range {lo}..={hi}"));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

impl InstructionSet for X86_64 {
    const ARCH: Arch = Arch::X86_64;
    type Op = Op;
    type Operand = Operand;
    type Reg = Reg;
    type Gpr = Gpr;
    type Feature = X86Feature;
    type Encoding = X86Encoding;

    #[inline]
    fn info(op: Op) -> &'static OpInfo<X86Feature, X86Encoding> {
        &OPS[op as usize]
    }
    fn ops() -> &'static [OpInfo<X86Feature, X86Encoding>] {
        OPS
    }
    /// The string instructions' pointers (rsi and rdi, or rdi) and the `rep` forms' count (rcx). (`mul`'s rax and
    /// rdx, never callee-saved, are the ABI's concern only: `abi::x86_64::implicit_writes`.)
    #[inline]
    fn implicit_regs(op: Op) -> &'static [Reg] {
        const RSI_RDI: &[Reg] = &[Reg::Gpr(6), Reg::Gpr(7)];
        const RDI: &[Reg] = &[Reg::Gpr(7)];
        const RCX_RSI_RDI: &[Reg] = &[Reg::Gpr(1), Reg::Gpr(6), Reg::Gpr(7)];
        const RCX_RDI: &[Reg] = &[Reg::Gpr(1), Reg::Gpr(7)];
        match op {
            Op::movsb | Op::movsq => RSI_RDI,
            Op::stosb | Op::stosq => RDI,
            Op::rep_movsb | Op::rep_movsq => RCX_RSI_RDI,
            Op::rep_stosb | Op::rep_stosq => RCX_RDI,
            _ => &[],
        }
    }
    // Inlined into the builder's check, once per instruction at the JIT's startup.
    #[inline(always)]
    fn regs_of(operands: &[Operand], out: &mut Vec<Reg>) {
        out.reserve(2 * operands.len());
        for o in operands {
            Self::regs(o, out);
        }
    }
    #[inline(always)]
    fn regs(o: &Operand, out: &mut Vec<Reg>) {
        match o {
            Operand::Gpr(n) | Operand::Gpr32(n) | Operand::Gpr8(n) => out.push(Reg::Gpr(*n)),
            Operand::Xmm(n) | Operand::Ymm(n) | Operand::Zmm(n) | Operand::ZmmMaskz(n, _) => out.push(Reg::Vec(*n)),
            Operand::Mem(_, m) | Operand::MemMask(_, m, _) => {
                out.extend(m.base.map(Reg::from));
                out.extend(m.index.map(|(r, _)| Reg::from(r)));
            }
            // Opmask registers are volatile under every ABI: none to save.
            Operand::K(_) | Operand::Imm(_) | Operand::Sel(_) | Operand::Label(_) => {}
        }
    }
    /// Bit n for general-purpose register n, bit 16 + n for vector register n.
    #[inline(always)]
    fn reg_bits(operands: &[Operand]) -> Option<u64> {
        let mut bits = 0u64;
        for o in operands {
            bits |= match o {
                Operand::Gpr(n) | Operand::Gpr32(n) | Operand::Gpr8(n) if *n < 16 => 1 << n,
                Operand::Xmm(n) | Operand::Ymm(n) | Operand::Zmm(n) | Operand::ZmmMaskz(n, _) if *n < 32 => {
                    1 << (16 + n)
                }
                Operand::K(k) if *k < 8 => 0,
                Operand::Mem(_, m) | Operand::MemMask(_, m, _) => {
                    let base = m.base.map_or(Some(0), |b| (b.0 < 16).then_some(1u64 << b.0))?;
                    let index = m.index.map_or(Some(0), |(i, _)| (i.0 < 16).then_some(1u64 << i.0))?;
                    base | index
                }
                Operand::Imm(_) | Operand::Sel(_) | Operand::Label(_) => 0,
                _ => return None,
            };
        }
        Some(bits)
    }
    /// Only a label (a branch target or a RIP-relative memory operand's) owns memory.
    #[inline(always)]
    fn owns_nothing(o: &Operand) -> bool {
        !matches!(
            o,
            Operand::Label(_)
                | Operand::Mem(_, Mem { label: Some(_), .. })
                | Operand::MemMask(_, Mem { label: Some(_), .. }, _)
        )
    }
    #[inline]
    fn label(o: &Operand) -> Option<&Label> {
        match o {
            Operand::Label(l) => Some(l),
            Operand::Mem(_, m) | Operand::MemMask(_, m, _) => m.label.as_ref(),
            _ => None,
        }
    }
    fn label_mut(o: &mut Operand) -> Option<&mut Label> {
        match o {
            Operand::Label(l) => Some(l),
            Operand::Mem(_, m) | Operand::MemMask(_, m, _) => m.label.as_mut(),
            _ => None,
        }
    }
    fn print_operand(o: &Operand, ctx: &PrintCtx) -> String {
        match o {
            Operand::Gpr(n) => GPR64.get(*n as usize).map_or_else(|| format!("r{n}"), |r| r.to_string()),
            Operand::Gpr32(n) => GPR32.get(*n as usize).map_or_else(|| format!("r{n}d"), |r| r.to_string()),
            Operand::Gpr8(n) => GPR8.get(*n as usize).map_or_else(|| format!("r{n}b"), |r| r.to_string()),
            Operand::Xmm(n) => format!("xmm{n}"),
            Operand::Ymm(n) => format!("ymm{n}"),
            Operand::Zmm(n) => format!("zmm{n}"),
            Operand::ZmmMaskz(n, k) => format!("zmm{n}{{k{k}}}{{z}}"),
            Operand::K(k) => format!("k{k}"),
            Operand::Imm(i) => i.to_string(),
            Operand::Sel(i) => format!("{i:#04x}"),
            Operand::Label(l) => ctx.label(l),
            Operand::Mem(size, m) => memory(*size, m, ctx),
            Operand::MemMask(size, m, k) => format!("{}{{k{k}}}", memory(*size, m, ctx)),
        }
    }
    /// Register numbers in their class (general-purpose 0..=15; xmm and ymm 0..=15, as the lowering encodes
    /// them: the table's forms of them are VEX but for `vinserti64x4`'s and `vextracti64x4`'s ymm, which stay
    /// in the first sixteen as [`Zmm::y`] says; zmm 0..=31), memory operands (scale 1, 2, 4 or 8, no `rsp`
    /// index), and immediates in the range of their kind ([`IMM_RANGES`], held to the operand kinds of the
    /// entry's iced-x86 codes by a test).
    #[inline]
    fn check_operands(op: Op, operands: &[Operand]) -> Result<(), String> {
        // One pass without messages (the JIT's startup runs it per instruction); the message where it fails.
        let ok = |(i, o): (usize, &Operand)| match o {
            Operand::Gpr(n) | Operand::Gpr32(n) | Operand::Xmm(n) | Operand::Ymm(n) => *n < 16,
            Operand::Gpr8(n) => *n < 16 && (*n == 1 || OPS[op as usize].kinds.get(i) != Some(&"Cl")),
            Operand::Zmm(n) => *n < 32,
            Operand::ZmmMaskz(n, k) => *n < 32 && (1..8).contains(k),
            Operand::K(k) => *k < 8,
            Operand::Mem(_, m) => mem_ok(m),
            Operand::MemMask(_, m, k) => mem_ok(m) && (1..8).contains(k),
            Operand::Imm(v) => {
                let (lo, hi) = imm_range(op, i);
                (lo..=hi).contains(v)
            }
            Operand::Sel(_) | Operand::Label(_) => true,
        };
        if operands.iter().enumerate().all(ok) {
            return Ok(());
        }
        operand_error(op, operands)
    }
    fn reg_name(r: Reg) -> String {
        match r {
            Reg::Gpr(n) => GPR64[n as usize].to_string(),
            Reg::Vec(n) => format!("xmm{n}"),
        }
    }
}
