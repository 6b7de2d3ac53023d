//! x86-64 decoding: iced-x86 decodes, and the table entry is the one whose encoding lists the decoded
//! `Code` (the same list the lowering encodes through); operands are converted by the entry's kinds.

use super::decode::{Decode, Decoded, Refs, Unknown, REFERENCE};
use crate::ir::{Inst, Operands};
use crate::isa::x86_64::{Gpr, Mem, Op, Operand, Size, OPS, X86_64};
use crate::label::Label;
use iced_x86::{Code, Decoder, DecoderOptions, Formatter, Instruction, IntelFormatter, OpKind, Register};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The table entries per iced-x86 code.
fn entries(code: Code) -> &'static [Op] {
    static BY_CODE: OnceLock<HashMap<Code, Vec<Op>>> = OnceLock::new();
    let map = BY_CODE.get_or_init(|| {
        let mut map: HashMap<Code, Vec<Op>> = HashMap::new();
        for (i, info) in OPS.iter().enumerate() {
            for c in info.encoding.map_or(&[][..], |e| e.0) {
                map.entry(*c).or_default().push(Op::ALL[i]);
            }
        }
        map
    });
    map.get(&code).map_or(&[], Vec::as_slice)
}

fn text(i: &Instruction) -> String {
    let mut s = String::new();
    IntelFormatter::new().format(i, &mut s);
    s
}

/// The operands' classes: `r64, m128, imm8`.
fn shape(i: &Instruction) -> String {
    let one = |k: u32| match i.op_kind(k) {
        OpKind::Register => {
            let r = i.op_register(k);
            let class = [
                (r.is_gpr64(), "r64"),
                (r.is_gpr32(), "r32"),
                (r.is_gpr16(), "r16"),
                (r.is_gpr8(), "r8"),
                (r.is_xmm(), "xmm"),
                (r.is_ymm(), "ymm"),
                (r.is_zmm(), "zmm"),
                (r.is_k(), "k"),
            ];
            class.iter().find(|(is, _)| *is).map_or("reg", |(_, c)| c).to_string()
        }
        OpKind::Memory => format!("m{}", i.memory_size().size() * 8),
        OpKind::NearBranch64 => "rel".into(),
        _ => "imm".into(),
    };
    (0..i.op_count()).map(one).collect::<Vec<_>>().join(", ")
}

/// Whether `code` is a no-op that assemblers pad with.
fn is_nop(code: Code) -> bool {
    matches!(code, Code::Nopd | Code::Nopw | Code::Nopq | Code::Nop_rm16 | Code::Nop_rm32 | Code::Nop_rm64)
}

impl Decode for X86_64 {
    fn decode(code: &[u8], at: usize, refs: &mut Refs) -> Result<(Decoded<Self>, usize), Unknown> {
        let mut d = Decoder::with_ip(64, &code[at..], at as u64, DecoderOptions::NONE);
        let i = d.decode();
        let len = i.len();
        if i.is_invalid() {
            let bytes: Vec<String> = code[at..(at + 15).min(code.len())].iter().map(|b| format!("{b:02x}")).collect();
            let text = format!("bytes {}", bytes.join(" "));
            return Err(Unknown { len: 0, form: "invalid".into(), text, expressed: false });
        }
        match i.code() {
            Code::Endbr64 => return Ok((Decoded::Pad, len)),
            c if is_nop(c) => {
                let inst =
                    entries(c).iter().find_map(|&op| Some(Inst { op, operands: operands(op, &i, at, refs).ok()? }));
                return Ok((Decoded::Nop(inst), len));
            }
            _ => {}
        }
        let ops = entries(i.code());
        let unknown = |why: &str| Unknown {
            len,
            // A code the table has in another shape (a memory destination): the shape says which.
            form: if ops.is_empty() { format!("{:?}", i.code()) } else { format!("{:?} ({})", i.code(), shape(&i)) },
            text: format!("{}{why}", text(&i)),
            expressed: why.contains(REFERENCE),
        };
        if ops.is_empty() {
            return Err(unknown(""));
        }
        let mut last = String::new();
        for &op in ops {
            match operands(op, &i, at, refs) {
                Ok(operands) => return Ok((Decoded::Inst(Inst { op, operands }), len)),
                Err(e) => last = e,
            }
        }
        Err(unknown(&format!(" ({last})")))
    }

