//! Control-flow protection, checked on the ELF listings: the GNU property notes they end with claim what
//! `gen/src/property.rs` derives (x86_64 IBT and SHSTK; aarch64 BTI and GCS but not PAC, since no kernel
//! signs a return address; riscv64 nothing), with GNU as and llvm-mc, read back by `readelf -n` (binutils
//! 2.40 prints the GCS bit as `<unknown: 4>`, so the aarch64 bits are also read by `llvm-readelf-19`), and
//! still there after a link. Then the BTI landing pads themselves: a static aarch64 program linked with
//! `-z force-bti` calls every aarch64 listing function through a function pointer (`blr`) under
//! `qemu-aarch64 -cpu max`, which enforces BTI on the guarded pages of such a binary (qemu 7.2 does, checked
//! by the negative case), and exits 0; the same program calling a function without `bti c` dies of SIGILL.
//!
//! The program has no C library: Debian's static glibc is not built with BTI, so under `-z force-bti` its own
//! indirect calls fault before `main`. A small `_start` (in [`START`]) calls the generated C and exits.
//!
//! Runs on an x86_64 Linux host with binutils (native, aarch64, riscv64), gcc (native, aarch64), llvm-19 and
//! qemu-user (`bash .ci/install-deps`); elsewhere it prints a notice and passes, and without the tools it does
//! too unless `CI` is set. Skipped under wine (`HOST_TOOL_TESTS` in xtask/src/cross.rs).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use asmgen_tests::run;

/// Whether this host runs the Linux tools; prints a notice when it does not.
fn linux_host(what: &str) -> bool {
    let ok = cfg!(all(target_arch = "x86_64", target_os = "linux"));
    if !ok {
        println!("notice: not an x86_64 Linux host: {what} not checked");
    }
    ok
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("asmgen-cfp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Assembles every listing of `generated/<dir>/` with the assembler command `asm` (its output flag `-o`
/// last); the objects, named `<stem>.<tag>.o`.
fn assemble(dir: &str, asm: &[&str], tag: &str, out: &Path) -> Vec<PathBuf> {
    let mut objs = Vec::new();
    for src in asmgen_tests::listings(dir) {
        let obj = out.join(format!("{}.{tag}.o", src.file_stem().unwrap().to_string_lossy()));
        run(Command::new(asm[0]).args(&asm[1..]).arg(&src).arg("-o").arg(&obj));
        objs.push(obj);
    }
    objs
}

/// The `feature:` lines a notes dump (`readelf -n`, `llvm-readelf --notes`) prints for `file`.
fn features(readelf: &[&str], file: &Path) -> Vec<String> {
    let out = run(Command::new(readelf[0]).args(&readelf[1..]).arg(file));
    out.lines().filter(|l| l.contains("feature:")).map(|l| l.trim().to_string()).collect()
}

/// Checks that `file`'s notes, read by `readelf`, have exactly one property line and that it is `want`.
fn claims(readelf: &[&str], file: &Path, want: &str) {
    let lines = features(readelf, file);
    assert_eq!(lines.len(), 1, "{}: {} property lines: {lines:?}", file.display(), readelf[0]);
    assert!(lines[0].ends_with(want), "{}: {} says {:?}, want {want:?}", file.display(), readelf[0], lines[0]);
}

/// Runs `cmd`, returning its output whatever its status.
fn output(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
}

/// The signal that ended a process, if one did.
#[cfg(unix)]
fn signal(out: &Output) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    out.status.signal()
}

#[cfg(not(unix))]
fn signal(_out: &Output) -> Option<i32> {
    None
}

/// A function with no property note: linked with the listings it must make the link report it.
const BARE_X86: &str = "\t.text\n\t.globl bare\nbare:\n\tret\n\t.section .note.GNU-stack,\"\",@progbits\n";

#[test]
fn cfp_x86_64_objects_and_links_claim_ibt_and_shstk() {
    let tools = ["as", "llvm-mc-19", "readelf", "gcc"];
    if !linux_host("x86_64 notes") || !asmgen_tests::have_all(&tools, "the x86_64 property notes") {
        return;
    }
    let out = scratch("x86_64");
    let gas = assemble("x86_64-linux", &["as"], "gas", &out);
    let mc = assemble("x86_64-linux", &["llvm-mc-19", "-triple=x86_64-linux-gnu", "-filetype=obj"], "mc", &out);
    for obj in gas.iter().chain(&mc) {
        claims(&["readelf", "-n"], obj, "x86 feature: IBT, SHSTK");
    }
    // The link keeps the note, and reports (as an error) an input without it.
    let link = |objs: &[PathBuf], so: &Path| {
        output(Command::new("gcc").args(["-shared", "-nostdlib", "-Wl,-z,cet-report=error", "-o"]).arg(so).args(objs))
    };
    let so = out.join("listings.so");
    let linked = link(&gas, &so);
    assert!(linked.status.success(), "linking the listings: {}", String::from_utf8_lossy(&linked.stderr));
    claims(&["readelf", "-n"], &so, "x86 feature: IBT, SHSTK");
    let bare = out.join("bare.o");
    std::fs::write(out.join("bare.S"), BARE_X86).unwrap();
    run(Command::new("as").arg(out.join("bare.S")).arg("-o").arg(&bare));
    let refused = link(&[gas.clone(), vec![bare]].concat(), &out.join("bare.so"));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && err.contains("missing IBT and SHSTK"),
        "cet-report let a bare object by: {err}"
    );
}

