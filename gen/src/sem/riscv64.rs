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
    let v = if signed && len == 4 { v as u32 as i32 as i64 as u64 } else { v };
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

fn clmul(a: u64, b: u64) -> u128 {
    (0..64).filter(|i| (b >> i) & 1 == 1).fold(0, |r, i| r ^ ((a as u128) << i))
}

fn brev8(x: u64) -> u64 {
    x.reverse_bits().swap_bytes()
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
    let (eb, mask, sew) = (sew_bytes(m), sew_mask(m), m.state.sew);
    let (d, a) = (vr(&o[0]), vr(&o[1]));
    for i in 0..m.state.vl as usize {
        let b = match &o[2] {
            Operand::V(b) => m.state.elem(*b, i, eb),
            other => xr(m, other) & mask,
        };
        let r = f(m.state.elem(a, i, eb), b, sew) & mask;
        m.state.set_elem(d, i, eb, r);
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
    let Operand::VType(t) = &o[2] else { unreachable!() };
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
    lui [W, N] |m, o| { let v = ((xr(m, &o[1]) << 12) as u32 as i32) as i64 as u64; set_xr(m, &o[0], v) };
    ld [W, R] |m, o| load(m, o, 8, false);
    lw [W, R] |m, o| load(m, o, 4, true);
    lwu [W, R] |m, o| load(m, o, 4, false);
    lbu [W, R] |m, o| load(m, o, 1, false);
    sd [R, W] |m, o| store(m, o, 8);
    sw [R, W] |m, o| store(m, o, 4);
    sb [R, W] |m, o| store(m, o, 1);
    mv [W, R] |m, o| { let v = xr(m, &o[1]); set_xr(m, &o[0], v) };
    li [W, N] |m, o| { let v = xr(m, &o[1]); set_xr(m, &o[0], v) };
    not [W, R] |m, o| { let v = !xr(m, &o[1]); set_xr(m, &o[0], v) };
    neg [W, R] |m, o| { let v = xr(m, &o[1]).wrapping_neg(); set_xr(m, &o[0], v) };
    nop [] |m, o| Ok(());
    ret [] flow |m, o| Flow::Ret;
    lla [W, N] |m, o| { let v = address(m, &o[1])?; set_xr(m, &o[0], v) };
    j [N] flow |m, o| branch(m, o, |_, _| true);
    beqz [R, N] flow |m, o| branch(m, o, |a, _| a == 0);
    bnez [R, N] flow |m, o| branch(m, o, |a, _| a != 0);
    beq [R, R, N] flow |m, o| branch(m, o, |a, b| a == b);
    bne [R, R, N] flow |m, o| branch(m, o, |a, b| a != b);
    bltu [R, R, N] flow |m, o| branch(m, o, |a, b| a < b);
    bgeu [R, R, N] flow |m, o| branch(m, o, |a, b| a >= b);
    rev8 [W, R] |m, o| { let v = xr(m, &o[1]).swap_bytes(); set_xr(m, &o[0], v) };
    andn [W, R, R] |m, o| x3(m, o, |a, b| a & !b);
    orn [W, R, R] |m, o| x3(m, o, |a, b| a | !b);
    xnor [W, R, R] |m, o| x3(m, o, |a, b| !(a ^ b));
    rol [W, R, R] |m, o| x3(m, o, |a, b| a.rotate_left((b & 63) as u32));
    ror [W, R, R] |m, o| x3(m, o, |a, b| a.rotate_right((b & 63) as u32));
    rori [W, R, N] |m, o| x3(m, o, |a, b| a.rotate_right((b & 63) as u32));
    pack [W, R, R] |m, o| x3(m, o, |a, b| (b << 32) | (a & 0xffff_ffff));
    packh [W, R, R] |m, o| x3(m, o, |a, b| ((b & 0xff) << 8) | (a & 0xff));
    brev8 [W, R] |m, o| { let v = brev8(xr(m, &o[1])); set_xr(m, &o[0], v) };
    clmul [W, R, R] |m, o| x3(m, o, |a, b| clmul(a, b) as u64);
    clmulh [W, R, R] |m, o| x3(m, o, |a, b| (clmul(a, b) >> 64) as u64);
    clmulr [W, R, R] |m, o| x3(m, o, |a, b| (clmul(a, b) >> 63) as u64);
    sm4ed [W, R, R, N] |m, o| sm4_scalar(m, o, false);
    sm4ks [W, R, R, N] |m, o| sm4_scalar(m, o, true);
    vsetivli [W, N, N] |m, o| vset(m, o);
    vsetvli [W, R, N] |m, o| vset(m, o);
    vle32_v [W, R] |m, o| vmem(m, o, 4, false);
    vse32_v [R, W] |m, o| vmem(m, o, 4, true);
    vle64_v [W, R] |m, o| vmem(m, o, 8, false);
    vse64_v [R, W] |m, o| vmem(m, o, 8, true);
    vxor_vv [W, R, R] |m, o| velems(m, o, |a, b, _| a ^ b);
    vmv_v_v [W, R] |m, o| vperm(m, o, |_, i| Some(i as u64));
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
    vadd_vv [W, R, R] |m, o| velems(m, o, |a, b, _| a.wrapping_add(b));
    vadd_vx [W, R, R] |m, o| velems(m, o, |a, b, _| a.wrapping_add(b));
    vrsub_vx [W, R, R] |m, o| velems(m, o, |a, b, _| b.wrapping_sub(a));
    vrsub_vi [W, R, N] |m, o| velems(m, o, |a, b, _| b.wrapping_sub(a));
    vsrl_vi [W, R, N] |m, o| velems(m, o, |a, b, sew| a >> (b & (sew as u64 - 1)));
    vrgather_vv [W, R, R] |m, o| {
        let (idx, eb) = (vr(&o[2]), sew_bytes(m));
        vperm(m, o, |s, i| Some(s.elem(idx, i, eb)))
    };
    vslidedown_vx [W, R, R] |m, o| { let off = xr(m, &o[2]); vperm(m, o, |_, i| Some((i as u64).saturating_add(off))) };
    vslideup_vx [RW, R, R] |m, o| {
        let off = xr(m, &o[2]);
        vperm(m, o, |_, i| (i as u64).checked_sub(off))
    };
    vrev8_v [W, R] |m, o| {
        let sew = m.state.sew;
        vperm_map(m, o, |a| a.swap_bytes() >> (64 - sew))
    };
    vbrev8_v [W, R] |m, o| vperm_map(m, o, brev8);
    vror_vi [W, R, N] |m, o| velems(m, o, |a, n, sew| {
        let n = n as u32 & (sew - 1);
        if n == 0 { a } else { (a >> n) | (a << (sew - n)) }
    });
    vghsh_vv [RW, R, R] |m, o| {
        let x = vr(&o[2]);
        vgroups(m, o, |y, s, h, g| gmul(y ^ s.group(x, g), s.group(h, g)))
    };
    vgmul_vv [RW, R] |m, o| vgroups(m, o, |y, s, h, g| gmul(y, s.group(h, g)));
    vclmul_vv [W, R, R] |m, o| velems(m, o, |a, b, _| clmul(a, b) as u64);
    vclmulh_vv [W, R, R] |m, o| velems(m, o, |a, b, _| (clmul(a, b) >> 64) as u64);
    vsm4k_vi [W, R, N] |m, o| {
        let rnd = xr(m, &o[2]) as usize & 7;
        vgroups(m, o, |_, s, k, g| sm4_four(s.group(k, g), 0, Some(rnd)))
    };
    vsm4r_vv [RW, R] |m, o| vgroups(m, o, |x, s, k, g| sm4_four(x, s.group(k, g), None));
    vsm4r_vs [RW, R] |m, o| vgroups(m, o, |x, s, k, _| sm4_four(x, s.group(k, 0), None));
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

    #[test]
    fn sm4_constants() {
        assert_eq!((SM4_SBOX[0], SM4_SBOX[0xff], ck(0), ck(31)), (0xd6, 0x48, 0x00070e15, 0x646b7279));
    }
}
