//! The riscv64 instruction semantics (`asmgen::sem::riscv64`) checked against the CPU (qemu in `cargo xtask
//! cross riscv64`, at the VLENs its runs set): every table entry the CPU executes (branches, `lla`, `ret` and
//! `nop` aside: label operands and the return) is lowered by the JIT into a harness built with the builder, which
//! loads a random state (the temporaries and a1..a7, v0..v31, vl and vtype of a random legal type), runs the one
//! instruction and stores the state back; the model runs on the same state and both must agree bit for bit,
//! except the destination group's tail (elements at and past vl: `ta` lets the CPU write ones there). A mismatch
//! names the entry and operands. The negative test runs the comparison on a doctored model and requires it to
//! be caught.
#![cfg(all(target_arch = "riscv64", target_os = "linux"))]

use asmgen::isa::riscv64::{mem, Op, Operand, Riscv64, RvFeature, VType, OPS, X};
use asmgen::sem::riscv64::{sem, Machine, State};
use asmgen::sem::{Fault, Memory};
use asmgen::{Abi, Builder};
use asmgen_tests::Rng;

/// The registers the random operands use (a0 holds the state's address): t0..t2, a1..a6, t3..t6.
const XS: [u8; 13] = [5, 6, 7, 11, 12, 13, 14, 15, 16, 28, 29, 30, 31];
/// The register scalar and vector memory operands use as base: a7, pointing into the buffer.
const BASE: u8 = 17;
const BUF: usize = 1024;

/// The state as the harness reads and writes it: x registers, vl, vector registers (VLEN at most 1024).
#[repr(C)]
struct Raw {
    x: [u64; 32],
    vl: u64,
    v: [u8; 32 * 128],
}
const VL_OFF: i32 = 256;
const V_OFF: i32 = 264;

struct Buffer {
    base: u64,
    bytes: Vec<u8>,
}
impl Memory for Buffer {
    fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let off = addr.wrapping_sub(self.base) as usize;
        let src = self.bytes.get(off..off + out.len()).ok_or(Fault { addr, len: out.len(), what: "outside" })?;
        out.copy_from_slice(src);
        Ok(())
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let off = addr.wrapping_sub(self.base) as usize;
        let dst = self.bytes.get_mut(off..off + data.len()).ok_or(Fault { addr, len: data.len(), what: "outside" })?;
        dst.copy_from_slice(data);
        Ok(())
    }
}

fn vlenb() -> usize {
    let v: usize;
    // SAFETY: reads the vlenb CSR (0xc22), which has no side effect; only called where V is present.
    unsafe { std::arch::asm!("csrr {0}, 0xc22", out(reg) v) };
    v
}

fn hwprobe_ext0() -> u64 {
    let mut pair = [4i64, 0];
    // SAFETY: riscv_hwprobe(pairs, 1, 0, NULL, 0) writes only the one pair it is given.
    let r = unsafe { libc::syscall(258, pair.as_mut_ptr(), 1usize, 0usize, 0usize, 0u32) };
    if r == 0 {
        pair[1] as u64
    } else {
        0
    }
}

fn cpu_has(f: RvFeature) -> bool {
    let e = hwprobe_ext0();
    match f {
        RvFeature::Zbb => e & (1 << 4) != 0,
        RvFeature::Zbc => e & (1 << 7) != 0,
        RvFeature::Zbkb => e & (1 << 8) != 0,
        RvFeature::Zksed => e & (1 << 14) != 0,
        RvFeature::V => e & (1 << 2) != 0,
        RvFeature::Zvbc => e & (1 << 18) != 0,
        RvFeature::Zvkb => e & (1 << 19) != 0,
        RvFeature::Zvkg => e & (1 << 20) != 0,
        RvFeature::Zvksed => e & (1 << 24) != 0,
    }
}

/// Entries not checked here: label operands, the return, no effect.
fn skipped(op: Op) -> bool {
    let info = &OPS[op as usize];
    info.kinds.contains(&"Target") || matches!(op, Op::ret | Op::nop)
}

/// The vector type an entry needs (or a random one).
fn vtype(rng: &mut Rng, op: Op) -> VType {
    let sew = match op {
        Op::vghsh_vv | Op::vgmul_vv | Op::vsm4k_vi | Op::vsm4r_vv | Op::vsm4r_vs | Op::vle32_v | Op::vse32_v => 32,
        Op::vclmul_vv | Op::vclmulh_vv | Op::vle64_v | Op::vse64_v => 64,
        _ => 8 << rng.below(4),
    };
    VType { sew, lmul: 1 << rng.below(4) }
}

