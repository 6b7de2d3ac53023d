//! The riscv64 interpreter (`asmgen::sem::interp`, riscv64's side in `interp_riscv64`) runs whole kernels on an
//! x86_64 host: every kernel of every riscv64 set is interpreted from its description (LP64D) at VLEN 128 and 256
//! beside the same role of a native x86_64 set of the same listing (checked against RustCrypto elsewhere), by
//! `asmgen_tests::interp::compare_with_native`: the block counts of `kernel_calls::COUNTS` on the buffers of
//! `kernel_calls::Buffers`, setup roles first, every output buffer equal. So the riscv64 kernels get a check
//! besides qemu, and one at two VLENs.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use asmgen::Abi;
use asmgen_kernels::catalog::RISCV64_SETS;
use asmgen_tests::interp::{compare_with_native, native_set};

#[test]
fn interpreted_riscv64_kernels_equal_the_x86_64_ones() {
    for vlen in [128, 256] {
        let (bad, compared) = compare_with_native(RISCV64_SETS, Abi::Lp64d, vlen, |set| {
            Some(native_set(|_, listing| listing == set.listing).expect("a native x86_64 set of the listing"))
        });
        assert!(compared > 100, "only {compared} calls at VLEN {vlen}");
        assert!(bad.is_empty(), "the interpreted riscv64 kernels differ at VLEN {vlen}:\n{}", bad.join("\n"));
        eprintln!("VLEN {vlen}: {compared} calls compared");
    }
}
