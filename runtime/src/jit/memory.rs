//! Executable memory: an image is copied into a fresh read-write mapping, which is then made read-execute
//! (never both: W^X) and the instruction cache synchronised. Each image gets its own mapping, page-aligned
//! (aarch64's `adrp`/`add :lo12:` pairs are encoded for a 4 KiB-aligned base).

use std::io;

/// The page size the images are encoded for and mappings are rounded to.
pub(super) const PAGE: usize = 4096;

/// Maps `bytes` read-execute; returns the mapping and the bytes it takes (whole pages). The mapping is
/// populated when made (Linux: `MAP_POPULATE`), since every page is written at once: one call instead of a page
/// fault per page, about a microsecond each, at the JIT's startup.
pub(super) fn map(bytes: &[u8]) -> io::Result<(memmap2::Mmap, usize)> {
    let size = bytes.len().max(1).div_ceil(PAGE) * PAGE;
    let mut buf = memmap2::MmapOptions::new().len(size).populate().map_anon()?;
    buf[..bytes.len()].copy_from_slice(bytes);
    let exec = buf.make_exec()?;
    debug_assert_eq!(exec.as_ptr() as usize % PAGE, 0, "mappings are page-aligned");
    dynasmrt::cache_control::synchronize_icache(&exec[..bytes.len()]);
    dynasmrt::cache_control::prepare_for_execution(&exec[..bytes.len()]);
    Ok((exec, size))
}
