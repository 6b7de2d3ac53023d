//! Fixed-width decoding, read off the same table entries that encode: an entry matches a word where the word
//! has the entry's constant bits (its base word outside the operand fields); each operand's value is found by
//! inverting its fields' maps, and the entry is taken only if encoding those values gives the word again.
//! Where several entries match (an alias and its general form), the one with the most constant bits wins,
//! then the one with fewer operands (`mov` over `orr`).

use super::decode::{Decoded, Refs, Unknown, REFERENCE};
use crate::ir::{Inst, Operands};
use crate::isa::fixed::{Encoding, Field, LabelValue, Map, OutOfRange};
use crate::isa::InstructionSet;
use crate::label::Label;

/// One entry, ready for matching: the constant bits of its word(s).
pub struct Pattern {
    /// Index into the table.
    pub index: usize,
    /// Constant bits of the first word, and their values.
    pub mask: u32,
    /// The first word's constant values.
    pub bits: u32,
    /// The second word's mask and bits (two-word entries such as riscv64 `lla`).
    pub second: Option<(u32, u32)>,
    /// How many bits are constant (the more, the more specific).
    pub specific: u32,
}

/// The bits the fields cover.
fn covered(fields: &[Field]) -> u32 {
    fields.iter().fold(0, |m, f| m | ((((1u64 << f.width) - 1) as u32) << f.lsb))
}

/// The patterns of a table, most specific first.
pub fn patterns<I: InstructionSet<Encoding = Encoding>>() -> Vec<Pattern> {
    let mut out: Vec<Pattern> = I::ops()
        .iter()
        .enumerate()
        .filter_map(|(index, info)| {
            let e = info.encoding?;
            let mask = !covered(e.fields);
            let second = e.second.map(|(b, f)| (!covered(f), b & !covered(f)));
            let specific = mask.count_ones() + second.map_or(0, |(m, _)| m.count_ones());
            Some(Pattern { index, mask, bits: e.base & mask, second, specific })
        })
        .collect();
    out.sort_by_key(|p| (std::cmp::Reverse(p.specific), I::ops()[p.index].operands.len()));
    out
}

/// How an ISA builds its operands from field values.
pub trait Operands32: crate::platform::Isa + InstructionSet<Encoding = Encoding> {
    /// The operand of kind `kind` whose encoded value is `value` (register numbers, immediates), if the kind
    /// holds that value; label kinds are handled by the importer.
    fn operand(kind: &str, value: i64) -> Option<Self::Operand>;
    /// Whether kind `kind` holds signed values (offsets, signed immediates): decides between the two readings
    /// of a field whose map does not.
    fn signed(kind: &str) -> bool;
    /// The label operand.
    fn label_operand(l: Label) -> Self::Operand;
    /// The value a map the generic inversion cannot undo gives `encoded` (aarch64's logical immediates), if
    /// `map` is one.
    fn invert(_map: Map, _encoded: i64) -> Option<i64> {
        None
    }
    /// The value of an operand split over the two words of a pair (riscv64's `auipc` + `addi`/`jalr`: one
    /// offset's high and low parts), from the maps of its fields in each word and what they encode there; `None`
    /// where the maps are not such a pair.
    fn join(_maps: (Map, Map), _encoded: (i64, i64)) -> Option<i64> {
        None
    }
    /// The opcode of entry `index`.
    fn op_at(index: usize) -> Self::Op;
    /// The words of padding and of the landing pad.
    const NOP: u32;
    /// The landing pad's word (`bti c`), if the ISA has one.
    const PAD: Option<u32>;
}

/// The value of a field's operand bits in `word`.
fn extract(word: u32, f: &Field) -> i64 {
    ((((word >> f.lsb) as u64) & ((1u64 << f.width) - 1)) << f.from) as i64
}

