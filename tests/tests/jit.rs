//! The JIT's proof: for every function of the x86_64, aarch64 and riscv64 listings, the bytes the JIT lowering
//! (`asmgen::lower`) produces equal the bytes GNU as makes from the checked-in listing
//! (`generated/<target>/<listing>.S`), linked with `.text` at 0 and `.rodata` where the JIT puts the constants
//! (each function and constant has a section of its own: the linker script takes them in the listing's order).
//! Nothing is masked: branches (relaxed to the same sizes on x86_64), RIP-relative operands, `adrp`/`add
//! :lo12:` and `auipc`/`addi` must all agree, alignment padding too, and every symbol must be at the JIT's
//! offset. An x86_64 mismatch is reported with both sides decoded by iced-x86.
//!
//! The lowering is pure Rust, so this runs natively (on x86_64) with the host's and the cross assemblers;
//! without them it prints a notice and checks only that every function lowers (with `CI` set, it fails), and
//! so it does under qemu-user and wine (the comparison already ran natively). riscv64 listings are assembled without the C extension (`-march=rv64g`): the JIT
//! never compresses, while the runtime's AOT build (`rv64gc`) lets GNU as pick compressed forms.
//!
//! With `asmgen-runtime`'s `jit` feature, it also checks on the host that `Jit::host()` maps its code W^X (Linux:
//! no mapping of the process is writable and executable; Windows: the JIT's pages are read-execute only).

use asmgen::ir::Listing;
use asmgen::layout;
use asmgen::lower::{lower, Image, Lower};
use asmgen::Target;
use std::process::Command;

use asmgen_tests::{run, workspace as root};

struct Tools {
    gcc: &'static str,
    flags: &'static [&'static str],
    ld: &'static str,
    ld_flags: &'static [&'static str],
    objcopy: &'static str,
    nm: &'static str,
}

const X64: Tools = Tools { gcc: "gcc", flags: &[], ld: "ld", ld_flags: &[], objcopy: "objcopy", nm: "nm" };
const A64: Tools = Tools {
    gcc: "aarch64-linux-gnu-gcc",
    flags: &[],
    ld: "aarch64-linux-gnu-ld",
    ld_flags: &[],
    objcopy: "aarch64-linux-gnu-objcopy",
    nm: "aarch64-linux-gnu-nm",
};
const RV64: Tools = Tools {
    gcc: "riscv64-linux-gnu-gcc",
    flags: &["-march=rv64g", "-mabi=lp64d", "-Wa,-mno-relax"],
    ld: "riscv64-linux-gnu-ld",
    ld_flags: &["--no-relax"],
    objcopy: "riscv64-linux-gnu-objcopy",
    nm: "riscv64-linux-gnu-nm",
};

/// Assembles and links `generated/<target>/<listing>.S` as the image is laid out; returns `.text`,
/// `.rodata` and the global symbols (name, address).
fn reference(tools: &Tools, target: Target, name: &str, image: &Image) -> (Vec<u8>, Vec<u8>, Vec<(String, usize)>) {
    let src = root().join("generated").join(target.dir_name()).join(format!("{name}.S"));
    let dir =
        std::env::temp_dir().join(format!("asmgen-jit-proof-{}-{}-{name}", std::process::id(), target.dir_name()));
    std::fs::create_dir_all(&dir).unwrap();
    let (o, elf, lds) = (dir.join("l.o"), dir.join("l.elf"), dir.join("l.ld"));
    let (text, rodata) = (dir.join("text.bin"), dir.join("rodata.bin"));
    run(Command::new(tools.gcc).args(tools.flags).arg("-c").arg(&src).arg("-o").arg(&o));
    std::fs::write(
        &lds,
        format!(
            "SECTIONS {{\n  .text 0 : {{ *(.text .text.*) }}\n  .rodata {:#x} : {{ *(.rodata .rodata.*) }}\n  \
             /DISCARD/ : {{ *(.note.gnu.property) *(.eh_frame) }}\n}}\n",
            image.rodata_offset
        ),
    )
    .unwrap();
    run(Command::new(tools.ld).args(tools.ld_flags).args(["-e", "0", "-T"]).arg(&lds).arg(&o).arg("-o").arg(&elf));
    run(Command::new(tools.objcopy).args(["-O", "binary", "-j", ".text"]).arg(&elf).arg(&text));
    run(Command::new(tools.objcopy).args(["-O", "binary", "-j", ".rodata"]).arg(&elf).arg(&rodata));
    let nm = Command::new(tools.nm).arg(&elf).output().unwrap();
    let symbols = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let (addr, kind, sym) = (it.next()?, it.next()?, it.next()?);
            (kind == "T").then(|| (sym.to_string(), usize::from_str_radix(addr, 16).unwrap()))
        })
        .collect();
    let out = (std::fs::read(&text).unwrap(), std::fs::read(&rodata).unwrap_or_default(), symbols);
    let _ = std::fs::remove_dir_all(dir);
    out
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y).or((a.len() != b.len()).then(|| a.len().min(b.len())))
}

