//! Every encodable entry of the aarch64 table, checked against real assemblers.
//!
//! For each entry with an encoding, several sets of sample operands are built from the entry's operand kinds;
//! each instruction is printed exactly as listings print it (`format_inst`) and encoded with the table's
//! encoding. All printed lines are assembled with GNU as (`aarch64-linux-gnu-as`, the assembler the listings are
//! built with) and, when present, LLVM's `llvm-mc-19`; the words they produce must equal ours. A missing
//! assembler skips that half with a notice, or fails the test when `CI` is set (CI installs both).

use asmgen::abi::Conventions;
use asmgen::ir::{Inst, Item};
use asmgen::isa::aarch64::{regs::*, Aarch64, Operand, OPS, V};
use asmgen::isa::InstructionSet;
use asmgen::syntax::format_inst;
use asmgen::{Abi, Builder, CType, Listing, Target};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::have_all;

mod support;

const GAS: &str = "aarch64-linux-gnu-as";
const GAS_MARCH: &str = "-march=armv8.2-a+crypto+sm4+sha3";
const OBJCOPY: &str = "aarch64-linux-gnu-objcopy";
const LLVM_MC: &str = "llvm-mc-19";

/// Number of operand sample sets per entry.
const SETS: usize = 3;

/// Sample operand `pos` of kind `kind` in sample set `set`. `lane` counts the `Lane` operands seen so far.
fn sample(kind: &str, pos: usize, set: usize, lane: &mut usize) -> Operand {
    const XREGS: [[u8; 4]; SETS] = [[1, 2, 3, 4], [30, 17, 9, 0], [31, 11, 22, 5]];
    const VREGS: [[u8; 4]; SETS] = [[1, 2, 3, 4], [31, 16, 8, 0], [0, 31, 17, 9]];
    let x = XREGS[set][pos];
    let v = VREGS[set][pos];
    let pick = |vals: [i64; SETS]| Operand::Imm(vals[set]);
    match kind {
        // Set 2 exercises register number 31: xzr where the form reads it as xzr (first operand), sp in every
        // address/immediate-arithmetic position that admits sp.
        "Xn" if x == 31 => Operand::Xzr,
        "Xn" => Operand::X(x),
        "Xm" => Operand::X(x.min(30)),
        "XnSp" if set == 2 => Operand::Sp,
        "Wn" if x == 31 => Operand::Wzr,
        "Wn" => Operand::W(x),
        "WnSp" if set == 2 => Operand::Wsp,
        "WnSp" => Operand::W(x),
        "XnSp" => Operand::X(x),
        "Vn" => Operand::V(v),
        // Register lists: set 1 starts at v31 and wraps to v0..v2.
        "VList16b" => Operand::List4(v, "16b"),
        "VList4s" => Operand::List4(v, "4s"),
        "VListS" => Operand::List4(v, "s"),
        "VList2d" => Operand::List4(v, "2d"),
        "VTriple16b" => Operand::List3(v, "16b"),
        "VTriple2d" => Operand::List3(v, "2d"),
        "VPair16b" => Operand::List2(v, "16b"),
        "VPair2d" => Operand::List2(v, "2d"),
        "VPair4s" => Operand::List2(v, "4s"),
        "Qn" => Operand::Q(v),
        "Dn" => Operand::D(v),
        "Sn" => Operand::S(v),
        "Imm12" => pick([0, 4095, 1234]),
        "Imm8" => pick([0, 0xff, 0xa5]),
        "Imm4" => pick([0, 15, 8]),
        "Shift" => pick([1, 63, 13]),
        "Shift32" => pick([1, 31, 13]),
        "LaneS" => pick([0, 3, 2]),
        "Lane" => {
            const LANES: [[i64; 2]; SETS] = [[0, 1], [1, 0], [1, 1]];
            let l = LANES[set][*lane];
            *lane += 1;
            Operand::Imm(l)
        }
        "UOff" => pick([0, 4080, 32752]),
        "UOff1" => pick([0, 4095, 1234]),
        "UOff4" => pick([0, 16380, 1236]),
        "Imm3" => pick([0, 7, 5]),
        "ExtShift" => pick([0, 4, 3]),
        "Shift8" => pick([1, 8, 5]),
        "LaneB" => pick([0, 15, 9]),
        "Bit32" => pick([0, 31, 17]),
        "MovShift" => pick([0, 16, 16]),
        // Element sizes 64, 2, 32 and 8 bits; rotations 4, 0, 16 and 3.
        "BitImm32" => pick([0xffff_fff0, 0x5555_5555, 0x00ff_ff00]),
        "BitImm64" => pick([0xffff_ffff_ffff_fff0_u64 as i64, 0x5555_5555_5555_5555, 0x00ff_ff00_00ff_ff00]),
        "SOff" => pick([16, -256, 240]),
        other => panic!("no sample operands for kind {other}"),
    }
}

