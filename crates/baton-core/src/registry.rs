//! The participants mounted in a session and what their manifests declare.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::ids::{CapabilityRef, ParticipantId};
use crate::manifest::{CapabilityDecl, Manifest, ManifestError, ManifestProblem};
use baton_schema::SchemaCache;

/// A mounted participant: a manifest and the instance it was mounted as.
#[derive(Debug, Clone)]
pub struct Mounted {
    /// The manifest.
    pub manifest: Arc<Manifest>,
    /// The instance name, when several instances of one participant can be mounted.
    pub instance: Option<String>,
}

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// The manifest itself is invalid.
    #[error("{0}")]
    Manifest(#[from] ManifestError),
    /// The same participant and instance are already mounted.
    #[error(
        "participant {0} is already mounted; unregister it first or give another instance name"
    )]
    AlreadyMounted(ParticipantId),
    /// Another instance of this participant is mounted with a different manifest.
    #[error("participant {0} is mounted with a different manifest; all instances share one")]
    ConflictingManifest(ParticipantId),
    /// An instance name must be an identifier.
    #[error("instance name `{0}` is not an identifier (ASCII letters, digits, `-`, `_`)")]
    InvalidInstance(String),
}

impl RegisterError {
    /// The refusal as problems with a JSON path, like a manifest's own.
    pub fn problems(&self) -> Vec<ManifestProblem> {
        let problem = |path: &str, message: String| ManifestProblem {
            path: path.into(),
            requirement: None,
            message,
        };
        match self {
            RegisterError::Manifest(error) => error.problems.clone(),
            RegisterError::AlreadyMounted(_) | RegisterError::InvalidInstance(_) => {
                vec![problem("$.id", self.to_string())]
            }
            RegisterError::ConflictingManifest(_) => vec![problem("$", self.to_string())],
        }
    }
}

/// A capability as the acting party sees it: a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// `participant.capability`.
    pub name: String,
    /// The capability's description (AG-14).
    pub description: String,
    /// The argument schema, exactly as declared (AG-15).
    pub parameters: Value,
    /// It changes nothing: a query (MCP's `readOnlyHint`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// One of its effects cannot be undone, or leaves the application
    /// (AG-18): always reviewed (AG-25).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub irreversible: bool,
    /// It acts on a read whose content comes from elsewhere (imported, or
    /// third parties'), so its result may carry it (AG-27).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub untrusted_content: bool,
}

