//! asmgen: crypto assembly written once in Rust, emitted as checked-in listings for every target.
//!
//! A kernel is a Rust function that calls a typed [`Builder`]: one method per instruction, generated from
//! the instruction tables, checked when called (registers, immediates, offsets; the error names the function,
//! the instruction and the value). A [`Generator`] builds the kernels once per ABI and writes, per target,
//! the GNU as listing (and NASM's for Windows), a C header and Rust declarations, with prologues, CFI, SEH and
//! property notes derived from one description.
//!
//! ```
//! use asmgen::isa::x86_64::{mem, regs::*, X86Feature, X86_64};
//! use asmgen::{Abi, Builder, CType, Function, GenError, Generator, ListingSpec, Target};
//!
//! /// `void xor16(uint8_t *dst, const uint8_t *src)`: dst ^= src, 16 bytes.
//! fn xor16(abi: Abi) -> Result<Function<X86_64>, GenError> {
//!     let mut b = Builder::<X86_64>::new("xor16", abi, &[X86Feature::Avx]);
//!     b.doc("XORs 16 bytes of src into dst.");
//!     let dst = b.param("dst", CType::BytePtr);
//!     let src = b.param("src", CType::ConstBytePtr);
//!     let x = xmm(0);
//!     b.vmovdqu(x, mem(dst, 0)).vpxor(x, x, mem(src, 0)).vmovdqu(mem(dst, 0), x);
//!     b.finish()
//! }
//!
//! // Written once; built per ABI (System V, Win64) for Linux, macOS and Windows (GNU as and NASM).
//! let x86_64: Vec<Target> = Target::GENERATED.into_iter().filter(|t| t.arch == asmgen::Arch::X86_64).collect();
//! let generator = Generator::new("asm")
//!     .targets(&x86_64)
//!     .prefix("demo")
//!     .listing(ListingSpec::new("xor", "XOR of 16 bytes").x86_64(|abi| Ok(vec![xor16(abi)?])));
//! let files = generator.files()?; // or .generate() to write them, .check() in CI
//! let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
//! assert!(paths.contains(&"x86_64-linux/xor.S"));
//! assert!(paths.contains(&"x86_64-windows/xor.asm"));
//! assert!(paths.contains(&"x86_64-macos/demo_xor.h"));
//! let header = &files.iter().find(|f| f.path == "x86_64-linux/demo_xor.h").unwrap().contents;
//! assert!(header.contains("void demo_xor16(uint8_t *dst, const uint8_t *src);"));
//! # Ok::<(), GenError>(())
//! ```
//!
//! What a kernel author uses:
//!
//! * [`Builder`] and the ISA modules: [`isa::x86_64`], [`isa::aarch64`], [`isa::riscv64`] (registers, memory
//!   operands, the CPU features a builder may use). [`Builder::frame`] gives local storage ([`StackFrame`]),
//!   [`Builder::param`] and [`Builder::returns`] the C signature ([`CType`]), [`Builder::label`] and
//!   [`Builder::constant`] the labels and read-only data.
//! * [`forms`]: one trait per instruction with several forms (xmm, ymm, zmm; register or memory), so that a
//!   helper can be generic over the width:
//!
//! ```
//! use asmgen::forms::x86_64 as forms;
//! use asmgen::isa::x86_64::{regs::*, X86_64};
//! use asmgen::Builder;
//!
//! /// x = x <<< n on each 32-bit lane, through t, for any vector width the instructions have.
//! fn rotl32<R: Copy, K1, K2, K3>(b: &mut Builder<X86_64>, x: R, t: R, n: i32)
//! where
//!     Builder<X86_64>: forms::vpslld<K1, (R, R, i32)> + forms::vpsrld<K2, (R, R, i32)> + forms::vpor<K3, (R, R, R)>,
//! {
//!     b.vpsrld(t, x, 32 - n).vpslld(x, x, n).vpor(x, x, t);
//! }
//!
//! let mut b = Builder::<X86_64>::new("f", asmgen::Abi::SysV, asmgen::Feature::ALL);
//! rotl32(&mut b, xmm(0), xmm(1), 7);
//! rotl32(&mut b, ymm(0), ymm(1), 7);
//! ```
//!
//! * [`Generator`] and [`ListingSpec`]: the files for a `build.rs` or an xtask, and the check mode for CI.
//! * [`Target`]: the eight targets ([`Target::GENERATED`]) and their ABIs ([`Abi`]).
//! * [`import`]: assembled objects read back into functions, for porting existing assembly (`cargo xtask
//!   import`): each function's Rust source, checked to lower to the object's bytes.
//!
//! The runtime crate (`asmgen-runtime`) maps a user's functions for the running CPU (a JIT of the same
//! bytes) and offers SM4 and GHASH/POLYVAL to applications. `docs/GUIDE.md` walks through porting a kernel.
//!
//! The modules hidden from these docs are the machinery the project's own tools share (emitters, lowering,
//! the interpreter, the constant-time checker): public for them, not a promise.
//!
//! Layers, each importing only those above it:
//!
//! * leaves: `label`, `feature`, `error`, `hash`, `target` (one row per platform: architecture, OS, object
//!   format, ABI, syntax).
//! * [`isa`]: the instruction tables, operand kinds and registers.
//! * `ir`: functions (with their ABI) and listings as data.
//! * `abi`: calling conventions: argument locations, callee-saved registers, landing pads, prologues and
//!   epilogues with their unwind directives.
//! * `syntax`: how a target spells a listing (directives, comments, labels, raw words, padding).
//! * `platform`: [`Isa`], an instruction set with its conventions and spelling.
//! * [`builder`]: the typed builder (methods generated from the tables).
//! * `layout`: emission order, function alignment and the constant pool, shared by the emitter and the JIT.
//! * `property`: the GNU property note's control-flow-protection bits (IBT, SHSTK; BTI, PAC, GCS).
//! * `lower`: machine code for the JIT; `emit`: GNU as and NASM listings, C headers and Rust declarations;
//!   `report`: what each function requires and uses, for audits; [`generate`]: the files of a build;
//!   [`import`]: objects read back into functions.

