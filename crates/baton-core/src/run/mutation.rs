//! What a run changed, and how it is taken back: the call in flight, the
//! marks taken before a participant's first change, the capabilities that
//! changed something, a rollback under way, and the person's undo. The
//! fields are this module's; every change goes through a method that keeps
//! the rules below.
//!
//! - A dispatched call is in flight until its result comes; one at a time.
//! - A call that changes something counts as a mutation once dispatched; a
//!   refused one does not, and a query never does.
//! - A participant is marked once per run: a mark is requested, then taken
//!   (or, failing, forgotten so the run can end without it).
//! - A run is undone at most once; once it ends, nothing is in flight and
//!   no rollback is under way.

use std::collections::BTreeMap;

use crate::ids::{CapabilityRef, MarkToken, ParticipantId};

use super::rollback::{RevertStep, Rollback};
use super::row::columns;
use super::undoing::{UndoStep, Undoing};
use super::{MarkState, ProposedCall};

columns! {
    /// What one run changed, and how it is taken back.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub(super) struct Mutation {
        in_flight: Option<ProposedCall> => "inFlight",
        marks: BTreeMap<ParticipantId, MarkState> => "marks",
        /// Capabilities whose calls were dispatched and not refused, in order.
        mutated: Vec<CapabilityRef> => "mutated",
        rollback: Option<Rollback> => "rollback",
        /// Whether the person undid the run (one undo per run).
        undone: bool => "undone" (default),
        /// An undo under way.
        undoing: Option<Undoing> => "undoing" (default),
    }
}

impl Mutation {
    // ----- calls --------------------------------------------------------------

    /// The call in flight, if a participant is mutating on the run's behalf.
    pub(super) fn in_flight(&self) -> Option<&ProposedCall> {
        self.in_flight.as_ref()
    }

    /// `call` is dispatched: it is in flight, and a mutation unless it
    /// changes nothing (a query).
    pub(super) fn dispatch(&mut self, call: &ProposedCall, changes: bool) {
        if changes {
            self.mutated.push(call.capability.clone());
        }
        self.in_flight = Some(call.clone());
    }

    /// The call in flight answered: it is no longer in flight, and if it
    /// was refused it changed nothing, so it is no mutation either.
    pub(super) fn finish_call(&mut self, refused: bool) -> Option<ProposedCall> {
        let call = self.in_flight.take()?;
        if refused {
            if let Some(position) = self.mutated.iter().rposition(|c| *c == call.capability) {
                self.mutated.remove(position);
            }
        }
        Some(call)
    }

    /// The capabilities whose calls changed something, in order.
    pub(super) fn mutated(&self) -> &[CapabilityRef] {
        &self.mutated
    }

    /// The call in flight if it changes something: a query in flight is
    /// no change. (A changing call joins `mutated` when it is dispatched,
    /// and only one call is in flight, so it is the last there; a query's
    /// capability never is.)
    pub(super) fn changing_in_flight(&self) -> Option<&ProposedCall> {
        self.in_flight
            .as_ref()
            .filter(|call| self.mutated.last() == Some(&call.capability))
    }

    /// Whether the run changed nothing and nothing is changing now (a
    /// changing call in flight is in `mutated` already).
    pub(super) fn changed_nothing(&self) -> bool {
        self.mutated.is_empty()
    }

    /// The run ended: nothing is in flight, no rollback is under way.
    pub(super) fn settle(&mut self) {
        self.in_flight = None;
        self.rollback = None;
    }

    // ----- marks --------------------------------------------------------------

    /// Where `participant`'s mark stands.
    pub(super) fn mark(&self, participant: &ParticipantId) -> Option<&MarkState> {
        self.marks.get(participant)
    }

    /// Asks for `participant`'s mark; `false` when it was asked for before.
    pub(super) fn request_mark(&mut self, participant: &ParticipantId) -> bool {
        if self.marks.contains_key(participant) {
            return false;
        }
        self.marks.insert(participant.clone(), MarkState::Pending);
        true
    }

    /// `participant` gave its mark.
    pub(super) fn mark_taken(&mut self, participant: &ParticipantId, token: MarkToken) {
        self.marks
            .insert(participant.clone(), MarkState::Taken(token));
    }

    /// `participant` could not give a mark: none is kept.
    pub(super) fn mark_failed(&mut self, participant: &ParticipantId) {
        self.marks.remove(participant);
    }

    /// Whether a mark was asked for and has not come.
    pub(super) fn awaits_mark(&self) -> bool {
        self.marks.values().any(|mark| *mark == MarkState::Pending)
    }

    // ----- rollback -----------------------------------------------------------

    /// The rollback under way, if any.
    pub(super) fn rollback(&self) -> Option<&Rollback> {
        self.rollback.as_ref()
    }

    /// The rollback's next step, each participant's mark as it was taken;
    /// `None` when no rollback is under way.
    pub(super) fn next_revert(&mut self) -> Option<RevertStep> {
        let marks = &self.marks;
        let rollback = self.rollback.as_mut()?;
        Some(rollback.next(|participant| match marks.get(participant) {
            Some(MarkState::Taken(token)) => Some(token.clone()),
            _ => None,
        }))
    }

    /// The call in flight answered; `true` when a rollback waited for it.
    pub(super) fn call_answered_in_rollback(&mut self) -> bool {
        let Some(rollback) = self.rollback.as_mut() else {
            return false;
        };
        rollback.call_answered();
        true
    }

    /// `participant`'s revert answered (`failed` when it did not revert);
    /// `false` when no rollback is under way.
    pub(super) fn reverted(&mut self, participant: &ParticipantId, failed: bool) -> bool {
        let Some(rollback) = self.rollback.as_mut() else {
            return false;
        };
        rollback.reverted(participant, failed);
        true
    }

    /// A rollback starts.
    pub(super) fn start_rollback(&mut self, rollback: Rollback) {
        self.rollback = Some(rollback);
    }

    /// The rollback is over: it is returned, to say how it ended.
    pub(super) fn take_rollback(&mut self) -> Option<Rollback> {
        self.rollback.take()
    }

    // ----- undo ---------------------------------------------------------------

    /// Whether the person undid the run.
    pub(super) fn is_undone(&self) -> bool {
        self.undone
    }

    /// The person undoes the run: once, and it is undone from now on.
    pub(super) fn start_undo(&mut self, undoing: Undoing) {
        self.undone = true;
        self.undoing = Some(undoing);
    }

    /// The undo under way, if any.
    pub(super) fn undoing(&self) -> Option<&Undoing> {
        self.undoing.as_ref()
    }

    /// The undo's next step; `None` when no undo is under way.
    pub(super) fn next_undo(&mut self) -> Option<UndoStep> {
        self.undoing.as_mut().map(Undoing::next)
    }

    /// A revert of the undo answered; `false` when no undo is under way.
    pub(super) fn undo_answered(
        &mut self,
        participant: &ParticipantId,
        error: Option<&String>,
    ) -> bool {
        let Some(undoing) = self.undoing.as_mut() else {
            return false;
        };
        undoing.answered(participant, error);
        true
    }

    /// Whether an undo under way has run out of time at `now` (what was
    /// outstanding then failed).
    pub(super) fn expire_undo(&mut self, now: u64) -> bool {
        self.undoing
            .as_mut()
            .is_some_and(|undoing| undoing.expire(now))
    }

    /// The undo is over: it is returned, to report it.
    pub(super) fn take_undoing(&mut self) -> Option<Undoing> {
        self.undoing.take()
    }
}
