//! Prints the kernel sets the dispatcher picks on this machine, one line each: `ghash <backend>` and
//! `sm4 <backend>`. `cargo xtask cross windows` runs it natively: the runs under wine use the same CPU, so
//! they must pick the same sets.

fn main() {
    println!("ghash {}", asmgen_runtime::Polyval::new(&[7; 16]).backend());
    println!("sm4 {}", asmgen_runtime::Sm4::new(&[7; 16]).backend());
}
