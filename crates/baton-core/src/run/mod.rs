//! One run and the rules that move it. The [`crate::Engine`] owns runs and
//! routes inputs to them; everything that decides a run's fate is here.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::actor::{ActorIdentity, ActorRef, ActorSecret};
use crate::context::{Context, ReadRef, ReadStamp};
use crate::digest::Digest;
use crate::engine::EngineConfig;
use crate::event::{CallReport, Effect, Event, Finding, FindingReason};
use crate::grants::Grants;
use crate::ids::{CallId, CapabilityRef, MarkToken, ParticipantId, QuestionId, RunId, TurnId};
use crate::journal::{Actor, CallResult, JournalEntry, JournalRecord};
use crate::model::{Autonomy, Budget, Initiative, Usage};
use crate::protocol::TurnRequest;
use crate::registry::Registry;
use crate::state::{CancelReason, EscalationReason, Outcome, ReturnReason, RunState, StateName};

/// The most questions one turn may ask; more is an integrity violation
/// (bounded, like every other thing a stream can accumulate).
pub(crate) const MAX_QUESTIONS_PER_TURN: usize = 8;

/// A capability call proposed by the acting party or by a fixed plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProposedCall {
    /// Unique within the run.
    pub call: CallId,
    /// What to invoke.
    pub capability: CapabilityRef,
    /// With what.
    pub arguments: Value,
}

/// Where a run's calls come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanSource {
    /// An acting party plans in turns over a transport.
    ActingParty,
    /// The plan was given whole at delegation (a macro, a rule); no turns (AG-3).
    Fixed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct OpenTurn {
    pub id: TurnId,
    pub deadline_at: u64,
    pub context: Context,
    /// The questions asked in this turn, in order.
    pub questions: Vec<AskedQuestion>,
    pub proposals: Vec<ProposedCall>,
}

/// The question a run waits on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct OpenQuestion {
    pub id: QuestionId,
    pub deadline_at: u64,
}

