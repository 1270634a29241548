//! The schema suites of `baton-core`, run again in Chromium, where patterns
//! go through the page's own `RegExp`: the JSON-Schema-Test-Suite (draft
//! 2020-12) with the same expectations as natively, and the ReDoS corpus,
//! timed with the page's clock.

use wasm_bindgen_test::*;

#[path = "../../baton-schema/tests/suites/mod.rs"]
mod suites;

use suites::{run_file, run_redos_corpus, Tally};

wasm_bindgen_test_configure!(run_in_browser);

/// `(file, its text)`: the required files and the optional format files.
const SUITE: &[(&str, &str)] = &[
    ("additionalProperties.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/additionalProperties.json")),
    ("allOf.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/allOf.json")),
    ("anchor.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/anchor.json")),
    ("anyOf.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/anyOf.json")),
    ("boolean_schema.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/boolean_schema.json")),
    ("const.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/const.json")),
    ("contains.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/contains.json")),
    ("content.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/content.json")),
    ("default.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/default.json")),
    ("defs.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/defs.json")),
    ("dependentRequired.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/dependentRequired.json")),
    ("dependentSchemas.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/dependentSchemas.json")),
    ("dynamicRef.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/dynamicRef.json")),
    ("enum.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/enum.json")),
    ("exclusiveMaximum.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/exclusiveMaximum.json")),
    ("exclusiveMinimum.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/exclusiveMinimum.json")),
    ("format.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/format.json")),
    ("if-then-else.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/if-then-else.json")),
    ("infinite-loop-detection.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/infinite-loop-detection.json")),
    ("items.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/items.json")),
    ("maxContains.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/maxContains.json")),
    ("maxItems.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/maxItems.json")),
    ("maxLength.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/maxLength.json")),
    ("maxProperties.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/maxProperties.json")),
    ("maximum.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/maximum.json")),
    ("minContains.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/minContains.json")),
    ("minItems.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/minItems.json")),
    ("minLength.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/minLength.json")),
    ("minProperties.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/minProperties.json")),
    ("minimum.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/minimum.json")),
    ("multipleOf.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/multipleOf.json")),
    ("not.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/not.json")),
    ("oneOf.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/oneOf.json")),
    ("pattern.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/pattern.json")),
    ("patternProperties.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/patternProperties.json")),
    ("prefixItems.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/prefixItems.json")),
    ("properties.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/properties.json")),
    ("propertyNames.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/propertyNames.json")),
    ("ref.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/ref.json")),
    ("refRemote.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/refRemote.json")),
    ("required.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/required.json")),
    ("type.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/type.json")),
    ("unevaluatedItems.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/unevaluatedItems.json")),
    ("unevaluatedProperties.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/unevaluatedProperties.json")),
    ("uniqueItems.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/uniqueItems.json")),
    ("vocabulary.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/vocabulary.json")),
    ("optional/format/date-time.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/date-time.json")),
    ("optional/format/date.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/date.json")),
    ("optional/format/duration.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/duration.json")),
    ("optional/format/ecmascript-regex.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/ecmascript-regex.json")),
    ("optional/format/email.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/email.json")),
    ("optional/format/hostname.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/hostname.json")),
    ("optional/format/idn-email.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/idn-email.json")),
    ("optional/format/idn-hostname.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/idn-hostname.json")),
    ("optional/format/ipv4.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/ipv4.json")),
    ("optional/format/ipv6.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/ipv6.json")),
    ("optional/format/iri-reference.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/iri-reference.json")),
    ("optional/format/iri.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/iri.json")),
    ("optional/format/json-pointer.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/json-pointer.json")),
    ("optional/format/regex.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/regex.json")),
    ("optional/format/relative-json-pointer.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/relative-json-pointer.json")),
    ("optional/format/time.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/time.json")),
    ("optional/format/unknown.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/unknown.json")),
    ("optional/format/uri-reference.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/uri-reference.json")),
    ("optional/format/uri-template.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/uri-template.json")),
    ("optional/format/uri.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/uri.json")),
    ("optional/format/uuid.json", include_str!("../../baton-schema/tests/json-schema-test-suite/tests/optional/format/uuid.json")),
];

#[wasm_bindgen_test]
fn the_json_schema_test_suite_passes_in_the_browser() {
    crate::patterns::ensure();
    let mut tally = Tally::default();
    for (file, text) in SUITE {
        run_file(file.rsplit('/').next().unwrap_or(file), text, &mut tally);
    }
    web_sys::console::log_1(&tally.summary("in Chromium").into());
    assert!(tally.passed > 1500 && tally.remote_refused > 0 && tally.format_asserted > 0);
    assert!(tally.failures.is_empty(), "{:#?}", tally.failures);
}

#[wasm_bindgen_test]
fn the_redos_corpus_cannot_freeze_the_page() {
    crate::patterns::ensure();
    let performance = web_sys::window().unwrap().performance().unwrap();
    let (refused, bounded) = run_redos_corpus(|| performance.now());
    assert!(
        refused > 10 && bounded > 5,
        "{refused} refused, {bounded} bounded"
    );
}

/// One `validate` call holding many long strings against a polynomial
/// pattern stays under 100 ms on the page's `RegExp`: past the
/// validation's budget the strings left are refused, not run.
#[wasm_bindgen_test]
fn one_validation_of_many_long_strings_stays_under_100_ms() {
    crate::patterns::ensure();
    let performance = web_sys::window().unwrap().performance().unwrap();
    let (issues, took) = suites::validate_many_long_strings(|| performance.now());
    assert_eq!(issues.len(), 32, "{issues:?}");
    assert!(took < 100.0, "one validate call took {took} ms");
}
