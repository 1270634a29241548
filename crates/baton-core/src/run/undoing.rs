//! The undo as a machine of its own: the participants still to revert,
//! one revert outstanding at a time, each answered as reverted or failed,
//! and a deadline after which whatever has not answered failed. What an
//! undo *means* for a run — who may ask, what is journalled and said — is
//! the run's, in `closing.rs`.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::event::{UndoFailure, UndoReport};
use crate::ids::{MarkToken, ParticipantId, RunId};

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
    pub(super) fn new(group: &[(ParticipantId, MarkToken)], deadline_at: u64) -> Undoing {
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

    /// Whether the revert outstanding is this participant's.
    pub(super) fn awaits(&self, participant: &ParticipantId) -> bool {
        self.awaiting.as_ref() == Some(participant)
    }

    /// When reverts that have not answered count as failed.
    pub(super) fn deadline_at(&self) -> u64 {
        self.deadline_at
    }

    /// The undo is over: who was reverted, and who failed and why.
    pub(super) fn report(self, run: RunId) -> UndoReport {
        UndoReport {
            run,
            reverted: self.reverted,
            failed: self.failed,
        }
    }
}
