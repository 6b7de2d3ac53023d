//! The constants of the SM4 kernels: the S-box's affine maps as `vpshufb` nibble tables (or GFNI matrices),
//! the byte shuffles of the linear layer, FK and CK, as read-only constants of the function being built.

use super::set::Sbox;
use super::width::{vaffine, Width, B, V};
use crate::sm4::{gfni, sbox_affine, CK, FK};
use asmgen::isa::x86_64::{mem, rip, Gpr, X86_64};
use asmgen::{Label, StackFrame};
use std::cell::OnceCell;

/// Pre-affine nibble tables (low, high), post-affine nibble tables (low, high). GFNI: the matrices of
/// [`gfni::GfniRound`](crate::sm4::gfni::GfniRound) `rot0`, `rot8`, `rot24` and `key` (= `enter`).
pub const PRE_LO: V = V(12);
/// See [`PRE_LO`].
pub const PRE_HI: V = V(13);
/// See [`PRE_LO`].
pub const POST_LO: V = V(14);
/// See [`PRE_LO`].
pub const POST_HI: V = V(15);
/// zmm kernels: the dword byte swap ([`Consts::bswap32`]) in every 128-bit lane (EVEX only reaches it).
pub const ZBSWAP: V = V(16);
/// zmm kernels: the GFNI matrix `M1^-1` (leaving the domain) in every qword.
pub const ZLEAVE: V = V(17);
/// zmm VAES kernels: `0x0f` in every byte (the register [`ZLEAVE`] is in the GFNI kernels).
pub const ZNIB: V = V(17);
/// zmm VAES kernels: the `vpshufb` control undoing ShiftRows in every 128-bit lane (free in the GFNI kernels).
pub const ZISR: V = V(18);
/// zmm VAES kernels: zero, the `vaesenclast` round key.
pub const ZZERO: V = V(23);

/// The zmm CTR kernels' counter increments: 48 entries of `(k as u64, 0)`, k = 0..47, 768 bytes (slot `s` of a
/// zmm batch reads the 64 bytes at `64 * s`).
pub fn ctr_add_z(b: &mut B) -> Label {
    let bytes: Vec<u8> = (0..48u64).flat_map(|k| k.to_le_bytes().into_iter().chain([0; 8])).collect();
    b.constant("sm4_ctr_add48", 64, "counter increments k = 0..47 (low qword)", &bytes)
}

/// The offsets from a zmm batch's first counter block of the blocks whose words its transposed registers hold:
/// dword `d` of lane `l` of group `g` is block `16g + 4d + l` (where
/// [`words_to_blocks`](super::cipher::words_to_blocks) puts it), one constant per group. The CTR and GCM kernels
/// add them to the counter's low word.
pub fn counter_offsets_z(b: &mut B) -> [Label; 3] {
    std::array::from_fn(|g| {
        let dw: Vec<u8> = (0..16u32).flat_map(|k| (16 * g as u32 + 4 * (k % 4) + k / 4).to_le_bytes()).collect();
        b.constant(&format!("sm4_ctr_offsets_z{g}"), 64, &format!("counter offsets, zmm group {g}"), &dw)
    })
}

/// The bytes of the constants every S-box strategy shares: the counter increments k = 0..15 (as 128-bit
/// little-endian lanes), FK and CK (little-endian words).
fn counter_and_key_bytes() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let ctr_add = (0..16u64).flat_map(|k| k.to_le_bytes().into_iter().chain([0; 8])).collect();
    let fk = FK.iter().flat_map(|w| w.to_le_bytes()).collect();
    let ck = CK.iter().flat_map(|w| w.to_le_bytes()).collect();
    (ctr_add, fk, ck)
}

/// Twice a 16-byte pattern: every vector constant is 32 bytes so ymm code can use it as a memory operand.
pub(super) fn twice(x: [u8; 16]) -> [u8; 32] {
    std::array::from_fn(|i| x[i % 16])
}

/// `vpshufb` control for a byte permutation given as `out[i] = in[p(i)]`.
pub(super) fn perm(p: impl Fn(usize) -> usize) -> [u8; 16] {
    std::array::from_fn(|i| p(i) as u8)
}

/// The AES ShiftRows source index: `aesenclast` output byte `i` is S-box(input byte `SR[i]`).
fn shift_rows(i: usize) -> usize {
    let (c, r) = (i / 4, i % 4);
    4 * ((c + r) % 4) + r
}

