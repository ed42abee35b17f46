//! The committed FlatBuffers code must be exactly what flatc 25.12.19 makes
//! of `schema/protocol.fbs`. Skipped (with a note) when `flatc` is absent.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn protocol_generated_matches_flatc() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let schema = crate_dir.join("../../schema/protocol.fbs");
    let committed = crate_dir.join("src/protocol_generated.rs");
    let flatc = std::env::var_os("FLATC")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("flatc"));
    let version = match Command::new(&flatc).arg("--version").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => {
            eprintln!("note: flatc not found; skipping the protocol_generated.rs drift check");
            return;
        }
    };
    if !version.contains("25.12.19") {
        eprintln!("note: {version} is not flatc 25.12.19; skipping the drift check");
        return;
    }
    let out = std::env::temp_dir().join(format!("mgl-flatc-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let st = Command::new(&flatc)
        .arg("--rust")
        .arg("-o")
        .arg(&out)
        .arg(&schema)
        .status()
        .unwrap();
    assert!(st.success(), "flatc failed on {}", schema.display());
    let fresh = std::fs::read_to_string(out.join("protocol_generated.rs")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let old = std::fs::read_to_string(&committed).unwrap();
    assert!(
        fresh == old,
        "crates/remote/src/protocol_generated.rs is stale: run `flatc --rust -o crates/remote/src schema/protocol.fbs`"
    );
}
