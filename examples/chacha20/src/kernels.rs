//! ChaCha20 (RFC 8439) kernels, written with asmgen's builder.
//!
//! Three kernels: AVX2 on x86_64 (eight blocks at a time), NEON on aarch64 (four), the base integer ISA on
//! riscv64 (one). All have OpenSSL's `ChaCha20_ctr32` signature:
//!
//! ```c
//! void f(uint8_t *out, const uint8_t *in, size_t len, const uint32_t key[8], const uint32_t counter[4]);
//! ```
//!
//! `key` is the 256-bit key as eight little-endian words; `counter[0]` is the 32-bit block counter of the
//! first block and `counter[1..4]` the 96-bit nonce as three little-endian words. The kernels encrypt (or
//! decrypt: it is the same xor) the first `floor(len / 64)` whole blocks of `in` into `out` and leave the
//! last `len % 64` bytes alone: the caller handles a partial block (the Rust wrapper runs it through a
//! 64-byte buffer). The block counter wraps modulo 2^32 (RFC 8439 forbids reaching that). `in` and `out`
//! are equal or do not overlap.
//!
//! The state is the RFC's 4x4 matrix of words:
//!
//! ```text
//!  0  1  2  3     constants "expand 32-byte k"
//!  4  5  6  7     key words 0-3
//!  8  9 10 11     key words 4-7
//! 12 13 14 15     block counter, nonce words 0-2
//! ```
//!
//! The vector kernels keep one row of the matrix per vector register, lane `j` of every row belonging to
//! block `j`: a quarter round on four rows is then the same quarter round on every block at once, and blocks
//! never meet until the end, where each group of four rows is transposed back into the blocks' byte order.
//!
//! Constant time: the only branches depend on `len` (public) and on loop counters; every address is a
//! pointer argument, a constant or the stack frame plus a fixed offset.

use asmgen::isa::aarch64::{self as a64, Aarch64, V, X};
use asmgen::isa::riscv64::{self as rv, Riscv64};
use asmgen::isa::x86_64::{mem, regs::*, rip, rip_off, Mem, X86Feature, Xmm, Ymm, X86_64};
use asmgen::{Abi, Builder, CType, Function, GenError, Label};

/// "expand 32-byte k": the first row of the state, four little-endian words.
pub const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// Bytes of a ChaCha20 block.
pub const BLOCK_BYTES: usize = 64;

/// The kernels' contract, for the C header.
pub const CONTRACT: &str =
    "Every function: out = in ^ ChaCha20 key stream for the floor(len / 64) whole blocks of in.\n\
    The last len % 64 bytes are neither read nor written: the caller encrypts a partial last block\n\
    itself (the Rust wrapper runs it through a 64-byte buffer). key: eight little-endian words.\n\
    counter[0]: the first block's counter, wrapping modulo 2^32; counter[1..4]: the nonce.\n\
    in and out are equal or do not overlap.";

/// The little-endian bytes of `words`.
fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The byte shuffle that rotates each 32-bit word of a 16-byte lane left by `8 * n` bits (`vpshufb`, `tbl`):
/// result byte `i` of a word is source byte `i - n` (mod 4).
fn rotate_bytes(n: usize) -> [u8; 16] {
    std::array::from_fn(|i| (4 * (i / 4) + (i % 4 + 4 - n) % 4) as u8)
}

/// The four quarter rounds of a column round, then of a diagonal round: `(a, b, c, d)` rows.
const COLUMNS: [[usize; 4]; 4] = [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]];
const DIAGONALS: [[usize; 4]; 4] = [[0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]];

// ---------------------------------------------------------------------------------------------------------
// x86_64, AVX2: eight blocks per iteration.
// ---------------------------------------------------------------------------------------------------------

type B64 = Builder<X86_64>;

/// Blocks per iteration of the AVX2 kernel (eight dwords per ymm register).
pub const AVX2_BLOCKS: usize = 8;

