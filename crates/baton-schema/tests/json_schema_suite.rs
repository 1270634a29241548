//! The official JSON-Schema-Test-Suite, draft 2020-12 (kept as data in
//! `tests/json-schema-test-suite`, MIT), run against Baton's validator.
//!
//! Every required test passes except two kinds, each by design and each
//! checked to be exactly that:
//! * a schema that needs a remote document (`http://localhost:1234/…`) is
//!   refused when it compiles — nothing is ever fetched;
//! * `format.json` expects `format` to be an annotation; Baton asserts it, so
//!   a value that is not in its format is invalid.
//!
//! The optional format tests are run too, and every one must pass:
//! `hostname` and `idn-hostname` as IDNA2008 has them (RFC 5890–5893),
//! `uri-template` as RFC 6570 has it. The suite is the upstream one at the
//! commit in `json-schema-test-suite/COMMIT`.

mod suites;

use std::path::{Path, PathBuf};

use suites::{run_file, run_file_as, Tally};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-schema-test-suite/tests")
}

fn run_dir(dir: &Path, tally: &mut Tally) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the suite is present")
        .map(|entry| entry.expect("readable").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    for file in files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let text = std::fs::read_to_string(&file).expect("readable");
        run_file(name, &text, tally);
    }
}

#[test]
fn every_required_test_of_draft_2020_12_passes_but_remote_documents_and_asserted_formats() {
    let mut tally = Tally::default();
    run_dir(&suite(), &mut tally);
    println!("{}", tally.summary("draft2020-12, required"));
    assert!(tally.passed > 1000, "the suite ran: {tally:?}");
    assert!(tally.remote_refused > 0 && tally.format_asserted > 0);
    assert!(tally.failures.is_empty(), "{:#?}", tally.failures);
}

#[test]
fn the_optional_format_tests_pass() {
    let mut tally = Tally::default();
    run_dir(&suite().join("optional/format"), &mut tally);
    println!("{}", tally.summary("draft2020-12, optional formats"));
    assert!(tally.passed > 400, "the suite ran: {tally:?}");
    assert!(tally.failures.is_empty(), "{:#?}", tally.failures);
}

/// Drafts 07, 06 and 04, as their own suites test them (each schema
/// declaring its draft): every required test passes but those that need a
/// remote document or the draft's own meta-schema, neither of which ships.
#[test]
fn every_required_test_of_drafts_07_06_and_04_passes_but_remote_documents() {
    for (dir, uri) in [
        (
            "draft2019-09",
            "https://json-schema.org/draft/2019-09/schema",
        ),
        ("draft7", "http://json-schema.org/draft-07/schema#"),
        ("draft6", "http://json-schema.org/draft-06/schema#"),
        ("draft4", "http://json-schema.org/draft-04/schema#"),
    ] {
        let mut tally = Tally::default();
        let mut files: Vec<PathBuf> = std::fs::read_dir(suite().join("..").join(dir))
            .expect("the suite is present")
            .map(|entry| entry.expect("readable").path())
            .collect();
        files.sort();
        for file in files {
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
            let text = std::fs::read_to_string(&file).expect("readable");
            run_file_as(name, &text, Some(uri), &mut tally);
        }
        println!("{}", tally.summary(&format!("{dir}, required")));
        assert!(tally.passed > 500, "{dir} ran: {tally:?}");
        assert!(tally.failures.is_empty(), "{dir}: {:#?}", tally.failures);
    }
}

/// The browser runs the same files: `baton-wasm`'s list names every file
/// of the suite that runs here.
#[test]
fn the_browser_runs_every_file_of_the_suite() {
    let listed = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../baton-wasm/src/schema_suites.rs"),
    )
    .expect("the browser's list is readable");
    let mut missing = Vec::new();
    for (dir, prefix) in [
        (suite(), ""),
        (suite().join("optional/format"), "optional/format/"),
        (suite().join("../draft2019-09"), "draft2019-09/"),
        (suite().join("../draft7"), "draft7/"),
        (suite().join("../draft6"), "draft6/"),
        (suite().join("../draft4"), "draft4/"),
    ] {
        for entry in std::fs::read_dir(&dir).expect("the suite is present") {
            let name = entry.expect("readable").file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".json") && !listed.contains(&format!("\"{prefix}{name}\"")) {
                missing.push(format!("{prefix}{name}"));
            }
        }
    }
    assert!(missing.is_empty(), "not run in Chromium: {missing:?}");
}
