//! aarch64 semantics: the machine state and one [`Sem`] per entry of `isa::aarch64::OPS`, in `Op` order
//! ([`sem`] looks an entry up). Vector registers hold 16 bytes, little-endian (lane 0 in the low bytes); a
//! `dN` write zeroes the upper half. Register 31 is `sp` in the state; `xzr` reads as zero and drops writes.

use super::{Fault, Flow, Memory, Role};
use crate::isa::aarch64::{Op, Operand};

/// Negative flag.
pub const N: u64 = 8;
/// Zero flag.
pub const Z: u64 = 4;
/// Carry flag.
pub const C: u64 = 2;
/// Overflow flag.
pub const V: u64 = 1;
/// The four condition flags.
pub const NZCV: u64 = N | Z | C | V;

/// A vector register's bytes.
pub type Vector = [u8; 16];

/// The architectural state the semantics change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// x0..x30, and `sp` at 31.
    pub x: [u64; 32],
    /// v0..v31.
    pub v: [Vector; 32],
    /// NZCV as [`N`] | [`Z`] | [`C`] | [`V`].
    pub flags: u64,
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
    /// Each operand's role, in the table's operand order (a base register that is written back is `RW`).
    pub roles: &'static [Role],
    /// The index of the memory operand's base register, for an entry that accesses memory.
    pub base: Option<usize>,
    /// Condition flags read.
    pub flags_read: u64,
    /// Condition flags written.
    pub flags_written: u64,
    /// Bytes of memory accessed from the base (0: none).
    pub mem_bytes: usize,
    /// Whether the latency may depend on operand values (a constant-time hazard with secret operands).
    pub variable_time: bool,
    /// What it does.
    pub exec: Exec,
}

/// The semantics of an entry.
pub fn sem(op: Op) -> &'static Sem {
    &SEMS[op as usize]
}

/// Reads a general-purpose operand (register, `sp`, `xzr`, immediate).
pub fn gpr(m: &Machine<'_>, o: &Operand) -> u64 {
    match o {
        Operand::X(n) => m.state.x[*n as usize],
        Operand::Sp => m.state.x[31],
        Operand::Xzr | Operand::Wzr => 0,
        Operand::W(n) => m.state.x[*n as usize] & 0xffff_ffff,
        Operand::Wsp => m.state.x[31] & 0xffff_ffff,
        Operand::Imm(i) => *i as u64,
        _ => unreachable!("not a general-purpose operand: {o:?}"),
    }
}

fn set_gpr(m: &mut Machine<'_>, o: &Operand, v: u64) -> Result<(), Fault> {
    match o {
        Operand::X(n) => m.state.x[*n as usize] = v,
        Operand::Sp => m.state.x[31] = v,
        Operand::Xzr | Operand::Wzr => {}
        Operand::W(n) => m.state.x[*n as usize] = v & 0xffff_ffff,
        Operand::Wsp => m.state.x[31] = v & 0xffff_ffff,
        _ => unreachable!("not a general-purpose destination: {o:?}"),
    }
    Ok(())
}

/// The vector register number of an operand.
pub fn vreg(o: &Operand) -> usize {
    match o.vector() {
        Some(n) => n as usize,
        None => unreachable!("not a vector operand: {o:?}"),
    }
}

fn vec(m: &Machine<'_>, o: &Operand) -> Vector {
    m.state.v[vreg(o)]
}

fn set_vec(m: &mut Machine<'_>, o: &Operand, v: Vector) -> Result<(), Fault> {
    m.state.v[vreg(o)] = v;
    Ok(())
}

fn imm(o: &Operand) -> i64 {
    match o {
        Operand::Imm(i) => *i,
        _ => unreachable!("not an immediate: {o:?}"),
    }
}

fn label_addr(m: &Machine<'_>, o: &Operand) -> Result<u64, Fault> {
    match o {
        Operand::Label(l) => m.mem.label(l).ok_or(Fault { addr: 0, len: 0, what: "unknown label" }),
        _ => unreachable!("not a label: {o:?}"),
    }
}

fn load(m: &mut Machine<'_>, addr: u64, n: usize) -> Result<Vec<u8>, Fault> {
    let mut b = vec![0; n];
    m.mem.read(addr, &mut b)?;
    Ok(b)
}

// --- general-purpose -------------------------------------------------------------------------------------

fn add_with_flags(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let wide = a as u128 + b as u128 + carry as u128;
    let r = wide as u64;
    let mut f = if r >> 63 != 0 { N } else { 0 } | if r == 0 { Z } else { 0 };
    f |= if wide >> 64 != 0 { C } else { 0 };
    f |= if ((a ^ r) & (b ^ r)) >> 63 != 0 { V } else { 0 };
    (r, f)
}

/// `add_with_flags` on 32-bit operands (the low halves of `a` and `b`): the zero-extended sum and its flags.
fn add_with_flags32(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let (a, b) = (a & 0xffff_ffff, b & 0xffff_ffff);
    let wide = a + b + carry;
    let r = wide & 0xffff_ffff;
    let mut f = if r >> 31 != 0 { N } else { 0 } | if r == 0 { Z } else { 0 };
    f |= if wide >> 32 != 0 { C } else { 0 };
    f |= if ((a ^ r) & (b ^ r)) >> 31 & 1 != 0 { V } else { 0 };
    (r, f)
}

/// Whether a general-purpose operand is a 32-bit view (`wN`, `wzr`, `wsp`).
fn is_w(o: &Operand) -> bool {
    matches!(o, Operand::W(_) | Operand::Wzr | Operand::Wsp)
}

/// `d = n op m`: `+`, `-`, `c` (add with carry), `b` (subtract with borrow: `n + !m + C`), the flags set when
/// `flags`; `d` absent for `cmp` (`?`). 32-bit when the operands are (`wN`): the flags are the 32-bit ones.
fn arith(m: &mut Machine<'_>, o: &[Operand], kind: u8, flags: bool) -> Result<(), Fault> {
    let (d, rest) = if kind == b'?' { (None, o) } else { (Some(&o[0]), &o[1..]) };
    let (a, b) = (gpr(m, &rest[0]), gpr(m, &rest[1]));
    let add = if is_w(&rest[0]) { add_with_flags32 } else { add_with_flags };
    let (r, f) = match kind {
        b'+' => add(a, b, 0),
        b'c' => add(a, b, (m.state.flags & C) >> 1),
        b'b' => add(a, !b, (m.state.flags & C) >> 1),
        _ => add(a, !b, 1),
    };
    if flags {
        m.state.flags = f;
    }
    match d {
        Some(d) => set_gpr(m, d, r),
        None => Ok(()),
    }
}

/// `d = n` if `holds(flags)`, else `m`.
fn csel(m: &mut Machine<'_>, o: &[Operand], holds: fn(u64) -> bool) -> Result<(), Fault> {
    let v = if holds(m.state.flags) { gpr(m, &o[1]) } else { gpr(m, &o[2]) };
    set_gpr(m, &o[0], v)
}

/// How the shifted-register forms shift their last register.
#[derive(Clone, Copy)]
enum Sh {
    Lsl,
    Lsr,
    Ror,
}

/// `d = f(n, m)`, m shifted by the fourth operand when `sh` says how; within 32 bits for 32-bit operands (the
/// destination's view decides, and `set_gpr` zero-extends).
fn logic(m: &mut Machine<'_>, o: &[Operand], sh: Option<Sh>, f: fn(u64, u64) -> u64) -> Result<(), Fault> {
    let b = gpr(m, &o[2]);
    let b = match (sh, is_w(&o[0])) {
        (None, _) => b,
        (Some(sh), true) => {
            let (b, s) = (b as u32, imm(&o[3]) as u32);
            (match sh {
                Sh::Lsl => b << s,
                Sh::Lsr => b >> s,
                Sh::Ror => b.rotate_right(s),
            }) as u64
        }
        (Some(sh), false) => {
            let s = imm(&o[3]) as u32;
            match sh {
                Sh::Lsl => b << s,
                Sh::Lsr => b >> s,
                Sh::Ror => b.rotate_right(s),
            }
        }
    };
    let v = f(gpr(m, &o[1]), b);
    set_gpr(m, &o[0], v)
}

/// `d = v` if `holds(flags)`, else 0 (`cset`: v = 1, `csetm`: all ones).
fn cset(m: &mut Machine<'_>, o: &[Operand], v: u64, holds: fn(u64) -> bool) -> Result<(), Fault> {
    let r = if holds(m.state.flags) { v } else { 0 };
    set_gpr(m, &o[0], r)
}

/// What `bl` and `blr` give: the interpreter runs one function, and models no calls.
const NO_CALLS: Fault = Fault { addr: 0, len: 0, what: "calls (bl, blr) are not modelled by the interpreter" };

/// `tbz`/`tbnz`: jump when bit `o[1]` of `o[0]` is `one`.
fn tbranch<'o>(m: &Machine<'_>, o: &'o [Operand], one: bool) -> Flow<'o> {
    match &o[2] {
        Operand::Label(l) if ((gpr(m, &o[0]) >> imm(&o[1])) & 1 == 1) == one => Flow::Jump(l),
        _ => Flow::Next,
    }
}

fn branch<'o>(m: &Machine<'_>, o: &'o [Operand], taken: fn(u64) -> bool) -> Flow<'o> {
    match o.last() {
        Some(Operand::Label(l)) if taken(m.state.flags) => Flow::Jump(l),
        _ => Flow::Next,
    }
}

fn cbranch<'o>(m: &Machine<'_>, o: &'o [Operand], zero: bool) -> Flow<'o> {
    match &o[1] {
        Operand::Label(l) if (gpr(m, &o[0]) == 0) == zero => Flow::Jump(l),
        _ => Flow::Next,
    }
}

/// Where a memory access goes and what the base becomes: `Off` adds the offset, `Pre` adds and writes back,
/// `Post` accesses at the base and writes back base + offset.
#[derive(Clone, Copy)]
enum Mode {
    Off,
    Pre,
    Post,
}

