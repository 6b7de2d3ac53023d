//! The machine's limits the x86_64 zmm kernels are measured against (`cargo xtask bench limits`): each
//! instruction issued in twelve independent streams in a loop, so that only its throughput counts, and the
//! mixes of the kernels' inner loops the same way. Cycles per instruction at the core clock the run measured;
//! from them the floor of each kernel in cycles per byte. Needs AVX-512 (F, BW), VPCLMULQDQ and GFNI; elsewhere
//! it says so and measures nothing.

use std::time::Instant;

/// One loop: what it issues, how many of it per iteration, and the loop.
struct Stream {
    what: &'static str,
    per_iter: f64,
    run: unsafe fn(u64),
}

/// Defines `unsafe fn $name(n)`: `n` iterations of the instructions `$line` (each a template string of one or
/// more lines), on zmm16..zmm27 from zmm28/zmm29. Nothing reads what a stream writes: every instruction is
/// independent of every other, so only throughput counts.
macro_rules! stream {
    ($name:ident, $($line:expr),* $(,)?) => {
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,gfni,vpclmulqdq,vaes")]
        unsafe fn $name(n: u64) {
            // SAFETY (of the caller): the CPU has the features. The loop touches only the clobbered registers.
            unsafe {
                std::arch::asm!(
                    "2:",
                    $($line,)*
                    "sub {n}, 1",
                    "jnz 2b",
                    n = inout(reg) n => _,
                    out("zmm16") _, out("zmm17") _, out("zmm18") _, out("zmm19") _, out("zmm20") _,
                    out("zmm21") _, out("zmm22") _, out("zmm23") _, out("zmm24") _, out("zmm25") _,
                    out("zmm26") _, out("zmm27") _,
                    options(nostack, nomem),
                );
            }
        }
    };
}

/// Four `$op` into zmm24..zmm27 from the sources `$src`, as one template.
macro_rules! four {
    ($op:literal, $src:literal) => {
        concat!(
            $op, " zmm24, ", $src, "\n", $op, " zmm25, ", $src, "\n", $op, " zmm26, ", $src, "\n", $op, " zmm27, ",
            $src, "\n",
        )
    };
}

/// Defines `unsafe fn $name(n)`: twelve `$op` per iteration into `$reg`16..`$reg`27 (the register kind given
/// as `"zmm"`, `"ymm"` or `"xmm"`), from the sources `$src`.
macro_rules! twelve {
    ($name:ident, $op:literal, $reg:literal, $src:literal) => {
        stream!(
            $name,
            concat!($op, " ", $reg, "16, ", $src),
            concat!($op, " ", $reg, "17, ", $src),
            concat!($op, " ", $reg, "18, ", $src),
            concat!($op, " ", $reg, "19, ", $src),
            concat!($op, " ", $reg, "20, ", $src),
            concat!($op, " ", $reg, "21, ", $src),
            concat!($op, " ", $reg, "22, ", $src),
            concat!($op, " ", $reg, "23, ", $src),
            concat!($op, " ", $reg, "24, ", $src),
            concat!($op, " ", $reg, "25, ", $src),
            concat!($op, " ", $reg, "26, ", $src),
            concat!($op, " ", $reg, "27, ", $src),
        );
    };
}

twelve!(clmul_x, "vpclmulqdq", "xmm", "xmm28, xmm29, 0");
twelve!(clmul_y, "vpclmulqdq", "ymm", "ymm28, ymm29, 0");
twelve!(clmul_z, "vpclmulqdq", "zmm", "zmm28, zmm29, 0");
twelve!(gfni_z, "vgf2p8affineinvqb", "zmm", "zmm28, zmm29, 0");
twelve!(prold_z, "vprold", "zmm", "zmm28, 8");
twelve!(ternlog_z, "vpternlogd", "zmm", "zmm28, zmm29, 0x96");
twelve!(shufb_z, "vpshufb", "zmm", "zmm28, zmm29");
twelve!(xor_z, "vpxorq", "zmm", "zmm28, zmm29");

/// One SM4 round on a zmm group as the gfni-avx512 set writes it, as independent instructions: 3
/// `vgf2p8affineinvqb`, 3 byte rotations (`$rot` from `$src`), 4 `vpternlogd`.
macro_rules! sm4_round {
    ($rot:literal, $src:literal) => {
        concat!(
            "vgf2p8affineinvqb zmm16, zmm28, zmm29, 0\n",
            "vgf2p8affineinvqb zmm17, zmm28, zmm29, 0\n",
            "vgf2p8affineinvqb zmm18, zmm28, zmm29, 0\n",
            $rot,
            " zmm19, ",
            $src,
            "\n",
            $rot,
            " zmm20, ",
            $src,
            "\n",
            $rot,
            " zmm21, ",
            $src,
            "\n",
            four!("vpternlogd", "zmm28, zmm29, 0x96")
        )
    };
}

