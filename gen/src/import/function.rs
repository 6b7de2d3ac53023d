//! One function of an object, imported: decoded instruction by instruction, its branch targets and
//! constants made labels, its padding made alignment, its prologue and epilogue mapped to the ABI's frame, then
//! lowered again and compared with the object's bytes.

use super::decode::{Decode, Decoded, Refs};
use super::object::{FunctionSymbol, ObjectFile};
use crate::feature::FeatureSet;
use crate::ir::{Const, Frame, Function, Inst, Item, Signature};
use crate::label::Label;
use crate::target::Abi;
use std::collections::{BTreeMap, BTreeSet};

/// A form the tables lack, where it was met.
#[derive(Clone, Debug)]
pub struct MissingForm {
    /// Offset in the function.
    pub offset: u64,
    /// The form (`Movups_xmm_xmmm128`, `word 0x4e083c00`).
    pub form: String,
    /// The instruction's text.
    pub text: String,
}

/// What became of one function.
pub struct Imported<I: Decode> {
    /// Instructions decoded (padding excluded).
    pub instructions: usize,
    /// Of those, the ones a table entry expresses.
    pub expressed: usize,
    /// The forms the tables lack.
    pub missing: Vec<MissingForm>,
    /// The function, where every instruction was expressed; else why not.
    pub function: Result<Function<I>, String>,
    /// The other functions and external symbols it refers to.
    pub externals: Vec<String>,
    /// Byte masks of the relocated instructions: (offset in the function, mask of the bits the object leaves to
    /// the linker).
    pub masks: Vec<(usize, Vec<u8>)>,
    /// Whether the prologue and epilogue were the ABI's for the registers the body uses.
    pub frame_mapped: bool,
    /// The bytes of code the function holds: the symbol's, without the padding after its last instruction
    /// (the next function's alignment).
    pub len: usize,
    /// Where each instruction starts, and its text (to name the one whose bytes differ).
    pub texts: Vec<(usize, String)>,
    /// The alignment (log2) of the function's offset in its section, at most asmgen's function alignment.
    pub start_align: u32,
}

/// One decoded instruction and where it lies.
struct At<I: Decode> {
    at: usize,
    len: usize,
    decoded: Decoded<I>,
}

/// Imports `f` of `object` for `abi`.
pub fn import<I: Decode>(
    object: &ObjectFile,
    f: &FunctionSymbol,
    abi: Abi,
    comments: &BTreeMap<u64, Vec<String>>,
) -> Imported<I> {
    let code = &object.sections[f.section].data[f.offset as usize..(f.offset + f.size) as usize];
    let mut refs = Refs {
        object,
        section: f.section,
        start: f.offset,
        size: f.size,
        targets: Default::default(),
        constants: Default::default(),
        externals: Default::default(),
        name: f.name.clone(),
    };
    let (decoded, missing, undecodable) = decode_all::<I>(code, &mut refs);
    let instructions = decoded.iter().filter(|d| !matches!(d.decoded, Decoded::Nop(_))).count() + missing.len();
    let expressed = instructions - missing.len();
    let externals = refs.externals.keys().cloned().collect();
    let mut out = Imported {
        instructions,
        expressed,
        missing,
        function: Err(String::new()),
        externals,
        masks: Vec::new(),
        frame_mapped: false,
        len: code.len(),
        texts: Vec::new(),
        start_align: f.offset.trailing_zeros().min(crate::layout::FUNCTION_ALIGN_LOG2),
    };
    out.texts = decoded
        .iter()
        .filter_map(|d| match &d.decoded {
            Decoded::Inst(i) => Some((d.at, crate::isa::inst_text::<I>(i.op, &i.operands))),
            _ => None,
        })
        .collect();
    out.function = if let Some(e) = undecodable {
        Err(e)
    } else if let Some(m) = out.missing.first() {
        Err(format!(
            "{} instructions the tables do not express; the first, at +{:#x}: {}",
            out.missing.len(),
            m.offset,
            m.text
        ))
    } else {
        build(f, abi, code, decoded, &refs, comments, &mut out)
    };
    out
}

