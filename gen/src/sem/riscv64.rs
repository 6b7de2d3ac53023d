//! riscv64 semantics: the machine state (x0..x31; v0..v31 of a VLEN chosen per state; vl and vtype) and one
//! [`Sem`] per entry of `isa::riscv64::OPS`, in `Op` order ([`sem`] looks an entry up).
//!
//! Vector instructions act on elements `0..vl` of the register group (LMUL registers from the named one, which
//! the state stores contiguously, each `VLEN / 8` bytes, elements little-endian). The kernels ask for tail and
//! mask agnostic types (`ta, ma`): the model leaves the tail undisturbed, one of the behaviours the ISA allows,
//! so a comparison with hardware or qemu looks at the body only. Element groups (Zvkg, Zvksed) are 128 bits:
//! four 32-bit elements, element 0 the least significant.

use super::{Fault, Flow, Memory, Role};
use crate::isa::riscv64::{Op, Operand};

/// The architectural state the semantics change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// x0..x31 (x0 stays 0).
    pub x: [u64; 32],
    /// v0..v31, `vlenb` bytes each, in order.
    pub v: Vec<u8>,
    /// VLEN / 8.
    pub vlenb: usize,
    /// The vector length.
    pub vl: u64,
    /// vtype's element width in bits.
    pub sew: u32,
    /// vtype's register-group multiplier.
    pub lmul: u32,
}

impl State {
    /// A zeroed state with vector registers of `vlen` bits (a power of two, at least 128).
    pub fn new(vlen: usize) -> State {
        assert!(vlen >= 128 && vlen.is_power_of_two(), "VLEN {vlen}");
        State { x: [0; 32], v: vec![0; 32 * vlen / 8], vlenb: vlen / 8, vl: 0, sew: 8, lmul: 1 }
    }
    /// VLMAX for the current vtype.
    pub fn vlmax(&self) -> u64 {
        (self.lmul as usize * self.vlenb * 8 / self.sew as usize) as u64
    }
    /// Element `i` (of `bytes` bytes) of the register group from `v`.
    pub fn elem(&self, v: u8, i: usize, bytes: usize) -> u64 {
        let at = v as usize * self.vlenb + i * bytes;
        let mut b = [0; 8];
        b[..bytes].copy_from_slice(&self.v[at..at + bytes]);
        u64::from_le_bytes(b)
    }
    /// Sets element `i` (of `bytes` bytes) of the register group from `v`.
    pub fn set_elem(&mut self, v: u8, i: usize, bytes: usize, val: u64) {
        let at = v as usize * self.vlenb + i * bytes;
        self.v[at..at + bytes].copy_from_slice(&val.to_le_bytes()[..bytes]);
    }
    /// The 128-bit element group `g` of the register group from `v`.
    pub fn group(&self, v: u8, g: usize) -> u128 {
        let at = v as usize * self.vlenb + g * 16;
        u128::from_le_bytes(self.v[at..at + 16].try_into().unwrap())
    }
    fn set_group(&mut self, v: u8, g: usize, val: u128) {
        let at = v as usize * self.vlenb + g * 16;
        self.v[at..at + 16].copy_from_slice(&val.to_le_bytes());
    }
    fn set_x(&mut self, r: u8, val: u64) {
        if r != 0 {
            self.x[r as usize] = val;
        }
    }
}

/// The state and memory an instruction runs on.
pub struct Machine<'m> {
    /// Registers, vl and vtype.
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
    /// Whether the latency may depend on operand values (none of the table's entries: no division, no
    /// multiply-high).
    pub variable_time: bool,
    /// What it does.
    pub exec: Exec,
}

/// Whether an entry reads the mask register v0 without naming it as an operand (the masked `v0.t` forms and
/// `vmerge`): what it writes depends on v0 too.
pub fn reads_v0(op: Op) -> bool {
    matches!(
        op,
        Op::vxor_vv_v0t
            | Op::vor_vv_v0t
            | Op::vclmul_vx_v0t
            | Op::vslideup_vi_v0t
            | Op::vadd_vv_v0t
            | Op::vadd_vx_v0t
            | Op::viota_m_v0t
            | Op::vrev8_v_v0t
            | Op::vmerge_vvm
            | Op::vmerge_vxm
            | Op::vmerge_vim
    )
}

/// The operand Zvkt exempts from data-independent latency because it controls the operation (a shift amount, a
/// gather index, a slide amount: Zvkt's lists), where an entry has one: a secret there may show in the timing.
pub fn control_operand(op: Op) -> Option<usize> {
    match op {
        Op::vsll_vv
        | Op::vsll_vx
        | Op::vsrl_vv
        | Op::vsrl_vx
        | Op::vrgather_vv
        | Op::vrgather_vx
        | Op::vslidedown_vx
        | Op::vslideup_vx => Some(2),
        _ => None,
    }
}

/// The semantics of an entry.
pub fn sem(op: Op) -> &'static Sem {
    &SEMS[op as usize]
}

/// The address of a scalar memory operand, a vector load's `(base)`, or a label.
pub fn address(m: &Machine<'_>, o: &Operand) -> Result<u64, Fault> {
    Ok(match o {
        Operand::Mem(a) => m.state.x[a.base().0 as usize].wrapping_add(a.offset() as i64 as u64),
        Operand::Base(b) => m.state.x[*b as usize],
        Operand::Label(l) => m.mem.label(l).ok_or(Fault { addr: 0, len: 0, what: "unknown label" })?,
        _ => unreachable!("not an address: {o:?}"),
    })
}

fn xr(m: &Machine<'_>, o: &Operand) -> u64 {
    match o {
        Operand::X(n) => m.state.x[*n as usize],
        Operand::Imm(i) => *i as u64,
        _ => unreachable!("not a scalar operand: {o:?}"),
    }
}

fn vr(o: &Operand) -> u8 {
    match o {
        Operand::V(n) => *n,
        _ => unreachable!("not a vector register: {o:?}"),
    }
}

fn set_xr(m: &mut Machine<'_>, o: &Operand, v: u64) -> Result<(), Fault> {
    match o {
        Operand::X(n) => m.state.set_x(*n, v),
        _ => unreachable!("not a scalar destination: {o:?}"),
    }
    Ok(())
}

/// `d = f(a, b)` on scalar operands 1 and 2.
fn x3(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u64, u64) -> u64) -> Result<(), Fault> {
    let v = f(xr(m, &o[1]), xr(m, &o[2]));
    set_xr(m, &o[0], v)
}

fn load(m: &mut Machine<'_>, o: &[Operand], len: usize, signed: bool) -> Result<(), Fault> {
    let addr = address(m, &o[1])?;
    let mut b = [0; 8];
    m.mem.read(addr, &mut b[..len])?;
    let v = u64::from_le_bytes(b);
    let shift = 64 - 8 * len as u32;
    let v = if signed { ((v << shift) as i64 >> shift) as u64 } else { v };
    set_xr(m, &o[0], v)
}

fn store(m: &mut Machine<'_>, o: &[Operand], len: usize) -> Result<(), Fault> {
    let (addr, v) = (address(m, &o[1])?, xr(m, &o[0]));
    m.mem.write(addr, &v.to_le_bytes()[..len])
}

fn branch<'o>(m: &Machine<'_>, o: &'o [Operand], taken: fn(u64, u64) -> bool) -> Flow<'o> {
    let reg = |i: usize| if o.len() > i + 1 { xr(m, &o[i]) } else { 0 };
    let (a, b) = (reg(0), reg(1));
    match o.last() {
        Some(Operand::Label(l)) if taken(a, b) => Flow::Jump(l),
        _ => Flow::Next,
    }
}

/// The value `call` leaves in `ra`: the interpreter has no return address, and returns by its own record.
pub const RETURN_MARK: u64 = 0x5245_5455_524e_0000;

/// `call t`: `ra` holds the return address (a marker here), then the label.
fn call<'o>(m: &mut Machine<'_>, o: &'o [Operand]) -> Flow<'o> {
    m.state.set_x(1, RETURN_MARK);
    match &o[0] {
        Operand::Label(l) => Flow::Call(l),
        other => unreachable!("call takes a label, not {other:?}"),
    }
}

fn clmul(a: u64, b: u64) -> u128 {
    (0..64).filter(|i| (b >> i) & 1 == 1).fold(0, |r, i| r ^ ((a as u128) << i))
}

fn brev8(x: u64) -> u64 {
    x.reverse_bits().swap_bytes()
}

/// The low 32 bits, sign-extended (the `*w` instructions, and the 32-bit results of Zknh and Zksh).
fn sext32(v: u64) -> u64 {
    v as u32 as i32 as i64 as u64
}