// The stack frame (32-byte aligned, so that `vmovdqa` can reload a ymm spill):
/// The initial state of the current eight blocks, one 32-byte row per state word (what the rounds' result
/// is added to; row 12, the counters, moves on by eight after each batch).
const INIT: i32 = 0;
/// Home slots of the rows that do not fit in registers: the four `c` rows (8-11) during the rounds, and
/// rows 8-15 while rows 0-7 are transposed at the end.
const WORK: i32 = 16 * 32;
/// The key stream of the last, partial batch (eight blocks, 512 bytes), xored into the output block by block.
const KEY_STREAM: i32 = 32 * 32;
/// The frame's size: 1,536 bytes, wiped before the kernel returns (it holds the key).
const FRAME: i32 = KEY_STREAM + 512;

/// Where row `r` of the initial state and its home slot live in the frame.
fn init_row(frame: &asmgen::StackFrame<X86_64>, r: usize) -> Mem {
    frame.at(INIT + 32 * r as i32)
}
fn work_row(frame: &asmgen::StackFrame<X86_64>, r: usize) -> Mem {
    frame.at(WORK + 32 * r as i32)
}

/// The ymm registers of the rounds. Rows 0-7 (`a`, `b`) and 12-15 (`d`) stay in ymm0-ymm7 and ymm12-ymm15.
/// Sixteen rows and a temporary do not fit in sixteen registers, so the four `c` rows (8-11) take turns in
/// ymm8 and ymm9, two at a time, the other two in their home slots; ymm10 and ymm11 are the temporaries of
/// the rotations by 12 and 7 (two quarter rounds run interleaved).
struct Avx2Regs {
    /// The `c` rows in ymm8 and ymm9 now.
    c_in: [usize; 2],
}

impl Avx2Regs {
    const C: [Ymm; 2] = [Ymm(8), Ymm(9)];
    const T: [Ymm; 2] = [Ymm(10), Ymm(11)];

    /// The register holding row `r` (a `c` row must be in a register).
    fn row(&self, r: usize) -> Ymm {
        match r {
            0..=7 | 12..=15 => Ymm(r as u8),
            _ => {
                let i = self.c_in.iter().position(|&c| c == r).expect("the c row is in a register");
                Self::C[i]
            }
        }
    }

    /// Makes `want` the `c` rows in registers: the ones there go to their home slots, `want` come back.
    fn swap_c(&mut self, b: &mut B64, frame: &asmgen::StackFrame<X86_64>, want: [usize; 2]) {
        if self.c_in == want {
            return;
        }
        b.comment(format_args!(
            "Rows {} and {} to the stack, rows {} and {} back.",
            self.c_in[0], self.c_in[1], want[0], want[1]
        ));
        for (row, reg) in self.c_in.into_iter().zip(Self::C) {
            b.vmovdqu(work_row(frame, row), reg);
        }
        for (row, reg) in want.into_iter().zip(Self::C) {
            b.vmovdqa(reg, work_row(frame, row));
        }
        self.c_in = want;
    }
}

/// The constants of the AVX2 kernel (32-byte aligned, one 16-byte pattern twice where it is per lane).
struct Avx2Consts {
    sigma: Label,
    lanes: Label,
    eight: Label,
    rot16: Label,
    rot8: Label,
}

impl Avx2Consts {
    fn new(b: &mut B64) -> Self {
        let twice = |x: [u8; 16]| [x, x].concat();
        Avx2Consts {
            sigma: b.constant("chacha20_sigma", 16, "\"expand 32-byte k\"", &le_bytes(&SIGMA)),
            lanes: b.constant(
                "chacha20_lanes",
                32,
                "0..7: block j of a batch gets counter + j",
                &le_bytes(&[0, 1, 2, 3, 4, 5, 6, 7]),
            ),
            eight: b.constant(
                "chacha20_eight",
                32,
                "8 in every dword: the counters of the next batch",
                &le_bytes(&[8; 8]),
            ),
            rot16: b.constant("chacha20_rot16", 32, "vpshufb: rotate each dword left by 16", &twice(rotate_bytes(2))),
            rot8: b.constant("chacha20_rot8", 32, "vpshufb: rotate each dword left by 8", &twice(rotate_bytes(1))),
        }
    }
}

