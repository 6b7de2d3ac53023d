//! Objects assembled from the listings, whose functions and constants each have a section of their own
//! (`.text.<symbol>` or `.text$<symbol>`, `.rodata.<constant>` or `.rdata$<constant>`): a family of sections
//! read as the one section a linker makes of them, in the listing's order. The listings pad every function
//! section but the last to the function alignment, so the sections' bytes follow each other without a gap; the
//! constants' sections are placed at their alignment, padded with zeros as the linker pads data.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether section `name` belongs to family `base` (`.text`: `.text`, `.text.<symbol>`, `.text$<symbol>`).
pub fn in_family(name: &str, base: &str) -> bool {
    name.strip_prefix(base).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '$']))
}

/// The sections of `obj` as `objdump -h` lists them, in header order (the order the assembler created them,
/// which is the listing's order): name, size, alignment.
pub fn headers(objdump: &str, obj: &Path) -> Vec<(String, usize, usize)> {
    let out = crate::run(Command::new(objdump).arg("-h").arg(obj));
    out.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // "Idx Name Size VMA LMA File-off Algn": the index is a number, the alignment `2**n`.
            let (_, log2) = f.get(6)?.split_once("2**")?;
            f[0].parse::<usize>().ok()?;
            Some((f[1].to_string(), usize::from_str_radix(f[2], 16).ok()?, 1 << log2.parse::<u32>().ok()?))
        })
        .collect()
}

/// The bytes of the sections of family `base` of `obj` (`objdump -h` and `objcopy --dump-section` of the
/// object's toolchain), concatenated in header order, each at its alignment (zeros between, where needed), and
/// the offset at which each starts: what a linker taking `*(base base.* base$*)` lays out.
pub fn family(objdump: &str, objcopy: &str, obj: &Path, base: &str) -> (Vec<u8>, Vec<(String, usize)>) {
    let members: Vec<_> =
        headers(objdump, obj).into_iter().filter(|(n, size, _)| in_family(n, base) && *size > 0).collect();
    let dir = obj.with_extension(format!("{}.sections", base.trim_start_matches('.')));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = Command::new(objcopy);
    for (i, (name, _, _)) in members.iter().enumerate() {
        cmd.arg(format!("--dump-section={name}={}", dir.join(i.to_string()).display()));
    }
    if !members.is_empty() {
        crate::run(cmd.arg(obj).arg(dir.join("copy.o")));
    }
    let (mut bytes, mut starts) = (Vec::new(), Vec::new());
    for (i, (name, _, align)) in members.iter().enumerate() {
        bytes.resize(bytes.len().next_multiple_of(*align), 0);
        starts.push((name.clone(), bytes.len()));
        bytes.extend(std::fs::read(dir.join(i.to_string())).expect("objcopy dumped the section"));
    }
    let _ = std::fs::remove_dir_all(&dir);
    (bytes, starts)
}

/// The code of `obj`: every `.text` section, in order ([`family`]).
pub fn code(objdump: &str, objcopy: &str, obj: &Path) -> Vec<u8> {
    family(objdump, objcopy, obj, ".text").0
}

/// A relocatable ELF object made of `obj` by `ld -r` with every `.text.*` section in `.text` and every
/// `.rodata.*` section in `.rodata`, in input order (relocations, symbols and other sections kept): for tests
/// that read an object's code, relocations and symbol offsets as one section.
pub fn merged_elf(ld: &str, obj: &Path) -> PathBuf {
    let (script, out) = (obj.with_extension("merge.ld"), obj.with_extension("merged.o"));
    std::fs::write(&script, "SECTIONS {\n  .text : { *(.text .text.*) }\n  .rodata : { *(.rodata .rodata.*) }\n}\n")
        .unwrap();
    crate::run(Command::new(ld).arg("-r").arg("-T").arg(&script).arg(obj).arg("-o").arg(&out));
    out
}
