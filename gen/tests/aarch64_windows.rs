//! The aarch64-windows row's generation-time errors: a kernel the Windows ARM64 ABI cannot express fails to
//! generate, the error naming the function (so `cargo xtask gen` fails with that name): one that uses x18,
//! which Windows reserves, and one that aligns code inside itself beyond the function's own 32-byte alignment
//! (the listing spells alignment inside an ARM64 SEH function as NOPs, which needs the function's start).

use asmgen::isa::aarch64::{regs::*, Aarch64};
use asmgen::{Abi, Builder, CType, Listing, Target};

fn listing(f: asmgen::Function<Aarch64>) -> Listing<Aarch64> {
    Listing { name: "t".into(), title: "test".into(), functions: vec![f] }
}

#[test]
fn x18_is_an_error_under_windows_arm64() {
    let mut b = Builder::<Aarch64>::new("uses_x18", Abi::WinArm64, &[]);
    let p = b.param("p", CType::BytePtr);
    b.mov(X18, p);
    let Err(e) = b.finish() else { panic!("x18 is reserved on Windows") };
    assert_eq!(e.function, "uses_x18");
    assert!(e.to_string().starts_with("uses_x18: uses x18"), "{e}");
}

#[test]
fn alignment_inside_a_function_is_nops_up_to_the_function_alignment() {
    let build = |log2: u32| {
        let mut b = Builder::<Aarch64>::new("aligned", Abi::WinArm64, &[]);
        let p = b.param("p", CType::BytePtr);
        b.mov(X0, p).align(log2).mov(X1, p);
        listing(b.finish().unwrap())
    };
    // bti c and one mov: 8 bytes, so 2^4 needs two NOPs and 2^5 six.
    for (log2, nops) in [(4, 2), (5, 6)] {
        let text = asmgen::emit::listing(Target::AARCH64_WINDOWS, &build(log2), "test").unwrap();
        assert!(!text.contains("\t.p2align 4") && text.contains(".p2align 5\naligned:"), "{text}");
        let body = text.split_once(".seh_endprologue").unwrap().1;
        assert_eq!(body.matches("\tnop\n").count(), nops, "{text}");
    }
    let Err(e) = asmgen::emit::listing(Target::AARCH64_WINDOWS, &build(6), "test") else { panic!("2^6 > 32 bytes") };
    assert_eq!(e.function, "aligned");
    assert!(e.message.contains("2^6"), "{e}");
}
