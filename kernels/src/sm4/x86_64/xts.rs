//! SM4-XTS on x86_64: IEEE 1619 and GB/T 17964-2021, tweaks for every block in flight computed in registers.
//!
//! `dst[i] = E(src[i] ^ T[i]) ^ T[i]`. IEEE 1619 reads a tweak little-endian (byte 0 least significant) and
//! steps `T[i+1] = T[i] * x` modulo x^128 + x^7 + x^2 + x + 1 (`0x87`). GB/T 17964-2021 reads it big-endian
//! with the bits reflected (GCM's convention): as the 128-bit big-endian integer `V`,
//! `V' = (V >> 1) ^ (V & 1 ? 0xe1 << 120 : 0)`. The kernel keeps a chain register (the tweak itself for IEEE,
//! its byte reversal `V` for GB, so both step with 64-bit lane shifts) and doubles it once per block with
//! shifts and a sign mask, no branches and no scalar code.
//!
//! The tweak of block `i` is stored into `dst[i]` as the block's input is formed (after `src[i]` is loaded, so
//! `dst == src` works) and xored back from there after the rounds: all sixteen vector registers are busy
//! during the rounds, and this keeps the tweaks out of them.
//!
//! The GFNI kernels run full 16-block batches back to back: one pass over the slots xors this batch's parked
//! tweaks into its outputs and forms the next batch's inputs with the tweaks 16 blocks on, `T * x^16` from the
//! parked ones (a byte shift and one `vpclmulqdq` per pair of blocks, `Tw::times_x16`). The AES-NI AVX2
//! and VAES kernels run their full batches the same way, their first batch's tweaks from the chain and the
//! product by x^16 in shifts and xors (no `vpclmulqdq`: AVX2-only CPUs such as Zen 1 lack it on ymm).
//!
//! The zmm kernels (GFNI or VAES with AVX-512) run full 48-block batches (twelve zmm slots of four blocks) the
//! same way: the first batch's tweaks `T[0..8]` stepped from the chain and the rest `* x^8` from them, the next
//! batch's the parked ones `* x^48` (a byte shift and one `vpclmulqdq` per slot, `Tw::times_bytes_z`), the
//! tweak temporaries in zmm24-zmm27, which no round uses. Of the 0..47 blocks below a full batch (a whole
//! call, or what is left after the full batches) 32 run as one batch of two zmm groups where there are as
//! many, the rest on the base set's ymm and xmm loop.
//!
//! Two kinds of kernel share that loop: the whole-block kernels ([`xts`]: `nblocks` blocks, the caller's
//! tweak buffer read and updated) and the unit kernels ([`xts_unit`]: one data unit of `len` bytes, `T[0]`
//! encrypted inside, IEEE 1619 ciphertext stealing by `steal` after the loop). Between batches the loop's
//! tweak waits in a `Home`: the caller's buffer, or (unit kernels) two general-purpose registers.

use super::batch::*;
use super::cipher::*;
use super::consts::*;
use super::roles::*;
use super::set::{Sbox, Set};
use super::width::*;
use crate::arch::x86_64::{advance, mov_count};
use crate::ghash::BYTE_REVERSE;
use crate::plan::Trips;
use crate::role::{self, Kernel, Kernels, Role};
use crate::Blocks;
use asmgen::isa::x86_64::{mem, mem_index, regs::*, rip, rip_off, Gpr, X86Feature, X86_64};
use asmgen::{Abi, Function, GenError, Label};

/// Which XTS tweak convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standard {
    /// IEEE 1619 (NIST SP 800-38E): little-endian, `* x` with reduction `0x87`.
    Ieee,
    /// GB/T 17964-2021: bit-reflected big-endian, `* x` as a right shift with reduction `0xe1 << 120`.
    Gb,
}

impl Standard {
    fn name(self) -> &'static str {
        match self {
            Standard::Ieee => "ieee",
            Standard::Gb => "gb",
        }
    }
}

/// The tweak-chain constants.
struct Tw {
    std: Standard,
    /// IEEE: `[0x87, 0, 1, 0]` dwords (bit 127 folds to 0x87, bit 63 carries to bit 64).
    /// GB: `[0, 0x8000_0000, 0, 0xe100_0000]` (bit 0 folds to 0xe1 << 120, bit 64 carries to bit 63).
    mask: Label,
    /// Byte reversal (GB only).
    rev: Label,
    /// GFNI kernels ([`Fast`]): GB's chain is held in IEEE form.
    fast: Option<Fast>,
    /// AES-NI AVX2 and VAES kernels: back-to-back batches with [`Tw::times_x16`] by shifts (no `vpclmulqdq`).
    x16: Option<X16>,
    /// zmm kernels: the constants of [`Tw::times_bytes_z`].
    z: Option<ZConsts>,
}

/// The 64-byte constants of [`Tw::times_bytes_z`] (zmm kernels), by byte count `nb` ([`Z_SHIFTS`]): 1 (the first
/// batch's tweaks, `* x^8`), 4 (the tweak after a batch of 32 blocks) and 6 (the next batch's, `* x^48`).
struct ZConsts {
    /// `vpclmulqdq` factor per lane: `0x87` (IEEE) or `0x1c2` (GB: `0x87` bit-reflected, times 2).
    poly: Label,
    /// GB: `vpshufb` controls taking bytes `15, 14, .., 16 - nb` of each lane to `0..nb` (zeroing the rest), and
    /// reversing bytes `0..=nb` (zeroing the rest), for each `nb` of [`Z_SHIFTS`].
    gb: Option<[(Label, Label); 3]>,
}

/// The constants of [`Tw::times_x16`] without `vpclmulqdq` (GB only; IEEE needs none).
struct X16 {
    /// GB: `vpshufb` control taking bytes 15 and 14 of each lane to bytes 0 and 1, zeroing the rest.
    top: Option<Label>,
    /// GB: `vpshufb` control reversing bytes 0..3 of each lane, zeroing the rest.
    rev3: Option<Label>,
}

/// The GFNI kernels' tweaks. GB's bit-reflected big-endian value, with every byte's bits reversed and read
/// little-endian, is IEEE's value: the same doubling (`* x`, `0x87`). So the chain is in IEEE form for both
/// standards and a GB tweak is its byte-wise bit reversal (one `vgf2p8affineqb`). A full ymm batch computes
/// its sixteen tweaks from the batch's first, `T * x^k` for `k = 0..15`, independently (no serial chain):
/// `(T << k) ^ (T >> (128 - k)) * 0x87` with per-qword variable shifts, the carry between the qwords moved by
/// byte shifts, and the product by 0x87 as `o ^ o << 1 ^ o << 2 ^ o << 7`.
struct Fast {
    /// Byte-wise bit reversal as a GFNI matrix (GB only).
    bitrev: Label,
    /// Left shift counts per slot: `[2s, 2s, 2s + 1, 2s + 1]` qwords.
    shl: Label,
    /// Right shift counts per slot: `64 -` the left ones.
    shr: Label,
    /// `vpclmulqdq` factor of the fold in [`Tw::times_x16`]: `0x87` per lane (IEEE), or `0x1c2` (GB: `0x87`
    /// bit-reflected, times 2).
    poly: Label,
    /// GB: `vpshufb` control taking bytes 15 and 14 of each lane to bytes 0 and 1, zeroing the rest.
    top: Option<Label>,
    /// GB: `vpshufb` control reversing bytes 0..3 of each lane, zeroing the rest.
    rev3: Option<Label>,
}

