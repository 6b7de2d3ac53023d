//! `cargo xtask audit [target] [--json]`: per function of every listing, what an auditor checks: the set and
//! role it serves, the features the table says it requires and, on x86_64, those iced-x86 finds in the lowered
//! bytes (a disagreement is an error: the table's annotation is wrong), code and stack bytes, constants,
//! instruction mix, registers and the callee-saved registers the prologue preserves.

use crate::json::Json;
use asmgen::ir::{Cfi, Item};
use asmgen::isa::riscv64::Riscv64;
use asmgen::isa::x86_64::X86Feature;
use asmgen::lower::Lower;
use asmgen::sem::ct::check_function;
use asmgen::target::Syntax;
use asmgen::{Arch, Feature, FeatureSet, Function, Isa, Listing, Target};
use asmgen_kernels::catalog::{self, KernelSet};
use iced_x86::{CpuidFeature, Decoder, DecoderOptions, FlowControl, InstructionInfoFactory, OpAccess, OpKind};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// The constant-time verdict of a listing function no kernel set serves. The kernels of every set get the
/// checker's (`asmgen::sem::ct`, [`constant_time`]; riscv64 at two VLENs, [`check_riscv64`]); the JIT's
/// fixed-size variants, in no listing, are checked by the tests (tests/src/ct.rs).
pub const CONSTANT_TIME: &str = "not checked";
/// The verdict of an x86_64 or aarch64 kernel the checker found clean.
pub const CLEAN: &str = "constant time (interpreted at 1, 3, 17 blocks: no branch, address or variable-time \
                         instruction depends on a secret; the counter is public)";
/// The verdict of a riscv64 kernel the checker found clean.
pub const CLEAN_RISCV64: &str = "constant time (interpreted at 1, 3, 17 blocks, VLEN 128 and 256: no branch, \
                                 address or vector length depends on a secret; the counter is public)";

/// How many mnemonics the text shows per function (the JSON has them all).
const TOP_MNEMONICS: usize = 8;

/// What iced-x86 finds in a function's lowered bytes (x86_64 only).
pub struct Decoded {
    /// Features its CPUID annotations name (the baseline and the IBT landing pad left out), by table name.
    pub features: Vec<String>,
    /// Features iced-x86 finds that the table's record lacks: the annotation is wrong (too weak).
    pub missing: Vec<String>,
    /// Features the table's record has that no decoded instruction needs: the annotation is wrong (too strong).
    pub extra: Vec<String>,
    /// Instructions by class: branch, memory, vector, scalar.
    pub classes: Vec<(String, usize)>,
    /// Registers read (full general-purpose registers; vector registers as named).
    pub read: Vec<String>,
    /// Registers written.
    pub written: Vec<String>,
}

/// One function's audit.
pub struct Row {
    /// The listing (`ghash`, `sm4`).
    pub listing: String,
    /// The symbol.
    pub symbol: String,
    /// `set/role` for each kernel set that uses it.
    pub roles: Vec<String>,
    /// The features the table's annotations require (the builder's record).
    pub required: Vec<String>,
    /// x86_64: what the decoder finds.
    pub decoded: Option<Decoded>,
    /// Bytes of code (landing pad to return) in the lowered image; none where the lowering fails.
    pub code_bytes: Option<usize>,
    /// Bytes the prologue takes from the stack (pushes, allocation), the return address not counted.
    pub stack_bytes: i64,
    /// Constants: name and bytes.
    pub constants: Vec<(String, usize)>,
    /// Instructions in the body (prologue and epilogue not counted).
    pub instructions: usize,
    /// Body instructions per mnemonic, most frequent first.
    pub mix: Vec<(String, usize)>,
    /// Registers the body names.
    pub registers: Vec<String>,
    /// Callee-saved registers the prologue preserves.
    pub saved: Vec<String>,
    /// The constant-time checker's verdict ([`CONSTANT_TIME`] where it does not run).
    pub constant_time: String,
}

