//! GHASH/POLYVAL with the vector GCM extension Zvkg (`vghsh.vv`, `vgmul.vv`) and Zvkb (`vrev8.v`).
//! VLEN-agnostic: LMUL 4, G = min(VLMAX / 4, 8) blocks (element groups) per batch.
//!
//! `vghsh.vv` computes `(Y ^ X) * H` in GCM's own representation (the raw bytes, loaded with `vle32`), so the
//! GHASH flavour needs no reordering and the POLYVAL flavour reverses the bytes of every block and of the state
//! (RFC 8452, appendix A: word reversal by `vrgather.vv`, then `vrev8.v`). The key table is the one every
//! kernel set shares (POLYVAL-domain powers and Karatsuba half-sums, see [`super`]), so the kernel maps its
//! entries into GCM's field: with `f(a) = ByteReverse(a) * x`, `f(dot(a, b)) = f(a) * f(b)` for POLYVAL's
//! Montgomery product `dot`, hence `f(table[i-1]) = Hg^i` for both flavours (Hg: the GHASH key of the
//! flavour's equivalent GHASH). Init computes `Hg^i` with `vgmul` and stores `f^-1(Hg^i) = ByteReverse(Hg^i * x^-1)`
//! and the half-sums, so tables from this kernel and the others are interchangeable.
//!
//! Update keeps G running sums, one per element group: every batch but the last whole one is
//! `S = (S ^ X) * Hg^G` (one `vghsh` with Hg^G broadcast); the last whole batch multiplies group j by
//! `Hg^(G-j)` instead, the groups are xored together (log2 G slides), and the last 0..G-1 blocks go one at a
//! time with Hg.
//!
//! Bottleneck: one `vghsh` per G blocks, dependent on the previous batch's through S: the loop runs at the
//! `vghsh` latency per batch unless the core pipelines LMUL 4 (four register-sized parts per instruction) —
//! then the vector crypto pipe's throughput. The POLYVAL flavour adds a `vrgather` and a `vrev8` per batch.
//!
//! Modelled (llvm-mca-19 `-mcpu=sifive-p670`, VLEN 128 so G = 4, a model, not a measurement): the main loop
//! takes 4.0 cycles per 64 bytes for GHASH (0.063 cycles/byte: the LMUL-4 `vghsh` occupies the crypto pipe
//! 4 cycles) and 8.0 for POLYVAL (0.125 cycles/byte: the `vrgather` + `vrev8` byte reversal doubles it).
//!
//! Constant time: data only reaches `vghsh`/`vgmul`, xors and data-independent permutations; branches
//! depend on `nblocks` only.

use super::{Flavour, AGGREGATE};
use crate::plan::Trips;
use crate::role;
use crate::Blocks;
use asmgen::isa::riscv64::{mem, regs::*, Riscv64, RvFeature, VType, V, X};
use asmgen::{Abi, Builder, Function, GenError, Label};

type B = Builder<Riscv64>;

const FEATURES: [RvFeature; 3] = [RvFeature::V, RvFeature::Zvkb, RvFeature::Zvkg];
const E32M1: VType = VType { sew: 32, lmul: 1 };
const E32M4: VType = VType { sew: 32, lmul: 4 };
const E64M1: VType = VType { sew: 64, lmul: 1 };

/// GCM's x (byte 0 = 0x40) in each of eight element groups.
fn x_groups(b: &mut B) -> Label {
    let bytes: Vec<u8> = (0..16 * AGGREGATE).map(|i| if i % 16 == 0 { 0x40 } else { 0 }).collect();
    b.constant("gcm_x_groups", 16, "GCM's x in eight element groups", &bytes)
}

/// All-ones in the first element group of eight, zero in the others.
fn first_group_mask(b: &mut B) -> Label {
    let bytes: Vec<u8> = (0..16 * AGGREGATE).map(|i| if i < 16 { 0xff } else { 0 }).collect();
    b.constant("first_group_mask", 16, "all-ones in the first of eight element groups", &bytes)
}

