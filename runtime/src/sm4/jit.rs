//! The SM4 kernel sets of the JIT (`ASMGEN_BACKEND=jit`): the same functions as the listings' sets
//! (`host_aarch64.rs`, `host_riscv64.rs`), assembled at startup; a set exists when the JIT assembled every
//! kernel of it (it assembles only what this CPU runs).

use super::{BlocksFn, ChainFn, ExpandFn, Sm4Kernels};
use std::sync::OnceLock;

/// (backend name, function-name suffix, whether the listing has XTS kernels), best first.
#[cfg(target_arch = "aarch64")]
const SETS: &[(&str, &str, bool)] = &[("jit/aarch64-sm4ce", "ce", true), ("jit/aarch64-neon", "neon", false)];
#[cfg(target_arch = "riscv64")]
const SETS: &[(&str, &str, bool)] = &[("jit/riscv64-zvksed", "zvksed", true), ("jit/riscv64-zksed", "zksed", false)];
#[cfg(not(any(target_arch = "aarch64", target_arch = "riscv64")))]
const SETS: &[(&str, &str, bool)] = &[];

fn always() -> bool {
    true
}

fn set(name: &'static str, suffix: &str, xts: bool) -> Option<Sm4Kernels> {
    // SAFETY: each name is a listing function with the C signature of the field it fills.
    unsafe {
        let f = |mode: &str| format!("asmgen_sm4_{mode}_{suffix}");
        let chain = |mode: &str| crate::jit::entry::<ChainFn>(&f(mode));
        let xts_fn = |mode: &str| if xts { chain(mode).map(Some) } else { Some(None) };
        Some(Sm4Kernels {
            name,
            available: always,
            expand_key: crate::jit::entry::<ExpandFn>(&f("expand_key"))?,
            ecb: crate::jit::entry::<BlocksFn>(&f("ecb"))?,
            ctr: chain("ctr")?,
            cbc_enc: chain("cbc_enc")?,
            cbc_dec: chain("cbc_dec")?,
            cfb_enc: chain("cfb_enc")?,
            cfb_dec: chain("cfb_dec")?,
            cbc_mac: crate::jit::entry::<BlocksFn>(&f("cbc_mac"))?,
            xts_enc_ieee: xts_fn("xts_enc_ieee")?,
            xts_dec_ieee: xts_fn("xts_dec_ieee")?,
            xts_enc_gb: xts_fn("xts_enc_gb")?,
            xts_dec_gb: xts_fn("xts_dec_gb")?,
            gcm_enc: None,
            ccm_enc: None,
            ccm_dec: None,
            ghash: crate::dispatch::ghash,
        })
    }
}

/// The JIT's sets, best first.
pub(crate) fn sets() -> &'static [Sm4Kernels] {
    static V: OnceLock<Vec<Sm4Kernels>> = OnceLock::new();
    V.get_or_init(|| SETS.iter().filter_map(|&(name, suffix, xts)| set(name, suffix, xts)).collect())
}
