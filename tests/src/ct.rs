//! The constant-time harness of tests/tests/constant_time*.rs: every kernel of every set of one ISA, general and
//! fixed-size, run through the checker (`asmgen::sem::ct::check_function`) with its secret buffers tainted, on
//! each machine model asked for (riscv64: VLENs), and the findings as lines; and [`run`], [`LEAKY`] for the
//! hand-built negative tests.
//!
//! An ISA's test file names its sets, ABIs and models in a [`Plan`] and calls [`Plan::every_kernel_is_clean`] and
//! [`Plan::with_a_secret_counter_only_its_branch_is_flagged`]; its own tests are the hand-built leaks ([`leaky`]).
//!
//! The general kernels run at each of [`counts`] blocks (once, at 0, where the role takes no size); the fixed-size
//! variants (`KernelSet::fixed`, the JIT's `<kernel>_n<count>`) of each kind (`Fixed::Xts`, `Ctr`, `Hash`) are
//! built for each count and run at that count (the `nblocks` they ignore, and the buffer sizes).

use asmgen::sem::ct::{check_function, Finding, Tainting};
use asmgen::{Abi, Builder, CType, Function, Isa};
use asmgen_kernels::catalog::KernelSet;
use asmgen_kernels::{Fixed, Kernel};

/// The parameters of the hand-built negative tests' functions `leaky(table, key)`: a public table and a secret
/// key.
pub const LEAKY: &[(&str, CType)] = &[("table", CType::ConstBytePtr), ("key", CType::ConstBytePtr)];

/// `leaky(table, key)` for `abi`: `body` gets the builder and the two parameters' registers and writes the leak.
pub fn leaky<I: Isa>(abi: Abi, body: impl Fn(&mut Builder<I>, I::Gpr, I::Gpr)) -> Function<I> {
    let mut b = Builder::<I>::new("leaky", abi, &[]);
    let (table, key) = (b.param(LEAKY[0].0, LEAKY[0].1), b.param(LEAKY[1].0, LEAKY[1].1));
    body(&mut b, table, key);
    b.finish().unwrap()
}

/// What an ISA's kernel tests check: which sets, for which ABIs and machine models, at least how many runs, and
/// what a tainted counter may flag.
pub struct Plan<'a, I: Tainting> {
    /// The kernel sets.
    pub sets: &'a [KernelSet<I>],
    /// The ABIs each set is built for.
    pub abis: &'a [Abi],
    /// The machine models each kernel is checked on (riscv64: VLENs).
    pub models: &'a [I::Model],
    /// The fewest general and fixed-size runs (a smaller catalog means a kernel is missed).
    pub at_least: (usize, usize),
    /// With the counter tainted, every finding must be in a function whose line contains `.0` (the label of the
    /// carry or wrap branch) and be `.1`.
    pub counter_branch: (&'a str, &'a str),
}

impl<I: Tainting> Plan<'_, I> {
    /// Every kernel, general and fixed-size, is clean.
    pub fn every_kernel_is_clean(&self) {
        let c = check_all(self.sets, self.abis, self.models, false);
        assert!(c.general >= self.at_least.0 && c.fixed >= self.at_least.1, "only {} + {} runs", c.general, c.fixed);
        assert!(c.lines.is_empty(), "constant-time violations:\n{}", c.lines.join("\n"));
    }

    /// With the counter tainted, only its carry or wrap branch is flagged (and it is).
    pub fn with_a_secret_counter_only_its_branch_is_flagged(&self) {
        let lines = check_all(self.sets, self.abis, self.models, true).lines;
        assert!(!lines.is_empty(), "the counter's branch is not flagged");
        let (label, what) = self.counter_branch;
        for l in &lines {
            assert!(l.contains(label) && l.ends_with(what), "{l}");
        }
    }
}

/// Checks `f` (parameters `params`) over `n` blocks on a machine of `model`, the counter secret when `secret_ctr`.
pub fn run<I: Tainting>(
    f: &Function<I>,
    params: &[(&str, CType)],
    n: usize,
    secret_ctr: bool,
    model: I::Model,
) -> Vec<Finding> {
    let names: Vec<&str> = params.iter().map(|p| p.0).collect();
    check_function(f, &names, n, secret_ctr, model).unwrap_or_else(|e| panic!("{e}"))
}

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

/// The block counts the kernels are checked at (fewer under qemu, where the interpreter runs emulated): 81
/// reaches the zmm hash set's 32-block loop, its batch of 16 and its tail, and the zmm SM4 kernels' 48-block
/// loop and their partial batch (the zmm XTS kernels: one batch of 32 on two groups, then one block); 97 two
/// zmm SM4 batches back to back (the zmm XTS kernels' step between them).
pub fn counts() -> &'static [usize] {
    if crate::SLOW_TARGET {
        &[1, 9]
    } else {
        &[1, 3, 17, 81, 97]
    }
}

/// Whether a kernel takes a counter (`ctr`).
fn has_ctr(k: &Kernel<impl Isa>) -> bool {
    k.role.params().iter().any(|(n, _)| *n == "ctr")
}

/// Checks every kernel of `sets` built for each of `abis`, general and fixed-size (see the module documentation),
/// on a machine of each of `models`; with `secret_ctr` only the kernels that take a counter, with the counter
/// tainted too. Counts a run per kernel and block count (not per model).
pub fn check_all<I: Tainting>(sets: &[KernelSet<I>], abis: &[Abi], models: &[I::Model], secret_ctr: bool) -> Checked {
    let mut out = Checked::default();
    let mut check = |k: &Kernel<I>, n: usize| {
        for &model in models {
            let found = run(&k.function, k.role.params(), n, secret_ctr, model);
            out.lines.extend(found.iter().map(|f| format!("{} #{} {}: {}", f.function, f.index, f.inst, f.what)));
        }
    };
    let (mut general, mut fixed) = (0, 0);
    for (set, &abi) in sets.iter().flat_map(|s| abis.iter().map(move |a| (s, a))) {
        for k in set.build_all(abi).unwrap().iter().filter(|k| !secret_ctr || has_ctr(k)) {
            let sized = k.role.params().iter().any(|(_, t)| *t == CType::Size);
            for &n in if sized { counts() } else { &[0] } {
                check(k, n);
                general += 1;
            }
        }
        for &n in counts() {
            for kind in [Fixed::Xts(n), Fixed::Ctr(n), Fixed::Hash(n)] {
                let kernels = (set.fixed)(abi, kind).unwrap_or_else(|e| panic!("{} {kind:?}: {e}", set.name));
                for k in kernels.iter().filter(|k| !secret_ctr || has_ctr(k)) {
                    assert!(k.function.name.ends_with(&format!("_n{n}")), "{}: not a fixed-size name", k.function.name);
                    check(k, n);
                    fixed += 1;
                }
            }
        }
    }
    (out.general, out.fixed) = (general, fixed);
    out
}
