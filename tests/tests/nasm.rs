//! The NASM flavour of the x86_64-windows listings (`generated/x86_64-windows/*.asm`): `nasm -f win64`
//! assembles each, and its object holds what mingw GNU as makes of the `.S` listing beside it.
//!
//! * `.text`: the same bytes at the same offsets, except alignment padding, which GNU as fills with its
//!   multi-byte NOPs (11-byte NOPs, then one of the rest's length) and NASM's `align` with one-byte NOPs: the
//!   two are decoded with iced-x86 and a byte may differ only where both sides decode a NOP. GNU as also pads
//!   the end of `.text` to the section alignment; NASM does not, so only NOPs may follow NASM's last byte.
//!   Branch sizes, the register-to-register moves GNU as encodes in their 2-byte-VEX store form and the
//!   `strict dword` immediates of `mov r64, imm32` are written out by the emitter (NASM would choose
//!   otherwise), so everything else is byte for byte.
//! * `.rdata` (the constants): byte for byte. The global symbols: the same names at the same offsets.
//! * Unwind data: `objdump -x`'s function table and `.xdata` dump (start, end, unwind information, every code)
//!   are equal, and `llvm-readobj-19 --unwind` decodes the same `UnwindInfo` for every function, in order;
//!   every function of the listing has an entry.
//! * A negative check: a listing with one branch made long, and one with one unwind slot changed, fail the
//!   comparisons.
//!
//! Needs nasm, mingw-w64's binutils and llvm-19 (`bash .ci/install-deps`); without them it prints a notice and
//! passes, unless `CI` is set, when it fails.

use asmgen_tests::coff::{self, GAS, NASM, NM, OBJCOPY, OBJDUMP, READOBJ};
use iced_x86::{Decoder, DecoderOptions, Mnemonic};
use std::path::{Path, PathBuf};

fn tools(check: &str) -> bool {
    if !cfg!(target_arch = "x86_64") {
        println!("notice: not an x86_64 host: {check} skipped");
        return false;
    }
    asmgen_tests::have_all(&[NASM, GAS, OBJCOPY, OBJDUMP, NM, READOBJ], check)
}

/// The GNU as and the NASM object of one listing pair, in the scratch folder of test `test`.
fn assemble(asm: &Path, s: &Path, test: &str) -> (PathBuf, PathBuf) {
    let dir = coff::scratch("nasm", test);
    let stem = asm.file_stem().unwrap().to_string_lossy().into_owned();
    let (g, n) = (dir.join(format!("{stem}.gas.obj")), dir.join(format!("{stem}.nasm.obj")));
    coff::gas(s, &g);
    coff::nasm(asm, &n);
    (g, n)
}

/// For each byte of `code`, whether it belongs to a NOP.
fn nop_bytes(code: &[u8]) -> Vec<bool> {
    let mut nop = vec![false; code.len()];
    let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    while d.can_decode() {
        let i = d.decode();
        if i.is_invalid() {
            continue;
        }
        if i.mnemonic() == Mnemonic::Nop {
            nop[i.ip() as usize..i.next_ip() as usize].fill(true);
        }
    }
    nop
}

/// Compares GNU as's and NASM's `.text`: equal but for NOP padding (module comment).
fn compare_code(gas: &[u8], nasm: &[u8]) -> Result<(), String> {
    let (gn, nn) = (nop_bytes(gas), nop_bytes(nasm));
    if nasm.len() > gas.len() || !gn[nasm.len()..].iter().all(|&n| n) {
        return Err(format!(
            "GNU as made {} bytes of code, NASM {} (beyond NASM's end: not all NOPs)",
            gas.len(),
            nasm.len()
        ));
    }
    match (0..nasm.len()).find(|&i| gas[i] != nasm[i] && !(gn[i] && nn[i])) {
        Some(i) => Err(format!("code differs at {i:#x}: GNU as {:#04x}, NASM {:#04x}", gas[i], nasm[i])),
        None => Ok(()),
    }
}

/// Compares the two objects' unwind data (module comment); the number of functions with an entry.
fn compare_unwind(gas: &Path, nasm: &Path) -> Result<usize, String> {
    if coff::unwind_table(gas) != coff::unwind_table(nasm) {
        return Err(format!(
            "objdump -x reads different unwind data:\n--- GNU as\n{}\n--- NASM\n{}",
            coff::unwind_table(gas),
            coff::unwind_table(nasm)
        ));
    }
    let (g, n) = (coff::unwind_infos(gas), coff::unwind_infos(nasm));
    if g != n {
        let first = g.iter().zip(&n).find(|(a, b)| a != b);
        return Err(format!("llvm-readobj decodes different unwind information: {first:?}"));
    }
    Ok(g.len())
}

/// The functions (global symbols) of a listing.
fn functions(listing: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(listing).unwrap();
    text.lines().filter_map(|l| l.trim().strip_prefix("global ")).map(str::to_string).collect()
}

