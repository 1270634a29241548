//! The wire form of a manifest and its strict parsing: an unknown field is
//! refused with its JSON path.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::context::Origin;
use crate::model::Autonomy;
use crate::schema::SchemaCache;

use super::{EffectDecl, History, Manifest, ManifestError, Tier};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct ManifestSource {
    pub(super) id: String,
    pub(super) label: String,
    pub(super) description: String,
    pub(super) tier: Tier,
    pub(super) history: History,
    #[serde(default)]
    pub(super) preview: bool,
    #[serde(default)]
    pub(super) default_argument_limit: Option<usize>,
    #[serde(default)]
    pub(super) capabilities: Vec<CapabilitySource>,
    #[serde(default)]
    pub(super) reads: Vec<ReadSource>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct CapabilitySource {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) arguments: Value,
    #[serde(default)]
    pub(super) argument_limits: BTreeMap<String, usize>,
    pub(super) effects: Vec<EffectDecl>,
    #[serde(default)]
    pub(super) max_autonomy: Option<Autonomy>,
    #[serde(default)]
    pub(super) accepts_partial_close: bool,
    #[serde(default)]
    pub(super) reads: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct ReadSource {
    pub(super) name: String,
    pub(super) description: String,
    #[serde(default = "author")]
    pub(super) origin: Origin,
}

fn author() -> Origin {
    Origin::Author
}

impl Manifest {
    /// Parses and checks a manifest from JSON text.
    pub fn parse(text: &str) -> Result<Manifest, ManifestError> {
        Self::parse_with(text, &mut SchemaCache::new())
    }

    /// Parses and checks a manifest, compiling schemas through `cache`.
    pub fn parse_with(text: &str, cache: &mut SchemaCache) -> Result<Manifest, ManifestError> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let source: ManifestSource =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
                ManifestError::single(path_of(&error), None, error.inner().to_string())
            })?;
        deserializer
            .end()
            .map_err(|error| ManifestError::single("$".into(), None, error.to_string()))?;
        Self::check(source, cache)
    }

    /// Parses and checks a manifest from a JSON value.
    pub fn from_value(value: &Value, cache: &mut SchemaCache) -> Result<Manifest, ManifestError> {
        let source: ManifestSource = serde_path_to_error::deserialize(value).map_err(|error| {
            ManifestError::single(path_of(&error), None, error.inner().to_string())
        })?;
        Self::check(source, cache)
    }
}

fn path_of<E>(error: &serde_path_to_error::Error<E>) -> String {
    let path = error.path().to_string();
    if path == "." {
        "$".into()
    } else {
        format!("$.{path}")
    }
}
