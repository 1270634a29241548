//! The rules a manifest must satisfy, checked at registration (AG-14 …
//! AG-19); every failure names its path and the requirement it breaks, and
//! every one is reported, not only the first.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::ids::ParticipantId;
use baton_schema::{Schema, SchemaCache, SchemaError};

use super::parse::{CapabilitySource, ManifestSource};
use super::problems::Problems;
use super::{
    capability_set_digest, CapabilityDecl, EffectDecl, History, Manifest, ManifestError, ReadDecl,
    Tier,
};

impl Manifest {
    pub(super) fn check(
        source: ManifestSource,
        cache: &mut SchemaCache,
    ) -> Result<Manifest, ManifestError> {
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

        let acting = source.capabilities.iter().filter(|c| !c.read_only).count();
        if source.tier == Tier::ReadsOnly && acting > 0 {
            problems.push(
                "$.capabilities",
                Some("AG-17"),
                format!(
                    "tier `reads-only` exposes no capability that changes anything, but {acting} are declared (mark one that changes nothing `\"readOnly\": true`)"
                ),
            );
        }

        let declared = Declared {
            participant: &source.id,
            tier: source.tier,
            history: source.history,
            default_limit: source.default_argument_limit,
            reads: &read_names,
        };
        let mut names = BTreeSet::new();
        let mut capabilities = Vec::new();
        for (index, capability) in source.capabilities.into_iter().enumerate() {
            let path = format!("$.capabilities[{index}]");
            let checked = declared.capability(&path, capability, &mut names, cache, &mut problems);
            capabilities.extend(checked);
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
}

/// What the manifest as a whole declares, that each capability is checked
/// against.
struct Declared<'a> {
    participant: &'a str,
    tier: Tier,
    history: History,
    default_limit: Option<usize>,
    reads: &'a BTreeSet<String>,
}

impl Declared<'_> {
    /// One capability: its name and description (AG-14), its effects
    /// (AG-17 – AG-19), its reads, its arguments' schema (AG-15) and
    /// limits (AG-16). `None` when its schema does not compile.
    fn capability(
        &self,
        path: &str,
        capability: CapabilitySource,
        names: &mut BTreeSet<String>,
        cache: &mut SchemaCache,
        problems: &mut Problems,
    ) -> Option<CapabilityDecl> {
        problems.entry(
            path,
            "capability",
            &capability.name,
            &capability.description,
            names,
        );
        problems.wire_name(path, self.participant, &capability.name);
        self.effects(path, &capability.effects, capability.read_only, problems);
        for read in &capability.reads {
            if !self.reads.contains(read) {
                problems.push(
                    &format!("{path}.reads"),
                    None,
                    format!("read `{read}` is not declared in `reads`"),
                );
            }
        }
        let schema = compile_arguments(path, &capability.arguments, cache, problems)?;
        self.limits(path, &schema, &capability.argument_limits, problems);
        Some(CapabilityDecl {
            name: capability.name,
            description: capability.description,
            schema,
            limits: capability.argument_limits,
            default_limit: self.default_limit,
            effects: capability.effects,
            max_autonomy: capability.max_autonomy,
            accepts_partial_close: capability.accepts_partial_close,
            reads: capability.reads,
            read_only: capability.read_only,
        })
    }

    /// At least one effect, each allowed by the tier (AG-17), irreversible
    /// when external (AG-18), reversible only through a history (AG-19);
    /// none for a capability that changes nothing (`readOnly`).
    fn effects(
        &self,
        path: &str,
        effects: &[EffectDecl],
        read_only: bool,
        problems: &mut Problems,
    ) {
        if read_only && !effects.is_empty() {
            problems.push(
                &format!("{path}.effects"),
                Some("AG-18"),
                "a capability that changes nothing (`readOnly`) declares no effects".into(),
            );
        } else if !read_only && effects.is_empty() {
            problems.push(
                &format!("{path}.effects"),
                Some("AG-18"),
                "a capability declares at least one effect, each with its reversibility (or `\"readOnly\": true` when it changes nothing)".into(),
            );
        }
        for (index, effect) in effects.iter().enumerate() {
            let effect_path = format!("{path}.effects[{index}]");
            problems.identifier(&format!("{effect_path}.name"), &effect.name);
            if effect.is_irreversible() && self.tier == Tier::ReversibleActs {
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
            if !effect.is_irreversible() && self.history == History::None {
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
    }

    /// Every argument has a byte limit, declared or by default, and no
    /// limit admits nothing (AG-16).
    fn limits(
        &self,
        path: &str,
        schema: &Schema,
        limits: &BTreeMap<String, usize>,
        problems: &mut Problems,
    ) {
        for argument in limits.keys() {
            if !schema.root_properties().contains(argument) {
                problems.push(
                    &format!("{path}.argumentLimits.{argument}"),
                    Some("AG-16"),
                    format!(
                        "a limit is declared for `{argument}`, which the schema does not declare"
                    ),
                );
            }
        }
        if self.default_limit.is_none() {
            for argument in schema.root_properties() {
                if !limits.contains_key(&argument) {
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
        if let Some(limit) = limits.values().find(|limit| **limit == 0) {
            problems.push(
                &format!("{path}.argumentLimits"),
                Some("AG-16"),
                format!("a limit of {limit} bytes admits nothing"),
            );
        }
        // A polynomial pattern is matched only on as much text as the step
        // budget allows: a limit above that would admit arguments that are
        // then refused as too long to check.
        for argument in schema.root_properties() {
            let limit = limits.get(&argument).copied().or(self.default_limit);
            let slowest = schema.slowest_pattern(&argument);
            if let (Some(limit), Some(slowest)) = (limit, slowest) {
                if limit > slowest.max_chars {
                    problems.push(
                        &format!("{path}.argumentLimits.{argument}"),
                        Some("AG-16"),
                        format!(
                            "argument `{argument}` may hold {limit} bytes, but its pattern `{}` can be checked safely on at most {max} characters: set its limit to at most {max} bytes, or use a pattern that matches in linear time",
                            slowest.pattern,
                            max = slowest.max_chars,
                        ),
                    );
                }
            }
        }
    }
}

/// The arguments' schema, compiled, with an object at its root (AG-15).
fn compile_arguments(
    path: &str,
    arguments: &Value,
    cache: &mut SchemaCache,
    problems: &mut Problems,
) -> Option<Schema> {
    let problem = match cache.compile(arguments) {
        Ok(schema) if schema.has_object_root() => return Some(schema),
        Ok(_) => SchemaError::RootNotObject.to_string(),
        Err(error) => error.to_string(),
    };
    problems.push(&format!("{path}.arguments"), Some("AG-15"), problem);
    None
}