/// `d = f(s)` on scalar operand 1.
fn x2(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u64) -> u64) -> Result<(), Fault> {
    let v = f(xr(m, &o[1]));
    set_xr(m, &o[0], v)
}

/// Zbkx: each `bits`-bit piece `i` of the result is piece `b[i]` of `a`, 0 for an index past the register.
fn xperm(a: u64, b: u64, bits: u32) -> u64 {
    let (n, mask) = (64 / bits, (1u64 << bits) - 1);
    (0..n).fold(0, |r, i| {
        let idx = (b >> (i * bits)) & mask;
        let v = if idx < u64::from(n) { (a >> (idx as u32 * bits)) & mask } else { 0 };
        r | (v << (i * bits))
    })
}

// --- AES (Zkne, Zknd, Zvkned) --------------------------------------------------------------------------------------

use super::aes;

/// `aes64es`/`aes64esm`/`aes64ds`/`aes64dsm`: the low half of a round (no key) on the state `b:a`.
fn aes64(a: u64, b: u64, decrypt: bool, mix: bool) -> u64 {
    aes::round(((b as u128) << 64) | a as u128, 0, decrypt, mix) as u64
}

/// `aes64ks1i`: SubWord(RotWord(a[63:32])) ^ rcon[r] (SubWord alone and no constant for r = 10), in both halves.
fn aes64ks1i(a: u64, r: u64) -> u64 {
    let t = (a >> 32) as u32;
    let t = if r == 10 { t } else { t.rotate_right(8) };
    let w = aes::sub_word(t) ^ aes::rcon(r as usize);
    ((w as u64) << 32) | w as u64
}

/// `aes64ks2`: `w0 = a[63:32] ^ b[31:0]`, `w1 = w0 ^ b[63:32]`, the result `w1:w0`.
fn aes64ks2(a: u64, b: u64) -> u64 {
    let w0 = (a >> 32) as u32 ^ b as u32;
    let w1 = w0 ^ (b >> 32) as u32;
    ((w1 as u64) << 32) | w0 as u64
}

/// The 32-bit words of an element group, word 0 the least significant.
fn words(x: u128) -> [u32; 4] {
    std::array::from_fn(|i| (x >> (32 * i)) as u32)
}

fn from_words(w: [u32; 4]) -> u128 {
    (0..4).fold(0, |x, i| x | (w[i] as u128) << (32 * i))
}

/// `w0` of a key-schedule step, then `w[i] = w[i - 1] ^ prev[i]`.
fn aes_chain(w0: u32, prev: [u32; 4]) -> u128 {
    let mut w = [w0, 0, 0, 0];
    for i in 1..4 {
        w[i] = w[i - 1] ^ prev[i];
    }
    from_words(w)
}

/// `vaeskf1.vi`: AES-128 round key `rnd` from round key `rnd - 1` (`k`); an out-of-range `rnd` (0, 11..=15)
/// has its bit 3 flipped.
fn vaeskf1(k: u128, imm: u64) -> u128 {
    let mut rnd = imm & 0xf;
    if rnd > 10 || rnd == 0 {
        rnd ^= 8;
    }
    let k = words(k);
    aes_chain(aes::sub_word(k[3].rotate_right(8)) ^ aes::rcon(rnd as usize - 1) ^ k[0], k)
}

/// `vaeskf2.vi`: AES-256 round key `rnd` from round keys `rnd - 1` (`k`) and `rnd - 2` (`prev`); an
/// out-of-range `rnd` (0, 1, 15) has its bit 3 flipped.
fn vaeskf2(prev: u128, k: u128, imm: u64) -> u128 {
    let mut rnd = imm & 0xf;
    if !(2..=14).contains(&rnd) {
        rnd ^= 8;
    }
    let (k, prev) = (words(k), words(prev));
    let w0 = if rnd & 1 == 1 {
        aes::sub_word(k[3]) ^ prev[0]
    } else {
        aes::sub_word(k[3].rotate_right(8)) ^ aes::rcon((rnd >> 1) as usize - 1) ^ prev[0]
    };
    aes_chain(w0, prev)
}

// --- SHA-2 (Zknh, Zvknha/b) and SM3 (Zksh, Zvksh) -----------------------------------------------------------------

/// SHA-2's sigma0, sigma1, Sigma0, Sigma1 (`f` 0..=3) on a `sew`-bit word (32: SHA-256, 64: SHA-512).
fn sha2(x: u64, sew: u32, f: usize) -> u64 {
    const R32: [[u32; 3]; 4] = [[7, 18, 3], [17, 19, 10], [2, 13, 22], [6, 11, 25]];
    const R64: [[u32; 3]; 4] = [[1, 8, 7], [19, 61, 6], [28, 34, 39], [14, 18, 41]];
    if sew == 32 {
        let (x, [p, q, r]) = (x as u32, R32[f]);
        (x.rotate_right(p) ^ x.rotate_right(q) ^ if f < 2 { x >> r } else { x.rotate_right(r) }) as u64
    } else {
        let [p, q, r] = R64[f];
        x.rotate_right(p) ^ x.rotate_right(q) ^ if f < 2 { x >> r } else { x.rotate_right(r) }
    }
}

/// `vsha2ms.vv` on one element group: W[19..16] from W[3..0] (`d`), W[11..9], W[4] (`a`), W[15..12] (`b`).
fn sha2ms(d: &[u64], a: &[u64], b: &[u64], sew: u32) -> Vec<u64> {
    let mask = u64::MAX >> (64 - sew);
    let mut w = [0u64; 20];
    w[..4].copy_from_slice(d);
    (w[4], w[9], w[10], w[11]) = (a[0], a[1], a[2], a[3]);
    w[12..16].copy_from_slice(b);
    for j in 16..20 {
        let s = sha2(w[j - 2], sew, 1).wrapping_add(w[j - 7]).wrapping_add(sha2(w[j - 15], sew, 0));
        w[j] = s.wrapping_add(w[j - 16]) & mask;
    }
    w[16..].to_vec()
}

/// `vsha2ch.vv`/`vsha2cl.vv` on one element group: two rounds on `{a, b, e, f}` (`s`, element 3 first) and
/// `{c, d, g, h}` (`d`) with the words `W0, W1` elements 2, 3 (`high`) or 0, 1 of `w`; the new `{a, b, e, f}`.
fn sha2c(d: &[u64], s: &[u64], w: &[u64], sew: u32, high: bool) -> Vec<u64> {
    let mask = u64::MAX >> (64 - sew);
    let add = |x: u64, y: u64| x.wrapping_add(y) & mask;
    let [mut f, mut e, mut b, mut a] = [s[0], s[1], s[2], s[3]];
    let [mut h, mut g, mut dd, mut c] = [d[0], d[1], d[2], d[3]];
    let w = if high { [w[2], w[3]] } else { [w[0], w[1]] };
    for wk in w {
        let ch = (e & f) ^ (!e & g & mask);
        let t1 = add(add(add(h, sha2(e, sew, 3)), ch), wk);
        let t2 = add(sha2(a, sew, 2), (a & b) ^ (a & c) ^ (b & c));
        (h, g, f, e, dd, c, b) = (g, f, e, add(dd, t1), c, b, a);
        a = add(t1, t2);
    }
    vec![f, e, b, a]
}

/// SM3's P0 and P1.
fn sm3p0(x: u32) -> u32 {
    x ^ x.rotate_left(9) ^ x.rotate_left(17)
}
fn sm3p1(x: u32) -> u32 {
    x ^ x.rotate_left(15) ^ x.rotate_left(23)
}

/// `vsm3me.vv` on one element group: W[23..16] from W[7..0] (`b`) and W[15..8] (`a`), words big-endian.
fn sm3me(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut w = [0u32; 24];
    for j in 0..8 {
        (w[j], w[j + 8]) = ((b[j] as u32).swap_bytes(), (a[j] as u32).swap_bytes());
    }
    for j in 16..24 {
        w[j] = sm3p1(w[j - 16] ^ w[j - 9] ^ w[j - 3].rotate_left(15)) ^ w[j - 13].rotate_left(7) ^ w[j - 6];
    }
    w[16..].iter().map(|x| x.swap_bytes() as u64).collect()
}

