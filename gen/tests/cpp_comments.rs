//! The GNU as listings pass through the C preprocessor (`.S` files, as C libraries build them): their comments
//! must not read as directives to it. A doc line `# if ...`, `#define ...`, `# include ...` or `# 1 "x"` would
//! be acted on (or fail) were it a `#` line comment; as C comments, cpp removes them whole. Checked by running
//! gcc's preprocessor and assembler over a listing with such lines.

use asmgen::emit;
use asmgen::isa::x86_64::{mem, regs::*, X86Feature, X86_64};
use asmgen::{Abi, Builder, CType, Listing, Target};
use std::process::Command;
use support::{runs, tool_missing};

mod support;

/// Doc and body comment lines that cpp would take for directives, were they `#` comments.
const DIRECTIVE_LIKE: [&str; 5] = [
    "# if the count is zero, nothing is written",
    "#define NOTHING",
    "# include <stdio.h>",
    "# 1 \"x.c\"",
    "# error */ ends",
];

fn listing() -> String {
    let mut b = Builder::<X86_64>::new("asmgen_test_cpp", Abi::SysV, &[X86Feature::Avx]);
    for d in DIRECTIVE_LIKE {
        b.doc(d);
    }
    let p = b.param("p", CType::BytePtr);
    b.comment("# ifdef BODY: a body comment that looks like a directive");
    b.mov(RAX, mem(p, 0));
    let f = b.finish().unwrap();
    let l = Listing { name: "t".into(), title: "# undef title".into(), functions: vec![f] };
    emit::listing(Target::X86_64_LINUX, &l, "gen/tests/cpp_comments.rs").unwrap()
}

#[test]
fn no_comment_line_starts_with_a_hash() {
    let text = listing();
    let hashed: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with('#')).collect();
    assert!(hashed.is_empty(), "lines cpp could read as directives: {hashed:?}");
    assert!(text.contains(" * # error * / ends"), "a */ inside a comment is broken up:\n{text}");
}

#[test]
fn the_preprocessor_leaves_the_listing_whole() {
    if !runs("gcc") {
        return tool_missing("gcc not installed: cpp_comments skipped");
    }
    let dir = std::env::temp_dir().join(format!("asmgen-cpp-comments-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("t.S");
    std::fs::write(&src, listing()).unwrap();
    let pre = Command::new("gcc").args(["-E", "-P"]).arg(&src).output().unwrap();
    assert!(pre.status.success(), "cpp failed: {}", String::from_utf8_lossy(&pre.stderr));
    let out = String::from_utf8_lossy(&pre.stdout);
    assert!(out.contains("asmgen_test_cpp:") && out.contains("mov "), "cpp dropped code:\n{out}");
    assert!(!out.contains("NOTHING") && !out.contains("include"), "a comment survived cpp:\n{out}");
    let obj = dir.join("t.o");
    let asm = Command::new("gcc").arg("-c").arg(&src).arg("-o").arg(&obj).output().unwrap();
    assert!(asm.status.success(), "gcc -c failed: {}", String::from_utf8_lossy(&asm.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
