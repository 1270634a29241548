//! Baton's JSON Schema engine: JSON Schema 2020-12, compiled once and
//! validated many times, pure and deterministic like the delegation core
//! that depends on it. Its one seam is the pattern port
//! ([`PatternEngine`]): the browser backs it with the page's own `RegExp`,
//! native tools with `regress` (feature `native-patterns`). A schema is
//! named by the SHA-256 of its canonical JSON ([`digest`]), which the
//! delegation core uses for everything else it fingerprints.
//!
//! The same validator guards capability arguments, question answers, and the
//! `Schema` that applications use directly. It is Baton's own, built for the
//! browser's budget: every vocabulary of draft 2020-12 (references,
//! `$dynamicRef`, `unevaluated*` included), `format` asserted (email, uri,
//! date, date-time, uuid, …: users of tool arguments and question forms
//! expect a field declared as an email to hold one), and no regular
//! expression engine of its own — patterns go through the host's
//! ([`PatternEngine`]), and a pattern a backtracking engine could freeze on
//! is refused before it runs ([`Hazard`]). Schemas must be self-contained:
//! nothing is ever fetched. Everything resolvable inside the document —
//! `$ref` to `#/$defs/…`, embedded `$id` base-URI changes, `$anchor`,
//! `$dynamicRef`/`$dynamicAnchor` — and the standard 2020-12 meta-schemas,
//! which ship with it, compile as the specification says; a reference that
//! would need the network or the file system is refused.
//!
//! The layout: `uri` resolves identifiers, `index` finds them in a
//! document, `compile` turns a document into a graph of keyword nodes,
//! `validate` walks a value through it, `format` and `pattern` check strings.

mod compile;
mod dialect;
pub mod digest;
mod format;
mod idna;
mod index;
mod instance;
mod meta;
mod pattern;
mod reach;
mod uri;
mod validate;

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::digest::Digest;
use crate::instance::Instance;
pub use crate::instance::NotJson;

pub use dialect::Draft;
pub use pattern::{
    install_pattern_engine, CompiledPattern, Hazard, InvalidPattern, PatternEngine, PatternError,
    MIN_CHARS,
};
pub use reach::SlowestPattern;

/// The largest schema accepted, in bytes of its canonical JSON.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// The deepest nesting of objects and arrays accepted in a schema.
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// Why a schema was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// Over [`MAX_SCHEMA_BYTES`].
    #[error("the schema is {size} bytes, over the limit of {limit}")]
    TooLarge {
        /// Its size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Nested deeper than [`MAX_SCHEMA_DEPTH`].
    #[error("the schema nests deeper than {limit} levels")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// Not JSON at all.
    #[error("the schema is not JSON: {0}")]
    NotJson(String),
    /// `$schema` names a draft Baton does not compile.
    #[error("the schema declares `$schema: {declared}`; JSON Schema 2020-12, 2019-09, draft-07, draft-06 and draft-04 are accepted")]
    WrongDraft {
        /// What it declared.
        declared: String,
    },
    /// A `$ref` points outside the document.
    #[error("the schema is not self-contained: `{reference}` points outside it")]
    NotSelfContained {
        /// The reference.
        reference: String,
    },
    /// The root must be an object schema (capability arguments).
    #[error("an argument schema must have `\"type\": \"object\"` at its root")]
    RootNotObject,
    /// Invalid against the 2020-12 meta-schema, or refers to nothing.
    #[error("the schema is invalid: {0}")]
    Invalid(String),
    /// A `pattern` or `patternProperties` key is not a regular expression,
    /// could freeze a backtracking engine, or there is no engine to run it.
    #[error("the schema's pattern is refused: {0}")]
    Pattern(#[from] PatternError),
}

/// One way a value fails a schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ValidationIssue {
    /// JSON Pointer to the failing part of the value (`""` is the root).
    pub instance_path: String,
    /// The schema keyword that failed (`type`, `format`, `required`, …).
    pub keyword: String,
    /// A sentence a person or an acting party can act on.
    pub message: String,
}

/// The result of [`Schema::validate`]: every issue, not only the first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Validation {
    /// Whether the value satisfies the schema.
    pub valid: bool,
    /// Every issue found, in the validator's order (a valid result is
    /// shared and frozen in the browser: read-only).
    #[cfg_attr(feature = "typescript", ts(type = "ReadonlyArray<ValidationIssue>"))]
    pub errors: Vec<ValidationIssue>,
}

/// A compiled JSON Schema 2020-12. Cheap to clone; validating never recompiles.
#[derive(Clone)]
pub struct Schema {
    inner: Arc<Compiled>,
}