/// Control undoing ShiftRows and then rotating each dword left by `8*n` bits.
fn inv_shift_rows_rol(n: usize) -> [u8; 16] {
    let isr = |j: usize| (0..16).find(|&i| shift_rows(i) == j).expect("permutation");
    // rol(w, 8n) on a little-endian dword: byte m of the result is byte (m - n) mod 4 of the input.
    perm(|i| isr(4 * (i / 4) + (i % 4 + 4 - n) % 4))
}

/// The GFNI constants (matrix qwords, repeated to 32 bytes) and the immediates.
pub struct GfniConsts {
    /// The maps (matrices and constants).
    pub maps: gfni::GfniRound,
    /// `enter` (`M1`, no constant: the state into the domain).
    pub enter: Label,
    /// `leave` (`M1^-1`).
    pub leave: Label,
    /// `vpshufb` controls rotating each dword left by 8, 16, 24.
    pub rol: [Label; 3],
}

/// The key schedules' `CK` table: `ck` as 32 little-endian words, then four zero words, so that a round may
/// read 16 bytes at the next round's word (the last round's read, whose value goes unused, stays inside).
fn key_ck_table(ck: [u32; 32]) -> Vec<u8> {
    ck.iter().chain(&[0; 4]).flat_map(|w| w.to_le_bytes()).collect()
}

/// The AES-NI key schedule's own constants: its words are kept in the pre-affine map's domain `Y = M1·K`, as
/// [`rounds_one`](super::rounds_one)'s are, with `L'` split as in [`gfni::GfniKeyRound`].
pub struct AesKeyConsts {
    /// `H0`, `H8`, `H16`, `H24` as nibble tables (low, constant included; high) of the `aesenclast` output `y`:
    /// `Hk(y) = M1·Rk·(M2·y ^ c2)`, `Rk` the byte-wise maps of [`gfni::key_linear_maps`], so that `M1·L'(B)` is
    /// `Hk(y)` undone ShiftRows and rotated by `k`, summed.
    pub h: [(Label, Label); 4],
    /// `M1` (no constant), into the domain.
    pub enter: (Label, Label),
    /// `M1^-1`, out of the domain.
    pub leave: (Label, Label),
    /// `vpshufb` applying ShiftRows (the inverse of [`Consts::isr_rol`]`[0]`).
    pub shift_rows: Label,
    /// `CK` in the domain, then four zero words ([`gfni::key_ck`]: the S-box's pre-affine map is GFNI's).
    pub ck: Label,
}

impl AesKeyConsts {
    /// Registers the AES-NI key schedule's constants with `b`.
    pub fn new(b: &mut B) -> AesKeyConsts {
        let (pre, post) = sbox_affine();
        let m1 = pre.m;
        let mut n = 0;
        let h = gfni::key_linear_maps().map(|r| {
            let m = m1.mul(&r);
            let (lo, hi) = crate::sm4::Affine { m: m.mul(&post.m), c: m.apply(post.c) }.nibble_tables();
            let k = 8 * n;
            n += 1;
            let what = format!("key schedule: M1*R{k}*(M2*y ^ c2), the term of L' rotated by {k}");
            (
                b.constant(&format!("sm4_key_h{k}_lo"), 16, &format!("{what} (low nibble, constant included)"), &lo),
                b.constant(&format!("sm4_key_h{k}_hi"), 16, &format!("{what} (high nibble)"), &hi),
            )
        });
        let tables = |b: &mut B, name: &str, what: &str, m: crate::sm4::Matrix| {
            let (lo, hi) = crate::sm4::Affine { m, c: 0 }.nibble_tables();
            (
                b.constant(&format!("{name}_lo"), 32, &format!("{what} (low nibble)"), &twice(lo)),
                b.constant(&format!("{name}_hi"), 32, &format!("{what} (high nibble)"), &twice(hi)),
            )
        };
        let enter = tables(b, "sm4_m1", "M1", m1);
        let leave = tables(b, "sm4_m1_inv", "M1^-1", gfni::round().leave);
        let shift_rows = b.constant("sm4_sr", 16, "vpshufb: ShiftRows", &perm(shift_rows));
        let ck = domain_ck(b);
        AesKeyConsts { h, enter, leave, shift_rows, ck }
    }
}

