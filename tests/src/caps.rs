//! Which CPU features the kernels may use here: the CPU's own (`std::arch` detection) less those the
//! `ASMGEN_ISA` cap hides. `runtime/src/cpu.rs` implements the cap; this is the tests' independent statement of
//! it, written once for every suite that predicts what dispatch picks (`ghash`, `sm4_modes`).
//!
//! The cap: `avx` hides AVX2, VAES, VPCLMULQDQ and GFNI; `avx2` hides VAES, VPCLMULQDQ and GFNI; `vaes` hides
//! GFNI; `gfni` hides nothing more; every cap hides AVX-512 (F, BW, VL). Any other value is no cap.

/// Whether `ASMGEN_ISA` hides `feature` (a lower-case `std::arch` name, such as `"avx2"` or `"avx512f"`).
pub fn hidden(feature: &str) -> bool {
    let cap = std::env::var("ASMGEN_ISA").map(|v| v.to_ascii_lowercase()).unwrap_or_default();
    let avx512 = matches!(feature, "avx512f" | "avx512bw" | "avx512vl");
    match cap.as_str() {
        "avx" => avx512 || matches!(feature, "avx2" | "vaes" | "vpclmulqdq" | "gfni"),
        "avx2" => avx512 || matches!(feature, "vaes" | "vpclmulqdq" | "gfni"),
        "vaes" => avx512 || feature == "gfni",
        "gfni" => avx512,
        _ => false,
    }
}

/// Whether the CPU has every one of `features` and the cap hides none of them (always false off x86_64, and
/// for a name this function does not know).
pub fn usable(features: &[&str]) -> bool {
    features.iter().all(|f| !hidden(f) && detected(f))
}

#[cfg(target_arch = "x86_64")]
fn detected(feature: &str) -> bool {
    use std::arch::is_x86_feature_detected as d;
    match feature {
        "aes" => d!("aes"),
        "avx" => d!("avx"),
        "avx2" => d!("avx2"),
        "pclmulqdq" => d!("pclmulqdq"),
        "vpclmulqdq" => d!("vpclmulqdq"),
        "vaes" => d!("vaes"),
        "gfni" => d!("gfni"),
        "avx512f" => d!("avx512f"),
        "avx512bw" => d!("avx512bw"),
        "avx512vl" => d!("avx512vl"),
        "bmi2" => d!("bmi2"),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detected(_: &str) -> bool {
    false
}