struct Compiled {
    digest: Digest,
    source: Value,
    program: compile::Program,
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schema")
            .field("digest", &self.inner.digest)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Schema {
    fn eq(&self, other: &Self) -> bool {
        self.inner.digest == other.inner.digest
    }
}

impl Schema {
    /// Compiles a schema given as JSON text.
    pub fn compile_str(text: &str) -> Result<Schema, SchemaError> {
        if text.len() > MAX_SCHEMA_BYTES {
            return Err(SchemaError::TooLarge {
                size: text.len(),
                limit: MAX_SCHEMA_BYTES,
            });
        }
        let value: Value =
            serde_json::from_str(text).map_err(|error| SchemaError::NotJson(error.to_string()))?;
        Self::compile(&value)
    }

    /// Compiles a schema. It must be at most 64 KiB, self-contained, and
    /// valid JSON Schema 2020-12 (the draft assumed when `$schema` is absent).
    pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
        check_depth(schema)?;
        let mut canonical = Vec::new();
        crate::digest::write_canonical(schema, &mut canonical);
        if canonical.len() > MAX_SCHEMA_BYTES {
            return Err(SchemaError::TooLarge {
                size: canonical.len(),
                limit: MAX_SCHEMA_BYTES,
            });
        }
        let draft = Draft::of(schema)?;
        // The 2020-12 meta-schema ships; older drafts' do not (`dialect`).
        let meta_issue = match draft {
            Draft::Draft2020 => validate::issues(meta_program()?, &Instance::from(schema))
                .into_iter()
                .next(),
            _ => None,
        };
        if let Some(issue) = meta_issue {
            return Err(SchemaError::Invalid(format!(
                "{} (at `{}`, keyword `{}`)",
                issue.message,
                if issue.instance_path.is_empty() {
                    "/"
                } else {
                    &issue.instance_path
                },
                issue.keyword
            )));
        }
        let program = compile::compile(Some(schema), true, draft)?;
        Ok(Schema {
            inner: Arc::new(Compiled {
                digest: Digest::of_bytes(&canonical),
                source: schema.clone(),
                program,
            }),
        })
    }

    /// Checks a value, reporting every issue with its path and keyword, in
    /// one walk that builds an error only where a keyword fails.
    pub fn validate(&self, value: &Value) -> Validation {
        self.validate_instance(&Instance::from(value))
    }

    /// [`Schema::validate`] of the value that JSON `text` holds, read
    /// straight from the text (no `serde_json::Value` is built), or why the
    /// text is not JSON.
    pub fn validate_str(&self, text: &str) -> Result<Validation, NotJson> {
        Ok(self.validate_instance(&instance::parse(text)?))
    }

    /// [`Schema::is_valid`] of the value that JSON `text` holds, or why the
    /// text is not JSON.
    pub fn is_valid_str(&self, text: &str) -> Result<bool, NotJson> {
        Ok(validate::is_valid(
            &self.inner.program,
            &instance::parse(text)?,
        ))
    }

    fn validate_instance(&self, value: &Instance<'_>) -> Validation {
        let errors: Vec<ValidationIssue> = validate::issues(&self.inner.program, value)
            .into_iter()
            .map(|issue| ValidationIssue {
                instance_path: issue.instance_path,
                keyword: issue.keyword.to_owned(),
                message: issue.message,
            })
            .collect();
        Validation {
            valid: errors.is_empty(),
            errors,
        }
    }

    /// Whether a value satisfies the schema.
    pub fn is_valid(&self, value: &Value) -> bool {
        validate::is_valid(&self.inner.program, &Instance::from(value))
    }

    /// The digest of the schema's canonical JSON; equal schemas share it.
    pub fn digest(&self) -> Digest {
        self.inner.digest
    }

    /// The schema exactly as given, for projection to the acting party.
    pub fn source(&self) -> &Value {
        &self.inner.source
    }

    /// Whether the root says `"type": "object"`, as argument schemas must.
    pub fn has_object_root(&self) -> bool {
        self.inner.source.get("type").and_then(Value::as_str) == Some("object")
    }

    /// The property names the root declares in `properties`.
    pub fn root_properties(&self) -> BTreeSet<String> {
        self.inner
            .source
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| {
                let mut names = BTreeSet::new();
                names.extend(properties.keys().cloned());
                names
            })
            .unwrap_or_default()
    }

    /// Of the polynomial patterns the root property `name`'s value is
    /// matched against (its strings, its property names, at any depth),
    /// the one that may be matched on the least text; `None` when all are
    /// linear. A byte limit above its `max_chars` would let one argument
    /// spend more than a validation may.
    pub fn slowest_pattern(&self, name: &str) -> Option<SlowestPattern> {
        reach::slowest_pattern(&self.inner.program, name)
    }

    /// Whether the root forbids properties beyond those it declares.
    pub fn closes_root(&self) -> bool {
        self.inner.source.get("additionalProperties") == Some(&Value::Bool(false))
            || self.inner.source.get("unevaluatedProperties") == Some(&Value::Bool(false))
    }
}