/// A question as the acting party asked it (AG-48: a request id, a prompt,
/// an optional schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AskedQuestion {
    pub request: String,
    pub prompt: String,
    pub schema: Option<Value>,
    pub deadline_ms: Option<u64>,
    /// When the acting party stops waiting for the answer (epoch ms).
    #[serde(default)]
    pub expires_at: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum MarkState {
    Pending,
    Taken(MarkToken),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Escalation {
    pub reason: EscalationReason,
    pub deadline_at: u64,
}

/// What an authorization was computed on (AG-29): the reads it saw, bound by
/// a fingerprint, the autonomy it resolved to, and when it lapses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuthorizationRecord {
    pub fingerprint: Digest,
    /// The stamps fingerprinted, advanced by the run's own writes.
    #[serde(with = "crate::context::stamps")]
    pub baseline: BTreeMap<ReadRef, ReadStamp>,
    /// The run-level autonomy the context resolved to.
    pub level: Autonomy,
    pub expires_at: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Rollback {
    pub cause: ReturnReason,
    /// Participants still to be asked, in order.
    pub remaining: VecDeque<ParticipantId>,
    /// The participant whose revert is outstanding.
    pub awaiting: Option<ParticipantId>,
    /// Reverts wait for a call that was in flight when the run closed.
    pub waiting_for_call: bool,
    pub failed: Vec<ParticipantId>,
    pub deadline_at: u64,
}

/// One delegation: its custody state, budget, scope, and what it touched.
///
/// Serializable as a snapshot of live state; the journal is kept beside it
/// (see [`Run::journal`]) and is not part of the snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub(crate) id: RunId,
    pub(crate) intent: String,
    pub(crate) initiative: Initiative,
    /// The person's choice.
    pub(crate) requested: Autonomy,
    /// The run-level resolution of the person's choice (AG-24, AG-26).
    pub(crate) autonomy: Autonomy,
    pub(crate) source: PlanSource,
    pub(crate) resumes: Option<RunId>,
    pub(crate) state: RunState,
    pub(crate) revision: u64,
    pub(crate) budget: Budget,
    pub(crate) usage: Usage,
    pub(crate) created_at: u64,
    pub(crate) deadline_at: u64,
    pub(crate) plan: Vec<ProposedCall>,
    pub(crate) allowlist: BTreeSet<CapabilityRef>,
    pub(crate) queue: VecDeque<ProposedCall>,
    pub(crate) seen_calls: BTreeSet<CallId>,
    pub(crate) turn: Option<OpenTurn>,
    pub(crate) in_flight: Option<ProposedCall>,
    pub(crate) marks: BTreeMap<ParticipantId, MarkState>,
    /// Capabilities whose calls were dispatched and not refused, in order.
    pub(crate) mutated: Vec<CapabilityRef>,
    pub(crate) reports: Vec<CallReport>,
    pub(crate) escalation: Option<Escalation>,
    pub(crate) rollback: Option<Rollback>,
    pub(crate) resumable: bool,
    /// What the acting party last saw of each read: the latest turn's
    /// context, advanced by the run's own writes (AG-20).
    #[serde(with = "crate::context::stamps")]
    pub(crate) seen: BTreeMap<ReadRef, ReadStamp>,
    pub(crate) authorization: Option<AuthorizationRecord>,
    /// Whether the person (not the engine) authorized the run.
    pub(crate) person_authorized: bool,
    /// Calls the person approved one by one (the reviewed plan, escalations).
    pub(crate) approved: BTreeSet<CallId>,
    /// The proposed changes under review, by call (AG-31).
    pub(crate) previews: BTreeMap<CallId, crate::run::review::ProposedChange>,
    /// The question the run waits on.
    pub(crate) question: Option<OpenQuestion>,
    /// Questions the acting party asked, put to the person one at a time
    /// once the calls of their turn are done; the next turn is sent only
    /// when every one of them is closed.
    #[serde(default)]
    pub(crate) pending_questions: VecDeque<AskedQuestion>,
    /// What became of the acting party's questions, for the next turn.
    pub(crate) answers: Vec<crate::questions::AnswerReport>,
    /// Which instance the person chose for an ambiguous call (AG-23).
    pub(crate) choices: BTreeMap<CallId, ParticipantId>,
    /// Request ids of the acting party's questions, never reused.
    pub(crate) asked: Vec<String>,
    /// Whether the person undid the run (one undo per run).
    #[serde(default)]
    pub(crate) undone: bool,
    /// An undo under way.
    #[serde(default)]
    pub(crate) undoing: Option<crate::run::undo::Undoing>,
    /// Whether the plan's start was announced (once per plan, AG-37).
    #[serde(default)]
    pub(crate) plan_announced: bool,
    /// The concrete changes the person approved, by call (AG-29, AG-31).
    #[serde(default)]
    pub(crate) approved_previews: BTreeMap<CallId, crate::run::review::ProposedChange>,
    /// Previews rendered again after drift, before dispatch goes on.
    #[serde(default)]
    pub(crate) recheck: Option<crate::run::drift::Recheck>,
    /// The review under way was caused by drift or a lapsed authorization:
    /// why, and its authorization binds the reads as they are now.
    #[serde(default)]
    pub(crate) review_again: Option<crate::run::review::ReviewAgain>,
    #[serde(skip)]
    pub(crate) journal: Vec<JournalRecord>,
}

/// The engine-wide context a run step works in.
pub(crate) struct Step<'a> {
    pub now: u64,
    pub events: &'a mut VecDeque<Event>,
    pub findings: &'a mut Vec<Finding>,
    pub config: &'a EngineConfig,
    pub registry: &'a Registry,
    pub reads: &'a BTreeMap<ReadRef, ReadStamp>,
    pub grants: &'a Grants,
    pub secret: &'a ActorSecret,
    pub questions: &'a mut crate::questions::Questions,
    pub presences: u32,
    pub agent_state: &'a serde_json::Value,
    /// Set while a kill ends runs: their closings are one announcement.
    pub hush_closings: bool,
}

/// What an inbound message does to the open turn.
pub(crate) enum TurnInput {
    Call(ProposedCall),
    Question(AskedQuestion),
    End,
    Failed(String),
    Lost(String),
    Malformed(String),
}

