//! aarch64: registers, operand kinds, features and the instruction table.
//!
//! Listings use GNU as syntax. Every entry's syntax is a template: the holes `{name}` are replaced by the printed
//! operands, so the arrangement of a vector operand (`.16b`, `.2d`, `.1q`, ...), the `#` of an immediate and the
//! brackets of an address are part of the entry, not of the operand. An entry is therefore one exact instruction
//! form, and its encoding (a base word plus one bit field per operand, see [`super::fixed`]) is checked against
//! GNU as and LLVM by `gen/tests/aarch64_table.rs`. Branches and address computations whose operand is a label
//! carry an encoding too: the label's value is a byte offset from the instruction (`b`, `b.cond`, `cbz`,
//! `adr`), a distance in 4 KiB pages (`adrp`) or the low 12 bits of the address (`add :lo12:`), see
//! [`LabelValue`]; listings leave it to the assembler, the JIT computes it (checked against GNU as with
//! linked addresses).
//!
//! Operand values, as the encoder sees them: a register is its number (`sp` and `xzr` are 31), an immediate is
//! the number the programmer writes (byte offsets, shift counts, lane indices); the table's field maps scale or
//! transform it (e.g. `ldr q` offsets are divided by 16, `ushr` counts become `128 - shift`) and reject values
//! that the form cannot encode.

use super::fixed::{enc, fld, label, mapped, mapped_part, LabelValue, OutOfRange, Range};
use super::{InstructionSet, OpInfo, PrintCtx};
use crate::define_isa;
use crate::label::Label;
use crate::target::Arch;

crate::define_features! {
    /// aarch64 ISA extensions beyond ARMv8.0-A with Advanced SIMD (which needs none).
    A64Feature {
        /// PMULL/PMULL2 on 64-bit lanes (FEAT_PMULL).
        Pmull = "pmull",
        /// AES round instructions (FEAT_AES).
        Aes = "aes",
        /// Three-way XOR and bit-clear-and-XOR: `eor3`, `bcax` (FEAT_SHA3).
        Sha3 = "sha3",
        /// SM4 rounds and key expansion: `sm4e`, `sm4ekey` (FEAT_SM4).
        Sm4 = "sm4",
        /// SHA-256 hash updates and message schedule: `sha256h`, `sha256h2`, `sha256su0`, `sha256su1` (FEAT_SHA256;
        /// Linux HWCAP `sha2`).
        Sha2 = "sha2",
        /// SHA-512 hash updates and message schedule: `sha512h`, `sha512h2`, `sha512su0`, `sha512su1`
        /// (FEAT_SHA512; Linux HWCAP `sha512`).
        Sha512 = "sha512",
        /// SHA-1 hash updates and message schedule: `sha1c`, `sha1p`, `sha1m`, `sha1h`, `sha1su0`, `sha1su1`
        /// (FEAT_SHA1; Linux HWCAP `sha1`).
        Sha1 = "sha1",
        /// SM3 hash rounds and message expansion: `sm3ss1`, `sm3tt1a`, `sm3tt1b`, `sm3tt2a`, `sm3tt2b`,
        /// `sm3partw1`, `sm3partw2` (FEAT_SM3; Linux HWCAP `sm3`).
        Sm3 = "sm3",
    }
}

/// A 64-bit general-purpose register x0..x30.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct X(pub u8);

/// The stack pointer (register number 31 in the forms that admit it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sp;

/// The zero register `xzr` (register number 31 in the forms that admit it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Xzr;

/// A 128-bit vector register v0..v31. Instructions choose the view: `vN.<arrangement>` (the table entry's
/// template gives the arrangement), `qN` (loads and stores of 128 bits) or `dN` (the low 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct V(pub u8);

#[allow(missing_docs)]
pub mod regs {
    //! Register names.
    use super::{Sp, Xzr, X};
    pub const X0: X = X(0);
    pub const X1: X = X(1);
    pub const X2: X = X(2);
    pub const X3: X = X(3);
    pub const X4: X = X(4);
    pub const X5: X = X(5);
    pub const X6: X = X(6);
    pub const X7: X = X(7);
    pub const X8: X = X(8);
    pub const X9: X = X(9);
    pub const X10: X = X(10);
    pub const X11: X = X(11);
    pub const X12: X = X(12);
    pub const X13: X = X(13);
    pub const X14: X = X(14);
    pub const X15: X = X(15);
    pub const X16: X = X(16);
    pub const X17: X = X(17);
    /// The platform register: reserved on Apple and Windows arm64 (a function using it fails to build there).
    pub const X18: X = X(18);
    pub const X19: X = X(19);
    pub const X20: X = X(20);
    pub const X21: X = X(21);
    pub const X22: X = X(22);
    pub const X23: X = X(23);
    pub const X24: X = X(24);
    pub const X25: X = X(25);
    pub const X26: X = X(26);
    pub const X27: X = X(27);
    pub const X28: X = X(28);
    /// The frame pointer.
    pub const X29: X = X(29);
    /// The link register.
    pub const X30: X = X(30);
    pub const SP: Sp = Sp;
    pub const XZR: Xzr = Xzr;
}

/// A physical register, for the ABI and the reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reg {
    /// x0..x30 (31 is sp).
    X(u8),
    /// v0..v31.
    V(u8),
}

impl From<X> for Reg {
    fn from(x: X) -> Reg {
        Reg::X(x.0)
    }
}

impl From<V> for Reg {
    fn from(v: V) -> Reg {
        Reg::V(v.0)
    }
}

/// An operand as stored in the IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// x0..x30.
    X(u8),
    /// `sp`.
    Sp,
    /// `xzr`.
    Xzr,
    /// `wN`: the low 32 bits of xN, w0..w30 (a write zeroes the upper half).
    W(u8),
    /// `wzr`.
    Wzr,
    /// `wsp`: the low 32 bits of the stack pointer (register number 31 in the 32-bit forms that admit it).
    Wsp,
    /// `vN` (the template adds the arrangement).
    V(u8),
    /// `qN`: all 128 bits of vN.
    Q(u8),
    /// `dN`: the low 64 bits of vN.
    D(u8),
    /// `sN`: the low 32 bits of vN (a write zeroes the rest).
    S(u8),
    /// An immediate, printed in decimal (the template adds `#` where the syntax has one).
    Imm(i64),
    /// A code or constant label.
    Label(Label),
    /// Four consecutive vector registers `vN..vN+3` (numbers wrap modulo 32) with an arrangement (`16b`, `4s`,
    /// or `s` for a single-structure lane list), printed as `vN.16b, vN+1.16b, ...` (the template adds braces).
    List4(u8, &'static str),
    /// Two consecutive vector registers `vN, vN+1` (numbers wrap modulo 32) with an arrangement (`16b`, `2d`,
    /// `4s`), printed as `vN.2d, vN+1.2d` (the template adds braces); the number is the first register's.
    List2(u8, &'static str),
    /// Three consecutive vector registers `vN..vN+2` (numbers wrap modulo 32) with an arrangement (`16b`), printed
    /// as `vN.16b, vN+1.16b, vN+2.16b` (the template adds braces); the number is the first register's.
    List3(u8, &'static str),
}

impl Operand {
    /// The vector register an operand names, in any view (`vN`, `qN`, `dN`, `sN`, the first of a list).
    pub fn vector(&self) -> Option<u8> {
        match self {
            Operand::V(n)
            | Operand::Q(n)
            | Operand::D(n)
            | Operand::S(n)
            | Operand::List4(n, _)
            | Operand::List3(n, _)
            | Operand::List2(n, _) => Some(*n),
            _ => None,
        }
    }
}

// Operand kinds: the builder's parameter types. Each converts from the registers/values it admits.
macro_rules! kinds {
    ($( $(#[$doc:meta])* $kind:ident { $($from:ty => |$v:ident| $e:expr),* } )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $kind(Operand);
        $( impl From<$from> for $kind { fn from($v: $from) -> Self { $kind($e) } } )*
        impl From<$kind> for Operand { fn from(k: $kind) -> Operand { k.0 } }
    )*};
}

// Register numbers are checked when the instruction is added (`Aarch64::check_operands`): x0..=x30, v0..=v31.
fn x_checked(x: X) -> Operand {
    Operand::X(x.0)
}

fn v_checked(v: V, view: fn(u8) -> Operand) -> Operand {
    view(v.0)
}

kinds! {
    /// A general-purpose register where number 31 is `xzr`.
    Xn { X => |x| x_checked(x), Xzr => |_z| Operand::Xzr }
    /// A general-purpose register x0..x30, neither `xzr` nor `sp` (a post-index increment register: number 31
    /// there encodes the immediate form).
    Xm { X => |x| x_checked(x) }
    /// A general-purpose register where number 31 is `sp` (address bases, `add`/`sub` immediate).
    XnSp { X => |x| x_checked(x), Sp => |_s| Operand::Sp }
    /// A general-purpose register as its 32-bit view `wN` (byte loads and stores), from the `X` or `XZR` the
    /// kernel names: `wzr` for `XZR`.
    Wn { X => |x| Operand::W(x.0), Xzr => |_z| Operand::Wzr }
    /// A general-purpose register as its 32-bit view where number 31 is `wsp` (`add`/`sub`/`cmp` immediate),
    /// from the `X` or `SP` the kernel names.
    WnSp { X => |x| Operand::W(x.0), Sp => |_s| Operand::Wsp }
    /// A vector register `vN`; the entry's template gives the arrangement.
    Vn { V => |v| v_checked(v, Operand::V) }
    /// A vector register as `qN` (128-bit loads and stores).
    Qn { V => |v| v_checked(v, Operand::Q) }
    /// A vector register as `dN` (its low 64 bits: saving v8..v15).
    Dn { V => |v| v_checked(v, Operand::D) }
    /// A vector register as `sN` (its low 32 bits: the SHA-1 `e` word).
    Sn { V => |v| v_checked(v, Operand::S) }
    /// An unsigned immediate: 12 bits (`add`, `sub`, `cmp`), 16 bits (`movz`).
    Imm12 { i32 => |i| Operand::Imm(i as i64) }
    /// An 8-bit immediate (`movi` byte).
    Imm8 { i32 => |i| Operand::Imm(i as i64) }
    /// A byte index 0..15 (`ext`).
    Imm4 { i32 => |i| Operand::Imm(i as i64) }
    /// A shift count (0..63 for left shifts, 1..64 for right shifts).
    Shift { i32 => |i| Operand::Imm(i as i64) }
    /// A lane index of a `.d` element (0 or 1).
    Lane { i32 => |i| Operand::Imm(i as i64) }
    /// A non-negative byte offset, a multiple of the access size (`[xN, #off]`).
    UOff { i32 => |i| Operand::Imm(i as i64) }
    /// A byte offset 0..=4095 of a byte access (`ldrb`/`strb` `[xN, #off]`).
    UOff1 { i32 => |i| Operand::Imm(i as i64) }
    /// A signed byte offset or post-/pre-index increment (a multiple of the access size for pairs).
    SOff { i32 => |i| Operand::Imm(i as i64) }
    /// Four consecutive registers as `.16b` (multi-register `ld1`/`st1`, `tbl`/`tbx` tables).
    VList16b { V => |v| v_checked(v, |n| Operand::List4(n, "16b")) }
    /// Four consecutive registers as `.4s` (`ld4`/`st4`: word j of four blocks into register j).
    VList4s { V => |v| v_checked(v, |n| Operand::List4(n, "4s")) }
    /// Four consecutive registers as `.s` (single-structure `ld4`/`st4` of one lane).
    VListS { V => |v| v_checked(v, |n| Operand::List4(n, "s")) }
    /// A shift count of a 32-bit lane (0..31 for left shifts, 1..32 for right shifts) or of a 32-bit register
    /// (0..31).
    Shift32 { i32 => |i| Operand::Imm(i as i64) }
    /// A lane index of a `.s` element (0..3).
    LaneS { i32 => |i| Operand::Imm(i as i64) }
    /// Four consecutive registers as `.2d` (multi-register `ld1`/`st1`).
    VList2d { V => |v| v_checked(v, |n| Operand::List4(n, "2d")) }
    /// Three consecutive registers as `.16b` (three-register `ld1`).
    VTriple16b { V => |v| v_checked(v, |n| Operand::List3(n, "16b")) }
    /// Three consecutive registers as `.2d` (three-register `ld1`).
    VTriple2d { V => |v| v_checked(v, |n| Operand::List3(n, "2d")) }
    /// Two consecutive registers as `.16b` (two-register `ld1`/`st1`).
    VPair16b { V => |v| v_checked(v, |n| Operand::List2(n, "16b")) }
    /// Two consecutive registers as `.2d`.
    VPair2d { V => |v| v_checked(v, |n| Operand::List2(n, "2d")) }
    /// Two consecutive registers as `.4s`.
    VPair4s { V => |v| v_checked(v, |n| Operand::List2(n, "4s")) }
    /// A byte offset 0..=16380, a multiple of 4 (32-bit `ldr`/`str` `[xN, #off]`).
    UOff4 { i32 => |i| Operand::Imm(i as i64) }
    /// The left shift of an extended register, 0..=4 (`add`/`sub` with `uxtx`).
    ExtShift { i32 => |i| Operand::Imm(i as i64) }
    /// A 3-bit immediate 0..7 (`ext` of `.8b`).
    Imm3 { i32 => |i| Operand::Imm(i as i64) }
    /// A shift count of an 8-bit lane (1..8 for right shifts).
    Shift8 { i32 => |i| Operand::Imm(i as i64) }
    /// A lane index of a `.b` element (0..15).
    LaneB { i32 => |i| Operand::Imm(i as i64) }
    /// A bit number 0..31 of a 32-bit register (`tbz`/`tbnz` on `wN`).
    Bit32 { i32 => |i| Operand::Imm(i as i64) }
    /// The left shift of a 16-bit immediate (`movk ..., lsl #16`): 0 or 16 for 32-bit registers, 0, 16, 32 or 48
    /// for 64-bit ones.
    MovShift { i32 => |i| Operand::Imm(i as i64) }
    /// A 64-bit logical immediate (`and`/`orr`/`eor`/`tst`): a run of ones, rotated, replicated in elements of
    /// 2, 4, 8, 16, 32 or 64 bits (not 0, not all ones). The operand is the 64-bit pattern as an `i64`.
    BitImm64 { u64 => |i| Operand::Imm(i as i64), i64 => |i| Operand::Imm(i) }
    /// A 32-bit logical immediate (`and`/`orr`/`eor` on `wN`): as [`BitImm64`], in elements of 2..=32 bits. The
    /// operand is the 32-bit pattern (an `i32` is taken as its bits).
    BitImm32 { u32 => |i| Operand::Imm(i64::from(i)), i32 => |i| Operand::Imm(i64::from(i as u32)) }
    /// A branch target or the address of a constant.
    Target { &Label => |l| Operand::Label(l.clone()), Label => |l| Operand::Label(l) }
}

// --- field maps: operand value -> encoded field, or the range the value is outside (the builder checks every
// instruction's operands through them when it is added, the encoder when it encodes).

/// What an access of `size` bytes is called in a range's note.
const fn access(size: i64) -> &'static str {
    match size {
        4 => "for 4-byte instructions",
        8 => "for 8-byte accesses",
        16 => "for 16-byte accesses",
        4096 => "for 4 KiB pages",
        _ => "",
    }
}

/// An unsigned offset scaled by `S` into a 12-bit field: `off / S`, `off` a multiple of `S` in `0..=4095 * S`.
fn uscaled<const S: i64>(v: i64) -> Result<i64, OutOfRange> {
    Range::new("offset", 0, 4095 * S).step(S).note(access(S)).check(v).map(|v| v / S)
}

/// A signed offset scaled by `S` into a `BITS`-bit two's-complement field.
fn sscaled<const S: i64, const BITS: u32>(v: i64) -> Result<i64, OutOfRange> {
    let lim = 1i64 << (BITS - 1);
    Range::new("offset", -lim * S, (lim - 1) * S).step(S).note(access(S)).check(v).map(|v| (v / S) & ((1 << BITS) - 1))
}

/// An unsigned immediate of `BITS` bits.
fn uimm<const BITS: u32>(v: i64) -> Result<i64, OutOfRange> {
    Range::new("immediate", 0, (1 << BITS) - 1).check(v)
}

/// A shift of a 64-bit register, 0..=63.
fn shift64(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 0, 63).note("for 64-bit registers").check(s)
}

/// `lsl #s` as UBFM: immr = -s mod 64.
fn lsl_immr(s: i64) -> Result<i64, OutOfRange> {
    shift64(s).map(|s| (64 - s) & 63)
}

/// `lsl #s` as UBFM: imms = 63 - s.
fn lsl_imms(s: i64) -> Result<i64, OutOfRange> {
    shift64(s).map(|s| 63 - s)
}

/// A 64-bit-lane right shift: immh:immb = 128 - s, s in 1..=64.
fn shr64(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 1, 64).note("for 64-bit elements").check(s).map(|s| 128 - s)
}