const AARCH64_GAS: &[&str] = &["aarch64-linux-gnu-as"];
const AARCH64_MC: &[&str] = &["llvm-mc-19", "-triple=aarch64", "-mattr=+sm4,+sha3,+aes", "-filetype=obj"];
/// llvm-readelf names every aarch64 bit (binutils 2.40 readelf prints GCS as `<unknown: 4>`).
const LLVM_NOTES: &[&str] = &["llvm-readelf-19", "--notes"];

#[test]
fn cfp_aarch64_objects_and_links_claim_bti_and_gcs_not_pac() {
    let tools = [AARCH64_GAS[0], AARCH64_MC[0], LLVM_NOTES[0], "readelf", "aarch64-linux-gnu-gcc"];
    if !linux_host("aarch64 notes") || !asmgen_tests::have_all(&tools, "the aarch64 property notes") {
        return;
    }
    let out = scratch("aarch64");
    let gas = assemble("aarch64-linux", AARCH64_GAS, "gas", &out);
    let mc = assemble("aarch64-linux", AARCH64_MC, "mc", &out);
    for obj in gas.iter().chain(&mc) {
        claims(LLVM_NOTES, obj, "aarch64 feature: BTI, GCS");
        // binutils' readelf: BTI, and no PAC whether or not it decodes GCS.
        let binutils = features(&["readelf", "-n"], obj).join("\n");
        assert!(binutils.contains("AArch64 feature: BTI") && !binutils.contains("PAC"), "{obj:?}: {binutils}");
    }
    // A plain link keeps both bits; -z force-bti warns of no input (every listing carries BTI).
    for (name, flags) in [("plain", "-Wl,--fatal-warnings"), ("force-bti", "-Wl,-z,force-bti")] {
        let so = out.join(format!("{name}.so"));
        let mut cmd = Command::new("aarch64-linux-gnu-gcc");
        let linked = output(cmd.args(["-shared", "-nostdlib", flags, "-o"]).arg(&so).args(&gas));
        let err = String::from_utf8_lossy(&linked.stderr);
        assert!(linked.status.success() && !err.contains("BTI"), "{name} link: {err}");
        claims(LLVM_NOTES, &so, "aarch64 feature: BTI, GCS");
    }
}

#[test]
fn cfp_riscv64_objects_carry_no_x86_or_aarch64_property() {
    let tools = ["riscv64-linux-gnu-as", "llvm-mc-19", "readelf"];
    if !linux_host("riscv64 notes") || !asmgen_tests::have_all(&tools, "the riscv64 notes") {
        return;
    }
    let out = scratch("riscv64");
    let gas = assemble("riscv64-linux", &["riscv64-linux-gnu-as", "-march=rv64g", "-mno-relax"], "gas", &out);
    let mattr = "-mattr=+zbb,+zbc,+zbkb,+zksed,+v,+zvkb,+zvksed,+zvkg,+zvbb,+zvbc,-relax";
    let mc = assemble("riscv64-linux", &["llvm-mc-19", "-triple=riscv64", mattr, "-filetype=obj"], "mc", &out);
    for obj in gas.iter().chain(&mc) {
        let notes = run(Command::new("readelf").arg("-n").arg(obj));
        assert!(!notes.contains("NT_GNU_PROPERTY_TYPE_0") && !notes.contains("feature:"), "{obj:?}: {notes}");
    }
}

/// The program's entry (no C library): `cmain(argc, argv)`, then exit with its result. It also holds
/// `no_pad`, a function without `bti c`, in a file whose note claims BTI: an indirect call to it must fault.
const START: &str = "\t.text
	.globl _start
	.type _start, %function
	.p2align 2
