//! The engine: one session's runs, driven by inputs and polled for events.
//!
//! `mod.rs` holds the engine's state, its construction and what it shows;
//! each concern of its API has a file: `commands` (the person's and the
//! host's decisions), `questions` (AG-41), `inputs` (the acting party's
//! traffic and the participants' reports), `plumbing` (how a command reaches
//! a run), and `authorization` (what an authorization carries).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::actor::{ActorIdentity, ActorRef, ActorSecret, Attribution};
use crate::attention::ReadCandidate;
use crate::config::EngineConfig;
use crate::context::{ReadRef, ReadStamp};
use crate::delegation::Delegation;
use crate::digest::Digest;
use crate::error::{
    AgentStateError, CommandError, DelegateError, MutationRefused, PublishError,
    RegistrationRefused, ReportError,
};
use crate::event::{Event, Finding, FindingReason};
use crate::grants::{Decision, Grant, GrantError, GrantScope, Grants, ListedGrant};
use crate::ids::{CallId, MarkToken, ParticipantId, QuestionId, RunId, TurnId};
use crate::journal::{Actor, CallResult};
use crate::manifest::{Manifest, ManifestError};
use crate::model::Budget;
use crate::protocol::{DeepRead, Inbound};
use crate::questions::{
    Acceptance, AnswerError, AnswerOutcome, Counters, Question, QuestionState, Questions,
    Reconciliation,
};
use crate::registry::{RegisterError, Registry, Tool};
use crate::run::escalation::EscalationSheet;
use crate::run::review::ReviewSheet;
use crate::run::{AskedQuestion, Charter, PlanSource, ProposedCall, Run, Step, TurnInput};
use crate::state::{EscalationReason, Outcome, Resolution, ReturnReason, RunState};

const HOUR_MS: u64 = 60 * 60 * 1000;

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
    /// How far the caller's store holds each run's journal (see
    /// [`Engine::written`]).
    written: BTreeMap<RunId, u64>,
    /// The header as last handed out by [`Engine::take_header_changed`].
    header_seen: Option<String>,
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
    /// The most recent findings (see [`crate::FINDINGS_KEPT`]); every one is also
    /// an event.
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
            written: BTreeMap::new(),
            header_seen: None,
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
            .map(|run| (run.id().clone(), run))
            .collect();
        engine.quota_starts = snapshot.quota_starts.into();
        engine.next_run = snapshot.next_run;
        engine.disabled = snapshot.disabled;
        engine.shared.grants = snapshot.grants;
        engine.questions = snapshot.questions;
        // What was restored is what the store holds.
        engine.take_header_changed();
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

    /// Whether the header ([`Engine::header`]) differs from the one this was
    /// last asked about: what a store must write again. Disabling, grants
    /// given, revoked or dropped change it without a journal record; the
    /// first ask of a new engine is always yes.
    pub fn take_header_changed(&mut self) -> bool {
        let header = serde_json::to_string(&self.header()).unwrap_or_default();
        let changed = self.header_seen.as_deref() != Some(header.as_str());
        self.header_seen = Some(header);
        changed
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
    ///
    /// A plan under review that was planned on another version of the read
    /// is superseded (A.2): a `review-superseded` record moves its revision
    /// and its sheet marks the stale acts ([`crate::ReviewItem::stale`]).
    pub fn publish_read(&mut self, now: u64, stamp: ReadStamp) -> Result<ReadStamp, PublishError> {
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
        // A plan under review that was planned on another version of this
        // read is superseded (A.2): the sheet marks its stale acts.
        let superseded: Vec<RunId> = self
            .runs
            .values()
            .filter(|run| run.superseded_by(&self.shared.registry, &stamp))
            .map(|run| run.id().clone())
            .collect();
        self.shared.reads.insert(stamp.read.clone(), stamp.clone());
        for id in superseded {
            self.with_run(now, &id, |run, step| {
                run.supersede_review(step, stamp.read.clone())
            });
        }
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
    pub fn grants(&self, now: u64) -> Vec<ListedGrant> {
        let grants = &self.shared.grants;
        grants
            .all()
            .map(|grant| ListedGrant {
                grant: grant.clone(),
                live: grants.is_live(grant, now, &self.shared.registry),
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

    /// The most recent integrity findings, oldest first: never more than
    /// twice [`crate::FINDINGS_KEPT`] (every one was also an [`Event::Finding`]).
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
}

mod commands;
mod inputs;
mod plumbing;
mod questions;
mod retention;

use crate::authorization::Authorization;
pub use retention::FINISHED_RUNS_KEPT;
