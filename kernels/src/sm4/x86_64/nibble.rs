//! Nibble-table lookups: a byte-wise map of every byte as `lo[b & 15] ^ hi[b >> 4]`, two `vpshufb`s, with the
//! tables in registers or read from memory.

use super::consts::Consts;
use super::width::*;
use asmgen::isa::x86_64::rip;
use asmgen::Label;

/// `t = lo[t & 15] ^ hi[t >> 4]` on every byte, the nibble tables `(lo, hi)` in registers: an affine map
/// ([`PRE_LO`]/[`PRE_HI`] the S-box's pre-affine A1, [`POST_LO`]/[`POST_HI`] its post-affine). Clobbers `s`.
pub fn affine_map(b: &mut B, c: &Consts, w: Width, t: V, s: V, (lo, hi): (V, V)) {
    nibbles(b, c, w, t, s);
    vshufb(b, w, t, lo, t);
    vshufb(b, w, s, hi, s);
    vxor(b, w, t, t, s);
}

/// `out = lo[l] ^ hi[h]`, the nibble tables `(lo, hi)` read from memory into `d` and `tmp` (`vpshufb` takes
/// its table from a register), `l` and `h` the low and high nibbles of the bytes looked up ([`nibbles`]).
pub fn lookup_in_memory(b: &mut B, w: Width, out: V, [d, tmp]: [V; 2], [l, h]: [V; 2], (lo, hi): &(Label, Label)) {
    load_table(b, w, d, lo);
    vshufb(b, w, d, d, l);
    load_table(b, w, tmp, hi);
    vshufb(b, w, tmp, tmp, h);
    vxor(b, w, out, d, tmp);
}

/// `t = lo(t), s = hi(t)`: the low nibble of every byte of `t` and the high nibble, as `vpshufb` indices.
pub fn nibbles(b: &mut B, c: &Consts, w: Width, t: V, s: V) {
    vsrld(b, w, s, t, 4);
    vand(b, w, t, t, rip(&c.nibble));
    vand(b, w, s, s, rip(&c.nibble));
}

/// Loads the 32-byte nibble table at `l` into `d` (its first 16 bytes on xmm).
pub fn load_table(b: &mut B, w: Width, d: V, l: &Label) {
    match w {
        Width::X => b.vmovdqa(d.x(), rip(l)),
        Width::Y => b.vmovdqa(d.y(), rip(l)),
        Width::Z => panic!("the domain tables are read at xmm or ymm width"),
    };
}
