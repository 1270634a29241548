//! The engine: one session's runs, driven by inputs and polled for events.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::actor::{ActorIdentity, ActorRef, ActorSecret, Attribution};
use crate::context::{ReadRef, ReadStamp};
use crate::delegation::Delegation;
use crate::digest::Digest;
use crate::dispatch::Baseline;
use crate::error::{
    AgentStateError, CommandError, DelegateError, MutationRefused, PublishError,
    RegistrationRefused, ReportError,
};
use crate::event::{Event, Finding, FindingReason};
use crate::grants::{Decision, Grant, GrantError, GrantScope, Grants};
use crate::ids::{
    CallId, CapabilityRef, MarkToken, ParticipantId, QuestionId, RunId, SessionId, TurnId,
};
use crate::journal::{Actor, CallResult, JournalEntry, Refusal};
use crate::manifest::{Manifest, ManifestError};
use crate::model::{Autonomy, Budget, Initiative};
use crate::questions::{
    Acceptance, AnswerError, AnswerOutcome, Counters, Question, QuestionState, Questions,
    Reconciliation,
};
use crate::registry::{RegisterError, Registry, Tool};
use crate::review::ReviewSheet;
use crate::run::{AskedQuestion, PlanSource, ProposedCall, Run, Step, TurnInput};
use crate::state::{
    BudgetLimit, CancelReason, EscalationReason, Outcome, Resolution, ReturnReason, RunState,
    StateName,
};

const HOUR_MS: u64 = 60 * 60 * 1000;

/// The engine's fixed settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EngineConfig {
    /// The session this engine drives; run ids are minted under it.
    pub session: SessionId,
    /// The most any run may be given; larger budgets are refused.
    pub max_budget: Budget,
    /// The budget of a delegation that does not ask for one.
    pub default_budget: Budget,
    /// How long an escalation waits for the person before the run returns (AG-6).
    pub escalation_timeout_ms: u64,
    /// How long a rollback waits for participants to confirm their reverts.
    pub revert_timeout_ms: u64,
    /// Run starts per rolling hour allowed to `system` and `scheduled` initiative.
    pub hourly_quota: u32,
    /// The application's autonomy ceiling; the person may only lower it (AG-24).
    pub ceiling: Autonomy,
    /// How long an authorization holds before the person must confirm it again (AG-29).
    pub authorization_ttl_ms: u64,
    /// What happens when a run above `suggest` starts acting while no
    /// presence surface is attached (AG-35).
    #[serde(default)]
    pub presence: PresencePolicy,
}

/// The answer to the contract's open decision D.1 (AG-35): observable by
/// default, a hard refusal for applications that want one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PresencePolicy {
    /// Emit [`Event::PresenceMissing`] and act.
    #[default]
    Warn,
    /// Refuse to act: the run returns `error` with reason `presence-missing`.
    Require,
}

impl EngineConfig {
    /// Defaults for a session: five-minute runs, one-minute turns, two-minute
    /// escalations, ten-second rollbacks, twenty non-user starts an hour, a
    /// `review` ceiling, and ten-minute authorizations.
    pub fn new(session: impl Into<String>) -> Self {
        EngineConfig {
            session: SessionId::new(session),
            max_budget: Budget {
                max_turns: 64,
                max_calls: 512,
                run_deadline_ms: 60 * 60 * 1000,
                turn_deadline_ms: 10 * 60 * 1000,
            },
            default_budget: Budget::default(),
            escalation_timeout_ms: 2 * 60 * 1000,
            revert_timeout_ms: 10 * 1000,
            hourly_quota: 20,
            ceiling: Autonomy::Review,
            authorization_ttl_ms: 10 * 60 * 1000,
            presence: PresencePolicy::Warn,
        }
    }
}

/// The person's authorization of a reviewed plan (AG-7): the allowlist and
/// budget it fixes, and whether to make it a standing grant (AG-30).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Authorization {
    /// The capabilities allowed; by default the ones proposed. Narrowing it
    /// means a later call to anything else escalates (AG-7).
    #[serde(default)]
    pub allowlist: Option<Vec<CapabilityRef>>,
    /// The budget fixed from now on; by default the one asked for.
    #[serde(default)]
    pub budget: Option<Budget>,
    /// "Always allow these here for a while": a standing `allow` grant, for
    /// this many milliseconds, on every declared capability the
    /// authorization allows (AG-30: a time to live and an explicit scope,
    /// re-gated when the participant's capability set changes).
    #[serde(default)]
    pub grant_ms: Option<u64>,
}

