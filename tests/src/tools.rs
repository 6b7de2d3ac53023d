//! Whether the external tools a test checks against are installed, and the one rule for when one is
//! missing: with `CI` set the test fails, elsewhere it prints a notice and skips that check. Shared by the
//! integration tests (through `asmgen_tests`) and gen's table tests (`gen/tests/support` includes this file).

#![allow(dead_code)]

/// Whether `tool --version` runs and succeeds.
pub fn runs(tool: &str) -> bool {
    std::process::Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Whether this is a CI run: the `CI` environment variable is set (to anything but empty, `0` or `false`).
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// A check cannot run because an external tool is missing (`msg` names it). In CI, where `.ci/install-deps`
/// installs every tool, that is a broken setup: panic. Elsewhere print a notice; the caller skips the check.
pub fn tool_missing(msg: &str) {
    if ci() {
        panic!("{msg} (CI is set, so a missing tool is a failure; install it with `bash .ci/install-deps`)");
    }
    eprintln!("NOTICE: {msg}; skipping it (with CI set this fails)");
}

/// Whether every tool of `tools` runs; if not, [`tool_missing`] names those that do not, and `check`, the check
/// they were needed for.
pub fn have_all(tools: &[&str], check: &str) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !runs(t)).collect();
    if !missing.is_empty() {
        tool_missing(&format!("{} not found: {check}", missing.join(", ")));
    }
    missing.is_empty()
}