/// Compiled schemas by digest, so the same schema compiles once however many
/// participants or questions use it.
#[derive(Debug, Default, Clone)]
pub struct SchemaCache {
    by_digest: HashMap<Digest, Schema>,
    compilations: u64,
}

impl SchemaCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The cached schema with this content, compiling it on first use.
    pub fn compile(&mut self, schema: &Value) -> Result<Schema, SchemaError> {
        let digest = Digest::of_json(schema);
        if let Some(hit) = self.by_digest.get(&digest) {
            return Ok(hit.clone());
        }
        let compiled = Schema::compile(schema)?;
        self.compilations += 1;
        self.by_digest.insert(compiled.digest(), compiled.clone());
        Ok(compiled)
    }

    /// A schema compiled earlier, by digest.
    pub fn get(&self, digest: &Digest) -> Option<&Schema> {
        self.by_digest.get(digest)
    }

    /// How many compilations the cache has performed (hits do not count).
    pub fn compilations(&self) -> u64 {
        self.compilations
    }
}

fn check_depth(schema: &Value) -> Result<(), SchemaError> {
    // Iterative, so a hostile value cannot exhaust the stack here.
    let mut stack = vec![(schema, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(SchemaError::TooDeep {
                limit: MAX_SCHEMA_DEPTH,
            });
        }
        match value {
            Value::Object(map) => stack.extend(map.values().map(|v| (v, depth + 1))),
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

/// The 2020-12 meta-schema, compiled once (formats as annotations, as its
/// vocabularies declare).
fn meta_program() -> Result<&'static compile::Program, SchemaError> {
    static META: OnceLock<compile::Program> = OnceLock::new();
    if let Some(program) = META.get() {
        return Ok(program);
    }
    let program = compile::compile(None, false, Draft::Draft2020)?;
    Ok(META.get_or_init(|| program))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_every_error_with_path_and_keyword() {
        let schema = Schema::compile(&json!({
            "type": "object",
            "properties": {"title": {"type": "string", "maxLength": 3}, "n": {"type": "integer"}},
            "required": ["title", "due"]
        }))
        .unwrap();
        let result = schema.validate(&json!({"title": "too long", "n": "x"}));
        assert!(!result.valid);
        let mut found: Vec<(String, String)> = result
            .errors
            .iter()
            .map(|e| (e.instance_path.clone(), e.keyword.clone()))
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                ("".into(), "required".into()),
                ("/n".into(), "type".into()),
                ("/title".into(), "maxLength".into())
            ]
        );
        assert!(schema.validate(&json!({"title": "ok", "due": 1})).valid);
    }

    #[test]
    fn formats_are_asserted() {
        for (format, good, bad) in [
            ("email", "ada@example.org", "not an email"),
            ("uri", "https://example.org/a", "not a uri"),
            ("date", "2026-11-29", "29/11/2026"),
            ("date-time", "2026-11-29T20:00:00Z", "yesterday"),
            ("uuid", "67e55044-10b1-426f-9247-bb680e5fe0c8", "1234"),
        ] {
            let schema = Schema::compile(&json!({"type": "string", "format": format})).unwrap();
            assert!(schema.is_valid(&json!(good)), "{format}: {good}");
            let result = schema.validate(&json!(bad));
            assert!(!result.valid, "{format}: {bad}");
            assert_eq!(result.errors[0].keyword, "format");
        }
    }

    #[test]
    fn remote_references_are_refused() {
        for reference in [
            "https://example.org/s.json",
            "other.json#/a",
            "file:///etc/passwd",
        ] {
            assert!(matches!(
                Schema::compile(&json!({"$ref": reference})),
                Err(SchemaError::NotSelfContained { .. })
            ));
        }
        // Local references and references to ids in the document are fine.
        let local = json!({
            "$defs": {"name": {"type": "string"}},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/name"}}
        });
        assert!(Schema::compile(&local)
            .unwrap()
            .is_valid(&json!({"a": "x"})));
    }

    #[test]
    fn self_contained_schemas_of_every_kind_compile_and_validate() {
        // An embedded `$id` changes the base URI; a relative `$ref` resolves against it.
        let embedded = Schema::compile(&json!({
            "$id": "https://example.org/root.json",
            "type": "object",
            "properties": {
                "card": {"$ref": "card.json"},
                "same": {"$ref": "https://example.org/card.json"},
                "byPointer": {"$ref": "root.json#/$defs/card"}
            },
            "$defs": {"card": {"$id": "card.json", "type": "object", "required": ["title"]}}
        }))
        .unwrap();
        for field in ["card", "same", "byPointer"] {
            assert!(
                embedded.is_valid(&json!({ field: {"title": "x"} })),
                "{field}"
            );
            assert!(!embedded.is_valid(&json!({ field: {} })), "{field}");
        }

        // `$anchor`, with and without a base URI.
        for root in [json!({}), json!({"$id": "https://example.org/a.json"})] {
            let mut schema = json!({
                "$defs": {"name": {"$anchor": "name", "type": "string", "minLength": 1}},
                "type": "object",
                "properties": {"who": {"$ref": "#name"}}
            });
            if let (Some(id), Some(map)) = (root.get("$id"), schema.as_object_mut()) {
                map.insert("$id".into(), id.clone());
            }
            let anchored = Schema::compile(&schema).unwrap();
            assert!(anchored.is_valid(&json!({"who": "Ada"})));
            assert!(!anchored.is_valid(&json!({"who": ""})));
        }

        // `$dynamicRef` / `$dynamicAnchor`: an extensible tree.
        let tree = Schema::compile(&json!({
            "$id": "https://example.org/tree.json",
            "$dynamicAnchor": "node",
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$dynamicRef": "#node"}}
            }
        }))
        .unwrap();
        assert!(tree.is_valid(&json!({"value": 1, "children": [{"value": 2, "children": []}]})));
        assert!(!tree.is_valid(&json!({"value": 1, "children": [{"value": "two"}]})));

        // The standard 2020-12 meta-schema, which the validator ships.
        let meta = Schema::compile(&json!({
            "type": "object",
            "properties": {"schema": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}
        }))
        .unwrap();
        assert!(meta.is_valid(&json!({"schema": {"type": "string"}})));
        assert!(!meta.is_valid(&json!({"schema": {"type": "nonsense"}})));
    }

    #[test]
    fn a_reference_beside_an_embedded_id_that_names_no_resource_is_refused() {
        let refused = Schema::compile(&json!({
            "$id": "https://example.org/root.json",
            "properties": {"card": {"$ref": "missing.json"}}
        }));
        assert_eq!(
            refused,
            Err(SchemaError::NotSelfContained {
                reference: "https://example.org/missing.json".into()
            })
        );
    }

    const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

    #[test]
    fn other_drafts_oversize_deep_and_invalid_schemas_are_refused() {
        assert!(matches!(
            Schema::compile(&json!({"$schema": "http://json-schema.org/draft-03/schema#"})),
            Err(SchemaError::WrongDraft { .. })
        ));
        assert!(Schema::compile(&json!({"$schema": DRAFT_2020_12})).is_ok());
        let huge = json!({"enum": (0..20_000).collect::<Vec<u32>>()});
        assert!(matches!(
            Schema::compile(&huge),
            Err(SchemaError::TooLarge { .. })
        ));
        let mut deep = json!({"type": "string"});
        for _ in 0..100 {
            deep = json!({"items": deep});
        }
        assert!(matches!(
            Schema::compile(&deep),
            Err(SchemaError::TooDeep { .. })
        ));
        assert!(matches!(
            Schema::compile(&json!({"type": "nonsense"})),
            Err(SchemaError::Invalid(_))
        ));
        assert!(matches!(
            Schema::compile(&json!({"minLength": -1})),
            Err(SchemaError::Invalid(_))
        ));
        assert!(matches!(
            Schema::compile_str("{not json"),
            Err(SchemaError::NotJson(_))
        ));
    }

    #[test]
    fn catastrophic_patterns_are_refused_before_they_run() {
        for pattern in ["^(a+)+$", "^(a+)+\\1$", "(x|x)*y"] {
            assert!(
                matches!(
                    Schema::compile(&json!({"type": "string", "pattern": pattern})),
                    Err(SchemaError::Pattern(PatternError::Catastrophic { .. }))
                ),
                "{pattern}"
            );
        }
    }

    #[test]
    fn the_cache_compiles_each_schema_once() {
        let mut cache = SchemaCache::new();
        let a = cache
            .compile(&json!({"type": "object", "required": ["x"]}))
            .unwrap();
        let b = cache
            .compile(&json!({"required": ["x"], "type": "object"}))
            .unwrap();
        assert_eq!(a.digest(), b.digest());
        assert_eq!(cache.compilations(), 1);
        assert!(cache.get(&a.digest()).is_some());
    }
}
