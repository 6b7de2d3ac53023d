//! The generator: a user's functions in, every target's files out. What a `build.rs` or an xtask calls, in the
//! spirit of the `cc` crate: say what to build, then [`Generator::generate`] (or [`Generator::check`] in CI).
//!
//! Per target folder (`<out>/<target>/`, e.g. `x86_64-linux/`), for each [`ListingSpec`]:
//!
//! * `<listing>.S`: the GNU as listing (`<listing>.asm` for the NASM flavour of x86_64-windows);
//! * `<prefix>_<listing>.h`: the C header, its prototypes with their docs and `requires` lines, and the size
//!   macros the listing declares;
//!
//! and `mod.rs`, the Rust `extern "C"` declarations of every function of the folder, for `include!`.
//!
//! The functions are built once per ABI (System V, Win64, AAPCS64, Apple's, Windows ARM64, LP64D), so each
//! target gets the prologues, unwind data and argument registers its ABI needs. The symbol prefix is applied
//! to the functions (and the labels named after them) before anything is printed.

use crate::emit::c_header::{self, HeaderSpec, RoleDoc, SizeMacro};
use crate::emit::gas::{self, Visibility};
use crate::emit::rust::SetTable;
use crate::emit::{nasm, rust, Origin};
use crate::error::GenError;
use crate::ir::{Function, Listing};
use crate::isa::aarch64::Aarch64;
use crate::isa::riscv64::Riscv64;
use crate::isa::x86_64::X86_64;
use crate::platform::Isa;
use crate::target::{Abi, Arch, Syntax, Target};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// A generated file: its path under the output folder and its contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path relative to the output folder, `/`-separated (`x86_64-linux/chacha20.S`).
    pub path: String,
    /// Contents.
    pub contents: String,
}

/// Builds one listing's functions for an ABI.
type Build<I> = Box<dyn Fn(Abi) -> Result<Vec<Function<I>>, GenError>>;

/// One listing: a name, a title and the functions of each architecture that has them.
///
/// ```
/// # use asmgen::{ListingSpec, Builder, CType};
/// # use asmgen::isa::x86_64::{regs::*, X86_64};
/// let spec = ListingSpec::new("demo", "A demonstration")
///     .source("src/kernels.rs")
///     .x86_64(|abi| {
///         let mut b = Builder::<X86_64>::new("demo_zero", abi, &[]);
///         let out = b.param("out", CType::U64Ptr);
///         b.mov(RAX, 0).mov(asmgen::isa::x86_64::mem(out, 0), RAX);
///         Ok(vec![b.finish()?])
///     })
///     .size("OUT_BYTES", 8, "Bytes demo_zero writes.");
/// ```
pub struct ListingSpec {
    name: String,
    title: String,
    titles: Vec<(Arch, String)>,
    source: String,
    doc: String,
    notes: Vec<(Arch, String)>,
    sizes: Vec<SizeMacro>,
    x86_64: Option<Build<X86_64>>,
    aarch64: Option<Build<Aarch64>>,
    riscv64: Option<Build<Riscv64>>,
}

impl ListingSpec {
    /// A listing named `name` (its files are `<name>.S`, `<prefix>_<name>.h`), described by `title`.
    pub fn new(name: &str, title: &str) -> ListingSpec {
        ListingSpec {
            name: name.into(),
            title: title.into(),
            titles: Vec::new(),
            source: String::new(),
            doc: String::new(),
            notes: Vec::new(),
            sizes: Vec::new(),
            x86_64: None,
            aarch64: None,
            riscv64: None,
        }
    }

    /// The title on `arch`, where it differs from the others (the instructions it uses).
    pub fn title_on(mut self, arch: Arch, title: &str) -> Self {
        self.titles.push((arch, title.into()));
        self
    }

    /// The kernel source the files name as theirs; `{arch}` in it becomes the architecture (`x86_64`).
    pub fn source(mut self, path: &str) -> Self {
        self.source = path.into();
        self
    }

    /// A paragraph for the C header's opening comment: what every function of the listing promises.
    pub fn doc(mut self, text: &str) -> Self {
        self.doc = text.into();
        self
    }

    /// A paragraph the C header adds on `arch` only (alignment, feature names).
    pub fn note(mut self, arch: Arch, text: &str) -> Self {
        self.notes.push((arch, text.into()));
        self
    }

    /// A size macro in the C header: `#define <PREFIX>_<LISTING>_<name> <value>`, under `doc`.
    pub fn size(mut self, name: &str, value: usize, doc: &str) -> Self {
        self.sizes.push(SizeMacro { name: name.to_string().into(), value, doc: doc.to_string().into() });
        self
    }

