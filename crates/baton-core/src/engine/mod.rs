//! The engine: one session's runs, driven by inputs and polled for events.
//!
//! `mod.rs` holds the engine's state, its construction and what it shows;
//! each concern of its API has a file: `decisions` (the person's and the
//! host's decisions about runs), `answers` (the person's answers to
//! questions, AG-41), `inputs` (the acting party's traffic and the
//! participants' reports), `participants` (manifests, tools and reads),
//! `cut_off` (what a reload cut off, offered again), `snapshot` (what a
//! store keeps, and restoring from it), `retention` (which finished runs
//! leave memory), `routing` (how a command or a report reaches a run) and
//! `admission` (a new run's id, autonomy, budget and quota).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::actor::{ActorIdentity, ActorRef, ActorSecret, Attribution};
use crate::attention::ReadCandidate;
use crate::changes::{ChangedBy, Changes, UndoScope};
use crate::config::EngineConfig;
use crate::context::{ReadRef, ReadStamp};
use crate::delegation::Delegation;
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
use crate::registry::{RegisterError, Registry};
use crate::run::decisions::EscalationSheet;
use crate::run::review::ReviewSheet;
use crate::run::{AskedQuestion, Charter, PlanSource, ProposedCall, Run, Step, TurnInput};
use crate::state::{EscalationReason, Outcome, Resolution, ReturnReason, RunState};
use baton_schema::digest::Digest;

const HOUR_MS: u64 = 60 * 60 * 1000;

/// How an engine takes part in a kill that spans more than itself
/// ([`Kill`]).
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

