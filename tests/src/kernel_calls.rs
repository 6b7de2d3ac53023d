//! Calling every kernel with valid arguments, for the tests that call kernels through their own harness (the
//! callee-saved canaries of tests/tests/abi.rs, the unwinding tests): the kernels to call (listing functions
//! the CPU runs, the process JIT's, the fixed-size JIT's), valid buffers for every role, and a sweep that calls
//! each kernel of each set (setup roles first) with every block count.

use crate::Rng;
use asmgen_kernels::ghash::KEY_TABLE_BYTES;

/// The block counts every bulk kernel is called with: none, one, and enough for the wide loops and a tail.
pub const COUNTS: [usize; 5] = [0, 1, 3, 8, 17];
/// The largest of [`COUNTS`].
pub const MAX_BLOCKS: usize = 17;
/// The blocks the buffers hold: [`COUNTS`], and the longer runs that reach the wide kernels' repeated loops
/// and the zmm kernels' 48-block loop, two zmm XTS batches back to back and one block (97), and the ymm hash
/// set's 64-block loop with each batch after it (113), and the zmm hash set's loop twice round (241: the
/// unwinding tests).
pub const BUFFER_BLOCKS: usize = 241;

/// A kernel to call.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The kernel set (`x86_64-gfni-avx2`).
    pub set: String,
    /// Its role, which fixes its C signature (`ecb`, `ghash_update`).
    pub role: String,
    /// The symbol or JIT kernel name.
    pub name: String,
    /// The entry point.
    pub entry: *const (),
}

/// Every linked listing function of a set this CPU runs, and the number of listing functions in all (0
/// without listings).
pub fn listing_kernels() -> (Vec<Kernel>, usize) {
    let all = asmgen_runtime::abi_test::kernels();
    let runnable = all
        .iter()
        .filter(|k| k.available)
        .map(|k| Kernel { set: k.set.into(), role: k.role.into(), name: k.symbol.into(), entry: k.entry })
        .collect();
    (runnable, all.len())
}

/// A JIT's kernels.
pub fn jit_kernels(jit: &asmgen_runtime::jit::Jit) -> Vec<Kernel> {
    jit.kernels()
        .iter()
        .map(|k| {
            let entry = jit.entry(&k.name).expect("every listed JIT kernel has an entry").cast::<()>();
            Kernel { set: k.set.clone(), role: k.role.clone(), name: k.name.clone(), entry }
        })
        .collect()
}

/// The process JIT's kernels, then those it left to their first use ([`Jit::deferred`](asmgen_runtime::jit::Jit::deferred):
/// on x86_64 the XTS unit kernels), assembled now.
pub fn process_jit_kernels(process: &asmgen_runtime::jit::Jit) -> Vec<Kernel> {
    let mut kernels = jit_kernels(process);
    let deferred =
        asmgen_runtime::jit::Jit::deferred().expect("the deferred kernels assemble where the process JIT did");
    kernels.extend(jit_kernels(deferred));
    kernels
}

/// The JIT's fixed-size kernels (not in any listing) for sizes of 1, 3 and [`MAX_BLOCKS`] blocks: within the
/// sweep's buffers whatever count they are passed (they ignore it).
pub fn fixed_size_jit_kernels() -> Vec<Kernel> {
    use asmgen_runtime::jit::{Jit, Specialisation};
    let mut kernels = Vec::new();
    for blocks in [1, 3, MAX_BLOCKS] {
        let specs = [
            Specialisation::XtsSector(16 * blocks),
            Specialisation::CtrMessage(16 * blocks),
            Specialisation::HashBlocks(blocks),
        ];
        for spec in specs {
            match Jit::specialised(spec) {
                Ok(jit) => kernels.extend(jit_kernels(jit)),
                Err(e) => eprintln!("no {} kernels here ({e})", spec.label()),
            }
        }
    }
    kernels
}

/// Valid buffers for every role, kept across the sets of one sweep: round keys from the latest key schedule,
/// key tables from the latest init kernel of each flavour (zeroed until one runs).
pub struct Buffers {
    rk: Box<[[u8; 128]; 2]>,
    key: [u8; 16],
    h: [u8; 16],
    tables: Box<[[u8; KEY_TABLE_BYTES]; 2]>,
    src: Vec<u8>,
    dst: Vec<u8>,
    state: Box<[[u8; 64]; 2]>,
}

impl Buffers {
    /// Random key, hash key, source and states; zeroed round keys and key tables.
    pub fn new(rng: &mut Rng) -> Buffers {
        let mut b = Buffers {
            rk: Box::new([[0; 128]; 2]),
            key: rng.block(),
            h: rng.block(),
            tables: Box::new([[0; KEY_TABLE_BYTES]; 2]),
            // One block more, for the XTS unit kernels' tails.
            src: vec![0; (BUFFER_BLOCKS + 1) * 16],
            dst: vec![0; (BUFFER_BLOCKS + 1) * 16],
            state: Box::new([[0; 64]; 2]),
        };
        rng.fill(&mut b.src);
        rng.fill(&mut b.state[0]);
        rng.fill(&mut b.state[1]);
        b
    }

