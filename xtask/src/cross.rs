//! Cross testing and benchmarking (filled in below).
use std::path::Path;
/// Runs the runtime tests under qemu.
pub fn run(_root: &Path, _args: &[String]) -> Result<(), String> {
    Err("not yet".into())
}
/// Runs the benchmark.
pub fn bench(_root: &Path, _args: &[String]) -> Result<(), String> {
    Err("not yet".into())
}