// Registers of the tweak chain while a batch's inputs are formed (the round temporaries are free then).
const CHAIN: V = V(8);
const MASK: V = V(9);
const OUT: V = V(10);
const OUT2: V = V(11);

impl Tw {
    fn new(b: &mut B, std: Standard, set: Set) -> Tw {
        let z = (set.width() == Width::Z).then(|| ZConsts::new(b, std));
        // A zmm set's tails run its base set's ymm and xmm code.
        let set = set.base();
        let fast = (set == Set::Gfni).then(|| {
            let rev = crate::sm4::Matrix(std::array::from_fn(|i| 1 << (7 - i)));
            let q = crate::sm4::gfni::qword(&rev).to_le_bytes().repeat(4);
            let counts = |f: &dyn Fn(u64) -> u64| -> Vec<u8> {
                (0..8u64).flat_map(|s| [2 * s, 2 * s, 2 * s + 1, 2 * s + 1]).flat_map(|k| f(k).to_le_bytes()).collect()
            };
            Fast {
                bitrev: b.constant("sm4_gfni_bitrev", 32, "GFNI matrix: reverse the bits of each byte", &q),
                shl: b.constant(
                    "sm4_xts_shl",
                    32,
                    "XTS tweak k = 2s, 2s+1: qword left shift counts k",
                    &counts(&|k| k),
                ),
                shr: b.constant(
                    "sm4_xts_shr",
                    32,
                    "XTS tweak k = 2s, 2s+1: qword right shift counts 64-k",
                    &counts(&|k| 64 - k),
                ),
                poly: match std {
                    Standard::Ieee => b.constant(
                        "sm4_xts_ieee_x16",
                        32,
                        "XTS (IEEE) * x^16: vpclmulqdq factor 0x87 per lane",
                        &[0x87u64, 0, 0x87, 0].iter().flat_map(|q| q.to_le_bytes()).collect::<Vec<u8>>(),
                    ),
                    Standard::Gb => b.constant(
                        "sm4_xts_gb_x16",
                        32,
                        "XTS (GB/T 17964) * x^16: vpclmulqdq factor 0x1c2 (0x87 reflected, << 1) per lane",
                        &[0x1c2u64, 0, 0x1c2, 0].iter().flat_map(|q| q.to_le_bytes()).collect::<Vec<u8>>(),
                    ),
                },
                top: (std == Standard::Gb).then(|| {
                    let c: Vec<u8> = (0..32).map(|i| [15u8, 14].get(i % 16).copied().unwrap_or(0x80)).collect();
                    b.constant("sm4_xts_gb_top", 32, "vpshufb: bytes 15, 14 of each lane to 0, 1", &c)
                }),
                rev3: (std == Standard::Gb).then(|| {
                    let c: Vec<u8> = (0..32).map(|i| [2u8, 1, 0].get(i % 16).copied().unwrap_or(0x80)).collect();
                    b.constant("sm4_xts_gb_rev3", 32, "vpshufb: reverse bytes 0..3 of each lane", &c)
                }),
            }
        });
        let x16 = matches!(set, Set::Avx2 | Set::Vaes).then(|| X16 {
            top: (std == Standard::Gb).then(|| {
                let c: Vec<u8> = (0..32).map(|i| [15u8, 14].get(i % 16).copied().unwrap_or(0x80)).collect();
                b.constant("sm4_xts_gb_top", 32, "vpshufb: bytes 15, 14 of each lane to 0, 1", &c)
            }),
            rev3: (std == Standard::Gb).then(|| {
                let c: Vec<u8> = (0..32).map(|i| [2u8, 1, 0].get(i % 16).copied().unwrap_or(0x80)).collect();
                b.constant("sm4_xts_gb_rev3", 32, "vpshufb: reverse bytes 0..3 of each lane", &c)
            }),
        });
        // The GFNI kernels step GB's chain in IEEE form.
        let ieee = std == Standard::Ieee || fast.is_some();
        let dwords: [u32; 4] = if ieee { [0x87, 0, 1, 0] } else { [0, 0x8000_0000, 0, 0xe100_0000] };
        let bytes: Vec<u8> = dwords.iter().flat_map(|d| d.to_le_bytes()).collect();
        let (name, what) = match if ieee { Standard::Ieee } else { Standard::Gb } {
            Standard::Ieee => ("sm4_xts_ieee_poly", "XTS (IEEE 1619) doubling: 0x87 and the qword carry"),
            Standard::Gb => ("sm4_xts_gb_poly", "XTS (GB/T 17964) halving: 0xe1 << 120 and the qword carry"),
        };
        Tw {
            std,
            mask: b.constant(name, 16, what, &bytes),
            rev: b.constant("byte_reverse", 16, "vpshufb control: reverse 16 bytes", &BYTE_REVERSE),
            fast,
            x16,
            z,
        }
    }

    /// Whether full ymm batches run back to back ([`batch_step`]): every ymm set.
    fn batched(&self) -> bool {
        self.fast.is_some() || self.x16.is_some()
    }

    /// Whether the chain is in IEEE form (IEEE, or GB in the GFNI kernels).
    fn ieee_chain(&self) -> bool {
        self.std == Standard::Ieee || self.fast.is_some()
    }

    /// The sixteen tweaks of a full ymm batch (GFNI kernels): slot `s` gets `T[2s], T[2s+1]` xored with its
    /// source blocks, the tweaks parked in `dst`. The chain must hold `T[0]` (IEEE form) in both lanes.
    /// Clobbers [`MASK`], [`OUT`] and [`OUT2`].
    fn fast_batch(&self, b: &mut B, x: &Ctx) {
        let f = self.fast.as_ref().expect("GFNI kernel");
        let w = Width::Y;
        b.comment("All sixteen tweaks from T, independently: T * x^k = (T << k) ^ (T >> (128-k)) * 0x87.");
        for s in 0..8i32 {
            // The tweaks in OUT2, xored with src before they are parked in dst (dst may be src).
            let (v, t) = (V(s as u8), OUT2);
            let off = 32 * s;
            b.vpsllvq(t.y(), CHAIN.y(), rip_off(&f.shl, 32 * s));
            b.vpsrlvq(MASK.y(), CHAIN.y(), rip_off(&f.shr, 32 * s));
            b.vpslldq(OUT.y(), MASK.y(), 8);
            vxor(b, w, t, t, OUT);
            b.vpsrldq(MASK.y(), MASK.y(), 8);
            self.fold(b, w, t, MASK);
            if self.std == Standard::Gb {
                vaffine(b, w, t, t, rip(&f.bitrev), 0);
            }
            b.vpxor(v.y(), t.y(), mem(x.src, off));
            b.vmovdqu(mem(x.dst, off), t.y());
        }
    }