/// The values `v` that operand fields `fields` (one map) give `encoded`, the map inverted: affine maps by two
/// probes, small ranges by search. `bits` is the operand's width in the word.
fn invert(fields: &[&Field], encoded: i64, bits: u32, signed: bool) -> Vec<i64> {
    let map = fields[0].map;
    let m = 1i64 << bits.min(62);
    let modm = |v: i64| v.rem_euclid(m);
    let hits = |v: i64| map(v).is_ok_and(|x| modm(x) == encoded);
    let (lo, hi, step) = match map(i64::MIN) {
        Err(OutOfRange { range, .. }) => (range.lo, range.hi, range.step),
        Ok(_) => (-(m / 2), m - 1, 1),
    };
    let mut out = Vec::new();
    let v0 = if lo < 0 && hi > 0 && map(0).is_ok() { 0 } else { lo };
    if let (Ok(m0), Ok(m1)) = (map(v0), map(v0 + step)) {
        let d = modm(m1 - m0);
        // `k` steps from `v0` give `encoded`, and every `period` steps the encoding comes round again.
        let k = if d == 1 {
            Some((modm(encoded - m0), m))
        } else if d == m - 1 {
            Some((modm(m0 - encoded), m))
        } else if d != 0 && m % d == 0 {
            // A map that keeps the value in steps (a branch offset in halfwords: `v -> v`, step 2).
            let k = modm(encoded - m0);
            (k % d == 0).then_some((k / d, m / d))
        } else {
            None
        };
        if let Some((k, period)) = k {
            // The range may be of a part of the value (riscv64 memory operands hold base and offset): only the
            // map decides.
            out.extend([v0 + step * k, v0 + step * (k - period)].into_iter().filter(|&v| hits(v)));
        }
    }
    if out.is_empty() && (hi - lo) / step <= 1 << 16 {
        out.extend((0..=(hi - lo) / step).map(|k| lo + k * step).filter(|&v| hits(v)));
    }
    // A field the object leaves to the linker holds 0 (a relocated label: `auipc`'s high part).
    if out.is_empty() && hits(0) {
        out.push(0);
    }
    out.sort_by_key(|&v| {
        if signed {
            v.abs()
        } else if v < 0 {
            i64::MAX
        } else {
            v
        }
    });
    out.dedup();
    out
}

/// The operand values of entry `e` that encode `words`, if any.
fn values<I: Operands32>(e: &Encoding, words: &[u32], kinds: &[&str]) -> Option<Vec<i64>> {
    let mut vals = vec![0i64; kinds.len()];
    for (j, kind) in kinds.iter().enumerate() {
        let in_word = |fields: &'static [Field], w: u32| -> Option<(Vec<&'static Field>, u32)> {
            let fs: Vec<&Field> = fields.iter().filter(|f| f.operand as usize == j).collect();
            (!fs.is_empty()).then_some((fs, w))
        };
        let Some((fs, w)) = in_word(e.fields, words[0]).or_else(|| e.second.and_then(|(_, f)| in_word(f, words[1])))
        else {
            continue;
        };
        // The fields sharing the first field's map (an operand may go through two maps: `lsl` as UBFM).
        let same: Vec<&Field> = fs.iter().copied().filter(|f| f.map as usize == fs[0].map as usize).collect();
        let bits = same.iter().map(|f| u32::from(f.from + f.width)).max().unwrap_or(0);
        let encoded = same.iter().fold(0i64, |acc, f| acc | extract(w, f));
        // An operand in both words of a pair: its parts joined.
        let in_second: Vec<&Field> =
            e.second.map_or(Vec::new(), |(_, f)| f.iter().filter(|f| f.operand as usize == j).collect());
        if let (Some(f2), Some(w2), true) = (in_second.first(), words.get(1), w == words[0]) {
            let encoded2 = in_second.iter().fold(0i64, |acc, f| acc | extract(*w2, f));
            if let Some(v) = I::join((same[0].map, f2.map), (encoded, encoded2)) {
                vals[j] = v;
                continue;
            }
        }
        vals[j] = match I::invert(same[0].map, encoded) {
            Some(v) => v,
            None => *invert(&same, encoded, bits, I::signed(kind)).first()?,
        };
    }
    let again = e.encode_words(&vals).ok()?;
    (again == words[..again.len()]).then_some(vals)
}

