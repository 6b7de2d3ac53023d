//! The aarch64-windows listings (COFF, Windows ARM64 ABI, ARM64 SEH unwind data), checked without a Windows on
//! Arm machine (none is here: the listings are assembled and their unwind data decoded, not executed):
//!
//! * llvm-mc-19 (`-triple aarch64-windows-msvc`) assembles every listing; `llvm-readobj-19 --unwind` decodes
//!   every function's `.pdata`/`.xdata`, and [`check_unwind`] checks, function by function, that the prologue's
//!   unwind codes describe exactly its first instructions (the landing pad as a no-op, then each store of a
//!   callee-saved register with its offset and pre-index allocation), that they save exactly the registers the
//!   listing's `Saves:` line names, that the single epilogue at the end of the function is described by codes
//!   equal to its loads and undoes the prologue (same registers, offsets and frame size), and that no
//!   instruction names x18, which Windows reserves.
//! * The code bytes of each function equal the aarch64-linux listing's (assembled as ELF with llvm-mc-19), as
//!   `flavours.rs` compares macOS with Linux: the same functions at the same offsets, relocations at the same
//!   offsets on `adrp`/`add` words whose immediates alone are masked (COFF keeps the addend in the
//!   instruction). The one allowed difference is the save area's layout: ARM64 SEH describes only pairs of
//!   consecutive registers, so where the Linux prologue pairs `d8, d10`, Windows stores `d8` alone and pairs
//!   `d10, d11` (same frame size, same body). Differing words must be prologue or epilogue stores or loads
//!   of sp on both sides, which the unwind check has covered on the Windows side.
//! * `unwind_check_rejects_a_wrong_save_offset`: a hand-written function whose `.seh_save_fregp` offset is
//!   not its `stp`'s fails the check, so the check can fail.
//!
//! Needs llvm-19 (`bash .ci/install-deps`); without it the tests print a notice and pass, unless `CI` is set
//! (`asmgen_tests::have_all`).

use asmgen_tests::run;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

const MC: &str = "llvm-mc-19";
const READOBJ: &str = "llvm-readobj-19";
const OBJDUMP: &str = "llvm-objdump-19";
const TOOLS: &[&str] = &[MC, READOBJ, OBJDUMP];
const FEATURES: &str = "-mattr=+sm4,+sha3,+aes";

/// One function's decoded unwind data (`llvm-readobj --unwind`): the codes as readobj prints them, `end`
/// left out, prologue codes in readobj's order (last instruction first).
#[derive(Debug, Default)]
struct Unwind {
    name: String,
    length: usize,
    packed_epilogue: bool,
    prologue: Vec<String>,
    epilogue: Vec<String>,
    /// Epilogue scopes (an unpacked epilogue): their start offsets in instructions.
    scopes: Vec<usize>,
}

/// One instruction of a disassembly: offset, word, text (`stp x19, x20, [sp, #-32]!`).
type Insn = (usize, u32, String);

/// A disassembled object: functions by start offset (name, instructions up to the next function) and the
/// offsets of the relocated words.
struct Disassembly {
    functions: BTreeMap<usize, (String, Vec<Insn>)>,
    relocations: BTreeSet<usize>,
}

fn assemble(triple: &str, src: &Path, obj: &Path) -> Result<(), String> {
    let out = Command::new(MC)
        .args([&format!("-triple={triple}"), FEATURES, "-filetype=obj"])
        .arg(src)
        .arg("-o")
        .arg(obj)
        .output()
        .map_err(|e| format!("{MC}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}: {MC} failed: {}", src.display(), String::from_utf8_lossy(&out.stderr)))
    }
}

