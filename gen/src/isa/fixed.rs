//! Encodings of fixed-width (32-bit) instructions, as described in the aarch64 and riscv64 tables: a base word
//! with every constant bit set, and the bit fields each operand's value goes into.
//!
//! Emitters use the encoding for instructions the supported assemblers lack (printed as a raw word with the
//! mnemonic in a comment); tests assemble every table entry with a real assembler and compare the bytes.

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
    /// Transform from the operand's value to the encoded value (e.g. `128 - shift`).
    pub map: fn(i64) -> i64,
}

fn identity(v: i64) -> i64 {
    v
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
pub const fn mapped(operand: u8, lsb: u8, width: u8, map: fn(i64) -> i64) -> Field {
    Field { operand, lsb, width, from: 0, map }
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
}

/// `base` with `fields`, known to GNU as.
pub const fn enc(base: u32, fields: &'static [Field]) -> Encoding {
    Encoding { base, fields, gas: true }
}

/// `base` with `fields`, unknown to GNU as 2.40: emitted as a raw word.
pub const fn raw(base: u32, fields: &'static [Field]) -> Encoding {
    Encoding { base, fields, gas: false }
}

/// An error encoding an operand value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl Encoding {
    /// Encodes with the given operand values (register numbers, immediates). A value must fit the bits its
    /// fields take: `0..2^bits`, or `-2^(bits-1)..0` for signed immediates.
    pub fn encode(&self, values: &[i64]) -> Result<u32, EncodeError> {
        let mut word = self.base;
        for f in self.fields {
            let v =
                *values.get(f.operand as usize).ok_or_else(|| EncodeError(format!("missing operand {}", f.operand)))?;
            let v = (f.map)(v);
            let bits = self.operand_bits(f.operand);
            let fits = if v >= 0 { bits >= 63 || v < (1i64 << bits) } else { v >= -(1i64 << (bits - 1)) };
            if !fits {
                return Err(EncodeError(format!("operand {}: value {v} does not fit in {bits} bits", f.operand)));
            }
            let part = ((v >> f.from) as u64) & ((1u64 << f.width) - 1);
            word |= (part as u32) << f.lsb;
        }
        Ok(word)
    }

    /// How many bits of an operand's value its fields take.
    fn operand_bits(&self, operand: u8) -> u32 {
        self.fields.iter().filter(|f| f.operand == operand).map(|f| u32::from(f.from + f.width)).max().unwrap_or(0)
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
        const MAPPED: &[Field] = &[mapped(0, 16, 7, |n| 128 - n)];
        assert_eq!(enc(0, MAPPED).encode(&[1]).unwrap(), 127 << 16);
    }
}
