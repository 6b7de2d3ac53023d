//! riscv64: registers, operand kinds, features and the instruction table.
//!
//! Listings use GNU as syntax with ABI register names (`a0`, `t1`, `s2`, ...), operands in the order of the
//! RISC-V unprivileged specification (destination first). Every entry carries its 32-bit encoding (`lla`: two
//! words, `auipc` + `addi`; a label operand's value is its byte offset from the instruction, which listings
//! leave to the assembler and the JIT computes); the vector-crypto entries (Zvbb, Zvkb, Zvkg, Zvbc, Zvkned, Zvknh,
//! Zvksed, Zvksh), which GNU as 2.40 does not know, are
//! printed as raw words (`.insn 0x...`, accepted by GNU as 2.40 and llvm-mc) with the mnemonic in a comment.
//!
//! Pseudo-instructions (`mv`, `li`, `not`, `neg`, `ret`, branches against zero) are table entries of their
//! own, encoded as the base instruction the assemblers expand them to. Compressed (C) forms are never
//! written by asmgen; the assembler may still pick them when the listing is assembled for `rv64gc`.

use super::fixed::{enc, fld, label, label2, mapped, mapped_part, raw, Field, LabelValue, OutOfRange, Range};
use super::{InstructionSet, OpInfo, PrintCtx};
use crate::define_isa;
use crate::label::Label;
use crate::target::Arch;

crate::define_features! {
    /// RISC-V ISA extensions beyond RV64GC.
    RvFeature {
        /// Basic bit manipulation (`rev8`, `andn`, `rol`, ...).
        Zbb = "zbb",
        /// Carry-less multiplication (`clmul`, `clmulh`, `clmulr`).
        Zbc = "zbc",
        /// Bit manipulation for cryptography (`pack`, `packh`, `brev8`).
        Zbkb = "zbkb",
        /// Scalar SM4 (`sm4ed`, `sm4ks`).
        Zksed = "zksed",
        /// The vector extension, version 1.0.
        V = "v",
        /// Vector bit manipulation for cryptography (`vrev8.v`, ...).
        Zvkb = "zvkb",
        /// Vector GCM/GMAC (`vghsh.vv`, `vgmul.vv`).
        Zvkg = "zvkg",
        /// Vector SM4 (`vsm4k.vi`, `vsm4r.vv`).
        Zvksed = "zvksed",
        /// Vector carry-less multiplication (`vclmul.vv`, `vclmulh.vv`).
        Zvbc = "zvbc",
        /// Crossbar permutations (`xperm4`, `xperm8`).
        Zbkx = "zbkx",
        /// Scalar AES decryption (`aes64ds`, `aes64dsm`, `aes64im`).
        Zknd = "zknd",
        /// Scalar AES encryption (`aes64es`, `aes64esm`) and the key schedule (`aes64ks1i`, `aes64ks2`, which
        /// Zknd has too; the table names Zkne for them).
        Zkne = "zkne",
        /// Scalar SHA-256 and SHA-512 sigma functions (`sha256sig0`, ...).
        Zknh = "zknh",
        /// Scalar SM3 permutations (`sm3p0`, `sm3p1`).
        Zksh = "zksh",
        /// Vector basic bit manipulation: Zvkb and `vbrev.v`, `vclz.v`, `vctz.v`, `vcpop.v`, `vwsll`.
        Zvbb = "zvbb",
        /// Vector AES (`vaesef`, `vaesdm`, `vaeskf1`, ...).
        Zvkned = "zvkned",
        /// Vector SHA-256 (`vsha2ms`, `vsha2ch`, `vsha2cl` at SEW 32). The runtime reports it where the CPU has
        /// Zvknha or Zvknhb (Zvknhb is a superset).
        Zvknha = "zvknha",
        /// Vector SHA-512 too: the `vsha2*` entries at SEW 64 (a kernel using them requires Zvknha and Zvknhb).
        Zvknhb = "zvknhb",
        /// Vector SM3 (`vsm3me.vv`, `vsm3c.vi`).
        Zvksh = "zvksh",
    }
}

impl RvFeature {
    /// Whether GNU as 2.40 knows the extension (and so whether `.option arch, +name` may name it). Instructions
    /// of the other extensions are emitted as raw words.
    pub fn known_to_gas(self) -> bool {
        !matches!(
            self,
            RvFeature::Zvkb
                | RvFeature::Zvkg
                | RvFeature::Zvksed
                | RvFeature::Zvbc
                | RvFeature::Zvbb
                | RvFeature::Zvkned
                | RvFeature::Zvknha
                | RvFeature::Zvknhb
                | RvFeature::Zvksh
        )
    }
}

/// A 64-bit general-purpose register x0..x31.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct X(pub u8);
/// A vector register v0..v31.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct V(pub u8);

#[allow(missing_docs)]
pub mod regs {
    //! Register names (the ABI's). `gp` and `tp` are listed for completeness: kernels must not touch them.
    use super::{V, X};
    pub const ZERO: X = X(0);
    pub const RA: X = X(1);
    pub const SP: X = X(2);
    pub const GP: X = X(3);
    pub const TP: X = X(4);
    pub const T0: X = X(5);
    pub const T1: X = X(6);
    pub const T2: X = X(7);
    pub const S0: X = X(8);
    pub const S1: X = X(9);
    pub const A0: X = X(10);
    pub const A1: X = X(11);
    pub const A2: X = X(12);
    pub const A3: X = X(13);
    pub const A4: X = X(14);
    pub const A5: X = X(15);
    pub const A6: X = X(16);
    pub const A7: X = X(17);
    pub const S2: X = X(18);
    pub const S3: X = X(19);
    pub const S4: X = X(20);
    pub const S5: X = X(21);
    pub const S6: X = X(22);
    pub const S7: X = X(23);
    pub const S8: X = X(24);
    pub const S9: X = X(25);
    pub const S10: X = X(26);
    pub const S11: X = X(27);
    pub const T3: X = X(28);
    pub const T4: X = X(29);
    pub const T5: X = X(30);
    pub const T6: X = X(31);
    /// `x(n)`.
    pub const fn x(n: u8) -> X {
        X(n)
    }
    /// `v(n)`.
    pub const fn v(n: u8) -> V {
        V(n)
    }
}

/// ABI names of x0..x31.
pub const XNAMES: [&str; 32] = [
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2",
    "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
];

/// A physical register, for the ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reg {
    /// x0..x31.
    X(u8),
    /// v0..v31.
    V(u8),
}

impl From<X> for Reg {
    fn from(x: X) -> Reg {
        Reg::X(x.0)
    }
}

/// A memory operand `offset(base)` for scalar loads and stores; the offset is a 12-bit signed immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mem {
    base: X,
    offset: i32,
}

/// `offset(base)`: the offset a 12-bit signed immediate, -2048..=2047 (checked when the instruction is added).
pub fn mem(base: X, offset: i32) -> Mem {
    Mem { base, offset }
}

impl Mem {
    /// The base register.
    pub fn base(&self) -> X {
        self.base
    }
    /// The signed offset.
    pub fn offset(&self) -> i32 {
        self.offset
    }
}

/// A vector type for `vsetivli`: element width and register-group multiplier, tail and mask agnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VType {
    /// Element width in bits: 8, 16, 32 or 64.
    pub sew: u32,
    /// Register-group multiplier: 1, 2, 4 or 8.
    pub lmul: u32,
}

impl VType {
    /// The `vtypei` immediate: vlmul in bits 0..3, vsew in 3..6, vta (bit 6) and vma (bit 7) set.
    pub fn bits(self) -> i64 {
        let lmul = match self.lmul {
            1 => 0,
            2 => 1,
            4 => 2,
            8 => 3,
            l => panic!("unsupported LMUL {l}"),
        };
        let sew = match self.sew {
            8 => 0,
            16 => 1,
            32 => 2,
            64 => 3,
            s => panic!("unsupported SEW {s}"),
        };
        lmul | (sew << 3) | (1 << 6) | (1 << 7)
    }
}

/// A vector type with its tail and mask policies stated (`e32, m1, tu, mu`), for the `vsetvli_p`/`vsetivli_p`
/// forms: an undisturbed tail or undisturbed masked-off elements, where [`VType`] leaves both agnostic (those forms
/// refuse `ta, ma`: that is [`VType`]'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VTypePol {
    /// Element width and register-group multiplier.
    pub vtype: VType,
    /// `tu` (elements past vl keep their value) rather than `ta`.
    pub tail_undisturbed: bool,
    /// `mu` (masked-off elements keep their value) rather than `ma`.
    pub mask_undisturbed: bool,
}

impl VTypePol {
    /// The `vtypei` immediate: [`VType::bits`] with vta (bit 6) clear for `tu`, vma (bit 7) clear for `mu`.
    pub fn bits(self) -> i64 {
        self.vtype.bits() & !(i64::from(self.tail_undisturbed) << 6) & !(i64::from(self.mask_undisturbed) << 7)
    }
}