fn disassemble(obj: &Path) -> Disassembly {
    let text = run(Command::new(OBJDUMP).args(["-dr", "--no-print-imm-hex", "--mattr=+sm4,+sha3,+aes"]).arg(obj));
    let mut functions: BTreeMap<usize, (String, Vec<Insn>)> = BTreeMap::new();
    let mut relocations = BTreeSet::new();
    let mut current = None;
    // Each function has a section of its own, at the function alignment: offsets are made offsets in the
    // sections laid out one after the other, in order, as a linker places them.
    let (mut base, mut end) = (0usize, 0usize);
    for line in text.lines() {
        if line.starts_with("Disassembly of section ") {
            base = end.next_multiple_of(1 << asmgen::layout::FUNCTION_ALIGN_LOG2);
            continue;
        }
        if let Some((addr, rest)) = line.split_once(" <") {
            if let (Ok(at), Some(name)) = (usize::from_str_radix(addr, 16), rest.strip_suffix(">:")) {
                functions.insert(base + at, (name.to_string(), Vec::new()));
                current = Some(base + at);
                continue;
            }
        }
        if line.starts_with("\t\t") {
            // A relocation: "\t\t<offset>:  <type>\t<symbol>".
            let off = line.trim().split(':').next().unwrap();
            relocations.insert(base + usize::from_str_radix(off, 16).unwrap());
            continue;
        }
        let Some((off, rest)) = line.split_once(": ") else { continue };
        let (Ok(off), Some(at)) = (usize::from_str_radix(off.trim(), 16), current) else { continue };
        let off = base + off;
        end = off + 4;
        let (word, text) = rest.split_once('\t').unwrap_or((rest, ""));
        let word = u32::from_str_radix(word.trim(), 16).unwrap_or_else(|_| panic!("{line}"));
        let text = text.trim().replace('\t', " ");
        functions.get_mut(&at).unwrap().1.push((off, word, text));
    }
    Disassembly { functions, relocations }
}

/// Parses `llvm-readobj --unwind` output into one [`Unwind`] per function.
fn unwind_info(obj: &Path) -> Vec<Unwind> {
    let text = run(Command::new(READOBJ).arg("--unwind").arg(obj));
    let mut all: Vec<Unwind> = Vec::new();
    let mut into_epilogue = false;
    for line in text.lines().map(str::trim) {
        let field = |name: &str| line.strip_prefix(name).map(str::trim);
        if let Some(f) = field("Function:") {
            all.push(Unwind { name: f.split_whitespace().next().unwrap().to_string(), ..Unwind::default() });
        } else if let Some(n) = field("FunctionLength:") {
            all.last_mut().unwrap().length = n.parse().unwrap();
        } else if let Some(p) = field("EpiloguePacked:") {
            all.last_mut().unwrap().packed_epilogue = p == "Yes";
        } else if let Some(n) = field("StartOffset:") {
            all.last_mut().unwrap().scopes.push(n.parse().unwrap());
        } else if line == "Prologue [" {
            into_epilogue = false;
        } else if line == "Epilogue [" || line == "Opcodes [" {
            into_epilogue = true;
        } else if let Some((_, code)) = line.strip_prefix("0x").and_then(|l| l.split_once(';')) {
            let u = all.last_mut().unwrap();
            let code = code.trim().to_string();
            if code != "end" {
                if into_epilogue { &mut u.epilogue } else { &mut u.prologue }.push(code);
            }
        }
    }
    all
}

/// The registers a save code or instruction stores or loads (`stp d10, d11, [sp, #16]`: d10, d11).
fn registers(text: &str) -> Vec<String> {
    let Some((_, operands)) = text.split_once(' ') else { return Vec::new() };
    let regs = operands.split('[').next().unwrap();
    regs.split(',').map(str::trim).filter(|r| !r.is_empty()).map(str::to_string).collect()
}

/// An instruction as `llvm-readobj` spells its unwind code: an allocation `sub sp, sp, #n` as `sub sp, #n`
/// (and `add` in an epilogue), the rest as disassembled.
fn as_code(text: &str) -> String {
    text.replacen("sub sp, sp, #", "sub sp, #", 1).replacen("add sp, sp, #", "add sp, #", 1)
}

/// Whether `text` is a stack probe's store (`str xzr, [sp]`): an unwind no-op.
fn is_probe(text: &str) -> bool {
    text == "str xzr, [sp]" || text == "str xzr, [sp, #0]"
}