/// Decodes every instruction of `code`; the forms the tables lack are listed, an undecodable byte stops it.
fn decode_all<I: Decode>(code: &[u8], refs: &mut Refs) -> (Vec<At<I>>, Vec<MissingForm>, Option<String>) {
    let (mut decoded, mut missing) = (Vec::new(), Vec::new());
    let mut blocker = None;
    let mut at = 0;
    while at < code.len() {
        match I::decode(code, at, refs) {
            Ok((d, len)) => {
                decoded.push(At { at, len, decoded: d });
                at += len;
            }
            Err(u) if u.len == 0 => {
                return (decoded, missing, Some(format!("undecodable bytes at +{at:#x}: {}", u.text)));
            }
            Err(u) if u.expressed => {
                blocker = blocker.or(Some(format!("at +{at:#x}: {}", u.text)));
                decoded.push(At { at, len: u.len, decoded: Decoded::Pad });
                at += u.len;
            }
            Err(u) => {
                missing.push(MissingForm { offset: at as u64, form: u.form, text: u.text });
                at += u.len;
            }
        }
    }
    (decoded, missing, blocker)
}

/// The function from its decoded instructions: labels, alignment, frame, constants, and the comments found
/// for them.
#[allow(clippy::too_many_arguments)]
fn build<I: Decode>(
    f: &FunctionSymbol,
    abi: Abi,
    code: &[u8],
    mut decoded: Vec<At<I>>,
    refs: &Refs,
    comments: &BTreeMap<u64, Vec<String>>,
    out: &mut Imported<I>,
) -> Result<Function<I>, String> {
    // Padding after the last instruction aligns the next function: not this one's.
    let last = decoded.iter().rposition(|d| !matches!(d.decoded, Decoded::Nop(_))).map_or(0, |k| k + 1);
    if last < decoded.len() && !refs.targets.keys().any(|t| *t >= decoded[last].at as u64) {
        out.len = decoded[last].at;
        decoded.truncate(last);
    }
    let code = &code[..out.len];
    let starts: BTreeSet<u64> = decoded.iter().map(|d| d.at as u64).chain([code.len() as u64]).collect();
    if let Some(t) = refs.targets.keys().find(|t| !starts.contains(t)) {
        return Err(format!("a branch or address into the middle of an instruction, at +{t:#x}"));
    }
    let pad = matches!(decoded.first().map(|d| &d.decoded), Some(Decoded::Pad));
    if pad && I::landing_pad(abi).is_none() {
        return Err("starts with a landing pad its ABI does not have".into());
    }
    let mut body = Vec::new();
    let mut i = usize::from(pad);
    if pad {
        // The landing pad is derived: what was said above it goes first.
        body.extend(comments.get(&f.offset).into_iter().flatten().map(|c| Item::Comment(c.clone())));
    }
    while i < decoded.len() {
        for c in comments.get(&(f.offset + decoded[i].at as u64)).into_iter().flatten() {
            body.push(Item::Comment(c.clone()));
        }
        if let Some(l) = refs.targets.get(&(decoded[i].at as u64)) {
            body.push(Item::Label(l.clone()));
        }
        match &decoded[i].decoded {
            Decoded::Pad => return Err(format!("a landing pad inside the function, at +{:#x}", decoded[i].at)),
            Decoded::Inst(inst) => {
                out.masks.extend(mask_of(refs, decoded[i].at, decoded[i].len, inst));
                body.push(Item::Inst(copy(inst)));
                i += 1;
            }
            Decoded::Nop(_) => {
                let run = decoded[i..].iter().take_while(|d| matches!(d.decoded, Decoded::Nop(_))).count();
                if padding(f, &decoded[i..i + run], &mut body)? {
                    // Assemblers pad with no-ops of their own choice (GNU as and llvm-mc differ): the padding
                    // compares by its place and length.
                    let (from, last) = (decoded[i].at, &decoded[i + run - 1]);
                    out.masks.push((from, vec![0; last.at + last.len - from]));
                }
                i += run;
            }
        }
    }
    if let Some(l) = refs.targets.get(&(code.len() as u64)) {
        body.push(Item::Label(l.clone()));
    }
    // The ABI's frame where the function starts with the landing pad and the prologue and epilogue are the
    // ABI's for the registers the body uses; else the body is the whole function (naked).
    let (frame, body) = if pad || I::landing_pad(abi).is_none() { frame_of::<I>(abi, body) } else { (None, body) };
    out.frame_mapped = frame.as_ref().is_some_and(|f| !f.saved.is_empty());
    let frame = frame.unwrap_or(Frame {
        saved: Vec::new(),
        params: 0,
        locals: Default::default(),
        stack_params: Vec::new(),
        naked: true,
        landing_pad: pad,
    });
    let required = features::<I>(&body);
    let consts = constants(refs);
    Ok(Function {
        name: f.name.clone(),
        doc: Vec::new(),
        abi,
        signature: Signature { params: Vec::new(), ret: None },
        allowed: required,
        required,
        frame,
        body,
        consts,
    })
}

