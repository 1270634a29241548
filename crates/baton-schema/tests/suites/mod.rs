//! What the schema suites share natively and in Chromium (where
//! `baton-wasm`'s tests include this file): running a file of the
//! JSON-Schema-Test-Suite and building a ReDoS corpus case's attack text.
#![allow(dead_code)]

pub mod schemastore;

use baton_schema::{PatternError, Schema, SchemaError};
use serde_json::{json, Value};

/// How a run of the suite went.
#[derive(Default, Debug)]
pub struct Tally {
    pub passed: usize,
    /// Tests whose schema needs a remote document: refused when compiled.
    pub remote_refused: usize,
    /// `format.json` tests that expect `format` to be an annotation only.
    pub format_asserted: usize,
    /// Tests whose schema refers to an older draft's meta-schema, which
    /// Baton does not ship: refused when compiled, as not self-contained.
    pub meta_refused: usize,
    pub failures: Vec<String>,
}

impl Tally {
    pub fn summary(&self, what: &str) -> String {
        format!(
            "JSON-Schema-Test-Suite ({what}): {} passed, {} refused for a remote document, {} for a draft's meta-schema, {} invalid by an asserted format, {} failed",
            self.passed,
            self.remote_refused,
            self.meta_refused,
            self.format_asserted,
            self.failures.len()
        )
    }
}

fn needs_remote(schema: &Value) -> bool {
    schema.to_string().contains("localhost:1234")
}

/// Runs one file of the suite (`name`, its `text`) into `tally`.
pub fn run_file(name: &str, text: &str, tally: &mut Tally) {
    run_file_as(name, text, None, tally);
}

/// Whether a schema refers to one of the older drafts' meta-schemas.
fn needs_meta(schema: &Value) -> bool {
    let text = schema.to_string();
    [
        "draft-04/schema",
        "draft-06/schema",
        "draft-07/schema",
        "draft/2019-09/",
    ]
    .iter()
    .any(|meta| text.contains(&format!("json-schema.org/{meta}")))
}

