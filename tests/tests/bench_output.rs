//! The benchmark's outputs on a small fixed figure set (no timing): the JSON document parses and holds every
//! figure, each SVG chart parses as XML with one line and one legend entry per contender and the missing peers
//! in a footnote, and the command line parses (and rejects what it should).

use asmgen_tests::bench::{civil_date, json_str, svg::family_svg, Args, Family, Figures, Machine, Point, Series};

fn series(name: &str, ours: bool, cpb: [f64; 3]) -> Series {
    let points =
        [16, 256, 4096].into_iter().zip(cpb).map(|(size, c)| Point { size, mbs: 3.0e3 / c, cpb: Some(c) }).collect();
    Series { contender: name.into(), ours, points }
}

fn figures() -> Figures {
    let ghash = Family {
        name: "GHASH".into(),
        series: vec![
            series("asmgen jit/x86_64-vpclmulqdq", true, [8.0, 1.0, 0.25]),
            series("RustCrypto ghash 0.6", false, [9.0, 1.5, 1.0]),
            series("OpenSSL 3.0.19 AES-128-GCM (AAD only)", false, [60.0, 5.0, 0.7]),
        ],
        missing: vec![],
        ghz: vec![Some(3.0), Some(2.9), Some(3.1)],
    };
    let ctr = Family {
        name: "SM4-CTR".into(),
        series: vec![series("asmgen <fast> \"quoted\"", true, [20.0, 4.0, 2.0])],
        missing: vec!["OpenSSL SM4-CTR: n/a (install: apt-get install libssl3)".into()],
        ghz: vec![Some(3.0), None, Some(3.0)],
    };
    Figures {
        machine: Machine {
            cpu: "Test CPU".into(),
            features: vec!["AVX2".into(), "VPCLMULQDQ".into()],
            ghz: Some(3.0),
            date: "2026-12-03".into(),
            load: Some(0.5),
        },
        method: "fixed".into(),
        families: vec![ghash, ctr],
    }
}

#[test]
fn json_holds_every_figure() {
    let f = figures();
    let v: serde_json::Value = serde_json::from_str(&f.to_json()).expect("valid JSON");
    assert_eq!(v["machine"]["cpu"], "Test CPU");
    assert_eq!(v["machine"]["features"][1], "VPCLMULQDQ");
    assert_eq!(v["machine"]["date"], "2026-12-03");
    assert_eq!(v["machine"]["ghz"], 3.0);
    let fams = v["families"].as_array().expect("families");
    assert_eq!(fams.len(), 2);
    for (fam, want) in fams.iter().zip(&f.families) {
        assert_eq!(fam["name"], want.name.as_str());
        assert_eq!(fam["missing"].as_array().expect("missing").len(), want.missing.len());
        let ghz: Vec<Option<f64>> = fam["ghz"].as_array().expect("ghz").iter().map(|g| g.as_f64()).collect();
        assert_eq!(ghz, want.ghz, "{}: the clock per size", want.name);
        let series = fam["series"].as_array().expect("series");
        assert_eq!(series.len(), want.series.len());
        for (s, w) in series.iter().zip(&want.series) {
            assert_eq!(s["contender"], w.contender.as_str());
            assert_eq!(s["ours"], w.ours);
            for (p, wp) in s["points"].as_array().expect("points").iter().zip(&w.points) {
                assert_eq!(p["size"], wp.size);
                assert!((p["cpb"].as_f64().expect("cpb") - wp.cpb.unwrap()).abs() < 1e-3);
                assert!((p["mbs"].as_f64().expect("mbs") - wp.mbs).abs() < 1e-3);
            }
        }
    }
    // Absent figures are null, not made up.
    let mut g = figures();
    g.machine.ghz = None;
    g.families[0].series[0].points[0].cpb = None;
    let v: serde_json::Value = serde_json::from_str(&g.to_json()).expect("valid JSON");
    assert!(v["machine"]["ghz"].is_null());
    assert!(v["families"][0]["series"][0]["points"][0]["cpb"].is_null());
}

