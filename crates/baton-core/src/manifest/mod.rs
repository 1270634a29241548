//! Manifests: the inert declaration a participant makes to take part in
//! delegations (contract §3). Parsing is strict — unknown fields are refused
//! with their path — and every rule a manifest must satisfy is checked at
//! registration, each failure naming its path and the requirement it breaks.
//!
//! The module's parts: this file — the checked form and what it answers;
//! `parse` — the wire form and strict parsing; `check` — the rules a
//! manifest must satisfy; `problems` — how a refusal reports them.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::Origin;
use crate::ids::ParticipantId;
use crate::model::Autonomy;
use baton_schema::digest::Digest;
mod check;
mod parse;
mod problems;
mod stored;

pub use problems::{ManifestError, ManifestProblem};

use baton_schema::{Schema, ValidationIssue};

/// What a manifest may expose (AG-17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Tier {
    /// Reads only; no capability at all.
    ReadsOnly,
    /// Capabilities whose every effect is reversible.
    ReversibleActs,
    /// Anything, irreversible effects included.
    FullActs,
}

/// Whether the participant keeps a native history the engine can mark and
/// revert to (AG-19).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "HistoryMode"))]
#[serde(rename_all = "kebab-case")]
pub enum History {
    /// `mark()` and `revertTo(mark)` are provided.
    Native,
    /// No history: nothing it does can be reversed.
    None,
}

// ----- the checked form -------------------------------------------------------

/// A checked manifest. Inert: holding or registering one does nothing until a
/// delegation reads it (AG-12).
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    id: ParticipantId,
    label: String,
    description: String,
    tier: Tier,
    history: History,
    preview: bool,
    capabilities: Vec<CapabilityDecl>,
    reads: Vec<ReadDecl>,
    capability_set: Digest,
}

/// One declared capability.
#[derive(Debug, Clone, PartialEq)]
pub struct CapabilityDecl {
    name: String,
    description: String,
    schema: Schema,
    limits: BTreeMap<String, usize>,
    default_limit: Option<usize>,
    effects: Vec<EffectDecl>,
    max_autonomy: Option<Autonomy>,
    accepts_partial_close: bool,
    reads: Vec<String>,
    read_only: bool,
}

/// One effect of a capability; reversibility is declared per effect (AG-18).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EffectDecl {
    /// What the effect does, e.g. `retitle`, `send-email`.
    pub name: String,
    /// Whether the participant's history can undo it.
    pub reversible: bool,
    /// Whether it leaves the application (a message, a payment, a post).
    #[serde(default)]
    pub external: bool,
}

impl EffectDecl {
    /// Effects that send, publish or notify, or that leave the application,
    /// are irreversible whatever is declared (AG-18).
    pub fn is_irreversible(&self) -> bool {
        !self.reversible || self.external || is_external_verb(&self.name)
    }
}

/// The verbs that make an effect external whatever is declared (AG-18):
/// an effect named for one of them (in any ASCII case), alone or followed
/// by one of [`EXTERNAL_VERB_ENDS`], sends, publishes or notifies. The
/// package's `baton-engine/mcp` reads the same lists (`pkg/rules.js`,
/// generated from these by `tests/js_rules.rs`).
pub const EXTERNAL_VERBS: [&str; 3] = ["send", "publish", "notify"];

/// What may follow an external verb in an effect's name.
pub const EXTERNAL_VERB_ENDS: [char; 4] = ['-', '_', '.', ' '];

/// Whether an effect's name makes it external (see [`EXTERNAL_VERBS`]).
pub fn is_external_verb(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    EXTERNAL_VERBS.iter().any(|verb| {
        lower == *verb
            || lower
                .strip_prefix(verb)
                .is_some_and(|rest| rest.starts_with(EXTERNAL_VERB_ENDS))
    })
}

/// One declared read. Its version and, where it differs from the declared
/// one, its origin are published at run time (AG-20, AG-27).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadDecl {
    /// The read's name within the participant.
    pub name: String,
    /// What it holds, for the acting party.
    pub description: String,
    /// Where its content usually comes from.
    pub origin: Origin,
}

/// Why an argument was refused (AG-15, AG-16). Never a truncation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum ArgumentError {
    /// The arguments are not a JSON object.
    NotAnObject,
    /// One argument is larger than its declared limit (AG-16).
    TooLarge {
        /// The argument.
        argument: String,
        /// Its limit in bytes of compact JSON.
        limit: usize,
        /// Its size.
        size: usize,
    },
    /// The arguments fail the capability's schema (AG-15).
    Schema(ValidationIssue),
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentError::NotAnObject => f.write_str("the arguments must be a JSON object"),
            ArgumentError::TooLarge {
                argument,
                limit,
                size,
            } => write!(
                f,
                "AG-16: argument `{argument}` is {size} bytes, over its limit of {limit}"
            ),
            ArgumentError::Schema(issue) => write!(
                f,
                "AG-15: {} at `{}` ({})",
                issue.message, issue.instance_path, issue.keyword
            ),
        }
    }
}