stream!(sm4_round_z, sm4_round!("vprold", "zmm28, 8"), sm4_round!("vprold", "zmm28, 8"));
stream!(sm4_round_shufb_z, sm4_round!("vpshufb", "zmm28, zmm29"), sm4_round!("vpshufb", "zmm28, zmm29"));

/// GCM fused, per 16 blocks: 32 SM4 rounds and 12 `vpclmulqdq` (the GHASH of 16 blocks); here 8 rounds and 3.
macro_rules! eight_rounds {
    () => {
        concat!(
            sm4_round!("vprold", "zmm28, 8"),
            sm4_round!("vprold", "zmm28, 8"),
            sm4_round!("vprold", "zmm28, 8"),
            sm4_round!("vprold", "zmm28, 8"),
            sm4_round!("vprold", "zmm28, 8"),
            sm4_round!("vprold", "zmm28, 8"),
            sm4_round!("vprold", "zmm28, 8"),
            sm4_round!("vprold", "zmm28, 8"),
        )
    };
}
stream!(
    gcm_mix_z,
    eight_rounds!(),
    "vpclmulqdq zmm24, zmm28, zmm29, 0",
    "vpclmulqdq zmm25, zmm28, zmm29, 0",
    "vpclmulqdq zmm26, zmm28, zmm29, 0",
);

/// GHASH (vpclmul-avx512), two groups of four blocks: 3 `vpclmulqdq` (Karatsuba), the half-sums' `vpshufd`,
/// and four `vpxorq` each.
macro_rules! ghash_group {
    () => {
        concat!(
            "vpclmulqdq zmm16, zmm28, zmm29, 0\n",
            "vpclmulqdq zmm17, zmm28, zmm29, 0\n",
            "vpclmulqdq zmm18, zmm28, zmm29, 0\n",
            "vpshufd zmm19, zmm28, 0x4e\n",
            four!("vpxorq", "zmm28, zmm29"),
        )
    };
}
stream!(ghash_group_z, ghash_group!(), ghash_group!());

/// Two GHASH groups as the zmm kernels write them: each group's data made ready by `$ready` (one template), 3
/// `vpclmulqdq` each, and the products of the pair added to the sums by three `vpternlogq`.
macro_rules! ghash_pair {
    ($ready:expr) => {
        concat!(
            $ready,
            $ready,
            "vpclmulqdq zmm16, zmm28, zmm29, 0x00\n",
            "vpclmulqdq zmm17, zmm28, zmm29, 0x11\n",
            "vpclmulqdq zmm18, zmm28, zmm29, 0x00\n",
            "vpclmulqdq zmm19, zmm28, zmm29, 0x00\n",
            "vpclmulqdq zmm20, zmm28, zmm29, 0x11\n",
            "vpclmulqdq zmm21, zmm28, zmm29, 0x00\n",
            "vpternlogq zmm22, zmm28, zmm29, 0x96\n",
            "vpternlogq zmm23, zmm28, zmm29, 0x96\n",
            "vpternlogq zmm24, zmm28, zmm29, 0x96\n",
        )
    };
}
// GHASH today: the byte reversal (`vpshufb`), the half-sums by `vpshufd` and `vpxorq`.
stream!(
    ghash_pair_shufb_z,
    ghash_pair!("vpshufb zmm25, zmm28, zmm29\nvpshufd zmm26, zmm28, 0x4e\nvpxorq zmm27, zmm28, zmm29\n")
);
// GHASH in POLYVAL's bit order: the half-sums from the data 8 bytes on (an xor), both reversed bytewise by GFNI.
stream!(
    ghash_pair_gfni_z,
    ghash_pair!(
        "vpxorq zmm25, zmm28, zmm29\nvgf2p8affineqb zmm26, zmm28, zmm29, 0\nvgf2p8affineqb zmm27, zmm28, zmm29, 0\n"
    )
);
// POLYVAL: the half-sums' xor alone.
stream!(polyval_pair_z, ghash_pair!("vpxorq zmm25, zmm28, zmm29\n"));

/// Defines `unsafe fn $name(n)`: 12 zmm `vpclmulqdq` beside twelve `$op` from `$src` (none without them).
macro_rules! clmul_beside {
    ($name:ident $(, $op:literal, $src:literal)?) => {
        stream!(
            $name,
            four!("vpclmulqdq", "zmm28, zmm29, 0"),
            four!("vpclmulqdq", "zmm28, zmm29, 0"),
            four!("vpclmulqdq", "zmm28, zmm29, 0"),
            $(
                concat!(
                    $op, " zmm16, ", $src, "\n", $op, " zmm17, ", $src, "\n", $op, " zmm18, ", $src, "\n",
                    $op, " zmm19, ", $src, "\n", $op, " zmm20, ", $src, "\n", $op, " zmm21, ", $src, "\n",
                    $op, " zmm22, ", $src, "\n", $op, " zmm23, ", $src, "\n",
                ),
                four!($op, $src),
            )?
        );
    };
}

