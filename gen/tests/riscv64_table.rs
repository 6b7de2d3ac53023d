//! Table-driven check of the riscv64 encodings: every table entry that has an encoding is printed with sample
//! operands, encoded by asmgen, assembled by GNU as (`riscv64-linux-gnu-as`) and by `llvm-mc-19` where they are
//! installed, and the assemblers' words must equal asmgen's. A missing assembler skips its comparison with a
//! notice, or fails the test when `CI` is set.
//!
//! Entries GNU as 2.40 does not know (vector crypto) are printed as raw words; llvm-mc assembles their
//! mnemonic form (taken from the listing comment), so their encodings are still checked against a real
//! assembler.

use asmgen::ir::Inst;
use asmgen::isa::riscv64::{mem, Op, Operand, Riscv64, VType, VTypePol, OPS, X};
use asmgen::isa::InstructionSet;
use asmgen::syntax::format_inst;
use asmgen::syntax::Spelling;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{have_all, runs};

mod support;

const GAS: &str = "riscv64-linux-gnu-as";
const GAS_MARCH: &str = "-march=rv64gcv_zbb_zbc_zbkb_zbkx_zknd_zkne_zknh_zksed_zksh";
const LLVM_MC: &str = "llvm-mc-19";
const LLVM_MATTR: &str = "-mattr=+v,+zvksed,+zvkg,+zvbc,+zvkb,+zvbb,+zvkned,+zvknhb,+zvksh,+zbb,+zbc,+zbkb,+zbkx,+zknd,+zkne,+zknh,+zksed,+zksh";

/// Sample operand number `k` (0, 1, 2) for operand `j` of an entry: registers and immediates vary so that
/// every field is exercised with distinct, non-zero values (and negative offsets and immediates).
fn sample(kind: &str, j: usize, k: usize) -> Operand {
    let reg = |j: usize, k: usize| -> u8 {
        match ([5usize, 17, 31][k] + 7 * j) % 32 {
            0 => 1,
            r => r as u8,
        }
    };
    match kind {
        "Xr" | "Vr" | "VAddr" => {
            let r = reg(j, k);
            match kind {
                "Xr" => Operand::X(r),
                "Vr" => Operand::V(r),
                _ => Operand::Base(r),
            }
        }
        "Vr2" | "Vr4" | "Vr8" => {
            let n: u8 = kind[2..].parse().unwrap();
            Operand::V(([8u8, 16, 24][k] + n * j as u8) / n * n % 32)
        }
        "Simm12" => Operand::Imm([-2048, 2047, -5][k]),
        "Shamt" => Operand::Imm([1, 63, 32][k]),
        "Uimm5" => Operand::Imm([1, 31, 16][k]),
        "Bs" => Operand::Imm([0, 3, 2][k]),
        "Rnum" => Operand::Imm([0, 10, 5][k]),
        "Simm5" => Operand::Imm([-16, 15, -5][k]),
        "Uimm20" => Operand::Imm([1, 0xfffff, 0x12345][k]),
        "M" => Operand::Mem(mem(X(reg(j, k)), [-2048, 2047, -8][k])),
        "VTypeI" => {
            Operand::VType([VType { sew: 32, lmul: 1 }, VType { sew: 64, lmul: 8 }, VType { sew: 8, lmul: 2 }][k])
        }
        "VTypeP" => Operand::VTypePol(
            [
                VTypePol { vtype: VType { sew: 64, lmul: 1 }, tail_undisturbed: true, mask_undisturbed: true },
                VTypePol { vtype: VType { sew: 16, lmul: 4 }, tail_undisturbed: true, mask_undisturbed: false },
                VTypePol { vtype: VType { sew: 32, lmul: 8 }, tail_undisturbed: false, mask_undisturbed: true },
            ][k],
        ),
        other => panic!("no sample for operand kind {other}"),
    }
}

