//! Listing the backends (`sm4_backend_table`, `sm4_backends`, `hash_backends`, `backends`) maps no memory:
//! the JIT's sets are named without being assembled (counted in /proc/self/maps), and the names are those the
//! JIT then makes, in the same order. A process of its own (this file's one test), since any `jit/` backend
//! made by another test would map the JIT first.

use asmgen_runtime::{backends, hash_backends, sm4_backend_table, sm4_backends, Polyval, Sm4};

/// Executable mappings of this process (Linux): the JIT's are anonymous; the count is what matters.
fn executable_mappings() -> Option<usize> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    Some(maps.lines().filter(|l| l.split_whitespace().nth(1).is_some_and(|p| p.contains('x'))).count())
}

#[test]
fn listing_backends_maps_nothing_and_names_what_the_jit_makes() {
    // ASMGEN_BACKEND=jit (cargo xtask jit-tests) assembles the JIT to choose: nothing to check about mapping.
    let jit_requested = std::env::var("ASMGEN_BACKEND").as_deref() == Ok("jit");
    let before = executable_mappings();
    let (sm4, hash, names, usable) = (sm4_backend_table(), hash_backends(), backends(), sm4_backends());
    let after = executable_mappings();
    if !jit_requested {
        assert_eq!(before, after, "listing the backends mapped executable memory");
    }
    // Every listed backend can be made, the JIT's then assembled; the tables stay the same.
    for b in &usable {
        assert_eq!(Sm4::with_backend(&[1; 16], b).unwrap().backend(), *b);
    }
    for b in &names {
        assert_eq!(Polyval::with_backend(&[1; 16], b).unwrap().backend(), *b);
    }
    if !jit_requested && sm4.iter().any(|(n, _)| n.starts_with("jit/")) {
        assert_ne!(after, executable_mappings(), "making a jit/ backend mapped nothing (is the count right?)");
    }
    assert_eq!(sm4_backend_table(), sm4, "SM4 table after the JIT was assembled");
    assert_eq!(hash_backends(), hash, "hash table after the JIT was assembled");
}
