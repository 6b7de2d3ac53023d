//! Test hook, not API: what `tests/tests/abi.rs` needs to call every linked listing function through its
//! callee-saved-register checking trampoline, and the portable key setups `tests/tests/ghash.rs` compares the
//! listings' key tables with. Hidden from the documentation; no semver promise.

/// A listing function of the host's generated set table.
#[derive(Clone, Copy, Debug)]
pub struct AotKernel {
    /// The kernel set (`x86_64-gfni-avx2`).
    pub set: &'static str,
    /// Its role in the set (`ecb`, `ghash_update`): the role fixes the C signature.
    pub role: &'static str,
    /// The listing's symbol.
    pub symbol: &'static str,
    /// The function's address.
    pub entry: *const (),
    /// Whether this CPU has every feature the set requires.
    pub available: bool,
}

/// Every kernel of every set of the generated table `SETS`, in table order (empty without listings).
pub fn kernels() -> Vec<AotKernel> {
    crate::aot::SETS
        .iter()
        .flat_map(|s| {
            let available = crate::backend::available(s);
            s.kernels.iter().map(move |k| AotKernel {
                set: s.name,
                role: k.role,
                symbol: k.symbol,
                entry: k.entry,
                available,
            })
        })
        .collect()
}

/// The portable backend's key setups, `(role, function)` for `ghash_init` and `polyval_init`: they fill the key
/// table's first 256 bytes (H^1..H^8 and their half-sums), which every listing's init must fill alike.
pub fn portable_hash_inits() -> [(&'static str, unsafe extern "C" fn(*mut u8, *const u8)); 2] {
    [("ghash_init", crate::ghash::portable::ghash_init), ("polyval_init", crate::ghash::portable::polyval_init)]
}
