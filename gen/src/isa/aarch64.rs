//! aarch64: registers, operand kinds, features and the instruction table. (Skeleton: being filled in.)

use super::fixed::{enc, fld};
use super::{Isa, OpInfo, PrintCtx};
use crate::define_isa;
use crate::ir::{Frame, Item, Label};
use crate::target::{Abi, Arch};

crate::define_features! {
    /// aarch64 ISA extensions beyond ARMv8.0-A with Advanced SIMD.
    A64Feature {
        /// PMULL/PMULL2 on 64-bit lanes (FEAT_PMULL).
        Pmull = "pmull",
    }
}

/// A 64-bit general-purpose register x0..x30.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct X(pub u8);

/// A physical register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reg {
    /// x0..x30 (31 is sp).
    X(u8),
    /// v0..v31.
    V(u8),
}

/// An operand as stored in the IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// General-purpose register.
    X(u8),
}

/// Operand kind: a general-purpose register.
#[derive(Clone, Debug)]
pub struct Xr(Operand);
impl From<X> for Xr {
    fn from(x: X) -> Self {
        Xr(Operand::X(x.0))
    }
}
impl From<Xr> for Operand {
    fn from(k: Xr) -> Operand {
        k.0
    }
}

/// The aarch64 ISA.
pub struct Aarch64;

define_isa! {
    isa: Aarch64, feature: A64Feature;
    ret: "ret" () [] => enc(0xd65f03c0, &[]);
    mov: "mov {d}, {s}" (d: Xr, s: Xr) [] => enc(0xaa0003e0, &[fld(0, 0, 5), fld(1, 16, 5)]);
}

impl Isa for Aarch64 {
    const ARCH: Arch = Arch::Aarch64;
    type Op = Op;
    type Operand = Operand;
    type Reg = Reg;
    type Feature = A64Feature;
    const TYPE_PREFIX: &'static str = "%";

    fn info(op: Op) -> &'static OpInfo<A64Feature> {
        &OPS[op as usize]
    }
    fn ops() -> &'static [OpInfo<A64Feature>] {
        OPS
    }
    fn regs(o: &Operand, out: &mut Vec<Reg>) {
        match o {
            Operand::X(n) => out.push(Reg::X(*n)),
        }
    }
    fn label(_o: &Operand) -> Option<&Label> {
        None
    }
    fn print_operand(o: &Operand, _ctx: &PrintCtx) -> String {
        match o {
            Operand::X(n) => format!("x{n}"),
        }
    }
    fn operand_value(o: &Operand) -> Option<i64> {
        match o {
            Operand::X(n) => Some(*n as i64),
        }
    }
    fn reg_name(r: Reg) -> String {
        match r {
            Reg::X(n) => format!("x{n}"),
            Reg::V(n) => format!("v{n}"),
        }
    }
    fn arg_regs(_abi: Abi) -> &'static [Reg] {
        &[
            Reg::X(0),
            Reg::X(1),
            Reg::X(2),
            Reg::X(3),
            Reg::X(4),
            Reg::X(5),
            Reg::X(6),
            Reg::X(7),
        ]
    }
    fn callee_saved(_abi: Abi, r: Reg) -> bool {
        matches!(r, Reg::X(19..=29) | Reg::V(8..=15))
    }
    fn is_stack_pointer(r: Reg) -> bool {
        r == Reg::X(31)
    }
    fn prologue_epilogue(_abi: Abi, _frame: &Frame<Self>) -> (Vec<Item<Self>>, Vec<Item<Self>>) {
        (
            vec![],
            vec![Item::Inst(crate::ir::Inst {
                op: Op::ret,
                operands: vec![],
            })],
        )
    }
    fn landing_pad() -> Option<(&'static str, &'static str)> {
        Some(("hint #34", "bti c: indirect-branch landing pad (BTI)"))
    }
    fn gnu_property() -> Option<(u32, u32)> {
        // GNU_PROPERTY_AARCH64_FEATURE_1_AND: BTI (1) | PAC (2).
        Some((0xc000_0000, 3))
    }
    fn preamble(_f: super::FeatureSet<A64Feature>) -> Vec<String> {
        vec![".arch armv8.2-a+crypto+sm4+sha3".into()]
    }
}