struct Case {
    name: &'static str,
    /// The line as a listing prints it (a `.inst` line for mnemonics GNU as lacks).
    line: String,
    /// The instruction text (for `.inst` lines, the mnemonic from their comment).
    text: String,
    word: u32,
}

fn cases() -> Vec<Case> {
    let ctx = asmgen::syntax::Directives::ELF.print_ctx();
    let mut cases = Vec::new();
    let mut encodable = 0;
    for (i, info) in OPS.iter().enumerate() {
        let Some(enc) = info.encoding else { continue };
        if enc.label.is_some() {
            // Checked with linked addresses by `label_entries_match_gnu_as_when_linked`.
            continue;
        }
        encodable += 1;
        for set in 0..SETS {
            let mut lane = 0;
            let operands: Vec<Operand> =
                info.kinds.iter().enumerate().map(|(pos, k)| sample(k, pos, set, &mut lane)).collect();
            let values: Vec<i64> =
                operands.iter().map(|o| Aarch64::operand_value(o).expect("encodable operand")).collect();
            let word = enc.encode(&values).unwrap_or_else(|e| panic!("{}: {:?}: {}", info.name, operands, e.0));
            let inst = Inst::<Aarch64> { op: op_of(i), operands: operands.into() };
            let line = format_inst(&inst, &ctx);
            let text = match line.split_once("// ") {
                Some((_, mnemonic)) if !enc.gas => mnemonic.to_string(),
                _ => line.trim().to_string(),
            };
            cases.push(Case { name: info.name, line, text, word });
        }
    }
    assert!(encodable > 50, "only {encodable} encodable entries");
    cases
}