/// The bytes of `inst` at `at` that a relocation leaves unset, if one applies to it.
/// Without a relocation, an instruction that refers to another function holds a distance that depends on where
/// the two are placed: its last 4 bytes (x86-64's rel32) or its label field.
fn mask_of<I: Decode>(refs: &Refs, at: usize, len: usize, inst: &Inst<I>) -> Option<(usize, Vec<u8>)> {
    if let Some((field, r)) = refs.reloc(at, len) {
        return Some((at, I::reloc_mask(inst, len, field, r.size as usize)));
    }
    let external = inst.operands.iter().filter_map(I::label).any(|l| refs.externals.values().any(|e| e == l));
    (external && len >= 4).then(|| (at, I::reloc_mask(inst, len, len - 4, 4)))
}

/// A run of no-ops: the alignment it makes (true), else the instructions themselves where the table has them.
fn padding<I: Decode>(f: &FunctionSymbol, run: &[At<I>], body: &mut Vec<Item<I>>) -> Result<bool, String> {
    let (from, to) = (run[0].at, run[run.len() - 1].at + run[run.len() - 1].len);
    if let Some(k) = alignment(f.offset + from as u64, f.offset + to as u64) {
        body.push(Item::Align(k));
        return Ok(true);
    }
    for d in run {
        match &d.decoded {
            Decoded::Nop(Some(inst)) => body.push(Item::Inst(copy(inst))),
            _ => return Err(format!("padding at +{from:#x}..+{to:#x} that does not end at an aligned offset")),
        }
    }
    Ok(false)
}

/// The alignment (log2) that padding from `from` to `to` (offsets in the section) makes: the smallest
/// power of two that `to` is a multiple of and that `from` rounds up to `to` at.
fn alignment(from: u64, to: u64) -> Option<u32> {
    (1..=12).find(|&k| {
        let a = 1u64 << k;
        to.is_multiple_of(a) && from.div_ceil(a) * a == to && to - from < a
    })
}

/// The frame whose prologue and epilogue (under `abi`) the body starts and ends with, and the body without
/// them; the registers are the callee-saved ones the body uses.
fn frame_of<I: Decode>(abi: Abi, body: Vec<Item<I>>) -> (Option<Frame<I>>, Vec<Item<I>>) {
    let mut used = Vec::new();
    for item in &body {
        if let Item::Inst(inst) = item {
            I::regs_of(&inst.operands, &mut used);
        }
    }
    let mut saved: Vec<I::Reg> = used.into_iter().filter(|r| I::callee_saved(abi, *r)).collect();
    saved.sort();
    saved.dedup();
    // Win64's prologue moves the parameters to where System V passes them: as many as the function has.
    // The most that match: with fewer, the moves would stay in the body as instructions.
    let most = if abi == Abi::Win64 { 6 } else { 0 };
    for params in (0..=most).rev() {
        let frame = Frame {
            saved: saved.clone(),
            params,
            locals: Default::default(),
            stack_params: Vec::new(),
            naked: false,
            landing_pad: true,
        };
        if let Some((first, last)) = frame_bounds(abi, &frame, &body) {
            return inner_body(frame, body, first, last);
        }
    }
    (None, body)
}