clmul_beside!(clmul_base);
clmul_beside!(clmul_gfni, "vgf2p8affineqb", "zmm28, zmm29, 0");
clmul_beside!(clmul_prold, "vprold", "zmm28, 8");
clmul_beside!(clmul_shufb, "vpshufb", "zmm28, zmm29");
clmul_beside!(clmul_xor, "vpxorq", "zmm28, zmm29");

/// The single-instruction streams.
const STREAMS: &[Stream] = &[
    Stream { what: "vpclmulqdq xmm", per_iter: 12.0, run: clmul_x },
    Stream { what: "vpclmulqdq ymm", per_iter: 12.0, run: clmul_y },
    Stream { what: "vpclmulqdq zmm", per_iter: 12.0, run: clmul_z },
    Stream { what: "vgf2p8affineinvqb zmm", per_iter: 12.0, run: gfni_z },
    Stream { what: "vprold zmm", per_iter: 12.0, run: prold_z },
    Stream { what: "vpternlogd zmm", per_iter: 12.0, run: ternlog_z },
    Stream { what: "vpshufb zmm", per_iter: 12.0, run: shufb_z },
    Stream { what: "vpxorq zmm", per_iter: 12.0, run: xor_z },
];

/// Defines `unsafe fn $name(n)`: the pipes the SM4 rounds fill, 6 GFNI and 6 `vprold`, beside four `$op` from
/// `$src` (none without them).
macro_rules! pipe_stream {
    ($name:ident $(, $op:literal, $src:literal)?) => {
        stream!(
            $name,
            "vgf2p8affineinvqb zmm16, zmm28, zmm29, 0",
            "vgf2p8affineinvqb zmm17, zmm28, zmm29, 0",
            "vgf2p8affineinvqb zmm18, zmm28, zmm29, 0",
            "vgf2p8affineinvqb zmm19, zmm28, zmm29, 0",
            "vgf2p8affineinvqb zmm20, zmm28, zmm29, 0",
            "vgf2p8affineinvqb zmm21, zmm28, zmm29, 0",
            "vprold zmm22, zmm28, 8",
            "vprold zmm23, zmm28, 8",
            "vprold zmm24, zmm28, 8",
            "vprold zmm25, zmm28, 8",
            "vprold zmm26, zmm28, 8",
            "vprold zmm27, zmm28, 8",
            $(four!($op, $src),)?
        );
    };
}

pipe_stream!(pipe_base);
pipe_stream!(pipe_clmul, "vpclmulqdq", "zmm28, zmm29, 0");
pipe_stream!(pipe_shufb, "vpshufb", "zmm28, zmm29");
pipe_stream!(pipe_shift, "vpslldq", "zmm28, 1");
pipe_stream!(pipe_slld, "vpslld", "zmm28, 8");
pipe_stream!(pipe_unpck, "vpunpckldq", "zmm28, zmm29");
pipe_stream!(pipe_ternlog, "vpternlogd", "zmm28, zmm29, 0x96");

