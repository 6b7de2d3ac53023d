//! The C side, as a C user of the listing sees it: a program that includes the generated header, links the
//! host's listing (assembled by gcc) and encrypts RFC 8439's A.2 vector #1 through it. Host tools: x86_64
//! Linux only; without gcc or AVX2 the test passes with a notice, unless `CI` is set (gcc missing).

#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn a_c_program_calls_the_listing_through_the_header() {
    use std::path::Path;
    use std::process::Command;
    if !std::is_x86_feature_detected!("avx2") {
        println!("skipped: no AVX2");
        return;
    }
    let dir = Path::new(env!("CHACHA20_LISTINGS")).join("x86_64-linux");
    let tmp = std::env::temp_dir().join(format!("chacha20-c-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let program = r#"
#include <stdio.h>
#include "chacha_chacha20.h"

int main(void) {
    uint8_t in[CHACHA_CHACHA20_BLOCK_BYTES] = {0}, out[CHACHA_CHACHA20_BLOCK_BYTES];
    const uint32_t key[8] = {0}, counter[4] = {0, 0, 0, 0};
    chacha_chacha20_avx2(out, in, sizeof in, key, counter);
    for (size_t i = 0; i < sizeof out; i++) printf("%02x", out[i]);
    printf("\n");
    return 0;
}
"#;
    std::fs::write(tmp.join("main.c"), program).unwrap();
    let exe = tmp.join("main");
    let gcc = Command::new("gcc")
        .args(["-O2", "-Wall", "-Werror", "-I"])
        .arg(&dir)
        .arg(tmp.join("main.c"))
        .arg(dir.join("chacha20.S"))
        .arg("-o")
        .arg(&exe)
        .output();
    let gcc = match gcc {
        Ok(out) => out,
        Err(e) if std::env::var_os("CI").is_none() => {
            println!("skipped: gcc: {e}");
            return;
        }
        Err(e) => panic!("gcc: {e}"),
    };
    assert!(gcc.status.success(), "gcc: {}", String::from_utf8_lossy(&gcc.stderr));
    let run = Command::new(&exe).output().expect("the program runs");
    assert!(run.status.success());
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).trim(),
        "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7\
         da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
    );
    std::fs::remove_dir_all(&tmp).unwrap();
}
