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
};

const AARCH64: Flavour = Flavour {
    macos: "aarch64-macos",
    linux: "aarch64-linux",
    macos_mc: &["-triple=arm64-apple-macos", "-mattr=+sm4,+sha3,+aes"],
    linux_mc: &["-triple=aarch64-linux-gnu", "-mattr=+sm4,+sha3,+aes"],
    mask: mask_aarch64,
};

use asmgen_tests::run as output;

/// One assembled listing: its code section, the offsets of the relocations in it, its functions.
struct Object {
    code: Vec<u8>,
    relocations: BTreeSet<usize>,
    /// (offset, name without the symbol prefix), in offset order.
    functions: Vec<(usize, String)>,
}

fn assemble(mc_args: &[&str], src: &Path, obj: &Path, macho: bool) -> Object {
    output(Command::new(MC).args(mc_args).arg("-filetype=obj").arg(src).arg("-o").arg(obj));
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

fn check(fl: &Flavour) {
    if !asmgen_tests::have_all(&[MC, OBJCOPY, OBJDUMP, NM], &format!("comparing {} with {}", fl.macos, fl.linux)) {
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
        let mut mac = assemble(fl.macos_mc, &mac_src, &out.join(format!("{stem}.macho.o")), true);
        let elf_src = root.join(fl.linux).join(format!("{stem}.S"));
        let mut elf = assemble(fl.linux_mc, &elf_src, &out.join(format!("{stem}.elf.o")), false);
        let what = format!("generated/{}/{stem}.S", fl.macos);
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
