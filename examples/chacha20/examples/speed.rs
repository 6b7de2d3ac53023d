//! Throughput of each backend on this machine: `cargo run --release --example speed`.

use chacha20_asmgen::{chacha20_with, Backend};
use std::time::Instant;

fn main() {
    let (key, nonce) = ([1u8; 32], [2u8; 12]);
    for len in [64, 512, 16 * 1024] {
        let input = vec![0u8; len];
        let mut output = vec![0u8; len];
        for &backend in Backend::available() {
            // About 256 MiB per measurement, at least 10 runs.
            let runs = (256 << 20) / len;
            let start = Instant::now();
            for i in 0..runs {
                chacha20_with(backend, &key, &nonce, (i as u32) & 0xffff, &input, &mut output);
            }
            let secs = start.elapsed().as_secs_f64();
            let mb_s = (runs * len) as f64 / secs / 1e6;
            let name = format!("{backend:?}");
            println!("{len:>6} bytes  {name:<8}  {mb_s:>8.0} MB/s");
        }
    }
}
