//! COFF objects made by the Windows assemblers (mingw-w64 GNU as, nasm), read with mingw's binutils and
//! llvm-readobj-19: a section's bytes, the global symbols, the unwind data decoded. Shared by the tests that
//! compare objects (`tests/tests/nasm.rs`, `tests/tests/zmm_flavours.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// mingw-w64's GNU as.
pub const GAS: &str = "x86_64-w64-mingw32-as";
/// mingw-w64's objcopy (a section's bytes).
pub const OBJCOPY: &str = "x86_64-w64-mingw32-objcopy";
/// mingw-w64's objdump (`-x`: the `.pdata` function table and the `.xdata` unwind information, resolved).
pub const OBJDUMP: &str = "x86_64-w64-mingw32-objdump";
/// mingw-w64's nm (the global symbols).
pub const NM: &str = "x86_64-w64-mingw32-nm";
/// llvm-readobj (`--unwind`).
pub const READOBJ: &str = "llvm-readobj-19";
/// The Netwide Assembler.
pub const NASM: &str = "nasm";

/// A scratch folder for test `test` of file `file` (tests run in parallel, in several processes).
pub fn scratch(file: &str, test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asmgen-{file}-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Assembles `src` with mingw's GNU as into `out`.
pub fn gas(src: &Path, out: &Path) {
    crate::run(Command::new(GAS).arg(src).arg("-o").arg(out));
}

/// Assembles `src` with `nasm -f win64` into `out`; warnings are errors (a listing must assemble cleanly).
pub fn nasm(src: &Path, out: &Path) {
    crate::run(Command::new(NASM).args(["-f", "win64", "-Werror"]).arg(src).arg("-o").arg(out));
}

/// Prints function `f` as the mingw GNU as and the NASM listing (`here` the generator named in their headers),
/// assembles each in scratch folder `scratch` (file, test) and asserts that its code starts with the JIT
/// lowering's bytes of `f`.
pub fn assert_flavours_give_the_jit_bytes(
    f: asmgen::Function<asmgen::isa::x86_64::X86_64>,
    here: &str,
    (file, test): (&str, &str),
) {
    use asmgen::{emit, Listing, Target};
    let image = asmgen::lower::lower(&[&f]).unwrap();
    let jit = image.bytes[..image.code_len].to_vec();
    let l = Listing { name: "t".into(), title: test.into(), functions: vec![f] };
    let dir = scratch(file, test);
    for (target, ext) in [(Target::X86_64_WINDOWS, "S"), (Target::X86_64_WINDOWS_NASM, "asm")] {
        let src = dir.join(format!("t.{ext}"));
        let text = if ext == "S" { emit::listing(target, &l, here) } else { emit::nasm::listing(target, &l, here) };
        std::fs::write(&src, text.unwrap()).unwrap();
        let obj = dir.join(format!("t.{ext}.obj"));
        if ext == "S" {
            gas(&src, &obj);
        } else {
            nasm(&src, &obj);
        }
        let code = section(&obj, ".text");
        assert!(code.len() >= jit.len(), "{ext}: {} code bytes, the JIT {}", code.len(), jit.len());
        let at = code.iter().zip(&jit).position(|(a, b)| a != b);
        assert_eq!(at, None, "{ext}: the code differs from the JIT's at {at:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The bytes of the sections of family `name` (`.text`: `.text` and every `.text$<function>`; `.rdata` and every
/// `.rdata$<constant>`) of `obj`, in order, each at its alignment ([`crate::sections::family`]).
pub fn section(obj: &Path, name: &str) -> Vec<u8> {
    crate::sections::family(OBJDUMP, OBJCOPY, obj, name).0
}

/// The global symbols defined in `obj`, as `nm` prints them (value, type, name), in address order.
pub fn global_symbols(obj: &Path) -> Vec<String> {
    let out = crate::run(Command::new(NM).args(["-g", "--defined-only", "-n"]).arg(obj));
    out.lines().map(str::to_string).collect()
}

/// `objdump -x`'s reading of the unwind data: the `.pdata` function table (start, end and unwind information
/// of each function, as section offsets) and every `.xdata` entry decoded.
pub fn unwind_table(obj: &Path) -> String {
    let out = crate::run(Command::new(OBJDUMP).arg("-x").arg(obj));
    let start = out.find("The Function Table").unwrap_or_else(|| panic!("{}: no .pdata", obj.display()));
    let end = out[start..].find("\nSections:").map_or(out.len(), |e| start + e);
    out[start..end].to_string()
}

/// `llvm-readobj --unwind`'s reading of each `.pdata` entry: the function's name and its `UnwindInfo` block
/// (version, flags, prologue size, frame register, the codes), in `.pdata` order.
pub fn unwind_infos(obj: &Path) -> Vec<(String, String)> {
    let out = crate::run(Command::new(READOBJ).arg("--unwind").arg(obj));
    let mut v = Vec::new();
    for entry in out.split("RuntimeFunction {").skip(1) {
        let name = entry.split("StartAddress: ").nth(1).and_then(|s| s.split_whitespace().next()).expect("a start");
        let info = &entry[entry.find("UnwindInfo {").expect("unwind information")..];
        v.push((name.to_string(), info.trim().to_string()));
    }
    v
}

/// The NASM listings under `generated/<dir>/` (`*.asm`), sorted, each with the GNU as listing beside it
/// (`*.S`); panics if there are none.
pub fn nasm_listings(dir: &str) -> Vec<(PathBuf, PathBuf)> {
    let dir = crate::workspace().join("generated").join(dir);
    let mut v: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .map(|p| (p.clone(), p.with_extension("S")))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no NASM listings in {}", dir.display());
    v
}
