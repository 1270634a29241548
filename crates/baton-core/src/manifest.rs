//! Manifests: the inert declaration a participant makes to take part in
//! delegations (contract §3). Parsing is strict — unknown fields are refused
//! with their path — and every rule a manifest must satisfy is checked at
//! registration, each failure naming its path and the requirement it breaks.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::Origin;
use crate::digest::Digest;
use crate::ids::{ParticipantId, WIRE_SEPARATOR};
use crate::model::Autonomy;
use crate::schema::{Schema, SchemaCache, SchemaError, ValidationIssue};

/// What a manifest may expose (AG-17).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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
#[serde(rename_all = "kebab-case")]
pub enum History {
    /// `mark()` and `revertTo(mark)` are provided.
    Native,
    /// No history: nothing it does can be reversed.
    None,
}

// ----- the wire form ----------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ManifestSource {
    id: String,
    label: String,
    description: String,
    tier: Tier,
    history: History,
    #[serde(default)]
    preview: bool,
    #[serde(default)]
    default_argument_limit: Option<usize>,
    #[serde(default)]
    capabilities: Vec<CapabilitySource>,
    #[serde(default)]
    reads: Vec<ReadSource>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CapabilitySource {
    name: String,
    description: String,
    arguments: Value,
    #[serde(default)]
    argument_limits: BTreeMap<String, usize>,
    effects: Vec<EffectDecl>,
    #[serde(default)]
    max_autonomy: Option<Autonomy>,
    #[serde(default)]
    accepts_partial_close: bool,
    #[serde(default)]
    reads: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReadSource {
    name: String,
    description: String,
    #[serde(default = "author")]
    origin: Origin,
}

fn author() -> Origin {
    Origin::Author
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

fn is_external_verb(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["send", "publish", "notify"].iter().any(|verb| {
        lower == *verb
            || lower
                .strip_prefix(verb)
                .is_some_and(|rest| rest.starts_with(['-', '_', '.', ' ']))
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

    fn check(source: ManifestSource, cache: &mut SchemaCache) -> Result<Manifest, ManifestError> {
        let mut problems = Problems::default();
        problems.identifier("$.id", &source.id);
        problems.wire_participant(&source.id);
        problems.text("$.label", &source.label, 1);
        problems.description("$.description", &source.description, &source.id);

        let mut read_names = BTreeSet::new();
        let mut reads = Vec::new();
        for (index, read) in source.reads.into_iter().enumerate() {
            let path = format!("$.reads[{index}]");
            problems.entry(
                &path,
                "read",
                &read.name,
                &read.description,
                &mut read_names,
            );
            reads.push(ReadDecl {
                name: read.name,
                description: read.description,
                origin: read.origin,
            });
        }

        if source.tier == Tier::ReadsOnly && !source.capabilities.is_empty() {
            problems.push(
                "$.capabilities",
                Some("AG-17"),
                format!(
                    "tier `reads-only` exposes no capability, but {} are declared",
                    source.capabilities.len()
                ),
            );
        }

        let mut names = BTreeSet::new();
        let mut capabilities = Vec::new();
        for (index, capability) in source.capabilities.into_iter().enumerate() {
            let path = format!("$.capabilities[{index}]");
            problems.entry(
                &path,
                "capability",
                &capability.name,
                &capability.description,
                &mut names,
            );
            problems.wire_name(&path, &source.id, &capability.name);
            if capability.effects.is_empty() {
                problems.push(
                    &format!("{path}.effects"),
                    Some("AG-18"),
                    "a capability declares at least one effect, each with its reversibility".into(),
                );
            }
            for (effect_index, effect) in capability.effects.iter().enumerate() {
                let effect_path = format!("{path}.effects[{effect_index}]");
                problems.identifier(&format!("{effect_path}.name"), &effect.name);
                if effect.is_irreversible() && source.tier == Tier::ReversibleActs {
                    let why = if effect.reversible {
                        "is external (send, publish, notify) and therefore irreversible (AG-18)"
                    } else {
                        "is declared irreversible"
                    };
                    problems.push(
                        &effect_path,
                        Some("AG-17"),
                        format!(
                            "tier `reversible-acts` allows only reversible effects; `{}` {why}",
                            effect.name
                        ),
                    );
                }
                if !effect.is_irreversible() && source.history == History::None {
                    problems.push(
                        &effect_path,
                        Some("AG-19"),
                        format!(
                            "effect `{}` claims to be reversible, but reversal goes only through the participant's own history and it declares `\"history\": \"none\"`",
                            effect.name
                        ),
                    );
                }
            }
            for read in &capability.reads {
                if !read_names.contains(read) {
                    problems.push(
                        &format!("{path}.reads"),
                        None,
                        format!("read `{read}` is not declared in `reads`"),
                    );
                }
            }
            let schema = match cache.compile(&capability.arguments) {
                Ok(schema) if schema.has_object_root() => Some(schema),
                Ok(_) => {
                    problems.push(
                        &format!("{path}.arguments"),
                        Some("AG-15"),
                        SchemaError::RootNotObject.to_string(),
                    );
                    None
                }
                Err(error) => {
                    problems.push(
                        &format!("{path}.arguments"),
                        Some("AG-15"),
                        error.to_string(),
                    );
                    None
                }
            };
            if let Some(schema) = &schema {
                for argument in capability.argument_limits.keys() {
                    if !schema.root_properties().contains(argument) {
                        problems.push(
                            &format!("{path}.argumentLimits.{argument}"),
                            Some("AG-16"),
                            format!("a limit is declared for `{argument}`, which the schema does not declare"),
                        );
                    }
                }
                if source.default_argument_limit.is_none() {
                    for argument in schema.root_properties() {
                        if !capability.argument_limits.contains_key(&argument) {
                            problems.push(
                                &format!("{path}.argumentLimits"),
                                Some("AG-16"),
                                format!("argument `{argument}` has no byte limit and the manifest declares no `defaultArgumentLimit`"),
                            );
                        }
                    }
                    if !schema.closes_root() {
                        problems.push(
                            &format!("{path}.arguments"),
                            Some("AG-16"),
                            "arguments beyond `properties` would have no byte limit: set `\"additionalProperties\": false` or a `defaultArgumentLimit`".into(),
                        );
                    }
                }
                if let Some(limit) = capability
                    .argument_limits
                    .values()
                    .find(|limit| **limit == 0)
                {
                    problems.push(
                        &format!("{path}.argumentLimits"),
                        Some("AG-16"),
                        format!("a limit of {limit} bytes admits nothing"),
                    );
                }
            }
            if let Some(schema) = schema {
                capabilities.push(CapabilityDecl {
                    name: capability.name,
                    description: capability.description,
                    schema,
                    limits: capability.argument_limits,
                    default_limit: source.default_argument_limit,
                    effects: capability.effects,
                    max_autonomy: capability.max_autonomy,
                    accepts_partial_close: capability.accepts_partial_close,
                    reads: capability.reads,
                });
            }
        }
        if source.default_argument_limit == Some(0) {
            problems.push(
                "$.defaultArgumentLimit",
                Some("AG-16"),
                "a limit of 0 bytes admits nothing".into(),
            );
        }
        problems.finish()?;
        let capability_set = capability_set_digest(&capabilities);
        Ok(Manifest {
            id: ParticipantId::new(source.id),
            label: source.label,
            description: source.description,
            tier: source.tier,
            history: source.history,
            preview: source.preview,
            capabilities,
            reads,
            capability_set,
        })
    }

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

fn capability_set_digest(capabilities: &[CapabilityDecl]) -> Digest {
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
            })
        })
        .collect();
    Digest::of_json(&Value::Array(entries))
}

fn path_of<E>(error: &serde_path_to_error::Error<E>) -> String {
    let path = error.path().to_string();
    if path == "." {
        "$".into()
    } else {
        format!("$.{path}")
    }
}

// ----- problems ---------------------------------------------------------------

/// One thing wrong with a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestProblem {
    /// Where, as a JSON path (`$.capabilities[0].description`).
    pub path: String,
    /// The requirement broken, if one is (`AG-14`).
    pub requirement: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.requirement {
            Some(requirement) => write!(f, "{requirement}: {}: {}", self.path, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// A refused manifest, with every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ManifestError {
    /// The problems, in document order.
    pub problems: Vec<ManifestProblem>,
}

impl ManifestError {
    fn single(path: String, requirement: Option<&str>, message: String) -> Self {
        ManifestError {
            problems: vec![ManifestProblem {
                path,
                requirement: requirement.map(str::to_owned),
                message,
            }],
        }
    }

    /// Whether some problem breaks `requirement` (`"AG-16"`).
    pub fn breaks(&self, requirement: &str) -> bool {
        self.problems
            .iter()
            .any(|p| p.requirement.as_deref() == Some(requirement))
    }
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, problem) in self.problems.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

#[derive(Default)]
struct Problems(Vec<ManifestProblem>);

/// Words that stand in for a description without being one.
const PLACEHOLDERS: &[&str] = &[
    "todo",
    "tbd",
    "fixme",
    "xxx",
    "n/a",
    "na",
    "none",
    "null",
    "description",
    "placeholder",
    "lorem ipsum",
    "test",
    "foo",
    "bar",
    "...",
    "-",
];

impl Problems {
    fn push(&mut self, path: &str, requirement: Option<&str>, message: String) {
        self.0.push(ManifestProblem {
            path: path.into(),
            requirement: requirement.map(str::to_owned),
            message,
        });
    }

    fn identifier(&mut self, path: &str, value: &str) {
        let valid = !value.is_empty()
            && value.len() <= 64
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && value
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic());
        if !valid {
            self.push(
                path,
                None,
                format!("`{value}` is not an identifier: 1–64 ASCII letters, digits, `-` or `_`, starting with a letter"),
            );
        }
    }

    /// A participant id must leave the wire tool name reversible
    /// ([`crate::CapabilityRef::wire_name`]): no `__`, no trailing `_` (AG-15).
    fn wire_participant(&mut self, id: &str) {
        if id.contains(WIRE_SEPARATOR) || id.ends_with('_') {
            self.push(
                "$.id",
                Some("AG-15"),
                format!("`{id}` cannot name tools for the acting party: a participant id must not contain `{WIRE_SEPARATOR}` or end with `_`, which separate it from the capability in a tool name"),
            );
        }
    }

    /// A capability's wire tool name must fit the 64 characters model APIs
    /// accept (AG-15).
    fn wire_name(&mut self, path: &str, participant: &str, capability: &str) {
        let length = participant.len() + WIRE_SEPARATOR.len() + capability.len();
        if length > 64 {
            self.push(
                &format!("{path}.name"),
                Some("AG-15"),
                format!("the tool name `{participant}{WIRE_SEPARATOR}{capability}` would be {length} characters; model APIs accept at most 64"),
            );
        }
    }

    /// What every named entry (a read, a capability) must be: an identifier,
    /// described for the acting party (AG-14), declared once.
    fn entry(
        &mut self,
        path: &str,
        what: &str,
        name: &str,
        description: &str,
        names: &mut BTreeSet<String>,
    ) {
        self.identifier(&format!("{path}.name"), name);
        self.description(&format!("{path}.description"), description, name);
        if !names.insert(name.to_owned()) {
            self.push(
                &format!("{path}.name"),
                None,
                format!("{what} `{name}` is declared twice"),
            );
        }
    }

    fn text(&mut self, path: &str, value: &str, min: usize) {
        if value.trim().chars().count() < min {
            self.push(path, None, "must not be empty".into());
        }
    }

    /// AG-14: a description the acting party can use — not empty, not a
    /// placeholder, not the name again.
    fn description(&mut self, path: &str, value: &str, name: &str) {
        let trimmed = value.trim();
        let lower = trimmed.to_lowercase();
        let normalized = lower.trim_end_matches('.');
        let problem = if trimmed.is_empty() {
            Some("is empty".to_owned())
        } else if PLACEHOLDERS.contains(&normalized) || normalized.starts_with("todo") {
            Some(format!("`{trimmed}` is a placeholder"))
        } else if normalized == name.to_lowercase() {
            Some("only repeats the name".to_owned())
        } else if trimmed.split_whitespace().count() < 3 {
            Some(format!(
                "`{trimmed}` is too short to tell the acting party anything; write a sentence"
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            self.push(
                path,
                Some("AG-14"),
                format!("the description for the acting party {problem}"),
            );
        }
    }

    fn finish(self) -> Result<(), ManifestError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ManifestError { problems: self.0 })
        }
    }
}