    /// The x86_64 functions, built for an ABI (System V, or Win64 for Windows).
    pub fn x86_64(mut self, build: impl Fn(Abi) -> Result<Vec<Function<X86_64>>, GenError> + 'static) -> Self {
        self.x86_64 = Some(Box::new(build));
        self
    }

    /// The aarch64 functions, built for an ABI (AAPCS64, Apple's, or Windows ARM64).
    pub fn aarch64(mut self, build: impl Fn(Abi) -> Result<Vec<Function<Aarch64>>, GenError> + 'static) -> Self {
        self.aarch64 = Some(Box::new(build));
        self
    }

    /// The riscv64 functions, built for LP64D.
    pub fn riscv64(mut self, build: impl Fn(Abi) -> Result<Vec<Function<Riscv64>>, GenError> + 'static) -> Self {
        self.riscv64 = Some(Box::new(build));
        self
    }

    fn has(&self, arch: Arch) -> bool {
        match arch {
            Arch::X86_64 => self.x86_64.is_some(),
            Arch::Aarch64 => self.aarch64.is_some(),
            Arch::Riscv64 => self.riscv64.is_some(),
        }
    }

    fn title_of(&self, arch: Arch) -> String {
        self.titles.iter().find(|(a, _)| *a == arch).map_or(&self.title, |(_, t)| t).clone()
    }

    fn source_of(&self, arch: Arch) -> String {
        self.source.replace("{arch}", arch_name(arch))
    }

    fn notes_of(&self, arch: Arch) -> String {
        let notes: Vec<&str> = self.notes.iter().filter(|(a, _)| *a == arch).map(|(_, n)| n.as_str()).collect();
        notes.join("\n\n")
    }
}

fn arch_name(arch: Arch) -> &'static str {
    match arch {
        Arch::X86_64 => "x86_64",
        Arch::Aarch64 => "aarch64",
        Arch::Riscv64 => "riscv64",
    }
}

/// Prints a NASM listing (x86_64 only).
type PrintNasm<I> = fn(Target, &Listing<I>, &Origin) -> Result<String, GenError>;

/// Kernel sets per target (the project's runtime dispatch tables; see [`Generator::kernel_sets`]).
type Sets = Box<dyn Fn(Target) -> Result<Vec<SetTable>, GenError>>;

/// Writes the listings, C headers and Rust declarations of some functions for some targets, or checks that
/// they are fresh.
///
/// ```no_run
/// # use asmgen::{Generator, ListingSpec, Target};
/// # fn main() -> Result<(), asmgen::GenError> {
/// # let spec = ListingSpec::new("demo", "A demonstration");
/// Generator::new("generated")
///     .targets(&Target::GENERATED)
///     .prefix("myapp")
///     .regenerate_command("cargo run -p xtask -- gen")
///     .check_command("cargo run -p xtask -- check")
///     .listing(spec)
///     .generate()?;
/// # Ok(())
/// # }
/// ```
pub struct Generator {
    out: PathBuf,
    targets: Vec<Target>,
    prefix: String,
    visibility: Visibility,
    regenerate: String,
    check: String,
    listings: Vec<ListingSpec>,
    roles: Vec<RoleDoc>,
    sets: Option<Sets>,
}

impl Generator {
    /// A generator writing under `out` (one folder per target), for every target ([`Target::GENERATED`]),
    /// with no symbol prefix, hidden symbols and `cargo build` as the command that regenerates the files.
    pub fn new(out: impl Into<PathBuf>) -> Generator {
        Generator {
            out: out.into(),
            targets: Target::GENERATED.to_vec(),
            prefix: String::new(),
            visibility: Visibility::Hidden,
            regenerate: "cargo build".into(),
            check: String::new(),
            listings: Vec::new(),
            roles: Vec::new(),
            sets: None,
        }
    }

    /// The targets to write (default: every one, [`Target::GENERATED`]). A listing without functions for a
    /// target's architecture has no files there.
    pub fn targets(mut self, targets: &[Target]) -> Self {
        self.targets = targets.to_vec();
        self
    }

    /// The symbol prefix: a function `chacha20_avx2` becomes `<prefix>_chacha20_avx2`, the header
    /// `<prefix>_<listing>.h` and its macros `<PREFIX>_<LISTING>_...`. A C identifier; empty (the default)
    /// for none. Checked by [`Generator::files`].
    pub fn prefix(mut self, prefix: &str) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The function symbols' visibility (default [`Visibility::Hidden`]: not exported from a shared library).
    pub fn visibility(mut self, visibility: Visibility) -> Self {
        self.visibility = visibility;
        self
    }

