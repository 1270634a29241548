//! The rollback that returns control when a run ends in a way that takes
//! its changes back (AG-8). Every participant the run changed is reverted
//! to the mark it gave, newest change first, one at a time, once a call in
//! flight has answered. A participant that gave no mark, a revert that
//! fails, and one still outstanding at the deadline are failed reverts;
//! the run then ends in error naming them, and otherwise rolled back.
//! Everything that happens to a rollback is decided here.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::ids::{MarkToken, ParticipantId};
use crate::state::{Outcome, ReturnReason};

/// A rollback under way (stored in the run's row, `rollback`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Rollback {
    cause: ReturnReason,
    /// Participants still to be asked, in order.
    remaining: VecDeque<ParticipantId>,
    /// The participant whose revert is outstanding.
    awaiting: Option<ParticipantId>,
    /// Reverts wait for a call that was in flight when the run closed.
    waiting_for_call: bool,
    failed: Vec<ParticipantId>,
    deadline_at: u64,
}

/// What a rollback does next.
#[derive(Debug, PartialEq)]
pub(super) enum RevertStep {
    /// Nothing yet: a revert, or the call in flight, is outstanding.
    Wait,
    /// Ask this participant to revert to its mark.
    Revert(ParticipantId, MarkToken),
    /// This participant gave no mark, so there is nothing to revert it to:
    /// a failed revert (the caller journals it), and the rollback goes on.
    NoMark(ParticipantId),
    /// Every participant was asked and has answered: the rollback is over.
    Done,
}

impl Rollback {
    /// A rollback for `cause` of `participants`, in the order they are to
    /// be reverted; it gives up on outstanding reverts at `deadline_at`.
    pub(super) fn new(
        cause: ReturnReason,
        participants: Vec<ParticipantId>,
        waiting_for_call: bool,
        deadline_at: u64,
    ) -> Rollback {
        Rollback {
            cause,
            remaining: participants.into(),
            awaiting: None,
            waiting_for_call,
            failed: Vec::new(),
            deadline_at,
        }
    }

    /// When it gives up on the reverts still outstanding.
    pub(super) fn deadline_at(&self) -> u64 {
        self.deadline_at
    }

    /// Whether `participant`'s revert is the one outstanding.
    pub(super) fn is_awaiting(&self, participant: &ParticipantId) -> bool {
        self.awaiting.as_ref() == Some(participant)
    }

    /// The call that was in flight answered: the reverts may start.
    pub(super) fn call_answered(&mut self) {
        self.waiting_for_call = false;
    }

    /// The next step, given each participant's mark (`mark`).
    pub(super) fn next(
        &mut self,
        mark: impl Fn(&ParticipantId) -> Option<MarkToken>,
    ) -> RevertStep {
        if self.waiting_for_call || self.awaiting.is_some() {
            return RevertStep::Wait;
        }
        let Some(participant) = self.remaining.pop_front() else {
            return RevertStep::Done;
        };
        match mark(&participant) {
            Some(token) => {
                self.awaiting = Some(participant.clone());
                RevertStep::Revert(participant, token)
            }
            None => {
                self.failed.push(participant.clone());
                RevertStep::NoMark(participant)
            }
        }
    }

    /// The outstanding revert answered; `failed` when it did not revert.
    pub(super) fn reverted(&mut self, participant: &ParticipantId, failed: bool) {
        self.awaiting = None;
        if failed {
            self.failed.push(participant.clone());
        }
    }

    /// How the run ends: rolled back, or in error naming every revert that
    /// failed — with, once the deadline passed (`timed_out`), the one
    /// outstanding and those never asked.
    pub(super) fn result(mut self, timed_out: bool) -> (Outcome, ReturnReason) {
        if timed_out {
            self.failed.extend(self.awaiting.take());
            self.failed.extend(self.remaining.drain(..));
        }
        if self.failed.is_empty() {
            (Outcome::RolledBack, self.cause)
        } else {
            (
                Outcome::Error,
                ReturnReason::RollbackFailed {
                    cause: Box::new(self.cause),
                    participants: self.failed,
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: &str) -> ParticipantId {
        ParticipantId::new(id)
    }

    fn token() -> Option<MarkToken> {
        Some(MarkToken::new("m"))
    }

    #[test]
    fn ag_8_reverts_go_one_at_a_time_after_the_call_in_flight() {
        let mut rollback = Rollback::new(ReturnReason::Kill, vec![p("b"), p("a")], true, 50);
        assert_eq!(
            rollback.next(|_| token()),
            RevertStep::Wait,
            "the call first"
        );
        rollback.call_answered();
        assert_eq!(
            rollback.next(|_| token()),
            RevertStep::Revert(p("b"), MarkToken::new("m"))
        );
        assert!(rollback.is_awaiting(&p("b")));
        assert_eq!(
            rollback.next(|_| token()),
            RevertStep::Wait,
            "one at a time"
        );
        rollback.reverted(&p("b"), false);
        assert_eq!(rollback.next(|_| None), RevertStep::NoMark(p("a")));
        assert_eq!(rollback.next(|_| token()), RevertStep::Done);
        assert_eq!(
            rollback.result(false),
            (
                Outcome::Error,
                ReturnReason::RollbackFailed {
                    cause: Box::new(ReturnReason::Kill),
                    participants: vec![p("a")]
                }
            )
        );
    }

    #[test]
    fn ag_8_at_the_deadline_what_is_outstanding_failed() {
        let mut rollback = Rollback::new(ReturnReason::Kill, vec![p("b"), p("a")], false, 50);
        assert_eq!(rollback.deadline_at(), 50);
        assert!(matches!(rollback.next(|_| token()), RevertStep::Revert(..)));
        let clean = rollback.clone();
        let (outcome, reason) = rollback.result(true);
        assert_eq!(outcome, Outcome::Error);
        assert!(
            matches!(reason, ReturnReason::RollbackFailed { participants, .. } if participants == [p("b"), p("a")])
        );
        let mut clean = clean;
        clean.reverted(&p("b"), false);
        assert!(matches!(clean.next(|_| token()), RevertStep::Revert(..)));
        clean.reverted(&p("a"), false);
        assert_eq!(clean.next(|_| token()), RevertStep::Done);
        assert_eq!(
            clean.result(false),
            (Outcome::RolledBack, ReturnReason::Kill)
        );
    }
}