_start:
	hint #34
	ldr x0, [sp]
	add x1, sp, #8
	bl cmain
	mov x8, #93		// exit
	svc #0
	.size _start, .-_start

	.globl no_pad
	.type no_pad, %function
	.p2align 2
no_pad:
	ret
	.size no_pad, .-no_pad

	.section .note.GNU-stack,\"\",%progbits
	.section .note.gnu.property,\"a\",%note
	.p2align 3
	.long 4, 16, 5
	.asciz \"GNU\"
	.long 0xc0000000, 4, 1	// GNU_PROPERTY_AARCH64_FEATURE_1_AND: BTI
	.p2align 3
";

/// The C prototypes (`void name(...)`) a listing's header lists.
fn prototypes(listing: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(listing).unwrap();
    text.lines().filter_map(|l| l.strip_prefix(" *   void ")).map(|p| format!("void {p}")).collect()
}

/// The C program: every function of `protos` called through a volatile function pointer (an indirect `blr`)
/// with valid arguments: each pointer its own 4 KiB buffer (more than any key schedule, table, state or the
/// message), each `size_t` 4 blocks. `cmain` returns 0 when every call came back; with an argument starting
/// with `n` it calls `no_pad` instead.
fn program(protos: &[String]) -> String {
    let mut c = String::from("typedef unsigned long size_t;\ntypedef unsigned char uint8_t;\nvoid no_pad(void);\n");
    c.push_str("static uint8_t buf[6][4096] __attribute__((aligned(16)));\n");
    for p in protos {
        c.push_str(&format!("{p}\n"));
    }
    c.push_str("int cmain(long argc, char **argv) {\n");
    c.push_str("\tif (argc > 1 && argv[1][0] == 'n') {\n\t\tvoid (*volatile f)(void) = no_pad;\n\t\tf();\n\t\treturn 3;\n\t}\n");
    c.push_str("\tvolatile int calls = 0;\n");
    for p in protos {
        let (name, params) = p.strip_prefix("void ").unwrap().split_once('(').unwrap();
        let args: Vec<String> = params
            .trim_end_matches(");")
            .split(", ")
            .enumerate()
            .map(|(i, a)| if a.starts_with("size_t") { "4".into() } else { format!("buf[{i}]") })
            .collect();
        c.push_str(&format!(
            "\t{{\n\t\t__typeof__({name}) *volatile f = {name};\n\t\tf({});\n\t\tcalls++;\n\t}}\n",
            args.join(", ")
        ));
    }
    c.push_str(&format!("\treturn calls == {} ? 0 : 1;\n}}\n", protos.len()));
    c
}

#[test]
fn cfp_bti_enforced_qemu_run_calls_every_aarch64_function_and_a_missing_pad_faults() {
    let tools = [AARCH64_GAS[0], "aarch64-linux-gnu-gcc", "qemu-aarch64", "readelf"];
    if !linux_host("the BTI run") || !asmgen_tests::have_all(&tools, "the BTI-enforced run under qemu") {
        return;
    }
    let out = scratch("bti");
    let objs = assemble("aarch64-linux", AARCH64_GAS, "gas", &out);
    let protos: Vec<String> = asmgen_tests::listings("aarch64-linux").iter().flat_map(|l| prototypes(l)).collect();
    assert!(protos.len() > 10, "too few prototypes found in the aarch64 listings: {protos:?}");
    std::fs::write(out.join("bti_check.c"), program(&protos)).unwrap();
    std::fs::write(out.join("start.S"), START).unwrap();
    let exe = out.join("bti_check");
    let mut cc = Command::new("aarch64-linux-gnu-gcc");
    cc.args(["-O1", "-ffreestanding", "-nostdlib", "-static", "-mbranch-protection=standard", "-Wl,-z,force-bti"]);
    let linked = output(cc.arg("-o").arg(&exe).arg(out.join("bti_check.c")).arg(out.join("start.S")).args(&objs));
    let err = String::from_utf8_lossy(&linked.stderr);
    // A warning here names an input without BTI: -z force-bti would hide it from the run.
    assert!(linked.status.success() && !err.contains("BTI"), "linking the BTI program: {err}");
    claims(&["readelf", "-n"], &exe, "AArch64 feature: BTI");
    let qemu =
        |arg: &str| output(Command::new("qemu-aarch64").args(["-cpu", "max"]).arg(&exe).arg(arg).current_dir(&out));
    let ran = qemu("all");
    assert_eq!(ran.status.code(), Some(0), "calling every listing function under BTI: {ran:?}");
    let faulted = qemu("no-pad");
    assert_eq!(
        signal(&faulted),
        Some(4),
        "an indirect call to a function without bti c must die of SIGILL: {faulted:?}"
    );
}
