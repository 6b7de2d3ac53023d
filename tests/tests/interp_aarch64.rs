//! The aarch64 interpreter (`asmgen::sem::interp`, aarch64's side in `interp_aarch64`; AAPCS64) runs every aarch64
//! kernel on an x86_64 host beside the same role of a native x86_64 set of the same listing, by
//! `asmgen_tests::interp::compare_with_native`: both get the same key, hash key, source and states; each runs its
//! own setup kernels (its own round-key and key-table layouts), then every bulk role both sets have is called over
//! the block counts of `kernel_calls::COUNTS`, and the outputs (destination, chaining state, MAC) must be equal. So
//! every aarch64 kernel gets a second check beside qemu, against a different ISA's kernel that the x86_64 tests
//! check against the CPU and RustCrypto.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use asmgen::Abi;
use asmgen_kernels::catalog::AARCH64_SETS;
use asmgen_tests::interp::{compare_with_native, native_set};

#[test]
fn interpreted_aarch64_kernels_equal_native_x86_64_ones() {
    let (bad, compared) =
        compare_with_native(AARCH64_SETS, Abi::Aapcs64, (), |set| native_set(|_, listing| listing == set.listing));
    assert!(compared > 50, "only {compared} calls compared: no x86_64 set runs here to compare with?");
    assert!(bad.is_empty(), "the interpreted aarch64 kernels differ:\n{}", bad.join("\n"));
    eprintln!("{compared} calls compared");
}
