//! x86_64 semantics: the machine state and one [`Sem`] per entry of `isa::x86_64::OPS`, in `Op` order
//! ([`sem`] looks an entry up). Vector registers (zmm0-zmm31) hold [`VEC_BYTES`] bytes, little-endian; writing
//! an xmm or ymm register (VEX) or a zmm register (EVEX) zeroes the rest of it. The flags are the status flags and
//! the direction flag ([`DF`], which `cld` and `std` change and the string instructions follow). Two entries stop
//! the interpreter with a [`Fault`] instead of modelling what no interpreter of one function can: `rdrand`
//! ([`RDRAND`]: a random number) and `call_reg` ([`INDIRECT_CALL`]: a call to an address).

use super::aes;
use super::{Fault, Flow, Memory, Role, VEC_BYTES, VEC_REGS};
use crate::isa::x86_64::{Mem, Op, Operand, Reg, Size};

/// Carry flag.
pub const CF: u64 = 1;
/// Parity flag.
pub const PF: u64 = 1 << 2;
/// Auxiliary-carry flag.
pub const AF: u64 = 1 << 4;
/// Zero flag.
pub const ZF: u64 = 1 << 6;
/// Sign flag.
pub const SF: u64 = 1 << 7;
/// Overflow flag.
pub const OF: u64 = 1 << 11;
/// The six status flags.
pub const STATUS: u64 = CF | PF | AF | ZF | SF | OF;
/// Direction flag (a control flag: string instructions step back where it is set). The model keeps it in
/// [`State::flags`] beside the status flags.
pub const DF: u64 = 1 << 10;

/// A vector register's bytes.
pub type Vector = [u8; VEC_BYTES];

/// The architectural state the semantics change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// rax..r15.
    pub gpr: [u64; 16],
    /// xmm/ymm/zmm 0..31 (xmm and ymm operands name 0..15).
    pub vec: [Vector; VEC_REGS],
    /// RFLAGS (the status flags are the ones modelled).
    pub flags: u64,
    /// The opmask registers k0..k7.
    pub k: [u64; 8],
}

impl Default for State {
    fn default() -> State {
        State { gpr: [0; 16], vec: [[0; VEC_BYTES]; VEC_REGS], flags: 0, k: [0; 8] }
    }
}

/// The state and memory an instruction runs on.
pub struct Machine<'m> {
    /// Registers and flags.
    pub state: State,
    /// Memory.
    pub mem: &'m mut dyn Memory,
}

/// An entry's execution function.
pub type Exec = for<'o> fn(&mut Machine<'_>, &'o [Operand]) -> Result<Flow<'o>, Fault>;

/// The semantics of one table entry.
pub struct Sem {
    /// The entry (checked equal to its index).
    pub op: Op,
    /// Each operand's role, in the table's operand order.
    pub roles: &'static [Role],
    /// The registers it reads or writes without naming them (`mul`'s rax and rdx, `mulx`'s rdx, `sha256rnds2`'s
    /// xmm0), each with its role.
    pub implicit: &'static [(Reg, Role)],
    /// Status flags read.
    pub flags_read: u64,
    /// Status flags written (defined or not).
    pub flags_written: u64,
    /// Of those written, the ones the architecture leaves undefined (not compared with hardware).
    pub flags_undefined: u64,
    /// Whether the latency may depend on operand values (a constant-time hazard with secret operands).
    pub variable_time: bool,
    /// What it does.
    pub exec: Exec,
}

/// The semantics of an entry.
pub fn sem(op: Op) -> &'static Sem {
    &SEMS[op as usize]
}

/// The address a memory operand names.
pub fn address(m: &mut Machine<'_>, a: &Mem) -> Result<u64, Fault> {
    let mut addr = (a.disp as i64) as u64;
    if let Some(l) = &a.label {
        let base = m.mem.label(l).ok_or(Fault { addr: 0, len: 0, what: "unknown label" })?;
        addr = addr.wrapping_add(base);
    }
    if let Some(b) = a.base {
        addr = addr.wrapping_add(m.state.gpr[b.0 as usize]);
    }
    if let Some((i, s)) = a.index {
        addr = addr.wrapping_add(m.state.gpr[i.0 as usize].wrapping_mul(s as u64));
    }
    Ok(addr)
}

/// The bytes a memory operand of size `s` reads or writes.
pub(crate) fn size_bytes(s: Size) -> usize {
    match s {
        Size::Byte => 1,
        Size::Dword => 4,
        Size::Qword => 8,
        Size::Xmmword => 16,
        Size::Ymmword => 32,
        Size::Zmmword => 64,
    }
}

/// `vgf2p8affineqb` (`inverse`: `vgf2p8affineinvqb`) at any width: `d = affine(a, matrix b, imm c)`.
fn affine_op(m: &mut Machine<'_>, o: &[Operand], inverse: bool) -> Result<(), Fault> {
    let c = imm(&o[3]);
    vop(m, o, |w, a, b| gf2p8affine(w, a, b, c, inverse))
}

/// `vpclmulqdq` at any width: per 128-bit lane, the product of the qwords `imm` selects.
fn clmul_op(m: &mut Machine<'_>, o: &[Operand]) -> Result<(), Fault> {
    let n = imm(&o[3]);
    vop(m, o, |w, a, b| lanes(w, a, b, |x, y| pclmul(x, y, n)))
}

/// `vinserti128` / `vinserti64x4`: `d = a` with its half of `bytes` bytes at position `n & 1` replaced by `b`'s
/// low `bytes` bytes.
fn insert_half(m: &mut Machine<'_>, o: &[Operand], bytes: usize) -> Result<(), Fault> {
    let (mut a, b, n) = (vec(m, &o[1])?, vec(m, &o[2])?, imm(&o[3]) as usize & 1);
    a[n * bytes..(n + 1) * bytes].copy_from_slice(&b[..bytes]);
    set_vec(m, &o[0], a)
}

/// `vextracti128` / `vextracti64x4`: `d` = the half of `bytes` bytes of `a` at position `n & 1`, zero-extended.
fn extract_half(m: &mut Machine<'_>, o: &[Operand], bytes: usize) -> Result<(), Fault> {
    let (a, n) = (vec(m, &o[1])?, imm(&o[2]) as usize & 1);
    let mut d = [0; VEC_BYTES];
    d[..bytes].copy_from_slice(&a[n * bytes..(n + 1) * bytes]);
    set_vec(m, &o[0], d)
}

/// Reads a general-purpose operand (register, 32-bit register, immediate sign-extended, or memory of up to 8
/// bytes, zero-extended).
fn gpr(m: &mut Machine<'_>, o: &Operand) -> Result<u64, Fault> {
    Ok(match o {
        Operand::Gpr(n) => m.state.gpr[*n as usize],
        Operand::Gpr32(n) => m.state.gpr[*n as usize] & 0xffff_ffff,
        Operand::Gpr8(n) => m.state.gpr[*n as usize] & 0xff,
        Operand::Imm(i) => *i as u64,
        Operand::Sel(i) => *i as u64,
        Operand::Mem(s, a) => {
            let addr = address(m, a)?;
            let mut b = [0; 8];
            m.mem.read(addr, &mut b[..size_bytes(*s).min(8)])?;
            u64::from_le_bytes(b)
        }
        _ => unreachable!("not a general-purpose operand: {o:?}"),
    })
}

fn set_gpr(m: &mut Machine<'_>, o: &Operand, v: u64) -> Result<(), Fault> {
    match o {
        Operand::Gpr(n) => m.state.gpr[*n as usize] = v,
        Operand::Gpr32(n) => m.state.gpr[*n as usize] = v & 0xffff_ffff,
        Operand::Gpr8(n) => m.state.gpr[*n as usize] = (m.state.gpr[*n as usize] & !0xff) | (v & 0xff),
        Operand::Mem(s, a) => {
            let addr = address(m, a)?;
            m.mem.write(addr, &v.to_le_bytes()[..size_bytes(*s).min(8)])?;
        }
        _ => unreachable!("not a general-purpose destination: {o:?}"),
    }
    Ok(())
}

/// Reads a vector operand; memory is read at its width, the rest zero.
fn vec(m: &mut Machine<'_>, o: &Operand) -> Result<Vector, Fault> {
    let mut v = [0; VEC_BYTES];
    match o {
        Operand::Xmm(n) => v[..16].copy_from_slice(&m.state.vec[*n as usize][..16]),
        Operand::Ymm(n) => v[..32].copy_from_slice(&m.state.vec[*n as usize][..32]),
        Operand::Zmm(n) => v = m.state.vec[*n as usize],
        Operand::Mem(s, a) => {
            let addr = address(m, a)?;
            m.mem.read(addr, &mut v[..size_bytes(*s)])?;
        }
        _ => unreachable!("not a vector operand: {o:?}"),
    }
    Ok(v)
}

/// Writes a vector operand: xmm and ymm zero the upper bytes (VEX), memory is written at its width.
fn set_vec(m: &mut Machine<'_>, o: &Operand, v: Vector) -> Result<(), Fault> {
    match o {
        Operand::Xmm(n) => {
            m.state.vec[*n as usize] = [0; VEC_BYTES];
            m.state.vec[*n as usize][..16].copy_from_slice(&v[..16]);
        }
        Operand::Ymm(n) => {
            m.state.vec[*n as usize] = [0; VEC_BYTES];
            m.state.vec[*n as usize][..32].copy_from_slice(&v[..32]);
        }
        Operand::Zmm(n) => m.state.vec[*n as usize] = v,
        Operand::Mem(s, a) => {
            let addr = address(m, a)?;
            m.mem.write(addr, &v[..size_bytes(*s)])?;
        }
        _ => unreachable!("not a vector destination: {o:?}"),
    }
    Ok(())
}

