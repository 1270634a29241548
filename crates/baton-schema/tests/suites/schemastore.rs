//! The SchemaStore corpus (`tests/corpus/schemastore-patterns.json`: every
//! pattern of the public catalog of JSON schemas, with the verdict of the
//! `recheck` ReDoS checker; `cargo xtask corpus` refreshes it), judged by
//! Baton as an argument's pattern: what recheck calls safe must compile
//! with no length limit, what it calls exponential must be refused, and a
//! polynomial pattern Baton accepts must match recheck's attack, cut to the
//! length Baton matches it on, within a bound.

use baton_schema::{PatternError, Schema, SchemaError};
use serde_json::{json, Value};

/// How long an attack may run on a pattern Baton judges linear but recheck
/// does not: the longest text the ReDoS corpus tries.
pub const LINEAR_ATTACK_CHARS: usize = 50_000;

/// What the corpus came to.
#[derive(Debug, Default)]
pub struct CorpusReport {
    pub patterns: usize,
    /// recheck: safe; Baton: accepted, no length limit.
    pub safe: usize,
    /// recheck: polynomial; Baton: accepted (its attack timed) or refused.
    pub polynomial_accepted: usize,
    pub polynomial_refused: usize,
    /// recheck: exponential; Baton: refused.
    pub exponential: usize,
    /// The slowest attack, in milliseconds, and its pattern.
    pub slowest: (f64, String),
    pub failures: Vec<String>,
}

/// recheck's attack on `entry`, as long as fits in `chars` characters: each
/// pump's prefix, then its pump repeated, then the suffix.
pub fn attack_within(entry: &Value, chars: usize) -> String {
    let attack = &entry["attack"];
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let pumps: Vec<(String, String, i64)> = attack["pumps"]
        .as_array()
        .map(|pumps| {
            pumps
                .iter()
                .map(|p| {
                    (
                        text(&p["prefix"]),
                        text(&p["pump"]),
                        p["bias"].as_i64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let suffix = text(&attack["suffix"]);
    let len = |s: &str| s.chars().count() as i64;
    let fixed: i64 = pumps
        .iter()
        .map(|(prefix, pump, bias)| len(prefix) + len(pump) * bias.max(&0))
        .sum::<i64>()
        + len(&suffix);
    let per_round: i64 = pumps
        .iter()
        .map(|(_, pump, _)| len(pump))
        .sum::<i64>()
        .max(1);
    let rounds = ((chars as i64 - fixed) / per_round).max(1);
    let mut out = String::new();
    for (prefix, pump, bias) in &pumps {
        out.push_str(prefix);
        out.push_str(&pump.repeat((rounds + bias).max(0) as usize));
    }
    out.push_str(&suffix);
    out
}

/// Judges the whole corpus, timing each attack with `now_ms`.
pub fn run_schemastore_corpus(now_ms: impl Fn() -> f64, bound_ms: f64) -> CorpusReport {
    let corpus: Value =
        serde_json::from_str(include_str!("../corpus/schemastore-patterns.json")).unwrap();
    let mut report = CorpusReport::default();
    for entry in corpus["patterns"].as_array().unwrap() {
        if entry["valid"] != json!(true) {
            continue;
        }
        report.patterns += 1;
        let pattern = entry["pattern"].as_str().unwrap();
        let compiled = Schema::compile(&json!({
            "type": "object",
            "properties": {"value": {"type": "string", "pattern": pattern}}
        }));
        match (entry["complexity"].as_str().unwrap_or(""), compiled) {
            ("exponential", Err(SchemaError::Pattern(PatternError::Catastrophic { .. }))) => {
                report.exponential += 1;
            }
            ("exponential", other) => report
                .failures
                .push(format!("exponential, not refused: {pattern} ({other:?})")),
            ("polynomial", Err(SchemaError::Pattern(PatternError::Catastrophic { .. }))) => {
                report.polynomial_refused += 1;
            }
            ("polynomial", Ok(schema)) => {
                let chars = schema
                    .slowest_pattern("value")
                    .map_or(LINEAR_ATTACK_CHARS, |slowest| slowest.max_chars);
                let text = attack_within(entry, chars);
                let started = now_ms();
                let result = schema.validate(&json!({ "value": text }));
                let took = now_ms() - started;
                if took > report.slowest.0 {
                    report.slowest = (took, pattern.to_owned());
                }
                if took > bound_ms {
                    report.failures.push(format!(
                        "polynomial, its attack on {chars} characters took {took:.1} ms: {pattern}"
                    ));
                }
                if let Some(issue) = result.errors.first() {
                    assert_eq!(issue.keyword, "pattern", "{pattern}: {issue:?}");
                }
                report.polynomial_accepted += 1;
            }
            (_, Ok(schema)) => match schema.slowest_pattern("value") {
                None => report.safe += 1,
                Some(slowest) => report.failures.push(format!(
                    "safe, capped at {} characters: {pattern}",
                    slowest.max_chars
                )),
            },
            (verdict, Err(error)) => report
                .failures
                .push(format!("{verdict}, refused: {pattern} ({error})")),
        }
    }
    report
}