/// Decodes the word(s) at `code[at..]` against `patterns`.
pub fn decode<I: Operands32>(
    patterns: &[Pattern],
    code: &[u8],
    at: usize,
    refs: &mut Refs,
) -> Result<(Decoded<I>, usize), Unknown> {
    let word_at = |k: usize| code.get(k..k + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()));
    let Some(word) = word_at(at) else {
        let text = format!("{} bytes left", code.len() - at);
        return Err(Unknown { len: 0, form: "truncated".into(), text, expressed: false });
    };
    if word & 3 != 3 && I::ARCH == crate::target::Arch::Riscv64 {
        let text =
            format!("a compressed instruction {:#06x} (RVC; asmgen's tables encode 32-bit words)", word & 0xffff);
        return Err(Unknown { len: 2, form: "compressed (RVC)".into(), text, expressed: false });
    }
    let second = word_at(at + 4);
    if word == I::NOP {
        let inst = matching::<I>(patterns, word, None, at, refs).ok().map(|(d, _)| d);
        return Ok((Decoded::Nop(inst.and_then(|d| if let Decoded::Inst(i) = d { Some(i) } else { None })), 4));
    }
    if Some(word) == I::PAD && at == 0 {
        return Ok((Decoded::Pad, 4));
    }
    matching::<I>(patterns, word, second, at, refs).map_err(|why| {
        let (form, text) = match why {
            Some((name, e)) => (name.to_string(), format!("{name} ({word:#010x}): {e}")),
            None => (format!("word {word:#010x}"), format!("word {word:#010x}")),
        };
        Unknown { len: 4, expressed: text.contains(REFERENCE), form, text }
    })
}

/// An entry whose fields matched a word but whose operands could not be made: its name, and why.
type Failed = (&'static str, String);

/// The first entry of `patterns` that decodes `word` (and `second`, for two-word entries) with operands; else
/// the entry whose fields matched but whose operands could not be made, and why.
fn matching<I: Operands32>(
    patterns: &[Pattern],
    word: u32,
    second: Option<u32>,
    at: usize,
    refs: &mut Refs,
) -> Result<(Decoded<I>, usize), Option<Failed>> {
    let mut failed = None;
    for p in patterns {
        if word & p.mask != p.bits {
            continue;
        }
        let words = match (p.second, second) {
            (None, _) => vec![word],
            (Some((m, b)), Some(w2)) if w2 & m == b => vec![word, w2],
            _ => continue,
        };
        let info = &I::ops()[p.index];
        let Some(e) = info.encoding else { continue };
        let Some(vals) = values::<I>(&e, &words, info.kinds) else { continue };
        match operands::<I>(p.index, &e, &vals, at, words.len() * 4, refs) {
            Ok(ops) => return Ok((Decoded::Inst(Inst { op: I::op_at(p.index), operands: ops }), words.len() * 4)),
            Err(e) => failed = failed.or(Some((info.name, e))),
        }
    }
    Err(failed)
}

/// The operands of entry `index` from its field values; the label operand from the relocation, or from the
/// offset the word holds.
fn operands<I: Operands32>(
    index: usize,
    e: &Encoding,
    vals: &[i64],
    at: usize,
    len: usize,
    refs: &mut Refs,
) -> Result<Operands<I::Operand>, String> {
    let info = &I::ops()[index];
    let label = e.label.map(|l| l.operand as usize);
    let mut out = Operands::new();
    for (j, kind) in info.kinds.iter().enumerate() {
        if Some(j) == label {
            let l = match refs.reloc(at, len) {
                Some((_, r)) => {
                    let r = r.clone();
                    let (l, off) = refs.reloc_label(&r, 0)?;
                    if off != 0 {
                        return Err(format!("{REFERENCE} to {} {off:+}", l.name()));
                    }
                    l
                }
                None if e.label.is_some_and(|l| l.value == LabelValue::Offset) => {
                    let target = refs.start as i64 + at as i64 + vals[j];
                    refs.label_at(refs.section, target, None)?.0
                }
                None => return Err(format!("{REFERENCE} to a page without its relocation")),
            };
            out.push(I::label_operand(l));
        } else {
            out.push(I::operand(kind, vals[j]).ok_or_else(|| format!("value {} for kind {kind}", vals[j]))?);
        }
    }
    Ok(out)
}

/// The bits of an instruction a relocation leaves to the linker: its label operand's fields.
pub fn label_mask(e: &Encoding, len: usize) -> Vec<u8> {
    let Some(l) = e.label else { return vec![0xff; len] };
    let word_mask = |fields: &[Field]| {
        !fields
            .iter()
            .filter(|f| f.operand == l.operand)
            .fold(0u32, |m, f| m | ((((1u64 << f.width) - 1) as u32) << f.lsb))
    };
    let mut out = word_mask(e.fields).to_le_bytes().to_vec();
    if let Some((_, f)) = e.second {
        out.extend(word_mask(f).to_le_bytes());
    }
    out.resize(len, 0xff);
    out
}
