//! The schema suites of `baton-schema`, run again in Chromium, where
//! patterns go through the page's own `RegExp`: the JSON-Schema-Test-Suite
//! (draft 2020-12, and drafts 2019-09, 07, 06 and 04) with the same expectations as
//! natively, and the ReDoS corpus, timed with the page's clock.

use wasm_bindgen_test::*;

#[path = "../../baton-schema/tests/suites/mod.rs"]
mod suites;

use suites::{run_file, run_file_as, run_redos_corpus, Tally};

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

/// `(file, the draft its schemas declare, its text)`: the required files of
/// drafts 2019-09, 07, 06 and 04.
const LEGACY_SUITES: &[(&str, &str, &str)] = &[
    ("draft2019-09/additionalItems.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/additionalItems.json")),
    ("draft2019-09/additionalProperties.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/additionalProperties.json")),
    ("draft2019-09/allOf.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/allOf.json")),
    ("draft2019-09/anchor.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/anchor.json")),
    ("draft2019-09/anyOf.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/anyOf.json")),
    ("draft2019-09/boolean_schema.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/boolean_schema.json")),
    ("draft2019-09/const.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/const.json")),
    ("draft2019-09/contains.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/contains.json")),
    ("draft2019-09/content.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/content.json")),
    ("draft2019-09/default.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/default.json")),
    ("draft2019-09/defs.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/defs.json")),
    ("draft2019-09/dependentRequired.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/dependentRequired.json")),
    ("draft2019-09/dependentSchemas.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/dependentSchemas.json")),
    ("draft2019-09/enum.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/enum.json")),
    ("draft2019-09/exclusiveMaximum.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/exclusiveMaximum.json")),
    ("draft2019-09/exclusiveMinimum.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/exclusiveMinimum.json")),
    ("draft2019-09/format.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/format.json")),
    ("draft2019-09/if-then-else.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/if-then-else.json")),
    ("draft2019-09/infinite-loop-detection.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/infinite-loop-detection.json")),
    ("draft2019-09/items.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/items.json")),
    ("draft2019-09/maxContains.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/maxContains.json")),
    ("draft2019-09/maxItems.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/maxItems.json")),
    ("draft2019-09/maxLength.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/maxLength.json")),
    ("draft2019-09/maxProperties.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/maxProperties.json")),
    ("draft2019-09/maximum.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/maximum.json")),
    ("draft2019-09/minContains.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/minContains.json")),
    ("draft2019-09/minItems.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/minItems.json")),
    ("draft2019-09/minLength.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/minLength.json")),
    ("draft2019-09/minProperties.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/minProperties.json")),
    ("draft2019-09/minimum.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/minimum.json")),
    ("draft2019-09/multipleOf.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/multipleOf.json")),
    ("draft2019-09/not.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/not.json")),
    ("draft2019-09/oneOf.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/oneOf.json")),
    ("draft2019-09/pattern.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/pattern.json")),
    ("draft2019-09/patternProperties.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/patternProperties.json")),
    ("draft2019-09/properties.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/properties.json")),
    ("draft2019-09/propertyNames.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/propertyNames.json")),
    ("draft2019-09/recursiveRef.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/recursiveRef.json")),
    ("draft2019-09/ref.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/ref.json")),
    ("draft2019-09/refRemote.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/refRemote.json")),
    ("draft2019-09/required.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/required.json")),
    ("draft2019-09/type.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/type.json")),
    ("draft2019-09/unevaluatedItems.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/unevaluatedItems.json")),
    ("draft2019-09/unevaluatedProperties.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/unevaluatedProperties.json")),
    ("draft2019-09/uniqueItems.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/uniqueItems.json")),
    ("draft2019-09/vocabulary.json", "https://json-schema.org/draft/2019-09/schema", include_str!("../../baton-schema/tests/json-schema-test-suite/draft2019-09/vocabulary.json")),
    ("draft7/additionalItems.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/additionalItems.json")),
    ("draft7/additionalProperties.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/additionalProperties.json")),
    ("draft7/allOf.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/allOf.json")),
    ("draft7/anyOf.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/anyOf.json")),
    ("draft7/boolean_schema.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/boolean_schema.json")),
    ("draft7/const.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/const.json")),
    ("draft7/contains.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/contains.json")),
    ("draft7/default.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/default.json")),
    ("draft7/definitions.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/definitions.json")),
    ("draft7/dependencies.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/dependencies.json")),
    ("draft7/enum.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/enum.json")),
    ("draft7/exclusiveMaximum.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/exclusiveMaximum.json")),
    ("draft7/exclusiveMinimum.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/exclusiveMinimum.json")),
    ("draft7/format.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/format.json")),
    ("draft7/if-then-else.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/if-then-else.json")),
    ("draft7/infinite-loop-detection.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/infinite-loop-detection.json")),
    ("draft7/items.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/items.json")),
    ("draft7/maxItems.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/maxItems.json")),
    ("draft7/maxLength.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/maxLength.json")),
    ("draft7/maxProperties.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/maxProperties.json")),
    ("draft7/maximum.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/maximum.json")),
    ("draft7/minItems.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/minItems.json")),
    ("draft7/minLength.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/minLength.json")),
    ("draft7/minProperties.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/minProperties.json")),
    ("draft7/minimum.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/minimum.json")),
    ("draft7/multipleOf.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/multipleOf.json")),
    ("draft7/not.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/not.json")),
    ("draft7/oneOf.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/oneOf.json")),
    ("draft7/pattern.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/pattern.json")),
    ("draft7/patternProperties.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/patternProperties.json")),
    ("draft7/properties.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/properties.json")),
    ("draft7/propertyNames.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/propertyNames.json")),
    ("draft7/ref.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/ref.json")),
    ("draft7/refRemote.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/refRemote.json")),
    ("draft7/required.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/required.json")),
    ("draft7/type.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/type.json")),
    ("draft7/uniqueItems.json", "http://json-schema.org/draft-07/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft7/uniqueItems.json")),
    ("draft6/additionalItems.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/additionalItems.json")),
    ("draft6/additionalProperties.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/additionalProperties.json")),
    ("draft6/allOf.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/allOf.json")),
    ("draft6/anyOf.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/anyOf.json")),
    ("draft6/boolean_schema.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/boolean_schema.json")),
    ("draft6/const.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/const.json")),
    ("draft6/contains.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/contains.json")),
    ("draft6/default.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/default.json")),
    ("draft6/definitions.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/definitions.json")),
    ("draft6/dependencies.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/dependencies.json")),
    ("draft6/enum.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/enum.json")),
    ("draft6/exclusiveMaximum.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/exclusiveMaximum.json")),
    ("draft6/exclusiveMinimum.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/exclusiveMinimum.json")),
    ("draft6/format.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/format.json")),
    ("draft6/infinite-loop-detection.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/infinite-loop-detection.json")),
    ("draft6/items.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/items.json")),
    ("draft6/maxItems.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/maxItems.json")),
    ("draft6/maxLength.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/maxLength.json")),
    ("draft6/maxProperties.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/maxProperties.json")),
    ("draft6/maximum.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/maximum.json")),
    ("draft6/minItems.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/minItems.json")),
    ("draft6/minLength.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/minLength.json")),
    ("draft6/minProperties.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/minProperties.json")),
    ("draft6/minimum.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/minimum.json")),
    ("draft6/multipleOf.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/multipleOf.json")),
    ("draft6/not.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/not.json")),
    ("draft6/oneOf.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/oneOf.json")),
    ("draft6/pattern.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/pattern.json")),
    ("draft6/patternProperties.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/patternProperties.json")),
    ("draft6/properties.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/properties.json")),
    ("draft6/propertyNames.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/propertyNames.json")),
    ("draft6/ref.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/ref.json")),
    ("draft6/refRemote.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/refRemote.json")),
    ("draft6/required.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/required.json")),
    ("draft6/type.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/type.json")),
    ("draft6/uniqueItems.json", "http://json-schema.org/draft-06/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft6/uniqueItems.json")),
    ("draft4/additionalItems.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/additionalItems.json")),
    ("draft4/additionalProperties.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/additionalProperties.json")),
    ("draft4/allOf.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/allOf.json")),
    ("draft4/anyOf.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/anyOf.json")),
    ("draft4/default.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/default.json")),
    ("draft4/definitions.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/definitions.json")),
    ("draft4/dependencies.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/dependencies.json")),
    ("draft4/enum.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/enum.json")),
    ("draft4/format.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/format.json")),
    ("draft4/infinite-loop-detection.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/infinite-loop-detection.json")),
    ("draft4/items.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/items.json")),
    ("draft4/maxItems.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/maxItems.json")),
    ("draft4/maxLength.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/maxLength.json")),
    ("draft4/maxProperties.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/maxProperties.json")),
    ("draft4/maximum.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/maximum.json")),
    ("draft4/minItems.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/minItems.json")),
    ("draft4/minLength.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/minLength.json")),
    ("draft4/minProperties.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/minProperties.json")),
    ("draft4/minimum.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/minimum.json")),
    ("draft4/multipleOf.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/multipleOf.json")),
    ("draft4/not.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/not.json")),
    ("draft4/oneOf.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/oneOf.json")),
    ("draft4/pattern.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/pattern.json")),
    ("draft4/patternProperties.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/patternProperties.json")),
    ("draft4/properties.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/properties.json")),
    ("draft4/ref.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/ref.json")),
    ("draft4/refRemote.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/refRemote.json")),
    ("draft4/required.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/required.json")),
    ("draft4/type.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/type.json")),
    ("draft4/uniqueItems.json", "http://json-schema.org/draft-04/schema#", include_str!("../../baton-schema/tests/json-schema-test-suite/draft4/uniqueItems.json")),
];