    fn reloc_mask(_inst: &Inst<Self>, len: usize, field: usize, size: usize) -> Vec<u8> {
        (0..len).map(|b| if (field..field + size).contains(&b) { 0 } else { 0xff }).collect()
    }

    fn rust_operand(kind: &str, o: &Operand, label: &dyn Fn(&Label) -> String) -> String {
        rust_operand(kind, o, label)
    }

    const RUST_MODULE: &'static str = "asmgen::isa::x86_64";
    const RUST_NAMES: &'static [&'static str] =
        &["mem", "mem_index", "rip", "rip_off", "Gpr32", "X86Feature", "Xmm", "Ymm", "Zmm", "X86_64"];
    fn is_reg_const(token: &str) -> bool {
        matches!(token, "CL" | "k")
            || token.starts_with('R') && crate::isa::x86_64::GPR64.iter().any(|r| r.eq_ignore_ascii_case(token))
    }
    const RUST_ISA: &'static str = "X86_64";
    const RUST_FEATURE: &'static str = "X86Feature";
}

/// The operands of entry `op` from the decoded instruction `i` at `at`.
fn operands(op: Op, i: &Instruction, at: usize, refs: &mut Refs) -> Result<Operands<Operand>, String> {
    let info = &OPS[op as usize];
    if i.is_broadcast() {
        return Err("a broadcast memory operand".into());
    }
    if i.op_mask() != Register::None && !info.kinds.iter().any(|k| matches!(*k, "Zkz" | "M512k")) {
        return Err(if i.zeroing_masking() { "a zeroing mask" } else { "a merging mask" }.into());
    }
    if is_string(i.code()) {
        return string_operands(info.syntax, i);
    }
    // `sha256rnds2`'s xmm0 is implicit in the entry (and its semantics), a third operand to iced-x86.
    let implicit = i.code() == Code::Sha256rnds2_xmm_xmmm128 && i.op_count() == 3 && i.op2_register() == Register::XMM0;
    if info.kinds.len() + usize::from(implicit) != i.op_count() as usize {
        return Err(format!("{} operands, the entry {} has {}", i.op_count(), info.name, info.kinds.len()));
    }
    let mut out = Operands::new();
    for (k, kind) in info.kinds.iter().enumerate() {
        out.push(operand(kind, i, k as u32, at, refs)?);
    }
    Ok(out)
}

/// Whether `code` is a string instruction the table has (`movsb`, `movsq`, `stosb`, `stosq`).
fn is_string(code: Code) -> bool {
    matches!(code, Code::Movsb_m8_m8 | Code::Movsq_m64_m64 | Code::Stosb_m8_AL | Code::Stosq_m64_RAX)
}

/// A string instruction's entry (`syntax`: `movsb`, `rep movsb`, ...) takes no operands: its rsi, rdi and
/// accumulator are implicit. It matches the decoded instruction with the same `rep` prefix, 64-bit addresses
/// and no segment override.
fn string_operands(syntax: &str, i: &Instruction) -> Result<Operands<Operand>, String> {
    let rep = syntax.starts_with("rep ");
    if i.has_repne_prefix() || rep != i.has_rep_prefix() {
        return Err(format!("a string instruction {} a rep prefix", if rep { "without" } else { "with" }));
    }
    if (0..i.op_count()).any(|k| matches!(i.op_kind(k), OpKind::MemoryESEDI | OpKind::MemorySegESI)) {
        return Err("a string instruction with 32-bit addresses".into());
    }
    if i.segment_prefix() != Register::None {
        return Err("a string instruction with a segment override".into());
    }
    Ok(Operands::new())
}

/// The number of `r` in its class (iced-x86 lists each class in order).
fn number(r: Register, first: Register) -> u8 {
    (r as u32 - first as u32) as u8
}

