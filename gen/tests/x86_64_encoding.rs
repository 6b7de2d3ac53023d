//! The x86-64 table's encodings against GNU as, entry by entry: every entry is instantiated with operands that
//! reach each encoding choice (low and high registers, which decide between the 2- and 3-byte VEX prefixes and
//! between an instruction's load and store forms; memory with and without displacement, 8- and 32-bit
//! displacements (for EVEX, the compressed disp8 * N), the bases that need a SIB byte or a displacement, an
//! index, RIP-relative; zmm16-zmm31 (EVEX's extra register bits); immediates at the
//! imm8/imm32 boundaries and the shift-by-one form; branches to near and far labels), printed as the listing
//! prints it, assembled by GNU as, and compared byte for byte with the JIT lowering of the same function; and
//! assembled by llvm-mc-19, compared byte for byte for the AVX-512 entries and decoded instruction by instruction
//! for all (branches aside).

use asmgen::emit;
use asmgen::isa::x86_64::{mem, mem_index, regs::*, rip, Op, Operand, Size, X86Feature, OPS, X86_64};
use asmgen::lower::{lower, Image};
use asmgen::{Abi, Builder, Label, Listing, Target};
use std::process::Command;
use support::have_all;

mod support;

/// Operand samples per operand kind, low registers first and high registers and RIP-relative memory last.
fn samples(kind: &str, here: &Label) -> Vec<Operand> {
    let gprs = || [RAX, RCX, RBX, RSP, RBP, RSI, R8, R9, R12, R13, R15].map(|g| Operand::Gpr(g.0)).to_vec();
    let mems = |size: Size| {
        [
            mem(RSI, 0),
            mem(RSI, 32),
            mem(RDI, -16),
            mem(RDX, 300),
            mem(RSP, 8),
            mem(RBP, 0),
            mem(R12, 0),
            mem(R13, 0),
            mem(R9, 128),
            mem(R11, -129),
            mem_index(RAX, RBX, 4, 16),
            mem_index(R10, R14, 1, -16),
            rip(here),
        ]
        .map(|m| Operand::Mem(size, m))
        .to_vec()
    };
    let vec = |f: fn(u8) -> Operand| [0u8, 1, 7, 8, 9, 15].map(f).to_vec();
    match kind {
        "R64" => gprs(),
        "R32" => [0u8, 1, 7, 8, 15].map(Operand::Gpr32).to_vec(),
        "Ri32" => {
            let mut v = samples("R32", here);
            v.extend([0i64, 1, 127, 128, -128, -129, 500, -500, -1, 0x7fff_ffff, -0x8000_0000].map(Operand::Imm));
            v
        }
        "R8" => [0u8, 1, 3, 4, 5, 6, 7, 8, 15].map(Operand::Gpr8).to_vec(),
        "Rm8" => {
            let mut v = samples("R8", here);
            v.extend(mems(Size::Byte));
            v
        }
        "M8" => mems(Size::Byte),
        "Cl" => vec![Operand::Gpr8(1)],
        "Rm32" => {
            let mut v = samples("R32", here);
            v.extend(mems(Size::Dword));
            v
        }
        "Ri64" => {
            let mut v = gprs();
            v.extend([0i64, 1, 127, 128, -128, -129, 500, -500, 0x7fff_ffff].map(Operand::Imm));
            v
        }
        "Rm64" => {
            let mut v = gprs();
            v.extend(mems(Size::Qword));
            v
        }
        "X" => vec(Operand::Xmm),
        "Xm" => {
            let mut v = vec(Operand::Xmm);
            v.extend(mems(Size::Xmmword));
            v
        }
        "Y" => vec(Operand::Ymm),
        "Ym" => {
            let mut v = vec(Operand::Ymm);
            v.extend(mems(Size::Ymmword));
            v
        }
        "Z" => [0u8, 1, 7, 8, 9, 15, 16, 23, 31].map(Operand::Zmm).to_vec(),
        "Zm" => {
            let mut v = samples("Z", here);
            v.extend(mems(Size::Zmmword));
            // EVEX's compressed displacement (disp8 * 64): the extremes of disp8 and the first beyond them.
            v.extend([64, 8128, 8192, -8192, -8256].map(|d| Operand::Mem(Size::Zmmword, mem(RCX, d))));
            v
        }
        "Zkz" => [(0u8, 1u8), (1, 7), (8, 2), (15, 3), (16, 1), (31, 7)].map(|(z, k)| Operand::ZmmMaskz(z, k)).to_vec(),
        "Kr" => [0u8, 1, 7].map(Operand::K).to_vec(),
        // Each memory sample under k1, k7 (the first and last), k3.
        "M512k" => samples("M512", here)
            .into_iter()
            .zip([1u8, 7, 3].into_iter().cycle())
            .map(|(o, k)| match o {
                Operand::Mem(size, m) => Operand::MemMask(size, m, k),
                other => other,
            })
            .collect(),
        "M512" => samples("Zm", here).into_iter().filter(|o| matches!(o, Operand::Mem(..))).collect(),
        "M128" => mems(Size::Xmmword),
        "M256" => mems(Size::Ymmword),
        "M64" | "Addr" => mems(Size::Qword),
        "M32" => mems(Size::Dword),
        "Imm" => [1i64, 4, 31].map(Operand::Imm).to_vec(),
        "I32" => [0i64, 1, 127, 128, -128, -129, 100_000, -1, 0x7fff_ffff].map(Operand::Imm).to_vec(),
        "Imm64" => [0i64, -1, 1 << 40, i64::MIN, i64::MAX].map(Operand::Imm).to_vec(),
        "Sel" => [0u8, 1, 0x11, 0x4e, 0xff].map(Operand::Sel).to_vec(),
        other => panic!("no samples for operand kind {other}"),
    }
}

