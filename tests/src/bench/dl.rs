//! A peer's shared library loaded with dlopen (no headers, no link dependency): where it is not installed, or off
//! Unix (Windows has no such peers), [`open`] finds nothing and the benchmark reports the peer as "n/a".

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;

#[cfg(unix)]
extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}
#[cfg(not(unix))]
unsafe fn dlopen(_filename: *const c_char, _flags: c_int) -> *mut c_void {
    std::ptr::null_mut()
}
#[cfg(not(unix))]
unsafe fn dlsym(_handle: *mut c_void, _symbol: *const c_char) -> *mut c_void {
    std::ptr::null_mut()
}
#[cfg(not(unix))]
unsafe fn dlerror() -> *mut c_char {
    std::ptr::null_mut()
}
const RTLD_NOW: c_int = 2;

/// A loaded library (never unloaded: the benchmark keeps its peers for the process).
#[derive(Clone, Copy)]
pub struct Library(*mut c_void);

/// The library `name` (`libgcrypt.so.20`), or `None` where it cannot be loaded.
pub fn open(name: &str) -> Option<Library> {
    let name = CString::new(name).ok()?;
    // SAFETY: a NUL-terminated name; dlopen has no other precondition.
    let h = unsafe { dlopen(name.as_ptr(), RTLD_NOW) };
    (!h.is_null()).then_some(Library(h))
}

/// The library at `path` (a file name with a folder), or why it could not be loaded: dlerror's message.
pub fn open_path(path: &Path) -> Result<Library, String> {
    let name = CString::new(path.as_os_str().to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: a NUL-terminated name; dlerror returns NULL or a NUL-terminated message.
    unsafe {
        let h = dlopen(name.as_ptr(), RTLD_NOW);
        if !h.is_null() {
            return Ok(Library(h));
        }
        let e = dlerror();
        Err(if e.is_null() { "dlopen failed".into() } else { CStr::from_ptr(e).to_string_lossy().into_owned() })
    }
}

impl Library {
    /// The symbol `name` as a function pointer of type `F`, or `None` where the library lacks it.
    ///
    /// # Safety
    /// `F` must be the symbol's C signature.
    pub unsafe fn sym<F: Copy>(&self, name: &str) -> Option<F> {
        let c = CString::new(name).ok()?;
        let p = dlsym(self.0, c.as_ptr());
        (!p.is_null()).then(|| std::mem::transmute_copy::<*mut c_void, F>(&p))
    }
}