    /// `t = t * x^16` on both lanes of ymm `t`, in the tweak's memory form (GFNI kernels), clobbering `c`.
    /// A product by x^16 is a two-byte shift of each lane and the product of the lane's top two bytes by
    /// 0x87. IEEE: `(t << 16) ^ clmul(t >> 112, 0x87)`, 4 ops. GB's memory form is IEEE's with each byte's
    /// bits reversed, which commutes with the byte shift; its top two bytes, swapped, are the bit reflection
    /// of IEEE's, so `clmul` by the reflected `0x87` (times 2) gives the fold's three bytes reflected, and a
    /// byte reversal puts them in place: 5 ops.
    ///
    /// Without `vpclmulqdq` (AES-NI AVX2 and VAES kernels) the fold's product is shifts and xors, clobbering
    /// `e` too: IEEE `o ^ o << 1 ^ o << 2 ^ o << 7` (9 ops), GB the reflected product `(c << 1) * 0xe1`
    /// (`0x1c2 = x^8 + x^7 + x^6 + x`) before the byte reversal (10 ops).
    fn times_x16(&self, b: &mut B, t: V, c: V, e: V) {
        let Some(f) = self.fast.as_ref() else {
            let g = self.x16.as_ref().expect("ymm kernel");
            match (&g.top, &g.rev3) {
                (Some(top), Some(rev3)) => {
                    b.vpshufb(c.y(), t.y(), rip(top));
                    b.vpslldq(t.y(), t.y(), 2);
                    b.vpsllq(c.y(), c.y(), 1);
                    b.vpsllq(e.y(), c.y(), 5);
                    b.vpxor(c.y(), c.y(), e.y());
                    for _ in 0..2 {
                        b.vpsllq(e.y(), e.y(), 1);
                        b.vpxor(c.y(), c.y(), e.y());
                    }
                    b.vpshufb(c.y(), c.y(), rip(rev3));
                    b.vpxor(t.y(), t.y(), c.y());
                }
                _ => {
                    b.vpsrldq(c.y(), t.y(), 14);
                    b.vpslldq(t.y(), t.y(), 2);
                    self.fold(b, Width::Y, t, c);
                }
            }
            return;
        };
        match (&f.top, &f.rev3) {
            (Some(top), Some(rev3)) => {
                b.vpshufb(c.y(), t.y(), rip(top));
                b.vpslldq(t.y(), t.y(), 2);
                b.vpclmulqdq(c.y(), c.y(), rip(&f.poly), 0x00);
                b.vpshufb(c.y(), c.y(), rip(rev3));
            }
            _ => {
                b.vpsrldq(c.y(), t.y(), 14);
                b.vpslldq(t.y(), t.y(), 2);
                b.vpclmulqdq(c.y(), c.y(), rip(&f.poly), 0x00);
            }
        }
        b.vpxor(t.y(), t.y(), c.y());
    }

    /// `t = t * x^(8 nb)` on the four lanes of zmm `t` (tweaks in memory form), clobbering `c`; `nb` in [`Z_SHIFTS`],
    /// as [`Tw::times_x16`] does `nb` = 2: a byte shift of each lane and one `vpclmulqdq` of its top `nb` bytes,
    /// whose product (at most `8 nb + 8` bits) lands in the lane's low qword. IEEE 4 ops; GB 5 (the top bytes
    /// taken reversed, the factor reflected, the product's `nb + 1` bytes reversed).
    fn times_bytes_z(&self, b: &mut B, t: V, c: V, nb: usize) {
        let z = self.z.as_ref().expect("zmm kernel");
        match &z.gb {
            Some(ctl) => {
                let i = Z_SHIFTS.iter().position(|&k| k == nb).expect("controls for the byte counts of Z_SHIFTS");
                let (top, rev) = &ctl[i];
                b.vpshufb(c.z(), t.z(), rip(top));
                b.vpslldq(t.z(), t.z(), nb as i32);
                b.vpclmulqdq(c.z(), c.z(), rip(&z.poly), 0x00);
                b.vpshufb(c.z(), c.z(), rip(rev));
            }
            None => {
                b.vpsrldq(c.z(), t.z(), 16 - nb as i32);
                b.vpslldq(t.z(), t.z(), nb as i32);
                b.vpclmulqdq(c.z(), c.z(), rip(&z.poly), 0x00);
            }
        }
        b.vpxorq(t.z(), t.z(), c.z());
    }

    /// `d ^= o * 0x87` (carry-less; `o` has at most 16 bits): `o ^ o << 1 ^ o << 2 ^ o << 7`. Clobbers `o`.
    fn fold(&self, b: &mut B, w: Width, d: V, o: V) {
        vxor(b, w, d, d, o);
        // o << 1, o << 2, o << 7 by successive shifts of o.
        for k in [1, 1, 5] {
            match w {
                Width::X => b.vpsllq(o.x(), o.x(), k),
                Width::Y => b.vpsllq(o.y(), o.y(), k),
                Width::Z => b.vpsllq(o.z(), o.z(), k),
            };
            vxor(b, w, d, d, o);
        }
    }

    /// `d = s * x` in the chain's representation (5 ops IEEE, 6 GB); `d` may be `s`. Clobbers [`MASK`].
    fn step(&self, b: &mut B, d: V, s: V) {
        match if self.ieee_chain() { Standard::Ieee } else { Standard::Gb } {
            Standard::Ieee => {
                // Sign masks of dwords 1 and 3 (bits 63 and 127) moved to dwords 2 and 0.
                b.vpsrad(MASK.x(), s.x(), 31);
                b.vpshufd(MASK.x(), MASK.x(), 0x13);
                b.vpand(MASK.x(), MASK.x(), rip(&self.mask));
                b.vpsllq(d.x(), s.x(), 1);
            }
            Standard::Gb => {
                // Masks of bits 0 and 64 (dwords 0 and 2) moved to dwords 3 and 1.
                b.vpslld(MASK.x(), s.x(), 31);
                b.vpsrad(MASK.x(), MASK.x(), 31);
                b.vpshufd(MASK.x(), MASK.x(), 0x08);
                b.vpand(MASK.x(), MASK.x(), rip(&self.mask));
                b.vpsrlq(d.x(), s.x(), 1);
            }
        }
        b.vpxor(d.x(), d.x(), MASK.x());
    }

    /// The tweak held by chain register `s`: `s` itself (IEEE) or its byte reversal in `d` (GB).
    fn out(&self, b: &mut B, d: V, s: V) -> V {
        match self.std {
            Standard::Ieee => s,
            Standard::Gb if self.fast.is_some() => {
                b.vgf2p8affineqb(d.x(), s.x(), rip(&self.fast.as_ref().expect("GFNI").bitrev), 0);
                d
            }
            Standard::Gb => {
                b.vpshufb(d.x(), s.x(), rip(&self.rev));
                d
            }
        }
    }

    /// Loads the chain from the tweak waiting in `home`.
    fn load(&self, b: &mut B, home: Home) {
        home.load(b, CHAIN);
        self.chain_from(b, CHAIN);
    }

    /// The chain from the tweak (memory form) in register `t`.
    fn chain_from(&self, b: &mut B, t: V) {
        if let (Standard::Gb, Some(f)) = (self.std, &self.fast) {
            b.vgf2p8affineqb(CHAIN.x(), t.x(), rip(&f.bitrev), 0);
        } else if self.std == Standard::Gb {
            b.vpshufb(CHAIN.x(), t.x(), rip(&self.rev));
        } else if t != CHAIN {
            vmov(b, Width::X, CHAIN, t);
        }
    }
}

