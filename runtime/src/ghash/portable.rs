//! The portable backend: POLYVAL in constant-time Rust, with the same C ABI and key-table layout as the
//! listings, so that dispatch treats every backend alike and tests can compare key tables byte for byte.
//!
//! Carry-less products are computed with integer multiplications on operands whose bits are spread four apart
//! (so no carry reaches a bit of the same residue class), hence without secret-dependent branches or indices.

const POLY_HI: u64 = 0xc200_0000_0000_0000;

/// 32 x 32 -> 64-bit carry-less product.
fn clmul32(x: u32, y: u32) -> u64 {
    const M: [u32; 4] = [0x1111_1111, 0x2222_2222, 0x4444_4444, 0x8888_8888];
    let mut z = 0u64;
    for i in 0..4 {
        let mut acc = 0u64;
        for j in 0..4 {
            // Every product has at most 8 bits in each column, so carries stay within 3 bits of their source
            // and never reach the next bit of the same class.
            acc ^= u64::from(x & M[j]) * u64::from(y & M[(i + 4 - j) % 4]);
        }
        z |= acc & (0x1111_1111_1111_1111u64 << i);
    }
    z
}

/// 64 x 64 -> 128-bit carry-less product.
fn clmul64(x: u64, y: u64) -> u128 {
    let (x0, x1) = (x as u32, (x >> 32) as u32);
    let (y0, y1) = (y as u32, (y >> 32) as u32);
    let lo = clmul32(x0, y0) as u128;
    let hi = clmul32(x1, y1) as u128;
    let mid = (clmul32(x0, y1) ^ clmul32(x1, y0)) as u128;
    lo ^ (mid << 32) ^ (hi << 64)
}

/// `a * b * x^-128` in POLYVAL's field.
pub(crate) fn mul(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mid = clmul64(a0, b1) ^ clmul64(a1, b0);
    reduce(lo ^ (mid << 64), hi ^ (mid >> 64))
}

/// `(hi:lo) * x^-128 mod P`: fold the low 64 bits twice (as the listings do).
fn reduce(lo: u128, hi: u128) -> u128 {
    let mut t = lo;
    for _ in 0..2 {
        t = t.rotate_left(64) ^ clmul64(t as u64, POLY_HI);
    }
    t ^ hi
}

/// `mulX_POLYVAL`: multiply by x, constant-time.
fn mul_x(h: u128) -> u128 {
    let carry = 0u128.wrapping_sub(h >> 127);
    (h << 1) ^ (carry & ((u128::from(POLY_HI) << 64) | 1))
}

fn load(p: *const u8, reflected: bool) -> u128 {
    // SAFETY: callers pass pointers to 16 readable bytes (the C contract of the kernels).
    let b: [u8; 16] = unsafe { core::ptr::read_unaligned(p as *const [u8; 16]) };
    if reflected {
        u128::from_be_bytes(b)
    } else {
        u128::from_le_bytes(b)
    }
}

fn store(p: *mut u8, v: u128, reflected: bool) {
    let b = if reflected { v.to_be_bytes() } else { v.to_le_bytes() };
    // SAFETY: callers pass pointers to 16 writable bytes.
    unsafe { core::ptr::write_unaligned(p as *mut [u8; 16], b) }
}

/// H^1 in the table's form: the POLYVAL key as it is, or GHASH's converted (RFC 8452, appendix A).
fn first(h: *const u8, reflected: bool) -> u128 {
    let h1 = load(h, reflected);
    if reflected {
        mul_x(h1)
    } else {
        h1
    }
}

/// The Karatsuba half-sum of `p` (its two 64-bit halves xored) in both halves, as the table holds it.
fn half_sum(p: u128) -> u128 {
    let k = (p as u64) ^ ((p >> 64) as u64);
    (u128::from(k) << 64) | u128::from(k)
}

fn init(table: *mut u8, h: *const u8, reflected: bool) {
    let h1 = first(h, reflected);
    let mut p = h1;
    for i in 0..8 {
        // SAFETY: the table is 2048 bytes (this backend fills the common first 256).
        unsafe {
            store(table.add(16 * i), p, false);
            store(table.add(128 + 16 * i), half_sum(p), false);
        }
        p = mul(p, h1);
    }
}

/// H^1 and its Karatsuba half-sum, in the table's form, at `table[0..16]` and `table[128..144]`: what every
/// backend's update reads for a single block (a fresh key's first one-block message needs no more).
pub(crate) fn first_power(table: &mut [u8; 144], h: &[u8; 16], reflected: bool) {
    let h1 = first(h.as_ptr(), reflected);
    table[..16].copy_from_slice(&h1.to_le_bytes());
    table[128..].copy_from_slice(&half_sum(h1).to_le_bytes());
}

fn update(state: *mut u8, table: *const u8, data: *const u8, nblocks: usize, reflected: bool) {
    let h = load(table, false);
    let mut s = load(state, reflected);
    for i in 0..nblocks {
        // SAFETY: `data` has `16 * nblocks` readable bytes.
        s = mul(s ^ load(unsafe { data.add(16 * i) }, reflected), h);
    }
    store(state, s, reflected);
}

/// GHASH key setup (portable).
pub(crate) unsafe extern "C" fn ghash_init(table: *mut u8, h: *const u8) {
    init(table, h, true)
}
/// GHASH update (portable).
pub(crate) unsafe extern "C" fn ghash_update(state: *mut u8, table: *const u8, data: *const u8, nblocks: usize) {
    update(state, table, data, nblocks, true)
}
/// POLYVAL key setup (portable).
pub(crate) unsafe extern "C" fn polyval_init(table: *mut u8, h: *const u8) {
    init(table, h, false)
}
/// POLYVAL update (portable).
pub(crate) unsafe extern "C" fn polyval_update(state: *mut u8, table: *const u8, data: *const u8, nblocks: usize) {
    update(state, table, data, nblocks, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clmul64_slow(x: u64, y: u64) -> u128 {
        (0..64).filter(|i| y >> i & 1 == 1).fold(0u128, |acc, i| acc ^ ((x as u128) << i))
    }

    #[test]
    fn clmul_matches_shift_and_xor() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let t = s.rotate_left(23) ^ 0x5555;
            assert_eq!(clmul64(s, t), clmul64_slow(s, t));
        }
        assert_eq!(clmul64(u64::MAX, u64::MAX), clmul64_slow(u64::MAX, u64::MAX));
    }
}
