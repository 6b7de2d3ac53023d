//! The runtime's riscv64 interpreter backends (feature `interp`: `cargo test -p asmgen-tests --features interp
//! --test interp_backend_riscv64`): every riscv64 set is listed as `interp/<set>`, and each riscv64 SM4 set run
//! by the interpreter (VLEN 128, LP64D set up by the interpreter, not the host's ABI) through the safe API (ECB,
//! CTR across a carry, XTS with a partial block, GCM with the riscv64 GHASH sets beside) agrees with RustCrypto,
//! on any host. Sizes are small: the interpreter runs unoptimised in the test profile.
#![cfg(feature = "interp")]

use asmgen_runtime::sm4_backend_table;
use asmgen_tests::interp::sm4_backend_matches_rustcrypto;
use asmgen_tests::Rng;

const SETS: [&str; 2] = ["interp/riscv64-zvksed", "interp/riscv64-zksed"];

#[test]
fn every_riscv64_set_is_an_interpreter_backend() {
    let table = sm4_backend_table();
    for name in SETS {
        assert!(table.iter().any(|(n, ok)| *n == name && *ok), "{name} missing: {table:?}");
    }
    let hashes = asmgen_runtime::hash_backends();
    for name in ["interp/riscv64-zvkg", "interp/riscv64-zbb-zbc"] {
        assert!(hashes.iter().any(|(n, _)| *n == name), "{name} missing: {hashes:?}");
    }
}

#[test]
fn riscv64_sm4_through_the_interpreter_matches_rustcrypto() {
    let mut rng = Rng::new(11);
    for set in SETS {
        sm4_backend_matches_rustcrypto(set, &[32, 48, 272], &mut rng);
    }
}