/// Whether a branch entry has only a rel8 form (`jrcxz`).
fn rel8_only(op: Op) -> bool {
    OPS[op as usize].encoding.is_some_and(|e| e.0.len() == 1 && format!("{:?}", e.0[0]).contains("rel8"))
}

/// Every instance of every entry: each operand position in turn takes all its samples while the others take
/// their first, then their last samples.
fn instances(here: &Label, near: &Label, far: &Label) -> Vec<(Op, Vec<Operand>)> {
    let mut out = Vec::new();
    for (i, info) in OPS.iter().enumerate() {
        let op = Op::ALL[i];
        if info.kinds == ["Target"] {
            // A branch without a rel32 form (`jrcxz`) reaches none of these: `short_branches_encode_as_assemblers_do`.
            if rel8_only(op) {
                continue;
            }
            for l in [here, near, far] {
                out.push((op, vec![Operand::Label(l.clone())]));
            }
            continue;
        }
        let all: Vec<Vec<Operand>> = info
            .kinds
            .iter()
            .map(|&k| match (info.name, k) {
                // A qword index: 0 or 1.
                ("vpinsrq" | "vpextrq", "Imm") => vec![Operand::Imm(0), Operand::Imm(1)],
                _ => samples(k, here),
            })
            .collect();
        if all.is_empty() {
            out.push((op, vec![]));
        }
        // The others at their first samples (low registers), then at their last (high registers, RIP).
        for base in [0, usize::MAX] {
            for pos in 0..all.len() {
                for s in &all[pos] {
                    let mut operands: Vec<Operand> = all.iter().map(|v| v[base.min(v.len() - 1)].clone()).collect();
                    operands[pos] = s.clone();
                    // `xchg rax, rax` is GNU as's `nop` (0x90), not an exchange: no kernel writes it.
                    if info.name == "xchg" && operands.iter().all(|o| *o == Operand::Gpr(0)) {
                        continue;
                    }
                    out.push((op, operands));
                }
            }
        }
    }
    out
}

/// The function of `instances`. The builder rejects instructions that write the stack pointer (kernels use its
/// frame API), so those (`mov rsp, rax`, `push`, ...) go into the body directly, after the builder has checked
/// the others.
fn function(instances: &[(Op, Vec<Operand>)], here: &Label, near: &Label, far: &Label) -> asmgen::Function<X86_64> {
    use asmgen::abi::Conventions;
    use asmgen::ir::{Inst, Item};
    let writes_sp = |op: &Op, operands: &[Operand]| X86_64::writes_stack(*op, operands, None);
    let mut b = Builder::<X86_64>::new("asmgen_test_encodings", Abi::SysV, <X86Feature as asmgen::Feature>::ALL);
    b.bind(here).bind(near).bind(far);
    for (op, operands) in instances.iter().filter(|(op, o)| !writes_sp(op, o)) {
        b.inst(*op, operands.clone());
    }
    let mut f = b.finish().unwrap();
    let inst = |(op, operands): &(Op, Vec<Operand>)| Item::Inst(Inst { op: *op, operands: operands.clone().into() });
    let (first, second) = instances.split_at(instances.len() / 2);
    f.body = std::iter::once(Item::Label(here.clone()))
        .chain(first.iter().map(inst))
        .chain([Item::Label(near.clone())])
        .chain(second.iter().map(inst))
        // Far enough that no short branch reaches it from the code above.
        .chain((0..200).map(|_| {
            let operands = vec![
                Operand::Xmm(1),
                Operand::Xmm(2),
                Operand::Mem(asmgen::isa::x86_64::Size::Xmmword, mem(RAX, 1024)),
            ];
            inst(&(Op::vpxor, operands))
        }))
        .chain([Item::Label(far.clone())])
        .collect();
    f
}