    /// The command that rewrites the files, printed in each one (default `cargo build`).
    pub fn regenerate_command(mut self, command: &str) -> Self {
        self.regenerate = command.into();
        self
    }

    /// The command that fails when the files are stale, printed in each one (default: none printed).
    pub fn check_command(mut self, command: &str) -> Self {
        self.check = command.into();
        self
    }

    /// Adds a listing.
    pub fn listing(mut self, listing: ListingSpec) -> Self {
        self.listings.push(listing);
        self
    }

    /// The project's kernel sets: roles with their C contracts, by which the headers group the prototypes,
    /// and per target the sets the runtime dispatches over (their symbols as the functions are named before
    /// the prefix, which the generator applies), written into the headers and `mod.rs`.
    #[doc(hidden)]
    pub fn kernel_sets(
        mut self,
        roles: Vec<RoleDoc>,
        sets: impl Fn(Target) -> Result<Vec<SetTable>, GenError> + 'static,
    ) -> Self {
        self.roles = roles;
        self.sets = Some(Box::new(sets));
        self
    }

    /// The output folder.
    pub fn out_dir(&self) -> &Path {
        &self.out
    }

    /// Every file, in memory, paths relative to the output folder.
    pub fn files(&self) -> Result<Vec<GeneratedFile>, GenError> {
        let mut files = Vec::new();
        for &target in &self.targets {
            files.extend(self.files_for(target)?);
        }
        Ok(files)
    }

    /// The files of one target, in memory.
    pub fn files_for(&self, target: Target) -> Result<Vec<GeneratedFile>, GenError> {
        self.check_prefix()?;
        match target.arch {
            Arch::X86_64 => self.render(target, |l| l.x86_64.as_ref(), Some(nasm_listing)),
            Arch::Aarch64 => self.render(target, |l| l.aarch64.as_ref(), None),
            Arch::Riscv64 => self.render(target, |l| l.riscv64.as_ref(), None),
        }
    }

    /// Writes every file that differs from what is on disk, and removes the files of the target folders that
    /// are no longer generated. Returns what it did.
    pub fn generate(&self) -> Result<Written, GenError> {
        let files = self.files()?;
        let io = |path: &Path, e: std::io::Error| GenError::new("generator", format!("{}: {e}", path.display()));
        let mut written = Written { files: files.len(), ..Written::default() };
        for f in &files {
            let path = self.out.join(&f.path);
            if std::fs::read_to_string(&path).ok().as_deref() == Some(f.contents.as_str()) {
                continue;
            }
            std::fs::create_dir_all(path.parent().expect("a file in a target folder")).map_err(|e| io(&path, e))?;
            std::fs::write(&path, &f.contents).map_err(|e| io(&path, e))?;
            written.changed.push(f.path.clone());
        }
        for rel in self.extra_files(&files) {
            let path = self.out.join(&rel);
            std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
            written.removed.push(rel);
        }
        Ok(written)
    }

    /// Checks that the files on disk are what [`Generator::generate`] would write: an error names each file
    /// that differs, is missing, or is no longer generated.
    pub fn check(&self) -> Result<usize, Stale> {
        let files = self.files().map_err(|e| Stale { out: self.out.clone(), problems: vec![e.to_string()] })?;
        let mut problems = Vec::new();
        for f in &files {
            match std::fs::read_to_string(self.out.join(&f.path)) {
                Ok(s) if s == f.contents => {}
                Ok(_) => problems.push(format!("{} differs from what the kernels generate", f.path)),
                Err(_) => problems.push(format!("{} is missing", f.path)),
            }
        }
        for rel in self.extra_files(&files) {
            problems.push(format!("{rel} is not generated by any kernel"));
        }
        if problems.is_empty() {
            Ok(files.len())
        } else {
            Err(Stale { out: self.out.clone(), problems })
        }
    }

    /// Files in the target folders that are not generated (stale leftovers).
    fn extra_files(&self, files: &[GeneratedFile]) -> Vec<String> {
        let wanted: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let dirs: BTreeSet<String> = self.targets.iter().map(|t| t.dir_name()).collect();
        let mut extra = Vec::new();
        for d in dirs {
            let Ok(entries) = std::fs::read_dir(self.out.join(&d)) else { continue };
            for e in entries.flatten().filter(|e| e.path().is_file()) {
                let rel = format!("{d}/{}", e.file_name().to_string_lossy());
                if !wanted.contains(rel.as_str()) {
                    extra.push(rel);
                }
            }
        }
        extra.sort();
        extra
    }

