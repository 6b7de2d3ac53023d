//! A JIT for any function: [`JitModule`] lowers functions written with [`asmgen::Builder`] for this CPU, maps
//! them W^X, synchronises the instruction cache, registers their unwind data where the OS needs it (Windows
//! x64) and hands back typed function pointers ([`JitModule::get`]), checked against each function's C
//! signature. The kernel catalog's JIT ([`Jit`](super::Jit)) maps its images through it too.

use super::error::JitError;
use super::{memory, unwind};
use asmgen::lower::{Image, Lower};
use asmgen::{Abi, CType, Feature, Function, InstructionSet, Target};
use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

/// The platform this process runs on, whose C ABI a [`JitModule`]'s functions must be built for
/// (`Builder::new(name, host_target().unwrap().abi, ..)`): on x86_64 Windows [`Target::X86_64_WINDOWS`]
/// (Microsoft x64), on other x86_64 systems System V, on aarch64 macOS Apple's AAPCS64, on aarch64 Windows
/// Windows' ARM64 ABI, on other aarch64 systems AAPCS64, on riscv64 LP64D. `None` on other architectures.
pub fn host_target() -> Option<Target> {
    let os = if cfg!(windows) {
        "windows"
    } else if cfg!(target_vendor = "apple") {
        "macos"
    } else {
        // Linux's row: its ABI (System V, AAPCS64, LP64D) is every other ELF system's too.
        "linux"
    };
    Target::from_rust(std::env::consts::ARCH, os)
}

/// The features of `I` that this CPU has (and `ASMGEN_ISA` does not hide), in the table's order: what a function
/// for this CPU may use (`Builder::new(name, abi, &host_features::<I>())`). Empty where `I` is not this
/// process's architecture.
pub fn host_features<I: InstructionSet>() -> Vec<I::Feature> {
    if host_target().map(|t| t.arch) != Some(I::ARCH) {
        return Vec::new();
    }
    I::Feature::ALL.iter().copied().filter(|f| crate::cpu::has(f.name())).collect()
}

/// One function of a module: where it is and its C signature.
struct Entry {
    name: String,
    params: Vec<CType>,
    ret: Option<CType>,
    offset: usize,
    len: usize,
}

/// Functions lowered for this CPU and mapped executable: never writable and executable at once (the code is
/// copied into a fresh read-write mapping, which is then made read-execute), the instruction cache
/// synchronised (aarch64, riscv64), and on Windows x64 their unwind data registered (`RtlAddFunctionTable`) so
/// that exceptions, debuggers and stack walks unwind through them. The mapping, and the registration, end
/// when the module is dropped: the function pointers [`JitModule::get`] hands back borrow it
/// ([`JitFunction`]), or [`JitModule::leak`] keeps it for the life of the process.
///
/// Elsewhere than on Windows no unwind data is registered: like the listings' kernels without their CFI,
/// JIT code cannot be unwound through by a debugger or profiler there (a Rust panic never crosses an
/// `extern "C"` function anyway).
///
/// ```
/// use asmgen::{Builder, CType};
/// use asmgen_runtime::jit::{host_target, JitModule};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let Some(target) = host_target() else { return Ok(()) }; // x86_64, aarch64 and riscv64 only
/// // `uint64_t add3(uint64_t a, uint64_t b)`: returns a + 3 * b, for this platform's C ABI.
/// # #[cfg(target_arch = "x86_64")]
/// let add3 = {
///     use asmgen::isa::x86_64::{regs::*, X86_64};
///     let mut b = Builder::<X86_64>::new("add3", target.abi, &[]);
///     let (x, y) = (b.param("a", CType::U64), b.param("b", CType::U64));
///     let r = b.returns(CType::U64);
///     b.mov(r, x).add(r, y).add(r, y).add(r, y);
///     b.finish()?
/// };
/// # #[cfg(target_arch = "aarch64")]
/// # let add3 = {
/// #     use asmgen::isa::aarch64::Aarch64;
/// #     let mut b = Builder::<Aarch64>::new("add3", target.abi, &[]);
/// #     let (x, y) = (b.param("a", CType::U64), b.param("b", CType::U64));
/// #     let r = b.returns(CType::U64);
/// #     b.add(r, x, y).add(r, r, y).add(r, r, y);
/// #     b.finish()?
/// # };
/// # #[cfg(target_arch = "riscv64")]
/// # let add3 = {
/// #     use asmgen::isa::riscv64::Riscv64;
/// #     let mut b = Builder::<Riscv64>::new("add3", target.abi, &[]);
/// #     let (x, y) = (b.param("a", CType::U64), b.param("b", CType::U64));
/// #     let r = b.returns(CType::U64);
/// #     b.add(r, x, y).add(r, r, y).add(r, r, y);
/// #     b.finish()?
/// # };
/// # #[cfg(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "riscv64"))]
/// # {
/// let module = JitModule::new([&add3])?;
/// let f = module.get::<unsafe extern "C" fn(u64, u64) -> u64>("add3")?;
/// // SAFETY: `add3` reads its two arguments only.
/// assert_eq!(unsafe { f(1, 2) }, 7);
/// // The wrong type is refused, naming the function.
/// let err = module.get::<unsafe extern "C" fn(u64) -> u64>("add3").unwrap_err();
/// assert!(err.to_string().contains("add3"));
/// # }
/// # Ok(())
/// # }
/// ```
pub struct JitModule {
    /// The OS's record of the unwind data (Windows x64), dropped before the mapping it describes.
    _unwind: unwind::Registration,
    buffer: memmap2::Mmap,
    mapped: usize,
    entries: Vec<Entry>,
}