impl ZConsts {
    fn new(b: &mut B, std: Standard) -> ZConsts {
        let lanes = |c: [u8; 16]| c.repeat(4);
        let qword_lanes = |q: u64| lanes(std::array::from_fn(|i| q.to_le_bytes().get(i).copied().unwrap_or(0)));
        match std {
            Standard::Ieee => ZConsts {
                poly: b.constant(
                    "sm4_xts_ieee_clmul_z",
                    64,
                    "XTS (IEEE) * x^(8nb) on zmm: vpclmulqdq factor 0x87 per lane",
                    &qword_lanes(0x87),
                ),
                gb: None,
            },
            Standard::Gb => {
                let ctl = |b: &mut B, nb: usize| {
                    let top = lanes(std::array::from_fn(|i| if i < nb { 15 - i as u8 } else { 0x80 }));
                    let rev = lanes(std::array::from_fn(|i| if i <= nb { (nb - i) as u8 } else { 0x80 }));
                    (
                        b.constant(
                            &format!("sm4_xts_gb_top{nb}_z"),
                            64,
                            &format!("vpshufb: bytes 15..{} of each lane to 0..{}", 16 - nb, nb - 1),
                            &top,
                        ),
                        b.constant(
                            &format!("sm4_xts_gb_rev{}_z", nb + 1),
                            64,
                            &format!("vpshufb: reverse bytes 0..{nb} of each lane"),
                            &rev,
                        ),
                    )
                };
                ZConsts {
                    poly: b.constant(
                        "sm4_xts_gb_clmul_z",
                        64,
                        "XTS (GB/T 17964) * x^(8nb) on zmm: vpclmulqdq factor 0x1c2 (0x87 reflected, << 1) per lane",
                        &qword_lanes(0x1c2),
                    ),
                    gb: Some(Z_SHIFTS.map(|nb| ctl(b, nb))),
                }
            }
        }
    }
}

/// Where the tweak of the next block waits between batches (in its memory form): the caller's 16 bytes at
/// `[tweak]` (the whole-block kernels), or two general-purpose registers, low and high qword (the unit kernels,
/// whose `iv` is read only and which have no memory of their own: all sixteen vector registers are busy in the
/// rounds).
#[derive(Clone, Copy)]
enum Home {
    Mem(Gpr),
    Regs(Gpr, Gpr),
}

impl Home {
    /// `d` (xmm) = the tweak.
    fn load(self, b: &mut B, d: V) {
        match self {
            Home::Mem(p) => {
                b.vmovdqu(d.x(), mem(p, 0));
            }
            Home::Regs(lo, hi) => {
                b.vmovq(d.x(), lo);
                b.vpinsrq(d.x(), d.x(), hi, 1);
            }
        }
    }

    /// The tweak = `s` (xmm).
    fn store(self, b: &mut B, s: V) {
        match self {
            Home::Mem(p) => {
                b.vmovdqu(mem(p, 0), s.x());
            }
            Home::Regs(lo, hi) => {
                b.vpextrq(lo, s.x(), 0);
                b.vpextrq(hi, s.x(), 1);
            }
        }
    }
}

struct Ctx {
    c: Consts,
    tw: Tw,
    rk: Gpr,
    dst: Gpr,
    src: Gpr,
    n: Gpr,
    home: Home,
}

/// Slot `s`: tweaks for its blocks (the chain steps past them), input `src ^ T` into `V(s)`, `T` into `dst`.
fn slot_in(b: &mut B, x: &Ctx, w: Width, s: usize, half: bool) {
    let v = V(s as u8);
    let off = 16 * (s * w.blocks()) as i32;
    if w == Width::X || half {
        let t = x.tw.out(b, OUT, CHAIN);
        b.vpxor(v.x(), t.x(), mem(x.src, off));
        b.vmovdqu(mem(x.dst, off), t.x());
        x.tw.step(b, CHAIN, CHAIN);
        return;
    }
    // A pair of tweaks in one ymm: T (low lane) and T * x (high lane).
    let pair = match x.tw.std {
        Standard::Ieee => {
            x.tw.step(b, OUT, CHAIN);
            b.vinserti128(CHAIN.y(), CHAIN.y(), OUT.x(), 0x01);
            CHAIN
        }
        Standard::Gb => {
            x.tw.out(b, OUT, CHAIN);
            x.tw.step(b, CHAIN, CHAIN);
            x.tw.out(b, OUT2, CHAIN);
            b.vinserti128(OUT.y(), OUT.y(), OUT2.x(), 0x01);
            OUT
        }
    };
    b.vpxor(v.y(), pair.y(), mem(x.src, off));
    b.vmovdqu(mem(x.dst, off), pair.y());
    match x.tw.std {
        Standard::Ieee => x.tw.step(b, CHAIN, OUT),
        Standard::Gb => x.tw.step(b, CHAIN, CHAIN),
    }
}

/// Slot `s` after the rounds: xor the tweak saved in `dst` and store.
fn slot_out(b: &mut B, x: &Ctx, w: Width, s: usize, half: bool) {
    let v = V(s as u8);
    let off = 16 * (s * w.blocks()) as i32;
    if w == Width::X || half {
        b.vpxor(v.x(), v.x(), mem(x.dst, off));
        b.vmovdqu(mem(x.dst, off), v.x());
    } else {
        b.vpxor(v.y(), v.y(), mem(x.dst, off));
        vstore(b, w, mem(x.dst, off), v);
    }
}

/// A batch's inputs on the first `ngroups` groups: the tweaks from the chain ([`CHAIN`] holds the first),
/// `src ^ T` into the slots, `T` parked in `dst`, and the tweak of the block after the batch stored to the home
/// (the full ymm batches of the GFNI kernels leave that to [`batch_out`]).
fn batch_in(b: &mut B, x: &Ctx, w: Width, fill: Fill, ngroups: usize) {
    let nblk = 4 * ngroups * w.blocks();
    b.comment(format_args!("Tweaks for {nblk} blocks, stepped in registers; inputs src ^ T, T parked in dst."));
    by_fill(b, x.n, nblk, fill, &|b, count| {
        if x.tw.fast.is_some() && w == Width::Y && count == Count::All {
            b.vinserti128(CHAIN.y(), CHAIN.y(), CHAIN.x(), 0x01);
            x.tw.fast_batch(b, x);
            return;
        }
        each_slot(b, w, 4 * ngroups, count, &mut |b, s, part| slot_in(b, x, w, s, part.half()));
        b.comment("The tweak of the block after the batch.");
        let t = x.tw.out(b, OUT, CHAIN);
        x.home.store(b, t);
    });
}

/// The cipher on the slots of a batch's first `ngroups` groups: byte-swap and transpose, 32 rounds, transpose
/// back and byte-swap (zmm: three groups, the words as loaded: no byte swap).
fn batch_core(b: &mut B, x: &Ctx, w: Width, ngroups: usize) {
    let groups = &groups(ngroups)[..];
    let loaded = words_as_loaded(&x.c, w);
    b.comment(if loaded {
        "Words as loaded (the zmm rounds' byte order), transposed."
    } else {
        "Big-endian words, transposed."
    });
    blocks_to_words(b, &x.c, w, groups);
    rounds(b, &x.c, w, groups, x.rk);
    b.comment(if loaded {
        "Output words X35, X34, X33, X32: transpose back."
    } else {
        "Output words X35, X34, X33, X32: transpose back, byte-swap."
    });
    words_to_blocks(b, &x.c, w, groups);
}

/// A batch's outputs on the first `ngroups` groups: xor the tweaks parked in `dst` and store. A full ymm batch
/// first stores the tweak after it, `T[0] * x^16`, to the home. Then the chain of the next block is loaded from
/// the home into [`CHAIN`] (the rounds used every register).
fn batch_out(b: &mut B, x: &Ctx, w: Width, fill: Fill, ngroups: usize) {
    b.comment("Xor the tweaks parked in dst.");
    by_fill(b, x.n, 4 * ngroups * w.blocks(), fill, &|b, count| {
        if x.tw.batched() && w == Width::Y && count == Count::All {
            b.comment("The tweak of the block after the batch: T[0] * x^16.");
            b.vmovdqu(OUT.y(), mem(x.dst, 0));
            x.tw.times_x16(b, OUT, OUT2, MASK);
            x.home.store(b, OUT);
        }
        each_slot(b, w, 4 * ngroups, count, &mut |b, s, part| slot_out(b, x, w, s, part.half()))
    });
    b.comment("The chain of the next block.");
    x.tw.load(b, x.home);
}

