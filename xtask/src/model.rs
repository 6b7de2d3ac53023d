//! `cargo xtask bench --model`: modelled cycles per byte of the hot loops of the aarch64 and riscv64
//! listings, from llvm-mca-19 (no such hardware here). A model is a model: it ignores the memory system and,
//! where a CPU model lacks scheduling data for an instruction, the instruction itself (said so per row).
//!
//! Each row takes a loop from a checked-in listing: the lines from its label to the last branch back to it.
//! Instructions the listing carries as raw words (`.insn 0x...  # mnemonic`) are modelled from the mnemonic in
//! their comment.

use std::path::Path;
use std::process::Command;

/// One modelled loop.
struct Row {
    what: &'static str,
    listing: &'static str,
    /// The loop's label, without the local prefix.
    label: &'static str,
    /// Bytes one iteration processes.
    bytes: u32,
    triple: &'static str,
    cpu: &'static str,
    mattr: &'static str,
    /// Extra llvm-mca flags.
    flags: &'static [&'static str],
    /// An inner loop the body runs more than once: its label and trip count (the extracted body holds one trip).
    inner: Option<(&'static str, u32)>,
    /// Instructions put before the body (a `vsetvli` that llvm-mca 19 needs to model some vector loops).
    prelude: &'static str,
    /// The target in c/B, if any.
    target: Option<f64>,
    note: &'static str,
}

const A64_ATTR: &str = "+sm4,+sha3,+aes,+crypto";
const RV_VEC_ATTR: &str = "+v,+zvkb,+zvksed,+zvkg,+zvbb,+zvbc,+zbb,+zbc,+zksed";

impl Row {
    const fn a64(what: &'static str, listing: &'static str, label: &'static str, cpu: &'static str) -> Row {
        Row {
            what,
            listing,
            label,
            bytes: 128,
            triple: "aarch64",
            cpu,
            mattr: A64_ATTR,
            flags: &[],
            inner: None,
            prelude: "",
            target: None,
            note: "",
        }
    }
    const fn rv(what: &'static str, listing: &'static str, label: &'static str, cpu: &'static str) -> Row {
        // sifive-p670 has no timings for scalar Zbc/Zksed: they are left out of its model (said per row).
        Row {
            triple: "riscv64",
            mattr: RV_VEC_ATTR,
            flags: &["-skip-unsupported-instructions=lack-sched"],
            ..Row::a64(what, listing, label, cpu)
        }
    }
    const fn bytes(self, bytes: u32) -> Row {
        Row { bytes, ..self }
    }
    const fn target(self, t: f64) -> Row {
        Row { target: Some(t), ..self }
    }
    const fn note(self, note: &'static str) -> Row {
        Row { note, ..self }
    }
}

const SM4: &str = "aarch64-linux/sm4.S";
const GHASH: &str = "aarch64-linux/ghash.S";
const RV_SM4: &str = "riscv64-linux/sm4.S";
const RV_GHASH: &str = "riscv64-linux/ghash.S";

const ROWS: &[Row] = &[
    Row::a64("SM4-CE CTR", SM4, "asmgen_sm4_ctr_ce_loop8", "neoverse-n2").target(0.8),
    Row::a64("SM4-CE CTR", SM4, "asmgen_sm4_ctr_ce_loop8", "neoverse-v1"),
    Row::a64("SM4-CE XTS (IEEE)", SM4, "asmgen_sm4_xts_enc_ieee_ce_loop8", "neoverse-n2").target(0.8),
    Row::a64("SM4-CE XTS (GB)", SM4, "asmgen_sm4_xts_enc_gb_ce_loop8", "neoverse-n2").target(0.8),
    Row::a64("SM4-CE XTS (IEEE)", SM4, "asmgen_sm4_xts_enc_ieee_ce_loop8", "neoverse-v1"),
    Row::a64("SM4-CE CBC decrypt", SM4, "asmgen_sm4_cbc_dec_ce_loop8", "neoverse-n2"),
    Row::a64("SM4-CE GCM encrypt", SM4, "asmgen_sm4_gcm_enc_ce_loop8", "neoverse-n2"),
    Row::a64("SM4-CE GCM decrypt", SM4, "asmgen_sm4_gcm_dec_ce_loop8", "neoverse-n2"),
    Row::a64("SM4-CE CCM encrypt", SM4, "asmgen_sm4_ccm_enc_ce_loop", "neoverse-n2")
        .bytes(16)
        .note("serial: one block per 8 dependent sm4e"),
    Row {
        inner: Some(("asmgen_sm4_ctr_neon_rounds", 8)),
        ..Row::a64("SM4 NEON CTR", SM4, "asmgen_sm4_ctr_neon_loop8", "neoverse-n1")
    }
    .note("tbl/tbx S-box; inner loop of 4 rounds run 8 times"),
    Row::a64("GHASH PMULL", GHASH, "asmgen_ghash_update_pmull_loop8", "neoverse-n2").target(0.5),
    Row::a64("GHASH PMULL", GHASH, "asmgen_ghash_update_pmull_loop8", "neoverse-v1").target(0.5),
    Row::a64("POLYVAL PMULL", GHASH, "asmgen_polyval_update_pmull_loop8", "neoverse-n2"),
    Row {
        mattr: "+zbb,+zbc",
        flags: &[],
        ..Row::rv("GHASH Zbb+Zbc", RV_GHASH, "asmgen_ghash_update_zbc_loop8", "xiangshan-nanhu")
    }
    .target(1.2)
    .note("the only LLVM 19 model with clmul timings"),
    Row {
        prelude: "vsetvli zero, t0, e32, m4, ta, ma",
        ..Row::rv("GHASH Zvkg", RV_GHASH, "asmgen_ghash_update_zvkg_main", "sifive-p670")
    }
    .bytes(64)
    .note("VLEN 128, LMUL 4 (4 blocks); a vsetvli added: llvm-mca 19 crashes without one"),
    Row::rv("SM4 Zvksed CTR", RV_SM4, "asmgen_sm4_ctr_zvksed_loop", "sifive-p670")
        .bytes(64)
        .note("VLEN 128, LMUL 4 (4 blocks)"),
];