/// An operand as stored in the IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// General-purpose register.
    X(u8),
    /// Vector register.
    V(u8),
    /// Immediate, printed in decimal.
    Imm(i64),
    /// `offset(base)`.
    Mem(Mem),
    /// `(base)`: the address of a vector load or store.
    Base(u8),
    /// `e32, m1, ta, ma`.
    VType(VType),
    /// `e32, m1, tu, mu` (any of the four policies).
    VTypePol(VTypePol),
    /// Branch target or address.
    Label(Label),
}

// Operand kinds: the builder's parameter types. Each converts from the values it admits.
macro_rules! kinds {
    ($( $(#[$doc:meta])* $kind:ident { $($from:ty => |$v:ident| $e:expr),* } )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $kind(Operand);
        $( impl From<$from> for $kind { fn from($v: $from) -> Self { $kind($e) } } )*
        impl From<$kind> for Operand { fn from(k: $kind) -> Operand { k.0 } }
    )*};
}

// Immediates are checked when the instruction is added, through the entry's fields (`Riscv64::check_operands`).
fn imm(v: i32) -> Operand {
    Operand::Imm(v as i64)
}

kinds! {
    /// A general-purpose register.
    Xr { X => |x| Operand::X(x.0) }
    /// A vector register.
    Vr { V => |v| Operand::V(v.0) }
    /// A vector register whose number is a multiple of 2 (`vmv2r.v`): [`Operand::V`], checked by its field.
    Vr2 { V => |v| Operand::V(v.0) }
    /// A vector register whose number is a multiple of 4 (`vmv4r.v`): [`Operand::V`], checked by its field.
    Vr4 { V => |v| Operand::V(v.0) }
    /// A vector register whose number is a multiple of 8 (`vmv8r.v`): [`Operand::V`], checked by its field.
    Vr8 { V => |v| Operand::V(v.0) }
    /// A 12-bit signed immediate (-2048..=2047).
    Simm12 { i32 => |i| imm(i) }
    /// A shift amount 0..=63.
    Shamt { i32 => |i| imm(i) }
    /// A 5-bit unsigned immediate 0..=31.
    Uimm5 { i32 => |i| imm(i) }
    /// A 5-bit signed immediate -16..=15 (vector `.vi` forms of signed operations).
    Simm5 { i32 => |i| imm(i) }
    /// A 2-bit byte select 0..=3 (`sm4ed`, `sm4ks`).
    Bs { i32 => |i| imm(i) }
    /// An AES round number 0..=10 (`aes64ks1i`): [`Operand::Imm`] with the value of its 4-bit field.
    Rnum { i32 => |i| imm(i) }
    /// A 20-bit upper immediate 0..=0xfffff (`lui`).
    Uimm20 { i32 => |i| imm(i) }
    /// A scalar memory operand `offset(base)`.
    M { Mem => |m| Operand::Mem(m) }
    /// The base register of a vector load or store, printed `(base)`.
    VAddr { X => |x| Operand::Base(x.0) }
    /// A vector type (`vsetivli`).
    VTypeI { VType => |t| Operand::VType(t) }
    /// A vector type with its policies (`vsetivli_p`, `vsetvli_p`): [`Operand::VTypePol`], its value the `vtypei`
    /// bits ([`VTypePol::bits`]).
    VTypeP { VTypePol => |t| Operand::VTypePol(t) }
    /// A branch target or a constant's address.
    Target { &Label => |l| Operand::Label(l.clone()), Label => |l| Operand::Label(l) }
}

/// The riscv64 ISA (RV64GC plus the extensions in [`RvFeature`]).
pub struct Riscv64;

// --- field maps: operand value -> encoded field, or the range the value is outside (the builder checks every
// instruction's operands through them when it is added, the encoder when it encodes).

/// A B-type branch offset: even, within +-4 KiB (13-bit two's complement).
fn boff(v: i64) -> Result<i64, OutOfRange> {
    Range::new("branch offset", -4096, 4094).step(2).check(v).map(|v| v & 0x1fff)
}

/// A J-type jump offset: even, within +-1 MiB (21-bit two's complement).
fn joff(v: i64) -> Result<i64, OutOfRange> {
    Range::new("jump offset", -(1 << 20), (1 << 20) - 2).step(2).check(v).map(|v| v & 0x1f_ffff)
}

/// `auipc`'s 20 bits of a PC-relative offset: rounded so that the sign-extended low 12 bits add back.
pub(crate) fn hi20(v: i64) -> Result<i64, OutOfRange> {
    Range::new("offset", -(1i64 << 31) - 0x800, (1i64 << 31) - 0x801).check(v).map(|v| ((v + 0x800) >> 12) & 0xf_ffff)
}

/// The low 12 bits of a PC-relative offset (sign-extended by `addi`).
pub(crate) fn lo12(v: i64) -> Result<i64, OutOfRange> {
    Ok(v & 0xfff)
}

/// A 12-bit signed immediate, -2048..=2047.
fn simm12(v: i64) -> Result<i64, OutOfRange> {
    Range::new("immediate", -2048, 2047).check(v).map(|v| v & 0xfff)
}

/// A 5-bit signed immediate, -16..=15 (vector `.vi` forms of signed operations).
fn simm5(v: i64) -> Result<i64, OutOfRange> {
    Range::new("immediate", -16, 15).check(v).map(|v| v & 0x1f)
}

/// A 5-bit unsigned immediate, 0..=31.
fn uimm5(v: i64) -> Result<i64, OutOfRange> {
    Range::new("immediate", 0, 31).check(v)
}

/// A 20-bit upper immediate, 0..=0xfffff (`lui`).
fn uimm20(v: i64) -> Result<i64, OutOfRange> {
    Range::new("immediate", 0, 0xf_ffff).check(v)
}

/// A shift or rotate amount of a 64-bit register or element, 0..=63.
fn shamt(v: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 0, 63).note("for 64-bit registers").check(v)
}

/// A vector rotate amount, 0..=63 (`vror.vi`; below the element width in use).
fn rot6(v: i64) -> Result<i64, OutOfRange> {
    Range::new("rotate amount", 0, 63).check(v)
}

/// A 5-bit shift or rotate amount of a 32-bit word, 0..=31 (`slliw`, `roriw`).
fn shamt5(v: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 0, 31).note("for 32-bit words").check(v)
}

/// `aes64ks1i`'s round number, 0..=10 (the encodings 11..=15 are reserved).
fn rnum(v: i64) -> Result<i64, OutOfRange> {
    Range::new("round number", 0, 10).check(v)
}

/// The `vtypei` bits of a [`VTypePol`]: any but `ta, ma` (bits 6 and 7 both set, 0xc0 and up), which is the
/// plain `vsetivli`/`vsetvli`'s, so that every word has one entry.
fn policy(v: i64) -> Result<i64, OutOfRange> {
    Range::new("vector type", 0, 0xbf).note("(tu or mu; `ta, ma` is the plain vsetivli/vsetvli)").check(v)
}

/// A vector register number aligned to 2, 4 or 8 (whole-register moves of that many registers).
fn vreg2(v: i64) -> Result<i64, OutOfRange> {
    Range::new("vector register", 0, 30).step(2).note("for a group of 2").check(v)
}
fn vreg4(v: i64) -> Result<i64, OutOfRange> {
    Range::new("vector register", 0, 28).step(4).note("for a group of 4").check(v)
}
fn vreg8(v: i64) -> Result<i64, OutOfRange> {
    Range::new("vector register", 0, 24).step(8).note("for a group of 8").check(v)
}

/// A byte select, 0..=3 (`sm4ed`, `sm4ks`).
fn bs(v: i64) -> Result<i64, OutOfRange> {
    Range::new("byte select", 0, 3).check(v)
}

/// A memory operand's packed value `offset << 5 | base` (see `operand_value`), its offset a 12-bit signed
/// immediate, -2048..=2047: the value with the offset cut to its 12 bits.
fn mem_off(v: i64) -> Result<i64, OutOfRange> {
    let off = Range::new("offset", -2048, 2047).check(v >> 5)?;
    Ok(((off & 0xfff) << 5) | (v & 31))
}

