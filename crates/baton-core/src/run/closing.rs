//! How a run ends: the closing cause's category decides between completing,
//! aborting, keeping a partial result and rolling back (AG-4, AG-8, AG-9).
//!
//! What a reload cut off while the person was looking at it (A.2, AG-11).
//!
//! A run waiting for the person — a plan under review, an escalated call to
//! allow, a question to answer — is not merely listed as cut off when the
//! page goes away. The engine that reconciles it keeps what the person was
//! shown, and the engine that opens next offers it again: the person
//! reviews that plan again as a chained run, its calls previewed again
//! against the reads as they are now (so the drift and stale rules apply,
//! AG-20, AG-29), answers the question again in a chained run, or discards
//! it. Either way the cut-off run's journal says so, once.
//!
//! Undoing a whole delegation in one step (A.2): after a run has returned,
//! the person asks for it to be undone, and every participant it changed is
//! reverted through its own history (AG-19) to the mark it gave before the
//! run first touched it, last touched first — one [`crate::Effect::Revert`]
//! at a time, each result journalled, the whole announced once as the
//! person's act.

use std::collections::VecDeque;

use super::rollback::{RevertStep, Rollback};
use super::undoing::{UndoStep, Undoing};
use super::*;
use super::{AskedQuestion, PlanSource, ProposedCall, Run, Step};
use crate::changes::UndoConflict;
use crate::context::ReadStamp;
use crate::event::{Effect, Event};
use crate::ids::RunId;
use crate::ids::{MarkToken, ParticipantId};
use crate::journal::Refusal;
use crate::journal::{Actor, CallReport, JournalEntry};
use crate::model::{Autonomy, Budget};
use crate::run::review::ReviewAgain;
use crate::state::{Outcome, ReturnReason, RunState};
use serde::{Deserialize, Serialize};

/// How a closing cause turns into an outcome.
enum Category {
    Success,
    /// The person took control back: nothing is reverted (the run stays one
    /// undo step for the person to take).
    Person,
    /// The run could not finish: roll back unless partial close is accepted.
    Failure,
}

impl ReturnReason {
    /// Rank among simultaneous terminal causes; lower wins (DESIGN.md §3:
    /// integrity violation > explicit close > turn deadman > run deadline >
    /// budget exhausted; an unanswered escalation comes last).
    pub fn precedence(&self) -> u8 {
        match self {
            ReturnReason::IntegrityViolation { .. } | ReturnReason::TurnOverLimit { .. } => 0,
            ReturnReason::Finished
            | ReturnReason::PlanCompleted
            | ReturnReason::UserInterrupt
            | ReturnReason::Kill
            | ReturnReason::Paused
            | ReturnReason::Interrupted
            | ReturnReason::EscalationReturned
            | ReturnReason::ReviewRejected { .. }
            | ReturnReason::TurnFailed { .. }
            | ReturnReason::AgentError { .. }
            | ReturnReason::TransportLost { .. }
            | ReturnReason::CallFailed { .. }
            | ReturnReason::PlanRefused { .. }
            | ReturnReason::MarkFailed { .. }
            | ReturnReason::RollbackFailed { .. }
            | ReturnReason::PresenceMissing => 1,
            ReturnReason::TurnDeadman => 2,
            ReturnReason::RunDeadline => 3,
            ReturnReason::BudgetExhausted { .. } => 4,
            ReturnReason::EscalationTimeout | ReturnReason::QuestionExpired => 5,
        }
    }

    fn category(&self) -> Category {
        match self {
            ReturnReason::Finished | ReturnReason::PlanCompleted => Category::Success,
            ReturnReason::UserInterrupt
            | ReturnReason::Kill
            | ReturnReason::Paused
            | ReturnReason::Interrupted
            | ReturnReason::EscalationReturned
            | ReturnReason::ReviewRejected { .. } => Category::Person,
            ReturnReason::EscalationTimeout
            | ReturnReason::QuestionExpired
            | ReturnReason::BudgetExhausted { .. }
            | ReturnReason::TurnDeadman
            | ReturnReason::RunDeadline
            | ReturnReason::TurnFailed { .. }
            | ReturnReason::AgentError { .. }
            | ReturnReason::TransportLost { .. }
            | ReturnReason::IntegrityViolation { .. }
            | ReturnReason::CallFailed { .. }
            | ReturnReason::PlanRefused { .. }
            | ReturnReason::TurnOverLimit { .. }
            | ReturnReason::MarkFailed { .. }
            | ReturnReason::RollbackFailed { .. }
            | ReturnReason::PresenceMissing => Category::Failure,
        }
    }
}