/// Two quarter rounds, `qa` and `qb` (rows `[a, b, c, d]`), on eight blocks, their instructions interleaved:
///
/// ```text
/// a += b; d ^= a; d <<<= 16;
/// c += d; b ^= c; b <<<= 12;
/// a += b; d ^= a; d <<<= 8;
/// c += d; b ^= c; b <<<= 7;
/// ```
///
/// Rotations by 16 and 8 move whole bytes (`vpshufb`); by 12 and 7 they are two shifts and an or.
fn avx2_quarter_rounds(b: &mut B64, regs: &Avx2Regs, k: &Avx2Consts, qa: [usize; 4], qb: [usize; 4]) {
    let q = [qa, qb].map(|q| q.map(|r| regs.row(r)));
    for (shuffle, shift) in [(&k.rot16, 12), (&k.rot8, 7)] {
        for [a, bb, _, _] in q {
            b.vpaddd(a, a, bb);
        }
        for [a, _, _, d] in q {
            b.vpxor(d, d, a);
        }
        for [_, _, _, d] in q {
            b.vpshufb(d, d, rip(shuffle));
        }
        for [_, _, c, d] in q {
            b.vpaddd(c, c, d);
        }
        for [_, bb, c, _] in q {
            b.vpxor(bb, bb, c);
        }
        for ([_, bb, _, _], t) in q.into_iter().zip(Avx2Regs::T) {
            b.vpslld(t, bb, shift);
            b.vpsrld(bb, bb, 32 - shift);
            b.vpor(bb, bb, t);
        }
    }
}

/// Transposes four rows `[a, b, c, d]` (eight dwords each: word `w` of blocks 0-7) in each 128-bit lane with
/// the temporaries `t`: the returned registers hold, per block pair `(k, k + 4)`, words `w..w + 4` of block
/// `k` in the low lane and of block `k + 4` in the high lane.
fn avx2_transpose4(b: &mut B64, [a, bb, c, d]: [Ymm; 4], [t0, t1]: [Ymm; 2]) -> [Ymm; 4] {
    b.vpunpckldq(t0, a, bb); // a0 b0 a1 b1
    b.vpunpckhdq(t1, a, bb); // a2 b2 a3 b3
    b.vpunpckldq(a, c, d); // c0 d0 c1 d1
    b.vpunpckhdq(bb, c, d); // c2 d2 c3 d3
    b.vpunpcklqdq(c, t0, a); // a0 b0 c0 d0: block 0
    b.vpunpckhqdq(d, t0, a); // block 1
    b.vpunpcklqdq(t0, t1, bb); // block 2
    b.vpunpckhqdq(t1, t1, bb); // block 3
    [c, d, t0, t1]
}

/// Where the AVX2 kernel puts a batch's key stream.
#[derive(Clone, Copy, PartialEq)]
enum Sink {
    /// Xored with `in` into `out` (a whole batch of eight blocks).
    XorOut,
    /// Into the frame's key stream area (the last, partial batch).
    Frame,
}

