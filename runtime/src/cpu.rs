//! The running CPU's features, by the names the instruction tables give them (the names in the generated set
//! tables: `AVX2`, `pmull`, `zvkg`), each detected once, and the `ASMGEN_ISA` cap, parsed once.
//!
//! `ASMGEN_ISA=avx|avx2|vaes|gfni` makes the x86_64 features above that level count as absent, as on an older
//! CPU: `avx` hides AVX2, VAES, VPCLMULQDQ and GFNI; `avx2` hides VAES, VPCLMULQDQ and GFNI; `vaes` hides GFNI;
//! `gfni` hides AVX-512 only. Every cap hides AVX-512 (AVX512F, AVX512BW, AVX512VL): `avx2` (or `gfni`) is the
//! setting for CPUs that lower their clock under zmm code. Every kernel set needing a hidden feature is then unavailable, listings and JIT alike.

use crate::Error;
use std::sync::OnceLock;

/// Whether the CPU has `feature` (a table name) and `ASMGEN_ISA` does not hide it. Unknown names are absent.
pub(crate) fn has(feature: &str) -> bool {
    !capped(feature) && detect(feature) == Some(true)
}

/// Whether the CPU has every one of `features`.
pub(crate) fn has_all(features: &[&str]) -> bool {
    features.iter().all(|f| has(f))
}

/// The x86_64 level `ASMGEN_ISA` caps the kernels at.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cap {
    None,
    Avx,
    Avx2,
    Vaes,
    Gfni,
}

/// The cap, read once; a value [`read_cap`] rejects counts as unset (see [`crate::backend_override`]).
fn cap() -> Cap {
    static C: OnceLock<Cap> = OnceLock::new();
    *C.get_or_init(|| read_cap().unwrap_or(Cap::None))
}

/// `ASMGEN_ISA`: unset or empty, or `avx`, `avx2`, `vaes`, `gfni` (in any case); anything else is an error.
fn read_cap() -> Result<Cap, Error> {
    let value = match std::env::var("ASMGEN_ISA") {
        Ok(v) => v,
        Err(std::env::VarError::NotPresent) => return Ok(Cap::None),
        Err(std::env::VarError::NotUnicode(v)) => v.to_string_lossy().into_owned(),
    };
    match value.to_ascii_lowercase().as_str() {
        "" => Ok(Cap::None),
        "avx" => Ok(Cap::Avx),
        "avx2" => Ok(Cap::Avx2),
        "vaes" => Ok(Cap::Vaes),
        "gfni" => Ok(Cap::Gfni),
        _ => {
            Err(Error::InvalidEnvironment { var: "ASMGEN_ISA", value, expected: "avx, avx2, vaes or gfni (or unset)" })
        }
    }
}

/// Whether `ASMGEN_ISA` holds a value the runtime knows (unset counts as known).
pub(crate) fn check_cap() -> Result<(), Error> {
    read_cap().map(|_| ())
}

/// The AVX-512 features, hidden under every cap.
const AVX512: [&str; 3] = ["AVX512F", "AVX512BW", "AVX512VL"];