/// Runs one file of an older draft's suite, each schema declaring `draft`
/// (its `$schema` URI) as a schema written for that draft does.
pub fn run_file_as(name: &str, text: &str, draft: Option<&str>, tally: &mut Tally) {
    let groups: Vec<Value> = serde_json::from_str(text).expect("the suite is JSON");
    let format_file = name == "format.json";
    for group in groups {
        let description = group["description"].as_str().unwrap_or("?");
        let tests = group["tests"].as_array().cloned().unwrap_or_default();
        let mut declared = group["schema"].clone();
        if let (Some(draft), Value::Object(map)) = (draft, &mut declared) {
            map.entry("$schema").or_insert_with(|| json!(draft));
        }
        let schema = match Schema::compile(&declared) {
            Ok(schema) => schema,
            Err(SchemaError::NotSelfContained { .. } | SchemaError::WrongDraft { .. })
                if needs_remote(&group["schema"]) =>
            {
                tally.remote_refused += tests.len();
                continue;
            }
            Err(SchemaError::NotSelfContained { .. }) if needs_meta(&group["schema"]) => {
                tally.meta_refused += tests.len();
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
            // The same value read from its JSON text (pretty, so the
            // parser meets space too) must be judged the same way.
            let text = serde_json::to_string_pretty(&test["data"]).expect("JSON");
            let from_text = schema.validate_str(&text);
            if full.valid != got || full.errors.is_empty() != got {
                tally.failures.push(format!(
                    "{name} / {description} / {test_name}: is_valid and validate disagree"
                ));
            } else if from_text.as_ref() != Ok(&full) || schema.is_valid_str(&text) != Ok(got) {
                tally.failures.push(format!(
                    "{name} / {description} / {test_name}: the value read from its text is judged otherwise: {from_text:?}"
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

/// Far beyond what any accepted pattern needs at its length limit, in
/// milliseconds; a frozen match takes minutes or forever. The slowest
/// accepted case, `^\s+|\s+$` on 10,000 characters, is polynomial in a
/// backtracking engine: about 2.4 s natively on a slow 2-core machine, so
/// the bound leaves room for the machine and still tells slow from frozen
/// (`^(a+)+$` at 40 characters would take hours; it is refused).
pub const ATTACK_BOUND_MS: f64 = 8_000.0;

/// Runs the ReDoS corpus (`redos-corpus.json`), timing each match with
/// `now_ms`: every case marked refused must be refused when its schema
/// compiles, every other one must match its attack text at every length in
/// [`ATTACK_LENGTHS`] within [`ATTACK_BOUND_MS`]. Returns how many were
/// refused and how many ran.
pub fn run_redos_corpus(now_ms: impl Fn() -> f64) -> (usize, usize) {
    let corpus: Value = serde_json::from_str(include_str!("../redos-corpus.json")).unwrap();
    let cases = corpus["cases"].as_array().unwrap();
    assert!(cases.len() >= 20, "the corpus is present");
    let (mut refused, mut bounded) = (0, 0);
    for case in cases {
        let pattern = case["pattern"].as_str().unwrap();
        let compiled = Schema::compile(&json!({"type": "string", "pattern": pattern}));
        if case["refused"] == json!(true) {
            assert!(
                matches!(
                    compiled,
                    Err(SchemaError::Pattern(PatternError::Catastrophic { .. }))
                ),
                "{pattern} must be refused: {compiled:?}"
            );
            refused += 1;
            continue;
        }
        let schema = compiled.unwrap_or_else(|e| panic!("{pattern} compiles: {e}"));
        for len in ATTACK_LENGTHS {
            let text = attack(case, len);
            let started = now_ms();
            let result = schema.validate(&json!(text));
            let took = now_ms() - started;
            assert!(
                took < ATTACK_BOUND_MS,
                "{pattern} on {len} characters took {took} ms"
            );
            if let Some(issue) = result.errors.first() {
                assert_eq!(issue.keyword, "pattern", "{pattern}: {issue:?}");
            }
        }
        bounded += 1;
    }
    assert!(
        refused > 0 && bounded > 0,
        "{refused} refused, {bounded} ran"
    );
    (refused, bounded)
}

/// A ReDoS case's attack text of about `len` characters: its prefix, its
/// pump repeated, its suffix.
pub fn attack(case: &Value, len: usize) -> String {
    let (prefix, pump, suffix) = (
        case["prefix"].as_str().unwrap_or_default(),
        case["pump"].as_str().unwrap_or("a"),
        case["suffix"].as_str().unwrap_or_default(),
    );
    let repeats = len.saturating_sub(prefix.len() + suffix.len()) / pump.len().max(1);
    format!("{prefix}{}{suffix}", pump.repeat(repeats))
}

/// The lengths every accepted pattern is run at: up to and past every
/// limit a degree can set.
pub const ATTACK_LENGTHS: [usize; 6] = [10, 100, 464, 1_000, 10_000, 50_000];

/// One validation of many long strings against a polynomial pattern
/// (`^a*a*b$`, degree 2): 32 strings of 2,000 `a`s and a `c`, each within
/// the pattern's length limit, together far over what one validation may
/// spend. Returns the issues' keywords and messages and how long the
/// `validate` call took, by `now` (milliseconds).
pub fn validate_many_long_strings(now: impl Fn() -> f64) -> (Vec<(String, String)>, f64) {
    let schema = Schema::compile(&json!({
        "type": "array",
        "items": {"type": "string", "pattern": "^a*a*b$"}
    }))
    .expect("a polynomial pattern is accepted");
    let attack = format!("{}c", "a".repeat(2_000));
    let value = Value::Array(vec![Value::String(attack); 32]);
    let started = now();
    let validation = schema.validate(&value);
    let took = now() - started;
    let issues = validation
        .errors
        .into_iter()
        .map(|issue| (issue.instance_path, issue.message))
        .collect();
    (issues, took)
}
