//! The benchmark's output beside its text tables (`cargo xtask bench --json FILE --svg DIR`): the figures of one
//! run as data ([`Figures`]), written as JSON ([`Figures::to_json`]) and drawn as one SVG line chart per kernel
//! family ([`svg::family_svg`]); the command line ([`Args::parse`]); and the OpenSSL peer ([`openssl`]).
//! They live in the library, not in the binary, so that tests/tests/bench_output.rs can check them on a small
//! fixed figure set.

pub mod dl;
pub mod openssl;
pub mod svg;

use std::fmt::Write as _;
use std::path::PathBuf;

/// The largest message `--sizes` takes, in bytes.
pub const MAX_SIZE: usize = 65536;

/// The benchmark's command line: `[FILTER] [--json FILE] [--svg DIR] [--libgcrypt DIR] [--sizes LIST]`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Args {
    /// A kind ("sm4-ctr"), a prefix of several ("sm4"), or "jit" (the JIT report only).
    pub filter: Option<String>,
    /// Where to write the figures as JSON.
    pub json: Option<PathBuf>,
    /// The folder for one SVG chart per family.
    pub svg: Option<PathBuf>,
    /// The folder to load libgcrypt from (`libgcrypt.so.20`, and `libgpg-error.so.0` if it is there) instead
    /// of the system's; the environment variable `ASMGEN_LIBGCRYPT_DIR` names it too, the flag wins.
    pub libgcrypt: Option<PathBuf>,
    /// The message sizes in bytes instead of the default ones (`--sizes 16,1500,8191`: each 1..=[`MAX_SIZE`]);
    /// a kind that takes whole blocks only runs each size rounded down to whole blocks (at least one).
    pub sizes: Option<Vec<usize>>,
}

impl Args {
    /// Parses the arguments after the program name.
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Args, String> {
        let mut out = Args::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            let mut value = |flag: &str| it.next().ok_or_else(|| format!("{flag} needs a value"));
            match a.as_str() {
                "--json" => out.json = Some(value("--json")?.into()),
                "--svg" => out.svg = Some(value("--svg")?.into()),
                "--libgcrypt" => out.libgcrypt = Some(value("--libgcrypt")?.into()),
                "--sizes" => out.sizes = Some(parse_sizes(&value("--sizes")?)?),
                f if f.starts_with('-') => return Err(format!("unknown option {f}")),
                _ if out.filter.is_some() => return Err(format!("a second filter {a}")),
                _ => out.filter = Some(a),
            }
        }
        Ok(out)
    }
}

/// `--sizes`' list: byte counts separated by commas, each 1..=[`MAX_SIZE`].
fn parse_sizes(list: &str) -> Result<Vec<usize>, String> {
    list.split(',')
        .map(|s| match s.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_SIZE).contains(&n) => Ok(n),
            Ok(n) => Err(format!("--sizes: {n} is not between 1 and {MAX_SIZE} bytes")),
            Err(_) => Err(format!("--sizes: `{s}` is not a byte count (a list such as 16,1500,8191)")),
        })
        .collect()
}

/// The machine a run was made on.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    /// The CPU model (Linux: /proc/cpuinfo's "model name"), or the architecture.
    pub cpu: String,
    /// The CPU features the kernels select on (the JIT's view of the host).
    pub features: Vec<String>,
    /// The core clock in GHz at the start of the run (x86_64; each family's sizes have their own, see
    /// [`Family::ghz`]).
    pub ghz: Option<f64>,
    /// The date of the run, UTC, as YYYY-MM-DD.
    pub date: String,
    /// The 1-minute load average at the start (Linux), so a busy machine shows.
    pub load: Option<f64>,
}

impl Machine {
    /// A one-line description: CPU, clock, date.
    pub fn describe(&self) -> String {
        let ghz = self.ghz.map(|g| format!(" at {g:.2} GHz")).unwrap_or_default();
        format!("{}{ghz}, {}", self.cpu, self.date)
    }
}

/// One measurement: a contender at one message size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Message size in bytes.
    pub size: usize,
    /// Throughput in 10^6 bytes per second.
    pub mbs: f64,
    /// Core cycles per byte (absent where the clock was not calibrated).
    pub cpb: Option<f64>,
}

/// One contender's line.
#[derive(Debug, Clone)]
pub struct Series {
    /// The contender as the text table names it.
    pub contender: String,
    /// Whether it is this project's code (or a peer's).
    pub ours: bool,
    /// Its figures by message size.
    pub points: Vec<Point>,
}