/// The custody machine of one session: sans-IO, deterministic, never panics.
///
/// Everything it is told goes in through one door, [`Engine::handle`], with
/// the current time in milliseconds: the app's and the person's commands
/// ([`Delegate`], [`Authorize`], [`Stop`], …), the acting party's traffic and
/// time ([`Signal`]), and the hosts' [`Report`](crate::Report)s. The
/// engine answers with [`Event`]s from [`Engine::poll_event`] — journal
/// records to persist, effects for the host to carry out, findings — and says
/// through [`Engine::poll_timeout`] when it wants [`Signal::Timeout`].
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
/// let manifest = engine.handle(0, ParseManifest(r#"{
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
/// }"#.into())).unwrap();
/// engine.handle(0, Register { manifest, instance: None }).unwrap();
/// let rename = CapabilityRef::new("tasks", "rename");
///
/// let mut now = 1_000;
/// let run = engine
///     .handle(now, Delegate(Delegation::new("Rename task 3", Initiative::User, Autonomy::Auto)
///         .with_plan(vec![PlannedCall { capability: rename, arguments: json!({"id": 3, "title": "Ship"}) }])))
///     .unwrap();
///
/// loop {
///     while let Some(event) = engine.poll_event() {
///         match event {
///             Event::Effect(Effect::Mark { run, participant }) => {
///                 let token = Ok(MarkToken::new("m1"));
///                 engine.handle(now, Report::Mark { run, participant, token }).unwrap();
///             }
///             Event::Effect(Effect::Invoke { run, call, .. }) => {
///                 // …the participant applies the change here…
///                 let result = CallResult::Applied { value: json!({"ok": true}) };
///                 engine.handle(now, Report::Call { run, call, result }).unwrap();
///             }
///             Event::Journal(record) => { /* append to the store */ let _ = record; }
///             _ => {}
///         }
///     }
///     match engine.poll_timeout() {
///         Some(at) if engine.run(&run).is_some_and(|r| !r.state().is_terminal()) => {
///             now = at;
///             engine.handle(now, Signal::Timeout);
///         }
///         _ => break,
///     }
/// }
/// assert_eq!(
///     engine.run(&run).unwrap().state(),
///     &RunState::Returned { outcome: Outcome::Completed, reason: ReturnReason::PlanCompleted, refused: 0 }
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
    /// [`Written`]).
    written: BTreeMap<RunId, u64>,
    /// The header as last handed out by [`Engine::take_header_changed`].
    header_seen: Option<snapshot::HeaderSeen>,
    /// Who changed each participant last, for undo (A.2).
    changes: Changes,
    /// Which call a participant's next change is (A.2; not persisted: it
    /// lasts a call and [`CALL_SETTLES_MS`] after).
    settling: settling::Settling,
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
    ///
    /// Its header is the one a session without a stored header opens with,
    /// so there is nothing to write until it changes
    /// ([`Engine::take_header_changed`]): opening a new session writes
    /// nothing, and its first step writes the header with its rows.
    pub fn new(config: EngineConfig, secret: ActorSecret) -> Self {
        let mut engine = Engine {
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
            changes: Changes::default(),
            settling: settling::Settling::default(),
        };
        engine.take_header_changed();
        engine
    }

    /// The settings.
    pub fn config(&self) -> &EngineConfig {
        &self.shared.config
    }

    /// Gives a persistent grant ("always allow", "never allow") with a scope
    /// and a time to live (AG-30).
    pub(crate) fn grant(
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
    pub(crate) fn set_agent_state(&mut self, state: Value) {
        self.shared.agent_state = state;
    }

    /// Updates the `to-agent` state with a JSON Patch (RFC 6902) between
    /// turns. The patch applies whole or not at all.
    pub(crate) fn patch_agent_state(&mut self, patch: &Value) -> Result<(), AgentStateError> {
        self.shared.agent_state = crate::patch::apply_patch(&self.shared.agent_state, patch)
            .map_err(|error| AgentStateError(error.to_string()))?;
        Ok(())
    }

    /// The `to-agent` state the next turn carries.
    pub fn agent_state(&self) -> &Value {
        &self.shared.agent_state
    }

    /// A presence surface began rendering the cycle (AG-35).
    pub(crate) fn attach_presence(&mut self) {
        self.shared.presences += 1;
    }

    /// A presence surface stopped rendering the cycle.
    pub(crate) fn detach_presence(&mut self) {
        self.shared.presences = self.shared.presences.saturating_sub(1);
    }

    /// How many presence surfaces are attached.
    pub fn presences(&self) -> u32 {
        self.shared.presences
    }

    /// Revokes a grant.
    pub(crate) fn revoke_grant(&mut self, id: u64) -> bool {
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

    /// Every run, in id order.
    pub fn runs(&self) -> impl Iterator<Item = &Run> {
        self.runs.values()
    }

    /// Runs that have not reached a terminal state.
    pub(crate) fn active_runs(&self) -> impl Iterator<Item = &Run> {
        self.runs.values().filter(|run| !run.state().is_terminal())
    }

    /// The most recent integrity findings, oldest first: never more than
    /// twice [`crate::FINDINGS_KEPT`] (every one was also an [`Event::Finding`]).
    pub fn findings(&self) -> &[Finding] {
        &self.out.findings
    }

    // ----- the loop --------------------------------------------------------

    /// The next event, in the order the engine produced them.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.out.events.pop_front()
    }

    /// When the engine next needs to be told [`Signal::Timeout`], if ever.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.runs.values().filter_map(Run::next_timeout).min()
    }

    /// [`Signal::Timeout`]: applies every deadline that has passed by `now`.
    fn timeout(&mut self, now: u64) {
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

mod admission;
mod answers;
mod commands;
mod cut_off;
mod decisions;
mod inputs;
mod participants;
mod retention;
mod routing;
mod settling;
mod snapshot;
mod views;

pub use commands::{
    AddGrant, Adopt, Answer, AttachPresence, Authorize, Decline, Delegate, DetachPresence, Disable,
    Discard, Dismiss, EditCall, Enable, Input, InterruptAll, Kill, ParseManifest, PatchAgentState,
    Pause, Postpone, PublishRead, PullReads, Reconcile, Register, RegisterText, Reject,
    ReleaseFinished, ResolveEscalation, Resume, ReviewCutOff, RevokeGrant, SetAgentState, Stop,
    TakeOffered, Undo, Unregister, WithdrawRead, Written,
};
pub use inputs::Signal;
pub use settling::CALL_SETTLES_MS;
pub use views::{ActorsView, QuestionsView, RunView};

use crate::authorization::Authorization;
pub use retention::FINISHED_RUNS_KEPT;
pub use snapshot::EngineSnapshot;