// B-type offset fields of operand `t`: imm[4:1|11] at 8|7, imm[10:5|12] at 25|31.
const fn btype(t: u8) -> [Field; 4] {
    [
        mapped_part(t, 8, 4, 1, boff),
        mapped_part(t, 25, 6, 5, boff),
        mapped_part(t, 7, 1, 11, boff),
        mapped_part(t, 31, 1, 12, boff),
    ]
}
const B1: [Field; 4] = btype(1);
const B2: [Field; 4] = btype(2);
// Branches against zero: rs1, offset.
const BZ: &[Field] = &[fld(0, RS1, 5), B1[0], B1[1], B1[2], B1[3]];
// Two-register branches: rs1, rs2, offset.
const BR: &[Field] = &[fld(0, RS1, 5), fld(1, RS2, 5), B2[0], B2[1], B2[2], B2[3]];
// `jal zero`: imm[10:1] at 21, imm[11] at 20, imm[19:12] at 12, imm[20] at 31.
const JT: &[Field] = &[
    mapped_part(0, 21, 10, 1, joff),
    mapped_part(0, 20, 1, 11, joff),
    mapped_part(0, 12, 8, 12, joff),
    mapped_part(0, 31, 1, 20, joff),
];
// `lla`: auipc rd, hi20 ; addi rd, rd, lo12.
const AUIPC: &[Field] = &[fld(0, RD, 5), mapped(1, 12, 20, hi20)];
const ADDI_LO: &[Field] = &[fld(0, RD, 5), fld(0, RS1, 5), mapped(1, 20, 12, lo12)];
// `call`: auipc ra, hi20 ; jalr ra, lo12(ra).
const CALL_HI: &[Field] = &[mapped(0, 12, 20, hi20)];
const CALL_LO: &[Field] = &[mapped(0, 20, 12, lo12)];

// Encoding helpers: field positions of the base formats.
const RD: u8 = 7;
const RS1: u8 = 15;
const RS2: u8 = 20;

// R-type: rd, rs1, rs2.
const R3: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS1, 5), fld(2, RS2, 5)];
// rd, rs1 (unary Zbb/Zbkb forms, `mv`).
const R2: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS1, 5)];
// rd, rs2 (`neg`: sub rd, zero, rs2).
const R2S: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS2, 5)];
// I-type: rd, rs1, imm[11:0].
const I3: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS1, 5), mapped(2, 20, 12, simm12)];
// Shifts by an immediate: rd, rs1, shamt[5:0].
const SH: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS1, 5), mapped(2, 20, 6, shamt)];
// Loads: rd, offset(base). The memory operand's value is `offset << 5 | base` (see `operand_value`).
const LD: &[super::fixed::Field] =
    &[fld(0, RD, 5), mapped_part(1, RS1, 5, 0, mem_off), mapped_part(1, 20, 12, 5, mem_off)];
// Stores: rs2, offset(base), the offset split into imm[4:0] (bits 7..12) and imm[11:5] (bits 25..32).
const ST: &[super::fixed::Field] = &[
    fld(0, RS2, 5),
    mapped_part(1, RS1, 5, 0, mem_off),
    mapped_part(1, 7, 5, 5, mem_off),
    mapped_part(1, 25, 7, 10, mem_off),
];
// 32-bit shifts by an immediate: rd, rs1, shamt[4:0].
const SHW: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS1, 5), mapped(2, 20, 5, shamt5)];
// Zksed: rd, rs1, rs2, bs (bits 30..32).
const BS: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS1, 5), fld(2, RS2, 5), mapped(3, 30, 2, bs)];
// Vector .vv: vd, vs2, vs1 (assembler order), vm = 1 (unmasked) in the base word.
const VV: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS2, 5), fld(2, RS1, 5)];
// Vector unary: vd, vs2.
const V2: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS2, 5)];
// Vector .vi with a 5-bit signed immediate in the vs1 field: vd, vs2, simm.
const VI: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS2, 5), mapped(2, RS1, 5, simm5)];
// Vector .vi with a 5-bit unsigned immediate in the vs1 field: vd, vs2, uimm.
const VIU: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS2, 5), mapped(2, RS1, 5, uimm5)];
// Vector strided load/store: vd/vs3, (rs1), rs2 (the stride in bytes).
const VLS: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS1, 5), fld(2, RS2, 5)];
// Vector unit-stride load/store: vd/vs3, (rs1).
const VM: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS1, 5)];
// Vector .vx: vd, vs2, rs1.
const VX: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS2, 5), fld(2, RS1, 5)];
// vd, rs1 / vd, imm (`vmv.v.x`, `vmv.v.i`).
const V1: &[super::fixed::Field] = &[fld(0, RD, 5), fld(1, RS1, 5)];
// Zvkb rotate by a 6-bit immediate: vd, vs2, uimm[4:0] at 15, uimm[5] at 26.
const VROR: &[super::fixed::Field] =
    &[fld(0, RD, 5), fld(1, RS2, 5), mapped_part(2, RS1, 5, 0, rot6), mapped_part(2, 26, 1, 5, rot6)];

