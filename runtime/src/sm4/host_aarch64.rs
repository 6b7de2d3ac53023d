//! The SM4 kernel sets of the aarch64 listings.

use super::Sm4Kernels;
use crate::aot::*;

/// The SM4 extension, and PMULL for the fused GCM kernel (every SM4 CPU has it in practice; without it the
/// NEON set serves).
fn sm4ce() -> bool {
    std::arch::is_aarch64_feature_detected!("sm4") && std::arch::is_aarch64_feature_detected!("pmull")
}
fn neon() -> bool {
    std::arch::is_aarch64_feature_detected!("neon")
}

/// The listings' sets of this target, best first.
pub(crate) const SETS: &[Sm4Kernels] = &[
    // The SM4 extension: sm4e/sm4ekey, eight blocks in flight; XTS in both conventions; GCM encryption fused
    // with the PMULL GHASH; CCM with the MAC and CTR blocks in the same rounds.
    Sm4Kernels {
        name: "aot/aarch64-sm4ce",
        available: sm4ce,
        expand_key: asmgen_sm4_expand_key_ce,
        ecb: asmgen_sm4_ecb_ce,
        ctr: asmgen_sm4_ctr_ce,
        cbc_enc: asmgen_sm4_cbc_enc_ce,
        cbc_dec: asmgen_sm4_cbc_dec_ce,
        cfb_enc: asmgen_sm4_cfb_enc_ce,
        cfb_dec: asmgen_sm4_cfb_dec_ce,
        cbc_mac: asmgen_sm4_cbc_mac_ce,
        xts_enc_ieee: Some(asmgen_sm4_xts_enc_ieee_ce),
        xts_dec_ieee: Some(asmgen_sm4_xts_dec_ieee_ce),
        xts_enc_gb: Some(asmgen_sm4_xts_enc_gb_ce),
        xts_dec_gb: Some(asmgen_sm4_xts_dec_gb_ce),
        gcm_enc: Some(asmgen_sm4_gcm_enc_ce),
        ccm_enc: Some(asmgen_sm4_ccm_enc_ce),
        ccm_dec: Some(asmgen_sm4_ccm_dec_ce),
        ghash: crate::dispatch::ghash,
    },
    // Plain Advanced SIMD (tbl S-box), eight blocks in flight; XTS, GCM and CCM composed from these kernels.
    Sm4Kernels {
        name: "aot/aarch64-neon",
        available: neon,
        expand_key: asmgen_sm4_expand_key_neon,
        ecb: asmgen_sm4_ecb_neon,
        ctr: asmgen_sm4_ctr_neon,
        cbc_enc: asmgen_sm4_cbc_enc_neon,
        cbc_dec: asmgen_sm4_cbc_dec_neon,
        cfb_enc: asmgen_sm4_cfb_enc_neon,
        cfb_dec: asmgen_sm4_cfb_dec_neon,
        cbc_mac: asmgen_sm4_cbc_mac_neon,
        xts_enc_ieee: None,
        xts_dec_ieee: None,
        xts_enc_gb: None,
        xts_dec_gb: None,
        gcm_enc: None,
        ccm_enc: None,
        ccm_dec: None,
        ghash: crate::dispatch::ghash,
    },
];