impl CapabilityDecl {
    /// The capability's name within its participant.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// What it does, for the acting party.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// The argument schema, projected unchanged to the acting party (AG-15).
    pub fn schema(&self) -> &Schema {
        &self.schema
    }
    /// Its effects.
    pub fn effects(&self) -> &[EffectDecl] {
        &self.effects
    }
    /// Whether any effect is irreversible (AG-18, AG-25).
    pub fn is_irreversible(&self) -> bool {
        self.effects.iter().any(EffectDecl::is_irreversible)
    }
    /// The most autonomy this capability allows (it may only demand more control).
    pub fn max_autonomy(&self) -> Option<Autonomy> {
        self.max_autonomy
    }
    /// Whether a failure may close the run as `partial` (AG-8).
    pub fn accepts_partial_close(&self) -> bool {
        self.accepts_partial_close
    }
    /// Whether it changes nothing (a query): its calls are no mutation of
    /// the run, take nothing to undo and are no one's change (A.2).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }
    /// The reads this capability acts on; acts against stale versions are refused (AG-20).
    pub fn reads(&self) -> &[String] {
        &self.reads
    }
    /// The byte limit of one argument.
    pub fn limit_of(&self, argument: &str) -> Option<usize> {
        self.limits.get(argument).copied().or(self.default_limit)
    }

    /// Checks arguments: sizes first, so an oversized value is never
    /// validated, then the schema. Returns every problem.
    pub fn check_arguments(&self, arguments: &Value) -> Result<(), Vec<ArgumentError>> {
        let Some(object) = arguments.as_object() else {
            return Err(vec![ArgumentError::NotAnObject]);
        };
        let oversized: Vec<ArgumentError> = object
            .iter()
            .filter_map(|(argument, value)| {
                let limit = self.limit_of(argument)?;
                let size = json_size(value);
                (size > limit).then(|| ArgumentError::TooLarge {
                    argument: argument.clone(),
                    limit,
                    size,
                })
            })
            .collect();
        if !oversized.is_empty() {
            return Err(oversized);
        }
        let validation = self.schema.validate(arguments);
        if validation.valid {
            Ok(())
        } else {
            Err(validation
                .errors
                .into_iter()
                .map(ArgumentError::Schema)
                .collect())
        }
    }
}

/// Bytes of the compact JSON encoding, counted without building it.
fn json_size(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

impl Manifest {
    /// The participant's id (the first part of its tool names).
    pub fn id(&self) -> &ParticipantId {
        &self.id
    }
    /// Its label for people.
    pub fn label(&self) -> &str {
        &self.label
    }
    /// What it is, for the acting party.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// Its maturity tier (AG-17).
    pub fn tier(&self) -> Tier {
        self.tier
    }
    /// Whether it keeps a native history (AG-19).
    pub fn history(&self) -> History {
        self.history
    }
    /// Whether it renders previews of proposed changes for review (AG-31).
    pub fn has_preview(&self) -> bool {
        self.preview
    }
    /// Its capabilities.
    pub fn capabilities(&self) -> &[CapabilityDecl] {
        &self.capabilities
    }
    /// One capability by name.
    pub fn capability(&self, name: &str) -> Option<&CapabilityDecl> {
        self.capabilities.iter().find(|c| c.name == name)
    }
    /// Its reads.
    pub fn reads(&self) -> &[ReadDecl] {
        &self.reads
    }
    /// One read by name.
    pub fn read(&self, name: &str) -> Option<&ReadDecl> {
        self.reads.iter().find(|r| r.name == name)
    }
    /// A digest of the capability set — names, schemas, limits, effects,
    /// autonomy — that persistent grants are bound to (AG-30).
    pub fn capability_set(&self) -> Digest {
        self.capability_set
    }
}

pub(super) fn capability_set_digest(capabilities: &[CapabilityDecl]) -> Digest {
    let entries: Vec<Value> = capabilities
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name,
                "schema": c.schema.digest().to_hex(),
                "limits": c.limits,
                "defaultLimit": c.default_limit,
                "effects": c.effects,
                "maxAutonomy": c.max_autonomy,
                "acceptsPartialClose": c.accepts_partial_close,
                "reads": c.reads,
                "readOnly": c.read_only,
            })
        })
        .collect();
    Digest::of_json(&Value::Array(entries))
}
