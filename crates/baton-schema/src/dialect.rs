//! The drafts a schema may declare (`$schema`), and what each means where
//! they differ. A schema without `$schema` is JSON Schema 2020-12.
//!
//! Drafts 04, 06 and 07 — what most schemas in the wild and tools such as
//! `zod-to-json-schema` write — and 2019-09 are compiled with their own
//! semantics: `items` as an array with `additionalItems` (before 2020-12),
//! `dependencies`, `definitions` and a `$ref` that overrides its siblings
//! (before 2019-09), `$recursiveRef` and `$recursiveAnchor` (2019-09), and
//! in draft 04 `id` and the boolean `exclusiveMaximum`/`exclusiveMinimum`. Keywords a
//! draft does not have are ignored in it, as annotations — except
//! `dependencies`, which later drafts split in two and which is still read
//! in them, as the suite's optional compatibility tests ask. Their
//! meta-schemas are not shipped: such a schema is checked by the
//! compiler's own rules for each keyword, not against its meta-schema, and
//! a reference to the meta-schema itself is refused as not self-contained.
//! One draft 04 rule is not kept: `2.0` is an `integer` in every draft, as
//! from draft 06 on, because the page hands Baton numbers in which `2.0`
//! and `2` are one (the suite counts the draft 04 reading optional).

use serde_json::Value;

use crate::SchemaError;

/// A draft of JSON Schema Baton compiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Draft {
    /// Draft 04 (`http://json-schema.org/draft-04/schema#`).
    Draft4,
    /// Draft 06.
    Draft6,
    /// Draft 07 (`http://json-schema.org/draft-07/schema#`).
    Draft7,
    /// Draft 2019-09 (`https://json-schema.org/draft/2019-09/schema`).
    Draft2019,
    /// Draft 2020-12, the default.
    #[default]
    Draft2020,
}

impl Draft {
    /// The draft `schema` declares; 2020-12 when it declares none.
    pub fn of(schema: &Value) -> Result<Draft, SchemaError> {
        let Some(declared) = schema.get("$schema") else {
            return Ok(Draft::Draft2020);
        };
        let text = declared.as_str().unwrap_or_default();
        let uri = text.trim_end_matches('#');
        let uri = uri
            .strip_prefix("https://")
            .or_else(|| uri.strip_prefix("http://"))
            .unwrap_or_default();
        Ok(match uri {
            "json-schema.org/draft/2020-12/schema" => Draft::Draft2020,
            "json-schema.org/draft/2019-09/schema" => Draft::Draft2019,
            "json-schema.org/draft-07/schema" => Draft::Draft7,
            "json-schema.org/draft-06/schema" => Draft::Draft6,
            "json-schema.org/draft-04/schema" => Draft::Draft4,
            _ => {
                return Err(SchemaError::WrongDraft {
                    declared: text.to_owned(),
                })
            }
        })
    }

    /// Drafts before 2019-09: `$ref` overrides its siblings, and
    /// `definitions`.
    pub(crate) fn is_legacy(self) -> bool {
        self < Draft::Draft2019
    }

    /// Drafts before 2020-12: `items` may be an array, then
    /// `additionalItems`.
    pub(crate) fn has_item_arrays(self) -> bool {
        self < Draft::Draft2020
    }

    /// The keyword that names a resource: `id` in draft 04.
    pub(crate) fn id_keyword(self) -> &'static str {
        if self == Draft::Draft4 {
            "id"
        } else {
            "$id"
        }
    }

    /// Whether the draft defines the format `name`; one it does not is an
    /// annotation in it, as other keywords it lacks are.
    pub(crate) fn has_format(self, name: &str) -> bool {
        match name {
            "uri-reference" | "uri-template" | "json-pointer" => self >= Draft::Draft6,
            // `date` and `time` are checked in every draft, as `jsonschema`
            // (the oracle) and most validators do.
            "idn-email" | "idn-hostname" | "iri" | "iri-reference" | "relative-json-pointer" => {
                self >= Draft::Draft7
            }
            "duration" | "uuid" => self >= Draft::Draft2019,
            _ => true,
        }
    }

    /// Whether the draft has `keyword`; one it lacks is an annotation.
    pub(crate) fn has(self, keyword: &str) -> bool {
        match keyword {
            "const" | "contains" | "propertyNames" => self >= Draft::Draft6,
            "if" => self >= Draft::Draft7,
            "prefixItems" | "$dynamicRef" => self == Draft::Draft2020,
            "dependentRequired"
            | "dependentSchemas"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "minContains"
            | "maxContains"
            | "$recursiveRef" => self >= Draft::Draft2019,
            _ => true,
        }
    }
}
