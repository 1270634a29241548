//! The kit against `baton-core`: every fixture holds, a kit that plays
//! nothing does not pass, and the coverage table is the one the fixtures
//! give.

use baton_conformance::{coverage, format_report, load_all, run_kit, CoreSubject};

#[test]
fn every_fixture_holds_for_baton_core() {
    let fixtures = load_all(&baton_conformance::fixture::kit_dir()).expect("the fixtures load");
    let report = run_kit(&fixtures, CoreSubject::new);
    let text = format_report(&report);
    println!("{text}");
    assert!(report.passed(), "{text}");
    // Natively only the fixtures that observe a page are skipped.
    let skipped: Vec<&str> = report
        .fixtures
        .iter()
        .filter(|fixture| fixture.skipped)
        .map(|fixture| fixture.fixture.as_str())
        .collect();
    assert!(skipped.len() < fixtures.len() / 4, "{skipped:?}");
}

#[test]
fn a_kit_that_plays_nothing_does_not_pass() {
    let none = run_kit(&[], CoreSubject::new);
    assert!(!none.passed());
    assert!(format_report(&none).contains("nothing is proven"));
    // Every fixture skipped: a subject that observes no page, and only
    // fixtures that need one.
    let fixtures = load_all(&baton_conformance::fixture::kit_dir()).expect("the fixtures load");
    let paged: Vec<_> = fixtures
        .into_iter()
        .filter(|fixture| {
            let report = run_kit(std::slice::from_ref(fixture), CoreSubject::new);
            report.fixtures[0].skipped
        })
        .collect();
    assert!(!paged.is_empty(), "the kit has fixtures that need a page");
    let skipped = run_kit(&paged, CoreSubject::new);
    assert_eq!(skipped.played(), 0);
    assert!(skipped.failures().is_empty());
    assert!(!skipped.passed(), "{}", format_report(&skipped));
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
