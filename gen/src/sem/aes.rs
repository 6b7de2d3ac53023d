//! AES's S-box and round steps on a 16-byte state (byte `r + 4c` is row `r` of column `c`, as FIPS 197 lays the
//! state out), for the semantics of all three ISAs: x86_64's AES-NI and VAES, aarch64's AESE/AESD/AESMC/AESIMC,
//! riscv64's Zkne/Zknd (on two 64-bit halves) and Zvkned (on 128-bit element groups).
//! The S-box is computed from its definition.

/// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
pub const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut r = 0;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
        b >>= 1;
    }
    r
}

/// The AES S-box: the inverse in GF(2^8) (0 to 0), then the affine map with 0x63.
pub const SBOX: [u8; 256] = {
    let mut t = [0; 256];
    let mut i = 0;
    while i < 256 {
        let mut x = 1u8;
        let mut k = 0;
        while k < 254 {
            x = gf_mul(x, i as u8);
            k += 1;
        }
        t[i] = x ^ x.rotate_left(1) ^ x.rotate_left(2) ^ x.rotate_left(3) ^ x.rotate_left(4) ^ 0x63;
        i += 1;
    }
    t
};

/// The inverse S-box.
pub const INV_SBOX: [u8; 256] = {
    let mut t = [0; 256];
    let mut i = 0;
    while i < 256 {
        t[SBOX[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// The round constants of the key schedule, `rcon[0]` = 1 (index 10 and beyond: 0, as `aes64ks1i` 10 uses).
pub fn rcon(i: usize) -> u32 {
    const RCON: [u8; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];
    RCON.get(i).map_or(0, |&c| c as u32)
}

/// (Inv)SubBytes.
pub fn sub_bytes(s: [u8; 16], inverse: bool) -> [u8; 16] {
    let t = if inverse { &INV_SBOX } else { &SBOX };
    s.map(|b| t[b as usize])
}

/// SubWord on a little-endian word.
pub fn sub_word(w: u32) -> u32 {
    u32::from_le_bytes(w.to_le_bytes().map(|b| SBOX[b as usize]))
}

/// (Inv)ShiftRows: row `r` of column `c` comes from column `c + r` (`c - r` inverse).
pub fn shift_rows(s: [u8; 16], inverse: bool) -> [u8; 16] {
    std::array::from_fn(|i| {
        let (r, c) = (i % 4, i / 4);
        let from = if inverse { (c + 4 - r) % 4 } else { (c + r) % 4 };
        s[r + 4 * from]
    })
}

/// (Inv)MixColumns: each column times the circulant matrix 2 3 1 1 (14 11 13 9).
pub fn mix_columns(s: [u8; 16], inverse: bool) -> [u8; 16] {
    let coef = if inverse { [14, 11, 13, 9] } else { [2, 3, 1, 1] };
    std::array::from_fn(|i| {
        let (r, c) = (i % 4, i / 4);
        (0..4).fold(0, |x, j| x ^ gf_mul(coef[(j + 4 - r) % 4], s[4 * c + j]))
    })
}

/// One round on a state held as a little-endian `u128`: encryption (`decrypt` false: SubBytes, ShiftRows, then
/// MixColumns when `mix`) or decryption (InvShiftRows, InvSubBytes, then InvMixColumns after `key` is added when
/// `mix`, as Zvkned's `vaesdm` and Zknd's `aes64dsm` define it); `key` is added last otherwise.
pub fn round(state: u128, key: u128, decrypt: bool, mix: bool) -> u128 {
    let s = state.to_le_bytes();
    let s = if decrypt { sub_bytes(shift_rows(s, true), true) } else { shift_rows(sub_bytes(s, false), false) };
    match (decrypt, mix) {
        (false, true) => u128::from_le_bytes(mix_columns(s, false)) ^ key,
        (true, true) => u128::from_le_bytes(mix_columns((u128::from_le_bytes(s) ^ key).to_le_bytes(), true)),
        _ => u128::from_le_bytes(s) ^ key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> u128 {
        let b: Vec<u8> = (0..16).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect();
        u128::from_le_bytes(b.try_into().unwrap())
    }

    #[test]
    fn sbox_is_aes() {
        assert_eq!((SBOX[0], SBOX[1], SBOX[0x53], SBOX[0xff]), (0x63, 0x7c, 0xed, 0x16));
        assert_eq!(INV_SBOX[0x63], 0);
    }

    /// FIPS 197 appendix B: round 1 of the example cipher, its SubBytes and ShiftRows, and their inverses.
    #[test]
    fn rounds_match_fips_197() {
        let (start, k1, next) = (
            hex("193de3bea0f4e22b9ac68d2ae9f84808"),
            hex("a0fafe1788542cb123a339392a6c7605"),
            hex("a49c7ff2689f352b6b5bea43026a5049"),
        );
        assert_eq!(round(start, k1, false, true), next);
        // After SubBytes and ShiftRows (the final round's steps), and back.
        let shifted = hex("d4bf5d30e0b452aeb84111f11e2798e5");
        assert_eq!(round(start, 0, false, false), shifted);
        assert_eq!(round(shifted, 0, true, false), start);
        // The inverse steps undo round 1.
        let undone = sub_bytes(shift_rows(mix_columns((next ^ k1).to_le_bytes(), true), true), true);
        assert_eq!(u128::from_le_bytes(undone), start);
    }
}