/// The riscv64 table: one entry per instruction form (entry syntax: [`define_isa!`](crate::define_isa)).
/// `riscv64_table!(m)` expands the entries into the macro `m`: [`define_isa!`](crate::define_isa) here (the
/// opcodes and `OPS`) and [`define_builder_methods!`](crate::define_builder_methods) in `builder/riscv64.rs`.
macro_rules! riscv64_table {
    ($define:ident) => {
        $define! {
                isa: Riscv64, feature: RvFeature;
                methods {}

                // --- RV64I ----------------------------------------------------------------------------------------------
                add:    "add"    (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_0033, R3);
                sub:    "sub"    (d: Xr, a: Xr, b: Xr)          [] => enc(0x4000_0033, R3);
                and:    "and"    (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_7033, R3);
                or:     "or"     (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_6033, R3);
                xor:    "xor"    (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_4033, R3);
                sll:    "sll"    (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_1033, R3);
                srl:    "srl"    (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_5033, R3);
                sra:    "sra"    (d: Xr, a: Xr, b: Xr)          [] => enc(0x4000_5033, R3);
                /// Set if less than, unsigned.
                sltu:   "sltu"   (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_3033, R3);
                addi:   "addi"   (d: Xr, a: Xr, i: Simm12)      [] => enc(0x0000_0013, I3);
                andi:   "andi"   (d: Xr, a: Xr, i: Simm12)      [] => enc(0x0000_7013, I3);
                ori:    "ori"    (d: Xr, a: Xr, i: Simm12)      [] => enc(0x0000_6013, I3);
                xori:   "xori"   (d: Xr, a: Xr, i: Simm12)      [] => enc(0x0000_4013, I3);
                /// Set if less than an immediate (sign-extended), unsigned comparison.
                sltiu:  "sltiu"  (d: Xr, a: Xr, i: Simm12)      [] => enc(0x0000_3013, I3);
                slli:   "slli"   (d: Xr, a: Xr, n: Shamt)       [] => enc(0x0000_1013, SH);
                srli:   "srli"   (d: Xr, a: Xr, n: Shamt)       [] => enc(0x0000_5013, SH);
                srai:   "srai"   (d: Xr, a: Xr, n: Shamt)       [] => enc(0x4000_5013, SH);
                /// `d = sext32(a + i)`.
                addiw:  "addiw"  (d: Xr, a: Xr, i: Simm12)      [] => enc(0x0000_001b, I3);
                /// `d = sext32(a[31:0] << n)`.
                slliw:  "slliw"  (d: Xr, a: Xr, n: Uimm5)       [] => enc(0x0000_101b, SHW);
                /// `d = sext32(a[31:0] >> n)`, logical.
                srliw:  "srliw"  (d: Xr, a: Xr, n: Uimm5)       [] => enc(0x0000_501b, SHW);
                /// `d = sext32(a[31:0] >> n)`, arithmetic.
                sraiw:  "sraiw"  (d: Xr, a: Xr, n: Uimm5)       [] => enc(0x4000_501b, SHW);
                /// `d = sext32(a + b)`.
                addw:   "addw"   (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_003b, R3);
                /// `d = sext32(a - b)`.
                subw:   "subw"   (d: Xr, a: Xr, b: Xr)          [] => enc(0x4000_003b, R3);
                /// `d = sext32(a[31:0] << b[4:0])`.
                sllw:   "sllw"   (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_103b, R3);
                /// `d = sext32(a[31:0] >> b[4:0])`, logical.
                srlw:   "srlw"   (d: Xr, a: Xr, b: Xr)          [] => enc(0x0000_503b, R3);
                /// `d = sext32(a[31:0] >> b[4:0])`, arithmetic.
                sraw:   "sraw"   (d: Xr, a: Xr, b: Xr)          [] => enc(0x4000_503b, R3);
                /// Load upper immediate: `d = sext(imm << 12)`.
                lui:    "lui"    (d: Xr, i: Uimm20)             [] => enc(0x0000_0037, &[fld(0, RD, 5), mapped(1, 12, 20, uimm20)]);
                ld:     "ld"     (d: Xr, m: M)                  [] => enc(0x0000_3003, LD);
                lw:     "lw"     (d: Xr, m: M)                  [] => enc(0x0000_2003, LD);
                lwu:    "lwu"    (d: Xr, m: M)                  [] => enc(0x0000_6003, LD);
                lbu:    "lbu"    (d: Xr, m: M)                  [] => enc(0x0000_4003, LD);
                /// Load a halfword, zero-extended.
                lhu:    "lhu"    (d: Xr, m: M)                  [] => enc(0x0000_5003, LD);
                /// Load a halfword, sign-extended.
                lh:     "lh"     (d: Xr, m: M)                  [] => enc(0x0000_1003, LD);
                /// Load a byte, sign-extended.
                lb:     "lb"     (d: Xr, m: M)                  [] => enc(0x0000_0003, LD);
                sd:     "sd"     (s: Xr, m: M)                  [] => enc(0x0000_3023, ST);
                sw:     "sw"     (s: Xr, m: M)                  [] => enc(0x0000_2023, ST);
                sb:     "sb"     (s: Xr, m: M)                  [] => enc(0x0000_0023, ST);
                sh:     "sh"     (s: Xr, m: M)                  [] => enc(0x0000_1023, ST);

                // --- pseudo-instructions (encoded as what they expand to) ------------------------------------------------
                /// `addi d, s, 0`.
                mv:     "mv"     (d: Xr, s: Xr)                 [] => enc(0x0000_0013, R2);
                /// `addi d, zero, i`: only 12-bit signed constants (larger ones need `lui`).
                li:     "li"     (d: Xr, i: Simm12)             [] => enc(0x0000_0013, &[fld(0, RD, 5), mapped(1, 20, 12, simm12)]);
                /// `xori d, s, -1`.
                not:    "not"    (d: Xr, s: Xr)                 [] => enc(0xfff0_4013, R2);
                /// `sub d, zero, s`.
                neg:    "neg"    (d: Xr, s: Xr)                 [] => enc(0x4000_0033, R2S);
                /// `addi zero, zero, 0`.
                nop:    "nop"    ()                             [] => enc(0x0000_0013, &[]);
                /// `jalr zero, 0(ra)`.
                ret:    "ret"    ()                             [] => enc(0x0000_8067, &[]);
                /// The PC-relative address of a label: `auipc d, hi20; addi d, d, lo12`.
                lla:    "lla"    (d: Xr, t: Target)             []
                    => label2(0x0000_0017, AUIPC, 0x0000_0013, ADDI_LO, 1, LabelValue::Offset);
                /// `jal zero, t`.
                j:      "j"      (t: Target)                    [] => label(0x0000_006f, JT, 0, LabelValue::Offset);
                /// Call a label within +-2 GiB: `auipc ra, hi20; jalr ra, lo12(ra)`, `ra` the return address. The
                /// interpreter runs a call to a label of the same function, which returns by `ret`.
                call:   "call"   (t: Target)                    []
                    => label2(0x0000_0097, CALL_HI, 0x0000_80e7, CALL_LO, 0, LabelValue::Offset);
                /// `beq a, zero, t`.
                beqz:   "beqz"   (a: Xr, t: Target)             [] => label(0x0000_0063, BZ, 1, LabelValue::Offset);
                /// `bne a, zero, t`.
                bnez:   "bnez"   (a: Xr, t: Target)             [] => label(0x0000_1063, BZ, 1, LabelValue::Offset);
                beq:    "beq"    (a: Xr, b: Xr, t: Target)      [] => label(0x0000_0063, BR, 2, LabelValue::Offset);
                bne:    "bne"    (a: Xr, b: Xr, t: Target)      [] => label(0x0000_1063, BR, 2, LabelValue::Offset);
                /// Branch if less than, unsigned.
                bltu:   "bltu"   (a: Xr, b: Xr, t: Target)      [] => label(0x0000_6063, BR, 2, LabelValue::Offset);
                /// Branch if greater than or equal, unsigned.
                bgeu:   "bgeu"   (a: Xr, b: Xr, t: Target)      [] => label(0x0000_7063, BR, 2, LabelValue::Offset);
                /// Branch if less than, signed.
                blt:    "blt"    (a: Xr, b: Xr, t: Target)      [] => label(0x0000_4063, BR, 2, LabelValue::Offset);
                /// Branch if greater than or equal, signed.
                bge:    "bge"    (a: Xr, b: Xr, t: Target)      [] => label(0x0000_5063, BR, 2, LabelValue::Offset);

                // --- Zbb, Zbkb --------------------------------------------------------------------------------------------
                /// Byte-reverse the 64-bit register.
                rev8:   "rev8"   (d: Xr, s: Xr)                 [Zbb] => enc(0x6b80_5013, R2);
                /// `d = a & !b`.
                andn:   "andn"   (d: Xr, a: Xr, b: Xr)          [Zbb] => enc(0x4000_7033, R3);
                /// `d = a | !b`.
                orn:    "orn"    (d: Xr, a: Xr, b: Xr)          [Zbb] => enc(0x4000_6033, R3);
                /// `d = !(a ^ b)`.
                xnor:   "xnor"   (d: Xr, a: Xr, b: Xr)          [Zbb] => enc(0x4000_4033, R3);
                rol:    "rol"    (d: Xr, a: Xr, b: Xr)          [Zbb] => enc(0x6000_1033, R3);
                ror:    "ror"    (d: Xr, a: Xr, b: Xr)          [Zbb] => enc(0x6000_5033, R3);
                rori:   "rori"   (d: Xr, a: Xr, n: Shamt)       [Zbb] => enc(0x6000_5013, SH);
                /// The larger of `a` and `b`, unsigned.
                maxu:   "maxu"   (d: Xr, a: Xr, b: Xr)          [Zbb] => enc(0x0a00_7033, R3);
                /// The smaller of `a` and `b`, unsigned.
                minu:   "minu"   (d: Xr, a: Xr, b: Xr)          [Zbb] => enc(0x0a00_5033, R3);
                /// `d = sext32(rotl32(a[31:0], b[4:0]))`.
                rolw:   "rolw"   (d: Xr, a: Xr, b: Xr)          [Zbb] => enc(0x6000_103b, R3);
                /// `d = sext32(rotr32(a[31:0], b[4:0]))`.
                rorw:   "rorw"   (d: Xr, a: Xr, b: Xr)          [Zbb] => enc(0x6000_503b, R3);
                /// `d = sext32(rotr32(a[31:0], n))`.
                roriw:  "roriw"  (d: Xr, a: Xr, n: Uimm5)       [Zbb] => enc(0x6000_501b, SHW);
                /// `d = (b[31:0] << 32) | a[31:0]`.
                pack:   "pack"   (d: Xr, a: Xr, b: Xr)          [Zbkb] => enc(0x0800_4033, R3);
                /// `d = (b[7:0] << 8) | a[7:0]`.
                packh:  "packh"  (d: Xr, a: Xr, b: Xr)          [Zbkb] => enc(0x0800_7033, R3);
                /// Reverse the bits of each byte.
                brev8:  "brev8"  (d: Xr, s: Xr)                 [Zbkb] => enc(0x6870_5013, R2);
                /// `d = sext32((b[15:0] << 16) | a[15:0])`.
                packw:  "packw"  (d: Xr, a: Xr, b: Xr)          [Zbkb] => enc(0x0800_403b, R3);

                // --- Zbkx -----------------------------------------------------------------------------------------------
                /// Nibble `i` of `d` = nibble `b[i]` of `a` (0 for an index >= 16).
                xperm4: "xperm4" (d: Xr, a: Xr, b: Xr)          [Zbkx] => enc(0x2800_2033, R3);
                /// Byte `i` of `d` = byte `b[i]` of `a` (0 for an index >= 8).
                xperm8: "xperm8" (d: Xr, a: Xr, b: Xr)          [Zbkx] => enc(0x2800_4033, R3);

                // --- Zbc ----------------------------------------------------------------------------------------------------
                /// Low 64 bits of the 128-bit carry-less product.
                clmul:  "clmul"  (d: Xr, a: Xr, b: Xr)          [Zbc] => enc(0x0a00_1033, R3);
                /// High 64 bits of the 128-bit carry-less product.
                clmulh: "clmulh" (d: Xr, a: Xr, b: Xr)          [Zbc] => enc(0x0a00_3033, R3);
                /// Bits 63..126 of the 128-bit carry-less product.
                clmulr: "clmulr" (d: Xr, a: Xr, b: Xr)          [Zbc] => enc(0x0a00_2033, R3);

                // --- Zkne, Zknd: AES on 64-bit halves (the state `b:a`, `a` holding columns 0 and 1) ------------------------
                /// Low half of ShiftRows then SubBytes (final encryption round, before AddRoundKey).
                aes64es:  "aes64es"  (d: Xr, a: Xr, b: Xr)      [Zkne] => enc(0x3200_0033, R3);
                /// Low half of ShiftRows, SubBytes, MixColumns (middle encryption round).
                aes64esm: "aes64esm" (d: Xr, a: Xr, b: Xr)      [Zkne] => enc(0x3600_0033, R3);
                /// Low half of InvShiftRows then InvSubBytes (final decryption round).
                aes64ds:  "aes64ds"  (d: Xr, a: Xr, b: Xr)      [Zknd] => enc(0x3a00_0033, R3);
                /// Low half of InvShiftRows, InvSubBytes, InvMixColumns (middle decryption round).
                aes64dsm: "aes64dsm" (d: Xr, a: Xr, b: Xr)      [Zknd] => enc(0x3e00_0033, R3);
                /// InvMixColumns on the two columns of `s` (decryption round keys).
                aes64im: "aes64im"   (d: Xr, s: Xr)             [Zknd] => enc(0x3000_1013, R2);
                /// Key schedule: `SubWord(RotWord(a[63:32])) ^ rcon[r]` (no rotation, no rcon for r = 10), in both halves.
                aes64ks1i: "aes64ks1i" (d: Xr, a: Xr, r: Rnum)  [Zkne]
                    => enc(0x3100_1013, &[fld(0, RD, 5), fld(1, RS1, 5), mapped(2, 20, 4, rnum)]);
                /// Key schedule: `w0 = a[63:32] ^ b[31:0]`, `w1 = w0 ^ b[63:32]`, `d = w1:w0`.
                aes64ks2: "aes64ks2" (d: Xr, a: Xr, b: Xr)      [Zkne] => enc(0x7e00_0033, R3);

                // --- Zknh, Zksh (32-bit results sign-extended) -------------------------------------------------------------
                /// SHA-256 sigma0: `ror7 ^ ror18 ^ shr3`.
                sha256sig0: "sha256sig0" (d: Xr, s: Xr)         [Zknh] => enc(0x1020_1013, R2);
                /// SHA-256 sigma1: `ror17 ^ ror19 ^ shr10`.
                sha256sig1: "sha256sig1" (d: Xr, s: Xr)         [Zknh] => enc(0x1030_1013, R2);
                /// SHA-256 Sigma0: `ror2 ^ ror13 ^ ror22`.
                sha256sum0: "sha256sum0" (d: Xr, s: Xr)         [Zknh] => enc(0x1000_1013, R2);
                /// SHA-256 Sigma1: `ror6 ^ ror11 ^ ror25`.
                sha256sum1: "sha256sum1" (d: Xr, s: Xr)         [Zknh] => enc(0x1010_1013, R2);
                /// SHA-512 sigma0: `ror1 ^ ror8 ^ shr7`.
                sha512sig0: "sha512sig0" (d: Xr, s: Xr)         [Zknh] => enc(0x1060_1013, R2);
                /// SHA-512 sigma1: `ror19 ^ ror61 ^ shr6`.
                sha512sig1: "sha512sig1" (d: Xr, s: Xr)         [Zknh] => enc(0x1070_1013, R2);
                /// SHA-512 Sigma0: `ror28 ^ ror34 ^ ror39`.
                sha512sum0: "sha512sum0" (d: Xr, s: Xr)         [Zknh] => enc(0x1040_1013, R2);
                /// SHA-512 Sigma1: `ror14 ^ ror18 ^ ror41`.
                sha512sum1: "sha512sum1" (d: Xr, s: Xr)         [Zknh] => enc(0x1050_1013, R2);
                /// SM3 P0: `x ^ rol9 ^ rol17`.
                sm3p0:  "sm3p0"  (d: Xr, s: Xr)                 [Zksh] => enc(0x1080_1013, R2);
                /// SM3 P1: `x ^ rol15 ^ rol23`.
                sm3p1:  "sm3p1"  (d: Xr, s: Xr)                 [Zksh] => enc(0x1090_1013, R2);

                // --- Zksed ----------------------------------------------------------------------------------------------
                /// One SM4 round step on byte `bs` of `b`, accumulated into `a`.
                sm4ed:  "sm4ed"  (d: Xr, a: Xr, b: Xr, bs: Bs)  [Zksed] => enc(0x3000_0033, BS);
                /// One SM4 key-schedule step on byte `bs` of `b`, accumulated into `a`.
                sm4ks:  "sm4ks"  (d: Xr, a: Xr, b: Xr, bs: Bs)  [Zksed] => enc(0x3400_0033, BS);

                // --- V 1.0 ------------------------------------------------------------------------------------------------
                /// Sets vl to min(avl, VLMAX) for the vector type; `d` receives vl.
                vsetivli: "vsetivli" (d: Xr, avl: Uimm5, t: VTypeI) [V]
                    => enc(0xc000_7057, &[fld(0, RD, 5), mapped(1, RS1, 5, uimm5), fld(2, 20, 10)]);
                /// Sets vl to min(avl, VLMAX) for the vector type, the AVL in a register; `d` receives vl.
                vsetvli: "vsetvli" (d: Xr, avl: Xr, t: VTypeI) [V]
                    => enc(0x0000_7057, &[fld(0, RD, 5), fld(1, RS1, 5), fld(2, 20, 11)]);
                /// `vsetivli` with an undisturbed tail or undisturbed masked-off elements (`ta, ma` is `vsetivli`'s).
                vsetivli_p: "vsetivli" (d: Xr, avl: Uimm5, t: VTypeP) [V]
                    => enc(0xc000_7057, &[fld(0, RD, 5), mapped(1, RS1, 5, uimm5), mapped(2, 20, 10, policy)]);
                /// `vsetvli` with an undisturbed tail or undisturbed masked-off elements (`ta, ma` is `vsetvli`'s).
                vsetvli_p: "vsetvli" (d: Xr, avl: Xr, t: VTypeP) [V]
                    => enc(0x0000_7057, &[fld(0, RD, 5), fld(1, RS1, 5), mapped(2, 20, 11, policy)]);
                vle32_v: "vle32.v" (d: Vr, a: VAddr)            [V] => enc(0x0200_6007, VM);
                vse32_v: "vse32.v" (s: Vr, a: VAddr)            [V] => enc(0x0200_6027, VM);
                vle64_v: "vle64.v" (d: Vr, a: VAddr)            [V] => enc(0x0200_7007, VM);
                vse64_v: "vse64.v" (s: Vr, a: VAddr)            [V] => enc(0x0200_7027, VM);
                vle8_v:  "vle8.v"  (d: Vr, a: VAddr)            [V] => enc(0x0200_0007, VM);
                vse8_v:  "vse8.v"  (s: Vr, a: VAddr)            [V] => enc(0x0200_0027, VM);
                /// Strided load: element `i` from `a + i * stride` (the stride in bytes, signed).
                vlse32_v: "vlse32.v" (d: Vr, a: VAddr, stride: Xr) [V] => enc(0x0a00_6007, VLS);
                /// Strided load: element `i` from `a + i * stride` (the stride in bytes, signed).
                vlse64_v: "vlse64.v" (d: Vr, a: VAddr, stride: Xr) [V] => enc(0x0a00_7007, VLS);
                /// Strided store: element `i` to `a + i * stride` (the stride in bytes, signed).
                vsse32_v: "vsse32.v" (s: Vr, a: VAddr, stride: Xr) [V] => enc(0x0a00_6027, VLS);
                /// Strided store: element `i` to `a + i * stride` (the stride in bytes, signed).
                vsse64_v: "vsse64.v" (s: Vr, a: VAddr, stride: Xr) [V] => enc(0x0a00_7027, VLS);
                /// Indexed load: element `i` (SEW bits) from `a + idx[i]`, the offsets bytes (EEW 8) of `idx`.
                vluxei8_v: "vluxei8.v" (d: Vr, a: VAddr, idx: Vr) [V] => enc(0x0600_0007, VLS);
                /// Indexed store: element `i` of `s` (SEW bits) to `a + idx[i]`, the offsets bytes (EEW 8) of `idx`, in
                /// no particular order.
                vsuxei8_v: "vsuxei8.v" (s: Vr, a: VAddr, idx: Vr) [V] => enc(0x0600_0027, VLS);
                /// Strided segment load: the eight 32-bit fields of segment `i`, at `a + i * stride`, to element
                /// `i` of `d`, `d + 1`, ... `d + 7` (register groups of EMUL registers each).
                vlsseg8e32_v: "vlsseg8e32.v" (d: Vr, a: VAddr, stride: Xr) [V] => enc(0xea00_6007, VLS);
                /// Strided segment store: element `i` of `s`, `s + 1`, ... `s + 7` to the eight 32-bit fields at
                /// `a + i * stride`.
                vssseg8e32_v: "vssseg8e32.v" (s: Vr, a: VAddr, stride: Xr) [V] => enc(0xea00_6027, VLS);
                vxor_vv: "vxor.vv" (d: Vr, a: Vr, b: Vr)        [V] => enc(0x2e00_0057, VV);
                vmv_v_v: "vmv.v.v" (d: Vr, s: Vr)               [V] => enc(0x5e00_0057, &[fld(0, RD, 5), fld(1, RS1, 5)]);
                /// Whole-register move of `d` = `s`, whatever vl and vtype.
                vmv1r_v: "vmv1r.v" (d: Vr, s: Vr)               [V] => enc(0x9e00_3057, V2);
                /// Whole-register move of the 2 registers from `s`.
                vmv2r_v: "vmv2r.v" (d: Vr2, s: Vr2)             [V]
                    => enc(0x9e00_b057, &[mapped(0, RD, 5, vreg2), mapped(1, RS2, 5, vreg2)]);
                /// Whole-register move of the 4 registers from `s`.
                vmv4r_v: "vmv4r.v" (d: Vr4, s: Vr4)             [V]
                    => enc(0x9e01_b057, &[mapped(0, RD, 5, vreg4), mapped(1, RS2, 5, vreg4)]);
                /// Whole-register move of the 8 registers from `s`.
                vmv8r_v: "vmv8r.v" (d: Vr8, s: Vr8)             [V]
                    => enc(0x9e03_b057, &[mapped(0, RD, 5, vreg8), mapped(1, RS2, 5, vreg8)]);
                /// Every element = the scalar `s`.
                vmv_v_x: "vmv.v.x" (d: Vr, s: Xr)               [V] => enc(0x5e00_4057, V1);
                /// Every element = the immediate.
                vmv_v_i: "vmv.v.i" (d: Vr, i: Simm5)            [V] => enc(0x5e00_3057, &[fld(0, RD, 5), mapped(1, RS1, 5, simm5)]);
                /// `d` = element 0 of `s`.
                vmv_x_s: "vmv.x.s" (d: Xr, s: Vr)               [V] => enc(0x4200_2057, &[fld(0, RD, 5), fld(1, RS2, 5)]);
                /// Element indices 0, 1, 2, ...
                vid_v:   "vid.v"   (d: Vr)                      [V] => enc(0x5208_a057, &[fld(0, RD, 5)]);
                vxor_vx: "vxor.vx" (d: Vr, a: Vr, s: Xr)        [V] => enc(0x2e00_4057, VX);
                vxor_vi: "vxor.vi" (d: Vr, a: Vr, i: Simm5)     [V] => enc(0x2e00_3057, VI);
                vand_vv: "vand.vv" (d: Vr, a: Vr, b: Vr)        [V] => enc(0x2600_0057, VV);
                vand_vi: "vand.vi" (d: Vr, a: Vr, i: Simm5)     [V] => enc(0x2600_3057, VI);
                vand_vx: "vand.vx" (d: Vr, a: Vr, s: Xr)        [V] => enc(0x2600_4057, VX);
                vor_vv:  "vor.vv"  (d: Vr, a: Vr, b: Vr)        [V] => enc(0x2a00_0057, VV);
                vor_vx:  "vor.vx"  (d: Vr, a: Vr, s: Xr)        [V] => enc(0x2a00_4057, VX);
                vor_vi:  "vor.vi"  (d: Vr, a: Vr, i: Simm5)     [V] => enc(0x2a00_3057, VI);
                /// `d = a ^ b` on the elements whose mask bit in v0 is set; the others keep their value.
                vxor_vv_v0t: "vxor.vv {d}, {a}, {b}, v0.t" (d: Vr, a: Vr, b: Vr) [V] => enc(0x2c00_0057, VV);
                /// `d = a | b` on the elements whose mask bit in v0 is set; the others keep their value.
                vor_vv_v0t: "vor.vv {d}, {a}, {b}, v0.t" (d: Vr, a: Vr, b: Vr) [V] => enc(0x2800_0057, VV);
                vadd_vv: "vadd.vv" (d: Vr, a: Vr, b: Vr)        [V] => enc(0x0200_0057, VV);
                vadd_vx: "vadd.vx" (d: Vr, a: Vr, s: Xr)        [V] => enc(0x0200_4057, VX);
                vadd_vi: "vadd.vi" (d: Vr, a: Vr, i: Simm5)     [V] => enc(0x0200_3057, VI);
                /// `d = a + b` on the elements whose mask bit in v0 is set; the others keep their value (`mu`).
                vadd_vv_v0t: "vadd.vv {d}, {a}, {b}, v0.t" (d: Vr, a: Vr, b: Vr) [V] => enc(0x0000_0057, VV);
                /// `d = a + s` on the elements whose mask bit in v0 is set; the others keep their value (`mu`).
                vadd_vx_v0t: "vadd.vx {d}, {a}, {s}, v0.t" (d: Vr, a: Vr, s: Xr) [V] => enc(0x0000_4057, VX);
                /// `d[i]` = the number of set bits below bit `i` of the mask register `s`.
                viota_m: "viota.m" (d: Vr, s: Vr)               [V] => enc(0x5208_2057, V2);
                /// `viota.m` on the elements whose mask bit in v0 is set, counting only those (`mu`).
                viota_m_v0t: "viota.m {d}, {s}, v0.t" (d: Vr, s: Vr) [V] => enc(0x5008_2057, V2);
                /// `d = a - b` per element.
                vsub_vv: "vsub.vv" (d: Vr, a: Vr, b: Vr)        [V] => enc(0x0a00_0057, VV);
                /// `d = a - s` per element.
                vsub_vx: "vsub.vx" (d: Vr, a: Vr, s: Xr)        [V] => enc(0x0a00_4057, VX);
                /// `d = s - a` per element.
                vrsub_vx: "vrsub.vx" (d: Vr, a: Vr, s: Xr)      [V] => enc(0x0e00_4057, VX);
                /// `d = i - a` per element.
                vrsub_vi: "vrsub.vi" (d: Vr, a: Vr, i: Simm5)   [V] => enc(0x0e00_3057, VI);
                vsrl_vi: "vsrl.vi" (d: Vr, a: Vr, n: Uimm5)     [V] => enc(0xa200_3057, VIU);
                /// Shift right, logical, by `b[i]` modulo SEW.
                vsrl_vv: "vsrl.vv" (d: Vr, a: Vr, b: Vr)        [V] => enc(0xa200_0057, VV);
                /// Shift right, logical, by `s` modulo SEW.
                vsrl_vx: "vsrl.vx" (d: Vr, a: Vr, s: Xr)        [V] => enc(0xa200_4057, VX);
                /// Shift left by `n` modulo SEW.
                vsll_vi: "vsll.vi" (d: Vr, a: Vr, n: Uimm5)     [V] => enc(0x9600_3057, VIU);
                /// Shift left by `b[i]` modulo SEW.
                vsll_vv: "vsll.vv" (d: Vr, a: Vr, b: Vr)        [V] => enc(0x9600_0057, VV);
                /// Shift left by `s` modulo SEW.
                vsll_vx: "vsll.vx" (d: Vr, a: Vr, s: Xr)        [V] => enc(0x9600_4057, VX);
                /// Mask bit `i` of `d` = `a[i] == i` (the immediate sign-extended); bits from vl on are tail.
                vmseq_vi: "vmseq.vi" (d: Vr, a: Vr, i: Simm5)  [V] => enc(0x6200_3057, VI);
                /// Mask bit `i` of `d` = `a[i] > s`, unsigned; bits from vl on are tail.
                vmsgtu_vx: "vmsgtu.vx" (d: Vr, a: Vr, s: Xr)   [V] => enc(0x7a00_4057, VX);
                /// `d[i]` = `s[i]` (SEW/2 bits) zero-extended; `s` a group of LMUL/2 registers.
                vzext_vf2: "vzext.vf2" (d: Vr, s: Vr)           [V] => enc(0x4a03_2057, V2);
                /// `d[i]` = `s[i]` (SEW/4 bits) zero-extended; `s` a group of LMUL/4 registers.
                vzext_vf4: "vzext.vf4" (d: Vr, s: Vr)           [V] => enc(0x4a02_2057, V2);
                /// `d[i]` = `s[i]` (SEW/2 bits) sign-extended; `s` a group of LMUL/2 registers.
                vsext_vf2: "vsext.vf2" (d: Vr, s: Vr)           [V] => enc(0x4a03_a057, V2);
                /// Element 0 = the scalar `s` (truncated to SEW), when vl > 0; the other elements are tail.
                vmv_s_x: "vmv.s.x" (d: Vr, s: Xr)               [V] => enc(0x4200_6057, V1);
                /// `d[i] = v0.mask[i] ? b[i] : a[i]`.
                vmerge_vvm: "vmerge.vvm {d}, {a}, {b}, v0" (d: Vr, a: Vr, b: Vr) [V] => enc(0x5c00_0057, VV);
                /// `d[i] = v0.mask[i] ? s : a[i]`.
                vmerge_vxm: "vmerge.vxm {d}, {a}, {s}, v0" (d: Vr, a: Vr, s: Xr) [V] => enc(0x5c00_4057, VX);
                /// `d[i] = v0.mask[i] ? i : a[i]` with the immediate `i`.
                vmerge_vim: "vmerge.vim {d}, {a}, {i}, v0" (d: Vr, a: Vr, i: Simm5) [V] => enc(0x5c00_3057, VI);
                /// `d[i] = a[idx[i]]` (0 for indices >= VLMAX); `d` overlaps neither source.
                vrgather_vv: "vrgather.vv" (d: Vr, a: Vr, idx: Vr) [V] => enc(0x3200_0057, VV);
                /// `d[i] = a[idx]` (0 for an index >= VLMAX); `d` does not overlap `a`.
                vrgather_vx: "vrgather.vx" (d: Vr, a: Vr, idx: Xr) [V] => enc(0x3200_4057, VX);
                /// `d[i] = a[idx]` (0 for an index >= VLMAX); `d` does not overlap `a`.
                vrgather_vi: "vrgather.vi" (d: Vr, a: Vr, idx: Uimm5) [V] => enc(0x3200_3057, VIU);
                /// `d[i] = a[i + off]` (0 past VLMAX).
                vslidedown_vx: "vslidedown.vx" (d: Vr, a: Vr, off: Xr) [V] => enc(0x3e00_4057, VX);
                /// `d[i + off] = a[i]`; elements below `off` keep their value.
                vslideup_vx: "vslideup.vx" (d: Vr, a: Vr, off: Xr) [V] => enc(0x3a00_4057, VX);
                /// `d[i] = a[i + off]` (0 past VLMAX).
                vslidedown_vi: "vslidedown.vi" (d: Vr, a: Vr, off: Uimm5) [V] => enc(0x3e00_3057, VIU);
                /// `d[i + off] = a[i]`; elements below `off` keep their value.
                vslideup_vi: "vslideup.vi" (d: Vr, a: Vr, off: Uimm5) [V] => enc(0x3a00_3057, VIU);
                /// `d[i + off] = a[i]` where v0's mask bit `i + off` is set; the other elements keep their value.
                vslideup_vi_v0t: "vslideup.vi {d}, {a}, {off}, v0.t" (d: Vr, a: Vr, off: Uimm5) [V]
                    => enc(0x3800_3057, VIU);

                // --- vector crypto (raw words: GNU as 2.40 does not know them) --------------------------------------------
                /// Byte-reverse each element.
                vrev8_v: "vrev8.v" (d: Vr, s: Vr)               [V, Zvkb] => raw(0x4a04_a057, V2);
                /// Reverse the bits of each byte.
                vbrev8_v: "vbrev8.v" (d: Vr, s: Vr)             [V, Zvkb] => raw(0x4a04_2057, V2);
                /// `vrev8.v` on the elements whose mask bit in v0 is set; the others keep their value (`mu`).
                vrev8_v_v0t: "vrev8.v {d}, {s}, v0.t" (d: Vr, s: Vr) [V, Zvkb] => raw(0x4804_a057, V2);
                /// Rotate each element right by `n` (0..=63, below SEW).
                vror_vi: "vror.vi" (d: Vr, s: Vr, n: Shamt)     [V, Zvkb] => raw(0x5200_3057, VROR);
                /// Rotate each element right by `b[i]` modulo SEW.
                vror_vv: "vror.vv" (d: Vr, a: Vr, b: Vr)        [V, Zvkb] => raw(0x5200_0057, VV);
                /// Rotate each element right by `s` modulo SEW.
                vror_vx: "vror.vx" (d: Vr, a: Vr, s: Xr)        [V, Zvkb] => raw(0x5200_4057, VX);
                /// Rotate each element left by `b[i]` modulo SEW.
                vrol_vv: "vrol.vv" (d: Vr, a: Vr, b: Vr)        [V, Zvkb] => raw(0x5600_0057, VV);
                /// Rotate each element left by `s` modulo SEW.
                vrol_vx: "vrol.vx" (d: Vr, a: Vr, s: Xr)        [V, Zvkb] => raw(0x5600_4057, VX);
                /// `d = a & !b` per element.
                vandn_vv: "vandn.vv" (d: Vr, a: Vr, b: Vr)      [V, Zvkb] => raw(0x0600_0057, VV);
                /// `d = a & !s` per element.
                vandn_vx: "vandn.vx" (d: Vr, a: Vr, s: Xr)      [V, Zvkb] => raw(0x0600_4057, VX);
                /// Reverse the bits of each element.
                vbrev_v: "vbrev.v" (d: Vr, s: Vr)               [V, Zvbb] => raw(0x4a05_2057, V2);
                /// Count leading zeros of each element (SEW for 0).
                vclz_v:  "vclz.v"  (d: Vr, s: Vr)               [V, Zvbb] => raw(0x4a06_2057, V2);
                /// Count trailing zeros of each element (SEW for 0).
                vctz_v:  "vctz.v"  (d: Vr, s: Vr)               [V, Zvbb] => raw(0x4a06_a057, V2);
                /// Count the set bits of each element.
                vcpop_v: "vcpop.v" (d: Vr, s: Vr)               [V, Zvbb] => raw(0x4a07_2057, V2);
                /// Widening shift left: `d[i]` (2 SEW bits, `d` a group of 2 LMUL registers) = `a[i] << b[i]`, the
                /// amount modulo 2 SEW.
                vwsll_vv: "vwsll.vv" (d: Vr, a: Vr, b: Vr)      [V, Zvbb] => raw(0xd600_0057, VV);
                /// Widening shift left by `s` modulo 2 SEW.
                vwsll_vx: "vwsll.vx" (d: Vr, a: Vr, s: Xr)      [V, Zvbb] => raw(0xd600_4057, VX);
                /// Widening shift left by `n`.
                vwsll_vi: "vwsll.vi" (d: Vr, a: Vr, n: Uimm5)   [V, Zvbb] => raw(0xd600_3057, VIU);
                /// One GHASH step per element group: `d = (d ^ b) * a` in GCM's bit order (`a` is H).
                vghsh_vv: "vghsh.vv" (d: Vr, a: Vr, b: Vr)      [V, Zvkg] => raw(0xb200_2077, VV);
                /// GCM multiplication: `d = d * s`.
                vgmul_vv: "vgmul.vv" (d: Vr, s: Vr)             [V, Zvkg] => raw(0xa208_a077, V2);
                vclmul_vv: "vclmul.vv" (d: Vr, a: Vr, b: Vr)    [V, Zvbc] => raw(0x3200_2057, VV);
                vclmulh_vv: "vclmulh.vv" (d: Vr, a: Vr, b: Vr)  [V, Zvbc] => raw(0x3600_2057, VV);
                /// Low 64 bits of each element's carry-less product with `s`.
                vclmul_vx: "vclmul.vx" (d: Vr, a: Vr, s: Xr)    [V, Zvbc] => raw(0x3200_6057, VX);
                /// High 64 bits of each element's carry-less product with `s`.
                vclmulh_vx: "vclmulh.vx" (d: Vr, a: Vr, s: Xr)  [V, Zvbc] => raw(0x3600_6057, VX);
                /// `vclmul.vx` on the elements whose mask bit in v0 is set; the others keep their value.
                vclmul_vx_v0t: "vclmul.vx {d}, {a}, {s}, v0.t" (d: Vr, a: Vr, s: Xr) [V, Zvbc] => raw(0x3000_6057, VX);
                /// SM4 key expansion: four round keys from `s`, round group `r`.
                vsm4k_vi: "vsm4k.vi" (d: Vr, s: Vr, r: Uimm5)   [V, Zvksed] => raw(0x8600_2077, VIU);
                /// Four SM4 rounds with the round keys in `s` (one per element group).
                vsm4r_vv: "vsm4r.vv" (d: Vr, s: Vr)             [V, Zvksed] => raw(0xa208_2077, V2);
                /// Four SM4 rounds on every element group of `d` with the round keys of `s`'s first element group.
                vsm4r_vs: "vsm4r.vs" (d: Vr, s: Vr)             [V, Zvksed] => raw(0xa608_2077, V2);
                /// Final AES encryption round per element group: SubBytes, ShiftRows, AddRoundKey (`s`'s group).
                vaesef_vv: "vaesef.vv" (d: Vr, s: Vr)           [V, Zvkned] => raw(0xa201_a077, V2);
                /// Final AES encryption round, the round key `s`'s element group 0 for every group.
                vaesef_vs: "vaesef.vs" (d: Vr, s: Vr)           [V, Zvkned] => raw(0xa601_a077, V2);
                /// Middle AES encryption round: SubBytes, ShiftRows, MixColumns, AddRoundKey.
                vaesem_vv: "vaesem.vv" (d: Vr, s: Vr)           [V, Zvkned] => raw(0xa201_2077, V2);
                /// Middle AES encryption round, the round key `s`'s element group 0.
                vaesem_vs: "vaesem.vs" (d: Vr, s: Vr)           [V, Zvkned] => raw(0xa601_2077, V2);
                /// Final AES decryption round: InvShiftRows, InvSubBytes, AddRoundKey.
                vaesdf_vv: "vaesdf.vv" (d: Vr, s: Vr)           [V, Zvkned] => raw(0xa200_a077, V2);
                /// Final AES decryption round, the round key `s`'s element group 0.
                vaesdf_vs: "vaesdf.vs" (d: Vr, s: Vr)           [V, Zvkned] => raw(0xa600_a077, V2);
                /// Middle AES decryption round: InvShiftRows, InvSubBytes, AddRoundKey, InvMixColumns.
                vaesdm_vv: "vaesdm.vv" (d: Vr, s: Vr)           [V, Zvkned] => raw(0xa200_2077, V2);
                /// Middle AES decryption round, the round key `s`'s element group 0.
                vaesdm_vs: "vaesdm.vs" (d: Vr, s: Vr)           [V, Zvkned] => raw(0xa600_2077, V2);
                /// AddRoundKey: every element group of `d` ^= `s`'s element group 0.
                vaesz_vs: "vaesz.vs" (d: Vr, s: Vr)             [V, Zvkned] => raw(0xa603_a077, V2);
                /// AES-128 key expansion: round key `r` (1..=10; others map into range) from round key `r - 1` in `s`.
                vaeskf1_vi: "vaeskf1.vi" (d: Vr, s: Vr, r: Uimm5) [V, Zvkned] => raw(0x8a00_2077, VIU);
                /// AES-256 key expansion: round key `r` (2..=14) from round key `r - 1` in `s` and `r - 2` in `d`.
                vaeskf2_vi: "vaeskf2.vi" (d: Vr, s: Vr, r: Uimm5) [V, Zvkned] => raw(0xaa00_2077, VIU);
                /// SHA-2 message schedule: `d` = W[19..16] from W[3..0] in `d`, W[11..9, 4] in `a`, W[15..12] in `b`.
                vsha2ms_vv: "vsha2ms.vv" (d: Vr, a: Vr, b: Vr)  [V, Zvknha] => raw(0xb600_2077, VV);
                /// Two SHA-2 rounds with the message words (plus constants) in elements 3 and 2 of `b`: state
                /// `{a, b, e, f}` in `a` (element 3 first), `{c, d, g, h}` in `d`; `d` receives the new `{a, b, e, f}`.
                vsha2ch_vv: "vsha2ch.vv" (d: Vr, a: Vr, b: Vr)  [V, Zvknha] => raw(0xba00_2077, VV);
                /// As `vsha2ch.vv`, with the message words in elements 1 and 0 of `b`.
                vsha2cl_vv: "vsha2cl.vv" (d: Vr, a: Vr, b: Vr)  [V, Zvknha] => raw(0xbe00_2077, VV);
                /// SM3 message expansion: `d` = W[23..16] from W[7..0] in `b` and W[15..8] in `a` (big-endian words).
                vsm3me_vv: "vsm3me.vv" (d: Vr, a: Vr, b: Vr)    [V, Zvksh] => raw(0x8200_2077, VV);
                /// Two SM3 compression rounds (2r, 2r + 1) on the state in `d` with the message words of `s`.
                vsm3c_vi: "vsm3c.vi" (d: Vr, s: Vr, r: Uimm5)   [V, Zvksh] => raw(0xae00_2077, VIU);
        }
    };
}

