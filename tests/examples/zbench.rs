use asmgen_runtime::Ghash;
use std::time::Instant;
fn main() {
    let h = [7u8; 16];
    let data = vec![0x5au8; 8192];
    let backends: Vec<String> = std::env::args().skip(1).collect();
    for &len in &[64usize, 256, 512, 1024, 8192] {
        let iters = (1 << 20) / len;
        let mut line = format!("{len:5}");
        for be in &backends {
            let mut g = Ghash::with_backend(&h, be).unwrap();
            let mut best = f64::MAX;
            for _ in 0..60 {
                let t = Instant::now();
                for _ in 0..iters {
                    g.update_padded(std::hint::black_box(&data[..len]));
                }
                let ns = t.elapsed().as_nanos() as f64 / (iters * len) as f64;
                best = best.min(ns);
            }
            std::hint::black_box(g.finalize());
            line += &format!(" | {be}: {:.3} c/B", best * 3.75);
        }
        println!("{line}");
    }
}