fn addr(m: &mut Machine<'_>, base: &Operand, off: i64, mode: Mode) -> u64 {
    let b = gpr(m, base);
    let new = b.wrapping_add(off as u64);
    if !matches!(mode, Mode::Off) {
        let _ = set_gpr(m, base, new);
    }
    if matches!(mode, Mode::Post) {
        b
    } else {
        new
    }
}

/// Loads or stores the registers `regs` (each `size` bytes: 1 for bytes, 4 for w, 8 for x and d, 16 for q) at
/// consecutive addresses.
fn ldst(m: &mut Machine<'_>, o: &[Operand], size: usize, store: bool, mode: Mode) -> Result<(), Fault> {
    let k = o.len() - 2;
    let a = addr(m, &o[k], imm(&o[k + 1]), mode);
    for (i, r) in o[..k].iter().enumerate() {
        ldst_one(m, r, a.wrapping_add((i * size) as u64), size, store)?;
    }
    Ok(())
}

/// Loads or stores `size` bytes of register `r` at `at`: a general-purpose load zero-extends, a vector load
/// zeroes the bytes above.
fn ldst_one(m: &mut Machine<'_>, r: &Operand, at: u64, size: usize, store: bool) -> Result<(), Fault> {
    let general = matches!(r, Operand::X(_) | Operand::Xzr | Operand::W(_) | Operand::Wzr);
    if store {
        let bytes: Vec<u8> =
            if general { gpr(m, r).to_le_bytes()[..size].to_vec() } else { vec(m, r)[..size].to_vec() };
        return m.mem.write(at, &bytes);
    }
    let b = load(m, at, size)?;
    let mut v = [0; 16];
    v[..size].copy_from_slice(&b);
    if general {
        set_gpr(m, r, u64::from_le_bytes(v[..8].try_into().unwrap()))
    } else {
        set_vec(m, r, v)
    }
}

/// Register-offset forms: `t` (`size` bytes) at `n + m`.
fn ldst_reg(m: &mut Machine<'_>, o: &[Operand], size: usize, store: bool) -> Result<(), Fault> {
    let at = gpr(m, &o[1]).wrapping_add(gpr(m, &o[2]));
    ldst_one(m, &o[0], at, size, store)
}

/// Structure loads and stores: `regs` consecutive registers from `first`; `ld4`/`st4` interleave words; `post`:
/// the base then moves past them.
fn ldst_multi(
    m: &mut Machine<'_>,
    o: &[Operand],
    regs: usize,
    four: bool,
    store: bool,
    post: bool,
) -> Result<(), Fault> {
    let n = o.len() - 1;
    let first = vreg(&o[0]);
    let a = if post { addr(m, &o[n], 16 * regs as i64, Mode::Post) } else { gpr(m, &o[n]) };
    // Byte j of the memory block is byte `at(j)` of the registers (register r's byte b at 16 r + b).
    let at = |j: usize| if four { (j / 4 % 4) * 16 + (j / 16) * 4 + j % 4 } else { j };
    if store {
        let mut b = vec![0; 16 * regs];
        for (j, x) in b.iter_mut().enumerate() {
            let r = at(j);
            *x = m.state.v[(first + r / 16) % 32][r % 16];
        }
        return m.mem.write(a, &b);
    }
    let b = load(m, a, 16 * regs)?;
    for (j, x) in b.iter().enumerate() {
        let r = at(j);
        m.state.v[(first + r / 16) % 32][r % 16] = *x;
    }
    Ok(())
}

/// `ld4`/`st4` of lane `i` of four registers (one 16-byte block, word k in register k).
fn ldst_lane(m: &mut Machine<'_>, o: &[Operand], store: bool) -> Result<(), Fault> {
    let (first, lane) = (vreg(&o[0]), imm(&o[1]) as usize);
    let a = addr(m, &o[2], 16, Mode::Post);
    if store {
        let b: Vec<u8> = (0..16).map(|j| m.state.v[(first + j / 4) % 32][lane * 4 + j % 4]).collect();
        return m.mem.write(a, &b);
    }
    let b = load(m, a, 16)?;
    for (j, x) in b.iter().enumerate() {
        m.state.v[(first + j / 4) % 32][lane * 4 + j % 4] = *x;
    }
    Ok(())
}

// --- vector helpers ----------------------------------------------------------------------------------------

fn q(v: &Vector, i: usize) -> u64 {
    u64::from_le_bytes(v[8 * i..8 * i + 8].try_into().unwrap())
}
fn s(v: &Vector, i: usize) -> u32 {
    u32::from_le_bytes(v[4 * i..4 * i + 4].try_into().unwrap())
}
fn from_q(a: u64, b: u64) -> Vector {
    ((a as u128) | ((b as u128) << 64)).to_le_bytes()
}
fn from_s(w: [u32; 4]) -> Vector {
    std::array::from_fn(|i| w[i / 4].to_le_bytes()[i % 4])
}

/// `d = f(n, m)` for the second and third operands.
fn v3(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(&Vector, &Vector) -> Vector) -> Result<(), Fault> {
    let r = f(&vec(m, &o[1]), &vec(m, &o[2]));
    set_vec(m, &o[0], r)
}

/// `d = f(n)` for the second operand.
fn v2(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(&Vector) -> Vector) -> Result<(), Fault> {
    let r = f(&vec(m, &o[1]));
    set_vec(m, &o[0], r)
}

fn bytes2(a: &Vector, b: &Vector, f: impl Fn(u8, u8) -> u8) -> Vector {
    std::array::from_fn(|i| f(a[i], b[i]))
}
fn words2(a: &Vector, b: &Vector, f: impl Fn(u32, u32) -> u32) -> Vector {
    from_s(std::array::from_fn(|i| f(s(a, i), s(b, i))))
}
fn halves2(a: &Vector, b: &Vector, f: impl Fn(u16, u16) -> u16) -> Vector {
    let h = |v: &Vector, i: usize| u16::from_le_bytes([v[2 * i], v[2 * i + 1]]);
    std::array::from_fn(|i| f(h(a, i / 2), h(b, i / 2)).to_le_bytes()[i % 2])
}
fn dwords2(a: &Vector, b: &Vector, f: impl Fn(u64, u64) -> u64) -> Vector {
    from_q(f(q(a, 0), q(b, 0)), f(q(a, 1), q(b, 1)))
}

/// Byte `i` of `d` = byte `idx[i]` of `table`, or `fallback[i]` when out of range.
fn lookup(table: &[u8], idx: &Vector, fallback: &Vector) -> Vector {
    std::array::from_fn(|i| table.get(idx[i] as usize).copied().unwrap_or(fallback[i]))
}

fn table4(m: &Machine<'_>, o: &Operand) -> Vec<u8> {
    (0..4).flat_map(|k| m.state.v[(vreg(o) + k) % 32]).collect()
}

fn clmul(a: u64, b: u64) -> u128 {
    (0..64).filter(|i| (b >> i) & 1 == 1).fold(0, |r, i| r ^ ((a as u128) << i))
}

// --- AES and SM4 ---------------------------------------------------------------------------------------------

/// AddRoundKey, then (Inv)SubBytes and (Inv)ShiftRows (state column-major: byte `r + 4 c`).
fn aes_round(d: &Vector, k: &Vector, inverse: bool) -> Vector {
    aes::sub_bytes(aes::shift_rows(bytes2(d, k, |a, b| a ^ b), inverse), inverse)
}

/// (Inv)MixColumns.
fn aes_mix(a: &Vector, inverse: bool) -> Vector {
    aes::mix_columns(*a, inverse)
}

use super::aes;
use super::sm4::SBOX as SM4_SBOX;

/// Four SM4 steps on the words of `x` (word 0 the oldest) with the words of `k`: `x4 = x0 ^ L(S(x1 ^ x2 ^ x3 ^
/// k))`, `L` the round's (`key`: the key schedule's) linear map.
fn sm4_steps(x: &Vector, k: &Vector, key: bool) -> Vector {
    let mut w: [u32; 4] = std::array::from_fn(|i| s(x, i));
    for i in 0..4 {
        let t = w[1] ^ w[2] ^ w[3] ^ s(k, i);
        let t = u32::from_be_bytes(t.to_be_bytes().map(|b| SM4_SBOX[b as usize]));
        let l = if key {
            t ^ t.rotate_left(13) ^ t.rotate_left(23)
        } else {
            t ^ t.rotate_left(2) ^ t.rotate_left(10) ^ t.rotate_left(18) ^ t.rotate_left(24)
        };
        w = [w[1], w[2], w[3], w[0] ^ l];
    }
    from_s(w)
}

// --- SHA-1 (the Arm ARM's SHA1C/P/M, SHA1SU1) ------------------------------------------------------------------------

/// Four SHA-1 rounds on `x` = (a, b, c, d) and the `e` word in `e`'s low 32 bits with the words `w` (`W + K`) and
/// the round function `f` (Ch, Parity or Maj): the new (a, b, c, d).
fn sha1_hash(x: &Vector, e: &Vector, w: &Vector, f: fn(u32, u32, u32) -> u32) -> Vector {
    let (mut x, mut y): ([u32; 4], u32) = (std::array::from_fn(|i| s(x, i)), s(e, 0));
    for k in 0..4 {
        y = y.wrapping_add(x[0].rotate_left(5)).wrapping_add(f(x[1], x[2], x[3])).wrapping_add(s(w, k));
        x[1] = x[1].rotate_left(30);
        // (y:x) rotated left by one word.
        (x, y) = ([y, x[0], x[1], x[2]], x[3]);
    }
    from_s(x)
}

/// `t = d ^ (n >> 32 bits)`, each word rotated left by 1, and the top word also XORed with `t.s[0]` rotated by 2.
fn sha1_su1(d: &Vector, n: &Vector) -> Vector {
    let t = [s(d, 0) ^ s(n, 1), s(d, 1) ^ s(n, 2), s(d, 2) ^ s(n, 3), s(d, 3)];
    let mut r = t.map(|w| w.rotate_left(1));
    r[3] ^= t[0].rotate_left(2);
    from_s(r)
}