impl Run {
    // ----- closing ---------------------------------------------------------------

    /// Ends the run for `cause` — completes, aborts or keeps a partial
    /// result at once, or starts the rollback that will end it, as AG-8 and
    /// the cause's category decide.
    pub(crate) fn end(&mut self, step: &mut Step<'_>, actor: Actor, cause: ReturnReason) {
        if self.custody.is_terminal() {
            return;
        }
        self.drop_questions(step, cause == ReturnReason::QuestionExpired);
        let category = cause.category();
        if self.mutation.rollback().is_some() {
            // A rollback is already returning control; only the person can cut it short.
            if matches!(category, Category::Person) {
                self.finish(step, actor, Outcome::Aborted, cause);
            }
            return;
        }
        self.cancel_open_turn(step);
        self.emit_receipt_if_unresolved(step, &category);
        match category {
            Category::Success => self.finish(step, actor, Outcome::Completed, cause),
            Category::Person => self.finish(step, actor, Outcome::Aborted, cause),
            Category::Failure => {
                if self.mutation.changed_nothing() {
                    self.finish(step, actor, Outcome::Error, cause);
                } else if self.accepts_partial_close(step, &cause) {
                    self.finish(step, actor, Outcome::Partial, cause);
                } else {
                    self.start_rollback(step, cause);
                }
            }
        }
    }

    /// Ends a run left over by a previous engine instance. The page that
    /// held its participants' history and its in-flight call is gone, so
    /// nothing can be reverted: the run ends as it stands.
    pub(crate) fn abandon(&mut self, step: &mut Step<'_>, outcome: Outcome, reason: ReturnReason) {
        if self.custody.is_terminal() {
            return;
        }
        self.drop_questions(step, reason == ReturnReason::QuestionExpired);
        self.turns.drop_turn();
        // An exhausted budget the person never answered is handed off now.
        self.emit_receipt_if_unresolved(step, &Category::Failure);
        self.finish(step, Actor::Engine, outcome, reason);
    }

    /// Withdraws the questions the run was still going to ask, and closes
    /// the one it waits on (`expired`: because its deadline passed).
    pub(super) fn drop_questions(&mut self, step: &mut Step<'_>, expired: bool) {
        if let Some(open) = self.asking.end() {
            self.close_question(step, &open.id, expired);
        }
    }

    /// Unresolved budget exhaustion hands off to the person exactly once: the
    /// receipt is emitted by the close that ends the escalation, and that same
    /// step clears the escalation (terminal, or rolling back) — in memory and
    /// in every later snapshot — so no replay or restore can emit it again.
    fn emit_receipt_if_unresolved(&mut self, step: &mut Step<'_>, category: &Category) {
        if matches!(category, Category::Person) {
            return;
        }
        let Some(Escalation {
            reason: reason @ EscalationReason::BudgetExhausted { .. },
            ..
        }) = self.custody.escalation().cloned()
        else {
            return;
        };
        self.record(
            step,
            Actor::Engine,
            JournalEntry::EscalationReceipt {
                reason: reason.clone(),
            },
        );
        step.events.push_back(Event::EscalationReceipt {
            run: self.id.clone(),
            reason,
        });
    }

    pub(super) fn accepts_partial_close(&self, step: &Step<'_>, cause: &ReturnReason) -> bool {
        let accepts = |capability: &CapabilityRef| {
            step.registry
                .capability(capability)
                .is_some_and(|decl| decl.accepts_partial_close())
        };
        // Every capability that changed state in the run must accept it, not
        // only the one that failed (AG-8: the person authorized the plan).
        let every_change_accepts = self.mutation.mutated().iter().all(accepts);
        match cause {
            ReturnReason::CallFailed { capability, .. } => {
                accepts(capability) && every_change_accepts
            }
            _ => self.mutation.changing_in_flight().is_none() && every_change_accepts,
        }
    }