/// Adds the initial state to rows 0-7 (`half` 0, block bytes 0-31) or 8-15 (`half` 1, bytes 32-63), held in
/// ymm0-ymm7, transposes them into block order and writes 32 bytes of each of the eight blocks.
fn avx2_half(b: &mut B64, frame: &asmgen::StackFrame<X86_64>, half: usize, sink: Sink) {
    let rows: [Ymm; 8] = std::array::from_fn(|i| Ymm(i as u8));
    for (i, y) in rows.into_iter().enumerate() {
        b.vpaddd(y, y, init_row(frame, 8 * half + i));
    }
    let lo = avx2_transpose4(b, [rows[0], rows[1], rows[2], rows[3]], [Ymm(8), Ymm(9)]);
    let hi = avx2_transpose4(b, [rows[4], rows[5], rows[6], rows[7]], [Ymm(10), Ymm(11)]);
    let (x, y) = (Ymm(12), Ymm(13));
    for k in 0..4 {
        b.comment(format_args!("Bytes {}-{} of blocks {k} and {}.", 32 * half, 32 * half + 31, k + 4));
        b.vinserti128(x, lo[k], hi[k].x(), 1); // block k: words of rows 0-3 (or 8-11), then 4-7 (12-15)
        b.vextracti128(Xmm(y.0), lo[k], 1);
        b.vinserti128(y, hi[k], Xmm(y.0), 0); // block k + 4
        for (block, v) in [(k, x), (k + 4, y)] {
            let at = (64 * block + 32 * half) as i32;
            match sink {
                Sink::XorOut => {
                    b.vpxor(v, v, mem(RSI, at));
                    b.vmovdqu(mem(RDI, at), v);
                }
                Sink::Frame => {
                    b.vmovdqu(frame.at(KEY_STREAM + at), v);
                }
            }
        }
    }
}

/// Twenty rounds on the eight blocks whose initial state is in the frame, then the key stream to `sink`.
fn avx2_batch(b: &mut B64, frame: &asmgen::StackFrame<X86_64>, k: &Avx2Consts, sink: Sink) {
    b.comment("Load the state: rows 0-7 and 12-15 in ymm0-7 and ymm12-15, rows 8 and 9 in ymm8 and ymm9,");
    b.comment("rows 10 and 11 in their home slots.");
    for r in [10, 11] {
        b.vmovdqa(Ymm(0), init_row(frame, r));
        b.vmovdqu(work_row(frame, r), Ymm(0));
    }
    for r in (0..10).chain(12..16) {
        b.vmovdqa(Ymm(r as u8), init_row(frame, r));
    }
    let mut regs = Avx2Regs { c_in: [8, 9] };
    b.mov(R9, 10);
    let double_round = b.label("double_round");
    b.align(4);
    b.bind(&double_round);
    b.comment("Column round.");
    avx2_quarter_rounds(b, &regs, k, COLUMNS[0], COLUMNS[1]);
    regs.swap_c(b, frame, [10, 11]);
    avx2_quarter_rounds(b, &regs, k, COLUMNS[2], COLUMNS[3]);
    b.comment("Diagonal round.");
    avx2_quarter_rounds(b, &regs, k, DIAGONALS[0], DIAGONALS[1]);
    regs.swap_c(b, frame, [8, 9]);
    avx2_quarter_rounds(b, &regs, k, DIAGONALS[2], DIAGONALS[3]);
    b.sub(R9, 1);
    b.jnz(&double_round);

    b.comment("Rows 8-15 to their home slots; rows 0-7 first: add the input, transpose, write.");
    for (i, r) in regs.c_in.into_iter().enumerate() {
        b.vmovdqu(work_row(frame, r), Avx2Regs::C[i]);
    }
    for r in 12..16 {
        b.vmovdqu(work_row(frame, r), Ymm(r as u8));
    }
    avx2_half(b, frame, 0, sink);
    b.comment("Then rows 8-15.");
    for r in 8..16 {
        b.vmovdqa(Ymm(r as u8 - 8), work_row(frame, r));
    }
    avx2_half(b, frame, 1, sink);
}

