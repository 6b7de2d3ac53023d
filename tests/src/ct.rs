//! The constant-time harness of tests/tests/constant_time*.rs: every kernel of every set of one ISA, general and
//! fixed-size, run through that ISA's checker (`asmgen::sem::ct`) with its secret buffers tainted, and the
//! findings as lines.
//!
//! The general kernels run at each of [`counts`] blocks (once, at 0, where the role takes no size); the fixed-size
//! variants (`KernelSet::fixed`, the JIT's `<kernel>_n<count>`) of each kind (`Fixed::Xts`, `Ctr`, `Hash`) are
//! built for each count and run at that count (the `nblocks` they ignore, and the buffer sizes).

use asmgen::sem::ct::Finding;
use asmgen::{Abi, CType, Function, Isa};
use asmgen_kernels::catalog::KernelSet;
use asmgen_kernels::{Fixed, Kernel};

/// A checker: `check(function, parameter names, blocks, secret counter)`, its findings.
pub type Check<'a, I> = &'a dyn Fn(&Function<I>, &[&str], usize, bool) -> Vec<Finding>;

/// What [`check_all`] found.
#[derive(Debug, Default)]
pub struct Checked {
    /// One line per finding: `function #index instruction: what`.
    pub lines: Vec<String>,
    /// Checker runs of general kernels.
    pub general: usize,
    /// Checker runs of fixed-size kernels.
    pub fixed: usize,
}

/// The block counts the kernels are checked at (fewer under qemu, where the interpreter runs emulated).
pub fn counts() -> &'static [usize] {
    if crate::SLOW_TARGET {
        &[1, 9]
    } else {
        &[1, 3, 17]
    }
}

/// Whether a kernel takes a counter (`ctr`).
fn has_ctr(k: &Kernel<impl Isa>) -> bool {
    k.role.params().iter().any(|(n, _)| *n == "ctr")
}

/// Runs `check` on every kernel of `sets` built for each of `abis`, general and fixed-size (see the module
/// documentation); with `secret_ctr` only the kernels that take a counter, with the counter tainted too.
pub fn check_all<I: Isa>(sets: &[KernelSet<I>], abis: &[Abi], secret_ctr: bool, check: Check<'_, I>) -> Checked {
    let mut out = Checked::default();
    let mut run = |k: &Kernel<I>, n: usize| {
        let names: Vec<&str> = k.role.params().iter().map(|p| p.0).collect();
        let found = check(&k.function, &names, n, secret_ctr);
        out.lines.extend(found.iter().map(|f| format!("{} #{} {}: {}", f.function, f.index, f.inst, f.what)));
    };
    let (mut general, mut fixed) = (0, 0);
    for (set, &abi) in sets.iter().flat_map(|s| abis.iter().map(move |a| (s, a))) {
        for k in (set.build)(abi).unwrap().iter().filter(|k| !secret_ctr || has_ctr(k)) {
            let sized = k.role.params().iter().any(|(_, t)| *t == CType::Size);
            for &n in if sized { counts() } else { &[0] } {
                run(k, n);
                general += 1;
            }
        }
        for &n in counts() {
            for kind in [Fixed::Xts(n), Fixed::Ctr(n), Fixed::Hash(n)] {
                let kernels = (set.fixed)(abi, kind).unwrap_or_else(|e| panic!("{} {kind:?}: {e}", set.name));
                for k in kernels.iter().filter(|k| !secret_ctr || has_ctr(k)) {
                    assert!(k.function.name.ends_with(&format!("_n{n}")), "{}: not a fixed-size name", k.function.name);
                    run(k, n);
                    fixed += 1;
                }
            }
        }
    }
    (out.general, out.fixed) = (general, fixed);
    out
}