/// GNU as's bytes of the listing's one function, in its section `.text.<symbol>` (local labels resolve within
/// the section: no linking needed).
fn gnu_as(listing: &str) -> Vec<u8> {
    assemble(listing, &["as"])
}

/// The bytes of the listing's one function as the assembler command `asm` (then the source, `-o`, the object)
/// assembles it.
fn assemble(listing: &str, asm: &[&str]) -> Vec<u8> {
    // One directory per call: the tests run in parallel, two of them with llvm-mc.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("asmgen-x86-enc-{}-{}-{call}", asm[0], std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (s, o, bin) = (dir.join("t.S"), dir.join("t.o"), dir.join("t.bin"));
    std::fs::write(&s, listing).unwrap();
    let out = Command::new(asm[0]).args(&asm[1..]).arg(&s).arg("-o").arg(&o).output().expect("the assembler runs");
    assert!(out.status.success(), "{} rejected the listing:\n{}", asm[0], String::from_utf8_lossy(&out.stderr));
    let out = Command::new("objcopy")
        .args(["-O", "binary", "-j", ".text", "-j", ".text.*"])
        .arg(&o)
        .arg(&bin)
        .output()
        .expect("objcopy runs");
    assert!(out.status.success());
    let bytes = std::fs::read(&bin).unwrap();
    let _ = std::fs::remove_dir_all(dir);
    bytes
}

#[test]
fn every_entry_encodes_as_gnu_as_encodes_it() {
    let (here, near, far) = (Label::named("here"), Label::named("near"), Label::named("far"));
    let instances = instances(&here, &near, &far);
    let f = function(&instances, &here, &near, &far);
    let l = Listing { name: "t".into(), title: "encodings".into(), functions: vec![f] };
    let text = emit::listing(Target::X86_64_LINUX, &l, "gen/tests/x86_64_encoding.rs").unwrap();
    let image = lower(&[&l.functions[0]]).unwrap();
    if !have_all(&["as", "objcopy"], "comparing the lowered encodings with GNU as's") {
        return;
    }
    let gnu = gnu_as(&text);
    let code = &image.bytes[..image.code_len];
    if code != &gnu[..] {
        let at = code.iter().zip(&gnu).position(|(a, b)| a != b).unwrap_or(code.len().min(gnu.len()));
        let theirs = Image { bytes: gnu.clone(), code_len: gnu.len(), ..image.clone() };
        let line = |img: &Image| {
            asmgen::lower::x86_64::disassemble_range(img, 0, img.code_len)
                .lines()
                .take_while(|l| usize::from_str_radix(&l[2..6], 16).unwrap() <= at)
                .last()
                .unwrap_or("")
                .to_string()
        };
        panic!("the JIT and GNU as differ at {at:#x}:\n  JIT:    {}\n  GNU as: {}", line(&image), line(&theirs));
    }
    eprintln!("{} instances of {} entries: {} bytes identical to GNU as", instances.len(), OPS.len(), code.len());
}

/// The AVX-512 entries' instances (the combinations above) assembled by llvm-mc give the JIT's bytes too: EVEX
/// leaves an assembler no choice of prefix (where llvm-mc and GNU as may pick different VEX forms of the older
/// entries), so the two assemblers must agree with the lowering here.
#[test]
fn zmm_entries_encode_as_llvm_mc_encodes_them() {
    let (here, near, far) = (Label::named("here"), Label::named("near"), Label::named("far"));
    let zmm: Vec<_> = instances(&here, &near, &far)
        .into_iter()
        .filter(|(op, _)| OPS[*op as usize].features.contains(&X86Feature::Avx512f))
        .collect();
    assert!(zmm.len() > 500, "{} instances", zmm.len());
    let f = function(&zmm, &here, &near, &far);
    let l = Listing { name: "t".into(), title: "zmm encodings".into(), functions: vec![f] };
    let text = emit::listing(Target::X86_64_LINUX, &l, "gen/tests/x86_64_encoding.rs").unwrap();
    let image = lower(&[&l.functions[0]]).unwrap();
    if !have_all(&["llvm-mc-19", "objcopy"], "comparing the lowered zmm encodings with llvm-mc's") {
        return;
    }
    let theirs = assemble(&text, &["llvm-mc-19", "-triple=x86_64", "-filetype=obj"]);
    let code = &image.bytes[..image.code_len];
    let at = code.iter().zip(&theirs).position(|(a, b)| a != b);
    assert_eq!((at, code.len()), (None, theirs.len()), "the JIT and llvm-mc differ");
}

