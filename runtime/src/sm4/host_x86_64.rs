//! The SM4 kernel sets of the x86_64 listings.

use super::{avx_only, Sm4Kernels};
use crate::aot::*;

/// AES-NI and AVX, plus PCLMULQDQ for the fused GCM kernel (every AES-NI CPU has it).
fn aesni_avx() -> bool {
    std::arch::is_x86_feature_detected!("aes")
        && std::arch::is_x86_feature_detected!("avx")
        && std::arch::is_x86_feature_detected!("pclmulqdq")
}
fn aesni_avx2() -> bool {
    aesni_avx() && std::arch::is_x86_feature_detected!("avx2") && !avx_only()
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
    xts_enc_ieee: None,
    xts_dec_ieee: None,
    xts_enc_gb: None,
    xts_dec_gb: None,
    gcm_enc: None,
    ccm_enc: None,
    ccm_dec: None,
    ghash: crate::dispatch::ghash,
};

/// The listings' sets of this target, best first.
pub(crate) const SETS: &[Sm4Kernels] = &[
    // AES-NI + AVX2 (eight blocks per register) for the parallel modes; the serial ones (CBC/CFB
    // encryption, CBC-MAC) and the key schedule are the AVX kernels.
    Sm4Kernels {
        name: "aot/x86_64-aesni-avx2",
        available: aesni_avx2,
        ecb: asmgen_sm4_ecb_avx2,
        ctr: asmgen_sm4_ctr_avx2,
        cbc_dec: asmgen_sm4_cbc_dec_avx2,
        cfb_dec: asmgen_sm4_cfb_dec_avx2,
        ..AVX
    },
    AVX,
];
