//! The wire form of a manifest and its strict parsing: an unknown field is
//! refused with its JSON path.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::context::Origin;
use crate::fields::{Fields, Refusal};
use crate::model::Autonomy;
use baton_schema::SchemaCache;

use super::{EffectDecl, History, Manifest, ManifestError, Tier};

#[derive(Debug)]
pub(super) struct ManifestSource {
    pub(super) id: String,
    pub(super) label: String,
    pub(super) description: String,
    pub(super) tier: Tier,
    pub(super) history: History,
    pub(super) preview: bool,
    pub(super) default_argument_limit: Option<usize>,
    pub(super) capabilities: Vec<CapabilitySource>,
    pub(super) reads: Vec<ReadSource>,
}

#[derive(Debug)]
pub(super) struct CapabilitySource {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) arguments: Value,
    pub(super) argument_limits: BTreeMap<String, usize>,
    pub(super) effects: Vec<EffectDecl>,
    pub(super) max_autonomy: Option<Autonomy>,
    pub(super) accepts_partial_close: bool,
    pub(super) reads: Vec<String>,
    pub(super) read_only: bool,
}

#[derive(Debug)]
pub(super) struct ReadSource {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) origin: Origin,
}

impl ManifestSource {
    fn read(value: &Value) -> Result<ManifestSource, Refusal> {
        let fields = Fields::of(
            value,
            "$".into(),
            &[
                "id",
                "label",
                "description",
                "tier",
                "history",
                "preview",
                "defaultArgumentLimit",
                "capabilities",
                "reads",
            ],
        )?;
        Ok(ManifestSource {
            id: fields.required("id")?,
            label: fields.required("label")?,
            description: fields.required("description")?,
            tier: fields.required("tier")?,
            history: fields.required("history")?,
            preview: fields.optional("preview")?.unwrap_or(false),
            default_argument_limit: fields.optional("defaultArgumentLimit")?,
            capabilities: fields
                .each("capabilities")?
                .into_iter()
                .map(|(path, value)| CapabilitySource::read(value, path))
                .collect::<Result<_, _>>()?,
            reads: fields
                .each("reads")?
                .into_iter()
                .map(|(path, value)| ReadSource::read(value, path))
                .collect::<Result<_, _>>()?,
        })
    }
}

impl CapabilitySource {
    fn read(value: &Value, path: String) -> Result<CapabilitySource, Refusal> {
        let fields = Fields::of(
            value,
            path,
            &[
                "name",
                "description",
                "arguments",
                "argumentLimits",
                "effects",
                "maxAutonomy",
                "acceptsPartialClose",
                "reads",
                "readOnly",
            ],
        )?;
        fields.present("effects")?;
        Ok(CapabilitySource {
            name: fields.required("name")?,
            description: fields.required("description")?,
            arguments: fields.required("arguments")?,
            argument_limits: fields.optional("argumentLimits")?.unwrap_or_default(),
            effects: fields
                .each("effects")?
                .into_iter()
                .map(|(path, value)| read_effect(value, path))
                .collect::<Result<_, _>>()?,
            max_autonomy: fields.optional("maxAutonomy")?,
            accepts_partial_close: fields.optional("acceptsPartialClose")?.unwrap_or(false),
            reads: fields.optional("reads")?.unwrap_or_default(),
            read_only: fields.optional("readOnly")?.unwrap_or(false),
        })
    }
}

fn read_effect(value: &Value, path: String) -> Result<EffectDecl, Refusal> {
    let fields = Fields::of(value, path, &["name", "reversible", "external"])?;
    Ok(EffectDecl {
        name: fields.required("name")?,
        reversible: fields.required("reversible")?,
        external: fields.optional("external")?.unwrap_or(false),
    })
}

impl ReadSource {
    fn read(value: &Value, path: String) -> Result<ReadSource, Refusal> {
        let fields = Fields::of(value, path, &["name", "description", "origin"])?;
        Ok(ReadSource {
            name: fields.required("name")?,
            description: fields.required("description")?,
            origin: fields.optional("origin")?.unwrap_or(Origin::Author),
        })
    }
}

fn refused(refusal: Refusal) -> ManifestError {
    ManifestError::single(refusal.path, None, refusal.message)
}

impl Manifest {
    /// Parses and checks a manifest from JSON text.
    pub fn parse(text: &str) -> Result<Manifest, ManifestError> {
        Self::parse_with(text, &mut SchemaCache::new())
    }

    /// Parses and checks a manifest, compiling schemas through `cache`.
    pub fn parse_with(text: &str, cache: &mut SchemaCache) -> Result<Manifest, ManifestError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|error| ManifestError::single("$".into(), None, error.to_string()))?;
        Self::from_value(&value, cache)
    }

    /// Parses and checks a manifest from a JSON value.
    pub fn from_value(value: &Value, cache: &mut SchemaCache) -> Result<Manifest, ManifestError> {
        let source = ManifestSource::read(value).map_err(refused)?;
        Self::check(source, cache)
    }
}