pub(crate) use riscv64_table;

riscv64_table!(define_isa);

/// The ABI name of x`n` (`x<n>` past x31, for the builder's message about it).
fn xname(n: u8) -> String {
    XNAMES.get(n as usize).map_or_else(|| format!("x{n}"), |x| x.to_string())
}

fn vtype_text(t: VType) -> String {
    format!("e{}, m{}, ta, ma", t.sew, t.lmul)
}

impl InstructionSet for Riscv64 {
    const ARCH: Arch = Arch::Riscv64;
    type Op = Op;
    type Operand = Operand;
    type Reg = Reg;
    type Gpr = X;
    type Feature = RvFeature;
    type Encoding = super::fixed::Encoding;

    fn info(op: Op) -> &'static OpInfo<RvFeature> {
        &OPS[op as usize]
    }
    fn ops() -> &'static [OpInfo<RvFeature>] {
        OPS
    }
    fn regs(o: &Operand, out: &mut Vec<Reg>) {
        match o {
            Operand::X(n) | Operand::Base(n) => out.push(Reg::X(*n)),
            Operand::Mem(m) => out.push(Reg::X(m.base.0)),
            Operand::V(n) => out.push(Reg::V(*n)),
            Operand::Imm(_) | Operand::VType(_) | Operand::VTypePol(_) | Operand::Label(_) => {}
        }
    }
    fn label(o: &Operand) -> Option<&Label> {
        match o {
            Operand::Label(l) => Some(l),
            _ => None,
        }
    }
    fn label_mut(o: &mut Operand) -> Option<&mut Label> {
        match o {
            Operand::Label(l) => Some(l),
            _ => None,
        }
    }
    fn print_operand(o: &Operand, ctx: &PrintCtx) -> String {
        match o {
            Operand::X(n) => xname(*n),
            Operand::V(n) => format!("v{n}"),
            Operand::Imm(i) => i.to_string(),
            Operand::Mem(m) => format!("{}({})", m.offset, xname(m.base.0)),
            Operand::Base(n) => format!("({})", xname(*n)),
            Operand::VType(t) => vtype_text(*t),
            Operand::VTypePol(p) => format!(
                "e{}, m{}, {}, {}",
                p.vtype.sew,
                p.vtype.lmul,
                if p.tail_undisturbed { "tu" } else { "ta" },
                if p.mask_undisturbed { "mu" } else { "ma" }
            ),
            Operand::Label(l) => ctx.label(l),
        }
    }
    /// Register numbers and immediates as they are; a memory operand `offset(base)` packs into one value,
    /// `offset << 5 | base`, which the load/store encodings split with `part`.
    fn operand_value(o: &Operand) -> Option<i64> {
        match o {
            Operand::X(n) | Operand::V(n) | Operand::Base(n) => Some(*n as i64),
            Operand::Imm(i) => Some(*i),
            Operand::Mem(m) => Some(((m.offset as i64) << 5) | m.base.0 as i64),
            Operand::VType(t) => Some(t.bits()),
            Operand::VTypePol(p) => Some(p.bits()),
            Operand::Label(_) => None,
        }
    }
    /// Register numbers (x0..=x31, v0..=v31) and vector types (SEW 8, 16, 32 or 64, LMUL 1, 2, 4 or 8), then
    /// every immediate, memory operand and policy vector type through the entry's fields
    /// ([`super::fixed::Encoding::check`]): immediates, shift amounts, byte selects, round numbers, load and store
    /// offsets, and the policy forms' refusal of `ta, ma`.
    #[inline]
    fn check_operands(op: Op, operands: &[Operand]) -> Result<(), String> {
        let in_class = |o: &Operand| match *o {
            Operand::X(n) | Operand::Base(n) | Operand::Mem(Mem { base: X(n), .. }) | Operand::V(n) => n <= 31,
            Operand::VType(t) | Operand::VTypePol(VTypePol { vtype: t, .. }) => {
                matches!(t.sew, 8 | 16 | 32 | 64) && matches!(t.lmul, 1 | 2 | 4 | 8)
            }
            _ => true,
        };
        if !operands.iter().all(in_class) {
            return Err(class_error(operands));
        }
        // Registers in their class fit their 5-bit fields, a checked vector type its 10 or 11 bits
        // (`gen/tests/operand_errors.rs` holds every entry to that): only immediates, memory offsets and the
        // policy forms' vector types (never `ta, ma`) go through the fields, and the aligned registers of the
        // whole-register moves.
        let aligned = matches!(op, Op::vmv2r_v | Op::vmv4r_v | Op::vmv8r_v);
        super::check_fixed_fields(&OPS[op as usize], operands, |o| match o {
            Operand::Imm(_) | Operand::Mem(_) | Operand::VTypePol(_) => Self::operand_value(o),
            Operand::V(_) if aligned => Self::operand_value(o),
            _ => None,
        })
    }
    fn reg_name(r: Reg) -> String {
        match r {
            Reg::X(n) => XNAMES[n as usize].to_string(),
            Reg::V(n) => format!("v{n}"),
        }
    }
}

/// What is wrong with the first register or vector type out of its class.
#[cold]
#[inline(never)]
fn class_error(operands: &[Operand]) -> String {
    for o in operands {
        match *o {
            Operand::X(n) | Operand::Base(n) | Operand::Mem(Mem { base: X(n), .. }) if n > 31 => {
                return format!("x{n} is not a general-purpose register: x0..=x31")
            }
            Operand::V(n) if n > 31 => return format!("v{n} is not a vector register: v0..=v31"),
            Operand::VType(t) | Operand::VTypePol(VTypePol { vtype: t, .. }) if !matches!(t.sew, 8 | 16 | 32 | 64) => {
                return format!("SEW {} out of 8, 16, 32, 64", t.sew)
            }
            Operand::VType(t) | Operand::VTypePol(VTypePol { vtype: t, .. }) if !matches!(t.lmul, 1 | 2 | 4 | 8) => {
                return format!("LMUL {} out of 1, 2, 4, 8", t.lmul)
            }
            _ => {}
        }
    }
    "an operand out of its class".to_string()
}