/// One batch of up to `8 * blocks` blocks; `fill` as in the batch modes, on one group or two ([`by_groups`]:
/// 1..4 blocks on xmm take one).
fn batch(b: &mut B, x: &Ctx, w: Width, fill: Fill) {
    by_groups(b, x.n, w, fill, &|b, fill, ngroups| {
        batch_in(b, x, w, fill, ngroups);
        batch_core(b, x, w, ngroups);
        batch_out(b, x, w, fill, ngroups);
    });
}

/// Between two full ymm batches: the outputs of this one and the inputs of the next, slot by slot, the next
/// tweaks being the parked ones times x^16 (GFNI: 4 ops per slot, 5 for GB; AES-NI AVX2 and VAES: 9, 10). `dst == src` works: a
/// slot of the next batch is read before its tweak is parked.
fn batch_step(b: &mut B, x: &Ctx) {
    b.comment("This batch's outputs and the next batch's inputs, with its tweaks T * x^16 from the parked ones.");
    for s in 0..8u8 {
        let v = V(s);
        let (t, c) = if s % 2 == 0 { (OUT, OUT2) } else { (MASK, CHAIN) };
        let off = 32 * s as i32;
        b.vmovdqu(t.y(), mem(x.dst, off));
        b.vpxor(v.y(), v.y(), t.y());
        b.vmovdqu(mem(x.dst, off), v.y());
        x.tw.times_x16(b, t, c, v);
        b.vpxor(v.y(), t.y(), mem(x.src, 256 + off));
        b.vmovdqu(mem(x.dst, 256 + off), t.y());
    }
}

// zmm kernels: the registers of the tweaks of two slots while a batch's tweaks are formed (EVEX only reaches
// them; no round uses them).
const ZPAIRS: [(V, V); 2] = [(V(24), V(25)), (V(26), V(27))];

/// The byte shifts of [`Tw::times_bytes_z`]: `* x^8` (a batch's tweaks from the slot two before), `* x^32` (the
/// tweak after a batch of 32 blocks) and `* x^48` (after a full batch).
const Z_SHIFTS: [usize; 3] = [1, 4, 6];

/// A full zmm batch: twelve slots of four blocks, three groups.
const Z_FULL: usize = 12;
/// The zmm batch of 32..47 blocks left after the full ones: eight slots, two groups.
const Z_TWO_GROUPS: usize = 8;

/// The inputs of a zmm batch of `slots` slots of four blocks (12: a full batch of 48 blocks; 8: 32 blocks):
/// `T[0..8]` stepped from the chain (the chain's `step`, 8 times, each tweak put into its lane with
/// `vinserti128` and `vinserti64x4`) into the tweak registers of slots 0 and 1, then slot `s` from slot `s - 2`
/// times x^8 ([`Tw::times_bytes_z`]), each xored with its source blocks and parked in `dst`. The chain is left
/// stepped; the tweak after the batch is stored by [`batch_out_z`].
fn batch_in_z(b: &mut B, x: &Ctx, slots: usize) {
    b.comment("T[0..8] from the chain into the tweak registers of slots 0 and 1 (lanes built in v0..v3).");
    tweaks_0_to_8(b, x);
    b.comment("Slot s: the tweaks of slot s - 2 times x^8; inputs src ^ T, T parked in dst.");
    for s in 0..slots {
        let (t, c) = ZPAIRS[s % 2];
        if s >= 2 {
            x.tw.times_bytes_z(b, t, c, 1);
        }
        let off = 64 * s as i32;
        b.vpxorq(slot_reg(s).z(), t.z(), mem(x.src, off));
        b.vmovdqu64(mem(x.dst, off), t.z());
    }
}

/// `T[0..8]` from the chain (its `step`, 7 times; each tweak put into its lane with `vinserti128` and
/// `vinserti64x4`, built in v0..v3) into the tweak registers of slots 0 and 1; the chain is left at `T[7]`.
fn tweaks_0_to_8(b: &mut B, x: &Ctx) {
    for k in 0..8usize {
        let t = x.tw.out(b, OUT, CHAIN);
        let (lo, hi) = (V(2 * (k / 4) as u8), V(2 * (k / 4) as u8 + 1));
        match k % 4 {
            0 => vmov(b, Width::X, lo, t),
            1 => {
                b.vinserti128(lo.y(), lo.y(), t.x(), 0x01);
            }
            2 => vmov(b, Width::X, hi, t),
            _ => {
                b.vinserti128(hi.y(), hi.y(), t.x(), 0x01);
                b.vinserti64x4(ZPAIRS[k / 4].0.z(), lo.z(), hi.y(), 0x01);
            }
        }
        if k < 7 {
            x.tw.step(b, CHAIN, CHAIN);
        }
    }
}

/// Between two full zmm batches: the outputs of this one and the inputs of the next, slot by slot, the next
/// tweaks being the parked ones times x^48 (4 ops per slot, 5 for GB). `dst == src` works: a slot of the next
/// batch is read before its tweak is parked.
fn batch_step_z(b: &mut B, x: &Ctx) {
    b.comment("This batch's outputs and the next batch's inputs, with its tweaks T * x^48 from the parked ones.");
    for s in 0..Z_FULL {
        let (t, c) = ZPAIRS[s % 2];
        let v = slot_reg(s);
        let off = 64 * s as i32;
        b.vmovdqu64(t.z(), mem(x.dst, off));
        b.vpxorq(v.z(), v.z(), t.z());
        b.vmovdqu64(mem(x.dst, off), v.z());
        x.tw.times_bytes_z(b, t, c, 6);
        b.vpxorq(v.z(), t.z(), mem(x.src, 768 + off));
        b.vmovdqu64(mem(x.dst, 768 + off), t.z());
    }
}

/// The outputs of the last zmm batch of `slots` slots: the tweak after it, `T[0] * x^(4 slots)`, to the home;
/// the parked tweaks xored into the outputs; the chain of the next block loaded from the home.
fn batch_out_z(b: &mut B, x: &Ctx, slots: usize) {
    b.comment(format_args!("The tweak of the block after the batch: T[0] * x^{}.", 4 * slots));
    b.vmovdqu64(OUT.z(), mem(x.dst, 0));
    x.tw.times_bytes_z(b, OUT, OUT2, slots / 2);
    x.home.store(b, OUT);
    b.comment("Xor the tweaks parked in dst.");
    for s in 0..slots {
        let v = slot_reg(s);
        let off = 64 * s as i32;
        b.vpxorq(v.z(), v.z(), mem(x.dst, off));
        b.vmovdqu64(mem(x.dst, off), v.z());
    }
    b.comment("The chain of the next block.");
    x.tw.load(b, x.home);
}

/// The zmm kernel for a fixed count: full 48-block batches back to back in a counted loop, 32 of the blocks
/// left as one batch of two zmm groups ([`two_groups_z`]), then the rest as the base set's ymm kernel does it
/// ([`ymm_fixed`]).
fn zmm_fixed(b: &mut B, x: &Ctx, count: usize) {
    let (full, mut rest) = (count / 48, count % 48);
    FullBatches::zmm(x).counted(b, x, full, rest > 0);
    if rest >= 32 {
        two_groups_z(b, x);
        rest -= 32;
        if rest > 0 {
            b.add(x.src, 512);
            b.add(x.dst, 512);
        }
    }
    if rest > 0 {
        ymm_fixed(b, x, rest);
    }
}

