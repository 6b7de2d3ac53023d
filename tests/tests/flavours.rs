//! The macOS listings are the Linux listings in another object format: assembled with llvm-mc-19 (Mach-O for
//! `generated/<arch>-macos`, ELF for `generated/<arch>-linux`), they define the same functions (the Mach-O
//! symbol with its `_` prefix) at the same offsets, with the same code bytes, function by function.
//!
//! The only bytes allowed to differ are the fields the assembler leaves to a relocation, and only at offsets
//! where both objects carry one (the two objects must relocate the same code words): Mach-O x86_64 keeps the
//! addend of a section-relative `[rip + Lconst]` reference in the 4-byte displacement (ELF keeps it in the
//! relocation), so on x86_64 the 4 bytes at each relocation are masked; on aarch64 the relocated words must be
//! an `adrp` (`@PAGE`) or an `add` (`@PAGEOFF`) on both sides, and only their immediate fields are masked
//! (`adrp` immlo and immhi, `add` imm12): opcode and registers are compared.
//!
//! Each function and constant of a Linux listing has a section of its own: the ELF object is merged into one
//! `.text` (`ld -r`, in the listing's order) before the comparison. The Mach-O object carries
//! `MH_SUBSECTIONS_VIA_SYMBOLS` (the listing's `.subsections_via_symbols`: the linker splits `__text` at symbols
//! and dead-strips what nothing references), which is sound only if the code starts at a symbol and no function
//! falls through into the next: the first function is at offset 0 and each ends with a return (then padding).
//!
//! No macOS machine is here: the listings are assembled and compared, not executed. Runs where llvm-19 is
//! installed (`bash .ci/install-deps`); without it the test prints a notice and passes, unless `CI` is set,
//! when it fails (`asmgen_tests::have_all`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const MC: &str = "llvm-mc-19";
const OBJCOPY: &str = "llvm-objcopy-19";
const OBJDUMP: &str = "llvm-objdump-19";
const NM: &str = "llvm-nm-19";

/// One pair of targets to compare.
struct Flavour {
    /// `generated/` folder of the Mach-O listings.
    macos: &'static str,
    /// `generated/` folder of the ELF listings they must equal.
    linux: &'static str,
    /// llvm-mc arguments (triple, features) for each.
    macos_mc: &'static [&'static str],
    linux_mc: &'static [&'static str],
    /// How a relocated field is masked: the code, the offset of the relocation, the object's name for messages.
    mask: fn(&mut [u8], usize, &str),
    /// The GNU ld that merges the ELF object's sections.
    ld: &'static str,
    /// Whether a function's code (with the padding after it) ends with a return: nothing falls through.
    returns: fn(&[u8]) -> bool,
}

/// x86_64: the last instruction but NOPs is `ret`.
fn returns_x86_64(code: &[u8]) -> bool {
    use iced_x86::{Decoder, DecoderOptions, Mnemonic};
    let mut d = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut last = Mnemonic::INVALID;
    while d.can_decode() {
        let i = d.decode();
        if i.mnemonic() != Mnemonic::Nop {
            last = i.mnemonic();
        }
    }
    last == Mnemonic::Ret
}

/// aarch64: the last word but `nop`s is `ret`.
fn returns_aarch64(code: &[u8]) -> bool {
    const NOP: u32 = 0xd503_201f;
    let mut words = code.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap()));
    words.rfind(|&w| w != NOP) == Some(0xd65f_03c0)
}

/// x86_64: a relocation points at a 4-byte displacement.
fn mask_x86_64(code: &mut [u8], at: usize, _what: &str) {
    code[at..at + 4].fill(0);
}

/// aarch64: a relocation points at an `adrp` or `add` (immediate) word; its immediate fields are cleared.
fn mask_aarch64(code: &mut [u8], at: usize, what: &str) {
    let word = u32::from_le_bytes(code[at..at + 4].try_into().unwrap());
    let masked = if word & 0x9f00_0000 == 0x9000_0000 {
        // adrp: immlo (bits 29-30), immhi (bits 5-23).
        word & !(0x3 << 29 | 0x7_ffff << 5)
    } else if word & 0xffc0_0000 == 0x9100_0000 {
        // add (immediate, 64-bit, no shift): imm12 (bits 10-21).
        word & !(0xfff << 10)
    } else {
        panic!("{what}: relocation at {at:#x} on {word:#010x}, which is neither adrp nor add");
    };
    code[at..at + 4].copy_from_slice(&masked.to_le_bytes());
}

const X86_64: Flavour = Flavour {
    macos: "x86_64-macos",
    linux: "x86_64-linux",
    macos_mc: &["-triple=x86_64-apple-macos"],
    linux_mc: &["-triple=x86_64-linux-gnu"],
    mask: mask_x86_64,
    ld: "ld",
    returns: returns_x86_64,
};

const AARCH64: Flavour = Flavour {
    macos: "aarch64-macos",
    linux: "aarch64-linux",
    macos_mc: &["-triple=arm64-apple-macos", "-mattr=+sm4,+sha3,+aes"],
    linux_mc: &["-triple=aarch64-linux-gnu", "-mattr=+sm4,+sha3,+aes"],
    mask: mask_aarch64,
    ld: "aarch64-linux-gnu-ld",
    returns: returns_aarch64,
};

use asmgen_tests::run as output;

/// One assembled listing: its code section, the offsets of the relocations in it, its functions.
struct Object {
    code: Vec<u8>,
    relocations: BTreeSet<usize>,
    /// (offset, name without the symbol prefix), in offset order.
    functions: Vec<(usize, String)>,
}

