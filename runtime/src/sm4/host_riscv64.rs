//! The SM4 kernel sets of the riscv64 listings.

use super::Sm4Kernels;
use crate::aot::*;

/// V + Zvksed + Zvkb + Zvkg (XTS steps its tweaks with vgmul), through riscv_hwprobe: std detects the vector
/// extensions only on nightly.
fn zvksed() -> bool {
    use crate::dispatch::host::{has_all, RVV, ZVKB, ZVKG, ZVKSED};
    has_all(RVV | ZVKSED | ZVKB | ZVKG)
}
fn zksed() -> bool {
    std::arch::is_riscv_feature_detected!("zksed") && std::arch::is_riscv_feature_detected!("zbb")
}

/// The listings' sets of this target, best first.
pub(crate) const SETS: &[Sm4Kernels] = &[
    // Vector crypto (VLEN-agnostic, LMUL 4): every mode but GCM and CCM, which the API composes from these
    // kernels and the best GHASH (Zvkg on the same CPU). XTS steps its tweaks with Zvkg's vgmul.
    Sm4Kernels {
        name: "aot/riscv64-zvksed",
        available: zvksed,
        expand_key: asmgen_sm4_expand_key_zvksed,
        ecb: asmgen_sm4_ecb_zvksed,
        ctr: asmgen_sm4_ctr_zvksed,
        cbc_enc: asmgen_sm4_cbc_enc_zvksed,
        cbc_dec: asmgen_sm4_cbc_dec_zvksed,
        cfb_enc: asmgen_sm4_cfb_enc_zvksed,
        cfb_dec: asmgen_sm4_cfb_dec_zvksed,
        cbc_mac: asmgen_sm4_cbc_mac_zvksed,
        xts_enc_ieee: Some(asmgen_sm4_xts_enc_ieee_zvksed),
        xts_dec_ieee: Some(asmgen_sm4_xts_dec_ieee_zvksed),
        xts_enc_gb: Some(asmgen_sm4_xts_enc_gb_zvksed),
        xts_dec_gb: Some(asmgen_sm4_xts_dec_gb_zvksed),
        gcm_enc: None,
        ccm_enc: None,
        ccm_dec: None,
        ghash: crate::dispatch::ghash,
    },
    // Scalar Zksed (four blocks interleaved): XTS, GCM and CCM composed from these kernels.
    Sm4Kernels {
        name: "aot/riscv64-zksed",
        available: zksed,
        expand_key: asmgen_sm4_expand_key_zksed,
        ecb: asmgen_sm4_ecb_zksed,
        ctr: asmgen_sm4_ctr_zksed,
        cbc_enc: asmgen_sm4_cbc_enc_zksed,
        cbc_dec: asmgen_sm4_cbc_dec_zksed,
        cfb_enc: asmgen_sm4_cfb_enc_zksed,
        cfb_dec: asmgen_sm4_cfb_dec_zksed,
        cbc_mac: asmgen_sm4_cbc_mac_zksed,
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