/// Random operands; vector registers are distinct groups aligned to LMUL.
fn operands(rng: &mut Rng, op: Op, t: VType) -> Vec<Operand> {
    let mut groups: Vec<u8> = (0..32 / t.lmul as u8).map(|g| g * t.lmul as u8).collect();
    let x = |rng: &mut Rng| Operand::X(XS[rng.below(XS.len())]);
    OPS[op as usize]
        .kinds
        .iter()
        .map(|k| match *k {
            "Xr" => x(rng),
            "Vr" => Operand::V(groups.remove(rng.below(groups.len()))),
            "Simm12" => Operand::Imm(rng.below(4096) as i64 - 2048),
            "Shamt" if op == Op::vror_vi => Operand::Imm(rng.below(t.sew as usize) as i64),
            "Shamt" => Operand::Imm(rng.below(64) as i64),
            "Uimm5" => Operand::Imm(rng.below(32) as i64),
            "Simm5" => Operand::Imm(rng.below(32) as i64 - 16),
            "Bs" => Operand::Imm(rng.below(4) as i64),
            "Uimm20" => Operand::Imm(rng.below(1 << 20) as i64),
            "M" => Operand::Mem(mem(X(BASE), rng.below(129) as i32 - 64)),
            "VAddr" => Operand::Base(BASE),
            "VTypeI" => Operand::VType(vtype(rng, op)),
            k => panic!("no generator for kind {k}"),
        })
        .collect()
}

/// A harness `f(raw)`: loads the state, sets vl and the type, runs `op`, stores the state back.
fn harness(op: Op, ops: &[Operand], t: VType, vector: bool) -> Vec<u8> {
    use asmgen::isa::riscv64::regs::*;
    use asmgen::Feature;
    let all: Vec<RvFeature> = RvFeature::ALL.to_vec();
    let mut b = Builder::<Riscv64>::new("one", Abi::Lp64d, &all);
    let whole = VType { sew: 32, lmul: 8 };
    let regs = |b: &mut Builder<Riscv64>, store: bool| {
        b.vsetvli(T1, ZERO, whole);
        b.addi(T0, A0, V_OFF);
        b.slli(T1, T1, 2);
        for g in [0, 8, 16, 24] {
            if store {
                b.vse32_v(asmgen::isa::riscv64::regs::v(g), T0)
            } else {
                b.vle32_v(asmgen::isa::riscv64::regs::v(g), T0)
            };
            b.add(T0, T0, T1);
        }
    };
    if vector {
        regs(&mut b, false);
        b.ld(T0, mem(A0, VL_OFF));
        b.vsetvli(ZERO, T0, t);
    }
    for r in XS.iter().chain([&BASE]) {
        b.ld(X(*r), mem(A0, 8 * *r as i32));
    }
    b.inst(op, ops.to_vec());
    for r in XS.iter().chain([&BASE]) {
        b.sd(X(*r), mem(A0, 8 * *r as i32));
    }
    if vector {
        regs(&mut b, true);
    }
    let f = b.finish().unwrap();
    let image = asmgen::lower::lower(&[&f]).unwrap();
    let sym = image.symbol("one").unwrap();
    image.bytes[sym.offset..sym.offset + sym.len].to_vec()
}

/// Executable copy of `code` (W^X: written, then made read-execute).
struct Exec(*mut libc::c_void, usize);
impl Exec {
    fn new(code: &[u8]) -> Exec {
        let len = code.len().next_multiple_of(4096);
        // SAFETY: a fresh private mapping, written then made executable; the instruction cache is synchronised
        // by the fence.i the kernel does on mprotect (qemu translates afresh).
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            std::ptr::copy_nonoverlapping(code.as_ptr(), p as *mut u8, code.len());
            assert_eq!(libc::mprotect(p, len, libc::PROT_READ | libc::PROT_EXEC), 0);
            std::arch::asm!("fence.i");
            Exec(p, len)
        }
    }
    fn run(&self, raw: &mut Raw) {
        // SAFETY: the harness reads and writes only `raw` and the buffer a7 points into, and returns.
        let f: extern "C" fn(*mut Raw) = unsafe { std::mem::transmute(self.0) };
        f(raw);
    }
}
impl Drop for Exec {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made.
        unsafe { libc::munmap(self.0, self.1) };
    }
}

/// Zeroes the destination group's tail (elements at and past vl) in `v`.
fn mask_tail(v: &mut [u8], vlenb: usize, op: Op, ops: &[Operand], t: VType, vl: usize) {
    let (Some(Operand::V(d)), false) = (ops.first(), matches!(op, Op::vse32_v | Op::vse64_v)) else { return };
    let eew = match op {
        Op::vle32_v => 4,
        Op::vle64_v => 8,
        _ => t.sew as usize / 8,
    };
    let start = *d as usize * vlenb;
    v[start + vl * eew..start + t.lmul as usize * vlenb].fill(0);
}

