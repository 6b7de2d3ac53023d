//! Choices the JIT makes by measurement rather than by feature bits.

use std::time::{Duration, Instant};

/// The median time of each candidate over `runs` rounds, the candidates taking turns within a round (so a
/// change of clock or load during the race hits all of them alike). One untimed warm-up round first.
pub(crate) fn race<const N: usize>(candidates: &mut [&mut dyn FnMut(); N], runs: usize) -> [Duration; N] {
    for c in candidates.iter_mut() {
        c();
    }
    let mut times: [Vec<Duration>; N] = std::array::from_fn(|_| Vec::with_capacity(runs));
    for _ in 0..runs {
        for (c, t) in candidates.iter_mut().zip(&mut times) {
            let start = Instant::now();
            c();
            t.push(start.elapsed());
        }
    }
    times.map(|mut t| {
        t.sort();
        t[t.len() / 2]
    })
}

/// MB/s of `bytes` in `t`.
pub(crate) fn mb_per_s(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / t.as_secs_f64().max(1e-12) / 1e6
}
