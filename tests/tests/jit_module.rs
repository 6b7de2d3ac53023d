//! The JIT for any function (`asmgen_runtime::jit::JitModule`, issue 26 item 6): functions written here with
//! `asmgen::Builder` for this host's ISA and C ABI (`host_target`) are mapped and called through typed function
//! pointers.
//!
//! * A function with ten parameters (past the registers of every ABI: the last ones come from the stack), a
//!   `const uint32_t *` and a `uint32_t *` among them, returning an `int`; and one with an 8 KiB stack frame
//!   (`Builder::frame`, probed on Windows) and a callee-saved register: their answers are checked, from this
//!   thread, another one, and through a leaked (`'static`) module.
//! * The errors, each naming the function: a pointer type that is not the function's C signature (arity, a
//!   parameter, the return type), a name not in the module, a feature this CPU lacks (each one the CPU lacks,
//!   chosen at run time; the runtime's unit test fabricates a CPU without any), a function built for another
//!   ABI or ISA, two functions of one name.
//! * W^X: on Linux the module's pages are `r-x` in `/proc/self/maps` and no mapping is writable and executable;
//!   on Windows `VirtualQuery` says `PAGE_EXECUTE_READ`, and `RtlLookupFunctionEntry` finds the unwind entry
//!   registered for each function (tests/tests/unwind_windows.rs steps functions with frames mapped by a
//!   `JitModule`, `asmgen_tests::frames::host_kernels`, unwinding at every instruction).
//!
//! Runs natively, under qemu-user (aarch64, riscv64) and wine (x86_64 Windows) with `cargo xtask cross`.
#![cfg(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64"))]

use asmgen::CType::*;
use asmgen::{Abi, Builder, Feature, FeatureSet, Function, InstructionSet};
use asmgen_runtime::jit::{host_features, host_target, JitError, JitModule};

#[cfg(target_arch = "x86_64")]
type I = asmgen::isa::x86_64::X86_64;
#[cfg(target_arch = "aarch64")]
type I = asmgen::isa::aarch64::Aarch64;
#[cfg(target_arch = "riscv64")]
type I = asmgen::isa::riscv64::Riscv64;

/// `int wide(const uint32_t *key, uint32_t *out, uint64_t a2, uint32_t a3, int32_t a4, size_t a5, uint64_t a6,
/// uint32_t a7, int a8, uint64_t a9)`.
type Wide = unsafe extern "C" fn(*const u32, *mut u32, u64, u32, i32, usize, u64, u32, i32, u64) -> i32;
const WIDE: &str = "asmgen_test_wide";
const WIDE_PARAMS: [(&str, asmgen::CType); 10] = [
    ("key", ConstU32Ptr),
    ("out", U32Ptr),
    ("a2", U64),
    ("a3", U32),
    ("a4", I32),
    ("a5", Size),
    ("a6", U64),
    ("a7", U32),
    ("a8", Int),
    ("a9", U64),
];

/// `uint64_t framed(uint64_t a, uint64_t b)`.
type Framed = unsafe extern "C" fn(u64, u64) -> u64;
const FRAMED: &str = "asmgen_test_framed";
/// The frame: 8 KiB (two pages: probed on Windows).
const FRAME: u32 = 8192;

fn abi() -> Abi {
    host_target().expect("a JIT host").abi
}

/// What `wide` computes: with `k` the 64-bit word at `key` (key[0] | key[1] << 32), it writes `k + a9` to
/// out[0..2] (one 64-bit store) and returns the low 32 bits of `k + (k + a9) + a2 + ... + a8` as an `int` (so the
/// upper halves of the 32-bit arguments, which the caller need not fill, do not matter).
fn wide_expected(key: [u32; 2], a: &[u64; 10]) -> ([u32; 2], i32) {
    let k = key[0] as u64 | (key[1] as u64) << 32;
    let out = k.wrapping_add(a[9]);
    let sum = a[2..9].iter().fold(k.wrapping_add(out), |s, x| s.wrapping_add(*x));
    ([out as u32, (out >> 32) as u32], sum as u32 as i32)
}