#[test]
fn json_strings_are_escaped() {
    assert_eq!(json_str("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd\u0001""#);
    // A broken escape would not parse: the check above is what keeps the document valid.
    assert!(serde_json::from_str::<serde_json::Value>("\"a\"b\"").is_err());
}

/// The texts of an SVG document's `<text>` elements, and its polylines' stroke colours.
fn svg_parts(svg: &str) -> (Vec<String>, Vec<String>) {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect();
    let strokes = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .filter_map(|n| n.attribute("stroke").map(str::to_string))
        .collect();
    (texts, strokes)
}

#[test]
fn svg_has_lines_legend_and_title() {
    let f = figures();
    for fam in &f.families {
        let svg = family_svg(fam, &f.machine).expect("drawn");
        let (texts, strokes) = svg_parts(&svg);
        let title = texts.iter().find(|t| t.starts_with(&fam.name)).expect("a title naming the family");
        assert!(title.contains("Test CPU") && title.contains("3.00 GHz") && title.contains("2026-12-03"), "{title}");
        assert!(texts.iter().any(|t| t == "cycles per byte"), "y axis named");
        for s in &fam.series {
            let entry = if s.ours { s.contender.clone() } else { format!("{} (peer)", s.contender) };
            assert!(texts.contains(&entry), "legend entry {entry:?} in {texts:?}");
        }
        // One colour per contender among the lines (axes and ticks are black).
        let mut colours: Vec<&String> = strokes.iter().filter(|s| *s != "#000000").collect();
        colours.sort();
        colours.dedup();
        assert_eq!(colours.len(), fam.series.len(), "{colours:?}");
        let footnote = texts.iter().any(|t| t.starts_with("not measured (n/a)"));
        assert_eq!(footnote, !fam.missing.is_empty());
    }
}

#[test]
fn svg_without_clock_plots_ns_per_byte() {
    let mut f = figures();
    f.machine.ghz = None;
    for p in f.families.iter_mut().flat_map(|fam| &mut fam.series).flat_map(|s| &mut s.points) {
        p.cpb = None;
    }
    let (texts, _) = svg_parts(&family_svg(&f.families[0], &f.machine).expect("drawn"));
    assert!(texts.iter().any(|t| t == "ns per byte"));
}

#[test]
fn svg_writer_output_is_checked() {
    // The checks above do fail on a broken document: cut one off mid-element.
    let f = figures();
    let svg = family_svg(&f.families[0], &f.machine).expect("drawn");
    let cut = &svg[..svg.len() / 2];
    assert!(roxmltree::Document::parse(cut).is_err());
}

fn parse(args: &[&str]) -> Result<Args, String> {
    Args::parse(args.iter().map(|s| s.to_string()))
}

#[test]
fn arguments() {
    assert_eq!(parse(&[]).unwrap(), Args::default());
    let a = parse(&["sm4", "--json", "docs/bench/bench.json", "--svg", "docs/bench"]).unwrap();
    assert_eq!(a.filter.as_deref(), Some("sm4"));
    assert_eq!(a.json.as_deref(), Some(std::path::Path::new("docs/bench/bench.json")));
    assert_eq!(a.svg.as_deref(), Some(std::path::Path::new("docs/bench")));
    let b = parse(&["--svg", "out", "ghash"]).unwrap();
    assert_eq!((b.filter.as_deref(), b.json), (Some("ghash"), None));
    let c = parse(&["--libgcrypt", "../shared/peers/libgcrypt-1.12.2/lib"]).unwrap();
    assert_eq!(c.libgcrypt.as_deref(), Some(std::path::Path::new("../shared/peers/libgcrypt-1.12.2/lib")));
    assert_eq!(parse(&["gcm", "--sizes", "16,1500, 8191"]).unwrap().sizes, Some(vec![16, 1500, 8191]));
    assert!(parse(&["--sizes", "16,x"]).unwrap_err().contains("`x` is not a byte count"));
    assert!(parse(&["--sizes", "0"]).unwrap_err().contains("0 is not between 1 and 65536"));
    assert!(parse(&["--sizes", "65537"]).unwrap_err().contains("65537 is not between"));
    assert!(parse(&["--sizes"]).unwrap_err().contains("needs a value"));
    assert!(parse(&["--json"]).unwrap_err().contains("needs a value"));
    assert!(parse(&["--plot", "x"]).unwrap_err().contains("unknown option"));
    assert!(parse(&["ghash", "polyval"]).unwrap_err().contains("second filter"));
}

#[test]
fn dates() {
    assert_eq!(civil_date(0), "1970-01-01");
    assert_eq!(civil_date(11_016), "2000-02-29");
    assert_eq!(civil_date(20_790), "2026-12-03");
}

/// The OpenSSL peer does the work it is timed on: its SM4 modes agree with ours (known-answer tested elsewhere),
/// per message (the IV is set again each time), and its GCM AAD-only tag depends on the AAD alone.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn openssl_peer_computes() {
    use asmgen_runtime::{Sm4, Sm4Cmac};
    use asmgen_tests::bench::openssl::{self, Peer};
    let Some(lib) = openssl::load() else {
        asmgen_tests::tool_missing("libcrypto.so.3 (OpenSSL 3) not found: the benchmark's OpenSSL peer");
        return;
    };
    assert!(openssl::version(&lib).starts_with("OpenSSL 3"), "{}", openssl::version(&lib));
    let key = [0x42u8; 16];
    let ours = Sm4::new(&key);
    let msg: Vec<u8> = (0..256u32).map(|i| (i * 37 + 1) as u8).collect();
    type Reference = fn(&Sm4, &mut [u8]);
    let cases: [(&str, bool, Reference); 5] = [
        ("SM4-ECB", false, |s, m| s.encrypt_ecb(m).unwrap()),
        ("SM4-CTR", false, |s, m| s.apply_ctr(&mut [7; 16], m)),
        ("SM4-CBC-ENC", false, |s, m| s.encrypt_cbc(&mut [7; 16], m).unwrap()),
        ("SM4-CBC-DEC", true, |s, m| s.decrypt_cbc(&mut [7; 16], m).unwrap()),
        ("SM4-CFB-DEC", true, |s, m| s.decrypt_cfb(&mut [7; 16], m).unwrap()),
    ];
    for (kind, decrypt, reference) in cases {
        let (name, klen) = openssl::sm4_name(kind).expect("a name");
        let mut peer = Peer::cipher(lib, name, &key[..klen], decrypt).expect("in OpenSSL 3.0's default provider");
        let mut want = msg.clone();
        reference(&ours, &mut want);
        for _ in 0..2 {
            let mut got = msg.clone();
            peer.process(&mut got);
            assert_eq!(got, want, "{kind}");
        }
    }
    let mut cmac = Peer::cmac(lib, "SM4-CBC", &key).expect("CMAC over SM4-CBC");
    let mut want = Sm4Cmac::new(&key);
    want.update(&msg[..100]);
    let want = want.finalize();
    for _ in 0..2 {
        assert_eq!(cmac.process(&mut msg[..100].to_vec()), want, "SM4-CMAC");
    }
    let mut gcm = Peer::aad_only(lib, "AES-128-GCM", &key).expect("AES-128-GCM");
    let (a, b) = (gcm.process(&mut msg.clone()), gcm.process(&mut msg[..255].to_vec()));
    assert_ne!(a, b, "the tag covers the AAD");
    assert_eq!(gcm.process(&mut msg.clone()), a, "the same AAD again, the same tag");
    assert!(Peer::cipher(lib, "SM4-NOSUCH", &key, false).is_none(), "a missing algorithm is None");
}
