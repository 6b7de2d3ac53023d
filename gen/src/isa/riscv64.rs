//! riscv64: registers, operand kinds, features and the instruction table. (Skeleton: being filled in.)

use super::fixed::{enc, fld};
use super::{Isa, OpInfo, PrintCtx};
use crate::define_isa;
use crate::ir::{Frame, Item, Label};
use crate::target::{Abi, Arch};

crate::define_features! {
    /// aarch64 ISA extensions beyond ARMv8.0-A with Advanced SIMD.
    RvFeature {
        /// Carry-less multiplication.
        Zbc = "zbc",
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
pub struct Riscv64;

define_isa! {
    isa: Riscv64, feature: RvFeature;
    ret: "ret" () [] => enc(0x00008067, &[]);
    mv: "mv {d}, {s}" (d: Xr, s: Xr) [] => enc(0x00000013, &[fld(0, 7, 5), fld(1, 15, 5)]);
}

impl Isa for Riscv64 {
    const ARCH: Arch = Arch::Riscv64;
    type Op = Op;
    type Operand = Operand;
    type Reg = Reg;
    type Feature = RvFeature;
    const RAW_DIRECTIVE: &'static str = ".insn";

    fn info(op: Op) -> &'static OpInfo<RvFeature> {
        &OPS[op as usize]
    }
    fn ops() -> &'static [OpInfo<RvFeature>] {
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
            Reg::X(10),
            Reg::X(11),
            Reg::X(12),
            Reg::X(13),
            Reg::X(14),
            Reg::X(15),
            Reg::X(16),
            Reg::X(17),
        ]
    }
    fn callee_saved(_abi: Abi, r: Reg) -> bool {
        matches!(r, Reg::X(2) | Reg::X(8..=9) | Reg::X(18..=27))
    }
    fn is_stack_pointer(r: Reg) -> bool {
        r == Reg::X(2)
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
        None
    }
    fn gnu_property() -> Option<(u32, u32)> {
        None
    }
    fn preamble(_f: super::FeatureSet<RvFeature>) -> Vec<String> {
        vec![".option arch, +zbb, +zbc".into()]
    }
}
