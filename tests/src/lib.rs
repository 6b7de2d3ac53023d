//! Helpers shared by the integration tests: a seeded generator (so failures reproduce), hex decoding, and the
//! rule for a missing external tool ([`tool_missing`]: a notice, or a failure when `CI` is set).

/// A small deterministic generator (xorshift64*), seeded per test so that failures reproduce.
pub struct Rng(u64);

impl Rng {
    /// A generator with the given seed (never zero internally).
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15 | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A value in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Fills `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            *b = self.next_u64() as u8;
        }
    }
    /// A random 16-byte array.
    pub fn block(&mut self) -> [u8; 16] {
        let mut b = [0; 16];
        self.fill(&mut b);
        b
    }
}

/// Decodes hex (whitespace ignored). Panics on bad input: test vectors are constants.
pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit")).collect()
}

/// IEEE 1619 SM4-XTS of one data unit by RustCrypto (`sm4` with `xts-mode`): the reference of the XTS
/// differential tests.
pub fn rc_xts_ieee(k1: &[u8; 16], k2: &[u8; 16], tweak: &[u8; 16], data: &[u8], decrypt: bool) -> Vec<u8> {
    use cipher::KeyInit;
    let x = xts_mode::Xts128::new(sm4::Sm4::new(&(*k1).into()), sm4::Sm4::new(&(*k2).into()));
    let mut out = data.to_vec();
    if decrypt {
        x.decrypt_sector(&mut out, (*tweak).into());
    } else {
        x.encrypt_sector(&mut out, (*tweak).into());
    }
    out
}

/// SM4's key schedule (GB/T 32907), written from the standard for the tests: the encryption round keys, then the decryption ones, as the
/// kernels store them (32 little-endian words each).
pub fn sm4_round_keys(key: &[u8; 16]) -> [[u8; 128]; 2] {
    use asmgen_kernels::sm4::{CK, FK, SBOX};
    let mut k = [0u32; 36];
    for i in 0..4 {
        k[i] = u32::from_be_bytes(key[4 * i..4 * i + 4].try_into().unwrap()) ^ FK[i];
    }
    for i in 0..32 {
        let x = k[i + 1] ^ k[i + 2] ^ k[i + 3] ^ CK[i];
        let s = u32::from_be_bytes(x.to_be_bytes().map(|b| SBOX[b as usize]));
        k[i + 4] = k[i] ^ s ^ s.rotate_left(13) ^ s.rotate_left(23);
    }
    let mut rk = [[0u8; 128]; 2];
    for i in 0..32 {
        rk[0][4 * i..4 * i + 4].copy_from_slice(&k[4 + i].to_le_bytes());
        rk[1][4 * i..4 * i + 4].copy_from_slice(&k[35 - i].to_le_bytes());
    }
    rk
}

/// Decodes exactly 16 bytes of hex.
pub fn hex16(s: &str) -> [u8; 16] {
    hex(s).try_into().expect("16 bytes")
}

/// Whether this run is on a target where the tests run under qemu (or only the portable SM4 code exists),
/// so that the heaviest loops use smaller counts.
pub const SLOW_TARGET: bool = cfg!(not(target_arch = "x86_64"));

/// `native` on x86_64, `emulated` elsewhere (qemu runs of `cargo xtask cross`).
pub fn scaled(native: usize, emulated: usize) -> usize {
    if SLOW_TARGET {
        emulated
    } else {
        native
    }
}

/// A copy of `data` placed at byte offset `off` of a fresh allocation, so kernels see misaligned buffers.
pub struct Misaligned {
    storage: Vec<u8>,
    off: usize,
    len: usize,
}

impl Misaligned {
    /// `data` copied to offset `off` (0..=63).
    pub fn new(data: &[u8], off: usize) -> Misaligned {
        let mut storage = vec![0xa5u8; data.len() + off + 64];
        storage[off..off + data.len()].copy_from_slice(data);
        Misaligned { storage, off, len: data.len() }
    }
    /// The bytes.
    pub fn get(&mut self) -> &mut [u8] {
        &mut self.storage[self.off..self.off + self.len]
    }
    /// Panics if a byte outside the buffer changed (the kernels must not write past the end).
    pub fn check_guards(&self) {
        assert!(self.storage[..self.off].iter().all(|&b| b == 0xa5), "write before the buffer");
        assert!(self.storage[self.off + self.len..].iter().all(|&b| b == 0xa5), "write after the buffer");
    }
}

/// The backend a test expects under `ASMGEN_BACKEND=jit` given the listings' backend it expects otherwise:
/// the same set as `jit/...`. Where the JIT measures the SM4 interleave width (the AES-NI AVX2 set), the
/// set its measurement picked, which must be that set or the AVX one.
pub fn jit_expectation(aot: &str) -> String {
    if std::env::var("ASMGEN_BACKEND").as_deref() != Ok("jit") || !aot.starts_with("aot/") {
        return aot.to_string();
    }
    let jit = format!("jit/{}", &aot[4..]);
    if aot == "aot/x86_64-aesni-avx2" {
        let process = asmgen_runtime::jit::Jit::process().expect("the JIT assembles on this CPU");
        let picked = process.sets().iter().find(|s| s.starts_with("x86_64-aesni")).expect("an SM4 set");
        assert!(matches!(picked.as_str(), "x86_64-aesni-avx2" | "x86_64-aesni-avx"), "{picked}");
        assert_eq!(process.tuning().len(), 1, "the width was measured: {:?}", process.tuning());
        return format!("jit/{picked}");
    }
    jit
}

pub mod bench;
pub mod caps;
pub mod coff;
pub mod ct;
pub mod frames;
pub mod interp;
pub mod kernel_calls;
pub mod sections;
#[cfg(target_os = "linux")]
pub mod semantics;
pub mod sweep;
mod tools;
#[cfg(windows)]
pub mod win_memory;
pub use tools::{ci, have_all, runs, tool_missing};

/// A command that runs this test binary again: through the runner `cargo xtask cross` names in
/// `ASMGEN_TEST_RUNNER` under emulation (`qemu-aarch64 -cpu ... -L ...`), as cargo started this one.
pub fn rerun_this_binary() -> std::process::Command {
    let exe = std::env::current_exe().unwrap();
    let runner = std::env::var("ASMGEN_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut c = std::process::Command::new(program);
            c.args(words).arg(&exe);
            c
        }
        None => std::process::Command::new(&exe),
    }
}

/// The workspace's root folder.
pub fn workspace() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs an external tool, panicking with its output when it fails; its standard output.
pub fn run(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The listings under `generated/<dir>/` (`x86_64-windows`), sorted; panics if there are none.
pub fn listings(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = workspace().join("generated").join(dir);
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "S"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no listings in {}", dir.display());
    v
}
