//! The SM4 kernel sets of the x86_64 listings.
//!
//! Best first: GFNI + AVX2, VAES + AVX2, AES-NI + AVX2, AES-NI + AVX. `ASMGEN_ISA=avx` forces the AES-NI AVX
//! set (as on a CPU without AVX2), `ASMGEN_ISA=avx2` the AES-NI AVX2 set, `ASMGEN_ISA=vaes` the VAES set (as
//! on CPUs without GFNI), each still subject to the CPU's features.

use super::{avx_only, BlocksFn, Sm4Kernels};
use crate::aot::*;
use std::arch::is_x86_feature_detected as has;
use std::sync::OnceLock;

/// The value of `ASMGEN_ISA`, lowercase ("" when unset).
fn isa_request() -> &'static str {
    static R: OnceLock<String> = OnceLock::new();
    R.get_or_init(|| std::env::var("ASMGEN_ISA").map(|v| v.to_ascii_lowercase()).unwrap_or_default())
}

/// AES-NI and AVX, plus PCLMULQDQ for the fused GCM kernel (every AES-NI CPU has it).
fn aesni_avx() -> bool {
    has!("aes") && has!("avx") && has!("pclmulqdq")
}
fn aesni_avx2() -> bool {
    aesni_avx() && has!("avx2") && !avx_only()
}
/// VAES + AVX2 (the key schedule and the serial modes are the AES-NI AVX kernels).
fn vaes_avx2() -> bool {
    aesni_avx2() && has!("vaes") && !matches!(isa_request(), "avx2")
}
/// GFNI + AVX2 (the key schedule is the AES-NI AVX kernel; every GFNI CPU has AES-NI), plus VPCLMULQDQ for
/// the XTS kernels' tweaks (every AVX2 CPU with GFNI has it).
fn gfni_avx2() -> bool {
    aesni_avx2() && has!("gfni") && has!("vpclmulqdq") && !matches!(isa_request(), "avx2" | "vaes")
}

/// AES-NI + AVX (four blocks per register): every mode.
const AVX: Sm4Kernels = Sm4Kernels {
    name: "aot/x86_64-aesni-avx",
    available: aesni_avx,
    expand_key: asmgen_sm4_expand_key_avx,
    ecb: asmgen_sm4_ecb_avx,
    ctr: asmgen_sm4_ctr_avx,
    cbc_enc: asmgen_sm4_cbc_enc_avx,
    cbc_dec: asmgen_sm4_cbc_dec_avx,
    cfb_enc: asmgen_sm4_cfb_enc_avx,
    cfb_dec: asmgen_sm4_cfb_dec_avx,
    cbc_mac: asmgen_sm4_cbc_mac_avx,
    xts_enc_ieee: Some(asmgen_sm4_xts_enc_ieee_avx),
    xts_dec_ieee: Some(asmgen_sm4_xts_dec_ieee_avx),
    xts_enc_gb: Some(asmgen_sm4_xts_enc_gb_avx),
    xts_dec_gb: Some(asmgen_sm4_xts_dec_gb_avx),
    gcm_enc: Some(asmgen_sm4_gcm_enc_avx),
    ccm_enc: Some(asmgen_sm4_ccm_enc_avx),
    ccm_dec: Some(asmgen_sm4_ccm_dec_avx),
    ghash: crate::dispatch::ghash,
};