    pub(super) fn finish(
        &mut self,
        step: &mut Step<'_>,
        actor: Actor,
        outcome: Outcome,
        reason: ReturnReason,
    ) {
        // A pause, or a lost connection that left nothing rolled back, can be
        // picked up by a chained run with its context (AG-11); nothing
        // reconnects on its own.
        let resumable = matches!(reason, ReturnReason::Paused)
            || (matches!(reason, ReturnReason::TransportLost { .. }) && outcome == Outcome::Error);
        self.custody.set_resumable(resumable);
        self.turns.drop_turn();
        self.mutation.settle();
        self.custody.clear_escalation();
        self.approval.take_recheck();
        // A run that can be resumed, or one a reload cut off (offered again
        // in a chained run), keeps what its acting party has not heard: the
        // chained run carries it on (AG-11).
        if !resumable && reason != ReturnReason::Interrupted {
            let note = match &reason {
                ReturnReason::ReviewRejected { note } => {
                    Some(note.clone()).filter(|n| !n.is_empty())
                }
                _ => None,
            };
            self.settle_unheard(step, &crate::announce::code_of(&reason), note);
        }
        self.turns.clear_queue();
        let refused = self.turns.refused();
        self.transition(
            step,
            actor,
            RunState::Returned {
                outcome,
                reason,
                refused,
            },
        );
    }

    pub(super) fn start_rollback(&mut self, step: &mut Step<'_>, cause: ReturnReason) {
        // What the run changed, the call in flight included; a participant
        // it only queried has nothing to revert.
        let mut participants = self.touched();
        participants.reverse();
        self.custody.clear_escalation();
        self.turns.clear_queue();
        self.record(
            step,
            Actor::Engine,
            JournalEntry::RollbackStarted {
                participants: participants.clone(),
            },
        );
        let waiting_for_call = self.mutation.in_flight().is_some();
        self.mutation.start_rollback(Rollback::new(
            cause,
            participants,
            waiting_for_call,
            step.now.saturating_add(step.config.revert_timeout_ms),
        ));
        self.next_revert(step);
    }

    pub(super) fn next_revert(&mut self, step: &mut Step<'_>) {
        loop {
            match self.mutation.next_revert() {
                None | Some(RevertStep::Wait) => return,
                Some(RevertStep::Done) => {
                    self.finish_rollback(step, false);
                    return;
                }
                Some(RevertStep::Revert(participant, token)) => {
                    let effect = Effect::Revert {
                        run: self.id.clone(),
                        participant,
                        token,
                    };
                    Self::emit(step, effect);
                    return;
                }
                // Without a mark there is nothing to revert to: that is a failed revert.
                Some(RevertStep::NoMark(participant)) => {
                    self.record(
                        step,
                        Actor::Engine,
                        JournalEntry::Reverted {
                            participant,
                            error: Some("no mark was taken for this run".into()),
                        },
                    );
                }
            }
        }
    }

    pub(super) fn finish_rollback(&mut self, step: &mut Step<'_>, timed_out: bool) {
        let Some(rollback) = self.mutation.take_rollback() else {
            return;
        };
        let (outcome, reason) = rollback.result(timed_out);
        self.finish(step, Actor::Engine, outcome, reason);
    }

    /// The run is ending: the acting party is owed what became of every
    /// call it proposed and has not heard of — the results not sent yet,
    /// and each call never carried out, with how the run ended and the
    /// person's note ([`Event::CallsSettled`]). A fixed plan has no one to
    /// tell.
    pub(super) fn settle_unheard(
        &mut self,
        step: &mut Step<'_>,
        reason: &str,
        note: Option<String>,
    ) {
        if self.source != PlanSource::ActingParty {
            return;
        }
        let mut results = self.turns.take_reports();
        let unheard: Vec<ProposedCall> = self
            .turns
            .queue()
            .iter()
            .filter(|call| !results.iter().any(|report| report.call == call.call))
            .cloned()
            .collect();
        for call in unheard {
            let refusal = Refusal::NotCarriedOut {
                reason: reason.to_owned(),
                note: note.clone(),
            };
            results.push(self.report_of(call, CallResult::Refused { refusal }));
        }
        if !results.is_empty() {
            step.events.push_back(Event::CallsSettled {
                run: self.id.clone(),
                results,
            });
        }
    }

    /// The engine stops waiting for the open turn: the host aborts it.
    pub(super) fn cancel_open_turn(&mut self, step: &mut Step<'_>) {
        if let Some(turn) = self.turns.drop_turn() {
            Self::emit(
                step,
                Effect::CancelTurn {
                    run: self.id.clone(),
                    turn: turn.id,
                },
            );
        }
    }
}

// ----- cut off by a reload ------------------------------------------------------

/// What the person was shown when the run was cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Waiting {
    /// A plan, or a call, waiting for review.
    Review,
    /// A question waiting for an answer.
    Answer,
}

