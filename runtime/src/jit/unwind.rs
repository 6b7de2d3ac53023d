//! Unwind data of the JIT's code for the OS. On Windows x64 the OS unwinds a frame only through the unwind data
//! registered for its code (exceptions, debuggers, profilers): each image's `UNWIND_INFO`s
//! ([`asmgen::lower::win64_unwind`], from the same prologue description as the listing's `.seh_*`) are mapped
//! after the image and registered with `RtlAddFunctionTable` until the mapping goes. Elsewhere nothing is
//! registered (the kernels' CFI is the linked listing's; tests/tests/unwind.rs steps the JIT's kernels with it).

use asmgen::lower::Image;
use asmgen::{Function, GenError};
use std::borrow::Cow;

/// The bytes to map for an image (its own, then its unwind data where the OS needs it) and what to register.
pub(super) struct Prepared<'a> {
    /// The image's bytes followed by its unwind data.
    pub(super) bytes: Cow<'a, [u8]>,
    #[cfg(all(windows, target_arch = "x86_64"))]
    table: Vec<win64::RuntimeFunction>,
}

/// A registration that ends with the mapping (drop it before unmapping).
pub(crate) struct Registration {
    #[cfg(all(windows, target_arch = "x86_64"))]
    _table: win64::Table,
}

/// What to map for `image`, lowered from `functions` (of the host's ISA: x86-64 here).
#[cfg(all(windows, target_arch = "x86_64"))]
pub(super) fn prepare<'a, I: asmgen::Isa>(
    functions: &[&Function<I>],
    image: &'a Image,
) -> Result<Prepared<'a>, GenError> {
    use asmgen::isa::x86_64::X86_64;
    let x86_64: Vec<&Function<X86_64>> = functions
        .iter()
        .map(|f| {
            (*f as &dyn std::any::Any).downcast_ref().ok_or_else(|| GenError {
                function: f.name.clone(),
                message: "unwind data for JIT code on Windows is made for x86-64 functions only".into(),
            })
        })
        .collect::<Result<_, _>>()?;
    let unwind = asmgen::lower::win64_unwind::win64_unwind(&x86_64, image)?;
    let mut bytes = image.bytes.clone();
    bytes.resize(bytes.len().next_multiple_of(4), 0);
    let xdata = bytes.len() as u32;
    bytes.extend_from_slice(&unwind.xdata);
    let table = unwind
        .functions
        .iter()
        .map(|&(begin, end, at)| win64::RuntimeFunction { begin, end, unwind_info: xdata + at })
        .collect();
    Ok(Prepared { bytes: Cow::Owned(bytes), table })
}

/// What to map for `image`: its bytes (no unwind data to register here).
#[cfg(not(all(windows, target_arch = "x86_64")))]
pub(super) fn prepare<'a, I: asmgen::Isa>(
    _functions: &[&Function<I>],
    image: &'a Image,
) -> Result<Prepared<'a>, GenError> {
    Ok(Prepared { bytes: Cow::Borrowed(&image.bytes) })
}

impl Prepared<'_> {
    /// Registers the unwind data for the image mapped at `base`; `None` if the OS refused it.
    pub(super) fn register(self, base: *const u8) -> Option<Registration> {
        #[cfg(all(windows, target_arch = "x86_64"))]
        return Some(Registration { _table: win64::Table::register(self.table, base)? });
        #[cfg(not(all(windows, target_arch = "x86_64")))]
        {
            let _ = base;
            Some(Registration {})
        }
    }
}

#[cfg(all(windows, target_arch = "x86_64"))]
mod win64 {
    /// `RUNTIME_FUNCTION`: offsets from the image base.
    #[repr(C)]
    pub(super) struct RuntimeFunction {
        pub(super) begin: u32,
        pub(super) end: u32,
        pub(super) unwind_info: u32,
    }

    #[link(name = "kernel32")]
    extern "system" {
        fn RtlAddFunctionTable(table: *const RuntimeFunction, count: u32, base: u64) -> u8;
        fn RtlDeleteFunctionTable(table: *const RuntimeFunction) -> u8;
    }

    /// A registered table; deregistered on drop.
    pub(super) struct Table(Box<[RuntimeFunction]>);

    // SAFETY: the table is only read by the OS and deregistered once, on drop.
    unsafe impl Send for Table {}
    unsafe impl Sync for Table {}

    impl Table {
        /// Registers `table` for code mapped at `base`; `None` if the OS refused.
        pub(super) fn register(table: Vec<RuntimeFunction>, base: *const u8) -> Option<Table> {
            let table = table.into_boxed_slice();
            // SAFETY: the table and the mapping at `base` (code and UNWIND_INFOs) live until `drop`, which
            // deregisters the table before either goes.
            let ok = unsafe { RtlAddFunctionTable(table.as_ptr(), table.len() as u32, base as u64) } != 0;
            ok.then_some(Table(table))
        }
    }

    impl Drop for Table {
        fn drop(&mut self) {
            // SAFETY: registered by `register` with this pointer.
            unsafe { RtlDeleteFunctionTable(self.0.as_ptr()) };
        }
    }
}