/// x^-1 = x^127 + x^6 + x + 1 in GCM's bit order.
fn x_inverse(b: &mut B) -> Label {
    let mut bytes = [0u8; 16];
    bytes[0] = 0xc2;
    bytes[15] = 0x01;
    b.constant("gcm_x_inverse", 16, "GCM's x^-1 = x^127 + x^6 + x + 1", &bytes)
}

/// Reverses the 16 bytes of every element group of `v` (word order by `vrgather` with `idx` = i ^ 3, then
/// `vrev8`); `tmp` must not overlap `v` or `idx`.
fn byte_reverse(b: &mut B, v: V, idx: V, tmp: V) {
    b.vrgather_vv(tmp, v, idx);
    b.vrev8_v(v, tmp);
}

/// Loads a group of blocks at `data` into `v` in POLYVAL's byte order (GHASH's blocks byte-reversed).
fn load_group(b: &mut B, f: Flavour, v: V, data: X, idx: V, tmp: V) {
    b.vle32_v(v, data);
    if !f.reflected() {
        byte_reverse(b, v, idx, tmp);
    }
}

fn new(f: Flavour, what: &str, abi: Abi) -> B {
    B::new(&format!("asmgen_{}_{what}_zvkg", f.name()), abi, &FEATURES)
}

/// `<f>_init_zvkg(table, h)`: the shared key table, computed in GCM's field with `vgmul`.
pub fn init(f: Flavour, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    let mut b = new(f, "init", abi);
    crate::doc_role(&mut b, f.init_role());
    b.doc("Shared table layout, computed with vgmul: table[16*(i-1)] = f^-1(Hg^i), table[128 + 16*(i-1)] = its");
    b.doc("Karatsuba half-sum, i = 1..8; f^-1(y) = ByteReverse(y * x^-1). Hg^2; then Hg^3, Hg^4; then Hg^5..Hg^8 =");
    b.doc("Hg^1..Hg^4 * Hg^4: three dependent vgmuls, each round's stores after the next round's products.");
    let [table, h] = role::params(&mut b, f.init_role());
    let (p, lo, hi, one) = (T0, T1, T2, T3);
    let (hg, y, z, idx, xc, xinv, t) = (V(1), V(3), V(4), V(5), V(6), V(7), V(8));
    let xg = x_groups(&mut b);
    let xi = x_inverse(&mut b);
    b.vsetivli(ZERO, 4, E32M1);
    b.vid_v(idx);
    b.vxor_vi(idx, idx, 3);
    b.lla(p, &xg);
    b.vle32_v(xc, p);
    b.lla(p, &xi);
    b.vle32_v(xinv, p);
    b.li(one, 1);
    b.vle32_v(hg, h);
    if f.reflected() {
        b.comment("GHASH: the key is already GCM's.");
    } else {
        b.comment("POLYVAL: Hg = ByteReverse(H) * x (RFC 8452, appendix A).");
        byte_reverse(&mut b, hg, idx, t);
        b.vgmul_vv(hg, xc);
    }
    // H^i in powers[i]: H^1 is hg, H^2..H^8 in v9-v15.
    let powers: Vec<V> = (0..=AGGREGATE as u8).map(|i| if i <= 1 { hg } else { V(7 + i) }).collect();
    b.mv(p, table);
    // Stores H^i: f^-1(Hg^i) and its half-sum.
    let store = |b: &mut B, i: usize| {
        b.comment(format_args!("H^{i}: f^-1(Hg^{i}) and its half-sum."));
        b.vmv_v_v(y, powers[i]);
        b.vgmul_vv(y, xinv);
        b.vrgather_vv(z, y, idx);
        b.vrev8_v(z, z);
        b.vse32_v(z, p);
        b.vsetivli(ZERO, 2, E64M1);
        b.vmv_x_s(lo, z);
        b.vslidedown_vx(t, z, one);
        b.vmv_x_s(hi, t);
        b.xor(lo, lo, hi);
        b.sd(lo, mem(table, super::hk_offset(i)));
        b.sd(lo, mem(table, super::hk_offset(i) + 8));
        b.vsetivli(ZERO, 4, E32M1);
        if i < AGGREGATE {
            b.addi(p, p, 16);
        }
    };
    // Each round's products (a copy of one factor, then vgmul) go before the stores of the powers the previous
    // round made, which run while the products are in flight.
    let mut made = vec![1];
    for round in super::INIT_ROUNDS {
        let names: Vec<String> = round.iter().map(|&(i, a, c)| format!("Hg^{i} = Hg^{a} * Hg^{c}")).collect();
        b.comment(format_args!("{} (vgmul).", names.join(", ")));
        for &(i, a, _) in round {
            b.vmv_v_v(powers[i], powers[a]);
        }
        for &(i, _, c) in round {
            b.vgmul_vv(powers[i], powers[c]);
        }
        for i in std::mem::replace(&mut made, round.iter().map(|&(i, _, _)| i).collect()) {
            store(&mut b, i);
        }
    }
    for i in made {
        store(&mut b, i);
    }
    b.comment("Clear the key material.");
    for v in powers.iter().skip(1).copied().chain([y, z, t]) {
        b.vmv_v_i(v, 0);
    }
    b.li(lo, 0);
    b.li(hi, 0);
    b.finish()
}