#![warn(missing_docs)]

#[doc(hidden)]
pub mod abi;
pub mod builder;
#[doc(hidden)]
pub mod emit;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod feature;
pub mod generate;
#[doc(hidden)]
pub mod hash;
pub mod import;
#[doc(hidden)]
pub mod ir;
pub mod isa;
#[doc(hidden)]
pub mod label;
#[doc(hidden)]
pub mod layout;
#[doc(hidden)]
pub mod lower;
#[doc(hidden)]
pub mod platform;
#[doc(hidden)]
pub mod property;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod sem;
#[doc(hidden)]
pub mod syntax;
#[doc(hidden)]
pub mod target;

/// The per-form traits of the builder's instruction methods, one module per ISA: `forms::x86_64::vpxor` is
/// implemented by `Builder<X86_64>` once per form of `vpxor` (xmm, ymm; register or memory source). Name them
/// in a `where` clause to write a helper generic over the operands' width.
pub mod forms {
    pub use crate::builder::aarch64::forms as aarch64;
    pub use crate::builder::riscv64::forms as riscv64;
    pub use crate::builder::x86_64::forms as x86_64;
}

pub use builder::{Builder, GenError, StackFrame};
pub use emit::c_header::SizeMacro;
pub use emit::gas::Visibility;
pub use feature::{Feature, FeatureSet};
pub use generate::{GeneratedFile, Generator, ListingSpec, Stale, Written};
pub use ir::{CType, Function, Listing};
pub use isa::InstructionSet;
pub use label::Label;
pub use platform::Isa;
pub use target::{Abi, Arch, Os, Syntax, Target};