/// Assembles `src` into `obj` (ELF: then merged into one `.text` by `ld`) and reads it back.
fn assemble(mc_args: &[&str], src: &Path, obj: &Path, ld: Option<&str>) -> Object {
    output(Command::new(MC).args(mc_args).arg("-filetype=obj").arg(src).arg("-o").arg(obj));
    let macho = ld.is_none();
    let merged = ld.map(|ld| asmgen_tests::sections::merged_elf(ld, obj));
    let obj = merged.as_deref().unwrap_or(obj);
    let (section, prefix) = if macho { ("__TEXT,__text", "_") } else { (".text", "") };
    let bin = obj.with_extension("bin");
    output(Command::new(OBJCOPY).arg(format!("--dump-section={section}={}", bin.display())).arg(obj));
    let code = std::fs::read(&bin).expect("objcopy wrote the section");
    // `llvm-objdump -r`: a "RELOCATION RECORDS FOR [section]:" header, a column header, then "OFFSET TYPE VALUE".
    let text_header = if macho { "RELOCATION RECORDS FOR [__text]:" } else { "RELOCATION RECORDS FOR [.text]:" };
    let mut relocations = BTreeSet::new();
    let mut in_text = false;
    for line in output(Command::new(OBJDUMP).arg("-r").arg(obj)).lines() {
        if line.starts_with("RELOCATION RECORDS FOR") {
            in_text = line == text_header;
        } else if let Some(off) = in_text.then(|| line.split_whitespace().next()).flatten() {
            if let Ok(off) = usize::from_str_radix(off, 16) {
                relocations.insert(off);
            }
        }
    }
    let mut functions = Vec::new();
    for line in output(Command::new(NM).args(["--defined-only", "-n"]).arg(obj)).lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if let [addr, "T", name] = f[..] {
            let name = name.strip_prefix(prefix).unwrap_or_else(|| panic!("{name} lacks the prefix {prefix:?}"));
            functions.push((usize::from_str_radix(addr, 16).unwrap(), name.to_string()));
        }
    }
    Object { code, relocations, functions }
}

/// The Mach-O object's split into atoms at symbols is sound: `MH_SUBSECTIONS_VIA_SYMBOLS` is set, the code
/// starts at a function and every function ends with a return.
fn check_subsections(fl: &Flavour, what: &str, obj: &Path, mac: &Object) {
    let header = output(Command::new(OBJDUMP).args(["--macho", "--private-header"]).arg(obj));
    assert!(header.contains("SUBSECTIONS_VIA_SYMBOLS"), "{what}: no MH_SUBSECTIONS_VIA_SYMBOLS flag:\n{header}");
    assert_eq!(mac.functions.first().map(|f| f.0), Some(0), "{what}: code before the first function's symbol");
    for (i, (start, name)) in mac.functions.iter().enumerate() {
        let end = mac.functions.get(i + 1).map_or(mac.code.len(), |f| f.0);
        assert!((fl.returns)(&mac.code[*start..end]), "{what}: {name} does not end with a return");
    }
}

fn check(fl: &Flavour) {
    let tools = [MC, OBJCOPY, OBJDUMP, NM, fl.ld];
    if !asmgen_tests::have_all(&tools, &format!("comparing {} with {}", fl.macos, fl.linux)) {
        return;
    }
    let root = asmgen_tests::workspace().join("generated");
    let out = std::env::temp_dir().join(format!("asmgen-flavours-{}-{}", fl.macos, std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let mut stems: Vec<String> = std::fs::read_dir(root.join(fl.macos))
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".S").map(str::to_string))
        .collect();
    stems.sort();
    assert!(!stems.is_empty(), "no listings in generated/{}", fl.macos);
    for stem in &stems {
        let mac_src = root.join(fl.macos).join(format!("{stem}.S"));
        let mac_obj = out.join(format!("{stem}.macho.o"));
        let mut mac = assemble(fl.macos_mc, &mac_src, &mac_obj, None);
        let elf_src = root.join(fl.linux).join(format!("{stem}.S"));
        let mut elf = assemble(fl.linux_mc, &elf_src, &out.join(format!("{stem}.elf.o")), Some(fl.ld));
        let what = format!("generated/{}/{stem}.S", fl.macos);
        check_subsections(fl, &what, &mac_obj, &mac);
        assert!(!mac.functions.is_empty(), "{what}: no functions");
        assert_eq!(mac.functions, elf.functions, "{what}: functions or their offsets differ from {}", fl.linux);
        assert_eq!(mac.relocations, elf.relocations, "{what}: relocated code differs from {}", fl.linux);
        assert_eq!(mac.code.len(), elf.code.len(), "{what}: code size differs from {}", fl.linux);
        for &at in &mac.relocations {
            (fl.mask)(&mut mac.code, at, &what);
            (fl.mask)(&mut elf.code, at, &format!("generated/{}/{stem}.S", fl.linux));
        }
        for (i, (start, name)) in mac.functions.iter().enumerate() {
            let end = mac.functions.get(i + 1).map_or(mac.code.len(), |f| f.0);
            if let Some(d) = (*start..end).find(|&k| mac.code[k] != elf.code[k]) {
                panic!("{what}: {name} differs from {}'s at offset {:#x} of the function", fl.linux, d - start);
            }
        }
    }
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn x86_64_macos_code_equals_x86_64_linux_code() {
    check(&X86_64);
}

#[test]
fn aarch64_macos_code_equals_aarch64_linux_code_but_page_immediates() {
    check(&AARCH64);
}