/// Compares the CPU and `model` over `draws` operand draws of `states` random states each; returns mismatches.
fn compare(draws: usize, states: usize, model: impl Fn(Op, &mut Machine<'_>, &[Operand])) -> Vec<String> {
    let seed = asmgen_tests::kernel_calls::seed();
    let (mut rng, mut bad, mut checked) = (Rng::new(seed), Vec::new(), Vec::new());
    let vector_cpu = cpu_has(RvFeature::V);
    let vlenb = if vector_cpu { vlenb() } else { 16 };
    for (i, info) in OPS.iter().enumerate() {
        let op = Op::ALL[i];
        if skipped(op) || !info.features.iter().all(|f| cpu_has(*f)) {
            continue;
        }
        let vector = info.features.contains(&RvFeature::V);
        checked.push(info.name);
        for _ in 0..draws {
            let t = vtype(&mut rng, op);
            let ops = operands(&mut rng, op, t);
            let exec = Exec::new(&harness(op, &ops, t, vector));
            for _ in 0..states {
                let mut buf = vec![0u8; BUF];
                rng.fill(&mut buf);
                let mut raw = Raw { x: [0; 32], vl: 0, v: [0; 32 * 128] };
                rng.fill(&mut raw.v[..32 * vlenb]);
                for r in XS {
                    raw.x[r as usize] = rng.next_u64();
                }
                raw.x[BASE as usize] = buf.as_ptr() as u64 + BUF as u64 / 2;
                let vlmax = t.lmul as usize * vlenb * 8 / t.sew as usize;
                let egs = if t.sew == 32
                    && OPS[op as usize].features.iter().any(|f| matches!(f, RvFeature::Zvkg | RvFeature::Zvksed))
                {
                    4
                } else {
                    1
                };
                raw.vl = (rng.below(vlmax + 1) / egs * egs) as u64;
                let mut s = State::new(vlenb * 8);
                s.x = raw.x;
                s.v.copy_from_slice(&raw.v[..32 * vlenb]);
                (s.vl, s.sew, s.lmul) = (raw.vl, t.sew, t.lmul);
                let mut mbuf = Buffer { base: buf.as_ptr() as u64, bytes: buf.clone() };
                let mut m = Machine { state: s, mem: &mut mbuf };
                model(op, &mut m, &ops);
                let vl = raw.vl as usize;
                exec.run(&mut raw);
                let mut want = m.state.v.clone();
                let mut got = raw.v[..32 * vlenb].to_vec();
                mask_tail(&mut want, vlenb, op, &ops, t, vl);
                mask_tail(&mut got, vlenb, op, &ops, t, vl);
                let xs_differ = XS.iter().any(|&r| raw.x[r as usize] != m.state.x[r as usize]);
                if xs_differ || want != got || buf != mbuf.bytes {
                    bad.push(format!("{} {ops:?} (e{} m{} vl {vl}; seed {seed})", info.name, t.sew, t.lmul));
                    break;
                }
            }
        }
    }
    eprintln!("VLEN {}: {} entries checked: {}", vlenb * 8, checked.len(), checked.join(" "));
    bad
}

fn real(op: Op, m: &mut Machine<'_>, ops: &[Operand]) {
    (sem(op).exec)(m, ops).unwrap();
}

#[test]
fn the_model_agrees_with_this_cpu() {
    let bad = compare(6, 4, real);
    assert!(bad.is_empty(), "the model differs from the CPU:\n{}", bad.join("\n"));
}

#[test]
fn a_wrong_model_is_caught() {
    // The model of `xor` (and, with V, `vxor.vv`) doctored: bit 0 of the first x temporary flipped afterwards.
    let doctored = |op: Op, m: &mut Machine<'_>, ops: &[Operand]| {
        real(op, m, ops);
        match (op, &ops[0]) {
            (Op::xor, Operand::X(d)) => m.state.x[*d as usize] ^= 1,
            (Op::vxor_vv, Operand::V(d)) if m.state.vl > 0 => m.state.v[*d as usize * m.state.vlenb] ^= 1,
            _ => {}
        }
    };
    // Each state draws its own vl, and the doctored `vxor.vv` shows only when vl > 0: with 16 states, vl = 0 in
    // all of them (at most 1 in 3 each, for e64 at LMUL 1) happens about once in 4e7 runs.
    let bad = compare(1, 16, doctored);
    assert!(bad.iter().any(|b| b.starts_with("xor ")), "{bad:?}");
    if cpu_has(RvFeature::V) {
        assert!(bad.iter().any(|b| b.starts_with("vxor_vv ")), "{bad:?}");
    }
}