    /// The arguments of a kernel of `role` over `n` blocks (init and key-schedule roles ignore `n`).
    pub fn args(&mut self, role: &str, n: usize) -> Vec<u64> {
        assert!(n <= BUFFER_BLOCKS);
        let [rk_enc, rk_dec] = [self.rk[0].as_mut_ptr() as u64, self.rk[1].as_mut_ptr() as u64];
        let [ghash, polyval] = [self.tables[0].as_mut_ptr() as u64, self.tables[1].as_mut_ptr() as u64];
        let [s0, s1] = [self.state[0].as_mut_ptr() as u64, self.state[1].as_mut_ptr() as u64];
        let (dst, src, n) = (self.dst.as_mut_ptr() as u64, self.src.as_ptr() as u64, n as u64);
        let (key, h) = (self.key.as_ptr() as u64, self.h.as_ptr() as u64);
        match role {
            // The base-only and small setups rewrite part of the common part with the same values.
            "ghash_init" | "ghash_init_base" | "ghash_init_small" => vec![ghash, h],
            "polyval_init" | "polyval_init_base" | "polyval_init_small" => vec![polyval, h],
            "ghash_update" => vec![s0, ghash, src, n],
            "polyval_update" => vec![s0, polyval, src, n],
            "expand_key" => vec![rk_enc, rk_dec, key],
            "ecb" => vec![rk_enc, dst, src, n],
            "ctr" | "cbc_enc" | "cfb_enc" | "cfb_dec" | "xts_enc_ieee" | "xts_enc_gb" => {
                vec![rk_enc, dst, src, n, s0]
            }
            "cbc_dec" | "xts_dec_ieee" | "xts_dec_gb" => vec![rk_dec, dst, src, n, s0],
            "cbc_mac" => vec![rk_enc, s0, src, n],
            // A data unit of n blocks and a tail of n % 11 bytes (0..=10; none below 16 bytes). With a tail the
            // whole-block loop runs n - 1 blocks, so 33 (the unwinding tests' long count) has none: the wide
            // kernels' loops then repeat as in the whole-block kernels.
            "xts_unit_enc_ieee" | "xts_unit_enc_gb" => vec![rk_enc, rk_dec, dst, src, 16 * n + n % 11, s0],
            "xts_unit_dec_ieee" | "xts_unit_dec_gb" => vec![rk_dec, rk_enc, dst, src, 16 * n + n % 11, s0],
            "gcm_enc" | "gcm_dec" => vec![rk_enc, ghash, dst, src, n, s0],
            "ccm_enc" | "ccm_dec" => vec![rk_enc, dst, src, n, s0, s1],
            other => panic!("kernel_calls does not know the arguments of role {other}: add them to Buffers::args"),
        }
    }
}

/// Whether a role is set up once (key schedule, key table) rather than run over blocks.
pub fn is_setup(role: &str) -> bool {
    matches!(
        role,
        "ghash_init"
            | "polyval_init"
            | "ghash_init_base"
            | "polyval_init_base"
            | "ghash_init_small"
            | "polyval_init_small"
            | "expand_key"
    )
}

/// Calls every kernel of `kernels` through `call` (setup roles of a set before its others) with every count
/// of [`COUNTS`]; `call` returns what the call broke, one entry per rule. Returns one line per failed call.
pub fn sweep(
    kernels: &[Kernel],
    rng: &mut Rng,
    call: impl FnMut(&Kernel, &[u64], &mut Rng) -> Vec<String>,
) -> Vec<String> {
    sweep_counts(kernels, &COUNTS, rng, call)
}

/// [`sweep`] with other block counts (each at most [`BUFFER_BLOCKS`]): the single-stepping tests choose theirs.
pub fn sweep_counts(
    kernels: &[Kernel],
    counts: &[usize],
    rng: &mut Rng,
    mut call: impl FnMut(&Kernel, &[u64], &mut Rng) -> Vec<String>,
) -> Vec<String> {
    let mut bufs = Buffers::new(rng);
    let mut sets: Vec<&str> = kernels.iter().map(|k| k.set.as_str()).collect();
    sets.dedup();
    let mut failures = Vec::new();
    for set in sets {
        let of_set: Vec<&Kernel> = kernels.iter().filter(|k| k.set == set).collect();
        let ordered = of_set.iter().filter(|k| is_setup(&k.role)).chain(of_set.iter().filter(|k| !is_setup(&k.role)));
        for k in ordered {
            let counts: &[usize] = if is_setup(&k.role) { &[0] } else { counts };
            for &n in counts {
                let args = bufs.args(&k.role, n);
                let broken = call(k, &args, rng);
                if !broken.is_empty() {
                    failures.push(format!("{set} {} {} (nblocks {n}): {}", k.role, k.name, broken.join(", ")));
                }
            }
        }
    }
    // The arguments reached the kernels: the key schedule and the init kernels wrote their outputs.
    let ran = |role: &str| kernels.iter().any(|k| k.role == role);
    assert!(!ran("expand_key") || bufs.rk[0] != [0; 128], "expand_key wrote no round keys");
    assert!(!ran("ghash_init") || bufs.tables[0] != [0; KEY_TABLE_BYTES], "ghash_init wrote no key table");
    assert!(!ran("polyval_init") || bufs.tables[1] != [0; KEY_TABLE_BYTES], "polyval_init wrote no key table");
    failures
}

/// A seed from the clock, printed by the tests that fail; `ASMGEN_SEED=<n>` replays a printed one.
pub fn seed() -> u64 {
    if let Some(n) = std::env::var("ASMGEN_SEED").ok().and_then(|v| v.trim().parse().ok()) {
        return n;
    }
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
}
