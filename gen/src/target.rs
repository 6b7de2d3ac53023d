//! Targets: one row per platform of (architecture, operating system, object format, ABI, syntax).
//!
//! Everything an emitter needs to know about a platform follows from its row: the object format's directives
//! and the syntax's spelling ([`crate::syntax`]), the ABI's conventions ([`crate::abi`]). A leaf module.

use std::fmt;

/// Instruction-set architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// x86-64 (AMD64).
    X86_64,
    /// AArch64 (ARMv8-A and later).
    Aarch64,
    /// RV64GC with extensions.
    Riscv64,
}

/// Operating system, which fixes the object format and the calling convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Os {
    /// Linux and other ELF systems.
    Linux,
    /// macOS (Mach-O, spelled by [`crate::syntax::Directives::MACH_O`]).
    MacOs,
    /// Windows (COFF/PE): [`Target::X86_64_WINDOWS`], [`Target::AARCH64_WINDOWS`].
    Windows,
}

/// Object-file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjectFormat {
    /// ELF: `.type`/`.size`, `.cfi_*`, `.note.GNU-stack`, GNU property notes.
    Elf,
    /// Mach-O: `_` symbol prefix, `__TEXT,__const`.
    MachO,
    /// COFF/PE: `.rdata`, SEH unwind data.
    Coff,
}

/// Calling convention (described by [`crate::abi`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Abi {
    /// System V AMD64.
    SysV,
    /// Microsoft x64.
    Win64,
    /// AAPCS64 (Linux; macOS and Windows on Arm use its register roles with x18 reserved).
    Aapcs64,
    /// Apple's arm64 variant of AAPCS64: x18 is reserved for the platform and never used.
    AppleAapcs64,
    /// Windows on Arm's ARM64 ABI: AAPCS64's register roles with x18 reserved (the thread environment block), and
    /// ARM64 SEH unwind data, whose save codes name one register or a consecutive pair.
    WinArm64,
    /// RISC-V LP64D.
    Lp64d,
}

/// How a listing is written: the assembler syntax (spelled by [`crate::syntax`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Syntax {
    /// GNU as (accepted by llvm-mc too); Intel operand order on x86_64 (`.intel_syntax noprefix`).
    Gas,
    /// NASM (x86_64 only): `nasm -f win64` for [`Target::X86_64_WINDOWS_NASM`].
    Nasm,
}

impl Syntax {
    /// The extension of a listing file: `S` (GNU as, preprocessed) or `asm` (NASM).
    pub fn extension(self) -> &'static str {
        match self {
            Syntax::Gas => "S",
            Syntax::Nasm => "asm",
        }
    }
}

/// A platform that listings are generated for: one row of [`Target::TARGETS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// The architecture.
    pub arch: Arch,
    /// The operating system.
    pub os: Os,
    /// The object format.
    pub format: ObjectFormat,
    /// The calling convention.
    pub abi: Abi,
    /// The assembler syntax.
    pub syntax: Syntax,
}

impl Target {
    /// x86_64 Linux (ELF, System V).
    pub const X86_64_LINUX: Target =
        Target { arch: Arch::X86_64, os: Os::Linux, format: ObjectFormat::Elf, abi: Abi::SysV, syntax: Syntax::Gas };
    /// aarch64 Linux (ELF, AAPCS64).
    pub const AARCH64_LINUX: Target = Target {
        arch: Arch::Aarch64,
        os: Os::Linux,
        format: ObjectFormat::Elf,
        abi: Abi::Aapcs64,
        syntax: Syntax::Gas,
    };
    /// x86_64 macOS (Mach-O, System V).
    pub const X86_64_MACOS: Target =
        Target { arch: Arch::X86_64, os: Os::MacOs, format: ObjectFormat::MachO, abi: Abi::SysV, syntax: Syntax::Gas };
    /// aarch64 macOS (Mach-O, Apple AAPCS64).
    pub const AARCH64_MACOS: Target = Target {
        arch: Arch::Aarch64,
        os: Os::MacOs,
        format: ObjectFormat::MachO,
        abi: Abi::AppleAapcs64,
        syntax: Syntax::Gas,
    };
    /// riscv64 Linux (ELF, LP64D).
    pub const RISCV64_LINUX: Target =
        Target { arch: Arch::Riscv64, os: Os::Linux, format: ObjectFormat::Elf, abi: Abi::Lp64d, syntax: Syntax::Gas };