/// The store an epilogue load undoes, spelled as the prologue's (`ldp x19, x20, [sp], #32` is
/// `stp x19, x20, [sp, #-32]!`; `add sp, #n` undoes `sub sp, #n`).
fn as_store(load: &str) -> String {
    let store = load.replacen("ldp", "stp", 1).replacen("ldr", "str", 1).replacen("add sp, #", "sub sp, #", 1);
    match store.split_once("[sp], #") {
        Some((head, n)) => format!("{head}[sp, #-{n}]!"),
        None => store,
    }
}

/// The registers each function's ` * Saves:` line names (v8 as d8), by function.
fn saves_lines(listing: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    let mut saves = BTreeSet::new();
    for line in listing.lines() {
        if let Some(list) = line.strip_prefix(" * Saves: ") {
            saves = list.split(", ").map(|r| r.replacen('v', "d", 1)).collect();
        } else if let Some(def) = line.trim().strip_prefix(".def ") {
            out.insert(def.split(';').next().unwrap().to_string(), std::mem::take(&mut saves));
        }
    }
    out
}

/// Checks every function of `listing` (assembled to `obj`) against its unwind data; the number of functions.
fn check_unwind(listing: &str, obj: &Path) -> Result<usize, String> {
    let code = disassemble(obj);
    let unwind = unwind_info(obj);
    let saves = saves_lines(listing);
    if unwind.len() != code.functions.len() || unwind.len() != saves.len() {
        let n = (unwind.len(), code.functions.len(), saves.len());
        return Err(format!("{} unwind entries, {} functions, {} .def lines", n.0, n.1, n.2));
    }
    for u in &unwind {
        let (_, insts) = code.functions.values().find(|(n, _)| *n == u.name).ok_or(format!("{}: no code", u.name))?;
        check_function(u, &insts[..u.length / 4], &saves[&u.name]).map_err(|e| format!("{}: {e}", u.name))?;
    }
    Ok(unwind.len())
}

/// One function's checks ([`check_unwind`]); `insts` are its instructions (up to its unwind length).
fn check_function(u: &Unwind, insts: &[Insn], saves: &BTreeSet<String>) -> Result<(), String> {
    let text = |i: usize| insts.get(i).map_or("", |x| x.2.as_str());
    if let Some(x) = insts.iter().find(|x| registers(&x.2).iter().any(|r| r == "x18" || r == "w18")) {
        return Err(format!("uses x18, which Windows reserves: {}", x.2));
    }
    // Prologue: codes in execution order, one per instruction; the landing pad and a stack probe's store are
    // no-ops, an allocation is spelled `sub sp, #n`.
    let prologue: Vec<&String> = u.prologue.iter().rev().collect();
    for (i, c) in prologue.iter().enumerate() {
        let expect = if ["bti c", "hint #34"].contains(&text(i)) || is_probe(text(i)) {
            "nop".to_string()
        } else {
            as_code(text(i))
        };
        if **c != expect {
            return Err(format!("prologue instruction {i} is `{}` but its unwind code says `{c}`", text(i)));
        }
    }
    let saved: BTreeSet<String> = prologue.iter().filter(|c| c.starts_with("st")).flat_map(|c| registers(c)).collect();
    if &saved != saves {
        return Err(format!("unwind codes save {saved:?}, the listing says it saves {saves:?}"));
    }
    if text(prologue.len()).contains("[sp") {
        return Err(format!("`{}` after the prologue is not described", text(prologue.len())));
    }
    // Epilogue: the loads and the return at the end of the function.
    let start = match (u.packed_epilogue, &u.scopes[..]) {
        (true, _) => insts.len() - u.epilogue.len() - 1,
        (false, [s]) => *s,
        (false, s) => return Err(format!("{} epilogues, one expected", s.len())),
    };
    for (i, c) in u.epilogue.iter().enumerate() {
        if as_code(text(start + i)) != *c {
            return Err(format!("epilogue instruction {i} is `{}` but its unwind code says `{c}`", text(start + i)));
        }
    }
    if text(start + u.epilogue.len()) != "ret" || start + u.epilogue.len() + 1 != insts.len() {
        return Err("the described epilogue is not the function's last instructions before its ret".into());
    }
    let undone: Vec<String> = u.epilogue.iter().rev().map(|l| as_store(l)).collect();
    let stores: Vec<&String> = prologue.iter().copied().filter(|c| *c != "nop").collect();
    if undone.iter().collect::<Vec<_>>() != stores {
        return Err(format!("the epilogue {:?} does not undo the prologue {stores:?}", u.epilogue));
    }
    Ok(())
}

