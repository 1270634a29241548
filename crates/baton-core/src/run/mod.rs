//! One run and the rules that move it. The [`crate::Engine`] owns runs and
//! routes inputs to them; everything that decides a run's fate is here.

use crate::actor::{ActorIdentity, ActorRef, ActorSecret};
use crate::config::EngineConfig;
use crate::context::{Context, ReadRef, ReadStamp};
use crate::delegation::PlannedCall;
use crate::error::DelegateError;
use crate::event::{Effect, Event, Finding, FindingReason};
use crate::grants::Grants;
use crate::ids::{CallId, CapabilityRef, MarkToken, ParticipantId, QuestionId, RunId, TurnId};
use crate::journal::{Actor, CallResult, JournalEntry, JournalRecord};
use crate::model::{Autonomy, Budget, Initiative, Usage};
use crate::protocol::TurnRequest;
use crate::registry::Registry;
use crate::state::{CancelReason, EscalationReason, ReturnReason, RunState};
use baton_schema::digest::Digest;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The most questions one turn may ask; more is an integrity violation
/// (bounded, like every other thing a stream can accumulate).
const MAX_QUESTIONS_PER_TURN: usize = 8;

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
    /// The subagents the acting party made it through, outermost first
    /// (empty: the acting party itself). Who acted is a chain; a subagent
    /// acts within its run's authorization, never beyond it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
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
struct OpenTurn {
    pub id: TurnId,
    pub deadline_at: u64,
    pub context: Context,
    /// The questions asked in this turn, in order.
    pub questions: Vec<AskedQuestion>,
    pub proposals: Vec<ProposedCall>,
}

/// The question a run waits on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct OpenQuestion {
    pub id: QuestionId,
    pub deadline_at: u64,
    /// The time the acting party gave the person, and when it stops
    /// waiting: kept to put the question again after a reload (AG-41).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
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
    /// The acting party's own call it asks the person to approve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<crate::questions::AgentCall>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum MarkState {
    Pending,
    Taken(MarkToken),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Escalation {
    pub reason: EscalationReason,
    pub deadline_at: u64,
}

/// What an authorization was computed on (AG-29): the reads it saw, bound by
/// a fingerprint, the autonomy it resolved to, and when it lapses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuthorizationRecord {
    pub fingerprint: Digest,
    /// The stamps fingerprinted, advanced by the run's own writes.
    #[serde(with = "crate::context::stamps")]
    pub baseline: BTreeMap<ReadRef, ReadStamp>,
    /// The run-level autonomy the context resolved to.
    pub level: Autonomy,
    pub expires_at: u64,
}

/// One delegation: its custody state, budget, scope, and what it touched.
///
/// Serializable as a snapshot of live state; the journal is kept beside it
/// (see [`Run::journal`]) and is not part of the snapshot; its stored
/// shape is one flat record (see `row.rs`). Its fields are
/// private to this module: every rule about a run is a method here or in
/// one of its submodules, and the engine only routes to them.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    id: RunId,
    intent: String,
    initiative: Initiative,
    /// The person's choice.
    requested: Autonomy,
    /// The run-level resolution of the person's choice (AG-24, AG-26).
    autonomy: Autonomy,
    source: PlanSource,
    resumes: Option<RunId>,
    /// The conversation the app named for it, if any.
    thread: Option<String>,
    created_at: u64,
    // Stored as one flat record (`row.rs`).
    custody: Custody,
    turns: TurnLog,
    mutation: Mutation,
    approval: Approval,
    asking: Asking,
    journal: Vec<JournalRecord>,
}

/// What a run is started with: who asked for what, how much control, and
/// where its calls come from.
pub(crate) struct Charter {
    pub id: RunId,
    pub intent: String,
    pub initiative: Initiative,
    /// The person's choice.
    pub requested: Autonomy,
    /// Its run-level resolution (AG-24, AG-26).
    pub autonomy: Autonomy,
    pub source: PlanSource,
    pub budget: Budget,
    /// The paused run this one resumes (AG-11).
    pub resumes: Option<RunId>,
    /// The conversation the app named for it, if any.
    pub thread: Option<String>,
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
    /// The acting party's own tool, carried out and reported by it.
    AgentAct {
        call: CallId,
        tool: String,
        arguments: Value,
        result: Value,
    },
    Said {
        message: String,
        text: String,
    },
    Question(AskedQuestion),
    End,
    Failed(String),
    Lost(String),
    AgentError {
        status: u16,
        message: String,
    },
    Malformed(crate::violation::Violation),
    OverLimit {
        lane: crate::state::TurnLane,
        limit: u64,
    },
}

