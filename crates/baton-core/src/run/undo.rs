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
        self.mutation.start_undo(Undoing {
            remaining: group.iter().cloned().collect(),
            awaiting: None,
            reverted: Vec::new(),
            failed: Vec::new(),
            deadline_at: step.now.saturating_add(step.config.revert_timeout_ms),
        });
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
        let Some(undo) = self.mutation.undoing_mut() else {
            return;
        };
        undo.awaiting = None;
        match &error {
            Some(message) => undo.failed.push(UndoFailure {
                participant: participant.clone(),
                message: message.clone(),
            }),
            None => undo.reverted.push(participant.clone()),
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
        let Some(undo) = self.mutation.undoing_mut() else {
            return;
        };
        if step.now < undo.deadline_at {
            return;
        }
        let late = undo
            .awaiting
            .take()
            .into_iter()
            .chain(undo.remaining.drain(..).map(|(participant, _)| participant));
        undo.failed.extend(late.map(|participant| UndoFailure {
            participant,
            message: "the revert did not finish in time".into(),
        }));
        self.finish_undo(step);
    }

    fn next_undo_revert(&mut self, step: &mut Step<'_>) {
        let Some(undo) = self.mutation.undoing_mut() else {
            return;
        };
        if undo.awaiting.is_some() {
            return;
        }
        match undo.remaining.pop_front() {
            Some((participant, token)) => {
                undo.awaiting = Some(participant.clone());
                Self::emit(
                    step,
                    Effect::Revert {
                        run: self.id.clone(),
                        participant,
                        token,
                    },
                );
            }
            None => self.finish_undo(step),
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
