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

use suites::{run_file, Tally};

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
    println!("{}", tally.summary("required"));
    assert!(tally.passed > 1000, "the suite ran: {tally:?}");
    assert!(tally.remote_refused > 0 && tally.format_asserted > 0);
    assert!(tally.failures.is_empty(), "{:#?}", tally.failures);
}

#[test]
fn the_optional_format_tests_pass() {
    let mut tally = Tally::default();
    run_dir(&suite().join("optional/format"), &mut tally);
    println!("{}", tally.summary("optional formats"));
    assert!(tally.passed > 400, "the suite ran: {tally:?}");
    assert!(tally.failures.is_empty(), "{:#?}", tally.failures);
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
    ] {
        for entry in std::fs::read_dir(&dir).expect("the suite is present") {
            let name = entry.expect("readable").file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".json") && !listed.contains(&format!("(\"{prefix}{name}\"")) {
                missing.push(format!("{prefix}{name}"));
            }
        }
    }
    assert!(missing.is_empty(), "not run in Chromium: {missing:?}");
}