/// `wide` for this host: `key` and `out` are 8-byte aligned.
#[cfg(target_arch = "x86_64")]
fn wide(abi: Abi) -> Function<I> {
    use asmgen::isa::x86_64::{mem, regs::*};
    let mut b = Builder::<I>::new(WIDE, abi, &[]);
    // The first six where System V passes them (a Win64 prologue moves or loads them there), the rest loaded
    // from the stack by the prologue (into callee-saved registers too: saved first).
    let stack = [R10, R11, RBX, R12];
    let r: Vec<_> = WIDE_PARAMS
        .iter()
        .enumerate()
        .map(|(i, &(name, ty))| if i < 6 { b.param(name, ty) } else { b.param_in(name, ty, stack[i - 6]) })
        .collect();
    let ret = b.returns(Int);
    b.mov(ret, mem(r[0], 0)).add(r[9], ret).mov(mem(r[1], 0), r[9]);
    for &x in &r[2..] {
        b.add(ret, x);
    }
    b.finish().unwrap()
}

#[cfg(target_arch = "aarch64")]
fn wide(abi: Abi) -> Function<I> {
    use asmgen::isa::aarch64::X;
    let mut b = Builder::<I>::new(WIDE, abi, &[]);
    let r: Vec<_> = WIDE_PARAMS
        .iter()
        .enumerate()
        .map(|(i, &(name, ty))| if i < 8 { b.param(name, ty) } else { b.param_in(name, ty, X(9 + i as u8 - 8)) })
        .collect();
    let ret = b.returns(Int);
    b.ldr(X(11), r[0], 0).add(X(12), X(11), r[9]).str(X(12), r[1], 0).add(X(13), X(11), X(12));
    for &x in &r[2..9] {
        b.add(X(13), X(13), x);
    }
    b.mov(ret, X(13));
    b.finish().unwrap()
}

#[cfg(target_arch = "riscv64")]
fn wide(abi: Abi) -> Function<I> {
    use asmgen::isa::riscv64::{mem, regs::*};
    let mut b = Builder::<I>::new(WIDE, abi, &[]);
    let stack = [T0, T1];
    let r: Vec<_> = WIDE_PARAMS
        .iter()
        .enumerate()
        .map(|(i, &(name, ty))| if i < 8 { b.param(name, ty) } else { b.param_in(name, ty, stack[i - 8]) })
        .collect();
    let ret = b.returns(Int);
    b.ld(T2, mem(r[0], 0)).add(T3, T2, r[9]).sd(T3, mem(r[1], 0)).add(T4, T2, T3);
    for &x in &r[2..9] {
        b.add(T4, T4, x);
    }
    // LP64 returns a 32-bit value sign-extended.
    b.slli(ret, T4, 32).srai(ret, ret, 32);
    b.finish().unwrap()
}

/// `framed(a, b)` returns `2 * a + b`: `a` through a callee-saved register and the frame's first slot, `b`
/// through its last reachable one.
#[cfg(target_arch = "x86_64")]
fn framed(abi: Abi) -> Function<I> {
    use asmgen::isa::x86_64::regs::*;
    let mut b = Builder::<I>::new(FRAMED, abi, &[]);
    let (x, y) = (b.param("a", U64), b.param("b", U64));
    let ret = b.returns(U64);
    let frame = b.frame(FRAME, 16);
    let last = FRAME as i32 - 8;
    b.mov(RBX, x).mov(frame.at(0), RBX).mov(frame.at(last), y);
    b.mov(ret, frame.at(0)).mov(R10, frame.at(last)).add(ret, R10).add(ret, RBX);
    b.finish().unwrap()
}

#[cfg(target_arch = "aarch64")]
fn framed(abi: Abi) -> Function<I> {
    use asmgen::isa::aarch64::X;
    let mut b = Builder::<I>::new(FRAMED, abi, &[]);
    let (x, y) = (b.param("a", U64), b.param("b", U64));
    let ret = b.returns(U64);
    let frame = b.frame(FRAME, 16);
    let (first, last) = (frame.offset(0), frame.offset(FRAME as i32 - 8));
    b.mov(X(19), x).str(X(19), frame.base(), first).str(y, frame.base(), last);
    b.ldr(X(9), frame.base(), first).ldr(X(10), frame.base(), last);
    b.add(ret, X(9), X(10)).add(ret, ret, X(19));
    b.finish().unwrap()
}