/// The little-endian dword at dword index `i` of `v`.
fn dword(v: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(v[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// The four dwords of 16 bytes.
fn dwords(v: &[u8]) -> [u32; 4] {
    std::array::from_fn(|i| dword(v, i))
}

/// 16 bytes from four dwords.
fn from_dwords(d: [u32; 4]) -> [u8; 16] {
    std::array::from_fn(|i| d[i / 4].to_le_bytes()[i % 4])
}

/// Dword-wise `f(a, b)` on 16 bytes.
fn map_d(a: &[u8], b: &[u8], f: impl Fn(u32, u32) -> u32) -> [u8; 16] {
    from_dwords(std::array::from_fn(|i| f(dword(a, i), dword(b, i))))
}

/// Qword-wise `f(a, b)` on 16 bytes.
fn map_q(a: &[u8], b: &[u8], f: impl Fn(u64, u64) -> u64) -> [u8; 16] {
    std::array::from_fn(|i| f(qword(a, i / 8), qword(b, i / 8)).to_le_bytes()[i % 8])
}

/// A legacy SSE instruction with an immediate second operand: `d = f(d, imm)`, the bytes above 16 kept.
fn legacy_imm(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(&[u8], u64) -> [u8; 16]) -> Result<(), Fault> {
    let d = vec(m, &o[0])?;
    let n = imm(&o[1]);
    set_legacy(m, &o[0], f(&d[..16], n))
}

/// SHA-1's round function and constant for rounds `20 * i` to `20 * i + 19`.
fn sha1_f(i: u64, b: u32, c: u32, d: u32) -> u32 {
    match i & 3 {
        0 => ((b & c) ^ (!b & d)).wrapping_add(0x5a82_7999),
        1 => (b ^ c ^ d).wrapping_add(0x6ed9_eba1),
        2 => ((b & c) ^ (b & d) ^ (c & d)).wrapping_add(0x8f1b_bcdc),
        _ => (b ^ c ^ d).wrapping_add(0xca62_c1d6),
    }
}

/// Four SHA-1 rounds: (A, B, C, D) in dwords 3..0 of `d`, W0 + E, W1, W2, W3 in dwords 3..0 of `s`.
fn sha1rnds4(d: &[u8], s: &[u8], i: u64) -> [u8; 16] {
    let [dd, c, b, a] = dwords(d);
    let [w3, w2, w1, w0] = dwords(s);
    let (mut a, mut b, mut c, mut dd, mut e) = (a, b, c, dd, 0u32);
    for w in [w0, w1, w2, w3] {
        let t = sha1_f(i, b, c, dd).wrapping_add(a.rotate_left(5)).wrapping_add(w).wrapping_add(e);
        (e, dd, c, b, a) = (dd, c, b.rotate_left(30), a, t);
    }
    from_dwords([dd, c, b, a])
}

/// Writes four dwords to an xmm register as a legacy SSE instruction does: the bytes above 16 are kept.
fn set_xmm_legacy(m: &mut Machine<'_>, o: &Operand, d: [u32; 4]) -> Result<(), Fault> {
    let Operand::Xmm(n) = o else { unreachable!("not an xmm destination: {o:?}") };
    for (i, w) in d.iter().enumerate() {
        m.state.vec[*n as usize][4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    Ok(())
}

/// Two SHA-256 rounds: the state (A, B, E, F) in dwords 3, 2, 1, 0 of `s`, (C, D, G, H) in those of `d`, the two
/// words plus constants in dwords 0 and 1 of `k`; the new (A, B, E, F).
fn sha256rnds2(d: &[u8], s: &[u8], k: &[u8]) -> [u32; 4] {
    let (mut a, mut b, mut c, mut dd) = (dword(s, 3), dword(s, 2), dword(d, 3), dword(d, 2));
    let (mut e, mut f, mut g, mut h) = (dword(s, 1), dword(s, 0), dword(d, 1), dword(d, 0));
    for i in 0..2 {
        let ch = (e & f) ^ (!e & g);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let t = ch.wrapping_add(s1).wrapping_add(dword(k, i)).wrapping_add(h);
        (h, g, f, e) = (g, f, e, t.wrapping_add(dd));
        (dd, c, b, a) = (c, b, a, t.wrapping_add(maj).wrapping_add(s0));
    }
    [f, e, b, a]
}

/// Writes 16 bytes as a legacy SSE instruction does: to an xmm register keeping the bytes above, or to memory.
fn set_legacy(m: &mut Machine<'_>, o: &Operand, v: [u8; 16]) -> Result<(), Fault> {
    match o {
        Operand::Xmm(n) => m.state.vec[*n as usize][..16].copy_from_slice(&v),
        _ => {
            let mut w = [0; VEC_BYTES];
            w[..16].copy_from_slice(&v);
            set_vec(m, o, w)?;
        }
    }
    Ok(())
}

/// A legacy SSE two-operand instruction: `d = f(d, s)`, the bytes of the register above 16 kept.
fn legacy(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(&[u8], &[u8]) -> [u8; 16]) -> Result<(), Fault> {
    let (d, s) = (vec(m, &o[0])?, vec(m, &o[1])?);
    set_legacy(m, &o[0], f(&d[..16], &s[..16]))
}

/// A legacy SSE move: the source's 16 bytes to the destination.
fn legacy_mov(m: &mut Machine<'_>, o: &[Operand]) -> Result<(), Fault> {
    let s = vec(m, &o[1])?;
    set_legacy(m, &o[0], s[..16].try_into().expect("16 bytes"))
}

/// The width in bytes an operation works on: that of its destination register.
fn width(o: &Operand) -> usize {
    match o {
        Operand::Ymm(_) | Operand::Mem(Size::Ymmword, _) => 32,
        Operand::Zmm(_) | Operand::ZmmMaskz(..) | Operand::Mem(Size::Zmmword, _) => 64,
        _ => 16,
    }
}

fn imm(o: &Operand) -> u64 {
    match o {
        Operand::Imm(i) => *i as u64,
        Operand::Sel(s) => *s as u64,
        _ => unreachable!("not an immediate: {o:?}"),
    }
}

// --- general-purpose -------------------------------------------------------------------------------------

fn result_flags(r: u64, bits: u32) -> u64 {
    let mut f = 0;
    if r & (u64::MAX >> (64 - bits)) == 0 {
        f |= ZF;
    }
    if (r >> (bits - 1)) & 1 == 1 {
        f |= SF;
    }
    if (r as u8).count_ones().is_multiple_of(2) {
        f |= PF;
    }
    f
}

fn set_flags(m: &mut Machine<'_>, written: u64, f: u64) {
    m.state.flags = (m.state.flags & !written) | (f & written);
}

/// The operation width in bits of a general-purpose destination: 8 for a byte register or memory, 32 for a 32-bit
/// register or dword memory, else 64.
fn bits(o: &Operand) -> u32 {
    match o {
        Operand::Gpr8(_) | Operand::Mem(Size::Byte, _) => 8,
        Operand::Gpr32(_) | Operand::Mem(Size::Dword, _) => 32,
        _ => 64,
    }
}

/// The low `bits` bits set.
fn mask(bits: u32) -> u64 {
    u64::MAX >> (64 - bits)
}

/// The mask of a shift or rotate count at a width (6 bits for 64-bit operands, else 5).
fn count_mask(bits: u32) -> u64 {
    if bits == 64 {
        63
    } else {
        31
    }
}

fn of_if(v: u64) -> u64 {
    if v & 1 != 0 {
        OF
    } else {
        0
    }
}

fn add_flags(a: u64, b: u64, carry: u64, bits: u32) -> (u64, u64) {
    let (a, b) = (a & mask(bits), b & mask(bits));
    let wide = a as u128 + b as u128 + carry as u128;
    let r = wide as u64 & mask(bits);
    let mut f = result_flags(r, bits) | ((a ^ b ^ r) & 0x10);
    f |= if wide >> bits != 0 { CF } else { 0 };
    f |= of_if(((a ^ r) & (b ^ r)) >> (bits - 1));
    (r, f)
}

fn sub_flags(a: u64, b: u64, borrow: u64, bits: u32) -> (u64, u64) {
    let (a, b) = (a & mask(bits), b & mask(bits));
    let r = a.wrapping_sub(b).wrapping_sub(borrow) & mask(bits);
    let mut f = result_flags(r, bits) | ((a ^ b ^ r) & 0x10);
    f |= if (a as u128) < b as u128 + borrow as u128 { CF } else { 0 };
    f |= of_if(((a ^ b) & (a ^ r)) >> (bits - 1));
    (r, f)
}

/// Two-operand arithmetic and logic at the destination's width: `+` add, `c` adc, `-` sub, `?` cmp, `b` sbb,
/// `&` and, `t` test, `|` or, `^` xor.
fn arith(m: &mut Machine<'_>, ops: &[Operand], kind: u8) -> Result<(), Fault> {
    let w = bits(&ops[0]);
    let (a, b) = (gpr(m, &ops[0])?, gpr(m, &ops[1])?);
    let logic = |r: u64| (r & mask(w), result_flags(r & mask(w), w));
    let (r, f) = match kind {
        b'+' => add_flags(a, b, 0, w),
        b'c' => add_flags(a, b, m.state.flags & CF, w),
        b'-' | b'?' => sub_flags(a, b, 0, w),
        b'b' => sub_flags(a, b, m.state.flags & CF, w),
        b'&' | b't' => logic(a & b),
        b'|' => logic(a | b),
        _ => logic(a ^ b),
    };
    set_flags(m, STATUS, f);
    if kind != b'?' && kind != b't' {
        set_gpr(m, &ops[0], r)?;
    }
    Ok(())
}

/// `inc` / `dec`: as `add` / `sub` of 1, CF kept.
fn inc_dec(m: &mut Machine<'_>, ops: &[Operand], inc: bool) -> Result<(), Fault> {
    let w = bits(&ops[0]);
    let a = gpr(m, &ops[0])?;
    let (r, f) = if inc { add_flags(a, 1, 0, w) } else { sub_flags(a, 1, 0, w) };
    set_flags(m, STATUS & !CF, f);
    set_gpr(m, &ops[0], r)
}

/// Shifts by a count (`l` shl, `r` shr, `a` sar) at the destination's width: CF the last bit shifted out, OF
/// (defined for a count of 1) whether the sign changed (`shl`), the original sign (`shr`) or 0 (`sar`); a count of
/// 0 (after masking) changes no flag, and a 32-bit destination is still written (its upper half zeroed).
fn shift(m: &mut Machine<'_>, ops: &[Operand], kind: u8) -> Result<(), Fault> {
    let w = bits(&ops[0]);
    let a = gpr(m, &ops[0])? & mask(w);
    let c = gpr(m, &ops[1])? & count_mask(w);
    if c == 0 {
        return set_gpr(m, &ops[0], a);
    }
    let top = |v: u64| (v >> (w - 1)) & 1;
    let signed = ((a << (64 - w)) as i64) >> (64 - w);
    let (r, cf) = match kind {
        b'l' => ((a << c) & mask(w), (a >> (w as u64 - c)) & 1),
        b'r' => (a >> c, (a >> (c - 1)) & 1),
        _ => ((signed >> c) as u64 & mask(w), ((signed >> (c - 1)) & 1) as u64),
    };
    let of = match kind {
        b'l' => top(r) ^ cf,
        b'r' => top(a),
        _ => 0,
    };
    set_flags(m, STATUS, result_flags(r, w) | cf | of_if(of));
    set_gpr(m, &ops[0], r)
}

/// `rol` / `ror` by an immediate at the destination's width: CF the bit rotated into the far end, OF (defined for
/// a count of 1) the xor of the result's two top bits (`ror`) or of its top bit and CF (`rol`); a count of 0
/// (after masking) changes no flag.
fn rotate(m: &mut Machine<'_>, ops: &[Operand], left: bool) -> Result<(), Fault> {
    let w = bits(&ops[0]);
    let a = gpr(m, &ops[0])? & mask(w);
    let c = (gpr(m, &ops[1])? & count_mask(w)) as u32;
    if c == 0 {
        return set_gpr(m, &ops[0], a);
    }
    let r = match (w, left) {
        (64, true) => a.rotate_left(c),
        (64, false) => a.rotate_right(c),
        (_, true) => (a as u32).rotate_left(c) as u64,
        (_, false) => (a as u32).rotate_right(c) as u64,
    };
    let top = (r >> (w - 1)) & 1;
    let (cf, of) = if left { (r & 1, top ^ (r & 1)) } else { (top, top ^ ((r >> (w - 2)) & 1)) };
    set_flags(m, CF | OF, cf | of_if(of));
    set_gpr(m, &ops[0], r)
}

/// `shld` / `shrd` by an immediate at the destination's width: `d` shifted by `n` (masked), filled from `s`; CF the
/// last bit shifted out, OF (defined for a count of 1) whether the sign changed; a count of 0 changes no flag.
fn double_shift(m: &mut Machine<'_>, ops: &[Operand], left: bool) -> Result<(), Fault> {
    let w = bits(&ops[0]);
    let (d, s) = (gpr(m, &ops[0])? & mask(w), gpr(m, &ops[1])? & mask(w));
    let c = gpr(m, &ops[2])? & count_mask(w);
    if c == 0 {
        return set_gpr(m, &ops[0], d);
    }
    let wc = w as u64 - c;
    let (r, cf) = if left {
        (((d << c) | (s >> wc)) & mask(w), (d >> wc) & 1)
    } else {
        (((d >> c) | (s << wc)) & mask(w), (d >> (c - 1)) & 1)
    };
    let of = ((r ^ d) >> (w - 1)) & 1;
    set_flags(m, STATUS, result_flags(r, w) | cf | of_if(of));
    set_gpr(m, &ops[0], r)
}

/// `cmovcc`: `d = s` where the condition holds on the flags (the source is read either way; a 32-bit destination
/// would be written either way).
fn cmov(m: &mut Machine<'_>, ops: &[Operand], cond: fn(u64) -> bool) -> Result<(), Fault> {
    let (d, s) = (gpr(m, &ops[0])?, gpr(m, &ops[1])?);
    let v = if cond(m.state.flags) { s } else { d };
    set_gpr(m, &ops[0], v)
}

/// Whether SF differs from OF (signed less).
fn less(f: u64) -> bool {
    (f & SF != 0) != (f & OF != 0)
}

/// `adcx` (`flag` CF) / `adox` (`flag` OF): `d + s + flag`, the carry out into `flag`, the other flags kept.
fn add_carry_chain(m: &mut Machine<'_>, ops: &[Operand], flag: u64) -> Result<(), Fault> {
    let (a, b) = (gpr(m, &ops[0])?, gpr(m, &ops[1])?);
    let wide = a as u128 + b as u128 + (m.state.flags & flag != 0) as u128;
    set_flags(m, flag, if wide >> 64 != 0 { flag } else { 0 });
    set_gpr(m, &ops[0], wide as u64)
}

fn push_pop(m: &mut Machine<'_>, ops: &[Operand], push: bool) -> Result<(), Fault> {
    let sp = m.state.gpr[4];
    if push {
        let v = gpr(m, &ops[0])?;
        m.state.gpr[4] = sp.wrapping_sub(8);
        m.mem.write(sp.wrapping_sub(8), &v.to_le_bytes())
    } else {
        let mut b = [0; 8];
        m.mem.read(sp, &mut b)?;
        m.state.gpr[4] = sp.wrapping_add(8);
        set_gpr(m, &ops[0], u64::from_le_bytes(b))
    }
}

/// `xchg`: `d` and `s` swapped (where both name one register it keeps its value, zero-extended for 32 bits).
fn exchange(m: &mut Machine<'_>, ops: &[Operand]) -> Result<(), Fault> {
    let (d, s) = (gpr(m, &ops[0])?, gpr(m, &ops[1])?);
    // Memory first: its address may use the register.
    set_gpr(m, &ops[0], s)?;
    set_gpr(m, &ops[1], d)
}

/// The string instructions: `kind` `b'm'` (`movs`: `[rsi]` to `[rdi]`) or `b's'` (`stos`: rax's low `width`
/// bytes to `[rdi]`), elements of `width` bytes, the pointers stepped forward or, where DF is set, back; with
/// `rep`, rcx times, rcx counted down to 0 (none where it is 0).
pub(crate) fn string(m: &mut Machine<'_>, kind: u8, width: usize, rep: bool) -> Result<(), Fault> {
    let step = if m.state.flags & DF != 0 { (width as u64).wrapping_neg() } else { width as u64 };
    loop {
        if rep && m.state.gpr[1] == 0 {
            return Ok(());
        }
        let mut b = m.state.gpr[0].to_le_bytes();
        if kind == b'm' {
            m.mem.read(m.state.gpr[6], &mut b[..width])?;
            m.state.gpr[6] = m.state.gpr[6].wrapping_add(step);
        }
        m.mem.write(m.state.gpr[7], &b[..width])?;
        m.state.gpr[7] = m.state.gpr[7].wrapping_add(step);
        if !rep {
            return Ok(());
        }
        m.state.gpr[1] -= 1;
    }
}

fn jump<'o>(m: &Machine<'_>, ops: &'o [Operand], taken: fn(u64) -> bool) -> Flow<'o> {
    match &ops[0] {
        Operand::Label(l) if taken(m.state.flags) => Flow::Jump(l),
        _ => Flow::Next,
    }
}

// --- vector helpers ----------------------------------------------------------------------------------------

/// Per 128-bit lane `f(a, b, lane)` over `w` bytes.
fn lanes(w: usize, a: &Vector, b: &Vector, f: impl Fn(&[u8], &[u8]) -> [u8; 16]) -> Vector {
    let mut d = [0; VEC_BYTES];
    for l in 0..w / 16 {
        let r = l * 16..l * 16 + 16;
        d[r.clone()].copy_from_slice(&f(&a[r.clone()], &b[r]));
    }
    d
}

/// The little-endian qword at qword index `i` of `v`.
fn qword(v: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(v[8 * i..8 * i + 8].try_into().unwrap())
}

/// Qword-wise `f(a, b)` over `w` bytes.
fn q2(w: usize, a: &Vector, b: &Vector, f: impl Fn(u64, u64) -> u64) -> Vector {
    let q = |v: &Vector, i: usize| u64::from_le_bytes(v[i..i + 8].try_into().unwrap());
    let mut v = [0; VEC_BYTES];
    for i in (0..w).step_by(8) {
        v[i..i + 8].copy_from_slice(&f(q(a, i), q(b, i)).to_le_bytes());
    }
    v
}

/// Byte-wise `f(a, b)` over `w` bytes.
fn b2(w: usize, a: &Vector, b: &Vector, f: impl Fn(u8, u8) -> u8) -> Vector {
    let mut v = [0; VEC_BYTES];
    for (i, x) in v[..w].iter_mut().enumerate() {
        *x = f(a[i], b[i]);
    }
    v
}

/// Word-wise `f(a, b)` over `w` bytes.
fn w2(w: usize, a: &Vector, b: &Vector, f: impl Fn(u16, u16) -> u16) -> Vector {
    let word = |v: &Vector, i: usize| u16::from_le_bytes([v[i], v[i + 1]]);
    let mut v = [0; VEC_BYTES];
    for i in (0..w).step_by(2) {
        v[i..i + 2].copy_from_slice(&f(word(a, i), word(b, i)).to_le_bytes());
    }
    v
}

/// Dword-wise `f(a, b)` over `w` bytes.
fn d2(w: usize, a: &Vector, b: &Vector, f: impl Fn(u32, u32) -> u32) -> Vector {
    let d = |v: &Vector, i: usize| u32::from_le_bytes(v[i..i + 4].try_into().unwrap());
    let mut v = [0; VEC_BYTES];
    for i in (0..w).step_by(4) {
        v[i..i + 4].copy_from_slice(&f(d(a, i), d(b, i)).to_le_bytes());
    }
    v
}

/// `vpternlog`: each result bit is bit `(x << 2) | (y << 1) | z` of `table`, from the bits of `x`, `y`, `z`.
fn ternlog(x: u64, y: u64, z: u64, table: u64) -> u64 {
    (0..8).filter(|k| (table >> k) & 1 == 1).fold(0, |r, k| {
        let pick = |v: u64, bit: u32| if (k >> bit) & 1 == 1 { v } else { !v };
        r | (pick(x, 2) & pick(y, 1) & pick(z, 0))
    })
}

/// `d = f(w, a, b)` with `a`, `b` the second and third operands.
fn vop(m: &mut Machine<'_>, ops: &[Operand], f: impl Fn(usize, &Vector, &Vector) -> Vector) -> Result<(), Fault> {
    let (a, b) = (vec(m, &ops[1])?, vec(m, &ops[2])?);
    set_vec(m, &ops[0], f(width(&ops[0]), &a, &b))
}

/// `d = f(w, a, imm)` with `a` the second operand and the immediate the third.
fn vimm(m: &mut Machine<'_>, ops: &[Operand], f: impl Fn(usize, &Vector, u64) -> Vector) -> Result<(), Fault> {
    let a = vec(m, &ops[1])?;
    set_vec(m, &ops[0], f(width(&ops[0]), &a, imm(&ops[2])))
}

// --- GF(2^8), AES, carry-less multiplication -----------------------------------------------------------------

/// The inverse in GF(2^8)/0x11b (0 maps to 0): `x^254`.
const fn gf_inv(x: u8) -> u8 {
    let mut r = 1;
    let mut i = 0;
    while i < 254 {
        r = aes::gf_mul(r, x);
        i += 1;
    }
    r
}

/// `A·x ^ c` with the bit matrix `A` of a qword (row `i` in byte `7 - i`).
fn affine(a: u64, x: u8, c: u8) -> u8 {
    (0..8).fold(0, |r, i| {
        let row = (a >> (8 * (7 - i))) as u8;
        r | ((((row & x).count_ones() & 1) as u8 ^ ((c >> i) & 1)) << i)
    })
}

const INV: [u8; 256] = {
    let mut t = [0; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = gf_inv(i as u8);
        i += 1;
    }
    t
};

fn gf2p8affine(w: usize, x: &Vector, m: &Vector, c: u64, inverse: bool) -> Vector {
    let mut d = [0; VEC_BYTES];
    for i in 0..w {
        let a = u64::from_le_bytes(m[i / 8 * 8..i / 8 * 8 + 8].try_into().unwrap());
        let v = if inverse { INV[x[i] as usize] } else { x[i] };
        d[i] = affine(a, v, c as u8);
    }
    d
}

/// A 16-byte lane of an operand.
fn lane16(a: &[u8]) -> [u8; 16] {
    a.try_into().expect("16 bytes")
}

fn xor16(a: [u8; 16], k: &[u8]) -> [u8; 16] {
    std::array::from_fn(|i| a[i] ^ k[i])
}

fn aesenc(a: &[u8], k: &[u8]) -> [u8; 16] {
    xor16(aes::mix_columns(aes::sub_bytes(aes::shift_rows(lane16(a), false), false), false), k)
}

fn aesenclast(a: &[u8], k: &[u8]) -> [u8; 16] {
    xor16(aes::sub_bytes(aes::shift_rows(lane16(a), false), false), k)
}

fn aesdec(a: &[u8], k: &[u8]) -> [u8; 16] {
    xor16(inv_mix_columns(aes::sub_bytes(aes::shift_rows(lane16(a), true), true)), k)
}

fn aesdeclast(a: &[u8], k: &[u8]) -> [u8; 16] {
    xor16(aes::sub_bytes(aes::shift_rows(lane16(a), true), true), k)
}

fn inv_mix_columns(s: [u8; 16]) -> [u8; 16] {
    aes::mix_columns(s, true)
}

/// `aeskeygenassist`: dwords `SubWord(X1)`, `RotWord(SubWord(X1)) ^ rcon`, `SubWord(X3)`,
/// `RotWord(SubWord(X3)) ^ rcon`, with `Xi` dword `i` of `a` and RotWord a rotation right by 8 bits.
fn keygenassist(a: &[u8], rcon: u64) -> [u8; 16] {
    let sub = |i: usize| u32::from_le_bytes(std::array::from_fn(|j| aes::SBOX[a[4 * i + j] as usize]));
    let (x1, x3) = (sub(1), sub(3));
    let words = [x1, x1.rotate_right(8) ^ rcon as u32, x3, x3.rotate_right(8) ^ rcon as u32];
    std::array::from_fn(|i| words[i / 4].to_le_bytes()[i % 4])
}

fn clmul(a: u64, b: u64) -> u128 {
    (0..64).filter(|i| (b >> i) & 1 == 1).fold(0, |r, i| r ^ ((a as u128) << i))
}

fn pclmul(a: &[u8], b: &[u8], sel: u64) -> [u8; 16] {
    clmul(qword(a, (sel & 1) as usize), qword(b, ((sel >> 4) & 1) as usize)).to_le_bytes()
}

fn pshufb(a: &[u8], b: &[u8]) -> [u8; 16] {
    std::array::from_fn(|i| if b[i] & 0x80 != 0 { 0 } else { a[(b[i] & 15) as usize] })
}

/// Per lane: `[b, a]` shifted right by `n` bytes (the low 16 bytes).
fn palignr(a: &[u8], b: &[u8], n: u64) -> [u8; 16] {
    std::array::from_fn(|i| match i + n as usize {
        j @ 0..=15 => b[j],
        j @ 16..=31 => a[j - 16],
        _ => 0,
    })
}

fn unpack(a: &[u8], b: &[u8], size: usize, high: bool) -> [u8; 16] {
    let half = if high { 8 } else { 0 };
    std::array::from_fn(|i| {
        let (elem, off) = (i / size, i % size);
        let src = if elem % 2 == 0 { a } else { b };
        src[half + (elem / 2) * size + off]
    })
}

fn byte_shift(a: &[u8], n: u64, left: bool) -> [u8; 16] {
    let n = n.min(16) as usize;
    std::array::from_fn(|i| match left {
        true if i >= n => a[i - n],
        false if i + n < 16 => a[i + n],
        _ => 0,
    })
}

fn pshufd(a: &[u8], sel: u64) -> [u8; 16] {
    std::array::from_fn(|i| a[4 * ((sel >> (2 * (i / 4))) & 3) as usize + i % 4])
}

// --- the table ---------------------------------------------------------------------------------------------------

use Role::{None as N, R, RW, W};

/// One [`Sem`]: `op [roles] read written undefined variable_time, |m, o| body`, the body a `Result<(), Fault>`
/// (or `flow |m, o| body` for a body giving the [`Flow`], `result |m, o| body` for one giving a `Result<Flow, Fault>`); `op [roles] @[reg => role, ...] ...` adds the registers
/// it uses without naming them.
macro_rules! sems {
    ($(
        $op:ident [$($role:ident),*] $(@[$($ir:expr => $irole:ident),*])? $fr:expr, $fw:expr, $fu:expr, $vt:expr,
        $($kw:ident)? |$m:ident, $o:ident| $body:expr;
    )*) => {
        &[$(Sem {
            op: Op::$op,
            roles: &[$($role),*],
            implicit: &[$($(($ir, $irole)),*)?],
            flags_read: $fr,
            flags_written: $fw,
            flags_undefined: $fu,
            variable_time: $vt,
            exec: {
                #[allow(unused_variables)]
                fn f<'o>($m: &mut Machine<'_>, $o: &'o [Operand]) -> Result<Flow<'o>, Fault> {
                    sems!(@body $($kw)? $body)
                }
                f
            },
        }),*]
    };
    (@body flow $body:expr) => { Ok($body) };
    (@body result $body:expr) => { $body };
    (@body $body:expr) => { $body.map(|()| Flow::Next) };
}

/// Status flags of a logic operation that the architecture leaves undefined.
const LOGIC_U: u64 = AF;
/// Status flags of a shift left undefined (OF unless the count is 1, AF).
const SHIFT_U: u64 = AF | OF;
/// rax, rdx and xmm0, as `mul`, `mulx` and `sha256rnds2` use them implicitly.
const RAX: Reg = Reg::Gpr(0);
const RDX: Reg = Reg::Gpr(2);
/// rsp and rbp, as `leave` uses them implicitly.
const RSP: Reg = Reg::Gpr(4);
const RBP: Reg = Reg::Gpr(5);
const XMM0: Reg = Reg::Vec(0);
/// The bits of RFLAGS beside the status flags that `pushfq` pushes in a user program: bit 1 (always set) and IF.
pub const PUSHED_FLAGS: u64 = 0x202;
/// What `call` pushes for a return address (the interpreter returns by its own record of the call).
pub const RETURN_MARK: u64 = 0x5245_5455_524e_0000;
/// rcx, rsi and rdi, as the string instructions use them implicitly.
const RCX: Reg = Reg::Gpr(1);
const RSI: Reg = Reg::Gpr(6);
const RDI: Reg = Reg::Gpr(7);
/// The fault `call_reg` stops the interpreter with: its target is an address, not a label of the function.
pub const INDIRECT_CALL: &str =
    "call through a register: the interpreter runs one function and follows no indirect call";
/// The fault `rdrand` stops the interpreter with: no model reproduces the CPU's random numbers.
pub const RDRAND: &str = "rdrand: the interpreter cannot reproduce a random number";
/// Status flags of `mul` and `imul` left undefined (all but CF and OF).
const IMUL_U: u64 = SF | ZF | AF | PF;

/// The semantics, in `Op` order.
static SEMS: &[Sem] = sems! {
    mov [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])?; set_gpr(m, &o[0], v) };
    mov_load [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])?; set_gpr(m, &o[0], v) };
    mov_store [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])?; set_gpr(m, &o[0], v) };
    lea [W, N] 0, 0, 0, false, |m, o| {
        let Operand::Mem(_, a) = &o[1] else { unreachable!() };
        let v = address(m, a)?;
        set_gpr(m, &o[0], v)
    };
    add [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'+');
    adc [RW, R] CF, STATUS, 0, false, |m, o| arith(m, o, b'c');
    sbb [RW, R] CF, STATUS, 0, false, |m, o| arith(m, o, b'b');
    adcx [RW, R] CF, CF, 0, false, |m, o| add_carry_chain(m, o, CF);
    adox [RW, R] OF, OF, 0, false, |m, o| add_carry_chain(m, o, OF);
    mul [R] @[RAX => RW, RDX => W] 0, STATUS, IMUL_U, false, |m, o| {
        let wide = m.state.gpr[0] as u128 * gpr(m, &o[0])? as u128;
        let (lo, hi) = (wide as u64, (wide >> 64) as u64);
        set_flags(m, STATUS, result_flags(lo, 64) | if hi != 0 { CF | OF } else { 0 });
        m.state.gpr[0] = lo;
        m.state.gpr[2] = hi;
        Ok(())
    };
    mulx [W, W, R] @[RDX => R] 0, 0, 0, false, |m, o| {
        let wide = m.state.gpr[2] as u128 * gpr(m, &o[2])? as u128;
        // The low half first: where both name one register, it holds the high half.
        set_gpr(m, &o[1], wide as u64)?;
        set_gpr(m, &o[0], (wide >> 64) as u64)
    };
    imul [RW, R] 0, STATUS, IMUL_U, false, |m, o| {
        let (a, b) = (gpr(m, &o[0])? as i64, gpr(m, &o[1])? as i64);
        let wide = a as i128 * b as i128;
        let r = wide as u64;
        let overflow = if wide != r as i64 as i128 { CF | OF } else { 0 };
        set_flags(m, STATUS, result_flags(r, 64) | overflow);
        set_gpr(m, &o[0], r)
    };
    sub [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'-');
    and [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'&');
    xor32 [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'^');
    cmp [R, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'?');
    test [R, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b't');
    shl [RW, N] 0, STATUS, SHIFT_U, false, |m, o| shift(m, o, b'l');
    shr [RW, N] 0, STATUS, SHIFT_U, false, |m, o| shift(m, o, b'r');
    rol [RW, N] 0, CF | OF, OF, false, |m, o| rotate(m, o, true);
    ror [RW, N] 0, CF | OF, OF, false, |m, o| rotate(m, o, false);
    rorx [W, R, N] 0, 0, 0, false, |m, o| {
        let v = gpr(m, &o[1])?.rotate_right((imm(&o[2]) & 63) as u32);
        set_gpr(m, &o[0], v)
    };
    shld [RW, R, N] 0, STATUS, SHIFT_U, false, |m, o| double_shift(m, o, true);
    shrd [RW, R, N] 0, STATUS, SHIFT_U, false, |m, o| double_shift(m, o, false);
    bswap [RW] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[0])?; set_gpr(m, &o[0], v.swap_bytes()) };
    push [R] 0, 0, 0, false, |m, o| push_pop(m, o, true);
    pop [W] 0, 0, 0, false, |m, o| push_pop(m, o, false);
    jmp [N] 0, 0, 0, false, flow |m, o| jump(m, o, |_| true);
    jz [N] ZF, 0, 0, false, flow |m, o| jump(m, o, |f| f & ZF != 0);
    jnz [N] ZF, 0, 0, false, flow |m, o| jump(m, o, |f| f & ZF == 0);
    jb [N] CF, 0, 0, false, flow |m, o| jump(m, o, |f| f & CF != 0);
    jae [N] CF, 0, 0, false, flow |m, o| jump(m, o, |f| f & CF == 0);
    ja [N] CF | ZF, 0, 0, false, flow |m, o| jump(m, o, |f| f & (CF | ZF) == 0);
    jbe [N] CF | ZF, 0, 0, false, flow |m, o| jump(m, o, |f| f & (CF | ZF) != 0);
    ret [] 0, 0, 0, false, flow |m, o| Flow::Ret;
    int3 [] 0, 0, 0, false, |m, o| Err(Fault { addr: 0, len: 0, what: "int3: a breakpoint trap" });
    leave [] @[RSP => RW, RBP => RW] 0, 0, 0, false, |m, o| {
        let bp = m.state.gpr[5];
        let mut b = [0; 8];
        m.mem.read(bp, &mut b)?;
        m.state.gpr[5] = u64::from_le_bytes(b);
        m.state.gpr[4] = bp.wrapping_add(8);
        Ok(())
    };
    movabs [W, N] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])?; set_gpr(m, &o[0], v) };
    and_store [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'&');
    or_store [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'|');
    xor_store [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'^');
    add_store [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'+');
    mov32 [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])?; set_gpr(m, &o[0], v) };
    mov32_load [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])?; set_gpr(m, &o[0], v) };
    mov32_store [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])?; set_gpr(m, &o[0], v) };
    lea32 [W, N] 0, 0, 0, false, |m, o| {
        let Operand::Mem(_, a) = &o[1] else { unreachable!() };
        let v = address(m, a)?;
        set_gpr(m, &o[0], v)
    };
    add32 [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'+');
    add_load [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'+');
    add32_load [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'+');
    adc_load [RW, R] CF, STATUS, 0, false, |m, o| arith(m, o, b'c');
    adc32 [RW, R] CF, STATUS, 0, false, |m, o| arith(m, o, b'c');
    sbb_load [RW, R] CF, STATUS, 0, false, |m, o| arith(m, o, b'b');
    sub32 [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'-');
    sub_load [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'-');
    sub32_load [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'-');
    and32 [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'&');
    and_load [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'&');
    or [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'|');
    or32 [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'|');
    or_load [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'|');
    xor [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'^');
    xor32_load [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'^');
    xor_load [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'^');
    cmp32 [R, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'?');
    cmp_load [R, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'?');
    cmp32_mem [R, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'?');
    test32 [R, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b't');
    imul32 [RW, R] 0, STATUS, IMUL_U, false, |m, o| {
        let (a, b) = (gpr(m, &o[0])? as i32, gpr(m, &o[1])? as i32);
        let wide = a as i64 * b as i64;
        let r = wide as u32 as u64;
        let overflow = if wide != wide as i32 as i64 { CF | OF } else { 0 };
        set_flags(m, STATUS, result_flags(r, 32) | overflow);
        set_gpr(m, &o[0], r)
    };
    imul_imm [W, R, N] 0, STATUS, IMUL_U, false, |m, o| imul3(m, o);
    imul32_imm [W, R, N] 0, STATUS, IMUL_U, false, |m, o| imul3(m, o);
    pushfq [] STATUS, 0, 0, false, |m, o| {
        let v = (m.state.flags & (STATUS | DF)) | PUSHED_FLAGS;
        let sp = m.state.gpr[4].wrapping_sub(8);
        m.mem.write(sp, &v.to_le_bytes())?;
        m.state.gpr[4] = sp;
        Ok(())
    };
    popfq [] 0, STATUS, 0, false, |m, o| {
        let sp = m.state.gpr[4];
        let mut b = [0; 8];
        m.mem.read(sp, &mut b)?;
        m.state.gpr[4] = sp.wrapping_add(8);
        set_flags(m, STATUS | DF, u64::from_le_bytes(b));
        Ok(())
    };
    shl32 [RW, N] 0, STATUS, SHIFT_U, false, |m, o| shift(m, o, b'l');
    shr32 [RW, N] 0, STATUS, SHIFT_U, false, |m, o| shift(m, o, b'r');
    sar [RW, N] 0, STATUS, SHIFT_U, false, |m, o| shift(m, o, b'a');
    rol32 [RW, N] 0, CF | OF, OF, false, |m, o| rotate(m, o, true);
    ror32 [RW, N] 0, CF | OF, OF, false, |m, o| rotate(m, o, false);
    rol32_cl [RW, R] 0, CF | OF, OF, false, |m, o| rotate(m, o, true);
    rorx32 [W, R, N] 0, 0, 0, false, |m, o| {
        let v = (gpr(m, &o[1])? as u32).rotate_right((imm(&o[2]) & 31) as u32);
        set_gpr(m, &o[0], v as u64)
    };
    shld32 [RW, R, N] 0, STATUS, SHIFT_U, false, |m, o| double_shift(m, o, true);
    shrd32 [RW, R, N] 0, STATUS, SHIFT_U, false, |m, o| double_shift(m, o, false);
    bswap32 [RW] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[0])? as u32; set_gpr(m, &o[0], v.swap_bytes() as u64) };
    dec [RW] 0, STATUS & !CF, 0, false, |m, o| inc_dec(m, o, false);
    dec32 [RW] 0, STATUS & !CF, 0, false, |m, o| inc_dec(m, o, false);
    inc [RW] 0, STATUS & !CF, 0, false, |m, o| inc_dec(m, o, true);
    inc32 [RW] 0, STATUS & !CF, 0, false, |m, o| inc_dec(m, o, true);
    neg [RW] 0, STATUS, 0, false, |m, o| {
        let w = bits(&o[0]);
        let (r, f) = sub_flags(0, gpr(m, &o[0])?, 0, w);
        set_flags(m, STATUS, f);
        set_gpr(m, &o[0], r)
    };
    neg32 [RW] 0, STATUS, 0, false, |m, o| {
        let (r, f) = sub_flags(0, gpr(m, &o[0])?, 0, 32);
        set_flags(m, STATUS, f);
        set_gpr(m, &o[0], r)
    };
    not [RW] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[0])?; set_gpr(m, &o[0], !v) };
    not32 [RW] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[0])?; set_gpr(m, &o[0], !v) };
    andn [W, R, R] 0, STATUS, AF | PF, false, |m, o| andn(m, o);
    andn32 [W, R, R] 0, STATUS, AF | PF, false, |m, o| andn(m, o);
    tzcnt32 [W, R] 0, STATUS, OF | SF | AF | PF, false, |m, o| {
        let s = gpr(m, &o[1])? as u32;
        let r = s.trailing_zeros() as u64;
        set_flags(m, CF | ZF, if s == 0 { CF } else { 0 } | if r == 0 { ZF } else { 0 });
        set_gpr(m, &o[0], r)
    };
    shlx [W, R, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])? << (gpr(m, &o[2])? & 63); set_gpr(m, &o[0], v) };
    shrx [W, R, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])? >> (gpr(m, &o[2])? & 63); set_gpr(m, &o[0], v) };
    bzhi [W, R, R] 0, STATUS, AF | PF, false, |m, o| {
        let (s, n) = (gpr(m, &o[1])?, gpr(m, &o[2])? & 255);
        let r = if n < 64 { s & ((1u64 << n) - 1) } else { s };
        set_flags(m, STATUS, result_flags(r, 64) | if n > 63 { CF } else { 0 });
        set_gpr(m, &o[0], r)
    };
    bt [R, N] 0, CF | OF | SF | AF | PF, OF | SF | AF | PF, false, |m, o| {
        let v = gpr(m, &o[0])? >> (imm(&o[1]) & 63);
        set_flags(m, CF, v & 1);
        Ok(())
    };
    bsf [RW, R] 0, STATUS, STATUS & !ZF, true, |m, o| {
        let s = gpr(m, &o[1])?;
        set_flags(m, ZF, if s == 0 { ZF } else { 0 });
        if s != 0 {
            set_gpr(m, &o[0], s.trailing_zeros() as u64)?;
        }
        Ok(())
    };
    movbe [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])?; set_gpr(m, &o[0], v.swap_bytes()) };
    cmovb [RW, R] CF, 0, 0, false, |m, o| cmov(m, o, |f| f & CF != 0);
    cmovae [RW, R] CF, 0, 0, false, |m, o| cmov(m, o, |f| f & CF == 0);
    cmovz [RW, R] ZF, 0, 0, false, |m, o| cmov(m, o, |f| f & ZF != 0);
    cmovnz [RW, R] ZF, 0, 0, false, |m, o| cmov(m, o, |f| f & ZF == 0);
    cmovg [RW, R] ZF | SF | OF, 0, 0, false, |m, o| cmov(m, o, |f| f & ZF == 0 && !less(f));
    cmovz32 [RW, R] ZF, 0, 0, false, |m, o| cmov(m, o, |f| f & ZF != 0);
    jg [N] ZF | SF | OF, 0, 0, false, flow |m, o| jump(m, o, |f| f & ZF == 0 && !less(f));
    jge [N] SF | OF, 0, 0, false, flow |m, o| jump(m, o, |f| !less(f));
    jl [N] SF | OF, 0, 0, false, flow |m, o| jump(m, o, less);
    jle [N] ZF | SF | OF, 0, 0, false, flow |m, o| jump(m, o, |f| f & ZF != 0 || less(f));
    js [N] SF, 0, 0, false, flow |m, o| jump(m, o, |f| f & SF != 0);
    jns [N] SF, 0, 0, false, flow |m, o| jump(m, o, |f| f & SF == 0);
    jo [N] OF, 0, 0, false, flow |m, o| jump(m, o, |f| f & OF != 0);
    setb [W] CF, 0, 0, false, |m, o| { let v = m.state.flags & CF; set_gpr(m, &o[0], v) };
    setae [W] CF, 0, 0, false, |m, o| { let v = (m.state.flags & CF) ^ 1; set_gpr(m, &o[0], v) };
    setz [W] ZF, 0, 0, false, |m, o| { let v = (m.state.flags & ZF != 0) as u64; set_gpr(m, &o[0], v) };
    setnz [W] ZF, 0, 0, false, |m, o| { let v = (m.state.flags & ZF == 0) as u64; set_gpr(m, &o[0], v) };
    mov8 [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])?; set_gpr(m, &o[0], v) };
    add8 [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'+');
    and8 [RW, R] 0, STATUS, LOGIC_U, false, |m, o| arith(m, o, b'&');
    cmp8 [R, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'?');
    add8_imm [RW, R] 0, STATUS, 0, false, |m, o| arith(m, o, b'+');
    adc8_imm [RW, R] CF, STATUS, 0, false, |m, o| arith(m, o, b'c');
    movzx32 [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])? & 0xff; set_gpr(m, &o[0], v) };
    movzx [W, R] 0, 0, 0, false, |m, o| { let v = gpr(m, &o[1])? & 0xff; set_gpr(m, &o[0], v) };
    shl_cl [RW, R] 0, STATUS, SHIFT_U, false, |m, o| shift(m, o, b'l');
    shr_cl [RW, R] 0, STATUS, SHIFT_U, false, |m, o| shift(m, o, b'r');
    shld_cl [RW, R, R] 0, STATUS, SHIFT_U, false, |m, o| double_shift(m, o, true);
    shrd_cl [RW, R, R] 0, STATUS, SHIFT_U, false, |m, o| double_shift(m, o, false);
    // Its address is checked as an access's (a prefetch through a secret address leaks it through the cache).
    prefetcht0 [R] 0, 0, 0, false, |m, o| Ok(());
    call [N] 0, 0, 0, false, result |m, o| {
        // The return address: the interpreter has none, and returns by its own record; a marker stands for it.
        let sp = m.state.gpr[4].wrapping_sub(8);
        m.mem.write(sp, &RETURN_MARK.to_le_bytes())?;
        m.state.gpr[4] = sp;
        let Operand::Label(l) = &o[0] else { unreachable!("call takes a label") };
        Ok(Flow::Call(l))
    };
    endbr64 [] 0, 0, 0, false, |m, o| Ok(());
    nop [] 0, 0, 0, false, |m, o| Ok(());
    nop_m [N] 0, 0, 0, false, |m, o| Ok(());
    xchg [RW, RW] 0, 0, 0, false, |m, o| exchange(m, o);
    xchg32 [RW, RW] 0, 0, 0, false, |m, o| exchange(m, o);
    xchg_mem [RW, RW] 0, 0, 0, false, |m, o| exchange(m, o);
    call_reg [R] 0, 0, 0, false, result |m, o| {
        let target = gpr(m, &o[0])?;
        Err(Fault { addr: target, len: 0, what: INDIRECT_CALL })
    };
    rdrand [W] 0, STATUS, 0, false, result |m, o| Err(Fault { addr: 0, len: 0, what: RDRAND });
    movsb [] @[RSI => RW, RDI => RW] 0, 0, 0, false, |m, o| string(m, b'm', 1, false);
    movsq [] @[RSI => RW, RDI => RW] 0, 0, 0, false, |m, o| string(m, b'm', 8, false);
    stosb [] @[RAX => R, RDI => RW] 0, 0, 0, false, |m, o| string(m, b's', 1, false);
    stosq [] @[RAX => R, RDI => RW] 0, 0, 0, false, |m, o| string(m, b's', 8, false);
    rep_movsb [] @[RSI => RW, RDI => RW, RCX => RW] 0, 0, 0, false, |m, o| string(m, b'm', 1, true);
    rep_movsq [] @[RSI => RW, RDI => RW, RCX => RW] 0, 0, 0, false, |m, o| string(m, b'm', 8, true);
    rep_stosb [] @[RAX => R, RDI => RW, RCX => RW] 0, 0, 0, false, |m, o| string(m, b's', 1, true);
    rep_stosq [] @[RAX => R, RDI => RW, RCX => RW] 0, 0, 0, false, |m, o| string(m, b's', 8, true);
    cld [] 0, 0, 0, false, |m, o| { m.state.flags &= !DF; Ok(()) };
    std [] 0, 0, 0, false, |m, o| { m.state.flags |= DF; Ok(()) };
    jrcxz [N] 0, 0, 0, false, flow |m, o| match &o[0] {
        Operand::Label(l) if m.state.gpr[1] == 0 => Flow::Jump(l),
        _ => Flow::Next,
    };
    vmovdqu_load [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu_store [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu_reg [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqa [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqa_store [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovq_load [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovq_gpr [W, R] 0, 0, 0, false, |m, o| {
        let v = gpr(m, &o[1])?;
        let mut d = [0; VEC_BYTES];
        d[..8].copy_from_slice(&v.to_le_bytes());
        set_vec(m, &o[0], d)
    };
    vmovd_store [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovd_load [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovq_store [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vpinsrq [W, R, R, N] 0, 0, 0, false, |m, o| {
        let (mut a, s, n) = (vec(m, &o[1])?, gpr(m, &o[2])?, imm(&o[3]) as usize & 1);
        a[n * 8..n * 8 + 8].copy_from_slice(&s.to_le_bytes());
        set_vec(m, &o[0], a)
    };
    vpinsrd [W, R, R, N] 0, 0, 0, false, |m, o| {
        let (mut a, s, n) = (vec(m, &o[1])?, gpr(m, &o[2])?, imm(&o[3]) as usize & 3);
        a[n * 4..n * 4 + 4].copy_from_slice(&(s as u32).to_le_bytes());
        set_vec(m, &o[0], a)
    };
    vpextrq [W, R, N] 0, 0, 0, false, |m, o| {
        let (a, n) = (vec(m, &o[1])?, imm(&o[2]) as usize & 1);
        let v = u64::from_le_bytes(a[n * 8..n * 8 + 8].try_into().expect("8 bytes"));
        set_gpr(m, &o[0], v)
    };
    vpextrd [W, R, N] 0, 0, 0, false, |m, o| {
        let (a, n) = (vec(m, &o[1])?, imm(&o[2]) as usize & 3);
        set_gpr(m, &o[0], dword(&a, n) as u64)
    };
    vbroadcastss [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 4);
    vpxor [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x ^ y));
    vpand [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x & y));
    vpor [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x | y));
    vpandn [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| !x & y));
    vpaddd [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| d2(w, a, b, u32::wrapping_add));
    vpaddq [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, u64::wrapping_add));
    vpsubq [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, u64::wrapping_sub));
    vpsubw [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| w2(w, a, b, u16::wrapping_sub));
    vmovddup [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 8);
    vpshufb [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, pshufb));
    vpshufd [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| lanes(w, a, a, |x, _| pshufd(x, n)));
    vpalignr [W, R, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[3]);
        vop(m, o, |w, a, b| lanes(w, a, b, |x, y| palignr(x, y, n)))
    };
    vpunpckldq [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 4, false)));
    vpunpckhdq [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 4, true)));
    vpunpcklqdq [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 8, false)));
    vpunpckhqdq [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 8, true)));
    vpsllq [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| if n > 63 { 0 } else { x << n }));
    vpsrlq [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| if n > 63 { 0 } else { x >> n }));
    vpsrad [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| ((x as i32) >> n.min(31)) as u32));
    vpslld [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| if n > 31 { 0 } else { x << n }));
    vpsrld [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| if n > 31 { 0 } else { x >> n }));
    vpsrlw [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| w2(w, a, a, |x, _| if n > 15 { 0 } else { x >> n }));
    vpslldq [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| lanes(w, a, a, |x, _| byte_shift(x, n, true)));
    vpsrldq [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| lanes(w, a, a, |x, _| byte_shift(x, n, false)));
    vpclmulqdq [W, R, R, N] 0, 0, 0, false, |m, o| clmul_op(m, o);
    vaesenclast [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesenclast));
    vaesenc [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesenc));
    vaesdec [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesdec));
    vaesdeclast [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesdeclast));
    vaesimc [W, R] 0, 0, 0, false, |m, o| {
        let a = vec(m, &o[1])?;
        set_vec(m, &o[0], lanes(16, &a, &a, |x, _| inv_mix_columns(x.try_into().expect("16 bytes"))))
    };
    vaeskeygenassist [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, rcon| lanes(w, a, a, |x, _| keygenassist(x, rcon)));
    vgf2p8affineqb [W, R, R, N] 0, 0, 0, false, |m, o| affine_op(m, o, false);
    vgf2p8affineinvqb [W, R, R, N] 0, 0, 0, false, |m, o| affine_op(m, o, true);
    vmovq_to_gpr [W, R] 0, 0, 0, false, |m, o| { let v = vec(m, &o[1])?; set_gpr(m, &o[0], qword(&v, 0)) };
    vmovd_gpr [W, R] 0, 0, 0, false, |m, o| {
        let v = gpr(m, &o[1])?;
        let mut d = [0; VEC_BYTES];
        d[..4].copy_from_slice(&(v as u32).to_le_bytes());
        set_vec(m, &o[0], d)
    };
    vmovups_load [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovups_store [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vxorps [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x ^ y));
    vpaddb [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| std::array::from_fn(|i| if i < w { a[i].wrapping_add(b[i]) } else { 0 }));
    vpsubd [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| d2(w, a, b, u32::wrapping_sub));
    vpmuludq [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| (x & 0xffff_ffff) * (y & 0xffff_ffff)));
    vpblendd [W, R, R, N] 0, 0, 0, false, |m, o| blendd(m, o);
    sha256rnds2 [RW, R] @[XMM0 => R] 0, 0, 0, false, |m, o| {
        let (d, s, k) = (vec(m, &o[0])?, vec(m, &o[1])?, m.state.vec[0]);
        set_xmm_legacy(m, &o[0], sha256rnds2(&d, &s, &k))
    };
    sha256msg1 [RW, R] 0, 0, 0, false, |m, o| {
        let (a, b) = (vec(m, &o[0])?, vec(m, &o[1])?);
        let w = |i: usize| if i < 4 { dword(&a, i) } else { dword(&b, 0) };
        let s0 = |x: u32| x.rotate_right(7) ^ x.rotate_right(18) ^ (x >> 3);
        set_xmm_legacy(m, &o[0], std::array::from_fn(|i| w(i).wrapping_add(s0(w(i + 1)))))
    };
    sha256msg2 [RW, R] 0, 0, 0, false, |m, o| {
        let (a, b) = (vec(m, &o[0])?, vec(m, &o[1])?);
        let s1 = |x: u32| x.rotate_right(17) ^ x.rotate_right(19) ^ (x >> 10);
        let mut w = [dword(&b, 2), dword(&b, 3), 0, 0, 0, 0];
        for i in 0..4 {
            w[i + 2] = dword(&a, i).wrapping_add(s1(w[i]));
        }
        set_xmm_legacy(m, &o[0], [w[2], w[3], w[4], w[5]])
    };
    movdqa [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movdqa_store [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movdqu_load [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movdqu_store [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    pxor [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| std::array::from_fn(|i| a[i] ^ b[i]));
    por [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| std::array::from_fn(|i| a[i] | b[i]));
    pand [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| std::array::from_fn(|i| a[i] & b[i]));
    pandn [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| std::array::from_fn(|i| !a[i] & b[i]));
    xorps [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| std::array::from_fn(|i| a[i] ^ b[i]));
    pcmpeqd [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| map_d(a, b, |x, y| if x == y { !0 } else { 0 }));
    pcmpgtd [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| map_d(a, b, |x, y| if x as i32 > y as i32 { !0 } else { 0 }));
    psubd [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| map_d(a, b, u32::wrapping_sub));
    punpckldq [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| unpack(a, b, 4, false));
    punpckhdq [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| unpack(a, b, 4, true));
    punpcklqdq [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| unpack(a, b, 8, false));
    punpckhqdq [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| unpack(a, b, 8, true));
    shufps [RW, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]) as usize;
        legacy(m, o, |a, b| {
            let (a, b) = (dwords(a), dwords(b));
            from_dwords([a[n & 3], a[(n >> 2) & 3], b[(n >> 4) & 3], b[(n >> 6) & 3]])
        })
    };
    movhlps [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| std::array::from_fn(|i| if i < 8 { b[i + 8] } else { a[i] }));
    psrld [RW, N] 0, 0, 0, false, |m, o| legacy_imm(m, o, |a, n| map_d(a, a, |x, _| if n > 31 { 0 } else { x >> n }));
    pslld [RW, N] 0, 0, 0, false, |m, o| legacy_imm(m, o, |a, n| map_d(a, a, |x, _| if n > 31 { 0 } else { x << n }));
    psrlq [RW, N] 0, 0, 0, false, |m, o| legacy_imm(m, o, |a, n| map_q(a, a, |x, _| if n > 63 { 0 } else { x >> n }));
    psllq [RW, N] 0, 0, 0, false, |m, o| legacy_imm(m, o, |a, n| map_q(a, a, |x, _| if n > 63 { 0 } else { x << n }));
    pslldq [RW, N] 0, 0, 0, false, |m, o| legacy_imm(m, o, |a, n| byte_shift(a, n, true));
    psrldq [RW, N] 0, 0, 0, false, |m, o| legacy_imm(m, o, |a, n| byte_shift(a, n, false));
    movups [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movups_store [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movaps [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movaps_store [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movq_to_gpr [W, R] 0, 0, 0, false, |m, o| { let v = vec(m, &o[1])?; set_gpr(m, &o[0], qword(&v, 0)) };
    movq_from_gpr [W, R] 0, 0, 0, false, |m, o| {
        let v = gpr(m, &o[1])?;
        set_legacy(m, &o[0], (v as u128).to_le_bytes())
    };
    movq_load [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movq_store [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movd_from_gpr [W, R] 0, 0, 0, false, |m, o| {
        let v = gpr(m, &o[1])? as u32;
        set_legacy(m, &o[0], (v as u128).to_le_bytes())
    };
    movd_load [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movd_store [W, R] 0, 0, 0, false, |m, o| legacy_mov(m, o);
    movd_to_gpr [W, R] 0, 0, 0, false, |m, o| { let v = vec(m, &o[1])?; set_gpr(m, &o[0], dword(&v, 0) as u64) };
    pinsrd [RW, R, N] 0, 0, 0, false, |m, o| {
        let (mut d, s, n) = (dwords(&vec(m, &o[0])?), gpr(m, &o[1])?, imm(&o[2]) as usize & 3);
        d[n] = s as u32;
        set_legacy(m, &o[0], from_dwords(d))
    };
    pinsrb [RW, R, N] 0, 0, 0, false, |m, o| {
        let (mut d, s, n) = (vec(m, &o[0])?, gpr(m, &o[1])?, imm(&o[2]) as usize & 15);
        d[n] = s as u8;
        set_legacy(m, &o[0], d[..16].try_into().expect("16 bytes"))
    };
    pextrb [W, R, N] 0, 0, 0, false, |m, o| {
        let (a, n) = (vec(m, &o[1])?, imm(&o[2]) as usize & 15);
        set_gpr(m, &o[0], a[n] as u64)
    };
    pextrq [W, R, N] 0, 0, 0, false, |m, o| {
        let (a, n) = (vec(m, &o[1])?, imm(&o[2]) as usize & 1);
        set_gpr(m, &o[0], qword(&a, n))
    };
    aeskeygenassist [W, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]);
        legacy(m, o, |_, s| keygenassist(s, n))
    };
    aesimc [W, R] 0, 0, 0, false, |m, o| legacy(m, o, |_, s| inv_mix_columns(s.try_into().expect("16 bytes")));
    sha1rnds4 [RW, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]);
        legacy(m, o, |d, s| sha1rnds4(d, s, n))
    };
    sha1nexte [RW, R] 0, 0, 0, false, |m, o| {
        legacy(m, o, |d, s| {
            let mut w = dwords(s);
            w[3] = w[3].wrapping_add(dword(d, 3).rotate_left(30));
            from_dwords(w)
        })
    };
    sha1msg1 [RW, R] 0, 0, 0, false, |m, o| {
        legacy(m, o, |d, s| {
            // W0..W3 in dwords 3..0 of `d`, W4, W5 in dwords 3, 2 of `s`.
            let ([w3, w2, w1, w0], [_, _, w5, w4]) = (dwords(d), dwords(s));
            from_dwords([w5 ^ w3, w4 ^ w2, w3 ^ w1, w2 ^ w0])
        })
    };
    sha1msg2 [RW, R] 0, 0, 0, false, |m, o| {
        legacy(m, o, |d, s| {
            // The partial words in dwords 3..0 of `d`, W13, W14, W15 in dwords 2..0 of `s`.
            let ([d0, d1, d2, d3], [w15, w14, w13, _]) = (dwords(d), dwords(s));
            let w16 = (d3 ^ w13).rotate_left(1);
            let w17 = (d2 ^ w14).rotate_left(1);
            let w18 = (d1 ^ w15).rotate_left(1);
            let w19 = (d0 ^ w16).rotate_left(1);
            from_dwords([w19, w18, w17, w16])
        })
    };
    paddd [RW, R] 0, 0, 0, false, |m, o| {
        legacy(m, o, |a, b| std::array::from_fn(|i| dword(a, i / 4).wrapping_add(dword(b, i / 4)).to_le_bytes()[i % 4]))
    };
    paddq [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| map_q(a, b, u64::wrapping_add));
    paddb [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, |a, b| std::array::from_fn(|i| a[i].wrapping_add(b[i])));
    pshufd [W, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]);
        legacy(m, o, |_, s| pshufd(s, n))
    };
    pshufb [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, pshufb);
    palignr [RW, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]);
        legacy(m, o, |d, s| palignr(d, s, n))
    };
    pclmulqdq [RW, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]);
        legacy(m, o, |d, s| pclmul(d, s, n))
    };
    aesenc [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, aesenc);
    aesenclast [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, aesenclast);
    aesdec [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, aesdec);
    aesdeclast [RW, R] 0, 0, 0, false, |m, o| legacy(m, o, aesdeclast);
    vmovdqu_load_y [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu_reg_y [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu_store_y [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqa_y [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vpxor_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x ^ y));
    vpand_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x & y));
    vpandn_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| !x & y));
    vpor_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x | y));
    vpaddd_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| d2(w, a, b, u32::wrapping_add));
    vpaddw_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| w2(w, a, b, u16::wrapping_add));
    vpaddq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, u64::wrapping_add));
    vpaddb_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| b2(w, a, b, u8::wrapping_add));
    vpsubw_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| w2(w, a, b, u16::wrapping_sub));
    vpabsb_y [W, R] 0, 0, 0, false, |m, o| {
        let a = vec(m, &o[1])?;
        set_vec(m, &o[0], b2(width(&o[0]), &a, &a, |x, _| (x as i8).unsigned_abs()))
    };
    vpcmpgtb_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| b2(w, a, b, |x, y| if x as i8 > y as i8 { !0 } else { 0 }));
    vpsubq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, u64::wrapping_sub));
    vpslld_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| if n > 31 { 0 } else { x << n }));
    vpsllq_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| if n > 63 { 0 } else { x << n }));
    vpslldq_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| lanes(w, a, a, |x, _| byte_shift(x, n, true)));
    vpsrldq_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| lanes(w, a, a, |x, _| byte_shift(x, n, false)));
    vpsllvq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, n| if n > 63 { 0 } else { x << n }));
    vpsrlvq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, n| if n > 63 { 0 } else { x >> n }));
    vpsrld_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| if n > 31 { 0 } else { x >> n }));
    vpunpckldq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 4, false)));
    vpunpckhdq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 4, true)));
    vpunpcklqdq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 8, false)));
    vpunpckhqdq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 8, true)));
    vmovdqa_store_y [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vpalignr_y [W, R, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[3]);
        vop(m, o, |w, a, b| lanes(w, a, b, |x, y| palignr(x, y, n)))
    };
    vpmuludq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| (x & 0xffff_ffff) * (y & 0xffff_ffff)));
    vpsrlq_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| if n > 63 { 0 } else { x >> n }));
    vpcmpgtd [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| d2(w, a, b, |x, y| if x as i32 > y as i32 { !0 } else { 0 }));
    vpcmpgtb [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| b2(w, a, b, |x, y| if x as i8 > y as i8 { !0 } else { 0 }));
    vpabsb [W, R] 0, 0, 0, false, |m, o| {
        let a = vec(m, &o[1])?;
        set_vec(m, &o[0], b2(width(&o[0]), &a, &a, |x, _| (x as i8).unsigned_abs()))
    };
    vpbroadcastd_y_reg [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 4);
    vpcmpeqd_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| d2(w, a, b, |x, y| if x == y { !0 } else { 0 }));
    vpermd [W, R, R] 0, 0, 0, false, |m, o| {
        vop(m, o, |_, a, b| std::array::from_fn(|i| if i < 32 { b[4 * (dword(a, i / 4) as usize & 7) + i % 4] } else { 0 }))
    };
    vpbroadcastq_y [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 8);
    vpbroadcastq_y_reg [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 8);
    vpbroadcastd_y [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 4);
    vpbroadcastd_x [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 4);
    vpbroadcastb_y [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 1);
    vpbroadcastb_y_reg [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 1);
    vpshufb_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, pshufb));
    vpshufd_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| lanes(w, a, a, |x, _| pshufd(x, n)));
    vbroadcasti128 [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 16);
    vinserti128 [W, R, R, N] 0, 0, 0, false, |m, o| insert_half(m, o, 16);
    vextracti128 [W, R, N] 0, 0, 0, false, |m, o| extract_half(m, o, 16);
    vperm2i128 [W, R, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[3]) as usize;
        vop(m, o, |_, a, b| {
            std::array::from_fn(|i| {
                let ctrl = (n >> (4 * (i / 16))) & 15;
                let src = if ctrl & 2 == 0 { a } else { b };
                if i >= 32 || ctrl & 8 != 0 { 0 } else { src[16 * (ctrl & 1) + i % 16] }
            })
        })
    };
    vpermq [W, R, N] 0, 0, 0, false, |m, o| {
        vimm(m, o, |_, a, n| std::array::from_fn(|i| if i < 32 { a[8 * ((n as usize >> (2 * (i / 8))) & 3) + i % 8] } else { 0 }))
    };
    vpblendd_y [W, R, R, N] 0, 0, 0, false, |m, o| blendd(m, o);
    vpclmulqdq_y [W, R, R, N] 0, 0, 0, false, |m, o| clmul_op(m, o);
    vaesenclast_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesenclast));
    vaesenc_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesenc));
    vaesdec_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesdec));
    vaesdeclast_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesdeclast));
    vgf2p8affineqb_y [W, R, R, N] 0, 0, 0, false, |m, o| affine_op(m, o, false);
    vgf2p8affineinvqb_y [W, R, R, N] 0, 0, 0, false, |m, o| affine_op(m, o, true);
    vzeroupper [] 0, 0, 0, false, |m, o| {
        // Registers 0-15 only: zmm16-zmm31 are kept.
        for v in &mut m.state.vec[..16] {
            v[16..].fill(0);
        }
        Ok(())
    };
    vzeroall [] 0, 0, 0, false, |m, o| {
        // Registers 0-15 only: zmm16-zmm31 are kept.
        for v in &mut m.state.vec[..16] {
            v.fill(0);
        }
        Ok(())
    };
    vmovdqu64 [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu64_store [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vpxorq [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x ^ y));
    vpternlogq [RW, R, R, N] 0, 0, 0, false, |m, o| ternlog_op(m, o);
    vpclmulqdq_z [W, R, R, N] 0, 0, 0, false, |m, o| clmul_op(m, o);
    vpshufb_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, pshufb));
    vpslldq_z [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| lanes(w, a, a, |x, _| byte_shift(x, n, true)));
    vpsrldq_z [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| lanes(w, a, a, |x, _| byte_shift(x, n, false)));
    vpsllq_z [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| if n > 63 { 0 } else { x << n }));
    vpsrlq_z [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| if n > 63 { 0 } else { x >> n }));
    vshufi64x2 [W, R, R, N] 0, 0, 0, false, |m, o| {
        let n = imm(&o[3]) as usize;
        vop(m, o, |_, a, b| {
            std::array::from_fn(|i| {
                let (lane, src) = (i / 16, if i < 32 { a } else { b });
                src[16 * ((n >> (2 * lane)) & 3) + i % 16]
            })
        })
    };
    vinserti64x4 [W, R, R, N] 0, 0, 0, false, |m, o| insert_half(m, o, 32);
    vextracti64x4 [W, R, N] 0, 0, 0, false, |m, o| extract_half(m, o, 32);
    vbroadcasti32x4 [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 16);
    vshufi32x4 [W, R, R, N] 0, 0, 0, false, |m, o| (sem(Op::vshufi64x2).exec)(m, o).map(|_| ());
    vmovdqu32 [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu32_store [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqa32 [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqa64 [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vpaddb_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| b2(w, a, b, u8::wrapping_add));
    vpaddw_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| w2(w, a, b, u16::wrapping_add));
    vpbroadcastb_z [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 1);
    vpbroadcastb_z_reg [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 1);
    vpbroadcastq_z [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 8);
    vpbroadcastq_z_reg [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 8);
    vaesenclast_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesenclast));
    vaesenc_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesenc));
    vaesdec_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesdec));
    vaesdeclast_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, aesdeclast));
    vgf2p8affineqb_z [W, R, R, N] 0, 0, 0, false, |m, o| affine_op(m, o, false);
    vgf2p8affineinvqb_z [W, R, R, N] 0, 0, 0, false, |m, o| affine_op(m, o, true);
    vpaddd_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| d2(w, a, b, u32::wrapping_add));
    vpandq [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x & y));
    vpaddq_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, u64::wrapping_add));
    vpbroadcastd_z [W, R] 0, 0, 0, false, |m, o| broadcast(m, o, 4);
    vprold [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| x.rotate_left(n as u32 & 31)));
    vpshufd_z [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| lanes(w, a, a, |x, _| pshufd(x, n)));
    vpunpckldq_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 4, false)));
    vpunpckhdq_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 4, true)));
    vpunpcklqdq_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 8, false)));
    vpunpckhqdq_z [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| lanes(w, a, b, |x, y| unpack(x, y, 8, true)));
    vpxord [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x ^ y));
    vpternlogd [RW, R, R, N] 0, 0, 0, false, |m, o| ternlog_op(m, o);
    vpxord_x [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x ^ y));
    vpxord_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x ^ y));
    vpternlogd_x [RW, R, R, N] 0, 0, 0, false, |m, o| ternlog_op(m, o);
    vpternlogd_y [RW, R, R, N] 0, 0, 0, false, |m, o| ternlog_op(m, o);
    vpxorq_x [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x ^ y));
    vpxorq_y [W, R, R] 0, 0, 0, false, |m, o| vop(m, o, |w, a, b| q2(w, a, b, |x, y| x ^ y));
    vpternlogq_x [RW, R, R, N] 0, 0, 0, false, |m, o| ternlog_op(m, o);
    vpternlogq_y [RW, R, R, N] 0, 0, 0, false, |m, o| ternlog_op(m, o);
    vprold_x [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| x.rotate_left(n as u32 & 31)));
    vprold_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| x.rotate_left(n as u32 & 31)));
    vprord_x [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| x.rotate_right(n as u32 & 31)));
    vprord_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| d2(w, a, a, |x, _| x.rotate_right(n as u32 & 31)));
    vprolq_x [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| x.rotate_left(n as u32 & 63)));
    vprolq_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| x.rotate_left(n as u32 & 63)));
    vprorq_x [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| x.rotate_right(n as u32 & 63)));
    vprorq_y [W, R, N] 0, 0, 0, false, |m, o| vimm(m, o, |w, a, n| q2(w, a, a, |x, _| x.rotate_right(n as u32 & 63)));
    vmovdqu64_x [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu64_y [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu64_store_x [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu64_store_y [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqa64_x [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu8 [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu8_store [W, R] 0, 0, 0, false, |m, o| mov_vec(m, o);
    vmovdqu8_maskz [W, R] 0, 0, 0, false, |m, o| {
        let Operand::ZmmMaskz(n, k) = o[0] else { unreachable!("vmovdqu8_maskz writes zmm{{k}}{{z}}") };
        let mask = m.state.k[k as usize];
        let mut d = [0; VEC_BYTES];
        match &o[1] {
            // Masked-off bytes are not read (they do not fault: how a tail is loaded).
            Operand::Mem(_, a) => {
                let addr = address(m, a)?;
                for (i, b) in d.iter_mut().enumerate().filter(|(i, _)| (mask >> i) & 1 == 1) {
                    let mut one = [0];
                    m.mem.read(addr.wrapping_add(i as u64), &mut one)?;
                    *b = one[0];
                }
            }
            s => {
                let s = vec(m, s)?;
                d = std::array::from_fn(|i| if (mask >> i) & 1 == 1 { s[i] } else { 0 });
            }
        }
        m.state.vec[n as usize] = d;
        Ok(())
    };
    vmovdqu8_store_mask [W, R] 0, 0, 0, false, |m, o| {
        let Operand::MemMask(_, a, k) = &o[0] else { unreachable!("vmovdqu8_store_mask writes m512{{k}}") };
        let (mask, s, addr) = (m.state.k[*k as usize], vec(m, &o[1])?, address(m, a)?);
        // Masked-off bytes are not written (they do not fault: how a tail is stored).
        for i in (0..VEC_BYTES).filter(|i| (mask >> i) & 1 == 1) {
            m.mem.write(addr.wrapping_add(i as u64), &s[i..i + 1])?;
        }
        Ok(())
    };
    kmovq [W, R] 0, 0, 0, false, |m, o| {
        let Operand::K(k) = o[0] else { unreachable!("kmovq writes an opmask register") };
        m.state.k[k as usize] = gpr(m, &o[1])?;
        Ok(())
    };
    vextracti32x4 [W, R, N] 0, 0, 0, false, |m, o| {
        let (a, n) = (vec(m, &o[1])?, imm(&o[2]) as usize & 3);
        let mut d = [0; VEC_BYTES];
        d[..16].copy_from_slice(&a[16 * n..16 * n + 16]);
        set_vec(m, &o[0], d)
    };
};

/// `vpternlogd` / `vpternlogq` without a mask, at the destination's width.
fn ternlog_op(m: &mut Machine<'_>, o: &[Operand]) -> Result<(), Fault> {
    let (d, n) = (vec(m, &o[0])?, imm(&o[3]));
    vop(m, o, |w, a, b| {
        std::array::from_fn(|i| {
            if i < w {
                ternlog(qword(&d, i / 8), qword(a, i / 8), qword(b, i / 8), n).to_le_bytes()[i % 8]
            } else {
                0
            }
        })
    })
}

/// `imul d, s, imm` at the destination's width: the low half of the signed product, CF and OF where it did not
/// fit.
fn imul3(m: &mut Machine<'_>, o: &[Operand]) -> Result<(), Fault> {
    let w = bits(&o[0]);
    let sign = |v: u64| ((v << (64 - w)) as i64 >> (64 - w)) as i128;
    let wide = sign(gpr(m, &o[1])?) * gpr(m, &o[2])? as i64 as i128;
    let r = wide as u64 & mask(w);
    let overflow = if wide != sign(r) { CF | OF } else { 0 };
    set_flags(m, STATUS, result_flags(r, w) | overflow);
    set_gpr(m, &o[0], r)
}

/// `andn` at the destination's width: `!a & b`; SF and ZF from the result, CF and OF clear.
fn andn(m: &mut Machine<'_>, o: &[Operand]) -> Result<(), Fault> {
    let w = bits(&o[0]);
    let r = !gpr(m, &o[1])? & gpr(m, &o[2])? & mask(w);
    set_flags(m, STATUS, result_flags(r, w));
    set_gpr(m, &o[0], r)
}

/// `vpblendd` at any width: dword `i` from the third operand where bit `i` of the immediate is set, else from the
/// second.
fn blendd(m: &mut Machine<'_>, o: &[Operand]) -> Result<(), Fault> {
    let n = imm(&o[3]);
    vop(m, o, |w, a, b| {
        std::array::from_fn(|i| {
            if i >= w {
                0
            } else if (n >> (i / 4)) & 1 == 1 {
                b[i]
            } else {
                a[i]
            }
        })
    })
}

/// A move: the source read at its width, written to the destination (xmm zeroes the upper half).
fn mov_vec(m: &mut Machine<'_>, o: &[Operand]) -> Result<(), Fault> {
    let v = vec(m, &o[1])?;
    set_vec(m, &o[0], v)
}

/// The first `n` bytes of the source repeated over the destination.
fn broadcast(m: &mut Machine<'_>, o: &[Operand], n: usize) -> Result<(), Fault> {
    let s = vec(m, &o[1])?;
    let w = width(&o[0]);
    let d: Vector = std::array::from_fn(|i| if i < w { s[i % n] } else { 0 });
    set_vec(m, &o[0], d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::x86_64::OPS;

    #[test]
    fn one_entry_per_op_in_order() {
        let table: Vec<_> = OPS.iter().map(|o| (o.name, o.operands.len())).collect();
        let sems: Vec<_> = SEMS.iter().map(|s| (s.op as usize, s.roles.len())).collect();
        if let Err(e) = crate::sem::check_parallel("x86_64", &table, &sems) {
            panic!("{e}");
        }
    }

    /// The ABI's write check (`abi::x86_64::implicit_writes`, below this layer) lists exactly the registers the
    /// semantics write without naming them.
    #[test]
    fn implicit_writes_agree_with_the_abi() {
        for s in SEMS {
            let mut sem: Vec<Reg> =
                s.implicit.iter().filter(|(_, role)| matches!(role, Role::W | Role::RW)).map(|&(r, _)| r).collect();
            let mut abi = crate::abi::x86_64::implicit_writes(s.op).to_vec();
            sem.sort_by_key(|r| format!("{r:?}"));
            abi.sort_by_key(|r| format!("{r:?}"));
            assert_eq!(sem, abi, "{:?}: the semantics' implicit writes and the ABI's", s.op);
        }
    }

    #[test]
    fn sbox_is_aes() {
        assert_eq!((aes::SBOX[0], aes::SBOX[1], aes::SBOX[0x53], aes::SBOX[0xff]), (0x63, 0x7c, 0xed, 0x16));
    }
}