// --- SHA-256 and SHA-512 (the Arm ARM's SHA256hash, SHA256SU0/1, SHA512H/H2/SU0/SU1) ------------------------------

/// Four SHA-256 rounds on `x` = (a, b, c, d) and `y` = (e, f, g, h) (word 0 first) with the words `w` (`W + K`):
/// the new (a, b, c, d) and (e, f, g, h).
fn sha256_hash(x: &Vector, y: &Vector, w: &Vector) -> (Vector, Vector) {
    let (mut x, mut y): ([u32; 4], [u32; 4]) = (std::array::from_fn(|i| s(x, i)), std::array::from_fn(|i| s(y, i)));
    for e in 0..4 {
        let ch = ((y[1] ^ y[2]) & y[0]) ^ y[2];
        let maj = (x[0] & x[1]) | ((x[0] | x[1]) & x[2]);
        let sigma1 = y[0].rotate_right(6) ^ y[0].rotate_right(11) ^ y[0].rotate_right(25);
        let sigma0 = x[0].rotate_right(2) ^ x[0].rotate_right(13) ^ x[0].rotate_right(22);
        let t = y[3].wrapping_add(sigma1).wrapping_add(ch).wrapping_add(s(w, e));
        x[3] = t.wrapping_add(x[3]);
        y[3] = t.wrapping_add(sigma0).wrapping_add(maj);
        // (y:x) rotated left by one word: y's top word enters x at the bottom, x's top word enters y.
        (x, y) = ([y[3], x[0], x[1], x[2]], [x[3], y[0], y[1], y[2]]);
    }
    (from_s(x), from_s(y))
}

/// SHA-256's sigma0 and sigma1 of the message schedule.
fn sha256_sigma0(x: u32) -> u32 {
    x.rotate_right(7) ^ x.rotate_right(18) ^ (x >> 3)
}
fn sha256_sigma1(x: u32) -> u32 {
    x.rotate_right(17) ^ x.rotate_right(19) ^ (x >> 10)
}

/// `d.s[i] + sigma0` of word i of (d.s[1], d.s[2], d.s[3], n.s[0]).
fn sha256_su0(d: &Vector, n: &Vector) -> Vector {
    let t = [s(d, 1), s(d, 2), s(d, 3), s(n, 0)];
    from_s(std::array::from_fn(|i| s(d, i).wrapping_add(sha256_sigma0(t[i]))))
}

/// The next four schedule words: `d.s[i] + t0[i] + sigma1` of the word two before (m's top two, then the first
/// two results), t0 = (n.s[1], n.s[2], n.s[3], m.s[0]).
fn sha256_su1(d: &Vector, n: &Vector, m: &Vector) -> Vector {
    let t0 = [s(n, 1), s(n, 2), s(n, 3), s(m, 0)];
    let mut r = [0u32; 4];
    for e in 0..4 {
        let back = if e < 2 { s(m, 2 + e) } else { r[e - 2] };
        r[e] = sha256_sigma1(back).wrapping_add(s(d, e)).wrapping_add(t0[e]);
    }
    from_s(r)
}

fn sha512_big_sigma1(x: u64) -> u64 {
    x.rotate_right(14) ^ x.rotate_right(18) ^ x.rotate_right(41)
}
fn sha512_big_sigma0(x: u64) -> u64 {
    x.rotate_right(28) ^ x.rotate_right(34) ^ x.rotate_right(39)
}

/// SHA512H: `w` = d (the `W + K` words), `x` = n, `y` = m.
fn sha512_h(w: &Vector, x: &Vector, y: &Vector) -> Vector {
    let (x0, x1, y0, y1) = (q(x, 0), q(x, 1), q(y, 0), q(y, 1));
    let hi = ((y1 & x0) ^ (!y1 & x1)).wrapping_add(sha512_big_sigma1(y1)).wrapping_add(q(w, 1));
    let t = hi.wrapping_add(y0);
    let lo = ((t & y1) ^ (!t & x0)).wrapping_add(sha512_big_sigma1(t)).wrapping_add(q(w, 0));
    from_q(lo, hi)
}

/// SHA512H2: `w` = d, `x` = n, `y` = m.
fn sha512_h2(w: &Vector, x: &Vector, y: &Vector) -> Vector {
    let (x0, y0, y1) = (q(x, 0), q(y, 0), q(y, 1));
    let hi = ((x0 & y1) ^ (x0 & y0) ^ (y1 & y0)).wrapping_add(sha512_big_sigma0(y0)).wrapping_add(q(w, 1));
    let lo = ((hi & y0) ^ (hi & y1) ^ (y1 & y0)).wrapping_add(sha512_big_sigma0(hi)).wrapping_add(q(w, 0));
    from_q(lo, hi)
}

/// `d.d[0] + sigma0(d.d[1])`, `d.d[1] + sigma0(n.d[0])`.
fn sha512_su0(d: &Vector, n: &Vector) -> Vector {
    let sigma0 = |x: u64| x.rotate_right(1) ^ x.rotate_right(8) ^ (x >> 7);
    from_q(q(d, 0).wrapping_add(sigma0(q(d, 1))), q(d, 1).wrapping_add(sigma0(q(n, 0))))
}

/// `d.d[i] + sigma1(n.d[i]) + m.d[i]`.
fn sha512_su1(d: &Vector, n: &Vector, m: &Vector) -> Vector {
    let sigma1 = |x: u64| x.rotate_right(19) ^ x.rotate_right(61) ^ (x >> 6);
    dwords2(d, &dwords2(n, m, |x, y| sigma1(x).wrapping_add(y)), u64::wrapping_add)
}

// --- the table ---------------------------------------------------------------------------------------------------

use Role::{None as O, R, RW, W};

/// One [`Sem`]: `op [roles] base, read, written, bytes, variable_time, |m, o| body`, the body a
/// `Result<(), Fault>` (or `flow |m, o| body` for a body giving the [`Flow`]).
macro_rules! sems {
    ($(
        $op:ident [$($role:ident),*] $base:expr, $fr:expr, $fw:expr, $bytes:expr, $vt:expr,
        $(flow $($fl:lifetime)?)? |$m:ident, $o:ident| $body:expr;
    )*) => {
        &[$(Sem {
            op: Op::$op,
            roles: &[$($role),*],
            base: $base,
            flags_read: $fr,
            flags_written: $fw,
            mem_bytes: $bytes,
            variable_time: $vt,
            exec: {
                #[allow(unused_variables)]
                fn f<'o>($m: &mut Machine<'_>, $o: &'o [Operand]) -> Result<Flow<'o>, Fault> {
                    sems!(@body $(flow $($fl)?)? $body)
                }
                f
            },
        }),*]
    };
    (@body flow $body:expr) => { Ok($body) };
    (@body $body:expr) => { $body.map(|()| Flow::Next) };
}

const NB: Option<usize> = None;