#[cfg(target_arch = "riscv64")]
fn framed(abi: Abi) -> Function<I> {
    use asmgen::isa::riscv64::regs::*;
    let mut b = Builder::<I>::new(FRAMED, abi, &[]);
    let (x, y) = (b.param("a", U64), b.param("b", U64));
    let ret = b.returns(U64);
    let frame = b.frame(FRAME, 16);
    // Past 2 KiB from the base an `ld`/`sd` offset does not reach.
    let last = 2040;
    b.addi(S1, x, 0).sd(S1, frame.at(0)).sd(y, frame.at(last));
    b.ld(T0, frame.at(0)).ld(T1, frame.at(last)).add(ret, T0, T1).add(ret, ret, S1);
    b.finish().unwrap()
}

fn module() -> JitModule {
    let functions = [wide(abi()), framed(abi())];
    JitModule::new(&functions).unwrap_or_else(|e| panic!("{e}"))
}

/// Calls `wide` with values whose 32-bit arguments carry garbage upper halves where Rust passes them in 64 bits.
fn call_wide(f: Wide, seed: u64) {
    #[repr(C, align(8))]
    struct Words([u32; 2]);
    let mut rng = asmgen_tests::Rng::new(seed);
    let key = Words([rng.next_u64() as u32, rng.next_u64() as u32]);
    let mut out = Words([0; 2]);
    let mut a = [0u64; 10];
    a.iter_mut().skip(2).for_each(|x| *x = rng.next_u64());
    let (want_out, want_ret) = wide_expected(key.0, &a);
    // SAFETY: `wide` reads key[0..2] and writes out[0..2], both 8-byte aligned and alive over the call.
    let ret = unsafe {
        f(
            key.0.as_ptr(),
            out.0.as_mut_ptr(),
            a[2],
            a[3] as u32,
            a[4] as i32,
            a[5] as usize,
            a[6],
            a[7] as u32,
            a[8] as i32,
            a[9],
        )
    };
    assert_eq!((out.0, ret), (want_out, want_ret), "wide, seed {seed}");
}

fn call_framed(f: Framed) {
    for (a, b) in [(1, 2), (u64::MAX, 3), (0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210)] {
        // SAFETY: `framed` reads its arguments only.
        assert_eq!(unsafe { f(a, b) }, a.wrapping_mul(2).wrapping_add(b), "framed({a:#x}, {b:#x})");
    }
}

#[test]
fn user_functions_are_called_through_typed_pointers() {
    let m = module();
    assert_eq!(m.names().collect::<Vec<_>>(), [WIDE, FRAMED]);
    let wide = m.get::<Wide>(WIDE).unwrap();
    let framed = m.get::<Framed>(FRAMED).unwrap();
    for seed in 0..16 {
        call_wide(*wide, seed);
    }
    call_framed(*framed);
    assert_eq!(m.entry(WIDE), Some(*wide as *const u8));
    assert!(m.bytes(FRAMED).is_some_and(|b| !b.is_empty()) && m.mapped() >= m.code().len());
    // From other threads, at once (the module is Send and Sync).
    std::thread::scope(|s| {
        for seed in 100..104 {
            s.spawn(move || call_wide(*wide, seed));
        }
        s.spawn(|| call_framed(*framed));
    });
}

/// A leaked module's functions are `'static`: they outlive the binding and can go to any thread.
#[test]
fn a_leaked_module_hands_out_static_functions() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    let m = module();
    send_sync(&m);
    let m: &'static JitModule = m.leak();
    let f: Wide = m.get::<Wide>(WIDE).unwrap().into_inner();
    std::thread::spawn(move || call_wide(f, 7)).join().unwrap();
}

/// The message and the function an error names.
fn named(e: JitError, function: &str) -> JitError {
    assert!(e.to_string().contains(function), "the error names {function}: {e}");
    e
}