/// The audit of `target` (a GNU as row).
pub fn audit(target: Target) -> Result<Vec<Row>, String> {
    let e = |e: asmgen::GenError| e.to_string();
    match target.arch {
        Arch::X86_64 => {
            let mut rows = rows(target, &catalog::x86_64(target).map_err(e)?, catalog::X86_64_SETS, Some(decode))?;
            constant_time(target, &mut rows, catalog::X86_64_SETS, |f, p, n, c| check_function(f, p, n, c, ()), CLEAN)?;
            Ok(rows)
        }
        Arch::Aarch64 => {
            let mut rows = rows(target, &catalog::aarch64(target).map_err(e)?, catalog::AARCH64_SETS, None)?;
            constant_time(
                target,
                &mut rows,
                catalog::AARCH64_SETS,
                |f, p, n, c| check_function(f, p, n, c, ()),
                CLEAN,
            )?;
            Ok(rows)
        }
        Arch::Riscv64 => {
            let mut rows = rows(target, &catalog::riscv64(target).map_err(e)?, catalog::RISCV64_SETS, None)?;
            constant_time(target, &mut rows, catalog::RISCV64_SETS, check_riscv64, CLEAN_RISCV64)?;
            Ok(rows)
        }
    }
}

/// Decodes one function's bytes and compares the features found with the table's record.
type DecodeFn<I> = fn(&[u8], &FeatureSet<<I as asmgen::InstructionSet>::Feature>) -> Decoded;

fn rows<I: Isa + Lower>(
    target: Target,
    listings: &[Listing<I>],
    sets: &[KernelSet<I>],
    decode: Option<DecodeFn<I>>,
) -> Result<Vec<Row>, String> {
    let roles = roles(target, sets)?;
    let mut out = Vec::new();
    for l in listings {
        let refs: Vec<&Function<I>> = l.functions.iter().collect();
        let image = asmgen::lower::lower(&refs).ok();
        for f in &l.functions {
            let sym = image.as_ref().and_then(|i| i.symbol(&f.name).map(|s| (i, s)));
            let decoded = match (decode, sym) {
                (Some(d), Some((i, s))) => Some(d(&i.bytes[s.offset..s.offset + s.len], &f.required)),
                _ => None,
            };
            let mut row = describe(f);
            row.listing = l.name.clone();
            row.roles = roles.get(&f.name).cloned().unwrap_or_default();
            row.decoded = decoded;
            row.code_bytes = sym.map(|(_, s)| s.len);
            out.push(row);
        }
    }
    Ok(out)
}

/// `set/role` of every kernel of `sets`; a fixed-size variant (`<kernel>_n<count>`) is listed under its
/// kernel's roles with the suffix `(n<count>)`.
fn roles<I: Isa>(target: Target, sets: &[KernelSet<I>]) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut m: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in sets {
        let t = s.table(target.abi).map_err(|e| e.to_string())?;
        for (role, sym) in t.kernels {
            m.entry(sym).or_default().push(format!("{}/{role}", t.name));
        }
    }
    Ok(m)
}

/// A constant-time checker: `check(function, parameter names, blocks, secret counter)`.
type CheckFn<I> = fn(&Function<I>, &[&str], usize, bool) -> Result<Vec<asmgen::sem::ct::Finding>, String>;

/// Fills the verdict of every kernel of the sets from the constant-time checker `check` (`clean` when it finds
/// nothing): interpreted with its secret parameters tainted (`asmgen::sem::ct::PARAMS`) over 1, 3 and 17 blocks
/// (once for the setup roles).
fn constant_time<I: Isa>(
    target: Target,
    rows: &mut [Row],
    sets: &[KernelSet<I>],
    check: CheckFn<I>,
    clean: &str,
) -> Result<(), String> {
    for set in sets {
        for k in set.build_all(target.abi).map_err(|e| e.to_string())? {
            let Some(row) = rows.iter_mut().find(|r| r.symbol == k.function.name) else { continue };
            if row.constant_time != CONSTANT_TIME {
                continue;
            }
            let names: Vec<&str> = k.role.params().iter().map(|p| p.0).collect();
            let blocks = names.iter().any(|n| *n == "nblocks" || *n == "len");
            let mut found = Vec::new();
            for &n in if blocks { &[1, 3, 17][..] } else { &[0] } {
                found.extend(check(&k.function, &names, n, false)?);
            }
            row.constant_time = verdict(found, clean);
        }
    }
    Ok(())
}

/// The verdict from the checker's findings: `clean`, or the findings.
fn verdict(mut found: Vec<asmgen::sem::ct::Finding>, clean: &str) -> String {
    found.dedup_by(|a, b| a.index == b.index && a.what == b.what);
    match found.is_empty() {
        true => clean.to_string(),
        false => {
            let each: Vec<String> = found.iter().map(|f| format!("#{} {}: {}", f.index, f.inst, f.what)).collect();
            format!("NOT constant time: {}", each.join("; "))
        }
    }
}

