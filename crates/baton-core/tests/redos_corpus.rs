//! Patterns are untrusted input: the ReDoS corpus (`redos-corpus.json`)
//! cannot freeze the validator. Each pattern is refused when its schema is
//! compiled, or it runs on its attack input — at the longest length Baton
//! matches it against, and beyond — and returns in bounded time.

mod suites;

use std::time::{Duration, Instant};

use baton_core::{PatternError, Schema, SchemaError};
use serde_json::{json, Value};
use suites::{attack, ATTACK_LENGTHS};

/// Far beyond what any accepted pattern needs at its length limit; a frozen
/// match takes minutes or forever.
const BOUND: Duration = Duration::from_secs(2);

#[test]
fn the_redos_corpus_cannot_freeze_the_validator() {
    let corpus: Value = serde_json::from_str(include_str!("redos-corpus.json")).unwrap();
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
        // Lengths up to and past every limit a degree can set.
        for len in ATTACK_LENGTHS {
            let text = attack(case, len);
            let started = Instant::now();
            let result = schema.validate(&json!(text));
            let took = started.elapsed();
            assert!(took < BOUND, "{pattern} on {len} characters took {took:?}");
            if let Some(issue) = result.errors.first() {
                assert_eq!(issue.keyword, "pattern", "{pattern}: {issue:?}");
            }
        }
        bounded += 1;
    }
    println!("ReDoS corpus: {refused} refused when compiled, {bounded} run in bounded time");
    assert!(refused > 0 && bounded > 0);
}