/// The semantics, in `Op` order.
static SEMS: &[Sem] = sems! {
    nop [] NB, 0, 0, 0, false, |m, o| Ok(());
    ret [] NB, 0, 0, 0, false, flow |m, o| Flow::Ret;
    mov [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]));
    add_imm [W, R, O] NB, 0, 0, 0, false, |m, o| arith(m, o, b'+', false);
    sub_imm [W, R, O] NB, 0, 0, 0, false, |m, o| arith(m, o, b'-', false);
    subs_imm [W, R, O] NB, 0, NZCV, 0, false, |m, o| arith(m, o, b'-', true);
    cmp_imm [R, O] NB, 0, NZCV, 0, false, |m, o| arith(m, o, b'?', true);
    add [W, R, R] NB, 0, 0, 0, false, |m, o| arith(m, o, b'+', false);
    add_lsl [W, R, R, O] NB, 0, 0, 0, false, |m, o| {
        let v = gpr(m, &o[1]).wrapping_add(gpr(m, &o[2]) << imm(&o[3]));
        set_gpr(m, &o[0], v)
    };
    sub [W, R, R] NB, 0, 0, 0, false, |m, o| arith(m, o, b'-', false);
    subs [W, R, R] NB, 0, NZCV, 0, false, |m, o| arith(m, o, b'-', true);
    cmp [R, R] NB, 0, NZCV, 0, false, |m, o| arith(m, o, b'?', true);
    movz [W, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], imm(&o[1]) as u64);
    adds_imm [W, R, O] NB, 0, NZCV, 0, false, |m, o| arith(m, o, b'+', true);
    adc [W, R, R] NB, C, 0, 0, false, |m, o| arith(m, o, b'c', false);
    adds [W, R, R] NB, 0, NZCV, 0, false, |m, o| arith(m, o, b'+', true);
    adcs [W, R, R] NB, C, NZCV, 0, false, |m, o| arith(m, o, b'c', true);
    sbc [W, R, R] NB, C, 0, 0, false, |m, o| arith(m, o, b'b', false);
    sbcs [W, R, R] NB, C, NZCV, 0, false, |m, o| arith(m, o, b'b', true);
    mul [W, R, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]).wrapping_mul(gpr(m, &o[2])));
    umulh [W, R, R] NB, 0, 0, 0, false, |m, o| {
        let p = gpr(m, &o[1]) as u128 * gpr(m, &o[2]) as u128;
        set_gpr(m, &o[0], (p >> 64) as u64)
    };
    extr [W, R, R, O] NB, 0, 0, 0, false, |m, o| {
        let v = ((((gpr(m, &o[1]) as u128) << 64) | gpr(m, &o[2]) as u128) >> imm(&o[3])) as u64;
        set_gpr(m, &o[0], v)
    };
    ror_imm [W, R, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]).rotate_right(imm(&o[2]) as u32));
    ror [W, R, R] NB, 0, 0, 0, false, |m, o| {
        let v = gpr(m, &o[1]).rotate_right((gpr(m, &o[2]) & 63) as u32);
        set_gpr(m, &o[0], v)
    };
    csel_eq [W, R, R] NB, Z, 0, 0, false, |m, o| csel(m, o, |f| f & Z != 0);
    csel_ne [W, R, R] NB, Z, 0, 0, false, |m, o| csel(m, o, |f| f & Z == 0);
    csel_hs [W, R, R] NB, C, 0, 0, false, |m, o| csel(m, o, |f| f & C != 0);
    csel_lo [W, R, R] NB, C, 0, 0, false, |m, o| csel(m, o, |f| f & C == 0);
    csel_hi [W, R, R] NB, C | Z, 0, 0, false, |m, o| csel(m, o, |f| f & C != 0 && f & Z == 0);
    csel_ls [W, R, R] NB, C | Z, 0, 0, false, |m, o| csel(m, o, |f| f & C == 0 || f & Z != 0);
    csel_ge [W, R, R] NB, N | V, 0, 0, false, |m, o| csel(m, o, |f| (f & N != 0) == (f & V != 0));
    csel_lt [W, R, R] NB, N | V, 0, 0, false, |m, o| csel(m, o, |f| (f & N != 0) != (f & V != 0));
    csel_gt [W, R, R] NB, N | Z | V, 0, 0, false, |m, o| csel(m, o, |f| f & Z == 0 && (f & N != 0) == (f & V != 0));
    csel_le [W, R, R] NB, N | Z | V, 0, 0, false, |m, o| csel(m, o, |f| f & Z != 0 || (f & N != 0) != (f & V != 0));
    rev [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]).swap_bytes());
    lsl [W, R, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]) << imm(&o[2]));
    lsr [W, R, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]) >> imm(&o[2]));
    adrp [W, O] NB, 0, 0, 0, false, |m, o| { let a = label_addr(m, &o[1])?; set_gpr(m, &o[0], a & !0xfff) };
    add_lo12 [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let a = label_addr(m, &o[2])?;
        set_gpr(m, &o[0], gpr(m, &o[1]).wrapping_add(a & 0xfff))
    };
    adr [W, O] NB, 0, 0, 0, false, |m, o| { let a = label_addr(m, &o[1])?; set_gpr(m, &o[0], a) };
    b [O] NB, 0, 0, 0, false, flow |m, o| branch(m, o, |_| true);
    b_eq [O] NB, Z, 0, 0, false, flow |m, o| branch(m, o, |f| f & Z != 0);
    b_ne [O] NB, Z, 0, 0, false, flow |m, o| branch(m, o, |f| f & Z == 0);
    b_hs [O] NB, C, 0, 0, false, flow |m, o| branch(m, o, |f| f & C != 0);
    b_lo [O] NB, C, 0, 0, false, flow |m, o| branch(m, o, |f| f & C == 0);
    b_hi [O] NB, C | Z, 0, 0, false, flow |m, o| branch(m, o, |f| f & C != 0 && f & Z == 0);
    b_ls [O] NB, C | Z, 0, 0, false, flow |m, o| branch(m, o, |f| f & C == 0 || f & Z != 0);
    cbz [R, O] NB, 0, 0, 0, false, flow |m, o| cbranch(m, o, true);
    cbnz [R, O] NB, 0, 0, 0, false, flow |m, o| cbranch(m, o, false);
    ldr_x [W, R, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, false, Mode::Off);
    str_x [R, R, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, true, Mode::Off);
    str_x_pre [R, RW, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, true, Mode::Pre);
    ldr_x_post [W, RW, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, false, Mode::Post);
    stp_x [R, R, R, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, true, Mode::Off);
    ldp_x [W, W, R, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, false, Mode::Off);
    stp_x_pre [R, R, RW, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, true, Mode::Pre);
    ldp_x_post [W, W, RW, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, false, Mode::Post);
    ldrb [W, R, O] Some(1), 0, 0, 1, false, |m, o| {
        let a = addr(m, &o[1], imm(&o[2]), Mode::Off);
        let b = load(m, a, 1)?;
        set_gpr(m, &o[0], b[0] as u64)
    };
    strb [R, R, O] Some(1), 0, 0, 1, false, |m, o| {
        let a = addr(m, &o[1], imm(&o[2]), Mode::Off);
        let b = gpr(m, &o[0]) as u8;
        m.mem.write(a, &[b])
    };
    ldr_d [W, R, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, false, Mode::Off);
    str_d [R, R, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, true, Mode::Off);
    str_d_pre [R, RW, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, true, Mode::Pre);
    ldr_d_post [W, RW, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, false, Mode::Post);
    stp_d [R, R, R, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, true, Mode::Off);
    ldp_d [W, W, R, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, false, Mode::Off);
    stp_d_pre [R, R, RW, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, true, Mode::Pre);
    ldp_d_post [W, W, RW, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, false, Mode::Post);
    ldr_q [W, R, O] Some(1), 0, 0, 16, false, |m, o| ldst(m, o, 16, false, Mode::Off);
    str_q [R, R, O] Some(1), 0, 0, 16, false, |m, o| ldst(m, o, 16, true, Mode::Off);
    ldr_q_post [W, RW, O] Some(1), 0, 0, 16, false, |m, o| ldst(m, o, 16, false, Mode::Post);
    str_q_post [R, RW, O] Some(1), 0, 0, 16, false, |m, o| ldst(m, o, 16, true, Mode::Post);
    ldp_q [W, W, R, O] Some(2), 0, 0, 32, false, |m, o| ldst(m, o, 16, false, Mode::Off);
    stp_q [R, R, R, O] Some(2), 0, 0, 32, false, |m, o| ldst(m, o, 16, true, Mode::Off);
    ldp_q_post [W, W, RW, O] Some(2), 0, 0, 32, false, |m, o| ldst(m, o, 16, false, Mode::Post);
    ld1_16b [W, R] Some(1), 0, 0, 16, false, |m, o| ld1(m, o, false);
    ld1_16b_post [W, RW] Some(1), 0, 0, 16, false, |m, o| ld1(m, o, true);
    st1_16b [R, R] Some(1), 0, 0, 16, false, |m, o| st1(m, o, false);
    st1_16b_post [R, RW] Some(1), 0, 0, 16, false, |m, o| st1(m, o, true);
    ld1_4x16b_post [W, RW] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, false, false, true);
    st1_4x16b_post [R, RW] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, false, true, true);
    ld4_4s_post [W, RW] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, true, false, true);
    st4_4s_post [R, RW] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, true, true, true);
    ld4_s_post [RW, O, RW] Some(2), 0, 0, 16, false, |m, o| ldst_lane(m, o, false);
    st4_s_post [R, O, RW] Some(2), 0, 0, 16, false, |m, o| ldst_lane(m, o, true);
    ld1r_4s_post [W, RW] Some(1), 0, 0, 4, false, |m, o| {
        let a = addr(m, &o[1], 4, Mode::Post);
        let b = load(m, a, 4)?;
        set_vec(m, &o[0], std::array::from_fn(|i| b[i % 4]))
    };
    ld4r_4s [W, R] Some(1), 0, 0, 16, false, |m, o| ld4r(m, o, false);
    ld4r_4s_post [W, RW] Some(1), 0, 0, 16, false, |m, o| ld4r(m, o, true);
    eor_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| bytes2(a, b, |x, y| x ^ y));
    and_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| bytes2(a, b, |x, y| x & y));
    orr_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| bytes2(a, b, |x, y| x | y));
    bic_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| bytes2(a, b, |x, y| x & !y));
    mov_16b [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| *a);
    ext_16b [W, R, R, O] NB, 0, 0, 0, false, |m, o| {
        let k = imm(&o[3]) as usize;
        v3(m, o, |a, b| std::array::from_fn(|i| if i + k < 16 { a[i + k] } else { b[i + k - 16] }))
    };
    rev64_16b [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| std::array::from_fn(|i| a[i ^ 7]));
    rev32_16b [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| std::array::from_fn(|i| a[i ^ 3]));
    tbl_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |t, i| lookup(t, i, &[0; 16]));
    tbl4_16b [W, R, R] NB, 0, 0, 0, false, |m, o| {
        let (t, i) = (table4(m, &o[1]), vec(m, &o[2]));
        set_vec(m, &o[0], lookup(&t, &i, &[0; 16]))
    };
    tbx4_16b [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let (t, i, d) = (table4(m, &o[1]), vec(m, &o[2]), vec(m, &o[0]));
        set_vec(m, &o[0], lookup(&t, &i, &d))
    };
    uzp1_4s [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_s([s(a, 0), s(a, 2), s(b, 0), s(b, 2)]));
    uzp2_4s [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_s([s(a, 1), s(a, 3), s(b, 1), s(b, 3)]));
    zip1_4s [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_s([s(a, 0), s(b, 0), s(a, 1), s(b, 1)]));
    cmhi_2d [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| dwords2(a, b, |x, y| if x > y { !0 } else { 0 }));
    sub_2d [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| dwords2(a, b, u64::wrapping_sub));
    add_2d [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| dwords2(a, b, u64::wrapping_add));
    add_4s [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| words2(a, b, u32::wrapping_add));
    sub_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| bytes2(a, b, u8::wrapping_sub));
    rev64_4s [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| from_s([s(a, 1), s(a, 0), s(a, 3), s(a, 2)]));
    rev32_8h [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| from_s(std::array::from_fn(|i| s(a, i).rotate_left(16))));
    rbit_16b [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| a.map(u8::reverse_bits));
    shl_4s [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]);
        v2(m, o, |a| from_s(std::array::from_fn(|i| s(a, i) << n)))
    };
    ushr_4s [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]);
        v2(m, o, |a| from_s(std::array::from_fn(|i| ((s(a, i) as u64) >> n) as u32)))
    };
    sri_4s [RW, R, O] NB, 0, 0, 0, false, |m, o| {
        let (n, d) = (imm(&o[2]), vec(m, &o[0]));
        let keep = !((u32::MAX as u64) >> n) as u32;
        v2(m, o, |a| from_s(std::array::from_fn(|i| (s(&d, i) & keep) | ((s(a, i) as u64) >> n) as u32)))
    };
    sli_4s [RW, R, O] NB, 0, 0, 0, false, |m, o| {
        let (n, d) = (imm(&o[2]), vec(m, &o[0]));
        let keep = ((1u64 << n) - 1) as u32;
        v2(m, o, |a| from_s(std::array::from_fn(|i| (s(&d, i) & keep) | (s(a, i) << n))))
    };
    sli_2d [RW, R, O] NB, 0, 0, 0, false, |m, o| {
        let (n, d) = (imm(&o[2]) as u32, vec(m, &o[0]));
        let keep = (1u64 << n) - 1;
        v2(m, o, |a| dwords2(a, &d, |x, y| (y & keep) | (x << n)))
    };
    dup_4s [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let i = imm(&o[2]) as usize;
        v2(m, o, |a| from_s([s(a, i); 4]))
    };
    zip1_2d [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_q(q(a, 0), q(b, 0)));
    zip2_2d [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_q(q(a, 1), q(b, 1)));
    zip2_4s [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_s([s(a, 2), s(b, 2), s(a, 3), s(b, 3)]));
    zip1_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| std::array::from_fn(|i| [a, b][i % 2][i / 2]));
    zip2_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| std::array::from_fn(|i| [a, b][i % 2][8 + i / 2]));
    trn1_4s [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_s([s(a, 0), s(b, 0), s(a, 2), s(b, 2)]));
    trn2_4s [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_s([s(a, 1), s(b, 1), s(a, 3), s(b, 3)]));
    trn1_2d [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_q(q(a, 0), q(b, 0)));
    trn2_2d [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_q(q(a, 1), q(b, 1)));
    trn1_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| std::array::from_fn(|i| [a, b][i % 2][i & !1]));
    trn2_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| std::array::from_fn(|i| [a, b][i % 2][i | 1]));
    uzp1_2d [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_q(q(a, 0), q(b, 0)));
    uzp2_2d [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| from_q(q(a, 1), q(b, 1)));
    uzp1_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| std::array::from_fn(|i| [a, b][i / 8][(2 * i) % 16]));
    uzp2_16b [W, R, R] NB, 0, 0, 0, false, |m, o| {
        v3(m, o, |a, b| std::array::from_fn(|i| [a, b][i / 8][(2 * i + 1) % 16]))
    };
    ushr_2d [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]) as u32;
        v2(m, o, |a| dwords2(a, a, |x, _| x.checked_shr(n).unwrap_or(0)))
    };
    sshr_2d [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]).min(63) as u32;
        v2(m, o, |a| dwords2(a, a, |x, _| ((x as i64) >> n) as u64))
    };
    shl_2d [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]) as u32;
        v2(m, o, |a| dwords2(a, a, |x, _| x << n))
    };
    dup_2d [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let i = imm(&o[2]) as usize;
        v2(m, o, |a| from_q(q(a, i), q(a, i)))
    };
    dup_2d_x [W, R] NB, 0, 0, 0, false, |m, o| { let x = gpr(m, &o[1]); set_vec(m, &o[0], from_q(x, x)) };
    movi_zero [W] NB, 0, 0, 0, false, |m, o| set_vec(m, &o[0], [0; 16]);
    movi_16b [W, O] NB, 0, 0, 0, false, |m, o| set_vec(m, &o[0], [imm(&o[1]) as u8; 16]);
    ins_d [RW, O, R, O] NB, 0, 0, 0, false, |m, o| {
        let (mut d, x) = (vec(m, &o[0]), q(&vec(m, &o[2]), imm(&o[3]) as usize));
        let i = imm(&o[1]) as usize;
        d[8 * i..8 * i + 8].copy_from_slice(&x.to_le_bytes());
        set_vec(m, &o[0], d)
    };
    ins_d_x [RW, O, R] NB, 0, 0, 0, false, |m, o| {
        let (mut d, x, i) = (vec(m, &o[0]), gpr(m, &o[2]), imm(&o[1]) as usize);
        d[8 * i..8 * i + 8].copy_from_slice(&x.to_le_bytes());
        set_vec(m, &o[0], d)
    };
    umov_d [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let x = q(&vec(m, &o[1]), imm(&o[2]) as usize);
        set_gpr(m, &o[0], x)
    };
    pmull [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| clmul(q(a, 0), q(b, 0)).to_le_bytes());
    pmull2 [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| clmul(q(a, 1), q(b, 1)).to_le_bytes());
    aese [RW, R] NB, 0, 0, 0, false, |m, o| { let d = vec(m, &o[0]); v2(m, o, |k| aes_round(&d, k, false)) };
    aesd [RW, R] NB, 0, 0, 0, false, |m, o| { let d = vec(m, &o[0]); v2(m, o, |k| aes_round(&d, k, true)) };
    aesmc [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| aes_mix(a, false));
    aesimc [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| aes_mix(a, true));
    eor3 [W, R, R, R] NB, 0, 0, 0, false, |m, o| {
        let c = vec(m, &o[3]);
        v3(m, o, |a, b| std::array::from_fn(|i| a[i] ^ b[i] ^ c[i]))
    };
    bcax [W, R, R, R] NB, 0, 0, 0, false, |m, o| {
        let c = vec(m, &o[3]);
        v3(m, o, |a, b| std::array::from_fn(|i| a[i] ^ (b[i] & !c[i])))
    };
    sm4e [RW, R] NB, 0, 0, 0, false, |m, o| { let d = vec(m, &o[0]); v2(m, o, |k| sm4_steps(&d, k, false)) };
    sm4ekey [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, k| sm4_steps(a, k, true));
    sha256h [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |n, w| sha256_hash(&d, n, w).0)
    };
    sha256h2 [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |n, w| sha256_hash(n, &d, w).1)
    };
    sha256su0 [RW, R] NB, 0, 0, 0, false, |m, o| { let d = vec(m, &o[0]); v2(m, o, |n| sha256_su0(&d, n)) };
    sha256su1 [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |n, k| sha256_su1(&d, n, k))
    };
    sha512h [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |n, k| sha512_h(&d, n, k))
    };
    sha512h2 [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |n, k| sha512_h2(&d, n, k))
    };
    sha512su0 [RW, R] NB, 0, 0, 0, false, |m, o| { let d = vec(m, &o[0]); v2(m, o, |n| sha512_su0(&d, n)) };
    sha512su1 [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |n, k| sha512_su1(&d, n, k))
    };
    sha1c [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |e, w| sha1_hash(&d, e, w, |x, y, z| ((y ^ z) & x) ^ z))
    };
    sha1p [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |e, w| sha1_hash(&d, e, w, |x, y, z| x ^ y ^ z))
    };
    sha1m [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |e, w| sha1_hash(&d, e, w, |x, y, z| (x & y) | ((x | y) & z)))
    };
    sha1h [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |n| from_s([s(n, 0).rotate_left(30), 0, 0, 0]));
    sha1su0 [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |n, k| from_s(std::array::from_fn(|i| [s(&d, 2), s(&d, 3), s(n, 0), s(n, 1)][i] ^ s(&d, i) ^ s(k, i))))
    };
    sha1su1 [RW, R] NB, 0, 0, 0, false, |m, o| { let d = vec(m, &o[0]); v2(m, o, |n| sha1_su1(&d, n)) };
    eor [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a ^ b);
    and [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a & b);
    orr [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a | b);
    bic [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a & !b);
    eor_ror [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Ror), |a, b| a ^ b);
    eor_lsr [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Lsr), |a, b| a ^ b);
    add_lsr [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Lsr), u64::wrapping_add);
    orr_lsl [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Lsl), |a, b| a | b);
    adds_lsl [W, R, R, O] NB, 0, NZCV, 0, false, |m, o| {
        let (r, f) = add_with_flags(gpr(m, &o[1]), gpr(m, &o[2]) << imm(&o[3]), 0);
        m.state.flags = f;
        set_gpr(m, &o[0], r)
    };
    and_imm [W, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a & b);
    orr_imm [W, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a | b);
    add_ext [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Lsl), u64::wrapping_add);
    sub_ext [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Lsl), u64::wrapping_sub);
    eor_imm [W, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a ^ b);
    tst_imm [R, O] NB, 0, NZCV, 0, false, |m, o| {
        let r = gpr(m, &o[0]) & gpr(m, &o[1]);
        m.state.flags = if r >> 63 != 0 { N } else { 0 } | if r == 0 { Z } else { 0 };
        Ok(())
    };
    lsl_reg [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a << (b & 63));
    lsr_reg [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a >> (b & 63));
    rev32_x [W, R] NB, 0, 0, 0, false, |m, o| {
        let v = gpr(m, &o[1]);
        set_gpr(m, &o[0], ((v as u32).swap_bytes() as u64) | (((v >> 32) as u32).swap_bytes() as u64) << 32)
    };
    rbit [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]).reverse_bits());
    clz [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]).leading_zeros() as u64);
    mvn [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], !gpr(m, &o[1]));
    neg [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]).wrapping_neg());
    ngc [W, R] NB, C, 0, 0, false, |m, o| {
        let r = add_with_flags(0, !gpr(m, &o[1]), (m.state.flags & C) >> 1).0;
        set_gpr(m, &o[0], r)
    };
    cmn [R, R] NB, 0, NZCV, 0, false, |m, o| {
        m.state.flags = add_with_flags(gpr(m, &o[0]), gpr(m, &o[1]), 0).1;
        Ok(())
    };
    movn [W, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], !(imm(&o[1]) as u64));
    cset_eq [W] NB, Z, 0, 0, false, |m, o| cset(m, o, 1, |f| f & Z != 0);
    cset_ne [W] NB, Z, 0, 0, false, |m, o| cset(m, o, 1, |f| f & Z == 0);
    cset_hs [W] NB, C, 0, 0, false, |m, o| cset(m, o, 1, |f| f & C != 0);
    cset_lo [W] NB, C, 0, 0, false, |m, o| cset(m, o, 1, |f| f & C == 0);
    csetm_eq [W] NB, Z, 0, 0, false, |m, o| cset(m, o, !0, |f| f & Z != 0);
    csetm_ne [W] NB, Z, 0, 0, false, |m, o| cset(m, o, !0, |f| f & Z == 0);
    csetm_hs [W] NB, C, 0, 0, false, |m, o| cset(m, o, !0, |f| f & C != 0);
    csetm_lo [W] NB, C, 0, 0, false, |m, o| cset(m, o, !0, |f| f & C == 0);
    add_w [W, R, R] NB, 0, 0, 0, false, |m, o| arith(m, o, b'+', false);
    sub_w [W, R, R] NB, 0, 0, 0, false, |m, o| arith(m, o, b'-', false);
    eor_w [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a ^ b);
    and_w [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a & b);
    orr_w [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a | b);
    bic_w [W, R, R] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a & !b);
    mov_w [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]));
    eor_w_ror [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Ror), |a, b| a ^ b);
    eor_w_lsr [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Lsr), |a, b| a ^ b);
    ror_w_imm [W, R, O] NB, 0, 0, 0, false, |m, o| {
        set_gpr(m, &o[0], (gpr(m, &o[1]) as u32).rotate_right(imm(&o[2]) as u32) as u64)
    };
    lsr_w [W, R, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]) >> imm(&o[2]));
    lsl_w [W, R, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]) << imm(&o[2]));
    rev_w [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], (gpr(m, &o[1]) as u32).swap_bytes() as u64);
    add_w_imm [W, R, O] NB, 0, 0, 0, false, |m, o| arith(m, o, b'+', false);
    sub_w_imm [W, R, O] NB, 0, 0, 0, false, |m, o| arith(m, o, b'-', false);
    cmp_w_imm [R, O] NB, 0, NZCV, 0, false, |m, o| arith(m, o, b'?', true);
    cmp_w [R, R] NB, 0, NZCV, 0, false, |m, o| arith(m, o, b'?', true);
    movz_w [W, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], imm(&o[1]) as u64);
    movk_w [RW, O, O] NB, 0, 0, 0, false, |m, o| {
        let s = imm(&o[2]);
        let v = (gpr(m, &o[0]) & !(0xffff << s)) | ((imm(&o[1]) as u64) << s);
        set_gpr(m, &o[0], v)
    };
    cbz_w [R, O] NB, 0, 0, 0, false, flow |m, o| cbranch(m, o, true);
    cbnz_w [R, O] NB, 0, 0, 0, false, flow |m, o| cbranch(m, o, false);
    tbz_w [R, O, O] NB, 0, 0, 0, false, flow |m, o| tbranch(m, o, false);
    tbnz_w [R, O, O] NB, 0, 0, 0, false, flow |m, o| tbranch(m, o, true);
    ldr_w [W, R, O] Some(1), 0, 0, 4, false, |m, o| ldst(m, o, 4, false, Mode::Off);
    str_w [R, R, O] Some(1), 0, 0, 4, false, |m, o| ldst(m, o, 4, true, Mode::Off);
    ldr_w_post [W, RW, O] Some(1), 0, 0, 4, false, |m, o| ldst(m, o, 4, false, Mode::Post);
    ldp_w [W, W, R, O] Some(2), 0, 0, 8, false, |m, o| ldst(m, o, 4, false, Mode::Off);
    ldp_w_post [W, W, RW, O] Some(2), 0, 0, 8, false, |m, o| ldst(m, o, 4, false, Mode::Post);
    stp_w [R, R, R, O] Some(2), 0, 0, 8, false, |m, o| ldst(m, o, 4, true, Mode::Off);
    ldr_x_reg [W, R, R] Some(1), 0, 0, 8, false, |m, o| ldst_reg(m, o, 8, false);
    ldrb_reg [W, R, R] Some(1), 0, 0, 1, false, |m, o| ldst_reg(m, o, 1, false);
    strb_reg [R, R, R] Some(1), 0, 0, 1, false, |m, o| ldst_reg(m, o, 1, true);
    ldrb_pre [W, RW, O] Some(1), 0, 0, 1, false, |m, o| ldst(m, o, 1, false, Mode::Pre);
    ldrb_post [W, RW, O] Some(1), 0, 0, 1, false, |m, o| ldst(m, o, 1, false, Mode::Post);
    strb_pre [R, RW, O] Some(1), 0, 0, 1, false, |m, o| ldst(m, o, 1, true, Mode::Pre);
    strb_post [R, RW, O] Some(1), 0, 0, 1, false, |m, o| ldst(m, o, 1, true, Mode::Post);
    ldr_x_pre [W, RW, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, false, Mode::Pre);
    str_x_post [R, RW, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, true, Mode::Post);
    stp_x_post [R, R, RW, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, true, Mode::Post);
    stp_d_post [R, R, RW, O] Some(2), 0, 0, 16, false, |m, o| ldst(m, o, 8, true, Mode::Post);
    ldur_x [W, R, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, false, Mode::Off);
    stur_x [R, R, O] Some(1), 0, 0, 8, false, |m, o| ldst(m, o, 8, true, Mode::Off);
    bl [O] NB, 0, 0, 0, false, |m, o| Err(NO_CALLS);
    blr [R] NB, 0, 0, 0, false, |m, o| Err(NO_CALLS);
    paciasp [] NB, 0, 0, 0, false, |m, o| Ok(());
    autiasp [] NB, 0, 0, 0, false, |m, o| Ok(());
    bti_c [] NB, 0, 0, 0, false, |m, o| Ok(());
    bti_j [] NB, 0, 0, 0, false, |m, o| Ok(());
    bti_jc [] NB, 0, 0, 0, false, |m, o| Ok(());
    b_ge [O] NB, N | V, 0, 0, false, flow |m, o| branch(m, o, |f| (f & N != 0) == (f & V != 0));
    b_lt [O] NB, N | V, 0, 0, false, flow |m, o| branch(m, o, |f| (f & N != 0) != (f & V != 0));
    b_gt [O] NB, N | Z | V, 0, 0, false, flow |m, o| branch(m, o, |f| f & Z == 0 && (f & N != 0) == (f & V != 0));
    b_le [O] NB, N | Z | V, 0, 0, false, flow |m, o| branch(m, o, |f| f & Z != 0 || (f & N != 0) != (f & V != 0));
    fmov_d_x [W, R] NB, 0, 0, 0, false, |m, o| { let x = gpr(m, &o[1]); set_vec(m, &o[0], from_q(x, 0)) };
    fmov_d1_x [RW, R] NB, 0, 0, 0, false, |m, o| {
        let (d, x) = (vec(m, &o[0]), gpr(m, &o[1]));
        set_vec(m, &o[0], from_q(q(&d, 0), x))
    };
    pmull_8b [W, R, R] NB, 0, 0, 0, false, |m, o| {
        v3(m, o, |a, b| {
            let p: [u16; 8] = std::array::from_fn(|i| clmul(a[i] as u64, b[i] as u64) as u16);
            std::array::from_fn(|i| p[i / 2].to_le_bytes()[i % 2])
        })
    };
    ext_8b [W, R, R, O] NB, 0, 0, 0, false, |m, o| {
        let k = imm(&o[3]) as usize;
        v3(m, o, |a, b| std::array::from_fn(|i| if i >= 8 { 0 } else if i + k < 8 { a[i + k] } else { b[i + k - 8] }))
    };
    ushr_16b [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]);
        v2(m, o, |a| a.map(|x| ((x as u16) >> n) as u8))
    };
    sshr_4s [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let n = imm(&o[2]).min(31);
        v2(m, o, |a| from_s(std::array::from_fn(|i| ((s(a, i) as i32) >> n) as u32)))
    };
    sub_4s [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| words2(a, b, u32::wrapping_sub));
    bit_16b [RW, R, R] NB, 0, 0, 0, false, |m, o| {
        let d = vec(m, &o[0]);
        v3(m, o, |n, k| std::array::from_fn(|i| (d[i] & !k[i]) | (n[i] & k[i])))
    };
    mvn_16b [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| a.map(|x| !x));
    eor_8b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| std::array::from_fn(|i| if i < 8 { a[i] ^ b[i] } else { 0 }));
    ins_s_w [RW, O, R] NB, 0, 0, 0, false, |m, o| {
        let (mut d, x, i) = (vec(m, &o[0]), gpr(m, &o[2]) as u32, imm(&o[1]) as usize);
        d[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
        set_vec(m, &o[0], d)
    };
    ins_b_w [RW, O, R] NB, 0, 0, 0, false, |m, o| {
        let (mut d, x, i) = (vec(m, &o[0]), gpr(m, &o[2]) as u8, imm(&o[1]) as usize);
        d[i] = x;
        set_vec(m, &o[0], d)
    };
    ins_s [RW, O, R, O] NB, 0, 0, 0, false, |m, o| {
        let (mut d, x, i) = (vec(m, &o[0]), s(&vec(m, &o[2]), imm(&o[3]) as usize), imm(&o[1]) as usize);
        d[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
        set_vec(m, &o[0], d)
    };
    dup_4s_w [W, R] NB, 0, 0, 0, false, |m, o| { let x = gpr(m, &o[1]) as u32; set_vec(m, &o[0], from_s([x; 4])) };
    umov_b [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let x = vec(m, &o[1])[imm(&o[2]) as usize];
        set_gpr(m, &o[0], x as u64)
    };
    ld1_2d [W, R] Some(1), 0, 0, 16, false, |m, o| ld1n(m, o, 16, false);
    ld1_2d_post [W, RW] Some(1), 0, 0, 16, false, |m, o| ld1n(m, o, 16, true);
    ld1_4s [W, R] Some(1), 0, 0, 16, false, |m, o| ld1n(m, o, 16, false);
    ld1_4s_post [W, RW] Some(1), 0, 0, 16, false, |m, o| ld1n(m, o, 16, true);
    ld1_1d [W, R] Some(1), 0, 0, 8, false, |m, o| ld1n(m, o, 8, false);
    ld1_1d_post [W, RW] Some(1), 0, 0, 8, false, |m, o| ld1n(m, o, 8, true);
    st1_2d [R, R] Some(1), 0, 0, 16, false, |m, o| st1(m, o, false);
    st1_4s_post [R, RW] Some(1), 0, 0, 16, false, |m, o| st1(m, o, true);
    ld1_4x16b [W, R] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, false, false, false);
    ld1_4x2d [W, R] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, false, false, false);
    ld1_4x2d_post [W, RW] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, false, false, true);
    ld1_4x4s [W, R] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, false, false, false);
    st1_4x16b [R, R] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, false, true, false);
    st1_4x2d [R, R] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, false, true, false);
    st1_4x2d_post [R, RW] Some(1), 0, 0, 64, false, |m, o| ldst_multi(m, o, 4, false, true, true);
    ld1_2x2d [W, R] Some(1), 0, 0, 32, false, |m, o| ldst_multi(m, o, 2, false, false, false);
    ld1_2x2d_post [W, RW] Some(1), 0, 0, 32, false, |m, o| ldst_multi(m, o, 2, false, false, true);
    ld1_2x4s [W, R] Some(1), 0, 0, 32, false, |m, o| ldst_multi(m, o, 2, false, false, false);
    ld1_2x16b_post [W, RW] Some(1), 0, 0, 32, false, |m, o| ldst_multi(m, o, 2, false, false, true);
    ld1_3x16b [W, R] Some(1), 0, 0, 48, false, |m, o| ldst_multi(m, o, 3, false, false, false);
    st1_2x16b_post [R, RW] Some(1), 0, 0, 32, false, |m, o| ldst_multi(m, o, 2, false, true, true);
    st1_2x2d [R, R] Some(1), 0, 0, 32, false, |m, o| ldst_multi(m, o, 2, false, true, false);
    st1_2x4s [R, R] Some(1), 0, 0, 32, false, |m, o| ldst_multi(m, o, 2, false, true, false);
    ld1_s [RW, O, R] Some(2), 0, 0, 4, false, |m, o| {
        let (a, i) = (gpr(m, &o[2]), imm(&o[1]) as usize);
        let b = load(m, a, 4)?;
        let mut d = vec(m, &o[0]);
        d[4 * i..4 * i + 4].copy_from_slice(&b);
        set_vec(m, &o[0], d)
    };
    st1_s [R, O, R] Some(2), 0, 0, 4, false, |m, o| {
        let (a, i) = (gpr(m, &o[2]), imm(&o[1]) as usize);
        let d = vec(m, &o[0]);
        m.mem.write(a, &d[4 * i..4 * i + 4])
    };
    ldr_w_reg [W, R, R] Some(1), 0, 0, 4, false, |m, o| ldst_reg(m, o, 4, false);
    and_w_lsr [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Lsr), |a, b| a & b);
    and_w_lsl [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Lsl), |a, b| a & b);
    orr_w_ror [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Ror), |a, b| a | b);
    add_w_lsl [W, R, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, Some(Sh::Lsl), u64::wrapping_add);
    adc_w [W, R, R] NB, C, 0, 0, false, |m, o| arith(m, o, b'c', false);
    clz_w [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], (gpr(m, &o[1]) as u32).leading_zeros() as u64);
    rbit_w [W, R] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], (gpr(m, &o[1]) as u32).reverse_bits() as u64);
    b_mi [O] NB, N, 0, 0, false, flow |m, o| branch(m, o, |f| f & N != 0);
    cinc_lo [W, R] NB, C, 0, 0, false, |m, o| {
        let v = gpr(m, &o[1]).wrapping_add(u64::from(m.state.flags & C == 0));
        set_gpr(m, &o[0], v)
    };
    add_imm_lsl12 [W, R, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], gpr(m, &o[1]).wrapping_add(gpr(m, &o[2]) << 12));
    tbnz_x [R, O, O] NB, 0, 0, 0, false, flow |m, o| tbranch(m, o, true);
    dsb_sy [] NB, 0, 0, 0, false, |m, o| Ok(());
    isb [] NB, 0, 0, 0, false, |m, o| Ok(());
    rev16_16b [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| std::array::from_fn(|i| a[i ^ 1]));
    rev32_8b [W, R] NB, 0, 0, 0, false, |m, o| v2(m, o, |a| std::array::from_fn(|i| if i < 8 { a[i ^ 3] } else { 0 }));
    add_16b [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| bytes2(a, b, u8::wrapping_add));
    add_8h [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| halves2(a, b, u16::wrapping_add));
    add_2s [W, R, R] NB, 0, 0, 0, false, |m, o| {
        v3(m, o, |a, b| { let r = words2(a, b, u32::wrapping_add); from_s([s(&r, 0), s(&r, 1), 0, 0]) })
    };
    cmhi_4s [W, R, R] NB, 0, 0, 0, false, |m, o| v3(m, o, |a, b| words2(a, b, |x, y| if x > y { !0 } else { 0 }));
    addv_4s [W, R] NB, 0, 0, 0, false, |m, o| {
        v2(m, o, |a| from_s([(0..4).fold(0u32, |acc, i| acc.wrapping_add(s(a, i))), 0, 0, 0]))
    };
    movi_8h [W, O] NB, 0, 0, 0, false, |m, o| {
        let b = imm(&o[1]) as u8;
        set_vec(m, &o[0], std::array::from_fn(|i| if i % 2 == 0 { b } else { 0 }))
    };
    umov_s [W, R, O] NB, 0, 0, 0, false, |m, o| {
        let x = s(&vec(m, &o[1]), imm(&o[2]) as usize);
        set_gpr(m, &o[0], x as u64)
    };
    ldr_s [W, R, O] Some(1), 0, 0, 4, false, |m, o| ldst(m, o, 4, false, Mode::Off);
    str_s [R, R, O] Some(1), 0, 0, 4, false, |m, o| ldst(m, o, 4, true, Mode::Off);
    ld1_2x16b [W, R] Some(1), 0, 0, 32, false, |m, o| ldst_multi(m, o, 2, false, false, false);
    st1_2x16b [R, R] Some(1), 0, 0, 32, false, |m, o| ldst_multi(m, o, 2, false, true, false);
    ld1_3x16b_post [W, RW] Some(1), 0, 0, 48, false, |m, o| ldst_multi(m, o, 3, false, false, true);
    st1_3x16b_post [R, RW] Some(1), 0, 0, 48, false, |m, o| ldst_multi(m, o, 3, false, true, true);
    ld1_3x2d_post [W, RW] Some(1), 0, 0, 48, false, |m, o| ldst_multi(m, o, 3, false, false, true);
    st1_4s [R, R] Some(1), 0, 0, 16, false, |m, o| st1(m, o, false);
    ld1r_2d [W, R] Some(1), 0, 0, 8, false, |m, o| {
        let a = gpr(m, &o[1]);
        let b = load(m, a, 8)?;
        set_vec(m, &o[0], std::array::from_fn(|i| b[i % 8]))
    };
    ld1_d [RW, O, R] Some(2), 0, 0, 8, false, |m, o| {
        let (a, i) = (gpr(m, &o[2]), imm(&o[1]) as usize);
        let b = load(m, a, 8)?;
        let mut d = vec(m, &o[0]);
        d[8 * i..8 * i + 8].copy_from_slice(&b);
        set_vec(m, &o[0], d)
    };
    st1_16b_reg_post [R, RW, R] Some(1), 0, 0, 16, false, |m, o| {
        let (a, v) = (gpr(m, &o[1]), vec(m, &o[0]));
        m.mem.write(a, &v)?;
        let inc = gpr(m, &o[2]);
        set_gpr(m, &o[1], a.wrapping_add(inc))
    };
    movz_lsl [W, O, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], (imm(&o[1]) as u64) << imm(&o[2]));
    movz_w_lsl [W, O, O] NB, 0, 0, 0, false, |m, o| set_gpr(m, &o[0], (imm(&o[1]) as u64) << imm(&o[2]));
    and_w_imm [W, R, O] NB, 0, 0, 0, false, |m, o| logic(m, o, None, |a, b| a & b);
    sm3ss1 [W, R, R, R] NB, 0, 0, 0, false, |m, o| {
        let (n, mm, a) = (s(&vec(m, &o[1]), 3), s(&vec(m, &o[2]), 3), s(&vec(m, &o[3]), 3));
        set_vec(m, &o[0], from_s([0, 0, 0, n.rotate_left(12).wrapping_add(mm).wrapping_add(a).rotate_left(7)]))
    };
    sm3tt1a [RW, R, R, O] NB, 0, 0, 0, false, |m, o| sm3tt(m, o, true, false);
    sm3tt1b [RW, R, R, O] NB, 0, 0, 0, false, |m, o| sm3tt(m, o, true, true);
    sm3tt2a [RW, R, R, O] NB, 0, 0, 0, false, |m, o| sm3tt(m, o, false, false);
    sm3tt2b [RW, R, R, O] NB, 0, 0, 0, false, |m, o| sm3tt(m, o, false, true);
    sm3partw1 [RW, R, R] NB, 0, 0, 0, false, |m, o| { let d = vec(m, &o[0]); v3(m, o, |n, w| sm3_partw1(&d, n, w)) };
    sm3partw2 [RW, R, R] NB, 0, 0, 0, false, |m, o| { let d = vec(m, &o[0]); v3(m, o, |n, w| sm3_partw2(&d, n, w)) };
};

