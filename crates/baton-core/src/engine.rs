//! The engine: one session's runs, driven by inputs and polled for events.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::actor::{ActorRef, Attribution};
use crate::context::{ReadRef, ReadStamp};
use crate::error::{CommandError, DelegateError, MutationRefused, ReportError};
use crate::event::{Event, Finding, FindingReason};
use crate::ids::{CallId, CapabilityRef, MarkToken, ParticipantId, RunId, SessionId, TurnId};
use crate::journal::{Actor, CallResult, JournalEntry};
use crate::model::{Autonomy, Budget, Initiative};
use crate::run::{PlanSource, ProposedCall, Run, Step, TurnInput};
use crate::state::{CancelReason, EscalationReason, Resolution, ReturnReason, RunState, StateName};

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
}

impl EngineConfig {
    /// Defaults for a session: five-minute runs, one-minute turns, two-minute
    /// escalations, ten-second rollbacks, twenty non-user starts an hour.
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
        }
    }
}

/// What the engine needs to know about a declared capability.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapabilitySpec {
    /// Whether a failure of this capability may close the run as `partial`
    /// instead of rolling back (AG-8).
    pub accepts_partial_close: bool,
}

/// A request to delegate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Delegation {
    /// What the person wants, verbatim; it goes to the acting party.
    pub intent: String,
    /// Why the run exists (AG-2).
    pub initiative: Initiative,
    /// The resolved autonomy of the run.
    pub autonomy: Autonomy,
    /// The budget asked for; the engine default when absent.
    #[serde(default)]
    pub budget: Option<Budget>,
    /// A fixed plan (a macro, a rule): no acting party, no turns (AG-3).
    #[serde(default)]
    pub plan: Option<Vec<PlannedCall>>,
}

impl Delegation {
    /// A delegation to the acting party with the default budget.
    pub fn new(intent: impl Into<String>, initiative: Initiative, autonomy: Autonomy) -> Self {
        Delegation {
            intent: intent.into(),
            initiative,
            autonomy,
            budget: None,
            plan: None,
        }
    }

    /// Sets the budget.
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Makes it a fixed plan.
    pub fn with_plan(mut self, plan: Vec<PlannedCall>) -> Self {
        self.plan = Some(plan);
        self
    }
}

/// One call of a fixed plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlannedCall {
    /// What to invoke.
    pub capability: CapabilityRef,
    /// With what.
    pub arguments: Value,
}

/// The person's authorization of a reviewed plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Authorization {
    /// The capabilities allowed; by default the ones proposed.
    #[serde(default)]
    pub allowlist: Option<Vec<CapabilityRef>>,
    /// The budget fixed from now on; by default the one asked for.
    #[serde(default)]
    pub budget: Option<Budget>,
}

/// Traffic from the acting party, addressed to a turn. Dialect adapters
/// translate their wire into this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
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
    /// The stream broke the protocol (found by the stream verifier).
    Malformed {
        /// What was wrong.
        detail: String,
    },
}

/// The engine's live state, for persistence. History lives in the journal.
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
/// let mut engine = Engine::new(EngineConfig::new("session-1"));
/// let rename = CapabilityRef::new("tasks", "rename");
/// engine.declare_capability(rename.clone(), CapabilitySpec::default());
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
    config: EngineConfig,
    runs: BTreeMap<RunId, Run>,
    capabilities: BTreeMap<CapabilityRef, CapabilitySpec>,
    reads: BTreeMap<ReadRef, ReadStamp>,
    events: VecDeque<Event>,
    findings: Vec<Finding>,
    quota_starts: VecDeque<u64>,
    next_run: u64,
    disabled: bool,
}

impl Engine {
    /// A new engine with no runs.
    pub fn new(config: EngineConfig) -> Self {
        Engine {
            config,
            runs: BTreeMap::new(),
            capabilities: BTreeMap::new(),
            reads: BTreeMap::new(),
            events: VecDeque::new(),
            findings: Vec::new(),
            quota_starts: VecDeque::new(),
            next_run: 1,
            disabled: false,
        }
    }

    /// Rebuilds an engine from a snapshot without emitting anything: the
    /// escalation receipts and effects it already emitted are not repeated.
    pub fn restore(config: EngineConfig, snapshot: EngineSnapshot) -> Self {
        let mut engine = Engine::new(config);
        engine.runs = snapshot
            .runs
            .into_iter()
            .map(|run| (run.id.clone(), run))
            .collect();
        engine.quota_starts = snapshot.quota_starts.into();
        engine.next_run = snapshot.next_run;
        engine.disabled = snapshot.disabled;
        engine
    }