/// What a cut-off run keeps to be offered again, until the person takes it
/// up or discards it: what the person was shown and the calls they were
/// reviewing, not yet done; a question waits, as before it was put, among
/// the run's pending questions. (A plain record, not a tagged enum: serde
/// reads tagged enums through a buffer that costs the wasm module more than
/// this whole feature.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Offered {
    waiting: Waiting,
    #[serde(default)]
    calls: Vec<ProposedCall>,
}

/// A run a reload cut off while it waited for the person, offered again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "CutOffRun"))]
#[serde(rename_all = "camelCase")]
pub struct CutOff {
    /// The cut-off run.
    pub run: RunId,
    /// The person's intent.
    pub intent: String,
    /// What the person was shown.
    pub waiting: Waiting,
}

/// What a chained run needs to put a cut-off run's plan or question before
/// the person again.
pub(crate) struct Again {
    calls: Vec<ProposedCall>,
    questions: VecDeque<AskedQuestion>,
    pub(crate) intent: String,
    pub(crate) initiative: Initiative,
    pub(crate) requested: Autonomy,
    pub(crate) source: PlanSource,
    pub(crate) budget: Budget,
    /// The reads the calls were planned against.
    seen: Vec<ReadStamp>,
    /// Call results the acting party has not heard yet.
    reports: Vec<CallReport>,
}

impl Run {
    /// What the person is shown right now that a reload would cut off: a
    /// plan under review, a call to allow before anything was done, or the
    /// acting party's question.
    fn before_the_person(&self, step: &Step<'_>) -> Option<(Offered, Option<AskedQuestion>)> {
        let Some(open) = self.asking.open() else {
            return match self.custody.state() {
                RunState::Reviewing => self.calls_under_review(),
                // A call to allow, before anything was done: the plan is whole.
                RunState::Escalated { reason }
                    if reason.awaits_approval_of_a_call() && self.mutation.mutated().is_empty() =>
                {
                    self.calls_under_review()
                }
                _ => None,
            };
        };
        let question = step.questions.by_id.get(&open.id)?;
        match &question.asker {
            crate::questions::Asker::ActingParty { request, approval } => Some((
                Offered {
                    waiting: Waiting::Answer,
                    calls: Vec::new(),
                },
                Some(AskedQuestion {
                    request: request.clone(),
                    prompt: question.prompt.clone(),
                    schema: question.schema.clone(),
                    deadline_ms: open.deadline_ms,
                    expires_at: open.expires_at,
                    approval: approval.clone(),
                }),
            )),
            // Which instance to act on: the plan is reviewed again instead,
            // if it is whole (nothing was done yet).
            crate::questions::Asker::Engine { .. } if self.mutation.mutated().is_empty() => {
                self.calls_under_review()
            }
            crate::questions::Asker::Engine { .. } => None,
        }
    }

    fn calls_under_review(&self) -> Option<(Offered, Option<AskedQuestion>)> {
        let offered = Offered {
            waiting: Waiting::Review,
            calls: self.turns.queue().iter().cloned().collect(),
        };
        (!offered.calls.is_empty()).then_some((offered, None))
    }

    /// Ends the run a reload cut off (`interrupted`), keeping what the
    /// person was shown, and the questions still to be put after it, to
    /// offer them again.
    pub(crate) fn cut_off_by_reload(&mut self, step: &mut Step<'_>) {
        let offered = self.before_the_person(step);
        let mut pending = self.asking.take_pending();
        self.abandon(step, Outcome::Aborted, ReturnReason::Interrupted);
        if let Some((offered, open)) = offered {
            let waiting = offered.waiting;
            if let Some(open) = open {
                pending.push_front(open);
            }
            self.asking.set_pending(pending);
            self.custody.offer(offered);
            self.record(step, Actor::Engine, JournalEntry::OfferedAgain { waiting });
        }
    }

    /// What this run offers again, if a reload cut it off before the person.
    pub(crate) fn cut_off(&self) -> Option<CutOff> {
        let offered = self.custody.offered()?;
        Some(CutOff {
            run: self.id.clone(),
            intent: self.intent.clone(),
            waiting: offered.waiting,
        })
    }

    /// The person took the offer up in a chained run, or discarded it: it is
    /// offered no more. Returns what the chained run needs, if it was offered.
    pub(crate) fn settle_offer(
        &mut self,
        step: &mut Step<'_>,
        reviewed_again: bool,
    ) -> Option<Again> {
        let offered = self.custody.take_offered()?;
        self.record(
            step,
            Actor::Person,
            JournalEntry::OfferSettled { reviewed_again },
        );
        Some(Again {
            calls: offered.calls,
            questions: self.asking.take_pending(),
            intent: self.intent.clone(),
            initiative: self.initiative,
            requested: self.requested,
            source: self.source,
            budget: self.custody.budget(),
            seen: self.turns.seen().values().cloned().collect(),
            reports: self.turns.reports().clone(),
        })
    }