/// `vsm3c.vi` on one element group: rounds `2 rnds` and `2 rnds + 1` on the state `{H..A}` (`d`, A element 0)
/// with the message words W0, W1, W4, W5 of `w`, words big-endian.
fn sm3c(d: &[u64], w: &[u64], rnds: u32) -> Vec<u64> {
    let r = |x: u64| (x as u32).swap_bytes();
    let [mut a, mut b, mut c, mut dd, mut e, mut f, mut g, mut h] = std::array::from_fn(|i| r(d[i]));
    for k in 0..2 {
        let j = 2 * rnds + k as u32;
        let (wj, xj) = (r(w[k]), r(w[k]) ^ r(w[k + 4]));
        let t = if j <= 15 { 0x79cc_4519u32 } else { 0x7a87_9d8a };
        let ss1 = a.rotate_left(12).wrapping_add(e).wrapping_add(t.rotate_left(j % 32)).rotate_left(7);
        let ss2 = ss1 ^ a.rotate_left(12);
        let (ff, gg) = if j <= 15 { (a ^ b ^ c, e ^ f ^ g) } else { ((a & b) | (a & c) | (b & c), (e & f) | (!e & g)) };
        let tt1 = ff.wrapping_add(dd).wrapping_add(ss2).wrapping_add(xj);
        let tt2 = gg.wrapping_add(h).wrapping_add(ss1).wrapping_add(wj);
        (dd, c, b, a, h, g, f, e) = (c, b.rotate_left(9), a, tt1, g, f.rotate_left(19), e, sm3p0(tt2));
    }
    [a, b, c, dd, e, f, g, h].iter().map(|x| x.swap_bytes() as u64).collect()
}

// --- SM4 ---------------------------------------------------------------------------------------------------------

use super::sm4::SBOX as SM4_SBOX;

/// The S-box on each byte of a word.
fn tau(x: u32) -> u32 {
    u32::from_le_bytes(x.to_le_bytes().map(|b| SM4_SBOX[b as usize]))
}
/// The round function's linear map.
fn l_round(x: u32) -> u32 {
    x ^ x.rotate_left(2) ^ x.rotate_left(10) ^ x.rotate_left(18) ^ x.rotate_left(24)
}
/// The key schedule's linear map.
fn l_key(x: u32) -> u32 {
    x ^ x.rotate_left(13) ^ x.rotate_left(23)
}
/// The key-schedule constant `CK[i]`: byte `j` (big-endian) is `(4i + j) * 7 mod 256`.
fn ck(i: usize) -> u32 {
    (0..4).fold(0, |w, j| (w << 8) | ((4 * i + j) * 7 % 256) as u32)
}

/// `sm4ed` (`key` false) and `sm4ks`: `a ^ rol(L(S(byte bs of b)), 8 bs)`, sign-extended.
fn sm4_scalar(m: &mut Machine<'_>, o: &[Operand], key: bool) -> Result<(), Fault> {
    let shamt = 8 * (xr(m, &o[3]) as u32 & 3);
    let s = SM4_SBOX[(xr(m, &o[2]) >> shamt) as u8 as usize] as u32;
    let y = if key {
        s ^ ((s & 0x07) << 29) ^ ((s & 0xfe) << 7) ^ ((s & 1) << 23) ^ ((s & 0xf8) << 13)
    } else {
        s ^ (s << 8) ^ (s << 2) ^ (s << 18) ^ ((s & 0x3f) << 26) ^ ((s & 0xc0) << 10)
    };
    let r = (xr(m, &o[1]) as u32) ^ y.rotate_left(shamt);
    set_xr(m, &o[0], r as i32 as i64 as u64)
}

/// Four SM4 rounds (or key-schedule steps with `CK[4 rnd..]`) on the words of `x`, word 0 first.
fn sm4_four(x: u128, keys: u128, rnd: Option<usize>) -> u128 {
    let mut w: Vec<u32> = (0..4).map(|i| (x >> (32 * i)) as u32).collect();
    for r in 0..4 {
        let k = match rnd {
            Some(g) => ck(4 * g + r),
            None => (keys >> (32 * r)) as u32,
        };
        let t = tau(w[r + 1] ^ w[r + 2] ^ w[r + 3] ^ k);
        w.push(w[r] ^ if rnd.is_some() { l_key(t) } else { l_round(t) });
    }
    (0..4).fold(0, |acc, i| acc | (w[4 + i] as u128) << (32 * i))
}

/// Bit-reverses each byte.
fn brev8_128(x: u128) -> u128 {
    x.reverse_bits().swap_bytes()
}

/// GHASH's multiplication as Zvkg defines it (both factors and the result in GCM's byte and bit order).
fn gmul(y: u128, h: u128) -> u128 {
    let (s, mut h, mut z) = (brev8_128(y), brev8_128(h), 0u128);
    for bit in 0..128 {
        if (s >> bit) & 1 == 1 {
            z ^= h;
        }
        let reduce = h >> 127 == 1;
        h <<= 1;
        if reduce {
            h ^= 0x87;
        }
    }
    brev8_128(z)
}

// --- vector helpers ----------------------------------------------------------------------------------------------

fn sew_bytes(m: &Machine<'_>) -> usize {
    m.state.sew as usize / 8
}
fn sew_mask(m: &Machine<'_>) -> u64 {
    u64::MAX >> (64 - m.state.sew)
}

/// `d[i] = f(a[i], b)` for `i < vl`, `a` the vector operand 1 and `b` operand 2: a vector register's element,
/// or a scalar or immediate (truncated to SEW).
fn velems(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u64, u64, u32) -> u64) -> Result<(), Fault> {
    vbody(m, o, |a, b, sew, _| Some(f(a, b, sew)))
}

/// Bit `i` of v0, the mask of masked instructions.
fn mask_bit(s: &State, i: usize) -> bool {
    reg_bit(s, 0, i)
}

/// Bit `i` of vector register `v` (a mask register).
fn reg_bit(s: &State, v: u8, i: usize) -> bool {
    (s.v[v as usize * s.vlenb + i / 8] >> (i % 8)) & 1 == 1
}

/// A compare writing a mask: bit `i` of register `d` = `f(a[i], b)` for `i < vl` (`b` as in [`velems`]).
fn vcompare(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u64, u64) -> bool) -> Result<(), Fault> {
    let (eb, mask, d, a) = (sew_bytes(m), sew_mask(m), vr(&o[0]), vr(&o[1]));
    let b = xr(m, &o[2]) & mask;
    for i in 0..m.state.vl as usize {
        let at = d as usize * m.state.vlenb + i / 8;
        let bit = u8::from(f(m.state.elem(a, i, eb), b)) << (i % 8);
        m.state.v[at] = (m.state.v[at] & !(1 << (i % 8))) | bit;
    }
    Ok(())
}

/// `vzext.vf<f>`/`vsext.vf<f>`: `d[i]` = `s[i]` of SEW/`f` bits, zero- or sign-extended to SEW.
fn vextend(m: &mut Machine<'_>, o: &[Operand], f: usize, signed: bool) -> Result<(), Fault> {
    let (eb, mask, d, s) = (sew_bytes(m), sew_mask(m), vr(&o[0]), vr(&o[1]));
    let shift = 64 - 8 * (eb / f) as u32;
    for i in 0..m.state.vl as usize {
        let e = m.state.elem(s, i, eb / f);
        let e = if signed { ((e << shift) as i64 >> shift) as u64 & mask } else { e };
        m.state.set_elem(d, i, eb, e);
    }
    Ok(())
}

/// `vmv<nr>r.v`: the `nr` registers from operand 1 copied to those from operand 0, whatever vl.
fn vmv_whole(m: &mut Machine<'_>, o: &[Operand], nr: usize) -> Result<(), Fault> {
    let (vlenb, d, s) = (m.state.vlenb, vr(&o[0]) as usize, vr(&o[1]) as usize);
    m.state.v.copy_within(s * vlenb..(s + nr) * vlenb, d * vlenb);
    Ok(())
}

/// `viota.m`: `d[i]` = the set bits of mask register `s` below `i`, over the active elements (all, or those
/// whose v0 bit is set when `masked`); the others keep their value.
fn viota(m: &mut Machine<'_>, o: &[Operand], masked: bool) -> Result<(), Fault> {
    let (eb, mask, d, s) = (sew_bytes(m), sew_mask(m), vr(&o[0]), vr(&o[1]));
    let mut count = 0u64;
    for i in 0..m.state.vl as usize {
        if masked && !mask_bit(&m.state, i) {
            continue;
        }
        m.state.set_elem(d, i, eb, count & mask);
        count += u64::from(reg_bit(&m.state, s, i));
    }
    Ok(())
}

/// Masked `velems`: elements whose mask bit in v0 is clear keep their value.
fn vmasked(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u64, u64, u32) -> u64) -> Result<(), Fault> {
    vbody(m, o, |a, b, sew, on| on.then(|| f(a, b, sew)))
}

