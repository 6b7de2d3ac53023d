//! The control-flow-protection bits of the GNU property note (`.note.gnu.property`) that ends every ELF
//! listing, derived from the functions the listing holds instead of asserted. Each bit has one rule
//! ([`Rule`]), checked over what every function does ([`FlowFacts`], read from its description: its ABI's
//! landing pad, its prologue, body and epilogue):
//!
//! * IBT (x86_64) and BTI (aarch64), [`Rule::LandingPads`]: every function starts with its landing pad
//!   (`endbr64`, `bti c`), so an indirect call into it is allowed.
//! * SHSTK (x86_64) and GCS (aarch64), [`Rule::PlainReturns`]: every function returns to its caller by the
//!   plain return (`ret`) through the return address the call left, and neither writes that address nor
//!   switches stacks. Checked conservatively: no instruction names the link register (a function that
//!   stores x30, even one that restores it, is not counted), the body (not the ABI's prologue and epilogue)
//!   names no stack pointer (the x86 return address is on the stack; a stack switch writes the pointer), except
//!   on x86_64 as the base of an access inside the function's frame, below the return address
//!   ([`crate::abi::Conventions::touches_return_address`]: a kernel's spills to its stack frame), and
//!   every instruction that leaves the function or branches to a computed address is the plain return.
//! * PAC (aarch64), [`Rule::SignedReturns`]: return addresses are signed. Some function holds its return
//!   address (names x30) and every such function signs it (`paciasp`, `pacibsp`). A file of leaf functions
//!   that never touch x30 signs nothing, so the bit would be a false claim and is not set.
//!
//! riscv64 has no property here ([`protections`] is `None`). `tests/tests/cfp.rs` reads the notes back with
//! `readelf`, through a link, and runs the aarch64 listings under a BTI-enforcing qemu.

use crate::abi::LandingPad;
use crate::ir::{Function, Inst, Item};
use crate::isa::InstructionSet;
use crate::platform::Isa;
use crate::target::Arch;

/// What one function does that the control-flow-protection bits depend on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowFacts {
    /// It starts with the landing pad its instruction set's property asks for.
    pub landing_pad: bool,
    /// Every instruction that leaves it, or branches to an address that is not one of its labels, is the
    /// plain return.
    pub plain_returns: bool,
    /// Some instruction names the link register, or its body names the stack pointer: it may store, move or
    /// replace its return address.
    pub touches_return_address: bool,
    /// It signs its return address (an instruction of [`Protections::signs`]).
    pub signs_return_address: bool,
}

/// The condition under which a property bit is set, over the facts of every function of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Every function starts with its landing pad (IBT, BTI).
    LandingPads,
    /// Every function returns only by the plain return and leaves its return address alone (SHSTK, GCS).
    PlainReturns,
    /// Some function holds its return address and every function that does signs it (PAC).
    SignedReturns,
}

impl Rule {
    /// Whether the rule holds for a file whose functions do `facts`.
    pub fn holds(self, facts: &[FlowFacts]) -> bool {
        let all = |p: fn(&FlowFacts) -> bool| facts.iter().all(p);
        match self {
            Rule::LandingPads => all(|f| f.landing_pad),
            Rule::PlainReturns => all(|f| f.plain_returns && !f.touches_return_address),
            Rule::SignedReturns => {
                facts.iter().any(|f| f.touches_return_address)
                    && all(|f| !f.touches_return_address || f.signs_return_address)
            }
        }
    }
}

/// One instruction set's control-flow-protection property: its type, its bits, and what its code looks like.
#[derive(Debug)]
pub struct Protections {
    /// The instruction set.
    pub arch: Arch,
    /// The property type (`GNU_PROPERTY_X86_FEATURE_1_AND`, `GNU_PROPERTY_AARCH64_FEATURE_1_AND`).
    pub kind: u32,
    /// Each bit: its name (as `readelf -n` prints it), its value and the rule that sets it.
    pub bits: &'static [(&'static str, u32, Rule)],
    /// The landing pad [`Rule::LandingPads`] asks for.
    pub pad: LandingPad,
    /// The register a call leaves the return address in (`x30`); `None` where the call pushes it (x86).
    pub link_register: Option<&'static str>,
    /// The mnemonic of the plain return (with no operand).
    pub plain_return: &'static str,
    /// Mnemonics of the instructions that leave the function or branch: one without a label operand that is
    /// not the plain return breaks [`FlowFacts::plain_returns`].
    pub transfers: &'static [&'static str],
    /// Mnemonics of the instructions that sign the return address.
    pub signs: &'static [&'static str],
}