/// One kernel family ("GHASH", "SM4-CTR"): every contender's figures, and the peers that were missing.
#[derive(Debug, Clone)]
pub struct Family {
    /// The family as the text table's heading names it.
    pub name: String,
    /// One per contender, in table order (the first is ours, best backend).
    pub series: Vec<Series>,
    /// Peers that could not be measured ("n/a"), with why.
    pub missing: Vec<String>,
    /// The core clock in GHz while each message size was measured (sampled between the contenders'
    /// batches; one per size, in the points' order), which turns that size's ns/B into c/B.
    pub ghz: Vec<Option<f64>>,
}

/// All figures of one run.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    /// Where they were measured.
    pub machine: Machine,
    /// How: samples, batch time.
    pub method: String,
    /// Per family, in run order.
    pub families: Vec<Family>,
}

/// `s` as a JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A number as JSON (`null` when absent or not finite).
fn json_num(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.4}"),
        _ => "null".into(),
    }
}

impl Figures {
    /// The figures as a JSON document: `{"machine": {...}, "method": "...", "families": [{"name", "missing",
    /// "ghz": [per size], "series": [{"contender", "ours", "points": [{"size", "mbs", "cpb"}]}]}]}`.
    pub fn to_json(&self) -> String {
        let m = &self.machine;
        let features: Vec<String> = m.features.iter().map(|f| json_str(f)).collect();
        let mut o = String::from("{\n");
        let _ = writeln!(
            o,
            "  \"machine\": {{\"cpu\": {}, \"features\": [{}], \"ghz\": {}, \"date\": {}, \"load\": {}}},",
            json_str(&m.cpu),
            features.join(", "),
            json_num(m.ghz),
            json_str(&m.date),
            json_num(m.load)
        );
        let _ = writeln!(o, "  \"method\": {},", json_str(&self.method));
        o.push_str("  \"families\": [");
        for (fi, f) in self.families.iter().enumerate() {
            let missing: Vec<String> = f.missing.iter().map(|s| json_str(s)).collect();
            let ghz: Vec<String> = f.ghz.iter().map(|&g| json_num(g)).collect();
            let _ = write!(
                o,
                "{}\n    {{\"name\": {}, \"missing\": [{}], \"ghz\": [{}], \"series\": [",
                if fi == 0 { "" } else { "," },
                json_str(&f.name),
                missing.join(", "),
                ghz.join(", ")
            );
            for (si, s) in f.series.iter().enumerate() {
                let points: Vec<String> = s
                    .points
                    .iter()
                    .map(|p| {
                        format!(
                            "{{\"size\": {}, \"mbs\": {}, \"cpb\": {}}}",
                            p.size,
                            json_num(Some(p.mbs)),
                            json_num(p.cpb)
                        )
                    })
                    .collect();
                let _ = write!(
                    o,
                    "{}\n      {{\"contender\": {}, \"ours\": {}, \"points\": [{}]}}",
                    if si == 0 { "" } else { "," },
                    json_str(&s.contender),
                    s.ours,
                    points.join(", ")
                );
            }
            o.push_str("\n    ]}");
        }
        o.push_str("\n  ]\n}\n");
        o
    }
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock (days to civil date: Howard Hinnant's published
/// algorithm, written out here).
pub fn utc_date() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    civil_date(secs / 86_400)
}

/// Days since 1970-01-01 as YYYY-MM-DD.
pub fn civil_date(days: u64) -> String {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The CPU model (Linux: /proc/cpuinfo), else the architecture.
pub fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let Some(name) = field("model name").or_else(|| field("Model")) else {
        return std::env::consts::ARCH.to_string();
    };
    // Virtual machines often name only the vendor ("AMD EPYC"): the family and model say which core it is.
    match (field("cpu family").and_then(|f| f.parse().ok()), field("model").and_then(|m| m.parse().ok())) {
        (Some(family), Some(model)) => match amd_core(&name, family, model) {
            Some(core) => format!("{name} (family {family}, model {model}: {core})"),
            None => format!("{name} (family {family}, model {model})"),
        },
        _ => name,
    }
}

/// The AMD core of a family and model (AMD's published numbering), where the name is AMD's.
fn amd_core(name: &str, family: u32, model: u32) -> Option<&'static str> {
    if !name.starts_with("AMD") {
        return None;
    }
    match (family, model) {
        (0x17, 0x00..=0x2f) => Some("Zen / Zen+"),
        (0x17, _) => Some("Zen 2"),
        (0x19, 0x10..=0x1f | 0x60..=0x7f | 0xa0..=0xaf) => Some("Zen 4"),
        (0x19, _) => Some("Zen 3"),
        (0x1a, _) => Some("Zen 5"),
        _ => None,
    }
}

/// The 1-minute load average (Linux).
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}