/// SM3's P1 permutation.
fn sm3_p1(x: u32) -> u32 {
    x ^ x.rotate_left(15) ^ x.rotate_left(23)
}

/// `sm3tt1a/b` (`one`) or `sm3tt2a/b`: one compression step on the state d (words: d.s[3] the newest), `b`
/// choosing the boolean function of rounds 16..63; the new word goes to the top lane, the others shift down.
fn sm3tt(m: &mut Machine<'_>, o: &[Operand], one: bool, b: bool) -> Result<(), Fault> {
    let (d, n, w) = (vec(m, &o[0]), vec(m, &o[1]), s(&vec(m, &o[2]), imm(&o[3]) as usize));
    let (d0, d1, d2, d3) = (s(&d, 0), s(&d, 1), s(&d, 2), s(&d, 3));
    let f = match (one, b) {
        (_, false) => d1 ^ d2 ^ d3,
        (true, true) => (d3 & d1) | (d3 & d2) | (d1 & d2),
        (false, true) => (d3 & d2) | (!d3 & d1),
    };
    let (top, rot) = if one {
        let ss2 = s(&n, 3) ^ d3.rotate_left(12);
        (f.wrapping_add(d0).wrapping_add(ss2).wrapping_add(w), 9)
    } else {
        (sm3_p0(f.wrapping_add(d0).wrapping_add(s(&n, 3)).wrapping_add(w)), 19)
    };
    set_vec(m, &o[0], from_s([d1, d2.rotate_left(rot), d3, top]))
}