impl fmt::Debug for JitModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JitModule").field("functions", &self.names().collect::<Vec<_>>()).finish()
    }
}

impl JitModule {
    /// Lowers `functions` (in order, each at a 32-byte boundary, then their constants) and maps them: the
    /// checks and mapping of [`JitModule`]. An error names the function: one for another architecture
    /// ([`JitError::WrongArch`]) or calling convention ([`JitError::WrongAbi`]) than this process's, one that
    /// requires a feature this CPU lacks ([`JitError::MissingFeature`]), two of one name, or one that does not
    /// lower.
    pub fn new<'a, I: Lower>(functions: impl IntoIterator<Item = &'a Function<I>>) -> Result<JitModule, JitError> {
        let functions: Vec<&Function<I>> = functions.into_iter().collect();
        check(&functions, &crate::cpu::has)?;
        let image = asmgen::lower::lower(&functions).map_err(|e| JitError::Lower(e.to_string()))?;
        JitModule::map(&functions, &image)
    }

    /// Maps `image`, lowered from `functions`, after the checks of [`JitModule::new`]: the kernel catalog's
    /// JIT lowers its images itself (on x86_64 as the kernels are built).
    pub(crate) fn from_image<I: Lower>(functions: &[&Function<I>], image: &Image) -> Result<JitModule, JitError> {
        check(functions, &crate::cpu::has)?;
        JitModule::map(functions, image)
    }

    fn map<I: Lower>(functions: &[&Function<I>], image: &Image) -> Result<JitModule, JitError> {
        assert_eq!(functions.len(), image.symbols.len(), "an image has a symbol per function");
        let prepared = unwind::prepare(functions, image).map_err(|e| JitError::Lower(e.to_string()))?;
        let (buffer, mapped) = memory::map(&prepared.bytes).map_err(JitError::Memory)?;
        let unwind = prepared
            .register(buffer.as_ptr())
            .ok_or(JitError::Unsupported("the OS refused the JIT code's unwind data"))?;
        let entries = functions
            .iter()
            .zip(&image.symbols)
            .map(|(f, s)| Entry {
                name: s.name.clone(),
                params: f.signature.types(),
                ret: f.signature.ret,
                offset: s.offset,
                len: s.len,
            })
            .collect();
        Ok(JitModule { _unwind: unwind, buffer, mapped, entries })
    }

    /// The function `name` as a function pointer of type `F` (`unsafe extern "C" fn(*const u8, usize) -> i32`),
    /// valid while the module lives. `F`'s parameters and return type must be the function's C signature as
    /// [`CType::rust`] spells it (`i32` for both `int32_t` and `int`, `()` for `void`): otherwise
    /// [`JitError::SignatureMismatch`]; [`JitError::NoSuchFunction`] where the module has no such function.
    ///
    /// Calling it is `unsafe`: the function must be given what it reads and writes, as any C function.
    pub fn get<F: JitFn>(&self, name: &str) -> Result<JitFunction<'_, F>, JitError> {
        let e = self.entry_named(name).ok_or_else(|| JitError::NoSuchFunction(name.to_string()))?;
        let signature = rust_type(e.params.iter().map(|t| t.rust()), e.ret.map(CType::rust));
        let requested = rust_type(F::PARAMS.iter().copied(), F::RET);
        if signature != requested {
            return Err(JitError::SignatureMismatch { function: e.name.clone(), signature, requested });
        }
        // SAFETY: the entry point of a function with this C signature (just checked), mapped executable for
        // the module's life, which the returned value borrows.
        Ok(JitFunction { f: unsafe { F::from_entry(self.buffer[e.offset..].as_ptr()) }, _module: PhantomData })
    }

    /// The entry point of function `name`, valid while the module lives (untyped: [`JitModule::get`] checks
    /// the signature).
    pub fn entry(&self, name: &str) -> Option<*const u8> {
        self.entry_named(name).map(|e| self.buffer[e.offset..].as_ptr())
    }

    /// The machine code of function `name` (as mapped, from its entry point to its end, without the alignment
    /// padding after it).
    pub fn bytes(&self, name: &str) -> Option<&[u8]> {
        self.entry_named(name).map(|e| &self.buffer[e.offset..e.offset + e.len])
    }

    /// The functions' names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().map(|e| e.name.as_str())
    }

    /// The mapped memory, read-execute: the code and constants (then, on Windows x64, the unwind data), in
    /// whole pages.
    pub fn code(&self) -> &[u8] {
        &self.buffer
    }

    /// Bytes of executable memory mapped (whole pages).
    pub fn mapped(&self) -> usize {
        self.mapped
    }

    /// Keeps the module for the life of the process: its functions' pointers are then `'static`.
    pub fn leak(self) -> &'static JitModule {
        Box::leak(Box::new(self))
    }

    fn entry_named(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// Checks `functions` against this process (architecture, ABI) and CPU (`has` a feature, by name), and that
/// their names are distinct.
fn check<I: InstructionSet>(functions: &[&Function<I>], has: &dyn Fn(&str) -> bool) -> Result<(), JitError> {
    let host = host_target().ok_or(JitError::Unsupported("no JIT for this architecture"))?;
    if I::ARCH != host.arch {
        return Err(JitError::WrongArch { arch: I::ARCH });
    }
    if host.abi == Abi::WinArm64 {
        return Err(JitError::Unsupported("JIT code on Windows on Arm (its unwind data is not registered)"));
    }
    let mut names = HashSet::with_capacity(functions.len());
    for f in functions {
        if f.abi != host.abi {
            return Err(JitError::WrongAbi { function: f.name.clone(), abi: f.abi, host: host.abi });
        }
        if let Some(missing) = f.required.iter().find(|x| !has(x.name())) {
            return Err(JitError::MissingFeature { function: f.name.clone(), feature: missing.name() });
        }
        if !names.insert(f.name.as_str()) {
            return Err(JitError::DuplicateFunction(f.name.clone()));
        }
    }
    Ok(())
}

/// A function pointer type's Rust spelling from its parameters' and return type's.
fn rust_type<'a>(params: impl Iterator<Item = &'a str>, ret: Option<&str>) -> String {
    let params: Vec<&str> = params.collect();
    let ret = ret.map_or(String::new(), |r| format!(" -> {r}"));
    format!("unsafe extern \"C\" fn({}){ret}", params.join(", "))
}

