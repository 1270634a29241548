//! How a run ends: the closing cause's category decides between completing,
//! aborting, keeping a partial result and rolling back (AG-4, AG-8, AG-9).

use super::rollback::{RevertStep, Rollback};
use super::*;
use crate::journal::Refusal;

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

    /// Unresolved budget exhaustion hands off to the person exactly once: the
    /// receipt is emitted by the close that ends the escalation, and that same
    /// step clears the escalation (terminal, or rolling back) — in memory and
    /// in every later snapshot — so no replay or restore can emit it again.
    /// Ends a run left over by a previous engine instance. The page that
    /// held its participants' history and its in-flight call is gone, so
    /// nothing can be reverted: the run ends as it stands.
    pub(crate) fn abandon(&mut self, step: &mut Step<'_>, outcome: Outcome, reason: ReturnReason) {
        if self.custody.is_terminal() {
            return;
        }
        self.drop_questions(step, reason == ReturnReason::QuestionExpired);
        self.turns.drop_turn();
        self.finish(step, Actor::Engine, outcome, reason);
    }

    /// Withdraws the questions the run was still going to ask, and closes
    /// the one it waits on (`expired`: because its deadline passed).
    pub(super) fn drop_questions(&mut self, step: &mut Step<'_>, expired: bool) {
        if let Some(open) = self.asking.end() {
            self.close_question(step, &open.id, expired);
        }
    }

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
            _ => self.mutation.in_flight().is_none() && every_change_accepts,
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
        let mut participants = self.touched();
        if let Some(call) = self.mutation.in_flight() {
            if !participants.contains(&call.capability.participant) {
                participants.push(call.capability.participant.clone());
            }
        }
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