#[test]
fn nasm_listings_assemble_to_the_gnu_as_code_constants_and_symbols() {
    if !tools("assembling the NASM listings") {
        return;
    }
    for (asm, s) in coff::nasm_listings("x86_64-windows") {
        let (g, n) = assemble(&asm, &s, "code");
        let name = asm.file_name().unwrap().to_string_lossy().into_owned();
        let (gt, nt) = (coff::section(&g, ".text"), coff::section(&n, ".text"));
        compare_code(&gt, &nt).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(coff::section(&g, ".rdata"), coff::section(&n, ".rdata"), "{name}: the constants differ");
        let symbols = coff::global_symbols(&g);
        assert_eq!(symbols, coff::global_symbols(&n), "{name}: the global symbols differ");
        assert_eq!(symbols.len(), functions(&asm).len(), "{name}: every function is global");
        let same = gt.iter().zip(&nt).filter(|(a, b)| a == b).count();
        println!(
            "{name}: {} bytes of code, {same} byte for byte, the rest NOP padding; {} functions",
            nt.len(),
            symbols.len()
        );
    }
}

#[test]
fn nasm_unwind_data_decodes_as_the_gnu_as_objects() {
    if !tools("decoding the NASM listings' unwind data") {
        return;
    }
    for (asm, s) in coff::nasm_listings("x86_64-windows") {
        let (g, n) = assemble(&asm, &s, "unwind");
        let name = asm.file_name().unwrap().to_string_lossy().into_owned();
        let entries = compare_unwind(&g, &n).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut named: Vec<String> = coff::unwind_infos(&n).into_iter().map(|(f, _)| f).collect();
        let mut listed = functions(&asm);
        named.sort();
        listed.sort();
        assert_eq!(named, listed, "{name}: every function has one unwind entry");
        println!("{name}: {entries} functions with the same unwind data");
    }
}

/// `asm` with `from` replaced by `to` once (the first occurrence after `after`), assembled by NASM.
fn broken(asm: &Path, after: &str, from: &str, to: &str, test: &str) -> PathBuf {
    let text = std::fs::read_to_string(asm).unwrap();
    let start = text.find(after).expect("the anchor");
    let at = start + text[start..].find(from).expect("the text to break");
    let changed = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
    let dir = coff::scratch("nasm", test);
    let (src, obj) = (dir.join("broken.asm"), dir.join("broken.obj"));
    std::fs::write(&src, changed).unwrap();
    coff::nasm(&src, &obj);
    obj
}

#[test]
fn nasm_comparisons_catch_a_changed_branch_and_a_changed_unwind_code() {
    if !tools("checking that the NASM comparisons can fail") {
        return;
    }
    let (asm, s) = coff::nasm_listings("x86_64-windows").into_iter().next().unwrap();
    let (g, _) = assemble(&asm, &s, "negative");
    let long = broken(&asm, "section .text", " short ", " near ", "negative-code");
    let err = compare_code(&coff::section(&g, ".text"), &coff::section(&long, ".text")).unwrap_err();
    println!("a branch made near: {err}");
    let slot = broken(&asm, "section .xdata", "\tdw 1\n", "\tdw 2\n", "negative-unwind");
    let err = compare_unwind(&g, &slot).unwrap_err();
    println!("an xmm save moved: {}", err.lines().next().unwrap());
}

/// `mov r64, imm32`: GNU as keeps the sign-extended 32-bit immediate (REX.W C7 /0), which NASM, left to
/// itself, shortens to `mov r32, imm32`; the emitter writes the immediate `strict dword`, so a listing with
/// such moves (none of the checked-in ones has any) assembles to GNU as's bytes, negative immediates too.
#[test]
fn nasm_writes_moves_of_immediates_as_gnu_as_encodes_them() {
    use asmgen::isa::x86_64::{regs::*, X86_64};
    if !tools("assembling moves of immediates with NASM") {
        return;
    }
    let t = asmgen::Target::X86_64_WINDOWS;
    let mut b = asmgen::Builder::<X86_64>::new("asmgen_test_mov_imm", t.abi, &[]);
    b.mov(R9, 24);
    b.mov(RAX, -5);
    b.mov(R10, i32::MAX);
    let listing = asmgen::Listing {
        name: "movimm".into(),
        title: "moves of immediates".into(),
        functions: vec![b.finish().unwrap()],
    };
    let asm = asmgen::emit::nasm::listing(t, &listing, "tests/tests/nasm.rs").unwrap();
    assert_eq!(asm.matches("strict dword").count(), 3, "{asm}");
    let dir = coff::scratch("nasm", "mov-imm");
    let (asm_path, s_path) = (dir.join("movimm.asm"), dir.join("movimm.S"));
    std::fs::write(&asm_path, &asm).unwrap();
    std::fs::write(&s_path, asmgen::emit::gas::listing(t, &listing, "tests/tests/nasm.rs").unwrap()).unwrap();
    let (g, n) = assemble(&asm_path, &s_path, "mov-imm");
    let (gas, nasm) = (coff::section(&g, ".text"), coff::section(&n, ".text"));
    compare_code(&gas, &nasm).unwrap_or_else(|e| panic!("{e}\n{asm}"));
    // Without `strict`, NASM's bytes differ: the check can fail.
    let plain = dir.join("plain.asm");
    std::fs::write(&plain, asm.replace("strict dword ", "")).unwrap();
    let p = dir.join("plain.obj");
    coff::nasm(&plain, &p);
    assert!(compare_code(&gas, &coff::section(&p, ".text")).is_err(), "NASM kept the long form by itself");
}