/// `CK` in the key schedules' domain ([`gfni::key_ck`]), then four zero words, 144 bytes.
fn domain_ck(b: &mut B) -> Label {
    b.constant(
        "sm4_key_ck_m1",
        16,
        "M1*CK[i] ^ c1 for i = 0..32, then 16 zero bytes (CK in the key schedule's domain)",
        &key_ck_table(gfni::key_ck()),
    )
}

/// The GFNI key schedule's own constants ([`gfni::key_round`], [`gfni::key_ck`]).
pub struct GfniKeyConsts {
    /// The matrices of the terms rotated by 0, 8, 16 and 24 bits, and their affine constants.
    pub rot: [(Label, u8); 4],
    /// `CK` mapped into the domain, then four zero words, 144 bytes.
    pub ck: Label,
}

impl GfniKeyConsts {
    /// Registers the GFNI key schedule's constants with `b`.
    pub fn new(b: &mut B) -> GfniKeyConsts {
        let r = gfni::key_round();
        let terms =
            [(0, r.rot0, "M1*S"), (8, r.rot8, "M1*P5*S"), (16, r.rot16, "M1*(Q3+P7)*S"), (24, r.rot24, "M1*Q1*S")];
        let rot = terms.map(|(n, a, what)| {
            let bytes = gfni::qword(&a.m).to_le_bytes().repeat(2);
            let what = format!("GFNI matrix {what} (key schedule: the term of L' rotated by {n})");
            (b.constant(&format!("sm4_gfni_key_rot{n}"), 16, &what, &bytes), a.c)
        });
        let ck = domain_ck(b);
        GfniKeyConsts { rot, ck }
    }
}

/// The read-only constants of the SM4 listing, registered in one function.
pub struct Consts {
    /// The S-box strategy of the kernel.
    pub sbox: Sbox,
    /// GFNI's constants (`Sbox::Gfni` only).
    pub gfni: Option<GfniConsts>,
    /// The matrices loaded into [`PRE_LO`]..[`POST_HI`] (GFNI).
    tables_gfni: Vec<Label>,
    /// Pre-affine tables.
    pub pre: (Label, Label),
    /// Post-affine tables.
    pub post: (Label, Label),
    /// `0x0f` bytes.
    pub nibble: Label,
    /// Zero (the `aesenclast` round key).
    pub zero: Label,
    /// Inverse ShiftRows composed with dword rotations by 0, 8, 16 and 24 bits.
    pub isr_rol: [Label; 4],
    /// Byte swap of each dword.
    pub bswap32: Label,
    /// Counter increments: 16 entries of `(k as u64, 0)`.
    pub ctr_add: Label,
    /// FK as four dwords.
    pub fk: Label,
    /// CK as 32 dwords.
    pub ck: Label,
    /// zmm GFNI kernels: the stack frame holding the 32 round keys mapped into the GFNI domain
    /// ([`Consts::map_keys_z`]), which the zmm rounds read with one `vpbroadcastd` each.
    keys_z: OnceCell<StackFrame<X86_64>>,
}

impl Consts {
    /// Registers the constants of an `sbox` kernel with `b`.
    pub fn new(b: &mut B, sbox: Sbox) -> Consts {
        if sbox == Sbox::Gfni {
            return Consts::new_gfni(b);
        }
        let (pre, post) = sbox_affine();
        let (plo, phi) = pre.nibble_tables();
        let (qlo, qhi) = post.nibble_tables();
        let names = ["sm4_isr", "sm4_isr_rol8", "sm4_isr_rol16", "sm4_isr_rol24"];
        let isr_rol = std::array::from_fn(|n| {
            b.constant(
                names[n],
                32,
                &format!("vpshufb: undo ShiftRows, then rotate each dword left by {}", 8 * n),
                &twice(inv_shift_rows_rol(n)),
            )
        });
        let (ctr_add, fk, ck) = counter_and_key_bytes();
        Consts {
            sbox,
            gfni: None,
            tables_gfni: Vec::new(),
            pre: (
                b.constant("sm4_pre_lo", 32, "S-box pre-affine M1*x ^ c1 (low nibble, c1 included)", &twice(plo)),
                b.constant("sm4_pre_hi", 32, "S-box pre-affine M1*x (high nibble)", &twice(phi)),
            ),
            post: (
                b.constant("sm4_post_lo", 32, "S-box post-affine M2*y ^ c2 (low nibble, c2 included)", &twice(qlo)),
                b.constant("sm4_post_hi", 32, "S-box post-affine M2*y (high nibble)", &twice(qhi)),
            ),
            nibble: b.constant("sm4_nibble", 32, "0x0f bytes", &[0x0f; 32]),
            zero: if sbox == Sbox::Vaes {
                b.constant("sm4_zero_y", 32, "vaesenclast round key: zero", &[0; 32])
            } else {
                b.constant("sm4_zero", 16, "aesenclast round key: zero", &[0; 16])
            },
            isr_rol,
            bswap32: b.constant("sm4_bswap32", 32, "vpshufb: byte-swap each dword", &twice(perm(|i| i ^ 3))),
            ctr_add: b.constant("sm4_ctr_add", 32, "counter increments k = 0..15 (low qword)", &ctr_add),
            fk: b.constant("sm4_fk", 16, "FK", &fk),
            ck: b.constant("sm4_ck", 16, "CK[0..32]", &ck),
            keys_z: OnceCell::new(),
        }
    }