/// The instructions around offset `at` of both codes, decoded by iced-x86 from the start of function `start`
/// (x86-64 only: a readable mismatch report).
fn x86_context(jit: &Image, reference: &[u8], start: usize, at: usize) -> String {
    let mut theirs = jit.clone();
    theirs.bytes[..reference.len().min(jit.code_len)].copy_from_slice(&reference[..reference.len().min(jit.code_len)]);
    let window = |img: &Image| -> String {
        let text = asmgen::lower::x86_64::disassemble_range(img, start, (at + 16).min(img.code_len) - start);
        let lines: Vec<&str> = text.lines().collect();
        let i = lines
            .iter()
            .rposition(|l| {
                usize::from_str_radix(l.split(':').next().unwrap().trim_start_matches("0x"), 16).unwrap() <= at
            })
            .unwrap_or(0);
        lines[i.saturating_sub(2)..(i + 2).min(lines.len())].join("\n")
    };
    format!("JIT:\n{}\nGNU as:\n{}", window(jit), window(&theirs))
}

fn check<I: Lower>(target: Target, tools: &Tools, listings: Vec<Listing<I>>) {
    let needed = [tools.gcc, tools.ld, tools.objcopy, tools.nm];
    // Under qemu-user or wine (`cargo xtask cross`) only the lowering runs: the comparison with the host's
    // tools ran natively, and forking them from a multi-threaded guest can deadlock qemu-user.
    let tools_ok = cfg!(all(target_arch = "x86_64", not(windows)))
        && asmgen_tests::have_all(&needed, &format!("the byte comparison of {target} (only lowering)"));
    for l in &listings {
        let functions: Vec<_> = l.functions.iter().collect();
        let image = lower(&functions).unwrap_or_else(|e| panic!("{target} {}: {e}", l.name));
        assert_eq!(image.symbols.len(), l.functions.len());
        let consts: usize = layout::constants(functions.iter().copied()).unwrap().iter().map(|c| c.bytes.len()).sum();
        assert!(image.bytes.len() >= image.rodata_offset + consts);
        if !tools_ok {
            continue;
        }
        let (text, rodata, symbols) = reference(tools, target, &l.name, &image);
        let code = &image.bytes[..image.code_len];
        if let Some(at) = first_difference(code, &text) {
            let sym = image.symbols.iter().rev().find(|s| s.offset <= at);
            let f = sym.map_or("?", |s| s.name.as_str());
            let context = match (target.arch, sym) {
                (asmgen::Arch::X86_64, Some(s)) => x86_context(&image, &text, s.offset, at),
                _ => String::new(),
            };
            panic!(
                "{target} {}: JIT code differs from the assembled listing at {at:#x} (in {f}): JIT {:02x?}, GNU as \
                 {:02x?} (lengths {} and {})\n{context}",
                l.name,
                &code[at..(at + 8).min(code.len())],
                &text[at..(at + 8).min(text.len())],
                code.len(),
                text.len()
            );
        }
        assert_eq!(&image.bytes[image.rodata_offset..], &rodata[..], "{target} {}: constants differ", l.name);
        for s in &image.symbols {
            let at = symbols.iter().find(|(n, _)| *n == s.name).unwrap_or_else(|| panic!("no symbol {}", s.name));
            assert_eq!(at.1, s.offset, "{target} {}: {} is at a different offset", l.name, s.name);
        }
        eprintln!(
            "{target} {}: {} functions, {} code bytes, {} constant bytes identical to GNU as",
            l.name,
            image.symbols.len(),
            image.code_len,
            rodata.len()
        );
    }
}

