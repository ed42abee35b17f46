//! Golden outputs of the test catalogue; `MGPIPE_BLESS=1` rewrites them.

use mgpipe_codegen::golden;

#[test]
fn goldens_match_generator() {
    let bless = std::env::var("MGPIPE_BLESS").is_ok_and(|v| v == "1");
    let drift = golden::check(&golden::crate_dir(), bless).expect("test catalogue generates");
    if bless {
        for d in &drift {
            eprintln!("blessed {d}");
        }
        return;
    }
    let list: Vec<String> = drift.iter().map(ToString::to_string).collect();
    assert!(
        drift.is_empty(),
        "golden drift (rerun with MGPIPE_BLESS=1 if intended):\n{}",
        list.join("\n")
    );
}

#[test]
fn real_catalogue_and_coverage_validate() {
    let dir = golden::crate_dir().join("../mgpipe/catalogue");
    let g = mgpipe_codegen::generate_from_files(
        &dir.join("calls.toml"),
        Some(&dir.join("coverage.toml")),
    )
    .expect("real catalogue validates");
    assert!(g.api.starts_with("// @generated"));
    assert!(g.roundtrip_tests.starts_with("// @generated"));
    assert!(!g.model.calls.is_empty());
    for c in &g.model.calls {
        assert_eq!(c.size % 8, 0, "{}", c.name);
    }
}

#[test]
fn generation_is_deterministic() {
    let dir = golden::crate_dir();
    let a = mgpipe_codegen::generate_from_files(&dir.join(golden::TEST_CATALOGUE), None)
        .expect("generates");
    let b = mgpipe_codegen::generate_from_files(&dir.join(golden::TEST_CATALOGUE), None)
        .expect("generates");
    assert_eq!(a.api, b.api);
    assert_eq!(a.roundtrip_tests, b.roundtrip_tests);
}