fn run(cmd: &mut Command) {
    let out = cmd.output().expect("spawn");
    assert!(
        out.status.success(),
        "{:?} failed:\n{}{}",
        cmd,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Assembles `src` into an object with `assemble(src, obj)`, extracts `.text` and returns its 32-bit words.
fn words(dir: &Path, name: &str, src: &str, assemble: impl Fn(&Path, &Path)) -> Vec<u32> {
    let s = dir.join(format!("{name}.s"));
    let o = dir.join(format!("{name}.o"));
    let bin = dir.join(format!("{name}.bin"));
    std::fs::write(&s, src).unwrap();
    assemble(&s, &o);
    let objcopy = if runs("llvm-objcopy-19") { "llvm-objcopy-19" } else { "riscv64-linux-gnu-objcopy" };
    run(Command::new(objcopy).args(["-O", "binary", "--only-section=.text"]).arg(&o).arg(&bin));
    let bytes = std::fs::read(&bin).unwrap();
    assert_eq!(bytes.len() % 4, 0, "{name}: compressed instructions in .text");
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The assembler text of a printed line: raw words carry the mnemonic form in their comment.
fn mnemonic_form(line: &str) -> String {
    let t = line.trim();
    if t.starts_with(Riscv64::RAW_DIRECTIVE) {
        let (_, m) = t.split_once("# ").expect("raw word without its mnemonic");
        format!("\t{}", m.trim())
    } else {
        line.to_string()
    }
}

struct Case {
    name: &'static str,
    line: String,
    word: u32,
    gas_known: bool,
}

fn cases() -> Vec<Case> {
    let ctx = asmgen::syntax::Directives::ELF.print_ctx();
    assert_eq!(Op::ALL.len(), OPS.len());
    let mut cases = Vec::new();
    for (info, &op) in OPS.iter().zip(Op::ALL) {
        assert_eq!(Riscv64::info(op).name, info.name);
        let has_label = info.kinds.contains(&"Target");
        let enc = info.encoding.unwrap_or_else(|| panic!("{}: no encoding", info.name));
        if has_label {
            // Checked with linked addresses by `label_entries_match_gnu_as_when_linked`.
            continue;
        }
        for k in 0..3 {
            let operands: Vec<Operand> = info.kinds.iter().enumerate().map(|(j, kind)| sample(kind, j, k)).collect();
            let values: Vec<i64> = operands.iter().map(|o| Riscv64::operand_value(o).expect("operand value")).collect();
            let word = enc.encode(&values).unwrap_or_else(|e| panic!("{}: {}", info.name, e.0));
            let line = format_inst(&Inst::<Riscv64> { op, operands: operands.into() }, &ctx);
            cases.push(Case { name: info.name, line, word, gas_known: enc.gas });
            if info.kinds.is_empty() {
                break;
            }
        }
    }
    cases
}

fn scratch(who: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("asmgen-riscv64-table-{who}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn compare(who: &str, cases: &[Case], got: &[u32]) {
    assert_eq!(got.len(), cases.len(), "{who}: word count");
    let mut bad = Vec::new();
    for (c, &w) in cases.iter().zip(got) {
        if c.word != w {
            bad.push(format!("{}: `{}`: asmgen {:#010x}, {who} {w:#010x}", c.name, c.line.trim(), c.word));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_entry_has_an_encoding_and_labels_are_described() {
    for info in OPS {
        let has_label = info.kinds.contains(&"Target");
        let enc = info.encoding.unwrap_or_else(|| panic!("{}: no encoding", info.name));
        assert_eq!(enc.label.is_some(), has_label, "{}", info.name);
        if let Some(l) = enc.label {
            assert_eq!(info.kinds[l.operand as usize], "Target", "{}", info.name);
        }
    }
}

/// Where a label case's target is: the start of `.text`, just after the cases, or far after them.
const TARGETS: [&str; 3] = ["back", "near", "far"];
/// The gap before the far label (beyond a branch's +-4 KiB, within `j`'s +-1 MiB).
const FAR_GAP: u64 = 0x2_3454;
const TEXT_BASE: u64 = 0x1_0f80;

struct LabelCase {
    name: &'static str,
    line: String,
    words: Vec<u32>,
}

/// Every entry with a label operand, against each target its range admits, encoded for the addresses the
/// linker will give them.
fn label_cases() -> (Vec<LabelCase>, String) {
    let ctx = asmgen::syntax::Directives::ELF.print_ctx();
    let mut cand: Vec<(usize, usize)> = Vec::new();
    for (i, info) in OPS.iter().enumerate() {
        if info.encoding.is_some_and(|e| e.label.is_some()) {
            cand.extend((0..3).map(|k| (i, k)));
        }
    }
    assert!(cand.len() >= 8 * 3, "label entries missing");
    loop {
        let n: u64 = cand.iter().map(|&(i, _)| OPS[i].encoding.unwrap().len_bytes() as u64).sum();
        let addr = [TEXT_BASE, TEXT_BASE + 4 + n, TEXT_BASE + 4 + n + 4 + FAR_GAP];
        let mut pc = TEXT_BASE + 4;
        let mut cases = Vec::new();
        let mut keep = Vec::new();
        for &(i, k) in &cand {
            let info = &OPS[i];
            let enc = info.encoding.unwrap();
            let lref = enc.label.unwrap();
            let operands: Vec<Operand> = info
                .kinds
                .iter()
                .enumerate()
                .map(|(j, kind)| match *kind {
                    "Target" => Operand::Label(asmgen::Label::named(TARGETS[k])),
                    kind => sample(kind, j, k),
                })
                .collect();
            let values: Vec<i64> = operands
                .iter()
                .enumerate()
                .map(|(j, o)| {
                    if j == lref.operand as usize {
                        lref.value.value(pc, addr[k])
                    } else {
                        Riscv64::operand_value(o).unwrap()
                    }
                })
                .collect();
            if let Ok(words) = enc.encode_words(&values) {
                keep.push((i, k));
                let line = format_inst(&Inst::<Riscv64> { op: Op::ALL[i], operands: operands.into() }, &ctx);
                cases.push(LabelCase { name: info.name, line, words });
            }
            pc += enc.len_bytes() as u64;
        }
        if keep.len() == cand.len() {
            let mut src = String::from("\t.option norvc\n\t.text\n.Lback:\n\tnop\n");
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

/// Branches, `j` and `lla` (`auipc` + `addi`): the table's encodings with the label values the JIT computes
/// equal GNU as's output once `ld` has placed `.text`.
#[test]
fn label_entries_match_gnu_as_when_linked() {
    const LD: &str = "riscv64-linux-gnu-ld";
    const OBJCOPY: &str = "riscv64-linux-gnu-objcopy";
    let (cases, src) = label_cases();
    if !have_all(&[GAS, LD, OBJCOPY], "the linked label check") {
        return;
    }
    let dir = scratch("labels");
    let (s, o, elf, bin) = (dir.join("l.s"), dir.join("l.o"), dir.join("l.elf"), dir.join("l.bin"));
    std::fs::write(&s, &src).unwrap();
    run(Command::new(GAS).args([GAS_MARCH, "-mno-relax", "-o"]).arg(&o).arg(&s));
    run(Command::new(LD).arg(format!("-Ttext={TEXT_BASE:#x}")).args(["--no-relax", "-e", "0", "-o"]).arg(&elf).arg(&o));
    run(Command::new(OBJCOPY).args(["-O", "binary", "-j", ".text"]).arg(&elf).arg(&bin));
    let bytes = std::fs::read(&bin).unwrap();
    let words: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let mut at = 1;
    let mut bad = Vec::new();
    for c in &cases {
        let got = &words[at..at + c.words.len()];
        if got != c.words.as_slice() {
            bad.push(format!("{:<6} {:<28} ours {:08x?} GNU as {got:08x?}", c.name, c.line.trim(), c.words));
        }
        at += c.words.len();
    }
    let _ = std::fs::remove_dir_all(dir);
    assert!(bad.is_empty(), "{} of {} label encodings differ:\n{}", bad.len(), cases.len(), bad.join("\n"));
    eprintln!("{} label instructions match GNU as", cases.len());
}

#[test]
fn branch_ranges_are_checked() {
    let enc = |op: Op, values: &[i64]| Riscv64::info(op).encoding.unwrap().encode_words(values);
    assert!(enc(Op::beqz, &[5, 4096]).is_err());
    assert!(enc(Op::beqz, &[5, -4096]).is_ok());
    assert!(enc(Op::bne, &[5, 6, 3]).is_err(), "odd offset");
    assert!(enc(Op::j, &[1 << 20]).is_err());
    assert!(enc(Op::lla, &[5, 1 << 40]).is_err());
}

#[test]
fn gnu_as_agrees() {
    if !have_all(&[GAS], "the GNU as comparison") {
        return;
    }
    let cases = cases();
    let mut src = String::from("\t.option norvc\n\t.text\n");
    for c in &cases {
        // GNU as 2.40 only sees the raw words of the instructions it does not know.
        assert_eq!(c.gas_known, !c.line.trim().starts_with(".insn"), "{}", c.name);
        src.push_str(&c.line);
        src.push('\n');
    }
    let dir = scratch("gas");
    let got = words(&dir, "gas", &src, |s, o| {
        run(Command::new(GAS).args([GAS_MARCH, "-mno-relax", "-o"]).arg(o).arg(s));
    });
    compare("GNU as", &cases, &got);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn llvm_mc_agrees() {
    if !have_all(&[LLVM_MC], "the llvm-mc comparison") {
        return;
    }
    let cases = cases();
    let mut src = String::from("\t.option norvc\n\t.text\n");
    for c in &cases {
        src.push_str(&mnemonic_form(&c.line));
        src.push('\n');
    }
    let dir = scratch("llvm");
    let got = words(&dir, "llvm", &src, |s, o| {
        run(Command::new(LLVM_MC)
            .args(["-triple=riscv64", LLVM_MATTR, "-mattr=-relax", "-filetype=obj", "-o"])
            .arg(o)
            .arg(s));
    });
    compare("llvm-mc", &cases, &got);
    let _ = std::fs::remove_dir_all(dir);
}