    fn check_prefix(&self) -> Result<(), GenError> {
        let p = &self.prefix;
        let ident =
            p.chars().enumerate().all(|(i, c)| c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()));
        if ident {
            Ok(())
        } else {
            Err(GenError::new("generator", format!("prefix {p:?} is not a C identifier")))
        }
    }

    /// What the files say about where they come from.
    fn origin<'a>(&'a self, source: &'a str) -> Origin<'a> {
        Origin { source, regenerate: &self.regenerate, check: &self.check }
    }

    /// `name` with the prefix.
    fn symbol(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}_{name}", self.prefix)
        }
    }

    /// The files of `target`, with `build` picking a listing's functions for its architecture and `nasm`
    /// printing the NASM flavour where the architecture has one.
    fn render<I: Isa>(
        &self,
        target: Target,
        build: impl Fn(&ListingSpec) -> Option<&Build<I>>,
        nasm: Option<PrintNasm<I>>,
    ) -> Result<Vec<GeneratedFile>, GenError> {
        let dir = target.dir_name();
        let mut listings = Vec::new();
        let mut sources = Vec::new();
        for spec in self.listings.iter().filter(|l| l.has(target.arch)) {
            let mut functions = build(spec).expect("has(arch)")(target.abi)?;
            for f in &mut functions {
                let name = self.symbol(&f.name);
                f.rename(&name);
            }
            listings.push(Listing { name: spec.name.clone(), title: spec.title_of(target.arch), functions });
            sources.push(spec.source_of(target.arch));
        }
        let mut files = Vec::new();
        for (l, source) in listings.iter().zip(&sources) {
            let contents = match (target.syntax, nasm) {
                (Syntax::Nasm, Some(nasm)) => nasm(target, l, &self.origin(source))?,
                (Syntax::Nasm, None) => {
                    return Err(GenError::new(&l.name, format!("{target}: no NASM listing for this architecture")))
                }
                (Syntax::Gas, _) => gas::listing_from(target, l, &self.origin(source), self.visibility)?,
            };
            files.push(GeneratedFile { path: format!("{dir}/{}.{}", l.name, target.syntax.extension()), contents });
        }
        // The header and the Rust declarations come with the GNU as flavour of a folder (the NASM listing sits
        // beside it), or with the NASM one where only that was asked for.
        let gas_beside = self.targets.iter().any(|t| t.dir_name() == dir && t.syntax == Syntax::Gas);
        if target.syntax == Syntax::Nasm && gas_beside {
            return Ok(files);
        }
        let mut sets = match &self.sets {
            Some(sets) => sets(target)?,
            None => Vec::new(),
        };
        for (_, sym) in sets.iter_mut().flat_map(|t| t.kernels.iter_mut()) {
            *sym = self.symbol(sym);
        }
        for (l, spec) in listings.iter().zip(self.listings.iter().filter(|l| l.has(target.arch))) {
            let notes = spec.notes_of(target.arch);
            let header = HeaderSpec {
                prefix: &self.prefix,
                origin: self.origin(""),
                sizes: &spec.sizes,
                rules: &spec.doc,
                notes: &notes,
                roles: &self.roles,
                sets: &sets,
            };
            let name = c_header::file_name(&self.prefix, &l.name);
            files.push(GeneratedFile { path: format!("{dir}/{name}"), contents: c_header::header(target, l, &header) });
        }
        if !listings.is_empty() {
            let contents = rust::declarations(target, &listings, &sets, &self.regenerate);
            files.push(GeneratedFile { path: format!("{dir}/mod.rs"), contents });
        }
        Ok(files)
    }
}

fn nasm_listing(target: Target, l: &Listing<X86_64>, origin: &Origin) -> Result<String, GenError> {
    nasm::listing_from(target, l, origin)
}

/// What [`Generator::generate`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Files generated in all.
    pub files: usize,
    /// Files written because they were missing or differed, relative to the output folder.
    pub changed: Vec<String>,
    /// Files removed because nothing generates them any more.
    pub removed: Vec<String>,
}

/// The files [`Generator::check`] found stale.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stale {
    /// The output folder.
    pub out: PathBuf,
    /// One line per file: what is wrong with it (or why generation failed).
    pub problems: Vec<String>,
}

impl fmt::Display for Stale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is stale:", self.out.display())?;
        for p in &self.problems {
            write!(f, "\n  {p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Stale {}