/// `<f>_update_zvkg(state, table, data, nblocks)`.
pub fn update(f: Flavour, abi: Abi) -> Result<Function<Riscv64>, GenError> {
    update_of(f, abi, Blocks::Arg)
}

/// Which parts of the update a block count needs, for every G the kernel can run with: VLEN >= 128 (the V
/// extension's minimum) and the cap at 8 make G 4 or 8, so a fixed count decides a branch when it goes the
/// same way for both.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// The main loop may run (`nblocks >= 2G` for some G), and does for every G (no entry check).
    main: bool,
    main_always: bool,
    /// The last whole batch may run (`nblocks >= G`), and does for every G (no check).
    last: bool,
    last_always: bool,
    /// The tail: `nblocks mod G` blocks. `Some(k)`: the same `k` for both G (unrolled; 0: no tail code).
    tail: Option<usize>,
    /// The tail may be empty (the zero check stays).
    tail_zero: bool,
}

impl Plan {
    fn new(count: Option<usize>) -> Plan {
        match count {
            None => {
                Plan { main: true, main_always: false, last: true, last_always: false, tail: None, tail_zero: true }
            }
            Some(c) => Plan {
                main: c >= 8,
                main_always: c >= 16,
                last: c >= 4,
                last_always: c >= 8,
                tail: (c % 8 < 4).then_some(c % 8),
                tail_zero: c % 4 == 0,
            },
        }
    }
}