impl Run {
    /// This run as `session`'s history lists it.
    pub fn listing(&self, session: &str) -> listing::RunListing {
        let outcome = match self.custody.state() {
            RunState::Returned { outcome, .. } => Some(*outcome),
            _ => None,
        };
        listing::RunListing {
            run: self.id.clone(),
            session: session.to_owned(),
            intent: self.intent.clone(),
            initiative: self.initiative,
            state: self.custody.state().clone(),
            outcome,
            created_at: self.created_at,
            ended_at: self.custody.ended_at(),
            resumes: self.resumes.clone(),
            reviewable_again: self.custody.offered().is_some(),
            resumable: self.custody.is_resumable(),
            undone: self.mutation.is_undone(),
        }
    }

    /// A run of `charter`, offered and not yet started.
    pub(crate) fn new(charter: Charter, now: u64) -> Self {
        let budget = charter.budget;
        Run {
            id: charter.id,
            intent: charter.intent,
            initiative: charter.initiative,
            requested: charter.requested,
            autonomy: charter.autonomy,
            source: charter.source,
            resumes: charter.resumes,
            thread: charter.thread,
            created_at: now,
            custody: Custody::new(budget, now),
            turns: TurnLog::default(),
            mutation: Mutation::default(),
            approval: Approval::default(),
            asking: Asking::default(),
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
    /// The conversation the app named for it, if any (chained runs keep it).
    pub fn thread(&self) -> Option<&str> {
        self.thread.as_deref()
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
        self.custody.state()
    }
    /// The revision of the last journal record; commands are fenced on it.
    pub fn revision(&self) -> u64 {
        self.custody.revision()
    }
    /// The budget, fixed at authorization.
    pub fn budget(&self) -> Budget {
        self.custody.budget()
    }
    /// What has been consumed.
    pub fn usage(&self) -> Usage {
        self.custody.usage()
    }
    /// When the run must have returned.
    pub fn deadline_at(&self) -> u64 {
        self.custody.deadline_at()
    }
    /// When the run was created.
    pub fn created_at(&self) -> u64 {
        self.created_at
    }
    /// The plan the person reviews: the first turn's proposals.
    pub fn plan(&self) -> &[ProposedCall] {
        self.turns.plan()
    }
    /// The capabilities the run may call.
    pub fn allowlist(&self) -> impl Iterator<Item = &CapabilityRef> {
        self.approval.allowlist().iter()
    }
    /// The run this one resumes (AG-11).
    pub fn resumes(&self) -> Option<&RunId> {
        self.resumes.as_ref()
    }
    /// Whether a chained run may resume this one (it was paused).
    pub fn is_resumable(&self) -> bool {
        self.custody.is_resumable()
    }
    /// Whether a reload cut it off while it waited for the person, and it is
    /// offered to them again: a store keeps it with what is live.
    pub fn is_offered(&self) -> bool {
        self.custody.offered().is_some()
    }
    /// The open turn, if the engine is waiting on the acting party.
    pub fn open_turn(&self) -> Option<TurnId> {
        self.turns.turn().map(|turn| turn.id)
    }
    /// The context snapshot of the open turn.
    pub fn open_turn_context(&self) -> Option<&Context> {
        self.turns.turn().map(|turn| &turn.context)
    }
    /// The run's undo group: every participant it changed, with the mark to
    /// revert to, in the order to revert them (last touched first). Undoing
    /// the whole delegation is reverting each of these — one step (A.2).
    pub fn undo_group(&self) -> Vec<(ParticipantId, MarkToken)> {
        let mut group: Vec<(ParticipantId, MarkToken)> = self
            .touched()
            .into_iter()
            .filter_map(|participant| match self.mutation.mark(&participant) {
                Some(MarkState::Taken(token)) => Some((participant, token.clone())),
                _ => None,
            })
            .collect();
        group.reverse();
        group
    }
    /// The call in flight, if a participant is mutating on the run's behalf.
    pub fn call_in_flight(&self) -> Option<&ProposedCall> {
        self.mutation.in_flight()
    }
    /// Whether a rollback is under way.
    pub fn is_rolling_back(&self) -> bool {
        self.mutation.rollback().is_some()
    }
    /// Participants the run has changed, in the order it first changed them.
    pub fn touched(&self) -> Vec<ParticipantId> {
        let mut seen = BTreeSet::new();
        self.mutation
            .mutated()
            .iter()
            .filter(|capability| seen.insert(capability.participant.clone()))
            .map(|capability| capability.participant.clone())
            .collect()
    }
    /// Whether the run has changed `participant` (without listing them all,
    /// as [`Run::touched`] does).
    pub fn has_changed(&self, participant: &ParticipantId) -> bool {
        self.mutation
            .mutated()
            .iter()
            .any(|capability| &capability.participant == participant)
    }
    /// The run's journal, as recorded by this engine instance.
    pub fn journal(&self) -> &[JournalRecord] {
        &self.journal
    }
    /// When a rollback under way gives up on participants that have not
    /// confirmed their revert. A run past its deadline is terminal, or rolling
    /// back until this moment.
    pub fn rollback_deadline(&self) -> Option<u64> {
        self.mutation
            .rollback()
            .map(|rollback| rollback.deadline_at())
    }

    /// The next moment this run needs to be told `Signal::Timeout`, if any.
    pub(crate) fn next_timeout(&self) -> Option<u64> {
        if let Some(at) = self.undo_deadline() {
            return Some(at);
        }
        if self.custody.is_terminal() {
            return None;
        }
        if let Some(rollback) = self.mutation.rollback() {
            return Some(rollback.deadline_at());
        }
        let mut next = self.custody.deadline_at();
        if let Some(turn) = self.turns.turn() {
            next = next.min(turn.deadline_at);
        }
        if let Some(escalation) = self.custody.escalation() {
            next = next.min(escalation.deadline_at);
        }
        if let Some(open) = self.asking.open() {
            next = next.min(open.deadline_at);
        }
        if let Some(due) = self.previews_due() {
            next = next.min(due);
        }
        Some(next)
    }

    // ----- timers --------------------------------------------------------------

    /// The timer cause that is due at `now`, by precedence.
    pub(crate) fn due_cause(&self, now: u64) -> Option<ReturnReason> {
        if self.custody.is_terminal() || self.mutation.rollback().is_some() {
            return None;
        }
        let mut candidates = Vec::new();
        if self
            .turns
            .turn()
            .is_some_and(|turn| now >= turn.deadline_at)
        {
            candidates.push(ReturnReason::TurnDeadman);
        }
        if now >= self.custody.deadline_at() {
            candidates.push(ReturnReason::RunDeadline);
        }
        if self
            .asking
            .open()
            .is_some_and(|open| now >= open.deadline_at)
        {
            candidates.push(ReturnReason::QuestionExpired);
        }
        if let Some(escalation) = self.custody.escalation() {
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
        if let Some(rollback) = self.mutation.rollback() {
            if step.now >= rollback.deadline_at() {
                self.finish_rollback(step, true);
            }
            return;
        }
        self.expire_previews(step);
        if let Some(cause) = self.due_cause(step.now) {
            self.end(step, Actor::Engine, cause);
        }
    }
}

// The groups of a run's state, each a module that keeps its own rules.
mod approval;
mod asking;
mod custody;
mod mutation;
mod turn_log;
mod undoing;
use approval::Approval;
use asking::Asking;
use custody::Custody;
use mutation::Mutation;
use turn_log::TurnLog;

mod announcing;
pub(crate) mod binding;
pub(crate) mod closing;
pub(crate) mod decisions;
pub(crate) mod dispatch;
pub(crate) mod listing;
pub(crate) mod review;
mod rollback;
mod row;
mod turns;

// ----- transitions --------------------------------------------------------------
// Recording a run's steps: every journal record bumps its revision, and
// every change of custody passes the machine's table (a transition it
// forbids is refused and reported, whoever attempts it).

impl Run {
    /// A participant answered a revert (a rollback's or an undo's): it
    /// reverted, or failed with `error`. Journalled as the participant's.
    pub(super) fn record_reverted(
        &mut self,
        step: &mut Step<'_>,
        participant: ParticipantId,
        error: Option<String>,
    ) {
        let actor = Actor::Participant {
            participant: participant.clone(),
        };
        self.record(step, actor, JournalEntry::Reverted { participant, error });
    }

    pub(super) fn record(&mut self, step: &mut Step<'_>, actor: Actor, entry: JournalEntry) {
        let revision = self.custody.next_revision();
        let record = JournalRecord {
            run: self.id.clone(),
            revision,
            at: step.now,
            actor,
            entry,
        };
        self.journal.push(record.clone());
        step.events.push_back(Event::Journal(record));
    }

    pub(super) fn transition(&mut self, step: &mut Step<'_>, actor: Actor, to: RunState) {
        // Every caller checks legality first. Should one be wrong, the state
        // stays (terminal states never reopen) and the breach is reported as
        // a typed integrity finding — never a silent no-op.
        let from = match self.custody.enter(to.clone(), step.now) {
            Ok(from) => from,
            Err(from) => {
                let detail = format!(
                    "illegal transition {from} -> {} refused; the run stays {from}",
                    to.name()
                );
                Run::finding(
                    step,
                    Some(self.id.clone()),
                    None,
                    crate::event::FindingReason::Integrity {
                        code: crate::violation::ProtocolViolation::IllegalTransition,
                        detail,
                    },
                );
                return;
            }
        };
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

    pub(super) fn emit(step: &mut Step<'_>, effect: Effect) {
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
        crate::event::trim_findings(step.findings);
        step.events.push_back(Event::Finding(finding));
    }
}

// ----- starting -----------------------------------------------------------------
// How a run starts: from a delegation, or resuming a paused run (AG-11).

impl Run {
    /// Starts the run, journalled as created by `actor`: a fixed plan is
    /// proposed at once (its calls numbered `p1`, `p2`, …), otherwise the
    /// planning turn is reserved and sent.
    pub(crate) fn start(
        &mut self,
        step: &mut Step<'_>,
        actor: Actor,
        fixed_plan: Option<Vec<PlannedCall>>,
    ) {
        // A fixed plan was computed against the reads as they are now.
        self.turns.see_all(step.reads.clone());
        self.record_created(step, actor.clone());
        match fixed_plan {
            Some(plan) => {
                let plan = plan
                    .into_iter()
                    .enumerate()
                    .map(|(index, planned)| ProposedCall {
                        call: CallId::new(format!("p{}", index + 1)),
                        capability: planned.capability,
                        arguments: planned.arguments,
                        via: Vec::new(),
                    })
                    .collect();
                self.accept_plan(step, actor, plan);
            }
            None => self.reserve_turn(step),
        }
    }

    /// The run's first record: what it is for, and the run it resumes.
    pub(super) fn record_created(&mut self, step: &mut Step<'_>, actor: Actor) {
        let created = JournalEntry::Created {
            intent: self.intent.clone(),
            initiative: self.initiative,
            budget: self.custody.budget(),
            resumes: self.resumes.clone(),
            autonomy: Some(self.autonomy),
        };
        self.record(step, actor, created);
    }

    /// The budget a run resuming this one gets: the one given, or this
    /// run's. Only a paused run with an acting party can be resumed.
    pub(crate) fn resume_budget(&self, budget: Option<Budget>) -> Result<Budget, DelegateError> {
        if !self.custody.is_resumable() || self.source != PlanSource::ActingParty {
            return Err(DelegateError::NotResumable {
                run: self.id.clone(),
            });
        }
        Ok(budget.unwrap_or(self.custody.budget()))
    }

    /// The run `id` that resumes this one, the person's, chained in the same
    /// session; call results not yet delivered travel to its first turn.
    /// This run can be resumed only once.
    pub(crate) fn resumed_by(&mut self, id: RunId, budget: Budget, now: u64) -> Run {
        self.custody.set_resumable(false);
        let mut run = Run::new(
            Charter {
                id,
                intent: self.intent.clone(),
                // Resumed by the person, it is still the run it was (AG-26).
                initiative: self.initiative,
                requested: self.requested,
                autonomy: self.autonomy,
                source: PlanSource::ActingParty,
                budget,
                resumes: Some(self.id.clone()),
                thread: self.thread.clone(),
            },
            now,
        );
        run.turns.carry_over_reports(self.turns.reports().clone());
        run
    }
}

#[cfg(test)]
mod tests {
    use crate::actor::ActorSecret;
    use crate::config::EngineConfig;
    use crate::delegation::Delegation;
    use crate::engine::Engine;
    use crate::event::{Event, FindingReason};
    use crate::journal::Actor;
    use crate::model::{Autonomy, Initiative};
    use crate::state::{RunState, StateName};

    #[test]
    fn an_illegal_transition_is_refused_and_reported_never_silent() {
        let mut engine = Engine::new(EngineConfig::new("s"), ActorSecret::new([1; 32]));
        let run = engine
            .delegate(0, Delegation::new("x", Initiative::User, Autonomy::Review))
            .unwrap();
        engine.stop(0, &run).unwrap();
        while engine.poll_event().is_some() {}
        let revision = engine.run(&run).unwrap().revision();
        // A returned run may never act again; a caller that tries is refused.
        engine.with_run(1, &run, |run, step| {
            run.transition(step, Actor::Engine, RunState::Acting)
        });
        let mut findings = Vec::new();
        while let Some(event) = engine.poll_event() {
            if let Event::Finding(finding) = event {
                findings.push(finding);
            }
        }
        let state = engine.run(&run).unwrap();
        assert_eq!(
            state.state().name(),
            StateName::Returned,
            "the state stayed"
        );
        assert_eq!(state.revision(), revision, "nothing was journalled");
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].run.as_ref(), Some(&run));
        assert!(matches!(
            &findings[0].reason,
            FindingReason::Integrity { code: crate::ProtocolViolation::IllegalTransition, detail } if detail == "illegal transition returned -> acting refused; the run stays returned"
        ));
    }
}
