//! `mgpipe-codegen`: the MGPipe call catalogue (TOML) → Rust.
//!
//! Three stages, in the style of a protocol scanner:
//! 1. [`parse`]: serde shapes of `calls.toml` and `coverage.toml`;
//! 2. [`model`]: validation (unique names, known classes/flags/types/handle
//!    kinds) and layout (natural alignment, explicit `_padN` fields, size a
//!    multiple of 8), plus the canonical form hashed into `CATALOGUE_HASH`;
//! 3. `emit`: one emitter per output (G1..G6), producing
//!    [`API_FILE`] and [`TESTS_FILE`].
//!
//! Used by `crates/mgpipe/build.rs` and by `cargo xtask codegen`.

use std::path::{Path, PathBuf};

mod emit;
pub mod model;
pub mod parse;

pub use model::Model;

/// Name of the generated API file (included by `mgpipe` as `pub mod gen`).
pub const API_FILE: &str = "mgpipe_generated.rs";
/// Name of the generated round-trip test file (G5).
pub const TESTS_FILE: &str = "mgpipe_roundtrip_tests.rs";

/// Everything that can go wrong turning a catalogue into code.
#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{what}: TOML error: {message}")]
    Toml { what: &'static str, message: String },
    #[error("catalogue has {count} calls, more than a u16 opcode can number")]
    TooManyCalls { count: usize },
    #[error("duplicate call name `{name}`")]
    DuplicateCall { name: String },
    #[error("calls `{a}` and `{b}` have the same CamelCase name")]
    CamelCollision { a: String, b: String },
    #[error("call `{call}`: duplicate field `{field}`")]
    DuplicateField { call: String, field: String },
    #[error("call `{call}`: unknown class `{class}` (expected screen, ctx_cso, ctx_state, ctx_object, ctx_verb or ctx_query)")]
    UnknownClass { call: String, class: String },
    #[error("call `{call}`: unknown flag `{flag}` (expected needs_ack, has_blob, var_tail, host_span, reply_slot or optional)")]
    UnknownFlag { call: String, flag: String },
    #[error("call `{call}`: flag `{flag}` given twice")]
    DuplicateFlag { call: String, flag: String },
    #[error("call `{call}`: host_span needs has_blob (the span is the blob)")]
    HostSpanWithoutBlob { call: String },
    #[error("call `{call}`, field `{field}`: unknown type `{ty}` (expected u8 u16 u32 u64 i32 i64 f32 f64, handle:<kind> or [T; N])")]
    UnknownType {
        call: String,
        field: String,
        ty: String,
    },
    #[error("call `{call}`, field `{field}`: unknown handle kind `{kind}`")]
    UnknownHandleKind {
        call: String,
        field: String,
        kind: String,
    },
    #[error("call `{call}`, field `{field}`: zero-length array")]
    EmptyArray { call: String, field: String },
    #[error("call `{call}`, field `{field}`: array length {len} has no bytemuck Pod impl (use 1..=32, 48, 64, 96, 128, 256, 512, 1024, 2048 or 4096)")]
    UnsupportedArrayLength {
        call: String,
        field: String,
        len: usize,
    },
    #[error("call `{call}`, field `{field}`: names starting with `_pad` are reserved for padding")]
    ReservedFieldName { call: String, field: String },
    #[error("bad {what} `{name}` (lower snake case ASCII expected)")]
    BadName { what: &'static str, name: String },
    #[error("coverage.toml: entry point `{entry_point}` names unknown call `{call}`")]
    CoverageUnknownCall { entry_point: String, call: String },
    #[error("coverage.toml: entry point `{entry_point}` names retired call `{call}`")]
    CoverageRetiredCall { entry_point: String, call: String },
    #[error("coverage.toml: entry point `{entry_point}` names call `{call}` twice")]
    CoverageDuplicateCall { entry_point: String, call: String },
}

/// The generated outputs of one catalogue.
#[derive(Debug, Clone)]
pub struct Generated {
    /// Contents of [`API_FILE`].
    pub api: String,
    /// Contents of [`TESTS_FILE`].
    pub roundtrip_tests: String,
    pub model: Model,
}

impl Generated {
    /// `(file name, contents)` of every output.
    pub fn files(&self) -> [(&'static str, &str); 2] {
        [(API_FILE, &self.api), (TESTS_FILE, &self.roundtrip_tests)]
    }
}

/// Validate a catalogue (and optional coverage map) given as text.
pub fn build_model(calls_toml: &str, coverage_toml: Option<&str>) -> Result<Model, CodegenError> {
    let raw = parse::parse_catalogue(calls_toml)?;
    let cov = coverage_toml.map(parse::parse_coverage).transpose()?;
    Model::build(&raw, cov.as_ref())
}

/// Generate every output from catalogue text. `source_label` names the
/// catalogue in the `@generated` header (keep it free of absolute paths so
/// outputs are stable).
pub fn generate(
    calls_toml: &str,
    coverage_toml: Option<&str>,
    source_label: &str,
) -> Result<Generated, CodegenError> {
    let model = build_model(calls_toml, coverage_toml)?;
    Ok(Generated {
        api: emit::api(&model, source_label),
        roundtrip_tests: emit::roundtrip_tests(&model, source_label),
        model,
    })
}

fn read(path: &Path) -> Result<String, CodegenError> {
    std::fs::read_to_string(path).map_err(|source| CodegenError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Generate from files. The header names the catalogue by file name only.
pub fn generate_from_files(
    calls: &Path,
    coverage: Option<&Path>,
) -> Result<Generated, CodegenError> {
    let text = read(calls)?;
    let cov = coverage.map(read).transpose()?;
    let label = calls
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    generate(&text, cov.as_deref(), &label)
}

/// Write `contents` to `path` unless it already holds exactly that.
pub fn write_if_changed(path: &Path, contents: &str) -> Result<(), CodegenError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    std::fs::write(path, contents).map_err(|source| CodegenError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Generate and write every output into `out_dir` (the `build.rs` entry).
pub fn write_outputs(
    calls: &Path,
    coverage: Option<&Path>,
    out_dir: &Path,
) -> Result<Generated, CodegenError> {
    let g = generate_from_files(calls, coverage)?;
    for (name, text) in g.files() {
        write_if_changed(&out_dir.join(name), text)?;
    }
    Ok(g)
}

/// The small test catalogue with committed golden outputs.
pub mod golden {
    use std::path::{Path, PathBuf};

    use super::{generate_from_files, write_if_changed, CodegenError};

    /// Test catalogue, relative to the `mgpipe-codegen` crate directory.
    pub const TEST_CATALOGUE: &str = "tests/data/test_calls.toml";
    /// Test coverage map, relative to the crate directory.
    pub const TEST_COVERAGE: &str = "tests/data/test_coverage.toml";
    /// Golden output directory, relative to the crate directory.
    pub const GOLDEN_DIR: &str = "tests/golden";

    /// The `mgpipe-codegen` crate directory (from its manifest path at build time).
    pub fn crate_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    /// One golden file that differs from what the generator produces now.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Drift {
        pub path: PathBuf,
        /// Human summary: missing, or first differing line.
        pub summary: String,
    }

    impl std::fmt::Display for Drift {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{}: {}", self.path.display(), self.summary)
        }
    }

    /// Regenerate the test catalogue's outputs and compare them with the
    /// goldens under `crate_dir`; with `bless`, rewrite drifted goldens
    /// instead (and report what was rewritten).
    pub fn check(crate_dir: &Path, bless: bool) -> Result<Vec<Drift>, CodegenError> {
        let g = generate_from_files(
            &crate_dir.join(TEST_CATALOGUE),
            Some(&crate_dir.join(TEST_COVERAGE)),
        )?;
        let dir = crate_dir.join(GOLDEN_DIR);
        let mut drift = Vec::new();
        for (name, text) in g.files() {
            let path = dir.join(name);
            let summary = match std::fs::read_to_string(&path) {
                Ok(old) if old == text => continue,
                Ok(old) => diff_summary(&old, text),
                Err(_) => "missing".to_string(),
            };
            if bless {
                std::fs::create_dir_all(&dir).map_err(|source| CodegenError::Write {
                    path: dir.clone(),
                    source,
                })?;
                write_if_changed(&path, text)?;
            }
            drift.push(Drift { path, summary });
        }
        Ok(drift)
    }

    /// First differing line of two texts, with both versions.
    pub fn diff_summary(golden: &str, generated: &str) -> String {
        let (g, n): (Vec<&str>, Vec<&str>) =
            (golden.lines().collect(), generated.lines().collect());
        let changed =
            g.iter().zip(n.iter()).filter(|(a, b)| a != b).count() + g.len().abs_diff(n.len());
        for i in 0..g.len().max(n.len()) {
            let a = g.get(i).copied();
            let b = n.get(i).copied();
            if a != b {
                return format!(
                    "{changed} line(s) differ; first at line {}: golden {:?}, generated {:?}",
                    i + 1,
                    a.unwrap_or("<end of file>"),
                    b.unwrap_or("<end of file>")
                );
            }
        }
        "differs (line endings)".to_string()
    }
}
