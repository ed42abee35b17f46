//! Generates the MGPipe interface from `catalogue/calls.toml` and
//! `catalogue/coverage.toml` into `OUT_DIR` (see docs/MGPIPE.md).

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let calls = dir.join("catalogue/calls.toml");
    let coverage = dir.join("catalogue/coverage.toml");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", calls.display());
    println!("cargo:rerun-if-changed={}", coverage.display());
    if let Err(e) = mgpipe_codegen::write_outputs(&calls, Some(&coverage), &out) {
        eprintln!("error: mgpipe catalogue: {e}");
        std::process::exit(1);
    }
}