/// The riscv64 checker for [`constant_time`]: each kernel interpreted at VLEN 128 and 256.
fn check_riscv64(
    f: &Function<Riscv64>,
    names: &[&str],
    blocks: usize,
    secret_counter: bool,
) -> Result<Vec<asmgen::sem::ct::Finding>, String> {
    let mut found = Vec::new();
    for vlen in [128, 256] {
        found.extend(check_function(f, names, blocks, secret_counter, vlen)?);
    }
    Ok(found)
}

/// The part of a row the description alone gives.
fn describe<I: Isa>(f: &Function<I>) -> Row {
    let regs = asmgen::report::registers(f);
    let (prologue, _) = I::prologue_epilogue(f.abi, &f.frame);
    let stack_bytes = prologue.iter().map(stack_step).sum();
    let mut mix: Vec<(String, usize)> = asmgen::report::mix(f).into_iter().map(|(m, n)| (m.to_string(), n)).collect();
    mix.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Row {
        listing: String::new(),
        symbol: f.name.clone(),
        roles: Vec::new(),
        required: f.required.iter().map(|x| x.name().to_string()).collect(),
        decoded: None,
        code_bytes: None,
        stack_bytes,
        constants: f.consts.iter().map(|c| (c.label.name().to_string(), c.bytes.len())).collect(),
        instructions: f.insts().count(),
        mix,
        registers: regs.iter().map(|r| I::reg_name(*r)).collect(),
        saved: f.frame.saved.iter().map(|r| I::reg_name(*r)).collect(),
        constant_time: CONSTANT_TIME.to_string(),
    }
}

/// The stack bytes one prologue item takes, from its unwind record.
fn stack_step<I: Isa>(item: &Item<I>) -> i64 {
    match item {
        Item::Cfi(Cfi::AdjustCfaOffset(n)) | Item::Cfi(Cfi::Alloc(n)) => i64::from(*n),
        Item::Cfi(Cfi::Push(_)) => 8,
        Item::Cfi(Cfi::SaveRegs { offset, pre_index: true, .. }) => i64::from(*offset),
        _ => 0,
    }
}

/// The table's feature for each CPUID feature iced-x86 reports; a CPUID feature in neither this table nor
/// [`BASELINE`] is reported as itself (and so never agrees with the table).
const CPUID_TO_TABLE: &[(CpuidFeature, X86Feature)] = &[
    (CpuidFeature::SSSE3, X86Feature::Ssse3),
    (CpuidFeature::SSE4_1, X86Feature::Sse41),
    (CpuidFeature::AES, X86Feature::Aes),
    (CpuidFeature::PCLMULQDQ, X86Feature::Pclmulqdq),
    (CpuidFeature::AVX, X86Feature::Avx),
    (CpuidFeature::AVX2, X86Feature::Avx2),
    (CpuidFeature::BMI2, X86Feature::Bmi2),
    (CpuidFeature::ADX, X86Feature::Adx),
    (CpuidFeature::SHA, X86Feature::Sha),
    (CpuidFeature::VAES, X86Feature::Vaes),
    (CpuidFeature::VPCLMULQDQ, X86Feature::Vpclmulqdq),
    (CpuidFeature::GFNI, X86Feature::Gfni),
    (CpuidFeature::AVX512F, X86Feature::Avx512f),
    (CpuidFeature::AVX512BW, X86Feature::Avx512bw),
    (CpuidFeature::AVX512VL, X86Feature::Avx512vl),
];

/// CPUID features every x86-64 CPU has (and the IBT landing pad, `endbr64`, a NOP on CPUs without IBT, which
/// the table does not count as required).
const BASELINE: &[CpuidFeature] = &[
    CpuidFeature::INTEL8086,
    CpuidFeature::INTEL186,
    CpuidFeature::INTEL286,
    CpuidFeature::INTEL386,
    CpuidFeature::INTEL486,
    CpuidFeature::X64,
    CpuidFeature::CMOV,
    CpuidFeature::SSE,
    CpuidFeature::SSE2,
    CpuidFeature::MULTIBYTENOP,
    CpuidFeature::CET_IBT,
];