/// `chacha20_avx2(out, in, len, key, counter)`: ChaCha20 on the whole blocks of `in`, eight at a time with
/// AVX2, the last one to seven blocks through the frame.
pub fn chacha20_avx2(abi: Abi) -> Result<Function<X86_64>, GenError> {
    let mut b = B64::new("chacha20_avx2", abi, &[X86Feature::Avx, X86Feature::Avx2]);
    b.doc("ChaCha20 (RFC 8439) with AVX2, eight blocks at a time: out = in ^ key stream, for the");
    b.doc("floor(len / 64) whole blocks of in; the last len % 64 bytes are left to the caller.");
    b.doc("counter[0] is the first block's counter (it wraps modulo 2^32), counter[1..4] the nonce.");
    let out = b.param("out", CType::BytePtr);
    let inp = b.param("inp", CType::ConstBytePtr);
    let len = b.param("len", CType::Size);
    let key = b.param("key", CType::ConstU32Ptr);
    let counter = b.param("counter", CType::ConstU32Ptr);
    assert_eq!([out, inp, len, key, counter], [RDI, RSI, RDX, RCX, R8], "the body names System V's registers");
    let frame = b.frame(FRAME as u32, 32);
    let k = Avx2Consts::new(&mut b);
    let done = b.label("done");
    let wipe = b.label("wipe");
    let batch = b.label("batch");
    let tail = b.label("tail");
    let tail_block = b.label("tail_block");

    b.comment("rdx: whole blocks left.");
    b.shr(len, 6);
    b.jz(&done);
    b.comment("The initial state of the first batch: each word broadcast to a row of eight dwords.");
    for r in 0..16 {
        let word = match r {
            0..=3 => rip_off(&k.sigma, 4 * r as i32),
            4..=11 => mem(key, 4 * (r as i32 - 4)),
            _ => mem(counter, 4 * (r as i32 - 12)),
        };
        b.vpbroadcastd(Ymm(0), word);
        if r == 12 {
            b.vpaddd(Ymm(0), Ymm(0), rip(&k.lanes));
        }
        b.vmovdqu(init_row(&frame, r), Ymm(0));
    }

    b.bind(&batch);
    b.cmp(len, AVX2_BLOCKS as i32);
    b.jb(&tail);
    avx2_batch(&mut b, &frame, &k, Sink::XorOut);
    b.comment("Next batch: pointers, blocks left, counters.");
    b.add(inp, 512);
    b.add(out, 512);
    b.vmovdqa(Ymm(0), init_row(&frame, 12));
    b.vpaddd(Ymm(0), Ymm(0), rip(&k.eight));
    b.vmovdqu(init_row(&frame, 12), Ymm(0));
    b.sub(len, AVX2_BLOCKS as i32);
    b.jmp(&batch);

    b.bind(&tail);
    b.comment("One to seven blocks left: a batch of key stream into the frame, xored in block by block.");
    b.test(len, len);
    b.jz(&wipe);
    avx2_batch(&mut b, &frame, &k, Sink::Frame);
    b.lea(RAX, frame.at(KEY_STREAM));
    b.bind(&tail_block);
    for h in [0, 32] {
        b.vmovdqa(Ymm(0), mem(RAX, h));
        b.vpxor(Ymm(0), Ymm(0), mem(inp, h));
        b.vmovdqu(mem(out, h), Ymm(0));
    }
    b.add(RAX, 64);
    b.add(inp, 64);
    b.add(out, 64);
    b.sub(len, 1);
    b.jnz(&tail_block);

    b.bind(&wipe);
    b.comment("Wipe the frame (key, state, key stream).");
    b.vpxor(Ymm(0), Ymm(0), Ymm(0));
    for off in (0..FRAME).step_by(32) {
        b.vmovdqu(frame.at(off), Ymm(0));
    }
    b.bind(&done);
    b.vzeroupper();
    b.finish()
}

// ---------------------------------------------------------------------------------------------------------
// aarch64, NEON: four blocks per iteration.
// ---------------------------------------------------------------------------------------------------------

type BA = Builder<Aarch64>;

/// Blocks per iteration of the NEON kernel (four words per vector register).
pub const NEON_BLOCKS: usize = 4;

