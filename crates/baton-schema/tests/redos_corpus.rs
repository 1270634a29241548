//! Patterns are untrusted input: the ReDoS corpus (`redos-corpus.json`)
//! cannot freeze the validator. Each pattern is refused when its schema is
//! compiled, or it runs on its attack input — at the longest length Baton
//! matches it against, and beyond — and returns in bounded time
//! (`suites::run_redos_corpus`, which the browser runs too).

mod suites;

use std::time::Instant;

use baton_schema::{PatternError, Schema, SchemaError};
use serde_json::{json, Value};

#[test]
fn the_redos_corpus_cannot_freeze_the_validator() {
    let corpus: Value = serde_json::from_str(include_str!("redos-corpus.json")).unwrap();
    let cases = corpus["cases"].as_array().unwrap();
    let to_refuse = cases
        .iter()
        .filter(|case| case["refused"] == json!(true))
        .count();
    let start = Instant::now();
    let (refused, bounded) = suites::run_redos_corpus(|| start.elapsed().as_secs_f64() * 1_000.0);
    println!("ReDoS corpus: {refused} refused when compiled, {bounded} run in bounded time");
    // Every case is accounted for: refused as the corpus says, or run to
    // the end of its attack lengths within the bound each time.
    assert_eq!((refused, bounded), (to_refuse, cases.len() - to_refuse));
    let whole = start.elapsed().as_secs_f64();
    let bound =
        (cases.len() * suites::ATTACK_LENGTHS.len()) as f64 * suites::ATTACK_BOUND_MS / 1_000.0;
    assert!(whole < bound, "the corpus took {whole} s");
}

#[test]
fn the_classic_pathological_pattern_is_refused_before_it_can_run() {
    // `^(a+)+$` against forty `a`s and a `!`: exponential in a backtracking
    // engine. It is refused when its schema is compiled, so it never runs.
    let started = Instant::now();
    let compiled = Schema::compile(&json!({"type": "string", "pattern": "^(a+)+$"}));
    assert!(matches!(
        compiled,
        Err(SchemaError::Pattern(PatternError::Catastrophic { .. }))
    ));
    // Accepted patterns run on that text in bounded time and say `pattern`.
    let text = format!("{}!", "a".repeat(40));
    let linear = Schema::compile(&json!({"type": "string", "pattern": "^a+$"})).unwrap();
    let result = linear.validate(&json!(text));
    assert_eq!(
        result.errors.first().map(|issue| issue.keyword.as_str()),
        Some("pattern")
    );
    assert!(
        started.elapsed().as_millis() < 1_000,
        "{:?}",
        started.elapsed()
    );
}

/// The work of one validation is bounded as a whole, not per string: past
/// its budget the strings left are refused, each naming where it is, and the
/// call returns in bounded time however many strings the value holds (the
/// browser's test holds it to 100 ms; the native engine, unoptimised in
/// tests, gets more room).
#[test]
fn one_validation_of_many_long_strings_is_bounded_as_a_whole() {
    let start = Instant::now();
    let (issues, took) =
        suites::validate_many_long_strings(|| start.elapsed().as_secs_f64() * 1_000.0);
    assert_eq!(issues.len(), 32, "every string is refused: {issues:?}");
    let over: Vec<&String> = issues
        .iter()
        .filter(|(_, message)| message.contains("over what it may spend"))
        .map(|(path, _)| path)
        .collect();
    assert_eq!(
        over.len(),
        31,
        "all but the first are over the budget: {issues:?}"
    );
    assert_eq!(over[0], "/1");
    assert!(took < 1_000.0, "one validate call took {took} ms");
}

/// Real patterns with an exact count inside a repetition compile and match
/// their own examples: a hex colour (`#rgb` or `#rrggbb`), a GUID.
#[test]
fn exact_counts_inside_repetitions_are_safe_and_accepted() {
    let colour =
        Schema::compile(&json!({"type": "string", "pattern": "^#(?:[0-9a-fA-F]{3}){1,2}$"}))
            .expect("a hex colour pattern is accepted");
    for (text, valid) in [
        ("#fff", true),
        ("#a1B2c3", true),
        ("#abcd", false),
        ("fff", false),
    ] {
        assert_eq!(colour.is_valid(&json!(text)), valid, "{text}");
    }
    let guid = Schema::compile(&json!({
        "type": "string",
        "pattern": "^[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}$"
    }))
    .expect("a GUID pattern is accepted");
    assert!(guid.is_valid(&json!("123e4567-e89b-12d3-a456-426614174000")));
    assert!(!guid.is_valid(&json!("123e4567-e89b-12d3-a456")));
}

/// The patterns teams already write are judged on their automaton, not
/// their look: the semver.org expression, hex colours and the RFC 5322-style
/// email expression of form libraries compile, need no length limit, and
/// match their own examples; `^(\w+\s?)+$`, which is exponential, is refused
/// naming the repetition that makes it so.
#[test]
fn real_patterns_compile_and_the_exponential_one_is_refused_by_name() {
    const SEMVER: &str = r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$";
    const COLOUR: &str = "^#(?:[0-9a-fA-F]{3}){1,2}$";
    const EMAIL: &str = r"^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$";
    for (pattern, examples) in [
        (
            SEMVER,
            &[
                ("1.0.0", true),
                ("1.0.0-alpha.1+build.5", true),
                ("10.20.30-rc.1.x-y", true),
                ("01.0.0", false),
                ("1.0", false),
            ][..],
        ),
        (
            COLOUR,
            &[("#fff", true), ("#A1b2C3", true), ("#ffff", false)][..],
        ),
        (
            EMAIL,
            &[
                ("ada.lovelace@example.org", true),
                ("o'brien+tag@mail.example.co.uk", true),
                ("ada@", false),
                ("ada..x@example.org", false),
            ][..],
        ),
    ] {
        let schema = Schema::compile(&json!({"type": "string", "pattern": pattern}))
            .unwrap_or_else(|e| panic!("{pattern} is accepted: {e}"));
        let wrapped = Schema::compile(&json!({
            "type": "object",
            "properties": {"value": {"type": "string", "pattern": pattern}}
        }))
        .unwrap();
        assert_eq!(
            wrapped.slowest_pattern("value"),
            None,
            "{pattern} is linear"
        );
        for &(text, valid) in examples {
            assert_eq!(schema.is_valid(&json!(text)), valid, "{pattern} on {text}");
        }
        // Long values are matched too: a linear pattern has no length limit.
        let long = format!("{}@example.org", "a".repeat(20_000));
        if pattern == EMAIL {
            assert!(schema.is_valid(&json!(long)));
        }
    }
    let refused = Schema::compile(&json!({"type": "string", "pattern": r"^(\w+\s?)+$"}));
    match refused {
        Err(SchemaError::Pattern(error @ PatternError::Catastrophic { .. })) => {
            let message = error.to_string();
            assert!(
                message.contains(r"`(\w+\s?)+` can match the same text in more than one way"),
                "{message}"
            );
        }
        other => panic!("^(\\w+\\s?)+$ is refused: {other:?}"),
    }
}
