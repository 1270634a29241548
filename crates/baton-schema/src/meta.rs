//! The JSON Schema 2020-12 meta-schemas, shipped with the validator so that
//! a reference to them resolves offline, and every schema is checked
//! against them before it is compiled.

use std::sync::OnceLock;

use serde_json::Value;

use super::compile::DEFAULT_BASE;
use super::index::Index;

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

/// The meta-schemas' identifiers, indexed once. They are documents 1 to 8
/// of every compilation (document 0 is the schema compiled).
pub(super) fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = Index::default();
        for (i, document) in documents().iter().enumerate() {
            index.walk(i + 1, document, DEFAULT_BASE);
        }
        index
    })
}