/// Decodes `code` with iced-x86 and compares the features its instructions need with `required` (the table's
/// record): [`Decoded::missing`] and [`Decoded::extra`] are empty when they agree.
pub fn decode(code: &[u8], required: &FeatureSet<X86Feature>) -> Decoded {
    let mut unknown: BTreeSet<String> = BTreeSet::new();
    let mut table = FeatureSet::<X86Feature>::empty();
    let (mut read, mut written) = (BTreeSet::new(), BTreeSet::new());
    let mut classes = [0usize; 4];
    let mut info = InstructionInfoFactory::new();
    for ins in &mut Decoder::new(64, code, DecoderOptions::NONE) {
        for c in ins.cpuid_features() {
            match CPUID_TO_TABLE.iter().find(|(k, _)| k == c) {
                Some((_, f)) => table.insert(*f),
                None if BASELINE.contains(c) => {}
                None => {
                    unknown.insert(format!("{c:?}"));
                }
            }
        }
        classes[class(&ins)] += 1;
        used_registers(&mut info, &ins, &mut read, &mut written);
    }
    let names = |s: FeatureSet<X86Feature>| s.iter().map(|f| f.name().to_string()).collect::<Vec<_>>();
    let mut missing = names(table.difference(*required));
    missing.extend(unknown.iter().cloned());
    let mut features = names(table);
    features.extend(unknown);
    Decoded {
        features,
        missing,
        extra: names(required.difference(table)),
        classes: ["branch", "memory", "vector", "scalar"]
            .iter()
            .zip(classes)
            .map(|(k, n)| (k.to_string(), n))
            .collect(),
        read: read.into_iter().map(|r| r.2).collect(),
        written: written.into_iter().map(|r| r.2).collect(),
    }
}

/// Adds the registers `ins` reads and writes (general-purpose ones as their 64-bit register).
fn used_registers(
    info: &mut InstructionInfoFactory,
    ins: &iced_x86::Instruction,
    read: &mut BTreeSet<(char, usize, String)>,
    written: &mut BTreeSet<(char, usize, String)>,
) {
    for u in info.info(ins).used_registers() {
        let name = register_name(u.register());
        let (reads, writes) = match u.access() {
            OpAccess::Read | OpAccess::CondRead => (true, false),
            OpAccess::Write | OpAccess::CondWrite => (false, true),
            OpAccess::ReadWrite | OpAccess::ReadCondWrite => (true, true),
            _ => (false, false),
        };
        if reads {
            read.insert(name.clone());
        }
        if writes {
            written.insert(name);
        }
    }
}

/// A decoded register's name in [`Decoded::read`] and [`Decoded::written`]: a general-purpose register as its
/// 64-bit register, a vector register as `xmm<n>` (iced-x86 reports a VEX write as one of the whole zmm, whose
/// upper bits it zeroes), sorting by kind and number (`r` general-purpose, `v` vector, `s` other).
fn register_name(r: iced_x86::Register) -> (char, usize, String) {
    if r.is_gpr() {
        let f = r.full_register();
        ('r', f.number(), format!("{f:?}").to_lowercase())
    } else if r.is_vector_register() {
        ('v', r.number(), format!("xmm{}", r.number()))
    } else {
        ('s', r.number(), format!("{r:?}").to_lowercase())
    }
}

/// 0 branch (any flow control), 1 memory operand, 2 vector register operand, 3 scalar.
fn class(ins: &iced_x86::Instruction) -> usize {
    if ins.flow_control() != FlowControl::Next {
        return 0;
    }
    let ops = 0..ins.op_count();
    if ops.clone().any(|i| ins.op_kind(i) == OpKind::Memory) {
        return 1;
    }
    if ops.into_iter().any(|i| ins.op_kind(i) == OpKind::Register && ins.op_register(i).is_vector_register()) {
        return 2;
    }
    3
}

/// The GNU as rows `which` names (a folder name such as `x86_64-linux`; all when none): a flavour in another
/// syntax has the same functions.
pub fn targets(which: Option<&str>) -> Result<Vec<Target>, String> {
    let ts: Vec<Target> = Target::GENERATED
        .into_iter()
        .filter(|t| t.syntax == Syntax::Gas && which.is_none_or(|w| w == t.dir_name()))
        .collect();
    if ts.is_empty() {
        let names: Vec<String> =
            Target::GENERATED.iter().map(|t| t.dir_name()).collect::<BTreeSet<_>>().into_iter().collect();
        return Err(format!("no target {:?}; one of: {}", which.unwrap_or_default(), names.join(", ")));
    }
    Ok(ts)
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(" ")
    }
}

fn pairs(v: &[(String, usize)], sep: &str) -> String {
    v.iter().map(|(k, n)| format!("{k}{sep}{n}")).collect::<Vec<_>>().join(", ")
}