/// The test-only kernels with stack frames (`asmgen_tests::frames`: small, large, probed and over-aligned
/// frames): the NASM listing makes GNU as's code and the same unwind data (written out as `.xdata` by the
/// emitter, from the same prologue description).
#[test]
fn nasm_kernels_with_frames_make_the_gnu_as_code_and_unwind_data() {
    if !tools("assembling the NASM listing of kernels with frames") {
        return;
    }
    let l = asmgen_tests::frames::listing(asmgen::Abi::Win64, asmgen::Arch::X86_64, asmgen_tests::frames::x86_64);
    let dir = coff::scratch("nasm", "frames");
    let (asm, s) = (dir.join("frames.asm"), dir.join("frames.S"));
    let source = "tests/src/frames.rs";
    std::fs::write(&asm, asmgen::emit::nasm::listing(asmgen::Target::X86_64_WINDOWS_NASM, &l, source).unwrap())
        .unwrap();
    std::fs::write(&s, asmgen::emit::gas::listing(asmgen::Target::X86_64_WINDOWS, &l, source).unwrap()).unwrap();
    let (g, n) = assemble(&asm, &s, "frames");
    let code = coff::section(&g, ".text");
    assert!(!code.is_empty());
    compare_code(&code, &coff::section(&n, ".text")).unwrap();
    assert_eq!(compare_unwind(&g, &n), Ok(l.functions.len()));
    // The JIT's unwind data (registered with RtlAddFunctionTable on Windows) is GNU as's `.xdata`, byte for byte.
    let refs: Vec<_> = l.functions.iter().collect();
    let image = asmgen::lower::lower(&refs).unwrap();
    let jit = asmgen::lower::win64_unwind::win64_unwind(&refs, &image).unwrap();
    assert_eq!(jit.xdata, coff::section(&g, ".xdata"), "the JIT's UNWIND_INFOs");
}

/// The JIT's streamed lowering (x86_64: encoded while the kernel is built, `lower::x86_64::Stream`) makes the
/// same image of the kernels with frames as the lowering of their items, under both ABIs.
#[test]
fn kernels_with_frames_lower_to_the_same_bytes_streamed() {
    use asmgen::lower::x86_64::Stream;
    for abi in [asmgen::Abi::SysV, asmgen::Abi::Win64] {
        let build = || asmgen_tests::frames::listing(abi, asmgen::Arch::X86_64, asmgen_tests::frames::x86_64).functions;
        let functions = build();
        let image = asmgen::lower::lower(&functions.iter().collect::<Vec<_>>()).unwrap();
        let (streamed, stream) = Stream::build(|| asmgen::builder::without_text(build));
        assert!(streamed.iter().all(|f| f.body.is_empty()), "a streamed function kept items");
        let s = stream.lower(&streamed.iter().collect::<Vec<_>>()).unwrap();
        assert!(image.bytes == s.bytes, "{abi:?}: the streamed bytes differ");
        assert_eq!(image.symbols, s.symbols, "{abi:?}");
    }
}

/// The general-purpose entries without a kernel in the listings (`xchg`, `call` through a register, `rdrand`,
/// the string instructions with and without `rep`, `cld`/`std`, `jrcxz`) and the merging-mask store
/// `vmovdqu8 m512{k}, zmm`, in one Win64 function printed as the NASM and the mingw GNU as listing: both objects'
/// code is the JIT lowering's bytes.
#[test]
fn nasm_and_gnu_as_give_the_jit_bytes_for_the_string_exchange_and_masked_store_entries() {
    use asmgen::isa::x86_64::{mem, regs::*, Gpr32, X86Feature, Zmm};
    use asmgen::{Abi, Builder, Label};
    if !cfg!(target_arch = "x86_64") || !tools("the string and exchange entries") {
        return;
    }
    let here = Label::named("here");
    let mut b = Builder::<asmgen::isa::x86_64::X86_64>::new(
        "asmgen_test_gpr",
        Abi::Win64,
        <X86Feature as asmgen::Feature>::ALL,
    );
    b.bind(&here);
    b.xchg(RAX, RCX).xchg(RCX, RAX).xchg(R8, R9).xchg(Gpr32(0), Gpr32(2)).xchg(Gpr32(0), Gpr32(0));
    b.xchg(mem(RSI, 8), R10).call_reg(R11).rdrand(RAX).rdrand(R9);
    b.cld().rep_movsb().movsq().stosb().rep_stosq().std().movsb().rep_movsq().stosq().rep_stosb().cld();
    b.jrcxz(&here);
    b.vmovdqu8(mem(RSI, 64).mask(k(1)), Zmm(0)).vmovdqu8(mem(R9, -64).mask(k(7)), Zmm(31));
    b.vzeroupper();
    let f = b.finish().unwrap();
    coff::assert_flavours_give_the_jit_bytes(f, "tests/tests/nasm.rs", ("nasm", "gpr_entries"));
}
