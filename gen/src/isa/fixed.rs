//! Encodings of fixed-width (32-bit) instructions, as described in the aarch64 and riscv64 tables: a base word
//! with every constant bit set, and the bit fields each operand's value goes into.
//!
//! Emitters use the encoding for instructions the supported assemblers lack (printed as a raw word with the
//! mnemonic in a comment); tests assemble every table entry with a real assembler and compare the bytes.

/// The values an operand may take where its field's map limits them (shift counts, scaled offsets, lanes,
/// immediates): `lo..=hi` in steps of `step`, named as an error names them. The map that encodes the value and
/// the builder's check when an instruction is added both read it, so the two cannot disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// What the value is (`shift`, `offset`, `lane`, `immediate`).
    pub what: &'static str,
    /// The smallest value allowed.
    pub lo: i64,
    /// The largest value allowed.
    pub hi: i64,
    /// Values are multiples of this (1: any).
    pub step: i64,
    /// Why this range (`for 32-bit elements`, `for 16-byte accesses`), or empty.
    pub note: &'static str,
}

impl Range {
    /// `lo..=hi`, any step, no note.
    pub const fn new(what: &'static str, lo: i64, hi: i64) -> Range {
        Range { what, lo, hi, step: 1, note: "" }
    }

    /// The range with values in multiples of `step`.
    pub const fn step(self, step: i64) -> Range {
        Range { step, ..self }
    }

    /// The range with a note saying why.
    pub const fn note(self, note: &'static str) -> Range {
        Range { note, ..self }
    }

    /// `value` if the range holds it, else the error naming both.
    pub fn check(self, value: i64) -> Result<i64, OutOfRange> {
        // No division where any step goes (most ranges), none where the step is a power of two.
        let on_step = match self.step {
            1 => true,
            s if s & (s - 1) == 0 => value & (s - 1) == 0,
            s => value % s == 0,
        };
        if (self.lo..=self.hi).contains(&value) && on_step {
            Ok(value)
        } else {
            Err(OutOfRange { value, range: self })
        }
    }
}

/// A value outside its [`Range`]: `shift 32 out of range 0..=31 for 32-bit elements`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfRange {
    /// The value written.
    pub value: i64,
    /// The values allowed.
    pub range: Range,
}

impl std::fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = &self.range;
        write!(f, "{} {} out of range {}..={}", r.what, self.value, r.lo, r.hi)?;
        if r.step != 1 {
            write!(f, " (a multiple of {})", r.step)?;
        }
        if !r.note.is_empty() {
            write!(f, " {}", r.note)?;
        }
        Ok(())
    }
}

/// A field's map: the operand's value to the value its bits take, or the range the value is outside.
pub type Map = fn(i64) -> Result<i64, OutOfRange>;

/// One bit field: bits `from..from+width` of operand `operand`'s value (after `map`) go to bits
/// `lsb..lsb+width` of the instruction word.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Operand index in the table entry.
    pub operand: u8,
    /// Lowest bit in the instruction word.
    pub lsb: u8,
    /// Width in bits.
    pub width: u8,
    /// Lowest bit taken from the operand's value.
    pub from: u8,
    /// Transform from the operand's value to the encoded value (e.g. `128 - shift`), or the [`Range`] the
    /// value is outside.
    pub map: Map,
}

fn identity(v: i64) -> Result<i64, OutOfRange> {
    Ok(v)
}

/// Operand `operand` fills `width` bits at `lsb`.
pub const fn fld(operand: u8, lsb: u8, width: u8) -> Field {
    Field { operand, lsb, width, from: 0, map: identity }
}

/// Bits `from..from+width` of operand `operand` go to `lsb..lsb+width` (split immediates).
pub const fn part(operand: u8, lsb: u8, width: u8, from: u8) -> Field {
    Field { operand, lsb, width, from, map: identity }
}

/// Operand `operand`, transformed by `map`, fills `width` bits at `lsb`.
pub const fn mapped(operand: u8, lsb: u8, width: u8, map: Map) -> Field {
    Field { operand, lsb, width, from: 0, map }
}

/// Bits `from..from+width` of operand `operand`, transformed by `map`, go to `lsb..lsb+width` (split
/// PC-relative immediates: every part of one operand takes the same map).
pub const fn mapped_part(operand: u8, lsb: u8, width: u8, from: u8, map: Map) -> Field {
    Field { operand, lsb, width, from, map }
}

/// How the value of a label operand is computed from the address `pc` of the instruction (its first word) and
/// the address `target` of the label. The value then goes through the entry's fields like any other operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelValue {
    /// `target - pc` in bytes (branches, `adr`, `auipc`+`addi`).
    Offset,
    /// `(target & !0xfff) - (pc & !0xfff)`: the distance in 4 KiB pages, in bytes (`adrp`).
    Page,
    /// `target & 0xfff`: the low 12 bits of the absolute address (`add :lo12:`).
    Lo12,
}