fn gpr(r: Register) -> Option<Operand> {
    if r.is_gpr8() {
        // al, cl, dl, bl, then ah..bh (which no entry names), spl..dil, r8b..r15b.
        let n = number(r, Register::AL);
        return match n {
            0..=3 => Some(Operand::Gpr8(n)),
            8..=19 => Some(Operand::Gpr8(n - 4)),
            _ => None,
        };
    }
    if r.is_k() {
        return Some(Operand::K(number(r, Register::K0)));
    }
    if r.is_gpr64() {
        Some(Operand::Gpr(number(r, Register::RAX)))
    } else if r.is_gpr32() {
        Some(Operand::Gpr32(number(r, Register::EAX)))
    } else {
        None
    }
}

fn vector(r: Register) -> Option<Operand> {
    if r.is_xmm() {
        Some(Operand::Xmm(number(r, Register::XMM0)))
    } else if r.is_ymm() {
        Some(Operand::Ymm(number(r, Register::YMM0)))
    } else if r.is_zmm() {
        Some(Operand::Zmm(number(r, Register::ZMM0)))
    } else {
        None
    }
}

/// Operand `k` of `i` as the entry's kind `kind` holds it.
fn operand(kind: &str, i: &Instruction, k: u32, at: usize, refs: &mut Refs) -> Result<Operand, String> {
    let size = match kind {
        "Xm" | "M128" => Some(Size::Xmmword),
        "Ym" | "M256" => Some(Size::Ymmword),
        "Zm" | "M512" => Some(Size::Zmmword),
        "Rm64" | "M64" | "Addr" => Some(Size::Qword),
        "M32" | "Rm32" => Some(Size::Dword),
        "M8" | "Rm8" => Some(Size::Byte),
        _ => None,
    };
    match i.op_kind(k) {
        OpKind::Register => {
            let r = i.op_register(k);
            let o = gpr(r).or_else(|| vector(r)).ok_or_else(|| format!("register {r:?}"))?;
            let masked = i.op_mask() != Register::None && k == 0;
            if kind == "Zkz" {
                return match o {
                    Operand::Zmm(z) if masked && i.zeroing_masking() => {
                        Ok(Operand::ZmmMaskz(z, number(i.op_mask(), Register::K0)))
                    }
                    _ => Err(format!("{r:?} without a zeroing mask for kind Zkz")),
                };
            }
            if masked {
                return Err("a masked destination for an unmasked kind".into());
            }
            let fits = matches!(
                (kind, &o),
                ("R64" | "Ri64" | "Rm64", Operand::Gpr(_))
                    | ("R32" | "Ri32" | "Rm32", Operand::Gpr32(_))
                    | ("R8" | "Rm8", Operand::Gpr8(_))
                    | ("Cl", Operand::Gpr8(1))
                    | ("Kr", Operand::K(_))
                    // The xmm and ymm kinds name registers 0-15 (xmm16-xmm31 only exist in EVEX forms).
                    | ("X" | "Xm", Operand::Xmm(0..=15))
                    | ("Y" | "Ym", Operand::Ymm(0..=15))
                    | ("Z" | "Zm", Operand::Zmm(_))
            );
            fits.then_some(o).ok_or_else(|| format!("register {r:?} for kind {kind}"))
        }
        OpKind::Memory if kind == "M512k" => match i.op_mask() {
            mask if mask != Register::None && k == 0 && !i.zeroing_masking() => {
                Ok(Operand::MemMask(Size::Zmmword, memory(i, at, refs)?, number(mask, Register::K0)))
            }
            _ => Err("memory without a merging mask for kind M512k".into()),
        },
        OpKind::Memory => {
            Ok(Operand::Mem(size.ok_or_else(|| format!("memory for kind {kind}"))?, memory(i, at, refs)?))
        }
        OpKind::Immediate8
        | OpKind::Immediate8to32
        | OpKind::Immediate8to64
        | OpKind::Immediate32
        | OpKind::Immediate32to64
        | OpKind::Immediate64
        | OpKind::Immediate8_2nd => {
            let v = i.immediate(k) as i64;
            match kind {
                "Sel" => Ok(Operand::Sel(v as u8)),
                "Imm" | "Ri64" | "Ri32" | "I32" | "Imm64" => Ok(Operand::Imm(v)),
                _ => Err(format!("immediate for kind {kind}")),
            }
        }
        OpKind::NearBranch64 if kind == "Target" => Ok(Operand::Label(branch(i, at, refs)?)),
        other => Err(format!("operand {other:?} for kind {kind}")),
    }
}