/// SM3's P0 permutation.
fn sm3_p0(x: u32) -> u32 {
    x ^ x.rotate_left(9) ^ x.rotate_left(17)
}

/// `sm3partw1`: `(d ^ n) ^ rol(m, 15)` over lanes 0..2 (m's lanes 1..3), lane 3 from the new lane 0, then P1.
fn sm3_partw1(d: &Vector, n: &Vector, w: &Vector) -> Vector {
    let x = words2(d, n, |a, b| a ^ b);
    let mut r: [u32; 4] =
        std::array::from_fn(|i| if i < 3 { sm3_p1(s(&x, i) ^ s(w, i + 1).rotate_left(15)) } else { 0 });
    r[3] = sm3_p1(s(&x, 3) ^ r[0].rotate_left(15));
    from_s(r)
}

/// `sm3partw2`: `d ^ n ^ rol(m, 7)` in every lane, lane 3 also XORed with P1(rol(lane 0 of `n ^ rol(m, 7)`, 15)).
fn sm3_partw2(d: &Vector, n: &Vector, w: &Vector) -> Vector {
    let t = words2(n, w, |a, b| a ^ b.rotate_left(7));
    let mut r: [u32; 4] = std::array::from_fn(|i| s(d, i) ^ s(&t, i));
    r[3] ^= sm3_p1(s(&t, 0).rotate_left(15));
    from_s(r)
}