/// The listings' sets of this target, best first.
pub(crate) const SETS: &[Sm4Kernels] = &[
    // GFNI + AVX2: the S-box in GFNI's affine instructions, 16 blocks in flight (ymm); every mode has its
    // own kernel except the key schedule.
    Sm4Kernels {
        name: "aot/x86_64-gfni-avx2",
        available: gfni_avx2,
        ecb: asmgen_sm4_ecb_gfni,
        ctr: asmgen_sm4_ctr_gfni,
        cbc_enc: asmgen_sm4_cbc_enc_gfni,
        cbc_dec: asmgen_sm4_cbc_dec_gfni,
        cfb_enc: asmgen_sm4_cfb_enc_gfni,
        cfb_dec: asmgen_sm4_cfb_dec_gfni,
        cbc_mac: asmgen_sm4_cbc_mac_gfni,
        xts_enc_ieee: Some(asmgen_sm4_xts_enc_ieee_gfni),
        xts_dec_ieee: Some(asmgen_sm4_xts_dec_ieee_gfni),
        xts_enc_gb: Some(asmgen_sm4_xts_enc_gb_gfni),
        xts_dec_gb: Some(asmgen_sm4_xts_dec_gb_gfni),
        gcm_enc: Some(asmgen_sm4_gcm_enc_gfni),
        ccm_enc: Some(asmgen_sm4_ccm_enc_gfni),
        ccm_dec: Some(asmgen_sm4_ccm_dec_gfni),
        ..AVX
    },
    // VAES + AVX2: the AES-NI S-box with vaesenclast on whole ymm registers, for the parallel modes.
    Sm4Kernels {
        name: "aot/x86_64-vaes-avx2",
        available: vaes_avx2,
        ecb: asmgen_sm4_ecb_vaes,
        ctr: asmgen_sm4_ctr_vaes,
        cbc_dec: asmgen_sm4_cbc_dec_vaes,
        cfb_dec: asmgen_sm4_cfb_dec_vaes,
        xts_enc_ieee: Some(asmgen_sm4_xts_enc_ieee_vaes),
        xts_dec_ieee: Some(asmgen_sm4_xts_dec_ieee_vaes),
        xts_enc_gb: Some(asmgen_sm4_xts_enc_gb_vaes),
        xts_dec_gb: Some(asmgen_sm4_xts_dec_gb_vaes),
        gcm_enc: Some(asmgen_sm4_gcm_enc_vaes),
        ..AVX
    },
    // AES-NI + AVX2 (eight blocks per register) for the parallel modes; the serial ones (CBC/CFB
    // encryption, CBC-MAC) and the key schedule are the AVX kernels.
    Sm4Kernels {
        name: "aot/x86_64-aesni-avx2",
        available: aesni_avx2,
        ecb: asmgen_sm4_ecb_avx2,
        ctr: asmgen_sm4_ctr_avx2,
        cbc_dec: asmgen_sm4_cbc_dec_avx2,
        cfb_dec: asmgen_sm4_cfb_dec_avx2,
        xts_enc_ieee: Some(asmgen_sm4_xts_enc_ieee_avx2),
        xts_dec_ieee: Some(asmgen_sm4_xts_dec_ieee_avx2),
        xts_enc_gb: Some(asmgen_sm4_xts_enc_gb_avx2),
        xts_dec_gb: Some(asmgen_sm4_xts_dec_gb_avx2),
        gcm_enc: Some(asmgen_sm4_gcm_enc_avx2),
        ..AVX
    },
    AVX,
];

/// The JIT's interleave width. Where the choice is the AES-NI AVX2 set (AVX2 without VAES or GFNI, as on Zen 1,
/// which splits every 256-bit operation in two), time its ECB kernel (ymm, 16 blocks in flight) against the
/// AVX one (xmm, two groups of 4) over 4 KiB and give the JIT the faster; `None` elsewhere (with VAES or GFNI
/// the ymm kernels have no rival). The listings' kernels are timed: they are the code the JIT would assemble.
#[cfg(feature = "jit")]
pub(crate) fn tune(best: &'static Sm4Kernels) -> Option<(&'static Sm4Kernels, String)> {
    use crate::jit::tune::{mb_per_s, race};
    if best.name != "aot/x86_64-aesni-avx2" {
        return None;
    }
    let avx: &'static Sm4Kernels = SETS.iter().find(|k| k.name == AVX.name)?;
    const BYTES: usize = 4096;
    let rk = [0u8; 128];
    let (mut a, mut b) = (vec![0u8; BYTES], vec![0u8; BYTES]);
    let run = |f: BlocksFn, buf: &mut [u8]| {
        // SAFETY: 128 bytes of round keys, in place over 4096 bytes (256 blocks); the CPU runs both sets.
        unsafe { f(rk.as_ptr(), buf.as_mut_ptr(), buf.as_ptr(), BYTES / 16) }
    };
    let start = std::time::Instant::now();
    let [ymm, xmm] = race(&mut [&mut || run(best.ecb, &mut a), &mut || run(avx.ecb, &mut b)], 15);
    let pick = if xmm < ymm { avx } else { best };
    let note = format!(
        "SM4 interleave (AES-NI without VAES): ymm 16 blocks {:.0} MB/s, xmm 2x4 blocks {:.0} MB/s (ECB, 4 KiB, \
         median of 15, measured in {} us): {}",
        mb_per_s(BYTES, ymm),
        mb_per_s(BYTES, xmm),
        start.elapsed().as_micros(),
        pick.name
    );
    Some((pick, note))
}