/// One row as text for people.
pub fn text(r: &Row) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} ({}.S)", r.symbol, r.listing);
    let _ = writeln!(s, "  sets/roles:     {}", list(&r.roles));
    let req = if r.required.is_empty() { "baseline".to_string() } else { r.required.join(", ") };
    let _ = writeln!(s, "  requires:       {req} (table)");
    if let Some(d) = &r.decoded {
        let verdict = if d.missing.is_empty() && d.extra.is_empty() {
            "agrees".to_string()
        } else {
            format!("DISAGREES: missing from the table {:?}, not needed {:?}", d.missing, d.extra)
        };
        let _ = writeln!(s, "  decoded:        {} (iced-x86), {verdict}", list(&d.features));
    }
    let code = r.code_bytes.map_or("unknown (lowering failed)".into(), |n| n.to_string());
    let _ = writeln!(s, "  bytes:          code {code}, stack {}", r.stack_bytes);
    let consts: Vec<(String, usize)> = r.constants.clone();
    let _ = writeln!(s, "  constants:      {}", if consts.is_empty() { "none".into() } else { pairs(&consts, " ") });
    let top: Vec<(String, usize)> = r.mix.iter().take(TOP_MNEMONICS).cloned().collect();
    let more = if r.mix.len() > TOP_MNEMONICS { ", ..." } else { "" };
    let _ = writeln!(s, "  instructions:   {} ({}{more})", r.instructions, pairs(&top, " "));
    if let Some(d) = &r.decoded {
        let _ = writeln!(s, "  classes:        {} (decoded, prologue and epilogue too)", pairs(&d.classes, " "));
        let _ = writeln!(s, "  read (decoded): {}", list(&d.read));
        let _ = writeln!(s, "  written:        {}", list(&d.written));
    }
    let _ = writeln!(s, "  registers:      {} (named by the body)", list(&r.registers));
    let _ = writeln!(s, "  callee-saved:   {} (preserved by the prologue)", list(&r.saved));
    let _ = writeln!(s, "  constant time:  {}", r.constant_time);
    s
}

/// One row as JSON.
pub fn json(target: Target, r: &Row) -> Json {
    let decoded = r.decoded.as_ref().map_or(Json::Null, |d| {
        Json::Obj(vec![
            ("features", Json::strs(&d.features)),
            ("agrees", Json::Bool(d.missing.is_empty() && d.extra.is_empty())),
            ("missing_from_table", Json::strs(&d.missing)),
            ("not_needed", Json::strs(&d.extra)),
            ("classes", Json::counts(&d.classes)),
            ("read", Json::strs(&d.read)),
            ("written", Json::strs(&d.written)),
        ])
    });
    let consts = r.constants.iter().map(|(n, b)| Json::Obj(vec![("name", Json::str(n)), ("bytes", Json::num(*b))]));
    Json::Obj(vec![
        ("target", Json::str(target.dir_name())),
        ("listing", Json::str(&r.listing)),
        ("symbol", Json::str(&r.symbol)),
        ("roles", Json::strs(&r.roles)),
        ("requires", Json::strs(&r.required)),
        ("decoded", decoded),
        ("code_bytes", r.code_bytes.map_or(Json::Null, Json::num)),
        ("stack_bytes", Json::Int(r.stack_bytes)),
        ("constants", Json::Arr(consts.collect())),
        ("instructions", Json::num(r.instructions)),
        ("mnemonics", Json::counts(&r.mix)),
        ("registers", Json::strs(&r.registers)),
        ("callee_saved", Json::strs(&r.saved)),
        ("constant_time", Json::str(&r.constant_time)),
    ])
}

