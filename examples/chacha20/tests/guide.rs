//! `docs/GUIDE.md` stays true: every Rust block it marks as taken from the example (a first line
//! `// examples/chacha20/<file>`) is still in that file, verbatim (`// ...` lines mark cuts), and the builder
//! errors it quotes are the builder's.

use asmgen::isa::aarch64::{regs::*, Aarch64, V};
use asmgen::isa::x86_64::{regs::*, X86Feature, Ymm, X86_64};
use asmgen::{Abi, Builder, Function, GenError, Isa};

const GUIDE: &str = include_str!("../../../docs/GUIDE.md");

/// The example's files the guide quotes.
const SOURCES: &[(&str, &str)] = &[
    ("build.rs", include_str!("../build.rs")),
    ("src/kernels.rs", include_str!("../src/kernels.rs")),
    ("src/lib.rs", include_str!("../src/lib.rs")),
    ("tests/jit.rs", include_str!("jit.rs")),
    ("tests/constant_time.rs", include_str!("constant_time.rs")),
];

#[test]
fn the_guides_snippets_are_the_examples_code() {
    let mut blocks = 0;
    let mut lines = GUIDE.lines();
    while let Some(line) = lines.next() {
        if line != "```rust" {
            continue;
        }
        let block: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        let Some(path) = block.first().and_then(|l| l.strip_prefix("// examples/chacha20/")) else { continue };
        let (_, source) = SOURCES.iter().find(|(p, _)| *p == path).unwrap_or_else(|| panic!("no source {path}"));
        let source = source.replace("\r\n", "\n");
        for chunk in block[1..].split(|l| l.trim() == "// ...") {
            let text = chunk.join("\n");
            assert!(source.contains(&text), "docs/GUIDE.md quotes {path}, which no longer has:\n{text}");
        }
        blocks += 1;
    }
    assert!(blocks >= 10, "only {blocks} quoted blocks found");
}

fn error<I: Isa>(abi: Abi, allowed: &[I::Feature], body: impl FnOnce(&mut Builder<I>)) -> String {
    let mut b = Builder::<I>::new("kernel", abi, allowed);
    body(&mut b);
    let e: GenError = b.finish().map(|_: Function<I>| ()).expect_err("the builder accepts it");
    e.to_string()
}

/// Each quoted message, from the mistake the guide names.
#[test]
fn the_guides_error_messages_are_the_builders() {
    let cases = [
        (
            error::<X86_64>(Abi::SysV, &[X86Feature::Avx], |b| {
                b.vpaddd(Ymm(0), Ymm(0), Ymm(1));
            }),
            "needs AVX2 which the function's feature set",
        ),
        (
            error::<Aarch64>(Abi::Aapcs64, &[], |b| {
                b.shl_4s(V(0), V(1), 32);
            }),
            "shift 32 out of range 0..=31 for 32-bit elements",
        ),
        (
            error::<X86_64>(Abi::SysV, &[], |b| {
                b.sub(RSP, 64);
            }),
            "writes the stack pointer, which the prologue and epilogue own",
        ),
        (
            error::<Aarch64>(Abi::AppleAapcs64, &[], |b| {
                b.add(X18, X18, X19);
            }),
            "uses x18, which the AppleAapcs64 ABI reserves",
        ),
        (
            error::<X86_64>(Abi::SysV, &[], |b| {
                let l = b.label("loop");
                b.jnz(&l);
            }),
            "is used but never bound",
        ),
    ];
    for (message, quoted) in cases {
        assert!(message.contains(quoted), "the builder says {message:?}, the guide quotes {quoted:?}");
        assert!(GUIDE.contains(quoted), "the guide no longer quotes {quoted:?}");
    }
}
