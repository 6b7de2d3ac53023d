//! The workspace's declared `rust-version` is one its whole dependency tree meets: no package that
//! `cargo metadata` lists (every platform's, dev-dependencies included) declares a newer one. The crates'
//! own code is held to the declaration by clippy's `incompatible_msrv` lint (CI runs clippy with
//! `-D warnings`), which reads the same field. The worked example (examples/chacha20, outside the workspace)
//! declares the same version.

use serde_json::Value;

fn version(s: &str) -> Vec<u64> {
    s.split('.').map(|p| p.parse().unwrap_or_else(|_| panic!("rust-version {s:?}"))).collect()
}

#[test]
fn the_declared_rust_version_covers_every_dependency() {
    // The check is the same on every target: it runs natively only, not under qemu or wine (which start this
    // binary through `ASMGEN_TEST_RUNNER` or as a Windows program, where cargo is not at hand).
    if cfg!(windows) || std::env::var_os("ASMGEN_TEST_RUNNER").is_some() {
        return;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = asmgen_tests::workspace();
    let out = std::process::Command::new(cargo)
        .current_dir(&root)
        .args(["metadata", "--format-version", "1", "--locked"])
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let members: Vec<&str> =
        meta["workspace_members"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    let declared = packages
        .iter()
        .filter(|p| members.contains(&p["id"].as_str().unwrap()))
        .map(|p| p["rust_version"].as_str().unwrap_or_else(|| panic!("{} declares no rust-version", p["name"])))
        .collect::<Vec<_>>();
    assert!(declared.windows(2).all(|w| w[0] == w[1]), "the members declare different versions: {declared:?}");
    let ours = version(declared[0]);
    let newer: Vec<String> = packages
        .iter()
        .filter_map(|p| Some((p["name"].as_str()?, p["version"].as_str()?, p["rust_version"].as_str()?)))
        .filter(|(_, _, rv)| version(rv) > ours)
        .map(|(n, v, rv)| format!("{n} {v} needs {rv}"))
        .collect();
    assert!(newer.is_empty(), "the workspace declares rust-version {}, but {newer:?}", declared[0]);

    let example = std::fs::read_to_string(root.join("examples/chacha20/Cargo.toml")).unwrap();
    assert!(
        example.contains(&format!("rust-version = \"{}\"", declared[0])),
        "examples/chacha20 declares another rust-version than the workspace's {}",
        declared[0]
    );
}