    /// The live state, for persistence.
    pub fn snapshot(&self) -> EngineSnapshot {
        EngineSnapshot {
            runs: self.runs.values().cloned().collect(),
            quota_starts: self.quota_starts.iter().copied().collect(),
            next_run: self.next_run,
            disabled: self.disabled,
        }
    }

    /// The settings.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Declares a capability a participant offers. Calls to capabilities not
    /// declared are answered as correctable refusals (AG-21).
    pub fn declare_capability(&mut self, capability: CapabilityRef, spec: CapabilitySpec) {
        self.capabilities.insert(capability, spec);
    }

    /// Publishes a read's current version and origin; the next turn's context
    /// snapshot carries it. Publishing again replaces the previous stamp.
    pub fn publish_read(&mut self, stamp: ReadStamp) {
        self.reads.insert(stamp.read.clone(), stamp);
    }

    /// Withdraws a read (its participant unmounted).
    pub fn withdraw_read(&mut self, read: &ReadRef) {
        self.reads.remove(read);
    }

    /// Withdraws a capability (its participant unmounted).
    pub fn withdraw_capability(&mut self, capability: &CapabilityRef) {
        self.capabilities.remove(capability);
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
        &self.findings
    }

    /// Whether new runs are refused (AG-10).
    pub fn is_disabled(&self) -> bool {
        self.disabled
    }

    // ----- the loop --------------------------------------------------------