#[test]
fn a_pointer_type_that_is_not_the_signature_is_refused() {
    let m = module();
    let expected = "unsafe extern \"C\" fn(*const u32, *mut u32, u64, u32, i32, usize, u64, u32, i32, u64) -> i32";
    // Arity, one parameter (`*const u8` for `uint32_t *`), the return type, void.
    let wrong: [Result<(), JitError>; 4] = [
        m.get::<unsafe extern "C" fn(*const u32, *mut u32, u64, u32, i32, usize, u64, u32, i32) -> i32>(WIDE).map(drop),
        m.get::<unsafe extern "C" fn(*const u32, *mut u8, u64, u32, i32, usize, u64, u32, i32, u64) -> i32>(WIDE)
            .map(drop),
        m.get::<unsafe extern "C" fn(*const u32, *mut u32, u64, u32, i32, usize, u64, u32, i32, u64) -> u32>(WIDE)
            .map(drop),
        m.get::<unsafe extern "C" fn(u64, u64)>(FRAMED).map(drop),
    ];
    for (i, r) in wrong.into_iter().enumerate() {
        match r.map_err(|e| named(e, if i < 3 { WIDE } else { FRAMED })) {
            Err(JitError::SignatureMismatch { function, signature, requested }) => {
                assert_ne!(signature, requested);
                if i < 3 {
                    assert_eq!((function.as_str(), signature.as_str()), (WIDE, expected));
                } else {
                    assert_eq!(signature, "unsafe extern \"C\" fn(u64, u64) -> u64");
                    assert_eq!(requested, "unsafe extern \"C\" fn(u64, u64)");
                }
            }
            other => panic!("mismatch {i}: {other:?}"),
        }
    }
    // `int32_t` and `int` are both `i32`.
    assert!(m
        .get::<unsafe extern "C" fn(*const u32, *mut u32, u64, u32, i32, usize, u64, u32, i32, u64) -> i32>(WIDE)
        .is_ok());
}

#[test]
fn a_name_not_in_the_module_is_refused() {
    let m = module();
    match m.get::<Framed>("asmgen_test_absent").map_err(|e| named(e, "asmgen_test_absent")) {
        Err(JitError::NoSuchFunction(name)) => assert_eq!(name, "asmgen_test_absent"),
        other => panic!("{other:?}"),
    }
    assert!(m.entry("asmgen_test_absent").is_none() && m.bytes("asmgen_test_absent").is_none());
}

/// A function whose description requires `feature` (the record the builder keeps of its instructions'
/// features, fabricated here: its instructions are baseline ones).
fn requiring(feature: <I as InstructionSet>::Feature) -> Function<I> {
    let mut f = framed(abi());
    f.name = format!("asmgen_test_needs_{}", feature.name());
    f.required = FeatureSet::of(&[feature]);
    f
}

/// Every feature this CPU lacks (chosen at run time: the machines vary) makes a function requiring it an
/// error naming both; every feature it has maps.
#[test]
fn a_feature_the_cpu_lacks_is_refused() {
    let has = host_features::<I>();
    let all = <I as InstructionSet>::Feature::ALL;
    for &feature in all {
        let f = requiring(feature);
        let r = JitModule::new([&f]);
        if has.contains(&feature) {
            let m = r.unwrap_or_else(|e| panic!("{} is there: {e}", feature.name()));
            call_framed(*m.get::<Framed>(&f.name).unwrap());
        } else {
            match r.map_err(|e| named(e, &f.name)) {
                Err(JitError::MissingFeature { function, feature: missing }) => {
                    assert_eq!((function, missing), (f.name.clone(), feature.name()))
                }
                other => panic!("{}: {other:?}", feature.name()),
            }
        }
    }
    let missing: Vec<_> = all.iter().filter(|f| !has.contains(f)).map(|f| f.name()).collect();
    let present: Vec<_> = has.iter().map(|f| f.name()).collect();
    eprintln!("jit_module: this CPU lacks {missing:?} (each refused) and has {present:?}");
    // A CPU with every feature of the table: run this test again with `ASMGEN_ISA=avx`, which hides those
    // above AVX (natively only: a child of an emulated process would need the emulator named).
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    if missing.is_empty() && std::env::var_os("ASMGEN_ISA").is_none() {
        let exe = std::env::current_exe().unwrap();
        let out = std::process::Command::new(exe)
            .args(["--exact", "a_feature_the_cpu_lacks_is_refused", "--nocapture", "--test-threads=1"])
            .env("ASMGEN_ISA", "avx")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "with ASMGEN_ISA=avx: {stderr}");
        assert!(stderr.contains("lacks [\"AVX2\""), "with ASMGEN_ISA=avx AVX2 is missing: {stderr}");
    }
    // What the tables of other ISAs name is not this CPU's.
    #[cfg(target_arch = "x86_64")]
    assert!(host_features::<asmgen::isa::aarch64::Aarch64>().is_empty());
    #[cfg(not(target_arch = "x86_64"))]
    assert!(host_features::<asmgen::isa::x86_64::X86_64>().is_empty());
}

