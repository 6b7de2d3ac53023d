//! The x86_64-windows listings (COFF, Win64, SEH): both assemblers accept them and make the same code, the
//! unwind data lists every register the prologue saves and the stack it allocates, and each function's code
//! differs from the x86_64-linux listing's only where the ABI demands it.
//!
//! * mingw-w64 GNU as (`x86_64-w64-mingw32-as`) and llvm-mc-19 (`-triple x86_64-windows-gnu`) assemble every
//!   listing; their code (each function's `.text$<symbol>` section, in order) is compared instruction by instruction (decoded with iced-x86): equal bytes, except
//!   where llvm-mc commutes the sources of a commutative VEX instruction to use the 2-byte VEX prefix (GNU as
//!   2.40 does not), and, following from the shorter code, branch displacements (compared as targets) and the
//!   NOP padding of alignment (skipped).
//! * `llvm-readobj-19 --unwind` decodes `.pdata`/`.xdata` of both objects: for a GHASH update, an SM4-CTR (5
//!   arguments) and an SM4-GCM (6 arguments) kernel, every saved register and the allocation are there.
//! * Against x86_64-linux: the bodies are equal; Windows adds the pushes of rsi and rdi, the xmm6-xmm15 save
//!   area, the argument moves and the stack-argument loads, and their restores. The differences are printed.
//!
//! Runs on an x86_64 host with mingw's binutils and llvm-19 (`bash .ci/install-deps`); without them it prints
//! a notice and passes, unless `CI` is set, when it fails. Nothing here runs the code (no wine yet).