    /// The next event, in the order the engine produced them.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
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
        let budget = delegation.budget.unwrap_or(self.config.default_budget);
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
        // AG-26: a run the person did not ask for never acts without review.
        let autonomy = if delegation.initiative.is_user() {
            delegation.autonomy
        } else {
            delegation.autonomy.min(Autonomy::Review)
        };
        let id = self.mint_run_id();
        let mut run = Run::new(
            id.clone(),
            delegation.intent.clone(),
            delegation.initiative,
            autonomy,
            source,
            budget,
            None,
            now,
        );
        let actor = if delegation.initiative.is_user() {
            Actor::Person
        } else {
            Actor::Engine
        };
        let mut step = Step {
            now,
            events: &mut self.events,
            findings: &mut self.findings,
            config: &self.config,
            capabilities: &self.capabilities,
            reads: &self.reads,
        };
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
        let (intent, autonomy, reports) = (
            previous.intent().to_owned(),
            previous.autonomy(),
            previous.reports.clone(),
        );
        let id = self.mint_run_id();
        let mut run = Run::new(
            id.clone(),
            intent.clone(),
            Initiative::User,
            autonomy,
            PlanSource::ActingParty,
            budget,
            Some(paused.clone()),
            now,
        );
        run.reports = reports;
        let mut step = Step {
            now,
            events: &mut self.events,
            findings: &mut self.findings,
            config: &self.config,
            capabilities: &self.capabilities,
            reads: &self.reads,
        };
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
        let budget_ceiling = self.config.max_budget;
        self.command(
            now,
            id,
            Some(expected_revision),
            "authorize",
            |run, step| {
                if run.state().name() != StateName::Reviewing {
                    return Err(illegal(run, "authorize"));
                }
                let budget = authorization.budget.unwrap_or(run.budget());
                check_raise(&budget, run, &budget_ceiling)?;
                let allowlist: BTreeSet<CapabilityRef> = match authorization.allowlist {
                    Some(list) => list.into_iter().collect(),
                    None => run.proposed_scope(),
                };
                run.enter(step, Actor::Person, RunState::Authorized);
                run.authorize_and_act(step, Actor::Person, allowlist, budget);
                Ok(())
            },
        )
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
                    run.close_turn_for_cancel(step);
                    run.enter(
                        step,
                        Actor::Person,
                        RunState::Cancelled {
                            reason: CancelReason::Rejected { note: note.into() },
                        },
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
    pub fn resolve_escalation(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: u64,
        resolution: Resolution,
    ) -> Result<(), CommandError> {
        let budget_ceiling = self.config.max_budget;
        self.command(now, id, Some(expected_revision), "resolve-escalation", |run, step| {
            let Some(reason) = run.escalation_reason().cloned() else {
                return Err(illegal(run, "resolve-escalation"));
            };
            match (resolution, reason) {
                (Resolution::Return, _) | (Resolution::Deny, EscalationReason::BudgetExhausted { .. }) => {
                    run.close(step, Actor::Person, ReturnReason::EscalationReturned);
                }
                (Resolution::Review, _) => {
                    run.clear_escalation();
                    run.enter(step, Actor::Person, RunState::Reviewing);
                }
                (Resolution::Deny, EscalationReason::OutOfScope { .. }) => {
                    run.clear_escalation();
                    run.enter(step, Actor::Person, RunState::Acting);
                    if let Some(call) = run.queue.pop_front() {
                        run.refuse(
                            step,
                            Actor::Person,
                            call,
                            "denied",
                            "the person denied this call; stay inside the authorized scope",
                        );
                    }
                    run.advance(step);
                }
                (Resolution::Allow { budget }, reason) => {
                    let budget = budget.unwrap_or(run.budget());
                    check_raise(&budget, run, &budget_ceiling)?;
                    let mut allowlist = run.allowlist.clone();
                    match reason {
                        EscalationReason::OutOfScope { capability } => {
                            allowlist.insert(capability);
                        }
                        EscalationReason::BudgetExhausted { limit } => {
                            let raised = match limit {
                                crate::state::BudgetLimit::Turns => budget.max_turns > run.usage().turns,
                                crate::state::BudgetLimit::Calls => budget.max_calls > run.usage().calls,
                            };
                            if !raised {
                                return Err(CommandError::InvalidBudget(format!(
                                    "allowing an exhausted run needs a budget that raises its {limit:?} limit"
                                )));
                            }
                        }
                    }
                    run.clear_escalation();
                    run.authorize_and_act(step, Actor::Person, allowlist, budget);
                }
            }
            Ok(())
        })
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

    /// The global kill: every active run returns `aborted` (AG-10). Returns
    /// how many runs it ended.
    pub fn kill_all(&mut self, now: u64) -> usize {
        let ids: Vec<RunId> = self.active_runs().map(|run| run.id().clone()).collect();
        for id in &ids {
            self.with_run(now, id, |run, step| {
                run.close(step, Actor::Person, ReturnReason::Kill)
            });
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

    /// Ends every run a previous engine instance left active (a reload or a
    /// crash): `returned{aborted, interrupted}`. Idempotent.
    pub fn reconcile(&mut self, now: u64) -> usize {
        let ids: Vec<RunId> = self.active_runs().map(|run| run.id().clone()).collect();
        for id in &ids {
            self.with_run(now, id, |run, step| {
                // The page that held the marks and the in-flight call is gone:
                // there is nothing to revert with, so the run ends as it is.
                run.rollback = None;
                run.in_flight = None;
                run.close(step, Actor::Engine, ReturnReason::Interrupted);
            });
        }
        ids.len()
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
            Inbound::TurnEnd => TurnInput::End,
            Inbound::TurnFailed { message } => TurnInput::Failed(message),
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
    /// always act. A reference is admitted only while it names the call in
    /// flight of an acting run; anything else is refused.
    pub fn admit_mutation(&self, actor: Option<&ActorRef>) -> Result<Attribution, MutationRefused> {
        let Some(actor) = actor else {
            return Ok(Attribution::Person);
        };
        let admitted = self
            .runs
            .get(&actor.run)
            .filter(|run| !run.state().is_terminal())
            .and_then(Run::actor_ref)
            .is_some_and(|in_flight| &in_flight == actor);
        if admitted {
            Ok(Attribution::Delegated(actor.clone()))
        } else {
            Err(MutationRefused::OutsideRun {
                actor: actor.to_string(),
            })
        }
    }

    /// The actor reference of the call in flight in a run, to hand to the
    /// participant with the invocation (AG-32).
    pub fn actor_for(&self, id: &RunId) -> Option<ActorRef> {
        self.runs.get(id).and_then(Run::actor_ref)
    }

    // ----- plumbing --------------------------------------------------------

    fn step(&mut self, now: u64) -> Step<'_> {
        Step {
            now,
            events: &mut self.events,
            findings: &mut self.findings,
            config: &self.config,
            capabilities: &self.capabilities,
            reads: &self.reads,
        }
    }

    fn with_run<T>(
        &mut self,
        now: u64,
        id: &RunId,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> T,
    ) -> Option<T> {
        let run = self.runs.get_mut(id)?;
        let mut step = Step {
            now,
            events: &mut self.events,
            findings: &mut self.findings,
            config: &self.config,
            capabilities: &self.capabilities,
            reads: &self.reads,
        };
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
        let id = RunId::new(format!("{}/r{}", self.config.session, self.next_run));
        self.next_run += 1;
        id
    }

    fn check_budget(&self, budget: &Budget, source: PlanSource) -> Result<(), String> {
        if !budget.within(&self.config.max_budget) {
            return Err(format!(
                "{budget:?} exceeds the engine's maximum {:?}",
                self.config.max_budget
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
        if self.quota_starts.len() >= self.config.hourly_quota as usize {
            let oldest = self.quota_starts.front().copied().unwrap_or(now);
            return Err(DelegateError::QuotaExceeded {
                quota: self.config.hourly_quota,
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
