//! Targets: an architecture, an operating system, and the ABI and object-file flavour they imply.
//!
//! Everything an emitter needs to know about a platform is a value here, not a branch in the emitter:
//! adding Mach-O or COFF is a new [`Flavour`] value (plus, for Windows, the Win64 [`Abi`]).

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
    /// macOS / iOS (Mach-O). Not emitted yet; the flavour table already describes it.
    MacOs,
    /// Windows (COFF/PE). Not emitted yet; the flavour table already describes it.
    Windows,
}

/// Object-file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectFormat {
    /// ELF: `.type`/`.size`, `.cfi_*`, `.note.GNU-stack`, GNU property notes.
    Elf,
    /// Mach-O: `_` symbol prefix, `__TEXT,__const`.
    MachO,
    /// COFF/PE: `.rdata`, SEH unwind data.
    Coff,
}

/// Calling convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Abi {
    /// System V AMD64.
    SysV,
    /// Microsoft x64.
    Win64,
    /// AAPCS64 (Linux, macOS and Windows on Arm all use its register roles).
    Aapcs64,
    /// RISC-V LP64D.
    Lp64d,
}

/// A platform that listings are generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// The architecture.
    pub arch: Arch,
    /// The operating system.
    pub os: Os,
}

/// Spelling of the things that differ between object formats and assemblers for one target.
#[derive(Clone, Copy, Debug)]
pub struct Flavour {
    /// Object format.
    pub format: ObjectFormat,
    /// Calling convention.
    pub abi: Abi,
    /// Prefix of C symbols (`_` on Mach-O).
    pub symbol_prefix: &'static str,
    /// Directive that switches to the code section.
    pub text_section: &'static str,
    /// Directive that switches to the read-only constant section.
    pub rodata_section: &'static str,
    /// Line-comment introducer understood by the assembler.
    pub comment: &'static str,
    /// Prefix of assembler-local labels.
    pub local_label_prefix: &'static str,
    /// Whether to emit `.type`/`.size` for symbols.
    pub elf_symbols: bool,
    /// Whether to emit `.cfi_*` unwind directives (ELF, Mach-O); Windows gets SEH data instead.
    pub cfi: bool,
    /// Whether to emit `.section .note.GNU-stack` and the GNU property note (IBT/SHSTK, BTI).
    pub gnu_notes: bool,
}

impl Target {
    /// x86_64 Linux (ELF, System V).
    pub const X86_64_LINUX: Target = Target { arch: Arch::X86_64, os: Os::Linux };
    /// aarch64 Linux (ELF, AAPCS64).
    pub const AARCH64_LINUX: Target = Target { arch: Arch::Aarch64, os: Os::Linux };
    /// riscv64 Linux (ELF, LP64D).
    pub const RISCV64_LINUX: Target = Target { arch: Arch::Riscv64, os: Os::Linux };

    /// The targets whose listings are checked in under `generated/`.
    pub const GENERATED: [Target; 3] = [Self::X86_64_LINUX, Self::AARCH64_LINUX, Self::RISCV64_LINUX];

    /// Directory name under `generated/`, e.g. `x86_64-linux`.
    pub fn dir_name(&self) -> String {
        self.to_string()
    }

    /// The target of the Rust toolchain's `target_arch`/`target_os` pair, if asmgen knows it.
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
        Some(Target { arch, os })
    }

    /// How listings for this target are spelled.
    pub fn flavour(&self) -> Flavour {
        let comment = match self.arch {
            Arch::X86_64 | Arch::Riscv64 => "#",
            Arch::Aarch64 => "//",
        };
        let abi = match (self.arch, self.os) {
            (Arch::X86_64, Os::Windows) => Abi::Win64,
            (Arch::X86_64, _) => Abi::SysV,
            (Arch::Aarch64, _) => Abi::Aapcs64,
            (Arch::Riscv64, _) => Abi::Lp64d,
        };
        match self.os {
            Os::Linux => Flavour {
                format: ObjectFormat::Elf,
                abi,
                symbol_prefix: "",
                text_section: ".text",
                rodata_section: ".section .rodata",
                comment,
                local_label_prefix: ".L",
                elf_symbols: true,
                cfi: true,
                gnu_notes: true,
            },
            Os::MacOs => Flavour {
                format: ObjectFormat::MachO,
                abi,
                symbol_prefix: "_",
                text_section: ".text",
                rodata_section: ".section __TEXT,__const",
                comment,
                local_label_prefix: "L",
                elf_symbols: false,
                cfi: true,
                gnu_notes: false,
            },
            Os::Windows => Flavour {
                format: ObjectFormat::Coff,
                abi,
                symbol_prefix: "",
                text_section: ".text",
                rodata_section: ".section .rdata,\"dr\"",
                comment,
                local_label_prefix: ".L",
                elf_symbols: false,
                cfi: false,
                gnu_notes: false,
            },
        }
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