/// The `Op` of table index `i`.
fn op_of(i: usize) -> asmgen::isa::aarch64::Op {
    let op = asmgen::isa::aarch64::Op::ALL[i];
    assert!(std::ptr::eq(Aarch64::info(op), &OPS[i]));
    op
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asmgen-a64-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Assembles `source` with GNU as and returns the words of `.text` (or of the one function's `.text.<symbol>`
/// section in an emitted listing: with more than one, `-O binary` would lay them over each other).
fn gas_words(dir: &Path, source: &str) -> Vec<u32> {
    let s = dir.join("t.s");
    let o = dir.join("t.o");
    let bin = dir.join("t.bin");
    std::fs::write(&s, source).unwrap();
    run(Command::new(GAS).arg(GAS_MARCH).arg(&s).arg("-o").arg(&o));
    run(Command::new(OBJCOPY).args(["-O", "binary", "-j", ".text", "-j", ".text.*"]).arg(&o).arg(&bin));
    let bytes = std::fs::read(&bin).unwrap();
    bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn compare(who: &str, cases: &[Case], words: &[u32]) {
    assert_eq!(words.len(), cases.len(), "{who} produced {} words for {} instructions", words.len(), cases.len());
    let mut bad = Vec::new();
    for (c, w) in cases.iter().zip(words) {
        if c.word != *w {
            bad.push(format!("{:<14} {:<48} ours {:#010x}  {who} {w:#010x}", c.name, c.line.trim(), c.word));
        }
    }
    assert!(bad.is_empty(), "{} of {} encodings differ from {who}:\n{}", bad.len(), cases.len(), bad.join("\n"));
}

#[test]
fn every_encoding_matches_gnu_as() {
    let cases = cases();
    if !have_all(&[GAS, OBJCOPY], "the GNU as comparison") {
        return;
    }
    let mut src = String::from("\t.arch armv8.2-a+crypto+sm4+sha3\n\t.text\n");
    for c in &cases {
        src.push_str(&c.line);
        src.push('\n');
    }
    let dir = scratch("gas");
    let words = gas_words(&dir, &src);
    compare("GNU as", &cases, &words);
    let _ = std::fs::remove_dir_all(dir);
    eprintln!("{} instructions match GNU as", cases.len());
}

#[test]
fn every_encoding_matches_llvm_mc() {
    let cases = cases();
    if !have_all(&[LLVM_MC], "the llvm-mc comparison") {
        return;
    }
    let dir = scratch("llvm");
    let s = dir.join("t.s");
    let mut src = String::new();
    for c in &cases {
        src.push_str(&c.text);
        src.push('\n');
    }
    std::fs::write(&s, src).unwrap();
    let out = run(Command::new(LLVM_MC)
        .args(["-triple=aarch64", "-mattr=+v8.2a,+aes,+sha2,+sm4,+sha3", "-show-encoding"])
        .arg(&s));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("error"), "{LLVM_MC} reported errors:\n{stderr}");
    let words: Vec<u32> = stdout
        .lines()
        .filter_map(|l| l.split_once("encoding: [").map(|(_, r)| r))
        .map(|r| {
            let bytes: Vec<u8> = r
                .trim_end_matches(']')
                .split(',')
                .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap())
                .collect();
            u32::from_le_bytes(bytes.try_into().unwrap())
        })
        .collect();
    compare("llvm-mc", &cases, &words);
    let _ = std::fs::remove_dir_all(dir);
    eprintln!("{} instructions match llvm-mc", cases.len());
}

/// Where a label case's target is: the start of `.text`, just after the cases, or far after them.
const TARGETS: [&str; 3] = ["back", "near", "far"];
/// The gap before the far label (crosses many 4 KiB pages; not a multiple of 4096).
const FAR_GAP: u64 = 0x2_3454;
/// Where the test links `.text` (a page boundary falls among the cases).
const TEXT_BASE: u64 = 0x40_0f80;

struct LabelCase {
    name: &'static str,
    line: String,
    words: Vec<u32>,
}

/// Every entry with a label operand, against each target that its range admits, encoded for the addresses the
/// linker will give them.
fn label_cases() -> (Vec<LabelCase>, String) {
    let ctx = asmgen::syntax::Directives::ELF.print_ctx();
    let mut cand: Vec<(usize, usize)> = Vec::new();
    for (i, info) in OPS.iter().enumerate() {
        if info.encoding.is_some_and(|e| e.label.is_some()) {
            cand.extend((0..SETS).map(|set| (i, set)));
        }
    }
    assert!(cand.len() >= 11 * SETS, "label entries missing");
    loop {
        // Layout: .Lback: nop; cases...; .Lnear: nop; .skip FAR_GAP; .Lfar: nop
        let n: u64 = cand.iter().map(|&(i, _)| OPS[i].encoding.unwrap().len_bytes() as u64).sum();
        let addr = [TEXT_BASE, TEXT_BASE + 4 + n, TEXT_BASE + 4 + n + 4 + FAR_GAP];
        let mut pc = TEXT_BASE + 4;
        let mut cases = Vec::new();
        let mut keep = Vec::new();
        for &(i, set) in &cand {
            let info = &OPS[i];
            let enc = info.encoding.unwrap();
            let lref = enc.label.unwrap();
            let mut lane = 0;
            let operands: Vec<Operand> = info
                .kinds
                .iter()
                .enumerate()
                .map(|(pos, k)| match *k {
                    "Target" => Operand::Label(asmgen::Label::named(TARGETS[set])),
                    k => sample(k, pos, set, &mut lane),
                })
                .collect();
            let values: Vec<i64> = operands
                .iter()
                .enumerate()
                .map(|(pos, o)| {
                    if pos == lref.operand as usize {
                        lref.value.value(pc, addr[set])
                    } else {
                        Aarch64::operand_value(o).unwrap()
                    }
                })
                .collect();
            if let Ok(words) = enc.encode_words(&values) {
                keep.push((i, set));
                let line = format_inst(&Inst::<Aarch64> { op: op_of(i), operands: operands.into() }, &ctx);
                cases.push(LabelCase { name: info.name, line, words });
            }
            pc += enc.len_bytes() as u64;
        }
        if keep.len() == cand.len() {
            let mut src = String::from("\t.arch armv8.2-a+crypto+sm4+sha3\n\t.text\n.Lback:\n\tnop\n");
            for c in &cases {
                src.push_str(&c.line);
                src.push('\n');
            }
            src.push_str(&format!(".Lnear:\n\tnop\n\t.skip {FAR_GAP}\n.Lfar:\n\tnop\n"));
            return (cases, src);
        }
        cand = keep;
    }
}

/// Branches, `adr`, `adrp` and `add :lo12:`: the table's encodings with the label values the JIT computes
/// equal GNU as's output once `ld` has placed `.text` (so that page-relative forms are resolved too).
#[test]
fn label_entries_match_gnu_as_when_linked() {
    const LD: &str = "aarch64-linux-gnu-ld";
    let (cases, src) = label_cases();
    if !have_all(&[GAS, OBJCOPY, LD], "the linked label check") {
        return;
    }
    let dir = scratch("labels");
    let (s, o, elf, bin) = (dir.join("l.s"), dir.join("l.o"), dir.join("l.elf"), dir.join("l.bin"));
    std::fs::write(&s, &src).unwrap();
    run(Command::new(GAS).arg(GAS_MARCH).arg(&s).arg("-o").arg(&o));
    run(Command::new(LD).arg(format!("-Ttext={TEXT_BASE:#x}")).args(["-e", "0", "-o"]).arg(&elf).arg(&o));
    run(Command::new(OBJCOPY).args(["-O", "binary", "-j", ".text"]).arg(&elf).arg(&bin));
    let bytes = std::fs::read(&bin).unwrap();
    let words: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let mut at = 1;
    let mut bad = Vec::new();
    for c in &cases {
        let got = &words[at..at + c.words.len()];
        if got != c.words.as_slice() {
            bad.push(format!("{:<10} {:<36} ours {:08x?} GNU as {got:08x?}", c.name, c.line.trim(), c.words));
        }
        at += c.words.len();
    }
    let _ = std::fs::remove_dir_all(dir);
    assert!(bad.is_empty(), "{} of {} label encodings differ:\n{}", bad.len(), cases.len(), bad.join("\n"));
    eprintln!("{} label instructions match GNU as", cases.len());
}

#[test]
fn encoder_rejects_unencodable_immediates() {
    use asmgen::isa::aarch64::Op;
    let enc = |op: Op, values: &[i64]| Aarch64::info(op).encoding.unwrap().encode(values);
    // Misaligned and out-of-range scaled offsets.
    assert!(enc(Op::ldr_q, &[0, 1, 8]).is_err());
    assert!(enc(Op::ldr_q, &[0, 1, -16]).is_err());
    assert!(enc(Op::ldr_q, &[0, 1, 65536]).is_err());
    assert!(enc(Op::ldr_q, &[0, 1, 65520]).is_ok());
    assert!(enc(Op::stp_x_pre, &[0, 1, 31, -520]).is_err());
    assert!(enc(Op::stp_x_pre, &[0, 1, 31, -512]).is_ok());
    assert!(enc(Op::stp_x_pre, &[0, 1, 31, 12]).is_err());
    assert!(enc(Op::str_x_pre, &[0, 31, -257]).is_err());
    // Shift counts.
    assert!(enc(Op::ushr_2d, &[0, 1, 0]).is_err());
    assert!(enc(Op::ushr_2d, &[0, 1, 64]).is_ok());
    assert!(enc(Op::shl_2d, &[0, 1, 64]).is_err());
    // Lane indices and 12-bit immediates.
    assert!(enc(Op::dup_2d, &[0, 1, 2]).is_err());
    assert!(enc(Op::add_imm, &[0, 1, 4096]).is_err());
    // Branch and address ranges.
    assert!(enc(Op::b_ne, &[2]).is_err(), "misaligned branch");
    assert!(enc(Op::b_ne, &[1 << 20]).is_err());
    assert!(enc(Op::b_ne, &[-(1 << 20)]).is_ok());
    assert!(enc(Op::adr, &[0, 1 << 20]).is_err());
    assert!(enc(Op::adrp, &[0, 100]).is_err(), "adrp takes whole pages");
    // The forms added for the corpus: 32-bit shifts and lanes, 8-bit shifts, scaled 32-bit offsets.
    assert!(enc(Op::ror_w_imm, &[0, 1, 32]).is_err());
    assert!(enc(Op::eor_w_ror, &[0, 1, 2, 31]).is_ok());
    assert!(enc(Op::eor_w_ror, &[0, 1, 2, 32]).is_err());
    assert!(enc(Op::ushr_16b, &[0, 1, 0]).is_err());
    assert!(enc(Op::ushr_16b, &[0, 1, 9]).is_err());
    assert!(enc(Op::ext_8b, &[0, 1, 2, 8]).is_err());
    assert!(enc(Op::ins_b_w, &[0, 16, 1]).is_err());
    assert!(enc(Op::ldr_w, &[0, 1, 6]).is_err(), "32-bit loads take multiples of 4");
    assert!(enc(Op::ldr_w, &[0, 1, 16380]).is_ok());
    assert!(enc(Op::ldp_w, &[0, 1, 2, 256]).is_err());
    assert!(enc(Op::movk_w, &[0, 1, 8]).is_err());
    assert!(enc(Op::movk_w, &[0, 1, 32]).is_err(), "a 32-bit register has hw 0 and 1");
    assert!(enc(Op::tbz_w, &[0, 32, 8]).is_err());
    assert!(enc(Op::tbz_w, &[0, 31, 1 << 15]).is_err(), "tbz reaches 32 KiB");
    assert!(enc(Op::sub_ext, &[0, 31, 1, 5]).is_err());
}

/// Logical immediates: the encoder's N:immr:imms for patterns of several element sizes (the expected fields are
/// GNU as's), and values that are none (0, all ones, two runs in an element).
#[test]
fn logical_immediates_encode_and_reject() {
    use asmgen::isa::aarch64::bitmask64;
    for (v, want) in [
        (0xffff_ffff_ffff_fff0_u64, 0x1f3b),
        (0x7, 0x1002),
        (0x5555_5555_5555_5555, 0x03c),
        (0x3333_3333_3333_3333, 0x039),
        (0x8000_0000_0000_0000, 0x1040),
        (0x0000_ffff_0000_ffff, 0x00f),
        (0xffff_fffe_ffff_fffe, 0x07de),
    ] {
        assert_eq!(bitmask64(v as i64), Ok(want), "{v:#x}");
    }
    for v in [0u64, u64::MAX, 5, 0x0f0f_0f0f_0f0f_0f0e, 0x1234_5678_9abc_def0] {
        let e = bitmask64(v as i64).unwrap_err();
        assert!(e.to_string().starts_with("logical immediate"), "{e}");
    }
    // 32-bit patterns: N stays 0; a value beyond 32 bits or without a rotated run is rejected.
    assert_eq!(asmgen::isa::aarch64::bitmask32(0xffff_fff0), Ok(0x71b));
    for v in [0, 0xffff_ffff, 0x1_0000_0000, -1, 0x1234_5678] {
        assert!(asmgen::isa::aarch64::bitmask32(v).is_err(), "{v:#x}");
    }
}

/// A function that touches callee-saved registers gets a prologue that saves them in pairs, with unwind
/// directives, and an epilogue that restores them; the listing assembles.
#[test]
fn prologue_saves_callee_saved_registers() {
    let mut b = Builder::<Aarch64>::new("frame_test", Abi::Aapcs64, &[]);
    let _p = b.param("p", CType::BytePtr);
    for r in [X19, X20, X21, X30] {
        b.mov(r, X0);
    }
    for n in [8, 9, 10] {
        b.movi_zero(V(n));
    }
    let f = b.finish().unwrap();
    let saved: Vec<String> = f.frame.saved.iter().map(|r| Aarch64::reg_name(*r)).collect();
    assert_eq!(saved, ["x19", "x20", "x21", "x30", "v8", "v9", "v10"]);
    let (pro, epi) = Aarch64::prologue_epilogue(Abi::Aapcs64, &f.frame);
    let ctx = asmgen::syntax::Directives::ELF.print_ctx();
    let insts = |items: &[Item<Aarch64>]| -> Vec<String> {
        items
            .iter()
            .filter_map(|i| match i {
                Item::Inst(inst) => Some(format_inst(inst, &ctx).split_whitespace().collect::<Vec<_>>().join(" ")),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        insts(&pro),
        ["stp x19, x20, [sp, #-64]!", "stp x21, x30, [sp, #16]", "stp d8, d9, [sp, #32]", "str d10, [sp, #48]",]
    );
    assert_eq!(
        insts(&epi),
        ["ldr d10, [sp, #48]", "ldp d8, d9, [sp, #32]", "ldp x21, x30, [sp, #16]", "ldp x19, x20, [sp], #64", "ret",]
    );
    let listing = Listing { name: "frame".into(), title: "prologue test".into(), functions: vec![f] };
    let text = asmgen::emit::listing(Target::AARCH64_LINUX, &listing, "test").unwrap();
    for cfi in [
        ".cfi_adjust_cfa_offset 64",
        ".cfi_rel_offset x19, 0",
        ".cfi_rel_offset x30, 24",
        ".cfi_rel_offset d10, 48",
        ".cfi_adjust_cfa_offset -64",
        ".cfi_restore d9",
    ] {
        assert!(text.contains(cfi), "missing {cfi} in\n{text}");
    }
    if !have_all(&[GAS, OBJCOPY], "assembling the listing") {
        return;
    }
    let dir = scratch("frame");
    let words = gas_words(&dir, &text);
    let _ = std::fs::remove_dir_all(dir);
    // bti c, 4 stores, 7 movs, 4 loads, ret.
    assert_eq!(words.len(), 1 + 4 + 7 + 4 + 1);
    assert_eq!(words[0], 0xd503245f, "bti c");
}

/// A function that uses x18 cannot be expressed under Apple's AAPCS64, which reserves it: finishing it is an
/// error naming the function (so `cargo xtask gen` fails with that name); under AAPCS64 it builds.
#[test]
fn x18_is_an_error_under_an_abi_that_reserves_it() {
    let build = |abi: Abi| {
        let mut b = Builder::<Aarch64>::new("uses_x18", abi, &[]);
        let p = b.param("p", CType::BytePtr);
        b.mov(X18, p).mov(X0, X18);
        b.finish()
    };
    let Err(e) = build(Abi::AppleAapcs64) else { panic!("x18 is reserved on Apple arm64") };
    assert_eq!(e.function, "uses_x18");
    assert!(e.to_string().starts_with("uses_x18: uses x18"), "{e}");
    let Ok(f) = build(Abi::Aapcs64) else { panic!("x18 is an ordinary temporary under AAPCS64") };
    let listing = Listing { name: "x18".into(), title: "x18 test".into(), functions: vec![f] };
    let e = asmgen::emit::listing(Target::AARCH64_MACOS, &listing, "test").expect_err("built for another ABI");
    assert!(e.message.contains("AppleAapcs64"), "{e}");
    assert_eq!(e.function, "uses_x18");
}