/// `d[i] = f(a[i], b, SEW, mask bit i)` for `i < vl` as [`velems`], where `f` gives a value (`None`: keep).
fn vbody(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u64, u64, u32, bool) -> Option<u64>) -> Result<(), Fault> {
    let (eb, mask, sew) = (sew_bytes(m), sew_mask(m), m.state.sew);
    let (d, a) = (vr(&o[0]), vr(&o[1]));
    for i in 0..m.state.vl as usize {
        let b = match &o[2] {
            Operand::V(b) => m.state.elem(*b, i, eb),
            other => xr(m, other) & mask,
        };
        if let Some(r) = f(m.state.elem(a, i, eb), b, sew, mask_bit(&m.state, i)) {
            m.state.set_elem(d, i, eb, r & mask);
        }
    }
    Ok(())
}

/// A rotation right by `n` modulo `sew` of a `sew`-bit element (the caller truncates the result).
fn rotr(a: u64, n: u64, sew: u32) -> u64 {
    let n = n as u32 & (sew - 1);
    if n == 0 {
        a
    } else {
        (a >> n) | (a << (sew - n))
    }
}

/// Strided load (`store` false) or store of `vl` elements of `eb` bytes, element `i` at `base + i * stride`.
fn vstrided(m: &mut Machine<'_>, o: &[Operand], eb: usize, store: bool) -> Result<(), Fault> {
    let (v, addr, stride) = (vr(&o[0]), address(m, &o[1])?, xr(m, &o[2]));
    for i in 0..m.state.vl as usize {
        let at = addr.wrapping_add((i as u64).wrapping_mul(stride));
        if store {
            let e = m.state.elem(v, i, eb);
            m.mem.write(at, &e.to_le_bytes()[..eb])?;
        } else {
            let mut b = [0; 8];
            m.mem.read(at, &mut b[..eb])?;
            m.state.set_elem(v, i, eb, u64::from_le_bytes(b));
        }
    }
    Ok(())
}

/// Strided segment load (`store` false) or store: the `nf` fields of `eb` bytes of segment `i`, at
/// `base + i * stride`, are element `i` of the register groups from `v`, `v + EMUL`, ...
fn vsegment(m: &mut Machine<'_>, o: &[Operand], eb: usize, nf: usize, store: bool) -> Result<(), Fault> {
    let (v, addr, stride) = (vr(&o[0]), address(m, &o[1])?, xr(m, &o[2]));
    let emul = (m.state.lmul as usize * eb * 8 / m.state.sew as usize).max(1);
    for i in 0..m.state.vl as usize {
        let seg = addr.wrapping_add((i as u64).wrapping_mul(stride));
        for f in 0..nf {
            let (at, reg) = (seg.wrapping_add((f * eb) as u64), v + (f * emul) as u8);
            if store {
                let e = m.state.elem(reg, i, eb);
                m.mem.write(at, &e.to_le_bytes()[..eb])?;
            } else {
                let mut b = [0; 8];
                m.mem.read(at, &mut b[..eb])?;
                m.state.set_elem(reg, i, eb, u64::from_le_bytes(b));
            }
        }
    }
    Ok(())
}

/// `d[i] = f(a[i], b)` with `d`'s elements twice SEW wide (a widening instruction), `b` as in [`velems`].
fn vwiden(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u64, u64, u32) -> u64) -> Result<(), Fault> {
    let (eb, mask, sew) = (sew_bytes(m), sew_mask(m), m.state.sew);
    let (d, a, wide) = (vr(&o[0]), vr(&o[1]), u64::MAX >> (64 - 2 * sew));
    for i in 0..m.state.vl as usize {
        let b = match &o[2] {
            Operand::V(b) => m.state.elem(*b, i, eb),
            other => xr(m, other) & mask,
        };
        let r = f(m.state.elem(a, i, eb), b, 2 * sew) & wide;
        m.state.set_elem(d, i, 2 * eb, r);
    }
    Ok(())
}

/// Per element group of `egs` elements (`vl / egs` groups): `d`'s elements = `f(d, a, b, SEW)` with the group's
/// elements of `d` (operand 0), `a` (operand 1) and `b` (operand 2 where it is a vector register, else empty).
fn vegs(
    m: &mut Machine<'_>,
    o: &[Operand],
    egs: usize,
    f: impl Fn(&[u64], &[u64], &[u64], u32) -> Vec<u64>,
) -> Result<(), Fault> {
    let (eb, sew, d, a) = (sew_bytes(m), m.state.sew, vr(&o[0]), vr(&o[1]));
    let get = |s: &State, v: u8, g: usize| (0..egs).map(|j| s.elem(v, g * egs + j, eb)).collect::<Vec<u64>>();
    for g in 0..m.state.vl as usize / egs {
        let b = match o.get(2) {
            Some(Operand::V(b)) => get(&m.state, *b, g),
            _ => Vec::new(),
        };
        let r = f(&get(&m.state, d, g), &get(&m.state, a, g), &b, sew);
        for (j, e) in r.into_iter().enumerate() {
            m.state.set_elem(d, g * egs + j, eb, e);
        }
    }
    Ok(())
}

/// `d[i] = f(s)` for `i < vl` with `s` operand 1 (a scalar or immediate, truncated to SEW).
fn vsplat(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u64, usize) -> u64) -> Result<(), Fault> {
    let (eb, mask, d) = (sew_bytes(m), sew_mask(m), vr(&o[0]));
    let s = xr(m, &o[1]);
    for i in 0..m.state.vl as usize {
        m.state.set_elem(d, i, eb, f(s, i) & mask);
    }
    Ok(())
}

/// Unit-stride load (`store` false) or store of `vl` elements of `eb` bytes.
fn vmem(m: &mut Machine<'_>, o: &[Operand], eb: usize, store: bool) -> Result<(), Fault> {
    let (v, addr) = (vr(&o[0]), address(m, &o[1])?);
    for i in 0..m.state.vl as usize {
        let at = addr.wrapping_add((i * eb) as u64);
        if store {
            let e = m.state.elem(v, i, eb);
            m.mem.write(at, &e.to_le_bytes()[..eb])?;
        } else {
            let mut b = [0; 8];
            m.mem.read(at, &mut b[..eb])?;
            m.state.set_elem(v, i, eb, u64::from_le_bytes(b));
        }
    }
    Ok(())
}

/// A permutation: `d[i] = src[pick(i)]` for `i < vl` from a copy of the source group (operand 1), or the old
/// `d[i]` where `pick` gives `None`, 0 for indices at or past VLMAX.
fn vperm(m: &mut Machine<'_>, o: &[Operand], pick: impl Fn(&State, usize) -> Option<u64>) -> Result<(), Fault> {
    let (eb, vlmax, d, a) = (sew_bytes(m), m.state.vlmax(), vr(&o[0]), vr(&o[1]));
    let src: Vec<u64> = (0..vlmax as usize).map(|i| m.state.elem(a, i, eb)).collect();
    let picks: Vec<Option<u64>> = (0..m.state.vl as usize).map(|i| pick(&m.state, i)).collect();
    for (i, p) in picks.into_iter().enumerate() {
        if let Some(j) = p {
            m.state.set_elem(d, i, eb, if j < vlmax { src[j as usize] } else { 0 });
        }
    }
    Ok(())
}

/// Per 128-bit element group `g < vl / 4`: `d = f(d, s, g)` with `s` operand 1.
fn vgroups(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u128, &State, u8, usize) -> u128) -> Result<(), Fault> {
    let (d, s) = (vr(&o[0]), vr(&o[1]));
    for g in 0..m.state.vl as usize / 4 {
        let r = f(m.state.group(d, g), &m.state, s, g);
        m.state.set_group(d, g, r);
    }
    Ok(())
}

/// `vsetvli`/`vsetivli`: the new vtype, then vl from the AVL (operand 1: an immediate, or a register where x0
/// asks for VLMAX, or keeps vl when the destination is x0 too).
fn vset(m: &mut Machine<'_>, o: &[Operand]) -> Result<(), Fault> {
    let t = match &o[2] {
        Operand::VType(t) | Operand::VTypePol(crate::isa::riscv64::VTypePol { vtype: t, .. }) => t,
        other => unreachable!("not a vector type: {other:?}"),
    };
    (m.state.sew, m.state.lmul) = (t.sew, t.lmul);
    let vlmax = m.state.vlmax();
    m.state.vl = match (&o[0], &o[1]) {
        (Operand::X(0), Operand::X(0)) => m.state.vl.min(vlmax),
        (_, Operand::X(0)) => vlmax,
        (_, avl) => xr(m, avl).min(vlmax),
    };
    let vl = m.state.vl;
    set_xr(m, &o[0], vl)
}

// --- the table ---------------------------------------------------------------------------------------------------

use Role::{None as N, R, RW, W};