use asmgen::isa::x86_64::{Reg, X86_64};
use asmgen::{Function, InstructionSet, Target};
use iced_x86::{Decoder, DecoderOptions, Instruction, Mnemonic, OpKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const GAS: &str = "x86_64-w64-mingw32-as";
const OBJCOPY: &str = "x86_64-w64-mingw32-objcopy";
const OBJDUMP: &str = "x86_64-w64-mingw32-objdump";
const MC: &str = "llvm-mc-19";
const READOBJ: &str = "llvm-readobj-19";

fn tools(check: &str) -> bool {
    if !cfg!(target_arch = "x86_64") {
        println!("notice: not an x86_64 host: {check} skipped");
        return false;
    }
    asmgen_tests::have_all(&[GAS, OBJCOPY, OBJDUMP, MC, READOBJ], check)
}

/// Assembles `src` with GNU as and with llvm-mc into a scratch folder of the test `test` (tests run in
/// parallel): (GNU as object, llvm-mc object).
fn assemble(src: &Path, test: &str) -> (PathBuf, PathBuf) {
    let out = std::env::temp_dir().join(format!("asmgen-windows-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
    let (g, l) = (out.join(format!("{stem}.gas.obj")), out.join(format!("{stem}.mc.obj")));
    asmgen_tests::run(Command::new(GAS).arg(src).arg("-o").arg(&g));
    asmgen_tests::run(
        Command::new(MC).args(["-triple", "x86_64-windows-gnu", "-filetype=obj"]).arg(src).arg("-o").arg(&l),
    );
    (g, l)
}

/// The code of `obj`: its `.text$<function>` sections, in the listing's order.
fn text(obj: &Path) -> Vec<u8> {
    let code = asmgen_tests::sections::code(OBJDUMP, OBJCOPY, obj);
    assert!(!code.is_empty(), "{}: no code", obj.display());
    code
}

/// The instructions of `code` without NOPs (alignment padding), and for each its bytes.
fn decode(code: &[u8]) -> Vec<(Instruction, &[u8])> {
    let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut v = Vec::new();
    while d.can_decode() {
        let i = d.decode();
        assert!(!i.is_invalid(), "undecodable bytes at {:#x}", i.ip());
        if i.mnemonic() != Mnemonic::Nop {
            v.push((i, &code[i.ip() as usize..i.next_ip() as usize]));
        }
    }
    v
}

/// The index of the first instruction at or after `ip` (a branch target, after any padding).
fn index_at(is: &[(Instruction, &[u8])], ip: u64) -> usize {
    is.iter().position(|(i, _)| i.ip() >= ip).unwrap_or(is.len())
}

/// Whether `a` and `b` are one commutative instruction with its two sources swapped.
fn commuted(a: &Instruction, b: &Instruction) -> bool {
    const COMMUTATIVE: &[Mnemonic] = &[
        Mnemonic::Vpxor,
        Mnemonic::Vpand,
        Mnemonic::Vpor,
        Mnemonic::Vpaddd,
        Mnemonic::Vpaddq,
        Mnemonic::Vpaddb,
        Mnemonic::Vpaddw,
        Mnemonic::Vxorps,
        Mnemonic::Vandps,
        Mnemonic::Vorps,
        Mnemonic::Vpcmpeqb,
        Mnemonic::Vpcmpeqd,
    ];
    let regs = |i: &Instruction| (0..i.op_count()).all(|n| i.op_kind(n) == OpKind::Register);
    COMMUTATIVE.contains(&a.mnemonic())
        && a.code() == b.code()
        && a.op_count() == 3
        && regs(a)
        && regs(b)
        && a.op0_register() == b.op0_register()
        && a.op1_register() == b.op2_register()
        && a.op2_register() == b.op1_register()
}

/// Compares GNU as's and llvm-mc's code; returns how many instructions llvm-mc commuted.
fn compare(name: &str, gas: &[u8], mc: &[u8]) -> usize {
    let (g, l) = (decode(gas), decode(mc));
    assert_eq!(g.len(), l.len(), "{name}: GNU as and llvm-mc made different numbers of instructions");
    let mut swapped = 0;
    for ((gi, gb), (li, lb)) in g.iter().zip(&l) {
        let at = format!("{name}: GNU as at {:#x} `{gi}`, llvm-mc at {:#x} `{li}`", gi.ip(), li.ip());
        let branch = gi.op_count() > 0 && matches!(gi.op0_kind(), OpKind::NearBranch32 | OpKind::NearBranch64);
        if branch {
            assert_eq!(gi.mnemonic(), li.mnemonic(), "{at}");
            let (gt, lt) = (index_at(&g, gi.near_branch_target()), index_at(&l, li.near_branch_target()));
            assert_eq!(gt, lt, "{at}: the branches reach different instructions");
        } else if gb != lb {
            assert!(commuted(gi, li), "{at}: different code");
            swapped += 1;
        }
    }
    swapped
}

#[test]
fn windows_listings_assemble_to_the_same_code_with_mingw_as_and_llvm_mc() {
    if !tools("assembling the x86_64-windows listings") {
        return;
    }
    for src in asmgen_tests::listings("x86_64-windows") {
        let (g, l) = assemble(&src, "code");
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let swapped = compare(&name, &text(&g), &text(&l));
        unwind_sections_follow_their_functions(&name, &g);
        println!("{name}: same code; llvm-mc commuted the sources of {swapped} VEX instructions to shorten them");
    }
}

/// GNU as puts the unwind data of a function in `.text$<symbol>` in `.xdata$<symbol>` and `.pdata$<symbol>`, right
/// after it, which linkers that drop unreferenced functions associate with it (`objdump -h`).
fn unwind_sections_follow_their_functions(name: &str, obj: &Path) {
    let sections: Vec<String> = asmgen_tests::sections::headers(OBJDUMP, obj).into_iter().map(|s| s.0).collect();
    let functions: Vec<&String> = sections.iter().filter(|s| s.starts_with(".text$")).collect();
    assert!(!functions.is_empty(), "{name}: no .text$<symbol> section in {sections:?}");
    for f in functions {
        let sym = &f[".text$".len()..];
        let at = sections.iter().position(|s| s == f).unwrap();
        let next = [format!(".xdata${sym}"), format!(".pdata${sym}")];
        assert_eq!(sections[at + 1..at + 3], next, "{name}: the unwind data of {sym} is not beside it");
    }
}

/// The Windows kernels, by name.
fn windows_functions() -> BTreeMap<String, Function<X86_64>> {
    let ls = asmgen_kernels::catalog::x86_64(Target::X86_64_WINDOWS).unwrap();
    ls.into_iter().flat_map(|l| l.functions).map(|f| (f.name.clone(), f)).collect()
}

/// The unwind codes `llvm-readobj --unwind` prints for function `name` of `obj`.
fn unwind_codes(obj: &Path, name: &str) -> Vec<String> {
    let out = asmgen_tests::run(Command::new(READOBJ).arg("--unwind").arg(obj));
    let start = out
        .find(&format!("StartAddress: {name} ("))
        .unwrap_or_else(|| panic!("{name} has no unwind entry in {}", obj.display()));
    let rest = &out[start..];
    let codes = &rest[rest.find("UnwindCodes [").expect("unwind codes")..];
    let codes = &codes[..codes.find(']').expect("end of the codes")];
    let mut v: Vec<String> = codes
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_once(": ").map_or(l, |(_, c)| c).trim().to_string())
        .collect();
    // llvm-readobj lists the codes from the end of the prologue back.
    v.reverse();
    v
}

/// What the unwind codes of `f` must be, in prologue order: a push per saved general-purpose register, the
/// allocation, and a save per xmm register at its slot.
fn expected_codes(f: &Function<X86_64>) -> Vec<String> {
    let (mut pushes, mut saves) = (Vec::new(), Vec::new());
    for r in &f.frame.saved {
        match r {
            Reg::Gpr(_) => pushes.push(format!("PUSH_NONVOL reg={}", X86_64::reg_name(*r).to_uppercase())),
            Reg::Vec(n) => saves.push(format!("SAVE_XMM128 reg=XMM{n}, offset={:#x}", 16 * saves.len())),
        }
    }
    let alloc = asmgen::abi::x86_64::win64_alloc(pushes.len(), saves.len());
    if alloc > 128 {
        pushes.push(format!("ALLOC_LARGE size={alloc}"));
    } else if alloc > 0 {
        pushes.push(format!("ALLOC_SMALL size={alloc}"));
    }
    pushes.extend(saves);
    pushes
}

#[test]
fn unwind_data_lists_every_saved_register_and_the_allocation() {
    if !tools("decoding the x86_64-windows unwind data") {
        return;
    }
    let functions = windows_functions();
    let dir = asmgen_tests::workspace().join("generated/x86_64-windows");
    for (listing, name, args) in [
        ("ghash.S", "asmgen_ghash_update_avx", 4),
        ("sm4.S", "asmgen_sm4_ctr_avx", 5),
        ("sm4.S", "asmgen_sm4_gcm_enc_avx2", 6),
    ] {
        let f = &functions[name];
        assert_eq!(f.signature.params.len(), args, "{name}");
        let expected = expected_codes(f);
        assert!(expected.iter().any(|c| c.contains("RDI")), "{name} saves rdi, which it writes");
        let (g, l) = assemble(&dir.join(listing), "unwind");
        for obj in [g, l] {
            assert_eq!(unwind_codes(&obj, name), expected, "{name} in {}", obj.display());
        }
        println!("{name}: {}", expected.join(", "));
    }
}

/// Each function's instruction lines (no directives, labels or comments) in a listing, with
/// `.seh_endprologue` kept as a marker.
fn functions_of(listing: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in listing.lines() {
        if let Some(name) = line.strip_suffix(':').filter(|n| n.starts_with("asmgen_")) {
            current = Some((name.to_string(), Vec::new()));
            continue;
        }
        let Some((_, lines)) = current.as_mut() else { continue };
        let t = line.split('#').next().unwrap().trim();
        if t == ".cfi_endproc" || t == ".seh_endproc" {
            let (name, lines) = current.take().unwrap();
            out.insert(name, lines);
        } else if line.starts_with('\t') && (t == ".seh_endprologue" || !(t.is_empty() || t.starts_with('.'))) {
            lines.push(t.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    out
}

/// What Windows adds to one function, as a line of the report.
struct Added {
    pushes: Vec<String>,
    xmm: usize,
    /// An over-aligned frame's base register set from the stack pointer (`lea r15`, `and r15`), which both
    /// ABIs place right after the prologue.
    frame_base: Vec<String>,
    moves: usize,
    loads: usize,
}

/// Whether `line` sets an over-aligned frame's base register (r15).
fn sets_frame_base(line: &str) -> bool {
    line.starts_with("lea r15, ") || line.starts_with("and r15, ")
}

/// Splits a Windows function into (prologue additions, body), checking the shape of its prologue and
/// epilogue; `params` is its number of parameters.
fn windows_parts(name: &str, lines: &[String], params: usize) -> (Added, Vec<String>) {
    let end = lines.iter().position(|l| l == ".seh_endprologue").unwrap_or_else(|| panic!("{name}: no prologue"));
    let mut added = Added { pushes: Vec::new(), xmm: 0, frame_base: Vec::new(), moves: 0, loads: 0 };
    for l in &lines[..end] {
        if let Some(r) = l.strip_prefix("push ") {
            added.pushes.push(r.to_string());
        } else if l.starts_with("vmovdqa xmmword ptr [rsp") {
            added.xmm += 1;
        } else {
            assert!(l == "endbr64" || l.starts_with("sub rsp, "), "{name}: unexpected prologue line {l}");
        }
    }
    added.frame_base = lines[end + 1..].iter().take_while(|l| sets_frame_base(l)).cloned().collect();
    let end = end + added.frame_base.len();
    for l in &lines[end + 1..end + 1 + params] {
        assert!(l.starts_with("mov "), "{name}: argument move expected, found {l}");
        if l.contains("qword ptr [rsp") {
            added.loads += 1;
        } else {
            added.moves += 1;
        }
    }
    let mut body = lines[end + 1 + params..].to_vec();
    strip_epilogue(&mut body);
    (added, body)
}

/// Removes the epilogue (restores, `add rsp`, pops, `ret`) from the end of `lines`.
fn strip_epilogue(lines: &mut Vec<String>) {
    assert_eq!(lines.pop().as_deref(), Some("ret"));
    while lines.last().is_some_and(|l| {
        l.starts_with("pop ") || l.starts_with("add rsp, ") || l.starts_with("vmovdqa xmm") && l.contains("[rsp")
    }) {
        lines.pop();
    }
}

#[test]
fn windows_code_differs_from_linux_only_where_the_abi_demands() {
    let functions = windows_functions();
    let mut compared = 0;
    for src in asmgen_tests::listings("x86_64-windows") {
        let win = functions_of(&std::fs::read_to_string(&src).unwrap());
        let linux_path = asmgen_tests::workspace().join("generated/x86_64-linux").join(src.file_name().unwrap());
        let linux = functions_of(&std::fs::read_to_string(linux_path).unwrap());
        assert_eq!(win.keys().collect::<Vec<_>>(), linux.keys().collect::<Vec<_>>(), "the same functions");
        for (name, w) in &win {
            let params = functions[name].signature.params.len();
            let (added, body) = windows_parts(name, w, params);
            let mut l = linux[name].clone();
            let pushes: Vec<String> =
                l.iter().skip(1).map_while(|x| x.strip_prefix("push ")).map(String::from).collect();
            l.drain(1..1 + pushes.len());
            // A frame: its allocation, then (over-aligned) the base register set as Windows sets it.
            if l.get(1).is_some_and(|x| x.starts_with("sub rsp, ")) {
                l.remove(1);
            }
            let base: Vec<String> = l[1..].iter().take_while(|x| sets_frame_base(x)).cloned().collect();
            assert_eq!(base, added.frame_base, "{name}: the frame base differs from x86_64-linux's");
            l.drain(1..1 + base.len());
            strip_epilogue(&mut l);
            assert_eq!(body, l[1..], "{name}: the body differs from x86_64-linux's");
            let extra: Vec<&String> = added.pushes.iter().filter(|p| !pushes.contains(p)).collect();
            assert!(pushes.iter().all(|p| added.pushes.contains(p)), "{name}: a Linux save is missing");
            assert!(extra.iter().all(|p| *p == "rsi" || *p == "rdi"), "{name}: extra saves {extra:?}");
            assert_eq!(added.loads, params.saturating_sub(4), "{name}: stack-argument loads");
            println!(
                "{name}: + push {:?}, {} xmm saved, {} argument moves, {} stack-argument loads",
                extra, added.xmm, added.moves, added.loads
            );
            compared += 1;
        }
    }
    assert!(compared > 40, "only {compared} functions compared");
}

/// The Win64 listing of the test-only kernels with stack frames (`asmgen_tests::frames`), written to a scratch
/// file: (path, text, functions).
fn frame_listing(test: &str) -> (PathBuf, String, Vec<Function<X86_64>>) {
    let l = asmgen_tests::frames::listing(asmgen::Abi::Win64, asmgen::Arch::X86_64, asmgen_tests::frames::x86_64);
    let text = asmgen::emit::gas::listing(Target::X86_64_WINDOWS, &l, "tests/src/frames.rs").unwrap();
    let dir = std::env::temp_dir().join(format!("asmgen-windows-frames-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("frames.S");
    std::fs::write(&src, &text).unwrap();
    (src, text, l.functions)
}

/// Kernels with stack frames: both assemblers' unwind data holds the pushes, one allocation of the frame and
/// the vector save area together (`UWOP_ALLOC_SMALL` up to 128 bytes, `UWOP_ALLOC_LARGE` beyond) and the xmm
/// saves above the frame; a frame of 4 KiB or more is probed first, one load per page below the stack pointer,
/// nearest first, before its allocation.
#[test]
fn kernels_with_frames_have_unwind_data_for_small_large_and_probed_frames() {
    if !tools("decoding the unwind data of kernels with frames") {
        return;
    }
    let (src, text, functions) = frame_listing("unwind");
    let (g, l) = assemble(&src, "frames");
    let mut kinds = BTreeMap::new();
    for f in &functions {
        let pushes = f.frame.saved.iter().filter(|r| matches!(r, Reg::Gpr(_))).count();
        let vecs: Vec<u8> =
            f.frame.saved.iter().filter_map(|r| if let Reg::Vec(n) = r { Some(*n) } else { None }).collect();
        let locals = f.frame.locals.allocation();
        let alloc = asmgen::abi::x86_64::alloc(pushes, locals + 16 * vecs.len() as u32);
        let mut expected: Vec<String> = f
            .frame
            .saved
            .iter()
            .filter(|r| matches!(r, Reg::Gpr(_)))
            .map(|r| format!("PUSH_NONVOL reg={}", X86_64::reg_name(*r).to_uppercase()))
            .collect();
        let kind = if alloc > 128 { "ALLOC_LARGE" } else { "ALLOC_SMALL" };
        expected.push(format!("{kind} size={alloc}"));
        for (i, n) in vecs.iter().enumerate() {
            expected
                .push(format!("SAVE_XMM128 reg=XMM{n}, offset={:#X}", locals as usize + 16 * i).replace("0X", "0x"));
        }
        for obj in [&g, &l] {
            assert_eq!(unwind_codes(obj, &f.name), expected, "{} in {}", f.name, obj.display());
        }
        // The prologue's probes: one load per page of the allocation, nearest first.
        let body = &text[text.find(&format!("\n{}:", f.name)).unwrap()..];
        let prologue = &body[..body.find(".seh_endprologue").unwrap()];
        let probes: Vec<&str> = prologue.lines().filter(|l| l.contains("rax, qword ptr [rsp - ")).collect();
        let pages = alloc as usize / 4096;
        assert_eq!(probes.len(), pages, "{}: probes {probes:?}", f.name);
        for (k, p) in probes.iter().enumerate() {
            assert!(p.ends_with(&format!("[rsp - {}]", 4096 * (k + 1))), "{}: probe {k}: {p}", f.name);
        }
        println!("{}: {} ({pages} pages probed)", f.name, expected.join(", "));
        *kinds.entry(kind).or_insert(0) += 1;
        if pages > 0 {
            *kinds.entry("probed").or_insert(0) += 1;
        }
    }
    assert!(kinds.len() == 3, "small, large and probed frames: {kinds:?}");
}