/// A function of a [`JitModule`] as a pointer of type `F`, borrowing the module (as a symbol of a loaded
/// library would): it dereferences to `F`. Copying the pointer out of it drops that guard: it must then not be
/// called after the module is dropped.
pub struct JitFunction<'m, F> {
    f: F,
    _module: PhantomData<&'m JitModule>,
}

impl<F: JitFn> JitFunction<'_, F> {
    /// The function pointer (valid while the module lives: [`JitModule::leak`] makes that the process's life).
    pub fn into_inner(self) -> F {
        self.f
    }
}

impl<F> Deref for JitFunction<'_, F> {
    type Target = F;
    fn deref(&self) -> &F {
        &self.f
    }
}

impl<F: Copy> Clone for JitFunction<'_, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F: Copy> Copy for JitFunction<'_, F> {}

impl<F: fmt::Debug> fmt::Debug for JitFunction<'_, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("JitFunction").field(&self.f).finish()
    }
}

mod sealed {
    /// Only the types of this module implement the traits.
    pub trait Sealed {}
}

/// A Rust type of a C parameter or return value that a [`JitModule`]'s functions take: one per
/// [`CType::rust`] spelling (`*const u8`, `*mut u8`, `usize`, `u64`, `u32`, `i32`, `*const u32`, `*mut u32`,
/// `*const u64`, `*mut u64`). Sealed.
pub trait CValue: sealed::Sealed {
    /// Its spelling, as [`CType::rust`] writes it.
    const RUST: &'static str;
}