fn capped(feature: &str) -> bool {
    match cap() {
        Cap::None => false,
        _ if AVX512.contains(&feature) => true,
        Cap::Avx => matches!(feature, "AVX2" | "VAES" | "VPCLMULQDQ" | "GFNI"),
        Cap::Avx2 => matches!(feature, "VAES" | "VPCLMULQDQ" | "GFNI"),
        Cap::Vaes => feature == "GFNI",
        Cap::Gfni => false,
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) fn detect(feature: &str) -> Option<bool> {
    use std::arch::is_x86_feature_detected as d;
    match feature {
        "SSSE3" => Some(d!("ssse3")),
        "SSE4.1" => Some(d!("sse4.1")),
        "AES" => Some(d!("aes")),
        "PCLMULQDQ" => Some(d!("pclmulqdq")),
        "AVX" => Some(d!("avx")),
        "AVX2" => Some(d!("avx2")),
        "BMI1" => Some(d!("bmi1")),
        "BMI2" => Some(d!("bmi2")),
        "MOVBE" => Some(d!("movbe")),
        "RDRAND" => Some(d!("rdrand")),
        "ADX" => Some(d!("adx")),
        "SHA" => Some(d!("sha")),
        "VAES" => Some(d!("vaes")),
        "VPCLMULQDQ" => Some(d!("vpclmulqdq")),
        "GFNI" => Some(d!("gfni")),
        // std checks CPUID and that the OS saves the opmask and zmm state (XCR0 bits 5-7), as it checks the ymm
        // state (bit 2) for AVX.
        "AVX512F" => Some(d!("avx512f")),
        "AVX512BW" => Some(d!("avx512bw")),
        "AVX512VL" => Some(d!("avx512vl")),
        // The landing pad (endbr64) is a NOP without IBT.
        "IBT" => Some(true),
        _ => None,
    }
}

#[cfg(target_arch = "aarch64")]
pub(crate) fn detect(feature: &str) -> Option<bool> {
    use std::arch::is_aarch64_feature_detected as d;
    match feature {
        "pmull" => Some(d!("pmull")),
        "aes" => Some(d!("aes")),
        "sha3" => Some(d!("sha3")),
        "sm4" => Some(d!("sm4")),
        // std's `sm4` is HWCAP SM3 and SM4 together (std has no name for SM3 alone).
        "sm3" => Some(d!("sm4")),
        // std's `sha2` is HWCAP SHA1 and SHA2 together (std has no name for SHA1 alone).
        "sha1" | "sha2" => Some(d!("sha2")),
        // std has no name for HWCAP SHA512 alone: its `sha3` is SHA3 and SHA512 together (both come with the
        // v8.2 crypto extension), so a CPU with SHA512 but not SHA3 is taken to lack it.
        "sha512" => Some(d!("sha3")),
        _ => None,
    }
}

#[cfg(target_arch = "riscv64")]
pub(crate) fn detect(feature: &str) -> Option<bool> {
    use std::arch::is_riscv_feature_detected as d;
    // Bits of riscv_hwprobe's RISCV_HWPROBE_KEY_IMA_EXT_0 (Linux uapi asm/hwprobe.h).
    match feature {
        "zbb" => Some(d!("zbb")),
        "zbc" => Some(d!("zbc")),
        "zbkb" => Some(d!("zbkb")),
        "zksed" => Some(d!("zksed")),
        "v" => Some(hwprobe_ext0() & (1 << 2) != 0),
        "zvbc" => Some(hwprobe_ext0() & (1 << 18) != 0),
        "zvkb" => Some(hwprobe_ext0() & (1 << 19) != 0),
        "zvkg" => Some(hwprobe_ext0() & (1 << 20) != 0),
        "zvksed" => Some(hwprobe_ext0() & (1 << 24) != 0),
        "zbkx" => Some(hwprobe_ext0() & (1 << 10) != 0),
        "zknd" => Some(hwprobe_ext0() & (1 << 11) != 0),
        "zkne" => Some(hwprobe_ext0() & (1 << 12) != 0),
        "zknh" => Some(hwprobe_ext0() & (1 << 13) != 0),
        "zksh" => Some(hwprobe_ext0() & (1 << 15) != 0),
        "zvbb" => Some(hwprobe_ext0() & (1 << 17) != 0),
        "zvkned" => Some(hwprobe_ext0() & (1 << 21) != 0),
        // Zvknhb is a superset of Zvknha: either gives the SHA-256 forms.
        "zvknha" => Some(hwprobe_ext0() & (3 << 22) != 0),
        "zvknhb" => Some(hwprobe_ext0() & (1 << 23) != 0),
        "zvksh" => Some(hwprobe_ext0() & (1 << 25) != 0),
        _ => None,
    }
}

/// RISCV_HWPROBE_KEY_IMA_EXT_0 from the kernel, asked once. std's `is_riscv_feature_detected!` knows the vector
/// extensions only on nightly (Rust 1.95), so the runtime asks `riscv_hwprobe` (syscall 258) itself; a
/// failing call (no kernel support) reads as "none".
#[cfg(target_arch = "riscv64")]
fn hwprobe_ext0() -> u64 {
    static EXT: OnceLock<u64> = OnceLock::new();
    *EXT.get_or_init(|| {
        // struct riscv_hwprobe { i64 key; u64 value; }, key 4 = IMA_EXT_0.
        let mut pair: [i64; 2] = [4, 0];
        let ret: i64;
        // SAFETY: riscv_hwprobe(pairs, 1, 0, NULL, 0) writes only the one pair it is given.
        unsafe {
            core::arch::asm!(
                "ecall",
                inlateout("a0") pair.as_mut_ptr() as i64 => ret,
                in("a1") 1i64,
                in("a2") 0i64,
                in("a3") 0i64,
                in("a4") 0i64,
                in("a7") 258i64,
                options(nostack),
            );
        }
        if ret == 0 && pair[0] == 4 {
            pair[1] as u64
        } else {
            0
        }
    })
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64")))]
pub(crate) fn detect(_feature: &str) -> Option<bool> {
    None
}

#[cfg(test)]
mod tests {
    /// Every feature a generated set table names is one this module detects (an unknown name would make its
    /// set silently unavailable).
    #[cfg(asmgen_aot)]
    #[test]
    fn every_table_feature_is_known() {
        for set in crate::aot::SETS {
            for f in set.features {
                assert!(super::detect(f).is_some(), "{}: feature {f} is not one cpu.rs detects", set.name);
            }
        }
    }
}