#[wasm_bindgen_test]
fn the_older_drafts_suites_pass_in_the_browser() {
    crate::patterns::ensure();
    let mut tally = Tally::default();
    for (file, draft, text) in LEGACY_SUITES {
        run_file_as(
            file.rsplit('/').next().unwrap_or(file),
            text,
            Some(draft),
            &mut tally,
        );
    }
    web_sys::console::log_1(
        &tally
            .summary("drafts 2019-09, 07, 06, 04 in Chromium")
            .into(),
    );
    assert!(tally.passed > 3000 && tally.meta_refused > 0);
    assert!(tally.failures.is_empty(), "{:#?}", tally.failures);
}

#[wasm_bindgen_test]
fn the_json_schema_test_suite_passes_in_the_browser() {
    crate::patterns::ensure();
    let mut tally = Tally::default();
    for (file, text) in SUITE {
        run_file(file.rsplit('/').next().unwrap_or(file), text, &mut tally);
    }
    web_sys::console::log_1(&tally.summary("draft2020-12 in Chromium").into());
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

/// Every pattern of the SchemaStore catalog, judged as `recheck` judges it
/// (`suites::schemastore`): on the page's `RegExp`, no accepted pattern's
/// attack, cut to the length Baton matches it on, takes more than 50 ms.
#[wasm_bindgen_test]
fn the_schemastore_patterns_are_judged_in_the_browser() {
    crate::patterns::ensure();
    let performance = web_sys::window().unwrap().performance().unwrap();
    let report = suites::schemastore::run_schemastore_corpus(|| performance.now(), 50.0);
    web_sys::console::log_1(&format!("{report:?}").into());
    assert!(report.failures.is_empty(), "{:#?}", report.failures);
    assert!(report.patterns > 1_000 && report.polynomial_accepted > 0);
    assert!(
        report.safe > 1_200,
        "every safe pattern accepted: {}",
        report.safe
    );
}