/// Where the body between `frame`'s prologue and epilogue starts and ends in `body`, if `body` starts with the
/// one and ends with the other.
fn frame_bounds<I: Decode>(abi: Abi, frame: &Frame<I>, body: &[Item<I>]) -> Option<(usize, usize)> {
    let (pro, epi) = I::prologue_epilogue(abi, frame);
    let insts = |items: &[Item<I>]| -> Vec<Inst<I>> {
        items.iter().filter_map(|i| if let Item::Inst(x) = i { Some(copy(x)) } else { None }).collect()
    };
    let (pro, epi) = (insts(&pro), insts(&epi));
    let body_insts: Vec<(usize, &Inst<I>)> =
        body.iter().enumerate().filter_map(|(k, i)| if let Item::Inst(x) = i { Some((k, x)) } else { None }).collect();
    let same = |a: &Inst<I>, b: &Inst<I>| a.op == b.op && a.operands == b.operands;
    if body_insts.len() < pro.len() + epi.len()
        || !pro.iter().zip(&body_insts).all(|(p, (_, b))| same(p, b))
        || !epi.iter().rev().zip(body_insts.iter().rev()).all(|(e, (_, b))| same(e, b))
    {
        return None;
    }
    // The body between: from after the prologue's last instruction to before the epilogue's first (labels at
    // the epilogue's start stay in the body).
    let first = if pro.is_empty() { 0 } else { body_insts[pro.len() - 1].0 + 1 };
    let last = if epi.is_empty() { body.len() } else { body_insts[body_insts.len() - epi.len()].0 };
    Some((first, last))
}

/// The body of a function with `frame`: the items from `first` to `last`, and the labels after.
fn inner_body<I: Decode>(
    frame: Frame<I>,
    body: Vec<Item<I>>,
    first: usize,
    last: usize,
) -> (Option<Frame<I>>, Vec<Item<I>>) {
    let tail_labels = body[last..].iter().filter_map(|i| if let Item::Label(l) = i { Some(l.clone()) } else { None });
    let tail: Vec<Label> = tail_labels.collect();
    // A body that moves the stack pointer itself keeps its own frame (naked): the builder's frame owns it.
    let moves_sp =
        body[first..last].iter().any(|i| matches!(i, Item::Inst(x) if I::writes_stack(x.op, &x.operands, None)));
    if moves_sp {
        return (None, body);
    }
    let mut inner: Vec<Item<I>> = body.into_iter().take(last).skip(first).collect();
    inner.extend(tail.into_iter().map(Item::Label));
    (Some(frame), inner)
}

/// A copy of an instruction (`Inst` is `Clone` only for a `Clone` ISA type).
fn copy<I: Decode>(inst: &Inst<I>) -> Inst<I> {
    Inst { op: inst.op, operands: inst.operands.clone() }
}

/// The features the body's instructions need.
fn features<I: Decode>(body: &[Item<I>]) -> FeatureSet<I::Feature> {
    let mut set = FeatureSet::empty();
    for item in body {
        if let Item::Inst(inst) = item {
            for f in I::info(inst.op).features {
                set.insert(*f);
            }
        }
    }
    set
}

/// The constants the function reads: each place read, up to the next place read in its section or the
/// section's end, at the alignment its offset has (at most the section's).
fn constants(refs: &Refs) -> Vec<Const> {
    let mut out = Vec::new();
    let places: Vec<(&(usize, u64), &Label)> = refs.constants.iter().collect();
    for (k, ((section, offset), label)) in places.iter().enumerate() {
        let sec = &refs.object.sections[*section];
        let end = match places.get(k + 1) {
            Some(((s, o), _)) if s == section => *o,
            _ => sec.data.len() as u64,
        };
        let end = end.min(sec.data.len() as u64);
        let start = (*offset).min(end);
        let align = if *offset == 0 { sec.align } else { (1u64 << offset.trailing_zeros()).min(sec.align) };
        out.push(Const {
            label: (*label).clone(),
            align: align.min(4096) as u32,
            comment: format!("from {} at {offset:#x}", sec.name),
            bytes: sec.data[start as usize..end.max(start) as usize].to_vec(),
        });
    }
    out
}
