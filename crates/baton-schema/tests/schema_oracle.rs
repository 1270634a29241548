//! Baton's validator against an oracle: the `jsonschema` crate, configured
//! as Baton used it before (draft 2020-12, formats asserted), must agree on
//! every generated schema and value. The schemas are drawn from every
//! vocabulary — references and `$defs`, the combinators, conditionals,
//! `unevaluated*` — and the patterns and formats from those both sides read
//! the same way.

use baton_schema::Schema;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const KEYS: [&str; 3] = ["a", "b", "c"];
const PATTERNS: [&str; 6] = ["^a", "b$", "[0-9]", "^[a-z]+$", "^(ab|c)*$", "\\d{2}"];
const FORMATS: [&str; 4] = ["date", "ipv4", "uuid", "json-pointer"];

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..12).prop_map(|n| json!(n)),
        prop_oneof![Just(0.5), Just(2.0), Just(-1.5), Just(3.25)].prop_map(|f| json!(f)),
        prop_oneof![
            Just(""),
            Just("a"),
            Just("ab"),
            Just("b"),
            Just("abc"),
            Just("12"),
            Just("2026-11-29"),
            Just("2026-02-30"),
            Just("10.0.0.1"),
            Just("10.0.0.256"),
            Just("67e55044-10b1-426f-9247-bb680e5fe0c8"),
            Just("/a~1b"),
            Just("/a~2"),
            Just("ca1"),
        ]
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(KEYS.to_vec()), inner, 0..4).prop_map(
                |map| Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            ),
        ]
    })
}

fn leaf_keyword() -> impl Strategy<Value = (String, Value)> {
    let types = prop::sample::subsequence(
        vec![
            "null", "boolean", "object", "array", "number", "string", "integer",
        ],
        1..3,
    );
    prop_oneof![
        types.prop_map(|t| (
            "type".into(),
            if t.len() == 1 { json!(t[0]) } else { json!(t) }
        )),
        (-2i64..8).prop_map(|n| ("minimum".into(), json!(n))),
        (-2i64..8).prop_map(|n| ("maximum".into(), json!(n))),
        (-2i64..8).prop_map(|n| ("exclusiveMinimum".into(), json!(n))),
        (-2i64..8).prop_map(|n| ("exclusiveMaximum".into(), json!(n))),
        prop_oneof![Just(json!(2)), Just(json!(0.5)), Just(json!(3))]
            .prop_map(|m| ("multipleOf".into(), m)),
        (0u64..4).prop_map(|n| ("minLength".into(), json!(n))),
        (0u64..4).prop_map(|n| ("maxLength".into(), json!(n))),
        prop::sample::select(PATTERNS.to_vec()).prop_map(|p| ("pattern".into(), json!(p))),
        prop::sample::select(FORMATS.to_vec()).prop_map(|f| ("format".into(), json!(f))),
        prop::collection::vec(value(), 1..3).prop_map(|v| ("enum".into(), Value::Array(v))),
        value().prop_map(|v| ("const".into(), v)),
        (0u64..3).prop_map(|n| ("minItems".into(), json!(n))),
        (0u64..3).prop_map(|n| ("maxItems".into(), json!(n))),
        any::<bool>().prop_map(|b| ("uniqueItems".into(), json!(b))),
        prop::sample::subsequence(KEYS.to_vec(), 0..3).prop_map(|r| ("required".into(), json!(r))),
        (0u64..3).prop_map(|n| ("minProperties".into(), json!(n))),
        (0u64..3).prop_map(|n| ("maxProperties".into(), json!(n))),
        prop::sample::subsequence(KEYS.to_vec(), 1..3)
            .prop_map(|r| ("dependentRequired".into(), json!({"a": r}))),
        Just(("$ref".to_owned(), json!("#/$defs/named"))),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        prop::collection::vec(leaf_keyword(), 0..4)
            .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        let applicator = prop_oneof![
            prop::collection::btree_map(prop::sample::select(KEYS.to_vec()), inner.clone(), 1..3)
                .prop_map(|m| ("properties".to_owned(), json!(m))),
            inner
                .clone()
                .prop_map(|s| ("patternProperties".to_owned(), json!({"^a": s}))),
            inner
                .clone()
                .prop_map(|s| ("additionalProperties".to_owned(), s)),
            inner.clone().prop_map(|s| ("propertyNames".to_owned(), s)),
            inner.clone().prop_map(|s| ("items".to_owned(), s)),
            prop::collection::vec(inner.clone(), 1..3)
                .prop_map(|v| ("prefixItems".to_owned(), json!(v))),
            inner.clone().prop_map(|s| ("contains".to_owned(), s)),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| ("allOf".to_owned(), json!(v))),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| ("anyOf".to_owned(), json!(v))),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| ("oneOf".to_owned(), json!(v))),
            inner.clone().prop_map(|s| ("not".to_owned(), s)),
            inner.clone().prop_map(|s| ("if".to_owned(), s)),
            inner.clone().prop_map(|s| ("then".to_owned(), s)),
            inner.clone().prop_map(|s| ("else".to_owned(), s)),
            inner
                .clone()
                .prop_map(|s| ("dependentSchemas".to_owned(), json!({"b": s}))),
            inner
                .clone()
                .prop_map(|s| ("unevaluatedProperties".to_owned(), s)),
            inner
                .clone()
                .prop_map(|s| ("unevaluatedItems".to_owned(), s)),
            (0u64..3).prop_map(|n| ("minContains".to_owned(), json!(n))),
            (0u64..3).prop_map(|n| ("maxContains".to_owned(), json!(n))),
        ];
        (
            prop::collection::vec(leaf_keyword(), 0..3),
            prop::collection::vec(applicator, 1..3),
        )
            .prop_map(|(leaves, applicators)| {
                let mut map: Map<String, Value> = leaves.into_iter().collect();
                map.extend(applicators);
                Value::Object(map)
            })
    })
}

