//! The aarch64 interpreter (`asmgen::sem::interp_aarch64`, AAPCS64) runs every aarch64 kernel on an x86_64
//! host: for each aarch64 set and each x86_64 set of the same listing that this CPU runs natively, both get the
//! same key, hash key, source and states; each runs its own setup kernels (its own round-key and key-table
//! layouts), then every bulk role both sets have is called over a few block counts on copies of the buffers,
//! and the outputs (destination, chaining state, MAC) must be equal. So every aarch64 kernel gets a second check
//! beside qemu, against a different ISA's kernel that the x86_64 tests check against the CPU and RustCrypto.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use asmgen::isa::aarch64::Aarch64;
use asmgen::{Abi, Function};
use asmgen_kernels::catalog::AARCH64_SETS;
use asmgen_tests::Rng;

/// Interprets `f` on `args` (AAPCS64).
fn interpret(f: &Function<Aarch64>, args: &[u64]) {
    // SAFETY: a `Side`'s buffers, as large as the role needs (the x86_64 kernels of the same roles run natively
    // on the same-sized buffers).
    unsafe { asmgen_tests::interp::interpret(f, args, ()) }
}

fn call_native(entry: *const (), args: &[u64]) {
    // SAFETY: a linked x86_64 kernel of the role, on a `Side`'s buffers, as large as the role needs.
    unsafe { asmgen_tests::interp::call_native(entry, args) }
}

/// The buffers of one side: the same inputs for both, each side's own round keys and tables.
#[derive(Clone)]
struct Side {
    rk: [[u8; 128]; 2],
    tables: [[u8; 256]; 2],
    key: [u8; 16],
    h: [u8; 16],
    src: Vec<u8>,
    dst: Vec<u8>,
    state: [[u8; 64]; 2],
}

impl Side {
    fn new(rng: &mut Rng) -> Side {
        let mut s = Side {
            rk: [[0; 128]; 2],
            tables: [[0; 256]; 2],
            key: rng.block(),
            h: rng.block(),
            src: vec![0; 18 * 16],
            dst: vec![0; 18 * 16],
            state: [[0; 64]; 2],
        };
        rng.fill(&mut s.src);
        rng.fill(&mut s.state[0]);
        rng.fill(&mut s.state[1]);
        s
    }

    /// The arguments of `role` over `n` blocks (the contract of tests/src/kernel_calls.rs).
    fn args(&mut self, role: &str, n: usize) -> Vec<u64> {
        let [rk_enc, rk_dec] = [self.rk[0].as_mut_ptr() as u64, self.rk[1].as_mut_ptr() as u64];
        let [ghash, polyval] = [self.tables[0].as_mut_ptr() as u64, self.tables[1].as_mut_ptr() as u64];
        let [s0, s1] = [self.state[0].as_mut_ptr() as u64, self.state[1].as_mut_ptr() as u64];
        let (dst, src, n) = (self.dst.as_mut_ptr() as u64, self.src.as_ptr() as u64, n as u64);
        let (key, h) = (self.key.as_ptr() as u64, self.h.as_ptr() as u64);
        match role {
            "ghash_init" => vec![ghash, h],
            "polyval_init" => vec![polyval, h],
            "ghash_update" => vec![s0, ghash, src, n],
            "polyval_update" => vec![s0, polyval, src, n],
            "expand_key" => vec![rk_enc, rk_dec, key],
            "ecb" => vec![rk_enc, dst, src, n],
            "ctr" | "cbc_enc" | "cfb_enc" | "cfb_dec" | "xts_enc_ieee" | "xts_enc_gb" => vec![rk_enc, dst, src, n, s0],
            "cbc_dec" | "xts_dec_ieee" | "xts_dec_gb" => vec![rk_dec, dst, src, n, s0],
            "cbc_mac" => vec![rk_enc, s0, src, n],
            "xts_unit_enc_ieee" | "xts_unit_enc_gb" => vec![rk_enc, rk_dec, dst, src, 16 * n + n % 11, s0],
            "xts_unit_dec_ieee" | "xts_unit_dec_gb" => vec![rk_dec, rk_enc, dst, src, 16 * n + n % 11, s0],
            "gcm_enc" | "gcm_dec" => vec![rk_enc, ghash, dst, src, n, s0],
            "ccm_enc" | "ccm_dec" => vec![rk_enc, dst, src, n, s0, s1],
            other => panic!("no arguments known for role {other}"),
        }
    }

    /// What a bulk kernel outputs.
    fn outputs(&self) -> (Vec<u8>, [[u8; 64]; 2]) {
        (self.dst.clone(), self.state)
    }
}

fn is_setup(role: &str) -> bool {
    matches!(role, "ghash_init" | "polyval_init" | "expand_key")
}

#[test]
fn interpreted_aarch64_kernels_equal_native_x86_64_ones() {
    let native = asmgen_runtime::abi_test::kernels();
    let (mut compared, mut roles) = (0, 0);
    for set in AARCH64_SETS {
        let kernels = (set.build)(Abi::Aapcs64).unwrap();
        let listing = |s: &str| asmgen_kernels::catalog::X86_64_SETS.iter().find(|x| x.name == s).map(|x| x.listing);
        let x86 = native.iter().filter(|k| k.available && listing(k.set) == Some(set.listing));
        let Some(x86_set) = x86.map(|k| k.set).next() else { continue };
        let reference = |role: &str| native.iter().find(|k| k.set == x86_set && k.role == role).map(|k| k.entry);
        let mut rng = Rng::new(11);
        let (mut a, mut b) = (Side::new(&mut rng), Side::new(&mut Rng::new(11)));
        for k in kernels.iter().filter(|k| is_setup(k.role.name())) {
            interpret(&k.function, &a.args(k.role.name(), 0));
            call_native(reference(k.role.name()).expect("every set has the setup roles"), &b.args(k.role.name(), 0));
        }
        for k in kernels.iter().filter(|k| !is_setup(k.role.name())) {
            let Some(entry) = reference(k.role.name()) else {
                eprintln!("{} ({}): no {x86_set} kernel of this role to compare with", k.function.name, set.name);
                continue;
            };
            roles += 1;
            for n in [1, 3, 8, 17] {
                let (mut a, mut b) = (a.clone(), b.clone());
                interpret(&k.function, &a.args(k.role.name(), n));
                call_native(entry, &b.args(k.role.name(), n));
                assert!(
                    a.outputs() == b.outputs(),
                    "{} ({}) vs {x86_set}, {n} blocks: outputs differ",
                    k.function.name,
                    set.name
                );
                compared += 1;
            }
        }
    }
    assert!(roles > 0, "no x86_64 set runs here to compare with");
    eprintln!("{roles} roles, {compared} calls compared");
}