/// How an address the acting party used resolves to a mounted participant.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Address<'a> {
    /// Exactly one mounted participant answers to it.
    Unique(CapabilityRef, &'a CapabilityDecl),
    /// Several instances answer to it: the person must choose (AG-23).
    Ambiguous(Vec<ParticipantId>),
    /// Nothing declares it (AG-21).
    Unknown,
    /// The participant tried to register, and its manifest was refused for
    /// these problems (AG-13): it offers nothing, and a call to it says why.
    Refused(&'a [ManifestProblem]),
}

/// The mounted participants of a session.
#[derive(Debug, Default)]
pub struct Registry {
    mounted: BTreeMap<ParticipantId, Mounted>,
    /// Participants whose registration was refused, with the problems.
    refused: BTreeMap<ParticipantId, Vec<ManifestProblem>>,
    schemas: SchemaCache,
}

impl Registry {
    /// Parses a manifest, compiling its schemas through the shared cache.
    pub fn parse(&mut self, text: &str) -> Result<Manifest, ManifestError> {
        Manifest::parse_with(text, &mut self.schemas)
    }

    /// Mounts a participant. The mounted id is the manifest id, or
    /// `id#instance` when an instance name is given. Inert (AG-12): nothing
    /// happens until a delegation reads the registry.
    pub fn register(
        &mut self,
        manifest: Manifest,
        instance: Option<&str>,
    ) -> Result<ParticipantId, RegisterError> {
        if let Some(name) = instance {
            let valid = !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !valid {
                return Err(RegisterError::InvalidInstance(name.to_owned()));
            }
        }
        let id = match instance {
            Some(name) => ParticipantId::new(format!("{}#{name}", manifest.id())),
            None => manifest.id().clone(),
        };
        if self.mounted.contains_key(&id) {
            return Err(RegisterError::AlreadyMounted(id));
        }
        if self
            .instances_of(manifest.id().as_str())
            .any(|(_, other)| *other.manifest != manifest)
        {
            return Err(RegisterError::ConflictingManifest(manifest.id().clone()));
        }
        self.refused.remove(&id);
        self.mounted.insert(
            id.clone(),
            Mounted {
                manifest: Arc::new(manifest),
                instance: instance.map(str::to_owned),
            },
        );
        Ok(id)
    }

    /// Unmounts a participant. Returns whether it was mounted.
    pub fn unregister(&mut self, participant: &ParticipantId) -> bool {
        let refused = self.refused.remove(participant).is_some();
        self.mounted.remove(participant).is_some() || refused
    }

    /// Records a participant whose registration was refused (AG-13): it
    /// offers no tools, and a call addressed to it is refused with these
    /// problems. A participant mounted under the id is left as it is.
    pub fn refuse(&mut self, participant: ParticipantId, problems: Vec<ManifestProblem>) {
        if !self.mounted.contains_key(&participant) {
            self.refused.insert(participant, problems);
        }
    }

    /// Why a participant's registration was refused, if it was.
    pub fn refused(&self, participant: &ParticipantId) -> Option<&[ManifestProblem]> {
        self.refused.get(participant).map(Vec::as_slice)
    }

    /// A mounted participant.
    pub fn get(&self, participant: &ParticipantId) -> Option<&Mounted> {
        self.mounted.get(participant)
    }

    /// Every mounted participant.
    pub fn mounted(&self) -> impl Iterator<Item = (&ParticipantId, &Mounted)> {
        self.mounted.iter()
    }

    /// The schema cache shared by manifests and questions.
    pub fn schemas(&mut self) -> &mut SchemaCache {
        &mut self.schemas
    }

    fn instances_of<'a, 'b>(
        &'a self,
        manifest_id: &'b str,
    ) -> impl Iterator<Item = (&'a ParticipantId, &'a Mounted)> + 'b
    where
        'a: 'b,
    {
        // Every instance is mounted as the manifest id or `id#name`: the
        // bare mount, then the named ones, which sit together in the map
        // from `id#` on. Two lookups, not a scan of every participant
        // (resolution runs on every call).
        let named = format!("{manifest_id}#");
        let bare = self.mounted.get_key_value(manifest_id);
        let instances = self
            .mounted
            .range::<str, _>((
                std::ops::Bound::Included(named.as_str()),
                std::ops::Bound::Unbounded,
            ))
            .take_while(move |(id, _)| id.as_str().starts_with(&named));
        bare.into_iter()
            .chain(instances)
            .filter(move |(_, mounted)| mounted.manifest.id().as_str() == manifest_id)
    }

    /// The declaration behind a capability of a mounted participant.
    pub fn capability(&self, capability: &CapabilityRef) -> Option<&CapabilityDecl> {
        self.mounted
            .get(&capability.participant)?
            .manifest
            .capability(&capability.capability)
    }

    /// Resolves an address. A mounted instance id (`tasks#sprint.rename`)
    /// names exactly one instance. A manifest id (`tasks.rename`) is
    /// answered by every mounted instance of that manifest — the bare mount
    /// `tasks` and `tasks#b` alike — so it resolves only when exactly one
    /// could answer; otherwise the person is asked which (AG-23). An exact
    /// match of the bare mount is never preferred: that would be a heuristic.
    pub(crate) fn resolve(&self, address: &CapabilityRef) -> Address<'_> {
        if address.participant.as_str().contains('#') {
            return match (
                self.capability(address),
                self.refused.get(&address.participant),
            ) {
                (Some(decl), _) => Address::Unique(address.clone(), decl),
                (None, Some(problems)) => Address::Refused(problems),
                (None, None) => Address::Unknown,
            };
        }
        let candidates: Vec<(&ParticipantId, &CapabilityDecl)> = self
            .instances_of(address.participant.as_str())
            .filter_map(|(id, mounted)| {
                mounted
                    .manifest
                    .capability(&address.capability)
                    .map(|decl| (id, decl))
            })
            .collect();
        match candidates.as_slice() {
            [] => match self.refused.get(&address.participant) {
                Some(problems) => Address::Refused(problems),
                None => Address::Unknown,
            },
            [(only, decl)] => Address::Unique(
                CapabilityRef {
                    participant: (*only).clone(),
                    capability: address.capability.clone(),
                },
                decl,
            ),
            many => Address::Ambiguous(many.iter().map(|(id, _)| (*id).clone()).collect()),
        }
    }

    /// The tools the acting party sees: one per capability of each distinct
    /// participant, named `participant.capability`.
    pub fn tools(&self) -> Vec<Tool> {
        let mut seen = BTreeMap::new();
        for mounted in self.mounted.values() {
            seen.entry(mounted.manifest.id().clone())
                .or_insert_with(|| mounted.manifest.clone());
        }
        seen.values()
            .flat_map(|manifest| {
                manifest.capabilities().iter().map(move |capability| Tool {
                    name: format!("{}.{}", manifest.id(), capability.name()),
                    description: capability.description().to_owned(),
                    parameters: capability.schema().source().clone(),
                    read_only: capability.is_read_only(),
                    irreversible: capability.is_irreversible(),
                    untrusted_content: manifest.reads().iter().any(|read| {
                        read.origin != crate::context::Origin::Author
                            && capability.reads().contains(&read.name)
                    }),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(id: &str) -> Manifest {
        let text = serde_json::json!({
            "id": id,
            "label": "Board",
            "description": "The team's task board: cards in columns.",
            "tier": "reversible-acts",
            "history": "native",
            "capabilities": [{
                "name": "rename",
                "description": "Give one card a new title.",
                "arguments": {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": false},
                "argumentLimits": {"id": 16},
                "effects": [{"name": "retitle", "reversible": true}]
            }]
        });
        Registry::default()
            .parse(&text.to_string())
            .expect("a valid manifest")
    }

    /// Resolution searches the instances of one manifest only; neighbours
    /// whose ids sort beside it (`tasks-old`, `tasks2`, `task`) never answer.
    #[test]
    fn a_manifest_id_resolves_among_its_own_instances_only() {
        let mut registry = Registry::default();
        for id in ["task", "tasks-old", "tasks2", "tasksz", "tasks0"] {
            registry.register(manifest(id), None).unwrap();
        }
        registry.register(manifest("tasks"), Some("b")).unwrap();
        let address = CapabilityRef::new("tasks", "rename");
        match registry.resolve(&address) {
            Address::Unique(target, _) => assert_eq!(target.participant.as_str(), "tasks#b"),
            _ => panic!("the one instance of tasks answers"),
        }
        registry.register(manifest("tasks"), None).unwrap();
        match registry.resolve(&address) {
            Address::Ambiguous(candidates) => assert_eq!(
                candidates
                    .iter()
                    .map(ParticipantId::as_str)
                    .collect::<Vec<_>>(),
                ["tasks", "tasks#b"]
            ),
            _ => panic!("two instances of tasks: the person is asked which"),
        }
        assert!(matches!(
            registry.resolve(&CapabilityRef::new("tas", "rename")),
            Address::Unknown
        ));
    }
}