/// The properties, one per instruction set that has one.
pub const PROTECTIONS: &[Protections] = &[
    Protections {
        arch: Arch::X86_64,
        kind: 0xc000_0002,
        bits: &[("IBT", 1, Rule::LandingPads), ("SHSTK", 2, Rule::PlainReturns)],
        pad: LandingPad::Endbr64,
        link_register: None,
        plain_return: "ret",
        transfers: &["ret", "retf", "iret", "iretq", "sysret", "jmp", "call"],
        signs: &[],
    },
    Protections {
        arch: Arch::Aarch64,
        kind: 0xc000_0000,
        bits: &[("BTI", 1, Rule::LandingPads), ("PAC", 2, Rule::SignedReturns), ("GCS", 4, Rule::PlainReturns)],
        pad: LandingPad::BtiC,
        link_register: Some("x30"),
        plain_return: "ret",
        transfers: &[
            "ret", "retaa", "retab", "eret", "br", "blr", "braa", "brab", "braaz", "brabz", "blraa", "blrab", "blraaz",
            "blrabz", "b", "bl",
        ],
        signs: &["paciasp", "pacibsp", "pacia", "pacib"],
    },
];

/// The property of instruction set `arch`, if it has one.
pub fn protections(arch: Arch) -> Option<&'static Protections> {
    PROTECTIONS.iter().find(|p| p.arch == arch)
}

impl Protections {
    /// The property value of a file whose functions do `facts`: the bits whose rules hold.
    pub fn value(&self, facts: &[FlowFacts]) -> u32 {
        self.bits.iter().filter(|(_, _, rule)| rule.holds(facts)).fold(0, |v, (_, bit, _)| v | bit)
    }

    /// The names of the bits set in `value`, in table order (`BTI, GCS`).
    pub fn names(&self, value: u32) -> Vec<&'static str> {
        self.bits.iter().filter(|(_, bit, _)| value & bit != 0).map(|(name, _, _)| *name).collect()
    }

    /// What function `f` does, read from its description: its ABI's landing pad, prologue and epilogue, and
    /// its body.
    pub fn facts<I: Isa>(&self, f: &Function<I>) -> FlowFacts {
        let (prologue, epilogue) = crate::layout::prologue_epilogue(f);
        let body = insts(&f.body);
        let all: Vec<&Inst<I>> =
            insts(&prologue).into_iter().chain(body.iter().copied()).chain(insts(&epilogue)).collect();
        let link = |i: &&Inst<I>| self.link_register.is_some_and(|lr| names(i, |r| I::reg_name(r) == lr));
        FlowFacts {
            landing_pad: crate::layout::landing_pad(f) == Some(self.pad),
            plain_returns: all.iter().all(|i| self.plain_transfer(i)),
            touches_return_address: all.iter().any(link)
                || body.iter().any(|i| I::touches_return_address(f.abi, &f.frame, i.op, &i.operands)),
            signs_return_address: all.iter().any(|i| self.signs.contains(&I::info(i.op).mnemonic())),
        }
    }

    /// Whether `inst` is no transfer, a branch to a label, or the plain return.
    fn plain_transfer<I: Isa>(&self, inst: &Inst<I>) -> bool {
        let mnemonic = I::info(inst.op).mnemonic();
        !self.transfers.contains(&mnemonic)
            || (mnemonic == self.plain_return && inst.operands.is_empty())
            || inst.operands.iter().any(|o| I::label(o).is_some())
    }
}

/// The instructions among `items`.
fn insts<I: InstructionSet>(items: &[Item<I>]) -> Vec<&Inst<I>> {
    items.iter().filter_map(|i| if let Item::Inst(i) = i { Some(i) } else { None }).collect()
}

/// Whether an operand of `inst` names a register `pick` accepts.
fn names<I: InstructionSet>(inst: &Inst<I>, pick: impl Fn(I::Reg) -> bool) -> bool {
    let mut regs = Vec::new();
    inst.operands.iter().for_each(|o| I::regs(o, &mut regs));
    regs.into_iter().any(pick)
}