    /// x86_64 Windows (COFF, Microsoft x64, SEH unwind data).
    pub const X86_64_WINDOWS: Target = Target {
        arch: Arch::X86_64,
        os: Os::Windows,
        format: ObjectFormat::Coff,
        abi: Abi::Win64,
        syntax: Syntax::Gas,
    };
    /// aarch64 Windows (COFF, Windows ARM64: x18 reserved, ARM64 SEH unwind data).
    pub const AARCH64_WINDOWS: Target = Target {
        arch: Arch::Aarch64,
        os: Os::Windows,
        format: ObjectFormat::Coff,
        abi: Abi::WinArm64,
        syntax: Syntax::Gas,
    };

    /// x86_64 Windows in NASM syntax: the listings of [`Target::X86_64_WINDOWS`] (the same functions and bytes),
    /// written beside them as `.asm` files, with the SEH unwind data written out as `.pdata`/`.xdata`.
    pub const X86_64_WINDOWS_NASM: Target = Target { syntax: Syntax::Nasm, ..Self::X86_64_WINDOWS };

    /// Every target asmgen knows, one row each. A new platform is a new row here, and in
    /// [`Target::GENERATED`] once its listings are checked in. The Linux rows come first:
    /// [`Target::first_of`] is what the JIT lowers for.
    pub const TARGETS: &'static [Target] = &[
        Self::X86_64_LINUX,
        Self::AARCH64_LINUX,
        Self::RISCV64_LINUX,
        Self::X86_64_MACOS,
        Self::AARCH64_MACOS,
        Self::X86_64_WINDOWS,
        Self::AARCH64_WINDOWS,
        Self::X86_64_WINDOWS_NASM,
    ];

    /// The targets whose listings are checked in under `generated/`. A flavour in another syntax shares its
    /// folder (and its set table, `mod.rs`) with the GNU as row of the same platform.
    pub const GENERATED: [Target; 8] = [
        Self::X86_64_LINUX,
        Self::AARCH64_LINUX,
        Self::RISCV64_LINUX,
        Self::X86_64_MACOS,
        Self::AARCH64_MACOS,
        Self::X86_64_WINDOWS,
        Self::AARCH64_WINDOWS,
        Self::X86_64_WINDOWS_NASM,
    ];

    /// Directory name under `generated/`, e.g. `x86_64-linux`.
    pub fn dir_name(&self) -> String {
        self.to_string()
    }

    /// The first row of [`Target::TARGETS`] for `arch`: the target whose listing the JIT's image of that
    /// architecture reproduces.
    pub fn first_of(arch: Arch) -> Target {
        *Self::TARGETS.iter().find(|t| t.arch == arch).expect("every architecture has a target")
    }

    /// The target of the Rust toolchain's `target_arch`/`target_os` pair, if [`Target::TARGETS`] has it.
    pub fn from_rust(arch: &str, os: &str) -> Option<Target> {
        let arch = match arch {
            "x86_64" => Arch::X86_64,
            "aarch64" => Arch::Aarch64,
            "riscv64" => Arch::Riscv64,
            _ => return None,
        };
        let os = match os {
            "linux" | "android" => Os::Linux,
            "macos" | "ios" => Os::MacOs,
            "windows" => Os::Windows,
            _ => return None,
        };
        Self::TARGETS.iter().find(|t| t.arch == arch && t.os == os).copied()
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arch = match self.arch {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::Riscv64 => "riscv64",
        };
        let os = match self.os {
            Os::Linux => "linux",
            Os::MacOs => "macos",
            Os::Windows => "windows",
        };
        write!(f, "{arch}-{os}")
    }
}
