//! Instruction semantics: a machine state, memory behind a trait (so an interpreter can hook every address), and
//! per ISA a table giving each instruction-table entry its operand roles, the flags it reads and writes and an
//! execution function: [`x86_64`], [`aarch64`] and [`riscv64`]. One interpreter driver ([`interp`]) and one
//! constant-time checker ([`ct`]) serve all three through traits ([`interp::Interp`], [`ct::Tainting`]) that
//! each ISA implements in its `interp_<isa>` and `ct_<isa>` module: its machine, and how taint moves through
//! one of its instructions.
//!
//! The semantics live in a table parallel to the ISA's own (`isa::x86_64::OPS`), keyed by the same `Op`: the
//! ISA table is a macro expanded twice (the data and the builder's methods) and shared in shape by three ISAs,
//! so a field there would touch every ISA's table and the builder at once; the parallel table is checked
//! complete and in `Op` order by a unit test, which keeps one home per instruction.

pub mod aarch64;
pub mod aes;
pub mod ct;
pub mod ct_aarch64;
pub mod ct_riscv64;
pub mod ct_x86_64;
pub mod interp;
pub mod interp_aarch64;
pub mod interp_riscv64;
pub mod interp_x86_64;
pub mod riscv64;
pub mod sm4;
pub mod x86_64;

use crate::label::Label;

/// Checks a semantics table against its ISA's table, as each ISA's unit test `one_entry_per_op_in_order` does:
/// one entry per table entry, in table order, with one role per operand. `table` gives each table entry's name
/// and operand count, `sems` each semantics entry's `Op` (as its index) and role count, in their order. The
/// error names the first entry missing or misplaced and the file to fix (`x86_64 \`vpfoo\` has no semantics
/// entry in gen/src/sem/x86_64.rs`).
#[cfg(test)]
pub(crate) fn check_parallel(isa: &str, table: &[(&str, usize)], sems: &[(usize, usize)]) -> Result<(), String> {
    let file = format!("gen/src/sem/{isa}.rs");
    for (i, &(name, operands)) in table.iter().enumerate() {
        if !sems.iter().any(|&(op, _)| op == i) {
            let place = match i.checked_sub(1).and_then(|p| table.get(p)) {
                Some((prev, _)) => format!("after `{prev}`'s"),
                None => "first".to_string(),
            };
            return Err(format!(
                "{isa} `{name}` has no semantics entry in {file}: add one (roles, flags, what it does) {place}, in \
                 table order"
            ));
        }
        let (op, roles) = sems[i];
        if op != i {
            let placed = table.get(op).map_or("?", |t| t.0);
            return Err(format!(
                "{isa} semantics entry {i} in {file} is `{placed}`, where the table has `{name}`: the entries follow \
                 the table's order, one each"
            ));
        }
        if roles != operands {
            return Err(format!(
                "{isa} `{name}`: its semantics entry in {file} gives {roles} roles for {operands} operands"
            ));
        }
    }
    match sems.get(table.len()) {
        Some(&(op, _)) => Err(format!(
            "{isa} semantics entry `{}` in {file} is one too many: the entries follow the table's order, one each",
            table.get(op).map_or("?", |t| t.0)
        )),
        None => Ok(()),
    }
}

/// Bytes of a vector register (512 bits: zmm).
pub const VEC_BYTES: usize = 64;
/// Number of vector registers (32: EVEX; VEX instructions name the first 16).
pub const VEC_REGS: usize = 32;

/// How an instruction uses an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read only (a memory operand's address registers are always read).
    R,
    /// Written only.
    W,
    /// Read and written.
    RW,
    /// Neither: an address computed but not accessed (`lea`), a branch target, an immediate.
    None,
}

/// A memory access the interpreter could not serve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The address.
    pub addr: u64,
    /// The access's width in bytes.
    pub len: usize,
    /// What went wrong.
    pub what: &'static str,
}

/// Memory as the semantics see it: reads and writes by address, and the addresses of labels (constants).
pub trait Memory {
    /// Reads `out.len()` bytes at `addr`.
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault>;
    /// Writes `data` at `addr`.
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault>;
    /// The address of a label (a constant of the function), if it has one.
    fn label(&self, _label: &Label) -> Option<u64> {
        None
    }
}

/// What an instruction does to the control flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flow<'a> {
    /// Continue with the next instruction.
    Next,
    /// Continue at a label.
    Jump(&'a Label),
    /// Continue at a label, a subroutine of the function, until its return (x86_64 `call`: the semantics pushed
    /// the return address); then with the next instruction, the stack pointer as it was before the call.
    Call(&'a Label),
    /// Return to the caller (from a [`Flow::Call`]'s subroutine, to after the call).
    Ret,
}

#[cfg(test)]
mod tests {
    use super::check_parallel;

    /// A table entry left without semantics, or semantics out of order or with the wrong role count, is named
    /// with the file to fix.
    #[test]
    fn a_missing_semantics_entry_is_named() {
        let table = [("vpxor", 3), ("vpfoo", 3), ("ret", 0)];
        assert_eq!(check_parallel("x86_64", &table, &[(0, 3), (1, 3), (2, 0)]), Ok(()));
        let missing = check_parallel("x86_64", &table, &[(0, 3), (2, 0)]).unwrap_err();
        assert!(missing.starts_with("x86_64 `vpfoo` has no semantics entry in gen/src/sem/x86_64.rs"), "{missing}");
        assert!(missing.contains("after `vpxor`'s"), "{missing}");
        let order = check_parallel("x86_64", &table, &[(0, 3), (2, 0), (1, 3)]).unwrap_err();
        assert!(order.contains("semantics entry 1 in gen/src/sem/x86_64.rs is `ret`, where the table has `vpfoo`"));
        let roles = check_parallel("x86_64", &table, &[(0, 3), (1, 2), (2, 0)]).unwrap_err();
        assert!(roles.contains("`vpfoo`: its semantics entry in gen/src/sem/x86_64.rs gives 2 roles for 3 operands"));
        let extra = check_parallel("x86_64", &table, &[(0, 3), (1, 3), (2, 0), (2, 0)]).unwrap_err();
        assert!(extra.contains("`ret` in gen/src/sem/x86_64.rs is one too many"), "{extra}");
    }
}