/// A memory operand: base, index, scale and displacement, or RIP-relative to a label.
fn memory(i: &Instruction, at: usize, refs: &mut Refs) -> Result<Mem, String> {
    if i.is_ip_rel_memory_operand() {
        let (label, disp) = match refs.reloc(at, i.len()) {
            Some((field, r)) => {
                let r = r.clone();
                refs.reloc_label(&r, (i.len() - field) as i64)?
            }
            None => refs.label_at(refs.section, refs.start.wrapping_add(i.ip_rel_memory_address()) as i64, None)?,
        };
        let disp = i32::try_from(disp).map_err(|_| format!("displacement {disp} beyond 32 bits"))?;
        return Ok(Mem { base: None, index: None, disp, label: Some(label) });
    }
    let reg = |r: Register| -> Result<Option<Gpr>, String> {
        match r {
            Register::None => Ok(None),
            r if r.is_gpr64() => Ok(Some(Gpr(number(r, Register::RAX)))),
            r => Err(format!("address register {r:?}")),
        }
    };
    let base = reg(i.memory_base())?;
    let index = reg(i.memory_index())?.map(|r| (r, i.memory_index_scale() as u8));
    let disp = i.memory_displacement64() as i64;
    let disp = i32::try_from(disp).map_err(|_| format!("displacement {disp:#x} beyond 32 bits"))?;
    if base.is_none() && index.is_none() {
        return Err("an absolute address".into());
    }
    Ok(Mem { base, index, disp, label: None })
}

/// The label a branch goes to: a relocation's symbol, or a place in the function.
fn branch(i: &Instruction, at: usize, refs: &mut Refs) -> Result<Label, String> {
    let (label, off) = match refs.reloc(at, i.len()) {
        Some((field, r)) => {
            let r = r.clone();
            refs.reloc_label(&r, (i.len() - field) as i64)?
        }
        None => refs.label_at(refs.section, refs.start.wrapping_add(i.near_branch64()) as i64, None)?,
    };
    match off {
        0 => Ok(label),
        off => Err(format!("{REFERENCE} to {} {off:+}", label.name())),
    }
}

/// The Rust expression of an x86-64 operand.
fn rust_operand(kind: &str, o: &Operand, label: &dyn Fn(&Label) -> String) -> String {
    const GPR: [&str; 16] =
        ["RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"];
    let g = |n: u8| GPR[n as usize & 15].to_string();
    match o {
        Operand::Gpr(n) => g(*n),
        Operand::Gpr32(n) => format!("Gpr32({n})"),
        Operand::Gpr8(1) if kind == "Cl" => "CL".into(),
        Operand::Gpr8(n) => format!("{}.b()", g(*n)),
        Operand::K(k) => format!("k({k})"),
        Operand::ZmmMaskz(z, k) => format!("Zmm({z}).maskz(k({k}))"),
        Operand::Xmm(n) => format!("Xmm({n})"),
        Operand::Ymm(n) => format!("Ymm({n})"),
        Operand::Zmm(n) => format!("Zmm({n})"),
        Operand::Imm(v) if kind == "Imm64" => format!("{v}i64"),
        Operand::Imm(v) => format!("{v}"),
        Operand::Sel(v) => format!("{v:#04x}"),
        Operand::Label(l) => format!("&{}", label(l)),
        Operand::MemMask(s, m, k) => {
            format!("{}.mask(k({k}))", rust_operand(kind, &Operand::Mem(*s, m.clone()), label))
        }
        Operand::Mem(_, m) => match (&m.label, m.base, m.index) {
            (Some(l), _, _) if m.disp == 0 => format!("rip(&{})", label(l)),
            (Some(l), _, _) => format!("rip_off(&{}, {})", label(l), m.disp),
            (None, Some(b), None) => format!("mem({}, {})", g(b.0), m.disp),
            (None, Some(b), Some((x, s))) => format!("mem_index({}, {}, {s}, {})", g(b.0), g(x.0), m.disp),
            (None, None, _) => "/* unsupported address */".into(),
        },
    }
}