/// What a [`JitModule`]'s function returns: `()` (C's `void`) or a [`CValue`]. Sealed.
pub trait CReturn: sealed::Sealed {
    /// Its spelling, as [`CType::rust`] writes it; `None` for `()`.
    const RUST: Option<&'static str>;
}

impl sealed::Sealed for () {}
impl CReturn for () {
    const RUST: Option<&'static str> = None;
}

macro_rules! c_values {
    ($($t:ty => $s:literal),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl CValue for $t {
            const RUST: &'static str = $s;
        }
        impl CReturn for $t {
            const RUST: Option<&'static str> = Some($s);
        }
    )*};
}

c_values! {
    *const u8 => "*const u8",
    *mut u8 => "*mut u8",
    usize => "usize",
    u64 => "u64",
    u32 => "u32",
    i32 => "i32",
    *const u32 => "*const u32",
    *mut u32 => "*mut u32",
    *const u64 => "*const u64",
    *mut u64 => "*mut u64",
}

/// A function pointer type a [`JitModule`] hands its functions back as: `unsafe extern "C" fn(A, B, ..) -> R`
/// with up to 16 parameters, each a [`CValue`], and `R` a [`CReturn`]. Sealed.
pub trait JitFn: Copy + sealed::Sealed {
    /// The parameters' spellings, as [`CType::rust`] writes them.
    const PARAMS: &'static [&'static str];
    /// The return type's spelling; `None` for `()`.
    const RET: Option<&'static str>;
    /// The function pointer to `entry`.
    ///
    /// # Safety
    /// `entry` is the entry point of executable code with this C signature.
    #[doc(hidden)]
    unsafe fn from_entry(entry: *const u8) -> Self;
}

macro_rules! jit_fns {
    ($($a:ident)*) => {
        impl<R: CReturn, $($a: CValue),*> sealed::Sealed for unsafe extern "C" fn($($a),*) -> R {}
        impl<R: CReturn, $($a: CValue),*> JitFn for unsafe extern "C" fn($($a),*) -> R {
            const PARAMS: &'static [&'static str] = &[$($a::RUST),*];
            const RET: Option<&'static str> = R::RUST;
            unsafe fn from_entry(entry: *const u8) -> Self {
                // SAFETY: the caller's: `entry` is code with this signature.
                unsafe { std::mem::transmute::<*const u8, Self>(entry) }
            }
        }
    };
}