/// One [`Sem`]: `op [roles], |m, o| body`, the body a `Result<(), Fault>` (or `flow |m, o| body` for a body
/// giving the [`Flow`]).
macro_rules! sems {
    ($( $op:ident [$($role:ident),*] $(flow $($fl:lifetime)?)? |$m:ident, $o:ident| $body:expr; )*) => {
        &[$(Sem {
            op: Op::$op,
            roles: &[$($role),*],
            variable_time: false,
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

/// The semantics, in `Op` order.
static SEMS: &[Sem] = sems! {
    add [W, R, R] |m, o| x3(m, o, u64::wrapping_add);
    sub [W, R, R] |m, o| x3(m, o, u64::wrapping_sub);
    and [W, R, R] |m, o| x3(m, o, |a, b| a & b);
    or [W, R, R] |m, o| x3(m, o, |a, b| a | b);
    xor [W, R, R] |m, o| x3(m, o, |a, b| a ^ b);
    sll [W, R, R] |m, o| x3(m, o, |a, b| a << (b & 63));
    srl [W, R, R] |m, o| x3(m, o, |a, b| a >> (b & 63));
    sra [W, R, R] |m, o| x3(m, o, |a, b| ((a as i64) >> (b & 63)) as u64);
    sltu [W, R, R] |m, o| x3(m, o, |a, b| (a < b) as u64);
    addi [W, R, N] |m, o| x3(m, o, u64::wrapping_add);
    andi [W, R, N] |m, o| x3(m, o, |a, b| a & b);
    ori [W, R, N] |m, o| x3(m, o, |a, b| a | b);
    xori [W, R, N] |m, o| x3(m, o, |a, b| a ^ b);
    sltiu [W, R, N] |m, o| x3(m, o, |a, b| (a < b) as u64);
    slli [W, R, N] |m, o| x3(m, o, |a, b| a << (b & 63));
    srli [W, R, N] |m, o| x3(m, o, |a, b| a >> (b & 63));
    srai [W, R, N] |m, o| x3(m, o, |a, b| ((a as i64) >> (b & 63)) as u64);
    addiw [W, R, N] |m, o| x3(m, o, |a, b| sext32(a.wrapping_add(b)));
    slliw [W, R, N] |m, o| x3(m, o, |a, b| sext32(a << (b & 31)));
    srliw [W, R, N] |m, o| x3(m, o, |a, b| sext32(u64::from(a as u32 >> (b & 31))));
    sraiw [W, R, N] |m, o| x3(m, o, |a, b| ((a as i32) >> (b & 31)) as i64 as u64);
    addw [W, R, R] |m, o| x3(m, o, |a, b| sext32(a.wrapping_add(b)));
    subw [W, R, R] |m, o| x3(m, o, |a, b| sext32(a.wrapping_sub(b)));
    sllw [W, R, R] |m, o| x3(m, o, |a, b| sext32(a << (b & 31)));
    srlw [W, R, R] |m, o| x3(m, o, |a, b| sext32(u64::from(a as u32 >> (b & 31))));
    sraw [W, R, R] |m, o| x3(m, o, |a, b| ((a as i32) >> (b & 31)) as i64 as u64);
    lui [W, N] |m, o| { let v = ((xr(m, &o[1]) << 12) as u32 as i32) as i64 as u64; set_xr(m, &o[0], v) };
    ld [W, R] |m, o| load(m, o, 8, false);
    lw [W, R] |m, o| load(m, o, 4, true);
    lwu [W, R] |m, o| load(m, o, 4, false);
    lbu [W, R] |m, o| load(m, o, 1, false);
    lhu [W, R] |m, o| load(m, o, 2, false);
    lh [W, R] |m, o| load(m, o, 2, true);
    lb [W, R] |m, o| load(m, o, 1, true);
    sd [R, W] |m, o| store(m, o, 8);
    sw [R, W] |m, o| store(m, o, 4);
    sb [R, W] |m, o| store(m, o, 1);
    sh [R, W] |m, o| store(m, o, 2);
    mv [W, R] |m, o| { let v = xr(m, &o[1]); set_xr(m, &o[0], v) };
    li [W, N] |m, o| { let v = xr(m, &o[1]); set_xr(m, &o[0], v) };
    not [W, R] |m, o| { let v = !xr(m, &o[1]); set_xr(m, &o[0], v) };
    neg [W, R] |m, o| { let v = xr(m, &o[1]).wrapping_neg(); set_xr(m, &o[0], v) };
    nop [] |m, o| Ok(());
    ret [] flow |m, o| Flow::Ret;
    lla [W, N] |m, o| { let v = address(m, &o[1])?; set_xr(m, &o[0], v) };
    j [N] flow |m, o| branch(m, o, |_, _| true);
    call [N] flow |m, o| call(m, o);
    beqz [R, N] flow |m, o| branch(m, o, |a, _| a == 0);
    bnez [R, N] flow |m, o| branch(m, o, |a, _| a != 0);
    beq [R, R, N] flow |m, o| branch(m, o, |a, b| a == b);
    bne [R, R, N] flow |m, o| branch(m, o, |a, b| a != b);
    bltu [R, R, N] flow |m, o| branch(m, o, |a, b| a < b);
    bgeu [R, R, N] flow |m, o| branch(m, o, |a, b| a >= b);
    blt [R, R, N] flow |m, o| branch(m, o, |a, b| (a as i64) < b as i64);
    bge [R, R, N] flow |m, o| branch(m, o, |a, b| a as i64 >= b as i64);
    rev8 [W, R] |m, o| { let v = xr(m, &o[1]).swap_bytes(); set_xr(m, &o[0], v) };
    andn [W, R, R] |m, o| x3(m, o, |a, b| a & !b);
    orn [W, R, R] |m, o| x3(m, o, |a, b| a | !b);
    xnor [W, R, R] |m, o| x3(m, o, |a, b| !(a ^ b));
    rol [W, R, R] |m, o| x3(m, o, |a, b| a.rotate_left((b & 63) as u32));
    ror [W, R, R] |m, o| x3(m, o, |a, b| a.rotate_right((b & 63) as u32));
    rori [W, R, N] |m, o| x3(m, o, |a, b| a.rotate_right((b & 63) as u32));
    maxu [W, R, R] |m, o| x3(m, o, u64::max);
    minu [W, R, R] |m, o| x3(m, o, u64::min);
    rolw [W, R, R] |m, o| x3(m, o, |a, b| sext32(u64::from((a as u32).rotate_left((b & 31) as u32))));
    rorw [W, R, R] |m, o| x3(m, o, |a, b| sext32(u64::from((a as u32).rotate_right((b & 31) as u32))));
    roriw [W, R, N] |m, o| x3(m, o, |a, b| sext32(u64::from((a as u32).rotate_right((b & 31) as u32))));
    pack [W, R, R] |m, o| x3(m, o, |a, b| (b << 32) | (a & 0xffff_ffff));
    packh [W, R, R] |m, o| x3(m, o, |a, b| ((b & 0xff) << 8) | (a & 0xff));
    brev8 [W, R] |m, o| { let v = brev8(xr(m, &o[1])); set_xr(m, &o[0], v) };
    packw [W, R, R] |m, o| x3(m, o, |a, b| sext32(((b & 0xffff) << 16) | (a & 0xffff)));
    xperm4 [W, R, R] |m, o| x3(m, o, |a, b| xperm(a, b, 4));
    xperm8 [W, R, R] |m, o| x3(m, o, |a, b| xperm(a, b, 8));
    clmul [W, R, R] |m, o| x3(m, o, |a, b| clmul(a, b) as u64);
    clmulh [W, R, R] |m, o| x3(m, o, |a, b| (clmul(a, b) >> 64) as u64);
    clmulr [W, R, R] |m, o| x3(m, o, |a, b| (clmul(a, b) >> 63) as u64);
    aes64es [W, R, R] |m, o| x3(m, o, |a, b| aes64(a, b, false, false));
    aes64esm [W, R, R] |m, o| x3(m, o, |a, b| aes64(a, b, false, true));
    aes64ds [W, R, R] |m, o| x3(m, o, |a, b| aes64(a, b, true, false));
    aes64dsm [W, R, R] |m, o| x3(m, o, |a, b| aes64(a, b, true, true));
    aes64im [W, R] |m, o| x2(m, o, |a| u128::from_le_bytes(aes::mix_columns((a as u128).to_le_bytes(), true)) as u64);
    aes64ks1i [W, R, N] |m, o| x3(m, o, aes64ks1i);
    aes64ks2 [W, R, R] |m, o| x3(m, o, aes64ks2);
    sha256sig0 [W, R] |m, o| x2(m, o, |a| sext32(sha2(a, 32, 0)));
    sha256sig1 [W, R] |m, o| x2(m, o, |a| sext32(sha2(a, 32, 1)));
    sha256sum0 [W, R] |m, o| x2(m, o, |a| sext32(sha2(a, 32, 2)));
    sha256sum1 [W, R] |m, o| x2(m, o, |a| sext32(sha2(a, 32, 3)));
    sha512sig0 [W, R] |m, o| x2(m, o, |a| sha2(a, 64, 0));
    sha512sig1 [W, R] |m, o| x2(m, o, |a| sha2(a, 64, 1));
    sha512sum0 [W, R] |m, o| x2(m, o, |a| sha2(a, 64, 2));
    sha512sum1 [W, R] |m, o| x2(m, o, |a| sha2(a, 64, 3));
    sm3p0 [W, R] |m, o| x2(m, o, |a| sext32(u64::from(sm3p0(a as u32))));
    sm3p1 [W, R] |m, o| x2(m, o, |a| sext32(u64::from(sm3p1(a as u32))));
    sm4ed [W, R, R, N] |m, o| sm4_scalar(m, o, false);
    sm4ks [W, R, R, N] |m, o| sm4_scalar(m, o, true);
    vsetivli [W, N, N] |m, o| vset(m, o);
    vsetvli [W, R, N] |m, o| vset(m, o);
    vsetivli_p [W, N, N] |m, o| vset(m, o);
    vsetvli_p [W, R, N] |m, o| vset(m, o);
    vle32_v [W, R] |m, o| vmem(m, o, 4, false);
    vse32_v [R, W] |m, o| vmem(m, o, 4, true);
    vle64_v [W, R] |m, o| vmem(m, o, 8, false);
    vse64_v [R, W] |m, o| vmem(m, o, 8, true);
    vle8_v [W, R] |m, o| vmem(m, o, 1, false);
    vse8_v [R, W] |m, o| vmem(m, o, 1, true);
    vlse32_v [W, R, R] |m, o| vstrided(m, o, 4, false);
    vlse64_v [W, R, R] |m, o| vstrided(m, o, 8, false);
    vsse32_v [R, W, R] |m, o| vstrided(m, o, 4, true);
    vsse64_v [R, W, R] |m, o| vstrided(m, o, 8, true);
    vluxei8_v [W, R, R] |m, o| {
        let (eb, d, base, idx) = (sew_bytes(m), vr(&o[0]), address(m, &o[1])?, vr(&o[2]));
        for i in 0..m.state.vl as usize {
            let mut b = [0; 8];
            m.mem.read(base.wrapping_add(m.state.elem(idx, i, 1)), &mut b[..eb])?;
            m.state.set_elem(d, i, eb, u64::from_le_bytes(b));
        }
        Ok(())
    };
    vsuxei8_v [R, W, R] |m, o| {
        let (eb, s, base, idx) = (sew_bytes(m), vr(&o[0]), address(m, &o[1])?, vr(&o[2]));
        for i in 0..m.state.vl as usize {
            let e = m.state.elem(s, i, eb);
            m.mem.write(base.wrapping_add(m.state.elem(idx, i, 1)), &e.to_le_bytes()[..eb])?;
        }
        Ok(())
    };
    vlsseg8e32_v [W, R, R] |m, o| vsegment(m, o, 4, 8, false);
    vssseg8e32_v [R, W, R] |m, o| vsegment(m, o, 4, 8, true);
    vxor_vv [W, R, R] |m, o| velems(m, o, |a, b, _| a ^ b);
    vmv_v_v [W, R] |m, o| vperm(m, o, |_, i| Some(i as u64));
    vmv1r_v [W, R] |m, o| vmv_whole(m, o, 1);
    vmv2r_v [W, R] |m, o| vmv_whole(m, o, 2);
    vmv4r_v [W, R] |m, o| vmv_whole(m, o, 4);
    vmv8r_v [W, R] |m, o| vmv_whole(m, o, 8);
    vmv_v_x [W, R] |m, o| vsplat(m, o, |s, _| s);
    vmv_v_i [W, N] |m, o| vsplat(m, o, |s, _| s);
    vmv_x_s [W, R] |m, o| {
        let (sew, v) = (m.state.sew, vr(&o[1]));
        let e = m.state.elem(v, 0, sew as usize / 8);
        set_xr(m, &o[0], ((e << (64 - sew)) as i64 >> (64 - sew)) as u64)
    };
    vid_v [W] |m, o| vsplat(m, &[o[0].clone(), Operand::Imm(0)], |_, i| i as u64);
    vxor_vx [W, R, R] |m, o| velems(m, o, |a, b, _| a ^ b);
    vxor_vi [W, R, N] |m, o| velems(m, o, |a, b, _| a ^ b);
    vand_vv [W, R, R] |m, o| velems(m, o, |a, b, _| a & b);
    vand_vi [W, R, N] |m, o| velems(m, o, |a, b, _| a & b);
    vand_vx [W, R, R] |m, o| velems(m, o, |a, b, _| a & b);
    vor_vv [W, R, R] |m, o| velems(m, o, |a, b, _| a | b);
    vor_vx [W, R, R] |m, o| velems(m, o, |a, b, _| a | b);
    vor_vi [W, R, N] |m, o| velems(m, o, |a, b, _| a | b);
    vxor_vv_v0t [RW, R, R] |m, o| vmasked(m, o, |a, b, _| a ^ b);
    vor_vv_v0t [RW, R, R] |m, o| vmasked(m, o, |a, b, _| a | b);
    vadd_vv [W, R, R] |m, o| velems(m, o, |a, b, _| a.wrapping_add(b));
    vadd_vx [W, R, R] |m, o| velems(m, o, |a, b, _| a.wrapping_add(b));
    vadd_vi [W, R, N] |m, o| velems(m, o, |a, b, _| a.wrapping_add(b));
    vadd_vv_v0t [RW, R, R] |m, o| vmasked(m, o, |a, b, _| a.wrapping_add(b));
    vadd_vx_v0t [RW, R, R] |m, o| vmasked(m, o, |a, b, _| a.wrapping_add(b));
    viota_m [W, R] |m, o| viota(m, o, false);
    viota_m_v0t [RW, R] |m, o| viota(m, o, true);
    vsub_vv [W, R, R] |m, o| velems(m, o, |a, b, _| a.wrapping_sub(b));
    vsub_vx [W, R, R] |m, o| velems(m, o, |a, b, _| a.wrapping_sub(b));
    vrsub_vx [W, R, R] |m, o| velems(m, o, |a, b, _| b.wrapping_sub(a));
    vrsub_vi [W, R, N] |m, o| velems(m, o, |a, b, _| b.wrapping_sub(a));
    vsrl_vi [W, R, N] |m, o| velems(m, o, |a, b, sew| a >> (b & (sew as u64 - 1)));
    vsrl_vv [W, R, R] |m, o| velems(m, o, |a, b, sew| a >> (b & (sew as u64 - 1)));
    vsrl_vx [W, R, R] |m, o| velems(m, o, |a, b, sew| a >> (b & (sew as u64 - 1)));
    vsll_vi [W, R, N] |m, o| velems(m, o, |a, b, sew| a << (b & (sew as u64 - 1)));
    vsll_vv [W, R, R] |m, o| velems(m, o, |a, b, sew| a << (b & (sew as u64 - 1)));
    vsll_vx [W, R, R] |m, o| velems(m, o, |a, b, sew| a << (b & (sew as u64 - 1)));
    vmseq_vi [W, R, N] |m, o| vcompare(m, o, |a, b| a == b);
    vmsgtu_vx [W, R, R] |m, o| vcompare(m, o, |a, b| a > b);
    vzext_vf2 [W, R] |m, o| vextend(m, o, 2, false);
    vzext_vf4 [W, R] |m, o| vextend(m, o, 4, false);
    vsext_vf2 [W, R] |m, o| vextend(m, o, 2, true);
    vmv_s_x [RW, R] |m, o| {
        let (eb, mask, d, s) = (sew_bytes(m), sew_mask(m), vr(&o[0]), xr(m, &o[1]));
        if m.state.vl > 0 {
            m.state.set_elem(d, 0, eb, s & mask);
        }
        Ok(())
    };
    vmerge_vvm [W, R, R] |m, o| vbody(m, o, |a, b, _, on| Some(if on { b } else { a }));
    vmerge_vxm [W, R, R] |m, o| vbody(m, o, |a, b, _, on| Some(if on { b } else { a }));
    vmerge_vim [W, R, N] |m, o| vbody(m, o, |a, b, _, on| Some(if on { b } else { a }));
    vrgather_vv [W, R, R] |m, o| {
        let (idx, eb) = (vr(&o[2]), sew_bytes(m));
        vperm(m, o, |s, i| Some(s.elem(idx, i, eb)))
    };
    vrgather_vx [W, R, R] |m, o| { let idx = xr(m, &o[2]); vperm(m, o, |_, _| Some(idx)) };
    vrgather_vi [W, R, N] |m, o| { let idx = xr(m, &o[2]); vperm(m, o, |_, _| Some(idx)) };
    vslidedown_vx [W, R, R] |m, o| { let off = xr(m, &o[2]); vperm(m, o, |_, i| Some((i as u64).saturating_add(off))) };
    vslideup_vx [RW, R, R] |m, o| {
        let off = xr(m, &o[2]);
        vperm(m, o, |_, i| (i as u64).checked_sub(off))
    };
    vslidedown_vi [W, R, N] |m, o| { let off = xr(m, &o[2]); vperm(m, o, |_, i| Some(i as u64 + off)) };
    vslideup_vi [RW, R, N] |m, o| { let off = xr(m, &o[2]); vperm(m, o, |_, i| (i as u64).checked_sub(off)) };
    vslideup_vi_v0t [RW, R, N] |m, o| {
        let off = xr(m, &o[2]);
        vperm(m, o, |s, i| if mask_bit(s, i) { (i as u64).checked_sub(off) } else { None })
    };
    vrev8_v [W, R] |m, o| {
        let sew = m.state.sew;
        vperm_map(m, o, |a| a.swap_bytes() >> (64 - sew))
    };
    vbrev8_v [W, R] |m, o| vperm_map(m, o, brev8);
    vrev8_v_v0t [RW, R] |m, o| {
        let (eb, sew, d, a) = (sew_bytes(m), m.state.sew, vr(&o[0]), vr(&o[1]));
        for i in 0..m.state.vl as usize {
            if !mask_bit(&m.state, i) {
                continue;
            }
            let r = m.state.elem(a, i, eb).swap_bytes() >> (64 - sew);
            m.state.set_elem(d, i, eb, r);
        }
        Ok(())
    };
    vror_vi [W, R, N] |m, o| velems(m, o, |a, n, sew| {
        let n = n as u32 & (sew - 1);
        if n == 0 { a } else { (a >> n) | (a << (sew - n)) }
    });
    vror_vv [W, R, R] |m, o| velems(m, o, rotr);
    vror_vx [W, R, R] |m, o| velems(m, o, rotr);
    vrol_vv [W, R, R] |m, o| velems(m, o, |a, n, sew| rotr(a, (sew as u64).wrapping_sub(n), sew));
    vrol_vx [W, R, R] |m, o| velems(m, o, |a, n, sew| rotr(a, (sew as u64).wrapping_sub(n), sew));
    vandn_vv [W, R, R] |m, o| velems(m, o, |a, b, _| a & !b);
    vandn_vx [W, R, R] |m, o| velems(m, o, |a, b, _| a & !b);
    vbrev_v [W, R] |m, o| { let sew = m.state.sew; vperm_map(m, o, |a| a.reverse_bits() >> (64 - sew)) };
    vclz_v [W, R] |m, o| {
        let sew = m.state.sew;
        vperm_map(m, o, |a| if a == 0 { sew as u64 } else { (a.leading_zeros() - (64 - sew)) as u64 })
    };
    vctz_v [W, R] |m, o| { let sew = m.state.sew; vperm_map(m, o, |a| if a == 0 { sew as u64 } else { a.trailing_zeros() as u64 }) };
    vcpop_v [W, R] |m, o| vperm_map(m, o, |a| a.count_ones() as u64);
    vwsll_vv [W, R, R] |m, o| vwiden(m, o, |a, b, wide| a << (b & (wide as u64 - 1)));
    vwsll_vx [W, R, R] |m, o| vwiden(m, o, |a, b, wide| a << (b & (wide as u64 - 1)));
    vwsll_vi [W, R, N] |m, o| vwiden(m, o, |a, b, wide| a << (b & (wide as u64 - 1)));
    vghsh_vv [RW, R, R] |m, o| {
        let x = vr(&o[2]);
        vgroups(m, o, |y, s, h, g| gmul(y ^ s.group(x, g), s.group(h, g)))
    };
    vgmul_vv [RW, R] |m, o| vgroups(m, o, |y, s, h, g| gmul(y, s.group(h, g)));
    vclmul_vv [W, R, R] |m, o| velems(m, o, |a, b, _| clmul(a, b) as u64);
    vclmulh_vv [W, R, R] |m, o| velems(m, o, |a, b, _| (clmul(a, b) >> 64) as u64);
    vclmul_vx [W, R, R] |m, o| velems(m, o, |a, b, _| clmul(a, b) as u64);
    vclmulh_vx [W, R, R] |m, o| velems(m, o, |a, b, _| (clmul(a, b) >> 64) as u64);
    vclmul_vx_v0t [RW, R, R] |m, o| vmasked(m, o, |a, b, _| clmul(a, b) as u64);
    vsm4k_vi [W, R, N] |m, o| {
        let rnd = xr(m, &o[2]) as usize & 7;
        vgroups(m, o, |_, s, k, g| sm4_four(s.group(k, g), 0, Some(rnd)))
    };
    vsm4r_vv [RW, R] |m, o| vgroups(m, o, |x, s, k, g| sm4_four(x, s.group(k, g), None));
    vsm4r_vs [RW, R] |m, o| vgroups(m, o, |x, s, k, _| sm4_four(x, s.group(k, 0), None));
    vaesef_vv [RW, R] |m, o| vgroups(m, o, |x, s, k, g| aes::round(x, s.group(k, g), false, false));
    vaesef_vs [RW, R] |m, o| vgroups(m, o, |x, s, k, _| aes::round(x, s.group(k, 0), false, false));
    vaesem_vv [RW, R] |m, o| vgroups(m, o, |x, s, k, g| aes::round(x, s.group(k, g), false, true));
    vaesem_vs [RW, R] |m, o| vgroups(m, o, |x, s, k, _| aes::round(x, s.group(k, 0), false, true));
    vaesdf_vv [RW, R] |m, o| vgroups(m, o, |x, s, k, g| aes::round(x, s.group(k, g), true, false));
    vaesdf_vs [RW, R] |m, o| vgroups(m, o, |x, s, k, _| aes::round(x, s.group(k, 0), true, false));
    vaesdm_vv [RW, R] |m, o| vgroups(m, o, |x, s, k, g| aes::round(x, s.group(k, g), true, true));
    vaesdm_vs [RW, R] |m, o| vgroups(m, o, |x, s, k, _| aes::round(x, s.group(k, 0), true, true));
    vaesz_vs [RW, R] |m, o| vgroups(m, o, |x, s, k, _| x ^ s.group(k, 0));
    vaeskf1_vi [W, R, N] |m, o| { let r = xr(m, &o[2]); vgroups(m, o, |_, s, k, g| vaeskf1(s.group(k, g), r)) };
    vaeskf2_vi [RW, R, N] |m, o| { let r = xr(m, &o[2]); vgroups(m, o, |x, s, k, g| vaeskf2(x, s.group(k, g), r)) };
    vsha2ms_vv [RW, R, R] |m, o| vegs(m, o, 4, sha2ms);
    vsha2ch_vv [RW, R, R] |m, o| vegs(m, o, 4, |d, a, b, sew| sha2c(d, a, b, sew, true));
    vsha2cl_vv [RW, R, R] |m, o| vegs(m, o, 4, |d, a, b, sew| sha2c(d, a, b, sew, false));
    vsm3me_vv [W, R, R] |m, o| vegs(m, o, 8, |_, a, b, _| sm3me(a, b));
    vsm3c_vi [RW, R, N] |m, o| { let r = xr(m, &o[2]) as u32; vegs(m, o, 8, |d, w, _, _| sm3c(d, w, r)) };
};

/// `d[i] = f(a[i])` for `i < vl`, truncated to SEW.
fn vperm_map(m: &mut Machine<'_>, o: &[Operand], f: impl Fn(u64) -> u64) -> Result<(), Fault> {
    let (eb, mask, d, a) = (sew_bytes(m), sew_mask(m), vr(&o[0]), vr(&o[1]));
    for i in 0..m.state.vl as usize {
        let r = f(m.state.elem(a, i, eb)) & mask;
        m.state.set_elem(d, i, eb, r);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::riscv64::OPS;

    #[test]
    fn one_entry_per_op_in_order() {
        let table: Vec<_> = OPS.iter().map(|o| (o.name, o.operands.len())).collect();
        let sems: Vec<_> = SEMS.iter().map(|s| (s.op as usize, s.roles.len())).collect();
        if let Err(e) = crate::sem::check_parallel("riscv64", &table, &sems) {
            panic!("{e}");
        }
    }

    /// Big-endian 32-bit words from hex.
    fn be_words(hex: &str) -> Vec<u32> {
        (0..hex.len() / 8).map(|i| u32::from_str_radix(&hex[8 * i..8 * i + 8], 16).unwrap()).collect()
    }

    /// A 128-bit block from hex, byte 0 the least significant.
    fn block(hex: &str) -> u128 {
        (0..16).fold(0, |x, i| x | (u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap() as u128) << (8 * i))
    }

    /// FIPS 197 appendix A.1 (key expansion) and B (cipher example): the AES-128 key schedule by `vaeskf1.vi` and
    /// by `aes64ks1i`/`aes64ks2`, the block encrypted by `vaesz`/`vaesem`/`vaesef` and by `aes64esm`/`aes64es`,
    /// and decrypted by `vaesdm`/`vaesdf` and by `aes64dsm`/`aes64ds` with InvMixColumns (`aes64im`) round keys.
    #[test]
    fn aes_128_matches_fips_197() {
        let key = block("2b7e151628aed2a6abf7158809cf4f3c");
        let mut rk = vec![key];
        for r in 1..=10 {
            rk.push(vaeskf1(rk[r - 1], r as u64));
        }
        assert_eq!(rk[1], block("a0fafe1788542cb123a339392a6c7605"));
        assert_eq!(rk[10], block("d014f9a8c9ee2589e13f0cc8b6630ca6"));
        // Scalar: (lo, hi) halves; ks1i on the previous high half, ks2 twice.
        let (mut lo, mut hi) = (key as u64, (key >> 64) as u64);
        for (r, k) in rk.iter().enumerate().skip(1) {
            let t = aes64ks1i(hi, r as u64 - 1);
            lo = aes64ks2(t, lo);
            hi = aes64ks2(lo, hi);
            assert_eq!(((hi as u128) << 64) | lo as u128, *k, "round key {r}");
        }
        let (plain, cipher) = (block("3243f6a8885a308d313198a2e0370734"), block("3925841d02dc09fbdc118597196a0b32"));
        let mut x = plain ^ rk[0];
        for k in &rk[1..10] {
            x = aes::round(x, *k, false, true);
        }
        assert_eq!(aes::round(x, rk[10], false, false), cipher);
        let both = |x: u128, k: u128, f: &dyn Fn(u64, u64) -> u64| {
            let (lo, hi) = (x as u64, (x >> 64) as u64);
            (((f(hi, lo) as u128) << 64) | f(lo, hi) as u128) ^ k
        };
        let mut x = plain ^ rk[0];
        for k in &rk[1..10] {
            x = both(x, *k, &|a, b| aes64(a, b, false, true));
        }
        assert_eq!(both(x, rk[10], &|a, b| aes64(a, b, false, false)), cipher);
        let mut x = cipher ^ rk[10];
        for k in rk[1..10].iter().rev() {
            x = aes::round(x, *k, true, true);
        }
        assert_eq!(aes::round(x, rk[0], true, false), plain);
        let im = |k: u128| u128::from_le_bytes(aes::mix_columns(k.to_le_bytes(), true));
        let mut x = cipher ^ rk[10];
        for k in rk[1..10].iter().rev() {
            x = both(x, im(*k), &|a, b| aes64(a, b, true, true));
        }
        assert_eq!(both(x, rk[0], &|a, b| aes64(a, b, true, false)), plain);
    }

    /// FIPS 197 appendix A.3: the AES-256 round keys 2 and 3 by `vaeskf2.vi`.
    #[test]
    fn aes_256_key_expansion_matches_fips_197() {
        let (k0, k1) = (block("603deb1015ca71be2b73aef0857d7781"), block("1f352c073b6108d72d9810a30914dff4"));
        let k2 = vaeskf2(k0, k1, 2);
        assert_eq!(k2, block("9ba354118e6925afa51a8b5f2067fcde"));
        assert_eq!(vaeskf2(k1, k2, 3), block("a8b09c1a93d194cdbe49846eb75d5b9a"));
    }

    /// The SHA-256 round constants and initial hash (FIPS 180-4 4.2.2, 5.3.3): the first 32 bits of the
    /// fractional parts of the cube and square roots of the first primes.
    fn sha256_constants() -> (Vec<u32>, Vec<u32>) {
        let primes: Vec<u32> = (2u32..).filter(|n| (2..*n).all(|d| n % d != 0)).take(64).collect();
        let frac = |x: f64| ((x - x.floor()) * 4294967296.0) as u32;
        (
            primes.iter().map(|&p| frac((p as f64).cbrt())).collect(),
            primes[..8].iter().map(|&p| frac((p as f64).sqrt())).collect(),
        )
    }

    /// FIPS 180-4's SHA-256 example ("abc") compressed by `vsha2ms`, `vsha2cl` and `vsha2ch` as the vector kernels
    /// use them (state `{a, b, e, f}` and `{c, d, g, h}`, four words of message plus constants per pair), the
    /// message schedule also recomputed with the sigma functions of `sha256sig0`/`sha256sig1`.
    #[test]
    fn sha256_abc_matches_fips_180_4() {
        let (k, h) = sha256_constants();
        assert_eq!((k[0], k[63], h[0], h[7]), (0x428a2f98, 0xc67178f2, 0x6a09e667, 0x5be0cd19));
        let mut w: Vec<u64> = vec![0; 64];
        (w[0], w[15]) = (0x6162_6380, 24);
        for q in 4..16 {
            let (i, a) = (4 * q, [w[4 * q - 12], w[4 * q - 7], w[4 * q - 6], w[4 * q - 5]]);
            let next = sha2ms(&w[i - 16..i - 12], &a, &w[i - 4..i], 32);
            w[i..i + 4].copy_from_slice(&next);
        }
        for j in 16..64 {
            let s = sha2(w[j - 2], 32, 1) + w[j - 7] + sha2(w[j - 15], 32, 0) + w[j - 16];
            assert_eq!(w[j], s & 0xffff_ffff, "W[{j}]");
        }
        let h: Vec<u64> = h.iter().map(|&x| x as u64).collect();
        let (mut abef, mut cdgh) = (vec![h[5], h[4], h[1], h[0]], vec![h[7], h[6], h[3], h[2]]);
        for q in 0..16 {
            let kw: Vec<u64> = (0..4).map(|j| (w[4 * q + j] + k[4 * q + j] as u64) & 0xffff_ffff).collect();
            (cdgh, abef) = (abef.clone(), sha2c(&cdgh, &abef, &kw, 32, false));
            (cdgh, abef) = (abef.clone(), sha2c(&cdgh, &abef, &kw, 32, true));
        }
        let state = [abef[3], abef[2], cdgh[3], cdgh[2], abef[1], abef[0], cdgh[1], cdgh[0]];
        let digest: Vec<u32> = (0..8).map(|i| (state[i] + h[i]) as u32).collect();
        assert_eq!(digest, be_words("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    }

    /// GB/T 32905's example 1 (SM3 of "abc") by `vsm3me.vv` and `vsm3c.vi`, words big-endian in the elements as a
    /// `vle32.v` of the bytes leaves them; and the P0, P1 of `sm3p0`/`sm3p1` on one bit.
    #[test]
    fn sm3_abc_matches_gb_t_32905() {
        let iv = be_words("7380166f4914b2b9172442d7da8a0600a96f30bc163138aae38dee4db0fb0e4e");
        let mut w: Vec<u64> = vec![0; 72];
        (w[0], w[15]) = (0x6162_6380u32.swap_bytes() as u64, 24u32.swap_bytes() as u64);
        for i in (16..72).step_by(8) {
            let next = sm3me(&w[i - 8..i], &w[i - 16..i - 8]);
            w[i..i + 8].copy_from_slice(&next);
        }
        let mut state: Vec<u64> = iv.iter().map(|x| x.swap_bytes() as u64).collect();
        for r in 0..32 {
            state = sm3c(&state, &w[2 * r..2 * r + 8], r as u32);
        }
        let digest: Vec<u32> = (0..8).map(|i| (state[i] as u32).swap_bytes() ^ iv[i]).collect();
        assert_eq!(digest, be_words("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"));
        assert_eq!((sm3p0(1), sm3p1(1)), (1 | 1 << 9 | 1 << 17, 1 | 1 << 15 | 1 << 23));
    }

    #[test]
    fn sm4_constants() {
        assert_eq!((SM4_SBOX[0], SM4_SBOX[0xff], ck(0), ck(31)), (0xd6, 0x48, 0x00070e15, 0x646b7279));
    }
}
