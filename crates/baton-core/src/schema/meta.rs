//! The JSON Schema 2020-12 meta-schemas, shipped with the validator so that
//! a reference to them resolves offline, and every schema is checked
//! against them before it is compiled.

use std::sync::OnceLock;

use serde_json::Value;

const SOURCES: [&str; 8] = [
    include_str!("meta/schema.json"),
    include_str!("meta/core.json"),
    include_str!("meta/applicator.json"),
    include_str!("meta/unevaluated.json"),
    include_str!("meta/validation.json"),
    include_str!("meta/meta-data.json"),
    include_str!("meta/format-annotation.json"),
    include_str!("meta/content.json"),
];

/// The meta-schema documents, the dialect's own (`…/2020-12/schema`) first.
pub(super) fn documents() -> &'static [Value] {
    static DOCUMENTS: OnceLock<Vec<Value>> = OnceLock::new();
    DOCUMENTS.get_or_init(|| {
        SOURCES
            .iter()
            .filter_map(|source| serde_json::from_str(source).ok())
            .collect()
    })
}