/// v0-v15: the sixteen rows. v16-v19: the initial state, compact (sigma, key words 0-3, key words 4-7,
/// counter and nonce), each row's word broadcast from there with `dup`. v20: the counters of the current
/// four blocks; v21: four in every lane. v22: the `tbl` control rotating each word left by 8. v23-v26: the
/// temporaries (four quarter rounds run interleaved). v27-v30: a block of input.
const ROWS: [V; 16] =
    [V(0), V(1), V(2), V(3), V(4), V(5), V(6), V(7), V(8), V(9), V(10), V(11), V(12), V(13), V(14), V(15)];
const COMPACT: [V; 4] = [V(16), V(17), V(18), V(19)];
const COUNTERS: V = V(20);
const FOUR: V = V(21);
const ROT8: V = V(22);
const TMP: [V; 4] = [V(23), V(24), V(25), V(26)];
const INPUT: V = V(27);

/// Loads the address of a constant into `x`.
fn a64_addr(b: &mut BA, x: X, l: &Label) {
    b.adrp(x, l);
    b.add_lo12(x, x, l);
}

/// Four quarter rounds on four blocks, their instructions interleaved. Rotations: by 16 `rev32` on
/// halfwords, by 8 a `tbl` byte shuffle, by 12 and 7 a shift left and a shift right and insert (`sri`),
/// from the temporary holding `b ^ c`.
fn neon_quarter_rounds(b: &mut BA, quarter: [[usize; 4]; 4]) {
    let q = quarter.map(|q| q.map(|r| ROWS[r]));
    for (byte_rotate, shift) in [(false, 12), (true, 7)] {
        for [a, bb, _, _] in q {
            b.add_4s(a, a, bb);
        }
        for [a, _, _, d] in q {
            b.eor_16b(d, d, a);
        }
        for [_, _, _, d] in q {
            if byte_rotate {
                b.tbl_16b(d, d, ROT8);
            } else {
                b.rev32_8h(d, d);
            }
        }
        for [_, _, c, d] in q {
            b.add_4s(c, c, d);
        }
        for ([_, bb, c, _], t) in q.into_iter().zip(TMP) {
            b.eor_16b(t, bb, c);
        }
        for ([_, bb, _, _], t) in q.into_iter().zip(TMP) {
            b.shl_4s(bb, t, shift);
            b.sri_4s(bb, t, 32 - shift);
        }
    }
}

/// `dst = ` word `r` of the initial state in every lane (row 12: the four blocks' counters).
fn neon_initial_row(b: &mut BA, dst: V, r: usize) {
    if r == 12 {
        b.mov_16b(dst, COUNTERS);
    } else {
        b.dup_4s(dst, COMPACT[r / 4], (r % 4) as i32);
    }
}