/// A 64-bit-lane left shift: immh:immb = 64 + s, s in 0..=63.
fn shl64(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 0, 63).note("for 64-bit elements").check(s).map(|s| 64 + s)
}

/// A 32-bit-lane right shift: immh:immb = 64 - s, s in 1..=32.
fn shr32(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 1, 32).note("for 32-bit elements").check(s).map(|s| 64 - s)
}

/// A 32-bit-lane left shift: immh:immb = 32 + s, s in 0..=31.
fn shl32(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 0, 31).note("for 32-bit elements").check(s).map(|s| 32 + s)
}

/// A `.s` lane, 0..=3.
fn lane_s(i: i64) -> Result<i64, OutOfRange> {
    Range::new("lane", 0, 3).note("for 32-bit elements").check(i)
}

/// A `.d` lane, 0..=1.
fn lane_d(i: i64) -> Result<i64, OutOfRange> {
    Range::new("lane", 0, 1).note("for 64-bit elements").check(i)
}

/// The imm5 of a `.s[i]` element: i:100.
fn s_imm5(i: i64) -> Result<i64, OutOfRange> {
    lane_s(i).map(|i| (i << 3) | 4)
}

/// A `.s` lane of a single-structure load or store, 0..3 (split into Q:S by the fields).
fn s_lane(i: i64) -> Result<i64, OutOfRange> {
    lane_s(i)
}

/// The imm5 of a `.d[i]` element: i:1000.
fn d_imm5(i: i64) -> Result<i64, OutOfRange> {
    lane_d(i).map(|i| (i << 4) | 8)
}

/// The imm4 of a `.d[j]` source element: j:000.
fn d_imm4(j: i64) -> Result<i64, OutOfRange> {
    lane_d(j).map(|j| j << 3)
}

/// A shift of a 32-bit register, 0..=31.
fn shift32(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 0, 31).note("for 32-bit registers").check(s)
}

/// `lsl #s` of a 32-bit register as UBFM: immr = -s mod 32.
fn lsl32_immr(s: i64) -> Result<i64, OutOfRange> {
    shift32(s).map(|s| (32 - s) & 31)
}

/// `lsl #s` of a 32-bit register as UBFM: imms = 31 - s.
fn lsl32_imms(s: i64) -> Result<i64, OutOfRange> {
    shift32(s).map(|s| 31 - s)
}

/// The shift of an extended register (`uxtx #s`), 0..=4.
fn ext_shift(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 0, 4).note("for extended registers").check(s)
}

/// An 8-bit-lane right shift: immh:immb = 16 - s, s in 1..=8.
fn shr8(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 1, 8).note("for 8-bit elements").check(s).map(|s| 16 - s)
}

/// The imm5 of a `.b[i]` element: i:1, i in 0..=15.
fn b_imm5(i: i64) -> Result<i64, OutOfRange> {
    Range::new("lane", 0, 15).note("for 8-bit elements").check(i).map(|i| (i << 1) | 1)
}

/// The imm4 of a `.s[j]` source element: j:00.
fn s_imm4(j: i64) -> Result<i64, OutOfRange> {
    lane_s(j).map(|j| j << 2)
}

/// A bit number of a 32-bit register, 0..=31 (`tbz`'s b40; b5 is 0).
fn bit32(b: i64) -> Result<i64, OutOfRange> {
    Range::new("bit", 0, 31).note("for 32-bit registers").check(b)
}

/// `movk`'s `lsl #s` of a 32-bit register as hw = s / 16: s is 0 or 16.
fn hw32(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 0, 16).step(16).note("for 32-bit registers").check(s).map(|s| s / 16)
}

/// `movz`'s `lsl #s` of a 64-bit register as hw = s / 16: s is 0, 16, 32 or 48.
fn hw64(s: i64) -> Result<i64, OutOfRange> {
    Range::new("shift", 0, 48).step(16).note("for 64-bit registers").check(s).map(|s| s / 16)
}

/// A 64-bit logical immediate as N:immr:imms (13 bits): the pattern `v` must be one element of `e` bits (2, 4,
/// ..., 64) replicated, the element a run of `k` ones (0 < k < e) rotated right by `r`; then N = (e == 64),
/// immr = r, imms = the element size's prefix with k - 1 (the Arm ARM's DecodeBitMasks, inverted).
pub fn bitmask64(v: i64) -> Result<i64, OutOfRange> {
    let v = v as u64;
    for e in [2u32, 4, 8, 16, 32, 64] {
        let mask = if e == 64 { u64::MAX } else { (1u64 << e) - 1 };
        let elem = v & mask;
        let replicated = (0..64 / e).fold(0u64, |acc, i| acc | elem.checked_shl(i * e).unwrap_or(0));
        if replicated != v {
            continue;
        }
        let k = elem.count_ones();
        if k == 0 || k == e {
            break;
        }
        let ones = (1u64 << k) - 1;
        let ror = |x: u64, r: u32| if r == 0 { x } else { ((x >> r) | (x << (e - r))) & mask };
        if let Some(r) = (0..e).find(|&r| ror(ones, r) == elem) {
            let n = i64::from(e == 64);
            let imms = ((!(i64::from(e) - 1) << 1) | (i64::from(k) - 1)) & 0x3f;
            return Ok((n << 12) | (i64::from(r) << 6) | imms);
        }
        break;
    }
    Err(OutOfRange {
        value: v as i64,
        range: Range::new("logical immediate", 0, 0)
            .note("(encodable: a rotated run of ones replicated in 2..=64-bit elements, not 0 or all ones)"),
    })
}

/// A 32-bit logical immediate as N:immr:imms (N is 0): the pattern, 0..=u32::MAX, replicated to 64 bits and
/// encoded as [`bitmask64`] does.
pub fn bitmask32(v: i64) -> Result<i64, OutOfRange> {
    Range::new("logical immediate", 0, i64::from(u32::MAX)).note("for 32-bit registers").check(v)?;
    bitmask64(v | (v << 32)).map_err(|e| OutOfRange { value: v, ..e })
}

/// A branch offset in bytes: a multiple of 4 within the `BITS`-bit word offset field.
fn branch<const BITS: u32>(v: i64) -> Result<i64, OutOfRange> {
    sscaled::<4, BITS>(v).map_err(|e| OutOfRange { range: Range { what: "branch offset", ..e.range }, ..e })
}

/// `adr`: a byte offset within +-1 MiB, as the 21-bit immhi:immlo.
fn adr_off(v: i64) -> Result<i64, OutOfRange> {
    sscaled::<1, 21>(v)
}

/// `adrp`: a page distance in bytes (a multiple of 4096) within +-4 GiB, as the 21-bit immhi:immlo.
fn adrp_off(v: i64) -> Result<i64, OutOfRange> {
    sscaled::<4096, 21>(v)
}

/// The aarch64 ISA.
pub struct Aarch64;

