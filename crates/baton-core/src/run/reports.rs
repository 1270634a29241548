//! The host's reports: marks, call results, reverts, and the escalation
//! and cancellation they may lead to.

use super::*;

impl Run {
    // ----- host reports ------------------------------------------------------------

    pub(crate) fn mark_result(
        &mut self,
        step: &mut Step<'_>,
        participant: ParticipantId,
        result: Result<MarkToken, String>,
    ) {
        match result {
            Ok(token) => {
                self.mutation.mark_taken(&participant, token.clone());
                self.record(
                    step,
                    Actor::Participant {
                        participant: participant.clone(),
                    },
                    JournalEntry::MarkTaken { participant, token },
                );
                self.advance(step);
            }
            Err(message) => {
                self.mutation.mark_failed(&participant);
                self.end(
                    step,
                    Actor::Participant {
                        participant: participant.clone(),
                    },
                    ReturnReason::MarkFailed {
                        participant,
                        message,
                    },
                );
            }
        }
    }

    pub(crate) fn call_result(&mut self, step: &mut Step<'_>, result: CallResult) {
        let refused = matches!(result, CallResult::Refused { .. });
        // A refused call changed nothing: it is no mutation.
        let Some(call) = self.mutation.finish_call(refused) else {
            return;
        };
        let actor = Actor::Participant {
            participant: call.capability.participant.clone(),
        };
        self.record(
            step,
            actor.clone(),
            JournalEntry::CallFinished {
                call: call.call.clone(),
                result: result.clone(),
            },
        );
        if self.mutation.call_answered_in_rollback() {
            self.next_revert(step);
            return;
        }
        match &result {
            CallResult::Failed { message } => {
                let cause = ReturnReason::CallFailed {
                    capability: call.capability.clone(),
                    message: message.clone(),
                };
                let report = self.report_of(call, result);
                self.turns.report(report);
                self.end(step, actor, cause);
            }
            CallResult::Applied { .. } | CallResult::Refused { .. } => {
                let report = self.report_of(call, result);
                self.turns.report(report);
                self.advance(step);
            }
        }
    }

    pub(crate) fn revert_result(
        &mut self,
        step: &mut Step<'_>,
        participant: ParticipantId,
        error: Option<String>,
    ) {
        if !self.mutation.reverted(&participant, error.is_some()) {
            return;
        }
        self.record(
            step,
            Actor::Participant {
                participant: participant.clone(),
            },
            JournalEntry::Reverted { participant, error },
        );
        self.next_revert(step);
    }

    pub(crate) fn is_awaiting_revert(&self, participant: &ParticipantId) -> bool {
        self.mutation
            .rollback()
            .is_some_and(|rollback| rollback.is_awaiting(participant))
    }

    pub(crate) fn is_awaiting_mark(&self, participant: &ParticipantId) -> bool {
        self.mutation.mark(participant) == Some(&MarkState::Pending)
    }

    /// The reference handed to the participant with the call in flight (AG-32).
    pub(super) fn actor_ref(&self, step: &Step<'_>) -> Option<ActorRef> {
        self.minted_ref(step.secret, &step.config.session)
    }

    /// The reference of the call in flight, minted with `secret` for
    /// `session`: the one place an actor reference is made.
    pub(crate) fn minted_ref(
        &self,
        secret: &crate::ActorSecret,
        session: &crate::SessionId,
    ) -> Option<ActorRef> {
        let call = self.mutation.in_flight()?;
        Some(crate::actor::mint(
            secret,
            &ActorIdentity {
                session: session.clone(),
                run: self.id.clone(),
                call: call.call.clone(),
                via: call.via.clone(),
            },
        ))
    }

    pub(super) fn escalation_reason(&self) -> Option<&EscalationReason> {
        self.custody
            .escalation()
            .map(|escalation| &escalation.reason)
    }

    pub(super) fn clear_escalation(&mut self) {
        self.custody.clear_escalation();
    }

    /// Ends the run before anything was authorized: its open turn is
    /// aborted and its question withdrawn.
    pub(super) fn cancel(&mut self, step: &mut Step<'_>, actor: Actor, reason: CancelReason) {
        self.cancel_open_turn(step);
        self.drop_questions(step, false);
        let note = match &reason {
            CancelReason::Rejected { note } => Some(note.clone()).filter(|n| !n.is_empty()),
            CancelReason::NoPlan => None,
        };
        self.settle_unheard(step, &crate::announce::code_of(&reason), note);
        self.transition(step, actor, RunState::Cancelled { reason });
    }
}