/// Cycles per iteration of `run`: the fastest of five timings of `iters` iterations, at the fastest clock of
/// `ghz` and the add chains timed between them (a busy machine shows as a slower chain, never a faster one).
fn cycles(run: unsafe fn(u64), iters: u64, ghz: f64) -> f64 {
    // SAFETY: `print` checked the features before any stream runs.
    unsafe { run(iters / 10) };
    let (mut clock, mut best) = (ghz, f64::MAX);
    for _ in 0..5 {
        clock = clock.max(super::clock_sample().unwrap_or(0.0));
        let t = Instant::now();
        // SAFETY: as above.
        unsafe { run(iters) };
        best = best.min(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    best * clock
}

/// Whether this CPU runs the streams.
fn supported() -> bool {
    use std::arch::is_x86_feature_detected as d;
    d!("avx512f") && d!("avx512bw") && d!("avx512vl") && d!("gfni") && d!("vpclmulqdq") && d!("vaes")
}

/// Prints the limits at core clock `ghz` (GHz).
pub fn print(ghz: Option<f64>) {
    let Some(ghz) = ghz.filter(|_| supported()) else {
        println!("limits: need AVX-512 (F, BW, VL), VPCLMULQDQ, GFNI, VAES and a calibrated clock; none measured");
        return;
    };
    const ITERS: u64 = 2_000_000;
    println!("limits at {ghz:.2} GHz: cycles per instruction, twelve independent streams");
    for s in STREAMS {
        println!("  {:<24} {:>6.2}", s.what, cycles(s.run, ITERS, ghz) / s.per_iter);
    }
    // The SM4 round (gfni-avx512): 3 vgf2p8affineinvqb, 3 vprold, 4 vpternlogd per 16 blocks (256 bytes).
    let round = cycles(sm4_round_z, ITERS, ghz) / 2.0;
    println!(
        "  SM4 round mix (3 GFNI, 3 vprold, 4 vpternlogd): {round:.2} cycles per 16 blocks; 32 rounds: {:.3} c/B",
        32.0 * round / 256.0
    );
    // The same round with its byte rotations as vpshufb (a dword rotated by 8, 16 or 24 bits is a byte shuffle).
    let shufb = cycles(sm4_round_shufb_z, ITERS, ghz) / 2.0;
    println!(
        "  SM4 round mix (3 GFNI, 3 vpshufb, 4 vpternlogd): {shufb:.2} cycles per 16 blocks; 32 rounds: {:.3} c/B",
        32.0 * shufb / 256.0
    );
    // GCM fused: per 16 blocks, 32 SM4 rounds and the GHASH of 16 blocks (12 vpclmulqdq), here 8 rounds and 3.
    let gcm = cycles(gcm_mix_z, ITERS, ghz) * 4.0;
    println!(
        "  GCM mix (32 SM4 rounds and 12 vpclmulqdq per 16 blocks): {gcm:.1} cycles per 16 blocks, {:.3} c/B",
        gcm / 256.0
    );
    // What else takes the pipes of the SM4 rounds' GFNI and vprold: each of 4 other instructions beside 12 of
    // theirs, as cycles added (GHASH's and GCM's multiplies, the byte reversals, the byte and dword shifts, the
    // transposes, the xors; the rounds' own vpternlogd too).
    let base = cycles(pipe_base, ITERS, ghz);
    let added = |run| (cycles(run, ITERS, ghz) - base) / 4.0;
    println!(
        "  beside 12 GFNI and vprold (zmm), cycles each adds: vpclmulqdq {:.2}, vpshufb {:.2}, vpslldq {:.2}, \
         vpslld {:.2}, vpunpckldq {:.2}, vpternlogd {:.2}",
        added(pipe_clmul),
        added(pipe_shufb),
        added(pipe_shift),
        added(pipe_slld),
        added(pipe_unpck),
        added(pipe_ternlog),
    );
    // A zmm batch's floor: its rounds and the maps into and out of the GFNI domain (8 GFNI per 16 blocks, on
    // the rounds' pipes); the loads, transposes and stores not counted.
    let gfni = cycles(gfni_z, ITERS, ghz) / 12.0;
    println!("  SM4 rounds and domain maps: {:.3} c/B", (32.0 * round + 8.0 * gfni) / 256.0);
    // GHASH (vpclmul-avx512): per four blocks (64 bytes) 3 vpclmulqdq (Karatsuba), the data's half-sums
    // (vpshufd, vpxorq) and three sums (vpxorq).
    let clmul = cycles(clmul_z, ITERS, ghz) / 12.0;
    let group = cycles(ghash_group_z, ITERS, ghz) / 2.0;
    println!(
        "  GHASH: 3 vpclmulqdq per 64 bytes: {:.3} c/B; with the group's shuffle and xors: {group:.2} cycles, {:.3} c/B",
        3.0 * clmul / 64.0,
        group / 64.0
    );
    // The same per group, two groups' sums added by vpternlogq as the kernels do, by how the data is made ready.
    let pair = |run| cycles(run, ITERS, ghz) / 2.0;
    println!(
        "  GHASH group of a pair: {:.2} cycles with vpshufb and vpshufd (GHASH today), {:.2} with two GFNI \
         (POLYVAL's bit order), {:.2} with neither (POLYVAL)",
        pair(ghash_pair_shufb_z),
        pair(ghash_pair_gfni_z),
        pair(polyval_pair_z)
    );
    // What takes the pipes of vpclmulqdq: twelve of each beside twelve multiplies, as cycles added.
    let base = cycles(clmul_base, ITERS, ghz);
    let beside = |run| cycles(run, ITERS, ghz) - base;
    println!(
        "  beside 12 vpclmulqdq (zmm, {base:.1} cycles), 12 of each add: vgf2p8affineqb {:.2}, vprold {:.2}, \
         vpshufb {:.2}, vpxorq {:.2}",
        beside(clmul_gfni),
        beside(clmul_prold),
        beside(clmul_shufb),
        beside(clmul_xor)
    );
}