/// The aarch64 table: one entry per instruction form (entry syntax: [`define_isa!`](crate::define_isa)).
/// `aarch64_table!(m)` expands the entries into the macro `m`: [`define_isa!`](crate::define_isa) here (the
/// opcodes and `OPS`) and [`define_builder_methods!`](crate::define_builder_methods) in `builder/aarch64.rs`.
macro_rules! aarch64_table {
    ($define:ident) => {
        $define! {
                isa: Aarch64, feature: A64Feature;
                methods {
                    /// `add`: register (`add`) or 12-bit immediate (`add_imm`, which also takes `sp`).
                    add(d, n, m);
                    /// `sub`: register (`sub`) or 12-bit immediate (`sub_imm`).
                    sub(d, n, m);
                    /// `subs`: register (`subs`) or 12-bit immediate (`subs_imm`).
                    subs(d, n, m);
                    /// `cmp`: register (`cmp`) or 12-bit immediate (`cmp_imm`).
                    cmp(n, m);
                    /// `adds`: register (`adds`) or 12-bit immediate (`adds_imm`).
                    adds(d, n, m);
                    /// `ror`: by an immediate (`ror_imm`, EXTR with both sources n) or by a register (`ror`, RORV).
                    ror(d, n, s);
                    /// `ldr`: X register (`ldr_x`) or Q register, from a `V` (`ldr_q`); the D form stays `ldr_d` (a `V` does
                    /// not say its width).
                    ldr(t, n, off);
                    /// `str`: X register (`str_x`) or Q register (`str_q`); the D form stays `str_d`.
                    str(t, n, off);
                    /// `ldp`: X registers (`ldp_x`) or Q registers (`ldp_q`); the D form stays `ldp_d`.
                    ldp(a, b, n, off);
                    /// `stp`: X registers (`stp_x`) or Q registers (`stp_q`); the D form stays `stp_d`.
                    stp(a, b, n, off);
                    /// `ldr`: post-indexed, X (`ldr_x_post`) or Q (`ldr_q_post`); the D form stays `ldr_d_post`.
                    ldr_post(t, n, off);
                    /// `str`: post-indexed, Q (`str_q_post`).
                    str_post(t, n, off);
                    /// `str`: pre-indexed, X (`str_x_pre`); the D form stays `str_d_pre`.
                    str_pre(t, n, off);
                    /// `ldp`: post-indexed, X (`ldp_x_post`) or Q (`ldp_q_post`); the D form stays `ldp_d_post`.
                    ldp_post(a, b, n, off);
                    /// `stp`: pre-indexed, X (`stp_x_pre`); the D form stays `stp_d_pre`.
                    stp_pre(a, b, n, off);
                }

                // --- general-purpose -------------------------------------------------------------------------------------
                nop:        "nop"                                () [] => enc(0xd503201f, &[]);
                ret:        "ret"                                () [] => enc(0xd65f03c0, &[]);
                /// Register move (ORR with xzr).
                mov:        "mov {d}, {s}"                       (d: Xn, s: Xn) []
                    => enc(0xaa0003e0, &[fld(0, 0, 5), fld(1, 16, 5)]);
                add_imm:    "add {d}, {n}, #{imm}"               (d: XnSp, n: XnSp, imm: Imm12) [] as add
                    => enc(0x91000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uimm::<12>)]);
                sub_imm:    "sub {d}, {n}, #{imm}"               (d: XnSp, n: XnSp, imm: Imm12) [] as sub
                    => enc(0xd1000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uimm::<12>)]);
                /// Subtract and set flags.
                subs_imm:   "subs {d}, {n}, #{imm}"              (d: Xn, n: XnSp, imm: Imm12) [] as subs
                    => enc(0xf1000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uimm::<12>)]);
                cmp_imm:    "cmp {n}, #{imm}"                    (n: XnSp, imm: Imm12) [] as cmp
                    => enc(0xf100001f, &[fld(0, 5, 5), mapped(1, 10, 12, uimm::<12>)]);
                add:        "add {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) [] as add
                    => enc(0x8b000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n + (m << s)`.
                add_lsl:    "add {d}, {n}, {m}, lsl #{s}"        (d: Xn, n: Xn, m: Xn, s: Shift) []
                    => enc(0x8b000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 6, shift64)]);
                sub:        "sub {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) [] as sub
                    => enc(0xcb000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                subs:       "subs {d}, {n}, {m}"                 (d: Xn, n: Xn, m: Xn) [] as subs
                    => enc(0xeb000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                cmp:        "cmp {n}, {m}"                       (n: Xn, m: Xn) [] as cmp
                    => enc(0xeb00001f, &[fld(0, 5, 5), fld(1, 16, 5)]);
                /// Move a 16-bit immediate (MOVZ, no shift): `d = imm`.
                movz:       "movz {d}, #{imm}"                   (d: Xn, imm: Imm12) []
                    => enc(0xd2800000, &[fld(0, 0, 5), mapped(1, 5, 16, uimm::<16>)]);
                /// Add an immediate and set flags (C is the carry out).
                adds_imm:   "adds {d}, {n}, #{imm}"              (d: Xn, n: XnSp, imm: Imm12) [] as adds
                    => enc(0xb1000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uimm::<12>)]);
                /// Add with carry: `d = n + m + C`.
                adc:        "adc {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Add and set flags (C is the carry out).
                adds:       "adds {d}, {n}, {m}"                 (d: Xn, n: Xn, m: Xn) [] as adds
                    => enc(0xab000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Add with carry and set flags: `d = n + m + C`, C the carry out.
                adcs:       "adcs {d}, {n}, {m}"                 (d: Xn, n: Xn, m: Xn) []
                    => enc(0xba000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Subtract with borrow: `d = n - m - !C` (`n + !m + C`).
                sbc:        "sbc {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) []
                    => enc(0xda000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Subtract with borrow and set flags: `d = n + !m + C`, C clear on a borrow.
                sbcs:       "sbcs {d}, {n}, {m}"                 (d: Xn, n: Xn, m: Xn) []
                    => enc(0xfa000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// The low 64 bits of `n * m` (MADD with xzr).
                mul:        "mul {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9b007c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// The high 64 bits of the unsigned 128-bit product `n * m`.
                umulh:      "umulh {d}, {n}, {m}"                (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9bc07c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Bits `s..s+63` of the 128-bit concatenation n:m (m the low half), s in 0..=63.
                extr:       "extr {d}, {n}, {m}, #{s}"           (d: Xn, n: Xn, m: Xn, s: Shift) []
                    => enc(0x93c00000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 6, shift64)]);
                /// Rotate right by an immediate, 0..=63 (EXTR with n as both sources).
                ror_imm:    "ror {d}, {n}, #{s}"                 (d: Xn, n: Xn, s: Shift) [] as ror
                    => enc(0x93c00000, &[fld(0, 0, 5), fld(1, 5, 5), fld(1, 16, 5), mapped(2, 10, 6, shift64)]);
                /// Rotate right by `m mod 64` (RORV).
                ror:        "ror {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) [] as ror
                    => enc(0x9ac02c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if equal (Z set), else `m`.
                csel_eq:    "csel {d}, {n}, {m}, eq"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a800000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if not equal (Z clear), else `m`.
                csel_ne:    "csel {d}, {n}, {m}, ne"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a801000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if unsigned higher or same (C set), else `m`.
                csel_hs:    "csel {d}, {n}, {m}, hs"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a802000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if unsigned lower (C clear), else `m`.
                csel_lo:    "csel {d}, {n}, {m}, lo"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a803000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if unsigned higher (C set and Z clear), else `m`.
                csel_hi:    "csel {d}, {n}, {m}, hi"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a808000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if unsigned lower or same (C clear or Z set), else `m`.
                csel_ls:    "csel {d}, {n}, {m}, ls"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a809000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if signed greater or equal (N equals V), else `m`.
                csel_ge:    "csel {d}, {n}, {m}, ge"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a80a000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if signed less than (N differs from V), else `m`.
                csel_lt:    "csel {d}, {n}, {m}, lt"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a80b000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if signed greater than (Z clear and N equals V), else `m`.
                csel_gt:    "csel {d}, {n}, {m}, gt"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a80c000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Conditional select: `d = n` if signed less or equal (Z set or N differs from V), else `m`.
                csel_le:    "csel {d}, {n}, {m}, le"             (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9a80d000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Byte reversal of a 64-bit register.
                rev:        "rev {d}, {n}"                       (d: Xn, n: Xn) []
                    => enc(0xdac00c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                lsl:        "lsl {d}, {n}, #{s}"                 (d: Xn, n: Xn, s: Shift) []
                    => enc(0xd3400000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 6, lsl_immr), mapped(2, 10, 6, lsl_imms)]);
                lsr:        "lsr {d}, {n}, #{s}"                 (d: Xn, n: Xn, s: Shift) []
                    => enc(0xd340fc00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 6, shift64)]);
                /// The 4 KiB page of a label (pair with `add_lo12`; Mach-O spells the label `label@PAGE`).
                adrp:       "adrp {d}, {l}"                      (d: Xn, l: Target) []
                    => label(0x90000000, &[fld(0, 0, 5), mapped_part(1, 29, 2, 0, adrp_off), mapped_part(1, 5, 19, 2, adrp_off)],
                             1, LabelValue::Page);
                /// Adds the low 12 bits of a label's address (after `adrp`; ELF `:lo12:label`, Mach-O `label@PAGEOFF`).
                add_lo12:   "add {d}, {n}, {l}"                  (d: XnSp, n: XnSp, l: Target) []
                    => label(0x91000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uimm::<12>)], 2, LabelValue::Lo12);
                /// The address of a label within 1 MiB.
                adr:        "adr {d}, {l}"                       (d: Xn, l: Target) []
                    => label(0x10000000, &[fld(0, 0, 5), mapped_part(1, 29, 2, 0, adr_off), mapped_part(1, 5, 19, 2, adr_off)],
                             1, LabelValue::Offset);
                b:          "b {t}"                              (t: Target) []
                    => label(0x14000000, &[mapped(0, 0, 26, branch::<26>)], 0, LabelValue::Offset);
                /// Branch if equal (Z set).
                b_eq:       "b.eq {t}"                           (t: Target) []
                    => label(0x54000000, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Branch if not equal (Z clear).
                b_ne:       "b.ne {t}"                           (t: Target) []
                    => label(0x54000001, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Branch if unsigned higher or same (C set).
                b_hs:       "b.hs {t}"                           (t: Target) []
                    => label(0x54000002, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Branch if unsigned lower (C clear).
                b_lo:       "b.lo {t}"                           (t: Target) []
                    => label(0x54000003, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Branch if unsigned higher.
                b_hi:       "b.hi {t}"                           (t: Target) []
                    => label(0x54000008, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Branch if unsigned lower or same.
                b_ls:       "b.ls {t}"                           (t: Target) []
                    => label(0x54000009, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Branch if the register is zero.
                cbz:        "cbz {r}, {t}"                       (r: Xn, t: Target) []
                    => label(0xb4000000, &[fld(0, 0, 5), mapped(1, 5, 19, branch::<19>)], 1, LabelValue::Offset);
                /// Branch if the register is not zero.
                cbnz:       "cbnz {r}, {t}"                      (r: Xn, t: Target) []
                    => label(0xb5000000, &[fld(0, 0, 5), mapped(1, 5, 19, branch::<19>)], 1, LabelValue::Offset);

                // --- general-purpose loads and stores ---------------------------------------------------------------------
                ldr_x:      "ldr {t}, [{n}, #{off}]"             (t: Xn, n: XnSp, off: UOff) [] as ldr
                    => enc(0xf9400000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<8>)]);
                str_x:      "str {t}, [{n}, #{off}]"             (t: Xn, n: XnSp, off: UOff) [] as str
                    => enc(0xf9000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<8>)]);
                /// Store with pre-index writeback: `n += off; [n] = t`.
                str_x_pre:  "str {t}, [{n}, #{off}]!"            (t: Xn, n: XnSp, off: SOff) [] as str_pre
                    => enc(0xf8000c00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                /// Load with post-index writeback: `t = [n]; n += off`.
                ldr_x_post: "ldr {t}, [{n}], #{off}"             (t: Xn, n: XnSp, off: SOff) [] as ldr_post
                    => enc(0xf8400400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                stp_x:      "stp {a}, {b}, [{n}, #{off}]"        (a: Xn, b: Xn, n: XnSp, off: SOff) [] as stp
                    => enc(0xa9000000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                ldp_x:      "ldp {a}, {b}, [{n}, #{off}]"        (a: Xn, b: Xn, n: XnSp, off: SOff) [] as ldp
                    => enc(0xa9400000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                stp_x_pre:  "stp {a}, {b}, [{n}, #{off}]!"       (a: Xn, b: Xn, n: XnSp, off: SOff) [] as stp_pre
                    => enc(0xa9800000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                ldp_x_post: "ldp {a}, {b}, [{n}], #{off}"        (a: Xn, b: Xn, n: XnSp, off: SOff) [] as ldp_post
                    => enc(0xa8c00000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                /// Load a byte, zero-extended: `t = [n + off]` (the whole x register).
                ldrb:       "ldrb {t}, [{n}, #{off}]"            (t: Wn, n: XnSp, off: UOff1) []
                    => enc(0x39400000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<1>)]);
                /// Store the low byte of t: `[n + off] = t`.
                strb:       "strb {t}, [{n}, #{off}]"            (t: Wn, n: XnSp, off: UOff1) []
                    => enc(0x39000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<1>)]);

                // --- vector loads and stores --------------------------------------------------------------------------------
                ldr_d:      "ldr {t}, [{n}, #{off}]"             (t: Dn, n: XnSp, off: UOff) []
                    => enc(0xfd400000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<8>)]);
                str_d:      "str {t}, [{n}, #{off}]"             (t: Dn, n: XnSp, off: UOff) []
                    => enc(0xfd000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<8>)]);
                str_d_pre:  "str {t}, [{n}, #{off}]!"            (t: Dn, n: XnSp, off: SOff) []
                    => enc(0xfc000c00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                ldr_d_post: "ldr {t}, [{n}], #{off}"             (t: Dn, n: XnSp, off: SOff) []
                    => enc(0xfc400400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                stp_d:      "stp {a}, {b}, [{n}, #{off}]"        (a: Dn, b: Dn, n: XnSp, off: SOff) []
                    => enc(0x6d000000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                ldp_d:      "ldp {a}, {b}, [{n}, #{off}]"        (a: Dn, b: Dn, n: XnSp, off: SOff) []
                    => enc(0x6d400000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                stp_d_pre:  "stp {a}, {b}, [{n}, #{off}]!"       (a: Dn, b: Dn, n: XnSp, off: SOff) []
                    => enc(0x6d800000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                ldp_d_post: "ldp {a}, {b}, [{n}], #{off}"        (a: Dn, b: Dn, n: XnSp, off: SOff) []
                    => enc(0x6cc00000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                ldr_q:      "ldr {t}, [{n}, #{off}]"             (t: Qn, n: XnSp, off: UOff) [] as ldr
                    => enc(0x3dc00000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<16>)]);
                str_q:      "str {t}, [{n}, #{off}]"             (t: Qn, n: XnSp, off: UOff) [] as str
                    => enc(0x3d800000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<16>)]);
                ldr_q_post: "ldr {t}, [{n}], #{off}"             (t: Qn, n: XnSp, off: SOff) [] as ldr_post
                    => enc(0x3cc00400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                str_q_post: "str {t}, [{n}], #{off}"             (t: Qn, n: XnSp, off: SOff) [] as str_post
                    => enc(0x3c800400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                ldp_q:      "ldp {a}, {b}, [{n}, #{off}]"        (a: Qn, b: Qn, n: XnSp, off: SOff) [] as ldp
                    => enc(0xad400000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<16, 7>)]);
                stp_q:      "stp {a}, {b}, [{n}, #{off}]"        (a: Qn, b: Qn, n: XnSp, off: SOff) [] as stp
                    => enc(0xad000000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<16, 7>)]);
                /// Load a pair with post-index writeback: `a = [n]; b = [n + 16]; n += off`.
                ldp_q_post: "ldp {a}, {b}, [{n}], #{off}"        (a: Qn, b: Qn, n: XnSp, off: SOff) [] as ldp_post
                    => enc(0xacc00000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<16, 7>)]);
                /// Load 16 bytes, byte i into lane i (on little-endian, the same as `ldr q`).
                ld1_16b:    "ld1 {{t}.16b}, [{n}]"               (t: Vn, n: XnSp) []
                    => enc(0x4c407000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                ld1_16b_post: "ld1 {{t}.16b}, [{n}], #16"        (t: Vn, n: XnSp) []
                    => enc(0x4cdf7000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                st1_16b:    "st1 {{t}.16b}, [{n}]"               (t: Vn, n: XnSp) []
                    => enc(0x4c007000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                st1_16b_post: "st1 {{t}.16b}, [{n}], #16"        (t: Vn, n: XnSp) []
                    => enc(0x4c9f7000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 64 bytes into four consecutive registers: `l = [n]; n += 64`.
                ld1_4x16b_post: "ld1 {{l}}, [{n}], #64"          (l: VList16b, n: XnSp) []
                    => enc(0x4cdf2000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Store four consecutive registers: `[n] = l; n += 64`.
                st1_4x16b_post: "st1 {{l}}, [{n}], #64"          (l: VList16b, n: XnSp) []
                    => enc(0x4c9f2000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load four blocks de-interleaving words: word j of block i into lane i of register j; `n += 64`.
                ld4_4s_post: "ld4 {{l}}, [{n}], #64"             (l: VList4s, n: XnSp) []
                    => enc(0x4cdf0800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Store four blocks interleaving words (the inverse of `ld4_4s_post`); `n += 64`.
                st4_4s_post: "st4 {{l}}, [{n}], #64"             (l: VList4s, n: XnSp) []
                    => enc(0x4c9f0800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load one block's four words into lane i of four registers; `n += 16`.
                ld4_s_post: "ld4 {{l}}[{i}], [{n}], #16"         (l: VListS, i: LaneS, n: XnSp) []
                    => enc(0x0dffa000, &[fld(0, 0, 5), mapped(1, 12, 1, s_lane), mapped_part(1, 30, 1, 1, s_lane), fld(2, 5, 5)]);
                /// Store lane i of four registers as one block; `n += 16`.
                st4_s_post: "st4 {{l}}[{i}], [{n}], #16"         (l: VListS, i: LaneS, n: XnSp) []
                    => enc(0x0dbfa000, &[fld(0, 0, 5), mapped(1, 12, 1, s_lane), mapped_part(1, 30, 1, 1, s_lane), fld(2, 5, 5)]);
                /// Load one word and replicate it to the four lanes; `n += 4`.
                ld1r_4s_post: "ld1r {{t}.4s}, [{n}], #4"         (t: Vn, n: XnSp) []
                    => enc(0x4ddfc800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load four words, word k replicated to the four lanes of register k of the list.
                ld4r_4s:    "ld4r {{l}}, [{n}]"                  (l: VList4s, n: XnSp) []
                    => enc(0x4d60e800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `ld4r_4s`, then `n += 16`.
                ld4r_4s_post: "ld4r {{l}}, [{n}], #16"           (l: VList4s, n: XnSp) []
                    => enc(0x4dffe800, &[fld(0, 0, 5), fld(1, 5, 5)]);

                // --- Advanced SIMD ------------------------------------------------------------------------------------------
                eor_16b:    "eor {d}.16b, {n}.16b, {m}.16b"      (d: Vn, n: Vn, m: Vn) []
                    => enc(0x6e201c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                and_16b:    "and {d}.16b, {n}.16b, {m}.16b"      (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e201c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                orr_16b:    "orr {d}.16b, {n}.16b, {m}.16b"      (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4ea01c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n & !m`.
                bic_16b:    "bic {d}.16b, {n}.16b, {m}.16b"      (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e601c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Vector register move (ORR of a register with itself).
                mov_16b:    "mov {d}.16b, {n}.16b"               (d: Vn, n: Vn) []
                    => enc(0x4ea01c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(1, 16, 5)]);
                /// Bytes `imm..imm+15` of the 32-byte concatenation m:n (n the low half): with n = m, a rotation.
                ext_16b:    "ext {d}.16b, {n}.16b, {m}.16b, #{imm}" (d: Vn, n: Vn, m: Vn, imm: Imm4) []
                    => enc(0x6e000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 11, 4, uimm::<4>)]);
                /// Reverses the bytes of each 64-bit lane.
                rev64_16b:  "rev64 {d}.16b, {n}.16b"             (d: Vn, n: Vn) []
                    => enc(0x4e200800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Reverses the bytes of each 32-bit lane.
                rev32_16b:  "rev32 {d}.16b, {n}.16b"             (d: Vn, n: Vn) []
                    => enc(0x6e200800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Table lookup: byte i of d is byte `m[i]` of n (0 when out of range).
                tbl_16b:    "tbl {d}.16b, {{n}.16b}, {m}.16b"    (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Table lookup in four registers (64 bytes): byte i of d is byte `m[i]` of the table (0 when >= 64).
                tbl4_16b:   "tbl {d}.16b, {{n}}, {m}.16b"        (d: Vn, n: VList16b, m: Vn) []
                    => enc(0x4e006000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Table lookup extension in four registers: like `tbl4_16b`, but bytes whose index is >= 64 keep d's value.
                tbx4_16b:   "tbx {d}.16b, {{n}}, {m}.16b"        (d: Vn, n: VList16b, m: Vn) []
                    => enc(0x4e007000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Even-numbered words of n:m: `d = (n.s[0], n.s[2], m.s[0], m.s[2])`.
                uzp1_4s:    "uzp1 {d}.4s, {n}.4s, {m}.4s"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e801800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Odd-numbered words of n:m: `d = (n.s[1], n.s[3], m.s[1], m.s[3])`.
                uzp2_4s:    "uzp2 {d}.4s, {n}.4s, {m}.4s"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e805800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Interleaves the low words: `d = (n.s[0], m.s[0], n.s[1], m.s[1])`.
                zip1_4s:    "zip1 {d}.4s, {n}.4s, {m}.4s"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e803800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Unsigned 64-bit compare: each lane of d is all ones where `n > m`, else zero.
                cmhi_2d:    "cmhi {d}.2d, {n}.2d, {m}.2d"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x6ee03400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Lane-wise 64-bit subtraction.
                sub_2d:     "sub {d}.2d, {n}.2d, {m}.2d"         (d: Vn, n: Vn, m: Vn) []
                    => enc(0x6ee08400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Lane-wise 64-bit addition.
                add_2d:     "add {d}.2d, {n}.2d, {m}.2d"         (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4ee08400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Lane-wise 32-bit addition (wraps modulo 2^32).
                add_4s:     "add {d}.4s, {n}.4s, {m}.4s"         (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4ea08400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Byte-wise subtraction (wraps modulo 256).
                sub_16b:    "sub {d}.16b, {n}.16b, {m}.16b"      (d: Vn, n: Vn, m: Vn) []
                    => enc(0x6e208400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Swaps the two 32-bit words of each 64-bit lane.
                rev64_4s:   "rev64 {d}.4s, {n}.4s"               (d: Vn, n: Vn) []
                    => enc(0x4ea00800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Swaps the 16-bit halves of each 32-bit lane (a rotation by 16).
                rev32_8h:   "rev32 {d}.8h, {n}.8h"               (d: Vn, n: Vn) []
                    => enc(0x6e600800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Reverses the bits of each byte.
                rbit_16b:   "rbit {d}.16b, {n}.16b"              (d: Vn, n: Vn) []
                    => enc(0x6e605800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Shift left of each 32-bit lane (0..31).
                shl_4s:     "shl {d}.4s, {n}.4s, #{s}"           (d: Vn, n: Vn, s: Shift32) []
                    => enc(0x4f005400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shl32)]);
                /// Logical shift right of each 32-bit lane (1..32).
                ushr_4s:    "ushr {d}.4s, {n}.4s, #{s}"          (d: Vn, n: Vn, s: Shift32) []
                    => enc(0x6f000400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shr32)]);
                /// Shift right and insert: each 32-bit lane of d keeps its top s bits and takes `n >> s` below them.
                sri_4s:     "sri {d}.4s, {n}.4s, #{s}"           (d: Vn, n: Vn, s: Shift32) []
                    => enc(0x6f004400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shr32)]);
                /// Shift left and insert: each 32-bit lane of d keeps its low s bits and takes `n << s` above them.
                sli_4s:     "sli {d}.4s, {n}.4s, #{s}"           (d: Vn, n: Vn, s: Shift32) []
                    => enc(0x6f005400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shl32)]);
                /// Shift left and insert: each 64-bit lane of d keeps its low s bits and takes `n << s` above them.
                sli_2d:     "sli {d}.2d, {n}.2d, #{s}"           (d: Vn, n: Vn, s: Shift) []
                    => enc(0x6f005400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shl64)]);
                /// The four 32-bit lanes of d = lane i of n.
                dup_4s:     "dup {d}.4s, {n}.s[{i}]"             (d: Vn, n: Vn, i: LaneS) []
                    => enc(0x4e000400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 5, s_imm5)]);
                /// `d = (n.d[0], m.d[0])`.
                zip1_2d:    "zip1 {d}.2d, {n}.2d, {m}.2d"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4ec03800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = (n.d[1], m.d[1])`.
                zip2_2d:    "zip2 {d}.2d, {n}.2d, {m}.2d"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4ec07800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Interleaves the high words: `d = (n.s[2], m.s[2], n.s[3], m.s[3])`.
                zip2_4s:    "zip2 {d}.4s, {n}.4s, {m}.4s"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e807800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Interleaves the low bytes: byte 2i of d is `n[i]`, byte 2i+1 is `m[i]` (i < 8).
                zip1_16b:   "zip1 {d}.16b, {n}.16b, {m}.16b"     (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e003800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Interleaves the high bytes: byte 2i of d is `n[8 + i]`, byte 2i+1 is `m[8 + i]`.
                zip2_16b:   "zip2 {d}.16b, {n}.16b, {m}.16b"     (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e007800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Even words of n and m paired: `d = (n.s[0], m.s[0], n.s[2], m.s[2])`.
                trn1_4s:    "trn1 {d}.4s, {n}.4s, {m}.4s"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e802800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Odd words of n and m paired: `d = (n.s[1], m.s[1], n.s[3], m.s[3])`.
                trn2_4s:    "trn2 {d}.4s, {n}.4s, {m}.4s"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e806800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = (n.d[0], m.d[0])` (as `zip1_2d`).
                trn1_2d:    "trn1 {d}.2d, {n}.2d, {m}.2d"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4ec02800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = (n.d[1], m.d[1])` (as `zip2_2d`).
                trn2_2d:    "trn2 {d}.2d, {n}.2d, {m}.2d"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4ec06800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Even bytes n and m paired: byte 2i of d is `n[2i]`, byte 2i+1 is `m[2i]`.
                trn1_16b:   "trn1 {d}.16b, {n}.16b, {m}.16b"     (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e002800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Odd bytes of n and m paired: byte 2i of d is `n[2i+1]`, byte 2i+1 is `m[2i+1]`.
                trn2_16b:   "trn2 {d}.16b, {n}.16b, {m}.16b"     (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e006800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = (n.d[0], m.d[0])` (as `zip1_2d`).
                uzp1_2d:    "uzp1 {d}.2d, {n}.2d, {m}.2d"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4ec01800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = (n.d[1], m.d[1])` (as `zip2_2d`).
                uzp2_2d:    "uzp2 {d}.2d, {n}.2d, {m}.2d"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4ec05800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Even-numbered bytes of the 32-byte n:m (n the low half): byte i of d is byte 2i of n:m.
                uzp1_16b:   "uzp1 {d}.16b, {n}.16b, {m}.16b"     (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e001800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Odd-numbered bytes of n:m: byte i of d is byte 2i+1 of n:m.
                uzp2_16b:   "uzp2 {d}.16b, {n}.16b, {m}.16b"     (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e005800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Logical shift right of each 64-bit lane (1..64).
                ushr_2d:    "ushr {d}.2d, {n}.2d, #{s}"          (d: Vn, n: Vn, s: Shift) []
                    => enc(0x6f000400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shr64)]);
                /// Arithmetic shift right of each 64-bit lane (1..64).
                sshr_2d:    "sshr {d}.2d, {n}.2d, #{s}"          (d: Vn, n: Vn, s: Shift) []
                    => enc(0x4f000400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shr64)]);
                /// Shift left of each 64-bit lane (0..63).
                shl_2d:     "shl {d}.2d, {n}.2d, #{s}"           (d: Vn, n: Vn, s: Shift) []
                    => enc(0x4f005400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shl64)]);
                /// Both 64-bit lanes of d = lane i of n.
                dup_2d:     "dup {d}.2d, {n}.d[{i}]"             (d: Vn, n: Vn, i: Lane) []
                    => enc(0x4e000400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 5, d_imm5)]);
                /// Both 64-bit lanes of d = general register n.
                dup_2d_x:   "dup {d}.2d, {n}"                    (d: Vn, n: Xn) []
                    => enc(0x4e080c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// d = 0.
                movi_zero:  "movi {d}.2d, #0"                    (d: Vn) []
                    => enc(0x6f00e400, &[fld(0, 0, 5)]);
                /// Every byte of d = imm.
                movi_16b:   "movi {d}.16b, #{imm}"               (d: Vn, imm: Imm8) []
                    => enc(0x4f00e400, &[fld(0, 0, 5), mapped_part(1, 5, 5, 0, uimm::<8>), mapped_part(1, 16, 3, 5, uimm::<8>)]);
                /// Lane i of d = lane j of n (INS element).
                ins_d:      "mov {d}.d[{i}], {n}.d[{j}]"         (d: Vn, i: Lane, n: Vn, j: Lane) []
                    => enc(0x6e000400, &[fld(0, 0, 5), mapped(1, 16, 5, d_imm5), fld(2, 5, 5), mapped(3, 11, 4, d_imm4)]);
                /// Lane i of d = general register n (INS general).
                ins_d_x:    "mov {d}.d[{i}], {n}"                (d: Vn, i: Lane, n: Xn) []
                    => enc(0x4e001c00, &[fld(0, 0, 5), mapped(1, 16, 5, d_imm5), fld(2, 5, 5)]);
                /// General register d = lane i of n (UMOV).
                umov_d:     "mov {d}, {n}.d[{i}]"                (d: Xn, n: Vn, i: Lane) []
                    => enc(0x4e003c00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 5, d_imm5)]);

                // --- crypto extensions ------------------------------------------------------------------------------------
                /// Carry-less product of the low 64-bit lanes: `d = n.d[0] * m.d[0]`.
                pmull:      "pmull {d}.1q, {n}.1d, {m}.1d"       (d: Vn, n: Vn, m: Vn) [Pmull]
                    => enc(0x0ee0e000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Carry-less product of the high 64-bit lanes: `d = n.d[1] * m.d[1]`.
                pmull2:     "pmull2 {d}.1q, {n}.2d, {m}.2d"      (d: Vn, n: Vn, m: Vn) [Pmull]
                    => enc(0x4ee0e000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// One AES round's AddRoundKey, SubBytes and ShiftRows.
                aese:       "aese {d}.16b, {n}.16b"              (d: Vn, n: Vn) [Aes]
                    => enc(0x4e284800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// One AES decryption round's AddRoundKey, InvSubBytes and InvShiftRows.
                aesd:       "aesd {d}.16b, {n}.16b"              (d: Vn, n: Vn) [Aes]
                    => enc(0x4e285800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// AES MixColumns.
                aesmc:      "aesmc {d}.16b, {n}.16b"             (d: Vn, n: Vn) [Aes]
                    => enc(0x4e286800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// AES InvMixColumns.
                aesimc:     "aesimc {d}.16b, {n}.16b"            (d: Vn, n: Vn) [Aes]
                    => enc(0x4e287800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `d = n ^ m ^ a`.
                eor3:       "eor3 {d}.16b, {n}.16b, {m}.16b, {a}.16b" (d: Vn, n: Vn, m: Vn, a: Vn) [Sha3]
                    => enc(0xce000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), fld(3, 10, 5)]);
                /// `d = n ^ (m & !a)`.
                bcax:       "bcax {d}.16b, {n}.16b, {m}.16b, {a}.16b" (d: Vn, n: Vn, m: Vn, a: Vn) [Sha3]
                    => enc(0xce200000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), fld(3, 10, 5)]);
                /// Four SM4 rounds on state d with round keys n.
                sm4e:       "sm4e {d}.4s, {n}.4s"                (d: Vn, n: Vn) [Sm4]
                    => enc(0xcec08400, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Four SM4 key-expansion steps from keys n and constants m.
                sm4ekey:    "sm4ekey {d}.4s, {n}.4s, {m}.4s"     (d: Vn, n: Vn, m: Vn) [Sm4]
                    => enc(0xce60c800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Four SHA-256 rounds, first half: d holds (a, b, c, d), n (e, f, g, h), m the four `W + K` words; d
                /// becomes the new (a, b, c, d).
                sha256h:    "sha256h {d}, {n}, {m}.4s"           (d: Qn, n: Qn, m: Vn) [Sha2]
                    => enc(0x5e004000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Four SHA-256 rounds, second half: d holds (e, f, g, h), n the (a, b, c, d) from before `sha256h`;
                /// d becomes the new (e, f, g, h).
                sha256h2:   "sha256h2 {d}, {n}, {m}.4s"          (d: Qn, n: Qn, m: Vn) [Sha2]
                    => enc(0x5e005000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// SHA-256 message schedule, first part: `d.s[i] += sigma0` of the next word (from d, then n).
                sha256su0:  "sha256su0 {d}.4s, {n}.4s"           (d: Vn, n: Vn) [Sha2]
                    => enc(0x5e282800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// SHA-256 message schedule, second part: the next four words from d (su0's), n and m.
                sha256su1:  "sha256su1 {d}.4s, {n}.4s, {m}.4s"   (d: Vn, n: Vn, m: Vn) [Sha2]
                    => enc(0x5e006000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Two SHA-512 rounds, first part (Sigma1, Ch): d holds the two `W + K` words on entry.
                sha512h:    "sha512h {d}, {n}, {m}.2d"           (d: Qn, n: Qn, m: Vn) [Sha512]
                    => enc(0xce608000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Two SHA-512 rounds, second part (Sigma0, Maj).
                sha512h2:   "sha512h2 {d}, {n}, {m}.2d"          (d: Qn, n: Qn, m: Vn) [Sha512]
                    => enc(0xce608400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// SHA-512 message schedule, first part: `d.d[i] += sigma0` of the next word (from d, then n).
                sha512su0:  "sha512su0 {d}.2d, {n}.2d"           (d: Vn, n: Vn) [Sha512]
                    => enc(0xcec08000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// SHA-512 message schedule, second part: `d.d[i] += sigma1(n.d[i]) + m.d[i]`.
                sha512su1:  "sha512su1 {d}.2d, {n}.2d, {m}.2d"   (d: Vn, n: Vn, m: Vn) [Sha512]
                    => enc(0xce608800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Four SHA-1 rounds with Ch: d holds (a, b, c, d), n the `e` word, m the four `W + K` words; d
                /// becomes the new (a, b, c, d).
                sha1c:      "sha1c {d}, {n}, {m}.4s"             (d: Qn, n: Sn, m: Vn) [Sha1]
                    => enc(0x5e000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Four SHA-1 rounds with Parity (as `sha1c`).
                sha1p:      "sha1p {d}, {n}, {m}.4s"             (d: Qn, n: Sn, m: Vn) [Sha1]
                    => enc(0x5e001000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Four SHA-1 rounds with Maj (as `sha1c`).
                sha1m:      "sha1m {d}, {n}, {m}.4s"             (d: Qn, n: Sn, m: Vn) [Sha1]
                    => enc(0x5e002000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// SHA-1 fixed rotate: `d = n rotated left by 30` (the next `e`).
                sha1h:      "sha1h {d}, {n}"                     (d: Sn, n: Sn) [Sha1]
                    => enc(0x5e280800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// SHA-1 message schedule, first part: `d = (d.s[2], d.s[3], n.s[0], n.s[1]) ^ d ^ m`.
                sha1su0:    "sha1su0 {d}.4s, {n}.4s, {m}.4s"     (d: Vn, n: Vn, m: Vn) [Sha1]
                    => enc(0x5e003000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// SHA-1 message schedule, second part: the next four words from d (su0's) and n.
                sha1su1:    "sha1su1 {d}.4s, {n}.4s"             (d: Vn, n: Vn) [Sha1]
                    => enc(0x5e281800, &[fld(0, 0, 5), fld(1, 5, 5)]);

                // --- general-purpose, 64-bit: logical, shifted-register and bit operations ----------------------------
                /// `d = n ^ m`.
                eor:        "eor {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) []
                    => enc(0xca000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n & m`.
                and:        "and {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) []
                    => enc(0x8a000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n | m`.
                orr:        "orr {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) []
                    => enc(0xaa000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n & !m`.
                bic:        "bic {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) []
                    => enc(0x8a200000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n ^ (m rotated right by s)`, s in 0..=63.
                eor_ror:    "eor {d}, {n}, {m}, ror #{s}"        (d: Xn, n: Xn, m: Xn, s: Shift) []
                    => enc(0xcac00000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 6, shift64)]);
                /// `d = n ^ (m >> s)`, s in 0..=63.
                eor_lsr:    "eor {d}, {n}, {m}, lsr #{s}"        (d: Xn, n: Xn, m: Xn, s: Shift) []
                    => enc(0xca400000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 6, shift64)]);
                /// `d = n + (m >> s)`, s in 0..=63.
                add_lsr:    "add {d}, {n}, {m}, lsr #{s}"        (d: Xn, n: Xn, m: Xn, s: Shift) []
                    => enc(0x8b400000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 6, shift64)]);
                /// `d = n | (m << s)`, s in 0..=63.
                orr_lsl:    "orr {d}, {n}, {m}, lsl #{s}"        (d: Xn, n: Xn, m: Xn, s: Shift) []
                    => enc(0xaa000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 6, shift64)]);
                /// `d = n + (m << s)`, the flags set (C the carry out).
                adds_lsl:   "adds {d}, {n}, {m}, lsl #{s}"       (d: Xn, n: Xn, m: Xn, s: Shift) []
                    => enc(0xab000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 6, shift64)]);
                /// `d = n & imm` (a logical immediate; d may be `sp`).
                and_imm:    "and {d}, {n}, #{imm}"               (d: XnSp, n: Xn, imm: BitImm64) []
                    => enc(0x92000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 13, bitmask64)]);
                /// `d = n | imm` (a logical immediate; d may be `sp`; with n = `xzr`, a move of the pattern).
                orr_imm:    "orr {d}, {n}, #{imm}"               (d: XnSp, n: Xn, imm: BitImm64) []
                    => enc(0xb2000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 13, bitmask64)]);
                /// `d = n + (m << s)`, s in 0..=4, with `sp` admitted as d and n (the extended-register form, UXTX;
                /// objdump spells it `lsl` where sp is an operand).
                add_ext:    "add {d}, {n}, {m}, uxtx #{s}"       (d: XnSp, n: XnSp, m: Xn, s: ExtShift) []
                    => enc(0x8b206000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 3, ext_shift)]);
                /// `d = n - (m << s)`, s in 0..=4, with `sp` admitted as d and n (extended register, UXTX).
                sub_ext:    "sub {d}, {n}, {m}, uxtx #{s}"       (d: XnSp, n: XnSp, m: Xn, s: ExtShift) []
                    => enc(0xcb206000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 3, ext_shift)]);
                /// `d = n ^ imm` (a logical immediate; d may be `sp`).
                eor_imm:    "eor {d}, {n}, #{imm}"               (d: XnSp, n: Xn, imm: BitImm64) []
                    => enc(0xd2000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 13, bitmask64)]);
                /// Flags of `n & imm` (ANDS to xzr): N the top bit, Z whether zero, C and V clear.
                tst_imm:    "tst {n}, #{imm}"                    (n: Xn, imm: BitImm64) []
                    => enc(0xf200001f, &[fld(0, 5, 5), mapped(1, 10, 13, bitmask64)]);
                /// `d = n << (m mod 64)` (LSLV).
                lsl_reg:    "lsl {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9ac02000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n >> (m mod 64)` (LSRV).
                lsr_reg:    "lsr {d}, {n}, {m}"                  (d: Xn, n: Xn, m: Xn) []
                    => enc(0x9ac02400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Byte reversal of each 32-bit half.
                rev32_x:    "rev32 {d}, {n}"                     (d: Xn, n: Xn) []
                    => enc(0xdac00800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Bit reversal of a 64-bit register.
                rbit:       "rbit {d}, {n}"                      (d: Xn, n: Xn) []
                    => enc(0xdac00000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Count of leading zero bits (64 for zero).
                clz:        "clz {d}, {n}"                       (d: Xn, n: Xn) []
                    => enc(0xdac01000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `d = !m` (ORN with xzr).
                mvn:        "mvn {d}, {m}"                       (d: Xn, m: Xn) []
                    => enc(0xaa2003e0, &[fld(0, 0, 5), fld(1, 16, 5)]);
                /// `d = -m` (SUB from xzr).
                neg:        "neg {d}, {m}"                       (d: Xn, m: Xn) []
                    => enc(0xcb0003e0, &[fld(0, 0, 5), fld(1, 16, 5)]);
                /// `d = -m - !C` (SBC from xzr).
                ngc:        "ngc {d}, {m}"                       (d: Xn, m: Xn) []
                    => enc(0xda0003e0, &[fld(0, 0, 5), fld(1, 16, 5)]);
                /// Flags of `n + m` (ADDS to xzr).
                cmn:        "cmn {n}, {m}"                       (n: Xn, m: Xn) []
                    => enc(0xab00001f, &[fld(0, 5, 5), fld(1, 16, 5)]);
                /// Move the complement of a 16-bit immediate (MOVN, no shift): `d = !imm`.
                movn:       "movn {d}, #{imm}"                   (d: Xn, imm: Imm12) []
                    => enc(0x92800000, &[fld(0, 0, 5), mapped(1, 5, 16, uimm::<16>)]);
                /// `d = 1` if equal (Z set), else 0 (CSINC from xzr on the inverse condition).
                cset_eq:    "cset {d}, eq"                       (d: Xn) []
                    => enc(0x9a9f17e0, &[fld(0, 0, 5)]);
                /// `d = 1` if not equal (Z clear), else 0.
                cset_ne:    "cset {d}, ne"                       (d: Xn) []
                    => enc(0x9a9f07e0, &[fld(0, 0, 5)]);
                /// `d = 1` if unsigned higher or same (C set), else 0.
                cset_hs:    "cset {d}, hs"                       (d: Xn) []
                    => enc(0x9a9f37e0, &[fld(0, 0, 5)]);
                /// `d = 1` if unsigned lower (C clear), else 0.
                cset_lo:    "cset {d}, lo"                       (d: Xn) []
                    => enc(0x9a9f27e0, &[fld(0, 0, 5)]);
                /// `d = !0` if equal (Z set), else 0 (CSINV from xzr on the inverse condition).
                csetm_eq:   "csetm {d}, eq"                      (d: Xn) []
                    => enc(0xda9f13e0, &[fld(0, 0, 5)]);
                /// `d = !0` if not equal (Z clear), else 0.
                csetm_ne:   "csetm {d}, ne"                      (d: Xn) []
                    => enc(0xda9f03e0, &[fld(0, 0, 5)]);
                /// `d = !0` if unsigned higher or same (C set), else 0.
                csetm_hs:   "csetm {d}, hs"                      (d: Xn) []
                    => enc(0xda9f33e0, &[fld(0, 0, 5)]);
                /// `d = !0` if unsigned lower (C clear), else 0.
                csetm_lo:   "csetm {d}, lo"                      (d: Xn) []
                    => enc(0xda9f23e0, &[fld(0, 0, 5)]);

                // --- general-purpose, 32-bit: the entries take `Wn` (the kernel names X registers; a write zeroes the
                // upper half), so each is a method of its own (`add_w` beside `add`) ----------------------------------
                /// `d = n + m` (32-bit).
                add_w:      "add {d}, {n}, {m}"                  (d: Wn, n: Wn, m: Wn) []
                    => enc(0x0b000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n - m` (32-bit).
                sub_w:      "sub {d}, {n}, {m}"                  (d: Wn, n: Wn, m: Wn) []
                    => enc(0x4b000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n ^ m` (32-bit).
                eor_w:      "eor {d}, {n}, {m}"                  (d: Wn, n: Wn, m: Wn) []
                    => enc(0x4a000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n & m` (32-bit).
                and_w:      "and {d}, {n}, {m}"                  (d: Wn, n: Wn, m: Wn) []
                    => enc(0x0a000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n | m` (32-bit).
                orr_w:      "orr {d}, {n}, {m}"                  (d: Wn, n: Wn, m: Wn) []
                    => enc(0x2a000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = n & !m` (32-bit).
                bic_w:      "bic {d}, {n}, {m}"                  (d: Wn, n: Wn, m: Wn) []
                    => enc(0x0a200000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// 32-bit register move (ORR with wzr): `d = s` zero-extended.
                mov_w:      "mov {d}, {s}"                       (d: Wn, s: Wn) []
                    => enc(0x2a0003e0, &[fld(0, 0, 5), fld(1, 16, 5)]);
                /// `d = n ^ (m rotated right by s)` (32-bit), s in 0..=31.
                eor_w_ror:  "eor {d}, {n}, {m}, ror #{s}"        (d: Wn, n: Wn, m: Wn, s: Shift32) []
                    => enc(0x4ac00000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 5, shift32)]);
                /// `d = n ^ (m >> s)` (32-bit), s in 0..=31.
                eor_w_lsr:  "eor {d}, {n}, {m}, lsr #{s}"        (d: Wn, n: Wn, m: Wn, s: Shift32) []
                    => enc(0x4a400000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 5, shift32)]);
                /// Rotate right by an immediate, 0..=31 (32-bit EXTR with n as both sources).
                ror_w_imm:  "ror {d}, {n}, #{s}"                 (d: Wn, n: Wn, s: Shift32) []
                    => enc(0x13800000, &[fld(0, 0, 5), fld(1, 5, 5), fld(1, 16, 5), mapped(2, 10, 5, shift32)]);
                /// Logical shift right by an immediate, 0..=31 (32-bit UBFM).
                lsr_w:      "lsr {d}, {n}, #{s}"                 (d: Wn, n: Wn, s: Shift32) []
                    => enc(0x53007c00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 5, shift32)]);
                /// Shift left by an immediate, 0..=31 (32-bit UBFM).
                lsl_w:      "lsl {d}, {n}, #{s}"                 (d: Wn, n: Wn, s: Shift32) []
                    => enc(0x53000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 5, lsl32_immr), mapped(2, 10, 5, lsl32_imms)]);
                /// Byte reversal of a 32-bit register.
                rev_w:      "rev {d}, {n}"                       (d: Wn, n: Wn) []
                    => enc(0x5ac00800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `d = n + imm` (32-bit; `wsp` admitted), imm in 0..=4095.
                add_w_imm:  "add {d}, {n}, #{imm}"               (d: WnSp, n: WnSp, imm: Imm12) []
                    => enc(0x11000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uimm::<12>)]);
                /// `d = n - imm` (32-bit; `wsp` admitted), imm in 0..=4095.
                sub_w_imm:  "sub {d}, {n}, #{imm}"               (d: WnSp, n: WnSp, imm: Imm12) []
                    => enc(0x51000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uimm::<12>)]);
                /// Flags of the 32-bit `n - imm`.
                cmp_w_imm:  "cmp {n}, #{imm}"                    (n: WnSp, imm: Imm12) []
                    => enc(0x7100001f, &[fld(0, 5, 5), mapped(1, 10, 12, uimm::<12>)]);
                /// Flags of the 32-bit `n - m`.
                cmp_w:      "cmp {n}, {m}"                       (n: Wn, m: Wn) []
                    => enc(0x6b00001f, &[fld(0, 5, 5), fld(1, 16, 5)]);
                /// Move a 16-bit immediate into a 32-bit register (MOVZ, no shift).
                movz_w:     "movz {d}, #{imm}"                   (d: Wn, imm: Imm12) []
                    => enc(0x52800000, &[fld(0, 0, 5), mapped(1, 5, 16, uimm::<16>)]);
                /// Replace 16 bits of a 32-bit register: bits `s..s+16` of d = imm (s 0 or 16), the rest kept.
                movk_w:     "movk {d}, #{imm}, lsl #{s}"         (d: Wn, imm: Imm12, s: MovShift) []
                    => enc(0x72800000, &[fld(0, 0, 5), mapped(1, 5, 16, uimm::<16>), mapped(2, 21, 1, hw32)]);
                /// Branch if the 32-bit register is zero.
                cbz_w:      "cbz {r}, {t}"                       (r: Wn, t: Target) []
                    => label(0x34000000, &[fld(0, 0, 5), mapped(1, 5, 19, branch::<19>)], 1, LabelValue::Offset);
                /// Branch if the 32-bit register is not zero.
                cbnz_w:     "cbnz {r}, {t}"                      (r: Wn, t: Target) []
                    => label(0x35000000, &[fld(0, 0, 5), mapped(1, 5, 19, branch::<19>)], 1, LabelValue::Offset);
                /// Branch if bit b (0..=31) of the 32-bit register is zero (within 32 KiB).
                tbz_w:      "tbz {r}, #{b}, {t}"                 (r: Wn, b: Bit32, t: Target) []
                    => label(0x36000000, &[fld(0, 0, 5), mapped(1, 19, 5, bit32), mapped(2, 5, 14, branch::<14>)], 2, LabelValue::Offset);
                /// Branch if bit b (0..=31) of the 32-bit register is one (within 32 KiB).
                tbnz_w:     "tbnz {r}, #{b}, {t}"                (r: Wn, b: Bit32, t: Target) []
                    => label(0x37000000, &[fld(0, 0, 5), mapped(1, 19, 5, bit32), mapped(2, 5, 14, branch::<14>)], 2, LabelValue::Offset);

                // --- general-purpose loads and stores: 32-bit, byte, register offset, pre/post-index, unscaled ------------
                /// Load 32 bits, zero-extended: `t = [n + off]`, off a multiple of 4 in 0..=16380.
                ldr_w:      "ldr {t}, [{n}, #{off}]"             (t: Wn, n: XnSp, off: UOff4) []
                    => enc(0xb9400000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<4>)]);
                /// Store the low 32 bits of t: `[n + off] = t`.
                str_w:      "str {t}, [{n}, #{off}]"             (t: Wn, n: XnSp, off: UOff4) []
                    => enc(0xb9000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<4>)]);
                /// Load 32 bits with post-index writeback: `t = [n]; n += off`.
                ldr_w_post: "ldr {t}, [{n}], #{off}"             (t: Wn, n: XnSp, off: SOff) []
                    => enc(0xb8400400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                /// Load two 32-bit words: `a = [n + off]; b = [n + off + 4]`, off a multiple of 4 in -256..=252.
                ldp_w:      "ldp {a}, {b}, [{n}, #{off}]"        (a: Wn, b: Wn, n: XnSp, off: SOff) []
                    => enc(0x29400000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<4, 7>)]);
                /// `ldp_w` at n, then `n += off`.
                ldp_w_post: "ldp {a}, {b}, [{n}], #{off}"        (a: Wn, b: Wn, n: XnSp, off: SOff) []
                    => enc(0x28c00000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<4, 7>)]);
                /// Store two 32-bit words: `[n + off] = a; [n + off + 4] = b`.
                stp_w:      "stp {a}, {b}, [{n}, #{off}]"        (a: Wn, b: Wn, n: XnSp, off: SOff) []
                    => enc(0x29000000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<4, 7>)]);
                /// Load 64 bits from a register offset: `t = [n + m]`.
                ldr_x_reg:  "ldr {t}, [{n}, {m}]"                (t: Xn, n: XnSp, m: Xn) []
                    => enc(0xf8606800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Load a byte from a register offset, zero-extended: `t = [n + m]`.
                ldrb_reg:   "ldrb {t}, [{n}, {m}]"               (t: Wn, n: XnSp, m: Xn) []
                    => enc(0x38606800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Store the low byte of t at a register offset: `[n + m] = t`.
                strb_reg:   "strb {t}, [{n}, {m}]"               (t: Wn, n: XnSp, m: Xn) []
                    => enc(0x38206800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Load a byte with pre-index writeback: `n += off; t = [n]`.
                ldrb_pre:   "ldrb {t}, [{n}, #{off}]!"           (t: Wn, n: XnSp, off: SOff) []
                    => enc(0x38400c00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                /// Load a byte with post-index writeback: `t = [n]; n += off`.
                ldrb_post:  "ldrb {t}, [{n}], #{off}"            (t: Wn, n: XnSp, off: SOff) []
                    => enc(0x38400400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                /// Store a byte with pre-index writeback: `n += off; [n] = t`.
                strb_pre:   "strb {t}, [{n}, #{off}]!"           (t: Wn, n: XnSp, off: SOff) []
                    => enc(0x38000c00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                /// Store a byte with post-index writeback: `[n] = t; n += off`.
                strb_post:  "strb {t}, [{n}], #{off}"            (t: Wn, n: XnSp, off: SOff) []
                    => enc(0x38000400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                /// Load with pre-index writeback: `n += off; t = [n]`.
                ldr_x_pre:  "ldr {t}, [{n}, #{off}]!"            (t: Xn, n: XnSp, off: SOff) []
                    => enc(0xf8400c00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                /// Store with post-index writeback: `[n] = t; n += off`.
                str_x_post: "str {t}, [{n}], #{off}"             (t: Xn, n: XnSp, off: SOff) [] as str_post
                    => enc(0xf8000400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                /// Store a pair with post-index writeback: `[n] = a; [n + 8] = b; n += off`.
                stp_x_post: "stp {a}, {b}, [{n}], #{off}"        (a: Xn, b: Xn, n: XnSp, off: SOff) []
                    => enc(0xa8800000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                /// Store a pair of d registers with post-index writeback.
                stp_d_post: "stp {a}, {b}, [{n}], #{off}"        (a: Dn, b: Dn, n: XnSp, off: SOff) []
                    => enc(0x6c800000, &[fld(0, 0, 5), fld(1, 10, 5), fld(2, 5, 5), mapped(3, 15, 7, sscaled::<8, 7>)]);
                /// Load from an unscaled signed offset: `t = [n + off]`, off in -256..=255.
                ldur_x:     "ldur {t}, [{n}, #{off}]"            (t: Xn, n: XnSp, off: SOff) []
                    => enc(0xf8400000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);
                /// Store at an unscaled signed offset: `[n + off] = t`, off in -256..=255.
                stur_x:     "stur {t}, [{n}, #{off}]"            (t: Xn, n: XnSp, off: SOff) []
                    => enc(0xf8000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 12, 9, sscaled::<1, 9>)]);

                // --- calls and hints: PAuth and BTI are in the hint space, NOPs on CPUs without them ---------------------
                /// Call: `x30 = ` the next instruction's address, then branch to the label (within 128 MiB). The
                /// interpreter does not model calls (it faults).
                bl:         "bl {t}"                             (t: Target) []
                    => label(0x94000000, &[mapped(0, 0, 26, branch::<26>)], 0, LabelValue::Offset);
                /// Call the address in n: `x30 = ` the next instruction's address. Not modelled by the interpreter.
                blr:        "blr {n}"                            (n: Xn) []
                    => enc(0xd63f0000, &[fld(0, 5, 5)]);
                /// Sign x30 with key A and sp as the modifier (FEAT_PAuth; a NOP without it, so no feature is
                /// required). The interpreter models it as the identity, as `autiasp`: a signed and authenticated x30
                /// is unchanged.
                paciasp:    "paciasp"                            () [] => enc(0xd503233f, &[]);
                /// Authenticate x30 signed by `paciasp` (FEAT_PAuth; a NOP without it). The identity in the
                /// interpreter.
                autiasp:    "autiasp"                            () [] => enc(0xd50323bf, &[]);
                /// Landing pad for indirect calls (FEAT_BTI; a NOP without it).
                bti_c:      "bti c"                              () [] => enc(0xd503245f, &[]);
                /// Landing pad for indirect jumps (FEAT_BTI; a NOP without it).
                bti_j:      "bti j"                              () [] => enc(0xd503249f, &[]);
                /// Landing pad for indirect calls and jumps (FEAT_BTI; a NOP without it).
                bti_jc:     "bti jc"                             () [] => enc(0xd50324df, &[]);
                /// Branch if signed greater or equal (N equals V).
                b_ge:       "b.ge {t}"                           (t: Target) []
                    => label(0x5400000a, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Branch if signed less than (N differs from V).
                b_lt:       "b.lt {t}"                           (t: Target) []
                    => label(0x5400000b, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Branch if signed greater than (Z clear and N equals V).
                b_gt:       "b.gt {t}"                           (t: Target) []
                    => label(0x5400000c, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Branch if signed less or equal (Z set or N differs from V).
                b_le:       "b.le {t}"                           (t: Target) []
                    => label(0x5400000d, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);

                // --- Advanced SIMD: other arrangements, lanes, FP moves -------------------------------------------------
                /// `d = n` as the low 64 bits of vector d, the upper half zeroed (FMOV from a general register).
                fmov_d_x:   "fmov {d}, {n}"                      (d: Dn, n: Xn) []
                    => enc(0x9e670000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// The upper 64-bit lane of d = n, the lower kept (FMOV to the top half).
                fmov_d1_x:  "fmov {d}.d[1], {n}"                 (d: Vn, n: Xn) []
                    => enc(0x9eaf0000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Polynomial (carry-less) multiply of the low 8 bytes: 16-bit lane i of d = `n.b[i] * m.b[i]`
                /// (base Advanced SIMD, no PMULL feature).
                pmull_8b:   "pmull {d}.8h, {n}.8b, {m}.8b"       (d: Vn, n: Vn, m: Vn) []
                    => enc(0x0e20e000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Bytes `imm..imm+7` of the 16-byte m:n (the low halves; n the low), the upper half zeroed.
                ext_8b:     "ext {d}.8b, {n}.8b, {m}.8b, #{imm}" (d: Vn, n: Vn, m: Vn, imm: Imm3) []
                    => enc(0x2e000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 11, 3, uimm::<3>)]);
                /// Logical shift right of each byte (1..8).
                ushr_16b:   "ushr {d}.16b, {n}.16b, #{s}"        (d: Vn, n: Vn, s: Shift8) []
                    => enc(0x6f000400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shr8)]);
                /// Arithmetic shift right of each 32-bit lane (1..32).
                sshr_4s:    "sshr {d}.4s, {n}.4s, #{s}"          (d: Vn, n: Vn, s: Shift32) []
                    => enc(0x4f000400, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 7, shr32)]);
                /// Lane-wise 32-bit subtraction.
                sub_4s:     "sub {d}.4s, {n}.4s, {m}.4s"         (d: Vn, n: Vn, m: Vn) []
                    => enc(0x6ea08400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Bitwise insert if true: `d = (d & !m) | (n & m)`.
                bit_16b:    "bit {d}.16b, {n}.16b, {m}.16b"      (d: Vn, n: Vn, m: Vn) []
                    => enc(0x6ea01c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = !n` (NOT).
                mvn_16b:    "mvn {d}.16b, {n}.16b"               (d: Vn, n: Vn) []
                    => enc(0x6e205800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `d = n ^ m` on the low 8 bytes, the upper half zeroed.
                eor_8b:     "eor {d}.8b, {n}.8b, {m}.8b"         (d: Vn, n: Vn, m: Vn) []
                    => enc(0x2e201c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Lane i of d = the 32-bit general register n (INS general).
                ins_s_w:    "mov {d}.s[{i}], {n}"                (d: Vn, i: LaneS, n: Wn) []
                    => enc(0x4e001c00, &[fld(0, 0, 5), mapped(1, 16, 5, s_imm5), fld(2, 5, 5)]);
                /// Byte lane i of d = the low byte of general register n (INS general).
                ins_b_w:    "mov {d}.b[{i}], {n}"                (d: Vn, i: LaneB, n: Wn) []
                    => enc(0x4e001c00, &[fld(0, 0, 5), mapped(1, 16, 5, b_imm5), fld(2, 5, 5)]);
                /// 32-bit lane i of d = lane j of n (INS element).
                ins_s:      "mov {d}.s[{i}], {n}.s[{j}]"         (d: Vn, i: LaneS, n: Vn, j: LaneS) []
                    => enc(0x6e000400, &[fld(0, 0, 5), mapped(1, 16, 5, s_imm5), fld(2, 5, 5), mapped(3, 11, 4, s_imm4)]);
                /// The four 32-bit lanes of d = the 32-bit general register n.
                dup_4s_w:   "dup {d}.4s, {n}"                    (d: Vn, n: Wn) []
                    => enc(0x4e040c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// General register d = byte lane i of n, zero-extended (UMOV).
                umov_b:     "umov {d}, {n}.b[{i}]"               (d: Wn, n: Vn, i: LaneB) []
                    => enc(0x0e003c00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 5, b_imm5)]);

                // --- vector loads and stores: other arrangements and register counts ----------------------------------
                // On little-endian the arrangement of a one-register `ld1`/`st1` changes nothing but the encoding.
                /// Load 16 bytes as two 64-bit lanes.
                ld1_2d:     "ld1 {{t}.2d}, [{n}]"                (t: Vn, n: XnSp) []
                    => enc(0x4c407c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `ld1_2d`, then `n += 16`.
                ld1_2d_post: "ld1 {{t}.2d}, [{n}], #16"          (t: Vn, n: XnSp) []
                    => enc(0x4cdf7c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 16 bytes as four 32-bit lanes.
                ld1_4s:     "ld1 {{t}.4s}, [{n}]"                (t: Vn, n: XnSp) []
                    => enc(0x4c407800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `ld1_4s`, then `n += 16`.
                ld1_4s_post: "ld1 {{t}.4s}, [{n}], #16"          (t: Vn, n: XnSp) []
                    => enc(0x4cdf7800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 8 bytes into the low half, the upper half zeroed.
                ld1_1d:     "ld1 {{t}.1d}, [{n}]"                (t: Vn, n: XnSp) []
                    => enc(0x0c407c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `ld1_1d`, then `n += 8`.
                ld1_1d_post: "ld1 {{t}.1d}, [{n}], #8"           (t: Vn, n: XnSp) []
                    => enc(0x0cdf7c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Store 16 bytes as two 64-bit lanes.
                st1_2d:     "st1 {{t}.2d}, [{n}]"                (t: Vn, n: XnSp) []
                    => enc(0x4c007c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Store 16 bytes as four 32-bit lanes, then `n += 16`.
                st1_4s_post: "st1 {{t}.4s}, [{n}], #16"          (t: Vn, n: XnSp) []
                    => enc(0x4c9f7800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 64 bytes into four consecutive registers.
                ld1_4x16b:  "ld1 {{l}}, [{n}]"                   (l: VList16b, n: XnSp) []
                    => enc(0x4c402000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 64 bytes into four consecutive registers (`.2d`).
                ld1_4x2d:   "ld1 {{l}}, [{n}]"                   (l: VList2d, n: XnSp) []
                    => enc(0x4c402c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `ld1_4x2d`, then `n += 64`.
                ld1_4x2d_post: "ld1 {{l}}, [{n}], #64"           (l: VList2d, n: XnSp) []
                    => enc(0x4cdf2c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 64 bytes into four consecutive registers (`.4s`).
                ld1_4x4s:   "ld1 {{l}}, [{n}]"                   (l: VList4s, n: XnSp) []
                    => enc(0x4c402800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Store four consecutive registers (64 bytes).
                st1_4x16b:  "st1 {{l}}, [{n}]"                   (l: VList16b, n: XnSp) []
                    => enc(0x4c002000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Store four consecutive registers (`.2d`).
                st1_4x2d:   "st1 {{l}}, [{n}]"                   (l: VList2d, n: XnSp) []
                    => enc(0x4c002c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `st1_4x2d`, then `n += 64`.
                st1_4x2d_post: "st1 {{l}}, [{n}], #64"           (l: VList2d, n: XnSp) []
                    => enc(0x4c9f2c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 32 bytes into two consecutive registers (`.2d`).
                ld1_2x2d:   "ld1 {{l}}, [{n}]"                   (l: VPair2d, n: XnSp) []
                    => enc(0x4c40ac00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// `ld1_2x2d`, then `n += 32`.
                ld1_2x2d_post: "ld1 {{l}}, [{n}], #32"           (l: VPair2d, n: XnSp) []
                    => enc(0x4cdfac00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 32 bytes into two consecutive registers (`.4s`).
                ld1_2x4s:   "ld1 {{l}}, [{n}]"                   (l: VPair4s, n: XnSp) []
                    => enc(0x4c40a800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 32 bytes into two consecutive registers (`.16b`), then `n += 32`.
                ld1_2x16b_post: "ld1 {{l}}, [{n}], #32"          (l: VPair16b, n: XnSp) []
                    => enc(0x4cdfa000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 48 bytes into three consecutive registers (`.16b`).
                ld1_3x16b:  "ld1 {{l}}, [{n}]"                   (l: VTriple16b, n: XnSp) []
                    => enc(0x4c406000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Store two consecutive registers (`.16b`), then `n += 32`.
                st1_2x16b_post: "st1 {{l}}, [{n}], #32"          (l: VPair16b, n: XnSp) []
                    => enc(0x4c9fa000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Store two consecutive registers (`.2d`).
                st1_2x2d:   "st1 {{l}}, [{n}]"                   (l: VPair2d, n: XnSp) []
                    => enc(0x4c00ac00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Store two consecutive registers (`.4s`).
                st1_2x4s:   "st1 {{l}}, [{n}]"                   (l: VPair4s, n: XnSp) []
                    => enc(0x4c00a800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 4 bytes into 32-bit lane i of t, the other lanes kept.
                ld1_s:      "ld1 {{t}.s}[{i}], [{n}]"            (t: Vn, i: LaneS, n: XnSp) []
                    => enc(0x0d408000, &[fld(0, 0, 5), mapped(1, 12, 1, s_lane), mapped_part(1, 30, 1, 1, s_lane), fld(2, 5, 5)]);
                /// Store 32-bit lane i of t (4 bytes).
                st1_s:      "st1 {{t}.s}[{i}], [{n}]"            (t: Vn, i: LaneS, n: XnSp) []
                    => enc(0x0d008000, &[fld(0, 0, 5), mapped(1, 12, 1, s_lane), mapped_part(1, 30, 1, 1, s_lane), fld(2, 5, 5)]);

                // --- general-purpose, 32-bit: register offset, shifted register, bit operations ------------------------
                /// Load a word, zero-extended: `t = [n + m]` (the whole x register).
                ldr_w_reg:  "ldr {t}, [{n}, {m}]"                (t: Wn, n: XnSp, m: Xn) []
                    => enc(0xb8606800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                and_w_lsr:  "and {d}, {n}, {m}, lsr #{s}"        (d: Wn, n: Wn, m: Wn, s: Shift32) []
                    => enc(0x0a400000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 5, shift32)]);
                and_w_lsl:  "and {d}, {n}, {m}, lsl #{s}"        (d: Wn, n: Wn, m: Wn, s: Shift32) []
                    => enc(0x0a000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 5, shift32)]);
                orr_w_ror:  "orr {d}, {n}, {m}, ror #{s}"        (d: Wn, n: Wn, m: Wn, s: Shift32) []
                    => enc(0x2ac00000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 5, shift32)]);
                add_w_lsl:  "add {d}, {n}, {m}, lsl #{s}"        (d: Wn, n: Wn, m: Wn, s: Shift32) []
                    => enc(0x0b000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 10, 5, shift32)]);
                /// Add with carry, 32-bit: `d = n + m + C`.
                adc_w:      "adc {d}, {n}, {m}"                  (d: Wn, n: Wn, m: Wn) []
                    => enc(0x1a000000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// Leading zero count of a 32-bit register.
                clz_w:      "clz {d}, {n}"                       (d: Wn, n: Wn) []
                    => enc(0x5ac01000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Bit reversal of a 32-bit register.
                rbit_w:     "rbit {d}, {n}"                      (d: Wn, n: Wn) []
                    => enc(0x5ac00000, &[fld(0, 0, 5), fld(1, 5, 5)]);

                // --- general-purpose, 64-bit: more conditions, shifted immediates ------------------------------------
                /// Branch if negative (N set).
                b_mi:       "b.mi {t}"                           (t: Target) []
                    => label(0x54000004, &[mapped(0, 5, 19, branch::<19>)], 0, LabelValue::Offset);
                /// Conditional increment: `d = n + 1` if unsigned lower (C clear), else `n` (CSINC n, n, hs).
                cinc_lo:    "cinc {d}, {n}, lo"                  (d: Xn, n: Xn) []
                    => enc(0x9a802400, &[fld(0, 0, 5), fld(1, 5, 5), fld(1, 16, 5)]);
                /// Add a 12-bit immediate shifted left by 12: `d = n + (imm << 12)`.
                add_imm_lsl12: "add {d}, {n}, #{imm}, lsl #12"   (d: XnSp, n: XnSp, imm: Imm12) []
                    => enc(0x91400000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uimm::<12>)]);
                /// Test bit and branch if nonzero, any bit 0..=63 of a 64-bit register.
                tbnz_x:     "tbnz {r}, #{b}, {t}"                (r: Xn, b: Shift, t: Target) []
                    => label(0x37000000, &[fld(0, 0, 5), mapped_part(1, 19, 5, 0, shift64), mapped_part(1, 31, 1, 5, shift64),
                                            mapped(2, 5, 14, branch::<14>)], 2, LabelValue::Offset);

                // --- barriers: ordering only, no effect on registers or memory values ---------------------------------
                /// Data synchronization barrier, full system.
                dsb_sy:     "dsb sy"                             () [] => enc(0xd5033f9f, &[]);
                /// Instruction synchronization barrier.
                isb:        "isb"                                () [] => enc(0xd5033fdf, &[]);

                // --- Advanced SIMD: more arrangements ------------------------------------------------------------------
                rev16_16b:  "rev16 {d}.16b, {n}.16b"             (d: Vn, n: Vn) []
                    => enc(0x4e201800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                rev32_8b:   "rev32 {d}.8b, {n}.8b"               (d: Vn, n: Vn) []
                    => enc(0x2e200800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                add_16b:    "add {d}.16b, {n}.16b, {m}.16b"      (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e208400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                add_8h:     "add {d}.8h, {n}.8h, {m}.8h"         (d: Vn, n: Vn, m: Vn) []
                    => enc(0x4e608400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                add_2s:     "add {d}.2s, {n}.2s, {m}.2s"         (d: Vn, n: Vn, m: Vn) []
                    => enc(0x0ea08400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                cmhi_4s:    "cmhi {d}.4s, {n}.4s, {m}.4s"        (d: Vn, n: Vn, m: Vn) []
                    => enc(0x6ea03400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// The sum of the four 32-bit lanes, into `sN`.
                addv_4s:    "addv {d}, {n}.4s"                   (d: Sn, n: Vn) []
                    => enc(0x4eb1b800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// An 8-bit immediate in every 16-bit lane (zero-extended).
                movi_8h:    "movi {d}.8h, #{imm}"                (d: Vn, imm: Imm8) []
                    => enc(0x4f008400, &[fld(0, 0, 5), mapped_part(1, 5, 5, 0, uimm::<8>), mapped_part(1, 16, 3, 5, uimm::<8>)]);
                /// Lane i of a `.s` element, zero-extended into a w register (UMOV).
                umov_s:     "mov {d}, {n}.s[{i}]"                (d: Wn, n: Vn, i: LaneS) []
                    => enc(0x0e003c00, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 16, 5, s_imm5)]);

                // --- vector and FP loads and stores: more lists and lanes ---------------------------------------------
                ldr_s:      "ldr {t}, [{n}, #{off}]"             (t: Sn, n: XnSp, off: UOff4) []
                    => enc(0xbd400000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<4>)]);
                str_s:      "str {t}, [{n}, #{off}]"             (t: Sn, n: XnSp, off: UOff4) []
                    => enc(0xbd000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 12, uscaled::<4>)]);
                ld1_2x16b:  "ld1 {{l}}, [{n}]"                   (l: VPair16b, n: XnSp) []
                    => enc(0x4c40a000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                st1_2x16b:  "st1 {{l}}, [{n}]"                   (l: VPair16b, n: XnSp) []
                    => enc(0x4c00a000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                ld1_3x16b_post: "ld1 {{l}}, [{n}], #48"          (l: VTriple16b, n: XnSp) []
                    => enc(0x4cdf6000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                st1_3x16b_post: "st1 {{l}}, [{n}], #48"          (l: VTriple16b, n: XnSp) []
                    => enc(0x4c9f6000, &[fld(0, 0, 5), fld(1, 5, 5)]);
                ld1_3x2d_post: "ld1 {{l}}, [{n}], #48"           (l: VTriple2d, n: XnSp) []
                    => enc(0x4cdf6c00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                st1_4s:     "st1 {{t}.4s}, [{n}]"                (t: Vn, n: XnSp) []
                    => enc(0x4c007800, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 8 bytes into both `.d` lanes.
                ld1r_2d:    "ld1r {{t}.2d}, [{n}]"               (t: Vn, n: XnSp) []
                    => enc(0x4d40cc00, &[fld(0, 0, 5), fld(1, 5, 5)]);
                /// Load 8 bytes into lane i of a `.d` element (the other lane kept).
                ld1_d:      "ld1 {{t}.d}[{i}], [{n}]"            (t: Vn, i: Lane, n: XnSp) []
                    => enc(0x0d408400, &[fld(0, 0, 5), mapped(1, 30, 1, lane_d), fld(2, 5, 5)]);
                /// Store with a register post-index: `[n] = t; n += m`.
                st1_16b_reg_post: "st1 {{t}.16b}, [{n}], {m}"    (t: Vn, n: XnSp, m: Xm) []
                    => enc(0x4c807000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// `d = imm << s` (MOVZ; GNU as and objdump write `mov` with the shifted value).
                movz_lsl:   "movz {d}, #{imm}, lsl #{s}"         (d: Xn, imm: Imm12, s: MovShift) []
                    => enc(0xd2800000, &[fld(0, 0, 5), mapped(1, 5, 16, uimm::<16>), mapped(2, 21, 2, hw64)]);
                /// `d = imm << s`, 32-bit (s is 0 or 16).
                movz_w_lsl: "movz {d}, #{imm}, lsl #{s}"         (d: Wn, imm: Imm12, s: MovShift) []
                    => enc(0x52800000, &[fld(0, 0, 5), mapped(1, 5, 16, uimm::<16>), mapped(2, 21, 1, hw32)]);
                /// `d = n & imm`, a 32-bit logical immediate.
                and_w_imm:  "and {d}, {n}, #{imm}"               (d: WnSp, n: Wn, imm: BitImm32) []
                    => enc(0x12000000, &[fld(0, 0, 5), fld(1, 5, 5), mapped(2, 10, 13, bitmask32)]);

                // --- SM3 (FEAT_SM3): the state is four 32-bit words, the top lane the newest ------------------------
                /// `d.s[3] = rol(rol(n.s[3], 12) + m.s[3] + a.s[3], 7)`, lanes 0..2 zero.
                sm3ss1:     "sm3ss1 {d}.4s, {n}.4s, {m}.4s, {a}.4s" (d: Vn, n: Vn, m: Vn, a: Vn) [Sm3]
                    => enc(0xce400000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), fld(3, 10, 5)]);
                /// TT1 of a round 0..15 (XOR of the state words), with W' from lane i of m.
                sm3tt1a:    "sm3tt1a {d}.4s, {n}.4s, {m}.s[{i}]" (d: Vn, n: Vn, m: Vn, i: LaneS) [Sm3]
                    => enc(0xce408000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 12, 2, lane_s)]);
                /// TT1 of a round 16..63 (majority of the state words), with W' from lane i of m.
                sm3tt1b:    "sm3tt1b {d}.4s, {n}.4s, {m}.s[{i}]" (d: Vn, n: Vn, m: Vn, i: LaneS) [Sm3]
                    => enc(0xce408400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 12, 2, lane_s)]);
                /// TT2 of a round 0..15 (XOR of the state words), with W from lane i of m.
                sm3tt2a:    "sm3tt2a {d}.4s, {n}.4s, {m}.s[{i}]" (d: Vn, n: Vn, m: Vn, i: LaneS) [Sm3]
                    => enc(0xce408800, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 12, 2, lane_s)]);
                /// TT2 of a round 16..63 (choice of the state words), with W from lane i of m.
                sm3tt2b:    "sm3tt2b {d}.4s, {n}.4s, {m}.s[{i}]" (d: Vn, n: Vn, m: Vn, i: LaneS) [Sm3]
                    => enc(0xce408c00, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5), mapped(3, 12, 2, lane_s)]);
                /// The first half of the message expansion of four words.
                sm3partw1:  "sm3partw1 {d}.4s, {n}.4s, {m}.4s"   (d: Vn, n: Vn, m: Vn) [Sm3]
                    => enc(0xce60c000, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
                /// The second half of the message expansion of four words.
                sm3partw2:  "sm3partw2 {d}.4s, {n}.4s, {m}.4s"   (d: Vn, n: Vn, m: Vn) [Sm3]
                    => enc(0xce60c400, &[fld(0, 0, 5), fld(1, 5, 5), fld(2, 16, 5)]);
        }
    };
}

pub(crate) use aarch64_table;

aarch64_table!(define_isa);

/// What is wrong with a register operand out of its class.
#[cold]
#[inline(never)]
fn register_error(o: &Operand) -> String {
    match o {
        Operand::X(n) | Operand::W(n) => {
            format!("x{n} is not a general-purpose register: x0..=x30 (sp and xzr are SP and XZR)")
        }
        _ => match o.vector() {
            Some(n) => format!("v{n} is not a vector register: v0..=v31"),
            None => format!("{o:?} is not a register"),
        },
    }
}

/// The general-purpose registers' names (31: `sp`).
pub const XNAMES: [&str; 32] = [
    "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17",
    "x18", "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp",
];

impl InstructionSet for Aarch64 {
    const ARCH: Arch = Arch::Aarch64;
    type Op = Op;
    type Operand = Operand;
    type Reg = Reg;
    type Gpr = X;
    type Feature = A64Feature;
    type Encoding = super::fixed::Encoding;

    fn info(op: Op) -> &'static OpInfo<A64Feature> {
        &OPS[op as usize]
    }
    fn ops() -> &'static [OpInfo<A64Feature>] {
        OPS
    }
    fn regs(o: &Operand, out: &mut Vec<Reg>) {
        match o {
            Operand::X(n) => out.push(Reg::X(*n)),
            Operand::Sp | Operand::Wsp => out.push(Reg::X(31)),
            Operand::W(n) => out.push(Reg::X(*n)),
            Operand::V(n) | Operand::Q(n) | Operand::D(n) | Operand::S(n) => out.push(Reg::V(*n)),
            Operand::List4(n, _) => out.extend((0..4).map(|k| Reg::V((n + k) % 32))),
            Operand::List3(n, _) => out.extend((0..3).map(|k| Reg::V((n + k) % 32))),
            Operand::List2(n, _) => out.extend((0..2).map(|k| Reg::V((n + k) % 32))),
            Operand::Xzr | Operand::Wzr | Operand::Imm(_) | Operand::Label(_) => {}
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
            Operand::X(n) => {
                XNAMES.get(*n as usize).filter(|_| *n < 31).map_or_else(|| format!("x{n}"), |x| x.to_string())
            }
            Operand::Sp => "sp".into(),
            Operand::Xzr => "xzr".into(),
            Operand::Wzr => "wzr".into(),
            Operand::Wsp => "wsp".into(),
            Operand::W(n) => format!("w{n}"),
            Operand::V(n) => format!("v{n}"),
            Operand::Q(n) => format!("q{n}"),
            Operand::D(n) => format!("d{n}"),
            Operand::S(n) => format!("s{n}"),
            Operand::Imm(i) => i.to_string(),
            Operand::Label(l) => ctx.label(l),
            Operand::List4(n, arr) => (0..4).map(|k| format!("v{}.{arr}", (n + k) % 32)).collect::<Vec<_>>().join(", "),
            Operand::List3(n, arr) => (0..3).map(|k| format!("v{}.{arr}", (n + k) % 32)).collect::<Vec<_>>().join(", "),
            Operand::List2(n, arr) => format!("v{n}.{arr}, v{}.{arr}", (n + 1) % 32),
        }
    }
    fn operand_value(o: &Operand) -> Option<i64> {
        match o {
            Operand::X(n)
            | Operand::W(n)
            | Operand::V(n)
            | Operand::Q(n)
            | Operand::D(n)
            | Operand::S(n)
            | Operand::List4(n, _)
            | Operand::List3(n, _)
            | Operand::List2(n, _) => Some(*n as i64),
            Operand::Sp | Operand::Xzr | Operand::Wzr | Operand::Wsp => Some(31),
            Operand::Imm(i) => Some(*i),
            Operand::Label(_) => None,
        }
    }
    /// Register numbers in their class (x0..=x30: 31 is `sp` or `xzr`, which are operands of their own;
    /// v0..=v31), then every immediate through the entry's fields ([`super::fixed::Encoding::check`]):
    /// immediates, shifts per element size, lanes, scaled offsets.
    #[inline]
    fn check_operands(op: Op, operands: &[Operand]) -> Result<(), String> {
        let in_class = |o: &Operand| match *o {
            Operand::X(n) => n <= 30,
            Operand::W(n) => n <= 30,
            Operand::V(n)
            | Operand::Q(n)
            | Operand::D(n)
            | Operand::S(n)
            | Operand::List4(n, _)
            | Operand::List3(n, _)
            | Operand::List2(n, _) => n <= 31,
            _ => true,
        };
        if let Some(o) = operands.iter().find(|o| !in_class(o)) {
            return Err(register_error(o));
        }
        // Registers in their class fit their 5-bit fields (`gen/tests/operand_errors.rs` holds every entry to
        // that): only immediates go through the fields.
        super::check_fixed_fields(&OPS[op as usize], operands, |o| match o {
            Operand::Imm(i) => Some(*i),
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