impl Authorization {
    /// Parses an authorization in its JSON shape, as a host receives it:
    /// `{ allowlist?: ["tasks.rename"], budget?, grant?: { ttlMs } }`.
    pub fn from_json(value: Value) -> Result<Authorization, CommandError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct Shape {
            #[serde(default)]
            allowlist: Option<Vec<String>>,
            #[serde(default)]
            budget: Option<Budget>,
            #[serde(default)]
            grant: Option<GrantShape>,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct GrantShape {
            ttl_ms: u64,
        }
        let invalid = |message: String| CommandError::InvalidAuthorization(message);
        let shape: Shape = serde_path_to_error::deserialize(value)
            .map_err(|error| invalid(format!("at `{}`: {}", error.path(), error.inner())))?;
        let allowlist = shape
            .allowlist
            .map(|names| {
                names
                    .iter()
                    .map(|name| {
                        CapabilityRef::parse_tool_name(name).ok_or_else(|| {
                            invalid(format!("`{name}` is not participant.capability"))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        Ok(Authorization {
            allowlist,
            budget: shape.budget,
            grant_ms: shape.grant.map(|grant| grant.ttl_ms),
        })
    }
}

/// Traffic from the acting party, addressed to a turn. Dialect adapters
/// translate their wire into this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Inbound {
    /// A complete tool call, its arguments assembled.
    ToolCall {
        /// The acting party's id for it, unique within the run.
        call: CallId,
        /// What it wants invoked.
        capability: CapabilityRef,
        /// With what.
        arguments: Value,
    },
    /// The turn ended normally.
    TurnEnd,
    /// The turn failed (the acting party reported an error, the stream broke).
    TurnFailed {
        /// What happened.
        message: String,
    },
    /// The connection broke before the turn ended (the stream closed early,
    /// the request failed): the run returns `error` with `transport-lost`.
    TransportLost {
        /// What happened.
        message: String,
    },
    /// A question for the person (AG-48: a request id, a prompt, an
    /// optional JSON Schema for the answer).
    Question {
        /// The acting party's id for the request; the answer comes back under it.
        request: String,
        /// What to ask, in words.
        prompt: String,
        /// A self-contained JSON Schema 2020-12 the answer must satisfy.
        #[serde(default)]
        schema: Option<Value>,
        /// How long the person has, in milliseconds (the escalation timeout by default).
        #[serde(default)]
        deadline_ms: Option<u64>,
        /// When the acting party stops waiting for the answer, in epoch
        /// milliseconds: the deadline is never later, and a question that
        /// has expired is never put to the person.
        #[serde(default)]
        expires_at: Option<u64>,
    },
    /// The stream broke the protocol (found by the stream verifier).
    Malformed {
        /// What was wrong.
        detail: String,
    },
}

/// How an engine takes part in a kill that spans more than itself
/// ([`Engine::kill_all_in`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillScope {
    /// This engine announces the whole kill: its own runs and `elsewhere`
    /// more that other engines ended.
    Announcing {
        /// Runs the kill ended in other engines.
        elsewhere: u32,
    },
    /// Another engine announces the kill; this one only ends its runs.
    Silent,
}

/// The engine's live state, for persistence. History lives in the journal.
/// A store may keep it whole, or as a [`Engine::header`] plus rows of runs
/// and questions put back with [`EngineSnapshot::with_rows`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineSnapshot {
    /// Every run this engine knows, terminal ones included.
    pub runs: Vec<Run>,
    /// Start times of non-user runs inside the quota window.
    pub quota_starts: Vec<u64>,
    /// The next run number.
    pub next_run: u64,
    /// Whether delegation is disabled.
    pub disabled: bool,
    /// The person's standing grants (AG-30).
    #[serde(default)]
    pub grants: Grants,
    /// The questions, open and closed (AG-41).
    #[serde(default)]
    pub questions: Questions,
}

impl EngineSnapshot {
    /// A header ([`Engine::header`]) with rows of runs and questions put
    /// back — typically only the live ones, so restoring costs what is live,
    /// not what is history.
    pub fn with_rows(
        mut self,
        runs: impl IntoIterator<Item = Run>,
        questions: impl IntoIterator<Item = Question>,
    ) -> EngineSnapshot {
        self.runs.extend(runs);
        for question in questions {
            self.questions.by_id.insert(question.id.clone(), question);
        }
        self
    }
}

/// The custody machine of one session: sans-IO, deterministic, never panics.
///
/// Inputs go in through commands (`delegate`, `authorize`, `stop`, …) and
/// `handle_*` methods, each taking the current time in milliseconds. The
/// engine answers with [`Event`]s from [`Engine::poll_event`] — journal
/// records to persist, effects for the host to carry out, findings — and says
/// through [`Engine::poll_timeout`] when it wants [`Engine::handle_timeout`].
/// It never reads a clock or a random source, so the same inputs always give
/// the same events.
///
/// The calling loop, with a fixed plan (one auto-authorized call, AG-3):
///
/// ```
/// use baton_core::*;
/// use serde_json::json;
///
/// let mut config = EngineConfig::new("session-1");
/// config.ceiling = Autonomy::Auto;
/// let mut engine = Engine::new(config, ActorSecret::new([7; 32]));
/// let manifest = engine.parse_manifest(r#"{
///     "id": "tasks", "label": "Tasks", "tier": "reversible-acts", "history": "native",
///     "description": "The team's task board.",
///     "capabilities": [{
///         "name": "rename", "description": "Rename one task on the board.",
///         "arguments": {"type": "object", "required": ["id", "title"],
///                       "properties": {"id": {"type": "integer"}, "title": {"type": "string"}},
///                       "additionalProperties": false},
///         "argumentLimits": {"id": 16, "title": 200},
///         "effects": [{"name": "retitle", "reversible": true}]
///     }]
/// }"#).unwrap();
/// engine.register(manifest, None).unwrap();
/// let rename = CapabilityRef::new("tasks", "rename");
///
/// let mut now = 1_000;
/// let run = engine
///     .delegate(now, Delegation::new("Rename task 3", Initiative::User, Autonomy::Auto)
///         .with_plan(vec![PlannedCall { capability: rename, arguments: json!({"id": 3, "title": "Ship"}) }]))
///     .unwrap();
///
/// loop {
///     while let Some(event) = engine.poll_event() {
///         match event {
///             Event::Effect(Effect::Mark { run, participant }) => {
///                 engine.handle_mark(now, &run, &participant, Ok(MarkToken::new("m1"))).unwrap();
///             }
///             Event::Effect(Effect::Invoke { run, call, .. }) => {
///                 // …the participant applies the change here…
///                 let result = CallResult::Applied { value: json!({"ok": true}) };
///                 engine.handle_call_result(now, &run, &call, result).unwrap();
///             }
///             Event::Journal(record) => { /* append to the store */ let _ = record; }
///             _ => {}
///         }
///     }
///     match engine.poll_timeout() {
///         Some(at) if engine.run(&run).is_some_and(|r| !r.state().is_terminal()) => {
///             now = at;
///             engine.handle_timeout(now);
///         }
///         _ => break,
///     }
/// }
/// assert_eq!(
///     engine.run(&run).unwrap().state(),
///     &RunState::Returned { outcome: Outcome::Completed, reason: ReturnReason::PlanCompleted }
/// );
/// ```
#[derive(Debug)]
pub struct Engine {
    shared: Shared,
    out: Outbox,
    runs: BTreeMap<RunId, Run>,
    questions: Questions,
    quota_starts: VecDeque<u64>,
    next_run: u64,
    disabled: bool,
}

/// What every run step reads.
#[derive(Debug)]
struct Shared {
    config: EngineConfig,
    registry: Registry,
    reads: BTreeMap<ReadRef, ReadStamp>,
    grants: Grants,
    secret: ActorSecret,
    presences: u32,
    /// What the host tells the acting party each turn (AG-47, `to-agent`).
    agent_state: Value,
}

/// What every run step writes.
#[derive(Debug, Default)]
struct Outbox {
    events: VecDeque<Event>,
    findings: Vec<Finding>,
    /// Set while a kill ends runs (their closings are one announcement).
    hush_closings: bool,
}

impl<'a> Step<'a> {
    fn new(
        now: u64,
        out: &'a mut Outbox,
        shared: &'a Shared,
        questions: &'a mut Questions,
    ) -> Self {
        Step {
            now,
            events: &mut out.events,
            findings: &mut out.findings,
            config: &shared.config,
            registry: &shared.registry,
            reads: &shared.reads,
            grants: &shared.grants,
            secret: &shared.secret,
            presences: shared.presences,
            agent_state: &shared.agent_state,
            hush_closings: out.hush_closings,
            questions,
        }
    }
}

impl Engine {
    /// A new engine with no runs. `secret` keys the actor references it
    /// mints (AG-33); draw it from a cryptographic random source.
    pub fn new(config: EngineConfig, secret: ActorSecret) -> Self {
        Engine {
            shared: Shared {
                config,
                registry: Registry::default(),
                reads: BTreeMap::new(),
                grants: Grants::default(),
                secret,
                presences: 0,
                agent_state: Value::Null,
            },
            out: Outbox::default(),
            runs: BTreeMap::new(),
            questions: Questions::default(),
            quota_starts: VecDeque::new(),
            next_run: 1,
            disabled: false,
        }
    }

    /// Rebuilds an engine from a snapshot without emitting anything: the
    /// escalation receipts and effects it already emitted are not repeated.
    /// Participants mount again and republish their reads.
    pub fn restore(config: EngineConfig, secret: ActorSecret, snapshot: EngineSnapshot) -> Self {
        let mut engine = Engine::new(config, secret);
        engine.runs = snapshot
            .runs
            .into_iter()
            .map(|run| (run.id.clone(), run))
            .collect();
        engine.quota_starts = snapshot.quota_starts.into();
        engine.next_run = snapshot.next_run;
        engine.disabled = snapshot.disabled;
        engine.shared.grants = snapshot.grants;
        engine.questions = snapshot.questions;
        engine
    }

    /// The snapshot without runs or questions (their counters kept): what
    /// a store keeps beside the rows of runs and questions it writes one by
    /// one, so a step writes only what it changed.
    pub fn header(&self) -> EngineSnapshot {
        let mut questions = self.questions.clone();
        questions.by_id.clear();
        EngineSnapshot {
            runs: Vec::new(),
            quota_starts: self.quota_starts.iter().copied().collect(),
            next_run: self.next_run,
            disabled: self.disabled,
            grants: self.shared.grants.clone(),
            questions,
        }
    }

    /// The live state, for persistence.
    pub fn snapshot(&self) -> EngineSnapshot {
        EngineSnapshot {
            runs: self.runs.values().cloned().collect(),
            quota_starts: self.quota_starts.iter().copied().collect(),
            next_run: self.next_run,
            disabled: self.disabled,
            grants: self.shared.grants.clone(),
            questions: self.questions.clone(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &EngineConfig {
        &self.shared.config
    }

    /// Parses a manifest, compiling its schemas once through the engine's cache.
    pub fn parse_manifest(&mut self, text: &str) -> Result<Manifest, ManifestError> {
        self.shared.registry.parse(text)
    }

    /// Mounts a participant (AG-12: inert — nothing happens until a
    /// delegation reads it). Returns its mounted id: the manifest id, or
    /// `id#instance` when several instances may be mounted.
    pub fn register(
        &mut self,
        manifest: Manifest,
        instance: Option<&str>,
    ) -> Result<ParticipantId, RegisterError> {
        self.shared.registry.register(manifest, instance)
    }

    /// Registers a participant from its manifest's JSON text, the way a
    /// component does when it mounts: it never breaks the component
    /// (AG-13, AG-50). A manifest with problems is refused as a whole — the
    /// participant offers no tools, and a call addressed to it is refused
    /// with the problems — and the problems come back, each with its
    /// requirement and JSON path, for the host to report once.
    pub fn register_text(
        &mut self,
        text: &str,
        instance: Option<&str>,
    ) -> Result<ParticipantId, RegistrationRefused> {
        let refused = |problems: Vec<crate::manifest::ManifestProblem>| {
            let participant = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|manifest| manifest.get("id")?.as_str().map(str::to_owned))
                .map(|id| match instance {
                    Some(name) => ParticipantId::new(format!("{id}#{name}")),
                    None => ParticipantId::new(id),
                });
            RegistrationRefused {
                participant,
                problems,
            }
        };
        let manifest = match self.shared.registry.parse(text) {
            Ok(manifest) => manifest,
            Err(error) => {
                let refusal = refused(error.problems);
                if let Some(id) = &refusal.participant {
                    self.shared
                        .registry
                        .refuse(id.clone(), refusal.problems.clone());
                }
                return Err(refusal);
            }
        };
        match self.shared.registry.register(manifest, instance) {
            Ok(id) => Ok(id),
            Err(error) => {
                let refusal = refused(error.problems());
                // A second registration under a mounted id leaves that one be.
                if let (Some(id), false) = (
                    &refusal.participant,
                    matches!(error, RegisterError::AlreadyMounted(_)),
                ) {
                    self.shared
                        .registry
                        .refuse(id.clone(), refusal.problems.clone());
                }
                Err(refusal)
            }
        }
    }

    /// Unmounts a participant and withdraws its reads.
    pub fn unregister(&mut self, participant: &ParticipantId) -> bool {
        self.shared
            .reads
            .retain(|read, _| read.participant != *participant);
        self.shared.registry.unregister(participant)
    }

    /// The mounted participants.
    pub fn registry(&self) -> &Registry {
        &self.shared.registry
    }

    /// The tools the acting party is offered.
    pub fn tools(&self) -> Vec<Tool> {
        self.shared.registry.tools()
    }

    /// Publishes a read's current version and origin; the next turn's context
    /// snapshot carries it. A participant publishes its new version before
    /// reporting the result of a call that changed it: a change published
    /// while a run's call is mutating that participant is the run's own and
    /// is neither stale (AG-20) nor drift (AG-29).
    ///
    /// The read must be declared by the mounted participant. Its effective
    /// origin is the *least* trusted of the declared and the published one:
    /// a participant can say that today's content is less trustworthy than
    /// usual, never launder a read declared third-party into `author`
    /// (AG-27, AG-28). Returns the stamp as the context will carry it.
    pub fn publish_read(&mut self, stamp: ReadStamp) -> Result<ReadStamp, PublishError> {
        let participant = &stamp.read.participant;
        let declared = self
            .shared
            .registry
            .get(participant)
            .ok_or_else(|| PublishError::UnknownParticipant(participant.clone()))?
            .manifest
            .reads()
            .iter()
            .find(|read| read.name == stamp.read.read)
            .ok_or_else(|| PublishError::UndeclaredRead {
                participant: participant.clone(),
                read: stamp.read.read.clone(),
            })?
            .origin;
        let stamp = ReadStamp {
            origin: stamp.origin.max(declared),
            ..stamp
        };
        for run in self.runs.values_mut() {
            if !run.state().is_terminal() {
                run.attribute_write(&stamp);
            }
        }
        self.shared.reads.insert(stamp.read.clone(), stamp.clone());
        Ok(stamp)
    }

    /// Withdraws a read.
    pub fn withdraw_read(&mut self, read: &ReadRef) {
        self.shared.reads.remove(read);
    }

    /// Gives a persistent grant ("always allow", "never allow") with a scope
    /// and a time to live (AG-30).
    pub fn grant(
        &mut self,
        now: u64,
        scope: GrantScope,
        decision: Decision,
        ttl_ms: u64,
    ) -> Result<Grant, GrantError> {
        self.shared
            .grants
            .give(now, &self.shared.registry, scope, decision, ttl_ms)
    }

    /// Sets the `to-agent` state every later turn carries to the acting
    /// party (AG-47): context the application wants it to have, in the
    /// direction opposite to the agent's own state, on its own channel.
    /// `null` sends none.
    pub fn set_agent_state(&mut self, state: Value) {
        self.shared.agent_state = state;
    }

    /// Updates the `to-agent` state with a JSON Patch (RFC 6902) between
    /// turns. The patch applies whole or not at all.
    pub fn patch_agent_state(&mut self, patch: &Value) -> Result<(), AgentStateError> {
        let patch: json_patch::Patch = serde_json::from_value(patch.clone())
            .map_err(|error| AgentStateError(format!("not a JSON Patch: {error}")))?;
        let mut next = self.shared.agent_state.clone();
        json_patch::patch(&mut next, &patch).map_err(|error| AgentStateError(error.to_string()))?;
        self.shared.agent_state = next;
        Ok(())
    }

    /// The `to-agent` state the next turn carries.
    pub fn agent_state(&self) -> &Value {
        &self.shared.agent_state
    }

    /// A presence surface began rendering the cycle (AG-35).
    pub fn attach_presence(&mut self) {
        self.shared.presences += 1;
    }

    /// A presence surface stopped rendering the cycle.
    pub fn detach_presence(&mut self) {
        self.shared.presences = self.shared.presences.saturating_sub(1);
    }

    /// How many presence surfaces are attached.
    pub fn presences(&self) -> u32 {
        self.shared.presences
    }

    /// Revokes a grant.
    pub fn revoke_grant(&mut self, id: u64) -> bool {
        self.shared.grants.revoke(id)
    }

    /// The grants, with whether each applies now.
    pub fn grants(&self, now: u64) -> Vec<(Grant, bool)> {
        self.shared
            .grants
            .all()
            .map(|grant| {
                (
                    grant.clone(),
                    self.shared
                        .grants
                        .is_live(grant, now, &self.shared.registry),
                )
            })
            .collect()
    }

    // ----- reading ---------------------------------------------------------

    /// A run by id.
    pub fn run(&self, id: &RunId) -> Option<&Run> {
        self.runs.get(id)
    }

    /// Every run, in id order.
    pub fn runs(&self) -> impl Iterator<Item = &Run> {
        self.runs.values()
    }

    /// Runs that have not reached a terminal state.
    pub fn active_runs(&self) -> impl Iterator<Item = &Run> {
        self.runs.values().filter(|run| !run.state().is_terminal())
    }

    /// Integrity findings so far.
    pub fn findings(&self) -> &[Finding] {
        &self.out.findings
    }

    /// Whether new runs are refused (AG-10).
    pub fn is_disabled(&self) -> bool {
        self.disabled
    }

    // ----- the loop --------------------------------------------------------

    /// The next event, in the order the engine produced them.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.out.events.pop_front()
    }

    /// When the engine next needs [`Engine::handle_timeout`], if ever.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.runs.values().filter_map(Run::next_timeout).min()
    }

    /// Applies every deadline that has passed by `now`: deadman turns, run
    /// deadlines, escalation timeouts, rollbacks that ran out of time.
    pub fn handle_timeout(&mut self, now: u64) {
        let ids: Vec<RunId> = self
            .runs
            .values()
            .filter(|run| run.next_timeout().is_some_and(|at| at <= now))
            .map(|run| run.id().clone())
            .collect();
        for id in ids {
            self.with_run(now, &id, |run, step| run.settle(step));
        }
    }

    // ----- commands --------------------------------------------------------

    /// Starts a run. With an acting party, its planning turn is reserved and
    /// sent at once; with a fixed plan, the plan is proposed directly.
    pub fn delegate(&mut self, now: u64, delegation: Delegation) -> Result<RunId, DelegateError> {
        if self.disabled {
            return Err(DelegateError::Disabled);
        }
        let budget = delegation
            .budget
            .unwrap_or(self.shared.config.default_budget);
        let source = match &delegation.plan {
            Some(plan) if plan.is_empty() => return Err(DelegateError::EmptyPlan),
            Some(_) => PlanSource::Fixed,
            None => PlanSource::ActingParty,
        };
        self.check_budget(&budget, source)
            .map_err(DelegateError::InvalidBudget)?;
        if !delegation.initiative.is_user() {
            self.charge_quota(now)?;
        }
        // AG-24, AG-26: the person's choice under the ceiling; a run the person
        // did not ask for never acts without review.
        let autonomy = match crate::autonomy::resolve(crate::autonomy::AutonomyInputs {
            ceiling: self.shared.config.ceiling,
            person: delegation.autonomy,
            capability: None,
            initiative: delegation.initiative,
            irreversible: false,
            untrusted_context: false,
            denied: false,
        }) {
            crate::autonomy::Resolved::Allowed(level) => level,
            crate::autonomy::Resolved::Denied => Autonomy::Suggest,
        };
        let id = self.mint_run_id();
        let mut run = Run::new(
            id.clone(),
            delegation.intent.clone(),
            delegation.initiative,
            delegation.autonomy,
            autonomy,
            source,
            budget,
            None,
            now,
        );
        // A fixed plan was computed against the reads as they are now.
        run.seen = self.shared.reads.clone();
        let actor = if delegation.initiative.is_user() {
            Actor::Person
        } else {
            Actor::Engine
        };
        let mut step = Step::new(now, &mut self.out, &self.shared, &mut self.questions);
        run.record(
            &mut step,
            actor.clone(),
            JournalEntry::Created {
                intent: delegation.intent,
                initiative: delegation.initiative,
                budget,
                resumes: None,
            },
        );
        match delegation.plan {
            Some(plan) => {
                let plan = plan
                    .into_iter()
                    .enumerate()
                    .map(|(index, planned)| ProposedCall {
                        call: CallId::new(format!("p{}", index + 1)),
                        capability: planned.capability,
                        arguments: planned.arguments,
                    })
                    .collect();
                run.accept_plan(&mut step, actor, plan);
            }
            None => run.reserve_turn(&mut step),
        }
        self.runs.insert(id.clone(), run);
        Ok(id)
    }

    /// Resumes a paused run as a fresh run chained in the same session
    /// (AG-11). Undelivered call results travel to the new run's first turn.
    pub fn resume(
        &mut self,
        now: u64,
        paused: &RunId,
        budget: Option<Budget>,
    ) -> Result<RunId, DelegateError> {
        if self.disabled {
            return Err(DelegateError::Disabled);
        }
        let previous = self
            .runs
            .get(paused)
            .ok_or_else(|| DelegateError::UnknownRun(paused.clone()))?;
        if !previous.is_resumable() || previous.source() != PlanSource::ActingParty {
            return Err(DelegateError::NotResumable {
                run: paused.clone(),
            });
        }
        let budget = budget.unwrap_or(previous.budget());
        self.check_budget(&budget, PlanSource::ActingParty)
            .map_err(DelegateError::InvalidBudget)?;
        let (intent, requested, autonomy, reports) = (
            previous.intent().to_owned(),
            previous.requested,
            previous.autonomy(),
            previous.reports.clone(),
        );
        let id = self.mint_run_id();
        let mut run = Run::new(
            id.clone(),
            intent.clone(),
            Initiative::User,
            requested,
            autonomy,
            PlanSource::ActingParty,
            budget,
            Some(paused.clone()),
            now,
        );
        run.reports = reports;
        let mut step = Step::new(now, &mut self.out, &self.shared, &mut self.questions);
        run.record(
            &mut step,
            Actor::Person,
            JournalEntry::Created {
                intent,
                initiative: Initiative::User,
                budget,
                resumes: Some(paused.clone()),
            },
        );
        run.reserve_turn(&mut step);
        self.runs.insert(id.clone(), run);
        if let Some(previous) = self.runs.get_mut(paused) {
            previous.resumable = false;
        }
        Ok(id)
    }

    /// Authorizes a reviewed plan: reviewing → authorized → acting. The
    /// revision fence makes sure the person authorizes what they saw.
    pub fn authorize(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: u64,
        authorization: Authorization,
    ) -> Result<(), CommandError> {
        let budget_ceiling = self.shared.config.max_budget;
        if authorization.grant_ms == Some(0) {
            return Err(CommandError::Grant(GrantError::NoTimeToLive));
        }
        let grant_ms = authorization.grant_ms;
        self.command(
            now,
            id,
            Some(expected_revision),
            "authorize",
            |run, step| {
                if run.state().name() != StateName::Reviewing {
                    return Err(illegal(run, "authorize"));
                }
                let pending = run.pending_previews();
                if !pending.is_empty() {
                    return Err(CommandError::PreviewPending {
                        run: run.id().clone(),
                        calls: pending,
                    });
                }
                let budget = authorization.budget.unwrap_or(run.budget());
                check_raise(&budget, run, &budget_ceiling)?;
                let allowlist: BTreeSet<CapabilityRef> = match authorization.allowlist {
                    Some(list) => list.into_iter().collect(),
                    None => run.proposed_scope(),
                };
                run.transition(step, Actor::Person, RunState::Authorized);
                run.authorize_and_act(step, Actor::Person, allowlist, budget, Baseline::Seen);
                Ok(())
            },
        )?;
        if let Some(ttl_ms) = grant_ms {
            self.grant_allowlist(now, id, ttl_ms);
        }
        Ok(())
    }

    /// Standing `allow` grants on every declared capability a run allows.
    fn grant_allowlist(&mut self, now: u64, id: &RunId, ttl_ms: u64) {
        let scopes: BTreeSet<GrantScope> = self
            .runs
            .get(id)
            .into_iter()
            .flat_map(|run| run.allowlist())
            .map(|address| GrantScope {
                participant: ParticipantId::new(
                    address
                        .participant
                        .as_str()
                        .split('#')
                        .next()
                        .unwrap_or_default(),
                ),
                capability: Some(address.capability.clone()),
            })
            .collect();
        for scope in scopes {
            // Undeclared capabilities (refused anyway) get no grant.
            let _ =
                self.shared
                    .grants
                    .give(now, &self.shared.registry, scope, Decision::Allow, ttl_ms);
        }
    }

    /// Rejects a plan under review. Before anything was authorized the run
    /// is `cancelled`; on re-review after acting it returns `aborted`.
    pub fn reject(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: u64,
        note: &str,
    ) -> Result<(), CommandError> {
        self.command(
            now,
            id,
            Some(expected_revision),
            "reject",
            |run, step| match run.state().name() {
                StateName::Offered | StateName::Planned | StateName::Reviewing
                    if run.usage().calls == 0 =>
                {
                    run.cancel(
                        step,
                        Actor::Person,
                        CancelReason::Rejected { note: note.into() },
                    );
                    Ok(())
                }
                StateName::Reviewing => {
                    run.close(
                        step,
                        Actor::Person,
                        ReturnReason::ReviewRejected { note: note.into() },
                    );
                    Ok(())
                }
                _ => Err(illegal(run, "reject")),
            },
        )
    }

    /// Resolves an escalation (AG-6, AG-7).
    ///
    /// * `Allow` lets the run go on: an out-of-scope capability joins the
    ///   allowlist, a call that needed review is approved, drift or a lapsed
    ///   authorization is re-approved against the reads as they are now, and
    ///   exhaustion needs a budget that raises the exhausted limit.
    /// * `Deny` refuses the pending call (the acting party hears so); for
    ///   exhaustion, drift or expiry it ends the run as `Return` does.
    /// * `Review` sends the run back to review; `Return` ends it, `aborted`.
    pub fn resolve_escalation(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: u64,
        resolution: Resolution,
    ) -> Result<(), CommandError> {
        let budget_ceiling = self.shared.config.max_budget;
        self.command(now, id, Some(expected_revision), "resolve-escalation", |run, step| {
            let Some(reason) = run.escalation_reason().cloned() else {
                return Err(illegal(run, "resolve-escalation"));
            };
            let pending_call = reason.awaits_approval_of_a_call();
            if matches!(reason, EscalationReason::AwaitingAnswer { .. })
                && resolution != Resolution::Return
            {
                // A question is answered, declined, dismissed or postponed.
                return Err(CommandError::AnswerRequired {
                    run: run.id().clone(),
                });
            }
            match resolution {
                Resolution::Return => {
                    run.close(step, Actor::Person, ReturnReason::EscalationReturned);
                }
                Resolution::Deny if !pending_call => {
                    run.close(step, Actor::Person, ReturnReason::EscalationReturned);
                }
                Resolution::Review => run.review_again(step, Actor::Person, &reason),
                Resolution::Deny => {
                    run.clear_escalation();
                    run.transition(step, Actor::Person, RunState::Acting);
                    if let Some(call) = run.queue.pop_front() {
                        run.usage.calls += 1;
                        run.refuse(step, Actor::Person, call, Refusal::Denied);
                    }
                    run.advance(step);
                }
                Resolution::Allow { budget } => {
                    // No blind approval: the pending call's change is seen first (AG-31).
                    let pending = run.pending_previews();
                    if pending_call && !pending.is_empty() {
                        return Err(CommandError::PreviewPending {
                            run: run.id().clone(),
                            calls: pending,
                        });
                    }
                    let budget = budget.unwrap_or(run.budget());
                    check_raise(&budget, run, &budget_ceiling)?;
                    let mut allowlist = run.allowlist.clone();
                    let mut baseline = Baseline::Seen;
                    match reason {
                        EscalationReason::OutOfScope { capability } => {
                            allowlist.insert(capability);
                        }
                        EscalationReason::ReviewRequired { call, .. } => {
                            run.approved.insert(call);
                        }
                        EscalationReason::Drift { .. } | EscalationReason::AuthorizationExpired => {
                            baseline = Baseline::Current;
                        }
                        EscalationReason::AwaitingAnswer { .. } => {
                            return Err(CommandError::AnswerRequired {
                                run: run.id().clone(),
                            });
                        }
                        EscalationReason::BudgetExhausted { limit } => {
                            let raised = match limit {
                                BudgetLimit::Turns => budget.max_turns > run.usage().turns,
                                BudgetLimit::Calls => budget.max_calls > run.usage().calls,
                            };
                            if !raised {
                                return Err(CommandError::InvalidBudget(format!(
                                    "allowing an exhausted run needs a budget that raises its {limit:?} limit"
                                )));
                            }
                        }
                    }
                    run.clear_escalation();
                    run.authorize_and_act(step, Actor::Person, allowlist, budget, baseline);
                }
            }
            Ok(())
        })
    }

    /// The person undoes a run that has returned, in one step (A.2): the
    /// undo is journalled as the person's, and every participant the run
    /// changed is asked, last touched first, to revert to the mark taken
    /// before the run ([`crate::Effect::Revert`]; report with
    /// [`Engine::handle_revert_result`]). Each result is journalled; when all
    /// have answered (or the revert timeout passed) the engine announces the
    /// undo and emits [`Event::Undone`]. Returns the group being reverted.
    /// Refused while the run is active, after a rollback (nothing is left to
    /// undo), and a second time.
    pub fn undo(
        &mut self,
        now: u64,
        id: &RunId,
    ) -> Result<Vec<(ParticipantId, MarkToken)>, CommandError> {
        self.with_run(now, id, |run, step| {
            let why = match run.state() {
                RunState::Returned {
                    outcome: Outcome::RolledBack,
                    ..
                } => Some("it was rolled back already"),
                RunState::Returned { .. } if run.undone => Some("it was undone already"),
                RunState::Returned { .. } => None,
                _ => Some("it is still active; stop it first"),
            };
            if let Some(why) = why {
                return Err(CommandError::NotUndoable {
                    run: run.id().clone(),
                    why,
                });
            }
            Ok(run.start_undo(step))
        })
        .unwrap_or_else(|| Err(CommandError::UnknownRun(id.clone())))
    }

    /// The person stops a run: `returned{aborted, user-interrupt}`, never an
    /// error (AG-9). Works from every non-terminal state, without a fence.
    pub fn stop(&mut self, now: u64, id: &RunId) -> Result<(), CommandError> {
        self.terminal_command(now, id, "stop", ReturnReason::UserInterrupt)
    }

    /// Pauses a run: a return with resumable context (AG-11).
    pub fn pause(&mut self, now: u64, id: &RunId) -> Result<(), CommandError> {
        self.terminal_command(now, id, "pause", ReturnReason::Paused)
    }

    /// The global kill: every active run returns `aborted` (AG-10), and one
    /// announcement says so for all of them. Returns how many runs it ended.
    pub fn kill_all(&mut self, now: u64) -> usize {
        self.kill_all_in(now, KillScope::Announcing { elsewhere: 0 })
    }

    /// The global kill as part of one that spans several engines (every
    /// engine of a page, every tab of an origin): every active run of this
    /// engine returns `aborted`, journalled as the person's act, and the
    /// announcement is made once for the whole kill by the engine `scope`
    /// names (AG-10, AG-37). Returns how many runs of this engine it ended.
    pub fn kill_all_in(&mut self, now: u64, scope: KillScope) -> usize {
        let ids: Vec<RunId> = self.active_runs().map(|run| run.id().clone()).collect();
        self.out.hush_closings = true;
        for id in &ids {
            self.with_run(now, id, |run, step| {
                run.close(step, Actor::Person, ReturnReason::Kill)
            });
        }
        self.out.hush_closings = false;
        if let KillScope::Announcing { elsewhere } = scope {
            // One announcement for every run the kill ended (AG-37).
            if !ids.is_empty() || elsewhere > 0 {
                self.out
                    .events
                    .push_back(crate::announce::killed(ids.clone(), elsewhere));
            }
        }
        ids.len()
    }

    /// Refuses new runs until [`Engine::enable`] (AG-10). Active runs go on;
    /// use [`Engine::kill_all`] to end them.
    pub fn disable(&mut self) {
        self.disabled = true;
    }

    /// Accepts new runs again.
    pub fn enable(&mut self) {
        self.disabled = false;
    }

    /// Reconciles a restored engine (startup, reconnect, wake): expires
    /// questions past their deadline (their runs return `question-expired`),
    /// then ends every run a previous engine instance left active —
    /// `returned{aborted, interrupted}`. Idempotent: a second call right
    /// after changes nothing.
    pub fn reconcile(&mut self, now: u64) -> Reconciliation {
        let overdue: Vec<RunId> = self
            .questions
            .all()
            .filter(|question| question.state.is_open() && now >= question.deadline_at)
            .map(|question| question.run.clone())
            .collect();
        let mut result = Reconciliation::default();
        for id in &overdue {
            let expired = self.with_run(now, id, |run, step| {
                run.abandon(step, Outcome::Error, ReturnReason::QuestionExpired);
            });
            result.expired += u32::from(expired.is_some());
        }
        // Questions whose run is unknown here close too, so none stays open forever.
        for question in self.questions.by_id.values_mut() {
            if question.state.is_open() && now >= question.deadline_at {
                question.set_state(QuestionState::Expired { at: now });
            }
        }
        let active: Vec<RunId> = self.active_runs().map(|run| run.id().clone()).collect();
        for id in &active {
            self.with_run(now, id, |run, step| {
                run.abandon(step, Outcome::Aborted, ReturnReason::Interrupted);
            });
        }
        result.interrupted = u32::try_from(active.len()).unwrap_or(u32::MAX);
        let dropped = self.shared.grants.expire(now);
        result.grants_dropped = u32::try_from(dropped).unwrap_or(u32::MAX);
        result
    }

    // ----- questions (AG-41) -------------------------------------------------

    /// A question by id.
    pub fn question(&self, id: &QuestionId) -> Option<&Question> {
        self.questions.get(id)
    }

    /// Every question, oldest first.
    pub fn questions(&self) -> impl Iterator<Item = &Question> {
        self.questions.all()
    }

    /// Answers a question. The answer names the question and the digest of
    /// its request, must satisfy the question's schema (or be text when it
    /// has none), and fails closed on any mismatch. The acceptance and the
    /// run's state change are recorded in one step; an identical retry
    /// returns the original acceptance, a different one is a conflict.
    pub fn answer(
        &mut self,
        now: u64,
        id: &QuestionId,
        digest: &Digest,
        answer: Value,
    ) -> Result<Acceptance, AnswerError> {
        let run = self.settle_question_run(now, id)?;
        if let Some(original) = self.questions.check_answer(now, id, digest, &answer)? {
            return Ok(original);
        }
        let answer_digest = Digest::of_json(&answer);
        let state = QuestionState::Answered {
            answer: answer.clone(),
            answer_digest,
            at: now,
            revision: 0,
        };
        let revision = self
            .with_run(now, &run, |run, step| {
                run.resume_after_question(step, AnswerOutcome::Answered { answer }, state)
            })
            .ok_or_else(|| AnswerError::UnknownQuestion(id.clone()))?;
        Ok(Acceptance {
            question: id.clone(),
            run,
            answer_digest,
            at: now,
            revision,
        })
    }

    /// Declines a question: the acting party hears that the person would
    /// rather not answer, and the run goes on.
    pub fn decline(&mut self, now: u64, id: &QuestionId) -> Result<(), AnswerError> {
        self.close_question(
            now,
            id,
            AnswerOutcome::Declined,
            QuestionState::Declined { at: now },
        )
    }

    /// Dismisses a question: it leaves the person's view, the acting party
    /// hears it was dismissed, and the run goes on.
    pub fn dismiss(&mut self, now: u64, id: &QuestionId) -> Result<(), AnswerError> {
        self.close_question(
            now,
            id,
            AnswerOutcome::Dismissed,
            QuestionState::Dismissed { at: now },
        )
    }

    /// Postpones a question until `until`: it stays open, out of the
    /// `actionRequired` count until then, and still expires at its deadline.
    pub fn postpone(&mut self, now: u64, id: &QuestionId, until: u64) -> Result<(), AnswerError> {
        let run = self.settle_question_run(now, id)?;
        let question = self.questions.check_closable(now, id)?;
        question.set_state(QuestionState::Postponed { until });
        self.with_run(now, &run, |run, step| {
            run.record(
                step,
                Actor::Person,
                JournalEntry::QuestionPostponed {
                    question: id.clone(),
                    until,
                },
            );
        });
        Ok(())
    }

    fn close_question(
        &mut self,
        now: u64,
        id: &QuestionId,
        outcome: AnswerOutcome,
        state: QuestionState,
    ) -> Result<(), AnswerError> {
        let run = self.settle_question_run(now, id)?;
        self.questions.check_closable(now, id)?;
        self.with_run(now, &run, |run, step| {
            run.resume_after_question(step, outcome, state);
        });
        Ok(())
    }

    /// Applies what is due on the question's run first, so an answer that
    /// arrives after the deadline finds the question expired.
    fn settle_question_run(&mut self, now: u64, id: &QuestionId) -> Result<RunId, AnswerError> {
        let run = self
            .questions
            .get(id)
            .map(|question| question.run.clone())
            .ok_or_else(|| AnswerError::UnknownQuestion(id.clone()))?;
        self.with_run(now, &run, |run, step| run.settle(step));
        Ok(run)
    }

    /// Content-free counts for a badge: what is pending, never what it says.
    pub fn counters(&self, now: u64) -> Counters {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let questions = || self.questions.all().filter(|q| q.state.is_open());
        let escalations = self.active_runs().filter(|run| {
            matches!(run.state(), RunState::Escalated { reason } if !matches!(reason, EscalationReason::AwaitingAnswer { .. }))
        });
        Counters {
            action_required: count(
                questions().filter(|q| q.needs_attention(now)).count() + escalations.count(),
            ),
            awaiting_review: count(
                self.active_runs()
                    .filter(|run| *run.state() == RunState::Reviewing)
                    .count(),
            ),
            awaiting_agent: count(
                self.active_runs()
                    .filter(|run| run.open_turn().is_some())
                    .count(),
            ),
            overdue: count(questions().filter(|q| now >= q.deadline_at).count()),
            failed: count(
                self.runs()
                    .filter(|run| {
                        matches!(
                            run.state(),
                            RunState::Returned {
                                outcome: Outcome::Error,
                                ..
                            }
                        )
                    })
                    .count(),
            ),
        }
    }

    // ----- inputs ----------------------------------------------------------

    /// Traffic from the acting party. It never fails: traffic that does not
    /// belong to an open turn is recorded as a finding and changes nothing —
    /// arrival never starts or revives a run.
    pub fn handle_inbound(&mut self, now: u64, id: &RunId, turn: TurnId, inbound: Inbound) {
        let Some(run) = self.runs.get(id) else {
            let mut step = self.step(now);
            Run::finding(
                &mut step,
                Some(id.clone()),
                Some(turn),
                FindingReason::UnknownRun,
            );
            return;
        };
        let input = match inbound {
            Inbound::ToolCall {
                call,
                capability,
                arguments,
            } => TurnInput::Call(ProposedCall {
                call,
                capability,
                arguments,
            }),
            Inbound::Question {
                request,
                prompt,
                schema,
                deadline_ms,
                expires_at,
            } => TurnInput::Question(AskedQuestion {
                request,
                prompt,
                schema,
                deadline_ms,
                expires_at,
            }),
            Inbound::TurnEnd => TurnInput::End,
            Inbound::TurnFailed { message } => TurnInput::Failed(message),
            Inbound::TransportLost { message } => TurnInput::Lost(message),
            Inbound::Malformed { detail } => TurnInput::Malformed(detail),
        };
        let input_rank = run
            .accepts_turn(turn)
            .then(|| run.input_cause(&input))
            .flatten()
            .map(|cause| cause.precedence());
        let due_rank = run.due_cause(now).map(|cause| cause.precedence());
        self.with_run(now, id, |run, step| {
            if due_rank.is_some_and(|due| input_rank.is_none_or(|input| due <= input)) {
                run.settle(step);
            }
            if run.accepts_turn(turn) {
                run.turn_input(step, input);
            } else {
                Run::finding(
                    step,
                    Some(run.id().clone()),
                    Some(turn),
                    FindingReason::OutsideOpenTurn,
                );
            }
        });
    }

    /// Traffic that arrived on a turn's stream after the turn had ended —
    /// events after its end, a second end. It is recorded as a finding and
    /// changes nothing: a run is never acted on by what follows its turn.
    /// A host reports it once per turn, however much follows.
    pub fn handle_stray_traffic(&mut self, now: u64, id: &RunId, turn: TurnId) {
        let mut step = self.step(now);
        Run::finding(
            &mut step,
            Some(id.clone()),
            Some(turn),
            FindingReason::AfterTurnEnded,
        );
    }

    /// A participant's answer to [`crate::Effect::Mark`].
    pub fn handle_mark(
        &mut self,
        now: u64,
        id: &RunId,
        participant: &ParticipantId,
        result: Result<MarkToken, String>,
    ) -> Result<(), ReportError> {
        let failed = result.is_err();
        self.report(now, id, failed, |run, step| {
            if !run.is_awaiting_mark(participant) {
                return Err(ReportError::NotWaitingFor {
                    run: run.id().clone(),
                    participant: participant.clone(),
                });
            }
            run.mark_result(step, participant.clone(), result);
            Ok(())
        })
    }

    /// A participant's answer to [`crate::Effect::Preview`]: its rendering
    /// of the change, or why it could not render one.
    pub fn handle_preview(
        &mut self,
        now: u64,
        id: &RunId,
        call: &CallId,
        result: Result<Value, String>,
    ) -> Result<(), ReportError> {
        self.report(now, id, false, |run, step| {
            if !run.is_awaiting_preview(call) {
                return Err(ReportError::NoSuchCall {
                    run: run.id().clone(),
                    call: call.clone(),
                });
            }
            run.preview_result(step, call.clone(), result);
            Ok(())
        })
    }

    /// What the person reviews, while a run is under review (AG-31).
    pub fn review(&self, id: &RunId) -> Option<ReviewSheet> {
        self.runs.get(id)?.review_sheet(&self.shared.registry)
    }

    /// A participant's answer to [`crate::Effect::Invoke`].
    pub fn handle_call_result(
        &mut self,
        now: u64,
        id: &RunId,
        call: &CallId,
        result: CallResult,
    ) -> Result<(), ReportError> {
        let failed = matches!(result, CallResult::Failed { .. });
        self.report(now, id, failed, |run, step| {
            if run.call_in_flight().map(|c| &c.call) != Some(call) {
                return Err(ReportError::NoSuchCall {
                    run: run.id().clone(),
                    call: call.clone(),
                });
            }
            run.call_result(step, result);
            Ok(())
        })
    }

    /// A participant's answer to [`crate::Effect::Revert`]: `Err` carries
    /// why the revert failed, which is reported, never hidden.
    pub fn handle_revert_result(
        &mut self,
        now: u64,
        id: &RunId,
        participant: &ParticipantId,
        result: Result<(), String>,
    ) -> Result<(), ReportError> {
        let undoing = self
            .runs
            .get(id)
            .is_some_and(|run| run.is_undoing(participant));
        if undoing {
            self.with_run(now, id, |run, step| {
                run.undo_revert_result(step, participant.clone(), result.err());
            });
            return Ok(());
        }
        self.report(now, id, false, |run, step| {
            if !run.is_awaiting_revert(participant) {
                return Err(ReportError::NotWaitingFor {
                    run: run.id().clone(),
                    participant: participant.clone(),
                });
            }
            run.revert_result(step, participant.clone(), result.err());
            Ok(())
        })
    }

    /// Admits a mutation (AG-1). No actor reference means the person, who may
    /// always act (AG-32). A reference is admitted only if this engine minted
    /// it (AG-33) and it names the call in flight of an active run.
    pub fn admit_mutation(&self, actor: Option<&ActorRef>) -> Result<Attribution, MutationRefused> {
        let Some(actor) = actor else {
            return Ok(Attribution::Person);
        };
        let refused = || MutationRefused::OutsideRun {
            actor: actor.to_string(),
        };
        let identity = self.resolve_actor(actor).ok_or_else(refused)?;
        let in_flight = self
            .runs
            .get(&identity.run)
            .filter(|run| !run.state().is_terminal())
            .and_then(Run::call_in_flight)
            .is_some_and(|call| call.call == identity.call);
        if in_flight {
            Ok(Attribution::Delegated(identity))
        } else {
            Err(refused())
        }
    }

    /// What a reference names, if this engine minted it; a forged, altered
    /// or foreign reference resolves to nothing (AG-33).
    pub fn resolve_actor(&self, actor: &ActorRef) -> Option<ActorIdentity> {
        crate::actor::verify(&self.shared.secret, actor)
            .filter(|identity| identity.session == self.shared.config.session)
    }

    /// The actor reference of the call in flight in a run, as handed to the
    /// participant with the invocation (AG-32).
    pub fn actor_for(&self, id: &RunId) -> Option<ActorRef> {
        let call = self.runs.get(id)?.call_in_flight()?;
        Some(crate::actor::mint(
            &self.shared.secret,
            &ActorIdentity {
                session: self.shared.config.session.clone(),
                run: id.clone(),
                call: call.call.clone(),
            },
        ))
    }

    // ----- plumbing --------------------------------------------------------

    fn step(&mut self, now: u64) -> Step<'_> {
        Step::new(now, &mut self.out, &self.shared, &mut self.questions)
    }

    fn with_run<T>(
        &mut self,
        now: u64,
        id: &RunId,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> T,
    ) -> Option<T> {
        let run = self.runs.get_mut(id)?;
        let mut step = Step::new(now, &mut self.out, &self.shared, &mut self.questions);
        Some(body(run, &mut step))
    }

    /// A decision of the person: due timers apply first (they outrank it),
    /// then the revision fence, then the decision.
    fn command(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: Option<u64>,
        command: &'static str,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> Result<(), CommandError>,
    ) -> Result<(), CommandError> {
        self.with_run(now, id, |run, step| {
            run.settle(step);
            if run.state().is_terminal() {
                return Err(illegal(run, command));
            }
            if let Some(expected) = expected_revision {
                if expected != run.revision() {
                    return Err(CommandError::StaleRevision {
                        run: run.id().clone(),
                        expected,
                        actual: run.revision(),
                    });
                }
            }
            body(run, step)
        })
        .unwrap_or_else(|| Err(CommandError::UnknownRun(id.clone())))
    }

    /// Stop and pause outrank every timer cause, so they apply before any.
    fn terminal_command(
        &mut self,
        now: u64,
        id: &RunId,
        command: &'static str,
        reason: ReturnReason,
    ) -> Result<(), CommandError> {
        self.with_run(now, id, |run, step| {
            if run.state().is_terminal() {
                return Err(illegal(run, command));
            }
            run.close(step, Actor::Person, reason);
            Ok(())
        })
        .unwrap_or_else(|| Err(CommandError::UnknownRun(id.clone())))
    }

    /// A host report. A failure it carries is an explicit cause that outranks
    /// timers; otherwise timers that are due apply first.
    fn report(
        &mut self,
        now: u64,
        id: &RunId,
        carries_failure: bool,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> Result<(), ReportError>,
    ) -> Result<(), ReportError> {
        self.with_run(now, id, |run, step| {
            if !carries_failure {
                run.settle(step);
            }
            if run.state().is_terminal() {
                return Err(ReportError::RunEnded(run.id().clone()));
            }
            body(run, step)
        })
        .unwrap_or_else(|| Err(ReportError::UnknownRun(id.clone())))
    }

    fn mint_run_id(&mut self) -> RunId {
        let id = RunId::new(format!("{}/r{}", self.shared.config.session, self.next_run));
        self.next_run += 1;
        id
    }

    fn check_budget(&self, budget: &Budget, source: PlanSource) -> Result<(), String> {
        if !budget.within(&self.shared.config.max_budget) {
            return Err(format!(
                "{budget:?} exceeds the engine's maximum {:?}",
                self.shared.config.max_budget
            ));
        }
        if budget.run_deadline_ms == 0 || budget.turn_deadline_ms == 0 {
            return Err("deadlines must be positive".into());
        }
        if source == PlanSource::ActingParty && budget.max_turns == 0 {
            return Err("an acting party needs at least one turn".into());
        }
        Ok(())
    }

    fn charge_quota(&mut self, now: u64) -> Result<(), DelegateError> {
        while self
            .quota_starts
            .front()
            .is_some_and(|start| now >= start.saturating_add(HOUR_MS))
        {
            self.quota_starts.pop_front();
        }
        if self.quota_starts.len() >= self.shared.config.hourly_quota as usize {
            let oldest = self.quota_starts.front().copied().unwrap_or(now);
            return Err(DelegateError::QuotaExceeded {
                quota: self.shared.config.hourly_quota,
                retry_at: oldest.saturating_add(HOUR_MS),
            });
        }
        self.quota_starts.push_back(now);
        Ok(())
    }
}

fn illegal(run: &Run, command: &'static str) -> CommandError {
    CommandError::IllegalTransition {
        run: run.id().clone(),
        state: run.state().name(),
        command,
    }
}

/// A budget fixed by the person may replace the asked one, within the
/// engine's maximum and never below what the run already used.
fn check_raise(budget: &Budget, run: &Run, ceiling: &Budget) -> Result<(), CommandError> {
    if !budget.within(ceiling) {
        return Err(CommandError::InvalidBudget(format!(
            "{budget:?} exceeds the engine's maximum {ceiling:?}"
        )));
    }
    let usage = run.usage();
    if budget.max_turns < usage.turns || budget.max_calls < usage.calls {
        return Err(CommandError::InvalidBudget(format!(
            "{budget:?} is below what the run already used ({usage:?})"
        )));
    }
    if budget.run_deadline_ms == 0 || budget.turn_deadline_ms == 0 {
        return Err(CommandError::InvalidBudget(
            "deadlines must be positive".into(),
        ));
    }
    Ok(())
}