/// `ld1 {t.16b}, [n]` (post-index: `n += 16`).
fn ld1(m: &mut Machine<'_>, o: &[Operand], post: bool) -> Result<(), Fault> {
    let a = addr(m, &o[1], if post { 16 } else { 0 }, if post { Mode::Post } else { Mode::Off });
    let b = load(m, a, 16)?;
    set_vec(m, &o[0], b.try_into().unwrap())
}

/// `ld1 {t}, [n]` of `size` bytes (8 or 16; a 64-bit load zeroes the upper half; post-index: `n += size`).
fn ld1n(m: &mut Machine<'_>, o: &[Operand], size: usize, post: bool) -> Result<(), Fault> {
    let a = addr(m, &o[1], if post { size as i64 } else { 0 }, if post { Mode::Post } else { Mode::Off });
    ldst_one(m, &o[0], a, size, false)
}

/// `st1 {t.16b}, [n]` (post-index: `n += 16`).
fn st1(m: &mut Machine<'_>, o: &[Operand], post: bool) -> Result<(), Fault> {
    let a = addr(m, &o[1], if post { 16 } else { 0 }, if post { Mode::Post } else { Mode::Off });
    let v = vec(m, &o[0]);
    m.mem.write(a, &v)
}

/// `ld4r {l.4s x4}, [n]`: word k of the 16 bytes at n into every lane of register k (post-index: `n += 16`).
fn ld4r(m: &mut Machine<'_>, o: &[Operand], post: bool) -> Result<(), Fault> {
    let a = addr(m, &o[1], if post { 16 } else { 0 }, if post { Mode::Post } else { Mode::Off });
    let b = load(m, a, 16)?;
    let first = vreg(&o[0]);
    for k in 0..4 {
        m.state.v[(first + k) % 32] = std::array::from_fn(|i| b[4 * k + i % 4]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::aarch64::OPS;

    #[test]
    fn one_entry_per_op_in_order() {
        let table: Vec<_> = OPS.iter().map(|o| (o.name, o.operands.len())).collect();
        let sems: Vec<_> = SEMS.iter().map(|s| (s.op as usize, s.roles.len())).collect();
        if let Err(e) = crate::sem::check_parallel("aarch64", &table, &sems) {
            panic!("{e}");
        }
    }

    #[test]
    fn sboxes() {
        assert_eq!((aes::SBOX[0], aes::SBOX[0x53], aes::INV_SBOX[0x63]), (0x63, 0xed, 0));
        // aesmc then aesimc is the identity.
        let x: Vector = std::array::from_fn(|i| (i * 37 + 5) as u8);
        assert_eq!(aes_mix(&aes_mix(&x, false), true), x);
    }

    /// No memory: the entries run here access none.
    struct NoMemory;
    impl Memory for NoMemory {
        fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
            Err(Fault { addr, len: out.len(), what: "no memory" })
        }
        fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
            Err(Fault { addr, len: data.len(), what: "no memory" })
        }
    }

    /// "abc" padded to one SHA block (FIPS 180-4), big-endian words in v4..v7: the schedule the SHA tests start from.
    fn load_abc(m: &mut Machine<'_>) {
        let mut block = [0u8; 64];
        block[..4].copy_from_slice(b"abc\x80");
        block[63] = 24;
        for j in 0..4 {
            m.state.v[4 + j] =
                from_s(std::array::from_fn(|i| u32::from_be_bytes(block[16 * j + 4 * i..][..4].try_into().unwrap())));
        }
    }

    /// Runs entry `op` on `o`.
    fn exec(m: &mut Machine<'_>, op: Op, o: &[Operand]) {
        (sem(op).exec)(m, o).unwrap();
    }

    /// SHA-256("abc") (FIPS 180-4's example) through the entries, as the Arm ARM's sequence uses them: per four
    /// rounds `sha256h`/`sha256h2` on `W + K` (v2), the state in q0 (a, b, c, d) and q1 (e, f, g, h), the schedule
    /// (v4..v7) by `sha256su0` then `sha256su1`.
    #[test]
    fn sha256_of_abc() {
        use Operand::{Q, V as Vr};
        let primes: Vec<u32> = (2u32..).filter(|n| (2..*n).all(|d| n % d != 0)).take(64).collect();
        let frac = |x: f64| (x.fract() * 4294967296.0) as u32;
        let k: Vec<u32> = primes.iter().map(|&p| frac((p as f64).cbrt())).collect();
        let h: Vec<u32> = primes[..8].iter().map(|&p| frac((p as f64).sqrt())).collect();
        let mut mem = NoMemory;
        let mut m = Machine { state: State::default(), mem: &mut mem };
        load_abc(&mut m);
        m.state.v[0] = from_s([h[0], h[1], h[2], h[3]]);
        m.state.v[1] = from_s([h[4], h[5], h[6], h[7]]);
        for i in 0..16 {
            let w = |ahead: usize| 4 + ((i + ahead) % 4) as u8;
            m.state.v[8] = from_s(std::array::from_fn(|j| k[4 * i + j]));
            exec(&mut m, Op::add_4s, &[Vr(2), Vr(w(0)), Vr(8)]);
            exec(&mut m, Op::mov_16b, &[Vr(3), Vr(0)]);
            exec(&mut m, Op::sha256h, &[Q(0), Q(1), Vr(2)]);
            exec(&mut m, Op::sha256h2, &[Q(1), Q(3), Vr(2)]);
            exec(&mut m, Op::sha256su0, &[Vr(w(0)), Vr(w(1))]);
            exec(&mut m, Op::sha256su1, &[Vr(w(0)), Vr(w(2)), Vr(w(3))]);
        }
        let digest: Vec<u32> = (0..8).map(|i| s(&m.state.v[i / 4], i % 4).wrapping_add(h[i])).collect();
        let want = [0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223, 0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad];
        assert_eq!(digest, want);
    }

    /// SHA-1("abc") (FIPS 180-4's example) through the entries: per four rounds the next `e` by `sha1h` (s2) from
    /// a before `sha1c`/`sha1p`/`sha1m` on q0 (a, b, c, d) and s1 (e) with `W + K` (v2), the schedule (v4..v7) by
    /// `sha1su0` then `sha1su1`.
    #[test]
    fn sha1_of_abc() {
        use Operand::{Q, S as Sr, V as Vr};
        const K: [u32; 4] = [0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6];
        const H: [u32; 5] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
        let mut mem = NoMemory;
        let mut m = Machine { state: State::default(), mem: &mut mem };
        load_abc(&mut m);
        m.state.v[0] = from_s([H[0], H[1], H[2], H[3]]);
        m.state.v[1] = from_s([H[4], 0, 0, 0]);
        for i in 0..20 {
            let w = |ahead: usize| 4 + ((i + ahead) % 4) as u8;
            m.state.v[8] = from_s([K[i / 5]; 4]);
            exec(&mut m, Op::add_4s, &[Vr(2), Vr(w(0)), Vr(8)]);
            exec(&mut m, Op::sha1h, &[Sr(3), Sr(0)]);
            let round = [Op::sha1c, Op::sha1p, Op::sha1m, Op::sha1p][i / 5];
            exec(&mut m, round, &[Q(0), Sr(1), Vr(2)]);
            exec(&mut m, Op::mov_16b, &[Vr(1), Vr(3)]);
            if i < 16 {
                exec(&mut m, Op::sha1su0, &[Vr(w(0)), Vr(w(1)), Vr(w(2))]);
                exec(&mut m, Op::sha1su1, &[Vr(w(0)), Vr(w(3))]);
            }
        }
        let digest: Vec<u32> =
            (0..5).map(|i| if i < 4 { s(&m.state.v[0], i) } else { s(&m.state.v[1], 0) }.wrapping_add(H[i])).collect();
        assert_eq!(digest, [0xa9993e36, 0x4706816a, 0xba3e2571, 0x7850c26c, 0x9cd0d89d]);
    }
}
