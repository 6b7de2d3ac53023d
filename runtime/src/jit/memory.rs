//! Executable memory: an image is copied into a fresh read-write mapping, which is then made read-execute
//! (never both: W^X) and the instruction cache synchronised. Each image gets its own mapping, page-aligned
//! (aarch64's `adrp`/`add :lo12:` pairs are encoded for a 4 KiB-aligned base).

use std::io;

/// The page size the images are encoded for and mappings are rounded to.
pub(super) const PAGE: usize = 4096;

/// Maps `bytes` read-execute; returns the mapping and the bytes it takes (whole pages).
pub(super) fn map(bytes: &[u8]) -> io::Result<(dynasmrt::ExecutableBuffer, usize)> {
    let size = bytes.len().max(1).div_ceil(PAGE) * PAGE;
    let mut buf = dynasmrt::mmap::MutableBuffer::new(size)?;
    buf.set_len(bytes.len());
    buf[..].copy_from_slice(bytes);
    let exec = buf.make_exec()?;
    debug_assert_eq!(exec.ptr(dynasmrt::AssemblyOffset(0)) as usize % PAGE, 0, "mappings are page-aligned");
    dynasmrt::cache_control::synchronize_icache(&exec);
    dynasmrt::cache_control::prepare_for_execution(&exec);
    Ok((exec, size))
}
