//! The riscv64 interpreter (`asmgen::sem::interp_riscv64`) runs whole kernels on an x86_64 host: every kernel of
//! every riscv64 set is interpreted from its description (LP64D) at VLEN 128 and 256 over the block counts of
//! `kernel_calls::COUNTS`, on the buffers of `kernel_calls::Buffers`, beside the same role of a native x86_64
//! set of the same listing (checked against RustCrypto elsewhere) on a copy of those buffers, setup roles
//! (key schedule, key tables, whose layouts differ) first; every output buffer must come out equal. So the
//! riscv64 kernels get a check besides qemu, and one at two VLENs.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use asmgen::isa::riscv64::Riscv64;
use asmgen::{Abi, CType, Function};
use asmgen_kernels::catalog::{RISCV64_SETS, X86_64_SETS};
use asmgen_tests::kernel_calls::{is_setup, Buffers, BUFFER_BLOCKS, COUNTS};
use asmgen_tests::Rng;
use std::collections::HashMap;

/// Interprets `f` on `args` at `vlen`.
fn interpret(f: &Function<Riscv64>, args: &[u64], vlen: usize) {
    // SAFETY: `Buffers`, as large as the role needs (the same role's native kernel on the same buffers, and
    // the qemu runs of these kernels, show the bounds).
    unsafe { asmgen_tests::interp::interpret(f, args, vlen) }
}

/// The bytes of the outputs of a call (the parameters that are neither keys, key tables, inputs nor sizes).
fn outputs(params: &[(&str, CType)], args: &[u64]) -> Vec<Vec<u8>> {
    let out = params.iter().zip(args).filter(|((name, ty), _)| {
        *ty != CType::Size
            && !matches!(*name, "rk" | "rk_enc" | "rk_dec" | "rk_tweak" | "key" | "h" | "src" | "data")
            && !name.contains("table")
    });
    out.map(|((name, _), &p)| {
        let len = if *name == "dst" { 16 * BUFFER_BLOCKS } else { 64 };
        // SAFETY: `Buffers` holds BUFFER_BLOCKS (+1) blocks of destination and 64 bytes of each state.
        unsafe { std::slice::from_raw_parts(p as *const u8, len) }.to_vec()
    })
    .collect()
}

/// The native x86_64 kernels of the first set of `listing` this CPU runs, by role.
fn reference(listing: &str) -> HashMap<&'static str, *const ()> {
    let linked = asmgen_runtime::abi_test::kernels();
    let set = X86_64_SETS.iter().filter(|s| s.listing == listing).find(|s| {
        let of_set: Vec<_> = linked.iter().filter(|k| k.set == s.name).collect();
        !of_set.is_empty() && of_set.iter().all(|k| k.available)
    });
    let set = set.unwrap_or_else(|| panic!("no native x86_64 {listing} set on this CPU"));
    linked.iter().filter(|k| k.set == set.name).map(|k| (k.role, k.entry)).collect()
}

fn call_native(entry: *const (), args: &[u64]) {
    // SAFETY: a linked x86_64 kernel of the role, on `Buffers`, as large as the role needs.
    unsafe { asmgen_tests::interp::call_native(entry, args) }
}

/// Runs every kernel of every riscv64 set at `vlen` beside the reference; returns the mismatches.
fn compare_at(vlen: usize) -> (Vec<String>, usize) {
    let (mut bad, mut compared) = (Vec::new(), 0);
    for set in RISCV64_SETS {
        let natives = reference(set.listing);
        let kernels = (set.build)(Abi::Lp64d).unwrap();
        let (mut ours, mut theirs) = (Buffers::new(&mut Rng::new(7)), Buffers::new(&mut Rng::new(7)));
        let setup = kernels.iter().filter(|k| is_setup(k.role.name()));
        for k in setup.chain(kernels.iter().filter(|k| !is_setup(k.role.name()))) {
            let role = k.role.name();
            let Some(&native) = natives.get(role) else { continue };
            for n in if is_setup(role) { &[0][..] } else { &COUNTS[..] } {
                let (a, b) = (ours.args(role, *n), theirs.args(role, *n));
                interpret(&k.function, &a, vlen);
                call_native(native, &b);
                if outputs(k.role.params(), &a) != outputs(k.role.params(), &b) {
                    bad.push(format!("{} {} ({}), {n} blocks, VLEN {vlen}", set.name, role, k.function.name));
                }
                compared += 1;
            }
        }
    }
    (bad, compared)
}

#[test]
fn interpreted_riscv64_kernels_equal_the_x86_64_ones() {
    for vlen in [128, 256] {
        let (bad, compared) = compare_at(vlen);
        assert!(compared > 100, "only {compared} calls at VLEN {vlen}");
        assert!(bad.is_empty(), "the interpreted riscv64 kernels differ:\n{}", bad.join("\n"));
        eprintln!("VLEN {vlen}: {compared} calls compared");
    }
}