impl LabelValue {
    /// The operand value for an instruction at `pc` referring to `target`.
    pub fn value(self, pc: u64, target: u64) -> i64 {
        match self {
            LabelValue::Offset => target.wrapping_sub(pc) as i64,
            LabelValue::Page => (target & !0xfff).wrapping_sub(pc & !0xfff) as i64,
            LabelValue::Lo12 => (target & 0xfff) as i64,
        }
    }

    /// Whether the value depends only on `target - pc` (otherwise it also depends on where the code is placed
    /// modulo 4 KiB: code using it must be placed at a 4 KiB-aligned base, or relocated when moved).
    pub fn position_independent(self) -> bool {
        self == LabelValue::Offset
    }
}

/// The label operand of an entry and how its value is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelRef {
    /// Operand index in the table entry.
    pub operand: u8,
    /// How the value is computed.
    pub value: LabelValue,
}

/// How an instruction is encoded.
#[derive(Clone, Copy, Debug)]
pub struct Encoding {
    /// The word with all operand fields zero.
    pub base: u32,
    /// Where the operands go.
    pub fields: &'static [Field],
    /// Whether GNU as 2.40 knows the mnemonic; if not, listings carry the raw word.
    pub gas: bool,
    /// The label operand, for entries that refer to a label (branches, address computations).
    pub label: Option<LabelRef>,
    /// A second word (base and fields), for entries the assembler expands to two instructions (`lla`:
    /// `auipc` + `addi`). Its fields read the same operand values; a label's value is computed for the
    /// address of the first word.
    pub second: Option<(u32, &'static [Field])>,
}

/// `base` with `fields`, known to GNU as.
pub const fn enc(base: u32, fields: &'static [Field]) -> Encoding {
    Encoding { base, fields, gas: true, label: None, second: None }
}

/// `base` with `fields`, unknown to GNU as 2.40: emitted as a raw word.
pub const fn raw(base: u32, fields: &'static [Field]) -> Encoding {
    Encoding { base, fields, gas: false, label: None, second: None }
}

/// `base` with `fields`, where operand `operand` is a label whose value is computed as `value` says (the
/// assembler resolves it in listings; the JIT computes it).
pub const fn label(base: u32, fields: &'static [Field], operand: u8, value: LabelValue) -> Encoding {
    Encoding { base, fields, gas: true, label: Some(LabelRef { operand, value }), second: None }
}

/// Two words (`base`/`fields`, then `base2`/`fields2`) with a label operand, for pseudo-instructions the
/// assembler expands to a pair.
pub const fn label2(
    base: u32,
    fields: &'static [Field],
    base2: u32,
    fields2: &'static [Field],
    operand: u8,
    value: LabelValue,
) -> Encoding {
    Encoding { base, fields, gas: true, label: Some(LabelRef { operand, value }), second: Some((base2, fields2)) }
}

/// An error encoding an operand value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl Encoding {
    /// Encodes the first word with the given operand values (register numbers, immediates, label values as
    /// [`LabelValue`] computes them). A value must fit the bits its fields take: `0..2^bits`, or
    /// `-2^(bits-1)..0` for signed immediates.
    pub fn encode(&self, values: &[i64]) -> Result<u32, EncodeError> {
        encode_word(self.base, self.fields, values)
    }

    /// Every word of the instruction (one, or two for a [`label2`] entry).
    pub fn encode_words(&self, values: &[i64]) -> Result<Vec<u32>, EncodeError> {
        let mut words = vec![self.encode(values)?];
        if let Some((base, fields)) = self.second {
            words.push(encode_word(base, fields, values)?);
        }
        Ok(words)
    }

    /// The instruction's length in bytes.
    pub fn len_bytes(&self) -> usize {
        if self.second.is_some() {
            8
        } else {
            4
        }
    }
}

fn encode_word(base: u32, fields: &[Field], values: &[i64]) -> Result<u32, EncodeError> {
    let bits = operand_bits(fields);
    let mut word = base;
    for f in fields {
        let v = *values.get(f.operand as usize).ok_or_else(|| EncodeError(format!("missing operand {}", f.operand)))?;
        let v = field_bits(f, bits[f.operand as usize], v)
            .map_err(|e| EncodeError(format!("operand {}: {e}", f.operand)))?;
        word |= (v as u32) << f.lsb;
    }
    Ok(word)
}

/// How many bits of each operand's value a word's fields take (operand `i`'s at index `i`).
fn operand_bits(fields: &[Field]) -> [u8; 8] {
    let mut bits = [0; 8];
    for f in fields {
        let b = &mut bits[f.operand as usize];
        *b = (*b).max(f.from + f.width);
    }
    bits
}