/// The GNU property note's type and value for `functions` of instruction set `I`, if `I` has a property.
pub fn gnu_property<I: Isa>(functions: &[Function<I>]) -> Option<(u32, u32)> {
    let p = protections(I::ARCH)?;
    let facts: Vec<FlowFacts> = functions.iter().map(|f| p.facts(f)).collect();
    Some((p.kind, p.value(&facts)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: FlowFacts = FlowFacts {
        landing_pad: true,
        plain_returns: true,
        touches_return_address: false,
        signs_return_address: false,
    };

    fn value(arch: Arch, facts: &[FlowFacts]) -> u32 {
        protections(arch).unwrap().value(facts)
    }

    #[test]
    fn leaf_functions_with_landing_pads_earn_everything_but_pac() {
        assert_eq!(value(Arch::X86_64, &[GOOD, GOOD]), 3);
        assert_eq!(value(Arch::Aarch64, &[GOOD, GOOD]), 1 | 4);
        assert_eq!(protections(Arch::Aarch64).unwrap().names(5), ["BTI", "GCS"]);
        assert!(protections(Arch::Riscv64).is_none());
    }

    #[test]
    fn a_function_without_its_landing_pad_drops_ibt_and_bti() {
        let bare = FlowFacts { landing_pad: false, ..GOOD };
        assert_eq!(value(Arch::X86_64, &[GOOD, bare]), 2);
        assert_eq!(value(Arch::Aarch64, &[bare, GOOD]), 4);
    }

    #[test]
    fn another_return_or_a_touched_return_address_drops_shstk_and_gcs() {
        let jumps = FlowFacts { plain_returns: false, ..GOOD };
        let stores = FlowFacts { touches_return_address: true, ..GOOD };
        assert_eq!(value(Arch::X86_64, &[GOOD, jumps]), 1);
        assert_eq!(value(Arch::Aarch64, &[jumps]), 1);
        assert_eq!(value(Arch::Aarch64, &[GOOD, stores]), 1);
    }

    #[test]
    fn pac_needs_every_saved_return_address_signed() {
        let stores = FlowFacts { touches_return_address: true, ..GOOD };
        let signs = FlowFacts { signs_return_address: true, ..stores };
        assert_eq!(value(Arch::Aarch64, &[GOOD, signs]) & 2, 2);
        assert_eq!(value(Arch::Aarch64, &[signs, stores]) & 2, 0);
        assert_eq!(value(Arch::Aarch64, &[GOOD]) & 2, 0, "nothing signed: no PAC");
    }

    /// The facts of a function built by `body`.
    fn facts_of<I: Isa>(abi: crate::Abi, body: impl FnOnce(&mut crate::Builder<I>)) -> FlowFacts {
        let mut b = crate::Builder::<I>::new("f", abi, &[]);
        body(&mut b);
        protections(I::ARCH).unwrap().facts(&b.finish().unwrap())
    }

    #[test]
    fn facts_come_from_the_function() {
        use crate::isa::aarch64::{regs::*, Aarch64};
        use crate::isa::x86_64::{regs::*, X86_64};
        let leaf = facts_of::<Aarch64>(crate::Abi::Aapcs64, |b| {
            b.mov(X1, X0);
        });
        assert_eq!(leaf, GOOD);
        // Writing x30 makes the ABI save and restore it: the return address is in memory for a while.
        let lr = facts_of::<Aarch64>(crate::Abi::Aapcs64, |b| {
            b.mov(X30, X0);
        });
        assert_eq!(lr, FlowFacts { touches_return_address: true, ..GOOD });
        assert_eq!(
            facts_of::<X86_64>(crate::Abi::SysV, |b| {
                b.mov(RAX, RDI);
            }),
            GOOD
        );
        // A body that names rsp could overwrite the return address (or switch stacks).
        let rsp = facts_of::<X86_64>(crate::Abi::SysV, |b| {
            b.mov(RAX, RSP);
        });
        assert_eq!(rsp, FlowFacts { touches_return_address: true, ..GOOD });
        // Spills to the function's stack frame stay below the return address; an access past the frame, below
        // the stack pointer, or the frame's address taken may reach it.
        let spills = facts_of::<X86_64>(crate::Abi::SysV, |b| {
            let frame = b.frame(64, 16);
            b.mov(frame.at(0), RAX).mov(RAX, frame.at(56));
        });
        assert_eq!(spills, GOOD);
        for abi in [crate::Abi::SysV, crate::Abi::Win64] {
            type Body<'a> = &'a dyn Fn(&mut crate::Builder<X86_64>);
            let reaching: [Body; 3] = [
                &|b| {
                    b.frame(64, 16);
                    b.mov(crate::isa::x86_64::mem(RSP, 72), RAX); // the return address, above 8 bytes of padding
                },
                &|b| {
                    b.frame(64, 16);
                    b.mov(crate::isa::x86_64::mem(RSP, -8), RAX);
                },
                &|b| {
                    let frame = b.frame(64, 16);
                    b.lea(RAX, frame.at(0));
                },
            ];
            for body in reaching {
                assert_eq!(facts_of::<X86_64>(abi, body), FlowFacts { touches_return_address: true, ..GOOD });
            }
        }
    }
}