    /// The GFNI kernels' constants (the table labels are unused placeholders for the GFNI matrices).
    fn new_gfni(b: &mut B) -> Consts {
        let maps = gfni::round();
        let mat = |b: &mut B, name: &str, what: &str, m: &crate::sm4::Matrix| {
            b.constant(name, 32, what, &gfni::qword(m).to_le_bytes().repeat(4))
        };
        let rot0 = mat(b, "sm4_gfni_rot0", "GFNI matrix M1*(I + <<2)*S (unrotated term of L)", &maps.rot0.m);
        let rot8 = mat(b, "sm4_gfni_rot8", "GFNI matrix M1*(<<2 + >>6)*S (rotated by 8 and 16)", &maps.rot8.m);
        let rot24 = mat(b, "sm4_gfni_rot24", "GFNI matrix M1*(I + >>6)*S (rotated by 24)", &maps.rot24.m);
        let key = mat(b, "sm4_gfni_m1", "GFNI matrix M1 (pre-affine; the state's domain)", &maps.enter);
        let leave = mat(b, "sm4_gfni_m1inv", "GFNI matrix M1^-1 (out of the domain)", &maps.leave);
        let rol = [1usize, 2, 3].map(|n| {
            let name = ["", "sm4_rol8", "sm4_rol16", "sm4_rol24"][n];
            let what = [
                "",
                "vpshufb: rotate each dword left by 8",
                "vpshufb: rotate each dword left by 16",
                "vpshufb: rotate each dword left by 24",
            ][n];
            b.constant(name, 32, what, &twice(perm(|i| 4 * (i / 4) + (i % 4 + 4 - n) % 4)))
        });
        let (ctr_add, fk, ck) = counter_and_key_bytes();
        let bswap32 = b.constant("sm4_bswap32", 32, "vpshufb: byte-swap each dword", &twice(perm(|i| i ^ 3)));
        Consts {
            sbox: Sbox::Gfni,
            gfni: Some(GfniConsts { maps, enter: key.clone(), leave, rol: rol.clone() }),
            tables_gfni: vec![rot0, rot8, rot24, key.clone()],
            pre: (key.clone(), key.clone()),
            post: (key.clone(), key.clone()),
            nibble: key.clone(),
            zero: key.clone(),
            isr_rol: [key.clone(), rol[0].clone(), rol[1].clone(), rol[2].clone()],
            bswap32,
            ctr_add: b.constant("sm4_ctr_add", 32, "counter increments k = 0..15 (low qword)", &ctr_add),
            fk: b.constant("sm4_fk", 16, "FK", &fk),
            ck: b.constant("sm4_ck", 16, "CK[0..32]", &ck),
            keys_z: OnceCell::new(),
        }
    }