/// The loop body: instructions from `label:` to the last branch back to it, raw words replaced by the
/// mnemonic in their comment.
fn extract(listing: &str, label: &str, comment: &str) -> Result<String, String> {
    let head = format!(".L{label}:");
    let lines: Vec<&str> = listing.lines().collect();
    let start = lines.iter().position(|l| l.trim_end() == head).ok_or_else(|| format!("no label {head}"))?;
    let target = format!(".L{label}");
    let end = (start + 1..lines.len())
        .rev()
        .filter(|&i| lines[i].trim_start().starts_with(|c: char| c.is_ascii_lowercase()))
        .find(|&i| lines[i].split(|c: char| c == ',' || c.is_whitespace()).any(|w| w == target))
        .ok_or_else(|| format!("no branch back to {head}"))?;
    let mut body = String::new();
    for l in &lines[start + 1..=end] {
        let t = l.trim();
        if t.is_empty() || t.starts_with(comment) || t.starts_with("/*") || t.ends_with(':') {
            continue;
        }
        if let Some(rest) = t.strip_prefix(".insn") {
            let mnemonic = rest.split_once(comment).map(|(_, m)| m.trim()).ok_or("raw word without a mnemonic")?;
            body.push_str(mnemonic);
        } else if t.starts_with('.') {
            continue;
        } else {
            body.push_str(t.split_once(comment).map_or(t, |(code, _)| code).trim_end());
        }
        body.push('\n');
    }
    Ok(body)
}

/// Cycles per iteration of `body` in steady state.
fn mca(row: &Row, body: &str) -> Result<f64, String> {
    let dir = std::env::temp_dir().join(format!("asmgen-mca-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join(format!("{}.s", row.label));
    let mut src = String::new();
    if row.triple == "riscv64" {
        src.push_str("# LLVM-MCA-RISCV-LMUL M4\n");
    }
    if !row.prelude.is_empty() {
        src.push_str(row.prelude);
        src.push('\n');
    }
    src.push_str(body);
    std::fs::write(&file, src).map_err(|e| e.to_string())?;
    let out = Command::new("llvm-mca-19")
        .arg(format!("-mtriple={}", row.triple))
        .arg(format!("-mcpu={}", row.cpu))
        .arg(format!("-mattr={}", row.mattr))
        .args(["-iterations=200", "-noalias"])
        .args(row.flags)
        .arg(&file)
        .output()
        .map_err(|e| format!("llvm-mca-19: {e} (install llvm-19: bash .ci/install-deps)"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).lines().take(3).collect::<Vec<_>>().join(" "));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| -> Option<f64> {
        text.lines().find(|l| l.starts_with(name))?.split(':').nth(1)?.trim().parse().ok()
    };
    let (cycles, iters) =
        (field("Total Cycles").ok_or("no Total Cycles")?, field("Iterations").ok_or("no Iterations")?);
    Ok(cycles / iters)
}

/// Modelled cycles per byte of a row.
fn cycles_per_byte(row: &Row, listing: &str) -> Result<f64, String> {
    let comment = if row.triple == "aarch64" { "//" } else { "#" };
    let mut cycles = mca(row, &extract(listing, row.label, comment)?)?;
    if let Some((inner, trips)) = row.inner {
        cycles += f64::from(trips - 1) * mca(row, &extract(listing, inner, comment)?)?;
    }
    Ok(cycles / f64::from(row.bytes))
}

/// Prints the modelled table.
pub fn run(root: &Path) -> Result<(), String> {
    println!(
        "Modelled with llvm-mca-19 (a model, not a measurement): cycles per byte of each hot loop in steady state."
    );
    println!("{:<20} {:<16} {:>7} {:>8} {:>7}  notes", "kernel", "CPU model", "B/iter", "c/B", "target");
    let mut failures = Vec::new();
    for row in ROWS {
        let listing = std::fs::read_to_string(root.join("generated").join(row.listing)).map_err(|e| e.to_string())?;
        let cpb = cycles_per_byte(row, &listing);
        match cpb {
            Ok(c) => {
                let target = row.target.map(|t| format!("<= {t}")).unwrap_or_default();
                let miss = row.target.is_some_and(|t| c > t);
                println!(
                    "{:<20} {:<16} {:>7} {:>8.3} {:>7}  {}{}",
                    row.what,
                    row.cpu,
                    row.bytes,
                    c,
                    target,
                    if miss { "MISSES TARGET; " } else { "" },
                    row.note
                );
            }
            Err(e) => failures.push(format!("{} on {}: {e}", row.what, row.cpu)),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}
