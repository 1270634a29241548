//! Undoing a whole delegation in one step (A.2): after a run has returned,
//! the person asks for it to be undone, and every participant it changed is
//! reverted through its own history (AG-19) to the mark it gave before the
//! run first touched it, last touched first — one [`crate::Effect::Revert`]
//! at a time, each result journalled, the whole announced once as the
//! person's act.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::changes::UndoConflict;
use crate::event::{Effect, Event, UndoFailure, UndoReport};
use crate::ids::{MarkToken, ParticipantId};
use crate::journal::{Actor, JournalEntry};
use crate::run::{Run, Step};

/// An undo under way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Undoing {
    /// Participants still to revert, with their marks, in order.
    remaining: VecDeque<(ParticipantId, MarkToken)>,
    /// The participant whose revert is outstanding.
    awaiting: Option<ParticipantId>,
    reverted: Vec<ParticipantId>,
    failed: Vec<UndoFailure>,
    /// When reverts that have not answered count as failed.
    deadline_at: u64,
}

/// What an undo does next.
#[derive(Debug, PartialEq)]
pub(super) enum UndoStep {
    /// A revert is outstanding.
    Wait,
    /// Ask this participant to revert to this mark.
    Revert(ParticipantId, MarkToken),
    /// Every participant answered: the undo is over.
    Done,
}

impl Undoing {
    fn new(group: &[(ParticipantId, MarkToken)], deadline_at: u64) -> Undoing {
        Undoing {
            remaining: group.iter().cloned().collect(),
            awaiting: None,
            reverted: Vec::new(),
            failed: Vec::new(),
            deadline_at,
        }
    }

    /// The next revert, one at a time.
    pub(super) fn next(&mut self) -> UndoStep {
        if self.awaiting.is_some() {
            return UndoStep::Wait;
        }
        match self.remaining.pop_front() {
            Some((participant, token)) => {
                self.awaiting = Some(participant.clone());
                UndoStep::Revert(participant, token)
            }
            None => UndoStep::Done,
        }
    }

    /// The outstanding revert answered: reverted, or failed with `error`.
    pub(super) fn answered(&mut self, participant: &ParticipantId, error: Option<&String>) {
        self.awaiting = None;
        match error {
            Some(message) => self.failed.push(UndoFailure {
                participant: participant.clone(),
                message: message.clone(),
            }),
            None => self.reverted.push(participant.clone()),
        }
    }

    /// At or past the deadline (`now`), the revert outstanding and those
    /// never asked failed; `false` before it.
    pub(super) fn expire(&mut self, now: u64) -> bool {
        if now < self.deadline_at {
            return false;
        }
        let late = self
            .awaiting
            .take()
            .into_iter()
            .chain(self.remaining.drain(..).map(|(participant, _)| participant));
        self.failed.extend(late.map(|participant| UndoFailure {
            participant,
            message: "the revert did not finish in time".into(),
        }));
        true
    }
}

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
            .is_some_and(|undo| undo.awaiting.as_ref() == Some(participant))
    }

    /// When an undo under way gives up on reverts that have not answered.
    pub(super) fn undo_deadline(&self) -> Option<u64> {
        self.mutation.undoing().map(|undo| undo.deadline_at)
    }

    /// A participant reverted (or failed to) during an undo.
    pub(crate) fn undo_revert_result(
        &mut self,
        step: &mut Step<'_>,
        participant: ParticipantId,
        error: Option<String>,
    ) {
        if !self.mutation.undo_answered(&participant, error.as_ref()) {
            return;
        }
        self.record(
            step,
            Actor::Participant {
                participant: participant.clone(),
            },
            JournalEntry::Reverted { participant, error },
        );
        self.next_undo_revert(step);
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
        let failed: Vec<ParticipantId> = undo
            .failed
            .iter()
            .map(|failure| failure.participant.clone())
            .collect();
        self.announce_undone(step, &undo.reverted, &failed);
        step.events.push_back(Event::Undone {
            report: UndoReport {
                run: self.id.clone(),
                reverted: undo.reverted,
                failed: undo.failed,
            },
        });
    }
}
