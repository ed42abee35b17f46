//! `cargo xtask codegen [--check|--bless]`: validate the real MGPipe
//! catalogue + coverage map, and keep the test catalogue's golden outputs in
//! sync with the generator.
//!
//! * `--check` (default): regenerate the test catalogue outputs and fail,
//!   naming each drifted file, when they differ from the committed goldens.
//! * `--bless`: rewrite the goldens from the generator.

use std::path::{Path, PathBuf};

use mgpipe_codegen::golden;

const USAGE: &str = "usage: cargo xtask codegen [--check | --bless]";

/// Entry point called by `xtask`'s main with the arguments after `codegen`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut bless = false;
    for a in args {
        match a.as_str() {
            "--check" => bless = false,
            "--bless" => bless = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("codegen: unknown argument `{other}`\n{USAGE}")),
        }
    }

    // The real catalogue and coverage map must validate fully.
    let catalogue = catalogue_dir();
    let calls = catalogue.join("calls.toml");
    let coverage = catalogue.join("coverage.toml");
    let g = mgpipe_codegen::generate_from_files(&calls, Some(&coverage))
        .map_err(|e| format!("codegen: {}: {e}", calls.display()))?;
    let live = g.model.live().count();
    println!(
        "codegen: {} ok: {} calls ({} live), hash 0x{:016x}, {} coverage entries",
        calls.display(),
        g.model.calls.len(),
        live,
        g.model.hash,
        g.model.coverage.len()
    );

    // Goldens of the test catalogue.
    let crate_dir = golden::crate_dir();
    let drift =
        golden::check(&crate_dir, bless).map_err(|e| format!("codegen: test catalogue: {e}"))?;
    if drift.is_empty() {
        println!(
            "codegen: goldens in {} up to date",
            crate_dir.join(golden::GOLDEN_DIR).display()
        );
        return Ok(());
    }
    let lines: Vec<String> = drift.iter().map(|d| format!("  {d}")).collect();
    if bless {
        println!(
            "codegen: blessed {} golden file(s):\n{}",
            drift.len(),
            lines.join("\n")
        );
        Ok(())
    } else {
        Err(format!(
            "codegen: {} golden file(s) drifted from the generator (run `cargo xtask codegen --bless` if intended):\n{}",
            drift.len(),
            lines.join("\n")
        ))
    }
}

/// `crates/mgpipe/catalogue` of this workspace.
fn catalogue_dir() -> PathBuf {
    workspace_root().join("crates/mgpipe/catalogue")
}

fn workspace_root() -> PathBuf {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| xtask.to_path_buf())
}