    /// A zmm GFNI kernel's 32 round keys at `rk`, byte-swapped (the zmm rounds hold the words as loaded,
    /// [`words_as_loaded`](super::cipher::words_as_loaded)) and mapped into the GFNI domain (`M1·rk ^ c1` byte
    /// by byte: two zmm maps cover all of them, in place), into a 128-byte stack frame, where the zmm rounds read
    /// them, one `vpbroadcastd` per round: no shuffle and no map in the rounds. The frame is 64-byte aligned, so
    /// r15 points at it: the round loop walks a copy of r15, where a pointer taken from rsp would count as
    /// touching the return address and cost the listing its SHSTK bit. After [`Consts::load_tables`] on zmm
    /// ([`POST_HI`] holds M1, [`ZBSWAP`] the byte swap); clobbers zmm8 and zmm9. [`Consts::wipe_keys_z`] clears
    /// the frame. Nothing for a kernel of another width `w` or S-box: its rounds take their keys from `rk`.
    pub fn map_keys_z(&self, b: &mut B, w: Width, rk: Gpr) {
        if w != Width::Z || self.sbox != Sbox::Gfni {
            return;
        }
        let f = b.frame(128, 64);
        b.comment("The round keys byte-swapped (the rounds hold the words as loaded) and mapped into the GFNI domain, into the stack frame the zmm rounds read.");
        for (half, t) in [V(8), V(9)].into_iter().enumerate() {
            let off = 64 * half as i32;
            b.vmovdqu64(t.z(), mem(rk, off));
            b.vpshufb(t.z(), t.z(), ZBSWAP.z());
            vaffine(b, Width::Z, t, t, POST_HI, self.g().maps.key.c);
            b.vmovdqu64(f.at(off), t.z());
        }
        assert!(self.keys_z.set(f).is_ok(), "one key frame per kernel");
    }

    /// Clears the frame of [`Consts::map_keys_z`], before the kernel returns (it holds key material); nothing
    /// where there is none. Clobbers [`ZBSWAP`].
    pub fn wipe_keys_z(&self, b: &mut B) {
        if let Some(f) = self.keys_z.get() {
            b.comment("Wipe the mapped round keys.");
            b.vpxorq(ZBSWAP.z(), ZBSWAP.z(), ZBSWAP.z());
            b.vmovdqu64(f.at(0), ZBSWAP.z());
            b.vmovdqu64(f.at(64), ZBSWAP.z());
        }
    }

    /// The frame of [`Consts::map_keys_z`].
    pub fn keys_z(&self) -> &StackFrame<X86_64> {
        self.keys_z.get().expect("a zmm GFNI kernel maps its round keys first (Consts::map_keys_z)")
    }

    pub(super) fn g(&self) -> &GfniConsts {
        self.gfni.as_ref().expect("GFNI constants")
    }

    /// Loads the four affine tables into [`PRE_LO`], [`PRE_HI`], [`POST_LO`], [`POST_HI`] (GFNI: the matrices
    /// `rot0`, `rot8`, `rot24`, `M1`); on zmm broadcast from their first 16 bytes, with [`ZBSWAP`] and
    /// [`ZLEAVE`] too (VAES: [`ZBSWAP`], [`ZNIB`], [`ZISR`] and a zeroed [`ZZERO`]), so that no zmm instruction
    /// reads a 32-byte constant as 64 bytes.
    pub fn load_tables(&self, b: &mut B, w: Width) {
        if w == Width::Z && self.sbox != Sbox::Gfni {
            assert!(self.sbox == Sbox::Vaes, "zmm kernels use the GFNI or the VAES S-box");
            let regs = [
                (PRE_LO, &self.pre.0),
                (PRE_HI, &self.pre.1),
                (POST_LO, &self.post.0),
                (POST_HI, &self.post.1),
                (ZBSWAP, &self.bswap32),
                (ZNIB, &self.nibble),
                (ZISR, &self.isr_rol[0]),
            ];
            for (r, l) in regs {
                b.vbroadcasti32x4(r.z(), rip(l));
            }
            b.vpxorq(ZZERO.z(), ZZERO.z(), ZZERO.z());
            return;
        }
        if w == Width::Z {
            let g = self.g();
            let regs = [PRE_LO, PRE_HI, POST_LO, POST_HI].into_iter().zip(&self.tables_gfni);
            for (r, l) in regs.chain([(ZBSWAP, &self.bswap32), (ZLEAVE, &g.leave)]) {
                b.vbroadcasti32x4(r.z(), rip(l));
            }
            return;
        }
        let regs: Vec<(V, &Label)> = if self.sbox == Sbox::Gfni {
            [PRE_LO, PRE_HI, POST_LO, POST_HI].into_iter().zip(&self.tables_gfni).collect()
        } else {
            vec![(PRE_LO, &self.pre.0), (PRE_HI, &self.pre.1), (POST_LO, &self.post.0), (POST_HI, &self.post.1)]
        };
        for (r, l) in regs {
            match w {
                Width::X => b.vmovdqa(r.x(), rip(l)),
                Width::Y => b.vmovdqa(r.y(), rip(l)),
                Width::Z => unreachable!("handled above"),
            };
        }
    }
}