/// One zmm batch of 32 blocks on two groups (what is left after the full batches, when 32..47 blocks are):
/// half the rounds' work of two ymm batches of 16.
fn two_groups_z(b: &mut B, x: &Ctx) {
    b.comment("32 blocks: one zmm batch of two groups.");
    batch_in_z(b, x, Z_TWO_GROUPS);
    batch_core(b, x, Width::Z, 2);
    batch_out_z(b, x, Z_TWO_GROUPS);
}

/// Full batches of one width back to back: the first batch's inputs from the chain, the rounds, the step
/// between two batches (the outputs of one and the inputs of the next in one pass over the slots) and the
/// last batch's outputs.
struct FullBatches<'a> {
    /// Blocks per batch.
    blocks: usize,
    /// Suffix of the loop's labels (a zmm kernel has the ymm loop too).
    tag: &'static str,
    first: Box<dyn Fn(&mut B) + 'a>,
    core: Box<dyn Fn(&mut B) + 'a>,
    step: Box<dyn Fn(&mut B) + 'a>,
    out: Box<dyn Fn(&mut B) + 'a>,
}

impl<'a> FullBatches<'a> {
    /// 16 blocks in two ymm groups ([`batch_in`], [`batch_step`], [`batch_out`]), the first and last batch
    /// filled as `fill` says.
    fn ymm(x: &'a Ctx, fill: Fill) -> FullBatches<'a> {
        FullBatches {
            blocks: 16,
            tag: "",
            first: Box::new(move |b| batch_in(b, x, Width::Y, fill, 2)),
            core: Box::new(move |b| batch_core(b, x, Width::Y, 2)),
            step: Box::new(move |b| batch_step(b, x)),
            out: Box::new(move |b| batch_out(b, x, Width::Y, fill, 2)),
        }
    }

    /// 48 blocks in three zmm groups ([`batch_in_z`], [`batch_step_z`], [`batch_out_z`]).
    fn zmm(x: &'a Ctx) -> FullBatches<'a> {
        FullBatches {
            blocks: 48,
            tag: "_z",
            first: Box::new(move |b| batch_in_z(b, x, Z_FULL)),
            core: Box::new(move |b| batch_core(b, x, Width::Z, 3)),
            step: Box::new(move |b| batch_step_z(b, x)),
            out: Box::new(move |b| batch_out_z(b, x, Z_FULL)),
        }
    }

    /// From the first batch's inputs on (formed by the caller), batches back to back while `n` holds two
    /// batches' blocks or more, then the last one's outputs; `n`, `src` and `dst` are left at that last batch.
    fn chained(&self, b: &mut B, x: &Ctx) {
        let (n, src, dst) = (x.n, x.src, x.dst);
        let bytes = 16 * self.blocks as i32;
        let last = b.label(&format!("last{}", self.tag));
        let core = b.label(&format!("core{}", self.tag));
        b.align(4);
        b.bind(&core);
        (self.core)(b);
        b.cmp(n, 2 * self.blocks as i32);
        b.jb(&last);
        (self.step)(b);
        b.sub(n, self.blocks as i32);
        b.add(src, bytes);
        b.add(dst, bytes);
        b.jmp(&core);
        b.blank();
        b.bind(&last);
        (self.out)(b);
    }

    /// `full` batches in a counted loop; `src` and `dst` past them when `more` blocks follow.
    fn counted(&self, b: &mut B, x: &Ctx, full: usize, more: bool) {
        let (n, src, dst) = (x.n, x.src, x.dst);
        if full == 0 {
            return;
        }
        let bytes = 16 * self.blocks as i32;
        let core = b.label(&format!("core{}", self.tag));
        let last = b.label(&format!("last{}", self.tag));
        (self.first)(b);
        if full > 1 {
            mov_count(b, n, full - 1);
        }
        b.align(4);
        b.bind(&core);
        (self.core)(b);
        if full > 1 {
            b.test(n, n);
            b.jz(&last);
            (self.step)(b);
            b.sub(n, 1);
            b.add(src, bytes);
            b.add(dst, bytes);
            b.jmp(&core);
        }
        b.bind(&last);
        (self.out)(b);
        if more {
            b.add(src, bytes);
            b.add(dst, bytes);
        }
    }
}

/// The zmm kernel for `nblocks`: full 48-block batches in a row (the outputs of one and the inputs of the next
/// in one pass over the slots), then (GFNI) the 17..47 blocks left as one zmm batch of two groups or three, the
/// last slot under an opmask ([`partial_z`]), or 1..16 as one ymm or xmm batch: one chain of rounds for what
/// the full batches leave. (VAES, whose zmm batches of fewer groups measured no faster than ymm: 32 of them as
/// one batch of two groups ([`two_groups_z`]) where there are as many, the rest by the ymm loop
/// ([`ymm_loop`]).) Each leaves `src + 16 * n` at the end as the other loops do.
fn zmm_loop(b: &mut B, x: &Ctx) {
    let (n, src, dst) = (x.n, x.src, x.dst);
    let below = b.label("below_z");
    b.cmp(n, 48);
    b.jb(&below);
    batch_in_z(b, x, Z_FULL);
    FullBatches::zmm(x).chained(b, x);
    b.sub(n, 48);
    b.add(src, 768);
    b.add(dst, 768);
    b.blank();
    b.bind(&below);
    if x.c.sbox != Sbox::Gfni {
        // The VAES set: 32 of the blocks left as one zmm batch of two groups, the rest on ymm and xmm.
        let below32 = b.label("below32_z");
        b.cmp(n, 32);
        b.jb(&below32);
        two_groups_z(b, x);
        b.sub(n, 32);
        b.add(src, 512);
        b.add(dst, 512);
        b.bind(&below32);
        b.comment("0..31 blocks: the ymm and xmm batches.");
        ymm_loop(b, x, true);
        return;
    }
    let (ymm, end) = (b.label("below17_z"), b.label("end_z"));
    b.cmp(n, Z_GROUP as i32);
    b.jbe(&ymm);
    let three = b.label("three_groups_z");
    b.comment("17..47 blocks: one zmm batch of two groups (up to 32) or three.");
    b.cmp(n, 32);
    b.ja(&three);
    partial_z(b, x, 2);
    b.jmp(&end);
    b.bind(&three);
    partial_z(b, x, 3);
    b.jmp(&end);
    b.bind(&ymm);
    b.comment("0..16 blocks: one ymm batch, or one xmm batch of up to 8.");
    let small = b.label("small");
    b.test(n, n);
    b.jz(&end);
    b.cmp(n, 8);
    b.jbe(&small);
    batch(b, x, Width::Y, Fill::Both);
    b.jmp(&end);
    b.bind(&small);
    batch(b, x, Width::X, Fill::Partial);
    b.bind(&end);
}

/// One zmm batch of `ngroups` groups holding the `n` (17..47) blocks left: the tweaks formed as a full batch's
/// ([`batch_in_z`]), the slots the count fills partly loaded and stored under [`SLOT_MASK`], those past it
/// skipped; the tweak after the batch is the last block's, parked in `dst`, times x. `n`, `src` and `dst` stay.
fn partial_z(b: &mut B, x: &Ctx, ngroups: usize) {
    let slots = 4 * ngroups;
    let n = x.n;
    b.comment("T[0..8] from the chain into the tweak registers of slots 0 and 1.");
    tweaks_0_to_8(b, x);
    b.comment("Slot s: the tweaks of slot s - 2 times x^8; inputs src ^ T, T parked in dst (up to the last block).");
    each_slot(b, Width::Z, slots, Count::Reg(n), &mut |b, s, part| {
        let (t, c) = ZPAIRS[s % 2];
        if s >= 2 {
            x.tw.times_bytes_z(b, t, c, 1);
        }
        let (v, off) = (slot_reg(s), 64 * s as i32);
        if part == Slot::Masked {
            b.vmovdqu8(v.z().maskz(SLOT_MASK), mem(x.src, off));
            b.vpxorq(v.z(), v.z(), t.z());
            b.vmovdqu8(mem(x.dst, off).mask(SLOT_MASK), t.z());
        } else {
            b.vpxorq(v.z(), t.z(), mem(x.src, off));
            b.vmovdqu64(mem(x.dst, off), t.z());
        }
    });
    batch_core(b, x, Width::Z, ngroups);
    b.comment("The tweak of the block after the batch: the last block's (parked in dst) times x.");
    b.mov(RAX, n);
    b.shl(RAX, 4);
    b.lea(RAX, mem_index(x.dst, RAX, 1, -16));
    x.tw.load(b, Home::Mem(RAX));
    x.tw.step(b, CHAIN, CHAIN);
    let t = x.tw.out(b, OUT, CHAIN);
    x.home.store(b, t);
    b.comment("Xor the tweaks parked in dst.");
    let parked = ZPAIRS[0].0;
    each_slot(b, Width::Z, slots, Count::Reg(n), &mut |b, s, part| {
        let (v, off) = (slot_reg(s), 64 * s as i32);
        if part == Slot::Masked {
            b.vmovdqu8(parked.z().maskz(SLOT_MASK), mem(x.dst, off));
            b.vpxorq(v.z(), v.z(), parked.z());
            b.vmovdqu8(mem(x.dst, off).mask(SLOT_MASK), v.z());
        } else {
            b.vpxorq(v.z(), v.z(), mem(x.dst, off));
            b.vmovdqu64(mem(x.dst, off), v.z());
        }
    });
    b.comment("The chain of the next block.");
    x.tw.load(b, x.home);
}

/// `asmgen_sm4_xts_<enc|dec>_<ieee|gb>_<set>(rk, dst, src, nblocks, tweak)`.
pub fn xts(enc: bool, std: Standard, set: Set, abi: Abi) -> Result<Function<X86_64>, GenError> {
    xts_of(enc, std, set, abi, Blocks::Arg)
}

/// [`xts`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`: the JIT's kernels for one sector
/// size, e.g. 256 blocks for 4096-byte sectors).
pub fn xts_of(enc: bool, std: Standard, set: Set, abi: Abi, blocks: Blocks) -> Result<Function<X86_64>, GenError> {
    let dir = if enc { "enc" } else { "dec" };
    let w = set.width();
    let name = format!("asmgen_sm4_xts_{dir}_{}_{}{}", std.name(), set.name(), blocks.suffix());
    let mut b = B::new(&name, abi, &features(set));
    crate::doc_role(&mut b, Role::xts(!enc, std == Standard::Gb));
    b.doc(format_args!("{} blocks in flight, tweaks computed in registers; dst may equal src.", w.per_batch()));
    if let Some(d) = blocks.doc() {
        b.doc(&d);
    }
    let [rk, dst, src, n, tweak] = role::params(&mut b, Role::xts(!enc, std == Standard::Gb));
    let c = Consts::new(&mut b, set.sbox());
    let tw = Tw::new(&mut b, std, set);
    let x = Ctx { c, tw, rk, dst, src, n, home: Home::Mem(tweak) };
    x.c.load_tables(&mut b, w);
    x.c.map_keys_z(&mut b, w, x.rk);
    x.tw.load(&mut b, x.home);
    whole_blocks(&mut b, &x, w, Trips::new(blocks, n));
    x.c.wipe_keys_z(&mut b);
    if w != Width::X {
        b.vzeroupper();
    }
    b.finish()
}

/// The features of a set's XTS kernels: the set's, and `vpclmulqdq` for the tweaks of the next batch (on ymm in
/// the GFNI set, on zmm in the AVX-512 sets: every AVX-512 CPU with GFNI or VAES has it).
fn features(set: Set) -> Vec<X86Feature> {
    let mut features = set.features();
    if set == Set::Gfni || set.width() == Width::Z {
        features.push(X86Feature::Vpclmulqdq);
    }
    features
}

/// The whole-block loop of width `w` over `trips` blocks, the chain of the first block's tweak in [`CHAIN`]
/// (and in it, and in the home, the chain of the block after the last when done: every batch stores the next
/// tweak to the home and loads it back after its rounds). With a count in a register (`nblocks`) the loops leave `src`
/// and `dst` at their last batch and `n` holding its block count, so `src + 16 * n` is the end either way.
fn whole_blocks(b: &mut B, x: &Ctx, w: Width, trips: Trips<Gpr>) {
    match w {
        Width::X => batch_loop(b, trips, (x.src, x.dst), (w, false), &|b, w, fill| batch(b, x, w, fill)),
        Width::Y => trips.either(b, |b, _, count| ymm_fixed(b, x, count), |b, _| ymm_loop(b, x, false)),
        Width::Z => trips.either(b, |b, _, count| zmm_fixed(b, x, count), |b, _| zmm_loop(b, x)),
    }
}

/// The ymm kernel for a fixed count: full batches back to back in a counted loop (the next batch's tweaks
/// computed under this batch's rounds), then the rest as one batch.
fn ymm_fixed(b: &mut B, x: &Ctx, count: usize) {
    // Full batches back to back, a counted loop; then the rest as one batch.
    let (full, rest) = (count / 16, count % 16);
    FullBatches::ymm(x, Fill::Known(16)).counted(b, x, full, rest > 0);
    if rest > 0 {
        b.comment(format_args!("The last {rest} blocks."));
        batch(b, x, if rest <= 8 { Width::X } else { Width::Y }, Fill::Known(rest));
    }
}

/// The ymm kernel for `nblocks`: batches in a row (the outputs of one and the inputs of the next in one pass
/// over the slots), 1..8 blocks as one xmm batch. As a zmm kernel's tail (`tail`: fewer than 32 blocks) the
/// batches are not chained: one or two ymm batches and the xmm batch.
fn ymm_loop(b: &mut B, x: &Ctx, tail: bool) {
    let (n, src, dst) = (x.n, x.src, x.dst);
    let done = b.label("done");
    let lp = b.label("loop");
    b.test(n, n);
    b.jz(&done);
    let small = b.label("small");
    b.cmp(n, 8);
    b.jbe(&small);
    b.bind(&lp);
    batch_in(b, x, Width::Y, Fill::Both, 2);
    if tail {
        batch_core(b, x, Width::Y, 2);
        batch_out(b, x, Width::Y, Fill::Both, 2);
    } else {
        // Batches in a row: the outputs of one and the inputs of the next in one pass over the slots.
        FullBatches::ymm(x, Fill::Both).chained(b, x);
    }
    advance(b, n, src, dst, 16, &done);
    b.cmp(n, 8);
    b.ja(&lp);
    b.blank();
    b.bind(&small);
    b.comment("1..8 blocks: one xmm batch.");
    batch(b, x, Width::X, Fill::Partial);
    b.bind(&done);
}

/// The XTS kernels of one kernel set (both directions, both standards): for `blocks` blocks, and with
/// `nblocks` ([`Blocks::Arg`]) the unit kernels after them.
pub fn kernels(set: Set, abi: Abi, blocks: Blocks) -> Kernels<X86_64> {
    kernels_only(set, abi, blocks, &|_| true)
}

/// [`kernels`] without those whose role `want` rejects, which are never built.
pub fn kernels_only(set: Set, abi: Abi, blocks: Blocks, want: &dyn Fn(Role) -> bool) -> Kernels<X86_64> {
    let mut v = Vec::new();
    for std in [Standard::Ieee, Standard::Gb] {
        for enc in [true, false] {
            let role = Role::xts(!enc, std == Standard::Gb);
            if want(role) {
                v.push(Kernel::new(role, xts_of(enc, std, set, abi, blocks)?));
            }
        }
    }
    if blocks == Blocks::Arg {
        for std in [Standard::Ieee, Standard::Gb] {
            for enc in [true, false] {
                let role = Role::xts_unit(!enc, std == Standard::Gb);
                if want(role) {
                    v.push(Kernel::new(role, xts_unit(enc, std, set, abi)?));
                }
            }
        }
    }
    Ok(v)
}

/// `asmgen_sm4_xts_unit_<enc|dec>_<ieee|gb>_<set>(rk, rk_tweak, dst, src, len, iv)`: one data unit of `len`
/// bytes. Nothing below 16 bytes. Otherwise `T[0] = E(rk_tweak, iv)` (one block, `encrypt_one`) goes to
/// the home (two general-purpose registers), the whole-block loop runs over `m = len / 16` blocks, or `m - 1`
/// with a tail of `d = len % 16` bytes, and `steal` finishes the last block and the tail.
pub fn xts_unit(enc: bool, std: Standard, set: Set, abi: Abi) -> Result<Function<X86_64>, GenError> {
    let dir = if enc { "enc" } else { "dec" };
    let w = set.width();
    let name = format!("asmgen_sm4_xts_unit_{dir}_{}_{}", std.name(), set.name());
    let mut b = B::new(&name, abi, &features(set));
    crate::doc_role(&mut b, Role::xts_unit(!enc, std == Standard::Gb));
    b.doc("Whole blocks by the streaming XTS kernel's loop, the tail by 16-byte loads and stores and vpshufb.");
    let [rk, rkt, dst, src, len, iv] = role::params(&mut b, Role::xts_unit(!enc, std == Standard::Gb));
    let c = Consts::new(&mut b, set.sbox());
    let tw = Tw::new(&mut b, std, set);
    let table = steal_table(&mut b);
    let x = Ctx { c, tw, rk, dst, src, n: R10, home: Home::Regs(rkt, iv) };
    let done = b.label("done");
    b.comment("Below 16 bytes nothing is read or written.");
    b.cmp(len, 16);
    b.jb(&done);
    x.c.load_tables(&mut b, w);
    x.c.map_keys_z(&mut b, w, x.rk);
    b.comment("T[0] = E(rk_tweak, iv): the chain; between batches the tweak waits in rk_tweak (low qword) and iv");
    b.comment("(high qword).");
    b.vmovdqu(V(4).x(), mem(iv, 0));
    encrypt_one(&mut b, &x.c, rkt, V(4));
    x.tw.chain_from(&mut b, V(4));
    b.comment("n = len / 16 whole blocks, one fewer with a tail of d = len % 16 bytes (len keeps d).");
    let whole = b.label("whole");
    b.mov(x.n, len);
    b.shr(x.n, 4);
    b.and(len, 15);
    b.jz(&whole);
    b.sub(x.n, 1);
    b.bind(&whole);
    whole_blocks(&mut b, &x, w, Trips::new(Blocks::Arg, x.n));
    b.test(len, len);
    b.jz(&done);
    b.comment("src and dst to block m - 1: the loop ended at src + 16 * n.");
    b.shl(x.n, 4);
    b.add(src, x.n);
    b.add(dst, x.n);
    steal(&mut b, &x, enc, len, &table);
    b.bind(&done);
    x.c.wipe_keys_z(&mut b);
    if w != Width::X {
        b.vzeroupper();
    }
    b.finish()
}

/// The byte shuffles of [`steal`]: 16 bytes at offset `d` shift a register `16 - d` bytes up (its first `d`
/// bytes to the top), 16 bytes at `32 - d` shift one `16 - d` bytes down (its top `d` bytes to the bottom),
/// zeroing the rest (`vpshufb` controls `0x80`).
fn steal_table(b: &mut B) -> Label {
    let bytes: Vec<u8> = (0..48u8).map(|k| if (16..32).contains(&k) { k - 16 } else { 0x80 }).collect();
    b.constant("sm4_xts_steal", 16, "XTS ciphertext stealing: vpshufb byte shifts by 16 - d (d = 1..15)", &bytes)
}

/// Ciphertext stealing (IEEE 1619 5.3.2, 5.4.2): `src` and `dst` at block `m - 1`, the `d`-byte tail after it
/// (`d` = 1..15 in `d`), the chain of `T[m-1]` in [`CHAIN`]. Encryption: `CC = E(P[m-1] ^ T[m-1]) ^ T[m-1]`, `C[m]` = the
/// first `d` bytes of `CC`, `C[m-1] = E(PP ^ T[m]) ^ T[m]` with `PP = P[m] || CC[d..16]`. Decryption is the same
/// with the tweaks swapped (and `rk_dec`: [`encrypt_one`] with the reversed schedule decrypts). Whole 16-byte
/// loads and stores only: the unit's last 16 bytes (`[src + d]`) give `P[m]`, and `C[m]` is stored as the top
/// of `[dst + d]` before `C[m-1]` overwrites the rest; every load is done before the first store (`dst` may be
/// `src`). Data, tweaks and keys reach no branch or address.
fn steal(b: &mut B, x: &Ctx, enc: bool, d: Gpr, table: &Label) {
    let (t_prev, t_last, blk, win) = (V(4), V(5), V(6), V(7));
    let [up, lo, _] = TMP;
    b.comment("T[m-1] and T[m] = T[m-1] * x.");
    let t = x.tw.out(b, OUT, CHAIN);
    vmov(b, Width::X, t_prev, t);
    x.tw.step(b, CHAIN, CHAIN);
    let t = x.tw.out(b, OUT, CHAIN);
    vmov(b, Width::X, t_last, t);
    let (first, second) = if enc { (t_prev, t_last) } else { (t_last, t_prev) };
    b.comment(format_args!("CC = the block before the tail with T[{}].", if enc { "m-1" } else { "m" }));
    b.vpxor(blk.x(), first.x(), mem(x.src, 0));
    encrypt_one(b, &x.c, x.rk, blk);
    b.vpxor(blk.x(), blk.x(), first.x());
    b.comment("The unit's last 16 bytes (the tail on top); the shuffles at table + d and table + 32 - d.");
    b.vmovdqu(win.x(), mem_index(x.src, d, 1, 0));
    b.lea(RAX, rip(table));
    b.lea(R11, mem(RAX, 32));
    b.sub(R11, d);
    b.vpshufb(up.x(), blk.x(), mem_index(RAX, d, 1, 0));
    b.vpshufb(win.x(), win.x(), mem(R11, 0));
    b.vpshufb(lo.x(), up.x(), mem(R11, 0));
    b.comment("The tail's output: the first d bytes of CC, the top of the unit's last 16 bytes.");
    b.vmovdqu(mem_index(x.dst, d, 1, 0), up.x());
    b.comment("PP = the tail || CC[d..16], with the other tweak; its output is block m - 1.");
    b.vpxor(blk.x(), blk.x(), lo.x());
    b.vpxor(blk.x(), blk.x(), win.x());
    b.vpxor(blk.x(), blk.x(), second.x());
    encrypt_one(b, &x.c, x.rk, blk);
    b.vpxor(blk.x(), blk.x(), second.x());
    b.vmovdqu(mem(x.dst, 0), blk.x());
}