impl Run {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        id: RunId,
        intent: String,
        initiative: Initiative,
        requested: Autonomy,
        autonomy: Autonomy,
        source: PlanSource,
        budget: Budget,
        resumes: Option<RunId>,
        now: u64,
    ) -> Self {
        Run {
            id,
            intent,
            initiative,
            requested,
            autonomy,
            source,
            resumes,
            state: RunState::Offered,
            revision: 0,
            budget,
            usage: Usage::default(),
            created_at: now,
            deadline_at: now.saturating_add(budget.run_deadline_ms),
            plan: Vec::new(),
            allowlist: BTreeSet::new(),
            queue: VecDeque::new(),
            seen_calls: BTreeSet::new(),
            turn: None,
            in_flight: None,
            marks: BTreeMap::new(),
            mutated: Vec::new(),
            reports: Vec::new(),
            escalation: None,
            rollback: None,
            resumable: false,
            seen: BTreeMap::new(),
            authorization: None,
            person_authorized: false,
            approved: BTreeSet::new(),
            previews: BTreeMap::new(),
            question: None,
            pending_questions: VecDeque::new(),
            answers: Vec::new(),
            choices: BTreeMap::new(),
            asked: Vec::new(),
            undone: false,
            undoing: None,
            plan_announced: false,
            approved_previews: BTreeMap::new(),
            recheck: None,
            review_again: None,
            journal: Vec::new(),
        }
    }

    // ----- read access -------------------------------------------------------

    /// The run's id.
    pub fn id(&self) -> &RunId {
        &self.id
    }
    /// The person's intent, verbatim.
    pub fn intent(&self) -> &str {
        &self.intent
    }
    /// Why the run exists (AG-2).
    pub fn initiative(&self) -> Initiative {
        self.initiative
    }
    /// The resolved autonomy.
    pub fn autonomy(&self) -> Autonomy {
        self.autonomy
    }
    /// Where its calls come from.
    pub fn source(&self) -> PlanSource {
        self.source
    }
    /// Who holds control.
    pub fn state(&self) -> &RunState {
        &self.state
    }
    /// The revision of the last journal record; commands are fenced on it.
    pub fn revision(&self) -> u64 {
        self.revision
    }
    /// The budget, fixed at authorization.
    pub fn budget(&self) -> Budget {
        self.budget
    }
    /// What has been consumed.
    pub fn usage(&self) -> Usage {
        self.usage
    }
    /// When the run must have returned.
    pub fn deadline_at(&self) -> u64 {
        self.deadline_at
    }
    /// When the run was created.
    pub fn created_at(&self) -> u64 {
        self.created_at
    }
    /// The plan the person reviews: the first turn's proposals.
    pub fn plan(&self) -> &[ProposedCall] {
        &self.plan
    }
    /// The capabilities the run may call.
    pub fn allowlist(&self) -> impl Iterator<Item = &CapabilityRef> {
        self.allowlist.iter()
    }
    /// The run this one resumes (AG-11).
    pub fn resumes(&self) -> Option<&RunId> {
        self.resumes.as_ref()
    }
    /// Whether a chained run may resume this one (it was paused).
    pub fn is_resumable(&self) -> bool {
        self.resumable
    }
    /// The open turn, if the engine is waiting on the acting party.
    pub fn open_turn(&self) -> Option<TurnId> {
        self.turn.as_ref().map(|turn| turn.id)
    }
    /// The context snapshot of the open turn.
    pub fn open_turn_context(&self) -> Option<&Context> {
        self.turn.as_ref().map(|turn| &turn.context)
    }
    /// The run's undo group: every participant it changed, with the mark to
    /// revert to, in the order to revert them (last touched first). Undoing
    /// the whole delegation is reverting each of these — one step (A.2).
    pub fn undo_group(&self) -> Vec<(ParticipantId, MarkToken)> {
        let mut group: Vec<(ParticipantId, MarkToken)> = self
            .touched()
            .into_iter()
            .filter_map(|participant| match self.marks.get(&participant) {
                Some(MarkState::Taken(token)) => Some((participant, token.clone())),
                _ => None,
            })
            .collect();
        group.reverse();
        group
    }
    /// The call in flight, if a participant is mutating on the run's behalf.
    pub fn call_in_flight(&self) -> Option<&ProposedCall> {
        self.in_flight.as_ref()
    }
    /// Whether a rollback is under way.
    pub fn is_rolling_back(&self) -> bool {
        self.rollback.is_some()
    }
    /// Participants the run has changed, in the order it first changed them.
    pub fn touched(&self) -> Vec<ParticipantId> {
        let mut seen = BTreeSet::new();
        self.mutated
            .iter()
            .filter(|capability| seen.insert(capability.participant.clone()))
            .map(|capability| capability.participant.clone())
            .collect()
    }
    /// The run's journal, as recorded by this engine instance.
    pub fn journal(&self) -> &[JournalRecord] {
        &self.journal
    }
    /// When a rollback under way gives up on participants that have not
    /// confirmed their revert. A run past its deadline is terminal, or rolling
    /// back until this moment.
    pub fn rollback_deadline(&self) -> Option<u64> {
        self.rollback.as_ref().map(|rollback| rollback.deadline_at)
    }

    /// The next moment this run needs `handle_timeout`, if any.
    pub(crate) fn next_timeout(&self) -> Option<u64> {
        if let Some(at) = self.undo_deadline() {
            return Some(at);
        }
        if self.state.is_terminal() {
            return None;
        }
        if let Some(rollback) = &self.rollback {
            return Some(rollback.deadline_at);
        }
        let mut next = self.deadline_at;
        if let Some(turn) = &self.turn {
            next = next.min(turn.deadline_at);
        }
        if let Some(escalation) = &self.escalation {
            next = next.min(escalation.deadline_at);
        }
        if let Some(open) = &self.question {
            next = next.min(open.deadline_at);
        }
        Some(next)
    }

    // ----- recording ---------------------------------------------------------

    pub(crate) fn record(&mut self, step: &mut Step<'_>, actor: Actor, entry: JournalEntry) {
        self.revision += 1;
        let record = JournalRecord {
            run: self.id.clone(),
            revision: self.revision,
            at: step.now,
            actor,
            entry,
        };
        self.journal.push(record.clone());
        step.events.push_back(Event::Journal(record));
    }

    pub(crate) fn transition(&mut self, step: &mut Step<'_>, actor: Actor, to: RunState) {
        let from = self.state.name();
        // Every caller checks legality first. Should one be wrong, the state
        // stays (terminal states never reopen) and the breach is reported as
        // a typed integrity finding — never a silent no-op.
        if !from.can_become(to.name()) {
            let detail = format!(
                "illegal transition {from} -> {} refused; the run stays {from}",
                to.name()
            );
            Run::finding(
                step,
                Some(self.id.clone()),
                None,
                crate::event::FindingReason::Integrity { detail },
            );
            return;
        }
        self.state = to.clone();
        self.record(
            step,
            actor.clone(),
            JournalEntry::Transition {
                from,
                to: to.clone(),
            },
        );
        self.announce_transition(step, &actor, &to);
    }

    pub(crate) fn emit(step: &mut Step<'_>, effect: Effect) {
        step.events.push_back(Event::Effect(effect));
    }

    pub(crate) fn finding(
        step: &mut Step<'_>,
        run: Option<RunId>,
        turn: Option<TurnId>,
        reason: FindingReason,
    ) {
        let finding = Finding {
            at: step.now,
            run,
            turn,
            reason,
        };
        step.findings.push(finding.clone());
        crate::engine::trim_findings(step.findings);
        step.events.push_back(Event::Finding(finding));
    }

    // ----- timers --------------------------------------------------------------

    /// The timer cause that is due at `now`, by precedence.
    pub(crate) fn due_cause(&self, now: u64) -> Option<ReturnReason> {
        if self.state.is_terminal() || self.rollback.is_some() {
            return None;
        }
        let mut candidates = Vec::new();
        if self
            .turn
            .as_ref()
            .is_some_and(|turn| now >= turn.deadline_at)
        {
            candidates.push(ReturnReason::TurnDeadman);
        }
        if now >= self.deadline_at {
            candidates.push(ReturnReason::RunDeadline);
        }
        if self
            .question
            .as_ref()
            .is_some_and(|open| now >= open.deadline_at)
        {
            candidates.push(ReturnReason::QuestionExpired);
        }
        if let Some(escalation) = &self.escalation {
            if now >= escalation.deadline_at {
                candidates.push(match escalation.reason {
                    EscalationReason::BudgetExhausted { limit } => {
                        ReturnReason::BudgetExhausted { limit }
                    }
                    EscalationReason::OutOfScope { .. }
                    | EscalationReason::ReviewRequired { .. }
                    | EscalationReason::Drift { .. }
                    | EscalationReason::AuthorizationExpired => ReturnReason::EscalationTimeout,
                    EscalationReason::AwaitingAnswer { .. } => ReturnReason::QuestionExpired,
                });
            }
        }
        candidates.into_iter().min_by_key(ReturnReason::precedence)
    }

    /// Applies whatever is due at `now`: a timer cause, or the end of a
    /// rollback that ran out of time.
    pub(crate) fn settle(&mut self, step: &mut Step<'_>) {
        self.settle_undo(step);
        if let Some(rollback) = &self.rollback {
            if step.now >= rollback.deadline_at {
                self.finish_rollback(step, true);
            }
            return;
        }
        if let Some(cause) = self.due_cause(step.now) {
            self.end(step, Actor::Engine, cause);
        }
    }
}

mod announcing;
mod closing;
mod commands;
pub(crate) mod dispatch;
pub(crate) mod drift;
mod elicitation;
pub(crate) mod escalation;
mod reports;
pub(crate) mod review;
mod turns;
pub(crate) mod undo;