/// The bits field `f` takes from its operand's value `v`: the map's value, if it fits the `bits` the operand's
/// fields take (`0..2^bits`, or `-2^(bits-1)..0`), cut to the field's bits. The encoder and the builder's
/// check ([`Encoding::check`]) both go through here.
#[inline]
fn field_bits(f: &Field, bits: u8, v: i64) -> Result<u64, FieldError> {
    let v = (f.map)(v).map_err(FieldError::Range)?;
    let bits = u32::from(bits);
    let fits = if v >= 0 { bits >= 63 || v < (1i64 << bits) } else { v >= -(1i64 << (bits - 1)) };
    if !fits {
        return Err(FieldError::Bits { value: v, bits });
    }
    Ok(((v >> f.from) as u64) & ((1u64 << f.width) - 1))
}

impl Encoding {
    /// Checks operand values against every field of the encoding, as [`Encoding::encode_words`] would, without
    /// encoding: `values[i]` is operand `i`'s value, `None` for a label's (known only once the code is laid
    /// out). The error is the first operand refused, with what is wrong (`shift 32 out of range 0..=31 for
    /// 32-bit elements`). What the builder runs when an instruction is added.
    #[inline]
    pub fn check(&self, values: &[Option<i64>]) -> Result<(), (u8, FieldError)> {
        if values.iter().all(Option::is_none) {
            return Ok(());
        }
        for fields in std::iter::once(self.fields).chain(self.second.map(|(_, f)| f)) {
            let bits = operand_bits(fields);
            for f in fields {
                if let Some(Some(v)) = values.get(f.operand as usize) {
                    field_bits(f, bits[f.operand as usize], *v).map_err(|e| (f.operand, e))?;
                }
            }
        }
        Ok(())
    }
}

/// Why a field refuses its operand's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldError {
    /// The field's map refused it: the value is outside the range the map gives.
    Range(OutOfRange),
    /// The (mapped) value does not fit the bits the operand's fields take.
    Bits {
        /// The value after the map.
        value: i64,
        /// The bits the operand's fields take.
        bits: u32,
    },
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldError::Range(e) => e.fmt(f),
            FieldError::Bits { value, bits } => write!(f, "value {value} does not fit in {bits} bits"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_placed_and_ranges_checked() {
        // An R-type-like word: rd at 7, rs1 at 15, a 12-bit signed immediate at 20.
        const FIELDS: &[Field] = &[fld(0, 7, 5), fld(1, 15, 5), fld(2, 20, 12)];
        let e = enc(0x13, FIELDS);
        assert_eq!(e.encode(&[1, 2, 3]).unwrap(), 0x13 | 1 << 7 | 2 << 15 | 3 << 20);
        assert_eq!(e.encode(&[0, 0, -1]).unwrap(), 0x13 | 0xfff << 20);
        assert!(e.encode(&[32, 0, 0]).is_err(), "register 32 does not fit 5 bits");
        assert!(e.encode(&[0, 0, 4096]).is_err());
        assert!(e.encode(&[0, 0, -2049]).is_err());
        assert!(e.encode(&[0, 0]).is_err(), "missing operand");
        // A split immediate: bits 0..5 at 7, bits 5..12 at 25 (S-type).
        const SPLIT: &[Field] = &[part(0, 7, 5, 0), part(0, 25, 7, 5)];
        assert_eq!(enc(0, SPLIT).encode(&[-8]).unwrap(), 0x18 << 7 | 0x7f << 25);
        // A mapped field (aarch64 right shifts encode 128 - n).
        const MAPPED: &[Field] = &[mapped(0, 16, 7, |n| Ok(128 - n))];
        assert_eq!(enc(0, MAPPED).encode(&[1]).unwrap(), 127 << 16);
    }

    #[test]
    fn label_values_and_two_word_entries() {
        assert_eq!(LabelValue::Offset.value(0x1000, 0xff8), -8);
        assert_eq!(LabelValue::Page.value(0x1ffc, 0x3004), 0x2000);
        assert_eq!(LabelValue::Lo12.value(0x1ffc, 0x3004), 4);
        assert!(LabelValue::Offset.position_independent() && !LabelValue::Page.position_independent());
        const W1: &[Field] = &[fld(0, 7, 5)];
        const W2: &[Field] = &[fld(0, 7, 5), fld(1, 20, 12)];
        let e = label2(0x17, W1, 0x13, W2, 1, LabelValue::Offset);
        assert_eq!(e.len_bytes(), 8);
        assert_eq!(e.encode_words(&[5, 3]).unwrap(), vec![0x17 | 5 << 7, 0x13 | 5 << 7 | 3 << 20]);
        assert_eq!(e.label, Some(LabelRef { operand: 1, value: LabelValue::Offset }));
    }
}
