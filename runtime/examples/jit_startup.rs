//! The JIT's startup measured as docs/PERFORMANCE.md reports it: `Jit::host` run many times in one process
//! (after one warm-up run, whose times are printed too: a process's real startup), minimum, lower quartile and median of each phase;
//! then what it leaves to first use (`Jit::deferred`), once.
//!
//! `cargo run --release -p asmgen-runtime --example jit_startup [runs]` (400 runs unless told).

use asmgen_runtime::jit::{Jit, JitStats};
use std::time::Duration;

/// A phase of the startup: its name and how long it took in one run.
type Phase = (&'static str, fn(&JitStats) -> Duration);

fn main() {
    let runs: usize = std::env::args().nth(1).map_or(400, |a| a.parse().expect("runs: a number"));
    let first = match Jit::host() {
        Ok(j) => j,
        Err(e) => return println!("no JIT on this machine: {e}"),
    };
    let s = first.stats();
    println!("sets: {}; {} instructions, {} bytes", first.sets().join(", "), s.instructions, s.bytes);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "first run (cold: fresh pages, lazy statics): build {:.3} ms, lower {:.3} ms, map {:.3} ms, total {:.3} ms",
        ms(s.build),
        ms(s.lower),
        ms(s.map),
        ms(s.total())
    );
    drop(first);
    let stats: Vec<JitStats> = (0..runs).map(|_| Jit::host().expect("assembled once already").stats()).collect();
    let phases: [Phase; 4] =
        [("build", |s| s.build), ("lower", |s| s.lower), ("map", |s| s.map), ("total", |s| s.total())];
    for (name, f) in phases {
        let mut v: Vec<Duration> = stats.iter().map(f).collect();
        v.sort();
        let ms = |i: usize| v[i].as_secs_f64() * 1e3;
        println!(
            "{name:>5}: min {:.3} ms, lower quartile {:.3} ms, median {:.3} ms",
            ms(0),
            ms(v.len() / 4),
            ms(v.len() / 2)
        );
    }
    // What startup leaves to first use: assembled once per process, so timed once, cold.
    match Jit::deferred() {
        Ok(d) if !d.kernels().is_empty() => {
            let s = d.stats();
            println!(
                "deferred to first use: {} kernels, {} instructions, assembled in {:.3} ms (once per process)",
                d.kernels().len(),
                s.instructions,
                s.total().as_secs_f64() * 1e3
            );
        }
        Ok(_) => println!("deferred to first use: nothing"),
        Err(e) => println!("deferred to first use: not assembled ({e})"),
    }
}
