//! Why the JIT could not assemble, map or hand back a function ([`JitError`]).

use asmgen::{Abi, Arch};
use std::fmt;

/// Why the JIT could not assemble this CPU's kernels, map a [`JitModule`](super::JitModule)'s functions, or
/// hand back one of them.
#[derive(Debug)]
#[non_exhaustive]
pub enum JitError {
    /// No JIT for this build, platform or CPU (no listings linked, no kernel set for this CPU, or a platform
    /// whose JIT code the OS could not unwind).
    Unsupported(&'static str),
    /// A function could not be lowered (an instruction without an encoding, a branch out of range, an undefined
    /// label, conflicting constants; for the kernel catalog's descriptions, a bug).
    Lower(String),
    /// Mapping the memory, or turning it executable, failed.
    Memory(std::io::Error),
    /// The functions are written for another architecture than this process runs on.
    WrongArch {
        /// Their architecture.
        arch: Arch,
    },
    /// A function was built for another calling convention than this platform's C ABI
    /// ([`host_target`](super::host_target)).
    WrongAbi {
        /// The function's name.
        function: String,
        /// The ABI it was built for.
        abi: Abi,
        /// This platform's.
        host: Abi,
    },
    /// A function requires a CPU feature that this CPU lacks (or that `ASMGEN_ISA` hides).
    MissingFeature {
        /// The function's name.
        function: String,
        /// The feature, by the instruction table's name (`AVX2`, `pmull`, `zvkg`).
        feature: &'static str,
    },
    /// Two functions of one module have the same name.
    DuplicateFunction(String),
    /// The module has no function of that name.
    NoSuchFunction(String),
    /// The function's C signature is not the one of the Rust function pointer type asked for.
    SignatureMismatch {
        /// The function's name.
        function: String,
        /// Its C signature, as the Rust type it is called through (`unsafe extern "C" fn(*const u8, usize) -> i32`).
        signature: String,
        /// The type asked for.
        requested: String,
    },
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JitError::Unsupported(what) => write!(f, "JIT not supported: {what}"),
            JitError::Lower(e) => write!(f, "JIT lowering failed: {e}"),
            JitError::Memory(e) => write!(f, "JIT memory: {e}"),
            JitError::WrongArch { arch } => {
                write!(f, "JIT: functions for {arch:?} cannot run on this {} process", std::env::consts::ARCH)
            }
            JitError::WrongAbi { function, abi, host } => {
                write!(f, "JIT: {function} is built for the {abi:?} ABI, but this platform's C ABI is {host:?}")
            }
            JitError::MissingFeature { function, feature } => {
                write!(f, "JIT: {function} needs {feature}, which this CPU lacks")
            }
            JitError::DuplicateFunction(name) => write!(f, "JIT: two functions are named {name}"),
            JitError::NoSuchFunction(name) => write!(f, "JIT: no function named {name}"),
            JitError::SignatureMismatch { function, signature, requested } => {
                write!(f, "JIT: {function} is {signature}, not {requested}")
            }
        }
    }
}

impl std::error::Error for JitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JitError::Memory(e) => Some(e),
            _ => None,
        }
    }
}