/// `schema` without its `$ref`s: the named definition refers to nothing,
/// so no reference cycle can form (Baton refuses those when compiling; the
/// oracle does not, and then never finishes validating).
fn without_refs(schema: Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(key, _)| key != "$ref")
                .map(|(key, value)| (key, without_refs(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_refs).collect()),
        other => other,
    }
}

/// A generated schema with the `$defs` its `$ref`s name.
fn document() -> impl Strategy<Value = Value> {
    (schema(), schema().prop_map(without_refs)).prop_map(|(root, named)| match root {
        Value::Object(mut map) => {
            map.insert("$defs".into(), json!({"named": named}));
            Value::Object(map)
        }
        other => other,
    })
}

fn oracle(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn the_validator_agrees_with_the_oracle(schema in document(), values in prop::collection::vec(value(), 1..6)) {
        let ours = Schema::compile(&schema);
        let theirs = oracle(&schema);
        prop_assert_eq!(ours.is_ok(), theirs.is_some(), "compiling {}: {:?}", schema, ours.err());
        if let (Ok(ours), Some(theirs)) = (ours, theirs) {
            for value in values {
                let verdict = ours.validate(&value);
                prop_assert_eq!(
                    verdict.valid, theirs.is_valid(&value),
                    "schema {} value {}: {:?}", schema, value, verdict.errors
                );
                prop_assert_eq!(verdict.valid, ours.is_valid(&value));
                prop_assert_eq!(verdict.valid, verdict.errors.is_empty());
            }
        }
    }
}

/// Whether `value` holds a float with no fractional part (`2.0`). Draft 4
/// alone leaves `2.0` out of `integer`, and the oracle follows it; Baton
/// validates what the page hands it, where `2.0` and `2` are one number,
/// so it counts `2.0` an integer in every draft (the suite puts this case
/// among its optional tests, `zeroTerminatedFloats`). Such values are not
/// compared under draft 4.
fn has_whole_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Array(items) => items.iter().any(has_whole_float),
        Value::Object(map) => map.values().any(has_whole_float),
        _ => false,
    }
}

/// The older drafts a schema may declare, each with its oracle.
fn older_oracle(draft: &str, schema: &Value) -> Option<jsonschema::Validator> {
    match draft {
        "https://json-schema.org/draft/2019-09/schema" => jsonschema::draft201909::options()
            .should_validate_formats(true)
            .build(schema)
            .ok(),
        "http://json-schema.org/draft-07/schema#" => jsonschema::draft7::options()
            .should_validate_formats(true)
            .build(schema)
            .ok(),
        _ => jsonschema::draft4::options()
            .should_validate_formats(true)
            .build(schema)
            .ok(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// The same generated schemas declaring an older draft: where both
    /// compile them, Baton and the oracle for that draft agree on every
    /// value (keywords the draft lacks are annotations to both).
    #[test]
    fn the_validator_agrees_with_the_oracle_in_older_drafts(
        schema in document(),
        draft in prop::sample::select(vec![
            "https://json-schema.org/draft/2019-09/schema",
            "http://json-schema.org/draft-07/schema#",
            "http://json-schema.org/draft-04/schema#",
        ]),
        values in prop::collection::vec(value(), 1..6),
    ) {
        let Value::Object(mut map) = schema else {
            return Ok(());
        };
        map.insert("$schema".into(), json!(draft));
        let schema = Value::Object(map);
        if let (Ok(ours), Some(theirs)) = (Schema::compile(&schema), older_oracle(draft, &schema)) {
            for value in values {
                if draft.contains("draft-04") && has_whole_float(&value) {
                    continue;
                }
                let verdict = ours.validate(&value);
                prop_assert_eq!(
                    verdict.valid, theirs.is_valid(&value),
                    "schema {} value {}: {:?}", schema, value, verdict.errors
                );
            }
        }
    }
}
