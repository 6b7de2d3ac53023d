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
    Field {
        operand,
        lsb,
        width,
        from: 0,
        map: identity,
    }
}

/// Bits `from..from+width` of operand `operand` go to `lsb..lsb+width` (split immediates).
pub const fn part(operand: u8, lsb: u8, width: u8, from: u8) -> Field {
    Field {
        operand,
        lsb,
        width,
        from,
        map: identity,
    }
}

/// Operand `operand`, transformed by `map`, fills `width` bits at `lsb`.
pub const fn mapped(operand: u8, lsb: u8, width: u8, map: fn(i64) -> i64) -> Field {
    Field {
        operand,
        lsb,
        width,
        from: 0,
        map,
    }
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
    Encoding {
        base,
        fields,
        gas: true,
    }
}

/// `base` with `fields`, unknown to GNU as 2.40: emitted as a raw word.
pub const fn raw(base: u32, fields: &'static [Field]) -> Encoding {
    Encoding {
        base,
        fields,
        gas: false,
    }
}

/// An error encoding an operand value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl Encoding {
    /// Encodes with the given operand values (register numbers, immediates).
    pub fn encode(&self, values: &[i64]) -> Result<u32, EncodeError> {
        let mut word = self.base;
        for f in self.fields {
            let v = *values
                .get(f.operand as usize)
                .ok_or_else(|| EncodeError(format!("missing operand {}", f.operand)))?;
            let v = (f.map)(v) >> f.from;
            let mask = (1u64 << f.width) - 1;
            let bits = (v as u64) & mask;
            // Whole-operand fields must not lose bits (split immediates are checked by their last part).
            if f.from == 0 && f.fields_whole(self.fields) && (v as u64 & !mask) != 0 && v >= 0 {
                return Err(EncodeError(format!(
                    "value {v} does not fit in {} bits",
                    f.width
                )));
            }
            word |= (bits as u32) << f.lsb;
        }
        Ok(word)
    }
}

impl Field {
    fn fields_whole(&self, all: &[Field]) -> bool {
        all.iter().filter(|g| g.operand == self.operand).count() == 1
    }
}