/// Every entry but the branches (whose relaxation is the assemblers' choice) assembled by llvm-mc decodes to the
/// JIT's instructions: the same bytes, or, where llvm-mc commutes the two sources of a commutative VEX instruction
/// to use the 2-byte VEX prefix (GNU as keeps the 3-byte one, as the JIT does), the same instruction with those
/// sources swapped (and RIP-relative displacements moved by the shorter instructions above); or `xchg` of two
/// registers with the registers swapped.
#[test]
fn every_entry_decodes_as_llvm_mc_encodes_it() {
    use iced_x86::{Decoder, DecoderOptions};
    let (here, near, far) = (Label::named("here"), Label::named("near"), Label::named("far"));
    let all: Vec<_> = instances(&here, &near, &far)
        .into_iter()
        .filter(|(op, _)| !OPS[*op as usize].kinds.contains(&"Target"))
        .collect();
    let f = function(&all, &here, &near, &far);
    let l = Listing { name: "t".into(), title: "llvm-mc encodings".into(), functions: vec![f] };
    let text = emit::listing(Target::X86_64_LINUX, &l, "gen/tests/x86_64_encoding.rs").unwrap();
    let image = lower(&[&l.functions[0]]).unwrap();
    if !have_all(&["llvm-mc-19", "objcopy"], "comparing the lowered encodings with llvm-mc's") {
        return;
    }
    let theirs = assemble(&text, &["llvm-mc-19", "-triple=x86_64", "-filetype=obj"]);
    let decode = |code: &[u8]| -> Vec<(String, Vec<u8>)> {
        let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
        d.iter().map(|i| (i.to_string(), code[i.ip() as usize..i.next_ip() as usize].to_vec())).collect()
    };
    let (ours, mc) = (decode(&image.bytes[..image.code_len]), decode(&theirs));
    assert_eq!(ours.len(), mc.len(), "instruction counts");
    let mut commuted = 0;
    for ((a, ab), (b, bb)) in ours.iter().zip(&mc) {
        // The same text: RIP-relative operands decode to their target, wherever a commuted instruction above moved
        // them.
        if ab == bb || a == b {
            continue;
        }
        // "mnemonic d,s1,s2[,imm]": the same with s1 and s2 swapped.
        let parts = |s: &str| -> Vec<String> { s.split([' ', ',']).map(str::to_string).collect() };
        let (mut pa, pb) = (parts(a), parts(b));
        // `xchg` of two registers commutes: llvm-mc puts the other one in ModRM.rm.
        if pa.len() == 3 && pa[0] == "xchg" && [&pa[0], &pa[2], &pa[1]] == [&pb[0], &pb[1], &pb[2]] {
            commuted += 1;
            continue;
        }
        assert!(pa.len() >= 4 && pa[0].starts_with('v'), "the JIT's {a} ({ab:02x?}), llvm-mc's {b} ({bb:02x?})");
        pa.swap(2, 3);
        assert_eq!(pa, pb, "the JIT's {a} ({ab:02x?}), llvm-mc's {b} ({bb:02x?})");
        commuted += 1;
    }
    eprintln!("{} instructions decode alike ({commuted} with commuted sources)", ours.len());
}

/// The branches with a rel8 form only (`jrcxz`), back and forward within reach, assembled by GNU as and by
/// llvm-mc-19: the JIT's bytes.
#[test]
fn short_branches_encode_as_assemblers_do() {
    let (back, ahead) = (Label::named("back"), Label::named("ahead"));
    let mut b = Builder::<X86_64>::new("asmgen_test_short", Abi::SysV, &[]);
    b.bind(&back);
    let short: Vec<Op> =
        Op::ALL.iter().copied().filter(|&op| OPS[op as usize].kinds == ["Target"] && rel8_only(op)).collect();
    assert!(!short.is_empty());
    for &op in &short {
        b.inst(op, vec![Operand::Label(back.clone())]);
        b.inst(op, vec![Operand::Label(ahead.clone())]);
    }
    for _ in 0..20 {
        b.inst(Op::add, vec![Operand::Gpr(0), Operand::Imm(1)]);
    }
    b.bind(&ahead);
    let f = b.finish().unwrap();
    let l = Listing { name: "t".into(), title: "short branches".into(), functions: vec![f] };
    let text = emit::listing(Target::X86_64_LINUX, &l, "gen/tests/x86_64_encoding.rs").unwrap();
    let image = lower(&[&l.functions[0]]).unwrap();
    let code = &image.bytes[..image.code_len];
    for asm in [&["as"][..], &["llvm-mc-19", "-triple=x86_64", "-filetype=obj"]] {
        if !have_all(&[asm[0], "objcopy"], "comparing the short branches with an assembler's") {
            continue;
        }
        let theirs = assemble(&text, asm);
        assert_eq!(code, &theirs[..], "the JIT and {} differ", asm[0]);
    }
}