jit_fns!();
jit_fns!(A);
jit_fns!(A B);
jit_fns!(A B C);
jit_fns!(A B C D);
jit_fns!(A B C D E);
jit_fns!(A B C D E F);
jit_fns!(A B C D E F G);
jit_fns!(A B C D E F G H);
jit_fns!(A B C D E F G H I);
jit_fns!(A B C D E F G H I J);
jit_fns!(A B C D E F G H I J K);
jit_fns!(A B C D E F G H I J K L);
jit_fns!(A B C D E F G H I J K L M);
jit_fns!(A B C D E F G H I J K L M N);
jit_fns!(A B C D E F G H I J K L M N O);
jit_fns!(A B C D E F G H I J K L M N O P);

#[cfg(test)]
mod tests {
    use super::*;

    /// A function of the host's ISA for the host's ABI that requires every feature of its table (fabricated:
    /// `required` is the description's record, not what its instructions use).
    fn requiring_everything<I: asmgen::Isa>() -> Function<I> {
        let abi = host_target().unwrap().abi;
        let mut f = asmgen::Builder::<I>::new("needs_all", abi, &[]).finish().unwrap();
        f.required = asmgen::FeatureSet::of(I::Feature::ALL);
        f
    }

    /// The feature check names the function and the first feature the CPU lacks: here a CPU that has none
    /// (and one that has all but the last).
    #[test]
    fn a_missing_feature_is_an_error_naming_function_and_feature() {
        fn on<I: asmgen::Isa>() {
            let f = requiring_everything::<I>();
            let first = I::Feature::ALL[0].name();
            match check(&[&f], &|_| false) {
                Err(JitError::MissingFeature { function, feature }) => {
                    assert_eq!((function.as_str(), feature), ("needs_all", first))
                }
                other => panic!("{other:?}"),
            }
            let last = I::Feature::ALL.last().unwrap().name();
            let err = check(&[&f], &|x| x != last).unwrap_err();
            assert_eq!(err.to_string(), format!("JIT: needs_all needs {last}, which this CPU lacks"));
            assert!(check(&[&f], &|_| true).is_ok());
        }
        #[cfg(target_arch = "x86_64")]
        on::<asmgen::isa::x86_64::X86_64>();
        #[cfg(target_arch = "aarch64")]
        on::<asmgen::isa::aarch64::Aarch64>();
        #[cfg(target_arch = "riscv64")]
        on::<asmgen::isa::riscv64::Riscv64>();
    }

    /// Every feature of the host's table is one the runtime detects: a function requiring it can be mapped
    /// where the CPU has it (an unknown name would read as always missing).
    #[test]
    fn every_table_feature_of_the_host_is_detected() {
        fn on<I: asmgen::Isa>() {
            for f in I::Feature::ALL {
                assert!(crate::cpu::detect(f.name()).is_some(), "{} is not detected", f.name());
            }
        }
        #[cfg(target_arch = "x86_64")]
        on::<asmgen::isa::x86_64::X86_64>();
        #[cfg(target_arch = "aarch64")]
        on::<asmgen::isa::aarch64::Aarch64>();
        #[cfg(target_arch = "riscv64")]
        on::<asmgen::isa::riscv64::Riscv64>();
    }

    /// The type spellings the trait implementations give are [`CType::rust`]'s.
    #[test]
    fn the_trait_spellings_are_ctypes() {
        type F =
            unsafe extern "C" fn(*const u8, *mut u8, usize, u64, u32, i32, *const u32, *mut u32, *const u64, *mut u64);
        let all = [
            CType::ConstBytePtr,
            CType::BytePtr,
            CType::Size,
            CType::U64,
            CType::U32,
            CType::I32,
            CType::ConstU32Ptr,
            CType::U32Ptr,
            CType::ConstU64Ptr,
            CType::U64Ptr,
        ];
        assert_eq!(F::PARAMS, all.map(CType::rust));
        assert_eq!(F::RET, None);
        assert_eq!(<unsafe extern "C" fn() -> i32 as JitFn>::RET, Some(CType::Int.rust()));
    }

    #[test]
    fn a_module_is_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<JitModule>();
        send_sync::<JitFunction<'static, unsafe extern "C" fn(u64) -> u64>>();
    }
}
