//! The kit against `baton-core`: every fixture holds, and the coverage
//! table in the README is the one the fixtures give.

use baton_conformance::{coverage, format_report, load_all, run_kit, CoreSubject};

#[test]
fn every_fixture_holds_for_baton_core() {
    let fixtures = load_all(&baton_conformance::fixture::kit_dir()).expect("the fixtures load");
    let report = run_kit(&fixtures, CoreSubject::new);
    let text = format_report(&report);
    println!("{text}");
    assert!(report.failures().is_empty(), "{text}");
}

#[test]
fn the_coverage_table_is_current() {
    let fixtures = load_all(&baton_conformance::fixture::kit_dir()).expect("the fixtures load");
    let table = coverage::markdown(&fixtures);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("COVERAGE.md");
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    let expected = format!("# Conformance kit coverage\n\nGenerated from the fixtures (`BATON_WRITE_COVERAGE=1 cargo test -p baton-conformance` rewrites it).\n\n{table}");
    if std::env::var_os("BATON_WRITE_COVERAGE").is_some() {
        std::fs::write(&path, &expected).expect("COVERAGE.md written");
        return;
    }
    assert_eq!(
        written, expected,
        "COVERAGE.md is out of date: rerun with BATON_WRITE_COVERAGE=1"
    );
}