#[test]
fn x86_64_jit_bytes_equal_the_assembled_listings() {
    let t = Target::X86_64_LINUX;
    check(t, &X64, asmgen_kernels::catalog::x86_64(t).unwrap());
}

#[test]
fn aarch64_jit_bytes_equal_the_assembled_listings() {
    let t = Target::AARCH64_LINUX;
    check(t, &A64, asmgen_kernels::catalog::aarch64(t).unwrap());
}

#[test]
fn riscv64_jit_bytes_equal_the_assembled_listings() {
    let t = Target::RISCV64_LINUX;
    check(t, &RV64, asmgen_kernels::catalog::riscv64(t).unwrap());
}

/// `Jit::host()` assembles the sets the dispatcher chooses and lists its kernels with features, bytes and text;
/// no mapping of the process is writable and executable at once afterwards.
#[test]
fn host_jit_is_w_xor_x_and_lists_its_kernels() {
    use asmgen_runtime::jit::Jit;
    let jit = Jit::host().unwrap_or_else(|e| panic!("{e}"));
    assert!(!jit.kernels().is_empty(), "no kernel for this CPU");
    assert_eq!(jit.sets().len(), 2, "one GHASH/POLYVAL set and one SM4 set: {:?}", jit.sets());
    for k in jit.kernels() {
        let bytes = jit.bytes(k);
        assert!(!bytes.is_empty(), "{}", k.name);
        if cfg!(not(target_arch = "x86_64")) {
            assert!(bytes.len().is_multiple_of(4), "{}", k.name);
        }
        assert!(!k.features.is_empty());
        assert!(jit.entry(&k.name).is_some());
    }
    // The text of one kernel per set (every kernel's would rebuild the description each time).
    for set in jit.sets() {
        let k = jit.kernels().iter().find(|k| &k.set == set).expect("a kernel per set");
        let text = jit.disassembly(k).unwrap();
        assert!(text.lines().count() * 16 >= jit.bytes(k).len(), "{}: {} lines", k.name, text.lines().count());
    }
    let s = jit.stats();
    eprintln!(
        "{} kernels of {:?}, features {:?}: {} instructions, {} bytes, {} mapped; build {:?}, lower {:?}, map {:?}",
        jit.kernels().len(),
        jit.sets(),
        jit.features(),
        s.instructions,
        s.bytes,
        s.mapped,
        s.build,
        s.lower,
        s.map
    );
    assert!(s.mapped >= s.bytes && s.instructions > 0);
    #[cfg(target_os = "linux")]
    {
        let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
        for line in maps.lines() {
            let perms = line.split_whitespace().nth(1).unwrap_or("");
            assert!(!(perms.contains('w') && perms.contains('x')), "writable and executable: {line}");
        }
    }
    #[cfg(windows)]
    for k in jit.kernels() {
        let at = jit.entry(&k.name).unwrap();
        assert_eq!(
            asmgen_tests::win_memory::protection(at as usize),
            asmgen_tests::win_memory::PAGE_EXECUTE_READ,
            "{}: the JIT's page is not read-execute only",
            k.name
        );
    }
    drop(jit);
}