/// [`update`] for `blocks` blocks: `nblocks`, or a fixed count (`_n<count>`, the JIT's fixed-size kernels).
/// VLEN is unknown when the kernel is generated, so a fixed count keeps the `vsetvli`-sized batches of G
/// blocks and every branch whose outcome depends on G (G is 4 or 8: VLEN is at least 128, G at most 8); the
/// count is loaded into the register `nblocks` arrived in. It removes the branches it decides for both: the
/// main loop's entry check (at least 16 blocks) or the whole loop (under 8), the last whole batch's check
/// (at least 8) or the whole batch and its reduction (under 4), the tail's zero check (a count not a multiple
/// of 4), and the tail loop itself when the tail is the same for both G (`count % 8 < 4`): then it is
/// straight-line code, one `vghsh` per block, or nothing.
pub fn update_of(f: Flavour, abi: Abi, blocks: Blocks) -> Result<Function<Riscv64>, GenError> {
    let mut b = B::new(&format!("asmgen_{}_update_zvkg{}", f.name(), blocks.suffix()), abi, &FEATURES);
    crate::doc_role(&mut b, f.update_role());
    b.doc("vghsh, G = min(VLMAX/4, 8) blocks per batch (G running sums, multiplied by Hg^G..Hg^1 at the last");
    b.doc("whole batch and xored together).");
    if let Some(d) = blocks.doc() {
        b.doc(&d);
        b.doc("VLEN-agnostic: the batches of G blocks stay; only the branches the count decides for G = 4 and 8 go.");
    }
    let [state, table, data, n] = role::params(&mut b, f.update_role());
    let trips = Trips::new(blocks, n);
    let plan = Plan::new(trips.known());
    let (vlf, g, t, u, p) = (T0, T1, T2, T3, T4);
    // Register groups of LMUL 4.
    let (ridx, widx, bidx, pw, hb, s, xv, tmp) = (V(0), V(4), V(8), V(12), V(16), V(20), V(24), V(28));
    let r = Regs { state, table, data, n, vlf, g, t, u, p, ridx, widx, bidx, pw, hb, s, xv, tmp };
    let xg = x_groups(&mut b);
    let mask = first_group_mask(&mut b);
    let (main, after, tail_setup, tail, store) =
        (b.label("main"), b.label("last_batch"), b.label("tail_setup"), b.label("tail"), b.label("store"));
    // A known count in its register for the branches that stay (none when every one is decided).
    if plan.main || (plan.last && !plan.last_always) || plan.tail.is_none() {
        trips.load_known(&mut b);
    }
    setup(&mut b, f, &r, &xg, &mask);
    if plan.main || plan.last {
        b.slli(u, g, 4);
    }
    if plan.main {
        main_loop(&mut b, f, &r, &plan, &main, &after);
    }
    b.bind(&after);
    if plan.last {
        last_batch(&mut b, f, &r, &plan, &tail_setup);
    }
    b.bind(&tail_setup);
    last_blocks(&mut b, f, &r, &plan, &tail, &store);
    b.bind(&store);
    if !f.reflected() {
        byte_reverse(&mut b, s, widx, tmp);
    }
    b.vse32_v(s, state);
    b.comment("Clear the powers of H.");
    b.vsetvli(ZERO, vlf, E32M4);
    for v in [pw, hb] {
        b.vmv_v_i(v, 0);
    }
    b.finish()
}

/// The registers of [`update_of`]: its parameters, scalar temporaries (`vlf` = VLMAX at e32, m4, `g` = G) and
/// register groups of LMUL 4 (`ridx`, `widx`, `bidx`: index vectors; `pw`: the powers Hg^G..Hg^1; `hb`: one
/// power in every group; `s`: the running sums; `xv`, `tmp`: data and scratch).
#[derive(Clone, Copy)]
struct Regs {
    state: X,
    table: X,
    data: X,
    n: X,
    vlf: X,
    g: X,
    t: X,
    u: X,
    p: X,
    ridx: V,
    widx: V,
    bidx: V,
    pw: V,
    hb: V,
    s: V,
    xv: V,
    tmp: V,
}

/// G, the index vectors, the powers of H in GCM's field, and the state in group 0 of the running sums.
fn setup(b: &mut B, f: Flavour, r: &Regs, xg: &Label, mask: &Label) {
    let Regs { state, table, vlf, g, t, p, ridx, widx, bidx, pw, hb, s, xv, tmp, .. } = *r;
    b.comment("G = min(VLMAX / 4, 8) blocks per batch at e32, m4.");
    b.li(t, 4 * AGGREGATE as i32);
    b.vsetvli(vlf, t, E32M4);
    b.srli(g, vlf, 2);
    b.comment("Indices: word reversal in a group (i ^ 3), group broadcast (i & 3), whole reversal.");
    b.vid_v(ridx);
    b.vxor_vi(widx, ridx, 3);
    b.vand_vi(bidx, ridx, 3);
    b.addi(t, vlf, -1);
    b.vrsub_vx(ridx, ridx, t);
    b.comment("pw = [Hg^G, ..., Hg^1] = f(table[G-1]), ..., f(table[0]); hb = Hg^G in every group.");
    b.vle32_v(tmp, table);
    b.vrgather_vv(pw, tmp, ridx);
    b.vrev8_v(pw, pw);
    b.lla(p, xg);
    b.vle32_v(xv, p);
    b.vgmul_vv(pw, xv);
    b.vrgather_vv(hb, pw, bidx);
    b.comment("The state in group 0, the other sums zero.");
    b.vsetivli(ZERO, 4, E32M4);
    b.vle32_v(xv, state);
    if !f.reflected() {
        byte_reverse(b, xv, widx, tmp);
    }
    b.vsetvli(ZERO, vlf, E32M4);
    b.lla(p, mask);
    b.vle32_v(tmp, p);
    b.vand_vv(s, xv, tmp);
}