/// A function built for another calling convention of this ISA than the platform's, or for another ISA, is
/// refused, as are two functions of one name.
#[test]
fn another_abi_or_isa_or_a_repeated_name_is_refused() {
    let host = abi();
    let others: Vec<Abi> = match host_target().unwrap().arch {
        asmgen::Arch::X86_64 => vec![Abi::SysV, Abi::Win64],
        asmgen::Arch::Aarch64 => vec![Abi::Aapcs64, Abi::AppleAapcs64, Abi::WinArm64],
        asmgen::Arch::Riscv64 => vec![Abi::Lp64d],
    };
    for other in others.into_iter().filter(|&a| a != host) {
        match JitModule::new([&framed(host), &wide(other)]).map_err(|e| named(e, WIDE)) {
            Err(JitError::WrongAbi { function, abi, host: h }) => {
                assert_eq!((function.as_str(), abi, h), (WIDE, other, host))
            }
            other => panic!("{other:?}"),
        }
    }
    // Functions of another ISA (the test-only frame kernels).
    let shape = &asmgen_tests::frames::SHAPES[0];
    #[cfg(target_arch = "x86_64")]
    let (err, arch) = (JitModule::new([&asmgen_tests::frames::aarch64(shape, Abi::Aapcs64)]), asmgen::Arch::Aarch64);
    #[cfg(not(target_arch = "x86_64"))]
    let (err, arch) = (JitModule::new([&asmgen_tests::frames::x86_64(shape, Abi::SysV)]), asmgen::Arch::X86_64);
    let err = err.unwrap_err();
    assert!(matches!(err, JitError::WrongArch { arch: a } if a == arch), "{err}");
    let (a, b) = (framed(host), framed(host));
    match JitModule::new([&a, &b]).map_err(|e| named(e, FRAMED)) {
        Err(JitError::DuplicateFunction(name)) => assert_eq!(name, FRAMED),
        other => panic!("{other:?}"),
    }
}

/// The module's pages are read-execute, never writable and executable at once.
#[test]
fn the_module_is_mapped_w_xor_x() {
    let m = module();
    let at = m.entry(FRAMED).unwrap() as usize;
    #[cfg(target_os = "linux")]
    {
        let maps = std::fs::read_to_string("/proc/self/maps").expect("/proc/self/maps");
        let mut found = false;
        for line in maps.lines() {
            let mut fields = line.split_whitespace();
            let (range, perms) = (fields.next().unwrap(), fields.next().unwrap());
            assert!(!(perms.contains('w') && perms.contains('x')), "writable and executable: {line}");
            let (lo, hi) = range.split_once('-').unwrap();
            let (lo, hi) = (usize::from_str_radix(lo, 16).unwrap(), usize::from_str_radix(hi, 16).unwrap());
            if (lo..hi).contains(&at) {
                assert_eq!(perms, "r-xp", "the module's mapping: {line}");
                found = true;
            }
        }
        assert!(found, "the module's mapping at {at:#x} is in /proc/self/maps");
    }
    #[cfg(windows)]
    {
        assert_eq!(asmgen_tests::win_memory::protection(at), asmgen_tests::win_memory::PAGE_EXECUTE_READ);
        for name in [WIDE, FRAMED] {
            let entry = m.entry(name).unwrap() as u64;
            let len = m.bytes(name).unwrap().len() as u64;
            for pc in [entry, entry + len / 2, entry + len - 1] {
                assert_eq!(win::function_range(pc), Some((entry, entry + len)), "{name}: the unwind entry at {pc:#x}");
            }
        }
    }
    let _ = at;
}

#[cfg(windows)]
mod win {
    #[repr(C)]
    struct RuntimeFunction {
        begin: u32,
        end: u32,
        unwind_info: u32,
    }

    #[link(name = "kernel32")]
    extern "system" {
        fn RtlLookupFunctionEntry(pc: u64, image_base: *mut u64, history: *mut u8) -> *const RuntimeFunction;
    }

    /// The code range of the unwind entry the OS finds for `pc`.
    pub(super) fn function_range(pc: u64) -> Option<(u64, u64)> {
        let mut base = 0u64;
        // SAFETY: a lookup in the registered function tables.
        let rf = unsafe { RtlLookupFunctionEntry(pc, &mut base, std::ptr::null_mut()) };
        // SAFETY: a non-null entry is valid while its table is registered.
        (!rf.is_null()).then(|| unsafe { (base + (*rf).begin as u64, base + (*rf).end as u64) })
    }
}