/// `chacha20_neon(out, in, len, key, counter)`: ChaCha20 on the whole blocks of `in`, four at a time with
/// NEON; a last batch of one to three blocks stops after its last block.
pub fn chacha20_neon(abi: Abi) -> Result<Function<Aarch64>, GenError> {
    use a64::regs::*;
    let mut b = BA::new("chacha20_neon", abi, &[]);
    b.doc("ChaCha20 (RFC 8439) with NEON, four blocks at a time: out = in ^ key stream, for the");
    b.doc("floor(len / 64) whole blocks of in; the last len % 64 bytes are left to the caller.");
    b.doc("counter[0] is the first block's counter (it wraps modulo 2^32), counter[1..4] the nonce.");
    let out = b.param("out", CType::BytePtr);
    let inp = b.param("inp", CType::ConstBytePtr);
    let len = b.param("len", CType::Size);
    let key = b.param("key", CType::ConstU32Ptr);
    let counter = b.param("counter", CType::ConstU32Ptr);
    let sigma = b.constant("chacha20_sigma", 16, "\"expand 32-byte k\"", &le_bytes(&SIGMA));
    let lanes =
        b.constant("chacha20_lanes4", 16, "0..3: block j of a batch gets counter + j", &le_bytes(&[0, 1, 2, 3]));
    let four = b.constant("chacha20_four", 16, "4 in every word: the counters of the next batch", &le_bytes(&[4; 4]));
    let rot8 = b.constant("chacha20_rot8_16", 16, "tbl: rotate each word left by 8", &rotate_bytes(1));
    let done = b.label("done");
    let batch = b.label("batch");
    let double_round = b.label("double_round");

    b.comment("x2: whole blocks left.");
    b.lsr(len, len, 6);
    b.cbz(len, &done);
    b.comment("The initial state, compact: v16 sigma, v17-v18 the key, v19 counter and nonce.");
    a64_addr(&mut b, X9, &sigma);
    b.ldr(COMPACT[0], X9, 0);
    b.ldp(COMPACT[1], COMPACT[2], key, 0);
    b.ldr(COMPACT[3], counter, 0);
    a64_addr(&mut b, X9, &lanes);
    b.ldr(COUNTERS, X9, 0);
    b.dup_4s(TMP[0], COMPACT[3], 0);
    b.add_4s(COUNTERS, COUNTERS, TMP[0]);
    a64_addr(&mut b, X9, &four);
    b.ldr(FOUR, X9, 0);
    a64_addr(&mut b, X9, &rot8);
    b.ldr(ROT8, X9, 0);

    b.bind(&batch);
    b.comment("Row r of four blocks: word r of the initial state in every lane.");
    for (r, v) in ROWS.into_iter().enumerate() {
        neon_initial_row(&mut b, v, r);
    }
    b.movz(X9, 10);
    b.bind(&double_round);
    b.comment("Column round, diagonal round.");
    neon_quarter_rounds(&mut b, COLUMNS);
    neon_quarter_rounds(&mut b, DIAGONALS);
    b.subs(X9, X9, 1);
    b.b_ne(&double_round);

    b.comment("Add the initial state, transpose each group of four rows into block order.");
    for (r, v) in ROWS.into_iter().enumerate() {
        neon_initial_row(&mut b, TMP[0], r);
        b.add_4s(v, v, TMP[0]);
    }
    for g in 0..4 {
        let [a, bb, c, d] = [ROWS[4 * g], ROWS[4 * g + 1], ROWS[4 * g + 2], ROWS[4 * g + 3]];
        let [p, q, r, s] = TMP;
        b.uzp1_4s(p, a, bb); // a0 a2 b0 b2
        b.uzp2_4s(q, a, bb); // a1 a3 b1 b3
        b.uzp1_4s(r, c, d); // c0 c2 d0 d2
        b.uzp2_4s(s, c, d); // c1 c3 d1 d3
        b.uzp1_4s(a, p, r); // a0 b0 c0 d0: block 0
        b.uzp1_4s(bb, q, s); // block 1
        b.uzp2_4s(c, p, r); // block 2
        b.uzp2_4s(d, q, s); // block 3
    }
    b.comment("Block j is words 4g..4g+3 from register 4g+j: xor with the input, store; stop after the last.");
    let input = [INPUT, V(INPUT.0 + 1), V(INPUT.0 + 2), V(INPUT.0 + 3)];
    for j in 0..NEON_BLOCKS {
        b.ld1_4x16b_post(INPUT, inp);
        for (g, v) in input.into_iter().enumerate() {
            b.eor_16b(v, v, ROWS[4 * g + j]);
        }
        b.st1_4x16b_post(INPUT, out);
        b.subs(len, len, 1);
        b.b_eq(&done);
    }
    b.add_4s(COUNTERS, COUNTERS, FOUR);
    b.b(&batch);
    b.bind(&done);
    b.finish()
}

// ---------------------------------------------------------------------------------------------------------
// riscv64, base ISA: one block per iteration.
// ---------------------------------------------------------------------------------------------------------

/// The registers of the riscv64 kernel: the sixteen words of one block's state (`s0`-`s11`, which the
/// prologue saves, and `a5`-`a7`, `t6`).
const RV_STATE: [rv::X; 16] = {
    use rv::regs::*;
    [S0, S1, S2, S3, S4, S5, S6, S7, S8, S9, S10, S11, A5, A6, A7, T6]
};