/// Every batch but the last whole one (at least two batches left), from `main`; to `after` when fewer.
fn main_loop(b: &mut B, f: Flavour, r: &Regs, plan: &Plan, main: &Label, after: &Label) {
    let Regs { data, n, g, t, u, hb, s, xv, widx, tmp, .. } = *r;
    b.slli(t, g, 1);
    if !plan.main_always {
        b.bltu(n, t, after);
    }
    b.align(4);
    b.bind(main);
    b.comment("Every batch but the last whole one: S = (S ^ X) * Hg^G per group.");
    load_group(b, f, xv, data, widx, tmp);
    b.vghsh_vv(s, hb, xv);
    b.add(data, data, u);
    b.sub(n, n, g);
    b.bgeu(n, t, main);
}

/// The last whole batch (to `tail_setup` when there is none), its groups multiplied by Hg^G..Hg^1 and xored
/// together.
fn last_batch(b: &mut B, f: Flavour, r: &Regs, plan: &Plan, tail_setup: &Label) {
    let Regs { data, n, g, t, u, p, pw, s, xv, widx, tmp, .. } = *r;
    if !plan.last_always {
        b.bltu(n, g, tail_setup);
    }
    b.comment("The last whole batch: group j times Hg^(G-j), then the groups xored together.");
    load_group(b, f, xv, data, widx, tmp);
    b.vghsh_vv(s, pw, xv);
    b.add(data, data, u);
    b.sub(n, n, g);
    let red = b.label("reduce");
    b.mv(u, g);
    b.li(p, 1);
    b.bind(&red);
    b.srli(u, u, 1);
    b.slli(t, u, 2);
    b.vslidedown_vx(tmp, s, t);
    b.vxor_vv(s, s, tmp);
    b.bne(u, p, &red);
}

/// The last 0..G-1 blocks, one `vghsh` each with Hg: unrolled when the plan knows how many, else a loop from
/// `tail` (to `store` when none).
fn last_blocks(b: &mut B, f: Flavour, r: &Regs, plan: &Plan, tail: &Label, store: &Label) {
    let Regs { data, n, g, t, pw, hb, s, xv, widx, tmp, .. } = *r;
    if plan.tail != Some(0) {
        b.comment("The last 0..G-1 blocks one at a time with Hg (the last group of pw).");
        b.addi(t, g, -1);
        b.slli(t, t, 2);
        b.vslidedown_vx(hb, pw, t);
    }
    b.vsetivli(ZERO, 4, E32M4);
    match plan.tail {
        Some(k) => {
            if k > 0 {
                b.comment(format_args!("The last {k} block(s), for every G."));
            }
            for i in 0..k {
                load_group(b, f, xv, data, widx, tmp);
                b.vghsh_vv(s, hb, xv);
                if i + 1 < k {
                    b.addi(data, data, 16);
                }
            }
        }
        None => {
            if plan.tail_zero {
                b.beqz(n, store);
            }
            b.bind(tail);
            load_group(b, f, xv, data, widx, tmp);
            b.vghsh_vv(s, hb, xv);
            b.addi(data, data, 16);
            b.addi(n, n, -1);
            b.bnez(n, tail);
        }
    }
}