/// `audit [target] [--json]`: prints every function's audit; fails when iced-x86 disagrees with the table.
pub fn run(args: &[String]) -> Result<(), String> {
    let as_json = args.iter().any(|a| a == "--json");
    let which = args.iter().find(|a| *a != "--json").map(String::as_str);
    let (mut all, mut wrong) = (Vec::new(), Vec::new());
    for t in targets(which)? {
        if !as_json {
            println!("== {t}");
        }
        for r in audit(t)? {
            if r.decoded.as_ref().is_some_and(|d| !d.missing.is_empty() || !d.extra.is_empty()) {
                wrong.push(format!("{t}: {}", r.symbol));
            }
            if as_json {
                all.push(json(t, &r));
            } else {
                print!("{}", text(&r));
            }
        }
    }
    if as_json {
        println!("{}", Json::Arr(all).text());
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("the table's feature annotations disagree with iced-x86 for:\n  {}", wrong.join("\n  ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use asmgen::isa::x86_64::X86_64;

    #[test]
    fn x86_64_linux_lists_every_catalog_function_and_the_decoder_agrees() {
        let t = Target::X86_64_LINUX;
        let rows = audit(t).unwrap();
        let want: Vec<String> =
            catalog::x86_64(t).unwrap().into_iter().flat_map(|l| l.functions).map(|f| f.name).collect();
        assert_eq!(rows.iter().map(|r| r.symbol.clone()).collect::<Vec<_>>(), want);
        for r in &rows {
            let d = r.decoded.as_ref().expect("x86_64 rows are decoded");
            assert!(d.missing.is_empty() && d.extra.is_empty(), "{}: {:?} {:?}", r.symbol, d.missing, d.extra);
            assert_eq!(d.features, r.required, "{}", r.symbol);
            assert!(!r.roles.is_empty(), "{} serves no set", r.symbol);
            assert!(r.code_bytes.is_some_and(|n| n > r.instructions), "{}", r.symbol);
            assert!(text(r).contains(&format!("constant time:  {CLEAN}")), "{}: {}", r.symbol, r.constant_time);
        }
    }

    #[test]
    fn riscv64_kernels_get_the_checkers_verdict() {
        let rows = audit(Target::RISCV64_LINUX).unwrap();
        let kernels = rows.iter().filter(|r| r.roles.iter().any(|x| !x.contains("(n")));
        let (mut n, mut fixed) = (0, 0);
        for r in kernels {
            assert_eq!(r.constant_time, CLEAN_RISCV64, "{}", r.symbol);
            n += 1;
        }
        for r in rows.iter().filter(|r| r.constant_time == CONSTANT_TIME) {
            assert!(r.roles.iter().all(|x| x.contains("(n")), "{} not checked", r.symbol);
            fixed += 1;
        }
        assert!(n > 20, "only {n} riscv64 kernels checked ({fixed} fixed-size variants not)");
    }

    #[test]
    fn aarch64_functions_get_the_checkers_verdict() {
        for t in [Target::AARCH64_LINUX, Target::AARCH64_WINDOWS] {
            let rows = audit(t).unwrap();
            assert!(!rows.is_empty());
            for r in &rows {
                assert_eq!(r.constant_time, CLEAN, "{}", r.symbol);
            }
        }
    }

    /// The lowered bytes and table record of the first x86_64-linux function that requires `f`.
    fn lowered_with(f: X86Feature) -> (Vec<u8>, FeatureSet<X86Feature>) {
        let ls = catalog::x86_64(Target::X86_64_LINUX).unwrap();
        let func = ls.iter().flat_map(|l| &l.functions).find(|x| x.required.contains(f)).unwrap();
        let image = asmgen::lower::lower::<X86_64>(&[func]).unwrap();
        let s = image.symbol(&func.name).unwrap();
        (image.bytes[s.offset..s.offset + s.len].to_vec(), func.required)
    }

    #[test]
    fn a_wrong_feature_annotation_is_caught() {
        let (code, required) = lowered_with(X86Feature::Avx2);
        let d = decode(&code, &required);
        assert!(d.missing.is_empty() && d.extra.is_empty());
        // The table forgets AVX2 for a function that uses ymm integer instructions: too weak.
        let d = decode(&code, &required.difference(FeatureSet::of(&[X86Feature::Avx2])));
        assert_eq!(d.missing, ["AVX2"]);
        // The table claims BMI2, which no instruction needs: too strong.
        let d = decode(&code, &required.union(FeatureSet::of(&[X86Feature::Bmi2])));
        assert_eq!((d.missing.len(), d.extra.clone()), (0, vec!["BMI2".to_string()]));
    }

    #[test]
    fn stack_bytes_come_from_the_prologue() {
        // Win64 saves xmm6-xmm15 the body uses: pushes plus an aligned area; System V leaf kernels take nothing.
        let win = audit(Target::X86_64_WINDOWS).unwrap();
        let r = win.iter().find(|r| r.saved.iter().any(|s| s.starts_with("xmm"))).unwrap();
        let gprs = r.saved.iter().filter(|s| !s.starts_with("xmm")).count() as i64;
        let vecs = r.saved.len() as i64 - gprs;
        assert_eq!(r.stack_bytes, 8 * gprs + 16 * vecs + if gprs % 2 == 0 { 8 } else { 0 });
        let sysv = audit(Target::X86_64_LINUX).unwrap();
        assert!(sysv.iter().filter(|r| r.saved.is_empty()).all(|r| r.stack_bytes == 0));
    }
}
