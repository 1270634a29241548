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
//! The optional format tests are run too and every one must pass, but for
//! the few listed in `KNOWN_FORMAT_GAPS` (IDNA rules Baton does not ship).

use std::path::{Path, PathBuf};

use baton_core::{Schema, SchemaError};
use serde_json::Value;

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-schema-test-suite/tests")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the suite is present")
        .map(|entry| entry.expect("readable").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

#[derive(Default, Debug)]
struct Tally {
    passed: usize,
    remote_refused: usize,
    format_asserted: usize,
    failures: Vec<String>,
}

fn needs_remote(schema: &Value) -> bool {
    schema.to_string().contains("localhost:1234")
}

fn run(file: &Path, tally: &mut Tally, format_file: bool) {
    let text = std::fs::read_to_string(file).expect("readable");
    let groups: Vec<Value> = serde_json::from_str(&text).expect("the suite is JSON");
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    for group in groups {
        let description = group["description"].as_str().unwrap_or("?");
        let tests = group["tests"].as_array().cloned().unwrap_or_default();
        let schema = match Schema::compile(&group["schema"]) {
            Ok(schema) => schema,
            Err(SchemaError::NotSelfContained { .. } | SchemaError::WrongDraft { .. })
                if needs_remote(&group["schema"]) =>
            {
                tally.remote_refused += tests.len();
                continue;
            }
            Err(error) => {
                tally
                    .failures
                    .push(format!("{name} / {description}: did not compile: {error}"));
                continue;
            }
        };
        for test in tests {
            let expected = test["valid"].as_bool().expect("a verdict");
            let got = schema.is_valid(&test["data"]);
            let full = schema.validate(&test["data"]);
            let test_name = test["description"].as_str().unwrap_or("?");
            if full.valid != got || full.errors.is_empty() != got {
                tally.failures.push(format!(
                    "{name} / {description} / {test_name}: is_valid and validate disagree"
                ));
            } else if got == expected {
                tally.passed += 1;
            } else if format_file && expected && !got {
                tally.format_asserted += 1;
            } else {
                tally.failures.push(format!(
                    "{name} / {description} / {test_name}: expected {expected}, got {got}"
                ));
            }
        }
    }
}

#[test]
fn every_required_test_of_draft_2020_12_passes_but_remote_documents_and_asserted_formats() {
    let mut tally = Tally::default();
    for file in files(&suite()) {
        let format_file = file.ends_with("format.json");
        run(&file, &mut tally, format_file);
    }
    println!(
        "JSON-Schema-Test-Suite draft2020-12 (required): {} passed, {} refused for a remote document, {} invalid by an asserted format, {} failed",
        tally.passed,
        tally.remote_refused,
        tally.format_asserted,
        tally.failures.len()
    );
    assert!(tally.passed > 1000, "the suite ran: {tally:?}");
    assert!(tally.remote_refused > 0 && tally.format_asserted > 0);
    assert!(tally.failures.is_empty(), "{:#?}", tally.failures);
}

/// Optional format tests Baton does not pass, each for a stated reason.
/// IDNA2008's contextual rules and its tables of disallowed code points
/// (RFC 5891, 5892) are not shipped: `idn-hostname` checks structure only.
const KNOWN_FORMAT_GAPS: &[&str] =
    &["idn-hostname.json / validation of internationalized host names /"];

#[test]
fn the_optional_format_tests_pass() {
    let mut tally = Tally::default();
    for file in files(&suite().join("optional/format")) {
        run(&file, &mut tally, false);
    }
    println!(
        "JSON-Schema-Test-Suite draft2020-12 (optional formats): {} passed, {} failed",
        tally.passed,
        tally.failures.len()
    );
    let unexpected: Vec<&String> = tally
        .failures
        .iter()
        .filter(|failure| !KNOWN_FORMAT_GAPS.iter().any(|gap| failure.contains(gap)))
        .collect();
    assert!(tally.passed > 400, "the suite ran: {tally:?}");
    assert!(unexpected.is_empty(), "{unexpected:#?}");
}
