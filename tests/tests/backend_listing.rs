//! Listing the backends (`sm4_backend_table`, `sm4_backends`, `hash_backends`, `backends`) maps no memory:
//! the JIT's sets are named without being assembled (counted in /proc/self/maps), and the names are those the
//! JIT then makes, in the same order. A process of its own, since any `jit/` backend made by another test
//! would map the JIT first (the other test here makes none). And a misspelt `ASMGEN_BACKEND` or `ASMGEN_ISA` is
//! an error that `backend_override` reports, while the dispatchers choose as if it were unset.

use asmgen_runtime::{backends, hash_backends, sm4_backend_table, sm4_backends, Polyval, Sm4};

/// Executable mappings of this process (Linux, qemu-user's view included): the count is what matters. `None`
/// elsewhere, where only the tables are compared (under wine a Windows program reads the host's /proc through
/// drive Z:, whose count its own mappings need not change).
fn executable_mappings() -> Option<usize> {
    if !cfg!(target_os = "linux") {
        return None;
    }
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
    if !jit_requested && after.is_some() && sm4.iter().any(|(n, _)| n.starts_with("jit/")) {
        assert_ne!(after, executable_mappings(), "making a jit/ backend mapped nothing (is the count right?)");
    }
    assert_eq!(sm4_backend_table(), sm4, "SM4 table after the JIT was assembled");
    assert_eq!(hash_backends(), hash, "hash table after the JIT was assembled");
}

/// Runs this binary's test `name` again with `ASMGEN_BACKEND=value` (under emulation through the runner that
/// `cargo xtask cross` names in `ASMGEN_TEST_RUNNER`, as tests/tests/zeroize.rs does).
fn rerun_with_backend(name: &str, value: &str) -> std::process::Output {
    let mut cmd = asmgen_tests::rerun_this_binary();
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("ASMGEN_BACKEND", value)
        .env("ASMGEN_EXPECT_OVERRIDE", value)
        .output()
        .unwrap()
}

#[test]
fn a_misspelt_backend_is_an_error_the_application_sees() {
    const NAME: &str = "a_misspelt_backend_is_an_error_the_application_sees";
    let Ok(value) = std::env::var("ASMGEN_EXPECT_OVERRIDE") else {
        for value in ["protable", "AOT", "jit", "portable"] {
            let out = rerun_with_backend(NAME, value);
            assert!(out.status.success(), "ASMGEN_BACKEND={value}: {}", String::from_utf8_lossy(&out.stdout));
        }
        return;
    };
    match value.as_str() {
        "portable" | "jit" => assert_eq!(asmgen_runtime::backend_override(), Ok(Some(value.as_str()))),
        _ => {
            let e = asmgen_runtime::backend_override().unwrap_err();
            assert!(matches!(&e, asmgen_runtime::Error::InvalidEnvironment { var: "ASMGEN_BACKEND", .. }), "{e:?}");
            assert!(e.to_string().contains(&format!("{value:?}")), "{e}");
            // The dispatchers choose as if it were unset: the best listings' set, as without the variable.
            let best = sm4_backends().into_iter().last().unwrap();
            assert_eq!(Sm4::new(&[1; 16]).backend(), best.replace("jit/", "aot/"));
        }
    }
}

#[test]
fn a_misspelt_isa_cap_is_an_error_the_application_sees() {
    const NAME: &str = "a_misspelt_isa_cap_is_an_error_the_application_sees";
    let Ok(value) = std::env::var("ASMGEN_EXPECT_ISA") else {
        for value in ["avx3", "AVX2", "", "gfni"] {
            let mut cmd = asmgen_tests::rerun_this_binary();
            cmd.args([NAME, "--exact", "--nocapture", "--test-threads=1"])
                .env("ASMGEN_ISA", value)
                .env("ASMGEN_EXPECT_ISA", value)
                .env_remove("ASMGEN_BACKEND");
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "ASMGEN_ISA={value}: {}", String::from_utf8_lossy(&out.stdout));
        }
        return;
    };
    if value == "avx3" {
        let e = asmgen_runtime::backend_override().unwrap_err();
        assert!(matches!(&e, asmgen_runtime::Error::InvalidEnvironment { var: "ASMGEN_ISA", .. }), "{e:?}");
        assert!(e.to_string().contains("\"avx3\""), "{e}");
        // The dispatchers choose as if it were unset: the best listings' set.
        let best = sm4_backends().into_iter().last().unwrap();
        assert_eq!(Sm4::new(&[1; 16]).backend(), best.replace("jit/", "aot/"));
    } else {
        assert_eq!(asmgen_runtime::backend_override(), Ok(None), "ASMGEN_ISA={value}");
    }
}