/// `chacha20_rv64(out, in, len, key, counter)`: ChaCha20 on the whole blocks of `in`, one at a time, with
/// the base integer ISA (RV64I).
///
/// A register holds a word in its low 32 bits; what is above them is left as it falls (64-bit `add`
/// carries into it) and never read: stores (`sw`) write the low 32 bits, and a rotation masks the word
/// before shifting it right.
pub fn chacha20_rv64(abi: Abi) -> Result<Function<Riscv64>, GenError> {
    use rv::mem;
    use rv::regs::*;
    let mut b = Builder::<Riscv64>::new("chacha20_rv64", abi, &[]);
    b.doc("ChaCha20 (RFC 8439) with the base integer ISA, one block at a time: out = in ^ key stream, for");
    b.doc("the floor(len / 64) whole blocks of in; the last len % 64 bytes are left to the caller.");
    b.doc("counter[0] is the first block's counter (it wraps modulo 2^32), counter[1..4] the nonce.");
    let out = b.param("out", CType::BytePtr);
    let inp = b.param("inp", CType::ConstBytePtr);
    let len = b.param("len", CType::Size);
    let key = b.param("key", CType::ConstU32Ptr);
    let counter = b.param("counter", CType::ConstU32Ptr);
    let sigma = b.constant("chacha20_sigma", 16, "\"expand 32-byte k\"", &le_bytes(&SIGMA));
    // t0-t2 temporaries, t3 the low-32-bit mask, t4 the round counter, t5 the block counter.
    let (mask, rounds, block) = (T3, T4, T5);
    let done = b.label("done");
    let next = b.label("block");
    let double_round = b.label("double_round");
    let x = RV_STATE;

    b.comment("a2: whole blocks left; t5: this block's counter; t3: 0xffffffff.");
    b.srli(len, len, 6);
    b.beqz(len, &done);
    b.lwu(block, mem(counter, 0));
    b.li(mask, -1);
    b.srli(mask, mask, 32);

    b.bind(&next);
    b.comment("The initial state.");
    b.lla(T0, &sigma);
    for (i, w) in x.into_iter().enumerate() {
        let at = 4 * i as i32;
        match i {
            0..=3 => b.lwu(w, mem(T0, at)),
            4..=11 => b.lwu(w, mem(key, at - 16)),
            12 => b.mv(w, block),
            _ => b.lwu(w, mem(counter, at - 48)),
        };
    }
    b.li(rounds, 10);
    b.bind(&double_round);
    for q in COLUMNS.into_iter().chain(DIAGONALS) {
        let [a, bb, c, d] = q.map(|r| x[r]);
        for (s, t, u, r) in [(a, bb, d, 16), (c, d, bb, 12), (a, bb, d, 8), (c, d, bb, 7)] {
            // s += t; u ^= s; u <<<= r
            b.add(s, s, t);
            b.xor(u, u, s);
            b.and(T0, u, mask);
            b.srli(T0, T0, 32 - r);
            b.slli(u, u, r);
            b.or(u, u, T0);
        }
    }
    b.addi(rounds, rounds, -1);
    b.bnez(rounds, &double_round);

    b.comment("Add the initial state, xor with the input, store.");
    b.lla(T0, &sigma);
    for (i, w) in x.into_iter().enumerate() {
        let at = 4 * i as i32;
        match i {
            0..=3 => b.lwu(T1, mem(T0, at)),
            4..=11 => b.lwu(T1, mem(key, at - 16)),
            12 => b.mv(T1, block),
            _ => b.lwu(T1, mem(counter, at - 48)),
        };
        b.add(w, w, T1);
        b.lwu(T2, mem(inp, at));
        b.xor(w, w, T2);
        b.sw(w, mem(out, at));
    }
    b.addi(inp, inp, 64);
    b.addi(out, out, 64);
    b.addi(block, block, 1);
    b.addi(len, len, -1);
    b.bnez(len, &next);
    b.bind(&done);
    b.finish()
}