/// The word at a relocation with its immediate cleared: `adrp` immlo/immhi, `add` imm12.
fn mask(word: u32) -> u32 {
    if word & 0x9f00_0000 == 0x9000_0000 {
        word & !(0x3 << 29 | 0x7_ffff << 5)
    } else if word & 0xffc0_0000 == 0x9100_0000 {
        word & !(0xfff << 10)
    } else {
        panic!("relocation on {word:#010x}, which is neither adrp nor add")
    }
}

/// Compares the Windows object's code with the Linux object's ([`check_unwind`] has checked the Windows
/// prologues and epilogues); the functions whose save area is laid out differently.
fn compare_code(what: &str, win: &Disassembly, elf: &Disassembly) -> Vec<String> {
    let names = |d: &Disassembly| d.functions.iter().map(|(a, (n, _))| (*a, n.clone())).collect::<Vec<_>>();
    assert_eq!(names(win), names(elf), "{what}: functions or their offsets differ from aarch64-linux");
    assert_eq!(win.relocations, elf.relocations, "{what}: relocated words differ from aarch64-linux");
    let mut relaid = Vec::new();
    for ((name, w), (_, e)) in win.functions.values().zip(elf.functions.values()) {
        assert_eq!(w.len(), e.len(), "{what}: {name}: length differs from aarch64-linux");
        let mut differs = false;
        for (a, b) in w.iter().zip(e) {
            let (mut x, mut y) = (a.1, b.1);
            if win.relocations.contains(&a.0) {
                (x, y) = (mask(x), mask(y));
            }
            if x != y {
                let save =
                    |t: &str| ["stp ", "str ", "ldp ", "ldr "].iter().any(|p| t.starts_with(p)) && t.contains("[sp");
                assert!(
                    save(&a.2) && save(&b.2),
                    "{what}: {name} at {:#x}: `{}` on Windows, `{}` on Linux",
                    a.0,
                    a.2,
                    b.2
                );
                differs = true;
            }
        }
        if differs {
            relaid.push(name.clone());
        }
    }
    relaid
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("asmgen-windows-arm64-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn aarch64_windows_unwind_data_matches_the_prologues_and_the_code_equals_aarch64_linux() {
    if !asmgen_tests::have_all(TOOLS, "assembling generated/aarch64-windows and decoding its unwind data") {
        return;
    }
    let out = temp_dir("listings");
    let mut functions = 0;
    let mut relaid = Vec::new();
    for src in asmgen_tests::listings("aarch64-windows") {
        let stem = src.file_stem().unwrap().to_str().unwrap().to_string();
        let what = format!("generated/aarch64-windows/{stem}.S");
        let listing = std::fs::read_to_string(&src).unwrap();
        let (win, elf) = (out.join(format!("{stem}.coff.o")), out.join(format!("{stem}.elf.o")));
        assemble("aarch64-windows-msvc", &src, &win).unwrap();
        functions += check_unwind(&listing, &win).unwrap_or_else(|e| panic!("{what}: {e}"));
        let linux = asmgen_tests::workspace().join("generated/aarch64-linux").join(format!("{stem}.S"));
        assemble("aarch64-linux-gnu", &linux, &elf).unwrap();
        relaid.extend(compare_code(&what, &disassemble(&win), &disassemble(&elf)));
    }
    eprintln!("{functions} aarch64-windows functions: unwind data checked, code equal to aarch64-linux");
    eprintln!("save area paired differently from aarch64-linux (consecutive pairs for SEH): {relaid:?}");
    assert!(functions > 0);
    let _ = std::fs::remove_dir_all(out);
}

/// A function in the generated form whose second save code has the wrong offset (16 for a store at 32), and
/// one whose epilogue restores in the wrong order: each must fail the check.
#[test]
fn unwind_check_rejects_a_wrong_save_offset() {
    if !asmgen_tests::have_all(TOOLS, "the unwind check's negative test") {
        return;
    }
    let function = |fregp_offset: u32, first: &str, second: &str| {
        format!(
            "\t.text\n/*\n * Saves: x19, x20, v8, v9\n */\n\t.def f; .scl 2; .type 32; .endef\n\t.globl f\n\t.p2align 5\nf:\n\
             \t.seh_proc f\n\thint #34\n\t.seh_nop\n\tstp x19, x20, [sp, #-48]!\n\t.seh_save_regp_x x19, 48\n\
             \tstp d8, d9, [sp, #32]\n\t.seh_save_fregp d8, {fregp_offset}\n\t.seh_endprologue\n\tmov x0, x1\n\
             \t.seh_startepilogue\n{first}{second}\t.seh_endepilogue\n\tret\n\t.seh_endproc\n"
        )
    };
    let (d8, x19) = (
        "\tldp d8, d9, [sp, #32]\n\t.seh_save_fregp d8, 32\n",
        "\tldp x19, x20, [sp], #48\n\t.seh_save_regp_x x19, 48\n",
    );
    let out = temp_dir("negative");
    let check = |name: &str, text: &str| {
        let (src, obj) = (out.join(format!("{name}.S")), out.join(format!("{name}.o")));
        std::fs::write(&src, text).unwrap();
        assemble("aarch64-windows-msvc", &src, &obj).unwrap();
        check_unwind(text, &obj)
    };
    assert_eq!(check("good", &function(32, d8, x19)), Ok(1), "the well-formed function passes");
    let wrong = check("offset", &function(16, d8, x19)).expect_err("a wrong .seh_save_fregp offset is caught");
    assert!(wrong.contains("stp d8, d9, [sp, #32]") && wrong.contains("[sp, #16]"), "{wrong}");
    let order = check("order", &function(32, x19, d8)).expect_err("an epilogue in the wrong order is caught");
    assert!(order.contains("epilogue"), "{order}");
    let _ = std::fs::remove_dir_all(out);
}

/// The test-only kernels with stack frames (`asmgen_tests::frames`): the unwind codes describe every
/// allocation step (`alloc_s`/`alloc_m`, `sub sp, #n`) after the saves, every stack probe of a frame of 4 KiB
/// or more (`str xzr, [sp]`, a no-op code after each step), and the epilogue frees the frame before the loads.
#[test]
fn kernels_with_frames_have_unwind_data_for_their_allocations_and_probes() {
    use asmgen_tests::frames::{aarch64, listing, shapes};
    if !asmgen_tests::have_all(TOOLS, "decoding the unwind data of kernels with frames") {
        return;
    }
    let l = listing(asmgen::Abi::WinArm64, asmgen::Arch::Aarch64, aarch64);
    let text = asmgen::emit::gas::listing(asmgen::Target::AARCH64_WINDOWS, &l, "test").unwrap();
    let out = temp_dir("frames");
    let (src, obj) = (out.join("frames.S"), out.join("frames.o"));
    std::fs::write(&src, &text).unwrap();
    assemble("aarch64-windows-msvc", &src, &obj).unwrap();
    assert_eq!(check_unwind(&text, &obj), Ok(shapes(asmgen::Arch::Aarch64).len()));
    let code = disassemble(&obj);
    for (shape, u) in shapes(asmgen::Arch::Aarch64).iter().zip(unwind_info(&obj)) {
        assert_eq!(u.name, shape.name);
        let allocated: u32 = u.prologue.iter().filter_map(|c| c.strip_prefix("sub sp, #")?.parse::<u32>().ok()).sum();
        assert_eq!(allocated, shape.bytes.div_ceil(16) * 16, "{}: allocation codes {:?}", shape.name, u.prologue);
        let (_, insts) = code.functions.values().find(|(n, _)| *n == u.name).unwrap();
        let probes = insts.iter().filter(|i| is_probe(&i.2)).count();
        let steps = u.prologue.iter().filter(|c| c.starts_with("sub sp, #")).count();
        assert_eq!(probes, if shape.bytes >= 4096 { steps } else { 0 }, "{}: stack probes", shape.name);
    }
    let _ = std::fs::remove_dir_all(out);
}