    /// Starts this chained run with what `again` offers: the plan under
    /// review again, previewed afresh against the reads as they are now
    /// while the calls keep the reads they were planned against; or the
    /// question put to the person again.
    pub(crate) fn start_again(&mut self, step: &mut Step<'_>, again: Again) {
        self.turns.carry_over_reports(again.reports);
        self.record_created(step, Actor::Person);
        // The questions still to be put, after the plan's calls if any.
        self.asking.set_pending(again.questions);
        if again.calls.is_empty() {
            self.turns.see_all(step.reads.clone());
            self.ask_pending(step);
            return;
        }
        // Inserted one by one: collecting would sort, and bring a sort into
        // the wasm module for this alone.
        for stamp in again.seen {
            self.turns.see(stamp);
        }
        for call in &again.calls {
            self.turns.carry_over(call.clone());
        }
        self.turns.carry_over_plan(again.calls);
        self.autonomy = self.context_level(step);
        self.transition(step, Actor::Person, RunState::Planned);
        self.enter_review(step, Actor::Person);
        let run = self.resumes.clone().unwrap_or_else(|| self.id.clone());
        self.approval.show_again(Some(ReviewAgain::CutOff { run }));
    }
}

// ----- undo ---------------------------------------------------------------------

impl Run {
    /// Starts undoing the run: journals the undo as the person's and asks
    /// the first participant to revert. The caller has checked that the run
    /// can be undone.
    /// `kept` were changed since and stay as they are; `overridden` were
    /// changed since and are reverted anyway.
    pub(super) fn start_undo(
        &mut self,
        step: &mut Step<'_>,
        group: Vec<(ParticipantId, MarkToken)>,
        kept: Vec<UndoConflict>,
        overridden: Vec<UndoConflict>,
    ) -> Vec<(ParticipantId, MarkToken)> {
        self.record(
            step,
            Actor::Person,
            JournalEntry::Undone {
                participants: group.iter().map(|(p, _)| p.clone()).collect(),
                kept,
                overridden,
            },
        );
        self.mutation.start_undo(Undoing::new(
            &group,
            step.now.saturating_add(step.config.revert_timeout_ms),
        ));
        self.next_undo_revert(step);
        group
    }

    /// Whether an undo waits for this participant's revert.
    pub(crate) fn is_undoing(&self, participant: &ParticipantId) -> bool {
        self.mutation
            .undoing()
            .is_some_and(|undo| undo.awaits(participant))
    }

    /// When an undo under way gives up on reverts that have not answered.
    pub(super) fn undo_deadline(&self) -> Option<u64> {
        self.mutation.undoing().map(Undoing::deadline_at)
    }

    /// A participant reverted (or failed to) during an undo.
    pub(crate) fn undo_revert_result(
        &mut self,
        step: &mut Step<'_>,
        participant: ParticipantId,
        error: Option<String>,
    ) {
        if self.mutation.undo_answered(&participant, error.as_ref()) {
            self.record_reverted(step, participant, error);
            self.next_undo_revert(step);
        }
    }

    /// Gives up on reverts that did not answer in time.
    pub(super) fn settle_undo(&mut self, step: &mut Step<'_>) {
        if self.mutation.expire_undo(step.now) {
            self.finish_undo(step);
        }
    }

    fn next_undo_revert(&mut self, step: &mut Step<'_>) {
        match self.mutation.next_undo() {
            None | Some(UndoStep::Wait) => {}
            Some(UndoStep::Revert(participant, token)) => Self::emit(
                step,
                Effect::Revert {
                    run: self.id.clone(),
                    participant,
                    token,
                },
            ),
            Some(UndoStep::Done) => self.finish_undo(step),
        }
    }

    fn finish_undo(&mut self, step: &mut Step<'_>) {
        let Some(undo) = self.mutation.take_undoing() else {
            return;
        };
        let report = undo.report(self.id.clone());
        let failed: Vec<ParticipantId> = report
            .failed
            .iter()
            .map(|failure| failure.participant.clone())
            .collect();
        self.announce_undone(step, &report.reverted, &failed);
        step.events.push_back(Event::Undone { report });
    }
}
